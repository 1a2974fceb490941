// layernorm.cu: the GPU's layer norm, mirroring src/nn/layernorm.c (include/dgnn/cuda.h):
// one block per row, the row's statistics summed in double as on the CPU (the mean, then
// the variance as E[(x - mean)^2] in a second pass: no cancellation for rows with a large
// mean), with a shared-memory tree instead of the CPU's serial sum. The affine gradients
// sum each column over the rows in row order, one thread per column (as linear.cu's bias
// gradient: simple to check, a blocked reduction is a later speed step).
#include "cuda_internal.h"

#include "dgnn/nn.h" /* DGNN_LAYERNORM_EPS */

#define LN_THREADS 128 /* a power of two (dgnn_block_sum) */

__global__ static void ln_fwd(float *out, float *mean, float *rstd, const float *inp, const float *g, const float *b,
                              int64_t N, int64_t C) {
    __shared__ double sh[LN_THREADS];
    for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
        const float *x = inp + i * C;
        double m = 0;
        for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m += x[c];
        m = dgnn_block_sum(m, sh) / (double)C;
        double v = 0;
        for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
            const double d = x[c] - m;
            v += d * d;
        }
        v = dgnn_block_sum(v, sh) / (double)C; // biased variance, as torch
        const float s = (float)(1.0 / sqrt(v + DGNN_LAYERNORM_EPS));
        const float mf = (float)m;
        float *y = out + i * C;
        for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
            const float n = (x[c] - mf) * s;
            y[c] = n * (g ? g[c] : 1.0f) + (b ? b[c] : 0.0f);
        }
        if (threadIdx.x == 0) mean[i] = mf, rstd[i] = s;
    }
}

// dinp = rstd (dn - mean(dn) - n mean(dn n)), n the normalised input, dn = dout g
__global__ static void ln_bwd_inp(float *dinp, const float *dout, const float *inp, const float *g,
                                  const float *mean, const float *rstd, int64_t N, int64_t C) {
    __shared__ double sh[LN_THREADS];
    for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
        const float *x = inp + i * C, *dy = dout + i * C;
        const float m = mean[i], s = rstd[i];
        double a = 0, bsum = 0;
        for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
            const double dn = (double)dy[c] * (g ? g[c] : 1.0f);
            a += dn;
            bsum += dn * ((x[c] - m) * s);
        }
        a = dgnn_block_sum(a, sh) / (double)C;
        bsum = dgnn_block_sum(bsum, sh) / (double)C;
        float *dx = dinp + i * C;
        for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
            const double dn = (double)dy[c] * (g ? g[c] : 1.0f);
            const double n = (x[c] - m) * s;
            dx[c] += (float)(s * (dn - a - n * bsum));
        }
    }
}

__global__ static void ln_bwd_affine(float *dg, float *db, const float *dout, const float *inp, const float *mean,
                                     const float *rstd, int64_t N, int64_t C) {
    DGNN_CUDA_FOR(c, C) {
        float ag = dg ? dg[c] : 0.0f, ab = db ? db[c] : 0.0f;
        for (int64_t i = 0; i < N; i++) {
            const float dy = dout[i * C + c];
            ag += dy * ((inp[i * C + c] - mean[i]) * rstd[i]);
            ab += dy;
        }
        if (dg) dg[c] = ag;
        if (db) db[c] = ab;
    }
}

extern "C" int dgnn_cuda_layernorm_forward(dgnn_cuda *c, float *dout, float *dmean, float *drstd, const float *dinp,
                                           const float *dg, const float *db, int64_t N, int64_t C, dgnn_err *err) {
    if (N <= 0 || C <= 0) return DGNN_OK;
    ln_fwd<<<dgnn_cuda_row_blocks(N), LN_THREADS, 0, c->stream>>>(dout, dmean, drstd, dinp, dg, db, N, C);
    return dgnn_cuda_check(cudaGetLastError(), "ln_fwd", err);
}

extern "C" int dgnn_cuda_layernorm_backward(dgnn_cuda *c, float *ddinp, float *ddg, float *ddb, const float *ddout,
                                            const float *dinp, const float *dg, const float *dmean,
                                            const float *drstd, int64_t N, int64_t C, dgnn_err *err) {
    if (N <= 0 || C <= 0) return DGNN_OK;
    int rc = DGNN_OK;
    if (ddinp) {
        ln_bwd_inp<<<dgnn_cuda_row_blocks(N), LN_THREADS, 0, c->stream>>>(ddinp, ddout, dinp, dg, dmean, drstd, N, C);
        rc = dgnn_cuda_check(cudaGetLastError(), "ln_bwd_inp", err);
    }
    if (!rc && (ddg || ddb)) {
        ln_bwd_affine<<<dgnn_cuda_blocks(C, 128), 128, 0, c->stream>>>(ddg, ddb, ddout, dinp, dmean, drstd, N, C);
        rc = dgnn_cuda_check(cudaGetLastError(), "ln_bwd_affine", err);
    }
    return rc;
}
