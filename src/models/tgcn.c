/* tgcn.c: T-GCN (Zhao et al., "T-GCN: A Temporal Graph Convolutional Network for Traffic
 * Prediction") over a window of snapshots, as PyG-Temporal's TGCN cell
 * (torch_geometric_temporal/nn/recurrent/temporalgcn.py): a GRU over node states whose
 * gates read a GCN of the snapshot's node input concatenated with the previous state.
 *
 * Per snapshot t (oldest first), with H_0 = 0 (the reference's H = None -> zeros, so
 * every window starts from the same state and windows are independent):
 *   G_g = A_hat_t X_t Wc_g + bc_g                       g = z, r, h  (GCNConv(V -> L))
 *   Z   = sigmoid([G_z, H] Wl_z^T + bl_z)               (Linear(2L -> L) on the concatenation)
 *   R   = sigmoid([G_r, H] Wl_r^T + bl_r)
 *   Ht  = tanh([G_h, H * R] Wl_h^T + bl_h)
 *   H'  = Z * H + (1 - Z) * Ht
 * The output is H_T (N, L).
 *
 * Parameters, in declaration (and initialisation) order per gate z, r, h: conv_g.W (V, L)
 * in the "X W" layout (the one-hot path gathers its rows), Glorot uniform as GCNConv;
 * conv_g.b (L) zeros as GCNConv; lin_g.W (L, 2L) torch layout, lin_g.b (L), torch.nn.Linear's
 * default U(+-1/sqrt(2L)).
 *
 * The backward walks t = T..1 carrying dL/dH_t; every weight gradient that sums over nodes
 * goes through nn.h's dgnn_gemm_fixed, so the bits do not depend on the thread count. */
#include "snapmodel_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

/* the parameters, per gate z, r, h (named pointers into the value or the gradient slab) */
typedef struct {
    float *conv_W[3]; /* (V, L) */
    float *conv_b[3]; /* (L) */
    float *lin_W[3];  /* (L, 2L) */
    float *lin_b[3];  /* (L) */
} tgcn_params;

typedef struct {
    snapm_ngru_idx ix; /* pair 0: conv, pair 1: lin */
    tgcn_params w, dw; /* values, gradients */
    snapm_ngru_bufs b; /* b.X: the gates' GCN outputs G_z, G_r, G_h (Tcap, 3, N, L); b.aux: dG */
} tgcn_t;

static void tgcn_free(dgnn_snapmodel *m) {
    tgcn_t *s = m->impl;
    if (!s) return;
    snapm_ngru_free(&s->b);
    free(s);
    m->impl = NULL;
}

static void tgcn_declare(dgnn_snapmodel *m) {
    tgcn_t *s = dgnn_xcalloc(1, sizeof *s);
    m->impl = s;
    static const char *const part[2] = {"conv", "lin"};
    const int64_t shape[2][2] = {{m->V, m->L}, {m->L, 2 * m->L}};
    snapm_ngru_declare(m, &s->ix, "tgcn", part, shape);
}

static void tgcn_point(tgcn_params *q, const dgnn_params *p, snapm_slab_fn at, const snapm_ngru_idx *ix) {
    for (int g = 0; g < 3; g++) {
        q->conv_W[g] = at(p, ix->W[0][g]), q->conv_b[g] = at(p, ix->b[0][g]);
        q->lin_W[g] = at(p, ix->W[1][g]), q->lin_b[g] = at(p, ix->b[1][g]);
    }
}

static int tgcn_init_values(dgnn_snapmodel *m, dgnn_rng *rng, dgnn_err *err) {
    tgcn_t *s = m->impl;
    const int64_t V = m->V, L = m->L;
    tgcn_point(&s->w, &m->p, dgnn_params_get, &s->ix);
    tgcn_point(&s->dw, &m->p, dgnn_params_grad, &s->ix);
    for (int g = 0; g < 3; g++) { /* the reference builds conv_g then linear_g, gate by gate */
        snapm_init_glorot(s->w.conv_W[g], V * L, V, L, rng);
        /* conv_g.b: zeros (the slab starts zeroed) */
        dgnn_linear_init(s->w.lin_W[g], s->w.lin_b[g], 2 * L, L, rng);
    }
    return snapm_ngru_alloc(m, &s->b, 3, err);
}

/* out (N, L) = [A, B] W^T + b = A Wa^T + B Wb^T + b, W (L, 2L) = [Wa | Wb] */
static void lin2_forward(float *out, const float *A, const float *B, const float *W, const float *b, int64_t N,
                         int64_t L) {
    dgnn_gemm_fixed(0, 1, N, L, L, A, L, W, 2 * L, 0.0f, out, L);
    dgnn_gemm_fixed(0, 1, N, L, L, B, L, W + L, 2 * L, 1.0f, out, L);
#pragma omp parallel for schedule(static) if (N * L > 65536)
    for (int64_t i = 0; i < N; i++)
        for (int64_t o = 0; o < L; o++) out[i * L + o] += b[o];
}

/* dA (N, L) = dout Wa (overwritten), dB (N, L) += dout Wb, dW (L, 2L) += dout^T [A, B],
 * db (L) += column sums of dout */
