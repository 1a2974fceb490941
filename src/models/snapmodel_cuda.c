/* snapmodel_cuda.c: a snapshot model on the GPU (snapmodel_cuda.h): the front (the kinds'
 * table, the slabs, the uploaded snapshots), the pair classifier, the loss, Adam and the moves
 * between host and device, composed of the CUDA backend's ops (cuda.h), with the host model's
 * parameter layout; each kind's window is in its own file (snapmodel_cuda_internal.h).
 * NOT YET VERIFIED ON HARDWARE.
 * Without the CUDA backend (DGNN_HAVE_CUDA unset) only the refusals are compiled. */
#include "dgnn/snapmodel_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapmodel_cuda_internal.h"

int dgnn_snapmodel_cuda_supports(const dgnn_snapmodel_cfg *cfg, dgnn_err *err) {
    if (cfg->kind < DGNN_SNAPMODEL_EGCN_O || cfg->kind > DGNN_SNAPMODEL_GCN)
        return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: unknown snapshot model kind %d", (int)cfg->kind);
    return DGNN_OK;
}

#if DGNN_HAVE_CUDA

/* the kinds the GPU runs */
static const snapc_ops *kind_ops(dgnn_snapmodel_kind kind) {
    switch (kind) {
    case DGNN_SNAPMODEL_EGCN_O:
    case DGNN_SNAPMODEL_EGCN_H: return &snapc_egcn_ops;
    case DGNN_SNAPMODEL_TGCN: return &snapc_tgcn_ops;
    case DGNN_SNAPMODEL_GCRN_GRU: return &snapc_gcrn_ops;
    case DGNN_SNAPMODEL_WDGCN: return &snapc_wdgcn_ops;
    case DGNN_SNAPMODEL_GCN: return &snapc_gcn_ops;
    default: return NULL;
    }
}

int dgnn_snapmodel_cuda_built(void) { return 1; }
int dgnn_snapmodel_cuda_devices(void) { return dgnn_cuda_device_count(); }

static void free_snaps(dgnn_snapmodel_cuda *d) {
    for (int64_t i = 0; i < d->ns; i++) {
        snapc_snap *s = &d->s[i];
        dgnn_cuda_csr_free(d->c, &s->A), dgnn_cuda_csr_free(d->c, &s->At), dgnn_cuda_csr_free(d->c, &s->lab);
        dgnn_cuda_release(d->c, s->idx), dgnn_cuda_release(d->c, s->feat), dgnn_cuda_release(d->c, s->mask);
    }
    free(d->s);
    d->s = NULL, d->ns = 0;
}

static void free_pairs(dgnn_snapmodel_cuda *d) {
    void *p[] = {d->hid, d->gscr, d->logits, d->dlogits, d->src, d->dst, d->lab, d->perm};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(d->c, p[i]);
    d->hid = d->gscr = d->logits = d->dlogits = NULL;
    d->src = d->dst = d->lab = d->perm = NULL;
    d->Mcap = 0;
}

void dgnn_snapmodel_cuda_free(dgnn_snapmodel_cuda *d) {
    if (!d) return;
    if (d->c) {
        dgnn_cuda_sync(d->c, NULL);
        if (d->ops) d->ops->free(d);
        snapc_head_free(d);
        free_snaps(d);
        free_pairs(d);
        void *p[] = {d->param, d->grad, d->am, d->av, d->H, d->dH, d->P, d->Qc, d->dP, d->dQc, d->offs, d->class_w,
                     d->loss, d->prob};
        for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(d->c, p[i]);
        dgnn_cuda_free(d->c);
    }
    free(d->h_offs), free(d->h_perm);
    free(d);
}

#define dalloc snapc_alloc
#define DALLOC_F(ptr, n, what) SNAPC_ALLOC_F(d, ptr, n, what)

