/* tgnn.c: the memory-based temporal GNNs' public API (include/dgnn/tgnn.h): the
 * configuration's checks, the model's parameter slab and workspace, and the dispatch of
 * each batch's forward, backward and commit to the kind's operations (tgnn_ops in
 * tgnn_internal.h): tgn.c, jodie.c, dyrep.c, apan.c. What those share lies below them
 * (tgnn_memory.c, tgnn_attention.c, tgnn_batch.c, tgnn_params.c); nothing below calls
 * back up here.
 *
 * The slab's layout, every kind: the time encoding, the kind's tensors (its declare), the
 * link predictor. Initialisation draws in the same order, from one generator seeded by
 * cfg.seed. */
#include <stdlib.h>
#include <string.h>

#include "dgnn/prof.h"
#include "tgnn_internal.h"

/* The kinds, indexed by dgnn_tgnn_kind. */
static const tgnn_ops *const kinds[] = {
    [DGNN_TGNN_TGN] = &tgnn_tgn_ops,
    [DGNN_TGNN_JODIE] = &tgnn_jodie_ops,
    [DGNN_TGNN_DYREP] = &tgnn_dyrep_ops,
    [DGNN_TGNN_APAN] = &tgnn_apan_ops,
};

static const tgnn_ops *kind_ops(dgnn_tgnn_kind kind) {
    const int n = (int)(sizeof kinds / sizeof kinds[0]);
    return (int)kind >= 0 && (int)kind < n ? kinds[kind] : NULL;
}

dgnn_tgnn_cfg dgnn_tgnn_cfg_default(dgnn_tgnn_kind kind) {
    dgnn_tgnn_cfg c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.mem_dim = 172;
    c.time_dim = 100;
    c.emb_dim = 172;
    c.neighbors = 10;
    c.heads = 2;
    c.attn = DGNN_ATTN_TGN;
    c.dropout = 0.1f;
    c.uniform_sampler = 0;
    c.seed = 1;
    c.mail_slots = 10; /* APAN's; the others keep one mail */
    const tgnn_ops *ops = kind_ops(kind);
    if (ops && ops->defaults) ops->defaults(&c);
    return c;
}

dgnn_params *dgnn_tgnn_params(dgnn_tgnn *m) { return &m->p; }
const dgnn_tgnn_cfg *dgnn_tgnn_config(const dgnn_tgnn *m) { return &m->cfg; }
int64_t dgnn_tgnn_mail_dim(const dgnn_tgnn *m) { return m->D; }
int64_t dgnn_tgnn_mail_slots(const dgnn_tgnn *m) { return m->mail_slots; }
double dgnn_tgnn_last_flops(const dgnn_tgnn *m) { return m->flops; }
double dgnn_tgnn_last_sample_seconds(const dgnn_tgnn *m) { return m->sample_seconds; }

static void free_workspace(dgnn_tgnn *m) {
    void *ptrs[] = {m->roots, m->root_t, m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, m->off, m->row_root,
                    m->nbr_row, m->pair_eid, m->pair_dt, m->pair_e, m->unodes, m->mrow, m->h, m->h_t,
                    m->xm, m->hm, m->hout, m->upd_saved, m->h_root, m->te, m->jdt, m->emb_out,
                    m->pred_saved, m->attn_slab, m->demb, m->dh_root, m->dh, m->dte, m->dhm,
                    m->upd_scratch, m->pred_scratch, m->c_dt, m->c_te};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    if (m->ops->free) m->ops->free(m);
}

void dgnn_tgnn_free(dgnn_tgnn *m) {
    if (!m) return;
    free_workspace(m);
    free(m->te0);
    free(m->dte0);
    free(m->stamp);
    free(m->rowof);
    dgnn_params_free(&m->p);
    free(m);
}

