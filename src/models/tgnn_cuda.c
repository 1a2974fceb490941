/* tgnn_cuda.c: a memory-based model on the GPU (tgnn_cuda.h): the host model's batch
 * bookkeeping (tgnn_mem_plan; APAN's tgnn_apan_plan) handed to the device step of cuda.h
 * (tgn_step.cu; apan_step.cu), and the moves of parameters and state between the two.
 * NOT YET VERIFIED ON HARDWARE.
 * Without the CUDA backend (DGNN_HAVE_CUDA unset) only the refusals are compiled. */
#include "dgnn/tgnn_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgnn_internal.h"

int dgnn_tgnn_cuda_supports(const dgnn_tgnn_cfg *cfg, dgnn_err *err) {
    (void)cfg, (void)err; /* every kind runs on the device: TGN, JODIE, DyRep (tgn_step.cu), APAN (apan_step.cu) */
    return DGNN_OK;
}

#if DGNN_HAVE_CUDA
#include "dgnn/cuda.h"

struct dgnn_tgnn_cuda {
    dgnn_tgnn *m;
    dgnn_cuda *c;
    int apan;            /* APAN: the step a and its batch ab; else the step t and its batch b */
    dgnn_cuda_tgn t;
    dgnn_cuda_apan a;
    dgnn_cuda_apan_batch ab;
    float *param, *adam_m, *adam_v; /* the step's device slabs (either's) */
    int64_t total;
    dgnn_cuda_state s;
    float *sslab; /* the attention's saved slab (device), grown to the largest batch */
    int64_t sslab_cap;
    dgnn_tattn_saved ds;
    dgnn_cuda_tgn_batch b; /* the planned or last batch (host arrays: the model's workspace) */
    float *ef_stage;       /* (ef_stage_cap) host: a batch's edge features gathered, for a subset's */
    int64_t ef_stage_cap;
    /* the strict ranks' row moves (rows_to_host, rows_from_host), grown on demand */
    int32_t *rows_idx; /* (rows_cap) device */
    float *rows_dev;   /* (rows_cap, max(M, S D)) device */
    float *rows_host;  /* (rows_cap, max(M, S D)) host */
    int64_t rows_cap;
    /* the exchange between devices (rows_gather, rows_scatter, exchange_buffers): the rows'
     * nodes, the rows sent and received; capacities in bytes */
    int32_t *xidx;
    float *xsend, *xrecv;
    int64_t xidx_cap, xsend_cap, xrecv_cap;
    /* the received nodes' times, counts and ring positions (upload_meta): device, host */
    float *xmeta, *hmeta;
    int64_t xmeta_cap, hmeta_cap;
    dgnn_tgnn_cuda_grad_ready_fn hook; /* dgnn_tgnn_cuda_set_grad_hook */
    void *hook_ctx;
    uint64_t seeds[2];
    double flops;     /* the planned batch's dense products (the CPU's count of them) */
    int planned;      /* dgnn_tgnn_cuda_plan ran, run_step not yet */
    int loss_pending; /* run_step ran, wait_loss not yet */
    int have_forward; /* a forward whose batch a commit may write */
    char name[128];
};

int dgnn_tgnn_cuda_built(void) { return 1; }
int dgnn_tgnn_cuda_devices(void) { return dgnn_cuda_device_count(); }

void dgnn_tgnn_cuda_free(dgnn_tgnn_cuda *d) {
    if (!d) return;
    if (d->c) {
        dgnn_cuda_sync(d->c, NULL);
        dgnn_cuda_release(d->c, d->sslab);
        dgnn_cuda_release(d->c, d->rows_idx), dgnn_cuda_release(d->c, d->rows_dev);
        dgnn_cuda_release(d->c, d->xidx), dgnn_cuda_release(d->c, d->xsend), dgnn_cuda_release(d->c, d->xrecv);
        dgnn_cuda_release(d->c, d->xmeta);
        free(d->hmeta);
        dgnn_cuda_tgn_free(d->c, &d->t);
        dgnn_cuda_apan_free(d->c, &d->a);
        dgnn_cuda_state_free(d->c, &d->s);
        dgnn_cuda_free(d->c);
    }
    free(d->rows_host);
    free(d->ef_stage);
    free(d);
}

/* the TGN step (TGN, JODIE, DyRep) over m's slab layout */
static int init_tgn(dgnn_tgnn_cuda *d, dgnn_err *err) {
    const dgnn_tgnn *m = d->m;
    const int jodie = m->cfg.kind == DGNN_TGNN_JODIE;
    const dgnn_cuda_tgn_cfg dc = {
        .M = m->M, .T = m->T, .D = m->D, .de = m->de, .E = m->emb, .acfg = m->acfg, .total = m->p.total,
        .emb = m->cfg.kind == DGNN_TGNN_TGN ? DGNN_CUDA_EMB_ATTN : jodie ? DGNN_CUDA_EMB_JODIE : DGNN_CUDA_EMB_DYREP,
        .rnn = m->gates == 1, .off_te_w = tgnn_offset(m, m->w.te_w), .off_te_b = tgnn_offset(m, m->w.te_b),
        .off_W_ih = tgnn_offset(m, m->w.W_ih), .off_W_hh = tgnn_offset(m, m->w.W_hh),
        .off_b_ih = tgnn_offset(m, m->w.b_ih), .off_b_hh = tgnn_offset(m, m->w.b_hh),
        .off_jw = jodie ? tgnn_offset(m, m->w.jw) : 0, .off_jb = jodie ? tgnn_offset(m, m->w.jb) : 0};
    int rc = dgnn_cuda_tgn_init(d->c, &d->t, &dc, err);
    if (rc) return rc;
    /* the suffix the step hands over before the updater's backward holds none of its tensors */
    d->t.grad_split = dgnn_tgnn_grad_split(m);
    if (dc.off_W_ih >= d->t.grad_split || dc.off_W_hh >= d->t.grad_split || dc.off_b_ih >= d->t.grad_split ||
        dc.off_b_hh >= d->t.grad_split)
        return dgnn_err_set(err, DGNN_EINVAL, "cuda: the updater's gradients lie past the slab's split (%lld)",
                            (long long)d->t.grad_split);
    /* the attention's and the predictor's blocks over the device slabs (nn.h's layouts add
     * offsets to the pointer they are given, so they lay out device memory as well) */
    if (m->w.attn) {
        const int64_t off_attn = tgnn_offset(m, m->w.attn);
        dgnn_tattn_params_layout(&d->t.ap, d->t.param + off_attn, &m->acfg);
        dgnn_tattn_params_layout(&d->t.dap, d->t.grad + off_attn, &m->acfg);
    }
    const int64_t off_pred = tgnn_offset(m, m->w.pred);
    dgnn_edgepred_layout(&d->t.pp, d->t.param + off_pred, m->emb, m->emb, m->ops->pred_dst_bias);
    dgnn_edgepred_layout(&d->t.dpp, d->t.grad + off_pred, m->emb, m->emb, m->ops->pred_dst_bias);
    d->param = d->t.param, d->adam_m = d->t.adam_m, d->adam_v = d->t.adam_v, d->total = d->t.cfg.total;
    return DGNN_OK;
}

