// tgn_step.cu: one training step of TGN, JODIE or DyRep on the device (include/dgnn/cuda.h,
// "one training step of the memory models"), the composition of this backend's ops in the
// order the CPU model runs its own: tgnn_mem_forward (memory gather, mails, GRU or RNN),
// the kind's embedding (TGN: tgnn_attn_forward over every root; JODIE: the time
// projection; DyRep: the updated memory, and the attention over the true roots for the
// mails), tgnn_mem_predict (edge predictor), the trainer's loss, the kind's backward and
// tgnn_mem_backward_updater, tgnn_mem_commit, Adam. No kernel of its own: every step is
// an op tested against its CPU twin in tests/cuda/; what is new here is only which arrays
// go where, and each call names the CPU line it mirrors.
//
// The workspace (step_ws.h, shared with apan_step.cu) is one device slab, laid out anew for
// each batch (ws_layout: every array at a 256-byte aligned offset) and reallocated only when a batch needs more than it holds
// (after a sync, with a quarter of headroom), so that the batches of an epoch allocate
// nothing once the first of the largest size has run; the last batch's layout stays for
// dgnn_cuda_tgn_commit. The slab's first part holds the batch's host arrays (and what the
// call derives from them): the call packs them into a pinned staging buffer laid out
// exactly like that part and sends them with one copy. Two staging buffers take turns
// (batch parity), each guarded by an event recorded after its copy: packing a buffer
// first waits for its previous copy (two batches ago, normally long done), so no buffer
// is rewritten while a copy may still read it, and the caller's arrays are free again as
// soon as a call returns. Every op runs on the context's one stream, so reusing the slab
// for the next batch needs no sync: its copy and ops queue behind the last batch's.
//
// NOT YET VERIFIED ON HARDWARE.
#include <cstdlib>
#include <cstring>

#include "step_ws.h"

struct dgnn_cuda_tgn_ws {
    step_ws s;             /* the slab, the staging buffers, the loss (step_ws.h) */
    int64_t B, nneg, R, Rs, P, U, Ur, Um, L; /* the last batch; Rs roots attended; L = (1 + nneg) B logits */
    /* sent: the batch's index arrays, times and features, and what the call derives */
    int64_t *off;                                                         /* (R + 1) */
    double *root_t;                                                       /* (R) */
    int32_t *roots, *other, *row_root, *nbr_row, *unodes, *mrow, *mnodes; /* (R), (2B), (R), (P), (U), (Um), (Um) */
    int32_t *other_row;                                                   /* DyRep (2B): the other endpoint's root */
    float *pair_dt, *pair_e, *efeat, *zero, *labels;                      /* (P), (P, de), (B, de), (1), (L) */
    /* forward */
    double *h_t, *mt;         /* (U), (Um) */
    float *h;                 /* (U, M) memory after the in-forward update */
    float *xm, *hm, *hout;    /* (Um, D), (Um, M), (Um, M) */
    float *gru_saved;         /* (Um, 6M), the GRU's */
    float *te0, *te;          /* (T), (P, T): the kinds with attention */
    float *emb;               /* (R, E); DyRep: (2B, E), the attention's (for the mails) */
    float *h_root;            /* JODIE, DyRep (R, M): each root's updated memory */
    double *tm;               /* JODIE (R): each root's memory time */
    float *jdt;               /* JODIE (R): its normalised time difference */
    float *pred_saved;        /* DGNN_EDGEPRED_SAVED(B, nneg, E) = R E */
    float *logits;            /* (L) */
    /* the loss and the backward (training only) */
    float *losses, *lossv;                      /* (L), (1) */
    float *dlogits, *pred_scratch, *demb;       /* (L), (R E), (R, E) */
    float *dh, *dte, *dte0, *dhm, *gru_scratch; /* (U, M), (P, T), (T), (Um, M), (Um, 6M or M: GRU or RNN) */
    float *dh_root;                             /* JODIE, DyRep (R, M) */
    /* commit */
    float *mails, *c_dt, *c_te; /* (2B, D), (2B), (2B, T) */
};

