/* snapmodel_cuda_internal.h: what the GPU snapshot models share (private to src/models):
 * the device model's struct, the uploaded snapshots and the table of kind-specific window
 * operations each kind's file provides (snapmodel_cuda.c holds the front, the pair
 * classifier, the loss, Adam, the moves between host and device; egcn_cuda.c EvolveGCN-O
 * and -H's window, wdgcn_cuda.c WD-GCN's, static_gcn_cuda.c the static GCN's). Calls go
 * one way: the front calls the kinds through their table.
 * Only with the CUDA backend (DGNN_HAVE_CUDA). */
#ifndef DGNN_SNAPMODEL_CUDA_INTERNAL_H
#define DGNN_SNAPMODEL_CUDA_INTERNAL_H

#include "dgnn/snapmodel_cuda.h"
#include "snapmodel_internal.h"

#if DGNN_HAVE_CUDA
#include "dgnn/cuda.h"

/* one snapshot on the device (dgnn_snapmodel_cuda_inputs) */
typedef struct {
    dgnn_cuda_csr A, At; /* A_hat; its transpose when the input gives one (At.rows 0 otherwise) */
    dgnn_cuda_csr lab;   /* the snapshot's own A (the link task's labels), when has_lab */
    int has_lab;
    int32_t *idx;        /* (N) one-hot categories, or NULL */
    float *feat;         /* (N, V) dense input; with a one-hot input and snapc_ops.rows, the one-hot rows */
    uint8_t *mask;       /* (N) TopK's candidates (EvolveGCN-H), or NULL: every node */
} snapc_snap;

/* One kind. init after the front's buffers (the slabs, H, dH) exist: the kind's own
 * buffers behind g->impl (on failure the front calls free, which must take a partial
 * impl); forward: the window of snapshots t0 .. t0 + T - 1 (checked by the front) into
 * g->H, RReLU's keys drawn from rng as the CPU kind draws them (NULL: evaluation);
 * backward: from g->dH, the gradients accumulate into g->grad. Optional (NULL): inputs,
 * called at the end of dgnn_snapmodel_cuda_inputs with the host inputs (which the kind
 * may read only during the call); group, snapm_ops.group's twin
 * (dgnn_snapmodel_cuda_group). */
typedef struct {
    int rows; /* 1: the kind reads a one-hot input's rows (uploaded as a dense (N, V) array) */
    int (*init)(dgnn_snapmodel_cuda *g, dgnn_err *err);
    int (*forward)(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_rng *rng, dgnn_err *err);
    int (*backward)(dgnn_snapmodel_cuda *g, int64_t t0, int64_t T, dgnn_err *err);
    void (*free)(dgnn_snapmodel_cuda *g);
    int (*inputs)(dgnn_snapmodel_cuda *g, const dgnn_snap_input *in, int64_t n, dgnn_err *err);
    int (*group)(dgnn_snapmodel_cuda *g, int begin, dgnn_err *err);
} snapc_ops;

extern const snapc_ops snapc_egcn_ops;  /* egcn_cuda.c: EvolveGCN-O and -H */
extern const snapc_ops snapc_wdgcn_ops; /* wdgcn_cuda.c: WD-GCN */
extern const snapc_ops snapc_gcn_ops;   /* static_gcn_cuda.c: the static GCN on the window's union graph */

struct dgnn_snapmodel_cuda {
    dgnn_snapmodel *m;
    dgnn_cuda *c;
    const snapc_ops *ops;
    void *impl;                    /* the kind's state */
    int64_t N, V, L, C, K, total;
    float *param, *grad, *am, *av; /* (total) device slabs in the host slab's layout */
    snapc_snap *s;                 /* (ns) the uploaded snapshots */
    int64_t ns;
    float *H, *dH;                 /* (N, L) the window's output and its gradient */
    /* the pair classifier (snapmodel_cuda.c) */
    int64_t oW1, ob1, oW2, ob2;    /* its tensors' offsets in the slab */
    float *P, *Qc, *dP, *dQc;      /* (N, C) */
    float *hid, *gscr;             /* (Mcap, C) */
    float *logits, *dlogits;       /* (Mcap, K) */
    int32_t *src, *dst, *lab, *perm; /* (Mcap); perm: [sperm | dperm] (2 Mcap) */
    int32_t *offs;                 /* (2 (N + 1)): [soff | doff] */
    float *class_w;                /* (2) */
    double *loss;                  /* (1) */
    float *prob;                   /* (N, N), grown at the first link evaluation */
    int64_t Mcap;
    int32_t *h_offs, *h_perm;      /* host staging of the pairs' grouping */
    int64_t h_cap;
    char name[128];
};

/* *p = n elements of `size` bytes on g's device (DGNN_ENOMEM naming `what`) */
int snapc_alloc(dgnn_snapmodel_cuda *g, void **p, int64_t n, size_t size, const char *what, dgnn_err *err);
#define SNAPC_ALLOC_F(g, ptr, n, what) snapc_alloc((g), (void **)&(ptr), (n), sizeof(float), (what), err)
/* the slab offset of the model's tensor `name` (it must exist) */
int64_t snapc_offset(const dgnn_snapmodel *m, const char *name);

#endif
#endif
