/* snapmodel_edge.c: the pair (edge) classifier of the snapshot models (snapmodel.h's
 * dgnn_snapmodel_edge_*), EvolveGCN's models.py Classifier: logits = W2 relu(W1 [h_u; h_v]
 * + b1) + b2, with its parameters (declared after the kind's, initialised after them: the
 * order checkpoints and seeds depend on), its backward, the all-pairs scoring of
 * validation and test, and the plain reference the tests compare against.
 *
 * The classifier splits its first layer over the two endpoints: per pair it only adds two
 * C-vectors, applies ReLU and the C -> K layer. snapmodel.c calls this file (declare,
 * init, free); it calls nothing of snapmodel.c or of the model files. */
#include "snapmodel_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

void snapm_edge_declare(dgnn_snapmodel *m) {
    const int64_t L = m->L, C = m->Cc, K = m->K;
    m->icW1 = dgnn_params_add(&m->p, "cls.W1", C, 2 * L);
    m->icb1 = dgnn_params_add1(&m->p, "cls.b1", C);
    m->icW2 = dgnn_params_add(&m->p, "cls.W2", K, C);
    m->icb2 = dgnn_params_add1(&m->p, "cls.b2", K);
}

static void cls_point(snapm_cls_params *q, const dgnn_params *p, snapm_slab_fn at, const dgnn_snapmodel *m) {
    q->W1 = at(p, m->icW1), q->b1 = at(p, m->icb1);
    q->W2 = at(p, m->icW2), q->b2 = at(p, m->icb2);
}

void snapm_edge_init(dgnn_snapmodel *m, dgnn_rng *rng) {
    const int64_t N = m->N, L = m->L, C = m->Cc, K = m->K;
    cls_point(&m->cls, &m->p, dgnn_params_get, m);
    cls_point(&m->dcls, &m->p, dgnn_params_grad, m);
    /* torch.nn.Linear defaults */
    dgnn_linear_init(m->cls.W1, m->cls.b1, 2 * L, C, rng);
    dgnn_linear_init(m->cls.W2, m->cls.b2, C, K, rng);
    m->stamp = dgnn_xmalloc((size_t)N * sizeof(int32_t));
    for (int64_t i = 0; i < N; i++) m->stamp[i] = -1;
}

void snapm_edge_free(dgnn_snapmodel *m) {
    void *ptrs[] = {m->us, m->ud, m->ps, m->pd, m->Hs, m->Hd,
                    m->Ps, m->Qd, m->dPs, m->dQd, m->dw2c, m->dHg, m->stamp};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    m->us = m->ud = m->ps = m->pd = m->stamp = NULL;
    m->Hs = m->Hd = m->Ps = m->Qd = m->dPs = m->dQd = m->dw2c = m->dHg = NULL;
    m->Mcap = m->Ucap = 0;
}

/* The per-pair kernels run over blocks of pairs and are cloned for AVX-512 and AVX2 (the
 * build targets plain x86-64; the clone is picked once at load time): per pair they only
 * add, max and multiply-add C-vectors, so the vector width is the speed. */
#define DGNN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

/* logits (K) of pairs i0..i1-1: h = relu(P[ps[i]] + Q[pd[i]]) (C, in hbuf), z = W2 h + b2 */
DGNN_CLONES
static void pair_fwd_block(float *restrict logits, float *restrict hbuf, const float *Ps, const float *Qd,
                           const int32_t *ps, const int32_t *pd, const float *W2, const float *b2, int64_t i0,
                           int64_t i1, int64_t C, int64_t K) {
    for (int64_t i = i0; i < i1; i++) {
        const float *restrict p = Ps + (int64_t)ps[i] * C, *restrict q = Qd + (int64_t)pd[i] * C;
        for (int64_t c = 0; c < C; c++) {
            float x = p[c] + q[c];
            hbuf[c] = x < 0.0f ? 0.0f : x; /* a NaN passes (torch's ReLU): the loss's check sees it */
        }
        for (int64_t k = 0; k < K; k++) {
            const float *restrict w = W2 + k * C;
            float s = 0.0f;
#pragma omp simd reduction(+ : s)
            for (int64_t c = 0; c < C; c++) s += w[c] * hbuf[c];
            logits[i * K + k] = s + b2[k];
        }
    }
}

/* pair_bwd_cols for K = 2 over columns c0..c1-1 of one pair. The ReLU is a 0/1 mask
 * multiplied in and every load is unconditional, so the loop is branch-free and
 * vectorizes (restrict: the six rows never overlap). */
