/* event_node.c: dynamic node classification with a frozen event model (event_node.h):
 * the periods, one pass over a period (the model's forward and commit per batch, the
 * decoder on the sources' embeddings, a decoder step when training), the decoder epochs
 * with early stopping on validation AUC, and the test. */
#include "dgnn/event_node.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/adam.h"
#include "dgnn/metrics.h"
#include "dgnn/node_mlp.h"
#include "dgnn/nn.h"

dgnn_event_node_cfg dgnn_event_node_cfg_default(void) {
    dgnn_event_node_cfg c;
    memset(&c, 0, sizeof c);
    c.epochs = 10, c.patience = 5, c.lr = 3e-4, c.dropout = 0.1f, c.batch = 100;
    c.hidden1 = 80, c.hidden2 = 10;
    c.split = dgnn_split_opts_default();
    c.progress = 0;
    c.cache_bytes = (int64_t)1 << 30;
    return c;
}

int dgnn_event_node_cfg_check(const dgnn_event_node_cfg *c, dgnn_err *err) {
    if (c->epochs < 1 || c->epochs > 1024)
        return dgnn_err_set(err, DGNN_EINVAL, "--node-epochs must be in [1, 1024] (got %lld)", (long long)c->epochs);
    if (c->patience < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "--node-patience must be >= 1 (got %lld)", (long long)c->patience);
    if (!(c->lr >= FLT_MIN && c->lr <= DGNN_EVENT_NODE_MAX_LR)) /* FLT_MIN: as --lr's (event_presets.c) */
        return dgnn_err_set(err, DGNN_EINVAL, "--node-lr must be in [%g, %g] (got %g)", (double)FLT_MIN,
                            DGNN_EVENT_NODE_MAX_LR, c->lr);
    if (c->batch < 1) return dgnn_err_set(err, DGNN_EINVAL, "--node-batch must be >= 1 (got %lld)", (long long)c->batch);
    if (c->max_train_batches < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "--max-batches must be >= 0 (got %lld)", (long long)c->max_train_batches);
    if (c->max_eval_events < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "--eval-max-events must be >= 0 (got %lld)",
                            (long long)c->max_eval_events);
    if (!(c->dropout >= 0 && c->dropout < 1))
        return dgnn_err_set(err, DGNN_EINVAL, "node decoder: dropout must be in [0, 1) (got %g)", (double)c->dropout);
    return DGNN_OK;
}

/* What one run holds. */
typedef struct {
    const dgnn_event_node_cfg *c;
    dgnn_tgnn *model;
    dgnn_events part[3]; /* training, validation, test periods */
    dgnn_tcsr g_train, g_full;
    const float *full_efeat; /* the table's: both indexes' event ids and the periods' rows index it */
    dgnn_state st;
    dgnn_node_mlp dec;
    dgnn_adam opt;
    dgnn_rng rng;
    float *logits, *dlogits, *labels, *scratch; /* (batch) */
    float *pred;                                /* (largest period) */
    float *H[3];    /* the periods' source embeddings (events, E) when cached, else NULL */
    int64_t E;      /* embedding width */
} node_run;

/* One pass over part (0 training, 1 validation, 2 test), the memory going on from st:
 * training: a decoder step per batch, *loss the mean batch loss; else the decoder's
 * logits of every event into r->pred. */
