/* npy.h: NumPy .npy arrays (src/data/npy.c): what the TGL reader loads its edge and node
 * features from. */
#ifndef DGNN_NPY_H
#define DGNN_NPY_H

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A .npy array of float32 or float64 (C order, 1 or 2 dims) read as float32.
 * *out is malloc'd (caller frees); rows/cols receive the shape (cols = 1 for 1-d). */
int dgnn_read_npy(const char *path, float **out, int64_t *rows, int64_t *cols, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