static inline void cols_k2(float *restrict dp, float *restrict dq, float *restrict d0, float *restrict d1,
                           const float *restrict p, const float *restrict q, const float *restrict w0,
                           const float *restrict w1, float g0, float g1, int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; c++) {
        float x = p[c] + q[c], gw = w0[c] * g0 + w1[c] * g1;
        float on = x > 0.0f ? 1.0f : 0.0f;
        float h = x * on, g = gw * on;
        dp[c] += g;
        dq[c] += g;
        d0[c] += g0 * h;
        d1[c] += g1 * h;
    }
}

/* The classifier's backward over columns c0..c1-1 of every pair, in pair order: with
 * pre = P[s] + Q[d] and h = relu(pre), dh = (W2^T dz) * (pre > 0), it accumulates
 * dP[s] += dh, dQ[d] += dh and dW2 += dz h^T (dW2c (K, C): this call's columns only).
 * Each column is independent, so the columns split over the threads with no race and no
 * stored per-pair rows, and every element still sums its pairs in pair order. */
DGNN_CLONES
static void pair_bwd_cols(float *dP, float *dQ, float *dW2c, const float *Ps, const float *Qd, const int32_t *ps,
                          const int32_t *pd, const float *W2, const float *dlogits, int64_t M, int64_t C, int64_t K,
                          int64_t c0, int64_t c1) {
    for (int64_t i = 0; i < M; i++) {
        const float *restrict p = Ps + (int64_t)ps[i] * C, *restrict q = Qd + (int64_t)pd[i] * C;
        float *dp = dP + (int64_t)ps[i] * C, *dq = dQ + (int64_t)pd[i] * C;
        const float *dz = dlogits + i * K;
        if (K == 2) { /* link prediction: one fused pass */
            cols_k2(dp, dq, dW2c, dW2c + C, p, q, W2, W2 + C, dz[0], dz[1], c0, c1);
            continue;
        }
        for (int64_t c = c0; c < c1; c++) {
            float x = p[c] + q[c];
            if (!(x > 0.0f)) continue;
            float g = 0.0f;
            for (int64_t k = 0; k < K; k++) g += W2[k * C + c] * dz[k], dW2c[k * C + c] += dz[k] * x;
            dp[c] += g;
            dq[c] += g;
        }
    }
}

static int ensure_pairs(dgnn_snapmodel *m, int64_t M, dgnn_err *err) {
    const int64_t L = m->L, C = m->Cc;
    if (M < 1) M = 1; /* so that an empty batch still has valid (tiny) buffers */
    int64_t U = M < m->N ? M : m->N;
    dgnn_alloc_set as = {0, 0};
    const int64_t mcap = dgnn_size_add(M, M / 4 + 16);
    if (M > m->Mcap) DGNN_GROW(&as, m->ps, mcap), DGNN_GROW(&as, m->pd, mcap);
    if (!m->dw2c) DGNN_GROW(&as, m->dw2c, MUL(m->K, C));
    int64_t u = U + U / 4 + 16;
    if (u > m->N) u = m->N;
    if (U > m->Ucap) {
        DGNN_GROW(&as, m->us, u), DGNN_GROW(&as, m->ud, u);
        float **bufs[] = {&m->Hs, &m->Hd, &m->dHg};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) DGNN_GROW(&as, *bufs[i], MUL(u, L));
        float **cbufs[] = {&m->Ps, &m->Qd, &m->dPs, &m->dQd};
        for (size_t i = 0; i < sizeof cbufs / sizeof cbufs[0]; i++) DGNN_GROW(&as, *cbufs[i], MUL(u, C));
    }
    int rc = dgnn_alloc_done(&as, err, "the edge classifier's buffers for %lld pairs over %lld nodes (classifier "
                             "width %lld); lower --negatives or --cls-hidden", (long long)M, (long long)U,
                             (long long)C);
    if (rc) return rc;
    if (M > m->Mcap) m->Mcap = mcap;
    if (U > m->Ucap) m->Ucap = u;
    return DGNN_OK;
}

/* Maps the nodes of ids (M) to rows of distinct nodes (uniq, in order of appearance);
 * rows (M) = each entry's row. Returns U. stamp (N) is all -1 on entry and on return. */
static int64_t distinct_rows(int32_t *uniq, int32_t *rows, int32_t *stamp, const int32_t *ids, int64_t M) {
    int64_t U = 0;
    for (int64_t i = 0; i < M; i++) {
        int32_t v = ids[i];
        if (stamp[v] < 0) stamp[v] = (int32_t)U, uniq[U++] = v;
        rows[i] = stamp[v];
    }
    for (int64_t r = 0; r < U; r++) stamp[uniq[r]] = -1;
    return U;
}

