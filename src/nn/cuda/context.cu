// context.cu: the CUDA backend's device context, buffers and copies (include/dgnn/cuda.h).
// Errors become a status and a message in the caller's dgnn_err (errors.cu).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "cuda_internal.h"

extern "C" int dgnn_cuda_init(dgnn_cuda **out, int device, dgnn_err *err) {
    *out = nullptr;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    if (device < 0 || device >= n)
        return dgnn_cuda_fail(err, DGNN_EDEVICE,
                              "--device cuda:%d: this machine has %d CUDA device%s (or no driver); use --device cpu",
                              device, n, n == 1 ? "" : "s");
    dgnn_cuda *c = (dgnn_cuda *)calloc(1, sizeof *c);
    if (!c) return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the CUDA context");
    c->device = device;
    int rc = dgnn_cuda_check(cudaSetDevice(device), "cudaSetDevice", err);
    if (!rc) rc = dgnn_cuda_check(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate", err);
    if (!rc) { /* the stream-ordered temporaries (TopK, the metrics' sort: cudaMallocAsync) keep their
                  memory in the device's pool between calls instead of handing it back at every
                  sync; not fatal where the pool cannot be set */
        cudaMemPool_t pool;
        if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
            uint64_t keep = UINT64_MAX;
            (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        }
        (void)cudaGetLastError();
    }
    if (!rc && cublasCreate(&c->blas) != CUBLAS_STATUS_SUCCESS) {
        c->blas = nullptr; /* nothing for dgnn_cuda_free to destroy */
        rc = dgnn_cuda_fail(err, DGNN_EDEVICE, "cuBLAS: cublasCreate failed on device %d", device);
    }
    if (!rc && (cublasSetStream(c->blas, c->stream) != CUBLAS_STATUS_SUCCESS ||
                cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS))
        rc = dgnn_cuda_fail(err, DGNN_EDEVICE, "cuBLAS: setting the stream or FP32 math mode failed");
    if (!rc) { /* the sparse products' handle (spmm.cu), on the same stream */
        cusparseStatus_t s = cusparseCreate(&c->sparse);
        if (s != CUSPARSE_STATUS_SUCCESS) {
            c->sparse = nullptr; /* nothing for dgnn_cuda_free to destroy */
            rc = dgnn_cuda_fail(err, DGNN_EDEVICE, "cuSPARSE: cusparseCreate failed on device %d: %s", device,
                                cusparseGetErrorString(s));
        } else if ((s = cusparseSetStream(c->sparse, c->stream)) != CUSPARSE_STATUS_SUCCESS) {
            rc = dgnn_cuda_fail(err, DGNN_EDEVICE, "cuSPARSE: setting the stream failed: %s", cusparseGetErrorString(s));
        }
    }
    if (rc) {
        dgnn_cuda_free(c);
        return rc;
    }
    *out = c;
    return DGNN_OK;
}

extern "C" void dgnn_cuda_free(dgnn_cuda *c) {
    if (!c) return;
    if (c->sparse) cusparseDestroy(c->sparse);
    if (c->blas) cublasDestroy(c->blas);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

extern "C" void *dgnn_cuda_stream_handle(dgnn_cuda *c) { return (void *)c->stream; }

extern "C" int dgnn_cuda_bus_id(dgnn_cuda *c, char *buf, int cap, dgnn_err *err) {
    return dgnn_cuda_check(cudaDeviceGetPCIBusId(buf, cap, c->device), "cudaDeviceGetPCIBusId", err);
}

extern "C" int dgnn_cuda_mem_info(dgnn_cuda *c, size_t *used, size_t *total, dgnn_err *err) {
    size_t free_b = 0, total_b = 0;
    int rc = dgnn_cuda_check(cudaSetDevice(c->device), "cudaSetDevice", err);
    if (!rc) rc = dgnn_cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", err);
    if (rc) return rc;
    *used = total_b - free_b, *total = total_b;
    return DGNN_OK;
}

/* cudaMalloc does not draw on the pool that keeps the stream-ordered temporaries' memory
 * (dgnn_cuda_init), so where it runs out, the pool's idle memory is handed back to the
 * device (after the stream's work, which may still hold some) and it tries once more */
static void pool_trim(dgnn_cuda *c) {
    cudaMemPool_t pool;
    (void)cudaStreamSynchronize(c->stream);
    if (cudaDeviceGetDefaultMemPool(&pool, c->device) == cudaSuccess) (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
}

extern "C" int dgnn_cuda_alloc(dgnn_cuda *c, void **dptr, size_t bytes, const char *what, dgnn_err *err) {
    *dptr = nullptr;
    if (bytes == 0) return DGNN_OK;
    cudaError_t e = cudaMalloc(dptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        pool_trim(c);
        e = cudaMalloc(dptr, bytes);
    }
    if (e == cudaErrorMemoryAllocation) {
        *dptr = nullptr;
        cudaGetLastError(); /* clear it: the context stays usable */
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of GPU memory: %.1f MiB for %s", (double)bytes / 1048576.0,
                              what);
    }
    return dgnn_cuda_check(e, "cudaMalloc", err);
}

extern "C" void dgnn_cuda_release(dgnn_cuda *c, void *dptr) {
    (void)c;
    if (dptr) cudaFree(dptr);
}

extern "C" int dgnn_cuda_host_alloc(dgnn_cuda *c, void **hptr, size_t bytes, const char *what, dgnn_err *err) {
    (void)c;
    *hptr = nullptr;
    if (bytes == 0) return DGNN_OK;
    const cudaError_t e = cudaMallocHost(hptr, bytes);
    if (e == cudaSuccess) return DGNN_OK;
    *hptr = nullptr;
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* clear it: the context stays usable */
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of pinned host memory: %.1f MiB for %s",
                              (double)bytes / 1048576.0, what);
    }
    return dgnn_cuda_check(e, "cudaMallocHost", err);
}

