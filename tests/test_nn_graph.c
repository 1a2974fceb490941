/* test_nn_graph.c: the snapshot-model kernels (spmm.h; nn.h's matrix GRU, TopK, LSTM,
 * losses, RReLU) against references and finite differences. SpMM (fast vs serial reference vs dense, on random CSRs with empty
 * rows, a hub row and unsorted columns; the same bits for 1 and 2 threads), CSR transpose
 * and the symmetry test, SpMM backward, the throughput and triad helpers; EvolveGCN's
 * matrix GRU (a hand-computed 1 x 2 case, a dense reference, gradients with x != q and
 * with x == q as EvolveGCN-O uses it); TopK (hand cases for order, ties, masking,
 * padding, no valid row; gradients including padded columns); weighted cross-entropy and
 * MSE (hand values, overflow, gradients, thread-count independence); RReLU (eval slope,
 * training slopes in range, reproducible, gradients); the GCN layer in both product
 * orders (dense reference, gradients, a non-symmetric A) and for one-hot input (against
 * the dense layer on the one-hot matrix); the LSTM cell (a hand-computed
 * 1 x 1 case, a dense reference, gradients through h' and c'); the dense transpose; and
 * on the shared bitcoin-alpha data (skipped when absent), EvolveGCN's symmetric A_hat
 * snapshots: each its own transpose, SpMM vs reference and its time. */
#include "check.h"
#include "gradcheck.h"

#include "dgnn/readers.h"
#include "dgnn/nn.h"
#include "dgnn/spmm.h"
#include "dgnn/snapshot_graph.h"

#include <omp.h>

/* ---- random CSRs -------------------------------------------------------------------- */

typedef struct {
    int64_t *rowptr;
    int32_t *col;
    float *val;
} csr_store;

/* R x C with: every 4th row (r % 4 == 1) empty, others 0..5 entries, row `hub` (if >= 0)
 * with 3/4 of the columns; columns distinct within a row and in random (unsorted) order. */
static dgnn_csr make_csr(csr_store *st, int64_t R, int64_t C, int64_t hub, dgnn_rng *r) {
    int32_t *perm = malloc((size_t)C * sizeof *perm);
    for (int64_t c = 0; c < C; c++) perm[c] = (int32_t)c;
    int64_t cap = R * 6 + C;
    st->rowptr = malloc((size_t)(R + 1) * sizeof(int64_t));
    st->col = malloc((size_t)cap * sizeof(int32_t));
    st->val = malloc((size_t)cap * sizeof(float));
    int64_t nnz = 0;
    st->rowptr[0] = 0;
    for (int64_t i = 0; i < R; i++) {
        int64_t deg = i == hub ? C * 3 / 4 : (i % 4 == 1 ? 0 : (int64_t)dgnn_rng_below(r, 6));
        if (deg > C) deg = C;
        for (int64_t j = 0; j < deg; j++) { /* partial Fisher-Yates: distinct columns */
            int64_t k = j + (int64_t)dgnn_rng_below(r, (uint64_t)(C - j));
            int32_t t = perm[j];
            perm[j] = perm[k];
            perm[k] = t;
            st->col[nnz] = perm[j];
            st->val[nnz] = (float)(2.0 * dgnn_rng_uniform(r) - 1.0);
            nnz++;
        }
        st->rowptr[i + 1] = nnz;
    }
    free(perm);
    return dgnn_csr_view(st->rowptr, st->col, st->val, R, C);
}

static void free_store(csr_store *st) {
    free(st->rowptr);
    free(st->col);
    free(st->val);
}

static double *to_dense(const dgnn_csr *a) {
    double *d = calloc((size_t)(a->rows * a->cols), sizeof *d);
    for (int64_t i = 0; i < a->rows; i++)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) d[i * a->cols + a->col[e]] += a->val[e];
    return d;
}

static float *rand_vec(int64_t n, dgnn_rng *r) {
    float *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    gradcheck_fill(x, n, r, -1.0, 1.0);
    return x;
}

/* ---- SpMM ----------------------------------------------------------------------------- */

static void test_spmm(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 11);
    const int64_t sizes[][3] = {{300, 250, 17}, {300, 250, 1}, {40, 60, 64}, {3000, 2500, 16}};
    for (int s = 0; s < 4; s++) {
        int64_t R = sizes[s][0], C = sizes[s][1], F = sizes[s][2];
        csr_store st;
        dgnn_csr A = make_csr(&st, R, C, R / 3, &r);
        CHECK(A.rows == R && A.cols == C && A.nnz == st.rowptr[R]);
        CHECK(A.rowptr[R / 3 + 1] - A.rowptr[R / 3] == C * 3 / 4); /* the hub */
        CHECK(A.rowptr[2] == A.rowptr[1]);                            /* an empty row */
        float *X = rand_vec(C * F, &r), *Y = rand_vec(R * F, &r), *Yr = malloc((size_t)(R * F) * sizeof(float));
        float *Y1 = malloc((size_t)(R * F) * sizeof(float));
        /* overwrite mode: Y's old contents must not leak in (Y is random garbage) */
        dgnn_spmm(Y, &A, X, F, 0);
        dgnn_spmm_ref(Yr, &A, X, F, 0);
        CHECK_MSG(gradcheck_maxdiff(Y, Yr, R * F) < 1e-5, "spmm vs ref %g", gradcheck_maxdiff(Y, Yr, R * F));
        /* against the dense product */
        double *D = to_dense(&A), worst = 0;
        for (int64_t i = 0; i < R; i++)
            for (int64_t f = 0; f < F; f++) {
                double acc = 0;
                for (int64_t c = 0; c < C; c++) acc += D[i * C + c] * X[c * F + f];
                double d = fabs(acc - Y[i * F + f]);
                if (d > worst) worst = d;
            }
        CHECK_MSG(worst < 1e-4, "spmm vs dense %g", worst);
        /* empty rows are zero */
        int zero = 1;
        for (int64_t f = 0; f < F; f++) zero &= Y[1 * F + f] == 0.0f;
        CHECK(zero);
        /* the same bits for 1 and 2 threads */
        int prev = omp_get_max_threads();
        omp_set_num_threads(1);
        dgnn_spmm(Y1, &A, X, F, 0);
        omp_set_num_threads(2);
        dgnn_spmm(Y, &A, X, F, 0);
        omp_set_num_threads(prev);
        CHECK(memcmp(Y, Y1, (size_t)(R * F) * sizeof(float)) == 0);
        /* accumulate mode: Y += A X, on both */
        for (int64_t i = 0; i < R * F; i++) Y[i] = Yr[i] = (float)i * 0.001f;
        dgnn_spmm(Y, &A, X, F, 1);
        dgnn_spmm_ref(Yr, &A, X, F, 1);
        CHECK(gradcheck_maxdiff(Y, Yr, R * F) < 1e-5);
        CHECK_NEAR(Y[1 * F], 0.001f * (float)F, 1e-6); /* empty row keeps its old value */
        free(D);
        free(X);
        free(Y);
        free(Yr);
        free(Y1);
        free_store(&st);
    }
}

