/* test_cuda_snaptrain_wdgcn.c: WD-GCN and the static GCN on the GPU (snapmodel_cuda.h,
 * wdgcn_cuda.c, static_gcn_cuda.c) against the CPU model and the CPU trainer, as
 * test_cuda_snaptrain.c does for EvolveGCN:
 *  1. two training samples through the API (windows 0.. and 1..), one-hot and dense node
 *     input, T = 1 and 3 (at T = 3 every other snapshot directed, with its transpose: the
 *     static GCN's union is then not symmetric), the gradients accumulated: every
 *     parameter's gradient against the CPU model's (its forward, pair classifier, weighted
 *     cross-entropy and backward with the same RReLU rng); the evaluation logits; an Adam
 *     step. WD-GCN also in a group of windows (group_begin / _end on both sides: the shared
 *     snapshots' slopes from the first window), and in a group that cfg.group_bytes cuts
 *     after the first window; the CPU's own figures say that the grouped gradient differs
 *     from the ungrouped one (so the comparison can fail) and that the cut group's equals it;
 *  2. the trainer (dgnn_snap_train, link task) on a small learnable sequence, both kinds,
 *     windows_per_step 1 and 3 (groups), WD-GCN also with a small group_bytes and under
 *     DyGNeX's schedule (one process playing 2 ranks: its groups): each epoch's loss,
 *     validation MAP and MRR, the test MAP and MRR against the CPU run; a WD-GCN checkpoint
 *     written on the GPU (windows_per_step 3), resumed on the CPU.
 * Without a GPU the refusals are checked, then it exits 77 (skipped). NOT YET RUN ON A GPU.
 * The suite runs it on the host emulation of the CUDA layer (tests/hostemu), where the
 * device ops are the CPU's own: that checks the composition, not the kernels, to tighter
 * tolerances (below). */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "snaptrain_check.h"
#include "dgnn/adam.h"
#include "dgnn/nn.h"
#include "dgnn/snap_train.h"
#include "dgnn/snapmodel_cuda.h"


/* max |a - b| over n values against its largest magnitude (the relative difference) */
/* ---- 1. the API against the CPU model ---- */

enum { N1 = 23, V1 = 7, E1 = 40, L1 = 6 };


/* the CPU's two samples (windows k = 0, 1 of T snapshots), gradients summed into grad;
 * grouped: between group_begin and group_end */
static void cpu_samples(dgnn_snapmodel *m, const dgnn_snap_input *in, int64_t T, int grouped, const int32_t *src,
                        const int32_t *dst, const int32_t *lab, int64_t M, const float *cw, double *loss, float *grad) {
    dgnn_err err;
    dgnn_params *p = dgnn_snapmodel_params(m);
    float *H = malloc(N1 * L1 * sizeof(float)), *dH = malloc(N1 * L1 * sizeof(float));
    float *logits = malloc((size_t)(2 * M) * sizeof(float)), *dlogits = malloc((size_t)(2 * M) * sizeof(float));
    dgnn_params_zero_grad(p);
    if (grouped) dgnn_snapmodel_group_begin(m);
    for (int k = 0; k < 2; k++) {
        dgnn_rng rr;
        dgnn_rng_seed(&rr, 1000 + (uint64_t)k);
        CHECK(dgnn_snapmodel_forward(m, H, in + k, T, &rr, &err) == DGNN_OK);
        CHECK(dgnn_snapmodel_edge_forward(m, logits, H, src, dst, M, &err) == DGNN_OK);
        loss[k] = dgnn_wce_forward(logits, lab, cw, M, 2);
        memset(dlogits, 0, (size_t)(2 * M) * sizeof(float));
        dgnn_wce_backward(dlogits, 1.0f, logits, lab, cw, M, 2);
        memset(dH, 0, N1 * L1 * sizeof(float));
        dgnn_snapmodel_edge_backward(m, dH, dlogits);
        dgnn_snapmodel_backward(m, dH);
    }
    if (grouped) dgnn_snapmodel_group_end(m);
    memcpy(grad, p->grad, (size_t)p->total * sizeof(float));
    free(H), free(dH), free(logits), free(dlogits);
}

/* group: 0 (windows alone), 1 (one group of both windows), 2 (a group that
 * cfg.group_bytes cuts before the second window: 4 shared snapshots at most) */
