/* par.h: sharing a loop's work between OpenMP threads by its cost, for the loops whose
 * iterations cost unequal amounts or are few and wide (issue 15: with `schedule(static)`
 * over them, one thread finished early and waited: a column loop of 172 floats in blocks
 * of 32 gave one thread 96 columns and the other 76; per-root attention loops gave the
 * first half of the roots 5-8% more neighbours than the second).
 *
 * Every split depends only on the sizes and the thread count, and each thread's share is
 * a contiguous range whose outputs no other thread writes, so a loop split this way
 * computes the same bits as its serial form.
 *
 *   #pragma omp parallel if (...)
 *   {
 *       int64_t lo, hi;
 *       dgnn_par_cols(C, 8, &lo, &hi);     // this thread's columns
 *       ...
 *   }
 */
#ifndef DGNN_PAR_H
#define DGNN_PAR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's share [lo, hi) of n columns: nearly equal contiguous ranges cut at
 * multiples of g (>= 1), the last thread's ending at n. Outside a parallel region: [0, n). */
void dgnn_par_cols(int64_t n, int64_t g, int64_t *lo, int64_t *hi);

/* The calling thread's share [lo, hi) of B items where item i costs (off[i + 1] - off[i])
 * + c (off: CSR offsets, e.g. a root's neighbour pairs; c >= 0, the cost of an item
 * without pairs): contiguous ranges of nearly equal cost. Outside a parallel region:
 * [0, B). */
void dgnn_par_items(const int64_t *off, int64_t B, double c, int64_t *lo, int64_t *hi);

/* x[0 .. n) = 0, split over the threads when n is large (a few MB of gradients a step). */
void dgnn_zero(float *x, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