static void test_transpose(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 12);
    csr_store st;
    dgnn_csr A = make_csr(&st, 70, 45, 10, &r);
    dgnn_csr T, TT;
    dgnn_err err;
    CHECK(dgnn_csr_transpose(&T, &A, &err) == 0);
    CHECK(T.rows == 45 && T.cols == 70 && T.nnz == A.nnz && T.owned_ != NULL);
    double *DA = to_dense(&A), *DT = to_dense(&T);
    int same = 1, sorted = 1;
    for (int64_t i = 0; i < 70; i++)
        for (int64_t j = 0; j < 45; j++) same &= DA[i * 45 + j] == DT[j * 70 + i];
    CHECK(same);
    for (int64_t i = 0; i < T.rows; i++)
        for (int64_t e = T.rowptr[i] + 1; e < T.rowptr[i + 1]; e++) sorted &= T.col[e - 1] < T.col[e];
    CHECK(sorted);
    /* transposing twice gives A back (with sorted columns) */
    CHECK(dgnn_csr_transpose(&TT, &T, &err) == 0);
    double *DTT = to_dense(&TT);
    CHECK(memcmp(DTT, DA, sizeof(double) * 70 * 45) == 0);
    CHECK(!dgnn_csr_is_symmetric(&A, 0)); /* not square */
    free(DTT);
    dgnn_csr_free(&TT);
    dgnn_csr_free(&T);
    CHECK(T.owned_ == NULL && T.rowptr == NULL);

    /* a symmetric matrix: B = A' + A'^T for a square random A' (with a diagonal) */
    csr_store s2;
    dgnn_csr S = make_csr(&s2, 50, 50, 3, &r);
    dgnn_csr St;
    CHECK(dgnn_csr_transpose(&St, &S, &err) == 0);
    double *DS = to_dense(&S), *DSt = to_dense(&St);
    int64_t *rp = malloc(51 * sizeof *rp);
    int32_t *cl = malloc(2500 * sizeof *cl);
    float *vl = malloc(2500 * sizeof *vl);
    int64_t nnz = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < 50; i++) {
        for (int64_t j = 49; j >= 0; j--) { /* descending: unsorted rows on purpose */
            double v = DS[i * 50 + j] + DSt[i * 50 + j] + (i == j ? 1.0 : 0.0);
            if (v != 0.0) {
                cl[nnz] = (int32_t)j;
                vl[nnz++] = (float)v;
            }
        }
        rp[i + 1] = nnz;
    }
    dgnn_csr B = dgnn_csr_view(rp, cl, vl, 50, 50);
    CHECK(dgnn_csr_is_symmetric(&B, 0));
    CHECK(!dgnn_csr_is_symmetric(&S, 0));
    vl[3] += 0.01f; /* break one value: no longer symmetric, but within a loose tolerance */
    CHECK(!dgnn_csr_is_symmetric(&B, 1e-3f));
    CHECK(dgnn_csr_is_symmetric(&B, 0.1f));
    free(rp);
    free(cl);
    free(vl);
    free(DS);
    free(DSt);
    dgnn_csr_free(&St);
    free_store(&s2);
    free(DA);
    free(DT);
    free_store(&st);

    /* the A_hat view of a snapshot */
    dgnn_snapshot g;
    memset(&g, 0, sizeof g);
    int64_t hrp[] = {0, 1, 3, 4};
    int32_t hc[] = {0, 1, 2, 2};
    float hv[] = {1, 0.5f, 0.5f, 1};
    g.num_nodes = 3;
    g.hat_nnz = 4;
    g.hat_rowptr = hrp;
    g.hat_col = hc;
    g.hat_val = hv;
    dgnn_csr H = dgnn_csr_of_hat(&g);
    CHECK(H.rows == 3 && H.cols == 3 && H.nnz == 4 && H.rowptr == hrp && H.col == hc && H.val == hv);
    dgnn_csr_free(&H); /* a view: nothing freed, struct zeroed */
    CHECK(hrp[3] == 4);
}

/* loss = w . (A X) for the gradcheck of X */
typedef struct {
    const dgnn_csr *A;
    float *X, *Y;
    const float *w;
    int64_t F;
} spmm_ctx;

static double spmm_loss(void *p) {
    spmm_ctx *c = p;
    dgnn_spmm(c->Y, c->A, c->X, c->F, 0);
    return gradcheck_dot(c->Y, c->w, c->A->rows * c->F);
}

static void test_spmm_backward(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 13);
    csr_store st;
    int64_t R = 30, C = 20, F = 5;
    dgnn_csr A = make_csr(&st, R, C, 4, &r), At;
    dgnn_err err;
    CHECK(dgnn_csr_transpose(&At, &A, &err) == 0);
    float *X = rand_vec(C * F, &r), *Y = rand_vec(R * F, &r), *w = rand_vec(R * F, &r);
    float *dX = calloc((size_t)(C * F), sizeof(float));
    for (int64_t i = 0; i < C * F; i++) dX[i] = 0.25f; /* backward accumulates onto this */
    dgnn_spmm_backward(dX, &At, w, F);
    /* dense check: dX = 0.25 + A^T w */
    double *D = to_dense(&A), worst = 0;
    for (int64_t c = 0; c < C; c++)
        for (int64_t f = 0; f < F; f++) {
            double acc = 0.25;
            for (int64_t i = 0; i < R; i++) acc += D[i * C + c] * w[i * F + f];
            worst = fmax(worst, fabs(acc - dX[c * F + f]));
        }
    CHECK_MSG(worst < 1e-5, "%g", worst);
    for (int64_t i = 0; i < C * F; i++) dX[i] -= 0.25f;
    spmm_ctx ctx = {&A, X, Y, w, F};
    CHECK(gradcheck("spmm dX", spmm_loss, &ctx, X, dX, C * F) == 0);
    free(D);
    free(X);
    free(Y);
    free(w);
    free(dX);
    dgnn_csr_free(&At);
    free_store(&st);
}

static void test_measurements(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 14);
    csr_store st;
    dgnn_csr A = make_csr(&st, 2000, 2000, 7, &r);
    int64_t F = 8;
    double bytes = (double)A.nnz * 8 + (double)A.nnz * F * 4 + 2000.0 * F * 4;
    CHECK_NEAR(dgnn_spmm_bytes(&A, F), bytes, 0.5);
    dgnn_spmm_perf perf;
    dgnn_spmm_bench(&perf, &A, F, 0.02, 5);
    CHECK(perf.calls >= 1 && perf.seconds >= 0.02 && perf.gbps > 0 && perf.gflops > 0);
    CHECK_NEAR(perf.gbps, perf.bytes_per_call * (double)perf.calls / perf.seconds / 1e9, 1e-9 * perf.gbps);
    double bw = dgnn_triad_gbps(1 << 20, 0.02);
    CHECK(bw > 0.1 && bw < 1e5);
    printf("spmm %lld x %lld nnz %lld F %lld: %.2f GB/s effective, %.2f GFLOP/s; triad (24 MB): %.1f GB/s\n",
           (long long)A.rows, (long long)A.cols, (long long)A.nnz, (long long)F, perf.gbps, perf.gflops, bw);
    free_store(&st);
}

