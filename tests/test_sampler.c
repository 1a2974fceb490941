/* test_sampler.c: the most-recent and uniform temporal samplers against brute-force
 * references that scan all events (exact match, including order and padding; the
 * uniform reference replays the same rng stream over the brute-force candidate list),
 * thread-count and call independence, a chi-square uniformity check; the negative
 * samplers (uniform, destination set, historical against a brute-force reference);
 * and a smoke run of the benchmark function. */
#include "check.h"
#include "random_events.h"
#include "dgnn/negative.h"
#include "dgnn/sampler.h"

#include <omp.h>


/* Brute-force candidates of (v, t): events touching v strictly before t, in table
 * order (= time order, ties by event id). Undirected. */
static int64_t brute_cands(int32_t *nbr, int64_t *eid, const dgnn_events *ev, int32_t v, double t) {
    int64_t n = 0;
    if (v < 0) return 0;
    for (int64_t e = 0; e < ev->num_events && ev->t[e] < t; e++) {
        if (ev->src[e] == v) { nbr[n] = ev->dst[e]; eid[n++] = e; }
        else if (ev->dst[e] == v) { nbr[n] = ev->src[e]; eid[n++] = e; }
    }
    return n;
}

typedef struct {
    int32_t *nbr;
    int64_t *eid;
    double *ts;
    int32_t *count;
} rows;

static void rows_alloc(rows *r, int64_t B, int k) {
    r->nbr = malloc((size_t)(B * k) * sizeof(int32_t));
    r->eid = malloc((size_t)(B * k) * sizeof(int64_t));
    r->ts = malloc((size_t)(B * k) * sizeof(double));
    r->count = malloc((size_t)B * sizeof(int32_t));
}
static void rows_free(rows *r) { free(r->nbr); free(r->eid); free(r->ts); free(r->count); }
static int rows_equal(const rows *a, const rows *b, int64_t B, int k) {
    size_t n = (size_t)(B * k);
    return memcmp(a->nbr, b->nbr, n * sizeof(int32_t)) == 0 && memcmp(a->eid, b->eid, n * sizeof(int64_t)) == 0 &&
           memcmp(a->ts, b->ts, n * sizeof(double)) == 0 && memcmp(a->count, b->count, (size_t)B * sizeof(int32_t)) == 0;
}

