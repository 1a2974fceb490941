/* cusparse.h, FAKE: part of the host emulation of dgnn's CUDA layer (tests/hostemu/;
 * hostemu.cpp says what it is and is not). NOT cuSPARSE: only the handle type that
 * src/nn/cuda/cuda_internal.h's context holds. The emulation runs no sparse product on
 * the device (spmm.cu is not part of it), so no cuSPARSE call is emulated and the
 * emulated context leaves the handle NULL. */
#ifndef DGNN_HOSTEMU_CUSPARSE_H
#define DGNN_HOSTEMU_CUSPARSE_H

#include "cuda_runtime.h"

typedef struct hostemu_sparse *cusparseHandle_t;

#endif