int dgnn_snapmodel_cuda_init(dgnn_snapmodel_cuda **out, dgnn_snapmodel *m, int device, dgnn_err *err) {
    *out = NULL;
    int rc = dgnn_snapmodel_cuda_supports(&m->cfg, err);
    if (rc) return rc;
    dgnn_snapmodel_cuda *d = dgnn_xcalloc(1, sizeof *d);
    d->m = m;
    d->N = m->N, d->V = m->V, d->L = m->L, d->C = m->Cc, d->K = m->K, d->total = m->p.total;
    if ((rc = dgnn_cuda_init(&d->c, device, err))) goto fail;
    if (dgnn_cuda_device_name(device, d->name, (int)sizeof d->name) != 0)
        snprintf(d->name, sizeof d->name, "cuda:%d", device);
    d->oW1 = m->p.t[m->icW1].offset, d->ob1 = m->p.t[m->icb1].offset;
    d->oW2 = m->p.t[m->icW2].offset, d->ob2 = m->p.t[m->icb2].offset;
    const int64_t N = d->N, L = d->L, C = d->C, NL = N * L, NC = N * C;
    if ((rc = DALLOC_F(d->param, d->total, "the parameter slab")) || (rc = DALLOC_F(d->grad, d->total, "the gradients")) ||
        (rc = DALLOC_F(d->am, d->total, "Adam's first moments")) || (rc = DALLOC_F(d->av, d->total, "Adam's second moments")) ||
        (rc = DALLOC_F(d->H, NL, "the window's output")) || (rc = DALLOC_F(d->dH, NL, "the window's output gradient")))
        goto fail;
    float **nc[] = {&d->P, &d->Qc, &d->dP, &d->dQc};
    for (size_t i = 0; i < sizeof nc / sizeof nc[0]; i++)
        if ((rc = DALLOC_F(*nc[i], NC, "the classifier's per-node layer"))) goto fail;
    if ((rc = dalloc(d, (void **)&d->offs, 2 * (N + 1), sizeof(int32_t), "the pairs' grouping", err)) ||
        (rc = DALLOC_F(d->class_w, 2, "the class weights")) ||
        (rc = dalloc(d, (void **)&d->loss, 1, sizeof(double), "the loss", err)))
        goto fail;
    d->ops = kind_ops(m->cfg.kind);
    if ((rc = d->ops->init(d, err))) goto fail;
    if ((rc = dgnn_snapmodel_cuda_push(d, &m->p, err))) goto fail;
    *out = d;
    return DGNN_OK;
fail:
    dgnn_snapmodel_cuda_free(d);
    return rc;
}

const char *dgnn_snapmodel_cuda_device_name(const dgnn_snapmodel_cuda *d) { return d->name; }

int dgnn_snapmodel_cuda_inputs(dgnn_snapmodel_cuda *d, const dgnn_snap_input *in, const dgnn_snapshot *lab,
                               int64_t n, dgnn_err *err) {
    int rc = dgnn_cuda_sync(d->c, err);
    if (rc) return rc;
    free_snaps(d);
    d->s = dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof *d->s);
    d->ns = n;
    const int64_t N = d->N, V = d->V;
    for (int64_t t = 0; t < n; t++) {
        snapc_snap *s = &d->s[t];
        const dgnn_snap_input *x = &in[t];
        if (x->A.rows != N || x->A.cols != N)
            return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: snapshot %lld is %lld x %lld, the model has %lld nodes",
                                (long long)t, (long long)x->A.rows, (long long)x->A.cols, (long long)N);
        if ((rc = dgnn_cuda_csr_init(d->c, &s->A, &x->A, err))) return rc;
        if (x->At && (rc = dgnn_cuda_csr_init(d->c, &s->At, x->At, err))) return rc;
        if (lab) {
            const dgnn_snapshot *g = &lab[t];
            dgnn_csr a = dgnn_csr_view(g->rowptr, g->col, g->w, N, N);
            if ((rc = dgnn_cuda_csr_init(d->c, &s->lab, &a, err))) return rc;
            s->has_lab = 1;
        }
        if (d->m->cfg.onehot) {
            if (!x->feat_idx)
                return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: snapshot %lld has no one-hot input", (long long)t);
            for (int64_t i = 0; i < N; i++)
                if (x->feat_idx[i] >= V)
                    return dgnn_err_set(err, DGNN_EINVAL,
                                        "--device cuda: snapshot %lld: node %lld has input category %d, the model has "
                                        "%lld", (long long)t, (long long)i, x->feat_idx[i], (long long)V);
            if ((rc = dalloc(d, (void **)&s->idx, N, sizeof(int32_t), "a snapshot's one-hot input", err)) ||
                (rc = dgnn_cuda_upload(d->c, s->idx, x->feat_idx, (size_t)N * sizeof(int32_t), err)))
                return rc;
            if (d->ops->rows) { /* the kind reads the input rows: e_idx (a zero row for -1) */
                float *rows = dgnn_xcalloc((size_t)(N * V), sizeof(float));
                for (int64_t i = 0; i < N; i++)
                    if (x->feat_idx[i] >= 0) rows[i * V + x->feat_idx[i]] = 1.0f;
                rc = DALLOC_F(s->feat, N * V, "a snapshot's one-hot rows");
                if (!rc) rc = dgnn_cuda_upload(d->c, s->feat, rows, (size_t)(N * V) * sizeof(float), err);
                if (!rc) rc = dgnn_cuda_sync(d->c, err); /* before rows is freed */
                free(rows);
                if (rc) return rc;
            }
        } else {
            if (!x->feat)
                return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: snapshot %lld has no features", (long long)t);
            if ((rc = DALLOC_F(s->feat, N * V, "a snapshot's node features")) ||
                (rc = dgnn_cuda_upload(d->c, s->feat, x->feat, (size_t)(N * V) * sizeof(float), err)))
                return rc;
        }
        if (x->mask &&
            ((rc = dalloc(d, (void **)&s->mask, N, 1, "a snapshot's TopK mask", err)) ||
             (rc = dgnn_cuda_upload(d->c, s->mask, x->mask, (size_t)N, err))))
            return rc;
    }
    if (d->ops->inputs && (rc = d->ops->inputs(d, in, n, err))) return rc;
    return dgnn_cuda_sync(d->c, err);
}

