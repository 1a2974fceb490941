/* depbloom_refine.c: DepBloom's second technique, intra-batch memory refinement
 * (docs/depbloom.md, depbloom_internal.h). Partitioning lets each rank train a step of
 * --refine K times the batch without waiting for the others; inside the step, the rank's
 * share is split into K micro-batches trained in order, each reading the memory the
 * earlier ones committed, so the memory a later event reads is at most one micro-batch
 * old. Their gradients add up to the step's one optimizer step. K = 1: one batch. */
#include <stdio.h>
#include <string.h>

#include "depbloom_internal.h"
#include "dgnn/params.h"

int depbloom_refine_step(event_run *r, int64_t epoch, const depbloom_mb_pos *at, const depbloom_mb_hook *before,
                         event_grad_sync *gs, double *loss_out, int64_t *B_out, double *flops, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const struct depbloom_plan *pl = r->plan;
    const dgnn_events *mine = &pl->mine;
    const int P = r->nranks, me = r->rank;
    const int64_t K = c->dist.refine > 1 ? c->dist.refine : 1, w = at->w, s = at->s, step = at->step;
    const int64_t off = pl->mine_off[w], n = pl->mine_off[w + 1] - off, S = pl->steps[w];
    const int64_t lo = off + s * n / S, hi = off + (s + 1) * n / S, B = hi - lo, G = pl->step_total[step];
    if (!r->dev) dgnn_params_zero_grad(r->p); /* a GPU's first micro-batch starts its slab */
    double loss = 0;
    int rc = DGNN_OK;
    for (int64_t j = 0; j < K && !rc; j++) {
        const depbloom_mb_pos mb_at = {w, s, j, step};
        int64_t ml, mb;
        depbloom_mb_range(pl, K, &mb_at, &ml, &mb);
        if (mb == 0) continue;
        /* negatives keyed by (epoch, micro-batch id x P + rank): on one rank, micro-batch
         * b draws what single-process batch b draws */
        rc = event_ensure_batch(r, mb, 1, err);
        if (!rc) rc = event_draw_negatives(r, mb, 1, 0, event_stream_seed(c->seed, epoch, (step * K + j) * P + me), err);
        if (!rc && before && before->fn) rc = before->fn(before->ctx, &mb_at, err);
        if (!rc)
            rc = event_micro_batch(r, mine, ml, mb, G, r->neg_t, gs, j + 1 == K, (double)mb / (double)B, &loss,
                                   flops, err);
        if (!rc && j + 1 < K && !r->dev) dgnn_tgnn_commit(r->model, &r->st, mine); /* a GPU's step commits */
    }
    if (!rc) rc = event_grad_start(r, gs, err);
    if (rc) return rc;
    if (!r->dev && B > 0 && lo + (K - 1) * B / K < hi) dgnn_tgnn_commit(r->model, &r->st, mine); /* the last one */
    *loss_out = loss;
    *B_out = B;
    return DGNN_OK;
}
