/* test_tgnn.c: the memory-based models end to end on a small random stream:
 * finite-difference gradients of the whole loss for every parameter tensor (TGN with
 * edge features, JODIE, DyRep, APAN), the forward leaving the state untouched, and what
 * commit writes (memory of positives, mails in the TGN code's order and layout, their
 * time part time_enc(t - t_mem_self); DyRep's mails against an independent
 * recomputation of the attention embedding). TGN's and JODIE's embeddings against the
 * documented formulas, recomputed independently (test_reference_emb). APAN's
 * updater, embedding, logits and mail delivery are checked on a hand-made stream
 * against a plain-loop reference (apan_hand). dgnn_tgnn_embed against the forward's
 * embeddings and logits, every kind (test_embed). */
#include "check.h"
#include "gradcheck.h"
#include "random_events.h"
#include "dgnn/adam.h"
#include "dgnn/sampler.h"
#include "dgnn/tgnn.h"

static const char *kind_name(dgnn_tgnn_kind k) {
    return k == DGNN_TGNN_TGN ? "tgn" : k == DGNN_TGNN_JODIE ? "jodie" : k == DGNN_TGNN_DYREP ? "dyrep" : "apan";
}

static const float *param(dgnn_tgnn *m, const char *name) {
    dgnn_params *p = dgnn_tgnn_params(m);
    int i = dgnn_params_find(p, name);
    if (i < 0) { fprintf(stderr, "no parameter %s\n", name); exit(2); }
    return dgnn_params_get(p, i);
}

/* The whole state, every array, equal? */
static int state_equal(const dgnn_state *a, const dgnn_state *b) {
    const int64_t N = a->num_nodes, S = a->slots;
    return memcmp(a->mem, b->mem, (size_t)(N * a->mem_dim) * sizeof(float)) == 0 &&
           memcmp(a->mem_t, b->mem_t, (size_t)N * sizeof(double)) == 0 &&
           memcmp(a->mail, b->mail, (size_t)(N * S * a->mail_dim) * sizeof(float)) == 0 &&
           memcmp(a->mail_t, b->mail_t, (size_t)(N * S) * sizeof(double)) == 0 &&
           memcmp(a->mail_n, b->mail_n, (size_t)N * sizeof(int32_t)) == 0 &&
           memcmp(a->mail_head, b->mail_head, (size_t)N * sizeof(int32_t)) == 0;
}

/* max |a - b| over n */
static double maxdiff(const float *a, const float *b, int64_t n) {
    double w = 0;
    for (int64_t i = 0; i < n; i++) w = fmax(w, fabs((double)a[i] - (double)b[i]));
    return w;
}

/* The memory of node v as a forward reads it (tgnn.h, step 3), one node alone: with a
 * pending mail in st0, mem' = GRU(mail, mem) (TGN) or RNN(mail, mem) (JODIE, DyRep) and
 * the memory's time becomes the mail's; without one, the stored memory and time.
 * out (M), *tm. */
static void ref_memory(float *out, double *tm, dgnn_tgnn *m, const dgnn_state *st0, int32_t v) {
    const dgnn_tgnn_cfg *c = dgnn_tgnn_config(m);
    const int64_t M = c->mem_dim, D = dgnn_tgnn_mail_dim(m);
    double mt = st0->mem_t[v];
    const float *mail = dgnn_state_last_mail(st0, v, &mt);
    if (tm) *tm = mt;
    if (!mail) {
        memcpy(out, st0->mem + (int64_t)v * M, (size_t)M * sizeof(float));
        return;
    }
    const float *Wih = param(m, "memory_updater.W_ih"), *Whh = param(m, "memory_updater.W_hh");
    const float *bih = param(m, "memory_updater.b_ih"), *bhh = param(m, "memory_updater.b_hh");
    if (c->kind == DGNN_TGNN_TGN) {
        float saved[6 * 64];
        CHECK(M <= 64);
        dgnn_gru_forward(out, saved, mail, st0->mem + (int64_t)v * M, Wih, Whh, bih, bhh, 1, D, M);
    } else {
        dgnn_rnn_forward(out, mail, st0->mem + (int64_t)v * M, Wih, Whh, bih, bhh, 1, D, M);
    }
}

/* TGN's attention embedding of node u at time t, recomputed independently of the model's
 * batch layout (DyRep's message part; TGN's embedding): over u's k most recent neighbours
 * strictly before t, keys [mem'_nbr, edge features, time_enc(t - t_edge)], query
 * [mem'_u, time_enc(0)], each node's memory as ref_memory reads it from st0, through the
 * plain reference attention (no BLAS, no fast path), dropout off. out (emb_dim). */
static void attn_ref_emb(float *out, dgnn_tgnn *m, const dgnn_state *st0, const dgnn_tcsr *g,
                         const dgnn_events *ev, int32_t u, double t) {
    const dgnn_tgnn_cfg *c = dgnn_tgnn_config(m);
    const int64_t M = c->mem_dim, T = c->time_dim, de = ev->edge_dim;
    const int k = (int)c->neighbors;
    int32_t nbr[16], cnt;
    int64_t eid[16];
    double ts[16];
    dgnn_err err;
    CHECK(k <= 16 && dgnn_sample_recent(nbr, eid, ts, &cnt, g, &u, &t, 1, k, &err) == DGNN_OK);
    float *h = calloc((size_t)((1 + cnt) * M), sizeof(float)); /* row 0: u, rows 1..: neighbours */
    for (int j = 0; j <= cnt; j++) ref_memory(h + j * M, NULL, m, st0, j == 0 ? u : nbr[j - 1]);
    float *te = calloc((size_t)((cnt + 1) * T), sizeof(float)), *ef = calloc((size_t)(cnt * de + 1), sizeof(float));
    float *dt = calloc((size_t)(cnt + 1), sizeof(float));
    int32_t rows[16];
    for (int j = 0; j < cnt; j++) {
        dt[j + 1] = (float)(t - ts[j]);
        rows[j] = j;
        if (de) memcpy(ef + j * de, ev->efeat + eid[j] * de, (size_t)de * sizeof(float));
    }
    dgnn_timeenc_forward(te, dt, param(m, "time_enc.w"), param(m, "time_enc.b"), cnt + 1, T); /* row 0: dt = 0 */
    dgnn_tattn_cfg ac = {.kind = c->attn, .dn = M, .de = de, .dt = T, .heads = c->heads, .dout = c->emb_dim,
                         .attn_dropout = c->dropout, .dropout = c->dropout};
    dgnn_tattn_params ap;
    dgnn_tattn_params_layout(&ap, (float *)param(m, "attention"), &ac);
    int64_t off[2] = {0, cnt};
    dgnn_tattn_input in = {.B = 1, .h_root = h, .te0 = te, .off = off, .Un = cnt, .h_nbr = h + M, .nbr_row = rows,
                           .Ue = cnt, .e_feat = de ? ef : NULL, .edge_row = NULL, .te = te + T};
    dgnn_tattn_reference(out, NULL, NULL, NULL, &in, &ap, &ac, NULL, NULL);
    free(h);
    free(te);
    free(ef);
    free(dt);
}

