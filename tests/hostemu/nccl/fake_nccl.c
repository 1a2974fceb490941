/* fake_nccl.c: a stand-in for NCCL (libnccl-hostemu.so) for the host emulation of dgnn's
 * CUDA layer (tests/hostemu/, whose nccl.h declares these calls). Tests only: NOT NVIDIA's
 * NCCL. The emulation's "device" buffers are host memory, so each collective is the MPI
 * collective over MPI_COMM_WORLD's duplicate; that lets the suite run comm_dev.c's NCCL
 * path (the unique id's broadcast, the communicator, the calls, their counts and offsets)
 * between ranks on a machine without GPUs.
 *
 * It checks what a misuse would break on NCCL: a communicator whose size or rank is not
 * MPI's, ranks that were given different unique ids (the broadcast of rank 0's id forgotten),
 * a data type or operation this stand-in does not do, a NULL stream or buffer, a group ended
 * that was never started. Broadcasts inside a group run at its end, in the order issued.
 * HOSTEMU_NCCL_LOG=1: each rank writes its calls' counts to stderr when the communicator
 * is destroyed ("hostemu NCCL rank R: A all-reduces (F floats), B broadcasts (G floats)"). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../nccl.h"

struct hostemu_nccl_comm {
    MPI_Comm comm;
    int rank, nranks;
    long long allreduces, allreduce_floats, broadcasts, broadcast_floats;
};

typedef struct {
    const void *send;
    void *recv;
    size_t count;
    int root;
    ncclComm_t comm;
} pending_bcast;

static int group_depth;
static pending_bcast *pending;
static size_t n_pending, cap_pending;

static const char magic[] = "hostemu-nccl";

/* the emulation's access to its device buffers (hostemu.cpp), from the command that loaded
 * this library: enter, then each buffer named (an abort naming the call when it is not
 * device memory), then leave (the buffers closed again) */
static struct {
    int loaded;
    void (*enter)(void);
    void (*need)(const void *, size_t, const char *, const char *);
    void (*leave)(void);
} emu;

static int emu_load(void) {
    if (!emu.loaded) {
        *(void **)&emu.enter = dlsym(RTLD_DEFAULT, "hostemu_nccl_enter");
        *(void **)&emu.need = dlsym(RTLD_DEFAULT, "hostemu_nccl_need");
        *(void **)&emu.leave = dlsym(RTLD_DEFAULT, "hostemu_nccl_leave");
        emu.loaded = emu.enter && emu.need && emu.leave ? 1 : -1;
        if (emu.loaded < 0)
            fprintf(stderr, "hostemu NCCL: the loading command does not export hostemu_nccl_* (not an emulation build "
                            "with ENABLE_EXPORTS)\n");
    }
    return emu.loaded > 0;
}

const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclInvalidArgument: return "invalid argument (hostemu NCCL)";
    case ncclInvalidUsage: return "invalid usage (hostemu NCCL)";
    case ncclSystemError: return "system error (hostemu NCCL: an MPI call failed)";
    default: return "error (hostemu NCCL)";
    }
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    if (!id) return ncclInvalidArgument;
    memset(id, 0, sizeof *id);
    memcpy(id->internal, magic, sizeof magic);
    const long long tag = (long long)getpid() * 1000003LL + (long long)rand();
    memcpy(id->internal + 32, &tag, sizeof tag);
    return ncclSuccess;
}

