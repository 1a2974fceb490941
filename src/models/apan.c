/* apan.c: APAN as TGL builds it (config/APAN.yml; memorys.py's TransformerMemoryUpdater
 * and MailBox.update_mailbox with deliver_to 'neighbors'; layers.py's IdentityNormLayer
 * and EdgePredictor). The semantics are stated in include/dgnn/tgnn.h; this file holds
 * APAN's checks, parameters, forward, backward and commit behind its ops table
 * (tgnn_internal.h). The shared batch steps (roots, neighbour sampling, the node-map
 * stamp) are in tgnn_batch.c.
 *
 * Layout of one batch: the R roots map to U rows, one per distinct (node, root time):
 * TGL updates every root (duplicates included) and the update depends on the root
 * time through time_enc(t - t_mail), so two roots share a row exactly when they have
 * the same node and time. Each row attends over its node's S mail slots; the keys and
 * values read x = [mail; time_enc(t - t_mail)] (U S rows). Dropout is drawn per row,
 * not per root (TGL draws per root): the only difference duplicated roots could show.
 *
 * Backward runs from the link predictor through both layer norms, the MLP and the
 * attention into the parameters; the stored memory and mails are constants (the
 * residual's memory term gets no gradient). The time encoding gets its gradient from
 * the time columns of x only: dte = dK Wk[:, Dm:] + dV Wv[:, Dm:], one strided sgemm
 * each, rather than a full dx that would be mostly thrown away. */
#include <stdlib.h>
#include <string.h>

#include "tgnn_internal.h"

#define PAR_MIN 16384 /* elements below which a loop is not worth a parallel region */

/* TGL's config/APAN.yml: memory = embedding 100, TGL's attention. */
static void apan_defaults(dgnn_tgnn_cfg *c) {
    c->mem_dim = c->emb_dim = 100;
    c->attn = DGNN_ATTN_TGL;
}

static int apan_check(const dgnn_tgnn_cfg *cfg, dgnn_err *err) {
    if (cfg->heads < 1 || cfg->mem_dim % cfg->heads != 0)
        return dgnn_err_set(err, DGNN_EINVAL, "model apan: --heads (%lld) must divide --mem-dim (%lld)",
                            (long long)cfg->heads, (long long)cfg->mem_dim);
    if (cfg->mail_slots < 1 || cfg->mail_slots > 1024)
        return dgnn_err_set(err, DGNN_EINVAL, "model apan: --mail-slots must be in [1, 1024] (got %lld)",
                            (long long)cfg->mail_slots);
    return DGNN_OK;
}

/* declared after the time encoding (then tgnn.c's link predictor) */
static void apan_declare(dgnn_tgnn *m) {
    tgnn_apan *a = &m->apan;
    tgnn_tensors *w = &m->w, *dw = &m->dw;
    const int64_t M = m->M;
    a->S = m->cfg.mail_slots;
    a->Dm = 2 * M + m->de;
    a->Dx = a->Dm + m->T;
    m->mail_slots = a->S;
    tgnn_param(m, &w->wq, &dw->wq, "memory_updater.w_q", M, M);
    tgnn_param1(m, &w->bq, &dw->bq, "memory_updater.b_q", M);
    tgnn_param(m, &w->wk, &dw->wk, "memory_updater.w_k", M, a->Dx);
    tgnn_param1(m, &w->bk, &dw->bk, "memory_updater.b_k", M);
    tgnn_param(m, &w->wv, &dw->wv, "memory_updater.w_v", M, a->Dx);
    tgnn_param1(m, &w->bv, &dw->bv, "memory_updater.b_v", M);
    tgnn_param1(m, &w->ln1_g, &dw->ln1_g, "memory_updater.layer_norm.g", M);
    tgnn_param1(m, &w->ln1_b, &dw->ln1_b, "memory_updater.layer_norm.b", M);
    tgnn_param(m, &w->mlp_w, &dw->mlp_w, "memory_updater.mlp.W", M, M);
    tgnn_param1(m, &w->mlp_b, &dw->mlp_b, "memory_updater.mlp.b", M);
    tgnn_param1(m, &w->ln2_g, &dw->ln2_g, "embedding_norm.g", M);
    tgnn_param1(m, &w->ln2_b, &dw->ln2_b, "embedding_norm.b", M);
}

