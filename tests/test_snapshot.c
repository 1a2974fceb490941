/* test_snapshot.c: snapshots cut from a hand-made event table (by seconds, by count of
 * equal spans, by equal event counts, by period), with hand-checked CSRs and weights, and
 * every A and A_hat compared with a dense reference computed here, D^-1/2 (A + I) D^-1/2
 * on a small dense matrix; option errors; determinism across thread counts; the shared
 * bitcoin-alpha stream (137 snapshots of 1,200,000 s, 2..1,431 events each) and the
 * PyG-Temporal twitter tennis file (one snapshot per period). */
#include "check.h"
#include "dgnn/readers.h"
#include "dgnn/snapshot.h"

#include <omp.h>

/* The hand-made table: 5 nodes, ids kept, one edge feature (a weight).
 * With 10-second windows from t0 = 10: window 0 = e0..e3, window 1 empty, window 2 =
 * e4, e5, window 3 = e6. */
static const int64_t H_SRC[] = {0, 1, 0, 2, 3, 0, 4};
static const int64_t H_DST[] = {1, 2, 1, 2, 0, 3, 1};
static const double H_T[] = {10, 12, 14, 15, 35, 39, 40};
static const float H_W[] = {2, 3, -1, 5, 1, 4, 1};

static void make_table(dgnn_events *ev) {
    dgnn_builder b;
    dgnn_err err;
    dgnn_builder_init(&b, 1, 0, 0);
    for (int i = 0; i < 7; i++) DGNN_ASSERT(dgnn_builder_push(&b, H_SRC[i], H_DST[i], H_T[i], &H_W[i], 0, 0, &err) == 0);
    dgnn_events_init(ev);
    DGNN_ASSERT(dgnn_builder_finish(&b, ev, 5, &err) == 0);
    DGNN_ASSERT(ev->num_nodes == 5 && ev->num_events == 7);
}

/* Compares snapshot g (A and A_hat) with dense matrices built from its events. */
static void check_dense(const dgnn_snapshot *g, const dgnn_events *ev, int sym, int feat, const char *what) {
    int64_t N = ev->num_nodes;
    double *A = calloc((size_t)(N * N), sizeof *A), *H = calloc((size_t)(N * N), sizeof *H);
    double *deg = calloc((size_t)N, sizeof *deg);
    char *present = calloc((size_t)(N * N), 1);
    for (int64_t i = g->ev_begin; i < g->ev_end; i++) {
        double w = feat ? ev->efeat[i * ev->edge_dim] : 1.0;
        A[ev->src[i] * N + ev->dst[i]] += w;
        present[ev->src[i] * N + ev->dst[i]] = 1;
        if (sym) {
            A[ev->dst[i] * N + ev->src[i]] += w;
            present[ev->dst[i] * N + ev->src[i]] = 1;
        }
    }
    int64_t nnz = 0;
    for (int64_t u = 0; u < N; u++) {
        deg[u] = 1.0;
        for (int64_t v = 0; v < N; v++) deg[u] += A[u * N + v], nnz += present[u * N + v];
    }
    for (int64_t u = 0; u < N; u++)
        for (int64_t v = 0; v < N; v++) H[u * N + v] = (A[u * N + v] + (u == v)) / sqrt(deg[u] * deg[v]);

    CHECK_MSG(g->num_nodes == N, "%s: N", what);
    CHECK_MSG(g->num_edges == nnz, "%s: %lld edges, dense says %lld", what, (long long)g->num_edges, (long long)nnz);
    CHECK_MSG(g->rowptr[0] == 0 && g->rowptr[N] == g->num_edges, "%s: rowptr ends", what);
    CHECK_MSG(g->hat_rowptr[0] == 0 && g->hat_rowptr[N] == g->hat_nnz, "%s: hat_rowptr ends", what);
    /* expand both CSRs: columns strictly ascending, values equal to the dense ones */
    int ok_a = 1, ok_h = 1, sorted = 1;
    double *S = calloc((size_t)(N * N), sizeof *S);
    for (int64_t u = 0; u < N; u++) {
        for (int64_t p = g->rowptr[u]; p < g->rowptr[u + 1]; p++) {
            if (p > g->rowptr[u] && g->col[p] <= g->col[p - 1]) sorted = 0;
            if (!present[u * N + g->col[p]] || fabs(g->w[p] - A[u * N + g->col[p]]) > 1e-6) ok_a = 0;
        }
        int has_diag = 0;
        for (int64_t p = g->hat_rowptr[u]; p < g->hat_rowptr[u + 1]; p++) {
            if (p > g->hat_rowptr[u] && g->hat_col[p] <= g->hat_col[p - 1]) sorted = 0;
            S[u * N + g->hat_col[p]] = g->hat_val[p];
            has_diag |= g->hat_col[p] == u;
        }
        if (!has_diag) ok_h = 0;
    }
    for (int64_t k = 0; k < N * N; k++)
        if (fabs(S[k] - H[k]) > 1e-6) ok_h = 0;
    CHECK_MSG(sorted, "%s: columns not ascending", what);
    CHECK_MSG(ok_a, "%s: A differs from the dense reference", what);
    CHECK_MSG(ok_h, "%s: A_hat differs from the dense reference", what);
    free(A), free(H), free(deg), free(present), free(S);
}

