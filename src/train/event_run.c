/* event_run.c: the event trainer's run (event_run.h): its set-up from the data and the
 * settings (split, neighbour indexes, negative pools, model, node states), the batch
 * buffers and the negatives every epoch and evaluation draws, and the rank's running
 * totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/negative.h"
#include "dgnn/adam.h"
#include "dgnn/params.h"
#include "event_run.h"

int64_t event_epoch_begin(event_run *r, int64_t epoch, dgnn_progress *pg) {
    const dgnn_event_train_cfg *c = r->cfg;
    const int64_t bs = c->batch, n = r->train.num_events;
    int64_t nb = (n + bs - 1) / bs;
    if (c->max_train_batches > 0 && nb > c->max_train_batches) nb = c->max_train_batches;
    if (c->progress) {
        char label[64];
        snprintf(label, sizeof label, "epoch %lld train", (long long)epoch);
        dgnn_progress_begin(pg, label, nb * bs > n ? n : nb * bs);
    }
    return nb;
}

int event_ensure_batch(event_run *r, int64_t B, int64_t K, dgnn_err *err) {
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

/* K negatives for each of B events, drawn in the sampler's (B, K) layout into tmp, then
 * transposed into out in the model's (K, B) layout. */
int event_negatives_into(const event_run *r, int32_t *tmp, int32_t *out, int64_t B, int64_t K, int full, uint64_t seed,
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

int event_draw_negatives(event_run *r, int64_t B, int64_t K, int full, uint64_t seed, dgnn_err *err) {
    return event_negatives_into(r, r->neg, r->neg_t, B, K, full, seed, err);
}

void event_run_free(event_run *r) {
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
    free(r->pack);
    free(r->recv);
    free(r->recv_nodes);
}

int event_run_init(event_run *r, const dgnn_events *ev, const dgnn_event_train_cfg *c, dgnn_err *err) {
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
    /* the training events' index over the table's event ids: its neighbours' features are
     * the table's rows, as the full index's are (the subsets share them) */
    if ((rc = dgnn_tcsr_build_masked(&r->g_train, ev, -1, mk, DGNN_SPLIT_TRAIN, 0, err)) ||
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
    if (c->edgebank) return DGNN_OK; /* no model, no node state (event_eval.c) */
    /* JODIE's time projection divides by t + 1 (TGL's (t - t_mem) / (t + 1), nn/jodie.c):
     * zero at t = -1 (a NaN memory), sign and scale wrong below 0 */
    if (c->model.kind == DGNN_TGNN_JODIE && ev->t[0] < 0)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "jodie needs timestamps >= 0 (its time projection, TGL's (t - t_mem) / (t + 1), divides by "
                            "t + 1): this stream starts at %.17g; shift its times to start at 0",
                            ev->t[0]);
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

/* ---- running totals ---- */

static event_rank_totals my_totals(const event_run *r) {
    event_rank_totals t = {r->t_compute, r->t_sample,    r->t_comm,     r->t_prefetch, r->my_events,
                           r->state_bytes, r->grad_bytes, r->steps, r->hot_rows_sent};
    return t;
}

void event_totals_gather(const event_run *r, event_rank_totals *all) {
    event_rank_totals mine = my_totals(r);
    int64_t counts[DGNN_DIST_MAX_RANKS];
    dgnn_comm_allgatherv_bytes(all, counts, &mine, sizeof mine);
}

void event_totals_restore(event_run *r, const event_rank_totals *t) {
    r->t_compute = t->compute, r->t_sample = t->sample, r->t_comm = t->comm, r->t_prefetch = t->prefetch;
    r->my_events = t->events, r->state_bytes = t->state_bytes, r->grad_bytes = t->grad_bytes, r->steps = t->steps;
    r->hot_rows_sent = t->hot_rows;
}
