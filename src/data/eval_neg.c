/* eval_neg.c: DyGLib's historical and inductive negative edges (eval_neg.h).
 *
 * The history lists the stream's distinct edges in order of first occurrence, so the
 * edges seen at a time <= t0 are a prefix [0, P) (P by binary search on the first
 * times), and those first seen after the training period are its tail [n_train, P): no
 * set is rebuilt per batch. A batch builds only two small sets: the edges of the stream's
 * events with times in [t0, t1] (excluded from the draws) and the batch's own pairs
 * (excluded from the random fill). The draws use one stream, dgnn_rng_seed(seed): the
 * batch is drawn without replacement, which is sequential; a batch of B costs
 * O(B + the events in [t0, t1]) (draw_distinct.c), whatever the stream's size. */
#include "dgnn/eval_neg.h"
#include "dgnn/edgeset.h"
#include "draw_distinct.h"

#include <stdlib.h>
#include <string.h>

struct dgnn_edge_history {
    int64_t num_edges;     /* distinct (src, dst) pairs of the stream */
    int32_t *esrc, *edst;  /* (num_edges) by first occurrence */
    double *efirst;        /* (num_edges) time of the first occurrence, non-decreasing */
    int64_t n_train;       /* edges first seen at a time <= train_end_time: a prefix */
    int64_t num_events;
    double *t;             /* (E) the stream's times */
    int32_t *eedge;        /* (E) the edge number of each event */
    int64_t num_nodes;
    int32_t *srcs, *dsts;  /* the distinct sources and destinations, ascending */
    int64_t nsrc, ndst;
    uint8_t *role;         /* (N) bit 1: a source of the stream, bit 2: a destination */
};

const char *dgnn_neg_strategy_name(dgnn_neg_strategy s) {
    switch (s) {
    case DGNN_NEGS_RANDOM: return "random";
    case DGNN_NEGS_HISTORICAL: return "historical";
    case DGNN_NEGS_INDUCTIVE: return "inductive";
    }
    return "unknown";
}

void dgnn_edge_history_free(dgnn_edge_history *h) {
    if (!h) return;
    free(h->esrc);
    free(h->edst);
    free(h->efirst);
    free(h->t);
    free(h->eedge);
    free(h->srcs);
    free(h->dsts);
    free(h->role);
    free(h);
}

/* The number of the first n values of a (non-decreasing) that are <= x. */
static int64_t count_le(const double *a, int64_t n, double x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ... that are < x. */
static int64_t count_lt(const double *a, int64_t n, double x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int dgnn_edge_history_build(dgnn_edge_history **out, const dgnn_events *ev, double train_end_time, dgnn_err *err) {
    *out = NULL;
    int64_t E = ev->num_events, N = ev->num_nodes;
    if (E > INT32_MAX)
        return dgnn_err_set(err, DGNN_EUNSUPPORTED, "edge history: %lld events, at most %d are supported",
                            (long long)E, INT32_MAX);
    for (int64_t e = 0; e < E; e++) {
        if (ev->src[e] < 0 || ev->src[e] >= N || ev->dst[e] < 0 || ev->dst[e] >= N)
            return dgnn_err_set(err, DGNN_EINVAL, "edge history: event %lld: node id outside [0, %lld)", (long long)e,
                                (long long)N);
        if (e > 0 && ev->t[e] < ev->t[e - 1])
            return dgnn_err_set(err, DGNN_EINVAL, "edge history: the events are not sorted by time (event %lld)",
                                (long long)e);
    }
    dgnn_edge_history *h = calloc(1, sizeof *h);
    if (!h) return dgnn_err_set(err, DGNN_ENOMEM, "edge history: out of memory");
    size_t e1 = (size_t)(E > 0 ? E : 1), n1 = (size_t)(N > 0 ? N : 1);
    h->num_events = E;
    h->num_nodes = N;
    h->t = malloc(e1 * sizeof(double));
    h->eedge = malloc(e1 * sizeof(int32_t));
    h->esrc = malloc(e1 * sizeof(int32_t));
    h->edst = malloc(e1 * sizeof(int32_t));
    h->efirst = malloc(e1 * sizeof(double));
    h->role = calloc(n1, 1);
    dgnn_edgeset index;
    dgnn_edgeset_init(&index);
    int rc = DGNN_OK;
    if (!h->t || !h->eedge || !h->esrc || !h->edst || !h->efirst || !h->role) {
        rc = dgnn_err_nomem(err, dgnn_size_mul(E, 28), "the edge history of %lld events", (long long)E);
        goto fail;
    }
    if (E) memcpy(h->t, ev->t, (size_t)E * sizeof(double));
    for (int64_t e = 0; e < E; e++) {
        int64_t id;
        int fresh = dgnn_edgeset_add(&index, dgnn_edge_key(ev->src[e], ev->dst[e]), &id, err);
        if (fresh < 0) {
            rc = fresh;
            goto fail;
        }
        if (fresh) {
            h->esrc[id] = ev->src[e];
            h->edst[id] = ev->dst[e];
            h->efirst[id] = ev->t[e];
        }
        h->eedge[e] = (int32_t)id;
        h->role[ev->src[e]] |= 1;
        h->role[ev->dst[e]] |= 2;
    }
    h->num_edges = index.n;
    dgnn_edgeset_free(&index);
    h->n_train = count_le(h->efirst, h->num_edges, train_end_time);
    for (int64_t v = 0; v < N; v++) {
        h->nsrc += h->role[v] & 1;
        h->ndst += (h->role[v] >> 1) & 1;
    }
    h->srcs = malloc((size_t)(h->nsrc ? h->nsrc : 1) * sizeof(int32_t));
    h->dsts = malloc((size_t)(h->ndst ? h->ndst : 1) * sizeof(int32_t));
    if (!h->srcs || !h->dsts) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "edge history: out of memory");
        goto fail;
    }
    for (int64_t v = 0, a = 0, b = 0; v < N; v++) {
        if (h->role[v] & 1) h->srcs[a++] = (int32_t)v;
        if (h->role[v] & 2) h->dsts[b++] = (int32_t)v;
    }
    *out = h;
    return DGNN_OK;
fail:
    dgnn_edgeset_free(&index);
    dgnn_edge_history_free(h);
    return rc;
}

