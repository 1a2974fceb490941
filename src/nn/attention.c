/* attention.c: temporal multi-head attention, the embedding layer of TGN (and of TGL's
 * TGN/TGAT configurations), in three parts:
 *  - the attention core: per query, scores against its own variable-length key set,
 *    masked softmax, weighted sum of values (reused by other models' attention);
 *  - the fast layer: projections factored so that each DISTINCT neighbour node row is
 *    projected once, and only the time-encoding (and edge) parts per (root, neighbour)
 *    pair; padded neighbours never reach it (CSR input). See nn.h for the math.
 *  - the reference layer: every key row [h; e; te] built explicitly and projected with
 *    plain loops, for tests of the fast layer (DESIGN.md convention 6).
 *
 * Cost per batch in TGN's preset (600 roots x 10 neighbours, dn = 172, dt = 100,
 * E = 272): a plain key/value projection is 2 x 6000 x 444 x 272 x 2 = 2.9 GFLOP; the
 * factored one is 2 x (U x 172 + 6000 x 100) x 272 x 2 with U distinct neighbours
 * (U <= 6000, typically a fraction of it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"
#include "dgnn/prof.h"

#define PAR_MIN 16384

/* out (C) += column sums of X (R, C; ldx), in row order (thread-count independent). */
static void colsum_acc(float *out, const float *X, int64_t ldx, int64_t R, int64_t C) {
    const int64_t CB = 64;
#pragma omp parallel for if (R * C > PAR_MIN)
    for (int64_t c0 = 0; c0 < C; c0 += CB) {
        int64_t c1 = c0 + CB < C ? c0 + CB : C;
        for (int64_t i = 0; i < R; i++)
            for (int64_t c = c0; c < c1; c++) out[c] += X[i * ldx + c];
    }
}

/* dst (Rows, C) = 0, then dst[row[p]] += src[p] for p < P (row == NULL: row p). A
 * scatter by row index: parallel over column blocks, each thread visiting every pair
 * in order, so outputs are disjoint and the sums do not depend on the thread count. */
static void segment_sum(float *dst, int64_t Rows, const float *src, const int32_t *row, int64_t P,
                        int64_t C) {
    memset(dst, 0, (size_t)(Rows * C) * sizeof(float));
    const int64_t CB = 32;
#pragma omp parallel for if (P * C > PAR_MIN)
    for (int64_t c0 = 0; c0 < C; c0 += CB) {
        int64_t c1 = c0 + CB < C ? c0 + CB : C;
        for (int64_t p = 0; p < P; p++) {
            float *d = dst + (int64_t)(row ? row[p] : p) * C;
            const float *s = src + p * C;
            for (int64_t c = c0; c < c1; c++) d[c] += s[c];
        }
    }
}

/* ---- attention core ----------------------------------------------------------- */

void dgnn_attn_core_forward(float *o, float *logit, float *att, const float *att_mask,
                            const float *q, const float *k, const float *v, const int64_t *off,
                            int64_t B, int64_t heads, int64_t E, dgnn_score_kind kind) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ATTENTION);
    DGNN_ASSERT(heads > 0 && E % heads == 0);
    const int64_t dh = E / heads;
    const float scale = kind == DGNN_SCORE_SCALED_DOT ? (float)(1.0 / sqrt((double)dh)) : 1.0f;
#pragma omp parallel for schedule(static) if (off[B] * E > PAR_MIN)
    for (int64_t i = 0; i < B; i++) {
        const int64_t p0 = off[i], p1 = off[i + 1];
        float *oi = o + i * E;
        memset(oi, 0, (size_t)E * sizeof(float));
        for (int64_t h = 0; h < heads; h++) {
            const float *qh = q + i * E + h * dh;
            float mx = -INFINITY;
            for (int64_t p = p0; p < p1; p++) {
                const float *kh = k + p * E + h * dh;
                float s = 0;
                for (int64_t c = 0; c < dh; c++) s += qh[c] * kh[c];
                s *= scale;
                if (kind == DGNN_SCORE_LEAKY_DOT && s < 0) s *= 0.2f;
                logit[p * heads + h] = s;
                if (s > mx) mx = s;
            }
            /* Softmax with the maximum subtracted: every exponent is <= 0, so exp never
             * overflows, and the largest term is exactly 1, so the sum is >= 1 (no
             * division by zero even if all other terms underflow). */
            float sum = 0;
            for (int64_t p = p0; p < p1; p++) {
                float e = expf(logit[p * heads + h] - mx);
                att[p * heads + h] = e;
                sum += e;
            }
            float inv = p1 > p0 ? 1.0f / sum : 0.0f;
            float *oh = oi + h * dh;
            for (int64_t p = p0; p < p1; p++) {
                float a = att[p * heads + h] * inv;
                att[p * heads + h] = a;
                float aw = att_mask ? a * att_mask[p * heads + h] : a;
                const float *vh = v + p * E + h * dh;
                for (int64_t c = 0; c < dh; c++) oh[c] += aw * vh[c];
            }
        }
    }
    dgnn_prof_end(prof_t);
}

