// spmm.cu: the GPU's sparse GCN ops, mirroring src/nn/spmm.c (include/dgnn/cuda.h): a CSR
// matrix on the device, Y = A X through cuSPARSE's generic SpMM, its backward as the same
// product over a precomputed transpose (the CPU's choice: no scatter, no atomics), the GCN
// layer Y = A X W^T + b for dense input (the products through dgnn_cuda_gemm, cuBLAS) and
// for one-hot input (a row gather forward, an ordered scatter-add backward), and the dense
// transpose EvolveGCN uses to pass its evolved weights in the GCN's layout.
//
// Determinism. Every op gives the same bits on every run for the same inputs:
//  - SpMM runs cuSPARSE's CUSPARSE_SPMM_CSR_ALG3. cuSPARSE's SpMM documentation gives
//    the bit-wise reproducibility promise ("deterministic (bit-wise) results for each
//    run") to two algorithms only, CUSPARSE_SPMM_COO_ALG2 and CUSPARSE_SPMM_CSR_ALG3, with
//    A not transposed (as quoted in jax-ml/jax#10255); CSR_ALG1, CSR_ALG2 (the usual pick
//    for row-major operands) and the default carry no such promise, and a transposed A
//    "may produce slightly different results during different runs". ALG3 takes the
//    row-major B and C used here (NVIDIA's cuOpt picks it over ALG2 for row-major operands
//    when it must be reproducible) and refuses a transposed A, which these ops never ask
//    for: the backward multiplies by A^T stored as a matrix of its own (or A itself when
//    symmetric), as the CPU does. cusparseSpMM_preprocess is not called: it binds the
//    workspace to one set of operand shapes, while one matrix here multiplies operands of
//    several widths (a possible speed step: one preprocessed workspace per width).
//  - The dense products are cuBLAS's (dgnn_cuda_gemm): the same bits on every run on one
//    GPU model and toolkit (no atomics in sgemm), not the CPU's.
//  - The one-hot backward's scatter-add dE[idx[i]] += dT[i] groups the nodes by index with
//    a stable sort (rows.cu's dgnn_cuda_groups) and sums each group in node order in one
//    thread per column: the CPU's order, no float atomics.
//  - Bias gradients are linear.cu's column sums (one thread per column, rows in order).
// The sums still run in other orders than the CPU's (cuSPARSE's and cuBLAS's), so results
// agree with the CPU ops within float rounding, not to the bit.
#include <climits>
#include <cstdlib>
#include <cstring>

#include "cuda_internal.h"

static const cusparseSpMMAlg_t SPMM_ALG = CUSPARSE_SPMM_CSR_ALG3; // why: the header comment

// ---- small kernels ----

// Y (N, D) += b (D) on every row: the bias after propagation (PyG's GCNConv, spmm.c)
__global__ static void add_bias_rows(float *Y, const float *b, int64_t N, int64_t D) {
    DGNN_CUDA_FOR(t, N * D) Y[t] += b[t % D];
}

// out (C, R) = in (R, C)^T, or out += in^T: one thread per output element, so the writes
// are coalesced and the reads strided (the matrices transposed here are weights, small)
__global__ static void transpose_kernel(float *out, const float *in, int64_t R, int64_t C, int accumulate) {
    DGNN_CUDA_FOR(t, R * C) {
        const int64_t oc = t / R, orow = t % R; // out row oc (a column of in), column orow (a row of in)
        const float v = in[orow * C + oc];
        out[t] = accumulate ? out[t] + v : v;
    }
}

// keys (n) = idx, with -1 (an all-zero input row) replaced by `none` (= V, past every
// valid row), so that dgnn_cuda_groups_make gets keys in [0, 2^31) as it asks
__global__ static void onehot_keys(int32_t *keys, const int32_t *idx, int64_t n, int32_t none) {
    DGNN_CUDA_FOR(i, n) keys[i] = idx[i] < 0 ? none : idx[i];
}

