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
 *
 * A run is a snap_job, taken through phases: job_init (defaults, the option table),
 * job_parse, job_settings (every check that needs no data, in the order the messages
 * are told), start_ranks (--dist dygnex), claim_outputs, check_ranks, start_hooks, run_job
 * (the events, the training) and report; what is printed and written is snap_report.c's.
 *
 * Entry points, declared in cli.h: int cmd_train_snapshot(int argc, char **argv)
 * (cmd_train.c hands `dgnn train --model evolvegcn-*` over to it with the same argv),
 * int cmd_bench_train_snapshot(int argc, char **argv) (cmd_bench.c's), int
 * cli_train_snapshot_embedded(...) (the in-process caller's) and int
 * cli_is_snapshot_model(int argc, char **argv). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/costmodel.h"
#include "dgnn/gen.h"
#include "dgnn/snap_train.h"
#include "dgnn/split.h"
#include "snap_report.h"

typedef struct {
    const char *path;
    dgnn_snap_task task;
} curve_ctx;

/* --curve's epoch hook: the epoch's line appended to the file */
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

/* One run of dgnn train or bench train of a snapshot model: the flags as parsed (the
 * option table's targets: NULL, 0, CLI_UNSET or CLI_UNSET_F where not given), the command,
 * and what the flags decide. It lives for the whole run: the option table, the settings
 * and the epoch hooks point into it. */
typedef struct {
    /* the flags */
    cli_load_flags lf;
    const char *model, *data, *task_s, *preset, *out, *ckpt, *weights, *profile, *dist, *scheduler, *cost_profile;
    const char *curve, *plot, *device;
    int64_t sched_ranks, rounds;
    double time_limit, comm_timeout;
    int64_t window, per_step, epochs, seed, threads, hidden, cls, negs, patience, skipval, max_windows, count;
    /* INT64_MIN: not given (so that --synthetic 0 or --nodes -1 are reported, not ignored) */
    int64_t synthetic, syn_nodes, syn_events;
    double seconds, lr, train_frac, val_frac, bench_secs;
    int resume, quiet, no_eval, baseline_last, neg_all;
    /* the command */
    int bench; /* dgnn bench train */
    const cli_train_embed *embed; /* cli_train_snapshot_embedded's caller, else NULL */
    const char *cmd;
    int argc;
    char **argv;
    /* the presets' defaults in the help, from the presets (snap_presets.c) */
    char h_secs[320], h_window[320], h_epochs[320], h_lr[320], h_hidden[320], h_cls[320], h_cw[320], h_negs[320],
        h_tf[320], h_vf[320], h_pat[320], h_skip[320];
    arg_opt opts[64];
    arg_spec spec;
    /* what the flags decide */
    dgnn_snapmodel_kind kind;
    dgnn_snap_task task;
    dgnn_snap_train_cfg c;
    int syn, dyg, sk;       /* --synthetic given; --dist dygnex; the scheduler (dgnn_sched_kind) */
    int rank, many;         /* this process's rank, and whether there are several (start_ranks) */
    char synname[64];       /* --synthetic's dataset name */
    curve_ctx curve_k;      /* --curve's hook */
    embed_curve_ctx embed_k; /* the in-process caller's hook after --curve's */
} snap_job;

/* what job_parse returns after --help: the command ends with 0 */
#define HELP_SHOWN (-1)

static const char *const k_train_summary =
    "Trains a snapshot model (EvolveGCN-O or -H, T-GCN, GCRN-GRU, WD-GCN, or the\n"
    "static GCN baseline) with EvolveGCN's protocol: snapshots of fixed\n"
    "length, one-hot degree input, samples of W+1 snapshots. --task link: predict\n"
    "the next snapshot's edges (100 sampled non-edges per edge; validation and test\n"
    "on every node pair, MAP and MRR as the reference logger). --task edge: the\n"
    "sign of bitcoin-alpha's ratings (F1 of the minority class). --task node:\n"
    "regression of a PGT json file's targets one snapshot ahead (MSE).\n"
    "Several workers: mpirun -np P dgnn train --model M --dist dygnex\n"
    "--scheduler even|greedy|ilp [--cost-profile CSV]: each round (one Adam step)\n"
    "every rank trains its group of windows, the gradients are all-reduced\n"
    "(docs/dygnex.md).";
static const char *const k_bench_summary =
    "Times the training loop of a snapshot model (3 epochs by default, no\n"
    "evaluation): seconds per epoch, the per-sample training time\n"
    "distribution (min / median / p90 / max, and max / median: the imbalance\n"
    "between windows), and SpMM GB/s beside the STREAM triad measured now.\n"
    "--synthetic T instead of --data: dgnn gen's stream with the rate growing\n"
    "10x over its 30 days and no bursts (3,000 nodes and 500,000 events unless\n"
    "--nodes / --events), cut into T snapshots of 30 days / T: T snapshots of\n"
    "growing size (link task; T >= window + 2).";

/* The help texts that show the presets' defaults, into j's h_* buffers. */
static void job_help(snap_job *j) {
    preset_help(j->h_secs, sizeof j->h_secs, "link, edge: snapshot length in time units", "snapshot-seconds", "");
    preset_help(j->h_window, sizeof j->h_window, "num_hist_steps: a sample reads snapshots t-W..t", "window", "");
    if (j->bench) snprintf(j->h_epochs, sizeof j->h_epochs, "training epochs (3)");
    else preset_help(j->h_epochs, sizeof j->h_epochs, "training epochs at most", "epochs", "");
    preset_help(j->h_lr, sizeof j->h_lr, "Adam learning rate", "lr", "");
    preset_help(j->h_hidden, sizeof j->h_hidden, "width of both GCN layers", "hidden", "");
    preset_help(j->h_cls, sizeof j->h_cls, "classifier / head hidden width", "cls-hidden", "");
    preset_help(j->h_cw, sizeof j->h_cw, "link, edge: loss weights of classes 0 and 1", "class-weights",
                "; each in [0, 1e6], not both 0");
    preset_help(j->h_negs, sizeof j->h_negs, "link: sampled non-edges per edge in training", "negatives", "");
    preset_help(j->h_vf, sizeof j->h_vf, "fraction of the time steps for validation", "val-frac", "");
    preset_help(j->h_tf, sizeof j->h_tf, "fraction of the time steps for training", "train-frac", "; train + val < 1");
    preset_help(j->h_pat, sizeof j->h_pat,
                "early stopping: stop after more than N validations without a better figure", "patience", "");
    preset_help(j->h_skip, sizeof j->h_skip, "first epochs without validation", "skip-val-epochs",
                "; 6 is the reference's eval_after_epochs 5");
}

/* j's defaults, its option table (the flags' targets are j's fields) and the command's help */
static void job_init(snap_job *j, int bench, const cli_train_embed *embed) {
    *j = (snap_job){.task_s = "link", .rounds = CLI_UNSET, .time_limit = CLI_UNSET_F, .comm_timeout = CLI_UNSET_F,
                    .window = CLI_UNSET, .per_step = CLI_UNSET, .epochs = CLI_UNSET, .seed = CLI_UNSET,
                    .hidden = CLI_UNSET, .cls = CLI_UNSET, .negs = CLI_UNSET, .patience = CLI_UNSET,
                    .skipval = CLI_UNSET, .count = CLI_UNSET, .synthetic = INT64_MIN, .syn_nodes = INT64_MIN,
                    .syn_events = INT64_MIN, .seconds = CLI_UNSET_F, .lr = CLI_UNSET_F, .train_frac = CLI_UNSET_F,
                    .val_frac = CLI_UNSET_F, .bench_secs = 1.0, .bench = bench, .embed = embed,
                    .cmd = bench ? "bench train" : "train"};
    job_help(j);
    const arg_opt opts[] = {
        {"model", ARG_STRING, &j->model, "M", "evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn (static baseline)"},
        {"data", ARG_STRING, &j->data, "FILE", "event stream (any format), cut into snapshots; node: a PGT json file"},
        CLI_LOAD_OPTS(j->lf),
        {"synthetic", ARG_INT, &j->synthetic, "T", "bench train only, instead of --data: a generated stream (dgnn gen, "
                                                   "growth 10, bursts 0, seed 1) cut into T snapshots of growing size "
                                                   "(of 30 days / T each)", ARG_IN(1, 100000)},
        {"nodes", ARG_INT, &j->syn_nodes, "N", "with --synthetic: node count (3000)", ARG_IN(2, 100000000)},
        {"events", ARG_INT, &j->syn_events, "E", "with --synthetic: event count (500000)", ARG_IN(1, 1e10)},
        {"task", ARG_STRING, &j->task_s, "T", "link (link prediction, default), edge (rating-sign classification), "
                                              "node (node regression on PGT targets)"},
        {"preset", ARG_STRING, &j->preset, "P", "configuration: link: bitcoin-alpha (default) or uci; edge: "
                                                "bitcoin-alpha; node: pgt"},
        {"snapshot-seconds", ARG_DOUBLE, &j->seconds, "S", j->h_secs, ARG_ABOVE(0)},
        {"snapshots", ARG_INT, &j->count, "C", "link, edge: instead, C snapshots of equal time span (node: one per period of the file)", ARG_IN(1, CLI_MAX_SNAPSHOTS)},
        {"window", ARG_INT, &j->window, "W", j->h_window, ARG_IN(0, CLI_MAX_WINDOW)},
        {"windows-per-step", ARG_INT, &j->per_step, "K", "samples whose gradients are summed per Adam step (1; wdgcn: overlapping ones share their snapshots' GCN)", ARG_IN(1, 100000)},
        {"epochs", ARG_INT, &j->epochs, "N", j->h_epochs, ARG_IN(1, CLI_MAX_EPOCHS)},
        {"lr", ARG_DOUBLE, &j->lr, "X", j->h_lr, ARG_IN_OPEN_LO(0, CLI_MAX_LR)},
        {"hidden", ARG_INT, &j->hidden, "L", j->h_hidden, ARG_IN(1, CLI_MAX_DIM)},
        {"cls-hidden", ARG_INT, &j->cls, "C", j->h_cls, ARG_IN(1, CLI_MAX_DIM)},
        {"class-weights", ARG_STRING, &j->weights, "W0,W1", j->h_cw},
        {"negatives", ARG_INT, &j->negs, "K", j->h_negs, ARG_IN(0, 10000)},
        {"neg-all-nodes", ARG_FLAG, &j->neg_all, NULL, "link: non-edges' destinations from all nodes (reference: active ones)"},
        {"train-frac", ARG_DOUBLE, &j->train_frac, "F", j->h_tf, ARG_IN_OPEN(0, 1)},
        {"val-frac", ARG_DOUBLE, &j->val_frac, "F", j->h_vf, ARG_IN_OPEN_HI(0, 1)},
        {"patience", ARG_INT, &j->patience, "N", j->h_pat, ARG_IN(0, CLI_MAX_EPOCHS)},
        {"skip-val-epochs", ARG_INT, &j->skipval, "N", j->h_skip, ARG_IN(0, CLI_MAX_EPOCHS)},
        {"seed", ARG_INT, &j->seed, "S", "seed of initialisation, negatives and RReLU (1234)", ARG_MIN(0)},
        {"threads", ARG_INT, &j->threads, "T", "OpenMP threads (default: all cores)", ARG_IN(1, CLI_MAX_THREADS)},
        {"device", ARG_STRING, &j->device, "D", "cpu (default) or cuda[:N]: train and evaluate on GPU N (cuda: the "
                                                "rank's local rank; every kind, link, edge and node tasks; --dist dygnex sums "
                                                "the gradients with NCCL where every rank has a GPU of its own, else "
                                                "staged through the host (comm_dev.h); needs a -DDGNN_CUDA=ON build; "
                                                "NOT YET VERIFIED ON HARDWARE)"},
        {"max-windows", ARG_INT, &j->max_windows, "N", "stop each training epoch after N samples (quick runs; 0: all)", ARG_MIN(0)},
        {"no-eval", ARG_FLAG, &j->no_eval, NULL, "skip validation and test (timing the training loop)"},
        {"baseline-last", ARG_FLAG, &j->baseline_last, NULL, "also score the test samples with the task's \"repeat the "
                                                             "last snapshot\" baseline"},
        {"profile", ARG_STRING, &j->profile, "FILE.csv", "write the per-sample cost profile (sampling + forward + backward "
                                                         "time of every training sample, median over the epochs; CPU "
                                                         "seconds with --threads 1) as CSV"},
        {"dist", ARG_STRING, &j->dist, "MODE", "dygnex: DyGNeX's scheduled data-parallel training under mpirun -np P "
                                               "(or one process playing --sched-ranks P)"},
        {"scheduler", ARG_STRING, &j->scheduler, "S", "dygnex: even, greedy (default) or ilp"},
        {"sched-ranks", ARG_INT, &j->sched_ranks, "P", "dygnex: ranks of the schedule (default: the processes; one "
                                                       "process with P > 1 plays P ranks)", ARG_IN(0, DGNN_SNAP_DIST_MAX_RANKS)},
        {"cost-profile", ARG_STRING, &j->cost_profile, "CSV", "dygnex: fit the cost model on this profile (dgnn train "
                                                              "--profile), as dgnn schedule --profile; default: the "
                                                              "FLOP law"},
        {"rounds", ARG_INT, &j->rounds, "R", "dygnex, greedy and ilp (even's: ceil(windows / P)): rounds (optimizer steps) per epoch (default, or 0: the R in C - 7 .. C with R >= 0.9 C, C = ceil(windows / P), whose greedy schedule has the lowest makespan; ties: the larger R)", ARG_MIN(0)},
        {"time-limit", ARG_DOUBLE, &j->time_limit, "S", "dygnex, ilp: solver time limit in seconds (10)", ARG_IN_OPEN_LO(0, CLI_MAX_SECONDS)},
        CLI_COMM_TIMEOUT_OPT(j->comm_timeout),
        {"checkpoint", ARG_STRING, &j->ckpt, "DIR", "write a checkpoint after every epoch into DIR (one run at a time: a second one is refused)"},
        {"resume", ARG_FLAG, &j->resume, NULL, "continue from the checkpoint in --checkpoint DIR (needed when DIR holds one: a run afresh never replaces it)"},
        {"out", ARG_STRING, &j->out, "FILE", "write the results as JSON"},
        {"curve", ARG_STRING, &j->curve, "FILE", "one JSON line per epoch as it ends (a killed run keeps its curve; emptied first unless --resume, which drops lines the checkpoint lacks; a line lost fails the run)"},
        {"plot", ARG_STRING, &j->plot, "FILE", "draw the learning curve (loss, validation metric per epoch) as SVG"},
        {"quiet", ARG_FLAG, &j->quiet, NULL, "no progress bar"},
        {"bench-seconds", ARG_DOUBLE, &j->bench_secs, "S", "bench train: time of each bandwidth measurement (1)", ARG_IN_OPEN_LO(0, 60)},
        {NULL, 0, NULL, NULL, NULL},
    };
    _Static_assert(sizeof opts <= sizeof ((snap_job *)0)->opts, "snap_job's option table");
    memcpy(j->opts, opts, sizeof opts);
    j->spec = (arg_spec){.cmd = j->cmd,
                         .usage = bench ? "dgnn bench train --model evolvegcn-o|evolvegcn-h|tgcn|gcrn-gru|wdgcn|gcn --data FILE | "
                                          "--synthetic T [options]"
                                        : "dgnn train --model evolvegcn-o|evolvegcn-h|tgcn|gcrn-gru|wdgcn|gcn --data FILE [--task link|edge|node] "
                                          "[options]",
                         .summary = bench ? k_bench_summary : k_train_summary,
                         .opts = j->opts, .min_pos = 0, .max_pos = 0};
}

/* The command line into j: a flag of the event models' told as theirs, then the parse.
 * 0, HELP_SHOWN, or 2 with a message. */
static int job_parse(snap_job *j, int argc, char **argv) {
    if (event_only_flag(j->cmd, j->opts, argc, argv)) return 2;
    int rc = args_parse(&j->spec, argc, argv);
    if (rc) return rc > 0 ? HELP_SHOWN : 2;
    j->argc = argc, j->argv = argv;
    return 0;
}

/* --model and --task. 0, or 2 with a message. */
static int check_model(snap_job *j) {
    const char *cmd = j->cmd;
    if (!j->model) {
        fprintf(stderr, "dgnn %s: --model is required here (evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn)\n", cmd);
        return 2;
    }
    if (dgnn_snapmodel_kind_parse(j->model, &j->kind) != 0) {
        fprintf(stderr,
                "dgnn %s: --model: '%s' is not a snapshot model (evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn)\n",
                cmd, j->model);
        return 2;
    }
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_task_parse(j->task_s, &j->task, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --task: %s\n", cmd, err.msg);
        return 2;
    }
    return 0;
}

/* Where the events come from: the in-process caller's arrays, --synthetic T (bench train
 * only) or --data, and the flags that go with each. 0, or 2 with a message. */
static int check_sources(snap_job *j) {
    const char *cmd = j->cmd;
    const int syn = j->syn = j->synthetic != INT64_MIN;
    int rc;
    if (j->embed && (j->data || syn || (j->dist && strcmp(j->dist, "none") != 0))) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, j->data ? "--data: the events are given as arrays (dgnn.train's data)"
                                             : syn ? "--synthetic is for `dgnn bench train` only"
                                                   : "--dist: multi-rank training runs under mpirun, with the dgnn command");
        return 2;
    }
    if (j->embed && (rc = cli_load_flags_unused(cmd, &j->lf)) != 0) return rc;
    if (syn && !j->bench) {
        fprintf(stderr, "dgnn %s: --synthetic is for `dgnn bench train` only (to train on a generated stream, write "
                        "it with `dgnn gen` and pass --data)\n", cmd);
        return 2;
    }
    if (syn && j->data) {
        fprintf(stderr, "dgnn %s: give --data FILE or --synthetic T, not both\n", cmd);
        return 2;
    }
    if (syn && (rc = cli_load_flags_unused(cmd, &j->lf)) != 0) return rc;
    if (!syn && (j->syn_nodes != INT64_MIN || j->syn_events != INT64_MIN)) {
        fprintf(stderr, "dgnn %s: --nodes and --events size the --synthetic stream; they need --synthetic T\n", cmd);
        return 2;
    }
    if (syn && j->task != DGNN_SNAP_TASK_LINK) {
        fprintf(stderr, "dgnn %s: --synthetic: the generated stream has no ratings or node targets: use --task link\n",
                cmd);
        return 2;
    }
    if (syn && (CLI_GIVEN_F(j->seconds) || j->count != CLI_UNSET)) {
        fprintf(stderr, "dgnn %s: --synthetic T cuts its stream into T snapshots itself: leave out --snapshot-seconds "
                        "and --snapshots\n", cmd);
        return 2;
    }
    return 0;
}

