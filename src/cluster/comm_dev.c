/* comm_dev.c: collectives over GPU buffers (comm_dev.h): the choice of path, the host-staged
 * path (cuda.h's copies around comm.h's all-reduce and all-gather) and NCCL's, loaded at run
 * time; both on a lane of the device (cuda.h), so that a gradient sum overlaps the
 * backward. The only file that calls NCCL; it calls no MPI (comm.h does). On NCCL's path
 * the context's waits ask NCCL for an asynchronous error (nccl_watch).
 * NOT YET VERIFIED ON HARDWARE (the NCCL path has run only against the emulation's stand-in,
 * tests/hostemu/nccl/: NVIDIA's needs a GPU per rank). */
#include "dgnn/comm_dev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dgnn/comm.h"

#ifndef DGNN_HAVE_NCCL
#define DGNN_HAVE_NCCL 0 /* CMake defines it for this file where nccl.h is (a CUDA build) */
#endif

#if DGNN_HAVE_CUDA

#if DGNN_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif
#ifndef DGNN_NCCL_LIBRARY
#define DGNN_NCCL_LIBRARY "libnccl.so.2" /* the host emulation's stand-in names another (tests/hostemu/nccl.h) */
#endif

#if DGNN_HAVE_NCCL

/* the NCCL functions this file calls, from libnccl.so.2 (dlopen) */
typedef struct {
    void *lib;
    ncclResult_t (*get_unique_id)(ncclUniqueId *);
    ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    ncclResult_t (*comm_destroy)(ncclComm_t);
    ncclResult_t (*comm_abort)(ncclComm_t);
    ncclResult_t (*get_async_error)(ncclComm_t, ncclResult_t *);
    const char *(*error_string)(ncclResult_t);
} nccl_api;

/* RTLD_NODELETE: once a communicator has existed, NCCL's threads and exit handlers may
 * outlive it, so the library stays mapped until the process ends (dlclose only drops the
 * handle) */
static int nccl_load(nccl_api *a) {
    memset(a, 0, sizeof *a);
    const int flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;
    a->lib = dlopen(DGNN_NCCL_LIBRARY, flags);
    if (!a->lib && strcmp(DGNN_NCCL_LIBRARY, "libnccl.so.2") == 0) a->lib = dlopen("libnccl.so", flags);
    if (!a->lib) return 0;
    *(void **)&a->get_unique_id = dlsym(a->lib, "ncclGetUniqueId");
    *(void **)&a->comm_init_rank = dlsym(a->lib, "ncclCommInitRank");
    *(void **)&a->all_reduce = dlsym(a->lib, "ncclAllReduce");
    *(void **)&a->broadcast = dlsym(a->lib, "ncclBroadcast");
    *(void **)&a->group_start = dlsym(a->lib, "ncclGroupStart");
    *(void **)&a->group_end = dlsym(a->lib, "ncclGroupEnd");
    *(void **)&a->comm_destroy = dlsym(a->lib, "ncclCommDestroy");
    *(void **)&a->comm_abort = dlsym(a->lib, "ncclCommAbort");
    *(void **)&a->get_async_error = dlsym(a->lib, "ncclCommGetAsyncError");
    *(void **)&a->error_string = dlsym(a->lib, "ncclGetErrorString");
    if (a->get_unique_id && a->comm_init_rank && a->all_reduce && a->broadcast && a->group_start && a->group_end &&
        a->comm_destroy && a->comm_abort && a->get_async_error && a->error_string)
        return 1;
    dlclose(a->lib);
    memset(a, 0, sizeof *a);
    return 0;
}
#endif

enum { MAX_SUMS = 8 }; /* sums started and not yet waited for (a step starts two) */

struct dgnn_comm_dev {
    dgnn_cuda *c;
    dgnn_cuda_lane *lane; /* every collective runs on it, in the order called (cuda.h) */
    int nccl;             /* 1: NCCL's path */
    char reason[256];
    char *stage;       /* the host path's all-gather: what is sent, then what is received */
    int64_t stage_cap; /* bytes */
    /* the sums started (dgnn_comm_dev_allreduce_start); the host path's go through pin, a
     * pinned buffer (pin_used of pin_cap floats taken) */
    struct {
        float *dbuf, *host, *pin;
        int64_t n, bucket;
    } sum[MAX_SUMS];
    int nsum;
    float *pin;
    int64_t pin_used, pin_cap;
#if DGNN_HAVE_NCCL
    nccl_api api;
    ncclComm_t comm;
#endif
};

enum { ID_BYTES = 320 }; /* one rank's "host|bus id" record */