/* The workspace of batch b over the slab at base (NULL: sizes only), with the loss's and
 * the backward's arrays when train: returns its bytes, and in *sent those of its first
 * part, the arrays the host sends. */
static size_t ws_layout(dgnn_cuda_tgn_ws *w, char *base, const dgnn_cuda_tgn_cfg *k, const dgnn_cuda_tgn_batch *b,
                        int train, size_t *sent) {
    const int64_t B = b->B, R = (2 + b->nneg) * B, P = b->P, U = b->U, Um = b->Um, L = (1 + b->nneg) * B;
    const int64_t M = k->M, T = k->T, D = k->D, de = k->de, E = k->E, Sp = DGNN_EDGEPRED_SAVED(B, b->nneg, E);
    const int64_t tr = train ? 1 : 0; /* multiplies the sizes of the training-only arrays */
    /* 1 for the arrays of a kind: attention (TGN, DyRep), memory as embedding (JODIE, DyRep) */
    const int64_t at = k->emb != DGNN_CUDA_EMB_JODIE, mem = k->emb != DGNN_CUDA_EMB_ATTN;
    const int64_t jo = k->emb == DGNN_CUDA_EMB_JODIE, dy = k->emb == DGNN_CUDA_EMB_DYREP, gru = !k->rnn;
    const int64_t Re = dy ? 2 * B : R; /* rows of emb */
    ws_cursor c = {base, 0};
    take(&c, &w->off, R + 1);
    take(&c, &w->root_t, R);
    take(&c, &w->roots, R);
    take(&c, &w->other, 2 * B);
    take(&c, &w->row_root, R);
    take(&c, &w->nbr_row, P);
    take(&c, &w->unodes, U);
    take(&c, &w->mrow, Um);
    take(&c, &w->mnodes, Um);
    take(&c, &w->other_row, dy * 2 * B);
    take(&c, &w->pair_dt, P);
    take(&c, &w->pair_e, P * de);
    take(&c, &w->efeat, B * de);
    take(&c, &w->zero, at);
    take(&c, &w->labels, tr * L);
    *sent = c.used;
    take(&c, &w->h_t, U);
    take(&c, &w->mt, Um);
    take(&c, &w->h, U * M);
    take(&c, &w->xm, Um * D);
    take(&c, &w->hm, Um * M);
    take(&c, &w->hout, Um * M);
    take(&c, &w->gru_saved, gru * Um * 6 * M);
    take(&c, &w->te0, at * T);
    take(&c, &w->te, at * P * T);
    take(&c, &w->emb, Re * E);
    take(&c, &w->h_root, mem * R * M);
    take(&c, &w->tm, jo * R);
    take(&c, &w->jdt, jo * R);
    take(&c, &w->pred_saved, Sp);
    take(&c, &w->logits, L);
    take(&c, &w->losses, tr * L);
    take(&c, &w->lossv, tr);
    take(&c, &w->dlogits, tr * L);
    take(&c, &w->pred_scratch, tr * Sp);
    take(&c, &w->demb, tr * R * E);
    take(&c, &w->dh, tr * U * M);
    take(&c, &w->dte, tr * (k->emb == DGNN_CUDA_EMB_ATTN) * P * T);
    take(&c, &w->dte0, tr * (k->emb == DGNN_CUDA_EMB_ATTN) * T);
    take(&c, &w->dhm, tr * Um * M);
    take(&c, &w->gru_scratch, tr * Um * (gru ? 6 : 1) * M);
    take(&c, &w->dh_root, tr * mem * R * M);
    take(&c, &w->mails, 2 * B * D);
    take(&c, &w->c_dt, 2 * B);
    take(&c, &w->c_te, 2 * B * T);
    return c.used;
}

