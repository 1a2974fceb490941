/* snapmodel_cuda.c: a snapshot model on the GPU (snapmodel_cuda.h): EvolveGCN-O's and -H's
 * window (evolvegcn.c's forward and backward, op for op; -H's TopK over a one-hot input reads
 * the one-hot rows, uploaded as a dense (N, V) array) and the pair classifier, composed of
 * the CUDA backend's ops (cuda.h), with the host model's parameter layout.
 * NOT YET VERIFIED ON HARDWARE.
 * Without the CUDA backend (DGNN_HAVE_CUDA unset) only the refusals are compiled. */
#include "dgnn/snapmodel_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapmodel_internal.h"

int dgnn_snapmodel_cuda_supports(const dgnn_snapmodel_cfg *cfg, dgnn_err *err) {
    if (cfg->kind != DGNN_SNAPMODEL_EGCN_O && cfg->kind != DGNN_SNAPMODEL_EGCN_H)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--device cuda: the GPU path runs evolvegcn-o and evolvegcn-h only so far (not %s); use "
                            "--device cpu", dgnn_snapmodel_name(cfg->kind));
    return DGNN_OK;
}

#if DGNN_HAVE_CUDA
#include "dgnn/cuda.h"

/* one snapshot on the device */
typedef struct {
    dgnn_cuda_csr A, At; /* A_hat; its transpose when the input gives one (At.rows 0 otherwise) */
    dgnn_cuda_csr lab;   /* the snapshot's own A (the link task's labels), when has_lab */
    int has_lab;
    int32_t *idx;        /* (N) one-hot categories, or NULL */
    float *feat;         /* (N, V) dense input; -H with one-hot input: the one-hot rows, TopK's X */
    uint8_t *mask;       /* (N) TopK's candidates (-H), or NULL: every node */
} dsnap;

struct dgnn_snapmodel_cuda {
    dgnn_snapmodel *m;
    dgnn_cuda *c;
    int64_t N, V, L, C, K, total;
    float *param, *grad, *am, *av; /* (total) device slabs in the host slab's layout */
    /* offsets in the slab: the two GRCU layers' Q0 and matrix GRU blocks, the classifier */
    int64_t oQ0[2], oG[2], oP[2], oW1, ob1, oW2, ob2;
    int64_t R[2];                  /* the layers' input widths: V, L */
    int hmode;                     /* EvolveGCN-H: TopK summaries feed the matrix GRUs */
    dsnap *s;
    int64_t ns;
    /* the window (device) */
    int64_t Tcap;
    float *Q[2], *gsaved[2];       /* (Tcap, R, L), (Tcap, 4, R, L) */
    float *X[2], *tk_tanh[2];      /* -H: (Tcap, R, L) TopK summaries, (Tcap, L) tanh of their scores */
    int32_t *tk_idx[2];            /* -H: (Tcap, L) the selected rows */
    float *dQa[2], *dQb[2], *dX[2]; /* (R, L) */
    float *mscratch;               /* 4 R L, the larger layer's */
    float *H1, *g1saved, *slope1;  /* (S1cap, N, L): layer 1 at every snapshot (-H) or the last (-O) */
    float *H, *g2saved, *slope2, *dH, *dPre, *gscratch, *dH1; /* (N, L) */
    float *W1t, *W2t, *dW;         /* (L, V) dense input only; (L, L); (L, max(V, L)) */
    /* the classifier (device) */
    float *P, *Qc, *dP, *dQc;      /* (N, C) */
    float *hid, *gscr;             /* (Mcap, C) */
    float *logits, *dlogits;       /* (Mcap, K) */
    int32_t *src, *dst, *lab, *perm; /* (Mcap); perm: [sperm | dperm] (2 Mcap) */
    int32_t *offs;                 /* (2 (N + 1)): [soff | doff] */
    float *class_w;                /* (2) */
    double *loss;                  /* (1) */
    float *prob;                   /* (N, N), grown at the first link evaluation */
    int64_t Mcap;
    /* host staging for the pairs' grouping */
    int32_t *h_offs, *h_perm;
    int64_t h_cap;
    char name[128];
};

int dgnn_snapmodel_cuda_built(void) { return 1; }
int dgnn_snapmodel_cuda_devices(void) { return dgnn_cuda_device_count(); }

