/* test_eval_neg.c: DyGLib's historical and inductive negative edges and TGB's hist_rnd
 * lists (data/eval_neg.c, eval_neg_tgb.c) on streams small enough to list every
 * candidate by hand; determinism under seeds and thread counts; the lists' .npy round
 * trip with original ids and its errors; the cost of a batch on a wikipedia-sized stream. */
#include "check.h"
#include "dgnn/eval_neg.h"
#include "dgnn/edgeset.h"
#include "dgnn/npy.h"

#include <omp.h>
#include <time.h>

static void mk(dgnn_events *ev, const int32_t *s, const int32_t *d, const double *t, int64_t E, int64_t N) {
    dgnn_events_init(ev);
    dgnn_err e;
    DGNN_ASSERT(dgnn_events_alloc(ev, E, 0, 0, &e) == 0);
    memcpy(ev->src, s, (size_t)E * 4);
    memcpy(ev->dst, d, (size_t)E * 4);
    memcpy(ev->t, t, (size_t)E * 8);
    ev->num_nodes = N;
}

static int is_pair(int32_t s, int32_t d, const int32_t *ps, const int32_t *pd, int n) {
    for (int i = 0; i < n; i++)
        if (ps[i] == s && pd[i] == d) return 1;
    return 0;
}

/* The stream (src, dst, t):
 *   (0,3,1) (1,4,2) (0,3,3) (2,5,4) (1,3,5) (0,4,6) (2,3,7) (1,5,8)
 * distinct edges by first time: (0,3)@1 (1,4)@2 (2,5)@4 (1,3)@5 (0,4)@6 (2,3)@7 (1,5)@8;
 * training ends at t = 4: observed (0,3) (1,4) (2,5). */
