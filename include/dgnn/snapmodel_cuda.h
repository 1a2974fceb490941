/* snapmodel_cuda.h: a snapshot model (snapmodel.h) trained and evaluated on an NVIDIA GPU
 * (`dgnn train --model evolvegcn-o|evolvegcn-h|tgcn|gcrn-gru|wdgcn|gcn --device cuda[:N]`,
 * issue 18), composed of the CUDA backend's ops (cuda.h: the sparse products of spmm.cu, the
 * matrix GRU of mgru.cu, the LSTM cell of lstm.cu, RReLU, the node-state GRU gates of
 * snap_gates.cu, the pair classifier of snap_cls.cu, the weighted cross-entropy, the all-pairs
 * metrics of snap_metric.cu, Adam).
 *
 * NOT YET VERIFIED ON HARDWARE: it compiles here and in CI, and tests/cuda/test_cuda_snaptrain.c
 * compares it with the CPU path on the host emulation of the CUDA layer (tests/hostemu/) and,
 * when a GPU is present, on the GPU; no GPU has run it yet.
 *
 * Which kinds: all six, one-hot or dense node input: EvolveGCN-O and -H (egcn_cuda.c), T-GCN
 * and GCRN-GRU (tgcn_cuda.c, gcrn_cuda.c), WD-GCN (wdgcn_cuda.c; its groups of windows included,
 * dgnn_snapmodel_cuda_group) and the static GCN on the window's union graph (static_gcn_cuda.c;
 * the union built on the host as the CPU kind builds it, uploaded once per window start); for
 * the link and edge tasks, and the node task with its head (node_head.h) on the device (the
 * section "the node task" below); one process or DyGNeX's ranks (snap_train.h; the gradients
 * summed over the ranks on the device's slabs, comm_dev.h). Tested
 * against the CPU by tests/cuda/test_cuda_snaptrain*.c.
 *
 * Who holds what. The device holds the parameter slab, its gradients and Adam moments, every
 * snapshot's A_hat and node input (uploaded once, dgnn_snapmodel_cuda_inputs) and the
 * label snapshots' patterns; the host model (dgnn_snapmodel) keeps the slab's layout and
 * the host copy of the values, which is stale between dgnn_snapmodel_cuda_pull calls. The
 * host draws what is random (negatives, RReLU's keys from the same rng and in the same order
 * as the CPU forward) and builds each sample's pairs, so the two paths train on the same
 * data; the results agree within float rounding (other summation orders), not to the bit.
 *
 * Built without CUDA (no -DDGNN_CUDA=ON), every function but _built and _supports returns
 * DGNN_EDEVICE saying so. */
#ifndef DGNN_SNAPMODEL_CUDA_H
#define DGNN_SNAPMODEL_CUDA_H

#include "dgnn/cuda.h"
#include "dgnn/node_head.h"
#include "dgnn/snapmodel.h"
#include "dgnn/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgnn_snapmodel_cuda dgnn_snapmodel_cuda;

/* 1 when this build has the CUDA backend (or its host emulation), else 0. */
int dgnn_snapmodel_cuda_built(void);
/* The usable CUDA devices (0 without the backend, a driver or a device). */
int dgnn_snapmodel_cuda_devices(void);
/* DGNN_EINVAL naming what the GPU path does not run: kinds other than EvolveGCN-O and -H,
 * every kind. */
int dgnn_snapmodel_cuda_supports(const dgnn_snapmodel_cfg *cfg, dgnn_err *err);

/* Opens CUDA device `device`, allocates the device slabs for m and uploads m's parameters,
 * gradients and Adam moments (dgnn_snapmodel_cuda_push). DGNN_EDEVICE with a message: no such
 * device, no CUDA in this build. */
