// snap_loss.cu: the GPU's losses of the snapshot models, mirroring src/nn/snap_loss.c
// (include/dgnn/cuda.h): EvolveGCN's weighted cross-entropy (mean over the M samples, not
// over the weights) and the mean squared error. Each term is formed in double as on the
// CPU (logsumexp after subtracting the row's max, so no exp overflows); the mean is one
// block's double sum (loss.cu's pattern: a fixed tree instead of the CPU's fixed blocks, the
// same value within double rounding and the same bits on every run), written to device
// memory as a double (the CPU op returns a double) so that a step needs no synchronisation
// until the caller reads it. One block keeps the order fixed and simple; for a large M a
// two-level sum (fixed per-block partial sums, then one block over them) is a later speed
// step. The gradients are one thread per sample row (the class count C is small: 2 for
// the link and edge tasks).
//
// A label outside [0, C), which the CPU op asserts on, cannot be reported from a kernel
// without a wait: its term and its row's gradient are NaN instead (never an out-of-bounds
// read), so that the loss shows it.
#include "cuda_internal.h"

#define SNAP_LOSS_THREADS 256 /* a power of two (dgnn_block_sum) */

__device__ static inline double nan_dev() { return __longlong_as_double(0x7ff8000000000000LL); }

// snap_loss.c's logsumexp: the max in float, the sum of exp(z - max) in double
__device__ static double logsumexp_dev(const float *z, int64_t C) {
    float m = z[0];
    for (int64_t c = 1; c < C; c++)
        if (z[c] > m) m = z[c];
    double s = 0;
    for (int64_t c = 0; c < C; c++) s += exp((double)z[c] - (double)m);
    return (double)m + log(s);
}

__global__ static void wce_fwd(double *loss, const float *logits, const int32_t *labels, const float *class_w,
                               int64_t M, int64_t C) {
    __shared__ double sh[SNAP_LOSS_THREADS];
    double acc = 0;
    for (int64_t i = threadIdx.x; i < M; i += blockDim.x) {
        const int32_t y = labels[i];
        if (y < 0 || y >= C) {
            acc += nan_dev();
            continue;
        }
        const float *z = logits + i * C;
        const double w = class_w ? (double)class_w[y] : 1.0;
        acc += w * (logsumexp_dev(z, C) - (double)z[y]);
    }
    acc = dgnn_block_sum(acc, sh);
    if (threadIdx.x == 0) *loss = acc / (double)M;
}

// dlogits[i] += dloss w[y_i] / M (softmax(z_i) - onehot(y_i)), in double as the CPU
__global__ static void wce_bwd(float *dlogits, float dloss, const float *logits, const int32_t *labels,
                               const float *class_w, int64_t M, int64_t C) {
    DGNN_CUDA_FOR(i, M) {
        const int32_t y = labels[i];
        const float *z = logits + i * C;
        float *dz = dlogits + i * C;
        if (y < 0 || y >= C) {
            for (int64_t c = 0; c < C; c++) dz[c] += (float)nan_dev();
            continue;
        }
        const double lse = logsumexp_dev(z, C);
        const double scale = (double)dloss * (class_w ? (double)class_w[y] : 1.0) / (double)M;
        for (int64_t c = 0; c < C; c++) {
            const double prob = exp((double)z[c] - lse);
            dz[c] += (float)(scale * (prob - (c == y ? 1.0 : 0.0)));
        }
    }
}

__global__ static void mse_fwd(double *loss, const float *pred, const float *target, int64_t n) {
    __shared__ double sh[SNAP_LOSS_THREADS];
    double acc = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const double d = (double)pred[i] - (double)target[i];
        acc += d * d;
    }
    acc = dgnn_block_sum(acc, sh);
    if (threadIdx.x == 0) *loss = acc / (double)n;
}

__global__ static void mse_bwd(float *dpred, double scale, const float *pred, const float *target, int64_t n) {
    DGNN_CUDA_FOR(i, n) dpred[i] += (float)(scale * ((double)pred[i] - (double)target[i]));
}

extern "C" int dgnn_cuda_wce_forward(dgnn_cuda *c, double *dloss, const float *dlogits, const int32_t *dlabels,
                                     const float *dclass_w, int64_t M, int64_t C, dgnn_err *err) {
    if (M <= 0) return dgnn_cuda_zero(c, dloss, sizeof(double), err); // the CPU's 0 for no samples
    if (C < 1)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_wce_forward: %lld samples over %lld classes", (long long)M,
                              (long long)C);
    wce_fwd<<<1, SNAP_LOSS_THREADS, 0, c->stream>>>(dloss, dlogits, dlabels, dclass_w, M, C);
    return dgnn_cuda_check(cudaGetLastError(), "wce_fwd", err);
}

extern "C" int dgnn_cuda_wce_backward(dgnn_cuda *c, float *ddlogits, float dloss, const float *dlogits,
                                      const int32_t *dlabels, const float *dclass_w, int64_t M, int64_t C,
                                      dgnn_err *err) {
    if (M <= 0) return DGNN_OK;
    if (C < 1)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_wce_backward: %lld samples over %lld classes",
                              (long long)M, (long long)C);
    wce_bwd<<<dgnn_cuda_blocks(M, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(ddlogits, dloss, dlogits,
                                                                                         dlabels, dclass_w, M, C);
    return dgnn_cuda_check(cudaGetLastError(), "wce_bwd", err);
}

extern "C" int dgnn_cuda_mse_forward(dgnn_cuda *c, double *dloss, const float *dpred, const float *dtarget, int64_t n,
                                     dgnn_err *err) {
    if (n <= 0) return dgnn_cuda_zero(c, dloss, sizeof(double), err); // the CPU's 0 for no values
    mse_fwd<<<1, SNAP_LOSS_THREADS, 0, c->stream>>>(dloss, dpred, dtarget, n);
    return dgnn_cuda_check(cudaGetLastError(), "mse_fwd", err);
}

extern "C" int dgnn_cuda_mse_backward(dgnn_cuda *c, float *ddpred, float dloss, const float *dpred,
                                      const float *dtarget, int64_t n, dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    const double scale = 2.0 * (double)dloss / (double)n; // snap_loss.c's, in the same type
    mse_bwd<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(ddpred, scale, dpred, dtarget,
                                                                                         n);
    return dgnn_cuda_check(cudaGetLastError(), "mse_bwd", err);
}
