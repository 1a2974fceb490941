/* cuda.h: the CUDA backend (built only with -DDGNN_CUDA=ON; src/nn/cuda/). Issue 14 grows
 * it into the GPU path of the memory-based models; so far it holds what every GPU op
 * stands on: device discovery, a device context (device, stream, cuBLAS handle), device
 * buffers and copies, and the dense product that mirrors nn.h's dgnn_gemm. Each GPU op is
 * tested against its CPU reference in tests/cuda/ (which skip without a GPU).
 *
 * NOT YET VERIFIED ON HARDWARE beyond the saxpy seed: the context, buffers, dgnn_cuda_gemm
 * and the ops below compile here and in CI, and tests/cuda/test_cuda.c checks each against
 * its CPU op when a GPU is present (docs/results.md says when that last ran). No model
 * runs on the GPU yet.
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

/* ---- ops, each the GPU twin of an nn.h op (same arguments and meaning, device arrays;
 * gradients +=; any gradient may be NULL where the CPU op allows it). The sums run in
 * other orders than the CPU's, so results agree within float rounding, not to the bit. ---- */
/* linear.cu: dgnn_linear_forward / _backward. */
int dgnn_cuda_linear_forward(dgnn_cuda *c, float *dout, const float *dinp, const float *dW, const float *db,
                             int64_t B, int64_t Din, int64_t Dout, dgnn_err *err);
int dgnn_cuda_linear_backward(dgnn_cuda *c, float *ddinp, float *ddW, float *ddb, const float *ddout,
                              const float *dinp, const float *dW, int64_t B, int64_t Din, int64_t Dout,
                              dgnn_err *err);
/* gru.cu: dgnn_gru_forward / _backward, the same `saved` (B, 6H) and `scratch` (B, 6H). */
int dgnn_cuda_gru_forward(dgnn_cuda *c, float *dhout, float *dsaved, const float *dx, const float *dh,
                          const float *dW_ih, const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B,
                          int64_t Din, int64_t H, dgnn_err *err);
int dgnn_cuda_gru_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh, float *ddb_ih,
                           float *ddb_hh, float *dscratch, const float *ddhout, const float *dsaved, const float *dx,
                           const float *dh, const float *dW_ih, const float *dW_hh, int64_t B, int64_t Din,
                           int64_t H, dgnn_err *err);
/* timeenc.cu: dgnn_timeenc_forward / _backward. */
int dgnn_cuda_timeenc_forward(dgnn_cuda *c, float *dout, const float *ddt, const float *dw, const float *db, int64_t N,
                              int64_t d, dgnn_err *err);
int dgnn_cuda_timeenc_backward(dgnn_cuda *c, float *ddw, float *ddb, const float *ddout, const float *ddt,
                               const float *dw, const float *db, int64_t N, int64_t d, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
