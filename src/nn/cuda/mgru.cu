// mgru.cu: the GPU's EvolveGCN matrix GRU and TopK summary, mirroring src/nn/mgru.c
// (include/dgnn/cuda.h).
//
// Matrix GRU: the CPU's products through dgnn_cuda_gemm with the same arguments (the
// stacked W = [W_z; W_r; W_h] (3R, R) makes W X one product, [U_z; U_r] Q another, U_h
// (Rs * Q) a third), the gates' non-linearities as element-wise kernels between them, and
// the same `saved` layout [Z, Rs, Hc, Rs*Q] (4, R, C), so that a step can be checked
// against the CPU's one array at a time. The backward's temporaries, which mgru.c
// allocates, come from the caller (dscratch, 4RC floats): a training step calls it once
// per layer and snapshot, and needs no allocation there.
//
// TopK: the selection must be the CPU's (another choice of rows is another model, not a
// rounding difference), so the scores are computed so as to be the CPU's doubles bit for
// bit, and the rows are ranked by the CPU's rule with a stable sort:
//  - s_i = (sum_f X_if p_f) * (1 / ||p||), one thread per row summing in f order in
//    double, as mgru.c does: the product of two floats is exact in double, so each step of
//    the sum is one correctly rounded addition on either side (a fused multiply-add gives
//    the same double), and the sums agree bit for bit; ||p|| likewise, with IEEE sqrt and
//    division (__dsqrt_rn, __ddiv_rn, __dmul_rn: no contraction, no reciprocal square root);
//  - the rank: higher score first, ties by lower row index (mgru.c's ranks_before): a
//    stable radix sort (CUB, as rows.cu) of the rows in index order by a 64-bit key that
//    orders the doubles from high to low (-0 and +0, equal for the CPU's ==, get one key),
//    rows outside the mask last. NaN scores (a zero scorer p) are not ranked as the CPU
//    ranks them (its qsort leaves their order unspecified).
// The forward's temporaries (scores, keys, CUB's storage; O(N)) and the backward's
// (O(k) plus the grouping of the selected rows) are stream-ordered allocations
// (cudaMallocAsync on c->stream, as rows.cu's grouping), freed on every path once the
// kernels that use them are queued; nothing waits for the device.
#include <climits>

#include <cub/device/device_radix_sort.cuh>

#include "cuda_internal.h"

static unsigned blocks_for(int64_t n) { return dgnn_cuda_blocks(n, DGNN_CUDA_THREADS); }

// ---- matrix GRU ----

// Z, Rs (the first two blocks of saved, holding W X + U Q) <- sigmoid(. + B_z), sigmoid(. + B_r);
// RQ (saved's fourth block) = Rs * Q
__global__ static void mgru_zr(float *saved, const float *q, const float *B, int64_t RC) {
    float *Z = saved, *Rs = saved + RC, *RQ = saved + 3 * RC;
    DGNN_CUDA_FOR(i, RC) {
        const float z = dgnn_sigmoidf_dev(Z[i] + B[i]);
        const float r = dgnn_sigmoidf_dev(Rs[i] + B[RC + i]);
        Z[i] = z, Rs[i] = r;
        RQ[i] = r * q[i];
    }
}

// Hc (saved's third block, holding W_h X + U_h RQ) <- tanh(. + B_h); Q' = (1 - Z) Q + Z Hc
__global__ static void mgru_h(float *q_new, float *saved, const float *q, const float *B, int64_t RC) {
    const float *Z = saved;
    float *Hc = saved + 2 * RC;
    DGNN_CUDA_FOR(i, RC) {
        const float h = tanhf(Hc[i] + B[2 * RC + i]);
        Hc[i] = h;
        q_new[i] = (1.0f - Z[i]) * q[i] + Z[i] * h;
    }
}

