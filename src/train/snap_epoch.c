/* snap_epoch.c: one single-process training epoch of the snapshot trainer
 * (snap_train.h): the training samples in order, an Adam step every windows_per_step
 * samples that trained (the step counter runs across epochs, as the reference's
 * steps_accum_gradients), the epoch's loss, counts and profile row. DyGNeX's distributed
 * epoch (dygnex_epoch.c) is the same loop, round by round and rank by rank. */
#include "snap_run.h"

#include <math.h>
#include <stdio.h>

/* One epoch over the training samples [tb, te) (the first max_train_windows of them). */
int snap_train_epoch(snap_run *r, int64_t epoch, dgnn_snap_epoch_result *er, snap_totals *tot, dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    int64_t n = r->te - r->tb;
    if (c->max_train_windows > 0 && n > c->max_train_windows) n = c->max_train_windows;
    double *prof = snap_profile_epoch(r, n);
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train", (long long)epoch);
    if (c->progress) dgnn_progress_begin(&pg, label, n);
    double t0 = dgnn_now(), loss_sum = 0;
    int64_t done = 0, pairs_sum = 0, last = -1;
    /* the windows of one step form a group (snapmodel.h), which ends at the epoch's end too:
     * validation runs between epochs, and a step may straddle them */
    int rc = snap_begin_group(r, err);
    if (rc) return rc;
    for (int64_t k = 0; k < n; k++) {
        int64_t idx = r->tb + k;
        double loss, secs, gsecs;
        int64_t pairs;
        rc = snap_train_sample(r, epoch, idx, &loss, &pairs, &secs, err);
        if (rc) return rc;
        if (c->interrupt && *c->interrupt) return dgnn_err_set(err, DGNN_EINTR, "interrupted");
        /* trainer.optim_step: a step every steps_accum_gradients samples that trained,
         * counted across epochs */
        if (pairs > 0 && ++r->tr_step % c->windows_per_step == 0) {
            if ((rc = snap_end_group(r, &gsecs, err))) return rc;
            secs += gsecs;
            if ((rc = snap_optimizer_step(r, err))) return rc;
            if ((rc = snap_begin_group(r, err))) return rc;
        }
        if (pairs > 0) last = k;
        if (prof) prof[k] = secs, r->prof_pairs[k] = pairs;
        if (pairs > 0) {
            loss_sum += loss;
            done++;
            pairs_sum += pairs;
            tot->windows++;
            tot->snapshots += r->W + 1;
            for (int64_t s = idx - r->W; s <= idx; s++)
                tot->events += r->snaps.snaps[s].ev_end - r->snaps.snaps[s].ev_begin;
        }
        if (c->progress) {
            char extra[48];
            snprintf(extra, sizeof extra, "loss %.4f", done ? loss_sum / (double)done : 0.0);
            dgnn_progress_update(&pg, k + 1, extra);
        }
    }
    double tail;
    if ((rc = snap_end_group(r, &tail, err))) return rc;
    if (prof && last >= 0) prof[last] += tail;
    if (c->progress) dgnn_progress_end(&pg);
    if (prof) r->prof_epochs++;
    er->train_loss = done ? loss_sum / (double)done : NAN;
    er->train_seconds = dgnn_now() - t0;
    er->train_windows = done;
    er->train_pairs = pairs_sum;
    tot->train_seconds += er->train_seconds;
    return DGNN_OK;
}