/* out (U, C) = H[rows] (U, L) gathered into G, then G @ Wh^T (+ b), Wh = a (C, L) slice
 * of W1 (C, 2L) starting at column off */
static void half_layer(float *out, float *G, const float *H, const int32_t *uniq, int64_t U, const float *W1,
                       int64_t off, const float *b, int64_t L, int64_t C) {
#pragma omp parallel for schedule(static) if (U * L > 65536)
    for (int64_t r = 0; r < U; r++) memcpy(G + r * L, H + (int64_t)uniq[r] * L, (size_t)L * sizeof(float));
    dgnn_gemm_fixed(0, 1, U, C, L, G, L, W1 + off, 2 * L, 0.0f, out, C);
    if (b) {
#pragma omp parallel for schedule(static) if (U * C > 65536)
        for (int64_t r = 0; r < U; r++)
            for (int64_t c = 0; c < C; c++) out[r * C + c] += b[c];
    }
}

int dgnn_snapmodel_edge_forward(dgnn_snapmodel *m, float *logits, const float *H, const int32_t *src,
                                const int32_t *dst, int64_t M, dgnn_err *err) {
    const int64_t L = m->L, C = m->Cc, K = m->K;
    int rc = ensure_pairs(m, M, err);
    if (rc) return rc;
    m->M = M;
    for (int64_t i = 0; i < M; i++) DGNN_ASSERT(src[i] >= 0 && src[i] < m->N && dst[i] >= 0 && dst[i] < m->N);
    m->Us = distinct_rows(m->us, m->ps, m->stamp, src, M);
    m->Ud = distinct_rows(m->ud, m->pd, m->stamp, dst, M);
    const float *W1 = m->cls.W1, *b1 = m->cls.b1, *W2 = m->cls.W2, *b2 = m->cls.b2;
    half_layer(m->Ps, m->Hs, H, m->us, m->Us, W1, 0, b1, L, C);
    half_layer(m->Qd, m->Hd, H, m->ud, m->Ud, W1, L, NULL, L, C);
    const float *Ps = m->Ps, *Qd = m->Qd;
    const int32_t *ps = m->ps, *pd = m->pd;
    const int64_t nb = (M + 255) / 256;
#pragma omp parallel if (M * C > 65536)
    {
        float *hbuf = dgnn_xmalloc((size_t)C * sizeof(float));
#pragma omp for schedule(static)
        for (int64_t bI = 0; bI < nb; bI++) {
            int64_t i0 = bI * 256, i1 = i0 + 256 < M ? i0 + 256 : M;
            pair_fwd_block(logits, hbuf, Ps, Qd, ps, pd, W2, b2, i0, i1, C, K);
        }
        free(hbuf);
    }
    return DGNN_OK;
}

