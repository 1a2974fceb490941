// snap_gates.cu: the GPU's node-state GRU gates of T-GCN and GCRN-GRU (include/dgnn/cuda.h),
// the element-wise loops of src/models/tgcn.c and gcrn.c between their products, and the two
// bias helpers of snapmodel_gcn.c's GCN layers (a bias on every row, column sums). Each
// kernel is one thread per element (grid-stride), in the CPU loop's order of operations;
// the column sums are one thread per column over the rows in order, as linear.cu's bias
// gradient: slow for tall inputs, deterministic without atomics.
// NOT YET VERIFIED ON HARDWARE: compiled only; the emulation (tests/hostemu/hostemu_gates.cpp)
// holds each op's plain CPU reference.
#include "cuda_internal.h"

static unsigned blocks_for(int64_t n) { return dgnn_cuda_blocks(n, DGNN_CUDA_THREADS); }

static int bad_sizes(const char *op, int64_t a, int64_t b, dgnn_err *err) {
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: sizes %lld, %lld (negative)", op, (long long)a, (long long)b);
}

__global__ static void add_rows_k(float *y, const float *b, int64_t N, int64_t D) {
    DGNN_CUDA_FOR(i, N * D) y[i] += b[i % D];
}

// from db itself, row by row: the CPU's order (dgnn_linear_backward's bias path), so the same bits
__global__ static void col_sums_k(float *db, const float *dy, int64_t N, int64_t D) {
    DGNN_CUDA_FOR(j, D) {
        float s = db[j];
        for (int64_t i = 0; i < N; i++) s += dy[i * D + j];
        db[j] = s;
    }
}

// out = act((x + h) + b): tgcn.c's lin2_forward bias then its activation loop; gcrn.c's
// sigmoid(Z + P) / tanh(Ht + P)
__global__ static void gate_k(float *out, const float *x, const float *h, const float *b, int act, int64_t N,
                              int64_t D) {
    DGNN_CUDA_FOR(i, N * D) {
        float v = x[i];
        if (h) v += h[i];
        if (b) v += b[i % D];
        out[i] = act == DGNN_CUDA_GATE_TANH ? tanhf(v) : dgnn_sigmoidf_dev(v);
    }
}

__global__ static void reset_k(float *hr, const float *h, const float *r, int64_t n) {
    DGNN_CUDA_FOR(i, n) hr[i] = h[i] * r[i];
}

__global__ static void update_k(float *hn, const float *z, const float *h, const float *ht, int64_t n) {
    DGNN_CUDA_FOR(i, n) hn[i] = z[i] * h[i] + (1.0f - z[i]) * ht[i];
}

__global__ static void update_bwd_k(float *dzp, float *dhtp, float *dh, const float *dhn, const float *z,
                                    const float *h, const float *ht, int64_t n) {
    DGNN_CUDA_FOR(i, n) {
        const float d = dhn[i], zz = z[i], t = ht[i];
        if (dzp) dzp[i] += d * (h[i] - t) * zz * (1.0f - zz);
        if (dhtp) dhtp[i] += d * (1.0f - zz) * (1.0f - t * t);
        if (dh) dh[i] += d * zz;
    }
}

__global__ static void reset_bwd_k(float *dh, float *drp, const float *dhr, const float *r, const float *h,
                                   int64_t n) {
    DGNN_CUDA_FOR(i, n) {
        const float g = dhr[i], rr = r[i];
        if (dh) dh[i] += g * rr;
        if (drp) drp[i] += g * h[i] * rr * (1.0f - rr);
    }
}

extern "C" int dgnn_cuda_add_rows(dgnn_cuda *c, float *dY, const float *db, int64_t N, int64_t D, dgnn_err *err) {
    if (N < 0 || D < 0) return bad_sizes("dgnn_cuda_add_rows", N, D, err);
    if (N * D == 0) return DGNN_OK;
    add_rows_k<<<blocks_for(N * D), DGNN_CUDA_THREADS, 0, c->stream>>>(dY, db, N, D);
    return dgnn_cuda_check(cudaGetLastError(), "add_rows_k", err);
}

