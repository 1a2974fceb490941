/* spmm.c: sparse GCN propagation. The CSR view/transpose helpers, Y = A X over a CSR
 * (OpenMP over rows) with its serial reference, the backward dX += A^T dY as the same
 * row kernel over a precomputed transpose, the GCN layer Y = A X W^T + b (SpMM + nn.h's
 * linear), and the two measurements `dgnn bench` puts side by side: SpMM throughput and
 * STREAM-triad memory bandwidth.
 *
 * Why a precomputed transpose instead of scattering A^T dY from A's rows: the scatter
 * writes X rows from many threads at once (races, or atomics that cost more than the
 * product), while a row-parallel pass over A^T writes each dX row from one thread. A
 * snapshot's transpose is built once and reused by every epoch; a symmetric A_hat (the
 * EvolveGCN setting) is its own transpose and needs no copy at all. */
#include "dgnn/spmm.h"
#include "dgnn/nn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

dgnn_csr dgnn_csr_view(const int64_t *rowptr, const int32_t *col, const float *val, int64_t rows, int64_t cols) {
    dgnn_csr a;
    a.rows = rows;
    a.cols = cols;
    a.nnz = rows > 0 ? rowptr[rows] : 0;
    a.rowptr = rowptr;
    a.col = col;
    a.val = val;
    a.owned_ = NULL;
    return a;
}

void dgnn_csr_free(dgnn_csr *a) {
    if (!a) return;
    free(a->owned_);
    memset(a, 0, sizeof *a);
}

int dgnn_csr_transpose(dgnn_csr *t, const dgnn_csr *a, dgnn_err *err) {
    memset(t, 0, sizeof *t);
    if (a->rows > INT32_MAX)
        return dgnn_err_set(err, DGNN_EINVAL, "csr transpose: %lld rows do not fit 32-bit column ids",
                            (long long)a->rows);
    int64_t R = a->rows, Cn = a->cols, nnz = a->nnz;
    /* one block: rowptr (Cn+1) int64, then col (nnz) int32, then val (nnz) float */
    size_t bytes = (size_t)(Cn + 1) * sizeof(int64_t) + (size_t)nnz * (sizeof(int32_t) + sizeof(float));
    char *blk = malloc(bytes ? bytes : 1);
    if (!blk)
        return dgnn_err_set(err, DGNN_ENOMEM, "csr transpose: cannot allocate %zu bytes (%lld x %lld, nnz %lld)", bytes,
                            (long long)R, (long long)Cn, (long long)nnz);
    int64_t *tp = (int64_t *)blk;
    int32_t *tc = (int32_t *)(blk + (size_t)(Cn + 1) * sizeof(int64_t));
    float *tv = (float *)(tc + nnz);
    /* counting sort by column: counts, exclusive prefix, then a stable fill in row order,
     * which leaves each row of t with ascending columns (= a's rows in order). Serial:
     * O(nnz) once per snapshot, far below the cost of the products that reuse it. */
    memset(tp, 0, (size_t)(Cn + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < nnz; e++) {
        DGNN_ASSERT(a->col[e] >= 0 && a->col[e] < Cn);
        tp[a->col[e] + 1]++;
    }
    for (int64_t c = 0; c < Cn; c++) tp[c + 1] += tp[c];
    int64_t *cur = dgnn_xmalloc((size_t)(Cn > 0 ? Cn : 1) * sizeof(int64_t));
    memcpy(cur, tp, (size_t)Cn * sizeof(int64_t));
    for (int64_t r = 0; r < R; r++) {
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; e++) {
            int64_t d = cur[a->col[e]]++;
            tc[d] = (int32_t)r;
            tv[d] = a->val[e];
        }
    }
    free(cur);
    t->rows = Cn;
    t->cols = R;
    t->nnz = nnz;
    t->rowptr = tp;
    t->col = tc;
    t->val = tv;
    t->owned_ = blk;
    return DGNN_OK;
}

int dgnn_csr_is_symmetric(const dgnn_csr *a, float tol) {
    if (a->rows != a->cols) return 0;
    /* compare sorted(a) with a^T row by row: a^T's rows come out sorted, and transposing
     * twice sorts a's rows without touching a */
    dgnn_csr t, tt;
    if (dgnn_csr_transpose(&t, a, NULL) != 0) return 0;
    if (dgnn_csr_transpose(&tt, &t, NULL) != 0) {
        dgnn_csr_free(&t);
        return 0;
    }
    int sym = 1;
    for (int64_t r = 0; r <= a->rows && sym; r++)
        if (t.rowptr[r] != tt.rowptr[r]) sym = 0;
    for (int64_t e = 0; e < a->nnz && sym; e++)
        if (t.col[e] != tt.col[e] || !(fabsf(t.val[e] - tt.val[e]) <= tol)) sym = 0;
    dgnn_csr_free(&t);
    dgnn_csr_free(&tt);
    return sym;
}

