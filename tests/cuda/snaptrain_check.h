/* snaptrain_check.h: what the GPU snapshot trainers' tests share (test_cuda_snaptrain*.c):
 * the tolerances (tighter on the host emulation, where the device ops are the CPU's), the
 * slab comparison, small random A_hat matrices, an Adam step on both devices,
 * test_snap_train.c's learnable stream, one training run on either device, and the comparison
 * of two runs' figures. */
#ifndef DGNN_SNAPTRAIN_CHECK_H
#define DGNN_SNAPTRAIN_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/adam.h"
#include "dgnn/readers.h"
#include "dgnn/snap_train.h"
#include "dgnn/snapmodel_cuda.h"

/* On the emulation the ops are the CPU's; the composition still sums in other orders (the
 * classifier's first layer over every node, the initial weights' gradient added in place),
 * so the figures agree to rounding, not to the bit. The ranking metrics move most: one pair
 * of near-equal scores swapped by rounding moves a small graph's MRR by 1e-4 or more (seen:
 * 1.7e-4 with OpenBLAS's Haswell kernels), so METRIC_TOL is 2e-3 there. */
#if DGNN_CUDA_HOSTEMU
#define GRAD_RTOL 1e-4
#define LOSS_RTOL 1e-5
#define METRIC_TOL 2e-3
#else
#define GRAD_RTOL 2e-3
#define LOSS_RTOL 1e-3
#define METRIC_TOL 0.01
#endif

/* max |a - b| over the slab, relative to its largest |b| (*at: where; *scale: that |b|) */
static inline double snapt_slab_diff(const float *a, const float *b, int64_t n, int64_t *at, double *scale) {
    double d = 0, s = 0;
    *at = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - (double)b[i]);
        if (e > d || isnan(e)) d = e, *at = i;
        if (fabs((double)b[i]) > s) s = fabs((double)b[i]);
    }
    *scale = s;
    return d / (s > 1e-12 ? s : 1e-12);
}

/* the slab a within rtol (relative to b's largest magnitude) of b */
static inline void snapt_near_slab(const char *what, const float *a, const float *b, int64_t n, double rtol) {
    int64_t at;
    double s, r = snapt_slab_diff(a, b, n, &at, &s);
    CHECK_MSG(r <= rtol, "%s: relative difference %g at %lld (%g vs %g), scale %g", what, r, (long long)at,
              (double)a[at], (double)b[at], s);
}
#define near_slab(what, a, b, n) snapt_near_slab((what), (a), (b), (n), GRAD_RTOL)

/* A random graph's A_hat-like matrix on N nodes (E random entries, self loops) as a CSR
 * (rowptr, col, val malloc'd, the caller frees them): mode 0 a symmetric pattern with values
 * drawn per entry, 1 symmetric values too, 2 a directed pattern (its transpose is another
 * matrix). */
static inline void snapt_random_hat(int64_t **rowptr, int32_t **col, float **val, int N, int E, int mode, dgnn_rng *r) {
    uint8_t *adj = calloc((size_t)N * (size_t)N, 1);
    for (int k = 0; k < E; k++) {
        int u = (int)dgnn_rng_below(r, (uint64_t)N), v = (int)dgnn_rng_below(r, (uint64_t)N);
        adj[u * N + v] = 1;
        if (mode != 2) adj[v * N + u] = 1;
    }
    for (int u = 0; u < N; u++) adj[u * N + u] = 1;
    *rowptr = malloc((size_t)(N + 1) * sizeof(int64_t));
    *col = malloc((size_t)N * (size_t)N * sizeof(int32_t));
    *val = malloc((size_t)N * (size_t)N * sizeof(float));
    int64_t nz = 0;
    (*rowptr)[0] = 0;
    for (int u = 0; u < N; u++) {
        for (int v = 0; v < N; v++)
            if (adj[u * N + v]) {
                float w = 0.1f + 0.8f * (float)dgnn_rng_uniform(r);
                if (mode == 1) w = 0.1f + 0.05f * (float)((u * 7 + v * 7) % 11); /* symmetric values */
                (*col)[nz] = v, (*val)[nz++] = w;
            }
        (*rowptr)[u + 1] = nz;
    }
    free(adj);
}

/* test_snap_train.c's learnable sequence: ST snapshots of 1 s over SN nodes, four hubs
 * linking to several others in every snapshot, the rest linking rarely */
enum { SN = 30, ST = 28 };
static inline void snapt_make_stream(dgnn_events *ev, uint64_t seed) {
    dgnn_builder b;
    dgnn_err err;
    dgnn_builder_init(&b, 0, 0, 0);
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    for (int t = 0; t < ST; t++) {
        double ts = t + 0.5;
        for (int h = 0; h < 4; h++)
            for (int k = 0; k < 6; k++)
                DGNN_ASSERT(dgnn_builder_push(&b, h, 4 + (int64_t)dgnn_rng_below(&r, SN - 4), ts, NULL, 0, 0, &err) == 0);
        for (int k = 0; k < 3; k++)
            DGNN_ASSERT(dgnn_builder_push(&b, 4 + (int64_t)dgnn_rng_below(&r, SN - 4),
                                          4 + (int64_t)dgnn_rng_below(&r, SN - 4), ts, NULL, 0, 0, &err) == 0);
    }
    dgnn_events_init(ev);
    DGNN_ASSERT(dgnn_builder_finish(&b, ev, SN, &err) == 0);
}

