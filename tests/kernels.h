/* kernels.h: runs part of a test program again under each OpenBLAS sgemm kernel this CPU
 * can execute (OPENBLAS_CORETYPE=SkylakeX, Haswell, Sandybridge), for the checks whose
 * claim is "bit for bit, whatever the thread count": the kernels block their products
 * differently (SkylakeX has small-matrix kernels, Haswell and Sandybridge split a product
 * over threads with other edge tiles), so such a check can hold under the machine's own
 * kernel and fail under another CPU's (issue 12: EvolveGCN's loss changed with --threads
 * on an AVX2 machine and not on the AVX-512 one the suite ran on). OpenBLAS reads
 * OPENBLAS_CORETYPE when it loads, so each kernel needs a fresh process: the program runs
 * itself (/proc/self/exe) with the variable set and the given argument, and counts the
 * children that fail. When OPENBLAS_CORETYPE is already set (a child, or a user forcing a
 * kernel) nothing is re-run. A kernel whose instructions the CPU lacks is skipped, not
 * run (it would die of SIGILL). */
#ifndef DGNN_TEST_KERNELS_H
#define DGNN_TEST_KERNELS_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int kernels_cpu_runs(const char *core) {
    __builtin_cpu_init();
    if (core[0] == 'S' && core[1] == 'k')
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    if (core[0] == 'H') return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return __builtin_cpu_supports("avx"); /* Sandybridge */
}

/* Runs "/proc/self/exe arg" once per kernel this CPU runs, with OPENBLAS_CORETYPE set;
 * returns the number of runs that failed (0 when none ran). Prints one line per run. */
static inline int kernels_rerun(const char *arg) {
    if (getenv("OPENBLAS_CORETYPE")) return 0;
    static const char *const cores[] = {"SkylakeX", "Haswell", "Sandybridge"};
    int failed = 0;
    for (int k = 0; k < 3; k++) {
        if (!kernels_cpu_runs(cores[k])) {
            printf("kernel %s: not run (this CPU lacks its instructions)\n", cores[k]);
            continue;
        }
        fflush(stdout), fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return failed + 1; }
        if (pid == 0) {
            setenv("OPENBLAS_CORETYPE", cores[k], 1);
            char *const argv[] = {"kernel-rerun", (char *)arg, NULL};
            execv("/proc/self/exe", argv);
            perror("execv /proc/self/exe");
            _exit(127);
        }
        int st = 0;
        if (waitpid(pid, &st, 0) < 0) st = 1;
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        printf("kernel %s, %s: %s\n", cores[k], arg, ok ? "passed" : "FAILED");
        failed += !ok;
    }
    return failed;
}
#endif
