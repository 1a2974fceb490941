/* capi_train.c: `dgnn train` in-process for ctypes callers (capi.h) through
 * cli_train_embedded (src/cli/cmd_train.c), with three things a library call needs that
 * the command does not:
 *  - the error as a string: the command prints its messages on stderr; for the length of
 *    the call stderr is a stream that passes everything through to the old one and keeps
 *    the last lines, and the message is the last "dgnn ...: " line it saw (glibc lets a
 *    program assign stderr; the standard streams are plain variables there). A second
 *    error channel through the commands' hundred-odd messages would change every command
 *    for one caller; this changes none;
 *  - Ctrl-C: a SIGINT handler sets a flag the trainer reads after every step (the run
 *    then fails with DGNN_EINTR), and the caller's handler (Python's) comes back after;
 *  - one run at a time: the command keeps process-wide state (the above, its saved flags).
 * The runtime variables the command sets before its libraries load (OPENBLAS_CORETYPE,
 * OMP_WAIT_POLICY, GOMP_SPINCOUNT: main.c's tune_runtime_env) cannot be set from here,
 * after the libraries loaded: the Python package sets them before it loads libdgnn.so. */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "capi_internal.h"

/* ---- stderr kept while passed through ---- */
#define TAIL_BYTES 8192
typedef struct {
    FILE *through;
    char tail[TAIL_BYTES]; /* the last bytes written (not NUL-terminated) */
    size_t len;
} stderr_tee;

static ssize_t tee_write(void *cookie, const char *buf, size_t n) {
    stderr_tee *t = cookie;
    fwrite(buf, 1, n, t->through);
    fflush(t->through);
    if (n >= TAIL_BYTES) {
        memcpy(t->tail, buf + n - TAIL_BYTES, TAIL_BYTES);
        t->len = TAIL_BYTES;
    } else {
        if (t->len + n > TAIL_BYTES) { /* drop the oldest bytes */
            const size_t drop = t->len + n - TAIL_BYTES;
            memmove(t->tail, t->tail + drop, t->len - drop);
            t->len -= drop;
        }
        memcpy(t->tail + t->len, buf, n);
        t->len += n;
    }
    return (ssize_t)n;
}

/* The last line of the tail that starts "dgnn " and is not a warning (a progress bar's
 * carriage returns: what follows the last one), into msg; fallback if none. */
static void last_error_line(const stderr_tee *t, char *msg, size_t cap, const char *fallback) {
    char text[TAIL_BYTES + 1];
    memcpy(text, t->tail, t->len);
    text[t->len] = 0;
    const char *best = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *cr = strrchr(line, '\r');
        if (cr) line = cr + 1;
        if (strncmp(line, "dgnn ", 5) == 0 && !strstr(line, ": warning: ")) best = line;
    }
    capi_set_msg(msg, cap, best ? best : fallback);
}

/* ---- SIGINT while training ---- */
static volatile sig_atomic_t g_interrupted;
static void on_sigint(int sig) {
    (void)sig;
    g_interrupted = 1;
}

static atomic_flag g_busy = ATOMIC_FLAG_INIT;

typedef struct {
    dgnn_capi_epoch_fn fn;
    void *ctx;
} epoch_hook;
static int call_epoch(void *ctx, const char *line) {
    const epoch_hook *h = ctx;
    return h->fn(h->ctx, line);
}

/* `dgnn CMD FLAGS` (train: cli_train_embedded, eval: cli_eval_embedded, schedule:
 * cli_schedule_embedded) with e's requests */
static int run_embedded(const char *cmd, cli_train_embed *e, int argc, const char *const *argv, char **json, char *msg,
                        size_t cap) {
    *json = NULL;
    capi_set_msg(msg, cap, "");
    if (atomic_flag_test_and_set(&g_busy)) {
        capi_set_msg(msg, cap, "dgnn: another training or evaluation run is going on in this process (one at a time)");
        return DGNN_EINVAL;
    }
    const int is_eval = strcmp(cmd, "eval") == 0, is_sched = strcmp(cmd, "schedule") == 0;
    char oom[64], failed[96];
    snprintf(oom, sizeof oom, "dgnn %s: out of memory", cmd);
    snprintf(failed, sizeof failed, "dgnn %s: failed (see the messages above)", cmd);
    /* "dgnn train FLAGS", for the JSON's run.command; argv as the command's (not written) */
    char **full = malloc((size_t)(argc + 3) * sizeof *full);
    stderr_tee *tee = calloc(1, sizeof *tee);
    if (!full || !tee) {
        free(full), free(tee);
        atomic_flag_clear(&g_busy);
        capi_set_msg(msg, cap, oom);
        return DGNN_ENOMEM;
    }
    full[0] = "dgnn", full[1] = (char *)cmd;
    for (int i = 0; i < argc; i++) full[i + 2] = (char *)argv[i];
    full[argc + 2] = NULL;
    FILE *old_stderr = stderr;
    tee->through = old_stderr;
    cookie_io_functions_t io = {.write = tee_write};
    FILE *s = fopencookie(tee, "w", io);
    if (s) {
        setvbuf(s, NULL, _IONBF, 0);
        fflush(old_stderr);
        stderr = s;
    }
    g_interrupted = 0;
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    const int handled = sigaction(SIGINT, &sa, &old_sa) == 0;

    e->json = json;
    e->interrupt = &g_interrupted;
    cli_set_command_line(argc + 2, full);
    cli_set_events_in_memory(1); /* a loading flag's message: the events are the caller's */
    const int status = is_eval    ? cli_eval_embedded(argc, full + 2, e)
                       : is_sched ? cli_schedule_embedded(argc, full + 2, e)
                                  : cli_train_embedded(argc, full + 2, e);
    cli_set_command_line(0, NULL);
    cli_set_events_in_memory(0);

    if (handled) sigaction(SIGINT, &old_sa, NULL);
    if (s) {
        stderr = old_stderr;
        fclose(s);
    }
    int rc = DGNN_OK;
    if (g_interrupted) { /* even when the run got through (Ctrl-C during the test): the user asked to stop */
        capi_set_msg(msg, cap, "interrupted");
        rc = DGNN_EINTR;
    } else if (status != 0) {
        last_error_line(tee, msg, cap, failed);
        rc = status == 2 ? DGNN_EINVAL : DGNN_EIO;
    }
    if (rc != DGNN_OK) {
        free(*json);
        *json = NULL;
    }
    free(tee);
    free(full);
    atomic_flag_clear(&g_busy);
    return rc;
}

