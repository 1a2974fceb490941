/* edgebank.h: EdgeBank (Poursafaei et al. 2022), the "seen before" baseline of DyGLib
 * and TGB, with unlimited memory and time window: an edge scores 1 if the pair
 * (src, dst) occurred in any event added so far, else 0. Directed pairs, as the
 * references (src -> dst). (src/models/edgebank.c) */
#ifndef DGNN_EDGEBANK_H
#define DGNN_EDGEBANK_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgnn_edgebank dgnn_edgebank;
int dgnn_edgebank_init(dgnn_edgebank **out, dgnn_err *err);
void dgnn_edgebank_free(dgnn_edgebank *eb);
/* Remembers the n pairs (src[i], dst[i]). DGNN_ENOMEM when the table cannot grow. */
int dgnn_edgebank_add(dgnn_edgebank *eb, const int32_t *src, const int32_t *dst, int64_t n, dgnn_err *err);
/* out[i] = 1 if (src[i], dst[i]) was added, else 0. */
void dgnn_edgebank_score(const dgnn_edgebank *eb, const int32_t *src, const int32_t *dst, int64_t n, float *out);
/* Distinct pairs remembered. */
int64_t dgnn_edgebank_size(const dgnn_edgebank *eb);
/* Clears the table / copies one into another of the same kind (a protocol's pass that
 * must start from the same memory), DGNN_ENOMEM on failure. */
void dgnn_edgebank_clear(dgnn_edgebank *eb);
int dgnn_edgebank_copy(dgnn_edgebank *dst, const dgnn_edgebank *src, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
