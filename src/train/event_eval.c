/* event_eval.c: the event trainer's evaluation passes (event_run.h).
 *
 * A pass walks a split's events in batches. For each batch it scores, in this order:
 *  1. DyGLib's historical and inductive negative edges (both endpoints replaced;
 *     eval_neg.h), when asked;
 *  2. TGB's candidate destinations of each positive (its row of the list), in chunks of
 *     columns so that a forward never holds more than ~kChunkRoots roots;
 *  3. the positives with K random destinations (the TGN protocol; DyGLib's `random`);
 * then the batch enters the state (memory, mailboxes; EdgeBank's set): TGB's rule, test
 * data updates the state after it is scored, never a gradient. Every score is a pure
 * function of the state before the batch, so the protocols share one pass and one state
 * evolution; the forward of step 3 comes last because the commit writes what the last
 * forward computed.
 *
 * The scorer is the model (dgnn_tgnn_forward / dgnn_tgnn_commit, neighbours from all
 * events strictly before each query time) or, with cfg->edgebank, EdgeBank (edgebank.h):
 * one place decides which, the sc_* functions below. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "dgnn/tgnn_cuda.h"
#include "event_run.h"

/* Roots per forward for TGB's candidates: B (2 + C) with C candidate columns. */
static const int64_t kChunkRoots = 8192;

/* ---- the scorer: the model or EdgeBank ---- */

/* Positives [e0, e0 + B) of part and K candidate destinations cand (K, B) (the model's
 * layout): out ((1 + K) B), block 0 the positives. */
static int sc_score(event_run *r, const dgnn_events *part, int64_t e0, int64_t B, const int32_t *cand, int64_t K,
                    float *out, dgnn_err *err) {
    if (r->dev)
        return dgnn_tgnn_cuda_forward(r->dev, out, &r->st, &r->g_full, r->ev->efeat, part, e0, B, cand, K, err);
    if (!r->eb)
        return dgnn_tgnn_forward(r->model, out, &r->st, &r->g_full, r->ev->efeat, part, e0, B, cand, K, NULL, err);
    dgnn_edgebank_score(r->eb, part->src + e0, part->dst + e0, B, out);
    for (int64_t j = 0; j < K; j++)
        dgnn_edgebank_score(r->eb, part->src + e0, cand + j * B, B, out + (1 + j) * B);
    return DGNN_OK;
}

/* Pairs (src[i], dst[i]) at the times of events e0 + i of part: out (B); tmp (2 B). */
static int sc_pairs(event_run *r, const dgnn_events *part, int64_t e0, int64_t B, int32_t *src, int32_t *dst,
                    float *out, dgnn_err *err) {
    if (r->eb) {
        dgnn_edgebank_score(r->eb, src, dst, B, out);
        return DGNN_OK;
    }
    /* a view of the batch with the negative edges' endpoints: the times (and edge
     * features, which only a commit reads) are the positives' */
    dgnn_events v = dgnn_events_slice(part, e0, B);
    v.src = src, v.dst = dst;
    v.label = NULL, v.ext_roll = NULL;
    if (r->dev) return dgnn_tgnn_cuda_forward(r->dev, out, &r->st, &r->g_full, r->ev->efeat, &v, 0, B, NULL, 0, err);
    return dgnn_tgnn_forward(r->model, out, &r->st, &r->g_full, r->ev->efeat, &v, 0, B, NULL, 0, NULL, err);
}

/* The batch enters the state (after sc_score of the same batch, the last forward). */
static int sc_observe(event_run *r, const dgnn_events *part, int64_t e0, int64_t B, dgnn_err *err) {
    if (r->eb) return dgnn_edgebank_add(r->eb, part->src + e0, part->dst + e0, B, err);
    if (r->dev) return dgnn_tgnn_cuda_commit(r->dev, &r->st, part, err);
    dgnn_tgnn_commit(r->model, &r->st, part);
    return DGNN_OK;
}

/* On a GPU (r->dev) the state's rows are the device's: brought to the host before the
 * copy, sent back after the restore (tgnn_cuda.h). */
int event_eval_save(event_run *r, dgnn_err *err) {
    if (r->eb) return dgnn_edgebank_copy(r->eb_backup, r->eb, err);
    int rc = r->dev ? dgnn_tgnn_cuda_pull(r->dev, &r->st, NULL, err) : DGNN_OK;
    if (!rc) dgnn_state_copy(&r->st_backup, &r->st);
    return rc;
}

