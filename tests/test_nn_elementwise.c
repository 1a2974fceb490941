/* test_nn_elementwise.c: layer norm (forward against a double implementation, backward
 * by finite differences), ReLU, dropout (determinism for a seed, independence from the
 * thread count, keep rate and scale, backward), binary cross-entropy with logits
 * (hand values including extreme logits, backward), the branch-free exp, sigmoid and
 * tanh against libm in double. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/nn.h"
#include "gradcheck.h"

static float *fa(int64_t n) { return dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof(float)); }

/* ---- layer norm ------------------------------------------------------------------ */

typedef struct {
    int64_t N, C;
    float *x, *g, *b, *out, *mean, *rstd, *w;
} ln_ctx;

static double ln_loss(void *v) {
    ln_ctx *c = v;
    dgnn_layernorm_forward(c->out, c->mean, c->rstd, c->x, c->g, c->b, c->N, c->C);
    return gradcheck_dot(c->out, c->w, c->N * c->C);
}

static void test_layernorm(int64_t N, int64_t C, int affine) {
    dgnn_rng r;
    dgnn_rng_seed(&r, (uint64_t)(N * 13 + C));
    ln_ctx c = {N, C, fa(N * C), affine ? fa(C) : NULL, affine ? fa(C) : NULL, fa(N * C), fa(N),
                fa(N), fa(N * C)};
    gradcheck_fill(c.x, N * C, &r, -2, 2);
    for (int64_t i = 0; i < N; i++) c.x[i * C] += 5.0f; /* rows with a non-zero mean */
    if (affine) {
        gradcheck_fill(c.g, C, &r, 0.5, 1.5);
        gradcheck_fill(c.b, C, &r, -1, 1);
    }
    gradcheck_fill(c.w, N * C, &r, -1, 1);
    ln_loss(&c);
    double worst = 0;
    for (int64_t i = 0; i < N; i++) {
        double m = 0, var = 0;
        for (int64_t j = 0; j < C; j++) m += c.x[i * C + j];
        m /= (double)C;
        for (int64_t j = 0; j < C; j++) var += (c.x[i * C + j] - m) * (c.x[i * C + j] - m);
        var /= (double)C;
        for (int64_t j = 0; j < C; j++) {
            double y = (c.x[i * C + j] - m) / sqrt(var + 1e-5);
            if (affine) y = y * c.g[j] + c.b[j];
            double d = fabs(y - c.out[i * C + j]);
            if (d > worst) worst = d;
        }
    }
    CHECK_MSG(worst < 1e-5, "layernorm forward: %g", worst);
    float *dx = fa(N * C), *dg = fa(C), *db = fa(C);
    dgnn_layernorm_backward(dx, affine ? dg : NULL, affine ? db : NULL, c.w, c.x, c.g, c.mean,
                            c.rstd, N, C);
    CHECK(gradcheck("layernorm dx", ln_loss, &c, c.x, dx, N * C) == 0);
    if (affine) {
        CHECK(gradcheck("layernorm dg", ln_loss, &c, c.g, dg, C) == 0);
        CHECK(gradcheck("layernorm db", ln_loss, &c, c.b, db, C) == 0);
    }
    free(c.x); free(c.g); free(c.b); free(c.out); free(c.mean); free(c.rstd); free(c.w);
    free(dx); free(dg); free(db);
}

/* ---- ReLU, dropout ---------------------------------------------------------------- */

static void test_relu(void) {
    float x[5] = {-1, 0, 2, -0.5f, 3}, y[5], dy[5] = {1, 1, 1, 1, 1}, dx[5] = {10, 10, 10, 10, 10};
    dgnn_relu_forward(y, x, 5);
    CHECK(y[0] == 0 && y[1] == 0 && y[2] == 2 && y[3] == 0 && y[4] == 3);
    dgnn_relu_backward(dx, dy, y, 5);
    CHECK(dx[0] == 10 && dx[1] == 10 && dx[2] == 11 && dx[3] == 10 && dx[4] == 11);
    dgnn_relu_forward(x, x, 5); /* in place */
    CHECK(x[0] == 0 && x[2] == 2);
    /* a NaN passes, as through torch's ReLU: a model gone NaN must not look finite */
    float xn[2] = {NAN, -INFINITY}, yn[2];
    dgnn_relu_forward(yn, xn, 2);
    CHECK(isnan(yn[0]) && yn[1] == 0);
}