/* ---- SpMM ------------------------------------------------------------------------------ */

/* One output row: y (F) (+)= sum_e val[e] * X[col[e]] (F). The inner loop over F is
 * contiguous in both X and y, so the compiler vectorizes it; y stays in L1 across the row.
 * The X rows are random gathers, so the loop is bound by memory latency, not bandwidth:
 * it prefetches the X row of the entry `pf` entries ahead (measured on a 2-core VM with
 * 3M-entry random graphs: 2.5-3x the throughput of the plain loop). */
static inline void spmm_row(float *restrict y, const dgnn_csr *A, const float *restrict X, int64_t r, int64_t F,
                            int accumulate, int64_t pf) {
    if (!accumulate) memset(y, 0, (size_t)F * sizeof(float));
    const int64_t end = A->rowptr[r + 1];
    for (int64_t e = A->rowptr[r]; e < end; e++) {
        if (pf && e + pf < A->nnz) {
            const char *ahead = (const char *)(X + (int64_t)A->col[e + pf] * F);
            for (int64_t b = 0; b < F * (int64_t)sizeof(float); b += 64) __builtin_prefetch(ahead + b);
        }
        const float a = A->val[e];
        const float *restrict x = X + (int64_t)A->col[e] * F;
        for (int64_t f = 0; f < F; f++) y[f] += a * x[f];
    }
}

void dgnn_spmm(float *Y, const dgnn_csr *A, const float *X, int64_t F, int accumulate) {
    if (F <= 0) return;
    int64_t R = A->rows;
    /* prefetch about 4 KiB of gathers ahead, 8 to 64 entries: what measured best for
     * F = 16, 64 and 100 (a fixed distance in entries is too short for narrow rows).
     * Below F = 8 (rows of a fraction of a cache line) it measured slower: off. */
    int64_t pf = 4096 / (F * (int64_t)sizeof(float));
    if (pf < 8) pf = 8;
    if (pf > 64) pf = 64;
    if (F < 8) pf = 0;
    /* dynamic: rows differ by orders of magnitude in degree; chunks of 32 rows keep the
     * scheduling overhead small while no thread is left with a run of hubs */
#pragma omp parallel for schedule(dynamic, 32) if (A->nnz * F > 32768)
    for (int64_t r = 0; r < R; r++) spmm_row(Y + r * F, A, X, r, F, accumulate, pf);
}

void dgnn_spmm_ref(float *Y, const dgnn_csr *A, const float *X, int64_t F, int accumulate) {
    double *acc = dgnn_xmalloc((size_t)(F > 0 ? F : 1) * sizeof(double));
    for (int64_t r = 0; r < A->rows; r++) {
        for (int64_t f = 0; f < F; f++) acc[f] = accumulate ? (double)Y[r * F + f] : 0.0;
        for (int64_t e = A->rowptr[r]; e < A->rowptr[r + 1]; e++)
            for (int64_t f = 0; f < F; f++) acc[f] += (double)A->val[e] * (double)X[(int64_t)A->col[e] * F + f];
        for (int64_t f = 0; f < F; f++) Y[r * F + f] = (float)acc[f];
    }
    free(acc);
}

void dgnn_spmm_backward(float *dX, const dgnn_csr *At, const float *dY, int64_t F) {
    dgnn_spmm(dX, At, dY, F, 1);
}

/* ---- measurements ---------------------------------------------------------------------- */

double dgnn_spmm_bytes(const dgnn_csr *A, int64_t F) {
    return (double)A->nnz * 8.0 + (double)A->nnz * (double)F * 4.0 + (double)A->rows * (double)F * 4.0;
}