/* the APAN step over m's slab layout */
static int init_apan(dgnn_tgnn_cuda *d, dgnn_err *err) {
    const dgnn_tgnn *m = d->m;
    const tgnn_tensors *w = &m->w;
    const dgnn_cuda_apan_cfg ac = {
        .M = m->M, .T = m->T, .de = m->de, .S = m->apan.S, .heads = m->cfg.heads, .dropout = m->cfg.dropout,
        .total = m->p.total, .off_te_w = tgnn_offset(m, w->te_w), .off_te_b = tgnn_offset(m, w->te_b),
        .off_wq = tgnn_offset(m, w->wq), .off_bq = tgnn_offset(m, w->bq), .off_wk = tgnn_offset(m, w->wk),
        .off_bk = tgnn_offset(m, w->bk), .off_wv = tgnn_offset(m, w->wv), .off_bv = tgnn_offset(m, w->bv),
        .off_ln1_g = tgnn_offset(m, w->ln1_g), .off_ln1_b = tgnn_offset(m, w->ln1_b),
        .off_mlp_w = tgnn_offset(m, w->mlp_w), .off_mlp_b = tgnn_offset(m, w->mlp_b),
        .off_ln2_g = tgnn_offset(m, w->ln2_g), .off_ln2_b = tgnn_offset(m, w->ln2_b)};
    int rc = dgnn_cuda_apan_init(d->c, &d->a, &ac, err);
    if (rc) return rc;
    const int64_t off_pred = tgnn_offset(m, w->pred);
    dgnn_edgepred_layout(&d->a.pp, d->a.param + off_pred, m->M, m->M, m->ops->pred_dst_bias);
    dgnn_edgepred_layout(&d->a.dpp, d->a.grad + off_pred, m->M, m->M, m->ops->pred_dst_bias);
    d->param = d->a.param, d->adam_m = d->a.adam_m, d->adam_v = d->a.adam_v, d->total = d->a.cfg.total;
    return DGNN_OK;
}

int dgnn_tgnn_cuda_init(dgnn_tgnn_cuda **out, dgnn_tgnn *m, const dgnn_state *st, int device, dgnn_err *err) {
    *out = NULL;
    int rc = dgnn_tgnn_cuda_supports(&m->cfg, err);
    if (rc) return rc;
    dgnn_tgnn_cuda *d = dgnn_xcalloc(1, sizeof *d);
    d->m = m;
    if ((rc = dgnn_cuda_init(&d->c, device, err))) goto fail;
    if (dgnn_cuda_device_name(device, d->name, (int)sizeof d->name) != 0) snprintf(d->name, sizeof d->name, "cuda:%d", device);
    d->apan = m->cfg.kind == DGNN_TGNN_APAN;
    if ((rc = d->apan ? init_apan(d, err) : init_tgn(d, err))) goto fail;
    if ((rc = dgnn_cuda_state_init(d->c, &d->s, st->num_nodes, st->mem_dim, st->mail_dim, st->slots, err))) goto fail;
    if ((rc = dgnn_tgnn_cuda_push(d, st, &m->p, err))) goto fail;
    *out = d;
    return DGNN_OK;
fail:
    dgnn_tgnn_cuda_free(d);
    return rc;
}

/* The batch record from the model's workspace after tgnn_mem_plan; the attention's saved
 * slab grown to it and laid out (after a sync when it grows: queued work may read it). */
static int take_plan(dgnn_tgnn_cuda *d, const dgnn_events *ev, int64_t e0, const uint64_t *seeds, dgnn_err *err) {
    const dgnn_tgnn *m = d->m;
    const int attn = m->w.attn != NULL; /* TGN, DyRep: over the Rs sampled roots */
    const int64_t n = attn ? dgnn_tattn_saved_layout(NULL, NULL, &m->acfg, m->Rs, m->P, m->U, m->P) : 0;
    if (n > d->sslab_cap) {
        int rc = dgnn_cuda_sync(d->c, err);
        if (rc) return rc;
        dgnn_cuda_release(d->c, d->sslab);
        d->sslab = NULL, d->sslab_cap = 0;
        const int64_t cap = n + n / 4;
        rc = dgnn_cuda_alloc(d->c, (void **)&d->sslab, (size_t)cap * sizeof(float), "the attention's saved slab", err);
        if (rc) return rc;
        d->sslab_cap = cap;
    }
    if (attn) dgnn_tattn_saved_layout(&d->ds, d->sslab, &m->acfg, m->Rs, m->P, m->U, m->P);
    const float *ef;
    int rc = dgnn_events_efeat_block(&ef, ev, e0, m->B, &d->ef_stage, &d->ef_stage_cap, err);
    if (rc) return rc;
    const dgnn_cuda_tgn_batch b = {.B = m->B, .nneg = m->nneg, .P = m->P, .U = m->U, .Ur = m->Ur, .Um = m->Um,
                                   .roots = m->roots, .root_t = m->root_t, .row_root = m->row_root, .off = m->off,
                                   .nbr_row = m->nbr_row, .pair_dt = m->pair_dt,
                                   .pair_e = m->de > 0 ? m->pair_e : NULL, .unodes = m->unodes, .mrow = m->mrow,
                                   .efeat = m->de > 0 ? ef : NULL, .seeds = seeds};
    d->b = b;
    return DGNN_OK;
}

