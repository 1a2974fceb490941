/* event_single.c: the single-process training epoch of the event trainer: one batch =
 * forward, BCE loss, backward, commit of the node state, Adam step. The commit comes
 * before the step because the TGN code writes memories and mails inside its forward pass,
 * with the parameters of that pass. Negatives come from the stream of (seed, epoch,
 * batch); dropout draws from the run's rng, which the checkpoint keeps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dgnn/metrics.h"
#include "dgnn/params.h"
#include "event_epoch.h"

/* One training epoch over r->train; returns the mean batch loss. */
int event_single_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const dgnn_events *tr = &r->train;
    const int64_t bs = c->batch;
    dgnn_state_reset(&r->st);
    dgnn_progress pg;
    const int64_t nb = event_epoch_begin(r, epoch, &pg);
    double loss_sum = 0, flops = 0, t0 = dgnn_now();
    int64_t events = 0;
    for (int64_t b = 0; b < nb; b++) {
        int64_t e0 = b * bs, B = e0 + bs <= tr->num_events ? bs : tr->num_events - e0;
        int rc = event_ensure_batch(r, B, 1, err);
        if (!rc) rc = event_draw_negatives(r, B, 1, 0, event_stream_seed(c->seed, epoch, b), err);
        if (rc) return rc;
        dgnn_params_zero_grad(r->p);
        rc = dgnn_tgnn_forward(r->model, r->logits, &r->st, &r->g_train, r->ev->efeat, tr, e0, B, r->neg_t, 1,
                               &r->rng, err);
        if (rc) return rc;
        for (int64_t i = 0; i < 2 * B; i++) r->labels[i] = i < B ? 1.0f : 0.0f;
        /* the TGN code's loss: mean BCE of the positives + mean BCE of the negatives */
        double loss = 2.0 * dgnn_bce_logits_forward(NULL, r->logits, r->labels, 2 * B);
        memset(r->dlogits, 0, (size_t)(2 * B) * sizeof(float));
        dgnn_bce_logits_backward(r->dlogits, r->logits, r->labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(r->model, r->dlogits);
        dgnn_tgnn_commit(r->model, &r->st, tr);
        const int64_t bad = dgnn_adam_step_params(&r->opt, r->p);
        flops += dgnn_tgnn_last_flops(r->model);
        if (!isfinite(loss))
            return dgnn_err_set(err, DGNN_EINVAL, "epoch %lld batch %lld: the loss is not finite (%g); try a lower --lr, "
                                "or look for feature values or time gaps in the data too large for float32",
                                (long long)epoch, (long long)b, loss);
        if (bad) {
            char where[64];
            snprintf(where, sizeof where, "epoch %lld batch %lld", (long long)epoch, (long long)b);
            return dgnn_adam_failure(err, where, bad, r->p->total);
        }
        loss_sum += loss;
        if (c->on_step) c->on_step(c->on_step_ctx, epoch, b, loss);
        if (c->interrupt && *c->interrupt) return dgnn_err_set(err, DGNN_EINTR, "interrupted");
        events += B;
        if (c->progress) {
            char extra[48];
            snprintf(extra, sizeof extra, "loss %.4f", loss_sum / (double)(b + 1));
            dgnn_progress_update(&pg, events, extra);
        }
    }
    if (c->progress) dgnn_progress_end(&pg);
    er->train_loss = nb > 0 ? loss_sum / (double)nb : NAN;
    er->train_seconds = dgnn_now() - t0;
    er->train_events = events;
    er->flops = flops;
    return DGNN_OK;
}