int dgnn_snapmodel_cuda_group(dgnn_snapmodel_cuda *d, int begin, dgnn_err *err) {
    return d->ops->group ? d->ops->group(d, begin, err) : DGNN_OK;
}

static int ensure_pairs(dgnn_snapmodel_cuda *d, int64_t M, dgnn_err *err) {
    if (M <= d->Mcap) return DGNN_OK;
    int rc = dgnn_cuda_sync(d->c, err);
    if (rc) return rc;
    free_pairs(d);
    const int64_t cap = M + M / 4 + 16, C = d->C, K = d->K;
    if ((rc = DALLOC_F(d->hid, cap * C, "the pairs' hidden layer")) ||
        (rc = DALLOC_F(d->gscr, cap * C, "the pairs' hidden gradient")) ||
        (rc = DALLOC_F(d->logits, cap * K, "the pairs' logits")) ||
        (rc = DALLOC_F(d->dlogits, cap * K, "the pairs' logit gradients")) ||
        (rc = dalloc(d, (void **)&d->src, cap, sizeof(int32_t), "the pairs", err)) ||
        (rc = dalloc(d, (void **)&d->dst, cap, sizeof(int32_t), "the pairs", err)) ||
        (rc = dalloc(d, (void **)&d->lab, cap, sizeof(int32_t), "the pairs' labels", err)) ||
        (rc = dalloc(d, (void **)&d->perm, 2 * cap, sizeof(int32_t), "the pairs' grouping", err)))
        return rc;
    d->Mcap = cap;
    return DGNN_OK;
}

/* the kind's window forward, t0 .. t0 + T - 1 checked against the uploaded snapshots */
static int window_forward(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    if (T < 1 || t0 < 0 || t0 + T > d->ns)
        return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: window %lld..%lld outside the %lld uploaded snapshots",
                            (long long)t0, (long long)(t0 + T - 1), (long long)d->ns);
    return d->ops->forward(d, t0, T, rng, err);
}

/* The pairs to the device, with their grouping by source and by destination (a stable
 * counting sort: each node's pairs in ascending pair order, dgnn_cuda_cls_pairs_backward's
 * contract). */
