/* egcn_cuda.c: EvolveGCN-O's and -H's window on the GPU (snapmodel_cuda.h), behind
 * snapmodel_cuda.c's table of kinds: evolvegcn.c's forward and backward, op for op, of the
 * CUDA backend's ops. -H's TopK over a one-hot input reads the one-hot rows, uploaded as a
 * dense (N, V) array (snapc_ops.rows). NOT YET VERIFIED ON HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA
#include <stdlib.h>

/* the kind's part of the device model (g->impl) */
typedef struct {
    int hmode;                     /* EvolveGCN-H: TopK summaries feed the matrix GRUs */
    int64_t oQ0[2], oG[2], oP[2];  /* slab offsets: the layers' Q0, matrix GRU blocks, TopK scorers */
    int64_t R[2];                  /* the layers' input widths: V, L */
    int64_t Tcap;
    float *Q[2], *gsaved[2];       /* (Tcap, R, L), (Tcap, 4, R, L) */
    float *X[2], *tk_tanh[2];      /* -H: (Tcap, R, L) TopK summaries, (Tcap, L) tanh of their scores */
    int32_t *tk_idx[2];            /* -H: (Tcap, L) the selected rows */
    float *dQa[2], *dQb[2], *dX[2]; /* (R, L) */
    float *mscratch;               /* 4 R L, the larger layer's */
    float *H1, *g1saved, *slope1;  /* (S1cap, N, L): layer 1 at every snapshot (-H) or the last (-O) */
    float *g2saved, *slope2, *dPre, *gscratch, *dH1; /* (N, L) */
    float *W1t, *W2t, *dW;         /* (L, V) dense input only; (L, L); (L, max(V, L)) */
} egcn_dev;

static void free_window(dgnn_snapmodel_cuda *g) {
    egcn_dev *d = g->impl;
    for (int l = 0; l < 2; l++) {
        dgnn_cuda_release(g->c, d->Q[l]), dgnn_cuda_release(g->c, d->gsaved[l]);
        dgnn_cuda_release(g->c, d->X[l]), dgnn_cuda_release(g->c, d->tk_tanh[l]), dgnn_cuda_release(g->c, d->tk_idx[l]);
        d->Q[l] = d->gsaved[l] = d->X[l] = d->tk_tanh[l] = NULL;
        d->tk_idx[l] = NULL;
    }
    dgnn_cuda_release(g->c, d->H1), dgnn_cuda_release(g->c, d->g1saved), dgnn_cuda_release(g->c, d->slope1);
    d->H1 = d->g1saved = d->slope1 = NULL;
    d->Tcap = 0;
}

static void egcn_free(dgnn_snapmodel_cuda *g) {
    egcn_dev *d = g->impl;
    if (!d) return;
    free_window(g);
    void *p[] = {d->dQa[0], d->dQa[1], d->dQb[0], d->dQb[1], d->dX[0], d->dX[1], d->mscratch, d->g2saved,
                 d->slope2, d->dPre, d->gscratch, d->dH1, d->W1t, d->W2t, d->dW};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, p[i]);
    free(d);
    g->impl = NULL;
}

static int egcn_init(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    egcn_dev *d = dgnn_xcalloc(1, sizeof *d);
    g->impl = d;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L, RLmax = (V > L ? V : L) * L;
    d->R[0] = V, d->R[1] = L;
    d->oQ0[0] = snapc_offset(m, "grcu1.Q0"), d->oQ0[1] = snapc_offset(m, "grcu2.Q0");
    d->oG[0] = snapc_offset(m, "grcu1.mgru[W;U;B]"), d->oG[1] = snapc_offset(m, "grcu2.mgru[W;U;B]");
    d->hmode = m->cfg.kind == DGNN_SNAPMODEL_EGCN_H;
    if (d->hmode) d->oP[0] = snapc_offset(m, "grcu1.topk_p"), d->oP[1] = snapc_offset(m, "grcu2.topk_p");
    int rc = DGNN_OK;
    for (int l = 0; l < 2 && !rc; l++)
        if ((rc = SNAPC_ALLOC_F(g, d->dQa[l], d->R[l] * L, "the weights' gradient chain")) ||
            (rc = SNAPC_ALLOC_F(g, d->dQb[l], d->R[l] * L, "the weights' gradient chain")) ||
            (d->hmode && (rc = SNAPC_ALLOC_F(g, d->dX[l], d->R[l] * L, "TopK's summary gradient"))))
            break;
    float **nl[] = {&d->g2saved, &d->slope2, &d->dPre, &d->gscratch, &d->dH1};
    for (size_t i = 0; i < sizeof nl / sizeof nl[0] && !rc; i++)
        rc = SNAPC_ALLOC_F(g, *nl[i], NL, "the window's node activations");
    if (!rc) rc = SNAPC_ALLOC_F(g, d->mscratch, 4 * RLmax, "the matrix GRU's scratch");
    if (!rc) rc = SNAPC_ALLOC_F(g, d->W2t, L * L, "Q2^T");
    if (!rc) rc = SNAPC_ALLOC_F(g, d->dW, RLmax, "a weight gradient");
    if (!rc && !m->cfg.onehot) rc = SNAPC_ALLOC_F(g, d->W1t, L * V, "Q1^T");
    return rc; /* the front frees a partial kind (egcn_free) */
}

