/* negative.c: negative destination sampling (uniform over all nodes, over a node
 * set, historical). Semantics in negative.h. Every row has its own rng stream and
 * writes only its own k slots, so the loops over positives run in parallel. */
#include "dgnn/negative.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int dgnn_neg_dst_set(int32_t **set, int64_t *n, const dgnn_events *ev, int64_t max_event, dgnn_err *err) {
    *set = NULL;
    *n = 0;
    if (max_event > ev->num_events)
        return dgnn_err_set(err, DGNN_EINVAL, "destination set: max_event %lld exceeds the %lld events",
                            (long long)max_event, (long long)ev->num_events);
    int64_t E = max_event < 0 ? ev->num_events : max_event, N = ev->num_nodes;
    uint8_t *is_dst = calloc((size_t)(N > 0 ? N : 1), 1);
    if (!is_dst) return dgnn_err_set(err, DGNN_ENOMEM, "destination set: out of memory");
    for (int64_t e = 0; e < E; e++) {
        int32_t v = ev->dst[e];
        if (v < 0 || v >= N) {
            free(is_dst);
            return dgnn_err_set(err, DGNN_EINVAL, "destination set: event %lld: node id %d outside [0, %lld)",
                                (long long)e, v, (long long)N);
        }
        is_dst[v] = 1;
    }
    int64_t c = 0;
    for (int64_t v = 0; v < N; v++) c += is_dst[v];
    *set = malloc((size_t)(c > 0 ? c : 1) * sizeof(int32_t));
    if (!*set) {
        free(is_dst);
        return dgnn_err_set(err, DGNN_ENOMEM, "destination set: out of memory");
    }
    for (int64_t v = 0, j = 0; v < N; v++)
        if (is_dst[v]) (*set)[j++] = (int32_t)v;
    *n = c;
    free(is_dst);
    return DGNN_OK;
}

int dgnn_neg_uniform(int32_t *out, int64_t B, int k, int64_t num_nodes, uint64_t seed, dgnn_err *err) {
    if (num_nodes < 1 || k < 1 || B < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "uniform negatives: need nodes >= 1, k >= 1, B >= 0 (got %lld, %d, %lld)",
                            (long long)num_nodes, k, (long long)B);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < B; i++) {
        dgnn_rng r;
        dgnn_rng_seed2(&r, seed, (uint64_t)i);
        for (int m = 0; m < k; m++) out[(size_t)i * (size_t)k + (size_t)m] = (int32_t)dgnn_rng_below(&r, (uint64_t)num_nodes);
    }
    return DGNN_OK;
}

