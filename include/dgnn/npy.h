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
/* A .npy array of integers (int64 or int32, C order, 1 or 2 dims) read as int64. */
int dgnn_read_npy_i64(const char *path, int64_t **out, int64_t *rows, int64_t *cols, dgnn_err *err);
/* Writes a (rows, cols) C-order array as .npy (float32 / int64), atomically (outfile.h):
 * what --emb-out and the TGB negative lists are saved as. */
int dgnn_write_npy_f32(const char *path, const float *a, int64_t rows, int64_t cols, dgnn_err *err);
int dgnn_write_npy_i64(const char *path, const int64_t *a, int64_t rows, int64_t cols, dgnn_err *err);
/* A 1-d float32 array of shape (n,) (dgnn eval --score-out). */
int dgnn_write_npy_f32_vec(const char *path, const float *a, int64_t n, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
