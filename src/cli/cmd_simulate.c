/* cmd_simulate.c: `dgnn simulate`: DyGNeX's cluster simulator (simulate.h): efficiency
 * T1 / (P TP) and imbalance per scheduler over a list of worker counts, for a real
 * dataset's training windows or a synthetic snapshot sequence; a table and an SVG plot.
 *
 * Families: "snapshot" (DyGNeX's windows: cmd_simulate_snap.c); "event" (DepBloom against
 * strict, issue 5: cmd_simulate_event.c; the model in src/cluster/simulate_event.c, the
 * measured runs and the checks against them in simulate_event_runs.c): one worker's
 * measured costs, the stream's rows and partitions, the same alpha-beta network; also
 * checks the model against measured multi-rank runs. This file parses the flags and
 * checks them, in the order their errors are reported, then runs the family. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_simulate.h"

/* --workers' default: the snapshot family's; the event family's when not given */
static const char k_default_workers[] = "1,2,4,8,16,32,64,128,256,512,1024,2048,4096";
static const char k_event_workers[] = "1,2,4,8,16,32,64,128,256,512";

/* The command line: the option table (its targets are the job's fields) and argv, which
 * the checks of flags given read. */
typedef struct {
    sim_job job;
    arg_opt opts[64];
    arg_spec spec;
    int argc;
    char **argv;
} sim_cmdline;

/* ---- flags that one family or one input acts on ------------------------------------ */

/* Where a flag has an effect. Given anywhere else it would be ignored while the output
 * reads as if it were used (the JSON records no such thing), so it is refused. Flags not
 * listed act in both families (--workers, --data, --net, --alpha, --beta, --allreduce,
 * --params, --svg, --json, the loading flags); --data and --synthetic choose the input
 * and have their own checks. */
enum { ON_EVENT = 1, ON_SNAP_DATA = 2, ON_SNAP_SYNTH = 4, ON_SNAP = ON_SNAP_DATA | ON_SNAP_SYNTH };
static const struct {
    const char *flag;
    int on;
} scoped_flags[] = {
    {"measured", ON_EVENT},      {"measured-strict", ON_EVENT}, {"measured-depbloom", ON_EVENT},
    {"refine", ON_EVENT},        {"refine-overhead", ON_EVENT}, {"window-events", ON_EVENT},
    {"window-seconds", ON_EVENT}, {"critical-path", ON_EVENT},  {"apply-gbps", ON_EVENT},
    {"row-bytes", ON_EVENT},     {"local-alpha", ON_EVENT},     {"local-beta", ON_EVENT},
    {"cores", ON_EVENT},         {"background", ON_EVENT},      {"model", ON_SNAP},
    {"preset", ON_SNAP},         {"window", ON_SNAP},           {"profile", ON_SNAP},
    {"rate", ON_SNAP},           {"schedulers", ON_SNAP},       {"rounds", ON_SNAP},
    {"time-limit", ON_SNAP},     {"snapshot-seconds", ON_SNAP_DATA}, {"pattern", ON_SNAP_SYNTH},
    {"nodes", ON_SNAP_SYNTH},    {"in-dim", ON_SNAP_SYNTH},     {"seed", ON_SNAP_SYNTH},
};

static const char *scope_name(int on) {
    return on == ON_EVENT ? "--family event" : on == ON_SNAP ? "--family snapshot"
           : on == ON_SNAP_DATA ? "--family snapshot --data FILE" : "--family snapshot --synthetic T";
}

/* This run is `here`: ON_EVENT, ON_SNAP_DATA or ON_SNAP_SYNTH (ON_SNAP: a snapshot run
 * whose input is not settled, checked by family only). Returns 2 with a message for the
 * first flag given that it would ignore, else 0. */
static int refuse_unused_flags(const sim_cmdline *c, int here) {
    for (size_t k = 0; k < sizeof scoped_flags / sizeof scoped_flags[0]; k++) {
        const int on = scoped_flags[k].on;
        if ((on & here) || !args_given(c->opts, c->argc, c->argv, scoped_flags[k].flag)) continue;
        fprintf(stderr, "dgnn simulate: --%s acts on %s only; a %s run would ignore it\n", scoped_flags[k].flag,
                scope_name(on), scope_name(here));
        return 2;
    }
    return 0;
}

/* ---- the lists -------------------------------------------------------------------- */