void dgnn_spmm_bench(dgnn_spmm_perf *perf, const dgnn_csr *A, int64_t F, double seconds, uint64_t seed) {
    memset(perf, 0, sizeof *perf);
    perf->bytes_per_call = dgnn_spmm_bytes(A, F);
    size_t nx = (size_t)(A->cols > 0 ? A->cols : 1) * (size_t)F, ny = (size_t)(A->rows > 0 ? A->rows : 1) * (size_t)F;
    float *X = dgnn_xmalloc(nx * sizeof(float)), *Y = dgnn_xmalloc(ny * sizeof(float));
    dgnn_rng rng;
    dgnn_rng_seed(&rng, seed);
    for (size_t i = 0; i < nx; i++) X[i] = (float)(2.0 * dgnn_rng_uniform(&rng) - 1.0);
    dgnn_spmm(Y, A, X, F, 0); /* warm-up: page faults of Y, thread pool start */
    double t0 = dgnn_now(), t = t0;
    do {
        dgnn_spmm(Y, A, X, F, 0);
        perf->calls++;
        t = dgnn_now();
    } while (t - t0 < seconds);
    perf->seconds = t - t0;
    if (perf->seconds > 0) {
        perf->gbps = perf->bytes_per_call * (double)perf->calls / perf->seconds / 1e9;
        perf->gflops = 2.0 * (double)A->nnz * (double)F * (double)perf->calls / perf->seconds / 1e9;
    }
    free(X);
    free(Y);
}

double dgnn_triad_gbps(int64_t n, double seconds) {
    if (n <= 0) {
        /* each array twice the last-level cache (so the triad streams from memory), within
         * [64 MiB, 1 GiB]; sysconf reports 0 or -1 where it does not know the cache */
        long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
        double bytes = llc > 0 ? 2.0 * (double)llc : 0.0;
        if (bytes < 64.0 * (1 << 20)) bytes = 64.0 * (1 << 20);
        if (bytes > 1024.0 * (1 << 20)) bytes = 1024.0 * (1 << 20);
        n = (int64_t)(bytes / sizeof(double));
    }
    double *a = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double)),
           *c = malloc((size_t)n * sizeof(double));
    double best = 0.0;
    if (a && b && c) {
        /* first touch in the same static partition as the triad, so on a NUMA machine each
         * thread's pages are local to it, as in STREAM */
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            a[i] = 0.0;
            b[i] = 1.0;
            c[i] = 2.0;
        }
        const double s = 3.0;
        double t_start = dgnn_now();
        int reps = 0;
        do {
            double t0 = dgnn_now();
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
            double dt = dgnn_now() - t0;
            double rate = dt > 0 ? 24.0 * (double)n / dt / 1e9 : 0.0;
            if (rate > best) best = rate; /* STREAM reports the best repetition */
            reps++;
        } while (reps < 2 || dgnn_now() - t_start < seconds);
        DGNN_ASSERT(a[n / 2] == 7.0); /* keeps the stores observable: b + 3 c = 1 + 6 */
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* ---- the GCN layer: Y = A X W^T + b ---------------------------------------------------- */

/* The dense product costs N * Din * Dout either way; the sparse one costs nnz * width, where
 * width is the side it runs on. So propagate on the narrower side: A (X W^T) when Dout <= Din
 * (the usual case: wide one-hot or feature input, narrow hidden), (A X) W^T when Dout > Din.
 * The bias goes after propagation (as PyG's GCNConv): in the first order it cannot ride
 * on the linear, since A (1 b^T) = (A 1) b^T != 1 b^T for a normalized A. */
int dgnn_gcn_xw_first(int64_t Din, int64_t Dout) {
    return Dout <= Din;
}

void dgnn_gcn_forward(float *Y, float *saved, const dgnn_csr *A, const float *X, const float *W, const float *b,
                      int64_t N, int64_t Din, int64_t Dout) {
    DGNN_ASSERT(A->rows == N && A->cols == N);
    if (dgnn_gcn_xw_first(Din, Dout)) {
        dgnn_gemm_fixed(0, 1, N, Dout, Din, X, Din, W, Din, 0.0f, saved, Dout); /* T = X W^T (N, Dout) */
        dgnn_spmm(Y, A, saved, Dout, 0);
    } else {
        dgnn_spmm(saved, A, X, Din, 0); /* T = A X (N, Din) */
        dgnn_gemm_fixed(0, 1, N, Dout, Din, saved, Din, W, Din, 0.0f, Y, Dout);
    }
    if (b) {
#pragma omp parallel for schedule(static) if (N * Dout > 65536)
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < Dout; o++) Y[i * Dout + o] += b[o];
    }
}

/* dX (N, Din) += dT (N, Dout) W and dW (Dout, Din) += dT^T X: the linear's backward, with
 * products whose bits do not depend on the thread count (nn.h, dgnn_gemm_fixed) */