static void check_all_dense(const dgnn_snapshots *s, const dgnn_events *ev, const char *what) {
    for (int64_t k = 0; k < s->count; k++) {
        char w[96];
        snprintf(w, sizeof w, "%s snapshot %lld", what, (long long)k);
        check_dense(&s->snaps[k], ev, s->opts.symmetric, s->opts.weight_from_feature, w);
    }
}

static void test_by_seconds(void) {
    dgnn_events ev;
    make_table(&ev);
    dgnn_snapshots s;
    dgnn_err err;
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.seconds = 10;
    int rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(s.count == 4 && s.mode == DGNN_SNAP_SECONDS && s.num_nodes == 5);
    int64_t beg[] = {0, 4, 4, 6}, end[] = {4, 4, 6, 7};
    for (int k = 0; k < 4; k++) {
        CHECK_MSG(s.snaps[k].ev_begin == beg[k] && s.snaps[k].ev_end == end[k], "snapshot %d: [%lld, %lld)", k,
                  (long long)s.snaps[k].ev_begin, (long long)s.snaps[k].ev_end);
        CHECK(s.snaps[k].t_begin == 10 + 10 * k && s.snaps[k].t_end == 20 + 10 * k);
    }
    /* snapshot 0, directed, counted: 0->1 (x2), 1->2, 2->2 */
    const dgnn_snapshot *g = &s.snaps[0];
    int64_t rp[] = {0, 1, 2, 3, 3, 3};
    CHECK(g->num_edges == 3);
    for (int u = 0; u <= 5; u++) CHECK(g->rowptr[u] == rp[u]);
    CHECK(g->col[0] == 1 && g->w[0] == 2.0f);
    CHECK(g->col[1] == 2 && g->w[1] == 1.0f);
    CHECK(g->col[2] == 2 && g->w[2] == 1.0f);
    /* A_hat (directed: D = row sums of A + I = 3, 2, 2, 1, 1): row 0 = {0: 1/3, 1: 2/sqrt(6)},
     * row 2 = {2: 2/2} (the existing loop gets +1), 3 nodes have only the added loop */
    CHECK(g->hat_nnz == 3 + 4);
    CHECK(g->hat_rowptr[1] == 2 && g->hat_col[0] == 0 && g->hat_col[1] == 1);
    CHECK_NEAR(g->hat_val[0], 1.0 / 3.0, 1e-7);
    CHECK_NEAR(g->hat_val[1], 2.0 / sqrt(6.0), 1e-7);
    CHECK_NEAR(g->hat_val[g->hat_rowptr[2]], 1.0, 1e-7);
    /* dgnn_snapshot_entry: the position of (u, v) in A's CSR, -1 where A has no entry
     * (also between or beyond a row's columns, and in empty rows) */
    CHECK(dgnn_snapshot_entry(g, 0, 1) == 0 && dgnn_snapshot_entry(g, 1, 2) == 1 && dgnn_snapshot_entry(g, 2, 2) == 2);
    CHECK(dgnn_snapshot_entry(g, 0, 0) == -1 && dgnn_snapshot_entry(g, 1, 0) == -1 && dgnn_snapshot_entry(g, 2, 1) == -1);
    CHECK(dgnn_snapshot_entry(g, 0, 4) == -1 && dgnn_snapshot_entry(g, 1, 3) == -1 && dgnn_snapshot_entry(g, 3, 0) == -1);
    CHECK(dgnn_snapshot_entry(g, 4, 4) == -1);
    /* the empty window: only self loops, all 1 */
    g = &s.snaps[1];
    CHECK(g->num_edges == 0 && g->hat_nnz == 5);
    for (int u = 0; u < 5; u++) CHECK(g->hat_col[u] == u && g->hat_val[u] == 1.0f && g->hat_rowptr[u] == u);
    check_all_dense(&s, &ev, "seconds directed");

    dgnn_snap_stats st;
    dgnn_snapshot_stats(&s, &st);
    CHECK(st.count == 4 && st.empty == 1 && st.min_events == 0 && st.max_events == 4);
    CHECK(st.min_edges == 0 && st.max_edges == 3);
    CHECK_NEAR(st.mean_events, 7.0 / 4, 1e-12);
    CHECK_NEAR(st.mean_edges, (3 + 0 + 2 + 1) / 4.0, 1e-12);
    dgnn_snapshots_free(&s);
    CHECK(s.count == 0 && s.snaps == NULL);

    /* symmetric, counted: (0,1)=(1,0)=2, (1,2)=(2,1)=1, (2,2)=2 (A + A^T doubles a loop) */
    o.symmetric = 1;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    g = &s.snaps[0];
    CHECK(g->num_edges == 5);
    int64_t rps[] = {0, 1, 3, 5, 5, 5};
    int32_t cols[] = {1, 0, 2, 1, 2};
    float ws[] = {2, 2, 1, 1, 2};
    for (int u = 0; u <= 5; u++) CHECK(g->rowptr[u] == rps[u]);
    for (int p = 0; p < 5; p++) CHECK_MSG(g->col[p] == cols[p] && g->w[p] == ws[p], "entry %d", p);
    /* degrees of A + I: 3, 4, 4, 1, 1 */
    CHECK_NEAR(g->hat_val[1], 2.0 / sqrt(12.0), 1e-7);        /* (0, 1) */
    CHECK_NEAR(g->hat_val[g->hat_rowptr[3] - 1], 0.75, 1e-7); /* (2, 2) = 3 / 4 */
    check_all_dense(&s, &ev, "seconds symmetric");
    dgnn_snapshots_free(&s);

    /* weights from the edge feature: 0->1 = 2 + (-1) = 1 */
    o.symmetric = 0;
    o.weight_from_feature = 1;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    g = &s.snaps[0];
    CHECK(g->num_edges == 3 && g->w[0] == 1.0f && g->w[1] == 3.0f && g->w[2] == 5.0f);
    CHECK(s.snaps[2].w[0] == 4.0f); /* 0->3 */
    check_all_dense(&s, &ev, "seconds feature");
    dgnn_snapshots_free(&s);
    o.symmetric = 1;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) check_all_dense(&s, &ev, "seconds feature symmetric");
    dgnn_snapshots_free(&s);

    /* a window wider than the span: one snapshot */
    o = dgnn_snapshot_opts_default();
    o.seconds = 1000;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK(rc == 0 && s.count == 1 && s.snaps[0].ev_end == 7);
    if (rc == 0) check_all_dense(&s, &ev, "one window");
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

