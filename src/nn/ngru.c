/* ngru.c: the element-wise parts of the node-state GRU of T-GCN and GCRN-GRU (nn.h): the
 * gates' activations, the reset state, the update and their backward, between the products
 * (gemm, the sparse GCN layers) that form the gates' pre-activations. Each output element
 * depends on the same elements of the inputs only, so the thread split never changes a bit;
 * the GPU twins are cuda.h's dgnn_cuda_ngru_* (snap_gates.cu), with the same order of
 * operations in every element. */
#include "dgnn/nn.h"

#include <math.h>

/* the models' threshold: below it a parallel region costs more than the loop */
#define NGRU_PAR(n) ((n) > 65536)

void dgnn_ngru_gate(float *out, const float *x, const float *h, const float *b, int act, int64_t N, int64_t D) {
#pragma omp parallel for schedule(static) if (NGRU_PAR(N * D))
    for (int64_t i = 0; i < N; i++)
        for (int64_t o = 0; o < D; o++) {
            const int64_t k = i * D + o;
            float v = x[k];
            if (h) v += h[k];
            if (b) v += b[o];
            out[k] = act == DGNN_NGRU_TANH ? tanhf(v) : dgnn_sigmoidf(v);
        }
}

void dgnn_ngru_reset(float *HR, const float *H, const float *R, int64_t n) {
#pragma omp parallel for schedule(static) if (NGRU_PAR(n))
    for (int64_t i = 0; i < n; i++) HR[i] = H[i] * R[i];
}

void dgnn_ngru_update(float *Hn, const float *Z, const float *H, const float *Ht, int64_t n) {
#pragma omp parallel for schedule(static) if (NGRU_PAR(n))
    for (int64_t i = 0; i < n; i++) Hn[i] = Z[i] * H[i] + (1.0f - Z[i]) * Ht[i];
}

void dgnn_ngru_update_backward(float *dZp, float *dHtp, float *dH, const float *dHn, const float *Z, const float *H,
                               const float *Ht, int64_t n) {
#pragma omp parallel for schedule(static) if (NGRU_PAR(n))
    for (int64_t i = 0; i < n; i++) {
        const float d = dHn[i], z = Z[i], h = Ht[i];
        if (dZp) dZp[i] += d * (H[i] - h) * z * (1.0f - z);
        if (dHtp) dHtp[i] += d * (1.0f - z) * (1.0f - h * h);
        if (dH) dH[i] += d * z;
    }
}

void dgnn_ngru_reset_backward(float *dH, float *dRp, const float *dHR, const float *R, const float *H, int64_t n) {
#pragma omp parallel for schedule(static) if (NGRU_PAR(n))
    for (int64_t i = 0; i < n; i++) {
        const float r = R[i];
        if (dH) dH[i] += dHR[i] * r;
        if (dRp) dRp[i] += dHR[i] * H[i] * r * (1.0f - r);
    }
}