int event_eval_restore(event_run *r, dgnn_err *err) {
    if (r->eb) return dgnn_edgebank_copy(r->eb, r->eb_backup, err);
    dgnn_state_copy(&r->st, &r->st_backup);
    return r->dev ? dgnn_tgnn_cuda_push(r->dev, &r->st, NULL, err) : DGNN_OK;
}

/* ---- set-up ---- */

/* The event range [*first, *first + n) the split's events occupy in ev: TGB's lists and
 * their history need a contiguous, chronological split. */
static int split_range(const event_run *r, int bit, const char *what, int64_t *first, int64_t *n, dgnn_err *err) {
    int64_t *idx = NULL, m = 0;
    int rc = dgnn_split_indices(&idx, &m, &r->split, bit, err);
    if (rc) return rc;
    *first = m ? idx[0] : 0, *n = m;
    const int ok = m == 0 || idx[m - 1] - idx[0] == m - 1;
    free(idx);
    if (!ok)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--protocol tgb: the %s events are not one block of the time-sorted stream (a split by "
                            "ext_roll that interleaves them?): TGB's lists need a chronological split (--split time)",
                            what);
    return DGNN_OK;
}

/* One split's list: read from path when it exists, else generated and written there.
 * TGB's history is the training split for both lists (its NegativeEdgeGenerator): the
 * validation list is generated over ev (the events before validation are the training
 * period), the test list over the training events followed by the test events. */
static int tgb_list(event_run *r, dgnn_tgb_negs *out, const char *path, int bit, const dgnn_events *part,
                    const char *what, dgnn_err *err) {
    const dgnn_eval_protocol *pr = &r->cfg->protocol;
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "--protocol tgb: no path for the %s negatives", what);
    if (access(path, F_OK) == 0) {
        int rc = dgnn_tgb_negs_read(out, path, r->ev, part->num_events, part->dst, err);
        if (!rc) dgnn_log("%s negatives: %s (%lld candidates per positive)\n", what, path, (long long)out->k);
        return rc;
    }
    int64_t first, n;
    int rc = split_range(r, bit, what, &first, &n, err);
    if (rc) return rc;
    if (bit == DGNN_SPLIT_VAL) {
        rc = dgnn_tgb_negs_generate(out, r->ev, first, n, pr->tgb_k, pr->tgb_seed + (uint64_t)bit, err);
    } else {
        dgnn_events hist;
        rc = dgnn_events_subset(&hist, r->ev, r->split.mask, DGNN_SPLIT_TRAIN | DGNN_SPLIT_TEST, err);
        if (!rc) rc = dgnn_tgb_negs_generate(out, &hist, r->train.num_events, n, pr->tgb_k, pr->tgb_seed + (uint64_t)bit,
                                             err);
        dgnn_events_free(&hist);
    }
    if (!rc) rc = dgnn_tgb_negs_write(out, path, r->ev, err);
    if (!rc)
        dgnn_log("%s negatives: none at %s; generated TGB-style (%lld per positive, half historical, half random, "
                 "seed %llu) and written there\n",
                 what, path, (long long)pr->tgb_k, (unsigned long long)pr->tgb_seed);
    return rc;
}

int event_eval_setup(event_run *r, dgnn_err *err) {
    const dgnn_event_train_cfg *c = r->cfg;
    int rc = DGNN_OK;
    if (c->edgebank) {
        if ((rc = dgnn_edgebank_init(&r->eb, err)) || (rc = dgnn_edgebank_init(&r->eb_backup, err))) return rc;
        /* unlimited memory: every training event */
        if ((rc = dgnn_edgebank_add(r->eb, r->train.src, r->train.dst, r->train.num_events, err))) return rc;
    }
    if (c->skip_eval) return DGNN_OK;
    /* DyGLib's test samplers: the observed period (whose edges are not inductive) ends
     * with the last validation event */
    if (c->protocol.dyglib &&
        (rc = dgnn_edge_history_build(&r->hist, r->ev, r->split.val_end > 0 ? r->ev->t[r->split.val_end - 1]
                                                                             : -INFINITY, err)))
        return rc;
    if (c->protocol.tgb) {
        if ((rc = tgb_list(r, &r->tgb_val, c->protocol.tgb_val, DGNN_SPLIT_VAL, &r->val, "validation", err)) ||
            (rc = tgb_list(r, &r->tgb_test, c->protocol.tgb_test, DGNN_SPLIT_TEST, &r->test, "test", err)))
            return rc;
    }
    return DGNN_OK;
}

