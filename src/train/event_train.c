/* event_train.c: the driver of the event trainer (event_train.h): set-up, the epochs
 * loop (training by the epoch of the run's mode, event_epoch.h; validation; early
 * stopping; a checkpoint after every epoch, event_ckpt.h), the test and the report. The
 * files below it are listed in event_run.h.
 *
 * Randomness: dropout (and the uniform sampler) draw from one rng whose state is
 * checkpointed; negatives are drawn from streams keyed by (seed, epoch, batch), so
 * they are reproduced without any state. One seed, one result. */
#include "dgnn/event_train.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "dgnn/params.h"
#include "event_ckpt.h"
#include "event_epoch.h"

/* Evaluates the events of `part` in batches, committing the state as it goes.
 * AP and AUC are averaged over batches (positives against the first negative of each
 * event); with K > 0, *mrr gets the mean reciprocal rank against K negatives. */
static int evaluate(event_run *r, const dgnn_events *part, uint64_t seed_base, int64_t K, double *ap, double *auc,
                    double *mrr, const char *what, dgnn_err *err) {
    const int64_t bs = r->cfg->batch;
    if (K < 1) K = 1;
    /* --eval-max-events: the split's first events only (a prefix keeps the protocol's order) */
    const int64_t n = r->cfg->max_eval_events > 0 && r->cfg->max_eval_events < part->num_events
                          ? r->cfg->max_eval_events : part->num_events;
    int64_t nb = (n + bs - 1) / bs;
    double ap_sum = 0, auc_sum = 0, rr_sum = 0;
    int64_t n_ap = 0, n_rr = 0;
    dgnn_progress pg;
    if (r->cfg->progress) dgnn_progress_begin(&pg, what, n);
    for (int64_t b = 0; b < nb; b++) {
        int64_t e0 = b * bs, B = e0 + bs <= n ? bs : n - e0;
        int rc = event_ensure_batch(r, B, K, err);
        if (!rc) rc = event_draw_negatives(r, B, K, 1, event_stream_seed(seed_base, -1, b), err);
        if (rc) return rc;
        rc = dgnn_tgnn_forward(r->model, r->logits, &r->st, &r->g_full, r->ev->efeat, part, e0, B, r->neg_t, K, NULL,
                               err);
        if (rc) return rc;
        dgnn_tgnn_commit(r->model, &r->st, part);
        double a, u;
        dgnn_metric_ap_auc_pn(r->logits, B, r->logits + B, B, &a, &u);
        if (isfinite(a)) ap_sum += a, auc_sum += u, n_ap++;
        if (mrr) {
            /* the model's (K, B) negative blocks to the metric's (B, K) rows */
            for (int64_t i = 0; i < B; i++)
                for (int64_t j = 0; j < K; j++) r->dlogits[i * K + j] = r->logits[(1 + j) * B + i];
            rr_sum += dgnn_metric_mrr(r->logits, r->dlogits, B, K) * (double)B;
            n_rr += B;
        }
        dgnn_comm_heartbeat(); /* distributed: the other ranks wait for rank 0's evaluation */
        if (r->cfg->progress) dgnn_progress_update(&pg, e0 + B, NULL);
    }
    if (r->cfg->progress) dgnn_progress_end(&pg);
    *ap = n_ap ? ap_sum / (double)n_ap : NAN;
    *auc = n_ap ? auc_sum / (double)n_ap : NAN;
    if (mrr) *mrr = n_rr ? rr_sum / (double)n_rr : NAN;
    return DGNN_OK;
}

/* One training epoch by the run's mode. */
static int event_train_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    switch (r->cfg->dist.mode) {
    case DGNN_DIST_NONE: return event_single_epoch(r, epoch, er, err);
    case DGNN_DIST_STRICT: return event_strict_epoch(r, epoch, er, err);
    case DGNN_DIST_DEPBLOOM: return depbloom_epoch(r, epoch, er, err);
    default: return dgnn_err_set(err, DGNN_EINVAL, "--dist: unknown mode %d", (int)r->cfg->dist.mode);
    }
}

/* What the distributed epochs need: tracking of the rows each step writes, DepBloom's
 * plan. (Evaluation needs no sync after training: every window, strict: every step, ends
 * with equal replicas.) */
static int event_dist_setup(event_run *r, dgnn_err *err) {
    if (r->nranks > DGNN_DIST_MAX_RANKS)
        return dgnn_err_set(err, DGNN_EINVAL, "--dist: at most %d ranks (got %d)", DGNN_DIST_MAX_RANKS, r->nranks);
    int rc = dgnn_state_track_writes(&r->st, err);
    if (!rc && r->cfg->dist.mode == DGNN_DIST_DEPBLOOM) rc = depbloom_setup(r, err);
    return rc;
}

