/* gru.c: the recurrent cells that update node memories: torch.nn.GRUCell (TGN,
 * APAN's fallback) and torch.nn.RNNCell with tanh (JODIE, DyRep), plus their init.
 * Same weight layout as torch, so parameters and results can be compared directly.
 *
 * The matrix products (x W_ih^T and h W_hh^T for all gates at once) go through
 * dgnn_linear_*; the gate non-linearities are one fused element-wise pass, with nn.h's
 * branch-free sigmoid and tanh so that it vectorises. */
#include <math.h>
#include <string.h>

#include "dgnn/nn.h"
#include "dgnn/prof.h"
#include "dgnn/vec.h"

void dgnn_rnn_cell_init(float *W_ih, float *W_hh, float *b_ih, float *b_hh, int64_t Din, int64_t H,
                        int gates, dgnn_rng *rng) {
    float a = (float)(1.0 / sqrt((double)H));
    int64_t G = (int64_t)gates * H;
    dgnn_init_uniform(W_ih, G * Din, -a, a, rng);
    dgnn_init_uniform(W_hh, G * H, -a, a, rng);
    if (b_ih) dgnn_init_uniform(b_ih, G, -a, a, rng);
    if (b_hh) dgnn_init_uniform(b_hh, G, -a, a, rng);
}

/* ---- GRU ----------------------------------------------------------------- */

#define GATE_ROWS 16 /* rows per parallel task of the gate pass */

/* The gates of rows [i0, i1): r, z, n over the two products' pre-activations, written over
 * the input part (gates), and the new memory. One copy per vector width (vec.h). */
DGNN_VEC_CLONES
static void gru_gates(float *hout, float *gates, const float *gh, const float *h, int64_t i0, int64_t i1,
                      int64_t H) {
    for (int64_t i = i0; i < i1; i++) {
        float *g = gates + i * 3 * H;
        const float *gg = gh + i * 3 * H;
        const float *hp = h + i * H;
        float *ho = hout + i * H;
#pragma omp simd
        for (int64_t j = 0; j < H; j++) {
            float r = dgnn_sigmoidf_fast(g[j] + gg[j]);
            float z = dgnn_sigmoidf_fast(g[H + j] + gg[H + j]);
            float n = dgnn_tanhf_fast(g[2 * H + j] + r * gg[2 * H + j]);
            g[j] = r;
            g[H + j] = z;
            g[2 * H + j] = n;
            ho[j] = (1.0f - z) * n + z * hp[j];
        }
    }
}

void dgnn_gru_forward(float *hout, float *saved, const float *x, const float *h, const float *W_ih,
                      const float *W_hh, const float *b_ih, const float *b_hh, int64_t B, int64_t Din,
                      int64_t H) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GRU);
    DGNN_ASSERT(hout != h);
    float *gates = saved;      /* (B, 3H): x W_ih^T + b_ih, then overwritten by r, z, n */
    float *gh = saved + B * 3 * H; /* (B, 3H): h W_hh^T + b_hh, kept (its n part is needed) */
    /* gates = x W_ih^T + b_ih and gh = h W_hh^T + b_hh: the two products together */
    const int64_t G = 3 * H;
#pragma omp parallel for if (B * G > 65536)
    for (int64_t i = 0; i < B; i++) {
        if (b_ih) memcpy(gates + i * G, b_ih, (size_t)G * sizeof(float));
        else memset(gates + i * G, 0, (size_t)G * sizeof(float));
        if (b_hh) memcpy(gh + i * G, b_hh, (size_t)G * sizeof(float));
        else memset(gh + i * G, 0, (size_t)G * sizeof(float));
    }
    dgnn_gemm_op ops[2] = {{0, 1, B, G, H, h, H, W_hh, H, 1.0f, gh, G},
                           {0, 1, B, G, Din, x, Din, W_ih, Din, 1.0f, gates, G}};
    dgnn_gemm_group(ops, Din > 0 ? 2 : 1); /* (x without columns: gates = b_ih) */
#pragma omp parallel for if (B * H > 16384)
    for (int64_t i0 = 0; i0 < B; i0 += GATE_ROWS)
        gru_gates(hout, gates, gh, h, i0, i0 + GATE_ROWS < B ? i0 + GATE_ROWS : B, H);
    dgnn_prof_end(prof_t);
}

void dgnn_gru_backward(float *dx, float *dh, float *dW_ih, float *dW_hh, float *db_ih,
                       float *db_hh, float *scratch, const float *dhout, const float *saved,
                       const float *x, const float *h, const float *W_ih, const float *W_hh,
                       int64_t B, int64_t Din, int64_t H) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GRU);
    const float *gates = saved, *gh = saved + B * 3 * H;
    float *dgi = scratch;          /* (B, 3H) gradient of x W_ih^T + b_ih */
    float *dgh = scratch + B * 3 * H; /* (B, 3H) gradient of h W_hh^T + b_hh */
