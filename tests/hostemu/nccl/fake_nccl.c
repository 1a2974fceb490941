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
 * that was never started. Broadcasts inside a group are submitted at its end, in the order
 * issued. Each collective runs when its stream gets to it: on a lane's stream (cuda.h) it
 * waits in the lane's queue until something waits for the lane (hostemu_lane.cpp), as a
 * collective enqueued on a GPU stream runs when the stream reaches it.
 * HOSTEMU_NCCL_LOG=1: each rank writes its calls' counts to stderr when the communicator
 * is destroyed ("hostemu NCCL rank R: A all-reduces (F floats), B broadcasts (G floats)").
 * HOSTEMU_NCCL_FAIL_INIT=R: ncclCommInitRank fails on rank R only, after the bootstrap the
 * ranks share (as a real one fails where its own device or transport does).
 * HOSTEMU_NCCL_ASYNC_ERROR=R: from rank R's first all-reduce on, ncclCommGetAsyncError
 * reports ncclRemoteError there (as NCCL does once a peer or the network has failed under a
 * collective it can no longer finish). */
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
    int aborted; /* ncclCommAbort: its collectives not yet run are dropped */
    long long allreduces, allreduce_floats, broadcasts, broadcast_floats;
};

typedef struct {
    const void *send;
    void *recv;
    size_t count;
    int root; /* a broadcast's; -1: an all-reduce (sum) */
    ncclComm_t comm;
    cudaStream_t stream;
} pending_call;

static int group_depth;
static pending_call *pending;
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
    void (*defer)(void *, void (*)(void *), void *);
} emu;

static int emu_load(void) {
    if (!emu.loaded) {
        *(void **)&emu.enter = dlsym(RTLD_DEFAULT, "hostemu_nccl_enter");
        *(void **)&emu.need = dlsym(RTLD_DEFAULT, "hostemu_nccl_need");
        *(void **)&emu.leave = dlsym(RTLD_DEFAULT, "hostemu_nccl_leave");
        *(void **)&emu.defer = dlsym(RTLD_DEFAULT, "hostemu_nccl_defer");
        emu.loaded = emu.enter && emu.need && emu.leave && emu.defer ? 1 : -1;
        if (emu.loaded < 0)
            fprintf(stderr, "hostemu NCCL: the loading command does not export hostemu_nccl_* (not an emulation build "
                            "with ENABLE_EXPORTS)\n");
    }
    return emu.loaded > 0;
}

/* a communicator used after ncclCommAbort (freed on NCCL): a misuse */
static int aborted(ncclComm_t comm, const char *call) {
    if (!comm->aborted) return 0;
    fprintf(stderr, "hostemu NCCL: rank %d: %s on a communicator after ncclCommAbort\n", comm->rank, call);
    return 1;
}

const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclInvalidArgument: return "invalid argument (hostemu NCCL)";
    case ncclInvalidUsage: return "invalid usage (hostemu NCCL)";
    case ncclSystemError: return "system error (hostemu NCCL: an MPI call failed)";
    case ncclRemoteError: return "remote process exited or there was a network error (hostemu NCCL: "
                                 "HOSTEMU_NCCL_ASYNC_ERROR)";
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
    const char *fail = getenv("HOSTEMU_NCCL_FAIL_INIT");
    if (fail && *fail && atoi(fail) == me) {
        fprintf(stderr, "hostemu NCCL: rank %d: failing ncclCommInitRank (HOSTEMU_NCCL_FAIL_INIT)\n", me);
        free(c); /* its duplicate of MPI_COMM_WORLD stays: freeing it is collective */
        return ncclSystemError;
    }
    *comm = c;
    return ncclSuccess;
}

/* the communicator dropped without the peers (NCCL's abort): no collective, no counts; the
 * collectives still waiting on a stream are dropped when it gets to them (as NCCL ends them
 * on the device), so the memory stays (a test's leak); its MPI duplicate stays, as above */