/* Every rank's time split and traffic into rank 0's res->dist (a collective). */
static void event_dist_report(event_run *r, dgnn_event_train_result *res) {
    event_rank_totals all[DGNN_DIST_MAX_RANKS];
    uint64_t sums[DGNN_DIST_MAX_RANKS];
    int64_t counts[DGNN_DIST_MAX_RANKS];
    event_totals_gather(r, all);
    dgnn_comm_allgatherv_bytes(sums, counts, &r->state_sum, sizeof r->state_sum);
    dgnn_dist_result *d = &res->dist;
    depbloom_report(r, d);
    d->ranks = r->nranks;
    d->steps = r->steps;
    const double epochs = res->num_epochs > 0 ? (double)res->num_epochs : 1.0;
    for (int q = 0; q < r->nranks; q++) {
        d->compute_seconds[q] = all[q].compute;
        d->sample_seconds[q] = all[q].sample;
        d->prefetch_seconds[q] = all[q].prefetch;
        d->comm_seconds[q] = all[q].comm;
        d->train_events[q] = all[q].events;
        d->bytes_sent[q] = all[q].state_bytes + all[q].grad_bytes;
        d->state_checksum[q] = sums[q];
        d->state_bytes_per_epoch += (double)all[q].state_bytes / epochs;
        d->grad_bytes_per_epoch += (double)all[q].grad_bytes / epochs;
    }
}

