/* tgnn_memory.c: the memory TGN, JODIE and DyRep share (tgnn.h, steps 1-3 and 6): one
 * pending mail per node, a GRU (TGN) or RNN (JODIE, DyRep) updater run in the forward
 * pass, the link predictor on the kind's embeddings, and the commit of memories and mails.
 *
 * The batch is laid out so that every dense product runs over distinct rows:
 *  - the R = (2 + nneg) B roots and their P valid sampled neighbours are mapped to U
 *    distinct nodes (the stamp of tgnn_batch.c gives O(1) lookups);
 *  - only the Um <= U nodes with a pending mail run the memory updater.
 * The forward saves everything backward and commit need in the workspace, which grows
 * to the largest batch seen and is then reused: no allocation per batch. */
#include <string.h>

#include "dgnn/par.h"
#include "tgnn_internal.h"

#define GROW TGNN_GROW

void tgnn_mem_declare(dgnn_tgnn *m, int gates) {
    m->gates = gates;
    const int64_t M = m->M, G = gates * M;
    tgnn_param(m, &m->w.W_ih, &m->dw.W_ih, "memory_updater.W_ih", G, m->D);
    tgnn_param(m, &m->w.W_hh, &m->dw.W_hh, "memory_updater.W_hh", G, M);
    tgnn_param1(m, &m->w.b_ih, &m->dw.b_ih, "memory_updater.b_ih", G);
    tgnn_param1(m, &m->w.b_hh, &m->dw.b_hh, "memory_updater.b_hh", G);
}

void tgnn_mem_init_values(dgnn_tgnn *m, dgnn_rng *rng) {
    dgnn_rnn_cell_init(m->w.W_ih, m->w.W_hh, m->w.b_ih, m->w.b_hh, m->D, m->M, m->gates, rng);
}