static void test_dropout(void) {
    const int64_t n = 100000;
    const float p = 0.3f;
    float *x = fa(n), *y1 = fa(n), *y2 = fa(n), *m1 = fa(n), *m2 = fa(n), *m3 = fa(n);
    for (int64_t i = 0; i < n; i++) x[i] = 1.0f + (float)(i % 7);
    dgnn_rng r1, r2;
    dgnn_rng_seed(&r1, 42);
    dgnn_rng_seed(&r2, 42);
    omp_set_num_threads(1);
    dgnn_dropout_forward(y1, m1, x, n, p, &r1);
    omp_set_num_threads(4);
    dgnn_dropout_forward(y2, m2, x, n, p, &r2);
    CHECK_MSG(memcmp(m1, m2, (size_t)n * sizeof(float)) == 0, "same seed, different threads: same mask");
    CHECK(memcmp(y1, y2, (size_t)n * sizeof(float)) == 0);
    dgnn_dropout_forward(y2, m3, x, n, p, &r2); /* the rng advanced: a different mask */
    CHECK(memcmp(m1, m3, (size_t)n * sizeof(float)) != 0);
    int64_t kept = 0;
    int values_ok = 1;
    for (int64_t i = 0; i < n; i++) {
        if (m1[i] != 0) {
            kept++;
            values_ok &= fabsf(m1[i] - 1.0f / (1.0f - p)) < 1e-6f && y1[i] == x[i] * m1[i];
        } else {
            values_ok &= y1[i] == 0;
        }
    }
    CHECK(values_ok);
    double rate = (double)kept / (double)n;
    CHECK_MSG(fabs(rate - 0.7) < 0.01, "keep rate %g", rate);
    /* backward: dx += dy * mask */
    float *dx = fa(n);
    for (int64_t i = 0; i < n; i++) dx[i] = 1.0f;
    dgnn_dropout_backward(dx, x, m1, n);
    int bw_ok = 1;
    for (int64_t i = 0; i < n; i++) bw_ok &= dx[i] == 1.0f + x[i] * m1[i];
    CHECK(bw_ok);
    /* inference (no rng) and p = 0 are the identity */
    dgnn_dropout_forward(y2, m2, x, n, p, NULL);
    CHECK(memcmp(y2, x, (size_t)n * sizeof(float)) == 0 && m2[0] == 1.0f && m2[n - 1] == 1.0f);
    dgnn_dropout_forward(y2, m2, x, n, 0.0f, &r1);
    CHECK(memcmp(y2, x, (size_t)n * sizeof(float)) == 0);
    /* dgnn_dropout_mask reproduces a mask from its seed */
    dgnn_rng_seed(&r1, 42);
    dgnn_dropout_mask(m3, n, p, dgnn_rng_u64(&r1));
    CHECK(memcmp(m1, m3, (size_t)n * sizeof(float)) == 0);
    omp_set_num_threads(2);
    free(x); free(y1); free(y2); free(m1); free(m2); free(m3); free(dx);
}

/* ---- BCE with logits --------------------------------------------------------------- */

typedef struct {
    int64_t n;
    float *x, *y;
} bce_ctx;

static double bce_loss(void *v) {
    bce_ctx *c = v;
    float l[64];
    dgnn_bce_logits_forward(l, c->x, c->y, c->n);
    double s = 0; /* the mean in double: the float mean is too coarse for differences */
    for (int64_t i = 0; i < c->n; i++) s += l[i];
    return s / (double)c->n;
}

static void test_bce(void) {
    float x[6] = {0, 2, -2, 100, -100, 30}, y[6] = {1, 1, 1, 0, 0, 1}, l[6];
    float mean = dgnn_bce_logits_forward(l, x, y, 6);
    CHECK_NEAR(l[0], log(2.0), 1e-7);
    CHECK_NEAR(l[1], log1p(exp(-2.0)), 1e-7);
    CHECK_NEAR(l[2], 2 + log1p(exp(-2.0)), 1e-6);
    CHECK_NEAR(l[3], 100, 1e-5);     /* confident and wrong: no overflow */
    CHECK_NEAR(l[4], 0, 1e-30);      /* confident and right: e^-100 */
    CHECK_NEAR(l[5], exp(-30.0), 1e-15);
    double s = 0;
    for (int i = 0; i < 6; i++) s += l[i];
    CHECK_NEAR(mean, s / 6, 1e-5);
    float dx[6] = {0};
    dgnn_bce_logits_backward(dx, x, y, 6, 2.0f);
    CHECK_NEAR(dx[0], 2.0 / 6 * (0.5 - 1), 1e-7);
    CHECK_NEAR(dx[3], 2.0 / 6 * 1.0, 1e-7);
    CHECK_NEAR(dx[4], 0, 1e-12);

    dgnn_rng r;
    dgnn_rng_seed(&r, 9);
    bce_ctx c = {50, fa(50), fa(50)};
    gradcheck_fill(c.x, 50, &r, -4, 4);
    for (int i = 0; i < 50; i++) c.y[i] = (float)(i % 2);
    float *g = fa(50);
    dgnn_bce_logits_backward(g, c.x, c.y, 50, 1.0f);
    gradcheck_opts o = gradcheck_defaults();
    o.atol = 1e-4; /* the mean divides gradients by n = 50 */
    CHECK(gradcheck_ex("bce dlogits", bce_loss, &c, c.x, g, 50, &o) == 0);
    free(c.x); free(c.y); free(g);
}