/* The slab's first part, as the host builds it, into the staging buffer (the layout done) */
static void ws_pack(const dgnn_cuda_tgn_ws *w, char *stage, const dgnn_cuda_tgn_batch *b, int64_t de) {
    const int64_t B = w->B, R = w->R, P = w->P, U = w->U, Um = w->Um, L = w->L;
    put(&w->s, stage, w->off, b->off, R + 1);
    put(&w->s, stage, w->root_t, b->root_t, R);
    put(&w->s, stage, w->roots, b->roots, R);
    put(&w->s, stage, w->row_root, b->row_root, R);
    put(&w->s, stage, w->nbr_row, b->nbr_row, P);
    put(&w->s, stage, w->unodes, b->unodes, U);
    put(&w->s, stage, w->mrow, b->mrow, Um);
    put(&w->s, stage, w->pair_dt, b->pair_dt, P);
    put(&w->s, stage, w->pair_e, b->pair_e, P * de);
    put(&w->s, stage, w->efeat, b->efeat, B * de);
    /* the other endpoint of each of the 2B true roots: a source's destination, and back */
    int32_t *other = staged(&w->s, stage, w->other);
    for (int64_t i = 0; i < 2 * B; i++) other[i] = i < B ? b->roots[B + i] : b->roots[i - B];
    if (Um > 0) {
        int32_t *mnodes = staged(&w->s, stage, w->mnodes);
        for (int64_t u = 0; u < Um; u++) mnodes[u] = b->unodes[b->mrow[u]]; /* the node of each mail row */
    }
    if (w->other_row) { /* DyRep: the other endpoint's row of the attention's embeddings */
        int32_t *o = staged(&w->s, stage, w->other_row);
        for (int64_t i = 0; i < 2 * B; i++) o[i] = (int32_t)(i < B ? i + B : i - B);
    }
    if (w->zero) *staged(&w->s, stage, w->zero) = 0.0f; /* te0 = time_enc(0) */
    if (w->labels) {
        float *labels = staged(&w->s, stage, w->labels);
        for (int64_t i = 0; i < L; i++) labels[i] = i < B ? 1.0f : 0.0f; /* the trainer's labels */
    }
}

extern "C" int dgnn_cuda_tgn_init(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_tgn_cfg *cfg, dgnn_err *err) {
    memset(t, 0, sizeof *t);
    const int64_t M = cfg->M, T = cfg->T, n = cfg->total, G = (cfg->rnn ? 1 : 3) * M;
    const int attn = cfg->emb != DGNN_CUDA_EMB_JODIE; /* TGN and DyRep: the attention's sizes */
    if (M < 1 || T < 1 || cfg->E < 1 || cfg->de < 0 || cfg->D != 2 * M + cfg->de + T || n < 1 ||
        cfg->emb < DGNN_CUDA_EMB_ATTN || cfg->emb > DGNN_CUDA_EMB_DYREP || (cfg->emb != DGNN_CUDA_EMB_ATTN && cfg->E != M) ||
        (attn && (cfg->acfg.dn != M || cfg->acfg.dt != T || cfg->acfg.de != cfg->de || cfg->acfg.dout != cfg->E)))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "cuda tgn: bad sizes (embedding kind %d, memory %lld, time %lld, mail %lld, edge %lld, "
                              "embedding %lld, slab %lld, attention dn %lld de %lld dt %lld dout %lld)",
                              (int)cfg->emb, (long long)M, (long long)T, (long long)cfg->D, (long long)cfg->de,
                              (long long)cfg->E, (long long)n, (long long)cfg->acfg.dn, (long long)cfg->acfg.de,
                              (long long)cfg->acfg.dt, (long long)cfg->acfg.dout);
    const int jodie = cfg->emb == DGNN_CUDA_EMB_JODIE;
    const int64_t offs[] = {cfg->off_te_w, cfg->off_te_b, cfg->off_W_ih, cfg->off_W_hh, cfg->off_b_ih, cfg->off_b_hh,
                            jodie ? cfg->off_jw : 0, jodie ? cfg->off_jb : 0};
    const int64_t lens[] = {T, T, G * cfg->D, G * M, G, G, jodie ? M : 0, jodie ? M : 0};
    for (int i = 0; i < 8; i++)
        if (offs[i] < 0 || offs[i] + lens[i] > n)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: tensor %d at offset %lld (%lld floats) outside the %lld-float slab",
                                  i, (long long)offs[i], (long long)lens[i], (long long)n);
    t->cfg = *cfg;
    t->ws = (dgnn_cuda_tgn_ws *)calloc(1, sizeof *t->ws);
    if (!t->ws) return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the cuda tgn workspace's record");
    dgnn_cuda_tgn_ws *w = t->ws;
    int rc = step_ws_init(c, &w->s, "the TGN step's loss", err);
    float **slabs[4] = {&t->param, &t->grad, &t->adam_m, &t->adam_v};
    if (!rc) rc = step_slabs_init(c, slabs, n, "TGN", err);
    if (rc) dgnn_cuda_tgn_free(c, t);
    return rc;
}

