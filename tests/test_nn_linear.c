/* test_nn_linear.c: the linear layer (sgemm) against a plain triple loop, its backward
 * against central finite differences, initialiser statistics, and TGL's edge
 * predictor against TGN's MergeLayer form fc2(relu(fc1([h_src, h_dst]))). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/nn.h"
#include "gradcheck.h"

static float *fa(int64_t n) { return dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof(float)); }

/* ---- linear ------------------------------------------------------------------ */

typedef struct {
    int64_t B, I, O;
    float *x, *W, *b, *out, *w;
} lin_ctx;

static double lin_loss(void *p) {
    lin_ctx *c = p;
    dgnn_linear_forward(c->out, c->x, c->W, c->b, c->B, c->I, c->O);
    return gradcheck_dot(c->out, c->w, c->B * c->O);
}

static void test_linear(int64_t B, int64_t I, int64_t O, int with_bias) {
    dgnn_rng r;
    dgnn_rng_seed(&r, (uint64_t)(B * 1000 + I * 10 + O));
    lin_ctx c = {B, I, O, fa(B * I), fa(O * I), with_bias ? fa(O) : NULL, fa(B * O), fa(B * O)};
    gradcheck_fill(c.x, B * I, &r, -1, 1);
    gradcheck_fill(c.W, O * I, &r, -1, 1);
    if (c.b) gradcheck_fill(c.b, O, &r, -1, 1);
    gradcheck_fill(c.w, B * O, &r, -1, 1);

    /* forward vs plain loops */
    dgnn_linear_forward(c.out, c.x, c.W, c.b, B, I, O);
    double worst = 0;
    for (int64_t i = 0; i < B; i++)
        for (int64_t o = 0; o < O; o++) {
            double a = c.b ? c.b[o] : 0;
            for (int64_t k = 0; k < I; k++) a += (double)c.x[i * I + k] * c.W[o * I + k];
            double d = fabs(a - c.out[i * O + o]);
            if (d > worst) worst = d;
        }
    CHECK_MSG(worst < 1e-5, "linear %lldx%lldx%lld forward max diff %g", (long long)B,
              (long long)I, (long long)O, worst);

    /* backward vs finite differences; then accumulation (a second call adds the same) */
    float *dx = fa(B * I), *dW = fa(O * I), *db = fa(O);
    dgnn_linear_backward(dx, dW, c.b ? db : NULL, c.w, c.x, c.W, B, I, O);
    CHECK(gradcheck("linear dx", lin_loss, &c, c.x, dx, B * I) == 0);
    CHECK(gradcheck("linear dW", lin_loss, &c, c.W, dW, O * I) == 0);
    if (c.b) CHECK(gradcheck("linear db", lin_loss, &c, c.b, db, O) == 0);
    float *dx2 = fa(B * I), *dW2 = fa(O * I), *db2 = fa(O);
    memcpy(dx2, dx, (size_t)(B * I) * sizeof(float));
    memcpy(dW2, dW, (size_t)(O * I) * sizeof(float));
    memcpy(db2, db, (size_t)O * sizeof(float));
    dgnn_linear_backward(dx2, dW2, c.b ? db2 : NULL, c.w, c.x, c.W, B, I, O);
    int acc_ok = 1;
    for (int64_t i = 0; i < B * I; i++) acc_ok &= fabsf(dx2[i] - 2 * dx[i]) <= 1e-5f * (1 + fabsf(dx[i]));
    for (int64_t i = 0; i < O * I; i++) acc_ok &= fabsf(dW2[i] - 2 * dW[i]) <= 1e-5f * (1 + fabsf(dW[i]));
    for (int64_t i = 0; i < O; i++) acc_ok &= fabsf(db2[i] - 2 * db[i]) <= 1e-5f * (1 + fabsf(db[i]));
    CHECK_MSG(acc_ok, "linear backward must accumulate (+=)");
    /* NULL gradients are skipped */
    dgnn_linear_backward(NULL, NULL, NULL, c.w, c.x, c.W, B, I, O);
    free(c.x); free(c.W); free(c.b); free(c.out); free(c.w);
    free(dx); free(dW); free(db); free(dx2); free(dW2); free(db2);
}