typedef struct {
    dgnn_tgnn *m;
    dgnn_state *st;
    dgnn_tcsr *g;
    dgnn_events *ev;
    int64_t e0, B, nneg;
    int32_t *neg;
    float *logits, *labels;
    int dbl; /* 1: the loss in double from the float logits (no rounding of the sum to float) */
} ctx_t;

static double loss_fn(void *vp) {
    ctx_t *c = vp;
    dgnn_err err;
    int rc = dgnn_tgnn_forward(c->m, c->logits, c->st, c->g, c->ev->efeat, c->ev, c->e0, c->B, c->neg, c->nneg, NULL, &err);
    if (rc) { fprintf(stderr, "%s\n", err.msg); exit(2); }
    if (c->dbl) {
        double l = 0;
        for (int64_t i = 0; i < c->B * (1 + c->nneg); i++) {
            double x = c->logits[i];
            l += fmax(x, 0) - x * c->labels[i] + log1p(exp(-fabs(x)));
        }
        return 2.0 * l / (double)(c->B * (1 + c->nneg));
    }
    return 2.0 * dgnn_bce_logits_forward(NULL, c->logits, c->labels, c->B * (1 + c->nneg));
}

/* The CPU trainer's steps (with dropout) over events [0, 160) in batches of B, nneg
 * negatives each drawn from rng, the BCE's gradient scaled by scale, Adam at lr: so that
 * memories and mails are non-trivial for the checks after it. */
static void warm_up(dgnn_tgnn *m, dgnn_state *st, const dgnn_tcsr *g, const dgnn_events *ev, int64_t B, int64_t nneg,
                    double lr, float scale, dgnn_rng *rng) {
    const int64_t L = (1 + nneg) * B;
    int32_t *neg = malloc((size_t)(nneg * B) * sizeof(int32_t));
    float *logits = malloc((size_t)L * sizeof(float)), *labels = malloc((size_t)L * sizeof(float));
    float *dlogits = malloc((size_t)L * sizeof(float));
    for (int64_t i = 0; i < L; i++) labels[i] = i < B ? 1.0f : 0.0f;
    dgnn_adam opt = dgnn_adam_default(lr);
    dgnn_err err;
    for (int64_t e0 = 0; e0 + B <= 160; e0 += B) {
        for (int64_t i = 0; i < nneg * B; i++) neg[i] = (int32_t)dgnn_rng_below(rng, (uint64_t)ev->num_nodes);
        dgnn_params_zero_grad(dgnn_tgnn_params(m));
        CHECK(dgnn_tgnn_forward(m, logits, st, g, ev->efeat, ev, e0, B, neg, nneg, rng, &err) == DGNN_OK);
        memset(dlogits, 0, (size_t)L * sizeof(float));
        dgnn_bce_logits_backward(dlogits, logits, labels, L, scale);
        dgnn_tgnn_backward(m, dlogits);
        dgnn_tgnn_commit(m, st, ev);
        dgnn_adam_step_params(&opt, dgnn_tgnn_params(m));
    }
    free(neg), free(logits), free(labels), free(dlogits);
}