int dgnn_neg_from_set(int32_t *out, int64_t B, int k, const int32_t *set, int64_t n_set, uint64_t seed,
                      dgnn_err *err) {
    if (n_set < 1 || k < 1 || B < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "set negatives: need a non-empty set, k >= 1, B >= 0 (got %lld, %d, %lld)",
                            (long long)n_set, k, (long long)B);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < B; i++) {
        dgnn_rng r;
        dgnn_rng_seed2(&r, seed, (uint64_t)i);
        for (int m = 0; m < k; m++) out[(size_t)i * (size_t)k + (size_t)m] = set[dgnn_rng_below(&r, (uint64_t)n_set)];
    }
    return DGNN_OK;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int dgnn_neg_historical(int32_t *out, const dgnn_tcsr *g, const int32_t *src, const int32_t *dst,
                        const double *t_cut, int64_t B, int k, const int32_t *fallback_set, int64_t n_fallback,
                        uint64_t seed, dgnn_err *err) {
    if (k < 1 || B < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "historical negatives: need k >= 1 and B >= 0 (got %d, %lld)", k,
                            (long long)B);
    if (fallback_set ? n_fallback < 1 : g->num_nodes < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "historical negatives: the fallback set is empty");
    for (int64_t i = 0; i < B; i++)
        if (src[i] < 0 || src[i] >= g->num_nodes)
            return dgnn_err_set(err, DGNN_EINVAL, "historical negatives: positive %lld: source %d outside [0, %lld)",
                                (long long)i, src[i], (long long)g->num_nodes);
    int64_t maxdeg = 1;
    for (int64_t v = 0; v < g->num_nodes; v++) {
        int64_t d = g->rowptr[v + 1] - g->rowptr[v];
        if (d > maxdeg) maxdeg = d;
    }
    /* one scratch row per thread, indexed by omp_get_thread_num() */
    int T = omp_get_max_threads();
    int32_t *scratch = malloc((size_t)T * (size_t)maxdeg * sizeof(int32_t));
    if (!scratch)
        return dgnn_err_set(err, DGNN_ENOMEM, "historical negatives: out of memory for %d x %lld scratch", T,
                            (long long)maxdeg);
#pragma omp parallel for schedule(dynamic, 16) num_threads(T)
    for (int64_t i = 0; i < B; i++) {
        int32_t *buf = scratch + (size_t)omp_get_thread_num() * (size_t)maxdeg;
        int32_t u = src[i], v = dst[i];
        int64_t lo = g->rowptr[u], c = dgnn_tcsr_count_before(g, u, t_cut[i]);
        /* the distinct past neighbours of u other than v, ascending */
        int64_t n = 0;
        for (int64_t p = lo; p < lo + c; p++)
            if (g->nbr[p] != v) buf[n++] = g->nbr[p];
        qsort(buf, (size_t)n, sizeof(int32_t), cmp_i32);
        int64_t d = 0;
        for (int64_t j = 0; j < n; j++)
            if (d == 0 || buf[d - 1] != buf[j]) buf[d++] = buf[j];
        dgnn_rng r;
        dgnn_rng_seed2(&r, seed, (uint64_t)i);
        int32_t *row = out + (size_t)i * (size_t)k;
        for (int m = 0; m < k; m++) {
            if (d > 0) row[m] = buf[dgnn_rng_below(&r, (uint64_t)d)];
            else if (fallback_set) row[m] = fallback_set[dgnn_rng_below(&r, (uint64_t)n_fallback)];
            else row[m] = (int32_t)dgnn_rng_below(&r, (uint64_t)g->num_nodes);
        }
    }
    free(scratch);
    return DGNN_OK;
}

/* ---- the snapshot trainer's negatives ---- */

int64_t dgnn_snap_neg_pool(int32_t *pool, const uint8_t *mask, int64_t N, int64_t first, int64_t last,
                           int all_nodes) {
    int64_t np = 0;
    if (all_nodes)
        for (int64_t v = 0; v < N; v++) pool[np++] = (int32_t)v;
    else
        for (int64_t s = first; s <= last; s++)
            for (int64_t v = 0; v < N; v++)
                if (mask[s * N + v]) pool[np++] = (int32_t)v;
    return np;
}

int64_t dgnn_snap_link_negatives(int32_t *src, int32_t *dst, int64_t want, const dgnn_snapshot *g,
                                 const int32_t *pool, int64_t npool, dgnn_rng *rng) {
    const int64_t E = g->num_edges, N = g->num_nodes;
    /* get_non_existing_edges: min(number, E (E - 1) - len(true_ids)) */
    double cap = (double)E * (double)(E - 1) - (double)E;
    int64_t num = (double)want < cap ? want : (int64_t)(cap > 0 ? cap : 0);
    if (num <= 0 || npool <= 0 || E <= 0) return 0;
    /* pairs already drawn: open addressing on u N + v + 1 (0 = empty) */
    int64_t hcap = 16;
    while (hcap < 2 * num) hcap *= 2;
    uint64_t *set = dgnn_xcalloc((size_t)hcap, sizeof *set);
    int64_t n = 0;
    /* the row of every entry: sources are drawn as entries, so by degree */
    int32_t *row = dgnn_xmalloc((size_t)E * sizeof(int32_t));
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) row[e] = (int32_t)u;
    for (int64_t i = 0; i < 4 * num && n < num; i++) {
        int32_t u = row[dgnn_rng_below(rng, (uint64_t)E)];
        int32_t v = pool[dgnn_rng_below(rng, (uint64_t)npool)];
        if (u == v) continue;
        uint64_t key = (uint64_t)u * (uint64_t)N + (uint64_t)v + 1;
        int64_t h = (int64_t)(dgnn_hash64(key) & (uint64_t)(hcap - 1));
        while (set[h] && set[h] != key) h = (h + 1) & (hcap - 1);
        if (set[h] == key || dgnn_snapshot_entry(g, u, v) >= 0) continue;
        set[h] = key;
        src[n] = u;
        dst[n] = v;
        n++;
    }
    free(set);
    free(row);
    return n;
}
