/* cmd_train.c: `dgnn train`, `dgnn bench train` and `dgnn eval` of the memory-based
 * TGNNs (TGN, JODIE, DyRep, APAN; EdgeBank, the baseline): the flags into the library's
 * settings (event_train.h), the checks told before any work, the ranks of a --dist run
 * started, the data loaded, the run called; train_report.c prints and writes what it
 * gives. Without --data it trains on the built-in synthetic stream (no download). The
 * presets, the built-in stream and the training are the library's. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_config.h"
#include "cmd_train.h"
#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/event_train.h"
#include "dgnn/npy.h"
#include "train_node.h"
#include "train_report.h"

static void curve_line(void *ctx, const dgnn_epoch_result *e) {
    cli_curve_append((const char *)ctx, cli_epoch_json(e));
}

/* cli_train_embedded's epoch hook: --curve's line, then the caller's, whose nonzero asks
 * the trainer to stop (*stop, read after on_epoch) */
typedef struct {
    const char *curve;
    const cli_train_embed *embed;
    int stop;
} embed_epoch_ctx;
static void embed_epoch(void *ctx, const dgnn_epoch_result *e) {
    embed_epoch_ctx *x = ctx;
    if (x->curve) curve_line((void *)x->curve, e);
    if (!x->embed->on_epoch) return;
    cJSON *o = cli_epoch_json(e);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (line && x->embed->on_epoch(x->embed->on_epoch_ctx, line)) x->stop = 1;
    free(line);
}

/* A command's own help from train's option table: its options only, in its order, with
 * its text where train's would mislead (NULL: train's, less a "dgnn eval: " prefix). The
 * command line is still parsed with train's whole table (eval's holds the training run's
 * saved settings); what the command does not read is refused by name. */
typedef struct {
    const char *name, *help;
} own_opt;

/* `dgnn eval --help` */
static const own_opt k_eval_opts[] = {
    {"checkpoint", "the folder a dgnn train --checkpoint DIR run wrote (required): the model evaluated and the "
                   "run's settings"},
    {"on", NULL}, {"protocol", NULL}, {"tgb-negatives", NULL}, {"tgb-k", NULL}, {"eval-negatives", NULL},
    {"eval-max-events", "evaluate each split on its first N events only (quick runs; 0: all)"},
    {"emb-out", NULL}, {"emb-at", NULL}, {"emb-time", NULL}, {"score-at", NULL}, {"score-out", NULL},
    {"data", "the training run's data (default: the file the checkpoint names, or the built-in stream it "
             "trained on)"},
    {"format", NULL}, {"columns", NULL}, {"bipartite", NULL}, {"not-bipartite", NULL}, {"edge-feat", NULL},
    {"node-feat", NULL}, {"threads", NULL}, {"out", "write the results as JSON"},
    {"dump-config", "write the run's effective settings as YAML (dgnn: layout)"}, {"quiet", NULL},
    {NULL, NULL},
};

/* The training settings dgnn eval takes typed again (its settings are the training run's,
 * from the checkpoint): each is compared with the checkpoint's fingerprint (event_ckpt.c),
 * so that one that changes the model, the seed or the split is refused there; and
 * --device, which eval says it leaves unused (it runs on the CPU). */
static const char *const k_eval_settings[] = {
    "model", "preset", "batch", "lr", "seed", "mem-dim", "time-dim", "emb-dim", "neighbors", "heads", "attention",
    "sampler", "negatives", "dropout", "max-batches", "mail-slots", "split", "new-node-frac", "device", NULL,
};

/* Whether dgnn eval reads train's option `name`: one of its own or a setting it checks.
 * What it does not read (--epochs, --patience, --device, ...) is refused when typed. */
static int eval_reads(const char *name) {
    for (const own_opt *w = k_eval_opts; w->name; w++)
        if (strcmp(w->name, name) == 0) return 1;
    for (const char *const *q = k_eval_settings; *q; q++)
        if (strcmp(*q, name) == 0) return 1;
    return 0;
}

/* Whether the training run's settings (argv's first saved tokens, args_keep's "--name"
 * "value" pairs) ran TGB's protocol, which holds no nodes out unless --new-node-frac is
 * given: dgnn eval's split is that run's, whatever --protocol it is given. */
static int saved_ran_tgb(int saved, char **argv) {
    const char *list = NULL;
    for (int i = 0; i + 1 < saved; i++)
        if (strcmp(argv[i], "--protocol") == 0) list = argv[i + 1];
    dgnn_eval_protocol p = {0};
    return list && cli_protocol_parse("eval", list, &p) == 0 && p.tgb;
}

/* `dgnn bench train --help`: the training settings, no evaluation, no node task */
static const own_opt k_bench_opts[] = {
    {"config", NULL}, {"dump-config", NULL},
    {"model", "tgn (default), jodie, dyrep, apan (EdgeBank trains nothing: no bench); evolvegcn-o|-h, tgcn, ... "
              "(own flags: dgnn bench train --model evolvegcn-o --help)"},
    {"data", NULL}, {"format", NULL}, {"columns", NULL}, {"bipartite", NULL}, {"not-bipartite", NULL},
    {"edge-feat", NULL}, {"node-feat", NULL}, {"preset", NULL},
    {"epochs", "training epochs (1)"}, {"batch", NULL}, {"lr", NULL}, {"seed", NULL}, {"threads", NULL},
    {"device", "cpu (default) or cuda[:N]: train on GPU N (one process, or --dist strict's and depbloom's ranks, "
               "each on its local rank's GPU with cuda); needs a -DDGNN_CUDA=ON build; NOT YET VERIFIED ON HARDWARE"},
    {"mem-dim", NULL}, {"time-dim", NULL}, {"emb-dim", NULL}, {"neighbors", NULL},
    {"heads", NULL}, {"mail-slots", NULL}, {"dropout", NULL}, {"sampler", NULL}, {"negatives", NULL},
    {"attention", NULL}, {"split", "time (70/15/15 by time quantiles) or ext_roll (TGL's edges.csv column; the "
                                   "default when the data has it): the training events timed"},
    {"new-node-frac", "fraction of nodes held out as new test nodes, their events out of training (0.1)"},
    {"max-batches", "stop each training epoch after N batches (0: all); --step-curve: the steps timed at each "
                    "size (0: 30; at least 5)"},
    {"step-curve", "seconds per step and per event at each batch size of LIST (e.g. 200,600,1200,2400,4800), each "
                   "over its first --max-batches steps (30), the median of the gaps after the first 3"},
    {"checkpoint", NULL}, {"resume", NULL}, {"dist", NULL}, {"comm-timeout", NULL}, {"partition", NULL},
    {"window-events", NULL}, {"window-seconds", NULL}, {"refine", NULL}, {"critical-path", NULL},
    {"window-report", NULL}, {"cold-allgather", NULL}, {"no-prefetch", NULL},
    {"out", "write the results as JSON; with --step-curve the curve as step_curve (dgnn simulate --family event "
            "--measured reads it)"},
    {"curve", NULL},
    {"plot", "draw the training loss per epoch as SVG (no validation: its AP panel stays empty)"},
    {"quiet", NULL},
    {NULL, NULL},
};

/* --help (or -h) before any "--" on the command line: own's help printed, 1; else 0 */
static int own_help(const arg_spec *train_spec, const arg_opt *opts, const own_opt *own_opts, int argc, char **argv) {
    int asked = 0;
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0 && !asked; i++)
        asked = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
    if (!asked) return 0;
    arg_opt own[96];
    size_t k = 0;
    for (const own_opt *w = own_opts; w->name && k + 1 < sizeof own / sizeof own[0]; w++)
        for (const arg_opt *o = opts; o->name; o++) {
            if (strcmp(o->name, w->name) != 0) continue;
            own[k] = *o;
            if (w->help) own[k].help = w->help;
            else if (strncmp(o->help, "dgnn eval: ", 11) == 0) own[k].help = o->help + 11;
            k++;
        }
    own[k] = (arg_opt){NULL, 0, NULL, NULL, NULL};
    arg_spec spec = *train_spec;
    spec.opts = own;
    args_print_help(&spec);
    return 1;
}

/* dgnn eval without --data: the checkpoint's run trained on the built-in stream */
static const char *const k_eval_builtin = "the checkpoint's training run had no --data: dgnn eval evaluates on the "
                                          "built-in synthetic stream it trained on, which would ignore it";

/* One run of dgnn train, bench train or eval: the flags as parsed (the option table's
 * targets, CLI_UNSET where not given), the command, and what the flags decide. It lives
 * for the whole run: the settings point into it (run_flags, the TGB paths, the hook). */