/* ---- matrix GRU ----------------------------------------------------------------------- */

static double sig(double a) {
    return 1.0 / (1.0 + exp(-a));
}

static void test_mgru_hand(void) {
    /* R = 1, C = 2: every matrix product is a scalar times a row.
     * W = [wz; wr; wh], U = [uz; ur; uh] (1 x 1 each), B (3, 2). */
    const int64_t R = 1, C = 2;
    float params[6 + 6] = {0.5f, -0.3f, 0.8f, /* W */ 0.2f, 0.7f, -0.6f, /* U */
                           0.1f, -0.1f, 0.0f, 0.2f, -0.05f, 0.3f /* B */};
    CHECK(dgnn_mgru_param_count(R, C) == 12);
    float x[2] = {1.0f, -2.0f}, q[2] = {0.4f, 0.9f}, qn[2], saved[8];
    dgnn_mgru_forward(qn, saved, x, q, params, R, C);
    for (int c = 0; c < 2; c++) {
        double z = sig(0.5 * x[c] + 0.2 * q[c] + params[6 + c]);
        double rs = sig(-0.3 * x[c] + 0.7 * q[c] + params[8 + c]);
        double hc = tanh(0.8 * x[c] - 0.6 * (rs * q[c]) + params[10 + c]);
        double expect = (1 - z) * q[c] + z * hc;
        CHECK_NEAR(qn[c], expect, 1e-6);
        CHECK_NEAR(saved[c], z, 1e-6);
        CHECK_NEAR(saved[2 + c], rs, 1e-6);
        CHECK_NEAR(saved[4 + c], hc, 1e-6);
        CHECK_NEAR(saved[6 + c], rs * q[c], 1e-6);
    }
    /* one fully written-out value: c = 0: z = sig(0.5 + 0.08 + 0.1) = sig(0.68),
     * rs = sig(-0.3 + 0.28 + 0) = sig(-0.02), hc = tanh(0.8 - 0.24 sig(-0.02) - 0.05) */
    double z0 = 1 / (1 + exp(-0.68)), r0 = 1 / (1 + exp(0.02)), h0 = tanh(0.75 - 0.24 * r0);
    CHECK_NEAR(qn[0], (1 - z0) * 0.4 + z0 * h0, 1e-6);
}

/* dense reference of the matrix GRU, straight from the formulas */
static void mgru_ref(double *out, const float *x, const float *q, const float *P, int64_t R, int64_t C) {
    const float *W = P, *U = P + 3 * R * R, *B = P + 6 * R * R;
    double *Z = calloc((size_t)(R * C), 8), *Rs = calloc((size_t)(R * C), 8);
    for (int64_t i = 0; i < R; i++)
        for (int64_t c = 0; c < C; c++) {
            double az = B[i * C + c], ar = B[(R + i) * C + c];
            for (int64_t k = 0; k < R; k++) {
                az += (double)W[i * R + k] * x[k * C + c] + (double)U[i * R + k] * q[k * C + c];
                ar += (double)W[(R + i) * R + k] * x[k * C + c] + (double)U[(R + i) * R + k] * q[k * C + c];
            }
            Z[i * C + c] = sig(az);
            Rs[i * C + c] = sig(ar);
        }
    for (int64_t i = 0; i < R; i++)
        for (int64_t c = 0; c < C; c++) {
            double ah = B[(2 * R + i) * C + c];
            for (int64_t k = 0; k < R; k++)
                ah += (double)W[(2 * R + i) * R + k] * x[k * C + c] +
                      (double)U[(2 * R + i) * R + k] * Rs[k * C + c] * q[k * C + c];
            double z = Z[i * C + c];
            out[i * C + c] = (1 - z) * q[i * C + c] + z * tanh(ah);
        }
    free(Z);
    free(Rs);
}

typedef struct {
    float *x, *q, *P, *qn, *saved;
    const float *w;
    int64_t R, C;
    int same; /* x == q */
} mgru_ctx;

static double mgru_loss(void *p) {
    mgru_ctx *c = p;
    dgnn_mgru_forward(c->qn, c->saved, c->same ? c->q : c->x, c->q, c->P, c->R, c->C);
    return gradcheck_dot(c->qn, c->w, c->R * c->C);
}

static void test_mgru(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 21);
    const int64_t R = 5, C = 3, RC = R * C;
    int64_t np = dgnn_mgru_param_count(R, C);
    CHECK(np == 6 * 25 + 3 * 15);
    float *P = malloc((size_t)np * sizeof *P);
    dgnn_mgru_init(P, R, C, &r);
    int in_range = 1, bias_zero = 1;
    for (int64_t i = 0; i < 6 * R * R; i++) in_range &= fabsf(P[i]) <= 1.0f / sqrtf((float)R);
    for (int64_t i = 6 * R * R; i < np; i++) bias_zero &= P[i] == 0.0f;
    CHECK(in_range && bias_zero);
    gradcheck_fill(P + 6 * R * R, 3 * RC, &r, -0.5, 0.5); /* non-zero biases for the tests */
    float *x = rand_vec(RC, &r), *q = rand_vec(RC, &r), *w = rand_vec(RC, &r);
    float *qn = malloc((size_t)RC * sizeof *qn), *saved = malloc((size_t)(4 * RC) * sizeof *saved);
    double *ref = malloc((size_t)RC * sizeof *ref);
    dgnn_mgru_forward(qn, saved, x, q, P, R, C);
    mgru_ref(ref, x, q, P, R, C);
    double worst = 0;
    for (int64_t i = 0; i < RC; i++) worst = fmax(worst, fabs(qn[i] - ref[i]));
    CHECK_MSG(worst < 1e-5, "mgru vs ref %g", worst);

    for (int same = 0; same <= 1; same++) {
        float *dx = calloc((size_t)RC, sizeof *dx), *dq = calloc((size_t)RC, sizeof *dq);
        float *dP = calloc((size_t)np, sizeof *dP);
        dgnn_mgru_forward(qn, saved, same ? q : x, q, P, R, C);
        dgnn_mgru_backward(same ? dq : dx, dq, dP, w, saved, same ? q : x, q, P, R, C);
        mgru_ctx ctx = {x, q, P, qn, saved, w, R, C, same};
        if (!same) CHECK(gradcheck("mgru dx", mgru_loss, &ctx, x, dx, RC) == 0);
        CHECK(gradcheck(same ? "mgru dq (x == q)" : "mgru dq", mgru_loss, &ctx, q, dq, RC) == 0);
        CHECK(gradcheck(same ? "mgru dparams (x == q)" : "mgru dparams", mgru_loss, &ctx, P, dP, np) == 0);
        /* accumulation: a second backward doubles every gradient (forward again first:
         * the gradchecks left `saved` from a perturbed input) */
        dgnn_mgru_forward(qn, saved, same ? q : x, q, P, R, C);
        float *dP2 = malloc((size_t)np * sizeof *dP2);
        memcpy(dP2, dP, (size_t)np * sizeof *dP2);
        dgnn_mgru_backward(NULL, dq, dP2, w, saved, same ? q : x, q, P, R, C);
        int doubled = 1;
        for (int64_t i = 0; i < np; i++) doubled &= fabsf(dP2[i] - 2 * dP[i]) <= 1e-6f * (1 + fabsf(dP[i]));
        CHECK(doubled);
        free(dP2);
        free(dx);
        free(dq);
        free(dP);
    }
    free(P);
    free(x);
    free(q);
    free(w);
    free(qn);
    free(saved);
    free(ref);
}

