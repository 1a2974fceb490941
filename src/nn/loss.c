/* loss.c: binary cross-entropy with logits, the link-prediction loss of TGN and TGL
 * (torch.nn.BCEWithLogitsLoss with mean reduction). */
#include <math.h>

#include "dgnn/nn.h"

float dgnn_bce_logits_forward(float *losses, const float *logits, const float *labels, int64_t n) {
    if (n <= 0) return 0.0f;
    double sum = 0;
    /* Serial sum in index order: n is a batch (hundreds), and a fixed order keeps the
     * loss bit-identical across thread counts. */
    for (int64_t i = 0; i < n; i++) {
        double x = logits[i], y = labels[i];
        /* max(x,0) - x y + log(1 + e^{-|x|}): the exponent is never positive, so exp
         * cannot overflow, and log1p keeps precision when e^{-|x|} is tiny. */
        double l = (x > 0 ? x : 0) - x * y + log1p(exp(-fabs(x)));
        if (losses) losses[i] = (float)l;
        sum += l;
    }
    return (float)(sum / (double)n);
}

void dgnn_bce_logits_backward(float *dlogits, const float *logits, const float *labels, int64_t n,
                              float dloss) {
    if (n <= 0) return;
    float s = dloss / (float)n;
    for (int64_t i = 0; i < n; i++) dlogits[i] += s * (dgnn_sigmoidf(logits[i]) - labels[i]);
}
