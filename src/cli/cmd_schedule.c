/* cmd_schedule.c: `dgnn schedule`: DyGNeX's schedule of a snapshot dataset's training
 * windows on P workers (sched.h): the per-round, per-rank load table, the imbalance and
 * the predicted makespan, a JSON form a trainer can read (rounds -> ranks -> sample
 * indices), and an SVG Gantt chart.
 *
 * Also holds what simulate and train --dist dygnex share with it (cli.h): the --model
 * check, and the thin wrappers that load a dataset and print the windows' and the cost
 * model's library calls (dgnn_snap_cost_windows, dgnn_snap_cost_model). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dgnn/costmodel.h"
#include "dgnn/sched.h"
#include "dgnn/svg.h"
#include "dgnn/snap_train.h"

int cli_snap_model_kind(const char *cmd, const char *model) {
    if (!model) {
        fprintf(stderr, "dgnn %s: --model is required (%s)\n", cmd, CLI_SNAP_MODELS);
        return -1;
    }
    dgnn_snapmodel_kind k;
    if (dgnn_snapmodel_kind_parse(model, &k) == 0) return (int)k;
    fprintf(stderr, "dgnn %s: --model: '%s' is not a snapshot model (%s)\n", cmd, model, CLI_SNAP_MODELS);
    return -1;
}

int cli_snap_cost_model(const char *cmd, dgnn_costmodel *cm, dgnn_window *win, int64_t n, int kind,
                        const dgnn_snap_train_cfg *c, const char *profile, double rate, int quiet) {
    dgnn_snap_cost_fit fit;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_cost_model(cm, &fit, win, n, kind, c, profile, rate, &err) != DGNN_OK) {
        /* the library names the file; the flag is the command's: train --dist dygnex reads
         * --cost-profile (its --profile is an output), schedule and simulate --profile */
        fprintf(stderr, "dgnn %s: %s: %s\n", cmd, strcmp(cmd, "train") == 0 ? "--cost-profile" : "--profile", err.msg);
        return 1;
    }
    if (quiet) return 0;
    if (!profile)
        printf("cost model    DEFAULT LAW (not measured): FLOP count of %s at a nominal %.3g FLOP/s (calibrated once, docs/dygnex.md); pass "
               "--profile CSV for measured costs\n",
               dgnn_snapmodel_name((dgnn_snapmodel_kind)kind), cm->flops_per_second);
    else
        printf("cost model    fitted on %lld rows of %s: seconds = %.3g*edges_window*hidden + %.3g*edges*hidden + "
               "%.3g*nodes*hidden + %.3g*label_pairs + %.3g\n"
               "              error: %.1f%% MAPE on the fitted rows, %.1f%% on %lld held-out rows (fitted on the "
               "other %lld); %lld of %lld windows take the profile's sizes\n",
               (long long)fit.rows, profile, cm->coef[0], cm->coef[1], cm->coef[2], cm->coef[3], cm->coef[4],
               100 * cm->fit_mape, 100 * cm->holdout_mape, (long long)cm->holdout_rows,
               (long long)(fit.rows - cm->holdout_rows), (long long)fit.matched, (long long)n);
    return 0;
}

int cli_snap_windows(const char *cmd, const char *data, const cli_load_flags *lf, dgnn_snap_train_cfg *c,
                     dgnn_window **win_out, int64_t *n_out, int64_t *num_nodes) {
    dgnn_events ev;
    dgnn_events_init(&ev);
    if (cli_load(cmd, data, lf, &ev)) return 1;
    dgnn_err err;
    dgnn_err_clear(&err);
    int rc = dgnn_snap_cost_windows(win_out, n_out, &ev, c, &err);
    *num_nodes = ev.num_nodes;
    dgnn_events_free(&ev);
    if (rc) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        return 1;
    }
    return 0;
}

/* one cell of the table: milliseconds */
static void ms_cell(char *b, size_t cap, double s) { snprintf(b, cap, "%.2f", 1e3 * s); }