static void free_snaps(dgnn_snapmodel_cuda *d) {
    for (int64_t i = 0; i < d->ns; i++) {
        dsnap *s = &d->s[i];
        dgnn_cuda_csr_free(d->c, &s->A), dgnn_cuda_csr_free(d->c, &s->At), dgnn_cuda_csr_free(d->c, &s->lab);
        dgnn_cuda_release(d->c, s->idx), dgnn_cuda_release(d->c, s->feat), dgnn_cuda_release(d->c, s->mask);
    }
    free(d->s);
    d->s = NULL, d->ns = 0;
}

static void free_window(dgnn_snapmodel_cuda *d) {
    for (int l = 0; l < 2; l++) {
        dgnn_cuda_release(d->c, d->Q[l]), dgnn_cuda_release(d->c, d->gsaved[l]);
        dgnn_cuda_release(d->c, d->X[l]), dgnn_cuda_release(d->c, d->tk_tanh[l]), dgnn_cuda_release(d->c, d->tk_idx[l]);
        d->Q[l] = d->gsaved[l] = d->X[l] = d->tk_tanh[l] = NULL;
        d->tk_idx[l] = NULL;
    }
    dgnn_cuda_release(d->c, d->H1), dgnn_cuda_release(d->c, d->g1saved), dgnn_cuda_release(d->c, d->slope1);
    d->H1 = d->g1saved = d->slope1 = NULL;
    d->Tcap = 0;
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
        free_snaps(d);
        free_window(d);
        free_pairs(d);
        void *p[] = {d->param, d->grad, d->am, d->av, d->dQa[0], d->dQa[1], d->dQb[0], d->dQb[1], d->dX[0],
                     d->dX[1], d->mscratch, d->H, d->g2saved, d->slope2, d->dH, d->dPre, d->gscratch,
                     d->dH1, d->W1t, d->W2t, d->dW, d->P, d->Qc, d->dP, d->dQc, d->offs, d->class_w, d->loss,
                     d->prob};
        for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(d->c, p[i]);
        dgnn_cuda_free(d->c);
    }
    free(d->h_offs), free(d->h_perm);
    free(d);
}

/* device buffers of n floats (or other elements of `size` bytes) each, named for messages */
static int dalloc(dgnn_snapmodel_cuda *d, void **p, int64_t n, size_t size, const char *what, dgnn_err *err) {
    return dgnn_cuda_alloc(d->c, p, (size_t)n * size, what, err);
}
#define DALLOC_F(ptr, n, what) dalloc(d, (void **)&(ptr), (n), sizeof(float), (what), err)

