/* peak.c: the machine's dense-math peak as OpenBLAS reaches it, measured in the same
 * run as a benchmark so that achieved GFLOP/s can be read against it. */
#include <cblas.h>
#include <stdlib.h>

#include "dgnn/nn.h"

double dgnn_sgemm_gflops(int64_t n, double seconds) {
    if (n < 16) n = 16;
    float *a = dgnn_xmalloc((size_t)(n * n) * sizeof(float));
    float *b = dgnn_xmalloc((size_t)(n * n) * sizeof(float));
    float *c = dgnn_xmalloc((size_t)(n * n) * sizeof(float));
    for (int64_t i = 0; i < n * n; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f, c[i] = 0;
    /* one warm-up call (thread pool start, page faults), then as many as fit */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f,
                c, (int)n);
    int64_t calls = 0;
    double t0 = dgnn_now(), t;
    do {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n,
                    0.0f, c, (int)n);
        calls++;
        t = dgnn_now() - t0;
    } while (t < seconds);
    free(a);
    free(b);
    free(c);
    return 2.0 * (double)n * (double)n * (double)n * (double)calls / t / 1e9;
}