static void print_table(const dgnn_sched *s) {
    const int64_t P = s->num_ranks, R = s->num_rounds;
    const int full = P <= 8;
    const int64_t show = R <= 40 ? R : 30;
    char b[64];
    printf("\nload per round (ms)%s\n", full ? "" : ": per-round summary over the ranks");
    if (full) {
        printf("%6s", "round");
        for (int64_t p = 0; p < P; p++) printf(" %9s%lld", "rank", (long long)p);
        printf(" %10s %10s\n", "max", "mean");
    } else {
        printf("%6s %8s %10s %10s %10s %7s\n", "round", "windows", "min", "mean", "max", "idle");
    }
    double *tot = calloc((size_t)P, sizeof(double));
    for (int64_t r = 0; r < R; r++) {
        double mx = 0, mn = INFINITY, sum = 0;
        int64_t nw = 0;
        for (int64_t p = 0; p < P; p++) {
            double c = dgnn_sched_group_cost(s, r, p);
            int64_t cnt;
            dgnn_sched_group(s, r, p, &cnt);
            nw += cnt, sum += c, tot[p] += c;
            mx = c > mx ? c : mx, mn = c < mn ? c : mn;
        }
        if (r == show && show < R) printf("%6s (rounds %lld..%lld not shown)\n", "...", (long long)show, (long long)(R - 2));
        if (r >= show && r != R - 1) continue;
        printf("%6lld", (long long)r);
        if (full) {
            for (int64_t p = 0; p < P; p++) {
                int64_t cnt;
                dgnn_sched_group(s, r, p, &cnt);
                ms_cell(b, sizeof b, dgnn_sched_group_cost(s, r, p));
                printf(" %7s(%lld)", b, (long long)cnt);
            }
            printf(" %10.2f %10.2f\n", 1e3 * mx, 1e3 * sum / (double)P);
        } else {
            printf(" %8lld %10.2f %10.2f %10.2f %6.1f%%\n", (long long)nw, 1e3 * mn, 1e3 * sum / (double)P, 1e3 * mx,
                   mx > 0 ? 100 * (1 - sum / (double)P / mx) : 0);
        }
    }
    if (full) {
        printf("%6s", "total");
        for (int64_t p = 0; p < P; p++) printf(" %10.2f", 1e3 * tot[p]);
        printf("\n");
    }
    free(tot);
}

static cJSON *sched_json(const dgnn_sched *s, const dgnn_sched_metrics *m, const dgnn_sched_info *info,
                         const char *model, const char *scheduler, const dgnn_costmodel *cm) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "model", model);
    cJSON_AddStringToObject(o, "scheduler", scheduler);
    cJSON_AddStringToObject(o, "method", info->method);
    cJSON_AddNumberToObject(o, "workers", (double)s->num_ranks);
    cJSON_AddNumberToObject(o, "rounds", (double)s->num_rounds);
    cJSON_AddNumberToObject(o, "rounds_below_ceil", info->rounds_below_ceil);
    cJSON_AddNumberToObject(o, "windows", (double)s->num_windows);
    cJSON_AddNumberToObject(o, "imbalance", m->imbalance);
    cJSON_AddNumberToObject(o, "makespan", m->makespan);
    cJSON_AddNumberToObject(o, "mean_makespan", m->mean_sum);
    cJSON_AddNumberToObject(o, "lower_bound", info->bound);
    cJSON_AddNumberToObject(o, "gap", info->gap);
    cJSON_AddBoolToObject(o, "optimal", info->optimal);
    cJSON_AddNumberToObject(o, "solve_seconds", info->solve_seconds);
    cJSON_AddBoolToObject(o, "fallback", info->fallback);
    cJSON_AddStringToObject(o, "message", info->msg);
    cJSON *c = cJSON_AddObjectToObject(o, "cost_model");
    cJSON_AddStringToObject(c, "source", cm->fitted ? "profile" : "default");
    cJSON *co = cJSON_AddArrayToObject(c, "coef");
    for (int k = 0; k < DGNN_COST_NFEAT; k++) cJSON_AddItemToArray(co, cJSON_CreateNumber(cm->coef[k]));
    cJSON_AddStringToObject(c, "features", "edges_window*hidden,edges*hidden,nodes*hidden,label_pairs,1");
    if (cm->fitted) {
        cJSON_AddNumberToObject(c, "fit_mape", cm->fit_mape);
        cJSON_AddNumberToObject(c, "holdout_mape", cm->holdout_mape);
    }
    /* the schedule a trainer reads: rounds[r].groups[p] = sample indices of rank p */
    cJSON *rs = cJSON_AddArrayToObject(o, "schedule");
    for (int64_t r = 0; r < s->num_rounds; r++) {
        cJSON *ro = cJSON_CreateObject();
        cJSON *gs = cJSON_AddArrayToObject(ro, "groups");
        cJSON *cs = cJSON_AddArrayToObject(ro, "cost");
        for (int64_t p = 0; p < s->num_ranks; p++) {
            int64_t cnt;
            const int64_t *g = dgnn_sched_group(s, r, p, &cnt);
            cJSON *a = cJSON_CreateArray();
            for (int64_t i = 0; i < cnt; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)s->sample[g[i]]));
            cJSON_AddItemToArray(gs, a);
            cJSON_AddItemToArray(cs, cJSON_CreateNumber(dgnn_sched_group_cost(s, r, p)));
        }
        cJSON_AddItemToArray(rs, ro);
    }
    return o;
}

