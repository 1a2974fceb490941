// rows.cu: rows of a table by index on the GPU (include/dgnn/cuda.h): gathers (state.c's
// dgnn_state_gather_mem, the models' copies of memory rows into a dense batch), ordered
// scatter-adds (attention.c's segment_acc, the roots' gradient sums of tgnn_memory.c and
// apan.c) and last-writer scatters (state.c's "last" rule for repeated nodes).
//
// A scatter with repeated indices first groups the positions by index with a stable
// radix sort (CUB), then runs one thread per (group, column): that thread adds (or picks)
// the group's rows in position order, which is the order the CPU adds them in. No float
// atomics, so the result is the same on every run, and equal to the CPU's up to the
// rounding of the values added (the additions themselves are the same, in the same order).
#include <climits>

#include <cub/device/device_radix_sort.cuh>

#include "cuda_internal.h"

// ---- groups (cuda_internal.h) ----

__global__ static void iota_kernel(int32_t *x, int64_t n) {
    DGNN_CUDA_FOR(i, n) x[i] = (int32_t)i;
}

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

int dgnn_cuda_groups_make(dgnn_cuda *c, dgnn_cuda_groups *g, const int32_t *dkeys, int64_t n, dgnn_err *err) {
    g->keys = g->perm = nullptr;
    g->mem = nullptr;
    g->n = n;
    if (n <= 0) return DGNN_OK;
    if (n > INT_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "CUDA: grouping %lld indices: more than CUB's int sizes",
                              (long long)n);
    // sorted as unsigned 32-bit keys over all their bits: row indices >= 0 in their order, then
    // the negative ones (skipped rows, e.g. TopK's -1), each value a group of its own
    const uint32_t *kin = (const uint32_t *)dkeys;
    size_t temp = 0;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(nullptr, temp, kin, (uint32_t *)nullptr, (const int32_t *)nullptr,
                                                    (int32_t *)nullptr, (int)n, 0, 32, c->stream);
    int rc = dgnn_cuda_check(e, "cub::DeviceRadixSort::SortPairs (size query)", err);
    if (rc) return rc;
    const size_t arr = align256((size_t)n * sizeof(int32_t));
    rc = dgnn_cuda_check(cudaMallocAsync(&g->mem, 3 * arr + align256(temp), c->stream), "cudaMallocAsync (grouping)",
                         err);
    if (rc) {
        g->mem = nullptr;
        return rc;
    }
    char *base = (char *)g->mem;
    g->keys = (int32_t *)base;
    g->perm = (int32_t *)(base + arr);
    int32_t *iota = (int32_t *)(base + 2 * arr);
    void *tmp = base + 3 * arr;
    iota_kernel<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(iota, n);
    rc = dgnn_cuda_check(cudaGetLastError(), "iota_kernel", err);
    if (!rc) {
        e = cub::DeviceRadixSort::SortPairs(tmp, temp, kin, (uint32_t *)g->keys, iota, g->perm, (int)n, 0, 32,
                                            c->stream);
        rc = dgnn_cuda_check(e, "cub::DeviceRadixSort::SortPairs", err);
    }
    if (rc) dgnn_cuda_groups_free(c, g);
    return rc;
}

void dgnn_cuda_groups_free(dgnn_cuda *c, dgnn_cuda_groups *g) {
    if (g->mem) cudaFreeAsync(g->mem, c->stream);
    g->mem = nullptr;
    g->keys = g->perm = nullptr;
}

// ---- gathers ----

__global__ static void gather_kernel(float *out, int64_t ldo, const float *src, int64_t lds, const int32_t *idx,
                                     int64_t n, int64_t width) {
    DGNN_CUDA_FOR(t, n * width) {
        const int64_t i = t / width, j = t % width;
        const int64_t r = idx ? (int64_t)idx[i] : i;
        out[i * ldo + j] = r >= 0 ? src[r * lds + j] : 0.0f;
    }
}

__global__ static void gather_times_kernel(double *out, const double *src, const int32_t *idx, int64_t n) {
    DGNN_CUDA_FOR(i, n) out[i] = idx[i] >= 0 ? src[idx[i]] : 0.0;
}

extern "C" int dgnn_cuda_gather_rows(dgnn_cuda *c, float *dout, int64_t ldo, const float *dsrc, int64_t lds,
                                     const int32_t *didx, int64_t n, int64_t width, dgnn_err *err) {
    if (n <= 0 || width <= 0) return DGNN_OK;
    gather_kernel<<<dgnn_cuda_blocks(n * width, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
        dout, ldo, dsrc, lds, didx, n, width);
    return dgnn_cuda_check(cudaGetLastError(), "gather_kernel", err);
}

