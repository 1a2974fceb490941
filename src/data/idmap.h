/* idmap.h (private to src/data): strings to ids numbered in order of first appearance
 * (idmap.c), what TGB's raw-csv loaders do with their `node_ids` dict (read_tgb.c).
 *
 * Keys are byte strings compared exactly ("7" and "07" are two keys, as Python's dict
 * of str). Open addressing with linear probing over FNV-1a hashes; keys are copied into
 * one growing arena, so memory is one allocation per doubling, not one per key. */
#ifndef DGNN_IDMAP_H
#define DGNN_IDMAP_H

#include "dgnn/base.h"

#include <stddef.h>

typedef struct {
    int64_t count;     /* keys so far = the next id */
    int64_t cap;       /* slots (a power of two), kept at most half full */
    int64_t *slot;     /* (cap) id + 1, or 0 for an empty slot */
    uint64_t *hash;    /* (cap) hash of the key in each slot */
    int64_t *key_off;  /* (count) offset of each id's key in arena */
    int64_t *key_len;  /* (count) */
    char *arena;
    size_t arena_len, arena_cap;
} dgnn_idmap;

void dgnn_idmap_init(dgnn_idmap *m);
void dgnn_idmap_free(dgnn_idmap *m);
/* The id of key (n bytes): its existing id, or count (then count + 1) for a new key.
 * DGNN_ENOMEM (with a message naming what) when out of memory. */
int dgnn_idmap_get(dgnn_idmap *m, const char *key, size_t n, int64_t *id, dgnn_err *err);

#endif
