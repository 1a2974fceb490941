/* cusparse.h, FAKE: part of the host emulation of dgnn's CUDA layer (tests/hostemu/;
 * hostemu.cpp says what it is and is not). NOT cuSPARSE: only the handle type that
 * src/nn/cuda/cuda_internal.h's context holds. The emulation's sparse products are the
 * CPU's (hostemu_snap.cpp emulates spmm.cu's ops with spmm.h's), so no cuSPARSE call is
 * emulated, the emulated context leaves the handle NULL and an emulated dgnn_cuda_csr
 * has no descriptor or workspace. */
#ifndef DGNN_HOSTEMU_CUSPARSE_H
#define DGNN_HOSTEMU_CUSPARSE_H

#include "cuda_runtime.h"

typedef struct hostemu_sparse *cusparseHandle_t;

#endif
