/* test_cuda_tgn.c: the device step of the memory models (cuda.h, "one training step of
 * the memory models"; tgn_step.cu) against the CPU model's step on the same batches from
 * the same parameters and state, for TGN, JODIE and DyRep in turn.
 * A small model (TGN: GRU updater, TGN attention with dropout; JODIE: RNN, the time
 * projection; DyRep: RNN, the attention for the mails; edge features) trains a few
 * batches on the CPU so that memories and mails are non-trivial; its parameters, Adam
 * moments and state are then copied to the device, and for two consecutive batches both
 * paths run forward, loss, backward, commit and Adam: the batch's bookkeeping (roots,
 * neighbours, distinct nodes, pairs, rows with mail) is the CPU model's own, read from
 * its workspace (tgnn_internal.h), and the attention's dropout seed is the one the CPU
 * forward draws from its rng. Compared: the loss (relative 1e-3), the logits and every
 * parameter tensor's gradient (max error within 1e-3 of the tensor's largest entry; the
 * attention's and the link predictor's, one tensor each, also field by field), the
 * committed state (memory and mails within 1e-4 (1 + |x|), times, counts and ring heads
 * exactly), and the parameters and moments after Adam (within 1e-5 (1 + |x|) of the CPU
 * op applied to the device's gradients). The second batch reads the state the first
 * one's device commit wrote (the parameters are the CPU's again). The first batch runs
 * the training loop's path (loss and logits NULL: the call only enqueues; then
 * dgnn_cuda_tgn_wait_loss) on copies of its host arrays that are overwritten as soon as
 * the call returns; the second the waiting path (loss and logits back).
 * Then inference, evaluation's forward: the CPU's forward without dropout against
 * dgnn_cuda_tgn_forward on the same state, for 49 negatives per event, none (the positive
 * pairs alone), 1 and 4 (logits within 1e-3 of the largest), each followed by both
 * commits (the state as above). And the workspace: sized by the first batch, unchanged
 * by the second (no larger in any size), grown by the 49 negatives, unchanged by the
 * smaller inference batches after it.
 * Without a GPU, the CPU part runs, then the refusal is checked and it exits 77.
 * NOT YET RUN ON A GPU. The suite runs it on the host emulation of the CUDA layer
 * (tests/hostemu, DGNN_CUDA_HOSTEMU): the device ops are then the CPU's own, so it checks
 * tgn_step.cu's composition (which arrays go where, the commit, the workspace), not the
 * kernels; the tolerances stay a GPU's. */
#include "../../src/models/tgnn_internal.h"
#include "step_check.h"
#include "random_events.h"
#include "dgnn/adam.h"
#include "dgnn/state.h"
#include "dgnn/tcsr.h"
#include "dgnn/tgnn.h"

/* the batch of the CPU model's last forward, as it prepared it (its workspace,
 * tgnn_internal.h); the roots it sampled for are the kind's: TGN all, DyRep the 2B true
 * ones, JODIE none */
static dgnn_cuda_tgn_batch cpu_batch(const dgnn_tgnn *m, const dgnn_events *ev, const uint64_t *seeds) {
    const int64_t Rs = m->cfg.kind == DGNN_TGNN_TGN ? m->R : m->cfg.kind == DGNN_TGNN_DYREP ? 2 * m->B : 0;
    CHECK(m->R == (2 + m->nneg) * m->B && m->Rs == Rs);
    return (dgnn_cuda_tgn_batch){.B = m->B, .nneg = m->nneg, .P = m->P, .U = m->U, .Ur = m->Ur, .Um = m->Um,
                                 .roots = m->roots, .root_t = m->root_t, .row_root = m->row_root, .off = m->off,
                                 .nbr_row = m->nbr_row, .pair_dt = m->pair_dt, .pair_e = m->pair_e,
                                 .unodes = m->unodes, .mrow = m->mrow, .efeat = ev->efeat + m->e0 * m->de,
                                 .seeds = seeds};
}

/* the attention's saved slab for the CPU model's last batch: device memory laid out for
 * (Rs, P, U, P) into *dsv (none for JODIE: NULL); release it after a wait */
