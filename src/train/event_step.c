/* event_step.c: the pieces of a distributed training step that the strict baseline
 * (event_strict.c) and DepBloom (depbloom*.c) share (event_run.h): a micro-batch's
 * forward and backward with the gradient all-reduce started inside the last backward,
 * the all-reduce's start and wait, Adam, the all-gather of state rows, and the bookkeeping
 * that closes a step. On a GPU rank (r->dev) the micro-batch, the all-reduce and Adam run on
 * the device (event_device.c), the rows move between the devices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/adam.h"
#include "dgnn/comm.h"
#include "dgnn/comm_dev.h"
#include "dgnn/metrics.h"
#include "dgnn/params.h"
#include "dgnn/tgnn_cuda.h"
#include "event_run.h"

/* r->recv_nodes for at least n nodes (contents not kept) */
static void recv_nodes_grow(event_run *r, int64_t n) {
    if (n <= r->recv_nodes_cap) return;
    r->recv_nodes_cap = n + n / 2 + 64;
    free(r->recv_nodes);
    r->recv_nodes = dgnn_xmalloc((size_t)r->recv_nodes_cap * sizeof(int32_t));
}

int64_t event_packed_nodes(event_run *r, const void *rows, int64_t bytes) {
    const int64_t rb = dgnn_state_row_bytes(&r->st), n = bytes / rb;
    recv_nodes_grow(r, n);
    for (int64_t i = 0; i < n; i++) memcpy(&r->recv_nodes[i], (const char *)rows + i * rb, sizeof(int32_t));
    return n;
}

/* The host's part of a row exchange: this rank's n rows of rb bytes packed (meta: their
 * first parts alone, dgnn_state_pack_meta; else whole rows) and every rank's all-gathered
 * into r->recv in rank order, counts[q] the rows of rank q; with a GPU, r->recv_nodes made
 * to hold them. Returns the rows received in all. */
static int64_t allgather_packed(event_run *r, const int32_t *nodes, int64_t n, int64_t rb, int meta, int64_t *counts) {
    const int P = r->nranks;
    int64_t total = 0, bytes[DGNN_DIST_MAX_RANKS];
    dgnn_comm_allgather_i64(counts, n);
    for (int q = 0; q < P; q++) total += counts[q], bytes[q] = counts[q] * rb;
    if (n * rb > r->pack_cap) {
        r->pack_cap = n * rb * 2;
        r->pack = dgnn_xrealloc(r->pack, (size_t)r->pack_cap);
    }
    if (total * rb > r->recv_cap) {
        r->recv_cap = total * rb * 2;
        r->recv = dgnn_xrealloc(r->recv, (size_t)r->recv_cap);
    }
    if (r->dev) recv_nodes_grow(r, total);
    if (meta) dgnn_state_pack_meta(r->pack, &r->st, nodes, n);
    else dgnn_state_pack_rows(r->pack, &r->st, nodes, n);
    dgnn_comm_allgatherv_bytes(r->recv, bytes, r->pack, n * rb);
    r->state_bytes += n * dgnn_state_row_bytes(&r->st) * (P - 1);
    return total;
}

/* event_allgather_rows's overwrite on GPUs: the rows' first parts (ids, times, counts)
 * all-gathered through the host and applied to the host replica in rank order, the floats
 * (memory and mail rings) gathered on the device, all-gathered between the devices
 * (comm_dev.h: NCCL, or through the host) and scattered in the same order. The host
 * replica's floats are then stale until the next pull (tgnn_cuda.h), which whatever reads
 * them on a GPU run does first. */
