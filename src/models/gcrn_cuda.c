/* gcrn_cuda.c: GCRN-GRU's window on the GPU (snapmodel_cuda.h), behind snapmodel_cuda.c's
 * table of kinds: gcrn.c's forward and backward, op for op, of the CUDA backend's ops (the
 * GCNs on the node input and on the state of snapmodel_gcn_cuda.c, the element-wise gates
 * of snap_gates.cu). Per snapshot t (A = A_hat_t, X = X_t), H_0 = 0:
 *   Z  = sigmoid(A X Wx_z + bx_z + A H Wh_z + bh_z), R likewise,
 *   Ht = tanh(A X Wx_h + bx_h + A (H R) Wh_h + bh_h), H = Z H + (1 - Z) Ht.
 * No randomness (gcrn.c draws nothing from the rng). The parameters are found by gcrn.c's
 * names. NOT YET VERIFIED ON HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA

static int gcrn_init(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    static const char *const part[2] = {"conv_x", "conv_h"}; /* gcrn.c's names */
    return snapc_ngru_init(g, "gcrn", part, 0, "GCRN-GRU", err);
}

/* the window [t0, t0 + T): gcrn.c's gcrn_forward, H_T (N, L) into g->H */
static int gcrn_forward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    (void)rng; /* no randomness, as gcrn.c */
    snapc_ngru *d = g->impl;
    int rc = snapc_ngru_ensure(g, T, err);
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, L = g->L, NL = N * L;
    const float *p = g->param;
    for (int64_t t = 0; t < T && !rc; t++) {
        const snapc_snap *s = &g->s[t0 + t];
        const float *Hp = t > 0 ? d->Hs + (t - 1) * NL : d->zero;
        float *Z = d->Z + t * NL, *R = d->R + t * NL, *Ht = d->Ht + t * NL, *HR = d->HR + t * NL;
        float *Hn = d->Hs + t * NL, *P = d->aux;
        /* each gate's pre-activation: the input's GCN, plus (the gate op) the state's */
        rc = snapc_in_gcn_forward(g, Z, d->tmp, s, p + d->oW[0][0], p + d->ob[0][0], L, err);
        if (!rc) rc = snapc_h_gcn_forward(g, P, d->tmp, &s->A, Hp, p + d->oW[1][0], p + d->ob[1][0], L, L, err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, Z, Z, P, NULL, DGNN_CUDA_GATE_SIGMOID, N, L, err);
        if (!rc) rc = snapc_in_gcn_forward(g, R, d->tmp, s, p + d->oW[0][1], p + d->ob[0][1], L, err);
        if (!rc) rc = snapc_h_gcn_forward(g, P, d->tmp, &s->A, Hp, p + d->oW[1][1], p + d->ob[1][1], L, L, err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, R, R, P, NULL, DGNN_CUDA_GATE_SIGMOID, N, L, err);
        if (!rc) rc = dgnn_cuda_ngru_reset(c, HR, Hp, R, NL, err);
        if (!rc) rc = snapc_in_gcn_forward(g, Ht, d->tmp, s, p + d->oW[0][2], p + d->ob[0][2], L, err);
        if (!rc) rc = snapc_h_gcn_forward(g, P, d->tmp, &s->A, HR, p + d->oW[1][2], p + d->ob[1][2], L, L, err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, Ht, Ht, P, NULL, DGNN_CUDA_GATE_TANH, N, L, err);
        if (!rc) rc = dgnn_cuda_ngru_update(c, Hn, Z, Hp, Ht, NL, err);
    }
    if (!rc) rc = dgnn_cuda_copy(c, g->H, d->Hs + (T - 1) * NL, (size_t)NL * sizeof(float), err);
    return rc;
}

/* gcrn.c's gcrn_backward from g->dH: the walk t = T..1 carrying dL/dH_t; the gradients
 * accumulate into g->grad */
static int gcrn_backward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err) {
    snapc_ngru *d = g->impl;
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, L = g->L, NL = N * L;
    const size_t NLb = (size_t)NL * sizeof(float);
    const float *p = g->param;
    float *gr = g->grad;
    float *dHn = d->dHa, *dHp = d->dHb; /* dL/dH_t, dL/dH_{t-1} */
    int rc = dgnn_cuda_copy(c, dHn, g->dH, NLb, err);
    for (int64_t t = T - 1; t >= 0 && !rc; t--) {
        const snapc_snap *s = &g->s[t0 + t];
        dgnn_cuda_csr *At = snapc_At(s);
        const float *Hp = t > 0 ? d->Hs + (t - 1) * NL : d->zero;
        const float *Z = d->Z + t * NL, *R = d->R + t * NL, *Ht = d->Ht + t * NL, *HR = d->HR + t * NL;
        float *zeroed[] = {d->dZp, d->dHtp, dHp, d->dHR, d->dRp}; /* the gates' accumulating outputs */
        for (size_t i = 0; i < sizeof zeroed / sizeof zeroed[0] && !rc; i++) rc = dgnn_cuda_zero(c, zeroed[i], NLb, err);
        if (!rc) rc = dgnn_cuda_ngru_update_backward(c, d->dZp, d->dHtp, dHp, dHn, Z, Hp, Ht, NL, err);
        /* candidate: A X Wx_h + A (H R) Wh_h */
        if (!rc) rc = snapc_h_gcn_backward(g, d->dHR, gr + d->oW[1][2], gr + d->ob[1][2], d->tmp, At, HR,
                                           p + d->oW[1][2], d->dHtp, L, L, err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oW[0][2], gr + d->ob[0][2], d->tmp, s, d->dHtp, L, err);
        if (!rc) rc = dgnn_cuda_ngru_reset_backward(c, dHp, d->dRp, d->dHR, R, Hp, NL, err);
        if (!rc) rc = snapc_h_gcn_backward(g, dHp, gr + d->oW[1][1], gr + d->ob[1][1], d->tmp, At, Hp, p + d->oW[1][1],
                                           d->dRp, L, L, err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oW[0][1], gr + d->ob[0][1], d->tmp, s, d->dRp, L, err);
        if (!rc) rc = snapc_h_gcn_backward(g, dHp, gr + d->oW[1][0], gr + d->ob[1][0], d->tmp, At, Hp, p + d->oW[1][0],
                                           d->dZp, L, L, err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oW[0][0], gr + d->ob[0][0], d->tmp, s, d->dZp, L, err);
        float *sw = dHn;
        dHn = dHp, dHp = sw;
    }
    return rc;
}

const snapc_ops snapc_gcrn_ops = {.rows = 0, .init = gcrn_init, .forward = gcrn_forward, .backward = gcrn_backward,
                                   .free = snapc_ngru_free};
#endif
