/* test_cuda_snap.c: the GPU's dense kernels of the snapshot models against their CPU ops
 * (built only with -DDGNN_CUDA=ON; without a device it checks that opening one is refused,
 * then skips with 77). With one, each forward and backward (gradients +=, from random
 * non-zero starting values; outputs the op must write whole start as NaN) on awkward
 * shapes (one row, one column, sizes that are not multiples of 32) and the models' sizes:
 *  - the matrix GRU: EvolveGCN-O (x = q, dx = dq or NULL) and -H (x apart, dx or NULL);
 *  - TopK: k = 1, k = N, k above the valid rows (padding), no valid row, N = 0, mask or
 *    none, dX or NULL; the selected indices must be the CPU's exactly (see below);
 *  - the LSTM cell: biases or none, dhout / dcout NULL, some gradients NULL;
 *  - weighted cross-entropy (class weights or none, logits far in the tails) and MSE;
 *  - RReLU: eval, and training with the key the CPU op draws (the same slopes), in place;
 *  - run twice, each op gives the same bits (no float atomics; fixed-order reductions);
 *  - the refusals: aliased outputs, F = 0, training without a key, no classes.
 *
 * TopK's ties. A different row choice is a different model, so the indices are compared
 * exactly. The GPU forms each score as the CPU does (a serial double sum over the features
 * of exact products, then one multiplication by 1/||p||: mgru.cu), so the scores are meant
 * to be the CPU's doubles bit for bit, and the ranking rule (higher score, then lower row)
 * is the CPU's. Three kinds of data check that:
 *  - random rows whose scores are at least 1e-9 (relative) apart: the selection does not
 *    hinge on the last bits, only on the rule;
 *  - exact ties: entries that are small multiples of 1/4 (every partial sum exact in any
 *    order), so that many rows tie exactly and the tie rule (lower row first) and the
 *    padding decide;
 *  - near ties that only the summation order decides: rows such as (1, s, -1), (s, 0, 0),
 *    (0.5, s, -0.5) score s exactly in real arithmetic, but the serial double sum rounds
 *    1 + s, so their doubles differ in the last bits (or tie). These match the CPU only if
 *    the GPU's scores are its bits, which is the claim.
 * The loss values are doubles compared within 1e-10; everything else within a relative
 * tolerance that grows with the length of the sums. */
#include "cuda_check.h"

/* ---- helpers ---- */

static float *upnanf(dgnn_cuda *c, int64_t n) { return upnan(c, (size_t)n * sizeof(float)); }

static float *copyf(const float *x, int64_t n) {
    float *y = malloc((size_t)(n + 1) * sizeof(float));
    memcpy(y, x, (size_t)n * sizeof(float));
    return y;
}

/* bitwise equality of two host arrays of bytes (the run-twice check) */
static void same_bits(const char *what, const void *a, const void *b, size_t bytes) {
    CHECK_MSG(memcmp(a, b, bytes) == 0, "%s: two runs differ", what);
}

/* ---- matrix GRU ---- */

/* dxmode: 0 dx NULL, 1 dx an array of its own, 2 dx = dq (EvolveGCN-O passes one array) */
typedef struct {
    float *qn, *saved, *dx, *dq, *dP;
} mgru_res;

static void mgru_gpu(dgnn_cuda *c, mgru_res *o, const float *x, const float *q, const float *P, const float *g,
                     const float *dx0, const float *dq0, const float *dP0, int same, int dxmode, int64_t R,
                     int64_t C) {
    const int64_t RC = R * C, np = dgnn_mgru_param_count(R, C);
    float *d_x = same ? NULL : up(c, x, RC), *d_q = up(c, q, RC), *d_P = up(c, P, np), *d_g = up(c, g, RC);
    float *d_qn = upnanf(c, RC), *d_saved = upnanf(c, 4 * RC), *d_scr = upnanf(c, 4 * RC);
    float *d_dq = up(c, dq0, RC), *d_dP = up(c, dP0, np), *d_dx = dxmode == 1 ? up(c, dx0, RC) : NULL;
    const float *xin = same ? d_q : d_x;
    CUDA_OK(dgnn_cuda_mgru_forward(c, d_qn, d_saved, xin, d_q, d_P, R, C, ERR));
    CUDA_OK(dgnn_cuda_mgru_backward(c, dxmode == 2 ? d_dq : d_dx, d_dq, d_dP, d_scr, d_g, d_saved, xin, d_q, d_P, R, C,
                                    ERR));
    down(c, o->qn, d_qn, (size_t)RC * sizeof(float), "mgru q_new");
    down(c, o->saved, d_saved, (size_t)(4 * RC) * sizeof(float), "mgru saved");
    down(c, o->dq, d_dq, (size_t)RC * sizeof(float), "mgru dq");
    down(c, o->dP, d_dP, (size_t)np * sizeof(float), "mgru dparams");
    if (d_dx) down(c, o->dx, d_dx, (size_t)RC * sizeof(float), "mgru dx");
    RELEASE(c, d_x, d_q, d_P, d_g, d_qn, d_saved, d_scr, d_dq, d_dP, d_dx);
}

static void mgru_res_alloc(mgru_res *o, int64_t RC, int64_t np) {
    o->qn = malloc((size_t)(RC + 1) * sizeof(float));
    o->saved = malloc((size_t)(4 * RC + 1) * sizeof(float));
    o->dx = malloc((size_t)(RC + 1) * sizeof(float));
    o->dq = malloc((size_t)(RC + 1) * sizeof(float));
    o->dP = malloc((size_t)(np + 1) * sizeof(float));
}
static void mgru_res_free(mgru_res *o) { FREE(o->qn, o->saved, o->dx, o->dq, o->dP); }

