/* step_check.h: what the device-step tests (test_cuda_tgn.c, test_cuda_apan.c) share: the
 * comparisons of a device step's loss, gradients, state and Adam with the CPU model's
 * (tolerances scaled to each tensor), the upload of a CPU state, and the copies of a
 * batch's host arrays that a test spoils once the call that reads them returns. */
#ifndef DGNN_TEST_STEP_CHECK_H
#define DGNN_TEST_STEP_CHECK_H

#include "cuda_check.h"
#include "dgnn/adam.h"
#include "dgnn/params.h"
#include "dgnn/state.h"

/* h against ref (n): max |h - ref| <= rtol * max |ref| + 1e-7 (a tensor's gradients span
 * orders of magnitude, so the scale is the tensor's, not each entry's); no NaN */
static void near_scaled(const char *what, const float *h, const float *ref, int64_t n, double rtol, double scale) {
    double worst = 0;
    int64_t at = -1, nans = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = fabs((double)h[i] - (double)ref[i]);
        scale = fmax(scale, fabs((double)ref[i]));
        if (d != d) nans++;
        else if (d > worst) worst = d, at = i;
    }
    CHECK_MSG(nans == 0 && worst <= rtol * scale + 1e-7, "%s: %lld NaN, max error %g at %lld (%g vs %g), scale %g",
              what, (long long)nans, worst, (long long)at, at >= 0 ? h[at] : 0.0, at >= 0 ? ref[at] : 0.0, scale);
}
static void near_tensor(const char *what, const float *h, const float *ref, int64_t n, double rtol) {
    near_scaled(what, h, ref, n, rtol, 0);
}

/* One tensor of the table (the attention's, the link predictor's) field by field: nf
 * fields in slab order, each where the layout put it over ref (NULL: an empty field), h
 * the same n floats from the device. A field compared at its tensor's scale, i.e. at its
 * largest field's, could be wrong and still pass; so each field is held to its own scale,
 * but not below 1e-2 of the tensor's (a sum that cancels, such as the one-float bias of the
 * predictor's output, keeps the rounding of its terms, which are the tensor's size), and
 * `noise` (or NULL), a gradient that is zero but for rounding, to the tensor's. */
typedef struct {
    const char *name;
    const float *at;
} field;
static void near_fields(const char *what, const float *h, const float *ref, int64_t n, const field *f, int nf,
                        const char *noise, double rtol) {
    double block = 0;
    for (int64_t i = 0; i < n; i++) block = fmax(block, fabs((double)ref[i]));
    for (int i = 0; i < nf; i++) {
        if (!f[i].at) continue;
        const int64_t o = f[i].at - ref;
        int64_t e = n;
        for (int j = i + 1; j < nf; j++)
            if (f[j].at) {
                e = f[j].at - ref;
                break;
            }
        char name[160];
        snprintf(name, sizeof name, "%s.%s", what, f[i].name);
        near_scaled(name, h + o, ref + o, e - o, rtol, noise && strcmp(f[i].name, noise) == 0 ? block : 1e-2 * block);
    }
}

/* device array d (n floats) against host ref per tensor of p's table */
static void near_slab(dgnn_cuda *c, const char *what, const float *d, const float *ref, const dgnn_params *p,
                      double rtol) {
    float *h = malloc((size_t)p->total * sizeof(float));
    down(c, h, d, (size_t)p->total * sizeof(float), what);
    for (int i = 0; i < p->ntensors; i++) {
        char name[160];
        snprintf(name, sizeof name, "%s of %s", what, p->t[i].name);
        near_tensor(name, h + p->t[i].offset, ref + p->t[i].offset, p->t[i].count, rtol);
    }
    free(h);
}

/* the device state against the CPU's, every array */
static void near_state(dgnn_cuda *c, const dgnn_cuda_state *ds, const dgnn_state *st) {
    const int64_t N = st->num_nodes, M = st->mem_dim, D = st->mail_dim, S = st->slots;
    float *mem = malloc((size_t)(N * M) * sizeof(float)), *mail = malloc((size_t)(N * S * D) * sizeof(float));
    double *mem_t = malloc((size_t)N * sizeof(double)), *mail_t = malloc((size_t)(N * S) * sizeof(double));
    int32_t *mail_n = malloc((size_t)N * sizeof(int32_t)), *mail_head = malloc((size_t)N * sizeof(int32_t));
    down(c, mem, ds->mem, (size_t)(N * M) * sizeof(float), "memory");
    down(c, mail, ds->mail, (size_t)(N * S * D) * sizeof(float), "mails");
    down(c, mem_t, ds->mem_t, (size_t)N * sizeof(double), "memory times");
    down(c, mail_t, ds->mail_t, (size_t)(N * S) * sizeof(double), "mail times");
    down(c, mail_n, ds->mail_n, (size_t)N * sizeof(int32_t), "mail counts");
    down(c, mail_head, ds->mail_head, (size_t)N * sizeof(int32_t), "mail heads");
    near_ref("committed memory", mem, st->mem, N * M, 1e-4);
    near_ref("committed mails", mail, st->mail, N * S * D, 1e-4);
    int64_t bad_t = 0, bad_n = 0;
    for (int64_t v = 0; v < N; v++) {
        bad_t += mem_t[v] != st->mem_t[v]; /* copied times, never computed */
        bad_n += mail_n[v] != st->mail_n[v] || mail_head[v] != st->mail_head[v];
    }
    for (int64_t i = 0; i < N * S; i++) bad_t += mail_t[i] != st->mail_t[i];
    CHECK_MSG(bad_t == 0, "committed times: %lld differ", (long long)bad_t);
    CHECK_MSG(bad_n == 0, "mail counts or heads: %lld nodes differ", (long long)bad_n);
    FREE(mem, mail, mem_t, mail_t, mail_n, mail_head);
}

