/* capi_train.c: `dgnn train` in-process for ctypes callers (capi.h) through
 * cli_train_embedded (src/cli/cmd_train.c), with what a library call needs that the
 * command does not:
 *  - the error as a string: the command prints its messages on stderr; for the length of
 *    the call stderr is a stream that passes everything through to the old one and keeps
 *    the last lines, and the message is the last "dgnn ...: " line it saw (glibc lets a
 *    program assign stderr; the standard streams are plain variables there). A second
 *    error channel through the commands' hundred-odd messages would change every command
 *    for one caller; this changes none;
 *  - Ctrl-C: a SIGINT handler sets a flag the trainer reads after every step (the run
 *    then fails with DGNN_EINTR), and the caller's handler (Python's) comes back after;
 *  - one run at a time: the command keeps process-wide state (the above, its saved flags);
 *  - quiet calls (dgnn_capi_set_quiet): the same streams, stdout dropped and stderr kept
 *    but not passed through (warning lines are); --help's text kept (dgnn_capi_help: the
 *    Python package reads each command's option table from it);
 *  - other threads: the streams are the process's, so another thread's C stdio goes
 *    through them while a call runs. Only the calling thread's writes are the call's; any
 *    other thread's pass through to the stream the call replaced, whatever quiet says and
 *    out of the message's tail. The two streams are made once and never closed: a thread
 *    that read the variable before the call put the old stream back may still write to
 *    one (closing it per call lost such lines and crashed in the writer);
 *  - an abort from the caller's on_epoch (a negative return: an exception in Python): the
 *    interrupt flag set, so that the run fails at its next step instead of stopping as
 *    early stopping does (which would test and write the outputs of a finished run).
 * The runtime variables the command sets before its libraries load (OPENBLAS_CORETYPE,
 * OMP_WAIT_POLICY, GOMP_SPINCOUNT: main.c's tune_runtime_env) cannot be set from here,
 * after the libraries loaded: the Python package sets them before it loads libdgnn.so. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "capi_internal.h"
#include "dgnn/checkpoint.h"

/* ---- stderr kept while passed through ---- */
#define TAIL_BYTES 8192
#define LINE_BYTES 2048
typedef struct {
    FILE *through;
    char tail[TAIL_BYTES]; /* the last bytes written (not NUL-terminated) */
    size_t len;
    /* quiet (dgnn_capi_set_quiet): only warning lines pass through; the current line so
     * far (a longer one is cut: what decides is near its start) */
    int quiet;
    char line[LINE_BYTES];
    size_t line_len;
} stderr_tee;

static const char k_warning[] = ": warning: ";

/* quiet: the line so far through when it is a warning; then a new line */
static void tee_line_end(stderr_tee *t, int newline) {
    if (t->line_len > 0 && memmem(t->line, t->line_len, k_warning, sizeof k_warning - 1)) {
        fwrite(t->line, 1, t->line_len, t->through);
        if (newline) fputc('\n', t->through);
        fflush(t->through);
    }
    t->line_len = 0;
}

/* the call in progress and the thread that made it: its writes are the call's */
static atomic_int g_owned;
static pthread_t g_owner;
static int owner_writes(void) { return atomic_load(&g_owned) && pthread_equal(pthread_self(), g_owner); }

static ssize_t tee_write(void *cookie, const char *buf, size_t n) {
    stderr_tee *t = cookie;
    if (!owner_writes()) { /* another thread's (or a late) line: its own, untouched */
        fwrite(buf, 1, n, t->through);
        fflush(t->through);
        return (ssize_t)n;
    }
    if (!t->quiet) {
        fwrite(buf, 1, n, t->through);
        fflush(t->through);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (buf[i] == '\n') tee_line_end(t, 1);
            else if (buf[i] == '\r') t->line_len = 0; /* a progress bar's redraw */
            else if (t->line_len < LINE_BYTES) t->line[t->line_len++] = buf[i];
        }
    }
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

/* the caller's on_epoch returned a negative value: the run is aborted through the
 * interrupt flag the trainers read after every step */
static volatile sig_atomic_t g_aborted;