void dgnn_attn_core_backward(float *dq, float *dk, float *dv, const float *do_, const float *logit,
                             const float *att, const float *att_mask, const float *q,
                             const float *k, const float *v, const int64_t *off, int64_t B,
                             int64_t heads, int64_t E, dgnn_score_kind kind) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ATTENTION);
    DGNN_ASSERT(heads > 0 && E % heads == 0);
    const int64_t dh = E / heads;
    const float scale = kind == DGNN_SCORE_SCALED_DOT ? (float)(1.0 / sqrt((double)dh)) : 1.0f;
    /* Each query writes only its own row of dq and its own pairs' rows of dk, dv. */
#pragma omp parallel for schedule(static) if (off[B] * E > PAR_MIN)
    for (int64_t i = 0; i < B; i++) {
        const int64_t p0 = off[i], p1 = off[i + 1];
        for (int64_t h = 0; h < heads; h++) {
            const float *doh = do_ + i * E + h * dh;
            const float *qh = q + i * E + h * dh;
            /* dA_p = do . v_p (times the dropout multiplier); softmax backward needs
             * sum_p a_p dA_p first, then each dA_p again (recomputed: dh flops, no
             * temporary per pair). */
            float dot = 0;
            for (int64_t p = p0; p < p1; p++) {
                const float *vh = v + p * E + h * dh;
                float g = 0;
                for (int64_t c = 0; c < dh; c++) g += doh[c] * vh[c];
                if (att_mask) g *= att_mask[p * heads + h];
                dot += att[p * heads + h] * g;
            }
            for (int64_t p = p0; p < p1; p++) {
                const float *vh = v + p * E + h * dh;
                const float a = att[p * heads + h];
                const float aw = att_mask ? a * att_mask[p * heads + h] : a;
                float g = 0;
                for (int64_t c = 0; c < dh; c++) g += doh[c] * vh[c];
                if (att_mask) g *= att_mask[p * heads + h];
                float ds = a * (g - dot); /* softmax backward */
                if (kind == DGNN_SCORE_LEAKY_DOT) {
                    if (!(logit[p * heads + h] > 0)) ds *= 0.2f;
                } else {
                    ds *= scale;
                }
                const float *kh = k + p * E + h * dh;
                if (dv) {
                    float *dvh = dv + p * E + h * dh;
                    for (int64_t c = 0; c < dh; c++) dvh[c] += aw * doh[c];
                }
                if (dk) {
                    float *dkh = dk + p * E + h * dh;
                    for (int64_t c = 0; c < dh; c++) dkh[c] += ds * qh[c];
                }
                if (dq) {
                    float *dqh = dq + i * E + h * dh;
                    for (int64_t c = 0; c < dh; c++) dqh[c] += ds * kh[c];
                }
            }
        }
    }
    dgnn_prof_end(prof_t);
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

int64_t dgnn_tattn_params_layout(dgnn_tattn_params *p, float *slab, const dgnn_tattn_cfg *c) {
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c);
    const int64_t dq = c->dn + c->dt, dk = c->dn + c->de + c->dt;
    const int tgn = c->kind == DGNN_ATTN_TGN;
    int64_t n = 0;
    dgnn_tattn_params tmp;
    if (!p) p = &tmp;
