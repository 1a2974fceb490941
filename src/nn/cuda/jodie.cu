// jodie.cu: JODIE's time projection emb = h (1 + dt w + b) on the GPU, and TGL's
// normalisation of dt, mirroring src/nn/jodie.c (include/dgnn/cuda.h). The weight and bias
// gradients sum each column over the rows in row order, one thread per column (jodie.c's
// order).
#include "cuda_internal.h"

__global__ static void jodie_dt_tgl_kernel(float *dt, const double *t, const double *t_mem, int64_t B) {
    DGNN_CUDA_FOR(i, B) dt[i] = (float)((t[i] - t_mem[i]) / (t[i] + 1.0));
}

__global__ static void jodie_fwd(float *out, const float *h, const float *dt, const float *w, const float *b,
                                 int64_t B, int64_t M) {
    DGNN_CUDA_FOR(t, B * M) {
        const int64_t i = t / M, j = t % M;
        out[t] = h[t] * (1.0f + dt[i] * w[j] + (b ? b[j] : 0.0f));
    }
}

__global__ static void jodie_bwd_h(float *dh, const float *dout, const float *dt, const float *w, const float *b,
                                   int64_t B, int64_t M) {
    DGNN_CUDA_FOR(t, B * M) {
        const int64_t i = t / M, j = t % M;
        dh[t] += dout[t] * (1.0f + dt[i] * w[j] + (b ? b[j] : 0.0f));
    }
}

__global__ static void jodie_bwd_wb(float *dw, float *db, const float *dout, const float *h, const float *dt,
                                    int64_t B, int64_t M) {
    DGNN_CUDA_FOR(j, M) {
        float aw = dw ? dw[j] : 0.0f, ab = db ? db[j] : 0.0f;
        for (int64_t i = 0; i < B; i++) {
            const float g = dout[i * M + j] * h[i * M + j];
            aw += g * dt[i];
            ab += g;
        }
        if (dw) dw[j] = aw;
        if (db) db[j] = ab;
    }
}

extern "C" int dgnn_cuda_jodie_dt_tgl(dgnn_cuda *c, float *ddt, const double *d_t, const double *d_tmem, int64_t B,
                                      dgnn_err *err) {
    if (B <= 0) return DGNN_OK;
    jodie_dt_tgl_kernel<<<dgnn_cuda_blocks(B, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(ddt, d_t, d_tmem,
                                                                                                     B);
    return dgnn_cuda_check(cudaGetLastError(), "jodie_dt_tgl_kernel", err);
}

extern "C" int dgnn_cuda_jodie_forward(dgnn_cuda *c, float *dout, const float *dh, const float *ddt, const float *dw,
                                       const float *db, int64_t B, int64_t M, dgnn_err *err) {
    if (B <= 0 || M <= 0) return DGNN_OK;
    jodie_fwd<<<dgnn_cuda_blocks(B * M, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, dh, ddt, dw, db,
                                                                                               B, M);
    return dgnn_cuda_check(cudaGetLastError(), "jodie_fwd", err);
}

extern "C" int dgnn_cuda_jodie_backward(dgnn_cuda *c, float *ddh, float *ddw, float *ddb, const float *ddout,
                                        const float *dh, const float *ddt, const float *dw, const float *db, int64_t B,
                                        int64_t M, dgnn_err *err) {
    if (B <= 0 || M <= 0) return DGNN_OK;
    int rc = DGNN_OK;
    if (ddh) {
        jodie_bwd_h<<<dgnn_cuda_blocks(B * M, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(ddh, ddout, ddt, dw,
                                                                                                     db, B, M);
        rc = dgnn_cuda_check(cudaGetLastError(), "jodie_bwd_h", err);
    }
    if (!rc && (ddw || ddb)) {
        jodie_bwd_wb<<<dgnn_cuda_blocks(M, 128), 128, 0, c->stream>>>(ddw, ddb, ddout, dh, ddt, B, M);
        rc = dgnn_cuda_check(cudaGetLastError(), "jodie_bwd_wb", err);
    }
    return rc;
}