static float *saved_slab(dgnn_cuda *c, const dgnn_tgnn *m, dgnn_tattn_saved *dsv) {
    memset(dsv, 0, sizeof *dsv);
    if (!m->w.attn) return NULL;
    const int64_t ns = dgnn_tattn_saved_layout(NULL, NULL, &m->acfg, m->Rs, m->P, m->U, m->P);
    float *sslab = NULL;
    CUDA_OK(dgnn_cuda_alloc(c, (void **)&sslab, (size_t)ns * sizeof(float), "the attention's saved slab", ERR));
    dgnn_tattn_saved_layout(dsv, sslab, &m->acfg, m->Rs, m->P, m->U, m->P);
    return sslab;
}

static dgnn_cuda_tgn_batch batch_copy(copies *cp, const dgnn_cuda_tgn_batch *b, int64_t de) {
    const int64_t R = (2 + b->nneg) * b->B, P = b->P;
    dgnn_cuda_tgn_batch y = *b;
    y.roots = copy_of(cp, b->roots, (size_t)R * sizeof(int32_t));
    y.root_t = copy_of(cp, b->root_t, (size_t)R * sizeof(double));
    y.row_root = copy_of(cp, b->row_root, (size_t)R * sizeof(int32_t));
    y.off = copy_of(cp, b->off, (size_t)(R + 1) * sizeof(int64_t));
    y.nbr_row = copy_of(cp, b->nbr_row, (size_t)P * sizeof(int32_t));
    y.pair_dt = copy_of(cp, b->pair_dt, (size_t)P * sizeof(float));
    y.pair_e = copy_of(cp, b->pair_e, (size_t)(P * de) * sizeof(float));
    y.unodes = copy_of(cp, b->unodes, (size_t)b->U * sizeof(int32_t));
    y.mrow = copy_of(cp, b->mrow, (size_t)b->Um * sizeof(int32_t));
    y.efeat = copy_of(cp, b->efeat, (size_t)(b->B * de) * sizeof(float));
    y.seeds = copy_of(cp, b->seeds, 2 * sizeof(uint64_t)); /* the attention's dropout seeds (an array of 2) */
    return y;
}
/* the step's grad hook (cuda.h, dgnn_cuda_tgn.grad_ready): what it was given, and the slab
 * as the stream had it then */
typedef struct {
    dgnn_cuda *c;
    int calls;
    int64_t off, n, total;
    float *slab; /* (total) host */
    const float *dgrad;
} hook_seen;

static int hook(void *ctx, int64_t off, int64_t n, dgnn_err *err) {
    hook_seen *h = ctx;
    h->calls++, h->off = off, h->n = n;
    int rc = dgnn_cuda_download(h->c, h->slab, h->dgrad, (size_t)h->total * sizeof(float), err);
    return rc ? rc : dgnn_cuda_sync(h->c, err);
}

static void run(dgnn_tgnn_kind kind, const char *name) {
    printf("== %s\n", name);
    dgnn_err err;
    dgnn_events ev;
    gen_events(&ev, 11, 30, 240, 120);
    const int64_t de = 3;
    add_edge_features(&ev, de);
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(kind);
    cfg.mem_dim = 8, cfg.time_dim = 4, cfg.emb_dim = 8, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.1f;
    cfg.seed = 3;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    const int64_t N = ev.num_nodes, M = cfg.mem_dim, D = dgnn_tgnn_mail_dim(m), E = cfg.emb_dim;
    dgnn_state st;
    CHECK(dgnn_state_init(&st, N, M, D, 1, &err) == DGNN_OK);
    enum { B = 20 };
    int32_t neg[B];
    float logits[2 * B], labels[2 * B], dlogits[2 * B];
    for (int i = 0; i < 2 * B; i++) labels[i] = i < B ? 1.0f : 0.0f;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 9);
    dgnn_params *p = dgnn_tgnn_params(m);
    dgnn_adam opt = dgnn_adam_default(1e-2);
    /* the CPU trainer's step (event_step.c, one rank: G = B), 8 batches of warm-up */
    for (int64_t e0 = 0; e0 + B <= 160; e0 += B) {
        for (int i = 0; i < B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)N);
        dgnn_params_zero_grad(p);
        CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, e0, B, neg, 1, &rng, &err) == DGNN_OK);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        dgnn_tgnn_commit(m, &st, &ev);
        dgnn_adam_step_params(&opt, p);
    }
    int nonzero = 0;
    for (int64_t i = 0; i < N * M; i++) nonzero += st.mem[i] != 0;
    CHECK_MSG(nonzero > 20, "memories after 8 batches: %d non-zero entries", nonzero);

    dgnn_cuda *c = cuda_check_open("test_cuda_tgn"); /* exits 77 without a device */
