// lane.cu: a second stream of a context's device (include/dgnn/cuda.h, "a lane"), with the
// two events that order it against the context's stream. comm_dev.c runs its collectives
// on one, so that a gradient sum overlaps the rest of the backward.
// NOT YET VERIFIED ON HARDWARE.
#include <cstdlib>

#include <cuda_runtime.h>

#include "cuda_internal.h"

struct dgnn_cuda_lane {
    dgnn_cuda *c;
    cudaStream_t stream;
    cudaEvent_t main_done, lane_done; /* recorded on the context's stream, on the lane */
};

extern "C" int dgnn_cuda_lane_init(dgnn_cuda *c, dgnn_cuda_lane **out, dgnn_err *err) {
    *out = nullptr;
    dgnn_cuda_lane *l = (dgnn_cuda_lane *)calloc(1, sizeof *l);
    if (!l) return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: a CUDA lane");
    l->c = c;
    int rc = dgnn_cuda_check(cudaSetDevice(c->device), "cudaSetDevice", err);
    if (!rc) rc = dgnn_cuda_check(cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking), "cudaStreamCreate", err);
    if (!rc) rc = dgnn_cuda_check(cudaEventCreateWithFlags(&l->main_done, cudaEventDisableTiming), "cudaEventCreate", err);
    if (!rc) rc = dgnn_cuda_check(cudaEventCreateWithFlags(&l->lane_done, cudaEventDisableTiming), "cudaEventCreate", err);
    if (rc) {
        dgnn_cuda_lane_free(l);
        return rc;
    }
    *out = l;
    return DGNN_OK;
}

extern "C" void dgnn_cuda_lane_free(dgnn_cuda_lane *l) {
    if (!l) return;
    if (l->stream) cudaStreamSynchronize(l->stream);
    if (l->main_done) cudaEventDestroy(l->main_done);
    if (l->lane_done) cudaEventDestroy(l->lane_done);
    if (l->stream) cudaStreamDestroy(l->stream);
    free(l);
}

extern "C" void *dgnn_cuda_lane_stream_handle(dgnn_cuda_lane *l) { return (void *)l->stream; }

extern "C" int dgnn_cuda_lane_wait_main(dgnn_cuda_lane *l, dgnn_err *err) {
    int rc = dgnn_cuda_check(cudaEventRecord(l->main_done, l->c->stream), "cudaEventRecord", err);
    return rc ? rc : dgnn_cuda_check(cudaStreamWaitEvent(l->stream, l->main_done, 0), "cudaStreamWaitEvent", err);
}

extern "C" int dgnn_cuda_main_wait_lane(dgnn_cuda_lane *l, dgnn_err *err) {
    int rc = dgnn_cuda_check(cudaEventRecord(l->lane_done, l->stream), "cudaEventRecord", err);
    return rc ? rc : dgnn_cuda_check(cudaStreamWaitEvent(l->c->stream, l->lane_done, 0), "cudaStreamWaitEvent", err);
}

extern "C" int dgnn_cuda_lane_sync(dgnn_cuda_lane *l, dgnn_err *err) {
    return dgnn_cuda_wait_stream(l->c, l->stream, "cudaStreamSynchronize (the lane)", err);
}

extern "C" int dgnn_cuda_lane_upload(dgnn_cuda_lane *l, void *dst, const void *src, size_t bytes, dgnn_err *err) {
    if (bytes == 0) return DGNN_OK;
    return dgnn_cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, l->stream),
                           "cudaMemcpyAsync (to the device, on the lane)", err);
}

extern "C" int dgnn_cuda_lane_download(dgnn_cuda_lane *l, void *dst, const void *dsrc, size_t bytes, dgnn_err *err) {
    if (bytes == 0) return DGNN_OK;
    return dgnn_cuda_check(cudaMemcpyAsync(dst, dsrc, bytes, cudaMemcpyDeviceToHost, l->stream),
                           "cudaMemcpyAsync (from the device, on the lane)", err);
}
