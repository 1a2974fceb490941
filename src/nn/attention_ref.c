/* attention_ref.c: the plain reference of the temporal attention layer (nn.h's
 * dgnn_tattn_reference, tests only, DESIGN.md convention 6): every key row [h; e; te]
 * built explicitly, projected with plain loops in double, the attention per root and
 * head as the formula reads, and the same gradients by the chain rule, no BLAS. The fast
 * layer (attention.c) is tested against it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"

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

/* row of h_root of root i (nn.h: root_row) */
#define RR(i) (in->root_row ? (int64_t)in->root_row[i] : (i))

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
        memcpy(xq + i * dq, in->h_root + RR(i) * dn, (size_t)dn * sizeof(float));
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
        for (int64_t j = 0; j < dn; j++) cat[i * dc + E + j] = in->h_root[RR(i) * dn + j];
    }
    free(a);
    ref_linear(z, cat, p->W1, p->b1, B, dc, Hd);
    for (int64_t i = 0; i < B * Hd; i++) {
        float x = (!tgn && drop_mask) ? z[i] * drop_mask[i] : z[i];
        r[i] = x < 0 ? 0 : x;
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
                for (int64_t j = 0; j < dn; j++) din->h_root[RR(i) * dn + j] += dcat[i * dc + E + j];
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
                for (int64_t j = 0; j < dn; j++) din->h_root[RR(i) * dn + j] += dxq[i * dq + j];
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
