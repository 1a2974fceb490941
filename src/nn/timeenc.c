/* timeenc.c: the TGAT time encoding cos(dt * w + b) used by TGN, TGL, APAN, DyRep,
 * with learnable frequencies w and phases b (d dims), initialised as TGN/TGL:
 * w = 1 / 10^linspace(0, 9, d), b = 0.
 *
 * Precision: dt is seconds (up to ~1e8 in real datasets) and w[0] = 1, so the phase
 * dt * w + b is formed in double, reduced modulo pi and evaluated by a polynomial in
 * double, so results are right to float rounding (~1e-7) for any dt. (PyTorch forms the phase in float; at dt ~ 1e6 its phase error is
 * ~0.1 rad for w = 1, which only matters for the highest frequencies.)
 *
 * Speed: TGN evaluates this for every sampled (root, neighbour) pair, 600,000 values
 * per batch of its preset, forward and again (sin) backward. libm's cosf/sinf on
 * unreduced arguments cost ~15 ns each there, a large part of the attention layer's
 * time; the branch-free reduction and polynomials below cost a few ns and vectorise. tests/test_nn_time.c checks them against libm's double cos/sin. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/nn.h"
#include "dgnn/par.h"
#include "dgnn/prof.h"
#include "dgnn/vec.h"

/* x = n pi + y with n an integer and |y| <= pi/2; returns y and sets *sign to
 * (-1)^n, so that cos x = sign * cos y and sin x = sign * sin y. Pure double
 * arithmetic without branches or integer conversions, so that loops over it
 * vectorise: rounding to the nearest integer is the 1.5 * 2^52 trick (exact for
 * |v| < 2^51), and the parity of n comes from floor(n / 2) = round(n / 2 - 1/4). */
DGNN_VEC_INLINE double reduce_pi(double x, double *sign) {
    const double MAGIC = 6755399441055744.0;
    const double INV_PI = 0.31830988618379067154;
    /* pi in two parts (the second corrects the first's rounding), so that for |x| up
     * to ~1e8 the reduced argument is off by ~1e-8 at most. */
    const double PI_HI = 3.14159265346825122833;
    const double PI_LO = 1.21542010130123844986e-10;
    double n = (x * INV_PI + MAGIC) - MAGIC;
    double half = (n * 0.5 - 0.25 + MAGIC) - MAGIC;
    *sign = 1.0 - 2.0 * (n - 2.0 * half);
    return (x - n * PI_HI) - n * PI_LO;
}

/* Taylor series of cos and sin on |y| <= pi/2, through y^12 and y^13: the first
 * omitted terms are below 7e-9, well under float rounding. */
DGNN_VEC_INLINE float cos_fast(double x) {
    double sign, y = reduce_pi(x, &sign), z = y * y;
    double c = 1.0 + z * (-1.0 / 2 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 +
               z * (-1.0 / 3628800 + z * (1.0 / 479001600))))));
    return (float)(sign * c);
}

DGNN_VEC_INLINE float sin_fast(double x) {
    double sign, y = reduce_pi(x, &sign), z = y * y;
    double s = y * (1.0 + z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 +
               z * (-1.0 / 39916800 + z * (1.0 / 6227020800.0)))))));
    return (float)(sign * s);
}

void dgnn_timeenc_init(float *w, float *b, int64_t d) {
    for (int64_t j = 0; j < d; j++) {
        double e = d > 1 ? 9.0 * (double)j / (double)(d - 1) : 0.0;
        w[j] = (float)(1.0 / pow(10.0, e));
        if (b) b[j] = 0.0f;
    }
}

/* Rows [i0, i1) of the forward: its inner loop has no branch, so it vectorises (one
 * copy per target, vec.h). */
DGNN_VEC_CLONES
static void timeenc_rows(float *out, const float *dt, const float *w, const float *b, int64_t i0, int64_t i1,
                         int64_t d) {
    for (int64_t i = i0; i < i1; i++) {
        const double t = dt[i];
        float *o = out + i * d;
        /* two copies of the loop so that neither has a branch */
        if (b) {
            for (int64_t j = 0; j < d; j++) o[j] = cos_fast(t * w[j] + b[j]);
        } else {
            for (int64_t j = 0; j < d; j++) o[j] = cos_fast(t * w[j]);
        }
    }
}

