/* cmd_train_snap.c: `dgnn train --model evolvegcn-o|evolvegcn-h [--task link|edge|node]
 * ...`: trains a snapshot-based model (snap_train.h), prints the per-epoch validation
 * and the test figures (link: MAP / MRR; edge: minority-class F1; node: MSE), writes them
 * as JSON with --out and the per-sample cost profile as CSV with --profile; under
 * mpirun with --dist dygnex, DyGNeX's distributed training (snap_train.h: the windows
 * scheduled on the ranks with --scheduler, costs from --cost-profile or the default law;
 * rank 0 prints the predicted and measured makespan and imbalance and writes them in the
 * JSON's `dist` object; a rank that fails ends the job); and
 * `dgnn bench train --model evolvegcn-o ...`: seconds per epoch, the per-sample time
 * distribution and SpMM throughput against the STREAM triad, measured in the same run;
 * its --synthetic T runs the same bench on a generated stream (gen.h) cut into T
 * snapshots of growing size instead of --data (issue #4's 1,000-snapshot sequence).
 * What is printed and written of a run is snap_report.c's.
 *
 * Entry points: int cmd_train_snapshot(int argc, char **argv), declared in cli.h
 * (cmd_train.c hands `dgnn train --model evolvegcn-*` over to it with the same argv);
 * int cmd_bench_train_snapshot(int argc, char **argv) and int cli_is_snapshot_model(int
 * argc, char **argv), declared where they are called (cmd_bench.c) until cli.h has them. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/costmodel.h"
#include "dgnn/gen.h"
#include "dgnn/split.h"
#include "dgnn/snap_train.h"
#include "snap_report.h"


typedef struct {
    const char *path;
    dgnn_snap_task task;
} curve_ctx;

static void curve_line(void *ctx, const dgnn_snap_epoch_result *e) {
    const curve_ctx *k = ctx;
    cli_curve_append(k->path, cli_snap_epoch_json(e, k->task));
}

/* cli_train_snapshot_embedded's epoch hook: --curve's line, then the caller's, whose
 * nonzero return stops training (cfg.stop) */
typedef struct {
    curve_ctx curve; /* path NULL: no --curve */
    const cli_train_embed *embed;
    int stop;
} embed_curve_ctx;
static void embed_curve_line(void *ctx, const dgnn_snap_epoch_result *e) {
    embed_curve_ctx *k = ctx;
    if (k->curve.path) curve_line((void *)&k->curve, e);
    if (!k->embed->on_epoch) return;
    cJSON *x = cli_snap_epoch_json(e, k->curve.task);
    char *line = cJSON_PrintUnformatted(x);
    cJSON_Delete(x);
    if (line && k->embed->on_epoch(k->embed->on_epoch_ctx, line)) k->stop = 1;
    free(line);
}

/* "0.05,0.95" -> w[0], w[1]: each in [0, 1e6] (a float; 1e300 would be inf in the loss),
 * not both 0 (the loss would be 0 / 0) */
static int parse_weights(const char *s, float *w) {
    char *end;
    errno = 0;
    double a = strtod(s, &end);
    if (errno || end == s || *end != ',') return -1;
    const char *s2 = end + 1;
    double b = strtod(s2, &end);
    if (errno || end == s2 || *end != '\0' || !(a >= 0 && a <= 1e6) || !(b >= 0 && b <= 1e6) || !(a + b > 0))
        return -1;
    w[0] = (float)a, w[1] = (float)b;
    /* the loss weighs in float: 1e-50,1e-50 is 0,0 there (a loss of 0, nothing trained) */
    return w[0] + w[1] >= FLT_MIN ? 0 : -1;
}

/* Generates the --synthetic stream (dgnn_snap_synthetic_opts) into ev and returns the
 * snapshot length (duration / T) in *seconds; on failure prints "dgnn CMD: ..." and
 * returns 2 (bad --nodes / --events, caught by dgnn_gen_check) or 1. */
static int synthetic_events(const char *cmd, int64_t T, int64_t nodes, int64_t events, dgnn_events *ev,
                            double *seconds) {
    /* --events >= 1 (the option table): the generator allows 0, the snapshot cut does not */
    dgnn_gen_opts o = dgnn_snap_synthetic_opts(nodes, events);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_gen_check(&o, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --synthetic: %s\n", cmd, err.msg);
        return 2;
    }
    if (dgnn_gen_events(ev, &o, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --synthetic: %s\n", cmd, err.msg);
        return 1;
    }
    *seconds = o.duration / (double)T;
    return 0;
}

/* An option's help with the presets' defaults of its setting, taken from the presets
 * (dgnn_snap_train_preset_help) so that they are not typed twice: "TEXT (DEFAULTS)TAIL"
 * into buf. */
static void preset_help(char *buf, size_t cap, const char *text, const char *flag, const char *tail) {
    char d[256];
    dgnn_snap_train_preset_help(d, sizeof d, flag);
    snprintf(buf, cap, d[0] ? "%s (%s)%s" : "%s%s%s", text, d, tail);
}

/* `dgnn train --help` is the event models' (cmd_train.c): a flag of theirs that the snapshot
 * models' table lacks (--config, --max-batches, --batch, ...) is told as theirs, with where
 * the snapshot model's own flags are, rather than as an unknown option that a help listing
 * it contradicts. event_flags: the names of cmd_train.c's option table (tests/cli_config.sh
 * checks that every flag of `dgnn train --help` the snapshot help lacks is told so); those
 * in opts, the snapshot models' table, are theirs too and pass. argv is scanned as
 * args_parse reads it (a value after its option is skipped), up to "--", a --help, a
 * positional or an option neither table knows (args_parse's to tell). 1 after the
 * message, else 0. */
static int event_only_flag(const char *cmd, const arg_opt *opts, int argc, char **argv) {
    static const char *const event_flags[] = {
        "config", "dump-config", "model", "task", "node-epochs", "node-patience", "node-lr", "node-batch", "data",
        "preset", "epochs", "batch", "lr", "seed", "threads", "device", "patience", "eval-negatives", "mem-dim",
        "time-dim", "emb-dim", "neighbors", "heads", "mail-slots", "dropout", "sampler", "negatives", "attention",
        "split", "new-node-frac", "max-batches", "eval-max-events", "no-eval", "protocol", "tgb-negatives", "tgb-k",
        "on", "emb-out", "emb-at", "emb-time", "score-at", "score-out", "checkpoint", "resume", "dist", "partition",
        "window-events", "window-seconds", "refine", "critical-path", "window-report", "cold-allgather",
        "no-prefetch", "comm-timeout", "out", "curve", "plot", "step-curve", "quiet", NULL};
    const char *model = "evolvegcn-o";
    for (int i = 0; i < argc; i++) /* the model to name: args_parse's, the last --model */
        if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) model = argv[i + 1];
        else if (strncmp(argv[i], "--model=", 8) == 0) model = argv[i] + 8;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strncmp(a, "--", 2) != 0)
            return 0;
        const char *name = a + 2, *eq = strchr(name, '=');
        const size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const arg_opt *own = NULL;
        for (const arg_opt *o = opts; o->name && !own; o++)
            if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) own = o;
        if (own) {
            if (own->kind != ARG_FLAG && !eq) i++; /* its value */
            continue;
        }
        const char *ev = NULL;
        for (int k = 0; event_flags[k] && !ev; k++)
            if (strlen(event_flags[k]) == len && strncmp(event_flags[k], name, len) == 0) ev = event_flags[k];
        if (!ev) return 0;
        if (strcmp(ev, "config") == 0 || strcmp(ev, "dump-config") == 0)
            fprintf(stderr, "dgnn %s: --%s is for the event models (TGN, JODIE, DyRep, APAN); the snapshot model %s "
                            "takes its settings as flags: see dgnn %s --model %s --help\n",
                    cmd, ev, model, cmd, model);
        else
            fprintf(stderr, "dgnn %s: --%s is for the event models (TGN, JODIE, DyRep, APAN), as dgnn %s --help lists "
                            "it; the snapshot model %s has its own flags: see dgnn %s --model %s --help\n",
                    cmd, ev, cmd, model, cmd, model);
        return 1;
    }
    return 0;
}

