/* metrics.c: AP, ROC AUC, MRR (TGB and EvolveGCN definitions), precision/recall/F1,
 * MSE, and the snapshot trainer's per-snapshot MAP and MRR over all node pairs.
 * Definitions and edge cases in metrics.h.
 *
 * AP and AUC sort the scores once: each score becomes a 32-bit key whose unsigned order
 * is the float order, packed with the label bit into a 64-bit word, and an LSD radix
 * sort (4 passes of 8 bits over the key) orders n words in O(n), so evaluating
 * millions of scores costs milliseconds. Tied scores share a key and so form one
 * threshold group, as in sklearn. */
#include "dgnn/metrics.h"
#include "dgnn/nn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUM_BLOCK 8192 /* fixed summation blocks: results independent of thread count */

/* The order-preserving unsigned key of a float: flip all bits of negatives, set the
 * sign bit of non-negatives. -0.0 is first turned into +0.0, since they compare equal. */
static inline uint32_t float_key(float f) {
    if (f == 0.0f) f = 0.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* Sorts a (n) ascending by bits 32..63; tmp (n) is scratch. Stable LSD passes; a pass
 * whose digit is the same for every word is skipped. */
static void radix_sort_hi32(uint64_t *a, uint64_t *tmp, int64_t n) {
    int64_t (*cnt)[256] = dgnn_xcalloc(4, sizeof *cnt);
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < 4; d++) cnt[d][(a[i] >> (32 + 8 * d)) & 255]++;
    uint64_t *src = a, *dst = tmp;
    for (int d = 0; d < 4; d++) {
        int shift = 32 + 8 * d;
        if (cnt[d][(src[0] >> shift) & 255] == n) continue; /* one digit value: order unchanged */
        int64_t pos = 0;
        for (int b = 0; b < 256; b++) {
            int64_t c = cnt[d][b];
            cnt[d][b] = pos;
            pos += c;
        }
        for (int64_t i = 0; i < n; i++) dst[cnt[d][(src[i] >> shift) & 255]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
    free(cnt);
}

/* AP and AUC from words sorted ascending by key; P positives among n. */
static void ap_auc_sorted(const uint64_t *a, int64_t n, int64_t P, double *ap, double *auc) {
    int64_t N = n - P, tp = 0, fp = 0, prev_tp = 0, prev_fp = 0;
    double ap_sum = 0.0, prev_recall = 0.0;
    unsigned __int128 area2 = 0; /* twice the area in units of (1/P)(1/N): exact */
    for (int64_t i = n - 1; i >= 0;) {
        uint64_t key = a[i] >> 32;
        for (; i >= 0 && (a[i] >> 32) == key; i--) {
            if (a[i] & 1) tp++;
            else fp++;
        }
        /* one threshold: every score >= key is predicted positive */
        if (tp > prev_tp) {
            double recall = (double)tp / (double)P, precision = (double)tp / (double)(tp + fp);
            ap_sum += (recall - prev_recall) * precision;
            prev_recall = recall;
        }
        area2 += (unsigned __int128)(uint64_t)(fp - prev_fp) * (uint64_t)(tp + prev_tp);
        prev_tp = tp;
        prev_fp = fp;
    }
    if (ap) *ap = P > 0 ? ap_sum : NAN;
    if (auc) *auc = (P > 0 && N > 0) ? (double)((long double)area2 / (2.0L * (long double)P * (long double)N)) : NAN;
}

static void finish_ap_auc(uint64_t *a, int64_t n, int bad, double *ap, double *auc) {
    if (bad || n == 0) {
        if (ap) *ap = NAN;
        if (auc) *auc = NAN;
        return;
    }
    int64_t P = 0;
    for (int64_t i = 0; i < n; i++) P += (int64_t)(a[i] & 1);
    uint64_t *tmp = dgnn_xmalloc((size_t)n * sizeof *tmp);
    radix_sort_hi32(a, tmp, n);
    free(tmp);
    ap_auc_sorted(a, n, P, ap, auc);
}

void dgnn_metric_ap_auc(const float *score, const int32_t *label, int64_t n, double *ap, double *auc) {
    uint64_t *a = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < n; i++) {
        bad |= isnan(score[i]) ? 1 : 0;
        a[i] = ((uint64_t)float_key(score[i]) << 32) | (label[i] != 0 ? 1u : 0u);
    }
    finish_ap_auc(a, n, bad, ap, auc);
    free(a);
}

void dgnn_metric_ap_auc_pn(const float *pos, int64_t npos, const float *neg, int64_t nneg, double *ap, double *auc) {
    int64_t n = npos + nneg;
    uint64_t *a = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < n; i++) {
        float s = i < npos ? pos[i] : neg[i - npos];
        bad |= isnan(s) ? 1 : 0;
        a[i] = ((uint64_t)float_key(s) << 32) | (i < npos ? 1u : 0u);
    }
    finish_ap_auc(a, n, bad, ap, auc);
    free(a);
}

