/* tgnn.h: memory-based temporal GNNs (TGN, JODIE, DyRep, APAN) over the node state store.
 *
 * One batch of B consecutive events follows TGL's / the TGN code's semantics
 * (DESIGN.md, "What it computes"):
 *  1. roots = [src (B); dst (B); nneg negatives per event (nneg blocks of B)], all at
 *     the event times;
 *  2. TGN: the k most recent neighbours of every root strictly before its time; DyRep
 *     and APAN: of the 2B true src/dst roots only (APAN: where its mails go);
 *  3. every node involved (roots and neighbours) reads its memory; a node with a
 *     pending mail gets its memory updated in the forward pass:
 *     mem' = GRU(mail, mem) (TGN) or RNN(mail, mem) (JODIE, DyRep), where a mail is
 *     [mem_self, mem_other, edge features, time_enc(t - t_mem_self)] written by an
 *     earlier batch (DyRep: [mem_self, emb_other, ...], see below); gradients flow
 *     into the updater, not into stored state;
 *  4. embedding: TGN = temporal attention over the neighbours' updated memories;
 *     JODIE = time projection mem' * (1 + w dt + b); DyRep = mem' itself (APAN's
 *     steps 3, 4 and 6 differ: see below);
 *  5. link predictor on (src, dst) and (src, negative) pairs, binary cross-entropy;
 *  6. commit (after backward, before the optimizer step, as the TGN code does): the
 *     batch's true src/dst nodes store mem' (cleared mail), then each event writes a
 *     mail for its src and its dst ("last" per node), read by the NEXT batch.
 *
 * DyRep, as the TGN code runs it (--memory_updater rnn --dyrep
 * --use_destination_embedding_in_message; TGL ships no DyRep config): TGN's steps
 * with an RNN updater, the updated memory as the embedding, and one difference in
 * the mail: "mem_other" is replaced by the other endpoint's temporal-attention
 * embedding over ITS k most recent neighbours (TGN's attention layer, computed in the
 * forward pass for the 2B true src/dst roots). That embedding only enters stored
 * mails, which are constants for later batches, so (as in the TGN code) no gradient
 * reaches the attention layer or the time encoding: they stay as initialised, a
 * fixed random message function. emb_dim must equal mem_dim.
 *
 * APAN, as TGL's config/APAN.yml (deliver_to: neighbors, memory_update: transformer,
 * mailbox_size 10, arch identity). Mails have NO time part: [mem_self, mem_other,
 * edge features] (2M + de floats), and a node keeps its last `mail_slots` mails in a
 * ring. Every root r (node v at time t, negatives included) computes
 *     q = Wq mem_v + bq;   k_s, v_s = Wk|Wv [mail_s; time_enc(t - t_mail_s)] + b
 *     a = multi-head attention of q over ALL slots s (LeakyReLU(0.2) scores, softmax,
 *         attention dropout; empty slots are zero mails at time 0, as in TGL, which
 *         does not mask them)
 *     mem' = ReLU(dropout(W_mlp LayerNorm(a + mem_v) + b_mlp))
 *     embedding = LayerNorm(mem') (TGL's IdentityNormLayer), predictor = TGL's
 *     EdgePredictor (separate src and dst biases).
 * Since mem' depends on the root time, rows are distinct (node, time) pairs, not
 * distinct nodes. Commit (TGL's MailBox.update_memory / update_mailbox, deliver_to
 * neighbors, mail_combine last): each true src/dst root stores mem' and t (roots in
 * order, the last write wins); the mail of root i is [mem'_i, mem'_partner, edge
 * features] at the event time; it goes to root i's node AND to every sampled neighbour
 * of root i; of all deliveries to one node in this batch only the last, in the order
 * [src roots, dst roots, then the neighbour deliveries root by root], is pushed into
 * its ring (so a node that is also someone's neighbour keeps the neighbour's mail, as
 * in TGL's unique/scatter on CPU). Mails are never cleared. No gradient reaches stored
 * state. emb_dim must equal mem_dim.
 *
 * Parameters live in one slab (params.h), read through named pointers. The workspace is
 * allocated once for the largest batch seen and reused. Each kind is one file behind one
 * ops table (src/models/tgn.c, jodie.c, dyrep.c, apan.c); src/models/tgnn_internal.h maps
 * the files they share. */
#ifndef DGNN_TGNN_H
#define DGNN_TGNN_H