typedef struct {
    cli_load_flags lf;
    cli_node_flags nf;
    const char *model, *data, *preset, *out, *ckpt, *sampler, *negs, *attn, *dist, *split, *device;
    int64_t window_events, refine;
    double window_seconds;
    int partition, critical_path, no_prefetch, cold_allgather;
    const char *window_report, *curve, *plot, *step_curve;
    double comm_timeout;
    int64_t slots, epochs, batch, threads, patience, evalneg, seed, mem, tdim, emb, nbrs, heads, max_batches, max_eval;
    double lr, dropout, new_frac;
    int resume, quiet, no_eval;
    const char *protocol, *tgbneg, *on, *emb_out, *emb_at, *emb_time, *score_at, *score_out;
    int64_t tgbk;
    const char *config, *dump_config;
    /* the command */
    cli_run_mode mode;
    int bench, eval;
    int saved; /* argv's first saved tokens: the training run's settings (dgnn eval) */
    const cli_train_embed *embed;
    const char *cmdname;
    arg_opt opts[80];
    arg_spec spec;
    int argc;                /* the command line, --config's settings first (cli_config_expand) */
    char **argv;
    int typed_argc;          /* the command line as typed */
    char **typed_argv;
    int file_argc;           /* argv[0, file_argc): --config's settings */
    char kept_flags[8192];   /* what a checkpoint keeps for dgnn eval (args_keep) */
    long kept_bytes;
    /* what the flags decide */
    dgnn_event_train_cfg c;
    dgnn_tgnn_kind kind;
    int eval_split;          /* dgnn eval --on: DGNN_SPLIT_* */
    int node_task;           /* --task node */
    int n_steps;             /* --step-curve's sizes */
    int64_t step_sizes[CLI_STEP_SIZES_MAX];
    char tgb_val[4200], tgb_test[4200];
    embed_epoch_ctx hook;
} train_job;

/* what job_parse returns after --help: the command ends with 0 */
#define HELP_SHOWN (-1)