static void test_mgru(dgnn_cuda *c, int64_t R, int64_t C, int same, int dxmode, int det, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    const int64_t RC = R * C, np = dgnn_mgru_param_count(R, C);
    float *P = rnd(np, 0, 0, &r);
    dgnn_mgru_init(P, R, C, &r);
    dgnn_init_uniform(P + 6 * R * R, 3 * RC, -0.5f, 0.5f, &r); /* biases too (the init's are 0) */
    float *x = rnd(RC, -1, 1, &r), *q = rnd(RC, -1, 1, &r), *g = rnd(RC, -1, 1, &r);
    float *dx0 = rnd(RC, -1, 1, &r), *dq0 = rnd(RC, -1, 1, &r), *dP0 = rnd(np, -1, 1, &r);
    /* the CPU */
    mgru_res ref, gpu, gpu2;
    mgru_res_alloc(&ref, RC, np);
    memcpy(ref.dx, dx0, (size_t)RC * sizeof(float));
    memcpy(ref.dq, dq0, (size_t)RC * sizeof(float));
    memcpy(ref.dP, dP0, (size_t)np * sizeof(float));
    const float *xin = same ? q : x;
    dgnn_mgru_forward(ref.qn, ref.saved, xin, q, P, R, C);
    dgnn_mgru_backward(dxmode == 2 ? ref.dq : dxmode == 1 ? ref.dx : NULL, ref.dq, ref.dP, g, ref.saved, xin, q, P, R,
                       C);
    /* the GPU */
    mgru_res_alloc(&gpu, RC, np);
    mgru_gpu(c, &gpu, x, q, P, g, dx0, dq0, dP0, same, dxmode, R, C);
    const double tol = 2e-6 * (double)(R + C + 8);
    near_ref("mgru q_new", gpu.qn, ref.qn, RC, tol);
    near_ref("mgru saved", gpu.saved, ref.saved, 4 * RC, tol);
    near_ref("mgru dq", gpu.dq, ref.dq, RC, tol);
    if (dxmode == 1) near_ref("mgru dx", gpu.dx, ref.dx, RC, tol);
    near_ref("mgru dparams W", gpu.dP, ref.dP, 3 * R * R, tol);
    near_ref("mgru dparams U", gpu.dP + 3 * R * R, ref.dP + 3 * R * R, 3 * R * R, tol);
    near_ref("mgru dparams B", gpu.dP + 6 * R * R, ref.dP + 6 * R * R, 3 * RC, tol);
    if (det) {
        mgru_res_alloc(&gpu2, RC, np);
        mgru_gpu(c, &gpu2, x, q, P, g, dx0, dq0, dP0, same, dxmode, R, C);
        same_bits("mgru q_new", gpu.qn, gpu2.qn, (size_t)RC * sizeof(float));
        same_bits("mgru saved", gpu.saved, gpu2.saved, (size_t)(4 * RC) * sizeof(float));
        same_bits("mgru dq", gpu.dq, gpu2.dq, (size_t)RC * sizeof(float));
        if (dxmode == 1) same_bits("mgru dx", gpu.dx, gpu2.dx, (size_t)RC * sizeof(float));
        same_bits("mgru dparams", gpu.dP, gpu2.dP, (size_t)np * sizeof(float));
        mgru_res_free(&gpu2);
    }
    mgru_res_free(&ref);
    mgru_res_free(&gpu);
    FREE(P, x, q, g, dx0, dq0, dP0);
}

/* ---- TopK ---- */

typedef struct {
    float *out, *ts, *dX, *dp;
    int32_t *idx;
    int64_t n;
} topk_res;

static void topk_res_alloc(topk_res *o, int64_t N, int64_t F, int64_t k) {
    o->out = malloc((size_t)(F * k + 1) * sizeof(float));
    o->ts = malloc((size_t)(k + 1) * sizeof(float));
    o->dX = malloc((size_t)(N * F + 1) * sizeof(float));
    o->dp = malloc((size_t)(F + 1) * sizeof(float));
    o->idx = malloc((size_t)(k + 1) * sizeof(int32_t));
}
static void topk_res_free(topk_res *o) { FREE(o->out, o->ts, o->dX, o->dp, o->idx); }

static void topk_gpu(dgnn_cuda *c, topk_res *o, const float *X, const float *p, const uint8_t *mask,
                     const float *dout, const float *dX0, const float *dp0, int with_dX, int64_t N, int64_t F,
                     int64_t k) {
    float *d_X = up(c, X, N * F), *d_p = up(c, p, F), *d_dout = up(c, dout, F * k);
    uint8_t *d_mask = mask ? upb(c, mask, (size_t)N) : NULL;
    float *d_out = upnanf(c, F * k), *d_ts = upnanf(c, k);
    int32_t *d_idx = upnan(c, (size_t)k * sizeof(int32_t));
    int64_t *d_n = upnan(c, sizeof(int64_t));
    float *d_dX = with_dX ? up(c, dX0, N * F) : NULL, *d_dp = up(c, dp0, F);
    CUDA_OK(dgnn_cuda_topk_forward(c, d_n, d_out, d_idx, d_ts, d_X, d_p, d_mask, N, F, k, ERR));
    CUDA_OK(dgnn_cuda_topk_backward(c, d_dX, d_dp, d_dout, d_idx, d_ts, d_X, d_p, N, F, k, ERR));
    down(c, o->out, d_out, (size_t)(F * k) * sizeof(float), "topk out");
    down(c, o->ts, d_ts, (size_t)k * sizeof(float), "topk tanh_s");
    down(c, o->idx, d_idx, (size_t)k * sizeof(int32_t), "topk idx");
    down(c, &o->n, d_n, sizeof(int64_t), "topk count");
    if (with_dX) down(c, o->dX, d_dX, (size_t)(N * F) * sizeof(float), "topk dX");
    down(c, o->dp, d_dp, (size_t)F * sizeof(float), "topk dp");
    RELEASE(c, d_X, d_p, d_dout, d_mask, d_out, d_ts, d_idx, d_n, d_dX, d_dp);
}

/* One TopK case on the given data: forward and backward against the CPU, the indices and
 * the count exactly; det: a second GPU run gives the same bits. */
