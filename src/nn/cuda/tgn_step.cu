// tgn_step.cu: one TGN training step on the device (include/dgnn/cuda.h, "one TGN
// training step"), the composition of this backend's ops in the order the CPU model runs
// its own: tgnn_mem_forward (memory gather, mails, GRU), tgnn_attn_forward (time encoding,
// attention), tgnn_mem_predict (edge predictor), the trainer's loss, tgn_backward and
// tgnn_mem_backward_updater, tgnn_mem_commit, Adam. No kernel of its own: every step is
// an op tested against its CPU twin in tests/cuda/; what is new here is only which arrays
// go where, and each call names the CPU line it mirrors.
//
// The workspace is allocated for each batch at its exact sizes (after a sync, so that no
// queued op still reads the old one) and kept until the next forward, for the commit:
// simple and obviously sized; reuse across batches can come when a trainer drives it.
//
// NOT YET VERIFIED ON HARDWARE.
#include <cstdlib>
#include <cstring>

#include "cuda_internal.h"

struct dgnn_cuda_tgn_ws {
    int64_t B, nneg, R, P, U, Um, L; /* L = (1 + nneg) B logits */
    /* the batch's index arrays and times (uploaded) */
    int32_t *roots, *other, *row_root, *nbr_row, *unodes, *mrow, *mnodes; /* (R), (2B), (R), (P), (U), (Um), (Um) */
    int64_t *off;                                                 /* (R + 1) */
    double *root_t, *h_t, *mt;                                    /* (R), (U), (Um) */
    float *pair_dt, *pair_e, *efeat;                              /* (P), (P, de), (B, de) */
    /* forward */
    float *h;                 /* (U, M) memory after the in-forward update */
    float *xm, *hm, *hout;    /* (Um, D), (Um, M), (Um, M) */
    float *gru_saved;         /* (Um, 6M) */
    float *zero, *te0, *te;   /* (1), (T), (P, T) */
    float *emb;               /* (R, E) */
    float *pred_saved;        /* DGNN_EDGEPRED_SAVED(B, nneg, E) = R E */
    float *logits, *labels, *losses, *lossv; /* (L), (L), (L), (1) */
    /* backward */
    float *dlogits, *pred_scratch, *demb;    /* (L), (R E), (R, E) */
    float *dh, *dte, *dte0, *dhm, *gru_scratch; /* (U, M), (P, T), (T), (Um, M), (Um, 6M) */
    /* commit */
    float *mails, *c_dt, *c_te;              /* (2B, D), (2B), (2B, T) */
};

#define WS_PTRS(w)                                                                                              \
    (void *)(w)->roots, (void *)(w)->other, (void *)(w)->row_root, (void *)(w)->nbr_row, (void *)(w)->unodes,    \
        (void *)(w)->mrow, (void *)(w)->mnodes, (void *)(w)->off, (void *)(w)->root_t, (void *)(w)->h_t, (void *)(w)->mt,             \
        (void *)(w)->pair_dt, (void *)(w)->pair_e, (void *)(w)->efeat, (void *)(w)->h, (void *)(w)->xm,          \
        (void *)(w)->hm, (void *)(w)->hout, (void *)(w)->gru_saved, (void *)(w)->zero, (void *)(w)->te0,         \
        (void *)(w)->te, (void *)(w)->emb, (void *)(w)->pred_saved, (void *)(w)->logits, (void *)(w)->labels,    \
        (void *)(w)->losses, (void *)(w)->lossv, (void *)(w)->dlogits, (void *)(w)->pred_scratch,                \
        (void *)(w)->demb, (void *)(w)->dh, (void *)(w)->dte, (void *)(w)->dte0, (void *)(w)->dhm,               \
        (void *)(w)->gru_scratch, (void *)(w)->mails, (void *)(w)->c_dt, (void *)(w)->c_te

static void ws_release(dgnn_cuda *c, dgnn_cuda_tgn_ws *w) {
    void *ptrs[] = {WS_PTRS(w)};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) dgnn_cuda_release(c, ptrs[i]);
    memset(w, 0, sizeof *w);
}