static int ensure_window(dgnn_snapmodel_cuda *g, int64_t T, dgnn_err *err) {
    egcn_dev *d = g->impl;
    if (T <= d->Tcap) return DGNN_OK;
    int rc = dgnn_cuda_sync(g->c, err);
    if (rc) return rc;
    free_window(g);
    const int64_t L = g->L, S1 = d->hmode ? T : 1;
    for (int l = 0; l < 2; l++) {
        const int64_t RL = d->R[l] * L;
        if ((rc = SNAPC_ALLOC_F(g, d->Q[l], T * RL, "the window's evolved weights")) ||
            (rc = SNAPC_ALLOC_F(g, d->gsaved[l], T * 4 * RL, "the matrix GRU's saved gates")))
            return rc;
        if (d->hmode && ((rc = SNAPC_ALLOC_F(g, d->X[l], T * RL, "the window's TopK summaries")) ||
                         (rc = SNAPC_ALLOC_F(g, d->tk_tanh[l], T * L, "the window's TopK scores")) ||
                         (rc = snapc_alloc(g, (void **)&d->tk_idx[l], T * L, sizeof(int32_t), "the window's TopK rows", err))))
            return rc;
    }
    if ((rc = SNAPC_ALLOC_F(g, d->H1, S1 * g->N * L, "the window's layer-1 outputs")) ||
        (rc = SNAPC_ALLOC_F(g, d->g1saved, S1 * g->N * L, "the window's layer-1 products")) ||
        (rc = SNAPC_ALLOC_F(g, d->slope1, S1 * g->N * L, "the window's layer-1 RReLU slopes")))
        return rc;
    d->Tcap = T;
    return DGNN_OK;
}

/* H1_s (N, L) = RReLU(A X Q1) for layer 1's input of snapshot s (evolvegcn.c's layer1_gcn),
 * into slot `slot` of the layer-1 buffers */
static int layer1_gcn(dgnn_snapmodel_cuda *g, const snapc_snap *s, const float *Q1, int64_t slot, dgnn_rng *rng,
                      dgnn_err *err) {
    egcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L;
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

/* the window [t0, t0 + T): evolvegcn.c's egcn_forward, H (N, L) into g->H */
static int egcn_forward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    egcn_dev *d = g->impl;
    int rc = ensure_window(g, T, err);
    if (rc) return rc;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L;
    const int64_t RL1 = V * L, RL2 = L * L;
    const int h = d->hmode;
    const float *G1 = g->param + d->oG[0], *G2 = g->param + d->oG[1];
    const float *Q1prev = g->param + d->oQ0[0], *Q2prev = g->param + d->oQ0[1];
    for (int64_t t = 0; t < T && !rc; t++) {
        const snapc_snap *s = &g->s[t0 + t];
        const int last = t == T - 1;
        float *Q1 = d->Q[0] + t * RL1, *Q2 = d->Q[1] + t * RL2;
        /* layer 1: evolve (-H: from TopK's summary of the input), then propagate where the
         * output is used (-O: the last snapshot only, snapmodel.h) */
        const float *x1 = Q1prev;
        if (h) {
            float *X1 = d->X[0] + t * RL1;
            rc = dgnn_cuda_topk_forward(c, NULL, X1, d->tk_idx[0] + t * L, d->tk_tanh[0] + t * L, s->feat,
                                        g->param + d->oP[0], s->mask, N, V, L, err);
            x1 = X1;
        }
        if (!rc) rc = dgnn_cuda_mgru_forward(c, Q1, d->gsaved[0] + t * 4 * RL1, x1, Q1prev, G1, V, L, err);
        const int64_t s1 = h ? t : 0;
        if (!rc && (h || last)) rc = layer1_gcn(g, s, Q1, s1, rng, err);
        /* layer 2 */
        const float *x2 = Q2prev;
        if (!rc && h) {
            float *X2 = d->X[1] + t * RL2;
            rc = dgnn_cuda_topk_forward(c, NULL, X2, d->tk_idx[1] + t * L, d->tk_tanh[1] + t * L, d->H1 + s1 * NL,
                                        g->param + d->oP[1], s->mask, N, L, L, err);
            x2 = X2;
        }
        if (!rc) rc = dgnn_cuda_mgru_forward(c, Q2, d->gsaved[1] + t * 4 * RL2, x2, Q2prev, G2, L, L, err);
        if (!rc && last) {
            dgnn_cuda_csr *A = (dgnn_cuda_csr *)&s->A;
            rc = dgnn_cuda_transpose(c, d->W2t, Q2, L, L, 0, err);
            if (!rc) rc = dgnn_cuda_gcn_forward(c, g->H, d->g2saved, A, d->H1 + s1 * NL, d->W2t, NULL, N, L, L, err);
            const int training = rng != NULL;
            uint64_t key = training ? dgnn_rng_u64(rng) : 0;
            if (!rc)
                rc = dgnn_cuda_rrelu_forward(c, g->H, d->slope2, g->H, NL, m->cfg.rrelu_lower, m->cfg.rrelu_upper,
                                             training, &key, err);
        }
        Q1prev = Q1, Q2prev = Q2;
    }
    return rc;
}

