/* tgnn_attention.c: the temporal-attention embedding TGN and DyRep share (nn.h's
 * dgnn_tattn, TGN's attention layer): its settings and checks, its parameter block, and
 * its forward over the roots' sampled neighbours. TGN embeds every root with it and
 * differentiates it; DyRep runs it over the 2B true src/dst roots for their mails only,
 * with no backward (tgnn.h). The layer's products run per root, never per (root,
 * neighbour) pair (nn.h's fast path); the time encoding is evaluated per pair. */
#include <string.h>

#include "dgnn/par.h"
#include "tgnn_internal.h"

/* The attention's settings of a configuration: what dgnn_tattn_check sees. */
static dgnn_tattn_cfg attn_cfg(const dgnn_tgnn_cfg *cfg, int64_t de) {
    return (dgnn_tattn_cfg){.kind = cfg->attn, .dn = cfg->mem_dim, .de = de, .dt = cfg->time_dim,
                            .heads = cfg->heads, .dout = cfg->emb_dim, .attn_dropout = cfg->dropout,
                            .dropout = cfg->dropout};
}

int tgnn_attn_check(const dgnn_tgnn_cfg *cfg, const char *name, dgnn_err *err) {
    /* the attention's width does not depend on the edge features' */
    dgnn_tattn_cfg a = attn_cfg(cfg, 0);
    const int64_t E = dgnn_tattn_E(&a);
    if (cfg->heads < 1 || E % cfg->heads != 0)
        return dgnn_err_set(err, DGNN_EINVAL, "model %s: --heads %lld must divide the attention width %lld (%s)",
                            name, (long long)cfg->heads, (long long)E,
                            cfg->attn == DGNN_ATTN_TGN ? "--mem-dim + --time-dim" : "--emb-dim");
    return dgnn_tattn_check(&a, err);
}

int tgnn_attn_setup(dgnn_tgnn *m, dgnn_err *err) {
    m->acfg = attn_cfg(&m->cfg, m->de);
    return dgnn_tattn_check(&m->acfg, err);
}

void tgnn_attn_declare(dgnn_tgnn *m) {
    tgnn_param1(m, &m->w.attn, &m->dw.attn, "attention", dgnn_tattn_params_layout(&m->ap, NULL, &m->acfg));
}

void tgnn_attn_init_values(dgnn_tgnn *m, dgnn_rng *rng) {
    dgnn_tattn_params_layout(&m->ap, m->w.attn, &m->acfg);
    dgnn_tattn_params_layout(&m->dap, m->dw.attn, &m->acfg);
    dgnn_tattn_init(&m->ap, &m->acfg, rng);
}

double tgnn_attn_forward(dgnn_tgnn *m, dgnn_rng *rng) {
    const int64_t Rs = m->Rs, T = m->T, P = m->P;
    const float *w = m->w.te_w, *b = m->w.te_b;
    float zero = 0;
    dgnn_timeenc_forward(m->te0, &zero, w, b, 1, T);
    dgnn_timeenc_forward(m->te, m->pair_dt, w, b, P, T);
    /* the roots' query inputs are the distinct-node rows they map to (the first Ur): the
     * query side runs once per distinct root node */
    dgnn_tattn_input in = {.B = Rs, .h_root = m->h, .Ur = m->Ur, .root_row = m->row_root, .te0 = m->te0,
                           .off = m->off, .Un = m->U,
                           .h_nbr = m->h, .nbr_row = m->nbr_row, .Ue = P,
                           .e_feat = m->de > 0 ? m->pair_e : NULL, .edge_row = NULL, .te = m->te};
    dgnn_tattn_forward(m->emb_out, &m->as, &in, &m->ap, &m->acfg, rng);
    return tgnn_attn_flops(m);
}

double tgnn_attn_flops(const dgnn_tgnn *m) {
    const int64_t Rs = m->Rs, M = m->M, T = m->T, E = m->emb, P = m->P;
    /* the products as the fast layer runs them (nn.h): per root, not per pair */
    const int64_t Ea = dgnn_tattn_E(&m->acfg), dn = M, dk = M + m->de + T, H = m->cfg.heads;
    const int64_t Hd = dgnn_tattn_hidden(&m->acfg);
    const int tgn = m->acfg.kind == DGNN_ATTN_TGN;
    const double Ur = (double)m->Ur;
    return 2.0 * Ur * dn * Ea                              /* query, per distinct root node */
           + 2.0 * Ur * Ea * dk + 2.0 * (double)Rs * Ea * dk /* the query seen from the keys, and o */
           + 2.0 * 2.0 * (double)P * H * dk                /* scores and input sums per pair */
           + (tgn ? 2.0 * (double)Hd * Ea * Ea : 0.0)      /* out projection folded into fc1 */
           + 2.0 * ((double)Rs * Ea + Ur * dn) * Hd        /* merge fc1 */
           + (tgn ? 2.0 * (double)Rs * Hd * E : 0.0);      /* merge fc2 */
}

void tgnn_attn_backward(dgnn_tgnn *m) {
    const int64_t R = m->R, T = m->T, P = m->P;
    dgnn_zero(m->dte, P * T);
    memset(m->dte0, 0, (size_t)T * sizeof(float));
    dgnn_tattn_input in = {.B = R, .h_root = m->h, .Ur = m->Ur, .root_row = m->row_root, .te0 = m->te0,
                           .off = m->off, .Un = m->U,
                           .h_nbr = m->h, .nbr_row = m->nbr_row, .Ue = P,
                           .e_feat = m->de > 0 ? m->pair_e : NULL, .edge_row = NULL, .te = m->te};
    /* both the roots' and the neighbours' gradients land in the distinct-node rows */
    dgnn_tattn_dinput din = {.h_root = m->dh, .te0 = m->dte0, .h_nbr = m->dh, .e_feat = NULL, .te = m->dte};
    dgnn_tattn_backward(&din, &m->dap, m->demb, &m->as, &in, &m->ap, &m->acfg);
    float zero = 0;
    dgnn_timeenc_backward(m->dw.te_w, m->dw.te_b, m->dte, m->pair_dt, m->w.te_w, m->w.te_b, P, T);
    dgnn_timeenc_backward(m->dw.te_w, m->dw.te_b, m->dte0, &zero, m->w.te_w, m->w.te_b, 1, T);
}
