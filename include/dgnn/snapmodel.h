/* snapmodel.h: snapshot-based dynamic GNNs over a window of graph snapshots, and the
 * edge classifier that scores node pairs from their embeddings. One API, six kinds
 * (dgnn_snapmodel_kind; src/models/snapmodel.c holds the registry and dispatches,
 * snapmodel_gcn.c the GCN layers they share, snapmodel_edge.c the classifier):
 *   evolvegcn-o, evolvegcn-h  src/models/evolvegcn.c, exactly as the reference code
 *                             (IBM/EvolveGCN egcn_o.py, egcn_h.py);
 *   tgcn                      src/models/tgcn.c, PyG-Temporal's TGCN cell;
 *   gcrn-gru                  src/models/gcrn.c, PyG-Temporal's GConvGRU with GCN filters;
 *   wdgcn                     src/models/wdgcn.c, EvolveGCN's GCN-LSTM (models.py Sp_GCN_LSTM_A);
 *   gcn                       src/models/static_gcn.c, a static 2-layer GCN on the window's
 *                             union graph (the baseline).
 * All of them end in the same pair classifier (models.py Classifier, below) and return
 * H (N, L). docs/snapshot.md gives each one's equations, sizes and initialisation.
 *
 * EvolveGCN (two GRCU layers, layer 2 as wide as layer 1):
 *   for t = 1..T (the window's snapshots, oldest first), for layer l = 1, 2:
 *     -O: Q_l,t = mGRU_l(x = Q_l,t-1, q = Q_l,t-1)              (the weights evolve alone)
 *     -H: Q_l,t = mGRU_l(x = TopK_l(H_l-1,t, mask_t), q = Q_l,t-1)
 *         H_l,t = RReLU(A_hat_t H_l-1,t Q_l,t)
 *   with H_0,t the node input of snapshot t (one-hot degree or dense features), Q_l,0 the
 *   learned initial weights (GCN_init_weights), mGRU and TopK as nn.h. The output
 *   is H_2,T (N, L): the embeddings after the last snapshot.
 * Every window starts from the learned Q_l,0 (the reference's GRCU.forward does), so
 * windows are independent of each other.
 *
 * What is computed: only what reaches the output. In -O the weights evolve without
 * looking at the graph, so the GCNs of snapshots 1..T-1 feed nothing (the reference
 * computes and discards them): both layers propagate over snapshot T only. In -H layer 1
 * runs on every snapshot (its embeddings feed layer 2's TopK) and layer 2 propagates over
 * snapshot T only. The result is the same function; only RReLU's training-time random
 * slopes are drawn for fewer elements.
 *
 * The others, per snapshot t of the window (A = A_hat_t, X = X_t, oldest first):
 *   tgcn:     G_g = A X Wc_g + bc_g (g = z, r, h); Z = sigmoid([G_z, H] Wl_z^T + bl_z);
 *             R = sigmoid([G_r, H] Wl_r^T + bl_r); Ht = tanh([G_h, H R] Wl_h^T + bl_h);
 *             H = Z H + (1 - Z) Ht
 *   gcrn-gru: Z = sigmoid(A X Wx_z + bx_z + A H Wh_z + bh_z), R likewise,
 *             Ht = tanh(A X Wx_h + bx_h + A (H R) Wh_h + bh_h), H = Z H + (1 - Z) Ht
 *   wdgcn:    E_t = RReLU(A RReLU(A X W1) W2); (h, c) = LSTM(E_t, (h, c)); H = h
 *             (E_t depends on snapshot t only: a group of windows shares it, below)
 *   gcn:      H = RReLU(A_u RReLU(A_u X_T W1) W2), A_u the normalised binary union of the
 *             window's snapshots, X_T the last snapshot's input
 * Recurrent states start at zero at every window (the references' None state), so
 * windows are independent of each other as in EvolveGCN.
 *
 * Edge classifier (models.py Classifier on [h_u, h_v]):
 *   logits(u, v) = W2 relu(W1 [h_u; h_v] + b1) + b2,  W1 (C, 2L), W2 (K, C)
 * W1 [h_u; h_v] = W1a h_u + W1b h_v with W1 = [W1a | W1b], so the first layer is applied
 * once per node and only added per pair: a pair costs O(C) instead of O(2LC). Scoring all
 * N^2 pairs of a snapshot (the reference's validation and test) is then N^2 C
 * adds/maxes/FMAs, without ever forming the pairs' inputs.
 *
 * Conventions (DESIGN.md): parameters in one slab (dgnn_snapmodel_params) in torch's
 * layouts, except GCN weights, which are (in, out) as EvolveGCN's (X W; a one-hot input
 * gathers their rows); backward ACCUMULATES into the gradient slab; a forward saves what its backward
 * needs inside the model (one forward, then at most one backward, per window and per
 * pair batch); workspaces grow to the largest input seen and are reused. Randomness
 * (RReLU's slopes) comes from the rng passed to the forward (NULL = evaluation).
 * Thread count: the models' own loops give the same bits for any thread count, and so do
 * their products that sum over nodes (fixed blocks of single-threaded sgemm calls); the
 * tgcn, gcrn-gru, wdgcn and gcn kinds run every product over nodes as fixed blocks, so
 * their H and gradients are bit-identical for any thread count (tests/test_snapmodels.c).
 * EvolveGCN's matrix GRU products (nn.h) and its GCN layers' X W products go to
 * OpenBLAS directly, whose rounding depends on its thread count once a product is large
 * enough to be split (measured: R = 167, C = 100 differs between 1 and 2 threads; R <=
 * 100 did not). */
