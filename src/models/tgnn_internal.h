/* tgnn_internal.h: what the event models' files share (private to src/models): the model
 * struct, its named parameter pointers, the table of kind-specific operations each model
 * file provides, and the helpers more than one kind calls.
 *
 * Files, from the top down (each calls only files below it, so no two call each other):
 *   tgnn.c            the public API: checks, the slab, dispatch through the kind's table
 *   tgn.c jodie.c dyrep.c apan.c   one kind each (its parameters, forward, backward, commit)
 *   tgnn_attention.c  the temporal-attention embedding TGN and DyRep share
 *   tgnn_memory.c     the mail + GRU/RNN memory TGN, JODIE and DyRep share
 *   tgnn_presample.c  sampling a batch ahead (public, tgnn.h)
 *   tgnn_batch.c      one batch's roots, neighbour sample and node map (every kind)
 *   tgnn_params.c     declaring tensors with the named pointers they fill */
#ifndef DGNN_TGNN_INTERNAL_H
#define DGNN_TGNN_INTERNAL_H

#include "dgnn/tgnn.h"

/* The workspace grows through a checked set (base.h): GROW(&set, ptr, count), counts
 * multiplied with MUL, which saturates instead of overflowing. */
#define TGNN_GROW(set, ptr, n) DGNN_GROW(set, ptr, n)
#define MUL dgnn_size_mul

/* Named pointers into the slab (DESIGN.md convention 2, llm.c's ParameterTensors): m->w
 * into the values, m->dw (the same names) into the gradients. A kind declares each
 * tensor with its field (tgnn_param); tgnn_point_params fills both structs once, after
 * dgnn_params_alloc. A kind's absent tensors stay NULL. Shapes are torch's (out, in). */
typedef struct {
    float *te_w, *te_b;               /* (T), (T) every kind: the time encoding */
    /* TGN, JODIE, DyRep: the memory updater, G = gates M (tgnn_memory.c) */
    float *W_ih, *W_hh, *b_ih, *b_hh; /* (G, D), (G, M), (G), (G) */
    float *attn;                      /* TGN, DyRep: the attention's block (dgnn_tattn_params_layout) */
    float *jw, *jb;                   /* JODIE: (M), (M) the time projection */
    /* APAN: the transformer memory updater and the embedding norm; Dx = 2M + de + T */
    float *wq, *bq, *wk, *bk, *wv, *bv;     /* (M, M), (M), (M, Dx), (M), (M, Dx), (M) */
    float *ln1_g, *ln1_b, *mlp_w, *mlp_b;   /* (M), (M), (M, M), (M) */
    float *ln2_g, *ln2_b;                   /* (M), (M) */
    float *pred;                      /* every kind: the link predictor's block (dgnn_edgepred_layout) */
} tgnn_tensors;

#define TGNN_MAX_TENSORS 16

/* APAN's workspace. Rows are the U distinct (node, root time) pairs of the batch; each
 * has S mail slots. */
typedef struct {
    int64_t S;      /* mail slots */
    int64_t Dm;     /* mail width 2M + de */
    int64_t Dx;     /* key/value input width Dm + T: [mail; time_enc(t - t_mail)] */
    int32_t *next_row;          /* (U) next row of the same node (another root time), -1: none */
    int64_t *aoff;              /* (U+1) row r attends over slots r*S .. r*S+S-1 */
    float *x;                   /* (U S, Dx) */
    float *dt;                  /* (U S) row time - mail time */
    float *q;                   /* (U, M) */
    float *k, *v;               /* (U S, M) */
    float *logit, *att, *att_mask; /* (U S, heads) */
    float *a;                   /* (U, M) attention output + memory */
    float *ln1_mean, *ln1_rstd; /* (U) */
    float *n1;                  /* (U, M) LayerNorm(a) */
    float *z;                   /* (U, M) mlp output */
    float *drop_mask;           /* (U, M) */
    float *hnew;                /* (U, M) the updated memory */
    float *ln2_mean, *ln2_rstd; /* (U) */
    float *emb;                 /* (U, M) LayerNorm(hnew) */
    float *emb_root;            /* (R, M) */
    int has_att_mask, has_drop_mask;
    /* backward scratch */
    float *d_root;              /* (R, M) */
    float *d1, *d2, *dq;        /* (U, M) */
    float *dk, *dv;             /* (U S, M), grown by backward (evaluation batches, with many
                                 * negatives, never need them) */
    int64_t cap_dkv;            /* rows of dk, dv */
    float *dte;                 /* (U S, T); also the forward's time encodings before they go into x */
    /* commit: 2B own mails + P <= 2B k neighbour deliveries */
    int64_t cap_mail;           /* rows of mails */
    float *mails;               /* (2B + P, Dm) */
    int32_t *mnodes;            /* (2B + P) */
    int32_t *msrc;              /* (2B + P) the true root whose mail each delivery is */
    double *mts;                /* (2B + P) */
} tgnn_apan;