/* j's defaults, its option table (the flags' targets are j's fields) and the command's help */
static void job_init(train_job *j, int saved, cli_run_mode mode, const cli_train_embed *embed) {
    *j = (train_job){.nf = CLI_NODE_FLAGS_INIT, .model = "tgn", .window_events = CLI_UNSET, .refine = CLI_UNSET,
                     .comm_timeout = CLI_UNSET_F, .slots = CLI_UNSET, .epochs = CLI_UNSET, .batch = CLI_UNSET,
                     .patience = CLI_UNSET, .evalneg = CLI_UNSET, .mem = CLI_UNSET, .tdim = CLI_UNSET,
                     .emb = CLI_UNSET, .nbrs = CLI_UNSET, .heads = CLI_UNSET, .lr = CLI_UNSET_F,
                     .dropout = CLI_UNSET_F, .new_frac = CLI_UNSET_F, .tgbk = CLI_UNSET, .mode = mode,
                     .bench = mode == CLI_RUN_BENCH, .eval = mode == CLI_RUN_EVAL, .saved = saved, .embed = embed,
                     .c = dgnn_event_train_cfg_default(), .eval_split = DGNN_SPLIT_TEST};
    const arg_opt opts[] = {

        {"config", ARG_STRING, &j->config, "FILE", "settings from a YAML file: TGL's layout (sampling, memory, gnn, train, as TGL's config/TGN.yml) and/or dgnn: (these flags without --); flags typed here win; see configs/"},
        {"dump-config", ARG_STRING, &j->dump_config, "FILE", "write the run's effective settings as YAML (dgnn: layout; --config FILE runs it again)"},
        {"model", ARG_STRING, &j->model, "M", "tgn (default), jodie, dyrep, apan, edgebank (the baseline: no training); evolvegcn-o|-h, tgcn, gcrn-gru, wdgcn, gcn (own flags: --model evolvegcn-o --help)"},
        CLI_NODE_OPTS(j->nf),
        {"data", ARG_STRING, &j->data, "FILE", "dataset (any format); default: the built-in synthetic stream"},
        CLI_LOAD_OPTS(j->lf),
        {"preset", ARG_STRING, &j->preset, "P", "tgn-paper (the TGN code's defaults; default for tgn, jodie, dyrep) or tgl (TGL's TGN.yml, APAN.yml for apan; default for apan)"},
        {"epochs", ARG_INT, &j->epochs, "N", "training epochs (tgn-paper: 10)", ARG_IN(1, CLI_MAX_EPOCHS)},
        {"batch", ARG_INT, &j->batch, "B", "events per batch (tgn-paper: 200, tgl: 600)", ARG_IN(1, CLI_MAX_BATCH)},
        {"lr", ARG_DOUBLE, &j->lr, "X", "Adam learning rate (1e-4)", ARG_IN_OPEN_LO(0, CLI_MAX_LR)},
        {"seed", ARG_INT, &j->seed, "S", "seed of initialisation, negatives and dropout (0)", ARG_MIN(0)},
        {"threads", ARG_INT, &j->threads, "T", "OpenMP threads (default: all cores)", ARG_IN(1, CLI_MAX_THREADS)},
        {"device", ARG_STRING, &j->device, "D", "cpu (default) or cuda[:N]: train and evaluate on GPU N (tgn, jodie, dyrep, apan; one process, or --dist strict's and depbloom's ranks, each on its local rank's GPU with cuda, the gradients and state rows moved by NCCL where each rank has a GPU of its own, else through the host (--critical-path's hot and cold rows: through the host); needs a -DDGNN_CUDA=ON build; NOT YET VERIFIED ON HARDWARE)"},
        {"patience", ARG_INT, &j->patience, "N", "early stopping: epochs without better val AP (5)", ARG_IN(1, CLI_MAX_EPOCHS)},
        {"eval-negatives", ARG_INT, &j->evalneg, "K", "negatives per test event for MRR (9; 0: no MRR; at most the candidate nodes)", ARG_IN(0, 10000)},
        {"mem-dim", ARG_INT, &j->mem, "N", "memory width (tgn-paper 172, tgl 100)", ARG_IN(1, CLI_MAX_DIM)},
        {"time-dim", ARG_INT, &j->tdim, "N", "time encoding width (100)", ARG_IN(1, CLI_MAX_DIM)},
        {"emb-dim", ARG_INT, &j->emb, "N", "embedding width (tgn-paper: = mem-dim, as the TGN code)", ARG_IN(1, CLI_MAX_DIM)},
        {"neighbors", ARG_INT, &j->nbrs, "K", "sampled neighbours per node (10; tgn, dyrep, apan)", ARG_IN(1, 1000)},
        {"heads", ARG_INT, &j->heads, "H", "attention heads (2; must divide the attention width; tgn, dyrep, apan)", ARG_IN(1, 64)},
        {"mail-slots", ARG_INT, &j->slots, "N", "APAN: mails kept per node (10; the other models keep one)", ARG_IN(1, 1024)},
        {"dropout", ARG_DOUBLE, &j->dropout, "P", "attention dropout (tgn-paper 0.1, tgl 0.2, apan's tgl 0.1; tgn, dyrep, apan)", ARG_IN_OPEN_HI(0, 1)},
        {"sampler", ARG_STRING, &j->sampler, "S", "recent (default) or uniform neighbour sampling (tgn, dyrep, apan)"},
        {"negatives", ARG_STRING, &j->negs, "N", "dst (destination set, tgn-paper) or all (all nodes, tgl)"},
        {"attention", ARG_STRING, &j->attn, "A", "tgn (MultiheadAttention + MergeLayer) or tgl (TGL's layer): the embedding layer of tgn and dyrep"},
        {"split", ARG_STRING, &j->split, "S", "time (70/15/15 by time quantiles) or ext_roll (TGL's edges.csv column; the default when the data has it); new nodes are held out either way"},
        {"new-node-frac", ARG_DOUBLE, &j->new_frac, "F", "fraction of nodes held out as new test nodes (0.1)", ARG_IN_OPEN_HI(0, 1)},
        {"max-batches", ARG_INT, &j->max_batches, "N", "stop each training epoch after N batches (quick runs, --task node's decoder epochs too; 0: all)", ARG_MIN(0)},
        {"eval-max-events", ARG_INT, &j->max_eval, "N", "evaluate each split on its first N events only (quick runs, --task node's decoder too; 0: all)", ARG_MIN(0)},
        {"no-eval", ARG_FLAG, &j->no_eval, NULL, "skip validation and test (timing the training loop)"},
        {"protocol", ARG_STRING, &j->protocol, "LIST", "evaluation beside the TGN code's (tgn, always): dyglib (test AP/AUC under random, historical and inductive negatives), tgb (one-vs-many MRR, Hits@k against fixed lists; early stopping on its val MRR); e.g. tgn,dyglib,tgb"},
        {"tgb-negatives", ARG_STRING, &j->tgbneg, "PREFIX", "TGB lists PREFIX_val_ns.npy and PREFIX_test_ns.npy: read, or generated and written when absent (default: beside --data)"},
        {"tgb-k", ARG_INT, &j->tgbk, "K", "candidates per positive of a generated TGB list (100)", ARG_IN(1, 100000)},
        {"on", ARG_STRING, &j->on, "SPLIT", "dgnn eval: test (default; as the training run tested), val or train (memory rebuilt over the training events)"},
        {"emb-out", ARG_STRING, &j->emb_out, "NPY", "dgnn eval: write node embeddings (rows in request order, float32) after the evaluation"},
        {"emb-at", ARG_STRING, &j->emb_at, "CSV", "dgnn eval: the embeddings' 'node,time' pairs, one per line (ids as in the data)"},
        {"emb-time", ARG_STRING, &j->emb_time, "T", "dgnn eval: every node's embedding at time T (instead of --emb-at)"},
        {"score-at", ARG_STRING, &j->score_at, "CSV", "dgnn eval: 'src,dst,time' pairs (ids as in the data) to score from the memory the evaluation ended with"},
        {"score-out", ARG_STRING, &j->score_out, "NPY", "dgnn eval: write the pairs' scores (the link predictor's probability, float32 (n)) after the evaluation"},
        {"checkpoint", ARG_STRING, &j->ckpt, "DIR", "write a checkpoint after every epoch into DIR (one run at a time: a second one is refused)"},
        {"resume", ARG_FLAG, &j->resume, NULL, "continue from the checkpoint in --checkpoint DIR (needed when DIR holds one: a run afresh never replaces it)"},
        {"dist", ARG_STRING, &j->dist, "MODE", "multi-rank training under mpirun: strict (the baseline) or depbloom; none (the default): one process"},
        CLI_COMM_TIMEOUT_OPT(j->comm_timeout),
        {"partition", ARG_FLAG, &j->partition, NULL, "depbloom: temporally bounded spatial partitioning (METIS)"},
        {"window-events", ARG_INT, &j->window_events, "N", "depbloom: training events per partition window (10000; 2500 was more accurate on wikipedia, docs/depbloom.md)", ARG_MIN(1)},
        {"window-seconds", ARG_DOUBLE, &j->window_seconds, "S", "depbloom: partition windows of S time units instead (not with --window-events)", ARG_ABOVE(0)},
        {"refine", ARG_INT, &j->refine, "K", "depbloom: K micro-batches per step, each reading the memory the earlier"
                                                      " ones wrote (intra-batch memory refinement; 1: none, the default)", ARG_IN(1, 1024)},
        {"critical-path", ARG_FLAG, &j->critical_path, NULL, "depbloom: hot rows (far ends of cut events) sent after every step, overlapped; the next micro-batch sampled ahead on a worker thread"},
        {"window-report", ARG_STRING, &j->window_report, "CSV", "depbloom: rank 0 writes each window's events, cut, events per rank and bytes synchronised (and strict's at most) as CSV"},
        {"cold-allgather", ARG_FLAG, &j->cold_allgather, NULL, "with --critical-path: all-gather every written row at each window's end instead of fetching cold rows when read"},
        {"no-prefetch", ARG_FLAG, &j->no_prefetch, NULL, "with --critical-path: sample in the forward, not ahead (to measure what sampling ahead hides)"},
        {"out", ARG_STRING, &j->out, "FILE", "write the results as JSON"},
        {"curve", ARG_STRING, &j->curve, "FILE", "one JSON line per epoch as it ends (a killed run keeps its curve; emptied first unless --resume, which drops lines the checkpoint lacks; a line lost fails the run)"},
        {"plot", ARG_STRING, &j->plot, "FILE", "draw the learning curve (loss, validation AP per epoch) as SVG"},
        {"step-curve", ARG_STRING, &j->step_curve, "LIST", "bench train: seconds per step and per event at each batch size of LIST (e.g. 200,600,1200,2400,4800), each over its first --max-batches steps (30)"},
        {"quiet", ARG_FLAG, &j->quiet, NULL, "no progress bar"},
        {NULL, 0, NULL, NULL, NULL},
    };
    _Static_assert(sizeof opts <= sizeof ((train_job *)0)->opts, "train_job's option table");
    memcpy(j->opts, opts, sizeof opts);

    j->spec = (arg_spec){.cmd = j->bench ? "bench train" : j->eval ? "eval" : "train",
                         .usage = j->bench ? "dgnn bench train [--model tgn|jodie|dyrep|apan] [--data FILE] [options]"
                                  : j->eval ? "dgnn eval --checkpoint DIR [--protocol LIST] [--on test|val|train] [--emb-out NPY "
                                           "--emb-at CSV|--emb-time T] [--out FILE]"
                                         : "dgnn train [--model tgn|jodie|dyrep|apan|edgebank] [--data FILE] [options]",
                         .summary = "Trains a memory-based temporal GNN with the TGN code's protocol: chronological\n"
                                    "70/15/15 split, 10% of later nodes held out as new nodes, Adam, one negative per\n"
                                    "event, early stopping on validation AP; prints validation per epoch and test AP,\n"
                                    "AUC, new-node AP and MRR against random destinations. --protocol dyglib adds\n"
                                    "DyGLib's historical and inductive negatives, --protocol tgb TGB's one-vs-many MRR\n"
                                    "and Hits@k against fixed lists; --model edgebank is the \"seen before\" baseline\n"
                                    "(README, \"Evaluation\"). Presets: tgn-paper (the TGN code's defaults; default for\n"
                                    "tgn, jodie, dyrep) and tgl (TGL's TGN.yml, or APAN.yml for apan; default for apan).\n"
                                    "Snapshot models (evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn) have their own\n"
                                    "flags: `dgnn train --model evolvegcn-o --help`.\n"
                                    "Several workers: mpirun -np P dgnn train --dist strict|depbloom ... (one rank per\n"
                                    "worker; --dist strict = global batch of P x --batch events, replicated memory).\n"
                                    "--task node: then dynamic node classification of the events' labels (wikipedia's,\n"
                                    "reddit's state change) by a decoder on the frozen model's source embeddings; test\n"
                                    "AUC over all test events (n/a when the test events are of one class).\n"
                                    "--config FILE.yml: settings from YAML, TGL's layout (configs/tgn.yml, jodie.yml,\n"
                                    "apan.yml, tgn-paper.yml: the presets) or dgnn: (these flags without --); flags typed\n"
                                    "here beat the file. --dump-config FILE.yml: the run's settings, to run it again.",
                         .opts = j->opts, .min_pos = 0, .max_pos = 0};
    if (j->eval)
        j->spec.summary = "Evaluates the checkpoint a `dgnn train --checkpoint DIR` run wrote, without training. The\n"
                          "training run's settings (model, sizes, data, seed, protocols) come from the checkpoint;\n"
                          "flags given here follow them (a setting that changes the model is refused). --on test\n"
                          "(default) starts from the state the run tested from and gives the run's test figures;\n"
                          "--emb-out writes node embeddings at given times. A checkpoint of one process only (not\n"
                          "of an mpirun --dist run).";
    if (j->bench)
        j->spec.summary = "Times the training of a memory-based temporal GNN: one epoch (--epochs N for more), no\n"
                          "validation or test. Prints the training's events/s, GFLOP/s against the sgemm peak\n"
                          "measured in the same run, peak RSS and, on the CPU, the training time by op family\n"
                          "(dense products, attention, GRU, ...). --step-curve LIST then times the steps at each\n"
                          "batch size of LIST; with --out its JSON holds the curve (step_curve), which `dgnn\n"
                          "simulate --family event --measured` reads as one worker's costs. The model's settings\n"
                          "and presets are dgnn train's; what only the evaluation reads (--protocol, --patience,\n"
                          "--eval-negatives, --eval-max-events) is refused. Several workers: mpirun -np P dgnn\n"
                          "bench train --dist strict|depbloom ... Snapshot models have their own flags: `dgnn\n"
                          "bench train --model evolvegcn-o --help`.";
}

/* Absolute paths for the kept --data, --edge-feat and --node-feat, so that dgnn eval
 * finds them from another folder. */
