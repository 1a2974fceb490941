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
#include "cuda_check.h"
#include "random_events.h"
#include "dgnn/adam.h"
#include "dgnn/state.h"
#include "dgnn/tcsr.h"
#include "dgnn/tgnn.h"

/* h against ref (n): max |h - ref| <= rtol * max |ref| + 1e-7 (a tensor's gradients span
 * orders of magnitude, so the scale is the tensor's, not each entry's); no NaN */
static void near_scaled(const char *what, const float *h, const float *ref, int64_t n, double rtol, double scale) {
    double worst = 0;
    int64_t at = -1, nans = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = fabs((double)h[i] - (double)ref[i]);
        scale = fmax(scale, fabs((double)ref[i]));
        if (d != d) nans++;
        else if (d > worst) worst = d, at = i;
    }
    CHECK_MSG(nans == 0 && worst <= rtol * scale + 1e-7, "%s: %lld NaN, max error %g at %lld (%g vs %g), scale %g",
              what, (long long)nans, worst, (long long)at, at >= 0 ? h[at] : 0.0, at >= 0 ? ref[at] : 0.0, scale);
}
static void near_tensor(const char *what, const float *h, const float *ref, int64_t n, double rtol) {
    near_scaled(what, h, ref, n, rtol, 0);
}

/* One tensor of the table (the attention's, the link predictor's) field by field: nf
 * fields in slab order, each where the layout put it over ref (NULL: an empty field), h
 * the same n floats from the device. A field compared at its tensor's scale, i.e. at its
 * largest field's, could be wrong and still pass; so each field is held to its own scale,
 * but not below 1e-2 of the tensor's (a sum that cancels, such as the one-float bias of the
 * predictor's output, keeps the rounding of its terms, which are the tensor's size), and
 * `noise` (or NULL), a gradient that is zero but for rounding, to the tensor's. */
typedef struct {
    const char *name;
    const float *at;
} field;
static void near_fields(const char *what, const float *h, const float *ref, int64_t n, const field *f, int nf,
                        const char *noise, double rtol) {
    double block = 0;
    for (int64_t i = 0; i < n; i++) block = fmax(block, fabs((double)ref[i]));
    for (int i = 0; i < nf; i++) {
        if (!f[i].at) continue;
        const int64_t o = f[i].at - ref;
        int64_t e = n;
        for (int j = i + 1; j < nf; j++)
            if (f[j].at) {
                e = f[j].at - ref;
                break;
            }
        char name[160];
        snprintf(name, sizeof name, "%s.%s", what, f[i].name);
        near_scaled(name, h + o, ref + o, e - o, rtol, noise && strcmp(f[i].name, noise) == 0 ? block : 1e-2 * block);
    }
}

/* device array d (n floats) against host ref per tensor of p's table */
static void near_slab(dgnn_cuda *c, const char *what, const float *d, const float *ref, const dgnn_params *p,
                      double rtol) {
    float *h = malloc((size_t)p->total * sizeof(float));
    down(c, h, d, (size_t)p->total * sizeof(float), what);
    for (int i = 0; i < p->ntensors; i++) {
        char name[160];
        snprintf(name, sizeof name, "%s of %s", what, p->t[i].name);
        near_tensor(name, h + p->t[i].offset, ref + p->t[i].offset, p->t[i].count, rtol);
    }
    free(h);
}

/* the device state against the CPU's, every array */
static void near_state(dgnn_cuda *c, const dgnn_cuda_state *ds, const dgnn_state *st) {
    const int64_t N = st->num_nodes, M = st->mem_dim, D = st->mail_dim, S = st->slots;
    float *mem = malloc((size_t)(N * M) * sizeof(float)), *mail = malloc((size_t)(N * S * D) * sizeof(float));
    double *mem_t = malloc((size_t)N * sizeof(double)), *mail_t = malloc((size_t)(N * S) * sizeof(double));
    int32_t *mail_n = malloc((size_t)N * sizeof(int32_t)), *mail_head = malloc((size_t)N * sizeof(int32_t));
    down(c, mem, ds->mem, (size_t)(N * M) * sizeof(float), "memory");
    down(c, mail, ds->mail, (size_t)(N * S * D) * sizeof(float), "mails");
    down(c, mem_t, ds->mem_t, (size_t)N * sizeof(double), "memory times");
    down(c, mail_t, ds->mail_t, (size_t)(N * S) * sizeof(double), "mail times");
    down(c, mail_n, ds->mail_n, (size_t)N * sizeof(int32_t), "mail counts");
    down(c, mail_head, ds->mail_head, (size_t)N * sizeof(int32_t), "mail heads");
    near_ref("committed memory", mem, st->mem, N * M, 1e-4);
    near_ref("committed mails", mail, st->mail, N * S * D, 1e-4);
    int64_t bad_t = 0, bad_n = 0;
    for (int64_t v = 0; v < N; v++) {
        bad_t += mem_t[v] != st->mem_t[v]; /* copied times, never computed */
        bad_n += mail_n[v] != st->mail_n[v] || mail_head[v] != st->mail_head[v];
    }
    for (int64_t i = 0; i < N * S; i++) bad_t += mail_t[i] != st->mail_t[i];
    CHECK_MSG(bad_t == 0, "committed times: %lld differ", (long long)bad_t);
    CHECK_MSG(bad_n == 0, "mail counts or heads: %lld nodes differ", (long long)bad_n);
    FREE(mem, mail, mem_t, mail_t, mail_n, mail_head);
}

