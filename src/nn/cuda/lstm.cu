// lstm.cu: the GPU's LSTM cell (torch.nn.LSTMCell; WD-GCN), mirroring src/nn/lstm.c
// (include/dgnn/cuda.h): the two projections through the GPU linear layer (x W_ih^T + b_ih
// into the gate block of `saved`, h W_hh^T + b_hh into scratch), then the gates as one
// element-wise kernel, with the CPU's layout: saved (B, 5H) = [activated gates (B, 4H) in
// the blocks i | f | g | o, tanh(c') (B, H)], scratch (B, 4H). The backward forms the
// pre-activations' gradients in scratch and hands them to the linear layer's backward
// (bias gradients: linear.cu's column sums in row order). The gates use the device's
// expf and tanhf where lstm.c uses libm's: they agree within a few ulps.
#include "cuda_internal.h"

static unsigned blocks_for(int64_t n) { return dgnn_cuda_blocks(n, DGNN_CUDA_THREADS); }

// saved's gate block holds x W_ih^T + b_ih and ah (scratch) h W_hh^T + b_hh: sum, activate
// in place, and form c' = f c + i g, h' = o tanh(c')
__global__ static void lstm_gates(float *hout, float *cout, float *saved, const float *ah, const float *cst,
                                  int64_t B, int64_t H) {
    const int64_t G = 4 * H;
    float *tcn = saved + B * G;
    DGNN_CUDA_FOR(t, B * H) {
        const int64_t b = t / H, k = t % H;
        float *g = saved + b * G;
        const float *a = ah + b * G;
        const float i = dgnn_sigmoidf_dev(g[k] + a[k]), f = dgnn_sigmoidf_dev(g[H + k] + a[H + k]);
        const float gg = tanhf(g[2 * H + k] + a[2 * H + k]), o = dgnn_sigmoidf_dev(g[3 * H + k] + a[3 * H + k]);
        const float cn = f * cst[t] + i * gg, th = tanhf(cn);
        g[k] = i, g[H + k] = f, g[2 * H + k] = gg, g[3 * H + k] = o;
        tcn[t] = th;
        cout[t] = cn;
        hout[t] = o * th;
    }
}

// da (B, 4H) the gradients of the pre-activations; dc += dL/dc' f (dc may be NULL);
// dhout, dcout may be NULL (zero)
__global__ static void lstm_gates_backward(float *da, float *dc, const float *dhout, const float *dcout,
                                           const float *saved, const float *cst, int64_t B, int64_t H) {
    const int64_t G = 4 * H;
    const float *tcn = saved + B * G;
    DGNN_CUDA_FOR(t, B * H) {
        const int64_t b = t / H, k = t % H;
        const float *g = saved + b * G;
        float *d = da + b * G;
        const float i = g[k], f = g[H + k], gg = g[2 * H + k], o = g[3 * H + k], tc = tcn[t];
        const float dho = dhout ? dhout[t] : 0.0f;
        // c' reaches the loss directly (dcout) and through h' = o tanh(c')
        const float dct = (dcout ? dcout[t] : 0.0f) + dho * o * (1.0f - tc * tc);
        d[k] = dct * gg * i * (1.0f - i);
        d[H + k] = dct * cst[t] * f * (1.0f - f);
        d[2 * H + k] = dct * i * (1.0f - gg * gg);
        d[3 * H + k] = dho * tc * o * (1.0f - o);
        if (dc) dc[t] += dct * f;
    }
}

static int check_sizes(const char *what, int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    if (B >= 0 && Din >= 0 && H >= 0) return DGNN_OK;
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: sizes B %lld, Din %lld, H %lld", what, (long long)B, (long long)Din,
                          (long long)H);
}

extern "C" int dgnn_cuda_lstm_forward(dgnn_cuda *c, float *dhout, float *dcout, float *dsaved, float *dscratch,
                                      const float *dx, const float *dh, const float *dc, const float *dW_ih,
                                      const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B,
                                      int64_t Din, int64_t H, dgnn_err *err) {
    int rc = check_sizes("dgnn_cuda_lstm_forward", B, Din, H, err);
    if (rc || B == 0 || H == 0) return rc; // before the alias check: empty arrays may all be NULL
    if (dhout == dh || dhout == dc || dcout == dh || dcout == dc)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_lstm_forward: hout and cout must not alias h or c");
    const int64_t G = 4 * H;
    rc = dgnn_cuda_linear_forward(c, dsaved, dx, dW_ih, db_ih, B, Din, G, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, dscratch, dh, dW_hh, db_hh, B, H, G, err);
    if (rc) return rc;
    lstm_gates<<<blocks_for(B * H), DGNN_CUDA_THREADS, 0, c->stream>>>(dhout, dcout, dsaved, dscratch, dc, B, H);
    return dgnn_cuda_check(cudaGetLastError(), "lstm_gates", err);
}

extern "C" int dgnn_cuda_lstm_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddc, float *ddW_ih, float *ddW_hh,
                                       float *ddb_ih, float *ddb_hh, float *dscratch, const float *ddhout,
                                       const float *ddcout, const float *dsaved, const float *dx, const float *dh,
                                       const float *dc, const float *dW_ih, const float *dW_hh, int64_t B,
                                       int64_t Din, int64_t H, dgnn_err *err) {
    int rc = check_sizes("dgnn_cuda_lstm_backward", B, Din, H, err);
    if (rc || B == 0 || H == 0) return rc;
    const int64_t G = 4 * H;
    float *da = dscratch; // (B, 4H)
    lstm_gates_backward<<<blocks_for(B * H), DGNN_CUDA_THREADS, 0, c->stream>>>(da, ddc, ddhout, ddcout, dsaved, dc,
                                                                               B, H);
    rc = dgnn_cuda_check(cudaGetLastError(), "lstm_gates_backward", err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddx, ddW_ih, ddb_ih, da, dx, dW_ih, B, Din, G, err);
    if (!rc) rc = dgnn_cuda_linear_backward(c, ddh, ddW_hh, ddb_hh, da, dh, dW_hh, B, H, G, err);
    return rc;
}
