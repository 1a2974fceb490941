/* snap_train.c: the training loop of the snapshot-based models on link prediction and
 * edge classification (EvolveGCN's protocol) and node regression (PyG-Temporal data); see
 * train_snapshot.h for what is done and why.
 *
 * Per run: the snapshots, and for each of them the node input (one-hot degree, or the
 * node task's dense features), the node mask (-H's TopK candidates), the model's input
 * view and the task's labels, all built once. Per training sample: model forward over its
 * W + 1 snapshots, then
 *   link: the label snapshot's edges and sampled non-edges through the pair classifier,
 *   edge: the last input snapshot's edges through the pair classifier,
 *         each with the weighted cross-entropy;
 *   node: the head Linear -> ReLU -> Linear on every node, MSE against y_{idx+1};
 * backward, Adam every K samples. Per evaluated sample: the same forward without
 * randomness; link: every one of the N^2 pairs scored by the split classifier
 * (snapmodel.h) and the logger's MAP and MRR; edge: argmax of every label edge, confusion
 * counts summed over the split; node: squared errors summed over the split.
 *
 * Randomness is keyed, not carried: negatives and RReLU slopes of sample idx in epoch e
 * come from streams of (seed, e, idx), so a checkpoint needs no generator state and a run
 * does not depend on the thread count, nor on which rank trains the sample.
 *
 * DyGNeX (cfg.dist): snap_dist.c's snapt_train_epoch_dist replaces train_epoch and takes
 * its schedule from there; rank 0 evaluates (snap_eval.c), checkpoints and reports. The
 * run's state (run_t) and the functions the three files share: snap_train_internal.h. */
#include "snap_train_internal.h"

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
#include "dgnn/nn.h"
#include "dgnn/optim.h"
#include "dgnn/params.h"
#include "dgnn/snapshot_graph.h"

/* ---- configuration ------------------------------------------------------------------ */

dgnn_snap_train_cfg dgnn_snap_train_cfg_default(dgnn_snapmodel_kind kind) {
    dgnn_snap_train_cfg c;
    memset(&c, 0, sizeof c);
    c.model = dgnn_snapmodel_cfg_default(kind);
    c.windows_per_step = 1;
    c.seed = 1234;
    c.progress = 1;
    dgnn_snap_train_preset(&c, "bitcoin-alpha", NULL);
    return c;
}

