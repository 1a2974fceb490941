/* fuzz_formats.c: libFuzzer harness for the readers that take a csv with .npy files beside
 * it: dgnn_read_dyglib (ml_NAME.csv + ml_NAME.npy + ml_NAME_node.npy), dgnn_read_tgl with
 * its edge_features.npy / node_features.npy (src/data/feat_npy.c), dgnn_read_tgb, and
 * TGB's evaluation negatives (dgnn_tgb_negs_read, dgnn_read_npy_i64). Build and run with
 * bench/fuzz.sh (see fuzz/README.md).
 *
 * One input is up to four files, cut at the separator "\n@@@@\n":
 *     csv [SEP edge.npy [SEP node.npy [SEP negatives.npy]]]
 * A missing or empty part means no such file. A .npy part that does not start with
 * "\x93NUMPY" is a short description the harness turns into a well-formed .npy
 * (npy_from_description: dtype, shape, data), so that mutations get past the header and
 * size checks to the readers' own. The parts are written to a private
 * temporary folder as edges.csv, edges.npy + edges_node.npy (dyglib's names for
 * edges.csv) and edge_features.npy + node_features.npy (TGL's), and negs.npy. Then:
 *  - dgnn_read_dyglib, dgnn_read_tgl and dgnn_read_tgb read edges.csv. A failure must
 *    come with a negative status, a message and an empty table. A success must give a
 *    table whose invariants hold (those of fuzz_text.c, plus node features finite and
 *    with node_dim and nfeat agreeing, and no more than max(2E, 2^24) nodes unless node
 *    ids or features describe them, as dgnn_save_binary requires; every array is read,
 *    so a short one is an ASan report), and whose features are the .npy files' (read here with dgnn_read_npy as the
 *    reference): a .npy that does not read must make dyglib and TGL fail; TGL's node
 *    features are node_features.npy as it is (N = its rows) and each event's features
 *    are a row of edge_features.npy, each row used once; dyglib's node v has row
 *    node_ids[v] of edges_node.npy and each event's features are a row 1.. of edges.npy.
 *  - dgnn_read_npy_i64 reads negs.npy; dgnn_tgb_negs_read reads it against each table
 *    that read and against a fixed 4-event table with sparse node ids (2, 5, 9, 1000,
 *    70000), with rows = the table's events and pos_dst = its dst (and once without
 *    pos_dst). Its verdict must be the one the documented rules give over the raw
 *    integers (row count, ids of nodes, -1 only as a row's tail, no positive), a
 *    success must map every id to its dense id, and writing the list back
 *    (dgnn_tgb_negs_write) and reading it again must give the same list.
 * A broken promise aborts, so libFuzzer records it like a crash. Memory errors and leaks
 * are caught by AddressSanitizer / LeakSanitizer.
 *
 * Built with -DFUZZ_SEED_MAIN (no libFuzzer) the file is instead a small program that
 * writes hand-made seed inputs into the folder given as its argument (bench/fuzz.sh). */
#define _GNU_SOURCE /* memmem */
#include "dgnn/eval_neg.h"
#include "dgnn/npy.h"
#include "dgnn/readers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

#define SEP "\n@@@@\n"
#define SEP_LEN 6

#ifndef FUZZ_SEED_MAIN

/* the files of one input, in g_dir; fuzz_setup's g_path is edges.csv */
static const char *const k_names[] = {"edges.npy", "edges_node.npy", "edge_features.npy", "node_features.npy",
                                      "negs.npy", "negs2.npy"};
enum { F_DY_E, F_DY_N, F_TGL_E, F_TGL_N, F_NEGS, F_NEGS2, F_COUNT };
static char g_file[F_COUNT][256];

static void remove_files(void) {
    for (int i = 0; i < F_COUNT; i++)
        if (g_file[i][0]) unlink(g_file[i]);
}

static int g_verbose, g_negs_read; /* g_negs_read: lists read in this input, for FUZZ_VERBOSE */

