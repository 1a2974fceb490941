/* fuzz_binary.c: libFuzzer harness for the binary readers: dgnn_load_binary (.dgnn) and
 * dgnn_read_npy (.npy). Build and run with bench/fuzz.sh (see fuzz/README.md).
 *
 * Each input is written to a file in a private temporary folder and loaded:
 *  1. as it is, with verify = 1 and verify = 0, and as a .npy file;
 *  2. "re-sealed": the magic is set and every checksum the format holds (the section
 *     checksums whose ranges lie in the file, then the header checksum) is recomputed,
 *     so mutations reach the count / offset / semantic checks behind the checksums,
 *     which random bytes would otherwise never pass.
 * A success must give a table whose arrays can all be read (a pointer past the mapping
 * faults) and whose values are what the loader promises: ids in range, finite sorted
 * timestamps (period indices in a period table), labels 0/1, ext_roll 0..2, finite
 * features, increasing node_ids, a bipartite flag true of the events.
 *
 * Built with -DFUZZ_SEED_MAIN (no libFuzzer) the file is instead a small program that
 * writes seed inputs (.dgnn files saved by dgnn_save_binary, .npy files) into the folder
 * given as its argument: bench/fuzz.sh uses it to seed the corpus. */
#include "dgnn/binfmt.h"
#include "dgnn/npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

#ifndef FUZZ_SEED_MAIN

static void die(const char *what) {
    fprintf(stderr, "fuzz_binary: dgnn_load_binary returned a broken table: %s\n", what);
    abort();
}

static volatile double g_sink;

/* Reads every array of a loaded table, and checks what the loader promises. */
static void check_table(const dgnn_events *ev) {
    int64_t E = ev->num_events, N = ev->num_nodes;
    if (E < 0 || N < 0 || ev->edge_dim < 0 || ev->node_dim < 0 || ev->num_periods < 0) die("negative count");
    if (E > 0 && (!ev->src || !ev->dst || !ev->t)) die("missing event arrays");
    double s = 0;
    const int64_t P = ev->num_periods;
    for (int64_t i = 0; i < E; i++) {
        if (ev->src[i] < 0 || ev->src[i] >= N || ev->dst[i] < 0 || ev->dst[i] >= N) die("node id out of range");
        if (!isfinite(ev->t[i]) || (i && ev->t[i] < ev->t[i - 1])) die("timestamps not finite and sorted");
        if (P > 0 && !(ev->t[i] >= 0 && ev->t[i] < (double)P && ev->t[i] == floor(ev->t[i])))
            die("a period table's time is not a period index");
        if (ev->label && ev->label[i] != 0 && ev->label[i] != 1) die("label other than 0 or 1");
        if (ev->ext_roll && (ev->ext_roll[i] < 0 || ev->ext_roll[i] > 2)) die("ext_roll outside 0..2");
        if (ev->label) s += ev->label[i];
        if (ev->ext_roll) s += ev->ext_roll[i];
    }
    if (ev->edge_dim > 0 && !ev->efeat) die("edge_dim > 0 without efeat");
    if (ev->efeat)
        for (int64_t i = 0; i < E * ev->edge_dim; i++) {
            if (!isfinite(ev->efeat[i])) die("non-finite edge feature");
            s += ev->efeat[i];
        }
    if (ev->node_ids)
        for (int64_t v = 0; v < N; v++) {
            if (ev->node_ids[v] < 0 || (v && ev->node_ids[v] <= ev->node_ids[v - 1])) die("node_ids not increasing");
            s += (double)ev->node_ids[v];
        }
    if (ev->node_dim > 0 && !ev->nfeat) die("node_dim > 0 without nfeat");
    if (ev->nfeat)
        for (int64_t i = 0; i < N * ev->node_dim; i++) {
            if (!isfinite(ev->nfeat[i])) die("non-finite node feature");
            s += ev->nfeat[i];
        }
    if (ev->period_x)
        for (int64_t i = 0; i < P * N * ev->period_x_dim; i++) {
            if (!isfinite(ev->period_x[i])) die("non-finite period_x");
            s += ev->period_x[i];
        }
    if (ev->period_y)
        for (int64_t i = 0; i < P * N * ev->period_y_dim; i++) {
            if (!isfinite(ev->period_y[i])) die("non-finite period_y");
            s += ev->period_y[i];
        }
    if (ev->bipartite && E > 0 && !dgnn_events_detect_bipartite(ev)) die("bipartite flag false of the events");
    g_sink = s;
}

