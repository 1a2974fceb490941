/* attention.c: temporal multi-head attention, the embedding layer of TGN (and of TGL's
 * TGN/TGAT configurations): its checks, parameters, saved layout, and the fast layer.
 * The attention core it once ran is in attention_core.c (APAN's layer uses it); the
 * plain reference the fast layer is tested against is attention_ref.c.
 *
 * The fast layer never forms a key or a value. With x_p = [h_nbr[row_p]; e_p; te_p] the
 * key/value input of pair p (dk = dn + de + dt) and, per head h, Wk_h and Wv_h the head's
 * dh rows of Wk and Wv:
 *   score_p = q_h . (Wk_h x_p + bk_h) = qt_h . x_p + q_h . bk_h,      qt_h = Wk_h^T q_h
 *   o_h     = sum_p aw_p (Wv_h x_p + bv_h) = Wv_h xbar_h + bv_h asum_h,
 *             xbar_h = sum_p aw_p x_p,  asum_h = sum_p aw_p
 * (aw: the softmax weights after attention dropout). The products then run over the B
 * roots, 2 x B x E x dk for qt and for o, instead of over the P pairs (keys and values
 * were 2 x 2 x P x dk x E, less what factoring out distinct node rows saved); each pair
 * costs dot products and sums of dk floats per head. Backward is the same algebra turned
 * around (dgnn_tattn_backward).
 *
 * Cost per batch in TGN's tgn-paper preset at the TGN code's time width (600 roots x 10
 * neighbours, dn = dt = 172, E = dk = 344, 2 heads): keys and values were
 * 2 x 2 x (U x 172 + 6000 x 172) x 344 = 1.4-2.8 GFLOP for U = 0..6000 distinct
 * neighbours; now 2 x 2 x 600 x 344 x 344 = 0.28 GFLOP of products plus
 * 2 x 2 x 6000 x 2 x 344 = 0.017 GFLOP of per-pair sums. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"
#include "dgnn/par.h"
#include "dgnn/prof.h"
#include "dgnn/vec.h"

#define PAR_MIN 16384
/* a root's own work (clearing and writing its dk-wide rows) in pairs' worth */
#define ROOT_COST 0.5

/* dst[row[p]] += src[p] for p < P, src (P, C), row[p] < R. A scatter by row index: each
 * thread takes the destination rows of an equal share of the pairs (par.h, from a count
 * of pairs per row) and visits every pair in order, adding those that land in its rows,
 * so outputs are disjoint and each row's sum runs in pair order whatever the thread
 * count. */
static void segment_acc(float *dst, const float *src, const int32_t *row, int64_t P, int64_t C, int64_t R) {
    if (P <= 0 || C <= 0) return;
    int64_t *cum = NULL; /* pairs landing in rows below r: cum[r] */
    if (P * C > PAR_MIN && R > 1 && !omp_in_parallel() && omp_get_max_threads() > 1) {
        cum = dgnn_xcalloc((size_t)R + 1, sizeof(int64_t));
        for (int64_t p = 0; p < P; p++) {
            DGNN_ASSERT(row[p] >= 0 && row[p] < R);
            cum[row[p] + 1]++;
        }
        for (int64_t r = 0; r < R; r++) cum[r + 1] += cum[r];
    }
#pragma omp parallel if (cum != NULL)
    {
        int64_t r0 = 0, r1 = R;
        if (cum) dgnn_par_items(cum, R, 0.25, &r0, &r1);
        for (int64_t p = 0; p < P && r1 > r0; p++) {
            const int64_t r = row[p];
            if (r < r0 || r >= r1) continue;
            float *d = dst + r * C;
            const float *sp = src + p * C;
            for (int64_t c = 0; c < C; c++) d[c] += sp[c];
        }
    }
    free(cum);
}

DGNN_VEC_INLINE float dot(const float *a, const float *b, int64_t n) {
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t c = 0; c < n; c++) s += a[c] * b[c];
    return s;
}

DGNN_VEC_INLINE void axpy(float *y, float w, const float *x, int64_t n) {
#pragma omp simd
    for (int64_t c = 0; c < n; c++) y[c] += w * x[c];
}

/* y[e] += a[e / dh] x[e] for e in [e0, e1): x a row of heads of width dh, a its per-head
 * weights (one head's stretch at a time, so the inner loop vectorises) */
DGNN_VEC_INLINE void col_axpy_heads(float *y, const float *a, const float *x, int64_t e0, int64_t e1, int64_t dh) {
    for (int64_t e = e0; e < e1;) {
        const int64_t h = e / dh, end = (h + 1) * dh < e1 ? (h + 1) * dh : e1;
        axpy(y + e, a[h], x + e, end - e);
        e = end;
    }
}

#define OP(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc) \
    (dgnn_gemm_op){(ta), (tb), (M), (N), (K), (A), (lda), (B), (ldb), (beta), (C), (ldc)}

/* Row of root i's query input (h_root) and of everything computed from it alone. */
DGNN_VEC_INLINE int64_t root_row(const dgnn_tattn_input *in, int64_t i) {
    return in->root_row ? (int64_t)in->root_row[i] : i;
}

/* Rows of h_root: distinct query inputs (in->Ur), or one per root. */
static int64_t query_rows(const dgnn_tattn_input *in) { return in->root_row ? in->Ur : in->B; }