static int send_pairs(dgnn_snapmodel_cuda *d, const int32_t *src, const int32_t *dst, const int32_t *lab, int64_t M,
                      int group, dgnn_err *err) {
    int rc = ensure_pairs(d, M, err);
    if (rc) return rc;
    const int64_t N = d->N;
    if ((rc = dgnn_cuda_upload(d->c, d->src, src, (size_t)M * sizeof(int32_t), err)) ||
        (rc = dgnn_cuda_upload(d->c, d->dst, dst, (size_t)M * sizeof(int32_t), err)) ||
        (lab && (rc = dgnn_cuda_upload(d->c, d->lab, lab, (size_t)M * sizeof(int32_t), err))))
        return rc;
    if (!group) return DGNN_OK;
    /* (uploads from pageable memory are staged when the call returns: the host buffers
     * below may be refilled by the next sample at once) */
    if (M > d->h_cap) {
        free(d->h_perm);
        d->h_perm = dgnn_xmalloc((size_t)(2 * (M + M / 4 + 16)) * sizeof(int32_t));
        d->h_cap = M + M / 4 + 16;
    }
    if (!d->h_offs) d->h_offs = dgnn_xmalloc((size_t)(2 * (N + 1)) * sizeof(int32_t));
    for (int side = 0; side < 2; side++) {
        const int32_t *key = side ? dst : src;
        int32_t *off = d->h_offs + side * (N + 1), *perm = d->h_perm + side * M;
        memset(off, 0, (size_t)(N + 1) * sizeof(int32_t));
        for (int64_t i = 0; i < M; i++) off[key[i] + 1]++;
        for (int64_t u = 0; u < N; u++) off[u + 1] += off[u];
        int32_t *fill = dgnn_xmalloc((size_t)(N > 0 ? N : 1) * sizeof(int32_t));
        memcpy(fill, off, (size_t)N * sizeof(int32_t));
        for (int64_t i = 0; i < M; i++) perm[fill[key[i]]++] = (int32_t)i;
        free(fill);
    }
    if ((rc = dgnn_cuda_upload(d->c, d->offs, d->h_offs, (size_t)(2 * (N + 1)) * sizeof(int32_t), err)) ||
        (rc = dgnn_cuda_upload(d->c, d->perm, d->h_perm, (size_t)(2 * M) * sizeof(int32_t), err)))
        return rc;
    return DGNN_OK;
}

static int cls_forward(dgnn_snapmodel_cuda *d, int64_t M, dgnn_err *err) {
    const float *p = d->param;
    int rc = dgnn_cuda_cls_nodes(d->c, d->P, d->Qc, d->H, p + d->oW1, p + d->ob1, d->N, d->L, d->C, err);
    if (!rc)
        rc = dgnn_cuda_cls_pairs_forward(d->c, d->logits, d->hid, d->P, d->Qc, d->src, d->dst, p + d->oW2, p + d->ob2, M,
                                         d->C, d->K, err);
    return rc;
}

