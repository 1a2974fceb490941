/* main.c: the dgnn command: dispatches to subcommands, each with its own --help. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn_build_info.h"
#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/outfile.h"

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} subcommand;

static const subcommand k_cmds[] = {
    {"info", cmd_info, "print a dataset's size, time span, degrees and events over time"},
    {"convert", cmd_convert, "convert a text dataset to the binary .dgnn format"},
    {"gen", cmd_gen, "generate a synthetic event stream (streams to disk)"},
    {"bench", cmd_bench, "run a benchmark and print its figures (bench sampler | gen | train)"},
    {"train", cmd_train, "train a model: tgn, jodie, dyrep, apan, edgebank, evolvegcn-o, evolvegcn-h, ..."},
    {"eval", cmd_eval, "evaluate a checkpoint (event models) under any protocol; embeddings out"},
    {"schedule", cmd_schedule, "DyGNeX: schedule snapshot windows on P workers (even, greedy, ilp)"},
    {"simulate", cmd_simulate, "cluster simulator: efficiency of DyGNeX schedules on 1..4096 workers"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f) {
    fprintf(f, "dgnn %s: train dynamic graph neural networks\n\n"
               "usage: dgnn COMMAND [options]   (dgnn COMMAND --help for its options)\n\ncommands:\n",
            DGNN_VERSION);
    for (const subcommand *c = k_cmds; c->name; c++) fprintf(f, "  %-10s %s\n", c->name, c->help);
    fprintf(f, "\nData formats read by every command: JODIE csv, TGL edges.csv (+ .npy features),\n"
               "SNAP/KONECT edge lists, PyTorch Geometric Temporal json, and dgnn's binary .dgnn.\n");
}

/* Three runtime settings are read once, when the libraries load, so when they are unset
 * we set them and re-execute ourselves (once: they are then set):
 *  - OPENBLAS_CORETYPE: OpenBLAS picks its kernels from the CPU model; on virtual
 *    machines that report a generic "Intel Xeon Processor" it falls back to its SSE3
 *    (Prescott) kernels, 4-5x slower in sgemm than the AVX-512 or AVX2 ones the CPU has.
 *  - OMP_WAIT_POLICY=PASSIVE: libgomp's idle threads otherwise spin; on a shared
 *    machine, or with more MPI ranks than cores, spinning threads take the cores the
 *    working ones need. Measured on this project's 2-core machine (docs/results.md):
 *    under load, 30-40 training batches ran 3-13x faster passive than spinning; on an
 *    idle machine a wikipedia TGN epoch took 18.7 s passive against 16.4 s spinning.
 *    The worst case decides: set OMP_WAIT_POLICY=active on a dedicated machine.
 *  - GOMP_SPINCOUNT=30000 (when unset): a short spin before a thread sleeps, which
 *    libgomp applies even under PASSIVE. A training step opens hundreds of parallel
 *    regions; waking a sleeping thread for each cost a wikipedia TGN epoch 17% at 2
 *    threads (10.8 s against 8.9 s, the same as spinning forever), while under load (two
 *    busy processes on the two cores) the short spin trained 11% fewer events in 30 s
 *    than PASSIVE alone, not 3x as spinning forever did (docs/results.md). */
static void tune_runtime_env(char **argv) {
    int changed = 0;
    if (!getenv("OPENBLAS_CORETYPE")) {
        const char *core = NULL;
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
            core = "SkylakeX";
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            core = "Haswell";
        if (core) setenv("OPENBLAS_CORETYPE", core, 1), changed = 1;
    }
    if (!getenv("OMP_WAIT_POLICY")) setenv("OMP_WAIT_POLICY", "PASSIVE", 1), changed = 1;
    if (!getenv("GOMP_SPINCOUNT")) setenv("GOMP_SPINCOUNT", "30000", 1), changed = 1;
    if (changed) execv("/proc/self/exe", argv);
    /* exec failed: go on with the libraries' own choices */
}

/* the command line, for cli_add_run_info */
static int g_argc;
static char **g_argv;

int main(int argc, char **argv) {
    tune_runtime_env(argv);
    g_argc = argc, g_argv = argv;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("dgnn %s\n", DGNN_VERSION);
        return 0;
    }
    for (const subcommand *c = k_cmds; c->name; c++) {
        if (strcmp(c->name, name) != 0) continue;
        if (!c->fn) {
            fprintf(stderr, "dgnn %s: not yet implemented in this version (see `dgnn --help`)\n", name);
            return 2;
        }
        return c->fn(argc - 2, argv + 2);
    }
    fprintf(stderr, "dgnn: unknown command '%s' (see dgnn --help)\n", name);
    return 2;
}

int cli_load(const char *cmd, const char *path, const cli_load_flags *f, dgnn_events *ev) {
    dgnn_load_opts o = dgnn_load_opts_default();
    if (f->format && strcmp(f->format, "auto") != 0) {
        static const struct { const char *n; dgnn_format f; } fm[] = {
            {"jodie", DGNN_FMT_JODIE}, {"tgl", DGNN_FMT_TGL}, {"edgelist", DGNN_FMT_EDGELIST},
            {"pgt", DGNN_FMT_PGT}, {"dgnn", DGNN_FMT_BINARY},
            {"dyglib", DGNN_FMT_DYGLIB}, {"tgb", DGNN_FMT_TGB}};
        int found = 0;
        for (size_t i = 0; i < sizeof fm / sizeof fm[0]; i++)
            if (strcmp(f->format, fm[i].n) == 0) o.format = fm[i].f, found = 1;
        if (!found) {
            fprintf(stderr, "dgnn %s: --format: unknown format '%s' (auto, jodie, tgl, edgelist, pgt, dgnn, dyglib, tgb)\n", cmd, f->format);
            return 2;
        }
    }
    if (f->bipartite && f->not_bipartite) {
        fprintf(stderr, "dgnn %s: --bipartite and --not-bipartite contradict each other\n", cmd);
        return 2;
    }
    o.columns = f->columns;
    o.bipartite = f->bipartite ? 1 : f->not_bipartite ? 0 : -1;
    o.edge_feat = f->edge_feat;
    o.node_feat = f->node_feat;
    dgnn_err err;
    dgnn_err_clear(&err);
    int rc = dgnn_load(ev, path, &o, &err);
    if (rc != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        /* EINVAL: the flags do not fit the data (--columns for a JODIE file, --edge-feat
         * for an edge list, an unknown --columns role): a usage error, as above */
        return rc == DGNN_EINVAL ? 2 : 1;
    }
    return 0;
}

