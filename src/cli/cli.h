/* cli.h: what the subcommands share: their entry points and the dataset-loading flags
 * every command that reads data accepts (--format, --columns, --bipartite, ...). */
#ifndef DGNN_CLI_H
#define DGNN_CLI_H

#include <math.h>
#include <stdint.h>

#include "args.h"
#include "dgnn/checkpoint.h"
#include "dgnn/event_train.h"
#include "dgnn/readers.h"
#include "dgnn/split.h"

int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_train_bench(int argc, char **argv);
int cmd_gen_bench(int argc, char **argv);
/* `dgnn train --model evolvegcn-o|evolvegcn-h ...` (cmd_train_snap.c): cmd_train hands
 * the snapshot models over to it with the same argv. */
int cmd_train_snapshot(int argc, char **argv);
/* `dgnn bench train` for the snapshot models (cmd_train_snap.c). */
int cmd_bench_train_snapshot(int argc, char **argv);
/* 1 if argv's --model names a snapshot model (dgnn_snapmodel_kind_parse): the rule train
 * and bench use to hand a command over to the snapshot trainer. */
int cli_is_snapshot_model(int argc, char **argv);

/* `dgnn eval` (cmd_eval.c, run by cmd_train.c): a checkpoint evaluated under any protocol, embeddings out. */
int cmd_eval(int argc, char **argv);

/* `dgnn train` run in-process by a library caller (libdgnn.so's capi_train.c, for the
 * Python package): the command's flags, on events already in memory instead of --data,
 * with the --out JSON handed back as a string. Everything else is the command's: the
 * same parsing, checks, messages (on stderr), training and JSON. */
typedef struct {
    const dgnn_events *events; /* trained on (not freed); --data and the loading flags are refused */
    const char *dataset;       /* the JSON's "dataset" (NULL: "arrays") */
    const char *source;        /* the file the events were read from (NULL: arrays): an output
                                * that would overwrite it is refused, as one over --data is */
    char **json;               /* non-NULL: *json receives the --out JSON (malloc'd; NULL if none) */
    /* non-NULL: after each epoch, that epoch's --curve line; nonzero stops training as early
     * stopping does, recorded in the JSON as "stopped_by_caller": true */
    int (*on_epoch)(void *ctx, const char *epoch_json);
    void *on_epoch_ctx;
    const volatile sig_atomic_t *interrupt; /* read after every step (event_train.h) */
    /* cli_eval_embedded only (zeros: none): embeddings at (emb_nodes[i], emb_t[i]) (dense
     * ids), *emb_out receiving the malloc'd (emb_n, *emb_dim) rows; scores of the pairs
     * (score_src[i], score_dst[i], score_t[i]) (dense ids) into the caller's score_out (score_n) */
    const int32_t *emb_nodes;
    const double *emb_t;
    int64_t emb_n;
    float **emb_out;
    int64_t *emb_dim;
    const int32_t *score_src, *score_dst;
    const double *score_t;
    int64_t score_n;
    float *score_out;
} cli_train_embed;
/* The command's exit status: 0, 1 (failed), 2 (usage), in one process (no --dist). A
 * snapshot model's --model goes to cli_train_snapshot_embedded. */
int cli_train_embedded(int argc, char **argv, const cli_train_embed *e);
/* The snapshot models' `dgnn train` in-process likewise (cmd_train_snap.c): events, dataset,
 * json, on_epoch (its --curve line; nonzero stops after the epoch) and interrupt (read after
 * every training sample) as above; --data, --synthetic, --dist dygnex and the loading flags
 * are refused. */
int cli_train_snapshot_embedded(int argc, char **argv, const cli_train_embed *e);
/* `dgnn schedule` in-process (cmd_schedule.c): e->events instead of --data (--data and the
 * loading flags refused), e->dataset naming them in the messages and chart, the --json
 * output into *e->json (given --json or not; nothing printed on stdout); the other fields
 * unused. The command's exit status. */
int cli_schedule_embedded(int argc, char **argv, const cli_train_embed *e);
/* `dgnn eval` in-process likewise (argv: its flags, --checkpoint DIR among them; the
 * checkpoint's saved settings go first, without their --data): the same JSON, and the
 * embedding and score requests of e. */
int cli_eval_embedded(int argc, char **argv, const cli_train_embed *e);

/* ---- the evaluation protocols on the command line (cli_protocol.c) ---- */
struct cJSON;
/* --protocol LIST (tgn, dyglib, tgb; tgn always runs) into p; 0, or 2 with a message. */
int cli_protocol_parse(const char *cmd, const char *list, dgnn_eval_protocol *p);
/* TGB's lists' paths PREFIX_val_ns.npy / PREFIX_test_ns.npy: PREFIX from --tgb-negatives,
 * else beside the data (its name without the extension and TGB's "_edgelist_v2"). */