#define TAKE(field, count)                                     \
    do {                                                       \
        int64_t cnt_ = (count);                                \
        p->field = (slab && cnt_ > 0) ? slab + n : NULL;       \
        n += cnt_;                                             \
    } while (0)
    TAKE(Wq, E * dq);
    TAKE(bq, E);
    TAKE(Wk, E * dk);
    TAKE(bk, E);
    TAKE(Wv, E * dk);
    TAKE(bv, E);
    TAKE(Wo, tgn ? E * E : 0);
    TAKE(bo, tgn ? E : 0);
    TAKE(W1, Hd * (E + c->dn));
    TAKE(b1, Hd);
    TAKE(W2, tgn ? c->dout * c->dn : 0);
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
    TAKE(qc, E);
    TAKE(q, B * E);
    TAKE(kn, Un * E);
    TAKE(vn, Un * E);
    TAKE(ke, Ue_ * E);
    TAKE(ve, Ue_ * E);
    TAKE(k, P * E);
    TAKE(v, P * E);
    TAKE(logit, P * H);
    TAKE(att, P * H);
    TAKE(att_mask, c->attn_dropout > 0 ? P * H : 0);
    TAKE(o, B * E);
    TAKE(cat, B * (E + c->dn));
    TAKE(z, B * Hd);
    TAKE(drop_mask, tgl && c->dropout > 0 ? B * Hd : 0);
    TAKE(r, B * Hd);
    TAKE(ln_mean, tgl ? B : 0);
    TAKE(ln_rstd, tgl ? B : 0);
    TAKE(dq, B * E);
    TAKE(dk, P * E);
    TAKE(dv, P * E);
    TAKE(dkn, Un * E);
    TAKE(dvn, Un * E);
    TAKE(dke, Ue_ * E);
    TAKE(dve, Ue_ * E);
    TAKE(do_, B * E);
    TAKE(dcat, B * (E + c->dn));
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

void dgnn_tattn_forward(float *out, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                        const dgnn_tattn_params *p, const dgnn_tattn_cfg *c, dgnn_rng *rng) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ATTENTION);
    const int64_t B = in->B, P = in->off[in->B], Un = in->Un;
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c), H = c->heads;
    const int64_t dn = c->dn, de = c->de, dt = c->dt;
    const int64_t dq = dn + dt, dk = dn + de + dt, dc = E + dn;
    const int64_t Ue = de > 0 ? (in->edge_row ? in->Ue : P) : 0;
    const int tgn = c->kind == DGNN_ATTN_TGN;
    DGNN_ASSERT(B <= s->cap_B && P <= s->cap_P && Un <= s->cap_Un && Ue <= s->cap_Ue);
    DGNN_ASSERT(in->off[0] == 0);

    /* q = Wq[:, :dn] h_root + (bq + Wq[:, dn:] te0): the time part is the same vector
     * for every root (te0 = time_enc(0)), so it is computed once. */
    for (int64_t e = 0; e < E; e++) {
        float a = p->bq[e];
        for (int64_t j = 0; j < dt; j++) a += p->Wq[e * dq + dn + j] * in->te0[j];
        s->qc[e] = a;
    }
    dgnn_gemm(0, 1, B, E, dn, in->h_root, dn, p->Wq, dq, 0.0f, s->q, E);
#pragma omp parallel for if (B * E > PAR_MIN)
    for (int64_t i = 0; i < B; i++)
        for (int64_t e = 0; e < E; e++) s->q[i * E + e] += s->qc[e];

    /* Keys and values, factored by the column blocks [node | edge | time] of Wk, Wv:
     * distinct node rows and edge rows once, the time part per pair. */
    /* the biases ride on the node rows (Un of them, fewer than the pairs) */
#pragma omp parallel for if (Un * E > PAR_MIN)
    for (int64_t u = 0; u < Un; u++) {
        memcpy(s->kn + u * E, p->bk, (size_t)E * sizeof(float));
        memcpy(s->vn + u * E, p->bv, (size_t)E * sizeof(float));
    }
    dgnn_gemm(0, 1, Un, E, dn, in->h_nbr, dn, p->Wk, dk, 1.0f, s->kn, E);
    dgnn_gemm(0, 1, Un, E, dn, in->h_nbr, dn, p->Wv, dk, 1.0f, s->vn, E);
    if (de > 0) {
        dgnn_gemm(0, 1, Ue, E, de, in->e_feat, de, p->Wk + dn, dk, 0.0f, s->ke, E);
        dgnn_gemm(0, 1, Ue, E, de, in->e_feat, de, p->Wv + dn, dk, 0.0f, s->ve, E);
    }
    dgnn_gemm(0, 1, P, E, dt, in->te, dt, p->Wk + dn + de, dk, 0.0f, s->k, E);
    dgnn_gemm(0, 1, P, E, dt, in->te, dt, p->Wv + dn + de, dk, 0.0f, s->v, E);