static void api_case(dgnn_snapmodel_kind kind, int onehot, int64_t T, int group) {
    char tag[96];
    snprintf(tag, sizeof tag, "%s, %s, T %lld%s", dgnn_snapmodel_name(kind), onehot ? "one-hot" : "dense",
             (long long)T, group == 1 ? ", grouped" : group == 2 ? ", grouped and cut" : "");
    dgnn_rng r;
    dgnn_rng_seed(&r, 77 + (uint64_t)onehot * 10 + (uint64_t)T);
    dgnn_snapmodel_cfg mc = dgnn_snapmodel_cfg_default(kind);
    mc.num_nodes = N1, mc.in_dim = V1, mc.onehot = onehot, mc.hidden = L1, mc.cls_hidden = 11, mc.seed = 9;
    if (group == 2) mc.group_bytes = 4 * 5 * N1 * L1 * (int64_t)sizeof(float);
    mc.rrelu_lower = 0.05f, mc.rrelu_upper = 0.95f; /* slopes far apart: sharing them shows */
    dgnn_snapmodel *m = NULL;
    dgnn_err err;
    dgnn_err_clear(&err);
    CHECK(dgnn_snapmodel_init(&m, &mc, &err) == DGNN_OK);
    dgnn_params *p = dgnn_snapmodel_params(m);
    const int64_t S = T + 1; /* snapshots uploaded: windows 0..T-1 and 1..T */
    dgnn_snap_input *in = calloc((size_t)S, sizeof *in);
    int64_t *rp[8];
    int32_t *cl[8], *idx = malloc((size_t)(S * N1) * sizeof(int32_t));
    float *vl[8], *feat = malloc((size_t)(S * N1 * V1) * sizeof(float));
    dgnn_csr At[8];
    memset(At, 0, sizeof At);
    for (int64_t t = 0; t < S; t++) {
        const int directed = T > 1 && t % 2 == 1;
        snapt_random_hat(&rp[t], &cl[t], &vl[t], N1, E1, (directed) ? 2 : 1, &r);
        in[t].A = dgnn_csr_view(rp[t], cl[t], vl[t], N1, N1);
        if (directed) {
            CHECK(dgnn_csr_transpose(&At[t], &in[t].A, &err) == DGNN_OK);
            in[t].At = &At[t];
        }
        for (int i = 0; i < N1; i++) idx[t * N1 + i] = i % 5 == 4 ? -1 : (int32_t)dgnn_rng_below(&r, V1);
        for (int i = 0; i < N1 * V1; i++) feat[t * N1 * V1 + i] = (float)dgnn_rng_uniform(&r) - 0.5f;
        if (onehot) in[t].feat_idx = idx + t * N1;
        else in[t].feat = feat + t * N1 * V1;
    }
    dgnn_snapmodel_cuda *d = NULL;
    CHECK_MSG(dgnn_snapmodel_cuda_init(&d, m, 0, &err) == DGNN_OK, "%s", err.msg);
    CHECK_MSG(dgnn_snapmodel_cuda_inputs(d, in, NULL, S, &err) == DGNN_OK, "%s", err.msg);
    enum { M = 57 };
    int32_t src[M], dst[M], lab[M];
    for (int i = 0; i < M; i++) {
        src[i] = (int32_t)dgnn_rng_below(&r, N1 - 3); /* the last nodes have no pairs as a source */
        dst[i] = (int32_t)dgnn_rng_below(&r, N1);
        lab[i] = i % 3 == 0;
    }
    const float cw[2] = {0.2f, 0.8f};
    double cpu_loss[2], gpu_loss[2], alone_loss[2];
    float *cpu_grad = malloc((size_t)p->total * sizeof(float)), *alone = malloc((size_t)p->total * sizeof(float));
    cpu_samples(m, in, T, group != 0, src, dst, lab, M, cw, cpu_loss, cpu_grad);
    if (group && kind == DGNN_SNAPMODEL_WDGCN && T > 1) {
        /* the test's power: sharing changes the figures (other slopes at the shared
         * snapshots), and a group cut before its second window shares nothing */
        cpu_samples(m, in, T, 0, src, dst, lab, M, cw, alone_loss, alone);
        /* on the GCN's weights, whose gradients the slopes shape most directly (measured: 13%
         * to 51% apart, far above either tolerance) */
        int64_t at;
        double s, rd = 0;
        for (int i = 0; i < p->ntensors; i++) {
            if (strncmp(p->t[i].name, "wdgcn.W", 7) != 0) continue;
            const double e = snapt_slab_diff(cpu_grad + p->t[i].offset, alone + p->t[i].offset, p->t[i].count, &at, &s);
            printf("%s: the CPU's gradient of %s against windows alone: relative difference %.3g\n", tag,
                   p->t[i].name, e);
            if (e > rd) rd = e;
        }
        if (group == 1)
            CHECK_MSG(rd > 0.05 && fabs(cpu_loss[1] - alone_loss[1]) > 1e-7 * fabs(alone_loss[1]),
                      "%s: the CPU's group leaves the gradient (%g) or the loss as windows alone give them", tag, rd);
        else
            CHECK_MSG(rd < 1e-5 && cpu_loss[1] == alone_loss[1], "%s: the CPU's cut group differs from windows alone "
                      "(%g)", tag, rd);
    }
    if (group) CHECK_MSG(dgnn_snapmodel_cuda_group(d, 1, &err) == DGNN_OK, "%s", err.msg);
    for (int k = 0; k < 2; k++) {
        dgnn_rng rr;
        dgnn_rng_seed(&rr, 1000 + (uint64_t)k);
        CHECK_MSG(dgnn_snapmodel_cuda_train_sample(d, k, T, &rr, src, dst, lab, M, cw, &gpu_loss[k], &err) == DGNN_OK,
                  "%s", err.msg);
        CHECK_MSG(fabs(gpu_loss[k] - cpu_loss[k]) <= LOSS_RTOL * fabs(cpu_loss[k]), "%s: loss %d: %.9g vs %.9g", tag,
                  k, gpu_loss[k], cpu_loss[k]);
    }
    if (group) CHECK_MSG(dgnn_snapmodel_cuda_group(d, 0, &err) == DGNN_OK, "%s", err.msg);
    dgnn_params_zero_grad(p);
    CHECK(dgnn_snapmodel_cuda_pull(d, p, &err) == DGNN_OK);
    for (int i = 0; i < p->ntensors; i++) {
        char what[256];
        snprintf(what, sizeof what, "%s: gradient of %s", tag, p->t[i].name);
        near_slab(what, p->grad + p->t[i].offset, cpu_grad + p->t[i].offset, p->t[i].count);
    }
    /* evaluation logits (no RReLU randomness) */
    float *H = malloc(N1 * L1 * sizeof(float)), logits[2 * M], glog[2 * M];
    CHECK(dgnn_snapmodel_forward(m, H, in + 1, T, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_edge_forward(m, logits, H, src, dst, M, &err) == DGNN_OK);
    CHECK_MSG(dgnn_snapmodel_cuda_logits(d, 1, T, src, dst, M, glog, &err) == DGNN_OK, "%s", err.msg);
    snprintf(tag + strlen(tag), sizeof tag - strlen(tag), ": evaluation logits");
    near_slab(tag, glog, logits, 2 * M);
    /* again, from the static GCN's cached union (and WD-GCN's reused slots) */
    CHECK_MSG(dgnn_snapmodel_cuda_logits(d, 1, T, src, dst, M, glog, &err) == DGNN_OK, "%s", err.msg);
    near_slab(tag, glog, logits, 2 * M);
    /* a window outside the uploaded snapshots is refused */
    CHECK(dgnn_snapmodel_cuda_logits(d, 2, T, src, dst, M, glog, &err) == DGNN_EINVAL);
    /* an Adam step moves the device's parameters as the CPU's step moves them */
    snapt_adam_step(d, p, cpu_grad);
    dgnn_snapmodel_cuda_free(d);
    dgnn_snapmodel_free(m);
    for (int64_t t = 0; t < S; t++) free(rp[t]), free(cl[t]), free(vl[t]), dgnn_csr_free(&At[t]);
    free(in), free(idx), free(feat), free(H), free(cpu_grad), free(alone);
}

/* ---- 2. the trainer on a learnable sequence (test_cuda_snaptrain.c's) ---- */


static dgnn_snap_train_cfg small_cfg(dgnn_snapmodel_kind kind, int64_t wps) {
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(kind);
    c.snapshot_seconds = 1, c.window = 3, c.model.hidden = 8, c.model.cls_hidden = 16, c.lr = 0.01;
    c.neg_mult = 5, c.epochs = 6, c.train_frac = 0.6, c.val_frac = 0.15, c.patience = 1000, c.skip_val_epochs = 0;
    c.windows_per_step = wps, c.progress = 0, c.seed = 5, c.model.seed = 5;
    return c;
}



/* group_slots > 0: cfg.group_bytes for that many shared snapshots (cuts the groups);
 * dygnex: DyGNeX's schedule, one process playing 2 ranks; ckpt: 3 epochs on the GPU with a
 * checkpoint, resumed on the CPU, against the uninterrupted CPU run */
static void trainer(dgnn_snapmodel_kind kind, int64_t wps, int64_t group_slots, int dygnex, int ckpt) {
    dgnn_events ev;
    snapt_make_stream(&ev, 3);
    dgnn_snap_train_cfg c = small_cfg(kind, wps);
    if (group_slots > 0) c.model.group_bytes = group_slots * 5 * SN * c.model.hidden * (int64_t)sizeof(float);
    if (dygnex) c.dist.mode = DGNN_SNAP_DIST_DYGNEX, c.dist.ranks = 2;
    dgnn_snap_train_result *cpu = calloc(1, sizeof *cpu), *gpu = calloc(1, sizeof *gpu);
    snapt_train(&ev, c, 0, cpu);
    snapt_train(&ev, c, 1, gpu);
    char what[160];
    snprintf(what, sizeof what, "%s, link task, %lld windows per step%s%s", dgnn_snapmodel_name(kind), (long long)wps,
             group_slots > 0 ? ", groups cut by group_bytes" : "", dygnex ? ", DyGNeX (2 ranks)" : "");
    snapt_same_runs(what, gpu, cpu);
    if (gpu->num_epochs == 6)
        CHECK_MSG(gpu->epochs[5].train_loss < gpu->epochs[0].train_loss, "%s: the GPU run learns: loss %.4f -> %.4f",
                  what, gpu->epochs[0].train_loss, gpu->epochs[5].train_loss);
    printf("%s: 6 epochs: loss %.4f -> %.4f, test MAP %.6f (GPU) vs %.6f (CPU), MRR %.6f vs %.6f\n", what,
           gpu->epochs[0].train_loss, gpu->epochs[gpu->num_epochs - 1].train_loss, gpu->test_map, cpu->test_map,
           gpu->test_mrr, cpu->test_mrr);
    if (ckpt) {
        char dir[] = "/tmp/dgnn_snapgpu_wd_XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        dgnn_snap_train_cfg a = c;
        a.epochs = 3, a.checkpoint = dir;
        dgnn_snap_train_result *part = calloc(1, sizeof *part), *rest = calloc(1, sizeof *rest);
        snapt_train(&ev, a, 1, part);
        dgnn_snap_train_cfg b = c;
        b.checkpoint = dir, b.resume = 1;
        snapt_train(&ev, b, 0, rest);
        snprintf(what, sizeof what, "%s, %lld windows per step, 3 epochs on the GPU, resumed on the CPU",
                 dgnn_snapmodel_name(kind), (long long)wps);
        snapt_same_runs(what, rest, cpu);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
        free(part), free(rest);
    }
    free(cpu), free(gpu);
    dgnn_events_free(&ev);
}

int main(void) {
    dgnn_err err;
    dgnn_err_clear(&err);
    /* both kinds are the GPU's; a device that is not there is refused */
    for (int k = 0; k < 2; k++) {
        const dgnn_snapmodel_kind kind = k ? DGNN_SNAPMODEL_GCN : DGNN_SNAPMODEL_WDGCN;
        dgnn_snapmodel_cfg mc = dgnn_snapmodel_cfg_default(kind);
        CHECK_MSG(dgnn_snapmodel_cuda_supports(&mc, &err) == DGNN_OK, "%s", err.msg);
        dgnn_snap_train_cfg bad = small_cfg(kind, 3);
        bad.use_cuda = 1, bad.cuda_device = dgnn_snapmodel_cuda_devices();
        CHECK(dgnn_snap_train_cfg_check(&bad, &err) == DGNN_EINVAL &&
              (strstr(err.msg, "CUDA device") != NULL || strstr(err.msg, "without the CUDA backend") != NULL));
    }
    const int skip = check_gpu_trainer_skip("test_cuda_snaptrain_wdgcn", dgnn_snapmodel_cuda_devices());
    if (skip >= 0) return skip;
    for (int k = 0; k < 2; k++)
        for (int onehot = 0; onehot < 2; onehot++) {
            const dgnn_snapmodel_kind kind = k ? DGNN_SNAPMODEL_GCN : DGNN_SNAPMODEL_WDGCN;
            api_case(kind, onehot, 1, 0);
            api_case(kind, onehot, 3, 0);
        }
    for (int onehot = 0; onehot < 2; onehot++) {
        api_case(DGNN_SNAPMODEL_WDGCN, onehot, 1, 1);
        api_case(DGNN_SNAPMODEL_WDGCN, onehot, 3, 1);
        api_case(DGNN_SNAPMODEL_WDGCN, onehot, 3, 2);
    }
    api_case(DGNN_SNAPMODEL_GCN, 1, 3, 1); /* a group is a no-op for the static GCN */
    trainer(DGNN_SNAPMODEL_WDGCN, 1, 0, 0, 0);
    trainer(DGNN_SNAPMODEL_WDGCN, 3, 0, 0, 1);
    trainer(DGNN_SNAPMODEL_WDGCN, 3, 5, 0, 0);
    trainer(DGNN_SNAPMODEL_WDGCN, 1, 0, 1, 0);
    trainer(DGNN_SNAPMODEL_GCN, 1, 0, 0, 0);
    trainer(DGNN_SNAPMODEL_GCN, 3, 0, 0, 0);
    return check_done();
}
