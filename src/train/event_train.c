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

#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "dgnn/params.h"
#include "event_ckpt.h"
#include "event_epoch.h"

/* The validation of an epoch: the new-node pass and validation both start from the state
 * training left: the new-node pass on a copy first, then validation, whose state goes on.
 * (It used to be the other way round with st_best as the scratch, which left a worse
 * epoch's state in st_best: an early stop then tested the best epoch's parameters on the
 * last epoch's memory.) With TGB's protocol validation also ranks its list. */
static int validate(event_run *r, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    event_eval_pass nv = {.K = 1, .seed = c->seed + 2};
    event_eval_pass v = {.K = 1, .seed = c->seed + 1, .tgb = c->protocol.tgb ? &r->tgb_val : NULL};
    int rc = event_eval_save(r, err);
    if (!rc) rc = event_eval_run(r, &r->new_val, &nv, "new-node validation", err);
    if (!rc) rc = event_eval_restore(r, err);
    if (!rc) rc = event_eval_run(r, &r->val, &v, "validation", err);
    if (rc) return rc;
    er->val_new_ap = nv.ap, er->val_new_auc = nv.auc;
    er->val_ap = v.ap, er->val_auc = v.auc;
    er->val_mrr_tgb = v.t_mrr, er->val_hits10_tgb = v.t_hits10;
    return DGNN_OK;
}

/* The test from the state validation left: every test event, then the new-node test
 * events from the same starting state, under every protocol the run asked for. keep
 * (NULL: none) receives the state after all test events (dgnn_event_eval's embeddings). */
static int test(event_run *r, dgnn_event_train_result *res, dgnn_state *keep, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const double t_test = dgnn_now();
    event_eval_pass t = {.K = c->eval_negatives, .want_mrr = c->eval_negatives > 0, .seed = c->seed + 3,
                         .tgb = c->protocol.tgb ? &r->tgb_test : NULL, .dyglib = c->protocol.dyglib};
    event_eval_pass nt = {.K = 1, .seed = c->seed + 4, .dyglib = c->protocol.dyglib};
    int rc = event_eval_save(r, err);
    if (!rc) rc = event_eval_run(r, &r->test, &t, "test", err);
    if (!rc && keep) dgnn_state_copy(keep, &r->st);
    if (!rc) rc = event_eval_restore(r, err);
    if (!rc) rc = event_eval_run(r, &r->new_test, &nt, "new-node test", err);
    if (rc) return rc;
    res->test_ap = t.ap, res->test_auc = t.auc, res->test_new_ap = nt.ap, res->test_new_auc = nt.auc;
    res->test_mrr = c->eval_negatives > 0 ? t.mrr : NAN;
    for (int s = 0; s < DGNN_NEGS_N; s++) {
        const int on = s == DGNN_NEGS_RANDOM || c->protocol.dyglib;
        res->test_neg_ap[s][0] = on ? t.s_ap[s] : NAN, res->test_neg_auc[s][0] = on ? t.s_auc[s] : NAN;
        res->test_neg_ap[s][1] = on ? nt.s_ap[s] : NAN, res->test_neg_auc[s][1] = on ? nt.s_auc[s] : NAN;
    }
    res->test_mrr_tgb = t.t_mrr, res->test_hits1_tgb = t.t_hits1, res->test_hits3_tgb = t.t_hits3;
    res->test_hits10_tgb = t.t_hits10;
    dgnn_log("test and new-node test: %.1f s\n", dgnn_now() - t_test);
    return DGNN_OK;
}

/* One training epoch by the run's mode. */
static int event_train_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    switch (r->cfg->dist.mode) {
    case DGNN_DIST_NONE: return r->dev ? event_device_epoch(r, epoch, er, err) : event_single_epoch(r, epoch, er, err);
    case DGNN_DIST_STRICT: return event_strict_epoch(r, epoch, er, err); /* the CPU's or the GPU's steps */
    case DGNN_DIST_DEPBLOOM: return depbloom_epoch(r, epoch, er, err); /* the CPU's or the GPU's steps */
    default: return dgnn_err_set(err, DGNN_EINVAL, "--dist: unknown mode %d", (int)r->cfg->dist.mode);
    }
}

/* What the distributed epochs need: tracking of the rows each step writes, DepBloom's
 * plan. (Evaluation needs no sync after training: every window, strict: every step, ends
 * with equal replicas.) */