#pragma omp parallel for if (P * E > PAR_MIN)
    for (int64_t q = 0; q < P; q++) {
        const float *kn = s->kn + (int64_t)in->nbr_row[q] * E;
        const float *vn = s->vn + (int64_t)in->nbr_row[q] * E;
        float *k = s->k + q * E, *v = s->v + q * E;
        for (int64_t e = 0; e < E; e++) {
            k[e] += kn[e];
            v[e] += vn[e];
        }
        if (de > 0) {
            int64_t er = in->edge_row ? in->edge_row[q] : q;
            const float *ke = s->ke + er * E, *ve = s->ve + er * E;
            for (int64_t e = 0; e < E; e++) {
                k[e] += ke[e];
                v[e] += ve[e];
            }
        }
    }

    s->has_att_mask = rng && c->attn_dropout > 0;
    if (s->has_att_mask) dgnn_dropout_mask(s->att_mask, P * H, c->attn_dropout, dgnn_rng_u64(rng));
    dgnn_attn_core_forward(s->o, s->logit, s->att, s->has_att_mask ? s->att_mask : NULL, s->q, s->k,
                           s->v, in->off, B, H, E,
                           tgn ? DGNN_SCORE_SCALED_DOT : DGNN_SCORE_LEAKY_DOT);

    /* cat = [a; h_root]. TGN: a = Wo o + bo, zeroed for roots without neighbours (as
     * TGN's masked_fill after the attention); TGL: a = o (already 0 there). */
    if (tgn) {
#pragma omp parallel for if (B * E > PAR_MIN)
        for (int64_t i = 0; i < B; i++) memcpy(s->cat + i * dc, p->bo, (size_t)E * sizeof(float));
        dgnn_gemm(0, 1, B, E, E, s->o, E, p->Wo, E, 1.0f, s->cat, dc);
    }
#pragma omp parallel for if (B * dc > PAR_MIN)
    for (int64_t i = 0; i < B; i++) {
        float *ci = s->cat + i * dc;
        if (in->off[i + 1] == in->off[i]) memset(ci, 0, (size_t)E * sizeof(float));
        else if (!tgn) memcpy(ci, s->o + i * E, (size_t)E * sizeof(float));
        memcpy(ci + E, in->h_root + i * dn, (size_t)dn * sizeof(float));
    }

    dgnn_linear_forward(s->z, s->cat, p->W1, p->b1, B, dc, Hd);
    if (tgn) {
        dgnn_relu_forward(s->r, s->z, B * Hd);
        dgnn_linear_forward(out, s->r, p->W2, p->b2, B, Hd, c->dout);
    } else {
        s->has_drop_mask = rng && c->dropout > 0;
        if (s->has_drop_mask) dgnn_dropout_mask(s->drop_mask, B * Hd, c->dropout, dgnn_rng_u64(rng));
#pragma omp parallel for if (B * Hd > PAR_MIN)
        for (int64_t i = 0; i < B * Hd; i++) {
            float x = s->has_drop_mask ? s->z[i] * s->drop_mask[i] : s->z[i];
            s->r[i] = x > 0 ? x : 0.0f;
        }
        dgnn_layernorm_forward(out, s->ln_mean, s->ln_rstd, s->r, p->ln_g, p->ln_b, B, c->dout);
    }
    dgnn_prof_end(prof_t);
}

void dgnn_tattn_backward(dgnn_tattn_dinput *din, dgnn_tattn_params *dp, const float *dout,
                         dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                         const dgnn_tattn_params *p, const dgnn_tattn_cfg *c) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_ATTENTION);
    const int64_t B = in->B, P = in->off[in->B], Un = in->Un;
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c), H = c->heads;
    const int64_t dn = c->dn, de = c->de, dt = c->dt;
    const int64_t dq = dn + dt, dk = dn + de + dt, dc = E + dn;
    const int64_t Ue = de > 0 ? (in->edge_row ? in->Ue : P) : 0;
    const int tgn = c->kind == DGNN_ATTN_TGN;
    DGNN_ASSERT(B <= s->cap_B && P <= s->cap_P && Un <= s->cap_Un && Ue <= s->cap_Ue);

    /* Output head back to dz (B, Hd). */
    memset(s->dz, 0, (size_t)(B * Hd) * sizeof(float));
    if (tgn) {
        dgnn_linear_backward(s->dz, dp->W2, dp->b2, dout, s->r, p->W2, B, Hd, c->dout);
#pragma omp parallel for if (B * Hd > PAR_MIN)
        for (int64_t i = 0; i < B * Hd; i++)
            if (!(s->r[i] > 0)) s->dz[i] = 0;
    } else {
        dgnn_layernorm_backward(s->dz, dp->ln_g, dp->ln_b, dout, s->r, p->ln_g, s->ln_mean,
                                s->ln_rstd, B, c->dout);
        /* r = relu(z * m): dr/dz = m where r > 0, else 0. */
#pragma omp parallel for if (B * Hd > PAR_MIN)
        for (int64_t i = 0; i < B * Hd; i++)
            s->dz[i] = s->r[i] > 0 ? (s->has_drop_mask ? s->dz[i] * s->drop_mask[i] : s->dz[i]) : 0;
    }
    memset(s->dcat, 0, (size_t)(B * dc) * sizeof(float));
    dgnn_linear_backward(s->dcat, dp->W1, dp->b1, s->dz, s->cat, p->W1, B, dc, Hd);

    /* cat = [a; h_root]: the h_root half goes straight to din->h_root; the a half is
     * dropped for roots without neighbours (a was forced to 0 there). */
