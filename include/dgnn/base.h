/* base.h: status codes, error messages, checked allocation, assertions, a seeded
 * random generator, timing and rank-0 logging. Every other module builds on this.
 *
 * Two tiers of errors (DESIGN.md, convention 3):
 *  - library functions return 0 or a negative DGNN_E... code and fill a dgnn_err
 *    whose message names what was wrong and where (file, line, field);
 *  - broken internal invariants hit DGNN_ASSERT, which is always on.
 * The library never calls exit() on bad input. */
#ifndef DGNN_BASE_H
#define DGNN_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ---------------------------------------------------- */
enum {
    DGNN_OK = 0,
    DGNN_EIO = -1,       /* open/read/write failed */
    DGNN_EFORMAT = -2,   /* the content of a file is malformed */
    DGNN_ENOMEM = -3,    /* allocation failed */
    DGNN_EINVAL = -4,    /* bad argument or option value */
    DGNN_EVERSION = -5,  /* binary file of an unsupported version */
    DGNN_ECHECKSUM = -6, /* binary file corrupted */
    DGNN_EUNSUPPORTED = -7,
    DGNN_EDEVICE = -8, /* the GPU failed (a CUDA or cuBLAS error), or none is there */
    DGNN_EINTR = -9    /* the caller interrupted the run (Ctrl-C in the Python package) */
};

/* Human-readable name of a status code ("format error", ...). */
const char *dgnn_status_str(int code);

/* An error message filled by a failing library call. */
typedef struct {
    int code;
    char msg[768];
} dgnn_err;

/* Sets e (if not NULL) to code and the printf-formatted message; returns code,
 * so that `return dgnn_err_set(e, DGNN_EFORMAT, "%s:%lld: ...", ...);` reads well. */