static int event_dist_setup(event_run *r, dgnn_err *err) {
    if (r->nranks > DGNN_DIST_MAX_RANKS)
        return dgnn_err_set(err, DGNN_EINVAL, "--dist: at most %d ranks (got %d)", DGNN_DIST_MAX_RANKS, r->nranks);
    int rc = event_ranks_agree(r, err);
    if (!rc) rc = dgnn_state_track_writes(&r->st, err);
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

/* The figures no pass measured stay NaN (printed n/a, JSON null). */
static void result_init(dgnn_event_train_result *res) {
    memset(res, 0, sizeof *res);
    res->test_ap = res->test_auc = res->test_new_ap = res->test_new_auc = res->test_mrr = NAN;
    for (int s = 0; s < DGNN_NEGS_N; s++)
        for (int k = 0; k < 2; k++) res->test_neg_ap[s][k] = res->test_neg_auc[s][k] = NAN;
    res->test_mrr_tgb = res->test_hits1_tgb = res->test_hits3_tgb = res->test_hits10_tgb = res->val_mrr_tgb = NAN;
}

/* EdgeBank: no training; its memory is the training events, then validation and test as
 * for a model (one "epoch" holds the validation figures). */
static int edgebank_run(event_run *r, dgnn_event_train_result *res, int evaluating, dgnn_err *err) {
    dgnn_epoch_result *er = &res->epochs[0];
    memset(er, 0, sizeof *er);
    er->epoch = 1;
    er->train_loss = er->val_ap = er->val_auc = er->val_new_ap = er->val_new_auc = NAN;
    er->val_mrr_tgb = er->val_hits10_tgb = NAN;
    const double t0 = dgnn_now();
    dgnn_log("EdgeBank: no training; its memory holds the %lld training events (%lld distinct pairs)\n",
             (long long)r->train.num_events, (long long)dgnn_edgebank_size(r->eb));
    int rc = evaluating ? validate(r, er, err) : DGNN_OK;
    if (rc) return rc;
    er->seconds = dgnn_now() - t0;
    res->num_epochs = res->best_epoch = 1;
    res->val_mrr_tgb = er->val_mrr_tgb;
    char f[3][16];
    dgnn_log("EdgeBank: val AP %s AUC %s, new-node val AP %s\n", dgnn_fmt_metric(f[0], 16, er->val_ap),
             dgnn_fmt_metric(f[1], 16, er->val_auc), dgnn_fmt_metric(f[2], 16, er->val_new_ap));
    if (r->cfg->on_epoch) r->cfg->on_epoch(r->cfg->on_epoch_ctx, er);
    if (evaluating && (rc = test(r, res, NULL, err))) return rc;
    res->peak_rss_mb = dgnn_peak_rss_mb();
    return DGNN_OK;
}

int dgnn_event_train(const dgnn_events *ev, const dgnn_event_train_cfg *c, dgnn_event_train_result *res,
                     dgnn_err *err) {
    if (!ev || !c || !res)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_event_train: %s is NULL",
                            !ev ? "the events (ev)" : !c ? "the configuration (cfg)" : "the result (res)");
    /* a table whose counts say it holds rows must have their arrays (a zeroed struct with
     * num_events set crashed in the split) */
    if (ev->num_events < 0 || ev->num_nodes < 0 || ev->edge_dim < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_event_train: the table's num_events %lld, num_nodes %lld, "
                            "edge_dim %lld: none may be negative", (long long)ev->num_events,
                            (long long)ev->num_nodes, (long long)ev->edge_dim);
    if (ev->num_events > 0 && (!ev->src || !ev->dst || !ev->t || (ev->edge_dim > 0 && !ev->efeat)))
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn_event_train: the table has %lld events but its %s array is NULL",
                            (long long)ev->num_events,
                            !ev->src ? "src" : !ev->dst ? "dst" : !ev->t ? "t" : "efeat (edge_dim > 0)");
    result_init(res);
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
    if ((rc = event_device_init(&r, err))) goto done;
    /* distributed: rank 0 evaluates, checkpoints and reports; the others train */
    const int evaluating = !c->skip_eval && r.rank == 0;
    res->n_train = r.train.num_events, res->n_val = r.val.num_events, res->n_test = r.test.num_events;
    res->n_new_val = r.new_val.num_events, res->n_new_test = r.new_test.num_events;
    res->num_params = r.p ? r.p->nparams : 0;
    if ((evaluating || c->edgebank) && (rc = event_eval_setup(&r, err))) goto done;
    res->tgb_val_k = r.tgb_val.k, res->tgb_test_k = r.tgb_test.k;
    if (c->edgebank) {
        rc = edgebank_run(&r, res, evaluating, err);
        goto done;
    }
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
        if ((rc = event_device_push(&r, err))) goto done; /* a checkpoint of either device */
        dgnn_log("resumed from %s after epoch %lld\n", c->checkpoint, (long long)meta.epochs_done);
        /* every rank has meta (broadcast above): all refuse alike */
        if ((rc = dgnn_ckpt_resume_epochs(c->checkpoint, meta.epochs_done, meta.early_stopped, meta.best_epoch,
                                          c->epochs, err)))
            goto done;
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
        /* the host's copy of what the device holds (a GPU run's rows exchanged between devices
         * leave the host's floats behind), for the checksum, the best epoch and the checkpoint;
         * evaluation restores the state it moves on */
        if ((rc = event_device_pull(&r, err))) goto done;
        if (dist) r.state_sum = dgnn_state_checksum(&r.st); /* before evaluation moves rank 0's on */
        train_seconds += er->train_seconds;
        train_events += er->train_events;
        er->val_ap = er->val_auc = er->val_new_ap = er->val_new_auc = er->val_mrr_tgb = er->val_hits10_tgb = NAN;
        if (evaluating && (rc = validate(&r, er, err))) goto done;
        er->seconds = dgnn_now() - t0;
        res->num_epochs = epoch;
        char f[5][16], tgb[48] = "";
        if (c->protocol.tgb) snprintf(tgb, sizeof tgb, ", val MRR (TGB) %s", dgnn_fmt_metric(f[4], 16, er->val_mrr_tgb));
        if (c->skip_eval) /* no validation: no "val AP n/a" (bench, --no-eval) */
            dgnn_log("epoch %lld: train loss %s (not validated), %.1f s (%.0f events/s)\n", (long long)epoch,
                     dgnn_fmt_metric(f[0], 16, er->train_loss), er->train_seconds,
                     er->train_seconds > 0 ? (double)er->train_events / er->train_seconds : 0.0);
        else
            dgnn_log("epoch %lld: train loss %s, val AP %s AUC %s, new-node val AP %s%s, %.1f s (train %.1f s, "
                     "%.0f events/s)\n",
                     (long long)epoch, dgnn_fmt_metric(f[0], 16, er->train_loss), dgnn_fmt_metric(f[1], 16, er->val_ap),
                     dgnn_fmt_metric(f[2], 16, er->val_auc), dgnn_fmt_metric(f[3], 16, er->val_new_ap), tgb,
                     er->seconds, er->train_seconds,
                     er->train_seconds > 0 ? (double)er->train_events / er->train_seconds : 0.0);
        if (c->on_epoch && r.rank == 0) c->on_epoch(c->on_epoch_ctx, er);
        /* a caller's hook that failed (in-process: one process) stops the run here, before the
         * next epoch or the test, as an interrupt does at a step */
        if (!dist && c->interrupt && *c->interrupt) {
            rc = dgnn_err_set(err, DGNN_EINTR, "interrupted");
            goto done;
        }
        /* early stopping on validation AP (the TGN code's EarlyStopMonitor); TGB's protocol:
         * on its validation MRR (TGB's examples) */
        if (evaluating) {
            const double score = c->protocol.tgb ? er->val_mrr_tgb : er->val_ap;
            if (score > meta.best_ap + 1e-10) {
                meta.best_ap = score;
                meta.best_epoch = epoch;
                meta.bad_rounds = 0;
                memcpy(r.best_params, r.p->value, (size_t)r.p->total * sizeof(float));
                dgnn_state_copy(&r.st_best, &r.st);
                r.have_best = 1;
            } else if (++meta.bad_rounds >= c->patience) {
                meta.early_stopped = 1;
                dgnn_log("early stop: no better validation %s for %lld epochs; back to epoch %lld\n",
                         c->protocol.tgb ? "MRR (TGB)" : "AP", (long long)c->patience, (long long)meta.best_epoch);
            }
        }
        if (c->stop && *c->stop && r.rank == 0 && !meta.early_stopped) {
            meta.early_stopped = 1;
            dgnn_log("stopped by the caller after epoch %lld; back to epoch %lld\n", (long long)epoch,
                     (long long)meta.best_epoch);
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
        if ((rc = event_device_push(&r, err))) goto done;
    }
    if (evaluating && res->num_epochs > 0) {
        const int64_t used = meta.early_stopped && r.have_best ? meta.best_epoch : res->num_epochs;
        res->val_mrr_tgb = res->epochs[used - 1].val_mrr_tgb;
        if ((rc = test(&r, res, NULL, err))) goto done;
    }
    res->train_events_per_second = train_seconds > 0 ? (double)train_events / train_seconds : 0;
    res->peak_rss_mb = dgnn_peak_rss_mb();
    event_device_report(&r);
    if (dist) event_dist_report(&r, res);
    if (c->keep_model && r.rank == 0) { /* handed over: event_run_free leaves it */
        *c->keep_model = r.model;
        r.model = NULL;
    }