#define ROWS 64 /* rows per parallel task */

void dgnn_timeenc_forward(float *out, const float *dt, const float *w, const float *b, int64_t N,
                          int64_t d) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_TIMEENC);
#pragma omp parallel for if (N * d > 16384)
    for (int64_t i0 = 0; i0 < N; i0 += ROWS)
        timeenc_rows(out, dt, w, b, i0, i0 + ROWS < N ? i0 + ROWS : N, d);
    dgnn_prof_end(prof_t);
}

/* Columns [j0, j0 + m) (m <= 16) of the backward over rows [i0, i1): d cos(dt w + b) =
 * -sin(dt w + b) * (dt for w, 1 for b), each column summed in double in row order into
 * aw, ab. */
DGNN_VEC_CLONES
static void timeenc_grad_cols(double *aw, double *ab, const float *dout, const float *dt, const float *w,
                              const float *b, int64_t i0, int64_t i1, int64_t d, int64_t j0, int64_t m) {
    double sw[16] = {0}, sb[16] = {0}, wl[16] = {0}, bl[16] = {0};
    for (int64_t j = 0; j < m; j++) { /* local copies: the inner loop has no branch */
        wl[j] = w[j0 + j];
        bl[j] = b ? b[j0 + j] : 0.0;
    }
    for (int64_t i = i0; i < i1; i++) {
        const double t = dt[i];
        const float *g = dout + i * d + j0;
        for (int64_t j = 0; j < m; j++) {
            double s = -(double)g[j] * sin_fast(t * wl[j] + bl[j]);
            sw[j] += s * t;
            sb[j] += s;
        }
    }
    for (int64_t j = 0; j < m; j++) aw[j] = sw[j], ab[j] = sb[j];
}

/* The backward sums rows in fixed chunks of TROWS, each chunk's column sums left in
 * double and the chunks' sums then added in chunk order, so the result does not depend
 * on the thread count. Each thread takes an equal run of whole chunks (par.h): the rows
 * in order, as the callers wrote them (TGN's attention writes each thread's pairs' rows
 * in order), so a thread mostly reads what its own core wrote. */
#define TROWS 256
#define TCOLS 16

static void dgnn_timeenc_backward_body(float *dw, float *db, const float *dout, const float *dt,
                           const float *w, const float *b, int64_t N, int64_t d) {
    if ((!dw && !db) || N <= 0 || d <= 0) return;
    const int64_t nr = (N + TROWS - 1) / TROWS;
    double *part = dgnn_xmalloc((size_t)(2 * nr * d) * sizeof(double)); /* (nr, 2, d): w's sums, b's */
#pragma omp parallel if (N * d > 16384)
    {
        int64_t r0, r1;
        dgnn_par_cols(nr, 1, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            const int64_t i0 = r * TROWS, i1 = i0 + TROWS < N ? i0 + TROWS : N;
            for (int64_t j0 = 0; j0 < d; j0 += TCOLS)
                timeenc_grad_cols(part + 2 * r * d + j0, part + (2 * r + 1) * d + j0, dout, dt, w, b, i0, i1, d,
                                  j0, j0 + TCOLS < d ? TCOLS : d - j0);
        }
    }
    for (int64_t j = 0; j < d; j++) {
        double sw = 0, sb = 0;
        for (int64_t r = 0; r < nr; r++) sw += part[2 * r * d + j], sb += part[(2 * r + 1) * d + j];
        if (dw) dw[j] += (float)sw;
        if (db) db[j] += (float)sb;
    }
    free(part);
}

void dgnn_timeenc_backward(float *dw, float *db, const float *dout, const float *dt,
                           const float *w, const float *b, int64_t N, int64_t d) {
    const double prof_t = dgnn_prof_begin(DGNN_PROF_TIMEENC);
    dgnn_timeenc_backward_body(dw, db, dout, dt, w, b, N, d);
    dgnn_prof_end(prof_t);
}

