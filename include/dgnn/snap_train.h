/* snap_train.h: training and evaluating the snapshot-based models (snapmodel.h) on
 * three tasks (cfg.task): link prediction and edge classification with EvolveGCN's
 * protocol (IBM/EvolveGCN link_pred_tasker.py, edge_cls_tasker.py, bitcoin_dl.py,
 * splitter.py, trainer.py, Cross_Entropy.py, logger.py), and node regression on
 * PyG-Temporal snapshot data. Link prediction (the default):
 *
 *  - snapshots: the event table cut into fixed time windows (bitcoin-alpha 1,200,000 s,
 *    UCI 190,080 s), made undirected (A + A^T, weight = events in the window), GCN-
 *    normalized (snapshot.h);
 *  - node input: one-hot degree, the number of distinct neighbours of the node in the
 *    snapshot, categories 0 .. V-1 with V = 1 + the largest degree over the snapshots that
 *    can be inputs (all but the last: taskers_utils.get_max_degs);
 *  - a sample idx reads the W + 1 snapshots idx-W .. idx (W = num_hist_steps, 10) and
 *    predicts the edges of snapshot idx+1;
 *  - split by sample index (splitter.py), with T snapshots (max_time = T - 1):
 *      train [W, floor(max_time * train_frac)), validation [that, floor(max_time *
 *      (train_frac + val_frac))), test [that, T - 1);
 *  - training pairs: the edges of idx+1 (label 1) and neg_mult times as many non-edges
 *    (label 0) drawn as the reference's smart sampling: source uniform over the label
 *    edges' sources (so by degree), destination uniform over the nodes with an edge in
 *    each window snapshot (with repeats across snapshots); self loops, true edges and
 *    repeats rejected, at most 4x as many draws as wanted; drawn afresh every epoch;
 *  - loss: Cross_Entropy.py (class weights, mean over pairs); Adam; one step every
 *    windows_per_step windows (steps_accum_gradients; the step counter runs across
 *    epochs, as the reference's);
 *  - validation and test score ALL N^2 ordered pairs (u, v) of snapshot idx+1, self pairs
 *    included, label 1 for its edges (get_all_non_existing_edges); MAP = average
 *    precision per snapshot and MRR as logger.get_MRR, each averaged over snapshots
 *    weighted by their pair count (calc_epoch_metric);
 *  - early stopping (trainer.py): epochs 1 .. skip_val_epochs are not validated (the
 *    reference's eval_after_epochs = 5 skips its epochs 0..5); a validation MAP above the
 *    best so far (which starts at 0) resets the count, otherwise the count grows and the
 *    run stops once it exceeds `patience`. The reference evaluates the test split at every
 *    new best; evaluation has no randomness, so testing the best epoch's parameters once at
 *    the end gives the same numbers, and that is what is done here. Without any validation
 *    (few epochs) the final parameters are tested.
 * Randomness: negatives and RReLU slopes come from streams keyed by (seed, epoch, sample),
 * so a run is reproduced exactly (any thread count) and resumes exactly from a checkpoint.
 * Empty label snapshots (none in bitcoin-alpha or UCI) are skipped in training and left
 * out of the metric averages (the reference would produce NaN).
 *
 * Edge classification (task EDGE; edge_cls_tasker.py with bitcoin_dl.py's labels):
 *  - snapshots, one-hot degree input and windows as above (A's weight = the number of
 *    ratings of the pair in the snapshot, both directions: bitcoin_dl's vals);
 *  - the samples' labels are the edges of snapshot idx ITSELF, the window's last input
 *    (get_edge_labels(time = idx)), not of idx + 1: every entry (u, v) of the symmetric A
 *    of idx, label 1 when the pair's ratings in that snapshot (u -> v and v -> u, each
 *    counted as +1 if rating > 0 else -1) sum to > 0, else 0 (bitcoin_dl's majority vote;
 *    a tie is 0). The rating is edge-feature column 0 of the events (the edge-list
 *    reader's weight column, bitcoin's RATING);
 *  - no sampling: every label edge is a training pair, also in validation and test;
 *  - split: as link prediction, except that the test split ends at T (the edge tasker's
 *    max_time is the data's, one more than the link tasker's);
 *  - loss: the weighted cross-entropy (bitcoin-alpha's [0.8, 0.2]); prediction = argmax;
 *  - metric: precision, recall and F1 of the MINORITY class (the class with fewer labels
 *    over the training samples: class 0, negative ratings, on bitcoin-alpha, the
 *    reference's target_class), from the confusion counts summed over the split's samples
 *    (logger.calc_eval_measures_per_class: 0 when tp = 0); early stopping on it (best
 *    starts at 0, as the reference's).
 *
 * Node regression (task NODE; PyG-Temporal json tables, events.h period_x / period_y):
 *  - one snapshot per period, A + A^T with the files' edge weights (edge-feature column
 *    0), GCN-normalized;
 *  - targets: y (the first target column) z-scored per node over all periods, as
 *    PyG-Temporal's EnglandCovidDatasetLoader does ((y - mean) / (std + 1e-10), numpy's
 *    population std);
 *  - node input of snapshot t (dense): the period's features X_t when the file has them,
 *    then the node's own z-scored y_t (PGT's england_covid loader feeds the last 8 values
 *    of y as features; a window of W + 1 = 8 snapshots sees the same 8 values);
 *  - a sample idx reads snapshots idx-W .. idx and predicts y_{idx+1} of every node
 *    (PGT's loaders pair the features of day t with the target of day t + 1, i.e. the
 *    next value after the window: the same thing; predicting y_idx, which the input
 *    already holds, would be no forecast);
 *  - head Linear(L -> C) -> ReLU -> Linear(C -> 1) on the embeddings (its own Adam, as
 *    the reference's classifier; in the checkpoint);
 *  - loss MSE over the N nodes; metric MSE over the split's samples and nodes; early
 *    stopping on the lowest validation MSE; split as link prediction (test ends at T - 1,
 *    the last snapshot only serves as a target).
 *
 * Baselines (baseline_last, computed on the same test samples): link: a pair's score =
 * its weight in snapshot idx; edge: the label the same ordered pair had the last time it
 * was rated (any earlier snapshot), else the majority class of the training labels;
 * node: y_{idx+1} predicted as y_idx.
 *
 * Profile (cfg.profile): per training sample, the measured time of its training work:
 * negative sampling, model forward, classifier/head forward, loss and backward (not the
 * Adam step, which is per step, not per window), median over the epochs run, with the
 * sample's sizes; written as CSV by dgnn_snap_profile_write_csv for DyGNeX's cost model.
 * With one thread (threads = 1) the time is the process's CPU seconds: what the sample
 * costs on a core of its own, unchanged by other jobs sharing the machine (on this
 * project's 2 shared cores, wall seconds of the same sample varied by 2-5x with the
 * load); with more threads, or on a GPU (whose work the process's CPU time leaves out), it
 * is wall seconds. This is the unit DyGNeX's measured group
 * times use too (res.dist, "cpu"), so predicted and measured compare.
 *
 * Distributed training, DyGNeX (cfg.dist, docs/dygnex.md "Distributed training"):
 * under mpirun every process calls dgnn_snap_train with the same arguments. The training
 * windows are scheduled on P ranks in R rounds (sched.h: rank 0 schedules, from the
 * predicted costs cfg.dist.cost or the default law, and broadcasts the schedule). A round
 * is one optimizer step: each rank trains its group's windows (gradients summed, exactly
 * as the single-process trainer sums windows_per_step windows), the gradient slabs are
 * sum-all-reduced, and every rank takes the same Adam step; so a round equals the
 * single-process step over the union of the round's windows (the per-window randomness is
 * keyed by (seed, epoch, sample), not by rank). With one process and dist.ranks = P > 1,
 * the process plays all P ranks: each round's P groups, one after the other, as one
 * accumulated step (the reference the multi-rank runs are tested against). Rank 0
 * validates, tests, checkpoints and reports; the others wait, and the early-stop
 * decision is broadcast every epoch. Each group's compute time is measured (wall and
 * process CPU seconds), giving the measured makespan and imbalance beside the predicted
 * ones (res.dist). */
