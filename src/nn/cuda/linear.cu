// linear.cu: the GPU's linear layer and TGL's edge predictor (the link predictor of every
// event model), mirroring src/nn/linear.c (include/dgnn/cuda.h): the products through
// dgnn_cuda_gemm (cuBLAS), the bias and its gradient as small kernels, and the predictor's
// source-plus-destination ReLU and its sum over the negatives as two more. Bias gradients
// sum the rows of one column in row order in one thread: slow for tall inputs, simple to
// check; a blocked reduction is a later speed step.
#include "cuda_internal.h"

#include "dgnn/nn.h" /* dgnn_edgepred_params */

__global__ static void add_bias(float *out, const float *b, int64_t B, int64_t D) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * D) out[i] += b[i % D];
}

// from db itself, row by row: the CPU's order (dgnn_linear_backward), so the same bits
__global__ static void colsum_acc(float *db, const float *dout, int64_t B, int64_t D) {
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= D) return;
    float s = db[j];
    for (int64_t i = 0; i < B; i++) s += dout[i * D + j];
    db[j] = s;
}

static unsigned blocks_for(int64_t n) { return (unsigned)((n + 255) / 256); }

extern "C" int dgnn_cuda_linear_forward(dgnn_cuda *c, float *dout_, const float *dinp, const float *dW,
                                        const float *db, int64_t B, int64_t Din, int64_t Dout, dgnn_err *err) {
    int rc = dgnn_cuda_gemm(c, 0, 1, B, Dout, Din, dinp, Din, dW, Din, 0.0f, dout_, Dout, err);
    if (rc || !db || B * Dout == 0) return rc;
    add_bias<<<blocks_for(B * Dout), 256, 0, c->stream>>>(dout_, db, B, Dout);
    return dgnn_cuda_check(cudaGetLastError(), "add_bias", err);
}

extern "C" int dgnn_cuda_linear_backward(dgnn_cuda *c, float *ddinp, float *ddW, float *ddb, const float *ddout,
                                         const float *dinp, const float *dW, int64_t B, int64_t Din, int64_t Dout,
                                         dgnn_err *err) {
    int rc = DGNN_OK;
    if (ddinp) rc = dgnn_cuda_gemm(c, 0, 0, B, Din, Dout, ddout, Dout, dW, Din, 1.0f, ddinp, Din, err);
    if (!rc && ddW) rc = dgnn_cuda_gemm(c, 1, 0, Dout, Din, B, ddout, Dout, dinp, Din, 1.0f, ddW, Din, err);
    if (!rc && ddb && Dout > 0) {
        colsum_acc<<<blocks_for(Dout), 256, 0, c->stream>>>(ddb, ddout, B, Dout);
        rc = dgnn_cuda_check(cudaGetLastError(), "colsum_acc (a bias gradient)", err);
    }
    return rc;
}

// ---- TGL's edge predictor ----

// act (R, Hd) = relu(act + hs[r % Be]): row j*Be + i pairs with source i
__global__ static void edgepred_join(float *act, const float *hs, int64_t R, int64_t Be, int64_t Hd) {
    DGNN_CUDA_FOR(t, R * Hd) {
        const int64_t r = t / Hd, j = t % Hd;
        const float x = act[t] + hs[(r % Be) * Hd + j];
        act[t] = x < 0 ? 0 : x; // a NaN passes, as the CPU's (linear.c)
    }
}

// dact = 0 where the ReLU was off; dhs (Be, Hd) = the sum of dact over the positive and
// every negative that reused source i, rows i, Be + i, 2 Be + i, ... in that order
__global__ static void edgepred_relu_back(float *dact, const float *act, int64_t n) {
    DGNN_CUDA_FOR(t, n) if (!(act[t] > 0)) dact[t] = 0;
}
__global__ static void edgepred_src_sum(float *dhs, const float *dact, int64_t Be, int64_t nneg, int64_t Hd) {
    DGNN_CUDA_FOR(t, Be * Hd) {
        const int64_t i = t / Hd, j = t % Hd;
        float d = dact[i * Hd + j];
        for (int64_t k = 1; k <= nneg; k++) d += dact[(k * Be + i) * Hd + j];
        dhs[t] = d;
    }
}

extern "C" int dgnn_cuda_edgepred_forward(dgnn_cuda *c, float *dlogits, float *dsaved, const float *dh_src,
                                          const float *dh_dst, const dgnn_edgepred_params *dp, int64_t Be,
                                          int64_t nneg, int64_t D, int64_t Hd, dgnn_err *err) {
    const int64_t R = (1 + nneg) * Be; // scored pairs
    float *hs = dsaved, *act = dsaved + Be * Hd;
    int rc = dgnn_cuda_linear_forward(c, hs, dh_src, dp->Ws, dp->bs, Be, D, Hd, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, act, dh_dst, dp->Wd, dp->bd, R, D, Hd, err);
    if (!rc && R * Hd > 0) {
        edgepred_join<<<dgnn_cuda_blocks(R * Hd, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(act, hs, R, Be,
                                                                                                        Hd);
        rc = dgnn_cuda_check(cudaGetLastError(), "edgepred_join", err);
    }
    if (!rc) rc = dgnn_cuda_linear_forward(c, dlogits, act, dp->Wo, dp->bo, R, Hd, 1, err);
    return rc;
}

extern "C" int dgnn_cuda_edgepred_backward(dgnn_cuda *c, float *ddh_src, float *ddh_dst, dgnn_edgepred_params *ddp,
                                           float *dscratch, const float *ddlogits, const float *dsaved,
                                           const float *dh_src, const float *dh_dst, const dgnn_edgepred_params *dp,
                                           int64_t Be, int64_t nneg, int64_t D, int64_t Hd, dgnn_err *err) {
    const int64_t R = (1 + nneg) * Be;
    if (R * Hd <= 0) return DGNN_OK;
    const float *act = dsaved + Be * Hd;
    float *dact = dscratch, *dhs = dscratch + R * Hd; // (R, Hd), (Be, Hd)
    int rc = dgnn_cuda_zero(c, dact, (size_t)(R * Hd) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, dact, ddp->Wo, ddp->bo, ddlogits, act, dp->Wo, R, Hd, 1, err);
    if (!rc) {
        edgepred_relu_back<<<dgnn_cuda_blocks(R * Hd, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dact, act,
                                                                                                             R * Hd);
        rc = dgnn_cuda_check(cudaGetLastError(), "edgepred_relu_back", err);
    }
    if (!rc) {
        edgepred_src_sum<<<dgnn_cuda_blocks(Be * Hd, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
            dhs, dact, Be, nneg, Hd);
        rc = dgnn_cuda_check(cudaGetLastError(), "edgepred_src_sum", err);
    }
    if (!rc)
        rc = dgnn_cuda_linear_backward(c, ddh_dst, ddp->Wd, dp->bd ? ddp->bd : nullptr, dact, dh_dst, dp->Wd, R, D, Hd,
                                       err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddh_src, ddp->Ws, ddp->bs, dhs, dh_src, dp->Ws, Be, D, Hd, err);
    return rc;
}