static int allgather_device_rows(event_run *r, const int32_t *nodes, int64_t n, dgnn_err *err) {
    const int64_t mb = dgnn_state_meta_bytes(&r->st), W = dgnn_tgnn_cuda_row_floats(r->dev);
    int64_t counts[DGNN_DIST_MAX_RANKS];
    const int64_t total = allgather_packed(r, nodes, n, mb, 1, counts);
    const int64_t applied = dgnn_state_unpack_meta(&r->st, r->recv, total * mb, r->recv_nodes, err);
    if (applied < 0) return (int)applied;
    float *dsend = NULL, *drecv = NULL;
    int rc = dgnn_tgnn_cuda_exchange_buffers(r->dev, n, total, &dsend, &drecv, err);
    if (!rc) rc = dgnn_tgnn_cuda_rows_gather(r->dev, dsend, nodes, n, err);
    for (int q = 0; q < r->nranks; q++) counts[q] *= W;
    if (!rc) rc = dgnn_comm_dev_allgatherv_f32(r->cdev, drecv, counts, dsend, err);
    return rc ? rc : dgnn_tgnn_cuda_rows_scatter(r->dev, &r->st, drecv, r->recv_nodes, total, err);
}

/* Packs the rows of nodes (n), all-gathers every rank's rows and applies them in rank
 * order to the local replica (unpacking is not recorded as writing): overwriting (a node
 * sent by several ranks ends with the last rank's row), or, merge = 1, merging the
 * versions of a node (dgnn_state_merge_rows: later memory, union of mailboxes), the same
 * on every rank. With a GPU (r->dev) the replica's rows live on the device: an overwrite
 * moves the floats between the devices (allgather_device_rows); a merge, which reads the
 * local rows of what it receives, brings the sent rows down first (the host keeps the
 * times and counts; the local rows of what it receives are the rows this rank wrote and
 * sent, or rows the device took from the host: a merging run never takes the device path),
 * and sends the received rows with every node's times and counts up after. */
int event_allgather_rows(event_run *r, const int32_t *nodes, int64_t n, int merge, dgnn_err *err) {
    const int64_t rb = dgnn_state_row_bytes(&r->st);
    if (r->nranks == 1) return DGNN_OK; /* the replica is the state */
    if (r->dev && !merge) return allgather_device_rows(r, nodes, n, err);
    int rc = r->dev ? dgnn_tgnn_cuda_rows_to_host(r->dev, &r->st, nodes, n, err) : DGNN_OK;
    if (rc) return rc;
    int64_t counts[DGNN_DIST_MAX_RANKS];
    const int64_t nr = allgather_packed(r, nodes, n, rb, 0, counts);
    int64_t applied = merge ? dgnn_state_merge_rows(&r->st, r->recv, nr * rb, 1, err)
                            : dgnn_state_unpack_rows(&r->st, r->recv, nr * rb, err);
    if (applied < 0) return (int)applied;
    if (!r->dev) return DGNN_OK;
    const int64_t na = event_packed_nodes(r, r->recv, nr * rb); /* the rows applied, up */
    return dgnn_tgnn_cuda_rows_from_host(r->dev, &r->st, r->recv_nodes, na, err);
}

/* The bookkeeping that closes every step of both modes: the non-finite-loss check, this
 * rank's share of the global loss, the step callback, counters and the progress bar. */
int event_step_done(event_run *r, int64_t epoch, int64_t step, double loss, int64_t B, int64_t G, double *loss_share,
                     dgnn_progress *pg, int64_t shown, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    if (!isfinite(loss))
        return dgnn_err_set(err, DGNN_EINVAL, "rank %d, epoch %lld step %lld: the loss is not finite (%g); try a lower --lr, "
                            "or look for feature values or time gaps in the data too large for float32",
                            r->rank, (long long)epoch, (long long)step, loss);
    const double share = loss * (double)B / (double)(G > 0 ? G : 1);
    *loss_share += share;
    if (c->on_step) {
        double gl = share;
        dgnn_comm_allreduce_sum_f64(&gl, 1);
        c->on_step(c->on_step_ctx, epoch, step, gl);
    }
    if (c->interrupt && *c->interrupt) return dgnn_err_set(err, DGNN_EINTR, "interrupted");
    r->my_events += B;
    r->steps++;
    if (c->progress && r->rank == 0) {
        char extra[48];
        snprintf(extra, sizeof extra, "loss %.4f", *loss_share / (double)(step + 1));
        dgnn_progress_update(pg, shown, extra);
    }
    return DGNN_OK;
}