static void setup(void) {
    if (g_dir[0]) return;
    g_verbose = getenv("FUZZ_VERBOSE") && getenv("FUZZ_VERBOSE")[0] == '1';
    fuzz_setup("formats", "edges.csv");
    for (int i = 0; i < F_COUNT; i++) snprintf(g_file[i], sizeof g_file[i], "%s/%s", g_dir, k_names[i]);
    atexit(remove_files); /* runs before fuzz_remove_temp (registered first), which removes the folder */
}

static void die(const char *who, const char *what) {
    fprintf(stderr, "fuzz_formats: %s: %s\n", who, what);
    abort();
}

static volatile double g_sink;

/* The invariants every successful read must hold (fuzz_text.c's, and node features). */
static void check_table(const char *reader, const dgnn_events *ev) {
    const int64_t E = ev->num_events, N = ev->num_nodes;
    if (E <= 0 || N <= 0) die(reader, "empty table returned as success");
    if (N > INT32_MAX) die(reader, "more than 2^31-1 nodes");
    if (!ev->src || !ev->dst || !ev->t) die(reader, "missing arrays");
    for (int64_t i = 0; i < E; i++) {
        if (ev->src[i] < 0 || ev->src[i] >= N || ev->dst[i] < 0 || ev->dst[i] >= N) die(reader, "node id out of range");
        if (!isfinite(ev->t[i])) die(reader, "non-finite timestamp");
        if (fabs(ev->t[i]) > 8.98846567431158e307) die(reader, "timestamp above DBL_MAX / 2");
        if (i && ev->t[i] < ev->t[i - 1]) die(reader, "timestamps not sorted");
    }
    if (ev->edge_dim < 0 || (ev->edge_dim > 0) != (ev->efeat != NULL)) die(reader, "edge_dim and efeat disagree");
    for (int64_t i = 0; i < E * ev->edge_dim; i++)
        if (!isfinite(ev->efeat[i])) die(reader, "non-finite edge feature");
    if (ev->node_dim < 0 || (ev->node_dim > 0) != (ev->nfeat != NULL)) die(reader, "node_dim and nfeat disagree");
    double s = 0;
    for (int64_t i = 0; i < N * ev->node_dim; i++) {
        if (!isfinite(ev->nfeat[i])) die(reader, "non-finite node feature");
        s += ev->nfeat[i];
    }
    g_sink = s;
    if (ev->node_ids)
        for (int64_t v = 0; v < N; v++)
            if (ev->node_ids[v] < 0 || (v && ev->node_ids[v] <= ev->node_ids[v - 1]))
                die(reader, "node_ids not increasing");
    if (ev->ext_roll)
        for (int64_t i = 0; i < E; i++)
            if (ev->ext_roll[i] < 0 || ev->ext_roll[i] > 2) die(reader, "ext_roll outside 0..2");
    if (ev->label)
        for (int64_t i = 0; i < E; i++)
            if (ev->label[i] != 0 && ev->label[i] != 1) die(reader, "label other than 0 or 1");
    if (ev->num_periods != 0 || ev->period_x || ev->period_y) die(reader, "period tables in an event table");
    /* binfmt.h's rule, which dgnn_save_binary enforces: without node ids or features a
     * table's nodes are those its events touch, or a few more (dgnn gen) */
    if (!ev->node_ids && ev->node_dim == 0 && N > 2 * E && N > DGNN_MAX_UNSEEN_NODES)
        die(reader, "more nodes than max(2 x events, 2^24) with no node ids or features (a claim without data)");
    if (ev->bipartite != dgnn_events_detect_bipartite(ev)) die(reader, "bipartite flag differs from the events");
}

static void check_failure(const char *reader, int rc, const dgnn_events *ev, const dgnn_err *err) {
    if (rc >= 0 || err->code != rc || err->msg[0] == '\0') die(reader, "failure without a status and message");
    if (ev->num_events != 0 || ev->src != NULL || ev->efeat != NULL || ev->nfeat != NULL || ev->node_ids != NULL)
        die(reader, "table not left empty after a failure");
}

/* A .npy part as dgnn_read_npy reads it: the reference the readers must agree with. */
typedef struct {
    int present, ok;
    float *v;
    int64_t rows, cols;
} ref_npy;

