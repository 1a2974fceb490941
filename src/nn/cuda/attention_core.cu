// attention_core.cu: the GPU's attention core, mirroring src/nn/attention_core.c (include/
// dgnn/cuda.h): per query, scores against its own key set (CSR offsets), the masked
// softmax, the weighted sum of the values, and the backward; APAN's mailbox attention
// runs it (off[i] = i * slots). One block per (query, head): the block's threads take the
// query's keys in turn for the scores (each a serial dot product over the head's dh
// columns, in the CPU's order), the softmax's maximum and sum are block reductions, and
// the weighted sums run one thread per output column over the keys in order. Every output
// row belongs to one block (a key belongs to one query), so nothing is written twice.
// A query without keys gets o = 0, as on the CPU (its logit and att rows are empty).
#include <cmath>

#include "cuda_internal.h"

#include "dgnn/nn.h" /* dgnn_score_kind */

#define CORE_THREADS 128 /* a power of two (the block reductions) */

__device__ static inline float dot_dev(const float *a, const float *b, int64_t n) {
    float s = 0;
    for (int64_t c = 0; c < n; c++) s += a[c] * b[c];
    return s;
}

__global__ static void core_fwd(float *o, float *logit, float *att, const float *att_mask, const float *q,
                                const float *k, const float *v, const int64_t *off, int64_t B, int64_t heads,
                                int64_t E, float scale, int leaky) {
    __shared__ float sh[CORE_THREADS];
    const int64_t dh = E / heads;
    for (int64_t bh = blockIdx.x; bh < B * heads; bh += gridDim.x) {
        const int64_t i = bh / heads, h = bh % heads, p0 = off[i], p1 = off[i + 1];
        const float *qh = q + i * E + h * dh;
        float mx = -INFINITY;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            float s = dot_dev(qh, k + p * E + h * dh, dh) * scale;
            if (leaky && s < 0) s *= 0.2f;
            logit[p * heads + h] = s;
            mx = fmaxf(mx, s);
        }
        // max subtracted: every exponent <= 0, the largest term exactly 1, the sum >= 1
        mx = dgnn_block_max(mx, sh);
        float sum = 0;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            const float e = expf(logit[p * heads + h] - mx);
            att[p * heads + h] = e;
            sum += e;
        }
        sum = dgnn_block_sum(sum, sh);
        const float inv = p1 > p0 ? 1.0f / sum : 0.0f;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) att[p * heads + h] *= inv;
        __syncthreads(); // every weight of the query written before the sums read them
        for (int64_t c = threadIdx.x; c < dh; c += blockDim.x) {
            float acc = 0;
            for (int64_t p = p0; p < p1; p++) {
                const float a = att[p * heads + h];
                acc += (att_mask ? a * att_mask[p * heads + h] : a) * v[p * E + h * dh + c];
            }
            o[i * E + h * dh + c] = acc;
        }
        __syncthreads(); // the block's reads of att done before the next (query, head)
    }
}