#if DGNN_HAVE_NCCL
/* the context's watch on NCCL's path (cuda.h, dgnn_cuda_set_watch): a collective that a
 * failed peer or network leaves unfinished is reported only by ncclCommGetAsyncError, and
 * every wait on the device would wait for it forever; so each wait asks, and on an error
 * aborts the communicator (which ends its work on the device) and fails. The job then ends
 * as on any rank's error (comm.h): the other ranks with it. */
static int nccl_watch(void *ctx, dgnn_err *err) {
    dgnn_comm_dev *d = ctx;
    if (!d->comm) return dgnn_err_set(err, DGNN_EDEVICE, "NCCL: the communicator was aborted after an error");
    ncclResult_t a = ncclSuccess;
    const ncclResult_t r = d->api.get_async_error(d->comm, &a);
    if (r == ncclSuccess && (a == ncclSuccess || a == ncclInProgress)) return DGNN_OK;
    if (r != ncclSuccess) a = r;
    d->api.comm_abort(d->comm);
    d->comm = NULL;
    return dgnn_err_set(err, DGNN_EDEVICE,
                        "NCCL: a collective failed: %s (a peer or the network failed); the communicator is aborted",
                        d->api.error_string(a));
}
#endif

/* whether two ranks share a GPU: their (host name, bus id) records all-gathered; the first
 * pair that shares one is named in why. -1 (err set) where this rank could not read its
 * GPU's bus id: it still takes part in the all-gather, so that no rank waits for it. */
static int ranks_share_a_gpu(dgnn_cuda *c, char *why, size_t cap, dgnn_err *err) {
    const int P = dgnn_comm_size();
    char mine[ID_BYTES] = {0}, host[128] = "?", bus[64] = "?";
    gethostname(host, sizeof host - 1);
    const int rc = dgnn_cuda_bus_id(c, bus, (int)sizeof bus, err);
    if (rc) snprintf(mine, sizeof mine, "?rank %d", dgnn_comm_rank()); /* a record no other rank has */
    else snprintf(mine, sizeof mine, "%s|%s", host, bus);
    char *all = dgnn_xcalloc((size_t)P, ID_BYTES);
    int64_t *counts = dgnn_xcalloc((size_t)P, sizeof(int64_t));
    for (int q = 0; q < P; q++) counts[q] = ID_BYTES;
    dgnn_comm_allgatherv_bytes(all, counts, mine, ID_BYTES);
    int shared = 0;
    for (int a = 0; a < P && !shared; a++)
        for (int b = a + 1; b < P && !shared; b++)
            if (strcmp(all + (size_t)a * ID_BYTES, all + (size_t)b * ID_BYTES) == 0) {
                shared = 1;
                snprintf(why, cap, "ranks %d and %d share the GPU %s (NCCL takes one GPU per rank)", a, b,
                         all + (size_t)a * ID_BYTES);
            }
    free(all), free(counts);
    return rc ? -1 : shared;
}

