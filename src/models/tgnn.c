/* tgnn.c: memory-based temporal GNNs (TGN, JODIE): parameters, one batch's forward,
 * backward and state commit (see include/dgnn/tgnn.h for the semantics).
 *
 * The batch is laid out so that every dense product runs over distinct rows:
 *  - the R = (2 + nneg) B roots and their P valid sampled neighbours are mapped to U
 *    distinct nodes (a stamp array gives O(1) lookups without clearing N entries);
 *  - only the Um <= U nodes with a pending mail run the memory updater;
 *  - attention projects each distinct node's memory once (nn.h's fast path), and only
 *    the time encoding per (root, neighbour) pair.
 * The forward saves everything backward and commit need in the workspace, which grows
 * to the largest batch seen and is then reused: no allocation per batch. */
#include "dgnn/tgnn.h"

#include <stdlib.h>
#include <string.h>

#include "dgnn/sampler.h"

struct dgnn_tgnn {
    dgnn_tgnn_cfg cfg;
    int64_t N, de, M, T, D, emb;
    dgnn_params p;
    int i_te_w, i_te_b, i_Wih, i_Whh, i_bih, i_bhh, i_attn, i_pred, i_jw, i_jb;
    dgnn_tattn_cfg acfg;
    dgnn_tattn_params ap, dap;
    dgnn_edgepred_params pp, dpp;
    int gates; /* 3: GRU, 1: RNN */

    /* node map: rowof[v] is valid when stamp[v] == cur_stamp */
    int32_t *stamp, *rowof;
    int32_t cur_stamp;

    /* workspace capacities and arrays (R roots, P pairs, U nodes) */
    int64_t capR, capP, capU;
    int32_t *roots;     /* (R) */
    double *root_t;     /* (R) */
    int32_t *s_nbr;     /* (R, k) sampler output */
    int64_t *s_eid;     /* (R, k) */
    double *s_ts;       /* (R, k) */
    int32_t *s_cnt;     /* (R) */
    int64_t *off;       /* (R+1) */
    int32_t *row_root;  /* (R) U-row of each root */
    int32_t *nbr_row;   /* (P) U-row of each pair's neighbour */
    int64_t *pair_eid;  /* (P) */
    float *pair_dt;     /* (P) root time - neighbour event time */
    float *pair_e;      /* (P, de) edge features of each pair */
    int32_t *unodes;    /* (U) node id of each row */
    int32_t *mrow;      /* (U) rows with a pending mail: first Um entries */
    float *h;           /* (U, M) memory after the in-forward update */
    double *h_t;        /* (U) its time */
    float *xm, *hm;     /* (U, D), (U, M) updater inputs of the Um rows */
    float *hout;        /* (U, M) updater output */
    float *upd_saved;   /* (U, 6M) GRU gates */
    float *h_root;      /* (R, M) */
    float *te;          /* (P, T) */
    float *te0;         /* (T) */
    float *jdt;         /* (R) JODIE's normalised time difference */
    float *emb_out;     /* (R, emb) */
    float *pred_saved;  /* edgepred saved */
    float *attn_slab;   /* tattn saved + scratch */
    int64_t attn_slab_n;
    dgnn_tattn_saved as;
    /* backward scratch */
    float *demb, *dh_root, *dh, *dte, *dte0, *dhm, *upd_scratch, *pred_scratch;
    /* commit: time differences (R >= 2B) and their encodings (R, T) */
    float *c_dt, *c_te;

    /* the last batch */
    int64_t e0, B, nneg, R, P, U, Um;
    int backward_ran;
    double flops;
};

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
    return c;
}

dgnn_params *dgnn_tgnn_params(dgnn_tgnn *m) { return &m->p; }
const dgnn_tgnn_cfg *dgnn_tgnn_config(const dgnn_tgnn *m) { return &m->cfg; }
int64_t dgnn_tgnn_mail_dim(const dgnn_tgnn *m) { return m->D; }
double dgnn_tgnn_last_flops(const dgnn_tgnn *m) { return m->flops; }

