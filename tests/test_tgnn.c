/* test_tgnn.c: the memory-based models end to end on a small random stream:
 * finite-difference gradients of the whole loss for every parameter tensor (TGN with
 * edge features, JODIE), the forward leaving the state untouched, and what commit
 * writes (memory of positives, mails in the TGN code's order and layout). */
#include "check.h"
#include "gradcheck.h"
#include "random_events.h"
#include "dgnn/optim.h"
#include "dgnn/tgnn.h"

typedef struct {
    dgnn_tgnn *m;
    dgnn_state *st;
    dgnn_tcsr *g;
    dgnn_events *ev;
    int64_t e0, B, nneg;
    int32_t *neg;
    float *logits, *labels;
} ctx_t;

static double loss_fn(void *vp) {
    ctx_t *c = vp;
    dgnn_err err;
    int rc = dgnn_tgnn_forward(c->m, c->logits, c->st, c->g, c->ev->efeat, c->ev, c->e0, c->B, c->neg, c->nneg, NULL, &err);
    if (rc) { fprintf(stderr, "%s\n", err.msg); exit(2); }
    return 2.0 * dgnn_bce_logits_forward(NULL, c->logits, c->labels, c->B * (1 + c->nneg));
}

static void add_edge_features(dgnn_events *ev, int64_t de) {
    ev->edge_dim = de;
    ev->efeat = malloc((size_t)(ev->num_events * de) * sizeof(float));
    dgnn_rng r;
    dgnn_rng_seed(&r, 5);
    for (int64_t i = 0; i < ev->num_events * de; i++) ev->efeat[i] = (float)dgnn_rng_normal(&r);
}