#ifndef DGNN_SNAP_TRAIN_H
#define DGNN_SNAP_TRAIN_H

#include <signal.h>

#include "dgnn/events.h"
#include "dgnn/gen.h"
#include "dgnn/costmodel.h"
#include "dgnn/sched.h"
#include "dgnn/snapmodel.h"
#include "dgnn/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dgnn_snap_epoch_result; /* one epoch's figures (below) */

typedef enum {
    DGNN_SNAP_TASK_LINK = 0, /* link prediction (EvolveGCN link_pred) */
    DGNN_SNAP_TASK_EDGE = 1, /* edge classification (EvolveGCN edge_cls, rating signs) */
    DGNN_SNAP_TASK_NODE = 2  /* node regression (PyG-Temporal targets) */
} dgnn_snap_task;

/* "link", "edge", "node". */
const char *dgnn_snap_task_name(dgnn_snap_task t);
/* Parses a task name; returns 0, or DGNN_EINVAL naming the choices. */
int dgnn_snap_task_parse(const char *s, dgnn_snap_task *t, dgnn_err *err);
/* The weight_from_feature of the trainer's cut (dgnn_snapshots_cut) for task t on ev: 1
 * for the node task on a table with edge features (PGT's edge weights in column 0); 0
 * otherwise (bitcoin's column 0 is the rating, a label: A counts the ratings). */
