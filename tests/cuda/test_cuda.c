/* test_cuda.c: built only with -DDGNN_CUDA=ON. Without a device it checks that opening one
 * is refused with a message (DGNN_EDEVICE), then skips (77). With one: the device saxpy
 * against the CPU, buffers and copies, and dgnn_cuda_gemm against nn.h's dgnn_gemm (the CPU
 * reference) for every transpose pair on awkward shapes: one row, sizes that are not
 * multiples of 32, K = 0, leading dimensions wider than the rows, beta 0 and 1; the GPU's
 * linear layer, GRU cell and time encoding, forward and backward (gradients +=), against
 * the CPU's on awkward and real sizes; a lane's copies ordered against the context's stream. */
#include "cuda_check.h"

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

/* ---- ops against their CPU reference (rnd, up, same: cuda_check.h) ---- */
static void test_linear(dgnn_cuda *c, int64_t B, int64_t Din, int64_t Dout, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *x = rnd(B * Din, -1, 1, &r), *W = rnd(Dout * Din, -1, 1, &r), *b = rnd(Dout, -1, 1, &r);
    float *g = rnd(B * Dout, -1, 1, &r), *dx = rnd(B * Din, -1, 1, &r), *dW = rnd(Dout * Din, -1, 1, &r);
    float *db = rnd(Dout, -1, 1, &r), *out = rnd(B * Dout, -1, 1, &r);
    float *d_x = up(c, x, B * Din), *d_W = up(c, W, Dout * Din), *d_b = up(c, b, Dout), *d_g = up(c, g, B * Dout);
    float *d_dx = up(c, dx, B * Din), *d_dW = up(c, dW, Dout * Din), *d_db = up(c, db, Dout), *d_out = up(c, out, B * Dout);
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_cuda_linear_forward(c, d_out, d_x, d_W, d_b, B, Din, Dout, &err) == DGNN_OK, "%s", err.msg);
    CHECK_MSG(dgnn_cuda_linear_backward(c, d_dx, d_dW, d_db, d_g, d_x, d_W, B, Din, Dout, &err) == DGNN_OK, "%s",
              err.msg);
    dgnn_linear_forward(out, x, W, b, B, Din, Dout);
    dgnn_linear_backward(dx, dW, db, g, x, W, B, Din, Dout);
    const double tol = 1e-6 * (double)(Din + B + Dout);
    same(c, "linear out", d_out, out, B * Dout, tol);
    same(c, "linear dx", d_dx, dx, B * Din, tol);
    same(c, "linear dW", d_dW, dW, Dout * Din, tol);
    same(c, "linear db", d_db, db, Dout, tol);
    dgnn_cuda_release(c, d_x), dgnn_cuda_release(c, d_W), dgnn_cuda_release(c, d_b), dgnn_cuda_release(c, d_g);
    free(x), free(W), free(b), free(g), free(dx), free(dW), free(db), free(out);
}

