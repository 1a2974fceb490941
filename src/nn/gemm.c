/* gemm.c: the dense products of the models: dgnn_gemm, C's rows cut into one block per
 * thread, and dgnn_gemm_fixed, whose bits do not depend on the thread count.
 *
 * A plain sgemm rounds differently for 1 and 2 OpenBLAS threads once it is large enough
 * to be split (M N K above 2^18 in OpenBLAS 0.3.21): OpenBLAS splits the work by its
 * thread count, and the edge tiles of each part take other micro-kernels, which sum in
 * another order. Measured: dW = G^T X on C = 100..400, L = 100, U = 500..3783, and X W on
 * N = 1800, 40 x 40 under SkylakeX; EvolveGCN's classifier, GCN layers and matrix GRU
 * under Haswell and Sandybridge (issue 12: a training loss that changed with --threads).
 * So dgnn_gemm_fixed cuts C's rows into fixed blocks, the cut depending on the shape only,
 * and runs each block as one sgemm inside an OpenMP loop: in an active parallel region
 * OpenBLAS's OpenMP build runs single-threaded, and with one thread it is single-threaded
 * anyway, so every block is the same single-threaded call whatever the thread count. The
 * region is opened even for small products (no `if` clause): its cost is a few
 * microseconds, and a threshold would be one more place where the path could change.
 *
 * The bits still depend on the OpenBLAS kernel (OPENBLAS_CORETYPE, i.e. the CPU) and on
 * the block shape: docs/determinism.md. */
#include "dgnn/nn.h"
#include "dgnn/prof.h"

#include <limits.h>
#include <omp.h>

#include <cblas.h>

/* C = beta C when K = 0: sgemm with K = 0 is legal, but some BLAS check lda >= 1 */
static void scale_only(int64_t M, int64_t N, float beta, float *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
}

static void assert_fits_int(int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc) {
    DGNN_ASSERT(M <= INT_MAX && N <= INT_MAX && K <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX && ldc <= INT_MAX);
}

/* One block of C's rows [r0, r0 + rn) as one sgemm. */
static void gemm_rows(int transA, int transB, int64_t r0, int64_t rn, int64_t N, int64_t K, const float *A,
                      int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    const float *Ab = transA ? A + r0 : A + r0 * lda; /* op(A)'s rows r0.. */
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, (int)rn,
                (int)N, (int)K, 1.0f, Ab, (int)lda, B, (int)ldb, beta, C + r0 * ldc, (int)ldc);
}

/* Products below this many multiply-adds run as one sgemm on the calling thread
 * (OpenBLAS's own threshold for threading, 2^18 in 0.3.21, is about the same). */
#define SPLIT_MIN_MACS (1 << 18)
#define SPLIT_MIN_ROWS 16

static void dgnn_gemm_body(int transA, int transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) { scale_only(M, N, beta, C, ldc); return; }
    assert_fits_int(M, N, K, lda, ldb, ldc);
    /* With T threads, C's rows run as T blocks, each one single-threaded sgemm in an
     * OpenMP loop (OpenBLAS's OpenMP build runs single-threaded in an active parallel
     * region). On the models' shapes (a few hundred rows, K and N 100-700) that reaches
     * 1.9x one thread's GFLOP/s at 2 threads, where OpenBLAS's own split of the same call
     * reaches 1.2-1.6x (docs/results.md). */
    const int64_t T = omp_in_parallel() ? 1 : omp_get_max_threads();
    int64_t nb = T < M / SPLIT_MIN_ROWS ? T : M / SPLIT_MIN_ROWS;
    if (nb < 2 || (double)M * (double)N * (double)K < SPLIT_MIN_MACS) {
        gemm_rows(transA, transB, 0, M, N, K, A, lda, B, ldb, beta, C, ldc);
        return;
    }
#pragma omp parallel for schedule(static, 1) num_threads((int)nb)
    for (int64_t b = 0; b < nb; b++) {
        const int64_t r0 = M * b / nb, r1 = M * (b + 1) / nb;
        gemm_rows(transA, transB, r0, r1 - r0, N, K, A, lda, B, ldb, beta, C, ldc);
    }
}

