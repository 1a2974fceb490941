/* event_dist.c: the distributed training epochs of the event trainer (one MPI rank =
 * one worker; comm.h does all the talking).
 *
 * strict (the baseline, train_event.h): global batch b holds events [b G, b G + G_b) of
 * the training stream, G = P x batch; rank p trains the p-th of P consecutive slices.
 * Every rank holds the whole node state. A step is:
 *   forward + backward of the slice (reading the replicated state, which every rank
 *   has equal), the gradient all-reduce started (non-blocking, bucketed), the slice's
 *   commit into the local replica, the rows it wrote all-gathered and applied in rank
 *   order (a node written by several slices ends with the latest slice's row, as the
 *   later events' writes win in single-process training), the all-reduce finished,
 *   the Adam step.
 * Loss weights: the single-process loss of the global batch is mean BCE over its G_b
 * positives + mean over its G_b negatives; its gradient is the sum over ranks of
 * (B_p / G_b) x the gradient of the slice's own loss. Each rank scales its dlogits by
 * that factor and the all-reduce sums. Negatives are drawn for the whole global batch
 * from the stream single-process training uses for batch b, and each rank takes its
 * slice, so one rank with batch P x B and P ranks with batch B see the same negatives.
 * What strict does NOT reproduce bit for bit: the TGN code pushes a batch's source
 * mails before its destination mails, so a node that is a destination in an earlier
 * slice and a source in a later one keeps, in single-process training, the earlier
 * event's mail; here the later slice's row wins (non-bipartite data only).
 *
 * depbloom --partition (technique 1, docs/depbloom.md): the training stream is cut into
 * windows (partition.h); each window's interaction graph is split into P parts by METIS
 * and rank p trains the events of part p in time order, its own sub-stream, in S_w
 * steps per window (S_w = ceil(largest part / batch), the same on every rank, so the
 * gradient all-reduce pairs up; each rank splits its part evenly over the S_w steps).
 * Inside a window a rank reads every other node as of the window start (or as it wrote
 * it itself). At the window's end, each node written in the window gets one
 * authoritative row: that of the rank that trained the LAST event touching it (every
 * rank knows every event's part, so every rank computes the same rule); those ranks
 * all-gather their rows and every replica is equal again. A rank's writes to a node
 * whose last event another rank trained are dropped (the cut events' price).
 * The windows, parts and send lists are computed once, at set-up, on every rank (the
 * partition is deterministic), and reported as figures (cut fraction, part sizes).
 * APAN (mails to sampled neighbours): every row a rank wrote is sent and the versions
 * merged. --refine K: K micro-batches per step, each reading what the earlier committed.
 * --critical-path: hot rows sent after every step, the next micro-batch sampled ahead on
 * a worker thread, and cold rows fetched only when read (event_dist_cold.c) instead of
 * the boundary all-gather.
 *
 * Dropout draws from a stream keyed by (seed, epoch, rank), so ranks do not share masks
 * and a resumed run repeats the epoch it restarts exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "dgnn/outfile.h"
#include "dgnn/partition.h"
#include "depbloom_internal.h"
#include "event_train_internal.h"

/* Packs the rows of nodes (n), all-gathers every rank's rows and applies them in rank
 * order to the local replica (unpacking is not recorded as writing): overwriting (a node
 * sent by several ranks ends with the last rank's row), or, merge = 1, merging the
 * versions of a node (dgnn_state_merge_rows: later memory, union of mailboxes), the same
 * on every rank. */
int allgather_rows(run_t *r, const int32_t *nodes, int64_t n, int merge, dgnn_err *err) {
    const int64_t rb = dgnn_state_row_bytes(&r->st);
    if (r->nranks == 1) return DGNN_OK; /* the replica is the state */
    if (n * rb > r->pack_cap) {
        r->pack_cap = n * rb * 2;
        r->pack = dgnn_xrealloc(r->pack, (size_t)r->pack_cap);
    }
    dgnn_state_pack_rows(r->pack, &r->st, nodes, n);
    int64_t counts[DGNN_DIST_MAX_RANKS];
    dgnn_comm_allgather_i64(counts, n * rb);
    int64_t total = 0;
    for (int q = 0; q < r->nranks; q++) total += counts[q];
    if (total > r->recv_cap) {
        r->recv_cap = total * 2;
        r->recv = dgnn_xrealloc(r->recv, (size_t)r->recv_cap);
    }
    dgnn_comm_allgatherv_bytes(r->recv, counts, r->pack, n * rb);
    r->state_bytes += n * rb * (r->nranks - 1);
    int64_t applied = merge ? dgnn_state_merge_rows(&r->st, r->recv, total, 1, err)
                            : dgnn_state_unpack_rows(&r->st, r->recv, total, err);
    return applied < 0 ? (int)applied : DGNN_OK;
}

