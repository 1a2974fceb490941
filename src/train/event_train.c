/* event_train.c: the training loop of memory-based TGNNs (see train_event.h for the
 * protocol). One batch = forward, BCE loss, backward, commit of the node state, Adam
 * step: the commit comes before the step because the TGN code writes memories and
 * mails inside its forward pass, with the parameters of that pass.
 *
 * Randomness: dropout (and the uniform sampler) draw from one rng whose state is
 * checkpointed; negatives are drawn from streams keyed by (seed, epoch, batch), so
 * they are reproduced without any state. One seed, one result. */
#include "dgnn/train_event.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "dgnn/negative.h"
#include "dgnn/optim.h"
#include "dgnn/params.h"
#include "event_train_internal.h"

dgnn_event_train_cfg dgnn_event_train_cfg_default(void) {
    dgnn_event_train_cfg c;
    memset(&c, 0, sizeof c);
    c.model = dgnn_tgnn_cfg_default(DGNN_TGNN_TGN);
    c.batch = 200;
    c.epochs = 10;
    c.lr = 1e-4;
    c.patience = 5;
    c.eval_negatives = 9;
    c.neg = DGNN_NEG_DST;
    c.split = dgnn_split_opts_default();
    c.seed = 0;
    c.progress = 1;
    return c;
}

int dgnn_event_train_cfg_check(const dgnn_event_train_cfg *c, dgnn_err *err) {
    if (c->batch < 1 || c->epochs < 0 || !(c->lr > 0) || !isfinite(c->lr) || c->patience < 1 ||
        c->eval_negatives < 0 || c->max_train_batches < 0 || c->threads < 0)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "training: need --batch >= 1, --epochs >= 0, --lr > 0, --patience >= 1, "
                            "--eval-negatives >= 0, --max-batches >= 0, --threads >= 0");
    if (c->epochs > 1024) return dgnn_err_set(err, DGNN_EINVAL, "--epochs: at most 1024");
    if (!(c->split.new_node_frac >= 0 && c->split.new_node_frac <= 1))
        return dgnn_err_set(err, DGNN_EINVAL, "--new-node-frac must be in [0, 1] (got %g)", c->split.new_node_frac);
    return dgnn_tgnn_cfg_check(&c->model, err);
}

int event_ensure_batch(run_t *r, int64_t B, int64_t K, dgnn_err *err) {
    const int64_t need = dgnn_size_mul(B, dgnn_size_add(1, K));
    if (need <= r->cap) return DGNN_OK;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->neg, need);
    DGNN_GROW(&as, r->neg_t, need);
    DGNN_GROW(&as, r->logits, need);
    DGNN_GROW(&as, r->dlogits, need);
    DGNN_GROW(&as, r->labels, need);
    int rc = dgnn_alloc_done(&as, err, "the scores of a batch of %lld events with %lld negatives each; lower --batch "
                             "or --eval-negatives", (long long)B, (long long)K);
    if (rc) return rc;
    r->cap = need;
    return DGNN_OK;
}

/* K negatives for each of B events into r->neg_t in the model's (K, B) layout. */
int event_negatives_into(const run_t *r, int32_t *tmp, int32_t *out, int64_t B, int64_t K, int full, uint64_t seed,
                         dgnn_err *err) {
    int rc;
    if (r->cfg->neg == DGNN_NEG_ALL)
        rc = dgnn_neg_uniform(tmp, B, (int)K, r->ev->num_nodes, seed, err);
    else if (full)
        rc = dgnn_neg_from_set(tmp, B, (int)K, r->full_dst, r->n_full_dst, seed, err);
    else
        rc = dgnn_neg_from_set(tmp, B, (int)K, r->train_dst, r->n_train_dst, seed, err);
    if (rc) return rc;
    for (int64_t i = 0; i < B; i++)
        for (int64_t j = 0; j < K; j++) out[j * B + i] = tmp[i * K + j];
    return DGNN_OK;
}

int event_draw_negatives(run_t *r, int64_t B, int64_t K, int full, uint64_t seed, dgnn_err *err) {
    return event_negatives_into(r, r->neg, r->neg_t, B, K, full, seed, err);
}