extern "C" void dgnn_cuda_tgn_free(dgnn_cuda *c, dgnn_cuda_tgn *t) {
    if (!t) return;
    if (t->ws) {
        dgnn_cuda_tgn_ws *w = t->ws;
        step_ws_free(c, &w->s); /* after a wait: no queued op or copy may still use what is freed here */
        free(w);
    }
    float **slabs[4] = {&t->param, &t->grad, &t->adam_m, &t->adam_v};
    step_slabs_free(c, slabs);
    memset(t, 0, sizeof *t);
}

extern "C" size_t dgnn_cuda_tgn_workspace_bytes(const dgnn_cuda_tgn *t) {
    return t && t->ws ? step_ws_bytes(&t->ws->s) : 0;
}

/* the batch's sizes, checked against what the op reads */
static int check_batch(const dgnn_cuda_tgn *t, const dgnn_cuda_tgn_batch *b, dgnn_err *err) {
    const int attn = t->cfg.emb != DGNN_CUDA_EMB_JODIE;
    if (b->B < 1 || b->nneg < 0 || b->P < 0 || b->U < 1 || b->Ur < attn || b->Ur > b->U || b->Um < 0 || b->Um > b->U ||
        (!attn && b->P != 0) ||
        b->U > (2 + b->nneg) * b->B + b->P || (t->cfg.de > 0 && (!b->efeat || (b->P > 0 && !b->pair_e))))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "cuda tgn: bad batch (B %lld, nneg %lld, P %lld, U %lld, Ur %lld, Um %lld, edge features %s)",
                              (long long)b->B, (long long)b->nneg, (long long)b->P, (long long)b->U, (long long)b->Ur,
                              (long long)b->Um, b->efeat ? "given" : "none");
    const int64_t R = (2 + b->nneg) * b->B;
    if (b->off[0] != 0 || b->off[R] != b->P)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: the pair offsets run from %lld to %lld, not 0 to P = %lld",
                              (long long)b->off[0], (long long)b->off[R], (long long)b->P);
    for (int64_t u = 0; u < b->Um; u++) /* the host reads unodes[mrow[u]] */
        if (b->mrow[u] < 0 || b->mrow[u] >= b->U)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: mail row %lld is %d, outside the %lld distinct nodes",
                                  (long long)u, b->mrow[u], (long long)b->U);
    return DGNN_OK;
}

/* Lays the workspace out for batch b (growing it first where b needs more) and sends b's
 * arrays with one copy from the next staging buffer, once that buffer's previous copy is
 * done. Asynchronous: the copy and everything after it queue on the stream. */