static void test_by_count(void) {
    dgnn_events ev;
    make_table(&ev);
    dgnn_snapshots s;
    dgnn_err err;
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    /* 3 equal spans over [10, 40]: [10,20) [20,30) [30,40]; the last holds t = 40 */
    o.count = 3;
    o.symmetric = 1;
    int rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(s.count == 3 && s.mode == DGNN_SNAP_COUNT);
    int64_t beg[] = {0, 4, 4}, end[] = {4, 4, 7};
    for (int k = 0; k < 3; k++) {
        CHECK_MSG(s.snaps[k].ev_begin == beg[k] && s.snaps[k].ev_end == end[k], "count snapshot %d", k);
        CHECK_NEAR(s.snaps[k].t_begin, 10 + 10 * k, 1e-9);
        CHECK_NEAR(s.snaps[k].t_end, 20 + 10 * k, 1e-9);
    }
    /* snapshot 2 symmetric: 3-0 and 0-3 merge to weight 2 each way, 4-1 */
    const dgnn_snapshot *g = &s.snaps[2];
    CHECK(g->num_edges == 4);
    CHECK(g->rowptr[1] == 1 && g->col[0] == 3 && g->w[0] == 2.0f);
    check_all_dense(&s, &ev, "count");
    dgnn_snapshots_free(&s);

    /* equal event counts: 7 events in 3 -> [0,2) [2,4) [4,7) */
    o.equal_events = 1;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(s.count == 3 && s.mode == DGNN_SNAP_EVENTS);
    int64_t beg2[] = {0, 2, 4}, end2[] = {2, 4, 7};
    for (int k = 0; k < 3; k++)
        CHECK_MSG(s.snaps[k].ev_begin == beg2[k] && s.snaps[k].ev_end == end2[k], "events snapshot %d", k);
    CHECK(s.snaps[1].t_begin == 14 && s.snaps[1].t_end == 15);
    check_all_dense(&s, &ev, "equal events");
    dgnn_snapshots_free(&s);

    /* more snapshots than events: some empty, all events covered once, in order */
    o.count = 10;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        int64_t prev = 0, empty = 0;
        for (int64_t k = 0; k < s.count; k++) {
            CHECK(s.snaps[k].ev_begin == prev && s.snaps[k].ev_end >= prev && s.snaps[k].ev_end - prev <= 1);
            empty += s.snaps[k].ev_end == prev;
            prev = s.snaps[k].ev_end;
        }
        CHECK(prev == 7 && empty == 3);
        check_all_dense(&s, &ev, "events 10");
    }
    dgnn_snapshots_free(&s);

    /* equal spans with 100 windows: every event lands where floor((t - t0) / span * C) says */
    o.equal_events = 0;
    o.count = 100;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        int64_t expect_k[] = {0, 6, 13, 16, 83, 96, 99};
        for (int i = 0; i < 7; i++) {
            const dgnn_snapshot *h = &s.snaps[expect_k[i]];
            CHECK_MSG(h->ev_begin <= i && i < h->ev_end, "event %d not in snapshot %lld", i, (long long)expect_k[i]);
        }
        dgnn_snap_stats st;
        dgnn_snapshot_stats(&s, &st);
        CHECK(st.count == 100 && st.empty == 93 && st.max_events == 1);
    }
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

