// hostemu_internal.h: what the files of the host emulation of dgnn's CUDA layer share
// (tests only; hostemu.cpp's top comment says what the emulation is and is not). hostemu.cpp
// holds the device memory's registry, the fake runtime, the context, buffers and copies and
// the memory-based models' ops; hostemu_snap.cpp the snapshot models' ops. Every emulated op
// follows one pattern, with the checks below:
//
//     const char *fn = "dgnn_cuda_...";
//     need_ctx(c, fn);
//     in_call k;                             // opens what need_dev names, until the op returns
//     ...the real op's DGNN_EINVAL checks...
//     need_dev(dY, F4(N * D), fn, "Y");      // every device array, with its true extent
//     dgnn_..._forward(dY, ...);             // the CPU op on the same arrays
//
// C++ names in a namespace of their own: nothing here is visible to the C library.
#ifndef DGNN_HOSTEMU_INTERNAL_H
#define DGNN_HOSTEMU_INTERNAL_H

#include <cstddef>
#include <cstdint>

#include "cuda_internal.h"

namespace hostemu {

// misuse: "hostemu: <message> (a bug in the caller: ...)" on stderr, then abort
[[noreturn]] __attribute__((format(printf, 1, 2))) void die(const char *fmt, ...);

// [p, p + bytes) must be device memory of one live allocation (nothing to check for 0
// bytes, where p may be NULL), which is then open (readable and writable) until the
// outermost in_call returns; only inside an in_call
void need_dev(const void *p, size_t bytes, const char *call, const char *arg);
// one element at p, when p is given (the fields of a struct of device arrays)
void need_dev_opt(const void *p, const char *call, const char *arg);
// [p, p + bytes) must be host memory (not NULL for bytes > 0)
void need_host(const void *p, size_t bytes, const char *call, const char *arg);
// c must be a live context
void need_ctx(const dgnn_cuda *c, const char *call);

// An emulated call: while the outermost one lives, the allocations its need_dev calls
// named are mapped readable and writable; when it ends, every allocation is PROT_NONE again.
// Calls nest (an emulated op may call another, as spmm.cu's GCN layer calls the gemm).
struct in_call {
    in_call();
    ~in_call();
    in_call(const in_call &) = delete;
    in_call &operator=(const in_call &) = delete;
};
// how many outermost emulated calls have begun (hostemu_lane.cpp: whether the context's
// stream was given work since a lane last waited for it)
uint64_t calls();

} // namespace hostemu

// the fake runtime's handles (cuda_runtime.h's cudaStream_t): a context's stream, or a
// lane's (hostemu_lane.cpp), whose work waits in the lane's queue
#define HOSTEMU_MAGIC 0x68656d75 /* "hemu" */
struct hostemu_lane;
struct hostemu_stream {
    int magic;
    hostemu_lane *lane; // NULL: a context's stream (everything runs when called)
};
// runs what a lane's stream has queued (cudaStreamSynchronize on it)
void hostemu_lane_flush(hostemu_lane *l);

// bytes of n floats, int32s, doubles
#define F4(n) ((size_t)(n) * sizeof(float))
#define I4(n) ((size_t)(n) * sizeof(int32_t))
#define D8(n) ((size_t)(n) * sizeof(double))

#endif
