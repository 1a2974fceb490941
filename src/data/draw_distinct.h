/* draw_distinct.h: m distinct draws from [0, U) minus an excluded set, uniformly without
 * replacement (src/data/draw_distinct.c); what DyGLib's samplers and TGB's lists
 * (eval_neg.c, eval_neg_tgb.c) both need. Private to src/data. */
#ifndef DGNN_DRAW_DISTINCT_H
#define DGNN_DRAW_DISTINCT_H

#include "dgnn/base.h"

/* 1 when x is excluded. */
typedef int (*dgnn_excluded_fn)(const void *ctx, int64_t x);

/* out (m) = m distinct values of [0, U) that excluded() rejects not, uniformly without
 * replacement, from r. The caller guarantees that at least m values are allowed;
 * n_excl bounds how many of [0, U) are excluded. When U is small beside m + n_excl
 * (U <= 4 (m + n_excl)), the allowed values are listed and a partial Fisher-Yates
 * shuffle picks m of them; otherwise values are drawn and redrawn while excluded or
 * already drawn (then at least 3/4 of the draws succeed), so the cost is O(m + n_excl),
 * never O(U). DGNN_ENOMEM on failure. */
int dgnn_draw_distinct(int64_t *out, int64_t m, int64_t U, int64_t n_excl, dgnn_excluded_fn excluded,
                       const void *ctx, dgnn_rng *r, dgnn_err *err);

#endif
