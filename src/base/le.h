/* le.h (private): little-endian byte packing for the file headers of the binary
 * formats (.dgnn datasets, checkpoints), independent of the host's byte order. */
#ifndef DGNN_LE_H
#define DGNN_LE_H

#include <stdint.h>

static inline void put32(unsigned char *p, uint32_t x) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(x >> (8 * i)); }
static inline void put64(unsigned char *p, uint64_t x) { for (int i = 0; i < 8; i++) p[i] = (unsigned char)(x >> (8 * i)); }
static inline uint32_t get32(const unsigned char *p) {
    uint32_t x = 0;
    for (int i = 3; i >= 0; i--) x = (x << 8) | p[i];
    return x;
}
static inline uint64_t get64(const unsigned char *p) {
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = (x << 8) | p[i];
    return x;
}

#endif