static void run(dgnn_tgnn_kind kind, int64_t de) {
    dgnn_events ev;
    gen_events(&ev, 11, 30, 240, 120);
    if (de) add_edge_features(&ev, de);
    /* APAN encodes t - t_mail for every slot, empty ones (t_mail = 0) included: with
     * times ~100-280 the loss is a sum of many cos(w dt) terms of size ~dt that nearly
     * cancel, and finite differences in w drown in their curvature. Times in [0, 9]. */
    if (kind == DGNN_TGNN_APAN)
        for (int64_t e = 0; e < ev.num_events; e++) ev.t[e] = (ev.t[e] - 100.0) * 0.05;
    dgnn_tcsr g;
    dgnn_err err;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(kind);
    cfg.mem_dim = 6, cfg.time_dim = 4, cfg.emb_dim = 6, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.2f;
    cfg.seed = 3;
    cfg.mail_slots = 4;
    /* APAN's memory is ReLU(mlp(.)) and its embedding a LayerNorm of it: with 6 columns
     * some rows come out all zero or nearly (rstd up to 1/sqrt(eps) = 316), where finite
     * differences of 1e-3 cross ReLU kinks with that gain; 16 columns make it rare */
    if (kind == DGNN_TGNN_APAN) cfg.mem_dim = cfg.emb_dim = 16;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    dgnn_state st;
    const int64_t S = dgnn_tgnn_mail_slots(m);
    CHECK(S == (kind == DGNN_TGNN_APAN ? cfg.mail_slots : 1));
    CHECK(dgnn_state_init(&st, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), S, &err) == DGNN_OK);
    const int64_t B = 20, nneg = 2;
    int32_t neg[40];
    float logits[60], labels[60], dlogits[60];
    for (int i = 0; i < 60; i++) labels[i] = i < 20 ? 1.0f : 0.0f;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 9);
    dgnn_params *p = dgnn_tgnn_params(m);
    /* APAN: a gentler warm-up (Adam moves every parameter by ~lr per step whatever its
     * scale, and the LayerNorm after a ReLU turns large weights into kinks with gain) */
    warm_up(m, &st, &g, &ev, B, nneg, kind == DGNN_TGNN_APAN ? 1e-3 : 1e-2, 2.0f, &rng);
    int nonzero = 0;
    for (int64_t i = 0; i < ev.num_nodes * cfg.mem_dim; i++) nonzero += st.mem[i] != 0;
    CHECK_MSG(nonzero > 20, "memories after 8 batches: %d non-zero entries", nonzero);

    /* the forward reads the state and leaves it as it was */
    dgnn_state before;
    CHECK(dgnn_state_init(&before, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), S, &err) == DGNN_OK);
    dgnn_state_copy(&before, &st);
    ctx_t c = {m, &st, &g, &ev, 160, B, nneg, neg, logits, labels, kind == DGNN_TGNN_APAN};
    for (int i = 0; i < 40; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)ev.num_nodes);
    double L = loss_fn(&c);
    CHECK(isfinite(L) && L > 0);
    CHECK(memcmp(before.mem, st.mem, (size_t)(ev.num_nodes * cfg.mem_dim) * sizeof(float)) == 0);
    CHECK(memcmp(before.mail, st.mail, (size_t)(ev.num_nodes * st.mail_dim) * sizeof(float)) == 0);
    CHECK(state_equal(&before, &st));

    if (kind == DGNN_TGNN_APAN) {
        /* a generic point for the time encoding: at init (b = 0, w = 10^-linspace) its
         * output barely moves with dt here, so its gradients would be too small to
         * tell a missing term from noise */
        dgnn_rng r2;
        dgnn_rng_seed(&r2, 77);
        float *w = (float *)param(m, "time_enc.w"), *b = (float *)param(m, "time_enc.b");
        for (int64_t j = 0; j < cfg.time_dim; j++) w[j] = (float)(0.05 + 0.3 * dgnn_rng_uniform(&r2));
        for (int64_t j = 0; j < cfg.time_dim; j++) b[j] = (float)(2.0 * dgnn_rng_uniform(&r2) - 1.0);
        /* and sharper, time-driven mailbox attention: with torch's init the scores
         * barely differ between slots, and the gradient through them (into w_q, w_k, and
         * the time encoding through the keys) is ~20x smaller than through the values */
        float *wq = (float *)param(m, "memory_updater.w_q"), *wk = (float *)param(m, "memory_updater.w_k");
        for (int64_t j = 0; j < cfg.mem_dim * cfg.mem_dim; j++) wq[j] *= 4.0f;
        const int64_t Dm = 2 * cfg.mem_dim + de, Dx = Dm + cfg.time_dim; /* keys: time columns count */
        for (int64_t i = 0; i < cfg.mem_dim; i++)
            for (int64_t j = Dm; j < Dx; j++) wk[i * Dx + j] *= 4.0f;
        L = loss_fn(&c);
    }

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
        snprintf(name, sizeof name, "%s %s", kind_name(kind), p->t[t].name);
        int64_t off = p->t[t].offset;
        /* the loss is cos(w dt + b) with dt up to ~200 here: a step of 1e-3 in w moves the
         * phase by 0.2 rad, far outside the linear range, so w gets a smaller step */
        o.eps = strcmp(p->t[t].name, "time_enc.w") == 0 ? 1e-4 : 1e-3;
        o.eps2 = strcmp(p->t[t].name, "time_enc.w") == 0 ? 3e-4 : 1e-2;
        /* APAN: ~1300 ReLU inputs feed a LayerNorm, so a step of 1e-3 often crosses a
         * kink somewhere (and the norm spreads it over the row): smaller steps, with the
         * loss summed in double so that they are not lost in its rounding */
        if (kind == DGNN_TGNN_APAN) o.eps = 1e-4, o.eps2 = 3e-4;
        CHECK(gradcheck_ex(name, loss_fn, &c, p->value + off, gcopy + off, p->t[t].count, &o) == 0);
    }
    if (kind == DGNN_TGNN_DYREP) {
        /* the TGN code's DyRep: the attention only shapes stored mails, so neither it nor
         * the time encoding gets a gradient */
        int zero = 1;
        for (int t = 0; t < p->ntensors; t++)
            if (!strcmp(p->t[t].name, "attention") || !strncmp(p->t[t].name, "time_enc", 8))
                for (int64_t j = 0; j < p->t[t].count; j++) zero &= gcopy[p->t[t].offset + j] == 0.0f;
        CHECK(zero);
    }
    free(gcopy);
    if (kind == DGNN_TGNN_APAN) { /* APAN's commit: apan_hand */
        dgnn_state_free(&before);
        dgnn_state_free(&st);
        dgnn_tgnn_free(m);
        dgnn_tcsr_free(&g);
        dgnn_events_free(&ev);
        return;
    }

    /* commit: positives with a pending mail store the updated memory; every event
     * leaves a mail for src and dst; the last writer per node wins, sources first */
    dgnn_state_copy(&st, &before);
    loss_fn(&c);
    dgnn_tgnn_commit(m, &st, &ev);
    const int64_t M = cfg.mem_dim;
    int ok_mail = 1, ok_time = 1, ok_tpart = 1, tdiff = 0;
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
        if (kind == DGNN_TGNN_DYREP) {
            /* the other endpoint's attention embedding at the event time */
            float ref[64];
            attn_ref_emb(ref, m, &before, &g, &ev, other, ev.t[last]);
            double d = maxdiff(mail + M, ref, M);
            if (!(d < 1e-5)) fprintf(stderr, "dyrep mail of node %lld: embedding part off by %g\n", (long long)v, d);
            ok_mail &= d < 1e-5;
        } else {
            ok_mail &= memcmp(mail + M, st.mem + (int64_t)other * M, (size_t)M * sizeof(float)) == 0;
        }
        if (de) ok_mail &= memcmp(mail + 2 * M, ev.efeat + last * de, (size_t)de * sizeof(float)) == 0;
        /* time part: time_enc(t - t_mem_self), t_mem_self the node's memory time when the
         * mail was written (after step 1: the consumed mail's time for a positive that
         * had one), which the commit leaves in st.mem_t */
        float dt = (float)(ev.t[last] - st.mem_t[v]), te[16];
        dgnn_timeenc_forward(te, &dt, param(m, "time_enc.w"), param(m, "time_enc.b"), 1, cfg.time_dim);
        double dtime = maxdiff(mail + 2 * M + de, te, cfg.time_dim);
        if (!(dtime < 1e-6)) fprintf(stderr, "%s mail of node %lld: time part off by %g\n", kind_name(kind), (long long)v, dtime);
        ok_tpart &= dtime < 1e-6;
        /* (the self and other memories differ in time for most mails: the check can tell them apart) */
        tdiff += st.mem_t[v] != st.mem_t[other];
    }
    CHECK(ok_mail);
    CHECK(ok_time);
    CHECK(ok_tpart);
    CHECK_MSG(tdiff > 3, "only %d mails whose endpoints' memory times differ", tdiff);
    /* a positive with a pending mail now holds a changed memory and the mail's time */
    int changed = 0;
    for (int64_t i = 160; i < 180; i++) {
        int32_t v = ev.src[i];
        if (before.mail_n[v]) changed += memcmp(before.mem + v * M, st.mem + v * M, (size_t)M * sizeof(float)) != 0;
    }
    CHECK(changed > 0);

    /* a batch whose workspace cannot be had (2^40 negatives per event, the roots' count
     * saturating): DGNN_ENOMEM naming it, never an abort, and the model stays usable */
    CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, 0, B, neg, (int64_t)1 << 40, NULL, &err) == DGNN_ENOMEM);
    CHECK_MSG(strstr(err.msg, "out of memory") && strstr(err.msg, "workspace") && strstr(err.msg, "negatives"), "%s",
              err.msg);
    CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, 0, B, neg, nneg, NULL, &err) == DGNN_OK);
    dgnn_state_free(&before);
    dgnn_state_free(&st);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

