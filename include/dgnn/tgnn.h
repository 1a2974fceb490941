/* tgnn.h: memory-based temporal GNNs (TGN, JODIE) over the node state store.
 *
 * One batch of B consecutive events follows TGL's / the TGN code's semantics
 * (DESIGN.md, "What it computes"):
 *  1. roots = [src (B); dst (B); nneg negatives per event (nneg blocks of B)], all at
 *     the event times;
 *  2. TGN: the k most recent neighbours of every root strictly before its time;
 *  3. every node involved (roots and neighbours) reads its memory; a node with a
 *     pending mail gets its memory updated in the forward pass:
 *     mem' = GRU(mail, mem) (TGN) or RNN(mail, mem) (JODIE), where a mail is
 *     [mem_self, mem_other, edge features, time_enc(t - t_mem_self)] written by an
 *     earlier batch; gradients flow into the updater, not into stored state;
 *  4. embedding: TGN = temporal attention over the neighbours' updated memories;
 *     JODIE = time projection mem' * (1 + w dt + b);
 *  5. link predictor on (src, dst) and (src, negative) pairs, binary cross-entropy;
 *  6. commit (after backward, before the optimizer step, as the TGN code does): the
 *     batch's true src/dst nodes store mem' (cleared mail), then each event writes a
 *     mail for its src and its dst ("last" per node), read by the NEXT batch.
 *
 * Parameters live in one slab (params.h). The workspace is allocated once for the
 * largest batch seen and reused. */
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

typedef enum { DGNN_TGNN_TGN = 0, DGNN_TGNN_JODIE = 1 } dgnn_tgnn_kind;

typedef struct {
    dgnn_tgnn_kind kind;
    int64_t mem_dim;      /* M: memory width (TGN paper 172, TGL 100) */
    int64_t time_dim;     /* time encoding width (100) */
    int64_t emb_dim;      /* embedding width: TGN's code uses M (its node-feature width) */
    int64_t neighbors;    /* k sampled neighbours (TGN: 10) */
    int64_t heads;        /* attention heads (2) */
    dgnn_attn_kind attn;  /* DGNN_ATTN_TGN (the TGN code) or DGNN_ATTN_TGL */
    float dropout;        /* attention dropout (TGN 0.1, TGL 0.2) */
    int uniform_sampler;  /* 0: most recent (TGN), 1: uniform */
    uint64_t seed;        /* initialisation and dropout */
} dgnn_tgnn_cfg;

/* TGN with the original TGN code's defaults (memory 172, time 100, 10 neighbours,
 * 2 heads, dropout 0.1). */
dgnn_tgnn_cfg dgnn_tgnn_cfg_default(dgnn_tgnn_kind kind);

typedef struct dgnn_tgnn dgnn_tgnn;

/* num_nodes, edge_dim: of the dataset. Returns DGNN_EINVAL naming a bad field. */
int dgnn_tgnn_init(dgnn_tgnn **out, const dgnn_tgnn_cfg *cfg, int64_t num_nodes, int64_t edge_dim,
                   dgnn_err *err);
void dgnn_tgnn_free(dgnn_tgnn *m);
dgnn_params *dgnn_tgnn_params(dgnn_tgnn *m);
const dgnn_tgnn_cfg *dgnn_tgnn_config(const dgnn_tgnn *m);
/* Mail width (2M + edge_dim + time_dim), for the state store. */
int64_t dgnn_tgnn_mail_dim(const dgnn_tgnn *m);

/* One batch: events [e0, e0 + B) of ev, negatives neg (nneg * B) with neg[j*B + i]
 * the j-th negative of event i. Writes logits ((1 + nneg) * B): block 0 the positives,
 * block j the j-th negatives. g: the temporal CSR to sample from (training events for
 * training, all events for evaluation), g_efeat: the edge features its event ids index
 * (NULL without edge features). rng: NULL = inference (no dropout). Reads, and does
 * not change, the state. */
int dgnn_tgnn_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                      const float *g_efeat, const dgnn_events *ev, int64_t e0, int64_t B,
                      const int32_t *neg, int64_t nneg, dgnn_rng *rng, dgnn_err *err);
/* Accumulates parameter gradients (+=) from dlogits ((1 + nneg) * B) of the last forward. */
void dgnn_tgnn_backward(dgnn_tgnn *m, const float *dlogits);
/* Writes the last forward's batch into the state (step 6 above). */
void dgnn_tgnn_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev);

/* Floating-point operations of the last forward (+ backward when it ran): the dense
 * products (2 * m * n * k per product) actually executed, for throughput reports. */
double dgnn_tgnn_last_flops(const dgnn_tgnn *m);

#ifdef __cplusplus
}
#endif
#endif
