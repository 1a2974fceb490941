/* event_device.c: the event trainer on a GPU (--device cuda, tgnn_cuda.h; NOT YET VERIFIED
 * ON HARDWARE): the device's set-up, the training epoch, the distributed step's
 * micro-batch and gradient sum on a GPU rank (strict's and DepBloom's epochs call them
 * through event_step.c), and the moves of state and parameters between host and device at
 * the points where the driver reads or writes them on the host (validation's saved state,
 * the best epoch, checkpoints, resuming).
 *
 * The epoch is event_single.c's loop with the step on the device, pipelined by one batch:
 * batch b's bookkeeping (negatives, sampling, the distinct nodes: CPU) runs while the GPU
 * computes batch b - 1, whose loss is read only then. Same batches, negatives, dropout
 * draws and order of commit and Adam as the CPU epoch, so one seed gives the same run on
 * either device up to float rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/comm_dev.h"
#include "dgnn/metrics.h"
#include "dgnn/tgnn_cuda.h"
#include "event_epoch.h"

int event_device_init(event_run *r, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    if (!c->use_cuda) return DGNN_OK;
    const int n = dgnn_tgnn_cuda_devices();
    const int dev = c->cuda_device >= 0 ? c->cuda_device : n > 0 ? dgnn_comm_local_rank() % n : 0;
    int rc = dgnn_tgnn_cuda_init(&r->dev, r->model, &r->st, dev, err);
    if (rc) return rc;
    dgnn_log("device: cuda:%d (%s); the GPU path is not yet verified on hardware\n", dev,
             dgnn_tgnn_cuda_device_name(r->dev));
    /* several ranks: NCCL between their GPUs, or the host (comm_dev.h), chosen together */
    if (r->nranks > 1 && (rc = dgnn_comm_dev_init(&r->cdev, dgnn_tgnn_cuda_context(r->dev), err))) return rc;
    return DGNN_OK;
}

void event_device_free(event_run *r) {
    dgnn_comm_dev_free(r->cdev);
    r->cdev = NULL;
    dgnn_tgnn_cuda_free(r->dev);
    r->dev = NULL;
}

int event_device_pull(event_run *r, dgnn_err *err) {
    return r->dev ? dgnn_tgnn_cuda_pull(r->dev, &r->st, r->p, err) : DGNN_OK;
}

int event_device_push(event_run *r, dgnn_err *err) {
    return r->dev ? dgnn_tgnn_cuda_push(r->dev, &r->st, r->p, err) : DGNN_OK;
}

void event_device_report(event_run *r) {
    if (!r->dev) return;
    size_t used = 0, total = 0, ws = 0;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_tgnn_cuda_memory(r->dev, &used, &total, &ws, &err) == DGNN_OK)
        dgnn_log("GPU memory: %.0f MiB in use of %.0f MiB (the step's workspace %.0f MiB)\n", (double)used / 1048576.0,
                 (double)total / 1048576.0, (double)ws / 1048576.0);
}

/* Where an epoch's host time goes (seconds), to tell whether the GPU ever waits on the
 * CPU: plan = the next batch's negatives and bookkeeping (sampling included), run while
 * the GPU computes the previous batch; wait = the CPU waiting for that batch's loss;
 * enqueue = handing a step to the device. A wait above zero in (nearly) every step means
 * the device had its next batch before it finished the previous one. */
typedef struct {
    double plan, sample, wait, enqueue;
    int64_t steps, waited; /* steps, and those whose wait exceeded 10 us */
} pipe_times;

/* Batch b's loss, read once the device has it: event_single.c's bookkeeping of a step. */
static int step_done(event_run *r, int64_t epoch, int64_t b, int64_t B, double *loss_sum, int64_t *events,
                     dgnn_progress *pg, pipe_times *pt, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    double mean;
    const double t0 = dgnn_now();
    int rc = dgnn_tgnn_cuda_wait_loss(r->dev, &mean, err);
    const double w = dgnn_now() - t0;
    pt->wait += w, pt->waited += w > 1e-5;
    if (rc) return rc;
    const double loss = 2.0 * mean; /* the TGN code's: positives' mean BCE + negatives' */
    if (!isfinite(loss))
        return dgnn_err_set(err, DGNN_EINVAL, "epoch %lld batch %lld: the loss is not finite (%g); try a lower --lr, "
                            "or look for feature values or time gaps in the data too large for float32",
                            (long long)epoch, (long long)b, loss);
    *loss_sum += loss;
    if (c->on_step) c->on_step(c->on_step_ctx, epoch, b, loss);
    if (c->interrupt && *c->interrupt) return dgnn_err_set(err, DGNN_EINTR, "interrupted");
    *events += B;
    if (c->progress) {
        char extra[48];
        snprintf(extra, sizeof extra, "loss %.4f", *loss_sum / (double)(b + 1));
        dgnn_progress_update(pg, *events, extra);
    }
    return DGNN_OK;
}