/* ---- TopK ----------------------------------------------------------------------------- */

static void test_topk_hand(void) {
    /* p = (2, 0): score_i = X_i0 (|p| divides out). Rows 1 and 3 tie at 0.5. */
    const int64_t N = 6, F = 2;
    float X[] = {0.1f, 1.0f, 0.5f, 2.0f, -0.3f, 3.0f, 0.5f, 4.0f, 0.9f, 5.0f, 0.2f, 6.0f};
    float p[] = {2.0f, 0.0f};
    float out[2 * 4], ts[4];
    int32_t idx[4];
    int64_t n = dgnn_topk_forward(out, idx, ts, X, p, NULL, N, F, 3);
    CHECK(n == 3);
    CHECK(idx[0] == 4 && idx[1] == 1 && idx[2] == 3); /* 0.9, then the tie 0.5 by lower index */
    CHECK_NEAR(ts[0], tanh(0.9), 1e-6);
    /* out (F, k): column j = X[idx j] * tanh(score) */
    CHECK_NEAR(out[0 * 3 + 0], 0.9 * tanh(0.9), 1e-6);
    CHECK_NEAR(out[1 * 3 + 0], 5.0 * tanh(0.9), 1e-6);
    CHECK_NEAR(out[1 * 3 + 2], 4.0 * tanh(0.5), 1e-6);
    /* mask: rows 4 and 1 invalid -> 3 (0.5), 5 (0.2), 0 (0.1) */
    uint8_t mask[] = {1, 0, 1, 1, 0, 1};
    n = dgnn_topk_forward(out, idx, ts, X, p, mask, N, F, 3);
    CHECK(n == 3 && idx[0] == 3 && idx[1] == 5 && idx[2] == 0);
    /* padding: 2 valid rows (3 and 2), k = 4 -> [3, 2, 2, 2] (pad_with_last_val) */
    uint8_t mask2[] = {0, 0, 1, 1, 0, 0};
    n = dgnn_topk_forward(out, idx, ts, X, p, mask2, N, F, 4);
    CHECK(n == 2 && idx[0] == 3 && idx[1] == 2 && idx[2] == 2 && idx[3] == 2);
    CHECK_NEAR(out[1 * 4 + 3], 3.0 * tanh(-0.3), 1e-6);
    CHECK(out[1 * 4 + 2] == out[1 * 4 + 3]);
    /* fewer rows than k, no mask: all 6 sorted, then the last repeated */
    float out8[2 * 8], ts8[8];
    int32_t idx8[8];
    n = dgnn_topk_forward(out8, idx8, ts8, X, p, NULL, N, F, 8);
    const int32_t want8[] = {4, 1, 3, 5, 0, 2, 2, 2};
    CHECK(n == 6 && memcmp(idx8, want8, sizeof want8) == 0);
    /* the node mask of a snapshot: nodes with an edge (either end), not the A_hat loops */
    {
        dgnn_snapshot g;
        memset(&g, 0, sizeof g);
        int64_t rp[] = {0, 0, 2, 2, 2, 3};
        int32_t cl[] = {0, 3, 4}; /* 1->0, 1->3, 4->4 */
        g.num_nodes = 5;
        g.rowptr = rp;
        g.col = cl;
        uint8_t m[5];
        dgnn_topk_mask_of_snapshot(m, &g);
        CHECK(m[0] == 1 && m[1] == 1 && m[2] == 0 && m[3] == 1 && m[4] == 1);
    }
    /* no valid row: zeros and -1, and backward does nothing */
    uint8_t none[6] = {0};
    n = dgnn_topk_forward(out, idx, ts, X, p, none, N, F, 3);
    CHECK(n == 0 && idx[0] == -1 && idx[2] == -1 && out[0] == 0.0f && out[5] == 0.0f);
    float dX[12] = {0}, dp[2] = {0}, dout[6] = {1, 1, 1, 1, 1, 1};
    dgnn_topk_backward(dX, dp, dout, idx, ts, X, p, N, F, 3);
    CHECK(dX[0] == 0.0f && dp[0] == 0.0f);
}

typedef struct {
    float *X, *p, *out, *ts;
    int32_t *idx;
    const uint8_t *mask;
    const float *w;
    int64_t N, F, k;
} topk_ctx;

static double topk_loss(void *pc) {
    topk_ctx *c = pc;
    dgnn_topk_forward(c->out, c->idx, c->ts, c->X, c->p, c->mask, c->N, c->F, c->k);
    return gradcheck_dot(c->out, c->w, c->F * c->k);
}

static void test_topk_grad(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 31);
    const int64_t N = 12, F = 4;
    for (int pad = 0; pad <= 1; pad++) {
        int64_t k = pad ? 5 : 3;
        float *X = rand_vec(N * F, &r), p[4];
        dgnn_topk_init(p, F, &r);
        int ok = 1;
        for (int f = 0; f < 4; f++) ok &= fabsf(p[f]) <= 0.5f;
        CHECK(ok);
        /* pad: only 3 valid rows for k = 5: two padded columns repeat the last index */
        uint8_t mask[12];
        for (int i = 0; i < 12; i++) mask[i] = pad ? (i % 4 == 0) : 1;
        float *w = rand_vec(F * k, &r), *out = malloc((size_t)(F * k) * sizeof(float)), ts[5];
        int32_t idx[5];
        float *dX = calloc((size_t)(N * F), sizeof(float)), dp[4] = {0};
        int64_t n = dgnn_topk_forward(out, idx, ts, X, p, pad ? mask : NULL, N, F, k);
        CHECK(n == 3);
        if (pad) CHECK(idx[2] == idx[3] && idx[3] == idx[4]);
        dgnn_topk_backward(dX, dp, w, idx, ts, X, p, N, F, k);
        topk_ctx ctx = {X, p, out, ts, idx, pad ? mask : NULL, w, N, F, k};
        /* eps small: a perturbation must not reorder the selection */
        gradcheck_opts o = gradcheck_defaults();
        o.eps = 1e-4;
        o.atol = 2e-3;
        CHECK(gradcheck_ex(pad ? "topk dX (padded)" : "topk dX", topk_loss, &ctx, X, dX, N * F, &o) == 0);
        CHECK(gradcheck_ex(pad ? "topk dp (padded)" : "topk dp", topk_loss, &ctx, p, dp, F, &o) == 0);
        free(X);
        free(w);
        free(out);
        free(dX);
    }
}