/* Hand-computed: x = [1, 2], W = [[1, 0], [0.5, -1], [2, 3]], b = [0.1, 0.2, 0.3]. */
static void test_linear_hand(void) {
    float x[2] = {1, 2}, W[6] = {1, 0, 0.5f, -1, 2, 3}, b[3] = {0.1f, 0.2f, 0.3f}, out[3];
    dgnn_linear_forward(out, x, W, b, 1, 2, 3);
    CHECK_NEAR(out[0], 1.1, 1e-6);
    CHECK_NEAR(out[1], -1.3, 1e-6);
    CHECK_NEAR(out[2], 8.3, 1e-6);
    float dout[3] = {1, -1, 0.5f}, dx[2] = {0, 0}, dW[6] = {0}, db[3] = {0};
    dgnn_linear_backward(dx, dW, db, dout, x, W, 1, 2, 3);
    CHECK_NEAR(dx[0], 1 - 0.5 + 1, 1e-6); /* sum_o dout_o W_o0 */
    CHECK_NEAR(dx[1], 0 + 1 + 1.5, 1e-6);
    CHECK_NEAR(dW[2], -1, 1e-6);           /* dout_1 * x_0 */
    CHECK_NEAR(dW[5], 1, 1e-6);            /* dout_2 * x_1 */
    CHECK_NEAR(db[1], -1, 1e-6);
    /* Din = 0: out = b */
    dgnn_linear_forward(out, NULL, NULL, b, 1, 0, 3);
    CHECK_NEAR(out[2], 0.3, 1e-7);
}

static void test_init(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 5);
    int64_t I = 200, O = 100, n = I * O;
    float *W = fa(n), *b = fa(O);
    dgnn_linear_init(W, b, I, O, &r);
    double bound = 1.0 / sqrt((double)I), mx = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++) {
        if (fabs(W[i]) > mx) mx = fabs(W[i]);
        s2 += (double)W[i] * W[i];
    }
    CHECK(mx <= bound && mx > 0.95 * bound);
    CHECK_NEAR(s2 / (double)n, bound * bound / 3, 0.05 * bound * bound / 3);
    dgnn_init_xavier_normal(W, I, O, &r);
    s2 = 0;
    for (int64_t i = 0; i < n; i++) s2 += (double)W[i] * W[i];
    CHECK_NEAR(s2 / (double)n, 2.0 / (double)(I + O), 0.05 * 2.0 / (double)(I + O));
    dgnn_init_xavier_uniform(W, I, O, &r);
    mx = 0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(W[i]) > mx) mx = fabs(W[i]);
    CHECK(mx <= sqrt(6.0 / (double)(I + O)) && mx > 0.95 * sqrt(6.0 / (double)(I + O)));
    free(W);
    free(b);
}

/* ---- edge predictor ----------------------------------------------------------- */

typedef struct {
    int64_t Be, nneg, D, Hd;
    float *hs, *hd, *logits, *saved, *w;
    dgnn_edgepred_params p;
} ep_ctx;

static double ep_loss(void *v) {
    ep_ctx *c = v;
    dgnn_edgepred_forward(c->logits, c->saved, c->hs, c->hd, &c->p, c->Be, c->nneg, c->D, c->Hd);
    return gradcheck_dot(c->logits, c->w, (1 + c->nneg) * c->Be);
}