int dgnn_comm_dev_init(dgnn_comm_dev **out, dgnn_cuda *c, dgnn_err *err) {
    *out = NULL;
    dgnn_comm_dev *d = dgnn_xcalloc(1, sizeof *d);
    d->c = c;
    int rc = dgnn_cuda_lane_init(c, &d->lane, err);
    if (rc) {
        free(d);
        return rc;
    }
    snprintf(d->reason, sizeof d->reason, "one process");
    const char *force = getenv("DGNN_COMM_DEV");
    const int P = dgnn_comm_size();
    if (P > 1) {
        const int shared = ranks_share_a_gpu(c, d->reason, sizeof d->reason, err);
        /* decided together, as a rank that went its own way would wait in another collective
         * (mpirun passes a variable to remote ranks only with -x): any[0] a rank could not
         * read its GPU, [1] a rank cannot load NCCL, [2] a rank has DGNN_COMM_DEV=host */
        double any[3] = {shared < 0, 1, force && strcmp(force, "host") == 0};
#if DGNN_HAVE_NCCL
        any[1] = nccl_load(&d->api) ? 0 : 1;
#endif
        dgnn_comm_allreduce_max_f64(any, 3);
        if (any[0] > 0) {
            if (shared >= 0) dgnn_err_set(err, DGNN_EDEVICE, "another rank could not read its GPU's bus id");
            dgnn_comm_dev_free(d);
            return DGNN_EDEVICE;
        }
        if (any[2] > 0) snprintf(d->reason, sizeof d->reason, "DGNN_COMM_DEV=host");
        else if (!shared && any[1] > 0)
            snprintf(d->reason, sizeof d->reason, "NCCL (%s) not loadable on every rank%s", DGNN_NCCL_LIBRARY,
                     DGNN_HAVE_NCCL ? "" : " (this build has no NCCL header)");
        else if (!shared) d->nccl = 1;
    }
#if DGNN_HAVE_NCCL
    if (d->nccl) {
        ncclUniqueId id;
        memset(&id, 0, sizeof id);
        ncclResult_t r = ncclSuccess;
        if (dgnn_comm_rank() == 0) r = d->api.get_unique_id(&id);
        double bad = r != ncclSuccess;
        dgnn_comm_allreduce_max_f64(&bad, 1);
        if (bad > 0) {
            if (dgnn_comm_rank() == 0)
                dgnn_err_set(err, DGNN_EDEVICE, "NCCL: ncclGetUniqueId failed on rank 0: %s", d->api.error_string(r));
            else
                dgnn_err_set(err, DGNN_EDEVICE, "NCCL: rank 0 could not create the communicator's unique id");
            dgnn_comm_dev_free(d);
            return DGNN_EDEVICE;
        }
        dgnn_comm_bcast(&id, (int64_t)sizeof id, 0);
        r = d->api.comm_init_rank(&d->comm, P, id, dgnn_comm_rank());
        /* where it failed on some ranks only, the others must not go on to wait in their
         * first collective: they abort their communicator (it lacks peers) and fail too */
        double failed = r != ncclSuccess;
        dgnn_comm_allreduce_max_f64(&failed, 1);
        if (failed > 0) {
            if (r != ncclSuccess)
                dgnn_err_set(err, DGNN_EDEVICE, "NCCL: ncclCommInitRank (%d ranks) failed on rank %d: %s", P,
                             dgnn_comm_rank(), d->api.error_string(r));
            else
                dgnn_err_set(err, DGNN_EDEVICE, "NCCL: ncclCommInitRank (%d ranks) failed on another rank", P);
            if (r == ncclSuccess) d->api.comm_abort(d->comm);
            d->comm = NULL;
            dgnn_comm_dev_free(d);
            return DGNN_EDEVICE;
        }
        snprintf(d->reason, sizeof d->reason, "a GPU per rank");
        dgnn_cuda_set_watch(c, nccl_watch, d);
    } else if (d->api.lib) {
        dlclose(d->api.lib);
        memset(&d->api, 0, sizeof d->api);
    }
#endif
    if (P > 1 && dgnn_comm_rank() == 0)
        dgnn_log("GPU collectives: %s (%s)\n", d->nccl ? "NCCL" : "staged through the host", d->reason);
    *out = d;
    return DGNN_OK;
}

void dgnn_comm_dev_free(dgnn_comm_dev *d) {
    if (!d) return;
#if DGNN_HAVE_NCCL
    if (d->nccl) dgnn_cuda_set_watch(d->c, NULL, NULL);
#endif
    dgnn_cuda_lane_free(d->lane); /* what it holds runs first, on the communicator */
    if (d->pin) dgnn_cuda_host_free(d->c, d->pin);
#if DGNN_HAVE_NCCL
    if (d->comm) d->api.comm_destroy(d->comm);
    if (d->api.lib) dlclose(d->api.lib);
#endif
    free(d->stage);
    free(d);
}

const char *dgnn_comm_dev_path(const dgnn_comm_dev *d) { return d->nccl ? "nccl" : "host"; }
const char *dgnn_comm_dev_reason(const dgnn_comm_dev *d) { return d->reason; }

/* the host path's pinned staging for n more floats (what it holds kept: the sums started) */
static int pin_reserve(dgnn_comm_dev *d, int64_t n, dgnn_err *err) {
    if (d->pin_used + n <= d->pin_cap) return DGNN_OK;
    int rc = dgnn_cuda_lane_sync(d->lane, err); /* the downloads into the old buffer are done */
    if (rc) return rc;
    const int64_t cap = d->pin_used + n + (d->pin_used + n) / 4;
    float *pin = NULL;
    if ((rc = dgnn_cuda_host_alloc(d->c, (void **)&pin, (size_t)cap * sizeof(float), "the gradient sums' staging",
                                   err)))
        return rc;
    if (d->pin_used > 0) memcpy(pin, d->pin, (size_t)d->pin_used * sizeof(float));
    for (int i = 0; i < d->nsum; i++) d->sum[i].pin = pin + (d->sum[i].pin - d->pin);
    if (d->pin) dgnn_cuda_host_free(d->c, d->pin);
    d->pin = pin, d->pin_cap = cap;
    return DGNN_OK;
}

