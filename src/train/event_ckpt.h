/* event_ckpt.h: the event trainer's checkpoint (event_ckpt.c), which the driver
 * (event_train.c) saves after every epoch and reads on --resume (rank 0). */
#ifndef DGNN_EVENT_CKPT_H
#define DGNN_EVENT_CKPT_H

#include "event_run.h"

/* The progress record (section "meta"): the loop's position and early-stopping state,
 * the optimizer and the dropout rng. Opens with the fingerprint (checkpoint.h). */
typedef struct {
    uint64_t fingerprint;
    int64_t epochs_done, best_epoch, bad_rounds;
    double best_ap;
    int64_t early_stopped, have_best;
    dgnn_adam opt;
    dgnn_rng rng;
} event_ckpt_meta;

/* The settings that must not change on --resume: model, sizes, batch, lr, seed, the
 * events themselves. */
uint64_t event_fingerprint(const event_run *r);
/* The same fingerprint, and the settings it covers by name into keep (dgnn_ckpt_keep) */
uint64_t event_settings(const event_run *r, dgnn_ckpt_run *keep);
/* A distributed run's collective check that every rank trains the same events with the
 * same settings and distribution options (dgnn_ckpt_ranks_agree): DGNN_EINVAL on every
 * rank when one differs. */
int event_ranks_agree(const event_run *r, dgnn_err *err);
/* totals: every rank's running totals (distributed runs: r->nranks entries), else NULL.
 * load checks the run record, the fingerprint and the progress, and restores r's
 * parameters, Adam state, rng, node states and best epoch. */
int event_ckpt_save(event_run *r, const event_ckpt_meta *meta, const dgnn_event_train_result *res,
                    const event_rank_totals *totals, dgnn_err *err);
int event_ckpt_load(event_run *r, event_ckpt_meta *meta, dgnn_event_train_result *res, event_rank_totals *totals,
                    dgnn_err *err);

#endif