#pragma omp parallel for if (B * dc > PAR_MIN)
    for (int64_t i = 0; i < B; i++) {
        float *d = s->dcat + i * dc;
        if (din->h_root)
            for (int64_t j = 0; j < dn; j++) din->h_root[i * dn + j] += d[E + j];
        if (in->off[i + 1] == in->off[i]) memset(d, 0, (size_t)E * sizeof(float));
        if (tgn) memset(s->do_ + i * E, 0, (size_t)E * sizeof(float));
        else memcpy(s->do_ + i * E, d, (size_t)E * sizeof(float)); /* a = o */
    }
    if (tgn) { /* a = Wo o + bo */
        dgnn_gemm(0, 0, B, E, E, s->dcat, dc, p->Wo, E, 1.0f, s->do_, E);
        dgnn_gemm(1, 0, E, E, B, s->dcat, dc, s->o, E, 1.0f, dp->Wo, E);
        colsum_acc(dp->bo, s->dcat, dc, B, E);
    }

    /* Attention core. */
    memset(s->dq, 0, (size_t)(B * E) * sizeof(float));
    memset(s->dk, 0, (size_t)(P * E) * sizeof(float));
    memset(s->dv, 0, (size_t)(P * E) * sizeof(float));
    dgnn_attn_core_backward(s->dq, s->dk, s->dv, s->do_, s->logit, s->att,
                            s->has_att_mask ? s->att_mask : NULL, s->q, s->k, s->v, in->off, B, H,
                            E, tgn ? DGNN_SCORE_SCALED_DOT : DGNN_SCORE_LEAKY_DOT);

    /* Query projection: every root's time part is te0, so its weight gradient is
     * (sum_i dq_i) te0^T and d te0 = (sum_i dq_i) Wq[:, dn:]. */
    memset(s->qc, 0, (size_t)E * sizeof(float));
    colsum_acc(s->qc, s->dq, E, B, E);
    for (int64_t e = 0; e < E; e++) {
        dp->bq[e] += s->qc[e];
        for (int64_t j = 0; j < dt; j++) dp->Wq[e * dq + dn + j] += s->qc[e] * in->te0[j];
    }
    if (din->te0)
        for (int64_t j = 0; j < dt; j++) {
            float a = 0;
            for (int64_t e = 0; e < E; e++) a += s->qc[e] * p->Wq[e * dq + dn + j];
            din->te0[j] += a;
        }
    dgnn_gemm(1, 0, E, dn, B, s->dq, E, in->h_root, dn, 1.0f, dp->Wq, dq);
    if (din->h_root) dgnn_gemm(0, 0, B, dn, E, s->dq, E, p->Wq, dq, 1.0f, din->h_root, dn);

    /* Keys and values: per-pair time part, then the node and edge parts through the
     * per-row sums of the pair gradients. */
    dgnn_gemm(1, 0, E, dt, P, s->dk, E, in->te, dt, 1.0f, dp->Wk + dn + de, dk);
    dgnn_gemm(1, 0, E, dt, P, s->dv, E, in->te, dt, 1.0f, dp->Wv + dn + de, dk);
    if (din->te) {
        dgnn_gemm(0, 0, P, dt, E, s->dk, E, p->Wk + dn + de, dk, 1.0f, din->te, dt);
        dgnn_gemm(0, 0, P, dt, E, s->dv, E, p->Wv + dn + de, dk, 1.0f, din->te, dt);
    }
    segment_sum(s->dkn, Un, s->dk, in->nbr_row, P, E);
    segment_sum(s->dvn, Un, s->dv, in->nbr_row, P, E);
    colsum_acc(dp->bk, s->dkn, E, Un, E); /* every pair's bias is its node row's */
    colsum_acc(dp->bv, s->dvn, E, Un, E);
    dgnn_gemm(1, 0, E, dn, Un, s->dkn, E, in->h_nbr, dn, 1.0f, dp->Wk, dk);
    dgnn_gemm(1, 0, E, dn, Un, s->dvn, E, in->h_nbr, dn, 1.0f, dp->Wv, dk);
    if (din->h_nbr) {
        dgnn_gemm(0, 0, Un, dn, E, s->dkn, E, p->Wk, dk, 1.0f, din->h_nbr, dn);
        dgnn_gemm(0, 0, Un, dn, E, s->dvn, E, p->Wv, dk, 1.0f, din->h_nbr, dn);
    }
    if (de > 0) {
        /* Without an edge index every pair has its own edge row: no sum needed. */
        const float *dke = s->dk, *dve = s->dv;
        if (in->edge_row) {
            segment_sum(s->dke, Ue, s->dk, in->edge_row, P, E);
            segment_sum(s->dve, Ue, s->dv, in->edge_row, P, E);
            dke = s->dke;
            dve = s->dve;
        }
        dgnn_gemm(1, 0, E, de, Ue, dke, E, in->e_feat, de, 1.0f, dp->Wk + dn, dk);
        dgnn_gemm(1, 0, E, de, Ue, dve, E, in->e_feat, de, 1.0f, dp->Wv + dn, dk);
        if (din->e_feat) {
            dgnn_gemm(0, 0, Ue, de, E, dke, E, p->Wk + dn, dk, 1.0f, din->e_feat, de);
            dgnn_gemm(0, 0, Ue, de, E, dve, E, p->Wv + dn, dk, 1.0f, din->e_feat, de);
        }
    }
    dgnn_prof_end(prof_t);
}