int cli_tgb_paths(const char *cmd, const char *prefix, const char *data, char *val, char *test, size_t cap);
/* The protocols' figures as o.protocols, and as the printed summary. */
void cli_protocols_json(struct cJSON *o, const dgnn_event_train_cfg *c, const dgnn_event_train_result *r);
void cli_protocols_print(const dgnn_event_train_cfg *c, const dgnn_event_train_result *r);
/* --emb-at CSV ('node,time' lines, ids as in the data) or --emb-time T (every node at T):
 * dense (node, time) pairs, malloc'd; 0, or 1/2 with a message naming file and line. */
/* --score-at CSV ('src,dst,time' lines, ids as in the data): dense pairs, malloc'd; 0, or
 * 1/2 with a message naming file:line:field. */
int cli_score_request(const char *cmd, const char *at, const dgnn_events *ev, int32_t **src, int32_t **dst, double **t,
                      int64_t *n);
int cli_emb_request(const char *cmd, const char *at, const char *time_s, const dgnn_events *ev, int32_t **nodes,
                    double **t, int64_t *n);

/* `dgnn schedule` (cmd_schedule.c) and `dgnn simulate` (cmd_simulate.c): DyGNeX, issue 6. */
int cmd_schedule(int argc, char **argv);
int cmd_simulate(int argc, char **argv);

/* Flags for reading a dataset; embed in a command's option table with CLI_LOAD_OPTS(x). */
typedef struct {
    const char *format;
    const char *columns;
    int bipartite, not_bipartite;
    const char *edge_feat, *node_feat;
} cli_load_flags;

#define CLI_LOAD_OPTS(f)                                                                          \
    {"format", ARG_STRING, &(f).format, "FMT", "input format: auto (default), jodie, tgl, edgelist, pgt, dgnn, dyglib, tgb"}, \
    {"columns", ARG_STRING, &(f).columns, "LIST", "edge lists only: column roles, e.g. src,dst,ts or src,dst,weight,ts"}, \
    {"bipartite", ARG_FLAG, &(f).bipartite, NULL, "declare the stream bipartite (checked)"},   \
    {"not-bipartite", ARG_FLAG, &(f).not_bipartite, NULL, "treat the stream as not bipartite"}, \
    {"edge-feat", ARG_STRING, &(f).edge_feat, "NPY", "TGL only: edge features .npy (default: beside edges.csv)"}, \
    {"node-feat", ARG_STRING, &(f).node_feat, "NPY", "TGL only: node features .npy (default: beside edges.csv)"}

/* Loads path with the flags; on failure prints "dgnn CMD: MESSAGE" and returns 2 for flags
 * that are wrong or do not fit the data (--format unknown, --columns for a JODIE file,
 * --edge-feat for an edge list, ...), 1 for data that cannot be read. */
int cli_load(const char *cmd, const char *path, const cli_load_flags *f, dgnn_events *ev);

/* For commands whose data is optional (built-in or synthetic without --data): 2 with a
 * message if a loading flag was given anyway (it would be ignored), else 0. The message
 * says why no file is read: the events are in memory (cli_set_events_in_memory), else
 * no --data is given and the built-in data would ignore the flag. */
int cli_load_flags_unused(const char *cmd, const cli_load_flags *f);
/* The same with the reason given: "dgnn CMD: --FLAG describes the --data file, but WHY"
 * (why NULL: as cli_load_flags_unused). */
int cli_load_flags_unused_why(const char *cmd, const cli_load_flags *f, const char *why);
/* In-process runs (src/capi's run_embedded) set 1 for the length of the call: the events
 * are the caller's, in memory, and a loading flag is told so (not "no --data is given"). */
void cli_set_events_in_memory(int on);

/* The event split of `dgnn train` (split_mode.c): flag "time" or "ext_roll", or NULL for
 * the default (ext_roll when ev has TGL's column, with one log line saying so; else
 * time). "ext_roll" on data without the column is refused naming the flag and data:
 * returns 2 (usage error) after printing; 0 with *mode set otherwise. */
int cli_split_mode(const char *cmd, dgnn_split_mode *mode, const char *flag, const dgnn_events *ev, const char *data);

/* Writes o (then deleted) to path as JSON through the output rules of dgnn/outfile.h
 * (atomic temporary file + rename; symlinks followed; devices and FIFOs written
 * through): a reader never sees half a file. On failure prints "dgnn CMD: ..." and
 * returns 1. */
