/* jodie.c: JODIE's time projection of a node embedding, emb = h * (1 + W dt) with W a
 * Linear(1 -> M) (JODIE's NormalLinear, as reused by TGN's "time" embedding and TGL's
 * JODIETimeEmbedding), and the two normalisations of dt used by the reference codes. */
#include <math.h>

#include "dgnn/nn.h"

void dgnn_jodie_dt_tgl(float *dt, const double *t, const double *t_mem, int64_t B) {
    /* TGL: (ts - mem_ts) / (ts + 1). Dividing by the current time keeps dt in [0, 1)
     * for non-negative timestamps whatever the time unit. */
    for (int64_t i = 0; i < B; i++) dt[i] = (float)((t[i] - t_mem[i]) / (t[i] + 1.0));
}

void dgnn_jodie_dt_norm(float *dt, const double *t, const double *t_mem, int64_t B, double mean,
                        double std) {
    double inv = std > 0 ? 1.0 / std : 1.0;
    for (int64_t i = 0; i < B; i++) dt[i] = (float)((t[i] - t_mem[i] - mean) * inv);
}

void dgnn_jodie_init(float *w, float *b, int64_t M, dgnn_rng *rng) {
    /* NormalLinear(1, M): stdv = 1 / sqrt(fan_in) = 1 for weight and bias. */
    dgnn_init_normal(w, M, 0.0f, 1.0f, rng);
    if (b) dgnn_init_normal(b, M, 0.0f, 1.0f, rng);
}

void dgnn_jodie_forward(float *out, const float *h, const float *dt, const float *w, const float *b,
                        int64_t B, int64_t M) {
#pragma omp parallel for if (B * M > 32768)
    for (int64_t i = 0; i < B; i++) {
        float d = dt[i];
        for (int64_t j = 0; j < M; j++)
            out[i * M + j] = h[i * M + j] * (1.0f + d * w[j] + (b ? b[j] : 0.0f));
    }
}

void dgnn_jodie_backward(float *dh, float *dw, float *db, const float *dout, const float *h,
                         const float *dt, const float *w, const float *b, int64_t B, int64_t M) {
    if (dh) {
#pragma omp parallel for if (B * M > 32768)
        for (int64_t i = 0; i < B; i++) {
            float d = dt[i];
            for (int64_t j = 0; j < M; j++)
                dh[i * M + j] += dout[i * M + j] * (1.0f + d * w[j] + (b ? b[j] : 0.0f));
        }
    }
    if (dw || db) {
        /* Reduction over rows in a fixed order; columns are independent. */
        for (int64_t i = 0; i < B; i++) {
            float d = dt[i];
            for (int64_t j = 0; j < M; j++) {
                float g = dout[i * M + j] * h[i * M + j];
                if (dw) dw[j] += g * d;
                if (db) db[j] += g;
            }
        }
    }
}
