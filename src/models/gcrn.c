/* gcrn.c: GCRN-GRU (Seo et al., "Structured Sequence Modeling with Graph Convolutional
 * Recurrent Networks", model 2) over a window of snapshots, in the form of PyG-Temporal's
 * GConvGRU (torch_geometric_temporal/nn/recurrent/gconv_gru.py): a GRU over node states in
 * which every gate convolves both the node input and the previous state, with the
 * Chebyshev filter replaced by the GCN filter A_hat (Kipf and Welling's first-order,
 * renormalised form of ChebConv K = 2: with W_0 = -W_1 the filter I + D^-1/2 A D^-1/2
 * becomes A_hat = D^-1/2 (A + I) D^-1/2). Why: the model reads A_hat only; a K = 2
 * Chebyshev filter needs the self-loop-free scaled Laplacian, which A_hat does not give
 * back for weighted snapshots.
 *
 * Per snapshot t (oldest first), with H_0 = 0 (GConvGRU's H = None -> zeros, so windows
 * are independent):
 *   Z  = sigmoid(A X Wx_z + bx_z + A H Wh_z + bh_z)
 *   R  = sigmoid(A X Wx_r + bx_r + A H Wh_r + bh_r)
 *   Ht = tanh(A X Wx_h + bx_h + A (H * R) Wh_h + bh_h)
 *   H' = Z * H + (1 - Z) * Ht
 * (A = A_hat_t, X = X_t). The output is H_T (N, L).
 *
 * Parameters, in declaration and initialisation order conv_x_z, conv_h_z, conv_x_r,
 * conv_h_r, conv_x_h, conv_h_h (GConvGRU's): each W (in, L) in the "X W" layout (in = V for
 * conv_x_*, L for conv_h_*), Glorot uniform as ChebConv's / GCNConv's weights, and b (L)
 * zeros as theirs. Each convolution has its own bias as in the reference (the two of a
 * gate only ever appear summed, so their gradients are equal).
 *
 * Weight gradients that sum over nodes go through nn.h's dgnn_gemm_fixed (bits independent
 * of the thread count). */
#include "snapmodel_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

/* the parameters, per gate z, r, h (named pointers into the value or the gradient slab) */
typedef struct {
    float *conv_x_W[3]; /* (V, L) */
    float *conv_x_b[3]; /* (L) */
    float *conv_h_W[3]; /* (L, L) */
    float *conv_h_b[3]; /* (L) */
} gcrn_params;

typedef struct {
    snapm_ngru_idx ix;  /* pair 0: conv_x, pair 1: conv_h */
    gcrn_params w, dw;  /* values, gradients */
    snapm_ngru_bufs b;  /* b.aux: the state's GCN P */
} gcrn_t;

static void gcrn_free(dgnn_snapmodel *m) {
    gcrn_t *s = m->impl;
    if (!s) return;
    snapm_ngru_free(&s->b);
    free(s);
    m->impl = NULL;
}

static void gcrn_declare(dgnn_snapmodel *m) {
    gcrn_t *s = dgnn_xcalloc(1, sizeof *s);
    m->impl = s;
    static const char *const part[2] = {"conv_x", "conv_h"};
    const int64_t shape[2][2] = {{m->V, m->L}, {m->L, m->L}};
    snapm_ngru_declare(m, &s->ix, "gcrn", part, shape);
}

static void gcrn_point(gcrn_params *q, const dgnn_params *p, snapm_slab_fn at, const snapm_ngru_idx *ix) {
    for (int g = 0; g < 3; g++) {
        q->conv_x_W[g] = at(p, ix->W[0][g]), q->conv_x_b[g] = at(p, ix->b[0][g]);
        q->conv_h_W[g] = at(p, ix->W[1][g]), q->conv_h_b[g] = at(p, ix->b[1][g]);
    }
}

static int gcrn_init_values(dgnn_snapmodel *m, dgnn_rng *rng, dgnn_err *err) {
    gcrn_t *s = m->impl;
    const int64_t V = m->V, L = m->L;
    gcrn_point(&s->w, &m->p, dgnn_params_get, &s->ix);
    gcrn_point(&s->dw, &m->p, dgnn_params_grad, &s->ix);
    for (int g = 0; g < 3; g++) { /* biases: zeros (the slab starts zeroed) */
        snapm_init_glorot(s->w.conv_x_W[g], V * L, V, L, rng);
        snapm_init_glorot(s->w.conv_h_W[g], L * L, L, L, rng);
    }
    return snapm_ngru_alloc(m, &s->b, 0, err);
}

