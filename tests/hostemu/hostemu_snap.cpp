// hostemu_snap.cpp: the host emulation (tests only; hostemu.cpp's top comment says what it
// is and is not) of the snapshot models' ops of include/dgnn/cuda.h: the device CSR and the
// sparse GCN ops (spmm.cu), the matrix GRU and TopK (mgru.cu), the LSTM cell (lstm.cu), the
// losses (snap_loss.cu), RReLU (rrelu.cu), the pair classifier (snap_cls.cu) and the link
// task's all-pairs metrics (snap_metric.cu). Each is the CPU op of spmm.h / nn.h /
// metrics.h on the same arrays, after hostemu_internal.h's checks (every device array
// inside a live allocation with its true extent, opened for the call; host arrays not
// device memory) and the real op's DGNN_EINVAL checks. The classifier's ops have no CPU op
// of their own shape (snapmodel_edge.c's works per distinct node, the device's per node):
// they are plain loops and nn.h's products that follow cuda.h's contract term by term.
//
// Where cuda.h leaves something to the caller that a GPU would misread without a word (an
// index past an array, a CSR whose structure was broken by an upload into it, outputs that
// overlap inputs, a pair permutation that is not the stable sort it should be), the
// emulation aborts with a message naming the call and the argument, as hostemu.cpp does.
// Where the CPU op allocates temporaries that the GPU op takes from the caller (the matrix
// GRU's scratch), the caller's array is filled with 0xFF bytes (NaN) after the call, so that
// a caller who reads it back as if it held something shows.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hostemu_internal.h"

#include "dgnn/metrics.h"
#include "dgnn/nn.h"
#include "dgnn/snapshot.h"
#include "dgnn/spmm.h"

using namespace hostemu;

// ---- small helpers ----

// [a, a + na) and [b, b + nb) must not overlap (a GPU kernel that writes one while reading
// the other races); equal pointers are the callers' business (some ops allow them)
static void need_apart(const void *a, size_t na, const char *an, const void *b, size_t nb, const char *bn,
                       const char *fn) {
    if (!a || !b || na == 0 || nb == 0) return;
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (x < y + nb && y < x + na) die("%s: %s and %s overlap (the GPU op's result would be undefined)", fn, an, bn);
}

