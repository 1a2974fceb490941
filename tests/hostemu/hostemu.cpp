// hostemu.cpp: a HOST EMULATION of dgnn's CUDA layer, for tests only (-DDGNN_CUDA_HOSTEMU=ON),
// with the rest of tests/hostemu/: hostemu_snap.cpp (the snapshot models' ops),
// hostemu_internal.h (the checks every emulated op shares, defined here), and the fake
// cuda_runtime.h, cublas_v2.h and cusparse.h.
//
// What it IS: every function of include/dgnn/cuda.h, implemented on the CPU. This file: the
// device registry and the fake runtime, the context, buffers and copies (device.cu,
// context.cu), the dense product, the memory-based models' ops (linear.cu, gru.cu,
// timeenc.cu, act.cu, layernorm.cu, jodie.cu, loss.cu, attention_core.cu, attention.cu,
// adam.cu), the rows by index (rows.cu) and the node state store (state.cu).
// hostemu_snap.cpp: the snapshot models' ops, the device CSR and the sparse GCN ops
// (spmm.cu), the matrix GRU and TopK (mgru.cu), the LSTM cell (lstm.cu), the losses
// (snap_loss.cu), RReLU (rrelu.cu), the pair classifier (snap_cls.cu) and the link metrics
// (snap_metric.cu). So the real compositions over them, compiled as host C++ against the
// fake headers of this folder (the device steps src/nn/cuda/tgn_step.cu and apan_step.cu,
// with the backend's other kernel-free files, errors.cu and state_host.cu, as they are), or
// plain C calling cuda.h (src/models/tgnn_cuda.c, the snapshot models' device composition),
// and the trainer's device path (src/train/event_device.c, `dgnn train --device cuda`) run in
// the normal test suite, and tests/cuda/test_cuda_tgn.c, test_cuda_apan.c, test_cuda_train.c
// and tests/cli_device.sh compare them with the CPU path. Each op is the CPU op of nn.h /
// spmm.h / adam.h / metrics.h with the same arguments (the "device" pointers are host
// pointers here), or, where cuda.h gives the GPU op other semantics than the CPU's (gathers
// and scatters by index, the state store's rules for a node named twice, the loss written to
// device memory, the classifier's per-node first layer), a loop that follows the kernel of
// src/nn/cuda/*.cu line by line, or cuda.h's contract term by term where no kernel exists yet.
//
// What it is NOT: it is not a GPU, and it does not test a single kernel. The kernels of
// src/nn/cuda/*.cu are not compiled here (nor cuSPARSE, cuBLAS or CUB); their own tests
// (tests/cuda/test_cuda.c, test_cuda_layers.c, test_cuda_attention.c, test_cuda_rows.c,
// test_cuda_spmm.c, test_cuda_snap.c, ...) need a GPU and are not built with the emulation
// (they would test it against itself). Sums run in the CPU's order, so the
// emulation agrees with the CPU far more closely than a GPU does: a tolerance that passes here
// is necessary for a GPU, not sufficient. Everything is synchronous (an op or copy is done when
// its call returns): the asynchronous staging of tgn_step.cu is not exercised (its caller's
// arrays are copied before the call returns either way). One host thread calls it.
//
// What it checks that a plain host build would not (each a crash on a GPU, an abort here with
// a message naming the call and the argument):
//  - device memory is device memory: every array an op or copy takes as device memory must lie
//    inside a live dgnn_cuda_alloc allocation (extent included), every host array of a copy
//    must not; a freed or foreign pointer, or an index past an array's end, is caught;
//  - host code never touches device memory: outside the emulated calls every device allocation
//    is mapped PROT_NONE (mprotect), and inside one only the allocations it was given are
//    readable, so a host read or write of device memory (a device pointer dereferenced by
//    tgnn_cuda.c, tgn_step.cu or a test), or an op reading an array it was not passed, faults,
//    and the SIGSEGV handler says which allocation was touched (HOSTEMU_NO_PROTECT=1 turns
//    this off, for a debugger; test_cuda_tgn checks the guard). Allocations of 1 MiB and
//    more are mapped as 2 MiB huge pages where the kernel grants them (MADV_HUGEPAGE), since
//    a call's mprotect pair costs one page-table entry a page: with 4 KiB pages the pairs took
//    most of cli_device's time (APAN's emulated run: 7.0 s, 5.5 s of it in the kernel; 1.5 s
//    with huge pages);
//  - fresh device and pinned memory is 0xFF bytes (NaN floats, -1 ints), not zeros, as
//    cudaMalloc's memory is whatever was there: an array used before it is written shows;
//  - what a GPU op takes on trust from its caller (hostemu_snap.cpp names each): an index
//    past its array, a device CSR whose structure an upload into it broke, outputs that
//    overlap inputs, a pair permutation that is not the stable sort the contract asks for;
//    and a scratch array the GPU op overwrites with temporaries the CPU op keeps to itself
//    is left as 0xFF bytes.
//
// Never part of a shipped library or command: this file is compiled only into the emulation
// build's dgnn_cuda library (CMakeLists.txt, DGNN_CUDA_HOSTEMU), whose install is refused.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "attention_dims.h"
#include "cuda_internal.h"
#include "hostemu_internal.h"

#include "dgnn/adam.h"
#include "dgnn/nn.h"

// ---- misuse: an abort with a message ----

using namespace hostemu;

[[noreturn]] void hostemu::die(const char *fmt, ...) {
    fprintf(stderr, "hostemu: ");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (a bug in the caller: a GPU would fault or misread here)\n");
    fflush(stderr);
    abort();
}

// ---- device memory: a registry of allocations, unreadable outside the emulated calls ----

struct region {
    size_t bytes, mapped; // asked for; mapped (whole pages)
    const char *what;
    int open;             // mapped readable and writable now (named by the current call)
};
static std::map<uintptr_t, region> g_dev;   // base -> allocation
static std::map<uintptr_t, size_t> g_pinned; // dgnn_cuda_host_alloc's, base -> bytes
static std::vector<uintptr_t> g_opened;      // the allocations the current call opened
static size_t g_dev_bytes;                   // live device bytes (dgnn_cuda_mem_info)
static int g_depth;                          // > 0 inside an emulated call
static int g_protect = -1;                   // -1: not decided yet (HOSTEMU_NO_PROTECT)

static int protecting() {
    if (g_protect < 0) {
        const char *e = getenv("HOSTEMU_NO_PROTECT");
        g_protect = !(e && *e && strcmp(e, "0") != 0);
    }
    return g_protect;
}

// An emulated call (every op and copy) opens the allocations it names (need_dev), and only
// those: they are mapped readable and writable until the outermost call returns, when every
// allocation is unreadable again. So an op that reads an allocation it was not given faults
// as well as host code that reads one between calls.
static void open_region(uintptr_t base, region &r) {
    if (r.open || !protecting()) return;
    if (mprotect((void *)base, r.mapped, PROT_READ | PROT_WRITE) != 0) die("mprotect failed on %s", r.what);
    r.open = 1;
    g_opened.push_back(base);
}
static void close_opened() {
    for (uintptr_t base : g_opened) {
        auto it = g_dev.find(base);
        if (it == g_dev.end() || !it->second.open) continue; // released meanwhile
        if (mprotect((void *)base, it->second.mapped, PROT_NONE) != 0) die("mprotect failed on %s", it->second.what);
        it->second.open = 0;
    }
    g_opened.clear();
}
static uint64_t g_calls; // emulated calls begun (outermost ones): hostemu::calls()
hostemu::in_call::in_call() {
    if (g_depth++ == 0) g_calls++;
}
uint64_t hostemu::calls() { return g_calls; }
hostemu::in_call::~in_call() {
    if (--g_depth == 0) close_opened();
}

static std::pair<const uintptr_t, region> *find_region(const void *p) {
    const uintptr_t a = (uintptr_t)p;
    auto it = g_dev.upper_bound(a);
    if (it == g_dev.begin()) return nullptr;
    --it;
    return a < it->first + it->second.bytes ? &*it : nullptr;
}

