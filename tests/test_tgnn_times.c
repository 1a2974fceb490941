/* test_tgnn_times.c: the host half of the GPU trainer (tgnn_cuda.h), which runs on the CPU
 * and so is tested here: a batch's bookkeeping alone (tgnn_mem_plan) against the one the
 * CPU forward does, and the commit of times and counts alone (tgnn_mem_commit_times, on a
 * state whose rows never change) against the full commit, over an epoch of batches of
 * TGN on a stream with repeated nodes, with the TGL preset's uniform sampler too (its
 * draw from the rng comes first, as in the forward). Also dgnn_tattn_draw_seeds: the
 * draws the CPU attention makes, in its order, which the device takes as seeds. And APAN's
 * host half: tgnn_apan_plan and tgnn_apan_mail_targets against apan_forward's bookkeeping
 * and its commit's deliveries (the rng then drawn from twice, the two dropout seeds, must
 * be where the forward leaves it), and tgnn_apan_commit_times against the full commit,
 * mail ring included, with neighbours to deliver to and mailboxes that wrap. */
#include "../src/models/tgnn_internal.h"
#include "check.h"
#include "random_events.h"
#include "dgnn/state.h"
#include "dgnn/tcsr.h"
#include "dgnn/tgnn.h"

/* the times, counts and ring positions of two stores */
static int64_t times_differ(const dgnn_state *a, const dgnn_state *b) {
    int64_t bad = 0;
    for (int64_t v = 0; v < a->num_nodes; v++) {
        bad += a->mem_t[v] != b->mem_t[v] || a->mail_n[v] != b->mail_n[v] || a->mail_head[v] != b->mail_head[v];
        for (int64_t k = 0; k < a->slots; k++) bad += a->mail_t[v * a->slots + k] != b->mail_t[v * b->slots + k];
    }
    return bad;
}