int dgnn_snap_train_preset(dgnn_snap_train_cfg *c, const char *name, dgnn_err *err) {
    const int h = c->model.kind == DGNN_SNAPMODEL_EGCN_H;
    if (c->task == DGNN_SNAP_TASK_EDGE) {
        if (strcmp(name, "bitcoin-alpha") != 0 && strcmp(name, "bc-alpha") != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' for --task edge (bitcoin-alpha)", name);
        /* parameters_bitcoin_alpha_edgecls_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 1200000;
        c->snapshot_count = 0;
        c->window = 10;
        c->model.hidden = h ? 100 : 122;
        c->model.cls_hidden = h ? 200 : 77;
        c->class_w[0] = 0.8f;
        c->class_w[1] = 0.2f;
        c->lr = 0.001;
        c->neg_mult = 0; /* no sampling: every label edge is a pair */
        c->train_frac = 0.7;
        c->val_frac = 0.1;
        c->epochs = 1000;
        c->patience = 100;
        c->skip_val_epochs = 6;
        return DGNN_OK;
    }
    if (c->task == DGNN_SNAP_TASK_NODE) {
        if (strcmp(name, "pgt") != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' for --task node (pgt)", name);
        /* no reference configuration: one snapshot per period, a window of 8 snapshots as
         * PGT's 8 lags, small widths for tables of ~100-1000 nodes */
        c->snapshot_seconds = 0;
        c->snapshot_count = 0;
        c->window = 7;
        c->model.hidden = 32;
        c->model.cls_hidden = 32;
        c->class_w[0] = c->class_w[1] = 1.0f;
        c->lr = 0.01;
        c->neg_mult = 0;
        c->train_frac = 0.7;
        c->val_frac = 0.1;
        c->epochs = 200;
        c->patience = 20;
        c->skip_val_epochs = 0;
        return DGNN_OK;
    }
    /* shared by both reference configurations */
    c->snapshot_count = 0;
    c->window = 10;
    c->patience = 50;
    c->skip_val_epochs = 6; /* eval_after_epochs: 5, and the check is e > 5 with e from 0 */
    c->val_frac = 0.1;
    if (strcmp(name, "bitcoin-alpha") == 0 || strcmp(name, "bc-alpha") == 0) {
        /* parameters_bitcoin_alpha_linkpred_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 1200000;
        c->model.hidden = h ? 50 : 100;
        c->model.cls_hidden = h ? 100 : 400;
        c->class_w[0] = h ? 0.1f : 0.05f;
        c->class_w[1] = h ? 0.9f : 0.95f;
        c->lr = 0.005;
        c->neg_mult = 100;
        c->train_frac = 0.7;
        c->epochs = 500;
        return DGNN_OK;
    }
    if (strcmp(name, "uci") == 0) {
        /* parameters_uc_irv_mess_egcn_o.yaml / _egcn_h.yaml */
        c->snapshot_seconds = 190080;
        c->model.hidden = 100;
        c->model.cls_hidden = 100;
        c->class_w[0] = 0.1f;
        c->class_w[1] = 0.9f;
        c->lr = 0.001;
        c->neg_mult = 50;
        c->train_frac = 0.71;
        c->epochs = 1000;
        return DGNN_OK;
    }
    return dgnn_err_set(err, DGNN_EINVAL, "unknown preset '%s' (bitcoin-alpha, uci)", name);
}

/* ---- pieces --------------------------------------------------------------------------- */

int64_t dgnn_snap_degree_onehot(int32_t *idx, const dgnn_snapshot *g) {
    int64_t mx = 0;
    for (int64_t u = 0; u < g->num_nodes; u++) {
        int64_t d = g->rowptr[u + 1] - g->rowptr[u];
        idx[u] = (int32_t)d;
        if (d > mx) mx = d;
    }
    return mx;
}

void dgnn_snap_split(int64_t T, int64_t W, double train_frac, double val_frac, int64_t *train_begin,
                     int64_t *train_end, int64_t *val_end, int64_t *test_end) {
    /* splitter.py multiplies a float32 max_time by the Python float proportion (float32
     * arithmetic), floors, and ends the test split at the tasker's max_time + 1 = T - 1 */
    float max_time = (float)(T - 1);
    *train_begin = W;
    *train_end = (int64_t)floorf(max_time * (float)train_frac);
    *val_end = (int64_t)floorf(max_time * (float)(train_frac + val_frac));
    *test_end = T - 1;
}

static int has_entry(const dgnn_snapshot *g, int32_t u, int32_t v) {
    int64_t lo = g->rowptr[u], hi = g->rowptr[u + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->col[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->rowptr[u + 1] && g->col[lo] == v;
}

int64_t dgnn_snap_neg_pool(int32_t *pool, const uint8_t *mask, int64_t N, int64_t first, int64_t last,
                           int all_nodes) {
    int64_t np = 0;
    if (all_nodes)
        for (int64_t v = 0; v < N; v++) pool[np++] = (int32_t)v;
    else
        for (int64_t s = first; s <= last; s++)
            for (int64_t v = 0; v < N; v++)
                if (mask[s * N + v]) pool[np++] = (int32_t)v;
    return np;
}

int64_t dgnn_snap_link_negatives(int32_t *src, int32_t *dst, int64_t want, const dgnn_snapshot *g,
                                 const int32_t *pool, int64_t npool, dgnn_rng *rng) {
    const int64_t E = g->num_edges, N = g->num_nodes;
    /* get_non_existing_edges: min(number, E (E - 1) - len(true_ids)) */
    double cap = (double)E * (double)(E - 1) - (double)E;
    int64_t num = (double)want < cap ? want : (int64_t)(cap > 0 ? cap : 0);
    if (num <= 0 || npool <= 0 || E <= 0) return 0;
    /* pairs already drawn: open addressing on u N + v + 1 (0 = empty) */
    int64_t hcap = 16;
    while (hcap < 2 * num) hcap *= 2;
    uint64_t *set = dgnn_xcalloc((size_t)hcap, sizeof *set);
    int64_t n = 0;
    /* the row of every entry: sources are drawn as entries, so by degree */
    int32_t *row = dgnn_xmalloc((size_t)E * sizeof(int32_t));
    for (int64_t u = 0; u < N; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) row[e] = (int32_t)u;
    for (int64_t i = 0; i < 4 * num && n < num; i++) {
        int32_t u = row[dgnn_rng_below(rng, (uint64_t)E)];
        int32_t v = pool[dgnn_rng_below(rng, (uint64_t)npool)];
        if (u == v) continue;
        uint64_t key = (uint64_t)u * (uint64_t)N + (uint64_t)v + 1;
        int64_t h = (int64_t)(dgnn_hash64(key) & (uint64_t)(hcap - 1));
        while (set[h] && set[h] != key) h = (h + 1) & (hcap - 1);
        if (set[h] == key || has_entry(g, u, v)) continue;
        set[h] = key;
        src[n] = u;
        dst[n] = v;
        n++;
    }
    free(set);
    free(row);
    return n;
}

void dgnn_snap_link_metrics(double *ap, double *mrr, const float *prob, const dgnn_snapshot *g, int32_t *label) {
    const int64_t N = g->num_nodes, NN = N * N;
    if (g->num_edges == 0 || N == 0) {
        *ap = *mrr = NAN;
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t u = 0; u < N; u++) {
        int32_t *row = label + u * N;
        memset(row, 0, (size_t)N * sizeof(int32_t));
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) row[g->col[e]] = 1;
    }
    *ap = dgnn_metric_ap(prob, label, NN);
    /* get_MRR row by row: a row's MRR depends only on its own pairs, and in (u, 0..N-1)
     * order they are already sorted, so each call scatters nothing */
    int32_t *cols = dgnn_xmalloc((size_t)N * sizeof(int32_t));
    for (int64_t v = 0; v < N; v++) cols[v] = (int32_t)v;
    double *rm = dgnn_xmalloc((size_t)N * sizeof(double));
#pragma omp parallel
    {
        int32_t *rows = dgnn_xmalloc((size_t)N * sizeof(int32_t));
#pragma omp for schedule(dynamic, 4)
        for (int64_t u = 0; u < N; u++) {
            if (g->rowptr[u + 1] == g->rowptr[u]) {
                rm[u] = NAN;
                continue;
            }
            for (int64_t v = 0; v < N; v++) rows[v] = (int32_t)u;
            rm[u] = dgnn_evolvegcn_mrr(prob + u * N, label + u * N, rows, cols, N);
        }
        free(rows);
    }
    double s = 0;
    int64_t cnt = 0;
    for (int64_t u = 0; u < N; u++)
        if (!isnan(rm[u])) s += rm[u], cnt++;
    *mrr = cnt ? s / (double)cnt : NAN;
    free(rm);
    free(cols);
}

/* ---- the run (run_t: snap_train_internal.h) ---------------------------------------- */

static uint64_t snapt_stream_seed(uint64_t seed, uint64_t what, int64_t epoch) {
    return dgnn_hash64(dgnn_hash64(seed ^ what) + (uint64_t)epoch * 0x9e3779b97f4a7c15ULL);
}

static void run_free(run_t *r) {
    dgnn_snapshots_free(&r->snaps);
    dgnn_snapmodel_free(r->model);
    dgnn_params_free(&r->head);
    void *ptrs[] = {r->deg, r->nx, r->ny, r->mask, r->in, r->elab, r->eoff, r->hz, r->hdz, r->yhat, r->dyhat,
                    r->H, r->dH, r->psrc, r->pdst, r->plab, r->pool, r->pred, r->logits, r->dlogits, r->prob,
                    r->label, r->best_params, r->best_head, r->prof_sec, r->prof_pairs,
                    r->gwall, r->gcpu, r->acc_wall, r->acc_cpu};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    dgnn_sched_free(&r->sched);
}

/* undirected edges of a symmetric snapshot: its entries with u <= v */
static int64_t undirected_edges(const dgnn_snapshot *g) {
    int64_t n = 0;
    for (int64_t u = 0; u < g->num_nodes; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) n += g->col[e] >= u;
    return n;
}

static int setup_head(run_t *r, dgnn_err *err) {
    dgnn_params_init(&r->head);
    r->hW1 = dgnn_params_add(&r->head, "head.W1", r->C, r->L);
    r->hb1 = dgnn_params_add1(&r->head, "head.b1", r->C);
    r->hW2 = dgnn_params_add(&r->head, "head.W2", 1, r->C);
    r->hb2 = dgnn_params_add1(&r->head, "head.b2", 1);
    int rc = dgnn_params_alloc(&r->head, err);
    if (rc) return rc;
    /* torch.nn.Linear's initialisation, from its own stream of the model seed */
    dgnn_rng g;
    dgnn_rng_seed2(&g, r->cfg->model.seed, 0x68656164 /* "head" */);
    dgnn_params_init_torch_linear(&r->head, r->hW1, r->L, &g);
    dgnn_params_init_torch_linear(&r->head, r->hb1, r->L, &g);
    dgnn_params_init_torch_linear(&r->head, r->hW2, r->C, &g);
    dgnn_params_init_torch_linear(&r->head, r->hb2, r->C, &g);
    r->hopt = dgnn_adam_default(r->cfg->lr);
    const int64_t N = r->N;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->hz, MUL(N, r->C));
    DGNN_GROW(&as, r->hdz, MUL(N, r->C));
    DGNN_GROW(&as, r->yhat, N);
    DGNN_GROW(&as, r->dyhat, N);
    DGNN_GROW(&as, r->best_head, r->head.total);
    return dgnn_alloc_done(&as, err, "the node head's activations (%lld nodes x --cls-hidden %lld)", (long long)N,
                           (long long)r->C);
}

int dgnn_snap_train_cfg_check(const dgnn_snap_train_cfg *c, dgnn_err *err) {
    if (c->task != DGNN_SNAP_TASK_LINK && c->task != DGNN_SNAP_TASK_EDGE && c->task != DGNN_SNAP_TASK_NODE)
        return dgnn_err_set(err, DGNN_EINVAL, "snapshot training: unknown task %d", (int)c->task);
    if (c->window < 0 || c->windows_per_step < 1 || c->epochs < 0 || !(c->lr > 0) || !isfinite(c->lr) ||
        c->neg_mult < 0 || c->patience < 0 || c->skip_val_epochs < 0 || c->max_train_windows < 0 || c->threads < 0 ||
        !(c->class_w[0] >= 0) || !(c->class_w[1] >= 0))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "snapshot training: need --window >= 0, --windows-per-step >= 1, --epochs >= 0, --lr > 0, "
                            "negatives >= 0, patience >= 0, --max-windows >= 0, class weights >= 0");
    if (!(c->train_frac > 0 && c->train_frac < 1) || !(c->val_frac >= 0 && c->val_frac < 1) ||
        !(c->train_frac + c->val_frac < 1))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--train-frac (%g) and --val-frac (%g) must leave a test part: 0 < train, 0 <= val, "
                            "train + val < 1", c->train_frac, c->val_frac);
    if (c->epochs > 1024) return dgnn_err_set(err, DGNN_EINVAL, "--epochs: at most 1024");
    return DGNN_OK;
}

