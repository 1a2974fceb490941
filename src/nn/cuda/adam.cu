// adam.cu: Adam on device parameters, mirroring src/train/adam.c's dgnn_adam_step (include/
// dgnn/cuda.h): torch.optim.Adam's update (weight decay added to the gradient, m by lerp,
// bias corrections and the step size in double on the host, then float scalars), one
// thread per element. The float operations are spelled with the round-to-nearest
// intrinsics so that nvcc does not contract them into fused multiply-adds: each element
// then takes the same roundings as adam.c's baseline (non-FMA) build.
//
// This file is in src/nn/cuda (the nn layer) while adam.h is in train: the optimizer's
// settings come in as plain numbers, not as a dgnn_adam.
#include <cmath>

#include "cuda_internal.h"

__global__ static void adam_kernel(float *param, const float *grad, float *m, float *v, int64_t n, float w1,
                                   float beta2, float w2, float step_size, float bc2_sqrt, float eps, float wd) {
    DGNN_CUDA_FOR(i, n) {
        float g = grad[i];
        if (wd != 0.0f) g = __fadd_rn(g, __fmul_rn(wd, param[i]));
        // torch's lerp for weight < 0.5: self + weight * (end - self)
        const float mi = __fadd_rn(m[i], __fmul_rn(w1, __fsub_rn(g, m[i])));
        const float vi = __fadd_rn(__fmul_rn(v[i], beta2), __fmul_rn(__fmul_rn(w2, g), g));
        const float denom = __fadd_rn(__fdiv_rn(__fsqrt_rn(vi), bc2_sqrt), eps);
        param[i] = __fadd_rn(param[i], __fdiv_rn(__fmul_rn(-step_size, mi), denom));
        m[i] = mi;
        v[i] = vi;
    }
}

extern "C" int dgnn_cuda_adam_step(dgnn_cuda *c, float *dparam, const float *dgrad, float *dm, float *dv, int64_t n,
                                   double lr, double beta1, double beta2, double eps, double weight_decay, int64_t t,
                                   dgnn_err *err) {
    if (t < 1) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_adam_step: step %lld (the first step is 1)", (long long)t);
    if (n <= 0) return DGNN_OK;
    // adam.c's scalars, in the same types and order
    const double bc1 = 1.0 - pow(beta1, (double)t);
    const double bc2 = 1.0 - pow(beta2, (double)t);
    const float w1 = (float)(1.0 - beta1);
    const float b2 = (float)beta2, w2 = (float)(1.0 - beta2);
    const float step_size = (float)(lr / bc1);
    const float bc2_sqrt = (float)sqrt(bc2);
    adam_kernel<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
        dparam, dgrad, dm, dv, n, w1, b2, w2, step_size, bc2_sqrt, (float)eps, (float)weight_decay);
    return dgnn_cuda_check(cudaGetLastError(), "adam_kernel", err);
}