/* The three parts of pair p's key/value input x_p: node row, edge row (de > 0), time. */
typedef struct {
    const float *h, *e, *t;
} pair_x;

DGNN_VEC_INLINE pair_x pair_input(const dgnn_tattn_input *in, int64_t p, int64_t dn, int64_t de, int64_t dt) {
    pair_x x = {in->h_nbr + (int64_t)in->nbr_row[p] * dn, NULL, in->te + p * dt};
    if (de > 0) x.e = in->e_feat + (in->edge_row ? (int64_t)in->edge_row[p] : p) * de;
    return x;
}

/* a . x_p, with a laid out like x_p (dk) */
DGNN_VEC_INLINE float xdot(const float *a, pair_x x, int64_t dn, int64_t de, int64_t dt) {
    float s = dot(a, x.h, dn);
    if (de > 0) s += dot(a + dn, x.e, de);
    if (dt > 0) s += dot(a + dn + de, x.t, dt);
    return s;
}

/* y (dk) += w x_p */
DGNN_VEC_INLINE void xaxpy(float *y, float w, pair_x x, int64_t dn, int64_t de, int64_t dt) {
    axpy(y, w, x.h, dn);
    if (de > 0) axpy(y + dn, w, x.e, de);
    if (dt > 0) axpy(y + dn + de, w, x.t, dt);
}

/* ---- configuration, parameters, saved layout ------------------------------------ */

int dgnn_tattn_check(const dgnn_tattn_cfg *c, dgnn_err *err) {
    if (c->kind != DGNN_ATTN_TGN && c->kind != DGNN_ATTN_TGL)
        return dgnn_err_set(err, DGNN_EINVAL, "attention: field 'kind': unknown value %d",
                            (int)c->kind);
    if (c->dn <= 0)
        return dgnn_err_set(err, DGNN_EINVAL, "attention: field 'dn' (node/memory dim) must be > 0, got %lld",
                            (long long)c->dn);
    if (c->de < 0 || c->dt < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "attention: fields 'de', 'dt' must be >= 0, got %lld, %lld",
                            (long long)c->de, (long long)c->dt);
    if (c->dout <= 0)
        return dgnn_err_set(err, DGNN_EINVAL, "attention: field 'dout' must be > 0, got %lld",
                            (long long)c->dout);
    int64_t E = dgnn_tattn_E(c);
    if (c->heads <= 0 || E % c->heads != 0)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "attention: field 'heads' = %lld must divide the attention width %lld (%s)",
                            (long long)c->heads, (long long)E,
                            c->kind == DGNN_ATTN_TGN ? "memory dim + time dim" : "output dim");
    if (!(c->attn_dropout >= 0 && c->attn_dropout < 1) || !(c->dropout >= 0 && c->dropout < 1))
        return dgnn_err_set(err, DGNN_EINVAL, "attention: dropout must be in [0, 1), got %g and %g",
                            (double)c->attn_dropout, (double)c->dropout);
    return DGNN_OK;
}

/* The sizes saturate (dgnn_size_mul, base.h): a dim from the user's settings (2^40)
 * overflowed int64_t here; the saturated count fails the slab's allocation with a message. */
int64_t dgnn_tattn_params_layout(dgnn_tattn_params *p, float *slab, const dgnn_tattn_cfg *c) {
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c);
    const int64_t dq = dgnn_size_add(c->dn, c->dt), dk = dgnn_size_add(dgnn_size_add(c->dn, c->de), c->dt);
    const int tgn = c->kind == DGNN_ATTN_TGN;
    int64_t n = 0;
    dgnn_tattn_params tmp;
    if (!p) p = &tmp;
#define TAKE(field, count)                                     \
    do {                                                       \
        int64_t cnt_ = (count);                                \
        p->field = (slab && cnt_ > 0) ? slab + n : NULL;       \
        n = dgnn_size_add(n, cnt_);                            \
    } while (0)
    TAKE(Wq, dgnn_size_mul(E, dq));
    TAKE(bq, E);
    TAKE(Wk, dgnn_size_mul(E, dk));
    TAKE(bk, E);
    TAKE(Wv, dgnn_size_mul(E, dk));
    TAKE(bv, E);
    TAKE(Wo, tgn ? dgnn_size_mul(E, E) : 0);
    TAKE(bo, tgn ? E : 0);
    TAKE(W1, dgnn_size_mul(Hd, dgnn_size_add(E, c->dn)));
    TAKE(b1, Hd);
    TAKE(W2, tgn ? dgnn_size_mul(c->dout, c->dn) : 0);
    TAKE(b2, tgn ? c->dout : 0);
    TAKE(ln_g, tgn ? 0 : c->dout);
    TAKE(ln_b, tgn ? 0 : c->dout);
#undef TAKE
    return n;
}

