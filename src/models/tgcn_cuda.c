/* tgcn_cuda.c: T-GCN's window on the GPU (snapmodel_cuda.h), behind snapmodel_cuda.c's table
 * of kinds: tgcn.c's forward and backward, op for op, of the CUDA backend's ops (the gates'
 * GCNs of snapmodel_gcn_cuda.c, the Linear on [G, H] as two products, the element-wise
 * gates of snap_gates.cu). Per snapshot t, H_0 = 0:
 *   G_g = A X Wc_g + bc_g (g = z, r, h); Z = sigmoid([G_z, H] Wl_z^T + bl_z);
 *   R = sigmoid([G_r, H] Wl_r^T + bl_r); Ht = tanh([G_h, H R] Wl_h^T + bl_h);
 *   H = Z H + (1 - Z) Ht.
 * No randomness (tgcn.c draws nothing from the rng). The parameters are found by tgcn.c's
 * names. NOT YET VERIFIED ON HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA

static int tgcn_init(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    static const char *const part[2] = {"conv", "lin"}; /* tgcn.c's names */
    return snapc_ngru_init(g, "tgcn", part, 3, "T-GCN", err);
}

/* tgcn.c's lin2_forward without its bias (the gate adds it): out (N, L) = A Wa^T + B Wb^T,
 * W (L, 2L) = [Wa | Wb] */
static int lin2_forward(dgnn_snapmodel_cuda *g, float *out, const float *A, const float *B, const float *W,
                        dgnn_err *err) {
    const int64_t N = g->N, L = g->L;
    int rc = dgnn_cuda_gemm(g->c, 0, 1, N, L, L, A, L, W, 2 * L, 0.0f, out, L, err);
    if (!rc) rc = dgnn_cuda_gemm(g->c, 0, 1, N, L, L, B, L, W + L, 2 * L, 1.0f, out, L, err);
    return rc;
}

/* tgcn.c's lin2_backward: dA (N, L) = dout Wa (overwritten), dB += dout Wb, dW (L, 2L) +=
 * dout^T [A, B], db += the column sums of dout */
static int lin2_backward(dgnn_snapmodel_cuda *g, float *dA, float *dB, float *dW, float *db, const float *dout,
                         const float *A, const float *B, const float *W, dgnn_err *err) {
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, L = g->L;
    int rc = dgnn_cuda_gemm(c, 0, 0, N, L, L, dout, L, W, 2 * L, 0.0f, dA, L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, N, L, L, dout, L, W + L, 2 * L, 1.0f, dB, L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, L, L, N, dout, L, A, L, 1.0f, dW, 2 * L, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, L, L, N, dout, L, B, L, 1.0f, dW + L, 2 * L, err);
    if (!rc) rc = dgnn_cuda_col_sums(c, db, dout, N, L, err);
    return rc;
}

/* the window [t0, t0 + T): tgcn.c's tgcn_forward, H_T (N, L) into g->H */
static int tgcn_forward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err) {
    (void)rng; /* no randomness, as tgcn.c */
    snapc_ngru *d = g->impl;
    int rc = snapc_ngru_ensure(g, T, err);
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, L = g->L, NL = N * L;
    const float *p = g->param;
    for (int64_t t = 0; t < T && !rc; t++) {
        const snapc_snap *s = &g->s[t0 + t];
        const float *Hp = t > 0 ? d->Hs + (t - 1) * NL : d->zero;
        float *G = d->X + t * 3 * NL, *Z = d->Z + t * NL, *R = d->R + t * NL, *Ht = d->Ht + t * NL;
        float *HR = d->HR + t * NL, *Hn = d->Hs + t * NL;
        for (int k = 0; k < 3 && !rc; k++)
            rc = snapc_in_gcn_forward(g, G + k * NL, d->tmp, s, p + d->oW[0][k], p + d->ob[0][k], L, err);
        if (!rc) rc = lin2_forward(g, Z, G, Hp, p + d->oW[1][0], err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, Z, Z, NULL, p + d->ob[1][0], DGNN_CUDA_GATE_SIGMOID, N, L, err);
        if (!rc) rc = lin2_forward(g, R, G + NL, Hp, p + d->oW[1][1], err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, R, R, NULL, p + d->ob[1][1], DGNN_CUDA_GATE_SIGMOID, N, L, err);
        if (!rc) rc = dgnn_cuda_ngru_reset(c, HR, Hp, R, NL, err);
        if (!rc) rc = lin2_forward(g, Ht, G + 2 * NL, HR, p + d->oW[1][2], err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, Ht, Ht, NULL, p + d->ob[1][2], DGNN_CUDA_GATE_TANH, N, L, err);
        if (!rc) rc = dgnn_cuda_ngru_update(c, Hn, Z, Hp, Ht, NL, err);
    }
    if (!rc) rc = dgnn_cuda_copy(c, g->H, d->Hs + (T - 1) * NL, (size_t)NL * sizeof(float), err);
    return rc;
}

/* tgcn.c's tgcn_backward from g->dH: the walk t = T..1 carrying dL/dH_t; the gradients
 * accumulate into g->grad */
static int tgcn_backward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err) {
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
        const float *Hp = t > 0 ? d->Hs + (t - 1) * NL : d->zero;
        const float *G = d->X + t * 3 * NL, *Z = d->Z + t * NL, *R = d->R + t * NL, *Ht = d->Ht + t * NL;
        const float *HR = d->HR + t * NL;
        /* H' = Z H + (1 - Z) Ht: the gates' accumulating outputs start from zero */
        float *zeroed[] = {d->dZp, d->dHtp, dHp, d->dHR, d->dRp};
        for (size_t i = 0; i < sizeof zeroed / sizeof zeroed[0] && !rc; i++) rc = dgnn_cuda_zero(c, zeroed[i], NLb, err);
        if (!rc) rc = dgnn_cuda_ngru_update_backward(c, d->dZp, d->dHtp, dHp, dHn, Z, Hp, Ht, NL, err);
        /* candidate: [G_h, H R] */
        if (!rc) rc = lin2_backward(g, d->aux, d->dHR, gr + d->oW[1][2], gr + d->ob[1][2], d->dHtp, G + 2 * NL, HR,
                                    p + d->oW[1][2], err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oW[0][2], gr + d->ob[0][2], d->tmp, s, d->aux, L, err);
        if (!rc) rc = dgnn_cuda_ngru_reset_backward(c, dHp, d->dRp, d->dHR, R, Hp, NL, err);
        /* reset and update gates: [G_g, H] */
        if (!rc) rc = lin2_backward(g, d->aux, dHp, gr + d->oW[1][1], gr + d->ob[1][1], d->dRp, G + NL, Hp,
                                    p + d->oW[1][1], err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oW[0][1], gr + d->ob[0][1], d->tmp, s, d->aux, L, err);
        if (!rc) rc = lin2_backward(g, d->aux, dHp, gr + d->oW[1][0], gr + d->ob[1][0], d->dZp, G, Hp,
                                    p + d->oW[1][0], err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oW[0][0], gr + d->ob[0][0], d->tmp, s, d->aux, L, err);
        float *sw = dHn;
        dHn = dHp, dHp = sw;
    }
    /* dHn now holds dL/dH_0: H_0 is the constant zero state, nothing to add */
    return rc;
}

const snapc_ops snapc_tgcn_ops = {.rows = 0, .init = tgcn_init, .forward = tgcn_forward, .backward = tgcn_backward,
                                   .free = snapc_ngru_free};
#endif