struct cJSON;
int cli_write_json(const char *cmd, const char *path, struct cJSON *o);
/* x as a JSON number, or null when it is not finite (JSON has no NaN or infinity: a
 * metric that could not be computed, such as an AUC over one class). */
struct cJSON *cli_json_number(double x);
/* Adds o.run = {dgnn (version), commit (git, "+dirty" for a changed tree, "unknown" outside
 * git), date (UTC, ISO 8601), command (the full command line, shell-quoted where needed)}:
 * what a results file needs to be reproduced. */
void cli_add_run_info(struct cJSON *o);
/* The command line cli_add_run_info records (argv[0] is shown as "dgnn"): main() sets it,
 * cli_train_embedded sets "dgnn train FLAGS" for its run. argv must outlive the run. */
void cli_set_command_line(int argc, char **argv);
/* --curve FILE: one JSON line per epoch, written whole or not at all as each epoch ends, so
 * that a killed run keeps its curve. A regular file is reopened for each line; a FIFO, a
 * device or the process's own standard output keeps one descriptor for the run (written
 * through). cli_curve_start checks that FILE takes writes (a FIFO: that it has a reader);
 * unless resuming (then it goes on appending) the first line empties a regular file, so
 * that a run refused or failed before its first epoch ends leaves it as it was; on resuming,
 * the first line first removes the lines after the last epoch the checkpoint holds (those
 * of an interrupted run, written before its checkpoint, and a line cut short), saying so;
 * 0, or 1 with a message. cli_curve_append writes o as one line and frees it; a failed
 * line is reported once (training goes on). cli_curve_end(rc), at the end of the run: rc
 * when nonzero, else 1 with a message naming FILE when a line was lost (or the curve could
 * not be started), else 0; it closes the descriptor kept. */
int cli_curve_start(const char *cmd, const char *path, int resume);
void cli_curve_append(const char *path, struct cJSON *o);
int cli_curve_end(int rc);

/* A path a command names: its flag ("--out"), the path given (NULL: flag not given,
 * skipped), and its role: CLI_OUT_FILE a file the command writes, CLI_OUT_FOLDER a folder
 * it fills (--checkpoint DIR), CLI_IN a file it reads (--data: checked against the
 * outputs only), CLI_IN_LIST a comma-separated list of such files (--measured A,B). */
enum { CLI_OUT_FILE = 0, CLI_OUT_FOLDER = 1, CLI_IN = 2, CLI_IN_LIST = 3 };
typedef struct {
    const char *flag;
    const char *path;
    int role;
} cli_output;
/* Checks every output before any work (dgnn_outfile_check, dgnn_ckpt_dir_check), so
 * that a missing folder is told at once, not after training: prints "dgnn CMD: --out
 * /missing/dir/r.json: folder /missing/dir does not exist" for each bad one and returns
 * 2, else 0. An output file that is one of the inputs, or the file of another output
 * (the same path, a link to it, the same inode), is refused too: writing it would destroy
 * the data read or the other output (devices and FIFOs may be shared). Under MPI rank 0
 * checks (it writes every output) and every rank gets the verdict: call it on every rank,
 * after dgnn_comm_init. */
int cli_check_outputs(const char *cmd, const cli_output *outs, int n);
/* Under mpirun, right after dgnn_comm_init and before any other collective: the options
 * that decide which collectives a rank calls, or whether it stops before training (given
 * or not: --checkpoint, --resume, --profile, the device, ...), compared across the ranks.
 * The launcher can give each rank its own options (mpirun -np 1 dgnn A : -np 1 dgnn B); a
 * rank that differed would otherwise wait in another call than the others, or stop alone
 * while they wait. 0 when all agree; else 2 on every rank, after rank 0 told the first
 * difference and the communicator was finalized. */
int cli_ranks_agree(const char *cmd, const dgnn_ckpt_run *opts);
/* Under mpirun, after every rank read its data (rc: its reader's exit code, or the
 * check's that refused the data, 0 when it can be used): the first failed rank's code on
 * every rank, rank 0 naming it, or 0 when all can. A collective: every rank calls it,
 * whatever its rc. */
int cli_ranks_loaded(const char *cmd, int rc);
/* A run's --checkpoint DIR, taken by the process that writes it (rank 0): locked for the
 * run's lifetime (*lock, released by the caller with dgnn_ckpt_dir_unlock, or by the
 * kernel when the process dies), and, for a run afresh, refused when it holds a
 * checkpoint. --resume from a folder that does not exist takes no lock (the resume fails
 * on its own). 1 after printing why ("dgnn CMD: ..."), else 0. */
int cli_ckpt_take(const char *cmd, const char *dir, int resume, int *lock);

