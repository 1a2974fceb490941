/* test_nn_time.c: the time encoding cos(dt w + b) (init, hand values, precision for
 * large dt, backward by finite differences) and JODIE's time projection
 * h * (1 + dt w + b) with TGL's and TGN's normalisations of dt. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/nn.h"
#include "gradcheck.h"

static float *fa(int64_t n) { return dgnn_xcalloc((size_t)(n > 0 ? n : 1), sizeof(float)); }

static void test_timeenc_values(void) {
    float w[5], b[5];
    dgnn_timeenc_init(w, b, 5);
    /* 1 / 10^linspace(0, 9, 5) = 1, 10^-2.25, 10^-4.5, 10^-6.75, 1e-9 */
    CHECK_NEAR(w[0], 1.0, 1e-7);
    CHECK_NEAR(w[1], pow(10, -2.25), 1e-9);
    CHECK_NEAR(w[4], 1e-9, 1e-15);
    CHECK(b[0] == 0 && b[4] == 0);
    float w1, b1;
    dgnn_timeenc_init(&w1, &b1, 1);
    CHECK(w1 == 1.0f && b1 == 0.0f);

    float dt[3] = {0.0f, 2.0f, 2500000.0f}, ww[2] = {0.5f, 1.0f}, bb[2] = {0.1f, -0.3f}, out[6];
    dgnn_timeenc_forward(out, dt, ww, bb, 3, 2);
    CHECK_NEAR(out[0], cos(0.1), 1e-7);          /* dt = 0: cos(b) */
    CHECK_NEAR(out[1], cos(-0.3), 1e-7);
    CHECK_NEAR(out[2], cos(2.0 * 0.5 + 0.1), 1e-7);
    CHECK_NEAR(out[3], cos(2.0 - 0.3), 1e-7);
    /* A large dt: the phase is formed in double, so the value is right to float
     * rounding (a float phase would be off by ~0.1 rad here). */
    CHECK_NEAR(out[4], cos(2500000.0 * 0.5 + (double)0.1f), 1e-6);
    CHECK_NEAR(out[5], cos(2500000.0 + (double)-0.3f), 1e-6);
    /* b may be NULL */
    dgnn_timeenc_forward(out, dt, ww, NULL, 3, 2);
    CHECK_NEAR(out[3], cos(2.0), 1e-7);
}

/* The encoding (and, through the backward with dout = 1, its sine) against libm's
 * double cos/sin over dt from 0 to 1e8, for TGN's frequencies and random phases. */
static void test_timeenc_accuracy(void) {
    const int64_t N = 2000, d = 100;
    dgnn_rng r;
    dgnn_rng_seed(&r, 17);
    float *dt = fa(N), *w = fa(d), *b = fa(d), *out = fa(N * d);
    dgnn_timeenc_init(w, b, d);
    gradcheck_fill(b, d, &r, -3, 3);
    for (int64_t i = 0; i < N; i++) {
        double e = 8.0 * dgnn_rng_uniform(&r); /* log-uniform over 1 .. 1e8, plus 0 and negatives */
        dt[i] = (float)(i == 0 ? 0.0 : (i % 10 == 1 ? -1.0 : 1.0) * pow(10.0, e));
    }
    dgnn_timeenc_forward(out, dt, w, b, N, d);
    double worst_c = 0, worst_s = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < d; j++) {
            double x = (double)dt[i] * (double)w[j] + (double)b[j];
            worst_c = fmax(worst_c, fabs(cos(x) - out[i * d + j]));
        }
    /* sin through the backward: dt = 1 and dout = 1 on one row give db = -sin(w + b) */
    for (int64_t i = 0; i < 200; i++) {
        float t = dt[i];
        float *g = fa(d), *dbv = fa(d);
        for (int64_t j = 0; j < d; j++) g[j] = 1.0f;
        dgnn_timeenc_backward(NULL, dbv, g, &t, w, b, 1, d);
        for (int64_t j = 0; j < d; j++) {
            double x = (double)t * (double)w[j] + (double)b[j];
            worst_s = fmax(worst_s, fabs(-sin(x) - dbv[j]));
        }
        free(g);
        free(dbv);
    }
    CHECK_MSG(worst_c < 5e-7, "cos max error %g", worst_c);
    CHECK_MSG(worst_s < 5e-7, "sin max error %g", worst_s);
    printf("timeenc vs libm double: cos max error %.2g, sin max error %.2g\n", worst_c, worst_s);
    free(dt); free(w); free(b); free(out);
}

typedef struct {
    int64_t N, d;
    float *dt, *w, *b, *out, *wt;
} te_ctx;

static double te_loss(void *v) {
    te_ctx *c = v;
    dgnn_timeenc_forward(c->out, c->dt, c->w, c->b, c->N, c->d);
    return gradcheck_dot(c->out, c->wt, c->N * c->d);
}