static int node_pass(node_run *r, int which, double *loss, dgnn_err *err) {
    const dgnn_events *ev = &r->part[which];
    const int train = which == 0;
    const dgnn_tcsr *g = train ? &r->g_train : &r->g_full;
    const int64_t n = ev->num_events, bs = r->c->batch, nb = (n + bs - 1) / bs;
    static const char *what[3] = {"node: train", "node: validation", "node: test"};
    dgnn_progress pg;
    if (r->c->progress) dgnn_progress_begin(&pg, what[which], n);
    double sum = 0;
    int rc = DGNN_OK;
    for (int64_t b = 0; b < nb && !rc; b++) {
        const int64_t e0 = b * bs, B = e0 + bs <= n ? bs : n - e0;
        const float *h;
        if (r->H[which]) {
            h = r->H[which] + e0 * r->E;
        } else {
            /* the frozen model: inference, no negatives; its roots' block 0 are the sources */
            rc = dgnn_tgnn_forward(r->model, r->scratch, &r->st, g, r->full_efeat, ev, e0, B, NULL, 0, NULL, err);
            if (rc) break;
            h = dgnn_tgnn_last_embeddings(r->model); /* (B, E) first */
        }
        float *out = train ? r->logits : r->pred + e0;
        if ((rc = dgnn_node_mlp_forward(&r->dec, out, h, B, train ? &r->rng : NULL, err))) break;
        if (train) {
            for (int64_t i = 0; i < B; i++) r->labels[i] = (float)ev->label[e0 + i];
            sum += dgnn_bce_logits_forward(NULL, out, r->labels, B);
            memset(r->dlogits, 0, (size_t)B * sizeof(float));
            dgnn_bce_logits_backward(r->dlogits, out, r->labels, B, 1.0f);
            dgnn_params_zero_grad(&r->dec.p);
            dgnn_node_mlp_backward(&r->dec, NULL, r->dlogits, h);
            const int64_t bad = dgnn_adam_step_params(&r->opt, &r->dec.p);
            if (bad) {
                char where[64];
                snprintf(where, sizeof where, "node: the decoder's batch %lld", (long long)b);
                rc = dgnn_adam_failure(err, where, bad, r->dec.p.total);
                break;
            }
        }
        if (!r->H[which]) dgnn_tgnn_commit(r->model, &r->st, ev);
        if (r->c->progress) dgnn_progress_update(&pg, e0 + B, NULL);
    }
    if (r->c->progress) dgnn_progress_end(&pg);
    if (loss) *loss = nb ? sum / (double)nb : NAN;
    return rc;
}

/* AUC over all the last pass's predictions of part `which`. */
static double node_auc(const node_run *r, int which) {
    return dgnn_metric_auc(r->pred, r->part[which].label, r->part[which].num_events);
}

static int64_t positives(const dgnn_events *ev) {
    int64_t k = 0;
    for (int64_t e = 0; e < ev->num_events; e++) k += ev->label[e] != 0;
    return k;
}

/* The periods of ev (every event of a period, new nodes included), the neighbour
 * indexes, the state, the decoder and the buffers. */
static int node_setup(node_run *r, const dgnn_events *ev, dgnn_err *err) {
    const dgnn_event_node_cfg *c = r->c;
    dgnn_split s;
    int rc = dgnn_split_make(&s, ev, &c->split, err);
    if (rc) return rc;
    /* the quick-run cuts: each period's first events (a prefix keeps the protocol's order;
     * the left-out events are in no period) */
    int64_t cap[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, seen[3] = {0, 0, 0};
    if (c->max_train_batches > 0 && c->max_train_batches <= INT64_MAX / c->batch)
        cap[0] = c->max_train_batches * c->batch;
    if (c->max_eval_events > 0) cap[1] = cap[2] = c->max_eval_events;
    uint8_t *mask = dgnn_xmalloc((size_t)(ev->num_events > 0 ? ev->num_events : 1));
    for (int64_t e = 0; e < ev->num_events; e++) {
        const int k = s.mask[e] & DGNN_SPLIT_TEST ? 2 : s.mask[e] & DGNN_SPLIT_VAL ? 1 : 0;
        mask[e] = seen[k]++ < cap[k] ? (uint8_t)(1 << k) : 0;
    }
    dgnn_split_free(&s);
    for (int k = 0; k < 3 && !rc; k++) rc = dgnn_events_subset(&r->part[k], ev, mask, (uint8_t)(1 << k), err);
    /* the training period's index over the table's event ids: every neighbour's features
     * are the table's rows (the periods share them) */
    if (!rc) rc = dgnn_tcsr_build_masked(&r->g_train, ev, -1, mask, 1, 0, err);
    free(mask);
    if (rc) return rc;
    static const char *names[3] = {"training", "validation", "test"};
    for (int k = 0; k < 3; k++)
        if (r->part[k].num_events == 0)
            return dgnn_err_set(err, DGNN_EINVAL, "node classification: the %s period has no events (split %g / %g)",
                                names[k], c->split.val_q, c->split.test_q);
    if ((rc = dgnn_tcsr_build(&r->g_full, ev, -1, 0, err))) return rc;
    r->full_efeat = ev->efeat;
    const dgnn_tgnn_cfg *mc = dgnn_tgnn_config(r->model);
    if ((rc = dgnn_state_init(&r->st, ev->num_nodes, mc->mem_dim, dgnn_tgnn_mail_dim(r->model),
                              dgnn_tgnn_mail_slots(r->model), err)))
        return rc;
    if ((rc = dgnn_node_mlp_init(&r->dec, dgnn_tgnn_embed_dim(r->model), c->hidden1, c->hidden2, c->dropout, c->seed,
                                 err)))
        return rc;
    r->opt = dgnn_adam_default(c->lr);
    dgnn_rng_seed2(&r->rng, c->seed, 0x6e6f6465 /* "node" */);
    int64_t most = 0;
    for (int k = 1; k < 3; k++) most = r->part[k].num_events > most ? r->part[k].num_events : most;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->logits, c->batch);
    DGNN_GROW(&as, r->dlogits, c->batch);
    DGNN_GROW(&as, r->labels, c->batch);
    DGNN_GROW(&as, r->scratch, c->batch);
    DGNN_GROW(&as, r->pred, most);
    return dgnn_alloc_done(&as, err, "node classification's buffers (batch %lld, %lld predictions)",
                           (long long)c->batch, (long long)most);
}