static int64_t offset_of(const dgnn_snapmodel *m, const char *name) {
    int i = dgnn_params_find(&m->p, name);
    DGNN_ASSERT(i >= 0);
    return m->p.t[i].offset;
}

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
    d->R[0] = d->V, d->R[1] = d->L;
    d->oQ0[0] = offset_of(m, "grcu1.Q0"), d->oQ0[1] = offset_of(m, "grcu2.Q0");
    d->oG[0] = offset_of(m, "grcu1.mgru[W;U;B]"), d->oG[1] = offset_of(m, "grcu2.mgru[W;U;B]");
    d->hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    if (d->hmode) d->oP[0] = offset_of(m, "grcu1.topk_p"), d->oP[1] = offset_of(m, "grcu2.topk_p");
    d->oW1 = m->p.t[m->icW1].offset, d->ob1 = m->p.t[m->icb1].offset;
    d->oW2 = m->p.t[m->icW2].offset, d->ob2 = m->p.t[m->icb2].offset;
    const int64_t N = d->N, V = d->V, L = d->L, C = d->C, NL = N * L, NC = N * C;
    const int64_t RCmax = (V > L ? V : L) * L;
    if ((rc = DALLOC_F(d->param, d->total, "the parameter slab")) || (rc = DALLOC_F(d->grad, d->total, "the gradients")) ||
        (rc = DALLOC_F(d->am, d->total, "Adam's first moments")) || (rc = DALLOC_F(d->av, d->total, "Adam's second moments")))
        goto fail;
    for (int l = 0; l < 2; l++)
        if ((rc = DALLOC_F(d->dQa[l], d->R[l] * L, "the weights' gradient chain")) ||
            (rc = DALLOC_F(d->dQb[l], d->R[l] * L, "the weights' gradient chain")) ||
            (d->hmode && (rc = DALLOC_F(d->dX[l], d->R[l] * L, "TopK's summary gradient"))))
            goto fail;
    float **nl[] = {&d->H, &d->g2saved, &d->slope2, &d->dH, &d->dPre, &d->gscratch, &d->dH1};
    for (size_t i = 0; i < sizeof nl / sizeof nl[0]; i++)
        if ((rc = DALLOC_F(*nl[i], NL, "the window's node activations"))) goto fail;
    float **nc[] = {&d->P, &d->Qc, &d->dP, &d->dQc};
    for (size_t i = 0; i < sizeof nc / sizeof nc[0]; i++)
        if ((rc = DALLOC_F(*nc[i], NC, "the classifier's per-node layer"))) goto fail;
    if ((rc = DALLOC_F(d->mscratch, 4 * RCmax, "the matrix GRU's scratch")) ||
        (rc = DALLOC_F(d->W2t, L * L, "Q2^T")) || (rc = DALLOC_F(d->dW, L * (V > L ? V : L), "a weight gradient")) ||
        (!m->cfg.onehot && (rc = DALLOC_F(d->W1t, L * V, "Q1^T"))) ||
        (rc = dalloc(d, (void **)&d->offs, 2 * (N + 1), sizeof(int32_t), "the pairs' grouping", err)) ||
        (rc = DALLOC_F(d->class_w, 2, "the class weights")) ||
        (rc = dalloc(d, (void **)&d->loss, 1, sizeof(double), "the loss", err)))
        goto fail;
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
        dsnap *s = &d->s[t];
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
            if (d->hmode) { /* TopK reads the input rows: e_idx (a zero row for -1) */
                float *rows = dgnn_xcalloc((size_t)(N * V), sizeof(float));
                for (int64_t i = 0; i < N; i++)
                    if (x->feat_idx[i] >= 0) rows[i * V + x->feat_idx[i]] = 1.0f;
                rc = DALLOC_F(s->feat, N * V, "a snapshot's one-hot rows (EvolveGCN-H's TopK)");
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
        if (d->hmode && x->mask &&
            ((rc = dalloc(d, (void **)&s->mask, N, 1, "a snapshot's TopK mask", err)) ||
             (rc = dgnn_cuda_upload(d->c, s->mask, x->mask, (size_t)N, err))))
            return rc;
    }
    return dgnn_cuda_sync(d->c, err);
}