static int ws_send(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_tgn_batch *b, int train, dgnn_err *err) {
    dgnn_cuda_tgn_ws *w = t->ws;
    size_t sent = 0;
    const size_t need = ws_layout(w, nullptr, &t->cfg, b, train, &sent);
    int q = 0;
    int rc = step_ws_begin(c, &w->s, need, sent, "the TGN step's workspace", "the TGN step's staging buffer", &q, err);
    if (rc) return rc;
    ws_layout(w, (char *)w->s.dev, &t->cfg, b, train, &w->s.sent);
    w->B = b->B, w->nneg = b->nneg, w->R = (2 + b->nneg) * b->B, w->P = b->P, w->U = b->U, w->Ur = b->Ur;
    /* the roots with sampled neighbours (tgnn_sampled_roots): TGN every root, DyRep the 2B
     * true ones, JODIE none */
    w->Rs = t->cfg.emb == DGNN_CUDA_EMB_ATTN ? w->R : t->cfg.emb == DGNN_CUDA_EMB_DYREP ? 2 * b->B : 0;
    w->Um = b->Um, w->L = (1 + b->nneg) * b->B;
    ws_pack(w, (char *)w->s.stage[q], b, t->cfg.de);
    return step_ws_upload(c, &w->s, q, err);
}

/* the attention's input over the workspace (tgnn_attn_forward's), for its forward and backward */
static dgnn_tattn_input attn_input(const dgnn_cuda_tgn_ws *w, int64_t de) {
    dgnn_tattn_input in;
    memset(&in, 0, sizeof in);
    in.B = w->Rs, in.h_root = w->h, in.Ur = w->Ur, in.root_row = w->row_root, in.te0 = w->te0, in.off = w->off;
    in.Un = w->U, in.h_nbr = w->h, in.nbr_row = w->nbr_row, in.Ue = w->P, in.e_feat = de > 0 ? w->pair_e : NULL;
    in.edge_row = NULL, in.te = w->te;
    return in;
}

/* The forward of batch b, enqueued (tgnn_mem_forward, tgnn_attn_forward, tgnn_mem_predict):
 * the logits in w->logits; train: the workspace holds the loss's and the backward's arrays
 * too. dgnn_cuda_tgn_forward and _forward_backward share it. */
static int forward_part(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_state *s, const dgnn_cuda_tgn_batch *b,
                        dgnn_tattn_saved *ds, int train, dgnn_err *err) {
    if (!t->ws) return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: not initialised");
    const dgnn_cuda_tgn_cfg *k = &t->cfg;
    const int64_t M = k->M, T = k->T, D = k->D, E = k->E, de = k->de;
    if (s->mem_dim != M || s->mail_dim != D)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: state widths memory %lld, mail %lld; the model's %lld, %lld",
                              (long long)s->mem_dim, (long long)s->mail_dim, (long long)M, (long long)D);
    int rc = check_batch(t, b, err);
    if (!rc) rc = ws_send(c, t, b, train, err);
    if (rc) return rc;
    dgnn_cuda_tgn_ws *w = t->ws;
    const int64_t B = w->B, P = w->P, U = w->U, Um = w->Um, nneg = w->nneg;
    const float *p = t->param;
    /* ---- tgnn_mem_forward ---- */
    /* memory and memory time of every distinct node */
    rc = dgnn_cuda_gather_rows(c, w->h, M, s->mem, M, w->unodes, U, M, err);
    if (!rc) rc = dgnn_cuda_gather_times(c, w->h_t, s->mem_t, w->unodes, U, err);
    if (!rc && Um > 0) {
        /* the rows with a pending mail: their mail (xm), its time, their memory (hm) */
        rc = dgnn_cuda_state_last_mail(c, w->xm, w->mt, NULL, s, w->mnodes, Um, err);
        if (!rc) rc = dgnn_cuda_gather_rows(c, w->hm, M, w->h, M, w->mrow, Um, M, err);
        if (!rc && !k->rnn)
            rc = dgnn_cuda_gru_forward(c, w->hout, w->gru_saved, w->xm, w->hm, p + k->off_W_ih, p + k->off_W_hh,
                                       p + k->off_b_ih, p + k->off_b_hh, Um, D, M, err);
        if (!rc && k->rnn)
            rc = dgnn_cuda_rnn_forward(c, w->hout, w->xm, w->hm, p + k->off_W_ih, p + k->off_W_hh, p + k->off_b_ih,
                                       p + k->off_b_hh, Um, D, M, err);
        /* the updated rows and their times (the mails'): distinct rows */
        if (!rc) rc = dgnn_cuda_scatter_rows_last(c, w->h, M, w->h_t, w->hout, M, w->mt, w->mrow, Um, M, err);
    }
    /* ---- tgnn_attn_forward (TGN: every root; DyRep: the 2B true roots, for the mails):
     * time encodings, then the attention ---- */
    if (!rc && k->emb != DGNN_CUDA_EMB_JODIE) {
        rc = dgnn_cuda_timeenc_forward(c, w->te0, w->zero, p + k->off_te_w, p + k->off_te_b, 1, T, err);
        if (!rc && P > 0) rc = dgnn_cuda_timeenc_forward(c, w->te, w->pair_dt, p + k->off_te_w, p + k->off_te_b, P, T, err);
        const dgnn_tattn_input in = attn_input(w, de);
        if (!rc) rc = dgnn_cuda_tattn_forward(c, w->emb, ds, &in, P, &t->ap, &k->acfg, b->seeds, err);
    }
    /* JODIE, DyRep: every root's updated memory (tgnn_mem_forward's h_root); JODIE's time
     * projection of it (jodie_forward) */
    if (!rc && k->emb != DGNN_CUDA_EMB_ATTN) rc = dgnn_cuda_gather_rows(c, w->h_root, M, w->h, M, w->row_root, w->R, M, err);
    if (!rc && k->emb == DGNN_CUDA_EMB_JODIE) {
        rc = dgnn_cuda_gather_times(c, w->tm, w->h_t, w->row_root, w->R, err);
        if (!rc) rc = dgnn_cuda_jodie_dt_tgl(c, w->jdt, w->root_t, w->tm, w->R, err);
        if (!rc) rc = dgnn_cuda_jodie_forward(c, w->emb, w->h_root, w->jdt, p + k->off_jw, p + k->off_jb, w->R, M, err);
    }
    /* ---- tgnn_mem_predict: sources (block 0) against destinations and negatives, on the
     * kind's embedding (DyRep: the updated memory) ---- */
    const float *pe = k->emb == DGNN_CUDA_EMB_DYREP ? w->h_root : w->emb;
    if (!rc) rc = dgnn_cuda_edgepred_forward(c, w->logits, w->pred_saved, pe, pe + B * E, &t->pp, B, nneg, E, E, err);
    if (!rc) w->s.ready = 1;
    return rc;
}