/* evolvegcn.c's egcn_backward from g->dH: the gradients accumulate into g->grad. The walk
 * is t = T..1 with layer 2 first at each t: by then the gradient of layer 1's output at t
 * (dH1) is complete. */
static int egcn_backward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err) {
    egcn_dev *d = g->impl;
    dgnn_cuda *c = g->c;
    const dgnn_snapmodel *m = g->m;
    const int64_t N = g->N, V = g->V, L = g->L, NL = N * L, RL1 = V * L, RL2 = L * L;
    const size_t NLb = (size_t)NL * sizeof(float);
    const int h = d->hmode;
    const float *G1 = g->param + d->oG[0], *G2 = g->param + d->oG[1];
    float *dG1 = g->grad + d->oG[0], *dG2 = g->grad + d->oG[1];
    const float *Q10 = g->param + d->oQ0[0], *Q20 = g->param + d->oQ0[1];
    float *dQ10 = g->grad + d->oQ0[0], *dQ20 = g->grad + d->oQ0[1];
    const snapc_snap *sT = &g->s[t0 + T - 1];
    dgnn_cuda_csr *AtT = (dgnn_cuda_csr *)(sT->At.rows ? &sT->At : &sT->A);
    const float *H1T = d->H1 + (h ? T - 1 : 0) * NL;

    /* layer 2's propagation at T: H = RReLU(A H1_T Q2_T), in dgnn_gcn_forward's A (X W^T) order */
    int rc = dgnn_cuda_zero(c, d->dPre, NLb, err);
    if (!rc) rc = dgnn_cuda_rrelu_backward(c, d->dPre, g->dH, d->slope2, NL, err);
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
        const snapc_snap *s = &g->s[t0 + t];
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
                rc = dgnn_cuda_topk_backward(c, d->dH1, g->grad + d->oP[1], d->dX[1], d->tk_idx[1] + t * L,
                                             d->tk_tanh[1] + t * L, d->H1 + s1 * NL, g->param + d->oP[1], N, L, L, err);
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
                rc = dgnn_cuda_topk_backward(c, NULL, g->grad + d->oP[0], d->dX[0], d->tk_idx[0] + t * L,
                                             d->tk_tanh[0] + t * L, s->feat, g->param + d->oP[0], N, V, L, err);
        } else if (!rc) {
            rc = dgnn_cuda_mgru_backward(c, into1, into1, dG1, d->mscratch, dQ1, d->gsaved[0] + t * 4 * RL1, Q1prev,
                                         Q1prev, G1, V, L, err);
        }
        sw = dQ1;
        dQ1 = dQ1p, dQ1p = sw;
    }
    return rc;
}

const snapc_ops snapc_egcn_ops = {.rows = 1, .init = egcn_init, .forward = egcn_forward, .backward = egcn_backward,
                                   .free = egcn_free};
#endif
