/* cuda.h: the CUDA backend (built only with -DDGNN_CUDA=ON; src/nn/cuda/). Issue 14 grows
 * it into the GPU path of the memory-based models (TGN, JODIE, DyRep, APAN). It holds
 * device discovery, a device context (device, stream, cuBLAS and cuSPARSE handles), device buffers and
 * copies, the dense product that mirrors nn.h's dgnn_gemm, and the GPU twin of every
 * non-product op a training step of those models runs:
 *   linear layer, GRU and RNN cells (the memory updaters), time encoding,
 *   the temporal attention layer (TGN's and TGL's kinds, nn.h's dgnn_tattn, with its
 *   key/value-free formulation) and the attention core (APAN's mailbox attention),
 *   layer norm, ReLU and dropout (the same masks as the CPU's for the same seed),
 *   JODIE's time projection, the edge predictor (link predictor / merge layer),
 *   binary cross-entropy with logits, Adam,
 *   gathers and scatters of rows by index (ordered sums; "last writer wins"), and the
 *   node state store (memory, memory time, mailbox ring; state.h's rules);
 * and, composed of those ops, one training step of TGN, JODIE or DyRep (tgn_step.cu) and
 * one of APAN (apan_step.cu): forward, loss, backward, memory/mail commit and Adam on the
 * device, the batch's bookkeeping from the CPU model. Issue 18 adds the snapshot models'
 * ops: the sparse products and GCN layers of spmm.h (spmm.cu, cuSPARSE), and the matrix
 * GRU, TopK, LSTM cell, losses and RReLU of nn.h (mgru.cu, lstm.cu, snap_loss.cu,
 * rrelu.cu); no snapshot model is composed of them yet.
 * Each GPU op is tested against its CPU reference in tests/cuda/ (which skip without a
 * GPU; scripts/gpu-check.sh runs them and compute-sanitizer where there is one), the
 * steps against the CPU model's step (test_cuda_tgn, test_cuda_apan).
 *
 * NOT YET VERIFIED ON HARDWARE beyond the saxpy seed: the context, buffers, dgnn_cuda_gemm
 * and every op below compile here and in CI, and tests/cuda/ checks each against its CPU
 * op when a GPU is present, but no GPU has run them yet (docs/results.md says when that
 * last ran). `dgnn train --device cuda` trains TGN, JODIE, DyRep and APAN through the
 * steps above (src/train/event_device.c), on the host emulation only so far.
 *
 * Conventions: the CPU op's arguments in the CPU op's order and meaning, the context
 * first and the error last; pointers called `d*` are device memory (the CPU op's name
 * with a d in front: W -> dW, its gradient dW -> ddW), everything else is host memory;
 * backward passes accumulate (+=) into gradients as the CPU's do; every op is
 * asynchronous on the context's stream (dgnn_cuda_sync waits). Sums run in other orders
 * than the CPU's where a reduction is parallel, so results agree within float rounding,
 * not to the bit. Errors follow base.h: a status (0, or DGNN_EDEVICE / DGNN_ENOMEM /
 * DGNN_EINVAL) and a message naming the CUDA or cuBLAS error and the call; bad sizes the
 * CPU op asserts on are DGNN_EINVAL here. */
#ifndef DGNN_CUDA_H
#define DGNN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "dgnn/base.h"
#include "dgnn/nn.h"
#include "dgnn/spmm.h" /* dgnn_csr: the sparse ops' host matrices */

/* The functions are defined by the CUDA backend only: they are declared where it is built
 * in (DGNN_HAVE_CUDA, which dgnn_core and dgnn_cuda of a -DDGNN_CUDA=ON build define for
 * their sources and their users). Without it, as in libdgnn.so (the CPU build) and a
 * program built against the installed headers, only the types and constants are declared
 * (tgnn_cuda.h, snapmodel_cuda.h and comm_dev.h, whose functions every build defines, use
 * them): a call to one of these fails to compile, not to link. */
#if defined(DGNN_HAVE_CUDA) && DGNN_HAVE_CUDA
#define DGNN_CUDA_DECLS 1
#else
#define DGNN_CUDA_DECLS 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if DGNN_CUDA_DECLS
/* Number of usable CUDA devices (0 when there is no driver or no device). */
int dgnn_cuda_device_count(void);
/* Name of device i into buf; returns 0 on success. */
int dgnn_cuda_device_name(int i, char *buf, int cap);
/* y = a * x + y on the device for n floats (host arrays in and out); 0 on success,
 * -1 on any CUDA error (message on stderr). */
int dgnn_cuda_saxpy(float a, const float *x, float *y, int64_t n);
#endif

/* ---- the device context ---- */
typedef struct dgnn_cuda dgnn_cuda; /* one device, one stream, one cuBLAS handle */

#if DGNN_CUDA_DECLS
/* Opens device `device` (0-based): DGNN_EDEVICE with a message when there is no such
 * device (or no driver). cuBLAS runs in full FP32 (no TF32), so products compare with
 * the CPU's. Free with dgnn_cuda_free (NULL is a no-op). */
int dgnn_cuda_init(dgnn_cuda **out, int device, dgnn_err *err);
void dgnn_cuda_free(dgnn_cuda *c);
/* The context's stream as an opaque handle (a cudaStream_t), for a library that enqueues on
 * it (NCCL, comm_dev.c). */
void *dgnn_cuda_stream_handle(dgnn_cuda *c);
/* The context's device's PCI bus id ("0000:3b:00.0"), which names one GPU on a machine:
 * ranks that share a GPU have the same; 0, or DGNN_EDEVICE with a message. */
int dgnn_cuda_bus_id(dgnn_cuda *c, char *buf, int cap, dgnn_err *err);
/* The device's memory in use by this process and its total, in bytes (cudaMemGetInfo). */
int dgnn_cuda_mem_info(dgnn_cuda *c, size_t *used, size_t *total, dgnn_err *err);

/* ---- device buffers and copies (on the context's stream; dgnn_cuda_sync waits) ---- */
/* *dptr = bytes of device memory (bytes 0: a NULL pointer); DGNN_ENOMEM names `what`. */
int dgnn_cuda_alloc(dgnn_cuda *c, void **dptr, size_t bytes, const char *what, dgnn_err *err);
void dgnn_cuda_release(dgnn_cuda *c, void *dptr);
/* *hptr = bytes of pinned (page-locked) host memory, cudaMallocHost (bytes 0: a NULL
 * pointer); DGNN_ENOMEM names `what`. A copy from or to pinned memory runs truly
 * asynchronously, so the host must not touch it until the copy is done (an event or a
 * sync), where an upload from ordinary (pageable) memory returns once the driver has
 * staged it. Free it with dgnn_cuda_host_free (NULL is a no-op) once no copy uses it. */
int dgnn_cuda_host_alloc(dgnn_cuda *c, void **hptr, size_t bytes, const char *what, dgnn_err *err);
void dgnn_cuda_host_free(dgnn_cuda *c, void *hptr);
int dgnn_cuda_upload(dgnn_cuda *c, void *dst, const void *src, size_t bytes, dgnn_err *err);
int dgnn_cuda_download(dgnn_cuda *c, void *dst, const void *dsrc, size_t bytes, dgnn_err *err);
int dgnn_cuda_sync(dgnn_cuda *c, dgnn_err *err);
#endif
/* A watch over the host's waits on the device. Unset (NULL, the default) a wait blocks in the
 * runtime. Set, each wait (dgnn_cuda_sync, dgnn_cuda_lane_sync, the steps' waits for a staging
 * copy) polls its stream or event instead and calls fn(ctx, err) before each poll; a non-zero
 * return ends the wait with that code and err. comm_dev.c sets one on NCCL's path: a
 * collective that a failed peer or network can never finish would otherwise hold the wait
 * forever, and NCCL reports such a failure only when asked (ncclCommGetAsyncError). */
