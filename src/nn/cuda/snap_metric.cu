// snap_metric.cu: the link task's all-pairs metrics on the GPU, the twin of metrics.c's
// dgnn_snap_link_metrics (include/dgnn/cuda.h): the average precision of the N x N scores
// against the snapshot's entries, and EvolveGCN's MRR (get_MRR) over the rows with an entry.
// Nothing here uses a float atomic: every sum runs in a fixed order, so a call gives the
// same bits on every run.
//
// AP, as metrics.c's finish_ap_auc / ap_auc_sorted:
//  - each pair (u, v) becomes the 64-bit word float_key(prob) << 32 | label (metrics.c's
//    float_key: unsigned order = float order, -0 and +0 one key), the label bit set from the
//    CSR afterwards (an integer OR, so a repeated entry is one label, as the CPU's dense
//    label array makes it);
//  - CUB sorts the words descending by their upper 32 bits only (4 radix passes, not 8; the
//    label rides along, and its order inside a group of tied scores does not matter);
//  - each distinct score is one threshold group (sklearn's rule). An exclusive scan of
//    (label << 32 | group start) in tiles (count per tile, scan of the tile counts, rescan
//    of each tile) gives every group start s_g its group number g and the positives before
//    it, c_g; the starts are compacted into one word each, s_g << 32 | c_g, into the sort's
//    spare buffer. Group g then has prev = c_g, tp = c_{g+1} (P for the last), tp + fp =
//    s_{g+1} (n for the last), and adds the CPU's term (tp/P - prev/P) * tp/(tp + fp) when tp
//    > prev, formed with the CPU's roundings (_rn intrinsics: no contraction into an FMA);
//  - the terms are summed per thread in group order, per block in a fixed tree, and the
//    blocks' sums in one more fixed tree: the CPU's sum in another order (agreement within
//    double rounding, not to the bit).
// Packing two counts in a word needs n = N^2 < 2^32, so N <= 65535 (a dense N^2 score
// matrix that size is 17 GB; larger is DGNN_EINVAL).
//
// MRR, as dgnn_evolvegcn_mrr called on each row (u, 0..N-1) by dgnn_snap_link_metrics: a
// row with no entry, or with a NaN anywhere among its N scores, is not counted (the CPU's
// row value is NaN, which its mean skips); otherwise each distinct column v of the row
// ranks 1 + #{w: s_w > s_v} + #{w > v: s_w == s_v} (descending score, ties by descending
// column: np.flip of a stable argsort), and the row's value is the mean of 1/rank over its
// columns. One block per row, one warp per entry counting over the row's N scores (O(N) per
// entry: the snapshots' rows hold few entries; a dense row costs N^2), exact integer counts.
// The row's 1/ranks are summed by one thread in column order, the CPU's order when it
// counts (16 entries or fewer; above that it sums in rank order), and the mean over the
// rows is the CPU's own loop, on the host, in row order, over the downloaded row values.
//
// The CSR is checked on the device (rowptr from 0 to nnz, non-decreasing; columns in [0, N),
// ascending in a row): a bad one is DGNN_EINVAL after the wait, and no kernel reads out of
// bounds on it. Temporaries: one stream-ordered allocation (cudaMallocAsync on c->stream,
// as mgru.cu's TopK): the keys and the sort's spare buffer (16 N^2 bytes), CUB's storage,
// the tile counts, the entries' 1/ranks (nnz doubles) and the results downloaded.
#include <climits>
#include <cmath>
#include <cstdlib>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "cuda_internal.h"

#define METRIC_THREADS 256                          /* a power of two (dgnn_block_sum) */
#define METRIC_ITEMS 16                             /* words per thread in a tile */
#define METRIC_TILE (METRIC_THREADS * METRIC_ITEMS) /* words per tile of the group scan */
#define METRIC_AP_BLOCKS 256                        /* the fixed grid of the AP terms' sum */
#define METRIC_MAX_N DGNN_CUDA_LINK_METRICS_MAX_N /* N^2 < 2^32: see the top */
#define LO32 0xffffffffULL

// flags[FLAG_NAN]: a NaN score; flags[FLAG_CSR]: the CSR is malformed (both set to 1 by
// any thread that sees it: an integer store of one value, the same result every run)
enum { FLAG_NAN = 0, FLAG_CSR = 1, FLAG_COUNT = 4 };