extern "C" int dgnn_cuda_tgn_forward(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_state *s,
                                     const dgnn_cuda_tgn_batch *b, dgnn_tattn_saved *ds, float *logits, dgnn_err *err) {
    int rc = forward_part(c, t, s, b, ds, 0, err);
    if (!rc && logits) rc = dgnn_cuda_download(c, logits, t->ws->logits, (size_t)t->ws->L * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    return rc;
}

extern "C" int dgnn_cuda_tgn_forward_backward(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_state *s,
                                              const dgnn_cuda_tgn_batch *b, dgnn_tattn_saved *ds, float dloss,
                                              float *loss, float *logits, dgnn_err *err) {
    if (t->ws) t->ws->s.has_loss = 0; /* no stale loss for dgnn_cuda_tgn_wait_loss if this call fails */
    int rc = forward_part(c, t, s, b, ds, 1, err);
    if (rc) return rc;
    dgnn_cuda_tgn_ws *w = t->ws;
    const dgnn_cuda_tgn_cfg *k = &t->cfg;
    const int64_t M = k->M, T = k->T, D = k->D, E = k->E;
    const int64_t B = w->B, R = w->R, P = w->P, U = w->U, Um = w->Um, L = w->L, nneg = w->nneg;
    const float *p = t->param;
    float *g = t->grad;
    /* ---- the trainer's loss (event_step.c) ---- */
    rc = dgnn_cuda_bce_logits_forward(c, w->lossv, w->losses, w->logits, w->labels, L, err);
    /* ---- backward: dgnn_params_zero_grad, the loss, tgn_backward, tgnn_mem_backward_updater ---- */
    if (!rc && !t->accumulate) rc = dgnn_cuda_zero(c, g, (size_t)k->total * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, w->dlogits, (size_t)L * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_bce_logits_backward(c, w->dlogits, w->logits, w->labels, L, dloss, err);
    /* tgnn_mem_predict_backward */
    const int mem = k->emb != DGNN_CUDA_EMB_ATTN; /* JODIE, DyRep: the embedding is the memory */
    if (!rc && mem) rc = dgnn_cuda_zero(c, w->dh_root, (size_t)(R * M) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, w->dh, (size_t)(U * M) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, w->demb, (size_t)(R * E) * sizeof(float), err);
    /* DyRep's predictor read the memory: its gradient goes straight into dh_root */
    const float *pe = k->emb == DGNN_CUDA_EMB_DYREP ? w->h_root : w->emb;
    float *dpe = k->emb == DGNN_CUDA_EMB_DYREP ? w->dh_root : w->demb;
    if (!rc)
        rc = dgnn_cuda_edgepred_backward(c, dpe, dpe + B * E, &t->dpp, w->pred_scratch, w->dlogits, w->pred_saved, pe,
                                         pe + B * E, &t->pp, B, nneg, E, E, err);
    if (!rc && k->emb == DGNN_CUDA_EMB_ATTN) {
        /* tgnn_attn_backward: the roots' and neighbours' gradients land in the distinct rows */
        if (P > 0) rc = dgnn_cuda_zero(c, w->dte, (size_t)(P * T) * sizeof(float), err);
        if (!rc) rc = dgnn_cuda_zero(c, w->dte0, (size_t)T * sizeof(float), err);
        const dgnn_tattn_input in = attn_input(w, k->de);
        dgnn_tattn_dinput din;
        memset(&din, 0, sizeof din);
        din.h_root = w->dh, din.te0 = w->dte0, din.h_nbr = w->dh, din.e_feat = NULL, din.te = P > 0 ? w->dte : NULL;
        if (!rc) rc = dgnn_cuda_tattn_backward(c, &din, &t->dap, w->demb, ds, &in, P, &t->ap, &k->acfg, err);
        if (!rc && P > 0)
            rc = dgnn_cuda_timeenc_backward(c, g + k->off_te_w, g + k->off_te_b, w->dte, w->pair_dt, p + k->off_te_w,
                                            p + k->off_te_b, P, T, err);
        if (!rc)
            rc = dgnn_cuda_timeenc_backward(c, g + k->off_te_w, g + k->off_te_b, w->dte0, w->zero, p + k->off_te_w,
                                            p + k->off_te_b, 1, T, err);
    }
    /* jodie_backward: through the time projection into dh_root */
    if (!rc && k->emb == DGNN_CUDA_EMB_JODIE)
        rc = dgnn_cuda_jodie_backward(c, w->dh_root, g + k->off_jw, g + k->off_jb, w->demb, w->h_root, w->jdt,
                                      p + k->off_jw, p + k->off_jb, R, M, err);
    /* the embedding's and the predictor's gradients are done: the caller may start their sum
     * (dgnn_tgnn_backward's grad hook) */
    if (!rc && t->grad_ready) rc = t->grad_ready(t->grad_ready_ctx, t->grad_split, k->total - t->grad_split, err);
    /* tgnn_mem_backward_updater: the roots' gradients into their rows, summed in root order
     * (a node can be a root several times); then through the in-forward update (stored
     * memory and mails are constants) */
    if (!rc && mem) rc = dgnn_cuda_scatter_add_rows(c, w->dh, M, w->dh_root, M, w->row_root, R, M, err);
    if (!rc && Um > 0) {
        rc = dgnn_cuda_gather_rows(c, w->dhm, M, w->dh, M, w->mrow, Um, M, err);
        if (!rc && !k->rnn)
            rc = dgnn_cuda_gru_backward(c, NULL, NULL, g + k->off_W_ih, g + k->off_W_hh, g + k->off_b_ih,
                                        g + k->off_b_hh, w->gru_scratch, w->dhm, w->gru_saved, w->xm, w->hm,
                                        p + k->off_W_ih, p + k->off_W_hh, Um, D, M, err);
        if (!rc && k->rnn)
            rc = dgnn_cuda_rnn_backward(c, NULL, NULL, g + k->off_W_ih, g + k->off_W_hh, g + k->off_b_ih,
                                        g + k->off_b_hh, w->gru_scratch, w->dhm, w->hout, w->xm, w->hm,
                                        p + k->off_W_ih, p + k->off_W_hh, Um, D, M, err);
    }
    /* the loss, read once the stream is done: the asynchronous path ends here */
    return rc ? rc : step_ws_finish(c, &w->s, w->lossv, w->logits, L, loss, logits, err);
}

extern "C" int dgnn_cuda_tgn_wait_loss(dgnn_cuda *c, dgnn_cuda_tgn *t, float *loss, dgnn_err *err) {
    return step_ws_wait_loss(c, t->ws ? &t->ws->s : NULL, "tgn", loss, err);
}

extern "C" int dgnn_cuda_tgn_commit(dgnn_cuda *c, dgnn_cuda_tgn *t, dgnn_cuda_state *s, const dgnn_cuda_tgn_batch *b,
                                    dgnn_err *err) {
    dgnn_cuda_tgn_ws *w = t->ws;
    if (!w || !w->s.ready || w->B != b->B || w->nneg != b->nneg)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: commit without the forward of this batch");
    const dgnn_cuda_tgn_cfg *k = &t->cfg;
    const int64_t B = w->B, M = k->M, T = k->T, D = k->D, de = k->de;
    const float *p = t->param;
    /* 1. the true src/dst roots (0..2B-1) with a pending mail store their updated memory
     *    and drop the mail (a node seen twice is stored once, from its first position) */
    int rc = dgnn_cuda_state_commit_mem(c, s, w->roots, w->row_root, w->h, w->h_t, 2 * B, err);
    /* 2. mails [mem_self, mem_other, edge features, time_enc(t - t_mem_self)] from the
     *    memory just stored: sources' mails, then destinations', "last" per node */
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->mails, D, s->mem, M, w->roots, 2 * B, M, err);
    /* mem_other: the other endpoint's stored memory; DyRep: its attention embedding */
    if (!rc && k->emb != DGNN_CUDA_EMB_DYREP) rc = dgnn_cuda_gather_rows(c, w->mails + M, D, s->mem, M, w->other, 2 * B, M, err);
    if (!rc && k->emb == DGNN_CUDA_EMB_DYREP)
        rc = dgnn_cuda_gather_rows(c, w->mails + M, D, w->emb, k->E, w->other_row, 2 * B, M, err);
    if (!rc && de > 0) rc = dgnn_cuda_gather_rows(c, w->mails + 2 * M, D, w->efeat, de, NULL, B, de, err);
    if (!rc && de > 0) rc = dgnn_cuda_gather_rows(c, w->mails + B * D + 2 * M, D, w->efeat, de, NULL, B, de, err);
    if (!rc) rc = dgnn_cuda_state_time_since(c, w->c_dt, w->root_t, s, w->roots, 2 * B, err);
    if (!rc) rc = dgnn_cuda_timeenc_forward(c, w->c_te, w->c_dt, p + k->off_te_w, p + k->off_te_b, 2 * B, T, err);
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->mails + 2 * M + de, D, w->c_te, T, NULL, 2 * B, T, err);
    if (!rc) rc = dgnn_cuda_state_push_mails(c, s, w->roots, w->mails, w->root_t, 2 * B, DGNN_CUDA_AGG_LAST, err);
    return rc;
}

extern "C" int dgnn_cuda_tgn_adam(dgnn_cuda *c, dgnn_cuda_tgn *t, double lr, double beta1, double beta2, double eps,
                                  double weight_decay, int64_t step, dgnn_err *err) {
    return dgnn_cuda_adam_step(c, t->param, t->grad, t->adam_m, t->adam_v, t->cfg.total, lr, beta1, beta2, eps,
                               weight_decay, step, err);
}
