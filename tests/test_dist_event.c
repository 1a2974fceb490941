/* test_dist_event.c: the distributed event trainer against its single-process meaning.
 * Run as one process by ctest and under mpirun -np 2 and 4 by tests/cli_dist.sh.
 *
 * --dist strict with P ranks and batch B must give the losses of single-process
 * training with batch P x B (relative difference below 1e-4 over the first 20 steps),
 * for TGN, JODIE and DyRep, on a bipartite stream (where strict's mail order equals
 * the single-process one: event_strict.c) with dropout off. Each rank checks the losses
 * it was told (they are the global batch's, all-reduced), rank 0 runs the reference.
 * Both modes must end with every rank's replica of the node state equal (checksums),
 * and --dist depbloom --partition must train every training event once per epoch.
 * A run stopped after epoch 1 and resumed to epoch 2 reports the uninterrupted run's
 * counters (steps, each rank's events and bytes, bytes per epoch, hot rows): the
 * checkpoint carries every rank's running totals.
 *
 * What is exact and what is not (issue 12): the P-rank losses are the one-process ones up
 * to rounding (each rank's rows sit in other sgemm tiles than in the global batch, and the
 * gradients are summed in another order: ulp-level differences that Adam carries to the
 * next steps), so they are compared relative, 1e-4; measured 4.3e-8 at worst over 20
 * steps under the SkylakeX, Haswell and Sandybridge kernels with 2 and 4 ranks. The
 * replicas' checksums, sampling ahead against sampling in the forward, and cold rows
 * fetched against all-gathered compare the same arithmetic on the same rows (only who
 * samples or what is sent differs), so those are exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ranks.h"
#include "dgnn/comm.h"
#include "dgnn/gen.h"
#include "dgnn/event_train.h"

#define STEPS 20

typedef struct {
    double loss[STEPS];
    int n;
} step_log;

static void on_step(void *ctx, int64_t epoch, int64_t step, double loss) {
    step_log *l = ctx;
    if (epoch == 1 && step < STEPS && l->n == step) l->loss[l->n++] = loss;
}

static dgnn_event_train_cfg small_cfg(dgnn_tgnn_kind kind, int64_t batch, step_log *log) {
    dgnn_event_train_cfg c = dgnn_event_train_cfg_default();
    c.model = dgnn_tgnn_cfg_default(kind);
    c.model.mem_dim = 24;
    c.model.emb_dim = 24;
    c.model.time_dim = 8;
    c.model.neighbors = 5;
    c.model.dropout = 0;
    c.model.seed = 3;
    c.batch = batch;
    c.epochs = 1;
    c.lr = 1e-3;
    c.max_train_batches = STEPS;
    c.skip_eval = 1;
    c.progress = 0;
    c.threads = 1;
    c.seed = 5;
    c.on_step = on_step;
    c.on_step_ctx = log;
    return c;
}

/* DepBloom with all three techniques on windows of 500 events, refine 2 */
static dgnn_event_train_cfg critical_cfg(dgnn_tgnn_kind kind, int64_t batch, step_log *log) {
    dgnn_event_train_cfg c = small_cfg(kind, batch, log);
    c.dist.mode = DGNN_DIST_DEPBLOOM;
    c.dist.partition = 1;
    c.dist.window_events = 500;
    c.dist.critical_path = 1;
    c.dist.refine = 2;
    return c;
}

/* 1 when two step logs hold the same losses (at least 10 steps) */
static int same_losses(const step_log *a, const step_log *b) {
    int same = a->n == b->n && a->n >= 10;
    for (int s = 0; s < a->n && same; s++) same &= a->loss[s] == b->loss[s];
    return same;
}

