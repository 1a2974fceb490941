// apan_step.cu: one training step of APAN on the device (include/dgnn/cuda.h, "one training
// step of APAN"), the composition of this backend's ops in the order apan.c runs its own:
// apan_forward (memory and mail slots, their time encodings, the mailbox attention, residual,
// LayerNorm, MLP, dropout, ReLU, LayerNorm, the edge predictor), the trainer's loss,
// apan_backward, apan_commit, Adam. No kernel of its own: every step is an op tested against
// its CPU twin in tests/cuda/; what is new here is only which arrays go where, and each call
// names the CPU line it mirrors. The workspace and its staging are step_ws.h's, as the TGN
// step's (tgn_step.cu).
//
// NOT YET VERIFIED ON HARDWARE.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "step_ws.h"

struct dgnn_cuda_apan_ws {
    step_ws s;                          /* the slab, the staging buffers, the loss (step_ws.h) */
    int64_t B, nneg, R, U, US, n, L;    /* the last batch; US = U S slots, n deliveries, L logits */
    /* sent: the batch's arrays, and what the call derives from them */
    int64_t *aoff;                      /* (U + 1) row r's slots r S .. (r + 1) S - 1 */
    double *root_t, *slot_t, *mts;      /* (R), (US) each slot's row time, (n) */
    int32_t *roots, *row_root, *unodes; /* (R), (R), (U) */
    int32_t *slot;                      /* (US) the state's mail row v S + s of each slot */
    int32_t *mnodes, *msrc, *mpart;     /* (n) target, the true root whose mail, that root's partner */
    int32_t *medge;                     /* (n) the mail's event in the batch (de > 0) */
    float *efeat, *labels;              /* (B, de), (L) */
    /* forward */
    float *h, *x, *dt, *te;             /* (U, M), (US, Dx), (US), (US, T) */
    float *q, *k, *v, *logit, *att;     /* (U, M), (US, M), (US, M), (US, H), (US, H) */
    float *att_mask;                    /* (US, H), training */
    float *a, *ln1_mean, *ln1_rstd, *n1; /* (U, M), (U), (U), (U, M) */
    float *z, *zd, *drop_mask, *hnew;   /* (U, M) each: mlp output, after dropout, its mask, the memory */
    float *ln2_mean, *ln2_rstd, *emb;   /* (U), (U), (U, M) */
    float *emb_root, *pred_saved, *logits; /* (R, M), R M, (L) */
    /* the loss and the backward (training only) */
    float *losses, *lossv, *dlogits, *pred_scratch; /* (L), (1), (L), R M */
    float *d_root, *d1, *d2, *d3, *dq, *dk, *dv, *dte; /* (R, M), (U, M) x 4, (US, M) x 2, (US, T) */
    /* commit */
    float *hr, *mails; /* (2B, M) the true roots' new memory, (n, Dm) */
    int has_seeds;     /* the last forward dropped out (its masks are in the workspace) */
};