// from Q' = (1 - Z) Q + Z Hc: da_z, da_h (DA's first and third blocks); dq += dQ' (1 - Z)
__global__ static void mgru_bwd_out(float *DA, float *dq, const float *dq_new, const float *saved, const float *q,
                                    int64_t RC) {
    const float *Z = saved, *Hc = saved + 2 * RC;
    float *daz = DA, *dah = DA + 2 * RC;
    DGNN_CUDA_FOR(i, RC) {
        const float g = dq_new[i], z = Z[i], h = Hc[i];
        daz[i] = g * (h - q[i]) * z * (1.0f - z);
        dah[i] = g * z * (1.0f - h * h);
        dq[i] += g * (1.0f - z);
    }
}

// from dRQ = U_h^T da_h: da_r (DA's second block); dq += dRQ Rs; and dB += DA (the three
// blocks, one addition each as on the CPU, which does it after the weight products: the
// same sums)
__global__ static void mgru_bwd_reset(float *DA, float *dq, float *dB, const float *dRQ, const float *saved,
                                      const float *q, int64_t RC) {
    const float *Rs = saved + RC;
    DGNN_CUDA_FOR(i, RC) {
        const float r = Rs[i], d = dRQ[i];
        const float dar = d * q[i] * r * (1.0f - r);
        DA[RC + i] = dar;
        dq[i] += d * r;
        dB[i] += DA[i];
        dB[RC + i] += dar;
        dB[2 * RC + i] += DA[2 * RC + i];
    }
}

extern "C" int dgnn_cuda_mgru_forward(dgnn_cuda *c, float *dq_new, float *dsaved, const float *dx, const float *dq,
                                      const float *dparams, int64_t R, int64_t C, dgnn_err *err) {
    if (R < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_forward: sizes R %lld, C %lld", (long long)R,
                              (long long)C);
    const int64_t RC = R * C;
    if (RC == 0) return DGNN_OK; // before the alias check: empty arrays may all be NULL
    if (dq_new == dq || dq_new == dx)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_forward: q_new must not alias x or q");
    const float *W = dparams;             // (3R, R)
    const float *U = dparams + 3 * R * R; // (3R, R)
    const float *B = dparams + 6 * R * R; // (3R, C)
    float *Hc = dsaved + 2 * RC, *RQ = dsaved + 3 * RC;
    // [Z; Rs; Hc] <- W X (3R, C), then the first 2R rows += [U_z; U_r] Q
    int rc = dgnn_cuda_gemm(c, 0, 0, 3 * R, C, R, W, R, dx, C, 0.0f, dsaved, C, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, 2 * R, C, R, U, R, dq, C, 1.0f, dsaved, C, err);
    if (!rc) {
        mgru_zr<<<blocks_for(RC), DGNN_CUDA_THREADS, 0, c->stream>>>(dsaved, dq, B, RC);
        rc = dgnn_cuda_check(cudaGetLastError(), "mgru_zr", err);
    }
    // Hc pre-activation += U_h (Rs * Q)
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, R, C, R, U + 2 * R * R, R, RQ, C, 1.0f, Hc, C, err);
    if (!rc) {
        mgru_h<<<blocks_for(RC), DGNN_CUDA_THREADS, 0, c->stream>>>(dq_new, dsaved, dq, B, RC);
        rc = dgnn_cuda_check(cudaGetLastError(), "mgru_h", err);
    }
    return rc;
}

