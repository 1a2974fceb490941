/* params.c: the parameter slab and its per-tensor initialisers. Semantics in params.h. */
#include "dgnn/params.h"

#include "dgnn/nn.h" /* the array initialisers */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN_FLOATS 16 /* 64 bytes: one cache line, one AVX-512 vector */

void dgnn_params_init(dgnn_params *p) { memset(p, 0, sizeof *p); }

void dgnn_params_free(dgnn_params *p) {
    free(p->t);
    free(p->value);
    free(p->grad);
    free(p->m);
    free(p->v);
    dgnn_params_init(p);
}

int dgnn_params_add3(dgnn_params *p, const char *name, int64_t d0, int64_t d1, int64_t d2) {
    DGNN_ASSERT(p->value == NULL); /* declare everything before dgnn_params_alloc */
    DGNN_ASSERT(name != NULL && name[0] != '\0' && strlen(name) < DGNN_PARAM_NAME_MAX);
    DGNN_ASSERT(d0 >= 0 && d1 >= 0 && d2 >= 0);
    DGNN_ASSERT(dgnn_params_find(p, name) < 0);
    if (p->ntensors == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->t = dgnn_xrealloc(p->t, (size_t)p->cap * sizeof *p->t);
    }
    dgnn_tensor_info *t = &p->t[p->ntensors];
    memset(t, 0, sizeof *t);
    strcpy(t->name, name);
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->shape[2] = d2;
    t->ndim = 3;
    /* saturating (base.h): sizes from user settings (a dim of 2^40) overflowed int64_t
     * and wrapped to a small slab; a saturated total fails dgnn_params_alloc with a message */
    t->count = dgnn_size_mul(dgnn_size_mul(d0, d1), d2);
    t->offset = p->total;
    const int64_t padded = t->count > INT64_MAX - ALIGN_FLOATS ? INT64_MAX
                                                                : (t->count + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    p->total = dgnn_size_add(p->total, padded);
    p->nparams = dgnn_size_add(p->nparams, t->count);
    return p->ntensors++;
}

int dgnn_params_add(dgnn_params *p, const char *name, int64_t d0, int64_t d1) {
    int i = dgnn_params_add3(p, name, d0, d1, 1);
    p->t[i].ndim = 2;
    return i;
}

int dgnn_params_add1(dgnn_params *p, const char *name, int64_t d0) {
    int i = dgnn_params_add3(p, name, d0, 1, 1);
    p->t[i].ndim = 1;
    return i;
}

static float *alloc_slab(int64_t total) {
    size_t bytes = (size_t)(total > 0 ? total : ALIGN_FLOATS) * sizeof(float); /* a multiple of 64 */
    float *x = aligned_alloc(64, bytes);
    if (x) memset(x, 0, bytes);
    return x;
}

int dgnn_params_alloc(dgnn_params *p, dgnn_err *err) {
    DGNN_ASSERT(p->value == NULL);
    /* the four slabs are zeroed (touched) one after the other: asked for as one sum, so
     * that a size past the machine is told here rather than by the OOM killer */
    int rc = dgnn_mem_check(dgnn_size_mul(dgnn_size_mul(4, p->total), (int64_t)sizeof(float)), err,
                            "parameters: 4 slabs (values, gradients, Adam's two moments) of %lld floats",
                            (long long)p->total);
    if (rc) return rc;
    p->value = alloc_slab(p->total);
    p->grad = alloc_slab(p->total);
    p->m = alloc_slab(p->total);
    p->v = alloc_slab(p->total);
    if (!p->value || !p->grad || !p->m || !p->v) {
        free(p->value), free(p->grad), free(p->m), free(p->v);
        p->value = p->grad = p->m = p->v = NULL;
        return dgnn_err_set(err, DGNN_ENOMEM, "parameters: out of memory for 4 slabs of %lld floats (%.1f MiB each)",
                            (long long)p->total, (double)p->total * 4.0 / 1048576.0);
    }
    return DGNN_OK;
}

float *dgnn_params_get(const dgnn_params *p, int idx) {
    DGNN_ASSERT(p->value != NULL && idx >= 0 && idx < p->ntensors);
    return p->value + p->t[idx].offset;
}

float *dgnn_params_grad(const dgnn_params *p, int idx) {
    DGNN_ASSERT(p->grad != NULL && idx >= 0 && idx < p->ntensors);
    return p->grad + p->t[idx].offset;
}

int64_t dgnn_params_numel(const dgnn_params *p, int idx) {
    DGNN_ASSERT(idx >= 0 && idx < p->ntensors);
    return p->t[idx].count;
}

int dgnn_params_find(const dgnn_params *p, const char *name) {
    for (int i = 0; i < p->ntensors; i++)
        if (strcmp(p->t[i].name, name) == 0) return i;
    return -1;
}

int64_t dgnn_params_count(const dgnn_params *p) { return p->nparams; }

void dgnn_params_zero_grad(dgnn_params *p) {
    if (!p->grad) return;
    /* every step clears the slab (4 MB for TGN's preset): in parallel blocks */
    const int64_t BLK = 65536, n = p->total;
#pragma omp parallel for if (n > 4 * BLK)
    for (int64_t i0 = 0; i0 < n; i0 += BLK)
        memset(p->grad + i0, 0, (size_t)(i0 + BLK < n ? BLK : n - i0) * sizeof(float));
}

uint64_t dgnn_params_layout_hash(const dgnn_params *p) {
    /* FNV-1a over the bytes of each name, then each dim mixed through splitmix: a layout
     * change anywhere (order, name, shape) changes the hash. */
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < p->ntensors; i++) {
        for (const unsigned char *c = (const unsigned char *)p->t[i].name; *c; c++) h = (h ^ *c) * 1099511628211ULL;
        h = dgnn_hash64(h ^ (uint64_t)p->t[i].ndim);
        for (int d = 0; d < 3; d++) h = dgnn_hash64(h ^ (uint64_t)p->t[i].shape[d]);
        h = dgnn_hash64(h ^ (uint64_t)p->t[i].offset);
    }
    return dgnn_hash64(h ^ (uint64_t)p->total);
}