int dgnn_tgnn_cfg_check(const dgnn_tgnn_cfg *cfg, dgnn_err *err) {
    const tgnn_ops *ops = kind_ops(cfg->kind);
    if (!ops) return dgnn_err_set(err, DGNN_EINVAL, "model: unknown kind %d", (int)cfg->kind);
    if (cfg->mem_dim < 1 || cfg->time_dim < 1 || cfg->emb_dim < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model: --mem-dim, --time-dim and --emb-dim must be >= 1");
    if (ops->needs_neighbors && cfg->neighbors < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model %s: --neighbors must be >= 1 (got %lld)", ops->name,
                            (long long)cfg->neighbors);
    if (cfg->dropout < 0 || cfg->dropout >= 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model: --dropout must be in [0, 1) (got %g)", (double)cfg->dropout);
    if (ops->emb_is_memory && cfg->emb_dim != cfg->mem_dim)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "model %s: the embedding is the (projected or normalised) memory, so --emb-dim must "
                            "equal --mem-dim (%lld)", ops->name, (long long)cfg->mem_dim);
    return ops->check ? ops->check(cfg, err) : DGNN_OK;
}

int dgnn_tgnn_init(dgnn_tgnn **out, const dgnn_tgnn_cfg *cfg, int64_t N, int64_t de, dgnn_err *err) {
    *out = NULL;
    int rc = dgnn_tgnn_cfg_check(cfg, err);
    if (rc) return rc;
    if (N < 0 || de < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "model: bad data sizes (%lld nodes, %lld edge features)", (long long)N,
                            (long long)de);
    const tgnn_ops *ops = kind_ops(cfg->kind);
    dgnn_tgnn *m = dgnn_xcalloc(1, sizeof *m);
    m->cfg = *cfg;
    m->ops = ops;
    m->N = N, m->de = de, m->M = cfg->mem_dim, m->T = cfg->time_dim, m->emb = cfg->emb_dim;
    m->D = 2 * m->M + de + (ops->mail_time ? m->T : 0);
    m->mail_slots = 1;
    if (ops->setup && (rc = ops->setup(m, err))) {
        free(m);
        return rc;
    }
    dgnn_params *p = &m->p;
    dgnn_params_init(p);
    tgnn_param1(m, &m->w.te_w, &m->dw.te_w, "time_enc.w", m->T);
    tgnn_param1(m, &m->w.te_b, &m->dw.te_b, "time_enc.b", m->T);
    ops->declare(m);
    /* TGN's affinity score is MergeLayer(emb, emb, emb, 1): one bias on fc1; TGL's
     * EdgePredictor (APAN) has src_fc and dst_fc, a bias each */
    const int with_bd = ops->pred_dst_bias;
    tgnn_param1(m, &m->w.pred, &m->dw.pred, "link_predictor",
                dgnn_edgepred_layout(&m->pp, NULL, m->emb, m->emb, with_bd));
    if ((rc = dgnn_params_alloc(p, err))) {
        dgnn_params_free(p);
        free(m);
        return rc;
    }
    tgnn_point_params(m);
    dgnn_rng rng;
    dgnn_rng_seed(&rng, cfg->seed);
    dgnn_timeenc_init(m->w.te_w, m->w.te_b, m->T);
    ops->init_values(m, &rng);
    dgnn_edgepred_layout(&m->pp, m->w.pred, m->emb, m->emb, with_bd);
    dgnn_edgepred_layout(&m->dpp, m->dw.pred, m->emb, m->emb, with_bd);
    dgnn_edgepred_init(&m->pp, m->emb, m->emb, &rng);

    m->stamp = dgnn_xcalloc((size_t)(N > 0 ? N : 1), sizeof(int32_t));
    m->rowof = dgnn_xcalloc((size_t)(N > 0 ? N : 1), sizeof(int32_t));
    m->te0 = dgnn_xcalloc((size_t)m->T, sizeof(float));
    m->dte0 = dgnn_xcalloc((size_t)m->T, sizeof(float));
    *out = m;
    return DGNN_OK;
}

int tgnn_begin(dgnn_tgnn *m, const dgnn_state *st, const dgnn_events *ev, int64_t e0, int64_t B, int64_t nneg,
               dgnn_err *err) {
    if (B < 1 || e0 < 0 || e0 + B > ev->num_events || nneg < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "batch [%lld, %lld) outside the %lld events", (long long)e0,
                            (long long)(e0 + B), (long long)ev->num_events);
    DGNN_ASSERT(st->mem_dim == m->M && st->mail_dim == m->D && st->num_nodes == m->N);
    DGNN_ASSERT(ev->edge_dim == m->de);
    m->no_batch = 0;
    m->e0 = e0, m->B = B, m->nneg = nneg, m->R = MUL(B, 2 + nneg);
    m->Rs = tgnn_sampled_roots(m, B, m->R);
    m->backward_ran = 0;
    m->flops = m->flops_nograd = m->flops_wgrad = 0;
    /* the workspace grows to the largest batch seen, then is reused */
    if (m->R > m->capR) {
        int rc = m->ops->ensure(m, m->R, err);
        if (rc) return rc;
    }
    return DGNN_OK;
}

int dgnn_tgnn_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                      const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg, int64_t nneg, dgnn_rng *rng,
                      dgnn_err *err) {
    int rc = tgnn_begin(m, st, ev, e0, B, nneg, err);
    return rc ? rc : m->ops->forward(m, logits, st, g, g_efeat, ev, neg, rng, err);
}