static void keep_absolute_paths(train_job *j) {
    for (long i = 0; j->kept_bytes > 0 && i < j->kept_bytes; i += (long)strlen(j->kept_flags + i) + 1) {
        static const char *const paths[] = {"--data", "--edge-feat", "--node-feat", NULL};
        const char *tok = j->kept_flags + i;
        int is_path = 0;
        for (const char *const *q = paths; *q; q++) is_path |= strcmp(tok, *q) == 0;
        const long v = i + (long)strlen(tok) + 1;
        char full[PATH_MAX];
        if (!is_path || v >= j->kept_bytes || !realpath(j->kept_flags + v, full)) continue;
        const long old = (long)strlen(j->kept_flags + v) + 1, add = (long)strlen(full) + 1;
        if (j->kept_bytes - old + add > (long)sizeof j->kept_flags) break;
        memmove(j->kept_flags + v + add, j->kept_flags + v + old, (size_t)(j->kept_bytes - v - old));
        memcpy(j->kept_flags + v, full, (size_t)add);
        j->kept_bytes += add - old;
    }
}

/* The command line into j: --help, --config's settings (before the flags typed), the
 * parse, and what a training run's checkpoint keeps. 0, HELP_SHOWN, or 2 with a message. */
static int job_parse(train_job *j, int argc, char **argv) {
    if ((j->eval || j->bench) && own_help(&j->spec, j->opts, j->eval ? k_eval_opts : k_bench_opts, argc, argv))
        return HELP_SHOWN;
    if (j->eval && args_given(j->opts, argc - j->saved, argv + j->saved, "config")) {
        fprintf(stderr, "dgnn eval: --config is dgnn train's: dgnn eval takes the training run's settings from the "
                        "checkpoint\n");
        return 2;
    }
    /* the command line as typed (--config's settings go before it) */
    j->typed_argc = argc;
    j->typed_argv = argv;
    if (cli_config_expand(&j->spec, &argc, &argv)) return 2; /* --config FILE: its settings as flags before argv's */
    j->file_argc = argc - j->typed_argc; /* argv[0, file_argc): the file's settings */
    int rc = args_parse(&j->spec, argc, argv);
    if (rc) return rc > 0 ? HELP_SHOWN : 2;
    j->argc = argc, j->argv = argv;
    j->cmdname = j->spec.cmd;
    /* what a checkpoint keeps of this command for dgnn eval: the settings, not the outputs,
     * the run's control, distribution or node-task flags */
    static const char *const not_kept[] = {"out", "checkpoint", "resume", "curve", "plot", "window-report", "quiet",
                                           "task", "node-epochs", "node-patience", "node-lr", "node-batch", "dist",
                                           "partition", "window-events", "window-seconds", "refine", "critical-path",
                                           "cold-allgather", "no-prefetch", "comm-timeout", "on", "emb-out", "emb-at",
                                           "emb-time", "score-at", "score-out", "no-eval", "config", "dump-config",
                                           NULL};
    j->kept_bytes = j->mode == CLI_RUN_TRAIN
                        ? args_keep(&j->spec, argc, argv, not_kept, j->kept_flags, sizeof j->kept_flags)
                        : -1;
    keep_absolute_paths(j);
    return 0;
}

/* dgnn eval's own flags against the others, --on, what an in-process run refuses, and the
 * loading flags without --data. 0, or 2 with a message. */
static int check_command_flags(train_job *j) {
    if (!j->eval && (j->on || j->emb_out || j->emb_at || j->emb_time || j->score_at || j->score_out)) {
        fprintf(stderr, "dgnn %s: --on, --emb-out, --emb-at, --emb-time, --score-at and --score-out are dgnn eval's\n",
                j->cmdname);
        return 2;
    }
    if (j->eval && !j->ckpt) {
        fprintf(stderr, "dgnn eval: --checkpoint DIR is required (the folder a dgnn train --checkpoint run wrote)\n");
        return 2;
    }
    if (j->eval && (j->resume || j->curve || j->plot || j->dist)) {
        fprintf(stderr, "dgnn eval: --resume, --curve, --plot and --dist are dgnn train's\n");
        return 2;
    }
    if (j->emb_out && !j->emb_at == !j->emb_time) {
        fprintf(stderr, "dgnn eval: --emb-out needs one of --emb-at CSV or --emb-time T\n");
        return 2;
    }
    if (!j->score_at != !j->score_out) {
        fprintf(stderr, "dgnn eval: --score-at CSV and --score-out NPY go together\n");
        return 2;
    }
    if (!j->emb_out && (j->emb_at || j->emb_time)) {
        fprintf(stderr, "dgnn eval: --emb-at and --emb-time go with --emb-out NPY\n");
        return 2;
    }
    if (j->on) {
        if (strcmp(j->on, "test") == 0) j->eval_split = DGNN_SPLIT_TEST;
        else if (strcmp(j->on, "val") == 0) j->eval_split = DGNN_SPLIT_VAL;
        else if (strcmp(j->on, "train") == 0) j->eval_split = DGNN_SPLIT_TRAIN;
        else {
            fprintf(stderr, "dgnn eval: --on: '%s' (test, val, train)\n", j->on);
            return 2;
        }
    }
    if (j->embed && (j->data || j->bench || j->dist)) {
        fprintf(stderr, "dgnn %s: %s\n", j->cmdname,
                j->data   ? "--data: the events are given as arrays (dgnn.train's data)"
                : j->dist ? "--dist: multi-rank training runs under mpirun, with the dgnn command"
                          : "only dgnn train runs in-process");
        return 2;
    }
    /* no --data: the built-in stream, or in-process the caller's events (cli_set_events_in_memory) */
    int rc;
    const char *builtin_why = j->eval && !j->embed ? k_eval_builtin : NULL;
    if (!j->data && (rc = cli_load_flags_unused_why(j->cmdname, &j->lf, builtin_why)) != 0) return rc;
    return 0;
}

