/* test_cuda_spmm.c: the GPU's sparse GCN ops against their CPU ops (spmm.c) (built only with
 * -DDGNN_CUDA=ON; without a device it checks that opening one is refused, then skips with
 * 77). With one, on awkward matrices (empty rows, row 0 among them; a hub row with up to
 * 1500 entries; rectangular; an empty matrix; sizes that are not multiples of 32 or of the
 * block size; F = 1):
 *  - the device CSR's copy and its refusals (a column out of range or below the one before
 *    it, row pointers that do not start at 0 or run past nnz), and the ops' refusal of a
 *    wrongly sized A;
 *  - SpMM, plain (into a NaN-filled Y: every element must be written) and accumulating,
 *    against the double-accumulation reference, and its backward over the uploaded A^T;
 *    several widths over one matrix (its workspace grown, then serving a narrower product),
 *    and operands offset by one float from their allocation (not 16-byte aligned, as the
 *    sub-arrays of a slab can be);
 *  - the GCN layer in both product orders of dgnn_gcn_xw_first (Dout < Din, Dout == Din,
 *    Dout > Din), with and without bias and input gradient, A general (its transpose
 *    uploaded) or symmetric (passed as its own transpose), Din = 0 and N = 0: Y, saved, dX,
 *    dW, db against dgnn_gcn_forward / _backward (gradients +=, from random values);
 *  - the one-hot layer, many nodes per index and idx = -1 rows: Y, saved, dE, db;
 *  - the transpose, plain and accumulating;
 *  - determinism: each op run twice on the same inputs gives the same bits. */
#include "cuda_check.h"

#include "dgnn/spmm.h"

/* ---- host matrices ---- */

typedef struct {
    int64_t *rowptr;
    int32_t *col;
    float *val;
    dgnn_csr a; /* a view of the three arrays */
    int64_t maxdeg;
} hcsr;