void event_eval_free(event_run *r) {
    dgnn_edgebank_free(r->eb);
    dgnn_edgebank_free(r->eb_backup);
    dgnn_tgb_negs_free(&r->tgb_val);
    dgnn_tgb_negs_free(&r->tgb_test);
    dgnn_edge_history_free(r->hist);
    r->eb = r->eb_backup = NULL, r->hist = NULL;
}

/* ---- a pass ---- */

typedef struct {
    float *logits;  /* (B (2 + C)) a TGB chunk's scores */
    int32_t *cand;  /* (C B) a chunk's candidates, the model's layout */
    float *tneg;    /* (B k) TGB candidate scores, the metric's rows */
    int64_t *nk;    /* (B) real candidates per row */
    int32_t *nsrc, *ndst; /* (B) a strategy's negative edges */
    float *hneg;    /* (DGNN_NEGS_N B) their scores */
} pass_buf;

/* TGB: the candidates of rows [e0, e0 + B) scored into b->tneg / b->nk. A row's padding
 * (-1) is at its end; it is scored as the row's source (any node would do) and left out
 * of the rank by nk. */
static int tgb_scores(event_run *r, const dgnn_events *part, int64_t e0, int64_t B, const dgnn_tgb_negs *L,
                      int64_t C, pass_buf *b, dgnn_err *err) {
    const int64_t k = L->k;
    for (int64_t i = 0; i < B; i++) {
        const int32_t *row = L->cand + (e0 + i) * k;
        int64_t m = 0;
        while (m < k && row[m] >= 0) m++;
        b->nk[i] = m;
    }
    for (int64_t c0 = 0; c0 < k; c0 += C) {
        const int64_t cw = c0 + C <= k ? C : k - c0;
        for (int64_t j = 0; j < cw; j++)
            for (int64_t i = 0; i < B; i++) {
                const int32_t v = L->cand[(e0 + i) * k + c0 + j];
                b->cand[j * B + i] = v >= 0 ? v : part->src[e0 + i];
            }
        int rc = sc_score(r, part, e0, B, b->cand, cw, b->logits, err);
        if (rc) return rc;
        for (int64_t j = 0; j < cw; j++)
            for (int64_t i = 0; i < B; i++) b->tneg[i * k + c0 + j] = b->logits[(1 + j) * B + i];
    }
    return DGNN_OK;
}