/* ---- APAN on a hand-made stream ------------------------------------------------ */

/* APAN's memory update of node v at time t from state st, in plain loops (TGL's
 * TransformerMemoryUpdater, dropout off): out (M). */
static void apan_ref_update(float *out, dgnn_tgnn *m, const dgnn_state *st, int32_t v, double t) {
    const dgnn_tgnn_cfg *c = dgnn_tgnn_config(m);
    const int64_t M = c->mem_dim, T = c->time_dim, H = c->heads, dh = M / H, S = st->slots;
    const int64_t Dm = st->mail_dim, Dx = Dm + T;
    const float *Wq = param(m, "memory_updater.w_q"), *bq = param(m, "memory_updater.b_q");
    const float *Wk = param(m, "memory_updater.w_k"), *bk = param(m, "memory_updater.b_k");
    const float *Wv = param(m, "memory_updater.w_v"), *bv = param(m, "memory_updater.b_v");
    const float *g1 = param(m, "memory_updater.layer_norm.g"), *b1 = param(m, "memory_updater.layer_norm.b");
    const float *Wm = param(m, "memory_updater.mlp.W"), *bm = param(m, "memory_updater.mlp.b");
    const float *tw = param(m, "time_enc.w"), *tb = param(m, "time_enc.b");
    const float *mem = st->mem + (int64_t)v * M;
    double q[64], k[16][64], val[16][64], x[256], a[64];
    for (int64_t i = 0; i < M; i++) {
        q[i] = bq[i];
        for (int64_t j = 0; j < M; j++) q[i] += (double)Wq[i * M + j] * mem[j];
    }
    for (int64_t s = 0; s < S; s++) {
        const float *mail = st->mail + ((int64_t)v * S + s) * Dm;
        for (int64_t j = 0; j < Dm; j++) x[j] = mail[j];
        for (int64_t j = 0; j < T; j++) x[Dm + j] = cos((t - st->mail_t[(int64_t)v * S + s]) * tw[j] + tb[j]);
        for (int64_t i = 0; i < M; i++) {
            k[s][i] = bk[i], val[s][i] = bv[i];
            for (int64_t j = 0; j < Dx; j++) k[s][i] += (double)Wk[i * Dx + j] * x[j], val[s][i] += (double)Wv[i * Dx + j] * x[j];
        }
    }
    for (int64_t h = 0; h < H; h++) {
        double lg[16], mx = -1e300, sum = 0;
        for (int64_t s = 0; s < S; s++) {
            lg[s] = 0;
            for (int64_t c2 = h * dh; c2 < (h + 1) * dh; c2++) lg[s] += q[c2] * k[s][c2];
            if (lg[s] < 0) lg[s] *= 0.2; /* LeakyReLU(0.2) */
            mx = fmax(mx, lg[s]);
        }
        for (int64_t s = 0; s < S; s++) sum += exp(lg[s] - mx);
        for (int64_t c2 = h * dh; c2 < (h + 1) * dh; c2++) {
            a[c2] = mem[c2];
            for (int64_t s = 0; s < S; s++) a[c2] += exp(lg[s] - mx) / sum * val[s][c2];
        }
    }
    double mean = 0, var = 0, n1[64];
    for (int64_t i = 0; i < M; i++) mean += a[i] / (double)M;
    for (int64_t i = 0; i < M; i++) var += (a[i] - mean) * (a[i] - mean) / (double)M;
    for (int64_t i = 0; i < M; i++) n1[i] = (a[i] - mean) / sqrt(var + 1e-5) * g1[i] + b1[i];
    for (int64_t i = 0; i < M; i++) {
        double z = bm[i];
        for (int64_t j = 0; j < M; j++) z += (double)Wm[i * M + j] * n1[j];
        out[i] = (float)(z > 0 ? z : 0);
    }
}

/* The logit of (src memory hs, dst memory hd): LayerNorm embedding, TGL's EdgePredictor. */
static double apan_ref_logit(dgnn_tgnn *m, const float *hs, const float *hd) {
    const int64_t M = dgnn_tgnn_config(m)->mem_dim;
    const float *g = param(m, "embedding_norm.g"), *b = param(m, "embedding_norm.b");
    dgnn_edgepred_params pp;
    dgnn_edgepred_layout(&pp, (float *)param(m, "link_predictor"), M, M, 1);
    double e[2][64];
    for (int w = 0; w < 2; w++) {
        const float *h = w ? hd : hs;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < M; i++) mean += h[i] / (double)M;
        for (int64_t i = 0; i < M; i++) var += (h[i] - mean) * (h[i] - mean) / (double)M;
        for (int64_t i = 0; i < M; i++) e[w][i] = (h[i] - mean) / sqrt(var + 1e-5) * g[i] + b[i];
    }
    double out = pp.bo[0];
    for (int64_t i = 0; i < M; i++) {
        double z = pp.bs[i] + pp.bd[i];
        for (int64_t j = 0; j < M; j++) z += (double)pp.Ws[i * M + j] * e[0][j] + (double)pp.Wd[i * M + j] * e[1][j];
        out += pp.Wo[i] * (z > 0 ? z : 0);
    }
    return out;
}

/* The newest mail of node v is [a, b, f] at time t? */
static int newest_mail_is(const dgnn_state *st, int32_t v, const float *a, const float *b, float f, double t) {
    const int64_t M = st->mem_dim;
    double tm;
    const float *mail = dgnn_state_last_mail(st, v, &tm);
    return mail && tm == t && maxdiff(mail, a, M) < 1e-5 && maxdiff(mail + M, b, M) < 1e-5 && mail[2 * M] == f;
}

