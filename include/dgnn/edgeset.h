/* edgeset.h: an open-addressing hash set of int64 keys, each numbered in insertion order
 * (src/data/edgeset.c). What DyGLib's samplers index the distinct edges of a stream
 * with, what EdgeBank remembers its pairs in, and the small per-batch sets of the
 * samplers. Keys are arbitrary int64 (an edge is dgnn_edge_key(src, dst)); linear
 * probing, at most half full, grown by doubling. Not thread-safe for writes; finds on a
 * set nobody writes may run in parallel. */
#ifndef DGNN_EDGESET_H
#define DGNN_EDGESET_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t *key; /* (cap) */
    int64_t *id;  /* (cap) insertion number of the key in the slot, -1 = empty */
    int64_t cap;  /* a power of two, or 0 before the first insertion */
    int64_t n;    /* keys held */
} dgnn_edgeset;

/* The key of the directed pair (src, dst): src in the high 32 bits, dst in the low. */
static inline int64_t dgnn_edge_key(int32_t src, int32_t dst) {
    return (int64_t)(((uint64_t)(uint32_t)src << 32) | (uint64_t)(uint32_t)dst);
}

/* An empty set (no allocation). */
void dgnn_edgeset_init(dgnn_edgeset *s);
void dgnn_edgeset_free(dgnn_edgeset *s);
/* Room for n keys without growing. DGNN_ENOMEM on failure (the set is unchanged). */
int dgnn_edgeset_reserve(dgnn_edgeset *s, int64_t n, dgnn_err *err);
/* Inserts key: returns 1 when it is new, 0 when it was there, DGNN_ENOMEM when the table
 * cannot grow. *id (may be NULL) receives the key's insertion number (0, 1, ...). */
int dgnn_edgeset_add(dgnn_edgeset *s, int64_t key, int64_t *id, dgnn_err *err);
/* The insertion number of key, or -1 when it is absent. */
int64_t dgnn_edgeset_find(const dgnn_edgeset *s, int64_t key);
/* Empties the set, keeping its table. */
void dgnn_edgeset_clear(dgnn_edgeset *s);
/* dst (initialised, its content dropped) = a copy of src. DGNN_ENOMEM on failure (dst
 * then empty). */
int dgnn_edgeset_copy(dgnn_edgeset *dst, const dgnn_edgeset *src, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
