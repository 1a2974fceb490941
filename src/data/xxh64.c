/* xxh64.c: the checksum of the .dgnn format and of checkpoints: XXH64, seed 0, streaming
 * (xxh64.h), and its one-shot form dgnn_bin_checksum (binfmt.h). The same function as
 * `xxhsum -H1` and python's xxhash.xxh64, so a section can be checked from outside.
 * Four independent multiply-rotate lanes over 32-byte stripes keep the multiplier
 * busy (~10 GB/s), so verifying a file costs about as much as reading it once. */
#include "xxh64.h"

#include <string.h>

#include "dgnn/binfmt.h"

#define XP1 11400714785074694791ULL
#define XP2 14029467366897019727ULL
#define XP3 1609587929392839161ULL
#define XP4 9650029242287828579ULL
#define XP5 2870177450012600261ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t rd64(const unsigned char *p) { uint64_t x; memcpy(&x, p, 8); return x; }
static inline uint32_t rd32(const unsigned char *p) { uint32_t x; memcpy(&x, p, 4); return x; }
static inline uint64_t xround(uint64_t acc, uint64_t in) { return rotl64(acc + in * XP2, 31) * XP1; }
static inline uint64_t xmerge(uint64_t acc, uint64_t v) { return (acc ^ xround(0, v)) * XP1 + XP4; }

void xxh64_init(xxh64_state *s) {
    memset(s, 0, sizeof *s);
    s->v[0] = XP1 + XP2;
    s->v[1] = XP2;
    s->v[2] = 0;
    s->v[3] = (uint64_t)0 - XP1;
}

void xxh64_update(xxh64_state *s, const void *data, size_t len) {
    const unsigned char *p = data, *end = p + len;
    s->total += len;
    if (s->nbuf + len < 32) {
        if (len) memcpy(s->buf + s->nbuf, p, len);
        s->nbuf += len;
        return;
    }
    if (s->nbuf) { /* complete the pending stripe */
        size_t fill = 32 - s->nbuf;
        memcpy(s->buf + s->nbuf, p, fill);
        p += fill;
        for (int i = 0; i < 4; i++) s->v[i] = xround(s->v[i], rd64(s->buf + 8 * i));
        s->nbuf = 0;
    }
    uint64_t v0 = s->v[0], v1 = s->v[1], v2 = s->v[2], v3 = s->v[3];
    while (end - p >= 32) {
        v0 = xround(v0, rd64(p));
        v1 = xround(v1, rd64(p + 8));
        v2 = xround(v2, rd64(p + 16));
        v3 = xround(v3, rd64(p + 24));
        p += 32;
    }
    s->v[0] = v0, s->v[1] = v1, s->v[2] = v2, s->v[3] = v3;
    s->nbuf = (size_t)(end - p);
    if (s->nbuf) memcpy(s->buf, p, s->nbuf);
}

uint64_t xxh64_digest(const xxh64_state *s) {
    uint64_t h;
    if (s->total >= 32) {
        h = rotl64(s->v[0], 1) + rotl64(s->v[1], 7) + rotl64(s->v[2], 12) + rotl64(s->v[3], 18);
        for (int i = 0; i < 4; i++) h = xmerge(h, s->v[i]);
    } else {
        h = s->v[2] + XP5; /* v[2] holds the seed (0) */
    }
    h += s->total;
    const unsigned char *p = s->buf, *end = p + s->nbuf; /* the tail: 8-, 4-, 1-byte steps */
    for (; end - p >= 8; p += 8) h = rotl64(h ^ xround(0, rd64(p)), 27) * XP1 + XP4;
    if (end - p >= 4) {
        h = rotl64(h ^ ((uint64_t)rd32(p) * XP1), 23) * XP2 + XP3;
        p += 4;
    }
    for (; p < end; p++) h = rotl64(h ^ (*p * XP5), 11) * XP1;
    h ^= h >> 33;
    h *= XP2;
    h ^= h >> 29;
    h *= XP3;
    h ^= h >> 32;
    return h;
}

uint64_t dgnn_bin_checksum(const void *data, size_t len) {
    xxh64_state s;
    xxh64_init(&s);
    xxh64_update(&s, data, len);
    return xxh64_digest(&s);
}
