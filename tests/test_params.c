/* test_params.c: the parameter slab (layout, alignment, zeroing, lookup, layout hash)
 * and the initialisers (bounds, moments, determinism). */
#include "check.h"
#include "dgnn/params.h"

#include <math.h>
#include <stdint.h>

static void test_layout(void) {
    dgnn_params p;
    dgnn_params_init(&p);
    int a = dgnn_params_add(&p, "gru.W_ih", 3, 5);   /* 15 floats -> padded to 16 */
    int b = dgnn_params_add1(&p, "gru.b_ih", 7);     /* vector of 7 -> 16 */
    int c = dgnn_params_add3(&p, "conv", 2, 3, 4);   /* 24 -> 32 */
    int d = dgnn_params_add(&p, "empty", 0, 8);      /* 0 floats: no room taken */
    int e = dgnn_params_add1(&p, "last", 16);        /* exactly 16 */
    int f0 = dgnn_params_add(&p, "W_edge", 16, 0);   /* (H, 0): absent edge features */
    CHECK(a == 0 && b == 1 && c == 2 && d == 3 && e == 4 && f0 == 5);
    CHECK(p.t[f0].ndim == 2 && p.t[f0].count == 0 && p.t[f0].shape[0] == 16 && p.t[f0].shape[1] == 0);
    CHECK(p.t[a].ndim == 2 && p.t[a].shape[0] == 3 && p.t[a].shape[1] == 5 && p.t[a].shape[2] == 1);
    CHECK(p.t[b].ndim == 1 && p.t[b].shape[0] == 7 && p.t[b].shape[1] == 1);
    CHECK(p.t[c].ndim == 3 && p.t[c].count == 24);
    CHECK(p.t[a].offset == 0 && p.t[b].offset == 16 && p.t[c].offset == 32 && p.t[d].offset == 64 &&
          p.t[e].offset == 64 && p.t[f0].offset == 80);
    CHECK(p.total == 80);
    CHECK(dgnn_params_count(&p) == 15 + 7 + 24 + 0 + 16);
    CHECK(dgnn_params_find(&p, "conv") == c && dgnn_params_find(&p, "nope") == -1);

    dgnn_err err;
    CHECK(dgnn_params_alloc(&p, &err) == 0);
    float *slabs[4] = {p.value, p.grad, p.m, p.v};
    int zero = 1, aligned = 1;
    for (int s = 0; s < 4; s++) {
        aligned &= ((uintptr_t)slabs[s] % 64) == 0;
        for (int64_t i = 0; i < p.total; i++) zero &= slabs[s][i] == 0.0f;
    }
    CHECK(aligned);
    CHECK(zero);
    for (int i = 0; i < p.ntensors; i++) {
        CHECK(((uintptr_t)dgnn_params_get(&p, i) % 64) == 0);
        CHECK(dgnn_params_get(&p, i) == p.value + p.t[i].offset);
        CHECK(dgnn_params_grad(&p, i) == p.grad + p.t[i].offset);
        CHECK(dgnn_params_numel(&p, i) == p.t[i].count);
    }
    for (int64_t i = 0; i < p.total; i++) p.grad[i] = 1.0f;
    dgnn_params_zero_grad(&p);
    int gz = 1;
    for (int64_t i = 0; i < p.total; i++) gz &= p.grad[i] == 0.0f;
    CHECK(gz);

    FILE *f = tmpfile();
    dgnn_params_print(&p, f);
    rewind(f);
    char buf[2048];
    size_t nr = fread(buf, 1, sizeof buf - 1, f);
    buf[nr] = 0;
    fclose(f);
    CHECK(strstr(buf, "gru.W_ih") && strstr(buf, "(3, 5)") && strstr(buf, "(2, 3, 4)") && strstr(buf, "62 parameters"));

    /* the layout hash: equal for the same declarations, different for any change */
    uint64_t h = dgnn_params_layout_hash(&p);
    dgnn_params q;
    dgnn_params_init(&q);
    dgnn_params_add(&q, "gru.W_ih", 3, 5);
    dgnn_params_add1(&q, "gru.b_ih", 7);
    dgnn_params_add3(&q, "conv", 2, 3, 4);
    dgnn_params_add(&q, "empty", 0, 8);
    dgnn_params_add1(&q, "last", 16);
    dgnn_params_add(&q, "W_edge", 16, 0);
    CHECK(dgnn_params_layout_hash(&q) == h);
    dgnn_params_free(&q);
    dgnn_params_init(&q);
    dgnn_params_add(&q, "gru.W_ih", 5, 3); /* transposed */
    dgnn_params_add1(&q, "gru.b_ih", 7);
    dgnn_params_add3(&q, "conv", 2, 3, 4);
    dgnn_params_add(&q, "empty", 0, 8);
    dgnn_params_add1(&q, "last", 16);
    CHECK(dgnn_params_layout_hash(&q) != h);
    dgnn_params_free(&q);
    dgnn_params_init(&q);
    dgnn_params_add(&q, "gru.W_hh", 3, 5); /* renamed */
    dgnn_params_add1(&q, "gru.b_ih", 7);
    dgnn_params_add3(&q, "conv", 2, 3, 4);
    dgnn_params_add(&q, "empty", 0, 8);
    dgnn_params_add1(&q, "last", 16);
    CHECK(dgnn_params_layout_hash(&q) != h);
    dgnn_params_free(&q);

    dgnn_params_free(&p);
    CHECK(p.value == NULL && p.ntensors == 0 && p.total == 0);

    /* a model with no parameters still allocates (and frees) cleanly */
    dgnn_params_init(&q);
    CHECK(dgnn_params_alloc(&q, &err) == 0 && q.total == 0);
    dgnn_params_free(&q);
}

