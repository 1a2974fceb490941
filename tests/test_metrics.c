/* test_metrics.c: AP, AUC, MRR, EvolveGCN's MRR, F1, MSE against hand-computed values
 * (cross-checked with sklearn 1.2 and a numpy/scipy replica of EvolveGCN's logger.py),
 * edge cases, and randomized comparisons with brute-force references. */
#include "check.h"
#include "dgnn/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- brute-force references ---- */

/* AUC by definition: over all (pos, neg) pairs, 1 if pos > neg, 0.5 if equal. O(n^2). */
static double auc_brute(const float *s, const int32_t *y, int n) {
    double num = 0;
    long long P = 0, N = 0;
    for (int i = 0; i < n; i++) {
        if (y[i]) P++;
        else N++;
    }
    if (!P || !N) return NAN;
    for (int i = 0; i < n; i++)
        if (y[i])
            for (int j = 0; j < n; j++)
                if (!y[j]) num += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
    return num / ((double)P * (double)N);
}

/* AP by definition: thresholds = distinct scores, descending; at threshold t, predicted
 * positive = {score >= t}; AP = sum (R_t - R_prev) P_t. O(n * distinct). */
static double ap_brute(const float *s, const int32_t *y, int n) {
    int P = 0;
    for (int i = 0; i < n; i++) P += y[i] != 0;
    if (!P) return NAN;
    double ap = 0, prev_r = 0, t = INFINITY;
    for (;;) {
        /* next threshold: the largest score < t */
        double nt = -INFINITY;
        int found = 0;
        for (int i = 0; i < n; i++)
            if (s[i] < t && (!found || s[i] > nt)) nt = s[i], found = 1;
        if (!found) break;
        t = nt;
        int tp = 0, fp = 0;
        for (int i = 0; i < n; i++)
            if (s[i] >= t) {
                if (y[i]) tp++;
                else fp++;
            }
        double r = (double)tp / P, p = (double)tp / (tp + fp);
        ap += (r - prev_r) * p;
        prev_r = r;
    }
    return ap;
}

/* EvolveGCN's get_MRR on the dense matrix, literally: rank by (value desc, col desc). */
static double egcn_brute(const float *prob, const int32_t *lab, const int32_t *src, const int32_t *dst, int n) {
    int R = 0, C = 0;
    for (int i = 0; i < n; i++) {
        if (src[i] + 1 > R) R = src[i] + 1;
        if (dst[i] + 1 > C) C = dst[i] + 1;
    }
    float *v = calloc((size_t)R * C, sizeof *v);
    long long *t = calloc((size_t)R * C, sizeof *t);
    for (int i = 0; i < n; i++) v[src[i] * C + dst[i]] += prob[i], t[src[i] * C + dst[i]] += lab[i];
    double sum = 0;
    int rows = 0;
    for (int r = 0; r < R; r++) {
        const float *vr = v + r * C;
        const long long *tr = t + r * C;
        int any = 0;
        for (int c = 0; c < C; c++) any |= tr[c] == 1;
        if (!any) continue;
        double s = 0;
        int cnt = 0;
        for (int c = 0; c < C; c++) {
            if (tr[c] != 1) continue;
            int rank = 1;
            for (int c2 = 0; c2 < C; c2++) rank += vr[c2] > vr[c] || (vr[c2] == vr[c] && c2 > c);
            s += 1.0 / rank;
            cnt++;
        }
        sum += s / cnt;
        rows++;
    }
    free(v);
    free(t);
    return rows ? sum / rows : NAN;
}