static uint64_t id_hash(const ncclUniqueId *id) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) h = (h ^ (unsigned char)id->internal[i]) * 1099511628211ULL;
    return h;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
    int inited = 0, size = 0, me = 0;
    if (!comm) return ncclInvalidArgument;
    *comm = NULL;
    MPI_Initialized(&inited);
    if (!inited) return ncclInvalidUsage;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (nranks != size || rank != me) {
        fprintf(stderr, "hostemu NCCL: ncclCommInitRank(nranks %d, rank %d) in an MPI job of %d ranks at rank %d\n",
                nranks, rank, size, me);
        return ncclInvalidArgument;
    }
    /* every rank must hold rank 0's id */
    unsigned long long h = id_hash(&id), lo = 0, hi = 0;
    if (MPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return ncclSystemError;
    if (lo != hi || memcmp(id.internal, magic, sizeof magic) != 0) {
        fprintf(stderr, "hostemu NCCL: rank %d: the ranks were given different unique ids\n", me);
        return ncclInvalidUsage;
    }
    struct hostemu_nccl_comm *c = calloc(1, sizeof *c);
    if (!c) return ncclSystemError;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c->comm) != MPI_SUCCESS) {
        free(c);
        return ncclSystemError;
    }
    c->rank = me, c->nranks = size;
    *comm = c;
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    const char *log = getenv("HOSTEMU_NCCL_LOG");
    if (log && strcmp(log, "1") == 0)
        fprintf(stderr, "hostemu NCCL rank %d: %lld all-reduces (%lld floats), %lld broadcasts (%lld floats)\n",
                comm->rank, comm->allreduces, comm->allreduce_floats, comm->broadcasts, comm->broadcast_floats);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free(&comm->comm);
    free(comm);
    return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
    if (!comm || !stream || (count > 0 && (!send || !recv)) || count > (size_t)INT32_MAX) return ncclInvalidArgument;
    if (type != ncclFloat || op != ncclSum) return ncclInvalidArgument;
    if (!emu_load()) return ncclSystemError;
    comm->allreduces++, comm->allreduce_floats += (long long)count;
    if (count == 0) return ncclSuccess;
    emu.enter();
    emu.need(send, count * sizeof(float), "ncclAllReduce", "sendbuff");
    emu.need(recv, count * sizeof(float), "ncclAllReduce", "recvbuff");
    const int rc = MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)count, MPI_FLOAT, MPI_SUM, comm->comm);
    emu.leave();
    return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError;
}

static ncclResult_t bcast_now(const pending_bcast *b) {
    if (b->count == 0) return ncclSuccess;
    const size_t bytes = b->count * sizeof(float);
    emu.enter();
    emu.need(b->recv, bytes, "ncclBroadcast", "recvbuff");
    if (b->root == b->comm->rank) emu.need(b->send, bytes, "ncclBroadcast", "sendbuff");
    if (b->root == b->comm->rank && b->send != b->recv) memcpy(b->recv, b->send, bytes);
    const int rc = MPI_Bcast(b->recv, (int)b->count, MPI_FLOAT, b->root, b->comm->comm);
    emu.leave();
    return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError;
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                           cudaStream_t stream) {
    if (!comm || !stream || (count > 0 && !recv) || count > (size_t)INT32_MAX) return ncclInvalidArgument;
    if (type != ncclFloat || root < 0 || root >= comm->nranks) return ncclInvalidArgument;
    if (root == comm->rank && count > 0 && !send) return ncclInvalidArgument;
    if (!emu_load()) return ncclSystemError;
    comm->broadcasts++, comm->broadcast_floats += (long long)count;
    const pending_bcast b = {send, recv, count, root, comm};
    if (group_depth == 0) return bcast_now(&b);
    if (n_pending == cap_pending) {
        cap_pending = cap_pending ? 2 * cap_pending : 16;
        pending_bcast *p = realloc(pending, cap_pending * sizeof *p);
        if (!p) return ncclSystemError;
        pending = p;
    }
    pending[n_pending++] = b;
    return ncclSuccess;
}

ncclResult_t ncclGroupStart(void) {
    group_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void) {
    if (group_depth == 0) return ncclInvalidUsage;
    if (--group_depth > 0) return ncclSuccess;
    ncclResult_t r = ncclSuccess;
    for (size_t i = 0; i < n_pending && r == ncclSuccess; i++) r = bcast_now(&pending[i]);
    n_pending = 0;
    return r;
}