/* One training epoch over r->train; returns the mean batch loss. */
static int train_epoch(run_t *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    const dgnn_events *tr = &r->train;
    const int64_t bs = c->batch;
    int64_t nb = (tr->num_events + bs - 1) / bs;
    if (c->max_train_batches > 0 && nb > c->max_train_batches) nb = c->max_train_batches;
    dgnn_state_reset(&r->st);
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train", (long long)epoch);
    if (c->progress) dgnn_progress_begin(&pg, label, nb * bs > tr->num_events ? tr->num_events : nb * bs);
    double loss_sum = 0, flops = 0, t0 = dgnn_now();
    int64_t events = 0;
    for (int64_t b = 0; b < nb; b++) {
        int64_t e0 = b * bs, B = e0 + bs <= tr->num_events ? bs : tr->num_events - e0;
        int rc = event_ensure_batch(r, B, 1, err);
        if (!rc) rc = event_draw_negatives(r, B, 1, 0, event_stream_seed(c->seed, epoch, b), err);
        if (rc) return rc;
        dgnn_params_zero_grad(r->p);
        rc = dgnn_tgnn_forward(r->model, r->logits, &r->st, &r->g_train, r->train.efeat, tr, e0, B, r->neg_t, 1,
                               &r->rng, err);
        if (rc) return rc;
        for (int64_t i = 0; i < 2 * B; i++) r->labels[i] = i < B ? 1.0f : 0.0f;
        /* the TGN code's loss: mean BCE of the positives + mean BCE of the negatives */
        double loss = 2.0 * dgnn_bce_logits_forward(NULL, r->logits, r->labels, 2 * B);
        memset(r->dlogits, 0, (size_t)(2 * B) * sizeof(float));
        dgnn_bce_logits_backward(r->dlogits, r->logits, r->labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(r->model, r->dlogits);
        dgnn_tgnn_commit(r->model, &r->st, tr);
        dgnn_adam_step_params(&r->opt, r->p);
        flops += dgnn_tgnn_last_flops(r->model);
        if (!isfinite(loss))
            return dgnn_err_set(err, DGNN_EINVAL, "epoch %lld batch %lld: the loss is not finite (%g); try a lower --lr",
                                (long long)epoch, (long long)b, loss);
        loss_sum += loss;
        if (c->on_step) c->on_step(c->on_step_ctx, epoch, b, loss);
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

/* Evaluates the events of `part` in batches, committing the state as it goes.
 * AP and AUC are averaged over batches (positives against the first negative of each
 * event); with K > 0, *mrr gets the mean reciprocal rank against K negatives. */
static int evaluate(run_t *r, const dgnn_events *part, uint64_t seed_base, int64_t K, double *ap, double *auc,
                    double *mrr, const char *what, dgnn_err *err) {
    const int64_t bs = r->cfg->batch;
    if (K < 1) K = 1;
    int64_t nb = (part->num_events + bs - 1) / bs;
    double ap_sum = 0, auc_sum = 0, rr_sum = 0;
    int64_t n_ap = 0, n_rr = 0;
    dgnn_progress pg;
    if (r->cfg->progress) dgnn_progress_begin(&pg, what, part->num_events);
    for (int64_t b = 0; b < nb; b++) {
        int64_t e0 = b * bs, B = e0 + bs <= part->num_events ? bs : part->num_events - e0;
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

/* ---- checkpoints ------------------------------------------------------------
 * One file, <dir>/checkpoint.dgnnckpt, rewritten atomically after every epoch. It
 * holds what the rest of the run depends on: parameters and Adam state, the node
 * state after validation (the test starts from it), the best epoch's parameters and
 * state, the dropout rng, the results so far, a fingerprint of the settings that
 * must not change on --resume (model, sizes, batch, learning rate, seed, data), the run
 * record (checkpoint.h: the rank count and the distribution mode and options, checked
 * with a message naming both runs) and, distributed, every rank's running totals
 * ("dist.totals"), so the figures of a resumed run cover all its epochs. */

typedef struct {
    uint64_t fingerprint;
    int64_t epochs_done, best_epoch, bad_rounds;
    double best_ap;
    int64_t early_stopped, have_best;
    dgnn_adam opt;
    dgnn_rng rng;
} ckpt_meta;

/* One rank's running totals (dgnn_dist_result's per-rank figures, summed over epochs). */
typedef struct {
    double compute, sample, comm, prefetch;
    int64_t events, state_bytes, grad_bytes, steps, hot_rows;
} rank_totals;

static rank_totals my_totals(run_t *r) {
    rank_totals t = {r->t_compute,   r->t_sample,    r->t_comm,  r->t_prefetch,
                     r->my_events,   r->state_bytes, r->grad_bytes, r->steps,
                     event_dist_hot_rows(r, -1)};
    return t;
}

/* Every rank's totals into all (P), in rank order: a collective. */
static void gather_totals(run_t *r, rank_totals *all) {
    rank_totals mine = my_totals(r);
    int64_t counts[DGNN_DIST_MAX_RANKS];
    dgnn_comm_allgatherv_bytes(all, counts, &mine, sizeof mine);
}

/* A resumed rank continues the totals the checkpoint holds for it. */
static void restore_totals(run_t *r, const rank_totals *t) {
    r->t_compute = t->compute, r->t_sample = t->sample, r->t_comm = t->comm, r->t_prefetch = t->prefetch;
    r->my_events = t->events, r->state_bytes = t->state_bytes, r->grad_bytes = t->grad_bytes, r->steps = t->steps;
    event_dist_hot_rows(r, t->hot_rows);
}

/* The run record: the settings that change what the saved state means (train_event.h's
 * dgnn_dist_cfg), and the flags that set them, for messages. */
static void run_record(const run_t *r, dgnn_ckpt_run *rec) {
    const dgnn_dist_cfg *d = &r->cfg->dist;
    static const char *const mode[] = {"none", "strict", "depbloom"};
    dgnn_ckpt_run_init(rec);
    dgnn_ckpt_run_set(rec, "processes", "%d", r->nranks);
    dgnn_ckpt_run_set(rec, "dist", "%s", d->mode >= 0 && d->mode <= 2 ? mode[d->mode] : "?");
    char flags[DGNN_CKPT_RUN_VAL] = "";
    if (d->mode == DGNN_DIST_STRICT) snprintf(flags, sizeof flags, "--dist strict");
    if (d->mode == DGNN_DIST_DEPBLOOM) {
        const int64_t K = d->refine > 1 ? d->refine : 1;
        dgnn_ckpt_run_set(rec, "partition", "%d", d->partition);
        if (d->window_seconds > 0) dgnn_ckpt_run_set(rec, "window_seconds", "%.17g", d->window_seconds);
        else dgnn_ckpt_run_set(rec, "window_events", "%lld", (long long)d->window_events);
        dgnn_ckpt_run_set(rec, "refine", "%lld", (long long)K);
        dgnn_ckpt_run_set(rec, "critical_path", "%d", d->critical_path);
        if (d->critical_path) {
            dgnn_ckpt_run_set(rec, "cold_fetch", "%d", !d->cold_allgather);
            dgnn_ckpt_run_set(rec, "prefetch", "%d", !d->no_prefetch);
        }
        char w[40];
        if (d->window_seconds > 0) snprintf(w, sizeof w, " --window-seconds %g", d->window_seconds);
        else snprintf(w, sizeof w, " --window-events %lld", (long long)d->window_events);
        char k[32] = "";
        if (K > 1) snprintf(k, sizeof k, " --refine %lld", (long long)K);
        snprintf(flags, sizeof flags, "--dist depbloom%s%s%s%s", d->partition ? " --partition" : "", w, k,
                 d->critical_path ? " --critical-path" : "");
    }
    dgnn_ckpt_run_set(rec, "flags", "%s", flags);
}

/* What may change on --resume: both give the same training, step for step
 * (test_dist_event checks each against its alternative). */
static const dgnn_ckpt_run_rule k_run_rules[] = {
    {"cold_fetch", "cold rows fetched when read or all-gathered at each window's end train alike"},
    {"prefetch", "sampling the next micro-batch ahead draws the same samples"},
    {NULL, NULL},
};

static uint64_t fingerprint(const run_t *r) {
    const dgnn_event_train_cfg *c = r->cfg;
    uint64_t h = dgnn_params_layout_hash(r->p);
    const dgnn_tgnn_cfg *m = &c->model;
    uint64_t v[] = {(uint64_t)m->kind, (uint64_t)m->mem_dim, (uint64_t)m->time_dim, (uint64_t)m->emb_dim,
                    (uint64_t)m->neighbors, (uint64_t)m->heads, (uint64_t)m->attn, (uint64_t)m->uniform_sampler,
                    m->seed, (uint64_t)c->batch, (uint64_t)c->neg, c->seed, (uint64_t)r->ev->num_events,
                    (uint64_t)r->ev->num_nodes, (uint64_t)(c->lr * 1e12), (uint64_t)(m->dropout * 1e6),
                    (uint64_t)c->max_train_batches, (uint64_t)m->mail_slots};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) h = dgnn_hash64(h ^ v[i]);
    h = dgnn_hash64(h ^ dgnn_events_hash(r->ev)); /* the events themselves, not only their counts */
    return h;
}

/* The node state as checkpoint sections: one table for writing and reading. */
typedef struct {
    const char *name;
    void *data;
    size_t bytes;
} state_section;

static int state_table(state_section *sec, const dgnn_state *s) {
    int64_t N = s->num_nodes;
    state_section t[] = {{"mem", s->mem, (size_t)(N * s->mem_dim) * sizeof(float)},
                         {"mem_t", s->mem_t, (size_t)N * sizeof(double)},
                         {"mail", s->mail, (size_t)(N * s->slots * s->mail_dim) * sizeof(float)},
                         {"mail_t", s->mail_t, (size_t)(N * s->slots) * sizeof(double)},
                         {"mail_n", s->mail_n, (size_t)N * sizeof(int32_t)},
                         {"mail_head", s->mail_head, (size_t)N * sizeof(int32_t)}};
    memcpy(sec, t, sizeof t);
    return (int)(sizeof t / sizeof t[0]);
}

static int state_sections(dgnn_ckpt_writer *w, const char *prefix, const dgnn_state *s, dgnn_err *err) {
    state_section sec[8];
    int n = state_table(sec, s);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.%s", prefix, sec[i].name);
        int rc = dgnn_ckpt_writer_add(w, name, sec[i].data, sec[i].bytes, err);
        if (rc) return rc;
    }
    return DGNN_OK;
}

static int state_read(const dgnn_ckpt *c, const char *prefix, dgnn_state *s, dgnn_err *err) {
    state_section sec[8];
    int n = state_table(sec, s);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.%s", prefix, sec[i].name);
        int rc = dgnn_ckpt_read(c, name, sec[i].data, sec[i].bytes, err);
        if (rc) return rc;
    }
    return DGNN_OK;
}

/* totals: every rank's running totals (distributed runs), else NULL */
static int save_checkpoint(run_t *r, const ckpt_meta *meta, const dgnn_event_train_result *res,
                           const rank_totals *totals, dgnn_err *err) {
    dgnn_ckpt_writer *w;
    int rc = dgnn_ckpt_dir_writer_open(&w, r->cfg->checkpoint, err);
    if (rc) return rc;
    size_t pb = (size_t)r->p->total * sizeof(float);
    dgnn_ckpt_run rec;
    run_record(r, &rec);
    rc = dgnn_ckpt_add_run(w, &rec, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "meta", meta, sizeof *meta, err);
    if (!rc && totals) rc = dgnn_ckpt_writer_add(w, "dist.totals", totals, (size_t)r->nranks * sizeof *totals, err);
    if (!rc) rc = dgnn_ckpt_add_params(w, r->p, 0, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "results", res, sizeof *res, err);
    if (!rc) rc = state_sections(w, "state", &r->st, err);
    if (!rc && r->have_best) rc = dgnn_ckpt_writer_add(w, "best.params", r->best_params, pb, err);
    if (!rc && r->have_best) rc = state_sections(w, "best", &r->st_best, err);
    if (rc) {
        dgnn_ckpt_writer_abort(w);
        return rc;
    }
    return dgnn_ckpt_writer_commit(w, NULL, err);
}

/* A checkpoint's progress that the loop indexes with: in range, or the file is refused. */
static int check_meta(const char *path, const ckpt_meta *m, const dgnn_event_train_result *res, dgnn_err *err) {
    const int64_t E = (int64_t)(sizeof res->epochs / sizeof res->epochs[0]);
    if (m->epochs_done < 0 || m->epochs_done > E || res->num_epochs != m->epochs_done || m->best_epoch < 0 ||
        m->best_epoch > m->epochs_done || m->bad_rounds < 0 || (m->early_stopped != 0 && m->early_stopped != 1) ||
        (m->have_best != 0 && m->have_best != 1) || res->best_epoch != m->best_epoch)
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "checkpoint %s: its progress is inconsistent (epochs done %lld, results for %lld, best epoch "
                            "%lld): delete it or resume from another",
                            path, (long long)m->epochs_done, (long long)res->num_epochs, (long long)m->best_epoch);
    return DGNN_OK;
}

/* Rank 0: reads the checkpoint; totals (P entries, distributed runs) gets every rank's
 * running totals. */
static int load_checkpoint(run_t *r, ckpt_meta *meta, dgnn_event_train_result *res, rank_totals *totals,
                           dgnn_err *err) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, r->cfg->checkpoint);
    dgnn_ckpt *c;
    int rc = dgnn_ckpt_open(&c, path, err);
    if (rc) return rc;
    size_t pb = (size_t)r->p->total * sizeof(float);
    dgnn_ckpt_run saved, now;
    char notes[512];
    run_record(r, &now);
    rc = dgnn_ckpt_read_run(c, &saved, err);
    if (!rc)
        rc = dgnn_ckpt_run_check(&saved, &now, k_run_rules, r->cfg->checkpoint,
                                 "resume with the same mpirun -np and --dist flags, or start without --resume", notes,
                                 sizeof notes, err);
    if (!rc && notes[0]) dgnn_log("resuming %s: %s\n", r->cfg->checkpoint, notes);
    if (!rc) rc = dgnn_ckpt_read(c, "meta", meta, sizeof *meta, err);
    if (!rc && meta->fingerprint != fingerprint(r))
        rc = dgnn_err_set(err, DGNN_EINVAL,
                          "%s was written by a run with other settings (model, sizes, batch, lr, seed or data); "
                          "--resume needs the same ones, or start afresh without --resume", path);
    if (!rc && totals) rc = dgnn_ckpt_read(c, "dist.totals", totals, (size_t)r->nranks * sizeof *totals, err);
    if (!rc) rc = dgnn_ckpt_read_params(c, r->p, 0, err);
    if (!rc) rc = dgnn_ckpt_read(c, "results", res, sizeof *res, err);
    if (!rc) rc = check_meta(path, meta, res, err);
    if (!rc) rc = state_read(c, "state", &r->st, err);
    if (!rc && meta->have_best) rc = dgnn_ckpt_read(c, "best.params", r->best_params, pb, err);
    if (!rc && meta->have_best) rc = state_read(c, "best", &r->st_best, err);
    dgnn_ckpt_close(c);
    if (rc) return rc;
    r->opt = meta->opt;
    r->rng = meta->rng;
    r->have_best = (int)meta->have_best;
    return DGNN_OK;
}

