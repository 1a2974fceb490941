// hostemu_lane.cpp: the host emulation's lanes (include/dgnn/cuda.h, "a lane"; src/nn/cuda/
// lane.cu on a GPU), for tests only (hostemu.cpp says what the emulation is).
//
// The context's stream is synchronous here (an op is done when its call returns), but a lane
// is not: what is enqueued on it (its copies, the collectives NCCL's stand-in is given on its
// stream: hostemu_nccl_defer) waits in the lane's queue and runs, in order, only when
// something has to wait for it: dgnn_cuda_lane_sync (or cudaStreamSynchronize on its stream),
// dgnn_cuda_main_wait_lane, dgnn_cuda_lane_free. So the lane runs as late as a GPU may run it,
// and a caller that reads what the lane writes without waiting for it (Adam on a gradient
// slab whose sum was never waited for, the host reading a pinned buffer before a lane_sync)
// reads the old values and computes something else, as it might on a GPU.
// And a lane's work that reads device memory must follow a dgnn_cuda_lane_wait_main with no
// emulated call in between (need_waited), or it aborts.
// HOSTEMU_LANE=now runs each piece at once instead (any other value, or none: late): the other extreme, where a lane reads
// the context's arrays as soon as its work is enqueued (a piece enqueued before the ops that
// finish what it reads sees them unfinished). The suite runs both.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "hostemu_internal.h"

using namespace hostemu;

struct hostemu_lane {
    int magic;
    dgnn_cuda *c;
    hostemu_stream stream;
    std::vector<std::function<void()>> queue;
    uint64_t waited; // hostemu::calls() at the last dgnn_cuda_lane_wait_main (0: never)
};

// A lane's work that reads device memory (a copy down, a collective) must be enqueued after
// a dgnn_cuda_lane_wait_main with no emulated call in between: on a GPU it would otherwise
// read what the context's stream may still be writing. Stricter than a GPU needs (an
// unrelated op in between would be harmless there); what dgnn does meets it.
static void need_waited(const hostemu_lane *l, const char *call) {
    if (l->waited == 0 || l->waited != hostemu::calls())
        die("%s: the lane reads device memory without waiting for the context's stream since its last op "
            "(dgnn_cuda_lane_wait_main first)", call);
}

static int lane_now() {
    const char *e = getenv("HOSTEMU_LANE");
    return e && strcmp(e, "now") == 0;
}

static hostemu_lane *need_lane(dgnn_cuda_lane *l, const char *call) {
    auto *h = (hostemu_lane *)l;
    if (!h || h->magic != HOSTEMU_MAGIC) die("%s: not a live lane", call);
    return h;
}

void hostemu_lane_flush(hostemu_lane *l) {
    // a piece may enqueue nothing further, but take the queue first all the same
    std::vector<std::function<void()>> q;
    q.swap(l->queue);
    for (auto &f : q) f();
}

static void enqueue(hostemu_lane *l, std::function<void()> f) {
    if (lane_now()) f();
    else l->queue.push_back(std::move(f));
}

extern "C" int dgnn_cuda_lane_init(dgnn_cuda *c, dgnn_cuda_lane **out, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_lane_init");
    auto *l = new hostemu_lane{HOSTEMU_MAGIC, c, hostemu_stream{HOSTEMU_MAGIC, nullptr}, {}, 0};
    l->stream.lane = l;
    *out = (dgnn_cuda_lane *)l;
    return DGNN_OK;
}

extern "C" void dgnn_cuda_lane_free(dgnn_cuda_lane *lp) {
    if (!lp) return;
    hostemu_lane *l = need_lane(lp, "dgnn_cuda_lane_free");
    hostemu_lane_flush(l); // a GPU finishes a destroyed stream's work
    l->magic = 0, l->stream.magic = 0;
    delete l;
}

extern "C" void *dgnn_cuda_lane_stream_handle(dgnn_cuda_lane *l) {
    return (void *)&need_lane(l, "dgnn_cuda_lane_stream_handle")->stream;
}

// everything on the context's stream is done already: only noted (need_waited)
extern "C" int dgnn_cuda_lane_wait_main(dgnn_cuda_lane *l, dgnn_err *err) {
    (void)err;
    need_lane(l, "dgnn_cuda_lane_wait_main")->waited = hostemu::calls();
    return DGNN_OK;
}

extern "C" int dgnn_cuda_main_wait_lane(dgnn_cuda_lane *l, dgnn_err *err) {
    (void)err;
    hostemu_lane_flush(need_lane(l, "dgnn_cuda_main_wait_lane"));
    return DGNN_OK;
}

// through watch.cu's wait, as lane.cu's (cudaStreamQuery on the lane's stream runs its queue)
extern "C" int dgnn_cuda_lane_sync(dgnn_cuda_lane *l, dgnn_err *err) {
    hostemu_lane *h = need_lane(l, "dgnn_cuda_lane_sync");
    return dgnn_cuda_wait_stream(h->c, &h->stream, "cudaStreamSynchronize (the lane)", err);
}

// a copy: its arguments checked when enqueued (as the runtime does) and when it runs
static void copy(hostemu_lane *l, void *dst, const void *src, size_t bytes, int up, const char *call) {
    if (!up) need_waited(l, call);
    {
        in_call k;
        need_dev(up ? dst : src, bytes, call, up ? "the destination" : "the source");
        need_host(up ? src : dst, bytes, call, up ? "the source" : "the destination");
    }
    enqueue(l, [=] {
        in_call k;
        need_dev(up ? dst : src, bytes, call, up ? "the destination" : "the source");
        memcpy(dst, src, bytes);
    });
}

extern "C" int dgnn_cuda_lane_upload(dgnn_cuda_lane *lp, void *dst, const void *src, size_t bytes, dgnn_err *err) {
    (void)err;
    hostemu_lane *l = need_lane(lp, "dgnn_cuda_lane_upload");
    if (bytes) copy(l, dst, src, bytes, 1, "dgnn_cuda_lane_upload");
    return DGNN_OK;
}

extern "C" int dgnn_cuda_lane_download(dgnn_cuda_lane *lp, void *dst, const void *dsrc, size_t bytes, dgnn_err *err) {
    (void)err;
    hostemu_lane *l = need_lane(lp, "dgnn_cuda_lane_download");
    if (bytes) copy(l, dst, (void *)dsrc, bytes, 0, "dgnn_cuda_lane_download");
    return DGNN_OK;
}

// NCCL's stand-in (tests/hostemu/nccl/) hands each collective over with the stream it was
// given: a lane's waits in its queue, a context's runs now. fn(arg) does the collective.
extern "C" void hostemu_nccl_defer(void *stream, void (*fn)(void *), void *arg) {
    auto *s = (hostemu_stream *)stream;
    if (!s || s->magic != HOSTEMU_MAGIC) die("an NCCL collective: not a live stream");
    if (!s->lane) {
        fn(arg);
        return;
    }
    need_waited(s->lane, "an NCCL collective on a lane");
    enqueue(s->lane, [=] { fn(arg); });
}
