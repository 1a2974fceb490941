// watch.cu: the host's waits on the device (cuda_internal.h) and their watch (cuda.h,
// dgnn_cuda_set_watch). Without a watch a wait blocks in the runtime. With one it polls the
// stream or event and calls the watch before each poll, so that a collective a failed peer
// can never finish (comm_dev.c's NCCL path) ends the wait with an error instead of holding it
// forever. Host code only, also built over the host emulation (tests/hostemu/).
// NOT YET VERIFIED ON HARDWARE.
#include <time.h>

#include <cuda_runtime.h>

#include "cuda_internal.h"

extern "C" void dgnn_cuda_set_watch(dgnn_cuda *c, dgnn_cuda_watch_fn fn, void *ctx) {
    c->watch = fn;
    c->watch_ctx = ctx;
}

// polls query() until it is done: the watch first, then the query, then a pause of 20 us
// for the first millisecond or so (a step's waits) and of 200 us after that (an evaluation's)
template <typename Query> static int poll(dgnn_cuda *c, Query query, const char *call, dgnn_err *err) {
    for (long n = 0;; n++) {
        int rc = c->watch(c->watch_ctx, err);
        if (rc) return rc;
        const cudaError_t e = query();
        if (e == cudaSuccess) return DGNN_OK;
        if (e != cudaErrorNotReady) return dgnn_cuda_check(e, call, err);
        (void)cudaGetLastError(); // "not ready" is no error: let no later check see it
        const struct timespec pause = {0, n < 50 ? 20000L : 200000L};
        nanosleep(&pause, nullptr);
    }
}

int dgnn_cuda_wait_stream(dgnn_cuda *c, cudaStream_t s, const char *call, dgnn_err *err) {
    if (!c->watch) return dgnn_cuda_check(cudaStreamSynchronize(s), call, err);
    return poll(c, [s] { return cudaStreamQuery(s); }, call, err);
}

int dgnn_cuda_wait_event(dgnn_cuda *c, cudaEvent_t e, const char *call, dgnn_err *err) {
    if (!c->watch) return dgnn_cuda_check(cudaEventSynchronize(e), call, err);
    return poll(c, [e] { return cudaEventQuery(e); }, call, err);
}
