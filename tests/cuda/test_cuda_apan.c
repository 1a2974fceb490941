/* test_cuda_apan.c: the device step of APAN (cuda.h, "one training step of APAN";
 * apan_step.cu) against the CPU model's step (apan.c) on the same batches from the same
 * parameters and state, as test_cuda_tgn.c does for the other kinds.
 * A small APAN (3 mail slots, 2 heads, dropout 0.1 on both its dropouts, edge features)
 * trains 8 batches on the CPU so that memories and every slot of the mailboxes are
 * non-trivial; its parameters, Adam moments and state are copied to the device, and for two
 * consecutive batches both paths run forward, loss, backward, commit and Adam: the batch's
 * bookkeeping is the CPU's own host half (tgnn_apan_plan, run first on a copy of the rng:
 * the seeds are the two u64 it draws next, which must be what the CPU forward drew, and
 * tgnn_apan_mail_targets). Compared: the loss (relative 1e-3), the logits and every
 * parameter tensor's gradient (max error within 1e-3 of the tensor's largest entry; the
 * link predictor's field by field), the committed state (memory and the mail ring within
 * 1e-4 (1 + |x|); times, counts and ring heads exactly), and the parameters and moments
 * after Adam (1e-5 (1 + |x|) of the CPU op on the device's gradients). The first batch
 * runs the training loop's path (loss and logits NULL, then dgnn_cuda_apan_wait_loss) on
 * copies of its host arrays spoiled as soon as the call returns; the second the waiting
 * path. Then inference for 49, 0, 1 and 4 negatives per event, each followed by both
 * commits; and the workspace's growth (the first batch sizes it, the 49 negatives grow
 * it, nothing smaller changes it).
 * Without a GPU, the CPU part runs, then it exits 77. NOT YET RUN ON A GPU: the suite runs
 * it on the host emulation (tests/hostemu), which checks apan_step.cu's composition, not
 * the kernels; the tolerances stay a GPU's. */
#include "../../src/models/tgnn_internal.h"
#include "step_check.h"
#include "random_events.h"
#include "dgnn/adam.h"
#include "dgnn/state.h"
#include "dgnn/tcsr.h"
#include "dgnn/tgnn.h"



/* the batch of the CPU model's last plan (its workspace, tgnn_internal.h), with its deliveries */
static dgnn_cuda_apan_batch cpu_batch(dgnn_tgnn *m, const dgnn_events *ev, const uint64_t *seeds) {
    CHECK(m->R == (2 + m->nneg) * m->B && m->Rs == 2 * m->B);
    const int64_t n = tgnn_apan_mail_targets(m, ev);
    return (dgnn_cuda_apan_batch){.B = m->B, .nneg = m->nneg, .U = m->U, .nmail = n, .roots = m->roots,
                                  .root_t = m->root_t, .row_root = m->row_root, .unodes = m->unodes, .h_t = m->h_t,
                                  .mnodes = m->apan.mnodes, .mts = m->apan.mts, .msrc = m->apan.msrc,
                                  .efeat = ev->efeat + m->e0 * m->de, .seeds = seeds};
}

static dgnn_cuda_apan_batch batch_copy(copies *cp, const dgnn_cuda_apan_batch *b, int64_t de) {
    const int64_t R = (2 + b->nneg) * b->B, n = b->nmail;
    dgnn_cuda_apan_batch y = *b;
    y.roots = copy_of(cp, b->roots, (size_t)R * sizeof(int32_t));
    y.root_t = copy_of(cp, b->root_t, (size_t)R * sizeof(double));
    y.row_root = copy_of(cp, b->row_root, (size_t)R * sizeof(int32_t));
    y.unodes = copy_of(cp, b->unodes, (size_t)b->U * sizeof(int32_t));
    y.h_t = copy_of(cp, b->h_t, (size_t)b->U * sizeof(double));
    y.mnodes = copy_of(cp, b->mnodes, (size_t)n * sizeof(int32_t));
    y.mts = copy_of(cp, b->mts, (size_t)n * sizeof(double));
    y.msrc = copy_of(cp, b->msrc, (size_t)n * sizeof(int32_t));
    y.efeat = copy_of(cp, b->efeat, (size_t)(b->B * de) * sizeof(float));
    y.seeds = copy_of(cp, b->seeds, 2 * sizeof(uint64_t));
    return y;
}


