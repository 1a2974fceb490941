/* test_adam.c: Adam against hand-computed steps and a double-precision reference of
 * torch.optim.Adam's formula over many steps (with and without weight decay, with a
 * learning-rate change); thread-count independence; gradient clipping; the slab form. */
#include "check.h"
#include "dgnn/adam.h"

#include <math.h>
#include <omp.h>

/* torch.optim.Adam's math in double: the reference the float kernel must follow. */
typedef struct {
    double lr, b1, b2, eps, wd;
    long t;
} ref_adam;

static void ref_step(ref_adam *o, double *p, const double *g, double *m, double *v, int n) {
    o->t++;
    double bc1 = 1 - pow(o->b1, o->t), bc2 = 1 - pow(o->b2, o->t);
    for (int i = 0; i < n; i++) {
        double gi = g[i] + o->wd * p[i];
        m[i] = o->b1 * m[i] + (1 - o->b1) * gi;
        v[i] = o->b2 * v[i] + (1 - o->b2) * gi * gi;
        double mh = m[i] / bc1, vh = v[i] / bc2;
        p[i] -= o->lr * mh / (sqrt(vh) + o->eps);
    }
}

static void test_hand(void) {
    /* first step: m_hat = g, v_hat = g^2, so p -= lr * g / (|g| + eps) */
    dgnn_adam a = dgnn_adam_default(0.01);
    CHECK(a.beta1 == 0.9 && a.beta2 == 0.999 && a.eps == 1e-8 && a.weight_decay == 0 && a.t == 0);
    float p[] = {1.0f, 1.0f, 1.0f, 1.0f}, g[] = {0.5f, -2.0f, 0.0f, 1e-3f}, m[4] = {0}, v[4] = {0};
    dgnn_adam_step(&a, p, g, m, v, 4);
    CHECK(a.t == 1);
    CHECK_NEAR(p[0], 1.0 - 0.01 * 0.5 / (0.5 + 1e-8), 1e-7);
    CHECK_NEAR(p[1], 1.0 + 0.01 * 2.0 / (2.0 + 1e-8), 1e-7);
    CHECK(p[2] == 1.0f); /* zero gradient: no move */
    CHECK_NEAR(p[3], 1.0 - 0.01 * 1e-3 / (1e-3 + 1e-8), 1e-7);
    CHECK_NEAR(m[1], -0.2, 1e-8);
    CHECK_NEAR(v[1], 0.004, 1e-9);

    /* two steps by hand: p0 = 1, g = 0.1 then -0.1, lr 0.1
     * step 1: p = 0.9 (up to eps)
     * step 2: m = 0.009 - 0.01 = -0.001, v = 0.999e-5 + 1e-5 = 1.999e-5,
     *         m_hat = -0.001 / 0.19, v_hat = 1.999e-5 / 0.001999 = 1e-2, sqrt 0.1
     *         p = 0.9 + 0.1 * (0.001 / 0.19) / (0.1 + 1e-8) */
    dgnn_adam b = dgnn_adam_default(0.1);
    float q = 1.0f, gq = 0.1f, mq = 0, vq = 0;
    dgnn_adam_step(&b, &q, &gq, &mq, &vq, 1);
    CHECK_NEAR(q, 1.0 - 0.1 * 0.1 / (0.1 + 1e-8), 1e-7);
    gq = -0.1f;
    dgnn_adam_step(&b, &q, &gq, &mq, &vq, 1);
    double want = (1.0 - 0.1 * 0.1 / (0.1 + 1e-8)) + 0.1 * (0.001 / 0.19) / (0.1 + 1e-8);
    CHECK_NEAR(q, want, 1e-6);
    CHECK_NEAR(q, 0.905263, 1e-6);

    /* weight decay enters the gradient: g = 0 + 0.5 * 2 = 1, so p = 2 - lr (first step) */
    dgnn_adam c = dgnn_adam_default(0.01);
    c.weight_decay = 0.5;
    float pc = 2.0f, gc = 0.0f, mc = 0, vc = 0;
    dgnn_adam_step(&c, &pc, &gc, &mc, &vc, 1);
    CHECK_NEAR(pc, 2.0 - 0.01 * 1.0 / (1.0 + 1e-8), 1e-7);
    CHECK(gc == 0.0f); /* the gradient array is not modified */
}

/* n parameters, 200 steps, gradients a smooth function of the parameter and the step
 * (like a real loss surface: they change sign and scale). */
