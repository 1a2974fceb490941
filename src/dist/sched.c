/* sched.c: DyGNeX's schedulers (sched.h): even (the published systems' baseline), greedy
 * (round-filling best fit, largest first) and ilp (GLPK's MIP: an exact slot model for
 * small instances, a round decomposition for large ones). docs/dygnex.md explains the
 * choices and the guarantees; this file says how. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/sched.h"

#if defined(__has_include)
#if __has_include(<glpk.h>)
#include <glpk.h>
#define SCHED_HAVE_GLPK 1
#endif
#endif
#ifndef SCHED_HAVE_GLPK
#define SCHED_HAVE_GLPK 0
#endif

dgnn_sched_opts dgnn_sched_opts_default(void) {
    dgnn_sched_opts o;
    memset(&o, 0, sizeof o);
    o.kind = DGNN_SCHED_GREEDY;
    o.ranks = 1;
    o.rounds = 0;
    o.time_limit = 10.0;
    o.ilp_exact_max = 200000;
    return o;
}

int dgnn_sched_kind_parse(const char *name) {
    if (!name) return -1;
    if (strcmp(name, "even") == 0) return DGNN_SCHED_EVEN;
    if (strcmp(name, "greedy") == 0) return DGNN_SCHED_GREEDY;
    if (strcmp(name, "ilp") == 0) return DGNN_SCHED_ILP;
    return -1;
}

const char *dgnn_sched_kind_name(dgnn_sched_kind k) {
    return k == DGNN_SCHED_EVEN ? "even" : k == DGNN_SCHED_GREEDY ? "greedy" : "ilp";
}

void dgnn_sched_free(dgnn_sched *s) {
    free(s->group_ptr);
    free(s->pos);
    free(s->sample);
    free(s->cost);
    memset(s, 0, sizeof *s);
}

const int64_t *dgnn_sched_group(const dgnn_sched *s, int64_t r, int64_t p, int64_t *count) {
    int64_t g = r * s->num_ranks + p;
    *count = s->group_ptr[g + 1] - s->group_ptr[g];
    return s->pos + s->group_ptr[g];
}

double dgnn_sched_group_cost(const dgnn_sched *s, int64_t r, int64_t p) {
    int64_t cnt;
    const int64_t *w = dgnn_sched_group(s, r, p, &cnt);
    double c = 0;
    for (int64_t i = 0; i < cnt; i++) c += s->cost[w[i]];
    return c;
}

void dgnn_sched_eval(const dgnn_sched *s, dgnn_sched_metrics *m) {
    memset(m, 0, sizeof *m);
    for (int64_t r = 0; r < s->num_rounds; r++) {
        double mx = 0;
        for (int64_t p = 0; p < s->num_ranks; p++) {
            double c = dgnn_sched_group_cost(s, r, p);
            m->total += c;
            if (c > mx) mx = c;
            int64_t g = r * s->num_ranks + p;
            if (s->group_ptr[g + 1] == s->group_ptr[g]) m->empty_groups++;
        }
        m->makespan += mx;
    }
    m->mean_sum = m->total / (double)s->num_ranks;
    m->imbalance = m->mean_sum > 0 ? m->makespan / m->mean_sum - 1.0 : 0.0;
}

int dgnn_sched_validate(const dgnn_sched *s, dgnn_err *err) {
    const int64_t n = s->num_windows, G = s->num_rounds * s->num_ranks;
    if (s->group_ptr[0] != 0 || s->group_ptr[G] != n)
        return dgnn_err_set(err, DGNN_EINVAL, "schedule: groups hold %lld windows, expected %lld",
                            (long long)(s->group_ptr[G] - s->group_ptr[0]), (long long)n);
    for (int64_t g = 0; g < G; g++)
        if (s->group_ptr[g + 1] < s->group_ptr[g])
            return dgnn_err_set(err, DGNN_EINVAL, "schedule: group %lld has a negative length", (long long)g);
    uint8_t *seen = dgnn_xcalloc((size_t)(n > 0 ? n : 1), 1);
    int rc = DGNN_OK;
    for (int64_t i = 0; i < n && !rc; i++) {
        int64_t w = s->pos[i];
        if (w < 0 || w >= n) rc = dgnn_err_set(err, DGNN_EINVAL, "schedule: window position %lld out of range", (long long)w);
        else if (seen[w]++) rc = dgnn_err_set(err, DGNN_EINVAL, "schedule: window %lld placed twice", (long long)w);
    }
    free(seen);
    return rc;
}

/* ---- helpers ---- */