// [p, p + bytes) must be device memory of one live allocation (nothing to check for 0
// bytes), which is then open until the call returns (called inside an in_call)
void hostemu::need_dev(const void *p, size_t bytes, const char *call, const char *arg) {
    if (bytes == 0) return;
    if (g_depth == 0) die("%s: (hostemu) need_dev outside a call", call);
    if (!p) die("%s: %s is NULL (%zu bytes wanted)", call, arg, bytes);
    auto *r = find_region(p);
    if (!r) die("%s: %s (%p) is not device memory (a host pointer, or freed)", call, arg, p);
    if ((uintptr_t)p + bytes > r->first + r->second.bytes)
        die("%s: %s: %zu bytes at offset %zu run past the end of '%s' (%zu bytes)", call, arg, bytes,
            (size_t)((uintptr_t)p - r->first), r->second.what, r->second.bytes);
    open_region(r->first, r->second);
}
// one element at p, when p is given (the fields of a struct of device arrays)
void hostemu::need_dev_opt(const void *p, const char *call, const char *arg) {
    if (p) need_dev(p, 1, call, arg);
}
// [p, p + bytes) must be host memory
void hostemu::need_host(const void *p, size_t bytes, const char *call, const char *arg) {
    if (bytes == 0) return;
    if (!p) die("%s: %s is NULL (%zu bytes wanted)", call, arg, bytes);
    if (find_region(p) || find_region((const char *)p + bytes - 1))
        die("%s: %s (%p) is device memory where host memory is wanted", call, arg, p);
}
void hostemu::need_ctx(const dgnn_cuda *c, const char *call) {
    if (!c || !c->stream) die("%s: no context", call);
}

static size_t page_round(size_t n) {
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

// A host access to a protected device allocation: say which, then the default action.
static void on_segv(int sig, siginfo_t *si, void *) {
    const auto *r = find_region(si->si_addr);
    if (r) {
        char msg[512];
        const int n = snprintf(msg, sizeof msg,
                               "hostemu: host code touched device memory at %p (offset %zu of '%s'): a device "
                               "pointer dereferenced outside a device op (a GPU would fault here too)\n",
                               si->si_addr, (size_t)((uintptr_t)si->si_addr - r->first), r->second.what);
        if (n > 0) (void)!write(2, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
    }
    signal(sig, SIG_DFL); // the access runs again and takes the default action
}
static void install_segv_handler() {
    static int done = 0;
    if (done || !protecting()) return;
    done = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
}

// ---- the fake runtime (cuda_runtime.h): synchronous, so there is never anything to wait for ----

struct hostemu_event {
    int magic;
};
struct hostemu_blas {
    int magic;
};

extern "C" const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    }
    return "unknown error";
}
extern "C" const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    }
    return "cudaErrorUnknown";
}
extern "C" cudaError_t cudaGetLastError(void) { return cudaSuccess; }
extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    if (s && s->magic != HOSTEMU_MAGIC) die("cudaStreamSynchronize: not a live stream");
    if (s && s->lane) hostemu_lane_flush(s->lane);
    return cudaSuccess;
}
extern "C" cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
    (void)flags;
    if (!e) return cudaErrorInvalidValue;
    *e = new hostemu_event{HOSTEMU_MAGIC};
    return cudaSuccess;
}
extern "C" cudaError_t cudaEventDestroy(cudaEvent_t e) {
    if (!e || e->magic != HOSTEMU_MAGIC) die("cudaEventDestroy: not a live event");
    e->magic = 0;
    delete e;
    return cudaSuccess;
}
extern "C" cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    if (!e || e->magic != HOSTEMU_MAGIC) die("cudaEventRecord: not a live event");
    if (!s || s->magic != HOSTEMU_MAGIC) die("cudaEventRecord: not a live stream");
    return cudaSuccess;
}
extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    if (!e || e->magic != HOSTEMU_MAGIC) die("cudaEventSynchronize: not a live event");
    return cudaSuccess; // a recorded event is complete (everything ran when called); so is one never recorded
}
// the polls of watch.cu: what a wait would run has run when they return, so they are done
extern "C" cudaError_t cudaStreamQuery(cudaStream_t s) {
    if (s && s->magic != HOSTEMU_MAGIC) die("cudaStreamQuery: not a live stream");
    return cudaStreamSynchronize(s);
}
extern "C" cudaError_t cudaEventQuery(cudaEvent_t e) {
    if (!e || e->magic != HOSTEMU_MAGIC) die("cudaEventQuery: not a live event");
    return cudaEventSynchronize(e);
}

// the error helpers of cuda_internal.h: src/nn/cuda/errors.cu, compiled here as it is

// ---- devices and the context (device.cu, context.cu) ----

#define HOSTEMU_DEVICES 1
#define HOSTEMU_NAME "host emulation (not a GPU)"

extern "C" int dgnn_cuda_device_count(void) { return HOSTEMU_DEVICES; }

extern "C" int dgnn_cuda_device_name(int i, char *buf, int cap) {
    if (i < 0 || i >= HOSTEMU_DEVICES) return -1;
    snprintf(buf, (size_t)cap, "%s", HOSTEMU_NAME);
    return 0;
}

// device.cu's self-contained check of a device: host arrays in and out, no context
extern "C" int dgnn_cuda_saxpy(float a, const float *x, float *y, int64_t n) {
    if (n <= 0) return 0;
    need_host(x, F4(n), "dgnn_cuda_saxpy", "x");
    need_host(y, F4(n), "dgnn_cuda_saxpy", "y");
    for (int64_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
    return 0;
}

extern "C" int dgnn_cuda_init(dgnn_cuda **out, int device, dgnn_err *err) {
    *out = nullptr;
    const int n = HOSTEMU_DEVICES;
    if (device < 0 || device >= n)
        return dgnn_cuda_fail(err, DGNN_EDEVICE,
                              "--device cuda:%d: this machine has %d CUDA device%s (or no driver); use --device cpu",
                              device, n, n == 1 ? "" : "s");
    install_segv_handler();
    dgnn_cuda *c = (dgnn_cuda *)calloc(1, sizeof *c);
    if (!c) return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the CUDA context");
    c->device = device;
    c->stream = new hostemu_stream{HOSTEMU_MAGIC, nullptr};
    c->blas = new hostemu_blas{HOSTEMU_MAGIC};
    *out = c;
    return DGNN_OK;
}

extern "C" void dgnn_cuda_free(dgnn_cuda *c) {
    if (!c) return;
    if (c->stream) c->stream->magic = 0, delete c->stream;
    if (c->blas) c->blas->magic = 0, delete c->blas;
    free(c);
}

extern "C" void *dgnn_cuda_stream_handle(dgnn_cuda *c) {
    need_ctx(c, "dgnn_cuda_stream_handle");
    return (void *)c->stream;
}

// one emulated GPU per machine, which every rank of a job shares; HOSTEMU_GPU_PER_RANK=1
// gives each process a GPU of its own instead (comm_dev.c's other branch)
extern "C" int dgnn_cuda_bus_id(dgnn_cuda *c, char *buf, int cap, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_bus_id");
    const char *own = getenv("HOSTEMU_GPU_PER_RANK");
    if (own && *own && strcmp(own, "0") != 0) snprintf(buf, (size_t)cap, "hostemu:%d:pid%d", c->device, (int)getpid());
    else snprintf(buf, (size_t)cap, "hostemu:%d", c->device);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_mem_info(dgnn_cuda *c, size_t *used, size_t *total, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_mem_info");
    *used = g_dev_bytes;
    *total = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    return DGNN_OK;
}

// ---- buffers and copies (context.cu) ----

extern "C" int dgnn_cuda_alloc(dgnn_cuda *c, void **dptr, size_t bytes, const char *what, dgnn_err *err) {
    need_ctx(c, "dgnn_cuda_alloc");
    *dptr = nullptr;
    if (bytes == 0) return DGNN_OK;
    // pages: 256-byte aligned, and protectable alone. From 1 MiB, whole 2 MiB huge pages
    // (aligned, where the kernel grants them): every emulated call maps its allocations
    // readable and back (below), and mprotect's cost is one entry a page, 512 fewer so
    const size_t huge = (size_t)2 << 20;
    const int big = bytes >= ((size_t)1 << 20);
    const size_t mapped = big ? (bytes + huge - 1) / huge * huge : page_round(bytes);
    void *p = mmap(nullptr, big ? mapped + huge : mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of GPU memory: %.1f MiB for %s", (double)bytes / 1048576.0,
                              what);
    if (big) { // keep the aligned part
        const uintptr_t a = ((uintptr_t)p + huge - 1) / huge * huge, end = (uintptr_t)p + mapped + huge;
        if (a > (uintptr_t)p) munmap(p, a - (uintptr_t)p);
        if (end > a + mapped) munmap((void *)(a + mapped), end - (a + mapped));
        p = (void *)a;
        madvise(p, mapped, MADV_HUGEPAGE);
    }
    memset(p, 0xFF, bytes); // not zeros: cudaMalloc's memory holds whatever was there
    g_dev[(uintptr_t)p] = region{bytes, mapped, what ? what : "a device array", 0};
    g_dev_bytes += bytes;
    if (protecting() && mprotect(p, mapped, PROT_NONE) != 0) die("mprotect failed on %s", what);
    *dptr = p;
    return DGNN_OK;
}

extern "C" void dgnn_cuda_release(dgnn_cuda *c, void *dptr) {
    need_ctx(c, "dgnn_cuda_release");
    if (!dptr) return;
    auto it = g_dev.find((uintptr_t)dptr);
    if (it == g_dev.end()) die("dgnn_cuda_release: %p is not the start of a live device allocation", dptr);
    g_dev_bytes -= it->second.bytes;
    munmap(dptr, it->second.mapped);
    g_dev.erase(it);
}

extern "C" int dgnn_cuda_host_alloc(dgnn_cuda *c, void **hptr, size_t bytes, const char *what, dgnn_err *err) {
    need_ctx(c, "dgnn_cuda_host_alloc");
    *hptr = nullptr;
    if (bytes == 0) return DGNN_OK;
    void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p)
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of pinned host memory: %.1f MiB for %s",
                              (double)bytes / 1048576.0, what);
    memset(p, 0xFF, bytes);
    g_pinned[(uintptr_t)p] = bytes;
    *hptr = p;
    return DGNN_OK;
}