void dgnn_snapmodel_edge_backward(dgnn_snapmodel *m, float *dH, const float *dlogits) {
    const int64_t L = m->L, C = m->Cc, K = m->K, M = m->M, Us = m->Us, Ud = m->Ud;
    const float *W1 = m->cls.W1, *W2 = m->cls.W2;
    float *dW1 = m->dcls.W1, *db1 = m->dcls.b1, *dW2 = m->dcls.W2, *db2 = m->dcls.b2;
    const float *Ps = m->Ps, *Qd = m->Qd;
    const int32_t *ps = m->ps, *pd = m->pd;
    memset(m->dPs, 0, (size_t)(Us * C) * sizeof(float));
    memset(m->dQd, 0, (size_t)(Ud * C) * sizeof(float));
    /* the columns split evenly over the threads (in multiples of 16: whole cache lines) */
    const int nt = M * C > 65536 ? omp_get_max_threads() : 1;
    int64_t cw = (C + nt - 1) / nt;
    cw = (cw + 15) / 16 * 16;
    const int64_t ncb = (C + cw - 1) / cw;
    float *dW2c = m->dw2c;
    memset(dW2c, 0, (size_t)(K * C) * sizeof(float));
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t cb = 0; cb < ncb; cb++) {
        int64_t c0 = cb * cw, c1 = c0 + cw < C ? c0 + cw : C;
        pair_bwd_cols(m->dPs, m->dQd, dW2c, Ps, Qd, ps, pd, W2, dlogits, M, C, K, c0, c1);
    }
    for (int64_t k = 0; k < K * C; k++) dW2[k] += dW2c[k];
    dgnn_linear_backward(NULL, NULL, db2, dlogits, NULL, NULL, M, 1, K); /* column sums of dZ */
    /* first layer: dW1a += dP^T Hs, dW1b += dQ^T Hd, db1 += column sums of dP,
     * dH[us] += dP W1a, dH[ud] += dQ W1b */
    if (Us > 0) {
        dgnn_gemm_fixed(1, 0, C, L, Us, m->dPs, C, m->Hs, L, 1.0f, dW1, 2 * L);
        dgnn_linear_backward(NULL, NULL, db1, m->dPs, NULL, NULL, Us, 1, C);
        dgnn_gemm_fixed(0, 0, Us, L, C, m->dPs, C, W1, 2 * L, 0.0f, m->dHg, L);
#pragma omp parallel for schedule(static) if (Us * L > 65536)
        for (int64_t r = 0; r < Us; r++) {
            float *d = dH + (int64_t)m->us[r] * L;
            const float *g = m->dHg + r * L;
            for (int64_t c = 0; c < L; c++) d[c] += g[c];
        }
    }
    if (Ud > 0) {
        dgnn_gemm_fixed(1, 0, C, L, Ud, m->dQd, C, m->Hd, L, 1.0f, dW1 + L, 2 * L);
        dgnn_gemm_fixed(0, 0, Ud, L, C, m->dQd, C, W1 + L, 2 * L, 0.0f, m->dHg, L);
#pragma omp parallel for schedule(static) if (Ud * L > 65536)
        for (int64_t r = 0; r < Ud; r++) {
            float *d = dH + (int64_t)m->ud[r] * L;
            const float *g = m->dHg + r * L;
            for (int64_t c = 0; c < L; c++) d[c] += g[c];
        }
    }
}

/* One tile of the all-pairs scores, two source rows by PAIR_TILE = 64 destinations:
 * acc (2, 64) = bd + sum_c wd[c] relu(P_r[c] + QT[c][j]) for r = 0, 1, where the tile's
 * destinations are the 64 columns of QT (C rows of stride ld). Vectorized across
 * destinations (no horizontal sums), with the eight 16-wide accumulators in registers for
 * the whole c loop and each loaded QT vector used by both rows. GCC's vector types keep
 * that shape in every clone (AVX-512: one register per vector; the others: several). */
#define PAIR_TILE 64
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));

/* macros, not functions: a function returning a 64-byte vector has an ABI that depends on
 * the target, which GCC warns about in the generic clone */
#define LOAD16(p) ({ v16f v_; memcpy(&v_, (p), sizeof v_); v_; })
/* relu as x < 0 ? 0 : x (a NaN passes, as in the classifier's forward): x with the lanes
 * below 0 cleared */
#define RELU16(x) ({ v16f x_ = (x); (v16f)((v16i)x_ & ~(v16i)(x_ < (v16f){0})); })

DGNN_CLONES
static void score_tile2(float *restrict acc, const float *restrict P0, const float *restrict P1,
                        const float *restrict QT, int64_t ld, const float *restrict wd, float bd, int64_t C) {
    const v16f init = (v16f){0} + bd;
    v16f a0 = init, a1 = init, a2 = init, a3 = init, b0 = init, b1 = init, b2 = init, b3 = init;
    for (int64_t c = 0; c < C; c++) {
        const float *q = QT + c * ld;
        const v16f q0 = LOAD16(q), q1 = LOAD16(q + 16), q2 = LOAD16(q + 32), q3 = LOAD16(q + 48);
        const float p0 = P0[c], p1 = P1[c], w = wd[c];
        a0 += RELU16(q0 + p0) * w, a1 += RELU16(q1 + p0) * w, a2 += RELU16(q2 + p0) * w, a3 += RELU16(q3 + p0) * w;
        b0 += RELU16(q0 + p1) * w, b1 += RELU16(q1 + p1) * w, b2 += RELU16(q2 + p1) * w, b3 += RELU16(q3 + p1) * w;
    }
    memcpy(acc, &a0, 64), memcpy(acc + 16, &a1, 64), memcpy(acc + 32, &a2, 64), memcpy(acc + 48, &a3, 64);
    memcpy(acc + 64, &b0, 64), memcpy(acc + 80, &b1, 64), memcpy(acc + 96, &b2, 64), memcpy(acc + 112, &b3, 64);
}