/* ---- losses --------------------------------------------------------------------------- */

typedef struct {
    float *z;
    const int32_t *y;
    const float *cw;
    int64_t M, C;
} wce_ctx;

static double wce_loss(void *p) {
    wce_ctx *c = p;
    return dgnn_wce_forward(c->z, c->y, c->cw, c->M, c->C);
}

typedef struct {
    float *pred;
    const float *target;
    int64_t n;
} mse_ctx;

static double mse_loss(void *p) {
    mse_ctx *c = p;
    return dgnn_mse_forward(c->pred, c->target, c->n);
}

static void test_losses(void) {
    /* hand value: (0.3 (lse(1,-1) - 1) + 0.7 (lse(0.5,0.2) - 0.2)) / 2 */
    float z[] = {1.0f, -1.0f, 0.5f, 0.2f};
    int32_t y[] = {0, 1};
    float cw[] = {0.3f, 0.7f};
    double l1 = log(exp(1.0) + exp(-1.0)) - 1.0, l2 = log(exp(0.5) + exp(0.2)) - 0.2;
    CHECK_NEAR(dgnn_wce_forward(z, y, cw, 2, 2), (0.3 * l1 + 0.7 * l2) / 2, 1e-7);
    CHECK_NEAR(dgnn_wce_forward(z, y, NULL, 2, 2), (l1 + l2) / 2, 1e-7);
    CHECK(dgnn_wce_forward(z, y, cw, 0, 2) == 0.0);
    /* huge logits: no overflow; loss = 0 for the right class far ahead, 1000 for the wrong */
    float big[] = {1000.0f, 0.0f, 0.0f, 1000.0f};
    int32_t yb[] = {0, 0};
    double lb = dgnn_wce_forward(big, yb, NULL, 2, 2);
    CHECK(isfinite(lb));
    CHECK_NEAR(lb, 500.0, 1e-6);
    /* hand gradient: row 0, class weights: d z00 = 0.3/2 (softmax0 - 1) */
    float dz[4] = {0};
    dgnn_wce_backward(dz, 1.0f, z, y, cw, 2, 2);
    double s0 = exp(1.0) / (exp(1.0) + exp(-1.0));
    CHECK_NEAR(dz[0], 0.15 * (s0 - 1), 1e-7);
    CHECK_NEAR(dz[1], 0.15 * (1 - s0), 1e-7);
    /* gradchecks: C = 2 and C = 4 with weights */
    dgnn_rng r;
    dgnn_rng_seed(&r, 41);
    for (int64_t C = 2; C <= 4; C += 2) {
        int64_t M = 9;
        float *zz = rand_vec(M * C, &r), *dzz = calloc((size_t)(M * C), sizeof(float));
        for (int64_t i = 0; i < M * C; i++) zz[i] *= 3.0f;
        int32_t yy[9];
        for (int i = 0; i < 9; i++) yy[i] = (int32_t)dgnn_rng_below(&r, (uint64_t)C);
        float ww[4] = {0.2f, 1.5f, 0.7f, 1.0f};
        dgnn_wce_backward(dzz, 2.0f, zz, yy, ww, M, C);
        for (int64_t i = 0; i < M * C; i++) dzz[i] *= 0.5f; /* dloss = 2 scaled everything by 2 */
        wce_ctx ctx = {zz, yy, ww, M, C};
        CHECK(gradcheck(C == 2 ? "wce dlogits C=2" : "wce dlogits C=4", wce_loss, &ctx, zz, dzz, M * C) == 0);
        free(zz);
        free(dzz);
    }
    /* thread-count independence on a large batch */
    {
        int64_t M = 100000, C = 2;
        float *zz = rand_vec(M * C, &r);
        int32_t *yy = malloc((size_t)M * sizeof *yy);
        for (int64_t i = 0; i < M; i++) yy[i] = (int32_t)(i % 3 == 0);
        int prev = omp_get_max_threads();
        omp_set_num_threads(1);
        double a = dgnn_wce_forward(zz, yy, cw, M, C), ma = dgnn_mse_forward(zz, zz + M, M);
        omp_set_num_threads(2);
        double b = dgnn_wce_forward(zz, yy, cw, M, C), mb = dgnn_mse_forward(zz, zz + M, M);
        omp_set_num_threads(prev);
        CHECK(a == b && ma == mb);
        free(zz);
        free(yy);
    }
    /* MSE: hand value and gradient */
    float pr[] = {1.0f, 2.0f, -1.0f}, tg[] = {0.5f, 2.0f, 1.0f};
    CHECK_NEAR(dgnn_mse_forward(pr, tg, 3), (0.25 + 0 + 4) / 3, 1e-7);
    float dp[3] = {1, 1, 1};
    dgnn_mse_backward(dp, 1.0f, pr, tg, 3);
    CHECK_NEAR(dp[0], 1 + 2 * 0.5 / 3, 1e-7);
    CHECK_NEAR(dp[2], 1 + 2 * -2.0 / 3, 1e-6);
    float *pp = rand_vec(20, &r), *tt = rand_vec(20, &r), *dpp = calloc(20, sizeof(float));
    dgnn_mse_backward(dpp, 1.0f, pp, tt, 20);
    mse_ctx mc = {pp, tt, 20};
    CHECK(gradcheck("mse dpred", mse_loss, &mc, pp, dpp, 20) == 0);
    free(pp);
    free(tt);
    free(dpp);
}

/* ---- RReLU ---------------------------------------------------------------------------- */

typedef struct {
    float *x, *y, *slope;
    const float *w;
    int64_t n;
    uint64_t seed;
} rrelu_ctx;

static double rrelu_loss(void *p) {
    rrelu_ctx *c = p;
    dgnn_rng r;
    dgnn_rng_seed(&r, c->seed); /* the same draws on every evaluation */
    dgnn_rrelu_forward(c->y, c->slope, c->x, c->n, 0.125f, 1.0f / 3.0f, 1, &r);
    return gradcheck_dot(c->y, c->w, c->n);
}

