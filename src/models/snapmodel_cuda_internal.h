/* snapmodel_cuda_internal.h: what the GPU snapshot models share (private to src/models):
 * the device model's struct, the uploaded snapshots and the table of kind-specific window
 * operations each kind's file provides (snapmodel_cuda.c holds the front, the pair
 * classifier, the loss, Adam, the moves between host and device; egcn_cuda.c EvolveGCN-O
 * and -H's window, tgcn_cuda.c T-GCN's, gcrn_cuda.c GCRN-GRU's, wdgcn_cuda.c WD-GCN's,
 * static_gcn_cuda.c the static GCN's; snapmodel_gcn_cuda.c the GCN layers of T-GCN and GCRN-GRU,
 * snapmodel_ngru_cuda.c their shared state).
 * Calls go one way: the front calls the kinds through their table, the kinds call the
 * helpers (snapc_alloc, snapc_offset) and the layers below, in snapmodel_gcn_cuda.c.
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

extern const snapc_ops snapc_egcn_ops; /* egcn_cuda.c: EvolveGCN-O and -H */
extern const snapc_ops snapc_tgcn_ops, snapc_gcrn_ops; /* tgcn_cuda.c, gcrn_cuda.c */
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
    struct snapc_head *head;       /* the node task's head (snapmodel_cuda.c's node section), or NULL */
};

/* releases g->head (snapmodel_cuda.c's node section); a no-op without one */
void snapc_head_free(dgnn_snapmodel_cuda *g);

/* *p = n elements of `size` bytes on g's device (DGNN_ENOMEM naming `what`) */
int snapc_alloc(dgnn_snapmodel_cuda *g, void **p, int64_t n, size_t size, const char *what, dgnn_err *err);
#define SNAPC_ALLOC_F(g, ptr, n, what) snapc_alloc((g), (void **)&(ptr), (n), sizeof(float), (what), err)
/* the slab offset of the model's tensor `name` (it must exist) */
int64_t snapc_offset(const dgnn_snapmodel *m, const char *name);

/* ---- snapmodel_gcn.c's GCN layers on the device (snapmodel_gcn_cuda.c), for the kinds ----
 * The same products in the same order ("X W" weights (in, out): X W first, then A), the
 * bias added after the sparse product, the bias gradient as column sums.
 * snapc_in_gcn_forward: G (N, D) = A X W + b of snapshot s's node input (one-hot: a row
 * gather of W (V, D); dense: s->feat (N, V)), b (D) or NULL; tmp (N, D) overwritten.
 * snapc_in_gcn_backward: dW (V, D) +=, db (D) += (or NULL) from dG (N, D); tmp (N, D)
 * overwritten; the input has no gradient. */
int snapc_in_gcn_forward(dgnn_snapmodel_cuda *g, float *G, float *tmp, const snapc_snap *s, const float *W,
                         const float *b, int64_t D, dgnn_err *err);
int snapc_in_gcn_backward(dgnn_snapmodel_cuda *g, float *dW, float *db, float *tmp, const snapc_snap *s,
                          const float *dG, int64_t D, dgnn_err *err);
/* A hidden input X (N, Di): Y (N, Do) = A X W + b, W (Di, Do), b (Do) or NULL; tmp (N, Do)
 * overwritten. Backward: dX (N, Di) += (or NULL), dW +=, db += (or NULL) from dY (N, Do),
 * At = A's transpose (snapc_At); tmp (N, Do) overwritten. */
int snapc_h_gcn_forward(dgnn_snapmodel_cuda *g, float *Y, float *tmp, const dgnn_cuda_csr *A, const float *X,
                        const float *W, const float *b, int64_t Di, int64_t Do, dgnn_err *err);
int snapc_h_gcn_backward(dgnn_snapmodel_cuda *g, float *dX, float *dW, float *db, float *tmp, const dgnn_cuda_csr *At,
                         const float *X, const float *W, const float *dY, int64_t Di, int64_t Do, dgnn_err *err);
/* ---- snapmodel_ngru.c's state on the device (snapmodel_ngru_cuda.c), for tgcn_cuda.c and
 * gcrn_cuda.c: g->impl. init finds the tensors "<kind>.<part[k]>_<g>.W/.b" (snapm_ngru_name)
 * and allocates the (N, L) rows (label, the kind's name, in the messages); ensure grows
 * the window's buffers to T snapshots; free takes a partial state. ---- */
typedef struct {
    int64_t oW[2][3], ob[2][3]; /* slab offsets, [pair][gate] */
    int64_t Tcap, extra;
    const char *label;
    float *Hs, *Z, *R, *Ht, *HR; /* (Tcap, N, L) */
    float *X;                    /* (Tcap, extra, N, L); NULL when extra = 0 */
    float *zero;                 /* (N, L) H_0 */
    float *tmp, *aux, *dZp, *dRp, *dHtp, *dHR, *dHa, *dHb; /* (N, L) */
} snapc_ngru;
int snapc_ngru_init(dgnn_snapmodel_cuda *g, const char *kind, const char *const part[2], int64_t extra,
                    const char *label, dgnn_err *err);
int snapc_ngru_ensure(dgnn_snapmodel_cuda *g, int64_t T, dgnn_err *err);
void snapc_ngru_free(dgnn_snapmodel_cuda *g);

/* snapshot s's A_hat transpose for a backward (A_hat itself when symmetric); the sparse
 * ops take the matrix as non-const (its cuSPARSE workspace) */
static inline dgnn_cuda_csr *snapc_At(const snapc_snap *s) { return (dgnn_cuda_csr *)(s->At.rows ? &s->At : &s->A); }

#endif
#endif