typedef struct tgnn_ops tgnn_ops;

struct dgnn_tgnn {
    dgnn_tgnn_cfg cfg;
    const tgnn_ops *ops;
    int64_t N, de, M, T, D, emb;
    int64_t mail_slots; /* mailbox slots per node: 1, APAN's cfg.mail_slots */
    dgnn_params p;
    tgnn_tensors w, dw; /* named pointers into p.value and p.grad */
    /* the declarations waiting for the slab (tgnn_param, tgnn_point_params) */
    struct { int idx; float **val, **grad; } decl[TGNN_MAX_TENSORS];
    int ndecl;
    dgnn_tattn_cfg acfg;
    dgnn_tattn_params ap, dap;
    dgnn_edgepred_params pp, dpp;
    int gates; /* 3: GRU, 1: RNN */
    tgnn_apan apan;

    /* node map: rowof[v] is valid when stamp[v] == cur_stamp */
    int32_t *stamp, *rowof;
    int32_t cur_stamp;

    /* workspace capacities and arrays (R roots, P pairs, U nodes) */
    int64_t capR, capP, capU;
    int32_t *roots;     /* (R) */
    double *root_t;     /* (R) */
    int32_t *s_nbr;     /* (R, k) sampler output */
    int64_t *s_eid;     /* (R, k) */
    double *s_ts;       /* (R, k) */
    int32_t *s_cnt;     /* (R) */
    int64_t *off;       /* (R+1) */
    int32_t *row_root;  /* (R) U-row of each root */
    int32_t *nbr_row;   /* (P) U-row of each pair's neighbour */
    int64_t *pair_eid;  /* (P) */
    float *pair_dt;     /* (P) root time - neighbour event time */
    float *pair_e;      /* (P, de) edge features of each pair */
    int32_t *unodes;    /* (U) node id of each row */
    int32_t *mrow;      /* (U) rows with a pending mail: first Um entries */
    float *h;           /* (U, M) memory after the in-forward update (APAN: before) */
    double *h_t;        /* (U) its time (APAN: the row's root time) */
    float *xm, *hm;     /* (U, D), (U, M) updater inputs of the Um rows */
    float *hout;        /* (U, M) updater output */
    float *upd_saved;   /* (U, 6M) GRU gates */
    float *h_root;      /* (R, M) */
    float *te;          /* (P, T) */
    float *te0;         /* (T) */
    float *jdt;         /* (R) JODIE's normalised time difference */
    float *emb_out;     /* (R, emb) TGN/JODIE: embeddings; DyRep: attention embeddings of the 2B true roots */
    float *pred_saved;  /* edgepred saved */
    float *attn_slab;   /* tattn saved + scratch */
    int64_t attn_slab_n;
    dgnn_tattn_saved as;
    /* backward scratch */
    float *demb, *dh_root, *dh, *dte, *dte0, *dhm, *upd_scratch, *pred_scratch;
    /* commit: time differences (R >= 2B) and their encodings (R, T) */
    float *c_dt, *c_te;

