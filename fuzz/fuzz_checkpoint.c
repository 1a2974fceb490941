/* fuzz_checkpoint.c: libFuzzer harness for the checkpoint loader: dgnn_ckpt_open (header,
 * section table, checksums) and dgnn_ckpt_read_run (the run record that --resume checks),
 * then dgnn_ckpt_run_check against two runs. Build and run with bench/fuzz.sh (see
 * fuzz/README.md).
 *
 * Each input is written to a file in a private temporary folder and loaded:
 *  1. as it is;
 *  2. "re-sealed": magic and version set, the file-size field set to the input's size,
 *     every section checksum whose range lies in the file recomputed, then the header
 *     checksum, so mutations reach the table and run-record checks behind the checksums,
 *     which random bytes would otherwise never pass.
 * A bug is a sanitizer report, a failure without a negative status and a message (or
 * with a checkpoint handed back), or a success that breaks what the loader promises: a
 * section outside the mapping, not 64-byte aligned, with an empty, unterminated or
 * repeated name; a run record with a bad key or value, a key twice, more than
 * DGNN_CKPT_RUN_MAX settings, or "processes" missing or outside 1..DGNN_CKPT_MAX_PROCESSES;
 * a refused comparison without its message.
 *
 * Built with -DFUZZ_SEED_MAIN (no libFuzzer) the file is instead a small program that
 * writes seed inputs into the folder given as its first argument: each real checkpoint
 * named after it (bench/fuzz.sh trains tiny models with the built dgnn to make them) as
 * it is and with the run record of other runs (2-rank strict, depbloom with options,
 * DyGNeX), and small checkpoints of its own (a run record alone, odd section sizes, no
 * sections, a version-1 header). */
#include "dgnn/checkpoint.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

#ifndef FUZZ_SEED_MAIN

#include "dgnn/binfmt.h" /* dgnn_bin_checksum */

static void die(const char *what) {
    fprintf(stderr, "fuzz_checkpoint: the loader broke its promise: %s\n", what);
    abort();
}

static volatile uint64_t g_sink;

