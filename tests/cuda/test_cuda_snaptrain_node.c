/* test_cuda_snaptrain_node.c: the snapshot trainer's node task (node regression,
 * snap_train.h) on the GPU (snapmodel_cuda.h, "the node task": node_head.h's head on the
 * device) against the CPU model, head and trainer:
 *  1. one training sample through the API, EvolveGCN-O and -H, dense node input, T = 1 and 3
 *     (TopK's mask on every other snapshot), a second sample accumulated: every gradient of
 *     the model's slab and of the head's against the CPU's (its forward, head, MSE and
 *     backward with the same RReLU rng), the losses; the evaluation predictions; one Adam
 *     step of the head (its own optimizer) against the CPU's; the head's slabs pushed and
 *     pulled back unchanged; calls without a head refused;
 *  2. the trainer (dgnn_snap_train, task node, both kinds) on a small PGT table written here
 *     (test_snap_tasks.c's layout: 6 nodes on a ring, alternating targets), 2 windows per
 *     step: each epoch's loss (LOSS_RTOL relative), each validation MSE, the best epoch,
 *     the test MSE and the final parameters (model and head) against the CPU run;
 *  3. a checkpoint written on the GPU after 3 epochs, resumed on the CPU for the rest, and
 *     one written on the CPU resumed on the GPU: the uninterrupted CPU run's figures;
 *  4. DyGNeX with one process playing 2 ranks, on the GPU against the CPU;
 *  5. PyG-Temporal's england_covid (when the shared data is there; pgt/england_covid.json),
 *     preset pgt, both kinds, 3 epochs: the losses, validation and test MSE.
 * Without a GPU the refusals are checked, then it exits 77 (skipped). NOT YET RUN ON A GPU.
 * The suite runs it on the host emulation of the CUDA layer (tests/hostemu), where the
 * device ops are the CPU's own: that checks the composition (the head's device section of
 * snapmodel_cuda.c and the trainer's device path), not the kernels. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snaptrain_check.h"
#include "dgnn/adam.h"
#include "dgnn/node_head.h"
#include "dgnn/nn.h"
#include "dgnn/readers.h"
#include "dgnn/snap_train.h"
#include "dgnn/snapmodel_cuda.h"

/* snaptrain_check.h's tolerances, METRIC_TOL relative here (MSEs) */
#define METRIC_RTOL METRIC_TOL

static int near_rel(double a, double b, double rtol) {
    return fabs(a - b) <= rtol * fabs(b) || (isnan(a) && isnan(b));
}

/* ---- 1. the API against the CPU model and head ---- */

enum { N1 = 23, V1 = 5, E1 = 40, L1 = 6, C1 = 9 };


/* the CPU's node sample (snap_step.c's node branch): forward, head, MSE, backward */
static double cpu_sample(dgnn_snapmodel *m, dgnn_node_head *h, float *H, float *dH, const dgnn_snap_input *in,
                         int64_t T, dgnn_rng *rr, const float *y) {
    dgnn_err err;
    CHECK(dgnn_snapmodel_forward(m, H, in, T, rr, &err) == DGNN_OK);
    dgnn_node_head_forward(h, H);
    double loss = dgnn_mse_forward(h->yhat, y, N1);
    memset(h->dyhat, 0, N1 * sizeof(float));
    dgnn_mse_backward(h->dyhat, 1.0f, h->yhat, y, N1);
    memset(dH, 0, N1 * L1 * sizeof(float));
    dgnn_node_head_backward(h, dH, H);
    dgnn_snapmodel_backward(m, dH);
    return loss;
}