int tgnn_mem_ensure(dgnn_tgnn *m, int64_t R, int attention, dgnn_err *err) {
    /* P <= R k pairs, U <= R + P nodes */
    const int64_t k = attention ? m->cfg.neighbors : 0;
    const int64_t P = MUL(R, k), U = dgnn_size_add(R, P), M = m->M, T = m->T, D = m->D, E = m->emb;
    dgnn_alloc_set as = {0, 0};
    tgnn_batch_grow(m, &as, R, k);
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
    if (attention && !as.failed) {
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

/* Row of node v in this batch's distinct-node list, adding it when new. */
static inline int32_t node_row(dgnn_tgnn *m, int32_t v) {
    if (m->stamp[v] != m->cur_stamp) {
        m->stamp[v] = m->cur_stamp;
        m->rowof[v] = (int32_t)m->U;
        m->unodes[m->U++] = v;
    }
    return m->rowof[v];
}

int tgnn_mem_plan(dgnn_tgnn *m, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                  const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err) {
    const int64_t R = m->R, Rs = m->Rs, k = m->cfg.neighbors;
    int rc = tgnn_set_roots(m, ev, neg, err);
    if (!rc) rc = tgnn_sample(m, g, rng, err);
    if (rc) return rc;
    /* distinct nodes: roots first, then neighbours */
    tgnn_new_stamp(m);
    m->U = 0;
    /* Ur: the distinct nodes among the Rs roots that attention embeds (the first Rs; rows
     * are numbered in order of first appearance, so theirs are 0..Ur-1) */
    m->Ur = 0;
    for (int64_t i = 0; i < R; i++) {
        m->row_root[i] = node_row(m, m->roots[i]);
        if (i + 1 == Rs) m->Ur = m->U;
    }
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
    /* the rows with a pending mail (they run the updater): serial, it numbers them */
    m->Um = 0;
    for (int64_t r = 0; r < m->U; r++)
        if (st->mail_n[m->unodes[r]] > 0) m->mrow[m->Um++] = (int32_t)r;
    return DGNN_OK;
}

int tgnn_mem_forward(dgnn_tgnn *m, const dgnn_state *st, const dgnn_tcsr *g, const float *g_efeat,
                     const dgnn_events *ev, const int32_t *neg, dgnn_rng *rng, dgnn_err *err) {
    int rc = tgnn_mem_plan(m, st, g, g_efeat, ev, neg, rng, err);
    if (rc) return rc;
    /* memory of every distinct node; rows with a pending mail run the updater */
    const int64_t R = m->R, M = m->M, D = m->D, U = m->U, Um = m->Um;
    /* the copies (a few MB a batch) in parallel: each row is its own */
#pragma omp parallel for if (U * M > 65536)
    for (int64_t r = 0; r < U; r++) {
        int32_t v = m->unodes[r];
        memcpy(m->h + r * M, st->mem + (int64_t)v * M, (size_t)M * sizeof(float));
        m->h_t[r] = st->mem_t[v];
    }
#pragma omp parallel for if (Um * D > 65536)
    for (int64_t u = 0; u < Um; u++) {
        const int64_t r = m->mrow[u];
        double mt;
        const float *mail = dgnn_state_last_mail(st, m->unodes[r], &mt);
        memcpy(m->xm + u * D, mail, (size_t)D * sizeof(float));
        memcpy(m->hm + u * M, m->h + r * M, (size_t)M * sizeof(float));
        m->h_t[r] = mt;
    }
    if (Um > 0) {
        if (m->gates == 3)
            dgnn_gru_forward(m->hout, m->upd_saved, m->xm, m->hm, m->w.W_ih, m->w.W_hh, m->w.b_ih, m->w.b_hh, Um, D,
                             M);
        else
            dgnn_rnn_forward(m->hout, m->xm, m->hm, m->w.W_ih, m->w.W_hh, m->w.b_ih, m->w.b_hh, Um, D, M);
#pragma omp parallel for if (Um * M > 65536)
        for (int64_t u = 0; u < Um; u++) /* distinct rows */
            memcpy(m->h + (int64_t)m->mrow[u] * M, m->hout + u * M, (size_t)M * sizeof(float));
    }
    const double upd = tgnn_mem_flops_updater(m);
    m->flops += upd;
    m->flops_wgrad += upd;
    /* per-root copies of the memory (and, in backward, of its gradient) serve the kinds
     * whose embedding is the memory (JODIE, DyRep); TGN's attention reads and writes the
     * distinct-node rows directly */
    if (m->ops->emb_is_memory) {
#pragma omp parallel for if (R * M > 65536)
        for (int64_t i = 0; i < R; i++)
            memcpy(m->h_root + i * M, m->h + (int64_t)m->row_root[i] * M, (size_t)M * sizeof(float));
    }
    return DGNN_OK;
}

void tgnn_mem_predict(dgnn_tgnn *m, float *logits, const float *emb) {
    if (!logits) return;
    const int64_t B = m->B, nneg = m->nneg, E = m->emb;
    dgnn_edgepred_forward(logits, m->pred_saved, emb, emb + B * E, &m->pp, B, nneg, E, E);
    m->flops += tgnn_mem_flops_predict(m);
}

double tgnn_mem_flops_updater(const dgnn_tgnn *m) {
    return 2.0 * (double)m->Um * (double)(m->D + m->M) * (double)(m->gates * m->M);
}

double tgnn_mem_flops_predict(const dgnn_tgnn *m) {
    const double B = (double)m->B, E = (double)m->emb, L = (double)(1 + m->nneg);
    return 2.0 * B * E * E + 2.0 * B * L * E * E + 2.0 * B * L * E;
}

double tgnn_flops_with_backward(double fwd, double wgrad, double nograd) {
    return 3.0 * (fwd - nograd - wgrad) + 2.0 * wgrad + nograd;
}

void tgnn_mem_predict_backward(dgnn_tgnn *m, const float *dlogits, const float *emb, float *demb) {
    const int64_t B = m->B, R = m->R, M = m->M, E = m->emb;
    if (m->ops->emb_is_memory) dgnn_zero(m->dh_root, R * M);
    dgnn_zero(m->dh, m->U * M);
    dgnn_zero(demb, R * E);
    dgnn_edgepred_backward(demb, demb + B * E, &m->dpp, m->pred_scratch, dlogits, m->pred_saved, emb, emb + B * E,
                           &m->pp, B, m->nneg, E, E);
}

void tgnn_mem_backward_updater(dgnn_tgnn *m) {
    const int64_t R = m->R, M = m->M, Um = m->Um, D = m->D;
    /* roots share rows (a node can be a root several times): sum serially, in root
     * order, so the result does not depend on the thread count */
    if (m->ops->emb_is_memory) /* else the roots' gradients went straight into dh (tgnn_mem_forward) */
        for (int64_t i = 0; i < R; i++) {
            float *d = m->dh + (int64_t)m->row_root[i] * M;
            const float *s = m->dh_root + i * M;
            for (int64_t c = 0; c < M; c++) d[c] += s[c];
        }
    /* through the in-forward memory update; stored memory and mails are constants */
    if (Um > 0) {
#pragma omp parallel for if (Um * M > 65536)
        for (int64_t u = 0; u < Um; u++)
            memcpy(m->dhm + u * M, m->dh + (int64_t)m->mrow[u] * M, (size_t)M * sizeof(float));
        if (m->gates == 3)
            dgnn_gru_backward(NULL, NULL, m->dw.W_ih, m->dw.W_hh, m->dw.b_ih, m->dw.b_hh, m->upd_scratch, m->dhm,
                              m->upd_saved, m->xm, m->hm, m->w.W_ih, m->w.W_hh, Um, D, M);
        else
            dgnn_rnn_backward(NULL, NULL, m->dw.W_ih, m->dw.W_hh, m->dw.b_ih, m->dw.b_hh, m->upd_scratch, m->dhm,
                              m->hout, m->xm, m->hm, m->w.W_ih, m->w.W_hh, Um, D, M);
    }
    /* the usual rule: a backward costs about twice its forward's products; once for the
     * updater, whose backward forms only its weights' gradients */
    m->flops = tgnn_flops_with_backward(m->flops, m->flops_wgrad, m->flops_nograd);
}

void tgnn_mem_commit(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev, const float *other_emb) {
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
     *    DyRep: [mem_self, attention embedding of the other endpoint (root i + B for a
     *    source, i - B for a destination), ...].
     *    The xm buffer (U >= 2B rows of D) is free again and holds them. */
    float *mails = m->xm;      /* (U >= 2B, D) */
    int32_t *nodes = m->unodes; /* (U >= 2B) */
    double *ts = m->h_t;        /* (U >= 2B) */
#pragma omp parallel for if (2 * B * D > 65536) /* each mail its own row; the state is only read */
    for (int64_t i = 0; i < 2 * B; i++) {
        int64_t e = m->e0 + i % B;
        int32_t self = i < B ? ev->src[e] : ev->dst[e], other = i < B ? ev->dst[e] : ev->src[e];
        float *row = mails + i * D;
        memcpy(row, st->mem + (int64_t)self * M, (size_t)M * sizeof(float));
        const float *o = other_emb ? other_emb + (i < B ? i + B : i - B) * M : st->mem + (int64_t)other * M;
        memcpy(row + M, o, (size_t)M * sizeof(float));
        if (de > 0) memcpy(row + 2 * M, dgnn_events_efeat(ev, e), (size_t)de * sizeof(float));
        m->c_dt[i] = (float)(ev->t[e] - st->mem_t[self]);
        nodes[i] = self;
        ts[i] = ev->t[e];
    }
    /* the time encodings of all 2B mails in one call, then into each mail's last T columns */
    dgnn_timeenc_forward(m->c_te, m->c_dt, m->w.te_w, m->w.te_b, 2 * B, T);
#pragma omp parallel for if (2 * B * T > 65536)
    for (int64_t i = 0; i < 2 * B; i++) memcpy(mails + i * D + 2 * M + de, m->c_te + i * T, (size_t)T * sizeof(float));
    dgnn_state_push_mails(st, nodes, mails, ts, 2 * B, DGNN_AGG_LAST);
}

void tgnn_mem_commit_times(dgnn_tgnn *m, dgnn_state *st, const dgnn_events *ev) {
    const int64_t B = m->B;
    /* 1. as tgnn_mem_commit: a true src/dst node with a pending mail takes the mail's time
     *    (its row's h_t) as its memory time and drops the mail */
    for (int64_t i = 0; i < 2 * B; i++) {
        int32_t v = m->roots[i];
        double mt;
        if (!dgnn_state_last_mail(st, v, &mt)) continue;
        st->mem_t[v] = mt;
        dgnn_state_clear_mails(st, &v, 1);
    }
    /* 2. every event's two mails at its time, sources' then destinations', "last" */
    int32_t *nodes = m->unodes; /* (U >= 2B) free again, as in tgnn_mem_commit */
    double *ts = m->h_t;
    for (int64_t i = 0; i < 2 * B; i++) {
        int64_t e = m->e0 + i % B;
        nodes[i] = i < B ? ev->src[e] : ev->dst[e];
        ts[i] = ev->t[e];
    }
    dgnn_state_push_mails(st, nodes, NULL, ts, 2 * B, DGNN_AGG_LAST);
}