static void test_ap_auc_hand(void) {
    /* descending: 0.9(-) | 0.5(+,+,-) | 0.2(+): P = 3
     * AP = (2/3)(2/4) + (1/3)(3/5) = 0.5333..; AUC = (0.5 + 0.5) / 6 (sklearn agrees) */
    float s[] = {0.5f, 0.5f, 0.2f, 0.9f, 0.5f};
    int32_t y[] = {1, 0, 1, 0, 1};
    CHECK_NEAR(dgnn_metric_ap(s, y, 5), 0.5333333333333333, 1e-15);
    CHECK_NEAR(dgnn_metric_auc(s, y, 5), 0.16666666666666666, 1e-15);

    /* sklearn 1.2: ap 0.7257142857142858, auc 0.72 */
    float s2[] = {0.1f, 0.4f, 0.35f, 0.8f, 0.4f, 0.4f, 0.2f, 0.9f, 0.35f, 0.0f};
    int32_t y2[] = {0, 1, 1, 0, 0, 1, 0, 1, 1, 0};
    double ap, auc;
    dgnn_metric_ap_auc(s2, y2, 10, &ap, &auc);
    CHECK_NEAR(ap, 0.7257142857142858, 1e-15);
    CHECK_NEAR(auc, 0.72, 1e-15);

    /* all scores equal: one threshold, AP = P/n, AUC = 0.5 */
    float s3[] = {0.3f, 0.3f, 0.3f, 0.3f};
    int32_t y3[] = {1, 0, 0, 1};
    CHECK_NEAR(dgnn_metric_ap(s3, y3, 4), 0.5, 1e-15);
    CHECK_NEAR(dgnn_metric_auc(s3, y3, 4), 0.5, 1e-15);

    /* perfect and reversed rankings; negative scores and infinities order as floats */
    float s4[] = {-INFINITY, -3.0f, -1e-30f, 2.0f, INFINITY};
    int32_t yp[] = {0, 0, 0, 1, 1}, yr[] = {1, 1, 0, 0, 0};
    CHECK_NEAR(dgnn_metric_ap(s4, yp, 5), 1.0, 1e-15);
    CHECK_NEAR(dgnn_metric_auc(s4, yp, 5), 1.0, 1e-15);
    CHECK_NEAR(dgnn_metric_auc(s4, yr, 5), 0.0, 1e-15);
    /* reversed: thresholds 2 desc: ranks 4, 5 of 5 -> AP = 0.5*(1/4) + 0.5*(2/5) */
    CHECK_NEAR(dgnn_metric_ap(s4, yr, 5), 0.5 * 0.25 + 0.5 * 0.4, 1e-15);

    /* -0.0 ties with +0.0 */
    float s5[] = {-0.0f, 0.0f};
    int32_t y5[] = {1, 0};
    CHECK_NEAR(dgnn_metric_auc(s5, y5, 2), 0.5, 1e-15);
    CHECK_NEAR(dgnn_metric_ap(s5, y5, 2), 0.5, 1e-15);

    /* labels: any non-zero is positive */
    int32_t y6[] = {0, 0, 0, 7, -1};
    CHECK_NEAR(dgnn_metric_auc(s4, y6, 5), 1.0, 1e-15);
}

static void test_ap_auc_edge(void) {
    float s[] = {0.1f, 0.2f, 0.3f};
    int32_t pos[] = {1, 1, 1}, neg[] = {0, 0, 0};
    CHECK_NEAR(dgnn_metric_ap(s, pos, 3), 1.0, 0); /* sklearn: 1.0 */
    CHECK(isnan(dgnn_metric_auc(s, pos, 3)));     /* sklearn raises: one class */
    CHECK(isnan(dgnn_metric_ap(s, neg, 3)));      /* undefined (sklearn 1.2: 0 + warning) */
    CHECK(isnan(dgnn_metric_auc(s, neg, 3)));
    CHECK(isnan(dgnn_metric_ap(s, pos, 0)));
    CHECK(isnan(dgnn_metric_auc(s, pos, 0)));
    float sn[] = {0.1f, NAN, 0.3f};
    int32_t y[] = {1, 0, 1};
    CHECK(isnan(dgnn_metric_ap(sn, y, 3)));
    CHECK(isnan(dgnn_metric_auc(sn, y, 3)));
    double ap = 0, auc = 0;
    dgnn_metric_ap_auc_pn(s, 3, NULL, 0, &ap, &auc);
    CHECK(ap == 1.0 && isnan(auc));
}