typedef int (*dgnn_cuda_watch_fn)(void *ctx, dgnn_err *err);
#if DGNN_CUDA_DECLS
void dgnn_cuda_set_watch(dgnn_cuda *c, dgnn_cuda_watch_fn fn, void *ctx);
/* bytes of device memory at dptr = 0; ddst = dsrc for bytes (device to device). */
int dgnn_cuda_zero(dgnn_cuda *c, void *dptr, size_t bytes, dgnn_err *err);
int dgnn_cuda_copy(dgnn_cuda *c, void *ddst, const void *dsrc, size_t bytes, dgnn_err *err);
#endif

/* ---- a lane: a second stream of the context's device ----
 * Work that runs beside the context's stream: comm_dev.c's gradient sums and row exchanges,
 * so that a sum of the slab's finished part overlaps the rest of the backward. The two
 * streams keep no order between them but what these calls set: lane_wait_main makes the
 * lane's later work wait for everything enqueued on the context's stream so far (the
 * data it reads is written), main_wait_lane makes the context's later work wait for the
 * lane's so far (Adam after the sum); lane_sync makes the host wait for the lane. A copy
 * on the lane into or from pinned memory runs truly asynchronously: the host touches
 * that memory only after a lane_sync. Free it (NULL is a no-op) after a lane_sync. */
typedef struct dgnn_cuda_lane dgnn_cuda_lane;
#if DGNN_CUDA_DECLS
int dgnn_cuda_lane_init(dgnn_cuda *c, dgnn_cuda_lane **out, dgnn_err *err);
void dgnn_cuda_lane_free(dgnn_cuda_lane *l);
/* the lane's stream (a cudaStream_t), for a library that enqueues on it (NCCL) */
void *dgnn_cuda_lane_stream_handle(dgnn_cuda_lane *l);
int dgnn_cuda_lane_wait_main(dgnn_cuda_lane *l, dgnn_err *err);
int dgnn_cuda_main_wait_lane(dgnn_cuda_lane *l, dgnn_err *err);
int dgnn_cuda_lane_sync(dgnn_cuda_lane *l, dgnn_err *err);
/* dgnn_cuda_upload / _download on the lane */
int dgnn_cuda_lane_upload(dgnn_cuda_lane *l, void *dst, const void *src, size_t bytes, dgnn_err *err);
int dgnn_cuda_lane_download(dgnn_cuda_lane *l, void *dst, const void *dsrc, size_t bytes, dgnn_err *err);

/* ---- dense products ----
 * dC (M, N) = op(dA) op(dB) + beta dC on the device, row-major, with nn.h's dgnn_gemm's
 * meaning of every argument (transA, transB, lda, ldb, ldc; K = 0 gives dC = beta dC).
 * One cublasSgemm on the context's stream (asynchronous). */
int dgnn_cuda_gemm(dgnn_cuda *c, int transA, int transB, int64_t M, int64_t N, int64_t K, const float *dA,
                   int64_t lda, const float *dB, int64_t ldb, float beta, float *dC, int64_t ldc, dgnn_err *err);

/* ---- ops, each the GPU twin of an nn.h op (same arguments and meaning, device arrays;
 * gradients +=; any gradient may be NULL where the CPU op allows it). The sums run in
 * other orders than the CPU's, so results agree within float rounding, not to the bit. ---- */
/* linear.cu: dgnn_linear_forward / _backward. */
int dgnn_cuda_linear_forward(dgnn_cuda *c, float *dout, const float *dinp, const float *dW, const float *db,
                             int64_t B, int64_t Din, int64_t Dout, dgnn_err *err);
int dgnn_cuda_linear_backward(dgnn_cuda *c, float *ddinp, float *ddW, float *ddb, const float *ddout,
                              const float *dinp, const float *dW, int64_t B, int64_t Din, int64_t Dout,
                              dgnn_err *err);
/* gru.cu: dgnn_gru_forward / _backward, the same `saved` (B, 6H) and `scratch` (B, 6H). */
int dgnn_cuda_gru_forward(dgnn_cuda *c, float *dhout, float *dsaved, const float *dx, const float *dh,
                          const float *dW_ih, const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B,
                          int64_t Din, int64_t H, dgnn_err *err);
int dgnn_cuda_gru_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh, float *ddb_ih,
                           float *ddb_hh, float *dscratch, const float *ddhout, const float *dsaved, const float *dx,
                           const float *dh, const float *dW_ih, const float *dW_hh, int64_t B, int64_t Din,
                           int64_t H, dgnn_err *err);
/* gru.cu: dgnn_rnn_forward / _backward (JODIE's and DyRep's updater); scratch (B, H). */
int dgnn_cuda_rnn_forward(dgnn_cuda *c, float *dhout, const float *dx, const float *dh, const float *dW_ih,
                          const float *dW_hh, const float *db_ih, const float *db_hh, int64_t B, int64_t Din, int64_t H,
                          dgnn_err *err);
int dgnn_cuda_rnn_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddW_ih, float *ddW_hh, float *ddb_ih,
                           float *ddb_hh, float *dscratch, const float *ddhout, const float *dhout, const float *dx,
                           const float *dh, const float *dW_ih, const float *dW_hh, int64_t B, int64_t Din, int64_t H,
                           dgnn_err *err);
/* timeenc.cu: dgnn_timeenc_forward / _backward. */
int dgnn_cuda_timeenc_forward(dgnn_cuda *c, float *dout, const float *ddt, const float *dw, const float *db, int64_t N,
                              int64_t d, dgnn_err *err);
int dgnn_cuda_timeenc_backward(dgnn_cuda *c, float *ddw, float *ddb, const float *ddout, const float *ddt,
                               const float *dw, const float *db, int64_t N, int64_t d, dgnn_err *err);

/* act.cu: dgnn_relu_forward / _backward (out may equal inp), dgnn_dropout_mask / _forward /
 * _backward. Dropout's randomness: where the CPU op takes an rng, the GPU op takes `seed`,
 * the u64 the CPU op would draw from it (dgnn_rng_u64), or NULL where the CPU's rng is
 * NULL (inference: mask 1, out = inp); the mask is then the CPU's, bit for bit. */
int dgnn_cuda_relu_forward(dgnn_cuda *c, float *dout, const float *dinp, int64_t n, dgnn_err *err);
int dgnn_cuda_relu_backward(dgnn_cuda *c, float *ddinp, const float *ddout, const float *dout, int64_t n,
                            dgnn_err *err);
int dgnn_cuda_dropout_mask(dgnn_cuda *c, float *dmask, int64_t n, float p, uint64_t seed, dgnn_err *err);
int dgnn_cuda_dropout_forward(dgnn_cuda *c, float *dout, float *dmask, const float *dinp, int64_t n, float p,
                              const uint64_t *seed, dgnn_err *err);
int dgnn_cuda_dropout_backward(dgnn_cuda *c, float *ddinp, const float *ddout, const float *dmask, int64_t n,
                               dgnn_err *err);
/* layernorm.cu: dgnn_layernorm_forward / _backward (TGL's attention, APAN's memory). */
int dgnn_cuda_layernorm_forward(dgnn_cuda *c, float *dout, float *dmean, float *drstd, const float *dinp,
                                const float *dg, const float *db, int64_t N, int64_t C, dgnn_err *err);
int dgnn_cuda_layernorm_backward(dgnn_cuda *c, float *ddinp, float *ddg, float *ddb, const float *ddout,
                                 const float *dinp, const float *dg, const float *dmean, const float *drstd, int64_t N,
                                 int64_t C, dgnn_err *err);
/* jodie.cu: dgnn_jodie_dt_tgl (t, t_mem: d_t, d_tmem), dgnn_jodie_forward / _backward. */
int dgnn_cuda_jodie_dt_tgl(dgnn_cuda *c, float *ddt, const double *d_t, const double *d_tmem, int64_t B,
                           dgnn_err *err);
int dgnn_cuda_jodie_forward(dgnn_cuda *c, float *dout, const float *dh, const float *ddt, const float *dw,
                            const float *db, int64_t B, int64_t M, dgnn_err *err);
int dgnn_cuda_jodie_backward(dgnn_cuda *c, float *ddh, float *ddw, float *ddb, const float *ddout, const float *dh,
                             const float *ddt, const float *dw, const float *db, int64_t B, int64_t M, dgnn_err *err);
