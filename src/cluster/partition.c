/* partition.c: DepBloom's temporally bounded spatial partitioning (see partition.h):
 * time windows, the per-window interaction graph, METIS k-way (with a deterministic
 * greedy fallback), the event-to-part assignment, node ownership and the all-to-all-v
 * plan of the memory exchange at each window boundary.
 *
 * Everything here is sequential and allocation-light: a window of 100k events is a
 * few sorts of 100-200k keys plus one METIS call (tens of milliseconds), far below the
 * time a rank spends training those events, so there is nothing to gain from threads. */
#include "dgnn/partition.h"

#include <math.h>
#include <metis.h>
#include <stdlib.h>
#include <string.h>

/* ---- windows ------------------------------------------------------------------ */

/* First index in [lo, hi) with t[i] >= x, or hi. */
static int64_t lower_bound_t(const double *t, int64_t lo, int64_t hi, double x) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (t[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int64_t dgnn_windows_make(int64_t *bounds, const dgnn_events *ev, int64_t begin, int64_t end,
                          int64_t window_events, double window_seconds, dgnn_err *err) {
    if (!ev) return dgnn_err_set(err, DGNN_EINVAL, "dgnn_windows_make: no event table");
    if (begin < 0 || end < begin || end > ev->num_events)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_windows_make: events [%lld, %lld) outside the table (%lld events)",
                            (long long)begin, (long long)end, (long long)ev->num_events);
    int by_seconds = window_seconds > 0, by_events = !by_seconds && window_events > 0;
    if (!by_events && !by_seconds)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "dgnn_windows_make: window_events (%lld) or window_seconds (%g) must be > 0",
                            (long long)window_events, window_seconds);
    if (by_seconds && !isfinite(window_seconds))
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_windows_make: window_seconds is not finite");
    if (bounds) bounds[0] = begin;
    if (begin == end) return 0;
    int64_t W = 0, cur = begin;
    if (by_events) {
        while (cur < end) {
            cur = (end - cur > window_events) ? cur + window_events : end;
            if (bounds) bounds[W + 1] = cur;
            W++;
        }
        return W;
    }
    const double t0 = ev->t[begin];
    while (cur < end) {
        /* The window of event cur is k = floor((t - t0) / S); it ends at the first event
         * at or past t0 + (k+1) S. Computing the edge from t0 each time (not by adding S
         * repeatedly) keeps rounding from drifting over thousands of windows. */
        double k = floor((ev->t[cur] - t0) / window_seconds);
        int64_t next = lower_bound_t(ev->t, cur, end, t0 + (k + 1.0) * window_seconds);
        if (next <= cur) next = cur + 1; /* rounding put the edge at cur: still progress */
        cur = next;
        if (bounds) bounds[W + 1] = cur;
        W++;
    }
    return W;
}

/* ---- helpers -------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* LSD radix sort of n 64-bit keys whose set bits all lie below bit `bits`, 11 bits a
 * pass (a 16 KiB count table, safe on any thread's stack), via tmp (n). Sorting the
 * pair keys is most of a window's time outside METIS, and radix is several times faster
 * than qsort at 100k+ keys. Small inputs use qsort. */