static size_t ws_layout(dgnn_cuda_apan_ws *w, char *base, const dgnn_cuda_apan_cfg *k, const dgnn_cuda_apan_batch *b,
                        int train, size_t *sent) {
    const int64_t B = b->B, R = (2 + b->nneg) * B, U = b->U, S = k->S, US = U * S, n = b->nmail;
    const int64_t L = (1 + b->nneg) * B, M = k->M, T = k->T, de = k->de, H = k->heads;
    const int64_t Dm = 2 * M + de, Dx = Dm + T, Sp = DGNN_EDGEPRED_SAVED(B, b->nneg, M), tr = train ? 1 : 0;
    ws_cursor c = {base, 0};
    take(&c, &w->aoff, U + 1);
    take(&c, &w->root_t, R);
    take(&c, &w->slot_t, US);
    take(&c, &w->mts, n);
    take(&c, &w->roots, R);
    take(&c, &w->row_root, R);
    take(&c, &w->unodes, U);
    take(&c, &w->slot, US);
    take(&c, &w->mnodes, n);
    take(&c, &w->msrc, n);
    take(&c, &w->mpart, n);
    take(&c, &w->medge, de > 0 ? n : 0);
    take(&c, &w->efeat, B * de);
    take(&c, &w->labels, tr * L);
    *sent = c.used;
    take(&c, &w->h, U * M);
    take(&c, &w->x, US * Dx);
    take(&c, &w->dt, US);
    take(&c, &w->te, US * T);
    take(&c, &w->q, U * M);
    take(&c, &w->k, US * M);
    take(&c, &w->v, US * M);
    take(&c, &w->logit, US * H);
    take(&c, &w->att, US * H);
    take(&c, &w->att_mask, tr * US * H);
    take(&c, &w->a, U * M);
    take(&c, &w->ln1_mean, U);
    take(&c, &w->ln1_rstd, U);
    take(&c, &w->n1, U * M);
    take(&c, &w->z, U * M);
    take(&c, &w->zd, U * M);
    take(&c, &w->drop_mask, U * M);
    take(&c, &w->hnew, U * M);
    take(&c, &w->ln2_mean, U);
    take(&c, &w->ln2_rstd, U);
    take(&c, &w->emb, U * M);
    take(&c, &w->emb_root, R * M);
    take(&c, &w->pred_saved, Sp);
    take(&c, &w->logits, L);
    take(&c, &w->losses, tr * L);
    take(&c, &w->lossv, tr);
    take(&c, &w->dlogits, tr * L);
    take(&c, &w->pred_scratch, tr * Sp);
    take(&c, &w->d_root, tr * R * M);
    take(&c, &w->d1, tr * U * M);
    take(&c, &w->d2, tr * U * M);
    take(&c, &w->d3, tr * U * M);
    take(&c, &w->dq, tr * U * M);
    take(&c, &w->dk, tr * US * M);
    take(&c, &w->dv, tr * US * M);
    take(&c, &w->dte, tr * US * T);
    take(&c, &w->hr, 2 * B * M);
    take(&c, &w->mails, n * Dm);
    return c.used;
}

/* The slab's first part, as the host builds it, into the staging buffer (the layout done) */
static void ws_pack(const dgnn_cuda_apan_ws *w, char *stage, const dgnn_cuda_apan_batch *b, int64_t S, int64_t de) {
    const step_ws *s = &w->s;
    const int64_t B = w->B, R = w->R, U = w->U, n = w->n, L = w->L;
    put(s, stage, w->root_t, b->root_t, R);
    put(s, stage, w->mts, b->mts, n);
    put(s, stage, w->roots, b->roots, R);
    put(s, stage, w->row_root, b->row_root, R);
    put(s, stage, w->unodes, b->unodes, U);
    put(s, stage, w->mnodes, b->mnodes, n);
    put(s, stage, w->msrc, b->msrc, n);
    put(s, stage, w->efeat, b->efeat, B * de);
    /* each row's slots: their offsets (apan_forward's aoff), the state's mail rows, the row's time */
    int64_t *aoff = staged(s, stage, w->aoff);
    int32_t *slot = staged(s, stage, w->slot);
    double *slot_t = staged(s, stage, w->slot_t);
    for (int64_t r = 0; r < U; r++) {
        aoff[r] = r * S;
        for (int64_t j = 0; j < S; j++) {
            slot[r * S + j] = (int32_t)((int64_t)b->unodes[r] * S + j);
            slot_t[r * S + j] = b->h_t[r];
        }
    }
    aoff[U] = U * S;
    /* each delivery's partner root (a source's destination, and back) and event */
    int32_t *mpart = staged(s, stage, w->mpart);
    for (int64_t j = 0; j < n; j++) mpart[j] = b->msrc[j] < B ? b->msrc[j] + (int32_t)B : b->msrc[j] - (int32_t)B;
    if (w->medge) {
        int32_t *medge = staged(s, stage, w->medge);
        for (int64_t j = 0; j < n; j++) medge[j] = (int32_t)(b->msrc[j] % B);
    }
    if (w->labels) {
        float *labels = staged(s, stage, w->labels);
        for (int64_t i = 0; i < L; i++) labels[i] = i < B ? 1.0f : 0.0f; /* the trainer's labels */
    }
}

