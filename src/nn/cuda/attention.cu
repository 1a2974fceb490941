// attention.cu: the GPU's temporal attention layer (TGN's TemporalAttentionLayer and TGL's
// TransfomerAttentionLayer), mirroring the fast layer of src/nn/attention.c (include/dgnn/
// cuda.h) step by step, with the same saved layout (dgnn_tattn_saved_layout over a device
// slab), so that each saved array can be checked against the CPU's.
//
// Like the CPU's it never forms a key or a value: per head h, with x_p = [h_nbr[row_p];
// e_p; te_p] the input of pair p,
//   score_p = qt_h . x_p + q_h . bk_h,   qt_h = Wk_h^T q_h              (per root row)
//   o_h     = Wv_h xbar_h + bv_h asum_h, xbar_h = sum_p aw_p x_p, asum_h = sum_p aw_p
// so every dense product runs over the roots, through dgnn_cuda_gemm (one per head where
// the CPU groups the heads' products), and each pair costs dot products and sums of its
// dk inputs in the kernels below:
//  - root_fwd, one block per (root, head): the scores (a serial dot product each), the
//    masked softmax (block reductions for the maximum and the sum), asum, and xbar one
//    thread per input column summing the pairs in order (the CPU's order);
//  - root_bwd, one block per (root, head): the softmax backward into the scores'
//    gradients ds, dqb and dqt (one thread per column, pairs in order);
//  - pair_bwd, one block per root: each of its pairs' input gradients, one thread per
//    (pair, column), summing the heads in order as the CPU does.
// A root without neighbours has empty pair ranges: xbar = 0, asum = 0, so o = 0 (and TGN
// leaves out the out-projection's bias there, TGL the o half of its gradient), exactly as
// the CPU. The sums of pair gradients into node and edge rows, and of roots into shared
// query rows (root_row), are rows.cu's ordered scatter-adds: the CPU's segment_acc order.
//
// Dropout masks come from seeds the caller draws as the CPU layer draws them from its rng
// (one per active dropout, attention weights first), through act.cu's mask: the CPU's
// masks bit for bit.
#include <cmath>

#include "attention_dims.h"
#include "cuda_internal.h"

#include "dgnn/nn.h"

#define ROOT_THREADS 128 /* a power of two (the block reductions) */

// The pairs' inputs, as device pointers, and the sizes the kernels share.
struct pairs_view {
    const int64_t *off;
    const float *h_nbr;
    const int32_t *nbr_row;
    const float *e_feat;
    const int32_t *edge_row;
    const float *te;
    const int32_t *root_row;
    int64_t dn, de, dt, H, dk;
};

__device__ static inline int64_t root_of(const pairs_view &v, int64_t i) {
    return v.root_row ? (int64_t)v.root_row[i] : i;
}

// column c of pair p's input x_p
__device__ static inline float xval(const pairs_view &v, int64_t p, int64_t c) {
    if (c < v.dn) return v.h_nbr[(int64_t)v.nbr_row[p] * v.dn + c];
    c -= v.dn;
    if (c < v.de) return v.e_feat[(v.edge_row ? (int64_t)v.edge_row[p] : p) * v.de + c];
    return v.te[p * v.dt + (c - v.de)];
}

__device__ static inline float dotn(const float *a, const float *b, int64_t n) {
    float s = 0;
    for (int64_t c = 0; c < n; c++) s += a[c] * b[c];
    return s;
}

// a . x_p with a laid out like x_p: node, edge and time parts summed as attention.c's xdot
__device__ static inline float xdot_dev(const float *a, const pairs_view &v, int64_t p) {
    float s = dotn(a, v.h_nbr + (int64_t)v.nbr_row[p] * v.dn, v.dn);
    if (v.de > 0) s += dotn(a + v.dn, v.e_feat + (v.edge_row ? (int64_t)v.edge_row[p] : p) * v.de, v.de);
    if (v.dt > 0) s += dotn(a + v.dn + v.de, v.te + p * v.dt, v.dt);
    return s;
}

// ---- forward kernels ----