int dgnn_snap_weight_from_feature(dgnn_snap_task t, const dgnn_events *ev);

/* The per-sample cost profile (one row per training sample that ran). */
typedef struct {
    int64_t sample;       /* idx: the window's last input snapshot */
    int64_t nodes;        /* nodes with an edge in snapshot idx */
    int64_t edges;        /* undirected edges of snapshot idx (entries with u <= v) */
    int64_t edges_window; /* edges summed over snapshots idx-W .. idx */
    int64_t label_pairs;  /* training pairs of the sample (link: positives + negatives of
                             the last epoch run; edge: label edges; node: nodes) */
    int64_t in_dim, hidden;
    double seconds;       /* sampling + forward + loss + backward, median over the epochs
                             run (CPU seconds with one thread, else wall: see above) */
} dgnn_snap_profile_row;

typedef struct {
    char model[32];
    int64_t epochs;              /* epochs the medians are over */
    int64_t count;
    dgnn_snap_profile_row *rows; /* (count), malloc'd by the trainer */
} dgnn_snap_profile;

void dgnn_snap_profile_free(dgnn_snap_profile *p);
/* The CSV header, exactly: model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds */
extern const char *const dgnn_snap_profile_header;
/* Writes p as CSV (header, then one row per sample in sample order) to path atomically
 * (a temporary file beside it, then rename). DGNN_EIO naming the file on failure. */
int dgnn_snap_profile_write_csv(const char *path, const dgnn_snap_profile *p, dgnn_err *err);
/* Median, p90 (nearest rank), min and max of the rows' seconds (count > 0). */
void dgnn_snap_profile_stats(const dgnn_snap_profile *p, double *min, double *median, double *p90, double *max);

/* DyGNeX's distributed mode (see the top of this file). */
typedef enum { DGNN_SNAP_DIST_NONE = 0, DGNN_SNAP_DIST_DYGNEX = 1 } dgnn_snap_dist_mode;