static void sort_u64(uint64_t *a, uint64_t *tmp, int64_t n, int bits) {
    if (n < 2048) {
        qsort(a, (size_t)n, sizeof *a, cmp_u64);
        return;
    }
    enum { RB = 11, RN = 1 << RB };
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < bits; shift += RB) {
        int64_t cnt[RN + 1];
        memset(cnt, 0, sizeof cnt);
        for (int64_t i = 0; i < n; i++) cnt[((src[i] >> shift) & (RN - 1)) + 1]++;
        for (int b = 0; b < RN; b++) cnt[b + 1] += cnt[b];
        for (int64_t i = 0; i < n; i++) dst[cnt[(src[i] >> shift) & (RN - 1)]++] = src[i];
        uint64_t *sw = src;
        src = dst;
        dst = sw;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

static int bits_for(uint64_t maxval) {
    int b = 0;
    while (b < 64 && (maxval >> b) != 0) b++;
    return b;
}

/* ---- options and lifetime ----------------------------------------------------- */

dgnn_part_opts dgnn_part_opts_default(void) {
    dgnn_part_opts o;
    memset(&o, 0, sizeof o);
    o.parts = 1;
    o.ufactor = 1.03;
    o.seed = 1;
    o.min_metis_nodes = 64;
    return o;
}

void dgnn_window_part_free(dgnn_window_part *wp) {
    if (!wp) return;
    free(wp->nodes);
    free(wp->node_part);
    free(wp->node_events);
    free(wp->event_part);
    free(wp->event_cut);
    free(wp->part_events);
    free(wp->part_event_offset);
    free(wp->part_event_list);
    free(wp->part_node_offset);
    free(wp->part_node_list);
    memset(wp, 0, sizeof *wp);
}

void dgnn_exchange_plan_free(dgnn_exchange_plan *plan) {
    if (!plan) return;
    free(plan->count);
    free(plan->offset);
    free(plan->nodes);
    memset(plan, 0, sizeof *plan);
}

/* ---- the greedy partitioner ----------------------------------------------------- */

/* Deterministic greedy: nodes in decreasing weight (ties: lower local id), each put in
 * the part it is most connected to among the parts that still have room (capacity
 * ufactor * total / P, at least the node's own weight), ties to the lighter part then
 * the lower index; if no part has room, the lightest. Heaviest first is the classic
 * LPT order that keeps the loads even; the connection term keeps neighbours together. */
typedef struct {
    int64_t w;
    int32_t id;
} wnode;

static int cmp_wnode(const void *a, const void *b) {
    const wnode *x = a, *y = b;
    if (x->w != y->w) return (x->w < y->w) - (x->w > y->w); /* heavier first */
    return (x->id > y->id) - (x->id < y->id);
}

static void partition_greedy(int32_t *part, int64_t n, const int64_t *xadj, const int32_t *adj,
                             const int64_t *adjw, const int64_t *vw, int P, double ufactor) {
    wnode *order = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        order[i].w = vw[i];
        order[i].id = (int32_t)i;
        total += vw[i];
        part[i] = -1;
    }
    qsort(order, (size_t)n, sizeof *order, cmp_wnode);
    int64_t *load = dgnn_xcalloc((size_t)P, sizeof *load);
    int64_t *conn = dgnn_xcalloc((size_t)P, sizeof *conn);
    double cap = ufactor * (double)total / P;
    for (int64_t k = 0; k < n; k++) {
        int32_t u = order[k].id;
        int64_t w = order[k].w;
        for (int64_t j = xadj[u]; j < xadj[u + 1]; j++)
            if (part[adj[j]] >= 0) conn[part[adj[j]]] += adjw[j];
        int best = -1;
        for (int p = 0; p < P; p++) {
            if ((double)(load[p] + w) > cap && load[p] > 0) continue; /* full (an empty part always takes it) */
            if (best < 0 || conn[p] > conn[best] || (conn[p] == conn[best] && load[p] < load[best])) best = p;
        }
        if (best < 0) { /* every part full: the lightest */
            best = 0;
            for (int p = 1; p < P; p++)
                if (load[p] < load[best]) best = p;
        }
        part[u] = best;
        load[best] += w;
        for (int64_t j = xadj[u]; j < xadj[u + 1]; j++)
            if (part[adj[j]] >= 0) conn[part[adj[j]]] = 0;
    }
    free(order);
    free(load);
    free(conn);
}

/* METIS k-way on the window graph. Returns 0 and fills part, or -1 if the graph does
 * not fit METIS's index type or METIS reports an error (the caller falls back). */
