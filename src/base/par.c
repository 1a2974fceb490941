/* par.c: cost-balanced shares of a loop for the calling OpenMP thread (par.h). */
#include "dgnn/par.h"

#include <omp.h>
#include <string.h>

void dgnn_par_cols(int64_t n, int64_t g, int64_t *lo, int64_t *hi) {
    const int64_t T = omp_get_num_threads(), t = omp_get_thread_num();
    if (g < 1) g = 1;
    const int64_t units = (n + g - 1) / g; /* whole blocks of g, the last one short */
    const int64_t u0 = units * t / T, u1 = units * (t + 1) / T;
    *lo = u0 * g < n ? u0 * g : n;
    *hi = t == T - 1 ? n : (u1 * g < n ? u1 * g : n);
}

/* The first item i with off[i] + c i >= target (off non-decreasing, so the cost is). */
static int64_t first_at(const int64_t *off, int64_t B, double c, double target) {
    int64_t a = 0, b = B; /* the answer is in [a, b] */
    while (a < b) {
        const int64_t m = a + (b - a) / 2;
        if ((double)(off[m] - off[0]) + c * (double)m >= target) b = m;
        else a = m + 1;
    }
    return a;
}

void dgnn_par_items(const int64_t *off, int64_t B, double c, int64_t *lo, int64_t *hi) {
    const int64_t T = omp_get_num_threads(), t = omp_get_thread_num();
    if (T == 1 || B <= 0) {
        *lo = 0;
        *hi = B > 0 ? B : 0;
        return;
    }
    const double total = (double)(off[B] - off[0]) + c * (double)B;
    *lo = t == 0 ? 0 : first_at(off, B, c, total * (double)t / (double)T);
    *hi = t == T - 1 ? B : first_at(off, B, c, total * (double)(t + 1) / (double)T);
}

#define ZERO_PAR_MIN (1 << 18) /* floats: 1 MB; below, one memset on the calling thread */

void dgnn_zero(float *x, int64_t n) {
    if (n <= 0) return;
#pragma omp parallel if (n > ZERO_PAR_MIN)
    {
        int64_t lo, hi;
        dgnn_par_cols(n, 16, &lo, &hi);
        if (hi > lo) memset(x + lo, 0, (size_t)(hi - lo) * sizeof(float));
    }
}
