/* sampler.c: one-hop temporal neighbour samplers (most recent, uniform) over a
 * temporal CSR. Semantics, layout and determinism are documented in sampler.h.
 *
 * Each root costs one binary search on its node's timestamps (the node's list is
 * sorted by time) plus k writes; roots are independent, so the loop over roots is
 * the parallel loop and each iteration writes only its own output row. */
#include "dgnn/sampler.h"

#include <stdlib.h>
#include <string.h>

int dgnn_sample_buf_init(dgnn_sample_buf *s, int64_t cap_B, int k, dgnn_err *err) {
    memset(s, 0, sizeof *s);
    if (cap_B < 0 || k < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "sample buffer: need rows >= 0 and k >= 1 (got %lld, %d)",
                            (long long)cap_B, k);
    size_t n = (size_t)(cap_B > 0 ? cap_B : 1) * (size_t)k;
    s->nbr = malloc(n * sizeof(int32_t));
    s->eid = malloc(n * sizeof(int64_t));
    s->ts = malloc(n * sizeof(double));
    s->count = malloc((size_t)(cap_B > 0 ? cap_B : 1) * sizeof(int32_t));
    if (!s->nbr || !s->eid || !s->ts || !s->count) {
        dgnn_sample_buf_free(s);
        return dgnn_err_set(err, DGNN_ENOMEM, "sample buffer: out of memory for %lld x %d", (long long)cap_B, k);
    }
    s->cap_B = cap_B;
    s->k = k;
    return DGNN_OK;
}

void dgnn_sample_buf_free(dgnn_sample_buf *s) {
    if (!s) return;
    free(s->nbr);
    free(s->eid);
    free(s->ts);
    free(s->count);
    memset(s, 0, sizeof *s);
}

/* First index in [lo, hi) whose time is >= t (entries before it are strictly
 * earlier than t). A NaN t compares false everywhere and yields lo: no candidates. */
static inline int64_t lower_bound_ts(const double *ts, int64_t lo, int64_t hi, double t) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ts[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Checked before the parallel loop so that an error leaves a clear message and the
 * loop body needs no error path. */
static int check_args(const dgnn_tcsr *g, const int32_t *root, int64_t B, int k, const char *what,
                      dgnn_err *err) {
    if (k < 1) return dgnn_err_set(err, DGNN_EINVAL, "%s sampler: k must be >= 1 (got %d)", what, k);
    if (B < 0) return dgnn_err_set(err, DGNN_EINVAL, "%s sampler: negative batch size %lld", what, (long long)B);
    for (int64_t i = 0; i < B; i++)
        if (root[i] >= g->num_nodes)
            return dgnn_err_set(err, DGNN_EINVAL, "%s sampler: root %lld: node id %d outside [0, %lld)", what,
                                (long long)i, root[i], (long long)g->num_nodes);
    return DGNN_OK;
}

static inline void pad_row(int32_t *nbr, int64_t *eid, double *ts, size_t row, int from, int k) {
    for (int m = from; m < k; m++) {
        nbr[row + (size_t)m] = -1;
        if (eid) eid[row + (size_t)m] = -1;
        if (ts) ts[row + (size_t)m] = 0.0;
    }
}

int dgnn_sample_recent(int32_t *nbr, int64_t *eid, double *ts, int32_t *count, const dgnn_tcsr *g,
                       const int32_t *root, const double *root_t, int64_t B, int k, dgnn_err *err) {
    int rc = check_args(g, root, B, k, "most-recent", err);
    if (rc) return rc;
    const int64_t *rowptr = g->rowptr;
    const int32_t *gn = g->nbr;
    const int64_t *ge = g->eid;
    const double *gt = g->ts;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < B; i++) {
        size_t row = (size_t)i * (size_t)k;
        int32_t v = root[i];
        int n = 0;
        if (v >= 0) {
            int64_t lo = rowptr[v];
            int64_t cut = lower_bound_ts(gt, lo, rowptr[v + 1], root_t[i]); /* candidates: [lo, cut) */
            int64_t c = cut - lo;
            n = c < k ? (int)c : k;
            for (int m = 0; m < n; m++) { /* latest first */
                int64_t p = cut - 1 - m;
                nbr[row + (size_t)m] = gn[p];
                if (eid) eid[row + (size_t)m] = ge[p];
                if (ts) ts[row + (size_t)m] = gt[p];
            }
        }
        pad_row(nbr, eid, ts, row, n, k);
        if (count) count[i] = n;
    }
    return DGNN_OK;
}

int dgnn_sample_uniform(int32_t *nbr, int64_t *eid, double *ts, int32_t *count, const dgnn_tcsr *g,
                        const int32_t *root, const double *root_t, int64_t B, int k, uint64_t seed,
                        dgnn_err *err) {
    int rc = check_args(g, root, B, k, "uniform", err);
    if (rc) return rc;
    const int64_t *rowptr = g->rowptr;
    const int32_t *gn = g->nbr;
    const int64_t *ge = g->eid;
    const double *gt = g->ts;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < B; i++) {
        size_t row = (size_t)i * (size_t)k;
        int32_t v = root[i];
        int n = 0;
        if (v >= 0) {
            int64_t lo = rowptr[v];
            int64_t c = lower_bound_ts(gt, lo, rowptr[v + 1], root_t[i]) - lo;
            if (c > 0) {
                /* one stream per root: the draws do not depend on which thread runs i */
                dgnn_rng r;
                dgnn_rng_seed2(&r, seed, (uint64_t)i);
                for (int m = 0; m < k; m++) {
                    int64_t p = lo + (int64_t)dgnn_rng_below(&r, (uint64_t)c);
                    nbr[row + (size_t)m] = gn[p];
                    if (eid) eid[row + (size_t)m] = ge[p];
                    if (ts) ts[row + (size_t)m] = gt[p];
                }
                n = k;
            }
        }
        pad_row(nbr, eid, ts, row, n, k);
        if (count) count[i] = n;
    }
    return DGNN_OK;
}