int dgnn_comm_dev_allreduce_start(dgnn_comm_dev *d, float *dbuf, float *host, int64_t n, int64_t bucket,
                                  dgnn_err *err) {
    if (n <= 0 || dgnn_comm_size() == 1) return DGNN_OK;
    if (d->nsum == MAX_SUMS)
        return dgnn_err_set(err, DGNN_EINVAL, "GPU collectives: more than %d sums started without a wait", MAX_SUMS);
    if (bucket <= 0) bucket = (int64_t)(4u << 20) / (int64_t)sizeof(float); /* comm.h's default, 4 MiB worth */
    /* the host path's staging first (growing it waits for the lane) */
    int rc = d->nccl ? DGNN_OK : pin_reserve(d, n, err);
    /* the lane reads dbuf once the context's stream has written it (the backward so far) */
    if (!rc) rc = dgnn_cuda_lane_wait_main(d->lane, err);
    if (rc) return rc;
#if DGNN_HAVE_NCCL
    if (d->nccl) {
        if (!d->comm) return nccl_watch(d, err); /* aborted after an error */
        const cudaStream_t st = (cudaStream_t)dgnn_cuda_lane_stream_handle(d->lane);
        for (int64_t o = 0; o < n; o += bucket) {
            const int64_t k = n - o < bucket ? n - o : bucket;
            ncclResult_t r = d->api.all_reduce(dbuf + o, dbuf + o, (size_t)k, ncclFloat, ncclSum, d->comm, st);
            if (r != ncclSuccess)
                return dgnn_err_set(err, DGNN_EDEVICE, "NCCL: ncclAllReduce of %lld floats failed: %s", (long long)k,
                                    d->api.error_string(r));
        }
        d->sum[d->nsum].dbuf = dbuf, d->sum[d->nsum].host = NULL, d->sum[d->nsum].n = n;
        d->nsum++;
        return DGNN_OK;
    }
#endif
    /* through the host: the copy down enqueued now (it overlaps what the context's stream
     * still computes); the MPI sums and the copies up at dgnn_comm_dev_allreduce_wait */
    float *pin = d->pin + d->pin_used;
    if ((rc = dgnn_cuda_lane_download(d->lane, pin, dbuf, (size_t)n * sizeof(float), err))) return rc;
    d->pin_used += n;
    d->sum[d->nsum].dbuf = dbuf, d->sum[d->nsum].host = host, d->sum[d->nsum].pin = pin;
    d->sum[d->nsum].n = n, d->sum[d->nsum].bucket = bucket;
    d->nsum++;
    return DGNN_OK;
}

int dgnn_comm_dev_allreduce_wait(dgnn_comm_dev *d, dgnn_err *err) {
    if (d->nsum == 0) return DGNN_OK;
    int rc = DGNN_OK;
    if (!d->nccl) {
        rc = dgnn_cuda_lane_sync(d->lane, err); /* every sum's copy down is done */
        if (!rc) {
            for (int i = 0; i < d->nsum; i++) dgnn_comm_iallreduce_sum_f32(d->sum[i].pin, d->sum[i].n, d->sum[i].bucket);
            dgnn_comm_wait();
        }
        for (int i = 0; i < d->nsum && !rc; i++) {
            if (d->sum[i].host) memcpy(d->sum[i].host, d->sum[i].pin, (size_t)d->sum[i].n * sizeof(float));
            rc = dgnn_cuda_lane_upload(d->lane, d->sum[i].dbuf, d->sum[i].pin, (size_t)d->sum[i].n * sizeof(float), err);
        }
        d->pin_used = 0; /* reused by the next sums: on the lane, after these copies up */
    }
    d->nsum = 0;
    /* the context's later work (Adam) reads the sums */
    return rc ? rc : dgnn_cuda_main_wait_lane(d->lane, err);
}

int dgnn_comm_dev_allreduce_sum_f32(dgnn_comm_dev *d, float *dbuf, float *host, int64_t n, dgnn_err *err) {
    int rc = dgnn_comm_dev_allreduce_start(d, dbuf, host, n, 0, err);
    if (!rc) rc = dgnn_comm_dev_allreduce_wait(d, err);
    return rc ? rc : dgnn_cuda_lane_sync(d->lane, err);
}