/* ---- branch-free exp, sigmoid, tanh ---------------------------------------------- */

/* dgnn_expf_fast as it was before NaN was made defined (its float-to-int conversion and
 * left shift of a negative value are undefined for NaN, so it is called on finite x only):
 * the new formulation must give the same bits for every finite float (a hot vectorised
 * path: no training figure may move) */
static float expf_fast_before(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    const float MAGIC = 12582912.0f;
    const float n = (x * 1.44269504088896341f + MAGIC) - MAGIC;
    const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723e-6f;
    const float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
                    r * (1.0f / 720 + r * (1.0f / 5040)))))));
    union {
        int32_t i;
        float f;
    } two_n = {.i = ((int32_t)n + 127) << 23};
    return p * two_n.f;
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* every 61st float of [-100, 100] by bit pattern (the full sweep, every float, was run
 * once by hand: 0 differences), both signs, and the clamps' edges: the same bits as before */
static void test_expf_fast_bits(void) {
    const uint32_t top = 0x42C80000u; /* 100.0f */
    int64_t checked = 0, differ = 0;
    for (uint32_t u = 0; u <= top; u += 61)
        for (int sign = 0; sign < 2; sign++) {
            const uint32_t b = u | (sign ? 0x80000000u : 0);
            float x;
            memcpy(&x, &b, sizeof x);
            checked++;
            if (float_bits(dgnn_expf_fast(x)) != float_bits(expf_fast_before(x))) {
                if (differ++ < 5) fprintf(stderr, "expf_fast(%a): %a, before %a\n", (double)x,
                                          (double)dgnn_expf_fast(x), (double)expf_fast_before(x));
            }
        }
    const float edges[] = {-87.0f, 88.0f, -86.99999f, 87.99999f, -1e30f, 1e30f, -INFINITY, INFINITY, 0.0f, -0.0f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++, checked++)
        differ += float_bits(dgnn_expf_fast(edges[i])) != float_bits(expf_fast_before(edges[i]));
    CHECK_MSG(differ == 0, "%lld of %lld floats differ from the formulation before", (long long)differ,
              (long long)checked);
    /* NaN: NaN out, defined (UBSan aborted the sanitizer build here) */
    const float nan = NAN;
    CHECK(isnan(dgnn_expf_fast(nan)) && isnan(dgnn_sigmoidf_fast(nan)) && isnan(dgnn_tanhf_fast(nan)));
    CHECK(isnan(dgnn_expf_fast(-nan)));
}

static void test_fast_math(void) {
    double worst_exp = 0, worst_sig = 0, worst_tanh = 0;
    for (int64_t i = 0; i <= 400000; i++) {
        const float x = (float)(-87.0 + 175.0 * (double)i / 400000.0);
        const double e = exp((double)x);
        const double re = fabs((double)dgnn_expf_fast(x) - e) / e;
        if (re > worst_exp) worst_exp = re;
        const float y = (float)(-20.0 + 40.0 * (double)i / 400000.0); /* and densely near 0 */
        const float ys[2] = {y, y * 1e-3f};
        for (int k = 0; k < 2; k++) {
            const double ds = fabs((double)dgnn_sigmoidf_fast(ys[k]) - 1.0 / (1.0 + exp(-(double)ys[k])));
            const double dt = fabs((double)dgnn_tanhf_fast(ys[k]) - tanh((double)ys[k]));
            if (ds > worst_sig) worst_sig = ds;
            if (dt > worst_tanh) worst_tanh = dt;
        }
    }
    CHECK_MSG(worst_exp < 3e-7, "exp: relative error %g", worst_exp);
    CHECK_MSG(worst_sig < 3e-7, "sigmoid: absolute error %g", worst_sig);
    CHECK_MSG(worst_tanh < 3e-7, "tanh: absolute error %g", worst_tanh);
    /* the clamps: finite, normal, and the limits where they should be */
    CHECK(isfinite(dgnn_expf_fast(1e30f)) && dgnn_expf_fast(-1e30f) > 0);
    CHECK(dgnn_sigmoidf_fast(-200.0f) >= 0 && dgnn_sigmoidf_fast(-200.0f) < 1e-30f);
    CHECK(dgnn_sigmoidf_fast(200.0f) == 1.0f);
    CHECK(dgnn_tanhf_fast(50.0f) == 1.0f && dgnn_tanhf_fast(-50.0f) == -1.0f && dgnn_tanhf_fast(0.0f) == 0.0f);
    printf("fast math: worst exp rel %.2g, sigmoid abs %.2g, tanh abs %.2g\n", worst_exp, worst_sig, worst_tanh);
}

int main(void) {
    test_expf_fast_bits();
    test_fast_math();
    test_layernorm(1, 4, 1);
    test_layernorm(7, 10, 1);
    test_layernorm(5, 33, 0);
    test_layernorm(300, 100, 1); /* above the OpenMP threshold */
    test_relu();
    test_dropout();
    test_bce();
    return check_done();
}