void dgnn_tattn_init(dgnn_tattn_params *p, const dgnn_tattn_cfg *c, dgnn_rng *rng) {
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c);
    const int64_t dq = c->dn + c->dt, dk = c->dn + c->de + c->dt;
    if (c->kind == DGNN_ATTN_TGN) {
        /* torch.nn.MultiheadAttention with kdim != embed_dim: separate q/k/v weights,
         * xavier_uniform each, zero in-projection and out-projection biases; the out
         * projection weight keeps Linear's default. MergeLayer: xavier_normal weights,
         * Linear-default biases. */
        dgnn_init_xavier_uniform(p->Wq, dq, E, rng);
        dgnn_init_xavier_uniform(p->Wk, dk, E, rng);
        dgnn_init_xavier_uniform(p->Wv, dk, E, rng);
        dgnn_init_const(p->bq, E, 0);
        dgnn_init_const(p->bk, E, 0);
        dgnn_init_const(p->bv, E, 0);
        dgnn_linear_init(p->Wo, NULL, E, E, rng);
        dgnn_init_const(p->bo, E, 0);
        float a1 = (float)(1.0 / sqrt((double)(E + c->dn)));
        dgnn_init_xavier_normal(p->W1, E + c->dn, Hd, rng);
        dgnn_init_uniform(p->b1, Hd, -a1, a1, rng);
        float a2 = (float)(1.0 / sqrt((double)c->dn));
        dgnn_init_xavier_normal(p->W2, c->dn, c->dout, rng);
        dgnn_init_uniform(p->b2, c->dout, -a2, a2, rng);
    } else {
        dgnn_linear_init(p->Wq, p->bq, dq, E, rng);
        dgnn_linear_init(p->Wk, p->bk, dk, E, rng);
        dgnn_linear_init(p->Wv, p->bv, dk, E, rng);
        dgnn_linear_init(p->W1, p->b1, E + c->dn, Hd, rng);
        dgnn_init_const(p->ln_g, c->dout, 1);
        dgnn_init_const(p->ln_b, c->dout, 0);
    }
}

int64_t dgnn_tattn_saved_layout(dgnn_tattn_saved *s, float *slab, const dgnn_tattn_cfg *c,
                                int64_t B, int64_t P, int64_t Un, int64_t Ue) {
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c), H = c->heads;
    const int tgl = c->kind == DGNN_ATTN_TGL;
    const int64_t Ue_ = c->de > 0 ? Ue : 0;
    int64_t n = 0;
    dgnn_tattn_saved tmp;
    if (!s) s = &tmp;
    memset(s, 0, sizeof *s);
    s->cap_B = B;
    s->cap_P = P;
    s->cap_Un = Un;
    s->cap_Ue = Ue_;
    /* Every region is rounded up to 16 floats (64 bytes) so rows start aligned. */
#define TAKE(field, count)                                         \
    do {                                                           \
        int64_t cnt_ = (count);                                    \
        s->field = (slab && cnt_ > 0) ? slab + n : NULL;           \
        n += (cnt_ + 15) / 16 * 16;                                \
    } while (0)
    const int64_t dk = c->dn + c->de + c->dt;
    TAKE(qc, E);
    TAKE(q, B * E);
    TAKE(qt, B * H * dk);
    TAKE(qb, B * H);
    TAKE(logit, P * H);
    TAKE(att, P * H);
    TAKE(att_mask, c->attn_dropout > 0 ? P * H : 0);
    TAKE(xbar, B * H * dk);
    TAKE(asum, B * H);
    TAKE(o, B * E);
    TAKE(wfold, tgl ? 0 : Hd * E);
    TAKE(cfold, tgl ? 0 : Hd);
    TAKE(cat, tgl ? B * (E + c->dn) : 0);
    TAKE(zr, tgl ? 0 : B * Hd);
    TAKE(z, B * Hd);
    TAKE(drop_mask, tgl && c->dropout > 0 ? B * Hd : 0);
    TAKE(r, B * Hd);
    TAKE(ln_mean, tgl ? B : 0);
    TAKE(ln_rstd, tgl ? B : 0);
    TAKE(dq, B * E);
    TAKE(dqt, B * H * dk);
    TAKE(dqb, B * H);
    TAKE(dqtu, B * H * dk);
    TAKE(dqbu, B * H);
    TAKE(dzr, tgl ? 0 : B * Hd);
    TAKE(dxbar, B * H * dk);
    TAKE(dasum, B * H);
    TAKE(ds, P * H);
    TAKE(dxn, P * c->dn);
    TAKE(dxe, c->de > 0 ? P * c->de : 0);
    TAKE(do_, B * E);
    TAKE(dwfold, tgl ? 0 : Hd * E);
    TAKE(dcfold, tgl ? 0 : Hd);
    TAKE(dcat, tgl ? B * (E + c->dn) : 0);
    TAKE(dz, B * Hd);
#undef TAKE
    return n;
}

int64_t dgnn_tattn_pairs(int64_t *off, int32_t *pair_slot, int32_t *pair_row, int32_t *uniq,
                         int64_t *Un, int32_t *map, const int32_t *nbr, int64_t B, int k) {
    int64_t P = 0, U = 0;
    off[0] = 0;
    for (int64_t i = 0; i < B; i++) {
        for (int64_t j = 0; j < k; j++) {
            int32_t v = nbr[i * k + j];
            if (v < 0) continue;
            if (map[v] < 0) {
                map[v] = (int32_t)U;
                uniq[U++] = v;
            }
            pair_slot[P] = (int32_t)(i * k + j);
            pair_row[P++] = map[v];
        }
        off[i + 1] = P;
    }
    for (int64_t u = 0; u < U; u++) map[uniq[u]] = -1; /* O(U) reset, not O(N) */
    *Un = U;
    return P;
}

/* ---- fast layer -------------------------------------------------------------------- */

/* The sizes and switches the per-root kernels share. */
typedef struct {
    int64_t dn, de, dt, H, dk;
    int tgn;
    float scale;
    const float *mask; /* attention dropout multipliers (P, H), or NULL */
} pair_dims;

