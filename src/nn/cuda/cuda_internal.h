// cuda_internal.h: what the CUDA backend's files share (private to src/nn/cuda).
#ifndef DGNN_CUDA_INTERNAL_H
#define DGNN_CUDA_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "dgnn/cuda.h"

struct dgnn_cuda {
    int device;
    cudaStream_t stream; /* every op and copy of this context runs on it, in order */
    cublasHandle_t blas; /* bound to stream, FP32 math */
    cusparseHandle_t sparse; /* bound to stream: the sparse products (spmm.cu) */
    dgnn_cuda_watch_fn watch; /* dgnn_cuda_set_watch's (NULL: blocking waits) */
    void *watch_ctx;
};

/* Fills err (code, printf-style message) and returns code. */
int dgnn_cuda_fail(dgnn_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 0 for cudaSuccess; otherwise DGNN_EDEVICE (DGNN_ENOMEM for an allocation failure) with
 * the error's name and the call. */
int dgnn_cuda_check(cudaError_t e, const char *call, dgnn_err *err);

/* The host's waits for a stream's work and for an event (watch.cu): blocking, or under the
 * context's watch a poll (cuda.h, dgnn_cuda_set_watch). `call` names the wait in an error. */
int dgnn_cuda_wait_stream(dgnn_cuda *c, cudaStream_t s, const char *call, dgnn_err *err);
int dgnn_cuda_wait_event(dgnn_cuda *c, cudaEvent_t e, const char *call, dgnn_err *err);

/* ---- launch sizes ----
 * Element-wise kernels run a grid-stride loop over their n elements, so the grid is
 * capped (DGNN_CUDA_MAX_BLOCKS) and a huge n never overflows gridDim.x; block-per-row
 * kernels loop over rows the same way. Callers never launch for n == 0 (a zero-sized
 * grid is an error): every op returns before its launch when there is nothing to do. */
#define DGNN_CUDA_THREADS 256
#define DGNN_CUDA_MAX_BLOCKS 65535
static inline unsigned dgnn_cuda_blocks(int64_t n, int threads) {
    const int64_t b = (n + threads - 1) / threads;
    return (unsigned)(b < 1 ? 1 : b > DGNN_CUDA_MAX_BLOCKS ? DGNN_CUDA_MAX_BLOCKS : b);
}
/* the grid of a block-per-row kernel over `rows` rows */
static inline unsigned dgnn_cuda_row_blocks(int64_t rows) {
    return (unsigned)(rows < 1 ? 1 : rows > DGNN_CUDA_MAX_BLOCKS ? DGNN_CUDA_MAX_BLOCKS : rows);
}

#ifdef __CUDACC__
/* Grid-stride loop over [0, n). */
#define DGNN_CUDA_FOR(i, n) \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (int64_t)blockDim.x * gridDim.x)

/* Block-wide sum and maximum: every thread of the block calls it (no divergence) with its
 * own value; sh holds blockDim.x values and blockDim.x is a power of two. Returns the
 * result to every thread; sh may be reused after the call (the last barrier). */
template <typename T> __device__ inline T dgnn_block_sum(T v, T *sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    const T r = sh[0];
    __syncthreads();
    return r;
}
__device__ inline float dgnn_block_max(float v, float *sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    const float r = sh[0];
    __syncthreads();
    return r;
}

/* nn.h's dgnn_sigmoidf: two branches so that exp never overflows */
/* base.h's dgnn_hash64 (the splitmix64 finaliser), for the device: dropout's masks (act.cu)
 * and RReLU's slopes (rrelu.cu) hash (seed, i) as the CPU does */
__device__ inline uint64_t dgnn_hash64_dev(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
__device__ inline float dgnn_sigmoidf_dev(float x) {
    if (x >= 0) return 1.0f / (1.0f + expf(-x));
    const float e = expf(x);
    return e / (1.0f + e);
}
#endif

/* ---- indices grouped by value (rows.cu) ----
 * The stable order of 0..n-1 by key (keys in [0, 2^31)): perm (n) lists the positions
 * grouped by key, ascending, each group in position order; keys (n) is the key of each
 * entry of perm. Scatters by row index use it so that each destination row is written by
 * one thread, in the order the CPU writes it (no float atomics; the same bits every run).
 * The arrays live in one stream-ordered allocation (cudaMallocAsync on c->stream), freed
 * by dgnn_cuda_groups_free (cudaFreeAsync): use them only on c->stream. */
typedef struct {
    int32_t *keys, *perm;
    void *mem;
    int64_t n;
} dgnn_cuda_groups;
int dgnn_cuda_groups_make(dgnn_cuda *c, dgnn_cuda_groups *g, const int32_t *dkeys, int64_t n, dgnn_err *err);
void dgnn_cuda_groups_free(dgnn_cuda *c, dgnn_cuda_groups *g);

#endif