/* idx[0..n-1] = the positions by descending cost, ties by position: one deterministic
 * order that every scheduler and the ILP's symmetry breaking share. */
typedef struct {
    double c;
    int64_t i;
} cost_pos;
static int cmp_desc(const void *a, const void *b) {
    const cost_pos *x = a, *y = b;
    if (x->c != y->c) return x->c > y->c ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}
static void sort_desc(int64_t *idx, int64_t n, const double *cost) {
    cost_pos *t = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    for (int64_t k = 0; k < n; k++) t[k].c = cost[idx[k]], t[k].i = idx[k];
    qsort(t, (size_t)n, sizeof *t, cmp_desc);
    for (int64_t k = 0; k < n; k++) idx[k] = t[k].i;
    free(t);
}

double dgnn_sched_lower_bound(const double *cost, int64_t n, int64_t P, int64_t R) {
    if (n <= 0) return 0;
    int64_t *o = dgnn_xmalloc((size_t)n * sizeof *o);
    for (int64_t i = 0; i < n; i++) o[i] = i;
    sort_desc(o, n, cost);
    double total = 0;
    for (int64_t i = 0; i < n; i++) total += cost[i];
    double lb = total / (double)P;
    /* every round is non-empty: the round holding the largest window costs >= it, the R-1
     * others >= their own largest window, i.e. at least R-1 distinct other windows */
    if (R > n) R = n;
    double chain = cost[o[0]];
    for (int64_t k = 0; k < R - 1; k++) chain += cost[o[n - 1 - k]];
    if (chain > lb) lb = chain;
    /* more windows than slots: some slot holds two, the smallest two at the least; each of
     * the R rounds also costs >= its largest window (the bound above) */
    if (n > R * P && cost[o[n - 1]] + cost[o[n - 2]] > lb) lb = cost[o[n - 1]] + cost[o[n - 2]];
    free(o);
    return lb;
}

/* slot[i] = r * P + p of each window -> out (positions ascending within a group) */
static void build_sched(dgnn_sched *s, const int64_t *slot, const double *cost, const int64_t *sample, int64_t n,
                        int64_t P, int64_t R) {
    memset(s, 0, sizeof *s);
    s->num_windows = n, s->num_ranks = P, s->num_rounds = R;
    const int64_t G = R * P;
    s->group_ptr = dgnn_xcalloc((size_t)(G + 1), sizeof(int64_t));
    s->pos = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    s->sample = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    s->cost = dgnn_xmalloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        DGNN_ASSERT(slot[i] >= 0 && slot[i] < G);
        s->group_ptr[slot[i] + 1]++;
        s->sample[i] = sample ? sample[i] : i;
        s->cost[i] = cost[i];
    }
    for (int64_t g = 0; g < G; g++) s->group_ptr[g + 1] += s->group_ptr[g];
    int64_t *fill = dgnn_xmalloc((size_t)(G > 0 ? G : 1) * sizeof(int64_t));
    memcpy(fill, s->group_ptr, (size_t)G * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) s->pos[fill[slot[i]]++] = i;
    free(fill);
}