static void lin2_backward(float *dA, float *dB, float *dW, float *db, const float *dout, const float *A,
                          const float *B, const float *W, int64_t N, int64_t L) {
    dgnn_gemm_fixed(0, 0, N, L, L, dout, L, W, 2 * L, 0.0f, dA, L);
    dgnn_gemm_fixed(0, 0, N, L, L, dout, L, W + L, 2 * L, 1.0f, dB, L);
    dgnn_gemm_fixed(1, 0, L, L, N, dout, L, A, L, 1.0f, dW, 2 * L);
    dgnn_gemm_fixed(1, 0, L, L, N, dout, L, B, L, 1.0f, dW + L, 2 * L);
    snapm_colsum(db, dout, N, L);
}

static int tgcn_forward(dgnn_snapmodel *m, float *H, dgnn_rng *rng, dgnn_err *err) {
    (void)rng; /* no randomness; snapmodel.c has checked the window */
    tgcn_t *s = m->impl;
    snapm_ngru_bufs *b = &s->b;
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T, NL = N * L;
    int rc = snapm_ngru_ensure(m, b, T, err);
    if (rc) return rc;
    const tgcn_params *w = &s->w;
    for (int64_t t = 0; t < T; t++) {
        const dgnn_snap_input *in = &m->win[t];
        const float *Hp = t > 0 ? b->Hs + (t - 1) * NL : b->zero;
        float *G = b->X + t * 3 * NL, *Z = b->Z + t * NL, *R = b->R + t * NL, *Ht = b->Ht + t * NL;
        float *HR = b->HR + t * NL, *Hn = b->Hs + t * NL;
        for (int g = 0; g < 3; g++) snapm_in_gcn_forward(m, G + g * NL, b->tmp, in, w->conv_W[g], w->conv_b[g], L);
        lin2_forward(Z, G, Hp, w->lin_W[0], w->lin_b[0], N, L);
        lin2_forward(R, G + NL, Hp, w->lin_W[1], w->lin_b[1], N, L);
        dgnn_ngru_gate(Z, Z, NULL, NULL, DGNN_NGRU_SIGMOID, N, L);
        dgnn_ngru_gate(R, R, NULL, NULL, DGNN_NGRU_SIGMOID, N, L);
        dgnn_ngru_reset(HR, Hp, R, NL);
        lin2_forward(Ht, G + 2 * NL, HR, w->lin_W[2], w->lin_b[2], N, L);
        dgnn_ngru_gate(Ht, Ht, NULL, NULL, DGNN_NGRU_TANH, N, L);
        dgnn_ngru_update(Hn, Z, Hp, Ht, NL);
        m->flops += 3.0 * 4.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 3.0 * 2.0 * (double)NL * (double)V);
    }
    memcpy(H, b->Hs + (T - 1) * NL, (size_t)NL * sizeof(float));
    return DGNN_OK;
}

static void tgcn_backward(dgnn_snapmodel *m, const float *dH) {
    tgcn_t *s = m->impl;
    snapm_ngru_bufs *b = &s->b;
    const int64_t N = m->N, V = m->V, L = m->L, T = m->T, NL = N * L;
    const tgcn_params *w = &s->w, *dw = &s->dw;
    float *dHn = b->dHa, *dHp = b->dHb; /* dL/dH_t, dL/dH_{t-1} */
    memcpy(dHn, dH, (size_t)NL * sizeof(float));
    for (int64_t t = T - 1; t >= 0; t--) {
        const dgnn_snap_input *in = &m->win[t];
        const float *Hp = t > 0 ? b->Hs + (t - 1) * NL : b->zero;
        const float *G = b->X + t * 3 * NL, *Z = b->Z + t * NL, *R = b->R + t * NL, *Ht = b->Ht + t * NL;
        const float *HR = b->HR + t * NL;
        /* H' = Z H + (1 - Z) Ht */
        float *const zeroed[] = {b->dZp, b->dHtp, dHp, b->dHR};
        for (int k = 0; k < 4; k++) memset(zeroed[k], 0, (size_t)NL * sizeof(float));
        dgnn_ngru_update_backward(b->dZp, b->dHtp, dHp, dHn, Z, Hp, Ht, NL);
        /* candidate: [G_h, H R] */
        lin2_backward(b->aux, b->dHR, dw->lin_W[2], dw->lin_b[2], b->dHtp, G + 2 * NL, HR, w->lin_W[2], N, L);
        snapm_in_gcn_backward(m, dw->conv_W[2], dw->conv_b[2], b->tmp, in, b->aux, L);
        memset(b->dRp, 0, (size_t)NL * sizeof(float));
        dgnn_ngru_reset_backward(dHp, b->dRp, b->dHR, R, Hp, NL);
        /* reset and update gates: [G_g, H] */
        lin2_backward(b->aux, dHp, dw->lin_W[1], dw->lin_b[1], b->dRp, G + NL, Hp, w->lin_W[1], N, L);
        snapm_in_gcn_backward(m, dw->conv_W[1], dw->conv_b[1], b->tmp, in, b->aux, L);
        lin2_backward(b->aux, dHp, dw->lin_W[0], dw->lin_b[0], b->dZp, G, Hp, w->lin_W[0], N, L);
        snapm_in_gcn_backward(m, dw->conv_W[0], dw->conv_b[0], b->tmp, in, b->aux, L);
        m->flops += 3.0 * 8.0 * (double)NL * (double)L + (m->cfg.onehot ? 0.0 : 3.0 * 2.0 * (double)NL * (double)V);
        float *sw = dHn;
        dHn = dHp, dHp = sw;
    }
    /* dHn now holds dL/dH_0: H_0 is the constant zero state, nothing to add */
}

const snapm_ops snapm_tgcn_ops = {tgcn_declare, tgcn_init_values, tgcn_forward, tgcn_backward, tgcn_free, NULL};