static int key_char(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'; }

/* What a run record that reads promises (checkpoint.h). */
static void check_run(const dgnn_ckpt_run *r) {
    if (r->n < 0 || r->n > DGNN_CKPT_RUN_MAX) die("run record count out of range");
    for (int i = 0; i < r->n; i++) {
        size_t kl = strnlen(r->key[i], DGNN_CKPT_RUN_KEY), vl = strnlen(r->val[i], DGNN_CKPT_RUN_VAL);
        if (kl == 0 || kl == DGNN_CKPT_RUN_KEY) die("run record key empty or unterminated");
        if (vl == DGNN_CKPT_RUN_VAL) die("run record value unterminated");
        for (size_t k = 0; k < kl; k++)
            if (!key_char(r->key[i][k])) die("run record key with a bad character");
        for (size_t k = 0; k < vl; k++)
            if (r->val[i][k] < 0x20 || r->val[i][k] > 0x7e) die("run record value not printable");
        for (int j = 0; j < i; j++)
            if (strcmp(r->key[i], r->key[j]) == 0) die("run record key twice");
    }
    const char *p = dgnn_ckpt_run_get(r, "processes");
    if (!p) die("run record without processes");
    char *end;
    long long n = strtoll(p, &end, 10);
    if (*end || n < 1 || n > DGNN_CKPT_MAX_PROCESSES) die("processes out of range");
}

/* Two runs to compare a record with: one process, and 2 ranks of --dist strict. */
static void compare(const dgnn_ckpt_run *saved) {
    static const dgnn_ckpt_run_rule rules[] = {{"prefetch", "harmless"}, {"schedule", "harmless"}, {NULL, NULL}};
    for (int k = 0; k < 2; k++) {
        dgnn_ckpt_run now;
        dgnn_ckpt_run_init(&now);
        dgnn_ckpt_run_set(&now, "processes", "%d", k ? 2 : 1);
        dgnn_ckpt_run_set(&now, "dist", "%s", k ? "strict" : "none");
        dgnn_ckpt_run_set(&now, "flags", "%s", k ? "--dist strict" : "");
        char notes[256], desc[256];
        dgnn_err err;
        memset(&err, 0, sizeof err);
        int rc = dgnn_ckpt_run_check(saved, &now, rules, "ckpt/", "advice", notes, sizeof notes, &err);
        if (rc != DGNN_OK && (rc != DGNN_EINVAL || !strstr(err.msg, "was written by"))) die("refusal without its message");
        if (strnlen(notes, sizeof notes) == sizeof notes) die("notes unterminated");
        dgnn_ckpt_run_describe(desc, sizeof desc, saved);
        if (strnlen(desc, sizeof desc) == sizeof desc) die("description unterminated");
    }
}

static void load(size_t size) {
    dgnn_ckpt *c = (dgnn_ckpt *)&g_sink; /* must be reset */
    dgnn_err err;
    memset(&err, 0, sizeof err);
    int rc = dgnn_ckpt_open(&c, g_path, &err);
    if (rc != DGNN_OK) {
        if (rc >= 0 || c || !err.msg[0]) die("failure without a status and message, or with a checkpoint");
        return;
    }
    const int n = dgnn_ckpt_count(c);
    if (n < 0 || (size_t)n * 80 > size) die("more sections than the file holds");
    uint64_t s = 0;
    for (int i = 0; i < n; i++) {
        const char *name = dgnn_ckpt_name(c, i);
        size_t nl = strnlen(name, DGNN_CKPT_NAME_MAX);
        if (nl == 0 || nl == DGNN_CKPT_NAME_MAX) die("section name empty or unterminated");
        for (int j = 0; j < i; j++)
            if (strcmp(dgnn_ckpt_name(c, j), name) == 0) die("section name twice");
        const void *d;
        size_t len;
        if (dgnn_ckpt_get(c, name, &d, &len, &err) != DGNN_OK) die("a listed section cannot be got");
        if (len > size || ((uintptr_t)d & 63) != 0) die("section larger than the file or not aligned");
        const unsigned char *b = d;
        for (size_t k = 0; k < len; k++) s += b[k]; /* outside the mapping: a fault */
    }
    g_sink = s;
    dgnn_ckpt_run run;
    memset(&err, 0, sizeof err);
    rc = dgnn_ckpt_read_run(c, &run, &err);
    if (rc == DGNN_OK) {
        check_run(&run);
        compare(&run);
    } else if (rc >= 0 || !err.msg[0]) {
        die("run record refused without a status and message");
    }
    dgnn_ckpt_close(c);
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t x) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(x >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t x) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(x >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_setup("ckpt", "input.dgnnckpt");
    write_file(g_path, data, size);
    load(size);

    /* re-sealed copy: layout from checkpoint.h (64-byte header, 80-byte table entries) */
    enum { HDR = 64, CSUM_AT = 56, ENTRY = 80 };
    if (size < HDR) return 0;
    uint8_t *b = malloc(size);
    if (!b) return 0;
    memcpy(b, data, size);
    memcpy(b, DGNN_CKPT_MAGIC, 8);
    wr32(b + 8, DGNN_CKPT_VERSION);
    wr64(b + 24, size);
    uint64_t nsec = rd32(b + 12), table = rd64(b + 16);
    if (nsec <= 4096 && table >= HDR && table <= size && nsec * ENTRY <= size - table) {
        for (uint64_t i = 0; i < nsec; i++) {
            uint8_t *e = b + table + i * ENTRY;
            uint64_t off = rd64(e + 56), len = rd64(e + 64);
            if (off <= size && len <= size - off) wr64(e + 72, dgnn_bin_checksum(b + off, (size_t)len));
        }
        uint8_t *tmp = malloc(CSUM_AT + nsec * ENTRY);
        if (tmp) {
            memcpy(tmp, b, CSUM_AT);
            memcpy(tmp + CSUM_AT, b + table, nsec * ENTRY);
            wr64(b + CSUM_AT, dgnn_bin_checksum(tmp, CSUM_AT + nsec * ENTRY));
            free(tmp);
        }
    }
    write_file(g_path, b, size);
    free(b);
    load(size);
    return 0;
}

#else /* FUZZ_SEED_MAIN: write seed inputs */

static char g_out[512];

static const char *out_path(const char *dir, const char *name) {
    snprintf(g_out, sizeof g_out, "%s/%s", dir, name);
    return g_out;
}

static void fail(const char *what, const dgnn_err *err) {
    fprintf(stderr, "seed %s: %s\n", what, err->msg);
    exit(1);
}

/* src's sections into dst, its run record replaced by text (NULL: kept). */
static void copy_with_run(const char *src, const char *dst, const char *text) {
    dgnn_ckpt *c;
    dgnn_err err;
    if (dgnn_ckpt_open(&c, src, &err)) fail(src, &err);
    dgnn_ckpt_writer *w;
    if (dgnn_ckpt_writer_open(&w, dst, &err)) fail(dst, &err);
    for (int i = 0; i < dgnn_ckpt_count(c); i++) {
        const char *name = dgnn_ckpt_name(c, i);
        const void *d;
        size_t n;
        if (dgnn_ckpt_get(c, name, &d, &n, &err)) fail(src, &err);
        if (text && strcmp(name, "run") == 0) d = text, n = strlen(text);
        if (dgnn_ckpt_writer_add(w, name, d, n, &err)) fail(dst, &err);
    }
    if (dgnn_ckpt_writer_commit(w, NULL, &err)) fail(dst, &err);
    dgnn_ckpt_close(c);
}

/* A checkpoint of the given sections (names and texts, NULL-terminated). */
static void small(const char *path, const char *const *sec) {
    dgnn_ckpt_writer *w;
    dgnn_err err;
    if (dgnn_ckpt_writer_open(&w, path, &err)) fail(path, &err);
    for (int i = 0; sec[i]; i += 2)
        if (dgnn_ckpt_writer_add(w, sec[i], sec[i + 1], strlen(sec[i + 1]), &err)) fail(path, &err);
    if (dgnn_ckpt_writer_commit(w, NULL, &err)) fail(path, &err);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SEED_DIR [REAL_CHECKPOINT...]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    static const char *const runs[] = {
        "processes=2\ndist=strict\nflags=--dist strict\n",
        "processes=4\ndist=depbloom\npartition=1\nwindow_events=5000\nrefine=4\ncritical_path=1\ncold_fetch=1\n"
        "prefetch=1\nflags=--dist depbloom --partition --window-events 5000 --refine 4 --critical-path\n",
        "processes=1\ndist=dygnex\nranks=2\nrounds=7\nscheduler=ilp\nschedule=00ff00ff00ff00ff\n"
        "flags=--dist dygnex --scheduler ilp --sched-ranks 2\n",
    };
    for (int a = 2; a < argc; a++) {
        char name[64];
        snprintf(name, sizeof name, "real%d.dgnnckpt", a - 2);
        copy_with_run(argv[a], out_path(dir, name), NULL);
        for (int k = 0; k < 3; k++) {
            snprintf(name, sizeof name, "real%d_run%d.dgnnckpt", a - 2, k);
            copy_with_run(argv[a], out_path(dir, name), runs[k]);
        }
    }
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "run%d.dgnnckpt", k);
        const char *const sec[] = {"run", runs[k], NULL};
        small(out_path(dir, name), sec);
    }
    const char *const odd[] = {"run", "processes=1\ndist=none\nflags=\n", "meta", "x", "params", "0123456789abcdef0",
                               "empty", "", NULL};
    small(out_path(dir, "odd.dgnnckpt"), odd);
    const char *const none[] = {NULL};
    small(out_path(dir, "none.dgnnckpt"), none);
    /* a version-1 header (refused before any checksum is looked at) */
    const char *const v1[] = {"meta", "12345678", NULL};
    small(out_path(dir, "v1.dgnnckpt"), v1);
    FILE *f = fopen(g_out, "r+b");
    if (f) {
        fseek(f, 8, SEEK_SET);
        fputc(1, f);
        fclose(f);
    }
    return 0;
}
#endif
