/* comm_dev.h: collectives over GPU buffers for the distributed trainers (issue 18), beside
 * comm.h: NCCL when every rank has a GPU of its own and the NCCL library loads, else staged
 * through the host (the device buffer copied down, comm.h's MPI collective, copied up).
 *
 * Why two paths: NCCL refuses two ranks of one communicator on the same GPU ("Duplicate GPU
 * detected", NVIDIA/nccl#418), and the ranks of a job on a machine with one GPU share it.
 * The path is chosen once, collectively, at dgnn_comm_dev_init: the ranks' (host name, GPU
 * bus id) pairs are all-gathered; any two equal, or NCCL not loadable on some rank, or
 * DGNN_COMM_DEV=host in the environment, gives the host path for every rank.
 *
 * comm.c stays the only file that calls MPI: comm_dev.c uses comm.h's collectives (the
 * all-gather of the pairs, the broadcast of rank 0's ncclUniqueId, the host path's sum), and
 * is the only file that calls NCCL, which it loads at run time (dlopen of libnccl.so.2), so
 * that a dgnn built with NCCL's header still runs where the library is absent.
 *
 * NOT YET VERIFIED ON HARDWARE. The host path runs on the host emulation in the suite
 * (cli_device's 2-rank runs), and so does the NCCL path, against a stand-in library that does
 * each collective with MPI (tests/hostemu/nccl/); NVIDIA's NCCL needs a machine with a GPU per
 * rank and has never run it. Sums over the ranks run in NCCL's order on its path, in MPI's on the host path: the two
 * agree within float rounding. */
#ifndef DGNN_COMM_DEV_H
#define DGNN_COMM_DEV_H

#include <stdint.h>

#include "dgnn/base.h"
#include "dgnn/cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgnn_comm_dev dgnn_comm_dev;

/* A collective over all ranks, each with its GPU's context c (which must outlive *out).
 * Logs the path taken (rank 0). Errors: DGNN_EDEVICE (a CUDA or NCCL failure, named),
 * DGNN_ENOMEM. Without the CUDA backend: DGNN_EDEVICE. */
int dgnn_comm_dev_init(dgnn_comm_dev **out, dgnn_cuda *c, dgnn_err *err);
void dgnn_comm_dev_free(dgnn_comm_dev *d);
/* "nccl" or "host", and (host) why: a line for logs and reports. */
const char *dgnn_comm_dev_path(const dgnn_comm_dev *d);
const char *dgnn_comm_dev_reason(const dgnn_comm_dev *d);
/* Every collective runs on a lane of c's device (cuda.h), in the order called, after the
 * work enqueued on c's stream so far; what c's stream enqueues after it waits for it.
 *
 * The gradient sum overlapped with the backward: start enqueues dbuf's sum over the ranks
 * (n floats of device memory, in place) in buckets of `bucket` floats (0: comm.h's 4 MiB
 * worth) and returns without waiting, so that it runs while c's stream goes on (the rest
 * of the backward, the commit); a step may start several (the slab's suffix that the
 * backward finished, then the prefix). wait completes every sum started and makes c's
 * later work (Adam) wait for them. Every rank starts the same sums in the same order.
 * NCCL's path: ncclAllReduce on the lane. The host path: the copy down starts on the lane
 * (into pinned memory), the MPI sums run at wait, then the copies up; host (n floats of host
 * memory) then holds the sum too, and is left alone on NCCL's (NULL allowed there). */
int dgnn_comm_dev_allreduce_start(dgnn_comm_dev *d, float *dbuf, float *host, int64_t n, int64_t bucket,
                                  dgnn_err *err);
int dgnn_comm_dev_allreduce_wait(dgnn_comm_dev *d, dgnn_err *err);
/* start, wait, and the host waits for the result too */
int dgnn_comm_dev_allreduce_sum_f32(dgnn_comm_dev *d, float *dbuf, float *host, int64_t n, dgnn_err *err);
/* drecv (device) = the ranks' dsend (device) in rank order, counts[q] floats from rank q
 * (counts the same on every rank, this rank's counts[rank] floats at dsend): NCCL's grouped
 * broadcasts, or through host buffers d keeps (its part down, comm.h's all-gather, all up).
 * The state rows' exchange of strict's and DepBloom's GPU ranks (event_step.c). Waits. */
int dgnn_comm_dev_allgatherv_f32(dgnn_comm_dev *d, float *drecv, const int64_t *counts, const float *dsend,
                                 dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
