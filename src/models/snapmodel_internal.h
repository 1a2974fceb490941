/* snapmodel_internal.h: what the snapshot models share (private to src/models): the model
 * struct, the table of kind-specific operations each model file provides, and the helpers
 * more than one model uses (GCN layers on the node input or on hidden states with
 * thread-count-independent weight gradients, sigmoid, growable buffers).
 *
 * snapmodel.c owns the struct, the parameter slab, the input checks, the dispatch and the
 * edge classifier; each model file (evolvegcn.c, tgcn.c, gcrn.c, wdgcn.c, gcn.c) declares
 * and initialises its parameters, keeps its own window state behind m->impl, and runs
 * its window forward and backward. */
#ifndef DGNN_SNAPMODEL_INTERNAL_H
#define DGNN_SNAPMODEL_INTERNAL_H

#include "dgnn/snapmodel.h"

typedef struct snapm_ops snapm_ops;

struct dgnn_snapmodel {
    dgnn_snapmodel_cfg cfg;
    dgnn_params p;
    const snapm_ops *ops;
    void *impl;              /* the kind's own state (parameter indices, window buffers) */
    int64_t N, V, L, Cc, K;
    /* the window of the last forward (set by snapmodel.c before the kind's forward runs) */
    int64_t T;
    const dgnn_snap_input *win;
    int training;
    double flops;
    /* the pair classifier */
    int icW1, icb1, icW2, icb2;
    int64_t M, Mcap, Us, Ud, Ucap;
    int32_t *stamp;          /* (N) node -> row among the distinct nodes, -1 elsewhere */
    int32_t *us, *ud;        /* (Ucap) distinct source / destination nodes, in order of appearance */
    int32_t *ps, *pd;        /* (Mcap) each pair's row in us / ud */
    float *Hs, *Hd;          /* (Ucap, L) gathered embeddings */
    float *Ps, *Qd;          /* (Ucap, C) W1a h_u + b1, W1b h_v */
    float *dPs, *dQd;        /* (Ucap, C) */
    float *dw2c;             /* (K, C) the backward's dW2 before it is added */
    float *dHg;              /* (Ucap, L) */
};

/* One kind. Called in this order by dgnn_snapmodel_init: declare (the kind's tensors go
 * into m->p before the classifier's), then, after the slab is allocated, init_values
 * (draws from rng before the classifier does; allocates the fixed buffers). forward runs
 * after snapmodel.c has checked the window (sizes, inputs present, one-hot range) and set
 * m->T, m->win, m->training; backward after one forward. free releases m->impl. */
struct snapm_ops {
    void (*declare)(dgnn_snapmodel *m);
    int (*init_values)(dgnn_snapmodel *m, dgnn_rng *rng, dgnn_err *err); /* DGNN_ENOMEM: snapm_alloc_done */
    int (*forward)(dgnn_snapmodel *m, float *H, dgnn_rng *rng, dgnn_err *err);
    void (*backward)(dgnn_snapmodel *m, const float *dH);
    void (*free)(dgnn_snapmodel *m);
    /* NULL, or (kinds whose per-snapshot encoder does not depend on the window's start)
     * begin = 1: the next windows share their snapshots' encoder outputs; begin = 0: the
     * deferred encoder backward runs, sharing ends (dgnn_snapmodel_group_begin/end) */
    void (*group)(dgnn_snapmodel *m, int begin);
};

extern const snapm_ops snapm_egcn_ops;  /* evolvegcn.c: EvolveGCN-O and -H */
extern const snapm_ops snapm_tgcn_ops;  /* tgcn.c */
extern const snapm_ops snapm_gcrn_ops;  /* gcrn.c */
extern const snapm_ops snapm_wdgcn_ops; /* wdgcn.c */
extern const snapm_ops snapm_gcn_ops;   /* gcn.c: the static baseline */