/* The bookkeeping that closes every step of both modes: the non-finite-loss check, this
 * rank's share of the global loss, the step callback, counters and the progress bar. */
static int step_done(run_t *r, int64_t epoch, int64_t step, double loss, int64_t B, int64_t G, double *loss_share,
                     dgnn_progress *pg, int64_t shown, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    if (!isfinite(loss))
        return dgnn_err_set(err, DGNN_EINVAL, "rank %d, epoch %lld step %lld: the loss is not finite (%g); try a lower --lr",
                            r->rank, (long long)epoch, (long long)step, loss);
    const double share = loss * (double)B / (double)(G > 0 ? G : 1);
    *loss_share += share;
    if (c->on_step) {
        double gl = share;
        dgnn_comm_allreduce_sum_f64(&gl, 1);
        c->on_step(c->on_step_ctx, epoch, step, gl);
    }
    r->my_events += B;
    r->steps++;
    if (c->progress && r->rank == 0) {
        char extra[48];
        snprintf(extra, sizeof extra, "loss %.4f", *loss_share / (double)(step + 1));
        dgnn_progress_update(pg, shown, extra);
    }
    return DGNN_OK;
}

/* The step's gradient all-reduce overlaps the end of the last backward: the model hands
 * over the suffix of the slab it has finished (dgnn_tgnn_set_grad_hook) and its all-reduce
 * starts while the memory updater's backward runs; the prefix follows after the backward.
 * Every rank issues the same two calls in the same order, backward or not. */
typedef struct {
    run_t *r;
    int suffix_started;
} grad_sync;

static void grad_ready(void *ctx, int64_t off, int64_t n) {
    grad_sync *g = ctx;
    dgnn_comm_iallreduce_sum_f32(g->r->p->grad + off, n, 0);
    g->suffix_started = 1;
}

static void grad_allreduce_start(run_t *r, grad_sync *g) {
    const int64_t split = dgnn_tgnn_grad_split(r->model), total = r->p->total;
    if (!g->suffix_started) dgnn_comm_iallreduce_sum_f32(r->p->grad + split, total - split, 0);
    dgnn_comm_iallreduce_sum_f32(r->p->grad, split, 0);
    g->suffix_started = 0;
}

/* Forward and backward of events [lo, lo + B) of ev against negatives neg (B), the
 * gradients accumulated with weight B / G (G: the step's events over all ranks). gs: the
 * step's last backward, whose finished suffix starts the all-reduce early; NULL: not the
 * last (later micro-batches still add to every gradient). */
static int micro_batch(run_t *r, const dgnn_events *ev, int64_t lo, int64_t B, int64_t G, const int32_t *neg,
                       grad_sync *gs, double *loss, double *flops, dgnn_err *err) {
    int rc = dgnn_tgnn_forward(r->model, r->logits, &r->st, &r->g_train, r->train.efeat, ev, lo, B, neg, 1, &r->rng,
                               err);
    if (rc) return rc;
    r->t_sample += dgnn_tgnn_last_sample_seconds(r->model);
    for (int64_t i = 0; i < 2 * B; i++) r->labels[i] = i < B ? 1.0f : 0.0f;
    *loss = 2.0 * dgnn_bce_logits_forward(NULL, r->logits, r->labels, 2 * B);
    memset(r->dlogits, 0, (size_t)(2 * B) * sizeof(float));
    dgnn_bce_logits_backward(r->dlogits, r->logits, r->labels, 2 * B, 2.0f * (float)B / (float)G);
    if (gs && r->nranks > 1) dgnn_tgnn_set_grad_hook(r->model, grad_ready, gs);
    dgnn_tgnn_backward(r->model, r->dlogits);
    dgnn_tgnn_set_grad_hook(r->model, NULL, NULL);
    *flops += dgnn_tgnn_last_flops(r->model);
    return DGNN_OK;
}

