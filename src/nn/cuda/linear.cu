// linear.cu: the GPU's linear layer, mirroring src/nn/linear.c (include/dgnn/cuda.h): the
// products through dgnn_cuda_gemm (cuBLAS), the bias and its gradient as small kernels.
// Bias gradients sum the rows of one column in row order in one thread: slow for tall
// inputs, simple to check; a blocked reduction is a later speed step.
#include "cuda_internal.h"

__global__ static void add_bias(float *out, const float *b, int64_t B, int64_t D) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * D) out[i] += b[i % D];
}

__global__ static void colsum_acc(float *db, const float *dout, int64_t B, int64_t D) {
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= D) return;
    float s = 0.0f;
    for (int64_t i = 0; i < B; i++) s += dout[i * D + j];
    db[j] += s;
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