int dgnn_comm_dev_allgatherv_f32(dgnn_comm_dev *d, float *drecv, const int64_t *counts, const float *dsend,
                                 dgnn_err *err) {
    const int P = dgnn_comm_size(), me = dgnn_comm_rank();
    int64_t total = 0;
    for (int q = 0; q < P; q++) total += counts[q];
#if DGNN_HAVE_NCCL
    if (d->nccl) {
        /* an all-gather of unequal parts: one broadcast per rank with something to send,
         * grouped so that NCCL runs them together (the same counts on every rank, so every
         * rank issues the same calls) */
        if (!d->comm) return nccl_watch(d, err); /* aborted after an error */
        int rc = dgnn_cuda_lane_wait_main(d->lane, err); /* dsend is gathered on the context's stream */
        if (rc) return rc;
        ncclResult_t r = d->api.group_start();
        const cudaStream_t st = (cudaStream_t)dgnn_cuda_lane_stream_handle(d->lane);
        int64_t off = 0;
        for (int q = 0; q < P && r == ncclSuccess; off += counts[q], q++)
            if (counts[q] > 0)
                r = d->api.broadcast(q == me ? (const void *)dsend : (const void *)(drecv + off), drecv + off,
                                     (size_t)counts[q], ncclFloat, q, d->comm, st);
        const ncclResult_t r2 = d->api.group_end();
        if (r == ncclSuccess) r = r2;
        if (r != ncclSuccess)
            return dgnn_err_set(err, DGNN_EDEVICE, "NCCL: the all-gather of %lld floats (grouped ncclBroadcast) failed: %s",
                                (long long)total, d->api.error_string(r));
        rc = dgnn_cuda_main_wait_lane(d->lane, err); /* the scatter reads drecv */
        return rc ? rc : dgnn_cuda_lane_sync(d->lane, err);
    }
#endif
    /* through the host: this rank's part down, comm.h's all-gather, every part up */
    const int64_t mine = counts[me] * (int64_t)sizeof(float), bytes = mine + total * (int64_t)sizeof(float);
    if (bytes > d->stage_cap) {
        free(d->stage);
        d->stage_cap = bytes + bytes / 2;
        d->stage = dgnn_xmalloc((size_t)d->stage_cap);
    }
    int rc = mine > 0 ? dgnn_cuda_download(d->c, d->stage, dsend, (size_t)mine, err) : DGNN_OK;
    if (!rc) rc = dgnn_cuda_sync(d->c, err);
    if (rc) return rc;
    int64_t *cb = dgnn_xmalloc((size_t)P * sizeof(int64_t));
    for (int q = 0; q < P; q++) cb[q] = counts[q] * (int64_t)sizeof(float);
    dgnn_comm_allgatherv_bytes(d->stage + mine, cb, d->stage, mine);
    free(cb);
    rc = total > 0 ? dgnn_cuda_upload(d->c, drecv, d->stage + mine, (size_t)total * sizeof(float), err) : DGNN_OK;
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

#else /* no CUDA backend in this build */

struct dgnn_comm_dev {
    int unused;
};
int dgnn_comm_dev_init(dgnn_comm_dev **out, dgnn_cuda *c, dgnn_err *err) {
    (void)c;
    *out = NULL;
    return dgnn_err_set(err, DGNN_EDEVICE, "GPU collectives: this dgnn was built without the CUDA backend");
}
void dgnn_comm_dev_free(dgnn_comm_dev *d) { (void)d; }
const char *dgnn_comm_dev_path(const dgnn_comm_dev *d) {
    (void)d;
    return "none";
}
const char *dgnn_comm_dev_reason(const dgnn_comm_dev *d) {
    (void)d;
    return "no CUDA backend";
}
int dgnn_comm_dev_allreduce_sum_f32(dgnn_comm_dev *d, float *dbuf, float *host, int64_t n, dgnn_err *err) {
    (void)d, (void)dbuf, (void)host, (void)n;
    return dgnn_err_set(err, DGNN_EDEVICE, "GPU collectives: this dgnn was built without the CUDA backend");
}
int dgnn_comm_dev_allreduce_start(dgnn_comm_dev *d, float *dbuf, float *host, int64_t n, int64_t bucket,
                                  dgnn_err *err) {
    (void)d, (void)dbuf, (void)host, (void)n, (void)bucket;
    return dgnn_err_set(err, DGNN_EDEVICE, "GPU collectives: this dgnn was built without the CUDA backend");
}
int dgnn_comm_dev_allreduce_wait(dgnn_comm_dev *d, dgnn_err *err) {
    (void)d;
    return dgnn_err_set(err, DGNN_EDEVICE, "GPU collectives: this dgnn was built without the CUDA backend");
}
int dgnn_comm_dev_allgatherv_f32(dgnn_comm_dev *d, float *drecv, const int64_t *counts, const float *dsend,
                                 dgnn_err *err) {
    (void)d, (void)drecv, (void)counts, (void)dsend;
    return dgnn_err_set(err, DGNN_EDEVICE, "GPU collectives: this dgnn was built without the CUDA backend");
}
#endif
