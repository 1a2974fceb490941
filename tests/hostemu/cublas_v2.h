/* cublas_v2.h, FAKE: part of the host emulation of dgnn's CUDA layer (tests/hostemu/;
 * hostemu.cpp says what it is and is not). NOT cuBLAS: only the handle type that
 * src/nn/cuda/cuda_internal.h's context holds. The emulation's products are the CPU's
 * (nn.h's ops, OpenBLAS), so no cuBLAS call is emulated. */
#ifndef DGNN_HOSTEMU_CUBLAS_V2_H
#define DGNN_HOSTEMU_CUBLAS_V2_H

#include "cuda_runtime.h"

typedef struct hostemu_blas *cublasHandle_t;

#endif