/* ---- the run ------------------------------------------------------------------ */

static void run_free(run_t *r) {
    dgnn_split_free(&r->split);
    dgnn_events_free(&r->train);
    dgnn_events_free(&r->val);
    dgnn_events_free(&r->test);
    dgnn_events_free(&r->new_val);
    dgnn_events_free(&r->new_test);
    dgnn_tcsr_free(&r->g_train);
    dgnn_tcsr_free(&r->g_full);
    free(r->train_dst);
    free(r->full_dst);
    dgnn_tgnn_free(r->model);
    dgnn_state_free(&r->st);
    dgnn_state_free(&r->st_backup);
    dgnn_state_free(&r->st_best);
    free(r->best_params);
    free(r->neg);
    free(r->neg_t);
    free(r->logits);
    free(r->dlogits);
    free(r->labels);
    event_dist_free(r);
}

static int run_setup(run_t *r, const dgnn_events *ev, const dgnn_event_train_cfg *c, dgnn_err *err) {
    memset(r, 0, sizeof *r);
    r->ev = ev;
    r->cfg = c;
    int rc = dgnn_event_train_cfg_check(c, err);
    if (rc) return rc;
    if (ev->num_events < 2) return dgnn_err_set(err, DGNN_EINVAL, "training needs at least 2 events");
    if ((rc = dgnn_split_make(&r->split, ev, &c->split, err))) return rc;
    /* metrics of an empty validation or test set would be NaN printed as results */
    if ((rc = dgnn_split_check(&r->split, ev, !c->skip_eval, err))) return rc;
    const uint8_t *mk = r->split.mask;
    if ((rc = dgnn_events_subset(&r->train, ev, mk, DGNN_SPLIT_TRAIN, err)) ||
        (rc = dgnn_events_subset(&r->val, ev, mk, DGNN_SPLIT_VAL, err)) ||
        (rc = dgnn_events_subset(&r->test, ev, mk, DGNN_SPLIT_TEST, err)) ||
        (rc = dgnn_events_subset(&r->new_val, ev, mk, DGNN_SPLIT_NEW_VAL, err)) ||
        (rc = dgnn_events_subset(&r->new_test, ev, mk, DGNN_SPLIT_NEW_TEST, err)))
        return rc;
    if ((rc = dgnn_tcsr_build(&r->g_train, &r->train, -1, 0, err)) ||
        (rc = dgnn_tcsr_build(&r->g_full, ev, -1, 0, err)))
        return rc;
    if ((rc = dgnn_neg_dst_set(&r->train_dst, &r->n_train_dst, &r->train, -1, err)) ||
        (rc = dgnn_neg_dst_set(&r->full_dst, &r->n_full_dst, ev, -1, err)))
        return rc;
    if (!c->skip_eval && c->eval_negatives > 0) {
        /* negatives are drawn with replacement: more of them than candidates ranks a test
         * event against repeats */
        const int64_t cand = c->neg == DGNN_NEG_ALL ? ev->num_nodes : r->n_full_dst;
        if (c->eval_negatives > cand)
            return dgnn_err_set(err, DGNN_EINVAL,
                                "--eval-negatives %lld: this dataset has %lld candidate negatives (%s); use at most %lld",
                                (long long)c->eval_negatives, (long long)cand,
                                c->neg == DGNN_NEG_ALL ? "its nodes, --negatives all" : "its destination nodes, --negatives dst",
                                (long long)cand);
    }
    if ((rc = dgnn_tgnn_init(&r->model, &c->model, ev->num_nodes, ev->edge_dim, err))) return rc;
    r->p = dgnn_tgnn_params(r->model);
    const int64_t D = dgnn_tgnn_mail_dim(r->model), M = c->model.mem_dim, N = ev->num_nodes;
    const int64_t S = dgnn_tgnn_mail_slots(r->model);
    /* three copies of the node state (training, backup, best): asked for as one sum, since
     * calloc grants each lazily and the pages would run out only when touched */
    const int64_t row = dgnn_size_add(dgnn_size_mul(M, 4), dgnn_size_mul(S, dgnn_size_add(dgnn_size_mul(D, 4), 8)));
    if ((rc = dgnn_mem_check(dgnn_size_mul(3, dgnn_size_mul(N, dgnn_size_add(row, 16))), err,
                             "the node state (3 copies of %lld nodes x (memory %lld + %lld mail slots of %lld)); lower "
                             "--mem-dim, --time-dim or --mail-slots",
                             (long long)N, (long long)M, (long long)S, (long long)D)))
        return rc;
    if ((rc = dgnn_state_init(&r->st, N, M, D, S, err)) || (rc = dgnn_state_init(&r->st_backup, N, M, D, S, err)) ||
        (rc = dgnn_state_init(&r->st_best, N, M, D, S, err)))
        return rc;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->best_params, r->p->total);
    if ((rc = dgnn_alloc_done(&as, err, "a copy of the %lld parameters", (long long)r->p->total))) return rc;
    r->opt = dgnn_adam_default(c->lr);
    dgnn_rng_seed2(&r->rng, c->seed, 0x64726f70 /* "drop" */);
    return DGNN_OK;
}

