/* test_apan.c: APAN (TGL's APAN.yml) without edge features, the setting of issue 3's
 * "APAN does not learn against destination-set negatives" report (docs/tgnn.md, APAN).
 *
 *  - where node-specific signal comes from: with zero memory, no mails and no edge
 *    features, APAN's embedding of a node is a function of the root time alone (two
 *    untouched nodes get the same logits against the same source, up to the rounding of
 *    the rows of one product they sit in); after some events the stored memories of the
 *    active nodes all differ, from the times and partners of their mails (a bug that
 *    dropped mails or memories would leave them equal up to rounding);
 *  - it learns against destination-set negatives (the TGN code's protocol), through the
 *    real trainer with early stopping, on a synthetic stream with repeat structure and no
 *    edge features: a regression test for the report, whose cause was too few Adam steps
 *    at lr 1e-4, not a defect (the measurements are in docs/tgnn.md). Its floors come from
 *    20 seeds under each of three OpenBLAS kernels (issue 12; the spread is below). */
#include "check.h"
#include "dgnn/gen.h"
#include "dgnn/adam.h"
#include "dgnn/event_train.h"


/* Bipartite, no edge features; half the nodes are destinations, most of them rarely
 * active (power-law popularity, exponent 1.5), as wikipedia's pages: against
 * destination-set negatives, activity and the timing of a pair's shared mails are what a
 * model without node features can use (with 30 busy destinations, JODIE and APAN stay at
 * chance and only TGN's neighbour attention learns). A constant event rate (no growth, no
 * bursts): the test events then look like the validation events. With the generator's
 * growing rate (5x over the span) and bursts, the test AP of a run swung between 0.45 and
 * 0.72 over seeds while validation stayed at 0.60-0.70. */
static void gen_stream(dgnn_events *ev, int64_t E, int64_t N) {
    dgnn_gen_opts go = dgnn_gen_opts_default();
    go.num_events = E, go.num_nodes = N, go.num_src_nodes = N / 2, go.bipartite = 1, go.seed = 3, go.edge_dim = 0;
    go.repeat_prob = 0.8, go.session = 0.5, go.alpha = 1.5, go.growth = 1, go.bursts = 0;
    dgnn_err err;
    CHECK(dgnn_gen_events(ev, &go, &err) == DGNN_OK);
    CHECK(ev->edge_dim == 0 && ev->efeat == NULL);
}

/* The rounding allowed between two values that are equal in exact arithmetic but come
 * from different rows of the same products (other sgemm tiles, so other summation
 * orders): the forward chains about 5 products (updater attention, MLP, LayerNorm, the
 * edge predictor's two layers) of at most 40 terms each (mail 32 + time 8), each off by
 * at most (terms) x 2^-24 of the sum of its terms' magnitudes, which is about the
 * magnitude of the value here (at most ~1): 5 x 40 x 2^-24 = 1.2e-5. Rounding differences
 * measured: 0 under SkylakeX, up to 6e-8 under Haswell. */
static double row_tol(double a) { return 5.0 * 40.0 * ldexp(1.0, -24) * (1.0 + fabs(a)); }

static dgnn_tgnn_cfg small_model(void) {
    dgnn_tgnn_cfg c = dgnn_tgnn_cfg_default(DGNN_TGNN_APAN);
    c.mem_dim = c.emb_dim = 16, c.time_dim = 8, c.neighbors = 5, c.mail_slots = 4, c.seed = 6;
    return c;
}