static void ref_read(ref_npy *r, const char *path, int present) {
    memset(r, 0, sizeof *r);
    r->present = present;
    if (!present) return;
    dgnn_err err;
    memset(&err, 0, sizeof err);
    r->ok = dgnn_read_npy(path, &r->v, &r->rows, &r->cols, &err) == DGNN_OK;
    if (!r->ok && (r->v || !err.msg[0])) die("dgnn_read_npy", "failure without a message, or with an array");
    /* what the feature readers refuse on top of the file's own checks */
    if (r->ok && r->cols > DGNN_MAX_DIM) r->ok = 0;
}

/* rows of d floats compared as bytes (the readers copy them) */
static int64_t g_d;
static int cmp_row(const void *a, const void *b) { return memcmp(*(const float *const *)a, *(const float *const *)b, (size_t)g_d * sizeof(float)); }

/* Each of the n rows of got (n, d) is one of the candidate rows of ref (nref, d); with
 * once, each candidate is used exactly once (n == nref). */
static void rows_from(const char *reader, const float *got, int64_t n, const float *ref, int64_t nref, int64_t d, int once) {
    if (d == 0 || n == 0) return;
    const float **a = malloc((size_t)n * sizeof *a), **b = malloc((size_t)(nref ? nref : 1) * sizeof *b);
    if (!a || !b) abort();
    for (int64_t i = 0; i < n; i++) a[i] = got + i * d;
    for (int64_t i = 0; i < nref; i++) b[i] = ref + i * d;
    g_d = d;
    qsort(b, (size_t)nref, sizeof *b, cmp_row);
    if (once) {
        qsort(a, (size_t)n, sizeof *a, cmp_row);
        for (int64_t i = 0; i < n; i++)
            if (memcmp(a[i], b[i], (size_t)d * sizeof(float)) != 0) die(reader, "edge features are not the .npy rows, each once");
    } else {
        for (int64_t i = 0; i < n; i++)
            if (!bsearch(&a[i], b, (size_t)nref, sizeof *b, cmp_row)) die(reader, "an event's features are no row of the .npy");
    }
    free(a);
    free(b);
}

/* dgnn_read_dyglib against its two .npy files */
static void check_dyglib(const dgnn_events *ev, const ref_npy *re, const ref_npy *rn) {
    const char *R = "dgnn_read_dyglib";
    check_table(R, ev);
    if (!ev->label) die(R, "no labels");
    if ((re->present && !re->ok) || (rn->present && !rn->ok)) die(R, "read although a .npy beside it does not read");
    if (re->present) {
        if (re->rows != ev->num_events + 1) die(R, "edge .npy rows are not events + 1");
        if (ev->edge_dim != re->cols) die(R, "edge_dim is not the .npy's width");
        rows_from(R, ev->efeat, ev->num_events, re->v + re->cols, re->rows - 1, re->cols, 0);
    } else if (ev->edge_dim) die(R, "edge features without an edge .npy");
    if (rn->present && rn->cols > 0) {
        if (ev->node_dim != rn->cols) die(R, "node_dim is not the node .npy's width");
        for (int64_t v = 0; v < ev->num_nodes; v++) {
            int64_t id = ev->node_ids ? ev->node_ids[v] : v;
            if (id >= rn->rows) die(R, "a node id past the node .npy's rows");
            if (memcmp(ev->nfeat + v * rn->cols, rn->v + id * rn->cols, (size_t)rn->cols * sizeof(float)) != 0)
                die(R, "node v's features are not row node_ids[v] of the node .npy");
        }
    } else if (ev->node_dim) die(R, "node features without a node .npy");
}

