/* feat_npy.c: a dataset's edge and node feature .npy files, read as a pair (feat_npy.h). */
#include "feat_npy.h"

#include "dgnn/events.h"
#include "dgnn/npy.h"

#include <stdlib.h>

void dgnn_feat_npy_init(dgnn_feat_npy *f) {
    *f = (dgnn_feat_npy){.erows = -1, .nrows = -1};
}

int dgnn_feat_npy_read(dgnn_feat_npy *f, dgnn_err *err) {
    int rc;
    if (f->efile && (rc = dgnn_read_npy(f->efile, &f->efeat, &f->erows, &f->ecols, err))) return rc;
    if (f->nfile && (rc = dgnn_read_npy(f->nfile, &f->nfeat, &f->nrows, &f->ncols, err))) return rc;
    if (f->ecols > DGNN_MAX_DIM || f->ncols > DGNN_MAX_DIM)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: %lld features per row: at most %lld are supported",
                            f->ecols > DGNN_MAX_DIM ? f->efile : f->nfile,
                            (long long)(f->ecols > DGNN_MAX_DIM ? f->ecols : f->ncols), (long long)DGNN_MAX_DIM);
    /* (N, 0) is N nodes with no data behind them: 80 bytes could declare 2^31 nodes, for
     * which every consumer would allocate (TGL's reader takes N from the node file). The
     * bound is the one a .dgnn without node data keeps (events.h, binfmt.c). */
    if (f->nfile && f->ncols == 0 && f->nrows > DGNN_MAX_UNSEEN_NODES)
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "%s: shape (%lld, 0) declares %lld nodes with no features: at most %lld nodes without "
                            "node data are taken (give the file its feature columns, or remove it)",
                            f->nfile, (long long)f->nrows, (long long)f->nrows, (long long)DGNN_MAX_UNSEEN_NODES);
    return DGNN_OK;
}

void dgnn_feat_npy_free(dgnn_feat_npy *f) {
    free(f->efile);
    free(f->nfile);
    free(f->efeat);
    free(f->nfeat);
    dgnn_feat_npy_init(f);
}