static void gcn_linear_backward(float *dX, float *dW, const float *dT, const float *X, const float *W, int64_t N,
                                int64_t Din, int64_t Dout) {
    if (dX) dgnn_gemm_fixed(0, 0, N, Din, Dout, dT, Dout, W, Din, 1.0f, dX, Din);
    if (dW) dgnn_gemm_fixed(1, 0, Dout, Din, N, dT, Dout, X, Din, 1.0f, dW, Din);
}

void dgnn_gcn_backward(float *dX, float *dW, float *db, float *scratch, const float *dY, const float *saved,
                       const dgnn_csr *At, const float *X, const float *W, int64_t N, int64_t Din, int64_t Dout) {
    DGNN_ASSERT(At->rows == N && At->cols == N);
    if (dgnn_gcn_xw_first(Din, Dout)) {
        /* Y = A T + b, T = X W^T: dT = A^T dY, then the linear's backward */
        dgnn_spmm(scratch, At, dY, Dout, 0);
        gcn_linear_backward(dX, dW, scratch, X, W, N, Din, Dout);
    } else {
        /* Y = T W^T + b, T = A X: the linear's backward gives dW and dT; dX += A^T dT */
        if (dX) {
            memset(scratch, 0, (size_t)(N * Din) * sizeof(float));
            gcn_linear_backward(scratch, dW, dY, saved, W, N, Din, Dout);
            dgnn_spmm(dX, At, scratch, Din, 1);
        } else {
            gcn_linear_backward(NULL, dW, dY, saved, W, N, Din, Dout);
        }
    }
    if (db) dgnn_linear_backward(NULL, NULL, db, dY, NULL, NULL, N, Din, Dout); /* column sums of dY */
}

/* One-hot input: X W^T would multiply a mostly-zero (N x V) matrix; its row i is just the
 * weight row of feature idx[i], so the product is a gather, O(N * Dout) instead of
 * O(N * V * Dout). EvolveGCN's first layer on degree one-hot features is this case. */
void dgnn_gcn_onehot_forward(float *Y, float *saved, const dgnn_csr *A, const int32_t *idx, const float *E,
                             const float *b, int64_t N, int64_t V, int64_t Dout) {
    DGNN_ASSERT(A->rows == N && A->cols == N);
#pragma omp parallel for schedule(static) if (N * Dout > 65536)
    for (int64_t i = 0; i < N; i++) {
        DGNN_ASSERT(idx[i] < V);
        if (idx[i] < 0) memset(saved + i * Dout, 0, (size_t)Dout * sizeof(float));
        else memcpy(saved + i * Dout, E + (int64_t)idx[i] * Dout, (size_t)Dout * sizeof(float));
    }
    dgnn_spmm(Y, A, saved, Dout, 0);
    if (b) {
#pragma omp parallel for schedule(static) if (N * Dout > 65536)
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < Dout; o++) Y[i * Dout + o] += b[o];
    }
}

void dgnn_gcn_onehot_backward(float *dE, float *db, float *scratch, const float *dY, const dgnn_csr *At,
                              const int32_t *idx, int64_t N, int64_t V, int64_t Dout) {
    (void)V;
    DGNN_ASSERT(At->rows == N && At->cols == N);
    dgnn_spmm(scratch, At, dY, Dout, 0); /* dT = A^T dY (N, Dout) */
    /* dE[idx[i]] += dT[i]: many nodes share a feature (a degree), so rows of dE collide.
     * Parallel over blocks of columns instead: each thread owns its columns of every dE
     * row and walks i in order, so there is no race and the sum order is fixed. */
    const int64_t CB = 16;
#pragma omp parallel for schedule(static) if (N * Dout > 65536)
    for (int64_t c0 = 0; c0 < Dout; c0 += CB) {
        int64_t c1 = c0 + CB < Dout ? c0 + CB : Dout;
        for (int64_t i = 0; i < N; i++) {
            if (idx[i] < 0) continue;
            float *d = dE + (int64_t)idx[i] * Dout;
            const float *g = scratch + i * Dout;
            for (int64_t c = c0; c < c1; c++) d[c] += g[c];
        }
    }
    if (db) dgnn_linear_backward(NULL, NULL, db, dY, NULL, NULL, N, 1, Dout); /* column sums of dY */
}

void dgnn_transpose(float *out, const float *in, int64_t R, int64_t C, int accumulate) {
#pragma omp parallel for schedule(static) if (R * C > 65536)
    for (int64_t c = 0; c < C; c++) {
        float *o = out + c * R;
        if (accumulate)
            for (int64_t r = 0; r < R; r++) o[r] += in[r * C + c];
        else
            for (int64_t r = 0; r < R; r++) o[r] = in[r * C + c];
    }
}