/* linear.cu: dgnn_edgepred_forward / _backward, TGL's edge predictor (TGN's MergeLayer
 * affinity score); dp's and ddp's fields are device pointers (dgnn_edgepred_layout over a
 * device slab), saved and scratch DGNN_EDGEPRED_SAVED floats each. */
int dgnn_cuda_edgepred_forward(dgnn_cuda *c, float *dlogits, float *dsaved, const float *dh_src, const float *dh_dst,
                               const dgnn_edgepred_params *dp, int64_t Be, int64_t nneg, int64_t D, int64_t Hd,
                               dgnn_err *err);
int dgnn_cuda_edgepred_backward(dgnn_cuda *c, float *ddh_src, float *ddh_dst, dgnn_edgepred_params *ddp,
                                float *dscratch, const float *ddlogits, const float *dsaved, const float *dh_src,
                                const float *dh_dst, const dgnn_edgepred_params *dp, int64_t Be, int64_t nneg,
                                int64_t D, int64_t Hd, dgnn_err *err);
/* loss.cu: dgnn_bce_logits_forward / _backward. The forward's mean goes to device memory,
 * dloss (1 float; 0 for n = 0), where the CPU op returns it: download it after a sync.
 * The backward's dloss is the host scalar of the CPU op. */
int dgnn_cuda_bce_logits_forward(dgnn_cuda *c, float *dloss, float *dlosses, const float *dlogits,
                                 const float *dlabels, int64_t n, dgnn_err *err);
int dgnn_cuda_bce_logits_backward(dgnn_cuda *c, float *ddlogits, const float *dlogits, const float *dlabels, int64_t n,
                                  float dloss, dgnn_err *err);

/* attention_core.cu: dgnn_attn_core_forward / _backward (dO: the output o (B, E), ddO its
 * gradient do_; doff (B+1) on the device). A query without keys gets o = 0. */
int dgnn_cuda_attn_core_forward(dgnn_cuda *c, float *dO, float *dlogit, float *datt, const float *datt_mask,
                                const float *dq, const float *dk, const float *dv, const int64_t *doff, int64_t B,
                                int64_t heads, int64_t E, dgnn_score_kind kind, dgnn_err *err);
int dgnn_cuda_attn_core_backward(dgnn_cuda *c, float *ddq, float *ddk, float *ddv, const float *ddO,
                                 const float *dlogit, const float *datt, const float *datt_mask, const float *dq,
                                 const float *dk, const float *dv, const int64_t *doff, int64_t B, int64_t heads,
                                 int64_t E, dgnn_score_kind kind, dgnn_err *err);
/* attention.cu: dgnn_tattn_forward / _backward, the temporal attention layer. The structs
 * are nn.h's: their sizes (B, Ur, Un, Ue) on the host, their arrays on the device (in's
 * off, rows, features; p's and dp's fields from dgnn_tattn_params_layout over a device
 * slab; s's from dgnn_tattn_saved_layout over a device slab). P = off[B], the number of
 * pairs, which the CPU op reads from off and the GPU op cannot. seeds: NULL for
 * inference, else one u64 per active dropout in the CPU's order (attention weights, then
 * TGL's dropout before the ReLU), each what dgnn_rng_u64 gives the CPU op for it: the
 * masks are then the CPU's. */
int dgnn_cuda_tattn_forward(dgnn_cuda *c, float *dout, dgnn_tattn_saved *s, const dgnn_tattn_input *in, int64_t P,
                            const dgnn_tattn_params *p, const dgnn_tattn_cfg *cfg, const uint64_t *seeds,
                            dgnn_err *err);
int dgnn_cuda_tattn_backward(dgnn_cuda *c, dgnn_tattn_dinput *din, dgnn_tattn_params *dp, const float *ddout,
                             dgnn_tattn_saved *s, const dgnn_tattn_input *in, int64_t P, const dgnn_tattn_params *p,
                             const dgnn_tattn_cfg *cfg, dgnn_err *err);

/* adam.cu: dgnn_adam_step on device arrays (param, m, v updated in place; grad read). The
 * optimizer's settings as numbers (adam.h is in a higher layer): t is this step's count,
 * 1 for the first, i.e. the dgnn_adam's t after the CPU op's increment: the caller keeps
 * the count (opt.t++, then pass opt.t). */
int dgnn_cuda_adam_step(dgnn_cuda *c, float *dparam, const float *dgrad, float *dm, float *dv, int64_t n, double lr,
                        double beta1, double beta2, double eps, double weight_decay, int64_t t, dgnn_err *err);

/* ---- rows by index (rows.cu) ----
 * Gathers into a dense batch and scatters back, with row strides (ld*) so that a block
 * of columns (a mail's parts) can be read or written. Scatters with repeated indices are
 * deterministic: the positions are grouped by index (a stable sort), and one thread per
 * (destination row, column) adds or picks them in position order, the CPU's order. */
/* out (n, width; stride ldo) = row idx[i] of src (stride lds); idx (n) or NULL (row i);
 * idx < 0 gives a zero row (dgnn_state_gather_mem's rule). */
int dgnn_cuda_gather_rows(dgnn_cuda *c, float *dout, int64_t ldo, const float *dsrc, int64_t lds, const int32_t *didx,
                          int64_t n, int64_t width, dgnn_err *err);
/* out (n) = src[idx[i]] (0 for idx < 0): the times that go with gathered rows. */
int dgnn_cuda_gather_times(dgnn_cuda *c, double *dout, const double *dsrc, const int32_t *didx, int64_t n,
                           dgnn_err *err);
/* dst[idx[i]] += src[i] for i < n, a repeated index summed in order of i (attention.c's
 * segment_acc; the roots' gradient sums into their rows); idx >= 0, or NULL (dst[i] += src[i]). */
int dgnn_cuda_scatter_add_rows(dgnn_cuda *c, float *ddst, int64_t ldd, const float *dsrc, int64_t lds,
                               const int32_t *didx, int64_t n, int64_t width, dgnn_err *err);
/* dst[idx[i]] = src[i], and dst_t[idx[i]] = src_t[i] when both are given: a repeated
 * index keeps the LAST i's row (state.h's "last" rule; APAN's commit of its roots). */
int dgnn_cuda_scatter_rows_last(dgnn_cuda *c, float *ddst, int64_t ldd, double *ddst_t, const float *dsrc,
                                int64_t lds, const double *dsrc_t, const int32_t *didx, int64_t n, int64_t width,
                                dgnn_err *err);
#endif

/* ---- sparse GCN ops on the device (spmm.cu), the GPU twins of spmm.h's ----
 * NOT YET VERIFIED ON HARDWARE: tests/cuda/test_cuda_spmm.c compares each op with its CPU
 * op when a GPU is present, and none has run them yet.
 * A CSR matrix lives on the device as a dgnn_cuda_csr, copied once from a host dgnn_csr (a
 * snapshot's A_hat, and its transpose unless A_hat is symmetric) and reused by every product
 * over it. The products are cuSPARSE's generic SpMM with a deterministic algorithm (spmm.cu
 * says which and why): the same bits on every run, not the CPU's (other summation orders),
 * so results agree with the CPU ops within float rounding. The ops take the matrix as
 * non-const: it keeps cuSPARSE's workspace, which a product grows (in stream order) when it
 * needs more; so use a matrix on one context only. Sizes and shapes as spmm.h's ops; a
 * matrix or size that the CPU op asserts on is DGNN_EINVAL here. */
typedef struct {
    int64_t rows, cols, nnz;
    int32_t *rowptr;    /* (rows+1) device; 32-bit, cuSPARSE's one index type for both arrays */
    int32_t *col;       /* (nnz) device, ascending within a row */
    float *val;         /* (nnz) device */
    void *mem_;         /* the device block that holds the three arrays */
    void *descr_;       /* cuSPARSE's descriptor of the matrix (NULL when nnz == 0) */
    void *work_;        /* cusparseSpMM's workspace (stream-ordered), work_bytes_ bytes */
    size_t work_bytes_;
} dgnn_cuda_csr;
#if DGNN_CUDA_DECLS
/* d = a on the device (a's arrays are host memory). DGNN_EINVAL when a does not fit 32-bit
 * indices (at most 2^31 - 1 rows, columns and entries) or is not a CSR cuSPARSE can read:
 * row pointers from 0 to nnz, non-decreasing; columns in [0, cols), ascending within a row
 * (snapshots' A_hat and dgnn_csr_transpose's result are; the CPU ops take any order). Waits
 * for the copies: a may be freed on return. Free d with dgnn_cuda_csr_free (a zeroed d is a
 * no-op) once no queued op uses it (after a dgnn_cuda_sync), on the same context. */