// Per (query, head): dA_p = do . v_p (times the mask), dot = sum_p a_p dA_p, then per key
// ds_p = a_p (dA_p - dot) through the score's derivative; dv_p += aw_p do and dk_p += ds_p q
// by the thread that owns key p, dq += sum_p ds_p k_p one thread per column, the keys taken
// CORE_THREADS at a time with their ds in shared memory.
__global__ static void core_bwd(float *dq, float *dk, float *dv, const float *do_, const float *logit,
                                const float *att, const float *att_mask, const float *q, const float *k,
                                const float *v, const int64_t *off, int64_t B, int64_t heads, int64_t E, float scale,
                                int leaky) {
    __shared__ float sh[CORE_THREADS];
    __shared__ float ds_sh[CORE_THREADS];
    const int64_t dh = E / heads;
    for (int64_t bh = blockIdx.x; bh < B * heads; bh += gridDim.x) {
        const int64_t i = bh / heads, h = bh % heads, p0 = off[i], p1 = off[i + 1];
        const float *doh = do_ + i * E + h * dh, *qh = q + i * E + h * dh;
        float part = 0;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            float g = dot_dev(doh, v + p * E + h * dh, dh);
            if (att_mask) g *= att_mask[p * heads + h];
            part += att[p * heads + h] * g;
        }
        const float dot = dgnn_block_sum(part, sh);
        for (int64_t base = p0; base < p1; base += blockDim.x) { // the same trip count for every thread
            const int64_t p = base + threadIdx.x;
            float ds = 0;
            if (p < p1) {
                const float a = att[p * heads + h];
                const float aw = att_mask ? a * att_mask[p * heads + h] : a;
                float g = dot_dev(doh, v + p * E + h * dh, dh);
                if (att_mask) g *= att_mask[p * heads + h];
                ds = a * (g - dot); // softmax backward
                if (leaky) {
                    if (!(logit[p * heads + h] > 0)) ds *= 0.2f;
                } else {
                    ds *= scale;
                }
                if (dv) {
                    float *dvh = dv + p * E + h * dh;
                    for (int64_t c = 0; c < dh; c++) dvh[c] += aw * doh[c];
                }
                if (dk) {
                    float *dkh = dk + p * E + h * dh;
                    for (int64_t c = 0; c < dh; c++) dkh[c] += ds * qh[c];
                }
            }
            ds_sh[threadIdx.x] = ds;
            __syncthreads();
            if (dq) {
                const int64_t np = p1 - base < (int64_t)blockDim.x ? p1 - base : (int64_t)blockDim.x;
                for (int64_t c = threadIdx.x; c < dh; c += blockDim.x) {
                    float acc = 0;
                    for (int64_t j = 0; j < np; j++) acc += ds_sh[j] * k[(base + j) * E + h * dh + c];
                    dq[i * E + h * dh + c] += acc;
                }
            }
            __syncthreads(); // ds_sh read before the next chunk overwrites it
        }
    }
}

static float score_scale(int64_t heads, int64_t E, dgnn_score_kind kind) {
    return kind == DGNN_SCORE_SCALED_DOT ? (float)(1.0 / sqrt((double)(E / heads))) : 1.0f;
}

static int check_heads(int64_t heads, int64_t E, const char *what, dgnn_err *err) {
    if (heads > 0 && E % heads == 0) return DGNN_OK;
    return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: %lld heads do not divide the width %lld", what, (long long)heads,
                          (long long)E);
}

extern "C" int dgnn_cuda_attn_core_forward(dgnn_cuda *c, float *dO, float *dlogit, float *datt, const float *datt_mask,
                                           const float *dq, const float *dk, const float *dv, const int64_t *doff,
                                           int64_t B, int64_t heads, int64_t E, dgnn_score_kind kind, dgnn_err *err) {
    int rc = check_heads(heads, E, "dgnn_cuda_attn_core_forward", err);
    if (rc || B <= 0 || E <= 0) return rc;
    core_fwd<<<dgnn_cuda_row_blocks(B * heads), CORE_THREADS, 0, c->stream>>>(
        dO, dlogit, datt, datt_mask, dq, dk, dv, doff, B, heads, E, score_scale(heads, E, kind),
        kind == DGNN_SCORE_LEAKY_DOT);
    return dgnn_cuda_check(cudaGetLastError(), "core_fwd", err);
}

extern "C" int dgnn_cuda_attn_core_backward(dgnn_cuda *c, float *ddq, float *ddk, float *ddv, const float *ddO,
                                            const float *dlogit, const float *datt, const float *datt_mask,
                                            const float *dq, const float *dk, const float *dv, const int64_t *doff,
                                            int64_t B, int64_t heads, int64_t E, dgnn_score_kind kind, dgnn_err *err) {
    int rc = check_heads(heads, E, "dgnn_cuda_attn_core_backward", err);
    if (rc || B <= 0 || E <= 0 || (!ddq && !ddk && !ddv)) return rc;
    core_bwd<<<dgnn_cuda_row_blocks(B * heads), CORE_THREADS, 0, c->stream>>>(
        ddq, ddk, ddv, ddO, dlogit, datt, datt_mask, dq, dk, dv, doff, B, heads, E, score_scale(heads, E, kind),
        kind == DGNN_SCORE_LEAKY_DOT);
    return dgnn_cuda_check(cudaGetLastError(), "core_bwd", err);
}
