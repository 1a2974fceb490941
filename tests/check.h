/* check.h: the tiny test harness every test program uses. CHECK records a failure
 * (with file and line) and goes on; check_done() prints "N passed, N failed" for the
 * program and returns its exit status (non-zero on any failure). */
#ifndef DGNN_TEST_CHECK_H
#define DGNN_TEST_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_pass_ = 0, check_fail_ = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) check_pass_++;                                                      \
        else {                                                                        \
            check_fail_++;                                                            \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                                          \
    do {                                                                              \
        if (cond) check_pass_++;                                                      \
        else {                                                                        \
            check_fail_++;                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

#define CHECK_NEAR(a, b, tol) CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), "%g vs %g", (double)(a), (double)(b))

static inline int check_done(void) {
    printf("%d passed, %d failed\n", check_pass_, check_fail_);
    return check_fail_ ? 1 : 0;
}

/* Returns the path of a shared dataset, or NULL (after printing why) if the shared
 * data folder is absent: the caller then skips that part. The folder is the environment's
 * DGNN_DATA_DIR when set (a test binary run on another machine, e.g. the lent GPU's with
 * scripts/gpu-bundle.sh's data), else the one the build was configured with. */
static inline const char *check_data(char *buf, size_t cap, const char *rel) {
    const char *dir = getenv("DGNN_DATA_DIR");
    snprintf(buf, cap, "%s/%s", dir && *dir ? dir : DGNN_DATA_DIR, rel);
    if (access(buf, R_OK) != 0) {
        printf("skip: %s not found (shared data folder absent)\n", buf);
        return NULL;
    }
    return buf;
}

/* Writes text to a fresh temporary file and returns its path (static buffer per call site). */
static inline void check_write_file(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(2); }
    fwrite(text, 1, len, f);
    fclose(f);
}
/* A GPU trainer's test (tests/cuda/test_cuda_train.c, test_cuda_snaptrain*.c) after its
 * refusal checks, given how many devices the backend sees: none, the skip line and the exit
 * status to give (1 when a check failed, else 77); else -1, after saying so where the device
 * is the host emulation (tests/hostemu). */
static inline int check_gpu_trainer_skip(const char *prog, int devices) {
    if (devices == 0) {
        printf("skip: %s: no CUDA device (the refusals were checked: %d passed, %d failed)\n", prog, check_pass_,
               check_fail_);
        return check_fail_ ? 1 : 77;
    }
#if DGNN_CUDA_HOSTEMU
    printf("%s: on the host emulation of the CUDA layer (the CPU's ops: the composition is under test, not the "
           "kernels)\n", prog);
#endif
    return -1;
}

#endif
