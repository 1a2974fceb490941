/* depbloom_critical_path.c: DepBloom's third technique, critical-path optimization
 * (docs/depbloom.md, depbloom_internal.h): three ways of taking work off the path from one
 * step to the next.
 *
 * Hot rows: the far endpoint of a cut event is read by the event's rank while its own
 * part's rank keeps updating it: that (rank, node) pair is hot, and each rank sends such
 * rows of its part eagerly, after every step that writes them, overlapped with the
 * gradient all-reduce and the Adam step.
 *
 * Sampling ahead: the next micro-batch's negatives and neighbours are drawn on a worker
 * thread (prefetch.c) while the current one computes.
 *
 * Cold rows, fetched only when read: every other row a window writes stays with the rank
 * that wrote it last (its owner) until another rank is about to read it.
 * Versions: a node's latest authoritative row is the one its last writer held at the end
 * of the last window that wrote it (every rank computes the same (version, owner) from the
 * plan). A rank's own row has the version it last fetched or wrote as that owner. At the
 * boundary after window w, a rank computes the nodes its micro-batches of window w+1 will
 * read (the roots of each micro-batch with its negatives drawn from the same seeded stream
 * as the step will draw them, and their sampled neighbours, through dgnn_tgnn_presample:
 * what the forward reads, exactly), and requests from each owner the rows it holds an
 * older version of (two all-to-all-v: ids, then rows). Rows it never reads may stay stale
 * on it: nothing reads them. At the epoch's end every owner all-gathers its rows, so the
 * replicas are equal for evaluation and checkpoints. Losses equal those of the boundary
 * all-gather (--cold-allgather), step by step: tests/test_dist_event.c.
 *
 * On GPUs (r->dev) the same exchanges run through the host: the rows a rank sends come
 * down from its device first, the rows it receives go up after the host has applied them
 * (the host keeps every row's times and counts; its floats are current for what it
 * brought down). */
#include <stdlib.h>
#include <string.h>

#include "depbloom_internal.h"
#include "dgnn/comm.h"
#include "dgnn/tgnn_cuda.h"