/* "1,2,4" -> values (ascending, in 1..CLI_MAX_WORKERS); returns the count or -1. Every
 * entry is digits: an empty one ("1,,2", "1,2,", ",1") is refused, as are signs and
 * spaces (strtoll alone would skip them). */
static int64_t parse_list(const char *s, int64_t *v, int64_t cap) {
    int64_t n = 0;
    const char *p = s;
    while (*p) {
        if (*p < '0' || *p > '9') return -1;
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (errno == ERANGE || x < 1 || x > CLI_MAX_WORKERS || n == cap || (n > 0 && x <= v[n - 1])) return -1;
        v[n++] = x;
        if (*end == ',' && end[1] == '\0') return -1;
        if (*end == ',') end++;
        else if (*end) return -1;
        p = end;
    }
    return n;
}

/* --workers (list: the flag's value, or the family's default) into j->W; 0, or 2 with
 * the message */
static int parse_workers(sim_job *j, const char *list) {
    j->npts = parse_list(list, j->W, SIM_MAX_POINTS);
    if (j->npts < 1) {
        fprintf(stderr, "dgnn simulate: --workers: expected at most 64 ascending integers in 1..%d separated by commas, got "
                        "'%s'\n", CLI_MAX_WORKERS,
                list);
        return 2;
    }
    return 0;
}

/* "even,greedy" -> kinds[0..] (at most 3, each once, in the order given: the table's
 * columns and the JSON's keys); returns the count, or -1 with the message printed. */
static int64_t parse_schedulers(const char *s, int64_t kinds[3]) {
    int64_t nk = 0;
    for (const char *p = s;; p++) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            fprintf(stderr, "dgnn simulate: --schedulers: empty entry in '%s' (a list such as even,greedy,ilp)\n", s);
            return -1;
        }
        char name[16];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        const int k = len < sizeof name ? dgnn_sched_kind_parse(name) : -1;
        if (k < 0) {
            fprintf(stderr, "dgnn simulate: --schedulers: '%.*s' is not a scheduler (even, greedy, ilp)\n", (int)len, p);
            return -1;
        }
        for (int64_t j = 0; j < nk; j++)
            if (kinds[j] == k) {
                fprintf(stderr, "dgnn simulate: --schedulers: '%s' is given twice in '%s' (each scheduler once)\n",
                        name, s);
                return -1;
            }
        kinds[nk++] = k; /* 3 distinct kinds at most: nk stays <= 3 */
        if (!end) return nk;
        p = end;
    }
}

/* ---- the flags -------------------------------------------------------------------- */

/* c's job at its defaults, the option table (the flags' targets are the job's fields) and
 * the command's help */
