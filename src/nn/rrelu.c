/* rrelu.c: randomized leaky ReLU as torch.nn.RReLU, the activation EvolveGCN's reference
 * code uses between its GCN layers. In training each non-positive element gets its own
 * slope drawn uniform in [lower, upper]; in eval the slope is the fixed mean
 * (lower + upper) / 2 (torch's F.leaky_relu with that slope).
 *
 * x <= 0 takes the random slope and x > 0 passes through, as torch's rrelu_with_noise;
 * the gradient at exactly 0 is therefore the slope, as there.
 *
 * Random draws: one u64 from the caller's generator gives a key; element i's slope comes
 * from a hash of (key, i), so the result is the same for any thread count and the
 * caller's generator advances by exactly one step per call. */
#include "dgnn/nn.h"

void dgnn_rrelu_forward(float *y, float *slope, const float *x, int64_t n, float lower, float upper, int training,
                        dgnn_rng *rng) {
    if (!training) {
        const float a = 0.5f * (lower + upper);
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t i = 0; i < n; i++) {
            float v = x[i], s = v > 0.0f ? 1.0f : a;
            slope[i] = s;
            y[i] = v * s;
        }
        return;
    }
    const uint64_t key = dgnn_rng_u64(rng);
    const double width = (double)upper - (double)lower;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) {
        float v = x[i], s = 1.0f;
        if (!(v > 0.0f)) {
            /* 53 high bits of the hash -> uniform double in [0, 1) */
            double u = (double)(dgnn_hash64(key + (uint64_t)i * 0x9E3779B97F4A7C15ull) >> 11) * 0x1.0p-53;
            s = (float)((double)lower + u * width);
        }
        slope[i] = s;
        y[i] = v * s;
    }
}

void dgnn_rrelu_backward(float *dx, const float *dy, const float *slope, int64_t n) {
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) dx[i] += dy[i] * slope[i];
}