typedef struct {
    dgnn_capi_epoch_fn fn;
    void *ctx;
} epoch_hook;
static int call_epoch(void *ctx, const char *line) {
    const epoch_hook *h = ctx;
    const int r = h->fn(h->ctx, line);
    if (r < 0) { /* not a stop: a stop would test and write the outputs as a finished run's */
        g_aborted = 1;
        g_interrupted = 1;
        return 0;
    }
    return r;
}

static _Thread_local int t_quiet; /* dgnn_capi_set_quiet */
void dgnn_capi_set_quiet(int quiet) { t_quiet = quiet != 0; }

/* stdout while a call runs: the calling thread's text kept (help) or dropped (quiet);
 * another thread's passes through to the stdout the call replaced */
typedef struct {
    FILE *through;
    int keep;    /* 1: into text (--help's), 0: dropped */
    char *text;  /* malloc'd, len bytes (NUL-terminated when not NULL) */
    size_t len, cap;
    int oom;     /* the text could not grow: the call fails */
} stdout_sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n) {
    stdout_sink *o = cookie;
    if (!owner_writes()) {
        fwrite(buf, 1, n, o->through);
        fflush(o->through);
    } else if (o->keep && !o->oom) {
        if (o->len + n + 1 > o->cap) {
            const size_t cap = (o->len + n + 1) * 2;
            char *t = realloc(o->text, cap);
            if (!t) {
                o->oom = 1;
                return (ssize_t)n;
            }
            o->text = t, o->cap = cap;
        }
        memcpy(o->text + o->len, buf, n);
        o->len += n;
        o->text[o->len] = 0;
    }
    return (ssize_t)n;
}

/* the streams, made once (run_embedded: one call at a time) and never closed */
static stderr_tee g_tee;
static stdout_sink g_sink;
static FILE *g_err_stream, *g_out_stream;

/* `dgnn CMD FLAGS` (train: cli_train_embedded, eval: cli_eval_embedded, schedule:
 * cli_schedule_embedded) with e's requests. help non-NULL: the command's stdout (its
 * --help) into *help (malloc'd). */