static void cmdline_init(sim_cmdline *c, int argc, char **argv) {
    sim_job *j = &c->job;
    *j = (sim_job){.family = "snapshot", .workers = k_default_workers, .net_preset = "ib", .allreduce = "auto",
                   .alpha = CLI_UNSET_F, .beta = CLI_UNSET_F, .pattern = "growing", .model = "evolvegcn-o",
                   .preset = "bitcoin-alpha", .schedulers = "even,greedy", .window = CLI_UNSET, .seed = 1,
                   .nodes = 10000, .in_dim = 100, .snapshot_seconds = CLI_UNSET_F, .time_limit = 10, .refine = 1,
                   .apply_gbps = 0,        /* 0: the step curve's measured rate, else 10 (memcpy-class
                                              unpacking on one core) */
                   .local_alpha = 2e-6,    /* Open MPI over shared memory here (measured: docs/depbloom.md) */
                   .local_beta = 1.0 / 1e9,
                   .cores = -1};           /* -1: this machine's online cores */
    const arg_opt opts[] = {
        {"family", ARG_STRING, &j->family, "F", "snapshot (DyGNeX, default) or event (DepBloom against strict)"},
        {"workers", ARG_STRING, &j->workers, "LIST", "worker counts, ascending (snapshot 1,2,4,...,4096; event 1,2,4,...,512)"},
        {"data", ARG_STRING, &j->data, "FILE", "a real dataset's training windows (cut as the trainer does) ..."},
        CLI_LOAD_OPTS(j->lf),
        {"synthetic", ARG_INT, &j->synthetic, "T", "... or a synthetic sequence of T snapshots (at least window + 2)",
         ARG_IN(1, CLI_MAX_SNAPSHOTS)},
        {"pattern", ARG_STRING, &j->pattern, "P", "synthetic sizes: growing (default) or bursty"},
        {"nodes", ARG_INT, &j->nodes, "N", "synthetic: node count (10000)", ARG_IN(1, 1e9)},
        {"in-dim", ARG_INT, &j->in_dim, "V", "synthetic: one-hot input width (100)", ARG_IN(1, 65536)},
        {"seed", ARG_INT, &j->seed, "S", "synthetic: generator seed (1)", ARG_MIN(0)},
        {"model", ARG_STRING, &j->model, "M", "snapshot: evolvegcn-o (default), evolvegcn-h, tgcn, gcrn-gru, wdgcn, gcn"},
        {"preset", ARG_STRING, &j->preset, "P", "the trainer's configuration: bitcoin-alpha (default) or uci"},
        {"snapshot-seconds", ARG_DOUBLE, &j->snapshot_seconds, "S", "--data: snapshot length in time units", ARG_ABOVE(0)},
        {"window", ARG_INT, &j->window, "W", "a window reads snapshots t-W..t (10)", ARG_IN(0, CLI_MAX_WINDOW)},
        {"profile", ARG_STRING, &j->profile, "CSV", "fit the cost model on the trainer's profile (else the default law)"},
        {"rate", ARG_DOUBLE, &j->rate, "F", "default cost law: nominal FLOP/s (5e10)", ARG_ABOVE(0)},
        {"schedulers", ARG_STRING, &j->schedulers, "LIST", "even,greedy (default); add ilp for the ILP (time-limited)"},
        {"rounds", ARG_INT, &j->rounds, "R",
         "greedy/ilp rounds per epoch (default, or 0: the R in C - 7 .. C with R >= 0.9 C, C = ceil(windows / P), "
         "whose greedy schedule has the lowest makespan; ties: the larger R)",
         ARG_MIN(0)},
        {"time-limit", ARG_DOUBLE, &j->time_limit, "S", "ilp: time limit per point (10)", ARG_IN_OPEN_LO(0, CLI_MAX_SECONDS)},
        {"net", ARG_STRING, &j->net_preset, "NET", "all-reduce network preset: ib (default) or nvlink"},
        {"alpha", ARG_DOUBLE, &j->alpha, "S", "override: latency per message, seconds", ARG_MIN(0)},
        {"beta", ARG_DOUBLE, &j->beta, "S_PER_BYTE", "override: seconds per byte", ARG_MIN(0)},
        {"allreduce", ARG_STRING, &j->allreduce, "A", "ring, tree or auto (default: the cheaper at each P, as NCCL picks)"},
        {"params", ARG_INT, &j->params, "N", "gradient size in floats (default: the model's parameter count)",
         ARG_IN(1, 1e13)},
        {"svg", ARG_STRING, &j->svg, "FILE", "write the scaling plot"},
        {"json", ARG_STRING, &j->json, "FILE", "write the table as JSON"},
        {"measured", ARG_STRING, &j->measured, "LIST", "event: single-rank `dgnn train --out` runs (2 batch sizes: per-step cost fitted), or a `dgnn bench train --step-curve LIST --out` run (its measured step times, CPU or GPU)"},
        {"measured-strict", ARG_STRING, &j->m_strict, "LIST", "event: multi-rank strict runs to check the model against"},
        {"measured-depbloom", ARG_STRING, &j->m_depbloom, "LIST", "event: multi-rank depbloom runs to check it against"},
        {"refine", ARG_INT, &j->refine, "K", "event: depbloom micro-batches per step (1)", ARG_IN(1, 1024)},
        {"refine-overhead", ARG_DOUBLE, &j->refine_overhead, "F", "event: refinement's extra compute per event, fraction (0)",
         ARG_IN(0, 100)},
        {"window-events", ARG_INT, &j->window_events, "N", "event: depbloom window (default: the depbloom run's, or 10000)",
         ARG_MIN(1)},
        {"window-seconds", ARG_DOUBLE, &j->window_seconds, "S", "event: depbloom windows of S time units instead", ARG_ABOVE(0)},
        {"critical-path", ARG_FLAG, &j->critical_path, NULL, "event: depbloom samples beside compute (prefetch)"},
        {"apply-gbps", ARG_DOUBLE, &j->apply_gbps, "G", "event: GB/s of applying received rows (the step curve's, else 10)", ARG_ABOVE(0)},
        {"row-bytes", ARG_DOUBLE, &j->row_bytes, "N", "event: bytes of a node's state row (default: from the run's model)",
         ARG_ABOVE(0)},
        {"local-alpha", ARG_DOUBLE, &j->local_alpha, "S", "event, checks: this machine's MPI latency (2e-6)", ARG_MIN(0)},
        {"local-beta", ARG_DOUBLE, &j->local_beta, "S_PER_BYTE", "event, checks: this machine's MPI s/byte (1e-9)", ARG_MIN(0)},
        {"cores", ARG_DOUBLE, &j->cores, "C", "event, checks: cores the measured ranks shared, a share under load (default: this machine's)",
         ARG_IN_OPEN_LO(0, 1e6)},
        {"background", ARG_DOUBLE, &j->background, "L", "event, checks: other runnable threads on those cores (0)", ARG_IN(0, 1e6)},
        {NULL, 0, NULL, NULL, NULL},
    };
    _Static_assert(sizeof opts <= sizeof c->opts, "sim_cmdline.opts holds the table");
    memcpy(c->opts, opts, sizeof opts);
    c->spec = (arg_spec){.cmd = "simulate",
                         .usage = "dgnn simulate --family snapshot [--data FILE | --synthetic T --pattern growing|bursty] "
                                  "[options]\n       dgnn simulate --family event --measured RUN.json[,RUN2.json] [--data FILE] "
                                  "[--measured-strict R.json,...] [--measured-depbloom R.json,...] [options]",
                         .summary = "Predicts data-parallel scaling of DyGNeX schedules: for each worker count P, schedules\n"
                                    "the windows, then TP = makespan + rounds x all-reduce(gradient bytes) (alpha-beta\n"
                                    "model), T1 = total cost, efficiency = T1 / (P TP). Costs from the cost model (the\n"
                                    "default FLOP law unless --profile).\n"
                                    "--family event: strict and DepBloom epoch time per P from one worker's measured costs\n"
                                    "(dgnn train --out JSON), the stream's rows per step and DepBloom's partition at each\n"
                                    "P, and the same network model; checks itself against measured multi-rank runs\n"
                                    "(docs/depbloom.md, \"Simulator (event family)\").",
                         .opts = c->opts, .min_pos = 0, .max_pos = 0};
    c->argc = argc, c->argv = argv;
}

