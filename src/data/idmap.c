/* idmap.c: strings to first-appearance ids (idmap.h). */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

void dgnn_idmap_init(dgnn_idmap *m) { memset(m, 0, sizeof *m); }

void dgnn_idmap_free(dgnn_idmap *m) {
    free(m->slot);
    free(m->hash);
    free(m->key_off);
    free(m->key_len);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

static uint64_t fnv1a(const char *s, size_t n) {
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Doubles the slot table (and the per-id arrays), re-inserting every id. */
static int grow(dgnn_idmap *m, dgnn_err *err) {
    int64_t cap = m->cap ? m->cap * 2 : 1024;
    int64_t *slot = calloc((size_t)cap, sizeof *slot);
    uint64_t *hash = malloc((size_t)cap * sizeof *hash);
    int64_t *off = realloc(m->key_off, (size_t)(cap / 2) * sizeof *off);
    if (off) m->key_off = off;
    int64_t *len = realloc(m->key_len, (size_t)(cap / 2) * sizeof *len);
    if (len) m->key_len = len;
    if (!slot || !hash || !off || !len) {
        free(slot);
        free(hash);
        return dgnn_err_set(err, DGNN_ENOMEM, "out of memory numbering %lld node names", (long long)m->count);
    }
    for (int64_t i = 0; i < m->cap; i++) {
        if (!m->slot[i]) continue;
        int64_t j = (int64_t)(m->hash[i] & (uint64_t)(cap - 1));
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = m->slot[i];
        hash[j] = m->hash[i];
    }
    free(m->slot);
    free(m->hash);
    m->slot = slot;
    m->hash = hash;
    m->cap = cap;
    return DGNN_OK;
}

int dgnn_idmap_get(dgnn_idmap *m, const char *key, size_t n, int64_t *id, dgnn_err *err) {
    if ((m->count + 1) * 2 > m->cap) {
        int rc = grow(m, err);
        if (rc) return rc;
    }
    uint64_t h = fnv1a(key, n);
    int64_t j = (int64_t)(h & (uint64_t)(m->cap - 1));
    for (; m->slot[j]; j = (j + 1) & (m->cap - 1)) {
        int64_t k = m->slot[j] - 1;
        if (m->hash[j] == h && (size_t)m->key_len[k] == n && memcmp(m->arena + m->key_off[k], key, n) == 0) {
            *id = k;
            return DGNN_OK;
        }
    }
    if (m->arena_len + n > m->arena_cap) {
        size_t cap = m->arena_cap ? m->arena_cap : 4096;
        while (cap < m->arena_len + n) cap *= 2;
        char *a = realloc(m->arena, cap);
        if (!a) return dgnn_err_set(err, DGNN_ENOMEM, "out of memory numbering %lld node names", (long long)m->count);
        m->arena = a;
        m->arena_cap = cap;
    }
    if (n) memcpy(m->arena + m->arena_len, key, n);
    m->key_off[m->count] = (int64_t)m->arena_len;
    m->key_len[m->count] = (int64_t)n;
    m->arena_len += n;
    m->slot[j] = m->count + 1;
    m->hash[j] = h;
    *id = m->count++;
    return DGNN_OK;
}
