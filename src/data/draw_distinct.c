/* draw_distinct.c: uniform draws without replacement from [0, U) minus a set
 * (draw_distinct.h). Two ways, chosen by size, so that a batch of 200 from a stream of
 * 18k edges costs O(200), and a tiny graph, where most values are excluded, still
 * terminates quickly. */
#include "draw_distinct.h"
#include "dgnn/edgeset.h"

#include <stdlib.h>

int dgnn_draw_distinct(int64_t *out, int64_t m, int64_t U, int64_t n_excl, dgnn_excluded_fn excluded,
                       const void *ctx, dgnn_rng *r, dgnn_err *err) {
    if (m <= 0) return DGNN_OK;
    DGNN_ASSERT(U >= m);
    if (U <= 4 * (m + n_excl)) {
        int64_t *all = malloc((size_t)U * sizeof(int64_t)), n = 0;
        if (!all) return dgnn_err_nomem(err, dgnn_size_mul(U, 8), "a list of %lld candidates", (long long)U);
        for (int64_t x = 0; x < U; x++)
            if (!excluded(ctx, x)) all[n++] = x;
        DGNN_ASSERT(n >= m);
        for (int64_t i = 0; i < m; i++) { /* partial Fisher-Yates: all[0..i] are the picks */
            int64_t j = i + (int64_t)dgnn_rng_below(r, (uint64_t)(n - i));
            int64_t v = all[j];
            all[j] = all[i];
            all[i] = v;
            out[i] = v;
        }
        free(all);
        return DGNN_OK;
    }
    dgnn_edgeset chosen;
    dgnn_edgeset_init(&chosen);
    int rc = dgnn_edgeset_reserve(&chosen, m, err);
    for (int64_t i = 0; i < m && !rc;) {
        int64_t x = (int64_t)dgnn_rng_below(r, (uint64_t)U);
        if (excluded(ctx, x)) continue;
        int fresh = dgnn_edgeset_add(&chosen, x, NULL, err);
        if (fresh < 0) rc = fresh;
        else if (fresh) out[i++] = x;
    }
    dgnn_edgeset_free(&chosen);
    return rc;
}