/* cmd_train.c: 1 after the message when an MPI launcher started this process as one of
 * several (declared here until cli.h has it) */

static int schedule_main(int argc, char **argv, const cli_train_embed *embed) {
    cli_load_flags lf = {0};
    const char *model = NULL, *data = NULL, *scheduler = "greedy", *profile = NULL, *svg = NULL, *preset = "bitcoin-alpha";
    int64_t workers = 0, window = CLI_UNSET, rounds = CLI_UNSET, count = CLI_UNSET;
    double seconds = CLI_UNSET_F, time_limit = CLI_UNSET_F, rate = 0;
    int json = 0;
    arg_opt opts[] = {
        {"data", ARG_STRING, &data, "FILE", "event stream (any format), cut into snapshots as the trainer does"},
        CLI_LOAD_OPTS(lf),
        {"model", ARG_STRING, &model, "M", CLI_SNAP_MODELS},
        {"workers", ARG_INT, &workers, "P", "ranks (data-parallel workers)", ARG_IN(1, CLI_MAX_WORKERS)},
        {"scheduler", ARG_STRING, &scheduler, "S", "even, greedy (default) or ilp"},
        {"profile", ARG_STRING, &profile, "CSV", "the trainer's per-window profile (dgnn train --profile): fit the cost model"},
        {"preset", ARG_STRING, &preset, "P", "the trainer's configuration: bitcoin-alpha (default) or uci"},
        {"snapshot-seconds", ARG_DOUBLE, &seconds, "S", "snapshot length in time units (bitcoin-alpha 1200000, uci 190080)",
         ARG_ABOVE(0)},
        {"snapshots", ARG_INT, &count, "C", "instead: C snapshots of equal time span", ARG_IN(1, CLI_MAX_SNAPSHOTS)},
        {"window", ARG_INT, &window, "W", "a window reads snapshots t-W..t (10)", ARG_IN(0, CLI_MAX_WINDOW)},
        {"rounds", ARG_INT, &rounds, "R",
         "greedy/ilp: rounds (optimizer steps) per epoch (default, or 0: the R in C - 7 .. C with R >= 0.9 C, "
         "C = ceil(windows / P), whose greedy schedule has the lowest makespan; ties: the larger R)",
         ARG_MIN(0)},
        {"time-limit", ARG_DOUBLE, &time_limit, "S", "ilp: solver time limit in seconds (10)",
         ARG_IN_OPEN_LO(0, CLI_MAX_SECONDS)},
        {"rate", ARG_DOUBLE, &rate, "F", "default cost law: nominal FLOP/s (5e10)", ARG_ABOVE(0)},
        {"json", ARG_FLAG, &json, NULL, "print JSON (imbalance, makespan, the schedule) instead of the table"},
        {"svg", ARG_STRING, &svg, "FILE", "write a Gantt chart of the schedule"},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = "schedule",
                     .usage = "dgnn schedule --data FILE --model M --workers P [--scheduler even|greedy|ilp] [options]",
                     .summary = "DyGNeX: schedules the training windows of a snapshot model on P data-parallel workers.\n"
                                "A round is one optimizer step; in each round every rank trains a group of windows\n"
                                "(from any time positions) and the gradients are all-reduced. Prints the load per\n"
                                "round and rank from the cost model, the imbalance (makespan / sum of the rounds'\n"
                                "mean rank - 1) and the predicted makespan of one epoch (docs/dygnex.md).",
                     .opts = opts, .min_pos = 0, .max_pos = 0};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    if (embed) { /* cli_schedule_embedded: the caller's events, the JSON into its string */
        if (data) {
            fprintf(stderr, "dgnn schedule: --data: the events are given as arrays (dgnn.schedule's data)\n");
            return 2;
        }
        if ((rc = cli_load_flags_unused("schedule", &lf)) != 0) return rc;
        data = embed->dataset ? embed->dataset : "arrays";
        json = 1;
    }
    /* before loading and scheduling (an ILP may take long); never an input */
    const cli_output outs[] = {{"--svg", svg, CLI_OUT_FILE}, {"--data", embed ? embed->source : data, CLI_IN},
                               {"--profile", profile, CLI_IN}};
    if (cli_check_outputs("schedule", outs, 3)) return 2;
    int kind = cli_snap_model_kind("schedule", model);
    if (kind < 0) return 2;
    if (profile && rate > 0) {
        fprintf(stderr, "dgnn schedule: --rate sets the default cost law, which --profile replaces (give one)\n");
        return 2;
    }
    if (!data) {
        fprintf(stderr, "dgnn schedule: --data FILE is required\n");
        return 2;
    }
    if (workers < 1) { /* 0: not given (the table refuses a typed value below 1) */
        fprintf(stderr, "dgnn schedule: --workers P (>= 1) is required\n");
        return 2;
    }
    int sk = dgnn_sched_kind_parse(scheduler);
    if (sk < 0) {
        fprintf(stderr, "dgnn schedule: --scheduler: unknown scheduler '%s' (even, greedy, ilp)\n", scheduler);
        return 2;
    }
    /* a setting the scheduler does not read would be ignored: refused */
    if (CLI_GIVEN_F(time_limit) && sk != DGNN_SCHED_ILP) {
        fprintf(stderr, "dgnn schedule: --time-limit is the ILP's (--scheduler ilp); the %s scheduler does not read it\n",
                scheduler);
        return 2;
    }
    if (rounds != CLI_UNSET && sk == DGNN_SCHED_EVEN) {
        fprintf(stderr, "dgnn schedule: --rounds applies to --scheduler greedy and ilp: the even scheduler's rounds are "
                        "ceil(windows / P), one window per rank and round\n");
        return 2;
    }
    if (rounds == CLI_UNSET) rounds = 0; /* the automatic count */
    if (!CLI_GIVEN_F(time_limit)) time_limit = 10;
    /* one process schedules: under mpirun each copy would print and write the same */
    if (!embed && cli_refuse_copies("schedule", "dgnn schedule runs in one process, and each would schedule alone and "
                                                "write the same outputs: run it without mpirun"))
        return 2;
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default((dgnn_snapmodel_kind)kind);
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_snap_train_preset(&c, preset, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn schedule: --preset: %s\n", err.msg);
        return 2;
    }
    if (CLI_GIVEN_F(seconds) && count != CLI_UNSET) {
        fprintf(stderr, "dgnn schedule: give --snapshot-seconds or --snapshots, not both\n");
        return 2;
    }
    if (CLI_GIVEN_F(seconds)) c.snapshot_seconds = seconds, c.snapshot_count = 0;
    if (count != CLI_UNSET) c.snapshot_count = count, c.snapshot_seconds = 0;
    if (window != CLI_UNSET) c.window = window;

    dgnn_window *win = NULL;
    int64_t n = 0, N = 0;
    if (embed) {
        if (dgnn_snap_cost_windows(&win, &n, embed->events, &c, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn schedule: %s\n", err.msg);
            return 1;
        }
    } else if (cli_snap_windows("schedule", data, &lf, &c, &win, &n, &N)) {
        return 1;
    }
    /* greedy and ilp fill R rounds, none empty (even takes no --rounds): refused before any
     * output */
    if (sk != DGNN_SCHED_EVEN && rounds > n) {
        fprintf(stderr, "dgnn schedule: --rounds %lld is more than the %lld training windows of %s\n", (long long)rounds,
                (long long)n, data);
        free(win);
        return 2;
    }
    if (!json)
        printf("%s: %lld training windows (samples %lld..%lld, window %lld), model %s, %lld workers, scheduler %s\n",
               data, (long long)n, (long long)win[0].sample, (long long)win[n - 1].sample, (long long)c.window,
               dgnn_snapmodel_name((dgnn_snapmodel_kind)kind), (long long)workers, scheduler);
    dgnn_costmodel cm;
    if (cli_snap_cost_model("schedule", &cm, win, n, kind, &c, profile, rate, json)) {
        free(win);
        return 1;
    }
    double *cost = dgnn_xmalloc((size_t)n * sizeof(double));
    int64_t *sample = dgnn_xmalloc((size_t)n * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) cost[i] = dgnn_costmodel_predict(&cm, &win[i]), sample[i] = win[i].sample;
    free(win);
    dgnn_sched_opts o = dgnn_sched_opts_default();
    o.kind = (dgnn_sched_kind)sk, o.ranks = workers, o.rounds = rounds, o.time_limit = time_limit;
    dgnn_sched s;
    dgnn_sched_info info;
    rc = dgnn_schedule(&s, cost, sample, n, &o, &info, &err);
    free(cost), free(sample);
    if (rc) { /* the library's message names its module: "schedule: ..." */
        const char *msg = strncmp(err.msg, "schedule: ", 10) == 0 ? err.msg + 10 : err.msg;
        fprintf(stderr, "dgnn schedule: %s\n", msg);
        return rc == DGNN_EINVAL ? 2 : 1;
    }
    DGNN_ASSERT(dgnn_sched_validate(&s, &err) == DGNN_OK);
    dgnn_sched_metrics m;
    dgnn_sched_eval(&s, &m);
    int ret = 0;
    if (json) {
        cJSON *o2 = sched_json(&s, &m, &info, dgnn_snapmodel_name((dgnn_snapmodel_kind)kind), scheduler, &cm);
        char *text = cJSON_Print(o2);
        cJSON_Delete(o2);
        if (embed && embed->json) *embed->json = text, text = NULL; /* the caller frees it */
        else if (text) puts(text);
        free(text);
    } else {
        print_table(&s);
        printf("\nscheduler     %s (%s), %lld rounds x %lld ranks, %.3f s to schedule\n", scheduler, info.method,
               (long long)s.num_rounds, (long long)s.num_ranks, info.solve_seconds);
        if (info.rounds_below_ceil)
            printf("rounds        %lld: %d fewer than ceil(windows / P) = %lld, a lower makespan (automatic rounds)\n",
                   (long long)s.num_rounds, info.rounds_below_ceil, (long long)s.num_rounds + info.rounds_below_ceil);
        printf("makespan      %.4g s predicted per epoch (%s costs); ideal (total / P) %.4g s\n", m.makespan,
               cm.fitted ? "fitted" : "DEFAULT-LAW", m.mean_sum);
        printf("imbalance     %.2f%%\n", 100 * m.imbalance);
        if (sk == DGNN_SCHED_ILP)
            printf("ilp           lower bound %.4g s, gap %.2f%%, %s%s\n", info.bound, 100 * info.gap,
                   info.optimal ? (strcmp(info.method, "ilp-rounds") == 0 ? "optimal for the round partition"
                                                                           : "proven optimal")
                                : "not proven optimal",
                   info.fallback ? " (fallback to greedy)" : "");
    }
    if (svg) {
        char title[256];
        snprintf(title, sizeof title, "%s, %s: %s on %lld workers", data, dgnn_snapmodel_name((dgnn_snapmodel_kind)kind),
                 scheduler, (long long)workers);
        if (dgnn_sched_svg(&s, svg, title, 64, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn schedule: --svg: %s\n", err.msg);
            ret = 1;
        } else if (!json) {
            printf("gantt chart   %s\n", svg);
        }
    }
    fflush(stdout);
    if (info.msg[0]) fprintf(stderr, "dgnn schedule: %s\n", info.msg);
    dgnn_sched_free(&s);
    return ret;
}

int cmd_schedule(int argc, char **argv) { return schedule_main(argc, argv, NULL); }
int cli_schedule_embedded(int argc, char **argv, const cli_train_embed *e) {
    if (e->json) *e->json = NULL;
    return schedule_main(argc, argv, e);
}