int dgnn_cuda_csr_init(dgnn_cuda *c, dgnn_cuda_csr *d, const dgnn_csr *a, dgnn_err *err);
void dgnn_cuda_csr_free(dgnn_cuda *c, dgnn_cuda_csr *d);
/* The GPU twin of dgnn_spmm: Y (A->rows, F) = A X (A->cols, F), or Y += A X when accumulate
 * is non-zero; an empty row gives a zero row; Y must not overlap X. */
int dgnn_cuda_spmm(dgnn_cuda *c, float *dY, dgnn_cuda_csr *A, const float *dX, int64_t F, int accumulate,
                   dgnn_err *err);
/* The GPU twin of dgnn_spmm_backward: dX (At->rows, F) += At dY (At->cols, F), At = A^T from
 * dgnn_csr_transpose (uploaded), or A itself when A is symmetric. */
int dgnn_cuda_spmm_backward(dgnn_cuda *c, float *ddX, dgnn_cuda_csr *At, const float *ddY, int64_t F,
                            dgnn_err *err);
/* The GPU twins of dgnn_gcn_forward / _backward: Y (N, Dout) = A X (N, Din) W^T + b, W (Dout,
 * Din), b (Dout) or NULL; the same product order (dgnn_gcn_xw_first) and saved (N, min(Din,
 * Dout)); backward: dX += (or NULL: no input gradient), dW +=, db += (or NULL), scratch (N,
 * min(Din, Dout)) overwritten, At = A^T (or A when symmetric). */
int dgnn_cuda_gcn_forward(dgnn_cuda *c, float *dY, float *dsaved, dgnn_cuda_csr *A, const float *dX, const float *dW,
                          const float *db, int64_t N, int64_t Din, int64_t Dout, dgnn_err *err);
int dgnn_cuda_gcn_backward(dgnn_cuda *c, float *ddX, float *ddW, float *ddb, float *dscratch, const float *ddY,
                           const float *dsaved, dgnn_cuda_csr *At, const float *dX, const float *dW, int64_t N,
                           int64_t Din, int64_t Dout, dgnn_err *err);
/* The GPU twins of dgnn_gcn_onehot_forward / _backward: Y (N, Dout) = A E[idx] + b, E (V,
 * Dout), idx (N) in [0, V) or -1 (a zero input row; an index >= V is not checked on the
 * device: keep it out), saved (N, Dout) = E[idx]; backward: dE +=, db += (or NULL), scratch
 * (N, Dout) overwritten. Deterministic as the CPU's: rows of dE shared by many nodes are
 * summed in node order (a stable grouping by index, no atomics). V < 2^31. */
int dgnn_cuda_gcn_onehot_forward(dgnn_cuda *c, float *dY, float *dsaved, dgnn_cuda_csr *A, const int32_t *didx,
                                 const float *dE, const float *db, int64_t N, int64_t V, int64_t Dout, dgnn_err *err);
int dgnn_cuda_gcn_onehot_backward(dgnn_cuda *c, float *ddE, float *ddb, float *dscratch, const float *ddY,
                                  dgnn_cuda_csr *At, const int32_t *didx, int64_t N, int64_t V, int64_t Dout,
                                  dgnn_err *err);
/* The GPU twin of dgnn_transpose: out (C, R) = in (R, C)^T, or out += in^T when accumulate
 * is non-zero. */
int dgnn_cuda_transpose(dgnn_cuda *c, float *dout, const float *din, int64_t R, int64_t C, int accumulate,
                        dgnn_err *err);
#endif

/* ---- the node state store on the device (state.cu), state.h's dgnn_state ----
 * The same arrays and rules; a struct of its own because state.h is in a higher layer.
 * Fill it from a host store with dgnn_cuda_upload, one array at a time. */
typedef struct {
    int64_t num_nodes, mem_dim, mail_dim, slots; /* N, M, D, S */
    float *mem;         /* (N, M) */
    double *mem_t;      /* (N) */
    float *mail;        /* (N, S, D) ring of mails */
    double *mail_t;     /* (N, S) */
    int32_t *mail_n;    /* (N) valid mails, 0..S */
    int32_t *mail_head; /* (N) ring slot the next mail goes to */
} dgnn_cuda_state;
#define DGNN_CUDA_AGG_LAST 0 /* state.h's DGNN_AGG_LAST */
#define DGNN_CUDA_AGG_MEAN 1 /* state.h's DGNN_AGG_MEAN */
#if DGNN_CUDA_DECLS
/* dgnn_state_init (zeroed) / _free / _reset. */
int dgnn_cuda_state_init(dgnn_cuda *c, dgnn_cuda_state *s, int64_t num_nodes, int64_t mem_dim, int64_t mail_dim,
                         int64_t slots, dgnn_err *err);
void dgnn_cuda_state_free(dgnn_cuda *c, dgnn_cuda_state *s);
int dgnn_cuda_state_reset(dgnn_cuda *c, dgnn_cuda_state *s, dgnn_err *err);
/* dgnn_state_gather_mem: out (n, M); nodes < 0 give zero rows. */
int dgnn_cuda_state_gather_mem(dgnn_cuda *c, float *dout, const dgnn_cuda_state *s, const int32_t *dnodes, int64_t n,
                               dgnn_err *err);
/* dgnn_state_set_mem: rows (n, M) and times t (n, or NULL to keep the times); the CPU
 * wants distinct nodes, the GPU takes repeats too and keeps the last one's row. */
int dgnn_cuda_state_set_mem(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, const float *drows,
                            const double *dt, int64_t n, dgnn_err *err);
/* dgnn_state_push_mails: mails (n, D), times t (n), nodes with repeats, grouped per node
 * in the order given and reduced by agg (DGNN_CUDA_AGG_LAST or _MEAN), one slot per node. */
int dgnn_cuda_state_push_mails(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, const float *dmails,
                               const double *dt, int64_t n, int agg, dgnn_err *err);
/* dgnn_state_last_mail for n nodes: out (n, D) the newest mail (zeros when none), out_t
 * (n) its time (0 when none), has (n) 1 when there is one; each of the three may be NULL. */
int dgnn_cuda_state_last_mail(dgnn_cuda *c, float *dout, double *dout_t, int32_t *dhas, const dgnn_cuda_state *s,
                              const int32_t *dnodes, int64_t n, dgnn_err *err);
/* dgnn_state_clear_mails. */
int dgnn_cuda_state_clear_mails(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, int64_t n, dgnn_err *err);
/* dt (n) = (float)(t[i] - mem_t[nodes[i]]) (0 for a node < 0): the time since each node's
 * memory update, as tgnn_memory.c's commit forms it for the mails' time encoding. */
int dgnn_cuda_state_time_since(dgnn_cuda *c, float *ddt, const double *d_t, const dgnn_cuda_state *s,
                               const int32_t *dnodes, int64_t n, dgnn_err *err);
/* Step 1 of tgnn_memory.c's commit: each of the n nodes that has a pending mail stores row
 * row[i] of h (., M) as its memory and h_t[row[i]] as its time, and its mails are dropped;
 * a node named twice is stored once, from its first position (the CPU's loop skips it the
 * second time: its mail is gone); a node without a pending mail is left alone. */
int dgnn_cuda_state_commit_mem(dgnn_cuda *c, dgnn_cuda_state *s, const int32_t *dnodes, const int32_t *drow,
                               const float *dh, const double *dh_t, int64_t n, dgnn_err *err);
#endif