/* many tensors: the table grows */
static void test_many(void) {
    dgnn_params p;
    dgnn_params_init(&p);
    char name[32];
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "layer%d.w", i);
        CHECK(dgnn_params_add1(&p, name, i + 1) == i);
    }
    dgnn_err err;
    CHECK(dgnn_params_alloc(&p, &err) == 0);
    CHECK(dgnn_params_find(&p, "layer57.w") == 57);
    CHECK(dgnn_params_numel(&p, 57) == 58);
    int64_t sum = 0;
    for (int i = 0; i < 100; i++) sum += i + 1;
    CHECK(dgnn_params_count(&p) == sum);
    dgnn_params_free(&p);
}

static void moments(const float *x, int64_t n, double *mean, double *var, float *lo, float *hi) {
    double s = 0, s2 = 0;
    *lo = INFINITY, *hi = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        s += x[i];
        s2 += (double)x[i] * x[i];
        if (x[i] < *lo) *lo = x[i];
        if (x[i] > *hi) *hi = x[i];
    }
    *mean = s / n;
    *var = s2 / n - *mean * *mean;
}

static void test_init(void) {
    dgnn_params p;
    dgnn_params_init(&p);
    int lin = dgnn_params_add(&p, "lin.W", 500, 100);   /* (Dout, Din): fan_in 100, fan_out 500 */
    int bias = dgnn_params_add1(&p, "lin.b", 500);
    int x3 = dgnn_params_add3(&p, "conv.W", 40, 30, 5); /* fan_in 150, fan_out 200 */
    int big = dgnn_params_add(&p, "big", 400, 500);
    int empty = dgnn_params_add(&p, "empty", 0, 4);
    int tail = dgnn_params_add1(&p, "tail", 1000);
    dgnn_err err;
    CHECK(dgnn_params_alloc(&p, &err) == 0);
    int64_t n = dgnn_params_numel(&p, big);
    float *x = dgnn_params_get(&p, big);
    dgnn_rng r;
    double mean, var;
    float lo, hi;

    /* torch_linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in)): var = b^2 / 3 */
    dgnn_rng_seed(&r, 1);
    dgnn_params_init_torch_linear(&p, lin, 100, &r);
    dgnn_params_init_torch_linear(&p, bias, 100, &r);
    moments(dgnn_params_get(&p, lin), 50000, &mean, &var, &lo, &hi);
    CHECK(lo >= -0.1f && hi <= 0.1f && lo < -0.0999f && hi > 0.0999f);
    CHECK_NEAR(mean, 0.0, 2e-3);
    CHECK_NEAR(var, 0.01 / 3, 1e-4);
    moments(dgnn_params_get(&p, bias), 500, &mean, &var, &lo, &hi);
    CHECK(lo >= -0.1f && hi <= 0.1f && hi > 0.09f);
    /* padding after the bias stays 0 */
    CHECK(p.value[p.t[bias].offset + 500] == 0.0f);
    dgnn_params_init_torch_linear(&p, tail, 0, &r);
    CHECK(dgnn_params_get(&p, tail)[0] == 0.0f && dgnn_params_get(&p, tail)[999] == 0.0f);

    /* xavier uniform on (400, 500): a = sqrt(6 / 900) */
    dgnn_rng_seed(&r, 2);
    dgnn_params_init_xavier_uniform(&p, big, 1.0f, &r);
    double a = sqrt(6.0 / 900);
    moments(x, n, &mean, &var, &lo, &hi);
    CHECK(lo >= -(float)a && hi <= (float)a && hi > 0.999 * a);
    CHECK_NEAR(var, a * a / 3, 2e-2 * a * a / 3);
    /* 3-d: fans times the receptive field; gain scales the bound */
    dgnn_params_init_xavier_uniform(&p, x3, 2.0f, &r);
    moments(dgnn_params_get(&p, x3), 6000, &mean, &var, &lo, &hi);
    double a3 = 2 * sqrt(6.0 / 350);
    CHECK(hi <= (float)a3 && hi > 0.99 * a3 && lo >= -(float)a3);
    dgnn_params_init_xavier_uniform(&p, empty, 1.0f, &r); /* no draws, no crash */

    /* xavier normal: std = gain sqrt(2 / (fan_in + fan_out)) */
    dgnn_params_init_xavier_normal(&p, big, 1.0f, &r);
    moments(x, n, &mean, &var, &lo, &hi);
    CHECK_NEAR(var, 2.0 / 900, 0.02 * 2.0 / 900);

    /* normal, uniform, constants */
    dgnn_params_init_normal(&p, big, 3.0f, 0.5f, &r);
    moments(x, n, &mean, &var, &lo, &hi);
    CHECK_NEAR(mean, 3.0, 0.01);
    CHECK_NEAR(var, 0.25, 0.01);
    dgnn_params_init_uniform(&p, big, 2.0f, 5.0f, &r);
    moments(x, n, &mean, &var, &lo, &hi);
    CHECK(lo >= 2.0f && hi <= 5.0f);
    CHECK_NEAR(mean, 3.5, 0.01);
    dgnn_params_init_constant(&p, big, 0.25f);
    CHECK(x[0] == 0.25f && x[n - 1] == 0.25f);
    CHECK(p.value[p.t[big].offset + n] == 0.0f); /* not past the tensor */
    dgnn_params_init_constant(&p, tail, 1.0f);
    CHECK(dgnn_params_get(&p, tail)[999] == 1.0f);

    /* determinism: one seed, one result; another seed, another */
    float *copy = malloc(n * sizeof *copy);
    dgnn_rng_seed(&r, 42);
    dgnn_params_init_torch_linear(&p, big, 7, &r);
    memcpy(copy, x, n * sizeof *copy);
    dgnn_rng_seed(&r, 42);
    dgnn_params_init_torch_linear(&p, big, 7, &r);
    CHECK(memcmp(x, copy, n * sizeof *x) == 0);
    dgnn_rng_seed(&r, 43);
    dgnn_params_init_torch_linear(&p, big, 7, &r);
    CHECK(memcmp(x, copy, n * sizeof *x) != 0);
    free(copy);
    dgnn_params_free(&p);
}