static const int32_t S[8] = {0, 1, 0, 2, 1, 0, 2, 1}, D[8] = {3, 4, 3, 5, 3, 4, 3, 5};
static const double T[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static void test_dyglib(void) {
    dgnn_events ev;
    mk(&ev, S, D, T, 8, 6);
    dgnn_edge_history *h;
    dgnn_err e;
    CHECK_MSG(dgnn_edge_history_build(&h, &ev, 4.0, &e) == 0, "%s", e.msg);
    CHECK(strcmp(dgnn_neg_strategy_name(DGNN_NEGS_HISTORICAL), "historical") == 0);
    CHECK(strcmp(dgnn_neg_strategy_name(DGNN_NEGS_INDUCTIVE), "inductive") == 0);
    CHECK(strcmp(dgnn_neg_strategy_name(DGNN_NEGS_RANDOM), "random") == 0);
    int32_t ns[4], nd[4];
    /* batch = events 5, 6: (0,4,6) (2,3,7). Historical: seen at t <= 6 minus the edges at
     * t in [6, 7] {(0,4), (2,3)} = {(0,3), (1,4), (2,5), (1,3)}: 2 distinct of those.
     * Over seeds, all four appear and nothing else. */
    const int32_t hs[4] = {0, 1, 2, 1}, hd[4] = {3, 4, 5, 3};
    int seen[4] = {0}, ok = 1;
    for (uint64_t seed = 0; seed < 64; seed++) {
        CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S + 5, D + 5, T + 5, 2, seed, ns, nd, &e) == 0);
        if (ns[0] == ns[1] && nd[0] == nd[1]) ok = 0;
        for (int i = 0; i < 2; i++) {
            int f = 0;
            for (int j = 0; j < 4; j++)
                if (ns[i] == hs[j] && nd[i] == hd[j]) seen[j] = f = 1;
            if (!f) ok = 0;
        }
    }
    CHECK(ok);
    CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
    /* inductive: of those, not observed by t = 4: only (1,3); so slot 0 is a random edge
     * over {0,1,2} x {3,4,5} minus the batch's pairs, slot 1 is (1,3) */
    ok = 1;
    for (uint64_t seed = 0; seed < 64; seed++) {
        CHECK(dgnn_neg_edges(h, DGNN_NEGS_INDUCTIVE, S + 5, D + 5, T + 5, 2, seed, ns, nd, &e) == 0);
        if (!(ns[1] == 1 && nd[1] == 3)) ok = 0;
        if (ns[0] < 0 || ns[0] > 2 || nd[0] < 3 || nd[0] > 5 || is_pair(ns[0], nd[0], S + 5, D + 5, 2)) ok = 0;
    }
    CHECK(ok);
    /* batch = events 1, 2: (1,4,2) (0,3,3): seen at t <= 2 are (0,3), (1,4), both edges at
     * t in [2, 3]: no candidate, two random edges, distinct, not the batch's pairs */
    ok = 1;
    for (uint64_t seed = 0; seed < 64; seed++) {
        CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S + 1, D + 1, T + 1, 2, seed, ns, nd, &e) == 0);
        if (ns[0] == ns[1] && nd[0] == nd[1]) ok = 0;
        for (int i = 0; i < 2; i++)
            if (ns[i] > 2 || nd[i] < 3 || is_pair(ns[i], nd[i], S + 1, D + 1, 2)) ok = 0;
    }
    CHECK(ok);
    /* the edges at the batch's times come from the stream, not the batch: a batch of just
     * event 5 (t = 6) excludes (0,4) only; (2,3)@7 is not yet seen */
    ok = 1;
    for (uint64_t seed = 0; seed < 32; seed++) {
        CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S + 5, D + 5, T + 5, 1, seed, ns, nd, &e) == 0);
        if (!is_pair(ns[0], nd[0], hs, hd, 4)) ok = 0;
    }
    CHECK(ok);
    /* seeded: the same seed, the same edges; another seed, (over many) others */
    int32_t a1[2], b1[2], a2[2], b2[2], differ = 0;
    for (uint64_t seed = 0; seed < 16; seed++) {
        dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S + 5, D + 5, T + 5, 2, seed, a1, b1, &e);
        dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S + 5, D + 5, T + 5, 2, seed, a2, b2, &e);
        CHECK(a1[0] == a2[0] && a1[1] == a2[1] && b1[0] == b2[0] && b1[1] == b2[1]);
        int32_t c1[2], c2[2];
        dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S + 5, D + 5, T + 5, 2, seed + 1000, c1, c2, &e);
        differ += c1[0] != a1[0] || c1[1] != a1[1] || c2[0] != b1[0] || c2[1] != b1[1];
    }
    CHECK(differ > 0);
    /* random is the trainer's; an unsorted batch is refused */
    CHECK(dgnn_neg_edges(h, DGNN_NEGS_RANDOM, S, D, T, 2, 1, ns, nd, &e) == DGNN_EINVAL);
    const double bad_t[2] = {5, 4};
    CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, S, D, bad_t, 2, 1, ns, nd, &e) == DGNN_EINVAL);
    CHECK_MSG(strstr(e.msg, "sorted"), "%s", e.msg);
    dgnn_edge_history_free(h);
    dgnn_events_free(&ev);

    /* a tiny graph: (0,1)@1 (0,2)@2; batch (0,1)@2 x 3. Candidates: seen at t <= 2 minus
     * the edges at t = 2 {(0,2)} = {(0,1)}; fill 2 from {0} x {1,2} minus the batch's
     * pair (0,1) = {(0,2)}: fewer than 2, so with replacement: (0,2), (0,2), then (0,1) */
    const int32_t s2[2] = {0, 0}, d2[2] = {1, 2}, bs[3] = {0, 0, 0}, bd[3] = {1, 1, 1};
    const double t2[2] = {1, 2}, bt[3] = {2, 2, 2};
    mk(&ev, s2, d2, t2, 2, 3);
    CHECK(dgnn_edge_history_build(&h, &ev, 1.0, &e) == 0);
    int32_t ts[3], td[3];
    CHECK_MSG(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, bs, bd, bt, 3, 7, ts, td, &e) == 0, "%s", e.msg);
    CHECK(ts[0] == 0 && td[0] == 2 && ts[1] == 0 && td[1] == 2 && ts[2] == 0 && td[2] == 1);
    /* a batch holding every possible pair: no random edge exists */
    const int32_t as[2] = {0, 0}, ad[2] = {1, 2};
    const double at[2] = {1, 1};
    CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, as, ad, at, 2, 7, ts, td, &e) == DGNN_EINVAL);
    CHECK_MSG(strstr(e.msg, "no random edge"), "%s", e.msg);
    /* a batch pair outside sources x destinations ((1,0): 1 is no source) takes no random
     * edge away: candidates {(0,1)}, then the fill of 1 from {0} x {1,2} minus (0,1) = (0,2) */
    const int32_t os[2] = {0, 1}, od[2] = {1, 0};
    const double ot[2] = {2, 2};
    CHECK_MSG(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, os, od, ot, 2, 7, ts, td, &e) == 0, "%s", e.msg);
    CHECK(ts[0] == 0 && td[0] == 2 && ts[1] == 0 && td[1] == 1);
    dgnn_edge_history_free(h);
    dgnn_events_free(&ev);

    /* exactly as many random edges as needed: (0,2)@1 (1,3)@1 (0,3)@2 (1,2)@2, batch = the
     * first two events: no candidate (both seen edges are at the batch's time), the fill of
     * 2 from {0,1} x {2,3} minus the batch's pairs = {(0,3), (1,2)}, without replacement:
     * both of them */
    const int32_t s3[4] = {0, 1, 0, 1}, d3[4] = {2, 3, 3, 2};
    const double t3[4] = {1, 1, 2, 2};
    mk(&ev, s3, d3, t3, 4, 4);
    CHECK(dgnn_edge_history_build(&h, &ev, 1.0, &e) == 0);
    ok = 1;
    for (uint64_t seed = 0; seed < 32; seed++) {
        CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, s3, d3, t3, 2, seed, ts, td, &e) == 0);
        int a = ts[0] == 0 && td[0] == 3 && ts[1] == 1 && td[1] == 2, b = ts[0] == 1 && td[0] == 2 && ts[1] == 0 && td[1] == 3;
        if (!a && !b) ok = 0;
    }
    CHECK(ok);
    dgnn_edge_history_free(h);
    dgnn_events_free(&ev);

    /* an edge seen before t0 counts though it recurs after the batch: (0,2)@1 (1,3)@2 (0,3)@3
     * (1,3)@9; batch (0,3)@3: candidates {(0,2), (1,3)}, both drawn over seeds */
    const int32_t s4[4] = {0, 1, 0, 1}, d4[4] = {2, 3, 3, 3};
    const double t4[4] = {1, 2, 3, 9};
    mk(&ev, s4, d4, t4, 4, 4);
    CHECK(dgnn_edge_history_build(&h, &ev, 1.0, &e) == 0);
    int got02 = 0, got13 = 0;
    ok = 1;
    for (uint64_t seed = 0; seed < 32; seed++) {
        CHECK(dgnn_neg_edges(h, DGNN_NEGS_HISTORICAL, s4 + 2, d4 + 2, t4 + 2, 1, seed, ts, td, &e) == 0);
        got02 += ts[0] == 0 && td[0] == 2;
        got13 += ts[0] == 1 && td[0] == 3;
    }
    CHECK_MSG(got02 > 0 && got13 > 0 && got02 + got13 == 32, "(0,2) %d times, (1,3) %d times", got02, got13);
    dgnn_edge_history_free(h);
    dgnn_events_free(&ev);
}