/* The gradient all-reduce overlapped with the backward (event_run.h): the model calls
 * grad_ready with the suffix of the slab it has finished. */
static void grad_ready(void *ctx, int64_t off, int64_t n) {
    event_grad_sync *g = ctx;
    dgnn_comm_iallreduce_sum_f32(g->r->p->grad + off, n, 0);
    g->suffix_started = 1;
}

int event_grad_start(event_run *r, event_grad_sync *g, dgnn_err *err) {
    if (r->dev) return event_device_grad_start(r, g, err);
    const int64_t split = dgnn_tgnn_grad_split(r->model), total = r->p->total;
    if (!g->suffix_started) dgnn_comm_iallreduce_sum_f32(r->p->grad + split, total - split, 0);
    dgnn_comm_iallreduce_sum_f32(r->p->grad, split, 0);
    g->suffix_started = 0;
    return DGNN_OK;
}

int event_grad_wait(event_run *r, dgnn_err *err) {
    if (r->dev) return r->cdev ? dgnn_comm_dev_allreduce_wait(r->cdev, err) : DGNN_OK;
    dgnn_comm_wait();
    return DGNN_OK;
}

int event_adam_step(event_run *r, int64_t epoch, int64_t step, dgnn_err *err) {
    if (!r->dev) {
        const int64_t bad = dgnn_adam_step_params(&r->opt, r->p);
        if (!bad) return DGNN_OK;
        char where[80];
        snprintf(where, sizeof where, "rank %d, epoch %lld step %lld", r->rank, (long long)epoch, (long long)step);
        return dgnn_adam_failure(err, where, bad, r->p->total);
    }
    r->opt.t++; /* dgnn_adam_step's count, kept on the host */
    return dgnn_tgnn_cuda_adam(r->dev, r->opt.lr, r->opt.beta1, r->opt.beta2, r->opt.eps, r->opt.weight_decay,
                               r->opt.t, err);
}

int event_micro_batch(event_run *r, const dgnn_events *ev, int64_t lo, int64_t B, int64_t G, const int32_t *neg,
                      event_grad_sync *gs, int last, double w, double *loss_acc, double *flops, dgnn_err *err) {
    if (r->dev) return event_device_micro_batch(r, ev, lo, B, G, neg, gs, last, w, loss_acc, flops, err);
    int rc = dgnn_tgnn_forward(r->model, r->logits, &r->st, &r->g_train, r->ev->efeat, ev, lo, B, neg, 1, &r->rng,
                               err);
    if (rc) return rc;
    r->t_sample += dgnn_tgnn_last_sample_seconds(r->model);
    for (int64_t i = 0; i < 2 * B; i++) r->labels[i] = i < B ? 1.0f : 0.0f;
    *loss_acc += w * (2.0 * dgnn_bce_logits_forward(NULL, r->logits, r->labels, 2 * B));
    memset(r->dlogits, 0, (size_t)(2 * B) * sizeof(float));
    dgnn_bce_logits_backward(r->dlogits, r->logits, r->labels, 2 * B, 2.0f * (float)B / (float)G);
    if (last && r->nranks > 1) dgnn_tgnn_set_grad_hook(r->model, grad_ready, gs);
    dgnn_tgnn_backward(r->model, r->dlogits);
    dgnn_tgnn_set_grad_hook(r->model, NULL, NULL);
    *flops += dgnn_tgnn_last_flops(r->model);
    return DGNN_OK;
}

void event_epoch_done(event_run *r, int64_t steps, double loss_share, double t_start, int64_t events, double flops,
                      dgnn_epoch_result *er) {
    /* the slab each step all-reduces; one rank reduces nothing (no grad hook, no traffic) */
    if (r->nranks > 1) r->grad_bytes += steps * r->p->total * (int64_t)sizeof(float);
    dgnn_comm_allreduce_sum_f64(&loss_share, 1);
    er->train_loss = steps > 0 ? loss_share / (double)steps : NAN;
    er->train_seconds = dgnn_now() - t_start;
    er->train_events = events;
    er->flops = flops;
}
