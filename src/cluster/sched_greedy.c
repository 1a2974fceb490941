/* sched_greedy.c: DyGNeX's greedy scheduler (sched_internal.h): round-filling best fit,
 * largest first (a slack tree finds the round, a heap its least-loaded rank), an LPT
 * re-pack of each round, sorted chunking, then local search by moves and swaps.
 * docs/dygnex.md explains the choices; this file says how. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

/* Local search after greedy: a window swaps slots with another window, or moves to
 * another slot (its round keeping at least one window), whenever that lowers the
 * makespan (sum over rounds of the round's largest group). First improvement, passes
 * until none improves or the work budget (pair evaluations) runs out: the swaps fix what
 * a one-pass heuristic leaves, e.g. two windows of similar cost in rounds whose other
 * groups differ. Each evaluation is O(P): only the two slots' rounds change. */
static double round_max(const double *load, int64_t r, int64_t P) {
    double mx = 0;
    for (int64_t p = 0; p < P; p++) mx = load[r * P + p] > mx ? load[r * P + p] : mx;
    return mx;
}

static void improve_local(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R, double budget) {
    double *load = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    int64_t *count = dgnn_xcalloc((size_t)R, sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) load[slot[i]] += cost[i], count[slot[i] / P]++;
    double work = 0;
    for (int improved = 1; improved && work < budget;) {
        improved = 0;
        for (int64_t i = 0; i < n && work < budget; i++) {
            for (int64_t j = -1; j < n && work < budget; j = j < 0 ? i + 1 : j + 1) {
                /* j = -1: moves of i to every slot; else the swap of i and j > i */
                const int64_t a = slot[i], ra = a / P;
                const int64_t nb = j < 0 ? R * P : 1;
                for (int64_t q = 0; q < nb && work < budget; q++) {
                    const int64_t b = j < 0 ? q : slot[j], rb = b / P;
                    if (b == a) continue;
                    if (j < 0 && rb != ra && count[ra] == 1) continue; /* a round must keep work */
                    const double d = j < 0 ? cost[i] : cost[i] - cost[j];
                    if (j >= 0 && d == 0) continue;
                    work += (double)P;
                    const double before = round_max(load, ra, P) + (rb != ra ? round_max(load, rb, P) : 0);
                    load[a] -= d, load[b] += d;
                    const double after = round_max(load, ra, P) + (rb != ra ? round_max(load, rb, P) : 0);
                    if (after < before * (1 - 1e-12)) {
                        slot[i] = b;
                        if (j >= 0) slot[j] = a;
                        else count[ra]--, count[rb]++;
                        improved = 1;
                        break; /* i's slot changed: go on from the next pair */
                    }
                    load[a] += d, load[b] -= d;
                }
                if (slot[i] != a) break;
            }
        }
    }
    free(load);
    free(count);
}

/* ---- greedy ---- */

/* A min-heap of the P rank loads of one round (ranks ordered by load, then id). */
typedef struct {
    double *load; /* (P) by rank */
    int64_t *h;   /* (P) heap of ranks */
} round_heap;

static int heap_less(const round_heap *q, int64_t a, int64_t b) {
    return q->load[a] < q->load[b] || (q->load[a] == q->load[b] && a < b);
}
static void heap_down(round_heap *q, int64_t P, int64_t i) {
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < P && heap_less(q, q->h[l], q->h[m])) m = l;
        if (r < P && heap_less(q, q->h[r], q->h[m])) m = r;
        if (m == i) return;
        int64_t t = q->h[i];
        q->h[i] = q->h[m], q->h[m] = t;
        i = m;
    }
}

/* LPT of the windows idx[0..m-1] (sorted descending) on P ranks: rank of each into
 * rank_out; returns the max load. */
static double lpt(int64_t *rank_out, const int64_t *idx, int64_t m, const double *cost, int64_t P, double *load,
                  int64_t *heap) {
    round_heap q = {load, heap};
    for (int64_t p = 0; p < P; p++) load[p] = 0, heap[p] = p;
    double mx = 0;
    for (int64_t k = 0; k < m; k++) {
        int64_t p = q.h[0];
        rank_out[k] = p;
        load[p] += cost[idx[k]];
        if (load[p] > mx) mx = load[p];
        heap_down(&q, P, 0);
    }
    return mx;
}

/* A max segment tree over the rounds' slack (maximum - least rank load), for first fit. */
typedef struct {
    int64_t size; /* leaves: a power of two >= R */
    double *t;    /* (2 size) */
} slack_tree;
static void slack_set(slack_tree *st, int64_t r, double v) {
    int64_t i = st->size + r;
    st->t[i] = v;
    for (i /= 2; i >= 1; i /= 2) st->t[i] = st->t[2 * i] > st->t[2 * i + 1] ? st->t[2 * i] : st->t[2 * i + 1];
}
/* the leftmost round with slack >= c, or -1 */
static int64_t slack_first(const slack_tree *st, double c) {
    if (!(st->t[1] >= c)) return -1;
    int64_t i = 1;
    while (i < st->size) i = st->t[2 * i] >= c ? 2 * i : 2 * i + 1;
    return i - st->size;
}
/* the round with the largest slack (leftmost on ties) */
static int64_t slack_argmax(const slack_tree *st) { return slack_first(st, st->t[1]); }