/* Six nodes, five events (f: the one edge feature):
 *   batch A: e0 0->1 t=1 f=0.5;  e1 2->3 t=2 f=-1;      negatives 4, 5
 *   batch B: e2 0->3 t=5 f=2;    e3 4->5 t=6 f=0.25;  e4 1->5 t=7 f=-0.5;  negatives 2, 4, 0
 * The sampled neighbours (k = 2, strictly earlier) of B's true roots: 0@5: {1};
 * 4@6: {}; 1@7: {0}; 3@5: {2}; 5@6: {}; 5@7: {4}. Deliveries of B, in order: own mails
 * of 0, 4, 1 (sources), 3, 5, 5 (destinations), then root 0's mail to 1, root 1's to 0,
 * root 3's to 2, root 5@7's to 4; the last one per node is pushed. */
static void apan_hand(void) {
    dgnn_events ev;
    dgnn_err err;
    dgnn_events_init(&ev);
    CHECK(dgnn_events_alloc(&ev, 5, 1, 0, &err) == DGNN_OK);
    ev.num_nodes = 6;
    const int32_t src[5] = {0, 2, 0, 4, 1}, dst[5] = {1, 3, 3, 5, 5};
    const double t[5] = {1, 2, 5, 6, 7};
    const float f[5] = {0.5f, -1, 2, 0.25f, -0.5f};
    for (int e = 0; e < 5; e++) ev.src[e] = src[e], ev.dst[e] = dst[e], ev.t[e] = t[e], ev.efeat[e] = f[e];
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    CHECK(cfg.mail_slots == 10 && cfg.mem_dim == 100 && cfg.emb_dim == 100);
    cfg.mem_dim = cfg.emb_dim = 4, cfg.time_dim = 2, cfg.neighbors = 2, cfg.heads = 2, cfg.mail_slots = 3;
    cfg.seed = 5;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, 6, 1, &err) == DGNN_OK);
    const int64_t M = 4;
    CHECK(dgnn_tgnn_mail_dim(m) == 2 * M + 1 && dgnn_tgnn_mail_slots(m) == 3);
    /* phases away from 0 (init: b = 0, where cos(w dt + b) is even in dt and the sign of
     * t - t_mail would not show) */
    float *tb = (float *)param(m, "time_enc.b");
    tb[0] = 0.6f, tb[1] = -0.9f;
    dgnn_state st, s0, sA;
    CHECK(dgnn_state_init(&st, 6, M, 2 * M + 1, 3, &err) == DGNN_OK);
    CHECK(dgnn_state_init(&s0, 6, M, 2 * M + 1, 3, &err) == DGNN_OK);
    CHECK(dgnn_state_init(&sA, 6, M, 2 * M + 1, 3, &err) == DGNN_OK);
    /* give the memory of every node a start, so that nothing is trivially zero */
    for (int64_t i = 0; i < 6 * M; i++) st.mem[i] = (float)sin(0.7 * (double)i + 0.3);
    dgnn_state_copy(&s0, &st);
    float logits[9], h[6][8][4]; /* h[v][t]: the reference updated memory of v at time t (t <= 7) */
    /* batch A */
    int32_t negA[2] = {4, 5};
    CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, 0, 2, negA, 1, NULL, &err) == DGNN_OK);
    CHECK(state_equal(&st, &s0));
    apan_ref_update(h[0][1], m, &s0, 0, 1), apan_ref_update(h[1][1], m, &s0, 1, 1);
    apan_ref_update(h[2][2], m, &s0, 2, 2), apan_ref_update(h[3][2], m, &s0, 3, 2);
    apan_ref_update(h[4][1], m, &s0, 4, 1), apan_ref_update(h[5][2], m, &s0, 5, 2);
    double wantA[4] = {apan_ref_logit(m, h[0][1], h[1][1]), apan_ref_logit(m, h[2][2], h[3][2]),
                       apan_ref_logit(m, h[0][1], h[4][1]), apan_ref_logit(m, h[2][2], h[5][2])};
    for (int i = 0; i < 4; i++) CHECK_NEAR(logits[i], wantA[i], 1e-4);
    dgnn_tgnn_commit(m, &st, &ev);
    CHECK(maxdiff(st.mem + 0 * M, h[0][1], M) < 1e-5 && maxdiff(st.mem + 1 * M, h[1][1], M) < 1e-5);
    CHECK(maxdiff(st.mem + 2 * M, h[2][2], M) < 1e-5 && maxdiff(st.mem + 3 * M, h[3][2], M) < 1e-5);
    CHECK(st.mem_t[0] == 1 && st.mem_t[1] == 1 && st.mem_t[2] == 2 && st.mem_t[3] == 2);
    /* negatives: untouched */
    CHECK(memcmp(st.mem + 4 * M, s0.mem + 4 * M, 2 * M * sizeof(float)) == 0 && st.mail_n[4] == 0 && st.mail_n[5] == 0);
    CHECK(newest_mail_is(&st, 0, h[0][1], h[1][1], 0.5f, 1) && newest_mail_is(&st, 1, h[1][1], h[0][1], 0.5f, 1));
    CHECK(newest_mail_is(&st, 2, h[2][2], h[3][2], -1, 2) && newest_mail_is(&st, 3, h[3][2], h[2][2], -1, 2));
    CHECK(st.mail_n[0] == 1 && st.mail_n[1] == 1 && st.mail_n[2] == 1 && st.mail_n[3] == 1);
    dgnn_state_copy(&sA, &st);

    /* batch B: negatives 2@5, 4@6 (shares the row of source 4@6), 0@7 (a second row of 0) */
    int32_t negB[3] = {2, 4, 0};
    CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, 2, 3, negB, 1, NULL, &err) == DGNN_OK);
    CHECK(state_equal(&st, &sA));
    apan_ref_update(h[0][5], m, &sA, 0, 5), apan_ref_update(h[0][7], m, &sA, 0, 7);
    apan_ref_update(h[1][7], m, &sA, 1, 7), apan_ref_update(h[2][5], m, &sA, 2, 5);
    apan_ref_update(h[3][5], m, &sA, 3, 5), apan_ref_update(h[4][6], m, &sA, 4, 6);
    apan_ref_update(h[5][6], m, &sA, 5, 6), apan_ref_update(h[5][7], m, &sA, 5, 7);
    CHECK(maxdiff(h[0][5], h[0][7], M) > 1e-4); /* the time matters: two rows of node 0 */
    double wantB[6] = {apan_ref_logit(m, h[0][5], h[3][5]), apan_ref_logit(m, h[4][6], h[5][6]),
                       apan_ref_logit(m, h[1][7], h[5][7]), apan_ref_logit(m, h[0][5], h[2][5]),
                       apan_ref_logit(m, h[4][6], h[4][6]), apan_ref_logit(m, h[1][7], h[0][7])};
    for (int i = 0; i < 6; i++) CHECK_NEAR(logits[i], wantB[i], 1e-4);
    dgnn_tgnn_commit(m, &st, &ev);
    /* memories of the true roots (5: its last event, t = 7); 2 was only a negative and a neighbour */
    CHECK(maxdiff(st.mem + 0 * M, h[0][5], M) < 1e-5 && maxdiff(st.mem + 1 * M, h[1][7], M) < 1e-5);
    CHECK(maxdiff(st.mem + 3 * M, h[3][5], M) < 1e-5 && maxdiff(st.mem + 4 * M, h[4][6], M) < 1e-5);
    CHECK(maxdiff(st.mem + 5 * M, h[5][7], M) < 1e-5);
    CHECK(memcmp(st.mem + 2 * M, sA.mem + 2 * M, M * sizeof(float)) == 0 && st.mem_t[2] == 2);
    CHECK(st.mem_t[0] == 5 && st.mem_t[1] == 7 && st.mem_t[3] == 5 && st.mem_t[4] == 6 && st.mem_t[5] == 7);
    /* one new mail per node that got any; the rings keep batch A's */
    CHECK(st.mail_n[0] == 2 && st.mail_n[1] == 2 && st.mail_n[2] == 2 && st.mail_n[3] == 2);
    CHECK(st.mail_n[4] == 1 && st.mail_n[5] == 1);
    CHECK(newest_mail_is(&st, 0, h[1][7], h[5][7], -0.5f, 7)); /* root 1's, as its neighbour */
    CHECK(newest_mail_is(&st, 1, h[0][5], h[3][5], 2, 5));     /* root 0's, over its own e4 mail */
    CHECK(newest_mail_is(&st, 2, h[3][5], h[0][5], 2, 5));     /* root 3's, as its neighbour */
    CHECK(newest_mail_is(&st, 3, h[3][5], h[0][5], 2, 5));     /* its own */
    CHECK(newest_mail_is(&st, 4, h[5][7], h[1][7], -0.5f, 7)); /* root 5@7's, over its own e3 mail */
    CHECK(newest_mail_is(&st, 5, h[5][7], h[1][7], -0.5f, 7)); /* its own, the later event */
    /* batch A's mails are still in the rings (slot 0; B's went to slot 1) */
    for (int v = 0; v < 4; v++) {
        CHECK(memcmp(st.mail + v * 3 * (2 * M + 1), sA.mail + v * 3 * (2 * M + 1), (2 * M + 1) * sizeof(float)) == 0);
        CHECK(st.mail_t[v * 3] == sA.mail_t[v * 3]);
    }
    dgnn_state_free(&st);
    dgnn_state_free(&s0);
    dgnn_state_free(&sA);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