static void test_ap_auc_random(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 12345);
    int bad_ap = 0, bad_auc = 0, bad_pn = 0;
    for (int trial = 0; trial < 400; trial++) {
        int n = 1 + (int)dgnn_rng_below(&r, 300);
        int levels = trial % 3 == 0 ? 0 : 1 + (int)dgnn_rng_below(&r, 12); /* 0: continuous */
        float *s = malloc(n * sizeof *s);
        int32_t *y = malloc(n * sizeof *y);
        float *pos = malloc(n * sizeof *pos), *neg = malloc(n * sizeof *neg);
        int np_ = 0, nn_ = 0;
        double prate = dgnn_rng_uniform(&r);
        for (int i = 0; i < n; i++) {
            s[i] = levels ? (float)dgnn_rng_below(&r, levels) / 4.0f - 1.0f : (float)dgnn_rng_normal(&r);
            y[i] = dgnn_rng_uniform(&r) < prate;
            if (y[i]) pos[np_++] = s[i];
            else neg[nn_++] = s[i];
        }
        double ap, auc, ap2, auc2;
        dgnn_metric_ap_auc(s, y, n, &ap, &auc);
        dgnn_metric_ap_auc_pn(pos, np_, neg, nn_, &ap2, &auc2);
        double ab = ap_brute(s, y, n), ub = auc_brute(s, y, n);
        if (!(isnan(ab) ? isnan(ap) : fabs(ap - ab) <= 1e-12)) bad_ap++;
        if (!(isnan(ub) ? isnan(auc) : fabs(auc - ub) <= 1e-12)) bad_auc++;
        if (!((isnan(ap) && isnan(ap2)) || ap == ap2) || !((isnan(auc) && isnan(auc2)) || auc == auc2)) bad_pn++;
        free(s), free(y), free(pos), free(neg);
    }
    CHECK_MSG(bad_ap == 0, "%d of 400 random AP cases differ from the definition", bad_ap);
    CHECK_MSG(bad_auc == 0, "%d of 400 random AUC cases differ from the brute force", bad_auc);
    CHECK_MSG(bad_pn == 0, "%d cases: (pos, neg) form differs from (score, label) form", bad_pn);
}

static void test_ap_auc_large(void) {
    /* 4M scores: positives ~ N(1, 1), negatives ~ N(0, 1): AUC = Phi(1/sqrt(2)) = 0.7602 */
    int64_t n = 4000000;
    float *s = malloc(n * sizeof *s);
    int32_t *y = malloc(n * sizeof *y);
    dgnn_rng r;
    dgnn_rng_seed(&r, 7);
    for (int64_t i = 0; i < n; i++) {
        y[i] = (int32_t)(i & 1);
        s[i] = (float)(dgnn_rng_normal(&r) + (y[i] ? 1.0 : 0.0));
    }
    double t0 = dgnn_now(), ap, auc;
    dgnn_metric_ap_auc(s, y, n, &ap, &auc);
    double dt = dgnn_now() - t0;
    printf("ap/auc of %lld scores: %.3f s (auc %.4f, ap %.4f)\n", (long long)n, dt, auc, ap);
    CHECK_NEAR(auc, 0.5 * erfc(-0.5), 2e-3);
    CHECK(ap > 0.70 && ap < 0.80);
    free(s);
    free(y);
}

static void test_mrr(void) {
    /* rank 1 = 1 + 1 (0.9) + 0.5 (tie 0.5); rank 2 = 1 + 0.5 * 3 ties */
    float pos[] = {0.5f, 0.3f, 2.0f};
    float neg[] = {0.1f, 0.5f, 0.9f, 0.3f, 0.3f, 0.3f, 0.0f, 1.0f, -1.0f};
    CHECK_NEAR(dgnn_metric_mrr(pos, neg, 2, 3), (1 / 2.5 + 1 / 2.5) / 2, 1e-15);
    CHECK_NEAR(dgnn_metric_mrr(pos, neg, 3, 3), (1 / 2.5 + 1 / 2.5 + 1.0) / 3, 1e-15);
    CHECK_NEAR(dgnn_metric_mrr(pos, neg, 3, 0), 1.0, 0); /* no negatives: rank 1 */
    CHECK(isnan(dgnn_metric_mrr(pos, neg, 0, 3)));
    float posn[] = {NAN};
    CHECK(isnan(dgnn_metric_mrr(posn, neg, 1, 3)));
    /* many rows: crosses summation blocks; every positive ties all k: rank (k+2)/2 */
    int64_t n = 20000, k = 4;
    float *p = malloc(n * sizeof *p), *q = malloc(n * k * sizeof *q);
    for (int64_t i = 0; i < n; i++) {
        p[i] = 1.0f;
        for (int64_t j = 0; j < k; j++) q[i * k + j] = 1.0f;
    }
    CHECK_NEAR(dgnn_metric_mrr(p, q, n, k), 1.0 / 3.0, 1e-12);
    free(p);
    free(q);
}