__device__ static inline double nan_dev() { return __longlong_as_double(0x7ff8000000000000LL); }

// metrics.c's float_key
__device__ static inline uint32_t float_key_dev(float f) {
    if (f == 0.0f) f = 0.0f; // -0 -> +0
    const uint32_t u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// key (n) = float_key(prob) << 32, label bit 0
__global__ static void metric_keys(uint64_t *key, int *flags, const float *prob, int64_t n) {
    DGNN_CUDA_FOR(i, n) {
        const float f = prob[i];
        if (isnan(f)) flags[FLAG_NAN] = 1;
        key[i] = (uint64_t)float_key_dev(f) << 32;
    }
}

// One warp per row u: checks its CSR bounds and sets the label bit of (u, col[e]) for each
// entry e. A repeated column ORs the same bit twice (the same word either way).
__global__ static void metric_labels(uint64_t *key, int *flags, const int32_t *rowptr, const int32_t *col,
                                     int64_t N, int64_t nnz) {
    DGNN_CUDA_FOR(t, N * 32) { // the stride is a multiple of 32: a warp keeps one row
        const int64_t u = t >> 5, lane = t & 31;
        const int64_t lo = rowptr[u], hi = rowptr[u + 1];
        if (lo < 0 || hi < lo || hi > nnz || (u == 0 && lo != 0) || (u == N - 1 && hi != nnz)) {
            flags[FLAG_CSR] = 1;
            continue;
        }
        for (int64_t e = lo + lane; e < hi; e += 32) {
            const int32_t v = col[e];
            if (v < 0 || v >= N || (e > lo && col[e - 1] > v)) {
                flags[FLAG_CSR] = 1;
                continue;
            }
            atomicOr((unsigned long long *)&key[u * N + v], 1ULL);
        }
    }
}

// The scanned word of sorted position i: label << 32 | (i starts a group of tied scores)
__device__ static inline uint64_t group_word(const uint64_t *key, int64_t i) {
    const uint64_t k = key[i];
    const uint64_t start = (i == 0 || (key[i - 1] >> 32) != (k >> 32)) ? 1 : 0;
    return ((k & 1) << 32) | start;
}

// tiles[b] = the sum of the group words of tile b (positives << 32 | group starts: each
// half stays below 2^32 as n does, so the halves never carry into each other)
__global__ static void metric_tile_count(uint64_t *tiles, const uint64_t *key, int64_t n, int64_t ntiles) {
    __shared__ uint64_t sh[METRIC_THREADS];
    for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x) {
        uint64_t acc = 0;
        for (int r = 0; r < METRIC_ITEMS; r++) {
            const int64_t i = b * METRIC_TILE + (int64_t)r * METRIC_THREADS + threadIdx.x;
            if (i < n) acc += group_word(key, i);
        }
        acc = dgnn_block_sum(acc, sh);
        if (threadIdx.x == 0) tiles[b] = acc;
    }
}

// One block: tiles (ntiles + 1) <- the exclusive scan of tiles (ntiles), the total (P << 32
// | G) in tiles[ntiles]
__global__ static void metric_tile_scan(uint64_t *tiles, int64_t ntiles) {
    typedef cub::BlockScan<uint64_t, METRIC_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    uint64_t carry = 0;
    for (int64_t lo = 0; lo < ntiles; lo += METRIC_THREADS) {
        const int64_t b = lo + threadIdx.x;
        uint64_t v = b < ntiles ? tiles[b] : 0, ex, agg;
        scan_t(tmp).ExclusiveSum(v, ex, agg);
        if (b < ntiles) tiles[b] = carry + ex;
        carry += agg;
        __syncthreads(); // tmp is reused
    }
    if (threadIdx.x == 0) tiles[ntiles] = carry;
}

// Each tile rescanned from its base: for each group start s (group g, c positives before
// it), gw[g] = s << 32 | c.
__global__ static void metric_group_starts(uint64_t *gw, const uint64_t *key, const uint64_t *tiles, int64_t n,
                                           int64_t ntiles) {
    typedef cub::BlockScan<uint64_t, METRIC_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x) {
        uint64_t carry = tiles[b];
        for (int r = 0; r < METRIC_ITEMS; r++) {
            const int64_t i = b * METRIC_TILE + (int64_t)r * METRIC_THREADS + threadIdx.x;
            const uint64_t w = i < n ? group_word(key, i) : 0;
            uint64_t ex, agg;
            scan_t(tmp).ExclusiveSum(w, ex, agg);
            if (w & 1) {
                const uint64_t at = carry + ex; // positives before i << 32 | groups before i
                gw[at & LO32] = ((uint64_t)i << 32) | (at >> 32);
            }
            carry += agg;
            __syncthreads(); // tmp is reused
        }
    }
}