/* Samples [b, e) of a part: DGNN_EINVAL when none of them has anything to learn from or
 * to score (snapt_sample_trains: the edges of its label snapshot), which would train
 * nothing or report NaN as the part's metric. */
static int check_part(const run_t *r, const char *part, int64_t b, int64_t e, dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    if (e <= b)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%lld snapshots leave no %s sample (--window %lld, train fraction %g, validation "
                            "fraction %g: training samples %lld..%lld, validation to %lld, test to %lld); use more or "
                            "shorter snapshots, a smaller --window or other fractions",
                            (long long)r->T, part, (long long)r->W, c->train_frac, c->val_frac, (long long)r->tb,
                            (long long)r->te - 1, (long long)r->ve - 1, (long long)r->xe - 1);
    for (int64_t idx = b; idx < e; idx++)
        if (snapt_sample_trains(r, idx)) return DGNN_OK;
    const int one = e - b == 1, edge = r->task == DGNN_SNAP_TASK_EDGE;
    return dgnn_err_set(err, DGNN_EINVAL,
                        "%s %lld %s sample%s (%lld..%lld) %s no edges: nothing to %s; use longer or fewer snapshots",
                        one ? "the" : "all", (long long)(e - b), part, one ? "" : "s", (long long)b, (long long)e - 1,
                        edge ? (one ? "has" : "have") : (one ? "predicts a snapshot with" : "predict snapshots with"),
                        strcmp(part, "training") == 0 ? "learn from" : "score");
}

/* The (N, N) scores and labels of link evaluation. */
int snapt_alloc_scores(run_t *r, dgnn_err *err) {
    const int64_t NN = dgnn_size_mul(r->N, r->N);
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->prob, NN);
    DGNN_GROW(&as, r->label, NN);
    return dgnn_alloc_done(&as, err, "scoring all %lld x %lld node pairs of a snapshot (link prediction's validation "
                           "and test); --no-eval trains without them", (long long)r->N, (long long)r->N);
}

static int run_setup(run_t *r, const dgnn_events *ev, const dgnn_snap_train_cfg *c, dgnn_err *err) {
    memset(r, 0, sizeof *r);
    dgnn_params_init(&r->head);
    r->ev = ev;
    r->cfg = c;
    r->task = c->task;
    int rc = dgnn_snap_train_cfg_check(c, err);
    if (rc) return rc;
    if (c->task == DGNN_SNAP_TASK_EDGE && (ev->edge_dim < 1 || !ev->efeat))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--task edge needs a signed rating per event as edge-feature column 0 (bitcoin-alpha's "
                            "RATING, read as the edge list's weight column); the data has no edge features");
    if (c->task == DGNN_SNAP_TASK_NODE && (ev->num_periods <= 0 || ev->period_y_dim <= 0 || !ev->period_y))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--task node needs per-snapshot node targets (a PyG-Temporal json file with y, e.g. "
                            "england_covid.json); the data has none");
    dgnn_snapshot_opts so = dgnn_snapshot_opts_default();
    so.seconds = c->snapshot_seconds;
    so.count = c->snapshot_count;
    so.symmetric = 1; /* the reference appends every edge reversed */
    /* PGT tables carry the edge weight as feature column 0; bitcoin's column 0 is the
     * rating, a label, not a weight (the reference's A counts ratings) */
    so.weight_from_feature = c->task == DGNN_SNAP_TASK_NODE && ev->edge_dim >= 1;
    if ((rc = dgnn_snapshots_build(&r->snaps, ev, &so, err))) return rc;
    if (c->task == DGNN_SNAP_TASK_NODE && (r->snaps.mode != DGNN_SNAP_PERIODS || r->snaps.count != ev->num_periods))
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--task node reads one snapshot per period of the file (its targets are per period): "
                            "leave out --snapshot-seconds and --snapshots");
    r->T = r->snaps.count, r->N = ev->num_nodes, r->W = c->window, r->L = c->model.hidden, r->C = c->model.cls_hidden;
    dgnn_snap_split(r->T, r->W, c->train_frac, c->val_frac, &r->tb, &r->te, &r->ve, &r->xe);
    if (c->task == DGNN_SNAP_TASK_EDGE) r->xe = r->T; /* edge tasker: max_time = the data's */
    if (r->te <= r->tb)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%lld snapshots leave no training sample: a sample needs the %lld snapshots before it "
                            "(--window %lld) and training ends at snapshot %lld (train fraction %g); use shorter "
                            "snapshots or a smaller window",
                            (long long)r->T, (long long)r->W, (long long)r->W, (long long)r->te, c->train_frac);
    /* a part with nothing in it would train nothing ("train loss nan (0 samples)") or
     * report NaN as its metric: refused before training */
    int64_t ntrain = r->te - r->tb;
    if (c->max_train_windows > 0 && ntrain > c->max_train_windows) ntrain = c->max_train_windows;
    if ((rc = check_part(r, "training", r->tb, r->tb + ntrain, err))) return rc;
    if (!c->skip_eval && ((rc = check_part(r, "validation", r->te, r->ve, err)) ||
                          (rc = check_part(r, "test", r->ve, r->xe, err))))
        return rc;
    const int64_t T = r->T, N = r->N;
    /* the buffers sized by the snapshots and the widths, asked for before any is filled */
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->mask, MUL(T, N));
    DGNN_GROW_ZEROED(&as, r->in, T);
    if (c->task != DGNN_SNAP_TASK_NODE) DGNN_GROW(&as, r->deg, MUL(T, N));
    DGNN_GROW(&as, r->H, MUL(N, r->L));
    DGNN_GROW(&as, r->dH, MUL(N, r->L));
    DGNN_GROW(&as, r->pool, MUL(r->W + 1, N));
    if ((rc = dgnn_alloc_done(&as, err, "the snapshot trainer's buffers (%lld snapshots x %lld nodes, hidden %lld, "
                              "--window %lld); lower --hidden or --window, or use fewer snapshots",
                              (long long)T, (long long)N, (long long)r->L, (long long)r->W)))
        return rc;
    dgnn_snapmodel_cfg mc = c->model;
    mc.num_nodes = N;
    mc.num_classes = 2;
    if (c->task == DGNN_SNAP_TASK_NODE) {
        int64_t D;
        if ((rc = dgnn_snap_node_data(&r->nx, &D, &r->ny, ev, err))) return rc;
        r->V = D;
        mc.onehot = 0;
        mc.cls_hidden = 1; /* the model's pair classifier is not used: keep it tiny */
    } else {
        int64_t maxdeg = 0;
        for (int64_t k = 0; k < T; k++) {
            int64_t d = dgnn_snap_degree_onehot(r->deg + k * N, &r->snaps.snaps[k]);
            if (k < T - 1 && d > maxdeg) maxdeg = d; /* get_max_degs: every snapshot but the last */
        }
        r->V = maxdeg + 1;
        mc.onehot = 1;
        /* the last snapshot can be an input of the edge task: a degree beyond the width
         * seen in the others becomes the zero input (torch would refuse the index) */
        for (int64_t i = 0; i < T * N; i++)
            if (r->deg[i] >= r->V) r->deg[i] = -1;
    }
    mc.in_dim = r->V;
    for (int64_t k = 0; k < T; k++) {
        dgnn_topk_mask_of_snapshot(r->mask + k * N, &r->snaps.snaps[k]);
        r->in[k].A = dgnn_csr_of_hat(&r->snaps.snaps[k]);
        r->in[k].At = NULL; /* symmetric */
        if (r->deg) r->in[k].feat_idx = r->deg + k * N;
        else r->in[k].feat = r->nx + k * N * r->V;
        r->in[k].mask = r->mask + k * N;
    }
    if (c->task == DGNN_SNAP_TASK_EDGE) {
        r->eoff = dgnn_xmalloc((size_t)(T + 1) * sizeof(int64_t));
        r->eoff[0] = 0;
        for (int64_t k = 0; k < T; k++) r->eoff[k + 1] = r->eoff[k] + r->snaps.snaps[k].num_edges;
        r->elab = dgnn_xmalloc((size_t)(r->eoff[T] ? r->eoff[T] : 1) * sizeof(int32_t));
        for (int64_t k = 0; k < T; k++)
            if ((rc = dgnn_snap_edge_labels(r->elab + r->eoff[k], &r->snaps.snaps[k], ev, 0, err))) return rc;
        int64_t cnt[2] = {0, 0};
        for (int64_t i = r->eoff[r->tb]; i < r->eoff[r->te]; i++) cnt[r->elab[i]]++;
        r->f1_class = cnt[0] <= cnt[1] ? 0 : 1;
        r->majority = 1 - r->f1_class;
    }
    if ((rc = dgnn_snapmodel_init(&r->model, &mc, err))) return rc;
    r->p = dgnn_snapmodel_params(r->model);
    r->opt = dgnn_adam_default(c->lr);
    DGNN_GROW(&as, r->best_params, r->p->total);
    if ((rc = dgnn_alloc_done(&as, err, "a copy of the %lld parameters", (long long)r->p->total))) return rc;
    if (c->task == DGNN_SNAP_TASK_LINK && (!c->skip_eval || c->baseline_last) && (rc = snapt_alloc_scores(r, err)))
        return rc;
    if (c->task == DGNN_SNAP_TASK_NODE && (rc = setup_head(r, err))) return rc;
    return DGNN_OK;
}

