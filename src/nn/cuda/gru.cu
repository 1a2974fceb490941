// gru.cu: the GPU's GRU cell and vanilla (tanh) RNN cell, mirroring src/nn/gru.c
// (include/dgnn/cuda.h): the gate products through the GPU linear layer, the gate
// non-linearities as one element-wise kernel, with the same `saved` layout as the CPU
// (r, z, n, then h W_hh^T + b_hh), so that a step can be checked against the CPU one array
// at a time. The RNN cell (JODIE's and DyRep's memory updater) uses the device's tanhf
// where gru.c uses its vectorisable dgnn_tanhf_fast: they agree within 3e-7.
#include "cuda_internal.h"

// the CPU's dgnn_sigmoidf: two branches so that exp never overflows
__device__ static inline float sigmoidf_dev(float x) {
    if (x >= 0) return 1.0f / (1.0f + expf(-x));
    const float e = expf(x);
    return e / (1.0f + e);
}

__global__ static void gru_gates(float *hout, float *gates, const float *gh, const float *h, int64_t B, int64_t H) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= B * H) return;
    const int64_t i = t / H, j = t % H;
    float *g = gates + i * 3 * H;
    const float *gg = gh + i * 3 * H;
    const float r = sigmoidf_dev(g[j] + gg[j]);
    const float z = sigmoidf_dev(g[H + j] + gg[H + j]);
    const float n = tanhf(g[2 * H + j] + r * gg[2 * H + j]);
    g[j] = r, g[H + j] = z, g[2 * H + j] = n;
    hout[t] = (1.0f - z) * n + z * h[t];
}

__global__ static void gru_gates_backward(float *dgi, float *dgh, float *dh, const float *dhout, const float *gates,
                                          const float *gh, const float *h, int64_t B, int64_t H) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= B * H) return;
    const int64_t i = t / H, j = t % H;
    const float *g = gates + i * 3 * H, *gg = gh + i * 3 * H;
    float *di = dgi + i * 3 * H, *dg = dgh + i * 3 * H;
    const float r = g[j], z = g[H + j], n = g[2 * H + j], ghn = gg[2 * H + j], d = dhout[t];
    const float dn = d * (1.0f - z) * (1.0f - n * n);
    const float dz = d * (h[t] - n) * z * (1.0f - z);
    const float dr = dn * ghn * r * (1.0f - r);
    di[j] = dr, di[H + j] = dz, di[2 * H + j] = dn;
    dg[j] = dr, dg[H + j] = dz, dg[2 * H + j] = dn * r;
    if (dh) dh[t] += d * z;
}

static unsigned blocks_for(int64_t n) { return (unsigned)((n + 255) / 256); }

extern "C" int dgnn_cuda_gru_forward(dgnn_cuda *c, float *dhout, float *dsaved, const float *dx, const float *dh,
                                     const float *dW_ih, const float *dW_hh, const float *db_ih, const float *db_hh,
                                     int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    if (dhout == dh) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_gru_forward: hout must not alias h");
    float *gates = dsaved, *gh = dsaved + B * 3 * H;
    int rc = dgnn_cuda_linear_forward(c, gates, dx, dW_ih, db_ih, B, Din, 3 * H, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, gh, dh, dW_hh, db_hh, B, H, 3 * H, err);
    if (rc || B * H == 0) return rc;
    gru_gates<<<blocks_for(B * H), 256, 0, c->stream>>>(dhout, gates, gh, dh, B, H);
    return dgnn_cuda_check(cudaGetLastError(), "gru_gates", err);
}

extern "C" int dgnn_cuda_gru_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh,
                                      float *ddb_ih, float *ddb_hh, float *dscratch, const float *ddhout,
                                      const float *dsaved, const float *dx, const float *dh, const float *dW_ih,
                                      const float *dW_hh, int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    const float *gates = dsaved, *gh = dsaved + B * 3 * H;
    float *dgi = dscratch, *dgh = dscratch + B * 3 * H;
    int rc = DGNN_OK;
    if (B * H > 0) {
        gru_gates_backward<<<blocks_for(B * H), 256, 0, c->stream>>>(dgi, dgh, ddh, ddhout, gates, gh, dh, B, H);
        rc = dgnn_cuda_check(cudaGetLastError(), "gru_gates_backward", err);
    }
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddx, ddW_ih, ddb_ih, dgi, dx, dW_ih, B, Din, 3 * H, err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddh, ddW_hh, ddb_hh, dgh, dh, dW_hh, B, H, 3 * H, err);
    return rc;
}

// ---- vanilla RNN (tanh) ----

__global__ static void rnn_act(float *hout, const float *b_hh, int64_t B, int64_t H) {
    DGNN_CUDA_FOR(t, B * H) hout[t] = tanhf(hout[t] + (b_hh ? b_hh[t % H] : 0.0f));
}

__global__ static void rnn_act_backward(float *dpre, const float *dhout, const float *hout, int64_t n) {
    DGNN_CUDA_FOR(t, n) dpre[t] = dhout[t] * (1.0f - hout[t] * hout[t]);
}

extern "C" int dgnn_cuda_rnn_forward(dgnn_cuda *c, float *dhout, const float *dx, const float *dh, const float *dW_ih,
                                     const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B,
                                     int64_t Din, int64_t H, dgnn_err *err) {
    if (dhout == dh) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_rnn_forward: hout must not alias h");
    if (B <= 0 || H <= 0) return DGNN_OK;
    // hout = x W_ih^T + b_ih, then += h W_hh^T (accumulating product), then + b_hh and tanh
    int rc = dgnn_cuda_linear_forward(c, dhout, dx, dW_ih, db_ih, B, Din, H, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, B, H, H, dh, H, dW_hh, H, 1.0f, dhout, H, err);
    if (rc) return rc;
    rnn_act<<<blocks_for(B * H), 256, 0, c->stream>>>(dhout, db_hh, B, H);
    return dgnn_cuda_check(cudaGetLastError(), "rnn_act", err);
}

extern "C" int dgnn_cuda_rnn_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh,
                                      float *ddb_ih, float *ddb_hh, float *dscratch, const float *ddhout,
                                      const float *dhout, const float *dx, const float *dh, const float *dW_ih,
                                      const float *dW_hh, int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    if (B <= 0 || H <= 0) return DGNN_OK;
    float *dpre = dscratch; // (B, H)
    rnn_act_backward<<<blocks_for(B * H), 256, 0, c->stream>>>(dpre, ddhout, dhout, B * H);
    int rc = dgnn_cuda_check(cudaGetLastError(), "rnn_act_backward", err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddx, ddW_ih, ddb_ih, dpre, dx, dW_ih, B, Din, H, err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddh, ddW_hh, ddb_hh, dpre, dh, dW_hh, B, H, H, err);
    return rc;
}
