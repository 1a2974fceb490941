/* layernorm.c: torch.nn.LayerNorm over the last dimension, with affine weight and
 * bias (TGL normalises its attention output and JODIE's/APAN's memories with it).
 *
 * Statistics are accumulated in double: rows are short (C ~ 100-200), so the cost is
 * nothing, and the variance E[(x - mean)^2] is computed in a second pass rather than
 * as E[x^2] - mean^2, which cancels catastrophically for rows with a large mean. */
#include <math.h>

#include "dgnn/nn.h"

void dgnn_layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *g,
                            const float *b, int64_t N, int64_t C) {
#pragma omp parallel for if (N * C > 32768)
    for (int64_t i = 0; i < N; i++) {
        const float *x = inp + i * C;
        double m = 0;
        for (int64_t c = 0; c < C; c++) m += x[c];
        m /= (double)C;
        double v = 0;
        for (int64_t c = 0; c < C; c++) {
            double d = x[c] - m;
            v += d * d;
        }
        v /= (double)C; /* biased variance, as torch */
        float s = (float)(1.0 / sqrt(v + DGNN_LAYERNORM_EPS));
        float mf = (float)m;
        float *y = out + i * C;
        for (int64_t c = 0; c < C; c++) {
            float n = (x[c] - mf) * s;
            y[c] = n * (g ? g[c] : 1.0f) + (b ? b[c] : 0.0f);
        }
        mean[i] = mf;
        rstd[i] = s;
    }
}

void dgnn_layernorm_backward(float *dinp, float *dg, float *db, const float *dout, const float *inp,
                             const float *g, const float *mean, const float *rstd, int64_t N,
                             int64_t C) {
    /* dinp = rstd * (dn - mean(dn) - n * mean(dn * n)) with n the normalised input and
     * dn = dout * g (llm.c's layernorm_backward). */
    if (dinp) {
#pragma omp parallel for if (N * C > 32768)
        for (int64_t i = 0; i < N; i++) {
            const float *x = inp + i * C, *dy = dout + i * C;
            float m = mean[i], s = rstd[i];
            double a = 0, bsum = 0;
            for (int64_t c = 0; c < C; c++) {
                double dn = (double)dy[c] * (g ? g[c] : 1.0f);
                a += dn;
                bsum += dn * ((x[c] - m) * s);
            }
            a /= (double)C;
            bsum /= (double)C;
            float *dx = dinp + i * C;
            for (int64_t c = 0; c < C; c++) {
                double dn = (double)dy[c] * (g ? g[c] : 1.0f);
                double n = (x[c] - m) * s;
                dx[c] += (float)(s * (dn - a - n * bsum));
            }
        }
    }
    if (dg || db) {
        /* Reduction over rows in a fixed order; parallel over column blocks. */
        const int64_t CB = 32;
#pragma omp parallel for if (N * C > 32768)
        for (int64_t c0 = 0; c0 < C; c0 += CB) {
            int64_t c1 = c0 + CB < C ? c0 + CB : C;
            for (int64_t i = 0; i < N; i++) {
                const float *x = inp + i * C, *dy = dout + i * C;
                float m = mean[i], s = rstd[i];
                for (int64_t c = c0; c < c1; c++) {
                    if (dg) dg[c] += dy[c] * ((x[c] - m) * s);
                    if (db) db[c] += dy[c];
                }
            }
        }
    }
}