static void topk_case(dgnn_cuda *c, const char *what, const float *X, const float *p, const uint8_t *mask,
                      int64_t N, int64_t F, int64_t k, int with_dX, int det, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *dout = rnd(F * k, -1, 1, &r), *dX0 = rnd(N * F, -1, 1, &r), *dp0 = rnd(F, -1, 1, &r);
    topk_res ref, gpu, gpu2;
    topk_res_alloc(&ref, N, F, k);
    memcpy(ref.dX, dX0, (size_t)(N * F) * sizeof(float));
    memcpy(ref.dp, dp0, (size_t)F * sizeof(float));
    ref.n = dgnn_topk_forward(ref.out, ref.idx, ref.ts, X, p, mask, N, F, k);
    dgnn_topk_backward(with_dX ? ref.dX : NULL, ref.dp, dout, ref.idx, ref.ts, X, p, N, F, k);
    topk_res_alloc(&gpu, N, F, k);
    topk_gpu(c, &gpu, X, p, mask, dout, dX0, dp0, with_dX, N, F, k);
    int64_t bad = 0, first = -1;
    for (int64_t j = 0; j < k; j++)
        if (gpu.idx[j] != ref.idx[j]) bad++, first = first < 0 ? j : first;
    CHECK_MSG(bad == 0, "%s: %lld of %lld indices differ (first at %lld: %d vs the CPU's %d)", what, (long long)bad,
              (long long)k, (long long)first, first >= 0 ? gpu.idx[first] : 0, first >= 0 ? ref.idx[first] : 0);
    CHECK_MSG(gpu.n == ref.n, "%s: %lld rows selected, the CPU %lld", what, (long long)gpu.n, (long long)ref.n);
    if (bad == 0) { /* the values only mean something for the same rows */
        char lab[160];
        snprintf(lab, sizeof lab, "%s: tanh_s", what);
        near_ref(lab, gpu.ts, ref.ts, k, 1e-6);
        snprintf(lab, sizeof lab, "%s: out", what);
        near_ref(lab, gpu.out, ref.out, F * k, 1e-6);
        snprintf(lab, sizeof lab, "%s: dX", what);
        if (with_dX) near_ref(lab, gpu.dX, ref.dX, N * F, 2e-6);
        snprintf(lab, sizeof lab, "%s: dp", what);
        near_ref(lab, gpu.dp, ref.dp, F, 2e-6 * (double)(1 + k / 64));
    }
    if (det) {
        topk_res_alloc(&gpu2, N, F, k);
        topk_gpu(c, &gpu2, X, p, mask, dout, dX0, dp0, with_dX, N, F, k);
        same_bits("topk idx", gpu.idx, gpu2.idx, (size_t)k * sizeof(int32_t));
        same_bits("topk out", gpu.out, gpu2.out, (size_t)(F * k) * sizeof(float));
        same_bits("topk tanh_s", gpu.ts, gpu2.ts, (size_t)k * sizeof(float));
        if (with_dX) same_bits("topk dX", gpu.dX, gpu2.dX, (size_t)(N * F) * sizeof(float));
        same_bits("topk dp", gpu.dp, gpu2.dp, (size_t)F * sizeof(float));
        topk_res_free(&gpu2);
    }
    topk_res_free(&ref);
    topk_res_free(&gpu);
    FREE(dout, dX0, dp0);
}

