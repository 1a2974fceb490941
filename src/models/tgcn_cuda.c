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
#include <stdio.h>
#include <stdlib.h>

/* the kind's part of the device model (g->impl) */
typedef struct {
    int64_t oCW[3], oCb[3], oLW[3], oLb[3]; /* slab offsets per gate z, r, h: conv W (V, L), b (L);
                                             * lin W (L, 2L), b (L) */
    int64_t Tcap;
    float *Hs;                /* (Tcap, N, L) H_1..H_T */
    float *G;                 /* (Tcap, 3, N, L) the gates' GCN outputs */
    float *Z, *R, *Ht, *HR;   /* (Tcap, N, L) */
    float *zero;              /* (N, L) H_0 */
    float *tmp, *dZp, *dRp, *dHtp, *dG, *dHR, *dHa, *dHb; /* (N, L) work */
} tgcn_dev;

static void free_window(dgnn_snapmodel_cuda *g) {
    tgcn_dev *d = g->impl;
    float **p[] = {&d->Hs, &d->G, &d->Z, &d->R, &d->Ht, &d->HR};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, *p[i]), *p[i] = NULL;
    d->Tcap = 0;
}

static void tgcn_free(dgnn_snapmodel_cuda *g) {
    tgcn_dev *d = g->impl;
    if (!d) return;
    free_window(g);
    void *p[] = {d->zero, d->tmp, d->dZp, d->dRp, d->dHtp, d->dG, d->dHR, d->dHa, d->dHb};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) dgnn_cuda_release(g->c, p[i]);
    free(d);
    g->impl = NULL;
}

static int tgcn_init(dgnn_snapmodel_cuda *g, dgnn_err *err) {
    tgcn_dev *d = dgnn_xcalloc(1, sizeof *d);
    g->impl = d;
    static const char gate[] = "zrh";
    char name[DGNN_PARAM_NAME_MAX];
    for (int k = 0; k < 3; k++) { /* tgcn.c's tgcn_declare names */
        snprintf(name, sizeof name, "tgcn.conv_%c.W", gate[k]), d->oCW[k] = snapc_offset(g->m, name);
        snprintf(name, sizeof name, "tgcn.conv_%c.b", gate[k]), d->oCb[k] = snapc_offset(g->m, name);
        snprintf(name, sizeof name, "tgcn.lin_%c.W", gate[k]), d->oLW[k] = snapc_offset(g->m, name);
        snprintf(name, sizeof name, "tgcn.lin_%c.b", gate[k]), d->oLb[k] = snapc_offset(g->m, name);
    }
    const int64_t NL = g->N * g->L;
    float **nl[] = {&d->zero, &d->tmp, &d->dZp, &d->dRp, &d->dHtp, &d->dG, &d->dHR, &d->dHa, &d->dHb};
    int rc = DGNN_OK;
    for (size_t i = 0; i < sizeof nl / sizeof nl[0] && !rc; i++)
        rc = SNAPC_ALLOC_F(g, *nl[i], NL, "T-GCN's node activations");
    if (!rc) rc = dgnn_cuda_zero(g->c, d->zero, (size_t)NL * sizeof(float), err);
    return rc; /* the front frees a partial kind (tgcn_free) */
}

