// gemm.cu: the GPU's dense product, mirroring src/nn/gemm.c's dgnn_gemm (include/dgnn/cuda.h).
// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the row-major arrays read
// as column-major are the transposes, so cuBLAS gets B first, A second, and (N, M) for (M, N),
// with the same transpose flags and leading dimensions.
#include <climits>

#include "cuda_internal.h"

// C (M, N; ldc) = beta C: what a product with K = 0 leaves (as the CPU's dgnn_gemm)
__global__ static void scale_rows(float *C, int64_t M, int64_t N, int64_t ldc, float beta) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M * N) return;
    float *x = C + (i / N) * ldc + i % N;
    *x = beta == 0.0f ? 0.0f : beta * *x;
}

extern "C" int dgnn_cuda_gemm(dgnn_cuda *c, int transA, int transB, int64_t M, int64_t N, int64_t K,
                              const float *dA, int64_t lda, const float *dB, int64_t ldb, float beta, float *dC,
                              int64_t ldc, dgnn_err *err) {
    if (M <= 0 || N <= 0) return DGNN_OK;
    if (K <= 0) {
        const int64_t n = M * N, threads = 256;
        scale_rows<<<(unsigned)((n + threads - 1) / threads), (unsigned)threads, 0, c->stream>>>(dC, M, N, ldc, beta);
        return dgnn_cuda_check(cudaGetLastError(), "scale_rows (a product with K = 0)", err);
    }
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuBLAS: a product of %lld x %lld x %lld does not fit cuBLAS's int sizes",
                              (long long)M, (long long)N, (long long)K);
    const float one = 1.0f;
    const cublasOperation_t ta = transA ? CUBLAS_OP_T : CUBLAS_OP_N, tb = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasStatus_t s = cublasSgemm(c->blas, tb, ta, (int)N, (int)M, (int)K, &one, dB, (int)ldb, dA, (int)lda,
                                         &beta, dC, (int)ldc);
    if (s != CUBLAS_STATUS_SUCCESS)
        return dgnn_cuda_fail(err, DGNN_EDEVICE, "cuBLAS: cublasSgemm (%lld x %lld x %lld): %s", (long long)M,
                              (long long)N, (long long)K, cublasGetStatusString(s));
    return DGNN_OK;
}
