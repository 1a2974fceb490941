/* act.c: element-wise layers: ReLU and dropout.
 *
 * Dropout masks are counter-based: mask[i] depends only on (seed, i) through the
 * splitmix64 finaliser, so a mask is the same whatever the number of threads that
 * fill it, and a forward pass can be replayed exactly from its seed. */
#include <string.h>

#include "dgnn/nn.h"

#define PAR_MIN 32768 /* below this many elements a loop is not worth the threads */

void dgnn_relu_forward(float *out, const float *inp, int64_t n) {
#pragma omp parallel for if (n > PAR_MIN)
    /* x < 0 ? 0 : x: a NaN passes, as through torch's ReLU (linear.c's edge predictor) */
    for (int64_t i = 0; i < n; i++) out[i] = inp[i] < 0 ? 0.0f : inp[i];
}

void dgnn_relu_backward(float *dinp, const float *dout, const float *out, int64_t n) {
#pragma omp parallel for if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        if (out[i] > 0) dinp[i] += dout[i];
}

void dgnn_dropout_mask(float *mask, int64_t n, float p, uint64_t seed) {
    DGNN_ASSERT(p >= 0 && p < 1);
    /* Keep when the top 24 bits of the hash are >= p * 2^24: exact to 2^-24. */
    uint64_t thresh = (uint64_t)((double)p * 16777216.0);
    float scale = 1.0f / (1.0f - p);
#pragma omp parallel for if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = dgnn_hash64(seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL);
        mask[i] = (h >> 40) >= thresh ? scale : 0.0f;
    }
}

void dgnn_dropout_forward(float *out, float *mask, const float *inp, int64_t n, float p,
                          dgnn_rng *rng) {
    DGNN_ASSERT(p >= 0 && p < 1);
    if (!rng || p == 0) {
#pragma omp parallel for if (n > PAR_MIN)
        for (int64_t i = 0; i < n; i++) mask[i] = 1.0f;
        if (out != inp) memcpy(out, inp, (size_t)n * sizeof(float));
        return;
    }
    dgnn_dropout_mask(mask, n, p, dgnn_rng_u64(rng));
#pragma omp parallel for if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++) out[i] = inp[i] * mask[i];
}

void dgnn_dropout_backward(float *dinp, const float *dout, const float *mask, int64_t n) {
#pragma omp parallel for if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++) dinp[i] += dout[i] * mask[i];
}
