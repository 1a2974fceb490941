/* tgnn_cuda.h: a memory-based model (tgnn.h) trained and evaluated on an NVIDIA GPU
 * (`dgnn train --device cuda[:N]`, issue 14), through the CUDA backend's device steps
 * (cuda.h; tgn_step.cu, apan_step.cu).
 *
 * NOT YET VERIFIED ON HARDWARE: it compiles here and in CI; tests/cuda/test_cuda_train.c
 * compares it with the CPU path when a GPU is present, and none has run it yet.
 *
 * Which kinds: TGN (its GRU updater, the TGN code's or TGL's attention, both presets),
 * JODIE and DyRep (RNN updaters), all on tgn_step.cu; APAN (its mailbox attention over S
 * slots, mails delivered to the sampled neighbours) on apan_step.cu.
 *
 * Who holds what. The device holds the parameters, their gradients and Adam moments, and
 * the node state's rows (memory and mails). The host model (dgnn_tgnn) does each batch's
 * bookkeeping as its own forward does (roots, neighbour sampling, the distinct nodes, the
 * pairs, the rows with a pending mail: tgnn_mem_plan; APAN's (node, time) rows and mail
 * deliveries: tgnn_apan_plan), and the host state keeps the times,
 * mail counts and ring positions (which commits copy, never compute), so the host knows
 * every batch's plan without reading the device. The host state's memory and mail rows
 * are stale between dgnn_tgnn_cuda_pull calls; the host parameter slab likewise.
 *
 * A training step is split so that the CPU's work for the next batch overlaps the GPU's
 * for this one: dgnn_tgnn_cuda_plan (CPU), dgnn_tgnn_cuda_wait_loss (the previous step's
 * loss; waits for the GPU), dgnn_tgnn_cuda_run_step (enqueues forward, loss, backward,
 * commit and Adam on the device, commits the times on the host, returns at once).
 *
 * Under mpirun, strict's ranks each run this on their GPU (event_device.c), the collectives
 * staged through the host (the functions below "the strict baseline's ranks").
 *
 * Built without CUDA (no -DDGNN_CUDA=ON), every function but _built, _devices and _supports returns
 * DGNN_EDEVICE saying so. */
#ifndef DGNN_TGNN_CUDA_H
#define DGNN_TGNN_CUDA_H

#include "dgnn/cuda.h"
#include "dgnn/params.h"
#include "dgnn/state.h"
#include "dgnn/tgnn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgnn_tgnn_cuda dgnn_tgnn_cuda;

/* 1 when this build has the CUDA backend (-DDGNN_CUDA=ON), else 0. */
int dgnn_tgnn_cuda_built(void);
/* The usable CUDA devices (0 without the backend, a driver or a device). */
int dgnn_tgnn_cuda_devices(void);
/* DGNN_EINVAL naming what the GPU path does not run (today: nothing; every kind has a step). */
int dgnn_tgnn_cuda_supports(const dgnn_tgnn_cfg *cfg, dgnn_err *err);

/* Opens CUDA device `device`, allocates the device slabs and state for m and st (st's
 * sizes), and uploads m's parameters and Adam moments (p) and st (dgnn_tgnn_cuda_push).
 * DGNN_EDEVICE with a message: no such device, no CUDA in this build. */
int dgnn_tgnn_cuda_init(dgnn_tgnn_cuda **out, dgnn_tgnn *m, const dgnn_state *st, int device, dgnn_err *err);
void dgnn_tgnn_cuda_free(dgnn_tgnn_cuda *d);

/* ---- training (one process, one batch a step, the TGN code's loss: G = B) ---- */
/* The bookkeeping of the training batch [e0, e0 + B) of ev with one negative per event
 * (neg, B), from the host state st (its counts), neighbours from g (g_efeat their
 * features), the attention's dropout seeds drawn from rng as the CPU forward draws them. */
int dgnn_tgnn_cuda_plan(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                        const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg, dgnn_rng *rng,
                        dgnn_err *err);