int64_t dgnn_tgnn_embed_dim(const dgnn_tgnn *m) { return m->emb; }

const float *dgnn_tgnn_last_embeddings(const dgnn_tgnn *m) {
    DGNN_ASSERT(!m->no_batch && m->R > 0);
    return m->ops->root_emb(m);
}

/* The kind's own forward over n roots that are the given pairs: R = n (no destination or
 * negative blocks), neighbours sampled only where the embedding reads them (TGN: every
 * root; DyRep and APAN sample for their mails, which an embedding does not write), no
 * link predictor. The workspace is the forward's, so the last batch is forgotten. */
int dgnn_tgnn_embed(dgnn_tgnn *m, float *out, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                    const int32_t *nodes, const double *t, int64_t n, dgnn_err *err) {
    if (n < 0) return dgnn_err_set(err, DGNN_EINVAL, "embed: %lld pairs", (long long)n);
    DGNN_ASSERT(st->mem_dim == m->M && st->mail_dim == m->D && st->num_nodes == m->N);
    for (int64_t i = 0; i < n; i++)
        if (nodes[i] < 0 || nodes[i] >= m->N)
            return dgnn_err_set(err, DGNN_EINVAL, "embed: pair %lld: node %d outside [0, %lld)", (long long)i,
                                nodes[i], (long long)m->N);
    m->no_batch = 1; /* from here on the workspace holds no batch to commit or differentiate */
    if (n == 0) return DGNN_OK;
    m->e0 = 0, m->B = n, m->nneg = 0, m->R = n;
    m->Rs = m->ops->sample == TGNN_SAMPLE_ALL ? n : 0;
    m->backward_ran = 0;
    m->flops = m->flops_nograd = m->flops_wgrad = 0;
    if (m->R > m->capR) {
        int rc = m->ops->ensure(m, m->R, err);
        if (rc) return rc;
    }
    /* a batch sampled ahead (dgnn_tgnn_use_sample) waits for the next forward */
    const dgnn_tgnn_sample *pre = m->pre;
    m->pre = NULL;
    m->emb_nodes = nodes, m->emb_t = t;
    int rc = m->ops->forward(m, NULL, st, g, g_efeat, NULL, NULL, NULL, err);
    m->emb_nodes = NULL, m->emb_t = NULL;
    m->pre = pre;
    if (rc) return rc;
    memcpy(out, m->ops->root_emb(m), (size_t)MUL(n, m->emb) * sizeof(float));
    return DGNN_OK;
}

void dgnn_tgnn_set_grad_hook(dgnn_tgnn *m, dgnn_grad_ready_fn fn, void *ctx) {
    m->grad_hook = fn;
    m->grad_hook_ctx = ctx;
}

/* The declaration order (time encoding, the kind's tensors, link predictor) puts the
 * tensors the embedding's backward finishes at the end of the slab: the kind says where
 * that suffix starts. */
int64_t dgnn_tgnn_grad_split(const dgnn_tgnn *m) { return m->ops->grad_split(m); }

void dgnn_tgnn_backward(dgnn_tgnn *m, const float *dlogits) {
    DGNN_ASSERT(!m->no_batch); /* dgnn_tgnn_embed ran since the last forward */
    m->ops->backward(m, dlogits);
    if (m->ops->backward_updater) {
        if (m->grad_hook) { /* the embedding and the predictor are done */
            const int64_t off = dgnn_tgnn_grad_split(m);
            m->grad_hook(m->grad_hook_ctx, off, m->p.total - off);
        }
        m->ops->backward_updater(m);
    }
    m->backward_ran = 1;
}

void dgnn_tgnn_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    DGNN_ASSERT(!m->no_batch); /* dgnn_tgnn_embed ran since the last forward */
    const double prof_t = dgnn_prof_begin(DGNN_PROF_COMMIT);
    m->ops->commit(m, st, ev);
    dgnn_prof_end(prof_t);
}

