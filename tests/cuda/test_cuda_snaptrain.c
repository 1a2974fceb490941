/* test_cuda_snaptrain.c: EvolveGCN-O and -H on the GPU (snapmodel_cuda.h) against the CPU
 * model and the CPU trainer:
 *  1. one training sample through the API, one-hot and dense node input, T = 1 and 3 (TopK's
 *     mask on every other snapshot), with a second sample accumulated: every parameter's gradient against the CPU model's (its
 *     forward, pair classifier, weighted cross-entropy and backward with the same RReLU rng);
 *     the evaluation logits of the same pairs;
 *  2. the trainer (dgnn_snap_train, link task, both kinds) on a small learnable sequence, 2
 *     windows per step: each epoch's loss and validation MAP, the test MAP and MRR, against the CPU run;
 *  3. a checkpoint written on the GPU after 3 epochs, resumed on the CPU for the rest: the
 *     uninterrupted CPU run's test MAP;
 *  4. bitcoin-alpha (when the shared data is there), edge task: 3 epochs of 30 samples, the
 *     losses, the validation and test F1.
 * Without a GPU the refusals are checked, then it exits 77 (skipped). NOT YET RUN ON A GPU.
 * The suite runs it on the host emulation of the CUDA layer (tests/hostemu), where the
 * device ops are the CPU's own: that checks the composition (snapmodel_cuda.c and the
 * trainer's device path), not the kernels, to tighter tolerances (below). */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "snaptrain_check.h"
#include "dgnn/adam.h"
#include "dgnn/nn.h"
#include "dgnn/readers.h"
#include "dgnn/snap_train.h"
#include "dgnn/snapmodel_cuda.h"


/* ---- 1. the API against the CPU model ---- */

enum { N1 = 23, V1 = 7, E1 = 40 };