#pragma omp parallel for if (B * H > 16384)
    for (int64_t i = 0; i < B; i++) {
        const float *g = gates + i * 3 * H, *gg = gh + i * 3 * H;
        const float *hp = h + i * H, *dho = dhout + i * H;
        float *di = dgi + i * 3 * H, *dg = dgh + i * 3 * H;
        for (int64_t j = 0; j < H; j++) {
            float r = g[j], z = g[H + j], n = g[2 * H + j], ghn = gg[2 * H + j];
            float d = dho[j];
            float dn = d * (1.0f - z) * (1.0f - n * n); /* through tanh */
            float dz = d * (hp[j] - n) * z * (1.0f - z); /* through sigmoid */
            float dr = dn * ghn * r * (1.0f - r);
            di[j] = dr;
            di[H + j] = dz;
            di[2 * H + j] = dn;
            dg[j] = dr;
            dg[H + j] = dz;
            dg[2 * H + j] = dn * r; /* r multiplies the hidden part of n's pre-activation */
            if (dh) dh[i * H + j] += d * z;
        }
    }
    if (!dx && !dh) { /* the weights' gradients only (TGN's updater): both products together */
        const int64_t G = 3 * H;
        dgnn_gemm_op ops[2];
        int n = 0;
        if (dW_ih && Din > 0) ops[n++] = (dgnn_gemm_op){1, 0, G, Din, B, dgi, G, x, Din, 1.0f, dW_ih, Din};
        if (dW_hh) ops[n++] = (dgnn_gemm_op){1, 0, G, H, B, dgh, G, h, H, 1.0f, dW_hh, H};
        if (n) dgnn_gemm_group(ops, n);
        dgnn_linear_backward(NULL, NULL, db_ih, dgi, x, W_ih, B, Din, G);
        dgnn_linear_backward(NULL, NULL, db_hh, dgh, h, W_hh, B, H, G);
    } else {
        dgnn_linear_backward(dx, dW_ih, db_ih, dgi, x, W_ih, B, Din, 3 * H);
        dgnn_linear_backward(dh, dW_hh, db_hh, dgh, h, W_hh, B, H, 3 * H);
    }
    dgnn_prof_end(prof_t);
}

/* ---- vanilla RNN (tanh) ----------------------------------------------------- */

static void dgnn_rnn_forward_body(float *hout, const float *x, const float *h, const float *W_ih,
                      const float *W_hh, const float *b_ih, const float *b_hh, int64_t B, int64_t Din,
                      int64_t H) {
    DGNN_ASSERT(hout != h);
    if (B <= 0 || H <= 0) return;
    dgnn_linear_forward(hout, x, W_ih, b_ih, B, Din, H);
    /* hout += h W_hh^T (accumulating sgemm), then + b_hh and tanh in one pass. */
    dgnn_gemm(0, 1, B, H, H, h, H, W_hh, H, 1.0f, hout, H);
#pragma omp parallel for if (B * H > 16384)
    for (int64_t i = 0; i < B; i++)
        for (int64_t j = 0; j < H; j++)
            hout[i * H + j] = dgnn_tanhf_fast(hout[i * H + j] + (b_hh ? b_hh[j] : 0.0f));
}

void dgnn_rnn_forward(float *hout, const float *x, const float *h, const float *W_ih,
                      const float *W_hh, const float *b_ih, const float *b_hh, int64_t B, int64_t Din,
                      int64_t H) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GRU);
    dgnn_rnn_forward_body(hout, x, h, W_ih, W_hh, b_ih, b_hh, B, Din, H);
    dgnn_prof_end(prof_t);
}

void dgnn_rnn_backward(float *dx, float *dh, float *dW_ih, float *dW_hh, float *db_ih,
                       float *db_hh, float *scratch, const float *dhout, const float *hout,
                       const float *x, const float *h, const float *W_ih, const float *W_hh,
                       int64_t B, int64_t Din, int64_t H) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GRU);
    float *dpre = scratch; /* (B, H) */
#pragma omp parallel for if (B * H > 16384)
    for (int64_t i = 0; i < B * H; i++) dpre[i] = dhout[i] * (1.0f - hout[i] * hout[i]);
    dgnn_linear_backward(dx, dW_ih, db_ih, dpre, x, W_ih, B, Din, H);
    dgnn_linear_backward(dh, dW_hh, db_hh, dpre, h, W_hh, B, H, H);
    dgnn_prof_end(prof_t);
}