static int cmp_i32(const void *x, const void *y) {
    const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* R x C, columns ascending and distinct within a row, values in [-1, 1): every 4th row
 * empty, row 0 among them (R > 1), one odd row near the middle a hub of min(C, 1500)
 * entries (R > 2), the others 1..maxk entries (at most C). */
static hcsr make_csr(int64_t R, int64_t C, int64_t maxk, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    hcsr h;
    const int64_t hub = R > 2 ? (R / 2) | 1 : -1;
    int64_t *deg = malloc((size_t)(R + 1) * sizeof(int64_t));
    h.rowptr = malloc((size_t)(R + 1) * sizeof(int64_t));
    h.rowptr[0] = 0;
    h.maxdeg = 0;
    for (int64_t i = 0; i < R; i++) {
        const int64_t cap = maxk < C ? maxk : C;
        int64_t k = (C == 0 || (R > 1 && i % 4 == 0)) ? 0 : 1 + (int64_t)dgnn_rng_below(&r, (uint64_t)cap);
        if (i == hub) k = C < 1500 ? C : 1500;
        deg[i] = k;
        h.rowptr[i + 1] = h.rowptr[i] + k;
        if (k > h.maxdeg) h.maxdeg = k;
    }
    const int64_t nnz = h.rowptr[R];
    h.col = malloc((size_t)(nnz + 1) * sizeof(int32_t));
    h.val = rnd(nnz, -1, 1, &r);
    unsigned char *mark = calloc((size_t)(C + 1), 1);
    for (int64_t i = 0; i < R; i++) {
        int32_t *cols = h.col + h.rowptr[i];
        for (int64_t n = 0; n < deg[i];) { /* distinct columns by rejection, then sorted */
            const int32_t j = (int32_t)dgnn_rng_below(&r, (uint64_t)C);
            if (!mark[j]) mark[j] = 1, cols[n++] = j;
        }
        for (int64_t n = 0; n < deg[i]; n++) mark[cols[n]] = 0;
        qsort(cols, (size_t)deg[i], sizeof(int32_t), cmp_i32);
    }
    free(mark);
    free(deg);
    h.a = dgnn_csr_view(h.rowptr, h.col, h.val, R, C);
    h.a.nnz = nnz; /* the view reads rowptr[R]; also right for R = 0 */
    return h;
}

/* s = a + a^T (a square): the union of the patterns, summed where both hold an entry;
 * its own transpose, up to the rounding of the two sums (the same two floats each way) */
static hcsr make_sym(const hcsr *a) {
    const int64_t N = a->a.rows;
    dgnn_csr t;
    CHECK(dgnn_csr_transpose(&t, &a->a, NULL) == DGNN_OK);
    hcsr s;
    s.rowptr = malloc((size_t)(N + 1) * sizeof(int64_t));
    s.col = malloc((size_t)(2 * a->a.nnz + 1) * sizeof(int32_t));
    s.val = malloc((size_t)(2 * a->a.nnz + 1) * sizeof(float));
    s.rowptr[0] = 0;
    s.maxdeg = 0;
    int64_t n = 0;
    for (int64_t i = 0; i < N; i++) { /* merge row i of a and of a^T, both ascending */
        int64_t p = a->a.rowptr[i], pe = a->a.rowptr[i + 1], q = t.rowptr[i], qe = t.rowptr[i + 1];
        while (p < pe || q < qe) {
            if (q >= qe || (p < pe && a->col[p] < t.col[q])) s.col[n] = a->col[p], s.val[n++] = a->val[p++];
            else if (p >= pe || t.col[q] < a->col[p]) s.col[n] = t.col[q], s.val[n++] = t.val[q++];
            else s.col[n] = a->col[p], s.val[n++] = a->val[p++] + t.val[q++];
        }
        s.rowptr[i + 1] = n;
        if (n - s.rowptr[i] > s.maxdeg) s.maxdeg = n - s.rowptr[i];
    }
    dgnn_csr_free(&t);
    s.a = dgnn_csr_view(s.rowptr, s.col, s.val, N, N);
    s.a.nnz = n;
    return s;
}

static void hcsr_free(hcsr *h) { FREE(h->rowptr, h->col, h->val); }

static int32_t *upi(dgnn_cuda *c, const int32_t *x, int64_t n) { return upb(c, x, (size_t)n * sizeof(int32_t)); }

/* a float copy of n host floats */
static float *copyf(const float *x, int64_t n) {
    float *y = malloc((size_t)(n + 1) * sizeof(float));
    memcpy(y, x, (size_t)n * sizeof(float));
    return y;
}

/* ---- comparisons ---- */

/* device d (rows, F) against host ref, row r within base (1 + deg(r)) (1 + |ref|): a row
 * that sums more entries may round further; keeps d */
static void near_rows(dgnn_cuda *c, const char *what, const float *d, const float *ref, const dgnn_csr *A, int64_t F,
                      double base) {
    const int64_t n = A->rows * F;
    float *h = malloc((size_t)(n + 1) * sizeof(float));
    down(c, h, d, (size_t)n * sizeof(float), what);
    int64_t bad = 0, first = -1;
    for (int64_t r = 0; r < A->rows; r++) {
        const double tol = base * (double)(1 + A->rowptr[r + 1] - A->rowptr[r]);
        for (int64_t f = 0; f < F; f++) {
            const int64_t i = r * F + f;
            if (!(fabs((double)h[i] - ref[i]) <= tol * (1.0 + fabs((double)ref[i])))) bad++, first = first < 0 ? i : first;
        }
    }
    CHECK_MSG(bad == 0, "%s: %lld of %lld off (first %lld: %g vs %g)", what, (long long)bad, (long long)n,
              (long long)first, first >= 0 ? h[first] : 0.0, first >= 0 ? ref[first] : 0.0);
    free(h);
}

/* device a and b (n floats) hold the same bits: the second run of an op equals the first */
static void same_bits(dgnn_cuda *c, const char *what, const float *da, const float *db, int64_t n) {
    float *ha = malloc((size_t)(n + 1) * sizeof(float)), *hb = malloc((size_t)(n + 1) * sizeof(float));
    down(c, ha, da, (size_t)n * sizeof(float), what);
    down(c, hb, db, (size_t)n * sizeof(float), what);
    int64_t diff = 0;
    for (int64_t i = 0; i < n; i++) diff += memcmp(ha + i, hb + i, sizeof(float)) != 0;
    CHECK_MSG(diff == 0, "%s: the second run differs from the first in %lld of %lld floats", what, (long long)diff,
              (long long)n);
    FREE(ha, hb);
}

/* ---- the device CSR's refusals, the ops' size checks, empty matrices ---- */

static void test_refusals(dgnn_cuda *c) {
    const int64_t rp[] = {0, 1, 3};
    const int32_t out_of_range[] = {1, 0, 3}, descending[] = {1, 2, 0}, good[] = {1, 0, 2};
    const float v[] = {0.5f, -1.0f, 2.0f};
    dgnn_cuda_csr d;
    dgnn_err err;
    dgnn_csr a = dgnn_csr_view(rp, out_of_range, v, 2, 3);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_csr_init(c, &d, &a, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "column 3") != NULL);
    CHECK(d.mem_ == NULL && d.descr_ == NULL && d.rowptr == NULL); /* left zeroed */
    dgnn_cuda_csr_free(c, &d);                                      /* a no-op on it */
    a = dgnn_csr_view(rp, descending, v, 2, 3);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_csr_init(c, &d, &a, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "ascend") != NULL);
    const int64_t rp1[] = {1, 2, 3}; /* starts at 1 */
    a = dgnn_csr_view(rp1, good, v, 2, 3);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_csr_init(c, &d, &a, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "row pointers") != NULL);
    const int64_t rp2[] = {0, 5, 3}; /* row 0 runs past nnz = 3 */
    a = dgnn_csr_view(rp2, good, v, 2, 3);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_csr_init(c, &d, &a, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "row 0 runs from 0 to 5") != NULL);

    /* a good 2 x 3 matrix: the GCN ops want it square */
    a = dgnn_csr_view(rp, good, v, 2, 3);
    CUDA_OK(dgnn_cuda_csr_init(c, &d, &a, ERR));
    CHECK(d.rows == 2 && d.cols == 3 && d.nnz == 3 && d.descr_ != NULL);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_gcn_forward(c, NULL, NULL, &d, NULL, NULL, NULL, 2, 4, 4, &err) == DGNN_EINVAL);
    CHECK(strstr(err.msg, "N x N") != NULL);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_gcn_onehot_backward(c, NULL, NULL, NULL, NULL, &d, NULL, 2, 3, 4, &err) == DGNN_EINVAL);
    dgnn_err_clear(&err);
    CHECK(dgnn_cuda_transpose(c, NULL, NULL, -1, 2, 0, &err) == DGNN_EINVAL);
    dgnn_cuda_csr_free(c, &d);
    CHECK(d.mem_ == NULL && d.rows == 0);

    /* empty matrices: 5 x 0 (Y = 0), 64 x 64 without entries (Y = 0; Y += nothing), 0 x 5 */
    const int64_t zeros[65] = {0};
    const int64_t F = 7;
    float *Y0 = malloc((size_t)(64 * F) * sizeof(float)), *zero = calloc((size_t)(64 * F), sizeof(float));
    dgnn_rng r;
    dgnn_rng_seed(&r, 99);
    dgnn_init_uniform(Y0, 64 * F, -1, 1, &r);
    a = dgnn_csr_view(zeros, NULL, NULL, 5, 0);
    CUDA_OK(dgnn_cuda_csr_init(c, &d, &a, ERR));
    CHECK(d.nnz == 0 && d.descr_ == NULL);
    float *dY = upnan(c, (size_t)(5 * F) * sizeof(float));
    CUDA_OK(dgnn_cuda_spmm(c, dY, &d, NULL, F, 0, ERR));
    same(c, "spmm of a 5 x 0 matrix", dY, zero, 5 * F, 0);
    dgnn_cuda_csr_free(c, &d);
    a = dgnn_csr_view(zeros, NULL, NULL, 64, 64);
    CUDA_OK(dgnn_cuda_csr_init(c, &d, &a, ERR));
    float *dX = upnan(c, (size_t)(64 * F) * sizeof(float)); /* not read: there are no entries */
    dY = upnan(c, (size_t)(64 * F) * sizeof(float));
    CUDA_OK(dgnn_cuda_spmm(c, dY, &d, dX, F, 0, ERR));
    same(c, "spmm of a 64 x 64 matrix without entries", dY, zero, 64 * F, 0);
    dY = up(c, Y0, 64 * F);
    CUDA_OK(dgnn_cuda_spmm(c, dY, &d, dX, F, 1, ERR));
    same(c, "spmm += of a 64 x 64 matrix without entries", dY, Y0, 64 * F, 0);
    dgnn_cuda_csr_free(c, &d);
    a = dgnn_csr_view(zeros, NULL, NULL, 0, 5);
    CUDA_OK(dgnn_cuda_csr_init(c, &d, &a, ERR));
    CUDA_OK(dgnn_cuda_spmm(c, NULL, &d, dX, F, 0, ERR));
    CUDA_OK(dgnn_cuda_spmm_backward(c, dX, &d, NULL, 0, ERR)); /* F = 0: nothing */
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    dgnn_cuda_csr_free(c, &d);
    RELEASE(c, dX);
    FREE(Y0, zero);
}

