/* feat_npy.h (private to src/data): the edge and node feature .npy files that sit beside a
 * dataset's csv, as TGL's folders (read_tgl.c) and TGN/DyGLib's ml_NAME files
 * (read_dyglib.c) keep them. Both readers read the pair the same way and refuse a width
 * above DGNN_MAX_DIM with one message, naming the file. */
#ifndef DGNN_FEAT_NPY_H
#define DGNN_FEAT_NPY_H

#include "dgnn/base.h"

/* Reads efile into *efeat (*erows, *ecols) and nfile into *nfeat (*nrows, *ncols), each
 * only when its path is not NULL (the outputs of a NULL path are left as they are), then
 * fails with DGNN_EFORMAT when either is wider than DGNN_MAX_DIM (the edge file named
 * first). The arrays are malloc'd and the caller's to free, also on failure. */
int dgnn_feat_npy_read(const char *efile, float **efeat, int64_t *erows, int64_t *ecols, const char *nfile,
                       float **nfeat, int64_t *nrows, int64_t *ncols, dgnn_err *err);

#endif