static void test_evolvegcn(void) {
    /* values from a numpy/scipy replica of logger.py get_MRR (stable and default argsort agree) */
    {
        /* row 0: cols 0..4 = [0.2, 0.7, 0(absent), 0.7, 0.1], labels [1,0,0,1,0]:
         *   order col3, col1, col0, col4, col2 -> ranks 1, 3 -> 2/3
         * row 1: [0.5, 0, 0.5, 0, 0.9], labels [1,0,1,0,0]: order 4, 2, 0 -> ranks 3, 2
         * row 3: no label 1 -> skipped. (2/3 + 5/12) / 2 = 0.541666.. */
        int32_t src[] = {0, 0, 0, 0, 1, 1, 1, 3, 3}, dst[] = {0, 1, 3, 4, 0, 2, 4, 1, 2};
        float prob[] = {0.2f, 0.7f, 0.7f, 0.1f, 0.5f, 0.5f, 0.9f, 0.3f, 0.6f};
        int32_t lab[] = {1, 0, 1, 0, 1, 1, 0, 0, 0};
        CHECK_NEAR(dgnn_evolvegcn_mrr(prob, lab, src, dst, 9), 0.5416666666666666, 1e-15);
    }
    {
        /* unsorted, a duplicate pair (0,3) summed, zero probabilities tied with absent columns */
        int32_t src[] = {2, 0, 0, 2, 0, 1, 0}, dst[] = {5, 0, 3, 1, 3, 2, 6};
        float prob[] = {0.0f, 0.4f, 0.1f, 0.2f, 0.15f, 0.0f, 0.0f};
        int32_t lab[] = {1, 0, 1, 0, 0, 1, 0};
        CHECK_NEAR(dgnn_evolvegcn_mrr(prob, lab, src, dst, 7), 0.3444444444444444, 1e-15);
        CHECK_NEAR(egcn_brute(prob, lab, src, dst, 7), 0.3444444444444444, 1e-15);
    }
    {
        /* duplicate with labels summing to 2: not "existing"; a negative value ranks below absent 0s */
        int32_t src[] = {0, 0, 0, 1, 1}, dst[] = {1, 1, 2, 0, 3};
        float prob[] = {0.3f, 0.3f, 0.5f, -0.5f, 0.2f};
        int32_t lab[] = {1, 1, 1, 1, 0};
        CHECK_NEAR(dgnn_evolvegcn_mrr(prob, lab, src, dst, 5), 0.375, 1e-15);
    }
    {
        int32_t src[] = {0, 1}, dst[] = {1, 0}, lab0[] = {0, 0};
        float prob[] = {0.5f, 0.5f};
        CHECK(isnan(dgnn_evolvegcn_mrr(prob, lab0, src, dst, 2)));
        CHECK(isnan(dgnn_evolvegcn_mrr(prob, lab0, src, dst, 0)));
    }
    /* random snapshots against the dense-matrix definition, sorted and shuffled */
    dgnn_rng r;
    dgnn_rng_seed(&r, 99);
    int bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        /* every 4th: wide rows with mostly label-1 cells (the sorting path, > 16 per row) */
        int dense = trial % 4 == 0;
        int R = 1 + (int)dgnn_rng_below(&r, 12), C = 1 + (int)dgnn_rng_below(&r, dense ? 80 : 20);
        int n = 1 + (int)dgnn_rng_below(&r, 2 * R * C);
        int32_t *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst), *lab = malloc(n * sizeof *lab);
        float *prob = malloc(n * sizeof *prob);
        for (int i = 0; i < n; i++) {
            src[i] = (int32_t)dgnn_rng_below(&r, R);
            dst[i] = (int32_t)dgnn_rng_below(&r, C);
            lab[i] = dgnn_rng_uniform(&r) < (dense ? 0.9 : 0.3);
            prob[i] = trial % 2 ? (float)dgnn_rng_below(&r, 4) / 4.0f : (float)dgnn_rng_uniform(&r);
        }
        double want = egcn_brute(prob, lab, src, dst, n), got = dgnn_evolvegcn_mrr(prob, lab, src, dst, n);
        if (!(isnan(want) ? isnan(got) : fabs(want - got) <= 1e-12)) bad++;
        free(src), free(dst), free(lab), free(prob);
    }
    CHECK_MSG(bad == 0, "%d of 200 random snapshots differ from the dense definition", bad);
    /* all pairs of a 300-node snapshot, in row order (the no-copy path) */
    int N = 300;
    int64_t n = (int64_t)N * N;
    int32_t *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst), *lab = malloc(n * sizeof *lab);
    float *prob = malloc(n * sizeof *prob);
    for (int64_t i = 0; i < n; i++) {
        src[i] = (int32_t)(i / N);
        dst[i] = (int32_t)(i % N);
        lab[i] = dgnn_rng_uniform(&r) < 0.01;
        prob[i] = (float)dgnn_rng_uniform(&r);
    }
    double t0 = dgnn_now();
    double got = dgnn_evolvegcn_mrr(prob, lab, src, dst, n);
    printf("evolvegcn mrr over %lld pairs: %.3f s\n", (long long)n, dgnn_now() - t0);
    CHECK_NEAR(got, egcn_brute(prob, lab, src, dst, (int)n), 1e-12);
    free(src), free(dst), free(lab), free(prob);

    double v[] = {0.5, 0.8, NAN}, w[] = {100, 300, 0};
    CHECK_NEAR(dgnn_metric_weighted_mean(v, w, 2), (50 + 240) / 400.0, 1e-15);
    double w0[] = {0, 0};
    CHECK(isnan(dgnn_metric_weighted_mean(v, w0, 2)));
}