/* ---- SpMM and its backward ---- */

static void test_spmm(dgnn_cuda *c, int64_t R, int64_t C, int64_t maxk, uint64_t seed) {
    hcsr h = make_csr(R, C, maxk, seed);
    dgnn_csr At;
    CHECK(dgnn_csr_transpose(&At, &h.a, NULL) == DGNN_OK);
    dgnn_cuda_csr dA, dAt;
    CUDA_OK(dgnn_cuda_csr_init(c, &dA, &h.a, ERR));
    CUDA_OK(dgnn_cuda_csr_init(c, &dAt, &At, ERR));
    CHECK(dA.rows == R && dA.cols == C && dA.nnz == h.a.nnz && dAt.rows == C && dAt.cols == R);
    dgnn_rng r;
    dgnn_rng_seed(&r, seed + 1000);
    const double tol = 1e-6;
    /* widths over one matrix: its workspace grows with them if cuSPARSE asks more for a
     * wider product (1, 37, 100), then serves a narrower one (1), and one more width (64) */
    const int64_t widths[] = {1, 37, 100, 1, 64};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        const int64_t F = widths[w];
        float *X = rnd(C * F, -1, 1, &r), *Y0 = rnd(R * F, -1, 1, &r), *g = rnd(R * F, -1, 1, &r);
        float *dX0 = rnd(C * F, -1, 1, &r);
        float *ref = rnd(R * F, 0, 0, &r), *ref_acc = copyf(Y0, R * F), *ref_dX = copyf(dX0, C * F);
        dgnn_spmm_ref(ref, &h.a, X, F, 0);
        dgnn_spmm_ref(ref_acc, &h.a, X, F, 1);
        dgnn_spmm_ref(ref_dX, &At, g, F, 1); /* dX += A^T dY */
        float *d_X = up(c, X, C * F), *d_g = up(c, g, R * F);
        float *d_Y = upnan(c, (size_t)(R * F) * sizeof(float)), *d_Y2 = upnan(c, (size_t)(R * F) * sizeof(float));
        float *d_Yacc = up(c, Y0, R * F), *d_dX = up(c, dX0, C * F), *d_dX2 = up(c, dX0, C * F);
        CUDA_OK(dgnn_cuda_spmm(c, d_Y, &dA, d_X, F, 0, ERR));
        CUDA_OK(dgnn_cuda_spmm(c, d_Y2, &dA, d_X, F, 0, ERR));
        CUDA_OK(dgnn_cuda_spmm(c, d_Yacc, &dA, d_X, F, 1, ERR));
        CUDA_OK(dgnn_cuda_spmm_backward(c, d_dX, &dAt, d_g, F, ERR));
        CUDA_OK(dgnn_cuda_spmm_backward(c, d_dX2, &dAt, d_g, F, ERR));
        near_rows(c, "spmm Y = A X", d_Y, ref, &h.a, F, tol);
        near_rows(c, "spmm Y += A X", d_Yacc, ref_acc, &h.a, F, tol);
        near_rows(c, "spmm_backward dX += A^T dY", d_dX, ref_dX, &At, F, tol);
        same_bits(c, "spmm (run twice)", d_Y, d_Y2, R * F);
        same_bits(c, "spmm_backward (run twice)", d_dX, d_dX2, C * F);
        RELEASE(c, d_X, d_g, d_Y, d_Y2, d_Yacc, d_dX, d_dX2);
        if (w == 2) {
            /* X and Y one float past their allocation's start: 4-byte, not 16-byte, aligned */
            float *d_Xo = upnan(c, (size_t)(C * F + 1) * sizeof(float));
            float *d_Yo = upnan(c, (size_t)(R * F + 1) * sizeof(float));
            CUDA_OK(dgnn_cuda_upload(c, d_Xo + 1, X, (size_t)(C * F) * sizeof(float), ERR));
            CUDA_OK(dgnn_cuda_spmm(c, d_Yo + 1, &dA, d_Xo + 1, F, 0, ERR));
            near_rows(c, "spmm with operands offset by one float (not 16-byte aligned)", d_Yo + 1, ref, &h.a, F, tol);
            RELEASE(c, d_Xo, d_Yo);
        }
        FREE(X, Y0, g, dX0, ref, ref_acc, ref_dX);
    }
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    dgnn_cuda_csr_free(c, &dA);
    dgnn_cuda_csr_free(c, &dAt);
    dgnn_csr_free(&At);
    hcsr_free(&h);
}

