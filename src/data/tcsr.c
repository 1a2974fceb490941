/* tcsr.c: builds the temporal CSR (see tcsr.h) from a time-sorted event table.
 *
 * The build is a counting sort of (node, event) pairs by node, stable in event order.
 * Since the table is already sorted by (time, row), a stable sort by node leaves each
 * node's list sorted by (time, event id) with no comparison sort at all.
 *
 * Parallelism without races and without depending on the thread count: the events
 * are cut into C contiguous chunks; each chunk counts its entries per node into its
 * own row of a (C, N) table; a pass over nodes turns those rows into per-chunk start
 * offsets inside the node's list (chunk 0 first, then chunk 1, ...); then each chunk
 * writes its entries at its own offsets. Chunk c's entries for v always land after
 * those of chunks < c, which is event order, so the output is the same for any C. */
#include "dgnn/tcsr.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

void dgnn_tcsr_free(dgnn_tcsr *g) {
    if (!g) return;
    free(g->rowptr);
    free(g->nbr);
    free(g->eid);
    free(g->ts);
    memset(g, 0, sizeof *g);
}

/* How many chunks to cut the events into: one per thread, but the (C, N) count
 * table must stay small next to the output (a few entries per event), and tiny
 * inputs are not worth the extra passes. */
static int pick_chunks(int64_t E, int64_t N) {
    int C = omp_get_max_threads();
    if (C > 64) C = 64;
    if (E < 4096) return 1;
    int64_t limit = 4 * E > (1 << 20) ? 4 * E : (1 << 20);
    while (C > 1 && (int64_t)C * N > limit) C--;
    return C < 1 ? 1 : C;
}

int dgnn_tcsr_build(dgnn_tcsr *g, const dgnn_events *ev, int64_t max_event, int directed, dgnn_err *err) {
    return dgnn_tcsr_build_masked(g, ev, max_event, NULL, 0, directed, err);
}

int dgnn_tcsr_build_masked(dgnn_tcsr *g, const dgnn_events *ev, int64_t max_event, const uint8_t *mask,
                           uint8_t bits, int directed, dgnn_err *err) {
    memset(g, 0, sizeof *g);
    if (max_event > ev->num_events)
        return dgnn_err_set(err, DGNN_EINVAL, "temporal CSR: max_event %lld exceeds the %lld events of the table",
                            (long long)max_event, (long long)ev->num_events);
    const int64_t E = max_event < 0 ? ev->num_events : max_event;
    const int64_t N = ev->num_nodes;
    const int32_t *src = ev->src, *dst = ev->dst;
    const double *t = ev->t;

    /* Validate what the counting sort relies on; report the first bad row so the
     * message is the same whatever the thread count. */
    int64_t bad_id = E, bad_order = E;
#pragma omp parallel for reduction(min : bad_id, bad_order) schedule(static)
    for (int64_t e = 0; e < E; e++) {
        if (src[e] < 0 || src[e] >= N || dst[e] < 0 || dst[e] >= N) {
            if (e < bad_id) bad_id = e;
        }
        /* written as !(a <= b) so that a NaN time counts as out of order */
        if (e > 0 && !(t[e - 1] <= t[e])) {
            if (e < bad_order) bad_order = e;
        }
    }
    if (bad_id < E)
        return dgnn_err_set(err, DGNN_EINVAL, "temporal CSR: event %lld: node id (%d -> %d) outside [0, %lld)",
                            (long long)bad_id, src[bad_id], dst[bad_id], (long long)N);
    if (bad_order < E)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "temporal CSR: event %lld: time %.17g is before the previous event's %.17g "
                            "(the event table must be sorted by time)",
                            (long long)bad_order, t[bad_order], t[bad_order - 1]);

    const int C = pick_chunks(E, N);
    size_t n1 = (size_t)N + 1;
    int64_t *cnt = calloc((size_t)C * (size_t)(N > 0 ? N : 1), sizeof(int64_t)); /* (C, N) */
    g->rowptr = malloc(n1 * sizeof(int64_t));
    if (!cnt || !g->rowptr) {
        free(cnt);
        dgnn_tcsr_free(g);
        return dgnn_err_set(err, DGNN_ENOMEM, "temporal CSR: out of memory for %lld nodes", (long long)N);
    }

    /* 1. per-chunk degree counts */
#pragma omp parallel for schedule(static, 1) num_threads(C)
    for (int c = 0; c < C; c++) {
        int64_t lo = E * c / C, hi = E * (c + 1) / C;
        int64_t *my = cnt + (size_t)c * (size_t)N;
        for (int64_t e = lo; e < hi; e++) {
            if (mask && !(mask[e] & bits)) continue;
            my[src[e]]++;
            if (!directed && dst[e] != src[e]) my[dst[e]]++;
        }
    }
    /* 2. per node: chunk counts -> chunk start offsets within the node's list */
    g->rowptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < N; v++) {
        int64_t s = 0;
        for (int c = 0; c < C; c++) {
            int64_t x = cnt[(size_t)c * (size_t)N + (size_t)v];
            cnt[(size_t)c * (size_t)N + (size_t)v] = s;
            s += x;
        }
        g->rowptr[v + 1] = s;
    }
    /* 3. prefix sum over nodes (O(N), serial: cheap next to the fill) */
    for (int64_t v = 0; v < N; v++) g->rowptr[v + 1] += g->rowptr[v];
    const int64_t M = g->rowptr[N];

    size_t m = (size_t)(M > 0 ? M : 1);
    g->nbr = malloc(m * sizeof(int32_t));
    g->eid = malloc(m * sizeof(int64_t));
    g->ts = malloc(m * sizeof(double));
    if (!g->nbr || !g->eid || !g->ts) {
        free(cnt);
        dgnn_tcsr_free(g);
        return dgnn_err_set(err, DGNN_ENOMEM, "temporal CSR: out of memory for %lld entries", (long long)M);
    }

    /* 4. fill: each chunk writes at its own offsets (disjoint slots) */
    int64_t *rowptr = g->rowptr;
    int32_t *nbr = g->nbr;
    int64_t *eid = g->eid;
    double *ts = g->ts;
#pragma omp parallel for schedule(static, 1) num_threads(C)
    for (int c = 0; c < C; c++) {
        int64_t lo = E * c / C, hi = E * (c + 1) / C;
        int64_t *my = cnt + (size_t)c * (size_t)N;
        for (int64_t e = lo; e < hi; e++) {
            if (mask && !(mask[e] & bits)) continue;
            int32_t u = src[e], v = dst[e];
            int64_t p = rowptr[u] + my[u]++;
            nbr[p] = v;
            eid[p] = e;
            ts[p] = t[e];
            if (!directed && v != u) {
                p = rowptr[v] + my[v]++;
                nbr[p] = u;
                eid[p] = e;
                ts[p] = t[e];
            }
        }
    }
    free(cnt);
    g->num_nodes = N;
    g->num_entries = M;
    g->num_events = E;
    g->directed = directed ? 1 : 0;
    return DGNN_OK;
}

int64_t dgnn_tcsr_count_before(const dgnn_tcsr *g, int32_t v, double t) {
    DGNN_ASSERT(v >= 0 && v < g->num_nodes);
    const double *ts = g->ts;
    int64_t base = g->rowptr[v], lo = base, hi = g->rowptr[v + 1];
    /* lower bound: first entry with ts >= t (a NaN t finds nothing before it) */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ts[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo - base;
}