/* The model's settings: the preset, then the flags given over it. 0, or 2 with a message. */
static int model_settings(train_job *j) {
    dgnn_event_train_cfg *c = &j->c;
    int rc;
    if (strcmp(j->model, "tgn") == 0 || strcmp(j->model, "edgebank") == 0) c->model.kind = DGNN_TGNN_TGN;
    else if (strcmp(j->model, "jodie") == 0) c->model.kind = DGNN_TGNN_JODIE;
    else if (strcmp(j->model, "dyrep") == 0) c->model.kind = DGNN_TGNN_DYREP;
    else if (strcmp(j->model, "apan") == 0) c->model.kind = DGNN_TGNN_APAN;
    else {
        fprintf(stderr, "dgnn %s: --model: unknown model '%s' (tgn, jodie, dyrep, apan, edgebank; snapshot models: "
                        "evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn)\n", j->cmdname, j->model);
        return 2;
    }
    j->kind = c->model.kind;
    if (!j->preset) j->preset = dgnn_event_train_preset_default(j->kind);
    {
        dgnn_err perr;
        dgnn_err_clear(&perr);
        if (dgnn_event_train_preset(c, j->preset, &perr) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: %s\n", j->cmdname, perr.msg);
            return 2;
        }
    }
    if (j->epochs != CLI_UNSET) c->epochs = j->epochs;
    if (j->batch != CLI_UNSET) c->batch = j->batch;
    if (CLI_GIVEN_F(j->lr)) c->lr = j->lr;
    if (j->patience != CLI_UNSET) c->patience = j->patience;
    if (j->evalneg != CLI_UNSET) c->eval_negatives = j->evalneg;
    if (j->mem != CLI_UNSET) c->model.mem_dim = j->mem;
    if (j->tdim != CLI_UNSET) c->model.time_dim = j->tdim;
    if (j->emb != CLI_UNSET) c->model.emb_dim = j->emb;
    else if (j->mem != CLI_UNSET && strcmp(j->preset, "tgn-paper") == 0)
        c->model.emb_dim = j->mem; /* the TGN code: emb = memory */
    /* the embedding is the (projected) memory: a differing --emb-dim is refused by the check below */
    if (j->kind != DGNN_TGNN_TGN && j->emb == CLI_UNSET) c->model.emb_dim = c->model.mem_dim;
    if (j->slots != CLI_UNSET) c->model.mail_slots = j->slots;
    if (j->nbrs != CLI_UNSET) c->model.neighbors = j->nbrs;
    if (j->heads != CLI_UNSET) c->model.heads = j->heads;
    if (CLI_GIVEN_F(j->dropout)) c->model.dropout = (float)j->dropout;
    if (CLI_GIVEN_F(j->new_frac)) c->split.new_node_frac = j->new_frac;
    if (j->split && strcmp(j->split, "time") && strcmp(j->split, "ext_roll")) {
        fprintf(stderr, "dgnn %s: --split: '%s' (time, ext_roll)\n", j->cmdname, j->split);
        return 2;
    }
    if (j->sampler) {
        if (strcmp(j->sampler, "recent") && strcmp(j->sampler, "uniform")) {
            fprintf(stderr, "dgnn %s: --sampler: '%s' (recent, uniform)\n", j->cmdname, j->sampler);
            return 2;
        }
        c->model.uniform_sampler = strcmp(j->sampler, "uniform") == 0;
    }
    if (j->negs) {
        if (strcmp(j->negs, "dst") && strcmp(j->negs, "all")) {
            fprintf(stderr, "dgnn %s: --negatives: '%s' (dst, all)\n", j->cmdname, j->negs);
            return 2;
        }
        c->neg = strcmp(j->negs, "all") == 0 ? DGNN_NEG_ALL : DGNN_NEG_DST;
    }
    if (j->attn) {
        if (strcmp(j->attn, "tgn") && strcmp(j->attn, "tgl")) {
            fprintf(stderr, "dgnn %s: --attention: '%s' (tgn, tgl)\n", j->cmdname, j->attn);
            return 2;
        }
        c->model.attn = strcmp(j->attn, "tgl") == 0 ? DGNN_ATTN_TGL : DGNN_ATTN_TGN;
    }
    c->edgebank = strcmp(j->model, "edgebank") == 0;
    if ((rc = cli_protocol_parse(j->cmdname, j->protocol, &c->protocol))) return rc;
    if (j->tgbk != CLI_UNSET) c->protocol.tgb_k = j->tgbk;
    /* dgnn eval: the training run's TGB lists are its own affair when --protocol drops tgb */
    const int tgb_typed = args_given(j->opts, j->argc - j->saved, j->argv + j->saved, "tgb-negatives") ||
                          args_given(j->opts, j->argc - j->saved, j->argv + j->saved, "tgb-k");
    if (tgb_typed && !c->protocol.tgb) {
        fprintf(stderr, "dgnn %s: --tgb-negatives and --tgb-k go with --protocol tgb\n", j->cmdname);
        return 2;
    }
    if (!c->protocol.tgb) j->tgbneg = NULL; /* a saved one, not evaluated (nor written by --dump-config) */
    /* TGB trains on every event of the training period: no nodes held out (dgnn eval: if
     * the training run ran TGB's protocol, whichever protocols are evaluated now) */
    if ((j->eval && j->saved > 0 ? saved_ran_tgb(j->saved, j->argv) : c->protocol.tgb) && !CLI_GIVEN_F(j->new_frac))
        c->split.new_node_frac = 0;
    c->seed = (uint64_t)j->seed;
    c->model.seed = (uint64_t)j->seed + 1;
    c->threads = j->threads;
    if ((rc = cli_device_parse(j->cmdname, j->device, &c->use_cuda, &c->cuda_device))) return rc;
    if (c->use_cuda && strcmp(j->device, "cuda") == 0 && j->dist && strcmp(j->dist, "none") != 0)
        c->cuda_device = DGNN_CUDA_LOCAL_RANK; /* each rank its local rank's GPU */
    if (j->eval && c->use_cuda) { /* a checkpoint is the same file from either device */
        dgnn_log("dgnn eval runs on the CPU (--device %s not used)\n", j->device);
        c->use_cuda = 0;
    }
    c->max_train_batches = j->max_batches;
    c->max_eval_events = j->max_eval;
    c->skip_eval = j->no_eval || j->bench;
    if (j->bench && j->epochs == CLI_UNSET) c->epochs = 1;
    c->checkpoint = j->ckpt;
    c->resume = j->resume;
    if (j->kept_bytes > 0) c->run_flags = j->kept_flags, c->run_flags_bytes = j->kept_bytes;
    if (j->step_curve && !j->bench) {
        fprintf(stderr, "dgnn %s: --step-curve goes with dgnn bench train\n", j->cmdname);
        return 2;
    }
    j->n_steps = j->step_curve ? cli_step_sizes(j->cmdname, j->step_curve, j->step_sizes) : 0;
    if (j->n_steps < 0) return 2;
    if (j->eval && c->skip_eval) {
        fprintf(stderr, "dgnn eval: --no-eval leaves nothing to do\n");
        return 2;
    }
    c->progress = !j->quiet;
    if (j->resume && !j->ckpt) {
        fprintf(stderr, "dgnn %s: --resume needs --checkpoint DIR\n", j->cmdname);
        return 2;
    }
    return 0;
}

/* --dist and its techniques' flags, --task node, and the copies an MPI launcher would
 * start without --dist. 0, or 2 with a message. */
static int dist_settings(train_job *j) {
    dgnn_event_train_cfg *c = &j->c;
    if (j->dist) {
        if (strcmp(j->dist, "strict") == 0) c->dist.mode = DGNN_DIST_STRICT;
        else if (strcmp(j->dist, "depbloom") == 0) c->dist.mode = DGNN_DIST_DEPBLOOM;
        else if (strcmp(j->dist, "none") != 0) {
            fprintf(stderr, "dgnn %s: --dist: '%s' (strict, depbloom, none)\n", j->cmdname, j->dist);
            return 2;
        }
    }
    j->node_task = cli_node_task(j->spec.cmd, &j->nf, j->bench || j->eval, c->dist.mode != DGNN_DIST_NONE);
    if (j->node_task < 0) return 2;
    if ((j->no_prefetch || j->cold_allgather) && !j->critical_path) {
        fprintf(stderr, "dgnn %s: --no-prefetch and --cold-allgather go with --critical-path\n", j->cmdname);
        return 2;
    }
    if ((j->partition || j->window_events != CLI_UNSET || j->window_seconds > 0 || j->refine != CLI_UNSET ||
         j->critical_path || j->window_report) &&
        c->dist.mode != DGNN_DIST_DEPBLOOM) {
        fprintf(stderr, "dgnn %s: --partition, --window-*, --refine and --critical-path need --dist depbloom\n",
                j->cmdname);
        return 2;
    }
    /* one window rule: seconds would win silently */
    if (j->window_seconds > 0 && j->window_events != CLI_UNSET) {
        fprintf(stderr, "dgnn %s: give --window-events N or --window-seconds S, not both\n", j->cmdname);
        return 2;
    }
    /* under mpirun every process would train alone on all the data and write the same
     * outputs (dgnn eval reads one process's checkpoints; in-process callers are one) */
    if (!j->embed && c->dist.mode == DGNN_DIST_NONE &&
        cli_refuse_copies(j->cmdname, j->eval ? "dgnn eval runs in one process, and each would evaluate alone and write the "
                                          "same outputs: run it without mpirun"
                                        : "without --dist each would train alone on all the data and write the same "
                                          "outputs: give --dist strict or --dist depbloom, or run one process"))
        return 2;
    c->dist.partition = j->partition;
    c->dist.window_events = j->window_events != CLI_UNSET ? j->window_events : 10000;
    c->dist.window_seconds = j->window_seconds;
    c->dist.refine = j->refine != CLI_UNSET ? j->refine : 1; /* K micro-batches per step: 1, none */
    c->dist.critical_path = j->critical_path;
    c->dist.no_prefetch = j->no_prefetch;
    c->dist.cold_allgather = j->cold_allgather;
    c->dist.window_report = j->window_report;
    if (j->bench && c->edgebank) {
        fprintf(stderr, "dgnn bench train: --model edgebank trains nothing: there is no training to time (dgnn "
                        "train --model edgebank evaluates it)\n");
        return 2;
    }
    if (c->edgebank && j->no_eval) {
        fprintf(stderr, "dgnn %s: --model edgebank trains nothing: with --no-eval it would do nothing\n", j->cmdname);
        return 2;
    }
    return 0;
}

/* A setting the run never reads would be ignored (and recorded in --out as if used):
 * refused when typed, or when --config's dgnn: section sets it to another value than the
 * preset's (a --dump-config file writes every setting, those the run leaves unread at
 * the preset's). TGL's sections are never refused: TGL's own files set keys a model
 * leaves unread (JODIE.yml's dropout). Which model reads what: the library's table
 * (dgnn_event_train_flag_check); what a mode reads: here. dgnn eval's settings are the
 * training run's, checked when it trained; typed, what eval does not read is refused. */