// dE[k] += dT[perm[q]] for the positions q of each group k (sorted keys, perm in node
// order within a group): one thread per (sorted position, column); the thread at a
// group's first position adds the group's rows in order, starting from dE's value, as
// spmm.c's loop over i does. Keys >= V (the -1 rows, or an index out of range) are skipped.
__global__ static void onehot_scatter_add(float *dE, const float *dT, const int32_t *keys, const int32_t *perm,
                                          int64_t n, int64_t D, int64_t V) {
    DGNN_CUDA_FOR(t, n * D) {
        const int64_t pos = t / D, j = t % D;
        const int32_t k = keys[pos];
        if (k >= V || (pos > 0 && keys[pos - 1] == k)) continue;
        float *d = dE + (int64_t)k * D + j;
        float acc = *d;
        for (int64_t q = pos; q < n && keys[q] == k; q++) acc += dT[(int64_t)perm[q] * D + j];
        *d = acc;
    }
}

// ---- errors ----

static int sparse_fail(dgnn_err *err, cusparseStatus_t s, const char *call, const dgnn_cuda_csr *A, int64_t F) {
    return dgnn_cuda_fail(err, s == CUSPARSE_STATUS_ALLOC_FAILED ? DGNN_ENOMEM : DGNN_EDEVICE,
                          "cuSPARSE: %s (a %lld x %lld matrix with %lld entries, width %lld): %s", call,
                          (long long)A->rows, (long long)A->cols, (long long)A->nnz, (long long)F,
                          cusparseGetErrorString(s));
}

// ---- the device CSR ----

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