static int run_embedded(const char *cmd, cli_train_embed *e, int argc, const char *const *argv, char **json, char *msg,
                        size_t cap, char **help) {
    *json = NULL;
    if (help) *help = NULL;
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
    if (!g_err_stream) {
        g_err_stream = fopencookie(&g_tee, "w", (cookie_io_functions_t){.write = tee_write});
        if (g_err_stream) setvbuf(g_err_stream, NULL, _IONBF, 0);
    }
    if (!g_out_stream) {
        g_out_stream = fopencookie(&g_sink, "w", (cookie_io_functions_t){.write = sink_write});
        if (g_out_stream) setvbuf(g_out_stream, NULL, _IONBF, 0);
    }
    if (!full || !g_err_stream || !g_out_stream) {
        free(full);
        atomic_flag_clear(&g_busy);
        capi_set_msg(msg, cap, oom);
        return DGNN_ENOMEM;
    }
    stderr_tee *tee = &g_tee;
    full[0] = "dgnn", full[1] = (char *)cmd;
    for (int i = 0; i < argc; i++) full[i + 2] = (char *)argv[i];
    full[argc + 2] = NULL;
    FILE *old_stderr = stderr, *old_stdout = stdout;
    /* the tee and the sink are reset before the call owns them: a late writer of an
     * earlier call is no owner (it passes through), so nothing else reads them */
    tee->through = old_stderr, tee->len = 0, tee->line_len = 0;
    tee->quiet = t_quiet;
    g_sink.through = old_stdout, g_sink.keep = help != NULL, g_sink.len = 0, g_sink.oom = 0;
    if (g_sink.text) g_sink.text[0] = 0;
    g_owner = pthread_self();
    atomic_store(&g_owned, 1);
    fflush(old_stderr);
    stderr = g_err_stream;
    /* stdout: the --help text kept, or (quiet) dropped; the standard streams are plain
     * variables in glibc, as for stderr */
    FILE *so = help || tee->quiet ? g_out_stream : NULL;
    if (so) {
        fflush(old_stdout);
        stdout = so;
    }
    g_interrupted = 0;
    g_aborted = 0;
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    /* a SIGINT the process ignores (nohup, SIG_IGN) stays ignored */
    const int handled = sigaction(SIGINT, NULL, &old_sa) == 0 && old_sa.sa_handler != SIG_IGN &&
                        sigaction(SIGINT, &sa, &old_sa) == 0;

    e->json = json;
    e->interrupt = &g_interrupted;
    cli_set_command_line(argc + 2, full);
    cli_set_events_in_memory(1); /* a loading flag's message: the events are the caller's */
    /* a --curve that lost lines fails the run, as the command's main does (and its
     * descriptor, a FIFO's, is closed here rather than at the next run) */
    const int status = cli_curve_end(is_eval    ? cli_eval_embedded(argc, full + 2, e)
                                     : is_sched ? cli_schedule_embedded(argc, full + 2, e)
                                                : cli_train_embedded(argc, full + 2, e));
    cli_set_command_line(0, NULL);
    cli_set_events_in_memory(0);

    if (handled) sigaction(SIGINT, &old_sa, NULL);
    if (so) stdout = old_stdout;
    stderr = old_stderr;
    if (tee->quiet) tee_line_end(tee, 0);
    atomic_store(&g_owned, 0); /* from here any write to the streams passes through */
    char *help_buf = NULL;
    if (help && !g_sink.oom) help_buf = strdup(g_sink.text ? g_sink.text : "");
    int rc = DGNN_OK;
    if (g_aborted) { /* even when the run got through: the caller failed */
        capi_set_msg(msg, cap, "aborted by the on_epoch callback");
        rc = DGNN_EINTR;
    } else if (g_interrupted) { /* even when the run got through (Ctrl-C during the test): the user asked to stop */
        capi_set_msg(msg, cap, "interrupted");
        rc = DGNN_EINTR;
    } else if (status != 0) {
        last_error_line(tee, msg, cap, failed);
        rc = status == 2 ? DGNN_EINVAL : DGNN_EIO;
    }
    /* a run that got through and then could not write an output keeps its results for
     * the caller (capi.h); a usage error, an interruption or an abort returns none */
    if (rc != DGNN_OK && rc != DGNN_EIO) {
        free(*json);
        *json = NULL;
    }
    if (help && rc == DGNN_OK && !help_buf) {
        capi_set_msg(msg, cap, oom);
        rc = DGNN_ENOMEM;
    }
    if (help && rc == DGNN_OK) *help = help_buf;
    else free(help_buf);
    free(full);
    atomic_flag_clear(&g_busy);
    return rc;
}

/* The arguments every call that runs a command shares, checked before any is read: fn's
 * name in the message; out (json, or dgnn_capi_help's text) receives the result. 0, or
 * DGNN_EINVAL with the message (a negative argc sized run_embedded's copy of argv below
 * its writes; a NULL flag reached the command's strcmp). */
static int check_call(const char *fn, const dgnn_capi_events *ev, int argc, const char *const *argv, char **out,
                      const char *out_name, char *msg, size_t cap) {
    char text[256];
    text[0] = 0;
    if (out) *out = NULL;
    if (!out) snprintf(text, sizeof text, "%s: %s is NULL (it receives the result)", fn, out_name);
    else if (!ev) snprintf(text, sizeof text, "%s: ev is NULL (an events table: dgnn_capi_events_from_arrays or "
                           "dgnn_capi_events_load)", fn);
    else if (argc < 0) snprintf(text, sizeof text, "%s: argc is %d (the number of flags in argv: 0 or more)", fn, argc);
    else if (argc > INT_MAX - 4) snprintf(text, sizeof text, "%s: argc is %d: too many flags", fn, argc);
    else if (argc > 0 && !argv) snprintf(text, sizeof text, "%s: argv is NULL with argc %d", fn, argc);
    for (int i = 0; !text[0] && i < argc; i++)
        if (!argv[i]) snprintf(text, sizeof text, "%s: argv[%d] is NULL (argc %d: argv holds that many strings)", fn, i, argc);
    if (!text[0]) return DGNN_OK;
    capi_set_msg(msg, cap, text);
    return DGNN_EINVAL;
}