extern "C" int dgnn_cuda_tgn_init(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_tgn_cfg *cfg, dgnn_err *err) {
    memset(t, 0, sizeof *t);
    const int64_t M = cfg->M, T = cfg->T, n = cfg->total;
    if (M < 1 || T < 1 || cfg->E < 1 || cfg->de < 0 || cfg->D != 2 * M + cfg->de + T || n < 1 ||
        cfg->acfg.dn != M || cfg->acfg.dt != T || cfg->acfg.de != cfg->de || cfg->acfg.dout != cfg->E)
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "cuda tgn: bad sizes (memory %lld, time %lld, mail %lld, edge %lld, embedding %lld, "
                              "slab %lld, attention dn %lld de %lld dt %lld dout %lld)",
                              (long long)M, (long long)T, (long long)cfg->D, (long long)cfg->de, (long long)cfg->E,
                              (long long)n, (long long)cfg->acfg.dn, (long long)cfg->acfg.de,
                              (long long)cfg->acfg.dt, (long long)cfg->acfg.dout);
    const int64_t offs[] = {cfg->off_te_w, cfg->off_te_b, cfg->off_W_ih, cfg->off_W_hh, cfg->off_b_ih, cfg->off_b_hh};
    const int64_t lens[] = {T, T, 3 * M * cfg->D, 3 * M * M, 3 * M, 3 * M};
    for (int i = 0; i < 6; i++)
        if (offs[i] < 0 || offs[i] + lens[i] > n)
            return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: tensor %d at offset %lld (%lld floats) outside the %lld-float slab",
                                  i, (long long)offs[i], (long long)lens[i], (long long)n);
    t->cfg = *cfg;
    t->ws = (dgnn_cuda_tgn_ws *)calloc(1, sizeof *t->ws);
    if (!t->ws) return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the cuda tgn workspace's record");
    const size_t bytes = (size_t)n * sizeof(float);
    float **slabs[] = {&t->param, &t->grad, &t->adam_m, &t->adam_v};
    const char *what[] = {"the TGN parameters", "the TGN gradients", "the TGN Adam m", "the TGN Adam v"};
    for (int i = 0; i < 4; i++) {
        int rc = dgnn_cuda_alloc(c, (void **)slabs[i], bytes, what[i], err);
        if (!rc) rc = dgnn_cuda_zero(c, *slabs[i], bytes, err);
        if (rc) {
            dgnn_cuda_tgn_free(c, t);
            return rc;
        }
    }
    return DGNN_OK;
}

extern "C" void dgnn_cuda_tgn_free(dgnn_cuda *c, dgnn_cuda_tgn *t) {
    if (!t) return;
    if (t->ws) {
        ws_release(c, t->ws);
        free(t->ws);
    }
    dgnn_cuda_release(c, t->param);
    dgnn_cuda_release(c, t->grad);
    dgnn_cuda_release(c, t->adam_m);
    dgnn_cuda_release(c, t->adam_v);
    memset(t, 0, sizeof *t);
}

/* device buffer of n elements of `size` bytes */
static int ws_alloc(dgnn_cuda *c, void **p, int64_t n, size_t size, const char *what, dgnn_err *err) {
    return dgnn_cuda_alloc(c, p, (size_t)n * size, what, err);
}
/* device copy of n elements of host x (nothing for n == 0) */
static int ws_upload(dgnn_cuda *c, void **p, const void *x, int64_t n, size_t size, const char *what, dgnn_err *err) {
    int rc = ws_alloc(c, p, n, size, what, err);
    if (!rc && n > 0) rc = dgnn_cuda_upload(c, *p, x, (size_t)n * size, err);
    return rc;
}
#define WS_NEW(p, n, what) ws_alloc(c, (void **)&(p), (n), sizeof *(p), what, err)
#define WS_UP(p, x, n, what) ws_upload(c, (void **)&(p), (x), (n), sizeof *(p), what, err)

/* the batch's sizes, checked against what the op reads */
static int check_batch(const dgnn_cuda_tgn *t, const dgnn_cuda_tgn_batch *b, dgnn_err *err) {
    if (b->B < 1 || b->nneg < 0 || b->P < 0 || b->U < 1 || b->Ur < 1 || b->Ur > b->U || b->Um < 0 || b->Um > b->U ||
        b->U > (2 + b->nneg) * b->B + b->P || (t->cfg.de > 0 && (!b->efeat || (b->P > 0 && !b->pair_e))))
        return dgnn_cuda_fail(err, DGNN_EINVAL,
                              "cuda tgn: bad batch (B %lld, nneg %lld, P %lld, U %lld, Ur %lld, Um %lld, edge features %s)",
                              (long long)b->B, (long long)b->nneg, (long long)b->P, (long long)b->U, (long long)b->Ur,
                              (long long)b->Um, b->efeat ? "given" : "none");
    const int64_t R = (2 + b->nneg) * b->B;
    if (b->off[0] != 0 || b->off[R] != b->P)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: the pair offsets run from %lld to %lld, not 0 to P = %lld",
                              (long long)b->off[0], (long long)b->off[R], (long long)b->P);
    return DGNN_OK;
}