/* Root i's scores, masked softmax and weighted input sums: it writes only its own rows
 * and its own pairs' (so roots run in parallel, thread-count independent). One copy per
 * vector width (vec.h). */
DGNN_VEC_CLONES
static void root_forward(dgnn_tattn_saved *s, const dgnn_tattn_input *in, const pair_dims *dm, int64_t i) {
    const int64_t dn = dm->dn, de = dm->de, dt = dm->dt, H = dm->H, dk = dm->dk, HK = H * dk;
    const int tgn = dm->tgn;
    const float scale = dm->scale, *mask = dm->mask;
    const int64_t p0 = in->off[i], p1 = in->off[i + 1];
    for (int64_t h = 0; h < H; h++) {
        const float *qt = s->qt + root_row(in, i) * HK + h * dk;
        const float qb = s->qb[root_row(in, i) * H + h];
        float mx = -INFINITY;
        for (int64_t q = p0; q < p1; q++) {
            float sc = (xdot(qt, pair_input(in, q, dn, de, dt), dn, de, dt) + qb) * scale;
            if (!tgn && sc < 0) sc *= 0.2f;
            s->logit[q * H + h] = sc;
            if (sc > mx) mx = sc;
        }
        /* Softmax with the maximum subtracted: every exponent is <= 0 and the largest
         * term is exactly 1, so the sum is >= 1 (no overflow, no division by zero). */
        float sum = 0;
        for (int64_t q = p0; q < p1; q++) {
            float e = expf(s->logit[q * H + h] - mx);
            s->att[q * H + h] = e;
            sum += e;
        }
        const float inv = p1 > p0 ? 1.0f / sum : 0.0f;
        float *xb = s->xbar + i * HK + h * dk, as = 0;
        memset(xb, 0, (size_t)dk * sizeof(float));
        for (int64_t q = p0; q < p1; q++) {
            const float a = s->att[q * H + h] * inv;
            s->att[q * H + h] = a;
            const float aw = mask ? a * mask[q * H + h] : a;
            xaxpy(xb, aw, pair_input(in, q, dn, de, dt), dn, de, dt);
            as += aw;
        }
        s->asum[i * H + h] = as;
    }
}

/* Root i's backward: the softmax backward to the scores' gradients ds, their sums into
 * dqt_h = sum_p ds_p x_p and dqb_h = sum_p ds_p, and each pair's input gradient
 * sum_h (aw_p dxbar_h + ds_p qt_h): its node part to dxn (summed into node rows by the
 * caller), its edge part to dxe (or straight to its edge row when there is no edge
 * index), its time part to din->te. Writes only root i's rows and its pairs'. */
DGNN_VEC_CLONES
static void root_backward(dgnn_tattn_saved *s, dgnn_tattn_dinput *din, const dgnn_tattn_input *in,
                          const pair_dims *dm, int64_t i) {
    const int64_t dn = dm->dn, de = dm->de, dt = dm->dt, H = dm->H, dk = dm->dk, HK = H * dk;
    const int tgn = dm->tgn;
    const float scale = dm->scale, *mask = dm->mask;
    float *dxe = in->edge_row ? s->dxe : din->e_feat;
    const int64_t p0 = in->off[i], p1 = in->off[i + 1];
    for (int64_t h = 0; h < H; h++) {
        const float *dxb = s->dxbar + i * HK + h * dk;
        const float da = s->dasum[i * H + h];
        /* dA_p = dxbar_h . x_p + d asum (times the dropout multiplier); the softmax
         * backward needs sum_p a_p dA_p first */
        float sum = 0;
        for (int64_t q = p0; q < p1; q++) {
            float g = xdot(dxb, pair_input(in, q, dn, de, dt), dn, de, dt) + da;
            if (mask) g *= mask[q * H + h];
            s->ds[q * H + h] = g;
            sum += s->att[q * H + h] * g;
        }
        float *dqt = s->dqt + i * HK + h * dk, dqb = 0;
        memset(dqt, 0, (size_t)dk * sizeof(float));
        for (int64_t q = p0; q < p1; q++) {
            float g = s->att[q * H + h] * (s->ds[q * H + h] - sum);
            if (tgn) g *= scale;
            else if (!(s->logit[q * H + h] > 0)) g *= 0.2f;
            s->ds[q * H + h] = g;
            xaxpy(dqt, g, pair_input(in, q, dn, de, dt), dn, de, dt);
            dqb += g;
        }
        s->dqb[i * H + h] = dqb;
    }
    for (int64_t q = p0; q < p1; q++) {
        float *gn = din->h_nbr ? s->dxn + q * dn : NULL;
        float *ge = de > 0 && dxe ? dxe + q * de : NULL;
        float *gt = din->te ? din->te + q * dt : NULL;
        if (gn) memset(gn, 0, (size_t)dn * sizeof(float));
        if (ge && in->edge_row) memset(ge, 0, (size_t)de * sizeof(float));
        for (int64_t h = 0; h < H; h++) {
            const float a = s->att[q * H + h], aw = mask ? a * mask[q * H + h] : a, g = s->ds[q * H + h];
            const float *dxb = s->dxbar + i * HK + h * dk, *qt = s->qt + root_row(in, i) * HK + h * dk;
            if (gn) {
                axpy(gn, aw, dxb, dn);
                axpy(gn, g, qt, dn);
            }
            if (ge) {
                axpy(ge, aw, dxb + dn, de);
                axpy(ge, g, qt + dn, de);
            }
            if (gt) {
                axpy(gt, aw, dxb + dn + de, dt);
                axpy(gt, g, qt + dn + de, dt);
            }
        }
    }
}