int event_device_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const dgnn_events *tr = &r->train;
    const int64_t bs = c->batch;
    int rc = dgnn_tgnn_cuda_reset(r->dev, &r->st, err);
    if (rc) return rc;
    dgnn_progress pg;
    const int64_t nb = event_epoch_begin(r, epoch, &pg);
    double loss_sum = 0, flops = 0, t0 = dgnn_now();
    int64_t events = 0, prev_B = 0;
    pipe_times pt = {0};
    for (int64_t b = 0; b < nb; b++) {
        const int64_t e0 = b * bs, B = e0 + bs <= tr->num_events ? bs : tr->num_events - e0;
        const double tp = dgnn_now();
        rc = event_ensure_batch(r, B, 1, err);
        if (!rc) rc = event_draw_negatives(r, B, 1, 0, event_stream_seed(c->seed, epoch, b), err);
        if (!rc)
            rc = dgnn_tgnn_cuda_plan(r->dev, &r->st, &r->g_train, r->ev->efeat, tr, e0, B, r->neg_t, &r->rng, err);
        pt.plan += dgnn_now() - tp;
        pt.sample += dgnn_tgnn_last_sample_seconds(r->model);
        if (!rc && b > 0) rc = step_done(r, epoch, b - 1, prev_B, &loss_sum, &events, &pg, &pt, err);
        if (rc) return rc;
        flops += dgnn_tgnn_cuda_last_flops(r->dev);
        r->opt.t++; /* dgnn_adam_step's count, kept on the host */
        const double te = dgnn_now();
        rc = dgnn_tgnn_cuda_run_step(r->dev, &r->st, tr, r->opt.lr, r->opt.beta1, r->opt.beta2, r->opt.eps,
                                     r->opt.weight_decay, r->opt.t, err);
        pt.enqueue += dgnn_now() - te;
        pt.steps++;
        if (rc) return rc;
        prev_B = B;
    }
    if (nb > 0 && (rc = step_done(r, epoch, nb - 1, prev_B, &loss_sum, &events, &pg, &pt, err))) return rc;
    if (c->progress) dgnn_progress_end(&pg);
    if (pt.steps > 0) {
        const double ms = 1e3 / (double)pt.steps;
        dgnn_log("epoch %lld on the GPU, per step: the CPU prepared the next batch in %.3f ms (sampling %.3f ms), "
                 "enqueued in %.3f ms, waited %.3f ms for the GPU; it waited in %lld of %lld steps (in those the "
                 "GPU had its next batch before it was done)\n",
                 (long long)epoch, pt.plan * ms, pt.sample * ms, pt.enqueue * ms, pt.wait * ms, (long long)pt.waited,
                 (long long)pt.steps);
    }
    er->train_loss = nb > 0 ? loss_sum / (double)nb : NAN;
    er->train_seconds = dgnn_now() - t0;
    er->train_events = events;
    er->flops = flops; /* the CPU's count of the same products */
    return DGNN_OK;
}

/* a part of the slab done on the device (tgnn_cuda.h's hook): its sum starts on the lane */
static int grad_ready(void *ctx, int64_t off, int64_t n, dgnn_err *err) {
    event_grad_sync *g = ctx;
    event_run *r = g->r;
    if (off < dgnn_tgnn_grad_split(r->model)) g->prefix_started = 1;
    else g->suffix_started = 1;
    return dgnn_comm_dev_allreduce_start(r->cdev, dgnn_tgnn_cuda_grad_slab(r->dev) + off, r->p->grad + off, n, 0, err);
}

/* the loss of the step's micro-batch still on the device, read (a wait) into its share */
static int loss_settle(event_run *r, event_grad_sync *g, dgnn_err *err) {
    if (!g->loss_to) return DGNN_OK;
    double mean = 0;
    int rc = dgnn_tgnn_cuda_wait_loss(r->dev, &mean, err);
    if (!rc) *g->loss_to += g->loss_w * (2.0 * mean); /* the micro-batch's own loss, as the CPU's */
    g->loss_to = NULL;
    return rc;
}

/* event_micro_batch on the GPU: planned on the host (the same bookkeeping, negatives and
 * dropout draws as the CPU's forward) while the device still computes the step's previous
 * micro-batch, whose loss is read only then; then forward, backward and commit on the device,
 * enqueued. The step's first micro-batch starts the device's slab, later ones add to it (in
 * the CPU's order of sums); the last one's backward hands the slab's parts to the gradient
 * sum as it finishes them (the sum runs on comm_dev's lane beside the rest of the backward). */
int event_device_micro_batch(event_run *r, const dgnn_events *ev, int64_t lo, int64_t B, int64_t G,
                             const int32_t *neg, event_grad_sync *gs, int last, double w, double *loss_acc,
                             double *flops, dgnn_err *err) {
    int rc = dgnn_tgnn_cuda_plan(r->dev, &r->st, &r->g_train, r->ev->efeat, ev, lo, B, neg, &r->rng, err);
    if (!rc) rc = loss_settle(r, gs, err);
    if (rc) return rc;
    r->t_sample += dgnn_tgnn_last_sample_seconds(r->model);
    if (last && r->cdev) dgnn_tgnn_cuda_set_grad_hook(r->dev, grad_ready, gs);
    rc = dgnn_tgnn_cuda_run_grad(r->dev, &r->st, ev, 2.0f * (float)B / (float)G, gs->slab_started, err);
    dgnn_tgnn_cuda_set_grad_hook(r->dev, NULL, NULL);
    if (rc) return rc;
    gs->slab_started = 1;
    gs->loss_to = loss_acc, gs->loss_w = w;
    *flops += dgnn_tgnn_cuda_last_flops(r->dev);
    return DGNN_OK;
}

int event_device_grad_start(event_run *r, event_grad_sync *g, dgnn_err *err) {
    int rc = loss_settle(r, g, err); /* the step's last micro-batch */
    if (rc) return rc;
    if (!g->slab_started) { /* no work in the step: a zero slab */
        memset(r->p->grad, 0, (size_t)r->p->total * sizeof(float));
        if ((rc = dgnn_tgnn_cuda_grad(r->dev, r->p->grad, 0, err))) return rc;
        g->slab_started = 1;
    }
    if (!r->cdev) return DGNN_OK;
    const int64_t split = dgnn_tgnn_grad_split(r->model), total = r->p->total;
    if (!g->suffix_started) rc = grad_ready(g, split, total - split, err);
    if (!rc && !g->prefix_started) rc = grad_ready(g, 0, split, err);
    g->suffix_started = g->prefix_started = 0;
    return rc;
}