typedef struct {
    dgnn_snap_dist_mode mode;
    dgnn_sched_kind scheduler;  /* even, greedy, ilp (the ILP falls back to greedy, sched.h) */
    int64_t ranks;              /* P of the schedule: 0 = the process count; with one process,
                                   P > 1 plays P ranks (each round's groups as one step);
                                   with several processes it must equal their count */
    int64_t rounds;             /* R: 0 = ceil(windows / P) (sched.h) */
    double time_limit;          /* ilp: seconds (0: 10) */
    const double *cost;         /* (cost_n) predicted seconds of the training windows
                                   train_begin .. train_begin + cost_n - 1 (the CLI: the cost
                                   model fitted on a profile, as `dgnn schedule --profile`);
                                   NULL: the model's own default law (dgnn_costmodel_default
                                   with the run's kind) on the run's own windows */
    int64_t cost_n;
    const dgnn_sched *schedule; /* non-NULL: train this schedule as is (tests); its sample
                                   indices must be training samples, each once */
    int local;                  /* 1: ignore the communicator, run as the only process (a
                                   one-process reference inside an MPI job, for tests) */
} dgnn_snap_dist_cfg;

typedef struct {
    dgnn_snap_task task;       /* LINK (default), EDGE, NODE */
    dgnn_snapmodel_cfg model;  /* kind, hidden, cls_hidden, seed (num_nodes and in_dim come from the data) */
    double snapshot_seconds;   /* > 0: fixed windows of this many time units (aggr_time) */
    int64_t snapshot_count;    /* > 0 instead: this many snapshots of equal time span */
    int64_t window;            /* W = num_hist_steps: a sample reads W + 1 snapshots */
    int64_t windows_per_step;  /* samples whose gradients are summed per Adam step (1) */
    int64_t epochs;
    double lr;
    float class_w[2];          /* class_weights [non-edge, edge] */
    int64_t neg_mult;          /* negative_mult_training */
    int neg_all_nodes;         /* link: 1 = negatives' destinations uniform over all N nodes instead
                                  of the reference's nodes active in the window's snapshots */
    double train_frac, val_frac; /* train_proportion, dev_proportion */
    int64_t patience;          /* early_stop_patience */
    int64_t skip_val_epochs;   /* eval_after_epochs + 1 */
    uint64_t seed;
    int64_t threads;           /* 0: OpenMP's default */
    int64_t max_train_windows; /* > 0: stop each training epoch after this many samples */
    int skip_eval;             /* 1: no validation or test (timing the training loop) */
    int baseline_last;         /* 1: also score the test samples with the task's "repeat the
                                  last snapshot" baseline (see above) */
    dgnn_snap_profile *profile; /* non-NULL (zeroed by the caller): filled with the per-
                                  sample profile of the training samples run; release with
                                  dgnn_snap_profile_free */
    const char *checkpoint;    /* folder: a checkpoint after every epoch (NULL: none; rank 0
                                  writes it in the distributed mode). Not locked, an existing
                                  checkpoint not refused: the command does that (checkpoint.h) */
    int resume;                /* 1: continue from the checkpoint in `checkpoint` */
    int progress;              /* progress bar on stderr */
    dgnn_snap_dist_cfg dist;   /* zeroed: single-process training as above. With dist, a
                                  round is the optimizer step (windows_per_step must be 1) and
                                  max_train_windows keeps the first N windows in the schedule */
    float **params_out;        /* non-NULL: *params_out = a malloc'd copy of the parameter
                                  slabs (the model's, then the node head's, padding included:
                                  *params_out_n floats) after the last training epoch, before
                                  the best epoch's are restored for testing; every process;
                                  the caller frees it */
    int64_t *params_out_n;
    /* non-NULL: called after each epoch (and its validation, if any) with its result, on
     * rank 0: a caller's progress record, e.g. the CLI's --curve */
    void (*on_epoch)(void *ctx, const struct dgnn_snap_epoch_result *e);
    void *on_epoch_ctx;
    /* non-NULL: read after each epoch (after on_epoch, on rank 0, broadcast): nonzero stops
     * training as early stopping does, logged as "stopped by the caller"; and read after
     * every training sample: nonzero ends the run with DGNN_EINTR ("interrupted"). What the
     * Python package's on_epoch and Ctrl-C set, as the event trainer's (event_train.h). */
    const int *stop;
    const volatile sig_atomic_t *interrupt;
    /* 1: train and evaluate on CUDA device cuda_device (snapmodel_cuda.h: every kind, the
     * link, edge and node tasks, the node task's head on the device too; NOT YET VERIFIED ON HARDWARE), or with DGNN_SNAP_CUDA_LOCAL_RANK
     * on device local_rank % devices (dgnn_comm_local_rank: one GPU per rank on a cluster,
     * the ranks sharing a lone GPU). With dist (DyGNeX) the rounds' gradients are summed
     * on the device's buffers (comm_dev.h: NCCL between GPUs of their own, else the host). Negatives, RReLU keys and the split are the CPU path's;
     * results agree within float rounding. */
    int use_cuda;
    int cuda_device;
} dgnn_snap_train_cfg;