/* Uploads the batch and allocates the rest of the workspace (the old one released first). */
static int ws_make(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_tgn_batch *b, dgnn_err *err) {
    dgnn_cuda_tgn_ws *w = t->ws;
    int rc = dgnn_cuda_sync(c, err); /* nothing queued may still read the old workspace */
    if (rc) return rc;
    ws_release(c, w);
    const int64_t B = b->B, R = (2 + b->nneg) * B, P = b->P, U = b->U, Um = b->Um, L = (1 + b->nneg) * B;
    const int64_t M = t->cfg.M, T = t->cfg.T, D = t->cfg.D, de = t->cfg.de, E = t->cfg.E;
    w->B = B, w->nneg = b->nneg, w->R = R, w->P = P, w->U = U, w->Um = Um, w->L = L;
    /* the other endpoint of each of the 2B true roots: a source's destination, and back */
    int32_t *other = (int32_t *)malloc((size_t)(2 * B) * sizeof(int32_t));
    int32_t *mnodes = (int32_t *)malloc((size_t)(Um + 1) * sizeof(int32_t));
    float *labels = (float *)malloc((size_t)L * sizeof(float));
    if (!other || !mnodes || !labels) {
        free(other), free(mnodes), free(labels);
        return dgnn_cuda_fail(err, DGNN_ENOMEM, "out of memory: the cuda tgn batch's host arrays");
    }
    for (int64_t i = 0; i < 2 * B; i++) other[i] = i < B ? b->roots[B + i] : b->roots[i - B];
    for (int64_t u = 0; u < Um; u++) mnodes[u] = b->unodes[b->mrow[u]]; /* the node of each mail row */
    for (int64_t i = 0; i < L; i++) labels[i] = i < B ? 1.0f : 0.0f; /* the trainer's labels */
    const float zero = 0;
    if (!rc) rc = WS_UP(w->roots, b->roots, R, "the roots");
    if (!rc) rc = WS_UP(w->other, other, 2 * B, "the other endpoints");
    if (!rc) rc = WS_UP(w->row_root, b->row_root, R, "the roots' rows");
    if (!rc) rc = WS_UP(w->nbr_row, b->nbr_row, P, "the neighbours' rows");
    if (!rc) rc = WS_UP(w->unodes, b->unodes, U, "the distinct nodes");
    if (!rc) rc = WS_UP(w->mrow, b->mrow, Um, "the rows with mail");
    if (!rc) rc = WS_UP(w->mnodes, mnodes, Um, "the nodes with mail");
    if (!rc) rc = WS_UP(w->off, b->off, R + 1, "the pair offsets");
    if (!rc) rc = WS_UP(w->root_t, b->root_t, R, "the root times");
    if (!rc) rc = WS_UP(w->pair_dt, b->pair_dt, P, "the pairs' time differences");
    if (!rc && de > 0) rc = WS_UP(w->pair_e, b->pair_e, P * de, "the pairs' edge features");
    if (!rc && de > 0) rc = WS_UP(w->efeat, b->efeat, B * de, "the events' edge features");
    if (!rc) rc = WS_UP(w->labels, labels, L, "the labels");
    if (!rc) rc = WS_UP(w->zero, &zero, 1, "a zero");
    if (!rc) rc = dgnn_cuda_sync(c, err); /* other, mnodes, labels and zero are host memory freed below */
    free(other), free(mnodes), free(labels);
    if (!rc) rc = WS_NEW(w->h_t, U, "the memory times");
    if (!rc) rc = WS_NEW(w->mt, Um, "the mail times");
    if (!rc) rc = WS_NEW(w->h, U * M, "the memory rows");
    if (!rc) rc = WS_NEW(w->xm, Um * D, "the mails");
    if (!rc) rc = WS_NEW(w->hm, Um * M, "the updater's memory");
    if (!rc) rc = WS_NEW(w->hout, Um * M, "the updater's output");
    if (!rc) rc = WS_NEW(w->gru_saved, Um * 6 * M, "the GRU's saved gates");
    if (!rc) rc = WS_NEW(w->gru_scratch, Um * 6 * M, "the GRU's scratch");
    if (!rc) rc = WS_NEW(w->te0, T, "te0");
    if (!rc) rc = WS_NEW(w->te, P * T, "the pairs' time encodings");
    if (!rc) rc = WS_NEW(w->emb, R * E, "the embeddings");
    if (!rc) rc = WS_NEW(w->pred_saved, DGNN_EDGEPRED_SAVED(B, b->nneg, E), "the predictor's saved");
    if (!rc) rc = WS_NEW(w->pred_scratch, DGNN_EDGEPRED_SAVED(B, b->nneg, E), "the predictor's scratch");
    if (!rc) rc = WS_NEW(w->logits, L, "the logits");
    if (!rc) rc = WS_NEW(w->losses, L, "the losses");
    if (!rc) rc = WS_NEW(w->lossv, 1, "the loss");
    if (!rc) rc = WS_NEW(w->dlogits, L, "the logits' gradient");
    if (!rc) rc = WS_NEW(w->demb, R * E, "the embeddings' gradient");
    if (!rc) rc = WS_NEW(w->dh, U * M, "the memory rows' gradient");
    if (!rc) rc = WS_NEW(w->dte, P * T, "the time encodings' gradient");
    if (!rc) rc = WS_NEW(w->dte0, T, "te0's gradient");
    if (!rc) rc = WS_NEW(w->dhm, Um * M, "the updater output's gradient");
    if (!rc) rc = WS_NEW(w->mails, 2 * B * D, "the new mails");
    if (!rc) rc = WS_NEW(w->c_dt, 2 * B, "the mails' time differences");
    if (!rc) rc = WS_NEW(w->c_te, 2 * B * T, "the mails' time encodings");
    if (rc) ws_release(c, w);
    return rc;
}