static void run(dgnn_attn_kind attn, int uniform) {
    dgnn_err err;
    dgnn_events ev;
    gen_events(&ev, 21, 40, 400, 90);
    add_edge_features(&ev, 2);
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(DGNN_TGNN_TGN);
    cfg.mem_dim = 6, cfg.time_dim = 4, cfg.emb_dim = 6, cfg.neighbors = 4, cfg.heads = 2, cfg.dropout = 0.2f;
    cfg.attn = attn, cfg.uniform_sampler = uniform;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    const int64_t N = ev.num_nodes, M = cfg.mem_dim, D = dgnn_tgnn_mail_dim(m);
    dgnn_state full, times;
    CHECK(dgnn_state_init(&full, N, M, D, 1, &err) == DGNN_OK);
    CHECK(dgnn_state_init(&times, N, M, D, 1, &err) == DGNN_OK);
    enum { B = 25, NNEG = 2 };
    int32_t neg[NNEG * B];
    float logits[(1 + NNEG) * B];
    dgnn_rng rng, rng_plan;
    dgnn_rng_seed(&rng, 4);
    int64_t batches = 0, with_mail = 0;
    for (int64_t e0 = 0; e0 + B <= ev.num_events; e0 += B, batches++) {
        for (int i = 0; i < NNEG * B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)N);
        /* the plan alone, from the times-only store, with its own copy of the rng */
        rng_plan = rng;
        CHECK(tgnn_begin(m, &times, &ev, e0, B, NNEG, &err) == DGNN_OK);
        CHECK(tgnn_mem_plan(m, &times, &g, ev.efeat, &ev, neg, &rng_plan, &err) == DGNN_OK);
        uint64_t seeds[2];
        const int ns = dgnn_tattn_draw_seeds(&m->acfg, &rng_plan, seeds);
        CHECK(ns == (attn == DGNN_ATTN_TGL ? 2 : 1));
        const int64_t U = m->U, Ur = m->Ur, Um = m->Um, P = m->P, R = m->R;
        int32_t *unodes = malloc((size_t)U * sizeof(int32_t)), *mrow = malloc((size_t)(Um + 1) * sizeof(int32_t));
        int32_t *nbr_row = malloc((size_t)(P + 1) * sizeof(int32_t)), *row_root = malloc((size_t)R * sizeof(int32_t));
        int64_t *off = malloc((size_t)(R + 1) * sizeof(int64_t));
        float *pair_dt = malloc((size_t)(P + 1) * sizeof(float));
        memcpy(unodes, m->unodes, (size_t)U * sizeof(int32_t)), memcpy(mrow, m->mrow, (size_t)Um * sizeof(int32_t));
        memcpy(nbr_row, m->nbr_row, (size_t)P * sizeof(int32_t)), memcpy(row_root, m->row_root, (size_t)R * sizeof(int32_t));
        memcpy(off, m->off, (size_t)(R + 1) * sizeof(int64_t)), memcpy(pair_dt, m->pair_dt, (size_t)P * sizeof(float));
        /* the CPU forward from the full store: the same bookkeeping, and the same draws */
        CHECK(dgnn_tgnn_forward(m, logits, &full, &g, ev.efeat, &ev, e0, B, neg, NNEG, &rng, &err) == DGNN_OK);
        CHECK(memcmp(&rng, &rng_plan, sizeof rng) == 0);
        CHECK(m->U == U && m->Ur == Ur && m->Um == Um && m->P == P);
        CHECK(memcmp(unodes, m->unodes, (size_t)U * sizeof(int32_t)) == 0);
        CHECK(memcmp(mrow, m->mrow, (size_t)Um * sizeof(int32_t)) == 0);
        CHECK(memcmp(nbr_row, m->nbr_row, (size_t)P * sizeof(int32_t)) == 0);
        CHECK(memcmp(row_root, m->row_root, (size_t)R * sizeof(int32_t)) == 0);
        CHECK(memcmp(off, m->off, (size_t)(R + 1) * sizeof(int64_t)) == 0);
        CHECK(memcmp(pair_dt, m->pair_dt, (size_t)P * sizeof(float)) == 0);
        free(unodes), free(mrow), free(nbr_row), free(row_root), free(off), free(pair_dt);
        with_mail += Um > 0;
        /* the full commit, then the times-only one of the same batch (roots, e0 and B are
         * the forward's; the full commit leaves them) */
        dgnn_tgnn_commit(m, &full, &ev);
        tgnn_mem_commit_times(m, &times, &ev);
        CHECK_MSG(times_differ(&full, &times) == 0, "batch at %lld: times or counts differ", (long long)e0);
    }
    CHECK(batches == 16 && with_mail >= 14);
    int64_t rows = 0;
    for (int64_t i = 0; i < N * M; i++) rows += times.mem[i] != 0;
    for (int64_t i = 0; i < N * D; i++) rows += times.mail[i] != 0;
    CHECK_MSG(rows == 0, "the times-only commit wrote %lld floats of memory or mail", (long long)rows);
    dgnn_state_free(&full), dgnn_state_free(&times);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