    /* the last batch: Rs = roots with sampled neighbours (TGN: R; DyRep, APAN: 2B) */
    int64_t e0, B, nneg, R, Rs, P, U, Um;
    int64_t Ur;       /* distinct nodes among the first Rs roots: rows 0..Ur-1 of the distinct-node list */
    int backward_ran;
    dgnn_grad_ready_fn grad_hook; /* dgnn_tgnn_set_grad_hook */
    void *grad_hook_ctx;
    double flops;        /* products of the last forward (+ backward) */
    double sample_seconds; /* neighbour sampling time of the last forward */
    const dgnn_tgnn_sample *pre; /* dgnn_tgnn_use_sample: the next forward's neighbours */
    /* dgnn_tgnn_embed: its (node, time) pairs are the roots (tgnn_set_roots), there is no
     * predictor (logits NULL), and no commit or backward may follow (no_batch) */
    const int32_t *emb_nodes;
    const double *emb_t;
    int no_batch;
    int pre_used;                /* the last tgnn_sample copied them (no sampling time) */
    double flops_nograd; /* the part of flops that backward does not differentiate */
    double flops_wgrad;  /* the part whose backward forms only the weights' gradients (the
                          * updater: its inputs are stored memory and mails, constants) */
};

/* Which roots of a batch get sampled neighbours. */
typedef enum {
    TGNN_SAMPLE_NONE = 0, /* JODIE */
    TGNN_SAMPLE_TRUE,     /* the 2B true src/dst roots (DyRep: their mails' attention; APAN: mail delivery) */
    TGNN_SAMPLE_ALL,      /* every root (TGN: its attention) */
} tgnn_sample_of;

/* One kind. tgnn.c calls, in dgnn_tgnn_cfg_default: defaults; in dgnn_tgnn_cfg_check, after
 * the shared checks: check; in dgnn_tgnn_init: setup (after m's sizes are set), declare
 * (between the time encoding's and the link predictor's tensors), then, once the slab is
 * allocated and pointed, init_values (after the time encoding's values, before the link
 * predictor's draws). forward runs after tgnn.c has checked the batch, set e0, B, nneg, R,
 * Rs and zeroed the flops, and called ensure when R outgrew capR (ensure sets capR).
 * Backward in two steps, around the distributed trainer's gradient hook: backward (the
 * link predictor and the embedding: the slab from grad_split on is final), then
 * backward_updater (NULL: nothing is left, APAN, and the hook is not called). */
struct tgnn_ops {
    const char *name;      /* for messages: "tgn", ... */
    tgnn_sample_of sample; /* roots with sampled neighbours */
    int can_presample;     /* the sample feeds only the forward (tgnn.h, "Sampling ahead") */
    int needs_neighbors;   /* --neighbors must be >= 1 */
    int emb_is_memory;     /* the embedding is the (projected or normalised) memory: emb_dim == mem_dim */
    int mail_time;         /* mails carry time_enc(t - t_mem) (mail width 2M + de + T, else 2M + de) */
    int pred_dst_bias;     /* the link predictor has a destination bias (TGL's EdgePredictor) */
    void (*defaults)(dgnn_tgnn_cfg *c);                       /* NULL: the shared defaults */
    int (*check)(const dgnn_tgnn_cfg *cfg, dgnn_err *err);    /* NULL: nothing more */
    int (*setup)(dgnn_tgnn *m, dgnn_err *err);                /* NULL: nothing; DGNN_EINVAL */
    void (*declare)(dgnn_tgnn *m);
    void (*init_values)(dgnn_tgnn *m, dgnn_rng *rng);
    int (*ensure)(dgnn_tgnn *m, int64_t R, dgnn_err *err);    /* DGNN_ENOMEM */
    void (*free)(dgnn_tgnn *m);                               /* NULL: nothing of its own */
    int (*forward)(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                   const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err);
    void (*backward)(dgnn_tgnn *m, const float *dlogits);
    void (*backward_updater)(dgnn_tgnn *m);
    int64_t (*grad_split)(const dgnn_tgnn *m); /* dgnn_tgnn_grad_split */
    void (*commit)(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev);
    /* the last forward's root embeddings (R, emb): emb_out, h_root or APAN's emb_root */
    const float *(*root_emb)(const dgnn_tgnn *m);
};

extern const tgnn_ops tgnn_tgn_ops;   /* tgn.c */
extern const tgnn_ops tgnn_jodie_ops; /* jodie.c */
extern const tgnn_ops tgnn_dyrep_ops; /* dyrep.c */
extern const tgnn_ops tgnn_apan_ops;  /* apan.c */

/* ---- tgnn_params.c ---- */
/* Declares the matrix (d0, d1) (tgnn_param) or the vector (d0) (tgnn_param1) called name
 * in m->p; *val and *grad (fields of m->w and m->dw) get its pointers in tgnn_point_params. */