#define DGNN_SNAP_CUDA_LOCAL_RANK (-1)

/* Link prediction with the reference's parameters_bitcoin_alpha_linkpred_egcn_o.yaml (or _egcn_h.yaml for -H):
 * 1,200,000-second snapshots, W 10, -O: L 100, C 400, class weights [0.05, 0.95]; -H: L 50,
 * C 100, [0.1, 0.9]; lr 0.005, 100 negatives per edge, 70/10/20, 500 epochs, patience 50,
 * skip 6, seed 1234. */
dgnn_snap_train_cfg dgnn_snap_train_cfg_default(dgnn_snapmodel_kind kind);
/* Applies a named configuration for c->model.kind and c->task (set the task first):
 *  link: "bitcoin-alpha" (the default above) or "uci" (parameters_uc_irv_mess_egcn_o/_h.yaml:
 *    190,080-second snapshots, L 100, C 100, [0.1, 0.9], lr 0.001, 50 negatives, 71/10/19,
 *    1000 epochs);
 *  edge: "bitcoin-alpha" (parameters_bitcoin_alpha_edgecls_egcn_o/_h.yaml: 1,200,000 s,
 *    W 10, -O: L 122, C 77; -H: L 100, C 200; class weights [0.8, 0.2], lr 0.001, 70/10/20,
 *    1000 epochs, patience 100, skip 6);
 *  node: "pgt" (dgnn's own choice, there is no reference configuration: one snapshot per
 *    period, W 7, L 32, C 32, lr 0.01, 70/10/20, 200 epochs, patience 20, no skip).
 * Returns 0, or DGNN_EINVAL for a name unknown for the task. */
int dgnn_snap_train_preset(dgnn_snap_train_cfg *c, const char *name, dgnn_err *err);
/* Whether task reads the setting of `dgnn train`'s snapshot flag `flag` (its name without
 * "--": "negatives", "class-weights", ...): 0 when it does (or every task does, or the
 * flag is not one of the task-dependent settings), else DGNN_EINVAL naming the flag and
 * the tasks it is for ("--negatives is for --task link only, not --task node (...)").
 * A CLI asks it for the flags the user typed: a preset's values are never refused. */
int dgnn_snap_train_flag_check(dgnn_snap_task task, const char *flag, dgnn_err *err);
/* The presets' values of the setting of `flag` (as above) as help text, from the presets
 * themselves: per preset of the tasks that read it, for EvolveGCN-O and every model that
 * agrees, the models that differ in parentheses, equal values merged: "link bitcoin-alpha
 * 100 (evolvegcn-h 50); link uci 100; edge 122 (evolvegcn-h 100); node 32", or "0.1"
 * when all agree; "" for a flag no preset sets. Into buf (cap bytes, cut to fit); returns
 * buf. */
const char *dgnn_snap_train_preset_help(char *buf, size_t cap, const char *flag);
/* The checks of c that need no data (task, sizes, rates, fractions and their sum):
 * DGNN_EINVAL naming the flag, so that a caller can refuse c before loading a dataset.
 * dgnn_snap_train runs them too, then the ones that need the snapshots: the split must
 * leave training samples with edges to learn from, and validation and test samples with
 * edges to score unless skip_eval. */