// partial[block] = this block's sum of the AP terms of groups g = thread, thread + stride,
// ... (each thread in group order, then a fixed tree); the grid is fixed (METRIC_AP_BLOCKS)
__global__ static void metric_ap_terms(double *partial, const uint64_t *gw, const uint64_t *total, int64_t n) {
    __shared__ double sh[METRIC_THREADS];
    const uint64_t P = *total >> 32, G = *total & LO32;
    const double dP = (double)P;
    double acc = 0;
    for (uint64_t g = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; g < G; g += (uint64_t)blockDim.x * gridDim.x) {
        const uint64_t prev = gw[g] & LO32;
        uint64_t tp = P, cum = (uint64_t)n;
        if (g + 1 < G) {
            const uint64_t next = gw[g + 1];
            tp = next & LO32, cum = next >> 32;
        }
        if (tp > prev) { // ap_auc_sorted: recall - prev_recall, times precision tp / (tp + fp)
            const double drec = __dsub_rn(__ddiv_rn((double)tp, dP), __ddiv_rn((double)prev, dP));
            acc = __dadd_rn(acc, __dmul_rn(drec, __ddiv_rn((double)tp, (double)cum)));
        }
    }
    acc = dgnn_block_sum(acc, sh);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// One block: *ap = the sum of partial (METRIC_AP_BLOCKS), NaN for a NaN score or no
// positive (finish_ap_auc, ap_auc_sorted)
__global__ static void metric_ap_finish(double *ap, const double *partial, const uint64_t *total, const int *flags) {
    __shared__ double sh[METRIC_THREADS];
    double acc = 0;
    for (int b = threadIdx.x; b < METRIC_AP_BLOCKS; b += blockDim.x) acc += partial[b];
    acc = dgnn_block_sum(acc, sh);
    if (threadIdx.x == 0) *ap = (flags[FLAG_NAN] || (*total >> 32) == 0) ? nan_dev() : acc;
}

// One block per row u: rowmrr[u] = the row's MRR (NaN: not counted); rr (nnz) the 1/rank
// of each entry (a repeated column's is not written). Skipped for a malformed CSR.
__global__ static void metric_row_mrr(double *rowmrr, double *rr, const float *prob, const int32_t *rowptr,
                                      const int32_t *col, int64_t N, const int *flags) {
    if (flags[FLAG_CSR]) return;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int64_t u = blockIdx.x; u < N; u += gridDim.x) {
        const int64_t lo = rowptr[u], hi = rowptr[u + 1];
        if (lo == hi) { // no entry: the row is not counted
            if (threadIdx.x == 0) rowmrr[u] = nan_dev();
            continue;
        }
        const float *row = prob + u * N;
        int nan = 0;
        for (int64_t w = threadIdx.x; w < N; w += blockDim.x) nan |= isnan(row[w]);
        if (__syncthreads_or(nan)) { // dgnn_evolvegcn_mrr's NaN for the row: not counted
            if (threadIdx.x == 0) rowmrr[u] = nan_dev();
            continue;
        }
        for (int64_t e = lo + warp; e < hi; e += nwarps) { // warp-uniform
            const int32_t v = col[e];
            if (e > lo && col[e - 1] == v) continue; // a repeated entry: one label
            const float sv = row[v];
            uint32_t above = 0; // columns ranked above v: larger score, or tied and a larger column
            for (int64_t w = lane; w < N; w += 32) {
                const float x = row[w];
                above += (x > sv || (x == sv && w > v)) ? 1u : 0u;
            }
            for (int o = 16; o > 0; o >>= 1) above += __shfl_down_sync(0xffffffffu, above, o);
            if (lane == 0) rr[e] = 1.0 / (double)(above + 1);
        }
        __syncthreads(); // the row's rr are written (and visible to the block)
        if (threadIdx.x == 0) {
            double s = 0;
            int64_t cnt = 0;
            for (int64_t e = lo; e < hi; e++)
                if (e == lo || col[e - 1] != col[e]) s += rr[e], cnt++;
            rowmrr[u] = s / (double)cnt;
        }
    }
}

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

