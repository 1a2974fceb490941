/* test_nn_rnn.c: GRU cell and vanilla RNN cell (torch.nn.GRUCell / RNNCell
 * semantics): forward against hand-computed values and a plain double-precision
 * implementation written here from torch's formulas, backward against central finite
 * differences for every input and parameter; the node-state GRU's element-wise ops
 * (ngru.c) against their formulas in double, with the gradients' += and NULL rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/nn.h"
#include "gradcheck.h"

static float *fa(int64_t n) { return dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof(float)); }
static double sig(double x) { return 1.0 / (1.0 + exp(-x)); }

/* One 1x1 GRU step whose value was computed by hand (python math):
 * r = s(0.5 + 0.1 + 0.2*0.5) , z = s(-0.3 + 0.4*0.5 + 0.2), n = tanh(0.7 + r*(-0.3 + 0.1)),
 * h' = (1 - z) n + z h = 0.50602461. */
static void test_gru_hand(void) {
    float W_ih[3] = {0.5f, -0.3f, 0.8f}, W_hh[3] = {0.2f, 0.4f, -0.6f};
    float b_ih[3] = {0.1f, 0.0f, -0.1f}, b_hh[3] = {0.0f, 0.2f, 0.1f};
    float x = 1.0f, h = 0.5f, hout, saved[6];
    dgnn_gru_forward(&hout, saved, &x, &h, W_ih, W_hh, b_ih, b_hh, 1, 1, 1);
    CHECK_NEAR(saved[0], 0.66818777, 1e-6); /* r */
    CHECK_NEAR(saved[1], 0.52497919, 1e-6); /* z */
    CHECK_NEAR(saved[2], 0.51268283, 1e-6); /* n */
    CHECK_NEAR(hout, 0.50602461, 1e-6);
}

static void test_rnn_hand(void) {
    float W_ih = 0.5f, W_hh = -0.4f, b_ih = 0.1f, b_hh = 0.05f, x = 1.0f, h = 0.5f, hout;
    dgnn_rnn_forward(&hout, &x, &h, &W_ih, &W_hh, &b_ih, &b_hh, 1, 1, 1);
    CHECK_NEAR(hout, 0.42189901, 1e-6); /* tanh(0.5 + 0.1 - 0.2 + 0.05) */
}

typedef struct {
    int gru;
    int64_t B, I, H;
    float *x, *h, *slab, *W_ih, *W_hh, *b_ih, *b_hh, *out, *saved, *w;
} cell_ctx;

static double cell_loss(void *v) {
    cell_ctx *c = v;
    if (c->gru)
        dgnn_gru_forward(c->out, c->saved, c->x, c->h, c->W_ih, c->W_hh, c->b_ih, c->b_hh, c->B,
                         c->I, c->H);
    else
        dgnn_rnn_forward(c->out, c->x, c->h, c->W_ih, c->W_hh, c->b_ih, c->b_hh, c->B, c->I, c->H);
    return gradcheck_dot(c->out, c->w, c->B * c->H);
}