done:
    event_eval_free(&r);
    depbloom_free(&r);
    event_device_free(&r);
    event_run_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}

/* The memory rebuilt from zero over the training events with the current parameters
 * (dgnn_event_eval's val and train splits); scored as a pass, which *pass receives. */
static int replay_training(event_run *r, event_eval_pass *pass, dgnn_err *err) {
    dgnn_state_reset(&r->st);
    event_eval_pass p = {.K = 1, .seed = r->cfg->seed + 5};
    int rc = event_eval_run(r, &r->train, &p, "training events", err);
    if (!rc && pass) *pass = p;
    return rc;
}

/* score's pairs in batches of the run's batch, each a view of ev with the pairs' endpoints
 * and times (as event_eval.c's sc_pairs; edge features zero: only a commit reads them) */
static int score_pairs(event_run *r, const dgnn_events *ev, const dgnn_score_request *q, dgnn_err *err) {
    const int64_t bs = r->cfg->batch > 0 ? r->cfg->batch : 200;
    float *logits = malloc((size_t)bs * sizeof(float));
    float *ef = ev->edge_dim > 0 ? calloc((size_t)dgnn_size_mul(bs, ev->edge_dim), sizeof(float)) : NULL;
    if (!logits || (ev->edge_dim > 0 && !ef)) {
        free(logits), free(ef);
        return dgnn_err_set(err, DGNN_ENOMEM, "out of memory for the scores of a batch of %lld pairs", (long long)bs);
    }
    int rc = DGNN_OK;
    for (int64_t e0 = 0; !rc && e0 < q->n; e0 += bs) {
        const int64_t B = e0 + bs <= q->n ? bs : q->n - e0;
        dgnn_events v = *ev;
        v.num_events = B;
        v.src = (int32_t *)q->src + e0, v.dst = (int32_t *)q->dst + e0, v.t = (double *)q->t + e0;
        v.efeat = ef, v.efeat_row = NULL;
        v.label = NULL, v.ext_roll = NULL, v.map = NULL;
        rc = dgnn_tgnn_forward(r->model, logits, &r->st, &r->g_full, ev->efeat, &v, 0, B, NULL, 0, NULL, err);
        for (int64_t i = 0; !rc && i < B; i++) q->out[e0 + i] = (float)(1.0 / (1.0 + exp(-(double)logits[i])));
    }
    free(logits), free(ef);
    return rc;
}