/* What holds for either family: one process, a known family (and no --synthetic for the
 * event one), no flag that this run would ignore, outputs that can be written. 0, or 2
 * with a message. */
static int check_command(sim_cmdline *c) {
    sim_job *j = &c->job;
    /* one process simulates: under mpirun each copy would print and write the same */
    if (cli_refuse_copies("simulate", "dgnn simulate runs in one process, and each would simulate alone and write "
                                      "the same outputs: run it without mpirun"))
        return 2;
    j->event = strcmp(j->family, "event") == 0;
    if (!j->event && strcmp(j->family, "snapshot") != 0) {
        fprintf(stderr, "dgnn simulate: --family: unknown family '%s' (snapshot, event)\n", j->family);
        return 2;
    }
    if (j->event && j->synthetic > 0) {
        fprintf(stderr, "dgnn simulate: --family event: --synthetic T (a snapshot sequence) is not built yet for "
                        "the event family; give --measured RUN.json and --data FILE (or the run's own dataset)\n");
        return 2;
    }
    /* a flag this run would ignore, before anything is read (both or neither of --data and
     * --synthetic: refused below, the snapshot flags checked by family only) */
    const int here = j->event                                    ? ON_EVENT
                     : (j->data != NULL) == (j->synthetic > 0) ? ON_SNAP
                     : j->data                                 ? ON_SNAP_DATA
                                                               : ON_SNAP_SYNTH;
    if (refuse_unused_flags(c, here)) return 2;
    /* before any simulation; never an input (a measured run's JSON among them) */
    const cli_output outs[] = {{"--svg", j->svg, CLI_OUT_FILE},       {"--json", j->json, CLI_OUT_FILE},
                               {"--data", j->data, CLI_IN},           {"--profile", j->profile, CLI_IN},
                               {"--measured", j->measured, CLI_IN_LIST}, {"--measured-strict", j->m_strict, CLI_IN_LIST},
                               {"--measured-depbloom", j->m_depbloom, CLI_IN_LIST}};
    return cli_check_outputs("simulate", outs, 7) ? 2 : 0;
}

/* The network: --net's preset, --alpha and --beta over it (a negative one is refused by
 * the option table), --allreduce. 0, or 2 with a message. */