extern "C" int dgnn_cuda_col_sums(dgnn_cuda *c, float *ddb, const float *ddY, int64_t N, int64_t D, dgnn_err *err) {
    if (N < 0 || D < 0) return bad_sizes("dgnn_cuda_col_sums", N, D, err);
    if (D == 0 || !ddb) return DGNN_OK;
    col_sums_k<<<blocks_for(D), DGNN_CUDA_THREADS, 0, c->stream>>>(ddb, ddY, N, D);
    return dgnn_cuda_check(cudaGetLastError(), "col_sums_k", err);
}

extern "C" int dgnn_cuda_ngru_gate(dgnn_cuda *c, float *dout, const float *dx, const float *dh, const float *db, int act,
                                   int64_t N, int64_t D, dgnn_err *err) {
    if (N < 0 || D < 0) return bad_sizes("dgnn_cuda_ngru_gate", N, D, err);
    if (act != DGNN_CUDA_GATE_SIGMOID && act != DGNN_CUDA_GATE_TANH)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_ngru_gate: activation %d (not DGNN_CUDA_GATE_SIGMOID or "
                              "_TANH)", act);
    if (N * D == 0) return DGNN_OK;
    gate_k<<<blocks_for(N * D), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, dx, dh, db, act, N, D);
    return dgnn_cuda_check(cudaGetLastError(), "gate_k", err);
}

extern "C" int dgnn_cuda_ngru_reset(dgnn_cuda *c, float *dHR, const float *dH, const float *dR, int64_t n,
                                    dgnn_err *err) {
    if (n < 0) return bad_sizes("dgnn_cuda_ngru_reset", n, 0, err);
    if (n == 0) return DGNN_OK;
    reset_k<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dHR, dH, dR, n);
    return dgnn_cuda_check(cudaGetLastError(), "reset_k", err);
}

extern "C" int dgnn_cuda_ngru_update(dgnn_cuda *c, float *dHn, const float *dZ, const float *dH, const float *dHt,
                                     int64_t n, dgnn_err *err) {
    if (n < 0) return bad_sizes("dgnn_cuda_ngru_update", n, 0, err);
    if (n == 0) return DGNN_OK;
    if (dHn == dZ || dHn == dH || dHn == dHt)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_ngru_update: Hn must not alias Z, H or Ht");
    update_k<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(dHn, dZ, dH, dHt, n);
    return dgnn_cuda_check(cudaGetLastError(), "update_k", err);
}

extern "C" int dgnn_cuda_ngru_update_backward(dgnn_cuda *c, float *ddZp, float *ddHtp, float *ddH, const float *ddHn,
                                              const float *dZ, const float *dH, const float *dHt, int64_t n,
                                              dgnn_err *err) {
    if (n < 0) return bad_sizes("dgnn_cuda_ngru_update_backward", n, 0, err);
    if (n == 0 || (!ddZp && !ddHtp && !ddH)) return DGNN_OK;
    update_bwd_k<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(ddZp, ddHtp, ddH, ddHn, dZ, dH, dHt, n);
    return dgnn_cuda_check(cudaGetLastError(), "update_bwd_k", err);
}

extern "C" int dgnn_cuda_ngru_reset_backward(dgnn_cuda *c, float *ddH, float *ddRp, const float *ddHR, const float *dR,
                                             const float *dH, int64_t n, dgnn_err *err) {
    if (n < 0) return bad_sizes("dgnn_cuda_ngru_reset_backward", n, 0, err);
    if (n == 0 || (!ddH && !ddRp)) return DGNN_OK;
    reset_bwd_k<<<blocks_for(n), DGNN_CUDA_THREADS, 0, c->stream>>>(ddH, ddRp, ddHR, dR, dH, n);
    return dgnn_cuda_check(cudaGetLastError(), "reset_bwd_k", err);
}
