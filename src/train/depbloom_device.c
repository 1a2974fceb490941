/* depbloom_device.c: DepBloom's step (depbloom.c) with the rank's work on its GPU
 * (--device cuda; tgnn_cuda.h; NOT YET VERIFIED ON HARDWARE), the twin of
 * depbloom_refine_step. Partitioning, refinement and the critical path are the CPU's:
 * depbloom.c's epoch runs either step, and moves the rows through the device where they
 * live there (event_allgather_rows, depbloom_critical_path.c).
 *
 * A step: its --refine K micro-batches, each planned on the host (the sampling-ahead hook
 * `before` first, as on the CPU), then its forward, backward (scaled by its share of the
 * step's events) and commit on the device, the micro-batches' gradients summed in the
 * device's slab (as the CPU sums them); the last one's backward hands the slab's parts to
 * the gradient sum as it finishes them (event_device_grad_hook; event_device_grad_sum
 * completes it). Same plan, negatives, dropout streams and order as the CPU ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depbloom_internal.h"
#include "dgnn/tgnn_cuda.h"
#include "event_epoch.h"

int depbloom_device_step(event_run *r, int64_t epoch, const depbloom_mb_pos *at, const depbloom_mb_hook *before,
                         event_grad_sync *gs, double *loss_out, int64_t *B_out, double *flops, dgnn_err *err) {
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
        if (!rc && before && before->fn) rc = before->fn(before->ctx, &mb_at, err);
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