/* A wikipedia-sized stream: 157k events over ~18k distinct edges (8k sources, 1k
 * destinations): every batch of 200 succeeds under both strategies, and the time a batch
 * takes is printed (a figure to read, not a check). */
static void test_dyglib_speed(void) {
    int64_t E = 157000;
    dgnn_events ev;
    dgnn_events_init(&ev);
    dgnn_err e;
    DGNN_ASSERT(dgnn_events_alloc(&ev, E, 0, 0, &e) == 0);
    ev.num_nodes = 9000;
    uint64_t x = 99;
    for (int64_t i = 0; i < E; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t k = (int64_t)((x >> 33) % 18000); /* one of 18000 edges */
        ev.src[i] = (int32_t)(k % 8000);
        ev.dst[i] = (int32_t)(8000 + (k * 7) % 1000);
        ev.t[i] = (double)i;
    }
    dgnn_edge_history *h;
    CHECK(dgnn_edge_history_build(&h, &ev, 0.7 * (double)E, &e) == 0);
    int32_t ns[200], nd[200];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int nb = 0, ok = 1;
    for (int64_t lo = 110000; lo + 200 <= E; lo += 2000, nb++)
        for (int s = 1; s <= 2; s++)
            if (dgnn_neg_edges(h, (dgnn_neg_strategy)s, ev.src + lo, ev.dst + lo, ev.t + lo, 200, (uint64_t)lo, ns, nd,
                               &e))
                ok = 0;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double per = ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec)) / (2.0 * nb);
    printf("negative edges: %.1f us per batch of 200 (%d batches x 2 strategies)\n", per * 1e6, nb);
    CHECK(ok); /* the time is printed, not checked: no timed unit tests */
    dgnn_edge_history_free(h);
    dgnn_events_free(&ev);
}

