/* mgru.c: EvolveGCN's weight evolution. The matrix GRU (mat_GRU_cell of IBM/EvolveGCN
 * egcn_o.py and egcn_h.py: three gates, each act(W x + U h + B) with square R x R
 * matrices multiplying the R x C weight matrix from the left) and the TopK summary of
 * egcn_h.py that turns N node embeddings into the R x C input of the GRU.
 *
 * The products are small dense matrices (R, C ~ 100) and go to OpenBLAS through nn.h's
 * dgnn_gemm_fixed (above 2^18 multiply-adds a plain sgemm's bits change with the thread
 * count; gemm.c); the three W products share one call through the stacked layout
 * (W = [W_z; W_r; W_h], (3R, R)), as do the U products of the update and reset gates.
 * The forward computes the pre-activations directly in the caller's `saved` buffer and
 * applies the activations in place, so it needs no scratch of its own. */
#include "dgnn/nn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t dgnn_mgru_param_count(int64_t R, int64_t C) {
    return 6 * R * R + 3 * R * C;
}

static void uniform_fill(float *p, int64_t n, float bound, dgnn_rng *rng) {
    for (int64_t i = 0; i < n; i++) p[i] = (float)((2.0 * dgnn_rng_uniform(rng) - 1.0) * bound);
}

void dgnn_mgru_init(float *params, int64_t R, int64_t C, dgnn_rng *rng) {
    float bound = (float)(1.0 / sqrt((double)R));
    uniform_fill(params, 6 * R * R, bound, rng); /* W then U */
    memset(params + 6 * R * R, 0, (size_t)(3 * R * C) * sizeof(float));
}

void dgnn_mgru_forward(float *q_new, float *saved, const float *x, const float *q, const float *params, int64_t R,
                       int64_t C) {
    const int64_t RC = R * C;
    const float *W = params;                /* (3R, R) */
    const float *U = params + 3 * R * R;    /* (3R, R) */
    const float *B = params + 6 * R * R;    /* (3R, C) */
    float *Z = saved, *Rs = saved + RC, *Hc = saved + 2 * RC, *RQ = saved + 3 * RC; /* each (R, C) */
    /* [Z; Rs; Hc] <- W X (3R, C), then the first 2R rows += [U_z; U_r] Q */
    dgnn_gemm_fixed(0, 0, 3 * R, C, R, W, R, x, C, 0.0f, saved, C);
    dgnn_gemm_fixed(0, 0, 2 * R, C, R, U, R, q, C, 1.0f, saved, C);
    for (int64_t i = 0; i < RC; i++) {
        Z[i] = dgnn_sigmoidf(Z[i] + B[i]);
        Rs[i] = dgnn_sigmoidf(Rs[i] + B[RC + i]);
        RQ[i] = Rs[i] * q[i];
    }
    /* Hc pre-activation += U_h (Rs * Q) */
    dgnn_gemm_fixed(0, 0, R, C, R, U + 2 * R * R, R, RQ, C, 1.0f, Hc, C);
    for (int64_t i = 0; i < RC; i++) {
        Hc[i] = tanhf(Hc[i] + B[2 * RC + i]);
        q_new[i] = (1.0f - Z[i]) * q[i] + Z[i] * Hc[i];
    }
}

void dgnn_mgru_backward(float *dx, float *dq, float *dparams, const float *dq_new, const float *saved, const float *x,
                        const float *q, const float *params, int64_t R, int64_t C) {
    const int64_t RC = R * C;
    const float *W = params, *U = params + 3 * R * R;
    float *dW = dparams, *dU = dparams + 3 * R * R, *dB = dparams + 6 * R * R;
    const float *Z = saved, *Rs = saved + RC, *Hc = saved + 2 * RC, *RQ = saved + 3 * RC;
    /* scratch: DA (3R, C) = gradients of the three pre-activations, dRQ (R, C) */
    float *DA = dgnn_xmalloc((size_t)(4 * RC > 0 ? 4 * RC : 1) * sizeof(float));
    float *dRQ = DA + 3 * RC;
    float *daz = DA, *dar = DA + RC, *dah = DA + 2 * RC;
    /* Q' = (1 - Z) Q + Z Hc */
    for (int64_t i = 0; i < RC; i++) {
        float g = dq_new[i];
        daz[i] = g * (Hc[i] - q[i]) * Z[i] * (1.0f - Z[i]);
        dah[i] = g * Z[i] * (1.0f - Hc[i] * Hc[i]);
        dq[i] += g * (1.0f - Z[i]);
    }
    /* Hc = tanh(W_h X + U_h (Rs * Q) + B_h): dRQ = U_h^T da_h */
    dgnn_gemm_fixed(1, 0, R, C, R, U + 2 * R * R, R, dah, C, 0.0f, dRQ, C);
    for (int64_t i = 0; i < RC; i++) {
        dar[i] = dRQ[i] * q[i] * Rs[i] * (1.0f - Rs[i]);
        dq[i] += dRQ[i] * Rs[i];
    }
    /* parameter gradients: dW += DA X^T, dU_zr += DA_zr Q^T, dU_h += da_h (Rs*Q)^T, dB += DA */
    dgnn_gemm_fixed(0, 1, 3 * R, R, C, DA, C, x, C, 1.0f, dW, R);
    dgnn_gemm_fixed(0, 1, 2 * R, R, C, DA, C, q, C, 1.0f, dU, R);
    dgnn_gemm_fixed(0, 1, R, R, C, dah, C, RQ, C, 1.0f, dU + 2 * R * R, R);
    for (int64_t i = 0; i < 3 * RC; i++) dB[i] += DA[i];
    /* input gradients: dx += W^T DA, dq += [U_z; U_r]^T DA_zr. Separate calls, so dx may
     * be the same array as dq. */
    if (dx)
        dgnn_gemm_fixed(1, 0, R, C, 3 * R, W, R, DA, C, 1.0f, dx, C);
    dgnn_gemm_fixed(1, 0, R, C, 2 * R, U, R, DA, C, 1.0f, dq, C);
    free(DA);
}