// a stream-ordered temporary (freed with cudaFreeAsync on c->stream), as mgru.cu's
static int stream_alloc(dgnn_cuda *c, void **p, size_t bytes, const char *what, dgnn_err *err) {
    *p = nullptr;
    const cudaError_t e = cudaMallocAsync(p, bytes, c->stream);
    if (e == cudaSuccess) return DGNN_OK;
    *p = nullptr;
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); // clear it: the context stays usable
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of GPU memory: %.1f MiB for %s", (double)bytes / 1048576.0,
                              what);
    }
    return dgnn_cuda_check(e, "cudaMallocAsync", err);
}

static unsigned grid_for(int64_t blocks) {
    return (unsigned)(blocks < 1 ? 1 : blocks > DGNN_CUDA_MAX_BLOCKS ? DGNN_CUDA_MAX_BLOCKS : blocks);
}

// Queues the kernels (after the flags are zeroed); the first failure's status.
static int metric_queue(dgnn_cuda *c, int *flags, double *out, uint64_t *key0, uint64_t *key1, void *sort_tmp,
                        size_t sort_bytes, uint64_t *tiles, double *partial, double *rr, const float *dprob,
                        const int32_t *drowptr, const int32_t *dcol, int64_t N, int64_t nnz, dgnn_err *err) {
    const int64_t n = N * N, ntiles = (n + METRIC_TILE - 1) / METRIC_TILE;
    cudaStream_t s = c->stream;
    metric_keys<<<dgnn_cuda_blocks(n, METRIC_THREADS), METRIC_THREADS, 0, s>>>(key0, flags, dprob, n);
    int rc = dgnn_cuda_check(cudaGetLastError(), "metric_keys", err);
    if (rc) return rc;
    metric_labels<<<dgnn_cuda_blocks(N * 32, METRIC_THREADS), METRIC_THREADS, 0, s>>>(key0, flags, drowptr, dcol, N,
                                                                                      nnz);
    if ((rc = dgnn_cuda_check(cudaGetLastError(), "metric_labels", err))) return rc;
    cub::DoubleBuffer<uint64_t> keys(key0, key1);
    rc = dgnn_cuda_check(cub::DeviceRadixSort::SortKeysDescending(sort_tmp, sort_bytes, keys, (uint32_t)n, 32, 64, s),
                         "cub::DeviceRadixSort::SortKeysDescending (the scores)", err);
    if (rc) return rc;
    const uint64_t *sorted = keys.Current();
    uint64_t *gw = keys.Alternate(); // the spare buffer: one word per group (G <= n)
    metric_tile_count<<<grid_for(ntiles), METRIC_THREADS, 0, s>>>(tiles, sorted, n, ntiles);
    if ((rc = dgnn_cuda_check(cudaGetLastError(), "metric_tile_count", err))) return rc;
    metric_tile_scan<<<1, METRIC_THREADS, 0, s>>>(tiles, ntiles);
    if ((rc = dgnn_cuda_check(cudaGetLastError(), "metric_tile_scan", err))) return rc;
    metric_group_starts<<<grid_for(ntiles), METRIC_THREADS, 0, s>>>(gw, sorted, tiles, n, ntiles);
    if ((rc = dgnn_cuda_check(cudaGetLastError(), "metric_group_starts", err))) return rc;
    metric_ap_terms<<<METRIC_AP_BLOCKS, METRIC_THREADS, 0, s>>>(partial, gw, tiles + ntiles, n);
    if ((rc = dgnn_cuda_check(cudaGetLastError(), "metric_ap_terms", err))) return rc;
    metric_ap_finish<<<1, METRIC_THREADS, 0, s>>>(out, partial, tiles + ntiles, flags);
    if ((rc = dgnn_cuda_check(cudaGetLastError(), "metric_ap_finish", err))) return rc;
    metric_row_mrr<<<dgnn_cuda_row_blocks(N), METRIC_THREADS, 0, s>>>(out + 1, rr, dprob, drowptr, dcol, N, flags);
    return dgnn_cuda_check(cudaGetLastError(), "metric_row_mrr", err);
}