/* Every rank's time split and traffic into rank 0's res->dist (a collective). */
static void dist_report(run_t *r, dgnn_event_train_result *res) {
    rank_totals all[DGNN_DIST_MAX_RANKS];
    uint64_t sums[DGNN_DIST_MAX_RANKS];
    int64_t counts[DGNN_DIST_MAX_RANKS];
    gather_totals(r, all);
    dgnn_comm_allgatherv_bytes(sums, counts, &r->state_sum, sizeof r->state_sum);
    dgnn_dist_result *d = &res->dist;
    event_dist_report(r, d);
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
    int prev_threads = omp_get_max_threads();
    if (c->threads > 0) omp_set_num_threads((int)c->threads);
    run_t r;
    int rc = run_setup(&r, ev, c, err);
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
    ckpt_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.fingerprint = fingerprint(&r);
    meta.best_ap = -INFINITY;
    if (c->resume) {
        if (!c->checkpoint) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "--resume needs --checkpoint DIR");
            goto done;
        }
        rank_totals totals[DGNN_DIST_MAX_RANKS];
        if (r.rank == 0 && (rc = load_checkpoint(&r, &meta, res, dist ? totals : NULL, err))) goto done;
        if (dist) { /* rank 0 read it: the others take parameters, Adam and progress from it */
            dgnn_comm_bcast(&meta, sizeof meta, 0);
            dgnn_comm_bcast(r.p->value, r.p->total * (int64_t)sizeof(float), 0);
            dgnn_comm_bcast(r.p->m, r.p->total * (int64_t)sizeof(float), 0);
            dgnn_comm_bcast(r.p->v, r.p->total * (int64_t)sizeof(float), 0);
            dgnn_comm_bcast(totals, r.nranks * (int64_t)sizeof *totals, 0);
            restore_totals(&r, &totals[r.rank]);
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
        if ((rc = dist ? event_dist_train_epoch(&r, epoch, er, err) : train_epoch(&r, epoch, er, err))) goto done;
        if (dist) r.state_sum = dgnn_state_checksum(&r.st); /* before evaluation moves rank 0's on */
        train_seconds += er->train_seconds;
        train_events += er->train_events;
        er->val_ap = er->val_auc = er->val_new_ap = er->val_new_auc = NAN;
        if (dist && !c->skip_eval && (rc = event_dist_sync_for_eval(&r, err))) goto done;
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
            rank_totals totals[DGNN_DIST_MAX_RANKS];
            if (dist) gather_totals(&r, totals); /* a collective: every rank */
            if (r.rank == 0 && (rc = save_checkpoint(&r, &meta, res, dist ? totals : NULL, err))) goto done;
        }
    }
    if (meta.early_stopped && r.have_best) {
        memcpy(r.p->value, r.best_params, (size_t)r.p->total * sizeof(float));
        dgnn_state_copy(&r.st, &r.st_best);
    }
    res->test_ap = res->test_auc = res->test_new_ap = res->test_new_auc = res->test_mrr = NAN;
    if (evaluating && res->num_epochs > 0) {
        dgnn_state_copy(&r.st_backup, &r.st);
        if ((rc = evaluate(&r, &r.test, c->seed + 3, c->eval_negatives, &res->test_ap, &res->test_auc,
                           c->eval_negatives > 0 ? &res->test_mrr : NULL, "test", err)))
            goto done;
        dgnn_state_copy(&r.st, &r.st_backup);
        if ((rc = evaluate(&r, &r.new_test, c->seed + 4, 1, &res->test_new_ap, &res->test_new_auc, NULL,
                           "new-node test", err)))
            goto done;
    }
    res->train_events_per_second = train_seconds > 0 ? (double)train_events / train_seconds : 0;
    res->peak_rss_mb = dgnn_peak_rss_mb();
    if (dist) dist_report(&r, res);
done:
    run_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}