/* ---- the GCN layer ---- */

static void test_gcn(dgnn_cuda *c, int64_t N, int64_t Din, int64_t Dout, int with_b, int with_dx, int sym,
                     uint64_t seed) {
    hcsr h0 = make_csr(N, N, 8, seed);
    hcsr h = sym ? make_sym(&h0) : h0;
    dgnn_csr At;
    if (sym) At = h.a; /* a symmetric A is its own transpose, on both sides */
    else CHECK(dgnn_csr_transpose(&At, &h.a, NULL) == DGNN_OK);
    dgnn_cuda_csr dA, dAt;
    memset(&dAt, 0, sizeof dAt);
    CUDA_OK(dgnn_cuda_csr_init(c, &dA, &h.a, ERR));
    if (!sym) CUDA_OK(dgnn_cuda_csr_init(c, &dAt, &At, ERR));
    dgnn_cuda_csr *pAt = sym ? &dA : &dAt;
    dgnn_rng r;
    dgnn_rng_seed(&r, seed + 2000);
    const int64_t S = Din < Dout ? Din : Dout; /* saved's and scratch's width */
    float *X = rnd(N * Din, -1, 1, &r), *W = rnd(Dout * Din, -0.3f, 0.3f, &r), *b = rnd(Dout, -1, 1, &r);
    float *g = rnd(N * Dout, -1, 1, &r), *dX0 = rnd(N * Din, -1, 1, &r), *dW0 = rnd(Dout * Din, -1, 1, &r);
    float *db0 = rnd(Dout, -1, 1, &r);
    float *Y = rnd(N * Dout, 0, 0, &r), *saved = rnd(N * S, 0, 0, &r), *scratch = rnd(N * S, 0, 0, &r);
    float *dX = copyf(dX0, N * Din), *dW = copyf(dW0, Dout * Din), *db = copyf(db0, Dout);
    dgnn_gcn_forward(Y, saved, &h.a, X, W, with_b ? b : NULL, N, Din, Dout);
    dgnn_gcn_backward(with_dx ? dX : NULL, dW, with_b ? db : NULL, scratch, g, saved, &At, X, W, N, Din, Dout);

    float *d_X = up(c, X, N * Din), *d_W = up(c, W, Dout * Din), *d_b = with_b ? up(c, b, Dout) : NULL;
    float *d_g = up(c, g, N * Dout);
    float *d_Y[2], *d_saved[2], *d_scratch[2], *d_dX[2], *d_dW[2], *d_db[2];
    for (int run = 0; run < 2; run++) { /* twice from the same inputs: the same bits */
        d_Y[run] = upnan(c, (size_t)(N * Dout) * sizeof(float));
        d_saved[run] = upnan(c, (size_t)(N * S) * sizeof(float));
        d_scratch[run] = upnan(c, (size_t)(N * S) * sizeof(float));
        d_dX[run] = with_dx ? up(c, dX0, N * Din) : NULL;
        d_dW[run] = up(c, dW0, Dout * Din);
        d_db[run] = with_b ? up(c, db0, Dout) : NULL;
        CUDA_OK(dgnn_cuda_gcn_forward(c, d_Y[run], d_saved[run], &dA, d_X, d_W, d_b, N, Din, Dout, ERR));
        CUDA_OK(dgnn_cuda_gcn_backward(c, d_dX[run], d_dW[run], d_db[run], d_scratch[run], d_g, d_saved[run], pAt,
                                       d_X, d_W, N, Din, Dout, ERR));
    }
    /* rows of Y sum a row of A over rows of width Din or Dout; the weight and bias
     * gradients sum over the N nodes */
    const double tol = 2e-6 * (double)(h.maxdeg + Din + Dout + 16), tol_sum = 2e-6 * (double)(N + h.maxdeg + Din + Dout + 16);
    same_keep(c, "gcn Y", d_Y[0], Y, N * Dout, tol);
    /* saved is X W^T (N, Dout) when dgnn_gcn_xw_first, A X (N, Din) otherwise: the same
     * order and layout as the CPU's */
    same_keep(c, dgnn_gcn_xw_first(Din, Dout) ? "gcn saved (X W^T)" : "gcn saved (A X)", d_saved[0], saved, N * S, tol);
    if (with_dx) same_keep(c, "gcn dX", d_dX[0], dX, N * Din, tol);
    same_keep(c, "gcn dW", d_dW[0], dW, Dout * Din, tol_sum);
    if (with_b) same_keep(c, "gcn db", d_db[0], db, Dout, tol_sum);
    same_bits(c, "gcn Y (run twice)", d_Y[0], d_Y[1], N * Dout);
    same_bits(c, "gcn saved (run twice)", d_saved[0], d_saved[1], N * S);
    if (with_dx) same_bits(c, "gcn dX (run twice)", d_dX[0], d_dX[1], N * Din);
    same_bits(c, "gcn dW (run twice)", d_dW[0], d_dW[1], Dout * Din);
    if (with_b) same_bits(c, "gcn db (run twice)", d_db[0], d_db[1], Dout);
    for (int run = 0; run < 2; run++)
        RELEASE(c, d_Y[run], d_saved[run], d_scratch[run], d_dX[run], d_dW[run], d_db[run]);
    RELEASE(c, d_X, d_W, d_b, d_g);
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    dgnn_cuda_csr_free(c, &dA);
    if (!sym) dgnn_cuda_csr_free(c, &dAt), dgnn_csr_free(&At);
    FREE(X, W, b, g, dX0, dW0, db0, Y, saved, scratch, dX, dW, db);
    if (sym) hcsr_free(&h);
    hcsr_free(&h0);
}