/* torch's defaults: Linear U(+-1/sqrt(fan_in)) for weights and biases, drawn weight then
 * bias (dgnn_linear_init; every fan_in here is >= 1), LayerNorm 1 and 0. */
static void apan_init_values(dgnn_tgnn *m, dgnn_rng *rng) {
    const tgnn_tensors *w = &m->w;
    const int64_t M = m->M, Dx = m->apan.Dx;
    dgnn_linear_init(w->wq, w->bq, M, M, rng);
    dgnn_linear_init(w->wk, w->bk, Dx, M, rng);
    dgnn_linear_init(w->wv, w->bv, Dx, M, rng);
    dgnn_init_const(w->ln1_g, M, 1.0f);
    dgnn_init_const(w->ln1_b, M, 0.0f);
    dgnn_linear_init(w->mlp_w, w->mlp_b, M, M, rng);
    dgnn_init_const(w->ln2_g, M, 1.0f);
    dgnn_init_const(w->ln2_b, M, 0.0f);
}

static int apan_ensure(dgnn_tgnn *m, int64_t R, dgnn_err *err) {
    tgnn_apan *a = &m->apan;
    /* U <= R rows; neighbours are sampled for 2B <= R roots, so P <= R k */
    const int64_t k = m->cfg.neighbors, M = m->M, T = m->T, S = a->S, H = m->cfg.heads;
    const int64_t U = R, US = MUL(U, S), P = MUL(R, k);
    dgnn_alloc_set as = {0, 0};
    tgnn_batch_grow(m, &as, R, k);
    TGNN_GROW(&as, m->unodes, U);
    TGNN_GROW(&as, m->h, MUL(U, M));
    TGNN_GROW(&as, m->h_t, U);
    TGNN_GROW(&as, m->pred_saved, MUL(R, M)); /* DGNN_EDGEPRED_SAVED(B, nneg, M) = R M */
    TGNN_GROW(&as, m->pred_scratch, MUL(R, M));
    TGNN_GROW(&as, a->next_row, U);
    TGNN_GROW(&as, a->aoff, dgnn_size_add(U, 1));
    TGNN_GROW(&as, a->x, MUL(US, a->Dx));
    TGNN_GROW(&as, a->dt, US);
    TGNN_GROW(&as, a->q, MUL(U, M));
    TGNN_GROW(&as, a->k, MUL(US, M));
    TGNN_GROW(&as, a->v, MUL(US, M));
    TGNN_GROW(&as, a->logit, MUL(US, H));
    TGNN_GROW(&as, a->att, MUL(US, H));
    TGNN_GROW(&as, a->att_mask, MUL(US, H));
    TGNN_GROW(&as, a->a, MUL(U, M));
    TGNN_GROW(&as, a->ln1_mean, U);
    TGNN_GROW(&as, a->ln1_rstd, U);
    TGNN_GROW(&as, a->n1, MUL(U, M));
    TGNN_GROW(&as, a->z, MUL(U, M));
    TGNN_GROW(&as, a->drop_mask, MUL(U, M));
    TGNN_GROW(&as, a->hnew, MUL(U, M));
    TGNN_GROW(&as, a->ln2_mean, U);
    TGNN_GROW(&as, a->ln2_rstd, U);
    TGNN_GROW(&as, a->emb, MUL(U, M));
    TGNN_GROW(&as, a->emb_root, MUL(R, M));
    TGNN_GROW(&as, a->d_root, MUL(R, M));
    TGNN_GROW(&as, a->d1, MUL(U, M));
    TGNN_GROW(&as, a->d2, MUL(U, M));
    TGNN_GROW(&as, a->dq, MUL(U, M));
    TGNN_GROW(&as, a->dte, MUL(US, T));
    int rc = dgnn_alloc_done(&as, err, "APAN's workspace of %lld roots (batch %lld x (2 + %lld negatives)), %lld mail "
                             "slots and %lld neighbours each, width %lld; lower --batch, --mail-slots, --neighbors or "
                             "--eval-negatives",
                             (long long)R, (long long)m->B, (long long)m->nneg, (long long)S, (long long)k, (long long)M);
    if (rc) return rc;
    m->capR = R, m->capP = P, m->capU = U;
    return DGNN_OK;
}