extern "C" int dgnn_cuda_csr_init(dgnn_cuda *c, dgnn_cuda_csr *d, const dgnn_csr *a, dgnn_err *err) {
    memset(d, 0, sizeof *d);
    const int64_t R = a->rows, C = a->cols, nnz = a->nnz;
    // cuSPARSE's CSR takes one index type for the row pointers and the columns here:
    // 32-bit (the host's columns are 32-bit already; its 64-bit row pointers are narrowed)
    if (R < 0 || C < 0 || nnz < 0 || R > INT32_MAX || C > INT32_MAX || nnz > INT32_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "GPU CSR: a %lld x %lld matrix with %lld entries: the device copy's 32-bit indices "
                              "hold at most %d rows, columns and entries",
                              (long long)R, (long long)C, (long long)nnz, INT32_MAX);
    if (R == 0 ? nnz != 0 : (a->rowptr[0] != 0 || a->rowptr[R] != nnz))
        return dgnn_cuda_fail(err, DGNN_EINVAL, "GPU CSR: row pointers run from %lld to %lld, not from 0 to nnz = %lld",
                              R > 0 ? (long long)a->rowptr[0] : 0LL, R > 0 ? (long long)a->rowptr[R] : 0LL,
                              (long long)nnz);
    // the structure cuSPARSE reads without checking: row pointers non-decreasing, columns
    // in [0, C) and ascending within a row (as snapshots' A_hat and dgnn_csr_transpose
    // give them; the CPU takes any order, cuSPARSE's CSR is the sorted kind). O(rows + nnz)
    // on the host, once per matrix, beside the copy of the same arrays.
    for (int64_t r = 0; r < R; r++) {
        const int64_t b = a->rowptr[r], e = a->rowptr[r + 1];
        if (e < b || e > nnz) // b >= 0: rowptr[0] == 0 and the rows before ascend
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
    // one block: rowptr (R+1), col (nnz), val (nnz), each 256-byte aligned
    const size_t rp_b = align256((size_t)(R + 1) * sizeof(int32_t)), col_b = align256((size_t)nnz * sizeof(int32_t));
    int rc = dgnn_cuda_alloc(c, &d->mem_, rp_b + col_b + (size_t)nnz * sizeof(float), "a GPU sparse matrix", err);
    if (rc) return rc;
    char *base = (char *)d->mem_;
    d->rowptr = (int32_t *)base;
    d->col = nnz > 0 ? (int32_t *)(base + rp_b) : nullptr;
    d->val = nnz > 0 ? (float *)(base + rp_b + col_b) : nullptr;
    int32_t *rp = (int32_t *)malloc((size_t)(R + 1) * sizeof(int32_t));
    if (!rp) rc = dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: %lld row pointers", (long long)(R + 1));
    if (!rc) {
        rp[0] = 0;
        for (int64_t r = 0; r < R; r++) rp[r + 1] = (int32_t)a->rowptr[r + 1]; // <= nnz <= INT32_MAX
        rc = dgnn_cuda_upload(c, d->rowptr, rp, (size_t)(R + 1) * sizeof(int32_t), err);
    }
    if (!rc) rc = dgnn_cuda_upload(c, d->col, a->col, (size_t)nnz * sizeof(int32_t), err);
    if (!rc) rc = dgnn_cuda_upload(c, d->val, a->val, (size_t)nnz * sizeof(float), err);
    // wait: the staging copy rp is freed next, and the caller may free a's arrays on return
    if (!rc) rc = dgnn_cuda_sync(c, err);
    free(rp);
    if (!rc && nnz > 0) { // no descriptor for an empty matrix: the ops never call cuSPARSE on one
        cusparseSpMatDescr_t sp = nullptr;
        const cusparseStatus_t s = cusparseCreateCsr(&sp, R, C, nnz, d->rowptr, d->col, d->val, CUSPARSE_INDEX_32I,
                                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
        if (s == CUSPARSE_STATUS_SUCCESS) d->descr_ = sp;
        else rc = sparse_fail(err, s, "cusparseCreateCsr", d, 0);
    }
    if (rc) dgnn_cuda_csr_free(c, d);
    return rc;
}

extern "C" void dgnn_cuda_csr_free(dgnn_cuda *c, dgnn_cuda_csr *d) {
    if (!d) return;
    if (d->descr_) cusparseDestroySpMat((cusparseSpMatDescr_t)d->descr_);
    if (d->work_) cudaFreeAsync(d->work_, c->stream); // stream-ordered: after the products that used it
    dgnn_cuda_release(c, d->mem_);
    memset(d, 0, sizeof *d);
}

// A's workspace holds at least `bytes` (at least 256, so that it is never NULL). A larger
// one replaces it in stream order: the old one is freed after the products queued before,
// the new one is ready for the products queued after, and no host wait is needed.
static int work_reserve(dgnn_cuda *c, dgnn_cuda_csr *A, size_t bytes, dgnn_err *err) {
    if (bytes < 256) bytes = 256;
    if (A->work_ && A->work_bytes_ >= bytes) return DGNN_OK;
    if (A->work_) {
        void *old = A->work_;
        A->work_ = nullptr, A->work_bytes_ = 0;
        const int rc = dgnn_cuda_check(cudaFreeAsync(old, c->stream), "cudaFreeAsync (the SpMM workspace)", err);
        if (rc) return rc;
    }
    void *p = nullptr;
    const cudaError_t e = cudaMallocAsync(&p, bytes, c->stream);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); // clear it: the context stays usable
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of GPU memory: %.1f MiB for an SpMM workspace",
                              (double)bytes / 1048576.0);
    }
    const int rc = dgnn_cuda_check(e, "cudaMallocAsync (the SpMM workspace)", err);
    if (rc) return rc;
    A->work_ = p, A->work_bytes_ = bytes;
    return DGNN_OK;
}