int snapt_ensure_pairs(run_t *r, int64_t M, dgnn_err *err) {
    if (M <= r->pcap) return DGNN_OK;
    const int64_t cap = dgnn_size_add(M, M / 4 + 16);
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->psrc, cap);
    DGNN_GROW(&as, r->pdst, cap);
    DGNN_GROW(&as, r->plab, cap);
    DGNN_GROW(&as, r->pred, cap);
    DGNN_GROW(&as, r->logits, MUL(2, cap));
    DGNN_GROW(&as, r->dlogits, MUL(2, cap));
    int rc = dgnn_alloc_done(&as, err, "the %lld pairs of a sample (a snapshot's edges and --negatives %lld per "
                             "edge); lower --negatives", (long long)M, (long long)r->cfg->neg_mult);
    if (rc) return rc;
    r->pcap = cap;
    return DGNN_OK;
}

/* The entries of g as pairs (torch's coalesce order (u, v)) at psrc/pdst[0..E). */
void snapt_entries_as_pairs(run_t *r, const dgnn_snapshot *g) {
    for (int64_t u = 0, i = 0; u < r->N; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++, i++) r->psrc[i] = (int32_t)u, r->pdst[i] = g->col[e];
}

/* node head forward: hz = relu(H W1^T + b1) (N, C), yhat = hz W2^T + b2 (N) */
void snapt_head_forward(run_t *r, const float *H) {
    const dgnn_params *h = &r->head;
    dgnn_linear_forward(r->hz, H, dgnn_params_get(h, r->hW1), dgnn_params_get(h, r->hb1), r->N, r->L, r->C);
    dgnn_relu_forward(r->hz, r->hz, r->N * r->C);
    dgnn_linear_forward(r->yhat, r->hz, dgnn_params_get(h, r->hW2), dgnn_params_get(h, r->hb2), r->N, r->C, 1);
}

/* the head's gradients += and dH += from dyhat (N) of the last head_forward on H */
static void head_backward(run_t *r, const float *H, float *dH) {
    const dgnn_params *h = &r->head;
    float *dr = r->hdz;
    memset(dr, 0, (size_t)(r->N * r->C) * sizeof(float));
    dgnn_linear_backward(dr, dgnn_params_grad(h, r->hW2), dgnn_params_grad(h, r->hb2), r->dyhat, r->hz,
                         dgnn_params_get(h, r->hW2), r->N, r->C, 1);
    /* relu backward in place: the mask of the saved output */
    for (int64_t i = 0; i < r->N * r->C; i++)
        if (!(r->hz[i] > 0)) dr[i] = 0;
    dgnn_linear_backward(dH, dgnn_params_grad(h, r->hW1), dgnn_params_grad(h, r->hb1), dr, H,
                         dgnn_params_get(h, r->hW1), r->N, r->L, r->C);
}

/* One training sample idx of epoch e. *pairs = 0 when it has nothing to learn from (an
 * empty label snapshot); *secs = its time (train_snapshot.h, "Profile"): negative
 * sampling, forward, loss and backward, in process CPU seconds when the run has one
 * thread (what the sample costs on a core of its own, whatever else runs on the machine),
 * else in wall seconds. */
/* The profile's clock: process CPU seconds with one thread, else wall seconds. */
static double snapt_sample_clock(void) { return omp_get_max_threads() == 1 ? dgnn_snap_cpu_seconds() : dgnn_now(); }

