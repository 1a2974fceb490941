/* feat_npy.c: a dataset's edge and node feature .npy files, read as a pair (feat_npy.h). */
#include "feat_npy.h"

#include "dgnn/events.h"
#include "dgnn/npy.h"

int dgnn_feat_npy_read(const char *efile, float **efeat, int64_t *erows, int64_t *ecols, const char *nfile,
                       float **nfeat, int64_t *nrows, int64_t *ncols, dgnn_err *err) {
    int rc;
    if (efile && (rc = dgnn_read_npy(efile, efeat, erows, ecols, err))) return rc;
    if (nfile && (rc = dgnn_read_npy(nfile, nfeat, nrows, ncols, err))) return rc;
    if (*ecols > DGNN_MAX_DIM || *ncols > DGNN_MAX_DIM)
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: %lld features per row: at most %lld are supported",
                            *ecols > DGNN_MAX_DIM ? efile : nfile, (long long)(*ecols > DGNN_MAX_DIM ? *ecols : *ncols),
                            (long long)DGNN_MAX_DIM);
    return DGNN_OK;
}