/* dgnn_read_tgl against edge_features.npy / node_features.npy */
static void check_tgl(const dgnn_events *ev, const ref_npy *re, const ref_npy *rn) {
    const char *R = "dgnn_read_tgl";
    check_table(R, ev);
    if ((re->present && !re->ok) || (rn->present && !rn->ok)) die(R, "read although a .npy beside it does not read");
    if (re->present) {
        if (re->rows != ev->num_events) die(R, "edge .npy rows are not the events");
        if (ev->edge_dim != re->cols) die(R, "edge_dim is not the .npy's width");
        rows_from(R, ev->efeat, ev->num_events, re->v, re->rows, re->cols, 1);
    } else if (ev->edge_dim) die(R, "edge features without an edge .npy");
    if (rn->present) {
        if (ev->num_nodes != rn->rows || ev->node_ids) die(R, "N is not the node .npy's rows, ids as they are");
        if (rn->cols > 0 && (ev->node_dim != rn->cols ||
                             memcmp(ev->nfeat, rn->v, (size_t)(rn->rows * rn->cols) * sizeof(float)) != 0))
            die(R, "node features are not node_features.npy");
    } else if (ev->node_dim) die(R, "node features without a node .npy");
}

/* ---- the negatives ---- */

/* The verdict dgnn_tgb_negs_read must reach over the raw integers (eval_neg.h). */
static int negs_expected_ok(const int64_t *a, int64_t r, int64_t k, const dgnn_events *ev, int64_t rows,
                            const int32_t *pos) {
    if (r != rows) return 0;
    for (int64_t i = 0; i < r; i++) {
        int padded = 0;
        for (int64_t j = 0; j < k; j++) {
            int64_t v = a[i * k + j];
            if (v == -1) {
                padded = 1;
                continue;
            }
            if (padded) return 0;
            int32_t d = dgnn_events_dense_id(ev, v);
            if (d < 0 || (pos && d == pos[i])) return 0;
        }
    }
    return 1;
}

static void negs_check(const char *table, const dgnn_events *ev, int raw_ok, const int64_t *a, int64_t r, int64_t k,
                       int with_pos) {
    const char *R = "dgnn_tgb_negs_read";
    const int64_t rows = ev->num_events;
    const int32_t *pos = with_pos ? ev->dst : NULL;
    dgnn_tgb_negs n;
    dgnn_err err;
    memset(&err, 0, sizeof err);
    int rc = dgnn_tgb_negs_read(&n, g_file[F_NEGS], ev, rows, pos, &err);
    int want = raw_ok && negs_expected_ok(a, r, k, ev, rows, pos);
    if (rc != DGNN_OK) {
        if (rc > 0 || err.code != rc || !err.msg[0]) die(R, "failure without a status and message");
        if (n.cand || n.rows || n.k) die(R, "a list handed back with a failure");
        if (want) {
            fprintf(stderr, "fuzz_formats: against the %s table: %s\n", table, err.msg);
            die(R, "a list the documented rules accept was refused");
        }
        return;
    }
    if (!want) {
        fprintf(stderr, "fuzz_formats: against the %s table\n", table);
        die(R, "a list the documented rules refuse was read");
    }
    if (n.rows != rows || n.k != k || (!n.cand && rows * k > 0)) die(R, "shape is not the file's");
    for (int64_t i = 0; i < rows * k; i++) {
        int32_t d = n.cand[i];
        if (a[i] == -1 ? d != -1 : (d < 0 || d >= ev->num_nodes || (ev->node_ids ? ev->node_ids[d] : d) != a[i]))
            die(R, "a candidate is not the dense id of the file's id");
    }
    /* written back and read again: the same list */
    int wrc = dgnn_tgb_negs_write(&n, g_file[F_NEGS2], ev, &err);
    if (wrc != DGNN_OK) {
        fprintf(stderr, "fuzz_formats: %s\n", err.msg);
        die("dgnn_tgb_negs_write", "a list just read does not write");
    }
    dgnn_tgb_negs m;
    if (dgnn_tgb_negs_read(&m, g_file[F_NEGS2], ev, rows, pos, &err) != DGNN_OK) {
        fprintf(stderr, "fuzz_formats: %s\n", err.msg);
        die(R, "a list written by dgnn_tgb_negs_write does not read back");
    }
    if (m.rows != n.rows || m.k != n.k || (rows * k > 0 && memcmp(m.cand, n.cand, (size_t)(rows * k) * sizeof(int32_t))))
        die(R, "a list written and read back differs");
    dgnn_tgb_negs_free(&m);
    dgnn_tgb_negs_free(&n);
    unlink(g_file[F_NEGS2]);
    g_negs_read++;
}

