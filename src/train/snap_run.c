/* snap_run.c: the snapshot trainer's data preparation (snap_train.h). Per run: the
 * snapshots (dgnn_snapshots_cut), the split, and for each snapshot the node input (one-hot
 * degree, or the node task's dense features), the node mask (-H's TopK candidates), the
 * model's input view and the task's labels, all built once; then the model, the node
 * task's head (node_head.h) and the buffers of the run, each asked for before any is
 * filled so that a run too large is refused at once with the sizes that made it so. */
#include "snap_run.h"

#include <stdlib.h>
#include <string.h>

#include "dgnn/snapshot_graph.h"
#include "dgnn/comm.h"
#include "dgnn/comm_dev.h"
#include "dgnn/snapmodel_cuda.h"
#include "dgnn/split.h"

void snap_run_free(snap_run *r) {
    dgnn_comm_dev_free(r->cdev);
    dgnn_snapmodel_cuda_free(r->dev);
    dgnn_snapshots_free(&r->snaps);
    dgnn_snapmodel_free(r->model);
    dgnn_node_head_free(&r->head);
    void *ptrs[] = {r->deg, r->nx, r->ny, r->mask, r->in, r->elab, r->eoff, r->H, r->dH, r->psrc, r->pdst, r->plab, r->pool, r->pred, r->logits, r->dlogits, r->prob,
                    r->label, r->best_params, r->best_head, r->prof_sec, r->prof_pairs,
                    r->gwall, r->gcpu, r->acc_wall, r->acc_cpu};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    dgnn_sched_free(&r->sched);
}

/* Samples [b, e) of a part: DGNN_EINVAL when none of them has anything to learn from or
 * to score (snap_sample_trains: the edges of its label snapshot), which would train
 * nothing or report NaN as the part's metric. */
static int check_part(const snap_run *r, const char *part, int64_t b, int64_t e, dgnn_err *err) {
    const dgnn_snap_train_cfg *c = r->cfg;
    if (e <= b)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%lld snapshots leave no %s sample (--window %lld, train fraction %g, validation "
                            "fraction %g: training samples %lld..%lld, validation to %lld, test to %lld); use more or "
                            "shorter snapshots, a smaller --window or other fractions",
                            (long long)r->T, part, (long long)r->W, c->train_frac, c->val_frac, (long long)r->tb,
                            (long long)r->te - 1, (long long)r->ve - 1, (long long)r->xe - 1);
    for (int64_t idx = b; idx < e; idx++)
        if (snap_sample_trains(r, idx)) return DGNN_OK;
    const int one = e - b == 1, edge = r->task == DGNN_SNAP_TASK_EDGE;
    /* a stream at one timestamp: snapshots by time put every event in one of them, and no
     * length of snapshot helps */
    const dgnn_events *ev = r->ev;
    const int one_time = ev && ev->num_events > 1 && ev->t[0] == ev->t[ev->num_events - 1];
    char why[160] = "use longer or fewer snapshots";
    if (one_time)
        snprintf(why, sizeof why, "all %lld events share the timestamp %.10g, so snapshots by time hold them in one",
                 (long long)ev->num_events, ev->t[0]);
    return dgnn_err_set(err, DGNN_EINVAL, "%s %lld %s sample%s (%lld..%lld) %s no edges: nothing to %s; %s",
                        one ? "the" : "all", (long long)(e - b), part, one ? "" : "s", (long long)b, (long long)e - 1,
                        edge ? (one ? "has" : "have") : (one ? "predicts a snapshot with" : "predict snapshots with"),
                        strcmp(part, "training") == 0 ? "learn from" : "score", why);
}

/* The (N, N) scores and labels of link evaluation. While they are alive the AP of a
 * snapshot (dgnn_snap_link_metrics) sorts N^2 8-byte words with as much scratch: 24
 * bytes a pair in all, asked for here, since the metric's buffers cannot fail softly. */
int snap_run_alloc_scores(snap_run *r, dgnn_err *err) {
    const int64_t NN = dgnn_size_mul(r->N, r->N);
    int rc = dgnn_mem_check(dgnn_size_mul(NN, 24), err,
                            "scoring all %lld x %lld node pairs of a snapshot (scores, labels and the AP's sort: 24 "
                            "bytes a pair; link prediction's validation and test); --no-eval trains without them",
                            (long long)r->N, (long long)r->N);
    if (rc) return rc;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, r->prob, NN);
    DGNN_GROW(&as, r->label, NN);
    return dgnn_alloc_done(&as, err, "scoring all %lld x %lld node pairs of a snapshot (link prediction's validation "
                           "and test); --no-eval trains without them", (long long)r->N, (long long)r->N);
}