static void test_prf_mse(void) {
    int32_t pred[] = {1, 1, 1, 1, 0, 0, 1, 0}, truth[] = {1, 1, 0, 1, 0, 0, 0, 1};
    /* class 1: tp 3, fp 2, fn 1: P 0.6, R 0.75, F1 2/3 */
    dgnn_prf a = dgnn_metric_prf(pred, truth, 8, 1);
    CHECK(a.tp == 3 && a.fp == 2 && a.fn == 1 && a.tn == 2);
    CHECK_NEAR(a.precision, 0.6, 1e-15);
    CHECK_NEAR(a.recall, 0.75, 1e-15);
    CHECK_NEAR(a.f1, 2 * 0.6 * 0.75 / 1.35, 1e-15);
    /* class 0: tp 2, fp 1, fn 2: P 2/3, R 1/2, F1 4/7 */
    dgnn_prf b = dgnn_metric_prf(pred, truth, 8, 0);
    CHECK_NEAR(b.precision, 2.0 / 3.0, 1e-15);
    CHECK_NEAR(b.recall, 0.5, 1e-15);
    CHECK_NEAR(b.f1, 4.0 / 7.0, 1e-15);
    /* nothing predicted positive, or no positive at all: zeros (zero_division = 0) */
    int32_t zeros[] = {0, 0, 0};
    int32_t some[] = {0, 1, 0};
    dgnn_prf c = dgnn_metric_prf(zeros, some, 3, 1);
    CHECK(c.tp == 0 && c.fn == 1 && c.precision == 0 && c.recall == 0 && c.f1 == 0);
    dgnn_prf d = dgnn_metric_prf(zeros, zeros, 3, 1);
    CHECK(d.tn == 3 && d.f1 == 0);

    float p[] = {1.0f, 2.0f, 3.0f, -1.0f}, t[] = {1.5f, 2.0f, 1.0f, 1.0f};
    CHECK_NEAR(dgnn_metric_mse(p, t, 4), (0.25 + 0 + 4 + 4) / 4.0, 1e-15);
    CHECK(isnan(dgnn_metric_mse(p, t, 0)));
    /* crosses summation blocks */
    int64_t n = 100003;
    float *x = malloc(n * sizeof *x), *z = calloc(n, sizeof *z);
    for (int64_t i = 0; i < n; i++) x[i] = (i % 2) ? 2.0f : 0.0f;
    CHECK_NEAR(dgnn_metric_mse(x, z, n), 4.0 * 50001 / n, 1e-12);
    free(x);
    free(z);
}