/* makespan of a slot assignment */
static double slot_makespan(const int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R) {
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

/* ---- even ---- */

/* Rank p holds the p-th contiguous slice (the first n % P slices one longer); round r
 * trains the r-th window of every slice. */
static void sched_even(int64_t *slot, int64_t n, int64_t P) {
    const int64_t base = n / P, extra = n % P;
    int64_t i = 0;
    for (int64_t p = 0; p < P; p++) {
        int64_t len = base + (p < extra);
        for (int64_t r = 0; r < len; r++) slot[i++] = r * P + p;
    }
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
static void sched_greedy(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R) {
    int64_t *ord = dgnn_xmalloc((size_t)n * sizeof *ord);
    for (int64_t i = 0; i < n; i++) ord[i] = i;
    sort_desc(ord, n, cost);
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
    int64_t *rptr = dgnn_xcalloc((size_t)(R + 1), sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) rptr[slot[i] / P + 1]++;
    for (int64_t r = 0; r < R; r++) rptr[r + 1] += rptr[r];
    int64_t *fill = dgnn_xmalloc((size_t)R * sizeof(int64_t));
    memcpy(fill, rptr, (size_t)R * sizeof(int64_t));
    for (int64_t k = 0; k < n; k++) members[fill[slot[ord[k]] / P]++] = ord[k]; /* descending within a round */
    free(fill);
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
        if (slot_makespan(chunk, cost, n, P, R) < slot_makespan(slot, cost, n, P, R) * (1 - 1e-12))
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
        if (slot_makespan(chunk, cost, n, P, R) < slot_makespan(slot, cost, n, P, R) * (1 - 1e-12))
            memcpy(slot, chunk, (size_t)n * sizeof(int64_t));
        free(chunk);
    }
    free(rk), free(lload), free(lheap), free(members), free(rptr);
    free(ord), free(load), free(heap), free(mx);
    improve_local(slot, cost, n, P, R, 5e6); /* ~20M flops at most: 0.1 s */
}

/* ---- ILP ---- */

#if SCHED_HAVE_GLPK
typedef struct {
    double *warm;  /* (ncols + 1) 1-based column values of the warm start, or NULL */
    int warm_given;
    double bound;  /* best bound seen in the tree (scaled units), -inf before */
} ilp_cb;

static void ilp_callback(glp_tree *tree, void *info) {
    ilp_cb *cb = info;
    if (glp_ios_reason(tree) == GLP_IHEUR && cb->warm && !cb->warm_given) {
        glp_ios_heur_sol(tree, cb->warm);
        cb->warm_given = 1;
    }
    int b = glp_ios_best_node(tree);
    if (b) {
        double v = glp_ios_node_bound(tree, b);
        if (v > cb->bound) cb->bound = v;
    }
}

/* The exact slot model of windows w[0..m-1] (sorted descending by cost) on R rounds x P
 * ranks:  min sum_r M_r  s.t.  sum_{r,p} x[k,r,p] = 1 (each window once),
 *         sum_k c_k x[k,r,p] <= M_r (every group under its round's maximum),
 *         sum_{k,p} x[k,r,p] >= 1 (every round holds work; only when R > 1).
 * Symmetry: rounds are interchangeable and so are the ranks inside a round; relabelling
 * rounds by their first (largest) window and ranks within a round likewise gives an
 * optimal solution with window k in a round <= k and a rank <= k, so only those x exist.
 * Costs are divided by the largest one (GLPK's tolerances are absolute).
 * warm_slot[k] (slot of window k, any labelling) seeds the search. On return slot_out[k]
 * holds the best solution found; returns 1 when an integer solution was found (2 when
 * proven optimal), 0 when none (time, solver failure); *bound = proven lower bound in the
 * original units (0 when none). */
static int ilp_exact(int64_t *slot_out, double *bound, const double *c, int64_t m, int64_t P, int64_t R,
                     const int64_t *warm_slot, double time_limit) {
    *bound = 0;
    const double cmax = c[0] > 0 ? c[0] : 1;
    /* columns: x for k, r <= min(k, R-1), p <= min(k, P-1), then M_0..M_{R-1} */
    int64_t nx = 0;
    int64_t *col0 = dgnn_xmalloc((size_t)(m + 1) * sizeof(int64_t)); /* first x column of window k */
    for (int64_t k = 0; k < m; k++) {
        col0[k] = nx;
        nx += (k + 1 < R ? k + 1 : R) * (k + 1 < P ? k + 1 : P);
    }
    col0[m] = nx;
    const int64_t ncols = nx + R;
    /* plus, per window k and round r it may take: c_k sum_p x[k,r,p] <= M_r. Implied for
     * integer x, but it lifts the LP bound: without it the LP spreads a window over the
     * ranks and its round maximum falls to c_k / P. */
    int64_t nkr = 0, *kr0 = dgnn_xmalloc((size_t)(m + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < m; k++) kr0[k] = nkr, nkr += k + 1 < R ? k + 1 : R;
    kr0[m] = nkr;
    const int64_t rows_kr = m + R * P + (R > 1 ? R : 0);
    const int64_t nrows = rows_kr + nkr;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, (int)nrows);
    glp_add_cols(lp, (int)ncols);
    for (int64_t k = 0; k < m; k++) glp_set_row_bnds(lp, (int)(k + 1), GLP_FX, 1, 1);
    for (int64_t g = 0; g < R * P; g++) glp_set_row_bnds(lp, (int)(m + g + 1), GLP_UP, 0, 0);
    if (R > 1)
        for (int64_t r = 0; r < R; r++) glp_set_row_bnds(lp, (int)(m + R * P + r + 1), GLP_LO, 1, 0);
    for (int64_t j = 0; j < nkr; j++) glp_set_row_bnds(lp, (int)(rows_kr + j + 1), GLP_UP, 0, 0);
    const int64_t nnz = nx * (R > 1 ? 4 : 3) + R * P + nkr;
    int *ia = dgnn_xmalloc((size_t)(nnz + 1) * sizeof(int)), *ja = dgnn_xmalloc((size_t)(nnz + 1) * sizeof(int));
    double *ar = dgnn_xmalloc((size_t)(nnz + 1) * sizeof(double));
    int64_t e = 0;
    for (int64_t k = 0; k < m; k++) {
        int64_t rr = k + 1 < R ? k + 1 : R, pp = k + 1 < P ? k + 1 : P, j = col0[k];
        for (int64_t r = 0; r < rr; r++)
            for (int64_t p = 0; p < pp; p++, j++) {
                glp_set_col_kind(lp, (int)(j + 1), GLP_BV);
                e++, ia[e] = (int)(k + 1), ja[e] = (int)(j + 1), ar[e] = 1;
                e++, ia[e] = (int)(m + r * P + p + 1), ja[e] = (int)(j + 1), ar[e] = c[k] / cmax;
                if (R > 1) e++, ia[e] = (int)(m + R * P + r + 1), ja[e] = (int)(j + 1), ar[e] = 1;
                e++, ia[e] = (int)(rows_kr + kr0[k] + r + 1), ja[e] = (int)(j + 1), ar[e] = c[k] / cmax;
            }
    }
    for (int64_t k = 0; k < m; k++)
        for (int64_t r = 0; r < kr0[k + 1] - kr0[k]; r++)
            e++, ia[e] = (int)(rows_kr + kr0[k] + r + 1), ja[e] = (int)(nx + r + 1), ar[e] = -1;
    for (int64_t r = 0; r < R; r++) {
        int col = (int)(nx + r + 1);
        glp_set_col_bnds(lp, col, GLP_LO, 0, 0);
        glp_set_obj_coef(lp, col, 1.0);
        for (int64_t p = 0; p < P; p++) e++, ia[e] = (int)(m + r * P + p + 1), ja[e] = col, ar[e] = -1;
    }
    DGNN_ASSERT(e == nnz);
    glp_load_matrix(lp, (int)nnz, ia, ja, ar);
    free(ia), free(ja), free(ar);

    /* the warm start, relabelled into the symmetry-broken form */
    double *warm = dgnn_xcalloc((size_t)(ncols + 1), sizeof(double));
    {
        int64_t *rmap = dgnn_xmalloc((size_t)R * sizeof(int64_t)), *pmap = dgnn_xmalloc((size_t)(R * P) * sizeof(int64_t));
        int64_t *pnext = dgnn_xcalloc((size_t)R, sizeof(int64_t)), rnext = 0;
        double *wl = dgnn_xcalloc((size_t)(R * P), sizeof(double));
        for (int64_t r = 0; r < R; r++) rmap[r] = -1;
        for (int64_t g = 0; g < R * P; g++) pmap[g] = -1;
        for (int64_t k = 0; k < m; k++) {
            int64_t r0 = warm_slot[k] / P, g0 = warm_slot[k];
            if (rmap[r0] < 0) rmap[r0] = rnext++;
            int64_t r = rmap[r0];
            if (pmap[g0] < 0) pmap[g0] = pnext[r]++;
            int64_t p = pmap[g0];
            int64_t pp = k + 1 < P ? k + 1 : P;
            DGNN_ASSERT(r <= k && p <= k);
            warm[col0[k] + r * pp + p + 1] = 1;
            wl[r * P + p] += c[k] / cmax;
        }
        for (int64_t r = 0; r < R; r++) {
            double mx = 0;
            for (int64_t p = 0; p < P; p++) mx = wl[r * P + p] > mx ? wl[r * P + p] : mx;
            warm[nx + r + 1] = mx;
        }
        free(rmap), free(pmap), free(pnext), free(wl);
    }

    double t0 = dgnn_now();
    int found = 0;
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    sm.tm_lim = (int)(time_limit * 1000);
    if (sm.tm_lim < 1) sm.tm_lim = 1;
    int ret = glp_simplex(lp, &sm);
    if (ret == 0 && glp_get_status(lp) == GLP_OPT) {
        double left = time_limit - (dgnn_now() - t0);
        if (left > 0.001) {
            ilp_cb cb = {warm, 0, -INFINITY};
            glp_iocp io;
            glp_init_iocp(&io);
            io.msg_lev = GLP_MSG_OFF;
            io.presolve = GLP_OFF; /* the callback's warm start is in the original columns */
            io.tm_lim = (int)(left * 1000);
            io.cb_func = ilp_callback;
            io.cb_info = &cb;
            io.mip_gap = 1e-9;
            ret = glp_intopt(lp, &io);
            int st = glp_mip_status(lp);
            if (st == GLP_OPT || st == GLP_FEAS) {
                found = st == GLP_OPT && ret == 0 ? 2 : 1;
                /* extract */
                for (int64_t k = 0; k < m; k++) {
                    int64_t rr = k + 1 < R ? k + 1 : R, pp = k + 1 < P ? k + 1 : P, j = col0[k], hit = -1;
                    for (int64_t r = 0; r < rr && hit < 0; r++)
                        for (int64_t p = 0; p < pp; p++, j++)
                            if (glp_mip_col_val(lp, (int)(j + 1)) > 0.5) {
                                hit = r * P + p;
                                break;
                            }
                    DGNN_ASSERT(hit >= 0);
                    slot_out[k] = hit;
                }
                if (found == 2) *bound = glp_mip_obj_val(lp) * cmax;
                else if (isfinite(cb.bound)) *bound = cb.bound * cmax;
            }
        }
    }
    free(warm), free(col0), free(kr0);
    glp_delete_prob(lp);
    return found;
}
#endif

/* The ILP scheduler. Exact slot model when it is small enough; else the decomposition:
 * greedy fixes which windows share a round, then every round whose greedy maximum is above
 * its own lower bound is solved exactly as P||Cmax (the same model with R = 1). */
static void sched_ilp(int64_t *slot, const double *cost, int64_t n, int64_t P, int64_t R, const dgnn_sched_opts *o,
                      dgnn_sched_info *info) {
    sched_greedy(slot, cost, n, P, R);
    const double greedy_ms = slot_makespan(slot, cost, n, P, R);
    info->method = "ilp-exact";
#if !SCHED_HAVE_GLPK
    (void)o;
    info->method = "greedy (ilp fallback)";
    info->fallback = 1;
    snprintf(info->msg, sizeof info->msg, "no ILP solver in this build (GLPK's glpk.h absent): using greedy");
    return;
#else
    if (o->ilp_disable) {
        info->method = "greedy (ilp fallback)";
        info->fallback = 1;
        snprintf(info->msg, sizeof info->msg, "ILP solver disabled: using greedy");
        return;
    }
    glp_term_out(GLP_OFF);
    int64_t *ord = dgnn_xmalloc((size_t)n * sizeof *ord);
    for (int64_t i = 0; i < n; i++) ord[i] = i;
    sort_desc(ord, n, cost);
    double *c = dgnn_xmalloc((size_t)n * sizeof(double));
    int64_t *ws = dgnn_xmalloc((size_t)n * sizeof(int64_t)), *out = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    int64_t nx = 0;
    for (int64_t k = 0; k < n; k++) nx += (k + 1 < R ? k + 1 : R) * (k + 1 < P ? k + 1 : P);
    if (nx <= o->ilp_exact_max) {
        for (int64_t k = 0; k < n; k++) c[k] = cost[ord[k]], ws[k] = slot[ord[k]];
        double b = 0;
        info->ilp_vars = nx;
        int found = ilp_exact(out, &b, c, n, P, R, ws, o->time_limit);
        if (found) {
            int64_t *cand = dgnn_xmalloc((size_t)n * sizeof(int64_t));
            for (int64_t k = 0; k < n; k++) cand[ord[k]] = out[k];
            if (slot_makespan(cand, cost, n, P, R) <= greedy_ms) memcpy(slot, cand, (size_t)n * sizeof(int64_t));
            free(cand);
            if (b > info->bound) info->bound = b;
            info->optimal = found == 2;
            if (found == 1)
                snprintf(info->msg, sizeof info->msg, "ILP stopped at the %.3g s time limit: best schedule found kept",
                         o->time_limit);
        } else {
            info->method = "greedy (ilp fallback)";
            info->fallback = 1;
            snprintf(info->msg, sizeof info->msg,
                     "ILP found no schedule within the %.3g s time limit (%lld binaries): using greedy", o->time_limit,
                     (long long)nx);
        }
    } else {
        /* decomposition: per round P||Cmax on greedy's round partition */
        info->method = "ilp-rounds";
        double t0 = dgnn_now();
        int64_t *rptr = dgnn_xcalloc((size_t)(R + 1), sizeof(int64_t)), *mem = dgnn_xmalloc((size_t)n * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++) rptr[slot[i] / P + 1]++;
        for (int64_t r = 0; r < R; r++) rptr[r + 1] += rptr[r];
        int64_t *fill = dgnn_xmalloc((size_t)R * sizeof(int64_t));
        memcpy(fill, rptr, (size_t)R * sizeof(int64_t));
        for (int64_t k = 0; k < n; k++) mem[fill[slot[ord[k]] / P]++] = ord[k]; /* descending within a round */
        free(fill);
        /* rounds that need the solver: greedy's maximum above the round's own bound */
        double round_bound = 0;
        int64_t need = 0, all_opt = 1, skipped = 0, timeouts = 0;
        double *rlb = dgnn_xmalloc((size_t)R * sizeof(double)), *rmx = dgnn_xmalloc((size_t)R * sizeof(double));
        double *gl = dgnn_xcalloc((size_t)(R * P), sizeof(double));
        for (int64_t i = 0; i < n; i++) gl[slot[i]] += cost[i];
        for (int64_t r = 0; r < R; r++) {
            const int64_t *w = mem + rptr[r], mr = rptr[r + 1] - rptr[r];
            double sum = 0, mx = 0;
            for (int64_t j = 0; j < mr; j++) sum += cost[w[j]];
            for (int64_t p = 0; p < P; p++) mx = gl[r * P + p] > mx ? gl[r * P + p] : mx;
            double lb = mr ? cost[w[0]] : 0;
            if (sum / (double)P > lb) lb = sum / (double)P;
            if (mr > P && cost[w[P - 1]] + cost[w[P]] > lb) lb = cost[w[P - 1]] + cost[w[P]]; /* pigeonhole */
            rlb[r] = lb, rmx[r] = mx;
            if (mx > lb * (1 + 1e-9)) need++;
        }
        for (int64_t r = 0; r < R; r++) {
            if (!(rmx[r] > rlb[r] * (1 + 1e-9))) {
                round_bound += rmx[r]; /* greedy meets the round's bound: optimal for it */
                continue;
            }
            const int64_t *w = mem + rptr[r], mr = rptr[r + 1] - rptr[r];
            int64_t vx = 0;
            for (int64_t k = 0; k < mr; k++) vx += k + 1 < P ? k + 1 : P;
            double left = o->time_limit - (dgnn_now() - t0);
            if (vx > o->ilp_exact_max || left <= 0.001) {
                skipped++, all_opt = 0, round_bound += rlb[r], need--;
                continue;
            }
            if (vx > info->ilp_vars) info->ilp_vars = vx;
            for (int64_t k = 0; k < mr; k++) c[k] = cost[w[k]], ws[k] = slot[w[k]] % P;
            double b = 0;
            int found = ilp_exact(out, &b, c, mr, P, 1, ws, left / (double)need);
            need--;
            if (found) {
                double mx = 0;
                memset(gl + r * P, 0, (size_t)P * sizeof(double));
                for (int64_t k = 0; k < mr; k++) gl[r * P + out[k]] += c[k];
                for (int64_t p = 0; p < P; p++) mx = gl[r * P + p] > mx ? gl[r * P + p] : mx;
                if (mx <= rmx[r])
                    for (int64_t k = 0; k < mr; k++) slot[w[k]] = r * P + out[k];
                round_bound += b > rlb[r] ? b : rlb[r];
                if (found != 2) all_opt = 0, timeouts++;
            } else {
                all_opt = 0, timeouts++;
                round_bound += rlb[r];
            }
        }
        info->optimal = (int)all_opt;
        info->round_bound = round_bound;
        if (skipped || timeouts)
            snprintf(info->msg, sizeof info->msg,
                     "ILP decomposition: %lld round(s) left to greedy (model too large or no time left), %lld "
                     "stopped at the time limit",
                     (long long)skipped, (long long)timeouts);
        free(rptr), free(mem), free(rlb), free(rmx), free(gl);
    }
    free(ord), free(c), free(ws), free(out);
#endif
}

int dgnn_schedule(dgnn_sched *out, const double *cost, const int64_t *sample, int64_t n, const dgnn_sched_opts *o,
                  dgnn_sched_info *info, dgnn_err *err) {
    dgnn_sched_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    info->round_bound = NAN;
    memset(out, 0, sizeof *out);
    if (n < 1) return dgnn_err_set(err, DGNN_EINVAL, "schedule: no windows to schedule");
    if (o->ranks < 1) return dgnn_err_set(err, DGNN_EINVAL, "schedule: --workers must be >= 1, got %lld", (long long)o->ranks);
    for (int64_t i = 0; i < n; i++)
        if (!(cost[i] >= 0) || !isfinite(cost[i]))
            return dgnn_err_set(err, DGNN_EINVAL, "schedule: window %lld: cost %g is not a finite number >= 0",
                                (long long)i, cost[i]);
    const int64_t P = o->ranks;
    int64_t R = (n + P - 1) / P;
    if (o->kind != DGNN_SCHED_EVEN && o->rounds > 0) {
        if (o->rounds > n)
            return dgnn_err_set(err, DGNN_EINVAL, "schedule: --rounds %lld is more than the %lld windows",
                                (long long)o->rounds, (long long)n);
        R = o->rounds;
    }
    int64_t *slot = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    double t0 = dgnn_now();
    if (o->kind != DGNN_SCHED_EVEN && o->rounds <= 0 && R > 1) {
        /* Default rounds: ceil(n / P) (even's step count) or up to 7 fewer, never below 90%
         * of it (so training keeps even's step count within 10%), whichever greedy gives the
         * lowest makespan; ties keep more rounds. Fewer rounds stack windows into groups:
         * ceil leaves P - n % P slots idle, a floor on the imbalance no placement removes,
         * and with unequal windows a round less can pair small windows under a large one. */
        const int64_t R0 = R;
        double best = INFINITY;
        for (int64_t Rc = R0; Rc >= 1 && Rc > R0 - 8 && 10 * Rc >= 9 * R0; Rc--) {
            sched_greedy(slot, cost, n, P, Rc);
            const double ms = slot_makespan(slot, cost, n, P, Rc);
            if (ms < best * (1 - 1e-9)) best = ms, R = Rc;
        }
        info->rounds_below_ceil = (int)(R0 - R);
    }
    switch (o->kind) {
    case DGNN_SCHED_EVEN:
        info->method = "even";
        sched_even(slot, n, P);
        break;
    case DGNN_SCHED_GREEDY:
        info->method = "greedy";
        sched_greedy(slot, cost, n, P, R);
        break;
    case DGNN_SCHED_ILP:
        sched_ilp(slot, cost, n, P, R, o, info);
        break;
    default:
        free(slot);
        return dgnn_err_set(err, DGNN_EINVAL, "schedule: unknown scheduler %d", (int)o->kind);
    }
    info->solve_seconds = dgnn_now() - t0;
    build_sched(out, slot, cost, sample, n, P, R);
    free(slot);
    dgnn_sched_metrics m;
    dgnn_sched_eval(out, &m);
    double lb = dgnn_sched_lower_bound(cost, n, P, R);
    if (lb > info->bound) info->bound = lb;
    if (info->bound > m.makespan) info->bound = m.makespan; /* rounding */
    info->gap = m.makespan > 0 ? (m.makespan - info->bound) / m.makespan : 0;
    if (info->gap < 1e-12) info->gap = 0;
    return DGNN_OK;
}