static void test_rrelu(void) {
    const float lo = 0.125f, hi = 1.0f / 3.0f;
    float x[] = {-2.0f, 0.0f, 3.0f, -0.5f}, y[4], s[4];
    dgnn_rrelu_forward(y, s, x, 4, lo, hi, 0, NULL);
    float mid = 0.5f * (lo + hi);
    CHECK_NEAR(y[0], -2.0 * mid, 1e-7);
    CHECK(y[1] == 0.0f && y[2] == 3.0f && s[1] == mid && s[2] == 1.0f);
    CHECK_NEAR(y[3], -0.5 * mid, 1e-7);
    /* training: slopes of x <= 0 in [lo, hi], positive passes, reproducible per seed,
     * the same for 1 and 2 threads, different across calls, mean near the middle */
    const int64_t n = 200000;
    dgnn_rng r;
    dgnn_rng_seed(&r, 51);
    float *xx = rand_vec(n, &r), *y1 = malloc((size_t)n * 4), *s1 = malloc((size_t)n * 4);
    float *y2 = malloc((size_t)n * 4), *s2 = malloc((size_t)n * 4);
    dgnn_rng a, b;
    dgnn_rng_seed(&a, 7);
    dgnn_rng_seed(&b, 7);
    int prev = omp_get_max_threads();
    omp_set_num_threads(1);
    dgnn_rrelu_forward(y1, s1, xx, n, lo, hi, 1, &a);
    omp_set_num_threads(2);
    dgnn_rrelu_forward(y2, s2, xx, n, lo, hi, 1, &b);
    omp_set_num_threads(prev);
    CHECK(memcmp(y1, y2, (size_t)n * 4) == 0 && memcmp(s1, s2, (size_t)n * 4) == 0);
    int ok = 1;
    double sum = 0;
    int64_t neg = 0;
    for (int64_t i = 0; i < n; i++) {
        if (xx[i] > 0) ok &= s1[i] == 1.0f && y1[i] == xx[i];
        else {
            ok &= s1[i] >= lo && s1[i] <= hi && y1[i] == xx[i] * s1[i];
            sum += s1[i];
            neg++;
        }
    }
    CHECK(ok);
    CHECK_NEAR(sum / (double)neg, mid, 2e-3);
    dgnn_rrelu_forward(y2, s2, xx, n, lo, hi, 1, &a); /* the generator moved on */
    CHECK(memcmp(s1, s2, (size_t)n * 4) != 0);
    /* in place */
    memcpy(y2, xx, (size_t)n * 4);
    dgnn_rng_seed(&b, 7);
    dgnn_rrelu_forward(y2, s2, y2, n, lo, hi, 1, &b);
    CHECK(memcmp(y1, y2, (size_t)n * 4) == 0);
    /* gradient (training mode, slopes fixed by the seed) */
    float *gx = rand_vec(30, &r), *gw = rand_vec(30, &r), gy[30], gs[30], dx[30] = {0};
    rrelu_ctx ctx = {gx, gy, gs, gw, 30, 99};
    rrelu_loss(&ctx);
    dgnn_rrelu_backward(dx, gw, gs, 30);
    CHECK(gradcheck("rrelu dx", rrelu_loss, &ctx, gx, dx, 30) == 0);
    free(gx);
    free(gw);
    free(xx);
    free(y1);
    free(s1);
    free(y2);
    free(s2);
}

/* ---- GCN layer ------------------------------------------------------------------------ */

typedef struct {
    const dgnn_csr *A;
    float *X, *W, *b, *Y, *saved;
    const float *w;
    int64_t N, I, O;
} gcn_ctx;

static double gcn_loss(void *p) {
    gcn_ctx *c = p;
    dgnn_gcn_forward(c->Y, c->saved, c->A, c->X, c->W, c->b, c->N, c->I, c->O);
    return gradcheck_dot(c->Y, c->w, c->N * c->O);
}

