/* snap_eval.c: the snapshot trainer's validation and test (snap_train.h): the model's
 * predictions and the tasks' "repeat the last snapshot" baselines over a range of
 * samples. link: every ordered node pair of the predicted snapshot scored by the split
 * classifier, MAP and MRR as the reference logger; edge: argmax of every label edge,
 * confusion counts summed over the split; node: squared errors summed over the split. */
#include "snap_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/comm.h"
#include "dgnn/metrics.h"
#include "dgnn/nn.h"
#include "dgnn/snapmodel_cuda.h"

/* The "repeat the last snapshot" baseline for link prediction: a pair's score is its
 * weight in the sample's last input snapshot t (0 when absent), ranked against all pairs
 * of t+1 exactly as the model's scores are (same metrics, same weighting). */
static void fill_last_snapshot(float *prob, const dgnn_snapshot *g, int64_t N) {
    memset(prob, 0, (size_t)(N * N) * sizeof(float));
    for (int64_t u = 0; u < N; u++)
        for (int64_t q = g->rowptr[u]; q < g->rowptr[u + 1]; q++) prob[u * N + g->col[q]] = g->w[q];
}

/* The edge baseline's memory: the last label of every ordered pair seen so far, open
 * addressing on u N + v + 1 (0 = empty). */
typedef struct {
    uint64_t *key;
    int32_t *val;
    int64_t cap, n;
} pair_map;

static void pmap_put(pair_map *m, uint64_t key, int32_t val) {
    if (2 * (m->n + 1) > m->cap) {
        pair_map g = {NULL, NULL, m->cap ? 2 * m->cap : 1024, 0};
        g.key = dgnn_xcalloc((size_t)g.cap, sizeof *g.key);
        g.val = dgnn_xmalloc((size_t)g.cap * sizeof *g.val);
        for (int64_t i = 0; i < m->cap; i++)
            if (m->key[i]) pmap_put(&g, m->key[i], m->val[i]);
        free(m->key), free(m->val);
        *m = g;
    }
    int64_t h = (int64_t)(dgnn_hash64(key) & (uint64_t)(m->cap - 1));
    while (m->key[h] && m->key[h] != key) h = (h + 1) & (m->cap - 1);
    if (!m->key[h]) m->key[h] = key, m->n++;
    m->val[h] = val;
}

static int pmap_get(const pair_map *m, uint64_t key, int32_t *val) {
    if (!m->cap) return 0;
    int64_t h = (int64_t)(dgnn_hash64(key) & (uint64_t)(m->cap - 1));
    while (m->key[h] && m->key[h] != key) h = (h + 1) & (m->cap - 1);
    if (!m->key[h]) return 0;
    *val = m->val[h];
    return 1;
}

static void pmap_add_snapshot(pair_map *m, const snap_run *r, int64_t k) {
    const dgnn_snapshot *g = &r->snaps.snaps[k];
    for (int64_t u = 0; u < r->N; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++)
            pmap_put(m, (uint64_t)u * (uint64_t)r->N + (uint64_t)g->col[e] + 1, r->elab[r->eoff[k] + e]);
}


/* The task's metrics over samples [b, e) (see snap_train.h); baseline = 1: the
 * task's "repeat the last snapshot" predictions instead of the model's. */