extern "C" void dgnn_cuda_host_free(dgnn_cuda *c, void *hptr) {
    (void)c;
    if (hptr) cudaFreeHost(hptr);
}

extern "C" int dgnn_cuda_upload(dgnn_cuda *c, void *dst, const void *src, size_t bytes, dgnn_err *err) {
    if (bytes == 0) return DGNN_OK;
    return dgnn_cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream), "cudaMemcpyAsync (to the device)",
                           err);
}

extern "C" int dgnn_cuda_download(dgnn_cuda *c, void *dst, const void *dsrc, size_t bytes, dgnn_err *err) {
    if (bytes == 0) return DGNN_OK;
    return dgnn_cuda_check(cudaMemcpyAsync(dst, dsrc, bytes, cudaMemcpyDeviceToHost, c->stream),
                           "cudaMemcpyAsync (from the device)", err);
}

extern "C" int dgnn_cuda_sync(dgnn_cuda *c, dgnn_err *err) {
    return dgnn_cuda_wait_stream(c, c->stream, "cudaStreamSynchronize", err);
}

extern "C" int dgnn_cuda_zero(dgnn_cuda *c, void *dptr, size_t bytes, dgnn_err *err) {
    if (bytes == 0) return DGNN_OK;
    return dgnn_cuda_check(cudaMemsetAsync(dptr, 0, bytes, c->stream), "cudaMemsetAsync", err);
}

extern "C" int dgnn_cuda_copy(dgnn_cuda *c, void *ddst, const void *dsrc, size_t bytes, dgnn_err *err) {
    if (bytes == 0 || ddst == dsrc) return DGNN_OK;
    return dgnn_cuda_check(cudaMemcpyAsync(ddst, dsrc, bytes, cudaMemcpyDeviceToDevice, c->stream),
                           "cudaMemcpyAsync (on the device)", err);
}
