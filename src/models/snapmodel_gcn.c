/* snapmodel_gcn.c: the GCN layers the snapshot models build on (snapmodel_internal.h):
 * the layer on a snapshot's node input (one-hot categories or dense features) and the
 * layer on hidden states, both in the "X W" weight layout (in, out) of EvolveGCN's GCN
 * weights, with their backward; column sums and Glorot initialisation beside them.
 *
 * Below the model files (tgcn.c, gcrn.c, wdgcn.c, static_gcn.c) that call it, and calling
 * none of them. Every product that sums over nodes is nn.h's dgnn_gemm_fixed (gemm.c: a
 * plain sgemm's bits change with the thread count), so the weight gradients are the same
 * for any thread count. */
#include "snapmodel_internal.h"

#include <limits.h>
#include <math.h>

#include "dgnn/nn.h"

void snapm_colsum(float *db, const float *dY, int64_t N, int64_t D) {
    dgnn_linear_backward(NULL, NULL, db, dY, NULL, NULL, N, 1, D); /* its bias path: fixed row order */
}

void snapm_init_glorot(float *W, int64_t n, int64_t fan_in, int64_t fan_out, dgnn_rng *rng) {
    float a = (float)sqrt(6.0 / (double)(fan_in + fan_out));
    dgnn_init_uniform(W, n, -a, a, rng);
}

void snapm_in_gcn_forward(const dgnn_snapmodel *m, float *G, float *tmp, const dgnn_snap_input *in, const float *W,
                          const float *b, int64_t D) {
    const int64_t N = m->N, V = m->V;
    if (m->cfg.onehot) { /* X W is a row gather of W */
        dgnn_gcn_onehot_forward(G, tmp, &in->A, in->feat_idx, W, b, N, V, D);
        return;
    }
    snapm_h_gcn_forward(G, tmp, &in->A, in->feat, W, b, N, V, D);
}

void snapm_in_gcn_backward(const dgnn_snapmodel *m, float *dW, float *db, float *tmp, const dgnn_snap_input *in,
                           const float *dG, int64_t D) {
    const int64_t N = m->N, V = m->V;
    if (m->cfg.onehot) {
        dgnn_gcn_onehot_backward(dW, db, tmp, dG, snapm_At(in), in->feat_idx, N, V, D);
        return;
    }
    snapm_h_gcn_backward(NULL, dW, db, tmp, snapm_At(in), in->feat, NULL, dG, N, V, D);
}

/* X W first: the dense product costs N Di Do either way, and the sparse one then moves
 * Do-wide rows (Do <= Di for every layer of these models but a one-hot-free first layer
 * narrower than the hidden width, where it costs at most nnz (Do - Di) more). */
void snapm_h_gcn_forward(float *Y, float *tmp, const dgnn_csr *A, const float *X, const float *W, const float *b,
                         int64_t N, int64_t Di, int64_t Do) {
    DGNN_ASSERT(A->rows == N && A->cols == N && N <= INT_MAX && Di <= INT_MAX && Do <= INT_MAX);
    dgnn_gemm_fixed(0, 0, N, Do, Di, X, Di, W, Do, 0.0f, tmp, Do);
    dgnn_spmm(Y, A, tmp, Do, 0);
    if (b) {
#pragma omp parallel for schedule(static) if (N * Do > 65536)
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < Do; o++) Y[i * Do + o] += b[o];
    }
}

/* U = A^T dY; dW += X^T U (a sum over nodes: the fixed blocks); dX += U W^T; db += the
 * column sums of dY. */
void snapm_h_gcn_backward(float *dX, float *dW, float *db, float *tmp, const dgnn_csr *At, const float *X,
                          const float *W, const float *dY, int64_t N, int64_t Di, int64_t Do) {
    dgnn_spmm(tmp, At, dY, Do, 0);
    if (dW) dgnn_gemm_fixed(1, 0, Di, Do, N, X, Di, tmp, Do, 1.0f, dW, Do);
    if (dX) dgnn_gemm_fixed(0, 1, N, Di, Do, tmp, Do, W, Do, 1.0f, dX, Di);
    if (db) snapm_colsum(db, dY, N, Do);
}