/* the CPU's score of every row (mgru.c's formula, for the test's own checks) */
static void topk_scores_ref(double *s, const float *X, const float *p, int64_t N, int64_t F) {
    double nn = 0;
    for (int64_t f = 0; f < F; f++) nn += (double)p[f] * (double)p[f];
    const double inv = 1.0 / sqrt(nn);
    for (int64_t i = 0; i < N; i++) {
        double d = 0;
        for (int64_t f = 0; f < F; f++) d += (double)X[i * F + f] * (double)p[f];
        s[i] = d * inv;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* random rows (and mask: about half valid when masked) whose valid scores are at least
 * 1e-9 (relative) apart, so that no selection hinges on the last bits; redrawn until so */
static void topk_random(dgnn_cuda *c, int64_t N, int64_t F, int64_t k, int masked, int with_dX, int det,
                        uint64_t seed) {
    float *X = malloc((size_t)(N * F + 1) * sizeof(float)), *p = malloc((size_t)(F + 1) * sizeof(float));
    uint8_t *mask = malloc((size_t)N + 1);
    double *s = malloc((size_t)(N + 1) * sizeof(double));
    for (uint64_t t = seed;; t += 1000) {
        dgnn_rng r;
        dgnn_rng_seed(&r, t);
        dgnn_init_uniform(X, N * F, -1, 1, &r);
        dgnn_topk_init(p, F, &r);
        int64_t v = 0;
        for (int64_t i = 0; i < N; i++) mask[i] = masked ? dgnn_rng_uniform(&r) < 0.5 : 1;
        topk_scores_ref(s, X, p, N, F);
        for (int64_t i = 0; i < N; i++)
            if (mask[i]) s[v++] = s[i];
        qsort(s, (size_t)v, sizeof(double), cmp_double);
        int ok = 1;
        for (int64_t i = 1; i < v; i++) ok &= s[i] - s[i - 1] > 1e-9 * (1.0 + fabs(s[i]));
        if (ok) break;
    }
    char what[96];
    snprintf(what, sizeof what, "topk random N %lld F %lld k %lld%s", (long long)N, (long long)F, (long long)k,
             masked ? " masked" : "");
    topk_case(c, what, X, p, masked ? mask : NULL, N, F, k, with_dX, det, seed + 1);
    FREE(X, p, mask, s);
}

/* exact ties: entries in {-2, ..., 2} / 4 and p in {-2, -1, 1, 2} / 2, so every partial
 * sum is exact whatever the order and equal rows tie exactly; masked: every third row out */
static void topk_ties(dgnn_cuda *c, int64_t N, int64_t F, int64_t k, int masked, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *X = malloc((size_t)(N * F + 1) * sizeof(float)), *p = malloc((size_t)(F + 1) * sizeof(float));
    uint8_t *mask = malloc((size_t)N + 1);
    for (int64_t i = 0; i < N * F; i++) X[i] = (float)((int)(dgnn_rng_uniform(&r) * 5) - 2) / 4.0f;
    static const float pv[4] = {-1.0f, -0.5f, 0.5f, 1.0f};
    for (int64_t f = 0; f < F; f++) p[f] = pv[(int)(dgnn_rng_uniform(&r) * 4) & 3];
    for (int64_t i = 0; i < N; i++) mask[i] = i % 3 != 1;
    /* the data must tie: some valid rows with equal scores */
    double *s = malloc((size_t)(N + 1) * sizeof(double));
    topk_scores_ref(s, X, p, N, F);
    int64_t ties = 0;
    for (int64_t i = 1; i < N && i < 64; i++)
        for (int64_t j = 0; j < i; j++) ties += s[i] == s[j];
    CHECK(ties > 0);
    char what[96];
    snprintf(what, sizeof what, "topk ties N %lld F %lld k %lld%s", (long long)N, (long long)F, (long long)k,
             masked ? " masked" : "");
    topk_case(c, what, X, p, masked ? mask : NULL, N, F, k, 1, 0, seed + 1);
    FREE(X, p, mask, s);
}

/* near ties decided by the summation order: groups of rows that score s_g exactly in real
 * arithmetic, (1, s, -1), (s, 0, 0), (0.5, s, -0.5), (-1, s, 1), (0.25, s, -0.25), whose
 * serial double sums differ in the last bits (or tie); the groups' s_g are 1e-9 apart */
static void topk_near_ties(dgnn_cuda *c, int64_t groups, int64_t k, int masked) {
    const int64_t F = 3, per = 5, N = groups * per;
    float *X = malloc((size_t)(N * F) * sizeof(float)), p[3] = {1.0f, 1.0f, 1.0f};
    uint8_t *mask = malloc((size_t)N);
    for (int64_t gi = 0; gi < groups; gi++) {
        const int64_t g = (gi * 7) % groups; /* the groups' scores not in row order */
        const float sv = (float)(1e-9 * (double)(g + 1));
        const float rows[5][3] = {{1.0f, sv, -1.0f},
                                  {sv, 0.0f, 0.0f},
                                  {0.5f, sv, -0.5f},
                                  {-1.0f, sv, 1.0f},
                                  {0.25f, sv, -0.25f}};
        memcpy(X + gi * per * F, rows, sizeof rows);
    }
    for (int64_t i = 0; i < N; i++) mask[i] = i % 4 != 2;
    /* the data must be near ties: some rows of a group differ in their scores' last bits */
    double s[5];
    topk_scores_ref(s, X, p, 5, F);
    CHECK(s[0] != s[1] || s[2] != s[1] || s[3] != s[1]);
    char what[96];
    snprintf(what, sizeof what, "topk near ties N %lld k %lld%s", (long long)N, (long long)k, masked ? " masked" : "");
    topk_case(c, what, X, p, masked ? mask : NULL, N, F, k, 1, 0, 77);
    FREE(X, mask);
}

/* the one-hot path of evolvegcn.c: a column of scores (N, 1) and the unit scorer, where
 * nodes of one category tie exactly */
static void topk_column(dgnn_cuda *c, int64_t N, int64_t k, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *X = malloc((size_t)(N + 1) * sizeof(float)), one = 1.0f;
    for (int64_t i = 0; i < N; i++) X[i] = (float)(int)(dgnn_rng_uniform(&r) * 7) * 0.37f - 1.0f;
    topk_case(c, "topk one-hot column", X, &one, NULL, N, 1, k, 1, 0, seed + 1);
    free(X);
}

static void test_topk(dgnn_cuda *c) {
    topk_random(c, 1, 1, 1, 0, 1, 0, 101);
    topk_random(c, 1, 5, 3, 0, 1, 0, 102); /* k > N: the one row repeated */
    topk_random(c, 37, 45, 1, 0, 1, 0, 103);
    topk_random(c, 37, 45, 37, 0, 1, 0, 104); /* k = N */
    topk_random(c, 37, 45, 37, 1, 1, 0, 105); /* k above the valid rows: padding */
    topk_random(c, 100, 33, 10, 1, 0, 0, 106); /* dX NULL (EvolveGCN-H's first layer) */
    topk_random(c, 2000, 100, 100, 1, 1, 1, 107);
    topk_random(c, 3001, 7, 250, 0, 1, 0, 108);
    /* more columns than blocks (65535): topk_bwd_cols's loop goes round; a large grouping */
    topk_random(c, 70000, 3, 70000, 1, 1, 0, 116);
    topk_ties(c, 200, 4, 50, 1, 109);
    topk_ties(c, 200, 4, 200, 1, 110); /* every valid row ranked, then padding */
    topk_ties(c, 300, 2, 33, 0, 111);
    topk_near_ties(c, 40, 200, 0);
    topk_near_ties(c, 40, 200, 1); /* 150 valid rows: every one ranked, then padding */
    topk_near_ties(c, 40, 37, 1);
    topk_column(c, 500, 100, 112);
    /* no valid row: idx -1, zeros, and a backward that adds nothing */
    {
        const int64_t N = 9, F = 5, k = 3;
        dgnn_rng r;
        dgnn_rng_seed(&r, 113);
        float *X = rnd(N * F, -1, 1, &r), *p = rnd(F, -1, 1, &r);
        uint8_t none[9] = {0};
        topk_case(c, "topk no valid row", X, p, none, N, F, k, 1, 0, 114);
        topk_case(c, "topk no row", X, p, NULL, 0, F, 2, 1, 0, 115); /* N = 0 */
        FREE(X, p);
    }
    /* k = 0: the count 0, nothing else; F = 0: refused */
    int64_t *d_n = upnan(c, sizeof(int64_t)), n = -1;
    CUDA_OK(dgnn_cuda_topk_forward(c, d_n, NULL, NULL, NULL, NULL, NULL, NULL, 5, 3, 0, ERR));
    down(c, &n, d_n, sizeof n, "topk k = 0");
    CHECK(n == 0);
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_topk_forward(c, d_n, NULL, NULL, NULL, NULL, NULL, NULL, 5, 0, 2, ERR) == DGNN_EINVAL);
    dgnn_cuda_release(c, d_n);
}

/* ---- LSTM ---- */

typedef struct {
    float *ho, *co, *saved, *dx, *dh, *dc, *dWi, *dWh, *dbi, *dbh;
} lstm_res;

/* flags: which of the optional arrays are given */
enum { L_BIAS = 1, L_DHOUT = 2, L_DCOUT = 4, L_DX = 8, L_DC = 16, L_DB = 32, L_ALL = 63 };

static void lstm_gpu(dgnn_cuda *c, lstm_res *o, const lstm_res *g0, const float *x, const float *h, const float *cc,
                     const float *Wi, const float *Wh, const float *bi, const float *bh, const float *gh,
                     const float *gc, int fl, int64_t B, int64_t Din, int64_t H) {
    const int64_t G = 4 * H;
    float *d_x = up(c, x, B * Din), *d_h = up(c, h, B * H), *d_c = up(c, cc, B * H), *d_Wi = up(c, Wi, G * Din);
    float *d_Wh = up(c, Wh, G * H), *d_bi = fl & L_BIAS ? up(c, bi, G) : NULL, *d_bh = fl & L_BIAS ? up(c, bh, G) : NULL;
    float *d_gh = fl & L_DHOUT ? up(c, gh, B * H) : NULL, *d_gc = fl & L_DCOUT ? up(c, gc, B * H) : NULL;
    float *d_ho = upnanf(c, B * H), *d_co = upnanf(c, B * H), *d_saved = upnanf(c, B * DGNN_LSTM_SAVED(H));
    float *d_scr = upnanf(c, B * DGNN_LSTM_SCRATCH(H));
    float *d_dx = fl & L_DX ? up(c, g0->dx, B * Din) : NULL, *d_dh = up(c, g0->dh, B * H);
    float *d_dc = fl & L_DC ? up(c, g0->dc, B * H) : NULL, *d_dWi = up(c, g0->dWi, G * Din);
    float *d_dWh = up(c, g0->dWh, G * H), *d_dbi = fl & L_DB ? up(c, g0->dbi, G) : NULL;
    float *d_dbh = fl & L_DB ? up(c, g0->dbh, G) : NULL;
    CUDA_OK(dgnn_cuda_lstm_forward(c, d_ho, d_co, d_saved, d_scr, d_x, d_h, d_c, d_Wi, d_Wh, d_bi, d_bh, B, Din, H,
                                   ERR));
    CUDA_OK(dgnn_cuda_lstm_backward(c, d_dx, d_dh, d_dc, d_dWi, d_dWh, d_dbi, d_dbh, d_scr, d_gh, d_gc, d_saved, d_x,
                                    d_h, d_c, d_Wi, d_Wh, B, Din, H, ERR));
    down(c, o->ho, d_ho, (size_t)(B * H) * sizeof(float), "lstm hout");
    down(c, o->co, d_co, (size_t)(B * H) * sizeof(float), "lstm cout");
    down(c, o->saved, d_saved, (size_t)(B * DGNN_LSTM_SAVED(H)) * sizeof(float), "lstm saved");
    if (d_dx) down(c, o->dx, d_dx, (size_t)(B * Din) * sizeof(float), "lstm dx");
    down(c, o->dh, d_dh, (size_t)(B * H) * sizeof(float), "lstm dh");
    if (d_dc) down(c, o->dc, d_dc, (size_t)(B * H) * sizeof(float), "lstm dc");
    down(c, o->dWi, d_dWi, (size_t)(G * Din) * sizeof(float), "lstm dW_ih");
    down(c, o->dWh, d_dWh, (size_t)(G * H) * sizeof(float), "lstm dW_hh");
    if (d_dbi) down(c, o->dbi, d_dbi, (size_t)G * sizeof(float), "lstm db_ih");
    if (d_dbh) down(c, o->dbh, d_dbh, (size_t)G * sizeof(float), "lstm db_hh");
    RELEASE(c, d_x, d_h, d_c, d_Wi, d_Wh, d_bi, d_bh, d_gh, d_gc, d_ho, d_co, d_saved, d_scr, d_dx, d_dh, d_dc, d_dWi,
            d_dWh, d_dbi, d_dbh);
}

static void lstm_res_alloc(lstm_res *o, int64_t B, int64_t Din, int64_t H) {
    const int64_t G = 4 * H;
    o->ho = malloc((size_t)(B * H + 1) * sizeof(float));
    o->co = malloc((size_t)(B * H + 1) * sizeof(float));
    o->saved = malloc((size_t)(B * DGNN_LSTM_SAVED(H) + 1) * sizeof(float));
    o->dx = malloc((size_t)(B * Din + 1) * sizeof(float));
    o->dh = malloc((size_t)(B * H + 1) * sizeof(float));
    o->dc = malloc((size_t)(B * H + 1) * sizeof(float));
    o->dWi = malloc((size_t)(G * Din + 1) * sizeof(float));
    o->dWh = malloc((size_t)(G * H + 1) * sizeof(float));
    o->dbi = malloc((size_t)(G + 1) * sizeof(float));
    o->dbh = malloc((size_t)(G + 1) * sizeof(float));
}
static void lstm_res_free(lstm_res *o) {
    FREE(o->ho, o->co, o->saved, o->dx, o->dh, o->dc, o->dWi, o->dWh, o->dbi, o->dbh);
}

static void test_lstm(dgnn_cuda *c, int64_t B, int64_t Din, int64_t H, int fl, int det, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    const int64_t G = 4 * H;
    float *Wi = rnd(G * Din, 0, 0, &r), *Wh = rnd(G * H, 0, 0, &r), *bi = rnd(G, 0, 0, &r), *bh = rnd(G, 0, 0, &r);
    dgnn_lstm_init(Wi, Wh, bi, bh, Din, H, &r);
    float *x = rnd(B * Din, -1, 1, &r), *h = rnd(B * H, -1, 1, &r), *cc = rnd(B * H, -2, 2, &r);
    float *gh = rnd(B * H, -1, 1, &r), *gc = rnd(B * H, -1, 1, &r);
    lstm_res g0, ref, gpu, gpu2; /* g0: the gradients' starting values */
    lstm_res_alloc(&g0, B, Din, H);
    dgnn_init_uniform(g0.dx, B * Din, -1, 1, &r);
    dgnn_init_uniform(g0.dh, B * H, -1, 1, &r);
    dgnn_init_uniform(g0.dc, B * H, -1, 1, &r);
    dgnn_init_uniform(g0.dWi, G * Din, -1, 1, &r);
    dgnn_init_uniform(g0.dWh, G * H, -1, 1, &r);
    dgnn_init_uniform(g0.dbi, G, -1, 1, &r);
    dgnn_init_uniform(g0.dbh, G, -1, 1, &r);
    lstm_res_alloc(&ref, B, Din, H);
    memcpy(ref.dx, g0.dx, (size_t)(B * Din) * sizeof(float));
    memcpy(ref.dh, g0.dh, (size_t)(B * H) * sizeof(float));
    memcpy(ref.dc, g0.dc, (size_t)(B * H) * sizeof(float));
    memcpy(ref.dWi, g0.dWi, (size_t)(G * Din) * sizeof(float));
    memcpy(ref.dWh, g0.dWh, (size_t)(G * H) * sizeof(float));
    memcpy(ref.dbi, g0.dbi, (size_t)G * sizeof(float));
    memcpy(ref.dbh, g0.dbh, (size_t)G * sizeof(float));
    float *scratch = rnd(B * DGNN_LSTM_SCRATCH(H), 0, 0, &r);
    const float *bi_ = fl & L_BIAS ? bi : NULL, *bh_ = fl & L_BIAS ? bh : NULL;
    dgnn_lstm_forward(ref.ho, ref.co, ref.saved, scratch, x, h, cc, Wi, Wh, bi_, bh_, B, Din, H);
    dgnn_lstm_backward(fl & L_DX ? ref.dx : NULL, ref.dh, fl & L_DC ? ref.dc : NULL, ref.dWi, ref.dWh,
                       fl & L_DB ? ref.dbi : NULL, fl & L_DB ? ref.dbh : NULL, scratch, fl & L_DHOUT ? gh : NULL,
                       fl & L_DCOUT ? gc : NULL, ref.saved, x, h, cc, Wi, Wh, B, Din, H);
    lstm_res_alloc(&gpu, B, Din, H);
    lstm_gpu(c, &gpu, &g0, x, h, cc, Wi, Wh, bi, bh, gh, gc, fl, B, Din, H);
    const double tol = 1e-6 * (double)(Din + B + H + 8);
    near_ref("lstm hout", gpu.ho, ref.ho, B * H, tol);
    near_ref("lstm cout", gpu.co, ref.co, B * H, tol);
    near_ref("lstm saved", gpu.saved, ref.saved, B * DGNN_LSTM_SAVED(H), tol);
    if (fl & L_DX) near_ref("lstm dx", gpu.dx, ref.dx, B * Din, tol);
    near_ref("lstm dh", gpu.dh, ref.dh, B * H, tol);
    if (fl & L_DC) near_ref("lstm dc", gpu.dc, ref.dc, B * H, tol);
    near_ref("lstm dW_ih", gpu.dWi, ref.dWi, G * Din, tol);
    near_ref("lstm dW_hh", gpu.dWh, ref.dWh, G * H, tol);
    if (fl & L_DB) near_ref("lstm db_ih", gpu.dbi, ref.dbi, G, tol);
    if (fl & L_DB) near_ref("lstm db_hh", gpu.dbh, ref.dbh, G, tol);
    if (det) {
        lstm_res_alloc(&gpu2, B, Din, H);
        lstm_gpu(c, &gpu2, &g0, x, h, cc, Wi, Wh, bi, bh, gh, gc, fl, B, Din, H);
        same_bits("lstm hout", gpu.ho, gpu2.ho, (size_t)(B * H) * sizeof(float));
        same_bits("lstm saved", gpu.saved, gpu2.saved, (size_t)(B * DGNN_LSTM_SAVED(H)) * sizeof(float));
        if (fl & L_DX) same_bits("lstm dx", gpu.dx, gpu2.dx, (size_t)(B * Din) * sizeof(float));
        same_bits("lstm dh", gpu.dh, gpu2.dh, (size_t)(B * H) * sizeof(float));
        same_bits("lstm dW_ih", gpu.dWi, gpu2.dWi, (size_t)(G * Din) * sizeof(float));
        if (fl & L_DB) same_bits("lstm db_ih", gpu.dbi, gpu2.dbi, (size_t)G * sizeof(float));
        lstm_res_free(&gpu2);
    }
    lstm_res_free(&g0);
    lstm_res_free(&ref);
    lstm_res_free(&gpu);
    FREE(Wi, Wh, bi, bh, x, h, cc, gh, gc, scratch);
}

/* ---- losses ---- */

static void wce_gpu(dgnn_cuda *c, double *loss, float *dz, const float *z, const int32_t *y, const float *w,
                    float dloss, int64_t M, int64_t C) {
    float *d_z = up(c, z, M * C), *d_w = w ? up(c, w, C) : NULL, *d_dz = up(c, dz, M * C);
    int32_t *d_y = upb(c, y, (size_t)M * sizeof(int32_t));
    double *d_loss = upnan(c, sizeof(double));
    CUDA_OK(dgnn_cuda_wce_forward(c, d_loss, d_z, d_y, d_w, M, C, ERR));
    CUDA_OK(dgnn_cuda_wce_backward(c, d_dz, dloss, d_z, d_y, d_w, M, C, ERR));
    down(c, loss, d_loss, sizeof(double), "wce loss");
    down(c, dz, d_dz, (size_t)(M * C) * sizeof(float), "wce dlogits");
    RELEASE(c, d_z, d_w, d_dz, d_y, d_loss);
}

static void test_wce(dgnn_cuda *c, int64_t M, int64_t C, int weighted, float dloss, int det, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *z = rnd(M * C, -8, 8, &r), *w = rnd(C, 0.2f, 3.0f, &r), *dz0 = rnd(M * C, -1, 1, &r);
    int32_t *y = malloc((size_t)(M + 1) * sizeof(int32_t));
    for (int64_t i = 0; i < M; i++) y[i] = (int32_t)(dgnn_rng_uniform(&r) * (double)C) % (int32_t)C;
    if (M > 2 && C > 1) z[0] = 60.0f, z[1] = -60.0f, z[C] = -70.0f, z[C + 1] = 65.0f; /* far tails: no overflow */
    const float *w_ = weighted ? w : NULL;
    const double lref = dgnn_wce_forward(z, y, w_, M, C);
    float *dzr = copyf(dz0, M * C), *dzg = copyf(dz0, M * C);
    dgnn_wce_backward(dzr, dloss, z, y, w_, M, C);
    double lg = NAN;
    wce_gpu(c, &lg, dzg, z, y, w_, dloss, M, C);
    CHECK_MSG(fabs(lg - lref) <= 1e-10 * (1.0 + fabs(lref)), "wce loss M %lld C %lld: %.17g vs the CPU's %.17g",
              (long long)M, (long long)C, lg, lref);
    near_ref("wce dlogits", dzg, dzr, M * C, 1e-6);
    if (det) {
        double lg2 = NAN;
        float *dzg2 = copyf(dz0, M * C);
        wce_gpu(c, &lg2, dzg2, z, y, w_, dloss, M, C);
        same_bits("wce loss", &lg, &lg2, sizeof lg);
        same_bits("wce dlogits", dzg, dzg2, (size_t)(M * C) * sizeof(float));
        free(dzg2);
    }
    FREE(z, w, dz0, y, dzr, dzg);
}

static void mse_gpu(dgnn_cuda *c, double *loss, float *dp, const float *pred, const float *tg, float dloss,
                    int64_t n) {
    float *d_p = up(c, pred, n), *d_t = up(c, tg, n), *d_dp = up(c, dp, n);
    double *d_loss = upnan(c, sizeof(double));
    CUDA_OK(dgnn_cuda_mse_forward(c, d_loss, d_p, d_t, n, ERR));
    CUDA_OK(dgnn_cuda_mse_backward(c, d_dp, dloss, d_p, d_t, n, ERR));
    down(c, loss, d_loss, sizeof(double), "mse loss");
    down(c, dp, d_dp, (size_t)n * sizeof(float), "mse dpred");
    RELEASE(c, d_p, d_t, d_dp, d_loss);
}

static void test_mse(dgnn_cuda *c, int64_t n, float dloss, int det, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *pred = rnd(n, -3, 3, &r), *tg = rnd(n, -3, 3, &r), *dp0 = rnd(n, -1, 1, &r);
    const double lref = dgnn_mse_forward(pred, tg, n);
    float *dpr = copyf(dp0, n), *dpg = copyf(dp0, n);
    dgnn_mse_backward(dpr, dloss, pred, tg, n);
    double lg = NAN;
    mse_gpu(c, &lg, dpg, pred, tg, dloss, n);
    CHECK_MSG(fabs(lg - lref) <= 1e-10 * (1.0 + fabs(lref)), "mse loss n %lld: %.17g vs the CPU's %.17g",
              (long long)n, lg, lref);
    near_ref("mse dpred", dpg, dpr, n, 1e-6);
    if (det) {
        double lg2 = NAN;
        float *dpg2 = copyf(dp0, n);
        mse_gpu(c, &lg2, dpg2, pred, tg, dloss, n);
        same_bits("mse loss", &lg, &lg2, sizeof lg);
        same_bits("mse dpred", dpg, dpg2, (size_t)n * sizeof(float));
        free(dpg2);
    }
    FREE(pred, tg, dp0, dpr, dpg);
}

/* no samples: the CPU's 0; no classes: refused */
static void test_loss_empty(dgnn_cuda *c) {
    double *d_loss = upnan(c, sizeof(double)), l = NAN;
    CUDA_OK(dgnn_cuda_wce_forward(c, d_loss, NULL, NULL, NULL, 0, 2, ERR));
    down(c, &l, d_loss, sizeof l, "wce of nothing");
    CHECK(l == 0.0);
    l = NAN;
    CUDA_OK(dgnn_cuda_upload(c, d_loss, &l, sizeof l, ERR));
    CUDA_OK(dgnn_cuda_mse_forward(c, d_loss, NULL, NULL, 0, ERR));
    down(c, &l, d_loss, sizeof l, "mse of nothing");
    CHECK(l == 0.0);
    CUDA_OK(dgnn_cuda_wce_backward(c, NULL, 1.0f, NULL, NULL, NULL, 0, 2, ERR));
    CUDA_OK(dgnn_cuda_mse_backward(c, NULL, 1.0f, NULL, NULL, 0, ERR));
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_wce_forward(c, d_loss, NULL, NULL, NULL, 3, 0, ERR) == DGNN_EINVAL);
    dgnn_cuda_release(c, d_loss);
}