int dgnn_tattn_draw_seeds(const dgnn_tattn_cfg *c, dgnn_rng *rng, uint64_t seeds[2]) {
    int n = 0;
    if (!rng) return 0;
    if (c->attn_dropout > 0) seeds[n++] = dgnn_rng_u64(rng);
    if (c->kind == DGNN_ATTN_TGL && c->dropout > 0) seeds[n++] = dgnn_rng_u64(rng);
    return n;
}

void dgnn_tattn_forward(float *out, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                        const dgnn_tattn_params *p, const dgnn_tattn_cfg *c, dgnn_rng *rng) {
    uint64_t seeds[2]; /* the dropouts' seeds, drawn first (the GPU op takes the same ones) */
    dgnn_tattn_draw_seeds(c, rng, seeds);
    dgnn_tattn_forward_seeded(out, s, in, p, c, rng ? seeds : NULL);
}

void dgnn_tattn_forward_seeded(float *out, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                               const dgnn_tattn_params *p, const dgnn_tattn_cfg *c, const uint64_t *seeds) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ATTENTION);
    int seed_k = 0;
    const int64_t B = in->B, P = in->off[in->B], Un = in->Un;
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c), H = c->heads, dh = E / H;
    const int64_t dn = c->dn, de = c->de, dt = c->dt;
    const int64_t dq = dn + dt, dk = dn + de + dt, dc = E + dn, HK = H * dk;
    const int64_t Ue = de > 0 ? (in->edge_row ? in->Ue : P) : 0;
    const int tgn = c->kind == DGNN_ATTN_TGN;
    const float scale = tgn ? (float)(1.0 / sqrt((double)dh)) : 1.0f;
    DGNN_ASSERT(B <= s->cap_B && P <= s->cap_P && Un <= s->cap_Un && Ue <= s->cap_Ue);
    DGNN_ASSERT(in->off[0] == 0);
    const int64_t Ur = query_rows(in);
    DGNN_ASSERT(Ur <= B);

    /* q = Wq[:, :dn] h_root + (bq + Wq[:, dn:] te0): the time part is the same vector
     * for every root (te0 = time_enc(0)), so it is computed once. */
    {
        /* the products that need only the inputs and the parameters, together (the out
         * projection folded into the merge layer: TGN, below) */
        dgnn_gemm_op ops[3] = {OP(0, 1, Ur, E, dn, in->h_root, dn, p->Wq, dq, 0.0f, s->q, E)};
        int n = 1;
        if (tgn) {
            ops[n++] = OP(0, 0, Hd, E, E, p->W1, dc, p->Wo, E, 0.0f, s->wfold, E);
            ops[n++] = OP(0, 1, Ur, Hd, dn, in->h_root, dn, p->W1 + E, dc, 0.0f, s->zr, Hd);
        }
        dgnn_gemm_group(ops, n);
    }
#pragma omp parallel if (Ur * E > PAR_MIN)
    {
#pragma omp for
        for (int64_t e = 0; e < E; e++) {
            float a = p->bq[e];
            for (int64_t j = 0; j < dt; j++) a += p->Wq[e * dq + dn + j] * in->te0[j];
            s->qc[e] = a;
        }
#pragma omp for
        for (int64_t i = 0; i < Ur; i++)
            for (int64_t e = 0; e < E; e++) s->q[i * E + e] += s->qc[e];
    }

    /* per head: qt_h = q_h Wk_h (Ur, dk) and the bias's share of every score, q_h . bk_h */
    {
        dgnn_gemm_op ops[DGNN_GEMM_GROUP_MAX]; /* the heads' products together, a group at a time */
        for (int64_t h0 = 0; h0 < H; h0 += DGNN_GEMM_GROUP_MAX) {
            int n = 0;
            for (int64_t h = h0; h < H && n < DGNN_GEMM_GROUP_MAX; h++)
                ops[n++] = OP(0, 0, Ur, dk, dh, s->q + h * dh, E, p->Wk + h * dh * dk, dk, 0.0f, s->qt + h * dk, HK);
            dgnn_gemm_group(ops, n);
        }
    }
    s->has_att_mask = seeds && c->attn_dropout > 0;
    if (s->has_att_mask) dgnn_dropout_mask(s->att_mask, P * H, c->attn_dropout, seeds[seed_k++]);
    const float *mask = s->has_att_mask ? s->att_mask : NULL;

    /* scores, masked softmax and the weighted input sums, root by root */
    const pair_dims dm = {dn, de, dt, H, dk, tgn, scale, mask};
#pragma omp parallel if (P * HK > PAR_MIN)
    {
#pragma omp for
        for (int64_t i = 0; i < Ur; i++)
            for (int64_t h = 0; h < H; h++) s->qb[i * H + h] = dot(s->q + i * E + h * dh, p->bk + h * dh, dh);
        /* roots in ranges of equal cost (their pairs, plus half a pair's worth each) */
        int64_t i0, i1;
        dgnn_par_items(in->off, B, ROOT_COST, &i0, &i1);
        for (int64_t i = i0; i < i1; i++) root_forward(s, in, &dm, i);
    }

    /* o_h = xbar_h Wv_h^T + bv_h asum_h (0 for a root without neighbours) */
    {
        dgnn_gemm_op ops[DGNN_GEMM_GROUP_MAX];
        for (int64_t h0 = 0; h0 < H; h0 += DGNN_GEMM_GROUP_MAX) {
            int n = 0;
            for (int64_t h = h0; h < H && n < DGNN_GEMM_GROUP_MAX; h++)
                ops[n++] = OP(0, 1, B, dh, dk, s->xbar + h * dk, HK, p->Wv + h * dh * dk, dk, 0.0f, s->o + h * dh, E);
            dgnn_gemm_group(ops, n);
        }
    }