static int net_settings(sim_job *j) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_net_preset(&j->net, j->net_preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    if (CLI_GIVEN_F(j->alpha)) j->net.alpha = j->alpha, j->net.name = "custom";
    if (CLI_GIVEN_F(j->beta)) j->net.beta = j->beta, j->net.name = "custom";
    if (dgnn_allreduce_parse(&j->net, j->allreduce, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* --family event's settings: the worker counts (its own default list), --measured, the
 * network. 0, or 2 with a message. */
static int event_settings(sim_job *j) {
    if (parse_workers(j, j->workers == k_default_workers ? k_event_workers : j->workers)) return 2;
    if (!j->measured) {
        fprintf(stderr, "dgnn simulate: --family event needs --measured RUN.json (a single-rank `dgnn train --out` "
                        "run; two with different --batch fit the per-step cost)\n");
        return 2;
    }
    return net_settings(j);
}

/* --schedulers, and the settings that no listed scheduler reads (refused, as dgnn
 * schedule refuses them). 0, or 2 with a message. */
static int scheduler_settings(const sim_cmdline *c, sim_job *j) {
    if ((j->nk = parse_schedulers(j->schedulers, j->kinds)) < 0) return 2;
    int has_ilp = 0, only_even = 1;
    for (int64_t k = 0; k < j->nk; k++) {
        has_ilp |= j->kinds[k] == DGNN_SCHED_ILP;
        only_even &= j->kinds[k] == DGNN_SCHED_EVEN;
    }
    if (args_given(c->opts, c->argc, c->argv, "time-limit") && !has_ilp) {
        fprintf(stderr, "dgnn simulate: --time-limit is the ILP's (add ilp to --schedulers); '%s' does not read it\n",
                j->schedulers);
        return 2;
    }
    if (args_given(c->opts, c->argc, c->argv, "rounds") && only_even) {
        fprintf(stderr, "dgnn simulate: --rounds applies to the greedy and ilp schedulers: the even scheduler's rounds "
                        "are ceil(windows / P), one window per rank and round\n");
        return 2;
    }
    return 0;
}

/* The snapshot model and its trainer's configuration: --model, the cost law, the input
 * (one of --data and --synthetic), --preset, --window, --snapshot-seconds. 0, or 2 with a
 * message. */
static int snapshot_model_settings(sim_job *j) {
    if ((j->kind = cli_snap_model_kind("simulate", j->model)) < 0) return 2;
    if (j->profile && j->rate > 0) {
        fprintf(stderr, "dgnn simulate: --rate sets the default cost law, which --profile replaces (give one)\n");
        return 2;
    }
    if ((j->data != NULL) == (j->synthetic > 0)) {
        fprintf(stderr, "dgnn simulate: give --data FILE or --synthetic T (one of them)\n");
        return 2;
    }
    if (j->synthetic > 0 &&
        cli_load_flags_unused_why("simulate", &j->lf, "--synthetic T simulates a generated sequence, which would ignore it"))
        return 2;
    j->cfg = dgnn_snap_train_cfg_default((dgnn_snapmodel_kind)j->kind);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_train_preset(&j->cfg, j->preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn simulate: --preset: %s\n", err.msg);
        return 2;
    }
    if (j->window != CLI_UNSET) j->cfg.window = j->window;
    if (CLI_GIVEN_F(j->snapshot_seconds)) j->cfg.snapshot_seconds = j->snapshot_seconds, j->cfg.snapshot_count = 0;
    return 0;
}

/* --family snapshot's settings, in the order their errors are reported. 0, or 2. */
static int snapshot_settings(sim_cmdline *c) {
    sim_job *j = &c->job;
    if (parse_workers(j, j->workers) || scheduler_settings(c, j) || net_settings(j)) return 2;
    return snapshot_model_settings(j);
}

/* The flags parsed, checked and settled, then the family run on them. The exit status. */
static int simulate(sim_cmdline *c) {
    int rc = args_parse(&c->spec, c->argc, c->argv);
    if (rc) return rc > 0 ? 0 : 2; /* --help shown, or a bad flag */
    if ((rc = check_command(c)) != 0) return rc;
    sim_job *j = &c->job;
    if ((rc = j->event ? event_settings(j) : snapshot_settings(c)) != 0) return rc;
    return j->event ? sim_event_run(j) : sim_snapshot_run(j);
}

int cmd_simulate(int argc, char **argv) {
    sim_cmdline *c = dgnn_xmalloc(sizeof *c);
    cmdline_init(c, argc, argv);
    const int rc = simulate(c);
    free(c);
    return rc;
}
