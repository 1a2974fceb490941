// cuda_internal.h: what the CUDA backend's files share (private to src/nn/cuda).
#ifndef DGNN_CUDA_INTERNAL_H
#define DGNN_CUDA_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "dgnn/cuda.h"

struct dgnn_cuda {
    int device;
    cudaStream_t stream; /* every op and copy of this context runs on it, in order */
    cublasHandle_t blas; /* bound to stream, FP32 math */
};

/* Fills err (code, printf-style message) and returns code. */
int dgnn_cuda_fail(dgnn_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 0 for cudaSuccess; otherwise DGNN_EDEVICE (DGNN_ENOMEM for an allocation failure) with
 * the error's name and the call. */
int dgnn_cuda_check(cudaError_t e, const char *call, dgnn_err *err);

#endif
