/* cuda.h: the CUDA backend (built only with -DDGNN_CUDA=ON; src/nn/cuda/). Issue 14 grows
 * it into the GPU path of the memory-based models; so far it holds what every GPU op
 * stands on: device discovery, a device context (device, stream, cuBLAS handle), device
 * buffers and copies, and the dense product that mirrors nn.h's dgnn_gemm. Each GPU op is
 * tested against its CPU reference in tests/cuda/ (which skip without a GPU).
 *
 * NOT YET VERIFIED ON HARDWARE beyond the saxpy seed: the context, buffers and
 * dgnn_cuda_gemm compile here and in CI, and tests/cuda/test_cuda.c checks them against
 * dgnn_gemm when a GPU is present (docs/results.md says when that last ran).
 *
 * Errors follow base.h: a status (0, or DGNN_EDEVICE / DGNN_ENOMEM / DGNN_EINVAL) and a
 * message naming the CUDA or cuBLAS error and the call. Pointers called `d*` are device
 * memory; everything else is host memory. */
#ifndef DGNN_CUDA_H
#define DGNN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when there is no driver or no device). */
int dgnn_cuda_device_count(void);
/* Name of device i into buf; returns 0 on success. */
int dgnn_cuda_device_name(int i, char *buf, int cap);
/* y = a * x + y on the device for n floats (host arrays in and out); 0 on success,
 * -1 on any CUDA error (message on stderr). */
int dgnn_cuda_saxpy(float a, const float *x, float *y, int64_t n);

/* ---- the device context ---- */
typedef struct dgnn_cuda dgnn_cuda; /* one device, one stream, one cuBLAS handle */

/* Opens device `device` (0-based): DGNN_EDEVICE with a message when there is no such
 * device (or no driver). cuBLAS runs in full FP32 (no TF32), so products compare with
 * the CPU's. Free with dgnn_cuda_free (NULL is a no-op). */
int dgnn_cuda_init(dgnn_cuda **out, int device, dgnn_err *err);
void dgnn_cuda_free(dgnn_cuda *c);
/* The device's memory in use by this process and its total, in bytes (cudaMemGetInfo). */
int dgnn_cuda_mem_info(dgnn_cuda *c, size_t *used, size_t *total, dgnn_err *err);

/* ---- device buffers and copies (on the context's stream; dgnn_cuda_sync waits) ---- */
/* *dptr = bytes of device memory (bytes 0: a NULL pointer); DGNN_ENOMEM names `what`. */
int dgnn_cuda_alloc(dgnn_cuda *c, void **dptr, size_t bytes, const char *what, dgnn_err *err);
void dgnn_cuda_release(dgnn_cuda *c, void *dptr);
int dgnn_cuda_upload(dgnn_cuda *c, void *dst, const void *src, size_t bytes, dgnn_err *err);
int dgnn_cuda_download(dgnn_cuda *c, void *dst, const void *dsrc, size_t bytes, dgnn_err *err);
int dgnn_cuda_sync(dgnn_cuda *c, dgnn_err *err);

/* ---- dense products ----
 * dC (M, N) = op(dA) op(dB) + beta dC on the device, row-major, with nn.h's dgnn_gemm's
 * meaning of every argument (transA, transB, lda, ldb, ldc; K = 0 gives dC = beta dC).
 * One cublasSgemm on the context's stream (asynchronous). */
int dgnn_cuda_gemm(dgnn_cuda *c, int transA, int transB, int64_t M, int64_t N, int64_t K, const float *dA,
                   int64_t lda, const float *dB, int64_t ldb, float beta, float *dC, int64_t ldc, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
