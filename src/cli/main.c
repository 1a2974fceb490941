/* main.c: the dgnn command: dispatches to subcommands, each with its own --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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
    {"simulate", cmd_simulate, "cluster simulator: DyGNeX schedules (--family snapshot), DepBloom against strict (--family event)"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f) {
    fprintf(f, "dgnn %s: train dynamic graph neural networks\n\n"
               "usage: dgnn COMMAND [options]   (dgnn COMMAND --help, or dgnn help COMMAND, for its options)\n\n"
               "commands:\n",
            DGNN_VERSION);
    for (const subcommand *c = k_cmds; c->name; c++) fprintf(f, "  %-10s %s\n", c->name, c->help);
    fprintf(f, "\nData formats read by every command: JODIE csv, TGL edges.csv (+ .npy features),\n"
               "DyGLib/TGN ml_NAME.csv (+ .npy), TGB edge lists, SNAP/KONECT edge lists, PyTorch\n"
               "Geometric Temporal json, and dgnn's binary .dgnn.\n"
               "\nOutput files are replaced whole (a temporary file renamed into place); an output\n"
               "given as - is standard output, the file alone on it (the command's text goes to\n"
               "stderr): dgnn train --out - | jq .test.ap\n");
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
/* set to a value: an empty one is unset to the libraries too (OpenBLAS then detects) */
static int env_given(const char *name) {
    const char *v = getenv(name);
    return v && *v;
}

static void tune_runtime_env(char **argv) {
    int changed = 0;
    if (!env_given("OPENBLAS_CORETYPE")) {
        const char *core = NULL;
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
            core = "SkylakeX";
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            core = "Haswell";
        if (core) setenv("OPENBLAS_CORETYPE", core, 1), changed = 1;
    }
    if (!env_given("OMP_WAIT_POLICY")) setenv("OMP_WAIT_POLICY", "PASSIVE", 1), changed = 1;
    if (!env_given("GOMP_SPINCOUNT")) setenv("GOMP_SPINCOUNT", "30000", 1), changed = 1;
    if (changed) execv("/proc/self/exe", argv);
    /* exec failed: go on with the libraries' own choices */
}

static int run_command(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    static char *help_argv[34];
    if (strcmp(name, "help") == 0 && argc > 2 && argc < 34 && strcmp(argv[2], "help") != 0 &&
        argv[2][0] != '-') { /* dgnn help COMMAND [...]: COMMAND [...] --help (dgnn help help, -h: the usage) */
        help_argv[0] = argv[0];
        for (int i = 2; i < argc; i++) help_argv[i - 1] = argv[i];
        help_argv[argc - 1] = (char *)"--help", help_argv[argc] = NULL;
        argv = help_argv, name = argv[1];
    } else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
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

int main(int argc, char **argv) {
    tune_runtime_env(argv);
    dgnn_outfile_clean_on_signals(); /* an interrupted write leaves no temporary file */
    dgnn_outfile_stdout_claimable(); /* --out -: the file alone on stdout, the text on stderr */
    cli_set_command_line(argc, argv);
    /* a --curve that lost lines fails the run (its training went on) */
    const int rc = cli_curve_end(run_command(argc, argv));
    /* what went to the standard output (tables, --json, help) must have arrived: a full
     * disk or a closed pipe behind it is an error, not exit 0 */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "dgnn%s%s: cannot write the standard output%s%s\n", argc > 1 ? " " : "", argc > 1 ? argv[1] : "",
                errno ? ": " : "", errno ? strerror(errno) : "");
        return rc ? rc : 1;
    }
    return rc;
}
