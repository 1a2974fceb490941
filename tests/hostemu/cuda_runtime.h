/* cuda_runtime.h, FAKE: part of the host emulation of dgnn's CUDA layer (tests/hostemu/,
 * -DDGNN_CUDA_HOSTEMU=ON; hostemu.cpp says what the emulation is and is not). NOT the CUDA
 * runtime: just the types and calls that src/nn/cuda/cuda_internal.h and tgn_step.cu name,
 * so that tgn_step.cu compiles as host C++ with g++. This folder comes first on the include
 * path of the emulation's library only; no other target sees it.
 *
 * Everything is synchronous: the emulated ops and copies are done when their call returns,
 * so a stream has nothing to wait for and an event is complete once recorded. The calls
 * still check what they are given (a NULL or destroyed event, a stream of no context), so
 * that a misuse fails here as it would on a GPU. */
#ifndef DGNN_HOSTEMU_CUDA_RUNTIME_H
#define DGNN_HOSTEMU_CUDA_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorNotReady = 600, /* never returned here: every emulated op is done when its call returns */
    cudaErrorInvalidResourceHandle = 400,
} cudaError_t;

typedef struct hostemu_stream *cudaStream_t; /* the emulated context's one stream */
typedef struct hostemu_event *cudaEvent_t;

#define cudaEventDefault 0x00u
#define cudaEventDisableTiming 0x02u
#define cudaStreamNonBlocking 0x01u

/* hostemu.cpp */
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetLastError(void); /* no emulated call leaves an error behind: cudaSuccess */
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaStreamQuery(cudaStream_t s); /* done: a lane's queue runs first, as in its sync */
cudaError_t cudaEventQuery(cudaEvent_t e);

#ifdef __cplusplus
}
#endif
#endif