static int strict_epoch(run_t *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const dgnn_events *tr = &r->train;
    const int P = r->nranks, me = r->rank;
    const int64_t G = c->batch * P;
    int64_t nb = (tr->num_events + G - 1) / G;
    if (c->max_train_batches > 0 && nb > c->max_train_batches) nb = c->max_train_batches;
    dgnn_state_reset(&r->st);
    dgnn_rng_seed2(&r->rng, c->seed, 0x64726f70ULL + (uint64_t)epoch * 4099 + (uint64_t)me);
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train (strict, %d ranks)", (long long)epoch, P);
    const int64_t shown = nb * G > tr->num_events ? tr->num_events : nb * G;
    if (c->progress && me == 0) dgnn_progress_begin(&pg, label, shown);
    double loss_share = 0, flops = 0, t_start = dgnn_now();
    dgnn_comm_stats_reset();
    int64_t all_events = 0;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t g0 = b * G, Gb = g0 + G <= tr->num_events ? G : tr->num_events - g0;
        const int64_t lo = g0 + Gb * me / P, hi = g0 + Gb * (me + 1) / P, B = hi - lo;
        int rc = event_ensure_batch(r, Gb, 1, err);
        if (!rc) rc = event_draw_negatives(r, Gb, 1, 0, event_stream_seed(c->seed, epoch, b), err);
        if (rc) return rc;
        double t0 = dgnn_now();
        dgnn_params_zero_grad(r->p);
        double loss = 0;
        grad_sync gs = {r, 0};
        if (B > 0 && (rc = micro_batch(r, tr, lo, B, Gb, r->neg_t + (lo - g0), &gs, &loss, &flops, err))) return rc;
        grad_allreduce_start(r, &gs);
        if (B > 0) dgnn_tgnn_commit(r->model, &r->st, tr);
        double t1 = dgnn_now();
        const int32_t *nodes;
        const int64_t nw = dgnn_state_take_written(&r->st, &nodes);
        if ((rc = allgather_rows(r, nodes, nw, 0, err))) return rc;
        dgnn_comm_wait();
        double t2 = dgnn_now();
        dgnn_adam_step_params(&r->opt, r->p);
        r->t_compute += (t1 - t0) + (dgnn_now() - t2);
        r->t_comm += t2 - t1;
        all_events += Gb;
        if ((rc = step_done(r, epoch, b, loss, B, Gb, &loss_share, &pg, all_events, err))) return rc;
    }
    if (c->progress && me == 0) dgnn_progress_end(&pg);
    r->grad_bytes += nb * r->p->total * (int64_t)sizeof(float);
    dgnn_comm_allreduce_sum_f64(&loss_share, 1);
    er->train_loss = nb > 0 ? loss_share / (double)nb : NAN;
    er->train_seconds = dgnn_now() - t_start;
    er->train_events = all_events;
    er->flops = flops;
    return DGNN_OK;
}

/* ---- depbloom: the partition plan ---------------------------------------------- */

static void plan_free(struct depbloom_plan *pl) {
    if (!pl) return;
    free(pl->steps);
    free(pl->step_total);
    dgnn_events_free(&pl->mine);
    free(pl->mine_off);
    free(pl->send);
    free(pl->send_off);
    free(pl->hot);
    free(pl->hot_off);
    free(pl->stamp);
    free(pl->wmark);
    free(pl->wlist);
    cold_free(pl);
    free(pl);
}

/* merge mode: adds the nodes just taken from the write tracker to the current window's
 * list (emptied by every window sync, which also advances wgen) */