static int refuse_unread(train_job *j) {
    const dgnn_event_train_cfg *c = &j->c;
    if (j->eval) { /* one that repeats the training run's value changes nothing: the train command reused */
        for (const arg_opt *o = j->opts; o->name; o++) {
            const char *typed =
                eval_reads(o->name) ? NULL : args_value(j->opts, j->argc - j->saved, j->argv + j->saved, o->name);
            const char *was = typed ? args_value(j->opts, j->saved, j->argv, o->name) : NULL;
            if (!typed || (was && strcmp(was, typed) == 0)) continue;
            char had[256] = "";
            if (was) snprintf(had, sizeof had, " (its --%s%s%s)", o->name, *was ? " " : "", was);
            fprintf(stderr, "dgnn eval: --%s%s%s is dgnn train's, which dgnn eval does not read: it evaluates the "
                            "checkpoint without training, with the training run's settings%s; its own flags: dgnn "
                            "eval --help\n", o->name, *typed ? " " : "", typed, had);
            return 2;
        }
    } else {
        dgnn_event_train_cfg p = dgnn_event_train_cfg_default(); /* the preset's values */
        p.model.kind = j->kind;
        dgnn_event_train_preset(&p, j->preset, NULL);
        static const char *const no_eval_why = "dgnn bench train never evaluates: it times the training only";
        const char *const no_dist_why = c->dist.mode == DGNN_DIST_NONE ? "a multi-rank setting: it applies with --dist "
                                                                        "strict or depbloom, under mpirun" : NULL;
        const struct {
            const char *flag;
            int differs;     /* from the preset's value */
            const char *why; /* the mode leaves it unread; NULL: the model's table decides */
        } maybe_unread[] = {
            {"epochs", c->epochs != p.epochs, NULL},
            {"lr", c->lr != p.lr, NULL},
            {"patience", c->patience != p.patience, j->bench ? no_eval_why : NULL},
            {"max-batches", c->max_train_batches != 0, NULL},
            {"mem-dim", c->model.mem_dim != p.model.mem_dim, NULL},
            {"time-dim", c->model.time_dim != p.model.time_dim, NULL},
            {"emb-dim", c->model.emb_dim != p.model.emb_dim, NULL},
            {"neighbors", c->model.neighbors != p.model.neighbors, NULL},
            {"sampler", c->model.uniform_sampler != p.model.uniform_sampler, NULL},
            {"heads", c->model.heads != p.model.heads, NULL},
            {"dropout", c->model.dropout != p.model.dropout, NULL},
            {"attention", c->model.attn != p.model.attn, NULL},
            {"mail-slots", c->model.mail_slots != p.model.mail_slots, NULL},
            {"comm-timeout", 1, no_dist_why},
            {"protocol", c->protocol.dyglib || c->protocol.tgb, j->bench ? no_eval_why : NULL},
            {"eval-negatives", c->eval_negatives != p.eval_negatives, j->bench ? no_eval_why : NULL},
            {"eval-max-events", c->max_eval_events != 0, j->bench ? no_eval_why : NULL},
            {"no-eval", j->no_eval, j->bench ? no_eval_why : NULL},
        };
        for (size_t i = 0; i < sizeof maybe_unread / sizeof maybe_unread[0]; i++) {
            const char *flag = maybe_unread[i].flag;
            const int typed = args_given(j->opts, j->typed_argc, j->typed_argv, flag);
            if (!typed && !(maybe_unread[i].differs && args_given(j->opts, j->file_argc, j->argv, flag) &&
                            cli_config_dgnn_sets(flag)))
                continue;
            dgnn_err ferr;
            dgnn_err_clear(&ferr);
            if (maybe_unread[i].why) dgnn_err_set(&ferr, DGNN_EINVAL, "--%s: %s", flag, maybe_unread[i].why);
            else if (dgnn_event_train_flag_check(c, flag, &ferr) == DGNN_OK) continue;
            fprintf(stderr, "dgnn %s: %s%s%s%s\n", j->cmdname, ferr.msg, typed ? "" : " (set by the dgnn: section of ",
                    typed ? "" : j->config, typed ? "" : ")");
            return 2;
        }
    }
    return 0;
}

/* Every check of the flags that needs no data, and the settings they make. 0, or 2. */
static int job_settings(train_job *j) {
    int rc;
    if ((rc = check_command_flags(j)) || (rc = model_settings(j)) || (rc = dist_settings(j)) ||
        (rc = refuse_unread(j)))
        return rc;
    /* what needs no data (heads dividing the width, emb-dim = mem-dim but for tgn, ...) is
     * told before the data is loaded */
    dgnn_err cerr;
    dgnn_err_clear(&cerr);
    if (dgnn_event_train_cfg_check(&j->c, &cerr) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", j->spec.cmd, cerr.msg);
        return 2;
    }
    cli_comm_timeout(j->comm_timeout);
    return 0;
}

/* --dist: MPI started, and the options that decide the collectives compared across the
 * ranks first. 0, or 2 with a message (MPI finalised). */
static int start_ranks(train_job *j) {
    dgnn_event_train_cfg *c = &j->c;
    if (c->dist.mode == DGNN_DIST_NONE) return 0;
    dgnn_comm_init(&j->argc, &j->argv);
    if (dgnn_comm_rank() != 0) c->progress = 0;
    /* what decides the collectives below and the refusals before training, compared
     * first: a rank launched with its own options (mpirun's A : B) stops with the rest */
    dgnn_ckpt_run g;
    dgnn_ckpt_run_init(&g);
    dgnn_ckpt_run_set(&g, "command", "%s", j->cmdname);
    dgnn_ckpt_run_set(&g, "dist", "%s", j->dist);
    dgnn_ckpt_run_set(&g, "partition", "%d", j->partition);
    dgnn_ckpt_run_set(&g, "checkpoint", "%s", j->ckpt ? "given" : "none");
    dgnn_ckpt_run_set(&g, "resume", "%d", j->resume);
    dgnn_ckpt_run_set(&g, "protocol_tgb", "%d", c->protocol.tgb);
    dgnn_ckpt_run_set(&g, "tgb_negatives", "%s", j->tgbneg ? "given" : "none");
    dgnn_ckpt_run_set(&g, "data", "%s", j->data ? "given" : "the built-in stream");
    dgnn_ckpt_run_set(&g, "device", "%s", c->use_cuda ? "cuda" : "cpu");
    dgnn_ckpt_run_set(&g, "window_report", "%s", j->window_report ? "given" : "none");
    dgnn_ckpt_run_set(&g, "step_curve", "%s", j->step_curve ? j->step_curve : "none");
    /* rank 0 writes every output: one given to another rank alone would be dropped */
    char outs[64];
    snprintf(outs, sizeof outs, "%s%s%s%s", j->out ? " --out" : "", j->curve ? " --curve" : "",
             j->plot ? " --plot" : "", j->dump_config ? " --dump-config" : "");
    dgnn_ckpt_run_set(&g, "outputs", "%s", outs[0] ? outs + 1 : "none");
    return cli_ranks_agree(j->cmdname, &g);
}

/* TGB's lists' paths, every output checked before any work, the checkpoint folder locked,
 * the combinations that can never work, --curve emptied, the in-process caller's hook.
 * 0, or 2 with a message (every rank gets the same verdict). */