int snapt_train_sample(run_t *r, int64_t epoch, int64_t idx, double *loss, int64_t *pairs, double *secs,
                        dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    const int64_t N = r->N, W = r->W;
    const double t0 = snapt_sample_clock();
    *pairs = 0;
    *loss = 0;
    *secs = 0;
    int64_t M = 0;
    if (r->task == DGNN_SNAP_TASK_LINK) {
        const dgnn_snapshot *lab = &r->snaps.snaps[idx + 1];
        const int64_t E = lab->num_edges, want = MUL(E, c->neg_mult);
        if (E == 0) return DGNN_OK;
        int rc = snapt_ensure_pairs(r, dgnn_size_add(E, want), err);
        if (rc) return rc;
        snapt_entries_as_pairs(r, lab); /* positives */
        /* negatives' destinations: the nodes with an edge in each window snapshot, concatenated
         * (the reference), or every node (neg_all_nodes) */
        const int64_t np = dgnn_snap_neg_pool(r->pool, r->mask, N, idx - W, idx, c->neg_all_nodes);
        dgnn_rng rn;
        dgnn_rng_seed2(&rn, snapt_stream_seed(c->seed, 0x6e6567 /* "neg" */, epoch), (uint64_t)idx);
        int64_t nneg = dgnn_snap_link_negatives(r->psrc + E, r->pdst + E, want, lab, r->pool, np, &rn);
        M = E + nneg;
        for (int64_t i = 0; i < M; i++) r->plab[i] = i < E;
    } else if (r->task == DGNN_SNAP_TASK_EDGE) {
        const dgnn_snapshot *lab = &r->snaps.snaps[idx]; /* get_edge_labels(time = idx) */
        M = lab->num_edges;
        if (M == 0) return DGNN_OK;
        int rc = snapt_ensure_pairs(r, M, err);
        if (rc) return rc;
        snapt_entries_as_pairs(r, lab);
        memcpy(r->plab, r->elab + r->eoff[idx], (size_t)M * sizeof(int32_t));
    } else {
        M = N;
    }

    dgnn_rng rr;
    dgnn_rng_seed2(&rr, snapt_stream_seed(c->seed, 0x72726c75 /* "rrlu" */, epoch), (uint64_t)idx);
    int rc = dgnn_snapmodel_forward(r->model, r->H, &r->in[idx - W], W + 1, &rr, err);
    if (rc) return rc;
    memset(r->dH, 0, (size_t)(N * r->L) * sizeof(float));
    if (r->task == DGNN_SNAP_TASK_NODE) {
        const float *y = r->ny + (idx + 1) * N;
        snapt_head_forward(r, r->H);
        *loss = dgnn_mse_forward(r->yhat, y, N);
        if (isfinite(*loss)) {
            memset(r->dyhat, 0, (size_t)N * sizeof(float));
            dgnn_mse_backward(r->dyhat, 1.0f, r->yhat, y, N);
            head_backward(r, r->H, r->dH);
        }
    } else {
        if ((rc = dgnn_snapmodel_edge_forward(r->model, r->logits, r->H, r->psrc, r->pdst, M, err))) return rc;
        *loss = dgnn_wce_forward(r->logits, r->plab, c->class_w, M, 2);
        if (isfinite(*loss)) {
            memset(r->dlogits, 0, (size_t)(2 * M) * sizeof(float));
            dgnn_wce_backward(r->dlogits, 1.0f, r->logits, r->plab, c->class_w, M, 2);
            dgnn_snapmodel_edge_backward(r->model, r->dH, r->dlogits);
        }
    }
    if (!isfinite(*loss))
        return dgnn_err_set(err, DGNN_EINVAL, "epoch %lld, sample %lld: the loss is not finite (%g); try a lower --lr",
                            (long long)epoch, (long long)idx, *loss);
    dgnn_snapmodel_backward(r->model, r->dH);
    *secs = snapt_sample_clock() - t0;
    *pairs = M;
    return DGNN_OK;
}

/* Ends the model's group of windows (the windows of one optimizer step: wdgcn runs its
 * shared snapshots' deferred GCN backward here) and returns its time on the profile's
 * clock, which the caller adds to the group's last window. */
double snapt_end_group(run_t *r) {
    const double t0 = snapt_sample_clock();
    dgnn_snapmodel_group_end(r->model);
    return snapt_sample_clock() - t0;
}

/* One Adam step on the summed gradients (and the node head's), then zeroed gradients. */
void snapt_optimizer_step(run_t *r) {
    dgnn_adam_step_params(&r->opt, r->p);
    dgnn_params_zero_grad(r->p);
    if (r->task == DGNN_SNAP_TASK_NODE) {
        dgnn_adam_step_params(&r->hopt, &r->head);
        dgnn_params_zero_grad(&r->head);
    }
}

/* 1 when sample idx has something to learn from (train_sample's pairs > 0): known from
 * the data alone, so every rank knows whether a round's windows produce any gradient. */
int snapt_sample_trains(const run_t *r, int64_t idx) {
    if (r->task == DGNN_SNAP_TASK_LINK) return r->snaps.snaps[idx + 1].num_edges > 0;
    if (r->task == DGNN_SNAP_TASK_EDGE) return r->snaps.snaps[idx].num_edges > 0;
    return r->N > 0;
}


/* --profile: this epoch's row of n per-window seconds (zeroed), NULL when not profiling */
double *snapt_profile_epoch(run_t *r, int64_t n) {
    if (!r->cfg->profile) return NULL;
    r->prof_n = n;
    r->prof_sec = dgnn_xrealloc(r->prof_sec, (size_t)((r->prof_epochs + 1) * n) * sizeof(double));
    if (!r->prof_pairs) r->prof_pairs = dgnn_xcalloc((size_t)n, sizeof(int64_t));
    double *prof = r->prof_sec + r->prof_epochs * n;
    memset(prof, 0, (size_t)n * sizeof(double)); /* distributed: other processes' windows stay 0 */
    return prof;
}