static int partition_metis(int32_t *part, int64_t n, const int64_t *xadj, const int32_t *adj,
                           const int64_t *adjw, const int64_t *vw, const dgnn_part_opts *o) {
    const int64_t m2 = xadj[n];
    /* idx_t may be 32-bit (IDXTYPEWIDTH): sizes and weight sums must fit. */
    int64_t wsum = 0, asum = 0;
    for (int64_t i = 0; i < n; i++) wsum += vw[i];
    for (int64_t j = 0; j < m2; j++) asum += adjw[j];
    const int64_t idx_max = (sizeof(idx_t) == 4) ? INT32_MAX / 2 : INT64_MAX / 2;
    if (n > idx_max || m2 > idx_max || wsum > idx_max || asum > idx_max) return -1;

    idx_t *mx = malloc((size_t)(n + 1) * sizeof *mx);
    idx_t *madj = malloc((size_t)(m2 > 0 ? m2 : 1) * sizeof *madj);
    idx_t *mw = malloc((size_t)(m2 > 0 ? m2 : 1) * sizeof *mw);
    idx_t *mv = malloc((size_t)n * sizeof *mv);
    idx_t *mpart = malloc((size_t)n * sizeof *mpart);
    int ok = -1;
    if (mx && madj && mw && mv && mpart) {
        for (int64_t i = 0; i <= n; i++) mx[i] = (idx_t)xadj[i];
        for (int64_t j = 0; j < m2; j++) {
            madj[j] = (idx_t)adj[j];
            mw[j] = (idx_t)adjw[j];
        }
        /* A node with weight 0 cannot occur (every touched node has an event), but METIS
         * balances weights, so make sure of it. */
        for (int64_t i = 0; i < n; i++) mv[i] = (idx_t)(vw[i] > 0 ? vw[i] : 1);
        idx_t nv = (idx_t)n, ncon = 1, np = (idx_t)o->parts, objval = 0;
        idx_t options[METIS_NOPTIONS];
        METIS_SetDefaultOptions(options);
        options[METIS_OPTION_SEED] = (idx_t)(o->seed & 0x3fffffff);
        long uf = lround((o->ufactor - 1.0) * 1000.0);
        options[METIS_OPTION_UFACTOR] = (idx_t)(uf < 1 ? 1 : uf);
        options[METIS_OPTION_NUMBERING] = 0;
        int rc = METIS_PartGraphKway(&nv, &ncon, mx, madj, mv, NULL, mw, &np, NULL, NULL, options, &objval, mpart);
        if (rc == METIS_OK) {
            ok = 0;
            for (int64_t i = 0; i < n; i++) {
                if (mpart[i] < 0 || mpart[i] >= np) { /* never seen; do not trust it */
                    ok = -1;
                    break;
                }
                part[i] = (int32_t)mpart[i];
            }
        }
    }
    free(mx);
    free(madj);
    free(mw);
    free(mv);
    free(mpart);
    return ok;
}

/* ---- keeping rows where they are ----------------------------------------------------- */

/* Renames the parts (a permutation; the partition is unchanged) so that as many nodes
 * as possible keep their current owner: METIS numbers its parts arbitrarily. Greedy
 * matching on the (part, owner) node overlap, largest first, ties to lower indices. */
static void relabel_parts(int32_t *part, const int32_t *nodes, int64_t n, const int32_t *owner, int P) {
    int64_t *overlap = dgnn_xcalloc((size_t)P * P, sizeof *overlap);
    for (int64_t i = 0; i < n; i++) {
        int32_t q = owner[nodes[i]];
        if (q >= 0 && q < P) overlap[(int64_t)part[i] * P + q]++;
    }
    int32_t *to = dgnn_xmalloc((size_t)P * sizeof *to);
    uint8_t *used_p = dgnn_xcalloc((size_t)P, 1), *used_q = dgnn_xcalloc((size_t)P, 1);
    for (int k = 0; k < P; k++) {
        int bp = -1, bq = -1;
        for (int p = 0; p < P; p++) {
            if (used_p[p]) continue;
            for (int q = 0; q < P; q++)
                if (!used_q[q] && (bp < 0 || overlap[(int64_t)p * P + q] > overlap[(int64_t)bp * P + bq])) {
                    bp = p;
                    bq = q;
                }
        }
        to[bp] = bq;
        used_p[bp] = used_q[bq] = 1;
    }
    for (int64_t i = 0; i < n; i++) part[i] = to[part[i]];
    free(overlap);
    free(to);
    free(used_p);
    free(used_q);
}

typedef struct {
    int64_t w;      /* events of the component (sum of its vertex weights) */
    int64_t first;  /* start in the component node list */
    int64_t size;
} comp;

static int cmp_comp(const void *a, const void *b) {
    const comp *x = a, *y = b;
    if (x->w != y->w) return (x->w < y->w) - (x->w > y->w); /* heavier first */
    return (x->first > y->first) - (x->first < y->first);
}

/* A connected component of the window graph that lies whole inside one part can move
 * to any part without changing the cut. Windows of real streams are mostly such small
 * components (a user and the pages it edits), and METIS places them wherever balance
 * wants, so from one window to the next about (P-1)/P of the recurring nodes would
 * change rank. Here the whole components are placed again, heaviest first, each in the
 * part owning most of its nodes that still has room (ufactor * mean load), else in the
 * lightest part; components METIS split stay where they are (after relabel_parts). The
 * cut is unchanged; the balance stays within ufactor unless one component exceeds it. */