/* A command of one process started by an MPI launcher as one of several (mpirun -np 2
 * dgnn train without --dist) would run in full in each, every copy writing the same
 * outputs: 1 after "dgnn CMD: this process is one of N that an MPI launcher started (VAR=N):
 * WHY" (told by rank 0), else 0. Before MPI_Init, from the launcher's environment. */
int cli_refuse_copies(const char *cmd, const char *why);

/* Sets the OpenMP thread count when threads > 0. */
void cli_set_threads(int64_t threads);
/* bench_steps.c: --step-curve LIST: its batch sizes into sizes (CLI_STEP_SIZES_MAX) and
 * their count, or -1 with a message naming cmd; then the curve: each size trained for
 * `steps` steps (0: 30) with base's settings, the table printed, then the rate of
 * applying received state rows on that device; 1 when a run failed or a size got fewer
 * steps than the curve needs (the message names them). json (or NULL): the curve as the
 * run JSON's "step_curve" object, NULL unless every size was measured. */
#define CLI_STEP_SIZES_MAX 32
int cli_step_sizes(const char *cmd, const char *list, int64_t *sizes);
int cli_bench_step_curve(const char *cmd, const int64_t *sizes, int n, const dgnn_events *ev,
                         const dgnn_event_train_cfg *base, int64_t steps, struct cJSON **json);
/* --device: NULL or "cpu" (the CPU), "cuda" (GPU 0) or "cuda:N"; 2 with a message naming
 * cmd for anything else. */
int cli_device_parse(const char *cmd, const char *s, int *use_cuda, int *index);

/* --comm-timeout S of both trainers (dgnn_comm_set_timeout): how long a rank waits for a
 * peer before it ends the job. The table bounds it (0..1e9); cli_comm_timeout applies a
 * given value (not given: the default, 600 s). */
#define CLI_COMM_TIMEOUT_OPT(v)                                                                     \
    {"comm-timeout", ARG_DOUBLE, &(v), "S", "multi-rank: a rank that waits S seconds for a peer ends the job, naming " \
                                            "the ranks that do not answer (600; 0: wait forever)", ARG_IN(0, 1e9)}
void cli_comm_timeout(double seconds);


/* Bounds the commands' option tables share (args.h: ARG_IN & co.). */
#define CLI_MAX_THREADS 1024   /* OpenMP threads: libgomp ran 20,000 here, and crashed at 100,000 */
#define CLI_MAX_EPOCHS 1024    /* the results' epochs[] (event_train.h, snap_train.h) */
#define CLI_MAX_DIM 4096       /* model widths (memory, time encoding, embedding, hidden) */
#define CLI_MAX_BATCH 1000000  /* events per batch */
#define CLI_MAX_LR 10          /* Adam's learning rate, in (0, 10] */
#define CLI_MAX_SECONDS 86400  /* solver time limits */
#define CLI_MAX_WINDOW 10000   /* snapshot windows: a sample reads W + 1 snapshots */
#define CLI_MAX_SNAPSHOTS 1000000
#define CLI_MAX_WORKERS 65536  /* schedule and simulate worker counts */

/* "Flag not given", for numeric flags whose every value (negatives too) must reach the
 * checks: a value the user typed is never mistaken for the default. */
#define CLI_UNSET INT64_MIN
#define CLI_UNSET_F NAN
#define CLI_GIVEN_F(x) (!isnan(x))

/* What schedule and simulate share (cmd_schedule.c). Each prints its own error as
 * "dgnn CMD: ..." and returns non-zero on failure. */
#include "dgnn/costmodel.h"
#include "dgnn/sched.h"
#include "dgnn/snap_train.h"
/* the snapshot models schedule, simulate --family snapshot and the cost model take */
#define CLI_SNAP_MODELS "evolvegcn-o, evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn"
/* --model name -> dgnn_snapmodel_kind, or -1 (message printed) */
int cli_snap_model_kind(const char *cmd, const char *model);
/* The training windows of a dataset cut as the trainer cuts it under c (*win_out malloc'd):
 * cli_load, then dgnn_snap_cost_windows. */
int cli_snap_windows(const char *cmd, const char *data, const cli_load_flags *lf, dgnn_snap_train_cfg *c,
                     dgnn_window **win_out, int64_t *n_out, int64_t *num_nodes);
/* The cost model: fitted on --profile (windows it measured take its sizes) or the default
 * law (dgnn_snap_cost_model), and unless quiet its one- or two-line description. */
int cli_snap_cost_model(const char *cmd, dgnn_costmodel *cm, dgnn_window *win, int64_t n, int kind,
                        const dgnn_snap_train_cfg *c, const char *profile, double rate, int quiet);

#endif
