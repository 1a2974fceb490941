/* comm.h: everything dgnn does across processes. src/dist/comm.c is the only file that
 * calls MPI (DESIGN.md, convention 5); built without MPI (or run as one process),
 * every call is a no-op or a copy, so the rest of the code never tests for MPI.
 * This is the foundation's part: set-up, rank/size, barrier, all-reduce of a float
 * slab and broadcast. The DepBloom issue extends it (bucketed non-blocking all-reduce,
 * all-gather-v, all-to-all-v). */
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
/* 1 if built with MPI support. */
int dgnn_comm_has_mpi(void);
void dgnn_comm_barrier(void);
/* In-place sum of n floats over all ranks. */
void dgnn_comm_allreduce_sum_f32(float *buf, int64_t n);
/* In-place sum of n doubles over all ranks. */
void dgnn_comm_allreduce_sum_f64(double *buf, int64_t n);
/* Broadcast of bytes from rank root. */
void dgnn_comm_bcast(void *buf, int64_t bytes, int root);

#ifdef __cplusplus
}
#endif
#endif