// C (rows, F) = A B (cols, F) + beta C, row-major with leading dimension F, through
// cusparseSpMM (A->nnz > 0, F > 0). The dense descriptors are host-side structs, made and
// destroyed per call; the workspace is A's (grown on demand). Host scalars (cuSPARSE's
// default pointer mode).
static int spmm_run(dgnn_cuda *c, float *dC, dgnn_cuda_csr *A, const float *dB, int64_t F, float beta,
                    dgnn_err *err) {
    const cusparseOperation_t N_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseConstSpMatDescr_t sp = (cusparseConstSpMatDescr_t)A->descr_;
    const float one = 1.0f;
    cusparseConstDnMatDescr_t mB = nullptr;
    cusparseDnMatDescr_t mC = nullptr;
    cusparseStatus_t s = cusparseCreateConstDnMat(&mB, A->cols, F, F, dB, CUDA_R_32F, CUSPARSE_ORDER_ROW);
    if (s != CUSPARSE_STATUS_SUCCESS) return sparse_fail(err, s, "cusparseCreateConstDnMat", A, F);
    s = cusparseCreateDnMat(&mC, A->rows, F, F, dC, CUDA_R_32F, CUSPARSE_ORDER_ROW);
    if (s != CUSPARSE_STATUS_SUCCESS) {
        cusparseDestroyDnMat(mB);
        return sparse_fail(err, s, "cusparseCreateDnMat", A, F);
    }
    size_t bytes = 0;
    int rc = DGNN_OK;
    s = cusparseSpMM_bufferSize(c->sparse, N_, N_, &one, sp, mB, &beta, mC, CUDA_R_32F, SPMM_ALG, &bytes);
    if (s != CUSPARSE_STATUS_SUCCESS) rc = sparse_fail(err, s, "cusparseSpMM_bufferSize", A, F);
    if (!rc) rc = work_reserve(c, A, bytes, err);
    if (!rc) {
        s = cusparseSpMM(c->sparse, N_, N_, &one, sp, mB, &beta, mC, CUDA_R_32F, SPMM_ALG, A->work_);
        if (s != CUSPARSE_STATUS_SUCCESS) rc = sparse_fail(err, s, "cusparseSpMM", A, F);
    }
    cusparseDestroyDnMat(mC);
    cusparseDestroyDnMat(mB);
    return rc;
}

// ---- SpMM ----

extern "C" int dgnn_cuda_spmm(dgnn_cuda *c, float *dY, dgnn_cuda_csr *A, const float *dX, int64_t F, int accumulate,
                              dgnn_err *err) {
    if (F <= 0 || A->rows <= 0) return DGNN_OK;
    // Y = A X: Y is zeroed first, so that an empty row (or an empty A) gives a zero row
    // whatever cuSPARSE does with C when beta is 0 (BLAS's rule is not to read it; this
    // does not rely on it); then beta = 0 or 1 gives the same product.
    int rc = accumulate ? DGNN_OK : dgnn_cuda_zero(c, dY, (size_t)A->rows * (size_t)F * sizeof(float), err);
    if (rc || A->nnz == 0) return rc;
    return spmm_run(c, dY, A, dX, F, accumulate ? 1.0f : 0.0f, err);
}

extern "C" int dgnn_cuda_spmm_backward(dgnn_cuda *c, float *ddX, dgnn_cuda_csr *At, const float *ddY, int64_t F,
                                       dgnn_err *err) {
    return dgnn_cuda_spmm(c, ddX, At, ddY, F, 1, err);
}

// ---- the GCN layer: Y = A X W^T + b ----

// spmm.c's dgnn_gcn_xw_first, which is in dgnn_core (this library does not call it): the
// narrower side gets the sparse product. test_cuda_spmm checks that the two agree through
// the saved intermediate's layout.
static int gcn_xw_first(int64_t Din, int64_t Dout) { return Dout <= Din; }

static int gcn_check(const char *op, const dgnn_cuda_csr *A, int64_t N, int64_t Din, int64_t Dout, dgnn_err *err) {
    if (N < 0 || Din < 0 || Dout < 0 || A->rows != N || A->cols != N)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: N=%lld Din=%lld Dout=%lld with a %lld x %lld matrix (it must be N x N)",
                              op, (long long)N, (long long)Din, (long long)Dout, (long long)A->rows,
                              (long long)A->cols);
    return DGNN_OK;
}

static int bias_rows(dgnn_cuda *c, float *dY, const float *db, int64_t N, int64_t D, dgnn_err *err) {
    if (!db || N * D <= 0) return DGNN_OK;
    add_bias_rows<<<dgnn_cuda_blocks(N * D, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dY, db, N, D);
    return dgnn_cuda_check(cudaGetLastError(), "add_bias_rows (the GCN bias)", err);
}