/* ---- one training step of the memory models on the device (tgn_step.cu) ----
 * NOT YET VERIFIED ON HARDWARE: tests/cuda/test_cuda_tgn.c compares it with the CPU model's
 * step when a GPU is present, and none has run it yet (it runs on the host emulation,
 * tests/hostemu/, which checks this composition but no kernel).
 * TGN (GRU updater, attention over every root), JODIE (RNN, the time projection) and
 * DyRep (RNN, the updated memory as the embedding, the attention over the 2B true roots
 * for the mails only): one batch as tgnn_memory.c, tgnn_attention.c and tgn.c, jodie.c or
 * dyrep.c run it, composed of the ops above (the names say TGN: the first kind). The
 * caller does the bookkeeping on the CPU (sampling, the batch's distinct nodes, the
 * pairs, the roots' rows, which rows have a pending mail: the CPU model's own batch
 * preparation) and passes it as host arrays; the device gathers memory and mails, runs
 * the updater, the time encoding, the attention, the edge predictor and the loss, their
 * backward, the commit of memories and mails, and Adam on its parameter slab. Parameters,
 * gradients, Adam moments (here) and node state (dgnn_cuda_state) live on the device.
 * nn.h's layout functions are in dgnn_core, which this library does not call, so the
 * caller lays the attention's and the predictor's blocks out over the device slabs
 * (dgnn_tattn_params_layout(&t->ap, t->param + off_attn, ...), the same for dap over
 * t->grad, dgnn_edgepred_layout for pp and dpp) and the attention's saved slab
 * (dgnn_tattn_saved_layout over a device buffer for (Rs, P, U, P); none for JODIE).
 *
 * Made to be called for every batch of an epoch: the batch's workspace is one device slab
 * that grows (by a quarter more than asked) only when a batch needs more than it holds,
 * and the batch's host arrays go over in one copy from a pinned staging buffer that the
 * call packs (two of them, used in turn), so every call has copied what it needs from
 * the batch's host arrays by the time it returns: the caller may overwrite them at once.
 * What waits for the stream and what does not:
 *   dgnn_cuda_tgn_forward_backward with loss and logits NULL: enqueues only (the
 *     training loop's path); dgnn_cuda_tgn_wait_loss waits and gives the loss.
 *     With loss or logits given it waits, as does dgnn_cuda_tgn_forward.
 *   dgnn_cuda_tgn_commit, dgnn_cuda_tgn_adam: enqueue only.
 *   A call that grows the workspace waits for the stream first (rare: the first batches,
 *   a larger one); packing a staging buffer waits for its copy of two batches ago.
 * Everything queued reads device arrays the caller owns (the state, the attention's saved
 * slab ds): reuse them for the next batch freely (the stream keeps the order), free them
 * only after a wait. */
typedef enum {
    DGNN_CUDA_EMB_ATTN = 0,  /* TGN: the attention over every root's neighbours */
    DGNN_CUDA_EMB_JODIE = 1, /* JODIE: the time projection of the updated memory; no neighbours */
    DGNN_CUDA_EMB_DYREP = 2, /* DyRep: the updated memory; the attention over the 2B true roots
                              * goes into the mails only (no gradient) */
} dgnn_cuda_emb_kind;
typedef struct {
    int64_t M, T, D, de, E; /* memory, time encoding, mail (2M + de + T), edge features, embedding
                             * (JODIE, DyRep: E = M) */
    dgnn_cuda_emb_kind emb; /* the kind's embedding (0: TGN's) */
    int rnn;                /* the updater: 0 the GRU (TGN), 1 the RNN cell (JODIE, DyRep) */
    dgnn_tattn_cfg acfg;    /* the attention's settings (tgnn_attention.c's; TGN, DyRep) */
    int64_t total;          /* floats of the parameter slab (dgnn_params' total) */
    /* offsets in the slab of the time encoding, the updater (torch shapes, tgnn_internal.h)
     * and JODIE's time projection (jw, jb) */
    int64_t off_te_w, off_te_b, off_W_ih, off_W_hh, off_b_ih, off_b_hh, off_jw, off_jb;
} dgnn_cuda_tgn_cfg;

typedef struct dgnn_cuda_tgn_ws dgnn_cuda_tgn_ws; /* the workspace: device slab, staging, the last batch */
typedef struct {
    dgnn_cuda_tgn_cfg cfg;
    float *param, *grad, *adam_m, *adam_v; /* device slabs of cfg.total floats each (zeroed) */
    dgnn_tattn_params ap, dap;             /* the attention's block of param / grad: the caller's layout */
    dgnn_edgepred_params pp, dpp;          /* the predictor's (TGN: one bias, Hd = E): the caller's layout */
    int accumulate;                        /* 1: forward_backward adds to grad instead of zeroing it first (a
                                              step's later micro-batches: DepBloom's --refine) */
    /* grad_ready (NULL: none): forward_backward calls it once the backward of the embedding
     * and the predictor is enqueued, before the updater's: their gradients, the slab's suffix
     * grad[grad_split, total), are final on the stream from there on, so the caller can start
     * their sum over the ranks beside the rest of the backward (comm_dev.h); an error it
     * returns ends the call. The updater's tensors lie before grad_split. */
    int (*grad_ready)(void *ctx, int64_t off, int64_t n, dgnn_err *err);
    void *grad_ready_ctx;
    int64_t grad_split;
    dgnn_cuda_tgn_ws *ws;
} dgnn_cuda_tgn;

/* One batch of B events, R = (2 + nneg) B roots, all host arrays (tgnn_internal.h's fields
 * of the same names after the CPU forward). The roots sampled for are the kind's, Rs: TGN
 * every root, DyRep the first 2B, JODIE none (P = 0, Ur = 0); some may have no neighbours.
 * nneg may be 0 (R = 2B roots, B logits: the positive pairs only, as evaluation scores a
 * list of pairs) or large (evaluation's 9 or 49 negatives per event). */
typedef struct {
    int64_t B, nneg, P, U, Ur, Um; /* events, negatives per event, pairs, distinct nodes, of them
                                    * among the Rs sampled roots (rows 0..Ur-1), with a pending mail */
    const int32_t *roots;    /* (R) node ids: sources, destinations, negatives */
    const double *root_t;    /* (R) the event times */
    const int32_t *row_root; /* (R) distinct-node row of each root */
    const int64_t *off;      /* (R + 1) root i's pairs off[i] .. off[i+1]-1; off[R] = P */
    const int32_t *nbr_row;  /* (P) distinct-node row of each pair's neighbour */
    const float *pair_dt;    /* (P) root time - neighbour event time */
    const float *pair_e;     /* (P, de) the pairs' edge features, NULL when de == 0 */
    const int32_t *unodes;   /* (U) node of each row */
    const int32_t *mrow;     /* (Um) the rows with a pending mail */
    const float *efeat;      /* (B, de) the batch's events' features (for the mails), NULL when de == 0 */
    const uint64_t *seeds;   /* the attention's dropout seeds (dgnn_cuda_tattn_forward), NULL: none */
} dgnn_cuda_tgn_batch;

#if DGNN_CUDA_DECLS
/* Allocates t's slabs (zeroed) for cfg, its loss's pinned float and the staging buffers'
 * events (the workspace itself comes with the first batch); DGNN_EINVAL for bad sizes.
 * Free with dgnn_cuda_tgn_free (a zeroed t is a no-op), which waits for the stream first. */
int dgnn_cuda_tgn_init(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_tgn_cfg *cfg, dgnn_err *err);
void dgnn_cuda_tgn_free(dgnn_cuda *c, dgnn_cuda_tgn *t);
/* The bytes t's workspace holds now: its device slab plus its two pinned staging buffers
 * (0 before the first batch). It changes only when a batch outgrows it. */
size_t dgnn_cuda_tgn_workspace_bytes(const dgnn_cuda_tgn *t);
/* Zeroes t->grad (unless t->accumulate), runs the forward of batch b over state s (read, not changed) with the
 * attention's saved slab ds (laid out for (Rs, P, U, P); NULL for JODIE), the mean binary cross-entropy of
 * the logits against labels 1 (block 0) and 0 (the negatives), and the backward of
 * dloss * that mean into t->grad (the CPU trainer's dgnn_bce_logits_backward scale:
 * 2 B / G). loss and logits both NULL: the call only enqueues, and
 * dgnn_cuda_tgn_wait_loss gives the loss; otherwise it waits, then writes *loss (host,
 * when given) and logits (host ((1 + nneg) B), when given). Keeps the batch's workspace
 * for dgnn_cuda_tgn_commit. */