static void test_periods(void) {
    /* a PGT-like table: t in {0, 0, 1, 3}, 5 periods: 2 and 4 are empty */
    dgnn_builder b;
    dgnn_err err;
    dgnn_events ev;
    float w[] = {0.5f, 2, 1, 3};
    int64_t src[] = {0, 1, 2, 0}, dst[] = {1, 0, 2, 2};
    double t[] = {0, 0, 1, 3};
    dgnn_builder_init(&b, 1, 0, 0);
    for (int i = 0; i < 4; i++) DGNN_ASSERT(dgnn_builder_push(&b, src[i], dst[i], t[i], &w[i], 0, 0, &err) == 0);
    dgnn_events_init(&ev);
    DGNN_ASSERT(dgnn_builder_finish(&b, &ev, 3, &err) == 0);
    ev.num_periods = 5;
    dgnn_snapshots s;
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.weight_from_feature = 1;
    o.symmetric = 1;
    int rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        CHECK(s.count == 5 && s.mode == DGNN_SNAP_PERIODS);
        int64_t beg[] = {0, 2, 3, 3, 4}, end[] = {2, 3, 3, 4, 4};
        for (int k = 0; k < 5; k++) {
            CHECK_MSG(s.snaps[k].ev_begin == beg[k] && s.snaps[k].ev_end == end[k], "period %d", k);
            CHECK(s.snaps[k].t_begin == k && s.snaps[k].t_end == k + 1);
        }
        /* period 0 symmetric: 0->1 (0.5) + 1->0 (2) gives 2.5 both ways */
        CHECK(s.snaps[0].num_edges == 2 && s.snaps[0].w[0] == 2.5f && s.snaps[0].w[1] == 2.5f);
        CHECK(s.snaps[4].num_edges == 0 && s.snaps[4].hat_nnz == 3);
        check_all_dense(&s, &ev, "periods");
    }
    dgnn_snapshots_free(&s);
    /* seconds on a period table also works (period indices as times) */
    o.seconds = 2;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK(rc == 0 && s.count == 2 && s.snaps[0].ev_end == 3);
    dgnn_snapshots_free(&s);
    /* a t that is not a period index */
    ev.t[3] = 2.5;
    o.seconds = 0;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == DGNN_EINVAL && strstr(err.msg, "not a period index"), "%d %s", rc, err.msg);
    CHECK(s.count == 0 && s.snaps == NULL);
    /* t = 5 on a table of 5 periods (0..4) is not one either */
    ev.t[3] = 5;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == DGNN_EINVAL && strstr(err.msg, "not a period index 0..4"), "%d %s", rc, err.msg);
    CHECK(s.count == 0 && s.snaps == NULL);
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

