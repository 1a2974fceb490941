// timeenc.cu: the GPU's time encoding cos(dt w + b), mirroring src/nn/timeenc.c
// (include/dgnn/cuda.h). As on the CPU the argument is formed in double (dt up to ~1e8
// seconds, w up to 1: a float product would lose the phase); the device's double cos
// replaces the CPU's Taylor series, so the two agree to float rounding, not to the bit.
// The backward sums each column over the rows in double, one thread per column.
#include "cuda_internal.h"

__global__ static void timeenc_fwd(float *out, const float *dt, const float *w, const float *b, int64_t N,
                                   int64_t d) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= N * d) return;
    const int64_t i = t / d, j = t % d;
    out[t] = (float)cos((double)dt[i] * w[j] + (b ? (double)b[j] : 0.0));
}

__global__ static void timeenc_bwd(float *dw, float *db, const float *dout, const float *dt, const float *w,
                                   const float *b, int64_t N, int64_t d) {
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    double aw = 0, ab = 0;
    const double wj = w[j], bj = b ? b[j] : 0.0;
    for (int64_t i = 0; i < N; i++) {
        const double t = dt[i], s = -(double)dout[i * d + j] * sin(t * wj + bj);
        aw += s * t;
        ab += s;
    }
    if (dw) dw[j] += (float)aw;
    if (db) db[j] += (float)ab;
}

extern "C" int dgnn_cuda_timeenc_forward(dgnn_cuda *c, float *dout, const float *ddt, const float *dw, const float *db,
                                         int64_t N, int64_t d, dgnn_err *err) {
    if (N * d == 0) return DGNN_OK;
    timeenc_fwd<<<(unsigned)((N * d + 255) / 256), 256, 0, c->stream>>>(dout, ddt, dw, db, N, d);
    return dgnn_cuda_check(cudaGetLastError(), "timeenc_fwd", err);
}

extern "C" int dgnn_cuda_timeenc_backward(dgnn_cuda *c, float *ddw, float *ddb, const float *ddout, const float *ddt,
                                          const float *dw, const float *db, int64_t N, int64_t d, dgnn_err *err) {
    if ((!ddw && !ddb) || d == 0) return DGNN_OK;
    timeenc_bwd<<<(unsigned)((d + 127) / 128), 128, 0, c->stream>>>(ddw, ddb, ddout, ddt, dw, db, N, d);
    return dgnn_cuda_check(cudaGetLastError(), "timeenc_bwd", err);
}