static double run_vs_reference(double lr, double wd, int change_lr) {
    enum { N = 257, STEPS = 200 };
    float p[N], g[N], m[N] = {0}, v[N] = {0};
    double pd[N], gd[N], md[N] = {0}, vd[N] = {0};
    for (int i = 0; i < N; i++) p[i] = (float)(0.01 * (i - 128)), pd[i] = p[i];
    dgnn_adam a = dgnn_adam_default(lr);
    a.weight_decay = wd;
    ref_adam r = {lr, 0.9, 0.999, 1e-8, wd, 0};
    double max_rel = 0;
    for (int s = 0; s < STEPS; s++) {
        if (change_lr && s == 100) a.lr = r.lr = lr / 10;
        for (int i = 0; i < N; i++) {
            /* gradient of sum (p - c_i)^2 plus a step-dependent wobble, evaluated at the
             * reference's parameters so both see identical gradients */
            double c = sin(0.1 * i);
            gd[i] = 2 * (pd[i] - c) + 0.3 * cos(0.05 * s + i) * (i % 7 == 0 ? 1e-3 : 1.0);
            g[i] = (float)gd[i];
            gd[i] = g[i]; /* the same float gradient */
        }
        /* reset the float run's parameters to the reference's before each step, so the
         * comparison measures one step's rounding, not drift of a chaotic trajectory */
        for (int i = 0; i < N; i++) p[i] = (float)pd[i], m[i] = (float)md[i], v[i] = (float)vd[i];
        double before[N];
        for (int i = 0; i < N; i++) before[i] = pd[i];
        dgnn_adam_step(&a, p, g, m, v, N);
        ref_step(&r, pd, gd, md, vd, N);
        for (int i = 0; i < N; i++) {
            /* allowed: the rounding of the result to float (an ulp, as the stored
             * parameter is a float), plus a relative error of the update itself */
            float pf = (float)pd[i];
            double ulp = fabs((double)nextafterf(pf, INFINITY) - (double)pf);
            double err = fabs(p[i] - pd[i]) - ulp;
            double upd = fabs(pd[i] - before[i]);
            double rel = err > 0 ? err / (upd > 0 ? upd : 1e-30) : 0;
            if (rel > max_rel) max_rel = rel;
        }
    }
    CHECK(a.t == STEPS && r.t == STEPS);
    return max_rel;
}

static void test_reference(void) {
    double e1 = run_vs_reference(1e-3, 0.0, 0);
    double e2 = run_vs_reference(1e-2, 0.01, 1);
    double e3 = run_vs_reference(1e-4, 0.0, 1);
    printf("adam vs double reference: max relative error of one update (beyond 1 ulp) = %.2e, %.2e, %.2e\n", e1, e2, e3);
    /* measured: at most ~3e-5 (float moments, a float parameter whose rounding can cost
     * more than an ulp when an update is tiny); any formula error (bias correction,
     * eps placement, decay) is off by 1e-2 or more */
    CHECK_MSG(e1 < 1e-3 && e2 < 1e-3 && e3 < 1e-3, "%g %g %g", e1, e2, e3);

    /* free running trajectory: stays close to the reference over 200 steps */
    enum { N = 64 };
    float p[N], g[N], m[N] = {0}, v[N] = {0};
    double pd[N], gd[N], md[N] = {0}, vd[N] = {0};
    for (int i = 0; i < N; i++) p[i] = 1.0f + 0.01f * i, pd[i] = p[i];
    dgnn_adam a = dgnn_adam_default(1e-2);
    ref_adam r = {1e-2, 0.9, 0.999, 1e-8, 0, 0};
    for (int s = 0; s < 200; s++) {
        for (int i = 0; i < N; i++) g[i] = (float)(2 * (p[i] - 0.5)), gd[i] = 2 * (pd[i] - 0.5);
        dgnn_adam_step(&a, p, g, m, v, N);
        ref_step(&r, pd, gd, md, vd, N);
    }
    double maxd = 0;
    for (int i = 0; i < N; i++) maxd = fmax(maxd, fabs(p[i] - pd[i]));
    CHECK_MSG(maxd < 1e-4, "max |p - p_ref| = %g after 200 steps", maxd);
    CHECK(fabs(pd[0] - 0.5) < fabs(1.0 - 0.5)); /* and it optimises */
}

static void test_threads(void) {
    int64_t n = 100000;
    float *p1 = malloc(n * 4), *p2 = malloc(n * 4), *g = malloc(n * 4);
    float *m1 = calloc(n, 4), *v1 = calloc(n, 4), *m2 = calloc(n, 4), *v2 = calloc(n, 4);
    dgnn_rng r;
    dgnn_rng_seed(&r, 5);
    for (int64_t i = 0; i < n; i++) p1[i] = p2[i] = (float)dgnn_rng_normal(&r);
    dgnn_adam a1 = dgnn_adam_default(1e-3), a2 = a1;
    int saved = omp_get_max_threads();
    for (int s = 0; s < 5; s++) {
        for (int64_t i = 0; i < n; i++) g[i] = (float)dgnn_rng_normal(&r);
        omp_set_num_threads(1);
        dgnn_adam_step(&a1, p1, g, m1, v1, n);
        omp_set_num_threads(3);
        dgnn_adam_step(&a2, p2, g, m2, v2, n);
    }
    omp_set_num_threads(1);
    double n1 = dgnn_grad_norm(g, n);
    omp_set_num_threads(3);
    double n3 = dgnn_grad_norm(g, n);
    omp_set_num_threads(saved);
    CHECK(memcmp(p1, p2, n * 4) == 0 && memcmp(m1, m2, n * 4) == 0 && memcmp(v1, v2, n * 4) == 0);
    CHECK(n1 == n3);
    free(p1), free(p2), free(g), free(m1), free(v1), free(m2), free(v2);
}