int main(void) {
    printf("== apan\n");
    dgnn_err err;
    dgnn_events ev;
    gen_events(&ev, 11, 30, 240, 120);
    const int64_t de = 3;
    add_edge_features(&ev, de);
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    cfg.mem_dim = 8, cfg.time_dim = 4, cfg.emb_dim = 8, cfg.neighbors = 3, cfg.heads = 2, cfg.dropout = 0.1f;
    cfg.mail_slots = 3, cfg.seed = 3;
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, ev.edge_dim, &err) == DGNN_OK);
    const int64_t N = ev.num_nodes, M = cfg.mem_dim, D = dgnn_tgnn_mail_dim(m), S = cfg.mail_slots;
    CHECK(D == 2 * M + de);
    dgnn_state st;
    CHECK(dgnn_state_init(&st, N, M, D, S, &err) == DGNN_OK);
    enum { B = 20 };
    int32_t neg[B];
    float logits[2 * B], labels[2 * B], dlogits[2 * B];
    for (int i = 0; i < 2 * B; i++) labels[i] = i < B ? 1.0f : 0.0f;
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 9);
    dgnn_params *p = dgnn_tgnn_params(m);
    dgnn_adam opt = dgnn_adam_default(1e-2);
    for (int64_t e0 = 0; e0 + B <= 160; e0 += B) { /* the CPU trainer's step, 8 batches */
        for (int i = 0; i < B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)N);
        dgnn_params_zero_grad(p);
        CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, e0, B, neg, 1, &rng, &err) == DGNN_OK);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        dgnn_tgnn_commit(m, &st, &ev);
        dgnn_adam_step_params(&opt, p);
    }
    int nonzero = 0, full = 0;
    for (int64_t i = 0; i < N * M; i++) nonzero += st.mem[i] != 0;
    for (int64_t v = 0; v < N; v++) full += st.mail_n[v] == S;
    CHECK_MSG(nonzero > 20 && full > 5, "after 8 batches: %d non-zero memory entries, %d full mailboxes", nonzero, full);

    dgnn_cuda *c = cuda_check_open("test_cuda_apan"); /* exits 77 without a device */
#if DGNN_CUDA_HOSTEMU
    printf("test_cuda_apan: on the host emulation of the CUDA layer (the CPU's ops: apan_step.cu's composition is "
           "under test, not the kernels)\n");