/* ---- TGB's rank metrics (tgb/linkproppred/evaluate.py, _eval_hits_and_mrr) ----
 * rank = 1 + 0.5 (#{neg > pos} + #{neg >= pos}); hits@h = [rank <= h]. By hand:
 *   row 0: pos 0.5, neg [0.5, 0.5, 0.1]: opt 0, pess 2, rank 2: rr 0.5, hits 0/1/1;
 *   row 1: pos 0.9, neg [0.1, 0.2, 0.3]: rank 1: rr 1, hits 1/1/1;
 *   row 2: pos 0.0, neg [1 x 3] (nk 3), the rest unused: rank 4: rr 0.25, hits 0/0/1;
 *   row 3: nk 0: skipped.
 * MRR = 1.75 / 3, hits@1 = 1/3, hits@3 = 2/3, hits@10 = 1. */
static void test_rank_acc(void) {
    const float pos[4] = {0.5f, 0.9f, 0.0f, 0.3f};
    const float neg[4 * 3] = {0.5f, 0.5f, 0.1f, 0.1f, 0.2f, 0.3f, 1, 1, 1, 9, 9, 9};
    const int64_t nk[4] = {3, 3, 3, 0};
    dgnn_rank_acc a = {0};
    double mrr, h1, h3, h10;
    dgnn_rank_acc_add(&a, pos, neg, nk, 4, 3);
    dgnn_rank_acc_result(&a, &mrr, &h1, &h3, &h10);
    CHECK(a.n == 3);
    CHECK_NEAR(mrr, 1.75 / 3.0, 1e-12);
    CHECK_NEAR(h1, 1.0 / 3.0, 1e-12);
    CHECK_NEAR(h3, 2.0 / 3.0, 1e-12);
    CHECK_NEAR(h10, 1.0, 1e-12);
    /* the brief's example alone: rank 2, MRR 0.5, hits@1 0, hits@3 1 */
    dgnn_rank_acc b = {0};
    dgnn_rank_acc_add(&b, pos, neg, NULL, 1, 3);
    dgnn_rank_acc_result(&b, &mrr, &h1, &h3, &h10);
    CHECK_NEAR(mrr, 0.5, 1e-12);
    CHECK(h1 == 0.0 && h3 == 1.0);
    /* batches add up: rows one at a time give the same sums */
    dgnn_rank_acc c = {0};
    for (int i = 0; i < 4; i++) dgnn_rank_acc_add(&c, pos + i, neg + i * 3, nk + i, 1, 3);
    CHECK(c.n == a.n && c.rr == a.rr && c.hits1 == a.hits1 && c.hits3 == a.hits3 && c.hits10 == a.hits10);
    /* ties everywhere: k equal negatives give rank (k + 2) / 2; 12 above: hits@10 = 0 */
    float p1 = 0.25f, n12[12];
    for (int j = 0; j < 12; j++) n12[j] = 0.25f;
    dgnn_rank_acc d = {0};
    dgnn_rank_acc_add(&d, &p1, n12, NULL, 1, 12);
    dgnn_rank_acc_result(&d, &mrr, NULL, NULL, &h10);
    CHECK_NEAR(mrr, 1.0 / 7.0, 1e-12);
    CHECK(h10 == 1.0); /* rank 7 <= 10 */
    for (int j = 0; j < 12; j++) n12[j] = 0.5f;
    dgnn_rank_acc_add(&d, &p1, n12, NULL, 1, 12);
    dgnn_rank_acc_result(&d, &mrr, NULL, NULL, &h10);
    CHECK_NEAR(mrr, (1.0 / 7.0 + 1.0 / 13.0) / 2.0, 1e-12);
    CHECK_NEAR(h10, 0.5, 1e-12);
    /* the same as dgnn_metric_mrr's rule on full rows */
    CHECK_NEAR(dgnn_metric_mrr(pos, neg, 3, 3), 1.75 / 3.0, 1e-12);
    /* no row: NaN; a NaN score: NaN */
    dgnn_rank_acc e = {0};
    dgnn_rank_acc_result(&e, &mrr, &h1, &h3, &h10);
    CHECK(isnan(mrr) && isnan(h1) && isnan(h3) && isnan(h10));
    float pn = NAN;
    dgnn_rank_acc_add(&e, &pn, neg, NULL, 1, 3);
    dgnn_rank_acc_result(&e, &mrr, &h1, NULL, NULL);
    CHECK(isnan(mrr) && isnan(h1));
    /* Hits@h counts rank <= h, the boundary included: ranks exactly 1, 3 and 10 are hits,
     * 1.5, 3.5 and 10.5 (one tie above the boundary) are not */
    {
        enum { K = 12 };
        const float above[] = {0, 2, 9, 0, 2, 9}; /* negatives above the positive */
        const float tied[] = {0, 0, 0, 1, 1, 1};  /* negatives equal to it */
        float pk[6], nkk[6 * K];
        for (int i = 0; i < 6; i++) {
            pk[i] = 0.5f;
            for (int j = 0; j < K; j++) nkk[i * K + j] = j < above[i] ? 0.9f : j < above[i] + tied[i] ? 0.5f : 0.1f;
        }
        for (int i = 0; i < 6; i++) {
            dgnn_rank_acc g = {0};
            dgnn_rank_acc_add(&g, pk + i, nkk + i * K, NULL, 1, K);
            dgnn_rank_acc_result(&g, &mrr, &h1, &h3, &h10);
            const double rank = 1.0 + above[i] + 0.5 * tied[i];
            CHECK_NEAR(mrr, 1.0 / rank, 1e-12);
            CHECK_MSG(h1 == (rank <= 1.0) && h3 == (rank <= 3.0) && h10 == (rank <= 10.0),
                      "rank %g: hits@1 %g @3 %g @10 %g", rank, h1, h3, h10);
        }
    }
}