int dgnn_snapmodel_cuda_init(dgnn_snapmodel_cuda **out, dgnn_snapmodel *m, int device, dgnn_err *err);
void dgnn_snapmodel_cuda_free(dgnn_snapmodel_cuda *d);
/* Uploads the n snapshots' inputs in[0..n) (A_hat, its transpose when given, the one-hot
 * categories or dense features, TopK's mask) and patterns lab[0..n) (the snapshots' own A:
 * the link task's labels; lab may be NULL). Windows then name their snapshots by index. */
int dgnn_snapmodel_cuda_inputs(dgnn_snapmodel_cuda *d, const dgnn_snap_input *in, const dgnn_snapshot *lab,
                               int64_t n, dgnn_err *err);

/* One training sample: the window of the T snapshots t0 .. t0 + T - 1 (rng: RReLU's keys,
 * drawn as dgnn_snapmodel_forward draws them), the classifier on the M pairs (src, dst)
 * with labels lab (0/1), EvolveGCN's weighted cross-entropy (class_w (2)), and the backward:
 * the gradients ACCUMULATE on the device (several samples per step). *loss = the sample's
 * loss (waits for the device). Errors: DGNN_EINVAL (a window outside the uploaded
 * snapshots), DGNN_ENOMEM, DGNN_EDEVICE. */
int dgnn_snapmodel_cuda_train_sample(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng,
                                     const int32_t *src, const int32_t *dst, const int32_t *lab, int64_t M,
                                     const float *class_w, double *loss, dgnn_err *err);
/* dgnn_snapmodel_group_begin (begin 1) / _end (0)'s twin on the device: the samples between
 * them share their snapshots' encoder outputs as the CPU kind's do (WD-GCN: each snapshot's
 * GCN computed at its first window of the group, with that window's RReLU keys, its
 * backward deferred to the end, where it runs; cfg.group_bytes bounds the shared
 * snapshots as on the CPU). Call it where the host model's group_begin / _end are called;
 * the gradients are complete only after the end. A no-op for kinds that share nothing. */
int dgnn_snapmodel_cuda_group(dgnn_snapmodel_cuda *d, int begin, dgnn_err *err);
/* One Adam step on the device's summed gradients, then zeroed gradients: dgnn_adam's
 * settings as numbers (adam.h is in a higher layer), t the step count after the increment
 * (the caller keeps it: opt.t++, then pass opt.t). */
int dgnn_snapmodel_cuda_step(dgnn_snapmodel_cuda *d, double lr, double beta1, double beta2, double eps,
                             double weight_decay, int64_t t, dgnn_err *err);

/* ---- evaluation (no randomness, no gradient) ---- */
/* The window's forward (t0, T as above) and the classifier's logits (M, 2; host) of the pairs. */
int dgnn_snapmodel_cuda_logits(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, const int32_t *src,
                               const int32_t *dst, int64_t M, float *logits, dgnn_err *err);
/* The window's forward, every node pair scored (dgnn_snapmodel_edge_prob_rows) and
 * metrics.h's dgnn_snap_link_metrics against snapshot `label` (an index into the uploaded
 * patterns): *ap, *mrr. At most DGNN_SNAPMODEL_CUDA_LINK_MAX_N nodes (cuda.h's
 * DGNN_CUDA_LINK_METRICS_MAX_N: the device sort's words hold N^2 < 2^32). */
#define DGNN_SNAPMODEL_CUDA_LINK_MAX_N 65535
int dgnn_snapmodel_cuda_link_metrics(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, int64_t label, double *ap,
                                     double *mrr, dgnn_err *err);

/* ---- moving parameters between host and device ---- */
/* Device to host: all four slabs of p (the model's): values, gradients (summed since the
 * last step: with windows_per_step > 1 a step may straddle epochs, and a checkpoint keeps
 * them) and Adam's moments. */
