/* dyrep.c: DyRep (Trivedi et al. 2019) as the TGN code runs it (--memory_updater rnn
 * --dyrep --use_destination_embedding_in_message; semantics in tgnn.h): TGN's steps with
 * an RNN updater (tgnn_memory.c) and the updated memory as the embedding; the attention
 * (tgnn_attention.c) runs over the 2B true src/dst roots only, and its embedding of the
 * other endpoint replaces mem_other in their mails. Mails are constants for later
 * batches, so nothing downstream of the attention is differentiated: no backward there. */
#include "tgnn_internal.h"

static int dyrep_check(const dgnn_tgnn_cfg *cfg, dgnn_err *err) { return tgnn_attn_check(cfg, "dyrep", err); }

/* declared after the time encoding: updater, attention (then the link predictor) */
static void dyrep_declare(dgnn_tgnn *m) {
    tgnn_mem_declare(m, 1);
    tgnn_attn_declare(m);
}

static void dyrep_init_values(dgnn_tgnn *m, dgnn_rng *rng) {
    tgnn_mem_init_values(m, rng);
    tgnn_attn_init_values(m, rng);
}

static int dyrep_ensure(dgnn_tgnn *m, int64_t R, dgnn_err *err) { return tgnn_mem_ensure(m, R, 1, err); }

static int dyrep_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                         const float *g_efeat, const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng,
                         dgnn_err *err) {
    int rc = tgnn_mem_forward(m, st, g, g_efeat, ev, neg, rng, err);
    if (rc) return rc;
    /* the attention embeddings of the 2B true roots, for their mails */
    const double f = m->Rs > 0 ? tgnn_attn_forward(m, rng) : 0.0; /* none: dgnn_tgnn_embed */
    m->flops += f;
    m->flops_nograd += f;
    /* the embedding is the updated memory (E == M): h_root feeds the predictor */
    tgnn_mem_predict(m, logits, m->h_root);
    return DGNN_OK;
}

/* the predictor read the updated memory directly: its gradient goes into dh_root */
static void dyrep_backward(dgnn_tgnn *m, const float *dlogits) {
    tgnn_mem_predict_backward(m, dlogits, m->h_root, m->dh_root);
}

/* the link predictor is final before the updater's backward (the attention gets none) */
static int64_t dyrep_grad_split(const dgnn_tgnn *m) { return tgnn_offset(m, m->w.pred); }

static void dyrep_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    tgnn_mem_commit(m, st, ev, m->emb_out);
}

static const float *dyrep_root_emb(const dgnn_tgnn *m) { return m->h_root; }

const tgnn_ops tgnn_dyrep_ops = {
    .name = "dyrep",
    .sample = TGNN_SAMPLE_TRUE,
    .can_presample = 1,
    .needs_neighbors = 1,
    .emb_is_memory = 1,
    .mail_time = 1,
    .pred_dst_bias = 0,
    .check = dyrep_check,
    .setup = tgnn_attn_setup,
    .declare = dyrep_declare,
    .init_values = dyrep_init_values,
    .ensure = dyrep_ensure,
    .forward = dyrep_forward,
    .backward = dyrep_backward,
    .backward_updater = tgnn_mem_backward_updater,
    .grad_split = dyrep_grad_split,
    .commit = dyrep_commit,
    .root_emb = dyrep_root_emb,
};