/* tgnn_begin and tgnn_mem_plan of a batch: the CPU forward's bookkeeping, without its
 * dense work (the roots sampled for, Rs, are the kind's, as the device step expects). */
static int plan(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg, int64_t nneg, dgnn_rng *rng,
                const uint64_t *seeds, dgnn_err *err) {
    dgnn_tgnn *m = d->m;
    d->have_forward = 0;
    int rc = tgnn_begin(m, st, ev, e0, B, nneg, err);
    if (rc) return rc;
    if (d->apan) { /* apan_forward's bookkeeping; the commit's deliveries; apan.c's count */
        if ((rc = tgnn_apan_plan(m, g, ev, neg, rng, err))) return rc;
        const int64_t n = tgnn_apan_mail_targets(m, ev);
        d->flops = tgnn_apan_flops(m, rng != NULL);
        const tgnn_apan *a = &m->apan;
        const float *ef;
        if ((rc = dgnn_events_efeat_block(&ef, ev, e0, m->B, &d->ef_stage, &d->ef_stage_cap, err))) return rc;
        const dgnn_cuda_apan_batch ab = {.B = m->B, .nneg = m->nneg, .U = m->U, .nmail = n, .roots = m->roots,
                                         .root_t = m->root_t, .row_root = m->row_root, .unodes = m->unodes,
                                         .h_t = m->h_t, .mnodes = a->mnodes, .mts = a->mts, .msrc = a->msrc,
                                         .efeat = m->de > 0 ? ef : NULL, .seeds = seeds};
        d->ab = ab;
        return DGNN_OK;
    }
    if ((rc = tgnn_mem_plan(m, st, g, g_efeat, ev, neg, rng, err))) return rc;
    /* the products the CPU would run for it: forward, and with a training step backward
     * (JODIE's projection has none; DyRep's attention is not differentiated) */
    const double upd = tgnn_mem_flops_updater(m), att = m->w.attn && m->Rs > 0 ? tgnn_attn_flops(m) : 0;
    const double fwd = upd + att + tgnn_mem_flops_predict(m);
    d->flops = rng ? tgnn_flops_with_backward(fwd, upd, m->cfg.kind == DGNN_TGNN_DYREP ? att : 0) : fwd;
    return take_plan(d, ev, e0, seeds, err);
}

/* the host half of the commit: the state's times, counts and ring positions */
static void commit_times(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev) {
    if (d->apan) tgnn_apan_commit_times(d->m, st, ev);
    else tgnn_mem_commit_times(d->m, st, ev);
}

int dgnn_tgnn_cuda_plan(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                        const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg, dgnn_rng *rng,
                        dgnn_err *err) {
    d->planned = 0;
    int rc = plan(d, st, g, g_efeat, ev, e0, B, neg, 1, rng, NULL, err);
    if (rc) return rc;
    /* the dropout seeds after the sampler's draw, as the CPU forward takes them (APAN: the
     * attention's mask, then the MLP's) */
    if (d->apan) {
        const int drop = rng && d->m->cfg.dropout > 0;
        if (drop) d->seeds[0] = dgnn_rng_u64(rng), d->seeds[1] = dgnn_rng_u64(rng);
        d->ab.seeds = drop ? d->seeds : NULL;
    } else {
        const int n = d->m->w.attn ? dgnn_tattn_draw_seeds(&d->m->acfg, rng, d->seeds) : 0;
        d->b.seeds = n > 0 ? d->seeds : NULL;
    }
    d->planned = 1;
    return DGNN_OK;
}

int dgnn_tgnn_cuda_run_step(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, double lr, double beta1,
                            double beta2, double eps, double weight_decay, int64_t t, dgnn_err *err) {
    if (!d->planned) return dgnn_err_set(err, DGNN_EINVAL, "cuda: a training step without its plan");
    if (d->loss_pending) return dgnn_err_set(err, DGNN_EINVAL, "cuda: the previous step's loss was not read");
    d->planned = 0;
    /* the trainer's loss scale: dgnn_bce_logits_backward(..., 2.0f) for one process */
    int rc;
    if (d->apan) {
        rc = dgnn_cuda_apan_forward_backward(d->c, &d->a, &d->s, &d->ab, 2.0f, NULL, NULL, err);
        if (!rc) rc = dgnn_cuda_apan_commit(d->c, &d->a, &d->s, &d->ab, err);
        if (!rc) rc = dgnn_cuda_apan_adam(d->c, &d->a, lr, beta1, beta2, eps, weight_decay, t, err);
    } else {
        rc = dgnn_cuda_tgn_forward_backward(d->c, &d->t, &d->s, &d->b, &d->ds, 2.0f, NULL, NULL, err);
        if (!rc) rc = dgnn_cuda_tgn_commit(d->c, &d->t, &d->s, &d->b, err);
        if (!rc) rc = dgnn_cuda_tgn_adam(d->c, &d->t, lr, beta1, beta2, eps, weight_decay, t, err);
    }
    if (rc) return rc;
    commit_times(d, st, ev);
    d->loss_pending = 1;
    return DGNN_OK;
}