static void apan_free(dgnn_tgnn *m) {
    tgnn_apan *a = &m->apan;
    void *ptrs[] = {a->next_row, a->aoff, a->x, a->dt, a->q, a->k, a->v, a->logit, a->att, a->att_mask, a->a,
                    a->ln1_mean, a->ln1_rstd, a->n1, a->z, a->drop_mask, a->hnew, a->ln2_mean, a->ln2_rstd, a->emb,
                    a->emb_root, a->d_root, a->d1, a->d2, a->dq, a->dk, a->dv, a->dte, a->mails, a->mnodes, a->mts, a->msrc};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
}

/* Maps every root to its (node, time) row. A node's rows form a list through
 * next_row, headed by rowof[v]; lists are as long as the distinct times of a node
 * within one batch (a few), so the walk is cheap. */
static void map_rows(dgnn_tgnn *m) {
    tgnn_apan *a = &m->apan;
    tgnn_new_stamp(m);
    m->U = 0;
    for (int64_t i = 0; i < m->R; i++) {
        const int32_t v = m->roots[i];
        const double t = m->root_t[i];
        const int seen = m->stamp[v] == m->cur_stamp;
        int32_t r = seen ? m->rowof[v] : -1;
        while (r >= 0 && m->h_t[r] != t) r = a->next_row[r];
        if (r < 0) {
            r = (int32_t)m->U++;
            m->unodes[r] = v;
            m->h_t[r] = t;
            a->next_row[r] = seen ? m->rowof[v] : -1;
            m->stamp[v] = m->cur_stamp;
            m->rowof[v] = r;
        }
        m->row_root[i] = r;
    }
}

int tgnn_apan_plan(dgnn_tgnn *m, const dgnn_tcsr *g, const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng,
                   dgnn_err *err) {
    tgnn_apan *a = &m->apan;
    const int64_t B = m->B, M = m->M, S = a->S, Dm = a->Dm;
    int rc = tgnn_set_roots(m, ev, neg, err);
    /* neighbours of the 2B true roots: not used by the forward itself, but they are
     * where commit delivers this batch's mails (TGL samples before the forward too) */
    if (!rc) rc = tgnn_sample(m, g, rng, err);
    if (rc) return rc;
    map_rows(m);
    const int64_t U = m->U, US = U * S;
    /* what this batch's backward (dk, dv: US x M) and commit (the mails: 2B (1 + k) rows,
     * since P <= 2B k) will need, granted here, where a failure can be told */
    const int64_t k = m->cfg.neighbors, mails = MUL(MUL(2, B), 1 + k);
    if (US > a->cap_dkv || mails > a->cap_mail) {
        dgnn_alloc_set as = {0, 0};
        if (US > a->cap_dkv) {
            TGNN_GROW(&as, a->dk, MUL(US, M));
            TGNN_GROW(&as, a->dv, MUL(US, M));
        }
        if (mails > a->cap_mail) {
            TGNN_GROW(&as, a->mails, MUL(mails, Dm));
            TGNN_GROW(&as, a->mnodes, mails);
            TGNN_GROW(&as, a->mts, mails);
            TGNN_GROW(&as, a->msrc, mails);
        }
        if ((rc = dgnn_alloc_done(&as, err, "APAN's batch of %lld events: gradients of %lld mail slots and %lld "
                                  "mails (--neighbors %lld); lower --batch or --neighbors",
                                  (long long)B, (long long)US, (long long)mails, (long long)k)))
            return rc;
        if (US > a->cap_dkv) a->cap_dkv = US;
        if (mails > a->cap_mail) a->cap_mail = mails;
    }
    return DGNN_OK;
}

int64_t tgnn_apan_mail_targets(dgnn_tgnn *m, const dgnn_events *ev) {
    tgnn_apan *a = &m->apan;
    const int64_t B = m->B, k = m->cfg.neighbors;
    DGNN_ASSERT(2 * B + m->P <= a->cap_mail); /* granted by the plan */
    for (int64_t i = 0; i < 2 * B; i++) {
        a->mnodes[i] = m->roots[i];
        a->mts[i] = ev->t[m->e0 + i % B];
        a->msrc[i] = (int32_t)i;
    }
    int64_t n = 2 * B;
    for (int64_t i = 0; i < m->Rs; i++)
        for (int64_t j = 0; j < m->s_cnt[i]; j++, n++) {
            a->mnodes[n] = m->s_nbr[i * k + j];
            a->mts[n] = a->mts[i];
            a->msrc[n] = (int32_t)i;
        }
    return n;
}

