/* fuzz_snapshot.c: libFuzzer harness for the snapshot readers: the PyTorch Geometric
 * Temporal json reader (read_pgt.c) and the snapshot cutting of snapshot.c over the table
 * a reader produced. Build and run with bench/fuzz.sh (see fuzz/README.md).
 *
 * Each input is written to a file in a private temporary folder and read with
 * dgnn_read_pgt and dgnn_read_edgelist (a table without periods, for the time-window
 * modes). A failure must come with a status and a message and leave the table empty; a
 * success must give a table whose invariants hold (ids in [0, N), finite sorted
 * timestamps, period indices 0..P-1, finite features, increasing node_ids). Every table
 * is then cut with several option sets, chosen from the input's last bytes so that the
 * fuzzer explores them too (periods, fixed windows, equal spans, equal event counts,
 * symmetric or not, weights counted or from the edge feature), and every snapshot is
 * checked: contiguous event ranges covering the table, CSRs with sorted in-range
 * columns, finite weights and A_hat values, one diagonal entry per row of A_hat, and
 * every event of a snapshot present in its A. A violation aborts, so libFuzzer records
 * it as a crash. */
#include "dgnn/readers.h"
#include "dgnn/snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

static void die(const char *who, const char *what) {
    fprintf(stderr, "fuzz_snapshot: %s: %s\n", who, what);
    abort();
}

static void check_table(const char *reader, const dgnn_events *ev) {
    int64_t E = ev->num_events, N = ev->num_nodes, P = ev->num_periods;
    if (E < 0 || N < 0 || P < 0) die(reader, "negative count");
    if (E > 0 && (!ev->src || !ev->dst || !ev->t)) die(reader, "missing event arrays");
    for (int64_t i = 0; i < E; i++) {
        if (ev->src[i] < 0 || ev->src[i] >= N || ev->dst[i] < 0 || ev->dst[i] >= N) die(reader, "node id out of range");
        if (!isfinite(ev->t[i]) || (i && ev->t[i] < ev->t[i - 1])) die(reader, "timestamps not finite and sorted");
        if (P > 0 && !(ev->t[i] >= 0 && ev->t[i] < (double)P && ev->t[i] == floor(ev->t[i])))
            die(reader, "a period table's time is not a period index");
    }
    if ((ev->edge_dim > 0) != (ev->efeat != NULL)) die(reader, "edge_dim and efeat disagree");
    for (int64_t i = 0; i < E * ev->edge_dim; i++)
        if (!isfinite(ev->efeat[i])) die(reader, "non-finite edge feature");
    if (ev->node_ids)
        for (int64_t v = 0; v < N; v++)
            if (ev->node_ids[v] < 0 || (v && ev->node_ids[v] <= ev->node_ids[v - 1])) die(reader, "node_ids not increasing");
    if ((ev->period_x_dim > 0) != (ev->period_x != NULL) || (ev->period_y_dim > 0) != (ev->period_y != NULL))
        die(reader, "period dims and arrays disagree");
    for (int64_t i = 0; i < P * N * ev->period_x_dim; i++)
        if (!isfinite(ev->period_x[i])) die(reader, "non-finite period_x");
    for (int64_t i = 0; i < P * N * ev->period_y_dim; i++)
        if (!isfinite(ev->period_y[i])) die(reader, "non-finite period_y");
    if (ev->bipartite != dgnn_events_detect_bipartite(ev)) die(reader, "bipartite flag differs from the events");
}

/* 1 if (u, v) is an entry of row u of A. */
static int has_entry(const dgnn_snapshot *g, int32_t u, int32_t v) {
    for (int64_t p = g->rowptr[u]; p < g->rowptr[u + 1]; p++)
        if (g->col[p] == v) return 1;
    return 0;
}

