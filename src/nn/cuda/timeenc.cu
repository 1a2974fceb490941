// timeenc.cu: the GPU's time encoding cos(dt w + b), mirroring src/nn/timeenc.c
// (include/dgnn/cuda.h). As on the CPU the argument is formed in double (dt up to ~1e8
// seconds, w up to 1: a float product would lose the phase); the device's double cos
// replaces the CPU's Taylor series, so the two agree to float rounding, not to the bit.
// The backward sums each column over the rows in double: a block per column, its threads
// striding over the rows and then a fixed tree (dgnn_block_sum), so the same bits every run
// (one thread per column would leave most of the device idle: d = 100 columns, thousands
// of rows of double sines each).
#include "cuda_internal.h"

#define TE_BWD_THREADS 256 /* a power of two (dgnn_block_sum) */

__global__ static void timeenc_fwd(float *out, const float *dt, const float *w, const float *b, int64_t N,
                                   int64_t d) {
    DGNN_CUDA_FOR(t, N * d) {
        const int64_t i = t / d, j = t % d;
        out[t] = (float)cos((double)dt[i] * w[j] + (b ? (double)b[j] : 0.0));
    }
}

__global__ static void timeenc_bwd(float *dw, float *db, const float *dout, const float *dt, const float *w,
                                   const float *b, int64_t N, int64_t d) {
    __shared__ double sh[TE_BWD_THREADS];
    for (int64_t j = blockIdx.x; j < d; j += gridDim.x) { /* the same trip count in every thread */
        double aw = 0, ab = 0;
        const double wj = w[j], bj = b ? b[j] : 0.0;
        for (int64_t i = threadIdx.x; i < N; i += blockDim.x) {
            const double t = dt[i], s = -(double)dout[i * d + j] * sin(t * wj + bj);
            aw += s * t;
            ab += s;
        }
        aw = dgnn_block_sum(aw, sh);
        ab = dgnn_block_sum(ab, sh);
        if (threadIdx.x == 0) {
            if (dw) dw[j] += (float)aw;
            if (db) db[j] += (float)ab;
        }
    }
}

extern "C" int dgnn_cuda_timeenc_forward(dgnn_cuda *c, float *dout, const float *ddt, const float *dw, const float *db,
                                         int64_t N, int64_t d, dgnn_err *err) {
    if (N <= 0 || d <= 0) return DGNN_OK;
    timeenc_fwd<<<dgnn_cuda_blocks(N * d, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, ddt, dw, db,
                                                                                                 N, d);
    return dgnn_cuda_check(cudaGetLastError(), "timeenc_fwd", err);
}

extern "C" int dgnn_cuda_timeenc_backward(dgnn_cuda *c, float *ddw, float *ddb, const float *ddout, const float *ddt,
                                          const float *dw, const float *db, int64_t N, int64_t d, dgnn_err *err) {
    if ((!ddw && !ddb) || N <= 0 || d <= 0) return DGNN_OK;
    timeenc_bwd<<<dgnn_cuda_row_blocks(d), TE_BWD_THREADS, 0, c->stream>>>(ddw, ddb, ddout, ddt, dw, db, N, d);
    return dgnn_cuda_check(cudaGetLastError(), "timeenc_bwd", err);
}