static int train_epoch(run_t *r, int64_t epoch, dgnn_snap_epoch_result *er, run_totals *tot, dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    int64_t n = r->te - r->tb;
    if (c->max_train_windows > 0 && n > c->max_train_windows) n = c->max_train_windows;
    double *prof = snapt_profile_epoch(r, n);
    dgnn_progress pg;
    char label[64];
    snprintf(label, sizeof label, "epoch %lld train", (long long)epoch);
    if (c->progress) dgnn_progress_begin(&pg, label, n);
    double t0 = dgnn_now(), loss_sum = 0;
    int64_t done = 0, pairs_sum = 0, last = -1;
    /* the windows of one step form a group (snapmodel.h), which ends at the epoch's end too:
     * validation runs between epochs, and a step may straddle them */
    dgnn_snapmodel_group_begin(r->model);
    for (int64_t k = 0; k < n; k++) {
        int64_t idx = r->tb + k;
        double loss, secs;
        int64_t pairs;
        int rc = snapt_train_sample(r, epoch, idx, &loss, &pairs, &secs, err);
        if (rc) return rc;
        /* trainer.optim_step: a step every steps_accum_gradients samples that trained,
         * counted across epochs */
        if (pairs > 0 && ++r->tr_step % c->windows_per_step == 0) {
            secs += snapt_end_group(r);
            snapt_optimizer_step(r);
            dgnn_snapmodel_group_begin(r->model);
        }
        if (pairs > 0) last = k;
        if (prof) prof[k] = secs, r->prof_pairs[k] = pairs;
        if (pairs > 0) {
            loss_sum += loss;
            done++;
            pairs_sum += pairs;
            tot->windows++;
            tot->snapshots += r->W + 1;
            for (int64_t s = idx - r->W; s <= idx; s++)
                tot->events += r->snaps.snaps[s].ev_end - r->snaps.snaps[s].ev_begin;
        }
        if (c->progress) {
            char extra[48];
            snprintf(extra, sizeof extra, "loss %.4f", done ? loss_sum / (double)done : 0.0);
            dgnn_progress_update(&pg, k + 1, extra);
        }
    }
    const double tail = snapt_end_group(r);
    if (prof && last >= 0) prof[last] += tail;
    if (c->progress) dgnn_progress_end(&pg);
    if (prof) r->prof_epochs++;
    er->train_loss = done ? loss_sum / (double)done : NAN;
    er->train_seconds = dgnn_now() - t0;
    er->train_windows = done;
    er->train_pairs = pairs_sum;
    tot->train_seconds += er->train_seconds;
    return DGNN_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The profile's rows from the epochs run: samples that ran, median seconds. */
static void fill_profile(run_t *r, dgnn_snap_profile *p) {
    dgnn_snap_profile_free(p);
    snprintf(p->model, sizeof p->model, "%s", dgnn_snapmodel_name(r->cfg->model.kind));
    p->epochs = r->prof_epochs;
    if (r->prof_epochs == 0 || r->prof_n == 0) return;
    const int64_t n = r->prof_n, E = r->prof_epochs, N = r->N;
    p->rows = dgnn_xcalloc((size_t)n, sizeof *p->rows);
    double *s = dgnn_xmalloc((size_t)E * sizeof *s);
    int64_t *und = dgnn_xmalloc((size_t)r->T * sizeof *und);
    for (int64_t k = 0; k < r->T; k++) und[k] = undirected_edges(&r->snaps.snaps[k]);
    for (int64_t k = 0; k < n; k++) {
        if (r->prof_pairs[k] <= 0) continue;
        const int64_t idx = r->tb + k;
        dgnn_snap_profile_row *row = &p->rows[p->count++];
        row->sample = idx;
        for (int64_t v = 0; v < N; v++) row->nodes += r->mask[idx * N + v];
        row->edges = und[idx];
        for (int64_t q = idx - r->W; q <= idx; q++) row->edges_window += und[q];
        row->label_pairs = r->prof_pairs[k];
        row->in_dim = r->V;
        row->hidden = r->L;
        for (int64_t e = 0; e < E; e++) s[e] = r->prof_sec[e * n + k];
        qsort(s, (size_t)E, sizeof *s, cmp_double);
        row->seconds = E % 2 ? s[E / 2] : 0.5 * (s[E / 2 - 1] + s[E / 2]);
    }
    free(s);
    free(und);
}

/* ---- checkpoints ----------------------------------------------------------------------
 * <dir>/checkpoint.dgnnckpt, rewritten atomically after every epoch: parameters, Adam
 * state, the gradient slab (with windows_per_step > 1 a step may straddle epochs), the
 * best parameters, the node head's slabs (node task), the results so far, a fingerprint
 * of the settings that must not change on --resume, and the run record (checkpoint.h:
 * processes, --dist dygnex and its schedule, checked with a message naming both runs).
 * The distributed figures (dgnn_snap_dist_result) are per-epoch means over the epochs a
 * run trained itself, so they need no totals from the checkpoint. */

typedef struct {
    uint64_t fingerprint;
    int64_t epochs_done, best_epoch, bad_rounds, early_stopped, have_best, tr_step;
    double best_val;
    dgnn_adam opt, hopt;
    run_totals tot;
} ckpt_meta;

/* The run record: processes, the distribution mode, the schedule's shape, its scheduler
 * and a hash of the windows in each group; the flags, for messages. */
static void run_record(const run_t *r, dgnn_ckpt_run *rec) {
    const dgnn_snap_dist_cfg *d = &r->cfg->dist;
    dgnn_ckpt_run_init(rec);
    dgnn_ckpt_run_set(rec, "processes", "%d", r->dist ? r->procs : 1);
    dgnn_ckpt_run_set(rec, "dist", "%s", r->dist ? "dygnex" : "none");
    if (!r->dist) {
        dgnn_ckpt_run_set(rec, "flags", "%s", "");
        return;
    }
    const dgnn_sched *sc = &r->sched;
    const char *kind = d->schedule ? "given" : dgnn_sched_kind_name(d->scheduler);
    uint64_t h = dgnn_hash64((uint64_t)sc->num_ranks * 0x9e3779b97f4a7c15ULL ^ (uint64_t)sc->num_rounds);
    for (int64_t i = 0; i <= sc->num_rounds * sc->num_ranks; i++) h = dgnn_hash64(h ^ (uint64_t)sc->group_ptr[i]);
    for (int64_t i = 0; i < sc->num_windows; i++) h = dgnn_hash64(h ^ (uint64_t)sc->sample[sc->pos[i]]);
    dgnn_ckpt_run_set(rec, "ranks", "%lld", (long long)sc->num_ranks);
    dgnn_ckpt_run_set(rec, "rounds", "%lld", (long long)sc->num_rounds);
    dgnn_ckpt_run_set(rec, "scheduler", "%s", kind);
    dgnn_ckpt_run_set(rec, "schedule", "%016llx", (unsigned long long)h);
    char more[48] = "";
    if (sc->num_ranks != r->procs) snprintf(more, sizeof more, " --sched-ranks %lld", (long long)sc->num_ranks);
    dgnn_ckpt_run_set(rec, "flags", "--dist dygnex --scheduler %s%s", kind, more);
}

static const dgnn_ckpt_run_rule k_run_rules[] = {
    {"processes", "one process plays the schedule's ranks in turn: the same rounds and optimizer steps (the "
                  "gradients summed in another order)"},
    {"schedule", "the scheduler grouped the windows otherwise (the ILP stops at its time limit; another "
                 "--cost-profile gives other costs): the rounds from here on differ from the run that wrote it"},
    {NULL, NULL},
};

static uint64_t fingerprint(const run_t *r) {
    const dgnn_snap_train_cfg *c = r->cfg;
    uint64_t h = dgnn_params_layout_hash(r->p);
    if (r->head.total) h = dgnn_hash64(h ^ dgnn_params_layout_hash(&r->head));
    uint64_t v[] = {(uint64_t)c->model.kind, (uint64_t)r->N, (uint64_t)r->V, (uint64_t)r->T, (uint64_t)c->model.hidden,
                    (uint64_t)c->model.cls_hidden, c->model.seed, (uint64_t)c->window, (uint64_t)c->windows_per_step,
                    c->seed, (uint64_t)c->neg_mult, (uint64_t)(c->lr * 1e12), (uint64_t)(c->class_w[0] * 1e6),
                    (uint64_t)(c->class_w[1] * 1e6), (uint64_t)(c->train_frac * 1e9), (uint64_t)(c->val_frac * 1e9),
                    (uint64_t)r->ev->num_events, (uint64_t)c->max_train_windows, (uint64_t)c->task};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) h = dgnn_hash64(h ^ v[i]);
    h = dgnn_hash64(h ^ dgnn_events_hash(r->ev)); /* the events themselves, not only their counts */
    return h; /* distributed: the run record holds the rank and round counts (a round is the step) */
}

