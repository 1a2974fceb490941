/* adam.h: Adam as torch.optim.Adam (amsgrad off, maximize off), and gradient
 * clipping by global norm as torch.nn.utils.clip_grad_norm_.
 *
 * One step at step count t (1 after the first step), for every element:
 *     g  = grad + weight_decay * param          (L2 as torch: added to the gradient;
 *                                                the grad slab itself is not modified)
 *     m  = m + (1 - beta1) * (g - m)            (torch >= 2.0: exp_avg.lerp_(g, 1 - beta1))
 *     v  = beta2 * v + (1 - beta2) * g * g
 *     param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
 * which is p -= lr * m_hat / (sqrt(v_hat) + eps) with m_hat = m / (1 - beta1^t) and
 * v_hat = v / (1 - beta2^t), in torch's order of float operations (bias corrections in
 * double, as Python floats, then used as float scalars), so results agree with torch's
 * CPU single-tensor Adam to the last bit or two.
 *
 * The update runs over a whole slab, OpenMP-parallel; each element is independent, so
 * the result does not depend on the thread count. */
#ifndef DGNN_ADAM_H
#define DGNN_ADAM_H

#include "dgnn/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /* double, as torch's Python floats: the bias corrections and the step size are
     * computed in double and only then rounded to float, as torch does */
    double lr;           /* learning rate; may be changed between steps (schedules) */
    double beta1, beta2; /* 0.9, 0.999 */
    double eps;          /* 1e-8 */
    double weight_decay; /* 0: none */
    int64_t t;          /* steps taken so far (torch's state['step']); saved in checkpoints */
} dgnn_adam;

/* torch.optim.Adam's defaults with learning rate lr, t = 0. */
dgnn_adam dgnn_adam_default(double lr);

/* One step over n elements: increments opt->t, then updates param, m and v in place.
 * param, m, v: (n); grad: (n), read only. Returns how many elements came out of the step
 * with a parameter that is not finite or a second moment v that overflowed float32 (a
 * gradient that is NaN, inf or above ~5.8e20): 0 for a sound step. The trainers stop on
 * any (dgnn_adam_failure); the step is taken either way. */
int64_t dgnn_adam_step(dgnn_adam *opt, float *param, const float *grad, float *m, float *v, int64_t n);
/* The same over a parameter slab (value, grad, m, v of p; padding included). */
int64_t dgnn_adam_step_params(dgnn_adam *opt, dgnn_params *p);
/* The trainers' error for a step that left bad elements (dgnn_adam_step's count, of n):
 * where names the step ("epoch 2 batch 31"). Returns DGNN_EINVAL. */
int dgnn_adam_failure(dgnn_err *err, const char *where, int64_t bad, int64_t n);

/* Global L2 norm of grad (n), accumulated in double in fixed blocks, so it does not
 * depend on the thread count. */
double dgnn_grad_norm(const float *grad, int64_t n);
/* torch.nn.utils.clip_grad_norm_(max_norm): if the global norm exceeds max_norm,
 * scales grad by max_norm / (norm + 1e-6). Returns the norm before clipping. */
double dgnn_clip_grad_norm(float *grad, int64_t n, float max_norm);

#ifdef __cplusplus
}
#endif
#endif