extern "C" void dgnn_cuda_host_free(dgnn_cuda *c, void *hptr) {
    need_ctx(c, "dgnn_cuda_host_free");
    if (!hptr) return;
    auto it = g_pinned.find((uintptr_t)hptr);
    if (it == g_pinned.end()) die("dgnn_cuda_host_free: %p is not a live pinned allocation", hptr);
    g_pinned.erase(it);
    free(hptr);
}

extern "C" int dgnn_cuda_upload(dgnn_cuda *c, void *dst, const void *src, size_t bytes, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_upload");
    in_call k;
    if (bytes == 0) return DGNN_OK;
    need_dev(dst, bytes, "dgnn_cuda_upload", "the destination");
    need_host(src, bytes, "dgnn_cuda_upload", "the source");
    memcpy(dst, src, bytes);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_download(dgnn_cuda *c, void *dst, const void *dsrc, size_t bytes, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_download");
    in_call k;
    if (bytes == 0) return DGNN_OK;
    need_host(dst, bytes, "dgnn_cuda_download", "the destination");
    need_dev(dsrc, bytes, "dgnn_cuda_download", "the source");
    memcpy(dst, dsrc, bytes);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_sync(dgnn_cuda *c, dgnn_err *err) {
    need_ctx(c, "dgnn_cuda_sync");
    return dgnn_cuda_wait_stream(c, c->stream, "cudaStreamSynchronize", err);
}

extern "C" int dgnn_cuda_zero(dgnn_cuda *c, void *dptr, size_t bytes, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_zero");
    in_call k;
    if (bytes == 0) return DGNN_OK;
    need_dev(dptr, bytes, "dgnn_cuda_zero", "the array");
    memset(dptr, 0, bytes);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_copy(dgnn_cuda *c, void *ddst, const void *dsrc, size_t bytes, dgnn_err *err) {
    (void)err;
    need_ctx(c, "dgnn_cuda_copy");
    in_call k;
    if (bytes == 0 || ddst == dsrc) return DGNN_OK;
    need_dev(ddst, bytes, "dgnn_cuda_copy", "the destination");
    need_dev(dsrc, bytes, "dgnn_cuda_copy", "the source");
    const uintptr_t a = (uintptr_t)ddst, b = (uintptr_t)dsrc;
    if (a < b + bytes && b < a + bytes) die("dgnn_cuda_copy: the arrays overlap (cudaMemcpyAsync's are undefined)");
    memcpy(ddst, dsrc, bytes);
    return DGNN_OK;
}

// ---- rows by index (rows.cu) ----

// rows.cu's grouping: positions 0..n-1 in a stable order of their keys read as unsigned
// 32-bit values (the radix sort's), so each key's positions form one group, in the order given
static std::vector<int32_t> groups_of(const int32_t *keys, int64_t n) {
    std::vector<int32_t> perm((size_t)n);
    for (int64_t i = 0; i < n; i++) perm[(size_t)i] = (int32_t)i;
    std::stable_sort(perm.begin(), perm.end(), [keys](int32_t a, int32_t b) {
        return (uint32_t)keys[a] < (uint32_t)keys[b];
    });
    return perm;
}

// the largest index among idx (n) (or n - 1 for idx NULL); -1 when none is >= 0
static int64_t max_index(const int32_t *idx, int64_t n) {
    if (!idx) return n - 1;
    int64_t m = -1;
    for (int64_t i = 0; i < n; i++) m = idx[i] > m ? idx[i] : m;
    return m;
}

extern "C" int dgnn_cuda_gather_rows(dgnn_cuda *c, float *dout, int64_t ldo, const float *dsrc, int64_t lds,
                                     const int32_t *didx, int64_t n, int64_t width, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_gather_rows";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0 || width <= 0) return DGNN_OK;
    if (didx) need_dev(didx, I4(n), fn, "idx");
    need_dev(dout, F4((n - 1) * ldo + width), fn, "out");
    const int64_t rmax = max_index(didx, n);
    if (rmax >= 0) need_dev(dsrc, F4(rmax * lds + width), fn, "src (up to its largest index)");
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = didx ? (int64_t)didx[i] : i;
        for (int64_t j = 0; j < width; j++) dout[i * ldo + j] = r >= 0 ? dsrc[r * lds + j] : 0.0f;
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_gather_times(dgnn_cuda *c, double *dout, const double *dsrc, const int32_t *didx, int64_t n,
                                      dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_gather_times";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    need_dev(didx, I4(n), fn, "idx"); // the kernel reads idx unconditionally
    need_dev(dout, D8(n), fn, "out");
    const int64_t rmax = max_index(didx, n);
    if (rmax >= 0) need_dev(dsrc, D8(rmax + 1), fn, "src (up to its largest index)");
    for (int64_t i = 0; i < n; i++) dout[i] = didx[i] >= 0 ? dsrc[didx[i]] : 0.0;
    return DGNN_OK;
}

extern "C" int dgnn_cuda_scatter_add_rows(dgnn_cuda *c, float *ddst, int64_t ldd, const float *dsrc, int64_t lds,
                                          const int32_t *didx, int64_t n, int64_t width, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_scatter_add_rows";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0 || width <= 0) return DGNN_OK;
    need_dev(dsrc, F4((n - 1) * lds + width), fn, "src");
    if (didx) need_dev(didx, I4(n), fn, "idx");
    const int64_t rmax = didx ? max_index(didx, n) : n - 1;
    if (rmax >= 0) need_dev(ddst, F4(rmax * ldd + width), fn, "dst (up to its largest index)");
    // segment_acc_kernel: each (destination row, column) adds its positions in order of i
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = didx ? didx[i] : i;
        if (r < 0) continue; // the kernel skips a negative key
        for (int64_t j = 0; j < width; j++) ddst[r * ldd + j] += dsrc[i * lds + j];
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_scatter_rows_last(dgnn_cuda *c, float *ddst, int64_t ldd, double *ddst_t, const float *dsrc,
                                           int64_t lds, const double *dsrc_t, const int32_t *didx, int64_t n,
                                           int64_t width, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_scatter_rows_last";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0 || (width <= 0 && !(ddst_t && dsrc_t))) return DGNN_OK;
    if (width < 0) width = 0;
    const int times = ddst_t && dsrc_t;
    need_dev(didx, I4(n), fn, "idx");
    if (width > 0) need_dev(dsrc, F4((n - 1) * lds + width), fn, "src");
    if (times) need_dev(dsrc_t, D8(n), fn, "src_t");
    const int64_t rmax = max_index(didx, n);
    if (rmax >= 0 && width > 0) need_dev(ddst, F4(rmax * ldd + width), fn, "dst (up to its largest index)");
    if (rmax >= 0 && times) need_dev(ddst_t, D8(rmax + 1), fn, "dst_t (up to its largest index)");
    // segment_last_kernel: each index's LAST position writes its row (and time)
    const std::vector<int32_t> perm = groups_of(didx, n);
    for (int64_t pos = 0; pos < n; pos++) {
        const int32_t key = didx[perm[(size_t)pos]];
        if ((pos + 1 < n && didx[perm[(size_t)pos + 1]] == key) || key < 0) continue;
        const int64_t i = perm[(size_t)pos];
        for (int64_t j = 0; j < width; j++) ddst[(int64_t)key * ldd + j] = dsrc[i * lds + j];
        if (times) ddst_t[key] = dsrc_t[i];
    }
    return DGNN_OK;
}

// ---- the node state store (state.cu) ----

// state_init, _free, _reset: src/nn/cuda/state_host.cu, compiled here as it is

// every array of the state, whole
static void need_state(const dgnn_cuda_state *s, const char *fn) {
    const int64_t N = s->num_nodes, M = s->mem_dim, D = s->mail_dim, S = s->slots;
    need_dev(s->mem, F4(N * M), fn, "state mem");
    need_dev(s->mem_t, D8(N), fn, "state mem_t");
    need_dev(s->mail, F4(N * S * D), fn, "state mail");
    need_dev(s->mail_t, D8(N * S), fn, "state mail_t");
    need_dev(s->mail_n, I4(N), fn, "state mail_n");
    need_dev(s->mail_head, I4(N), fn, "state mail_head");
}

// state.cu's gather and set of memories: rows.cu's ops over the store's arrays, as there
extern "C" int dgnn_cuda_state_gather_mem(dgnn_cuda *c, float *dout, const dgnn_cuda_state *s, const int32_t *dnodes,
                                          int64_t n, dgnn_err *err) {
    if (!dnodes && n > 0) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_state_gather_mem: nodes is NULL");
    return dgnn_cuda_gather_rows(c, dout, s->mem_dim, s->mem, s->mem_dim, dnodes, n, s->mem_dim, err);
}

extern "C" int dgnn_cuda_state_set_mem(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, const float *drows,
                                       const double *dt, int64_t n, dgnn_err *err) {
    return dgnn_cuda_scatter_rows_last(c, s->mem, s->mem_dim, dt ? s->mem_t : nullptr, drows, s->mem_dim, dt, dnodes,
                                       n, s->mem_dim, err);
}

extern "C" int dgnn_cuda_state_clear_mails(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, int64_t n,
                                           dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_state_clear_mails";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes;
    need_dev(dnodes, I4(n), fn, "nodes");
    need_dev(s->mail_n, I4(N), fn, "state mail_n");
    need_dev(s->mail_head, I4(N), fn, "state mail_head");
    for (int64_t i = 0; i < n; i++) { // clear_mails_kernel: a node outside [0, N) is skipped
        const int32_t v = dnodes[i];
        if (v < 0 || v >= N) continue;
        s->mail_n[v] = 0;
        s->mail_head[v] = 0;
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_state_push_mails(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes,
                                          const float *dmails, const double *dt, int64_t n, int agg, dgnn_err *err) {
    const char *fn = "dgnn_cuda_state_push_mails";
    need_ctx(c, fn);
    in_call k;
    if (agg != DGNN_CUDA_AGG_LAST && agg != DGNN_CUDA_AGG_MEAN)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_state_push_mails: unknown aggregator %d", agg);
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes, S = s->slots, D = s->mail_dim;
    need_state(s, fn);
    need_dev(dnodes, I4(n), fn, "nodes");
    need_dev(dmails, F4(n * D), fn, "mails");
    need_dev(dt, D8(n), fn, "t");
    const std::vector<int32_t> perm = groups_of(dnodes, n);
    // per group (a node's positions, in the order given): push_mail_rows, then push_mail_heads
    for (int64_t pos = 0; pos < n; pos++) {
        const int32_t v = dnodes[perm[(size_t)pos]];
        if ((pos > 0 && dnodes[perm[(size_t)pos - 1]] == v) || v < 0 || v >= N) continue;
        int64_t b = pos + 1;
        while (b < n && dnodes[perm[(size_t)b]] == v) b++;
        const int32_t slot = s->mail_head[v];
        float *dst = s->mail + ((int64_t)v * S + slot) * D;
        for (int64_t d = 0; d < D; d++) {
            if (agg == DGNN_CUDA_AGG_LAST) {
                dst[d] = dmails[(int64_t)perm[(size_t)b - 1] * D + d];
            } else {
                float acc = 0.0f;
                for (int64_t q = pos; q < b; q++) acc += dmails[(int64_t)perm[(size_t)q] * D + d];
                dst[d] = acc * (1.0f / (float)(b - pos));
            }
        }
        double tv;
        if (agg == DGNN_CUDA_AGG_LAST) {
            tv = dt[perm[(size_t)b - 1]];
        } else {
            tv = dt[perm[(size_t)pos]];
            for (int64_t q = pos; q < b; q++)
                if (dt[perm[(size_t)q]] > tv) tv = dt[perm[(size_t)q]];
        }
        s->mail_t[(int64_t)v * S + slot] = tv;
        s->mail_head[v] = (int32_t)((slot + 1) % S);
        if (s->mail_n[v] < S) s->mail_n[v]++;
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_state_last_mail(dgnn_cuda *c, float *dout, double *dout_t, int32_t *dhas,
                                         const dgnn_cuda_state *s, const int32_t *dnodes, int64_t n, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_state_last_mail";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes, S = s->slots, D = s->mail_dim;
    need_state(s, fn);
    need_dev(dnodes, I4(n), fn, "nodes");
    if (dout) need_dev(dout, F4(n * D), fn, "out");
    if (dout_t) need_dev(dout_t, D8(n), fn, "out_t");
    if (dhas) need_dev(dhas, I4(n), fn, "has");
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = dnodes[i];
        const int ok = v >= 0 && v < N && s->mail_n[v] > 0;
        const int64_t slot = ok ? ((int64_t)s->mail_head[v] + S - 1) % S : 0;
        if (dout)
            for (int64_t d = 0; d < D; d++) dout[i * D + d] = ok ? s->mail[((int64_t)v * S + slot) * D + d] : 0.0f;
        if (dout_t) dout_t[i] = ok ? s->mail_t[(int64_t)v * S + slot] : 0.0;
        if (dhas) dhas[i] = ok;
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_state_time_since(dgnn_cuda *c, float *ddt, const double *d_t, const dgnn_cuda_state *s,
                                          const int32_t *dnodes, int64_t n, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_state_time_since";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes;
    need_dev(s->mem_t, D8(N), fn, "state mem_t");
    need_dev(ddt, F4(n), fn, "dt");
    need_dev(d_t, D8(n), fn, "t");
    need_dev(dnodes, I4(n), fn, "nodes");
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = dnodes[i];
        ddt[i] = v >= 0 && v < N ? (float)(d_t[i] - s->mem_t[v]) : 0.0f;
    }
    return DGNN_OK;
}

extern "C" int dgnn_cuda_state_commit_mem(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes,
                                          const int32_t *drow, const float *dh, const double *dh_t, int64_t n,
                                          dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_state_commit_mem";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    const int64_t N = s->num_nodes, M = s->mem_dim;
    need_state(s, fn);
    need_dev(dnodes, I4(n), fn, "nodes");
    need_dev(drow, I4(n), fn, "row");
    const std::vector<int32_t> perm = groups_of(dnodes, n);
    // commit_rows: each node's FIRST position stores its row of h when the node has a pending mail
    std::vector<char> first((size_t)n, 0);
    for (int64_t pos = 0; pos < n; pos++) {
        const int32_t v = dnodes[perm[(size_t)pos]];
        if ((pos > 0 && dnodes[perm[(size_t)pos - 1]] == v) || v < 0 || v >= N || s->mail_n[v] == 0) continue;
        first[(size_t)pos] = 1;
        const int64_t r = drow[perm[(size_t)pos]];
        if (r < 0) die("%s: position %d's row is %lld", fn, perm[(size_t)pos], (long long)r);
        need_dev(dh + r * M, F4(M), fn, "h (the row of a committed node)");
        need_dev(dh_t + r, D8(1), fn, "h_t (the row of a committed node)");
        for (int64_t j = 0; j < M; j++) s->mem[(int64_t)v * M + j] = dh[r * M + j];
        s->mem_t[v] = dh_t[r];
    }
    // then commit_clear: their consumed mails dropped
    for (int64_t pos = 0; pos < n; pos++) {
        if (!first[(size_t)pos]) continue;
        const int32_t v = dnodes[perm[(size_t)pos]];
        s->mail_n[v] = 0;
        s->mail_head[v] = 0;
    }
    return DGNN_OK;
}

// ---- layers: the CPU ops of nn.h on the same arrays ----

extern "C" int dgnn_cuda_gru_forward(dgnn_cuda *c, float *dhout, float *dsaved, const float *dx, const float *dh,
                                     const float *dW_ih, const float *dW_hh, const float *db_ih, const float *db_hh,
                                     int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    const char *fn = "dgnn_cuda_gru_forward";
    need_ctx(c, fn);
    in_call k;
    if (dhout == dh) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_gru_forward: hout must not alias h");
    if (B * H <= 0) return DGNN_OK;
    need_dev(dhout, F4(B * H), fn, "hout");
    need_dev(dsaved, F4(B * 6 * H), fn, "saved");
    need_dev(dx, F4(B * Din), fn, "x");
    need_dev(dh, F4(B * H), fn, "h");
    need_dev(dW_ih, F4(3 * H * Din), fn, "W_ih");
    need_dev(dW_hh, F4(3 * H * H), fn, "W_hh");
    if (db_ih) need_dev(db_ih, F4(3 * H), fn, "b_ih");
    if (db_hh) need_dev(db_hh, F4(3 * H), fn, "b_hh");
    dgnn_gru_forward(dhout, dsaved, dx, dh, dW_ih, dW_hh, db_ih, db_hh, B, Din, H);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_gru_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh,
                                      float *ddb_ih, float *ddb_hh, float *dscratch, const float *ddhout,
                                      const float *dsaved, const float *dx, const float *dh, const float *dW_ih,
                                      const float *dW_hh, int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_gru_backward";
    need_ctx(c, fn);
    in_call k;
    if (B * H <= 0) return DGNN_OK;
    if (ddx) need_dev(ddx, F4(B * Din), fn, "dx");
    if (ddh) need_dev(ddh, F4(B * H), fn, "dh");
    if (ddW_ih) need_dev(ddW_ih, F4(3 * H * Din), fn, "dW_ih");
    if (ddW_hh) need_dev(ddW_hh, F4(3 * H * H), fn, "dW_hh");
    if (ddb_ih) need_dev(ddb_ih, F4(3 * H), fn, "db_ih");
    if (ddb_hh) need_dev(ddb_hh, F4(3 * H), fn, "db_hh");
    need_dev(dscratch, F4(B * 6 * H), fn, "scratch");
    need_dev(ddhout, F4(B * H), fn, "dhout");
    need_dev(dsaved, F4(B * 6 * H), fn, "saved");
    need_dev(dx, F4(B * Din), fn, "x");
    need_dev(dh, F4(B * H), fn, "h");
    need_dev(dW_ih, F4(3 * H * Din), fn, "W_ih");
    need_dev(dW_hh, F4(3 * H * H), fn, "W_hh");
    dgnn_gru_backward(ddx, ddh, ddW_ih, ddW_hh, ddb_ih, ddb_hh, dscratch, ddhout, dsaved, dx, dh, dW_ih, dW_hh, B, Din,
                      H);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_rnn_forward(dgnn_cuda *c, float *dhout, const float *dx, const float *dh, const float *dW_ih,
                                     const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B, int64_t Din,
                                     int64_t H, dgnn_err *err) {
    const char *fn = "dgnn_cuda_rnn_forward";
    need_ctx(c, fn);
    in_call k;
    if (dhout == dh) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_rnn_forward: hout must not alias h");
    if (B * H <= 0) return DGNN_OK;
    need_dev(dhout, F4(B * H), fn, "hout");
    need_dev(dx, F4(B * Din), fn, "x");
    need_dev(dh, F4(B * H), fn, "h");
    need_dev(dW_ih, F4(H * Din), fn, "W_ih");
    need_dev(dW_hh, F4(H * H), fn, "W_hh");
    if (db_ih) need_dev(db_ih, F4(H), fn, "b_ih");
    if (db_hh) need_dev(db_hh, F4(H), fn, "b_hh");
    dgnn_rnn_forward(dhout, dx, dh, dW_ih, dW_hh, db_ih, db_hh, B, Din, H);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_rnn_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh, float *ddb_ih,
                                      float *ddb_hh, float *dscratch, const float *ddhout, const float *dhout,
                                      const float *dx, const float *dh, const float *dW_ih, const float *dW_hh,
                                      int64_t B, int64_t Din, int64_t H, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_rnn_backward";
    need_ctx(c, fn);
    in_call k;
    if (B * H <= 0) return DGNN_OK;
    if (ddx) need_dev(ddx, F4(B * Din), fn, "dx");
    if (ddh) need_dev(ddh, F4(B * H), fn, "dh");
    if (ddW_ih) need_dev(ddW_ih, F4(H * Din), fn, "dW_ih");
    if (ddW_hh) need_dev(ddW_hh, F4(H * H), fn, "dW_hh");
    if (ddb_ih) need_dev(ddb_ih, F4(H), fn, "db_ih");
    if (ddb_hh) need_dev(ddb_hh, F4(H), fn, "db_hh");
    need_dev(dscratch, F4(B * H), fn, "scratch");
    need_dev(ddhout, F4(B * H), fn, "dhout");
    need_dev(dhout, F4(B * H), fn, "hout");
    need_dev(dx, F4(B * Din), fn, "x");
    need_dev(dh, F4(B * H), fn, "h");
    need_dev(dW_ih, F4(H * Din), fn, "W_ih");
    need_dev(dW_hh, F4(H * H), fn, "W_hh");
    dgnn_rnn_backward(ddx, ddh, ddW_ih, ddW_hh, ddb_ih, ddb_hh, dscratch, ddhout, dhout, dx, dh, dW_ih, dW_hh, B, Din,
                      H);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_jodie_dt_tgl(dgnn_cuda *c, float *ddt, const double *d_t, const double *d_tmem, int64_t B,
                                      dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_jodie_dt_tgl";
    need_ctx(c, fn);
    in_call k;
    if (B <= 0) return DGNN_OK;
    need_dev(ddt, F4(B), fn, "dt");
    need_dev(d_t, D8(B), fn, "t");
    need_dev(d_tmem, D8(B), fn, "t_mem");
    dgnn_jodie_dt_tgl(ddt, d_t, d_tmem, B);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_jodie_forward(dgnn_cuda *c, float *dout, const float *dh, const float *ddt, const float *dw,
                                       const float *db, int64_t B, int64_t M, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_jodie_forward";
    need_ctx(c, fn);
    in_call k;
    if (B * M <= 0) return DGNN_OK;
    need_dev(dout, F4(B * M), fn, "out");
    need_dev(dh, F4(B * M), fn, "h");
    need_dev(ddt, F4(B), fn, "dt");
    need_dev(dw, F4(M), fn, "w");
    if (db) need_dev(db, F4(M), fn, "b");
    dgnn_jodie_forward(dout, dh, ddt, dw, db, B, M);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_jodie_backward(dgnn_cuda *c, float *ddh, float *ddw, float *ddb, const float *ddout,
                                        const float *dh, const float *ddt, const float *dw, const float *db, int64_t B,
                                        int64_t M, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_jodie_backward";
    need_ctx(c, fn);
    in_call k;
    if (B * M <= 0) return DGNN_OK;
    if (ddh) need_dev(ddh, F4(B * M), fn, "dh");
    if (ddw) need_dev(ddw, F4(M), fn, "dw");
    if (ddb) need_dev(ddb, F4(M), fn, "db");
    need_dev(ddout, F4(B * M), fn, "dout");
    need_dev(dh, F4(B * M), fn, "h");
    need_dev(ddt, F4(B), fn, "dt");
    need_dev(dw, F4(M), fn, "w");
    if (db) need_dev(db, F4(M), fn, "b");
    dgnn_jodie_backward(ddh, ddw, ddb, ddout, dh, ddt, dw, db, B, M);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_timeenc_forward(dgnn_cuda *c, float *dout, const float *ddt, const float *dw, const float *db,
                                         int64_t N, int64_t d, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_timeenc_forward";
    need_ctx(c, fn);
    in_call k;
    if (N * d == 0) return DGNN_OK;
    need_dev(dout, F4(N * d), fn, "out");
    need_dev(ddt, F4(N), fn, "dt");
    need_dev(dw, F4(d), fn, "w");
    if (db) need_dev(db, F4(d), fn, "b");
    dgnn_timeenc_forward(dout, ddt, dw, db, N, d);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_timeenc_backward(dgnn_cuda *c, float *ddw, float *ddb, const float *ddout, const float *ddt,
                                          const float *dw, const float *db, int64_t N, int64_t d, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_timeenc_backward";
    need_ctx(c, fn);
    in_call k;
    if ((!ddw && !ddb) || d == 0) return DGNN_OK;
    if (ddw) need_dev(ddw, F4(d), fn, "dw");
    if (ddb) need_dev(ddb, F4(d), fn, "db");
    need_dev(ddout, F4(N * d), fn, "dout");
    need_dev(ddt, F4(N), fn, "dt");
    need_dev(dw, F4(d), fn, "w");
    if (db) need_dev(db, F4(d), fn, "b");
    dgnn_timeenc_backward(ddw, ddb, ddout, ddt, dw, db, N, d);
    return DGNN_OK;
}

static void need_edgepred(const dgnn_edgepred_params *p, int64_t D, int64_t Hd, const char *fn, const char *what) {
    char a[64];
    snprintf(a, sizeof a, "%s.Ws", what), need_dev(p->Ws, F4(Hd * D), fn, a);
    snprintf(a, sizeof a, "%s.Wd", what), need_dev(p->Wd, F4(Hd * D), fn, a);
    snprintf(a, sizeof a, "%s.Wo", what), need_dev(p->Wo, F4(Hd), fn, a);
    if (p->bs) snprintf(a, sizeof a, "%s.bs", what), need_dev(p->bs, F4(Hd), fn, a);
    if (p->bd) snprintf(a, sizeof a, "%s.bd", what), need_dev(p->bd, F4(Hd), fn, a);
    if (p->bo) snprintf(a, sizeof a, "%s.bo", what), need_dev(p->bo, F4(1), fn, a);
}

extern "C" int dgnn_cuda_edgepred_forward(dgnn_cuda *c, float *dlogits, float *dsaved, const float *dh_src,
                                          const float *dh_dst, const dgnn_edgepred_params *dp, int64_t Be,
                                          int64_t nneg, int64_t D, int64_t Hd, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_edgepred_forward";
    need_ctx(c, fn);
    in_call k;
    const int64_t R = (1 + nneg) * Be;
    if (R <= 0) return DGNN_OK;
    need_dev(dlogits, F4(R), fn, "logits");
    need_dev(dsaved, F4(DGNN_EDGEPRED_SAVED(Be, nneg, Hd)), fn, "saved");
    need_dev(dh_src, F4(Be * D), fn, "h_src");
    need_dev(dh_dst, F4(R * D), fn, "h_dst");
    need_edgepred(dp, D, Hd, fn, "p");
    dgnn_edgepred_forward(dlogits, dsaved, dh_src, dh_dst, dp, Be, nneg, D, Hd);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_edgepred_backward(dgnn_cuda *c, float *ddh_src, float *ddh_dst, dgnn_edgepred_params *ddp,
                                           float *dscratch, const float *ddlogits, const float *dsaved,
                                           const float *dh_src, const float *dh_dst, const dgnn_edgepred_params *dp,
                                           int64_t Be, int64_t nneg, int64_t D, int64_t Hd, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_edgepred_backward";
    need_ctx(c, fn);
    in_call k;
    const int64_t R = (1 + nneg) * Be;
    if (R * Hd <= 0) return DGNN_OK;
    if (ddh_src) need_dev(ddh_src, F4(Be * D), fn, "dh_src");
    if (ddh_dst) need_dev(ddh_dst, F4(R * D), fn, "dh_dst");
    need_edgepred(ddp, D, Hd, fn, "dp");
    need_dev(dscratch, F4(DGNN_EDGEPRED_SAVED(Be, nneg, Hd)), fn, "scratch");
    need_dev(ddlogits, F4(R), fn, "dlogits");
    need_dev(dsaved, F4(DGNN_EDGEPRED_SAVED(Be, nneg, Hd)), fn, "saved");
    need_dev(dh_src, F4(Be * D), fn, "h_src");
    need_dev(dh_dst, F4(R * D), fn, "h_dst");
    need_edgepred(dp, D, Hd, fn, "p");
    // edgepred_backward's rule: dbd only where the layer has bd
    dgnn_edgepred_params g = *ddp;
    if (!dp->bd) g.bd = nullptr;
    dgnn_edgepred_backward(ddh_src, ddh_dst, &g, dscratch, ddlogits, dsaved, dh_src, dh_dst, dp, Be, nneg, D, Hd);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_bce_logits_forward(dgnn_cuda *c, float *dloss, float *dlosses, const float *dlogits,
                                            const float *dlabels, int64_t n, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_bce_logits_forward";
    need_ctx(c, fn);
    in_call k;
    need_dev(dloss, F4(1), fn, "loss");
    if (n <= 0) { // the CPU's 0 for no terms
        *dloss = 0.0f;
        return DGNN_OK;
    }
    if (dlosses) need_dev(dlosses, F4(n), fn, "losses");
    need_dev(dlogits, F4(n), fn, "logits");
    need_dev(dlabels, F4(n), fn, "labels");
    *dloss = dgnn_bce_logits_forward(dlosses, dlogits, dlabels, n); // the mean into device memory, as loss.cu
    return DGNN_OK;
}

extern "C" int dgnn_cuda_bce_logits_backward(dgnn_cuda *c, float *ddlogits, const float *dlogits,
                                             const float *dlabels, int64_t n, float dloss, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_bce_logits_backward";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    need_dev(ddlogits, F4(n), fn, "dlogits");
    need_dev(dlogits, F4(n), fn, "logits");
    need_dev(dlabels, F4(n), fn, "labels");
    dgnn_bce_logits_backward(ddlogits, dlogits, dlabels, n, dloss);
    return DGNN_OK;
}

// ---- the temporal attention layer (attention.cu) ----

// attention.cu's refusals and sizes: its own layer_dims (attention_dims.h)

// the input's arrays (the GPU reads the pair count from its argument P, never from off: the
// emulation checks that the two agree, a mismatch being a silent misread on a GPU)
static void need_attn_input(const dgnn_tattn_input *in, const dims &d, const char *fn) {
    need_dev(in->off, (size_t)(d.B + 1) * sizeof(int64_t), fn, "in.off");
    need_dev(in->h_root, F4(d.Ur * d.dn), fn, "in.h_root");
    if (in->root_row) need_dev(in->root_row, I4(d.B), fn, "in.root_row");
    need_dev(in->te0, F4(d.dt), fn, "in.te0");
    need_dev(in->h_nbr, F4(d.Un * d.dn), fn, "in.h_nbr");
    need_dev(in->nbr_row, I4(d.P), fn, "in.nbr_row");
    if (d.de > 0) need_dev(in->e_feat, F4(d.Ue * d.de), fn, "in.e_feat");
    if (in->edge_row) need_dev(in->edge_row, I4(d.P), fn, "in.edge_row");
    need_dev(in->te, F4(d.P * d.dt), fn, "in.te");
}
static void check_pairs(const dgnn_tattn_input *in, const dims &d, const char *fn) {
    if (in->off[0] != 0 || in->off[d.B] != d.P)
        die("%s: the pair offsets run from %lld to %lld, P is %lld", fn, (long long)in->off[0], (long long)in->off[d.B],
            (long long)d.P);
    for (int64_t p = 0; p < d.P; p++)
        if (in->nbr_row[p] < 0 || in->nbr_row[p] >= d.Un)
            die("%s: pair %lld's neighbour row %d is outside the %lld node rows", fn, (long long)p, in->nbr_row[p],
                (long long)d.Un);
    if (in->root_row)
        for (int64_t i = 0; i < d.B; i++)
            if (in->root_row[i] < 0 || in->root_row[i] >= d.Ur)
                die("%s: root %lld's query row %d is outside the %lld rows", fn, (long long)i, in->root_row[i],
                    (long long)d.Ur);
}
static void need_attn_params(const dgnn_tattn_params *p, const char *fn, const char *what) {
    const float *f[] = {p->Wq, p->bq, p->Wk, p->bk, p->Wv, p->bv, p->Wo, p->bo, p->W1, p->b1, p->W2, p->b2, p->ln_g, p->ln_b};
    const char *n[] = {"Wq", "bq", "Wk", "bk", "Wv", "bv", "Wo", "bo", "W1", "b1", "W2", "b2", "ln_g", "ln_b"};
    for (int i = 0; i < 14; i++) {
        char a[64];
        snprintf(a, sizeof a, "%s.%s", what, n[i]);
        need_dev_opt(f[i], fn, a);
    }
}
static void need_attn_saved(const dgnn_tattn_saved *s, const char *fn) {
    const float *f[] = {s->qc, s->q, s->qt, s->qb, s->logit, s->att, s->att_mask, s->xbar, s->asum, s->o,
                        s->wfold, s->cfold, s->cat, s->zr, s->z, s->drop_mask, s->r, s->ln_mean, s->ln_rstd,
                        s->dq, s->dqt, s->dqb, s->dxbar, s->dasum, s->ds, s->dxn, s->dxe, s->do_, s->dwfold,
                        s->dcfold, s->dcat, s->dz, s->dqtu, s->dqbu, s->dzr};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char a[48];
        snprintf(a, sizeof a, "the saved slab's field %zu", i);
        need_dev_opt(f[i], fn, a);
    }
}

extern "C" int dgnn_cuda_tattn_forward(dgnn_cuda *c, float *dout, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                                       int64_t P, const dgnn_tattn_params *p, const dgnn_tattn_cfg *cfg,
                                       const uint64_t *seeds, dgnn_err *err) {
    const char *fn = "dgnn_cuda_tattn_forward";
    need_ctx(c, fn);
    in_call k;
    dims d;
    int rc = layer_dims(&d, s, in, P, cfg, fn, err);
    if (rc) return rc;
    need_dev(dout, F4(d.B * cfg->dout), fn, "out");
    need_attn_input(in, d, fn);
    need_attn_params(p, fn, "p");
    need_attn_saved(s, fn);
    const int nseeds = (cfg->attn_dropout > 0) + (cfg->kind == DGNN_ATTN_TGL && cfg->dropout > 0);
    if (seeds && nseeds > 0) need_host(seeds, (size_t)nseeds * sizeof(uint64_t), fn, "seeds"); // read by the host
    check_pairs(in, d, fn);
    dgnn_tattn_forward_seeded(dout, s, in, p, cfg, seeds);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_tattn_backward(dgnn_cuda *c, dgnn_tattn_dinput *din, dgnn_tattn_params *dp,
                                        const float *ddout, dgnn_tattn_saved *s, const dgnn_tattn_input *in,
                                        int64_t P, const dgnn_tattn_params *p, const dgnn_tattn_cfg *cfg,
                                        dgnn_err *err) {
    const char *fn = "dgnn_cuda_tattn_backward";
    need_ctx(c, fn);
    in_call k;
    dims d;
    int rc = layer_dims(&d, s, in, P, cfg, fn, err);
    if (rc) return rc;
    need_dev(ddout, F4(d.B * cfg->dout), fn, "dout");
    need_attn_input(in, d, fn);
    need_attn_params(p, fn, "p");
    need_attn_params(dp, fn, "dp");
    need_attn_saved(s, fn);
    if (din->h_root) need_dev(din->h_root, F4(d.Ur * d.dn), fn, "din.h_root");
    if (din->te0) need_dev(din->te0, F4(d.dt), fn, "din.te0");
    if (din->h_nbr) need_dev(din->h_nbr, F4(d.Un * d.dn), fn, "din.h_nbr");
    if (din->e_feat && d.de > 0) need_dev(din->e_feat, F4(d.Ue * d.de), fn, "din.e_feat");
    if (din->te) need_dev(din->te, F4(d.P * d.dt), fn, "din.te");
    check_pairs(in, d, fn);
    dgnn_tattn_backward(din, dp, ddout, s, in, p, cfg);
    return DGNN_OK;
}

// ---- APAN's ops (linear.cu, act.cu, layernorm.cu, attention_core.cu, the gemm): apan_step.cu ----

// an A (rows, cols; stride ld) operand, op'd or not: the extent it reads
static size_t mat_bytes(int trans, int64_t r, int64_t c, int64_t ld) {
    const int64_t rows = trans ? c : r, cols = trans ? r : c; // stored shape
    return rows > 0 && cols > 0 ? F4((rows - 1) * ld + cols) : 0;
}

extern "C" int dgnn_cuda_gemm(dgnn_cuda *c, int transA, int transB, int64_t M, int64_t N, int64_t K, const float *dA,
                              int64_t lda, const float *dB, int64_t ldb, float beta, float *dC, int64_t ldc,
                              dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_gemm";
    need_ctx(c, fn);
    in_call k;
    if (M <= 0 || N <= 0) return DGNN_OK;
    need_dev(dC, F4((M - 1) * ldc + N), fn, "C");
    if (K > 0) {
        need_dev(dA, mat_bytes(transA, M, K, lda), fn, "A");
        need_dev(dB, mat_bytes(transB, K, N, ldb), fn, "B");
    }
    dgnn_gemm(transA, transB, M, N, K, dA, lda, dB, ldb, beta, dC, ldc);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_linear_forward(dgnn_cuda *c, float *dout, const float *dinp, const float *dW, const float *db,
                                        int64_t B, int64_t Din, int64_t Dout, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_linear_forward";
    need_ctx(c, fn);
    in_call k;
    if (B <= 0 || Dout <= 0) return DGNN_OK;
    need_dev(dout, F4(B * Dout), fn, "out");
    need_dev(dinp, F4(B * Din), fn, "inp");
    need_dev(dW, F4(Dout * Din), fn, "W");
    if (db) need_dev(db, F4(Dout), fn, "b");
    dgnn_linear_forward(dout, dinp, dW, db, B, Din, Dout);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_linear_backward(dgnn_cuda *c, float *ddinp, float *ddW, float *ddb, const float *ddout,
                                         const float *dinp, const float *dW, int64_t B, int64_t Din, int64_t Dout,
                                         dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_linear_backward";
    need_ctx(c, fn);
    in_call k;
    if (B <= 0 || Dout <= 0) return DGNN_OK; // Din = 0: the bias gradient still adds up (linear.cu)
    if (ddinp && Din > 0) need_dev(ddinp, F4(B * Din), fn, "dinp");
    if (ddW && Din > 0) need_dev(ddW, F4(Dout * Din), fn, "dW");
    if (ddb) need_dev(ddb, F4(Dout), fn, "db");
    need_dev(ddout, F4(B * Dout), fn, "dout");
    if (Din > 0) need_dev(dinp, F4(B * Din), fn, "inp");
    if (Din > 0) need_dev(dW, F4(Dout * Din), fn, "W");
    dgnn_linear_backward(ddinp, ddW, ddb, ddout, dinp, dW, B, Din, Dout);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_relu_forward(dgnn_cuda *c, float *dout, const float *dinp, int64_t n, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_relu_forward";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    need_dev(dout, F4(n), fn, "out");
    need_dev(dinp, F4(n), fn, "inp");
    dgnn_relu_forward(dout, dinp, n);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_relu_backward(dgnn_cuda *c, float *ddinp, const float *ddout, const float *dout, int64_t n,
                                       dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_relu_backward";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0) return DGNN_OK;
    need_dev(ddinp, F4(n), fn, "dinp");
    need_dev(ddout, F4(n), fn, "dout");
    need_dev(dout, F4(n), fn, "out");
    dgnn_relu_backward(ddinp, ddout, dout, n);
    return DGNN_OK;
}

// act.cu's check_p: a probability the CPU op asserts on is DGNN_EINVAL here
static int dropout_p(float p, const char *fn, dgnn_err *err) {
    if (!(p >= 0 && p < 1)) return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: dropout p %g is not in [0, 1)", fn, (double)p);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_dropout_mask(dgnn_cuda *c, float *dmask, int64_t n, float p, uint64_t seed, dgnn_err *err) {
    const char *fn = "dgnn_cuda_dropout_mask";
    need_ctx(c, fn);
    in_call k;
    int rc = dropout_p(p, fn, err);
    if (rc || n <= 0) return rc;
    need_dev(dmask, F4(n), fn, "mask");
    dgnn_dropout_mask(dmask, n, p, seed);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_dropout_forward(dgnn_cuda *c, float *dout, float *dmask, const float *dinp, int64_t n,
                                         float p, const uint64_t *seed, dgnn_err *err) {
    const char *fn = "dgnn_cuda_dropout_forward";
    need_ctx(c, fn);
    in_call k;
    int rc = dropout_p(p, fn, err);
    if (rc || n <= 0) return rc;
    need_dev(dout, F4(n), fn, "out");
    need_dev(dmask, F4(n), fn, "mask");
    need_dev(dinp, F4(n), fn, "inp");
    if (!seed || p == 0) { // act.cu: inference, or nothing to drop: mask 1, out = inp
        for (int64_t i = 0; i < n; i++) dmask[i] = 1.0f;
        if (dout != dinp) memcpy(dout, dinp, F4(n));
        return DGNN_OK;
    }
    dgnn_dropout_mask(dmask, n, p, *seed);
    for (int64_t i = 0; i < n; i++) dout[i] = dinp[i] * dmask[i]; // act.c's product
    return DGNN_OK;
}

extern "C" int dgnn_cuda_dropout_backward(dgnn_cuda *c, float *ddinp, const float *ddout, const float *dmask,
                                          int64_t n, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_dropout_backward";
    need_ctx(c, fn);
    in_call k;
    if (n <= 0 || !ddinp) return DGNN_OK;
    need_dev(ddinp, F4(n), fn, "dinp");
    need_dev(ddout, F4(n), fn, "dout");
    need_dev(dmask, F4(n), fn, "mask");
    dgnn_dropout_backward(ddinp, ddout, dmask, n);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_layernorm_forward(dgnn_cuda *c, float *dout, float *dmean, float *drstd, const float *dinp,
                                           const float *dg, const float *db, int64_t N, int64_t C, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_layernorm_forward";
    need_ctx(c, fn);
    in_call k;
    if (N <= 0 || C <= 0) return DGNN_OK;
    need_dev(dout, F4(N * C), fn, "out");
    need_dev(dmean, F4(N), fn, "mean");
    need_dev(drstd, F4(N), fn, "rstd");
    need_dev(dinp, F4(N * C), fn, "inp");
    need_dev(dg, F4(C), fn, "g");
    need_dev(db, F4(C), fn, "b");
    dgnn_layernorm_forward(dout, dmean, drstd, dinp, dg, db, N, C);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_layernorm_backward(dgnn_cuda *c, float *ddinp, float *ddg, float *ddb, const float *ddout,
                                            const float *dinp, const float *dg, const float *dmean,
                                            const float *drstd, int64_t N, int64_t C, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_layernorm_backward";
    need_ctx(c, fn);
    in_call k;
    if (N <= 0 || C <= 0) return DGNN_OK;
    if (ddinp) need_dev(ddinp, F4(N * C), fn, "dinp");
    if (ddg) need_dev(ddg, F4(C), fn, "dg");
    if (ddb) need_dev(ddb, F4(C), fn, "db");
    need_dev(ddout, F4(N * C), fn, "dout");
    need_dev(dinp, F4(N * C), fn, "inp");
    need_dev(dg, F4(C), fn, "g");
    need_dev(dmean, F4(N), fn, "mean");
    need_dev(drstd, F4(N), fn, "rstd");
    dgnn_layernorm_backward(ddinp, ddg, ddb, ddout, dinp, dg, dmean, drstd, N, C);
    return DGNN_OK;
}

// the core's arrays: off (B + 1) first (its last entry is the key count P)
static int64_t need_core(const int64_t *doff, int64_t B, const char *fn) {
    need_dev(doff, (size_t)(B + 1) * sizeof(int64_t), fn, "off");
    if (doff[0] != 0) die("%s: the key offsets start at %lld, not 0", fn, (long long)doff[0]);
    for (int64_t i = 0; i < B; i++)
        if (doff[i + 1] < doff[i]) die("%s: the key offsets fall at query %lld", fn, (long long)i);
    return doff[B];
}

extern "C" int dgnn_cuda_attn_core_forward(dgnn_cuda *c, float *dO, float *dlogit, float *datt, const float *datt_mask,
                                           const float *dq, const float *dk, const float *dv, const int64_t *doff,
                                           int64_t B, int64_t heads, int64_t E, dgnn_score_kind kind, dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_attn_core_forward";
    need_ctx(c, fn);
    in_call k;
    if (B <= 0) return DGNN_OK;
    if (heads < 1 || E % heads != 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: %lld heads do not divide width %lld", fn, (long long)heads,
                              (long long)E);
    const int64_t P = need_core(doff, B, fn);
    need_dev(dO, F4(B * E), fn, "o");
    need_dev(dq, F4(B * E), fn, "q");
    if (P > 0) {
        need_dev(dlogit, F4(P * heads), fn, "logit");
        need_dev(datt, F4(P * heads), fn, "att");
        if (datt_mask) need_dev(datt_mask, F4(P * heads), fn, "att_mask");
        need_dev(dk, F4(P * E), fn, "k");
        need_dev(dv, F4(P * E), fn, "v");
    }
    dgnn_attn_core_forward(dO, dlogit, datt, datt_mask, dq, dk, dv, doff, B, heads, E, kind);
    return DGNN_OK;
}

extern "C" int dgnn_cuda_attn_core_backward(dgnn_cuda *c, float *ddq, float *ddk, float *ddv, const float *ddO,
                                            const float *dlogit, const float *datt, const float *datt_mask,
                                            const float *dq, const float *dk, const float *dv, const int64_t *doff,
                                            int64_t B, int64_t heads, int64_t E, dgnn_score_kind kind,
                                            dgnn_err *err) {
    (void)err;
    const char *fn = "dgnn_cuda_attn_core_backward";
    need_ctx(c, fn);
    in_call k;
    if (B <= 0) return DGNN_OK;
    if (heads < 1 || E % heads != 0)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "%s: %lld heads do not divide width %lld", fn, (long long)heads,
                              (long long)E);
    const int64_t P = need_core(doff, B, fn);
    if (ddq) need_dev(ddq, F4(B * E), fn, "dq");
    need_dev(ddO, F4(B * E), fn, "do");
    need_dev(dq, F4(B * E), fn, "q");
    if (P > 0) {
        if (ddk) need_dev(ddk, F4(P * E), fn, "dk");
        if (ddv) need_dev(ddv, F4(P * E), fn, "dv");
        need_dev(dlogit, F4(P * heads), fn, "logit");
        need_dev(datt, F4(P * heads), fn, "att");
        if (datt_mask) need_dev(datt_mask, F4(P * heads), fn, "att_mask");
        need_dev(dk, F4(P * E), fn, "k");
        need_dev(dv, F4(P * E), fn, "v");
    }
    dgnn_attn_core_backward(ddq, ddk, ddv, ddO, dlogit, datt, datt_mask, dq, dk, dv, doff, B, heads, E, kind);
    return DGNN_OK;
}

// ---- Adam (adam.cu) ----

extern "C" int dgnn_cuda_adam_step(dgnn_cuda *c, float *dparam, const float *dgrad, float *dm, float *dv, int64_t n,
                                   double lr, double beta1, double beta2, double eps, double weight_decay, int64_t t,
                                   dgnn_err *err) {
    const char *fn = "dgnn_cuda_adam_step";
    need_ctx(c, fn);
    in_call k;
    if (t < 1) return dgnn_cuda_fail(err, DGNN_EINVAL, "dgnn_cuda_adam_step: step %lld (the first step is 1)", (long long)t);
    if (n <= 0) return DGNN_OK;
    need_dev(dparam, F4(n), fn, "param");
    need_dev(dgrad, F4(n), fn, "grad");
    need_dev(dm, F4(n), fn, "m");
    need_dev(dv, F4(n), fn, "v");
    // t is this step's count; the CPU op increments its dgnn_adam's count first
    dgnn_adam opt;
    memset(&opt, 0, sizeof opt);
    opt.lr = lr, opt.beta1 = beta1, opt.beta2 = beta2, opt.eps = eps, opt.weight_decay = weight_decay, opt.t = t - 1;
    dgnn_adam_step(&opt, dparam, dgrad, dm, dv, n);
    return DGNN_OK;
}

// The NCCL stand-in's access to device buffers (tests/hostemu/nccl/fake_nccl.c, a library
// the emulated command loads at run time and finds these in: the command exports its
// symbols in an emulation build). A collective is an emulated call: its buffers must be
// device memory of live allocations, open while it runs, closed after.
extern "C" void hostemu_nccl_enter(void) { g_depth++; }
extern "C" void hostemu_nccl_need(const void *p, size_t bytes, const char *call, const char *arg) {
    hostemu::need_dev(p, bytes, call, arg);
}
extern "C" void hostemu_nccl_leave(void) {
    if (--g_depth == 0) close_opened();
}