int cli_load_flags_unused(const char *cmd, const cli_load_flags *f) {
    const char *given = f->format ? "format" : f->columns ? "columns" : f->bipartite ? "bipartite"
                        : f->not_bipartite ? "not-bipartite" : f->edge_feat ? "edge-feat" : f->node_feat ? "node-feat"
                                                                                                          : NULL;
    if (!given) return 0;
    fprintf(stderr, "dgnn %s: --%s describes the --data file, but no --data is given (the built-in data would "
                    "ignore it)\n", cmd, given);
    return 2;
}

void cli_set_threads(int64_t threads) {
    if (threads > 0) omp_set_num_threads((int)threads);
}

void cli_add_run_info(cJSON *o) {
    cJSON *r = cJSON_AddObjectToObject(o, "run");
    cJSON_AddStringToObject(r, "dgnn", DGNN_VERSION);
    cJSON_AddStringToObject(r, "commit", DGNN_GIT_COMMIT);
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(r, "date", date);
    /* argv[0] as "dgnn", each argument quoted '...' when it holds anything but [A-Za-z0-9_./:=,+-] */
    size_t cap = 8, n = 0;
    for (int i = 1; i < g_argc; i++) cap += 4 * strlen(g_argv[i]) + 4;
    char *cmd = dgnn_xmalloc(cap);
    n += (size_t)snprintf(cmd, cap, "dgnn");
    for (int i = 1; i < g_argc; i++) {
        const char *a = g_argv[i];
        int plain = *a != 0;
        for (const char *p = a; *p; p++)
            if (!(isalnum((unsigned char)*p) || strchr("_./:=,+-", *p))) plain = 0;
        cmd[n++] = ' ';
        if (plain) {
            n += (size_t)snprintf(cmd + n, cap - n, "%s", a);
            continue;
        }
        cmd[n++] = '\'';
        for (const char *p = a; *p; p++) {
            if (*p == '\'') { /* ' -> '\'' */
                memcpy(cmd + n, "'\\''", 4);
                n += 4;
            } else {
                cmd[n++] = *p;
            }
        }
        cmd[n++] = '\'';
        cmd[n] = 0;
    }
    cJSON_AddStringToObject(r, "command", cmd);
    free(cmd);
}

/* path opened for writing without blocking on a FIFO that has no reader (ENXIO then),
 * blocking again once open */
static FILE *curve_open(const char *path, int truncate) {
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | (truncate ? O_TRUNC : O_APPEND), 0666);
    if (fd < 0) return NULL;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, truncate ? "w" : "a");
    if (!f) close(fd);
    return f;
}

int cli_curve_start(const char *cmd, const char *path, int resume) {
    FILE *f = curve_open(path, !resume);
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "dgnn %s: --curve %s: cannot write: %s\n", cmd, path,
                errno == ENXIO ? "a FIFO without a reader" : strerror(errno));
        return 1;
    }
    return 0;
}

void cli_curve_append(const char *path, cJSON *o) {
    static int warned = 0;
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    FILE *f = text ? curve_open(path, 0) : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok && !warned) {
        fprintf(stderr, "dgnn: warning: --curve %s: an epoch's line could not be written (%s); training goes on\n",
                path, strerror(errno));
        warned = 1;
    }
    free(text);
}

cJSON *cli_json_number(double x) { return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull(); }

int cli_write_json(const char *cmd, const char *path, cJSON *o) {
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_outfile *f = NULL;
    int rc = text ? dgnn_outfile_open(&f, path, 0, &err)
                  : dgnn_err_set(&err, DGNN_ENOMEM, "cannot write %s: out of memory", path);
    if (rc == DGNN_OK) {
        FILE *s = dgnn_outfile_stream(f); /* a failing write is kept, and told by commit */
        fputs(text, s);
        fputc('\n', s);
        rc = dgnn_outfile_commit(f, &err);
    }
    free(text);
    if (rc != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        return 1;
    }
    return 0;
}

int cli_check_outputs(const char *cmd, const cli_output *outs, int n) {
    int bad = 0;
    if (dgnn_comm_rank() == 0) {
        for (int i = 0; i < n; i++) {
            if (!outs[i].path) continue;
            dgnn_err err;
            dgnn_err_clear(&err);
            int rc = outs[i].folder ? dgnn_ckpt_dir_check(outs[i].path, &err) : dgnn_outfile_check(outs[i].path, &err);
            if (rc != DGNN_OK) {
                fprintf(stderr, "dgnn %s: %s %s: %s\n", cmd, outs[i].flag, outs[i].path, err.msg);
                bad = 1;
            }
        }
    }
    /* rank 0 writes every output; the others learn its verdict (a no-op in one process) */
    int32_t b = bad;
    dgnn_comm_bcast(&b, sizeof b, 0);
    return b ? 2 : 0;
}