#ifndef DGNN_SNAPMODEL_H
#define DGNN_SNAPMODEL_H

#include "dgnn/nn.h"
#include "dgnn/spmm.h"
#include "dgnn/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DGNN_SNAPMODEL_EGCN_O = 0,   /* EvolveGCN-O */
    DGNN_SNAPMODEL_EGCN_H = 1,   /* EvolveGCN-H */
    DGNN_SNAPMODEL_TGCN = 2,     /* T-GCN (PyG-Temporal's TGCN cell) */
    DGNN_SNAPMODEL_GCRN_GRU = 3, /* GCRN-GRU (GConvGRU with GCN gates) */
    DGNN_SNAPMODEL_WDGCN = 4,    /* WD-GCN (shared 2-layer GCN, then an LSTM per node) */
    DGNN_SNAPMODEL_GCN = 5       /* static 2-layer GCN on the window's union graph (baseline) */
} dgnn_snapmodel_kind;

typedef struct {
    dgnn_snapmodel_kind kind;
    int64_t num_nodes;   /* N: the snapshots' shared node count */
    int64_t in_dim;      /* V: width of the node input (one-hot: the number of categories) */
    int onehot;          /* 1: the node input is one category index per node (EvolveGCN's
                            one-hot degree); 0: dense features (N, in_dim) */
    int64_t hidden;      /* L: width of both GRCU layers (layer_1_feats, layer 2 = layer 1) */
    int64_t cls_hidden;  /* C: the classifier's hidden width (cls_feats) */
    int64_t num_classes; /* K: classifier outputs (2 for link prediction) */
    float rrelu_lower, rrelu_upper; /* torch.nn.RReLU's defaults 1/8, 1/3 */
    uint64_t seed;       /* initialisation */
    int64_t group_bytes; /* wdgcn groups: memory for the shared snapshots' outputs before the
                            group is flushed and restarted (0: DGNN_SNAPMODEL_GROUP_BYTES) */
} dgnn_snapmodel_cfg;

#define DGNN_SNAPMODEL_GROUP_BYTES ((int64_t)1 << 30)

/* EvolveGCN's bitcoin-alpha link-prediction sizes (-O: L 100, C 400; -H: L 50, C 100;
 * every other kind takes -O's: L 100, C 400), K = 2, one-hot input, torch's RReLU bounds
 * (used by -O, -H, wdgcn, gcn), seed 1. num_nodes and in_dim are left 0: set them. */
dgnn_snapmodel_cfg dgnn_snapmodel_cfg_default(dgnn_snapmodel_kind kind);

/* One snapshot of a window, as the model reads it. */
typedef struct {
    dgnn_csr A;            /* A_hat (N x N) */
    const dgnn_csr *At;    /* A_hat's transpose, or NULL when A_hat is symmetric (EvolveGCN) */
    const int32_t *feat_idx; /* (N) category of each node in [0, in_dim), or -1 (zero input)
                                when onehot; else unused */
    const float *feat;     /* (N, in_dim) when dense; else unused */
    const uint8_t *mask;   /* (N) 1 = node with an edge in the snapshot (TopK's candidates,
                              -H only; dgnn_topk_mask_of_snapshot), or NULL = every node */
} dgnn_snap_input;

typedef struct dgnn_snapmodel dgnn_snapmodel;

/* Declares and initialises the parameters (reference initialisation, from cfg->seed).
 * Errors: DGNN_EINVAL naming a bad size or an unknown kind; DGNN_ENOMEM. */
int dgnn_snapmodel_init(dgnn_snapmodel **out, const dgnn_snapmodel_cfg *cfg, dgnn_err *err);
void dgnn_snapmodel_free(dgnn_snapmodel *m);
dgnn_params *dgnn_snapmodel_params(dgnn_snapmodel *m);
const dgnn_snapmodel_cfg *dgnn_snapmodel_config(const dgnn_snapmodel *m);
/* The canonical short name: "evolvegcn-o", "evolvegcn-h", "tgcn", "gcrn-gru", "wdgcn",
 * "gcn" ("unknown" for a value outside the enum). */