static void note_written(struct depbloom_plan *pl, const int32_t *nodes, int64_t n) {
    if (!pl->merge) return;
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = nodes[i];
        if (pl->wmark[v] == pl->wgen) continue;
        pl->wmark[v] = pl->wgen;
        if (pl->nwl == pl->wl_cap) {
            pl->wl_cap = pl->wl_cap ? 2 * pl->wl_cap : 1024;
            pl->wlist = dgnn_xrealloc(pl->wlist, (size_t)pl->wl_cap * sizeof(int32_t));
        }
        pl->wlist[pl->nwl++] = v;
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int plan_make(run_t *r, dgnn_err *err) {
    const dgnn_dist_cfg *d = &r->cfg->dist;
    const dgnn_events *tr = &r->train;
    const int P = r->nranks, me = r->rank;
    const double t0 = dgnn_now();
    if (!d->partition)
        return dgnn_err_set(err, DGNN_EINVAL, "--dist depbloom: needs --partition (the other techniques build on it)");
    int64_t W = dgnn_windows_make(NULL, tr, 0, tr->num_events, d->window_events, d->window_seconds, err);
    if (W < 0) return (int)W;
    struct depbloom_plan *pl = dgnn_xcalloc(1, sizeof *pl);
    r->plan = pl;
    pl->W = W;
    int64_t *bounds = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    dgnn_windows_make(bounds, tr, 0, tr->num_events, d->window_events, d->window_seconds, err);
    int32_t *owner = dgnn_xmalloc((size_t)tr->num_nodes * sizeof(int32_t));
    int64_t *last = dgnn_xmalloc((size_t)tr->num_nodes * sizeof(int64_t)); /* last event touching v, per window */
    for (int64_t v = 0; v < tr->num_nodes; v++) last[v] = -1;
    uint8_t *mask = dgnn_xcalloc((size_t)(tr->num_events ? tr->num_events : 1), 1);
    dgnn_owner_init(owner, tr->num_nodes, P, 1);
    dgnn_part_opts po = dgnn_part_opts_default();
    po.parts = P;
    po.seed = r->cfg->seed + 1;
    dgnn_window_part wp;
    memset(&wp, 0, sizeof wp);
    pl->steps = dgnn_xmalloc((size_t)(W ? W : 1) * sizeof(int64_t));
    pl->mine_off = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    pl->send_off = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    int64_t nsteps = 0, mine = 0, nsend = 0, send_cap = 1024, steps_cap = 1024, nhot = 0, hot_cap = 1024;
    pl->hot = dgnn_xmalloc((size_t)hot_cap * sizeof(int64_t));
    pl->hot_off = dgnn_xmalloc((size_t)(W + 1) * sizeof(int64_t));
    pl->send = dgnn_xmalloc((size_t)send_cap * sizeof(int32_t));
    pl->step_total = dgnn_xmalloc((size_t)steps_cap * sizeof(int64_t));
    int rc = DGNN_OK;
    const int cold = pl->cold = cold_supported(r);
    FILE *rep = NULL;
    dgnn_outfile *rep_out = NULL; /* outfile.h: a temporary file renamed at the end, or written through */
    const int64_t rb = dgnn_state_row_bytes(&r->st);
    if (d->window_report && me == 0) {
        if (!(rc = dgnn_outfile_open(&rep_out, d->window_report, 0, err))) {
            rep = dgnn_outfile_stream(rep_out);
            fprintf(rep, "window,begin,end,events,cut_events,cut_fraction,nodes");
            for (int q = 0; q < P; q++) fprintf(rep, ",events_rank%d", q);
            fprintf(rep, ",largest_over_mean,rows_synced,bytes_synced,strict_bytes_max\n");
        }
    }
    for (int64_t w = 0; w < W && !rc; w++) {
        const int64_t b = bounds[w], e = bounds[w + 1];
        if ((rc = dgnn_window_partition(&wp, tr, b, e, owner, &po, err))) break;
        if (rep) {
            /* the boundary all-gather sends every node the window wrote once, to P - 1
             * ranks; strict sends each step's written rows (at most 2 per event) likewise */
            int64_t mx = 0;
            fprintf(rep, "%lld,%lld,%lld,%lld,%lld,%.6f,%lld", (long long)w, (long long)b, (long long)e,
                    (long long)(e - b), (long long)wp.num_cut, wp.cut_fraction, (long long)wp.num_nodes);
            for (int q = 0; q < P; q++) {
                fprintf(rep, ",%lld", (long long)wp.part_events[q]);
                mx = wp.part_events[q] > mx ? wp.part_events[q] : mx;
            }
            fprintf(rep, ",%.4f,%lld,%lld,%lld\n", e > b ? (double)mx * P / (double)(e - b) : 0.0,
                    (long long)wp.num_nodes, (long long)(wp.num_nodes * rb * (P - 1)),
                    (long long)(2 * (e - b) * rb * (P - 1)));
        }
        pl->cut_fraction += wp.cut_fraction / (double)W;
        int64_t mx = 0;
        for (int q = 0; q < P; q++) mx = wp.part_events[q] > mx ? wp.part_events[q] : mx;
        pl->max_part_events += mx;
        pl->sum_part_events += e - b;
        const int64_t step_events = r->cfg->batch * (d->refine > 1 ? d->refine : 1);
        const int64_t S = (mx + step_events - 1) / step_events;
        pl->steps[w] = S;
        if (nsteps + S > steps_cap) {
            steps_cap = 2 * (nsteps + S);
            pl->step_total = dgnn_xrealloc(pl->step_total, (size_t)steps_cap * sizeof(int64_t));
        }
        /* step s of rank q trains part q's events [s n_q / S, (s+1) n_q / S) */
        for (int64_t s = 0; s < S; s++) {
            int64_t tot = 0;
            for (int q = 0; q < P; q++) tot += (s + 1) * wp.part_events[q] / S - s * wp.part_events[q] / S;
            pl->step_total[nsteps + s] = tot;
        }
        nsteps += S;
        pl->mine_off[w] = mine;
        for (int64_t i = b; i < e; i++)
            if (wp.event_part[i - b] == me) mask[i] = 1, mine++;
        /* authoritative rows: the rank of the last event touching each node */
        for (int64_t i = b; i < e; i++) last[tr->src[i]] = i, last[tr->dst[i]] = i;
        if (cold) cold_plan_window(pl, w, &wp, last, b);
        pl->send_off[w] = nsend;
        for (int64_t j = 0; j < wp.num_nodes; j++) {
            int32_t v = wp.nodes[j];
            if (wp.event_part[last[v] - b] != me) continue;
            if (nsend == send_cap) {
                send_cap *= 2;
                pl->send = dgnn_xrealloc(pl->send, (size_t)send_cap * sizeof(int32_t));
            }
            pl->send[nsend++] = v;
        }
        /* critical path: the far endpoint of a cut event is read by the event's rank
         * while its own part's rank keeps updating it: that pair is hot, and this rank
         * sends such rows of its part eagerly, after every step that writes them */
        pl->hot_off[w] = nhot;
        if (d->critical_path)
            for (int64_t i = b; i < e; i++) {
                if (!wp.event_cut[i - b]) continue;
                const int32_t a = wp.event_part[i - b], ends[2] = {tr->src[i], tr->dst[i]};
                for (int k = 0; k < 2; k++) {
                    if (dgnn_window_part_of(&wp, ends[k]) != me || a == me) continue;
                    if (nhot == hot_cap) {
                        hot_cap *= 2;
                        pl->hot = dgnn_xrealloc(pl->hot, (size_t)hot_cap * sizeof(int64_t));
                    }
                    pl->hot[nhot++] = (int64_t)a << 32 | (uint32_t)ends[k];
                }
            }
        qsort(pl->hot + pl->hot_off[w], (size_t)(nhot - pl->hot_off[w]), sizeof(int64_t), cmp_i64);
        int64_t u = pl->hot_off[w];
        for (int64_t i = pl->hot_off[w]; i < nhot; i++)
            if (i == pl->hot_off[w] || pl->hot[i] != pl->hot[u - 1]) pl->hot[u++] = pl->hot[i];
        nhot = u;
        dgnn_owner_update(owner, &wp);
    }
    if (rep_out && rc) dgnn_outfile_abort(rep_out); /* no half report; a previous one stays */
    else if (rep_out) rc = dgnn_outfile_commit(rep_out, err); /* names the path and the OS error */
    pl->hot_off[W] = nhot;
    pl->stamp = dgnn_xmalloc((size_t)(tr->num_nodes ? tr->num_nodes : 1) * sizeof(int64_t));
    for (int64_t v = 0; v < tr->num_nodes; v++) pl->stamp[v] = -1;
    pl->merge = r->cfg->model.kind == DGNN_TGNN_APAN;
    if (pl->merge) {
        pl->wmark = dgnn_xmalloc((size_t)(tr->num_nodes ? tr->num_nodes : 1) * sizeof(int64_t));
        for (int64_t v = 0; v < tr->num_nodes; v++) pl->wmark[v] = -1;
    }
    pl->mine_off[W] = mine;
    pl->send_off[W] = nsend;
    if (!rc) rc = dgnn_events_subset(&pl->mine, tr, mask, 1, err);
    dgnn_window_part_free(&wp);
    free(bounds);
    free(owner);
    free(last);
    free(mask);
    pl->setup_seconds = dgnn_now() - t0;
    if (!rc)
        dgnn_log("depbloom: %lld windows of %s, mean cut fraction %.3f, largest part %.1f%% above the mean, "
                 "partitioned in %.2f s\n",
                 (long long)W, d->window_seconds > 0 ? "fixed seconds" : "fixed events", pl->cut_fraction,
                 pl->sum_part_events ? 100.0 * ((double)pl->max_part_events * P / (double)pl->sum_part_events - 1) : 0,
                 pl->setup_seconds);
    return rc;
}

/* Critical path, after a step's commit: the hot rows of window w this rank wrote in the
 * step go to the ranks that read them, in a non-blocking all-to-all-v that completes
 * while the gradient all-reduce and the Adam step run (hot_finish). */
static void hot_start(run_t *r, int64_t w, int64_t step) {
    struct depbloom_plan *pl = r->plan;
    const int32_t *nodes;
    int64_t n = dgnn_state_take_written(&r->st, &nodes), rb = dgnn_state_row_bytes(&r->st);
    note_written(pl, nodes, n);
    for (int64_t i = 0; i < n; i++) pl->stamp[nodes[i]] = step;
    const int64_t h0 = pl->hot_off[w], h1 = pl->hot_off[w + 1];
    int64_t rows = 0;
    for (int64_t i = h0; i < h1; i++) rows += pl->stamp[(uint32_t)pl->hot[i]] == step;
    if (rows * rb > r->pack_cap) {
        r->pack_cap = rows * rb * 2;
        r->pack = dgnn_xrealloc(r->pack, (size_t)r->pack_cap);
    }
    int64_t counts[DGNN_DIST_MAX_RANKS] = {0}, k = 0;
    for (int64_t i = h0; i < h1; i++) {
        int32_t v = (int32_t)(uint32_t)pl->hot[i];
        if (pl->stamp[v] != step) continue;
        dgnn_state_pack_rows((char *)r->pack + k * rb, &r->st, &v, 1);
        counts[pl->hot[i] >> 32] += rb;
        k++;
    }
    pl->hot_rows_sent += k;
    r->state_bytes += k * rb;
    int64_t rc[DGNN_DIST_MAX_RANKS];
    r->hot_recv_bytes = dgnn_comm_ialltoallv_bytes(&r->recv, &r->recv_cap, rc, r->pack, counts);
}

static int hot_finish(run_t *r, dgnn_err *err) {
    dgnn_comm_alltoallv_wait();
    /* merged into the local row, not overwriting it: this rank may have written the node
     * later (the ranks' steps are aligned by count, not by event time), and a row's last
     * writer must keep its own last write; APAN: it may have delivered a mail there too */
    int64_t applied = dgnn_state_merge_rows(&r->st, r->recv, r->hot_recv_bytes, 0, err);
    return applied < 0 ? (int)applied : DGNN_OK;
}

/* The authoritative rows of window w from every rank, applied everywhere; merge mode:
 * every row each rank wrote, merged. */
static int window_sync(run_t *r, int64_t w, dgnn_err *err) {
    struct depbloom_plan *pl = r->plan;
    const int32_t *nodes;
    const int64_t n = dgnn_state_take_written(&r->st, &nodes); /* otherwise: the plan says what to send */
    if (!pl->merge)
        return allgather_rows(r, pl->send + pl->send_off[w], pl->send_off[w + 1] - pl->send_off[w], 0, err);
    note_written(pl, nodes, n);
    int rc = allgather_rows(r, pl->wlist, pl->nwl, 1, err);
    pl->nwl = 0, pl->wgen++;
    return rc;
}

/* ---- depbloom: the epoch ---------------------------------------------------------- */

void mb_range(const struct depbloom_plan *pl, int64_t K, const mb_pos *p, int64_t *ml, int64_t *mb) {
    const int64_t off = pl->mine_off[p->w], n = pl->mine_off[p->w + 1] - off, S = pl->steps[p->w];
    const int64_t lo = off + p->s * n / S, hi = off + (p->s + 1) * n / S, B = hi - lo;
    *ml = lo + p->j * B / K;
    *mb = lo + (p->j + 1) * B / K - *ml;
}

/* Moves p to the next non-empty micro-batch of the epoch (at most total_steps steps);
 * returns 0 when there is none. */
static int mb_next(const struct depbloom_plan *pl, int64_t K, int64_t total_steps, mb_pos *p, int64_t *ml,
                   int64_t *mb) {
    for (;;) {
        if (++p->j == K) {
            p->j = 0, p->step++;
            if (++p->s >= pl->steps[p->w]) {
                p->s = 0;
                do p->w++;
                while (p->w < pl->W && pl->steps[p->w] == 0);
            }
        }
        if (p->step >= total_steps || p->w >= pl->W) return 0;
        mb_range(pl, K, p, ml, mb);
        if (*mb > 0) return 1;
    }
}

/* Critical path, sampling ahead: while micro-batch i computes, the worker thread draws
 * micro-batch i+1's negatives (the same stream the trainer draws them from) and samples
 * its neighbours (dgnn_tgnn_presample). Two jobs alternate: the forward of i reads job A's
 * sample while the worker fills job B. */
typedef struct {
    run_t *r;
    int64_t e0, B, cap;
    uint64_t seed;
    int32_t *tmp, *neg; /* (B) negatives: the sampler's and the model's layout (K = 1) */
    dgnn_tgnn_sample s;
} presample_job;

static int presample_run(void *ctx, dgnn_err *err) {
    presample_job *j = ctx;
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

typedef struct {
    prefetch *pf;          /* NULL: no sampling ahead */
    presample_job job[2];
    int cur, pending;      /* job[cur] holds (or is sampling) the next micro-batch */
} sampler_ahead;

/* Before the forward of the micro-batch at p: take its sample (when the worker took one)
 * and start sampling the one after it. The wait is the sampling left on the critical
 * path, booked as sampling time. */
static int ahead_step(run_t *r, sampler_ahead *a, const mb_pos *p, int64_t K, int64_t total_steps, int64_t epoch,
                      dgnn_err *err) {
    if (!a->pf) return DGNN_OK;
    if (a->pending) {
        const double t0 = dgnn_now();
        a->pending = 0;
        int rc = prefetch_wait(a->pf, err);
        r->t_sample += dgnn_now() - t0;
        if (rc) return rc;
        r->t_prefetch += a->job[a->cur].s.seconds;
        dgnn_tgnn_use_sample(r->model, &a->job[a->cur].s);
    }
    mb_pos q = *p;
    int64_t ml, mb;
    if (mb_next(r->plan, K, total_steps, &q, &ml, &mb)) {
        presample_job *j = &a->job[a->cur ^ 1];
        j->e0 = ml, j->B = mb;
        j->seed = event_stream_seed(r->cfg->seed, epoch, (q.step * K + q.j) * r->nranks + r->rank);
        prefetch_submit(a->pf, presample_run, j);
        a->pending = 1, a->cur ^= 1;
    }
    return DGNN_OK;
}

static int depbloom_steps(run_t *r, int64_t epoch, int64_t total_steps, sampler_ahead *ahead, dgnn_progress *pg,
                          dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    struct depbloom_plan *pl = r->plan;
    const dgnn_events *mine = &pl->mine;
    const int P = r->nranks, me = r->rank;
    const int64_t K = c->dist.refine > 1 ? c->dist.refine : 1;
    double loss_share = 0, flops = 0, t_start = dgnn_now();
    int64_t all_events = 0, step = 0;
    for (int64_t w = 0; w < pl->W && step < total_steps; w++) {
        const int64_t off = pl->mine_off[w], n = pl->mine_off[w + 1] - off, S = pl->steps[w];
        for (int64_t s = 0; s < S && step < total_steps; s++, step++) {
            const int64_t lo = off + s * n / S, hi = off + (s + 1) * n / S, B = hi - lo, G = pl->step_total[step];
            double t0 = dgnn_now();
            dgnn_params_zero_grad(r->p);
            /* K micro-batches, each reading the memory the earlier ones committed (the
             * refinement); their gradients add up to one step. K = 1: one batch. */
            double loss = 0;
            int rc = DGNN_OK;
            grad_sync gs = {r, 0};
            for (int64_t j = 0; j < K && !rc; j++) {
                const mb_pos at = {w, s, j, step};
                int64_t ml, mb;
                mb_range(pl, K, &at, &ml, &mb);
                if (mb == 0) continue;
                /* negatives keyed by (epoch, micro-batch id x P + rank): on one rank,
                 * micro-batch b draws what single-process batch b draws */
                double ml_loss;
                rc = event_ensure_batch(r, mb, 1, err);
                if (!rc) rc = event_draw_negatives(r, mb, 1, 0, event_stream_seed(c->seed, epoch, (step * K + j) * P + me), err);
                if (!rc) rc = ahead_step(r, ahead, &at, K, total_steps, epoch, err);
                if (!rc) rc = micro_batch(r, mine, ml, mb, G, r->neg_t, j + 1 == K ? &gs : NULL, &ml_loss, &flops, err);
                loss += ml_loss * (double)mb / (double)B;
                if (!rc && j + 1 < K) dgnn_tgnn_commit(r->model, &r->st, mine);
            }
            if (rc) return rc;
            grad_allreduce_start(r, &gs);
            if (B > 0 && lo + (K - 1) * B / K < hi) dgnn_tgnn_commit(r->model, &r->st, mine); /* the last micro-batch */
            if (c->dist.critical_path) hot_start(r, w, step);
            double t1 = dgnn_now();
            dgnn_comm_wait();
            double t2 = dgnn_now();
            dgnn_adam_step_params(&r->opt, r->p);
            if (c->dist.critical_path) {
                double t3 = dgnn_now();
                if ((rc = hot_finish(r, err))) return rc;
                t2 += dgnn_now() - t3; /* counted as waiting, not compute */
            }
            r->t_compute += (t1 - t0) + (dgnn_now() - t2);
            r->t_comm += t2 - t1;
            all_events += G;
            if ((rc = step_done(r, epoch, step, loss, B, G, &loss_share, pg, step + 1, err))) return rc;
        }
        double t1 = dgnn_now();
        int rc = pl->cold ? cold_window_end(r, w, step, epoch, total_steps, err) : window_sync(r, w, err);
        if (rc) return rc;
        r->t_comm += dgnn_now() - t1;
    }
    if (pl->cold) {
        double t1 = dgnn_now();
        int rc = cold_epoch_end(r, err);
        if (rc) return rc;
        r->t_comm += dgnn_now() - t1;
    }
    r->grad_bytes += step * r->p->total * (int64_t)sizeof(float);
    dgnn_comm_allreduce_sum_f64(&loss_share, 1);
    er->train_loss = step > 0 ? loss_share / (double)step : NAN;
    er->train_seconds = dgnn_now() - t_start;
    er->train_events = all_events;
    er->flops = flops;
    return DGNN_OK;
}

static int depbloom_epoch(run_t *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    struct depbloom_plan *pl = r->plan;
    const int P = r->nranks, me = r->rank;
    int64_t total_steps = 0;
    for (int64_t w = 0; w < pl->W; w++) total_steps += pl->steps[w];
    if (c->max_train_batches > 0 && total_steps > c->max_train_batches) total_steps = c->max_train_batches;
    dgnn_state_reset(&r->st);
    if (pl->cold) cold_epoch_begin(r);
    dgnn_rng_seed2(&r->rng, c->seed, 0x64726f70ULL + (uint64_t)epoch * 4099 + (uint64_t)me);
    sampler_ahead ahead;
    memset(&ahead, 0, sizeof ahead);
    ahead.job[0].r = ahead.job[1].r = r;
    if (c->dist.critical_path && !c->dist.no_prefetch && dgnn_tgnn_can_presample(r->model) &&
        !(ahead.pf = prefetch_start(err)))
        return err->code;
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train (depbloom, %d ranks)", (long long)epoch, P);
    if (c->progress && me == 0) dgnn_progress_begin(&pg, label, total_steps);
    int rc = depbloom_steps(r, epoch, total_steps, &ahead, &pg, er, err);
    if (c->progress && me == 0) dgnn_progress_end(&pg);
    prefetch_stop(ahead.pf);
    dgnn_tgnn_use_sample(r->model, NULL); /* a failed step may have left one attached */
    for (int k = 0; k < 2; k++) {
        dgnn_tgnn_sample_free(&ahead.job[k].s);
        free(ahead.job[k].tmp), free(ahead.job[k].neg);
    }
    return rc;
}

int event_dist_train_epoch(run_t *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    switch (r->cfg->dist.mode) {
    case DGNN_DIST_STRICT: return strict_epoch(r, epoch, er, err);
    case DGNN_DIST_DEPBLOOM: return depbloom_epoch(r, epoch, er, err);
    default: return dgnn_err_set(err, DGNN_EINVAL, "--dist: unknown mode %d", (int)r->cfg->dist.mode);
    }
}

int event_dist_sync_for_eval(run_t *r, dgnn_err *err) {
    (void)r;
    (void)err;
    return DGNN_OK; /* every window (strict: every step) ends with equal replicas */
}

int event_dist_setup(run_t *r, dgnn_err *err) {
    if (r->nranks > DGNN_DIST_MAX_RANKS)
        return dgnn_err_set(err, DGNN_EINVAL, "--dist: at most %d ranks (got %d)", DGNN_DIST_MAX_RANKS, r->nranks);
    int rc = dgnn_state_track_writes(&r->st, err);
    if (!rc && r->cfg->dist.mode == DGNN_DIST_DEPBLOOM) rc = plan_make(r, err);
    return rc;
}

void event_dist_report(const run_t *r, dgnn_dist_result *d) {
    if (!r->plan) return;
    d->windows = r->plan->W;
    d->hot_rows = r->plan->hot_rows_sent;
    d->cold_fetch = r->plan->cold;
    d->cut_fraction = r->plan->cut_fraction;
    d->setup_seconds = r->plan->setup_seconds;
}

int64_t event_dist_hot_rows(run_t *r, int64_t set) {
    if (!r->plan) return 0;
    if (set >= 0) r->plan->hot_rows_sent = set;
    return r->plan->hot_rows_sent;
}

void event_dist_free(run_t *r) {
    free(r->pack);
    free(r->recv);
    r->pack = r->recv = NULL;
    plan_free(r->plan);
    r->plan = NULL;
}