/* sizes from the user's settings saturate (base.h's dgnn_size_mul): d0 * d1 * d2 of 2^40 x
 * 2^40 overflowed int64_t (and wrapped to 0 floats); the slab then fails with a message */
static void test_overflow(void) {
    dgnn_params p;
    dgnn_params_init(&p);
    const int64_t big = (int64_t)1 << 40;
    const int a = dgnn_params_add3(&p, "huge", big, big, 1);
    CHECK_MSG(dgnn_params_numel(&p, a) == INT64_MAX, "count %lld", (long long)dgnn_params_numel(&p, a));
    const int b = dgnn_params_add(&p, "after", 3, 4);
    CHECK(dgnn_params_numel(&p, b) == 12);
    CHECK(p.total == INT64_MAX && dgnn_params_count(&p) == INT64_MAX);
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK(dgnn_params_alloc(&p, &err) == DGNN_ENOMEM && strstr(err.msg, "parameters"));
    dgnn_params_free(&p);
    /* one factor overflowing alone, and three that overflow only together */
    dgnn_params_init(&p);
    CHECK(dgnn_params_numel(&p, dgnn_params_add3(&p, "three", (int64_t)1 << 22, (int64_t)1 << 22, (int64_t)1 << 22)) ==
          INT64_MAX);
    CHECK(dgnn_params_numel(&p, dgnn_params_add1(&p, "one", INT64_MAX)) == INT64_MAX);
    dgnn_params_free(&p);
}

int main(void) {
    test_overflow();
    test_layout();
    test_many();
    test_init();
    return check_done();
}