static int ensure_window(dgnn_snapmodel_cuda *d, int64_t T, dgnn_err *err) {
    if (T <= d->Tcap) return DGNN_OK;
    int rc = dgnn_cuda_sync(d->c, err);
    if (rc) return rc;
    free_window(d);
    const int64_t L = d->L, S1 = d->hmode ? T : 1;
    for (int l = 0; l < 2; l++) {
        const int64_t RL = d->R[l] * L;
        if ((rc = DALLOC_F(d->Q[l], T * RL, "the window's evolved weights")) ||
            (rc = DALLOC_F(d->gsaved[l], T * 4 * RL, "the matrix GRU's saved gates")))
            return rc;
        if (d->hmode && ((rc = DALLOC_F(d->X[l], T * RL, "the window's TopK summaries")) ||
                         (rc = DALLOC_F(d->tk_tanh[l], T * L, "the window's TopK scores")) ||
                         (rc = dalloc(d, (void **)&d->tk_idx[l], T * L, sizeof(int32_t), "the window's TopK rows", err))))
            return rc;
    }
    if ((rc = DALLOC_F(d->H1, S1 * d->N * L, "the window's layer-1 outputs")) ||
        (rc = DALLOC_F(d->g1saved, S1 * d->N * L, "the window's layer-1 products")) ||
        (rc = DALLOC_F(d->slope1, S1 * d->N * L, "the window's layer-1 RReLU slopes")))
        return rc;
    d->Tcap = T;
    return DGNN_OK;
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

/* H1_s (N, L) = RReLU(A X Q1) for layer 1's input of snapshot s (evolvegcn.c's layer1_gcn),
 * into slot `slot` of the layer-1 buffers */
static int layer1_gcn(dgnn_snapmodel_cuda *d, const dsnap *s, const float *Q1, int64_t slot, dgnn_rng *rng,
                      dgnn_err *err) {
    dgnn_cuda *c = d->c;
    const dgnn_snapmodel *m = d->m;
    const int64_t N = d->N, V = d->V, L = d->L, NL = N * L;
    float *H1 = d->H1 + slot * NL, *saved = d->g1saved + slot * NL, *slope = d->slope1 + slot * NL;
    dgnn_cuda_csr *A = (dgnn_cuda_csr *)&s->A;
    int rc;
    if (m->cfg.onehot) {
        rc = dgnn_cuda_gcn_onehot_forward(c, H1, saved, A, s->idx, Q1, NULL, N, V, L, err);
    } else {
        rc = dgnn_cuda_transpose(c, d->W1t, Q1, V, L, 0, err); /* GCN's W (L, V) = Q^T */
        if (!rc) rc = dgnn_cuda_gcn_forward(c, H1, saved, A, s->feat, d->W1t, NULL, N, V, L, err);
    }
    const int training = rng != NULL;
    uint64_t key = training ? dgnn_rng_u64(rng) : 0; /* one draw per RReLU, as the CPU's */
    if (!rc) rc = dgnn_cuda_rrelu_forward(c, H1, slope, H1, NL, m->cfg.rrelu_lower, m->cfg.rrelu_upper, training, &key, err);
    return rc;
}

/* the window [t0, t0 + T): evolvegcn.c's egcn_forward, H (N, L) into d->H */
static int window_forward(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    if (T < 1 || t0 < 0 || t0 + T > d->ns)
        return dgnn_err_set(err, DGNN_EINVAL, "--device cuda: window %lld..%lld outside the %lld uploaded snapshots",
                            (long long)t0, (long long)(t0 + T - 1), (long long)d->ns);
    int rc = ensure_window(d, T, err);
    if (rc) return rc;
    dgnn_cuda *c = d->c;
    const dgnn_snapmodel *m = d->m;
    const int64_t N = d->N, V = d->V, L = d->L, NL = N * L;
    const int64_t RL1 = V * L, RL2 = L * L;
    const int h = d->hmode;
    const float *G1 = d->param + d->oG[0], *G2 = d->param + d->oG[1];
    const float *Q1prev = d->param + d->oQ0[0], *Q2prev = d->param + d->oQ0[1];
    for (int64_t t = 0; t < T && !rc; t++) {
        const dsnap *s = &d->s[t0 + t];
        const int last = t == T - 1;
        float *Q1 = d->Q[0] + t * RL1, *Q2 = d->Q[1] + t * RL2;
        /* layer 1: evolve (-H: from TopK's summary of the input), then propagate where the
         * output is used (-O: the last snapshot only, snapmodel.h) */
        const float *x1 = Q1prev;
        if (h) {
            float *X1 = d->X[0] + t * RL1;
            rc = dgnn_cuda_topk_forward(c, NULL, X1, d->tk_idx[0] + t * L, d->tk_tanh[0] + t * L, s->feat,
                                        d->param + d->oP[0], s->mask, N, V, L, err);
            x1 = X1;
        }
        if (!rc) rc = dgnn_cuda_mgru_forward(c, Q1, d->gsaved[0] + t * 4 * RL1, x1, Q1prev, G1, V, L, err);
        const int64_t s1 = h ? t : 0;
        if (!rc && (h || last)) rc = layer1_gcn(d, s, Q1, s1, rng, err);
        /* layer 2 */
        const float *x2 = Q2prev;
        if (!rc && h) {
            float *X2 = d->X[1] + t * RL2;
            rc = dgnn_cuda_topk_forward(c, NULL, X2, d->tk_idx[1] + t * L, d->tk_tanh[1] + t * L, d->H1 + s1 * NL,
                                        d->param + d->oP[1], s->mask, N, L, L, err);
            x2 = X2;
        }
        if (!rc) rc = dgnn_cuda_mgru_forward(c, Q2, d->gsaved[1] + t * 4 * RL2, x2, Q2prev, G2, L, L, err);
        if (!rc && last) {
            dgnn_cuda_csr *A = (dgnn_cuda_csr *)&s->A;
            rc = dgnn_cuda_transpose(c, d->W2t, Q2, L, L, 0, err);
            if (!rc) rc = dgnn_cuda_gcn_forward(c, d->H, d->g2saved, A, d->H1 + s1 * NL, d->W2t, NULL, N, L, L, err);
            const int training = rng != NULL;
            uint64_t key = training ? dgnn_rng_u64(rng) : 0;
            if (!rc)
                rc = dgnn_cuda_rrelu_forward(c, d->H, d->slope2, d->H, NL, m->cfg.rrelu_lower, m->cfg.rrelu_upper,
                                             training, &key, err);
        }
        Q1prev = Q1, Q2prev = Q2;
    }
    return rc;
}

/* evolvegcn.c's egcn_backward from d->dH: the gradients accumulate into d->grad. The walk
 * is t = T..1 with layer 2 first at each t: by then the gradient of layer 1's output at t
 * (dH1) is complete. */
static int window_backward(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_err *err) {
    dgnn_cuda *c = d->c;
    const dgnn_snapmodel *m = d->m;
    const int64_t N = d->N, V = d->V, L = d->L, NL = N * L, RL1 = V * L, RL2 = L * L;
    const size_t NLb = (size_t)NL * sizeof(float);
    const int h = d->hmode;
    const float *G1 = d->param + d->oG[0], *G2 = d->param + d->oG[1];
    float *dG1 = d->grad + d->oG[0], *dG2 = d->grad + d->oG[1];
    const float *Q10 = d->param + d->oQ0[0], *Q20 = d->param + d->oQ0[1];
    float *dQ10 = d->grad + d->oQ0[0], *dQ20 = d->grad + d->oQ0[1];
    const dsnap *sT = &d->s[t0 + T - 1];
    dgnn_cuda_csr *AtT = (dgnn_cuda_csr *)(sT->At.rows ? &sT->At : &sT->A);
    const float *H1T = d->H1 + (h ? T - 1 : 0) * NL;

    /* layer 2's propagation at T: H = RReLU(A H1_T Q2_T), in dgnn_gcn_forward's A (X W^T) order */
    int rc = dgnn_cuda_zero(c, d->dPre, NLb, err);
    if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dPre, d->dH, d->slope2, NL, err);
    if (!rc) rc = dgnn_cuda_zero(c, d->dH1, NLb, err);
    if (!rc) rc = dgnn_cuda_zero(c, d->dW, (size_t)(L * L) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, d->gscratch, NLb, err);
    if (!rc) rc = dgnn_cuda_spmm_backward(c, d->gscratch, AtT, d->dPre, L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, N, L, L, d->gscratch, L, d->W2t, L, 1.0f, d->dH1, L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, L, L, N, d->gscratch, L, H1T, L, 1.0f, d->dW, L, err);
    float *dQ2 = d->dQa[1], *dQ2p = d->dQb[1], *dQ1 = d->dQa[0], *dQ1p = d->dQb[0];
    if (!rc) rc = dgnn_cuda_transpose(c, dQ2, d->dW, L, L, 0, err); /* dW is the gradient of Q2_T^T */
    if (!rc) rc = dgnn_cuda_zero(c, dQ1, (size_t)RL1 * sizeof(float), err);

    for (int64_t t = T - 1; t >= 0 && !rc; t--) {
        const dsnap *s = &d->s[t0 + t];
        const int64_t s1 = h ? t : 0;
        /* layer 2, step t: dQ2 = dL/dQ2_t. At t = 0 the previous weights are Q2_0, whose
         * gradient goes straight into the slab (+=). */
        const float *Q2prev = t > 0 ? d->Q[1] + (t - 1) * RL2 : Q20;
        float *into2 = t > 0 ? dQ2p : dQ20;
        if (t > 0) rc = dgnn_cuda_zero(c, dQ2p, (size_t)RL2 * sizeof(float), err);
        if (h) {
            if (!rc) rc = dgnn_cuda_zero(c, d->dX[1], (size_t)RL2 * sizeof(float), err);
            if (!rc)
                rc = dgnn_cuda_mgru_backward(c, d->dX[1], into2, dG2, d->mscratch, dQ2, d->gsaved[1] + t * 4 * RL2,
                                             d->X[1] + t * RL2, Q2prev, G2, L, L, err);
            if (!rc)
                rc = dgnn_cuda_topk_backward(c, d->dH1, d->grad + d->oP[1], d->dX[1], d->tk_idx[1] + t * L,
                                             d->tk_tanh[1] + t * L, d->H1 + s1 * NL, d->param + d->oP[1], N, L, L, err);
        } else if (!rc) {
            rc = dgnn_cuda_mgru_backward(c, into2, into2, dG2, d->mscratch, dQ2, d->gsaved[1] + t * 4 * RL2, Q2prev,
                                         Q2prev, G2, L, L, err);
        }
        float *sw = dQ2;
        dQ2 = dQ2p, dQ2p = sw;
        /* layer 1, step t: its output's gradient (dH1) is complete now */
        if (!rc && (h || t == T - 1)) {
            dgnn_cuda_csr *At = (dgnn_cuda_csr *)(s->At.rows ? &s->At : &s->A);
            rc = dgnn_cuda_zero(c, d->dPre, NLb, err);
            if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dPre, d->dH1, d->slope1 + s1 * NL, NL, err);
            if (m->cfg.onehot) {
                if (!rc) rc = dgnn_cuda_gcn_onehot_backward(c, dQ1, NULL, d->gscratch, d->dPre, At, s->idx, N, V, L, err);
            } else {
                const float *Q1 = d->Q[0] + t * RL1;
                if (!rc) rc = dgnn_cuda_transpose(c, d->W1t, Q1, V, L, 0, err);
                if (!rc) rc = dgnn_cuda_zero(c, d->dW, (size_t)(L * V) * sizeof(float), err);
                if (!rc)
                    rc = dgnn_cuda_gcn_backward(c, NULL, d->dW, NULL, d->gscratch, d->dPre, d->g1saved + s1 * NL, At,
                                                s->feat, d->W1t, N, V, L, err);
                if (!rc) rc = dgnn_cuda_transpose(c, dQ1, d->dW, L, V, 1, err);
            }
            if (!rc && h) rc = dgnn_cuda_zero(c, d->dH1, NLb, err); /* the next (earlier) step's */
        }
        const float *Q1prev = t > 0 ? d->Q[0] + (t - 1) * RL1 : Q10;
        float *into1 = t > 0 ? dQ1p : dQ10;
        if (!rc && t > 0) rc = dgnn_cuda_zero(c, dQ1p, (size_t)RL1 * sizeof(float), err);
        if (h) {
            if (!rc) rc = dgnn_cuda_zero(c, d->dX[0], (size_t)RL1 * sizeof(float), err);
            if (!rc)
                rc = dgnn_cuda_mgru_backward(c, d->dX[0], into1, dG1, d->mscratch, dQ1, d->gsaved[0] + t * 4 * RL1,
                                             d->X[0] + t * RL1, Q1prev, G1, V, L, err);
            /* the input has no gradient: only the scorer's */
            if (!rc)
                rc = dgnn_cuda_topk_backward(c, NULL, d->grad + d->oP[0], d->dX[0], d->tk_idx[0] + t * L,
                                             d->tk_tanh[0] + t * L, s->feat, d->param + d->oP[0], N, V, L, err);
        } else if (!rc) {
            rc = dgnn_cuda_mgru_backward(c, into1, into1, dG1, d->mscratch, dQ1, d->gsaved[0] + t * 4 * RL1, Q1prev,
                                         Q1prev, G1, V, L, err);
        }
        sw = dQ1;
        dQ1 = dQ1p, dQ1p = sw;
    }
    return rc;
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
    if (!rc) rc = window_backward(d, t0, T, err);
    if (!rc) rc = dgnn_cuda_download(c, loss, d->loss, sizeof(double), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    return rc;
}

int dgnn_snapmodel_cuda_step(dgnn_snapmodel_cuda *d, dgnn_adam *opt, dgnn_err *err) {
    opt->t++;
    int rc = dgnn_cuda_adam_step(d->c, d->param, d->grad, d->am, d->av, d->total, opt->lr, opt->beta1, opt->beta2,
                                 opt->eps, opt->weight_decay, opt->t, err);
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
int dgnn_snapmodel_cuda_step(dgnn_snapmodel_cuda *d, dgnn_adam *opt, dgnn_err *err) {
    (void)d, (void)opt;
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