int snap_evaluate(snap_run *r, int64_t b, int64_t e, snap_eval_metrics *out, snap_totals *tot, const char *what,
                  dgnn_err *err, int baseline) {
    const int64_t N = r->N, W = r->W;
    out->map = out->mrr = out->f1 = out->precision = out->recall = out->mse = NAN;
    const int dev = r->dev && !baseline; /* the model on the GPU: its forward, scores and metrics there */
    if (r->task == DGNN_SNAP_TASK_LINK && !r->prob && !dev) { /* snap_run_setup grants them; a caller of its own may not */
        int rc = snap_run_alloc_scores(r, err);
        if (rc) return rc;
    }
    int64_t n = e > b ? e - b : 0;
    double *ap = dgnn_xmalloc((size_t)(n ? n : 1) * sizeof(double)), *rr = dgnn_xmalloc((size_t)(n ? n : 1) * sizeof(double));
    double *wt = dgnn_xmalloc((size_t)(n ? n : 1) * sizeof(double)), *wr = dgnn_xmalloc((size_t)(n ? n : 1) * sizeof(double));
    /* edge: predictions and truths of every label edge of the split, in order */
    int32_t *epred = NULL, *etrue = NULL;
    int64_t ne = 0;
    if (r->task == DGNN_SNAP_TASK_EDGE) {
        int64_t tot_e = r->eoff[e] - r->eoff[b];
        epred = dgnn_xmalloc((size_t)(tot_e ? tot_e : 1) * sizeof(int32_t));
        etrue = dgnn_xmalloc((size_t)(tot_e ? tot_e : 1) * sizeof(int32_t));
    }
    pair_map last = {NULL, NULL, 0, 0};
    if (r->task == DGNN_SNAP_TASK_EDGE && baseline)
        for (int64_t k = 0; k < b; k++) pmap_add_snapshot(&last, r, k);
    double sq = 0;
    int64_t nsq = 0;
    dgnn_progress pg;
    if (r->cfg->progress) dgnn_progress_begin(&pg, what, n);
    double t0 = dgnn_now();
    int64_t m = 0, mr = 0;
    int rc = DGNN_OK;
    for (int64_t k = 0; k < n; k++) {
        int64_t idx = b + k;
        if (!baseline && !dev && (r->task != DGNN_SNAP_TASK_EDGE || r->snaps.snaps[idx].num_edges > 0)) {
            rc = dgnn_snapmodel_forward(r->model, r->H, &r->in[idx - W], W + 1, NULL, err);
            if (rc) break;
        }
        if (r->task == DGNN_SNAP_TASK_LINK) {
            double a, q;
            if (dev) {
                if ((rc = dgnn_snapmodel_cuda_link_metrics(r->dev, idx - W, W + 1, idx + 1, &a, &q, err))) break;
            } else {
                if (baseline) fill_last_snapshot(r->prob, &r->snaps.snaps[idx], N);
                else if ((rc = dgnn_snapmodel_edge_prob_rows(r->model, r->prob, r->H, 0, N, err))) break;
                dgnn_snap_link_metrics(&a, &q, r->prob, &r->snaps.snaps[idx + 1], r->label);
            }
            /* calc_epoch_metric: weighted by the sample's pair count, N^2 for every one */
            if (!isnan(a)) ap[m] = a, wt[m++] = (double)(N * N);
            if (!isnan(q)) rr[mr] = q, wr[mr++] = (double)(N * N);
            tot->eval_pairs += N * N;
        } else if (r->task == DGNN_SNAP_TASK_EDGE) {
            const dgnn_snapshot *g = &r->snaps.snaps[idx];
            const int64_t M = g->num_edges;
            const int32_t *lab = r->elab + r->eoff[idx];
            if (M > 0) {
                if ((rc = snap_ensure_pairs(r, M, err))) break;
                snap_entries_as_pairs(r, g);
                if (baseline) {
                    for (int64_t i = 0; i < M; i++) {
                        int32_t v;
                        uint64_t key = (uint64_t)r->psrc[i] * (uint64_t)N + (uint64_t)r->pdst[i] + 1;
                        epred[ne + i] = pmap_get(&last, key, &v) ? v : r->majority;
                    }
                    pmap_add_snapshot(&last, r, idx);
                } else {
                    if (dev) rc = dgnn_snapmodel_cuda_logits(r->dev, idx - W, W + 1, r->psrc, r->pdst, M, r->logits, err);
                    else rc = dgnn_snapmodel_edge_forward(r->model, r->logits, r->H, r->psrc, r->pdst, M, err);
                    if (rc) break;
                    /* torch's argmax: the first of equal maxima */
                    for (int64_t i = 0; i < M; i++) epred[ne + i] = r->logits[2 * i + 1] > r->logits[2 * i];
                }
                memcpy(etrue + ne, lab, (size_t)M * sizeof(int32_t));
                ne += M;
                tot->eval_pairs += M;
            }
        } else {
            const float *y = r->ny + (idx + 1) * N;
            const float *pred = r->ny + idx * N;
            if (!baseline) {
                if (dev) {
                    if ((rc = dgnn_snapmodel_cuda_node_predict(r->dev, idx - W, W + 1, r->head.yhat, err))) break;
                } else {
                    dgnn_node_head_forward(&r->head, r->H);
                }
                pred = r->head.yhat;
            }
            for (int64_t v = 0; v < N; v++) {
                double d = (double)pred[v] - (double)y[v];
                sq += d * d;
            }
            nsq += N;
            tot->eval_pairs += N;
        }
        dgnn_comm_heartbeat(); /* distributed: the other ranks wait for rank 0's evaluation */
        if (r->cfg->progress) dgnn_progress_update(&pg, k + 1, NULL);
    }
    if (r->cfg->progress) dgnn_progress_end(&pg);
    tot->eval_seconds += dgnn_now() - t0;
    if (!rc) {
        if (r->task == DGNN_SNAP_TASK_LINK) {
            out->map = m ? dgnn_metric_weighted_mean(ap, wt, m) : NAN;
            out->mrr = mr ? dgnn_metric_weighted_mean(rr, wr, mr) : NAN;
        } else if (r->task == DGNN_SNAP_TASK_EDGE) {
            if (ne > 0) {
                dgnn_prf f = dgnn_metric_prf(epred, etrue, ne, r->f1_class);
                out->f1 = f.f1, out->precision = f.precision, out->recall = f.recall;
            }
        } else {
            out->mse = nsq ? sq / (double)nsq : NAN;
        }
    }
    free(ap), free(rr), free(wt), free(wr), free(epred), free(etrue), free(last.key), free(last.val);
    return rc;
}

/* The validation figure early stopping maximizes: MAP, F1, or minus the MSE. */
double snap_val_score(const snap_run *r, const snap_eval_metrics *m) {
    if (r->task == DGNN_SNAP_TASK_EDGE) return m->f1;
    if (r->task == DGNN_SNAP_TASK_NODE) return -m->mse;
    return m->map;
}