// qc (E) = bq + Wq[:, dn:] te0: the query's time part, the same for every root
__global__ static void qc_kernel(float *qc, const float *Wq, const float *bq, const float *te0, int64_t E,
                                 int64_t dqw, int64_t dn, int64_t dt) {
    DGNN_CUDA_FOR(e, E) {
        float a = bq[e];
        for (int64_t j = 0; j < dt; j++) a += Wq[e * dqw + dn + j] * te0[j];
        qc[e] = a;
    }
}

// x (rows, cols) += vec (cols) on every row
__global__ static void add_row_vec(float *x, const float *vec, int64_t rows, int64_t cols) {
    DGNN_CUDA_FOR(t, rows * cols) x[t] += vec[t % cols];
}

// qb (Ur, H) = q_h . bk_h
__global__ static void qb_kernel(float *qb, const float *q, const float *bk, int64_t Ur, int64_t H, int64_t E,
                                 int64_t dh) {
    DGNN_CUDA_FOR(t, Ur * H) {
        const int64_t i = t / H, h = t % H;
        qb[t] = dotn(q + i * E + h * dh, bk + h * dh, dh);
    }
}

__global__ static void root_fwd(float *logit, float *att, float *xbar, float *asum, const float *qt, const float *qb,
                                const float *mask, pairs_view v, int64_t B, float scale, int tgn) {
    __shared__ float sh[ROOT_THREADS];
    const int64_t H = v.H, dk = v.dk, HK = H * dk;
    for (int64_t bh = blockIdx.x; bh < B * H; bh += gridDim.x) {
        const int64_t i = bh / H, h = bh % H, p0 = v.off[i], p1 = v.off[i + 1], rr = root_of(v, i);
        const float *qth = qt + rr * HK + h * dk;
        const float qbh = qb[rr * H + h];
        float mx = -INFINITY;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            float sc = (xdot_dev(qth, v, p) + qbh) * scale;
            if (!tgn && sc < 0) sc *= 0.2f;
            logit[p * H + h] = sc;
            mx = fmaxf(mx, sc);
        }
        // max subtracted: every exponent <= 0, the largest term exactly 1, the sum >= 1
        mx = dgnn_block_max(mx, sh);
        float sum = 0;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            const float e = expf(logit[p * H + h] - mx);
            att[p * H + h] = e;
            sum += e;
        }
        sum = dgnn_block_sum(sum, sh);
        const float inv = p1 > p0 ? 1.0f / sum : 0.0f;
        float part = 0;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            const float a = att[p * H + h] * inv;
            att[p * H + h] = a;
            part += mask ? a * mask[p * H + h] : a;
        }
        const float as = dgnn_block_sum(part, sh); // its barriers also publish the weights to the block
        if (threadIdx.x == 0) asum[i * H + h] = as;
        for (int64_t c = threadIdx.x; c < dk; c += blockDim.x) {
            float acc = 0;
            for (int64_t p = p0; p < p1; p++) {
                const float a = att[p * H + h];
                acc += (mask ? a * mask[p * H + h] : a) * xval(v, p, c);
            }
            xbar[i * HK + h * dk + c] = acc;
        }
        __syncthreads(); // att read by all before the next (root, head)
    }
}

// o (B, E) += asum_ih bv_h
__global__ static void o_bias(float *o, const float *asum, const float *bv, int64_t B, int64_t E, int64_t H,
                              int64_t dh) {
    DGNN_CUDA_FOR(t, B * E) {
        const int64_t i = t / E, e = t % E;
        o[t] += asum[i * H + e / dh] * bv[e];
    }
}

// TGN: cfold (Hd) = W1[:, :E] bo
__global__ static void cfold_kernel(float *cfold, const float *W1, const float *bo, int64_t Hd, int64_t E,
                                    int64_t dc) {
    DGNN_CUDA_FOR(j, Hd) cfold[j] = dotn(W1 + j * dc, bo, E);
}

// TGN: z (B, Hd) = b1 + zr[root row] (+ cfold for a root with neighbours)
__global__ static void z_init(float *z, const float *b1, const float *zr, const float *cfold, pairs_view v, int64_t B,
                              int64_t Hd) {
    DGNN_CUDA_FOR(t, B * Hd) {
        const int64_t i = t / Hd, j = t % Hd;
        float a = b1[j] + zr[root_of(v, i) * Hd + j];
        if (v.off[i + 1] > v.off[i]) a += cfold[j];
        z[t] = a;
    }
}