/* The cache: the three periods' source embeddings, from a reset memory going on from
 * period to period, as every decoder epoch (and the test after validation) computes them. */
static int node_cache(node_run *r, dgnn_err *err) {
    const int64_t E = dgnn_tgnn_embed_dim(r->model), bs = r->c->batch;
    int64_t rows = 0;
    for (int k = 0; k < 3; k++) rows += r->part[k].num_events;
    const int64_t bytes = dgnn_size_mul(dgnn_size_mul(rows, E), (int64_t)sizeof(float));
    if (bytes > r->c->cache_bytes) return DGNN_OK; /* recomputed every epoch */
    r->E = E;
    float *H[3] = {NULL, NULL, NULL};
    dgnn_alloc_set as = {0, 0};
    for (int k = 0; k < 3; k++) DGNN_GROW(&as, H[k], dgnn_size_mul(r->part[k].num_events, E));
    if (as.failed) { /* not granted: recompute every epoch instead */
        for (int k = 0; k < 3; k++) free(H[k]);
        return DGNN_OK;
    }
    dgnn_state_reset(&r->st);
    int rc = DGNN_OK;
    for (int k = 0; k < 3 && !rc; k++) {
        const dgnn_events *ev = &r->part[k];
        const dgnn_tcsr *g = k == 0 ? &r->g_train : &r->g_full;
        for (int64_t e0 = 0; e0 < ev->num_events && !rc; e0 += bs) {
            const int64_t B = e0 + bs <= ev->num_events ? bs : ev->num_events - e0;
            rc = dgnn_tgnn_forward(r->model, r->scratch, &r->st, g, r->full_efeat, ev, e0, B, NULL, 0, NULL, err);
            if (rc) break;
            memcpy(H[k] + e0 * E, dgnn_tgnn_last_embeddings(r->model), (size_t)(B * E) * sizeof(float));
            dgnn_tgnn_commit(r->model, &r->st, ev);
        }
    }
    if (rc) {
        for (int k = 0; k < 3; k++) free(H[k]);
        return rc;
    }
    for (int k = 0; k < 3; k++) r->H[k] = H[k];
    return DGNN_OK;
}

static void node_free(node_run *r) {
    for (int k = 0; k < 3; k++) dgnn_events_free(&r->part[k]);
    dgnn_tcsr_free(&r->g_train);
    dgnn_tcsr_free(&r->g_full);
    dgnn_state_free(&r->st);
    dgnn_node_mlp_free(&r->dec);
    free(r->logits), free(r->dlogits), free(r->labels), free(r->scratch), free(r->pred);
    for (int k = 0; k < 3; k++) free(r->H[k]);
}

