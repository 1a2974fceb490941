/* rng.c: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
 * Chosen for speed and a 256-bit state; every random choice in dgnn draws from a
 * dgnn_rng passed in by the caller, so one seed gives one result. */
#include "dgnn/base.h"

#include <math.h>

uint64_t dgnn_hash64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void dgnn_rng_seed(dgnn_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x += 0x9e3779b97f4a7c15ULL;
        r->s[i] = dgnn_hash64(x);
    }
}

void dgnn_rng_seed2(dgnn_rng *r, uint64_t seed, uint64_t stream) {
    /* mix the stream index in before seeding, so nearby streams are unrelated */
    dgnn_rng_seed(r, dgnn_hash64(seed) ^ dgnn_hash64(stream * 0xd1342543de82ef95ULL + 1));
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t dgnn_rng_u64(dgnn_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t dgnn_rng_below(dgnn_rng *r, uint64_t n) {
    DGNN_ASSERT(n > 0);
    /* Lemire's nearly-divisionless method: unbiased bounded integers. */
    uint64_t x = dgnn_rng_u64(r);
    __uint128_t m = (__uint128_t)x * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        uint64_t thresh = -n % n;
        while (l < thresh) {
            x = dgnn_rng_u64(r);
            m = (__uint128_t)x * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double dgnn_rng_uniform(dgnn_rng *r) {
    return (double)(dgnn_rng_u64(r) >> 11) * 0x1.0p-53;
}

double dgnn_rng_normal(dgnn_rng *r) {
    double u1 = dgnn_rng_uniform(r), u2 = dgnn_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300; /* log(0) guard */
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