#pragma omp parallel for if (B * E > PAR_MIN)
    for (int64_t i = 0; i < B; i++)
        for (int64_t h = 0; h < H; h++) axpy(s->o + i * E + h * dh, s->asum[i * H + h], p->bv + h * dh, dh);

    if (tgn) {
        /* z = W1 [a; h_root] + b1 with a = Wo o + bo (0 for a root without neighbours, as
         * TGN's masked_fill after the attention): the out projection folds into the merge
         * layer, W' = W1a Wo (Hd, E) and c' = W1a bo once per call, so that per root only
         * z = W' o + W1b h_root + b1 (+ c' where it has neighbours) remains: B Hd E + B Hd dn
         * multiply-adds instead of B E E + B Hd (E + dn) (W1a, W1b: W1's column blocks). */
#pragma omp parallel if (B * Hd > PAR_MIN)
        {
#pragma omp for
            for (int64_t j = 0; j < Hd; j++) s->cfold[j] = dot(p->W1 + j * dc, p->bo, E);
#pragma omp for
            for (int64_t i = 0; i < B; i++) {
                float *zi = s->z + i * Hd;
                const float *zr = s->zr + root_row(in, i) * Hd;
                for (int64_t j = 0; j < Hd; j++) zi[j] = p->b1[j] + zr[j];
                if (in->off[i + 1] > in->off[i]) axpy(zi, 1.0f, s->cfold, Hd);
            }
        }
        dgnn_gemm(0, 1, B, Hd, E, s->o, E, s->wfold, E, 1.0f, s->z, Hd);
        dgnn_relu_forward(s->r, s->z, B * Hd);
        dgnn_linear_forward(out, s->r, p->W2, p->b2, B, Hd, c->dout);
        dgnn_prof_end(prof_t);
        return;
    }
    /* TGL: cat = [a; h_root], a = o (already 0 for a root without neighbours) */
#pragma omp parallel for if (B * dc > PAR_MIN)
    for (int64_t i = 0; i < B; i++) {
        float *ci = s->cat + i * dc;
        memcpy(ci, s->o + i * E, (size_t)E * sizeof(float));
        memcpy(ci + E, in->h_root + root_row(in, i) * dn, (size_t)dn * sizeof(float));
    }

    dgnn_linear_forward(s->z, s->cat, p->W1, p->b1, B, dc, Hd);
    {
        s->has_drop_mask = seeds && c->dropout > 0;
        if (s->has_drop_mask) dgnn_dropout_mask(s->drop_mask, B * Hd, c->dropout, seeds[seed_k++]);
#pragma omp parallel for if (B * Hd > PAR_MIN)
        for (int64_t i = 0; i < B * Hd; i++) {
            float x = s->has_drop_mask ? s->z[i] * s->drop_mask[i] : s->z[i];
            s->r[i] = x < 0 ? 0.0f : x; /* a NaN passes (act.c) */
        }
        dgnn_layernorm_forward(out, s->ln_mean, s->ln_rstd, s->r, p->ln_g, p->ln_b, B, c->dout);
    }
    dgnn_prof_end(prof_t);
}