static int claim_outputs(train_job *j, int *lock) {
    dgnn_event_train_cfg *c = &j->c;
    int rc;
    /* TGB's lists: read where they are, else generated and written there */
    if (c->protocol.tgb) {
        if ((rc = cli_tgb_paths(j->cmdname, j->tgbneg, j->embed ? j->embed->source : j->data, j->tgb_val, j->tgb_test,
                                sizeof j->tgb_val)))
            return rc;
        c->protocol.tgb_val = j->tgb_val, c->protocol.tgb_test = j->tgb_test;
    }
    /* ---- outputs: every path this run writes is checked before any work (rank 0
     * writes them all; every rank gets the verdict), and against what it reads: dgnn
     * eval's checkpoint file, TGB's lists where they exist ---- */
    {
        char ckfile[4200] = "";
        if (j->ckpt) dgnn_ckpt_dir_path(ckfile, sizeof ckfile, j->ckpt);
        const int tgb = c->protocol.tgb;
        const cli_output outs[] = {{"--out", j->out, CLI_OUT_FILE},
                                   {"--checkpoint", j->eval ? NULL : j->ckpt, CLI_OUT_FOLDER},
                                   {"--window-report", j->window_report, CLI_OUT_FILE},
                                   {"--curve", j->curve, CLI_OUT_FILE},
                                   {"--plot", j->plot, CLI_OUT_FILE},
                                   {"--emb-out", j->emb_out, CLI_OUT_FILE},
                                   {"--dump-config", j->dump_config, CLI_OUT_FILE},
                                   {"--score-out", j->score_out, CLI_OUT_FILE},
                                   {"--data", j->embed ? j->embed->source : j->data, CLI_IN},
                                   {"--config", j->config, CLI_IN},
                                   {"--emb-at", j->emb_at, CLI_IN},
                                   {"--score-at", j->score_at, CLI_IN},
                                   {"--checkpoint", j->eval ? ckfile : NULL, CLI_IN},
                                   {"--tgb-negatives", tgb ? j->tgb_val : NULL,
                                    tgb && access(j->tgb_val, F_OK) == 0 ? CLI_IN : CLI_OUT_FILE},
                                   {"--tgb-negatives", tgb ? j->tgb_test : NULL,
                                    tgb && access(j->tgb_test, F_OK) == 0 ? CLI_IN : CLI_OUT_FILE}};
        if (cli_check_outputs(j->cmdname, outs, (int)(sizeof outs / sizeof outs[0]))) return 2;
    }
    /* one run at a time in a checkpoint folder, and a run afresh never replaces the
     * checkpoint there: rank 0, which writes it, locks it for the run's lifetime (released
     * by cli_event_run, or by the kernel when the process dies) and every rank gets the verdict */
    if (j->ckpt && !j->eval) {
        int32_t bad = dgnn_comm_rank() == 0 ? cli_ckpt_take(j->cmdname, j->ckpt, j->resume, lock) : 0;
        dgnn_comm_bcast(&bad, sizeof bad, 0);
        if (bad) return 2;
    }
    /* combinations that can never work, told before the data is read: every rank has the
     * same flags (cli_ranks_agree) and process count, so all stop alike and none waits */
    {
        char why[160] = "";
        if (c->dist.mode == DGNN_DIST_DEPBLOOM && !c->dist.partition)
            snprintf(why, sizeof why, "--dist depbloom needs --partition (the other techniques build on it)");
        else if (c->dist.mode != DGNN_DIST_NONE && dgnn_comm_size() > DGNN_DIST_MAX_RANKS)
            snprintf(why, sizeof why, "--dist: at most %d ranks (this job has %d)", DGNN_DIST_MAX_RANKS,
                     dgnn_comm_size());
        if (why[0]) {
            if (dgnn_comm_rank() == 0) fprintf(stderr, "dgnn %s: %s\n", j->cmdname, why);
            return 2;
        }
    }
    /* rank 0 writes the curve (checked above; should emptying it fail now, training goes
     * on without it rather than leave the other ranks waiting) */
    if (j->curve && (c->dist.mode == DGNN_DIST_NONE || dgnn_comm_rank() == 0)) {
        if (cli_curve_start(j->bench ? "bench train" : "train", j->curve, j->resume) == 0) {
            c->on_epoch = curve_line;
            c->on_epoch_ctx = (void *)j->curve;
        } else if (c->dist.mode == DGNN_DIST_NONE) {
            return 2;
        }
    }
    j->hook = (embed_epoch_ctx){c->on_epoch ? j->curve : NULL, j->embed, 0};
    if (j->embed) {
        c->on_epoch = embed_epoch, c->on_epoch_ctx = &j->hook;
        c->stop = &j->hook.stop;
        c->interrupt = j->embed->interrupt;
    }
    return 0;
}

/* The events: the in-process caller's, --data's (a rank that cannot read or split its
 * own file stops every rank), or the built-in stream; then the split's mode, --dump-config
 * and --task node's labels. 0, or 1/2 with a message; *dataset names them. */
static int load_events(train_job *j, dgnn_events *ev, const char **dataset) {
    dgnn_event_train_cfg *c = &j->c;
    const int dist = c->dist.mode != DGNN_DIST_NONE;
    int rc = 0;
    *dataset = j->data ? j->data : "builtin-synthetic";
    if (j->embed) {
        *ev = *j->embed->events;
        *dataset = j->embed->dataset ? j->embed->dataset : "arrays";
    } else if (j->data) {
        rc = cli_load(j->cmdname, j->data, &j->lf, ev);
        if (rc == 0 && (rc = cli_split_mode(j->cmdname, &c->split.mode, j->split, ev, *dataset)) != 0)
            dgnn_events_free(ev);
        /* under mpirun each rank sees only its own file: one may be missing, damaged or
         * without the split's column where the others' is fine */
        const int mine = rc;
        if (dist) rc = cli_ranks_loaded(j->cmdname, rc);
        if (rc) {
            if (mine == 0) dgnn_events_free(ev); /* another rank's file failed */
            return rc;
        }
    } else {
        dgnn_err gerr;
        dgnn_err_clear(&gerr);
        if (dgnn_event_builtin_dataset(ev, &gerr) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: built-in dataset: %s\n", j->cmdname, gerr.msg);
            return 1;
        }
        if (j->eval)
            dgnn_log("the checkpoint's run had no --data: evaluating on the built-in synthetic stream (60,000 events, "
                     "2,000 nodes)\n");
        else
            dgnn_log("no --data: training on the built-in synthetic stream (60,000 events, 2,000 nodes)\n");
    }
    if (!j->data && (rc = cli_split_mode(j->cmdname, &c->split.mode, j->split, ev, *dataset)) != 0) goto fail;
    if (j->dump_config && (!dist || dgnn_comm_rank() == 0)) {
        const cli_dump_extra dx = {j->model,  j->preset, j->data,    j->tgbneg,
                                   &j->lf,    &j->nf,    j->no_eval, j->comm_timeout};
        if (cli_config_dump(j->cmdname, j->dump_config, c, &dx)) {
            if (dist && dgnn_comm_size() > 1) dgnn_comm_abort(1); /* the other ranks would wait for rank 0 */
            rc = 1;
            goto fail;
        }
    }
    if (j->node_task && !ev->label) {
        fprintf(stderr, "dgnn train: --task node: %s has no event labels (it needs a label per event, as the "
                        "state_label column of JODIE's wikipedia.csv and reddit.csv)\n", *dataset);
        rc = 2;
        goto fail;
    }
    return 0;
fail:
    if (!j->embed) dgnn_events_free(ev); /* cli_train_embedded's events are the caller's */
    return rc;
}

/* dgnn eval's embedding and score requests: --emb-at/--emb-time and --score-at read
 * against the events, or the in-process caller's (dense ids, checked by dgnn_event_eval). */
typedef struct {
    dgnn_emb_request emb;
    int32_t *emb_nodes; /* the read requests' arrays (NULL: none, or the caller's) */
    double *emb_t;
    int emb_in;         /* the caller's */
    dgnn_score_request score;
    int32_t *sc_src, *sc_dst;
    double *sc_t;
    float *sc_out;
    int score_in;
} eval_requests;

/* 0, or 1/2 with a message naming the file and line. */
static int read_requests(train_job *j, const dgnn_events *ev, eval_requests *q) {
    const cli_train_embed *e = j->embed;
    int rc;
    *q = (eval_requests){0};
    if (j->emb_out) {
        if ((rc = cli_emb_request(j->cmdname, j->emb_at, j->emb_time, ev, &q->emb_nodes, &q->emb_t, &q->emb.n)))
            return rc;
        q->emb.nodes = q->emb_nodes, q->emb.t = q->emb_t;
    }
    q->emb_in = e && e->emb_n > 0 && e->emb_out;
    if (q->emb_in) q->emb.nodes = e->emb_nodes, q->emb.t = e->emb_t, q->emb.n = e->emb_n;
    if (j->score_at) {
        if ((rc = cli_score_request(j->cmdname, j->score_at, ev, &q->sc_src, &q->sc_dst, &q->sc_t, &q->score.n)))
            return rc;
        q->sc_out = dgnn_xmalloc((size_t)q->score.n * sizeof *q->sc_out);
        q->score.src = q->sc_src, q->score.dst = q->sc_dst, q->score.t = q->sc_t, q->score.out = q->sc_out;
    }
    q->score_in = e && e->score_n > 0 && e->score_out;
    if (q->score_in)
        q->score.src = e->score_src, q->score.dst = e->score_dst, q->score.t = e->score_t, q->score.n = e->score_n,
        q->score.out = e->score_out;
    return 0;
}

/* the requests' arrays read from files (the caller's are the caller's) */
static void free_request_inputs(eval_requests *q) {
    free(q->emb_nodes), free(q->emb_t), free(q->sc_src), free(q->sc_dst), free(q->sc_t);
    q->emb_nodes = NULL, q->emb_t = NULL, q->sc_src = NULL, q->sc_dst = NULL, q->sc_t = NULL;
}

/* --score-out: the pairs' scores as float32 .npy; 0, or 1 with a message */
static int write_scores(const char *path, const dgnn_score_request *s) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_write_npy_f32_vec(path, s->out, s->n, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn eval: --score-out: %s\n", err.msg);
        return 1;
    }
    dgnn_log("wrote %lld scores to %s\n", (long long)s->n, path);
    return 0;
}