double tgnn_apan_flops(const dgnn_tgnn *m, int backward) {
    const int64_t B = m->B, M = m->M, US = m->U * m->apan.S, Dx = m->apan.Dx, U = m->U;
    const double f = 2.0 * (double)U * M * M                 /* query */
                     + 2.0 * 2.0 * (double)US * Dx * M       /* keys and values */
                     + 2.0 * 2.0 * (double)US * M            /* scores and weighted sum */
                     + 2.0 * (double)U * M * M               /* mlp */
                     + 2.0 * (double)B * M * M + 2.0 * (double)B * (1 + m->nneg) * M * M +
                     2.0 * (double)B * (1 + m->nneg) * M;    /* predictor */
    return backward ? 3.0 * f + 2.0 * 2.0 * (double)US * M * m->T /* + the dte products */ : f;
}

static int apan_forward(dgnn_tgnn *m, float *logits, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                        const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err) {
    (void)g_efeat; /* mails carry the edge features (commit): the forward reads none */
    tgnn_apan *a = &m->apan;
    DGNN_ASSERT(st->slots == a->S);
    const int64_t B = m->B, R = m->R, M = m->M, T = m->T, S = a->S, Dm = a->Dm, Dx = a->Dx, H = m->cfg.heads;
    const float pdrop = m->cfg.dropout;
    int rc = tgnn_apan_plan(m, g, ev, neg, rng, err);
    if (rc) return rc;
    const int64_t U = m->U, US = U * S;

    /* memory, the S mail slots (all of them: empty slots are zero mails at time 0, and
     * TGL attends over them too) and each slot's time difference */
#pragma omp parallel for schedule(static) if (US * Dx > PAR_MIN)
    for (int64_t r = 0; r < U; r++) {
        const int64_t v = m->unodes[r];
        memcpy(m->h + r * M, st->mem + v * M, (size_t)M * sizeof(float));
        for (int64_t s = 0; s < S; s++) {
            memcpy(a->x + (r * S + s) * Dx, st->mail + (v * S + s) * Dm, (size_t)Dm * sizeof(float));
            a->dt[r * S + s] = (float)(m->h_t[r] - st->mail_t[v * S + s]);
        }
        a->aoff[r] = r * S;
    }
    a->aoff[U] = US;
    const float *tw = m->w.te_w, *tb = m->w.te_b;
    dgnn_timeenc_forward(a->dte /* scratch until backward */, a->dt, tw, tb, US, T);
#pragma omp parallel for schedule(static) if (US * T > PAR_MIN)
    for (int64_t j = 0; j < US; j++) memcpy(a->x + j * Dx + Dm, a->dte + j * T, (size_t)T * sizeof(float));

    /* attention of the memory over its mailbox */
    dgnn_linear_forward(a->q, m->h, m->w.wq, m->w.bq, U, M, M);
    dgnn_linear_forward(a->k, a->x, m->w.wk, m->w.bk, US, Dx, M);
    dgnn_linear_forward(a->v, a->x, m->w.wv, m->w.bv, US, Dx, M);
    a->has_att_mask = rng && pdrop > 0;
    if (a->has_att_mask) dgnn_dropout_mask(a->att_mask, US * H, pdrop, dgnn_rng_u64(rng));
    dgnn_attn_core_forward(a->a, a->logit, a->att, a->has_att_mask ? a->att_mask : NULL, a->q, a->k, a->v, a->aoff,
                           U, H, M, DGNN_SCORE_LEAKY_DOT);
    /* residual, LayerNorm, MLP, dropout, ReLU: the updated memory */
#pragma omp parallel for schedule(static) if (U * M > PAR_MIN)
    for (int64_t j = 0; j < U * M; j++) a->a[j] += m->h[j];
    dgnn_layernorm_forward(a->n1, a->ln1_mean, a->ln1_rstd, a->a, m->w.ln1_g,
                           m->w.ln1_b, U, M);
    dgnn_linear_forward(a->z, a->n1, m->w.mlp_w, m->w.mlp_b, U, M, M);
    a->has_drop_mask = rng && pdrop > 0;
    if (a->has_drop_mask) dgnn_dropout_mask(a->drop_mask, U * M, pdrop, dgnn_rng_u64(rng));
#pragma omp parallel for schedule(static) if (U * M > PAR_MIN)
    for (int64_t j = 0; j < U * M; j++) {
        float x = a->has_drop_mask ? a->z[j] * a->drop_mask[j] : a->z[j];
        a->hnew[j] = x < 0 ? 0.0f : x; /* a NaN passes (nn/act.c) */
    }
    /* identity embedding: TGL's IdentityNormLayer is a LayerNorm */
    dgnn_layernorm_forward(a->emb, a->ln2_mean, a->ln2_rstd, a->hnew, m->w.ln2_g,
                           m->w.ln2_b, U, M);
    for (int64_t i = 0; i < R; i++)
        memcpy(a->emb_root + i * M, a->emb + (int64_t)m->row_root[i] * M, (size_t)M * sizeof(float));
    if (logits) /* NULL: dgnn_tgnn_embed */
        dgnn_edgepred_forward(logits, m->pred_saved, a->emb_root, a->emb_root + B * M, &m->pp, B, m->nneg, M, M);
    m->flops += tgnn_apan_flops(m, 0);
    return DGNN_OK;
}

