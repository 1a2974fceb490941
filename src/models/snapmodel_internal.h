/* snapmodel_internal.h: what the snapshot models share (private to src/models): the model
 * struct, the table of kind-specific operations each model file provides, and the helpers
 * more than one model uses.
 *
 * Files and the way calls go (each only downwards in this list, so no two files call each
 * other both ways):
 *   snapmodel.c         the registry of kinds, the slab, the input checks, the dispatch
 *   evolvegcn.c tgcn.c gcrn.c wdgcn.c static_gcn.c   one kind each, behind a snapm_ops
 *                       (static_gcn.c's window union graph is the GPU's too: static_gcn_cuda.c)
 *   snapmodel_edge.c    the pair classifier (called by snapmodel.c and the trainers)
 *   snapmodel_gcn.c     the GCN layers on the node input or on hidden states, column sums,
 *                       Glorot init (called by the kinds)
 *   snapmodel_ngru.c    the gates' tensors and window buffers of tgcn.c and gcrn.c
 * Each model file declares and initialises its parameters, keeps its own window state
 * behind m->impl, and runs its window forward and backward. */
#ifndef DGNN_SNAPMODEL_INTERNAL_H
#define DGNN_SNAPMODEL_INTERNAL_H

#include "dgnn/snapmodel.h"

typedef struct snapm_ops snapm_ops;

/* the pair classifier's parameters (named pointers into the value or the gradient slab) */
typedef struct {
    float *W1; /* (C, 2L) torch layout, over [h_u; h_v] */
    float *b1; /* (C) */
    float *W2; /* (K, C) */
    float *b2; /* (K) */
} snapm_cls_params;