/* What the run gives, reported: printed by rank 0, then the files, and the in-process
 * caller's JSON and embeddings. rc: the run's status so far; the report's status. */
static int report(train_job *j, const dgnn_events *ev, const char *dataset, dgnn_event_train_result *res,
                  const dgnn_event_node_cfg *ncfg, const dgnn_event_node_result *nres, eval_requests *q,
                  const double *op_seconds, double peak1, double peakT, int nthreads) {
    const dgnn_event_train_cfg *c = &j->c;
    const int on = j->eval ? j->eval_split : 0;
    int rc = 0;
    cli_event_print_eval(c, res, j->eval, j->eval_split);
    if (j->bench) cli_event_print_bench(c, res, op_seconds, peak1, peakT, nthreads);
    if (c->dist.mode != DGNN_DIST_NONE) cli_event_print_dist(res);
    /* the step-time curve before the JSON, which holds it */
    cJSON *curve_json = NULL;
    const int curve_failed = j->n_steps > 0 && cli_bench_step_curve(j->cmdname, j->step_sizes, j->n_steps, ev, c,
                                                                    j->max_batches, j->out ? &curve_json : NULL);
    if (curve_failed) rc = 1;
    /* the same JSON for the in-process caller, before the files: one that cannot be
     * written then fails the call without losing the results (capi.h) */
    if (j->embed && j->embed->json && rc == 0)
        rc = cli_event_json(j->cmdname, NULL, j->model, dataset, j->preset, j->config, c, res, ev, ncfg, nres,
                            j->hook.stop, NULL, j->embed->json, on);
    if (j->out && curve_failed) /* a JSON without its curve would be read as a plain training run's */
        fprintf(stderr, "dgnn %s: --out %s not written: the step-time curve is incomplete\n", j->cmdname, j->out);
    else if (j->out) {
        const int wrc = cli_event_json(j->cmdname, j->out, j->model, dataset, j->preset, j->config, c, res, ev, ncfg,
                                       nres, j->hook.stop, curve_json, NULL, on);
        rc = rc ? rc : wrc;
    }
    if (j->emb_out && q->emb.out && cli_event_embeddings(j->emb_out, &q->emb)) rc = 1;
    if (j->score_out && q->sc_out && write_scores(j->score_out, &q->score)) rc = 1;
    if (q->emb_in && rc == 0) { /* the rows are the caller's */
        *j->embed->emb_out = q->emb.out, *j->embed->emb_dim = q->emb.dim;
        q->emb.out = NULL;
    }
    if (j->plot && cli_event_plot(j->plot, j->model, dataset, res)) rc = 1;
    return rc;
}

/* The events loaded, the requests read, the training (or dgnn eval's evaluation) run,
 * --task node's stage after it, and the report. The exit status. */
static int run_job(train_job *j) {
    dgnn_event_train_cfg *c = &j->c;
    dgnn_events ev;
    const char *dataset;
    int rc = load_events(j, &ev, &dataset);
    if (rc) return rc;
    eval_requests q;
    if ((rc = read_requests(j, &ev, &q)) != 0) {
        free_request_inputs(&q);
        if (!j->embed) dgnn_events_free(&ev);
        return rc;
    }

    char a[32], b[32];
    dgnn_log("%s on %s: %s events, %s nodes, preset %s, batch %lld, %lld epochs\n", j->model, dataset,
             dgnn_fmt_count(a, sizeof a, ev.num_events), dgnn_fmt_count(b, sizeof b, ev.num_nodes), j->preset,
             (long long)c->batch, (long long)c->epochs);
    double peak1 = 0, peakT = 0;
    int nthreads = j->threads > 0 ? (int)j->threads : omp_get_max_threads();
    if (j->bench && !c->use_cuda) {
        /* the dense-math peak on this machine, now: 1 thread, then the run's threads */
        omp_set_num_threads(1);
        peak1 = dgnn_sgemm_gflops(1024, 1.0);
        omp_set_num_threads(nthreads);
        peakT = nthreads == 1 ? peak1 : dgnn_sgemm_gflops(1024, 1.0);
    }
    double op_seconds[DGNN_PROF_N] = {0};
    if (j->bench) c->op_seconds = op_seconds;
    dgnn_event_train_result *res = dgnn_xcalloc(1, sizeof *res);
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_tgnn *kept = NULL; /* --task node: the trained link model, frozen for the decoder */
    if (j->node_task) c->keep_model = &kept;
    rc = j->eval ? dgnn_event_eval(&ev, c, j->eval_split, j->emb_out || q.emb_in ? &q.emb : NULL,
                                   j->score_at || q.score_in ? &q.score : NULL, res, &err)
                 : dgnn_event_train(&ev, c, res, &err);
    free_request_inputs(&q);
    dgnn_event_node_cfg ncfg;
    dgnn_event_node_result *nres = j->node_task && rc == DGNN_OK ? dgnn_xcalloc(1, sizeof *nres) : NULL;
    const int node_failed = nres && cli_train_node(dataset, &ev, kept, c, &j->nf, &ncfg, nres);
    dgnn_tgnn_free(kept);
    if (rc != DGNN_OK) {
        if (c->dist.mode != DGNN_DIST_NONE && dgnn_comm_size() > 1) {
            /* the other ranks may be waiting for this one: end the whole job */
            fprintf(stderr, "dgnn %s: rank %d: %s\n", j->cmdname, dgnn_comm_rank(), err.msg);
            dgnn_comm_abort(1);
        }
        fprintf(stderr, "dgnn %s: %s\n", j->cmdname, err.msg);
        rc = 1;
    } else if (node_failed) {
        rc = 1;
    } else if (c->dist.mode == DGNN_DIST_NONE || dgnn_comm_rank() == 0) { /* rank 0 reports */
        rc = report(j, &ev, dataset, res, &ncfg, nres, &q, op_seconds, peak1, peakT, nthreads);
    }
    free(q.sc_out);
    free(q.emb.out);
    free(nres);
    free(res);
    if (!j->embed) dgnn_events_free(&ev); /* cli_train_embedded's events are the caller's */
    return rc;
}

/* `dgnn train`, `dgnn bench train` (bench: one epoch of training only by default, then the
 * throughput table against sgemm peak measured in the same run) and `dgnn eval` (the same
 * flags as the training run, a checkpoint evaluated without training: argv's first saved
 * tokens are the training run's settings from the checkpoint, the rest the flags typed).
 * *lock: the checkpoint folder's lock, which the caller releases. */
static int train_run(int argc, char **argv, int saved, cli_run_mode mode, const cli_train_embed *embed, int *lock) {
    train_job *j = dgnn_xmalloc(sizeof *j);
    job_init(j, saved, mode, embed);
    int rc = job_parse(j, argc, argv);
    if (rc == 0) rc = job_settings(j);
    if (rc == 0) rc = start_ranks(j);
    if (rc == 0) rc = claim_outputs(j, lock);
    if (rc == 0) rc = run_job(j);
    /* every rank ends alike (a rank's own failure ended the job above); a no-op without MPI
     * or once finalised */
    if (j->c.dist.mode != DGNN_DIST_NONE) dgnn_comm_finalize();
    free(j);
    return rc == HELP_SHOWN ? 0 : rc;
}

/* train_run, and the lock it may take on the checkpoint folder (held for the whole run,
 * released on every way out) */
int cli_event_run(int argc, char **argv, int saved, cli_run_mode mode, const cli_train_embed *embed) {
    int lock = -1;
    const int rc = train_run(argc, argv, saved, mode, embed, &lock);
    dgnn_ckpt_dir_unlock(lock);
    return rc;
}

/* The snapshot models have their own trainer and flags (cmd_train_snap.c). */
int cmd_train(int argc, char **argv) {
    if (cli_is_snapshot_model(argc, argv)) return cmd_train_snapshot(argc, argv);
    const int rc = cli_event_run(argc, argv, 0, CLI_RUN_TRAIN, NULL);
    cli_config_release();
    return rc;
}
int cmd_train_bench(int argc, char **argv) {
    const int rc = cli_event_run(argc, argv, 0, CLI_RUN_BENCH, NULL);
    cli_config_release();
    return rc;
}
int cli_train_embedded(int argc, char **argv, const cli_train_embed *e) {
    if (e->json) *e->json = NULL;
    if (cli_is_snapshot_model(argc, argv)) return cli_train_snapshot_embedded(argc, argv, e);
    const int rc = cli_event_run(argc, argv, 0, CLI_RUN_TRAIN, e);
    cli_config_release(); /* --config's tokens, as cmd_train */
    return rc;
}