int dgnn_snap_train_cfg_check(const dgnn_snap_train_cfg *c, dgnn_err *err);

typedef struct dgnn_snap_epoch_result {
    int64_t epoch;              /* 1-based */
    double train_loss;          /* mean over the epoch's samples */
    double val_map, val_mrr;    /* link; NaN when not validated (or another task) */
    double val_f1;              /* edge: F1 of the minority class; NaN otherwise */
    double val_mse;             /* node; NaN otherwise */
    double seconds, train_seconds, val_seconds;
    int64_t train_windows, train_pairs;
} dgnn_snap_epoch_result;

/* What a DyGNeX run measured (rank 0's res; all times per epoch, averaged over the
 * epochs run). A group's compute = its windows' training (negative sampling, forward,
 * loss, backward), not the all-reduce or the Adam step. Makespan = sum over rounds of the
 * slowest group; mean = sum over rounds of the mean group; imbalance = makespan / mean - 1
 * (sched.h's definition), predicted from the schedule's costs, measured on wall seconds,
 * and on process CPU seconds (with one thread per rank: the time the group would take on
 * an unshared core, the figure to use when ranks share cores). */
#define DGNN_SNAP_DIST_MAX_RANKS 64
#define DGNN_SNAP_DIST_MAX_CELLS 4096 /* rounds x ranks kept per round (larger: not kept) */
typedef struct {
    int active;                   /* 1: a dygnex run */
    int64_t ranks, processes;     /* P of the schedule; processes 1 < P: emulated */
    int64_t rounds, windows;      /* per epoch */
    char scheduler[16], method[32];
    double solve_seconds, gap;    /* the scheduler's (sched.h) */
    int fallback;
    double pred_makespan, pred_mean, pred_imbalance;   /* cost-model seconds */
    double meas_makespan, meas_mean, meas_imbalance;   /* wall seconds */
    double cpu_makespan, cpu_mean, cpu_imbalance;      /* process CPU seconds */
    double epoch_seconds;         /* training wall seconds per epoch (rank 0) */
    double step_seconds;          /* Adam steps, per epoch (rank 0) */
    int64_t rank_windows[DGNN_SNAP_DIST_MAX_RANKS];    /* windows per epoch */
    double rank_pred[DGNN_SNAP_DIST_MAX_RANKS];        /* predicted compute */
    double rank_compute[DGNN_SNAP_DIST_MAX_RANKS];     /* measured compute, wall */
    double rank_cpu[DGNN_SNAP_DIST_MAX_RANKS];         /* measured compute, CPU */
    double rank_comm[DGNN_SNAP_DIST_MAX_RANKS];        /* blocked in the all-reduces (incl.
                                                          waiting for the slowest rank) */
    int per_round;                /* 1: the matrices below are filled (rounds x ranks fit) */
    double round_pred[DGNN_SNAP_DIST_MAX_CELLS];       /* (rounds, ranks) predicted group cost */
    double round_meas[DGNN_SNAP_DIST_MAX_CELLS];       /* (rounds, ranks) measured, wall */
    double round_cpu[DGNN_SNAP_DIST_MAX_CELLS];        /* (rounds, ranks) measured, CPU */
} dgnn_snap_dist_result;