/* The head of the layer back to do_ (B, E), the gradient of the attention's output o. */
static void head_backward(dgnn_tattn_dinput *din, dgnn_tattn_params *dp, const float *dout,
                          dgnn_tattn_saved *s, const dgnn_tattn_input *in, const dgnn_tattn_params *p,
                          const dgnn_tattn_cfg *c) {
    const int64_t B = in->B, E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c), dn = c->dn, dc = E + dn;
    memset(s->dz, 0, (size_t)(B * Hd) * sizeof(float));
    if (c->kind == DGNN_ATTN_TGN) {
        dgnn_linear_backward(s->dz, dp->W2, dp->b2, dout, s->r, p->W2, B, Hd, c->dout);
        /* z = W' o + W1b h_root + b1 + [has neighbours] c', W' = W1a Wo, c' = W1a bo (the
         * forward): with G = dz^T o (Hd, E) and g = the sum of dz over roots with
         * neighbours, dW1a += G Wo^T + g bo^T, dWo += W1a^T G, dbo += W1a^T g, and
         * do = dz W'. The sums over roots run per column, in root order. */
        float *G = s->dwfold, *g = s->dcfold;
#pragma omp parallel if (B * Hd > PAR_MIN)
        {
#pragma omp for
            for (int64_t i = 0; i < B * Hd; i++)
                if (!(s->r[i] > 0)) s->dz[i] = 0;
            int64_t j0, j1;
            dgnn_par_cols(Hd, 8, &j0, &j1);
            for (int64_t j = j0; j < j1; j++) g[j] = 0;
            for (int64_t i = 0; i < B; i++) {
                const float *dzi = s->dz + i * Hd + j0;
                axpy(dp->b1 + j0, 1.0f, dzi, j1 - j0);
                if (in->off[i + 1] > in->off[i]) axpy(g + j0, 1.0f, dzi, j1 - j0);
            }
        }
#pragma omp parallel if (Hd * E > PAR_MIN)
        {
#pragma omp for nowait
            for (int64_t j = 0; j < Hd; j++) axpy(dp->W1 + j * dc, g[j], p->bo, E);
            int64_t e0, e1;
            dgnn_par_cols(E, 8, &e0, &e1);
            for (int64_t j = 0; j < Hd; j++)
                for (int64_t e = e0; e < e1; e++) dp->bo[e] += g[j] * p->W1[j * dc + e];
        }
        /* the h_root part per query row: dz summed over the roots sharing one */
        const int64_t Ur = query_rows(in);
        const float *dzr = s->dz;
        if (in->root_row) {
            memset(s->dzr, 0, (size_t)(Ur * Hd) * sizeof(float));
            segment_acc(s->dzr, s->dz, in->root_row, B, Hd, Ur);
            dzr = s->dzr;
        }
        /* the products that need dz only, together (G with them, so that two threads
         * share them whole instead of cutting G's 172 rows), then the two that need G */
        dgnn_gemm_op ops[4] = {
            OP(1, 0, Hd, E, B, s->dz, Hd, s->o, E, 0.0f, G, E),
            OP(0, 0, B, E, Hd, s->dz, Hd, s->wfold, E, 0.0f, s->do_, E),
            OP(1, 0, Hd, dn, Ur, dzr, Hd, in->h_root, dn, 1.0f, dp->W1 + E, dc),
            OP(0, 0, Ur, dn, Hd, dzr, Hd, p->W1 + E, dc, 1.0f, din->h_root, dn),
        };
        dgnn_gemm_group(ops, din->h_root ? 4 : 3);
        ops[0] = OP(0, 1, Hd, E, E, G, E, p->Wo, E, 1.0f, dp->W1, dc);
        ops[1] = OP(1, 0, E, E, Hd, p->W1, dc, G, E, 1.0f, dp->Wo, E);
        dgnn_gemm_group(ops, 2);
        return;
    }
    dgnn_layernorm_backward(s->dz, dp->ln_g, dp->ln_b, dout, s->r, p->ln_g, s->ln_mean, s->ln_rstd, B, c->dout);
    /* TGL: r = relu(z * m): dr/dz = m where r > 0, else 0. */
#pragma omp parallel for if (B * Hd > PAR_MIN)
    for (int64_t i = 0; i < B * Hd; i++)
        s->dz[i] = s->r[i] > 0 ? (s->has_drop_mask ? s->dz[i] * s->drop_mask[i] : s->dz[i]) : 0;
    memset(s->dcat, 0, (size_t)(B * dc) * sizeof(float));
    dgnn_linear_backward(s->dcat, dp->W1, dp->b1, s->dz, s->cat, p->W1, B, dc, Hd);
    /* cat = [o; h_root]: the h_root half goes straight to din->h_root; the o half is
     * dropped for roots without neighbours (o is 0 there whatever its inputs) */
    if (din->h_root) /* in root order: roots may share a query row */
        for (int64_t i = 0; i < B; i++) axpy(din->h_root + root_row(in, i) * dn, 1.0f, s->dcat + i * dc + E, dn);
#pragma omp parallel for if (B * dc > PAR_MIN)
    for (int64_t i = 0; i < B; i++) {
        float *d = s->dcat + i * dc;
        if (in->off[i + 1] == in->off[i]) memset(d, 0, (size_t)E * sizeof(float));
        memcpy(s->do_ + i * E, d, (size_t)E * sizeof(float));
    }
}

void dgnn_tattn_backward(dgnn_tattn_dinput *din, dgnn_tattn_params *dp, const float *dout,
                         dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                         const dgnn_tattn_params *p, const dgnn_tattn_cfg *c) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ATTENTION);
    const int64_t B = in->B, P = in->off[in->B], Un = in->Un;
    const int64_t E = dgnn_tattn_E(c), H = c->heads, dh = E / H;
    const int64_t dn = c->dn, de = c->de, dt = c->dt;
    const int64_t dq = dn + dt, dk = dn + de + dt, HK = H * dk;
    const int64_t Ue = de > 0 ? (in->edge_row ? in->Ue : P) : 0;
    const int tgn = c->kind == DGNN_ATTN_TGN;
    const float scale = tgn ? (float)(1.0 / sqrt((double)dh)) : 1.0f;
    DGNN_ASSERT(B <= s->cap_B && P <= s->cap_P && Un <= s->cap_Un && Ue <= s->cap_Ue);
    const float *mask = s->has_att_mask ? s->att_mask : NULL;

    head_backward(din, dp, dout, s, in, p, c);

    /* Values, o_h = Wv_h xbar_h + bv_h asum_h: dxbar_h = do_h Wv_h, dWv_h += do_h^T xbar_h,
     * dbv_h += sum_i asum_ih do_ih, and d asum_ih = do_ih . bv_h. */
    {
        dgnn_gemm_op ops[DGNN_GEMM_GROUP_MAX];
        for (int64_t h0 = 0; h0 < H; h0 += DGNN_GEMM_GROUP_MAX / 2) {
            int n = 0;
            for (int64_t h = h0; h < H && n < DGNN_GEMM_GROUP_MAX; h++) {
                ops[n++] = OP(0, 0, B, dk, dh, s->do_ + h * dh, E, p->Wv + h * dh * dk, dk, 0.0f, s->dxbar + h * dk, HK);
                ops[n++] = OP(1, 0, dh, dk, B, s->do_ + h * dh, E, s->xbar + h * dk, HK, 1.0f, dp->Wv + h * dh * dk, dk);
            }
            dgnn_gemm_group(ops, n);
        }
    }
