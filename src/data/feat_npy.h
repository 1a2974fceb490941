/* feat_npy.h (private to src/data): the edge and node feature .npy files that sit beside a
 * dataset's csv, as TGL's folders (read_tgl.c) and TGN/DyGLib's ml_NAME files
 * (read_dyglib.c) keep them. Both readers find the paths their own way, then read the
 * pair the same way and refuse a width above DGNN_MAX_DIM with one message naming the file. */
#ifndef DGNN_FEAT_NPY_H
#define DGNN_FEAT_NPY_H

#include "dgnn/base.h"

typedef struct {
    char *efile, *nfile;   /* malloc'd paths, set by the reader; NULL: no such file */
    float *efeat;          /* (erows, ecols), or NULL */
    float *nfeat;          /* (nrows, ncols), or NULL */
    int64_t erows, ecols;  /* erows = -1 (and ecols = 0) while no edge file is read */
    int64_t nrows, ncols;  /* likewise for the node file */
} dgnn_feat_npy;

/* No paths, no arrays, rows -1. */
void dgnn_feat_npy_init(dgnn_feat_npy *f);
/* Reads f->efile and f->nfile, each only when it is not NULL, then fails with DGNN_EFORMAT
 * when either is wider than DGNN_MAX_DIM (the edge file named first), or when the node
 * file has no columns and more than DGNN_MAX_UNSEEN_NODES rows. What was read stays
 * in f, also on failure: dgnn_feat_npy_free releases it. */
int dgnn_feat_npy_read(dgnn_feat_npy *f, dgnn_err *err);
/* Frees the paths and the arrays (a reader that keeps an array sets its pointer to NULL
 * first) and re-inits f. */
void dgnn_feat_npy_free(dgnn_feat_npy *f);

#endif