void tgnn_param(dgnn_tgnn *m, float **val, float **grad, const char *name, int64_t d0, int64_t d1);
void tgnn_param1(dgnn_tgnn *m, float **val, float **grad, const char *name, int64_t d0);
/* After dgnn_params_alloc: fills every declared field. */
void tgnn_point_params(dgnn_tgnn *m);
/* Offset in the slab of a tensor, from its value pointer (m->w's field). */
static inline int64_t tgnn_offset(const dgnn_tgnn *m, const float *val) { return (int64_t)(val - m->p.value); }

/* ---- tgnn_batch.c ---- */
/* roots and root_t of the batch (m->e0, B, R set), or dgnn_tgnn_embed's R pairs
 * (m->emb_nodes set); DGNN_EINVAL for a node id outside [0, N). */
int tgnn_set_roots(dgnn_tgnn *m, const dgnn_events *ev, const int32_t *neg, dgnn_err *err);
/* The same for any batch: R = (2 + nneg) B roots of events [e0, e0 + B) and negatives neg
 * into roots, root_t (block 0 sources, 1 destinations, 2.. negatives). */
int tgnn_fill_roots(int32_t *roots, double *root_t, const dgnn_events *ev, int64_t e0, int64_t B, int64_t R,
                    const int32_t *neg, int64_t N, dgnn_err *err);
/* Adds to as (base.h's checked set) the arrays this file fills, for R roots with k
 * sampled neighbours each: roots, root_t, s_* (R k), s_cnt, off (R + 1), row_root. */
void tgnn_batch_grow(dgnn_tgnn *m, dgnn_alloc_set *as, int64_t R, int64_t k);
/* Roots with sampled neighbours for a batch of B events and R roots of m's kind. */
int64_t tgnn_sampled_roots(const dgnn_tgnn *m, int64_t B, int64_t R);
/* tgnn.c: dgnn_tgnn_forward's checks and set-up of a batch (e0, B, nneg, R, Rs, the
 * flops zeroed, the workspace grown), before the kind's forward. */
int tgnn_begin(dgnn_tgnn *m, const dgnn_state *st, const dgnn_events *ev, int64_t e0, int64_t B, int64_t nneg,
               dgnn_err *err);
/* Samples cfg.neighbors neighbours of roots [0, m->Rs) into s_* (or copies a presampled
 * batch, m->pre: DGNN_EINVAL when it is not this batch), and sets off (R+1) (roots from
 * Rs on get none) and P. */
int tgnn_sample(dgnn_tgnn *m, const dgnn_tcsr *g, dgnn_rng *rng, dgnn_err *err);
/* Starts a new batch's node map (every rowof entry becomes stale). */
void tgnn_new_stamp(dgnn_tgnn *m);

/* ---- tgnn_memory.c: TGN, JODIE, DyRep (one mail per node, a GRU or RNN updater) ---- */
/* Declares the updater, gates 3 (GRU) or 1 (RNN) / draws its values (torch's GRUCell). */
void tgnn_mem_declare(dgnn_tgnn *m, int gates);
void tgnn_mem_init_values(dgnn_tgnn *m, dgnn_rng *rng);
/* Sizes the workspace for R roots; attention: with the sampled neighbours and the
 * attention's saved slab (TGN, DyRep). DGNN_ENOMEM naming the sizes. */
int tgnn_mem_ensure(dgnn_tgnn *m, int64_t R, int attention, dgnn_err *err);
/* The bookkeeping of steps 1-3 (what a forward's dense work runs over, and all the GPU
 * step needs from the CPU, tgnn_cuda.c): roots, neighbours, the distinct nodes (unodes,
 * row_root, Ur), the pairs (off, nbr_row, pair_dt, pair_e) and the rows with a pending
 * mail (mrow, Um). Reads only the state's mail counts. */
int tgnn_mem_plan(dgnn_tgnn *m, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                  const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err);
/* Steps 1-3 of tgnn.h: tgnn_mem_plan, then the memory of every distinct node and the
 * in-forward update; then h_root, every root's updated memory. */
