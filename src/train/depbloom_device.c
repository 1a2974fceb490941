/* depbloom_device.c: DepBloom's training epoch (depbloom.c) with each rank's steps on its GPU
 * (--device cuda; tgnn_cuda.h; NOT YET VERIFIED ON HARDWARE). Partitioning and refinement as
 * on the CPU; the critical path is refused with a GPU (event_presets.c).
 *
 * A step: its --refine K micro-batches, each planned on the host, then its forward, backward
 * (scaled by its share of the step's events) and commit on the device, the micro-batches'
 * gradients summed in the device's slab (as the CPU sums them); the slab summed over the
 * ranks (comm_dev.h: NCCL between GPUs of their own, else through the host), each part's
 * sum started as the last micro-batch's backward finishes it (event_device_grad_hook);
 * Adam on the device. A window's end: the CPU's exchange (depbloom_window_sync: the all-gather, or merge
 * for APAN), event_allgather_rows moving the rows between the devices (a merge: through the
 * host). Same
 * plan, negatives, dropout streams and order as the CPU ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depbloom_internal.h"
#include "dgnn/comm.h"
#include "dgnn/comm_dev.h"
#include "dgnn/tgnn_cuda.h"
#include "event_epoch.h"

/* one step of the plan (depbloom_refine_step's micro-batches) on the device; *loss: the
 * rank's share's loss, *B its events */
static int device_step(event_run *r, int64_t epoch, const depbloom_mb_pos *at, event_grad_sync *gs,
                       double *loss_out, int64_t *B_out, double *flops, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const struct depbloom_plan *pl = r->plan;
    const dgnn_events *mine = &pl->mine;
    const int P = r->nranks, me = r->rank;
    const int64_t K = c->dist.refine > 1 ? c->dist.refine : 1, w = at->w, s = at->s, step = at->step;
    const int64_t off = pl->mine_off[w], n = pl->mine_off[w + 1] - off, S = pl->steps[w];
    const int64_t lo = off + s * n / S, hi = off + (s + 1) * n / S, B = hi - lo, G = pl->step_total[step];
    double loss = 0;
    int rc = DGNN_OK, started = 0;
    for (int64_t j = 0; j < K && !rc; j++) {
        const depbloom_mb_pos mb_at = {w, s, j, step};
        int64_t ml, mb;
        depbloom_mb_range(pl, K, &mb_at, &ml, &mb);
        if (mb == 0) continue;
        double mean = 0;
        rc = event_ensure_batch(r, mb, 1, err);
        if (!rc) rc = event_draw_negatives(r, mb, 1, 0, event_stream_seed(c->seed, epoch, (step * K + j) * P + me), err);
        if (!rc) rc = dgnn_tgnn_cuda_plan(r->dev, &r->st, &r->g_train, r->train.efeat, mine, ml, mb, r->neg_t, &r->rng, err);
        /* the first micro-batch with work starts the slab, the later ones add to it; the
         * last one's backward starts the sum (later ones would still add to every gradient) */
        if (j + 1 == K) event_device_grad_hook(r, gs);
        if (!rc) rc = dgnn_tgnn_cuda_run_grad(r->dev, &r->st, mine, 2.0f * (float)mb / (float)G, started, err);
        event_device_grad_hook(r, NULL);
        if (!rc) rc = dgnn_tgnn_cuda_wait_loss(r->dev, &mean, err);
        if (rc) break;
        started = 1;
        loss += 2.0 * mean * (double)mb / (double)B;
        *flops += dgnn_tgnn_cuda_last_flops(r->dev);
    }
    /* a rank without events in the step gives a zero slab */
    if (!rc && !started) {
        memset(r->p->grad, 0, (size_t)r->p->total * sizeof(float));
        rc = dgnn_tgnn_cuda_grad(r->dev, r->p->grad, 0, err);
    }
    *loss_out = loss;
    *B_out = B;
    return rc;
}

int depbloom_device_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    struct depbloom_plan *pl = r->plan;
    const int P = r->nranks, me = r->rank;
    int64_t total_steps = 0;
    for (int64_t w = 0; w < pl->W; w++) total_steps += pl->steps[w];
    if (c->max_train_batches > 0 && total_steps > c->max_train_batches) total_steps = c->max_train_batches;
    int rc = dgnn_tgnn_cuda_reset(r->dev, &r->st, err);
    if (rc) return rc;
    dgnn_rng_seed2(&r->rng, c->seed, 0x64726f70ULL + (uint64_t)epoch * 4099 + (uint64_t)me);
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train (depbloom, %d ranks, GPU)", (long long)epoch, P);
    if (c->progress && me == 0) dgnn_progress_begin(&pg, label, total_steps);
    int64_t all_events = 0, step = 0;
    double loss_share = 0, flops = 0, t_start = dgnn_now();
    for (int64_t w = 0; w < pl->W && step < total_steps && !rc; w++) {
        for (int64_t s = 0; s < pl->steps[w] && step < total_steps && !rc; s++, step++) {
            const int64_t G = pl->step_total[step];
            const depbloom_mb_pos at = {w, s, 0, step};
            double t0 = dgnn_now(), loss = 0;
            int64_t B = 0;
            event_grad_sync gs = {r, 0, 0};
            if ((rc = device_step(r, epoch, &at, &gs, &loss, &B, &flops, err))) break;
            double t1 = dgnn_now();
            if ((rc = event_device_grad_sum(r, &gs, err))) break;
            double t2 = dgnn_now();
            r->opt.t++;
            rc = dgnn_tgnn_cuda_adam(r->dev, r->opt.lr, r->opt.beta1, r->opt.beta2, r->opt.eps, r->opt.weight_decay,
                                     r->opt.t, err);
            if (rc) break;
            r->t_compute += (t1 - t0) + (dgnn_now() - t2);
            r->t_comm += t2 - t1;
            all_events += G;
            rc = event_step_done(r, epoch, step, loss, B, G, &loss_share, &pg, step + 1, err);
        }
        if (rc) break;
        double t1 = dgnn_now();
        rc = depbloom_window_sync(r, w, err); /* event_allgather_rows */
        r->t_comm += dgnn_now() - t1;
    }
    if (c->progress && me == 0) dgnn_progress_end(&pg);
    if (rc) return rc;
    event_epoch_done(r, step, loss_share, t_start, all_events, flops, er);
    return DGNN_OK;
}