static void stick_components(int32_t *part, const int32_t *nodes, int64_t n, const int64_t *xadj, const int32_t *adj,
                             const int64_t *vw, const int32_t *owner, int P, double ufactor) {
    int32_t *cid = dgnn_xmalloc((size_t)n * sizeof *cid);
    int32_t *list = dgnn_xmalloc((size_t)n * sizeof *list); /* nodes by component, BFS order */
    for (int64_t i = 0; i < n; i++) cid[i] = -1;
    comp *cs = dgnn_xmalloc((size_t)n * sizeof *cs);
    int64_t nc = 0, len = 0, total = 0;
    int64_t *load = dgnn_xcalloc((size_t)P, sizeof *load);
    for (int64_t r = 0; r < n; r++) {
        if (cid[r] >= 0) continue;
        int64_t head = len;
        cid[r] = (int32_t)nc;
        list[len++] = (int32_t)r;
        int whole = 1;
        int64_t w = 0;
        for (int64_t h = head; h < len; h++) {
            int32_t u = list[h];
            w += vw[u];
            for (int64_t j = xadj[u]; j < xadj[u + 1]; j++) {
                int32_t x = adj[j];
                if (part[x] != part[u]) whole = 0;
                if (cid[x] < 0) {
                    cid[x] = (int32_t)nc;
                    list[len++] = x;
                }
            }
        }
        total += w;
        if (whole) {
            cs[nc].w = w;
            cs[nc].first = head;
            cs[nc].size = len - head;
            nc++;
        } else {
            /* split by the partitioner: its nodes stay, as a fixed load */
            for (int64_t h = head; h < len; h++) load[part[list[h]]] += vw[list[h]];
        }
    }
    qsort(cs, (size_t)nc, sizeof *cs, cmp_comp);
    const double cap = ufactor * (double)total / P;
    int64_t *pref = dgnn_xcalloc((size_t)P, sizeof *pref);
    int32_t *touched = dgnn_xmalloc((size_t)P * sizeof *touched);
    for (int64_t c = 0; c < nc; c++) {
        int nt = 0;
        for (int64_t h = cs[c].first; h < cs[c].first + cs[c].size; h++) {
            int32_t q = owner[nodes[list[h]]];
            if (q < 0 || q >= P) continue;
            if (pref[q]++ == 0) touched[nt++] = q;
        }
        int best = -1;
        for (int k = 0; k < nt; k++) {
            int q = touched[k];
            if ((double)(load[q] + cs[c].w) > cap) continue;
            if (best < 0 || pref[q] > pref[best] || (pref[q] == pref[best] && (load[q] < load[best] ||
                                                                               (load[q] == load[best] && q < best))))
                best = q;
        }
        if (best < 0) { /* no owner has room (or none is known): the lightest part */
            best = 0;
            for (int q = 1; q < P; q++)
                if (load[q] < load[best]) best = q;
        }
        for (int k = 0; k < nt; k++) pref[touched[k]] = 0;
        for (int64_t h = cs[c].first; h < cs[c].first + cs[c].size; h++) part[list[h]] = best;
        load[best] += cs[c].w;
    }
    free(cid);
    free(list);
    free(cs);
    free(load);
    free(pref);
    free(touched);
}

/* ---- one window ---------------------------------------------------------------- */

/* CSR grouping of n items by their part (stable: items keep their order). */
static void group_by_part(int64_t *offset, const int32_t *part, int64_t n, int P, int64_t *pos_scratch) {
    memset(offset, 0, (size_t)(P + 1) * sizeof *offset);
    for (int64_t i = 0; i < n; i++) offset[part[i] + 1]++;
    for (int p = 0; p < P; p++) offset[p + 1] += offset[p];
    memcpy(pos_scratch, offset, (size_t)P * sizeof *offset);
}

/* The grouped views: events per part (time order) and nodes per part (ascending). */
static void build_groups(dgnn_window_part *wp) {
    const int P = wp->parts;
    const int64_t E = wp->end - wp->begin, n = wp->num_nodes;
    int64_t *pos = dgnn_xmalloc((size_t)P * sizeof *pos);
    group_by_part(wp->part_event_offset, wp->event_part, E, P, pos);
    for (int64_t i = 0; i < E; i++) wp->part_event_list[pos[wp->event_part[i]]++] = wp->begin + i;
    group_by_part(wp->part_node_offset, wp->node_part, n, P, pos);
    for (int64_t i = 0; i < n; i++) wp->part_node_list[pos[wp->node_part[i]]++] = wp->nodes[i];
    free(pos);
}