int main(int argc, char **argv) {
    dgnn_comm_init(&argc, &argv);
    const int me = dgnn_comm_rank(), P = dgnn_comm_size();
    dgnn_err err;
    dgnn_gen_opts go = dgnn_gen_opts_default();
    go.num_events = 6000;
    go.num_nodes = 400;
    go.bipartite = 1;
    go.seed = 11;
    go.duration = 2000; /* small time deltas: see the note on the time encoding above */
    dgnn_events ev;
    CHECK(dgnn_gen_events(&ev, &go, &err) == DGNN_OK);
    const int64_t B = 40;
    dgnn_event_train_result *res = calloc(1, sizeof *res);
    const dgnn_tgnn_kind kinds[] = {DGNN_TGNN_TGN, DGNN_TGNN_JODIE, DGNN_TGNN_DYREP};
    for (int k = 0; k < 3; k++) {
        step_log dist_log = {{0}, 0}, ref_log = {{0}, 0};
        dgnn_event_train_cfg c = small_cfg(kinds[k], B, &dist_log);
        c.dist.mode = DGNN_DIST_STRICT;
        int rc = dgnn_event_train(&ev, &c, res, &err);
        CHECK_RANKS_OK(rc, err);
        CHECK(dist_log.n == STEPS);
        if (me == 0) {
            CHECK(res->dist.ranks == P && res->dist.steps == STEPS);
            int64_t events = 0;
            for (int q = 0; q < P; q++) events += res->dist.train_events[q];
            CHECK(events == STEPS * B * P);
            CHECK(P == 1 || res->dist.state_bytes_per_epoch > 0);
            for (int q = 1; q < P; q++) CHECK(res->dist.state_checksum[q] == res->dist.state_checksum[0]);
            dgnn_event_train_cfg rcfg = small_cfg(kinds[k], B * P, &ref_log);
            rc = dgnn_event_train(&ev, &rcfg, res, &err);
            CHECK_RANKS_OK(rc, err);
            CHECK(ref_log.n == STEPS);
            double worst = 0;
            for (int s = 0; s < STEPS; s++) {
                double d = fabs(dist_log.loss[s] - ref_log.loss[s]) / fabs(ref_log.loss[s]);
                if (d > worst) worst = d;
            }
            printf("model %d, %d ranks: strict against batch %lld in one process: worst relative loss difference "
                   "%.3g; loss %.6f -> %.6f\n", k, P, (long long)(B * P), worst, ref_log.loss[0], ref_log.loss[STEPS - 1]);
            if (worst >= 1e-4)
                for (int s = 0; s < STEPS; s++) printf("step %d: %.7f %.7f\n", s, dist_log.loss[s], ref_log.loss[s]);
            CHECK_MSG(worst < 1e-4, "model %d, %d ranks: worst relative loss difference %.3g (step 0: %.6f vs %.6f)",
                      k, P, worst, dist_log.loss[0], ref_log.loss[0]);
            /* and the losses change: the test would pass trivially on a frozen model (DyRep
             * learns slowly at this size: a smaller bar) */
            CHECK_MSG(fabs(ref_log.loss[STEPS - 1] - ref_log.loss[0]) > (k == 2 ? 2e-4 : 1e-3), "model %d: loss %.6f -> %.6f", k,
                      ref_log.loss[0], ref_log.loss[STEPS - 1]);
        }
        dgnn_comm_barrier();
    }
    /* depbloom with partitioning: whole epochs on windows of 500 events, without and with
     * the critical-path exchange of hot rows; TGN, and APAN, whose mails to sampled
     * neighbours make ranks write the same nodes (merged at the window's end) */
    for (int run = 0; run < 4; run++) {
        const int cp = run & 1, apan = run >> 1;
        step_log log = {{0}, 0};
        dgnn_event_train_cfg c = small_cfg(apan ? DGNN_TGNN_APAN : DGNN_TGNN_TGN, B, &log);
        c.dist.mode = DGNN_DIST_DEPBLOOM;
        c.dist.partition = 1;
        c.dist.window_events = 500;
        c.dist.critical_path = cp;
        c.max_train_batches = 0;
        c.epochs = 2;
        int rc = dgnn_event_train(&ev, &c, res, &err);
        CHECK_RANKS_OK(rc, err);
        if (me == 0) {
            int64_t events = 0;
            for (int q = 0; q < P; q++) events += res->dist.train_events[q];
            CHECK_MSG(events == 2 * res->n_train, "%lld events trained, %lld training events", (long long)events,
                      (long long)res->n_train);
            CHECK(res->epochs[0].train_events == res->n_train);
            CHECK(res->dist.windows == (res->n_train + 499) / 500);
            CHECK(res->dist.cut_fraction >= 0 && res->dist.cut_fraction < (P == 1 ? 1e-12 : 0.9));
            for (int q = 1; q < P; q++)
                CHECK_MSG(res->dist.state_checksum[q] == res->dist.state_checksum[0], "%s: replica %d differs",
                          apan ? "apan" : "tgn", q);
            CHECK(cp || res->dist.hot_rows == 0);
            CHECK(!cp || P == 1 || res->dist.hot_rows > 0);
            /* it learns: below the chance loss 2 ln 2 = 1.3863 (an untrained model sits at it).
             * APAN stays at chance for 2 epochs of this small stream even in one process
             * (test_apan and docs/tgnn.md: it needs more Adam steps), so for it only the
             * loss is checked to be a number; its learning under depbloom is measured on
             * wikipedia (docs/depbloom.md) */
            CHECK(isfinite(res->epochs[1].train_loss));
            printf("depbloom %s%s, %d ranks: epoch 2 loss %.5f\n", apan ? "apan" : "tgn", cp ? " critical path" : "", P,
                   res->epochs[1].train_loss);
            if (!apan)
                CHECK_MSG(res->epochs[1].train_loss < 1.3863 - 2e-3, "epoch 2 loss %.4f", res->epochs[1].train_loss);
        }
    }
    /* sampling ahead (--critical-path's worker thread) changes nothing: the same loss at
     * every step and the same final state as sampling inside the forward, for TGN and
     * DyRep, with --refine 2 and windows of 500 events (steps of 2 x 40 events: micro-
     * batches follow each other across steps and window boundaries) */
    for (int k = 0; k < 2; k++) {
        step_log logs[2] = {{{0}, 0}, {{0}, 0}};
        uint64_t sum[2] = {0, 0};
        double ahead[2] = {0, 0};
        for (int np = 0; np < 2; np++) {
            dgnn_event_train_cfg c = critical_cfg(k ? DGNN_TGNN_DYREP : DGNN_TGNN_TGN, B, &logs[np]);
            c.dist.no_prefetch = np;
            int rc = dgnn_event_train(&ev, &c, res, &err);
            CHECK_RANKS_OK(rc, err);
            sum[np] = res->dist.state_checksum[0];
            ahead[np] = res->dist.prefetch_seconds[0];
        }
        if (me == 0) {
            /* 4 ranks train ~18 steps of 2 x 40 events per epoch: the first min(steps, 20) */
            CHECK_MSG(same_losses(&logs[0], &logs[1]), "model %d: losses differ with sampling ahead (%d, %d steps)", k,
                      logs[0].n, logs[1].n);
            CHECK(sum[0] == sum[1]);
            CHECK_MSG(ahead[0] > 0 && ahead[1] == 0, "sampling ahead %g s, without %g s", ahead[0], ahead[1]);
        }
    }
    /* the critical path's cold rows fetched when read: the same loss at every step as the
     * boundary all-gather (--cold-allgather), since a rank gets exactly the rows it reads,
     * and equal replicas after the epoch's final sync; TGN and DyRep, refine 2, 2 epochs */
    for (int k = 0; k < 2; k++) {
        step_log logs[2] = {{{0}, 0}, {{0}, 0}};
        uint64_t sum[2][DGNN_DIST_MAX_RANKS];
        double bytes[2] = {0, 0};
        int fetched[2] = {0, 0};
        for (int ag = 0; ag < 2; ag++) {
            dgnn_event_train_cfg c = critical_cfg(k ? DGNN_TGNN_DYREP : DGNN_TGNN_TGN, B, &logs[ag]);
            c.dist.cold_allgather = ag;
            c.epochs = 2;
            c.max_train_batches = 0;
            int rc = dgnn_event_train(&ev, &c, res, &err);
            CHECK_RANKS_OK(rc, err);
            memcpy(sum[ag], res->dist.state_checksum, sizeof sum[ag]);
            bytes[ag] = res->dist.state_bytes_per_epoch;
            fetched[ag] = res->dist.cold_fetch;
        }
        if (me == 0) {
            CHECK(fetched[0] == 1 && fetched[1] == 0);
            CHECK_MSG(same_losses(&logs[0], &logs[1]), "model %d: losses differ with cold rows fetched when read (%d, %d steps)",
                      k, logs[0].n, logs[1].n);
            for (int q = 1; q < P; q++) CHECK(sum[0][q] == sum[0][0] && sum[1][q] == sum[1][0]);
            CHECK_MSG(sum[0][0] == sum[1][0], "model %d: final state differs from the all-gather's", k);
            printf("model %d, %d ranks: state bytes per epoch, fetched when read %.0f, all-gathered %.0f\n", k, P,
                   bytes[0], bytes[1]);
        }
    }
    /* refinement, one rank (mpirun runs skip it): with a learning rate too small to move
     * the parameters, K micro-batches of B reading each other's memory see exactly the
     * memory single-process batches of B see, so each step's loss is the mean of K
     * single-process losses (windows of K B events keep the boundaries aligned); the
     * K B batch without refinement must differ */
    if (P == 1) {
        enum { K = 4, NS = 5 };
        step_log plain = {{0}, 0}, refined = {{0}, 0}, big = {{0}, 0};
        dgnn_event_train_cfg c = small_cfg(DGNN_TGNN_TGN, B, &plain);
        c.lr = 1e-30;
        c.max_train_batches = K * NS;
        int rc = dgnn_event_train(&ev, &c, res, &err);
        CHECK_RANKS_OK(rc, err);
        c.on_step_ctx = &refined;
        c.dist.mode = DGNN_DIST_DEPBLOOM;
        c.dist.partition = 1;
        c.dist.refine = K;
        c.dist.window_events = K * B;
        c.max_train_batches = NS;
        CHECK_MSG(dgnn_event_train(&ev, &c, res, &err) == DGNN_OK, "%s", err.msg);
        c.on_step_ctx = &big;
        c.dist.refine = 1;
        c.batch = K * B;
        CHECK_MSG(dgnn_event_train(&ev, &c, res, &err) == DGNN_OK, "%s", err.msg);
        CHECK(plain.n == K * NS && refined.n == NS && big.n == NS);
        double worst = 0, diff_big = 0;
        for (int s = 0; s < NS; s++) {
            double mean = 0;
            for (int j = 0; j < K; j++) mean += plain.loss[s * K + j] / K;
            worst = fmax(worst, fabs(refined.loss[s] - mean) / mean);
            diff_big = fmax(diff_big, fabs(big.loss[s] - mean) / mean);
        }
        printf("refine %d: relative difference %.3g against single-process batches, %.3g against one batch of %d\n", K,
               worst, diff_big, K * (int)B);
        CHECK_MSG(worst < 1e-5, "refined steps against single-process batches: relative difference %.3g", worst);
        CHECK_MSG(diff_big > 1e-4, "the unrefined %d x batch should read stale memory (difference %.3g)", K, diff_big);
    }
    /* resumed = uninterrupted, for the integer counters (strict; depbloom with the
     * critical path's hot rows) */
    char dir[64] = "/tmp/dgnn_dist_ckpt_XXXXXX";
    if (me == 0) CHECK(mkdtemp(dir) != NULL);
    dgnn_comm_bcast(dir, sizeof dir, 0);
    for (int mode = 0; mode < 2; mode++) {
        step_log log = {{0}, 0};
        dgnn_event_train_cfg c = mode ? critical_cfg(DGNN_TGNN_TGN, B, &log) : small_cfg(DGNN_TGNN_TGN, B, &log);
        if (!mode) c.dist.mode = DGNN_DIST_STRICT;
        c.max_train_batches = 6;
        c.epochs = 2;
        c.on_step = NULL;
        dgnn_event_train_result *whole = calloc(1, sizeof *whole);
        int rc = dgnn_event_train(&ev, &c, whole, &err);
        CHECK_RANKS_OK(rc, err);
        c.checkpoint = dir;
        c.epochs = 1;
        rc = dgnn_event_train(&ev, &c, res, &err);
        CHECK_RANKS_OK(rc, err);
        c.epochs = 2;
        c.resume = 1;
        rc = dgnn_event_train(&ev, &c, res, &err);
        CHECK_RANKS_OK(rc, err);
        if (me == 0) {
            const dgnn_dist_result *a = &whole->dist, *b = &res->dist;
            CHECK_MSG(b->steps == a->steps && a->steps > 0, "mode %d: %lld steps resumed, %lld uninterrupted", mode,
                      (long long)b->steps, (long long)a->steps);
            for (int q = 0; q < P; q++)
                CHECK_MSG(b->train_events[q] == a->train_events[q] && b->bytes_sent[q] == a->bytes_sent[q],
                          "mode %d rank %d: events %lld vs %lld, bytes %lld vs %lld", mode, q,
                          (long long)b->train_events[q], (long long)a->train_events[q], (long long)b->bytes_sent[q],
                          (long long)a->bytes_sent[q]);
            CHECK(b->state_bytes_per_epoch == a->state_bytes_per_epoch && b->grad_bytes_per_epoch == a->grad_bytes_per_epoch);
            CHECK(b->hot_rows == a->hot_rows && (!mode || P == 1 || a->hot_rows > 0));
        }
        free(whole);
    }
    if (me == 0) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    }
    free(res);
    dgnn_events_free(&ev);
    int fails = check_fail_;
    if (me == 0 || fails) printf("rank %d of %d: ", me, P);
    int rc = (me == 0 || fails) ? check_done() : (fails != 0);
    dgnn_comm_finalize();
    return rc;
}