static void test_cell(int gru, int64_t B, int64_t I, int64_t H, int with_bias) {
    dgnn_rng r;
    dgnn_rng_seed(&r, (uint64_t)(gru * 100000 + B * 100 + I * 10 + H));
    int64_t G = (gru ? 3 : 1) * H;
    int64_t np = G * I + G * H + 2 * G;
    cell_ctx c = {.gru = gru, .B = B, .I = I, .H = H, .x = fa(B * I), .h = fa(B * H), .slab = fa(np)};
    c.W_ih = c.slab;
    c.W_hh = c.W_ih + G * I;
    c.b_ih = with_bias ? c.W_hh + G * H : NULL;
    c.b_hh = with_bias ? c.W_hh + G * H + G : NULL;
    c.out = fa(B * H);
    c.saved = fa(B * DGNN_GRU_SAVED(H));
    c.w = fa(B * H);
    dgnn_rnn_cell_init(c.W_ih, c.W_hh, c.b_ih, c.b_hh, I, H, gru ? 3 : 1, &r);
    /* larger than torch's init so that gates are not all near 0.5 */
    for (int64_t i = 0; i < np; i++) c.slab[i] *= 3.0f;
    gradcheck_fill(c.x, B * I, &r, -1, 1);
    gradcheck_fill(c.h, B * H, &r, -1, 1);
    gradcheck_fill(c.w, B * H, &r, -1, 1);

    /* forward vs a plain double implementation of torch's formulas */
    cell_loss(&c);
    double worst = 0;
    for (int64_t i = 0; i < B; i++)
        for (int64_t j = 0; j < H; j++) {
            double gi[3], gh[3];
            for (int g = 0; g < (gru ? 3 : 1); g++) {
                int64_t row = g * H + j;
                gi[g] = c.b_ih ? c.b_ih[row] : 0;
                gh[g] = c.b_hh ? c.b_hh[row] : 0;
                for (int64_t k = 0; k < I; k++) gi[g] += (double)c.W_ih[row * I + k] * c.x[i * I + k];
                for (int64_t k = 0; k < H; k++) gh[g] += (double)c.W_hh[row * H + k] * c.h[i * H + k];
            }
            double ref;
            if (gru) {
                double rr = sig(gi[0] + gh[0]), zz = sig(gi[1] + gh[1]);
                double nn = tanh(gi[2] + rr * gh[2]);
                ref = (1 - zz) * nn + zz * c.h[i * H + j];
            } else {
                ref = tanh(gi[0] + gh[0]);
            }
            double d = fabs(ref - c.out[i * H + j]);
            if (d > worst) worst = d;
        }
    CHECK_MSG(worst < 1e-5, "%s forward vs double reference: %g", gru ? "gru" : "rnn", worst);

    float *dx = fa(B * I), *dh = fa(B * H), *gslab = fa(np), *scratch = fa(B * DGNN_GRU_SAVED(H));
    float *gW_ih = gslab, *gW_hh = gslab + G * I, *gb_ih = with_bias ? gW_hh + G * H : NULL;
    float *gb_hh = with_bias ? gW_hh + G * H + G : NULL;
    if (gru)
        dgnn_gru_backward(dx, dh, gW_ih, gW_hh, gb_ih, gb_hh, scratch, c.w, c.saved, c.x, c.h,
                          c.W_ih, c.W_hh, B, I, H);
    else
        dgnn_rnn_backward(dx, dh, gW_ih, gW_hh, gb_ih, gb_hh, scratch, c.w, c.out, c.x, c.h,
                          c.W_ih, c.W_hh, B, I, H);
    const char *nm = gru ? "gru" : "rnn";
    char buf[64];
    snprintf(buf, sizeof buf, "%s dx", nm);
    CHECK(gradcheck(buf, cell_loss, &c, c.x, dx, B * I) == 0);
    snprintf(buf, sizeof buf, "%s dh", nm);
    CHECK(gradcheck(buf, cell_loss, &c, c.h, dh, B * H) == 0);
    snprintf(buf, sizeof buf, "%s params", nm);
    CHECK(gradcheck(buf, cell_loss, &c, c.slab, gslab, with_bias ? np : np - 2 * G) == 0);
    free(c.x); free(c.h); free(c.slab); free(c.out); free(c.saved); free(c.w);
    free(dx); free(dh); free(gslab); free(scratch);
}

/* ---- the node-state GRU's element-wise ops (ngru.c) ------------------------------- */

