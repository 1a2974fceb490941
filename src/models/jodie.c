/* jodie.c: JODIE (Kumar et al. 2019; semantics in tgnn.h): an RNN memory updater over one
 * mail per node (tgnn_memory.c), no neighbours, and the time projection
 * mem' * (1 + w dt + b) of nn.h's dgnn_jodie as the embedding, dt normalised as TGL does. */
#include "tgnn_internal.h"

/* declared after the time encoding: updater, time projection (then the link predictor) */
static void jodie_declare(dgnn_tgnn *m) {
    tgnn_mem_declare(m, 1);
    tgnn_param1(m, &m->w.jw, &m->dw.jw, "time_projection.w", m->M);
    tgnn_param1(m, &m->w.jb, &m->dw.jb, "time_projection.b", m->M);
}

static void jodie_init_values(dgnn_tgnn *m, dgnn_rng *rng) {
    tgnn_mem_init_values(m, rng);
    dgnn_jodie_init(m->w.jw, m->w.jb, m->M, rng);
}

static int jodie_ensure(dgnn_tgnn *m, int64_t R, dgnn_err *err) { return tgnn_mem_ensure(m, R, 0, err); }

static int jodie_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                         const float *g_efeat, const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng,
                         dgnn_err *err) {
    int rc = tgnn_mem_forward(m, st, g, g_efeat, ev, neg, rng, err);
    if (rc) return rc;
    const int64_t R = m->R, M = m->M;
    for (int64_t i = 0; i < R; i++) {
        double t = m->root_t[i], tm = m->h_t[m->row_root[i]];
        dgnn_jodie_dt_tgl(m->jdt + i, &t, &tm, 1);
    }
    dgnn_jodie_forward(m->emb_out, m->h_root, m->jdt, m->w.jw, m->w.jb, R, M);
    tgnn_mem_predict(m, logits, m->emb_out);
    return DGNN_OK;
}

static void jodie_backward(dgnn_tgnn *m, const float *dlogits) {
    tgnn_mem_predict_backward(m, dlogits, m->emb_out, m->demb);
    dgnn_jodie_backward(m->dh_root, m->dw.jw, m->dw.jb, m->demb, m->h_root, m->jdt, m->w.jw, m->w.jb, m->R, m->M);
}

/* the time projection and the link predictor are final before the updater's backward */
static int64_t jodie_grad_split(const dgnn_tgnn *m) { return tgnn_offset(m, m->w.jw); }

static void jodie_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) { tgnn_mem_commit(m, st, ev, NULL); }

static const float *jodie_root_emb(const dgnn_tgnn *m) { return m->emb_out; }

const tgnn_ops tgnn_jodie_ops = {
    .name = "jodie",
    .sample = TGNN_SAMPLE_NONE,
    .can_presample = 0, /* it samples nothing */
    .needs_neighbors = 0,
    .emb_is_memory = 1,
    .mail_time = 1,
    .pred_dst_bias = 0,
    .declare = jodie_declare,
    .init_values = jodie_init_values,
    .ensure = jodie_ensure,
    .forward = jodie_forward,
    .backward = jodie_backward,
    .backward_updater = tgnn_mem_backward_updater,
    .grad_split = jodie_grad_split,
    .commit = jodie_commit,
    .root_emb = jodie_root_emb,
};