static void api_case(dgnn_snapmodel_kind kind, int64_t T) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 91 + (uint64_t)T + 7 * (uint64_t)kind);
    dgnn_snapmodel_cfg mc = dgnn_snapmodel_cfg_default(kind);
    mc.num_nodes = N1, mc.in_dim = V1, mc.onehot = 0, mc.hidden = L1, mc.cls_hidden = 1, mc.seed = 4;
    dgnn_snapmodel *m = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK(dgnn_snapmodel_init(&m, &mc, &err) == DGNN_OK);
    dgnn_params *p = dgnn_snapmodel_params(m);
    dgnn_node_head head;
    CHECK(dgnn_node_head_init(&head, N1, L1, C1, 4, &err) == DGNN_OK);
    dgnn_params *hp = &head.p;
    const int64_t S = T + 1; /* snapshots uploaded: windows 0..T-1 and 1..T */
    dgnn_snap_input *in = calloc((size_t)S, sizeof *in);
    int64_t *rp[8];
    int32_t *cl[8];
    float *vl[8], *feat = malloc((size_t)(S * N1 * V1) * sizeof(float));
    uint8_t *mask = malloc((size_t)(S * N1));
    float y[2][N1];
    for (int64_t t = 0; t < S; t++) {
        snapt_random_hat(&rp[t], &cl[t], &vl[t], N1, E1, 0, &r);
        in[t].A = dgnn_csr_view(rp[t], cl[t], vl[t], N1, N1);
        for (int i = 0; i < N1 * V1; i++) feat[t * N1 * V1 + i] = (float)dgnn_rng_uniform(&r) - 0.5f;
        in[t].feat = feat + t * N1 * V1;
        for (int i = 0; i < N1; i++) mask[t * N1 + i] = i % 4 != 1; /* TopK's candidates (-H) */
        in[t].mask = t % 2 ? mask + t * N1 : NULL;
    }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < N1; i++) y[k][i] = 2.0f * (float)dgnn_rng_uniform(&r) - 1.0f;

    dgnn_snapmodel_cuda *d = NULL;
    CHECK_MSG(dgnn_snapmodel_cuda_init(&d, m, 0, &err) == DGNN_OK, "%s", err.msg);
    CHECK_MSG(dgnn_snapmodel_cuda_inputs(d, in, NULL, S, &err) == DGNN_OK, "%s", err.msg);
    /* no head yet: refused */
    double gl;
    float yh[N1];
    CHECK(dgnn_snapmodel_cuda_node_train_sample(d, 0, T, NULL, y[0], &gl, &err) == DGNN_EINVAL &&
          strstr(err.msg, "no node head") != NULL);
    CHECK(dgnn_snapmodel_cuda_node_predict(d, 0, T, yh, &err) == DGNN_EINVAL);
    /* a head of another width: refused */
    dgnn_node_head wrong;
    CHECK(dgnn_node_head_init(&wrong, N1, L1 + 1, C1, 4, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_cuda_node_head(d, &wrong, &err) == DGNN_EINVAL);
    dgnn_node_head_free(&wrong);
    CHECK_MSG(dgnn_snapmodel_cuda_node_head(d, &head, &err) == DGNN_OK, "%s", err.msg);

    /* the CPU: two samples (windows 0.. and 1..), gradients summed */
    float *H = malloc(N1 * L1 * sizeof(float)), *dH = malloc(N1 * L1 * sizeof(float));
    double cpu_loss[2], gpu_loss[2];
    dgnn_params_zero_grad(p);
    dgnn_params_zero_grad(hp);
    for (int k = 0; k < 2; k++) {
        dgnn_rng rr;
        dgnn_rng_seed(&rr, 2000 + (uint64_t)k);
        cpu_loss[k] = cpu_sample(m, &head, H, dH, in + k, T, &rr, y[k]);
    }
    float *cpu_grad = malloc((size_t)p->total * sizeof(float)), *cpu_hgrad = malloc((size_t)hp->total * sizeof(float));
    memcpy(cpu_grad, p->grad, (size_t)p->total * sizeof(float));
    memcpy(cpu_hgrad, hp->grad, (size_t)hp->total * sizeof(float));
    for (int k = 0; k < 2; k++) {
        dgnn_rng rr;
        dgnn_rng_seed(&rr, 2000 + (uint64_t)k);
        CHECK_MSG(dgnn_snapmodel_cuda_node_train_sample(d, k, T, &rr, y[k], &gpu_loss[k], &err) == DGNN_OK, "%s",
                  err.msg);
        CHECK_MSG(near_rel(gpu_loss[k], cpu_loss[k], LOSS_RTOL), "%s, T %lld, loss %d: %.9g vs %.9g",
                  dgnn_snapmodel_name(kind), (long long)T, k, gpu_loss[k], cpu_loss[k]);
    }
    dgnn_params_zero_grad(p);
    dgnn_params_zero_grad(hp);
    CHECK(dgnn_snapmodel_cuda_pull(d, p, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_cuda_head_pull(d, hp, &err) == DGNN_OK);
    char what[128];
    for (int i = 0; i < p->ntensors; i++) {
        snprintf(what, sizeof what, "%s, T %lld: gradient of %s", dgnn_snapmodel_name(kind), (long long)T,
                 p->t[i].name);
        snapt_near_slab(what, p->grad + p->t[i].offset, cpu_grad + p->t[i].offset, p->t[i].count, GRAD_RTOL);
    }
    for (int i = 0; i < hp->ntensors; i++) {
        snprintf(what, sizeof what, "%s, T %lld: gradient of %s", dgnn_snapmodel_name(kind), (long long)T,
                 hp->t[i].name);
        snapt_near_slab(what, hp->grad + hp->t[i].offset, cpu_hgrad + hp->t[i].offset, hp->t[i].count, GRAD_RTOL);
    }
    /* the head's gradient slab alone, down and back up (DyGNeX's all-reduce) */
    float *hg = malloc((size_t)hp->total * sizeof(float));
    CHECK(dgnn_snapmodel_cuda_head_grad(d, hg, 1, &err) == DGNN_OK);
    snapt_near_slab("the head's gradient slab (head_grad)", hg, cpu_hgrad, hp->total, GRAD_RTOL);
    for (int64_t i = 0; i < hp->total; i++) hg[i] *= 2;
    CHECK(dgnn_snapmodel_cuda_head_grad(d, hg, 0, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_cuda_head_pull(d, hp, &err) == DGNN_OK);
    snapt_near_slab("the head's gradient slab set (head_grad)", hp->grad, hg, hp->total, 0);
    for (int64_t i = 0; i < hp->total; i++) hg[i] /= 2;
    CHECK(dgnn_snapmodel_cuda_head_grad(d, hg, 0, &err) == DGNN_OK);

    /* evaluation predictions (no RReLU randomness) */
    CHECK(dgnn_snapmodel_forward(m, H, in + 1, T, NULL, &err) == DGNN_OK);
    dgnn_node_head_forward(&head, H);
    CHECK_MSG(dgnn_snapmodel_cuda_node_predict(d, 1, T, yh, &err) == DGNN_OK, "%s", err.msg);
    snapt_near_slab("evaluation predictions", yh, head.yhat, N1, GRAD_RTOL);
    CHECK(dgnn_snapmodel_cuda_node_predict(d, 2, T, yh, &err) == DGNN_EINVAL); /* outside the snapshots */

    /* the head's Adam step (its own optimizer) moves it as the CPU's step */
    dgnn_adam oc = dgnn_adam_default(0.01), og = oc;
    memcpy(hp->grad, cpu_hgrad, (size_t)hp->total * sizeof(float));
    float *before = malloc((size_t)hp->total * sizeof(float)), *after = malloc((size_t)hp->total * sizeof(float));
    memcpy(before, hp->value, (size_t)hp->total * sizeof(float));
    dgnn_adam_step_params(&oc, hp);
    memcpy(after, hp->value, (size_t)hp->total * sizeof(float));
    og.t++;
    CHECK(dgnn_snapmodel_cuda_head_step(d, og.lr, og.beta1, og.beta2, og.eps, og.weight_decay, og.t, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_cuda_head_pull(d, hp, &err) == DGNN_OK);
    int64_t bad = 0, seen = 0;
    for (int64_t i = 0; i < hp->total; i++) {
        if (fabsf(cpu_hgrad[i]) < 1e-4f) continue;
        seen++;
        bad += fabsf((hp->value[i] - before[i]) - (after[i] - before[i])) > 1e-4f;
    }
    CHECK_MSG(seen > 10 && bad == 0, "the head's Adam step: %lld of %lld moves differ", (long long)bad,
              (long long)seen);
    int zero = 1;
    for (int64_t i = 0; i < hp->total; i++) zero &= hp->grad[i] == 0.0f;
    CHECK_MSG(zero, "the head's gradients are zero after its step");
    /* push, then pull: the four slabs come back as they went */
    for (int64_t i = 0; i < hp->total; i++)
        hp->value[i] = 0.5f * (float)i, hp->grad[i] = -(float)i, hp->m[i] = 0.25f, hp->v[i] = (float)i * 1e-3f;
    float *sent = malloc((size_t)(4 * hp->total) * sizeof(float));
    memcpy(sent, hp->value, (size_t)hp->total * sizeof(float));
    memcpy(sent + hp->total, hp->grad, (size_t)hp->total * sizeof(float));
    memcpy(sent + 2 * hp->total, hp->m, (size_t)hp->total * sizeof(float));
    memcpy(sent + 3 * hp->total, hp->v, (size_t)hp->total * sizeof(float));
    CHECK(dgnn_snapmodel_cuda_head_push(d, hp, &err) == DGNN_OK);
    memset(hp->value, 0, (size_t)hp->total * sizeof(float)), memset(hp->grad, 0, (size_t)hp->total * sizeof(float));
    memset(hp->m, 0, (size_t)hp->total * sizeof(float)), memset(hp->v, 0, (size_t)hp->total * sizeof(float));
    CHECK(dgnn_snapmodel_cuda_head_pull(d, hp, &err) == DGNN_OK);
    CHECK(memcmp(hp->value, sent, (size_t)hp->total * sizeof(float)) == 0 &&
          memcmp(hp->grad, sent + hp->total, (size_t)hp->total * sizeof(float)) == 0 &&
          memcmp(hp->m, sent + 2 * hp->total, (size_t)hp->total * sizeof(float)) == 0 &&
          memcmp(hp->v, sent + 3 * hp->total, (size_t)hp->total * sizeof(float)) == 0);

    dgnn_snapmodel_cuda_free(d);
    dgnn_node_head_free(&head);
    dgnn_snapmodel_free(m);
    for (int64_t t = 0; t < S; t++) free(rp[t]), free(cl[t]), free(vl[t]);
    free(in), free(feat), free(mask), free(H), free(dH), free(cpu_grad), free(cpu_hgrad), free(hg), free(before),
        free(after), free(sent);
}

/* ---- 2, 3, 4. the trainer on a small PGT table (test_snap_tasks.c's node_table) ---- */

/* england_covid's layout: T periods over 6 nodes on a ring; y[t][v] = 4 + v when t is even,
 * 10 + v when odd; edge weights 1..3 */
static void node_table(dgnn_events *ev, int T, const char *path) {
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"edge_mapping\": {\"edge_index\": {");
    for (int t = 0; t < T; t++)
        n += (size_t)snprintf(s + n, cap - n, "%s\"%d\": [[0,1],[1,2],[2,3],[3,4],[4,5],[5,0],[0,3]]", t ? "," : "", t);
    n += (size_t)snprintf(s + n, cap - n, "}, \"edge_weight\": {");
    for (int t = 0; t < T; t++) n += (size_t)snprintf(s + n, cap - n, "%s\"%d\": [1,2,1,2,1,2,3]", t ? "," : "", t);
    n += (size_t)snprintf(s + n, cap - n, "}}, \"y\": [");
    for (int t = 0; t < T; t++) {
        n += (size_t)snprintf(s + n, cap - n, "%s[", t ? "," : "");
        for (int v = 0; v < 6; v++) n += (size_t)snprintf(s + n, cap - n, "%s%d", v ? "," : "", (t % 2 ? 10 : 4) + v);
        n += (size_t)snprintf(s + n, cap - n, "]");
    }
    n += (size_t)snprintf(s + n, cap - n, "], \"time_periods\": %d}", T);
    DGNN_ASSERT(n < cap);
    check_write_file(path, s, n);
    free(s);
    dgnn_load_opts lo = dgnn_load_opts_default();
    dgnn_err err;
    dgnn_events_init(ev);
    DGNN_ASSERT(dgnn_load(ev, path, &lo, &err) == 0);
}

static dgnn_snap_train_cfg node_cfg(dgnn_snapmodel_kind kind) {
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(kind);
    c.task = DGNN_SNAP_TASK_NODE;
    DGNN_ASSERT(dgnn_snap_train_preset(&c, "pgt", NULL) == 0);
    c.window = 2;
    c.model.hidden = 6; /* -H's TopK keeps L rows: at most the 6 nodes */
    c.model.cls_hidden = 8;
    c.epochs = 6;
    c.val_frac = 0.2; /* several validated epochs */
    c.windows_per_step = 2;
    c.patience = 1000;
    c.progress = 0;
    c.seed = 3;
    c.model.seed = 3;
    return c;
}

typedef struct {
    dgnn_snap_train_result res;
    float *params;
    int64_t n;
} run_out;

static void train(const dgnn_events *ev, dgnn_snap_train_cfg c, int cuda, run_out *o) {
    dgnn_err err;
    dgnn_err_clear(&err);
    c.use_cuda = cuda, c.cuda_device = 0;
    o->params = NULL, o->n = 0;
    c.params_out = &o->params, c.params_out_n = &o->n;
    CHECK_MSG(dgnn_snap_train(ev, &c, &o->res, &err) == DGNN_OK, "training on the %s: %s", cuda ? "GPU" : "CPU",
              err.msg);
}

static void same_runs(const char *what, const run_out *go, const run_out *co, int params) {
    const dgnn_snap_train_result *g = &go->res, *c = &co->res;
    CHECK_MSG(g->num_epochs == c->num_epochs && g->num_epochs > 0, "%s: %lld vs %lld epochs", what,
              (long long)g->num_epochs, (long long)c->num_epochs);
    for (int64_t e = 0; e < c->num_epochs && e < g->num_epochs; e++) {
        const dgnn_snap_epoch_result *x = &g->epochs[e], *y = &c->epochs[e];
        CHECK_MSG(near_rel(x->train_loss, y->train_loss, LOSS_RTOL) && x->train_windows == y->train_windows &&
                      x->train_pairs == y->train_pairs,
                  "%s, epoch %lld: loss %.9g vs %.9g, windows %lld vs %lld", what, (long long)e + 1, x->train_loss,
                  y->train_loss, (long long)x->train_windows, (long long)y->train_windows);
        CHECK_MSG(near_rel(x->val_mse, y->val_mse, METRIC_RTOL), "%s, epoch %lld: validation MSE %.9g vs %.9g", what,
                  (long long)e + 1, x->val_mse, y->val_mse);
        CHECK(isnan(x->val_map) && isnan(x->val_f1));
    }
    CHECK_MSG(g->best_epoch == c->best_epoch, "%s: best epoch %lld vs %lld", what, (long long)g->best_epoch,
              (long long)c->best_epoch);
    CHECK_MSG(isfinite(c->test_mse) && near_rel(g->test_mse, c->test_mse, METRIC_RTOL), "%s: test MSE %.9g vs %.9g",
              what, g->test_mse, c->test_mse);
    CHECK(isnan(g->test_map) && isnan(g->test_f1));
    if (params) { /* the last epoch's parameters, the model's then the head's */
        CHECK_MSG(go->n == co->n && go->n > 0, "%s: %lld vs %lld parameters", what, (long long)go->n,
                  (long long)co->n);
        char w[160];
        snprintf(w, sizeof w, "%s: the final parameters (model and head)", what);
        if (go->n == co->n) snapt_near_slab(w, go->params, co->params, co->n, GRAD_RTOL);
    }
}

static void run_free(run_out *o) { free(o->params), o->params = NULL; }

static void trainer(const dgnn_events *ev, dgnn_snapmodel_kind kind) {
    dgnn_snap_train_cfg c = node_cfg(kind);
    run_out *cpu = calloc(1, sizeof *cpu), *gpu = calloc(1, sizeof *gpu);
    train(ev, c, 0, cpu);
    train(ev, c, 1, gpu);
    char what[128];
    snprintf(what, sizeof what, "%s, node task", dgnn_snapmodel_name(kind));
    same_runs(what, gpu, cpu, 1);
    CHECK_MSG(strcmp(gpu->res.device, "cpu") != 0 && strcmp(cpu->res.device, "cpu") == 0, "devices %s, %s",
              gpu->res.device, cpu->res.device);
    CHECK_MSG(gpu->res.epochs[5].train_loss < 0.9 * gpu->res.epochs[0].train_loss,
              "the GPU run learns: loss %.4f -> %.4f", gpu->res.epochs[0].train_loss, gpu->res.epochs[5].train_loss);
    printf("%s: 6 epochs: loss %.6f -> %.6f, test MSE %.6f (GPU) vs %.6f (CPU), best epoch %lld\n", what,
           gpu->res.epochs[0].train_loss, gpu->res.epochs[5].train_loss, gpu->res.test_mse, cpu->res.test_mse,
           (long long)gpu->res.best_epoch);

    /* 3 epochs on the GPU with a checkpoint (a step straddles epochs 1 and 2: the gradient
     * slabs travel), then resumed on the CPU */
    char dir[] = "/tmp/dgnn_snapnode_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    dgnn_snap_train_cfg a = c;
    a.epochs = 3, a.checkpoint = dir;
    run_out *part = calloc(1, sizeof *part), *rest = calloc(1, sizeof *rest);
    train(ev, a, 1, part);
    dgnn_snap_train_cfg b = c;
    b.checkpoint = dir, b.resume = 1;
    train(ev, b, 0, rest);
    snprintf(what, sizeof what, "%s, node task, 3 epochs on the GPU, resumed on the CPU", dgnn_snapmodel_name(kind));
    same_runs(what, rest, cpu, 1);
    /* and the other way: 3 epochs on the CPU, resumed on the GPU (the head's slabs pushed) */
    run_free(part), run_free(rest);
    train(ev, a, 0, part);
    train(ev, b, 1, rest);
    snprintf(what, sizeof what, "%s, node task, 3 epochs on the CPU, resumed on the GPU", dgnn_snapmodel_name(kind));
    same_runs(what, rest, cpu, 1);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);

    /* DyGNeX, one process playing 2 ranks: the GPU against the CPU */
    dgnn_snap_train_cfg dc = c;
    dc.windows_per_step = 1;
    dc.dist.mode = DGNN_SNAP_DIST_DYGNEX, dc.dist.ranks = 2, dc.dist.scheduler = DGNN_SCHED_GREEDY, dc.dist.local = 1;
    run_out *dcpu = calloc(1, sizeof *dcpu), *dgpu = calloc(1, sizeof *dgpu);
    train(ev, dc, 0, dcpu);
    train(ev, dc, 1, dgpu);
    snprintf(what, sizeof what, "%s, node task, dygnex (2 ranks, one process)", dgnn_snapmodel_name(kind));
    same_runs(what, dgpu, dcpu, 1);
    CHECK(dgpu->res.dist.active && dgpu->res.dist.ranks == 2);
    run_free(cpu), run_free(gpu), run_free(part), run_free(rest), run_free(dcpu), run_free(dgpu);
    free(cpu), free(gpu), free(part), free(rest), free(dcpu), free(dgpu);
}

/* ---- 5. england_covid ---- */

static void england_covid(void) {
    char buf[512];
    const char *path = check_data(buf, sizeof buf, "pgt/england_covid.json");
    if (!path) return;
    dgnn_events ev;
    dgnn_err err;
    dgnn_load_opts lo = dgnn_load_opts_default();
    CHECK(dgnn_load(&ev, path, &lo, &err) == DGNN_OK);
    for (int k = 0; k < 2; k++) {
        const dgnn_snapmodel_kind kind = k ? DGNN_SNAPMODEL_EGCN_H : DGNN_SNAPMODEL_EGCN_O;
        dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(kind);
        c.task = DGNN_SNAP_TASK_NODE;
        CHECK(dgnn_snap_train_preset(&c, "pgt", &err) == DGNN_OK);
        c.epochs = 3, c.progress = 0, c.baseline_last = 1;
        run_out *cpu = calloc(1, sizeof *cpu), *gpu = calloc(1, sizeof *gpu);
        train(&ev, c, 0, cpu);
        train(&ev, c, 1, gpu);
        CHECK(gpu->res.num_snapshots == 61 && gpu->res.num_nodes == 129 && gpu->res.in_dim == 1);
        char what[96];
        snprintf(what, sizeof what, "england_covid, %s", dgnn_snapmodel_name(kind));
        same_runs(what, gpu, cpu, 1);
        CHECK(gpu->res.last_mse == cpu->res.last_mse); /* the baseline is the host's on both */
        printf("%s, 3 epochs: losses %.6f %.6f %.6f (GPU), test MSE %.6f (GPU) vs %.6f (CPU), baseline %.4f\n", what,
               gpu->res.epochs[0].train_loss, gpu->res.epochs[1].train_loss, gpu->res.epochs[2].train_loss,
               gpu->res.test_mse, cpu->res.test_mse, gpu->res.last_mse);
        run_free(cpu), run_free(gpu);
        free(cpu), free(gpu);
    }
    dgnn_events_free(&ev);
}

int main(void) {
    dgnn_err err;
    dgnn_err_clear(&err);
    /* the node task on the GPU: a kind the GPU does not run refused (T-GCN, while the kind
     * table lacks it), and a device that is not there */
    dgnn_snap_train_cfg bad = node_cfg(DGNN_SNAPMODEL_TGCN);
    bad.use_cuda = 1;
    if (dgnn_snapmodel_cuda_supports(&bad.model, &err) != DGNN_OK)
        CHECK(dgnn_snap_train_cfg_check(&bad, &err) == DGNN_EINVAL && strstr(err.msg, "--device cuda") != NULL);
    bad = node_cfg(DGNN_SNAPMODEL_EGCN_O), bad.use_cuda = 1, bad.cuda_device = dgnn_snapmodel_cuda_devices();
    CHECK(dgnn_snap_train_cfg_check(&bad, &err) == DGNN_EINVAL && strstr(err.msg, "CUDA device") != NULL);
    const int skip = check_gpu_trainer_skip("test_cuda_snaptrain_node", dgnn_snapmodel_cuda_devices());
    if (skip >= 0) return skip;
    /* with a device the node task passes the checks */
    bad.cuda_device = 0;
    CHECK_MSG(dgnn_snap_train_cfg_check(&bad, &err) == DGNN_OK, "%s", err.msg);
    for (int k = 0; k < 2; k++) {
        const dgnn_snapmodel_kind kind = k ? DGNN_SNAPMODEL_EGCN_H : DGNN_SNAPMODEL_EGCN_O;
        api_case(kind, 1);
        api_case(kind, 3);
    }
    char path[] = "/tmp/dgnn_snapnode_XXXXXX.json";
    int fd = mkstemps(path, 5);
    DGNN_ASSERT(fd >= 0);
    close(fd);
    dgnn_events ev;
    node_table(&ev, 20, path);
    trainer(&ev, DGNN_SNAPMODEL_EGCN_O);
    trainer(&ev, DGNN_SNAPMODEL_EGCN_H);
    dgnn_events_free(&ev);
    unlink(path);
    england_covid();
    return check_done();
}
