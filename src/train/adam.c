/* adam.c: Adam (torch.optim.Adam semantics) and gradient clipping. See adam.h. */
#include "dgnn/adam.h"
#include "dgnn/vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "dgnn/prof.h"

dgnn_adam dgnn_adam_default(double lr) {
    dgnn_adam a = {.lr = lr, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.0, .t = 0};
    return a;
}

#define ADAM_BLOCK 4096 /* elements per parallel task */

/* Elements [i0, i1) of one step: the same float arithmetic element by element (so the
 * result does not depend on the blocks), one copy per vector width (vec.h). */
DGNN_VEC_CLONES
static int64_t adam_range(float *param, const float *grad, float *m, float *v, int64_t i0, int64_t i1, float w1,
                          float beta2, float w2, float step_size, float bc2_sqrt, float eps, float wd) {
    int64_t bad = 0;
    for (int64_t i = i0; i < i1; i++) {
        float g = grad[i];
        if (wd != 0.0f) g = g + wd * param[i];
        /* torch's lerp for weight < 0.5: self + weight * (end - self) */
        float mi = m[i] + w1 * (g - m[i]);
        float vi = v[i] * beta2 + w2 * g * g;
        float denom = sqrtf(vi) / bc2_sqrt + eps;
        float pi = param[i] + (-step_size) * mi / denom;
        param[i] = pi;
        m[i] = mi;
        v[i] = vi;
        /* NaN fails both comparisons; v past FLT_MAX ((1 - beta2) g g: a gradient above
         * ~5.8e20) is inf, and would freeze its parameter (m / sqrt(v) = 0) without a word */
        bad += !(fabsf(pi) <= FLT_MAX) | !(vi <= FLT_MAX);
    }
    return bad;
}

int64_t dgnn_adam_step(dgnn_adam *opt, float *param, const float *grad, float *m, float *v, int64_t n) {
    opt->t++;
    /* as torch: 1 - beta ** step and the step size in double (Python floats), then the
     * scalars enter the float kernel rounded to float */
    double b1 = opt->beta1, b2 = opt->beta2;
    double bc1 = 1.0 - pow(b1, (double)opt->t);
    double bc2 = 1.0 - pow(b2, (double)opt->t);
    const float w1 = (float)(1.0 - b1);     /* lerp weight */
    const float beta2 = (float)b2, w2 = (float)(1.0 - b2);
    const float step_size = (float)((double)opt->lr / bc1);
    const float bc2_sqrt = (float)sqrt(bc2);
    const float eps = (float)opt->eps, wd = (float)opt->weight_decay;
    int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
    for (int64_t i0 = 0; i0 < n; i0 += ADAM_BLOCK)
        bad += adam_range(param, grad, m, v, i0, i0 + ADAM_BLOCK < n ? i0 + ADAM_BLOCK : n, w1, beta2, w2,
                          step_size, bc2_sqrt, eps, wd);
    return bad;
}

int64_t dgnn_adam_step_params(dgnn_adam *opt, dgnn_params *p) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ADAM);
    DGNN_ASSERT(p->value != NULL);
    const int64_t bad = dgnn_adam_step(opt, p->value, p->grad, p->m, p->v, p->total);
    dgnn_prof_end(prof_t);
    return bad;
}

int dgnn_adam_failure(dgnn_err *err, const char *where, int64_t bad, int64_t n) {
    return dgnn_err_set(err, DGNN_EINVAL,
                        "%s: Adam left %lld of %lld parameters not finite, or with a squared gradient "
                        "beyond float32 (the gradients overflowed): try a lower --lr, or look for feature values "
                        "in the data too large for float32 arithmetic",
                        where, (long long)bad, (long long)n);
}

/* Fixed blocks of 8192 elements, each summed in double by one thread, then the block
 * sums added in order: the same result for any thread count. */
#define NORM_BLOCK 8192

double dgnn_grad_norm(const float *grad, int64_t n) {
    int64_t nb = (n + NORM_BLOCK - 1) / NORM_BLOCK;
    if (nb == 0) return 0.0;
    double *part = dgnn_xmalloc((size_t)nb * sizeof(double));
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * NORM_BLOCK, hi = lo + NORM_BLOCK < n ? lo + NORM_BLOCK : n;
        double s = 0.0;
        for (int64_t i = lo; i < hi; i++) s += (double)grad[i] * (double)grad[i];
        part[b] = s;
    }
    double s = 0.0;
    for (int64_t b = 0; b < nb; b++) s += part[b];
    free(part);
    return sqrt(s);
}

double dgnn_clip_grad_norm(float *grad, int64_t n, float max_norm) {
    double norm = dgnn_grad_norm(grad, n);
    /* torch: clip_coef = max_norm / (total_norm + 1e-6), applied when < 1; the 1e-6
     * keeps a zero gradient from dividing by zero */
    double coef = (double)max_norm / (norm + 1e-6);
    if (coef < 1.0) {
        float c = (float)coef;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) grad[i] *= c;
    }
    return norm;
}