extern "C" int dgnn_cuda_apan_init(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_apan_cfg *cfg, dgnn_err *err) {
    memset(t, 0, sizeof *t);
    const int64_t M = cfg->M, T = cfg->T, de = cfg->de, n = cfg->total, Dx = 2 * M + de + T;
    if (M < 1 || T < 1 || de < 0 || cfg->S < 1 || cfg->heads < 1 || M % cfg->heads != 0 || n < 1 ||
        !(cfg->dropout >= 0 && cfg->dropout < 1))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "cuda apan: bad sizes (memory %lld, time %lld, edge %lld, slots %lld, heads %lld, slab "
                              "%lld, dropout %g)",
                              (long long)M, (long long)T, (long long)de, (long long)cfg->S, (long long)cfg->heads,
                              (long long)n, (double)cfg->dropout);
    const int64_t offs[] = {cfg->off_te_w, cfg->off_te_b, cfg->off_wq,    cfg->off_bq,    cfg->off_wk,
                            cfg->off_bk,   cfg->off_wv,   cfg->off_bv,    cfg->off_ln1_g, cfg->off_ln1_b,
                            cfg->off_mlp_w, cfg->off_mlp_b, cfg->off_ln2_g, cfg->off_ln2_b};
    const int64_t lens[] = {T, T, M * M, M, M * Dx, M, M * Dx, M, M, M, M * M, M, M, M};
    for (int i = 0; i < 14; i++)
        if (offs[i] < 0 || offs[i] + lens[i] > n)
            return dgnn_cuda_fail(err, DGNN_EINVAL,
                                  "cuda apan: tensor %d at offset %lld (%lld floats) outside the %lld-float slab", i,
                                  (long long)offs[i], (long long)lens[i], (long long)n);
    t->cfg = *cfg;
    t->ws = (dgnn_cuda_apan_ws *)calloc(1, sizeof *t->ws);
    if (!t->ws) return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the cuda apan workspace's record");
    int rc = step_ws_init(c, &t->ws->s, "the APAN step's loss", err);
    float **slabs[4] = {&t->param, &t->grad, &t->adam_m, &t->adam_v};
    if (!rc) rc = step_slabs_init(c, slabs, n, "APAN", err);
    if (rc) dgnn_cuda_apan_free(c, t);
    return rc;
}

extern "C" void dgnn_cuda_apan_free(dgnn_cuda *c, dgnn_cuda_apan *t) {
    if (!t) return;
    if (t->ws) {
        step_ws_free(c, &t->ws->s); /* after a wait: no queued op or copy may still use what is freed here */
        free(t->ws);
    }
    float **slabs[4] = {&t->param, &t->grad, &t->adam_m, &t->adam_v};
    step_slabs_free(c, slabs);
    memset(t, 0, sizeof *t);
}

extern "C" size_t dgnn_cuda_apan_workspace_bytes(const dgnn_cuda_apan *t) {
    return t && t->ws ? step_ws_bytes(&t->ws->s) : 0;
}

/* the batch's sizes and indices, checked against what the ops read (a bad index would be a
 * silent misread on the device) */