/* 4 events over original ids 2, 5, 9, 1000, 70000: what a negatives file is read against
 * when no reader made a table of the input's csv */
static void fixed_table(dgnn_events *ev) {
    static const int64_t s[4] = {2, 9, 5, 2}, d[4] = {5, 1000, 70000, 1000};
    static const double t[4] = {1, 2, 3, 3};
    dgnn_builder b;
    dgnn_err err;
    dgnn_events_init(ev);
    dgnn_builder_init(&b, 0, 0, 0);
    for (int i = 0; i < 4; i++)
        if (dgnn_builder_push(&b, s[i], d[i], t[i], NULL, 0, 0, &err)) abort();
    if (dgnn_builder_finish(&b, ev, 0, &err)) abort();
}

/* A .npy part that does not start with the magic is a description of one, written here
 * with a right header, so that mutations reach the readers' row, id and value checks
 * (raw .npy parts, which most mutations break at the header or the size check, keep
 * npy.c's parser covered). Description: kind byte, shape byte, data bytes. kind % 6:
 * 0 <f4, 1 <f8, 2 <i4, 3 <i8 (data as they are), 4 <i8 and 5 <f4 with each data byte a
 * signed value (small ids, -1 padding, small features). shape % 10: 9 is 1-d (n,),
 * c = 0..8 is (n, c); n = whole rows in the data ((n, 0): n = the data bytes). */
static uint8_t *npy_from_description(const uint8_t *p, size_t n, size_t *out_n) {
    static const char *descr[6] = {"<f4", "<f8", "<i4", "<i8", "<i8", "<f4"};
    static const int in_sz[6] = {4, 8, 4, 8, 1, 1}, out_sz[6] = {4, 8, 4, 8, 8, 4};
    int kind = n > 0 ? p[0] % 6 : 0, shape = n > 1 ? p[1] % 10 : 9;
    const uint8_t *d = p + (n > 2 ? 2 : n);
    size_t dn = n > 2 ? n - 2 : 0;
    int64_t cols = shape == 9 ? 1 : shape;
    int64_t rows = cols ? (int64_t)(dn / ((size_t)in_sz[kind] * (size_t)cols)) : (int64_t)dn;
    char dict[128];
    int dl = shape == 9 ? snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }",
                                   descr[kind], (long long)rows)
                        : snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }",
                                   descr[kind], (long long)rows, (long long)cols);
    size_t count = (size_t)(rows * cols), hlen = (size_t)dl + 1;
    uint8_t *o = malloc(10 + hlen + count * (size_t)out_sz[kind] + 1);
    if (!o) abort();
    memcpy(o, "\x93NUMPY\x01\x00", 8);
    o[8] = (uint8_t)(hlen & 0xff);
    o[9] = (uint8_t)(hlen >> 8);
    memcpy(o + 10, dict, (size_t)dl);
    o[10 + dl] = '\n';
    uint8_t *v = o + 10 + hlen;
    if (kind < 4) memcpy(v, d, count * (size_t)out_sz[kind]);
    else
        for (size_t i = 0; i < count; i++) {
            int8_t b = (int8_t)d[i];
            if (kind == 4) {
                int64_t x = b;
                memcpy(v + 8 * i, &x, 8);
            } else {
                float x = (float)b * 0.25f;
                memcpy(v + 4 * i, &x, 4);
            }
        }
    *out_n = 10 + hlen + count * (size_t)out_sz[kind];
    return o;
}