int dgnn_event_train(const dgnn_events *ev, const dgnn_event_train_cfg *c, dgnn_event_train_result *res,
                     dgnn_err *err) {
    memset(res, 0, sizeof *res);
    if (c->keep_model) *c->keep_model = NULL;
    int prev_threads = omp_get_max_threads();
    if (c->threads > 0) omp_set_num_threads((int)c->threads);
    event_run r;
    int rc = event_run_init(&r, ev, c, err);
    if (rc) goto done;
    const int dist = c->dist.mode != DGNN_DIST_NONE;
    r.rank = dist ? dgnn_comm_rank() : 0;
    r.nranks = dist ? dgnn_comm_size() : 1;
    if (dist && (rc = event_dist_setup(&r, err))) goto done;
    /* distributed: rank 0 evaluates, checkpoints and reports; the others train */
    const int evaluating = !c->skip_eval && r.rank == 0;
    res->n_train = r.train.num_events, res->n_val = r.val.num_events, res->n_test = r.test.num_events;
    res->n_new_val = r.new_val.num_events, res->n_new_test = r.new_test.num_events;
    res->num_params = r.p->nparams;
    event_ckpt_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.fingerprint = event_fingerprint(&r);
    meta.best_ap = -INFINITY;
    if (c->resume) {
        if (!c->checkpoint) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "--resume needs --checkpoint DIR");
            goto done;
        }
        event_rank_totals totals[DGNN_DIST_MAX_RANKS];
        if (r.rank == 0 && (rc = event_ckpt_load(&r, &meta, res, dist ? totals : NULL, err))) goto done;
        if (dist) { /* rank 0 read it: the others take parameters, Adam and progress from it */
            dgnn_comm_bcast(&meta, sizeof meta, 0);
            dgnn_comm_bcast(r.p->value, r.p->total * (int64_t)sizeof(float), 0);
            dgnn_comm_bcast(r.p->m, r.p->total * (int64_t)sizeof(float), 0);
            dgnn_comm_bcast(r.p->v, r.p->total * (int64_t)sizeof(float), 0);
            dgnn_comm_bcast(totals, r.nranks * (int64_t)sizeof *totals, 0);
            event_totals_restore(&r, &totals[r.rank]);
            r.opt = meta.opt;
        }
        dgnn_log("resumed from %s after epoch %lld\n", c->checkpoint, (long long)meta.epochs_done);
    }
    double train_seconds = 0;
    int64_t train_events = 0;
    for (int64_t i = 0; i < res->num_epochs; i++) {
        train_seconds += res->epochs[i].train_seconds;
        train_events += res->epochs[i].train_events;
    }
    for (int64_t epoch = meta.epochs_done + 1; epoch <= c->epochs && !meta.early_stopped; epoch++) {
        dgnn_epoch_result *er = &res->epochs[epoch - 1];
        memset(er, 0, sizeof *er);
        er->epoch = epoch;
        double t0 = dgnn_now();
        if (c->op_seconds) dgnn_prof_enable(1); /* the training steps only, not the evaluation */
        rc = event_train_epoch(&r, epoch, er, err);
        if (c->op_seconds) {
            double sec[DGNN_PROF_N];
            dgnn_prof_get(sec);
            dgnn_prof_enable(0);
            for (int k = 0; k < DGNN_PROF_N; k++) c->op_seconds[k] += sec[k];
        }
        if (rc) goto done;
        if (dist) r.state_sum = dgnn_state_checksum(&r.st); /* before evaluation moves rank 0's on */
        train_seconds += er->train_seconds;
        train_events += er->train_events;
        er->val_ap = er->val_auc = er->val_new_ap = er->val_new_auc = NAN;
        if (evaluating) {
            /* new-node validation and validation both start from the memory training left:
             * the new-node pass on a copy first, then validation, whose state goes on. (It
             * used to be the other way round with st_best as the scratch, which left a
             * worse epoch's state in st_best: an early stop then tested the best epoch's
             * parameters on the last epoch's memory.) */
            dgnn_state_copy(&r.st_backup, &r.st);
            if ((rc = evaluate(&r, &r.new_val, c->seed + 2, 1, &er->val_new_ap, &er->val_new_auc, NULL,
                               "new-node validation", err)))
                goto done;
            dgnn_state_copy(&r.st, &r.st_backup);
            if ((rc = evaluate(&r, &r.val, c->seed + 1, 1, &er->val_ap, &er->val_auc, NULL, "validation", err)))
                goto done;
        }
        er->seconds = dgnn_now() - t0;
        res->num_epochs = epoch;
        char f[4][16];
        dgnn_log("epoch %lld: train loss %s, val AP %s AUC %s, new-node val AP %s, %.1f s (train %.1f s, "
                 "%.0f events/s)\n",
                 (long long)epoch, dgnn_fmt_metric(f[0], 16, er->train_loss), dgnn_fmt_metric(f[1], 16, er->val_ap),
                 dgnn_fmt_metric(f[2], 16, er->val_auc), dgnn_fmt_metric(f[3], 16, er->val_new_ap), er->seconds,
                 er->train_seconds, er->train_seconds > 0 ? (double)er->train_events / er->train_seconds : 0.0);
        if (c->on_epoch && r.rank == 0) c->on_epoch(c->on_epoch_ctx, er);
        /* early stopping on validation AP (the TGN code's EarlyStopMonitor) */
        if (evaluating) {
            if (er->val_ap > meta.best_ap + 1e-10) {
                meta.best_ap = er->val_ap;
                meta.best_epoch = epoch;
                meta.bad_rounds = 0;
                memcpy(r.best_params, r.p->value, (size_t)r.p->total * sizeof(float));
                dgnn_state_copy(&r.st_best, &r.st);
                r.have_best = 1;
            } else if (++meta.bad_rounds >= c->patience) {
                meta.early_stopped = 1;
                dgnn_log("early stop: no better validation AP for %lld epochs; back to epoch %lld\n",
                         (long long)c->patience, (long long)meta.best_epoch);
            }
        }
        if (dist) dgnn_comm_bcast(&meta.early_stopped, sizeof meta.early_stopped, 0);
        meta.epochs_done = epoch;
        meta.have_best = r.have_best;
        meta.opt = r.opt;
        meta.rng = r.rng;
        res->best_epoch = meta.best_epoch;
        res->early_stopped = (int)meta.early_stopped;
        if (c->checkpoint) {
            event_rank_totals totals[DGNN_DIST_MAX_RANKS];
            if (dist) event_totals_gather(&r, totals); /* a collective: every rank */
            if (r.rank == 0 && (rc = event_ckpt_save(&r, &meta, res, dist ? totals : NULL, err))) goto done;
        }
    }
    if (meta.early_stopped && r.have_best) {
        memcpy(r.p->value, r.best_params, (size_t)r.p->total * sizeof(float));
        dgnn_state_copy(&r.st, &r.st_best);
    }
    res->test_ap = res->test_auc = res->test_new_ap = res->test_new_auc = res->test_mrr = NAN;
    if (evaluating && res->num_epochs > 0) {
        const double t_test = dgnn_now();
        dgnn_state_copy(&r.st_backup, &r.st);
        if ((rc = evaluate(&r, &r.test, c->seed + 3, c->eval_negatives, &res->test_ap, &res->test_auc,
                           c->eval_negatives > 0 ? &res->test_mrr : NULL, "test", err)))
            goto done;
        dgnn_state_copy(&r.st, &r.st_backup);
        if ((rc = evaluate(&r, &r.new_test, c->seed + 4, 1, &res->test_new_ap, &res->test_new_auc, NULL,
                           "new-node test", err)))
            goto done;
        dgnn_log("test and new-node test: %.1f s\n", dgnn_now() - t_test);
    }
    res->train_events_per_second = train_seconds > 0 ? (double)train_events / train_seconds : 0;
    res->peak_rss_mb = dgnn_peak_rss_mb();
    if (dist) event_dist_report(&r, res);
    if (c->keep_model && r.rank == 0) { /* handed over: event_run_free leaves it */
        *c->keep_model = r.model;
        r.model = NULL;
    }
done:
    depbloom_free(&r);
    event_run_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}