static void test_gru(dgnn_cuda *c, int64_t B, int64_t Din, int64_t H, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    const int64_t G = 3 * H;
    float *x = rnd(B * Din, -1, 1, &r), *h = rnd(B * H, -1, 1, &r), *Wi = rnd(G * Din, -0.3f, 0.3f, &r);
    float *Wh = rnd(G * H, -0.3f, 0.3f, &r), *bi = rnd(G, -0.3f, 0.3f, &r), *bh = rnd(G, -0.3f, 0.3f, &r);
    float *g = rnd(B * H, -1, 1, &r), *dx = rnd(B * Din, -1, 1, &r), *dh = rnd(B * H, -1, 1, &r);
    float *dWi = rnd(G * Din, -1, 1, &r), *dWh = rnd(G * H, -1, 1, &r), *dbi = rnd(G, -1, 1, &r), *dbh = rnd(G, -1, 1, &r);
    float *hout = rnd(B * H, 0, 0, &r), *saved = rnd(B * 6 * H, 0, 0, &r), *scratch = rnd(B * 6 * H, 0, 0, &r);
    float *d_x = up(c, x, B * Din), *d_h = up(c, h, B * H), *d_Wi = up(c, Wi, G * Din), *d_Wh = up(c, Wh, G * H);
    float *d_bi = up(c, bi, G), *d_bh = up(c, bh, G), *d_g = up(c, g, B * H), *d_dx = up(c, dx, B * Din);
    float *d_dh = up(c, dh, B * H), *d_dWi = up(c, dWi, G * Din), *d_dWh = up(c, dWh, G * H), *d_dbi = up(c, dbi, G);
    float *d_dbh = up(c, dbh, G), *d_hout = up(c, hout, B * H), *d_saved = up(c, saved, B * 6 * H);
    float *d_scratch = up(c, scratch, B * 6 * H);
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_cuda_gru_forward(c, d_hout, d_saved, d_x, d_h, d_Wi, d_Wh, d_bi, d_bh, B, Din, H, &err) == DGNN_OK,
              "%s", err.msg);
    CHECK_MSG(dgnn_cuda_gru_backward(c, d_dx, d_dh, d_dWi, d_dWh, d_dbi, d_dbh, d_scratch, d_g, d_saved, d_x, d_h, d_Wi,
                                     d_Wh, B, Din, H, &err) == DGNN_OK,
              "%s", err.msg);
    dgnn_gru_forward(hout, saved, x, h, Wi, Wh, bi, bh, B, Din, H);
    dgnn_gru_backward(dx, dh, dWi, dWh, dbi, dbh, scratch, g, saved, x, h, Wi, Wh, B, Din, H);
    const double tol = 1e-6 * (double)(Din + B + H);
    same(c, "gru hout", d_hout, hout, B * H, tol);
    same(c, "gru saved", d_saved, saved, B * 6 * H, tol);
    same(c, "gru dx", d_dx, dx, B * Din, tol);
    same(c, "gru dh", d_dh, dh, B * H, tol);
    same(c, "gru dW_ih", d_dWi, dWi, G * Din, tol);
    same(c, "gru dW_hh", d_dWh, dWh, G * H, tol);
    same(c, "gru db_ih", d_dbi, dbi, G, tol);
    same(c, "gru db_hh", d_dbh, dbh, G, tol);
    float *keep[] = {d_x, d_h, d_Wi, d_Wh, d_bi, d_bh, d_g, d_scratch};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) dgnn_cuda_release(c, keep[i]);
    float *hk[] = {x, h, Wi, Wh, bi, bh, g, dx, dh, dWi, dWh, dbi, dbh, hout, saved, scratch};
    for (size_t i = 0; i < sizeof hk / sizeof hk[0]; i++) free(hk[i]);
}

static void test_timeenc(dgnn_cuda *c, int64_t N, int64_t d, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *dt = rnd(N, 0, 1e7f, &r), *w = malloc((size_t)(d + 1) * sizeof(float)), *b = rnd(d, -1, 1, &r);
    dgnn_timeenc_init(w, NULL, d);
    float *g = rnd(N * d, -1, 1, &r), *dw = rnd(d, -1, 1, &r), *db = rnd(d, -1, 1, &r), *out = rnd(N * d, 0, 0, &r);
    float *d_dt = up(c, dt, N), *d_w = up(c, w, d), *d_b = up(c, b, d), *d_g = up(c, g, N * d), *d_dw = up(c, dw, d);
    float *d_db = up(c, db, d), *d_out = up(c, out, N * d);
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK_MSG(dgnn_cuda_timeenc_forward(c, d_out, d_dt, d_w, d_b, N, d, &err) == DGNN_OK, "%s", err.msg);
    CHECK_MSG(dgnn_cuda_timeenc_backward(c, d_dw, d_db, d_g, d_dt, d_w, d_b, N, d, &err) == DGNN_OK, "%s", err.msg);
    dgnn_timeenc_forward(out, dt, w, b, N, d);
    /* dw sums N terms of dout sin(.) dt, dt up to 1e7: large sums, compared relatively */
    dgnn_timeenc_backward(dw, db, g, dt, w, b, N, d);
    same(c, "timeenc out", d_out, out, N * d, 1e-5);
    /* dw: the CPU rounds each sin to float (sin_fast) before it multiplies it by dt, the
     * GPU keeps it in double, so term i may differ by 2^-24 |dout_ij| dt_i with dt up to
     * 1e7; a column whose sum cancels to a small value then differs by more than 1e-5 of
     * itself (seed 32: one column at 1.2e-5 with a double sin in place of the GPU's). So
     * each column's tolerance adds 2^-23 sum_i |dout_ij| dt_i (about 2.5e-6 of a typical
     * column's sum) to the relative 1e-5. */
    {
        float *h = malloc((size_t)(d + 1) * sizeof(float));
        down(c, h, d_dw, (size_t)d * sizeof(float), "timeenc dw");
        int64_t bad = 0;
        for (int64_t j = 0; j < d; j++) {
            double bound = 0;
            for (int64_t i = 0; i < N; i++) bound += fabs((double)g[i * d + j]) * dt[i];
            bound = 1e-5 * (1.0 + fabs((double)dw[j])) + 0x1p-23 * bound;
            bad += !(fabs((double)h[j] - dw[j]) <= bound);
        }
        CHECK_MSG(bad == 0, "timeenc dw: %lld of %lld off", (long long)bad, (long long)d);
        free(h);
        dgnn_cuda_release(c, d_dw);
    }
    same(c, "timeenc db", d_db, db, d, 1e-5);
    dgnn_cuda_release(c, d_dt), dgnn_cuda_release(c, d_w), dgnn_cuda_release(c, d_b), dgnn_cuda_release(c, d_g);
    free(dt), free(w), free(b), free(g), free(dw), free(db), free(out);
}