int dgnn_cuda_tgn_forward_backward(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_state *s,
                                   const dgnn_cuda_tgn_batch *b, dgnn_tattn_saved *ds, float dloss, float *loss,
                                   float *logits, dgnn_err *err);
/* Waits for the stream and writes the loss of the last dgnn_cuda_tgn_forward_backward
 * (host); DGNN_EINVAL when none ran or the last one failed. */
int dgnn_cuda_tgn_wait_loss(dgnn_cuda *c, dgnn_cuda_tgn *t, float *loss, dgnn_err *err);
/* The forward alone (evaluation): the forward of dgnn_cuda_tgn_forward_backward, b->seeds
 * NULL for inference (no dropout: the CPU's dgnn_tgnn_forward with rng NULL), then the
 * logits ((1 + nneg) B, host; NULL: none) and a wait. No loss, no gradient. Keeps the
 * batch's workspace for dgnn_cuda_tgn_commit, as forward_backward does. */
int dgnn_cuda_tgn_forward(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_state *s, const dgnn_cuda_tgn_batch *b,
                          dgnn_tattn_saved *ds, float *logits, dgnn_err *err);
/* tgnn_mem_commit of the last forward's batch (b: that batch; only its sizes are read,
 * the forward sent its arrays, so the CPU model may reuse its own meanwhile): the true
 * src/dst nodes with a pending mail store their updated memory, then each event's two
 * mails [mem_self, mem_other, edge features, time_enc(t - t_mem_self)] are pushed ("last"
 * per node). Run it before dgnn_cuda_tgn_adam, as the CPU trainer does (the mails' time
 * encoding uses the parameters the forward used). Asynchronous. DGNN_EINVAL without a
 * forward (of dgnn_cuda_tgn_forward or _forward_backward). */
int dgnn_cuda_tgn_commit(dgnn_cuda *c, dgnn_cuda_tgn *t, dgnn_cuda_state *s, const dgnn_cuda_tgn_batch *b,
                         dgnn_err *err);
/* dgnn_cuda_adam_step over the whole slab (step: the count after the increment); asynchronous. */
int dgnn_cuda_tgn_adam(dgnn_cuda *c, dgnn_cuda_tgn *t, double lr, double beta1, double beta2, double eps,
                       double weight_decay, int64_t step, dgnn_err *err);
#endif

/* ---- one training step of APAN on the device (apan_step.cu) ----
 * NOT YET VERIFIED ON HARDWARE: tests/cuda/test_cuda_apan.c compares it with the CPU model's
 * step when a GPU is present, and none has run it yet (it runs on the host emulation).
 * One batch as apan.c runs it, composed of the ops above: every (node, root time) row
 * attends over its node's S mail slots (keys and values of [mail; time_enc(t - t_mail)],
 * LeakyReLU scores, attention dropout), residual, LayerNorm, MLP, dropout, ReLU give the
 * updated memory, LayerNorm the embedding, the edge predictor (with its dst bias) the
 * logits; the loss and the backward into the slab; the commit of the true roots' memory
 * (last in root order, time = root time) and of their mails to their nodes and to their
 * sampled neighbours ("last" per node, one slot each); Adam. The bookkeeping is the CPU
 * model's (tgnn_apan_plan: the rows, the roots' rows, the deliveries), as host arrays;
 * the slots' time differences are formed on the device from the device state's mail
 * times. The workspace, staging and what waits are the TGN step's (above). */
typedef struct {
    int64_t M, T, de, S, heads; /* memory (= embedding), time encoding, edge features, mail slots, heads;
                                 * mail Dm = 2M + de, keys' input Dx = Dm + T */
    float dropout;              /* both dropouts' p (the attention's and the MLP's) */
    int64_t total;              /* floats of the parameter slab */
    /* offsets in the slab of the time encoding and the updater's tensors (apan.c's names) */
    int64_t off_te_w, off_te_b, off_wq, off_bq, off_wk, off_bk, off_wv, off_bv, off_ln1_g, off_ln1_b, off_mlp_w,
        off_mlp_b, off_ln2_g, off_ln2_b;
} dgnn_cuda_apan_cfg;

typedef struct dgnn_cuda_apan_ws dgnn_cuda_apan_ws;
typedef struct {
    dgnn_cuda_apan_cfg cfg;
    float *param, *grad, *adam_m, *adam_v; /* device slabs of cfg.total floats each (zeroed) */
    dgnn_edgepred_params pp, dpp;          /* the predictor's (dst bias, Hd = M): the caller's layout */
    int accumulate;                        /* as dgnn_cuda_tgn's */
    dgnn_cuda_apan_ws *ws;
} dgnn_cuda_apan;

/* One batch of B events, R = (2 + nneg) B roots, host arrays (tgnn_internal.h's fields after
 * tgnn_apan_plan and tgnn_apan_mail_targets). */
typedef struct {
    int64_t B, nneg, U, nmail; /* events, negatives per event, (node, time) rows, deliveries (2B + P) */
    const int32_t *roots;      /* (R) node ids: sources, destinations, negatives */
    const double *root_t;      /* (R) the event times */
    const int32_t *row_root;   /* (R) row of each root */
    const int32_t *unodes;     /* (U) node of each row */
    const double *h_t;         /* (U) time of each row */
    const int32_t *mnodes;     /* (nmail) node each mail goes to */
    const double *mts;         /* (nmail) its time */
    const int32_t *msrc;       /* (nmail) the true root (< 2B) whose mail it is */
    const float *efeat;        /* (B, de) the batch's events' features, NULL when de == 0 */
    const uint64_t *seeds;     /* NULL (no dropout), or the attention's then the MLP's dropout seed */
} dgnn_cuda_apan_batch;

#if DGNN_CUDA_DECLS
/* dgnn_cuda_tgn_init / _free / _workspace_bytes / _forward_backward / _wait_loss / _forward
 * / _commit / _adam for APAN: the same contracts, over the state s (slots S, mail width
 * Dm). The commit (apan_commit) needs no time encoding, so it may run after Adam too. */
int dgnn_cuda_apan_init(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_apan_cfg *cfg, dgnn_err *err);
void dgnn_cuda_apan_free(dgnn_cuda *c, dgnn_cuda_apan *t);
size_t dgnn_cuda_apan_workspace_bytes(const dgnn_cuda_apan *t);
int dgnn_cuda_apan_forward_backward(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_state *s,
                                    const dgnn_cuda_apan_batch *b, float dloss, float *loss, float *logits,
                                    dgnn_err *err);
int dgnn_cuda_apan_wait_loss(dgnn_cuda *c, dgnn_cuda_apan *t, float *loss, dgnn_err *err);
int dgnn_cuda_apan_forward(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_state *s, const dgnn_cuda_apan_batch *b,
                           float *logits, dgnn_err *err);
int dgnn_cuda_apan_commit(dgnn_cuda *c, dgnn_cuda_apan *t, dgnn_cuda_state *s, const dgnn_cuda_apan_batch *b,
                          dgnn_err *err);
int dgnn_cuda_apan_adam(dgnn_cuda *c, dgnn_cuda_apan *t, double lr, double beta1, double beta2, double eps,
                        double weight_decay, int64_t step, dgnn_err *err);

/* ---- the snapshot models' dense kernels (issue 18; mgru.cu, lstm.cu, snap_loss.cu, rrelu.cu) ----
 * NOT YET VERIFIED ON HARDWARE: tests/cuda/test_cuda_snap.c compares each with its CPU op
 * when a GPU is present, and none has run it yet.
 * The GPU twins of nn.h's "snapshot models' dense kernels", the conventions above (device
 * arrays d*, gradients +=, asynchronous on the stream). Where the CPU op allocates its
 * temporaries, the matrix GRU's backward takes them from the caller (dscratch) and TopK
 * allocates them stream-ordered (cudaMallocAsync / cudaFreeAsync on the context's stream:
 * no wait). Every reduction runs in a fixed order (no float atomics): the same bits on
 * every run. */