static int cmp_i64(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- the plan's per-window lists ---- */

int depbloom_cold_supported(const event_run *r) {
    const dgnn_dist_cfg *d = &r->cfg->dist;
    return d->critical_path && !d->cold_allgather && dgnn_tgnn_can_presample(r->model) &&
           r->cfg->model.kind != DGNN_TGNN_APAN;
}

/* the nodes window w wrote, each with the rank of the last event touching it */
static void cold_plan_window(struct depbloom_plan *pl, int64_t w, const dgnn_window_part *wp, const int64_t *last,
                             int64_t b) {
    if (!pl->lw_off) pl->lw_off = dgnn_xcalloc((size_t)(pl->W + 1), sizeof(int64_t));
    pl->lw_off[w] = pl->nlw;
    if (pl->nlw + wp->num_nodes > pl->lw_cap) {
        pl->lw_cap = 2 * (pl->nlw + wp->num_nodes);
        pl->lw_node = dgnn_xrealloc(pl->lw_node, (size_t)pl->lw_cap * sizeof(int32_t));
        pl->lw_rank = dgnn_xrealloc(pl->lw_rank, (size_t)pl->lw_cap * sizeof(int32_t));
    }
    for (int64_t j = 0; j < wp->num_nodes; j++) {
        const int32_t v = wp->nodes[j];
        pl->lw_node[pl->nlw] = v;
        pl->lw_rank[pl->nlw++] = wp->event_part[last[v] - b];
    }
    pl->lw_off[w + 1] = pl->nlw;
}

void depbloom_cp_plan_window(event_run *r, int64_t w, const dgnn_window_part *wp, const int64_t *last, int64_t b,
                             int64_t e) {
    struct depbloom_plan *pl = r->plan;
    const dgnn_events *tr = &r->train;
    const int me = r->rank;
    if (pl->cold) cold_plan_window(pl, w, wp, last, b);
    if (!r->cfg->dist.critical_path) return;
    if (!pl->hot_off) {
        pl->hot_cap = 1024;
        pl->hot = dgnn_xmalloc((size_t)pl->hot_cap * sizeof(int64_t));
        pl->hot_off = dgnn_xcalloc((size_t)(pl->W + 1), sizeof(int64_t));
        pl->stamp = dgnn_xmalloc((size_t)(tr->num_nodes ? tr->num_nodes : 1) * sizeof(int64_t));
        for (int64_t v = 0; v < tr->num_nodes; v++) pl->stamp[v] = -1;
    }
    /* the hot pairs of this rank's part: (the cut event's rank, the far endpoint) */
    pl->hot_off[w] = pl->nhot;
    for (int64_t i = b; i < e; i++) {
        if (!wp->event_cut[i - b]) continue;
        const int32_t a = wp->event_part[i - b], ends[2] = {tr->src[i], tr->dst[i]};
        for (int k = 0; k < 2; k++) {
            if (dgnn_window_part_of(wp, ends[k]) != me || a == me) continue;
            if (pl->nhot == pl->hot_cap) {
                pl->hot_cap *= 2;
                pl->hot = dgnn_xrealloc(pl->hot, (size_t)pl->hot_cap * sizeof(int64_t));
            }
            pl->hot[pl->nhot++] = (int64_t)a << 32 | (uint32_t)ends[k];
        }
    }
    qsort(pl->hot + pl->hot_off[w], (size_t)(pl->nhot - pl->hot_off[w]), sizeof(int64_t), cmp_i64);
    int64_t u = pl->hot_off[w];
    for (int64_t i = pl->hot_off[w]; i < pl->nhot; i++)
        if (i == pl->hot_off[w] || pl->hot[i] != pl->hot[u - 1]) pl->hot[u++] = pl->hot[i];
    pl->nhot = u;
    pl->hot_off[w + 1] = pl->nhot;
}

/* ---- hot rows ---- */

/* On a GPU the rows live on the device: the n rows of nodes come down before the host packs
 * or merges them (its times and counts are current: the commits keep them), and the rows the
 * host unpacked or merged go back up. No-ops on the CPU. */
static int rows_down(event_run *r, const int32_t *nodes, int64_t n, dgnn_err *err) {
    return r->dev && n > 0 ? dgnn_tgnn_cuda_rows_to_host(r->dev, &r->st, nodes, n, err) : DGNN_OK;
}

/* After a step's commit: the hot rows of window w this rank wrote in the step go to the
 * ranks that read them, in a non-blocking all-to-all-v that completes while the gradient
 * all-reduce and the Adam step run (depbloom_hot_finish). */
int depbloom_hot_start(event_run *r, int64_t w, int64_t step, dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    const int32_t *nodes;
    int64_t n = dgnn_state_take_written(&r->st, &nodes), rb = dgnn_state_row_bytes(&r->st);
    depbloom_note_written(pl, nodes, n);
    for (int64_t i = 0; i < n; i++) pl->stamp[nodes[i]] = step;
    const int64_t h0 = pl->hot_off[w], h1 = pl->hot_off[w + 1];
    int64_t rows = 0;
    for (int64_t i = h0; i < h1; i++) rows += pl->stamp[(uint32_t)pl->hot[i]] == step;
    if (rows * rb > r->pack_cap) {
        r->pack_cap = rows * rb * 2;
        r->pack = dgnn_xrealloc(r->pack, (size_t)r->pack_cap);
    }
    int64_t counts[DGNN_DIST_MAX_RANKS] = {0}, k = 0;
    int rc = DGNN_OK;
    if (r->dev) { /* the rows to send, down from the device (the pack's ids as the index) */
        int32_t *ids = (int32_t *)r->pack; /* rows * rb bytes hold rows ids */
        for (int64_t i = h0; i < h1; i++)
            if (pl->stamp[(uint32_t)pl->hot[i]] == step) ids[k++] = (int32_t)(uint32_t)pl->hot[i];
        rc = rows_down(r, ids, k, err);
        k = 0;
    }
    for (int64_t i = h0; i < h1; i++) {
        int32_t v = (int32_t)(uint32_t)pl->hot[i];
        if (pl->stamp[v] != step) continue;
        dgnn_state_pack_rows((char *)r->pack + k * rb, &r->st, &v, 1);
        counts[pl->hot[i] >> 32] += rb;
        k++;
    }
    r->hot_rows_sent += k;
    r->state_bytes += k * rb;
    /* every rank takes part in the exchange, even after a failed copy (the error ends the run) */
    int64_t got[DGNN_DIST_MAX_RANKS];
    r->hot_recv_bytes = dgnn_comm_ialltoallv_bytes(&r->recv, &r->recv_cap, got, r->pack, counts);
    return rc;
}

int depbloom_hot_finish(event_run *r, dgnn_err *err) {
    dgnn_comm_alltoallv_wait();
    /* merged into the local row, not overwriting it: this rank may have written the node
     * later (the ranks' steps are aligned by count, not by event time), and a row's last
     * writer must keep its own last write; APAN: it may have delivered a mail there too */
    const int64_t n = r->dev ? event_packed_nodes(r, r->recv, r->hot_recv_bytes) : 0;
    int rc = rows_down(r, r->recv_nodes, n, err); /* the local rows the merge reads */
    if (rc) return rc;
    int64_t applied = dgnn_state_merge_rows(&r->st, r->recv, r->hot_recv_bytes, 0, err);
    if (applied < 0) return (int)applied;
    return r->dev && n > 0 ? dgnn_tgnn_cuda_rows_from_host(r->dev, &r->st, r->recv_nodes, n, err) : DGNN_OK;
}

/* ---- sampling ahead ---- */

static int presample_run(void *ctx, dgnn_err *err) {
    depbloom_presample_job *j = ctx;
    if (j->B > j->cap) {
        j->cap = 2 * j->B;
        j->tmp = dgnn_xrealloc(j->tmp, (size_t)j->cap * sizeof(int32_t));
        j->neg = dgnn_xrealloc(j->neg, (size_t)j->cap * sizeof(int32_t));
    }
    int rc = event_negatives_into(j->r, j->tmp, j->neg, j->B, 1, 0, j->seed, err);
    if (!rc)
        rc = dgnn_tgnn_presample(j->r->model, &j->s, &j->r->g_train, &j->r->plan->mine, j->e0, j->B, j->neg, 1, err);
    return rc;
}

/* Before the forward of the micro-batch at p: take its sample (when the worker took one)
 * and start sampling the one after it. The wait is the sampling left on the critical
 * path, booked as sampling time. */
int depbloom_ahead_step(void *ctx, const depbloom_mb_pos *p, dgnn_err *err) {
    depbloom_ahead *a = ctx;
    if (!a->pf) return DGNN_OK;
    event_run *r = a->job[0].r;
    const int64_t K = r->cfg->dist.refine > 1 ? r->cfg->dist.refine : 1;
    if (a->pending) {
        const double t0 = dgnn_now();
        a->pending = 0;
        int rc = prefetch_wait(a->pf, err);
        r->t_sample += dgnn_now() - t0;
        if (rc) return rc;
        r->t_prefetch += a->job[a->cur].s.seconds;
        dgnn_tgnn_use_sample(r->model, &a->job[a->cur].s);
    }
    depbloom_mb_pos q = *p;
    int64_t ml, mb;
    if (depbloom_mb_next(r->plan, K, a->total_steps, &q, &ml, &mb)) {
        depbloom_presample_job *j = &a->job[a->cur ^ 1];
        j->e0 = ml, j->B = mb;
        j->seed = event_stream_seed(r->cfg->seed, a->epoch, (q.step * K + q.j) * r->nranks + r->rank);
        prefetch_submit(a->pf, presample_run, j);
        a->pending = 1, a->cur ^= 1;
    }
    return DGNN_OK;
}

int depbloom_ahead_start(depbloom_ahead *a, event_run *r, int64_t epoch, int64_t total_steps, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    memset(a, 0, sizeof *a);
    a->job[0].r = a->job[1].r = r;
    a->epoch = epoch, a->total_steps = total_steps;
    if (c->dist.critical_path && !c->dist.no_prefetch && dgnn_tgnn_can_presample(r->model) &&
        !(a->pf = prefetch_start(err)))
        return err->code;
    return DGNN_OK;
}

void depbloom_ahead_stop(depbloom_ahead *a) {
    prefetch_stop(a->pf);
    dgnn_tgnn_use_sample(a->job[0].r->model, NULL); /* a failed step may have left one attached */
    for (int k = 0; k < 2; k++) {
        dgnn_tgnn_sample_free(&a->job[k].s);
        free(a->job[k].tmp), free(a->job[k].neg);
    }
}

/* ---- cold rows ---- */

void depbloom_cold_epoch_begin(event_run *r) {
    struct depbloom_plan *pl = r->plan;
    const int64_t N = r->train.num_nodes > 0 ? r->train.num_nodes : 1;
    if (!pl->ver_latest) {
        pl->ver_latest = dgnn_xmalloc((size_t)N * sizeof(int64_t));
        pl->ver_mine = dgnn_xmalloc((size_t)N * sizeof(int64_t));
        pl->rmark = dgnn_xcalloc((size_t)N, sizeof(int64_t));
        pl->owner = dgnn_xmalloc((size_t)N * sizeof(int32_t));
    }
    for (int64_t v = 0; v < N; v++) pl->ver_latest[v] = pl->ver_mine[v] = -1, pl->owner[v] = -1;
}

/* Marks the nodes the micro-batch [ml, ml + mb) with negatives seeded `seed` reads; appends
 * the ones this rank must fetch to *req (grown). */
static int read_set(event_run *r, int64_t ml, int64_t mb, uint64_t seed, int32_t **req, int64_t *nreq, int64_t *cap,
                    dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    if (mb > pl->rs_cap) {
        pl->rs_cap = 2 * mb;
        pl->rs_tmp = dgnn_xrealloc(pl->rs_tmp, (size_t)pl->rs_cap * sizeof(int32_t));
        pl->rs_neg = dgnn_xrealloc(pl->rs_neg, (size_t)pl->rs_cap * sizeof(int32_t));
    }
    int rc = event_negatives_into(r, pl->rs_tmp, pl->rs_neg, mb, 1, 0, seed, err);
    if (!rc) rc = dgnn_tgnn_presample(r->model, &pl->rs, &r->g_train, &pl->mine, ml, mb, pl->rs_neg, 1, err);
    if (rc) return rc;
    const dgnn_tgnn_sample *s = &pl->rs;
    for (int64_t i = 0; i < s->R + s->Rs * s->k; i++) {
        int32_t v;
        if (i < s->R) v = s->roots[i];
        else {
            const int64_t q = i - s->R, root = q / s->k;
            if (q % s->k >= s->cnt[root]) continue;
            v = s->nbr[q];
        }
        if (pl->rmark[v] == pl->rgen || pl->ver_mine[v] >= pl->ver_latest[v]) continue;
        pl->rmark[v] = pl->rgen;
        if (*nreq == *cap) {
            *cap = *cap ? 2 * *cap : 1024;
            *req = dgnn_xrealloc(*req, (size_t)*cap * sizeof(int32_t));
        }
        (*req)[(*nreq)++] = v;
    }
    return DGNN_OK;
}

/* req grouped by owner (the all-to-all-v's blocks), ascending ids within an owner */
static void sort_by_owner(int32_t *req, int64_t n, const int32_t *owner) {
    int64_t *key = dgnn_xmalloc((size_t)(n ? n : 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) key[i] = (int64_t)owner[req[i]] << 32 | (uint32_t)req[i];
    qsort(key, (size_t)n, sizeof *key, cmp_i64);
    for (int64_t i = 0; i < n; i++) req[i] = (int32_t)(uint32_t)key[i];
    free(key);
}

/* Requests req (sorted by owner) from their owners and applies the rows. */
static int fetch(event_run *r, int32_t *req, int64_t nreq, dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    const int P = r->nranks;
    const int64_t rb = dgnn_state_row_bytes(&r->st);
    int64_t counts[DGNN_DIST_MAX_RANKS] = {0}, got[DGNN_DIST_MAX_RANKS];
    for (int64_t i = 0; i < nreq; i++) counts[pl->owner[req[i]]] += (int64_t)sizeof(int32_t);
    void *ids = NULL;
    int64_t ids_cap = 0;
    const int64_t nid = dgnn_comm_alltoallv_bytes(&ids, &ids_cap, got, req, counts) / (int64_t)sizeof(int32_t);
    /* serve: the rows asked of this rank, in the order asked, back to each asker */
    if (nid * rb > r->pack_cap) {
        r->pack_cap = nid * rb * 2;
        r->pack = dgnn_xrealloc(r->pack, (size_t)r->pack_cap);
    }
    int rc = rows_down(r, (const int32_t *)ids, nid, err);
    dgnn_state_pack_rows(r->pack, &r->st, (const int32_t *)ids, nid);
    int64_t rows_out[DGNN_DIST_MAX_RANKS];
    for (int q = 0; q < P; q++) rows_out[q] = got[q] / (int64_t)sizeof(int32_t) * rb;
    const int64_t bytes = dgnn_comm_alltoallv_bytes(&r->recv, &r->recv_cap, got, r->pack, rows_out);
    free(ids);
    r->state_bytes += nid * rb + nreq * (int64_t)sizeof(int32_t);
    if (rc) return rc; /* after the exchange, which every rank takes part in */
    int64_t applied = dgnn_state_unpack_rows(&r->st, r->recv, bytes, err);
    if (applied < 0) return (int)applied;
    if (r->dev) { /* what the host unpacked, up to the device */
        const int64_t n = event_packed_nodes(r, r->recv, bytes);
        if ((rc = dgnn_tgnn_cuda_rows_from_host(r->dev, &r->st, r->recv_nodes, n, err))) return rc;
    }
    for (int64_t i = 0; i < nreq; i++) pl->ver_mine[req[i]] = pl->ver_latest[req[i]];
    pl->cold_rows += nreq;
    return DGNN_OK;
}

int depbloom_cold_window_end(event_run *r, int64_t w, int64_t next_step, int64_t epoch, int64_t total_steps, dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    const int me = r->rank, P = r->nranks;
    const int32_t *nodes;
    dgnn_state_take_written(&r->st, &nodes); /* the plan says who owns what */
    for (int64_t i = pl->lw_off[w]; i < pl->lw_off[w + 1]; i++) {
        const int32_t v = pl->lw_node[i];
        pl->ver_latest[v] = w, pl->owner[v] = pl->lw_rank[i];
        if (pl->lw_rank[i] == me) pl->ver_mine[v] = w;
    }
    if (P == 1) return DGNN_OK;
    /* the next window's reads (every rank takes part in the exchange, reads or not) */
    const int64_t K = r->cfg->dist.refine > 1 ? r->cfg->dist.refine : 1, nw = w + 1;
    int32_t *req = NULL;
    int64_t nreq = 0, cap = 0;
    int rc = DGNN_OK;
    pl->rgen++;
    for (int64_t s = 0; nw < pl->W && s < pl->steps[nw] && next_step + s < total_steps && !rc; s++)
        for (int64_t j = 0; j < K && !rc; j++) {
            const depbloom_mb_pos at = {nw, s, j, next_step + s};
            int64_t ml, mb;
            depbloom_mb_range(pl, K, &at, &ml, &mb);
            if (mb == 0) continue;
            rc = read_set(r, ml, mb, event_stream_seed(r->cfg->seed, epoch, ((next_step + s) * K + j) * P + me),
                          &req, &nreq, &cap, err);
        }
    if (rc) { /* every rank must still take part; an error here ends the job */
        free(req);
        return rc;
    }
    sort_by_owner(req, nreq, pl->owner);
    rc = fetch(r, req, nreq, err);
    free(req);
    return rc;
}

int depbloom_cold_epoch_end(event_run *r, dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    if (r->nranks == 1) return DGNN_OK;
    const int64_t N = r->train.num_nodes;
    int32_t *mine = dgnn_xmalloc((size_t)(N ? N : 1) * sizeof(int32_t));
    int64_t n = 0;
    for (int64_t v = 0; v < N; v++)
        if (pl->owner[v] == r->rank) mine[n++] = (int32_t)v;
    const int rc = event_allgather_rows(r, mine, n, 0, err); /* one owner per node: overwrite */
    free(mine);
    return rc;
}

void depbloom_cp_free(struct depbloom_plan *pl) {
    if (!pl) return;
    free(pl->hot);
    free(pl->hot_off);
    free(pl->stamp);
    free(pl->lw_node), free(pl->lw_rank), free(pl->lw_off);
    free(pl->ver_latest), free(pl->ver_mine), free(pl->rmark), free(pl->owner);
    dgnn_tgnn_sample_free(&pl->rs);
    free(pl->rs_tmp), free(pl->rs_neg);
}
