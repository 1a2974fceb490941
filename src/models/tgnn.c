/* tgnn.c: memory-based temporal GNNs (TGN, JODIE, DyRep): parameters, one batch's
 * forward, backward and state commit (see include/dgnn/tgnn.h for the semantics);
 * APAN's model-specific parts are in apan.c (the struct is in tgnn_internal.h).
 *
 * The batch is laid out so that every dense product runs over distinct rows:
 *  - the R = (2 + nneg) B roots and their P valid sampled neighbours are mapped to U
 *    distinct nodes (a stamp array gives O(1) lookups without clearing N entries);
 *  - only the Um <= U nodes with a pending mail run the memory updater;
 *  - attention projects each distinct node's memory once (nn.h's fast path), and only
 *    the time encoding per (root, neighbour) pair.
 * DyRep is TGN's path with an RNN updater, the updated memory as embedding, and the
 * attention run over the 2B true src/dst roots only, for their mails (no backward:
 * nothing downstream of it is differentiated).
 * The forward saves everything backward and commit need in the workspace, which grows
 * to the largest batch seen and is then reused: no allocation per batch. */
#include <stdlib.h>
#include <string.h>

#include "dgnn/sampler.h"
#include "tgnn_internal.h"

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
    if (kind == DGNN_TGNN_APAN) { /* TGL's config/APAN.yml */
        c.mem_dim = c.emb_dim = 100;
        c.attn = DGNN_ATTN_TGL;
    }
    return c;
}

dgnn_params *dgnn_tgnn_params(dgnn_tgnn *m) { return &m->p; }
const dgnn_tgnn_cfg *dgnn_tgnn_config(const dgnn_tgnn *m) { return &m->cfg; }
int64_t dgnn_tgnn_mail_dim(const dgnn_tgnn *m) { return m->D; }
int64_t dgnn_tgnn_mail_slots(const dgnn_tgnn *m) { return m->cfg.kind == DGNN_TGNN_APAN ? m->apan.S : 1; }
double dgnn_tgnn_last_flops(const dgnn_tgnn *m) { return m->flops; }
double dgnn_tgnn_last_sample_seconds(const dgnn_tgnn *m) { return m->sample_seconds; }