int dgnn_capi_train(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv,
                    dgnn_capi_epoch_fn on_epoch, void *ctx, char **json, char *msg, size_t cap) {
    if (check_call("dgnn_capi_train", ev, argc, argv, json, "json", msg, cap)) return DGNN_EINVAL;
    epoch_hook hook = {on_epoch, ctx};
    cli_train_embed e = {.events = &ev->ev, .dataset = dataset, .source = ev->source,
                         .on_epoch = on_epoch ? call_epoch : NULL, .on_epoch_ctx = &hook};
    return run_embedded("train", &e, argc, argv, json, msg, cap, NULL);
}

int dgnn_capi_help(const dgnn_capi_events *ev, const char *cmd, int argc, const char *const *argv, char **text,
                   char *msg, size_t cap) {
    if (check_call("dgnn_capi_help", ev, argc, argv, text, "text", msg, cap)) return DGNN_EINVAL;
    if (!cmd || (strcmp(cmd, "train") != 0 && strcmp(cmd, "eval") != 0 && strcmp(cmd, "schedule") != 0)) {
        capi_set_msg(msg, cap, "dgnn_capi_help: cmd is train, eval or schedule");
        return DGNN_EINVAL;
    }
    const char **av = malloc((size_t)(argc + 2) * sizeof *av);
    if (!av) {
        capi_set_msg(msg, cap, "dgnn: out of memory");
        return DGNN_ENOMEM;
    }
    for (int i = 0; i < argc; i++) av[i] = argv[i];
    av[argc] = "--help", av[argc + 1] = NULL;
    cli_train_embed e = {.events = &ev->ev};
    char *json = NULL;
    const int rc = run_embedded(cmd, &e, argc + 1, av, &json, msg, cap, text);
    free(json);
    free(av);
    return rc;
}

/* The value of key in section "settings" (checkpoint.h's key=value lines) of dir's
 * checkpoint into value; 0, DGNN_EINVAL when absent, or the checkpoint's error. */
static int ckpt_setting(const char *dir, const char *key, char *value, size_t vcap, dgnn_err *err) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    dgnn_ckpt *c;
    int rc = dgnn_ckpt_open(&c, path, err);
    if (rc) return rc;
    const void *data = NULL;
    size_t n = 0;
    rc = dgnn_ckpt_has(c, "settings") ? dgnn_ckpt_get(c, "settings", &data, &n, err) : DGNN_EINVAL;
    const size_t klen = strlen(key);
    int found = 0;
    for (const char *t = data, *end = t ? t + n : NULL; !rc && !found && t && t < end;) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        if (!nl) nl = end;
        if ((size_t)(nl - t) > klen && memcmp(t, key, klen) == 0 && t[klen] == '=') {
            snprintf(value, vcap, "%.*s", (int)(nl - t - (ptrdiff_t)klen - 1), t + klen + 1);
            found = 1;
        }
        t = nl + 1;
    }
    if (!rc && !found) rc = DGNN_EINVAL;
    if (rc == DGNN_EINVAL) dgnn_err_set(err, rc, "checkpoint %s: no saved setting '%s'", path, key);
    dgnn_ckpt_close(c);
    return rc;
}

int dgnn_capi_checkpoint_setting(const char *dir, const char *key, char *value, size_t vcap, char *msg, size_t cap) {
    if (value && vcap) value[0] = 0;
    if (!dir || !key || (!value && vcap)) {
        capi_set_msg(msg, cap, !dir ? "dgnn_capi_checkpoint_setting: dir is NULL"
                               : !key ? "dgnn_capi_checkpoint_setting: key is NULL"
                                      : "dgnn_capi_checkpoint_setting: value is NULL with vcap > 0");
        return DGNN_EINVAL;
    }
    dgnn_err err;
    dgnn_err_clear(&err);
    const int rc = ckpt_setting(dir, key, value, vcap, &err);
    capi_set_msg(msg, cap, rc ? err.msg : "");
    return rc;
}