static int check_batch(const dgnn_cuda_apan *t, const dgnn_cuda_state *s, const dgnn_cuda_apan_batch *b,
                       dgnn_err *err) {
    const int64_t B = b->B, R = (2 + b->nneg) * B, N = s->num_nodes;
    if (B < 1 || b->nneg < 0 || b->U < 1 || b->U > R || b->nmail < 2 * B || (t->cfg.de > 0 && !b->efeat))
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: bad batch (B %lld, nneg %lld, U %lld, %lld mails, edge "
                              "features %s)", (long long)B, (long long)b->nneg, (long long)b->U, (long long)b->nmail,
                              b->efeat ? "given" : "none");
    if (N * t->cfg.S > INT32_MAX)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: %lld nodes x %lld mail slots do not fit 32-bit indices",
                              (long long)N, (long long)t->cfg.S);
    for (int64_t i = 0; i < R; i++)
        if (b->row_root[i] < 0 || b->row_root[i] >= b->U)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: root %lld's row %d is outside the %lld rows",
                                  (long long)i, b->row_root[i], (long long)b->U);
    for (int64_t r = 0; r < b->U; r++)
        if (b->unodes[r] < 0 || b->unodes[r] >= N)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: row %lld's node %d is outside the %lld nodes",
                                  (long long)r, b->unodes[r], (long long)N);
    for (int64_t j = 0; j < b->nmail; j++)
        if (b->msrc[j] < 0 || b->msrc[j] >= 2 * B)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: mail %lld comes from root %d, not a true root",
                                  (long long)j, b->msrc[j]);
    return DGNN_OK;
}

/* Lays the workspace out for batch b (growing it first where b needs more) and sends b's
 * arrays with one copy from the next staging buffer (step_ws.h). Asynchronous. */
static int ws_send(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_apan_batch *b, int train, dgnn_err *err) {
    dgnn_cuda_apan_ws *w = t->ws;
    size_t sent = 0;
    const size_t need = ws_layout(w, nullptr, &t->cfg, b, train, &sent);
    int q = 0;
    int rc = step_ws_begin(c, &w->s, need, sent, "the APAN step's workspace", "the APAN step's staging buffer", &q, err);
    if (rc) return rc;
    ws_layout(w, (char *)w->s.dev, &t->cfg, b, train, &w->s.sent);
    w->B = b->B, w->nneg = b->nneg, w->R = (2 + b->nneg) * b->B, w->U = b->U, w->US = b->U * t->cfg.S;
    w->n = b->nmail, w->L = (1 + b->nneg) * b->B;
    ws_pack(w, (char *)w->s.stage[q], b, t->cfg.S, t->cfg.de);
    return step_ws_upload(c, &w->s, q, err);
}

/* apan_forward of batch b, enqueued: the logits in w->logits; train: the workspace holds the
 * loss's and the backward's arrays too. */
