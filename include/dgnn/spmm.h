/* spmm.h: sparse kernels over a CSR matrix (src/nn/spmm.c): the CSR type, SpMM and its
 * transpose, the GCN layer Y = A_hat X W^T + b for dense or one-hot X (built on nn.h's
 * linear), and the SpMM throughput and STREAM-triad bandwidth measurements `dgnn bench`
 * reports side by side. A snapshot becomes a CSR in the data layer (snapshot_graph.h).
 *
 * Conventions (DESIGN.md 1, 9, 11): as nn.h's. Outputs first, then inputs, then sizes;
 * every pointer carries its shape, row-major; backward ACCUMULATES (+=) into every
 * gradient it is given. Parallel loops run over the index that is written, so results do
 * not depend on the thread count. Temporaries: dgnn_csr_transpose (its result) and the
 * measurements allocate; nothing else does. Input widths are named Din, not I (nn.h says
 * why). */
#ifndef DGNN_SPMM_H
#define DGNN_SPMM_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== CSR matrices =================================================================== */

/* A sparse matrix in CSR form: row r holds entries rowptr[r] .. rowptr[r+1]-1, columns
 * col[] (any order within a row; snapshots keep them ascending) and values val[].
 * A view (dgnn_csr_view, or snapshot_graph.h's dgnn_csr_of_hat) borrows the arrays;
 * dgnn_csr_transpose allocates them, and dgnn_csr_free releases what was allocated (a
 * no-op on a view). */
typedef struct {
    int64_t rows, cols, nnz;
    const int64_t *rowptr; /* (rows+1) */
    const int32_t *col;    /* (nnz) */
    const float *val;      /* (nnz) */
    void *owned_;          /* the block holding the arrays when this struct owns them */
} dgnn_csr;

dgnn_csr dgnn_csr_view(const int64_t *rowptr, const int32_t *col, const float *val, int64_t rows, int64_t cols);
/* t = a^T, freshly allocated (free with dgnn_csr_free). Within each row of t the columns
 * come out ascending. O(nnz + rows + cols). Errors: DGNN_ENOMEM. */
int dgnn_csr_transpose(dgnn_csr *t, const dgnn_csr *a, dgnn_err *err);
void dgnn_csr_free(dgnn_csr *a);
/* 1 if a is square and equal to its transpose up to |a_ij - a_ji| <= tol (structure and
 * values), else 0. A symmetric A_hat is its own transpose: pass it as both A and A^T. */
int dgnn_csr_is_symmetric(const dgnn_csr *a, float tol);

/* ==== SpMM: Y = A X ================================================================== */

/* Y (A->rows, F) = A @ X (A->cols, F), or Y += A @ X when accumulate is non-zero.
 * OpenMP over rows of Y with a dynamic schedule (degrees are skewed: one hub row can hold
 * a large share of nnz). Y must not overlap X. An empty row gives a zero row. */
void dgnn_spmm(float *Y, const dgnn_csr *A, const float *X, int64_t F, int accumulate);
/* The plain serial reference of dgnn_spmm (double accumulation), for tests. */
void dgnn_spmm_ref(float *Y, const dgnn_csr *A, const float *X, int64_t F, int accumulate);

/* Backward of Y = A X for X: dX (A->cols, F) += A^T @ dY (A->rows, F). At is A's
 * transpose from dgnn_csr_transpose (or A itself when A is symmetric); with it the
 * product is the same row-parallel kernel, with no scatter and no race. */
void dgnn_spmm_backward(float *dX, const dgnn_csr *At, const float *dY, int64_t F);

/* ==== the GCN layer: Y = A X W^T + b ================================================ */

/* Y (N, Dout) = A (N x N) @ X (N, Din) @ W^T + b, W (Dout, Din) in torch's layout (nn.h's linear),
 * b (Dout) or NULL, added after propagation (PyG's GCNConv). The order follows the narrower
 * side, since the dense product costs N*Din*Dout either way and the sparse one nnz*width:
 * dgnn_gcn_xw_first(Din, Dout) (Dout <= Din) computes A (X W^T), otherwise (A X) W^T.
 * EvolveGCN multiplies by its evolved Q (Din x Dout) as X @ Q: pass W = Q^T (dgnn_transpose)
 * and add dW's transpose back into dQ.
 * saved (N, min(Din, Dout)): the intermediate (X W^T or A X). The dense products, forward
 * and backward, are nn.h's dgnn_gemm_fixed: the bits do not depend on the thread count. */