/* DyRep embeds only the 2B true src/dst roots (Rs < R): its attention's query rows are
 * the distinct nodes among those, even when the negatives add more distinct nodes than
 * 2B (many nodes, few repeats). Before the fix: an assertion in the attention layer. */
static void test_dyrep_distinct_roots(void) {
    dgnn_events ev;
    gen_events(&ev, 5, 2000, 400, 200);
    dgnn_tcsr g;
    dgnn_err err;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(DGNN_TGNN_DYREP);
    cfg.mem_dim = cfg.emb_dim = 6, cfg.time_dim = 4, cfg.neighbors = 3, cfg.heads = 2;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, 0, &err) == DGNN_OK);
    dgnn_state st;
    CHECK(dgnn_state_init(&st, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), 1, &err) == DGNN_OK);
    const int64_t B = 40, nneg = 2;
    int32_t neg[80];
    float logits[120], labels[120], dlogits[120];
    for (int i = 0; i < 120; i++) labels[i] = i < B ? 1.0f : 0.0f;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 4);
    int ok = 1;
    for (int64_t e0 = 0; e0 + B <= ev.num_events; e0 += B) {
        for (int i = 0; i < 80; i++) neg[i] = (int32_t)(1000 + dgnn_rng_below(&rng, 997)); /* distinct-ish */
        ok &= dgnn_tgnn_forward(m, logits, &st, &g, NULL, &ev, e0, B, neg, nneg, &rng, &err) == DGNN_OK;
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, B * (1 + nneg), 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        dgnn_tgnn_commit(m, &st, &ev);
        for (int64_t i = 0; i < B * (1 + nneg); i++) ok &= isfinite(logits[i]) != 0;
    }
    CHECK_MSG(ok, "dyrep with more distinct roots than 2B: forward failed or not finite");
    dgnn_state_free(&st);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

/* dgnn_tgnn_embed against the forward: after a few training batches (non-trivial memory
 * and mails), an inference batch's roots [src; dst; negatives] embedded one block at a
 * time equal the forward's own root embeddings, and the link predictor applied to them
 * gives back the forward's logits; n = 1 and repeated nodes (at one time and at several)
 * give each pair's own embedding; embed leaves the state as it was, and a batch sampled
 * ahead still reaches the next forward. Float tolerance, not equality: a smaller batch
 * runs the products over other row counts. */