static int save_checkpoint(run_t *r, const ckpt_meta *meta, const dgnn_snap_train_result *res, dgnn_err *err) {
    dgnn_ckpt_writer *w;
    int rc = dgnn_ckpt_dir_writer_open(&w, r->cfg->checkpoint, err);
    if (rc) return rc;
    size_t pb = (size_t)r->p->total * sizeof(float), hb = (size_t)r->head.total * sizeof(float);
    dgnn_ckpt_run rec;
    run_record(r, &rec);
    rc = dgnn_ckpt_add_run(w, &rec, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "meta", meta, sizeof *meta, err);
    if (!rc) rc = dgnn_ckpt_add_params(w, r->p, 1, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "results", res, sizeof *res, err);
    if (!rc && meta->have_best) rc = dgnn_ckpt_writer_add(w, "best.params", r->best_params, pb, err);
    if (!rc && r->head.total) {
        /* the head's four slabs (dgnn_ckpt_add_params names its sections "params", ...) */
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.params", r->head.value, hb, err);
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.grad", r->head.grad, hb, err);
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.adam.m", r->head.m, hb, err);
        if (!rc) rc = dgnn_ckpt_writer_add(w, "head.adam.v", r->head.v, hb, err);
        if (!rc && meta->have_best) rc = dgnn_ckpt_writer_add(w, "head.best", r->best_head, hb, err);
    }
    if (rc) {
        dgnn_ckpt_writer_abort(w);
        return rc;
    }
    return dgnn_ckpt_writer_commit(w, NULL, err);
}

static int load_checkpoint(run_t *r, ckpt_meta *meta, dgnn_snap_train_result *res, dgnn_err *err) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, r->cfg->checkpoint);
    dgnn_ckpt *c;
    int rc = dgnn_ckpt_open(&c, path, err);
    if (rc) return rc;
    size_t pb = (size_t)r->p->total * sizeof(float), hb = (size_t)r->head.total * sizeof(float);
    dgnn_ckpt_run saved, now;
    char notes[512];
    run_record(r, &now);
    rc = dgnn_ckpt_read_run(c, &saved, err);
    if (!rc)
        rc = dgnn_ckpt_run_check(&saved, &now, k_run_rules, r->cfg->checkpoint,
                                 "resume with the same --dist, --scheduler, --sched-ranks and --rounds (any process "
                                 "count plays a schedule), or start without --resume",
                                 notes, sizeof notes, err);
    if (!rc && notes[0]) dgnn_log("resuming %s: %s\n", r->cfg->checkpoint, notes);
    if (!rc) rc = dgnn_ckpt_read(c, "meta", meta, sizeof *meta, err);
    if (!rc && meta->fingerprint != fingerprint(r))
        rc = dgnn_err_set(err, DGNN_EINVAL,
                          "%s was written by a run with other settings (task, model, sizes, snapshots, window, lr, "
                          "seed or data); --resume needs the same ones, or start afresh without --resume",
                          path);
    if (!rc) rc = dgnn_ckpt_read_params(c, r->p, 1, err);
    if (!rc) rc = dgnn_ckpt_read(c, "results", res, sizeof *res, err);
    if (!rc) {
        const run_totals *t = &meta->tot;
        const int64_t E = (int64_t)(sizeof res->epochs / sizeof res->epochs[0]);
        if (meta->epochs_done < 0 || meta->epochs_done > E || res->num_epochs != meta->epochs_done ||
            meta->best_epoch < 0 || meta->best_epoch > meta->epochs_done || meta->bad_rounds < 0 ||
            (meta->early_stopped != 0 && meta->early_stopped != 1) || (meta->have_best != 0 && meta->have_best != 1) ||
            meta->tr_step < 0 || t->windows < 0 || t->snapshots < 0 || t->events < 0)
            rc = dgnn_err_set(err, DGNN_EFORMAT,
                              "checkpoint %s: its progress is inconsistent (epochs done %lld, results for %lld, best "
                              "epoch %lld): delete it or resume from another",
                              path, (long long)meta->epochs_done, (long long)res->num_epochs,
                              (long long)meta->best_epoch);
    }
    if (!rc && meta->have_best) rc = dgnn_ckpt_read(c, "best.params", r->best_params, pb, err);
    if (!rc && r->head.total) {
        if (!rc) rc = dgnn_ckpt_read(c, "head.params", r->head.value, hb, err);
        if (!rc) rc = dgnn_ckpt_read(c, "head.grad", r->head.grad, hb, err);
        if (!rc) rc = dgnn_ckpt_read(c, "head.adam.m", r->head.m, hb, err);
        if (!rc) rc = dgnn_ckpt_read(c, "head.adam.v", r->head.v, hb, err);
        if (!rc && meta->have_best) rc = dgnn_ckpt_read(c, "head.best", r->best_head, hb, err);
    }
    dgnn_ckpt_close(c);
    if (rc) return rc;
    r->opt = meta->opt;
    r->hopt = meta->hopt;
    r->tr_step = meta->tr_step;
    return DGNN_OK;
}

static const char *metric_name(dgnn_snap_task t) {
    return t == DGNN_SNAP_TASK_EDGE ? "F1" : t == DGNN_SNAP_TASK_NODE ? "MSE" : "MAP";
}