static void test_clip(void) {
    float g[] = {3.0f, 0.0f, -4.0f};
    CHECK_NEAR(dgnn_grad_norm(g, 3), 5.0, 1e-12);
    double nrm = dgnn_clip_grad_norm(g, 3, 10.0f); /* below the limit: untouched */
    CHECK(nrm == 5.0 && g[0] == 3.0f && g[2] == -4.0f);
    nrm = dgnn_clip_grad_norm(g, 3, 1.0f);
    CHECK(nrm == 5.0);
    CHECK_NEAR(g[0], 3.0 / (5.0 + 1e-6), 1e-7);
    CHECK_NEAR(g[2], -4.0 / (5.0 + 1e-6), 1e-7);
    CHECK_NEAR(dgnn_grad_norm(g, 3), 1.0, 1e-6);
    float z[4] = {0};
    CHECK(dgnn_clip_grad_norm(z, 4, 1.0f) == 0.0 && z[0] == 0.0f);
    CHECK(dgnn_grad_norm(z, 0) == 0.0);
    /* many blocks */
    int64_t n = 100000;
    float *big = malloc(n * 4);
    for (int64_t i = 0; i < n; i++) big[i] = 0.5f;
    CHECK_NEAR(dgnn_grad_norm(big, n), 0.5 * sqrt((double)n), 1e-9);
    free(big);
}

static void test_slab(void) {
    dgnn_params p;
    dgnn_params_init(&p);
    int w = dgnn_params_add(&p, "w", 3, 3); /* 9 floats + 7 padding */
    int b = dgnn_params_add1(&p, "b", 3);
    dgnn_err err;
    CHECK(dgnn_params_alloc(&p, &err) == 0);
    float *pw = dgnn_params_get(&p, w), *pb = dgnn_params_get(&p, b);
    for (int i = 0; i < 9; i++) pw[i] = 1.0f;
    for (int i = 0; i < 3; i++) pb[i] = -1.0f;
    dgnn_adam a = dgnn_adam_default(0.1);
    a.weight_decay = 0.1; /* padding must stay 0 even with decay */
    for (int s = 0; s < 3; s++) {
        dgnn_params_zero_grad(&p);
        float *gw = dgnn_params_grad(&p, w), *gb = dgnn_params_grad(&p, b);
        for (int i = 0; i < 9; i++) gw[i] = 1.0f;
        for (int i = 0; i < 3; i++) gb[i] = -1.0f;
        dgnn_adam_step_params(&a, &p);
    }
    CHECK(a.t == 3);
    CHECK(pw[0] < 1.0f && pb[0] > -1.0f);
    int pad_zero = 1;
    for (int64_t i = 9; i < 16; i++) pad_zero &= p.value[i] == 0.0f && p.m[i] == 0.0f && p.v[i] == 0.0f;
    for (int64_t i = 16 + 3; i < p.total; i++) pad_zero &= p.value[i] == 0.0f && p.m[i] == 0.0f;
    CHECK(pad_zero);
    dgnn_params_free(&p);
}

/* The count of elements a step left unsound: a NaN or inf gradient makes its parameter
 * NaN, a gradient past ~5.8e20 overflows v ((1 - beta2) g g; the parameter then stops
 * moving); over many blocks and threads the count is exact. */
static void test_bad_steps(void) {
    dgnn_adam a = dgnn_adam_default(0.01);
    float p[4] = {1, 1, 1, 1}, m[4] = {0}, v[4] = {0};
    const float sound[4] = {0.5f, -2.0f, 0.0f, 1e18f};
    CHECK(dgnn_adam_step(&a, p, sound, m, v, 4) == 0);
    const float bad[4] = {NAN, 1.0f, INFINITY, -1e22f};
    CHECK(dgnn_adam_step(&a, p, bad, m, v, 4) == 3);
    CHECK(isnan(p[0]) && isfinite(p[1]) && isinf(v[3]));
    /* a later step with a sound gradient still counts what stays broken */
    CHECK(dgnn_adam_step(&a, p, sound, m, v, 4) == 3);
    const int64_t n = 100003;
    float *q = calloc((size_t)n, sizeof *q), *g = calloc((size_t)n, sizeof *g), *mq = calloc((size_t)n, sizeof *mq),
          *vq = calloc((size_t)n, sizeof *vq);
    for (int64_t i = 0; i < n; i += 997) g[i] = NAN;
    dgnn_adam b = dgnn_adam_default(0.01);
    CHECK(dgnn_adam_step(&b, q, g, mq, vq, n) == (n + 996) / 997);
    free(q), free(g), free(mq), free(vq);
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK(dgnn_adam_failure(&err, "epoch 2 batch 31", 3, 4) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "epoch 2 batch 31: Adam left 3 of 4 parameters not finite") != NULL);
}

int main(void) {
    test_hand();
    test_bad_steps();
    test_reference();
    test_threads();
    test_clip();
    test_slab();
    return check_done();
}