#include "dgnn/events.h"
#include "dgnn/nn.h"
#include "dgnn/params.h"
#include "dgnn/state.h"
#include "dgnn/tcsr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DGNN_TGNN_TGN = 0, DGNN_TGNN_JODIE = 1, DGNN_TGNN_DYREP = 2, DGNN_TGNN_APAN = 3 } dgnn_tgnn_kind;

typedef struct {
    dgnn_tgnn_kind kind;
    int64_t mem_dim;      /* M: memory width (TGN paper 172, TGL 100) */
    int64_t time_dim;     /* time encoding width (100) */
    int64_t emb_dim;      /* embedding width: TGN's code uses M (its node-feature width) */
    int64_t neighbors;    /* k sampled neighbours (TGN, DyRep: attention; APAN: mail delivery) (10) */
    int64_t heads;        /* attention heads (2) */
    dgnn_attn_kind attn;  /* DGNN_ATTN_TGN (the TGN code) or DGNN_ATTN_TGL (TGN, DyRep) */
    float dropout;        /* attention dropout (TGN 0.1, TGL 0.2); APAN: also the updater's dropout */
    int64_t mail_slots;   /* APAN's mailbox size (TGL: 10); the others keep one mail */
    int uniform_sampler;  /* 0: most recent (TGN), 1: uniform */
    uint64_t seed;        /* initialisation and dropout */
} dgnn_tgnn_cfg;

/* TGN, JODIE, DyRep: the original TGN code's defaults (memory 172, time 100, 10
 * neighbours, 2 heads, dropout 0.1). APAN: TGL's APAN.yml (memory = embedding 100,
 * time 100, 10 neighbours, 2 heads, dropout 0.1, 10 mail slots). */
dgnn_tgnn_cfg dgnn_tgnn_cfg_default(dgnn_tgnn_kind kind);

typedef struct dgnn_tgnn dgnn_tgnn;

/* The checks of cfg that do not depend on the data (widths, neighbours, heads dividing
 * the attention width, dropout, ...): DGNN_EINVAL naming the flag, so that a caller can
 * refuse a configuration before it loads a dataset. dgnn_tgnn_init runs them too. */
int dgnn_tgnn_cfg_check(const dgnn_tgnn_cfg *cfg, dgnn_err *err);
/* num_nodes, edge_dim: of the dataset. Returns DGNN_EINVAL naming a bad field. */
int dgnn_tgnn_init(dgnn_tgnn **out, const dgnn_tgnn_cfg *cfg, int64_t num_nodes, int64_t edge_dim,
                   dgnn_err *err);
void dgnn_tgnn_free(dgnn_tgnn *m);
dgnn_params *dgnn_tgnn_params(dgnn_tgnn *m);
const dgnn_tgnn_cfg *dgnn_tgnn_config(const dgnn_tgnn *m);
/* Mail width, for the state store: 2M + edge_dim + time_dim (TGN, JODIE, DyRep) or
 * 2M + edge_dim (APAN). */
int64_t dgnn_tgnn_mail_dim(const dgnn_tgnn *m);
/* Mailbox slots per node, for the state store: cfg.mail_slots for APAN, else 1. */
int64_t dgnn_tgnn_mail_slots(const dgnn_tgnn *m);

/* One batch: events [e0, e0 + B) of ev (a table or a subset, dgnn_events_efeat),
 * negatives neg (nneg * B) with neg[j*B + i] the j-th negative of event i. Writes logits
 * ((1 + nneg) * B): block 0 the positives, block j the j-th negatives. g: the temporal CSR to sample from (training events for
 * training, all events for evaluation), g_efeat: the edge features its event ids index
 * (NULL without edge features). rng: NULL = inference (no dropout). Reads, and does
 * not change, the state. */
int dgnn_tgnn_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                      const float *g_efeat, const dgnn_events *ev, int64_t e0, int64_t B,
                      const int32_t *neg, int64_t nneg, dgnn_rng *rng, dgnn_err *err);
/* Accumulates parameter gradients (+=) from dlogits ((1 + nneg) * B) of the last forward. */
void dgnn_tgnn_backward(dgnn_tgnn *m, const float *dlogits);
/* Early gradients, for a distributed all-reduce that overlaps the rest of the backward:
 * the parameters from dgnn_tgnn_grad_split(m) to the end of the slab (the embedding and
 * the link predictor) get their last gradient before the memory updater's backward runs.
 * With a hook set, dgnn_tgnn_backward calls it once at that point with (offset, count) of
 * that suffix, then finishes the updater; NULL removes the hook. The split is fixed by
 * the model's layout (the slab's total when a model finalises nothing early: APAN), so
 * every rank can issue the same collectives whether or not it ran a backward. */