typedef struct {
    int64_t num_epochs;
    dgnn_snap_epoch_result epochs[1024];
    int64_t best_epoch;         /* 0: none validated */
    int early_stopped;
    double test_map, test_mrr;  /* link (NaN for the other tasks) */
    double test_f1, test_precision, test_recall; /* edge: of class f1_class */
    double test_mse;            /* node */
    int64_t f1_class;           /* edge: the minority class of the training labels */
    int64_t label_counts[2];    /* edge: labels 0 and 1 over the training samples */
    double last_map, last_mrr;  /* the baseline_last figures on the same samples (NaN if not run) */
    double last_f1, last_mse;   /* edge / node baselines (NaN if not run) */
    double test_seconds;
    double train_windows_per_second;   /* over all training epochs */
    double train_snapshots_per_second; /* windows x (W + 1) */
    double train_events_per_second;    /* events of the windows' input snapshots */
    double eval_pairs_per_second;      /* all-pairs scoring + metrics, validation and test */
    double peak_rss_mb;
    int64_t num_snapshots, num_nodes, in_dim, num_params;
    int64_t train_begin, train_end, val_end, test_end; /* sample indices of the split */
    dgnn_snap_dist_result dist; /* the distributed mode's figures (active = 0 otherwise) */
    char device[128];           /* "cpu", or the GPU's name with cfg.use_cuda */
    int cuda_device;            /* the GPU this process used (cfg.use_cuda) */
} dgnn_snap_train_result;

/* Builds the snapshots of ev, trains and evaluates. res is overwritten.
 * Errors: DGNN_EINVAL (bad configuration, too few snapshots for the window and split, a
 * non-finite loss), DGNN_EIO (checkpoints), DGNN_ENOMEM. Distributed (cfg.dist): every
 * process calls it; rank 0's res holds the results. A process that fails returns its
 * error while the others may wait in a collective: the caller must end the job
 * (dgnn_comm_abort). */
int dgnn_snap_train(const dgnn_events *ev, const dgnn_snap_train_cfg *cfg, dgnn_snap_train_result *res,
                    dgnn_err *err);

/* ---- the pieces, for tests and other trainers ---- */

/* The distributed mode's schedule (dygnex_epoch.c), a collective: rank 0 schedules the n
 * windows (sample indices sample[0..n), predicted seconds cost[0..n)) on P ranks with d's
 * scheduler, rounds and time limit, or copies d->schedule, and broadcasts it; every
 * process returns the same *out. *info is rank 0's (method, gap, solve time; the other
 * processes get method "received"); with d->local, no broadcast. Errors (all processes
 * return them): DGNN_EINVAL for a
 * bad schedule or scheduler input (d->schedule: a sample outside sample[], twice, or a
 * rank count other than P). */
int dgnn_snap_dist_schedule(dgnn_sched *out, dgnn_sched_info *info, const dgnn_snap_dist_cfg *d, const double *cost,
                            const int64_t *sample, int64_t n, int64_t P, dgnn_err *err);
/* Makespan (sum over rounds of the row maximum) and mean sum (sum of the row means) of a
 * (R, P) matrix of group times; imbalance = makespan / mean - 1, 0 when mean is 0. */
double dgnn_snap_round_imbalance(const double *t, int64_t R, int64_t P, double *makespan, double *mean_sum);
/* Seconds of CPU this process has used (all its threads). */
double dgnn_snap_cpu_seconds(void);

/* ---- what DyGNeX's schedule is made from (dygnex_cost.c), for schedule, simulate and
 * train --dist dygnex ---- */

/* The training windows of ev under c, as the trainer would train them: cut as it cuts
 * (dgnn_snapshots_cut with c's snapshot length or count), split as it splits
 * (dgnn_snap_split with c's window and fractions), sized by dgnn_windows_of_snapshots
 * (c's negatives and hidden width). *win is malloc'd (*n entries). Errors: the cut's,
 * DGNN_EINVAL when the split leaves no training window. */
int dgnn_snap_cost_windows(dgnn_window **win, int64_t *n, const dgnn_events *ev, const dgnn_snap_train_cfg *c,
                           dgnn_err *err);