static int forward_part(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_state *s, const dgnn_cuda_apan_batch *b,
                        int train, dgnn_err *err) {
    if (!t->ws) return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: not initialised");
    const dgnn_cuda_apan_cfg *k = &t->cfg;
    const int64_t M = k->M, T = k->T, S = k->S, H = k->heads, Dm = 2 * M + k->de, Dx = Dm + T;
    if (s->mem_dim != M || s->mail_dim != Dm || s->slots != S)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: state widths memory %lld, mail %lld, slots %lld; the "
                              "model's %lld, %lld, %lld", (long long)s->mem_dim, (long long)s->mail_dim,
                              (long long)s->slots, (long long)M, (long long)Dm, (long long)S);
    if (b->seeds && !train) return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: dropout seeds for an inference forward");
    int rc = check_batch(t, s, b, err);
    if (!rc) rc = ws_send(c, t, b, train, err);
    if (rc) return rc;
    dgnn_cuda_apan_ws *w = t->ws;
    const int64_t B = w->B, R = w->R, U = w->U, US = w->US, nneg = w->nneg;
    const float *p = t->param;
    const uint64_t *seeds = b->seeds && k->dropout > 0 ? b->seeds : NULL;
    w->has_seeds = seeds != NULL;
    /* memory, the S mail slots (empty ones too: zero mails at time 0) and each slot's time
     * difference h_t - mail_t, read from the mail times as a store of N S "nodes" (the op
     * reads only mem_t and num_nodes of the store it is given) */
    rc = dgnn_cuda_gather_rows(c, w->h, M, s->mem, M, w->unodes, U, M, err);
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->x, Dx, s->mail, Dm, w->slot, US, Dm, err);
    dgnn_cuda_state slots;
    memset(&slots, 0, sizeof slots);
    slots.num_nodes = s->num_nodes * S, slots.mem_t = s->mail_t;
    if (!rc) rc = dgnn_cuda_state_time_since(c, w->dt, w->slot_t, &slots, w->slot, US, err);
    if (!rc) rc = dgnn_cuda_timeenc_forward(c, w->te, w->dt, p + k->off_te_w, p + k->off_te_b, US, T, err);
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->x + Dm, Dx, w->te, T, NULL, US, T, err);
    /* attention of the memory over its mailbox */
    if (!rc) rc = dgnn_cuda_linear_forward(c, w->q, w->h, p + k->off_wq, p + k->off_bq, U, M, M, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, w->k, w->x, p + k->off_wk, p + k->off_bk, US, Dx, M, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, w->v, w->x, p + k->off_wv, p + k->off_bv, US, Dx, M, err);
    if (!rc && seeds) rc = dgnn_cuda_dropout_mask(c, w->att_mask, US * H, k->dropout, seeds[0], err);
    if (!rc)
        rc = dgnn_cuda_attn_core_forward(c, w->a, w->logit, w->att, seeds ? w->att_mask : NULL, w->q, w->k, w->v,
                                         w->aoff, U, H, M, DGNN_SCORE_LEAKY_DOT, err);
    /* residual (a += h), LayerNorm, MLP, dropout, ReLU: the updated memory */
    if (!rc) rc = dgnn_cuda_scatter_add_rows(c, w->a, M, w->h, M, NULL, U, M, err);
    if (!rc)
        rc = dgnn_cuda_layernorm_forward(c, w->n1, w->ln1_mean, w->ln1_rstd, w->a, p + k->off_ln1_g, p + k->off_ln1_b,
                                         U, M, err);
    if (!rc) rc = dgnn_cuda_linear_forward(c, w->z, w->n1, p + k->off_mlp_w, p + k->off_mlp_b, U, M, M, err);
    if (!rc) rc = dgnn_cuda_dropout_forward(c, w->zd, w->drop_mask, w->z, U * M, k->dropout, seeds ? seeds + 1 : NULL, err);
    if (!rc) rc = dgnn_cuda_relu_forward(c, w->hnew, w->zd, U * M, err);
    /* identity embedding: a LayerNorm; each root's row; the predictor */
    if (!rc)
        rc = dgnn_cuda_layernorm_forward(c, w->emb, w->ln2_mean, w->ln2_rstd, w->hnew, p + k->off_ln2_g,
                                         p + k->off_ln2_b, U, M, err);
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->emb_root, M, w->emb, M, w->row_root, R, M, err);
    if (!rc)
        rc = dgnn_cuda_edgepred_forward(c, w->logits, w->pred_saved, w->emb_root, w->emb_root + B * M, &t->pp, B, nneg,
                                        M, M, err);
    if (!rc) w->s.ready = 1;
    return rc;
}