ncclResult_t ncclCommAbort(ncclComm_t comm) {
    if (!comm || comm->aborted) return ncclInvalidArgument;
    comm->aborted = 1;
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
    if (!comm || !asyncError) return ncclInvalidArgument;
    if (aborted(comm, "ncclCommGetAsyncError")) return ncclInvalidUsage;
    const char *e = getenv("HOSTEMU_NCCL_ASYNC_ERROR");
    *asyncError = e && *e && atoi(e) == comm->rank && comm->allreduces > 0 ? ncclRemoteError : ncclSuccess;
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    if (!comm) return ncclInvalidArgument;
    if (aborted(comm, "ncclCommDestroy")) return ncclInvalidUsage;
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

/* a collective, run when its stream gets to it (hostemu_nccl_defer: a lane's waits in the
 * lane's queue); a failed MPI call there is fatal: the call that enqueued it has returned */
static void run_pending(void *arg) {
    pending_call *b = arg;
    if (b->comm->aborted) {
        free(b);
        return;
    }
    const size_t bytes = b->count * sizeof(float);
    const char *call = b->root < 0 ? "ncclAllReduce" : "ncclBroadcast";
    emu.enter();
    emu.need(b->recv, bytes, call, "recvbuff");
    if (b->root < 0 || b->root == b->comm->rank) emu.need(b->send, bytes, call, "sendbuff");
    int rc;
    if (b->root < 0) {
        rc = MPI_Allreduce(b->send == b->recv ? MPI_IN_PLACE : b->send, b->recv, (int)b->count, MPI_FLOAT, MPI_SUM,
                           b->comm->comm);
    } else {
        if (b->root == b->comm->rank && b->send != b->recv) memcpy(b->recv, b->send, bytes);
        rc = MPI_Bcast(b->recv, (int)b->count, MPI_FLOAT, b->root, b->comm->comm);
    }
    emu.leave();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "hostemu NCCL: rank %d: %s of %zu floats: the MPI call failed\n", b->comm->rank, call, b->count);
        abort();
    }
    free(b);
}

static ncclResult_t submit(const pending_call *b) {
    if (b->count == 0) return ncclSuccess;
    pending_call *copy = malloc(sizeof *copy);
    if (!copy) return ncclSystemError;
    *copy = *b;
    emu.defer(b->stream, run_pending, copy);
    return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
    if (!comm || !stream || (count > 0 && (!send || !recv)) || count > (size_t)INT32_MAX) return ncclInvalidArgument;
    if (type != ncclFloat || op != ncclSum) return ncclInvalidArgument;
    if (aborted(comm, "ncclAllReduce")) return ncclInvalidUsage;
    if (!emu_load()) return ncclSystemError;
    comm->allreduces++, comm->allreduce_floats += (long long)count;
    if (group_depth > 0) return ncclInvalidUsage; /* dgnn groups only broadcasts */
    const pending_call b = {send, recv, count, -1, comm, stream};
    return submit(&b);
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                           cudaStream_t stream) {
    if (!comm || !stream || (count > 0 && !recv) || count > (size_t)INT32_MAX) return ncclInvalidArgument;
    if (type != ncclFloat || root < 0 || root >= comm->nranks) return ncclInvalidArgument;
    if (root == comm->rank && count > 0 && !send) return ncclInvalidArgument;
    if (aborted(comm, "ncclBroadcast")) return ncclInvalidUsage;
    if (!emu_load()) return ncclSystemError;
    comm->broadcasts++, comm->broadcast_floats += (long long)count;
    const pending_call b = {send, recv, count, root, comm, stream};
    if (group_depth == 0) return submit(&b);
    if (n_pending == cap_pending) {
        cap_pending = cap_pending ? 2 * cap_pending : 16;
        pending_call *p = realloc(pending, cap_pending * sizeof *p);
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
    for (size_t i = 0; i < n_pending && r == ncclSuccess; i++) r = submit(&pending[i]);
    n_pending = 0;
    return r;
}