/* Enqueues the planned step on the device: forward, loss (mean BCE of positives and
 * negatives), backward, commit of the batch into the device state, then Adam with these
 * settings at step count t (after the increment; dgnn_adam's fields). Commits the batch's
 * times and counts into st (tgnn_mem_commit_times; APAN: tgnn_apan_commit_times). Returns
 * without waiting. */
int dgnn_tgnn_cuda_run_step(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, double lr, double beta1,
                            double beta2, double eps, double weight_decay, int64_t t, dgnn_err *err);
/* The last run step's mean BCE (waits for the device; DGNN_EINVAL when no step ran since
 * the last call). The CPU trainer's loss is twice it. */
int dgnn_tgnn_cuda_wait_loss(dgnn_tgnn_cuda *d, double *loss, dgnn_err *err);

/* ---- strict's and DepBloom's ranks on GPUs (event_device.c) ----
 * A step of `mpirun -np P dgnn train --dist strict|depbloom --device cuda`:
 * dgnn_tgnn_cuda_plan of the rank's slice (or micro-batch), then run_grad (forward, loss,
 * backward scaled by dloss, the commit: no Adam), the gradient slab (grad_slab) summed over
 * the ranks by the caller (comm_dev.h), the written rows brought down (rows_to_host) for the
 * caller's all-gather, the received rows sent up (rows_from_host), and Adam (adam). Every
 * rank then holds the same state and parameters, as the CPU ranks do. */
/* The planned step without Adam, its loss's gradient scaled by dloss (the CPU trainer's
 * dgnn_bce_logits_backward scale: 2 B / G for a rank's B of a global batch of G events),
 * into a fresh gradient slab, or (accumulate 1) added to the slab as it is: DepBloom's
 * later micro-batches of a step, in the CPU's order of sums. */
int dgnn_tgnn_cuda_run_grad(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, float dloss, int accumulate,
                            dgnn_err *err);
/* The gradient sum overlapped with the backward (dgnn_tgnn_set_grad_hook's twin): while fn
 * is set, run_grad calls fn(ctx, off, n, err) for each part of the slab whose backward is
 * enqueued and whose gradients will not change on the stream after it: first the suffix
 * from dgnn_tgnn_grad_split on (the embedding's and the predictor's; not for APAN, whose
 * suffix is empty), before the updater's backward; then the prefix [0, split), before the
 * commit. fn enqueues their sums elsewhere (comm_dev.h) and returns; an error it returns
 * ends run_grad. NULL: none. */
typedef int (*dgnn_tgnn_cuda_grad_ready_fn)(void *ctx, int64_t off, int64_t n, dgnn_err *err);
void dgnn_tgnn_cuda_set_grad_hook(dgnn_tgnn_cuda *d, dgnn_tgnn_cuda_grad_ready_fn fn, void *ctx);
/* The device context and the gradient slab (device memory, the model's slab's total floats),
 * for comm_dev.h's collectives; NULL without the CUDA backend. */
dgnn_cuda *dgnn_tgnn_cuda_context(dgnn_tgnn_cuda *d);
float *dgnn_tgnn_cuda_grad_slab(dgnn_tgnn_cuda *d);
/* The gradient slab to the host (to_host 1) or from it (0); waits. */
int dgnn_tgnn_cuda_grad(dgnn_tgnn_cuda *d, float *grad, int to_host, dgnn_err *err);
/* dgnn_cuda_adam_step over the slab with these settings at step count t (after the
 * increment), then zeroed gradients. */
int dgnn_tgnn_cuda_adam(dgnn_tgnn_cuda *d, double lr, double beta1, double beta2, double eps, double weight_decay,
                        int64_t t, dgnn_err *err);
/* The memory and mail rows of the n nodes from the device into st's rows (the host's
 * times and counts are already current: commits keep them). */