static void expect_einval(const dgnn_events *ev, dgnn_snapshot_opts o, const char *needle) {
    dgnn_snapshots s;
    dgnn_err err;
    dgnn_err_clear(&err);
    int rc = dgnn_snapshots_build(&s, ev, &o, &err);
    CHECK_MSG(rc == DGNN_EINVAL && strstr(err.msg, needle), "rc %d, message '%s' (want '%s')", rc, err.msg, needle);
    CHECK(s.count == 0 && s.snaps == NULL);
    dgnn_snapshots_free(&s);
}

static void test_bad_options(void) {
    dgnn_events ev;
    make_table(&ev);
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    expect_einval(&ev, o, "give snapshot seconds");
    o.seconds = 10, o.count = 3;
    expect_einval(&ev, o, "not both");
    o = dgnn_snapshot_opts_default();
    o.seconds = -1;
    expect_einval(&ev, o, "positive");
    o.seconds = NAN;
    expect_einval(&ev, o, "positive");
    o.seconds = INFINITY;
    expect_einval(&ev, o, "positive");
    o = dgnn_snapshot_opts_default();
    o.count = -2;
    expect_einval(&ev, o, "positive");
    o = dgnn_snapshot_opts_default();
    o.seconds = 10, o.equal_events = 1;
    expect_einval(&ev, o, "need a snapshot count");
    o = dgnn_snapshot_opts_default();
    o.seconds = 1e-9;
    expect_einval(&ev, o, "use longer snapshots");
    o = dgnn_snapshot_opts_default();
    o.seconds = 10, o.weight_from_feature = 1, o.weight_col = 1;
    expect_einval(&ev, o, "feature column 1");
    /* negative weights: window [30, 40) has 0->3 only; make it -4 so node 0 has degree -3 */
    ev.efeat[5] = -4;
    o.weight_col = 0;
    expect_einval(&ev, o, "snapshot 2: node 0 has weighted degree -3");
    ev.efeat[5] = 4;
    /* issue 12: snapshots x nodes beyond what memory holds are refused before allocating
     * (1-second windows over a long stream of many nodes) */
    {
        int64_t n0 = ev.num_nodes;
        ev.num_nodes = (int64_t)1 << 21;
        o = dgnn_snapshot_opts_default();
        o.count = 200;
        expect_einval(&ev, o, "row pointers would take");
        ev.num_nodes = n0;
        /* windows that make more than 2^20 snapshots (15M 2-second windows over a year
         * took gigabytes in the snapshot structs alone; found by fuzz_snapshot) */
        o = dgnn_snapshot_opts_default();
        o.seconds = 1e-5; /* the table spans 30 time units: 3M snapshots */
        expect_einval(&ev, o, "at most 1048576");
        o = dgnn_snapshot_opts_default();
        o.count = ((int64_t)1 << 20) + 1;
        expect_einval(&ev, o, "at most 1048576");
        /* the fuzzer's input: three bitcoin-alpha rows spanning 358 days, 2-second windows */
        char path[64];
        snprintf(path, sizeof path, "/tmp/dgnn_test_snapshot_%d.csv", (int)getpid());
        const char *rows = "5,6,10,1407470400\n6,5,-10,1376539200\n5,7,1,1393703650\n";
        check_write_file(path, rows, strlen(rows));
        dgnn_events bt;
        dgnn_err err;
        CHECK(dgnn_read_edgelist(&bt, path, NULL, &err) == DGNN_OK);
        remove(path);
        o = dgnn_snapshot_opts_default();
        o.seconds = 2;
        expect_einval(&bt, o, "make 15465601 snapshots (at most 1048576)");
        dgnn_events_free(&bt);
    }
    /* unsorted table */
    ev.t[2] = 100;
    o = dgnn_snapshot_opts_default();
    o.seconds = 10;
    expect_einval(&ev, o, "not sorted");
    dgnn_events_free(&ev);

    /* an empty table: no windows; a count gives empty snapshots */
    dgnn_events e0;
    dgnn_events_init(&e0);
    e0.num_nodes = 2;
    dgnn_snapshots s;
    dgnn_err err;
    int rc = dgnn_snapshots_build(&s, &e0, &o, &err);
    CHECK(rc == 0 && s.count == 0);
    dgnn_snapshots_free(&s);
    o = dgnn_snapshot_opts_default();
    o.count = 2;
    rc = dgnn_snapshots_build(&s, &e0, &o, &err);
    CHECK(rc == 0 && s.count == 2 && s.snaps[1].hat_nnz == 2 && s.snaps[1].num_edges == 0);
    dgnn_snapshots_free(&s);
}