/* part i of the input: [*p, *p + *n), or absent */
static int part(const uint8_t *data, size_t size, int i, const uint8_t **p, size_t *n) {
    const uint8_t *a = data, *end = data + size;
    for (int k = 0;; k++) {
        const uint8_t *sep = memmem(a, (size_t)(end - a), SEP, SEP_LEN);
        if (k == i) {
            *p = a;
            *n = (size_t)((sep ? sep : end) - a);
            return 1;
        }
        if (!sep) return 0;
        a = sep + SEP_LEN;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    remove_files();
    const uint8_t *p;
    size_t n;
    part(data, size, 0, &p, &n);
    write_file(g_path, p, n);
    int have[4] = {1, 0, 0, 0};
    for (int i = 1; i < 4; i++) {
        have[i] = part(data, size, i, &p, &n) && n > 0;
        if (!have[i]) continue;
        uint8_t *sealed = NULL;
        if (n < 6 || memcmp(p, "\x93NUMPY", 6) != 0) { /* a description: the harness writes the .npy */
            sealed = npy_from_description(p, n, &n);
            p = sealed;
        }
        if (i == 1) write_file(g_file[F_DY_E], p, n), write_file(g_file[F_TGL_E], p, n);
        if (i == 2) write_file(g_file[F_DY_N], p, n), write_file(g_file[F_TGL_N], p, n);
        if (i == 3) write_file(g_file[F_NEGS], p, n);
        free(sealed);
    }
    ref_npy re, rn;
    ref_read(&re, g_file[F_TGL_E], have[1]);
    ref_read(&rn, g_file[F_TGL_N], have[2]);

    dgnn_events ev[4];
    int ok[4] = {0};
    dgnn_err err;
    memset(&err, 0, sizeof err);
    int rc = dgnn_read_dyglib(&ev[0], g_path, &err);
    if (rc == DGNN_OK) check_dyglib(&ev[0], &re, &rn), ok[0] = 1;
    else check_failure("dgnn_read_dyglib", rc, &ev[0], &err);
    memset(&err, 0, sizeof err);
    rc = dgnn_read_tgl(&ev[1], g_path, NULL, NULL, &err);
    if (rc == DGNN_OK) check_tgl(&ev[1], &re, &rn), ok[1] = 1;
    else check_failure("dgnn_read_tgl", rc, &ev[1], &err);
    memset(&err, 0, sizeof err);
    rc = dgnn_read_tgb(&ev[2], g_path, &err);
    if (rc == DGNN_OK) check_table("dgnn_read_tgb", &ev[2]), ok[2] = 1;
    else check_failure("dgnn_read_tgb", rc, &ev[2], &err);
    fixed_table(&ev[3]);
    ok[3] = 1;
    free(re.v);
    free(rn.v);

    g_negs_read = 0;
    if (have[3]) {
        int64_t *a = NULL, r = 0, k = 0;
        memset(&err, 0, sizeof err);
        int raw = dgnn_read_npy_i64(g_file[F_NEGS], &a, &r, &k, &err) == DGNN_OK;
        if (!raw && (a || !err.msg[0] || err.code >= 0)) die("dgnn_read_npy_i64", "failure without a message, or with an array");
        if (raw && (r < 0 || k < 0 || (r * k > 0 && !a))) die("dgnn_read_npy_i64", "bad shape");
        uint64_t s = 0;
        for (int64_t i = 0; raw && i < r * k; i++) s += (uint64_t)a[i];
        g_sink = (double)s;
        static const char *tables[4] = {"dyglib", "tgl", "tgb", "fixed"};
        for (int t = 0; t < 4; t++)
            if (ok[t]) negs_check(tables[t], &ev[t], raw, a, r, k, 1);
        negs_check("fixed (no pos_dst)", &ev[3], raw, a, r, k, 0);
        free(a);
    }
    if (g_verbose) /* FUZZ_VERBOSE=1: which readers took the input (to check the seeds) */
        fprintf(stderr, "fuzz_formats: dyglib %d, tgl %d, tgb %d; negatives file %d, read against %d table(s)\n", ok[0], ok[1],
                ok[2], have[3], g_negs_read);
    for (int t = 0; t < 4; t++)
        if (ok[t]) dgnn_events_free(&ev[t]);
    return 0;
}

#else /* FUZZ_SEED_MAIN: write seed inputs */

typedef struct {
    uint8_t b[4096];
    size_t n;
} buf;

static void put(buf *o, const void *p, size_t n) {
    if (o->n + n > sizeof o->b) abort();
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void puts_(buf *o, const char *s) { put(o, s, strlen(s)); }

/* a .npy of the given version and dict, data after it (no alignment: the reader needs none) */
static void npy(buf *o, int major, const char *dict, const void *d, size_t n) {
    uint8_t pre[12];
    size_t dl = strlen(dict), hlen = dl + 1;
    memcpy(pre, "\x93NUMPY", 6);
    pre[6] = (uint8_t)major;
    pre[7] = 0;
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); i++) pre[8 + i] = (uint8_t)(hlen >> (8 * i));
    put(o, pre, major == 1 ? 10 : 12);
    put(o, dict, dl);
    put(o, "\n", 1);
    if (n) put(o, d, n);
}