extern "C" int dgnn_cuda_gather_times(dgnn_cuda *c, double *dout, const double *dsrc, const int32_t *didx, int64_t n,
                                      dgnn_err *err) {
    if (n <= 0) return DGNN_OK;
    gather_times_kernel<<<dgnn_cuda_blocks(n, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, dsrc,
                                                                                                     didx, n);
    return dgnn_cuda_check(cudaGetLastError(), "gather_times_kernel", err);
}

// ---- scatters ----

// dst[i] += src[i] (no index: each row its own)
__global__ static void add_rows_kernel(float *dst, int64_t ldd, const float *src, int64_t lds, int64_t n,
                                       int64_t width) {
    DGNN_CUDA_FOR(t, n * width) {
        const int64_t i = t / width, j = t % width;
        dst[i * ldd + j] += src[i * lds + j];
    }
}

// One thread per (sorted position, column); the thread at the first position of a group
// adds the group's rows in order into its destination row (the others have nothing to do).
__global__ static void segment_add_kernel(float *dst, int64_t ldd, const float *src, int64_t lds,
                                          const int32_t *keys, const int32_t *perm, int64_t n, int64_t width) {
    DGNN_CUDA_FOR(t, n * width) {
        const int64_t pos = t / width, j = t % width;
        const int32_t k = keys[pos];
        if ((pos > 0 && keys[pos - 1] == k) || k < 0) continue;
        float *d = dst + (int64_t)k * ldd + j;
        float acc = *d;
        for (int64_t q = pos; q < n && keys[q] == k; q++) acc += src[(int64_t)perm[q] * lds + j];
        *d = acc;
    }
}

// The thread at the LAST position of a group writes that position's row (and time).
__global__ static void segment_last_kernel(float *dst, int64_t ldd, double *dst_t, const float *src, int64_t lds,
                                           const double *src_t, const int32_t *keys, const int32_t *perm, int64_t n,
                                           int64_t width) {
    const int64_t w = width > 0 ? width : 1; // a time-only scatter still needs one thread per position
    DGNN_CUDA_FOR(t, n * w) {
        const int64_t pos = t / w, j = t % w;
        const int32_t k = keys[pos];
        if ((pos + 1 < n && keys[pos + 1] == k) || k < 0) continue;
        const int64_t i = perm[pos];
        if (j < width) dst[(int64_t)k * ldd + j] = src[i * lds + j];
        if (j == 0 && dst_t && src_t) dst_t[k] = src_t[i];
    }
}

extern "C" int dgnn_cuda_scatter_add_rows(dgnn_cuda *c, float *ddst, int64_t ldd, const float *dsrc, int64_t lds,
                                          const int32_t *didx, int64_t n, int64_t width, dgnn_err *err) {
    if (n <= 0 || width <= 0) return DGNN_OK;
    const unsigned blocks = dgnn_cuda_blocks(n * width, DGNN_CUDA_THREADS);
    if (!didx) {
        add_rows_kernel<<<blocks, DGNN_CUDA_THREADS, 0, c->stream>>>(ddst, ldd, dsrc, lds, n, width);
        return dgnn_cuda_check(cudaGetLastError(), "add_rows_kernel", err);
    }
    dgnn_cuda_groups g;
    int rc = dgnn_cuda_groups_make(c, &g, didx, n, err);
    if (rc) return rc;
    segment_add_kernel<<<blocks, DGNN_CUDA_THREADS, 0, c->stream>>>(ddst, ldd, dsrc, lds, g.keys, g.perm, n, width);
    rc = dgnn_cuda_check(cudaGetLastError(), "segment_add_kernel", err);
    dgnn_cuda_groups_free(c, &g);
    return rc;
}

extern "C" int dgnn_cuda_scatter_rows_last(dgnn_cuda *c, float *ddst, int64_t ldd, double *ddst_t, const float *dsrc,
                                           int64_t lds, const double *dsrc_t, const int32_t *didx, int64_t n,
                                           int64_t width, dgnn_err *err) {
    if (n <= 0 || (width <= 0 && !(ddst_t && dsrc_t))) return DGNN_OK;
    if (width < 0) width = 0;
    dgnn_cuda_groups g;
    int rc = dgnn_cuda_groups_make(c, &g, didx, n, err);
    if (rc) return rc;
    const int64_t w = width > 0 ? width : 1;
    segment_last_kernel<<<dgnn_cuda_blocks(n * w, DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(
        ddst, ldd, ddst_t, dsrc, lds, dsrc_t, g.keys, g.perm, n, width);
    rc = dgnn_cuda_check(cudaGetLastError(), "segment_last_kernel", err);
    dgnn_cuda_groups_free(c, &g);
    return rc;
}
