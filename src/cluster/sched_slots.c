/* sched_slots.c: the helpers every DyGNeX scheduler uses on a slot assignment
 * (sched_internal.h): the one cost order they share, the windows of each round, and the
 * makespan. Below sched.c,
 * sched_greedy.c and sched_ilp.c, so that none of them calls another back. */
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

/* descending cost, ties by ascending position: a total order, so qsort is deterministic */
typedef struct {
    double c;
    int64_t i;
} cost_pos;
static int cmp_desc(const void *a, const void *b) {
    const cost_pos *x = a, *y = b;
    if (x->c != y->c) return x->c > y->c ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}
void sched_sort_desc(int64_t *idx, int64_t n, const double *cost) {
    cost_pos *t = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    for (int64_t k = 0; k < n; k++) t[k].c = cost[idx[k]], t[k].i = idx[k];
    qsort(t, (size_t)n, sizeof *t, cmp_desc);
    for (int64_t k = 0; k < n; k++) idx[k] = t[k].i;
    free(t);
}

void sched_round_members(int64_t *rptr, int64_t *members, const int64_t *slot, const int64_t *ord, int64_t n,
                         int64_t P, int64_t R) {
    memset(rptr, 0, (size_t)(R + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) rptr[slot[i] / P + 1]++;
    for (int64_t r = 0; r < R; r++) rptr[r + 1] += rptr[r];
    int64_t *fill = dgnn_xmalloc((size_t)R * sizeof(int64_t));
    memcpy(fill, rptr, (size_t)R * sizeof(int64_t));
    for (int64_t k = 0; k < n; k++) members[fill[slot[ord[k]] / P]++] = ord[k]; /* descending within a round */
    free(fill);
}

/* sum over rounds of the round's largest group load */
double sched_slot_makespan(const int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R) {
    double *load = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    for (int64_t i = 0; i < n; i++) load[slot[i]] += cost[i];
    double ms = 0;
    for (int64_t r = 0; r < R; r++) {
        double mx = 0;
        for (int64_t p = 0; p < P; p++) mx = load[r * P + p] > mx ? load[r * P + p] : mx;
        ms += mx;
    }
    free(load);
    return ms;
}
