/* depbloom.c: DepBloom's training epoch (docs/depbloom.md), composing its three
 * techniques (depbloom_internal.h): the plan of temporally bounded spatial partitioning
 * (depbloom_partition.c) gives each rank its sub-stream, cut into S_w steps per window;
 * each step is refined into --refine micro-batches (depbloom_refine.c); the critical path
 * (depbloom_critical_path.c) sends hot rows after every step, samples the next
 * micro-batch ahead and fetches cold rows when read, instead of the window boundary's
 * all-gather.
 *
 * With a GPU per rank (r->dev) the same epoch runs there: event_step.c's calls run each
 * micro-batch, the gradient sum and Adam on the device, and the exchanges move the rows
 * through the device (event_allgather_rows, depbloom_critical_path.c).
 *
 * Dropout draws from a stream keyed by (seed, epoch, rank), so ranks do not share masks
 * and a resumed run repeats the epoch it restarts exactly. */
#include <stdio.h>
#include <string.h>

#include "depbloom_internal.h"
#include "dgnn/comm.h"
#include "dgnn/params.h"
#include "dgnn/tgnn_cuda.h"
#include "event_epoch.h"

int depbloom_setup(event_run *r, dgnn_err *err) {
    return depbloom_plan_make(r, depbloom_cold_supported(r), depbloom_cp_plan_window, err);
}

/* The epoch's steps, window by window: each step refined (depbloom_refine.c), its hot rows
 * sent (--critical-path), the gradients all-reduced, Adam; each window closed by its
 * boundary sync (depbloom_partition.c) or, with cold rows, by fetching what the next
 * window reads (depbloom_critical_path.c). */
static int depbloom_steps(event_run *r, int64_t epoch, int64_t total_steps, depbloom_ahead *ahead, dgnn_progress *pg,
                          dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    struct depbloom_plan *pl = r->plan;
    const depbloom_mb_hook before = {depbloom_ahead_step, ahead};
    double loss_share = 0, flops = 0, t_start = dgnn_now();
    int64_t all_events = 0, step = 0;
    for (int64_t w = 0; w < pl->W && step < total_steps; w++) {
        const int64_t S = pl->steps[w];
        for (int64_t s = 0; s < S && step < total_steps; s++, step++) {
            const int64_t G = pl->step_total[step];
            double t0 = dgnn_now();
            const depbloom_mb_pos at = {w, s, 0, step};
            event_grad_sync gs = {.r = r};
            double loss = 0;
            int64_t B = 0;
            int rc = depbloom_refine_step(r, epoch, &at, &before, &gs, &loss, &B, &flops, err);
            if (!rc && c->dist.critical_path) rc = depbloom_hot_start(r, w, step, err);
            if (rc) return rc;
            double t1 = dgnn_now();
            if ((rc = event_grad_wait(r, err))) return rc;
            double t2 = dgnn_now();
            if ((rc = event_adam_step(r, epoch, step, err))) return rc;
            if (c->dist.critical_path) {
                double t3 = dgnn_now();
                if ((rc = depbloom_hot_finish(r, err))) return rc;
                t2 += dgnn_now() - t3; /* counted as waiting, not compute */
            }
            r->t_compute += (t1 - t0) + (dgnn_now() - t2);
            r->t_comm += t2 - t1;
            all_events += G;
            if ((rc = event_step_done(r, epoch, step, loss, B, G, &loss_share, pg, step + 1, err))) return rc;
        }
        double t1 = dgnn_now();
        int rc = pl->cold ? depbloom_cold_window_end(r, w, step, epoch, total_steps, err) : depbloom_window_sync(r, w, err);
        if (rc) return rc;
        r->t_comm += dgnn_now() - t1;
    }
    if (pl->cold) {
        double t1 = dgnn_now();
        int rc = depbloom_cold_epoch_end(r, err);
        if (rc) return rc;
        r->t_comm += dgnn_now() - t1;
    }
    event_epoch_done(r, step, loss_share, t_start, all_events, flops, er);
    return DGNN_OK;
}

int depbloom_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    struct depbloom_plan *pl = r->plan;
    const int P = r->nranks, me = r->rank;
    int64_t total_steps = 0;
    for (int64_t w = 0; w < pl->W; w++) total_steps += pl->steps[w];
    if (c->max_train_batches > 0 && total_steps > c->max_train_batches) total_steps = c->max_train_batches;
    int rc = r->dev ? dgnn_tgnn_cuda_reset(r->dev, &r->st, err) : (dgnn_state_reset(&r->st), DGNN_OK);
    if (rc) return rc;
    if (pl->cold) depbloom_cold_epoch_begin(r);
    dgnn_rng_seed2(&r->rng, c->seed, 0x64726f70ULL + (uint64_t)epoch * 4099 + (uint64_t)me);
    depbloom_ahead ahead;
    rc = depbloom_ahead_start(&ahead, r, epoch, total_steps, err);
    if (rc) return rc;
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train (depbloom, %d ranks%s)", (long long)epoch, P, r->dev ? ", GPU" : "");
    if (c->progress && me == 0) dgnn_progress_begin(&pg, label, total_steps);
    rc = depbloom_steps(r, epoch, total_steps, &ahead, &pg, er, err);
    if (c->progress && me == 0) dgnn_progress_end(&pg);
    depbloom_ahead_stop(&ahead);
    return rc;
}

void depbloom_report(const event_run *r, dgnn_dist_result *d) {
    if (!r->plan) return;
    d->windows = r->plan->W;
    d->hot_rows = r->hot_rows_sent;
    d->cold_fetch = r->plan->cold;
    d->cut_fraction = r->plan->cut_fraction;
    d->setup_seconds = r->plan->setup_seconds;
}

void depbloom_free(event_run *r) {
    depbloom_cp_free(r->plan);
    depbloom_plan_free(r->plan);
    r->plan = NULL;
}