int dgnn_tgnn_cuda_run_grad(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, float dloss, int accumulate,
                            dgnn_err *err) {
    if (!d->planned) return dgnn_err_set(err, DGNN_EINVAL, "cuda: a training step without its plan");
    if (d->loss_pending) return dgnn_err_set(err, DGNN_EINVAL, "cuda: the previous step's loss was not read");
    d->planned = 0;
    int rc;
    d->a.accumulate = d->t.accumulate = accumulate != 0;
    /* the hook: the suffix from inside the TGN step, before the updater's backward (APAN's
     * suffix is empty: grad_split = total); the prefix once the backward is enqueued, before
     * the commit, as the CPU trainer starts it */
    d->t.grad_ready = d->hook, d->t.grad_ready_ctx = d->hook_ctx;
    const int64_t split = d->apan ? d->total : d->t.grad_split;
    if (d->apan) {
        rc = dgnn_cuda_apan_forward_backward(d->c, &d->a, &d->s, &d->ab, dloss, NULL, NULL, err);
        if (!rc && d->hook) rc = d->hook(d->hook_ctx, 0, split, err);
        if (!rc) rc = dgnn_cuda_apan_commit(d->c, &d->a, &d->s, &d->ab, err);
    } else {
        rc = dgnn_cuda_tgn_forward_backward(d->c, &d->t, &d->s, &d->b, &d->ds, dloss, NULL, NULL, err);
        if (!rc && d->hook) rc = d->hook(d->hook_ctx, 0, split, err);
        if (!rc) rc = dgnn_cuda_tgn_commit(d->c, &d->t, &d->s, &d->b, err);
    }
    d->t.grad_ready = NULL, d->t.grad_ready_ctx = NULL;
    d->a.accumulate = d->t.accumulate = 0;
    if (rc) return rc;
    commit_times(d, st, ev);
    d->loss_pending = 1;
    return DGNN_OK;
}

void dgnn_tgnn_cuda_set_grad_hook(dgnn_tgnn_cuda *d, dgnn_tgnn_cuda_grad_ready_fn fn, void *ctx) {
    d->hook = fn, d->hook_ctx = ctx;
}

dgnn_cuda *dgnn_tgnn_cuda_context(dgnn_tgnn_cuda *d) { return d->c; }
float *dgnn_tgnn_cuda_grad_slab(dgnn_tgnn_cuda *d) { return d->apan ? d->a.grad : d->t.grad; }