/* ---- reference layer ------------------------------------------------------------------ */

/* out (R, Dout) = in (R, Din) W^T + b, plain loops, double accumulation. */
static void ref_linear(float *out, const float *x, const float *W, const float *b, int64_t R,
                       int64_t Din, int64_t Dout) {
    for (int64_t r = 0; r < R; r++)
        for (int64_t o = 0; o < Dout; o++) {
            double a = b ? b[o] : 0.0;
            for (int64_t i = 0; i < Din; i++) a += (double)x[r * Din + i] * W[o * Din + i];
            out[r * Dout + o] = (float)a;
        }
}

/* dx (R, Din) += dy W, dW += dy^T x, db += colsum(dy); any may be NULL. */
static void ref_linear_bwd(float *dx, float *dW, float *db, const float *dy, const float *x,
                           const float *W, int64_t R, int64_t Din, int64_t Dout) {
    for (int64_t r = 0; r < R; r++)
        for (int64_t o = 0; o < Dout; o++) {
            float g = dy[r * Dout + o];
            if (db) db[o] += g;
            for (int64_t i = 0; i < Din; i++) {
                if (dW) dW[o * Din + i] += g * x[r * Din + i];
                if (dx) dx[r * Din + i] += g * W[o * Din + i];
            }
        }
}