int dgnn_gcn_xw_first(int64_t Din, int64_t Dout);
void dgnn_gcn_forward(float *Y, float *saved, const dgnn_csr *A, const float *X, const float *W, const float *b,
                      int64_t N, int64_t Din, int64_t Dout);
/* dX (N, Din) += (or NULL: an input without gradient, e.g. one-hot features), dW (Dout, Din) +=,
 * db (Dout) += (or NULL); scratch (N, min(Din, Dout)) is overwritten. At = A's transpose (A itself
 * when symmetric). dY (N, Dout); saved, X, W as given to the forward. */
void dgnn_gcn_backward(float *dX, float *dW, float *db, float *scratch, const float *dY, const float *saved,
                       const dgnn_csr *At, const float *X, const float *W, int64_t N, int64_t Din, int64_t Dout);
/* The same layer for one-hot input (X[i] = e_idx[i], e.g. EvolveGCN's degree one-hot
 * features), where X W^T is a row gather and costs O(N * Dout) instead of a dense
 * (N x V) product: Y (N, Dout) = A @ E[idx] + b. E (V, Dout) holds one row per input
 * feature, i.e. W^T, EvolveGCN's Q layout (in x out) as it is. idx (N) in [0, V), or -1
 * for an all-zero input row. saved (N, Dout) = E[idx]. */
void dgnn_gcn_onehot_forward(float *Y, float *saved, const dgnn_csr *A, const int32_t *idx, const float *E,
                             const float *b, int64_t N, int64_t V, int64_t Dout);
/* dE (V, Dout) +=, db (Dout) += (or NULL); scratch (N, Dout) overwritten. Deterministic:
 * rows of dE shared by many nodes are summed in node order. */
void dgnn_gcn_onehot_backward(float *dE, float *db, float *scratch, const float *dY, const dgnn_csr *At,
                              const int32_t *idx, int64_t N, int64_t V, int64_t Dout);
/* out (C, R) = in (R, C)^T, or out += in^T when accumulate is non-zero. */
void dgnn_transpose(float *out, const float *in, int64_t R, int64_t C, int accumulate);

/* ==== measurements =================================================================== */

/* Bytes moved by one dgnn_spmm call, the model used for GB/s:
 *   nnz * (4 + 4)      column index and value of every entry, read once
 * + nnz * F * 4        the X row of every entry (a gather: counted each time, though the
 *                      cache may serve repeats, so the rate is an "effective" one and can
 *                      exceed DRAM bandwidth when X fits in cache)
 * + rows * F * 4       Y written once.
 * The row pointers ((rows+1) * 8) are left out as in the model the benchmark quotes. */
double dgnn_spmm_bytes(const dgnn_csr *A, int64_t F);

typedef struct {
    int64_t calls;         /* timed calls (after one untimed warm-up) */
    double seconds;        /* total time of the timed calls */
    double bytes_per_call; /* dgnn_spmm_bytes */
    double gbps;           /* bytes_per_call * calls / seconds / 1e9 */
    double gflops;         /* 2 * nnz * F per call */
} dgnn_spmm_perf;

/* Runs dgnn_spmm over A with a random X (cols, F) (from seed) repeatedly for about
 * `seconds` (at least one timed call) and fills *perf. Allocates and frees its buffers. */
void dgnn_spmm_bench(dgnn_spmm_perf *perf, const dgnn_csr *A, int64_t F, double seconds, uint64_t seed);

/* STREAM's triad a[i] = b[i] + s * c[i] over three double arrays of n elements (n = 0:
 * each array twice the last-level cache, at least 64 MiB and at most 1 GiB, so that the
 * arrays do not fit in cache), OpenMP static over i. Repeats for about `seconds` and
 * returns the best rate in GB/s counting 24 bytes per i (two reads, one write; the
 * write-allocate read is not counted, as STREAM does). Returns 0 if allocation fails. */
double dgnn_triad_gbps(int64_t n, double seconds);

#ifdef __cplusplus
}
#endif
#endif