const char *dgnn_snapmodel_name(dgnn_snapmodel_kind kind);
/* *out = the kind called name: a canonical name above, or "egcn-o" / "egcn-h". Returns 0,
 * or DGNN_EINVAL (unknown name; *out unchanged; no message: the caller names the flag). */
int dgnn_snapmodel_kind_parse(const char *name, dgnn_snapmodel_kind *out);

/* ---- the window ---- */

/* H (N, L) = the node embeddings after the last of the T snapshots win[0..T-1] (oldest
 * first). rng: training (RReLU draws its slopes from it, one u64 per RReLU call); NULL:
 * evaluation (fixed slope). Saves what dgnn_snapmodel_backward needs (win must stay
 * valid until then). Errors: DGNN_EINVAL (T < 1, a snapshot of another size, a missing
 * input, a one-hot index out of range); DGNN_ENOMEM (gcn: the union graph's transpose). */
int dgnn_snapmodel_forward(dgnn_snapmodel *m, float *H, const dgnn_snap_input *win, int64_t T, dgnn_rng *rng,
                           dgnn_err *err);
/* Accumulates the parameter gradients of the last forward from dH (N, L). */
void dgnn_snapmodel_backward(dgnn_snapmodel *m, const float *dH);

/* ---- groups of windows (DyGNeX's groups, docs/dygnex.md) ----
 * Training windows run between group_begin and group_end, each as forward then backward,
 * with the parameters unchanged (one optimizer step per group). A kind whose per-snapshot
 * encoder does not depend on the window's start (wdgcn: E_t = RReLU(A RReLU(A X W1) W2))
 * then computes each snapshot's encoder once for the group, at its first window (RReLU
 * slopes from that window's rng), and runs its backward once, at group_end, on the sum
 * of the windows' gradients: the gradients equal the windows' own summed (up to float
 * rounding), for less work. A snapshot is recognised by its input's address: windows
 * must slice one array of the sequence's inputs, which stays valid until group_end.
 * Memory: 5 (N, L) arrays per distinct snapshot; past cfg.group_bytes the group runs its
 * deferred backward and starts afresh before the next window (sharing stops there).
 * Other kinds: no-ops (dgnn_snapmodel_shares_snapshots says which). Gradients are
 * complete only after group_end. */
int dgnn_snapmodel_shares_snapshots(const dgnn_snapmodel *m);
void dgnn_snapmodel_group_begin(dgnn_snapmodel *m);
void dgnn_snapmodel_group_end(dgnn_snapmodel *m);

/* ---- the edge classifier ---- */

/* logits (M, K) of the pairs (src[i], dst[i]) from embeddings H (N, L). Applies the first
 * layer once per distinct source and destination node; saves for the backward.
 * DGNN_ENOMEM (err says how much) when its buffers for M pairs cannot be had. */
int dgnn_snapmodel_edge_forward(dgnn_snapmodel *m, float *logits, const float *H, const int32_t *src,
                                const int32_t *dst, int64_t M, dgnn_err *err);
/* dH (N, L) += and the classifier's parameter gradients += from dlogits (M, K) of the
 * last dgnn_snapmodel_edge_forward (same H and pairs). Deterministic: the per-node sums
 * run over each node's pairs in pair order. */
void dgnn_snapmodel_edge_backward(dgnn_snapmodel *m, float *dH, const float *dlogits);
/* prob (rows, N), row-major: softmax(logits(u, v))[1] for u = u0 .. u0 + rows - 1 and every
 * v = 0 .. N-1, i.e. the probability of class 1 ("edge") of all pairs, as the reference's
 * validation and test score them (K must be 2). Allocates its O((N + rows) C) temporaries
 * (DGNN_ENOMEM when it cannot); no saving, no gradient. */
int dgnn_snapmodel_edge_prob_rows(dgnn_snapmodel *m, float *prob, const float *H, int64_t u0, int64_t rows,
                                  dgnn_err *err);
/* The plain reference (tests): logits (M, K) of each pair from its concatenated input
 * [h_u; h_v] through both layers, double accumulation, no splitting. */
void dgnn_snapmodel_edge_forward_ref(const dgnn_snapmodel *m, float *logits, const float *H, const int32_t *src,
                                     const int32_t *dst, int64_t M);

/* Floating-point operations of the dense products of the last forward (+ backward when
 * it ran) of the window part, for throughput reports. */
double dgnn_snapmodel_last_flops(const dgnn_snapmodel *m);

#ifdef __cplusplus
}
#endif
#endif