// db (D) += the column sums of dY (N, D): linear.cu's bias gradient (rows in order)
static int bias_grad(dgnn_cuda *c, float *ddb, const float *ddY, int64_t N, int64_t D, dgnn_err *err) {
    if (!ddb) return DGNN_OK;
    return dgnn_cuda_linear_backward(c, nullptr, nullptr, ddb, ddY, nullptr, nullptr, N, 0, D, err);
}

extern "C" int dgnn_cuda_gcn_forward(dgnn_cuda *c, float *dY, float *dsaved, dgnn_cuda_csr *A, const float *dX,
                                     const float *dW, const float *db, int64_t N, int64_t Din, int64_t Dout,
                                     dgnn_err *err) {
    int rc = gcn_check("dgnn_cuda_gcn_forward", A, N, Din, Dout, err);
    if (rc) return rc;
    if (gcn_xw_first(Din, Dout)) {
        // T = X W^T (N, Dout) into saved, then Y = A T
        rc = dgnn_cuda_gemm(c, 0, 1, N, Dout, Din, dX, Din, dW, Din, 0.0f, dsaved, Dout, err);
        if (!rc) rc = dgnn_cuda_spmm(c, dY, A, dsaved, Dout, 0, err);
    } else {
        // T = A X (N, Din) into saved, then Y = T W^T
        rc = dgnn_cuda_spmm(c, dsaved, A, dX, Din, 0, err);
        if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, N, Dout, Din, dsaved, Din, dW, Din, 0.0f, dY, Dout, err);
    }
    if (!rc) rc = bias_rows(c, dY, db, N, Dout, err);
    return rc;
}

extern "C" int dgnn_cuda_gcn_backward(dgnn_cuda *c, float *ddX, float *ddW, float *ddb, float *dscratch,
                                      const float *ddY, const float *dsaved, dgnn_cuda_csr *At, const float *dX,
                                      const float *dW, int64_t N, int64_t Din, int64_t Dout, dgnn_err *err) {
    int rc = gcn_check("dgnn_cuda_gcn_backward", At, N, Din, Dout, err);
    if (rc) return rc;
    if (gcn_xw_first(Din, Dout)) {
        // Y = A T + b, T = X W^T: dT = A^T dY (N, Dout) into scratch, then the linear's
        // backward: dX += dT W, dW += dT^T X
        rc = dgnn_cuda_spmm(c, dscratch, At, ddY, Dout, 0, err);
        if (!rc && ddX) rc = dgnn_cuda_gemm(c, 0, 0, N, Din, Dout, dscratch, Dout, dW, Din, 1.0f, ddX, Din, err);
        if (!rc && ddW) rc = dgnn_cuda_gemm(c, 1, 0, Dout, Din, N, dscratch, Dout, dX, Din, 1.0f, ddW, Din, err);
    } else {
        // Y = T W^T + b, T = A X: dW += dY^T T; dT = dY W (N, Din) into scratch (beta 0:
        // written whole, the CPU's zeroed-then-added), then dX += A^T dT
        if (ddW) rc = dgnn_cuda_gemm(c, 1, 0, Dout, Din, N, ddY, Dout, dsaved, Din, 1.0f, ddW, Din, err);
        if (!rc && ddX) {
            rc = dgnn_cuda_gemm(c, 0, 0, N, Din, Dout, ddY, Dout, dW, Din, 0.0f, dscratch, Din, err);
            if (!rc) rc = dgnn_cuda_spmm(c, ddX, At, dscratch, Din, 1, err);
        }
    }
    if (!rc) rc = bias_grad(c, ddb, ddY, N, Dout, err);
    return rc;
}

// ---- the GCN layer on one-hot input: Y = A E[idx] + b ----

