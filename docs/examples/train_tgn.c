/* train_tgn.c: dgnn as a C library (docs/c-library.md). Trains TGN for one epoch and
 * prints the test AP, on the event stream of the file given as argv[1] (any format
 * dgnn reads: JODIE csv, TGL, edge lists, .dgnn, ...) or, without one, on a small
 * stream built here: 5,000 events between 200 users and 100 items, three in four of
 * them repeating a pair of the last 16 events (what a memory-based model picks up).
 *
 *   cc train_tgn.c $(pkg-config --cflags --libs dgnn) -o train_tgn
 *   ./train_tgn [DATA]
 *
 * Every library call returns 0 (DGNN_OK) or a negative DGNN_E... status and fills a
 * dgnn_err with a message that says what was wrong; the library never exits. */
#include <stdio.h>

#include <dgnn/dgnn.h>

/* A bipartite stream from raw rows: dgnn_builder takes original ids (users 0..199,
 * items 1000..1099 here) and rows in any order; finishing it sorts the rows by time and
 * numbers the nodes densely (ev->node_ids keeps the original ids). */
static int build_events(dgnn_events *ev, dgnn_err *err) {
    dgnn_builder b;
    dgnn_builder_init(&b, 0, 0, 0); /* no edge features, labels or split column */
    uint64_t x = 12345;             /* a small LCG: the example needs no seed machinery */
    int64_t recent_u[16] = {0}, recent_i[16] = {0};
    for (int64_t e = 0; e < 5000; e++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t user, item;
        if (e >= 16 && (x >> 60) < 12) { /* 3 times in 4: a pair of the last 16 events again */
            int64_t k = (int64_t)(x >> 33) % 16;
            user = recent_u[k], item = recent_i[k];
        } else {
            user = (int64_t)(x >> 33) % 200, item = (int64_t)(x >> 20) % 100;
        }
        recent_u[e % 16] = user, recent_i[e % 16] = item;
        int rc = dgnn_builder_push(&b, user, 1000 + item, (double)e, NULL, 0, 0, err);
        if (rc != DGNN_OK) {
            dgnn_builder_free(&b);
            return rc;
        }
    }
    dgnn_events_init(ev);
    return dgnn_builder_finish(&b, ev, 0, err); /* frees the builder */
}

int main(int argc, char **argv) {
    dgnn_err err = {0};
    dgnn_events ev;
    int rc;
    if (argc > 1) {
        dgnn_load_opts lo = dgnn_load_opts_default(); /* format detected from the file */
        rc = dgnn_load(&ev, argv[1], &lo, &err);
    } else {
        rc = build_events(&ev, &err);
    }
    if (rc != DGNN_OK) {
        fprintf(stderr, "train_tgn: %s\n", err.msg);
        return 1;
    }
    printf("%lld events, %lld nodes%s\n", (long long)ev.num_events, (long long)ev.num_nodes,
           ev.bipartite ? " (bipartite)" : "");

    /* The TGN code's protocol and defaults, with small widths for a quick run. */
    dgnn_event_train_cfg cfg = dgnn_event_train_cfg_default();
    cfg.model.kind = DGNN_TGNN_TGN;
    cfg.model.mem_dim = 16, cfg.model.emb_dim = 16, cfg.model.time_dim = 8, cfg.model.neighbors = 5;
    cfg.batch = 100, cfg.epochs = 1, cfg.lr = 1e-2;
    cfg.threads = 1;  /* 0: OpenMP's default */
    cfg.progress = 0; /* no progress bar (a line per epoch still goes to stderr) */

    static dgnn_event_train_result res; /* large (per-epoch figures): not on the stack */
    rc = dgnn_event_train(&ev, &cfg, &res, &err);
    dgnn_events_free(&ev);
    if (rc != DGNN_OK) {
        fprintf(stderr, "train_tgn: %s\n", err.msg);
        return 1;
    }
    /* the library has logged each epoch's loss and validation figures on stderr;
     * res.epochs[i] holds them too */
    printf("test AP %.4f, AUC %.4f (%lld parameters)\n", res.test_ap, res.test_auc, (long long)res.num_params);
    return 0;
}