struct dgnn_snapmodel {
    dgnn_snapmodel_cfg cfg;
    dgnn_params p;
    const snapm_ops *ops;
    const char *name;        /* the kind's canonical name (dgnn_snapmodel_name), for messages */
    void *impl;              /* the kind's own state (parameter indices, window buffers) */
    int64_t N, V, L, Cc, K;
    /* the window of the last forward (set by snapmodel.c before the kind's forward runs) */
    int64_t T;
    const dgnn_snap_input *win;
    int training;
    double flops;
    /* the pair classifier */
    int icW1, icb1, icW2, icb2; /* the declared tensors' indices, to point cls and dcls */
    snapm_cls_params cls, dcls; /* values, gradients (snapm_edge_init) */
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
extern const snapm_ops snapm_gcn_ops;   /* static_gcn.c: the static baseline "gcn" */

/* Checked allocation (base.h): counts multiplied with MUL, which saturates. */
#define MUL dgnn_size_mul
/* dgnn_alloc_done(a, err, ...) naming the model's buffers: of its N x hidden
 * activations, over a window of T snapshots when T > 0. */
static inline int snapm_alloc_done(const dgnn_snapmodel *m, const dgnn_alloc_set *a, int64_t T, dgnn_err *err) {
    char win[64] = "";
    if (T > 0) snprintf(win, sizeof win, " over a window of %lld snapshots", (long long)T);
    return dgnn_alloc_done(a, err, "the %s model's activations (%lld nodes x hidden %lld, input width %lld)%s; lower "
                           "--hidden%s", m->name, (long long)m->N, (long long)m->L, (long long)m->V, win,
                           T > 0 ? " or --window" : "");
}

/* Named parameter pointers (DESIGN.md convention 2): each kind keeps a struct of named
 * float * into the value slab and one of the same shape into the gradient slab, filled
 * once after dgnn_params_alloc (at the start of init_values) by one function that takes
 * dgnn_params_get or dgnn_params_grad: the two slabs share one layout. */
typedef float *(*snapm_slab_fn)(const dgnn_params *p, int idx);

/* ---- the pair classifier (snapmodel_edge.c), for dgnn_snapmodel_init / _free ----
 * declare: its tensors, after the kind's; init: its values (draws from rng after the
 * kind's) and its node map; free: its buffers (safe on a partly built model). */
void snapm_edge_declare(dgnn_snapmodel *m);
void snapm_edge_init(dgnn_snapmodel *m, dgnn_rng *rng);
void snapm_edge_free(dgnn_snapmodel *m);

/* ---- shared layers (snapmodel_gcn.c) ---------------------------------------------------
 * Products over nodes are nn.h's dgnn_gemm_fixed: the bits do not depend on the thread
 * count. */

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

/* ---- the union graph of a window (static_gcn.c, for the "gcn" kind on either device) ----
 * Au = D^-1/2 (B + I) D^-1/2 over N nodes, B_uv = 1 where (u, v), u != v, is a non-zero
 * entry of any win[t].A, t < T (their At are not read); AuT = Au's transpose, or Au itself
 * (not owned) when sym (the caller's: every snapshot of the window is symmetric). Columns
 * ascend within each row. The arrays grow to the largest union built and are reused. */
typedef struct {
    int64_t N;
    int64_t *rowptr;  /* (N+1) */
    int32_t *col;     /* (ccap) */
    float *val;       /* (ccap) */
    int64_t ccap;
    int32_t *mark;    /* (N) last row that listed a column */
    dgnn_csr Au, AuT; /* AuT owns its arrays when !sym */
    int sym;
} snapm_union;
/* u empty for N nodes, its fixed arrays grown in the caller's set (freed by _free either way) */
void snapm_union_init(snapm_union *u, int64_t N, dgnn_alloc_set *as);
/* DGNN_ENOMEM (the entries, or AuT's copy) */
int snapm_union_build(snapm_union *u, const dgnn_snap_input *win, int64_t T, int sym, dgnn_err *err);
void snapm_union_free(snapm_union *u);

/* ---- the kinds with a GRU over node states: T-GCN and GCRN-GRU (snapmodel_ngru.c) ----
 * Each gate g = z, r, h reads two weight-bias pairs k = 0, 1, named "<kind>.<part[k]>_<g>.W"
 * (shape[k]) and ".b" (L), declared gate by gate, pair by pair, W before b (T-GCN: conv
 * (V, L), lin (L, 2L); GCRN-GRU: conv_x (V, L), conv_h (L, L)). The GPU kinds find the
 * tensors by the same names. */
typedef struct {
    int W[2][3], b[2][3]; /* the declared tensors' indices, [pair][gate] */
} snapm_ngru_idx;
void snapm_ngru_declare(dgnn_snapmodel *m, snapm_ngru_idx *ix, const char *kind, const char *const part[2],
                        const int64_t shape[2][2]);
/* buf = the name of pair `part`'s tensor `what` ("W" or "b") of gate 0, 1, 2 (z, r, h) */
void snapm_ngru_name(char *buf, size_t cap, const char *kind, const char *part, int gate, const char *what);

/* Their buffers. The window's, grown to the longest window: per snapshot H_t, the gates,
 * the candidate, H_{t-1} * R, and `extra` (N, L) slices of the kind's own (T-GCN's three
 * gate GCNs; none for GCRN-GRU). The (N, L) rows: H_0 = 0, the layers' scratch, aux (the
 * kind's own: GCRN-GRU's state GCN, T-GCN's dG), the gates' gradients and the two
 * dL/dH_t of the backward walk. */
typedef struct {
    int64_t Tcap, extra;
    float *Hs, *Z, *R, *Ht, *HR; /* (Tcap, N, L) */
    float *X;                    /* (Tcap, extra, N, L); NULL when extra = 0 */
    float *zero;                 /* (N, L) */
    float *tmp, *aux, *dZp, *dRp, *dHtp, *dHR, *dHa, *dHb; /* (N, L) */
} snapm_ngru_bufs;
/* the (N, L) rows (b zeroed by the caller); DGNN_ENOMEM: snapm_alloc_done */
int snapm_ngru_alloc(dgnn_snapmodel *m, snapm_ngru_bufs *b, int64_t extra, dgnn_err *err);
/* the window's buffers for T snapshots */
int snapm_ngru_ensure(dgnn_snapmodel *m, snapm_ngru_bufs *b, int64_t T, dgnn_err *err);
/* safe on partly allocated buffers */
void snapm_ngru_free(snapm_ngru_bufs *b);

/* Glorot / Xavier uniform of a (fan_in, fan_out) weight: U(+-sqrt(6 / (fan_in + fan_out))),
 * n values drawn in order (torch_geometric's glorot of GCNConv / ChebConv weights). */
void snapm_init_glorot(float *W, int64_t n, int64_t fan_in, int64_t fan_out, dgnn_rng *rng);

#endif