// TGL: cat (B, E + dn) = [o; h_root[root row]]
__global__ static void cat_kernel(float *cat, const float *o, const float *h_root, pairs_view v, int64_t B,
                                  int64_t E) {
    const int64_t dc = E + v.dn;
    DGNN_CUDA_FOR(t, B * dc) {
        const int64_t i = t / dc, c = t % dc;
        cat[t] = c < E ? o[i * E + c] : h_root[root_of(v, i) * v.dn + (c - E)];
    }
}

// TGL: r = relu(z * mask) (mask NULL: relu(z))
__global__ static void drop_relu(float *r, const float *z, const float *mask, int64_t n) {
    DGNN_CUDA_FOR(t, n) {
        const float x = mask ? z[t] * mask[t] : z[t];
        r[t] = x < 0 ? 0.0f : x; // a NaN passes, as the CPU's
    }
}

// ---- backward kernels ----

// TGN: dz = 0 where the ReLU was off
__global__ static void relu_keep(float *dz, const float *r, int64_t n) {
    DGNN_CUDA_FOR(t, n) if (!(r[t] > 0)) dz[t] = 0;
}

// TGN: db1 += the column sums of dz; g (Hd) = those over the roots with neighbours (rows in order)
__global__ static void tgn_colsums(float *db1, float *g, const float *dz, const int64_t *off, int64_t B, int64_t Hd) {
    DGNN_CUDA_FOR(j, Hd) {
        float ab = db1[j], ag = 0;
        for (int64_t i = 0; i < B; i++) {
            const float d = dz[i * Hd + j];
            ab += d;
            if (off[i + 1] > off[i]) ag += d;
        }
        db1[j] = ab;
        g[j] = ag;
    }
}

// TGN: dW1[:, :E] += g bo^T
__global__ static void dW1_bo(float *dW1, const float *g, const float *bo, int64_t Hd, int64_t E, int64_t dc) {
    DGNN_CUDA_FOR(t, Hd * E) {
        const int64_t j = t / E, e = t % E;
        dW1[j * dc + e] += g[j] * bo[e];
    }
}

// TGN: dbo += W1[:, :E]^T g (rows of W1 in order)
__global__ static void dbo_kernel(float *dbo, const float *g, const float *W1, int64_t Hd, int64_t E, int64_t dc) {
    DGNN_CUDA_FOR(e, E) {
        float a = dbo[e];
        for (int64_t j = 0; j < Hd; j++) a += g[j] * W1[j * dc + e];
        dbo[e] = a;
    }
}

// TGL: dz = d r * mask where r > 0, else 0
__global__ static void tgl_dz(float *dz, const float *r, const float *mask, int64_t n) {
    DGNN_CUDA_FOR(t, n) dz[t] = r[t] > 0 ? (mask ? dz[t] * mask[t] : dz[t]) : 0.0f;
}

// TGL: do_ (B, E) = the o half of dcat, 0 for a root without neighbours
__global__ static void tgl_do(float *do_, const float *dcat, const int64_t *off, int64_t B, int64_t E, int64_t dc) {
    DGNN_CUDA_FOR(t, B * E) {
        const int64_t i = t / E, e = t % E;
        do_[t] = off[i + 1] == off[i] ? 0.0f : dcat[i * dc + e];
    }
}

// dbv += sum_i asum_ih do_ih (roots in order)
__global__ static void dbv_kernel(float *dbv, const float *asum, const float *do_, int64_t B, int64_t E, int64_t H,
                                  int64_t dh) {
    DGNN_CUDA_FOR(e, E) {
        float a = dbv[e];
        for (int64_t i = 0; i < B; i++) a += asum[i * H + e / dh] * do_[i * E + e];
        dbv[e] = a;
    }
}

// dasum (B, H) = do_ih . bv_h
__global__ static void dasum_kernel(float *dasum, const float *do_, const float *bv, int64_t B, int64_t H, int64_t E,
                                    int64_t dh) {
    DGNN_CUDA_FOR(t, B * H) {
        const int64_t i = t / H, h = t % H;
        dasum[t] = dotn(do_ + i * E + h * dh, bv + h * dh, dh);
    }
}