#if DGNN_CUDA_HOSTEMU
    printf("test_cuda_tgn: on the host emulation of the CUDA layer (the CPU's ops: tgn_step.cu's composition is "
           "under test, not the kernels)\n");
#endif

    /* the device model: the CPU's slab layout, parameters and moments */
    const int jodie = kind == DGNN_TGNN_JODIE, attn = m->w.attn != NULL;
    const dgnn_cuda_tgn_cfg dc = {
        .M = M, .T = cfg.time_dim, .D = D, .de = de, .E = E, .acfg = m->acfg, .total = p->total,
        .emb = kind == DGNN_TGNN_TGN ? DGNN_CUDA_EMB_ATTN : jodie ? DGNN_CUDA_EMB_JODIE : DGNN_CUDA_EMB_DYREP,
        .rnn = kind != DGNN_TGNN_TGN, .off_te_w = tgnn_offset(m, m->w.te_w), .off_te_b = tgnn_offset(m, m->w.te_b),
        .off_W_ih = tgnn_offset(m, m->w.W_ih), .off_W_hh = tgnn_offset(m, m->w.W_hh),
        .off_b_ih = tgnn_offset(m, m->w.b_ih), .off_b_hh = tgnn_offset(m, m->w.b_hh),
        .off_jw = jodie ? tgnn_offset(m, m->w.jw) : 0, .off_jb = jodie ? tgnn_offset(m, m->w.jb) : 0};
    dgnn_cuda_tgn t;
    CUDA_OK(dgnn_cuda_tgn_init(c, &t, &dc, ERR));
    const int64_t off_attn = attn ? tgnn_offset(m, m->w.attn) : 0, off_pred = tgnn_offset(m, m->w.pred);
    if (attn) { /* device pointers: the layouts add offsets */
        dgnn_tattn_params_layout(&t.ap, t.param + off_attn, &m->acfg);
        dgnn_tattn_params_layout(&t.dap, t.grad + off_attn, &m->acfg);
    }
    dgnn_edgepred_layout(&t.pp, t.param + off_pred, E, E, 0);
    dgnn_edgepred_layout(&t.dpp, t.grad + off_pred, E, E, 0);
    const size_t slab_bytes = (size_t)p->total * sizeof(float);
    params_upload(c, p, t.param, t.adam_m, t.adam_v);
    /* the device state: the CPU's after the warm-up */
    dgnn_cuda_state ds;
    CUDA_OK(dgnn_cuda_state_init(c, &ds, N, M, D, 1, ERR));
    upload_state(c, &ds, &st);
    CHECK(dgnn_cuda_tgn_workspace_bytes(&t) == 0); /* it comes with the first batch */
    float no_loss;
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_tgn_wait_loss(c, &t, &no_loss, ERR) == DGNN_EINVAL); /* no forward_backward yet */

    size_t ws_bytes = 0;                      /* the workspace after the first batch */
    int64_t big_P = 0, big_U = 0, big_Um = 0; /* the sizes it was made for */
    for (int64_t e0 = 160; e0 + B <= 200; e0 += B) {
        const int first = e0 == 160;
        for (int i = 0; i < B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)N);
        /* the CPU step; the attention's dropout seeds are what its forward draws (TGN,
         * DyRep: one u64; JODIE: none) */
        dgnn_rng drop = rng;
        dgnn_params_zero_grad(p);
        CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, e0, B, neg, 1, &rng, &err) == DGNN_OK);
        uint64_t seeds[2] = {0, 0};
        const int ns = attn ? dgnn_tattn_draw_seeds(&m->acfg, &drop, seeds) : 0;
        CHECK(ns == attn);
        CHECK_MSG(memcmp(&drop, &rng, sizeof rng) == 0, "the CPU forward drew other than its seeds from its rng");
        const float cpu_loss = dgnn_bce_logits_forward(NULL, logits, labels, 2 * B);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        /* the batch as the CPU prepared it */
        const dgnn_cuda_tgn_batch b = cpu_batch(m, &ev, ns > 0 ? seeds : NULL);
        CHECK_MSG(m->Um > 0 && (m->P > 0) == attn && m->Ur < m->R, "a trivial batch: U %lld Um %lld P %lld",
                  (long long)m->U, (long long)m->Um, (long long)m->P);
        dgnn_tattn_saved dsv;
        float *sslab = saved_slab(c, m, &dsv);
        float dev_loss = NAN, dev_logits[2 * B];
        if (first) {
            /* the training loop's path: the call only enqueues, and overwriting the arrays
             * it was given right after it returns must change nothing */
            copies cp = {0};
            const dgnn_cuda_tgn_batch bc = batch_copy(&cp, &b, de);
            /* and the grad hook: called once, before the updater's backward, with the suffix
             * that is final then (the embedding's and the predictor's gradients) */
            hook_seen hs = {c, 0, -1, -1, p->total, malloc(slab_bytes), t.grad};
            t.grad_ready = hook, t.grad_ready_ctx = &hs, t.grad_split = dgnn_tgnn_grad_split(m);
            CUDA_OK(dgnn_cuda_tgn_forward_backward(c, &t, &ds, &bc, &dsv, 2.0f, NULL, NULL, ERR));
            t.grad_ready = NULL, t.grad_ready_ctx = NULL;
            copies_spoil(&cp);
            CUDA_OK(dgnn_cuda_tgn_wait_loss(c, &t, &dev_loss, ERR));
            copies_free(&cp);
            float *final = malloc(slab_bytes);
            CUDA_OK(dgnn_cuda_download(c, final, t.grad, slab_bytes, ERR));
            CUDA_OK(dgnn_cuda_sync(c, ERR));
            CHECK_MSG(hs.calls == 1 && hs.off == t.grad_split && hs.off > 0 && hs.off + hs.n == p->total,
                      "the grad hook: %d calls, off %lld n %lld (split %lld of %lld)", hs.calls, (long long)hs.off,
                      (long long)hs.n, (long long)t.grad_split, (long long)p->total);
            CHECK_MSG(memcmp(hs.slab + hs.off, final + hs.off, (size_t)hs.n * sizeof(float)) == 0,
                      "the suffix the grad hook was given changed after it");
            int64_t moved = 0; /* the updater's gradients came after the hook */
            for (int64_t i = dc.off_W_ih; i < dc.off_W_ih + m->gates * M * D && i < t.grad_split; i++)
                moved += hs.slab[i] != final[i];
            CHECK_MSG(moved > 0, "the updater's gradients were all there when the grad hook ran");
            free(final), free(hs.slab);
        } else {
            CUDA_OK(dgnn_cuda_tgn_forward_backward(c, &t, &ds, &b, &dsv, 2.0f, &dev_loss, dev_logits, ERR));
            near_tensor("logits", dev_logits, logits, 2 * B, 1e-3);
        }
        printf("batch at %lld (%s): loss cpu %.6f device %.6f (U %lld, Um %lld, P %lld; workspace %zu bytes)\n",
               (long long)e0, first ? "enqueued, then waited for" : "waiting", cpu_loss, dev_loss, (long long)m->U,
               (long long)m->Um, (long long)m->P, dgnn_cuda_tgn_workspace_bytes(&t));
        CHECK_MSG(fabs((double)dev_loss - cpu_loss) <= 1e-3 * fabs((double)cpu_loss), "loss %g vs %g", dev_loss,
                  cpu_loss);
        /* the first batch sizes the workspace; the second, no larger in any size, reuses it */
        if (first) {
            ws_bytes = dgnn_cuda_tgn_workspace_bytes(&t), big_P = m->P, big_U = m->U, big_Um = m->Um;
            CHECK(ws_bytes > 0);
        } else {
            CHECK_MSG(m->P <= big_P && m->U <= big_U && m->Um <= big_Um, "the second batch is larger (P %lld, U %lld, "
                      "Um %lld)", (long long)m->P, (long long)m->U, (long long)m->Um);
            CHECK_MSG(dgnn_cuda_tgn_workspace_bytes(&t) == ws_bytes, "workspace: %zu bytes, %zu after the first batch",
                      dgnn_cuda_tgn_workspace_bytes(&t), ws_bytes);
        }
        near_slab(c, "gradient", t.grad, p->grad, p, 1e-3);
        {   /* and the attention's and the predictor's fields, each at its own scale; the key
             * bias's gradient is rounding noise (softmax cancels q . bk, the same for every
             * key of a query), so it is held to the attention's scale */
            float *hg = malloc(slab_bytes);
            down(c, hg, t.grad, slab_bytes, "the device gradients");
            if (kind == DGNN_TGNN_TGN) { /* DyRep's attention gets no gradient (near_slab: zero on both) */
                dgnn_tattn_params ga;
                const float *ra = p->grad + off_attn;
                dgnn_tattn_params_layout(&ga, p->grad + off_attn, &m->acfg);
                const field fa[] = {{"Wq", ga.Wq}, {"bq", ga.bq}, {"Wk", ga.Wk}, {"bk", ga.bk}, {"Wv", ga.Wv},
                                    {"bv", ga.bv}, {"Wo", ga.Wo}, {"bo", ga.bo}, {"W1", ga.W1}, {"b1", ga.b1},
                                    {"W2", ga.W2}, {"b2", ga.b2}, {"ln_g", ga.ln_g}, {"ln_b", ga.ln_b}};
                const int64_t na = dgnn_tattn_params_layout(NULL, NULL, &m->acfg);
                near_fields("gradient of attention", hg + off_attn, ra, na, fa, (int)(sizeof fa / sizeof fa[0]), "bk",
                            1e-3);
            }
            dgnn_edgepred_params gp;
            const float *rp_ = p->grad + off_pred;
            const int64_t np_ = dgnn_edgepred_layout(&gp, p->grad + off_pred, E, E, 0);
            const field fp[] = {{"Ws", gp.Ws}, {"bs", gp.bs}, {"Wd", gp.Wd}, {"bd", gp.bd}, {"Wo", gp.Wo}, {"bo", gp.bo}};
            near_fields("gradient of link_predictor", hg + off_pred, rp_, np_, fp, (int)(sizeof fp / sizeof fp[0]), NULL,
                        1e-3);
            free(hg);
        }
        /* commit (before Adam, as the trainer does), on both sides */
        dgnn_tgnn_commit(m, &st, &ev);
        CUDA_OK(dgnn_cuda_tgn_commit(c, &t, &ds, &b, ERR));
        near_state(c, &ds, &st);
        /* Adam, against the CPU op on the device's own gradients (step_check.h) */
        adam_ref ar = adam_reference(c, p, &opt, t.grad);
        CUDA_OK(dgnn_cuda_tgn_adam(c, &t, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay, opt.t, ERR));
        adam_check(c, &ar, p->total, t.param, t.adam_m, t.adam_v);
        params_upload(c, p, t.param, t.adam_m, t.adam_v);
        dgnn_cuda_release(c, sslab);
    }

    /* Inference (evaluation's forward: no dropout, the CPU's rng NULL and seeds NULL) on
     * batches of 10 events, each from the CPU's state (uploaded) and parameters (the
     * device's are the CPU's again): 49 negatives per event first (510 roots: it outgrows
     * the training's workspace), then none (R = 2B roots, B logits), 1 and 4, each smaller
     * in every size than the first, which must leave the workspace as it is. */
    dgnn_rng nr;
    dgnn_rng_seed(&nr, 21);
    const int64_t nnegs[] = {49, 0, 1, 4}, Bi = 10;
    for (int j = 0; j < 4; j++) {
        const int64_t nneg = nnegs[j], e0 = 200 + j * Bi, L = (1 + nneg) * Bi;
        int32_t *negs = malloc((size_t)(nneg * Bi + 1) * sizeof(int32_t));
        for (int64_t i = 0; i < nneg * Bi; i++) negs[i] = (int32_t)dgnn_rng_below(&nr, (uint64_t)N);
        float *cpu = malloc((size_t)L * sizeof(float)), *dev = malloc((size_t)L * sizeof(float));
        CHECK(dgnn_tgnn_forward(m, cpu, &st, &g, ev.efeat, &ev, e0, Bi, negs, nneg, NULL, &err) == DGNN_OK);
        upload_state(c, &ds, &st);
        const dgnn_cuda_tgn_batch b = cpu_batch(m, &ev, NULL);
        dgnn_tattn_saved dsv;
        float *sslab = saved_slab(c, m, &dsv);
        const size_t before = dgnn_cuda_tgn_workspace_bytes(&t);
        CUDA_OK(dgnn_cuda_tgn_forward(c, &t, &ds, &b, &dsv, dev, ERR));
        const size_t after = dgnn_cuda_tgn_workspace_bytes(&t);
        printf("inference, %lld negatives: R %lld (U %lld, Um %lld, P %lld; workspace %zu bytes)\n", (long long)nneg,
               (long long)m->R, (long long)m->U, (long long)m->Um, (long long)m->P, after);
        char what[80];
        snprintf(what, sizeof what, "inference logits, %lld negatives", (long long)nneg);
        near_tensor(what, dev, cpu, L, 1e-3);
        if (j == 0) {
            CHECK_MSG(after > before, "workspace: %zu bytes for 510 roots, %zu for the training's 60", after, before);
            big_P = m->P, big_U = m->U, big_Um = m->Um;
        } else {
            CHECK_MSG(m->P <= big_P && m->U <= big_U && m->Um <= big_Um, "%s: a batch larger than the first (P %lld, "
                      "U %lld, Um %lld)", what, (long long)m->P, (long long)m->U, (long long)m->Um);
            CHECK_MSG(after == before, "%s: workspace %zu bytes, %zu before", what, after, before);
        }
        /* the commit after an inference forward (evaluation advances the state too) */
        dgnn_tgnn_commit(m, &st, &ev);
        CUDA_OK(dgnn_cuda_tgn_commit(c, &t, &ds, &b, ERR));
        near_state(c, &ds, &st); /* waits: nothing queued still reads the saved slab */
        dgnn_cuda_release(c, sslab);
        FREE(negs, cpu, dev);
    }

    dgnn_cuda_tgn_free(c, &t);
    dgnn_cuda_state_free(c, &ds);
    dgnn_cuda_free(c);
    dgnn_state_free(&st);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