extern "C" int dgnn_cuda_apan_forward(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_state *s,
                                      const dgnn_cuda_apan_batch *b, float *logits, dgnn_err *err) {
    int rc = forward_part(c, t, s, b, 0, err);
    if (!rc && logits) rc = dgnn_cuda_download(c, logits, t->ws->logits, (size_t)t->ws->L * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    return rc;
}

#define ZERO(p, n) dgnn_cuda_zero(c, (p), (size_t)(n) * sizeof(float), err)

extern "C" int dgnn_cuda_apan_forward_backward(dgnn_cuda *c, dgnn_cuda_apan *t, const dgnn_cuda_state *s,
                                               const dgnn_cuda_apan_batch *b, float dloss, float *loss, float *logits,
                                               dgnn_err *err) {
    if (t->ws) t->ws->s.has_loss = 0; /* no stale loss for dgnn_cuda_apan_wait_loss if this call fails */
    int rc = forward_part(c, t, s, b, 1, err);
    if (rc) return rc;
    dgnn_cuda_apan_ws *w = t->ws;
    const dgnn_cuda_apan_cfg *k = &t->cfg;
    const int64_t M = k->M, T = k->T, H = k->heads, Dm = 2 * M + k->de, Dx = Dm + T;
    const int64_t B = w->B, R = w->R, U = w->U, US = w->US, L = w->L, nneg = w->nneg;
    const float *p = t->param;
    float *g = t->grad;
    const float *att_mask = w->has_seeds ? w->att_mask : NULL;
    /* ---- the trainer's loss (event_step.c) ---- */
    rc = dgnn_cuda_bce_logits_forward(c, w->lossv, w->losses, w->logits, w->labels, L, err);
    /* ---- backward: dgnn_params_zero_grad, the loss, apan_backward ---- */
    if (!rc && !t->accumulate) rc = ZERO(g, k->total);
    if (!rc) rc = ZERO(w->dlogits, L);
    if (!rc) rc = dgnn_cuda_bce_logits_backward(c, w->dlogits, w->logits, w->labels, L, dloss, err);
    if (!rc) rc = ZERO(w->d_root, R * M);
    if (!rc)
        rc = dgnn_cuda_edgepred_backward(c, w->d_root, w->d_root + B * M, &t->dpp, w->pred_scratch, w->dlogits,
                                         w->pred_saved, w->emb_root, w->emb_root + B * M, &t->pp, B, nneg, M, M, err);
    /* roots share rows: summed in root order */
    if (!rc) rc = ZERO(w->d2, U * M);
    if (!rc) rc = dgnn_cuda_scatter_add_rows(c, w->d2, M, w->d_root, M, w->row_root, R, M, err);
    /* embedding LayerNorm -> d hnew (d1) */
    if (!rc) rc = ZERO(w->d1, U * M);
    if (!rc)
        rc = dgnn_cuda_layernorm_backward(c, w->d1, g + k->off_ln2_g, g + k->off_ln2_b, w->d2, w->hnew,
                                          p + k->off_ln2_g, w->ln2_mean, w->ln2_rstd, U, M, err);
    /* hnew = relu(z * mask): d(z * mask) (d3) where hnew > 0, then dz (d2) = that * mask */
    if (!rc) rc = ZERO(w->d3, U * M);
    if (!rc) rc = dgnn_cuda_relu_backward(c, w->d3, w->d1, w->hnew, U * M, err);
    if (!rc) rc = ZERO(w->d2, U * M);
    if (!rc) rc = dgnn_cuda_dropout_backward(c, w->d2, w->d3, w->drop_mask, U * M, err);
    /* mlp -> d n1 (d1) */
    if (!rc) rc = ZERO(w->d1, U * M);
    if (!rc)
        rc = dgnn_cuda_linear_backward(c, w->d1, g + k->off_mlp_w, g + k->off_mlp_b, w->d2, w->n1, p + k->off_mlp_w,
                                       U, M, M, err);
    /* LayerNorm -> d(attention + memory) (d3): the attention output's gradient, the memory
     * being a constant */
    if (!rc) rc = ZERO(w->d3, U * M);
    if (!rc)
        rc = dgnn_cuda_layernorm_backward(c, w->d3, g + k->off_ln1_g, g + k->off_ln1_b, w->d1, w->a, p + k->off_ln1_g,
                                          w->ln1_mean, w->ln1_rstd, U, M, err);
    if (!rc) rc = ZERO(w->dq, U * M);
    if (!rc) rc = ZERO(w->dk, US * M);
    if (!rc) rc = ZERO(w->dv, US * M);
    if (!rc)
        rc = dgnn_cuda_attn_core_backward(c, w->dq, w->dk, w->dv, w->d3, w->logit, w->att, att_mask, w->q, w->k, w->v,
                                          w->aoff, U, H, M, DGNN_SCORE_LEAKY_DOT, err);
    if (!rc)
        rc = dgnn_cuda_linear_backward(c, NULL, g + k->off_wq, g + k->off_bq, w->dq, w->h, p + k->off_wq, U, M, M, err);
    if (!rc)
        rc = dgnn_cuda_linear_backward(c, NULL, g + k->off_wk, g + k->off_bk, w->dk, w->x, p + k->off_wk, US, Dx, M,
                                       err);
    if (!rc)
        rc = dgnn_cuda_linear_backward(c, NULL, g + k->off_wv, g + k->off_bv, w->dv, w->x, p + k->off_wv, US, Dx, M,
                                       err);
    /* only the time columns of x depend on parameters: dte (US, T) = dK Wk[:, Dm:] + dV Wv[:, Dm:] */
    if (!rc) rc = ZERO(w->dte, US * T);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, US, T, M, w->dk, M, p + k->off_wk + Dm, Dx, 0.0f, w->dte, T, err);
    if (!rc) rc = dgnn_cuda_gemm(c, 0, 0, US, T, M, w->dv, M, p + k->off_wv + Dm, Dx, 1.0f, w->dte, T, err);
    if (!rc)
        rc = dgnn_cuda_timeenc_backward(c, g + k->off_te_w, g + k->off_te_b, w->dte, w->dt, p + k->off_te_w,
                                        p + k->off_te_b, US, T, err);
    /* the loss, read once the stream is done: the asynchronous path ends here */
    return rc ? rc : step_ws_finish(c, &w->s, w->lossv, w->logits, L, loss, logits, err);
}

