/* nn_graph.h: the kernels of the snapshot-based models (EvolveGCN-O/H, T-GCN, GCRN-GRU,
 * WD-GCN): sparse GCN propagation over a CSR (SpMM, its transpose, the GCN layer
 * Y = A_hat X W^T + b for dense or one-hot X), EvolveGCN's matrix GRU and TopK summary, the LSTM cell, RReLU,
 * weighted cross-entropy and mean squared error; plus the SpMM throughput and STREAM-triad
 * bandwidth measurements `dgnn bench` reports side by side.
 *
 * Conventions (DESIGN.md 1, 9, 11): free functions over plain arrays; outputs first, then
 * inputs, then sizes; every pointer carries its shape, row-major; a forward writes into
 * caller-given `saved` buffers what its backward needs; backward ACCUMULATES (+=) into
 * every gradient it is given (pass NULL for a gradient that is not wanted where that is
 * documented). Parallel loops run over the index that is written, so results do not depend
 * on the thread count, and reductions (losses) sum fixed blocks in a fixed order.
 * Temporaries: dgnn_mgru_backward (4RC floats), dgnn_topk_forward/_backward (O(N + k) and
 * O(F)), dgnn_csr_transpose (its result) and the measurements allocate; nothing else does.
 *
 * The dense kernels (linear, GRU cell, ReLU) live in nn.h; the GCN layer and the LSTM
 * cell here are built on its linear. Input widths are named Din, not I: <cblas.h> pulls in
 * <complex.h>, whose macro I would break these prototypes in a file including it first. */
#ifndef DGNN_NN_GRAPH_H
#define DGNN_NN_GRAPH_H

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

/* ==== EvolveGCN matrix GRU (mat_GRU_cell of IBM/EvolveGCN egcn_o.py / egcn_h.py) ====== */

/* Applied to a weight matrix Q (R x C) (R = in features, C = out features):
 *   Z  = sigmoid(W_z X + U_z Q + B_z)        (update)
 *   Rs = sigmoid(W_r X + U_r Q + B_r)        (reset)
 *   Hc = tanh(W_h X + U_h (Rs * Q) + B_h)
 *   Q' = (1 - Z) * Q + Z * Hc
 * with W_*, U_* (R x R) multiplying from the left and B_* (R x C). EvolveGCN-O feeds
 * X = Q itself; EvolveGCN-H feeds X = the TopK summary (R x C) of the node embeddings.
 *
 * Parameter layout (one contiguous block, dgnn_mgru_param_count floats):
 *   W (3R, R) = [W_z; W_r; W_h]   stacked so W X is one product
 *   U (3R, R) = [U_z; U_r; U_h]
 *   B (3R, C) = [B_z; B_r; B_h]
 * The gradient block has the same layout. The products are nn.h's dgnn_gemm_fixed (the
 * bits do not depend on the thread count). */
int64_t dgnn_mgru_param_count(int64_t R, int64_t C);
/* The reference initialization: W, U uniform in +-1/sqrt(R) (mat_GRU_gate.reset_param,
 * "1/sqrt(size(1))"), B = 0. Draws W then U in order from rng. */
void dgnn_mgru_init(float *params, int64_t R, int64_t C, dgnn_rng *rng);

/* q_new (R, C); saved (4, R, C) = [Z, Rs, Hc, Rs*Q]; x, q (R, C); params as above.
 * x may equal q (EvolveGCN-O). q_new must not overlap the inputs. */
void dgnn_mgru_forward(float *q_new, float *saved, const float *x, const float *q, const float *params, int64_t R,
                       int64_t C);
/* dx (R, C) += (or NULL), dq (R, C) +=, dparams += ; from dq_new (R, C) and the forward's
 * saved/x/q/params. dx may equal dq (EvolveGCN-O: both gradients reach the same Q). */
void dgnn_mgru_backward(float *dx, float *dq, float *dparams, const float *dq_new, const float *saved, const float *x,
                        const float *q, const float *params, int64_t R, int64_t C);

/* ==== EvolveGCN TopK summary (TopK of egcn_h.py) ===================================== */

/* scores s_i = X_i . p / ||p|| over the N rows of X (N, F); the k valid rows with the
 * highest scores, highest first (ties: lower row index first; torch leaves the order of
 * ties unspecified); out (F, k) = (X[idx] * tanh(s[idx]))^T, i.e. column j is row idx[j]
 * of X scaled by tanh(s_idx[j]).
 * Valid rows: mask[i] != 0 (mask (N), the reference's 0 / -inf node mask: nodes with an
 * edge in the snapshot, snapshot_graph.h's dgnn_topk_mask_of_snapshot), or every row
 * when mask is NULL. When fewer than k rows are valid, the reference's pad_with_last_val
 * repeats the last (lowest-scoring) selected index up to k; so does this. When no row is
 * valid (the reference would fail), out is zero and idx is all -1.
 * Saved for backward: idx (k) the selected rows, tanh_s (k) = tanh(s_idx[j]).
 * Returns the number of distinct valid rows selected (min(k, valid)). */