static void api_case(dgnn_snapmodel_kind kind, int onehot, int64_t T) {
    dgnn_rng r;
    dgnn_rng_seed(&r, 77 + (uint64_t)onehot * 10 + (uint64_t)T);
    dgnn_snapmodel_cfg mc = dgnn_snapmodel_cfg_default(kind);
    mc.num_nodes = N1, mc.in_dim = V1, mc.onehot = onehot, mc.hidden = 6, mc.cls_hidden = 11, mc.seed = 9;
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
    uint8_t *mask = malloc((size_t)(S * N1));
    for (int64_t t = 0; t < S; t++) {
        snapt_random_hat(&rp[t], &cl[t], &vl[t], N1, E1, 0, &r);
        in[t].A = dgnn_csr_view(rp[t], cl[t], vl[t], N1, N1);
        for (int i = 0; i < N1; i++) idx[t * N1 + i] = i % 5 == 4 ? -1 : (int32_t)dgnn_rng_below(&r, V1);
        for (int i = 0; i < N1 * V1; i++) feat[t * N1 * V1 + i] = (float)dgnn_rng_uniform(&r) - 0.5f;
        if (onehot) in[t].feat_idx = idx + t * N1;
        else in[t].feat = feat + t * N1 * V1;
        for (int i = 0; i < N1; i++) mask[t * N1 + i] = i % 4 != 1; /* TopK's candidates (-H) */
        in[t].mask = t % 2 ? mask + t * N1 : NULL;
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
    /* the CPU: two samples (windows 0.. and 1..), gradients summed */
    float *H = malloc(N1 * 6 * sizeof(float)), *dH = malloc(N1 * 6 * sizeof(float));
    float logits[2 * M], dlogits[2 * M];
    double cpu_loss[2], gpu_loss[2];
    dgnn_params_zero_grad(p);
    for (int k = 0; k < 2; k++) {
        dgnn_rng rr;
        dgnn_rng_seed(&rr, 1000 + (uint64_t)k);
        CHECK(dgnn_snapmodel_forward(m, H, in + k, T, &rr, &err) == DGNN_OK);
        CHECK(dgnn_snapmodel_edge_forward(m, logits, H, src, dst, M, &err) == DGNN_OK);
        cpu_loss[k] = dgnn_wce_forward(logits, lab, cw, M, 2);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_wce_backward(dlogits, 1.0f, logits, lab, cw, M, 2);
        memset(dH, 0, N1 * 6 * sizeof(float));
        dgnn_snapmodel_edge_backward(m, dH, dlogits);
        dgnn_snapmodel_backward(m, dH);
    }
    float *cpu_grad = malloc((size_t)p->total * sizeof(float));
    memcpy(cpu_grad, p->grad, (size_t)p->total * sizeof(float));
    for (int k = 0; k < 2; k++) {
        dgnn_rng rr;
        dgnn_rng_seed(&rr, 1000 + (uint64_t)k);
        CHECK_MSG(dgnn_snapmodel_cuda_train_sample(d, k, T, &rr, src, dst, lab, M, cw, &gpu_loss[k], &err) == DGNN_OK,
                  "%s", err.msg);
        CHECK_MSG(fabs(gpu_loss[k] - cpu_loss[k]) <= LOSS_RTOL * fabs(cpu_loss[k]), "loss %d: %.9g vs %.9g", k,
                  gpu_loss[k], cpu_loss[k]);
    }
    dgnn_params_zero_grad(p);
    CHECK(dgnn_snapmodel_cuda_pull(d, p, &err) == DGNN_OK);
    for (int i = 0; i < p->ntensors; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s, %s, T %lld: gradient of %s", dgnn_snapmodel_name(kind),
                 onehot ? "one-hot" : "dense", (long long)T, p->t[i].name);
        near_slab(what, p->grad + p->t[i].offset, cpu_grad + p->t[i].offset, p->t[i].count);
    }
    /* evaluation logits (no RReLU randomness) */
    float glog[2 * M];
    CHECK(dgnn_snapmodel_forward(m, H, in + 1, T, NULL, &err) == DGNN_OK);
    CHECK(dgnn_snapmodel_edge_forward(m, logits, H, src, dst, M, &err) == DGNN_OK);
    CHECK_MSG(dgnn_snapmodel_cuda_logits(d, 1, T, src, dst, M, glog, &err) == DGNN_OK, "%s", err.msg);
    near_slab("evaluation logits", glog, logits, 2 * M);
    /* a window outside the uploaded snapshots is refused */
    CHECK(dgnn_snapmodel_cuda_logits(d, 2, T, src, dst, M, glog, &err) == DGNN_EINVAL);
    /* an Adam step moves the device's parameters as the CPU's step moves them */
    snapt_adam_step(d, p, cpu_grad);
    dgnn_snapmodel_cuda_free(d);
    dgnn_snapmodel_free(m);
    for (int64_t t = 0; t < S; t++) free(rp[t]), free(cl[t]), free(vl[t]);
    free(in), free(idx), free(feat), free(mask), free(H), free(dH), free(cpu_grad);
}

/* ---- 2, 3. the trainer on a learnable sequence (test_snap_train.c's) ---- */


static dgnn_snap_train_cfg small_cfg(dgnn_snapmodel_kind kind) {
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(kind);
    c.snapshot_seconds = 1, c.window = 3, c.model.hidden = 8, c.model.cls_hidden = 16, c.lr = 0.01;
    c.neg_mult = 5, c.epochs = 6, c.train_frac = 0.6, c.val_frac = 0.15, c.patience = 1000, c.skip_val_epochs = 0;
    c.windows_per_step = 2, c.progress = 0, c.seed = 5, c.model.seed = 5;
    return c;
}



