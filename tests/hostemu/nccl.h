/* nccl.h, FAKE: part of the host emulation of dgnn's CUDA layer (tests/hostemu/). NOT
 * NVIDIA's NCCL: the types and calls that src/cluster/comm_dev.c names, so that its NCCL
 * path compiles over the emulation and runs against the stand-in library of
 * tests/hostemu/nccl/fake_nccl.c (libnccl-hostemu.so, which does each collective with MPI
 * on the emulation's host-memory "device" buffers). This folder comes first on the include
 * path of comm_dev.c in a DGNN_CUDA_HOSTEMU build only.
 *
 * The values below are the stand-in's own; only comm_dev.c and fake_nccl.c see them. */
#ifndef DGNN_HOSTEMU_NCCL_H
#define DGNN_HOSTEMU_NCCL_H

#include <stddef.h>

#include "cuda_runtime.h"

/* the library comm_dev.c loads (dlopen) in an emulation build: the stand-in, never a real
 * libnccl.so.2 that the machine may have */
#define DGNN_NCCL_LIBRARY "libnccl-hostemu.so"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
} ncclResult_t;

typedef enum { ncclFloat = 7, ncclFloat32 = 7 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef struct hostemu_nccl_comm *ncclComm_t;

ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
const char *ncclGetErrorString(ncclResult_t result);

#ifdef __cplusplus
}
#endif
#endif