#if DGNN_CUDA_HOSTEMU
#include <signal.h>
#include <sys/wait.h>
/* The emulation's guard, which every check above relies on: host code that reads device
 * memory outside a device op faults, for a small allocation (pages) and for a large one
 * (2 MiB huge pages, hostemu.cpp), at its first and its last byte. Each read runs in a
 * child, whose end by SIGSEGV is the pass. */
static void check_guard(void) {
    const size_t sizes[2] = {100, (size_t)3 << 20};
    for (int k = 0; k < 2; k++)
        for (int last = 0; last < 2; last++) {
            fflush(stdout);
            const pid_t pid = fork();
            if (pid == 0) {
                dgnn_err err;
                dgnn_cuda *c;
                unsigned char *d;
                if (dgnn_cuda_init(&c, 0, &err) || dgnn_cuda_alloc(c, (void **)&d, sizes[k], "the guard's probe", &err))
                    _exit(3);
                volatile unsigned char x = d[last ? sizes[k] - 1 : 0];
                (void)x;
                _exit(0); /* read: not guarded */
            }
            int status = 0;
            CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
            CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
                      "a host read of byte %zu of a %zu-byte device allocation: status %d (want SIGSEGV)",
                      last ? sizes[k] - 1 : 0, sizes[k], status);
        }
}
#endif

int main(void) {
#if DGNN_CUDA_HOSTEMU
    check_guard();
#endif
    run(DGNN_TGNN_TGN, "tgn");
    run(DGNN_TGNN_JODIE, "jodie");
    run(DGNN_TGNN_DYREP, "dyrep");
    return check_done();
}