/* Exclusion tests for dgnn_draw_distinct. */
typedef struct {
    const dgnn_edgeset *set;
    int64_t lo;
} range_ctx; /* x = edge lo + x, excluded when in set */
static int edge_excluded(const void *ctx, int64_t x) {
    const range_ctx *c = ctx;
    return dgnn_edgeset_find(c->set, c->lo + x) >= 0;
}
typedef struct {
    const dgnn_edge_history *h;
    const dgnn_edgeset *set;
} pair_ctx; /* x = (srcs[x / ndst], dsts[x % ndst]), excluded when in set */
static int pair_excluded(const void *ctx, int64_t x) {
    const pair_ctx *c = ctx;
    return dgnn_edgeset_find(c->set, dgnn_edge_key(c->h->srcs[x / c->h->ndst], c->h->dsts[x % c->h->ndst])) >= 0;
}

/* DyGLib's random_sample_with_collision_check: m edges (source over the stream's
 * distinct sources, destination over its distinct destinations) that are not pairs of
 * the batch, without replacement unless fewer than m such pairs exist. */
static int random_fill(const dgnn_edge_history *h, const dgnn_edgeset *batch_pairs, int64_t nbatch_in, int64_t m,
                       dgnn_rng *r, int32_t *nsrc, int32_t *ndst, dgnn_err *err) {
    if (m <= 0) return DGNN_OK;
    int64_t U = dgnn_size_mul(h->nsrc, h->ndst), avail = U - nbatch_in;
    if (avail <= 0)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "negative edges: no random edge is possible (every source x destination pair of the "
                            "stream is an edge of the batch)");
    pair_ctx c = {h, batch_pairs};
    if (avail < m) { /* with replacement, as the reference (replace = len(possible) < size) */
        for (int64_t i = 0; i < m;) {
            int64_t x = (int64_t)dgnn_rng_below(r, (uint64_t)U);
            if (pair_excluded(&c, x)) continue;
            nsrc[i] = h->srcs[x / h->ndst];
            ndst[i] = h->dsts[x % h->ndst];
            i++;
        }
        return DGNN_OK;
    }
    int64_t *x = malloc((size_t)m * sizeof(int64_t));
    if (!x) return dgnn_err_set(err, DGNN_ENOMEM, "negative edges: out of memory");
    int rc = dgnn_draw_distinct(x, m, U, nbatch_in, pair_excluded, &c, r, err);
    for (int64_t i = 0; i < m && !rc; i++) {
        nsrc[i] = h->srcs[x[i] / h->ndst];
        ndst[i] = h->dsts[x[i] % h->ndst];
    }
    free(x);
    return rc;
}

