/* test_par.c: the cost-balanced thread shares of par.h. For 1..5 threads: the shares
 * cover [0, n) exactly once, in thread order, and are as equal as the cut allows;
 * dgnn_par_items balances cost, not count; dgnn_zero clears every element. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/base.h"
#include "dgnn/par.h"

#define TMAX 5

static void test_cols(int64_t n, int64_t g, int T) {
    int64_t lo[TMAX], hi[TMAX];
    int got = 0;
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        dgnn_par_cols(n, g, &lo[t], &hi[t]);
#pragma omp atomic
        got++;
    }
    CHECK(got == T);
    int ok = lo[0] == 0 && hi[T - 1] == n;
    int64_t most = 0, least = n;
    for (int t = 0; t < T; t++) {
        ok &= lo[t] <= hi[t] && (t == 0 || lo[t] == hi[t - 1]);
        ok &= lo[t] % g == 0 || lo[t] == n; /* cuts at multiples of g */
        most = hi[t] - lo[t] > most ? hi[t] - lo[t] : most;
        least = hi[t] - lo[t] < least ? hi[t] - lo[t] : least;
    }
    CHECK_MSG(ok, "cols n=%lld g=%lld T=%d: the shares must tile [0, n) in order", (long long)n, (long long)g, T);
    /* equal to within one block of g */
    CHECK_MSG(most - least <= g, "cols n=%lld g=%lld T=%d: shares %lld..%lld", (long long)n, (long long)g, T,
              (long long)least, (long long)most);
    /* outside a parallel region: everything */
    int64_t a, b;
    dgnn_par_cols(n, g, &a, &b);
    CHECK(a == 0 && b == n);
}

static void test_items(int T, uint64_t seed) {
    dgnn_rng r;
    dgnn_rng_seed(&r, seed);
    const int64_t B = 600;
    int64_t off[601];
    off[0] = 0;
    for (int64_t i = 0; i < B; i++) /* the first half heavier, as TGN's source roots */
        off[i + 1] = off[i] + (int64_t)dgnn_rng_below(&r, i < B / 2 ? 20 : 5);
    int64_t lo[TMAX], hi[TMAX];
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        dgnn_par_items(off, B, 0.5, &lo[t], &hi[t]);
    }
    int ok = lo[0] == 0 && hi[T - 1] == B;
    double total = (double)off[B] + 0.5 * B, worst = 0;
    for (int t = 0; t < T; t++) {
        ok &= lo[t] <= hi[t] && (t == 0 || lo[t] == hi[t - 1]);
        double cost = (double)(off[hi[t]] - off[lo[t]]) + 0.5 * (double)(hi[t] - lo[t]);
        worst = fmax(worst, fabs(cost - total / T));
    }
    CHECK_MSG(ok, "items T=%d: the shares must tile [0, B) in order", T);
    /* off by at most one item's cost (< 20.5) from an even share */
    CHECK_MSG(worst <= 20.5, "items T=%d: a share is %g from even", T, worst);
    /* a count split would be off by far more here */
    if (T == 2) CHECK((double)off[B / 2] + 0.25 * B - total / 2 > 100);
    /* items without cost: all on the first thread */
    int64_t zero[4] = {0, 0, 0, 0}, l2[TMAX], h2[TMAX];
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        dgnn_par_items(zero, 3, 0.0, &l2[t], &h2[t]);
    }
    int cover = l2[0] == 0 && h2[T - 1] == 3;
    for (int t = 1; t < T; t++) cover &= l2[t] == h2[t - 1];
    CHECK(cover);
}

static void test_zero(int T) {
    const int64_t n = (1 << 18) + 1000; /* above the parallel threshold */
    float *x = dgnn_xmalloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++) x[i] = 1.0f + (float)i;
    omp_set_num_threads(T);
    dgnn_zero(x + 3, n - 6); /* unaligned, and the ends left alone */
    int ok = x[0] == 1 && x[1] == 2 && x[2] == 3 && x[n - 1] == (float)n && x[n - 3] == (float)(n - 2);
    for (int64_t i = 3; i < n - 3; i++) ok &= x[i] == 0.0f;
    CHECK_MSG(ok, "dgnn_zero with %d threads", T);
    free(x);
}

int main(void) {
    for (int T = 1; T <= TMAX; T++) {
        const int64_t ns[] = {0, 1, 7, 16, 172, 516, 1000};
        const int64_t gs[] = {1, 8, 16};
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t j = 0; j < sizeof gs / sizeof gs[0]; j++) test_cols(ns[i], gs[j], T);
        test_items(T, 7 + (uint64_t)T);
        test_zero(T);
    }
    return check_done();
}