int event_eval_run(event_run *r, const dgnn_events *part, event_eval_pass *p, const char *what, dgnn_err *err) {
    const int64_t bs = r->cfg->batch, K = p->K < 1 ? 1 : p->K;
    /* --eval-max-events: the split's first events only (a prefix keeps the protocol's order) */
    const int64_t n = r->cfg->max_eval_events > 0 && r->cfg->max_eval_events < part->num_events
                          ? r->cfg->max_eval_events : part->num_events;
    const dgnn_tgb_negs *L = p->tgb;
    if (L && L->rows != part->num_events)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: the TGB list has %lld rows for %lld events", what,
                            (long long)L->rows, (long long)part->num_events);
    const int dyg = p->dyglib && r->hist;
    const int64_t k = L ? L->k : 0;
    int64_t C = L ? kChunkRoots / (bs > 0 ? bs : 1) - 2 : 0;
    if (L && C < 1) C = 1;
    if (L && C > k) C = k;
    pass_buf b = {0};
    dgnn_alloc_set as = {0, 0};
    if (L) {
        DGNN_GROW(&as, b.logits, bs * (2 + C));
        DGNN_GROW(&as, b.cand, bs * C);
        DGNN_GROW(&as, b.tneg, bs * (k > 0 ? k : 1));
        DGNN_GROW(&as, b.nk, bs);
    }
    if (dyg) {
        DGNN_GROW(&as, b.nsrc, bs);
        DGNN_GROW(&as, b.ndst, bs);
        DGNN_GROW(&as, b.hneg, DGNN_NEGS_N * bs);
    }
    int rc = dgnn_alloc_done(&as, err, "the %s scores of a batch of %lld events", what, (long long)bs);
    double ap_sum[DGNN_NEGS_N] = {0}, auc_sum[DGNN_NEGS_N] = {0}, rr_sum = 0;
    int64_t n_ap[DGNN_NEGS_N] = {0}, n_rr = 0;
    dgnn_rank_acc acc;
    memset(&acc, 0, sizeof acc);
    dgnn_progress pg;
    const int shown = !rc && r->cfg->progress;
    if (shown) dgnn_progress_begin(&pg, what, n);
    const int64_t nb = (n + bs - 1) / bs;
    for (int64_t bi = 0; !rc && bi < nb; bi++) {
        const int64_t e0 = bi * bs, B = e0 + bs <= n ? bs : n - e0;
        /* 1. DyGLib's negative edges */
        for (int s = DGNN_NEGS_HISTORICAL; dyg && !rc && s < DGNN_NEGS_N; s++) {
            rc = dgnn_neg_edges(r->hist, (dgnn_neg_strategy)s, part->src + e0, part->dst + e0, part->t + e0, B,
                                event_stream_seed(p->seed ^ (0x5d79676cULL * (uint64_t)s), -1, bi), b.nsrc, b.ndst,
                                err);
            if (!rc) rc = sc_pairs(r, part, e0, B, b.nsrc, b.ndst, b.hneg + s * B, err);
        }
        /* 2. TGB's candidates */
        if (!rc && L && k > 0) rc = tgb_scores(r, part, e0, B, L, C, &b, err);
        /* 3. the positives and the random destinations, the last forward before the commit */
        if (!rc) rc = event_ensure_batch(r, B, K, err);
        if (!rc) rc = event_draw_negatives(r, B, K, 1, event_stream_seed(p->seed, -1, bi), err);
        if (!rc) rc = sc_score(r, part, e0, B, r->neg_t, K, r->logits, err);
        if (rc) break;
        const float *pos = r->logits;
        double a, u;
        dgnn_metric_ap_auc_pn(pos, B, pos + B, B, &a, &u);
        if (isfinite(a)) ap_sum[0] += a, auc_sum[0] += u, n_ap[0]++;
        for (int s = DGNN_NEGS_HISTORICAL; dyg && s < DGNN_NEGS_N; s++) {
            dgnn_metric_ap_auc_pn(pos, B, b.hneg + s * B, B, &a, &u);
            if (isfinite(a)) ap_sum[s] += a, auc_sum[s] += u, n_ap[s]++;
        }
        if (p->want_mrr) {
            /* the model's (K, B) negative blocks to the metric's (B, K) rows */
            for (int64_t i = 0; i < B; i++)
                for (int64_t j = 0; j < K; j++) r->dlogits[i * K + j] = r->logits[(1 + j) * B + i];
            rr_sum += dgnn_metric_mrr(r->logits, r->dlogits, B, K) * (double)B;
            n_rr += B;
        }
        if (L && k > 0) dgnn_rank_acc_add(&acc, pos, b.tneg, b.nk, B, k);
        rc = sc_observe(r, part, e0, B, err);
        dgnn_comm_heartbeat(); /* distributed: the other ranks wait for rank 0's evaluation */
        if (r->cfg->progress) dgnn_progress_update(&pg, e0 + B, NULL);
    }
    if (shown) dgnn_progress_end(&pg);
    free(b.logits), free(b.cand), free(b.tneg), free(b.nk), free(b.nsrc), free(b.ndst), free(b.hneg);
    if (rc) return rc;
    for (int s = 0; s < DGNN_NEGS_N; s++) {
        p->s_ap[s] = n_ap[s] ? ap_sum[s] / (double)n_ap[s] : NAN;
        p->s_auc[s] = n_ap[s] ? auc_sum[s] / (double)n_ap[s] : NAN;
    }
    p->ap = p->s_ap[0], p->auc = p->s_auc[0];
    p->mrr = n_rr ? rr_sum / (double)n_rr : NAN;
    p->t_mrr = p->t_hits1 = p->t_hits3 = p->t_hits10 = NAN;
    if (L) dgnn_rank_acc_result(&acc, &p->t_mrr, &p->t_hits1, &p->t_hits3, &p->t_hits10);
    return DGNN_OK;
}