int dgnn_tgnn_cuda_rows_to_host(dgnn_tgnn_cuda *d, dgnn_state *st, const int32_t *nodes, int64_t n, dgnn_err *err);
/* The memory and mail rows of the n nodes from st to the device, with st's times, mail
 * counts and ring positions of those nodes (the only ones an exchange changes; of every
 * node where n is a large share of them). */
int dgnn_tgnn_cuda_rows_from_host(dgnn_tgnn_cuda *d, const dgnn_state *st, const int32_t *nodes, int64_t n,
                                  dgnn_err *err);

/* The exchange of rows between device buffers (NCCL, event_step.c): a device row is a
 * node's memory then its mail ring, row_floats = M + S D floats. rows_gather writes the n
 * nodes' rows into drows (device, n x row_floats); rows_scatter writes the n rows of drows
 * into the nodes' device rows (a node present twice ends with its last row, as
 * dgnn_state_unpack_rows) and sends st's times, mail counts and ring positions of those
 * nodes up (the host applied the rows' first parts: dgnn_state_unpack_meta). Both wait. */
int64_t dgnn_tgnn_cuda_row_floats(const dgnn_tgnn_cuda *d);
int dgnn_tgnn_cuda_rows_gather(dgnn_tgnn_cuda *d, float *drows, const int32_t *nodes, int64_t n, dgnn_err *err);
int dgnn_tgnn_cuda_rows_scatter(dgnn_tgnn_cuda *d, const dgnn_state *st, const float *drows, const int32_t *nodes,
                                int64_t n, dgnn_err *err);
/* Device buffers for n_send rows sent and n_recv received (row_floats each), kept by d and
 * grown on demand (their contents are not kept when they grow). */
int dgnn_tgnn_cuda_exchange_buffers(dgnn_tgnn_cuda *d, int64_t n_send, int64_t n_recv, float **dsend, float **drecv,
                                    dgnn_err *err);

/* ---- evaluation ---- */
/* dgnn_tgnn_forward without dropout (rng NULL) on the device: logits ((1 + nneg) B, host). */
int dgnn_tgnn_cuda_forward(dgnn_tgnn_cuda *d, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                           const float *g_efeat, const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg,
                           int64_t nneg, dgnn_err *err);
/* dgnn_tgnn_commit of the last forward's batch: rows on the device, times on the host. */
int dgnn_tgnn_cuda_commit(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, dgnn_err *err);

/* ---- moving state and parameters between host and device ---- */
/* Device to host: st's memory and mail rows (NULL: none), p's values and Adam moments
 * (NULL: none). Checks the device's times, mail counts and ring positions against st's
 * (copies both sides make, so equal exactly): DGNN_EDEVICE naming the first node where
 * they differ (the two halves of the state went apart: a bug, reported, never trained on). */
int dgnn_tgnn_cuda_pull(dgnn_tgnn_cuda *d, dgnn_state *st, dgnn_params *p, dgnn_err *err);
/* Host to device: all of st (NULL: none), p's values and Adam moments (NULL: none). */
int dgnn_tgnn_cuda_push(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_params *p, dgnn_err *err);
/* dgnn_state_reset of st and of the device state (an epoch's start). */
int dgnn_tgnn_cuda_reset(dgnn_tgnn_cuda *d, dgnn_state *st, dgnn_err *err);

/* GPU memory: in use on the device (all processes), its total, and this model's step
 * workspace (bytes). */
int dgnn_tgnn_cuda_memory(dgnn_tgnn_cuda *d, size_t *used, size_t *total, size_t *workspace, dgnn_err *err);
/* The dense products of the last planned batch (forward; with backward for a training
 * step), as dgnn_tgnn_last_flops counts them on the CPU: for throughput reports. */
double dgnn_tgnn_cuda_last_flops(const dgnn_tgnn_cuda *d);
/* The device's name ("NVIDIA H200"), for reports. */
const char *dgnn_tgnn_cuda_device_name(const dgnn_tgnn_cuda *d);

#ifdef __cplusplus
}
#endif
#endif