/* dgnn eval reads the event models' checkpoints: a snapshot model's (its saved "model"
 * setting) is told as such before its sections are read as an event model's (which says
 * "section 'meta' has 208 bytes, expected 136 ..."). 0, or DGNN_EINVAL with the message. */
static int refuse_snapshot_checkpoint(int argc, const char *const *argv, char *msg, size_t cap) {
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--checkpoint") == 0 && i + 1 < argc) dir = argv[i + 1];
        else if (strncmp(argv[i], "--checkpoint=", 13) == 0) dir = argv[i] + 13;
    }
    char model[96];
    dgnn_err err;
    dgnn_err_clear(&err);
    if (!dir || ckpt_setting(dir, "model", model, sizeof model, &err) != DGNN_OK) return DGNN_OK; /* eval's own checks */
    char *av[3] = {"--model", model, NULL};
    if (!cli_is_snapshot_model(2, av)) return DGNN_OK;
    char text[1024 + 4096];
    snprintf(text, sizeof text, "dgnn eval: --checkpoint %s is a snapshot model's checkpoint (dgnn train --model %s): "
             "dgnn eval reads the event models' checkpoints only (tgn, jodie, dyrep, apan); the snapshot run's test "
             "figures are in its results (dgnn train's --out JSON, the dict dgnn.train returns), and dgnn train "
             "--model %s --checkpoint %s --resume continues it", dir, model, model, dir);
    capi_set_msg(msg, cap, text);
    return DGNN_EINVAL;
}

int dgnn_capi_schedule(const dgnn_capi_events *ev, const char *dataset, int argc, const char *const *argv, char **json,
                       char *msg, size_t cap) {
    if (check_call("dgnn_capi_schedule", ev, argc, argv, json, "json", msg, cap)) return DGNN_EINVAL;
    cli_train_embed e = {.events = &ev->ev, .dataset = dataset, .source = ev->source};
    return run_embedded("schedule", &e, argc, argv, json, msg, cap, NULL);
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
    if (emb_out) *emb_out = NULL;
    if (emb_dim) *emb_dim = 0;
    capi_set_msg(msg, cap, "");
    if (check_call("dgnn_capi_eval", ev, argc, argv, json, "json", msg, cap)) return DGNN_EINVAL;
    const char *bad = n_emb < 0 ? "n_emb is negative"
                      : n_score < 0 ? "n_score is negative"
                      : n_emb > 0 && !emb_nodes ? "emb_nodes is NULL with n_emb > 0"
                      : n_emb > 0 && !emb_t ? "emb_t is NULL with n_emb > 0"
                      : n_score > 0 && !score_src ? "score_src is NULL with n_score > 0"
                      : n_score > 0 && !score_dst ? "score_dst is NULL with n_score > 0"
                      : n_score > 0 && !score_t ? "score_t is NULL with n_score > 0"
                      : n_score > 0 && !score_out ? "score_out is NULL with n_score > 0"
                                                  : NULL;
    if (bad) {
        char text[160];
        snprintf(text, sizeof text, "dgnn_capi_eval: %s (n_emb %lld, n_score %lld)", bad, (long long)n_emb,
                 (long long)n_score);
        capi_set_msg(msg, cap, text);
        return DGNN_EINVAL;
    }
    if (!finite_times(emb_t, n_emb, msg, cap) || !finite_times(score_t, n_score, msg, cap)) return DGNN_EINVAL;
    if (refuse_snapshot_checkpoint(argc, argv, msg, cap)) return DGNN_EINVAL;
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
        cli_train_embed e = {.events = &ev->ev, .dataset = dataset, .source = ev->source};
        if (n_emb > 0) e.emb_nodes = nodes, e.emb_t = emb_t, e.emb_n = n_emb, e.emb_out = emb_out, e.emb_dim = emb_dim;
        if (n_score > 0) e.score_src = src, e.score_dst = dst, e.score_t = score_t, e.score_n = n_score, e.score_out = score_out;
        rc = run_embedded("eval", &e, argc, argv, json, msg, cap, NULL);
        if (rc && emb_out) free(*emb_out), *emb_out = NULL;
    }
    free(nodes), free(src), free(dst);
    return rc;
}

void dgnn_capi_free_floats(float *p) { free(p); }