extern "C" int dgnn_cuda_mgru_backward(dgnn_cuda *c, float *ddx, float *ddq, float *ddparams, float *dscratch,
                                       const float *ddq_new, const float *dsaved, const float *dx, const float *dq,
                                       const float *dparams, int64_t R, int64_t C, dgnn_err *err) {
    if (R < 0 || C < 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_backward: sizes R %lld, C %lld", (long long)R,
                              (long long)C);
    const int64_t RC = R * C;
    if (RC == 0) return DGNN_OK; // C = 0: every product has K = 0 and beta 1, nothing changes
    if (!ddq || !ddparams || !dscratch)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_mgru_backward: dq, dparams and scratch are required");
    const float *W = dparams, *U = dparams + 3 * R * R;
    float *dW = ddparams, *dU = ddparams + 3 * R * R, *dB = ddparams + 6 * R * R;
    const float *RQ = dsaved + 3 * RC;
    // scratch: DA (3R, C) = the gradients of the three pre-activations, dRQ (R, C)
    float *DA = dscratch, *dRQ = dscratch + 3 * RC, *dah = DA + 2 * RC;
    mgru_bwd_out<<<blocks_for(RC), DGNN_CUDA_THREADS, 0, c->stream>>>(DA, ddq, ddq_new, dsaved, dq, RC);
    int rc = dgnn_cuda_check(cudaGetLastError(), "mgru_bwd_out", err);
    // Hc = tanh(W_h X + U_h (Rs * Q) + B_h): dRQ = U_h^T da_h
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, R, C, R, U + 2 * R * R, R, dah, C, 0.0f, dRQ, C, err);
    if (!rc) {
        mgru_bwd_reset<<<blocks_for(RC), DGNN_CUDA_THREADS, 0, c->stream>>>(DA, ddq, dB, dRQ, dsaved, dq, RC);
        rc = dgnn_cuda_check(cudaGetLastError(), "mgru_bwd_reset", err);
    }
    // dW += DA X^T, dU_zr += DA_zr Q^T, dU_h += da_h (Rs*Q)^T
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, 3 * R, R, C, DA, C, dx, C, 1.0f, dW, R, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, 2 * R, R, C, DA, C, dq, C, 1.0f, dU, R, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 1, R, R, C, dah, C, RQ, C, 1.0f, dU + 2 * R * R, R, err);
    // dx += W^T DA, dq += [U_z; U_r]^T DA_zr: separate products, one after the other on the
    // stream, so dx may be the same array as dq (EvolveGCN-O)
    if (!rc && ddx) rc = dgnn_cuda_gemm(c, 1, 0, R, C, 3 * R, W, R, DA, C, 1.0f, ddx, C, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 1, 0, R, C, 2 * R, U, R, DA, C, 1.0f, ddq, C, err);
    return rc;
}

// ---- TopK ----

#define TOPK_THREADS 256 /* a power of two (dgnn_block_sum) */

// a stream-ordered temporary (freed with cudaFreeAsync on c->stream)
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

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

// 1 / ||p|| as mgru.c's 1.0 / norm2(p): the same serial double sum (exact products), IEEE
// square root and division
__device__ static double inv_norm_dev(const float *p, int64_t F) {
    double s = 0;
    for (int64_t f = 0; f < F; f++) s += (double)p[f] * (double)p[f];
    return __ddiv_rn(1.0, __dsqrt_rn(s));
}

// The rank key of a valid row's score: ascending keys are descending scores. The usual
// order-preserving map of an IEEE double onto uint64 (flip every bit of a negative, the
// sign bit of a positive), then complemented; -0 is made +0 first (the CPU's == ties them).
// A valid score's key is below UINT64_MAX (that key would be the all-ones NaN), the key
// of every row outside the mask; the stable sort keeps equal keys in row order.
__device__ static inline uint64_t rank_key(double s) {
    if (s == 0) s = 0.0;
    const uint64_t b = (uint64_t)__double_as_longlong(s);
    const uint64_t up = (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
    return ~up;
}

// s (N) the scores, key (N) their rank keys, val (N) = the row indices
__global__ static void topk_scores(double *s, uint64_t *key, int32_t *val, const float *X, const float *p,
                                   const uint8_t *mask, int64_t N, int64_t F) {
    __shared__ double inv_sh;
    if (threadIdx.x == 0) inv_sh = inv_norm_dev(p, F); // F flops per block: small beside its rows
    __syncthreads();
    const double inv = inv_sh;
    // one thread per row, summing in f order (the CPU's bits; a coalesced tiled variant
    // that keeps the order is a later speed step)
    DGNN_CUDA_FOR(i, N) {
        const float *xi = X + i * F;
        double d = 0;
        for (int64_t f = 0; f < F; f++) d += (double)xi[f] * (double)p[f];
        const double si = __dmul_rn(d, inv);
        s[i] = si;
        key[i] = (mask && !mask[i]) ? UINT64_MAX : rank_key(si);
        val[i] = (int32_t)i;
    }
}

// cnt = the number of valid rows (N when mask is NULL), one block's integer sum
__global__ static void topk_count(int64_t *cnt, const uint8_t *mask, int64_t N) {
    __shared__ int64_t sh[TOPK_THREADS];
    int64_t v = 0;
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x) v += mask ? (mask[i] != 0) : 1;
    v = dgnn_block_sum(v, sh);
    if (threadIdx.x == 0) *cnt = v;
}