/* ---- the GCN layer on one-hot input ---- */

static void test_onehot(dgnn_cuda *c, int64_t N, int64_t V, int64_t Dout, int with_b, uint64_t seed) {
    hcsr h = make_csr(N, N, 8, seed);
    dgnn_csr At;
    CHECK(dgnn_csr_transpose(&At, &h.a, NULL) == DGNN_OK);
    dgnn_cuda_csr dA, dAt;
    CUDA_OK(dgnn_cuda_csr_init(c, &dA, &h.a, ERR));
    CUDA_OK(dgnn_cuda_csr_init(c, &dAt, &At, ERR));
    dgnn_rng r;
    dgnn_rng_seed(&r, seed + 3000);
    /* half the nodes share index 0 (a degree most nodes have), about 1 in V+1 of the
     * others has no input (-1), the rest spread over [0, V) */
    int32_t *idx = malloc((size_t)(N + 1) * sizeof(int32_t));
    for (int64_t i = 0; i < N; i++) idx[i] = i % 2 ? 0 : (int32_t)dgnn_rng_below(&r, (uint64_t)(V + 1)) - 1;
    float *E = rnd(V * Dout, -1, 1, &r), *b = rnd(Dout, -1, 1, &r), *g = rnd(N * Dout, -1, 1, &r);
    float *dE0 = rnd(V * Dout, -1, 1, &r), *db0 = rnd(Dout, -1, 1, &r);
    float *Y = rnd(N * Dout, 0, 0, &r), *saved = rnd(N * Dout, 0, 0, &r), *scratch = rnd(N * Dout, 0, 0, &r);
    float *dE = copyf(dE0, V * Dout), *db = copyf(db0, Dout);
    dgnn_gcn_onehot_forward(Y, saved, &h.a, idx, E, with_b ? b : NULL, N, V, Dout);
    dgnn_gcn_onehot_backward(dE, with_b ? db : NULL, scratch, g, &At, idx, N, V, Dout);

    int32_t *d_idx = upi(c, idx, N);
    float *d_E = up(c, E, V * Dout), *d_b = with_b ? up(c, b, Dout) : NULL, *d_g = up(c, g, N * Dout);
    float *d_Y[2], *d_saved[2], *d_scratch[2], *d_dE[2], *d_db[2];
    for (int run = 0; run < 2; run++) {
        d_Y[run] = upnan(c, (size_t)(N * Dout) * sizeof(float));
        d_saved[run] = upnan(c, (size_t)(N * Dout) * sizeof(float));
        d_scratch[run] = upnan(c, (size_t)(N * Dout) * sizeof(float));
        d_dE[run] = up(c, dE0, V * Dout);
        d_db[run] = with_b ? up(c, db0, Dout) : NULL;
        CUDA_OK(dgnn_cuda_gcn_onehot_forward(c, d_Y[run], d_saved[run], &dA, d_idx, d_E, d_b, N, V, Dout, ERR));
        CUDA_OK(dgnn_cuda_gcn_onehot_backward(c, d_dE[run], d_db[run], d_scratch[run], d_g, &dAt, d_idx, N, V, Dout,
                                              ERR));
    }
    const double tol = 2e-6 * (double)(h.maxdeg + 16), tol_sum = 2e-6 * (double)(N + h.maxdeg + 16);
    same_keep(c, "onehot Y", d_Y[0], Y, N * Dout, tol);
    same_keep(c, "onehot saved (E[idx])", d_saved[0], saved, N * Dout, 0); /* a copy: exact */
    same_keep(c, "onehot dE", d_dE[0], dE, V * Dout, tol_sum);
    if (with_b) same_keep(c, "onehot db", d_db[0], db, Dout, tol_sum);
    same_bits(c, "onehot Y (run twice)", d_Y[0], d_Y[1], N * Dout);
    same_bits(c, "onehot dE (run twice)", d_dE[0], d_dE[1], V * Dout);
    if (with_b) same_bits(c, "onehot db (run twice)", d_db[0], d_db[1], Dout);
    for (int run = 0; run < 2; run++) RELEASE(c, d_Y[run], d_saved[run], d_scratch[run], d_dE[run], d_db[run]);
    RELEASE(c, d_idx, d_E, d_b, d_g);
    CUDA_OK(dgnn_cuda_sync(c, ERR));
    dgnn_cuda_csr_free(c, &dA);
    dgnn_cuda_csr_free(c, &dAt);
    dgnn_csr_free(&At);
    FREE(idx, E, b, g, dE0, db0, Y, saved, scratch, dE, db);
    hcsr_free(&h);
}