/* The reference for both samplers: rows built from the brute-force candidate list. */
static void brute_rows(rows *out, const dgnn_events *ev, const int32_t *root, const double *rt, int64_t B, int k,
                       int uniform, uint64_t seed) {
    int32_t *cn = malloc((size_t)(ev->num_events + 1) * sizeof(int32_t));
    int64_t *ce = malloc((size_t)(ev->num_events + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < B; i++) {
        int64_t c = brute_cands(cn, ce, ev, root[i], rt[i]);
        int n = 0;
        size_t row = (size_t)(i * k);
        if (!uniform) {
            for (; n < k && n < c; n++) {
                out->nbr[row + n] = cn[c - 1 - n];
                out->eid[row + n] = ce[c - 1 - n];
                out->ts[row + n] = ev->t[ce[c - 1 - n]];
            }
        } else if (c > 0) {
            dgnn_rng r;
            dgnn_rng_seed2(&r, seed, (uint64_t)i);
            for (; n < k; n++) {
                int64_t j = (int64_t)dgnn_rng_below(&r, (uint64_t)c);
                out->nbr[row + n] = cn[j];
                out->eid[row + n] = ce[j];
                out->ts[row + n] = ev->t[ce[j]];
            }
        }
        out->count[i] = n;
        for (; n < k; n++) {
            out->nbr[row + n] = -1;
            out->eid[row + n] = -1;
            out->ts[row + n] = 0.0;
        }
    }
    free(cn);
    free(ce);
}

/* Roots mixing: event times (exact ties), between times, before the first event,
 * after the last, nodes without events, padding roots (-1). */
static void gen_roots(int32_t *root, double *rt, int64_t B, const dgnn_events *ev, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    double t0 = ev->t[0], t1 = ev->t[ev->num_events - 1];
    for (int64_t i = 0; i < B; i++) {
        int kind = (int)dgnn_rng_below(&r, 10);
        int64_t e = (int64_t)dgnn_rng_below(&r, (uint64_t)ev->num_events);
        root[i] = kind == 0 ? -1 : kind == 1 ? (int32_t)(ev->num_nodes - 1) /* no events */
                  : dgnn_rng_below(&r, 2) ? ev->src[e] : (int32_t)dgnn_rng_below(&r, (uint64_t)ev->num_nodes);
        int tk = (int)dgnn_rng_below(&r, 6);
        rt[i] = tk == 0 ? t0 - 1 : tk == 1 ? t1 + 1 : tk == 2 ? t0 : tk == 3 ? t1 : tk == 4 ? ev->t[e] : ev->t[e] + 0.75;
    }
}

static void test_samplers_vs_brute(void) {
    dgnn_err err;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        dgnn_events ev;
        gen_events(&ev, seed, 17 + (int64_t)seed * 3, 400 + (int64_t)seed * 150, seed == 5 ? 1 : 15);
        dgnn_tcsr g;
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
        const int64_t B = 300;
        int32_t root[300];
        double rt[300];
        gen_roots(root, rt, B, &ev, seed * 7);
        int ks[3] = {1, 4, 25};
        for (int ki = 0; ki < 3; ki++) {
            int k = ks[ki];
            rows got, want, again;
            rows_alloc(&got, B, k);
            rows_alloc(&want, B, k);
            rows_alloc(&again, B, k);
            /* most recent: exact */
            CHECK(dgnn_sample_recent(got.nbr, got.eid, got.ts, got.count, &g, root, rt, B, k, &err) == DGNN_OK);
            brute_rows(&want, &ev, root, rt, B, k, 0, 0);
            CHECK_MSG(rows_equal(&got, &want, B, k), "recent: seed %llu k %d", (unsigned long long)seed, k);
            /* uniform: exact against the same stream over the brute-force list */
            uint64_t s = 1000 + seed;
            CHECK(dgnn_sample_uniform(got.nbr, got.eid, got.ts, got.count, &g, root, rt, B, k, s, &err) == DGNN_OK);
            brute_rows(&want, &ev, root, rt, B, k, 1, s);
            CHECK_MSG(rows_equal(&got, &want, B, k), "uniform: seed %llu k %d", (unsigned long long)seed, k);
            /* (a) every uniform entry is a real neighbour strictly before the root time */
            int valid = 1;
            for (int64_t i = 0; i < B; i++)
                for (int m = 0; m < got.count[i]; m++) {
                    int64_t e = got.eid[i * k + m];
                    int32_t w = got.nbr[i * k + m], v = root[i];
                    valid &= e >= 0 && e < ev.num_events && ev.t[e] < rt[i] && got.ts[i * k + m] == ev.t[e] &&
                             ((ev.src[e] == v && ev.dst[e] == w) || (ev.dst[e] == v && ev.src[e] == w));
                }
            CHECK(valid);
            /* (c) same seed, same rows: again, and with 1 thread */
            int saved = omp_get_max_threads();
            omp_set_num_threads(1);
            CHECK(dgnn_sample_uniform(again.nbr, again.eid, again.ts, again.count, &g, root, rt, B, k, s, &err) == 0);
            CHECK(rows_equal(&got, &again, B, k));
            omp_set_num_threads(3);
            CHECK(dgnn_sample_uniform(again.nbr, again.eid, again.ts, again.count, &g, root, rt, B, k, s, &err) == 0);
            CHECK(rows_equal(&got, &again, B, k));
            omp_set_num_threads(saved);
            /* another seed gives other draws (with k >= 4 the chance of equality is nil) */
            if (k >= 4) {
                CHECK(dgnn_sample_uniform(again.nbr, again.eid, again.ts, again.count, &g, root, rt, B, k, s + 1, &err) == 0);
                CHECK(!rows_equal(&got, &again, B, k));
            }
            /* optional outputs may be NULL */
            CHECK(dgnn_sample_recent(again.nbr, NULL, NULL, NULL, &g, root, rt, B, k, &err) == DGNN_OK);
            brute_rows(&want, &ev, root, rt, B, k, 0, 0);
            CHECK(memcmp(again.nbr, want.nbr, (size_t)(B * k) * sizeof(int32_t)) == 0);
            rows_free(&got);
            rows_free(&want);
            rows_free(&again);
        }
        dgnn_tcsr_free(&g);
        dgnn_events_free(&ev);
    }
}