static int node_epochs(node_run *r, dgnn_event_node_result *res, dgnn_err *err) {
    const dgnn_event_node_cfg *c = r->c;
    const int64_t total = r->dec.p.total;
    float *best = dgnn_xmalloc((size_t)total * sizeof(float));
    double best_auc = -INFINITY;
    int64_t bad = 0;
    int rc = DGNN_OK;
    for (int64_t epoch = 1; epoch <= c->epochs && !rc; epoch++) {
        dgnn_node_epoch_result *er = &res->epochs[epoch - 1];
        const double t0 = dgnn_now();
        er->epoch = epoch;
        dgnn_state_reset(&r->st); /* the TGN code: tgn.memory.__init_memory__() every epoch (unused when cached) */
        if ((rc = node_pass(r, 0, &er->train_loss, err)) || (rc = node_pass(r, 1, NULL, err))) break;
        er->val_auc = node_auc(r, 1);
        er->seconds = dgnn_now() - t0;
        res->num_epochs = epoch;
        char f[2][16];
        dgnn_log("node epoch %lld: decoder loss %s, val AUC %s, %.1f s\n", (long long)epoch,
                 dgnn_fmt_metric(f[0], 16, er->train_loss), dgnn_fmt_metric(f[1], 16, er->val_auc), er->seconds);
        /* the TGN code's EarlyStopMonitor: better by more than a relative 1e-10 */
        if (isfinite(er->val_auc) && (res->best_epoch == 0 || er->val_auc - best_auc > 1e-10 * fabs(best_auc))) {
            best_auc = er->val_auc, res->best_epoch = epoch, bad = 0;
            memcpy(best, r->dec.p.value, (size_t)total * sizeof(float));
        } else if (++bad >= c->patience && epoch < c->epochs) {
            res->early_stopped = 1;
            dgnn_log("node: early stop, no better validation AUC for %lld epochs; back to epoch %lld\n",
                     (long long)c->patience, (long long)res->best_epoch);
            break;
        }
    }
    /* the best epoch's decoder (none finite: the last); the memory after validation is the
     * same every epoch (frozen model, reset memory), so the test goes on from it */
    if (!rc && res->best_epoch > 0) memcpy(r->dec.p.value, best, (size_t)total * sizeof(float));
    free(best);
    return rc;
}

int dgnn_event_node_train(const dgnn_events *ev, dgnn_tgnn *model, const dgnn_event_node_cfg *c,
                          dgnn_event_node_result *res, dgnn_err *err) {
    memset(res, 0, sizeof *res);
    res->test_auc = NAN;
    int rc = dgnn_event_node_cfg_check(c, err);
    if (rc) return rc;
    if (!ev->label)
        return dgnn_err_set(err, DGNN_EINVAL, "node classification: the events have no labels (it predicts each "
                                              "event's label, e.g. JODIE's state_label column)");
    const double t0 = dgnn_now();
    const int prev_threads = omp_get_max_threads();
    if (c->threads > 0) omp_set_num_threads((int)c->threads);
    node_run r;
    memset(&r, 0, sizeof r);
    r.c = c, r.model = model;
    if ((rc = node_setup(&r, ev, err)) || (rc = node_cache(&r, err))) goto done;
    res->cached = r.H[0] != NULL;
    res->n_train = r.part[0].num_events, res->n_val = r.part[1].num_events, res->n_test = r.part[2].num_events;
    res->pos_train = positives(&r.part[0]), res->pos_val = positives(&r.part[1]), res->pos_test = positives(&r.part[2]);
    res->num_params = dgnn_params_count(&r.dec.p);
    if ((rc = node_epochs(&r, res, err))) goto done;
    if ((rc = node_pass(&r, 2, NULL, err))) goto done;
    res->test_auc = node_auc(&r, 2);
    res->seconds = dgnn_now() - t0;
done:
    node_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}