int dgnn_err_set(dgnn_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears e to DGNN_OK and an empty message. */
void dgnn_err_clear(dgnn_err *e);
/* DGNN_OK when min <= v <= max, else DGNN_EINVAL naming the setting and the value given:
 * "WHO: WHAT must be >= MIN (got V)" (max INT64_MAX), "... must be in [MIN, MAX] (got V)". */
int dgnn_err_range(dgnn_err *e, const char *who, const char *what, int64_t v, int64_t min, int64_t max);

/* ---- assertions and allocation ---------------------------------------- */
void dgnn_assert_fail(const char *expr, const char *file, int line) __attribute__((noreturn));
#define DGNN_ASSERT(cond) \
    ((cond) ? (void)0 : dgnn_assert_fail(#cond, __FILE__, __LINE__))

/* Allocation that aborts with a message on failure: for small internal buffers whose
 * size does not come from user input. Readers use plain malloc and return DGNN_ENOMEM;
 * buffers sized by flags or data (batch x neighbours x widths, N x N scores, ...) use
 * the checked allocation below. */
void *dgnn_xmalloc(size_t n);
void *dgnn_xcalloc(size_t count, size_t size);
void *dgnn_xrealloc(void *p, size_t n);

/* ---- checked allocation: sizes from user input or data ---------------------------
 * Sizes are int64_t element counts multiplied with dgnn_size_mul, which saturates at
 * INT64_MAX (a negative factor counts as INT64_MAX too): a chain of products that
 * overflows stays "too large" and fails the allocation it sizes, with a message,
 * instead of wrapping to a small buffer. A request larger than the memory this process
 * may use (dgnn_mem_total_bytes) fails without being tried: with overcommit, malloc would
 * grant it and the kernel (or the cgroup's OOM killer) kill the process when the pages are
 * touched. Failures return DGNN_ENOMEM with
 * "out of memory: 762.9 GiB for WHAT", the caller's words naming the buffer and the flags
 * that size it. */
int64_t dgnn_size_mul(int64_t a, int64_t b);
int64_t dgnn_size_add(int64_t a, int64_t b);
/* The memory this process may use, in bytes: RAM + swap of this machine, or less where
 * its control group (a container's or a job's memory limit) sets less (INT64_MAX when
 * unknown). Read once. */
int64_t dgnn_mem_total_bytes(void);
/* "762.9 GiB", "12.0 MiB", "512 B" into buf; returns buf. */
char *dgnn_fmt_bytes(char *buf, size_t cap, double bytes);
/* DGNN_ENOMEM with "out of memory: <bytes> for <printf text>". */
int dgnn_err_nomem(dgnn_err *e, int64_t bytes, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* DGNN_OK when `bytes` can be asked for (0 <= bytes <= dgnn_mem_total_bytes()), else
 * dgnn_err_nomem(e, bytes, fmt, ...): for a sum of buffers checked before any of them
 * is allocated. */
int dgnn_mem_check(int64_t bytes, dgnn_err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Buffers sized together (a model's workspace, a run's buffers): grow each with
 * dgnn_alloc_grow, then dgnn_alloc_done tells whether all of them were granted. A
 * failed grow leaves its pointer as it was (still valid, still owned by the caller) and
 * makes every later grow of the set a no-op, so the set's pointers are always safe to
 * free; the sizes of those later grows still count in the set's total. */
typedef struct {
    int64_t bytes; /* asked for by the set so far (saturating) */
    int failed;
} dgnn_alloc_set;
/* *p = realloc(*p, n * size) (n <= 0: one element), unless the set has failed. */
void dgnn_alloc_grow(dgnn_alloc_set *a, void **p, int64_t n, size_t size);
/* As dgnn_alloc_grow, the buffer zeroed. */
void dgnn_alloc_zeroed(dgnn_alloc_set *a, void **p, int64_t n, size_t size);
/* DGNN_OK when every grow succeeded and the set's total fits dgnn_mem_total_bytes(), else
 * dgnn_err_nomem(e, a->bytes, fmt, ...). */
int dgnn_alloc_done(const dgnn_alloc_set *a, dgnn_err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define DGNN_GROW(set, ptr, n) dgnn_alloc_grow((set), (void **)&(ptr), (n), sizeof *(ptr))
#define DGNN_GROW_ZEROED(set, ptr, n) dgnn_alloc_zeroed((set), (void **)&(ptr), (n), sizeof *(ptr))

/* ---- random numbers (DESIGN.md, convention 10) ------------------------- */
/* xoshiro256** seeded through splitmix64. Pass a dgnn_rng explicitly: no globals. */
typedef struct {
    uint64_t s[4];
} dgnn_rng;

void dgnn_rng_seed(dgnn_rng *r, uint64_t seed);
/* A generator for stream `stream` of `seed`: used to give each OpenMP work item its
 * own deterministic sequence, so results do not depend on the thread count. */
void dgnn_rng_seed2(dgnn_rng *r, uint64_t seed, uint64_t stream);
uint64_t dgnn_rng_u64(dgnn_rng *r);
/* Uniform in [0, n), unbiased (Lemire's method). n must be > 0. */
uint64_t dgnn_rng_below(dgnn_rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double dgnn_rng_uniform(dgnn_rng *r);
/* Standard normal (Box-Muller). */
double dgnn_rng_normal(dgnn_rng *r);
/* 64-bit mixing function (splitmix64 finalizer). */
uint64_t dgnn_hash64(uint64_t x);

/* ---- time, logging ----------------------------------------------------- */
/* Monotonic seconds. */
double dgnn_now(void);
/* Peak resident set size of this process, in MiB (from getrusage). */
double dgnn_peak_rss_mb(void);

/* Logging goes to stderr and only from rank 0 (set by the comm module). */
void dgnn_log_set_rank(int rank);
int dgnn_log_rank(void);
void dgnn_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats n with thousands separators ("157,474") into buf; returns buf. */
char *dgnn_fmt_count(char *buf, size_t cap, int64_t n);
/* A metric as printed: "%.4f" ("%.4g" from 1e6 on: a diverged loss, 1.197e+28), or "n/a"
 * when it is absent (NaN: not evaluated, or over no events: no new-node events, no MRR with
 * 0 negatives), as the JSON's null. cap: 16 bytes hold every one. */
char *dgnn_fmt_metric(char *buf, size_t cap, double x);

/* ---- progress bar ------------------------------------------------------ */
/* On a terminal: a bar redrawn in place at most ~10 times a second. Otherwise: a
 * plain line every `plain_every_s` seconds. Only rank 0 prints. */
typedef struct {
    const char *label;
    int64_t total;
    int64_t done;
    double t_start, t_last;
    double plain_every_s;
    int is_tty;
    int active;
} dgnn_progress;

void dgnn_progress_begin(dgnn_progress *p, const char *label, int64_t total);
/* extra: an optional short text shown after the rate (e.g. "loss 0.512"), may be NULL. */
void dgnn_progress_update(dgnn_progress *p, int64_t done, const char *extra);
void dgnn_progress_end(dgnn_progress *p);

#ifdef __cplusplus
}
#endif
#endif