static void run(dgnn_tgnn_kind kind, int64_t de) {
    dgnn_events ev;
    gen_events(&ev, 11, 30, 240, 120);
    if (de) add_edge_features(&ev, de);
    dgnn_tcsr g;
    dgnn_err err;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(kind);
    cfg.mem_dim = 6, cfg.time_dim = 4, cfg.emb_dim = 6, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.2f;
    cfg.seed = 3;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    dgnn_state st;
    CHECK(dgnn_state_init(&st, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), 1, &err) == DGNN_OK);
    const int64_t B = 20, nneg = 2;
    int32_t neg[40];
    float logits[60], labels[60], dlogits[60];
    for (int i = 0; i < 60; i++) labels[i] = i < 20 ? 1.0f : 0.0f;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 9);
    dgnn_params *p = dgnn_tgnn_params(m);
    /* train a few batches (with dropout) so that memories and mails are non-trivial */
    dgnn_adam opt = dgnn_adam_default(1e-2);
    for (int64_t e0 = 0; e0 + B <= 160; e0 += B) {
        for (int i = 0; i < 40; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)ev.num_nodes);
        dgnn_params_zero_grad(p);
        CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, e0, B, neg, nneg, &rng, &err) == DGNN_OK);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, B * (1 + nneg), 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        dgnn_tgnn_commit(m, &st, &ev);
        dgnn_adam_step_params(&opt, p);
    }
    int nonzero = 0;
    for (int64_t i = 0; i < ev.num_nodes * cfg.mem_dim; i++) nonzero += st.mem[i] != 0;
    CHECK_MSG(nonzero > 20, "memories after 8 batches: %d non-zero entries", nonzero);

    /* the forward reads the state and leaves it as it was */
    dgnn_state before;
    CHECK(dgnn_state_init(&before, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), 1, &err) == DGNN_OK);
    dgnn_state_copy(&before, &st);
    ctx_t c = {m, &st, &g, &ev, 160, B, nneg, neg, logits, labels};
    for (int i = 0; i < 40; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)ev.num_nodes);
    double L = loss_fn(&c);
    CHECK(isfinite(L) && L > 0);
    CHECK(memcmp(before.mem, st.mem, (size_t)(ev.num_nodes * cfg.mem_dim) * sizeof(float)) == 0);
    CHECK(memcmp(before.mail, st.mail, (size_t)(ev.num_nodes * st.mail_dim) * sizeof(float)) == 0);

    /* gradients of the whole loss, every tensor */
    dgnn_params_zero_grad(p);
    memset(dlogits, 0, sizeof dlogits);
    dgnn_bce_logits_backward(dlogits, logits, labels, B * (1 + nneg), 2.0f);
    dgnn_tgnn_backward(m, dlogits);
    CHECK(dgnn_tgnn_last_flops(m) > 0);
    float *gcopy = malloc((size_t)p->total * sizeof(float));
    memcpy(gcopy, p->grad, (size_t)p->total * sizeof(float));
    gradcheck_opts o = gradcheck_defaults();
    o.max_checks = 60;
    o.rtol = 2e-2;
    for (int t = 0; t < p->ntensors; t++) {
        char name[96];
        snprintf(name, sizeof name, "%s %s", kind == DGNN_TGNN_TGN ? "tgn" : "jodie", p->t[t].name);
        int64_t off = p->t[t].offset;
        /* the loss is cos(w dt + b) with dt up to ~200 here: a step of 1e-3 in w moves the
         * phase by 0.2 rad, far outside the linear range, so w gets a smaller step */
        o.eps = strcmp(p->t[t].name, "time_enc.w") == 0 ? 1e-4 : 1e-3;
        o.eps2 = strcmp(p->t[t].name, "time_enc.w") == 0 ? 3e-4 : 1e-2;
        CHECK(gradcheck_ex(name, loss_fn, &c, p->value + off, gcopy + off, p->t[t].count, &o) == 0);
    }
    free(gcopy);

    /* commit: positives with a pending mail store the updated memory; every event
     * leaves a mail for src and dst; the last writer per node wins, sources first */
    dgnn_state_copy(&st, &before);
    loss_fn(&c);
    dgnn_tgnn_commit(m, &st, &ev);
    const int64_t M = cfg.mem_dim, D = dgnn_tgnn_mail_dim(m);
    int ok_mail = 1, ok_time = 1;
    for (int64_t v = 0; v < ev.num_nodes; v++) {
        int64_t last = -1, last_role = -1; /* the last event touching v, in the TGN order */
        for (int role = 0; role < 2; role++)
            for (int64_t e = 160; e < 180; e++)
                if ((role == 0 ? ev.src[e] : ev.dst[e]) == v) last = e, last_role = role;
        double tm;
        const float *mail = dgnn_state_last_mail(&st, (int32_t)v, &tm);
        if (last < 0) {
            /* untouched by this batch: same mailbox as before */
            ok_mail &= (dgnn_state_last_mail(&before, (int32_t)v, NULL) == NULL) == (mail == NULL);
            continue;
        }
        int32_t other = last_role == 0 ? ev.dst[last] : ev.src[last];
        ok_time &= mail != NULL && tm == ev.t[last];
        if (!mail) { ok_mail = 0; continue; }
        ok_mail &= memcmp(mail, st.mem + v * M, (size_t)M * sizeof(float)) == 0;
        ok_mail &= memcmp(mail + M, st.mem + (int64_t)other * M, (size_t)M * sizeof(float)) == 0;
        if (de) ok_mail &= memcmp(mail + 2 * M, ev.efeat + last * de, (size_t)de * sizeof(float)) == 0;
        /* time part: cos(w (t - t_mem) + b) with w = 10^-linspace at init scale: just finite and in [-1, 1] */
        for (int64_t j = 2 * M + de; j < D; j++) ok_mail &= fabsf(mail[j]) <= 1.0f;
    }
    CHECK(ok_mail);
    CHECK(ok_time);
    /* a positive with a pending mail now holds a changed memory and the mail's time */
    int changed = 0;
    for (int64_t i = 160; i < 180; i++) {
        int32_t v = ev.src[i];
        if (before.mail_n[v]) changed += memcmp(before.mem + v * M, st.mem + v * M, (size_t)M * sizeof(float)) != 0;
    }
    CHECK(changed > 0);

    dgnn_state_free(&before);
    dgnn_state_free(&st);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

int main(void) {
    run(DGNN_TGNN_TGN, 3);
    run(DGNN_TGNN_TGN, 0);
    run(DGNN_TGNN_JODIE, 2);
    dgnn_err err;
    dgnn_tgnn_cfg bad = dgnn_tgnn_cfg_default(DGNN_TGNN_TGN);
    bad.heads = 7;
    dgnn_tgnn *m = NULL;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL && m == NULL);
    bad = dgnn_tgnn_cfg_default(DGNN_TGNN_JODIE);
    bad.emb_dim = 5;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL);
    return check_done();
}