int dgnn_snap_train(const dgnn_events *ev, const dgnn_snap_train_cfg *c, dgnn_snap_train_result *res, dgnn_err *err) {
    memset(res, 0, sizeof *res);
    res->test_map = res->test_mrr = res->test_f1 = res->test_precision = res->test_recall = res->test_mse = NAN;
    res->last_map = res->last_mrr = res->last_f1 = res->last_mse = NAN;
    int prev_threads = omp_get_max_threads();
    if (c->threads > 0) omp_set_num_threads((int)c->threads);
    run_t r;
    int rc = run_setup(&r, ev, c, err);
    if (!rc && c->dist.mode != DGNN_SNAP_DIST_NONE) rc = snapt_dist_setup(&r, err);
    if (rc) goto done;
    /* distributed: rank 0 validates, tests, checkpoints and reports; the others train */
    const int lead = r.rank == 0, bcast = r.dist && r.procs > 1;
    ckpt_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.fingerprint = fingerprint(&r);
    /* trainer.train: best_eval_valid starts at 0 (MAP, F1); the MSE's best starts at +inf */
    meta.best_val = r.task == DGNN_SNAP_TASK_NODE ? -INFINITY : 0.0;
    if (c->resume) {
        if (!c->checkpoint) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "--resume needs --checkpoint DIR");
            goto done;
        }
        if (lead) rc = load_checkpoint(&r, &meta, res, err);
        if (bcast) { /* rank 0 read it: the others take parameters, Adam and progress from it */
            int64_t st = rc;
            dgnn_comm_bcast(&st, sizeof st, 0);
            if (st && !lead) rc = dgnn_err_set(err, (int)st, "rank 0 could not read the checkpoint");
            if (!rc) {
                dgnn_comm_bcast(&meta, sizeof meta, 0);
                dgnn_params *slabs[2] = {r.p, &r.head};
                for (int k = 0; k < 2; k++) {
                    const int64_t b = slabs[k]->total * (int64_t)sizeof(float);
                    if (!b) continue;
                    dgnn_comm_bcast(slabs[k]->value, b, 0);
                    dgnn_comm_bcast(slabs[k]->grad, b, 0);
                    dgnn_comm_bcast(slabs[k]->m, b, 0);
                    dgnn_comm_bcast(slabs[k]->v, b, 0);
                }
                r.opt = meta.opt, r.hopt = meta.hopt, r.tr_step = meta.tr_step;
            }
        }
        if (rc) goto done;
        dgnn_log("resumed from %s after epoch %lld\n", c->checkpoint, (long long)meta.epochs_done);
    }
    res->num_snapshots = r.T, res->num_nodes = r.N, res->in_dim = r.V;
    res->num_params = dgnn_params_count(r.p) + (r.head.total ? dgnn_params_count(&r.head) : 0);
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
        rc = r.dist ? snapt_train_epoch_dist(&r, epoch, er, &meta.tot, err) : train_epoch(&r, epoch, er, &meta.tot, err);
        if (rc) goto done;
        int validated = lead && !c->skip_eval && epoch > c->skip_val_epochs && r.ve > r.te;
        double score = NAN;
        if (validated) {
            double tv = dgnn_now();
            eval_metrics vm;
            if ((rc = snapt_evaluate(&r, r.te, r.ve, &vm, &meta.tot, "validation", err, 0))) goto done;
            er->val_map = vm.map, er->val_mrr = vm.mrr, er->val_f1 = vm.f1, er->val_mse = vm.mse;
            er->val_seconds = dgnn_now() - tv;
            score = snapt_val_score(&r, &vm);
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
        if (validated) {
            /* trainer.train: stop when the count of validations without a better figure
             * exceeds patience */
            if (score > meta.best_val) {
                meta.best_val = score;
                meta.best_epoch = epoch;
                meta.bad_rounds = 0;
                memcpy(r.best_params, r.p->value, (size_t)r.p->total * sizeof(float));
                if (r.head.total) memcpy(r.best_head, r.head.value, (size_t)r.head.total * sizeof(float));
                meta.have_best = 1;
            } else if (++meta.bad_rounds > c->patience) {
                meta.early_stopped = 1;
                dgnn_log("early stop: no better validation %s for %lld epochs (best %.4f at epoch %lld)\n",
                         metric_name(r.task), (long long)meta.bad_rounds,
                         r.task == DGNN_SNAP_TASK_NODE ? -meta.best_val : meta.best_val, (long long)meta.best_epoch);
            }
        }
        if (bcast) dgnn_comm_bcast(&meta.early_stopped, sizeof meta.early_stopped, 0);
        meta.epochs_done = epoch;
        meta.opt = r.opt;
        meta.hopt = r.hopt;
        meta.tr_step = r.tr_step;
        res->best_epoch = meta.best_epoch;
        res->early_stopped = (int)meta.early_stopped;
        if (c->checkpoint && lead && (rc = save_checkpoint(&r, &meta, res, err))) goto done;
    }
    if (c->profile && bcast && r.prof_epochs > 0) {
        /* each window ran on one process: sum the others' rows in (theirs are 0 here) */
        int64_t *owner = dgnn_xmalloc((size_t)r.prof_n * sizeof(int64_t));
        for (int64_t rd = 0; rd < r.sched.num_rounds; rd++)
            for (int64_t p = 0; p < r.sched.num_ranks; p++) {
                int64_t m;
                const int64_t *g = dgnn_sched_group(&r.sched, rd, p, &m);
                for (int64_t i = 0; i < m; i++) owner[r.sched.sample[g[i]] - r.tb] = p % r.procs;
            }
        for (int64_t k = 0; k < r.prof_n; k++)
            if (owner[k] != r.rank) r.prof_pairs[k] = 0;
        dgnn_comm_allreduce_sum_f64(r.prof_sec, r.prof_epochs * r.prof_n);
        dgnn_comm_allreduce_sum_i64(r.prof_pairs, r.prof_n);
        free(owner);
    }
    if (c->profile) fill_profile(&r, c->profile);
    if (c->params_out) {
        const int64_t np = r.p->total, nh = r.head.total;
        *c->params_out = dgnn_xmalloc((size_t)(np + nh + 1) * sizeof(float));
        memcpy(*c->params_out, r.p->value, (size_t)np * sizeof(float));
        if (nh) memcpy(*c->params_out + np, r.head.value, (size_t)nh * sizeof(float));
        if (c->params_out_n) *c->params_out_n = np + nh;
    }
    if (r.dist) snapt_dist_report(&r, res, &res->dist);
    if (!lead) goto done; /* rank 0 tests and reports */
    if (!c->skip_eval && r.xe > r.ve) {
        if (meta.have_best) {
            memcpy(r.p->value, r.best_params, (size_t)r.p->total * sizeof(float));
            if (r.head.total) memcpy(r.head.value, r.best_head, (size_t)r.head.total * sizeof(float));
        }
        double t0 = dgnn_now();
        eval_metrics tm;
        if ((rc = snapt_evaluate(&r, r.ve, r.xe, &tm, &meta.tot, "test", err, 0))) goto done;
        res->test_map = tm.map, res->test_mrr = tm.mrr, res->test_mse = tm.mse;
        res->test_f1 = tm.f1, res->test_precision = tm.precision, res->test_recall = tm.recall;
        res->test_seconds = dgnn_now() - t0;
    }
    if (c->baseline_last && r.xe > r.ve) {
        run_totals scratch = meta.tot; /* the baseline's pairs are not the model's throughput */
        eval_metrics bm;
        if ((rc = snapt_evaluate(&r, r.ve, r.xe, &bm, &scratch, "baseline", err, 1))) goto done;
        res->last_map = bm.map, res->last_mrr = bm.mrr, res->last_f1 = bm.f1, res->last_mse = bm.mse;
    }
    {
        const run_totals *t = &meta.tot;
        double s = t->train_seconds;
        res->train_windows_per_second = s > 0 ? (double)t->windows / s : 0;
        res->train_snapshots_per_second = s > 0 ? (double)t->snapshots / s : 0;
        res->train_events_per_second = s > 0 ? (double)t->events / s : 0;
        res->eval_pairs_per_second = t->eval_seconds > 0 ? (double)t->eval_pairs / t->eval_seconds : 0;
    }
    res->peak_rss_mb = dgnn_peak_rss_mb();
done:
    run_free(&r);
    omp_set_num_threads(prev_threads);
    return rc;
}