/* Same snapshots bit for bit with 1 and 2 threads. */
static int same_snapshots(const dgnn_snapshots *a, const dgnn_snapshots *b) {
    if (a->count != b->count) return 0;
    for (int64_t k = 0; k < a->count; k++) {
        const dgnn_snapshot *x = &a->snaps[k], *y = &b->snaps[k];
        int64_t N = x->num_nodes;
        if (x->num_edges != y->num_edges || x->hat_nnz != y->hat_nnz || x->ev_begin != y->ev_begin ||
            x->ev_end != y->ev_end)
            return 0;
        if (memcmp(x->rowptr, y->rowptr, (size_t)(N + 1) * 8) || memcmp(x->col, y->col, (size_t)x->num_edges * 4) ||
            memcmp(x->w, y->w, (size_t)x->num_edges * 4) || memcmp(x->hat_rowptr, y->hat_rowptr, (size_t)(N + 1) * 8) ||
            memcmp(x->hat_col, y->hat_col, (size_t)x->hat_nnz * 4) || memcmp(x->hat_val, y->hat_val, (size_t)x->hat_nnz * 4))
            return 0;
    }
    return 1;
}

/* For a symmetric A: A_hat D^1/2 1 = D^-1/2 (A + I) 1 = D^1/2 1, with D from the CSR of A.
 * Also checks that the A weights sum to twice the number of events (counted, symmetric). */
static void check_hat_identity(const dgnn_snapshots *s, const char *what) {
    int bad = 0;
    for (int64_t k = 0; k < s->count; k++) {
        const dgnn_snapshot *g = &s->snaps[k];
        int64_t N = g->num_nodes;
        double *sq = malloc((size_t)N * sizeof *sq), total = 0;
        for (int64_t u = 0; u < N; u++) {
            double d = 1;
            for (int64_t p = g->rowptr[u]; p < g->rowptr[u + 1]; p++) d += g->w[p];
            sq[u] = sqrt(d);
            total += d - 1;
        }
        for (int64_t u = 0; u < N; u++) {
            double acc = 0;
            for (int64_t p = g->hat_rowptr[u]; p < g->hat_rowptr[u + 1]; p++) acc += g->hat_val[p] * sq[g->hat_col[p]];
            if (fabs(acc - sq[u]) > 1e-5 * sq[u]) bad++;
        }
        if (!s->opts.weight_from_feature && total != 2.0 * (double)(g->ev_end - g->ev_begin)) bad++;
        free(sq);
    }
    CHECK_MSG(bad == 0, "%s: %d rows break A_hat D^1/2 1 = D^1/2 1", what, bad);
}