typedef void (*dgnn_grad_ready_fn)(void *ctx, int64_t offset, int64_t count);
void dgnn_tgnn_set_grad_hook(dgnn_tgnn *m, dgnn_grad_ready_fn fn, void *ctx);
int64_t dgnn_tgnn_grad_split(const dgnn_tgnn *m);
/* Embeddings of n (node, time) pairs, each as a forward computes it for a root at that
 * time (the node's memory updated by its pending messages, then the embedding module,
 * neighbours from g strictly before the time); out (n, dgnn_tgnn_embed_dim(m)).
 * Inference (no dropout). Reads, and does not change, the state; the last forward is
 * forgotten (run dgnn_tgnn_forward again before dgnn_tgnn_commit). */
int dgnn_tgnn_embed(dgnn_tgnn *m, float *out, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                    const int32_t *nodes, const double *t, int64_t n, dgnn_err *err);
int64_t dgnn_tgnn_embed_dim(const dgnn_tgnn *m);
/* The embeddings the last forward computed for its roots ((2 + nneg) B rows of
 * dgnn_tgnn_embed_dim(m), block 0 the sources, as in tgnn.h's step 1), as dgnn_tgnn_embed
 * would give them for those (node, time) pairs: owned by m, valid until its next forward
 * or embed. A caller that runs a forward anyway (to commit it) reads the sources'
 * embeddings here at no extra cost (event_node.h). */
const float *dgnn_tgnn_last_embeddings(const dgnn_tgnn *m);
/* Writes the last forward's batch into the state (step 6 above). */
void dgnn_tgnn_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev);

/* ---- Sampling ahead (DepBloom's critical path, tgnn_presample.c) ----
 * The neighbours a later batch's forward will sample, sampled beforehand into a
 * dgnn_tgnn_sample (on another thread, while the model computes the current batch). The
 * most-recent sampler reads only the temporal CSR and the batch, so the result is exactly
 * what the forward would sample itself; the uniform sampler draws its seed from the
 * training rng in batch order and cannot be sampled ahead. */
typedef struct {
    int64_t e0, B, nneg;   /* the batch */
    int64_t R, Rs, k, cap; /* roots, roots with neighbours, neighbours per root, capacity (roots) */
    int32_t *roots;        /* (R) */
    double *root_t;        /* (R) */
    int32_t *nbr, *cnt;    /* (Rs, k), (Rs) as dgnn_sample_recent writes them */
    int64_t *eid;          /* (Rs, k) */
    double *ts;            /* (Rs, k) */
    double seconds;        /* the sampling's own time */
} dgnn_tgnn_sample;

/* 1 when m's batches can be sampled ahead: the most-recent sampler, and a model that
 * samples (TGN, DyRep; JODIE samples nothing, APAN delivers mails through its sample). */
int dgnn_tgnn_can_presample(const dgnn_tgnn *m);
/* Samples the batch (ev, e0, B, neg, nneg), as dgnn_tgnn_forward would, into s (grown as
 * needed). Reads m's configuration only, never its workspace: safe on another thread while
 * m computes. Errors: DGNN_EINVAL (a model that cannot, a node outside the graph). */
int dgnn_tgnn_presample(const dgnn_tgnn *m, dgnn_tgnn_sample *s, const dgnn_tcsr *g, const dgnn_events *ev,
                        int64_t e0, int64_t B, const int32_t *neg, int64_t nneg, dgnn_err *err);
/* The next forward takes its neighbours from s instead of sampling (then forgets s). It
 * checks that s holds its batch (the same roots and times): DGNN_EINVAL otherwise. Its
 * dgnn_tgnn_last_sample_seconds is then 0. */
void dgnn_tgnn_use_sample(dgnn_tgnn *m, const dgnn_tgnn_sample *s);
void dgnn_tgnn_sample_free(dgnn_tgnn_sample *s);

/* Floating-point operations of the last forward (+ backward when it ran): the dense
 * products (2 * m * n * k per product) actually executed, for throughput reports. */
double dgnn_tgnn_last_flops(const dgnn_tgnn *m);
/* Seconds the last forward spent sampling neighbours (part of its time). */
double dgnn_tgnn_last_sample_seconds(const dgnn_tgnn *m);

#ifdef __cplusplus
}
#endif
#endif