static void test_embed(dgnn_tgnn_kind kind, int64_t de) {
    const char *kn = kind_name(kind);
    dgnn_events ev;
    gen_events(&ev, 21, 30, 240, 120);
    if (de) add_edge_features(&ev, de);
    dgnn_tcsr g;
    dgnn_err err;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(kind);
    cfg.mem_dim = 8, cfg.time_dim = 4, cfg.emb_dim = 8, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.2f;
    cfg.seed = 5, cfg.mail_slots = 3;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    const int64_t E = dgnn_tgnn_embed_dim(m), S = dgnn_tgnn_mail_slots(m);
    CHECK(E == cfg.emb_dim);
    dgnn_state st, before;
    CHECK(dgnn_state_init(&st, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), S, &err) == DGNN_OK);
    CHECK(dgnn_state_init(&before, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), S, &err) == DGNN_OK);
    enum { B = 20, NNEG = 2, R = B * (2 + NNEG) };
    int32_t neg[NNEG * B];
    float logits[(1 + NNEG) * B];
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 4);
    warm_up(m, &st, &g, &ev, B, NNEG, 1e-2, 1.0f, &rng);
    /* the inference batch at event 160 */
    const int64_t e0 = 160;
    for (int i = 0; i < NNEG * B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)ev.num_nodes);
    CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, e0, B, neg, NNEG, NULL, &err) == DGNN_OK);
    float *fwd = malloc((size_t)(R * E) * sizeof(float)), *emb = malloc((size_t)(R * E) * sizeof(float));
    memcpy(fwd, dgnn_tgnn_last_embeddings(m), (size_t)(R * E) * sizeof(float));
    dgnn_state_copy(&before, &st);
    int32_t nodes[R];
    double t[R];
    for (int64_t i = 0; i < R; i++) {
        const int64_t blk = i / B, e = e0 + i % B;
        nodes[i] = blk == 0 ? ev.src[e] : blk == 1 ? ev.dst[e] : neg[(blk - 2) * B + i % B];
        t[i] = ev.t[e];
    }
    double scale = 0;
    for (int64_t i = 0; i < R * E; i++) scale = fmax(scale, fabs(fwd[i]));
    CHECK_MSG(scale > 1e-3, "%s: embeddings all ~0 (max %g)", kn, scale);
    const double tol = 1e-5 * (1 + scale);
    for (int blk = 0; blk < 2 + NNEG; blk++) /* sources, destinations, negatives: one call each */
        CHECK(dgnn_tgnn_embed(m, emb + blk * B * E, &st, &g, ev.efeat, nodes + blk * B, t + blk * B, B, &err) ==
              DGNN_OK);
    CHECK_MSG(maxdiff(emb, fwd, R * E) <= tol, "%s: embed vs forward %g", kn, maxdiff(emb, fwd, R * E));
    CHECK_MSG(state_equal(&before, &st), "%s: embed changed the state", kn);
    /* the link predictor on the embeddings gives the forward's logits */
    dgnn_edgepred_params pp;
    dgnn_edgepred_layout(&pp, (float *)param(m, "link_predictor"), E, E, kind == DGNN_TGNN_APAN);
    float saved[DGNN_EDGEPRED_SAVED(B, NNEG, 8)], lg[(1 + NNEG) * B];
    dgnn_edgepred_forward(lg, saved, emb, emb + B * E, &pp, B, NNEG, E, E);
    CHECK_MSG(maxdiff(lg, logits, (1 + NNEG) * B) <= 1e-4, "%s: logits from embed vs forward %g", kn,
              maxdiff(lg, logits, (1 + NNEG) * B));
    /* n = 1: every pair alone */
    double w1 = 0;
    for (int64_t i = 0; i < R; i++) {
        float one[8];
        CHECK(dgnn_tgnn_embed(m, one, &st, &g, ev.efeat, nodes + i, t + i, 1, &err) == DGNN_OK);
        w1 = fmax(w1, maxdiff(one, fwd + i * E, E));
    }
    CHECK_MSG(w1 <= tol, "%s: n = 1 vs forward %g", kn, w1);
    /* repeated nodes, at one time and at two: each row is its pair's own embedding */
    const int32_t v = ev.src[e0], u = ev.dst[e0 + 3];
    const int32_t rn[6] = {v, v, u, v, u, v};
    const double rt[6] = {t[0], t[0], t[3], ev.t[200], t[3], t[0]};
    float rep[6 * 8];
    CHECK(dgnn_tgnn_embed(m, rep, &st, &g, ev.efeat, rn, rt, 6, &err) == DGNN_OK);
    double w2 = 0;
    for (int i = 0; i < 6; i++) {
        float one[8];
        CHECK(dgnn_tgnn_embed(m, one, &st, &g, ev.efeat, rn + i, rt + i, 1, &err) == DGNN_OK);
        w2 = fmax(w2, maxdiff(one, rep + i * E, E));
    }
    CHECK_MSG(w2 <= tol, "%s: repeated nodes %g", kn, w2);
    CHECK(maxdiff(rep, fwd, E) <= tol && maxdiff(rep + E, fwd, E) <= tol && maxdiff(rep + 5 * E, fwd, E) <= tol);
    if (kind != DGNN_TGNN_DYREP) /* DyRep's embedding is the memory: the same at any later time */
        CHECK_MSG(maxdiff(rep + 3 * E, rep, E) > 1e-6, "%s: a later time gives the same embedding", kn);
    CHECK(state_equal(&before, &st));
    /* bad input: a node outside the graph names the pair */
    int32_t bad = (int32_t)ev.num_nodes;
    CHECK(dgnn_tgnn_embed(m, emb, &st, &g, ev.efeat, &bad, t, 1, &err) == DGNN_EINVAL && strstr(err.msg, "pair 0"));
    CHECK(dgnn_tgnn_embed(m, emb, &st, &g, ev.efeat, nodes, t, 0, &err) == DGNN_OK);
    /* a forward after embed is the forward again, and commits as before */
    float logits2[(1 + NNEG) * B];
    if (dgnn_tgnn_can_presample(m)) { /* a batch sampled ahead survives an embed in between */
        dgnn_tgnn_sample s;
        memset(&s, 0, sizeof s);
        CHECK(dgnn_tgnn_presample(m, &s, &g, &ev, e0, B, neg, NNEG, &err) == DGNN_OK);
        dgnn_tgnn_use_sample(m, &s);
        CHECK(dgnn_tgnn_embed(m, emb, &st, &g, ev.efeat, nodes, t, B, &err) == DGNN_OK);
        CHECK(dgnn_tgnn_forward(m, logits2, &st, &g, ev.efeat, &ev, e0, B, neg, NNEG, NULL, &err) == DGNN_OK);
        dgnn_tgnn_sample_free(&s);
    } else {
        CHECK(dgnn_tgnn_forward(m, logits2, &st, &g, ev.efeat, &ev, e0, B, neg, NNEG, NULL, &err) == DGNN_OK);
    }
    CHECK(memcmp(logits2, logits, sizeof logits) == 0);
    dgnn_tgnn_commit(m, &st, &ev);
    CHECK(!state_equal(&before, &st));
    free(fwd), free(emb);
    dgnn_state_free(&st), dgnn_state_free(&before);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