static void apan_backward(dgnn_tgnn *m, const float *dlogits) {
    tgnn_apan *a = &m->apan;
    const int64_t B = m->B, R = m->R, M = m->M, T = m->T, S = a->S, Dm = a->Dm, Dx = a->Dx, H = m->cfg.heads;
    const int64_t U = m->U, US = U * S;
    memset(a->d_root, 0, (size_t)(R * M) * sizeof(float));
    dgnn_edgepred_backward(a->d_root, a->d_root + B * M, &m->dpp, m->pred_scratch, dlogits, m->pred_saved,
                           a->emb_root, a->emb_root + B * M, &m->pp, B, m->nneg, M, M);
    /* roots share rows: sum serially, in root order (independent of the thread count) */
    memset(a->d2, 0, (size_t)(U * M) * sizeof(float));
    for (int64_t i = 0; i < R; i++) {
        float *d = a->d2 + (int64_t)m->row_root[i] * M;
        const float *s = a->d_root + i * M;
        for (int64_t c = 0; c < M; c++) d[c] += s[c];
    }
    /* embedding LayerNorm -> d hnew (d1) */
    memset(a->d1, 0, (size_t)(U * M) * sizeof(float));
    dgnn_layernorm_backward(a->d1, m->dw.ln2_g, m->dw.ln2_b, a->d2, a->hnew,
                            m->w.ln2_g, a->ln2_mean, a->ln2_rstd, U, M);
    /* hnew = relu(z * mask): dz = d hnew * mask where hnew > 0 */
#pragma omp parallel for schedule(static) if (U * M > PAR_MIN)
    for (int64_t j = 0; j < U * M; j++)
        a->d1[j] = a->hnew[j] > 0 ? (a->has_drop_mask ? a->d1[j] * a->drop_mask[j] : a->d1[j]) : 0.0f;
    /* mlp -> d n1 (d2) */
    memset(a->d2, 0, (size_t)(U * M) * sizeof(float));
    dgnn_linear_backward(a->d2, m->dw.mlp_w, m->dw.mlp_b, a->d1, a->n1,
                         m->w.mlp_w, U, M, M);
    /* LayerNorm -> d(attention + memory) (d1): the attention output's gradient, the
     * memory being a constant */
    memset(a->d1, 0, (size_t)(U * M) * sizeof(float));
    dgnn_layernorm_backward(a->d1, m->dw.ln1_g, m->dw.ln1_b, a->d2, a->a,
                            m->w.ln1_g, a->ln1_mean, a->ln1_rstd, U, M);
    DGNN_ASSERT(US <= a->cap_dkv); /* granted by the forward */
    memset(a->dq, 0, (size_t)(U * M) * sizeof(float));
    memset(a->dk, 0, (size_t)(US * M) * sizeof(float));
    memset(a->dv, 0, (size_t)(US * M) * sizeof(float));
    dgnn_attn_core_backward(a->dq, a->dk, a->dv, a->d1, a->logit, a->att, a->has_att_mask ? a->att_mask : NULL,
                            a->q, a->k, a->v, a->aoff, U, H, M, DGNN_SCORE_LEAKY_DOT);
    const float *Wk = m->w.wk, *Wv = m->w.wv;
    dgnn_linear_backward(NULL, m->dw.wq, m->dw.bq, a->dq, m->h,
                         m->w.wq, U, M, M);
    dgnn_linear_backward(NULL, m->dw.wk, m->dw.bk, a->dk, a->x, Wk, US, Dx,
                         M);
    dgnn_linear_backward(NULL, m->dw.wv, m->dw.bv, a->dv, a->x, Wv, US, Dx,
                         M);
    /* only the time columns of x depend on parameters: dte (US, T) = dK Wk[:, Dm:] + dV Wv[:, Dm:] */
    dgnn_gemm(0, 0, US, T, M, a->dk, M, Wk + Dm, Dx, 0.0f, a->dte, T);
    dgnn_gemm(0, 0, US, T, M, a->dv, M, Wv + Dm, Dx, 1.0f, a->dte, T);
    dgnn_timeenc_backward(m->dw.te_w, m->dw.te_b, a->dte, a->dt,
                          m->w.te_w, m->w.te_b, US, T);
    m->flops = tgnn_apan_flops(m, 1); /* the forward's count, three times, + the dte products */
}