#endif
    const tgnn_tensors *w = &m->w;
    const dgnn_cuda_apan_cfg ac = {
        .M = M, .T = cfg.time_dim, .de = de, .S = S, .heads = cfg.heads, .dropout = cfg.dropout, .total = p->total,
        .off_te_w = tgnn_offset(m, w->te_w), .off_te_b = tgnn_offset(m, w->te_b), .off_wq = tgnn_offset(m, w->wq),
        .off_bq = tgnn_offset(m, w->bq), .off_wk = tgnn_offset(m, w->wk), .off_bk = tgnn_offset(m, w->bk),
        .off_wv = tgnn_offset(m, w->wv), .off_bv = tgnn_offset(m, w->bv), .off_ln1_g = tgnn_offset(m, w->ln1_g),
        .off_ln1_b = tgnn_offset(m, w->ln1_b), .off_mlp_w = tgnn_offset(m, w->mlp_w),
        .off_mlp_b = tgnn_offset(m, w->mlp_b), .off_ln2_g = tgnn_offset(m, w->ln2_g),
        .off_ln2_b = tgnn_offset(m, w->ln2_b)};
    dgnn_cuda_apan t;
    CUDA_OK(dgnn_cuda_apan_init(c, &t, &ac, ERR));
    const int64_t off_pred = tgnn_offset(m, w->pred);
    dgnn_edgepred_layout(&t.pp, t.param + off_pred, M, M, 1); /* APAN's predictor has the dst bias */
    dgnn_edgepred_layout(&t.dpp, t.grad + off_pred, M, M, 1);
    const size_t slab_bytes = (size_t)p->total * sizeof(float);
    params_upload(c, p, t.param, t.adam_m, t.adam_v);
    dgnn_cuda_state ds;
    CUDA_OK(dgnn_cuda_state_init(c, &ds, N, M, D, S, ERR));
    upload_state(c, &ds, &st);
    CHECK(dgnn_cuda_apan_workspace_bytes(&t) == 0);
    float no_loss;
    dgnn_err_clear(ERR);
    CHECK(dgnn_cuda_apan_wait_loss(c, &t, &no_loss, ERR) == DGNN_EINVAL);

    size_t ws_bytes = 0;
    int64_t big_U = 0, big_n = 0;
    for (int64_t e0 = 160; e0 + B <= 200; e0 += B) {
        const int first = e0 == 160;
        for (int i = 0; i < B; i++) neg[i] = (int32_t)dgnn_rng_below(&rng, (uint64_t)N);
        /* the host half alone on a copy of the rng, then the two dropout seeds after it */
        dgnn_rng drop = rng;
        CHECK(tgnn_begin(m, &st, &ev, e0, B, 1, &err) == DGNN_OK);
        CHECK(tgnn_apan_plan(m, &g, &ev, neg, &drop, &err) == DGNN_OK);
        uint64_t seeds[2];
        seeds[0] = dgnn_rng_u64(&drop), seeds[1] = dgnn_rng_u64(&drop);
        dgnn_params_zero_grad(p);
        CHECK(dgnn_tgnn_forward(m, logits, &st, &g, ev.efeat, &ev, e0, B, neg, 1, &rng, &err) == DGNN_OK);
        CHECK_MSG(memcmp(&drop, &rng, sizeof rng) == 0, "the CPU forward drew other than the plan and two seeds");
        const float cpu_loss = dgnn_bce_logits_forward(NULL, logits, labels, 2 * B);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        const dgnn_cuda_apan_batch b = cpu_batch(m, &ev, seeds);
        CHECK_MSG(m->U < m->R && b.nmail > 2 * B, "a trivial batch: U %lld of %lld roots, %lld mails", (long long)m->U,
                  (long long)m->R, (long long)b.nmail);
        float dev_loss = NAN, dev_logits[2 * B];
        if (first) {
            copies cp = {0};
            const dgnn_cuda_apan_batch bc = batch_copy(&cp, &b, de);
            CUDA_OK(dgnn_cuda_apan_forward_backward(c, &t, &ds, &bc, 2.0f, NULL, NULL, ERR));
            copies_spoil(&cp);
            CUDA_OK(dgnn_cuda_apan_wait_loss(c, &t, &dev_loss, ERR));
            copies_free(&cp);
        } else {
            CUDA_OK(dgnn_cuda_apan_forward_backward(c, &t, &ds, &b, 2.0f, &dev_loss, dev_logits, ERR));
            near_tensor("logits", dev_logits, logits, 2 * B, 1e-3);
        }
        printf("batch at %lld (%s): loss cpu %.6f device %.6f (U %lld rows x %lld slots, %lld mails; workspace %zu "
               "bytes)\n", (long long)e0, first ? "enqueued, then waited for" : "waiting", cpu_loss, dev_loss,
               (long long)m->U, (long long)S, (long long)b.nmail, dgnn_cuda_apan_workspace_bytes(&t));
        CHECK_MSG(fabs((double)dev_loss - cpu_loss) <= 1e-3 * fabs((double)cpu_loss), "loss %g vs %g", dev_loss,
                  cpu_loss);
        if (first) {
            ws_bytes = dgnn_cuda_apan_workspace_bytes(&t), big_U = m->U, big_n = b.nmail;
            CHECK(ws_bytes > 0);
        } else if (m->U <= big_U && b.nmail <= big_n) {
            CHECK_MSG(dgnn_cuda_apan_workspace_bytes(&t) == ws_bytes, "workspace: %zu bytes, %zu after the first batch",
                      dgnn_cuda_apan_workspace_bytes(&t), ws_bytes);
        }
        near_slab(c, "gradient", t.grad, p->grad, p, 1e-3);
        {
            float *hg = malloc(slab_bytes);
            down(c, hg, t.grad, slab_bytes, "the device gradients");
            dgnn_edgepred_params gp;
            const int64_t np_ = dgnn_edgepred_layout(&gp, p->grad + off_pred, M, M, 1);
            const field fp[] = {{"Ws", gp.Ws}, {"bs", gp.bs}, {"Wd", gp.Wd}, {"bd", gp.bd}, {"Wo", gp.Wo}, {"bo", gp.bo}};
            near_fields("gradient of link_predictor", hg + off_pred, p->grad + off_pred, np_, fp,
                        (int)(sizeof fp / sizeof fp[0]), NULL, 1e-3);
            free(hg);
        }
        /* commit (before Adam, as the trainer does), on both sides */
        dgnn_tgnn_commit(m, &st, &ev);
        CUDA_OK(dgnn_cuda_apan_commit(c, &t, &ds, &b, ERR));
        near_state(c, &ds, &st);
        /* Adam, against the CPU op on the device's own gradients (step_check.h) */
        adam_ref ar = adam_reference(c, p, &opt, t.grad);
        CUDA_OK(dgnn_cuda_apan_adam(c, &t, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay, opt.t, ERR));
        adam_check(c, &ar, p->total, t.param, t.adam_m, t.adam_v);
        params_upload(c, p, t.param, t.adam_m, t.adam_v);
    }

    /* inference: no dropout (rng NULL, seeds NULL), from the CPU's state, each followed by
     * both commits */
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
        const dgnn_cuda_apan_batch b = cpu_batch(m, &ev, NULL);
        const size_t before = dgnn_cuda_apan_workspace_bytes(&t);
        CUDA_OK(dgnn_cuda_apan_forward(c, &t, &ds, &b, dev, ERR));
        const size_t after = dgnn_cuda_apan_workspace_bytes(&t);
        printf("inference, %lld negatives: R %lld (U %lld, %lld mails; workspace %zu bytes)\n", (long long)nneg,
               (long long)m->R, (long long)m->U, (long long)b.nmail, after);
        char what[80];
        snprintf(what, sizeof what, "inference logits, %lld negatives", (long long)nneg);
        near_tensor(what, dev, cpu, L, 1e-3);
        if (j == 0) {
            CHECK_MSG(after > before, "workspace: %zu bytes for 510 roots, %zu for the training's 60", after, before);
        } else {
            CHECK_MSG(after == before, "%s: workspace %zu bytes, %zu before", what, after, before);
        }
        dgnn_tgnn_commit(m, &st, &ev);
        CUDA_OK(dgnn_cuda_apan_commit(c, &t, &ds, &b, ERR));
        near_state(c, &ds, &st);
        FREE(negs, cpu, dev);
    }

    dgnn_cuda_apan_free(c, &t);
    dgnn_cuda_state_free(c, &ds);
    dgnn_cuda_free(c);
    dgnn_state_free(&st);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
    return check_done();
}