static void trainer(dgnn_snapmodel_kind kind) {
    dgnn_events ev;
    snapt_make_stream(&ev, 3);
    dgnn_snap_train_cfg c = small_cfg(kind);
    dgnn_snap_train_result *cpu = calloc(1, sizeof *cpu), *gpu = calloc(1, sizeof *gpu);
    snapt_train(&ev, c, 0, cpu);
    snapt_train(&ev, c, 1, gpu);
    char what[96];
    snprintf(what, sizeof what, "%s, link task", dgnn_snapmodel_name(kind));
    snapt_same_runs(what, gpu, cpu);
    CHECK_MSG(gpu->epochs[5].train_loss < 0.9 * gpu->epochs[0].train_loss, "the GPU run learns: loss %.4f -> %.4f",
              gpu->epochs[0].train_loss, gpu->epochs[5].train_loss);
    printf("%s: 6 epochs: test MAP %.6f (GPU) vs %.6f (CPU), MRR %.6f vs %.6f\n", what, gpu->test_map, cpu->test_map,
           gpu->test_mrr, cpu->test_mrr);

    /* 3 epochs on the GPU with a checkpoint, then resumed on the CPU */
    char dir[] = "/tmp/dgnn_snapgpu_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    dgnn_snap_train_cfg a = c;
    a.epochs = 3, a.checkpoint = dir;
    dgnn_snap_train_result *part = calloc(1, sizeof *part), *rest = calloc(1, sizeof *rest);
    snapt_train(&ev, a, 1, part);
    dgnn_snap_train_cfg b = c;
    b.checkpoint = dir, b.resume = 1;
    snapt_train(&ev, b, 0, rest);
    snprintf(what, sizeof what, "%s, 3 epochs on the GPU, resumed on the CPU", dgnn_snapmodel_name(kind));
    snapt_same_runs(what, rest, cpu);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    free(cpu), free(gpu), free(part), free(rest);
    dgnn_events_free(&ev);
}

/* ---- 4. bitcoin-alpha's edge task ---- */

static void bitcoin_edge(void) {
    char buf[512];
    const char *path = check_data(buf, sizeof buf, "bitcoin-alpha/soc-sign-bitcoinalpha.csv");
    if (!path) return;
    dgnn_events ev;
    dgnn_err err;
    dgnn_load_opts lo = dgnn_load_opts_default();
    CHECK(dgnn_load(&ev, path, &lo, &err) == DGNN_OK);
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(DGNN_SNAPMODEL_EGCN_O);
    c.task = DGNN_SNAP_TASK_EDGE;
    CHECK(dgnn_snap_train_preset(&c, "bitcoin-alpha", &err) == DGNN_OK);
    c.epochs = 3, c.max_train_windows = 30, c.skip_val_epochs = 0, c.progress = 0;
    dgnn_snap_train_result *cpu = calloc(1, sizeof *cpu), *gpu = calloc(1, sizeof *gpu);
    snapt_train(&ev, c, 0, cpu);
    snapt_train(&ev, c, 1, gpu);
    snapt_same_runs("bitcoin-alpha edge task", gpu, cpu);
    printf("bitcoin-alpha edge task, 3 epochs of 30 samples: test F1 %.6f (GPU) vs %.6f (CPU)\n", gpu->test_f1,
           cpu->test_f1);
    free(cpu), free(gpu);
    dgnn_events_free(&ev);
}

int main(void) {
    dgnn_err err;
    dgnn_err_clear(&err);
    /* refused up front: a kind outside the enum, a device that is not there (every kind and
     * task runs on the GPU: test_cuda_snaptrain*) */
    dgnn_snap_train_cfg bad = small_cfg(DGNN_SNAPMODEL_EGCN_O);
    bad.use_cuda = 1, bad.model.kind = (dgnn_snapmodel_kind)99;
    CHECK(dgnn_snap_train_cfg_check(&bad, &err) == DGNN_EINVAL);
    bad = small_cfg(DGNN_SNAPMODEL_EGCN_H), bad.use_cuda = 1, bad.cuda_device = dgnn_snapmodel_cuda_devices();
    CHECK(dgnn_snap_train_cfg_check(&bad, &err) == DGNN_EINVAL && strstr(err.msg, "CUDA device") != NULL);
    const int skip = check_gpu_trainer_skip("test_cuda_snaptrain", dgnn_snapmodel_cuda_devices());
    if (skip >= 0) return skip;
    for (int k = 0; k < 2; k++)
        for (int onehot = 0; onehot < 2; onehot++) {
            const dgnn_snapmodel_kind kind = k ? DGNN_SNAPMODEL_EGCN_H : DGNN_SNAPMODEL_EGCN_O;
            api_case(kind, onehot, 1);
            api_case(kind, onehot, 3);
        }
    trainer(DGNN_SNAPMODEL_EGCN_O);
    trainer(DGNN_SNAPMODEL_EGCN_H);
    bitcoin_edge();
    return check_done();
}