/* Checked allocation (base.h): counts multiplied with MUL, which saturates. */
#define MUL dgnn_size_mul
/* dgnn_alloc_done(a, err, ...) naming the model's buffers: of its N x hidden
 * activations, over a window of T snapshots when T > 0. */
int snapm_alloc_done(const dgnn_snapmodel *m, const dgnn_alloc_set *a, int64_t T, dgnn_err *err);

/* Grows *p to hold n elements of size sz (contents dropped); *cap tracks the size. */
void snapm_grow(void **p, int64_t *cap, int64_t n, size_t sz);

/* dW (C, L; row stride ldw) += G^T X for G (U, C), X (U, L): a sum over U rows (nodes),
 * in fixed blocks of 64 output rows, each one single-threaded sgemm over all U, so the
 * bits do not depend on the thread count (nn.h's dgnn_gemm_fixed; gemm.c says why a
 * plain sgemm's do). */
void snapm_gemm_tn_fixed(float *dW, int64_t ldw, const float *G, const float *X, int64_t U, int64_t C, int64_t L);

/* C (M, Nc) = A (M, K) op(B) + beta C, op(B) = B (K, Nc) or, transB, B^T with B (Nc, K);
 * row strides lda, ldb, ldc. Rows in fixed blocks of 256, each one single-threaded
 * sgemm: the bits do not depend on the thread count (dgnn_gemm_fixed). */
void snapm_gemm_rows(int transB, int64_t M, int64_t Nc, int64_t K, const float *A, int64_t lda, const float *B,
                     int64_t ldb, float beta, float *C, int64_t ldc);

/* Column sums db (D) += sum over rows of dY (N, D), in row order (fixed). */
void snapm_colsum(float *db, const float *dY, int64_t N, int64_t D);

/* ---- GCN layers, weights in the "X W" layout (in, out), as EvolveGCN's GCN weights ----
 * The node input of a snapshot: G (N, D) = A_hat X W + b (b (D) or NULL), X the one-hot
 * categories (a row gather of W) or the dense features (N, V) of `in`, W (V, D). tmp
 * (N, D) is overwritten. */
void snapm_in_gcn_forward(const dgnn_snapmodel *m, float *G, float *tmp, const dgnn_snap_input *in, const float *W,
                          const float *b, int64_t D);
/* dW (V, D) +=, db (D) += (or NULL) from dG (N, D); tmp (N, D) overwritten. The input
 * has no gradient. */
void snapm_in_gcn_backward(const dgnn_snapmodel *m, float *dW, float *db, float *tmp, const dgnn_snap_input *in,
                           const float *dG, int64_t D);
/* A hidden input X (N, Di) with a gradient: Y (N, Do) = A X W + b, W (Di, Do), b (Do) or
 * NULL; tmp (N, Do) overwritten (X W). */
void snapm_h_gcn_forward(float *Y, float *tmp, const dgnn_csr *A, const float *X, const float *W, const float *b,
                         int64_t N, int64_t Di, int64_t Do);
/* dX (N, Di) += (or NULL), dW (Di, Do) +=, db (Do) += (or NULL) from dY (N, Do); At =
 * A's transpose (A itself when symmetric); tmp (N, Do) overwritten. */
void snapm_h_gcn_backward(float *dX, float *dW, float *db, float *tmp, const dgnn_csr *At, const float *X,
                          const float *W, const float *dY, int64_t N, int64_t Di, int64_t Do);

/* The transpose of snapshot t of the window, for backward (A itself when At is NULL). */
static inline const dgnn_csr *snapm_At(const dgnn_snap_input *in) { return in->At ? in->At : &in->A; }

/* Glorot / Xavier uniform of a (fan_in, fan_out) weight: U(+-sqrt(6 / (fan_in + fan_out))),
 * n values drawn in order (torch_geometric's glorot of GCNConv / ChebConv weights). */
void snapm_init_glorot(float *W, int64_t n, int64_t fan_in, int64_t fan_out, dgnn_rng *rng);

#endif
