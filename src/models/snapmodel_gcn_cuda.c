/* snapmodel_gcn_cuda.c: snapmodel_gcn.c's GCN layers on the GPU (snapmodel_cuda_internal.h),
 * for the device kinds built on them (tgcn_cuda.c, gcrn_cuda.c): the layer on a snapshot's
 * node input (one-hot categories or dense features) and the layer on hidden states, "X W"
 * weights (in, out), with their backward, composed of the CUDA backend's ops in the CPU
 * layers' order: X W first (dgnn_cuda_gemm; the one-hot input's row gather inside
 * dgnn_cuda_gcn_onehot_*), then A (dgnn_cuda_spmm), then the bias on every row; backward
 * U = A^T dY, dW += X^T U, dX += U W^T, db += the column sums of dY.
 * Below the kind files and the front that call it, calling none of them; it also holds the
 * helpers they all use (snapc_alloc, snapc_offset). NOT YET VERIFIED ON HARDWARE. */
#include "snapmodel_cuda_internal.h"

#if DGNN_HAVE_CUDA

/* ---- what every device kind and the front use (here, below them all, so that no two
 * files call each other both ways) ---- */

int snapc_alloc(dgnn_snapmodel_cuda *g, void **p, int64_t n, size_t size, const char *what, dgnn_err *err) {
    return dgnn_cuda_alloc(g->c, p, (size_t)n * size, what, err);
}

int64_t snapc_offset(const dgnn_snapmodel *m, const char *name) {
    int i = dgnn_params_find(&m->p, name);
    DGNN_ASSERT(i >= 0);
    return m->p.t[i].offset;
}

/* ---- the GCN layers ---- */

int snapc_h_gcn_forward(dgnn_snapmodel_cuda *g, float *Y, float *tmp, const dgnn_cuda_csr *A, const float *X,
                        const float *W, const float *b, int64_t Di, int64_t Do, dgnn_err *err) {
    const int64_t N = g->N;
    int rc = dgnn_cuda_gemm(g->c, 0, 0, N, Do, Di, X, Di, W, Do, 0.0f, tmp, Do, err);
    if (!rc) rc = dgnn_cuda_spmm(g->c, Y, (dgnn_cuda_csr *)A, tmp, Do, 0, err);
    if (!rc && b) rc = dgnn_cuda_add_rows(g->c, Y, b, N, Do, err);
    return rc;
}

int snapc_h_gcn_backward(dgnn_snapmodel_cuda *g, float *dX, float *dW, float *db, float *tmp, const dgnn_cuda_csr *At,
                         const float *X, const float *W, const float *dY, int64_t Di, int64_t Do, dgnn_err *err) {
    const int64_t N = g->N;
    /* U = A^T dY, overwritten: the product over At is dgnn_spmm(tmp, At, dY, Do, 0)'s */
    int rc = dgnn_cuda_spmm(g->c, tmp, (dgnn_cuda_csr *)At, dY, Do, 0, err);
    if (!rc && dW) rc = dgnn_cuda_gemm(g->c, 1, 0, Di, Do, N, X, Di, tmp, Do, 1.0f, dW, Do, err);
    if (!rc && dX) rc = dgnn_cuda_gemm(g->c, 0, 1, N, Di, Do, tmp, Do, W, Do, 1.0f, dX, Di, err);
    if (!rc && db) rc = dgnn_cuda_col_sums(g->c, db, dY, N, Do, err);
    return rc;
}

int snapc_in_gcn_forward(dgnn_snapmodel_cuda *g, float *G, float *tmp, const snapc_snap *s, const float *W,
                         const float *b, int64_t D, dgnn_err *err) {
    if (g->m->cfg.onehot) /* X W is a row gather of W; tmp gets it (the op's `saved`) */
        return dgnn_cuda_gcn_onehot_forward(g->c, G, tmp, (dgnn_cuda_csr *)&s->A, s->idx, W, b, g->N, g->V, D, err);
    return snapc_h_gcn_forward(g, G, tmp, &s->A, s->feat, W, b, g->V, D, err);
}

int snapc_in_gcn_backward(dgnn_snapmodel_cuda *g, float *dW, float *db, float *tmp, const snapc_snap *s,
                          const float *dG, int64_t D, dgnn_err *err) {
    if (g->m->cfg.onehot)
        return dgnn_cuda_gcn_onehot_backward(g->c, dW, db, tmp, dG, snapc_At(s), s->idx, g->N, g->V, D, err);
    return snapc_h_gcn_backward(g, NULL, dW, db, tmp, snapc_At(s), s->feat, NULL, dG, g->V, D, err);
}

#endif