static void save(const char *dir, const char *name, const buf *o) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_file(path, o->b, o->n);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SEED_DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    buf o;
    /* dyglib (TGN's preprocess_data.py, as tests/test_readers.c): 1-based ids, items after
     * users, padding row 0 in both .npy; negatives of original ids 1..3 (positive dst 3) */
    o.n = 0;
    puts_(&o, ",u,i,ts,label,idx\n0,1,3,5.0,0.0,1\n1,2,3,2.0,1.0,2\n2,1,3,9.0,0.0,3\n" SEP);
    const double ef[8] = {0, 0, 10, 11, 20, 21, 30, 31}, nf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    npy(&o, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), }", ef, sizeof ef);
    puts_(&o, SEP);
    npy(&o, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), }", nf, sizeof nf);
    puts_(&o, SEP);
    const int64_t dn[6] = {1, 2, 2, -1, -1, -1};
    npy(&o, 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 2), }", dn, sizeof dn);
    save(dir, "dyglib.bin", &o);
    /* dyglib without pandas' index, a 1-d float32 edge file, no node file */
    o.n = 0;
    puts_(&o, "u,i,ts,label,idx\n1,2,1.0,0.0,1\n2,1,2.0,0.0,2\n" SEP);
    const float e1[3] = {0, 0.5f, -2};
    npy(&o, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", e1, sizeof e1);
    save(dir, "dyglib_noidx.bin", &o);
    /* TGL: edges.csv with ext_roll, edge_features (4, 3) f4, node_features (5, 2) f8,
     * negatives of dense ids (int32), positive dst 4, 4, 3, 3 in time order */
    o.n = 0;
    puts_(&o, ",src,dst,time,ext_roll\n0,1,3,20.0,0\n1,0,4,10.0,0\n2,2,3,20.0,1\n3,1,4,5.5,2\n" SEP);
    const float te[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    npy(&o, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 3), }", te, sizeof te);
    puts_(&o, SEP);
    const double tn[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    npy(&o, 3, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (5, 2)}", tn, sizeof tn);
    puts_(&o, SEP);
    const int32_t tg[12] = {0, 1, 2, 3, -1, -1, 0, 4, -1, -1, -1, -1};
    npy(&o, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 3), }", tg, sizeof tg);
    save(dir, "tgl.bin", &o);
    /* TGB's weight layout (tgbl-review): names by first appearance b 0, a 1, c 2, 07 3, 7 4;
     * no feature files; negatives (3, 2) of TGB ids, positive dst 2, 1, 4 in time order */
    o.n = 0;
    puts_(&o, "ts,source,target,weight\n30,b,a,4.0\n20,a,c,0\n40,07,7,8\n" SEP SEP SEP);
    const int64_t wn[6] = {0, 1, 2, -1, 0, 1};
    npy(&o, 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 2), }", wn, sizeof wn);
    save(dir, "tgb_weight.bin", &o);
    /* TGB's comment layout (6 header names over 5-field rows) */
    o.n = 0;
    puts_(&o, "ts,src,dst,subreddit,num_words,score\n5,u1,u2,2500,-3\n6,u2,u3,1,2\n5,u3,u1,0,0\n");
    save(dir, "tgb_comment.bin", &o);
    /* TGB's wiki layout (JODIE's header; dst shifted by max(src) + 1: ids 0, 2, 8, 9) */
    o.n = 0;
    puts_(&o, "user_id,item_id,timestamp,state_label,comma_separated_list_of_features\n0,5,1.75,0,0.5\n"
              "2,6,3.0,1,0.25\n" SEP SEP SEP);
    const int64_t kn[4] = {0, 2, 8, -1};
    npy(&o, 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", kn, sizeof kn);
    save(dir, "tgb_wiki.bin", &o);
    /* TGB's coin header, hex-looking names */
    o.n = 0;
    puts_(&o, "time,src,dst,weight\n1,0x1,0x2,1.0\n2,0x2,0x1,2.0\n");
    save(dir, "tgb_coin.bin", &o);
    /* negatives for the fixed table (ids 2, 5, 9, 1000, 70000; positive dst 5, 1000, 70000, 1000) */
    o.n = 0;
    puts_(&o, "not a table\n" SEP SEP SEP);
    const int64_t fx[12] = {9, 70000, 2, 2, 5, -1, 1000, 9, 5, -1, -1, -1};
    npy(&o, 2, "{'descr': '<i8', 'fortran_order': False, 'shape': (4, 3), }", fx, sizeof fx);
    save(dir, "negs_fixed.bin", &o);
    /* a 1-d int32 list for the fixed table */
    o.n = 0;
    puts_(&o, SEP SEP SEP);
    const int32_t f1[4] = {9, 2, -1, 5};
    npy(&o, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", f1, sizeof f1);
    save(dir, "negs_1d.bin", &o);
    /* TGL with a node file of shape (2000000000, 0): 2e9 nodes with nothing behind them
     * (refused since feat_npy.c caps a width-0 node file at DGNN_MAX_UNSEEN_NODES rows) */
    o.n = 0;
    puts_(&o, ",src,dst,time,ext_roll\n0,0,1,1.0,0\n1,1,0,2.0,0\n" SEP SEP);
    npy(&o, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2000000000, 0), }", NULL, 0);
    save(dir, "tgl_nodes_n0.bin", &o);
    /* the same files as descriptions (npy_from_description): kind, shape, data bytes */
    o.n = 0; /* dyglib: edge and node features (4, 2) of small values, negatives (3, 2) of ids */
    puts_(&o, ",u,i,ts,label,idx\n0,1,3,5.0,0.0,1\n1,2,3,2.0,1.0,2\n2,1,3,9.0,0.0,3\n" SEP);
    put(&o, "\x05\x02\x00\x00\x01\x02\x03\x04\x05\x06", 10);
    puts_(&o, SEP);
    put(&o, "\x05\x02\x00\x00\x0a\x0b\x0c\x0d\x0e\x0f", 10);
    puts_(&o, SEP);
    put(&o, "\x04\x02\x01\x02\x02\xff\xff\xff", 8);
    save(dir, "dyglib_desc.bin", &o);
    o.n = 0; /* TGL: edge features (4, 1), node features (5,) 1-d, negatives (4, 2) */
    puts_(&o, ",src,dst,time,ext_roll\n0,1,3,20.0,0\n1,0,4,10.0,0\n2,2,3,20.0,1\n3,1,4,5.5,2\n" SEP);
    put(&o, "\x05\x01\x01\x02\x03\x04", 6);
    puts_(&o, SEP);
    put(&o, "\x05\x09\x00\x01\x02\x03\x04", 7);
    puts_(&o, SEP);
    put(&o, "\x04\x02\x00\x01\x02\xff\x00\x01\xff\xff", 10);
    save(dir, "tgl_desc.bin", &o);
    o.n = 0; /* TGB weight layout with a negatives description; the fixed table's ids 2, 5, 9 */
    puts_(&o, "ts,source,target,weight\n30,b,a,4.0\n20,a,c,0\n40,07,7,8\n" SEP SEP SEP);
    put(&o, "\x04\x03\x00\x01\xff\x02\xff\xff\x00\x01\x03", 11);
    save(dir, "tgb_desc.bin", &o);
    o.n = 0;
    puts_(&o, "x\n" SEP SEP SEP);
    put(&o, "\x04\x02\x09\x02\x02\xff\x09\x05\xff\xff", 10);
    save(dir, "negs_desc.bin", &o);
    return 0;
}
#endif