/* cmd_train.c: 1 after the message when an MPI launcher started this process as one of
 * several (declared here until cli.h has it) */

/* What the options of one run say, once checked: its configuration and the flags the run
 * itself reads. */
typedef struct {
    const char *cmd, *data, *preset, *out, *profile, *ckpt, *cost_profile, *curve, *plot;
    cli_load_flags lf;
    dgnn_snapmodel_kind kind;
    dgnn_snap_task task;
    dgnn_snap_train_cfg c;
    int syn, dyg, sk;
    int64_t synthetic, syn_nodes, syn_events, sched_ranks, rounds, threads;
    double time_limit, comm_timeout, bench_secs;
    const cli_train_embed *embed; /* cli_train_snapshot_embedded's caller, else NULL */
} snap_job;

#define SNAP_GO_ON (-1) /* snap_options: the options are good, run the job */

/* Parses and checks the options of `dgnn train` (bench = 0) or `dgnn bench train`
 * (bench = 1) into *j: SNAP_GO_ON, or the exit code (0 after --help, 2 for bad options,
 * each told as "dgnn CMD: ..."). */
static int snap_options(int argc, char **argv, int bench, const cli_train_embed *embed, snap_job *j) {
    cli_load_flags lf = {0};
    const char *model = NULL, *data = NULL, *task_s = "link", *preset = NULL, *out = NULL, *ckpt = NULL;
    const char *weights = NULL, *profile = NULL, *dist = NULL, *scheduler = NULL, *cost_profile = NULL;
    const char *curve = NULL, *plot = NULL, *device = NULL;
    int64_t sched_ranks = 0, rounds = CLI_UNSET;
    double time_limit = CLI_UNSET_F, comm_timeout = CLI_UNSET_F;
    int64_t window = CLI_UNSET, per_step = CLI_UNSET, epochs = CLI_UNSET, seed = CLI_UNSET, threads = 0,
            hidden = CLI_UNSET, cls = CLI_UNSET, negs = CLI_UNSET, patience = CLI_UNSET, skipval = CLI_UNSET,
            max_windows = 0, count = CLI_UNSET;
    /* INT64_MIN: not given (so that --synthetic 0 or --nodes -1 are reported, not ignored) */
    int64_t synthetic = INT64_MIN, syn_nodes = INT64_MIN, syn_events = INT64_MIN;
    double seconds = CLI_UNSET_F, lr = CLI_UNSET_F, train_frac = CLI_UNSET_F, val_frac = CLI_UNSET_F, bench_secs = 1.0;
    int resume = 0, quiet = 0, no_eval = 0, baseline_last = 0, neg_all = 0;
    const char *cmd = bench ? "bench train" : "train";
    /* the presets' defaults in the help, from the presets (snap_presets.c) */
    char h_secs[320], h_window[320], h_epochs[320], h_lr[320], h_hidden[320], h_cls[320], h_cw[320], h_negs[320],
        h_tf[320], h_vf[320], h_pat[320], h_skip[320];
    preset_help(h_secs, sizeof h_secs, "link, edge: snapshot length in time units", "snapshot-seconds", "");
    preset_help(h_window, sizeof h_window, "num_hist_steps: a sample reads snapshots t-W..t", "window", "");
    if (bench) snprintf(h_epochs, sizeof h_epochs, "training epochs (3)");
    else preset_help(h_epochs, sizeof h_epochs, "training epochs at most", "epochs", "");
    preset_help(h_lr, sizeof h_lr, "Adam learning rate", "lr", "");
    preset_help(h_hidden, sizeof h_hidden, "width of both GCN layers", "hidden", "");
    preset_help(h_cls, sizeof h_cls, "classifier / head hidden width", "cls-hidden", "");
    preset_help(h_cw, sizeof h_cw, "link, edge: loss weights of classes 0 and 1", "class-weights",
                "; each in [0, 1e6], not both 0");
    preset_help(h_negs, sizeof h_negs, "link: sampled non-edges per edge in training", "negatives", "");
    preset_help(h_vf, sizeof h_vf, "fraction of the time steps for validation", "val-frac", "");
    preset_help(h_tf, sizeof h_tf, "fraction of the time steps for training", "train-frac", "; train + val < 1");
    preset_help(h_pat, sizeof h_pat, "early stopping: stop after more than N validations without a better figure",
                "patience", "");
    preset_help(h_skip, sizeof h_skip, "first epochs without validation", "skip-val-epochs",
                "; 6 is the reference's eval_after_epochs 5");
    arg_opt opts[] = {
        {"model", ARG_STRING, &model, "M", "evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn (static baseline)"},
        {"data", ARG_STRING, &data, "FILE", "event stream (any format), cut into snapshots; node: a PGT json file"},
        CLI_LOAD_OPTS(lf),
        {"synthetic", ARG_INT, &synthetic, "T", "bench train only, instead of --data: a generated stream (dgnn gen, "
                                                "growth 10, bursts 0, seed 1) cut into T snapshots of growing size "
                                                "(of 30 days / T each)", ARG_IN(1, 100000)},
        {"nodes", ARG_INT, &syn_nodes, "N", "with --synthetic: node count (3000)", ARG_IN(2, 100000000)},
        {"events", ARG_INT, &syn_events, "E", "with --synthetic: event count (500000)", ARG_IN(1, 1e10)},
        {"task", ARG_STRING, &task_s, "T", "link (link prediction, default), edge (rating-sign classification), "
                                           "node (node regression on PGT targets)"},
        {"preset", ARG_STRING, &preset, "P", "configuration: link: bitcoin-alpha (default) or uci; edge: "
                                             "bitcoin-alpha; node: pgt"},
        {"snapshot-seconds", ARG_DOUBLE, &seconds, "S", h_secs, ARG_ABOVE(0)},
        {"snapshots", ARG_INT, &count, "C", "link, edge: instead, C snapshots of equal time span (node: one per period of the file)", ARG_IN(1, CLI_MAX_SNAPSHOTS)},
        {"window", ARG_INT, &window, "W", h_window, ARG_IN(0, CLI_MAX_WINDOW)},
        {"windows-per-step", ARG_INT, &per_step, "K", "samples whose gradients are summed per Adam step (1; wdgcn: overlapping ones share their snapshots' GCN)", ARG_IN(1, 100000)},
        {"epochs", ARG_INT, &epochs, "N", h_epochs, ARG_IN(1, CLI_MAX_EPOCHS)},
        {"lr", ARG_DOUBLE, &lr, "X", h_lr, ARG_IN_OPEN_LO(0, CLI_MAX_LR)},
        {"hidden", ARG_INT, &hidden, "L", h_hidden, ARG_IN(1, CLI_MAX_DIM)},
        {"cls-hidden", ARG_INT, &cls, "C", h_cls, ARG_IN(1, CLI_MAX_DIM)},
        {"class-weights", ARG_STRING, &weights, "W0,W1", h_cw},
        {"negatives", ARG_INT, &negs, "K", h_negs, ARG_IN(0, 10000)},
        {"neg-all-nodes", ARG_FLAG, &neg_all, NULL, "link: non-edges' destinations from all nodes (reference: active ones)"},
        {"train-frac", ARG_DOUBLE, &train_frac, "F", h_tf, ARG_IN_OPEN(0, 1)},
        {"val-frac", ARG_DOUBLE, &val_frac, "F", h_vf, ARG_IN_OPEN_HI(0, 1)},
        {"patience", ARG_INT, &patience, "N", h_pat, ARG_IN(0, CLI_MAX_EPOCHS)},
        {"skip-val-epochs", ARG_INT, &skipval, "N", h_skip, ARG_IN(0, CLI_MAX_EPOCHS)},
        {"seed", ARG_INT, &seed, "S", "seed of initialisation, negatives and RReLU (1234)", ARG_MIN(0)},
        {"threads", ARG_INT, &threads, "T", "OpenMP threads (default: all cores)", ARG_IN(1, CLI_MAX_THREADS)},
        {"device", ARG_STRING, &device, "D", "cpu (default) or cuda[:N]: train and evaluate on GPU N (cuda: the "
                                             "rank's local rank; every kind, link, edge and node tasks; --dist dygnex sums "
                                             "the gradients with NCCL where every rank has a GPU of its own, else "
                                             "staged through the host (comm_dev.h); needs a -DDGNN_CUDA=ON build; "
                                             "NOT YET VERIFIED ON HARDWARE)"},
        {"max-windows", ARG_INT, &max_windows, "N", "stop each training epoch after N samples (quick runs; 0: all)", ARG_MIN(0)},
        {"no-eval", ARG_FLAG, &no_eval, NULL, "skip validation and test (timing the training loop)"},
        {"baseline-last", ARG_FLAG, &baseline_last, NULL, "also score the test samples with the task's \"repeat the "
                                                          "last snapshot\" baseline"},
        {"profile", ARG_STRING, &profile, "FILE.csv", "write the per-sample cost profile (sampling + forward + backward "
                                                      "time of every training sample, median over the epochs; CPU "
                                                      "seconds with --threads 1) as CSV"},
        {"dist", ARG_STRING, &dist, "MODE", "dygnex: DyGNeX's scheduled data-parallel training under mpirun -np P "
                                            "(or one process playing --sched-ranks P)"},
        {"scheduler", ARG_STRING, &scheduler, "S", "dygnex: even, greedy (default) or ilp"},
        {"sched-ranks", ARG_INT, &sched_ranks, "P", "dygnex: ranks of the schedule (default: the processes; one "
                                                    "process with P > 1 plays P ranks)", ARG_IN(0, DGNN_SNAP_DIST_MAX_RANKS)},
        {"cost-profile", ARG_STRING, &cost_profile, "CSV", "dygnex: fit the cost model on this profile (dgnn train "
                                                           "--profile), as dgnn schedule --profile; default: the "
                                                           "FLOP law"},
        {"rounds", ARG_INT, &rounds, "R", "dygnex, greedy and ilp (even's: ceil(windows / P)): rounds (optimizer steps) per epoch (default, or 0: the R in C - 7 .. C with R >= 0.9 C, C = ceil(windows / P), whose greedy schedule has the lowest makespan; ties: the larger R)", ARG_MIN(0)},
        {"time-limit", ARG_DOUBLE, &time_limit, "S", "dygnex, ilp: solver time limit in seconds (10)", ARG_IN_OPEN_LO(0, CLI_MAX_SECONDS)},
        CLI_COMM_TIMEOUT_OPT(comm_timeout),
        {"checkpoint", ARG_STRING, &ckpt, "DIR", "write a checkpoint after every epoch into DIR (one run at a time: a second one is refused)"},
        {"resume", ARG_FLAG, &resume, NULL, "continue from the checkpoint in --checkpoint DIR (needed when DIR holds one: a run afresh never replaces it)"},
        {"out", ARG_STRING, &out, "FILE", "write the results as JSON"},
        {"curve", ARG_STRING, &curve, "FILE", "one JSON line per epoch as it ends (a killed run keeps its curve; emptied first unless --resume, which drops lines the checkpoint lacks; a line lost fails the run)"},
        {"plot", ARG_STRING, &plot, "FILE", "draw the learning curve (loss, validation metric per epoch) as SVG"},
        {"quiet", ARG_FLAG, &quiet, NULL, "no progress bar"},
        {"bench-seconds", ARG_DOUBLE, &bench_secs, "S", "bench train: time of each bandwidth measurement (1)", ARG_IN_OPEN_LO(0, 60)},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = bench ? "bench train" : "train",
                     .usage = bench ? "dgnn bench train --model evolvegcn-o|evolvegcn-h|tgcn|gcrn-gru|wdgcn|gcn --data FILE | "
                                      "--synthetic T [options]"
                                    : "dgnn train --model evolvegcn-o|evolvegcn-h|tgcn|gcrn-gru|wdgcn|gcn --data FILE [--task link|edge|node] "
                                      "[options]",
                     .summary = bench ? "Times the training loop of a snapshot model (3 epochs by default, no\n"
                                        "evaluation): seconds per epoch, the per-sample training time\n"
                                        "distribution (min / median / p90 / max, and max / median: the imbalance\n"
                                        "between windows), and SpMM GB/s beside the STREAM triad measured now.\n"
                                        "--synthetic T instead of --data: dgnn gen's stream with the rate growing\n"
                                        "10x over its 30 days and no bursts (3,000 nodes and 500,000 events unless\n"
                                        "--nodes / --events), cut into T snapshots of 30 days / T: T snapshots of\n"
                                        "growing size (link task; T >= window + 2)."
                                      : "Trains a snapshot model (EvolveGCN-O or -H, T-GCN, GCRN-GRU, WD-GCN, or the\n"
                                        "static GCN baseline) with EvolveGCN's protocol: snapshots of fixed\n"
                                        "length, one-hot degree input, samples of W+1 snapshots. --task link: predict\n"
                                        "the next snapshot's edges (100 sampled non-edges per edge; validation and test\n"
                                        "on every node pair, MAP and MRR as the reference logger). --task edge: the\n"
                                        "sign of bitcoin-alpha's ratings (F1 of the minority class). --task node:\n"
                                        "regression of a PGT json file's targets one snapshot ahead (MSE).\n"
                                        "Several workers: mpirun -np P dgnn train --model M --dist dygnex\n"
                                        "--scheduler even|greedy|ilp [--cost-profile CSV]: each round (one Adam step)\n"
                                        "every rank trains its group of windows, the gradients are all-reduced\n"
                                        "(docs/dygnex.md).",
                     .opts = opts, .min_pos = 0, .max_pos = 0};
    if (event_only_flag(cmd, opts, argc, argv)) return 2;
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;

    dgnn_snapmodel_kind kind;
    if (!model) {
        fprintf(stderr, "dgnn %s: --model is required here (evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn)\n", cmd);
        return 2;
    }
    if (dgnn_snapmodel_kind_parse(model, &kind) != 0) {
        fprintf(stderr,
                "dgnn %s: --model: '%s' is not a snapshot model (evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn)\n",
                cmd, model);
        return 2;
    }
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_snap_task task;
    if (dgnn_snap_task_parse(task_s, &task, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --task: %s\n", cmd, err.msg);
        return 2;
    }
    const int syn = synthetic != INT64_MIN;
    if (embed && (data || syn || (dist && strcmp(dist, "none") != 0))) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, data ? "--data: the events are given as arrays (dgnn.train's data)"
                                             : syn ? "--synthetic is for `dgnn bench train` only"
                                                   : "--dist: multi-rank training runs under mpirun, with the dgnn command");
        return 2;
    }
    if (embed && (rc = cli_load_flags_unused(cmd, &lf)) != 0) return rc;
    if (syn && !bench) {
        fprintf(stderr, "dgnn %s: --synthetic is for `dgnn bench train` only (to train on a generated stream, write "
                        "it with `dgnn gen` and pass --data)\n", cmd);
        return 2;
    }
    if (syn && data) {
        fprintf(stderr, "dgnn %s: give --data FILE or --synthetic T, not both\n", cmd);
        return 2;
    }
    if (syn && (rc = cli_load_flags_unused(cmd, &lf)) != 0) return rc;
    if (!syn && (syn_nodes != INT64_MIN || syn_events != INT64_MIN)) {
        fprintf(stderr, "dgnn %s: --nodes and --events size the --synthetic stream; they need --synthetic T\n", cmd);
        return 2;
    }
    if (syn && task != DGNN_SNAP_TASK_LINK) {
        fprintf(stderr, "dgnn %s: --synthetic: the generated stream has no ratings or node targets: use --task link\n",
                cmd);
        return 2;
    }
    if (syn && (CLI_GIVEN_F(seconds) || count != CLI_UNSET)) {
        fprintf(stderr, "dgnn %s: --synthetic T cuts its stream into T snapshots itself: leave out --snapshot-seconds "
                        "and --snapshots\n", cmd);
        return 2;
    }
    /* a flag typed for a task that does not read it would be ignored: refused (the
     * presets' values are not typed, and never refused) */
    const struct {
        const char *flag;
        int given;
    } typed[] = {{"snapshot-seconds", CLI_GIVEN_F(seconds)}, {"snapshots", count != CLI_UNSET},
                 {"window", window != CLI_UNSET},           {"epochs", epochs != CLI_UNSET},
                 {"lr", CLI_GIVEN_F(lr)},                   {"hidden", hidden != CLI_UNSET},
                 {"cls-hidden", cls != CLI_UNSET},          {"class-weights", weights != NULL},
                 {"negatives", negs != CLI_UNSET},          {"neg-all-nodes", neg_all},
                 {"train-frac", CLI_GIVEN_F(train_frac)},   {"val-frac", CLI_GIVEN_F(val_frac)},
                 {"patience", patience != CLI_UNSET},       {"skip-val-epochs", skipval != CLI_UNSET}};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
        if (typed[i].given && dgnn_snap_train_flag_check(task, typed[i].flag, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
            return 2;
        }
    if (!data && !syn && !embed) {
        fprintf(stderr, "dgnn %s: --data FILE is required for %s (%s)\n", cmd, model,
                task == DGNN_SNAP_TASK_NODE ? "a PyG-Temporal json file with node targets"
                                            : "an event stream to cut into snapshots");
        return 2;
    }
    if (!preset) preset = task == DGNN_SNAP_TASK_NODE ? "pgt" : "bitcoin-alpha";
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(kind);
    c.task = task;
    if (dgnn_snap_train_preset(&c, preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --preset: %s\n", cmd, err.msg);
        return 2;
    }
    if (CLI_GIVEN_F(seconds) && count != CLI_UNSET) {
        fprintf(stderr, "dgnn %s: give --snapshot-seconds or --snapshots, not both\n", cmd);
        return 2;
    }
    if (CLI_GIVEN_F(seconds)) c.snapshot_seconds = seconds, c.snapshot_count = 0;
    if (count != CLI_UNSET) c.snapshot_count = count, c.snapshot_seconds = 0;
    if (window != CLI_UNSET) c.window = window;
    if (per_step != CLI_UNSET) c.windows_per_step = per_step;
    if (epochs != CLI_UNSET) c.epochs = epochs;
    else if (bench) c.epochs = 3;
    if (CLI_GIVEN_F(lr)) c.lr = lr;
    if (hidden != CLI_UNSET) c.model.hidden = hidden;
    if (cls != CLI_UNSET) c.model.cls_hidden = cls;
    if (negs != CLI_UNSET) c.neg_mult = negs;
    c.neg_all_nodes = neg_all;
    if (CLI_GIVEN_F(train_frac)) c.train_frac = train_frac;
    if (CLI_GIVEN_F(val_frac)) c.val_frac = val_frac;
    if (patience != CLI_UNSET) c.patience = patience;
    if (skipval != CLI_UNSET) c.skip_val_epochs = skipval;
    if (seed != CLI_UNSET) c.seed = (uint64_t)seed, c.model.seed = (uint64_t)seed;
    else c.model.seed = c.seed;
    if (weights && parse_weights(weights, c.class_w) != 0) {
        fprintf(stderr, "dgnn %s: --class-weights: '%s' is not two numbers W0,W1 in [0, 1e6], not both 0\n", cmd,
                weights);
        return 2;
    }
    c.threads = threads;
    if ((rc = cli_device_parse(cmd, device, &c.use_cuda, &c.cuda_device))) return rc;
    if (c.use_cuda && strcmp(device, "cuda") == 0) c.cuda_device = DGNN_SNAP_CUDA_LOCAL_RANK; /* cuda:local_rank */
    c.max_train_windows = max_windows;
    c.skip_eval = no_eval || bench;
    c.baseline_last = baseline_last && !bench;
    c.checkpoint = ckpt;
    c.resume = resume;
    c.progress = !quiet;
    if (syn) {
        /* a T that leaves no sample, or none for training, is a bad --synthetic T, told
         * before generating, with the smallest T that works. Fractions out of range find
         * none: the trainer's check of the configuration tells. */
        const int64_t need = dgnn_snap_split_min_snapshots(c.window, c.train_frac, c.val_frac);
        if (synthetic < need) {
            fprintf(stderr, "dgnn %s: --synthetic %lld: too few snapshots: window %lld and train fraction %g need T >= "
                            "%lld (at least window + 2, and one training sample)\n",
                    cmd, (long long)synthetic, (long long)c.window, c.train_frac, (long long)need);
            return 2;
        }
    }
    if (resume && !ckpt) {
        fprintf(stderr, "dgnn %s: --resume needs --checkpoint DIR\n", cmd);
        return 2;
    }
    /* what needs no data (the fractions' sum, ...) is told before the data is loaded */
    if (dgnn_snap_train_cfg_check(&c, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        return 2;
    }
    if (dist && strcmp(dist, "dygnex") != 0 && strcmp(dist, "none") != 0) {
        fprintf(stderr, "dgnn %s: --dist: '%s' (dygnex, none)\n", cmd, dist);
        return 2;
    }
    const int dyg = dist && strcmp(dist, "dygnex") == 0 && !bench;
    int sk = dgnn_sched_kind_parse(scheduler ? scheduler : "greedy");
    if (sk < 0) {
        fprintf(stderr, "dgnn %s: --scheduler: '%s' (even, greedy, ilp)\n", cmd, scheduler);
        return 2;
    }
    /* DyGNeX's settings act with --dist dygnex only, each where its scheduler reads it;
     * anywhere else they would be ignored (and recorded nowhere) */
    if (bench && dist && strcmp(dist, "dygnex") == 0) {
        fprintf(stderr, "dgnn %s: --dist dygnex is dgnn train's: dgnn bench train times one process\n", cmd);
        return 2;
    }
    const struct {
        const char *flag;
        int given;
    } dyg_only[] = {{"--sched-ranks", sched_ranks != 0},     {"--rounds", rounds != CLI_UNSET},
                    {"--cost-profile", cost_profile != NULL}, {"--scheduler", scheduler != NULL},
                    {"--time-limit", CLI_GIVEN_F(time_limit)}, {"--comm-timeout", CLI_GIVEN_F(comm_timeout)}};
    for (size_t i = 0; i < sizeof dyg_only / sizeof dyg_only[0] && !dyg; i++)
        if (dyg_only[i].given) {
            if (bench)
                fprintf(stderr, "dgnn %s: %s is a setting of dgnn train --dist dygnex: dgnn bench train times one "
                                "process\n", cmd, dyg_only[i].flag);
            else
                fprintf(stderr, "dgnn %s: %s needs --dist dygnex (a DyGNeX setting; without it the snapshot model "
                                "trains in one process)\n", cmd, dyg_only[i].flag);
            return 2;
        }
    if (CLI_GIVEN_F(time_limit) && sk != DGNN_SCHED_ILP) {
        fprintf(stderr, "dgnn %s: --time-limit is the ILP's (--scheduler ilp); the %s scheduler does not read it\n",
                cmd, dgnn_sched_kind_name((dgnn_sched_kind)sk));
        return 2;
    }
    if (rounds != CLI_UNSET && sk == DGNN_SCHED_EVEN) {
        fprintf(stderr, "dgnn %s: --rounds applies to --scheduler greedy and ilp: the even scheduler's rounds are "
                        "ceil(windows / P), one window per rank and round\n", cmd);
        return 2;
    }
    if (dyg && c.windows_per_step != 1) { /* told before the data is read */
        fprintf(stderr, "dgnn %s: --windows-per-step does not apply with --dist dygnex: a round (one group per rank) is "
                        "one optimizer step\n", cmd);
        return 2;
    }
    /* under mpirun every process would train alone on all the data and write the same
     * outputs (in-process callers are one process) */
    if (!embed && !dyg &&
        cli_refuse_copies(cmd, bench ? "dgnn bench train of a snapshot model times one process, and each would run "
                                       "alone and write the same outputs: run it without mpirun"
                                     : "without --dist each would train alone on all the data and write the same "
                                       "outputs: give --dist dygnex, or run one process"))
        return 2;
    if (rounds == CLI_UNSET) rounds = 0; /* the automatic count */
    if (!CLI_GIVEN_F(time_limit)) time_limit = 10;
    *j = (snap_job){.cmd = cmd, .data = data, .preset = preset, .out = out, .profile = profile, .ckpt = ckpt, .curve = curve, .plot = plot,
                    .cost_profile = cost_profile, .lf = lf, .kind = kind, .task = task, .c = c, .syn = syn,
                    .dyg = dyg, .sk = sk, .synthetic = synthetic, .syn_nodes = syn_nodes, .syn_events = syn_events,
                    .sched_ranks = sched_ranks, .rounds = rounds, .threads = threads, .time_limit = time_limit,
                    .comm_timeout = comm_timeout, .bench_secs = bench_secs, .embed = embed};
    return SNAP_GO_ON;
}

/* DyGNeX's predicted window costs, on rank 0 (it schedules): fitted on --cost-profile as
 * `dgnn schedule` does, into *cost (malloc'd) and j->c.dist; without a profile, the line
 * saying the default law is used. 0, or 1 after the message. */
static int dygnex_costs(snap_job *j, dgnn_costmodel *cm, double **cost) {
    if (!j->cost_profile) {
        printf("cost model    DEFAULT LAW (not measured): FLOP count at a nominal %.3g FLOP/s; pass --cost-profile "
               "CSV for measured costs\n", DGNN_COST_DEFAULT_RATE);
        return 0;
    }
    dgnn_window *win = NULL;
    int64_t n = 0, N = 0;
    dgnn_snap_train_cfg cc = j->c;
    if (cli_snap_windows(j->cmd, j->data, &j->lf, &cc, &win, &n, &N) ||
        cli_snap_cost_model(j->cmd, cm, win, n, (int)j->kind, &j->c, j->cost_profile, 0, 0)) {
        free(win);
        return 1;
    }
    *cost = dgnn_xmalloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) (*cost)[i] = dgnn_costmodel_predict(cm, &win[i]);
    free(win);
    j->c.dist.cost = *cost, j->c.dist.cost_n = n;
    return 0;
}

/* The run's events: the --synthetic stream (its snapshot length set in j->c, its name in
 * j->data, its report printed), or --data. 0, or the exit code after the message. */
static int snap_events(snap_job *j, dgnn_events *ev, char *synname, size_t cap) {
    if (j->embed) { /* the caller's events (not freed) */
        *ev = *j->embed->events;
        j->data = j->embed->dataset ? j->embed->dataset : "arrays";
        return 0;
    }
    if (!j->syn) return cli_load(j->cmd, j->data, &j->lf, ev);
    const int64_t N = j->syn_nodes != INT64_MIN ? j->syn_nodes : DGNN_SNAP_SYNTH_NODES;
    const int64_t E = j->syn_events != INT64_MIN ? j->syn_events : DGNN_SNAP_SYNTH_EVENTS;
    double secs = 0;
    int rc = synthetic_events(j->cmd, j->synthetic, N, E, ev, &secs);
    if (rc) return rc;
    j->c.snapshot_seconds = secs, j->c.snapshot_count = 0;
    snprintf(synname, cap, "synthetic-T%lld", (long long)j->synthetic);
    j->data = synname;
    cli_snap_synthetic_report(ev, j->synthetic, secs, N, E);
    return 0;
}

/* The snapshots the trainer cuts (dgnn_snapshots_cut), for the log: "snapshots of S s",
 * with --snapshots C "C snapshots of S s" (S = the events' time span / C, as the cut
 * makes them), or "one snapshot per period" (a PGT table, the node task). */
static void snapshot_length(char *buf, size_t cap, const dgnn_snap_train_cfg *c, const dgnn_events *ev) {
    const int64_t E = ev->num_events;
    if (c->snapshot_seconds > 0) snprintf(buf, cap, "snapshots of %.10g s", c->snapshot_seconds);
    else if (c->snapshot_count > 0)
        snprintf(buf, cap, "%lld snapshots of %.10g s", (long long)c->snapshot_count,
                 E > 0 ? (ev->t[E - 1] - ev->t[0]) / (double)c->snapshot_count : 0.0);
    else snprintf(buf, cap, "one snapshot per period");
}

/* Runs a checked job: the communicator (--dist dygnex), the output checks, the costs, the
 * events, dgnn_snap_train, then rank 0's report and files. Returns the exit code. */
static int snap_run_job(snap_job *j, int argc, char **argv, int bench, int *lock) {
    const char *cmd = j->cmd;
    dgnn_snap_train_cfg *c = &j->c;
    const int dyg = j->dyg;
    cli_comm_timeout(j->comm_timeout);
    if (dyg) {
        dgnn_comm_init(&argc, &argv);
        if (dgnn_comm_rank() != 0) c->progress = 0;
        c->dist.mode = DGNN_SNAP_DIST_DYGNEX;
        c->dist.scheduler = (dgnn_sched_kind)j->sk;
        c->dist.ranks = j->sched_ranks;
        c->dist.rounds = j->rounds;
        c->dist.time_limit = j->time_limit;
        /* what decides the collectives below and the refusals before training, compared
         * first: a rank launched with its own options (mpirun's A : B) stops with the rest */
        dgnn_ckpt_run g;
        dgnn_ckpt_run_init(&g);
        dgnn_ckpt_run_set(&g, "command", "%s", cmd);
        dgnn_ckpt_run_set(&g, "checkpoint", "%s", j->ckpt ? "given" : "none");
        dgnn_ckpt_run_set(&g, "resume", "%d", c->resume);
        dgnn_ckpt_run_set(&g, "cost_profile", "%s", j->cost_profile ? "given" : "none");
        dgnn_ckpt_run_set(&g, "profile", "%s", j->profile ? "given" : "none");
        dgnn_ckpt_run_set(&g, "sched_ranks", "%lld", (long long)(j->sched_ranks > 0 ? j->sched_ranks : dgnn_comm_size()));
        dgnn_ckpt_run_set(&g, "scheduler", "%s", dgnn_sched_kind_name((dgnn_sched_kind)j->sk));
        dgnn_ckpt_run_set(&g, "rounds", "%lld", (long long)j->rounds);
        dgnn_ckpt_run_set(&g, "time_limit", "%.17g", j->time_limit);
        dgnn_ckpt_run_set(&g, "device", "%s", c->use_cuda ? "cuda" : "cpu");
        /* rank 0 writes every output: one given to another rank alone would be dropped */
        char outs[64];
        snprintf(outs, sizeof outs, "%s%s%s", j->out ? " --out" : "", j->curve ? " --curve" : "", j->plot ? " --plot" : "");
        dgnn_ckpt_run_set(&g, "outputs", "%s", outs[0] ? outs + 1 : "none");
        const int agree = cli_ranks_agree(cmd, &g);
        if (agree) return agree;
    }
    const int rank = dyg ? dgnn_comm_rank() : 0, many = dyg && dgnn_comm_size() > 1;
    /* every path this run writes is checked before any work (rank 0 writes them all;
     * every rank gets the verdict) */
    const cli_output outs[] = {{"--out", j->out, CLI_OUT_FILE},         {"--profile", j->profile, CLI_OUT_FILE},
                               {"--checkpoint", j->ckpt, CLI_OUT_FOLDER}, {"--curve", j->curve, CLI_OUT_FILE},
                               {"--plot", j->plot, CLI_OUT_FILE},       {"--data", j->embed ? j->embed->source : j->syn ? NULL : j->data, CLI_IN},
                               {"--cost-profile", j->cost_profile, CLI_IN}};
    if (cli_check_outputs(cmd, outs, 7)) {
        if (dyg) dgnn_comm_finalize();
        return 2;
    }
    /* one run at a time in a checkpoint folder, and a run afresh never replaces the
     * checkpoint there: rank 0, which writes it, locks it for the run's lifetime (released
     * by snap_main, or by the kernel when the process dies); every rank gets the verdict */
    if (j->ckpt) {
        int32_t bad = rank == 0 ? cli_ckpt_take(cmd, j->ckpt, c->resume, lock) : 0;
        if (dyg) dgnn_comm_bcast(&bad, sizeof bad, 0);
        if (bad) {
            if (dyg) dgnn_comm_finalize();
            return 2;
        }
    }
    /* what can never work, told before the data is read: the schedule's rank count against
     * the processes (every rank has the same flags, cli_ranks_agree, and count: all stop
     * alike), and the
     * --cost-profile file, read and fitted by rank 0, which tells every rank */
    if (dyg) {
        const int procs = dgnn_comm_size();
        const int64_t P = j->sched_ranks > 0 ? j->sched_ranks : procs;
        int32_t bad = 0;
        if (procs > 1 && P != procs) {
            if (rank == 0)
                fprintf(stderr, "dgnn %s: --sched-ranks %lld under %d processes: a schedule for P ranks runs on P "
                                "processes (or on one, which plays all P)\n", cmd, (long long)P, procs);
            bad = 1;
        } else if (P > DGNN_SNAP_DIST_MAX_RANKS) {
            if (rank == 0)
                fprintf(stderr, "dgnn %s: --dist dygnex: at most %d ranks (this job has %d processes)\n", cmd,
                        DGNN_SNAP_DIST_MAX_RANKS, procs);
            bad = 1;
        } else if (j->cost_profile) {
            if (rank == 0) {
                dgnn_costmodel pre;
                dgnn_snap_cost_fit fit;
                dgnn_err perr;
                dgnn_err_clear(&perr);
                /* no windows yet: the profile's rows of this model, and the fit */
                if (dgnn_snap_cost_model(&pre, &fit, NULL, 0, (int)j->kind, c, j->cost_profile, 0, &perr) != DGNN_OK) {
                    fprintf(stderr, "dgnn %s: --cost-profile: %s\n", cmd, perr.msg);
                    bad = 1;
                }
            }
            dgnn_comm_bcast(&bad, sizeof bad, 0);
        }
        if (bad) {
            dgnn_comm_finalize();
            return 2;
        }
    }
    /* rank 0 writes the curve (checked above; should emptying it fail now, training goes
     * on without it rather than leave the other ranks waiting) */
    static curve_ctx curve_k;
    curve_k = (curve_ctx){j->curve, c->task};
    if (j->curve && rank == 0) {
        if (cli_curve_start(cmd, j->curve, c->resume) == 0) {
            c->on_epoch = curve_line;
            c->on_epoch_ctx = &curve_k;
        } else if (!dyg) {
            return 2;
        }
    }
    static embed_curve_ctx embed_k; /* the in-process caller's hook after --curve's */
    if (j->embed) {
        embed_k = (embed_curve_ctx){{c->on_epoch ? j->curve : NULL, c->task}, j->embed, 0};
        c->on_epoch = embed_curve_line;
        c->on_epoch_ctx = &embed_k;
        c->stop = &embed_k.stop;
        c->interrupt = j->embed->interrupt;
    }
    const int own_ev = !j->embed;
    cli_set_threads(j->threads);

    /* rank 0 schedules; a failure there must end every rank */
    double *cost = NULL;
    dgnn_costmodel cm;
    memset(&cm, 0, sizeof cm);
    if (dyg && rank == 0 && dygnex_costs(j, &cm, &cost)) {
        if (many) dgnn_comm_abort(1);
        return 1;
    }
    dgnn_events ev;
    char synname[64];
    int rc = snap_events(j, &ev, synname, sizeof synname);
    if (rc) {
        free(cost);
        if (many) dgnn_comm_abort(1);
        return rc;
    }
    char a[32], b[32], len[96];
    snapshot_length(len, sizeof len, c, &ev);
    dgnn_log("%s, task %s, on %s: %s events, %s nodes, preset %s, %s, window %lld, L %lld, C %lld, "
             "lr %g, %lld epochs at most\n",
             dgnn_snapmodel_name(j->kind), dgnn_snap_task_name(j->task), j->data,
             dgnn_fmt_count(a, sizeof a, ev.num_events), dgnn_fmt_count(b, sizeof b, ev.num_nodes), j->preset, len,
             (long long)c->window, (long long)c->model.hidden, (long long)c->model.cls_hidden, c->lr,
             (long long)c->epochs);
    dgnn_snap_profile prof;
    memset(&prof, 0, sizeof prof);
    if (j->profile || bench) c->profile = &prof;
    dgnn_snap_train_result *res = dgnn_xcalloc(1, sizeof *res);
    dgnn_err err;
    dgnn_err_clear(&err);
    rc = dgnn_snap_train(&ev, c, res, &err);
    if (rc != DGNN_OK) {
        if (many) {
            /* the other ranks may be waiting for this one: end the whole job */
            fprintf(stderr, "dgnn %s: rank %d: %s\n", cmd, rank, err.msg);
            fflush(stderr);
            dgnn_comm_abort(1);
        }
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        free(res);
        free(cost);
        dgnn_snap_profile_free(&prof);
        if (own_ev) dgnn_events_free(&ev);
        if (dyg) dgnn_comm_finalize();
        return 1;
    }
    free(cost);
    if (rank != 0) { /* rank 0 reports */
        free(res);
        dgnn_snap_profile_free(&prof);
        if (own_ev) dgnn_events_free(&ev);
        dgnn_comm_finalize();
        return 0;
    }
    cli_snap_print_results(c, res);
    if (bench) cli_snap_print_bench(res, &prof, &ev, c, j->bench_secs);
    if (dyg) cli_snap_print_dist(&res->dist, cm.fitted);
    if (j->profile) {
        if (dgnn_snap_profile_write_csv(j->profile, &prof, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: --profile: %s\n", cmd, err.msg);
            rc = 1;
        } else {
            dgnn_log("profile: %lld samples written to %s\n", (long long)prof.count, j->profile);
        }
    }
    /* the same JSON for the in-process caller, before the files: one that cannot be
     * written then fails the call without losing the results (capi.h) */
    if (j->embed && j->embed->json && !rc)
        rc = cli_snap_json(NULL, dgnn_snapmodel_name(j->kind), j->data, j->preset, c, res, &ev, cm.fitted, embed_k.stop,
                        j->embed->json);
    if (j->out && !rc)
        rc = cli_snap_json(j->out, dgnn_snapmodel_name(j->kind), j->data, j->preset, c, res, &ev, cm.fitted,
                        j->embed && embed_k.stop, NULL);
    if (j->plot && !rc) rc = cli_snap_plot(cmd, j->plot, dgnn_snapmodel_name(j->kind), j->data, c, res);
    free(res);
    dgnn_snap_profile_free(&prof);
    if (own_ev) dgnn_events_free(&ev);
    if (dyg) dgnn_comm_finalize();
    return rc;
}

/* `dgnn train` (bench = 0) and `dgnn bench train` (bench = 1: training only, 3 epochs
 * by default, the per-sample time distribution and the bandwidth figures). */
static int snap_main(int argc, char **argv, int bench, const cli_train_embed *embed) {
    snap_job j;
    int rc = snap_options(argc, argv, bench, embed, &j);
    if (rc != SNAP_GO_ON) return rc;
    int lock = -1; /* the checkpoint folder's, held for the whole run */
    rc = snap_run_job(&j, argc, argv, bench, &lock);
    dgnn_ckpt_dir_unlock(lock);
    return rc;
}

int cmd_train_snapshot(int argc, char **argv) { return snap_main(argc, argv, 0, NULL); }
int cmd_bench_train_snapshot(int argc, char **argv) { return snap_main(argc, argv, 1, NULL); }
int cli_train_snapshot_embedded(int argc, char **argv, const cli_train_embed *e) {
    if (e->json) *e->json = NULL;
    return snap_main(argc, argv, 0, e);
}

/* The rule cmd_train.c uses to hand a --model over to the snapshot trainer. */
int cli_is_snapshot_model(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) v = argv[i + 1];
        else if (strncmp(argv[i], "--model=", 8) == 0) v = argv[i] + 8;
        dgnn_snapmodel_kind k;
        if (v) return dgnn_snapmodel_kind_parse(v, &k) == 0;
    }
    return 0;
}