/* TGB: history (0,2)@1 (0,3)@2 (0,4)@3 (1,5)@4; split (0,3)@5 (0,5)@5 (1,7)@6; the
 * destinations span [2, 7].
 *  row 0 (0,3,5): H = {2,3,4}, X = {3,5}: historical {2,4} (k/2 = 2, two remain), random
 *    over [2,7] minus {2,3,4,5} = {6,7}, all of them: {2,4 in some order}, 6, 7;
 *  row 1 (0,5,5): the same sets;
 *  row 2 (1,7,6): H = {5}, X = {7}: historical 5, random 3 of {2,3,4,6}. */
static const int32_t TS[7] = {0, 0, 0, 1, 0, 0, 1}, TD[7] = {2, 3, 4, 5, 3, 5, 7};
static const double TT[7] = {1, 2, 3, 4, 5, 5, 6};

static void test_tgb(void) {
    dgnn_events ev;
    mk(&ev, TS, TD, TT, 7, 8);
    dgnn_tgb_negs n;
    dgnn_err e;
    int ok = 1;
    for (uint64_t seed = 0; seed < 32; seed++) {
        CHECK_MSG(dgnn_tgb_negs_generate(&n, &ev, 4, 3, 4, seed, &e) == 0, "%s", e.msg);
        CHECK(n.rows == 3 && n.k == 4);
        for (int r = 0; r < 2; r++) {
            const int32_t *c = n.cand + r * 4;
            if (!((c[0] == 2 && c[1] == 4) || (c[0] == 4 && c[1] == 2)) || c[2] != 6 || c[3] != 7) ok = 0;
        }
        const int32_t *c = n.cand + 8;
        if (c[0] != 5) ok = 0;
        for (int j = 1; j < 4; j++) {
            if (c[j] != 2 && c[j] != 3 && c[j] != 4 && c[j] != 6) ok = 0;
            for (int i = 1; i < j; i++)
                if (c[i] == c[j]) ok = 0;
        }
        dgnn_tgb_negs_free(&n);
    }
    CHECK(ok);
    /* k = 8: row 0 has 2 historical + 2 random, then 4 x -1 */
    CHECK(dgnn_tgb_negs_generate(&n, &ev, 4, 3, 8, 1, &e) == 0);
    CHECK(n.cand[2] == 6 && n.cand[3] == 7 && n.cand[4] == -1 && n.cand[7] == -1);
    /* row 2: 5, then all of {2,3,4,6} ascending, then 3 x -1 */
    CHECK(n.cand[16] == 5 && n.cand[17] == 2 && n.cand[18] == 3 && n.cand[19] == 4 && n.cand[20] == 6 &&
          n.cand[21] == -1);
    dgnn_tgb_negs_free(&n);
    dgnn_events_free(&ev);
}

/* Random streams: every row's rules, and the same lists for 1 and 4 threads; an odd k
 * takes int(k * 0.5) historical candidates (k = 7: 3). */
static void test_tgb_random(int64_t k) {
    int64_t E = 3000, N = 120, first = 2000;
    dgnn_events ev;
    dgnn_events_init(&ev);
    dgnn_err e;
    DGNN_ASSERT(dgnn_events_alloc(&ev, E, 0, 0, &e) == 0);
    ev.num_nodes = N;
    uint64_t x = 7;
    for (int64_t i = 0; i < E; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        ev.src[i] = (int32_t)((x >> 33) % 40);
        ev.dst[i] = (int32_t)(40 + (x >> 17) % 80);
        ev.t[i] = (double)(i / 3); /* three events per timestamp */
    }
    dgnn_tgb_negs a, b;
    omp_set_num_threads(1);
    CHECK(dgnn_tgb_negs_generate(&a, &ev, first, E - first, k, 42, &e) == 0);
    omp_set_num_threads(4);
    CHECK(dgnn_tgb_negs_generate(&b, &ev, first, E - first, k, 42, &e) == 0);
    CHECK(memcmp(a.cand, b.cand, (size_t)(a.rows * k) * 4) == 0);
    int ok = 1, hist_ok = 1;
    for (int64_t i = 0; i < a.rows; i++) {
        int64_t ev_i = first + i;
        const int32_t *c = a.cand + i * k;
        int32_t s = ev.src[ev_i];
        uint8_t inH[120] = {0}, inX[120] = {0};
        for (int64_t f = 0; f < first; f++)
            if (ev.src[f] == s) inH[ev.dst[f]] = 1;
        for (int64_t f = first; f < E; f++)
            if (ev.src[f] == s && ev.t[f] == ev.t[ev_i]) inX[ev.dst[f]] = 1;
        int64_t nHf = 0;
        for (int v = 0; v < N; v++) nHf += inH[v] && !inX[v];
        int64_t nh = nHf < k / 2 ? nHf : k / 2;
        for (int64_t j = 0; j < k; j++) {
            if (c[j] == ev.dst[ev_i] || (c[j] >= 0 && inX[c[j]])) ok = 0;
            for (int64_t m = 0; m < j; m++)
                if (c[j] >= 0 && c[m] == c[j]) ok = 0;
            if (j < nh && !inH[c[j]]) hist_ok = 0; /* the first nh: the source's past */
            if (j >= nh && c[j] >= 0 && inH[c[j]]) hist_ok = 0;
        }
    }
    CHECK(ok);
    CHECK(hist_ok);
    dgnn_tgb_negs_free(&a);
    dgnn_tgb_negs_free(&b);
    dgnn_events_free(&ev);
}

