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
 * Dropout draws from a stream keyed by (seed, epoch, rank), so ranks do not share masks
 * and a resumed run repeats the epoch it restarts exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "event_train_internal.h"

/* Applies every rank's written rows, in rank order, to the local replica: the rows this
 * rank wrote since the last exchange are taken from the state's write tracking. */
static int exchange_written(run_t *r, dgnn_err *err) {
    const int32_t *nodes;
    int64_t n = dgnn_state_take_written(&r->st, &nodes), rb = dgnn_state_row_bytes(&r->st);
    if (n * rb > r->pack_cap) {
        r->pack_cap = n * rb * 2;
        r->pack = dgnn_xrealloc(r->pack, (size_t)r->pack_cap);
    }
    dgnn_state_pack_rows(r->pack, &r->st, nodes, n);
    if (r->nranks == 1) return DGNN_OK; /* the replica is the state */
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
    int64_t applied = dgnn_state_unpack_rows(&r->st, r->recv, total, err);
    if (applied < 0) return (int)applied;
    dgnn_state_take_written(&r->st, &nodes); /* unpacking is not this rank's writing */
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
    int64_t my_events = 0, all_events = 0;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t g0 = b * G, Gb = g0 + G <= tr->num_events ? G : tr->num_events - g0;
        const int64_t lo = g0 + Gb * me / P, hi = g0 + Gb * (me + 1) / P, B = hi - lo;
        event_ensure_batch(r, Gb, 1);
        int rc = event_draw_negatives(r, Gb, 1, 0, event_stream_seed(c->seed, epoch, b), err);
        if (rc) return rc;
        double t0 = dgnn_now();
        dgnn_params_zero_grad(r->p);
        double loss = 0;
        if (B > 0) {
            rc = dgnn_tgnn_forward(r->model, r->logits, &r->st, &r->g_train, r->train.efeat, tr, lo, B,
                                   r->neg_t + (lo - g0), 1, &r->rng, err);
            if (rc) return rc;
            r->t_sample += dgnn_tgnn_last_sample_seconds(r->model);
            for (int64_t i = 0; i < 2 * B; i++) r->labels[i] = i < B ? 1.0f : 0.0f;
            loss = 2.0 * dgnn_bce_logits_forward(NULL, r->logits, r->labels, 2 * B);
            memset(r->dlogits, 0, (size_t)(2 * B) * sizeof(float));
            dgnn_bce_logits_backward(r->dlogits, r->logits, r->labels, 2 * B, 2.0f * (float)B / (float)Gb);
            dgnn_tgnn_backward(r->model, r->dlogits);
            flops += dgnn_tgnn_last_flops(r->model);
        }
        dgnn_comm_iallreduce_sum_f32(r->p->grad, r->p->total, 0);
        if (B > 0) dgnn_tgnn_commit(r->model, &r->st, tr);
        double t1 = dgnn_now();
        if ((rc = exchange_written(r, err))) return rc;
        dgnn_comm_wait();
        double t2 = dgnn_now();
        dgnn_adam_step_params(&r->opt, r->p);
        r->t_compute += (t1 - t0) + (dgnn_now() - t2);
        r->t_comm += t2 - t1;
        if (!isfinite(loss))
            return dgnn_err_set(err, DGNN_EINVAL,
                                "rank %d, epoch %lld batch %lld: the loss is not finite (%g); try a lower --lr", me,
                                (long long)epoch, (long long)b, loss);
        double share = loss * (double)B / (double)Gb;
        loss_share += share;
        if (c->on_step) {
            double gl = share;
            dgnn_comm_allreduce_sum_f64(&gl, 1);
            c->on_step(c->on_step_ctx, epoch, b, gl);
        }
        my_events += B;
        all_events += Gb;
        r->steps++;
        if (c->progress && me == 0) {
            char extra[48];
            snprintf(extra, sizeof extra, "loss %.4f", loss_share / (double)(b + 1));
            dgnn_progress_update(&pg, all_events, extra);
        }
    }
    if (c->progress && me == 0) dgnn_progress_end(&pg);
    r->grad_bytes += nb * r->p->total * (int64_t)sizeof(float);
    r->my_events += my_events;
    dgnn_comm_allreduce_sum_f64(&loss_share, 1);
    er->train_loss = nb > 0 ? loss_share / (double)nb : NAN;
    er->train_seconds = dgnn_now() - t_start;
    er->train_events = all_events;
    er->flops = flops;
    return DGNN_OK;
}

int event_dist_train_epoch(run_t *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    switch (r->cfg->dist.mode) {
    case DGNN_DIST_STRICT: return strict_epoch(r, epoch, er, err);
    default:
        return dgnn_err_set(err, DGNN_EINVAL, "--dist: mode %d is not built yet", (int)r->cfg->dist.mode);
    }
}

int event_dist_sync_for_eval(run_t *r, dgnn_err *err) {
    (void)r;
    (void)err;
    return DGNN_OK; /* strict: every replica already holds the whole state */
}

int event_dist_setup(run_t *r, dgnn_err *err) {
    if (r->nranks > DGNN_DIST_MAX_RANKS)
        return dgnn_err_set(err, DGNN_EINVAL, "--dist: at most %d ranks (got %d)", DGNN_DIST_MAX_RANKS, r->nranks);
    return dgnn_state_track_writes(&r->st, err);
}

void event_dist_free(run_t *r) {
    free(r->pack);
    free(r->recv);
    r->pack = r->recv = NULL;
}