/* the device state = the CPU's, every array (waits) */
static void upload_state(dgnn_cuda *c, dgnn_cuda_state *ds, const dgnn_state *st) {
    const int64_t N = st->num_nodes, M = st->mem_dim, D = st->mail_dim, S = st->slots;
    CUDA_OK(dgnn_cuda_upload(c, ds->mem, st->mem, (size_t)(N * M) * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mem_t, st->mem_t, (size_t)N * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail, st->mail, (size_t)(N * S * D) * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail_t, st->mail_t, (size_t)(N * S) * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail_n, st->mail_n, (size_t)N * sizeof(int32_t), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail_head, st->mail_head, (size_t)N * sizeof(int32_t), ERR));
    CUDA_OK(dgnn_cuda_sync(c, ERR));
}

/* Copies of a batch's host arrays, to overwrite (0xFF) as soon as the call that reads
 * them returns: the call must have packed them by then (cuda.h), so the device step must
 * not see the difference. */
typedef struct {
    void *p[16];
    size_t n[16];
    int k;
} copies;
static const void *copy_of(copies *cp, const void *x, size_t bytes) {
    if (!x) return NULL;
    CHECK(cp->k < 16);
    void *d = malloc(bytes + 1);
    memcpy(d, x, bytes);
    cp->p[cp->k] = d, cp->n[cp->k++] = bytes;
    return d;
}
static void copies_spoil(copies *cp) {
    for (int i = 0; i < cp->k; i++) memset(cp->p[i], 0xFF, cp->n[i]);
}
static void copies_free(copies *cp) {
    for (int i = 0; i < cp->k; i++) free(cp->p[i]);
    cp->k = 0;
}

/* Adam on the device against its reference: the CPU op on the device's own gradients
 * (dgrad) from the same parameters and moments. (A gradient that is rounding noise around
 * zero, such as the attention's key bias, which softmax cancels, gets an O(lr) step of
 * either sign from Adam, so the CPU's own step would not be a fair reference there.)
 * adam_reference computes it (p's values and moments, then p's own step with *opt, which
 * advances opt->t), before the device's step; adam_check compares the device's parameters
 * and moments with it after, within 1e-5 (1 + |x|), and frees it. */
typedef struct {
    float *p, *m, *v;
} adam_ref;
static adam_ref adam_reference(dgnn_cuda *c, dgnn_params *p, dgnn_adam *opt, const float *dgrad) {
    const size_t bytes = (size_t)p->total * sizeof(float);
    adam_ref r = {malloc(bytes), malloc(bytes), malloc(bytes)};
    float *g = malloc(bytes);
    down(c, g, dgrad, bytes, "the device gradients");
    memcpy(r.p, p->value, bytes), memcpy(r.m, p->m, bytes), memcpy(r.v, p->v, bytes);
    dgnn_adam ref_opt = *opt;
    dgnn_adam_step(&ref_opt, r.p, g, r.m, r.v, p->total);
    dgnn_adam_step_params(opt, p); /* the CPU model's own step */
    CHECK(ref_opt.t == opt->t);
    free(g);
    return r;
}
static void adam_check(dgnn_cuda *c, adam_ref *r, int64_t n, const float *dparam, const float *dm, const float *dv) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *h = malloc(bytes);
    down(c, h, dparam, bytes, "the parameters after Adam");
    near_ref("parameters after Adam", h, r->p, n, 1e-5);
    down(c, h, dm, bytes, "Adam m");
    near_ref("Adam m", h, r->m, n, 1e-5);
    down(c, h, dv, bytes, "Adam v");
    near_ref("Adam v", h, r->v, n, 1e-5);
    FREE(h, r->p, r->m, r->v);
}
/* The CPU's parameters and moments onto the device slabs again (the next batch starts from
 * them; the state stays the device's own commit, which is under test); waits, so nothing
 * queued still reads what the caller frees next. */
static void params_upload(dgnn_cuda *c, const dgnn_params *p, float *dparam, float *dm, float *dv) {
    const size_t bytes = (size_t)p->total * sizeof(float);
    CUDA_OK(dgnn_cuda_upload(c, dparam, p->value, bytes, ERR));
    CUDA_OK(dgnn_cuda_upload(c, dm, p->m, bytes, ERR));
    CUDA_OK(dgnn_cuda_upload(c, dv, p->v, bytes, ERR));
    CUDA_OK(dgnn_cuda_sync(c, ERR));
}

#endif