static void check_snapshots(const dgnn_snapshots *s, const dgnn_events *ev, const dgnn_snapshot_opts *o) {
    const int64_t N = ev->num_nodes, E = ev->num_events;
    if (s->count < 0 || (s->count > 0 && !s->snaps) || s->num_nodes != N) die("dgnn_snapshots_build", "bad sequence");
    int64_t next = 0;
    for (int64_t k = 0; k < s->count; k++) {
        const dgnn_snapshot *g = &s->snaps[k];
        if (g->num_nodes != N) die("snapshot", "node count differs from the table's");
        if (g->ev_begin != next || g->ev_end < g->ev_begin || g->ev_end > E) die("snapshot", "event ranges not contiguous");
        next = g->ev_end;
        if (g->rowptr[0] != 0 || g->rowptr[N] != g->num_edges || g->hat_rowptr[0] != 0 || g->hat_rowptr[N] != g->hat_nnz)
            die("snapshot", "row pointers do not span the entries");
        int64_t diag = 0;
        for (int64_t u = 0; u < N; u++) {
            if (g->rowptr[u + 1] < g->rowptr[u] || g->hat_rowptr[u + 1] < g->hat_rowptr[u]) die("snapshot", "row pointers decrease");
            for (int64_t p = g->rowptr[u]; p < g->rowptr[u + 1]; p++) {
                if (g->col[p] < 0 || g->col[p] >= N) die("snapshot", "column of A out of range");
                if (p > g->rowptr[u] && g->col[p] <= g->col[p - 1]) die("snapshot", "columns of A not strictly ascending");
                if (!isfinite(g->w[p])) die("snapshot", "weight of A not finite");
            }
            int64_t d = 0;
            for (int64_t p = g->hat_rowptr[u]; p < g->hat_rowptr[u + 1]; p++) {
                if (g->hat_col[p] < 0 || g->hat_col[p] >= N) die("snapshot", "column of A_hat out of range");
                if (p > g->hat_rowptr[u] && g->hat_col[p] <= g->hat_col[p - 1]) die("snapshot", "columns of A_hat not ascending");
                if (!isfinite(g->hat_val[p])) die("snapshot", "value of A_hat not finite");
                d += g->hat_col[p] == u;
            }
            if (d != 1) die("snapshot", "a row of A_hat without exactly one diagonal entry");
            diag += d;
        }
        if (diag != N) die("snapshot", "A_hat lacks self loops");
        for (int64_t e = g->ev_begin; e < g->ev_end; e++) {
            if (!has_entry(g, ev->src[e], ev->dst[e])) die("snapshot", "an event of the snapshot is missing from A");
            if (o->symmetric && !has_entry(g, ev->dst[e], ev->src[e])) die("snapshot", "A + A^T lacks a reversed event");
        }
    }
    if (next != E) die("dgnn_snapshots_build", "snapshots do not cover every event");
}

/* Cuts ev with option set k (0..7), the knobs taken from byte b. */
static void cut(const dgnn_events *ev, int k, unsigned b) {
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.symmetric = (int)(b & 1);
    double span = ev->num_events > 0 ? ev->t[ev->num_events - 1] - ev->t[0] : 0;
    switch (k) {
    case 0: break; /* periods (PyG-T tables), else an error */
    case 1: o.seconds = span > 0 ? span / (double)(1 + (b >> 1) % 16) : 1; break;
    case 2: o.count = 1 + (int64_t)((b >> 1) % 12); break;
    case 3: o.count = 1 + (int64_t)((b >> 1) % 12), o.equal_events = 1; break;
    case 4: o.seconds = (double)(1 + (b >> 1) % 4); break; /* period-sized windows */
    case 5: o.count = 3, o.weight_from_feature = 1, o.weight_col = (int64_t)((b >> 1) % 2); break;
    case 6: o.seconds = 1e-300; break; /* too many snapshots: must be refused */
    default: o.count = (int64_t)1 << 30; break; /* beyond the caps */
    }
    dgnn_snapshots s;
    dgnn_err err;
    memset(&err, 0, sizeof err);
    int rc = dgnn_snapshots_build(&s, ev, &o, &err);
    if (rc == DGNN_OK) check_snapshots(&s, ev, &o);
    else if (rc > 0 || err.code != rc || !err.msg[0] || s.count != 0 || s.snaps != NULL)
        die("dgnn_snapshots_build", "failure without a status and message, or with snapshots left");
    if (rc == DGNN_OK && (k == 7 || (k == 6 && span >= 1))) die("dgnn_snapshots_build", "accepted a cut beyond the caps");
    dgnn_snapshots_free(&s);
}

static void read_and_cut(const char *reader, int rc, dgnn_events *ev, const dgnn_err *err, const uint8_t *data,
                         size_t size) {
    if (rc == DGNN_OK) {
        check_table(reader, ev);
        for (int k = 0; k < 8; k++) cut(ev, k, size > (size_t)k ? data[size - 1 - (size_t)k] : 0u);
    } else if (rc > 0 || err->code != rc || !err->msg[0] || ev->num_events || ev->src || ev->period_x || ev->period_y) {
        die(reader, "failure without a status and message, or with a non-empty table");
    }
    dgnn_events_free(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_setup("snap", "input.json");
    write_file(g_path, data, size);
    dgnn_events ev;
    dgnn_err err;
    memset(&err, 0, sizeof err);
    read_and_cut("dgnn_read_pgt", dgnn_read_pgt(&ev, g_path, &err), &ev, &err, data, size);
    memset(&err, 0, sizeof err);
    read_and_cut("dgnn_read_edgelist", dgnn_read_edgelist(&ev, g_path, NULL, &err), &ev, &err, data, size);
    return 0;
}
