/* test_cuda.c: built only with -DDGNN_CUDA=ON. Without a device it checks that opening one
 * is refused with a message (DGNN_EDEVICE), then skips (77). With one: the device saxpy
 * against the CPU, buffers and copies, and dgnn_cuda_gemm against nn.h's dgnn_gemm (the CPU
 * reference) for every transpose pair on awkward shapes: one row, sizes that are not
 * multiples of 32, K = 0, leading dimensions wider than the rows, beta 0 and 1. */
#include "check.h"
#include "dgnn/cuda.h"
#include "dgnn/nn.h"

static void test_refusal(int ndev) {
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

static void test_saxpy(void) {
    enum { N = 100003 };
    static float x[N], y[N], ref[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f, y[i] = ref[i] = (float)(i % 7);
    for (int i = 0; i < N; i++) ref[i] = 2.0f * x[i] + ref[i];
    CHECK(dgnn_cuda_saxpy(2.0f, x, y, N) == 0);
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= y[i] == ref[i];
    CHECK(ok);
}

/* One product on the device against dgnn_gemm; relative error bounded by K eps-scale
 * terms of sum |a||b| (the two sum in other orders). */
static void gemm_case(dgnn_cuda *c, int ta, int tb, int64_t M, int64_t N, int64_t K, int pad, float beta,
                      uint64_t seed) {
    const int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    const int64_t lda = ac + pad, ldb = bc + pad, ldc = N + pad;
    const size_t na = (size_t)(ar * lda), nb = (size_t)(br * ldb), nc = (size_t)(M * ldc);
    float *A = malloc((na + 1) * sizeof(float)), *B = malloc((nb + 1) * sizeof(float));
    float *C = malloc((nc + 1) * sizeof(float)), *ref = malloc((nc + 1) * sizeof(float));
    
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    dgnn_init_uniform(A, (int64_t)na, -1.0f, 1.0f, &r);
    dgnn_init_uniform(B, (int64_t)nb, -1.0f, 1.0f, &r);
    dgnn_init_uniform(ref, (int64_t)nc, -1.0f, 1.0f, &r);
    memcpy(C, ref, nc * sizeof(float));
    dgnn_gemm(ta, tb, M, N, K, A, lda, B, ldb, beta, ref, ldc);
    dgnn_err err;
    dgnn_err_clear(&err);
    float *dA, *dB, *dC;
    int rc = dgnn_cuda_alloc(c, (void **)&dA, na * sizeof(float), "A", &err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&dB, nb * sizeof(float), "B", &err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&dC, nc * sizeof(float), "C", &err);
    if (!rc) rc = dgnn_cuda_upload(c, dA, A, na * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_upload(c, dB, B, nb * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_upload(c, dC, C, nc * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_gemm(c, ta, tb, M, N, K, dA, lda, dB, ldb, beta, dC, ldc, &err);
    if (!rc) rc = dgnn_cuda_download(c, C, dC, nc * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_sync(c, &err);
    CHECK_MSG(rc == DGNN_OK, "%s", err.msg);
    int bad = 0;
    for (int64_t i = 0; i < M && !rc; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++) {
                const float a = ta ? A[k * lda + i] : A[i * lda + k], b = tb ? B[j * ldb + k] : B[k * ldb + j];
                s += fabs((double)a * b);
            }
            const double tol = 4e-7 * (double)(K + 2) * (s + 1.0);
            if (fabs((double)C[i * ldc + j] - ref[i * ldc + j]) > tol) bad++;
        }
    CHECK_MSG(bad == 0, "gemm ta %d tb %d M %lld N %lld K %lld pad %d beta %g: %d entries off", ta, tb, (long long)M,
              (long long)N, (long long)K, pad, beta, bad);
    dgnn_cuda_release(c, dA);
    dgnn_cuda_release(c, dB);
    dgnn_cuda_release(c, dC);
    free(A), free(B), free(C), free(ref);
}

static void test_gemm(dgnn_cuda *c) {
    static const int64_t shapes[][3] = {{1, 1, 1}, {1, 33, 7}, {31, 1, 65}, {65, 17, 0}, {200, 172, 344}, {3, 100, 600}};
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                gemm_case(c, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], 0, 0.0f, seed++);
                gemm_case(c, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], 3, 1.0f, seed++);
            }
}

int main(void) {
    int n = dgnn_cuda_device_count();
    test_refusal(n);
    if (n == 0) {
        printf("skip: no CUDA device (the refusal to open one was checked: %d passed, %d failed)\n", check_pass_,
               check_fail_);
        return check_fail_ ? 1 : 77;
    }
    char name[256];
    CHECK(dgnn_cuda_device_name(0, name, sizeof name) == 0);
    printf("device 0: %s (%d devices)\n", name, n);
    test_saxpy();
    dgnn_cuda *c = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_cuda_init(&c, 0, &err) == DGNN_OK, "%s", err.msg);
    if (c) {
        size_t used = 0, total = 0;
        CHECK(dgnn_cuda_mem_info(c, &used, &total, &err) == DGNN_OK && total > 0);
        test_gemm(c);
        dgnn_cuda_free(c);
    }
    return check_done();
}