static void test_gcn(void) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 61);
    const int64_t N = 25;
    csr_store st;
    dgnn_csr A = make_csr(&st, N, N, 5, &r), At; /* square, not symmetric, with a hub row */
    dgnn_err err;
    CHECK(dgnn_csr_transpose(&At, &A, &err) == 0);
    double *D = to_dense(&A);
    CHECK(dgnn_gcn_xw_first(6, 3) && dgnn_gcn_xw_first(4, 4) && !dgnn_gcn_xw_first(3, 6));
    const int64_t dims[][2] = {{6, 3}, {3, 6}};
    for (int d = 0; d < 2; d++) {
        int64_t I = dims[d][0], O = dims[d][1], m = I < O ? I : O;
        float *X = rand_vec(N * I, &r), *W = rand_vec(O * I, &r), *b = rand_vec(O, &r), *w = rand_vec(N * O, &r);
        float *Y = malloc((size_t)(N * O) * sizeof(float)), *saved = malloc((size_t)(N * m) * sizeof(float));
        float *scratch = malloc((size_t)(N * m) * sizeof(float));
        dgnn_gcn_forward(Y, saved, &A, X, W, b, N, I, O);
        /* dense: Y = D X W^T + b */
        double worst = 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < O; o++) {
                double acc = b[o];
                for (int64_t j = 0; j < N; j++) {
                    if (D[i * N + j] == 0) continue;
                    double xw = 0;
                    for (int64_t k = 0; k < I; k++) xw += (double)X[j * I + k] * W[o * I + k];
                    acc += D[i * N + j] * xw;
                }
                worst = fmax(worst, fabs(acc - Y[i * O + o]));
            }
        CHECK_MSG(worst < 1e-5, "gcn %lld->%lld vs dense %g", (long long)I, (long long)O, worst);
        float *dX = calloc((size_t)(N * I), sizeof(float)), *dW = calloc((size_t)(O * I), sizeof(float));
        float *db = calloc((size_t)O, sizeof(float));
        dgnn_gcn_backward(dX, dW, db, scratch, w, saved, &At, X, W, N, I, O);
        gcn_ctx ctx = {&A, X, W, b, Y, saved, w, N, I, O};
        const char *nx = d == 0 ? "gcn A(XW) dX" : "gcn (AX)W dX", *nw = d == 0 ? "gcn A(XW) dW" : "gcn (AX)W dW";
        const char *nb = d == 0 ? "gcn A(XW) db" : "gcn (AX)W db";
        CHECK(gradcheck(nx, gcn_loss, &ctx, X, dX, N * I) == 0);
        CHECK(gradcheck(nw, gcn_loss, &ctx, W, dW, O * I) == 0);
        CHECK(gradcheck(nb, gcn_loss, &ctx, b, db, O) == 0);
        /* without dX (a first layer's input): the same dW and db */
        dgnn_gcn_forward(Y, saved, &A, X, W, b, N, I, O);
        float *dW2 = calloc((size_t)(O * I), sizeof(float)), *db2 = calloc((size_t)O, sizeof(float));
        dgnn_gcn_backward(NULL, dW2, db2, scratch, w, saved, &At, X, W, N, I, O);
        CHECK(gradcheck_maxdiff(dW2, dW, O * I) < 1e-6 && gradcheck_maxdiff(db2, db, O) < 1e-6);
        /* no bias: the same product, b added after propagation in both orders */
        float *Yb = malloc((size_t)(N * O) * sizeof(float));
        dgnn_gcn_forward(Yb, saved, &A, X, W, b, N, I, O);
        dgnn_gcn_forward(Y, saved, &A, X, W, NULL, N, I, O);
        double wb = 0;
        for (int64_t i = 0; i < N * O; i++) wb = fmax(wb, fabs(Y[i] + b[i % O] - Yb[i]));
        CHECK_MSG(wb < 1e-6, "%g", wb);
        free(Yb);
        free(dW2);
        free(db2);
        free(X);
        free(W);
        free(b);
        free(w);
        free(Y);
        free(saved);
        free(scratch);
        free(dX);
        free(dW);
        free(db);
    }
    /* one-hot input: the same as the dense layer on the one-hot matrix with W = E^T */
    {
        const int64_t V = 7, O = 4;
        int32_t idx[25];
        for (int64_t i = 0; i < N; i++) idx[i] = i == 2 ? -1 : (int32_t)dgnn_rng_below(&r, 5); /* shared rows */
        float *E = rand_vec(V * O, &r), *b = rand_vec(O, &r), *w = rand_vec(N * O, &r);
        float *Xd = calloc((size_t)(N * V), sizeof(float)), *Wt = malloc((size_t)(O * V) * sizeof(float));
        for (int64_t i = 0; i < N; i++)
            if (idx[i] >= 0) Xd[i * V + idx[i]] = 1.0f;
        dgnn_transpose(Wt, E, V, O, 0);
        float *Y = malloc((size_t)(N * O) * 4), *Yd = malloc((size_t)(N * O) * 4), *sv = malloc((size_t)(N * V) * 4);
        float *scr = malloc((size_t)(N * V) * 4);
        dgnn_gcn_onehot_forward(Y, sv, &A, idx, E, b, N, V, O);
        dgnn_gcn_forward(Yd, scr, &A, Xd, Wt, b, N, V, O);
        CHECK_MSG(gradcheck_maxdiff(Y, Yd, N * O) < 1e-5, "onehot vs dense %g", gradcheck_maxdiff(Y, Yd, N * O));
        float *dE = calloc((size_t)(V * O), 4), *db = calloc((size_t)O, 4);
        float *dWt = calloc((size_t)(O * V), 4), *db2 = calloc((size_t)O, 4), *dEd = calloc((size_t)(V * O), 4);
        dgnn_gcn_onehot_backward(dE, db, scr, w, &At, idx, N, V, O);
        dgnn_gcn_forward(Yd, sv, &A, Xd, Wt, b, N, V, O);
        dgnn_gcn_backward(NULL, dWt, db2, scr, w, sv, &At, Xd, Wt, N, V, O);
        dgnn_transpose(dEd, dWt, O, V, 0);
        CHECK(gradcheck_maxdiff(dE, dEd, V * O) < 1e-5 && gradcheck_maxdiff(db, db2, O) < 1e-6);
        CHECK(dE[5 * O] == 0.0f && dE[6 * O + 3] == 0.0f); /* features no node has */
        free(E);
        free(b);
        free(w);
        free(Xd);
        free(Wt);
        free(Y);
        free(Yd);
        free(sv);
        free(scr);
        free(dE);
        free(db);
        free(dWt);
        free(db2);
        free(dEd);
    }
    /* transpose helper */
    float m[6] = {1, 2, 3, 4, 5, 6}, t[6];
    dgnn_transpose(t, m, 2, 3, 0);
    const float tw[6] = {1, 4, 2, 5, 3, 6};
    CHECK(memcmp(t, tw, sizeof t) == 0);
    dgnn_transpose(t, m, 2, 3, 1);
    CHECK(t[1] == 8.0f && t[5] == 12.0f);
    free(D);
    dgnn_csr_free(&At);
    free_store(&st);
}

/* ---- LSTM ----------------------------------------------------------------------------- */

typedef struct {
    float *x, *h, *c, *Wih, *Whh, *bih, *bhh;
    float *ho, *co, *saved, *scratch;
    const float *wh, *wc; /* loss = wh . h' + wc . c' (wc may be NULL) */
    int64_t B, I, H;
} lstm_ctx;

static double lstm_loss(void *p) {
    lstm_ctx *c = p;
    dgnn_lstm_forward(c->ho, c->co, c->saved, c->scratch, c->x, c->h, c->c, c->Wih, c->Whh, c->bih, c->bhh, c->B,
                      c->I, c->H);
    double l = gradcheck_dot(c->ho, c->wh, c->B * c->H);
    if (c->wc) l += gradcheck_dot(c->co, c->wc, c->B * c->H);
    return l;
}