/* the device state = the CPU's, every array (waits) */
static void upload_state(dgnn_cuda *c, dgnn_cuda_state *ds, const dgnn_state *st) {
    const int64_t N = st->num_nodes, M = st->mem_dim, D = st->mail_dim, S = st->slots;
    CUDA_OK(dgnn_cuda_upload(c, ds->mem, st->mem, (size_t)(N * M) * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mem_t, st->mem_t, (size_t)N * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail, st->mail, (size_t)(N * S * D) * sizeof(float), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail_t, st->mail_t, (size_t)(N * S) * sizeof(double), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail_n, st->mail_n, (size_t)N * sizeof(int32_t), ERR));
    CUDA_OK(dgnn_cuda_upload(c, ds->mail_head, st->mail_head, (size_t)N * sizeof(int32_t), ERR));
    CUDA_OK(dgnn_cuda_sync(c, ERR));
}

/* Copies of a batch's host arrays, to overwrite (0xFF) as soon as the call that reads
 * them returns: the call must have packed them by then (cuda.h), so the device step must
 * not see the difference. */
typedef struct {
    void *p[16];
    size_t n[16];
    int k;
} copies;
static const void *copy_of(copies *cp, const void *x, size_t bytes) {
    if (!x) return NULL;
    CHECK(cp->k < 16);
    void *d = malloc(bytes + 1);
    memcpy(d, x, bytes);
    cp->p[cp->k] = d, cp->n[cp->k++] = bytes;
    return d;
}

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
static void copies_spoil(copies *cp) {
    for (int i = 0; i < cp->k; i++) memset(cp->p[i], 0xFF, cp->n[i]);
}
static void copies_free(copies *cp) {
    for (int i = 0; i < cp->k; i++) free(cp->p[i]);
    cp->k = 0;
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
    CUDA_OK(dgnn_cuda_upload(c, t.param, p->value, slab_bytes, ERR));
    CUDA_OK(dgnn_cuda_upload(c, t.adam_m, p->m, slab_bytes, ERR));
    CUDA_OK(dgnn_cuda_upload(c, t.adam_v, p->v, slab_bytes, ERR));
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
        float *hg = malloc(slab_bytes), *rp = malloc(slab_bytes), *rm = malloc(slab_bytes), *rv = malloc(slab_bytes);
        down(c, hg, t.grad, slab_bytes, "the device gradients");
        memcpy(rp, p->value, slab_bytes), memcpy(rm, p->m, slab_bytes), memcpy(rv, p->v, slab_bytes);
        dgnn_adam ref_opt = opt;
        dgnn_adam_step(&ref_opt, rp, hg, rm, rv, p->total);
        dgnn_adam_step_params(&opt, p);
        CUDA_OK(dgnn_cuda_apan_adam(c, &t, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay, opt.t, ERR));
        float *h = malloc(slab_bytes);
        down(c, h, t.param, slab_bytes, "the parameters after Adam");
        near_ref("parameters after Adam", h, rp, p->total, 1e-5);
        down(c, h, t.adam_m, slab_bytes, "Adam m");
        near_ref("Adam m", h, rm, p->total, 1e-5);
        down(c, h, t.adam_v, slab_bytes, "Adam v");
        near_ref("Adam v", h, rv, p->total, 1e-5);
        FREE(hg, rp, rm, rv, h);
        CUDA_OK(dgnn_cuda_upload(c, t.param, p->value, slab_bytes, ERR));
        CUDA_OK(dgnn_cuda_upload(c, t.adam_m, p->m, slab_bytes, ERR));
        CUDA_OK(dgnn_cuda_upload(c, t.adam_v, p->v, slab_bytes, ERR));
        CUDA_OK(dgnn_cuda_sync(c, ERR));
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