double dgnn_metric_ap(const float *score, const int32_t *label, int64_t n) {
    double ap;
    dgnn_metric_ap_auc(score, label, n, &ap, NULL);
    return ap;
}

double dgnn_metric_auc(const float *score, const int32_t *label, int64_t n) {
    double auc;
    dgnn_metric_ap_auc(score, label, n, NULL, &auc);
    return auc;
}

/* ---- MRR, TGB convention ---- */

double dgnn_metric_mrr(const float *pos, const float *neg, int64_t n, int64_t k) {
    if (n <= 0) return NAN;
    int64_t nb = (n + SUM_BLOCK - 1) / SUM_BLOCK;
    double *part = dgnn_xmalloc((size_t)nb * sizeof *part);
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * SUM_BLOCK, hi = lo + SUM_BLOCK < n ? lo + SUM_BLOCK : n;
        double s = 0.0;
        for (int64_t i = lo; i < hi; i++) {
            float p = pos[i];
            const float *row = neg + i * k;
            int64_t gt = 0, eq = 0;
            for (int64_t j = 0; j < k; j++) {
                gt += row[j] > p;
                eq += row[j] == p;
                bad |= isnan(row[j]) ? 1 : 0;
            }
            bad |= isnan(p) ? 1 : 0;
            s += 1.0 / (1.0 + (double)gt + 0.5 * (double)eq);
        }
        part[b] = s;
    }
    double s = 0.0;
    for (int64_t b = 0; b < nb; b++) s += part[b];
    free(part);
    return bad ? NAN : s / (double)n;
}

/* ---- TGB's one-vs-many metrics (tgb/linkproppred/evaluate.py, _eval_hits_and_mrr) ----
 * The ranks of a block of rows are computed in parallel (each row writes its own slot),
 * then summed in row order, so the sums do not depend on the thread count. */
enum { RANK_BLOCK = 4096 };

void dgnn_rank_acc_add(dgnn_rank_acc *a, const float *pos, const float *neg, const int64_t *nk, int64_t n, int64_t k) {
    double rank[RANK_BLOCK];
    for (int64_t lo = 0; lo < n; lo += RANK_BLOCK) {
        int64_t m = n - lo < RANK_BLOCK ? n - lo : RANK_BLOCK;
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < m; r++) {
            int64_t i = lo + r, len = nk ? nk[i] : k;
            if (len > k) len = k;
            if (len <= 0) {
                rank[r] = 0.0; /* skipped */
                continue;
            }
            float p = pos[i];
            const float *row = neg + i * k;
            int64_t gt = 0, ge = 0, nan = isnan(p);
            for (int64_t j = 0; j < len; j++) {
                gt += row[j] > p;
                ge += row[j] >= p;
                nan |= isnan(row[j]);
            }
            /* optimistic rank gt, pessimistic ge: TGB's 0.5 (opt + pess) + 1 */
            rank[r] = nan ? NAN : 1.0 + 0.5 * ((double)gt + (double)ge);
        }
        for (int64_t r = 0; r < m; r++) {
            double rk = rank[r];
            if (rk == 0.0) continue;
            a->rr += 1.0 / rk; /* a NaN rank makes every sum NaN */
            a->hits1 += isnan(rk) ? NAN : rk <= 1.0;
            a->hits3 += isnan(rk) ? NAN : rk <= 3.0;
            a->hits10 += isnan(rk) ? NAN : rk <= 10.0;
            a->n++;
        }
    }
}

void dgnn_rank_acc_result(const dgnn_rank_acc *a, double *mrr, double *hits1, double *hits3, double *hits10) {
    double d = (double)a->n;
    if (mrr) *mrr = a->n ? a->rr / d : NAN;
    if (hits1) *hits1 = a->n ? a->hits1 / d : NAN;
    if (hits3) *hits3 = a->n ? a->hits3 / d : NAN;
    if (hits10) *hits10 = a->n ? a->hits10 / d : NAN;
}

/* ---- EvolveGCN's MRR (logger.py get_MRR) ---- */