int dgnn_snapmodel_cuda_pull(dgnn_snapmodel_cuda *d, dgnn_params *p, dgnn_err *err);
/* Host to device: the four slabs of p. */
int dgnn_snapmodel_cuda_push(dgnn_snapmodel_cuda *d, const dgnn_params *p, dgnn_err *err);
/* The gradient slab alone: device to host (to_host 1) or host to device (0), for the
 * host-staged all-reduce of DyGNeX's rounds (one GPU shared by the ranks, or no NCCL). */
int dgnn_snapmodel_cuda_grad(dgnn_snapmodel_cuda *d, float *grad, int to_host, dgnn_err *err);
/* The device context and the gradient slabs (device memory: the model's, the node head's or
 * NULL without one), for comm_dev.h's collectives; NULL without the CUDA backend. */
dgnn_cuda *dgnn_snapmodel_cuda_context(dgnn_snapmodel_cuda *d);
float *dgnn_snapmodel_cuda_grad_slab(dgnn_snapmodel_cuda *d);
float *dgnn_snapmodel_cuda_head_grad_slab(dgnn_snapmodel_cuda *d);
/* The device's name ("NVIDIA H200"), for reports. */
const char *dgnn_snapmodel_cuda_device_name(const dgnn_snapmodel_cuda *d);

/* ---- the node task (node regression, snap_train.h): node_head.h's head on the device ----
 * Linear(L -> C) -> ReLU -> Linear(C -> 1) on the window's output H (N, L), composed of
 * cuda.h's linear, relu, mse and adam ops, with device slabs of its own (values, gradients,
 * Adam moments) in the host head's layout (head->p), stepped with an Adam of its own (the
 * trainer's hopt), as the CPU path. The model's pair classifier is not used. Every call
 * below but _node_head returns DGNN_EINVAL before a head is attached. */
/* Attaches a head for d's N nodes and width L (head->N, head->L: DGNN_EINVAL otherwise):
 * allocates its device slabs and activations and uploads its four slabs (_head_push).
 * A second call replaces the first head. */
int dgnn_snapmodel_cuda_node_head(dgnn_snapmodel_cuda *d, const dgnn_node_head *head, dgnn_err *err);
/* One training sample: the window t0 .. t0 + T - 1 (rng: RReLU's keys, as
 * dgnn_snapmodel_forward draws them), the head, the MSE against y (N; host) and the
 * backward through head and window: the gradients of the model's slab and the head's
 * ACCUMULATE on the device. *loss = the sample's MSE (waits for the device). Errors as
 * dgnn_snapmodel_cuda_train_sample's. */
int dgnn_snapmodel_cuda_node_train_sample(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, dgnn_rng *rng,
                                          const float *y, double *loss, dgnn_err *err);
/* Evaluation (no randomness, no gradient): the window's forward and the head's
 * predictions yhat (N; host). */
int dgnn_snapmodel_cuda_node_predict(dgnn_snapmodel_cuda *d, int64_t t0, int64_t T, float *yhat, dgnn_err *err);
/* One Adam step of the head on its summed gradients (the settings as numbers and t the
 * count after the increment, as dgnn_snapmodel_cuda_step), then zeroed gradients. */
int dgnn_snapmodel_cuda_head_step(dgnn_snapmodel_cuda *d, double lr, double beta1, double beta2, double eps,
                                  double weight_decay, int64_t t, dgnn_err *err);
/* The head's four slabs (values, gradients, Adam moments) device to host into p (the
 * host head's slab), and host to device. */
int dgnn_snapmodel_cuda_head_pull(dgnn_snapmodel_cuda *d, dgnn_params *p, dgnn_err *err);
int dgnn_snapmodel_cuda_head_push(dgnn_snapmodel_cuda *d, const dgnn_params *p, dgnn_err *err);
/* The head's gradient slab alone (p.total floats), device to host (to_host 1) or back (0):
 * DyGNeX's host-staged all-reduce, as dgnn_snapmodel_cuda_grad. */
int dgnn_snapmodel_cuda_head_grad(dgnn_snapmodel_cuda *d, float *grad, int to_host, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
