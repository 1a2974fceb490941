/* snap_step.c: one step of the snapshot trainer (snap_train.h), what both epochs
 * (snap_epoch.c, dygnex_epoch.c) and evaluation call: one training sample (its pairs and
 * negatives, the model's forward, the task's loss, the backward), the end of a group of
 * windows, one optimizer step.
 *
 * Randomness is keyed, not carried: negatives and RReLU slopes of sample idx in epoch e
 * come from streams of (seed, e, idx), so a checkpoint needs no generator state and a run
 * does not depend on the thread count, nor on which rank trains the sample. */
#include "snap_run.h"

#include <math.h>
#include <string.h>

#include "dgnn/negative.h"
#include "dgnn/nn.h"
#include "dgnn/snapmodel_cuda.h"

static uint64_t snap_stream_seed(uint64_t seed, uint64_t what, int64_t epoch) {
    return dgnn_hash64(dgnn_hash64(seed ^ what) + (uint64_t)epoch * 0x9e3779b97f4a7c15ULL);
}

int snap_ensure_pairs(snap_run *r, int64_t M, dgnn_err *err) {
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
void snap_entries_as_pairs(snap_run *r, const dgnn_snapshot *g) {
    for (int64_t u = 0, i = 0; u < r->N; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++, i++) r->psrc[i] = (int32_t)u, r->pdst[i] = g->col[e];
}

/* One training sample idx of epoch e. *pairs = 0 when it has nothing to learn from (an
 * empty label snapshot); *secs = its time (snap_train.h, "Profile"): negative
 * sampling, forward, loss and backward, in process CPU seconds when the run has one
 * thread (what the sample costs on a core of its own, whatever else runs on the machine),
 * else in wall seconds. */
int snap_train_sample(snap_run *r, int64_t epoch, int64_t idx, double *loss, int64_t *pairs, double *secs,
                      dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    const int64_t N = r->N, W = r->W;
    const double t0 = snap_sample_clock(r);
    *pairs = 0;
    *loss = 0;
    *secs = 0;
    int64_t M = 0;
    if (r->task == DGNN_SNAP_TASK_LINK) {
        const dgnn_snapshot *lab = &r->snaps.snaps[idx + 1];
        const int64_t E = lab->num_edges, want = MUL(E, c->neg_mult);
        if (E == 0) return DGNN_OK;
        int rc = snap_ensure_pairs(r, dgnn_size_add(E, want), err);
        if (rc) return rc;
        snap_entries_as_pairs(r, lab); /* positives */
        /* negatives' destinations: the nodes with an edge in each window snapshot, concatenated
         * (the reference), or every node (neg_all_nodes) */
        const int64_t np = dgnn_snap_neg_pool(r->pool, r->mask, N, idx - W, idx, c->neg_all_nodes);
        dgnn_rng rn;
        dgnn_rng_seed2(&rn, snap_stream_seed(c->seed, 0x6e6567 /* "neg" */, epoch), (uint64_t)idx);
        int64_t nneg = dgnn_snap_link_negatives(r->psrc + E, r->pdst + E, want, lab, r->pool, np, &rn);
        M = E + nneg;
        for (int64_t i = 0; i < M; i++) r->plab[i] = i < E;
    } else if (r->task == DGNN_SNAP_TASK_EDGE) {
        const dgnn_snapshot *lab = &r->snaps.snaps[idx]; /* get_edge_labels(time = idx) */
        M = lab->num_edges;
        if (M == 0) return DGNN_OK;
        int rc = snap_ensure_pairs(r, M, err);
        if (rc) return rc;
        snap_entries_as_pairs(r, lab);
        memcpy(r->plab, r->elab + r->eoff[idx], (size_t)M * sizeof(int32_t));
    } else {
        M = N;
    }

    dgnn_rng rr;
    dgnn_rng_seed2(&rr, snap_stream_seed(c->seed, 0x72726c75 /* "rrlu" */, epoch), (uint64_t)idx);
    if (r->dev) { /* the same pairs, labels (node task: targets) and RReLU keys, on the GPU */
        int rc = r->task == DGNN_SNAP_TASK_NODE
                     ? dgnn_snapmodel_cuda_node_train_sample(r->dev, idx - W, W + 1, &rr, r->ny + (idx + 1) * N, loss,
                                                             err)
                     : dgnn_snapmodel_cuda_train_sample(r->dev, idx - W, W + 1, &rr, r->psrc, r->pdst, r->plab, M,
                                                        c->class_w, loss, err);
        if (rc) return rc;
        if (!isfinite(*loss))
            return dgnn_err_set(err, DGNN_EINVAL, "epoch %lld, sample %lld: the loss is not finite (%g); try a lower --lr, "
                                "or look for node features, targets or edge weights too large for float32",
                                (long long)epoch, (long long)idx, *loss);
        *secs = snap_sample_clock(r) - t0;
        *pairs = M;
        return DGNN_OK;
    }
    int rc = dgnn_snapmodel_forward(r->model, r->H, &r->in[idx - W], W + 1, &rr, err);
    if (rc) return rc;
    memset(r->dH, 0, (size_t)(N * r->L) * sizeof(float));
    if (r->task == DGNN_SNAP_TASK_NODE) {
        const float *y = r->ny + (idx + 1) * N;
        dgnn_node_head_forward(&r->head, r->H);
        *loss = dgnn_mse_forward(r->head.yhat, y, N);
        if (isfinite(*loss)) {
            memset(r->head.dyhat, 0, (size_t)N * sizeof(float));
            dgnn_mse_backward(r->head.dyhat, 1.0f, r->head.yhat, y, N);
            dgnn_node_head_backward(&r->head, r->dH, r->H);
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
        return dgnn_err_set(err, DGNN_EINVAL, "epoch %lld, sample %lld: the loss is not finite (%g); try a lower --lr, "
                            "or look for node features, targets or edge weights too large for float32",
                            (long long)epoch, (long long)idx, *loss);
    dgnn_snapmodel_backward(r->model, r->dH);
    *secs = snap_sample_clock(r) - t0;
    *pairs = M;
    return DGNN_OK;
}

/* Begins the model's group of windows: the host model's, and the device's when the model
 * trains there (dgnn_snapmodel_cuda_group). */
int snap_begin_group(snap_run *r, dgnn_err *err) {
    dgnn_snapmodel_group_begin(r->model);
    return r->dev ? dgnn_snapmodel_cuda_group(r->dev, 1, err) : DGNN_OK;
}

/* Ends the model's group of windows (the windows of one optimizer step: wdgcn runs its
 * shared snapshots' deferred GCN backward here, on the device when it trains there);
 * *secs = its time on the profile's clock, which the caller adds to the group's last
 * window. */
int snap_end_group(snap_run *r, double *secs, dgnn_err *err) {
    const double t0 = snap_sample_clock(r);
    dgnn_snapmodel_group_end(r->model);
    const int rc = r->dev ? dgnn_snapmodel_cuda_group(r->dev, 0, err) : DGNN_OK;
    *secs = snap_sample_clock(r) - t0;
    return rc;
}

/* One Adam step on the summed gradients (and the node head's), then zeroed gradients. */
int snap_optimizer_step(snap_run *r, dgnn_err *err) {
    if (r->dev) {
        r->opt.t++; /* dgnn_adam_step's count, kept on the host */
        int rc = dgnn_snapmodel_cuda_step(r->dev, r->opt.lr, r->opt.beta1, r->opt.beta2, r->opt.eps,
                                          r->opt.weight_decay, r->opt.t, err);
        if (!rc && r->task == DGNN_SNAP_TASK_NODE) {
            r->hopt.t++;
            rc = dgnn_snapmodel_cuda_head_step(r->dev, r->hopt.lr, r->hopt.beta1, r->hopt.beta2, r->hopt.eps,
                                               r->hopt.weight_decay, r->hopt.t, err);
        }
        return rc;
    }
    const int64_t bad = dgnn_adam_step_params(&r->opt, r->p);
    dgnn_params_zero_grad(r->p);
    int64_t head_bad = 0;
    if (r->task == DGNN_SNAP_TASK_NODE) {
        head_bad = dgnn_adam_step_params(&r->hopt, &r->head.p);
        dgnn_params_zero_grad(&r->head.p);
    }
    if (!bad && !head_bad) return DGNN_OK;
    char where[64];
    snprintf(where, sizeof where, "optimizer step %lld%s", (long long)r->opt.t, bad ? "" : " (the node head)");
    return dgnn_adam_failure(err, where, bad ? bad : head_bad, bad ? r->p->total : r->head.p.total);
}

/* 1 when sample idx has something to learn from (train_sample's pairs > 0): known from
 * the data alone, so every rank knows whether a round's windows produce any gradient. */
int snap_sample_trains(const snap_run *r, int64_t idx) {
    if (r->task == DGNN_SNAP_TASK_LINK) return r->snaps.snaps[idx + 1].num_edges > 0;
    if (r->task == DGNN_SNAP_TASK_EDGE) return r->snaps.snaps[idx].num_edges > 0;
    return r->N > 0;
}