/* Round-filling first fit, largest first. Each window (descending cost) goes to the least-
 * loaded rank of a round where it raises the round's maximum the least: the first round
 * whose least-loaded rank has room for it under the round's maximum takes it for free
 * (first fit decreasing); if none has room, the round with the most room (raising its
 * maximum by cost - room) or an empty round (raising the makespan by the cost), whichever
 * costs less, ties opening the empty round. The last windows fill the rounds still empty,
 * so all R rounds hold work (R optimizer steps). Then each round is re-packed by LPT when
 * that lowers its maximum, and the result is compared with sorted chunking (one window per
 * slot: the optimum among such schedules, makespan <= total / P + the largest cost) and
 * with sorted chunks + LPT for any R (below); the best is kept, then improved by local
 * search (improve_local). O(n (log R + log P) + R P), plus the search's bounded work. */
void sched_greedy(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R) {
    int64_t *ord = dgnn_xmalloc((size_t)n * sizeof *ord);
    for (int64_t i = 0; i < n; i++) ord[i] = i;
    sched_sort_desc(ord, n, cost);
    double *load = dgnn_xcalloc((size_t)(R * P), sizeof(double));
    int64_t *heap = dgnn_xmalloc((size_t)(R * P) * sizeof(int64_t));
    double *mx = dgnn_xcalloc((size_t)R, sizeof(double));
    for (int64_t r = 0; r < R; r++)
        for (int64_t p = 0; p < P; p++) heap[r * P + p] = p;
    slack_tree st = {1, NULL};
    while (st.size < R) st.size *= 2;
    st.t = dgnn_xmalloc((size_t)(2 * st.size) * sizeof(double));
    for (int64_t i = 0; i < 2 * st.size; i++) st.t[i] = -INFINITY; /* unopened rounds never fit */
    int64_t opened = 0; /* rounds 0..opened-1 hold work */
    for (int64_t k = 0; k < n; k++) {
        const double c = cost[ord[k]];
        const int64_t empty = R - opened, left = n - k;
        int64_t best = -1;
        if (opened > 0 && (left > empty || empty == 0)) {
            best = slack_first(&st, c * (1 - 1e-12));
            if (best < 0) {
                int64_t r = slack_argmax(&st);
                double d = c - st.t[1];
                best = (empty > 0 && !(d < c)) ? -1 : r; /* a tie with an empty round opens it */
            }
        }
        if (best < 0) {
            DGNN_ASSERT(opened < R);
            best = opened++;
        }
        round_heap q = {load + best * P, heap + best * P};
        int64_t p = q.h[0];
        q.load[p] += c;
        if (q.load[p] > mx[best]) mx[best] = q.load[p];
        heap_down(&q, P, 0);
        slack_set(&st, best, mx[best] - q.load[q.h[0]]);
        slot[ord[k]] = best * P + p;
    }
    free(st.t);
    /* LPT re-pack of each round */
    int64_t *members = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    int64_t *rptr = dgnn_xmalloc((size_t)(R + 1) * sizeof(int64_t));
    sched_round_members(rptr, members, slot, ord, n, P, R);
    int64_t *rk = dgnn_xmalloc((size_t)(P > n ? P : n) * sizeof(int64_t));
    double *lload = dgnn_xmalloc((size_t)P * sizeof(double));
    int64_t *lheap = dgnn_xmalloc((size_t)P * sizeof(int64_t));
    for (int64_t r = 0; r < R; r++) {
        int64_t m = rptr[r + 1] - rptr[r];
        double l = lpt(rk, members + rptr[r], m, cost, P, lload, lheap);
        if (l < mx[r] * (1 - 1e-12))
            for (int64_t j = 0; j < m; j++) slot[members[rptr[r] + j]] = r * P + rk[j];
    }
    /* sorted chunking, when every round can get 1..P windows */
    if (n >= R && n <= R * P) {
        int64_t *chunk = dgnn_xmalloc((size_t)n * sizeof(int64_t));
        int64_t k = 0;
        for (int64_t r = 0; r < R; r++) {
            int64_t size = n - k - (R - r - 1);
            if (size > P) size = P;
            for (int64_t j = 0; j < size; j++, k++) chunk[ord[k]] = r * P + j;
        }
        if (sched_slot_makespan(chunk, cost, n, P, R) < sched_slot_makespan(slot, cost, n, P, R) * (1 - 1e-12))
            memcpy(slot, chunk, (size_t)n * sizeof(int64_t));
        free(chunk);
    }
    /* sorted chunks for any R (the first fit above can pile most windows into its first
     * rounds when R x P < n): windows in descending order fill rounds 0..R-1 in chunks of
     * floor(n / R), the last n mod R rounds (the smallest windows) one more, so windows of
     * similar cost share a round; then LPT inside each round */
    if (n >= R) {
        int64_t *chunk = dgnn_xmalloc((size_t)n * sizeof(int64_t));
        const int64_t base = n / R, extra = n % R;
        int64_t k = 0;
        for (int64_t r = 0; r < R; r++) {
            const int64_t m = base + (r >= R - extra);
            for (int64_t j = 0; j < m; j++) members[k + j] = ord[k + j];
            lpt(rk, members + k, m, cost, P, lload, lheap);
            for (int64_t j = 0; j < m; j++) chunk[members[k + j]] = r * P + rk[j];
            k += m;
        }
        if (sched_slot_makespan(chunk, cost, n, P, R) < sched_slot_makespan(slot, cost, n, P, R) * (1 - 1e-12))
            memcpy(slot, chunk, (size_t)n * sizeof(int64_t));
        free(chunk);
    }
    free(rk), free(lload), free(lheap), free(members), free(rptr);
    free(ord), free(load), free(heap), free(mx);
    improve_local(slot, cost, n, P, R, 5e6); /* ~20M flops at most: 0.1 s */
}