extern "C" int dgnn_cuda_apan_wait_loss(dgnn_cuda *c, dgnn_cuda_apan *t, float *loss, dgnn_err *err) {
    return step_ws_wait_loss(c, t->ws ? &t->ws->s : NULL, "apan", loss, err);
}

extern "C" int dgnn_cuda_apan_commit(dgnn_cuda *c, dgnn_cuda_apan *t, dgnn_cuda_state *s,
                                     const dgnn_cuda_apan_batch *b, dgnn_err *err) {
    dgnn_cuda_apan_ws *w = t->ws;
    if (!w || !w->s.ready || w->B != b->B || w->nneg != b->nneg || w->n != b->nmail)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda apan: commit without the forward of this batch");
    const dgnn_cuda_apan_cfg *k = &t->cfg;
    const int64_t B = w->B, M = k->M, de = k->de, Dm = 2 * M + de, n = w->n;
    /* 1. the true roots' updated memory (hr) and root time, the last root of a node winning */
    int rc = dgnn_cuda_gather_rows(c, w->hr, M, w->hnew, M, w->row_root, 2 * B, M, err);
    if (!rc) rc = dgnn_cuda_scatter_rows_last(c, s->mem, M, s->mem_t, w->hr, M, w->root_t, w->roots, 2 * B, M, err);
    /* 2. each delivery's mail [mem'_root, mem'_partner, edge features] of its true root */
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->mails, Dm, w->hr, M, w->msrc, n, M, err);
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->mails + M, Dm, w->hr, M, w->mpart, n, M, err);
    if (!rc && de > 0) rc = dgnn_cuda_gather_rows(c, w->mails + 2 * M, Dm, w->efeat, de, w->medge, n, de, err);
    /* 3. one mail per node: the last delivery in that order, into the node's next slot */
    if (!rc) rc = dgnn_cuda_state_push_mails(c, s, w->mnodes, w->mails, w->mts, n, DGNN_CUDA_AGG_LAST, err);
    return rc;
}

extern "C" int dgnn_cuda_apan_adam(dgnn_cuda *c, dgnn_cuda_apan *t, double lr, double beta1, double beta2, double eps,
                                   double weight_decay, int64_t step, dgnn_err *err) {
    return dgnn_cuda_adam_step(c, t->param, t->grad, t->adam_m, t->adam_v, t->cfg.total, lr, beta1, beta2, eps,
                               weight_decay, step, err);
}