/* What dgnn_snap_cost_model fitted on (both 0 for the default law). */
typedef struct {
    int64_t rows;    /* the profile's rows of the model */
    int64_t matched; /* windows that took the profile's sizes */
} dgnn_snap_cost_fit;
/* The cost model of snapshot model `kind` (a dgnn_snapmodel_kind) for windows win[0..n):
 * profile NULL: the default law (c's window and widths, win[0]'s input width, rate as
 * dgnn_costmodel_default); else fitted with a 20% hold-out on the profile CSV's rows of
 * that model (at least 3), and every window the profile measured takes the profile's
 * sizes (win is updated). Errors (messages naming the file): DGNN_EIO / DGNN_EFORMAT
 * reading it, DGNN_EINVAL for fewer than 3 rows or a failed fit. */
int dgnn_snap_cost_model(dgnn_costmodel *cm, dgnn_snap_cost_fit *fit, dgnn_window *win, int64_t n, int kind,
                         const dgnn_snap_train_cfg *c, const char *profile, double rate, dgnn_err *err);

/* ---- what `dgnn bench train` measures besides the training (snap_bench.c) ---- */

/* The --synthetic sequence: dgnn gen's stream with the rate growing linearly by
 * DGNN_SNAP_SYNTH_GROWTH over the span and no bursts, so that T equal time windows of
 * duration / T are T snapshots of steadily growing size (issue #4's "1,000 snapshots of
 * growing size"; bursts would make a few windows 10x larger and hide the trend). Sizes
 * near bitcoin-alpha's (3,783 nodes, at most 1,686 nonzeros of A + A^T per snapshot):
 * 3,000 nodes and 500,000 events give T = 1,000 snapshots from about 110 to 900 events
 * (190 to 1,340 nonzeros), and an epoch of its 689 training samples takes under a minute
 * on one core. Cut it into T snapshots of o.duration / T (check it with dgnn_gen_check). */
#define DGNN_SNAP_SYNTH_NODES 3000
#define DGNN_SNAP_SYNTH_EVENTS 500000
#define DGNN_SNAP_SYNTH_GROWTH 10.0
dgnn_gen_opts dgnn_snap_synthetic_opts(int64_t nodes, int64_t events);

/* SpMM of the largest input snapshot's A_hat (by nnz; F = the hidden width) beside the
 * STREAM triad, both measured now for `seconds` each. */
typedef struct {
    int64_t snapshot, hat_nnz, num_nodes, hidden;
    double spmm_gbps, spmm_gflops, triad_gbps;
} dgnn_snap_bandwidth;
/* Cuts ev as the trainer does under c and measures. Errors: the cut's; DGNN_EINVAL "no
 * snapshot" when the cut holds none. */
int dgnn_snap_spmm_bandwidth(dgnn_snap_bandwidth *b, const dgnn_events *ev, const dgnn_snap_train_cfg *c,
                             double seconds, dgnn_err *err);

/* The trainer's data pieces live in src/data and its link metric with the others:
 * dgnn_snapshots_cut and dgnn_snap_degree_onehot (snapshot.h), dgnn_snap_split
 * (split.h), dgnn_snap_neg_pool and dgnn_snap_link_negatives (negative.h),
 * dgnn_snap_link_metrics (metrics.h). */

/* Edge classification labels of snapshot g (its entries in CSR order): label[e] = 1 when
 * the ratings (edge-feature column col of ev, events g->ev_begin .. g->ev_end) of the
 * entry's pair in both directions vote > 0 (+1 for a rating > 0, -1 otherwise), else 0.
 * g must be symmetric (A + A^T) and cut from ev. Errors: DGNN_EINVAL when ev has no such
 * column, or an event's pair is not an entry of g. */
int dgnn_snap_edge_labels(int32_t *label, const dgnn_snapshot *g, const dgnn_events *ev, int64_t col, dgnn_err *err);

/* Node regression data of a PGT table (num_periods P, period_y present): y (P, N) = the
 * first target column z-scored per node over the periods, x (P, N, *dim) = the period's
 * features (period_x_dim columns) followed by y. Both malloc'd. Errors: DGNN_EINVAL when
 * the table has no periods or no targets. */
int dgnn_snap_node_data(float **x, int64_t *dim, float **y, const dgnn_events *ev, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
