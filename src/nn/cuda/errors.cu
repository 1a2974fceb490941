// errors.cu: the CUDA backend's error helpers (cuda_internal.h): a status and a message in
// the caller's dgnn_err (base.h), written here directly so that this library does not link
// back into dgnn_core. Host code only: the host emulation (tests/hostemu) compiles it too.
#include <cstdarg>
#include <cstdio>

#include "cuda_internal.h"

int dgnn_cuda_fail(dgnn_err *err, int code, const char *fmt, ...) {
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* A failed call's error is also the runtime's last error until read: cleared here, so that
 * the next op's launch check (cudaGetLastError) does not report it as its own (a sticky
 * error, one that breaks the context, stays and fails every later call anyway). */
int dgnn_cuda_check(cudaError_t e, const char *call, dgnn_err *err) {
    if (e == cudaSuccess) return DGNN_OK;
    (void)cudaGetLastError();
    const int code = e == cudaErrorMemoryAllocation ? DGNN_ENOMEM : DGNN_EDEVICE;
    return dgnn_cuda_fail(err, code, "CUDA: %s: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}
