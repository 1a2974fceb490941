/* xxh64.h (private to src/data): XXH64 with seed 0, streaming (xxh64.c). The .dgnn
 * format's section and header checksums (binfmt.c), the event table's content hash
 * (events.c) and, through dgnn_bin_checksum (binfmt.h), the checkpoints and the node state
 * all use it. Below binfmt.c and events.c, so that neither calls the other back. */
#ifndef DGNN_XXH64_H
#define DGNN_XXH64_H

#include <stddef.h>
#include <stdint.h>

/* A running hash: four lanes over 32-byte stripes, the pending partial stripe, the length. */
typedef struct {
    uint64_t v[4];
    uint64_t total;
    unsigned char buf[32];
    size_t nbuf;
} xxh64_state;

void xxh64_init(xxh64_state *s);
void xxh64_update(xxh64_state *s, const void *data, size_t len);
/* The hash of everything appended so far (s is not changed: more may follow). */
uint64_t xxh64_digest(const xxh64_state *s);

#endif
