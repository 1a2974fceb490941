/* edgebank.c: EdgeBank with unlimited memory (edgebank.h): the set of directed pairs
 * seen so far, in an edge set (data/edgeset.c). */
#include "dgnn/edgebank.h"
#include "dgnn/edgeset.h"

#include <stdlib.h>

struct dgnn_edgebank {
    dgnn_edgeset pairs;
};

int dgnn_edgebank_init(dgnn_edgebank **out, dgnn_err *err) {
    *out = calloc(1, sizeof **out);
    if (!*out) return dgnn_err_set(err, DGNN_ENOMEM, "EdgeBank: out of memory");
    dgnn_edgeset_init(&(*out)->pairs);
    return DGNN_OK;
}

void dgnn_edgebank_free(dgnn_edgebank *eb) {
    if (!eb) return;
    dgnn_edgeset_free(&eb->pairs);
    free(eb);
}

int dgnn_edgebank_add(dgnn_edgebank *eb, const int32_t *src, const int32_t *dst, int64_t n, dgnn_err *err) {
    for (int64_t i = 0; i < n; i++) {
        int rc = dgnn_edgeset_add(&eb->pairs, dgnn_edge_key(src[i], dst[i]), NULL, err);
        if (rc < 0) return rc;
    }
    return DGNN_OK;
}

void dgnn_edgebank_score(const dgnn_edgebank *eb, const int32_t *src, const int32_t *dst, int64_t n, float *out) {
    for (int64_t i = 0; i < n; i++) out[i] = dgnn_edgeset_find(&eb->pairs, dgnn_edge_key(src[i], dst[i])) >= 0 ? 1.0f : 0.0f;
}

int64_t dgnn_edgebank_size(const dgnn_edgebank *eb) { return eb->pairs.n; }

void dgnn_edgebank_clear(dgnn_edgebank *eb) { dgnn_edgeset_clear(&eb->pairs); }

int dgnn_edgebank_copy(dgnn_edgebank *dst, const dgnn_edgebank *src, dgnn_err *err) {
    return dgnn_edgeset_copy(&dst->pairs, &src->pairs, err);
}