/* ---- RReLU ---- */

static void rrelu_gpu(dgnn_cuda *c, float *y, float *sl, float *dx, const float *x, const float *dy, float lo,
                      float hi, int training, uint64_t key, int inplace, int64_t n) {
    float *d_x = up(c, x, n), *d_dy = up(c, dy, n), *d_dx = up(c, dx, n);
    float *d_y = inplace ? d_x : upnanf(c, n), *d_sl = upnanf(c, n);
    CUDA_OK(dgnn_cuda_rrelu_forward(c, d_y, d_sl, d_x, n, lo, hi, training, &key, ERR));
    CUDA_OK(dgnn_cuda_rrelu_backward(c, d_dx, d_dy, d_sl, n, ERR));
    down(c, y, d_y, (size_t)n * sizeof(float), "rrelu y");
    down(c, sl, d_sl, (size_t)n * sizeof(float), "rrelu slope");
    down(c, dx, d_dx, (size_t)n * sizeof(float), "rrelu dx");
    RELEASE(c, d_x, d_dy, d_dx, inplace ? NULL : d_y, d_sl);
}

static void test_rrelu(dgnn_cuda *c, int64_t n, float lo, float hi, int training, int inplace, int det,
                       uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *x = rnd(n, -1, 1, &r), *dy = rnd(n, -1, 1, &r), *dx0 = rnd(n, -1, 1, &r);
    for (int64_t i = 0; i < n; i += 5) x[i] = 0.0f; /* x = 0 takes the slope, as the CPU's */
    /* the CPU op draws its key from r1; the GPU op takes the same draw from r2 */
    dgnn_rng r1, r2;
    dgnn_rng_seed(&r1, seed + 1), dgnn_rng_seed(&r2, seed + 1);
    const uint64_t key = training ? dgnn_rng_u64(&r2) : 0;
    float *yr = copyf(x, n), *slr = rnd(n, 0, 0, &r), *dxr = copyf(dx0, n);
    dgnn_rrelu_forward(yr, slr, inplace ? yr : x, n, lo, hi, training, training ? &r1 : NULL);
    dgnn_rrelu_backward(dxr, dy, slr, n);
    if (training) CHECK(dgnn_rng_u64(&r1) == dgnn_rng_u64(&r2)); /* the CPU drew exactly one u64 */
    float *yg = rnd(n, 0, 0, &r), *slg = rnd(n, 0, 0, &r), *dxg = copyf(dx0, n);
    rrelu_gpu(c, yg, slg, dxg, x, dy, lo, hi, training, key, inplace, n);
    /* a relative 1e-7 is a few ulps at the slopes' size: any other draw fails it */
    near_ref(training ? "rrelu slope (training)" : "rrelu slope (eval)", slg, slr, n, 1e-7);
    near_ref("rrelu y", yg, yr, n, 1e-7);
    near_ref("rrelu dx", dxg, dxr, n, 1e-6);
    if (det) {
        float *yg2 = rnd(n, 0, 0, &r), *slg2 = rnd(n, 0, 0, &r), *dxg2 = copyf(dx0, n);
        rrelu_gpu(c, yg2, slg2, dxg2, x, dy, lo, hi, training, key, inplace, n);
        same_bits("rrelu y", yg, yg2, (size_t)n * sizeof(float));
        same_bits("rrelu slope", slg, slg2, (size_t)n * sizeof(float));
        same_bits("rrelu dx", dxg, dxg2, (size_t)n * sizeof(float));
        FREE(yg2, slg2, dxg2);
    }
    FREE(x, dy, dx0, yr, slr, dxr, yg, slg, dxg);
}