/* mgru.cu: the GPU twin of dgnn_mgru_forward: q_new (R, C); saved (4, R, C) = [Z, Rs, Hc,
 * Rs*Q]; x, q (R, C), x may equal q (EvolveGCN-O); params dgnn_mgru_param_count(R, C)
 * floats in the CPU's layout [W (3R, R); U (3R, R); B (3R, C)]. q_new must not alias x or
 * q (DGNN_EINVAL). */
int dgnn_cuda_mgru_forward(dgnn_cuda *c, float *dq_new, float *dsaved, const float *dx, const float *dq,
                           const float *dparams, int64_t R, int64_t C, dgnn_err *err);
/* mgru.cu: the GPU twin of dgnn_mgru_backward: dx (R, C) += (or NULL), dq (R, C) +=,
 * dparams += (both required); dx may equal dq. scratch (4 R C floats) overwritten: the
 * CPU op's own temporaries. */
int dgnn_cuda_mgru_backward(dgnn_cuda *c, float *ddx, float *ddq, float *ddparams, float *dscratch,
                            const float *ddq_new, const float *dsaved, const float *dx, const float *dq,
                            const float *dparams, int64_t R, int64_t C, dgnn_err *err);
/* mgru.cu: the GPU twin of dgnn_topk_forward: out (F, k), idx (k), tanh_s (k) from X (N, F),
 * p (F), mask (N, or NULL: every row valid); nsel (1, or NULL) gets the CPU op's return
 * value, the number of distinct rows selected (0 for k <= 0, when nothing else is
 * written). The same rows as the CPU's, in the same order, ties and padding included: the
 * scores are the CPU's doubles bit for bit (mgru.cu says why) and the ranking is its rule
 * (higher score, then lower row). N must fit an int32, F >= 1, p non-zero (a zero p gives
 * NaN scores, whose order the CPU leaves unspecified). */
int dgnn_cuda_topk_forward(dgnn_cuda *c, int64_t *dnsel, float *dout, int32_t *didx, float *dtanh_s, const float *dX,
                           const float *dp, const uint8_t *dmask, int64_t N, int64_t F, int64_t k, dgnn_err *err);
/* mgru.cu: the GPU twin of dgnn_topk_backward: dX (N, F) += (or NULL), dp (F) += from dout
 * (F, k); a padded (repeated) row gets the sum of its columns, added in column order. */
int dgnn_cuda_topk_backward(dgnn_cuda *c, float *ddX, float *ddp, const float *ddout, const int32_t *didx,
                            const float *dtanh_s, const float *dX, const float *dp, int64_t N, int64_t F, int64_t k,
                            dgnn_err *err);
/* lstm.cu: the GPU twin of dgnn_lstm_forward: hout, cout (B, H); saved (B, DGNN_LSTM_SAVED(H))
 * = [activated gates i | f | g | o (B, 4H), tanh c' (B, H)]; scratch (B, DGNN_LSTM_SCRATCH(H))
 * overwritten; x (B, Din), h, c (B, H); W_ih (4H, Din), W_hh (4H, H), b_ih, b_hh (4H) or
 * NULL. hout and cout must not alias h or c (DGNN_EINVAL). */
int dgnn_cuda_lstm_forward(dgnn_cuda *c, float *dhout, float *dcout, float *dsaved, float *dscratch, const float *dx,
                           const float *dh, const float *dc, const float *dW_ih, const float *dW_hh,
                           const float *db_ih, const float *db_hh, int64_t B, int64_t Din, int64_t H,
                           dgnn_err *err);
/* lstm.cu: the GPU twin of dgnn_lstm_backward: dx, dh, dc, dW_ih, dW_hh, db_ih, db_hh all +=,
 * any may be NULL; dhout, dcout (B, H) or NULL (zero); scratch (B, 4H) overwritten. */
int dgnn_cuda_lstm_backward(dgnn_cuda *c, float *ddx, float *ddh, float *ddc, float *ddW_ih, float *ddW_hh,
                            float *ddb_ih, float *ddb_hh, float *dscratch, const float *ddhout, const float *ddcout,
                            const float *dsaved, const float *dx, const float *dh, const float *dc,
                            const float *dW_ih, const float *dW_hh, int64_t B, int64_t Din, int64_t H,
                            dgnn_err *err);
#endif

/* ---- the node-state GRU of T-GCN and GCRN-GRU (snap_gates.cu) ----
 * NOT YET VERIFIED ON HARDWARE: compiled only; tests/cuda/test_cuda_snaptrain_tgcn.c runs
 * the two models composed of them on the host emulation (tests/hostemu/hostemu_gates.cpp,
 * which runs nn.h's CPU ops) and on a GPU when there is one.
 * The element-wise parts of tgcn.c's and gcrn.c's cell (snapmodel.h), between the products
 * (dgnn_cuda_gemm, the sparse GCN ops above) that form the gates' pre-activations:
 *   Z = sigmoid(pz), R = sigmoid(pr), HR = H R, Ht = tanh(ph), H' = Z H + (1 - Z) Ht,
 * and their backward, each the GPU twin of nn.h's dgnn_ngru_* (ngru.c), element for element in
 * the same order of operations (the device's expf and tanhf, where the CPU has libm's:
 * they agree within a few ulps; the compiler may fuse a multiply and an add). Plus the two
 * bias helpers of snapmodel_gcn.c's layers (a bias added to every row, column sums). The
 * conventions above: device arrays d*, gradients += (any may be NULL: not wanted),
 * asynchronous on the stream, no float atomics (the same bits on every run); negative
 * sizes are DGNN_EINVAL, 0 does nothing. */
#define DGNN_CUDA_GATE_SIGMOID DGNN_NGRU_SIGMOID /* nn.h's dgnn_sigmoidf */
#define DGNN_CUDA_GATE_TANH DGNN_NGRU_TANH       /* tanhf */
#if DGNN_CUDA_DECLS
/* Y (N, D) += b (D) on every row: the bias of snapm_h_gcn_forward's layer. */
int dgnn_cuda_add_rows(dgnn_cuda *c, float *dY, const float *db, int64_t N, int64_t D, dgnn_err *err);
/* db (D) += the column sums of dY (N, D), each column summed in row order by one thread
 * (snapm_colsum: the bias gradients). */
int dgnn_cuda_col_sums(dgnn_cuda *c, float *ddb, const float *ddY, int64_t N, int64_t D, dgnn_err *err);
/* A gate: out (N, D) = act((x + h) + b), x (N, D), h (N, D) or NULL, b (D) or NULL (added
 * to every row), act DGNN_CUDA_GATE_SIGMOID or _TANH (else DGNN_EINVAL). out may equal x
 * or h (in place), not overlap them otherwise. T-GCN: x = the Linear's products, b its
 * bias; GCRN-GRU: x and h the input's and the state's GCN, biases included. */
int dgnn_cuda_ngru_gate(dgnn_cuda *c, float *dout, const float *dx, const float *dh, const float *db, int act,
                        int64_t N, int64_t D, dgnn_err *err);
/* The reset state HR (n) = H (n) * R (n). */
int dgnn_cuda_ngru_reset(dgnn_cuda *c, float *dHR, const float *dH, const float *dR, int64_t n, dgnn_err *err);
/* The update Hn (n) = Z H + (1 - Z) Ht (Hn may equal none of them). */
int dgnn_cuda_ngru_update(dgnn_cuda *c, float *dHn, const float *dZ, const float *dH, const float *dHt, int64_t n,
                          dgnn_err *err);
/* The update's backward through the gates' activations, from dHn (n):
 * dZp += dHn (H - Ht) Z (1 - Z) (Z's pre-activation), dHtp += dHn (1 - Z) (1 - Ht^2)
 * (Ht's pre-activation), dH += dHn Z. */
int dgnn_cuda_ngru_update_backward(dgnn_cuda *c, float *ddZp, float *ddHtp, float *ddH, const float *ddHn,
                                   const float *dZ, const float *dH, const float *dHt, int64_t n, dgnn_err *err);