static void test_bitcoin(void) {
    char buf[512];
    if (!check_data(buf, sizeof buf, "bitcoin-alpha/soc-sign-bitcoinalpha.csv")) return;
    dgnn_events ev;
    dgnn_err err;
    int rc = dgnn_read_edgelist(&ev, buf, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(ev.num_events == 24186 && ev.num_nodes == 3783);
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.seconds = 1200000;
    o.symmetric = 1;
    dgnn_snapshots s1, s2;
    omp_set_num_threads(1);
    double t = dgnn_now();
    rc = dgnn_snapshots_build(&s1, &ev, &o, &err);
    double t1 = dgnn_now() - t;
    CHECK_MSG(rc == 0, "%s", err.msg);
    omp_set_num_threads(2);
    t = dgnn_now();
    int rc2 = dgnn_snapshots_build(&s2, &ev, &o, &err);
    double t2 = dgnn_now() - t;
    CHECK_MSG(rc2 == 0, "%s", err.msg);
    if (rc == 0 && rc2 == 0) {
        dgnn_snap_stats st;
        dgnn_snapshot_stats(&s2, &st);
        printf("bitcoin-alpha, 1,200,000 s: %lld snapshots, events %lld..%lld (mean %.1f), symmetric nnz "
               "%lld..%lld; build %.3f s (1 thread), %.3f s (2 threads)\n",
               (long long)st.count, (long long)st.min_events, (long long)st.max_events, st.mean_events,
               (long long)st.min_edges, (long long)st.max_edges, t1, t2);
        CHECK(st.count == 137);
        CHECK(st.min_events == 2);
        CHECK(st.max_events == 1431);
        CHECK(st.empty == 0);
        CHECK_MSG(same_snapshots(&s1, &s2), "1 and 2 threads differ");
        check_hat_identity(&s2, "bitcoin");
        /* windows are contiguous and cover the table */
        int64_t prev = 0;
        for (int64_t k = 0; k < s2.count; k++) {
            CHECK(s2.snaps[k].ev_begin == prev);
            prev = s2.snaps[k].ev_end;
            if (s2.snaps[k].ev_end > s2.snaps[k].ev_begin) {
                CHECK(ev.t[s2.snaps[k].ev_begin] >= s2.snaps[k].t_begin);
                CHECK(ev.t[s2.snaps[k].ev_end - 1] < s2.snaps[k].t_end);
            }
        }
        CHECK(prev == ev.num_events);
    }
    dgnn_snapshots_free(&s1);
    dgnn_snapshots_free(&s2);
    dgnn_events_free(&ev);
}

static void test_twitter(void) {
    char buf[512];
    if (!check_data(buf, sizeof buf, "pgt/twitter_tennis_rg17.json")) return;
    dgnn_events ev;
    dgnn_err err;
    int rc = dgnn_read_pgt(&ev, buf, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.weight_from_feature = 1;
    dgnn_snapshots s;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        dgnn_snap_stats st;
        dgnn_snapshot_stats(&s, &st);
        CHECK(st.count == 120 && st.min_events == 41 && st.max_events == 936);
        printf("twitter_tennis_rg17 per period: events %lld..%lld, distinct edges %lld..%lld\n",
               (long long)st.min_events, (long long)st.max_events, (long long)st.min_edges, (long long)st.max_edges);
        /* a few periods against the dense reference (N = 1000: 8 MB per dense matrix) */
        check_dense(&s.snaps[0], &ev, 0, 1, "twitter period 0");
        check_dense(&s.snaps[119], &ev, 0, 1, "twitter period 119");
    }
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

int main(void) {
    test_by_seconds();
    test_by_count();
    test_periods();
    test_bad_options();
    test_bitcoin();
    test_twitter();
    return check_done();
}