/* ---- refusals and empty inputs ---- */

static void test_refusals(dgnn_cuda *c) {
    float *d = NULL;
    CUDA_OK(dgnn_cuda_alloc(c, (void **)&d, 64 * sizeof(float), "a scratch array", ERR));
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_mgru_forward(c, d, d + 16, d + 32, d, d, 2, 2, ERR) == DGNN_EINVAL); /* q_new = q */
    CHECK(strstr(ERR->msg, "alias") != NULL);
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_mgru_forward(c, d, d + 16, d, d + 8, d, 2, 2, ERR) == DGNN_EINVAL); /* q_new = x */
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_mgru_backward(c, NULL, NULL, d, d, d, d, d, d, d, 2, 2, ERR) == DGNN_EINVAL); /* dq NULL */
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_lstm_forward(c, d, d + 8, d + 16, d + 32, d, d, d + 4, d, d, NULL, NULL, 1, 1, 1, ERR) ==
          DGNN_EINVAL); /* hout = h */
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_rrelu_forward(c, d, d, d, 4, 0.125f, 0.25f, 1, NULL, ERR) == DGNN_EINVAL); /* no key */
    CHECK(strstr(ERR->msg, "key") != NULL);
    /* empty: nothing to do, nothing launched */
    const uint64_t key = 1;
    CUDA_OK(dgnn_cuda_mgru_forward(c, d, d, d + 8, d + 16, d, 0, 5, ERR));
    CUDA_OK(dgnn_cuda_mgru_backward(c, d, d, d, d, d, d, d, d, d, 3, 0, ERR));
    CUDA_OK(dgnn_cuda_lstm_forward(c, d, d + 8, d, d, d, d + 16, d + 24, d, d, NULL, NULL, 0, 3, 2, ERR));
    CUDA_OK(dgnn_cuda_lstm_backward(c, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, d, 0, 3, 2, ERR));
    CUDA_OK(dgnn_cuda_topk_backward(c, d, d, d, (const int32_t *)d, d, d, d, 4, 3, 0, ERR));
    CUDA_OK(dgnn_cuda_rrelu_forward(c, d, d, d, 0, 0.125f, 0.25f, 1, &key, ERR));
    CUDA_OK(dgnn_cuda_rrelu_backward(c, d, d, d, 0, ERR));
    /* empty arrays may all be NULL: no alias refusal for them */
    CUDA_OK(dgnn_cuda_mgru_forward(c, NULL, NULL, NULL, NULL, NULL, 0, 0, ERR));
    CUDA_OK(dgnn_cuda_lstm_forward(c, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, ERR));
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    dgnn_cuda_release(c, d);
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_snap");
    /* the matrix GRU: (R, C), x = q or apart, dx NULL / own / = dq */
    test_mgru(c, 1, 1, 1, 2, 0, 1);
    test_mgru(c, 1, 37, 0, 1, 0, 2);
    test_mgru(c, 37, 1, 0, 1, 0, 3);
    test_mgru(c, 33, 45, 0, 1, 1, 4);   /* EvolveGCN-H's first layer: R = features, C = L */
    test_mgru(c, 33, 45, 0, 0, 0, 5);   /* dx NULL */
    test_mgru(c, 45, 45, 1, 2, 1, 6);   /* EvolveGCN-O: x = q, dx = dq */
    test_mgru(c, 100, 100, 1, 0, 0, 7); /* x = q, dx NULL */
    test_mgru(c, 129, 100, 0, 1, 0, 8);
    test_topk(c);
    /* the LSTM cell: (B, Din, H), which optional arrays */
    test_lstm(c, 1, 1, 1, L_ALL, 0, 21);
    test_lstm(c, 1, 5, 3, L_ALL, 0, 22);
    test_lstm(c, 37, 19, 33, L_ALL, 1, 23);
    test_lstm(c, 33, 17, 45, L_ALL & ~L_BIAS & ~L_DB, 0, 24);  /* no biases */
    test_lstm(c, 31, 7, 9, L_ALL & ~L_DCOUT, 0, 25);           /* dcout NULL (the last step's) */
    test_lstm(c, 31, 7, 9, L_ALL & ~L_DHOUT & ~L_DX, 0, 26);   /* dhout NULL, dx NULL */
    test_lstm(c, 300, 100, 100, L_ALL & ~L_DC, 0, 27);         /* WD-GCN's sizes; dc NULL */
    /* the losses */
    test_wce(c, 1, 1, 1, 1.0f, 0, 31);
    test_wce(c, 1, 2, 1, 1.0f, 0, 32);
    test_wce(c, 1201, 2, 1, 1.0f, 1, 33); /* EvolveGCN's link task: two classes, weighted */
    test_wce(c, 77, 5, 0, 0.37f, 0, 34);
    test_wce(c, 5000, 3, 1, 2.5f, 0, 35);
    test_mse(c, 1, 1.0f, 0, 36);
    test_mse(c, 1000003, 0.5f, 1, 37);
    test_loss_empty(c);
    /* RReLU: n, lower, upper, training, in place */
    test_rrelu(c, 1, 0.125f, 1.0f / 3.0f, 1, 0, 0, 41);
    test_rrelu(c, 7, 0.125f, 1.0f / 3.0f, 1, 1, 0, 42);
    test_rrelu(c, 100003, 0.125f, 1.0f / 3.0f, 1, 0, 1, 43);
    test_rrelu(c, 100003, 0.1f, 0.9f, 1, 1, 0, 44);
    test_rrelu(c, 4097, 0.125f, 1.0f / 3.0f, 0, 0, 1, 45); /* eval: the mean slope */
    test_rrelu(c, 33, 0.125f, 1.0f / 3.0f, 0, 1, 0, 46);
    test_refusals(c);
    dgnn_cuda_free(c);
    return check_done();
}