static void load_all(void) {
    for (int verify = 1; verify >= 0; verify--) {
        dgnn_events ev;
        dgnn_err err;
        memset(&err, 0, sizeof err);
        int rc = dgnn_load_binary(&ev, g_path, verify, &err);
        if (rc == DGNN_OK) check_table(&ev);
        else if (rc > 0 || err.code != rc || !err.msg[0] || ev.num_events || ev.src || ev.map)
            die("failure without a status and message, or with a non-empty table");
        dgnn_events_free(&ev);
    }
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr64(uint8_t *p, uint64_t x) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(x >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_setup("bin", "input.dgnn");
    write_file(g_path, data, size);
    load_all();
    {
        float *v = NULL;
        int64_t r, c;
        dgnn_err err;
        memset(&err, 0, sizeof err);
        int rc = dgnn_read_npy(g_path, &v, &r, &c, &err);
        if (rc == DGNN_OK) {
            double s = 0;
            for (int64_t i = 0; i < r * c; i++) s += v[i];
            g_sink = s;
        } else if (v || !err.msg[0]) {
            fprintf(stderr, "fuzz_binary: dgnn_read_npy failed without a message or left an array\n");
            abort();
        }
        free(v);
    }

    /* re-sealed copy: layout from binfmt.c (128-byte header, 32-byte table entries) */
    enum { HDR = 128, CSUM_AT = 120, ENTRY = 32 };
    if (size < HDR) return 0;
    uint8_t *b = malloc(size);
    if (!b) return 0;
    memcpy(b, data, size);
    memcpy(b, DGNN_BIN_MAGIC, 8);
    uint64_t nsec = rd32(b + 80);
    if (nsec <= 64 && HDR + nsec * ENTRY <= size) {
        for (uint64_t i = 0; i < nsec; i++) {
            uint8_t *e = b + HDR + i * ENTRY;
            uint64_t off = rd64(e + 8), len = rd64(e + 16);
            if (off <= size && len <= size - off) wr64(e + 24, dgnn_bin_checksum(b + off, (size_t)len));
        }
        uint8_t *tmp = malloc(CSUM_AT + nsec * ENTRY);
        if (tmp) {
            memcpy(tmp, b, CSUM_AT);
            memcpy(tmp + CSUM_AT, b + HDR, nsec * ENTRY);
            wr64(b + CSUM_AT, dgnn_bin_checksum(tmp, CSUM_AT + nsec * ENTRY));
            free(tmp);
        }
    }
    write_file(g_path, b, size);
    free(b);
    load_all();
    return 0;
}

#else /* FUZZ_SEED_MAIN: write seed inputs */

static void save(const char *dir, const char *name, const dgnn_events *ev) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    dgnn_err err;
    if (dgnn_save_binary(ev, path, &err) != DGNN_OK) {
        fprintf(stderr, "seed %s: %s\n", name, err.msg);
        exit(1);
    }
}

static void npy(const char *dir, const char *name, int major, const char *dict, const void *d, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t buf[512];
    size_t dl = strlen(dict), pre = major == 1 ? 10 : 12, hlen = dl + 1;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (uint8_t)major;
    buf[7] = 0;
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); i++) buf[8 + i] = (uint8_t)(hlen >> (8 * i));
    memcpy(buf + pre, dict, dl);
    buf[pre + dl] = '\n';
    if (n) memcpy(buf + pre + hlen, d, n);
    write_file(path, buf, pre + hlen + n);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SEED_DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    /* a plain table: 4 events, 3 nodes */
    int32_t src[4] = {0, 1, 2, 0}, dst[4] = {1, 2, 0, 2}, label[4] = {0, 1, 0, 1};
    double t[4] = {0, 1.5, 1.5, 7};
    int8_t roll[4] = {0, 0, 1, 2};
    float efeat[8] = {1, 2, 3, 4, 5, 6, 7, 8}, nfeat[6] = {0.5f, -1, 2, 3, 4, 5};
    int64_t ids[3] = {10, 20, 30};
    dgnn_events ev;
    dgnn_events_init(&ev);
    ev.num_events = 4;
    ev.num_nodes = 3;
    ev.src = src;
    ev.dst = dst;
    ev.t = t;
    save(dir, "plain.dgnn", &ev);
    /* every optional section */
    ev.edge_dim = 2;
    ev.efeat = efeat;
    ev.label = label;
    ev.ext_roll = roll;
    ev.node_ids = ids;
    ev.node_dim = 2;
    ev.nfeat = nfeat;
    save(dir, "full.dgnn", &ev);
    /* snapshots: 2 periods over 3 nodes */
    float px[12] = {0}, py[6] = {1, 2, 3, 4, 5, 6};
    double tp[4] = {0, 0, 1, 1};
    dgnn_events_init(&ev);
    ev.num_events = 4;
    ev.num_nodes = 3;
    ev.src = src;
    ev.dst = dst;
    ev.t = tp;
    ev.edge_dim = 1;
    ev.efeat = efeat;
    ev.num_periods = 2;
    ev.period_x_dim = 2;
    ev.period_x = px;
    ev.period_y_dim = 1;
    ev.period_y = py;
    save(dir, "periods.dgnn", &ev);
    /* empty table */
    dgnn_events_init(&ev);
    save(dir, "empty.dgnn", &ev);
    npy(dir, "a.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", efeat, 24);
    double f8[3] = {0.25, -1, 1e10};
    npy(dir, "b.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8, 24);
    npy(dir, "c.npy", 3, "{\"shape\": (0, 5), \"fortran_order\": False, \"descr\": \"<f4\"}", NULL, 0);
    return 0;
}
#endif