/* Hand-made: node 0's events at t = 1, 2, 2, 3 (e0..e3) with nodes 1..4. */
static void test_hand(void) {
    dgnn_err err;
    dgnn_events ev;
    dgnn_events_init(&ev);
    CHECK(dgnn_events_alloc(&ev, 4, 0, 0, &err) == DGNN_OK);
    ev.num_nodes = 6;
    int32_t s[4] = {0, 2, 0, 4}, d[4] = {1, 0, 3, 0};
    double t[4] = {1, 2, 2, 3};
    memcpy(ev.src, s, sizeof s);
    memcpy(ev.dst, d, sizeof d);
    memcpy(ev.t, t, sizeof t);
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    int32_t root[5] = {0, 0, 0, 5, -1};
    double rt[5] = {3, 2, 1, 10, 10};
    int32_t nbr[15];
    int64_t eid[15];
    double ts[15];
    int32_t cnt[5];
    CHECK(dgnn_sample_recent(nbr, eid, ts, cnt, &g, root, rt, 5, 3, &err) == DGNN_OK);
    /* t=3: e2 (3), e1 (2), e0 (1), latest first, ties by larger event id first */
    CHECK(cnt[0] == 3 && nbr[0] == 3 && nbr[1] == 2 && nbr[2] == 1 && eid[0] == 2 && eid[1] == 1 && eid[2] == 0);
    CHECK(ts[0] == 2 && ts[1] == 2 && ts[2] == 1);
    /* t=2: only e0 (the events at t=2 are not strictly before); padded at the end */
    CHECK(cnt[1] == 1 && nbr[3] == 1 && eid[3] == 0 && nbr[4] == -1 && eid[4] == -1 && ts[4] == 0.0 && nbr[5] == -1);
    /* t=1: nothing; node 5: no events; root -1: padding */
    CHECK(cnt[2] == 0 && nbr[6] == -1 && nbr[8] == -1 && cnt[3] == 0 && nbr[9] == -1 && cnt[4] == 0 && nbr[14] == -1);
    CHECK(dgnn_sample_uniform(nbr, eid, ts, cnt, &g, root, rt, 5, 3, 7, &err) == DGNN_OK);
    CHECK(cnt[0] == 3 && cnt[1] == 3 && cnt[2] == 0 && cnt[3] == 0 && cnt[4] == 0);
    CHECK(nbr[3] == 1 && nbr[4] == 1 && nbr[5] == 1); /* one candidate, drawn 3 times */
    CHECK(nbr[6] == -1 && eid[7] == -1);
    /* errors */
    int32_t bad[1] = {6};
    CHECK(dgnn_sample_recent(nbr, eid, ts, cnt, &g, bad, rt, 1, 3, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "node id 6") != NULL, "%s", err.msg);
    CHECK(dgnn_sample_uniform(nbr, eid, ts, cnt, &g, bad, rt, 1, 3, 1, &err) == DGNN_EINVAL);
    CHECK(dgnn_sample_recent(nbr, eid, ts, cnt, &g, root, rt, 5, 0, &err) == DGNN_EINVAL);
    dgnn_sample_buf sb;
    CHECK(dgnn_sample_buf_init(&sb, 5, 0, &err) == DGNN_EINVAL);
    CHECK(dgnn_sample_buf_init(&sb, 5, 3, &err) == DGNN_OK && sb.cap_B == 5 && sb.k == 3);
    CHECK(dgnn_sample_recent(sb.nbr, sb.eid, sb.ts, sb.count, &g, root, rt, 5, 3, &err) == DGNN_OK);
    CHECK(sb.count[0] == 3 && sb.nbr[0] == 3);
    dgnn_sample_buf_free(&sb);
    dgnn_sample_buf_free(&sb); /* zeroed: safe */
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

/* Chi-square: node 0 with 200 distinct neighbours before t; 100,000 draws. */
static void test_uniformity(void) {
    dgnn_err err;
    dgnn_events ev;
    dgnn_events_init(&ev);
    const int64_t C = 200;
    CHECK(dgnn_events_alloc(&ev, C + 10, 0, 0, &err) == DGNN_OK);
    ev.num_nodes = C + 1;
    for (int64_t e = 0; e < C + 10; e++) {
        ev.src[e] = 0;
        ev.dst[e] = (int32_t)(e % C) + 1;
        ev.t[e] = (double)(e / 3); /* ties */
    }
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    const int64_t B = 2000;
    const int k = 50;
    int32_t *root = malloc((size_t)B * sizeof(int32_t)), *nbr = malloc((size_t)(B * k) * sizeof(int32_t));
    double *rt = malloc((size_t)B * sizeof(double));
    int64_t *eid = malloc((size_t)(B * k) * sizeof(int64_t));
    for (int64_t i = 0; i < B; i++) {
        root[i] = 0;
        rt[i] = (double)(C / 3) + 0.5; /* events with t <= 66: e0..e200, i.e. 201 candidates */
    }
    int64_t c = dgnn_tcsr_count_before(&g, 0, rt[0]);
    CHECK(c == 201);
    CHECK(dgnn_sample_uniform(nbr, eid, NULL, NULL, &g, root, rt, B, k, 12345, &err) == DGNN_OK);
    int64_t *hist = calloc((size_t)c, sizeof(int64_t));
    int in_range = 1;
    for (int64_t j = 0; j < B * k; j++) {
        in_range &= eid[j] >= 0 && eid[j] < c;
        if (eid[j] >= 0 && eid[j] < c) hist[eid[j]]++;
    }
    CHECK(in_range);
    double expect = (double)(B * k) / (double)c, chi2 = 0;
    for (int64_t j = 0; j < c; j++) chi2 += (hist[j] - expect) * (hist[j] - expect) / expect;
    /* 200 degrees of freedom: mean 200, sd 20; 300 is 5 sd out */
    CHECK_MSG(chi2 < 300 && chi2 > 120, "chi2 %g", chi2);
    free(hist);
    free(root);
    free(nbr);
    free(rt);
    free(eid);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

static void test_negatives(void) {
    dgnn_err err;
    /* uniform over all nodes: range, determinism, thread independence, uniformity */
    {
        const int64_t B = 20000, N = 10;
        const int k = 3;
        int32_t *a = malloc((size_t)(B * k) * sizeof(int32_t)), *b = malloc((size_t)(B * k) * sizeof(int32_t));
        CHECK(dgnn_neg_uniform(a, B, k, N, 5, &err) == DGNN_OK);
        int saved = omp_get_max_threads();
        omp_set_num_threads(1);
        CHECK(dgnn_neg_uniform(b, B, k, N, 5, &err) == DGNN_OK);
        omp_set_num_threads(saved);
        CHECK(memcmp(a, b, (size_t)(B * k) * sizeof(int32_t)) == 0);
        int64_t hist[10] = {0};
        int ok = 1;
        for (int64_t j = 0; j < B * k; j++) {
            ok &= a[j] >= 0 && a[j] < N;
            if (a[j] >= 0 && a[j] < N) hist[a[j]]++;
        }
        CHECK(ok);
        double chi2 = 0, ex = (double)(B * k) / N;
        for (int v = 0; v < N; v++) chi2 += (hist[v] - ex) * (hist[v] - ex) / ex;
        CHECK_MSG(chi2 < 35, "chi2 %g (9 dof)", chi2);
        CHECK(dgnn_neg_uniform(b, B, k, N, 6, &err) == DGNN_OK);
        CHECK(memcmp(a, b, (size_t)(B * k) * sizeof(int32_t)) != 0);
        CHECK(dgnn_neg_uniform(b, B, k, 0, 6, &err) == DGNN_EINVAL);
        free(a);
        free(b);
    }
    /* destination set of a hand table, and draws from it */
    {
        dgnn_events ev;
        dgnn_events_init(&ev);
        CHECK(dgnn_events_alloc(&ev, 5, 0, 0, &err) == DGNN_OK);
        ev.num_nodes = 10;
        int32_t s[5] = {0, 1, 2, 0, 3}, d[5] = {7, 5, 7, 9, 4};
        for (int e = 0; e < 5; e++) { ev.src[e] = s[e]; ev.dst[e] = d[e]; ev.t[e] = e; }
        int32_t *set;
        int64_t n;
        CHECK(dgnn_neg_dst_set(&set, &n, &ev, -1, &err) == DGNN_OK);
        CHECK(n == 4 && set[0] == 4 && set[1] == 5 && set[2] == 7 && set[3] == 9);
        free(set);
        CHECK(dgnn_neg_dst_set(&set, &n, &ev, 3, &err) == DGNN_OK);
        CHECK(n == 2 && set[0] == 5 && set[1] == 7);
        int32_t out[4000];
        CHECK(dgnn_neg_from_set(out, 1000, 4, set, n, 3, &err) == DGNN_OK);
        int64_t c5 = 0, bad = 0;
        for (int j = 0; j < 4000; j++) {
            c5 += out[j] == 5;
            bad += out[j] != 5 && out[j] != 7;
        }
        CHECK(bad == 0 && c5 > 1800 && c5 < 2200);
        free(set);
        CHECK(dgnn_neg_dst_set(&set, &n, &ev, 6, &err) == DGNN_EINVAL && set == NULL);
        CHECK(dgnn_neg_from_set(out, 1, 1, NULL, 0, 3, &err) == DGNN_EINVAL);
        dgnn_events_free(&ev);
    }
    /* historical: exact against a brute-force reference with the same streams */
    for (uint64_t seed = 1; seed <= 3; seed++) {
        dgnn_events ev;
        gen_events(&ev, seed + 50, 30, 800, 40);
        dgnn_tcsr g;
        CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
        const int64_t B = 200;
        const int k = 5;
        int32_t src[200], dst[200], out[1000], ref[1000], out1[1000];
        double tc[200];
        int32_t fb[3] = {26, 27, 28}; /* fallback set: the nodes without events and one more */
        dgnn_rng r;
        dgnn_rng_seed(&r, seed);
        for (int64_t i = 0; i < B; i++) {
            int64_t e = (int64_t)dgnn_rng_below(&r, (uint64_t)ev.num_events);
            src[i] = i % 17 == 0 ? 29 : ev.src[e]; /* node 29 has no events: fallback */
            dst[i] = ev.dst[e];
            tc[i] = i % 11 == 0 ? ev.t[0] : ev.t[e]; /* t = first event: nothing before */
        }
        CHECK(dgnn_neg_historical(out, &g, src, dst, tc, B, k, fb, 3, 77 + seed, &err) == DGNN_OK);
        int32_t *cand = malloc((size_t)ev.num_events * sizeof(int32_t));
        int is_past = 1, used_fallback = 0, used_hist = 0;
        for (int64_t i = 0; i < B; i++) {
            /* distinct past neighbours other than dst, ascending (insertion into a sorted array) */
            int64_t d = 0;
            for (int64_t e = 0; e < ev.num_events && ev.t[e] < tc[i]; e++) {
                int32_t w = ev.src[e] == src[i] ? ev.dst[e] : ev.dst[e] == src[i] ? ev.src[e] : -1;
                if (w < 0 || w == dst[i]) continue;
                int64_t p = 0;
                while (p < d && cand[p] < w) p++;
                if (p < d && cand[p] == w) continue;
                memmove(cand + p + 1, cand + p, (size_t)(d - p) * sizeof(int32_t));
                cand[p] = w;
                d++;
            }
            dgnn_rng_seed2(&r, 77 + seed, (uint64_t)i);
            for (int m = 0; m < k; m++) ref[i * k + m] = d > 0 ? cand[dgnn_rng_below(&r, (uint64_t)d)] : fb[dgnn_rng_below(&r, 3)];
            for (int m = 0; m < k; m++) {
                int found = 0;
                for (int64_t j = 0; j < d; j++) found |= cand[j] == out[i * k + m];
                is_past &= d > 0 ? found && out[i * k + m] != dst[i] : (out[i * k + m] >= 26 && out[i * k + m] <= 28);
            }
            used_fallback += d == 0;
            used_hist += d > 0;
        }
        CHECK(is_past);
        CHECK(memcmp(out, ref, sizeof out) == 0);
        CHECK(used_fallback > 10 && used_hist > 100);
        int saved = omp_get_max_threads();
        omp_set_num_threads(1);
        CHECK(dgnn_neg_historical(out1, &g, src, dst, tc, B, k, fb, 3, 77 + seed, &err) == DGNN_OK);
        omp_set_num_threads(saved);
        CHECK(memcmp(out, out1, sizeof out) == 0);
        /* NULL fallback: uniform over all nodes */
        CHECK(dgnn_neg_historical(out1, &g, src, dst, tc, B, k, NULL, 0, 1, &err) == DGNN_OK);
        int ok = 1;
        for (int j = 0; j < B * k; j++) ok &= out1[j] >= 0 && out1[j] < 30;
        CHECK(ok);
        src[3] = 30;
        CHECK(dgnn_neg_historical(out1, &g, src, dst, tc, B, k, NULL, 0, 1, &err) == DGNN_EINVAL);
        free(cand);
        dgnn_tcsr_free(&g);
        dgnn_events_free(&ev);
    }
}

static void test_bench(void) {
    dgnn_err err;
    dgnn_events ev;
    gen_events(&ev, 3, 200, 5000, 500);
    dgnn_bench_sampler_result res;
    int saved = omp_get_max_threads();
    CHECK(dgnn_bench_sampler(&res, &ev, 10, 1, 0.02, 0, &err) == DGNN_OK);
    CHECK(res.threads == 1 && res.recent_qps > 0 && res.uniform_qps > 0 && res.recent_roots >= 1200);
    CHECK(omp_get_max_threads() == saved); /* restored */
    CHECK(dgnn_bench_sampler(&res, &ev, 0, 1, 0.02, 0, &err) == DGNN_EINVAL);
    dgnn_events_free(&ev);
}

int main(void) {
    test_hand();
    test_samplers_vs_brute();
    test_uniformity();
    test_negatives();
    test_bench();
    return check_done();
}