int dgnn_window_partition(dgnn_window_part *wp, const dgnn_events *ev, int64_t begin, int64_t end,
                          const int32_t *owner, const dgnn_part_opts *opts, dgnn_err *err) {
    if (!wp || !ev || !opts) return dgnn_err_set(err, DGNN_EINVAL, "dgnn_window_partition: NULL argument");
    dgnn_window_part_free(wp);
    if (begin < 0 || end < begin || end > ev->num_events)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_window_partition: events [%lld, %lld) outside the table (%lld events)",
                            (long long)begin, (long long)end, (long long)ev->num_events);
    if (opts->parts < 1 || opts->parts > 65535)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_window_partition: parts = %d, must be in [1, 65535]", opts->parts);
    if (!(opts->ufactor >= 1.0) || !isfinite(opts->ufactor))
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_window_partition: ufactor = %g, must be >= 1", opts->ufactor);
    if (ev->num_nodes > INT32_MAX)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_window_partition: %lld nodes exceed int32 ids", (long long)ev->num_nodes);
    const double t_start = dgnn_now();
    const int P = opts->parts;
    const int64_t E = end - begin, N = ev->num_nodes;
    const int32_t *src = ev->src + begin, *dst = ev->dst + begin;

    wp->begin = begin;
    wp->end = end;
    wp->parts = P;
    wp->event_part = dgnn_xmalloc((size_t)(E > 0 ? E : 1) * sizeof *wp->event_part);
    wp->event_cut = dgnn_xcalloc((size_t)(E > 0 ? E : 1), 1);
    wp->part_events = dgnn_xcalloc((size_t)P, sizeof *wp->part_events);
    wp->part_event_offset = dgnn_xcalloc((size_t)P + 1, sizeof *wp->part_event_offset);
    wp->part_event_list = dgnn_xmalloc((size_t)(E > 0 ? E : 1) * sizeof *wp->part_event_list);
    wp->part_node_offset = dgnn_xcalloc((size_t)P + 1, sizeof *wp->part_node_offset);

    /* 1. the nodes touched, ascending, and the global -> local map */
    int32_t *local = dgnn_xmalloc((size_t)(N > 0 ? N : 1) * sizeof *local);
    for (int64_t v = 0; v < N; v++) local[v] = -1;
    int32_t *nodes = dgnn_xmalloc((size_t)(2 * E > 0 ? 2 * E : 1) * sizeof *nodes);
    int64_t n = 0;
    for (int64_t i = 0; i < E; i++) {
        int32_t a = src[i], b = dst[i];
        if (a < 0 || a >= N || b < 0 || b >= N) {
            free(local);
            free(nodes);
            dgnn_window_part_free(wp);
            return dgnn_err_set(err, DGNN_EINVAL, "dgnn_window_partition: event %lld: node id (%d, %d) outside [0, %lld)",
                                (long long)(begin + i), a, b, (long long)N);
        }
        if (local[a] < 0) { local[a] = 0; nodes[n++] = a; }
        if (local[b] < 0) { local[b] = 0; nodes[n++] = b; }
    }
    qsort(nodes, (size_t)n, sizeof *nodes, cmp_i32);
    for (int64_t i = 0; i < n; i++) local[nodes[i]] = (int32_t)i;
    wp->num_nodes = n;
    wp->nodes = dgnn_xrealloc(nodes, (size_t)(n > 0 ? n : 1) * sizeof *nodes);
    wp->node_part = dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof *wp->node_part);
    wp->node_events = dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof *wp->node_events);
    wp->part_node_list = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *wp->part_node_list);

    /* 2. vertex weights and the undirected weighted edges, as sorted (lo, hi) keys */
    uint64_t *keys = dgnn_xmalloc((size_t)(E > 0 ? E : 1) * sizeof *keys);
    int64_t m = 0;
    for (int64_t i = 0; i < E; i++) {
        uint32_t a = (uint32_t)local[src[i]], b = (uint32_t)local[dst[i]];
        wp->node_events[a]++;
        if (a == b) continue; /* a self loop weighs on its node, never on the cut */
        wp->node_events[b]++;
        uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
        keys[m++] = ((uint64_t)lo << 32) | hi;
    }

    wp->method = DGNN_PART_SINGLE;
    if (P > 1 && n > 0) {
        uint64_t *tmp = dgnn_xmalloc((size_t)(m > 0 ? m : 1) * sizeof *tmp);
        sort_u64(keys, tmp, m, 32 + bits_for((uint64_t)n));
        free(tmp);
        /* run-length: unique pairs with their event counts; then a symmetric CSR whose
         * adjacency lists come out ascending because the keys are sorted by (lo, hi) */
        int64_t u = 0;
        int64_t *w = dgnn_xmalloc((size_t)(m > 0 ? m : 1) * sizeof *w);
        for (int64_t i = 0; i < m; i++) {
            if (u > 0 && keys[u - 1] == keys[i]) w[u - 1]++;
            else {
                keys[u] = keys[i];
                w[u++] = 1;
            }
        }
        wp->num_edges = u;
        int64_t *xadj = dgnn_xcalloc((size_t)n + 1, sizeof *xadj);
        for (int64_t i = 0; i < u; i++) {
            xadj[(keys[i] >> 32) + 1]++;
            xadj[(keys[i] & 0xffffffffu) + 1]++;
        }
        for (int64_t i = 0; i < n; i++) xadj[i + 1] += xadj[i];
        int64_t *fill = dgnn_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *fill);
        memcpy(fill, xadj, (size_t)n * sizeof *fill);
        int32_t *adj = dgnn_xmalloc((size_t)(2 * u > 0 ? 2 * u : 1) * sizeof *adj);
        int64_t *adjw = dgnn_xmalloc((size_t)(2 * u > 0 ? 2 * u : 1) * sizeof *adjw);
        for (int64_t i = 0; i < u; i++) {
            int32_t lo = (int32_t)(keys[i] >> 32), hi = (int32_t)(keys[i] & 0xffffffffu);
            adj[fill[lo]] = hi;
            adjw[fill[lo]++] = w[i];
            adj[fill[hi]] = lo;
            adjw[fill[hi]++] = w[i];
        }
        free(fill);
        free(w);

        int use_metis = u > 0 && n >= opts->min_metis_nodes && n >= 4 * (int64_t)P;
        if (use_metis && partition_metis(wp->node_part, n, xadj, adj, adjw, wp->node_events, opts) == 0)
            wp->method = DGNN_PART_METIS;
        else {
            partition_greedy(wp->node_part, n, xadj, adj, adjw, wp->node_events, P, opts->ufactor);
            wp->method = DGNN_PART_GREEDY;
        }
        if (owner) {
            relabel_parts(wp->node_part, wp->nodes, n, owner, P);
            stick_components(wp->node_part, wp->nodes, n, xadj, adj, wp->node_events, owner, P, opts->ufactor);
        }
        free(xadj);
        free(adj);
        free(adjw);
    }
    free(keys);

    /* 3. events: same-part events first, so the cut events see the real loads */
    int64_t *cnt = wp->part_events;
    for (int64_t i = 0; i < E; i++) {
        int pa = wp->node_part[local[src[i]]], pb = wp->node_part[local[dst[i]]];
        if (pa == pb) {
            wp->event_part[i] = pa;
            cnt[pa]++;
        } else {
            wp->event_part[i] = -1;
        }
    }
    int64_t cut = 0;
    for (int64_t i = 0; i < E; i++) {
        if (wp->event_part[i] >= 0) continue;
        int pa = wp->node_part[local[src[i]]], pb = wp->node_part[local[dst[i]]];
        int p = cnt[pb] < cnt[pa] ? pb : pa;
        wp->event_part[i] = p;
        wp->event_cut[i] = 1;
        cnt[p]++;
        cut++;
    }
    wp->num_cut = cut;
    wp->cut_fraction = E > 0 ? (double)cut / (double)E : 0.0;

    build_groups(wp);
    free(local);
    wp->seconds = dgnn_now() - t_start;
    return DGNN_OK;
}

