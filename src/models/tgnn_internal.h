/* tgnn_internal.h: what tgnn.c (TGN, JODIE, DyRep: parameters, batch layout, the
 * shared steps) and apan.c (APAN's transformer memory updater and neighbour mail
 * delivery) share: the model struct and the helpers both use. Private to src/models. */
#ifndef DGNN_TGNN_INTERNAL_H
#define DGNN_TGNN_INTERNAL_H

#include "dgnn/tgnn.h"

/* The workspace grows through a checked set (base.h): GROW(&set, ptr, count), counts
 * multiplied with MUL, which saturates instead of overflowing. */
#define TGNN_GROW(set, ptr, n) DGNN_GROW(set, ptr, n)
#define MUL dgnn_size_mul

/* APAN's parameters (slab indices) and workspace. Rows are the U distinct (node, root
 * time) pairs of the batch; each has S mail slots. */
typedef struct {
    int64_t S;      /* mail slots */
    int64_t Dm;     /* mail width 2M + de */
    int64_t Dx;     /* key/value input width Dm + T: [mail; time_enc(t - t_mail)] */
    int i_wq, i_bq, i_wk, i_bk, i_wv, i_bv, i_ln1g, i_ln1b, i_wm, i_bm, i_ln2g, i_ln2b;
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
    double *mts;                /* (2B + P) */
} tgnn_apan;

struct dgnn_tgnn {
    dgnn_tgnn_cfg cfg;
    int64_t N, de, M, T, D, emb;
    dgnn_params p;
    int i_te_w, i_te_b, i_Wih, i_Whh, i_bih, i_bhh, i_attn, i_pred, i_jw, i_jb;
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
    int backward_ran;
    dgnn_grad_ready_fn grad_hook; /* dgnn_tgnn_set_grad_hook */
    void *grad_hook_ctx;
    double flops;        /* products of the last forward (+ backward) */
    double sample_seconds; /* neighbour sampling time of the last forward */
    const dgnn_tgnn_sample *pre; /* dgnn_tgnn_use_sample: the next forward's neighbours */
    int pre_used;                /* the last tgnn_sample copied them (no sampling time) */
    double flops_nograd; /* the part of flops that backward does not differentiate */
};

/* roots and root_t of the batch (m->e0, B, R set); DGNN_EINVAL for a node id outside [0, N). */
int tgnn_set_roots(dgnn_tgnn *m, const dgnn_events *ev, const int32_t *neg, dgnn_err *err);
/* The same for any batch: R = (2 + nneg) B roots of events [e0, e0 + B) and negatives neg
 * into roots, root_t (block 0 sources, 1 destinations, 2.. negatives). */
int tgnn_fill_roots(int32_t *roots, double *root_t, const dgnn_events *ev, int64_t e0, int64_t B, int64_t R,
                    const int32_t *neg, int64_t N, dgnn_err *err);
/* Roots with sampled neighbours for a batch of B events and R roots, by model kind. */
int64_t tgnn_sampled_roots(dgnn_tgnn_kind kind, int64_t B, int64_t R);
/* Copies a presampled batch (m->pre) into s_*; DGNN_EINVAL when it is not this batch. */
int tgnn_take_presample(dgnn_tgnn *m, dgnn_err *err);
/* Samples cfg.neighbors neighbours of roots [0, m->Rs) into s_*, and sets off (R+1)
 * (roots from Rs on get none) and P. */
int tgnn_sample(dgnn_tgnn *m, const dgnn_tcsr *g, dgnn_rng *rng, dgnn_err *err);
/* Starts a new batch's node map (every rowof entry becomes stale). */
void tgnn_new_stamp(dgnn_tgnn *m);

/* apan.c */
void tgnn_apan_declare(dgnn_tgnn *m);            /* declares APAN's parameters */
void tgnn_apan_init_values(dgnn_tgnn *m, dgnn_rng *rng);
int tgnn_apan_ensure(dgnn_tgnn *m, int64_t R, dgnn_err *err); /* sizes the workspace for R roots */
void tgnn_apan_free(dgnn_tgnn *m);               /* the APAN-only arrays */
int tgnn_apan_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                      const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err);
void tgnn_apan_backward(dgnn_tgnn *m, const float *dlogits);
void tgnn_apan_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev);

#endif