__global__ static void root_bwd(float *ds, float *dqt, float *dqb, const float *dxbar, const float *dasum,
                                const float *att, const float *logit, const float *mask, pairs_view v, int64_t B,
                                float scale, int tgn) {
    __shared__ float sh[ROOT_THREADS];
    const int64_t H = v.H, dk = v.dk, HK = H * dk;
    for (int64_t bh = blockIdx.x; bh < B * H; bh += gridDim.x) {
        const int64_t i = bh / H, h = bh % H, p0 = v.off[i], p1 = v.off[i + 1];
        const float *dxb = dxbar + i * HK + h * dk;
        const float da = dasum[i * H + h];
        // dA_p = dxbar_h . x_p + d asum (times the mask); the softmax backward needs sum_p a_p dA_p
        float part = 0;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            float g = xdot_dev(dxb, v, p) + da;
            if (mask) g *= mask[p * H + h];
            ds[p * H + h] = g;
            part += att[p * H + h] * g;
        }
        const float sum = dgnn_block_sum(part, sh);
        part = 0;
        for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            float g = att[p * H + h] * (ds[p * H + h] - sum);
            if (tgn) g *= scale;
            else if (!(logit[p * H + h] > 0)) g *= 0.2f;
            ds[p * H + h] = g;
            part += g;
        }
        const float qbsum = dgnn_block_sum(part, sh); // its barriers also publish ds to the block
        if (threadIdx.x == 0) dqb[i * H + h] = qbsum;
        for (int64_t c = threadIdx.x; c < dk; c += blockDim.x) {
            float acc = 0;
            for (int64_t p = p0; p < p1; p++) acc += ds[p * H + h] * xval(v, p, c);
            dqt[i * HK + h * dk + c] = acc;
        }
        __syncthreads(); // ds read by all before the next (root, head)
    }
}

// Each pair's input gradient sum_h (aw_ph dxbar_h + ds_ph qt_h), split by its parts: the
// node part to dxn (summed into node rows afterwards), the edge part to dxe (with an edge
// index; else straight into its edge row e_direct), the time part into dte.
__global__ static void pair_bwd(float *dxn, float *dxe, float *e_direct, float *dte, const float *att,
                                const float *mask, const float *ds, const float *dxbar, const float *qt, pairs_view v,
                                int64_t B) {
    const int64_t H = v.H, dn = v.dn, de = v.de, dt = v.dt, dk = v.dk, HK = H * dk;
    for (int64_t i = blockIdx.x; i < B; i += gridDim.x) {
        const int64_t p0 = v.off[i], p1 = v.off[i + 1], rr = root_of(v, i);
        const int64_t n = (p1 - p0) * dk;
        for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
            const int64_t q = p0 + t / dk, c = t % dk;
            float *dst = nullptr;
            float acc = 0;
            if (c < dn) {
                if (dxn) dst = dxn + q * dn + c; // written, as the CPU's cleared row
            } else if (c < dn + de) {
                if (v.edge_row) {
                    if (dxe) dst = dxe + q * de + (c - dn);
                } else if (e_direct) {
                    dst = e_direct + q * de + (c - dn), acc = *dst; // accumulated, as the CPU
                }
            } else if (dte) {
                dst = dte + q * dt + (c - dn - de), acc = *dst;
            }
            if (!dst) continue;
            for (int64_t h = 0; h < H; h++) {
                const float a = att[q * H + h], aw = mask ? a * mask[q * H + h] : a;
                acc += aw * dxbar[i * HK + h * dk + c];
                acc += ds[q * H + h] * qt[rr * HK + h * dk + c];
            }
            *dst = acc;
        }
    }
}

// dq (Ur, E) += dqb_ih bk_h
__global__ static void dq_bk(float *dq, const float *dqb, const float *bk, int64_t Ur, int64_t E, int64_t H,
                             int64_t dh) {
    DGNN_CUDA_FOR(t, Ur * E) {
        const int64_t i = t / E, e = t % E;
        dq[t] += dqb[i * H + e / dh] * bk[e];
    }
}

// dbk += sum_i dqb_ih q_ih (rows in order)
__global__ static void dbk_kernel(float *dbk, const float *dqb, const float *q, int64_t Ur, int64_t E, int64_t H,
                                  int64_t dh) {
    DGNN_CUDA_FOR(e, E) {
        float a = dbk[e];
        for (int64_t i = 0; i < Ur; i++) a += dqb[i * H + e / dh] * q[i * E + e];
        dbk[e] = a;
    }
}