/* TGN's and JODIE's embeddings (dgnn_tgnn_embed, the forward's own path) against an
 * independent recomputation from the documented formulas (tgnn.h, steps 3-4;
 * docs/tgnn.md): TGN's temporal attention over the k most recent neighbours with
 * time_enc(t_root - t_edge) (attn_ref_emb); JODIE's mem' * (1 + w dt + b) with
 * dt = (t - t_mem') / (t + 1), t_mem' the memory's time after the in-forward update (the
 * pending mail's time: the TGN code's last_update from get_updated_memory). The
 * gradient checks cannot see a forward that is wrong in both directions (a flipped
 * time difference, the stored memory time in place of the updated one). The time
 * encoding's phases are moved away from 0 first: with b = 0, cos(w dt + b) is even in
 * dt and a flipped sign would not show. Pairs: the next batch's endpoints at their
 * event times (pending mails whose time differs from the stored memory time) and the
 * same nodes 7.25 later (dt != 0 for every pair). */
static void test_reference_emb(dgnn_tgnn_kind kind, int64_t de) {
    const char *kn = kind_name(kind);
    dgnn_events ev;
    gen_events(&ev, 31, 30, 240, 120);
    if (de) add_edge_features(&ev, de);
    dgnn_tcsr g;
    dgnn_err err;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(kind);
    cfg.mem_dim = 6, cfg.time_dim = 4, cfg.emb_dim = 6, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.2f;
    cfg.seed = 7;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    dgnn_state st, before;
    CHECK(dgnn_state_init(&st, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), 1, &err) == DGNN_OK);
    CHECK(dgnn_state_init(&before, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), 1, &err) == DGNN_OK);
    enum { B = 20, NNEG = 1, NP = 40 };
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 8);
    warm_up(m, &st, &g, &ev, B, NNEG, 1e-2, 2.0f, &rng);
    dgnn_rng r2;
    dgnn_rng_seed(&r2, 78);
    float *tw = (float *)param(m, "time_enc.w"), *tb = (float *)param(m, "time_enc.b");
    for (int64_t j = 0; j < cfg.time_dim; j++) tw[j] = (float)(0.05 + 0.3 * dgnn_rng_uniform(&r2));
    for (int64_t j = 0; j < cfg.time_dim; j++) tb[j] = (float)(2.0 * dgnn_rng_uniform(&r2) - 1.0);
    int32_t nodes[NP];
    double t[NP];
    int stale = 0; /* pairs whose pending mail is later than the stored memory time */
    for (int i = 0; i < NP; i++) {
        const int64_t e = 160 + (i % (NP / 2)) / 2;
        nodes[i] = i % 2 ? ev.dst[e] : ev.src[e];
        t[i] = ev.t[e] + (i < NP / 2 ? 0.0 : 7.25);
        double mt;
        stale += dgnn_state_last_mail(&st, nodes[i], &mt) && mt != st.mem_t[nodes[i]];
    }
    CHECK_MSG(stale >= 4, "%s: only %d pairs with a pending mail later than the memory", kn, stale);
    dgnn_state_copy(&before, &st);
    const int64_t E = cfg.emb_dim, M = cfg.mem_dim;
    float out[NP * 6], ref[6];
    CHECK(dgnn_tgnn_embed(m, out, &st, &g, ev.efeat, nodes, t, NP, &err) == DGNN_OK);
    double worst = 0, scale = 0;
    for (int i = 0; i < NP; i++) {
        if (kind == DGNN_TGNN_TGN) {
            attn_ref_emb(ref, m, &before, &g, &ev, nodes[i], t[i]);
        } else { /* JODIE */
            float h[6];
            double tm;
            ref_memory(h, &tm, m, &before, nodes[i]);
            const float *jw = param(m, "time_projection.w"), *jb = param(m, "time_projection.b");
            const double dt = (t[i] - tm) / (t[i] + 1.0);
            for (int64_t c = 0; c < M; c++) ref[c] = (float)((double)h[c] * (1.0 + (double)jw[c] * dt + (double)jb[c]));
        }
        worst = fmax(worst, maxdiff(out + i * E, ref, E));
        for (int64_t c = 0; c < E; c++) scale = fmax(scale, fabs(ref[c]));
    }
    CHECK_MSG(scale > 1e-2, "%s: reference embeddings all ~0 (max %g)", kn, scale);
    CHECK_MSG(worst <= 1e-5 * (1 + scale), "%s: embeddings vs the reference formulas: max diff %g (max |emb| %g)", kn,
              worst, scale);
    CHECK(state_equal(&before, &st));
    dgnn_state_free(&st), dgnn_state_free(&before);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

int main(void) {
    run(DGNN_TGNN_TGN, 3);
    run(DGNN_TGNN_TGN, 0);
    run(DGNN_TGNN_JODIE, 2);
    run(DGNN_TGNN_DYREP, 3);
    run(DGNN_TGNN_DYREP, 0);
    test_dyrep_distinct_roots();
    run(DGNN_TGNN_APAN, 3);
    run(DGNN_TGNN_APAN, 0);
    apan_hand();
    test_embed(DGNN_TGNN_TGN, 3);
    test_embed(DGNN_TGNN_TGN, 0);
    test_embed(DGNN_TGNN_JODIE, 0);
    test_embed(DGNN_TGNN_DYREP, 2);
    test_embed(DGNN_TGNN_APAN, 2);
    test_reference_emb(DGNN_TGNN_TGN, 3);
    test_reference_emb(DGNN_TGNN_TGN, 0);
    test_reference_emb(DGNN_TGNN_JODIE, 0);
    dgnn_err err;
    dgnn_tgnn_cfg bad = dgnn_tgnn_cfg_default(DGNN_TGNN_TGN);
    bad.heads = 7;
    dgnn_tgnn *m = NULL;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL && m == NULL);
    bad = dgnn_tgnn_cfg_default(DGNN_TGNN_JODIE);
    bad.emb_dim = 5;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL);
    bad = dgnn_tgnn_cfg_default(DGNN_TGNN_DYREP);
    bad.emb_dim = 100;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL && strstr(err.msg, "dyrep"));
    bad = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    bad.heads = 3;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL && strstr(err.msg, "heads"));
    bad = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    bad.mail_slots = 0;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL && strstr(err.msg, "mail-slots"));
    bad = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    bad.neighbors = 0;
    CHECK(dgnn_tgnn_init(&m, &bad, 10, 0, &err) == DGNN_EINVAL && m == NULL);
    return check_done();
}