int tgnn_mem_forward(dgnn_tgnn *m, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                     const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err);
/* The link predictor on the embeddings emb (R, E) into logits, and its products;
 * nothing when logits is NULL (dgnn_tgnn_embed). */
void tgnn_mem_predict(dgnn_tgnn *m, float *logits, const float *emb);
/* Zeroes the memory gradients dh_root and dh, then demb (R, E), and runs the predictor's
 * backward into demb (DyRep: demb = dh_root, emb = h_root). */
void tgnn_mem_predict_backward(dgnn_tgnn *m, const float *dlogits, const float *emb, float *demb);
/* The dense products (flops, 2 m n k each) of the last batch's memory updater (its Um
 * rows) and link predictor, as the CPU runs them; and the usual rule for a forward and
 * its backward: a backward costs twice its forward's products, once for the parts whose
 * backward forms only the weights' gradients (wgrad), nothing for those not
 * differentiated (nograd). */
double tgnn_mem_flops_updater(const dgnn_tgnn *m);
double tgnn_mem_flops_predict(const dgnn_tgnn *m);
double tgnn_flops_with_backward(double fwd, double wgrad, double nograd);
/* From dh_root (R, M) through the in-forward update into the updater's gradients. */
void tgnn_mem_backward_updater(dgnn_tgnn *m);
/* Step 6: memories, then mails [mem_self, other, edge features, time_enc(t - t_mem_self)];
 * other: the other endpoint's stored memory (other_emb NULL) or its row of other_emb
 * (R, M) (DyRep's attention embeddings). */
void tgnn_mem_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev, const float *other_emb);
/* What tgnn_mem_commit does to the state's times, mail counts and ring positions, and
 * nothing to its memory or mail rows (the GPU's commit writes those on the device):
 * after the same batch's tgnn_mem_plan, the times and counts equal the full commit's. */
void tgnn_mem_commit_times(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev);

/* ---- apan.c: APAN's host half of the GPU step (tgnn_cuda.c) ---- */
/* The bookkeeping of apan_forward (what its dense work runs over, and all the GPU step
 * needs from the CPU): roots, the true roots' neighbours, the (node, time) rows (unodes,
 * h_t, row_root, U) and the grants of the backward's and the commit's buffers. Reads no
 * state (the slots' time differences are formed where the mail times are: on the device
 * from its own). After tgnn_begin. */
int tgnn_apan_plan(dgnn_tgnn *m, const dgnn_tcsr *g, const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng,
                   dgnn_err *err);
/* The commit's deliveries of the last planned batch: mnodes, mts (the event time) and msrc
 * (the true root whose mail it is) of each, the 2B true roots' own first, then root i's
 * sampled neighbours for i = 0..2B-1; returns their count (2B + P). */
int64_t tgnn_apan_mail_targets(dgnn_tgnn *m, const dgnn_events *ev);
/* The dense products of the last batch as apan.c counts them: forward, with backward. */
double tgnn_apan_flops(const dgnn_tgnn *m, int backward);
/* What apan_commit does to the state's times, mail counts and ring positions (the true
 * roots' memory times, the deliveries' mail times), and nothing to its rows. */
void tgnn_apan_commit_times(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev);

/* ---- tgnn_attention.c: TGN, DyRep ---- */
/* The attention's checks of a configuration (name: the kind, for messages). */
int tgnn_attn_check(const dgnn_tgnn_cfg *cfg, const char *name, dgnn_err *err);
/* m->acfg from m's configuration and edge width; DGNN_EINVAL from dgnn_tattn_check. */
int tgnn_attn_setup(dgnn_tgnn *m, dgnn_err *err);
void tgnn_attn_declare(dgnn_tgnn *m);
void tgnn_attn_init_values(dgnn_tgnn *m, dgnn_rng *rng);
/* Embeddings emb_out of roots [0, Rs) over their sampled neighbours' updated memories;
 * returns its products. */
double tgnn_attn_forward(dgnn_tgnn *m, dgnn_rng *rng);
/* The attention's products for the last batch's roots and pairs, as the CPU runs them. */
double tgnn_attn_flops(const dgnn_tgnn *m);
/* From demb (R, E) into the attention's and the time encoding's gradients, dh_root and dh. */
void tgnn_attn_backward(dgnn_tgnn *m);

#endif
