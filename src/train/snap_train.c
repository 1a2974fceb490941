/* snap_train.c: the driver of the snapshot trainer (snap_train.h): dgnn_snap_train
 * sets the run up (snap_run.c), resumes it (snap_checkpoint.c), runs the epochs
 * (snap_epoch.c, or DyGNeX's dygnex_epoch.c with cfg.dist), validates between them and
 * stops early (snap_eval.c), checkpoints after each, then tests the best epoch's
 * parameters and fills the results. Distributed: rank 0 validates, tests, checkpoints
 * and reports; the others train. The files below it: snap_run.h. */
#include "snap_run.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/snapmodel_cuda.h"

static const char *metric_name(dgnn_snap_task t) {
    return t == DGNN_SNAP_TASK_EDGE ? "F1" : t == DGNN_SNAP_TASK_NODE ? "MSE" : "MAP";
}

int dgnn_snap_train(const dgnn_events *ev, const dgnn_snap_train_cfg *c, dgnn_snap_train_result *res, dgnn_err *err) {
    memset(res, 0, sizeof *res);
    res->test_map = res->test_mrr = res->test_f1 = res->test_precision = res->test_recall = res->test_mse = NAN;
    res->last_map = res->last_mrr = res->last_f1 = res->last_mse = NAN;
    int prev_threads = omp_get_max_threads();
    if (c->threads > 0) omp_set_num_threads((int)c->threads);
    snap_run r;
    int rc = snap_run_setup(&r, ev, c, err);
    if (!rc && c->dist.mode != DGNN_SNAP_DIST_NONE) rc = snap_dygnex_setup(&r, err);
    if (rc) goto done;
    /* distributed: rank 0 validates, tests, checkpoints and reports; the others train */
    const int lead = r.rank == 0, bcast = r.dist && r.procs > 1;
    snap_ckpt_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.fingerprint = snap_fingerprint(&r);
    /* trainer.train: best_eval_valid starts at 0 (MAP, F1); the MSE's best starts at +inf */
    meta.best_val = r.task == DGNN_SNAP_TASK_NODE ? -INFINITY : 0.0;
    if (c->resume) {
        if (!c->checkpoint) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "--resume needs --checkpoint DIR");
            goto done;
        }
        if ((rc = snap_ckpt_resume(&r, &meta, res, err)) || (rc = snap_run_push(&r, err))) goto done;
        dgnn_log("resumed from %s after epoch %lld\n", c->checkpoint, (long long)meta.epochs_done);
        if ((rc = dgnn_ckpt_resume_epochs(c->checkpoint, meta.epochs_done, meta.early_stopped, meta.best_epoch,
                                          c->epochs, err)))
            goto done;
    }
    res->num_snapshots = r.T, res->num_nodes = r.N, res->in_dim = r.V;
    snprintf(res->device, sizeof res->device, "%s", r.dev ? dgnn_snapmodel_cuda_device_name(r.dev) : "cpu");
    res->cuda_device = r.dev ? r.cuda_device : -1;
    res->num_params = dgnn_params_count(r.p) + (r.head.p.total ? dgnn_params_count(&r.head.p) : 0);
    res->train_begin = r.tb, res->train_end = r.te, res->val_end = r.ve, res->test_end = r.xe;
    if (r.task == DGNN_SNAP_TASK_EDGE) {
        res->f1_class = r.f1_class;
        res->label_counts[0] = res->label_counts[1] = 0;
        for (int64_t i = r.eoff[r.tb]; i < r.eoff[r.te]; i++) res->label_counts[r.elab[i]]++;
    }
    for (int64_t epoch = meta.epochs_done + 1; epoch <= c->epochs && !meta.early_stopped; epoch++) {
        dgnn_snap_epoch_result *er = &res->epochs[epoch - 1];
        memset(er, 0, sizeof *er);
        er->epoch = epoch;
        er->val_map = er->val_mrr = er->val_f1 = er->val_mse = NAN;
        double t0 = dgnn_now();
        rc = r.dist ? snap_dygnex_epoch(&r, epoch, er, &meta.tot, err) : snap_train_epoch(&r, epoch, er, &meta.tot, err);
        if (!rc) rc = snap_run_pull(&r, err); /* the host copy (best epoch, checkpoint, results) */
        if (rc) goto done;
        int validated = lead && !c->skip_eval && epoch > c->skip_val_epochs && r.ve > r.te;
        double score = NAN;
        if (validated) {
            double tv = dgnn_now();
            snap_eval_metrics vm;
            if ((rc = snap_evaluate(&r, r.te, r.ve, &vm, &meta.tot, "validation", err, 0))) goto done;
            er->val_map = vm.map, er->val_mrr = vm.mrr, er->val_f1 = vm.f1, er->val_mse = vm.mse;
            er->val_seconds = dgnn_now() - tv;
            score = snap_val_score(&r, &vm);
        }
        er->seconds = dgnn_now() - t0;
        res->num_epochs = epoch;
        char f[3][16]; /* n/a: not validated this epoch (--skip-val-epochs, --no-eval) */
        dgnn_fmt_metric(f[0], 16, er->train_loss);
        if (r.task == DGNN_SNAP_TASK_LINK)
            dgnn_log("epoch %lld: train loss %s (%.2f s, %lld samples), val MAP %s MRR %s (%.1f s)\n",
                     (long long)epoch, f[0], er->train_seconds, (long long)er->train_windows,
                     dgnn_fmt_metric(f[1], 16, er->val_map), dgnn_fmt_metric(f[2], 16, er->val_mrr), er->val_seconds);
        else
            dgnn_log("epoch %lld: train loss %s (%.2f s, %lld samples), val %s %s (%.1f s)\n", (long long)epoch, f[0],
                     er->train_seconds, (long long)er->train_windows, metric_name(r.task),
                     dgnn_fmt_metric(f[1], 16, r.task == DGNN_SNAP_TASK_EDGE ? er->val_f1 : er->val_mse),
                     er->val_seconds);
        if (c->on_epoch && lead) c->on_epoch(c->on_epoch_ctx, er);
        /* a caller's hook that failed (in-process: one process) stops the run here, before the
         * next epoch or the test, as an interrupt does at a step */
        if (!r.dist && c->interrupt && *c->interrupt) {
            rc = dgnn_err_set(err, DGNN_EINTR, "interrupted");
            goto done;
        }
        if (validated) {
            /* trainer.train: stop when the count of validations without a better figure
             * exceeds patience */
            if (score > meta.best_val) {
                meta.best_val = score;
                meta.best_epoch = epoch;
                meta.bad_rounds = 0;
                memcpy(r.best_params, r.p->value, (size_t)r.p->total * sizeof(float));
                if (r.head.p.total) memcpy(r.best_head, r.head.p.value, (size_t)r.head.p.total * sizeof(float));
                meta.have_best = 1;
            } else if (++meta.bad_rounds > c->patience) {
                meta.early_stopped = 1;
                dgnn_log("early stop: no better validation %s for %lld epochs (best %.4f at epoch %lld)\n",
                         metric_name(r.task), (long long)meta.bad_rounds,
                         r.task == DGNN_SNAP_TASK_NODE ? -meta.best_val : meta.best_val, (long long)meta.best_epoch);
            }
        }
        if (c->stop && *c->stop && lead && !meta.early_stopped) {
            meta.early_stopped = 1;
            dgnn_log("stopped by the caller after epoch %lld\n", (long long)epoch);
        }
        if (bcast) dgnn_comm_bcast(&meta.early_stopped, sizeof meta.early_stopped, 0);
        meta.epochs_done = epoch;
        meta.opt = r.opt;
        meta.hopt = r.hopt;
        meta.tr_step = r.tr_step;
        res->best_epoch = meta.best_epoch;
        res->early_stopped = (int)meta.early_stopped;
        if (c->checkpoint && lead && (rc = snap_ckpt_save(&r, &meta, res, err))) goto done;
    }
    if (c->profile && bcast && r.prof_epochs > 0) snap_dygnex_profile_reduce(&r);
    if (c->profile) snap_profile_fill(&r, c->profile);
    if (c->params_out) {
        const int64_t np = r.p->total, nh = r.head.p.total;
        *c->params_out = dgnn_xmalloc((size_t)(np + nh + 1) * sizeof(float));
        memcpy(*c->params_out, r.p->value, (size_t)np * sizeof(float));
        if (nh) memcpy(*c->params_out + np, r.head.p.value, (size_t)nh * sizeof(float));
        if (c->params_out_n) *c->params_out_n = np + nh;
    }
    if (r.dist) snap_dygnex_report(&r, res, &res->dist);
    if (!lead) goto done; /* rank 0 tests and reports */
    if (!c->skip_eval && r.xe > r.ve) {
        if (meta.have_best) {
            memcpy(r.p->value, r.best_params, (size_t)r.p->total * sizeof(float));
            if (r.head.p.total) memcpy(r.head.p.value, r.best_head, (size_t)r.head.p.total * sizeof(float));
            if ((rc = snap_run_push(&r, err))) goto done;
        }
        double t0 = dgnn_now();
        snap_eval_metrics tm;
        if ((rc = snap_evaluate(&r, r.ve, r.xe, &tm, &meta.tot, "test", err, 0))) goto done;
        res->test_map = tm.map, res->test_mrr = tm.mrr, res->test_mse = tm.mse;
        res->test_f1 = tm.f1, res->test_precision = tm.precision, res->test_recall = tm.recall;
        res->test_seconds = dgnn_now() - t0;
    }
    if (c->baseline_last && r.xe > r.ve) {
        snap_totals scratch = meta.tot; /* the baseline's pairs are not the model's throughput */
        snap_eval_metrics bm;
        if ((rc = snap_evaluate(&r, r.ve, r.xe, &bm, &scratch, "baseline", err, 1))) goto done;
        res->last_map = bm.map, res->last_mrr = bm.mrr, res->last_f1 = bm.f1, res->last_mse = bm.mse;
    }
    {
        const snap_totals *t = &meta.tot;
        double s = t->train_seconds;
        res->train_windows_per_second = s > 0 ? (double)t->windows / s : 0;
        res->train_snapshots_per_second = s > 0 ? (double)t->snapshots / s : 0;
        res->train_events_per_second = s > 0 ? (double)t->events / s : 0;
        res->eval_pairs_per_second = t->eval_seconds > 0 ? (double)t->eval_pairs / t->eval_seconds : 0;
    }
    res->peak_rss_mb = dgnn_peak_rss_mb();
done:
    snap_run_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}

