/* cmd_bench.c: `dgnn bench NAME`: benchmarks that print figures (never timed tests).
 * Variants are compared as ratios measured in the same run, since machines are noisy.
 *   sampler: temporal neighbour sampler, root queries per second for 1..T threads;
 *   gen:     synthetic generator throughput and peak memory. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dgnn/gen.h"
#include "dgnn/sampler.h"

static int bench_sampler(int argc, char **argv) {
    cli_load_flags lf = {0};
    int64_t k = 10, max_threads = 2, batch = 600;
    double seconds = 2.0;
    arg_opt opts[] = {
        CLI_LOAD_OPTS(lf),
        {"k", ARG_INT, &k, "K", "neighbours per root (default 10)", ARG_IN(1, 1000)},
        {"threads", ARG_INT, &max_threads, "T", "measure 1, 2, 4, ... up to T threads (default 2)",
         ARG_IN(1, CLI_MAX_THREADS)},
        {"batch", ARG_INT, &batch, "B", "events per batch; roots = 2B (default 600)", ARG_IN(1, CLI_MAX_BATCH)},
        {"seconds", ARG_DOUBLE, &seconds, "S", "time per sampler and thread count (default 2)", ARG_IN_OPEN_LO(0, 3600)},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = "bench sampler", .usage = "dgnn bench sampler [options] DATA",
                     .summary = "Temporal neighbour sampler throughput: root queries per second for the\n"
                                "most-recent and uniform samplers, roots taken batch by batch over the stream\n"
                                "as training does.",
                     .opts = opts, .min_pos = 1, .max_pos = 1};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    dgnn_events ev;
    if ((rc = cli_load("bench sampler", spec.pos[0], &lf, &ev)) != 0) return rc;
    char a[32];
    printf("sampler benchmark: %s (%s events), k=%lld, batch=%lld\n", spec.pos[0],
           dgnn_fmt_count(a, sizeof a, ev.num_events), (long long)k, (long long)batch);
    printf("%8s %14s %16s %16s %10s\n", "threads", "tcsr build s", "recent roots/s", "uniform roots/s", "speedup");
    double base = 0;
    /* thread counts: 1, 2, 4, ... below max_threads, then max_threads itself */
    int64_t counts[40], nc = 0;
    for (int64_t t = 1; t < max_threads && nc < 38; t *= 2) counts[nc++] = t;
    counts[nc++] = max_threads;
    for (int64_t ci = 0; ci < nc; ci++) {
        int64_t t = counts[ci];
        dgnn_bench_sampler_result r;
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_bench_sampler(&r, &ev, (int)k, (int)t, seconds, (int)batch, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn bench sampler: %s\n", err.msg);
            dgnn_events_free(&ev);
            return 1;
        }
        if (t == 1) base = r.recent_qps;
        printf("%8d %14.3f %16.0f %16.0f %9.2fx\n", r.threads, r.build_s, r.recent_qps, r.uniform_qps,
               base > 0 ? r.recent_qps / base : 0.0);
    }
    dgnn_events_free(&ev);
    return 0;
}

int cmd_bench(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        FILE *f = argc < 1 ? stderr : stdout;
        fprintf(f, "usage: dgnn bench NAME [options]\n\nbenchmarks:\n"
                   "  sampler DATA   temporal neighbour sampler: root queries per second, 1..T threads\n"
                   "  gen            synthetic generator: events per second and peak memory\n"
                   "  train          one training epoch: events/s, GFLOP/s against sgemm peak, peak RSS, the\n"
                   "                 training time by op family (dense products, attention, GRU, ...);\n"
                   "                 with --model evolvegcn-o|-h: seconds per epoch, per-sample times, SpMM GB/s\n"
                   "(dgnn bench NAME --help for options)\n");
        return argc < 1 ? 2 : 0;
    }
    if (strcmp(argv[0], "sampler") == 0) return bench_sampler(argc - 1, argv + 1);
    if (strcmp(argv[0], "gen") == 0) return cmd_gen_bench(argc - 1, argv + 1);
    if (strcmp(argv[0], "train") == 0) {
        /* snapshot models: their own trainer, flags and figures (per-sample times, SpMM) */
        if (cli_is_snapshot_model(argc - 1, argv + 1)) return cmd_bench_train_snapshot(argc - 1, argv + 1);
        return cmd_train_bench(argc - 1, argv + 1);
    }
    fprintf(stderr, "dgnn bench: unknown benchmark '%s' (sampler, gen, train)\n", argv[0]);
    return 2;
}