static int ensure_window(dgnn_snapmodel_cuda *g, int64_t T, dgnn_err *err) {
    tgcn_dev *d = g->impl;
    if (T <= d->Tcap) return DGNN_OK;
    int rc = dgnn_cuda_sync(g->c, err);
    if (rc) return rc;
    free_window(g);
    const int64_t TNL = T * g->N * g->L;
    if ((rc = SNAPC_ALLOC_F(g, d->G, 3 * TNL, "the window's gate GCN outputs"))) return rc;
    float **w[] = {&d->Hs, &d->Z, &d->R, &d->Ht, &d->HR};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if ((rc = SNAPC_ALLOC_F(g, *w[i], TNL, "the window's T-GCN states and gates"))) return rc;
    d->Tcap = T;
    return DGNN_OK;
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
    tgcn_dev *d = g->impl;
    int rc = ensure_window(g, T, err);
    dgnn_cuda *c = g->c;
    const int64_t N = g->N, L = g->L, NL = N * L;
    const float *p = g->param;
    for (int64_t t = 0; t < T && !rc; t++) {
        const snapc_snap *s = &g->s[t0 + t];
        const float *Hp = t > 0 ? d->Hs + (t - 1) * NL : d->zero;
        float *G = d->G + t * 3 * NL, *Z = d->Z + t * NL, *R = d->R + t * NL, *Ht = d->Ht + t * NL;
        float *HR = d->HR + t * NL, *Hn = d->Hs + t * NL;
        for (int k = 0; k < 3 && !rc; k++)
            rc = snapc_in_gcn_forward(g, G + k * NL, d->tmp, s, p + d->oCW[k], p + d->oCb[k], L, err);
        if (!rc) rc = lin2_forward(g, Z, G, Hp, p + d->oLW[0], err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, Z, Z, NULL, p + d->oLb[0], DGNN_CUDA_GATE_SIGMOID, N, L, err);
        if (!rc) rc = lin2_forward(g, R, G + NL, Hp, p + d->oLW[1], err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, R, R, NULL, p + d->oLb[1], DGNN_CUDA_GATE_SIGMOID, N, L, err);
        if (!rc) rc = dgnn_cuda_ngru_reset(c, HR, Hp, R, NL, err);
        if (!rc) rc = lin2_forward(g, Ht, G + 2 * NL, HR, p + d->oLW[2], err);
        if (!rc) rc = dgnn_cuda_ngru_gate(c, Ht, Ht, NULL, p + d->oLb[2], DGNN_CUDA_GATE_TANH, N, L, err);
        if (!rc) rc = dgnn_cuda_ngru_update(c, Hn, Z, Hp, Ht, NL, err);
    }
    if (!rc) rc = dgnn_cuda_copy(c, g->H, d->Hs + (T - 1) * NL, (size_t)NL * sizeof(float), err);
    return rc;
}

/* tgcn.c's tgcn_backward from g->dH: the walk t = T..1 carrying dL/dH_t; the gradients
 * accumulate into g->grad */
static int tgcn_backward(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err) {
    tgcn_dev *d = g->impl;
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
        const float *G = d->G + t * 3 * NL, *Z = d->Z + t * NL, *R = d->R + t * NL, *Ht = d->Ht + t * NL;
        const float *HR = d->HR + t * NL;
        /* H' = Z H + (1 - Z) Ht: the gates' accumulating outputs start from zero */
        float *zeroed[] = {d->dZp, d->dHtp, dHp, d->dHR, d->dRp};
        for (size_t i = 0; i < sizeof zeroed / sizeof zeroed[0] && !rc; i++) rc = dgnn_cuda_zero(c, zeroed[i], NLb, err);
        if (!rc) rc = dgnn_cuda_ngru_update_backward(c, d->dZp, d->dHtp, dHp, dHn, Z, Hp, Ht, NL, err);
        /* candidate: [G_h, H R] */
        if (!rc) rc = lin2_backward(g, d->dG, d->dHR, gr + d->oLW[2], gr + d->oLb[2], d->dHtp, G + 2 * NL, HR,
                                    p + d->oLW[2], err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oCW[2], gr + d->oCb[2], d->tmp, s, d->dG, L, err);
        if (!rc) rc = dgnn_cuda_ngru_reset_backward(c, dHp, d->dRp, d->dHR, R, Hp, NL, err);
        /* reset and update gates: [G_g, H] */
        if (!rc) rc = lin2_backward(g, d->dG, dHp, gr + d->oLW[1], gr + d->oLb[1], d->dRp, G + NL, Hp, p + d->oLW[1],
                                    err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oCW[1], gr + d->oCb[1], d->tmp, s, d->dG, L, err);
        if (!rc) rc = lin2_backward(g, d->dG, dHp, gr + d->oLW[0], gr + d->oLb[0], d->dZp, G, Hp, p + d->oLW[0], err);
        if (!rc) rc = snapc_in_gcn_backward(g, gr + d->oCW[0], gr + d->oCb[0], d->tmp, s, d->dG, L, err);
        float *sw = dHn;
        dHn = dHp, dHp = sw;
    }
    /* dHn now holds dL/dH_0: H_0 is the constant zero state, nothing to add */
    return rc;
}

const snapc_ops snapc_tgcn_ops = {.rows = 0, .init = tgcn_init, .forward = tgcn_forward, .backward = tgcn_backward,
                                   .free = tgcn_free};
#endif