static void run_apan(int uniform) {
    dgnn_err err;
    dgnn_events ev;
    gen_events(&ev, 23, 40, 400, 90);
    add_edge_features(&ev, 2);
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    cfg.mem_dim = cfg.emb_dim = 6, cfg.time_dim = 4, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.2f;
    cfg.mail_slots = 3, cfg.uniform_sampler = uniform;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    const int64_t N = ev.num_nodes, M = cfg.mem_dim, D = dgnn_tgnn_mail_dim(m), S = cfg.mail_slots;
    dgnn_state full, times;
    CHECK(dgnn_state_init(&full, N, M, D, S, &err) == DGNN_OK);
    CHECK(dgnn_state_init(&times, N, M, D, S, &err) == DGNN_OK);
    enum { B = 25, NNEG = 2 };
    int32_t neg[NNEG * B];
    float logits[(1 + NNEG) * B];
    dgnn_rng rng, rng_plan;
    dgnn_rng_seed(&rng, 5);
    int64_t batches = 0, wrapped = 0, delivered = 0;
    for (int64_t e0 = 0; e0 + B <= ev.num_events; e0 += B, batches++) {
        for (int i = 0; i < NNEG * B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)N);
        rng_plan = rng;
        CHECK(tgnn_begin(m, &times, &ev, e0, B, NNEG, &err) == DGNN_OK);
        CHECK(tgnn_apan_plan(m, &g, &ev, neg, &rng_plan, &err) == DGNN_OK);
        (void)dgnn_rng_u64(&rng_plan), (void)dgnn_rng_u64(&rng_plan); /* the two dropout seeds */
        const int64_t U = m->U, R = m->R, n = tgnn_apan_mail_targets(m, &ev);
        int32_t *unodes = malloc((size_t)U * sizeof(int32_t)), *row_root = malloc((size_t)R * sizeof(int32_t));
        double *h_t = malloc((size_t)U * sizeof(double)), *mts = malloc((size_t)n * sizeof(double));
        int32_t *mnodes = malloc((size_t)n * sizeof(int32_t)), *msrc = malloc((size_t)n * sizeof(int32_t));
        memcpy(unodes, m->unodes, (size_t)U * sizeof(int32_t)), memcpy(row_root, m->row_root, (size_t)R * sizeof(int32_t));
        memcpy(h_t, m->h_t, (size_t)U * sizeof(double)), memcpy(mts, m->apan.mts, (size_t)n * sizeof(double));
        memcpy(mnodes, m->apan.mnodes, (size_t)n * sizeof(int32_t)), memcpy(msrc, m->apan.msrc, (size_t)n * sizeof(int32_t));
        CHECK(dgnn_tgnn_forward(m, logits, &full, &g, ev.efeat, &ev, e0, B, neg, NNEG, &rng, &err) == DGNN_OK);
        CHECK(memcmp(&rng, &rng_plan, sizeof rng) == 0);
        CHECK(m->U == U && m->R == R && tgnn_apan_mail_targets(m, &ev) == n);
        CHECK(memcmp(unodes, m->unodes, (size_t)U * sizeof(int32_t)) == 0);
        CHECK(memcmp(row_root, m->row_root, (size_t)R * sizeof(int32_t)) == 0);
        CHECK(memcmp(h_t, m->h_t, (size_t)U * sizeof(double)) == 0);
        CHECK(memcmp(mnodes, m->apan.mnodes, (size_t)n * sizeof(int32_t)) == 0);
        CHECK(memcmp(mts, m->apan.mts, (size_t)n * sizeof(double)) == 0);
        CHECK(memcmp(msrc, m->apan.msrc, (size_t)n * sizeof(int32_t)) == 0);
        free(unodes), free(row_root), free(h_t), free(mts), free(mnodes), free(msrc);
        delivered += n > 2 * B;
        dgnn_tgnn_commit(m, &full, &ev);
        tgnn_apan_commit_times(m, &times, &ev);
        CHECK_MSG(times_differ(&full, &times) == 0, "apan, batch at %lld: times or counts differ", (long long)e0);
    }
    for (int64_t v = 0; v < N; v++) wrapped += full.mail_n[v] == S;
    CHECK(batches == 16 && delivered == batches && wrapped > 10);
    int64_t rows = 0;
    for (int64_t i = 0; i < N * M; i++) rows += times.mem[i] != 0;
    for (int64_t i = 0; i < N * S * D; i++) rows += times.mail[i] != 0;
    CHECK_MSG(rows == 0, "apan: the times-only commit wrote %lld floats of memory or mail", (long long)rows);
    dgnn_state_free(&full), dgnn_state_free(&times);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

int main(void) {
    run(DGNN_ATTN_TGN, 0);
    run(DGNN_ATTN_TGL, 1);
    run_apan(0);
    run_apan(1);
    /* no rng (inference): no draw */
    dgnn_tattn_cfg c = {.kind = DGNN_ATTN_TGL, .attn_dropout = 0.1f, .dropout = 0.1f};
    uint64_t s[2];
    CHECK(dgnn_tattn_draw_seeds(&c, NULL, s) == 0);
    c.attn_dropout = 0;
    dgnn_rng r;
    dgnn_rng_seed(&r, 1);
    CHECK(dgnn_tattn_draw_seeds(&c, &r, s) == 1);
    c.kind = DGNN_ATTN_TGN;
    CHECK(dgnn_tattn_draw_seeds(&c, &r, s) == 0);
    return check_done();
}
