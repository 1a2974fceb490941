/* eval_neg_tgb.c: TGB's hist_rnd one-vs-many negative lists (eval_neg.h): generated
 * (tgb/linkproppred/negative_generator.py, generate_negative_samples_hist_rnd), read from
 * and written to .npy files of original node ids.
 *
 * Generation: the history's distinct destinations per source as sorted rows (a CSR);
 * the split's events sorted by (t, src, dst), so the destinations a row must avoid (those
 * of its source at its timestamp) are one range found by binary search. Row i draws from
 * dgnn_rng_seed2(seed, i) and writes only its own row, so rows run in parallel. */
#include "dgnn/eval_neg.h"
#include "dgnn/npy.h"
#include "draw_distinct.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

void dgnn_tgb_negs_free(dgnn_tgb_negs *n) {
    if (!n) return;
    free(n->cand);
    memset(n, 0, sizeof *n);
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* 1 when v is in the sorted a[0, n). */
static int has(const int32_t *a, int64_t n, int32_t v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && a[lo] == v;
}

/* What a row avoids: the source's past destinations H and its destinations at the row's
 * timestamp X (both sorted), and the node range [dlo, dlo + U) the random part draws from. */
typedef struct {
    const int32_t *H, *X;
    int64_t nH, nX;
    int32_t dlo;
    int hist_only; /* 1: excluded = X only (the historical part), 0: H or X */
} row_ctx;
static int row_excluded(const void *ctx, int64_t x) {
    const row_ctx *c = ctx;
    int32_t v = c->hist_only ? c->H[x] : (int32_t)(c->dlo + x);
    return has(c->X, c->nX, v) || (!c->hist_only && has(c->H, c->nH, v));
}

/* A split event, to sort by (t, src, dst). */
typedef struct {
    double t;
    int32_t src, dst;
} tsd;
static int cmp_tsd(const void *a, const void *b) {
    const tsd *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Fills row (k) of a positive whose source has the past destinations H and the
 * destinations X at its timestamp (X holds the positive's own). Scratch: x (k or nH). */
static int gen_row(int32_t *row, int64_t k, const int32_t *H, int64_t nH, const int32_t *X, int64_t nX, int32_t dlo,
                   int32_t dhi, uint64_t seed, uint64_t stream, int64_t *x, dgnn_err *err) {
    dgnn_rng r;
    dgnn_rng_seed2(&r, seed, stream);
    row_ctx c = {H, X, nH, nX, dlo, 1};
    /* historical: up to int(k * 0.5) of H minus X, without replacement */
    int64_t nHf = 0;
    for (int64_t j = 0; j < nH; j++) nHf += !has(X, nX, H[j]);
    int64_t want_h = k / 2, nh = want_h < nHf ? want_h : nHf;
    int rc = dgnn_draw_distinct(x, nh, nH, nH - nHf, row_excluded, &c, &r, err);
    if (rc) return rc;
    for (int64_t j = 0; j < nh; j++) row[j] = H[x[j]];
    /* random: the rest over [dlo, dhi] minus H and X (TGB's setdiff1d(all_dst, invalid_dst)) */
    c.hist_only = 0;
    int64_t U = (int64_t)dhi - dlo + 1, excl = 0;
    for (int64_t a = 0, b = 0; a < nH || b < nX;) { /* |(H u X) n [dlo, dhi]|, both sorted */
        int32_t v = b >= nX || (a < nH && H[a] <= X[b]) ? H[a] : X[b];
        while (a < nH && H[a] == v) a++;
        while (b < nX && X[b] == v) b++;
        excl += v >= dlo && v <= dhi;
    }
    int64_t avail = U - excl, want_r = k - nh, nr = 0;
    if (want_r >= avail) { /* all of them, ascending (setdiff1d's order) */
        for (int64_t y = 0; y < U; y++)
            if (!row_excluded(&c, y)) row[nh + nr++] = (int32_t)(dlo + y);
    } else {
        rc = dgnn_draw_distinct(x, want_r, U, excl, row_excluded, &c, &r, err);
        if (rc) return rc;
        for (; nr < want_r; nr++) row[nh + nr] = (int32_t)(dlo + x[nr]);
    }
    for (int64_t j = nh + nr; j < k; j++) row[j] = -1;
    return DGNN_OK;
}

int dgnn_tgb_negs_generate(dgnn_tgb_negs *out, const dgnn_events *ev, int64_t first, int64_t n, int64_t k,
                           uint64_t seed, dgnn_err *err) {
    memset(out, 0, sizeof *out);
    int64_t E = ev->num_events, N = ev->num_nodes;
    if (first < 0 || n < 0 || first > E || n > E - first || k < 1)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "TGB negatives: need 0 <= first, first + n <= %lld events, k >= 1 (got first %lld, n "
                            "%lld, k %lld)",
                            (long long)E, (long long)first, (long long)n, (long long)k);
    if (E == 0) return DGNN_OK;
    int32_t dlo = INT32_MAX, dhi = -1;
    for (int64_t e = 0; e < E; e++) {
        if (ev->src[e] < 0 || ev->src[e] >= N || ev->dst[e] < 0 || ev->dst[e] >= N)
            return dgnn_err_set(err, DGNN_EINVAL, "TGB negatives: event %lld: node id outside [0, %lld)", (long long)e,
                                (long long)N);
        if (ev->dst[e] < dlo) dlo = ev->dst[e];
        if (ev->dst[e] > dhi) dhi = ev->dst[e];
    }
    int rc = DGNN_OK;
    int64_t *hptr = calloc((size_t)N + 1, sizeof(int64_t));
    tsd *order = NULL;
    int32_t *hdst = malloc((size_t)(first > 0 ? first : 1) * sizeof(int32_t)), *xdst = NULL;
    int64_t *cursor = malloc(((size_t)N + 1) * sizeof(int64_t));
    out->cand = malloc((size_t)dgnn_size_mul(n > 0 ? n : 1, k) * sizeof(int32_t));
    if (!hptr || !hdst || !cursor || !out->cand) {
        rc = dgnn_err_nomem(err, dgnn_size_mul(n, k) * 4 + first * 4, "TGB negatives of %lld rows x %lld",
                            (long long)n, (long long)k);
        goto done;
    }
    /* the history's distinct destinations per source, sorted */
    for (int64_t e = 0; e < first; e++) hptr[ev->src[e] + 1]++;
    for (int64_t v = 0; v < N; v++) hptr[v + 1] += hptr[v];
    memcpy(cursor, hptr, ((size_t)N + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < first; e++) hdst[cursor[ev->src[e]]++] = ev->dst[e];
    int64_t maxh = 0;
    for (int64_t v = 0; v < N; v++) { /* sort, unique, in place: row v keeps [hptr[v], cursor[v]) */
        int64_t a = hptr[v], b = hptr[v + 1], m = 0;
        qsort(hdst + a, (size_t)(b - a), sizeof(int32_t), cmp_i32);
        for (int64_t j = a; j < b; j++)
            if (m == 0 || hdst[a + m - 1] != hdst[j]) hdst[a + m++] = hdst[j];
        cursor[v] = a + m;
        if (m > maxh) maxh = m;
    }
    /* the split by (t, src, dst) */
    order = malloc((size_t)(n > 0 ? n : 1) * sizeof(tsd));
    xdst = malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (!order || !xdst) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "TGB negatives: out of memory");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) order[i] = (tsd){ev->t[first + i], ev->src[first + i], ev->dst[first + i]};
    qsort(order, (size_t)n, sizeof(tsd), cmp_tsd);
    for (int64_t i = 0; i < n; i++) xdst[i] = order[i].dst;
    int64_t scratch = (k > maxh ? k : maxh) + 1;
    int bad = 0;
#pragma omp parallel
    {
        int64_t *x = malloc((size_t)scratch * sizeof(int64_t));
        dgnn_err terr;
        dgnn_err_clear(&terr);
        if (!x) {
#pragma omp atomic write
            bad = 1;
        }
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < n; i++) {
            if (!x) continue; /* this thread's scratch failed: bad is set, the result dropped */
            int64_t e = first + i;
            int32_t s = ev->src[e];
            double t = ev->t[e];
            /* the range of (t, s) in order: lower bound, then scan */
            int64_t lo = 0, hi = n;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (order[mid].t < t || (order[mid].t == t && order[mid].src < s)) lo = mid + 1;
                else hi = mid;
            }
            int64_t x0 = lo, x1 = lo;
            while (x1 < n && order[x1].t == t && order[x1].src == s) x1++;
            if (gen_row(out->cand + i * k, k, hdst + hptr[s], cursor[s] - hptr[s], xdst + x0, x1 - x0, dlo, dhi,
                        seed, (uint64_t)i, x, &terr)) {
#pragma omp atomic write
                bad = 1;
            }
        }
        free(x);
    }
    if (bad) rc = dgnn_err_set(err, DGNN_ENOMEM, "TGB negatives: out of memory for the rows' scratch");
    out->rows = n;
    out->k = k;
