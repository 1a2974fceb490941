/* cuda_check.h: what the tests/cuda programs share: the refusal check and skip without a
 * device, random host arrays, device copies of them, and the comparison of a device
 * array with its CPU reference within a relative tolerance (never exact float equality:
 * the GPU sums in other orders). Built only with -DDGNN_CUDA=ON. */
#ifndef DGNN_TEST_CUDA_CHECK_H
#define DGNN_TEST_CUDA_CHECK_H

#include "check.h"
#include "dgnn/cuda.h"
#include "dgnn/nn.h"

/* Opening a device that is not there is refused with DGNN_EDEVICE and a message. */
static inline void cuda_check_refusal(int ndev) {
    dgnn_cuda *c = (dgnn_cuda *)1;
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_init(&c, ndev, &err) == DGNN_EDEVICE); /* one past the last device */
    CHECK(c == NULL);
    CHECK(strstr(err.msg, "--device cuda:") != NULL);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_init(&c, -1, &err) == DGNN_EDEVICE);
    dgnn_cuda_free(NULL);
}

/* Device 0's context; without a device, the refusal is checked and the program exits 77
 * (skipped), or 1 if the refusal check failed. */
static inline dgnn_cuda *cuda_check_open(const char *prog) {
    const int n = dgnn_cuda_device_count();
    cuda_check_refusal(n);
    if (n == 0) {
        printf("skip: %s: no CUDA device (the refusal to open one was checked: %d passed, %d failed)\n", prog,
               check_pass_, check_fail_);
        exit(check_fail_ ? 1 : 77);
    }
    char name[256];
    CHECK(dgnn_cuda_device_name(0, name, sizeof name) == 0);
    printf("%s: device 0: %s (%d devices)\n", prog, name, n);
    dgnn_cuda *c = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_cuda_init(&c, 0, &err) == DGNN_OK, "%s", err.msg);
    if (!c) exit(check_done());
    return c;
}

/* host array of n uniform values in [lo, hi) (one spare element: n may be 0) */
static inline float *rnd(int64_t n, float lo, float hi, dgnn_rng *r) {
    float *x = malloc((size_t)(n + 1) * sizeof(float));
    dgnn_init_uniform(x, n, lo, hi, r);
    return x;
}

/* a device copy of bytes of host x (NULL for 0 bytes) */
static inline void *upb(dgnn_cuda *c, const void *x, size_t bytes) {
    dgnn_err err;
    dgnn_err_clear(&err);
    void *d = NULL;
    int rc = dgnn_cuda_alloc(c, &d, bytes, "a test array", &err);
    if (!rc) rc = dgnn_cuda_upload(c, d, x, bytes, &err);
    CHECK_MSG(rc == DGNN_OK, "%s", err.msg);
    return d;
}
static inline float *up(dgnn_cuda *c, const float *x, int64_t n) { return upb(c, x, (size_t)n * sizeof(float)); }
/* a device array of bytes, every byte 0xFF (a NaN in every float and double, -1 in every
 * int32): the start of an array an op must write whole, so that an element it leaves
 * unwritten fails the comparison instead of passing on what was there (never upload the
 * CPU's answer as the device output's starting value) */
static inline void *upnan(dgnn_cuda *c, size_t bytes) {
    unsigned char *h = malloc(bytes + 1);
    memset(h, 0xFF, bytes + 1);
    void *d = upb(c, h, bytes);
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_cuda_sync(c, &err) == DGNN_OK, "%s", err.msg); /* h is freed next */
    free(h);
    return d;
}

/* device array d (bytes) into host h, waiting for the stream */
static inline void down(dgnn_cuda *c, void *h, const void *d, size_t bytes, const char *what) {
    dgnn_err err;
    dgnn_err_clear(&err);
    int rc = dgnn_cuda_download(c, h, d, bytes, &err);
    if (!rc) rc = dgnn_cuda_sync(c, &err);
    CHECK_MSG(rc == DGNN_OK, "%s: %s", what, err.msg);
}

/* host h against host ref (n values) within tol (1 + |ref|) */
static inline void near_ref(const char *what, const float *h, const float *ref, int64_t n, double tol) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)h[i] - ref[i]) <= tol * (1.0 + fabs((double)ref[i])))) bad++, first = first < 0 ? i : first;
    CHECK_MSG(bad == 0, "%s: %lld of %lld off (first %lld: %g vs %g)", what, (long long)bad, (long long)n,
              (long long)first, first >= 0 ? h[first] : 0.0, first >= 0 ? ref[first] : 0.0);
}

/* device d (n floats) against host ref within tol (1 + |ref|); keeps d */
static inline void same_keep(dgnn_cuda *c, const char *what, const float *d, const float *ref, int64_t n, double tol) {
    float *h = malloc((size_t)(n + 1) * sizeof(float));
    down(c, h, d, (size_t)n * sizeof(float), what);
    near_ref(what, h, ref, n, tol);
    free(h);
}
/* the same, then frees d */
static inline void same(dgnn_cuda *c, const char *what, float *d, const float *ref, int64_t n, double tol) {
    same_keep(c, what, d, ref, n, tol);
    dgnn_cuda_release(c, d);
}

/* device doubles d (n) against host ref within tol (1 + |ref|); frees d */
static inline void same_f64(dgnn_cuda *c, const char *what, double *d, const double *ref, int64_t n, double tol) {
    double *h = malloc((size_t)(n + 1) * sizeof(double));
    down(c, h, d, (size_t)n * sizeof(double), what);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += !(fabs(h[i] - ref[i]) <= tol * (1.0 + fabs(ref[i])));
    CHECK_MSG(bad == 0, "%s: %lld of %lld off", what, (long long)bad, (long long)n);
    free(h);
    dgnn_cuda_release(c, d);
}

/* device ints d (n) against host ref, exactly (they are counts and positions); frees d */
static inline void same_i32(dgnn_cuda *c, const char *what, int32_t *d, const int32_t *ref, int64_t n) {
    int32_t *h = malloc((size_t)(n + 1) * sizeof(int32_t));
    down(c, h, d, (size_t)n * sizeof(int32_t), what);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += h[i] != ref[i];
    CHECK_MSG(bad == 0, "%s: %lld of %lld differ", what, (long long)bad, (long long)n);
    free(h);
    dgnn_cuda_release(c, d);
}

/* An op run through CUDA_OK must return DGNN_OK; ERR is the error it fills. */
static dgnn_err cuda_err_ __attribute__((unused)); /* test_cuda.c does not use CUDA_OK */
#define ERR (&cuda_err_)
#define CUDA_OK(call)                                                         \
    do {                                                                      \
        dgnn_err_clear(ERR);                                                  \
        const int rc_ = (call);                                               \
        CHECK_MSG(rc_ == DGNN_OK, "%s: %s", #call, cuda_err_.msg);            \
    } while (0)

/* frees the n device pointers (NULL ones too) */
static inline void release_all(dgnn_cuda *c, void **d, int n) {
    for (int i = 0; i < n; i++) dgnn_cuda_release(c, d[i]);
}
#define RELEASE(c, ...)                                                       \
    do {                                                                      \
        void *rel_[] = {__VA_ARGS__};                                         \
        release_all((c), rel_, (int)(sizeof rel_ / sizeof rel_[0]));          \
    } while (0)
#define FREE(...)                                                             \
    do {                                                                      \
        void *fr_[] = {__VA_ARGS__};                                          \
        for (size_t i_ = 0; i_ < sizeof fr_ / sizeof fr_[0]; i_++) free(fr_[i_]); \
    } while (0)

#endif