typedef struct {
    uint64_t key; /* src << 32 | dst */
    int64_t idx;  /* input position: duplicates keep their input order (scipy sums them in it) */
} pair_ref;

static int cmp_pair_ref(const void *x, const void *y) {
    const pair_ref *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

typedef struct {
    float v;     /* the summed probability of the (row, col) cell */
    int32_t col;
    int64_t lab; /* the summed label */
    int64_t ci;  /* position in the row's column order */
} cell;

/* Descending value, then descending column: np.flip of a stable ascending argsort. */
static int cmp_cell_rank(const void *x, const void *y) {
    const cell *a = x, *b = y;
    if (a->v != b->v) return a->v > b->v ? -1 : 1;
    return (a->col < b->col) - (a->col > b->col);
}

double dgnn_evolvegcn_mrr(const float *prob, const int32_t *label, const int32_t *src, const int32_t *dst, int64_t n) {
    if (n <= 0) return NAN;
    int sorted = 1;
    int32_t max_dst = 0;
    for (int64_t i = 0; i < n; i++) {
        DGNN_ASSERT(src[i] >= 0 && dst[i] >= 0);
        if (isnan(prob[i])) return NAN;
        if (dst[i] > max_dst) max_dst = dst[i];
        if (i > 0 && (src[i] < src[i - 1] || (src[i] == src[i - 1] && dst[i] < dst[i - 1]))) sorted = 0;
    }
    const int64_t ncols = (int64_t)max_dst + 1;

    /* views in (src, dst) order: the inputs themselves, or sorted copies */
    const float *P = prob;
    const int32_t *L = label, *S = src, *D = dst;
    float *Pc = NULL;
    int32_t *Lc = NULL, *Sc = NULL, *Dc = NULL;
    if (!sorted) {
        pair_ref *r = dgnn_xmalloc((size_t)n * sizeof *r);
        for (int64_t i = 0; i < n; i++) r[i] = (pair_ref){((uint64_t)(uint32_t)src[i] << 32) | (uint32_t)dst[i], i};
        qsort(r, (size_t)n, sizeof *r, cmp_pair_ref);
        Pc = dgnn_xmalloc((size_t)n * sizeof *Pc);
        Lc = dgnn_xmalloc((size_t)n * sizeof *Lc);
        Sc = dgnn_xmalloc((size_t)n * sizeof *Sc);
        Dc = dgnn_xmalloc((size_t)n * sizeof *Dc);
        for (int64_t i = 0; i < n; i++) {
            int64_t j = r[i].idx;
            Pc[i] = prob[j], Lc[i] = label[j], Sc[i] = src[j], Dc[i] = dst[j];
        }
        free(r);
        P = Pc, L = Lc, S = Sc, D = Dc;
    }

    /* rows: maximal runs of equal src */
    int64_t nrows = 0, max_len = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || S[i] != S[i - 1]) nrows++;
    int64_t *start = dgnn_xmalloc((size_t)(nrows + 1) * sizeof *start);
    for (int64_t i = 0, r = 0; i < n; i++)
        if (i == 0 || S[i] != S[i - 1]) start[r++] = i;
    start[nrows] = n;
    for (int64_t r = 0; r < nrows; r++)
        if (start[r + 1] - start[r] > max_len) max_len = start[r + 1] - start[r];
    double *row_mrr = dgnn_xmalloc((size_t)nrows * sizeof *row_mrr); /* NaN: row not counted */

#pragma omp parallel
    {
        cell *c = dgnn_xmalloc((size_t)max_len * sizeof *c);
#pragma omp for schedule(dynamic, 16)
        for (int64_t r = 0; r < nrows; r++) {
            /* the row's cells, duplicates summed in input order (scipy's coo_todense) */
            int64_t m = 0, has_one = 0;
            for (int64_t i = start[r]; i < start[r + 1]; i++) {
                if (m > 0 && c[m - 1].col == D[i]) {
                    c[m - 1].v += P[i];
                    c[m - 1].lab += L[i];
                } else {
                    c[m] = (cell){P[i], D[i], L[i], m};
                    m++;
                }
            }
            for (int64_t j = 0; j < m; j++) has_one += c[j].lab == 1;
            if (!has_one) {
                row_mrr[r] = NAN;
                continue;
            }
            /* few label-1 cells (the usual case: a node's true edges among all pairs):
             * count what ranks above each, O(m) per cell; many: sort the row once */
            int by_sort = has_one > 16;
            if (by_sort) qsort(c, (size_t)m, sizeof *c, cmp_cell_rank);
            double s = 0.0;
            int64_t cnt = 0;
            for (int64_t p = 0; p < m; p++) {
                if (c[p].lab != 1) continue;
                /* present cells ranked above: larger value, or equal value and larger column */
                int64_t above = 0;
                if (by_sort) above = p;
                else
                    for (int64_t q = 0; q < m; q++) above += c[q].v > c[p].v || (c[q].v == c[p].v && c[q].col > c[p].col);
                int64_t rank = above + 1;
                /* the absent columns of the row hold 0 */
                if (c[p].v < 0.0f) rank += ncols - m;
                else if (c[p].v == 0.0f) {
                    int64_t cells_after = m - 1 - c[p].ci; /* present columns > col */
                    rank += (ncols - 1 - c[p].col) - cells_after;
                }
                s += 1.0 / (double)rank;
                cnt++;
            }
            row_mrr[r] = s / (double)cnt;
        }
        free(c);
    }

    double s = 0.0;
    int64_t cnt = 0;
    for (int64_t r = 0; r < nrows; r++)
        if (!isnan(row_mrr[r])) s += row_mrr[r], cnt++;
    free(row_mrr);
    free(start);
    free(Pc), free(Lc), free(Sc), free(Dc);
    return cnt > 0 ? s / (double)cnt : NAN;
}