int dgnn_neg_edges(const dgnn_edge_history *h, dgnn_neg_strategy s, const int32_t *src, const int32_t *dst,
                   const double *t, int64_t B, uint64_t seed, int32_t *nsrc, int32_t *ndst, dgnn_err *err) {
    if (s != DGNN_NEGS_HISTORICAL && s != DGNN_NEGS_INDUCTIVE)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "negative edges: strategy %d is not historical or inductive (the trainer draws "
                            "random negatives itself)",
                            (int)s);
    if (B <= 0) return DGNN_OK;
    for (int64_t i = 0; i < B; i++) {
        if (src[i] < 0 || src[i] >= h->num_nodes || dst[i] < 0 || dst[i] >= h->num_nodes)
            return dgnn_err_set(err, DGNN_EINVAL, "negative edges: positive %lld: node id outside [0, %lld)",
                                (long long)i, (long long)h->num_nodes);
        if (i > 0 && t[i] < t[i - 1])
            return dgnn_err_set(err, DGNN_EINVAL, "negative edges: the batch is not sorted by time (positive %lld)",
                                (long long)i);
    }
    double t0 = t[0], t1 = t[B - 1];
    /* the candidates: edges [lo, P) of the first-time order */
    int64_t P = count_le(h->efirst, h->num_edges, t0);
    int64_t lo = s == DGNN_NEGS_INDUCTIVE ? (h->n_train < P ? h->n_train : P) : 0;
    /* the stream's edges at times in [t0, t1] (DyGLib's current_batch_edges), and the
     * batch's own pairs (what the random fill avoids) */
    int64_t e_lo = count_lt(h->t, h->num_events, t0), e_hi = count_le(h->t, h->num_events, t1);
    dgnn_edgeset cur, pairs;
    dgnn_edgeset_init(&cur);
    dgnn_edgeset_init(&pairs);
    int64_t *pick = NULL;
    int rc = dgnn_edgeset_reserve(&cur, e_hi - e_lo, err);
    if (!rc) rc = dgnn_edgeset_reserve(&pairs, B, err);
    int64_t cur_in = 0, pairs_in = 0; /* how many of each set fall in the candidates / in srcs x dsts */
    for (int64_t e = e_lo; e < e_hi && !rc; e++) {
        int32_t id = h->eedge[e];
        int fresh = dgnn_edgeset_add(&cur, id, NULL, err);
        if (fresh < 0) rc = fresh;
        else if (fresh && id >= lo && id < P) cur_in++;
    }
    for (int64_t i = 0; i < B && !rc; i++) {
        int fresh = dgnn_edgeset_add(&pairs, dgnn_edge_key(src[i], dst[i]), NULL, err);
        if (fresh < 0) rc = fresh;
        else if (fresh && (h->role[src[i]] & 1) && (h->role[dst[i]] & 2)) pairs_in++;
    }
    if (rc) goto done;
    int64_t avail = (P - lo) - cur_in;
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    range_ctx c = {&cur, lo};
    if (avail >= B) { /* B of the candidates, without replacement */
        pick = malloc((size_t)B * sizeof(int64_t));
        if (!pick) {
            rc = dgnn_err_set(err, DGNN_ENOMEM, "negative edges: out of memory");
            goto done;
        }
        rc = dgnn_draw_distinct(pick, B, P - lo, cur_in, edge_excluded, &c, &r, err);
        for (int64_t i = 0; i < B && !rc; i++) {
            nsrc[i] = h->esrc[lo + pick[i]];
            ndst[i] = h->edst[lo + pick[i]];
        }
    } else { /* the reference's order: the random fill first, then every candidate */
        int64_t fill = B - avail;
        rc = random_fill(h, &pairs, pairs_in, fill, &r, nsrc, ndst, err);
        for (int64_t e = lo, i = fill; e < P && !rc; e++)
            if (!edge_excluded(&c, e - lo)) {
                nsrc[i] = h->esrc[e];
                ndst[i] = h->edst[e];
                i++;
            }
    }
done:
    free(pick);
    dgnn_edgeset_free(&cur);
    dgnn_edgeset_free(&pairs);
    return rc;
}