// idx (k), tanh_s (k) from the ranked rows `order`: the first n = min(k, valid) of them,
// then the last one repeated (pad_with_last_val); -1 and 0 when no row is valid. nsel
// (or NULL) = n, the CPU op's return value.
__global__ static void topk_pick(int32_t *idx, float *tanh_s, int64_t *nsel, const int32_t *order, const double *s,
                                 const int64_t *cnt, int64_t k) {
    const int64_t n = *cnt < k ? *cnt : k;
    DGNN_CUDA_FOR(j, k) {
        if (n == 0) {
            idx[j] = -1;
            tanh_s[j] = 0.0f;
        } else {
            const int32_t i = order[j < n ? j : n - 1];
            idx[j] = i;
            tanh_s[j] = (float)tanh(s[i]);
        }
        if (j == 0 && nsel) *nsel = n;
    }
}

// out (F, k): column j = row idx[j] of X scaled by tanh_s[j] (zeros for idx -1)
__global__ static void topk_gather(float *out, const float *X, const int32_t *idx, const float *tanh_s, int64_t F,
                                   int64_t k) {
    DGNN_CUDA_FOR(t, F * k) {
        const int64_t f = t / k, j = t % k;
        const int32_t i = idx[j];
        out[t] = i < 0 ? 0.0f : X[(int64_t)i * F + f] * tanh_s[j];
    }
}

extern "C" int dgnn_cuda_topk_forward(dgnn_cuda *c, int64_t *dnsel, float *dout, int32_t *didx, float *dtanh_s,
                                      const float *dX, const float *dp, const uint8_t *dmask, int64_t N, int64_t F,
                                      int64_t k, dgnn_err *err) {
    if (N < 0 || F < 1 || N > INT_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "dgnn_cuda_topk_forward: N %lld rows of F %lld features (N must fit an int32 index, "
                              "F >= 1)",
                              (long long)N, (long long)F);
    if (k <= 0) return dnsel ? dgnn_cuda_zero(c, dnsel, sizeof(int64_t), err) : DGNN_OK; // the CPU's 0
    // one temporary: cnt | s (N) | keys in, out (N each) | rows in, out (N each) | CUB's storage
    size_t temp = 0;
    if (N > 0) {
        const cudaError_t e = cub::DeviceRadixSort::SortPairs(nullptr, temp, (const uint64_t *)nullptr,
                                                              (uint64_t *)nullptr, (const int32_t *)nullptr,
                                                              (int32_t *)nullptr, (int)N, 0, 64, c->stream);
        const int rc = dgnn_cuda_check(e, "cub::DeviceRadixSort::SortPairs (size query)", err);
        if (rc) return rc;
    }
    const size_t nn = (size_t)N, a_cnt = align256(sizeof(int64_t)), a_s = align256(nn * sizeof(double));
    const size_t a_key = align256(nn * sizeof(uint64_t)), a_val = align256(nn * sizeof(int32_t));
    void *mem = nullptr;
    int rc = stream_alloc(c, &mem, a_cnt + a_s + 2 * a_key + 2 * a_val + align256(temp), "TopK's scores", err);
    if (rc) return rc;
    char *base = (char *)mem;
    int64_t *cnt = (int64_t *)base;
    double *s = (double *)(base + a_cnt);
    uint64_t *key_in = (uint64_t *)(base + a_cnt + a_s), *key_out = (uint64_t *)(base + a_cnt + a_s + a_key);
    int32_t *val_in = (int32_t *)(base + a_cnt + a_s + 2 * a_key);
    int32_t *val_out = (int32_t *)(base + a_cnt + a_s + 2 * a_key + a_val);
    void *tmp = base + a_cnt + a_s + 2 * a_key + 2 * a_val;
    if (N == 0) {
        rc = dgnn_cuda_zero(c, cnt, sizeof(int64_t), err); // no row: idx -1, zeros
    } else {
        topk_scores<<<blocks_for(N), DGNN_CUDA_THREADS, 0, c->stream>>>(s, key_in, val_in, dX, dp, dmask, N, F);
        rc = dgnn_cuda_check(cudaGetLastError(), "topk_scores", err);
        if (!rc) {
            topk_count<<<1, TOPK_THREADS, 0, c->stream>>>(cnt, dmask, N);
            rc = dgnn_cuda_check(cudaGetLastError(), "topk_count", err);
        }
        if (!rc) {
            const cudaError_t e =
                cub::DeviceRadixSort::SortPairs(tmp, temp, key_in, key_out, val_in, val_out, (int)N, 0, 64, c->stream);
            rc = dgnn_cuda_check(e, "cub::DeviceRadixSort::SortPairs (TopK's ranking)", err);
        }
    }
    if (!rc) {
        topk_pick<<<blocks_for(k), DGNN_CUDA_THREADS, 0, c->stream>>>(didx, dtanh_s, dnsel, val_out, s, cnt, k);
        rc = dgnn_cuda_check(cudaGetLastError(), "topk_pick", err);
    }
    if (!rc) {
        topk_gather<<<blocks_for(F * k), DGNN_CUDA_THREADS, 0, c->stream>>>(dout, dX, didx, dtanh_s, F, k);
        rc = dgnn_cuda_check(cudaGetLastError(), "topk_gather", err);
    }
    cudaFreeAsync(mem, c->stream);
    return rc;
}