double dgnn_metric_weighted_mean(const double *val, const double *weight, int64_t n) {
    double s = 0.0, w = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += val[i] * weight[i];
        w += weight[i];
    }
    return w != 0.0 ? s / w : NAN;
}

/* ---- classification, regression ---- */

dgnn_prf dgnn_metric_prf(const int32_t *pred, const int32_t *truth, int64_t n, int32_t pos_class) {
    dgnn_prf r = {0};
    for (int64_t i = 0; i < n; i++) {
        int p = pred[i] == pos_class, t = truth[i] == pos_class;
        r.tp += p && t;
        r.fp += p && !t;
        r.fn += !p && t;
        r.tn += !p && !t;
    }
    r.precision = r.tp + r.fp > 0 ? (double)r.tp / (double)(r.tp + r.fp) : 0.0;
    r.recall = r.tp + r.fn > 0 ? (double)r.tp / (double)(r.tp + r.fn) : 0.0;
    r.f1 = r.precision + r.recall > 0 ? 2.0 * r.precision * r.recall / (r.precision + r.recall) : 0.0;
    return r;
}

/* The loss kernel's blocked, thread-count-independent sum (nn.h); a metric of no
 * pairs is undefined rather than 0. */
double dgnn_metric_mse(const float *pred, const float *target, int64_t n) {
    return n > 0 ? dgnn_mse_forward(pred, target, n) : NAN;
}

void dgnn_snap_link_metrics(double *ap, double *mrr, const float *prob, const dgnn_snapshot *g, int32_t *label) {
    const int64_t N = g->num_nodes, NN = N * N;
    if (g->num_edges == 0 || N == 0) {
        *ap = *mrr = NAN;
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t u = 0; u < N; u++) {
        int32_t *row = label + u * N;
        memset(row, 0, (size_t)N * sizeof(int32_t));
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) row[g->col[e]] = 1;
    }
    *ap = dgnn_metric_ap(prob, label, NN);
    /* get_MRR row by row: a row's MRR depends only on its own pairs, and in (u, 0..N-1)
     * order they are already sorted, so each call scatters nothing */
    int32_t *cols = dgnn_xmalloc((size_t)N * sizeof(int32_t));
    for (int64_t v = 0; v < N; v++) cols[v] = (int32_t)v;
    double *rm = dgnn_xmalloc((size_t)N * sizeof(double));
#pragma omp parallel
    {
        int32_t *rows = dgnn_xmalloc((size_t)N * sizeof(int32_t));
#pragma omp for schedule(dynamic, 4)
        for (int64_t u = 0; u < N; u++) {
            if (g->rowptr[u + 1] == g->rowptr[u]) {
                rm[u] = NAN;
                continue;
            }
            for (int64_t v = 0; v < N; v++) rows[v] = (int32_t)u;
            rm[u] = dgnn_evolvegcn_mrr(prob + u * N, label + u * N, rows, cols, N);
        }
        free(rows);
    }
    double s = 0;
    int64_t cnt = 0;
    for (int64_t u = 0; u < N; u++)
        if (!isnan(rm[u])) s += rm[u], cnt++;
    *mrr = cnt ? s / (double)cnt : NAN;
    free(rm);
    free(cols);
}