int dgnn_snapmodel_edge_prob_rows(dgnn_snapmodel *m, float *prob, const float *H, int64_t u0, int64_t rows,
                                  dgnn_err *err) {
    const int64_t N = m->N, L = m->L, C = m->Cc;
    DGNN_ASSERT(m->K == 2 && u0 >= 0 && rows >= 0 && u0 + rows <= N);
    if (rows == 0) return DGNN_OK;
    const float *W1 = m->cls.W1, *b1 = m->cls.b1, *W2 = m->cls.W2, *b2 = m->cls.b2;
    const int64_t ntiles = (N + PAIR_TILE - 1) / PAIR_TILE, ldq = ntiles * PAIR_TILE;
    float *P = NULL, *Qa = NULL, *QT = NULL /* padded: every tile is whole */, *wd = NULL;
    dgnn_alloc_set as = {0, 0};
    DGNN_GROW(&as, P, MUL(rows, C));
    DGNN_GROW(&as, Qa, MUL(N, C));
    DGNN_GROW(&as, QT, MUL(ldq, C));
    DGNN_GROW(&as, wd, C);
    int rc = dgnn_alloc_done(&as, err, "scoring the pairs of %lld x %lld nodes (classifier width %lld); lower "
                             "--cls-hidden", (long long)rows, (long long)N, (long long)C);
    if (rc) {
        free(P), free(Qa), free(QT), free(wd);
        return rc;
    }
    dgnn_gemm_fixed(0, 1, rows, C, L, H + u0 * L, L, W1, 2 * L, 0.0f, P, C);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < C; c++) P[r * C + c] += b1[c];
    dgnn_gemm_fixed(0, 1, N, C, L, H, L, W1 + L, 2 * L, 0.0f, Qa, C);
    /* QT (C, ldq): destinations contiguous, the padding columns zero */
#pragma omp parallel for schedule(static) if (N * C > 65536)
    for (int64_t c = 0; c < C; c++) {
        float *o = QT + c * ldq;
        for (int64_t v = 0; v < N; v++) o[v] = Qa[v * C + c];
        for (int64_t v = N; v < ldq; v++) o[v] = 0.0f;
    }
    free(Qa);
    /* softmax(z)[1] = sigmoid(z1 - z0), and z1 - z0 = (W2[1] - W2[0]) h + (b2[1] - b2[0]) */
    for (int64_t c = 0; c < C; c++) wd[c] = W2[C + c] - W2[c];
    const float bd = b2[1] - b2[0];
    /* parallel over destination tiles: a tile's C x 64 block of QT stays in cache while
     * every source row runs over it; each iteration writes its own columns of prob */
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t tI = 0; tI < ntiles; tI++) {
        int64_t v0 = tI * PAIR_TILE, n = v0 + PAIR_TILE <= N ? PAIR_TILE : N - v0;
        float acc[2 * PAIR_TILE];
        for (int64_t r = 0; r < rows; r += 2) {
            const int two = r + 1 < rows;
            score_tile2(acc, P + r * C, P + (two ? r + 1 : r) * C, QT + v0, ldq, wd, bd, C);
            for (int k = 0; k <= two; k++) {
                float *out = prob + (r + k) * N + v0;
                for (int64_t j = 0; j < n; j++) out[j] = 1.0f / (1.0f + expf(-acc[k * PAIR_TILE + j]));
            }
        }
    }
    free(P), free(QT), free(wd);
    return DGNN_OK;
}

void dgnn_snapmodel_edge_forward_ref(const dgnn_snapmodel *m, float *logits, const float *H, const int32_t *src,
                                     const int32_t *dst, int64_t M) {
    const int64_t L = m->L, C = m->Cc, K = m->K;
    const float *W1 = m->cls.W1, *b1 = m->cls.b1, *W2 = m->cls.W2, *b2 = m->cls.b2;
    double *hid = dgnn_xmalloc((size_t)C * sizeof(double));
    float *x = dgnn_xmalloc((size_t)(2 * L) * sizeof(float));
    for (int64_t i = 0; i < M; i++) {
        memcpy(x, H + (int64_t)src[i] * L, (size_t)L * sizeof(float));
        memcpy(x + L, H + (int64_t)dst[i] * L, (size_t)L * sizeof(float));
        for (int64_t c = 0; c < C; c++) {
            double s = b1[c];
            for (int64_t j = 0; j < 2 * L; j++) s += (double)W1[c * 2 * L + j] * (double)x[j];
            hid[c] = s < 0 ? 0 : s;
        }
        for (int64_t k = 0; k < K; k++) {
            double s = b2[k];
            for (int64_t c = 0; c < C; c++) s += (double)W2[k * C + c] * hid[c];
            logits[i * K + k] = (float)s;
        }
    }
    free(hid);
    free(x);
}