/* A flag typed for a task that does not read it would be ignored: refused (the presets'
 * values are not typed, and never refused). 0, or 2 with a message. */
static int refuse_unread(snap_job *j) {
    const struct {
        const char *flag;
        int given;
    } typed[] = {{"snapshot-seconds", CLI_GIVEN_F(j->seconds)}, {"snapshots", j->count != CLI_UNSET},
                 {"window", j->window != CLI_UNSET},           {"epochs", j->epochs != CLI_UNSET},
                 {"lr", CLI_GIVEN_F(j->lr)},                   {"hidden", j->hidden != CLI_UNSET},
                 {"cls-hidden", j->cls != CLI_UNSET},          {"class-weights", j->weights != NULL},
                 {"negatives", j->negs != CLI_UNSET},          {"neg-all-nodes", j->neg_all},
                 {"train-frac", CLI_GIVEN_F(j->train_frac)},   {"val-frac", CLI_GIVEN_F(j->val_frac)},
                 {"patience", j->patience != CLI_UNSET},       {"skip-val-epochs", j->skipval != CLI_UNSET}};
    dgnn_err err;
    dgnn_err_clear(&err);
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
        if (typed[i].given && dgnn_snap_train_flag_check(j->task, typed[i].flag, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: %s\n", j->cmd, err.msg);
            return 2;
        }
    return 0;
}

/* The flags given over the preset's values, into j->c. 0, or 2 with a message. */
static int train_settings(snap_job *j) {
    const char *cmd = j->cmd;
    dgnn_snap_train_cfg *c = &j->c;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (!j->preset) j->preset = j->task == DGNN_SNAP_TASK_NODE ? "pgt" : "bitcoin-alpha";
    *c = dgnn_snap_train_cfg_default(j->kind);
    c->task = j->task;
    if (dgnn_snap_train_preset(c, j->preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --preset: %s\n", cmd, err.msg);
        return 2;
    }
    if (CLI_GIVEN_F(j->seconds) && j->count != CLI_UNSET) {
        fprintf(stderr, "dgnn %s: give --snapshot-seconds or --snapshots, not both\n", cmd);
        return 2;
    }
    if (CLI_GIVEN_F(j->seconds)) c->snapshot_seconds = j->seconds, c->snapshot_count = 0;
    if (j->count != CLI_UNSET) c->snapshot_count = j->count, c->snapshot_seconds = 0;
    if (j->window != CLI_UNSET) c->window = j->window;
    if (j->per_step != CLI_UNSET) c->windows_per_step = j->per_step;
    if (j->epochs != CLI_UNSET) c->epochs = j->epochs;
    else if (j->bench) c->epochs = 3;
    if (CLI_GIVEN_F(j->lr)) c->lr = j->lr;
    if (j->hidden != CLI_UNSET) c->model.hidden = j->hidden;
    if (j->cls != CLI_UNSET) c->model.cls_hidden = j->cls;
    if (j->negs != CLI_UNSET) c->neg_mult = j->negs;
    c->neg_all_nodes = j->neg_all;
    if (CLI_GIVEN_F(j->train_frac)) c->train_frac = j->train_frac;
    if (CLI_GIVEN_F(j->val_frac)) c->val_frac = j->val_frac;
    if (j->patience != CLI_UNSET) c->patience = j->patience;
    if (j->skipval != CLI_UNSET) c->skip_val_epochs = j->skipval;
    if (j->seed != CLI_UNSET) c->seed = (uint64_t)j->seed, c->model.seed = (uint64_t)j->seed;
    else c->model.seed = c->seed;
    if (j->weights && parse_weights(j->weights, c->class_w) != 0) {
        fprintf(stderr, "dgnn %s: --class-weights: '%s' is not two numbers W0,W1 in [0, 1e6], not both 0\n", cmd,
                j->weights);
        return 2;
    }
    c->threads = j->threads;
    int rc;
    if ((rc = cli_device_parse(cmd, j->device, &c->use_cuda, &c->cuda_device))) return rc;
    if (c->use_cuda && strcmp(j->device, "cuda") == 0) c->cuda_device = DGNN_SNAP_CUDA_LOCAL_RANK; /* cuda:local_rank */
    c->max_train_windows = j->max_windows;
    c->skip_eval = j->no_eval || j->bench;
    c->baseline_last = j->baseline_last && !j->bench;
    c->checkpoint = j->ckpt;
    c->resume = j->resume;
    c->progress = !j->quiet;
    return 0;
}

/* What the configuration can be told before the data is read: --synthetic's T against
 * the window, --resume without --checkpoint, the library's check (the fractions' sum,
 * ...). 0, or 2 with a message. */
static int check_train_cfg(snap_job *j) {
    const char *cmd = j->cmd;
    const dgnn_snap_train_cfg *c = &j->c;
    if (j->syn) {
        /* a T that leaves no sample, or none for training, is a bad --synthetic T, told
         * before generating, with the smallest T that works. Fractions out of range find
         * none: the trainer's check of the configuration tells. */
        const int64_t need = dgnn_snap_split_min_snapshots(c->window, c->train_frac, c->val_frac);
        if (j->synthetic < need) {
            fprintf(stderr, "dgnn %s: --synthetic %lld: too few snapshots: window %lld and train fraction %g need T >= "
                            "%lld (at least window + 2, and one training sample)\n",
                    cmd, (long long)j->synthetic, (long long)c->window, c->train_frac, (long long)need);
            return 2;
        }
    }
    if (j->resume && !j->ckpt) {
        fprintf(stderr, "dgnn %s: --resume needs --checkpoint DIR\n", cmd);
        return 2;
    }
    /* what needs no data (the fractions' sum, ...) is told before the data is loaded */
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_train_cfg_check(c, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        return 2;
    }
    return 0;
}

/* --dist and DyGNeX's settings: each acts with --dist dygnex only, where its scheduler
 * reads it; anywhere else it would be ignored (and recorded nowhere), so it is refused;
 * then the refusal of copies under mpirun without --dist. 0, or 2 with a message. */
static int dist_settings(snap_job *j) {
    const char *cmd = j->cmd, *dist = j->dist;
    const int bench = j->bench;
    if (dist && strcmp(dist, "dygnex") != 0 && strcmp(dist, "none") != 0) {
        fprintf(stderr, "dgnn %s: --dist: '%s' (dygnex, none)\n", cmd, dist);
        return 2;
    }
    const int dyg = j->dyg = dist && strcmp(dist, "dygnex") == 0 && !bench;
    const int sk = j->sk = dgnn_sched_kind_parse(j->scheduler ? j->scheduler : "greedy");
    if (sk < 0) {
        fprintf(stderr, "dgnn %s: --scheduler: '%s' (even, greedy, ilp)\n", cmd, j->scheduler);
        return 2;
    }
    if (bench && dist && strcmp(dist, "dygnex") == 0) {
        fprintf(stderr, "dgnn %s: --dist dygnex is dgnn train's: dgnn bench train times one process\n", cmd);
        return 2;
    }
    const struct {
        const char *flag;
        int given;
    } dyg_only[] = {{"--sched-ranks", j->sched_ranks != 0},     {"--rounds", j->rounds != CLI_UNSET},
                    {"--cost-profile", j->cost_profile != NULL}, {"--scheduler", j->scheduler != NULL},
                    {"--time-limit", CLI_GIVEN_F(j->time_limit)}, {"--comm-timeout", CLI_GIVEN_F(j->comm_timeout)}};
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
    if (CLI_GIVEN_F(j->time_limit) && sk != DGNN_SCHED_ILP) {
        fprintf(stderr, "dgnn %s: --time-limit is the ILP's (--scheduler ilp); the %s scheduler does not read it\n",
                cmd, dgnn_sched_kind_name((dgnn_sched_kind)sk));
        return 2;
    }
    if (j->rounds != CLI_UNSET && sk == DGNN_SCHED_EVEN) {
        fprintf(stderr, "dgnn %s: --rounds applies to --scheduler greedy and ilp: the even scheduler's rounds are "
                        "ceil(windows / P), one window per rank and round\n", cmd);
        return 2;
    }
    if (dyg && j->c.windows_per_step != 1) { /* told before the data is read */
        fprintf(stderr, "dgnn %s: --windows-per-step does not apply with --dist dygnex: a round (one group per rank) is "
                        "one optimizer step\n", cmd);
        return 2;
    }
    /* under mpirun every process would train alone on all the data and write the same
     * outputs (in-process callers are one process) */
    if (!j->embed && !dyg &&
        cli_refuse_copies(cmd, bench ? "dgnn bench train of a snapshot model times one process, and each would run "
                                       "alone and write the same outputs: run it without mpirun"
                                     : "without --dist each would train alone on all the data and write the same "
                                       "outputs: give --dist dygnex, or run one process"))
        return 2;
    if (j->rounds == CLI_UNSET) j->rounds = 0; /* the automatic count */
    if (!CLI_GIVEN_F(j->time_limit)) j->time_limit = 10;
    return 0;
}

/* Every check of the flags that needs no data, in the order the messages are told, and
 * the settings they make. 0, or 2 with a message. */
static int job_settings(snap_job *j) {
    int rc;
    if ((rc = check_model(j)) || (rc = check_sources(j)) || (rc = refuse_unread(j)))
        return rc;
    if (!j->data && !j->syn && !j->embed) {
        fprintf(stderr, "dgnn %s: --data FILE is required for %s (%s)\n", j->cmd, j->model,
                j->task == DGNN_SNAP_TASK_NODE ? "a PyG-Temporal json file with node targets"
                                               : "an event stream to cut into snapshots");
        return 2;
    }
    if ((rc = train_settings(j)) || (rc = check_train_cfg(j)) || (rc = dist_settings(j))) return rc;
    return 0;
}

/* --dist dygnex: MPI started, the schedule's settings into j->c.dist, and what decides the
 * collectives and the refusals before training compared across the ranks first (a rank
 * launched with its own options, mpirun's A : B, stops with the rest); then j's rank.
 * 0, or 2 with a message (MPI finalised). */
static int start_ranks(snap_job *j) {
    dgnn_snap_train_cfg *c = &j->c;
    cli_comm_timeout(j->comm_timeout);
    if (j->dyg) {
        dgnn_comm_init(&j->argc, &j->argv);
        if (dgnn_comm_rank() != 0) c->progress = 0;
        c->dist.mode = DGNN_SNAP_DIST_DYGNEX;
        c->dist.scheduler = (dgnn_sched_kind)j->sk;
        c->dist.ranks = j->sched_ranks;
        c->dist.rounds = j->rounds;
        c->dist.time_limit = j->time_limit;
        dgnn_ckpt_run g;
        dgnn_ckpt_run_init(&g);
        dgnn_ckpt_run_set(&g, "command", "%s", j->cmd);
        dgnn_ckpt_run_set(&g, "checkpoint", "%s", j->ckpt ? "given" : "none");
        dgnn_ckpt_run_set(&g, "resume", "%d", c->resume);
        dgnn_ckpt_run_set(&g, "cost_profile", "%s", j->cost_profile ? "given" : "none");
        dgnn_ckpt_run_set(&g, "profile", "%s", j->profile ? "given" : "none");
        const long long P = j->sched_ranks > 0 ? (long long)j->sched_ranks : (long long)dgnn_comm_size();
        dgnn_ckpt_run_set(&g, "sched_ranks", "%lld", P);
        dgnn_ckpt_run_set(&g, "scheduler", "%s", dgnn_sched_kind_name((dgnn_sched_kind)j->sk));
        dgnn_ckpt_run_set(&g, "rounds", "%lld", (long long)j->rounds);
        dgnn_ckpt_run_set(&g, "time_limit", "%.17g", j->time_limit);
        dgnn_ckpt_run_set(&g, "device", "%s", c->use_cuda ? "cuda" : "cpu");
        /* rank 0 writes every output: one given to another rank alone would be dropped */
        char outs[64];
        snprintf(outs, sizeof outs, "%s%s%s", j->out ? " --out" : "", j->curve ? " --curve" : "",
                 j->plot ? " --plot" : "");
        dgnn_ckpt_run_set(&g, "outputs", "%s", outs[0] ? outs + 1 : "none");
        const int agree = cli_ranks_agree(j->cmd, &g);
        if (agree) return agree;
    }
    j->rank = j->dyg ? dgnn_comm_rank() : 0;
    j->many = j->dyg && dgnn_comm_size() > 1;
    return 0;
}

/* Every path this run writes checked before any work, and the checkpoint folder locked
 * (*lock; rank 0 does both, every rank gets the verdict). 0, or 2 with a message (MPI
 * finalised). */
static int claim_outputs(snap_job *j, int *lock) {
    const char *cmd = j->cmd;
    const char *in = j->embed ? j->embed->source : j->syn ? NULL : j->data;
    const cli_output outs[] = {{"--out", j->out, CLI_OUT_FILE},
                               {"--profile", j->profile, CLI_OUT_FILE},
                               {"--checkpoint", j->ckpt, CLI_OUT_FOLDER},
                               {"--curve", j->curve, CLI_OUT_FILE},
                               {"--plot", j->plot, CLI_OUT_FILE},
                               {"--data", in, CLI_IN},
                               {"--cost-profile", j->cost_profile, CLI_IN}};
    if (cli_check_outputs(cmd, outs, 7)) {
        if (j->dyg) dgnn_comm_finalize();
        return 2;
    }
    /* one run at a time in a checkpoint folder, and a run afresh never replaces the
     * checkpoint there: rank 0, which writes it, locks it for the run's lifetime (released
     * by snap_main, or by the kernel when the process dies); every rank gets the verdict */
    if (j->ckpt) {
        int32_t bad = j->rank == 0 ? cli_ckpt_take(cmd, j->ckpt, j->c.resume, lock) : 0;
        if (j->dyg) dgnn_comm_bcast(&bad, sizeof bad, 0);
        if (bad) {
            if (j->dyg) dgnn_comm_finalize();
            return 2;
        }
    }
    return 0;
}

/* What can never work under --dist dygnex, told before the data is read: the schedule's
 * rank count against the processes (every rank has the same flags, cli_ranks_agree, and
 * count: all stop alike), and the --cost-profile file, read and fitted by rank 0, which
 * tells every rank. 0, or 2 with a message (MPI finalised). */
static int check_ranks(snap_job *j) {
    if (!j->dyg) return 0;
    const char *cmd = j->cmd;
    const int rank = j->rank, procs = dgnn_comm_size();
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
            if (dgnn_snap_cost_model(&pre, &fit, NULL, 0, (int)j->kind, &j->c, j->cost_profile, 0, &perr) != DGNN_OK) {
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
    return 0;
}

/* The epoch hooks: --curve's line, written by rank 0 (checked above; should emptying the
 * file fail now, training goes on without it rather than leave the other ranks waiting),
 * then the in-process caller's. 0, or 2 with a message. */
static int start_hooks(snap_job *j) {
    dgnn_snap_train_cfg *c = &j->c;
    j->curve_k = (curve_ctx){j->curve, c->task};
    if (j->curve && j->rank == 0) {
        if (cli_curve_start(j->cmd, j->curve, c->resume) == 0) {
            c->on_epoch = curve_line;
            c->on_epoch_ctx = &j->curve_k;
        } else if (!j->dyg) {
            return 2;
        }
    }
    if (j->embed) {
        j->embed_k = (embed_curve_ctx){{c->on_epoch ? j->curve : NULL, c->task}, j->embed, 0};
        c->on_epoch = embed_curve_line;
        c->on_epoch_ctx = &j->embed_k;
        c->stop = &j->embed_k.stop;
        c->interrupt = j->embed->interrupt;
    }
    return 0;
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
static int snap_events(snap_job *j, dgnn_events *ev) {
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
    snprintf(j->synname, sizeof j->synname, "synthetic-T%lld", (long long)j->synthetic);
    j->data = j->synname;
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

/* The log's line saying what is trained, on what, with which settings. */
static void log_run(const snap_job *j, const dgnn_events *ev) {
    const dgnn_snap_train_cfg *c = &j->c;
    char a[32], b[32], len[96];
    snapshot_length(len, sizeof len, c, ev);
    dgnn_log("%s, task %s, on %s: %s events, %s nodes, preset %s, %s, window %lld, L %lld, C %lld, "
             "lr %g, %lld epochs at most\n",
             dgnn_snapmodel_name(j->kind), dgnn_snap_task_name(j->task), j->data,
             dgnn_fmt_count(a, sizeof a, ev->num_events), dgnn_fmt_count(b, sizeof b, ev->num_nodes), j->preset, len,
             (long long)c->window, (long long)c->model.hidden, (long long)c->model.cls_hidden, c->lr,
             (long long)c->epochs);
}

/* Rank 0's report of a trained run: the figures printed, then --profile's CSV, the
 * in-process caller's JSON, --out and --plot. fitted: the cost model was fitted on
 * --cost-profile. 0, or 1 after the message of the first output that failed. */
static int report(const snap_job *j, const dgnn_snap_train_result *res, const dgnn_snap_profile *prof,
                  const dgnn_events *ev, int fitted) {
    const dgnn_snap_train_cfg *c = &j->c;
    const char *model = dgnn_snapmodel_name(j->kind);
    int rc = 0;
    cli_snap_print_results(c, res);
    if (j->bench) cli_snap_print_bench(res, prof, ev, c, j->bench_secs);
    if (j->dyg) cli_snap_print_dist(&res->dist, fitted);
    if (j->profile) {
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_snap_profile_write_csv(j->profile, prof, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: --profile: %s\n", j->cmd, err.msg);
            rc = 1;
        } else {
            dgnn_log("profile: %lld samples written to %s\n", (long long)prof->count, j->profile);
        }
    }
    /* the same JSON for the in-process caller, before the files: one that cannot be
     * written then fails the call without losing the results (capi.h) */
    if (j->embed && j->embed->json && !rc)
        rc = cli_snap_json(j->cmd, NULL, model, j->data, j->preset, c, res, ev, fitted, j->embed_k.stop,
                           j->embed->json);
    if (j->out && !rc)
        rc = cli_snap_json(j->cmd, j->out, model, j->data, j->preset, c, res, ev, fitted,
                           j->embed && j->embed_k.stop, NULL);
    if (j->plot && !rc) rc = cli_snap_plot(j->cmd, j->plot, model, j->data, c, res);
    return rc;
}

/* The run itself: DyGNeX's costs (rank 0 schedules; a failure there must end every
 * rank), the events, dgnn_snap_train, then rank 0's report; MPI finalised at the end. The
 * exit status. */
static int run_job(snap_job *j) {
    dgnn_snap_train_cfg *c = &j->c;
    cli_set_threads(j->threads);
    double *cost = NULL;
    dgnn_costmodel cm;
    memset(&cm, 0, sizeof cm);
    if (j->dyg && j->rank == 0 && dygnex_costs(j, &cm, &cost)) {
        if (j->many) dgnn_comm_abort(1);
        return 1;
    }
    dgnn_events ev;
    int rc = snap_events(j, &ev);
    if (rc) {
        free(cost);
        if (j->many) dgnn_comm_abort(1);
        return rc;
    }
    log_run(j, &ev);
    dgnn_snap_profile prof;
    memset(&prof, 0, sizeof prof);
    if (j->profile || j->bench) c->profile = &prof;
    dgnn_snap_train_result *res = dgnn_xcalloc(1, sizeof *res);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_train(&ev, c, res, &err) != DGNN_OK) {
        if (j->many) {
            /* the other ranks may be waiting for this one: end the whole job */
            fprintf(stderr, "dgnn %s: rank %d: %s\n", j->cmd, j->rank, err.msg);
            fflush(stderr);
            dgnn_comm_abort(1);
        }
        fprintf(stderr, "dgnn %s: %s\n", j->cmd, err.msg);
        rc = 1;
    } else if (j->rank == 0) { /* rank 0 reports */
        rc = report(j, res, &prof, &ev, cm.fitted);
    }
    free(res);
    free(cost);
    dgnn_snap_profile_free(&prof);
    if (!j->embed) dgnn_events_free(&ev); /* cli_train_snapshot_embedded's events are the caller's */
    if (j->dyg) dgnn_comm_finalize();
    return rc;
}

/* `dgnn train` (bench = 0) and `dgnn bench train` (bench = 1: training only, 3 epochs
 * by default, the per-sample time distribution and the bandwidth figures), phase by
 * phase. *lock: the checkpoint folder's lock, which the caller releases. */
static int snap_run(int argc, char **argv, int bench, const cli_train_embed *embed, int *lock) {
    snap_job *j = dgnn_xmalloc(sizeof *j);
    job_init(j, bench, embed);
    int rc = job_parse(j, argc, argv);
    if (rc == 0) rc = job_settings(j);
    if (rc == 0) rc = start_ranks(j);
    if (rc == 0) rc = claim_outputs(j, lock);
    if (rc == 0) rc = check_ranks(j);
    if (rc == 0) rc = start_hooks(j);
    if (rc == 0) rc = run_job(j);
    free(j);
    return rc == HELP_SHOWN ? 0 : rc;
}

/* snap_run, and the lock it may take on the checkpoint folder (held for the whole run,
 * released on every way out) */
static int snap_main(int argc, char **argv, int bench, const cli_train_embed *embed) {
    int lock = -1;
    const int rc = snap_run(argc, argv, bench, embed, &lock);
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
