// act.cu: the GPU's element-wise layers, mirroring src/nn/act.c (include/dgnn/cuda.h): ReLU
// and dropout. The dropout mask is act.c's counter-based hash of (seed, i), computed here
// with the same integer arithmetic, so that a seed gives the CPU's mask bit for bit: a GPU
// step and a CPU step drop the same units.
#include "cuda_internal.h"

__global__ static void relu_fwd(float *out, const float *inp, int64_t n) {
    DGNN_CUDA_FOR(i, n) out[i] = inp[i] < 0 ? 0.0f : inp[i]; // a NaN passes, as the CPU's (act.c)
}

__global__ static void relu_bwd(float *dinp, const float *dout, const float *out, int64_t n) {
    DGNN_CUDA_FOR(i, n) if (out[i] > 0) dinp[i] += dout[i];
}

__global__ static void mask_kernel(float *mask, int64_t n, uint64_t thresh, float scale, uint64_t seed) {
    DGNN_CUDA_FOR(i, n) {
        const uint64_t h = dgnn_hash64_dev(seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL);
        mask[i] = (h >> 40) >= thresh ? scale : 0.0f;
    }
}

__global__ static void fill_kernel(float *x, int64_t n, float v) {
    DGNN_CUDA_FOR(i, n) x[i] = v;
}

__global__ static void mul_kernel(float *out, const float *inp, const float *mask, int64_t n) {
    DGNN_CUDA_FOR(i, n) out[i] = inp[i] * mask[i];
}

__global__ static void muladd_kernel(float *dinp, const float *dout, const float *mask, int64_t n) {
    DGNN_CUDA_FOR(i, n) dinp[i] += dout[i] * mask[i];
}

static unsigned blocks_for(int64_t n) { return dgnn_cuda_blocks(n, DGNN_CUDA_THREADS); }

extern "C" int dgnn_cuda_relu_forward(dgnn_cuda *c, float *dout, const float *dinp, int64_t n, dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    relu_fwd<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, dinp, n);
    return dgnn_cuda_check(cudaGetLastError(), "relu_fwd", err);
}

extern "C" int dgnn_cuda_relu_backward(dgnn_cuda *c, float *ddinp, const float *ddout, const float *dout, int64_t n,
                                       dgnn_err *err) {
    if (n <= 0 || !ddinp) return DGNN_OK;
    relu_bwd<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(ddinp, ddout, dout, n);
    return dgnn_cuda_check(cudaGetLastError(), "relu_bwd", err);
}

static int check_p(float p, const char *what, dgnn_err *err) {
    if (p >= 0 && p < 1) return DGNN_OK;
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: dropout probability %g is not in [0, 1)", what, (double)p);
}

extern "C" int dgnn_cuda_dropout_mask(dgnn_cuda *c, float *dmask, int64_t n, float p, uint64_t seed, dgnn_err *err) {
    int rc = check_p(p, "dgnn_cuda_dropout_mask", err);
    if (rc || n <= 0) return rc;
    // act.c's threshold and scale, formed on the host in the same types
    const uint64_t thresh = (uint64_t)((double)p * 16777216.0);
    const float scale = 1.0f / (1.0f - p);
    mask_kernel<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dmask, n, thresh, scale, seed);
    return dgnn_cuda_check(cudaGetLastError(), "dropout mask_kernel", err);
}

extern "C" int dgnn_cuda_dropout_forward(dgnn_cuda *c, float *dout, float *dmask, const float *dinp, int64_t n,
                                         float p, const uint64_t *seed, dgnn_err *err) {
    int rc = check_p(p, "dgnn_cuda_dropout_forward", err);
    if (rc || n <= 0) return rc;
    if (!seed || p == 0) { // inference, or nothing to drop: mask 1, out = inp
        fill_kernel<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dmask, n, 1.0f);
        rc = dgnn_cuda_check(cudaGetLastError(), "dropout fill_kernel", err);
        if (!rc) rc = dgnn_cuda_copy(c, dout, dinp, (size_t)n * sizeof(float), err);
        return rc;
    }
    rc = dgnn_cuda_dropout_mask(c, dmask, n, p, *seed, err);
    if (rc) return rc;
    mul_kernel<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, dinp, dmask, n);
    return dgnn_cuda_check(cudaGetLastError(), "dropout mul_kernel", err);
}

extern "C" int dgnn_cuda_dropout_backward(dgnn_cuda *c, float *ddinp, const float *ddout, const float *dmask,
                                          int64_t n, dgnn_err *err) {
    if (n <= 0 || !ddinp) return DGNN_OK;
    muladd_kernel<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(ddinp, ddout, dmask, n);
    return dgnn_cuda_check(cudaGetLastError(), "dropout muladd_kernel", err);
}