// an array the GPU op overwrites with its temporaries, left unreadable (NaN floats)
static void poison(void *p, size_t bytes) {
    if (p && bytes) memset(p, 0xFF, bytes);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// ---- the device CSR (spmm.cu) ----

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

// spmm.cu's dgnn_cuda_csr_init: the same checks and the same one-block layout, allocated and
// filled through the emulation's own allocator and upload; no cuSPARSE descriptor
// (descr_ and work_ stay NULL: the products are the CPU's)
extern "C" int dgnn_cuda_csr_init(dgnn_cuda *c, dgnn_cuda_csr *d, const dgnn_csr *a, dgnn_err *err) {
    const char *fn = "dgnn_cuda_csr_init";
    need_ctx(c, fn);
    if (!d || !a) die("%s: %s is NULL", fn, d ? "a" : "d");
    memset(d, 0, sizeof *d);
    const int64_t R = a->rows, C = a->cols, nnz = a->nnz;
    if (R < 0 || C < 0 || nnz < 0 || R > INT32_MAX || C > INT32_MAX || nnz > INT32_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "GPU CSR: a %lld x %lld matrix with %lld entries: the device copy's 32-bit indices "
                              "hold at most %d rows, columns and entries",
                              (long long)R, (long long)C, (long long)nnz, INT32_MAX);
    if (R > 0) need_host(a->rowptr, (size_t)(R + 1) * sizeof(int64_t), fn, "a->rowptr");
    need_host(a->col, I4(nnz), fn, "a->col");
    need_host(a->val, F4(nnz), fn, "a->val");
    if (R == 0 ? nnz != 0 : (a->rowptr[0] != 0 || a->rowptr[R] != nnz))
        return dgnn_cuda_fail(err, DGNN_EINVAL, "GPU CSR: row pointers run from %lld to %lld, not from 0 to nnz = %lld",
                              R > 0 ? (long long)a->rowptr[0] : 0LL, R > 0 ? (long long)a->rowptr[R] : 0LL,
                              (long long)nnz);
    for (int64_t r = 0; r < R; r++) {
        const int64_t b = a->rowptr[r], e = a->rowptr[r + 1];
        if (e < b || e > nnz)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "GPU CSR: row %lld runs from %lld to %lld (of %lld entries)",
                                  (long long)r, (long long)b, (long long)e, (long long)nnz);
        for (int64_t k = b; k < e; k++)
            if (a->col[k] < 0 || a->col[k] >= C || (k > b && a->col[k] < a->col[k - 1]))
                return dgnn_cuda_fail(err, DGNN_EINVAL,
                                      "GPU CSR: row %lld, entry %lld: column %d is out of [0, %lld) or below the "
                                      "one before it (columns must ascend within a row)",
                                      (long long)r, (long long)k, a->col[k], (long long)C);
    }
    d->rows = R, d->cols = C, d->nnz = nnz;
    const size_t rp_b = align256(I4(R + 1)), col_b = align256(I4(nnz));
    int rc = dgnn_cuda_alloc(c, &d->mem_, rp_b + col_b + F4(nnz), "a GPU sparse matrix", err);
    if (rc) return rc;
    char *base = (char *)d->mem_;
    d->rowptr = (int32_t *)base;
    d->col = nnz > 0 ? (int32_t *)(base + rp_b) : nullptr;
    d->val = nnz > 0 ? (float *)(base + rp_b + col_b) : nullptr;
    std::vector<int32_t> rp((size_t)(R + 1));
    rp[0] = 0;
    for (int64_t r = 0; r < R; r++) rp[(size_t)r + 1] = (int32_t)a->rowptr[r + 1];
    rc = dgnn_cuda_upload(c, d->rowptr, rp.data(), I4(R + 1), err);
    if (!rc) rc = dgnn_cuda_upload(c, d->col, a->col, I4(nnz), err);
    if (!rc) rc = dgnn_cuda_upload(c, d->val, a->val, F4(nnz), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    if (rc) dgnn_cuda_csr_free(c, d);
    return rc;
}

extern "C" void dgnn_cuda_csr_free(dgnn_cuda *c, dgnn_cuda_csr *d) {
    if (!d) return;
    if (d->descr_ || d->work_) die("dgnn_cuda_csr_free: the matrix has a cuSPARSE descriptor or workspace (not one "
                                   "of the emulation's dgnn_cuda_csr_init)");
    if (d->mem_) dgnn_cuda_release(c, d->mem_);
    memset(d, 0, sizeof *d);
}

// The CPU's CSR over A's device arrays (opened): a view of col and val, the row pointers
// widened to the CPU's int64 into rp. The structure dgnn_cuda_csr_init checked is checked
// again (an upload into A's arrays may have broken it since; cuSPARSE would misread it).
// Call inside an in_call, only when the op reads A (rows > 0).
static dgnn_csr csr_view(const dgnn_cuda_csr *A, std::vector<int64_t> &rp, const char *fn, const char *name) {
    const int64_t R = A->rows, C = A->cols, nnz = A->nnz;
    if (R < 0 || C < 0 || nnz < 0 || R > INT32_MAX || C > INT32_MAX || nnz > INT32_MAX)
        die("%s: %s is a %lld x %lld matrix with %lld entries (not one of dgnn_cuda_csr_init)", fn, name, (long long)R,
            (long long)C, (long long)nnz);
    char arg[64];
    snprintf(arg, sizeof arg, "%s->rowptr", name), need_dev(A->rowptr, I4(R + 1), fn, arg);
    snprintf(arg, sizeof arg, "%s->col", name), need_dev(A->col, I4(nnz), fn, arg);
    snprintf(arg, sizeof arg, "%s->val", name), need_dev(A->val, F4(nnz), fn, arg);
    rp.resize((size_t)(R + 1));
    for (int64_t r = 0; r <= R; r++) rp[(size_t)r] = A->rowptr[r];
    if (rp[0] != 0 || rp[(size_t)R] != nnz)
        die("%s: %s's row pointers run from %lld to %lld, not from 0 to nnz = %lld", fn, name, (long long)rp[0],
            (long long)rp[(size_t)R], (long long)nnz);
    for (int64_t r = 0; r < R; r++) {
        if (rp[(size_t)r + 1] < rp[(size_t)r]) die("%s: %s's row pointers fall at row %lld", fn, name, (long long)r);
        for (int64_t k = rp[(size_t)r]; k < rp[(size_t)r + 1]; k++)
            if (A->col[k] < 0 || A->col[k] >= C || (k > rp[(size_t)r] && A->col[k] < A->col[k - 1]))
                die("%s: %s: row %lld, entry %lld: column %d is out of [0, %lld) or below the one before it", fn, name,
                    (long long)r, (long long)k, A->col[k], (long long)C);
    }
    return dgnn_csr_view(rp.data(), A->col, A->val, R, C);
}

static void need_csr(const dgnn_cuda_csr *A, const char *fn, const char *name) {
    if (!A) die("%s: %s is NULL", fn, name);
}

// ---- the sparse products and GCN layers (spmm.cu) ----

static int spmm_op(dgnn_cuda *c, float *dY, dgnn_cuda_csr *A, const float *dX, int64_t F, int accumulate,
                   const char *fn, const char *aname) {
    need_ctx(c, fn);
    in_call k;
    need_csr(A, fn, aname);
    if (F <= 0 || A->rows <= 0) return DGNN_OK;
    std::vector<int64_t> rp;
    const dgnn_csr v = csr_view(A, rp, fn, aname);
    const size_t yb = F4(A->rows * F), xb = A->nnz > 0 ? F4(A->cols * F) : 0; // X is read through the entries only
    need_dev(dY, yb, fn, "Y");
    need_dev(dX, xb, fn, "X");
    need_apart(dY, yb, "Y", dX, xb, "X", fn);
    dgnn_spmm(dY, &v, dX, F, accumulate);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_spmm(dgnn_cuda *c, float *dY, dgnn_cuda_csr *A, const float *dX, int64_t F, int accumulate,
                              dgnn_err *err) {
    (void)err;
    return spmm_op(c, dY, A, dX, F, accumulate, "dgnn_cuda_spmm", "A");
}

extern "C" int dgnn_cuda_spmm_backward(dgnn_cuda *c, float *ddX, dgnn_cuda_csr *At, const float *ddY, int64_t F,
                                       dgnn_err *err) {
    (void)err;
    return spmm_op(c, ddX, At, ddY, F, 1, "dgnn_cuda_spmm_backward", "At");
}

// spmm.cu's gcn_check
static int gcn_check(const char *op, const dgnn_cuda_csr *A, int64_t N, int64_t Din, int64_t Dout, dgnn_err *err) {
    if (N < 0 || Din < 0 || Dout < 0 || A->rows != N || A->cols != N)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: N=%lld Din=%lld Dout=%lld with a %lld x %lld matrix (it must be N x N)",
                              op, (long long)N, (long long)Din, (long long)Dout, (long long)A->rows,
                              (long long)A->cols);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_gcn_forward(dgnn_cuda *c, float *dY, float *dsaved, dgnn_cuda_csr *A, const float *dX,
                                     const float *dW, const float *db, int64_t N, int64_t Din, int64_t Dout,
                                     dgnn_err *err) {
    const char *fn = "dgnn_cuda_gcn_forward";
    need_ctx(c, fn);
    in_call k;
    need_csr(A, fn, "A");
    int rc = gcn_check(fn, A, N, Din, Dout, err);
    if (rc || N == 0) return rc;
    const size_t yb = F4(N * Dout), sb = F4(N * min64(Din, Dout)), xb = F4(N * Din);
    need_dev(dY, yb, fn, "Y");
    need_dev(dsaved, sb, fn, "saved");
    need_dev(dX, xb, fn, "X");
    need_dev(dW, F4(Dout * Din), fn, "W");
    if (db) need_dev(db, F4(Dout), fn, "b");
    need_apart(dY, yb, "Y", dsaved, sb, "saved", fn);
    need_apart(dY, yb, "Y", dX, xb, "X", fn);
    need_apart(dsaved, sb, "saved", dX, xb, "X", fn);
    std::vector<int64_t> rp;
    const dgnn_csr v = csr_view(A, rp, fn, "A");
    dgnn_gcn_forward(dY, dsaved, &v, dX, dW, db, N, Din, Dout);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_gcn_backward(dgnn_cuda *c, float *ddX, float *ddW, float *ddb, float *dscratch,
                                      const float *ddY, const float *dsaved, dgnn_cuda_csr *At, const float *dX,
                                      const float *dW, int64_t N, int64_t Din, int64_t Dout, dgnn_err *err) {
    const char *fn = "dgnn_cuda_gcn_backward";
    need_ctx(c, fn);
    in_call k;
    need_csr(At, fn, "At");
    int rc = gcn_check(fn, At, N, Din, Dout, err);
    if (rc || N == 0) return rc;
    const int64_t S = min64(Din, Dout);
    if (ddX) need_dev(ddX, F4(N * Din), fn, "dX");
    if (ddW) need_dev(ddW, F4(Dout * Din), fn, "dW");
    if (ddb) need_dev(ddb, F4(Dout), fn, "db");
    need_dev(dscratch, F4(N * S), fn, "scratch");
    need_dev(ddY, F4(N * Dout), fn, "dY");
    need_dev(dsaved, F4(N * S), fn, "saved");
    need_dev(dX, F4(N * Din), fn, "X");
    need_dev(dW, F4(Dout * Din), fn, "W");
    need_apart(dscratch, F4(N * S), "scratch", ddY, F4(N * Dout), "dY", fn);
    if (ddX) need_apart(ddX, F4(N * Din), "dX", dscratch, F4(N * S), "scratch", fn);
    std::vector<int64_t> rp;
    const dgnn_csr v = csr_view(At, rp, fn, "At");
    dgnn_gcn_backward(ddX, ddW, ddb, dscratch, ddY, dsaved, &v, dX, dW, N, Din, Dout);
    return DGNN_OK;
}

// spmm.cu's onehot_check
static int onehot_check(const char *op, const dgnn_cuda_csr *A, const int32_t *didx, int64_t N, int64_t V, int64_t Dout,
                        dgnn_err *err) {
    if (N < 0 || V < 0 || V > INT32_MAX || Dout < 0 || A->rows != N || A->cols != N || (N > 0 && !didx))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "%s: N=%lld V=%lld Dout=%lld with a %lld x %lld matrix (it must be N x N; V < 2^31; "
                              "idx given)",
                              op, (long long)N, (long long)V, (long long)Dout, (long long)A->rows, (long long)A->cols);
    return DGNN_OK;
}

// idx (N) in [0, V) or negative (a zero row): an index >= V is read past E on the device
static void need_onehot_idx(const int32_t *idx, int64_t N, int64_t V, const char *fn) {
    need_dev(idx, I4(N), fn, "idx");
    for (int64_t i = 0; i < N; i++)
        if (idx[i] >= V) die("%s: node %lld's index %d is not below V = %lld", fn, (long long)i, idx[i], (long long)V);
}

extern "C" int dgnn_cuda_gcn_onehot_forward(dgnn_cuda *c, float *dY, float *dsaved, dgnn_cuda_csr *A,
                                            const int32_t *didx, const float *dE, const float *db, int64_t N,
                                            int64_t V, int64_t Dout, dgnn_err *err) {
    const char *fn = "dgnn_cuda_gcn_onehot_forward";
    need_ctx(c, fn);
    in_call k;
    need_csr(A, fn, "A");
    int rc = onehot_check(fn, A, didx, N, V, Dout, err);
    if (rc || N == 0) return rc;
    need_dev(dY, F4(N * Dout), fn, "Y");
    need_dev(dsaved, F4(N * Dout), fn, "saved");
    need_dev(dE, F4(V * Dout), fn, "E");
    if (db) need_dev(db, F4(Dout), fn, "b");
    need_apart(dY, F4(N * Dout), "Y", dsaved, F4(N * Dout), "saved", fn);
    need_onehot_idx(didx, N, V, fn);
    std::vector<int64_t> rp;
    const dgnn_csr v = csr_view(A, rp, fn, "A");
    dgnn_gcn_onehot_forward(dY, dsaved, &v, didx, dE, db, N, V, Dout);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_gcn_onehot_backward(dgnn_cuda *c, float *ddE, float *ddb, float *dscratch, const float *ddY,
                                             dgnn_cuda_csr *At, const int32_t *didx, int64_t N, int64_t V,
                                             int64_t Dout, dgnn_err *err) {
    const char *fn = "dgnn_cuda_gcn_onehot_backward";
    need_ctx(c, fn);
    in_call k;
    need_csr(At, fn, "At");
    int rc = onehot_check(fn, At, didx, N, V, Dout, err);
    if (rc || N == 0) return rc;
    need_dev(ddE, F4(V * Dout), fn, "dE");
    if (ddb) need_dev(ddb, F4(Dout), fn, "db");
    need_dev(dscratch, F4(N * Dout), fn, "scratch");
    need_dev(ddY, F4(N * Dout), fn, "dY");
    need_apart(dscratch, F4(N * Dout), "scratch", ddY, F4(N * Dout), "dY", fn);
    need_onehot_idx(didx, N, V, fn);
    std::vector<int64_t> rp;
    const dgnn_csr v = csr_view(At, rp, fn, "At");
    dgnn_gcn_onehot_backward(ddE, ddb, dscratch, ddY, &v, didx, N, V, Dout);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_transpose(dgnn_cuda *c, float *dout, const float *din, int64_t R, int64_t C, int accumulate,
                                   dgnn_err *err) {
    const char *fn = "dgnn_cuda_transpose";
    need_ctx(c, fn);
    in_call k;
    if (R < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_transpose: a %lld x %lld matrix", (long long)R, (long long)C);
    if (R * C == 0) return DGNN_OK;
    need_dev(dout, F4(R * C), fn, "out");
    need_dev(din, F4(R * C), fn, "in");
    need_apart(dout, F4(R * C), "out", din, F4(R * C), "in", fn);
    dgnn_transpose(dout, din, R, C, accumulate);
    return DGNN_OK;
}

// ---- the matrix GRU and TopK (mgru.cu) ----

extern "C" int dgnn_cuda_mgru_forward(dgnn_cuda *c, float *dq_new, float *dsaved, const float *dx, const float *dq,
                                      const float *dparams, int64_t R, int64_t C, dgnn_err *err) {
    const char *fn = "dgnn_cuda_mgru_forward";
    need_ctx(c, fn);
    in_call k;
    if (R < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_forward: sizes R %lld, C %lld", (long long)R,
                              (long long)C);
    const int64_t RC = R * C;
    if (RC == 0) return DGNN_OK;
    if (dq_new == dq || dq_new == dx)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_forward: q_new must not alias x or q");
    need_dev(dq_new, F4(RC), fn, "q_new");
    need_dev(dsaved, F4(4 * RC), fn, "saved");
    need_dev(dx, F4(RC), fn, "x");
    need_dev(dq, F4(RC), fn, "q");
    need_dev(dparams, F4(dgnn_mgru_param_count(R, C)), fn, "params");
    const void *in[] = {dx, dq, dparams};
    const size_t inb[] = {F4(RC), F4(RC), F4(dgnn_mgru_param_count(R, C))};
    const char *inn[] = {"x", "q", "params"};
    for (int i = 0; i < 3; i++) {
        need_apart(dq_new, F4(RC), "q_new", in[i], inb[i], inn[i], fn);
        need_apart(dsaved, F4(4 * RC), "saved", in[i], inb[i], inn[i], fn);
    }
    need_apart(dq_new, F4(RC), "q_new", dsaved, F4(4 * RC), "saved", fn);
    dgnn_mgru_forward(dq_new, dsaved, dx, dq, dparams, R, C);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_mgru_backward(dgnn_cuda *c, float *ddx, float *ddq, float *ddparams, float *dscratch,
                                       const float *ddq_new, const float *dsaved, const float *dx, const float *dq,
                                       const float *dparams, int64_t R, int64_t C, dgnn_err *err) {
    const char *fn = "dgnn_cuda_mgru_backward";
    need_ctx(c, fn);
    in_call k;
    if (R < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_backward: sizes R %lld, C %lld", (long long)R,
                              (long long)C);
    const int64_t RC = R * C;
    if (RC == 0) return DGNN_OK;
    if (!ddq || !ddparams || !dscratch)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_backward: dq, dparams and scratch are required");
    const size_t pb = F4(dgnn_mgru_param_count(R, C));
    if (ddx) need_dev(ddx, F4(RC), fn, "dx");
    need_dev(ddq, F4(RC), fn, "dq");
    need_dev(ddparams, pb, fn, "dparams");
    need_dev(dscratch, F4(4 * RC), fn, "scratch");
    need_dev(ddq_new, F4(RC), fn, "dq_new");
    need_dev(dsaved, F4(4 * RC), fn, "saved");
    need_dev(dx, F4(RC), fn, "x");
    need_dev(dq, F4(RC), fn, "q");
    need_dev(dparams, pb, fn, "params");
    dgnn_mgru_backward(ddx, ddq, ddparams, ddq_new, dsaved, dx, dq, dparams, R, C); // its own temporaries
    poison(dscratch, F4(4 * RC));                                                    // "overwritten"
    return DGNN_OK;
}

extern "C" int dgnn_cuda_topk_forward(dgnn_cuda *c, int64_t *dnsel, float *dout, int32_t *didx, float *dtanh_s,
                                      const float *dX, const float *dp, const uint8_t *dmask, int64_t N, int64_t F,
                                      int64_t k, dgnn_err *err) {
    const char *fn = "dgnn_cuda_topk_forward";
    need_ctx(c, fn);
    in_call kc;
    if (N < 0 || F < 1 || N > INT32_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "dgnn_cuda_topk_forward: N %lld rows of F %lld features (N must fit an int32 index, "
                              "F >= 1)",
                              (long long)N, (long long)F);
    if (dnsel) need_dev(dnsel, sizeof(int64_t), fn, "nsel");
    if (k <= 0) { // the CPU's 0; nothing else written
        if (dnsel) *dnsel = 0;
        return DGNN_OK;
    }
    need_dev(dout, F4(F * k), fn, "out");
    need_dev(didx, I4(k), fn, "idx");
    need_dev(dtanh_s, F4(k), fn, "tanh_s");
    need_dev(dX, F4(N * F), fn, "X");
    need_dev(dp, F4(F), fn, "p");
    if (dmask) need_dev(dmask, (size_t)N, fn, "mask");
    const int64_t n = dgnn_topk_forward(dout, didx, dtanh_s, dX, dp, dmask, N, F, k);
    if (dnsel) *dnsel = n;
    return DGNN_OK;
}

extern "C" int dgnn_cuda_topk_backward(dgnn_cuda *c, float *ddX, float *ddp, const float *ddout, const int32_t *didx,
                                       const float *dtanh_s, const float *dX, const float *dp, int64_t N, int64_t F,
                                       int64_t k, dgnn_err *err) {
    const char *fn = "dgnn_cuda_topk_backward";
    need_ctx(c, fn);
    in_call kc;
    if (F < 0 || k > INT32_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_topk_backward: F %lld, k %lld", (long long)F,
                              (long long)k);
    if (k <= 0 || F == 0) return DGNN_OK;
    if (!ddp) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_topk_backward: dp is required");
    need_dev(didx, I4(k), fn, "idx");
    for (int64_t j = 0; j < k; j++) // the forward's idx: rows of X, or -1 (no valid row)
        if (didx[j] < -1 || didx[j] >= N)
            die("%s: column %lld's row %d is outside X's %lld rows (and not -1)", fn, (long long)j, didx[j],
                (long long)N);
    if (ddX) need_dev(ddX, F4(N * F), fn, "dX");
    need_dev(ddp, F4(F), fn, "dp");
    need_dev(ddout, F4(F * k), fn, "dout");
    need_dev(dtanh_s, F4(k), fn, "tanh_s");
    need_dev(dX, F4(N * F), fn, "X");
    need_dev(dp, F4(F), fn, "p");
    dgnn_topk_backward(ddX, ddp, ddout, didx, dtanh_s, dX, dp, N, F, k);
    return DGNN_OK;
}

// ---- the LSTM cell (lstm.cu) ----

static int lstm_sizes(const char *what, int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    if (B >= 0 && Din >= 0 && H >= 0) return DGNN_OK;
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: sizes B %lld, Din %lld, H %lld", what, (long long)B, (long long)Din,
                          (long long)H);
}

extern "C" int dgnn_cuda_lstm_forward(dgnn_cuda *c, float *dhout, float *dcout, float *dsaved, float *dscratch,
                                      const float *dx, const float *dh, const float *dc, const float *dW_ih,
                                      const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B,
                                      int64_t Din, int64_t H, dgnn_err *err) {
    const char *fn = "dgnn_cuda_lstm_forward";
    need_ctx(c, fn);
    in_call k;
    int rc = lstm_sizes(fn, B, Din, H, err);
    if (rc || B == 0 || H == 0) return rc;
    if (dhout == dh || dhout == dc || dcout == dh || dcout == dc)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_lstm_forward: hout and cout must not alias h or c");
    const int64_t BH = B * H, G = 4 * H;
    need_dev(dhout, F4(BH), fn, "hout");
    need_dev(dcout, F4(BH), fn, "cout");
    need_dev(dsaved, F4(B * DGNN_LSTM_SAVED(H)), fn, "saved");
    need_dev(dscratch, F4(B * DGNN_LSTM_SCRATCH(H)), fn, "scratch");
    need_dev(dx, F4(B * Din), fn, "x");
    need_dev(dh, F4(BH), fn, "h");
    need_dev(dc, F4(BH), fn, "c");
    need_dev(dW_ih, F4(G * Din), fn, "W_ih");
    need_dev(dW_hh, F4(G * H), fn, "W_hh");
    if (db_ih) need_dev(db_ih, F4(G), fn, "b_ih");
    if (db_hh) need_dev(db_hh, F4(G), fn, "b_hh");
    const void *out[] = {dhout, dcout, dsaved, dscratch};
    const size_t outb[] = {F4(BH), F4(BH), F4(B * DGNN_LSTM_SAVED(H)), F4(B * DGNN_LSTM_SCRATCH(H))};
    const char *outn[] = {"hout", "cout", "saved", "scratch"};
    const void *in[] = {dx, dh, dc};
    const size_t inb[] = {F4(B * Din), F4(BH), F4(BH)};
    const char *inn[] = {"x", "h", "c"};
    for (int o = 0; o < 4; o++) {
        for (int i = 0; i < 3; i++) need_apart(out[o], outb[o], outn[o], in[i], inb[i], inn[i], fn);
        for (int p = o + 1; p < 4; p++) need_apart(out[o], outb[o], outn[o], out[p], outb[p], outn[p], fn);
    }
    dgnn_lstm_forward(dhout, dcout, dsaved, dscratch, dx, dh, dc, dW_ih, dW_hh, db_ih, db_hh, B, Din, H);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_lstm_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddc, float *ddW_ih, float *ddW_hh,
                                       float *ddb_ih, float *ddb_hh, float *dscratch, const float *ddhout,
                                       const float *ddcout, const float *dsaved, const float *dx, const float *dh,
                                       const float *dc, const float *dW_ih, const float *dW_hh, int64_t B,
                                       int64_t Din, int64_t H, dgnn_err *err) {
    const char *fn = "dgnn_cuda_lstm_backward";
    need_ctx(c, fn);
    in_call k;
    int rc = lstm_sizes(fn, B, Din, H, err);
    if (rc || B == 0 || H == 0) return rc;
    const int64_t BH = B * H, G = 4 * H;
    if (ddx) need_dev(ddx, F4(B * Din), fn, "dx");
    if (ddh) need_dev(ddh, F4(BH), fn, "dh");
    if (ddc) need_dev(ddc, F4(BH), fn, "dc");
    if (ddW_ih) need_dev(ddW_ih, F4(G * Din), fn, "dW_ih");
    if (ddW_hh) need_dev(ddW_hh, F4(G * H), fn, "dW_hh");
    if (ddb_ih) need_dev(ddb_ih, F4(G), fn, "db_ih");
    if (ddb_hh) need_dev(ddb_hh, F4(G), fn, "db_hh");
    need_dev(dscratch, F4(B * DGNN_LSTM_SCRATCH(H)), fn, "scratch");
    if (ddhout) need_dev(ddhout, F4(BH), fn, "dhout");
    if (ddcout) need_dev(ddcout, F4(BH), fn, "dcout");
    need_dev(dsaved, F4(B * DGNN_LSTM_SAVED(H)), fn, "saved");
    need_dev(dx, F4(B * Din), fn, "x");
    need_dev(dh, F4(BH), fn, "h");
    need_dev(dc, F4(BH), fn, "c");
    need_dev(dW_ih, F4(G * Din), fn, "W_ih");
    need_dev(dW_hh, F4(G * H), fn, "W_hh");
    dgnn_lstm_backward(ddx, ddh, ddc, ddW_ih, ddW_hh, ddb_ih, ddb_hh, dscratch, ddhout, ddcout, dsaved, dx, dh, dc,
                       dW_ih, dW_hh, B, Din, H);
    return DGNN_OK;
}

// ---- the losses (snap_loss.cu) ----

// snap_loss.cu's rule for a label outside [0, C) (the CPU op asserts): its term and its
// row's gradient are NaN. Returns the number of such rows; fixed (M) then holds the labels
// with each bad one replaced by 0, for the CPU op.
static int64_t bad_labels(std::vector<int32_t> &fixed, const int32_t *labels, int64_t M, int64_t C) {
    int64_t bad = 0;
    fixed.assign(labels, labels + M);
    for (int64_t i = 0; i < M; i++)
        if (fixed[(size_t)i] < 0 || fixed[(size_t)i] >= C) fixed[(size_t)i] = 0, bad++;
    return bad;
}

extern "C" int dgnn_cuda_wce_forward(dgnn_cuda *c, double *dloss, const float *dlogits, const int32_t *dlabels,
                                     const float *dclass_w, int64_t M, int64_t C, dgnn_err *err) {
    const char *fn = "dgnn_cuda_wce_forward";
    need_ctx(c, fn);
    in_call k;
    need_dev(dloss, D8(1), fn, "loss");
    if (M <= 0) { // the CPU's 0 for no samples
        *dloss = 0.0;
        return DGNN_OK;
    }
    if (C < 1)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_wce_forward: %lld samples over %lld classes", (long long)M,
                              (long long)C);
    need_dev(dlogits, F4(M * C), fn, "logits");
    need_dev(dlabels, I4(M), fn, "labels");
    if (dclass_w) need_dev(dclass_w, F4(C), fn, "class_w");
    std::vector<int32_t> fixed;
    if (bad_labels(fixed, dlabels, M, C) > 0) *dloss = NAN;
    else *dloss = dgnn_wce_forward(dlogits, dlabels, dclass_w, M, C); // into device memory, as snap_loss.cu
    return DGNN_OK;
}

extern "C" int dgnn_cuda_wce_backward(dgnn_cuda *c, float *ddlogits, float dloss, const float *dlogits,
                                      const int32_t *dlabels, const float *dclass_w, int64_t M, int64_t C,
                                      dgnn_err *err) {
    const char *fn = "dgnn_cuda_wce_backward";
    need_ctx(c, fn);
    in_call k;
    if (M <= 0) return DGNN_OK;
    if (C < 1)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_wce_backward: %lld samples over %lld classes",
                              (long long)M, (long long)C);
    need_dev(ddlogits, F4(M * C), fn, "dlogits");
    need_dev(dlogits, F4(M * C), fn, "logits");
    need_dev(dlabels, I4(M), fn, "labels");
    if (dclass_w) need_dev(dclass_w, F4(C), fn, "class_w");
    std::vector<int32_t> fixed;
    if (bad_labels(fixed, dlabels, M, C) == 0) {
        dgnn_wce_backward(ddlogits, dloss, dlogits, dlabels, dclass_w, M, C);
        return DGNN_OK;
    }
    // each row's gradient depends on its own row only: the CPU op over the mended labels,
    // then NaN into the rows of the bad ones (dz += NaN)
    dgnn_wce_backward(ddlogits, dloss, dlogits, fixed.data(), dclass_w, M, C);
    for (int64_t i = 0; i < M; i++)
        if (dlabels[i] < 0 || dlabels[i] >= C)
            for (int64_t j = 0; j < C; j++) ddlogits[i * C + j] = NAN;
    return DGNN_OK;
}

extern "C" int dgnn_cuda_mse_forward(dgnn_cuda *c, double *dloss, const float *dpred, const float *dtarget, int64_t n,
                                     dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_mse_forward";
    need_ctx(c, fn);
    in_call k;
    need_dev(dloss, D8(1), fn, "loss");
    if (n <= 0) { // the CPU's 0 for no values
        *dloss = 0.0;
        return DGNN_OK;
    }
    need_dev(dpred, F4(n), fn, "pred");
    need_dev(dtarget, F4(n), fn, "target");
    *dloss = dgnn_mse_forward(dpred, dtarget, n);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_mse_backward(dgnn_cuda *c, float *ddpred, float dloss, const float *dpred,
                                      const float *dtarget, int64_t n, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_mse_backward";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    need_dev(ddpred, F4(n), fn, "dpred");
    need_dev(dpred, F4(n), fn, "pred");
    need_dev(dtarget, F4(n), fn, "target");
    dgnn_mse_backward(ddpred, dloss, dpred, dtarget, n);
    return DGNN_OK;
}

// ---- RReLU (rrelu.cu) ----

// the inverse of an odd a modulo 2^64 (Newton's iteration: each step doubles the correct
// low bits, from 3 for x = a)
static uint64_t inverse_odd(uint64_t a) {
    uint64_t x = a;
    for (int i = 0; i < 6; i++) x *= 2 - a * x;
    return x;
}

// A generator whose next dgnn_rng_u64 is key, so that the CPU op draws exactly the key the
// GPU op is given and forms its slopes from it (rrelu.c's own code, not a copy of its
// formula). xoshiro256**'s output is rotl(s[1] * 5, 7) * 9, so s[1] = rotr(key * 9^-1, 7) *
// 5^-1; the other words only matter for later draws, which the op does not make. Checked on
// a copy, so that a change of base.h's generator shows here rather than as other slopes.
static dgnn_rng rng_whose_next_is(uint64_t key) {
    const uint64_t t = key * inverse_odd(9);
    dgnn_rng r;
    r.s[0] = 0x9E3779B97F4A7C15ull; // never all zero (xoshiro's one forbidden state)
    r.s[1] = ((t >> 7) | (t << 57)) * inverse_odd(5);
    r.s[2] = 0;
    r.s[3] = 0;
    dgnn_rng check = r;
    if (dgnn_rng_u64(&check) != key)
        die("dgnn_cuda_rrelu_forward: (hostemu) base.h's generator is no longer xoshiro256**: the emulation cannot "
            "make the CPU op draw the key; update rng_whose_next_is");
    return r;
}

extern "C" int dgnn_cuda_rrelu_forward(dgnn_cuda *c, float *dy, float *dslope, const float *dx, int64_t n, float lower,
                                       float upper, int training, const uint64_t *key, dgnn_err *err) {
    const char *fn = "dgnn_cuda_rrelu_forward";
    need_ctx(c, fn);
    in_call k;
    if (training && !key)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_rrelu_forward: training needs the key the CPU op would draw");
    if (training) need_host(key, sizeof *key, fn, "key"); // read by the host at the call
    if (n <= 0) return DGNN_OK;
    need_dev(dy, F4(n), fn, "y");
    need_dev(dslope, F4(n), fn, "slope");
    need_dev(dx, F4(n), fn, "x"); // y may equal x
    need_apart(dslope, F4(n), "slope", dx, F4(n), "x", fn);
    need_apart(dslope, F4(n), "slope", dy, F4(n), "y", fn);
    if (dy != dx) need_apart(dy, F4(n), "y", dx, F4(n), "x", fn);
    if (!training) {
        dgnn_rrelu_forward(dy, dslope, dx, n, lower, upper, 0, nullptr);
        return DGNN_OK;
    }
    dgnn_rng rng = rng_whose_next_is(*key);
    dgnn_rrelu_forward(dy, dslope, dx, n, lower, upper, 1, &rng);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_rrelu_backward(dgnn_cuda *c, float *ddx, const float *ddy, const float *dslope, int64_t n,
                                        dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_rrelu_backward";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0 || !ddx) return DGNN_OK;
    need_dev(ddx, F4(n), fn, "dx");
    need_dev(ddy, F4(n), fn, "dy");
    need_dev(dslope, F4(n), fn, "slope");
    dgnn_rrelu_backward(ddx, ddy, dslope, n);
    return DGNN_OK;
}

// ---- the pair classifier (snap_cls.cu): cuda.h's contract, term by term ----
// W1 (C, 2L) = [W1a | W1b] row by row, so W1a is W1 with row stride 2L and W1b starts at
// column L. The products are nn.h's dgnn_gemm_fixed (the CPU classifier's), the per-pair
// and per-node loops run in the order the contract names.

static int cls_sizes(const char *fn, int64_t N, int64_t M, int64_t L, int64_t C, int64_t K, dgnn_err *err) {
    if (N >= 0 && M >= 0 && L >= 0 && C >= 0 && K >= 0) return DGNN_OK;
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: sizes N %lld, M %lld, L %lld, C %lld, K %lld", fn, (long long)N,
                          (long long)M, (long long)L, (long long)C, (long long)K);
}

extern "C" int dgnn_cuda_cls_nodes(dgnn_cuda *c, float *dP, float *dQ, const float *dH, const float *dW1,
                                   const float *db1, int64_t N, int64_t L, int64_t C, dgnn_err *err) {
    const char *fn = "dgnn_cuda_cls_nodes";
    need_ctx(c, fn);
    in_call k;
    int rc = cls_sizes(fn, N, 0, L, C, 0, err);
    if (rc || N == 0 || C == 0) return rc;
    need_dev(dP, F4(N * C), fn, "P");
    need_dev(dQ, F4(N * C), fn, "Q");
    need_dev(dH, F4(N * L), fn, "H");
    need_dev(dW1, F4(C * 2 * L), fn, "W1");
    need_dev(db1, F4(C), fn, "b1");
    need_apart(dP, F4(N * C), "P", dQ, F4(N * C), "Q", fn);
    need_apart(dP, F4(N * C), "P", dH, F4(N * L), "H", fn);
    need_apart(dQ, F4(N * C), "Q", dH, F4(N * L), "H", fn);
    dgnn_gemm_fixed(0, 1, N, C, L, dH, L, dW1, 2 * L, 0.0f, dP, C);     // P = H W1a^T
    for (int64_t u = 0; u < N; u++)                                       //   + b1
        for (int64_t j = 0; j < C; j++) dP[u * C + j] += db1[j];
    dgnn_gemm_fixed(0, 1, N, C, L, dH, L, dW1 + L, 2 * L, 0.0f, dQ, C); // Q = H W1b^T
    return DGNN_OK;
}

// the pairs' node indices (M): non-negative (the device does not check them); returns the
// largest, so that P or Q can be required up to its row
static int64_t pair_nodes(const int32_t *idx, int64_t M, const char *fn, const char *what) {
    need_dev(idx, I4(M), fn, what);
    int64_t mx = -1;
    for (int64_t i = 0; i < M; i++) {
        if (idx[i] < 0) die("%s: pair %lld's %s node is %d", fn, (long long)i, what, idx[i]);
        if (idx[i] > mx) mx = idx[i];
    }
    return mx;
}

extern "C" int dgnn_cuda_cls_pairs_forward(dgnn_cuda *c, float *dlogits, float *dhid, const float *dP, const float *dQ,
                                           const int32_t *dsrc, const int32_t *ddst, const float *dW2,
                                           const float *db2, int64_t M, int64_t C, int64_t K, dgnn_err *err) {
    const char *fn = "dgnn_cuda_cls_pairs_forward";
    need_ctx(c, fn);
    in_call k;
    int rc = cls_sizes(fn, 0, M, 0, C, K, err);
    if (rc || M == 0) return rc;
    need_dev(dlogits, F4(M * K), fn, "logits");
    need_dev(dhid, F4(M * C), fn, "hid");
    need_dev(dW2, F4(K * C), fn, "W2");
    need_dev(db2, F4(K), fn, "b2");
    const int64_t smax = pair_nodes(dsrc, M, fn, "src"), dmax = pair_nodes(ddst, M, fn, "dst");
    need_dev(dP, F4((smax + 1) * C), fn, "P (up to the largest src)");
    need_dev(dQ, F4((dmax + 1) * C), fn, "Q (up to the largest dst)");
    need_apart(dlogits, F4(M * K), "logits", dhid, F4(M * C), "hid", fn);
    for (int64_t i = 0; i < M; i++) {
        const float *p = dP + (int64_t)dsrc[i] * C, *q = dQ + (int64_t)ddst[i] * C;
        float *h = dhid + i * C;
        for (int64_t j = 0; j < C; j++) {
            const float x = p[j] + q[j];
            h[j] = x < 0.0f ? 0.0f : x; // relu (a NaN passes, as the CPU classifier's)
        }
        for (int64_t o = 0; o < K; o++) { // logits = hid W2^T + b2
            const float *w = dW2 + o * C;
            float s = 0.0f;
            for (int64_t j = 0; j < C; j++) s += w[j] * h[j];
            dlogits[i * K + o] = s + db2[o];
        }
    }
    return DGNN_OK;
}

// off (N + 1), perm (M): the stable counting sort of the pairs by one endpoint, as the
// contract has the caller make it: off from 0 to M, non-decreasing; perm a permutation of
// 0..M-1, ascending within each node's run (the order of the sums)
static void need_pair_sort(const int32_t *off, const int32_t *perm, int64_t N, int64_t M, const char *fn,
                           const char *offn, const char *permn) {
    need_dev(off, I4(N + 1), fn, offn);
    need_dev(perm, I4(M), fn, permn);
    if (off[0] != 0 || off[N] != M)
        die("%s: %s runs from %d to %d, not from 0 to M = %lld", fn, offn, off[0], off[N], (long long)M);
    std::vector<char> seen((size_t)M, 0);
    for (int64_t u = 0; u < N; u++) {
        if (off[u + 1] < off[u]) die("%s: %s falls at node %lld", fn, offn, (long long)u);
        for (int64_t q = off[u]; q < off[u + 1]; q++) {
            const int32_t i = perm[q];
            if (i < 0 || i >= M || seen[(size_t)i])
                die("%s: %s[%lld] = %d: not a permutation of the %lld pairs", fn, permn, (long long)q, i,
                    (long long)M);
            if (q > off[u] && i < perm[q - 1])
                die("%s: %s: node %lld's pairs are not in ascending pair order (a stable sort)", fn, permn,
                    (long long)u);
            seen[(size_t)i] = 1;
        }
    }
}

// out (N, C) = for each node u the sum of G's rows perm[off[u] .. off[u+1]), in that order
// (0 for a node without pairs)
static void sum_rows_by_node(float *out, const float *G, const int32_t *off, const int32_t *perm, int64_t N,
                             int64_t C) {
    for (int64_t u = 0; u < N; u++) {
        float *o = out + u * C;
        for (int64_t j = 0; j < C; j++) o[j] = 0.0f;
        for (int64_t q = off[u]; q < off[u + 1]; q++) {
            const float *g = G + (int64_t)perm[q] * C;
            for (int64_t j = 0; j < C; j++) o[j] += g[j];
        }
    }
}

extern "C" int dgnn_cuda_cls_pairs_backward(dgnn_cuda *c, float *ddH, float *ddW1, float *ddb1, float *ddW2,
                                            float *ddb2, float *ddP, float *ddQ, float *dscratch,
                                            const float *ddlogits, const float *dhid, const float *dH,
                                            const float *dW1, const float *dW2, const int32_t *dsoff,
                                            const int32_t *dsperm, const int32_t *ddoff, const int32_t *ddperm,
                                            int64_t N, int64_t M, int64_t L, int64_t C, int64_t K, dgnn_err *err) {
    const char *fn = "dgnn_cuda_cls_pairs_backward";
    need_ctx(c, fn);
    in_call k;
    int rc = cls_sizes(fn, N, M, L, C, K, err);
    if (rc || M == 0) return rc; // M = 0 touches nothing
    if (ddH) need_dev(ddH, F4(N * L), fn, "dH");
    need_dev(ddW1, F4(C * 2 * L), fn, "dW1");
    need_dev(ddb1, F4(C), fn, "db1");
    need_dev(ddW2, F4(K * C), fn, "dW2");
    need_dev(ddb2, F4(K), fn, "db2");
    need_dev(ddP, F4(N * C), fn, "dP");
    need_dev(ddQ, F4(N * C), fn, "dQ");
    need_dev(dscratch, F4(M * C), fn, "scratch");
    need_dev(ddlogits, F4(M * K), fn, "dlogits");
    need_dev(dhid, F4(M * C), fn, "hid");
    need_dev(dH, F4(N * L), fn, "H");
    need_dev(dW1, F4(C * 2 * L), fn, "W1");
    need_dev(dW2, F4(K * C), fn, "W2");
    need_pair_sort(dsoff, dsperm, N, M, fn, "soff", "sperm");
    need_pair_sort(ddoff, ddperm, N, M, fn, "doff", "dperm");
    need_apart(ddP, F4(N * C), "dP", ddQ, F4(N * C), "dQ", fn);
    need_apart(dscratch, F4(M * C), "scratch", ddP, F4(N * C), "dP", fn);
    need_apart(dscratch, F4(M * C), "scratch", ddQ, F4(N * C), "dQ", fn);
    need_apart(dscratch, F4(M * C), "scratch", dhid, F4(M * C), "hid", fn);
    // dW2 (K, C) += dlogits^T hid; db2 (K) += the column sums of dlogits
    dgnn_gemm_fixed(1, 0, K, C, M, ddlogits, K, dhid, C, 1.0f, ddW2, C);
    dgnn_linear_backward(nullptr, nullptr, ddb2, ddlogits, nullptr, nullptr, M, 1, K);
    // G (M, C) = (dlogits W2) where hid > 0, 0 elsewhere
    float *G = dscratch;
    dgnn_gemm_fixed(0, 0, M, C, K, ddlogits, K, dW2, C, 0.0f, G, C);
    for (int64_t t = 0; t < M * C; t++)
        if (!(dhid[t] > 0.0f)) G[t] = 0.0f;
    // dP, dQ (N, C): G's rows summed per source, per destination, in pair order
    sum_rows_by_node(ddP, G, dsoff, dsperm, N, C);
    sum_rows_by_node(ddQ, G, ddoff, ddperm, N, C);
    if (N == 0) return DGNN_OK;
    // dW1 (C, 2L) += [dP^T H | dQ^T H]; db1 (C) += the column sums of dP
    dgnn_gemm_fixed(1, 0, C, L, N, ddP, C, dH, L, 1.0f, ddW1, 2 * L);
    dgnn_gemm_fixed(1, 0, C, L, N, ddQ, C, dH, L, 1.0f, ddW1 + L, 2 * L);
    dgnn_linear_backward(nullptr, nullptr, ddb1, ddP, nullptr, nullptr, N, 1, C);
    // dH (N, L) += dP W1a + dQ W1b
    if (ddH) {
        dgnn_gemm_fixed(0, 0, N, L, C, ddP, C, dW1, 2 * L, 1.0f, ddH, L);
        dgnn_gemm_fixed(0, 0, N, L, C, ddQ, C, dW1 + L, 2 * L, 1.0f, ddH, L);
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_cls_prob_rows(dgnn_cuda *c, float *dprob, const float *dP, const float *dQ, const float *dW2,
                                       const float *db2, int64_t u0, int64_t rows, int64_t N, int64_t C,
                                       dgnn_err *err) {
    const char *fn = "dgnn_cuda_cls_prob_rows";
    need_ctx(c, fn);
    in_call k;
    if (N < 0 || C < 0 || u0 < 0 || rows < 0 || u0 + rows > N)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: rows %lld .. %lld of %lld nodes, classifier width %lld", fn,
                              (long long)u0, (long long)(u0 + rows), (long long)N, (long long)C);
    if (rows == 0 || N == 0) return DGNN_OK;
    need_dev(dprob, F4(rows * N), fn, "prob");
    need_dev(dP, F4(N * C), fn, "P");
    need_dev(dQ, F4(N * C), fn, "Q");
    need_dev(dW2, F4(2 * C), fn, "W2 (K = 2)");
    need_dev(db2, F4(2), fn, "b2 (K = 2)");
    need_apart(dprob, F4(rows * N), "prob", dP, F4(N * C), "P", fn);
    need_apart(dprob, F4(rows * N), "prob", dQ, F4(N * C), "Q", fn);
    // softmax(z)[1] = sigmoid(z1 - z0) = sigmoid(wd . h + bd), as snapmodel_edge.c forms it
    std::vector<float> wd((size_t)C);
    for (int64_t j = 0; j < C; j++) wd[(size_t)j] = dW2[C + j] - dW2[j];
    const float bd = db2[1] - db2[0];
    for (int64_t r = 0; r < rows; r++) {
        const float *p = dP + (u0 + r) * C;
        for (int64_t v = 0; v < N; v++) {
            const float *q = dQ + v * C;
            float acc = bd;
            for (int64_t j = 0; j < C; j++) {
                const float x = p[j] + q[j];
                acc += (x < 0.0f ? 0.0f : x) * wd[(size_t)j];
            }
            dprob[r * N + v] = 1.0f / (1.0f + expf(-acc));
        }
    }
    return DGNN_OK;
}

// ---- the link task's all-pairs metrics (snap_metric.cu) ----

// metrics.h's dgnn_snap_link_metrics itself, over a snapshot view of the device CSR (the row
// pointers widened to the CPU's int64) and a host label matrix (N * N, its scratch)
extern "C" int dgnn_cuda_link_metrics(dgnn_cuda *c, double *ap, double *mrr, const float *dprob, const int32_t *drowptr,
                                      const int32_t *dcol, int64_t N, int64_t nnz, dgnn_err *err) {
    const char *fn = "dgnn_cuda_link_metrics";
    need_ctx(c, fn);
    in_call k;
    if (N < 0 || nnz < 0 || N > DGNN_CUDA_LINK_METRICS_MAX_N || nnz > INT32_MAX) // snap_metric.cu's limits
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: %lld nodes, %lld entries", fn, (long long)N, (long long)nnz);
    need_host(ap, sizeof *ap, fn, "ap");
    need_host(mrr, sizeof *mrr, fn, "mrr");
    if (N == 0 || nnz == 0) { // the CPU's NaN for a snapshot without an edge
        *ap = *mrr = NAN;
        return DGNN_OK;
    }
    need_dev(dprob, F4(N * N), fn, "prob");
    need_dev(drowptr, I4(N + 1), fn, "rowptr");
    need_dev(dcol, I4(nnz), fn, "col");
    std::vector<int64_t> rp((size_t)(N + 1));
    for (int64_t u = 0; u <= N; u++) rp[(size_t)u] = drowptr[u];
    if (rp[0] != 0 || rp[(size_t)N] != nnz)
        die("%s: the row pointers run from %lld to %lld, not from 0 to nnz = %lld", fn, (long long)rp[0],
            (long long)rp[(size_t)N], (long long)nnz);
    for (int64_t u = 0; u < N; u++) {
        if (rp[(size_t)u + 1] < rp[(size_t)u]) die("%s: the row pointers fall at row %lld", fn, (long long)u);
        for (int64_t e = rp[(size_t)u]; e < rp[(size_t)u + 1]; e++)
            if (dcol[e] < 0 || dcol[e] >= N || (e > rp[(size_t)u] && dcol[e] <= dcol[e - 1]))
                die("%s: row %lld, entry %lld: column %d is out of [0, %lld) or not above the one before it "
                    "(a snapshot's columns ascend, each once; the labels count an entry once)",
                    fn, (long long)u, (long long)e, dcol[e], (long long)N);
    }
    int32_t *label = (int32_t *)malloc(I4(N * N));
    if (!label)
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "%s: (hostemu) out of host memory: %lld x %lld labels", fn,
                              (long long)N, (long long)N);
    dgnn_snapshot g;
    memset(&g, 0, sizeof g);
    g.num_nodes = N;
    g.num_edges = nnz;
    g.rowptr = rp.data();
    g.col = const_cast<int32_t *>(dcol); // read only
    dgnn_snap_link_metrics(ap, mrr, dprob, &g, label);
    free(label);
    return DGNN_OK;
}