void dgnn_params_print(const dgnn_params *p, FILE *f) {
    for (int i = 0; i < p->ntensors; i++) {
        const dgnn_tensor_info *t = &p->t[i];
        char shape[96];
        if (t->ndim == 1) snprintf(shape, sizeof shape, "(%lld)", (long long)t->shape[0]);
        else if (t->ndim == 2) snprintf(shape, sizeof shape, "(%lld, %lld)", (long long)t->shape[0], (long long)t->shape[1]);
        else snprintf(shape, sizeof shape, "(%lld, %lld, %lld)", (long long)t->shape[0], (long long)t->shape[1],
                      (long long)t->shape[2]);
        fprintf(f, "  %-32s %-20s %12lld\n", t->name, shape, (long long)t->count);
    }
    char buf[32];
    fprintf(f, "  %d tensors, %s parameters\n", p->ntensors, dgnn_fmt_count(buf, sizeof buf, p->nparams));
}

/* ---- initialisers ---- */

void dgnn_params_init_constant(dgnn_params *p, int idx, float c) {
    dgnn_init_const(dgnn_params_get(p, idx), dgnn_params_numel(p, idx), c);
}

void dgnn_params_init_uniform(dgnn_params *p, int idx, float lo, float hi, dgnn_rng *r) {
    dgnn_init_uniform(dgnn_params_get(p, idx), dgnn_params_numel(p, idx), lo, hi, r);
}

void dgnn_params_init_normal(dgnn_params *p, int idx, float mean, float std, dgnn_rng *r) {
    dgnn_init_normal(dgnn_params_get(p, idx), dgnn_params_numel(p, idx), mean, std, r);
}

/* torch's _calculate_fan_in_and_fan_out for a (Dout, Din[, k]) weight */
static void fans(const dgnn_params *p, int idx, double *fan_in, double *fan_out) {
    const dgnn_tensor_info *t = &p->t[idx];
    DGNN_ASSERT(t->ndim >= 2); /* torch: "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions" */
    double k = t->ndim == 3 ? (double)t->shape[2] : 1.0;
    *fan_in = (double)t->shape[1] * k;
    *fan_out = (double)t->shape[0] * k;
}

void dgnn_params_init_xavier_uniform(dgnn_params *p, int idx, float gain, dgnn_rng *r) {
    double fi, fo;
    fans(p, idx, &fi, &fo);
    if (fi + fo == 0) return; /* an empty tensor */
    float a = (float)((double)gain * sqrt(6.0 / (fi + fo)));
    dgnn_params_init_uniform(p, idx, -a, a, r);
}

void dgnn_params_init_xavier_normal(dgnn_params *p, int idx, float gain, dgnn_rng *r) {
    double fi, fo;
    fans(p, idx, &fi, &fo);
    if (fi + fo == 0) return;
    dgnn_params_init_normal(p, idx, 0.0f, (float)((double)gain * sqrt(2.0 / (fi + fo))), r);
}

void dgnn_params_init_torch_linear(dgnn_params *p, int idx, int64_t fan_in, dgnn_rng *r) {
    DGNN_ASSERT(fan_in >= 0);
    if (fan_in == 0) {
        dgnn_params_init_constant(p, idx, 0.0f);
        return;
    }
    float b = (float)(1.0 / sqrt((double)fan_in));
    dgnn_params_init_uniform(p, idx, -b, b, r);
}