/* Write and read back with original ids 10, 20, 30; the reader's errors. */
static void test_tgb_io(void) {
    char dir[] = "/tmp/dgnn_evalneg_XXXXXX", p[128];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    const int32_t s[2] = {0, 1}, d[2] = {1, 2};
    const double t[2] = {1, 2};
    dgnn_events ev;
    mk(&ev, s, d, t, 2, 3);
    ev.node_ids = malloc(3 * sizeof(int64_t));
    ev.node_ids[0] = 10, ev.node_ids[1] = 20, ev.node_ids[2] = 30;
    int32_t cand[6] = {2, 0, -1, 0, -1, -1};
    dgnn_tgb_negs n = {2, 3, cand}, r;
    dgnn_err e;
    snprintf(p, sizeof p, "%s/ns.npy", dir);
    CHECK_MSG(dgnn_tgb_negs_write(&n, p, &ev, &e) == 0, "%s", e.msg);
    int64_t *raw, rr, rc_;
    CHECK(dgnn_read_npy_i64(p, &raw, &rr, &rc_, &e) == 0);
    CHECK(rr == 2 && rc_ == 3 && raw[0] == 30 && raw[1] == 10 && raw[2] == -1 && raw[3] == 10 && raw[4] == -1);
    free(raw);
    const int32_t pos[2] = {1, 2};
    CHECK_MSG(dgnn_tgb_negs_read(&r, p, &ev, 2, pos, &e) == 0, "%s", e.msg);
    CHECK(r.rows == 2 && r.k == 3 && memcmp(r.cand, cand, sizeof cand) == 0);
    dgnn_tgb_negs_free(&r);
    /* a row count other than the split's */
    CHECK(dgnn_tgb_negs_read(&r, p, &ev, 5, NULL, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, "ns.npy") && strstr(e.msg, "2 rows") && strstr(e.msg, "5"), "%s", e.msg);
    /* the positive among the candidates: row 0's positive is dense 2 (id 30) */
    const int32_t pos2[2] = {2, 2};
    CHECK(dgnn_tgb_negs_read(&r, p, &ev, 2, pos2, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, "row 0, column 0") && strstr(e.msg, "positive"), "%s", e.msg);
    /* an unknown id and an id after padding */
    const int64_t bad[4] = {10, 40, -1, 20};
    CHECK(dgnn_write_npy_i64(p, bad, 2, 2, &e) == 0);
    CHECK(dgnn_tgb_negs_read(&r, p, &ev, 2, NULL, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, "row 0, column 1") && strstr(e.msg, "node id 40"), "%s", e.msg);
    const int64_t bad2[4] = {10, 20, -1, 20};
    CHECK(dgnn_write_npy_i64(p, bad2, 2, 2, &e) == 0);
    CHECK(dgnn_tgb_negs_read(&r, p, &ev, 2, NULL, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, "row 1, column 1") && strstr(e.msg, "after padding"), "%s", e.msg);
    /* without node ids the ids are the dense ones: 30 is not a node of 3 */
    free(ev.node_ids);
    ev.node_ids = NULL;
    const int64_t ok3[2] = {2, 30};
    CHECK(dgnn_write_npy_i64(p, ok3, 2, 1, &e) == 0);
    CHECK(dgnn_tgb_negs_read(&r, p, &ev, 2, NULL, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, "row 1, column 0") && strstr(e.msg, "node id 30"), "%s", e.msg);
    dgnn_events_free(&ev);
    unlink(p);
    rmdir(dir);
}

int main(void) {
    test_dyglib();
    test_dyglib_speed();
    test_tgb();
    test_tgb_random(20);
    test_tgb_random(7);
    test_tgb_io();
    return check_done();
}