/* one run of c on the GPU (cuda 1) or the CPU */
static inline void snapt_train(const dgnn_events *ev, dgnn_snap_train_cfg c, int cuda, dgnn_snap_train_result *res) {
    dgnn_err err;
    dgnn_err_clear(&err);
    c.use_cuda = cuda, c.cuda_device = 0;
    CHECK_MSG(dgnn_snap_train(ev, &c, res, &err) == DGNN_OK, "training on the %s: %s", cuda ? "GPU" : "CPU", err.msg);
}

static inline int snapt_near_metric(double a, double b) { return fabs(a - b) <= METRIC_TOL || (isnan(a) && isnan(b)); }

/* two runs' figures: each epoch's loss (LOSS_RTOL) and pairs, validation MAP, MRR and F1, and
 * the test MAP, MRR and F1 (METRIC_TOL; NaN where both are NaN) */
static inline void snapt_same_runs(const char *what, const dgnn_snap_train_result *g, const dgnn_snap_train_result *c) {
    CHECK_MSG(g->num_epochs == c->num_epochs, "%s: %lld vs %lld epochs", what, (long long)g->num_epochs,
              (long long)c->num_epochs);
    for (int64_t e = 0; e < c->num_epochs && e < g->num_epochs; e++) {
        const dgnn_snap_epoch_result *x = &g->epochs[e], *y = &c->epochs[e];
        CHECK_MSG(fabs(x->train_loss - y->train_loss) <= LOSS_RTOL * fabs(y->train_loss) &&
                      x->train_pairs == y->train_pairs,
                  "%s, epoch %lld: loss %.9g vs %.9g, pairs %lld vs %lld", what, (long long)e + 1, x->train_loss,
                  y->train_loss, (long long)x->train_pairs, (long long)y->train_pairs);
        CHECK_MSG(snapt_near_metric(x->val_map, y->val_map), "%s, epoch %lld: validation MAP %.6f vs %.6f", what,
                  (long long)e + 1, x->val_map, y->val_map);
        CHECK_MSG(snapt_near_metric(x->val_mrr, y->val_mrr), "%s, epoch %lld: validation MRR %.6f vs %.6f", what,
                  (long long)e + 1, x->val_mrr, y->val_mrr);
        CHECK_MSG(snapt_near_metric(x->val_f1, y->val_f1), "%s, epoch %lld: validation F1 %.6f vs %.6f", what,
                  (long long)e + 1, x->val_f1, y->val_f1);
    }
    CHECK_MSG(snapt_near_metric(g->test_map, c->test_map), "%s: test MAP %.6f vs %.6f", what, g->test_map, c->test_map);
    CHECK_MSG(snapt_near_metric(g->test_mrr, c->test_mrr), "%s: test MRR %.6f vs %.6f", what, g->test_mrr, c->test_mrr);
    CHECK_MSG(snapt_near_metric(g->test_f1, c->test_f1), "%s: test F1 %.6f vs %.6f", what, g->test_f1, c->test_f1);
}


/* An Adam step (lr 0.01) from the CPU's gradients cpu_grad on the host slab p and on the
 * device d (whose slab holds the same gradients): Adam's first step moves each weight by about
 * lr sign(g), so the moves are compared where the gradient is clearly non-zero; then the
 * device's gradients are zero. p's values end as the device's. */
static inline void snapt_adam_step(dgnn_snapmodel_cuda *d, dgnn_params *p, const float *cpu_grad) {
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_adam oc = dgnn_adam_default(0.01), og = oc;
    const size_t b = (size_t)p->total * sizeof(float);
    memcpy(p->grad, cpu_grad, b);
    float *before = malloc(b), *cpu_after = malloc(b);
    memcpy(before, p->value, b);
    dgnn_adam_step_params(&oc, p);
    memcpy(cpu_after, p->value, b);
    og.t++;
    CHECK(dgnn_snapmodel_cuda_step(d, og.lr, og.beta1, og.beta2, og.eps, og.weight_decay, og.t, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_cuda_pull(d, p, &err) == DGNN_OK);
    int64_t bad = 0, seen = 0;
    for (int64_t i = 0; i < p->total; i++) {
        if (fabsf(cpu_grad[i]) < 1e-4f) continue;
        seen++;
        bad += fabsf((p->value[i] - before[i]) - (cpu_after[i] - before[i])) > 1e-4f;
    }
    CHECK_MSG(seen > 10 && bad == 0, "Adam step: %lld of %lld moves differ", (long long)bad, (long long)seen);
    int zero = 1;
    for (int64_t i = 0; i < p->total; i++) zero &= p->grad[i] == 0.0f;
    CHECK_MSG(zero, "the gradients are zero after a step");
    free(before), free(cpu_after);
}

#endif