// Per column j (one block each): gs[2j] = dL/ds_j = (1 - tanh_s_j^2) sum_f dout[f k + j]
// X[idx_j, f] and gs[2j + 1] = s_j = X[idx_j] . p / ||p||, in double as mgru.c (block sums:
// a fixed tree instead of its serial order); 0 for a column with idx -1. Block 0 also
// saves 1 / ||p|| into inv.
__global__ static void topk_bwd_cols(double *gs, double *inv_out, const float *dout, const int32_t *idx,
                                     const float *tanh_s, const float *X, const float *p, int64_t F, int64_t k) {
    __shared__ double sh[TOPK_THREADS];
    __shared__ double inv_sh;
    if (threadIdx.x == 0) inv_sh = inv_norm_dev(p, F);
    __syncthreads();
    const double inv = inv_sh;
    if (blockIdx.x == 0 && threadIdx.x == 0) *inv_out = inv;
    for (int64_t j = blockIdx.x; j < k; j += gridDim.x) {
        const int32_t i = idx[j]; // the same for the whole block: the branch does not split it
        if (i < 0) {
            if (threadIdx.x == 0) gs[2 * j] = 0.0, gs[2 * j + 1] = 0.0;
            continue;
        }
        const float *xi = X + (int64_t)i * F;
        double g = 0, s = 0;
        for (int64_t f = threadIdx.x; f < F; f += blockDim.x) {
            g += (double)dout[f * k + j] * (double)xi[f];
            s += (double)xi[f] * (double)p[f];
        }
        g = dgnn_block_sum(g, sh);
        s = dgnn_block_sum(s, sh);
        if (threadIdx.x == 0) {
            const double t = tanh_s[j];
            gs[2 * j] = g * (1.0 - t * t);
            gs[2 * j + 1] = s * inv;
        }
    }
}