// qc (E) = the column sums of dq (rows in order); dbq += qc; dWq[:, dn:] += qc te0^T
__global__ static void qc_back(float *qc, float *dbq, float *dWq, const float *dq, const float *te0, int64_t Ur,
                               int64_t E, int64_t dqw, int64_t dn, int64_t dt) {
    DGNN_CUDA_FOR(e, E) {
        float a = 0;
        for (int64_t i = 0; i < Ur; i++) a += dq[i * E + e];
        qc[e] = a;
        dbq[e] += a;
        for (int64_t j = 0; j < dt; j++) dWq[e * dqw + dn + j] += a * te0[j];
    }
}

// dte0 (dt) += qc^T Wq[:, dn:]
__global__ static void dte0_kernel(float *dte0, const float *qc, const float *Wq, int64_t E, int64_t dqw, int64_t dn,
                                   int64_t dt) {
    DGNN_CUDA_FOR(j, dt) {
        float a = 0;
        for (int64_t e = 0; e < E; e++) a += qc[e] * Wq[e * dqw + dn + j];
        dte0[j] += a;
    }
}

// ---- the layer ----

#define TRY(expr)                    \
    do {                             \
        const int rc_ = (expr);      \
        if (rc_) return rc_;         \
    } while (0)
// an element-wise kernel over n elements; nothing launched for n == 0
#define LAUNCH(n, kernel, ...)                                                                                   \
    do {                                                                                                         \
        if ((n) > 0) {                                                                                           \
            kernel<<<dgnn_cuda_blocks((n), DGNN_CUDA_THREADS), DGNN_CUDA_THREADS, 0, c->stream>>>(__VA_ARGS__); \
            TRY(dgnn_cuda_check(cudaGetLastError(), #kernel, err));                                              \
        }                                                                                                        \
    } while (0)
// a block-per-row kernel over `rows` rows
#define LAUNCH_ROWS(rows, kernel, ...)                                                               \
    do {                                                                                             \
        if ((rows) > 0) {                                                                            \
            kernel<<<dgnn_cuda_row_blocks((rows)), ROOT_THREADS, 0, c->stream>>>(__VA_ARGS__);       \
            TRY(dgnn_cuda_check(cudaGetLastError(), #kernel, err));                                  \
        }                                                                                            \
    } while (0)
#define ZERO(ptr, n) TRY(dgnn_cuda_zero(c, (ptr), (size_t)(n) * sizeof(float), err))

static pairs_view view_of(const dgnn_tattn_input *in, const dims &d) {
    return pairs_view{in->off, in->h_nbr, in->nbr_row, in->e_feat, in->edge_row, in->te, in->root_row,
                      d.dn, d.de, d.dt, d.H, d.dk};
}

extern "C" int dgnn_cuda_tattn_forward(dgnn_cuda *c, float *dout, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                                       int64_t P, const dgnn_tattn_params *p, const dgnn_tattn_cfg *cfg,
                                       const uint64_t *seeds, dgnn_err *err) {
    dims d;
    TRY(layer_dims(&d, s, in, P, cfg, "dgnn_cuda_tattn_forward", err));
    const int64_t B = d.B, Ur = d.Ur, E = d.E, Hd = d.Hd, H = d.H, dh = d.dh, dn = d.dn, dt = d.dt, dqw = d.dqw;
    const int64_t dk = d.dk, dc = d.dc, HK = d.HK;
    const pairs_view v = view_of(in, d);

    // q = Wq[:, :dn] h_root + (bq + Wq[:, dn:] te0), the time part once for all roots
    LAUNCH(E, qc_kernel, s->qc, p->Wq, p->bq, in->te0, E, dqw, dn, dt);
    TRY(dgnn_cuda_gemm(c, 0, 1, Ur, E, dn, in->h_root, dn, p->Wq, dqw, 0.0f, s->q, E, err));
    if (d.tgn) { // the out projection folded into the merge layer, and the h_root part of fc1
        TRY(dgnn_cuda_gemm(c, 0, 0, Hd, E, E, p->W1, dc, p->Wo, E, 0.0f, s->wfold, E, err));
        TRY(dgnn_cuda_gemm(c, 0, 1, Ur, Hd, dn, in->h_root, dn, p->W1 + E, dc, 0.0f, s->zr, Hd, err));
    }
    LAUNCH(Ur * E, add_row_vec, s->q, s->qc, Ur, E);
    // per head: qt_h = q_h Wk_h (Ur, dk) and qb_h = q_h . bk_h
    for (int64_t h = 0; h < H; h++)
        TRY(dgnn_cuda_gemm(c, 0, 0, Ur, dk, dh, s->q + h * dh, E, p->Wk + h * dh * dk, dk, 0.0f, s->qt + h * dk, HK,
                           err));
    LAUNCH(Ur * H, qb_kernel, s->qb, s->q, p->bk, Ur, H, E, dh);

    int k = 0; // seeds taken, one per active dropout (the CPU's draws)
    s->has_att_mask = seeds && cfg->attn_dropout > 0;
    if (s->has_att_mask) TRY(dgnn_cuda_dropout_mask(c, s->att_mask, P * H, cfg->attn_dropout, seeds[k++], err));
    const float *mask = s->has_att_mask ? s->att_mask : nullptr;

    LAUNCH_ROWS(B * H, root_fwd, s->logit, s->att, s->xbar, s->asum, s->qt, s->qb, mask, v, B, d.scale, d.tgn);

    // o_h = xbar_h Wv_h^T + bv_h asum_h
    for (int64_t h = 0; h < H; h++)
        TRY(dgnn_cuda_gemm(c, 0, 1, B, dh, dk, s->xbar + h * dk, HK, p->Wv + h * dh * dk, dk, 0.0f, s->o + h * dh, E,
                           err));
    LAUNCH(B * E, o_bias, s->o, s->asum, p->bv, B, E, H, dh);

    if (d.tgn) { // z = W' o + W1b h_root + b1 (+ c' with neighbours), r = relu(z), out = W2 r + b2
        LAUNCH(Hd, cfold_kernel, s->cfold, p->W1, p->bo, Hd, E, dc);
        LAUNCH(B * Hd, z_init, s->z, p->b1, s->zr, s->cfold, v, B, Hd);
        TRY(dgnn_cuda_gemm(c, 0, 1, B, Hd, E, s->o, E, s->wfold, E, 1.0f, s->z, Hd, err));
        TRY(dgnn_cuda_relu_forward(c, s->r, s->z, B * Hd, err));
        return dgnn_cuda_linear_forward(c, dout, s->r, p->W2, p->b2, B, Hd, cfg->dout, err);
    }
    // TGL: cat = [o; h_root], z = W1 cat + b1, r = relu(dropout(z)), out = LayerNorm(r)
    LAUNCH(B * dc, cat_kernel, s->cat, s->o, in->h_root, v, B, E);
    TRY(dgnn_cuda_linear_forward(c, s->z, s->cat, p->W1, p->b1, B, dc, Hd, err));
    s->has_drop_mask = seeds && cfg->dropout > 0;
    if (s->has_drop_mask) TRY(dgnn_cuda_dropout_mask(c, s->drop_mask, B * Hd, cfg->dropout, seeds[k++], err));
    LAUNCH(B * Hd, drop_relu, s->r, s->z, s->has_drop_mask ? s->drop_mask : nullptr, B * Hd);
    return dgnn_cuda_layernorm_forward(c, dout, s->ln_mean, s->ln_rstd, s->r, p->ln_g, p->ln_b, B, cfg->dout, err);
}

// The head of the layer back to do_ (B, E), the gradient of the attention's output o.
static int head_backward(dgnn_cuda *c, dgnn_tattn_dinput *din, dgnn_tattn_params *dp, const float *ddout,
                         dgnn_tattn_saved *s, const dgnn_tattn_input *in, const dgnn_tattn_params *p,
                         const dgnn_tattn_cfg *cfg, const dims &d, dgnn_err *err) {
    const int64_t B = d.B, Ur = d.Ur, E = d.E, Hd = d.Hd, dn = d.dn, dc = d.dc;
    ZERO(s->dz, B * Hd);
    if (d.tgn) {
        TRY(dgnn_cuda_linear_backward(c, s->dz, dp->W2, dp->b2, ddout, s->r, p->W2, B, Hd, cfg->dout, err));
        LAUNCH(B * Hd, relu_keep, s->dz, s->r, B * Hd);
        // G = dz^T o (Hd, E), g = the sum of dz over roots with neighbours:
        // dW1a += G Wo^T + g bo^T, dWo += W1a^T G, dbo += W1a^T g, do = dz W'
        float *G = s->dwfold, *g = s->dcfold;
        LAUNCH(Hd, tgn_colsums, dp->b1, g, s->dz, in->off, B, Hd);
        TRY(dgnn_cuda_gemm(c, 1, 0, Hd, E, B, s->dz, Hd, s->o, E, 0.0f, G, E, err));
        LAUNCH(Hd * E, dW1_bo, dp->W1, g, p->bo, Hd, E, dc);
        LAUNCH(E, dbo_kernel, dp->bo, g, p->W1, Hd, E, dc);
        const float *dzr = s->dz; // the h_root part per query row: dz summed over the roots sharing one
        if (in->root_row) {
            ZERO(s->dzr, Ur * Hd);
            TRY(dgnn_cuda_scatter_add_rows(c, s->dzr, Hd, s->dz, Hd, in->root_row, B, Hd, err));
            dzr = s->dzr;
        }
        TRY(dgnn_cuda_gemm(c, 0, 1, Hd, E, E, G, E, p->Wo, E, 1.0f, dp->W1, dc, err));
        TRY(dgnn_cuda_gemm(c, 1, 0, E, E, Hd, p->W1, dc, G, E, 1.0f, dp->Wo, E, err));
        TRY(dgnn_cuda_gemm(c, 1, 0, Hd, dn, Ur, dzr, Hd, in->h_root, dn, 1.0f, dp->W1 + E, dc, err));
        TRY(dgnn_cuda_gemm(c, 0, 0, B, E, Hd, s->dz, Hd, s->wfold, E, 0.0f, s->do_, E, err));
        if (din->h_root) TRY(dgnn_cuda_gemm(c, 0, 0, Ur, dn, Hd, dzr, Hd, p->W1 + E, dc, 1.0f, din->h_root, dn, err));
        return DGNN_OK;
    }
    TRY(dgnn_cuda_layernorm_backward(c, s->dz, dp->ln_g, dp->ln_b, ddout, s->r, p->ln_g, s->ln_mean, s->ln_rstd, B,
                                     cfg->dout, err));
    LAUNCH(B * Hd, tgl_dz, s->dz, s->r, s->has_drop_mask ? s->drop_mask : nullptr, B * Hd);
    ZERO(s->dcat, B * dc);
    TRY(dgnn_cuda_linear_backward(c, s->dcat, dp->W1, dp->b1, s->dz, s->cat, p->W1, B, dc, Hd, err));
    // cat = [o; h_root]: the h_root half to din->h_root in root order (roots may share a
    // query row); the o half dropped for roots without neighbours (o is 0 there)
    if (din->h_root) TRY(dgnn_cuda_scatter_add_rows(c, din->h_root, dn, s->dcat + E, dc, in->root_row, B, dn, err));
    LAUNCH(B * E, tgl_do, s->do_, s->dcat, in->off, B, E, dc);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_tattn_backward(dgnn_cuda *c, dgnn_tattn_dinput *din, dgnn_tattn_params *dp,
                                        const float *ddout, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                                        int64_t P, const dgnn_tattn_params *p, const dgnn_tattn_cfg *cfg,
                                        dgnn_err *err) {
    dims d;
    TRY(layer_dims(&d, s, in, P, cfg, "dgnn_cuda_tattn_backward", err));
    const int64_t B = d.B, Ur = d.Ur, E = d.E, H = d.H, dh = d.dh, dn = d.dn, de = d.de, dt = d.dt, dqw = d.dqw;
    const int64_t dk = d.dk, HK = d.HK;
    const pairs_view v = view_of(in, d);
    const float *mask = s->has_att_mask ? s->att_mask : nullptr;

    TRY(head_backward(c, din, dp, ddout, s, in, p, cfg, d, err));

    // values, o_h = Wv_h xbar_h + bv_h asum_h: dxbar_h = do_h Wv_h, dWv_h += do_h^T xbar_h,
    // dbv_h += sum_i asum_ih do_ih, d asum_ih = do_ih . bv_h
    for (int64_t h = 0; h < H; h++) {
        TRY(dgnn_cuda_gemm(c, 0, 0, B, dk, dh, s->do_ + h * dh, E, p->Wv + h * dh * dk, dk, 0.0f, s->dxbar + h * dk,
                           HK, err));
        TRY(dgnn_cuda_gemm(c, 1, 0, dh, dk, B, s->do_ + h * dh, E, s->xbar + h * dk, HK, 1.0f, dp->Wv + h * dh * dk, dk,
                           err));
    }
    LAUNCH(E, dbv_kernel, dp->bv, s->asum, s->do_, B, E, H, dh);
    LAUNCH(B * H, dasum_kernel, s->dasum, s->do_, p->bv, B, H, E, dh);

    // the scores' and the pairs' input gradients, then the node and edge parts into their rows
    LAUNCH_ROWS(B * H, root_bwd, s->ds, s->dqt, s->dqb, s->dxbar, s->dasum, s->att, s->logit, mask, v, B, d.scale,
                d.tgn);
    float *dxe = de > 0 && din->e_feat && in->edge_row ? s->dxe : nullptr;
    float *e_direct = de > 0 && din->e_feat && !in->edge_row ? din->e_feat : nullptr;
    float *dte = dt > 0 ? din->te : nullptr;
    if (din->h_nbr || dxe || e_direct || dte)
        LAUNCH_ROWS(B, pair_bwd, din->h_nbr ? s->dxn : nullptr, dxe, e_direct, dte, s->att, mask, s->ds, s->dxbar, s->qt,
                    v, B);
    if (din->h_nbr) TRY(dgnn_cuda_scatter_add_rows(c, din->h_nbr, dn, s->dxn, dn, in->nbr_row, P, dn, err));
    if (dxe) TRY(dgnn_cuda_scatter_add_rows(c, din->e_feat, de, s->dxe, de, in->edge_row, P, de, err));

    // keys, qt_h = Wk_h^T q_h and qb_h = q_h . bk_h: dq_h = dqt_h Wk_h^T + dqb_h bk_h,
    // dWk_h += q_h^T dqt_h, dbk_h += sum_i dqb_ih q_ih; summed per query row first
    const float *dqt = s->dqt, *dqb = s->dqb;
    if (in->root_row) {
        ZERO(s->dqtu, Ur * HK);
        ZERO(s->dqbu, Ur * H);
        TRY(dgnn_cuda_scatter_add_rows(c, s->dqtu, HK, s->dqt, HK, in->root_row, B, HK, err));
        TRY(dgnn_cuda_scatter_add_rows(c, s->dqbu, H, s->dqb, H, in->root_row, B, H, err));
        dqt = s->dqtu, dqb = s->dqbu;
    }
    for (int64_t h = 0; h < H; h++) {
        TRY(dgnn_cuda_gemm(c, 0, 1, Ur, dh, dk, dqt + h * dk, HK, p->Wk + h * dh * dk, dk, 0.0f, s->dq + h * dh, E, err));
        TRY(dgnn_cuda_gemm(c, 1, 0, dh, dk, Ur, s->q + h * dh, E, dqt + h * dk, HK, 1.0f, dp->Wk + h * dh * dk, dk, err));
    }
    LAUNCH(Ur * E, dq_bk, s->dq, dqb, p->bk, Ur, E, H, dh);
    LAUNCH(E, dbk_kernel, dp->bk, dqb, s->q, Ur, E, H, dh);

    // the query projection: every root's time part is te0, so its weight gradient is
    // (sum_i dq_i) te0^T and d te0 = (sum_i dq_i) Wq[:, dn:]
    LAUNCH(E, qc_back, s->qc, dp->bq, dp->Wq, s->dq, in->te0, Ur, E, dqw, dn, dt);
    if (din->te0) LAUNCH(dt, dte0_kernel, din->te0, s->qc, p->Wq, E, dqw, dn, dt);
    TRY(dgnn_cuda_gemm(c, 1, 0, E, dn, Ur, s->dq, E, in->h_root, dn, 1.0f, dp->Wq, dqw, err));
    if (din->h_root) TRY(dgnn_cuda_gemm(c, 0, 0, Ur, dn, E, s->dq, E, p->Wq, dqw, 1.0f, din->h_root, dn, err));
    return DGNN_OK;
}
