/* snap_loss.c: the losses of the snapshot-based models. EvolveGCN's weighted
 * cross-entropy (Cross_Entropy.py: class weights from the config, mean over samples) for
 * link prediction and edge/node classification, and mean squared error for the
 * PyG-Temporal node regression tasks.
 *
 * Both reductions sum fixed blocks of samples in parallel and then the block sums in
 * order, in double: the loss is the same for every thread count. */
#include "dgnn/nn.h"

#include <math.h>
#include <stdlib.h>

#define LOSS_BLOCK 2048 /* samples per partial sum */

/* log sum_c exp(z_c), after subtracting the row max so that no exp overflows (and the
 * largest term is exactly 1, so the log argument is >= 1) */
static double logsumexp(const float *z, int64_t C) {
    float m = z[0];
    for (int64_t c = 1; c < C; c++)
        if (z[c] > m) m = z[c];
    double s = 0.0;
    for (int64_t c = 0; c < C; c++) s += exp((double)z[c] - (double)m);
    return (double)m + log(s);
}

double dgnn_wce_forward(const float *logits, const int32_t *labels, const float *class_w, int64_t M, int64_t C) {
    if (M <= 0) return 0.0;
    int64_t nb = (M + LOSS_BLOCK - 1) / LOSS_BLOCK;
    double *part = dgnn_xmalloc((size_t)nb * sizeof(double));
#pragma omp parallel for schedule(static) if (M * C > 65536)
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * LOSS_BLOCK, hi = lo + LOSS_BLOCK < M ? lo + LOSS_BLOCK : M;
        double acc = 0.0;
        for (int64_t i = lo; i < hi; i++) {
            int32_t y = labels[i];
            DGNN_ASSERT(y >= 0 && y < C);
            const float *z = logits + i * C;
            double w = class_w ? class_w[y] : 1.0;
            acc += w * (logsumexp(z, C) - (double)z[y]);
        }
        part[b] = acc;
    }
    double total = 0.0;
    for (int64_t b = 0; b < nb; b++) total += part[b];
    free(part);
    return total / (double)M;
}

void dgnn_wce_backward(float *dlogits, float dloss, const float *logits, const int32_t *labels, const float *class_w,
                       int64_t M, int64_t C) {
    if (M <= 0) return;
#pragma omp parallel for schedule(static) if (M * C > 65536)
    for (int64_t i = 0; i < M; i++) {
        int32_t y = labels[i];
        DGNN_ASSERT(y >= 0 && y < C);
        const float *z = logits + i * C;
        float *dz = dlogits + i * C;
        double lse = logsumexp(z, C);
        double scale = (double)dloss * (class_w ? class_w[y] : 1.0) / (double)M;
        for (int64_t c = 0; c < C; c++) {
            double prob = exp((double)z[c] - lse);
            dz[c] += (float)(scale * (prob - (c == y ? 1.0 : 0.0)));
        }
    }
}

double dgnn_mse_forward(const float *pred, const float *target, int64_t n) {
    if (n <= 0) return 0.0;
    int64_t nb = (n + LOSS_BLOCK - 1) / LOSS_BLOCK;
    double *part = dgnn_xmalloc((size_t)nb * sizeof(double));
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = b * LOSS_BLOCK, hi = lo + LOSS_BLOCK < n ? lo + LOSS_BLOCK : n;
        double acc = 0.0;
        for (int64_t i = lo; i < hi; i++) {
            double d = (double)pred[i] - (double)target[i];
            acc += d * d;
        }
        part[b] = acc;
    }
    double total = 0.0;
    for (int64_t b = 0; b < nb; b++) total += part[b];
    free(part);
    return total / (double)n;
}

void dgnn_mse_backward(float *dpred, float dloss, const float *pred, const float *target, int64_t n) {
    if (n <= 0) return;
    const double scale = 2.0 * (double)dloss / (double)n;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; i++) dpred[i] += (float)(scale * ((double)pred[i] - (double)target[i]));
}