/* ---- TopK ------------------------------------------------------------------------------ */

typedef struct {
    double s;
    int64_t i;
} scored;

/* a ranks before b: higher score, then lower index (a fixed order for ties) */
static inline int ranks_before(scored a, scored b) {
    return a.s > b.s || (a.s == b.s && a.i < b.i);
}

static int cmp_rank(const void *pa, const void *pb) {
    scored a = *(const scored *)pa, b = *(const scored *)pb;
    return ranks_before(a, b) ? -1 : ranks_before(b, a) ? 1 : 0;
}

/* min-heap on rank: the root is the worst of the kept entries */
static void sift_down(scored *h, int64_t n, int64_t i) {
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && ranks_before(h[w], h[l])) w = l;
        if (r < n && ranks_before(h[w], h[r])) w = r;
        if (w == i) return;
        scored t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void sift_up(scored *h, int64_t i) {
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!ranks_before(h[p], h[i])) return;
        scored t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static double norm2(const float *p, int64_t F) {
    double s = 0.0;
    for (int64_t f = 0; f < F; f++) s += (double)p[f] * (double)p[f];
    return sqrt(s);
}

int64_t dgnn_topk_forward(float *out, int32_t *idx, float *tanh_s, const float *X, const float *p,
                          const uint8_t *mask, int64_t N, int64_t F, int64_t k) {
    if (k <= 0) return 0;
    double inv = 1.0 / norm2(p, F);
    double *s = dgnn_xmalloc((size_t)(N > 0 ? N : 1) * sizeof(double));
    /* scores in double: N dot products of length F, parallel over rows */
#pragma omp parallel for schedule(static) if (N * F > 65536)
    for (int64_t i = 0; i < N; i++) {
        double d = 0.0;
        const float *xi = X + i * F;
        for (int64_t f = 0; f < F; f++) d += (double)xi[f] * (double)p[f];
        s[i] = d * inv;
    }
    /* the k best valid rows: a bounded heap, O(N log k) */
    scored *h = dgnn_xmalloc((size_t)k * sizeof(scored));
    int64_t n = 0;
    for (int64_t i = 0; i < N; i++) {
        if (mask && !mask[i]) continue;
        scored c = {s[i], i};
        if (n < k) {
            h[n] = c;
            sift_up(h, n++);
        } else if (ranks_before(c, h[0])) {
            h[0] = c;
            sift_down(h, n, 0);
        }
    }
    qsort(h, (size_t)n, sizeof(scored), cmp_rank);
    for (int64_t j = 0; j < k; j++) {
        if (n == 0) {
            idx[j] = -1;
            tanh_s[j] = 0.0f;
        } else {
            scored c = h[j < n ? j : n - 1]; /* pad_with_last_val */
            idx[j] = (int32_t)c.i;
            tanh_s[j] = (float)tanh(c.s);
        }
    }
    for (int64_t f = 0; f < F; f++)
        for (int64_t j = 0; j < k; j++) out[f * k + j] = idx[j] < 0 ? 0.0f : X[(int64_t)idx[j] * F + f] * tanh_s[j];
    free(h);
    free(s);
    return n;
}

void dgnn_topk_backward(float *dX, float *dp, const float *dout, const int32_t *idx, const float *tanh_s,
                        const float *X, const float *p, int64_t N, int64_t F, int64_t k) {
    (void)N;
    double nrm = norm2(p, F), inv = 1.0 / nrm;
    double *dpa = dgnn_xmalloc((size_t)(F > 0 ? F : 1) * sizeof(double));
    memset(dpa, 0, (size_t)F * sizeof(double));
    /* serial over j: a padded index appears in several columns and its dX row takes the
     * sum; k * F is tiny next to the scoring pass */
    for (int64_t j = 0; j < k; j++) {
        if (idx[j] < 0) continue;
        const float *xi = X + (int64_t)idx[j] * F;
        double t = tanh_s[j], g = 0.0, s = 0.0;
        for (int64_t f = 0; f < F; f++) {
            g += (double)dout[f * k + j] * xi[f];
            s += (double)xi[f] * p[f];
        }
        s *= inv;
        g *= 1.0 - t * t; /* dL/ds for this column */
        /* s = X_i . p / |p|: ds/dX_i = p / |p|, ds/dp = (X_i - s p / |p|) / |p| */
        if (dX) {
            float *dxi = dX + (int64_t)idx[j] * F;
            for (int64_t f = 0; f < F; f++) dxi[f] += (float)(dout[f * k + j] * t + g * p[f] * inv);
        }
        for (int64_t f = 0; f < F; f++) dpa[f] += g * (xi[f] - s * p[f] * inv) * inv;
    }
    for (int64_t f = 0; f < F; f++) dp[f] += (float)dpa[f];
    free(dpa);
}

void dgnn_topk_init(float *p, int64_t F, dgnn_rng *rng) {
    uniform_fill(p, F, (float)(1.0 / sqrt((double)F)), rng);
}