extern "C" int dgnn_cuda_link_metrics(dgnn_cuda *c, double *ap, double *mrr, const float *dprob,
                                      const int32_t *drowptr, const int32_t *dcol, int64_t N, int64_t nnz,
                                      dgnn_err *err) {
    if (!ap || !mrr) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_link_metrics: ap and mrr are required");
    *ap = *mrr = NAN;
    if (N < 0 || N > METRIC_MAX_N || nnz < 0 || nnz > INT32_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "dgnn_cuda_link_metrics: N %lld nodes, %lld entries (N must be at most %d, so that "
                              "N^2 < 2^32; the entries must fit the int32 rowptr)",
                              (long long)N, (long long)nnz, METRIC_MAX_N);
    if (N == 0 || nnz == 0) return DGNN_OK; // the CPU's NaN for a snapshot without an entry
    if (!dprob || !drowptr || !dcol)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_link_metrics: prob, rowptr and col are required");
    const int64_t n = N * N, ntiles = (n + METRIC_TILE - 1) / METRIC_TILE;

    size_t sort_bytes = 0;
    {
        cub::DoubleBuffer<uint64_t> keys(nullptr, nullptr);
        const cudaError_t e =
            cub::DeviceRadixSort::SortKeysDescending(nullptr, sort_bytes, keys, (uint32_t)n, 32, 64, c->stream);
        const int rc = dgnn_cuda_check(e, "cub::DeviceRadixSort::SortKeysDescending (size query)", err);
        if (rc) return rc;
    }
    // one temporary: flags and results (downloaded together) | tiles | partial sums |
    // 1/rank per entry | keys, the sort's spare buffer | CUB's storage
    const size_t head = 64 + (size_t)(N + 1) * sizeof(double); // flags (FLAG_COUNT ints), then ap, rowmrr (N)
    const size_t a_head = align256(head), a_tiles = align256((size_t)(ntiles + 1) * sizeof(uint64_t));
    const size_t a_part = align256(METRIC_AP_BLOCKS * sizeof(double)), a_rr = align256((size_t)nnz * sizeof(double));
    const size_t a_key = align256((size_t)n * sizeof(uint64_t));
    void *mem = nullptr;
    int rc = stream_alloc(c, &mem, a_head + a_tiles + a_part + a_rr + 2 * a_key + align256(sort_bytes),
                          "the link metrics' sort of all pairs", err);
    if (rc) return rc;
    char *base = (char *)mem;
    int *flags = (int *)base;
    double *out = (double *)(base + 64); // ap, then the rows' MRR
    uint64_t *tiles = (uint64_t *)(base + a_head);
    double *partial = (double *)(base + a_head + a_tiles);
    double *rr = (double *)(base + a_head + a_tiles + a_part);
    uint64_t *key0 = (uint64_t *)(base + a_head + a_tiles + a_part + a_rr);
    uint64_t *key1 = (uint64_t *)(base + a_head + a_tiles + a_part + a_rr + a_key);
    void *sort_tmp = base + a_head + a_tiles + a_part + a_rr + 2 * a_key;

    char *host = (char *)malloc(head);
    if (!host) rc = dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the link metrics' %zu result bytes", head);
    if (!rc) rc = dgnn_cuda_zero(c, base, head, err); // the flags, and every byte downloaded
    if (!rc)
        rc = metric_queue(c, flags, out, key0, key1, sort_tmp, sort_bytes, tiles, partial, rr, dprob, drowptr, dcol, N,
                          nnz, err);
    if (!rc) rc = dgnn_cuda_download(c, host, base, head, err);
    const cudaError_t fe = cudaFreeAsync(mem, c->stream);
    if (!rc) rc = dgnn_cuda_check(fe, "cudaFreeAsync (the link metrics' work)", err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    if (!rc) {
        const int *hflags = (const int *)host;
        const double *hout = (const double *)(host + 64);
        if (hflags[FLAG_CSR]) {
            rc = dgnn_cuda_fail(err, DGNN_EINVAL,
                                "dgnn_cuda_link_metrics: the label CSR is malformed (rowptr must run from 0 to nnz "
                                "%lld without decreasing, columns lie in [0, %lld) ascending in a row)",
                                (long long)nnz, (long long)N);
        } else {
            *ap = hout[0];
            // dgnn_snap_link_metrics's mean over the counted rows, in row order
            double s = 0;
            int64_t cnt = 0;
            for (int64_t u = 0; u < N; u++)
                if (!std::isnan(hout[1 + u])) s += hout[1 + u], cnt++;
            *mrr = cnt ? s / (double)cnt : NAN;
        }
    }
    free(host);
    return rc;
}
