/* attention_core.c: the attention core that TGN's layer (attention.c) and APAN's mailbox
 * attention share: per query, scores against its own variable-length key set (CSR
 * offsets), masked softmax, weighted sum of values, and its backward. */
#include <math.h>
#include <string.h>

#include "dgnn/nn.h"
#include "dgnn/prof.h"

#define PAR_MIN 16384

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
