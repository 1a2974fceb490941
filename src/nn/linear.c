/* linear.c: the fully connected layer (out = inp W^T + b through dgnn_gemm, one plain sgemm), the
 * parameter initialisers every model uses, and TGL's edge predictor (the MLP link
 * predictor built from three linear layers).
 *
 * W is (Dout, Din) row-major, PyTorch's layout: the forward product is
 * sgemm(NoTrans, Trans), and both backward products need no transposed copy. */
#include <math.h>
#include <string.h>

#include "dgnn/nn.h"
#include "dgnn/par.h"

/* ---- initialisers ------------------------------------------------------- */

void dgnn_init_uniform(float *x, int64_t n, float lo, float hi, dgnn_rng *rng) {
    for (int64_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * dgnn_rng_uniform(rng));
}

void dgnn_init_normal(float *x, int64_t n, float mean, float std, dgnn_rng *rng) {
    for (int64_t i = 0; i < n; i++) x[i] = (float)(mean + std * dgnn_rng_normal(rng));
}

void dgnn_init_const(float *x, int64_t n, float v) {
    for (int64_t i = 0; i < n; i++) x[i] = v;
}

void dgnn_init_xavier_uniform(float *W, int64_t Din, int64_t Dout, dgnn_rng *rng) {
    float a = (float)sqrt(6.0 / (double)(Din + Dout));
    dgnn_init_uniform(W, Din * Dout, -a, a, rng);
}

void dgnn_init_xavier_normal(float *W, int64_t Din, int64_t Dout, dgnn_rng *rng) {
    dgnn_init_normal(W, Din * Dout, 0.0f, (float)sqrt(2.0 / (double)(Din + Dout)), rng);
}

void dgnn_linear_init(float *W, float *b, int64_t Din, int64_t Dout, dgnn_rng *rng) {
    /* torch: kaiming_uniform_(a = sqrt(5)) on W gives bound 1/sqrt(fan_in); the bias
     * uses the same bound. */
    float a = Din > 0 ? (float)(1.0 / sqrt((double)Din)) : 0.0f;
    dgnn_init_uniform(W, Din * Dout, -a, a, rng);
    if (b) dgnn_init_uniform(b, Dout, -a, a, rng);
}

/* ---- linear --------------------------------------------------------------- */

void dgnn_linear_forward(float *out, const float *inp, const float *W, const float *b, int64_t B,
                         int64_t Din, int64_t Dout) {
    if (B <= 0 || Dout <= 0) return;
    DGNN_ASSERT(out != inp);
    if (b) {
#pragma omp parallel for if (B * Dout > 65536)
        for (int64_t i = 0; i < B; i++) memcpy(out + i * Dout, b, (size_t)Dout * sizeof(float));
    }
    if (Din <= 0) { /* sgemm with K = 0 would be legal, but some BLAS check lda >= 1 */
        if (!b) memset(out, 0, (size_t)(B * Dout) * sizeof(float));
        return;
    }
    dgnn_gemm(0, 1, B, Dout, Din, inp, Din, W, Din, b ? 1.0f : 0.0f, out, Dout);
}

void dgnn_linear_backward(float *dinp, float *dW, float *db, const float *dout, const float *inp,
                          const float *W, int64_t B, int64_t Din, int64_t Dout) {
    if (B <= 0 || Dout <= 0) return;
    /* dinp (B, Din) += dout (B, Dout) @ W (Dout, Din); dW (Dout, Din) += dout^T (Dout, B) @
     * inp (B, Din): independent, together */
    dgnn_gemm_op ops[2];
    int n = 0;
    if (dinp && Din > 0) ops[n++] = (dgnn_gemm_op){0, 0, B, Din, Dout, dout, Dout, W, Din, 1.0f, dinp, Din};
    if (dW && Din > 0) ops[n++] = (dgnn_gemm_op){1, 0, Dout, Din, B, dout, Dout, inp, Din, 1.0f, dW, Din};
    if (n) dgnn_gemm_group(ops, n);
    if (db) {
        /* Column sums in row order (fixed order: no dependence on the thread count);
         * parallel over blocks of columns, which are disjoint outputs. */
        const int64_t CB = 64;
#pragma omp parallel if (B * Dout > 65536)
        { /* an equal range of columns per thread (par.h), summed 64 at a time in registers */
            int64_t lo, hi;
            dgnn_par_cols(Dout, 16, &lo, &hi);
            for (int64_t c0 = lo; c0 < hi; c0 += CB) {
                const int64_t m = c0 + CB < hi ? CB : hi - c0;
                float acc[64];
                for (int64_t c = 0; c < m; c++) acc[c] = db[c0 + c];
                for (int64_t i = 0; i < B; i++) {
                    const float *row = dout + i * Dout + c0;
                    for (int64_t c = 0; c < m; c++) acc[c] += row[c];
                }
                for (int64_t c = 0; c < m; c++) db[c0 + c] = acc[c];
            }
        }
    }
}