static void free_workspace(dgnn_tgnn *m) {
    void *ptrs[] = {m->roots, m->root_t, m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, m->off, m->row_root,
                    m->nbr_row, m->pair_eid, m->pair_dt, m->pair_e, m->unodes, m->mrow, m->h, m->h_t,
                    m->xm, m->hm, m->hout, m->upd_saved, m->h_root, m->te, m->jdt, m->emb_out,
                    m->pred_saved, m->attn_slab, m->demb, m->dh_root, m->dh, m->dte, m->dhm,
                    m->upd_scratch, m->pred_scratch, m->c_dt, m->c_te};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
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

#define GROW(ptr, n) ((ptr) = dgnn_xrealloc((ptr), (size_t)((n) > 0 ? (n) : 1) * sizeof(*(ptr))))

/* Sizes the workspace for R roots (P <= R k pairs, U <= R + P nodes). */
static void ensure(dgnn_tgnn *m, int64_t R) {
    if (R <= m->capR) return;
    const int64_t k = m->cfg.kind == DGNN_TGNN_TGN ? m->cfg.neighbors : 0;
    const int64_t P = R * k, U = R + P, M = m->M, T = m->T, D = m->D, E = m->emb;
    GROW(m->roots, R);
    GROW(m->root_t, R);
    GROW(m->s_nbr, R * k);
    GROW(m->s_eid, R * k);
    GROW(m->s_ts, R * k);
    GROW(m->s_cnt, R);
    GROW(m->off, R + 1);
    GROW(m->row_root, R);
    GROW(m->nbr_row, P);
    GROW(m->pair_eid, P);
    GROW(m->pair_dt, P);
    GROW(m->pair_e, P * m->de);
    GROW(m->unodes, U);
    GROW(m->mrow, U);
    GROW(m->h, U * M);
    GROW(m->h_t, U);
    GROW(m->xm, U * D);
    GROW(m->hm, U * M);
    GROW(m->hout, U * M);
    GROW(m->upd_saved, U * 6 * M);
    GROW(m->h_root, R * M);
    GROW(m->te, P * T);
    GROW(m->jdt, R);
    GROW(m->emb_out, R * E);
    /* DGNN_EDGEPRED_SAVED(B, nneg, E) = B (2 + nneg) E = R E; its scratch is as large */
    GROW(m->pred_saved, R * E);
    GROW(m->pred_scratch, R * E);
    GROW(m->demb, R * E);
    GROW(m->dh_root, R * M);
    GROW(m->dh, U * M);
    GROW(m->dte, P * T);
    GROW(m->dhm, U * M);
    GROW(m->upd_scratch, U * 6 * M);
    GROW(m->c_dt, R);
    GROW(m->c_te, R * T);
    if (m->cfg.kind == DGNN_TGNN_TGN) {
        int64_t n = dgnn_tattn_saved_layout(&m->as, NULL, &m->acfg, R, P, U, P);
        GROW(m->attn_slab, n);
        m->attn_slab_n = n;
        dgnn_tattn_saved_layout(&m->as, m->attn_slab, &m->acfg, R, P, U, P);
    }
    m->capR = R, m->capP = P, m->capU = U;
}

int dgnn_tgnn_init(dgnn_tgnn **out, const dgnn_tgnn_cfg *cfg, int64_t N, int64_t de, dgnn_err *err) {
    *out = NULL;
    if (cfg->mem_dim < 1 || cfg->time_dim < 1 || cfg->emb_dim < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model: --mem-dim, --time-dim and --emb-dim must be >= 1");
    if (cfg->kind == DGNN_TGNN_TGN && cfg->neighbors < 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model tgn: --neighbors must be >= 1 (got %lld)",
                            (long long)cfg->neighbors);
    if (cfg->dropout < 0 || cfg->dropout >= 1)
        return dgnn_err_set(err, DGNN_EINVAL, "model: --dropout must be in [0, 1) (got %g)", (double)cfg->dropout);
    if (cfg->kind == DGNN_TGNN_JODIE && cfg->emb_dim != cfg->mem_dim)
        return dgnn_err_set(err, DGNN_EINVAL, "model jodie: the embedding is the projected memory, so --emb-dim "
                                              "must equal --mem-dim (%lld)", (long long)cfg->mem_dim);
    dgnn_tgnn *m = dgnn_xcalloc(1, sizeof *m);
    m->cfg = *cfg;
    m->N = N, m->de = de, m->M = cfg->mem_dim, m->T = cfg->time_dim, m->emb = cfg->emb_dim;
    m->D = 2 * m->M + de + m->T;
    m->gates = cfg->kind == DGNN_TGNN_TGN ? 3 : 1;
    if (cfg->kind == DGNN_TGNN_TGN) {
        m->acfg = (dgnn_tattn_cfg){.kind = cfg->attn, .dn = m->M, .de = de, .dt = m->T, .heads = cfg->heads,
                                   .dout = m->emb, .attn_dropout = cfg->dropout, .dropout = cfg->dropout};
        int rc = dgnn_tattn_check(&m->acfg, err);
        if (rc) {
            free(m);
            return rc;
        }
    }
    const int64_t M = m->M, G = m->gates * M;
    dgnn_params *p = &m->p;
    dgnn_params_init(p);
    m->i_te_w = dgnn_params_add1(p, "time_enc.w", m->T);
    m->i_te_b = dgnn_params_add1(p, "time_enc.b", m->T);
    m->i_Wih = dgnn_params_add(p, "memory_updater.W_ih", G, m->D);
    m->i_Whh = dgnn_params_add(p, "memory_updater.W_hh", G, M);
    m->i_bih = dgnn_params_add1(p, "memory_updater.b_ih", G);
    m->i_bhh = dgnn_params_add1(p, "memory_updater.b_hh", G);
    m->i_attn = m->i_jw = m->i_jb = -1;
    if (cfg->kind == DGNN_TGNN_TGN) {
        m->i_attn = dgnn_params_add1(p, "attention", dgnn_tattn_params_layout(&m->ap, NULL, &m->acfg));
    } else {
        m->i_jw = dgnn_params_add1(p, "time_projection.w", M);
        m->i_jb = dgnn_params_add1(p, "time_projection.b", M);
    }
    /* TGN's affinity score is MergeLayer(emb, emb, emb, 1): one bias on fc1 */
    m->i_pred = dgnn_params_add1(p, "link_predictor", dgnn_edgepred_layout(&m->pp, NULL, m->emb, m->emb, 0));
    int rc = dgnn_params_alloc(p, err);
    if (rc) {
        dgnn_params_free(p);
        free(m);
        return rc;
    }
    dgnn_rng rng;
    dgnn_rng_seed(&rng, cfg->seed);
    dgnn_timeenc_init(dgnn_params_get(p, m->i_te_w), dgnn_params_get(p, m->i_te_b), m->T);
    dgnn_rnn_cell_init(dgnn_params_get(p, m->i_Wih), dgnn_params_get(p, m->i_Whh), dgnn_params_get(p, m->i_bih),
                       dgnn_params_get(p, m->i_bhh), m->D, M, m->gates, &rng);
    if (cfg->kind == DGNN_TGNN_TGN) {
        dgnn_tattn_params_layout(&m->ap, dgnn_params_get(p, m->i_attn), &m->acfg);
        dgnn_tattn_params_layout(&m->dap, dgnn_params_grad(p, m->i_attn), &m->acfg);
        dgnn_tattn_init(&m->ap, &m->acfg, &rng);
    } else {
        dgnn_jodie_init(dgnn_params_get(p, m->i_jw), dgnn_params_get(p, m->i_jb), M, &rng);
    }
    dgnn_edgepred_layout(&m->pp, dgnn_params_get(p, m->i_pred), m->emb, m->emb, 0);
    dgnn_edgepred_layout(&m->dpp, dgnn_params_grad(p, m->i_pred), m->emb, m->emb, 0);
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

/* Steps 1-3: roots, neighbours, distinct nodes, in-forward memory update. */
static int gather_and_update(dgnn_tgnn *m, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                             const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err) {
    const int64_t B = m->B, R = m->R, M = m->M, D = m->D, k = m->cfg.neighbors;
    for (int64_t i = 0; i < R; i++) {
        int64_t blk = i / B, e = m->e0 + i % B;
        m->roots[i] = blk == 0 ? ev->src[e] : blk == 1 ? ev->dst[e] : neg[(blk - 2) * B + i % B];
        m->root_t[i] = ev->t[e];
        if (m->roots[i] < 0 || m->roots[i] >= m->N)
            return dgnn_err_set(err, DGNN_EINVAL, "batch at event %lld: node %d outside [0, %lld)", (long long)e,
                                m->roots[i], (long long)m->N);
    }
    m->P = 0;
    m->off[0] = 0;
    if (m->cfg.kind == DGNN_TGNN_TGN) {
        int rc;
        if (m->cfg.uniform_sampler) {
            uint64_t seed = rng ? dgnn_rng_u64(rng) : dgnn_hash64(m->cfg.seed ^ (uint64_t)m->e0);
            rc = dgnn_sample_uniform(m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, g, m->roots, m->root_t, R, (int)k, seed,
                                     err);
        } else {
            rc = dgnn_sample_recent(m->s_nbr, m->s_eid, m->s_ts, m->s_cnt, g, m->roots, m->root_t, R, (int)k, err);
        }
        if (rc) return rc;
        for (int64_t i = 0; i < R; i++) m->off[i + 1] = m->off[i] + m->s_cnt[i];
        m->P = m->off[R];
    } else {
        for (int64_t i = 0; i < R; i++) m->off[i + 1] = 0;
    }
    /* distinct nodes: roots first, then neighbours */
    m->cur_stamp++;
    if (m->cur_stamp == INT32_MAX) { /* wrap: clear once every 2^31 batches */
        memset(m->stamp, 0, (size_t)m->N * sizeof(int32_t));
        m->cur_stamp = 1;
    }
    m->U = 0;
    for (int64_t i = 0; i < R; i++) m->row_root[i] = node_row(m, m->roots[i]);
    for (int64_t i = 0; i < R; i++) {
        for (int64_t j = 0; j < m->s_cnt[i] && m->cfg.kind == DGNN_TGNN_TGN; j++) {
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
    m->e0 = e0, m->B = B, m->nneg = nneg, m->R = B * (2 + nneg);
    m->backward_ran = 0;
    m->flops = 0;
    ensure(m, m->R);
    int rc = gather_and_update(m, st, g, g_efeat, ev, neg, rng, err);
    if (rc) return rc;
    const int64_t R = m->R, M = m->M, T = m->T, E = m->emb, P = m->P;
    dgnn_params *p = &m->p;
    for (int64_t i = 0; i < R; i++)
        memcpy(m->h_root + i * M, m->h + (int64_t)m->row_root[i] * M, (size_t)M * sizeof(float));
    if (m->cfg.kind == DGNN_TGNN_TGN) {
        const float *w = dgnn_params_get(p, m->i_te_w), *b = dgnn_params_get(p, m->i_te_b);
        float zero = 0;
        dgnn_timeenc_forward(m->te0, &zero, w, b, 1, T);
        dgnn_timeenc_forward(m->te, m->pair_dt, w, b, P, T);
        dgnn_tattn_input in = {.B = R, .h_root = m->h_root, .te0 = m->te0, .off = m->off, .Un = m->U,
                               .h_nbr = m->h, .nbr_row = m->nbr_row, .Ue = P,
                               .e_feat = m->de > 0 ? m->pair_e : NULL, .edge_row = NULL, .te = m->te};
        dgnn_tattn_forward(m->emb_out, &m->as, &in, &m->ap, &m->acfg, rng);
        const int64_t Ea = dgnn_tattn_E(&m->acfg), dn = M, dq = M + T, dk = M + m->de + T;
        m->flops += 2.0 * (double)R * dq * Ea                              /* query */
                    + 2.0 * 2.0 * (double)m->U * dn * Ea                   /* node part of k, v */
                    + 2.0 * 2.0 * (double)P * (dk - dn) * Ea               /* edge + time part of k, v */
                    + 2.0 * 2.0 * (double)P * Ea                           /* scores and weighted sum */
                    + 2.0 * (double)R * Ea * Ea                            /* out projection */
                    + 2.0 * (double)R * (Ea + dn) * dgnn_tattn_hidden(&m->acfg) /* merge fc1 */
                    + 2.0 * (double)R * dn * E;                            /* merge fc2 */
    } else {
        for (int64_t i = 0; i < R; i++) {
            double t = m->root_t[i], tm = m->h_t[m->row_root[i]];
            dgnn_jodie_dt_tgl(m->jdt + i, &t, &tm, 1);
        }
        dgnn_jodie_forward(m->emb_out, m->h_root, m->jdt, dgnn_params_get(p, m->i_jw), dgnn_params_get(p, m->i_jb),
                           R, M);
    }
    dgnn_edgepred_forward(logits, m->pred_saved, m->emb_out, m->emb_out + B * E, &m->pp, B, nneg, E, E);
    m->flops += 2.0 * (double)B * E * E + 2.0 * (double)B * (1 + nneg) * E * E + 2.0 * (double)B * (1 + nneg) * E;
    return DGNN_OK;
}

void dgnn_tgnn_backward(dgnn_tgnn *m, const float *dlogits) {
    const int64_t B = m->B, R = m->R, M = m->M, T = m->T, E = m->emb, P = m->P, U = m->U, Um = m->Um, D = m->D;
    dgnn_params *p = &m->p;
    memset(m->demb, 0, (size_t)(R * E) * sizeof(float));
    dgnn_edgepred_backward(m->demb, m->demb + B * E, &m->dpp, m->pred_scratch, dlogits, m->pred_saved, m->emb_out,
                           m->emb_out + B * E, &m->pp, B, m->nneg, E, E);
    memset(m->dh_root, 0, (size_t)(R * M) * sizeof(float));
    memset(m->dh, 0, (size_t)(U * M) * sizeof(float));
    if (m->cfg.kind == DGNN_TGNN_TGN) {
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
    } else {
        dgnn_jodie_backward(m->dh_root, dgnn_params_grad(p, m->i_jw), dgnn_params_grad(p, m->i_jb), m->demb,
                            m->h_root, m->jdt, dgnn_params_get(p, m->i_jw), dgnn_params_get(p, m->i_jb), R, M);
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
    m->flops *= 3.0;
    m->backward_ran = 1;
}

void dgnn_tgnn_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    const int64_t B = m->B, M = m->M, T = m->T, D = m->D, de = m->de;
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
     *    The xm buffer (U >= 2B rows of D) is free again and holds them. */
    float *mails = m->xm;      /* (U >= 2B, D) */
    int32_t *nodes = m->unodes; /* (U >= 2B) */
    double *ts = m->h_t;        /* (U >= 2B) */
    for (int64_t i = 0; i < 2 * B; i++) {
        int64_t e = m->e0 + i % B;
        int32_t self = i < B ? ev->src[e] : ev->dst[e], other = i < B ? ev->dst[e] : ev->src[e];
        float *row = mails + i * D;
        memcpy(row, st->mem + (int64_t)self * M, (size_t)M * sizeof(float));
        memcpy(row + M, st->mem + (int64_t)other * M, (size_t)M * sizeof(float));
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
