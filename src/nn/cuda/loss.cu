// loss.cu: the GPU's binary cross-entropy with logits, mirroring src/nn/loss.c (include/
// dgnn/cuda.h), the link loss of every event model. Each term is formed in double as on
// the CPU; the mean is one block's double sum (a tree instead of the CPU's serial sum:
// the same value within double rounding, and the same on every run), written to device
// memory so that the step needs no synchronisation until the caller reads it.
#include "cuda_internal.h"

#define BCE_THREADS 256 /* a power of two (dgnn_block_sum) */

__global__ static void bce_fwd(float *loss, float *losses, const float *logits, const float *labels, int64_t n) {
    __shared__ double sh[BCE_THREADS];
    double sum = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const double x = logits[i], y = labels[i];
        // max(x,0) - x y + log(1 + e^{-|x|}): the exponent is never positive (loss.c)
        const double l = (x > 0 ? x : 0) - x * y + log1p(exp(-fabs(x)));
        if (losses) losses[i] = (float)l;
        sum += l;
    }
    sum = dgnn_block_sum(sum, sh);
    if (threadIdx.x == 0) *loss = (float)(sum / (double)n);
}

__global__ static void bce_bwd(float *dlogits, const float *logits, const float *labels, int64_t n, float s) {
    DGNN_CUDA_FOR(i, n) dlogits[i] += s * (dgnn_sigmoidf_dev(logits[i]) - labels[i]);
}

extern "C" int dgnn_cuda_bce_logits_forward(dgnn_cuda *c, float *dloss, float *dlosses, const float *dlogits,
                                            const float *dlabels, int64_t n, dgnn_err *err) {
    if (n <= 0) return dgnn_cuda_zero(c, dloss, sizeof(float), err); // the CPU's 0 for no terms
    bce_fwd<<<1, BCE_THREADS, 0, c->stream>>>(dloss, dlosses, dlogits, dlabels, n);
    return dgnn_cuda_check(cudaGetLastError(), "bce_fwd", err);
}

extern "C" int dgnn_cuda_bce_logits_backward(dgnn_cuda *c, float *ddlogits, const float *dlogits,
                                             const float *dlabels, int64_t n, float dloss, dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    const float s = dloss / (float)n; // loss.c's scale, in float
    bce_bwd<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(ddlogits, dlogits, dlabels, n,
                                                                                         s);
    return dgnn_cuda_check(cudaGetLastError(), "bce_bwd", err);
}