/* ---- the transpose ---- */

static void test_transpose(dgnn_cuda *c, int64_t R, int64_t C, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    float *in = rnd(R * C, -1, 1, &r), *out0 = rnd(C * R, -1, 1, &r), *ref = rnd(C * R, 0, 0, &r);
    float *ref_acc = copyf(out0, C * R);
    dgnn_transpose(ref, in, R, C, 0);
    dgnn_transpose(ref_acc, in, R, C, 1);
    float *d_in = up(c, in, R * C), *d_out = upnan(c, (size_t)(C * R) * sizeof(float)), *d_acc = up(c, out0, C * R);
    CUDA_OK(dgnn_cuda_transpose(c, d_out, d_in, R, C, 0, ERR));
    CUDA_OK(dgnn_cuda_transpose(c, d_acc, d_in, R, C, 1, ERR));
    same(c, "transpose", d_out, ref, C * R, 0);          /* a copy: exact */
    same(c, "transpose +=", d_acc, ref_acc, C * R, 1e-7); /* one addition per element */
    RELEASE(c, d_in);
    FREE(in, out0, ref, ref_acc);
}

int main(void) {
    dgnn_cuda *c = cuda_check_open("test_cuda_spmm");
    test_refusals(c);

    test_spmm(c, 1, 1, 1, 1);        /* one row, one entry */
    test_spmm(c, 2, 1, 1, 2);        /* one column; row 0 empty */
    test_spmm(c, 37, 53, 4, 3);      /* rectangular, a hub of all 53 columns */
    test_spmm(c, 1000, 700, 8, 4);   /* more rows than columns; a hub of all 700 */
    test_spmm(c, 2001, 3001, 12, 5); /* a hub of 1500 of 3001 columns */

    /* N, Din, Dout, bias, dX, symmetric A */
    test_gcn(c, 1, 1, 1, 1, 1, 0, 10);     /* Din == Dout: X W^T first */
    test_gcn(c, 300, 37, 16, 1, 1, 0, 11); /* Dout < Din: X W^T first */
    test_gcn(c, 300, 5, 37, 1, 1, 0, 12);  /* Dout > Din: A X first */
    test_gcn(c, 513, 33, 33, 0, 0, 0, 13); /* EvolveGCN's L x L layer, no bias, no input gradient */
    test_gcn(c, 2000, 16, 100, 1, 0, 0, 14);
    test_gcn(c, 2000, 100, 64, 0, 1, 0, 15);
    test_gcn(c, 400, 24, 24, 1, 1, 1, 16); /* symmetric A, passed as its own transpose */
    test_gcn(c, 400, 7, 40, 0, 1, 1, 17);
    test_gcn(c, 10, 0, 5, 1, 1, 0, 18); /* Din = 0: Y = b */
    test_gcn(c, 0, 3, 2, 1, 1, 0, 19);  /* no nodes */

    /* N, V, Dout, bias */
    test_onehot(c, 1, 1, 1, 1, 20);
    test_onehot(c, 300, 7, 37, 1, 21);
    test_onehot(c, 2000, 50, 100, 0, 22);
    test_onehot(c, 5000, 3, 16, 1, 23); /* 2500 nodes summed into row 0 of dE */

    test_transpose(c, 1, 1, 30);
    test_transpose(c, 37, 53, 31);
    test_transpose(c, 300, 1, 32);
    test_transpose(c, 100, 64, 33);

    dgnn_cuda_free(c);
    return check_done();
}