/* A node with no history has no identity; a few batches give every active node its own. */
static void node_signal(void) {
    dgnn_events ev;
    gen_stream(&ev, 2000, 120);
    dgnn_err err;
    dgnn_tcsr g;
    CHECK(dgnn_tcsr_build(&g, &ev, -1, 0, &err) == DGNN_OK);
    dgnn_tgnn_cfg cfg = small_model();
    dgnn_tgnn *m;
    CHECK(dgnn_tgnn_init(&m, &cfg, ev.num_nodes, 0, &err) == DGNN_OK);
    dgnn_state st;
    CHECK(dgnn_state_init(&st, ev.num_nodes, cfg.mem_dim, dgnn_tgnn_mail_dim(m), dgnn_tgnn_mail_slots(m), &err) ==
          DGNN_OK);
    const int64_t B = 50, M = cfg.mem_dim, N = ev.num_nodes;
    int32_t neg[2 * 50];
    float logits[3 * 50], labels[2 * 50], dlogits[2 * 50];

    /* fresh state: negatives j and j + B are two different untouched nodes at the same
     * time, so their logits against the same source are equal; the source's and the
     * destination's are functions of the event time only too */
    int used[4096] = {0};
    for (int64_t e = 0; e < B; e++) used[ev.src[e]] = used[ev.dst[e]] = 1;
    int32_t fresh[2] = {-1, -1};
    for (int32_t v = 0, n = 0; v < N && n < 2; v++)
        if (!used[v]) fresh[n++] = v;
    CHECK(fresh[1] >= 0);
    for (int64_t i = 0; i < B; i++) neg[i] = fresh[0], neg[B + i] = fresh[1];
    CHECK(dgnn_tgnn_forward(m, logits, &st, &g, NULL, &ev, 0, B, neg, 2, NULL, &err) == DGNN_OK);
    double worst = 0, worst_tol = row_tol(logits[B]);
    for (int64_t i = 0; i < B; i++) {
        double d = fabs((double)logits[B + i] - (double)logits[2 * B + i]), tol = row_tol(logits[B + i]);
        if (d / tol > worst / worst_tol) worst = d, worst_tol = tol;
    }
    printf("two untouched nodes: logits differ by at most %.3g (allowed %.3g)\n", worst, worst_tol);
    CHECK_MSG(worst <= worst_tol, "two untouched nodes at one time got different logits: %.3g apart (allowed %.3g)",
              worst, worst_tol);
    /* ... but the time matters: the first and the last event of the batch differ in time,
     * and their logits by far more than rounding */
    CHECK(ev.t[0] != ev.t[B - 1]);
    CHECK_MSG(fabs((double)logits[B] - (double)logits[2 * B - 1]) > 100 * row_tol(logits[B]),
              "first and last event of the batch: logits %.7g and %.7g", logits[B], logits[2 * B - 1]);

    /* a few training batches, then: every node that took part has its own memory */
    dgnn_rng rng;
    dgnn_rng_seed(&rng, 4);
    dgnn_params *p = dgnn_tgnn_params(m);
    dgnn_adam opt = dgnn_adam_default(1e-3);
    for (int64_t i = 0; i < 2 * B; i++) labels[i] = i < B ? 1.0f : 0.0f;
    const int64_t nb = 20;
    for (int64_t b = 0; b < nb; b++) {
        for (int64_t i = 0; i < B; i++) neg[i] = ev.dst[dgnn_rng_below(&rng, (uint64_t)ev.num_events)];
        dgnn_params_zero_grad(p);
        CHECK(dgnn_tgnn_forward(m, logits, &st, &g, NULL, &ev, b * B, B, neg, 1, &rng, &err) == DGNN_OK);
        memset(dlogits, 0, sizeof dlogits);
        dgnn_bce_logits_backward(dlogits, logits, labels, 2 * B, 2.0f);
        dgnn_tgnn_backward(m, dlogits);
        dgnn_tgnn_commit(m, &st, &ev);
        dgnn_adam_step_params(&opt, p);
    }
    for (int64_t v = 0; v < N; v++) used[v] = 0;
    for (int64_t e = 0; e < nb * B; e++) used[ev.src[e]] = used[ev.dst[e]] = 1;
    /* "equal" = within rounding (row_tol of the larger entry): memories that a bug made
     * equal in exact arithmetic can still differ in the last bits, computed in other rows */
    int64_t active = 0, equal_pairs = 0, zero_rows = 0;
    double closest = INFINITY;
    for (int64_t u = 0; u < N; u++) {
        if (!used[u]) continue;
        active++;
        int nz = 0;
        for (int64_t c = 0; c < M; c++) nz |= st.mem[u * M + c] != 0.0f;
        zero_rows += !nz;
        for (int64_t v = u + 1; v < N; v++) {
            if (!used[v]) continue;
            double d = 0, tol = 0;
            for (int64_t c = 0; c < M; c++) {
                d = fmax(d, fabs((double)st.mem[u * M + c] - (double)st.mem[v * M + c]));
                tol = fmax(tol, row_tol(st.mem[u * M + c]));
            }
            closest = fmin(closest, d);
            equal_pairs += d <= tol;
        }
    }
    printf("node signal: %lld active nodes, %lld pairs with equal memory (closest pair %.3g apart), %lld zero "
           "memories\n", (long long)active, (long long)equal_pairs, closest, (long long)zero_rows);
    CHECK(active > 50);
    CHECK_MSG(equal_pairs == 0, "%lld pairs of active nodes share their memory", (long long)equal_pairs);
    CHECK(zero_rows == 0);

    dgnn_state_free(&st);
    dgnn_tgnn_free(m);
    dgnn_tcsr_free(&g);
    dgnn_events_free(&ev);
}