int dgnn_tgnn_cuda_grad(dgnn_tgnn_cuda *d, float *grad, int to_host, dgnn_err *err) {
    float *g = d->apan ? d->a.grad : d->t.grad;
    const size_t b = (size_t)d->total * sizeof(float);
    int rc = to_host ? dgnn_cuda_download(d->c, grad, g, b, err) : dgnn_cuda_upload(d->c, g, grad, b, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

int dgnn_tgnn_cuda_adam(dgnn_tgnn_cuda *d, double lr, double beta1, double beta2, double eps, double weight_decay,
                        int64_t t, dgnn_err *err) {
    /* (the device steps zero their gradient slab at the next forward_backward) */
    return d->apan ? dgnn_cuda_apan_adam(d->c, &d->a, lr, beta1, beta2, eps, weight_decay, t, err)
                   : dgnn_cuda_tgn_adam(d->c, &d->t, lr, beta1, beta2, eps, weight_decay, t, err);
}

/* the staging of n rows of up to w floats (device and host), grown on demand */
static int rows_grow(dgnn_tgnn_cuda *d, int64_t n, int64_t w, dgnn_err *err) {
    if (n <= d->rows_cap) return DGNN_OK;
    int rc = dgnn_cuda_sync(d->c, err);
    if (rc) return rc;
    dgnn_cuda_release(d->c, d->rows_idx), dgnn_cuda_release(d->c, d->rows_dev);
    free(d->rows_host);
    d->rows_idx = NULL, d->rows_dev = NULL, d->rows_host = NULL, d->rows_cap = 0;
    const int64_t cap = n + n / 2 + 64;
    if ((rc = dgnn_cuda_alloc(d->c, (void **)&d->rows_idx, (size_t)cap * sizeof(int32_t), "the exchanged rows' nodes",
                              err)) ||
        (rc = dgnn_cuda_alloc(d->c, (void **)&d->rows_dev, (size_t)(cap * w) * sizeof(float), "the exchanged rows", err)))
        return rc;
    d->rows_host = dgnn_xmalloc((size_t)(cap * w) * sizeof(float));
    d->rows_cap = cap;
    return DGNN_OK;
}

int dgnn_tgnn_cuda_rows_to_host(dgnn_tgnn_cuda *d, dgnn_state *st, const int32_t *nodes, int64_t n, dgnn_err *err) {
    const int64_t M = st->mem_dim, SD = st->slots * st->mail_dim, w = M > SD ? M : SD;
    if (n <= 0) return DGNN_OK;
    int rc = rows_grow(d, n, w, err);
    if (!rc) rc = dgnn_cuda_upload(d->c, d->rows_idx, nodes, (size_t)n * sizeof(int32_t), err);
    for (int part = 0; part < 2 && !rc; part++) { /* the memory rows, then the mail rings */
        const int64_t width = part ? SD : M;
        if (width == 0) continue;
        rc = dgnn_cuda_gather_rows(d->c, d->rows_dev, width, part ? d->s.mail : d->s.mem, width, d->rows_idx, n, width,
                                   err);
        if (!rc) rc = dgnn_cuda_download(d->c, d->rows_host, d->rows_dev, (size_t)(n * width) * sizeof(float), err);
        if (!rc) rc = dgnn_cuda_sync(d->c, err);
        float *dst = part ? st->mail : st->mem;
        for (int64_t i = 0; i < n && !rc; i++)
            memcpy(dst + (int64_t)nodes[i] * width, d->rows_host + i * width, (size_t)width * sizeof(float));
    }
    return rc;
}

/* every node's times, counts and ring positions, as the host has them */
static int upload_meta_all(dgnn_tgnn_cuda *d, const dgnn_state *st, dgnn_err *err) {
    const int64_t N = st->num_nodes, S = st->slots;
    const size_t dN = (size_t)N * sizeof(double), iN = (size_t)N * sizeof(int32_t);
    int rc = dgnn_cuda_upload(d->c, d->s.mem_t, st->mem_t, dN, err);
    if (!rc) rc = dgnn_cuda_upload(d->c, d->s.mail_t, st->mail_t, dN * (size_t)S, err);
    if (!rc) rc = dgnn_cuda_upload(d->c, d->s.mail_n, st->mail_n, iN, err);
    if (!rc) rc = dgnn_cuda_upload(d->c, d->s.mail_head, st->mail_head, iN, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err);
}

static int x_grow(dgnn_tgnn_cuda *d, void **buf, int64_t *cap, int64_t bytes, const char *what, dgnn_err *err);

/* The times, counts and ring positions of the n nodes (host ids; didx: the same on the
 * device), as the host has them, sent up: the only nodes an exchange changed (a node twice
 * carries the same values twice). Packed on the host as four blocks of n rows (memory time,
 * the S mail times, the count, the position), one upload, then each block scattered into its
 * array by dgnn_cuda_scatter_rows_last over 32-bit words: a double is 2 of them, an int32 one;
 * the scatter only moves words, so every bit arrives (dgnn_tgnn_cuda_pull checks these
 * arrays against the host's exactly). Where n is a large share of the nodes, every node's
 * arrays go up whole instead. Waits. */
static int upload_meta(dgnn_tgnn_cuda *d, const dgnn_state *st, const int32_t *nodes, const int32_t *didx, int64_t n,
                       dgnn_err *err) {
    const int64_t S = st->slots, wt = 2, wm = 2 * S, W = wt + wm + 2; /* words per node */
    if (n <= 0) return DGNN_OK;
    if (4 * n >= st->num_nodes) return upload_meta_all(d, st, err);
    int rc = x_grow(d, (void **)&d->xmeta, &d->xmeta_cap, n * W * 4, "the exchanged rows' times and counts", err);
    if (rc) return rc;
    if (n * W > d->hmeta_cap) {
        free(d->hmeta);
        d->hmeta_cap = n * W + n * W / 2;
        d->hmeta = dgnn_xmalloc((size_t)d->hmeta_cap * sizeof(float));
    }
    char *t = (char *)d->hmeta, *mt = t + n * wt * 4, *cn = mt + n * wm * 4, *hd = cn + n * 4;
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = nodes[i];
        memcpy(t + i * wt * 4, &st->mem_t[v], sizeof(double));
        memcpy(mt + i * wm * 4, &st->mail_t[v * S], (size_t)S * sizeof(double));
        memcpy(cn + i * 4, &st->mail_n[v], sizeof(int32_t));
        memcpy(hd + i * 4, &st->mail_head[v], sizeof(int32_t));
    }
    rc = dgnn_cuda_upload(d->c, d->xmeta, d->hmeta, (size_t)(n * W) * 4, err);
    const float *src = d->xmeta;
    if (!rc) rc = dgnn_cuda_scatter_rows_last(d->c, (float *)d->s.mem_t, wt, NULL, src, wt, NULL, didx, n, wt, err);
    src += n * wt;
    if (!rc && S > 0)
        rc = dgnn_cuda_scatter_rows_last(d->c, (float *)d->s.mail_t, wm, NULL, src, wm, NULL, didx, n, wm, err);
    src += n * wm;
    if (!rc) rc = dgnn_cuda_scatter_rows_last(d->c, (float *)d->s.mail_n, 1, NULL, src, 1, NULL, didx, n, 1, err);
    src += n;
    if (!rc) rc = dgnn_cuda_scatter_rows_last(d->c, (float *)d->s.mail_head, 1, NULL, src, 1, NULL, didx, n, 1, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err); /* the staging is free again */
}

int dgnn_tgnn_cuda_rows_from_host(dgnn_tgnn_cuda *d, const dgnn_state *st, const int32_t *nodes, int64_t n,
                                  dgnn_err *err) {
    const int64_t M = st->mem_dim, SD = st->slots * st->mail_dim, w = M > SD ? M : SD;
    int rc = n > 0 ? rows_grow(d, n, w, err) : DGNN_OK;
    if (!rc && n > 0) rc = dgnn_cuda_upload(d->c, d->rows_idx, nodes, (size_t)n * sizeof(int32_t), err);
    for (int part = 0; part < 2 && !rc && n > 0; part++) {
        const int64_t width = part ? SD : M;
        if (width == 0) continue;
        const float *src = part ? st->mail : st->mem;
        if ((rc = dgnn_cuda_sync(d->c, err))) break; /* the staging buffers are free again */
        for (int64_t i = 0; i < n; i++)
            memcpy(d->rows_host + i * width, src + (int64_t)nodes[i] * width, (size_t)width * sizeof(float));
        rc = dgnn_cuda_upload(d->c, d->rows_dev, d->rows_host, (size_t)(n * width) * sizeof(float), err);
        if (!rc)
            rc = dgnn_cuda_scatter_rows_last(d->c, part ? d->s.mail : d->s.mem, width, NULL, d->rows_dev, width, NULL,
                                             d->rows_idx, n, width, err);
    }
    return rc ? rc : upload_meta(d, st, nodes, d->rows_idx, n, err);
}

int64_t dgnn_tgnn_cuda_row_floats(const dgnn_tgnn_cuda *d) { return d->s.mem_dim + d->s.slots * d->s.mail_dim; }

/* a device buffer of at least `bytes` (contents not kept), grown on demand */
static int x_grow(dgnn_tgnn_cuda *d, void **buf, int64_t *cap, int64_t bytes, const char *what, dgnn_err *err) {
    if (bytes <= *cap) return DGNN_OK;
    int rc = dgnn_cuda_sync(d->c, err); /* nothing queued still uses it */
    if (rc) return rc;
    dgnn_cuda_release(d->c, *buf);
    *buf = NULL, *cap = 0;
    const int64_t want = bytes + bytes / 2 + 4096;
    if ((rc = dgnn_cuda_alloc(d->c, buf, (size_t)want, what, err))) return rc;
    *cap = want;
    return DGNN_OK;
}

/* the n nodes into the exchange's device index buffer */
static int idx_upload(dgnn_tgnn_cuda *d, const int32_t *nodes, int64_t n, dgnn_err *err) {
    const int64_t b = n * (int64_t)sizeof(int32_t);
    int rc = x_grow(d, (void **)&d->xidx, &d->xidx_cap, b, "the exchanged rows' nodes", err);
    return rc ? rc : dgnn_cuda_upload(d->c, d->xidx, nodes, (size_t)b, err);
}

int dgnn_tgnn_cuda_rows_gather(dgnn_tgnn_cuda *d, float *drows, const int32_t *nodes, int64_t n, dgnn_err *err) {
    const int64_t M = d->s.mem_dim, SD = d->s.slots * d->s.mail_dim, W = M + SD;
    if (n <= 0) return DGNN_OK;
    int rc = idx_upload(d, nodes, n, err);
    if (!rc && M > 0) rc = dgnn_cuda_gather_rows(d->c, drows, W, d->s.mem, M, d->xidx, n, M, err);
    if (!rc && SD > 0) rc = dgnn_cuda_gather_rows(d->c, drows + M, W, d->s.mail, SD, d->xidx, n, SD, err);
    return rc ? rc : dgnn_cuda_sync(d->c, err); /* xidx is free again */
}

int dgnn_tgnn_cuda_exchange_buffers(dgnn_tgnn_cuda *d, int64_t n_send, int64_t n_recv, float **dsend, float **drecv,
                                    dgnn_err *err) {
    const int64_t W = dgnn_tgnn_cuda_row_floats(d);
    const int64_t fb = W * (int64_t)sizeof(float);
    int rc = x_grow(d, (void **)&d->xsend, &d->xsend_cap, n_send * fb, "the state rows sent", err);
    if (!rc) rc = x_grow(d, (void **)&d->xrecv, &d->xrecv_cap, n_recv * fb, "the state rows received", err);
    *dsend = d->xsend, *drecv = d->xrecv;
    return rc;
}

int dgnn_tgnn_cuda_rows_scatter(dgnn_tgnn_cuda *d, const dgnn_state *st, const float *drows, const int32_t *nodes,
                                int64_t n, dgnn_err *err) {
    const int64_t M = d->s.mem_dim, SD = d->s.slots * d->s.mail_dim, W = M + SD;
    int rc = n > 0 ? idx_upload(d, nodes, n, err) : DGNN_OK;
    if (!rc && n > 0 && M > 0)
        rc = dgnn_cuda_scatter_rows_last(d->c, d->s.mem, M, NULL, drows, W, NULL, d->xidx, n, M, err);
    if (!rc && n > 0 && SD > 0)
        rc = dgnn_cuda_scatter_rows_last(d->c, d->s.mail, SD, NULL, drows + M, W, NULL, d->xidx, n, SD, err);
    return rc ? rc : upload_meta(d, st, nodes, d->xidx, n, err);
}

int dgnn_tgnn_cuda_wait_loss(dgnn_tgnn_cuda *d, double *loss, dgnn_err *err) {
    if (!d->loss_pending) return dgnn_err_set(err, DGNN_EINVAL, "cuda: no step's loss to wait for");
    d->loss_pending = 0;
    float l = 0;
    int rc = d->apan ? dgnn_cuda_apan_wait_loss(d->c, &d->a, &l, err) : dgnn_cuda_tgn_wait_loss(d->c, &d->t, &l, err);
    *loss = l;
    return rc;
}

int dgnn_tgnn_cuda_forward(dgnn_tgnn_cuda *d, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                           const float *g_efeat, const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg,
                           int64_t nneg, dgnn_err *err) {
    d->planned = 0;
    int rc = plan(d, st, g, g_efeat, ev, e0, B, neg, nneg, NULL, NULL, err);
    if (!rc)
        rc = d->apan ? dgnn_cuda_apan_forward(d->c, &d->a, &d->s, &d->ab, logits, err)
                     : dgnn_cuda_tgn_forward(d->c, &d->t, &d->s, &d->b, &d->ds, logits, err);
    if (!rc) d->have_forward = 1;
    return rc;
}

int dgnn_tgnn_cuda_commit(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, dgnn_err *err) {
    if (!d->have_forward) return dgnn_err_set(err, DGNN_EINVAL, "cuda: a commit without its forward");
    d->have_forward = 0;
    int rc = d->apan ? dgnn_cuda_apan_commit(d->c, &d->a, &d->s, &d->ab, err)
                     : dgnn_cuda_tgn_commit(d->c, &d->t, &d->s, &d->b, err);
    if (!rc) commit_times(d, st, ev);
    return rc;
}

/* ---- host <-> device ---- */

#define BYTES(n, x) ((size_t)(n) * sizeof *(x))

/* The first node whose times, mail count or ring position differ between the device's
 * copy (dn, dh: counts and heads; dmt, dlt: memory and mail times) and the host's, or -1.
 * These are copied by every commit, never computed, so they agree exactly or not at all. */
static int64_t first_apart(const dgnn_state *st, const int32_t *dn, const int32_t *dh, const double *dmt,
                           const double *dlt) {
    const int64_t S = st->slots;
    for (int64_t v = 0; v < st->num_nodes; v++) {
        int apart = dn[v] != st->mail_n[v] || dh[v] != st->mail_head[v] || dmt[v] != st->mem_t[v];
        for (int64_t k = 0; k < S && !apart; k++) apart = dlt[v * S + k] != st->mail_t[v * S + k];
        if (apart) return v;
    }
    return -1;
}

int dgnn_tgnn_cuda_pull(dgnn_tgnn_cuda *d, dgnn_state *st, dgnn_params *p, dgnn_err *err) {
    dgnn_cuda *c = d->c;
    int rc = DGNN_OK;
    int32_t *n = NULL, *h = NULL;
    double *mt = NULL, *lt = NULL;
    if (st) {
        const int64_t N = st->num_nodes, M = st->mem_dim, D = st->mail_dim, S = st->slots, N1 = N > 0 ? N : 1;
        n = dgnn_xmalloc(BYTES(N1, n)), h = dgnn_xmalloc(BYTES(N1, h));
        mt = dgnn_xmalloc(BYTES(N1, mt)), lt = dgnn_xmalloc(BYTES(N1 * S, lt));
        rc = dgnn_cuda_download(c, st->mem, d->s.mem, BYTES(N * M, st->mem), err);
        if (!rc) rc = dgnn_cuda_download(c, st->mail, d->s.mail, BYTES(N * S * D, st->mail), err);
        if (!rc) rc = dgnn_cuda_download(c, n, d->s.mail_n, BYTES(N, n), err);
        if (!rc) rc = dgnn_cuda_download(c, h, d->s.mail_head, BYTES(N, h), err);
        if (!rc) rc = dgnn_cuda_download(c, mt, d->s.mem_t, BYTES(N, mt), err);
        if (!rc) rc = dgnn_cuda_download(c, lt, d->s.mail_t, BYTES(N * S, lt), err);
    }
    if (p && !rc) {
        const size_t b = BYTES(p->total, p->value);
        rc = dgnn_cuda_download(c, p->value, d->param, b, err);
        if (!rc) rc = dgnn_cuda_download(c, p->m, d->adam_m, b, err);
        if (!rc) rc = dgnn_cuda_download(c, p->v, d->adam_v, b, err);
    }
    if (!rc) rc = dgnn_cuda_sync(c, err);
    const int64_t v = !rc && st ? first_apart(st, n, h, mt, lt) : -1;
    if (v >= 0)
        rc = dgnn_err_set(err, DGNN_EDEVICE,
                          "cuda: node %lld's state differs between the device (%d mails, ring slot %d, memory time "
                          "%.17g) and the host (%d, %d, %.17g): the state's two halves went apart (a bug; please "
                          "report it)",
                          (long long)v, n[v], h[v], mt[v], st->mail_n[v], st->mail_head[v], st->mem_t[v]);
    free(n), free(h), free(mt), free(lt);
    return rc;
}

int dgnn_tgnn_cuda_push(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_params *p, dgnn_err *err) {
    dgnn_cuda *c = d->c;
    int rc = DGNN_OK;
    if (st) {
        const int64_t N = st->num_nodes, M = st->mem_dim, D = st->mail_dim, S = st->slots;
        if (N != d->s.num_nodes || M != d->s.mem_dim || D != d->s.mail_dim || S != d->s.slots)
            return dgnn_err_set(err, DGNN_EINVAL, "cuda: a state of other sizes than the device's");
        rc = dgnn_cuda_upload(c, d->s.mem, st->mem, BYTES(N * M, st->mem), err);
        if (!rc) rc = dgnn_cuda_upload(c, d->s.mem_t, st->mem_t, BYTES(N, st->mem_t), err);
        if (!rc) rc = dgnn_cuda_upload(c, d->s.mail, st->mail, BYTES(N * S * D, st->mail), err);
        if (!rc) rc = dgnn_cuda_upload(c, d->s.mail_t, st->mail_t, BYTES(N * S, st->mail_t), err);
        if (!rc) rc = dgnn_cuda_upload(c, d->s.mail_n, st->mail_n, BYTES(N, st->mail_n), err);
        if (!rc) rc = dgnn_cuda_upload(c, d->s.mail_head, st->mail_head, BYTES(N, st->mail_head), err);
    }
    if (p && !rc) {
        if (p->total != d->total) return dgnn_err_set(err, DGNN_EINVAL, "cuda: a slab of another size");
        const size_t b = BYTES(p->total, p->value);
        rc = dgnn_cuda_upload(c, d->param, p->value, b, err);
        if (!rc) rc = dgnn_cuda_upload(c, d->adam_m, p->m, b, err);
        if (!rc) rc = dgnn_cuda_upload(c, d->adam_v, p->v, b, err);
    }
    /* the uploads read host memory the caller may change once this returns */
    return rc ? rc : dgnn_cuda_sync(c, err);
}

int dgnn_tgnn_cuda_reset(dgnn_tgnn_cuda *d, dgnn_state *st, dgnn_err *err) {
    d->have_forward = 0;
    dgnn_state_reset(st);
    return dgnn_cuda_state_reset(d->c, &d->s, err);
}

int dgnn_tgnn_cuda_memory(dgnn_tgnn_cuda *d, size_t *used, size_t *total, size_t *workspace, dgnn_err *err) {
    *workspace = dgnn_cuda_tgn_workspace_bytes(&d->t) + dgnn_cuda_apan_workspace_bytes(&d->a) +
                 (size_t)d->sslab_cap * sizeof(float);
    return dgnn_cuda_mem_info(d->c, used, total, err);
}

const char *dgnn_tgnn_cuda_device_name(const dgnn_tgnn_cuda *d) { return d->name; }

double dgnn_tgnn_cuda_last_flops(const dgnn_tgnn_cuda *d) { return d->flops; }

#else /* no CUDA backend in this build */

#define NO_CUDA(err)                                                                                                  \
    dgnn_err_set(err, DGNN_EDEVICE,                                                                                \
                 "--device cuda: this dgnn was built without the CUDA backend; rebuild with -DDGNN_CUDA=ON "      \
                 "(README, 'GPU') or use --device cpu")

struct dgnn_tgnn_cuda {
    int unused;
};
int dgnn_tgnn_cuda_built(void) { return 0; }
int dgnn_tgnn_cuda_devices(void) { return 0; }
int dgnn_tgnn_cuda_init(dgnn_tgnn_cuda **out, dgnn_tgnn *m, const dgnn_state *st, int device, dgnn_err *err) {
    (void)m, (void)st, (void)device;
    *out = NULL;
    return NO_CUDA(err);
}
void dgnn_tgnn_cuda_free(dgnn_tgnn_cuda *d) { (void)d; }
int dgnn_tgnn_cuda_plan(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                        const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg, dgnn_rng *rng,
                        dgnn_err *err) {
    (void)d, (void)st, (void)g, (void)g_efeat, (void)ev, (void)e0, (void)B, (void)neg, (void)rng;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_run_step(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, double lr, double beta1,
                            double beta2, double eps, double weight_decay, int64_t t, dgnn_err *err) {
    (void)d, (void)st, (void)ev, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)weight_decay, (void)t;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_wait_loss(dgnn_tgnn_cuda *d, double *loss, dgnn_err *err) {
    (void)d, (void)loss;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_run_grad(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, float dloss, int accumulate,
                            dgnn_err *err) {
    (void)d, (void)st, (void)ev, (void)dloss, (void)accumulate;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_grad(dgnn_tgnn_cuda *d, float *grad, int to_host, dgnn_err *err) {
    (void)d, (void)grad, (void)to_host;
    return NO_CUDA(err);
}
void dgnn_tgnn_cuda_set_grad_hook(dgnn_tgnn_cuda *d, dgnn_tgnn_cuda_grad_ready_fn fn, void *ctx) {
    (void)d, (void)fn, (void)ctx;
}
dgnn_cuda *dgnn_tgnn_cuda_context(dgnn_tgnn_cuda *d) {
    (void)d;
    return NULL;
}
float *dgnn_tgnn_cuda_grad_slab(dgnn_tgnn_cuda *d) {
    (void)d;
    return NULL;
}
int dgnn_tgnn_cuda_adam(dgnn_tgnn_cuda *d, double lr, double beta1, double beta2, double eps, double weight_decay,
                        int64_t t, dgnn_err *err) {
    (void)d, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)weight_decay, (void)t;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_rows_to_host(dgnn_tgnn_cuda *d, dgnn_state *st, const int32_t *nodes, int64_t n, dgnn_err *err) {
    (void)d, (void)st, (void)nodes, (void)n;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_rows_from_host(dgnn_tgnn_cuda *d, const dgnn_state *st, const int32_t *nodes, int64_t n,
                                  dgnn_err *err) {
    (void)d, (void)st, (void)nodes, (void)n;
    return NO_CUDA(err);
}
int64_t dgnn_tgnn_cuda_row_floats(const dgnn_tgnn_cuda *d) {
    (void)d;
    return 0;
}
int dgnn_tgnn_cuda_rows_gather(dgnn_tgnn_cuda *d, float *drows, const int32_t *nodes, int64_t n, dgnn_err *err) {
    (void)d, (void)drows, (void)nodes, (void)n;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_exchange_buffers(dgnn_tgnn_cuda *d, int64_t n_send, int64_t n_recv, float **dsend, float **drecv,
                                    dgnn_err *err) {
    (void)d, (void)n_send, (void)n_recv;
    *dsend = *drecv = NULL;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_rows_scatter(dgnn_tgnn_cuda *d, const dgnn_state *st, const float *drows, const int32_t *nodes,
                                int64_t n, dgnn_err *err) {
    (void)d, (void)st, (void)drows, (void)nodes, (void)n;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_forward(dgnn_tgnn_cuda *d, float *logits, const dgnn_state *st, const dgnn_tcsr *g,
                           const float *g_efeat, const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg,
                           int64_t nneg, dgnn_err *err) {
    (void)d, (void)logits, (void)st, (void)g, (void)g_efeat, (void)ev, (void)e0, (void)B, (void)neg, (void)nneg;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_commit(dgnn_tgnn_cuda *d, dgnn_state *st, const dgnn_events *ev, dgnn_err *err) {
    (void)d, (void)st, (void)ev;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_pull(dgnn_tgnn_cuda *d, dgnn_state *st, dgnn_params *p, dgnn_err *err) {
    (void)d, (void)st, (void)p;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_push(dgnn_tgnn_cuda *d, const dgnn_state *st, const dgnn_params *p, dgnn_err *err) {
    (void)d, (void)st, (void)p;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_reset(dgnn_tgnn_cuda *d, dgnn_state *st, dgnn_err *err) {
    (void)d, (void)st;
    return NO_CUDA(err);
}
int dgnn_tgnn_cuda_memory(dgnn_tgnn_cuda *d, size_t *used, size_t *total, size_t *workspace, dgnn_err *err) {
    (void)d;
    *used = *total = *workspace = 0;
    return NO_CUDA(err);
}
const char *dgnn_tgnn_cuda_device_name(const dgnn_tgnn_cuda *d) {
    (void)d;
    return "none";
}
double dgnn_tgnn_cuda_last_flops(const dgnn_tgnn_cuda *d) {
    (void)d;
    return 0;
}
#endif
