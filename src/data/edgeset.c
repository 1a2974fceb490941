/* edgeset.c: the open-addressing int64 set of edgeset.h. Linear probing over a
 * power-of-two table kept at most half full, so a probe sequence stays short; the slot
 * is picked by a 64-bit mix of the key (dgnn_hash64), since raw src<<32|dst keys share
 * their low bits across sources. No deletion: the users only add, find and clear. */
#include "dgnn/edgeset.h"

#include <stdlib.h>
#include <string.h>

void dgnn_edgeset_init(dgnn_edgeset *s) { memset(s, 0, sizeof *s); }

void dgnn_edgeset_free(dgnn_edgeset *s) {
    if (!s) return;
    free(s->key);
    free(s->id);
    memset(s, 0, sizeof *s);
}

/* Places key with its id in a table known to have room and not to hold it. */
static void place(int64_t *key, int64_t *id, int64_t cap, int64_t k, int64_t v) {
    uint64_t m = (uint64_t)cap - 1, p = dgnn_hash64((uint64_t)k) & m;
    while (id[p] >= 0) p = (p + 1) & m;
    key[p] = k;
    id[p] = v;
}

/* Rebuilds the table with cap slots (a power of two, > 2 n). */
static int rehash(dgnn_edgeset *s, int64_t cap, dgnn_err *err) {
    int64_t *key = malloc((size_t)cap * sizeof(int64_t)), *id = malloc((size_t)cap * sizeof(int64_t));
    if (!key || !id) {
        free(key);
        free(id);
        return dgnn_err_nomem(err, dgnn_size_mul(cap, 16), "an edge set of %lld slots", (long long)cap);
    }
    memset(id, 0xff, (size_t)cap * sizeof(int64_t)); /* -1: empty */
    for (int64_t p = 0; p < s->cap; p++)
        if (s->id[p] >= 0) place(key, id, cap, s->key[p], s->id[p]);
    free(s->key);
    free(s->id);
    s->key = key;
    s->id = id;
    s->cap = cap;
    return DGNN_OK;
}

int dgnn_edgeset_reserve(dgnn_edgeset *s, int64_t n, dgnn_err *err) {
    if (n < 0) n = 0;
    if (n > ((int64_t)1 << 60)) return dgnn_err_nomem(err, INT64_MAX, "an edge set of %lld keys", (long long)n);
    int64_t cap = s->cap ? s->cap : 16;
    while (cap < 2 * n) cap *= 2;
    return cap == s->cap ? DGNN_OK : rehash(s, cap, err);
}

int dgnn_edgeset_add(dgnn_edgeset *s, int64_t key, int64_t *id, dgnn_err *err) {
    if (s->cap) {
        uint64_t m = (uint64_t)s->cap - 1;
        for (uint64_t p = dgnn_hash64((uint64_t)key) & m; s->id[p] >= 0; p = (p + 1) & m)
            if (s->key[p] == key) {
                if (id) *id = s->id[p];
                return 0;
            }
    }
    if (2 * (s->n + 1) > s->cap) { /* keep it at most half full: double it */
        int rc = rehash(s, s->cap ? 2 * s->cap : 16, err);
        if (rc) return rc;
    }
    place(s->key, s->id, s->cap, key, s->n);
    if (id) *id = s->n;
    s->n++;
    return 1;
}

int64_t dgnn_edgeset_find(const dgnn_edgeset *s, int64_t key) {
    if (!s->cap) return -1;
    uint64_t m = (uint64_t)s->cap - 1;
    for (uint64_t p = dgnn_hash64((uint64_t)key) & m; s->id[p] >= 0; p = (p + 1) & m)
        if (s->key[p] == key) return s->id[p];
    return -1;
}

void dgnn_edgeset_clear(dgnn_edgeset *s) {
    if (s->cap) memset(s->id, 0xff, (size_t)s->cap * sizeof(int64_t));
    s->n = 0;
}

int dgnn_edgeset_copy(dgnn_edgeset *dst, const dgnn_edgeset *src, dgnn_err *err) {
    if (dst == src) return DGNN_OK;
    dgnn_edgeset_free(dst);
    if (!src->cap) return DGNN_OK;
    dst->key = malloc((size_t)src->cap * sizeof(int64_t));
    dst->id = malloc((size_t)src->cap * sizeof(int64_t));
    if (!dst->key || !dst->id) {
        dgnn_edgeset_free(dst);
        return dgnn_err_nomem(err, dgnn_size_mul(src->cap, 16), "a copy of an edge set of %lld slots",
                              (long long)src->cap);
    }
    memcpy(dst->key, src->key, (size_t)src->cap * sizeof(int64_t));
    memcpy(dst->id, src->id, (size_t)src->cap * sizeof(int64_t));
    dst->cap = src->cap;
    dst->n = src->n;
    return DGNN_OK;
}
