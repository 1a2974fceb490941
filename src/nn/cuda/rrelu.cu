// rrelu.cu: the GPU's randomized leaky ReLU (torch.nn.RReLU, EvolveGCN's and WD-GCN's
// activation), mirroring src/nn/rrelu.c (include/dgnn/cuda.h). x <= 0 (and NaN) takes the
// slope, x > 0 passes through, as there.
//
// Randomness: rrelu.c draws one u64 from the caller's rng as a key and gives element i the
// slope lower + u_i (upper - lower), u_i = (hash64(key + i * 0x9E3779B97F4A7C15) >> 11) 2^-53.
// The GPU op takes that key (what dgnn_rng_u64 gives the CPU op for its call) and forms
// the same slopes with the same integer hash and the same two double roundings (__dmul_rn,
// __dadd_rn: no fused multiply-add, which x86-64's baseline code the CPU build targets
// does not have), then one rounding to float: the slopes are the CPU's bit for bit.
#include "cuda_internal.h"

static unsigned blocks_for(int64_t n) { return dgnn_cuda_blocks(n, DGNN_CUDA_THREADS); }

__global__ static void rrelu_eval(float *y, float *slope, const float *x, int64_t n, float a) {
    DGNN_CUDA_FOR(i, n) {
        const float v = x[i], s = v > 0.0f ? 1.0f : a;
        slope[i] = s;
        y[i] = v * s;
    }
}

__global__ static void rrelu_train(float *y, float *slope, const float *x, int64_t n, double lower, double width,
                                   uint64_t key) {
    const double two_m53 = 1.0 / 9007199254740992.0; // 2^-53, exact
    DGNN_CUDA_FOR(i, n) {
        const float v = x[i];
        float s = 1.0f;
        if (!(v > 0.0f)) {
            // 53 high bits of the hash -> uniform double in [0, 1) (exact: a 53-bit integer times 2^-53)
            const double u = (double)(dgnn_hash64_dev(key + (uint64_t)i * 0x9E3779B97F4A7C15ULL) >> 11) * two_m53;
            s = (float)__dadd_rn(lower, __dmul_rn(u, width));
        }
        slope[i] = s;
        y[i] = v * s;
    }
}

__global__ static void rrelu_bwd(float *dx, const float *dy, const float *slope, int64_t n) {
    DGNN_CUDA_FOR(i, n) dx[i] += dy[i] * slope[i];
}

extern "C" int dgnn_cuda_rrelu_forward(dgnn_cuda *c, float *dy, float *dslope, const float *dx, int64_t n, float lower,
                                       float upper, int training, const uint64_t *key, dgnn_err *err) {
    if (training && !key)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_rrelu_forward: training needs the key the CPU op would draw");
    if (n <= 0) return DGNN_OK;
    if (!training) {
        const float a = 0.5f * (lower + upper); // rrelu.c's, in float
        rrelu_eval<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dy, dslope, dx, n, a);
        return dgnn_cuda_check(cudaGetLastError(), "rrelu_eval", err);
    }
    const double width = (double)upper - (double)lower; // rrelu.c's, in the same type
    rrelu_train<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dy, dslope, dx, n, (double)lower, width, *key);
    return dgnn_cuda_check(cudaGetLastError(), "rrelu_train", err);
}

extern "C" int dgnn_cuda_rrelu_backward(dgnn_cuda *c, float *ddx, const float *ddy, const float *dslope, int64_t n,
                                        dgnn_err *err) {
    if (n <= 0 || !ddx) return DGNN_OK;
    rrelu_bwd<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(ddx, ddy, dslope, n);
    return dgnn_cuda_check(cudaGetLastError(), "rrelu_bwd", err);
}
