/* lstm.c: the LSTM cell as torch.nn.LSTMCell, for WD-GCN (a GCN per snapshot, then an
 * LSTM per node over the window). Built on nn.h's linear:
 *   a  = x W_ih^T + b_ih + h W_hh^T + b_hh          (B, 4H), gate blocks [i | f | g | o]
 *   i = sigmoid(a_i), f = sigmoid(a_f), g = tanh(a_g), o = sigmoid(a_o)
 *   c' = f * c + i * g,   h' = o * tanh(c')
 * W_ih (4H, Din), W_hh (4H, H), b_ih, b_hh (4H): exactly torch's weight_ih, weight_hh,
 * bias_ih, bias_hh, so parameters compare with torch directly. */
#include "dgnn/nn.h"

#include <math.h>
#include <string.h>

void dgnn_lstm_init(float *W_ih, float *W_hh, float *b_ih, float *b_hh, int64_t Din, int64_t H, dgnn_rng *rng) {
    /* torch's RNNBase.reset_parameters: every tensor U(-1/sqrt(H), 1/sqrt(H)), in the
     * order weight_ih, weight_hh, bias_ih, bias_hh */
    float a = H > 0 ? (float)(1.0 / sqrt((double)H)) : 0.0f;
    dgnn_init_uniform(W_ih, 4 * H * Din, -a, a, rng);
    dgnn_init_uniform(W_hh, 4 * H * H, -a, a, rng);
    if (b_ih) dgnn_init_uniform(b_ih, 4 * H, -a, a, rng);
    if (b_hh) dgnn_init_uniform(b_hh, 4 * H, -a, a, rng);
}

void dgnn_lstm_forward(float *hout, float *cout, float *saved, float *scratch, const float *x, const float *h,
                       const float *c, const float *W_ih, const float *W_hh, const float *b_ih, const float *b_hh,
                       int64_t B, int64_t Din, int64_t H) {
    const int64_t G = 4 * H;
    float *gates = saved, *tcn = saved + B * G; /* (B, 4H), (B, H) */
    /* the two projections, x's into the gate block and h's into scratch, then summed and
     * activated in place */
    dgnn_linear_forward(gates, x, W_ih, b_ih, B, Din, G);
    dgnn_linear_forward(scratch, h, W_hh, b_hh, B, H, G);
#pragma omp parallel for schedule(static) if (B * H > 16384)
    for (int64_t b = 0; b < B; b++) {
        float *gi = gates + b * G, *gf = gi + H, *gg = gi + 2 * H, *go = gi + 3 * H;
        const float *ah = scratch + b * G;
        const float *cb = c + b * H;
        for (int64_t k = 0; k < H; k++) {
            float i = dgnn_sigmoidf(gi[k] + ah[k]), f = dgnn_sigmoidf(gf[k] + ah[H + k]);
            float g = tanhf(gg[k] + ah[2 * H + k]), o = dgnn_sigmoidf(go[k] + ah[3 * H + k]);
            float cn = f * cb[k] + i * g, t = tanhf(cn);
            gi[k] = i;
            gf[k] = f;
            gg[k] = g;
            go[k] = o;
            tcn[b * H + k] = t;
            cout[b * H + k] = cn;
            hout[b * H + k] = o * t;
        }
    }
}

void dgnn_lstm_backward(float *dx, float *dh, float *dc, float *dW_ih, float *dW_hh, float *db_ih, float *db_hh,
                        float *scratch, const float *dhout, const float *dcout, const float *saved, const float *x,
                        const float *h, const float *c, const float *W_ih, const float *W_hh, int64_t B, int64_t Din,
                        int64_t H) {
    const int64_t G = 4 * H;
    const float *gates = saved, *tcn = saved + B * G;
    float *da = scratch; /* (B, 4H) gradients of the pre-activations */
#pragma omp parallel for schedule(static) if (B * H > 16384)
    for (int64_t b = 0; b < B; b++) {
        const float *gi = gates + b * G, *gf = gi + H, *gg = gi + 2 * H, *go = gi + 3 * H, *tc = tcn + b * H;
        float *d = da + b * G;
        for (int64_t k = 0; k < H; k++) {
            float dho = dhout ? dhout[b * H + k] : 0.0f;
            /* c' reaches the loss directly (dcout) and through h' = o tanh(c') */
            float dct = (dcout ? dcout[b * H + k] : 0.0f) + dho * go[k] * (1.0f - tc[k] * tc[k]);
            float i = gi[k], f = gf[k], g = gg[k], o = go[k];
            d[k] = dct * g * i * (1.0f - i);
            d[H + k] = dct * c[b * H + k] * f * (1.0f - f);
            d[2 * H + k] = dct * i * (1.0f - g * g);
            d[3 * H + k] = dho * tc[k] * o * (1.0f - o);
            if (dc) dc[b * H + k] += dct * f;
        }
    }
    dgnn_linear_backward(dx, dW_ih, db_ih, da, x, W_ih, B, Din, G);
    dgnn_linear_backward(dh, dW_hh, db_hh, da, h, W_hh, B, H, G);
}