/* The trainer with the TGN code's negatives (destination set), no edge features, early
 * stopping on validation AP (patience 2: the test then runs the best epoch's model, as the
 * TGN code's protocol; without it the test AP is the last epoch's, which swings by +-0.1
 * from one epoch to the next on this small stream).
 *
 * Measured over 20 seeds (trainer and model seed) under each of the SkylakeX, Haswell and
 * Sandybridge kernels (OPENBLAS_CORETYPE; 60 runs, 3-5 epochs each), after issue 15's kernels:
 *   test AP            min 0.625, mean 0.696, sd 0.024
 *   best val AP        min 0.676 (mean 0.73)
 *   last epoch's loss  max 1.263 (chance 2 ln 2 = 1.386)
 * With patience 1 (until issue 15) the same 60 runs went as low as 0.536 (seed 5 under
 * Haswell: one worse epoch stopped it after epoch 1, whose model tests poorly). The floors
 * sit 0.05-0.07 below the lowest run (the test AP's 5 sd below its mean); this seed's
 * figures are printed. Below chance or near it means APAN does not learn. */
static void learns_dst_negatives(void) {
    dgnn_events ev;
    gen_stream(&ev, 20000, 1000);
    dgnn_event_train_cfg c = dgnn_event_train_cfg_default();
    c.model = small_model();
    c.neg = DGNN_NEG_DST;
    c.batch = 50, c.epochs = 5, c.patience = 2, c.lr = 1e-3, c.eval_negatives = 4, c.threads = 1, c.progress = 0;
    c.seed = 5;
    static dgnn_event_train_result r;
    dgnn_err err;
    CHECK(dgnn_event_train(&ev, &c, &r, &err) == DGNN_OK);
    double best_val = 0;
    printf("apan, destination negatives, no edge features: val AP");
    for (int64_t e = 0; e < r.num_epochs; e++)
        printf(" %.4f", r.epochs[e].val_ap), best_val = fmax(best_val, r.epochs[e].val_ap);
    printf(" (best epoch %lld), test AP %.4f, new-node AP %.4f, loss %.4f -> %.4f\n", (long long)r.best_epoch,
           r.test_ap, r.test_new_ap, r.epochs[0].train_loss, r.epochs[r.num_epochs - 1].train_loss);
    CHECK(r.num_epochs >= 1 && r.best_epoch >= 1);
    CHECK_MSG(r.epochs[r.num_epochs - 1].train_loss < 1.33, "last epoch's loss %.4f (chance 1.386)",
              r.epochs[r.num_epochs - 1].train_loss);
    CHECK_MSG(best_val > 0.62, "best validation AP %.4f", best_val);
    CHECK_MSG(r.test_ap > 0.56, "test AP %.4f", r.test_ap);
    dgnn_events_free(&ev);
}

int main(void) {
    node_signal();
    learns_dst_negatives();
    return check_done();
}