/* The reset state's backward through R's activation, from dHR (n): dH += dHR R,
 * dRp += dHR H R (1 - R) (R's pre-activation). */
int dgnn_cuda_ngru_reset_backward(dgnn_cuda *c, float *ddH, float *ddRp, const float *ddHR, const float *dR,
                                  const float *dH, int64_t n, dgnn_err *err);
/* snap_loss.cu: the GPU twins of dgnn_wce_forward / _backward (EvolveGCN's weighted
 * cross-entropy, the mean over M, class_w (C) or NULL) and dgnn_mse_forward / _backward.
 * The forwards' loss goes to device memory, dloss (1 double; 0 for no samples), where the
 * CPU op returns it: download it after a sync. The backwards' dloss is the host scalar of
 * the CPU op. A label outside [0, C), which the CPU op asserts on, makes the loss and that
 * row's gradient NaN. */
int dgnn_cuda_wce_forward(dgnn_cuda *c, double *dloss, const float *dlogits, const int32_t *dlabels,
                          const float *dclass_w, int64_t M, int64_t C, dgnn_err *err);
int dgnn_cuda_wce_backward(dgnn_cuda *c, float *ddlogits, float dloss, const float *dlogits, const int32_t *dlabels,
                           const float *dclass_w, int64_t M, int64_t C, dgnn_err *err);
int dgnn_cuda_mse_forward(dgnn_cuda *c, double *dloss, const float *dpred, const float *dtarget, int64_t n,
                          dgnn_err *err);
int dgnn_cuda_mse_backward(dgnn_cuda *c, float *ddpred, float dloss, const float *dpred, const float *dtarget,
                           int64_t n, dgnn_err *err);
/* rrelu.cu: the GPU twin of dgnn_rrelu_forward (y may equal x) / _backward. Randomness:
 * where the CPU op takes an rng, the GPU op takes `key`, the u64 the CPU op draws from it
 * (dgnn_rng_u64, once per call in training, even for n = 0; never in eval); the slopes are
 * then the CPU's bit for bit. key is read only in training (NULL there: DGNN_EINVAL). */
int dgnn_cuda_rrelu_forward(dgnn_cuda *c, float *dy, float *dslope, const float *dx, int64_t n, float lower,
                            float upper, int training, const uint64_t *key, dgnn_err *err);
int dgnn_cuda_rrelu_backward(dgnn_cuda *c, float *ddx, const float *ddy, const float *dslope, int64_t n,
                             dgnn_err *err);

/* ---- the snapshot models' pair classifier on the device (snap_cls.cu) ----
 * NOT YET VERIFIED ON HARDWARE: tests/cuda/test_cuda_cls.c compares each op with the CPU
 * classifier (snapmodel.h's dgnn_snapmodel_edge_*) when a GPU is present.
 * snapmodel.h's edge classifier, logits(u, v) = W2 relu(W1a h_u + W1b h_v + b1) + b2, with
 * W1 = [W1a | W1b] (C, 2L) in torch's layout (row c holds W1a's L columns, then W1b's), b1
 * (C), W2 (K, C), b2 (K): device arrays of the model's parameter slab. As on the CPU the
 * first layer runs once per node, not per pair; on the device for every node (N C 2L
 * multiply-adds, less than the pairs' own work), so that no distinct-node bookkeeping is
 * needed. No float atomics: every sum runs in a fixed order (the same bits on every run). */
/* P (N, C) = H W1a^T + b1, Q (N, C) = H W1b^T, from H (N, L). */
int dgnn_cuda_cls_nodes(dgnn_cuda *c, float *dP, float *dQ, const float *dH, const float *dW1, const float *db1,
                        int64_t N, int64_t L, int64_t C, dgnn_err *err);
/* hid (M, C) = relu(P[src_i] + Q[dst_i]) and logits (M, K) = hid W2^T + b2 for the M pairs
 * (src, dst: device, in [0, N), not checked on the device). hid is what the backward reads. */
int dgnn_cuda_cls_pairs_forward(dgnn_cuda *c, float *dlogits, float *dhid, const float *dP, const float *dQ,
                                const int32_t *dsrc, const int32_t *ddst, const float *dW2, const float *db2,
                                int64_t M, int64_t C, int64_t K, dgnn_err *err);
/* The backward of dgnn_cuda_cls_nodes and _pairs_forward from dlogits (M, K):
 *   dW2 (K, C) += dlogits^T hid, db2 (K) += the column sums of dlogits;
 *   G = (dlogits W2) where hid > 0 (0 elsewhere), into dscratch (M, C), overwritten;
 *   dP (N, C) = for each node u the sum of G's rows of the pairs with src = u, dQ (N, C) the
 *     same over dst (both overwritten; 0 for a node without pairs), each sum in ascending
 *     pair order: the pairs of node u as a source are sperm[soff[u] .. soff[u+1]) (soff (N
 *     + 1), sperm (M): a stable counting sort of src, made by the caller on the host), as a
 *     destination dperm[doff[u] .. doff[u+1]);
 *   dW1 (C, 2L) += [dP^T H | dQ^T H], db1 (C) += the column sums of dP;
 *   dH (N, L) += dP W1a + dQ W1b (dH may be NULL: no input gradient).
 * M = 0 touches nothing (dP and dQ included). */
int dgnn_cuda_cls_pairs_backward(dgnn_cuda *c, float *ddH, float *ddW1, float *ddb1, float *ddW2, float *ddb2,
                                 float *ddP, float *ddQ, float *dscratch, const float *ddlogits, const float *dhid,
                                 const float *dH, const float *dW1, const float *dW2, const int32_t *dsoff,
                                 const int32_t *dsperm, const int32_t *ddoff, const int32_t *ddperm, int64_t N,
                                 int64_t M, int64_t L, int64_t C, int64_t K, dgnn_err *err);
/* The GPU twin of dgnn_snapmodel_edge_prob_rows (K = 2), from P and Q of
 * dgnn_cuda_cls_nodes: prob (rows, N), row-major, prob[r][v] = sigmoid(wd . relu(P[u0 + r]
 * + Q[v]) + bd) with wd = W2[1] - W2[0], bd = b2[1] - b2[0]: the probability of class 1 of
 * every pair (u0 + r, v). */
int dgnn_cuda_cls_prob_rows(dgnn_cuda *c, float *dprob, const float *dP, const float *dQ, const float *dW2,
                            const float *db2, int64_t u0, int64_t rows, int64_t N, int64_t C, dgnn_err *err);
#endif

/* ---- the link task's all-pairs metrics on the device (snap_metric.cu) ----
 * NOT YET VERIFIED ON HARDWARE: tests/cuda/test_cuda_metric.c compares it with the CPU's
 * when a GPU is present.
 * The GPU twin of metrics.h's dgnn_snap_link_metrics: *ap = the average precision of the
 * N x N scores prob (device, row-major) against the labels "(u, v) is an entry of the
 * snapshot" (rowptr (N + 1), col (nnz): the snapshot's CSR, device, columns ascending in a
 * row), with dgnn_metric_ap's rule for tied scores; *mrr = the mean over the rows with an
 * entry of dgnn_evolvegcn_mrr of that row (EvolveGCN's logger.get_MRR). Both NaN as the
 * CPU's (no entry; a NaN score). Host doubles; the call waits for the device. The sums run
 * in another order than the CPU's (agreement within double rounding), in a fixed one (the
 * same bits every run). Temporaries are stream-ordered allocations (cudaMallocAsync).
 * N is at most DGNN_CUDA_LINK_METRICS_MAX_N (N^2 < 2^32: the sort's words), else DGNN_EINVAL. */
#define DGNN_CUDA_LINK_METRICS_MAX_N 65535
#if DGNN_CUDA_DECLS
int dgnn_cuda_link_metrics(dgnn_cuda *c, double *ap, double *mrr, const float *dprob, const int32_t *drowptr,
                           const int32_t *dcol, int64_t N, int64_t nnz, dgnn_err *err);
#endif

#ifdef __cplusplus
}
#endif
#endif