static void test_timeenc_grad(int64_t N, int64_t d) {
    dgnn_rng r;
    dgnn_rng_seed(&r, (uint64_t)(N * 31 + d));
    te_ctx c = {N, d, fa(N), fa(d), fa(d), fa(N * d), fa(N * d)};
    dgnn_timeenc_init(c.w, c.b, d);
    gradcheck_fill(c.b, d, &r, -1, 1);   /* non-zero phases */
    gradcheck_fill(c.dt, N, &r, 0, 5);   /* moderate dt keeps d/dw = dt sin(.) well scaled */
    gradcheck_fill(c.wt, N * d, &r, -1, 1);
    float *dw = fa(d), *db = fa(d);
    dgnn_timeenc_backward(dw, db, c.wt, c.dt, c.w, c.b, N, d);
    CHECK(gradcheck("timeenc dw", te_loss, &c, c.w, dw, d) == 0);
    CHECK(gradcheck("timeenc db", te_loss, &c, c.b, db, d) == 0);
    free(c.dt); free(c.w); free(c.b); free(c.out); free(c.wt); free(dw); free(db);
}

/* ---- JODIE ---------------------------------------------------------------------- */

static void test_jodie_values(void) {
    double t[2] = {10, 100}, tm[2] = {4, 100};
    float dt[2];
    dgnn_jodie_dt_tgl(dt, t, tm, 2);
    CHECK_NEAR(dt[0], 6.0 / 11.0, 1e-7);
    CHECK(dt[1] == 0.0f);
    dgnn_jodie_dt_norm(dt, t, tm, 2, 1.0, 2.0);
    CHECK_NEAR(dt[0], 2.5, 1e-7);
    CHECK_NEAR(dt[1], -0.5, 1e-7);

    float h[4] = {1, 2, 3, 4}, w[2] = {0.5f, -1}, b[2] = {0.1f, 0}, dd[2] = {2, 0}, out[4];
    dgnn_jodie_forward(out, h, dd, w, b, 2, 2);
    CHECK_NEAR(out[0], 1 * (1 + 1 + 0.1), 1e-6);
    CHECK_NEAR(out[1], 2 * (1 - 2), 1e-6);
    CHECK_NEAR(out[2], 3 * 1.1, 1e-6);
    CHECK_NEAR(out[3], 4, 1e-6);

    dgnn_rng r;
    dgnn_rng_seed(&r, 3);
    float *wl = fa(1000), *bl = fa(1000);
    dgnn_jodie_init(wl, bl, 1000, &r);
    double s2 = 0;
    for (int i = 0; i < 1000; i++) s2 += (double)wl[i] * wl[i];
    CHECK(s2 / 1000 > 0.85 && s2 / 1000 < 1.15); /* N(0, 1) */
    free(wl);
    free(bl);
}

typedef struct {
    int64_t B, M;
    float *h, *dt, *w, *b, *out, *wt;
} jo_ctx;

static double jo_loss(void *v) {
    jo_ctx *c = v;
    dgnn_jodie_forward(c->out, c->h, c->dt, c->w, c->b, c->B, c->M);
    return gradcheck_dot(c->out, c->wt, c->B * c->M);
}

static void test_jodie_grad(int64_t B, int64_t M) {
    dgnn_rng r;
    dgnn_rng_seed(&r, (uint64_t)(B * 7 + M));
    jo_ctx c = {B, M, fa(B * M), fa(B), fa(M), fa(M), fa(B * M), fa(B * M)};
    gradcheck_fill(c.h, B * M, &r, -1, 1);
    gradcheck_fill(c.dt, B, &r, 0, 1);
    gradcheck_fill(c.w, M, &r, -1, 1);
    gradcheck_fill(c.b, M, &r, -1, 1);
    gradcheck_fill(c.wt, B * M, &r, -1, 1);
    float *dh = fa(B * M), *dw = fa(M), *db = fa(M);
    dgnn_jodie_backward(dh, dw, db, c.wt, c.h, c.dt, c.w, c.b, B, M);
    CHECK(gradcheck("jodie dh", jo_loss, &c, c.h, dh, B * M) == 0);
    CHECK(gradcheck("jodie dw", jo_loss, &c, c.w, dw, M) == 0);
    CHECK(gradcheck("jodie db", jo_loss, &c, c.b, db, M) == 0);
    free(c.h); free(c.dt); free(c.w); free(c.b); free(c.out); free(c.wt);
    free(dh); free(dw); free(db);
}

int main(void) {
    test_timeenc_values();
    test_timeenc_accuracy();
    test_timeenc_grad(1, 1);
    test_timeenc_grad(7, 5);
    test_timeenc_grad(300, 20); /* above the OpenMP threshold */
    test_jodie_values();
    test_jodie_grad(1, 1);
    test_jodie_grad(6, 5);
    test_jodie_grad(200, 30);
    return check_done();
}