static int gcrn_forward(dgnn_snapmodel *m, float *H, dgnn_rng *rng, dgnn_err *err) {
    (void)rng; /* no randomness; snapmodel.c has checked the window */
    gcrn_t *s = m->impl;
    snapm_ngru_bufs *b = &s->b;
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T, NL = N * L;
    int rc = snapm_ngru_ensure(m, b, T, err);
    if (rc) return rc;
    const gcrn_params *w = &s->w;
    for (int64_t t = 0; t < T; t++) {
        const dgnn_snap_input *in = &m->win[t];
        const float *Hp = t > 0 ? b->Hs + (t - 1) * NL : b->zero;
        float *Z = b->Z + t * NL, *R = b->R + t * NL, *Ht = b->Ht + t * NL, *HR = b->HR + t * NL;
        float *Hn = b->Hs + t * NL, *P = b->aux;
        /* the gates' pre-activations: input part, then += the state part */
        snapm_in_gcn_forward(m, Z, b->tmp, in, w->conv_x_W[0], w->conv_x_b[0], L);
        snapm_h_gcn_forward(P, b->tmp, &in->A, Hp, w->conv_h_W[0], w->conv_h_b[0], N, L, L);
        dgnn_ngru_gate(Z, Z, P, NULL, DGNN_NGRU_SIGMOID, N, L);
        snapm_in_gcn_forward(m, R, b->tmp, in, w->conv_x_W[1], w->conv_x_b[1], L);
        snapm_h_gcn_forward(P, b->tmp, &in->A, Hp, w->conv_h_W[1], w->conv_h_b[1], N, L, L);
        dgnn_ngru_gate(R, R, P, NULL, DGNN_NGRU_SIGMOID, N, L);
        dgnn_ngru_reset(HR, Hp, R, NL);
        snapm_in_gcn_forward(m, Ht, b->tmp, in, w->conv_x_W[2], w->conv_x_b[2], L);
        snapm_h_gcn_forward(P, b->tmp, &in->A, HR, w->conv_h_W[2], w->conv_h_b[2], N, L, L);
        dgnn_ngru_gate(Ht, Ht, P, NULL, DGNN_NGRU_TANH, N, L);
        dgnn_ngru_update(Hn, Z, Hp, Ht, NL);
        m->flops += 3.0 * 2.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 3.0 * 2.0 * (double)NL * (double)V);
    }
    memcpy(H, b->Hs + (T - 1) * NL, (size_t)NL * sizeof(float));
    return DGNN_OK;
}

static void gcrn_backward(dgnn_snapmodel *m, const float *dH) {
    gcrn_t *s = m->impl;
    snapm_ngru_bufs *b = &s->b;
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T, NL = N * L;
    const gcrn_params *w = &s->w, *dw = &s->dw;
    float *dHn = b->dHa, *dHp = b->dHb; /* dL/dH_t, dL/dH_{t-1} */
    memcpy(dHn, dH, (size_t)NL * sizeof(float));
    for (int64_t t = T - 1; t >= 0; t--) {
        const dgnn_snap_input *in = &m->win[t];
        const dgnn_csr *At = snapm_At(in);
        const float *Hp = t > 0 ? b->Hs + (t - 1) * NL : b->zero;
        const float *Z = b->Z + t * NL, *R = b->R + t * NL, *Ht = b->Ht + t * NL, *HR = b->HR + t * NL;
        float *const zeroed[] = {b->dZp, b->dHtp, dHp, b->dHR};
        for (int k = 0; k < 4; k++) memset(zeroed[k], 0, (size_t)NL * sizeof(float));
        dgnn_ngru_update_backward(b->dZp, b->dHtp, dHp, dHn, Z, Hp, Ht, NL);
        /* candidate: A X Wx_h + A (H R) Wh_h */
        snapm_h_gcn_backward(b->dHR, dw->conv_h_W[2], dw->conv_h_b[2], b->tmp, At, HR, w->conv_h_W[2], b->dHtp, N, L,
                             L);
        snapm_in_gcn_backward(m, dw->conv_x_W[2], dw->conv_x_b[2], b->tmp, in, b->dHtp, L);
        memset(b->dRp, 0, (size_t)NL * sizeof(float));
        dgnn_ngru_reset_backward(dHp, b->dRp, b->dHR, R, Hp, NL);
        snapm_h_gcn_backward(dHp, dw->conv_h_W[1], dw->conv_h_b[1], b->tmp, At, Hp, w->conv_h_W[1], b->dRp, N, L, L);
        snapm_in_gcn_backward(m, dw->conv_x_W[1], dw->conv_x_b[1], b->tmp, in, b->dRp, L);
        snapm_h_gcn_backward(dHp, dw->conv_h_W[0], dw->conv_h_b[0], b->tmp, At, Hp, w->conv_h_W[0], b->dZp, N, L, L);
        snapm_in_gcn_backward(m, dw->conv_x_W[0], dw->conv_x_b[0], b->tmp, in, b->dZp, L);
        m->flops += 3.0 * 4.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 3.0 * 2.0 * (double)NL * (double)V);
        float *sw = dHn;
        dHn = dHp, dHp = sw;
    }
}

const snapm_ops snapm_gcrn_ops = {gcrn_declare, gcrn_init_values, gcrn_forward, gcrn_backward, gcrn_free, NULL};