int dgnn_capi_train(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv,
                    dgnn_capi_epoch_fn on_epoch, void *ctx, char **json, char *msg, size_t cap) {
    epoch_hook hook = {on_epoch, ctx};
    cli_train_embed e = {.events = &ev->ev, .dataset = dataset, .on_epoch = on_epoch ? call_epoch : NULL,
                         .on_epoch_ctx = &hook};
    return run_embedded("train", &e, argc, argv, json, msg, cap);
}

int dgnn_capi_schedule(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv, char **json,
                       char *msg, size_t cap) {
    cli_train_embed e = {.events = &ev->ev, .dataset = dataset};
    return run_embedded("schedule", &e, argc, argv, json, msg, cap);
}

/* ids (n) to dense ids: original ones through dgnn_events_dense_id, else checked to be in
 * 0..N-1; malloc'd into *out, or a message naming the array and entry */
static int dense_ids(const dgnn_events *ev, const int64_t *ids, int64_t n, int original, const char *what,
                     int32_t **out, char *msg, size_t cap) {
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
    if (!*out) {
        capi_set_msg(msg, cap, "dgnn eval: out of memory");
        return DGNN_ENOMEM;
    }
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = original ? dgnn_events_dense_id(ev, ids[i])
                                   : ids[i] >= 0 && ids[i] < ev->num_nodes ? (int32_t)ids[i] : -1;
        if (v < 0) {
            char text[256];
            snprintf(text, sizeof text, "dgnn eval: %s[%lld]: node %lld is not a node of the data (%s)", what,
                     (long long)i, (long long)ids[i],
                     original ? "ids as in the data" : "dense ids 0..num_nodes-1");
            capi_set_msg(msg, cap, text);
            free(*out), *out = NULL;
            return DGNN_EINVAL;
        }
        (*out)[i] = v;
    }
    return DGNN_OK;
}

/* 1 when every time is finite, else 0 with the message naming the first that is not. */
static int finite_times(const double *t, int64_t n, char *msg, size_t cap) {
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(t[i])) {
            char text[128];
            snprintf(text, sizeof text, "dgnn eval: t[%lld] is not finite (%g)", (long long)i, t[i]);
            capi_set_msg(msg, cap, text);
            return 0;
        }
    return 1;
}

int dgnn_capi_eval(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv,
                   int original_ids, const int64_t *emb_nodes, const double *emb_t, int64_t n_emb, float **emb_out,
                   int64_t *emb_dim, const int64_t *score_src, const int64_t *score_dst, const double *score_t,
                   int64_t n_score, float *score_out, char **json, char *msg, size_t cap) {
    *json = NULL;
    if (emb_out) *emb_out = NULL;
    if (emb_dim) *emb_dim = 0;
    capi_set_msg(msg, cap, "");
    if (!finite_times(emb_t, n_emb, msg, cap) || !finite_times(score_t, n_score, msg, cap)) return DGNN_EINVAL;
    int32_t *nodes = NULL, *src = NULL, *dst = NULL;
    int rc = DGNN_OK;
    if (n_emb > 0 && (!emb_out || !emb_dim)) {
        capi_set_msg(msg, cap, "dgnn eval: embeddings asked for without emb_out and emb_dim");
        return DGNN_EINVAL;
    }
    if (n_emb > 0) rc = dense_ids(&ev->ev, emb_nodes, n_emb, original_ids, "nodes", &nodes, msg, cap);
    if (!rc && n_score > 0) rc = dense_ids(&ev->ev, score_src, n_score, original_ids, "src", &src, msg, cap);
    if (!rc && n_score > 0) rc = dense_ids(&ev->ev, score_dst, n_score, original_ids, "dst", &dst, msg, cap);
    if (!rc) {
        cli_train_embed e = {.events = &ev->ev, .dataset = dataset};
        if (n_emb > 0) e.emb_nodes = nodes, e.emb_t = emb_t, e.emb_n = n_emb, e.emb_out = emb_out, e.emb_dim = emb_dim;
        if (n_score > 0) e.score_src = src, e.score_dst = dst, e.score_t = score_t, e.score_n = n_score, e.score_out = score_out;
        rc = run_embedded("eval", &e, argc, argv, json, msg, cap);
        if (rc && emb_out) free(*emb_out), *emb_out = NULL;
    }
    free(nodes), free(src), free(dst);
    return rc;
}

void dgnn_capi_free_floats(float *p) { free(p); }
