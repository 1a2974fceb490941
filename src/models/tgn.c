/* tgn.c: TGN (Rossi et al. 2020, as the TGN code and TGL's TGN.yml run it; semantics in
 * tgnn.h): a GRU memory updater over one mail per node (tgnn_memory.c), the temporal
 * attention over every root's k most recent neighbours as the embedding
 * (tgnn_attention.c), and the link predictor. */
#include "tgnn_internal.h"

static int tgn_check(const dgnn_tgnn_cfg *cfg, dgnn_err *err) { return tgnn_attn_check(cfg, "tgn", err); }

/* declared after the time encoding: updater, attention (then tgnn.c's link predictor) */
static void tgn_declare(dgnn_tgnn *m) {
    tgnn_mem_declare(m, 3);
    tgnn_attn_declare(m);
}

static void tgn_init_values(dgnn_tgnn *m, dgnn_rng *rng) {
    tgnn_mem_init_values(m, rng);
    tgnn_attn_init_values(m, rng);
}

static int tgn_ensure(dgnn_tgnn *m, int64_t R, dgnn_err *err) { return tgnn_mem_ensure(m, R, 1, err); }

static int tgn_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                       const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err) {
    int rc = tgnn_mem_forward(m, st, g, g_efeat, ev, neg, rng, err);
    if (rc) return rc;
    m->flops += tgnn_attn_forward(m, rng); /* the embedding of every root */
    tgnn_mem_predict(m, logits, m->emb_out);
    return DGNN_OK;
}

static void tgn_backward(dgnn_tgnn *m, const float *dlogits) {
    tgnn_mem_predict_backward(m, dlogits, m->emb_out, m->demb);
    tgnn_attn_backward(m);
}

/* the attention and the link predictor are final before the updater's backward */
static int64_t tgn_grad_split(const dgnn_tgnn *m) { return tgnn_offset(m, m->w.attn); }

static void tgn_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) { tgnn_mem_commit(m, st, ev, NULL); }

static const float *tgn_root_emb(const dgnn_tgnn *m) { return m->emb_out; }

const tgnn_ops tgnn_tgn_ops = {
    .name = "tgn",
    .sample = TGNN_SAMPLE_ALL,
    .can_presample = 1,
    .needs_neighbors = 1,
    .emb_is_memory = 0,
    .mail_time = 1,
    .pred_dst_bias = 0,
    .check = tgn_check,
    .setup = tgnn_attn_setup,
    .declare = tgn_declare,
    .init_values = tgn_init_values,
    .ensure = tgn_ensure,
    .forward = tgn_forward,
    .backward = tgn_backward,
    .backward_updater = tgnn_mem_backward_updater,
    .grad_split = tgn_grad_split,
    .commit = tgn_commit,
    .root_emb = tgn_root_emb,
};