/* JODIE's time projection divides by t + 1 (event_run_init refuses a stream below 0): a
 * query time below 0 is refused too (t = -1 gave NaN embeddings) */
static int jodie_query_times(const dgnn_event_train_cfg *c, const double *t, int64_t n, const char *what,
                             dgnn_err *err) {
    if (c->edgebank || c->model.kind != DGNN_TGNN_JODIE || !t) return DGNN_OK;
    for (int64_t i = 0; i < n; i++)
        if (!(t[i] >= 0))
            return dgnn_err_set(err, DGNN_EINVAL,
                                "%s %lld asks for time %.17g: jodie needs times >= 0 (its time projection divides by "
                                "t + 1)", what, (long long)(i + 1), t[i]);
    return DGNN_OK;
}

int dgnn_event_eval(const dgnn_events *ev, const dgnn_event_train_cfg *c, int split, dgnn_emb_request *emb,
                    const dgnn_score_request *score, dgnn_event_train_result *res, dgnn_err *err) {
    result_init(res);
    if (emb) emb->out = NULL, emb->dim = 0;
    int qrc = jodie_query_times(c, emb ? emb->t : NULL, emb ? emb->n : 0, "embedding request", err);
    if (!qrc) qrc = jodie_query_times(c, score ? score->t : NULL, score ? score->n : 0, "score request", err);
    if (qrc) return qrc;
    if (!c->checkpoint) return dgnn_err_set(err, DGNN_EINVAL, "dgnn eval needs --checkpoint DIR");
    if (c->dist.mode != DGNN_DIST_NONE) return dgnn_err_set(err, DGNN_EINVAL, "dgnn eval runs in one process: no --dist");
    if (split != DGNN_SPLIT_TRAIN && split != DGNN_SPLIT_VAL && split != DGNN_SPLIT_TEST)
        return dgnn_err_set(err, DGNN_EINVAL, "dgnn eval: the split must be train, val or test");
    int prev_threads = omp_get_max_threads();
    if (c->threads > 0) omp_set_num_threads((int)c->threads);
    event_run r;
    int rc = event_run_init(&r, ev, c, err);
    if (rc) goto done;
    r.rank = 0, r.nranks = 1;
    if (c->edgebank) {
        rc = dgnn_err_set(err, DGNN_EINVAL, "dgnn eval: EdgeBank has no checkpoint (dgnn train --model edgebank)");
        goto done;
    }
    res->n_train = r.train.num_events, res->n_val = r.val.num_events, res->n_test = r.test.num_events;
    res->n_new_val = r.new_val.num_events, res->n_new_test = r.new_test.num_events;
    res->num_params = r.p->nparams;
    event_ckpt_meta meta;
    memset(&meta, 0, sizeof meta);
    if ((rc = event_ckpt_load(&r, &meta, res, NULL, err))) {
        const char *a = rc == DGNN_EINVAL ? strstr(err->msg, "other settings (") : NULL;
        const char *b = a ? strstr(a, "); --resume") : NULL;
        if (a && b) { /* the trainer's names of what differs, with eval's advice */
            char differ[1024];
            snprintf(differ, sizeof differ, "%.*s", (int)(b - a - 16), a + 16);
            dgnn_err_set(err, rc, "checkpoint %s was written with other settings (%s) than these: dgnn eval takes the "
                                  "training run's from the checkpoint, and a flag given to it that changes them cannot "
                                  "be evaluated", c->checkpoint, differ);
        }
        goto done;
    }
    if (res->num_epochs < 1) {
        rc = dgnn_err_set(err, DGNN_EINVAL, "checkpoint %s: no finished epoch to evaluate", c->checkpoint);
        goto done;
    }
    const int best = meta.early_stopped && r.have_best;
    if (best) {
        memcpy(r.p->value, r.best_params, (size_t)r.p->total * sizeof(float));
        dgnn_state_copy(&r.st, &r.st_best);
    }
    dgnn_log("evaluating the model of epoch %lld (%s) from %s\n",
             (long long)(best ? meta.best_epoch : res->num_epochs), best ? "the best, the run stopped early" : "the last",
             c->checkpoint);
    if ((rc = event_eval_setup(&r, err))) goto done;
    res->tgb_val_k = r.tgb_val.k, res->tgb_test_k = r.tgb_test.k;
    if (split == DGNN_SPLIT_TEST) {
        /* the embeddings and scores from the memory after all test events, which the test
         * pass leaves in st_best (its best-epoch state is in r.st by now) */
        rc = test(&r, res, emb || score ? &r.st_best : NULL, err);
        if (!rc && (emb || score)) dgnn_state_copy(&r.st, &r.st_best);
    } else {
        dgnn_epoch_result *er = &res->epochs[res->num_epochs];
        memset(er, 0, sizeof *er);
        er->train_loss = er->val_ap = er->val_auc = er->val_new_ap = er->val_new_auc = NAN;
        er->val_mrr_tgb = er->val_hits10_tgb = NAN;
        event_eval_pass p;
        rc = replay_training(&r, &p, err);
        if (!rc && split == DGNN_SPLIT_VAL) rc = validate(&r, er, err);
        if (!rc && split == DGNN_SPLIT_TRAIN) er->val_ap = p.ap, er->val_auc = p.auc;
    }
    if (!rc && emb && emb->n > 0) {
        const int64_t D = dgnn_tgnn_embed_dim(r.model);
        emb->out = malloc((size_t)dgnn_size_mul(emb->n, D) * sizeof(float));
        if (!emb->out) rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory for %lld embeddings", (long long)emb->n);
        else rc = dgnn_tgnn_embed(r.model, emb->out, &r.st, &r.g_full, ev->efeat, emb->nodes, emb->t, emb->n, err);
        emb->dim = D;
        if (rc) free(emb->out), emb->out = NULL;
    }
    if (!rc && score && score->n > 0) {
        for (int64_t i = 0; i < score->n; i++)
            if (score->src[i] < 0 || score->src[i] >= ev->num_nodes || score->dst[i] < 0 || score->dst[i] >= ev->num_nodes ||
                !isfinite(score->t[i])) {
                rc = dgnn_err_set(err, DGNN_EINVAL, "score pair %lld: (%d, %d, %g) is not a pair of the data's nodes at a finite time",
                                  (long long)i, (int)score->src[i], (int)score->dst[i], score->t[i]);
                break;
            }
        if (!rc) rc = score_pairs(&r, ev, score, err);
    }
    res->peak_rss_mb = dgnn_peak_rss_mb();
done:
    event_eval_free(&r);
    event_run_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}