static void test_lstm(void) {
    /* B = I = H = 1: every gate a scalar */
    {
        float Wih[4] = {0.5f, -0.4f, 0.3f, 0.9f}, Whh[4] = {0.1f, 0.2f, -0.7f, 0.05f};
        float bih[4] = {0.01f, 0.02f, 0.03f, 0.04f}, bhh[4] = {-0.1f, 0.1f, 0.0f, 0.2f};
        float x = 2.0f, h = -1.0f, c = 0.5f, ho, co, saved[5], scratch[4];
        dgnn_lstm_forward(&ho, &co, saved, scratch, &x, &h, &c, Wih, Whh, bih, bhh, 1, 1, 1);
        double ai = 0.5 * 2 - 0.1 + 0.01 - 0.1, af = -0.8 - 0.2 + 0.02 + 0.1, ag = 0.6 + 0.7 + 0.03,
               ao = 1.8 - 0.05 + 0.04 + 0.2;
        double i = sig(ai), f = sig(af), g = tanh(ag), o = sig(ao);
        double cn = f * 0.5 + i * g;
        CHECK_NEAR(co, cn, 1e-6);
        CHECK_NEAR(ho, o * tanh(cn), 1e-6);
        CHECK_NEAR(saved[0], i, 1e-6);
        CHECK_NEAR(saved[3], o, 1e-6);
        CHECK_NEAR(saved[4], tanh(cn), 1e-6);
    }
    dgnn_rng r;
    dgnn_rng_seed(&r, 71);
    const int64_t B = 3, I = 4, H = 5, G = 4 * H;
    float *Wih = malloc((size_t)(G * I) * 4), *Whh = malloc((size_t)(G * H) * 4), *bih = malloc((size_t)G * 4),
          *bhh = malloc((size_t)G * 4);
    dgnn_lstm_init(Wih, Whh, bih, bhh, I, H, &r);
    int in = 1;
    for (int64_t k = 0; k < G * H; k++) in &= fabsf(Whh[k]) <= 1.0f / sqrtf((float)H);
    for (int64_t k = 0; k < G; k++) in &= fabsf(bih[k]) <= 1.0f / sqrtf((float)H);
    CHECK(in);
    float *x = rand_vec(B * I, &r), *h = rand_vec(B * H, &r), *c = rand_vec(B * H, &r);
    float *ho = malloc((size_t)(B * H) * 4), *co = malloc((size_t)(B * H) * 4);
    float *saved = malloc((size_t)(B * DGNN_LSTM_SAVED(H)) * 4), *scratch = malloc((size_t)(B * DGNN_LSTM_SCRATCH(H)) * 4);
    dgnn_lstm_forward(ho, co, saved, scratch, x, h, c, Wih, Whh, bih, bhh, B, I, H);
    /* dense reference from the formulas */
    double worst = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t k = 0; k < H; k++) {
            double a[4];
            for (int q = 0; q < 4; q++) {
                int64_t row = q * H + k;
                a[q] = (double)bih[row] + bhh[row];
                for (int64_t j = 0; j < I; j++) a[q] += (double)Wih[row * I + j] * x[b * I + j];
                for (int64_t j = 0; j < H; j++) a[q] += (double)Whh[row * H + j] * h[b * H + j];
            }
            double cn = sig(a[1]) * c[b * H + k] + sig(a[0]) * tanh(a[2]);
            worst = fmax(worst, fabs(cn - co[b * H + k]));
            worst = fmax(worst, fabs(sig(a[3]) * tanh(cn) - ho[b * H + k]));
        }
    CHECK_MSG(worst < 1e-5, "lstm vs ref %g", worst);
    /* gradients through h' and c', then through h' only (dcout NULL) */
    float *wh = rand_vec(B * H, &r), *wc = rand_vec(B * H, &r);
    for (int both = 1; both >= 0; both--) {
        float *dx = calloc((size_t)(B * I), 4), *dh = calloc((size_t)(B * H), 4), *dc = calloc((size_t)(B * H), 4);
        float *dWih = calloc((size_t)(G * I), 4), *dWhh = calloc((size_t)(G * H), 4), *dbih = calloc((size_t)G, 4),
              *dbhh = calloc((size_t)G, 4);
        dgnn_lstm_forward(ho, co, saved, scratch, x, h, c, Wih, Whh, bih, bhh, B, I, H);
        dgnn_lstm_backward(dx, dh, dc, dWih, dWhh, dbih, dbhh, scratch, wh, both ? wc : NULL, saved, x, h, c, Wih, Whh,
                           B, I, H);
        lstm_ctx ctx = {x, h, c, Wih, Whh, bih, bhh, ho, co, saved, scratch, wh, both ? wc : NULL, B, I, H};
        CHECK(gradcheck(both ? "lstm dx" : "lstm dx (h' only)", lstm_loss, &ctx, x, dx, B * I) == 0);
        CHECK(gradcheck(both ? "lstm dh" : "lstm dh (h' only)", lstm_loss, &ctx, h, dh, B * H) == 0);
        CHECK(gradcheck(both ? "lstm dc" : "lstm dc (h' only)", lstm_loss, &ctx, c, dc, B * H) == 0);
        CHECK(gradcheck("lstm dW_ih", lstm_loss, &ctx, Wih, dWih, G * I) == 0);
        CHECK(gradcheck("lstm dW_hh", lstm_loss, &ctx, Whh, dWhh, G * H) == 0);
        CHECK(gradcheck("lstm db_ih", lstm_loss, &ctx, bih, dbih, G) == 0);
        CHECK(gradcheck("lstm db_hh", lstm_loss, &ctx, bhh, dbhh, G) == 0);
        free(dx);
        free(dh);
        free(dc);
        free(dWih);
        free(dWhh);
        free(dbih);
        free(dbhh);
    }
    free(wh);
    free(wc);
    free(Wih);
    free(Whh);
    free(bih);
    free(bhh);
    free(x);
    free(h);
    free(c);
    free(ho);
    free(co);
    free(saved);
    free(scratch);
}

/* ---- real data: bitcoin-alpha's EvolveGCN snapshots ----------------------------------- */

static void test_bitcoin(void) {
    char buf[512];
    if (!check_data(buf, sizeof buf, "bitcoin-alpha/soc-sign-bitcoinalpha.csv")) return;
    dgnn_events ev;
    dgnn_err err;
    int rc = dgnn_read_edgelist(&ev, buf, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    dgnn_snapshot_opts o = dgnn_snapshot_opts_default();
    o.seconds = 1200000;
    o.symmetric = 1;
    dgnn_snapshots s;
    rc = dgnn_snapshots_build(&s, &ev, &o, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) {
        dgnn_events_free(&ev);
        return;
    }
    /* symmetric A_hat everywhere (its own transpose), and the largest one's SpMM */
    int sym = 1;
    int64_t big = 0;
    for (int64_t k = 0; k < s.count; k++) {
        dgnn_csr H = dgnn_csr_of_hat(&s.snaps[k]);
        sym &= dgnn_csr_is_symmetric(&H, 1e-6f);
        if (s.snaps[k].hat_nnz > s.snaps[big].hat_nnz) big = k;
    }
    CHECK(sym);
    dgnn_csr H = dgnn_csr_of_hat(&s.snaps[big]);
    int64_t N = H.rows, F = 100;
    dgnn_rng r;
    dgnn_rng_seed(&r, 81);
    float *X = rand_vec(N * F, &r), *Y = malloc((size_t)(N * F) * 4), *Yr = malloc((size_t)(N * F) * 4);
    dgnn_spmm(Y, &H, X, F, 0);
    dgnn_spmm_ref(Yr, &H, X, F, 0);
    CHECK(gradcheck_maxdiff(Y, Yr, N * F) < 1e-5);
    dgnn_spmm_perf perf;
    dgnn_spmm_bench(&perf, &H, F, 0.05, 1);
    printf("bitcoin-alpha snapshot %lld (N %lld, A_hat nnz %lld), F %lld: %.3f ms per SpMM, %.2f GB/s effective\n",
           (long long)big, (long long)N, (long long)H.nnz, (long long)F, 1e3 * perf.seconds / (double)perf.calls,
           perf.gbps);
    free(X);
    free(Y);
    free(Yr);
    dgnn_snapshots_free(&s);
    dgnn_events_free(&ev);
}

int main(void) {
    test_spmm();
    test_transpose();
    test_spmm_backward();
    test_measurements();
    test_mgru_hand();
    test_mgru();
    test_topk_hand();
    test_topk_grad();
    test_losses();
    test_rrelu();
    test_gcn();
    test_lstm();
    test_bitcoin();
    return check_done();
}