static void free_workspace(dgnn_tgnn *m) {
    void *ptrs[] = {m->roots, m->root_t, m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, m->off, m->row_root,
                    m->nbr_row, m->pair_eid, m->pair_dt, m->pair_e, m->unodes, m->mrow, m->h, m->h_t,
                    m->xm, m->hm, m->hout, m->upd_saved, m->h_root, m->te, m->jdt, m->emb_out,
                    m->pred_saved, m->attn_slab, m->demb, m->dh_root, m->dh, m->dte, m->dhm,
                    m->upd_scratch, m->pred_scratch, m->c_dt, m->c_te};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    tgnn_apan_free(m);
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

#define GROW TGNN_GROW

static int uses_attention(dgnn_tgnn_kind kind) { return kind == DGNN_TGNN_TGN || kind == DGNN_TGNN_DYREP; }

/* Sizes the workspace for R roots (P <= R k pairs, U <= R + P nodes); DGNN_ENOMEM
 * naming the sizes when it cannot be had. */
static int ensure(dgnn_tgnn *m, int64_t R, dgnn_err *err) {
    if (R <= m->capR) return DGNN_OK;
    if (m->cfg.kind == DGNN_TGNN_APAN) return tgnn_apan_ensure(m, R, err);
    const int64_t k = uses_attention(m->cfg.kind) ? m->cfg.neighbors : 0;
    const int64_t P = MUL(R, k), U = dgnn_size_add(R, P), M = m->M, T = m->T, D = m->D, E = m->emb;
    dgnn_alloc_set as = {0, 0};
    GROW(&as, m->roots, R);
    GROW(&as, m->root_t, R);
    GROW(&as, m->s_nbr, MUL(R, k));
    GROW(&as, m->s_eid, MUL(R, k));
    GROW(&as, m->s_ts, MUL(R, k));
    GROW(&as, m->s_cnt, R);
    GROW(&as, m->off, dgnn_size_add(R, 1));
    GROW(&as, m->row_root, R);
    GROW(&as, m->nbr_row, P);
    GROW(&as, m->pair_eid, P);
    GROW(&as, m->pair_dt, P);
    GROW(&as, m->pair_e, MUL(P, m->de));
    GROW(&as, m->unodes, U);
    GROW(&as, m->mrow, U);
    GROW(&as, m->h, MUL(U, M));
    GROW(&as, m->h_t, U);
    GROW(&as, m->xm, MUL(U, D));
    GROW(&as, m->hm, MUL(U, M));
    GROW(&as, m->hout, MUL(U, M));
    GROW(&as, m->upd_saved, MUL(MUL(U, 6), M));
    GROW(&as, m->h_root, MUL(R, M));
    GROW(&as, m->te, MUL(P, T));
    GROW(&as, m->jdt, R);
    GROW(&as, m->emb_out, MUL(R, E));
    /* DGNN_EDGEPRED_SAVED(B, nneg, E) = B (2 + nneg) E = R E; its scratch is as large */
    GROW(&as, m->pred_saved, MUL(R, E));
    GROW(&as, m->pred_scratch, MUL(R, E));
    GROW(&as, m->demb, MUL(R, E));
    GROW(&as, m->dh_root, MUL(R, M));
    GROW(&as, m->dh, MUL(U, M));
    GROW(&as, m->dte, MUL(P, T));
    GROW(&as, m->dhm, MUL(U, M));
    GROW(&as, m->upd_scratch, MUL(MUL(U, 6), M));
    GROW(&as, m->c_dt, R);
    GROW(&as, m->c_te, MUL(R, T));
    /* the layout's own products are plain: only sized once the buffers above, as large,
     * were granted (their counts saturate) */
    if (uses_attention(m->cfg.kind) && !as.failed) {
        int64_t n = dgnn_tattn_saved_layout(&m->as, NULL, &m->acfg, R, P, U, P);
        GROW(&as, m->attn_slab, n);
        if (!as.failed) {
            m->attn_slab_n = n;
            dgnn_tattn_saved_layout(&m->as, m->attn_slab, &m->acfg, R, P, U, P);
        }
    }
    int rc = dgnn_alloc_done(&as, err, "the model's workspace of %lld roots (batch %lld x (2 + %lld negatives)) with "
                             "%lld sampled neighbours each, widths memory %lld, time %lld, mail %lld; lower --batch, "
                             "--neighbors or --eval-negatives",
                             (long long)R, (long long)m->B, (long long)m->nneg, (long long)k, (long long)M,
                             (long long)T, (long long)D);
    if (rc) return rc;
    m->capR = R, m->capP = P, m->capU = U;
    return DGNN_OK;
}

static const char *kind_name(dgnn_tgnn_kind kind) {
    switch (kind) {
    case DGNN_TGNN_TGN: return "tgn";
    case DGNN_TGNN_JODIE: return "jodie";
    case DGNN_TGNN_DYREP: return "dyrep";
    case DGNN_TGNN_APAN: return "apan";
    }
    return "?";
}

/* The attention's settings of a configuration (TGN, DyRep): what dgnn_tattn_check sees. */
static dgnn_tattn_cfg attn_cfg(const dgnn_tgnn_cfg *cfg, int64_t de) {
    return (dgnn_tattn_cfg){.kind = cfg->attn, .dn = cfg->mem_dim, .de = de, .dt = cfg->time_dim,
                            .heads = cfg->heads, .dout = cfg->emb_dim, .attn_dropout = cfg->dropout,
                            .dropout = cfg->dropout};
}

int dgnn_tgnn_cfg_check(const dgnn_tgnn_cfg *cfg, dgnn_err *err) {
    const dgnn_tgnn_kind kind = cfg->kind;
    if (kind != DGNN_TGNN_TGN && kind != DGNN_TGNN_JODIE && kind != DGNN_TGNN_DYREP && kind != DGNN_TGNN_APAN)
        return dgnn_err_set(err, DGNN_EINVAL, "model: unknown kind %d", (int)kind);
    if (cfg->mem_dim < 1 || cfg->time_dim < 1 || cfg->emb_dim < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model: --mem-dim, --time-dim and --emb-dim must be >= 1");
    if (kind != DGNN_TGNN_JODIE && cfg->neighbors < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model %s: --neighbors must be >= 1 (got %lld)", kind_name(kind),
                            (long long)cfg->neighbors);
    if (cfg->dropout < 0 || cfg->dropout >= 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model: --dropout must be in [0, 1) (got %g)", (double)cfg->dropout);
    if (kind != DGNN_TGNN_TGN && cfg->emb_dim != cfg->mem_dim)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "model %s: the embedding is the (projected or normalised) memory, so --emb-dim must "
                            "equal --mem-dim (%lld)", kind_name(kind), (long long)cfg->mem_dim);
    if (kind == DGNN_TGNN_APAN && (cfg->heads < 1 || cfg->mem_dim % cfg->heads != 0))
        return dgnn_err_set(err, DGNN_EINVAL, "model apan: --heads (%lld) must divide --mem-dim (%lld)",
                            (long long)cfg->heads, (long long)cfg->mem_dim);
    if (kind == DGNN_TGNN_APAN && (cfg->mail_slots < 1 || cfg->mail_slots > 1024))
        return dgnn_err_set(err, DGNN_EINVAL, "model apan: --mail-slots must be in [1, 1024] (got %lld)",
                            (long long)cfg->mail_slots);
    if (uses_attention(kind)) {
        /* the attention's width does not depend on the edge features' */
        dgnn_tattn_cfg a = attn_cfg(cfg, 0);
        const int64_t E = dgnn_tattn_E(&a);
        if (cfg->heads < 1 || E % cfg->heads != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "model %s: --heads %lld must divide the attention width %lld (%s)",
                                kind_name(kind), (long long)cfg->heads, (long long)E,
                                cfg->attn == DGNN_ATTN_TGN ? "--mem-dim + --time-dim" : "--emb-dim");
        int rc = dgnn_tattn_check(&a, err);
        if (rc) return rc;
    }
    return DGNN_OK;
}

int dgnn_tgnn_init(dgnn_tgnn **out, const dgnn_tgnn_cfg *cfg, int64_t N, int64_t de, dgnn_err *err) {
    *out = NULL;
    const dgnn_tgnn_kind kind = cfg->kind;
    int rc = dgnn_tgnn_cfg_check(cfg, err);
    if (rc) return rc;
    if (N < 0 || de < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "model: bad data sizes (%lld nodes, %lld edge features)", (long long)N,
                            (long long)de);
    dgnn_tgnn *m = dgnn_xcalloc(1, sizeof *m);
    m->cfg = *cfg;
    m->N = N, m->de = de, m->M = cfg->mem_dim, m->T = cfg->time_dim, m->emb = cfg->emb_dim;
    /* TGL's APAN mail has no time part: the updater encodes t - t_mail when it reads */
    m->D = kind == DGNN_TGNN_APAN ? 2 * m->M + de : 2 * m->M + de + m->T;
    m->gates = kind == DGNN_TGNN_TGN ? 3 : 1;
    if (uses_attention(kind)) {
        m->acfg = attn_cfg(cfg, de);
        if ((rc = dgnn_tattn_check(&m->acfg, err))) {
            free(m);
            return rc;
        }
    }
    const int64_t M = m->M, G = m->gates * M;
    dgnn_params *p = &m->p;
    dgnn_params_init(p);
    m->i_te_w = dgnn_params_add1(p, "time_enc.w", m->T);
    m->i_te_b = dgnn_params_add1(p, "time_enc.b", m->T);
    m->i_Wih = m->i_Whh = m->i_bih = m->i_bhh = m->i_attn = m->i_jw = m->i_jb = -1;
    if (kind == DGNN_TGNN_APAN) {
        tgnn_apan_declare(m);
    } else {
        m->i_Wih = dgnn_params_add(p, "memory_updater.W_ih", G, m->D);
        m->i_Whh = dgnn_params_add(p, "memory_updater.W_hh", G, M);
        m->i_bih = dgnn_params_add1(p, "memory_updater.b_ih", G);
        m->i_bhh = dgnn_params_add1(p, "memory_updater.b_hh", G);
    }
    if (uses_attention(kind)) {
        m->i_attn = dgnn_params_add1(p, "attention", dgnn_tattn_params_layout(&m->ap, NULL, &m->acfg));
    } else if (kind == DGNN_TGNN_JODIE) {
        m->i_jw = dgnn_params_add1(p, "time_projection.w", M);
        m->i_jb = dgnn_params_add1(p, "time_projection.b", M);
    }
    /* TGN's affinity score is MergeLayer(emb, emb, emb, 1): one bias on fc1; TGL's
     * EdgePredictor (APAN) has src_fc and dst_fc, a bias each */
    const int with_bd = kind == DGNN_TGNN_APAN;
    m->i_pred = dgnn_params_add1(p, "link_predictor", dgnn_edgepred_layout(&m->pp, NULL, m->emb, m->emb, with_bd));
    if ((rc = dgnn_params_alloc(p, err))) {
        dgnn_params_free(p);
        free(m);
        return rc;
    }
    dgnn_rng rng;
    dgnn_rng_seed(&rng, cfg->seed);
    dgnn_timeenc_init(dgnn_params_get(p, m->i_te_w), dgnn_params_get(p, m->i_te_b), m->T);
    if (kind == DGNN_TGNN_APAN)
        tgnn_apan_init_values(m, &rng);
    else
        dgnn_rnn_cell_init(dgnn_params_get(p, m->i_Wih), dgnn_params_get(p, m->i_Whh), dgnn_params_get(p, m->i_bih),
                           dgnn_params_get(p, m->i_bhh), m->D, M, m->gates, &rng);
    if (uses_attention(kind)) {
        dgnn_tattn_params_layout(&m->ap, dgnn_params_get(p, m->i_attn), &m->acfg);
        dgnn_tattn_params_layout(&m->dap, dgnn_params_grad(p, m->i_attn), &m->acfg);
        dgnn_tattn_init(&m->ap, &m->acfg, &rng);
    } else if (kind == DGNN_TGNN_JODIE) {
        dgnn_jodie_init(dgnn_params_get(p, m->i_jw), dgnn_params_get(p, m->i_jb), M, &rng);
    }
    dgnn_edgepred_layout(&m->pp, dgnn_params_get(p, m->i_pred), m->emb, m->emb, with_bd);
    dgnn_edgepred_layout(&m->dpp, dgnn_params_grad(p, m->i_pred), m->emb, m->emb, with_bd);
    dgnn_edgepred_init(&m->pp, m->emb, m->emb, &rng);

    m->stamp = dgnn_xcalloc((size_t)(N > 0 ? N : 1), sizeof(int32_t));
    m->rowof = dgnn_xcalloc((size_t)(N > 0 ? N : 1), sizeof(int32_t));
    m->te0 = dgnn_xcalloc((size_t)m->T, sizeof(float));
    m->dte0 = dgnn_xcalloc((size_t)m->T, sizeof(float));
    *out = m;
    return DGNN_OK;
}

/* Row of node v in this batch's distinct-node list, adding it when new. */
static inline int32_t node_row(dgnn_tgnn *m, int32_t v) {
    if (m->stamp[v] != m->cur_stamp) {
        m->stamp[v] = m->cur_stamp;
        m->rowof[v] = (int32_t)m->U;
        m->unodes[m->U++] = v;
    }
    return m->rowof[v];
}

int tgnn_fill_roots(int32_t *roots, double *root_t, const dgnn_events *ev, int64_t e0, int64_t B, int64_t R,
                    const int32_t *neg, int64_t N, dgnn_err *err) {
    for (int64_t i = 0; i < R; i++) {
        int64_t blk = i / B, e = e0 + i % B;
        roots[i] = blk == 0 ? ev->src[e] : blk == 1 ? ev->dst[e] : neg[(blk - 2) * B + i % B];
        root_t[i] = ev->t[e];
        if (roots[i] < 0 || roots[i] >= N)
            return dgnn_err_set(err, DGNN_EINVAL, "batch at event %lld: node %d outside [0, %lld)", (long long)e,
                                roots[i], (long long)N);
    }
    return DGNN_OK;
}

int tgnn_set_roots(dgnn_tgnn *m, const dgnn_events *ev, const int32_t *neg, dgnn_err *err) {
    return tgnn_fill_roots(m->roots, m->root_t, ev, m->e0, m->B, m->R, neg, m->N, err);
}

int64_t tgnn_sampled_roots(dgnn_tgnn_kind kind, int64_t B, int64_t R) {
    return kind == DGNN_TGNN_TGN ? R : kind == DGNN_TGNN_JODIE ? 0 : 2 * B;
}

int tgnn_sample(dgnn_tgnn *m, const dgnn_tcsr *g, dgnn_rng *rng, dgnn_err *err) {
    const int64_t R = m->R, Rs = m->Rs, k = m->cfg.neighbors;
    const double t0 = dgnn_now();
    m->off[0] = 0;
    if (m->pre) {
        int rc = tgnn_take_presample(m, err);
        if (rc) return rc;
    } else if (Rs > 0) {
        int rc;
        if (m->cfg.uniform_sampler) {
            uint64_t seed = rng ? dgnn_rng_u64(rng) : dgnn_hash64(m->cfg.seed ^ (uint64_t)m->e0);
            rc = dgnn_sample_uniform(m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, g, m->roots, m->root_t, Rs, (int)k, seed,
                                     err);
        } else {
            rc = dgnn_sample_recent(m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, g, m->roots, m->root_t, Rs, (int)k, err);
        }
        if (rc) return rc;
    }
    for (int64_t i = 0; i < R; i++) m->off[i + 1] = m->off[i] + (i < Rs ? m->s_cnt[i] : 0);
    m->P = m->off[R];
    m->sample_seconds = m->pre_used ? 0 : dgnn_now() - t0;
    m->pre_used = 0;
    return DGNN_OK;
}

void tgnn_new_stamp(dgnn_tgnn *m) {
    m->cur_stamp++;
    if (m->cur_stamp == INT32_MAX) { /* wrap: clear once every 2^31 batches */
        memset(m->stamp, 0, (size_t)m->N * sizeof(int32_t));
        m->cur_stamp = 1;
    }
}

/* Steps 1-3: roots, neighbours, distinct nodes, in-forward memory update. */
static int gather_and_update(dgnn_tgnn *m, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                             const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err) {
    const int64_t R = m->R, Rs = m->Rs, M = m->M, D = m->D, k = m->cfg.neighbors;
    int rc = tgnn_set_roots(m, ev, neg, err);
    if (!rc) rc = tgnn_sample(m, g, rng, err);
    if (rc) return rc;
    /* distinct nodes: roots first, then neighbours */
    tgnn_new_stamp(m);
    m->U = 0;
    for (int64_t i = 0; i < R; i++) m->row_root[i] = node_row(m, m->roots[i]);
    for (int64_t i = 0; i < Rs; i++) {
        for (int64_t j = 0; j < m->s_cnt[i]; j++) {
            int64_t pair = m->off[i] + j, q = i * k + j;
            m->nbr_row[pair] = node_row(m, m->s_nbr[q]);
            m->pair_eid[pair] = m->s_eid[q];
            m->pair_dt[pair] = (float)(m->root_t[i] - m->s_ts[q]);
        }
    }
    if (m->de > 0) {
        for (int64_t pair = 0; pair < m->P; pair++)
            memcpy(m->pair_e + pair * m->de, g_efeat + m->pair_eid[pair] * m->de, (size_t)m->de * sizeof(float));
    }
    /* memory of every distinct node; rows with a pending mail run the updater */
    const int64_t U = m->U;
    m->Um = 0;
    for (int64_t r = 0; r < U; r++) {
        int32_t v = m->unodes[r];
        memcpy(m->h + r * M, st->mem + (int64_t)v * M, (size_t)M * sizeof(float));
        m->h_t[r] = st->mem_t[v];
        double mt;
        const float *mail = dgnn_state_last_mail(st, v, &mt);
        if (mail) {
            int64_t u = m->Um++;
            m->mrow[u] = (int32_t)r;
            memcpy(m->xm + u * D, mail, (size_t)D * sizeof(float));
            memcpy(m->hm + u * M, m->h + r * M, (size_t)M * sizeof(float));
            m->h_t[r] = mt;
        }
    }
    const int64_t Um = m->Um;
    dgnn_params *p = &m->p;
    if (Um > 0) {
        if (m->gates == 3)
            dgnn_gru_forward(m->hout, m->upd_saved, m->xm, m->hm, dgnn_params_get(p, m->i_Wih),
                             dgnn_params_get(p, m->i_Whh), dgnn_params_get(p, m->i_bih), dgnn_params_get(p, m->i_bhh),
                             Um, D, M);
        else
            dgnn_rnn_forward(m->hout, m->xm, m->hm, dgnn_params_get(p, m->i_Wih), dgnn_params_get(p, m->i_Whh),
                             dgnn_params_get(p, m->i_bih), dgnn_params_get(p, m->i_bhh), Um, D, M);
        for (int64_t u = 0; u < Um; u++)
            memcpy(m->h + (int64_t)m->mrow[u] * M, m->hout + u * M, (size_t)M * sizeof(float));
    }
    m->flops += 2.0 * (double)Um * (double)(D + M) * (double)(m->gates * M);
    return DGNN_OK;
}

int dgnn_tgnn_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                      const dgnn_events *ev, int64_t e0, int64_t B, const int32_t *neg, int64_t nneg, dgnn_rng *rng,
                      dgnn_err *err) {
    if (B < 1 || e0 < 0 || e0 + B > ev->num_events || nneg < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "batch [%lld, %lld) outside the %lld events", (long long)e0,
                            (long long)(e0 + B), (long long)ev->num_events);
    DGNN_ASSERT(st->mem_dim == m->M && st->mail_dim == m->D && st->num_nodes == m->N);
    DGNN_ASSERT(ev->edge_dim == m->de);
    m->e0 = e0, m->B = B, m->nneg = nneg, m->R = MUL(B, 2 + nneg);
    const dgnn_tgnn_kind kind = m->cfg.kind;
    m->Rs = tgnn_sampled_roots(kind, B, m->R);
    m->backward_ran = 0;
    m->flops = m->flops_nograd = 0;
    int rc = ensure(m, m->R, err);
    if (rc) return rc;
    if (kind == DGNN_TGNN_APAN) return tgnn_apan_forward(m, logits, st, g, ev, neg, rng, err);
    rc = gather_and_update(m, st, g, g_efeat, ev, neg, rng, err);
    if (rc) return rc;
    const int64_t R = m->R, Rs = m->Rs, M = m->M, T = m->T, E = m->emb, P = m->P;
    dgnn_params *p = &m->p;
    for (int64_t i = 0; i < R; i++)
        memcpy(m->h_root + i * M, m->h + (int64_t)m->row_root[i] * M, (size_t)M * sizeof(float));
    if (uses_attention(kind)) {
        /* TGN: the embedding of every root; DyRep: of the 2B true roots, for their mails */
        const float *w = dgnn_params_get(p, m->i_te_w), *b = dgnn_params_get(p, m->i_te_b);
        float zero = 0;
        dgnn_timeenc_forward(m->te0, &zero, w, b, 1, T);
        dgnn_timeenc_forward(m->te, m->pair_dt, w, b, P, T);
        dgnn_tattn_input in = {.B = Rs, .h_root = m->h_root, .te0 = m->te0, .off = m->off, .Un = m->U,
                               .h_nbr = m->h, .nbr_row = m->nbr_row, .Ue = P,
                               .e_feat = m->de > 0 ? m->pair_e : NULL, .edge_row = NULL, .te = m->te};
        dgnn_tattn_forward(m->emb_out, &m->as, &in, &m->ap, &m->acfg, rng);
        const int64_t Ea = dgnn_tattn_E(&m->acfg), dn = M, dq = M + T, dk = M + m->de + T;
        double f = 2.0 * (double)Rs * dq * Ea                              /* query */
                   + 2.0 * 2.0 * (double)m->U * dn * Ea                   /* node part of k, v */
                   + 2.0 * 2.0 * (double)P * (dk - dn) * Ea               /* edge + time part of k, v */
                   + 2.0 * 2.0 * (double)P * Ea                           /* scores and weighted sum */
                   + 2.0 * (double)Rs * Ea * Ea                           /* out projection */
                   + 2.0 * (double)Rs * (Ea + dn) * dgnn_tattn_hidden(&m->acfg) /* merge fc1 */
                   + 2.0 * (double)Rs * dn * E;                           /* merge fc2 */
        m->flops += f;
        if (kind == DGNN_TGNN_DYREP) m->flops_nograd += f;
    }
    if (kind == DGNN_TGNN_DYREP) {
        /* the embedding is the updated memory (E == M): h_root feeds the predictor */
    } else if (kind == DGNN_TGNN_JODIE) {
        for (int64_t i = 0; i < R; i++) {
            double t = m->root_t[i], tm = m->h_t[m->row_root[i]];
            dgnn_jodie_dt_tgl(m->jdt + i, &t, &tm, 1);
        }
        dgnn_jodie_forward(m->emb_out, m->h_root, m->jdt, dgnn_params_get(p, m->i_jw), dgnn_params_get(p, m->i_jb),
                           R, M);
    }
    const float *emb = kind == DGNN_TGNN_DYREP ? m->h_root : m->emb_out; /* (R, E) */
    dgnn_edgepred_forward(logits, m->pred_saved, emb, emb + B * E, &m->pp, B, nneg, E, E);
    m->flops += 2.0 * (double)B * E * E + 2.0 * (double)B * (1 + nneg) * E * E + 2.0 * (double)B * (1 + nneg) * E;
    return DGNN_OK;
}

void dgnn_tgnn_set_grad_hook(dgnn_tgnn *m, dgnn_grad_ready_fn fn, void *ctx) {
    m->grad_hook = fn;
    m->grad_hook_ctx = ctx;
}

/* Declaration order (see the declare step): time encoding, memory updater, then the
 * attention / time projection and the link predictor: that suffix is final once the
 * embedding's backward is done. */
int64_t dgnn_tgnn_grad_split(const dgnn_tgnn *m) {
    if (m->cfg.kind == DGNN_TGNN_APAN) return m->p.total;
    const int first = m->cfg.kind == DGNN_TGNN_JODIE ? m->i_jw : m->cfg.kind == DGNN_TGNN_TGN ? m->i_attn : m->i_pred;
    return m->p.t[first].offset;
}

void dgnn_tgnn_backward(dgnn_tgnn *m, const float *dlogits) {
    const dgnn_tgnn_kind kind = m->cfg.kind;
    if (kind == DGNN_TGNN_APAN) {
        tgnn_apan_backward(m, dlogits);
        m->backward_ran = 1;
        return;
    }
    const int64_t B = m->B, R = m->R, M = m->M, T = m->T, E = m->emb, P = m->P, U = m->U, Um = m->Um, D = m->D;
    dgnn_params *p = &m->p;
    memset(m->dh_root, 0, (size_t)(R * M) * sizeof(float));
    memset(m->dh, 0, (size_t)(U * M) * sizeof(float));
    if (kind == DGNN_TGNN_DYREP) {
        /* the predictor read the updated memory directly; the attention fed only the
         * mails (constants for later batches): nothing to differentiate there */
        dgnn_edgepred_backward(m->dh_root, m->dh_root + B * M, &m->dpp, m->pred_scratch, dlogits, m->pred_saved,
                               m->h_root, m->h_root + B * M, &m->pp, B, m->nneg, E, E);
    } else {
        memset(m->demb, 0, (size_t)(R * E) * sizeof(float));
        dgnn_edgepred_backward(m->demb, m->demb + B * E, &m->dpp, m->pred_scratch, dlogits, m->pred_saved,
                               m->emb_out, m->emb_out + B * E, &m->pp, B, m->nneg, E, E);
    }
    if (kind == DGNN_TGNN_TGN) {
        memset(m->dte, 0, (size_t)(P * T) * sizeof(float));
        memset(m->dte0, 0, (size_t)T * sizeof(float));
        dgnn_tattn_input in = {.B = R, .h_root = m->h_root, .te0 = m->te0, .off = m->off, .Un = U,
                               .h_nbr = m->h, .nbr_row = m->nbr_row, .Ue = P,
                               .e_feat = m->de > 0 ? m->pair_e : NULL, .edge_row = NULL, .te = m->te};
        dgnn_tattn_dinput din = {.h_root = m->dh_root, .te0 = m->dte0, .h_nbr = m->dh, .e_feat = NULL, .te = m->dte};
        dgnn_tattn_backward(&din, &m->dap, m->demb, &m->as, &in, &m->ap, &m->acfg);
        const float *w = dgnn_params_get(p, m->i_te_w), *b = dgnn_params_get(p, m->i_te_b);
        float *dw = dgnn_params_grad(p, m->i_te_w), *db = dgnn_params_grad(p, m->i_te_b);
        float zero = 0;
        dgnn_timeenc_backward(dw, db, m->dte, m->pair_dt, w, b, P, T);
        dgnn_timeenc_backward(dw, db, m->dte0, &zero, w, b, 1, T);
    } else if (kind == DGNN_TGNN_JODIE) {
        dgnn_jodie_backward(m->dh_root, dgnn_params_grad(p, m->i_jw), dgnn_params_grad(p, m->i_jb), m->demb,
                            m->h_root, m->jdt, dgnn_params_get(p, m->i_jw), dgnn_params_get(p, m->i_jb), R, M);
    }
    if (m->grad_hook) { /* the embedding and the predictor are done */
        const int64_t off = dgnn_tgnn_grad_split(m);
        m->grad_hook(m->grad_hook_ctx, off, p->total - off);
    }
    /* roots share rows (a node can be a root several times): sum serially, in root
     * order, so the result does not depend on the thread count */
    for (int64_t i = 0; i < R; i++) {
        float *d = m->dh + (int64_t)m->row_root[i] * M;
        const float *s = m->dh_root + i * M;
        for (int64_t c = 0; c < M; c++) d[c] += s[c];
    }
    /* through the in-forward memory update; stored memory and mails are constants */
    if (Um > 0) {
        for (int64_t u = 0; u < Um; u++)
            memcpy(m->dhm + u * M, m->dh + (int64_t)m->mrow[u] * M, (size_t)M * sizeof(float));
        if (m->gates == 3)
            dgnn_gru_backward(NULL, NULL, dgnn_params_grad(p, m->i_Wih), dgnn_params_grad(p, m->i_Whh),
                              dgnn_params_grad(p, m->i_bih), dgnn_params_grad(p, m->i_bhh), m->upd_scratch, m->dhm,
                              m->upd_saved, m->xm, m->hm, dgnn_params_get(p, m->i_Wih), dgnn_params_get(p, m->i_Whh),
                              Um, D, M);
        else
            dgnn_rnn_backward(NULL, NULL, dgnn_params_grad(p, m->i_Wih), dgnn_params_grad(p, m->i_Whh),
                              dgnn_params_grad(p, m->i_bih), dgnn_params_grad(p, m->i_bhh), m->upd_scratch, m->dhm,
                              m->hout, m->xm, m->hm, dgnn_params_get(p, m->i_Wih), dgnn_params_get(p, m->i_Whh), Um,
                              D, M);
    }
    /* the usual rule: a backward costs about twice its forward's products */
    m->flops = 3.0 * (m->flops - m->flops_nograd) + m->flops_nograd;
    m->backward_ran = 1;
}

void dgnn_tgnn_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    if (m->cfg.kind == DGNN_TGNN_APAN) {
        tgnn_apan_commit(m, st, ev);
        return;
    }
    const int64_t B = m->B, M = m->M, T = m->T, D = m->D, de = m->de;
    const int dyrep = m->cfg.kind == DGNN_TGNN_DYREP;
    /* 1. the batch's true src/dst nodes (roots 0..2B-1) keep their updated memory
     *    and drop the mail it consumed (a node seen twice is persisted once) */
    for (int64_t i = 0; i < 2 * B; i++) {
        int32_t r = m->row_root[i], v = m->roots[i];
        if (st->mail_n[v] == 0) continue; /* no pending mail, or already persisted */
        memcpy(st->mem + (int64_t)v * M, m->h + (int64_t)r * M, (size_t)M * sizeof(float));
        st->mem_t[v] = m->h_t[r];
        dgnn_state_clear_mails(st, &v, 1);
    }
    /* 2. mails [mem_self, mem_other, edge features, time_enc(t - t_mem_self)]: all
     *    sources' mails, then all destinations' (the TGN code's order), "last" per node.
     *    DyRep: [mem_self, attention embedding of the other endpoint (root i + B for a
     *    source, i - B for a destination), ...].
     *    The xm buffer (U >= 2B rows of D) is free again and holds them. */
    float *mails = m->xm;      /* (U >= 2B, D) */
    int32_t *nodes = m->unodes; /* (U >= 2B) */
    double *ts = m->h_t;        /* (U >= 2B) */
    for (int64_t i = 0; i < 2 * B; i++) {
        int64_t e = m->e0 + i % B;
        int32_t self = i < B ? ev->src[e] : ev->dst[e], other = i < B ? ev->dst[e] : ev->src[e];
        float *row = mails + i * D;
        memcpy(row, st->mem + (int64_t)self * M, (size_t)M * sizeof(float));
        const float *o = dyrep ? m->emb_out + (i < B ? i + B : i - B) * M : st->mem + (int64_t)other * M;
        memcpy(row + M, o, (size_t)M * sizeof(float));
        if (de > 0) memcpy(row + 2 * M, ev->efeat + e * de, (size_t)de * sizeof(float));
        m->c_dt[i] = (float)(ev->t[e] - st->mem_t[self]);
        nodes[i] = self;
        ts[i] = ev->t[e];
    }
    /* the time encodings of all 2B mails in one call, then into each mail's last T columns */
    dgnn_timeenc_forward(m->c_te, m->c_dt, dgnn_params_get(&m->p, m->i_te_w), dgnn_params_get(&m->p, m->i_te_b),
                         2 * B, T);
    for (int64_t i = 0; i < 2 * B; i++) memcpy(mails + i * D + 2 * M + de, m->c_te + i * T, (size_t)T * sizeof(float));
    dgnn_state_push_mails(st, nodes, mails, ts, 2 * B, DGNN_AGG_LAST);
}