/* ---- TGL's edge predictor -------------------------------------------------- */

int64_t dgnn_edgepred_layout(dgnn_edgepred_params *p, float *slab, int64_t D, int64_t Hd,
                             int with_bd) {
    int64_t n = 0;
    float *base = slab;
#define TAKE(field, count)                              \
    do {                                                \
        if (p) p->field = base ? base + n : NULL;       \
        n += (count);                                   \
    } while (0)
    TAKE(Ws, Hd * D);
    TAKE(bs, Hd);
    TAKE(Wd, Hd * D);
    if (with_bd) TAKE(bd, Hd);
    else if (p) p->bd = NULL;
    TAKE(Wo, Hd);
    TAKE(bo, 1);
#undef TAKE
    return n;
}

void dgnn_edgepred_init(dgnn_edgepred_params *p, int64_t D, int64_t Hd, dgnn_rng *rng) {
    dgnn_linear_init(p->Ws, p->bs, D, Hd, rng);
    dgnn_linear_init(p->Wd, p->bd, D, Hd, rng);
    dgnn_linear_init(p->Wo, p->bo, Hd, 1, rng);
}

void dgnn_edgepred_forward(float *logits, float *saved, const float *h_src, const float *h_dst,
                           const dgnn_edgepred_params *p, int64_t Be, int64_t nneg, int64_t D,
                           int64_t Hd) {
    int64_t R = (1 + nneg) * Be; /* scored pairs */
    float *hs = saved;           /* (Be, Hd) */
    float *act = saved + Be * Hd;/* (R, Hd) */
    dgnn_linear_forward(hs, h_src, p->Ws, p->bs, Be, D, Hd);
    dgnn_linear_forward(act, h_dst, p->Wd, p->bd, R, D, Hd);
#pragma omp parallel for if (R * Hd > 65536)
    for (int64_t r = 0; r < R; r++) {
        const float *s = hs + (r % Be) * Hd; /* row j*Be + i pairs with source i */
        float *a = act + r * Hd;
        for (int64_t c = 0; c < Hd; c++) {
            /* x < 0 ? 0 : x, not x > 0 ? x : 0: a NaN passes, as through torch's ReLU, so
             * that a model gone NaN gives a NaN loss (the trainer's check) rather than
             * scores all alike, an AP of 0.5 printed as a result */
            float x = a[c] + s[c];
            a[c] = x < 0 ? 0 : x;
        }
    }
    dgnn_linear_forward(logits, act, p->Wo, p->bo, R, Hd, 1);
}

void dgnn_edgepred_backward(float *dh_src, float *dh_dst, dgnn_edgepred_params *dp, float *scratch,
                            const float *dlogits, const float *saved, const float *h_src,
                            const float *h_dst, const dgnn_edgepred_params *p, int64_t Be,
                            int64_t nneg, int64_t D, int64_t Hd) {
    int64_t R = (1 + nneg) * Be;
    const float *act = saved + Be * Hd;
    float *dact = scratch;           /* (R, Hd) */
    float *dhs = scratch + R * Hd;   /* (Be, Hd) */
    memset(dact, 0, (size_t)(R * Hd) * sizeof(float));
    dgnn_linear_backward(dact, dp->Wo, dp->bo, dlogits, act, p->Wo, R, Hd, 1);
#pragma omp parallel for if (R * Hd > 65536)
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < Hd; c++)
            if (!(act[r * Hd + c] > 0)) dact[r * Hd + c] = 0;
    /* The source projection's gradient sums over the positive and every negative that
     * reused it: rows i, Be + i, 2 Be + i, ... (fixed order). */
#pragma omp parallel for if (R * Hd > 65536)
    for (int64_t i = 0; i < Be; i++) {
        float *d = dhs + i * Hd;
        memcpy(d, dact + i * Hd, (size_t)Hd * sizeof(float));
        for (int64_t j = 1; j <= nneg; j++) {
            const float *s = dact + (j * Be + i) * Hd;
            for (int64_t c = 0; c < Hd; c++) d[c] += s[c];
        }
    }
    dgnn_linear_backward(dh_dst, dp->Wd, p->bd ? dp->bd : NULL, dact, h_dst, p->Wd, R, D, Hd);
    dgnn_linear_backward(dh_src, dp->Ws, dp->bs, dhs, h_src, p->Ws, Be, D, Hd);
}