done:
    free(hptr);
    free(hdst);
    free(cursor);
    free(order);
    free(xdst);
    if (rc) dgnn_tgb_negs_free(out);
    return rc;
}

int dgnn_tgb_negs_read(dgnn_tgb_negs *out, const char *path, const dgnn_events *ev, int64_t rows,
                       const int32_t *pos_dst, dgnn_err *err) {
    memset(out, 0, sizeof *out);
    int64_t *a, r, k;
    int rc = dgnn_read_npy_i64(path, &a, &r, &k, err);
    if (rc) return rc;
    if (r != rows) {
        free(a);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: %lld rows, but the split has %lld positive events (one row each)",
                            path, (long long)r, (long long)rows);
    }
    out->cand = malloc((size_t)dgnn_size_mul(r > 0 ? r : 1, k > 0 ? k : 1) * sizeof(int32_t));
    if (!out->cand) {
        free(a);
        return dgnn_err_nomem(err, dgnn_size_mul(r, k) * 4, "the negatives of %s", path);
    }
    for (int64_t i = 0; i < r && !rc; i++) {
        int padded = 0;
        for (int64_t j = 0; j < k; j++) {
            int64_t v = a[i * k + j];
            if (v == -1) {
                padded = 1;
                out->cand[i * k + j] = -1;
                continue;
            }
            if (padded) {
                rc = dgnn_err_set(err, DGNN_EFORMAT,
                                  "%s: row %lld, column %lld: candidate %lld after padding (-1 only ends a row)", path,
                                  (long long)i, (long long)j, (long long)v);
                break;
            }
            int32_t d = dgnn_events_dense_id(ev, v);
            if (d < 0) {
                rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: row %lld, column %lld: node id %lld is not a node of the data",
                                  path, (long long)i, (long long)j, (long long)v);
                break;
            }
            if (pos_dst && d == pos_dst[i]) {
                rc = dgnn_err_set(err, DGNN_EFORMAT,
                                  "%s: row %lld, column %lld: candidate %lld is the row's positive destination", path,
                                  (long long)i, (long long)j, (long long)v);
                break;
            }
            out->cand[i * k + j] = d;
        }
    }
    free(a);
    if (rc) {
        dgnn_tgb_negs_free(out);
        return rc;
    }
    out->rows = r;
    out->k = k;
    return DGNN_OK;
}

int dgnn_tgb_negs_write(const dgnn_tgb_negs *n, const char *path, const dgnn_events *ev, dgnn_err *err) {
    int64_t count = dgnn_size_mul(n->rows, n->k);
    int64_t *a = malloc((size_t)(count > 0 ? count : 1) * sizeof(int64_t));
    if (!a) return dgnn_err_nomem(err, dgnn_size_mul(count, 8), "the negatives for %s", path);
    for (int64_t i = 0; i < count; i++) {
        int32_t d = n->cand[i];
        if (d < -1 || d >= ev->num_nodes) {
            free(a);
            return dgnn_err_set(err, DGNN_EINVAL, "%s: row %lld, column %lld: %d is not a node id or -1", path,
                                (long long)(i / n->k), (long long)(i % n->k), d);
        }
        a[i] = d < 0 ? -1 : ev->node_ids ? ev->node_ids[d] : d;
    }
    int rc = dgnn_write_npy_i64(path, a, n->rows, n->k, err);
    free(a);
    return rc;
}