// dX[idx_j] += dout[:, j] tanh_s_j + dL/ds_j p / ||p||, from the columns grouped by row
// (rows.cu's groups: a stable sort of idx): one thread per (sorted position, feature), the
// thread at a group's first position adds the group's columns in j order, the CPU's order
// (a padded row gets the sum of its columns). Columns with idx -1 form the last group
// (the sort reads the keys as unsigned, where -1 is above every row index) and are skipped.
__global__ static void topk_bwd_dX(float *dX, const int32_t *keys, const int32_t *perm, const double *gs,
                                   const double *inv, const float *dout, const float *tanh_s, const float *p,
                                   int64_t F, int64_t k) {
    const double iv = *inv;
    DGNN_CUDA_FOR(t, k * F) {
        const int64_t pos = t / F, f = t % F;
        const int32_t row = keys[pos];
        if (row < 0 || (pos > 0 && keys[pos - 1] == row)) continue;
        float *d = dX + (int64_t)row * F + f;
        float acc = *d;
        for (int64_t q = pos; q < k && keys[q] == row; q++) {
            const int64_t j = perm[q];
            acc += (float)((double)dout[f * k + j] * (double)tanh_s[j] + gs[2 * j] * (double)p[f] * iv);
        }
        *d = acc;
    }
}

// dp[f] += sum_j dL/ds_j (X[idx_j, f] - s_j p_f / ||p||) / ||p||: one thread per feature,
// the columns in j order in double as the CPU
__global__ static void topk_bwd_dp(float *dp, const double *gs, const double *inv, const int32_t *idx, const float *X,
                                   const float *p, int64_t F, int64_t k) {
    const double iv = *inv;
    DGNN_CUDA_FOR(f, F) {
        double a = 0;
        for (int64_t j = 0; j < k; j++) {
            const int32_t i = idx[j];
            if (i < 0) continue;
            const double g = gs[2 * j], s = gs[2 * j + 1];
            a += g * ((double)X[(int64_t)i * F + f] - s * (double)p[f] * iv) * iv;
        }
        dp[f] += (float)a;
    }
}

extern "C" int dgnn_cuda_topk_backward(dgnn_cuda *c, float *ddX, float *ddp, const float *ddout, const int32_t *didx,
                                       const float *dtanh_s, const float *dX, const float *dp, int64_t N, int64_t F,
                                       int64_t k, dgnn_err *err) {
    (void)N; // as the CPU's: the rows are named by idx
    if (F < 0 || k > INT_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_topk_backward: F %lld, k %lld", (long long)F,
                              (long long)k);
    if (k <= 0 || F == 0) return DGNN_OK; // nothing to add
    if (!ddp) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_topk_backward: dp is required");
    void *mem = nullptr;
    int rc = stream_alloc(c, &mem, align256(sizeof(double)) + (size_t)(2 * k) * sizeof(double),
                          "TopK's column gradients", err);
    if (rc) return rc;
    double *inv = (double *)mem, *gs = (double *)((char *)mem + align256(sizeof(double)));
    topk_bwd_cols<<<dgnn_cuda_row_blocks(k), TOPK_THREADS, 0, c->stream>>>(gs, inv, ddout, didx, dtanh_s, dX, dp, F,
                                                                          k);
    rc = dgnn_cuda_check(cudaGetLastError(), "topk_bwd_cols", err);
    if (!rc && ddX) {
        dgnn_cuda_groups g;
        rc = dgnn_cuda_groups_make(c, &g, didx, k, err);
        if (!rc) {
            topk_bwd_dX<<<blocks_for(k * F), DGNN_CUDA_THREADS, 0, c->stream>>>(ddX, g.keys, g.perm, gs, inv, ddout,
                                                                               dtanh_s, dp, F, k);
            rc = dgnn_cuda_check(cudaGetLastError(), "topk_bwd_dX", err);
            dgnn_cuda_groups_free(c, &g);
        }
    }
    if (!rc) {
        topk_bwd_dp<<<blocks_for(F), DGNN_CUDA_THREADS, 0, c->stream>>>(ddp, gs, inv, didx, dX, dp, F, k);
        rc = dgnn_cuda_check(cudaGetLastError(), "topk_bwd_dp", err);
    }
    cudaFreeAsync(mem, c->stream);
    return rc;
}
