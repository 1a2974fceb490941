/* gradcheck.h: a reusable central finite-difference gradient checker for the
 * backward passes of the nn kernels (DESIGN.md, convention 7).
 *
 * Usage: write a loss function that runs the forward pass from the current contents
 * of the parameter/input arrays and returns a scalar (accumulated in double; the usual
 * choice is a fixed random projection of the outputs, gradcheck_dot below, so that
 * dout = the projection weights). Run forward + backward once to get the analytic
 * gradient g of x, then:
 *
 *     CHECK(gradcheck("linear dW", loss_fn, &ctx, W, dW, O * I, NULL) == 0);
 *
 * The checker perturbs x[i] to x[i] +- eps in place (restoring it afterwards), takes
 * (f(x+) - f(x-)) / (x+ - x-) using the float values actually stored (so the rounding
 * of x +- eps does not bias the quotient), and compares with g[i]. A coordinate passes
 * when |num - ana| <= atol + rtol * max(|num|, |ana|): relative error rtol with an
 * absolute floor atol for gradients near zero, where float noise in the loss
 * (about 1e-7 relative) divided by 2*eps dominates. When n > max_checks, a random
 * subset of max_checks coordinates (seeded, so a failure reproduces) is checked.
 *
 * Two step sizes: a coordinate that fails with eps is retried with eps2 (default 1e-2)
 * and passes if that agrees. Float forward passes put ~1e-7 relative noise in the loss,
 * which eps = 1e-3 amplifies by 500; eps2 cuts that 10x, while a perturbation that
 * crosses a ReLU kink at eps2 rarely does so at eps too. A wrong gradient fails both.
 *
 * Every call prints one line with the worst coordinate; failing coordinates (up to 5)
 * are printed too. Returns the number of failing coordinates (0 = pass).
 *
 * Kinks (ReLU, LeakyReLU, max): keep inputs random and eps small, so that a
 * perturbation rarely crosses a kink; tests use fixed seeds. */
#ifndef DGNN_TEST_GRADCHECK_H
#define DGNN_TEST_GRADCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "dgnn/base.h"

typedef double (*gradcheck_loss_fn)(void *ctx);

typedef struct {
    double eps;        /* perturbation (default 1e-3) */
    double eps2;       /* retry perturbation for failing coordinates (default 1e-2; 0 = none) */
    double rtol;       /* relative tolerance (default 1e-2) */
    double atol;       /* absolute floor (default 1e-3) */
    int64_t max_checks;/* coordinates checked at most (default 200) */
    uint64_t seed;     /* subset selection seed (default 1) */
    int quiet;         /* 1: print only failures */
} gradcheck_opts;

static inline gradcheck_opts gradcheck_defaults(void) {
    gradcheck_opts o = {1e-3, 1e-2, 1e-2, 1e-3, 200, 1, 0};
    return o;
}

/* Checks the analytic gradient grad (n) of loss with respect to x (n). Returns the
 * number of failing coordinates. opts may be NULL for the defaults. */
static inline int64_t gradcheck_ex(const char *name, gradcheck_loss_fn loss, void *ctx, float *x,
                                   const float *grad, int64_t n, const gradcheck_opts *opts) {
    gradcheck_opts o = opts ? *opts : gradcheck_defaults();
    dgnn_rng rng;
    dgnn_rng_seed(&rng, o.seed);
    int64_t m = n <= o.max_checks ? n : o.max_checks;
    int64_t failed = 0, worst_i = -1;
    double worst_ratio = -1, worst_num = 0, worst_ana = 0, worst_rel = 0;
    for (int64_t c = 0; c < m; c++) {
        int64_t i = n <= o.max_checks ? c : (int64_t)dgnn_rng_below(&rng, (uint64_t)n);
        double ana = grad[i], num = 0, diff = 0, big = 0, ratio = 0;
        for (int attempt = 0; attempt < 2; attempt++) {
            double eps = attempt == 0 ? o.eps : o.eps2;
            float x0 = x[i];
            float xp = (float)(x0 + eps), xm = (float)(x0 - eps);
            x[i] = xp;
            double fp = loss(ctx);
            x[i] = xm;
            double fm = loss(ctx);
            x[i] = x0;
            num = (fp - fm) / ((double)xp - (double)xm);
            diff = fabs(num - ana);
            big = fmax(fabs(num), fabs(ana));
            ratio = diff / (o.atol + o.rtol * big); /* <= 1 passes */
            if (ratio <= 1.0 || !(o.eps2 > 0)) break;
        }
        if (!(ratio <= 1.0)) { /* also catches NaN */
            if (failed < 5)
                fprintf(stderr, "  gradcheck %s: coord %lld: numeric %.7g analytic %.7g\n", name,
                        (long long)i, num, ana);
            failed++;
        }
        if (!(ratio <= worst_ratio)) {
            worst_ratio = ratio;
            worst_i = i;
            worst_num = num;
            worst_ana = ana;
            worst_rel = big > 0 ? diff / big : 0;
        }
    }
    if (!o.quiet || failed)
        printf("gradcheck %-24s %5lld/%-6lld coords, worst at %lld: num %.6g ana %.6g (rel %.2g, "
               "tol ratio %.2g)%s\n",
               name, (long long)m, (long long)n, (long long)worst_i, worst_num, worst_ana, worst_rel,
               worst_ratio, failed ? "  FAILED" : "");
    return failed;
}

static inline int64_t gradcheck(const char *name, gradcheck_loss_fn loss, void *ctx, float *x,
                                const float *grad, int64_t n) {
    return gradcheck_ex(name, loss, ctx, x, grad, n, NULL);
}

/* sum_i out[i] * w[i] in double: the standard scalar loss, whose gradient wrt out is w. */
static inline double gradcheck_dot(const float *out, const float *w, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)out[i] * (double)w[i];
    return s;
}

/* Fills x (n) with uniform values in [lo, hi). */
static inline void gradcheck_fill(float *x, int64_t n, dgnn_rng *r, double lo, double hi) {
    for (int64_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * dgnn_rng_uniform(r));
}

/* Max |a - b| / max(1, |b|) over n values: for comparing a fast path with its reference. */
static inline double gradcheck_maxdiff(const float *a, const float *b, int64_t n) {
    double w = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i]));
        if (!(d <= w)) w = d;
    }
    return w;
}
#endif