int64_t dgnn_topk_forward(float *out, int32_t *idx, float *tanh_s, const float *X, const float *p,
                          const uint8_t *mask, int64_t N, int64_t F, int64_t k);
/* dX (N, F) += (or NULL: X is an input without gradient), dp (F) += ; from dout (F, k).
 * A padded (repeated) index receives the sum of its columns' gradients. */
void dgnn_topk_backward(float *dX, float *dp, const float *dout, const int32_t *idx, const float *tanh_s,
                        const float *X, const float *p, int64_t N, int64_t F, int64_t k);
/* The reference initialization of the scorer p (F): uniform in +-1/sqrt(F). */
void dgnn_topk_init(float *p, int64_t F, dgnn_rng *rng);

/* ==== LSTM cell (torch.nn.LSTMCell; WD-GCN) ========================================== */

/* a = x W_ih^T + b_ih + h W_hh^T + b_hh (B, 4H), gate blocks [i | f | g | o];
 * i, f, o = sigmoid, g = tanh; c' = f * c + i * g; h' = o * tanh(c').
 * W_ih (4H, Din), W_hh (4H, H), b_ih, b_hh (4H) or NULL: torch's weight_ih, weight_hh,
 * bias_ih, bias_hh. Built on nn.h's linear. */
#define DGNN_LSTM_SAVED(H) (5 * (H))   /* floats of `saved` per row: [gates (B, 4H) | tanh c' (B, H)] */
#define DGNN_LSTM_SCRATCH(H) (4 * (H)) /* floats of `scratch` per row */

/* torch's init: every tensor U(-1/sqrt(H), 1/sqrt(H)), drawn in the order W_ih, W_hh,
 * b_ih, b_hh (a NULL bias is skipped). */
void dgnn_lstm_init(float *W_ih, float *W_hh, float *b_ih, float *b_hh, int64_t Din, int64_t H, dgnn_rng *rng);
/* hout, cout (B, H); saved (B, 5H) as one block: the activated gates (B, 4H) then
 * tanh(c') (B, H); scratch (B, 4H) overwritten. x (B, Din), h, c (B, H). Outputs must not
 * alias the inputs. */
void dgnn_lstm_forward(float *hout, float *cout, float *saved, float *scratch, const float *x, const float *h,
                       const float *c, const float *W_ih, const float *W_hh, const float *b_ih, const float *b_hh,
                       int64_t B, int64_t Din, int64_t H);
/* dx (B, Din), dh (B, H), dc (B, H), dW_ih, dW_hh, db_ih, db_hh: all +=, any may be NULL.
 * dhout, dcout (B, H): gradients of h' and c' (either may be NULL = zero). scratch
 * (B, 4H) overwritten. saved, x, h, c, W_* as in the forward. */
void dgnn_lstm_backward(float *dx, float *dh, float *dc, float *dW_ih, float *dW_hh, float *db_ih, float *db_hh,
                        float *scratch, const float *dhout, const float *dcout, const float *saved, const float *x,
                        const float *h, const float *c, const float *W_ih, const float *W_hh, int64_t B, int64_t Din,
                        int64_t H);

/* ==== losses ========================================================================== */

/* EvolveGCN's Cross_Entropy: loss = (1/M) sum_i w[y_i] * (logsumexp(z_i) - z_i[y_i]) over
 * logits z (M, C) and labels y (M) in [0, C), with class weights w (C) (NULL = all 1).
 * Note the mean divides by M, not by the sum of the weights as torch's weighted
 * CrossEntropyLoss does. logsumexp subtracts the row max first so exp cannot overflow.
 * Returns the loss (0 when M = 0). */
double dgnn_wce_forward(const float *logits, const int32_t *labels, const float *class_w, int64_t M, int64_t C);
/* dlogits (M, C) += dloss * w[y_i] / M * (softmax(z_i) - onehot(y_i)). */
void dgnn_wce_backward(float *dlogits, float dloss, const float *logits, const int32_t *labels, const float *class_w,
                       int64_t M, int64_t C);

/* Mean squared error over n values (torch MSELoss, mean): (1/n) sum (pred - target)^2. */
double dgnn_mse_forward(const float *pred, const float *target, int64_t n);
/* dpred (n) += dloss * 2 (pred - target) / n. */
void dgnn_mse_backward(float *dpred, float dloss, const float *pred, const float *target, int64_t n);

/* ==== RReLU (torch.nn.RReLU; EvolveGCN's activation) ================================== */

/* y = x for x > 0, a * x otherwise; in training a is drawn uniform in [lower, upper] per
 * element, in eval a = (lower + upper) / 2 (torch's defaults: lower 1/8, upper 1/3).
 * slope (n) saves the factor applied to each element (1 for x > 0) for backward.
 * Randomness: one draw from rng gives a key; element i uses a hash of (key, i), so the
 * result does not depend on the thread count. rng is unused (may be NULL) in eval.
 * y may equal x (in place). */
void dgnn_rrelu_forward(float *y, float *slope, const float *x, int64_t n, float lower, float upper, int training,
                        dgnn_rng *rng);
/* dx (n) += dy * slope. */
void dgnn_rrelu_backward(float *dx, const float *dy, const float *slope, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