static void test_ngru(int64_t N, int64_t D) {
    const int64_t n = N * D;
    float *x = fa(n), *h = fa(n), *b = fa(D), *out = fa(n), *Z = fa(n), *R = fa(n), *H = fa(n), *Ht = fa(n);
    float *dHn = fa(n), *dHR = fa(n), *g[3] = {fa(n), fa(n), fa(n)};
    dgnn_rng r;
    dgnn_rng_seed(&r, 7 + (uint64_t)n);
    float *all[] = {x, h, H, dHn, dHR};
    for (int k = 0; k < 5; k++)
        for (int64_t i = 0; i < n; i++) all[k][i] = (float)(4.0 * dgnn_rng_uniform(&r) - 2.0);
    for (int64_t o = 0; o < D; o++) b[o] = (float)(dgnn_rng_uniform(&r) - 0.5);
    /* a gate: act((x + h) + b), each of h and b optional, in place on x */
    for (int act = 0; act < 2; act++)
        for (int with = 0; with < 4; with++) {
            const float *hh = with & 1 ? h : NULL, *bb = with & 2 ? b : NULL;
            memcpy(out, x, (size_t)n * sizeof(float));
            dgnn_ngru_gate(out, out, hh, bb, act == 1 ? DGNN_NGRU_TANH : DGNN_NGRU_SIGMOID, N, D);
            int bad = 0;
            for (int64_t i = 0; i < n; i++) {
                const double v = (double)x[i] + (hh ? h[i] : 0) + (bb ? b[i % D] : 0);
                bad += fabs(out[i] - (act == 1 ? tanh(v) : sig(v))) > 1e-6;
            }
            CHECK(bad == 0);
        }
    dgnn_ngru_gate(Z, x, NULL, NULL, DGNN_NGRU_SIGMOID, N, D);
    dgnn_ngru_gate(R, h, NULL, NULL, DGNN_NGRU_SIGMOID, N, D);
    dgnn_ngru_gate(Ht, x, h, NULL, DGNN_NGRU_TANH, N, D);
    dgnn_ngru_reset(out, H, R, n);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) bad += fabs(out[i] - (double)H[i] * R[i]) > 1e-6;
    CHECK(bad == 0);
    dgnn_ngru_update(out, Z, H, Ht, n);
    bad = 0;
    for (int64_t i = 0; i < n; i++) bad += fabs(out[i] - ((double)Z[i] * H[i] + (1.0 - Z[i]) * Ht[i])) > 1e-6;
    CHECK(bad == 0);
    /* the backwards add to what is there; a NULL gradient is skipped */
    for (int k = 0; k < 3; k++)
        for (int64_t i = 0; i < n; i++) g[k][i] = 0.25f;
    dgnn_ngru_update_backward(g[0], NULL, g[2], dHn, Z, H, Ht, n);
    bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = dHn[i], z = Z[i], t = Ht[i];
        bad += fabs(g[0][i] - (0.25 + d * (H[i] - t) * z * (1 - z))) > 1e-5;
        bad += fabs(g[2][i] - (0.25 + d * z)) > 1e-5;
        bad += g[1][i] != 0.25f;
    }
    CHECK(bad == 0);
    dgnn_ngru_update_backward(NULL, g[1], NULL, dHn, Z, H, Ht, n);
    bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = dHn[i], z = Z[i], t = Ht[i];
        bad += fabs(g[1][i] - (0.25 + d * (1 - z) * (1 - t * t))) > 1e-5;
    }
    CHECK(bad == 0);
    for (int k = 0; k < 2; k++)
        for (int64_t i = 0; i < n; i++) g[k][i] = -0.5f;
    dgnn_ngru_reset_backward(g[0], g[1], dHR, R, H, n);
    dgnn_ngru_reset_backward(NULL, NULL, dHR, R, H, n);
    bad = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = dHR[i], q = R[i];
        bad += fabs(g[0][i] - (-0.5 + d * q)) > 1e-5;
        bad += fabs(g[1][i] - (-0.5 + d * H[i] * q * (1 - q))) > 1e-5;
    }
    CHECK(bad == 0);
    float *fr[] = {x, h, b, out, Z, R, H, Ht, dHn, dHR, g[0], g[1], g[2]};
    for (size_t k = 0; k < sizeof fr / sizeof fr[0]; k++) free(fr[k]);
}

int main(void) {
    test_gru_hand();
    test_rnn_hand();
    test_cell(1, 1, 1, 1, 1);
    test_cell(1, 5, 7, 4, 1);
    test_cell(1, 9, 3, 6, 0);
    test_cell(1, 40, 20, 16, 1);
    test_cell(0, 1, 1, 1, 1);
    test_cell(0, 5, 7, 4, 1);
    test_cell(0, 9, 3, 6, 0);
    test_cell(0, 40, 20, 16, 1);
    test_ngru(1, 1);
    test_ngru(7, 5);
    test_ngru(600, 130); /* past the threshold of the ops' parallel loops */
    return check_done();
}