static void test_edgepred(int with_bd) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 77 + (uint64_t)with_bd);
    ep_ctx c = {.Be = 5, .nneg = 2, .D = 6, .Hd = 4};
    int64_t R = (1 + c.nneg) * c.Be;
    int64_t np = dgnn_edgepred_layout(NULL, NULL, c.D, c.Hd, with_bd);
    CHECK(np == 2 * c.Hd * c.D + c.Hd * (with_bd ? 2 : 1) + c.Hd + 1);
    float *slab = fa(np), *gslab = fa(np);
    dgnn_edgepred_params g;
    dgnn_edgepred_layout(&c.p, slab, c.D, c.Hd, with_bd);
    dgnn_edgepred_layout(&g, gslab, c.D, c.Hd, with_bd);
    dgnn_edgepred_init(&c.p, c.D, c.Hd, &r);
    c.hs = fa(c.Be * c.D);
    c.hd = fa(R * c.D);
    c.logits = fa(R);
    c.saved = fa(DGNN_EDGEPRED_SAVED(c.Be, c.nneg, c.Hd));
    c.w = fa(R);
    gradcheck_fill(c.hs, c.Be * c.D, &r, -1, 1);
    gradcheck_fill(c.hd, R * c.D, &r, -1, 1);
    gradcheck_fill(c.w, R, &r, -1, 1);
    dgnn_edgepred_forward(c.logits, c.saved, c.hs, c.hd, &c.p, c.Be, c.nneg, c.D, c.Hd);

    /* TGN's MergeLayer: fc1 over [h_src, h_dst] with W1 = [Ws | Wd], b1 = bs + bd. */
    double worst = 0;
    for (int64_t row = 0; row < R; row++) {
        int64_t i = row % c.Be;
        double logit = c.p.bo[0];
        for (int64_t h = 0; h < c.Hd; h++) {
            double a = c.p.bs[h] + (c.p.bd ? c.p.bd[h] : 0);
            for (int64_t d = 0; d < c.D; d++) a += (double)c.p.Ws[h * c.D + d] * c.hs[i * c.D + d];
            for (int64_t d = 0; d < c.D; d++) a += (double)c.p.Wd[h * c.D + d] * c.hd[row * c.D + d];
            logit += c.p.Wo[h] * (a > 0 ? a : 0);
        }
        double d = fabs(logit - c.logits[row]);
        if (d > worst) worst = d;
    }
    CHECK_MSG(worst < 1e-5, "edge predictor vs MergeLayer form: %g", worst);
    { /* a NaN embedding gives a NaN logit (its ReLU passes it), never a finite score */
        float keep = c.hd[0];
        c.hd[0] = NAN;
        dgnn_edgepred_forward(c.logits, c.saved, c.hs, c.hd, &c.p, c.Be, c.nneg, c.D, c.Hd);
        CHECK_MSG(isnan(c.logits[0]) && isfinite(c.logits[1]), "edge predictor on a NaN row: %g, %g",
                  c.logits[0], c.logits[1]);
        c.hd[0] = keep;
        dgnn_edgepred_forward(c.logits, c.saved, c.hs, c.hd, &c.p, c.Be, c.nneg, c.D, c.Hd);
    }

    float *dhs = fa(c.Be * c.D), *dhd = fa(R * c.D), *scratch = fa(DGNN_EDGEPRED_SAVED(c.Be, c.nneg, c.Hd));
    dgnn_edgepred_backward(dhs, dhd, &g, scratch, c.w, c.saved, c.hs, c.hd, &c.p, c.Be, c.nneg,
                           c.D, c.Hd);
    CHECK(gradcheck("edgepred h_src", ep_loss, &c, c.hs, dhs, c.Be * c.D) == 0);
    CHECK(gradcheck("edgepred h_dst", ep_loss, &c, c.hd, dhd, R * c.D) == 0);
    CHECK(gradcheck("edgepred params", ep_loss, &c, slab, gslab, np) == 0);
    free(slab); free(gslab); free(c.hs); free(c.hd); free(c.logits); free(c.saved); free(c.w);
    free(dhs); free(dhd); free(scratch);
}

int main(void) {
    test_linear_hand();
    test_linear(1, 1, 1, 1);
    test_linear(7, 5, 3, 1);
    test_linear(13, 9, 11, 0);
    test_linear(64, 33, 17, 1);
    test_init();
    test_edgepred(1);
    test_edgepred(0);
    return check_done();
}