#pragma omp parallel if (B * E > PAR_MIN)
    {
#pragma omp for nowait
        for (int64_t i = 0; i < B; i++)
            for (int64_t h = 0; h < H; h++) s->dasum[i * H + h] = dot(s->do_ + i * E + h * dh, p->bv + h * dh, dh);
        int64_t e0, e1; /* dbv per column, summed in root order */
        dgnn_par_cols(E, 8, &e0, &e1);
        for (int64_t i = 0; i < B; i++)
            col_axpy_heads(dp->bv, s->asum + i * H, s->do_ + i * E, e0, e1, dh);
    }

    /* scores' and pairs' input gradients root by root, then the node and edge parts
     * summed into their rows */
    const pair_dims dm = {dn, de, dt, H, dk, tgn, scale, mask};
#pragma omp parallel if (P * HK > PAR_MIN)
    {
        int64_t i0, i1;
        dgnn_par_items(in->off, B, ROOT_COST, &i0, &i1);
        for (int64_t i = i0; i < i1; i++) root_backward(s, din, in, &dm, i);
    }

    if (din->h_nbr) segment_acc(din->h_nbr, s->dxn, in->nbr_row, P, dn, Un);
    if (de > 0 && din->e_feat && in->edge_row) segment_acc(din->e_feat, s->dxe, in->edge_row, P, de, Ue);

    /* Keys, qt_h = Wk_h^T q_h and qb_h = q_h . bk_h: dq_h = dqt_h Wk_h^T + dqb_h bk_h,
     * dWk_h += q_h^T dqt_h, dbk_h += sum_i dqb_ih q_ih. */
    const int64_t Ur = query_rows(in);
    const float *dqt = s->dqt, *dqb = s->dqb;
    if (in->root_row) { /* summed over the roots that share a query row */
        dgnn_zero(s->dqtu, Ur * HK);
        memset(s->dqbu, 0, (size_t)(Ur * H) * sizeof(float));
        segment_acc(s->dqtu, s->dqt, in->root_row, B, HK, Ur);
        segment_acc(s->dqbu, s->dqb, in->root_row, B, H, Ur);
        dqt = s->dqtu, dqb = s->dqbu;
    }
    {
        dgnn_gemm_op ops[DGNN_GEMM_GROUP_MAX];
        for (int64_t h0 = 0; h0 < H; h0 += DGNN_GEMM_GROUP_MAX / 2) {
            int n = 0;
            for (int64_t h = h0; h < H && n < DGNN_GEMM_GROUP_MAX; h++) {
                ops[n++] = OP(0, 1, Ur, dh, dk, dqt + h * dk, HK, p->Wk + h * dh * dk, dk, 0.0f, s->dq + h * dh, E);
                ops[n++] = OP(1, 0, dh, dk, Ur, s->q + h * dh, E, dqt + h * dk, HK, 1.0f, dp->Wk + h * dh * dk, dk);
            }
            dgnn_gemm_group(ops, n);
        }
    }
    /* dq_h += dqb_h bk_h per query row; then per column e (sums in row order): dbk, the
     * query projection's time part (every root's is te0, so its weight gradient is
     * (sum_i dq_i) te0^T), and d te0 = (sum_i dq_i) Wq[:, dn:] */
#pragma omp parallel if (Ur * E > PAR_MIN)
    {
#pragma omp for
        for (int64_t i = 0; i < Ur; i++)
            for (int64_t h = 0; h < H; h++) axpy(s->dq + i * E + h * dh, dqb[i * H + h], p->bk + h * dh, dh);
        int64_t e0, e1;
        dgnn_par_cols(E, 8, &e0, &e1);
        for (int64_t e = e0; e < e1; e++) s->qc[e] = 0;
        for (int64_t i = 0; i < Ur; i++) {
            col_axpy_heads(dp->bk, dqb + i * H, s->q + i * E, e0, e1, dh);
            axpy(s->qc + e0, 1.0f, s->dq + i * E + e0, e1 - e0);
        }
        for (int64_t e = e0; e < e1; e++) {
            dp->bq[e] += s->qc[e];
            for (int64_t j = 0; j < dt; j++) dp->Wq[e * dq + dn + j] += s->qc[e] * in->te0[j];
        }
        if (din->te0) {
#pragma omp barrier
#pragma omp for
            for (int64_t j = 0; j < dt; j++) {
                float a = 0;
                for (int64_t e = 0; e < E; e++) a += s->qc[e] * p->Wq[e * dq + dn + j];
                din->te0[j] += a;
            }
        }
    }
    dgnn_gemm_op ops[2] = {OP(1, 0, E, dn, Ur, s->dq, E, in->h_root, dn, 1.0f, dp->Wq, dq),
                           OP(0, 0, Ur, dn, E, s->dq, E, p->Wq, dq, 1.0f, din->h_root, dn)};
    dgnn_gemm_group(ops, din->h_root ? 2 : 1);
    dgnn_prof_end(prof_t);
}