void dgnn_gemm(int transA, int transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GEMM);
    dgnn_gemm_body(transA, transB, M, N, K, A, lda, B, ldb, beta, C, ldc);
    dgnn_prof_end(prof_t);
}

static void dgnn_gemm_fixed_body(int transA, int transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) { scale_only(M, N, beta, C, ldc); return; }
    assert_fits_int(M, N, K, lda, ldb, ldc);
    /* A^T B sums over a long K (the nodes, for weight gradients) into few output rows:
     * small blocks, so that 2+ threads share them; A B: 256 rows, a whole tile set */
    const int64_t RB = transA ? 64 : 256, nb = (M + RB - 1) / RB;
    const enum CBLAS_TRANSPOSE ta = transA ? CblasTrans : CblasNoTrans, tb = transB ? CblasTrans : CblasNoTrans;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nb; b++) {
        int64_t r0 = b * RB, rn = r0 + RB <= M ? RB : M - r0;
        const float *Ab = transA ? A + r0 : A + r0 * lda; /* op(A)'s rows r0.. */
        cblas_sgemm(CblasRowMajor, ta, tb, (int)rn, (int)N, (int)K, 1.0f, Ab, (int)lda, B, (int)ldb, beta,
                    C + r0 * ldc, (int)ldc);
    }
}

/* Whether n whole products share T threads well: the largest-first greedy assignment
 * finishes within 15% of an even share (the GRU's two products, 3:1, do not). */
static int balanced(const dgnn_gemm_op *ops, int n, int64_t T) {
    double load[DGNN_GEMM_GROUP_MAX] = {0}, w[DGNN_GEMM_GROUP_MAX], total = 0;
    if (n > DGNN_GEMM_GROUP_MAX || T > DGNN_GEMM_GROUP_MAX) return 0;
    for (int i = 0; i < n; i++) total += w[i] = (double)ops[i].M * ops[i].N * ops[i].K;
    for (int i = 0; i < n; i++) { /* take the largest left, give it to the least loaded */
        int big = 0, least = 0;
        for (int j = 1; j < n; j++)
            if (w[j] > w[big]) big = j;
        for (int t = 1; t < T; t++)
            if (load[t] < load[least]) least = t;
        load[least] += w[big];
        w[big] = -1;
    }
    double most = 0;
    for (int t = 0; t < T; t++)
        if (load[t] > most) most = load[t];
    return most <= 1.15 * total / (double)T;
}

void dgnn_gemm_group(const dgnn_gemm_op *ops, int n) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GEMM);
    const int64_t T = omp_in_parallel() ? 1 : omp_get_max_threads();
    if (T < 2 || n < (int)T || !balanced(ops, n, T)) { /* one after the other, each split over the threads */
        for (int i = 0; i < n; i++) {
            const dgnn_gemm_op *o = &ops[i];
            dgnn_gemm_body(o->transA, o->transB, o->M, o->N, o->K, o->A, o->lda, o->B, o->ldb, o->beta, o->C, o->ldc);
        }
        dgnn_prof_end(prof_t);
        return;
    }
    /* At least one product per thread: each whole, single-threaded (no operand packed
     * twice), the largest first; the bits are those of a 1-thread run. */
    int order[DGNN_GEMM_GROUP_MAX];
    DGNN_ASSERT(n <= DGNN_GEMM_GROUP_MAX);
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort by multiply-adds, descending */
        for (int j = i; j > 0; j--) {
            const dgnn_gemm_op *a = &ops[order[j - 1]], *b = &ops[order[j]];
            if ((double)a->M * a->N * a->K >= (double)b->M * b->N * b->K) break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < n; i++) {
        const dgnn_gemm_op *o = &ops[order[i]];
        dgnn_gemm_body(o->transA, o->transB, o->M, o->N, o->K, o->A, o->lda, o->B, o->ldb, o->beta, o->C, o->ldc);
    }
    dgnn_prof_end(prof_t);
}

void dgnn_gemm_fixed(int transA, int transB, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_GEMM);
    dgnn_gemm_fixed_body(transA, transB, M, N, K, A, lda, B, ldb, beta, C, ldc);
    dgnn_prof_end(prof_t);
}