void dgnn_tattn_reference(float *out, dgnn_tattn_dinput *din, dgnn_tattn_params *dp,
                          const float *dout_grad, const dgnn_tattn_input *in,
                          const dgnn_tattn_params *p, const dgnn_tattn_cfg *c,
                          const float *att_mask, const float *drop_mask) {
    const int64_t B = in->B, P = in->off[in->B];
    const int64_t E = dgnn_tattn_E(c), Hd = dgnn_tattn_hidden(c), H = c->heads, dh = E / H;
    const int64_t dn = c->dn, de = c->de, dt = c->dt;
    const int64_t dq = dn + dt, dk = dn + de + dt, dc = E + dn;
    const int tgn = c->kind == DGNN_ATTN_TGN;
    const double scale = tgn ? 1.0 / sqrt((double)dh) : 1.0;

    float *xq = dgnn_xcalloc((size_t)(B * dq + 1), sizeof(float));
    float *xk = dgnn_xcalloc((size_t)(P * dk + 1), sizeof(float));
    float *q = dgnn_xcalloc((size_t)(B * E + 1), sizeof(float));
    float *k = dgnn_xcalloc((size_t)(P * E + 1), sizeof(float));
    float *v = dgnn_xcalloc((size_t)(P * E + 1), sizeof(float));
    float *att = dgnn_xcalloc((size_t)(P * H + 1), sizeof(float));
    float *lg = dgnn_xcalloc((size_t)(P * H + 1), sizeof(float));
    float *o = dgnn_xcalloc((size_t)(B * E + 1), sizeof(float));
    float *cat = dgnn_xcalloc((size_t)(B * dc + 1), sizeof(float));
    float *z = dgnn_xcalloc((size_t)(B * Hd + 1), sizeof(float));
    float *r = dgnn_xcalloc((size_t)(B * Hd + 1), sizeof(float));
    float *mean = dgnn_xcalloc((size_t)(B + 1), sizeof(float));
    float *rstd = dgnn_xcalloc((size_t)(B + 1), sizeof(float));

    /* Explicit query and key rows. */
    for (int64_t i = 0; i < B; i++) {
        memcpy(xq + i * dq, in->h_root + i * dn, (size_t)dn * sizeof(float));
        if (dt) memcpy(xq + i * dq + dn, in->te0, (size_t)dt * sizeof(float));
    }
    for (int64_t pp = 0; pp < P; pp++) {
        float *x = xk + pp * dk;
        memcpy(x, in->h_nbr + (int64_t)in->nbr_row[pp] * dn, (size_t)dn * sizeof(float));
        if (de) {
            int64_t er = in->edge_row ? in->edge_row[pp] : pp;
            memcpy(x + dn, in->e_feat + er * de, (size_t)de * sizeof(float));
        }
        if (dt) memcpy(x + dn + de, in->te + pp * dt, (size_t)dt * sizeof(float));
    }
    ref_linear(q, xq, p->Wq, p->bq, B, dq, E);
    ref_linear(k, xk, p->Wk, p->bk, P, dk, E);
    ref_linear(v, xk, p->Wv, p->bv, P, dk, E);

    /* Attention, per root and head, in double. */
    for (int64_t i = 0; i < B; i++) {
        int64_t p0 = in->off[i], p1 = in->off[i + 1];
        for (int64_t h = 0; h < H; h++) {
            double mx = -INFINITY, sum = 0;
            for (int64_t pp = p0; pp < p1; pp++) {
                double s = 0;
                for (int64_t cc = 0; cc < dh; cc++) s += (double)q[i * E + h * dh + cc] * k[pp * E + h * dh + cc];
                s *= scale;
                if (!tgn && s < 0) s *= 0.2;
                lg[pp * H + h] = (float)s;
                if (s > mx) mx = s;
            }
            for (int64_t pp = p0; pp < p1; pp++) sum += exp((double)lg[pp * H + h] - mx);
            for (int64_t pp = p0; pp < p1; pp++) {
                double a = exp((double)lg[pp * H + h] - mx) / sum;
                att[pp * H + h] = (float)a;
                double aw = att_mask ? a * att_mask[pp * H + h] : a;
                for (int64_t cc = 0; cc < dh; cc++) o[i * E + h * dh + cc] += (float)(aw * v[pp * E + h * dh + cc]);
            }
        }
    }
    float *a = dgnn_xcalloc((size_t)(B * E + 1), sizeof(float));
    if (tgn) ref_linear(a, o, p->Wo, p->bo, B, E, E);
    else memcpy(a, o, (size_t)(B * E) * sizeof(float));
    for (int64_t i = 0; i < B; i++) {
        int has = in->off[i + 1] > in->off[i];
        for (int64_t j = 0; j < E; j++) cat[i * dc + j] = has ? a[i * E + j] : 0.0f;
        for (int64_t j = 0; j < dn; j++) cat[i * dc + E + j] = in->h_root[i * dn + j];
    }
    free(a);
    ref_linear(z, cat, p->W1, p->b1, B, dc, Hd);
    for (int64_t i = 0; i < B * Hd; i++) {
        float x = (!tgn && drop_mask) ? z[i] * drop_mask[i] : z[i];
        r[i] = x > 0 ? x : 0;
    }
    if (tgn) ref_linear(out, r, p->W2, p->b2, B, Hd, c->dout);
    else dgnn_layernorm_forward(out, mean, rstd, r, p->ln_g, p->ln_b, B, c->dout);

    if (dout_grad) {
        float *dr = dgnn_xcalloc((size_t)(B * Hd + 1), sizeof(float));
        float *dcat = dgnn_xcalloc((size_t)(B * dc + 1), sizeof(float));
        float *do_ = dgnn_xcalloc((size_t)(B * E + 1), sizeof(float));
        float *dqv = dgnn_xcalloc((size_t)(B * E + 1), sizeof(float));
        float *dkv = dgnn_xcalloc((size_t)(P * E + 1), sizeof(float));
        float *dvv = dgnn_xcalloc((size_t)(P * E + 1), sizeof(float));
        float *dxq = dgnn_xcalloc((size_t)(B * dq + 1), sizeof(float));
        float *dxk = dgnn_xcalloc((size_t)(P * dk + 1), sizeof(float));
        float *a_in = dgnn_xcalloc((size_t)(B * E + 1), sizeof(float));
        if (tgn) ref_linear_bwd(dr, dp->W2, dp->b2, dout_grad, r, p->W2, B, Hd, c->dout);
        else dgnn_layernorm_backward(dr, dp->ln_g, dp->ln_b, dout_grad, r, p->ln_g, mean, rstd, B, c->dout);
        for (int64_t i = 0; i < B * Hd; i++) {
            float m = (!tgn && drop_mask) ? drop_mask[i] : 1.0f;
            dr[i] = r[i] > 0 ? dr[i] * m : 0;
        }
        ref_linear_bwd(dcat, dp->W1, dp->b1, dr, cat, p->W1, B, dc, Hd);
        for (int64_t i = 0; i < B; i++) {
            int has = in->off[i + 1] > in->off[i];
            for (int64_t j = 0; j < E; j++) a_in[i * E + j] = has ? dcat[i * dc + j] : 0.0f;
            if (din->h_root)
                for (int64_t j = 0; j < dn; j++) din->h_root[i * dn + j] += dcat[i * dc + E + j];
        }
        if (tgn) ref_linear_bwd(do_, dp->Wo, dp->bo, a_in, o, p->Wo, B, E, E);
        else memcpy(do_, a_in, (size_t)(B * E) * sizeof(float));
        for (int64_t i = 0; i < B; i++) {
            int64_t p0 = in->off[i], p1 = in->off[i + 1];
            for (int64_t h = 0; h < H; h++) {
                double dot = 0;
                for (int64_t pp = p0; pp < p1; pp++) {
                    double g = 0;
                    for (int64_t cc = 0; cc < dh; cc++) g += (double)do_[i * E + h * dh + cc] * v[pp * E + h * dh + cc];
                    if (att_mask) g *= att_mask[pp * H + h];
                    dot += att[pp * H + h] * g;
                }
                for (int64_t pp = p0; pp < p1; pp++) {
                    double g = 0, a = att[pp * H + h], aw = att_mask ? a * att_mask[pp * H + h] : a;
                    for (int64_t cc = 0; cc < dh; cc++) g += (double)do_[i * E + h * dh + cc] * v[pp * E + h * dh + cc];
                    if (att_mask) g *= att_mask[pp * H + h];
                    double ds = a * (g - dot);
                    ds *= tgn ? scale : (lg[pp * H + h] > 0 ? 1.0 : 0.2);
                    for (int64_t cc = 0; cc < dh; cc++) {
                        dvv[pp * E + h * dh + cc] += (float)(aw * do_[i * E + h * dh + cc]);
                        dkv[pp * E + h * dh + cc] += (float)(ds * q[i * E + h * dh + cc]);
                        dqv[i * E + h * dh + cc] += (float)(ds * k[pp * E + h * dh + cc]);
                    }
                }
            }
        }
        ref_linear_bwd(dxq, dp->Wq, dp->bq, dqv, xq, p->Wq, B, dq, E);
        ref_linear_bwd(dxk, dp->Wk, dp->bk, dkv, xk, p->Wk, P, dk, E);
        ref_linear_bwd(dxk, dp->Wv, dp->bv, dvv, xk, p->Wv, P, dk, E);
        for (int64_t i = 0; i < B; i++) {
            if (din->h_root)
                for (int64_t j = 0; j < dn; j++) din->h_root[i * dn + j] += dxq[i * dq + j];
            if (din->te0)
                for (int64_t j = 0; j < dt; j++) din->te0[j] += dxq[i * dq + dn + j];
        }
        for (int64_t pp = 0; pp < P; pp++) {
            const float *d = dxk + pp * dk;
            if (din->h_nbr)
                for (int64_t j = 0; j < dn; j++) din->h_nbr[(int64_t)in->nbr_row[pp] * dn + j] += d[j];
            if (de && din->e_feat) {
                int64_t er = in->edge_row ? in->edge_row[pp] : pp;
                for (int64_t j = 0; j < de; j++) din->e_feat[er * de + j] += d[dn + j];
            }
            if (din->te)
                for (int64_t j = 0; j < dt; j++) din->te[pp * dt + j] += d[dn + de + j];
        }
        free(dr); free(dcat); free(do_); free(dqv); free(dkv); free(dvv); free(dxq); free(dxk);
        free(a_in);
    }
    free(xq); free(xk); free(q); free(k); free(v); free(att); free(lg); free(o); free(cat);
    free(z); free(r); free(mean); free(rstd);
}