int snap_run_setup(snap_run *r, const dgnn_events *ev, const dgnn_snap_train_cfg *c, dgnn_err *err) {
    memset(r, 0, sizeof *r);
    dgnn_node_head_init_empty(&r->head);
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
    /* PGT tables carry the edge weight as feature column 0; bitcoin's column 0 is the
     * rating, a label, not a weight (the reference's A counts ratings) */
    if ((rc = dgnn_snapshots_cut(&r->snaps, ev, c->snapshot_seconds, c->snapshot_count,
                                 dgnn_snap_weight_from_feature(c->task, ev), err)))
        return rc;
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
        /* the F1 of a class training never shows is no measure (0 printed as a result) */
        if (!c->skip_eval && (cnt[0] == 0 || cnt[1] == 0))
            return dgnn_err_set(err, DGNN_EINVAL,
                                "the training samples' %lld edge labels are all of class %d (%s ratings): the task "
                                "needs both classes to learn and to measure the F1 of the minority one",
                                (long long)(cnt[0] + cnt[1]), cnt[0] == 0 ? 1 : 0,
                                cnt[0] == 0 ? "positive" : "non-positive");
        r->f1_class = cnt[0] <= cnt[1] ? 0 : 1;
        r->majority = 1 - r->f1_class;
    }
    if ((rc = dgnn_snapmodel_init(&r->model, &mc, err))) return rc;
    r->p = dgnn_snapmodel_params(r->model);
    r->opt = dgnn_adam_default(c->lr);
    DGNN_GROW(&as, r->best_params, r->p->total);
    if ((rc = dgnn_alloc_done(&as, err, "a copy of the %lld parameters", (long long)r->p->total))) return rc;
    if (c->use_cuda) { /* the model, every snapshot and the label patterns to the GPU */
        if (c->task == DGNN_SNAP_TASK_LINK && !c->skip_eval && !c->baseline_last &&
            N > DGNN_SNAPMODEL_CUDA_LINK_MAX_N) /* refused before training, not at the first validation */
            return dgnn_err_set(err, DGNN_EINVAL,
                                "--device cuda: the link task scores all node pairs on the GPU for at most %d nodes "
                                "(this stream has %lld); --device cpu evaluates it, --no-eval trains without it",
                                DGNN_SNAPMODEL_CUDA_LINK_MAX_N, (long long)N);
        const int n = dgnn_snapmodel_cuda_devices();
        r->cuda_device = c->cuda_device >= 0 ? c->cuda_device : n > 0 ? dgnn_comm_local_rank() % n : 0;
        if ((rc = dgnn_snapmodel_cuda_init(&r->dev, r->model, r->cuda_device, err))) return rc;
        if ((rc = dgnn_snapmodel_cuda_inputs(r->dev, r->in, c->task == DGNN_SNAP_TASK_LINK ? r->snaps.snaps : NULL, T,
                                             err)))
            return rc;
    }
    /* the link task's host scores: the CPU path's evaluation, and the baseline on either */
    if (c->task == DGNN_SNAP_TASK_LINK && ((!c->skip_eval && !r->dev) || c->baseline_last) &&
        (rc = snap_run_alloc_scores(r, err)))
        return rc;
    if (c->task == DGNN_SNAP_TASK_NODE) {
        if ((rc = dgnn_node_head_init(&r->head, N, r->L, r->C, c->model.seed, err))) return rc;
        r->hopt = dgnn_adam_default(c->lr);
        dgnn_alloc_set hs = {0, 0}; /* a set of its own, as the head's activations */
        DGNN_GROW(&hs, r->best_head, r->head.p.total);
        if ((rc = dgnn_alloc_done(&hs, err, "the node head's activations (%lld nodes x --cls-hidden %lld)",
                                  (long long)N, (long long)r->C)))
            return rc;
        /* on the GPU: the head's slabs beside the model's (snapmodel_cuda.h, "the node task") */
        if (r->dev && (rc = dgnn_snapmodel_cuda_node_head(r->dev, &r->head, err))) return rc;
    }
    return DGNN_OK;
}

/* the model's slabs, and the node head's (node task) */
int snap_run_pull(snap_run *r, dgnn_err *err) {
    if (!r->dev) return DGNN_OK;
    int rc = dgnn_snapmodel_cuda_pull(r->dev, r->p, err);
    if (!rc && r->head.p.total) rc = dgnn_snapmodel_cuda_head_pull(r->dev, &r->head.p, err);
    return rc;
}

int snap_run_push(snap_run *r, dgnn_err *err) {
    if (!r->dev) return DGNN_OK;
    int rc = dgnn_snapmodel_cuda_push(r->dev, r->p, err);
    if (!rc && r->head.p.total) rc = dgnn_snapmodel_cuda_head_push(r->dev, &r->head.p, err);
    return rc;
}