/* A lane (cuda.h) against the context's stream: what the lane copies after
 * dgnn_cuda_lane_wait_main is what the context's stream wrote before it, though that stream
 * is still busy with products when the lane's copy is enqueued; what the context's stream
 * reads after dgnn_cuda_main_wait_lane is what the lane uploaded. */
static void test_lane(dgnn_cuda *c) {
    enum { N = 1 << 20, G = 2048 };
    dgnn_err err;
    dgnn_err_clear(&err);
    float *want = malloc(N * sizeof(float)), *got = NULL, *back = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) want[i] = (float)(i % 1000) + 0.25f;
    float *dP = NULL, *dX = NULL, *dA = NULL, *dC = NULL;
    dgnn_cuda_lane *l = NULL;
    int rc = dgnn_cuda_lane_init(c, &l, &err);
    if (!rc) rc = dgnn_cuda_host_alloc(c, (void **)&got, N * sizeof(float), "the lane's copy", &err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&dP, N * sizeof(float), "P", &err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&dX, N * sizeof(float), "X", &err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&dA, (size_t)G * G * sizeof(float), "A", &err);
    if (!rc) rc = dgnn_cuda_alloc(c, (void **)&dC, (size_t)G * G * sizeof(float), "C", &err);
    if (!rc) rc = dgnn_cuda_zero(c, dX, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_zero(c, dA, (size_t)G * G * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_upload(c, dP, want, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_sync(c, &err);
    /* the context's stream busy (products), then X written last */
    for (int k = 0; k < 8 && !rc; k++) rc = dgnn_cuda_gemm(c, 0, 0, G, G, G, dA, G, dA, G, 0.0f, dC, G, &err);
    if (!rc) rc = dgnn_cuda_copy(c, dX, dP, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_lane_wait_main(l, &err);
    if (!rc) rc = dgnn_cuda_lane_download(l, got, dX, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_lane_sync(l, &err);
    CHECK_MSG(rc == DGNN_OK, "%s", err.msg);
    CHECK_MSG(rc || memcmp(got, want, N * sizeof(float)) == 0, "the lane copied X before the stream had written it");
    /* the other way: the lane uploads into P, the stream copies P into X after waiting */
    for (int i = 0; i < N && !rc; i++) got[i] = -want[i];
    if (!rc) rc = dgnn_cuda_lane_upload(l, dP, got, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_main_wait_lane(l, &err);
    if (!rc) rc = dgnn_cuda_copy(c, dX, dP, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_download(c, back, dX, N * sizeof(float), &err);
    if (!rc) rc = dgnn_cuda_sync(c, &err);
    CHECK_MSG(rc == DGNN_OK, "%s", err.msg);
    int ok = 1;
    for (int i = 0; i < N && !rc; i++) ok &= back[i] == -want[i];
    CHECK_MSG(rc || ok, "the stream read P before the lane had uploaded it");
    dgnn_cuda_lane_free(l);
    dgnn_cuda_release(c, dP), dgnn_cuda_release(c, dX), dgnn_cuda_release(c, dA), dgnn_cuda_release(c, dC);
    dgnn_cuda_host_free(c, got);
    free(want), free(back);
}

static void test_ops(dgnn_cuda *c) {
    test_linear(c, 1, 7, 3, 11);
    test_linear(c, 33, 65, 17, 12);
    test_linear(c, 200, 172, 100, 13);
    test_gru(c, 1, 5, 3, 21);
    test_gru(c, 37, 272, 100, 22);
    test_timeenc(c, 1, 1, 31);
    test_timeenc(c, 1000, 100, 32);
    test_timeenc(c, 6000, 100, 33); /* a TGN step's pairs: many rows a column's block strides over */
    test_timeenc(c, 37, 70000, 34); /* more columns than blocks: the loop over columns goes round */
}

int main(void) {
    int n = dgnn_cuda_device_count();
    cuda_check_refusal(n);
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
        test_lane(c);
        test_ops(c);
        dgnn_cuda_free(c);
    }
    return check_done();
}