static int onehot_check(const char *op, const dgnn_cuda_csr *A, const int32_t *didx, int64_t N, int64_t V, int64_t Dout,
                        dgnn_err *err) {
    if (N < 0 || V < 0 || V > INT32_MAX || Dout < 0 || A->rows != N || A->cols != N || (N > 0 && !didx))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "%s: N=%lld V=%lld Dout=%lld with a %lld x %lld matrix (it must be N x N; V < 2^31; "
                              "idx given)",
                              op, (long long)N, (long long)V, (long long)Dout, (long long)A->rows, (long long)A->cols);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_gcn_onehot_forward(dgnn_cuda *c, float *dY, float *dsaved, dgnn_cuda_csr *A,
                                            const int32_t *didx, const float *dE, const float *db, int64_t N,
                                            int64_t V, int64_t Dout, dgnn_err *err) {
    int rc = onehot_check("dgnn_cuda_gcn_onehot_forward", A, didx, N, V, Dout, err);
    if (rc) return rc;
    // saved (N, Dout) = E[idx] (row gather; idx < 0 gives a zero row, rows.cu's rule and
    // spmm.c's), then Y = A saved + b
    rc = dgnn_cuda_gather_rows(c, dsaved, Dout, dE, Dout, didx, N, Dout, err);
    if (!rc) rc = dgnn_cuda_spmm(c, dY, A, dsaved, Dout, 0, err);
    if (!rc) rc = bias_rows(c, dY, db, N, Dout, err);
    return rc;
}

extern "C" int dgnn_cuda_gcn_onehot_backward(dgnn_cuda *c, float *ddE, float *ddb, float *dscratch, const float *ddY,
                                             dgnn_cuda_csr *At, const int32_t *didx, int64_t N, int64_t V,
                                             int64_t Dout, dgnn_err *err) {
    int rc = onehot_check("dgnn_cuda_gcn_onehot_backward", At, didx, N, V, Dout, err);
    if (rc) return rc;
    rc = dgnn_cuda_spmm(c, dscratch, At, ddY, Dout, 0, err); // dT = A^T dY (N, Dout)
    if (!rc && N > 0 && Dout > 0) {
        // dE[idx[i]] += dT[i], rows shared by many nodes summed in node order: the keys
        // (-1 mapped past the last row) grouped by a stable sort, then one thread per
        // (group, column). The keys' array lives as long as the grouping, stream-ordered.
        int32_t *keys = nullptr;
        rc = dgnn_cuda_check(cudaMallocAsync((void **)&keys, (size_t)N * sizeof(int32_t), c->stream),
                             "cudaMallocAsync (the one-hot keys)", err);
        if (rc) {
            cudaGetLastError(); // an allocation failure: clear it, the context stays usable
            return rc;
        }
        onehot_keys<<<dgnn_cuda_blocks(N, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(keys, didx, N,
                                                                                                (int32_t)V);
        rc = dgnn_cuda_check(cudaGetLastError(), "onehot_keys", err);
        dgnn_cuda_groups g;
        g.mem = nullptr;
        if (!rc) rc = dgnn_cuda_groups_make(c, &g, keys, N, err);
        if (!rc) {
            onehot_scatter_add<<<dgnn_cuda_blocks(N * Dout, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
                ddE, dscratch, g.keys, g.perm, N, Dout, V);
            rc = dgnn_cuda_check(cudaGetLastError(), "onehot_scatter_add", err);
            dgnn_cuda_groups_free(c, &g);
        }
        cudaFreeAsync(keys, c->stream);
    }
    if (!rc) rc = bias_grad(c, ddb, ddY, N, Dout, err);
    return rc;
}

// ---- dense transpose ----

extern "C" int dgnn_cuda_transpose(dgnn_cuda *c, float *dout, const float *din, int64_t R, int64_t C, int accumulate,
                                   dgnn_err *err) {
    if (R < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_transpose: a %lld x %lld matrix", (long long)R, (long long)C);
    if (R * C == 0) return DGNN_OK;
    transpose_kernel<<<dgnn_cuda_blocks(R * C, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, din, R, C,
                                                                                                   accumulate);
    return dgnn_cuda_check(cudaGetLastError(), "transpose_kernel", err);
}