static void apan_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    tgnn_apan *a = &m->apan;
    const int64_t B = m->B, M = m->M, Dm = a->Dm, de = m->de;
    /* 1. the true src/dst roots store their updated memory and the root time, in root
     *    order: a node that is several true roots keeps the last (TGL's
     *    node_memory[nid] = memory). Mails are not consumed. */
    for (int64_t i = 0; i < 2 * B; i++) {
        const int64_t v = m->roots[i];
        memcpy(st->mem + v * M, a->hnew + (int64_t)m->row_root[i] * M, (size_t)M * sizeof(float));
        st->mem_t[v] = m->root_t[i];
    }
    /* 2. root i's mail [mem'_i, mem'_partner, edge features] at the event time, for
     *    root i's node, then a copy for each sampled neighbour of root i */
    const int64_t n = tgnn_apan_mail_targets(m, ev);
    for (int64_t i = 0; i < 2 * B; i++) {
        const int64_t e = m->e0 + i % B, partner = i < B ? i + B : i - B;
        float *row = a->mails + i * Dm;
        memcpy(row, a->hnew + (int64_t)m->row_root[i] * M, (size_t)M * sizeof(float));
        memcpy(row + M, a->hnew + (int64_t)m->row_root[partner] * M, (size_t)M * sizeof(float));
        if (de > 0) memcpy(row + 2 * M, dgnn_events_efeat(ev, e), (size_t)de * sizeof(float));
    }
    for (int64_t j = 2 * B; j < n; j++)
        memcpy(a->mails + j * Dm, a->mails + (int64_t)a->msrc[j] * Dm, (size_t)Dm * sizeof(float));
    /* 3. one mail per node: the last delivery in that order */
    dgnn_state_push_mails(st, a->mnodes, a->mails, a->mts, n, DGNN_AGG_LAST);
}

void tgnn_apan_commit_times(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    /* apan_commit's steps on the times: the true roots' memory times (the last root of a
     * node wins), then the same deliveries without their rows */
    for (int64_t i = 0; i < 2 * m->B; i++) st->mem_t[m->roots[i]] = m->root_t[i];
    const int64_t n = tgnn_apan_mail_targets(m, ev);
    dgnn_state_push_mails(st, m->apan.mnodes, NULL, m->apan.mts, n, DGNN_AGG_LAST);
}

/* APAN finalises nothing early: its whole backward runs before any gradient is final */
static int64_t apan_grad_split(const dgnn_tgnn *m) { return m->p.total; }

static const float *apan_root_emb(const dgnn_tgnn *m) { return m->apan.emb_root; }

const tgnn_ops tgnn_apan_ops = {
    .name = "apan",
    .sample = TGNN_SAMPLE_TRUE, /* where commit delivers the mails */
    .can_presample = 0,
    .needs_neighbors = 1,
    .emb_is_memory = 1,
    .mail_time = 0, /* TGL's APAN mail has no time part: the updater encodes t - t_mail when it reads */
    .pred_dst_bias = 1,
    .defaults = apan_defaults,
    .check = apan_check,
    .declare = apan_declare,
    .init_values = apan_init_values,
    .ensure = apan_ensure,
    .free = apan_free,
    .forward = apan_forward,
    .backward = apan_backward,
    .backward_updater = NULL,
    .grad_split = apan_grad_split,
    .commit = apan_commit,
    .root_emb = apan_root_emb,
};
