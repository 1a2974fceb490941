/* comm.h: everything dgnn does across processes. src/cluster/comm.c is the only file that
 * calls MPI (DESIGN.md, convention 5); built without MPI (or run as one process),
 * every call is a no-op or a copy, so the rest of the code never tests for MPI.
 * Set-up, rank/size, barrier, all-reduce, broadcast, the variable-size exchanges of
 * memory rows (all-gather-v, all-to-all-v, in bytes), a bucketed non-blocking
 * all-reduce of the gradient slab that overlaps other work, and byte/time counters
 * that the distributed trainers report. */
#ifndef DGNN_COMM_H
#define DGNN_COMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises MPI if the binary was started by mpirun (or always, when built with MPI),
 * and sets the logging rank. Safe to call once per process. */
void dgnn_comm_init(int *argc, char ***argv);
void dgnn_comm_finalize(void);
int dgnn_comm_rank(void);
int dgnn_comm_size(void);
/* This process's rank among the job's processes on the same machine (0 without MPI or with
 * one process): the GPU a rank takes by default, cuda:local_rank. */
int dgnn_comm_local_rank(void);
/* 1 if built with MPI support. */
int dgnn_comm_has_mpi(void);
void dgnn_comm_barrier(void);

/* ---- a peer that stops answering ----
 * Every call below waits at most the timeout for progress (a peer's part of the call,
 * or a heartbeat); then the whole job ends (MPI_Abort, exit status 1) with a message on
 * stderr naming the ranks that did not answer a roll call, or, seen from another rank,
 * saying that rank 0 is the silent one. The waits also stop spinning after a few
 * milliseconds, so a rank waiting long does not hold a core.
 * The default, 10 minutes, is far above any wait of a healthy job that a heartbeat does
 * not cover (ranks reaching set-up at different times after loading the data, rank 0
 * writing a checkpoint); docs/depbloom.md, "A rank that stops answering". */
#define DGNN_COMM_TIMEOUT_DEFAULT 600.0
/* Seconds without progress before a wait ends the job; 0 (or less): wait forever. */
void dgnn_comm_set_timeout(double seconds);
double dgnn_comm_timeout(void);
/* For a rank that works alone while the others wait for it (rank 0's validation and
 * test): tells every other rank that it is alive, restarting their clocks. Cheap enough
 * to call per batch (it sends at most once per second). No-op in one process. */
void dgnn_comm_heartbeat(void);
/* The next wait on this rank may last `seconds` longer than the timeout: for a known long
 * solo job that cannot send heartbeats (rank 0 running the ILP scheduler). */
void dgnn_comm_allow(double seconds);

/* Ends every rank of the job with this exit code (MPI_Abort): what a rank calls when it
 * fails while the others may be waiting in a collective, so the job never hangs.
 * Single process: exit(code). */
void dgnn_comm_abort(int code);
/* In-place sum of n floats over all ranks. */
void dgnn_comm_allreduce_sum_f32(float *buf, int64_t n);
/* In-place sum of n doubles over all ranks. */
void dgnn_comm_allreduce_sum_f64(double *buf, int64_t n);
/* Broadcast of bytes from rank root. */
void dgnn_comm_bcast(void *buf, int64_t bytes, int root);
/* In-place max of n doubles / sum of n int64 over all ranks. */
void dgnn_comm_allreduce_max_f64(double *buf, int64_t n);
void dgnn_comm_allreduce_sum_i64(int64_t *buf, int64_t n);

/* recv (P) = every rank's `mine`, in rank order. */
void dgnn_comm_allgather_i64(int64_t *recv, int64_t mine);
/* Every rank contributes send_bytes bytes; recv receives all contributions one after
 * the other in rank order; counts (P, out) gets each rank's byte count. recv must hold
 * the sum: call dgnn_comm_allgather_i64 first to size it. Returns the total. Blocks and
 * totals of any size: past MPI's int counts (2 GiB) the exchanges below and this one go
 * as point-to-point messages instead of one collective. */
int64_t dgnn_comm_allgatherv_bytes(void *recv, int64_t *counts, const void *send, int64_t send_bytes);
/* All-to-all of variable byte blocks: send_counts[q] bytes for rank q, laid out in rank
 * order in send; recv_counts (P, out) and recv (laid out in rank order) are filled.
 * recv is (re)allocated to fit (*recv_cap bytes, grown with realloc). Returns the total
 * received. The rank's own block is copied locally. */
int64_t dgnn_comm_alltoallv_bytes(void **recv, int64_t *recv_cap, int64_t *recv_counts, const void *send,
                                  const int64_t *send_counts);

/* The same exchange, non-blocking: the counts are exchanged at once (blocking, 8 bytes
 * and a flag per rank), the payload in the background; dgnn_comm_alltoallv_wait completes it (recv
 * must stay valid and send unchanged until then). One in flight at a time, independent
 * of the all-reduce below. */
int64_t dgnn_comm_ialltoallv_bytes(void **recv, int64_t *recv_cap, int64_t *recv_counts, const void *send,
                                   const int64_t *send_counts);
void dgnn_comm_alltoallv_wait(void);
/* For the tests: the layout size in bytes past which the variable-size exchanges take the
 * point-to-point path (default and at most INT_MAX, MPI's int counts); every rank sets
 * the same. */
void dgnn_comm_set_int_limit(int64_t bytes);

/* Non-blocking, bucketed sum all-reduce of a float slab (the gradients): buckets of
 * `bucket` floats (0: 4 MiB worth) are started at once and complete in the background
 * while the caller does other work (the rest of the backward, the state commit);
 * several calls may be issued before one dgnn_comm_wait finishes them all (a suffix of
 * the slab during the backward, the prefix after it). Every rank must issue the same
 * sequence of calls with the same sizes. Single process: nothing to do. */
void dgnn_comm_iallreduce_sum_f32(float *buf, int64_t n, int64_t bucket);
void dgnn_comm_wait(void);

/* Bytes this rank sent (all collectives, counted as the payload this rank contributes:
 * for an all-reduce, its buffer; for all-gather/all-to-all, what it sends to the other
 * ranks) and seconds spent blocked inside comm calls, since the last reset. */
typedef struct {
    int64_t bytes_sent;
    double wait_seconds;
} dgnn_comm_stats;
dgnn_comm_stats dgnn_comm_stats_get(void);
void dgnn_comm_stats_reset(void);

#ifdef __cplusplus
}
#endif
#endif