extern "C" int dgnn_cuda_tgn_forward_backward(dgnn_cuda *c, dgnn_cuda_tgn *t, const dgnn_cuda_state *s,
                                              const dgnn_cuda_tgn_batch *b, dgnn_tattn_saved *ds, float dloss,
                                              float *loss, float *logits, dgnn_err *err) {
    if (!t->ws) return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: not initialised");
    const dgnn_cuda_tgn_cfg *k = &t->cfg;
    const int64_t M = k->M, T = k->T, D = k->D, E = k->E, de = k->de;
    if (s->mem_dim != M || s->mail_dim != D)
        return dgnn_cuda_fail(err, DGNN_EINVAL, "cuda tgn: state widths memory %lld, mail %lld; the model's %lld, %lld",
                              (long long)s->mem_dim, (long long)s->mail_dim, (long long)M, (long long)D);
    int rc = check_batch(t, b, err);
    if (!rc) rc = ws_make(c, t, b, err);
    if (rc) return rc;
    dgnn_cuda_tgn_ws *w = t->ws;
    const int64_t B = w->B, R = w->R, P = w->P, U = w->U, Um = w->Um, L = w->L, nneg = w->nneg;
    const float *p = t->param;
    float *g = t->grad;
    /* ---- forward: tgnn_mem_forward ---- */
    /* memory and memory time of every distinct node */
    rc = dgnn_cuda_gather_rows(c, w->h, M, s->mem, M, w->unodes, U, M, err);
    if (!rc) rc = dgnn_cuda_gather_times(c, w->h_t, s->mem_t, w->unodes, U, err);
    if (!rc && Um > 0) {
        /* the rows with a pending mail: their mail (xm), its time, their memory (hm) */
        rc = dgnn_cuda_state_last_mail(c, w->xm, w->mt, NULL, s, w->mnodes, Um, err);
        if (!rc) rc = dgnn_cuda_gather_rows(c, w->hm, M, w->h, M, w->mrow, Um, M, err);
        if (!rc)
            rc = dgnn_cuda_gru_forward(c, w->hout, w->gru_saved, w->xm, w->hm, p + k->off_W_ih, p + k->off_W_hh,
                                       p + k->off_b_ih, p + k->off_b_hh, Um, D, M, err);
        /* the updated rows and their times (the mails'): distinct rows */
        if (!rc) rc = dgnn_cuda_scatter_rows_last(c, w->h, M, w->h_t, w->hout, M, w->mt, w->mrow, Um, M, err);
    }
    /* ---- tgnn_attn_forward: time encodings, then the attention over every root ---- */
    if (!rc) rc = dgnn_cuda_timeenc_forward(c, w->te0, w->zero, p + k->off_te_w, p + k->off_te_b, 1, T, err);
    if (!rc && P > 0) rc = dgnn_cuda_timeenc_forward(c, w->te, w->pair_dt, p + k->off_te_w, p + k->off_te_b, P, T, err);
    dgnn_tattn_input in;
    memset(&in, 0, sizeof in);
    in.B = R, in.h_root = w->h, in.Ur = b->Ur, in.root_row = w->row_root, in.te0 = w->te0, in.off = w->off;
    in.Un = U, in.h_nbr = w->h, in.nbr_row = w->nbr_row, in.Ue = P, in.e_feat = de > 0 ? w->pair_e : NULL;
    in.edge_row = NULL, in.te = w->te;
    if (!rc) rc = dgnn_cuda_tattn_forward(c, w->emb, ds, &in, P, &t->ap, &k->acfg, b->seeds, err);
    /* ---- tgnn_mem_predict, then the trainer's loss (event_step.c) ---- */
    if (!rc) rc = dgnn_cuda_edgepred_forward(c, w->logits, w->pred_saved, w->emb, w->emb + B * E, &t->pp, B, nneg, E, E, err);
    if (!rc) rc = dgnn_cuda_bce_logits_forward(c, w->lossv, w->losses, w->logits, w->labels, L, err);
    /* ---- backward: dgnn_params_zero_grad, the loss, tgn_backward, tgnn_mem_backward_updater ---- */
    if (!rc) rc = dgnn_cuda_zero(c, g, (size_t)k->total * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, w->dlogits, (size_t)L * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_bce_logits_backward(c, w->dlogits, w->logits, w->labels, L, dloss, err);
    /* tgnn_mem_predict_backward */
    if (!rc) rc = dgnn_cuda_zero(c, w->dh, (size_t)(U * M) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, w->demb, (size_t)(R * E) * sizeof(float), err);
    if (!rc)
        rc = dgnn_cuda_edgepred_backward(c, w->demb, w->demb + B * E, &t->dpp, w->pred_scratch, w->dlogits,
                                         w->pred_saved, w->emb, w->emb + B * E, &t->pp, B, nneg, E, E, err);
    /* tgnn_attn_backward: the roots' and neighbours' gradients land in the distinct rows */
    if (!rc && P > 0) rc = dgnn_cuda_zero(c, w->dte, (size_t)(P * T) * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_zero(c, w->dte0, (size_t)T * sizeof(float), err);
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
    /* tgnn_mem_backward_updater: stored memory and mails are constants */
    if (!rc && Um > 0) {
        rc = dgnn_cuda_gather_rows(c, w->dhm, M, w->dh, M, w->mrow, Um, M, err);
        if (!rc)
            rc = dgnn_cuda_gru_backward(c, NULL, NULL, g + k->off_W_ih, g + k->off_W_hh, g + k->off_b_ih,
                                        g + k->off_b_hh, w->gru_scratch, w->dhm, w->gru_saved, w->xm, w->hm,
                                        p + k->off_W_ih, p + k->off_W_hh, Um, D, M, err);
    }
    if (!rc) rc = dgnn_cuda_download(c, loss, w->lossv, sizeof(float), err);
    if (!rc && logits) rc = dgnn_cuda_download(c, logits, w->logits, (size_t)L * sizeof(float), err);
    if (!rc) rc = dgnn_cuda_sync(c, err);
    return rc;
}

extern "C" int dgnn_cuda_tgn_commit(dgnn_cuda *c, dgnn_cuda_tgn *t, dgnn_cuda_state *s, const dgnn_cuda_tgn_batch *b,
                                    dgnn_err *err) {
    dgnn_cuda_tgn_ws *w = t->ws;
    if (!w || !w->h || w->B != b->B || w->nneg != b->nneg)
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
    if (!rc) rc = dgnn_cuda_gather_rows(c, w->mails + M, D, s->mem, M, w->other, 2 * B, M, err);
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