int dgnn_snapmodel_cuda_train_sample(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng,
                                     const int32_t *src, const int32_t *dst, const int32_t *lab, int64_t M,
                                     const float *class_w, double *loss, dgnn_err *err) {
    *loss = NAN;
    if (d->K != 2) return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: the classifier needs 2 classes");
    dgnn_cuda *c = d->c;
    const int64_t N = d->N, L = d->L, K = d->K;
    int rc = send_pairs(d, src, dst, lab, M, 1, err);
    if (!rc) rc = dgnn_cuda_upload(c, d->class_w, class_w, 2 * sizeof(float), err);
    if (!rc) rc = window_forward(d, t0, T, rng, err);
    if (!rc) rc = cls_forward(d, M, err);
    if (!rc) rc = dgnn_cuda_wce_forward(c, d->loss, d->logits, d->lab, d->class_w, M, K, err);
    if (!rc) rc = dgnn_cuda_zero(c, d->dlogits, (size_t)(M * K) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_wce_backward(c, d->dlogits, 1.0f, d->logits, d->lab, d->class_w, M, K, err);
    if (!rc) rc = dgnn_cuda_zero(c, d->dH, (size_t)(N * L) * sizeof(float), err);
    float *g = d->grad;
    const int32_t *offs = d->offs, *perm = d->perm;
    if (!rc)
        rc = dgnn_cuda_cls_pairs_backward(c, d->dH, g + d->oW1, g + d->ob1, g + d->oW2, g + d->ob2, d->dP, d->dQc,
                                          d->gscr, d->dlogits, d->hid, d->H, d->param + d->oW1, d->param + d->oW2,
                                          offs, perm, offs + (N + 1), perm + M, N, M, L, d->C, K, err);
    if (!rc) rc = d->ops->backward(d, t0, T, err);
    if (!rc) rc = dgnn_cuda_download(c, loss, d->loss, sizeof(double), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    return rc;
}

int dgnn_snapmodel_cuda_step(dgnn_snapmodel_cuda *d, double lr, double beta1, double beta2, double eps,
                             double weight_decay, int64_t t, dgnn_err *err) {
    int rc = dgnn_cuda_adam_step(d->c, d->param, d->grad, d->am, d->av, d->total, lr, beta1, beta2, eps, weight_decay, t,
                                 err);
    if (!rc) rc = dgnn_cuda_zero(d->c, d->grad, (size_t)d->total * sizeof(float), err);
    return rc;
}

int dgnn_snapmodel_cuda_logits(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, const int32_t *src,
                               const int32_t *dst, int64_t M, float *logits, dgnn_err *err) {
    int rc = window_forward(d, t0, T, NULL, err);
    if (!rc) rc = send_pairs(d, src, dst, NULL, M, 0, err);
    if (!rc) rc = cls_forward(d, M, err);
    if (!rc) rc = dgnn_cuda_download(d->c, logits, d->logits, (size_t)(M * d->K) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_sync(d->c, err);
    return rc;
}

_Static_assert(DGNN_SNAPMODEL_CUDA_LINK_MAX_N == DGNN_CUDA_LINK_METRICS_MAX_N, "the device metrics' node limit");

int dgnn_snapmodel_cuda_link_metrics(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, int64_t label, double *ap,
                                     double *mrr, dgnn_err *err) {
    *ap = *mrr = NAN;
    if (label < 0 || label >= d->ns || !d->s[label].has_lab)
        return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: no uploaded label snapshot %lld", (long long)label);
    const int64_t N = d->N;
    int rc = DGNN_OK;
    if (!d->prob && (rc = DALLOC_F(d->prob, N * N, "the scores of every node pair (N x N)"))) return rc;
    if (!rc) rc = window_forward(d, t0, T, NULL, err);
    const float *p = d->param;
    if (!rc) rc = dgnn_cuda_cls_nodes(d->c, d->P, d->Qc, d->H, p + d->oW1, p + d->ob1, N, d->L, d->C, err);
    if (!rc) rc = dgnn_cuda_cls_prob_rows(d->c, d->prob, d->P, d->Qc, p + d->oW2, p + d->ob2, 0, N, N, d->C, err);
    const dgnn_cuda_csr *g = &d->s[label].lab;
    if (!rc) rc = dgnn_cuda_link_metrics(d->c, ap, mrr, d->prob, g->rowptr, g->col, N, g->nnz, err);
    return rc;
}

int dgnn_snapmodel_cuda_grad(dgnn_snapmodel_cuda *d, float *grad, int to_host, dgnn_err *err) {
    const size_t b = (size_t)d->total * sizeof(float);
    int rc = to_host ? dgnn_cuda_download(d->c, grad, d->grad, b, err) : dgnn_cuda_upload(d->c, d->grad, grad, b, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

/* the host slabs of p and the device's, in one order */
static void slabs(dgnn_snapmodel_cuda *d, const dgnn_params *p, float *host[4], float *dev[4]) {
    host[0] = p->value, host[1] = p->grad, host[2] = p->m, host[3] = p->v;
    dev[0] = d->param, dev[1] = d->grad, dev[2] = d->am, dev[3] = d->av;
}

int dgnn_snapmodel_cuda_pull(dgnn_snapmodel_cuda *d, dgnn_params *p, dgnn_err *err) {
    float *h[4], *g[4];
    slabs(d, p, h, g);
    int rc = DGNN_OK;
    for (int k = 0; k < 4 && !rc; k++) rc = dgnn_cuda_download(d->c, h[k], g[k], (size_t)d->total * sizeof(float), err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

int dgnn_snapmodel_cuda_push(dgnn_snapmodel_cuda *d, const dgnn_params *p, dgnn_err *err) {
    float *h[4], *g[4];
    slabs(d, p, h, g);
    int rc = DGNN_OK;
    for (int k = 0; k < 4 && !rc; k++) rc = dgnn_cuda_upload(d->c, g[k], h[k], (size_t)d->total * sizeof(float), err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

#else /* no CUDA backend in this build */

#define NO_CUDA(err)                                                                                                  \
    dgnn_err_set(err, DGNN_EDEVICE,                                                                                \
                 "--device cuda: this dgnn was built without the CUDA backend; rebuild with -DDGNN_CUDA=ON "      \
                 "(README, 'GPU') or use --device cpu")

struct dgnn_snapmodel_cuda {
    int unused;
};
int dgnn_snapmodel_cuda_built(void) { return 0; }
int dgnn_snapmodel_cuda_devices(void) { return 0; }
int dgnn_snapmodel_cuda_init(dgnn_snapmodel_cuda **out, dgnn_snapmodel *m, int device, dgnn_err *err) {
    (void)m, (void)device;
    *out = NULL;
    return NO_CUDA(err);
}
void dgnn_snapmodel_cuda_free(dgnn_snapmodel_cuda *d) { (void)d; }
int dgnn_snapmodel_cuda_inputs(dgnn_snapmodel_cuda *d, const dgnn_snap_input *in, const dgnn_snapshot *lab,
                               int64_t n, dgnn_err *err) {
    (void)d, (void)in, (void)lab, (void)n;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_train_sample(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng,
                                     const int32_t *src, const int32_t *dst, const int32_t *lab, int64_t M,
                                     const float *class_w, double *loss, dgnn_err *err) {
    (void)d, (void)t0, (void)T, (void)rng, (void)src, (void)dst, (void)lab, (void)M, (void)class_w, (void)loss;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_step(dgnn_snapmodel_cuda *d, double lr, double beta1, double beta2, double eps,
                             double weight_decay, int64_t t, dgnn_err *err) {
    (void)d, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)weight_decay, (void)t;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_group(dgnn_snapmodel_cuda *d, int begin, dgnn_err *err) {
    (void)d, (void)begin;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_logits(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, const int32_t *src,
                               const int32_t *dst, int64_t M, float *logits, dgnn_err *err) {
    (void)d, (void)t0, (void)T, (void)src, (void)dst, (void)M, (void)logits;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_link_metrics(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, int64_t label, double *ap,
                                     double *mrr, dgnn_err *err) {
    (void)d, (void)t0, (void)T, (void)label, (void)ap, (void)mrr;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_pull(dgnn_snapmodel_cuda *d, dgnn_params *p, dgnn_err *err) {
    (void)d, (void)p;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_push(dgnn_snapmodel_cuda *d, const dgnn_params *p, dgnn_err *err) {
    (void)d, (void)p;
    return NO_CUDA(err);
}

int dgnn_snapmodel_cuda_grad(dgnn_snapmodel_cuda *d, float *grad, int to_host, dgnn_err *err) {
    (void)d, (void)grad, (void)to_host;
    return NO_CUDA(err);
}
const char *dgnn_snapmodel_cuda_device_name(const dgnn_snapmodel_cuda *d) {
    (void)d;
    return "none";
}
#endif

/* ---- the node task: node_head.h's head on the device (snapmodel_cuda.h, "the node task") ----
 * The host head's forward and backward (node_head.c) composed of cuda.h's ops: hz = relu(H
 * W1^T + b1), yhat = hz W2^T + b2; backward dhz = dyhat W2 (and W2's, b2's gradients), dpre =
 * dhz where hz > 0, dH += dpre W1 (and W1's, b1's). */
#if DGNN_HAVE_CUDA

struct snapc_head {
    int64_t C, total;
    int64_t oW1, ob1, oW2, ob2;    /* the head's tensors' offsets in its slab */
    float *param, *grad, *am, *av; /* (total) in the host head's layout */
    float *hz, *dhz, *dpre;        /* (N, C) */
    float *y, *yhat, *dyhat;       /* (N) */
    double *loss;                  /* (1) */
};

dgnn_cuda *dgnn_snapmodel_cuda_context(dgnn_snapmodel_cuda *d) { return d->c; }
float *dgnn_snapmodel_cuda_grad_slab(dgnn_snapmodel_cuda *d) { return d->grad; }
float *dgnn_snapmodel_cuda_head_grad_slab(dgnn_snapmodel_cuda *d) { return d->head ? d->head->grad : NULL; }


void snapc_head_free(dgnn_snapmodel_cuda *g) {
    struct snapc_head *h = g->head;
    if (!h) return;
    void *p[] = {h->param, h->grad, h->am, h->av, h->hz, h->dhz, h->dpre, h->y, h->yhat, h->dyhat, h->loss};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, p[i]);
    free(h);
    g->head = NULL;
}

static int no_head(dgnn_err *err) {
    return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: no node head attached (dgnn_snapmodel_cuda_node_head)");
}

static int64_t head_offset(const dgnn_params *p, const char *name) {
    int i = dgnn_params_find(p, name);
    DGNN_ASSERT(i >= 0);
    return p->t[i].offset;
}

int dgnn_snapmodel_cuda_node_head(dgnn_snapmodel_cuda *d, const dgnn_node_head *head, dgnn_err *err) {
    if (head->N != d->N || head->L != d->L || head->C < 1 || head->p.total < 1)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--device cuda: a node head for %lld nodes of width %lld (C %lld), the model has %lld "
                            "nodes of width %lld", (long long)head->N, (long long)head->L, (long long)head->C,
                            (long long)d->N, (long long)d->L);
    int rc = dgnn_cuda_sync(d->c, err);
    if (rc) return rc;
    snapc_head_free(d);
    struct snapc_head *h = dgnn_xcalloc(1, sizeof *h);
    d->head = h;
    h->C = head->C, h->total = head->p.total;
    h->oW1 = head_offset(&head->p, "head.W1"), h->ob1 = head_offset(&head->p, "head.b1");
    h->oW2 = head_offset(&head->p, "head.W2"), h->ob2 = head_offset(&head->p, "head.b2");
    const int64_t N = d->N, NC = N * h->C;
    if ((rc = DALLOC_F(h->param, h->total, "the node head's parameters")) ||
        (rc = DALLOC_F(h->grad, h->total, "the node head's gradients")) ||
        (rc = DALLOC_F(h->am, h->total, "the node head's Adam first moments")) ||
        (rc = DALLOC_F(h->av, h->total, "the node head's Adam second moments")) ||
        (rc = DALLOC_F(h->hz, NC, "the node head's hidden layer")) ||
        (rc = DALLOC_F(h->dhz, NC, "the node head's hidden gradient")) ||
        (rc = DALLOC_F(h->dpre, NC, "the node head's hidden gradient")) ||
        (rc = DALLOC_F(h->y, N, "the node targets")) || (rc = DALLOC_F(h->yhat, N, "the node predictions")) ||
        (rc = DALLOC_F(h->dyhat, N, "the node predictions' gradient")) ||
        (rc = dalloc(d, (void **)&h->loss, 1, sizeof(double), "the node loss", err)) ||
        (rc = dgnn_snapmodel_cuda_head_push(d, &head->p, err))) {
        snapc_head_free(d);
        return rc;
    }
    return DGNN_OK;
}

/* h->yhat (N) from d->H, h->hz saved */
static int head_forward(dgnn_snapmodel_cuda *d, dgnn_err *err) {
    struct snapc_head *h = d->head;
    dgnn_cuda *c = d->c;
    const float *p = h->param;
    const int64_t N = d->N, C = h->C;
    int rc = dgnn_cuda_linear_forward(c, h->hz, d->H, p + h->oW1, p + h->ob1, N, d->L, C, err);
    if (!rc) rc = dgnn_cuda_relu_forward(c, h->hz, h->hz, N * C, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, h->yhat, h->hz, p + h->oW2, p + h->ob2, N, C, 1, err);
    return rc;
}

/* from h->dyhat: the head's gradients += and d->dH += */
static int head_backward(dgnn_snapmodel_cuda *d, dgnn_err *err) {
    struct snapc_head *h = d->head;
    dgnn_cuda *c = d->c;
    const float *p = h->param;
    float *g = h->grad;
    const int64_t N = d->N, C = h->C;
    const size_t ncb = (size_t)(N * C) * sizeof(float);
    int rc = dgnn_cuda_zero(c, h->dhz, ncb, err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, h->dhz, g + h->oW2, g + h->ob2, h->dyhat, h->hz, p + h->oW2, N, C, 1, err);
    if (!rc) rc = dgnn_cuda_zero(c, h->dpre, ncb, err);
    if (!rc) rc = dgnn_cuda_relu_backward(c, h->dpre, h->dhz, h->hz, N * C, err);
    if (!rc)
        rc = dgnn_cuda_linear_backward(c, d->dH, g + h->oW1, g + h->ob1, h->dpre, d->H, p + h->oW1, N, d->L, C, err);
    return rc;
}

int dgnn_snapmodel_cuda_node_train_sample(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng,
                                          const float *y, double *loss, dgnn_err *err) {
    *loss = NAN;
    struct snapc_head *h = d->head;
    if (!h) return no_head(err);
    dgnn_cuda *c = d->c;
    const int64_t N = d->N;
    int rc = dgnn_cuda_upload(c, h->y, y, (size_t)N * sizeof(float), err);
    if (!rc) rc = window_forward(d, t0, T, rng, err);
    if (!rc) rc = head_forward(d, err);
    if (!rc) rc = dgnn_cuda_mse_forward(c, h->loss, h->yhat, h->y, N, err);
    if (!rc) rc = dgnn_cuda_zero(c, h->dyhat, (size_t)N * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_mse_backward(c, h->dyhat, 1.0f, h->yhat, h->y, N, err);
    if (!rc) rc = dgnn_cuda_zero(c, d->dH, (size_t)(N * d->L) * sizeof(float), err);
    if (!rc) rc = head_backward(d, err);
    if (!rc) rc = d->ops->backward(d, t0, T, err);
    if (!rc) rc = dgnn_cuda_download(c, loss, h->loss, sizeof(double), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    return rc;
}

int dgnn_snapmodel_cuda_node_predict(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, float *yhat, dgnn_err *err) {
    struct snapc_head *h = d->head;
    if (!h) return no_head(err);
    int rc = window_forward(d, t0, T, NULL, err);
    if (!rc) rc = head_forward(d, err);
    if (!rc) rc = dgnn_cuda_download(d->c, yhat, h->yhat, (size_t)d->N * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_sync(d->c, err);
    return rc;
}

int dgnn_snapmodel_cuda_head_step(dgnn_snapmodel_cuda *d, double lr, double beta1, double beta2, double eps,
                                  double weight_decay, int64_t t, dgnn_err *err) {
    struct snapc_head *h = d->head;
    if (!h) return no_head(err);
    int rc = dgnn_cuda_adam_step(d->c, h->param, h->grad, h->am, h->av, h->total, lr, beta1, beta2, eps, weight_decay,
                                 t, err);
    if (!rc) rc = dgnn_cuda_zero(d->c, h->grad, (size_t)h->total * sizeof(float), err);
    return rc;
}

/* the head's four slabs, host (p) to device (to_dev 1) or back */
static int head_move(dgnn_snapmodel_cuda *d, const dgnn_params *p, int to_dev, dgnn_err *err) {
    struct snapc_head *h = d->head;
    if (!h) return no_head(err);
    if (p->total != h->total)
        return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: a node head slab of %lld floats, the device's has %lld",
                            (long long)p->total, (long long)h->total);
    float *host[4] = {p->value, p->grad, p->m, p->v}, *dev[4] = {h->param, h->grad, h->am, h->av};
    const size_t b = (size_t)h->total * sizeof(float);
    int rc = DGNN_OK;
    for (int k = 0; k < 4 && !rc; k++)
        rc = to_dev ? dgnn_cuda_upload(d->c, dev[k], host[k], b, err) : dgnn_cuda_download(d->c, host[k], dev[k], b, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

int dgnn_snapmodel_cuda_head_pull(dgnn_snapmodel_cuda *d, dgnn_params *p, dgnn_err *err) {
    return head_move(d, p, 0, err);
}

int dgnn_snapmodel_cuda_head_push(dgnn_snapmodel_cuda *d, const dgnn_params *p, dgnn_err *err) {
    return head_move(d, p, 1, err);
}

int dgnn_snapmodel_cuda_head_grad(dgnn_snapmodel_cuda *d, float *grad, int to_host, dgnn_err *err) {
    struct snapc_head *h = d->head;
    if (!h) return no_head(err);
    const size_t b = (size_t)h->total * sizeof(float);
    int rc = to_host ? dgnn_cuda_download(d->c, grad, h->grad, b, err) : dgnn_cuda_upload(d->c, h->grad, grad, b, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

#else /* no CUDA backend in this build: the node task's refusals */

int dgnn_snapmodel_cuda_node_head(dgnn_snapmodel_cuda *d, const dgnn_node_head *head, dgnn_err *err) {
    (void)d, (void)head;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_node_train_sample(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng,
                                          const float *y, double *loss, dgnn_err *err) {
    (void)d, (void)t0, (void)T, (void)rng, (void)y, (void)loss;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_node_predict(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, float *yhat, dgnn_err *err) {
    (void)d, (void)t0, (void)T, (void)yhat;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_head_step(dgnn_snapmodel_cuda *d, double lr, double beta1, double beta2, double eps,
                                  double weight_decay, int64_t t, dgnn_err *err) {
    (void)d, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)weight_decay, (void)t;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_head_pull(dgnn_snapmodel_cuda *d, dgnn_params *p, dgnn_err *err) {
    (void)d, (void)p;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_head_push(dgnn_snapmodel_cuda *d, const dgnn_params *p, dgnn_err *err) {
    (void)d, (void)p;
    return NO_CUDA(err);
}
int dgnn_snapmodel_cuda_head_grad(dgnn_snapmodel_cuda *d, float *grad, int to_host, dgnn_err *err) {
    (void)d, (void)grad, (void)to_host;
    return NO_CUDA(err);
}
dgnn_cuda *dgnn_snapmodel_cuda_context(dgnn_snapmodel_cuda *d) {
    (void)d;
    return NULL;
}
float *dgnn_snapmodel_cuda_grad_slab(dgnn_snapmodel_cuda *d) {
    (void)d;
    return NULL;
}
float *dgnn_snapmodel_cuda_head_grad_slab(dgnn_snapmodel_cuda *d) {
    (void)d;
    return NULL;
}
#endif