/* The snapshot trainer's link metrics over all N^2 pairs of a hand-made snapshot: AP as
 * average_precision_score over every ordered pair (self pairs included), MRR as get_MRR
 * over the rows holding an edge, against the definitions above (ap_brute, egcn_brute on
 * the dense pair list). The snapshot's last pair (N-1, N-1) is an edge ranked first, so
 * every pair of the N^2 counts. */
static void test_snap_link(void) {
    enum { N = 6 };
    /* rows: 0 -> {1, 4}; 1 -> {}; 2 -> {0, 2, 5}; 3 -> {}; 4 -> {3}; 5 -> {5} */
    int64_t rowptr[N + 1] = {0, 2, 2, 5, 5, 6, 7};
    int32_t col[7] = {1, 4, 0, 2, 5, 3, 5};
    dgnn_snapshot g;
    memset(&g, 0, sizeof g);
    g.num_nodes = N, g.num_edges = 7, g.rowptr = rowptr, g.col = col;
    dgnn_rng r;
    dgnn_rng_seed(&r, 4);
    float prob[N * N];
    int32_t lab[N * N], src[N * N], dst[N * N], scratch[N * N];
    for (int i = 0; i < N * N; i++) {
        prob[i] = (float)dgnn_rng_below(&r, 5) / 8.0f; /* ties within and across rows */
        src[i] = i / N, dst[i] = i % N, lab[i] = 0;
    }
    for (int u = 0; u < N; u++)
        for (int64_t e = rowptr[u]; e < rowptr[u + 1]; e++) lab[u * N + col[e]] = 1;
    prob[N * N - 1] = 0.95f;
    double ap = 0, mrr = 0;
    dgnn_snap_link_metrics(&ap, &mrr, prob, &g, scratch);
    CHECK_NEAR(ap, ap_brute(prob, lab, N * N), 1e-12);
    CHECK_NEAR(mrr, egcn_brute(prob, lab, src, dst, N * N), 1e-12);
    /* no edge: both undefined */
    int64_t rp0[N + 1] = {0};
    dgnn_snapshot e = g;
    e.num_edges = 0, e.rowptr = rp0;
    dgnn_snap_link_metrics(&ap, &mrr, prob, &e, scratch);
    CHECK(isnan(ap) && isnan(mrr));
}

int main(void) {
    test_ap_auc_hand();
    test_ap_auc_edge();
    test_ap_auc_random();
    test_ap_auc_large();
    test_mrr();
    test_rank_acc();
    test_snap_link();
    test_evolvegcn();
    test_prf_mse();
    return check_done();
}