int dgnn_window_part_of(const dgnn_window_part *wp, int32_t v) {
    int64_t lo = 0, hi = wp->num_nodes;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (wp->nodes[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return (lo < wp->num_nodes && wp->nodes[lo] == v) ? wp->node_part[lo] : -1;
}

/* ---- ownership and the exchange plan ---------------------------------------------- */

void dgnn_owner_init(int32_t *owner, int64_t num_nodes, int parts, int fresh) {
    DGNN_ASSERT(parts >= 1);
    for (int64_t v = 0; v < num_nodes; v++)
        owner[v] = fresh ? -1 : (int32_t)(dgnn_hash64((uint64_t)v) % (uint64_t)parts);
}

void dgnn_owner_update(int32_t *owner, const dgnn_window_part *wp) {
    for (int64_t i = 0; i < wp->num_nodes; i++) owner[wp->nodes[i]] = wp->node_part[i];
}

int dgnn_exchange_plan_make(dgnn_exchange_plan *plan, const dgnn_events *ev, const dgnn_window_part *next,
                            const int32_t *owner, int64_t row_bytes, dgnn_err *err) {
    if (!plan || !ev || !next || !owner) return dgnn_err_set(err, DGNN_EINVAL, "dgnn_exchange_plan_make: NULL argument");
    dgnn_exchange_plan_free(plan);
    if (next->end > ev->num_events || next->begin < 0 || next->end < next->begin)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_exchange_plan_make: window [%lld, %lld) outside the table (%lld events)",
                            (long long)next->begin, (long long)next->end, (long long)ev->num_events);
    if (row_bytes < 0) return dgnn_err_set(err, DGNN_EINVAL, "dgnn_exchange_plan_make: row_bytes = %lld < 0", (long long)row_bytes);
    const int P = next->parts;
    const int64_t E = next->end - next->begin;
    /* one key per (pair, node) read: (sender * P + receiver) << 32 | node; P <= 65535
     * (checked by dgnn_window_partition), so the pair index fits 32 bits */
    uint64_t *keys = dgnn_xmalloc((size_t)(2 * E > 0 ? 2 * E : 1) * sizeof *keys);
    int64_t k = 0;
    for (int64_t i = 0; i < E; i++) {
        const int64_t e = next->begin + i;
        const int r = next->event_part[i];
        const int32_t ends[2] = {ev->src[e], ev->dst[e]};
        for (int j = 0; j < 2; j++) {
            int32_t v = ends[j];
            int s = owner[v];
            if (s < -1 || s >= P) {
                free(keys);
                return dgnn_err_set(err, DGNN_EINVAL, "dgnn_exchange_plan_make: owner[%d] = %d outside [-1, %d)", v, s, P);
            }
            /* -1: never written, its row is the initial one every rank makes itself */
            if (s >= 0 && s != r) keys[k++] = ((uint64_t)((uint32_t)s * (uint32_t)P + (uint32_t)r) << 32) | (uint32_t)v;
            if (ends[0] == ends[1]) break;
        }
    }
    uint64_t *tmp = dgnn_xmalloc((size_t)(k > 0 ? k : 1) * sizeof *tmp);
    sort_u64(keys, tmp, k, 32 + bits_for((uint64_t)P * (uint64_t)P));
    free(tmp);
    int64_t u = 0;
    for (int64_t i = 0; i < k; i++)
        if (u == 0 || keys[u - 1] != keys[i]) keys[u++] = keys[i];

    plan->parts = P;
    plan->count = dgnn_xcalloc((size_t)P * P, sizeof *plan->count);
    plan->offset = dgnn_xcalloc((size_t)P * P + 1, sizeof *plan->offset);
    plan->nodes = dgnn_xmalloc((size_t)(u > 0 ? u : 1) * sizeof *plan->nodes);
    for (int64_t i = 0; i < u; i++) {
        plan->count[keys[i] >> 32]++;
        plan->nodes[i] = (int32_t)(keys[i] & 0xffffffffu);
    }
    for (int64_t p = 0; p < (int64_t)P * P; p++) plan->offset[p + 1] = plan->offset[p] + plan->count[p];
    free(keys);
    plan->total_rows = u;
    plan->row_bytes = row_bytes;
    plan->total_bytes = u * row_bytes;
    for (int s = 0; s < P; s++) {
        int64_t snd = 0, rcv = 0;
        for (int r = 0; r < P; r++) {
            snd += plan->count[(int64_t)s * P + r];
            rcv += plan->count[(int64_t)r * P + s];
        }
        if (snd * row_bytes > plan->max_send_bytes) plan->max_send_bytes = snd * row_bytes;
        if (rcv * row_bytes > plan->max_recv_bytes) plan->max_recv_bytes = rcv * row_bytes;
    }
    return DGNN_OK;
}
