/* cli_common.c: what the subcommands share (cli.h): loading with the dataset flags, the
 * results' JSON and its run record, --curve, the output checks. Apart from main.c so that
 * libdgnn.so can hold the commands (cli_train_embedded, for the Python package) without
 * the process-level setup of main(). */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn_build_info.h"
#include "dgnn/base.h"
#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"
#include "dgnn/outfile.h"

/* the command line, for cli_add_run_info */
static int g_argc;
static char **g_argv;

void cli_set_command_line(int argc, char **argv) { g_argc = argc, g_argv = argv; }

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

/* 1: the events are the caller's, in memory (cli_set_events_in_memory) */
static int g_in_memory;

void cli_set_events_in_memory(int on) { g_in_memory = on; }

int cli_load_flags_unused_why(const char *cmd, const cli_load_flags *f, const char *why) {
    const char *given = f->format ? "format" : f->columns ? "columns" : f->bipartite ? "bipartite"
                        : f->not_bipartite ? "not-bipartite" : f->edge_feat ? "edge-feat" : f->node_feat ? "node-feat"
                                                                                                          : NULL;
    if (!given) return 0;
    if (why)
        fprintf(stderr, "dgnn %s: --%s describes the --data file, but %s\n", cmd, given, why);
    else if (g_in_memory) /* in-process: nothing is read, so nothing for the flag to describe */
        fprintf(stderr, "dgnn %s: --%s describes a data file to read, but the events are given in memory (dgnn.%s's "
                        "data): no file is read\n", cmd, given, cmd);
    else
        fprintf(stderr, "dgnn %s: --%s describes the --data file, but no --data is given (the built-in data would "
                        "ignore it)\n", cmd, given);
    return 2;
}

int cli_load_flags_unused(const char *cmd, const cli_load_flags *f) { return cli_load_flags_unused_why(cmd, f, NULL); }

int cli_ranks_agree(const char *cmd, const dgnn_ckpt_run *opts) {
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_ckpt_ranks_agree(opts, "command-line options", &err) == DGNN_OK) return 0;
    if (dgnn_comm_rank() == 0) fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
    dgnn_comm_finalize();
    return 2;
}

int cli_ranks_loaded(const char *cmd, int rc) {
    const int P = dgnn_comm_size();
    if (P <= 1) return rc;
    int32_t mine = rc, *all = dgnn_xmalloc((size_t)P * sizeof *all);
    int64_t *counts = dgnn_xmalloc((size_t)P * sizeof *counts);
    dgnn_comm_allgatherv_bytes(all, counts, &mine, sizeof mine);
    int first = -1, n = 0;
    for (int q = 0; q < P; q++)
        if (all[q]) n++, first = first < 0 ? q : first;
    const int code = first >= 0 ? all[first] : 0;
    if (first >= 0 && dgnn_comm_rank() == 0)
        fprintf(stderr, "dgnn %s: rank %d%s could not use its --data (its message above): every rank stops\n", cmd,
                first, n > 1 ? " and others" : "");
    free(all);
    free(counts);
    return code;
}

/* A command that runs in one process, started by an MPI launcher as one of several
 * (mpirun -np 2 dgnn train without --dist), would run in full in each: every copy trains
 * on all the data and writes the same outputs, a race on the same files. The launcher's
 * environment says so before (or without) MPI_Init: Open MPI's OMPI_COMM_WORLD_SIZE,
 * Hydra's (MPICH, Intel MPI) and srun --mpi=pmi2's PMI_SIZE, Hydra's MPI_LOCALNRANKS (the
 * processes on this machine). cli.h. */
int cli_refuse_copies(const char *cmd, const char *why) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end = NULL;
        const long n = v ? strtol(v, &end, 10) : 0;
        if (!v || end == v || *end || n <= 1) continue;
        /* every copy stops; the first (rank 0, when the launcher says which) tells why */
        const char *rank = getenv("OMPI_COMM_WORLD_RANK");
        if (!rank) rank = getenv("PMI_RANK");
        if (!rank || strcmp(rank, "0") == 0)
            fprintf(stderr, "dgnn %s: this process is one of %ld that an MPI launcher started (%s=%s): %s\n", cmd,
                    n, vars[i], v, why);
        return 1;
    }
    return 0;
}

void cli_comm_timeout(double seconds) { /* its range is the option table's (CLI_COMM_TIMEOUT_OPT) */
    if (CLI_GIVEN_F(seconds)) dgnn_comm_set_timeout(seconds);
}

int cli_device_parse(const char *cmd, const char *s, int *use_cuda, int *index) {
    *use_cuda = 0, *index = 0;
    if (!s || strcmp(s, "cpu") == 0) return 0;
    if (strcmp(s, "cuda") == 0) {
        *use_cuda = 1;
        return 0;
    }
    if (strncmp(s, "cuda:", 5) == 0 && s[5] >= '0' && s[5] <= '9') {
        char *end;
        long v = strtol(s + 5, &end, 10);
        if (*end == '\0' && v >= 0 && v < 1024) {
            *use_cuda = 1, *index = (int)v;
            return 0;
        }
    }
    fprintf(stderr, "dgnn %s: --device: '%s' (cpu, cuda, cuda:N)\n", cmd, s);
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

/* --curve's state for the run (one per process: rank 0 writes it). A regular file is opened
 * and closed for each line, so that a killed run keeps what it wrote; anything else (a
 * FIFO, a device, the process's own standard output or error) keeps one descriptor for the
 * whole run, so that a reader sees one stream (a FIFO opened and closed per line gave its
 * reader EOF after the first). */
typedef struct {
    int on;                /* cli_curve_start called, cli_curve_end not yet */
    int start_errno;       /* nonzero: cli_curve_start failed (no line is written) */
    int fresh;             /* no line yet, not resuming: the first one empties the file */
    int resumed;           /* resuming, no line yet: the first one drops what the checkpoint lacks */
    int fd;                /* the descriptor kept for the run, or -1 (a regular file) */
    FILE *shared;          /* the stdio stream fd shares (stdout, stderr), flushed before a line */
    int64_t lost;          /* lines that could not be written */
    int64_t lost_epoch;    /* the first of them */
    int lost_errno;        /* and why */
    char cmd[32];
    char path[PATH_MAX];
} curve_state;
static curve_state g_curve = {.fd = -1};

/* the process's own standard output or error that path names (/dev/stdout, or the file
 * behind > FILE): its stream, or NULL */
static FILE *curve_std_stream(const struct stat *st, int *fdno) {
    struct stat s;
    if (fstat(STDOUT_FILENO, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
        return *fdno = STDOUT_FILENO, stdout;
    if (fstat(STDERR_FILENO, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
        return *fdno = STDERR_FILENO, stderr;
    return NULL;
}

/* path opened for writing without blocking on a FIFO that has no reader (ENXIO then),
 * blocking again once open; -1 with errno */
static int curve_open(const char *path, int flags) {
    int fd = open(path, (flags & O_RDWR ? 0 : O_WRONLY) | O_NONBLOCK | flags, 0666);
    if (fd < 0) return -1;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* all n bytes to fd, or -1 with errno. A reader that went away is EPIPE here, not the
 * SIGPIPE that would kill the run (blocked around the write, and a SIGPIPE it raised
 * taken back unless one was pending before). */
static int curve_write_all(int fd, const char *p, size_t n) {
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    const int was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int rc = 0, e = 0;
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO, rc = -1;
            break;
        }
        p += w, n -= (size_t)w;
    }
    if (e == EPIPE && !was_pending) {
        const struct timespec now = {0, 0};
        sigtimedwait(&pipe_set, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return rc;
}

/* On the first line of a resumed run (epoch `next`): the lines after the last one the
 * checkpoint holds are what an interrupted or failed run wrote before its checkpoint
 * (the line is written first) or a line cut short; they go, so that the curve is the
 * checkpoint's. The file keeps its lines up to the first one that is not a whole JSON
 * object of an epoch before `next`. */
static void curve_drop_unheld(int fd, int64_t next) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return;
    const size_t size = (size_t)st.st_size;
    char *buf = malloc(size);
    if (!buf) return;
    size_t got = 0;
    while (got < size) {
        const ssize_t r = pread(fd, buf + got, size - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    size_t keep = 0;
    while (got == size && keep < size) {
        const char *nl = memchr(buf + keep, '\n', size - keep);
        if (!nl) break;
        cJSON *o = cJSON_ParseWithLength(buf + keep, (size_t)(nl - (buf + keep)));
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "epoch");
        const int held = cJSON_IsObject(o) && cJSON_IsNumber(e) && e->valuedouble < (double)next;
        cJSON_Delete(o);
        if (!held) break;
        keep = (size_t)(nl - buf) + 1;
    }
    if (got == size && keep < size) {
        int64_t lines = 0;
        for (size_t i = keep; i < size; i++) lines += buf[i] == '\n';
        if (buf[size - 1] != '\n') lines++; /* a line cut short */
        if (ftruncate(fd, (off_t)keep) == 0)
            dgnn_log("dgnn %s: --curve %s: %lld line%s after epoch %lld, the checkpoint's last, removed (written by "
                     "a run that stopped or failed before its checkpoint); this run writes its epochs anew\n",
                     g_curve.cmd, g_curve.path, (long long)lines, lines == 1 ? "" : "s", (long long)(next - 1));
    }
    free(buf);
}

int cli_curve_start(const char *cmd, const char *path, int resume) {
    if (g_curve.fd >= 0) close(g_curve.fd); /* an earlier in-process run's */
    g_curve = (curve_state){.on = 1, .fresh = !resume, .resumed = resume, .fd = -1};
    snprintf(g_curve.cmd, sizeof g_curve.cmd, "%s", cmd);
    snprintf(g_curve.path, sizeof g_curve.path, "%s", path);
    struct stat st;
    int fdno, ok = 1;
    const int dash = dgnn_outfile_is_stdout(path);
    FILE *std = !dash && stat(path, &st) == 0 ? curve_std_stream(&st, &fdno) : NULL;
    if (dash) { /* "-": the lines alone on standard output */
        dgnn_err e;
        dgnn_err_clear(&e);
        const int so = dgnn_outfile_stdout_fd(&e);
        g_curve.fd = so >= 0 ? dup(so) : -1;
        ok = g_curve.fd >= 0;
        if (so < 0) errno = EBADF;
    } else if (std) { /* the process's own output: written at its offset, after what its stream holds */
        g_curve.fd = dup(fdno), g_curve.shared = std;
        ok = g_curve.fd >= 0;
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a FIFO (with a reader now), a device */
        g_curve.fd = curve_open(path, O_APPEND);
        ok = g_curve.fd >= 0;
    } else {
        /* a regular file, reopened for each line, must take writes: told now (one to come
         * was checked with the outputs: its folder) */
        const int fd = curve_open(path, resume ? O_APPEND | O_CREAT : 0);
        ok = fd >= 0 ? close(fd) == 0 : errno == ENOENT && !resume;
    }
    if (g_curve.fd >= 0) g_curve.fresh = g_curve.resumed = 0; /* a stream: nothing to empty or drop */
    if (!ok) {
        g_curve.start_errno = errno ? errno : EIO;
        fprintf(stderr, "dgnn %s: --curve %s: cannot write: %s\n", cmd, path,
                errno == ENXIO ? "a FIFO without a reader" : strerror(errno));
        return 1;
    }
    return 0;
}

/* writes line (n bytes, its newline included) whole or not at all; 0, or -1 with errno */
static int curve_write_line(const char *line, size_t n, int64_t epoch) {
    if (g_curve.fd >= 0) { /* a stream: a pipe takes a line this short whole (PIPE_BUF) */
        if (g_curve.shared) fflush(g_curve.shared);
        return curve_write_all(g_curve.fd, line, n);
    }
    const int flags = O_CREAT | (g_curve.fresh ? O_TRUNC : O_APPEND);
    int fd = g_curve.resumed ? curve_open(g_curve.path, flags | O_RDWR) : -1; /* read to drop lines */
    if (fd < 0) fd = curve_open(g_curve.path, flags);
    if (fd < 0) return -1;
    g_curve.fresh = 0;
    if (g_curve.resumed && epoch > 0) curve_drop_unheld(fd, epoch);
    g_curve.resumed = 0;
    struct stat st;
    const int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    int rc = curve_write_all(fd, line, n), e = errno;
    if (rc != 0 && regular) (void)!ftruncate(fd, st.st_size); /* a short write taken back */
    if (close(fd) != 0 && rc == 0) {
        rc = -1, e = errno;
        if (regular) (void)!truncate(g_curve.path, st.st_size);
    }
    errno = e;
    return rc;
}

void cli_curve_append(const char *path, cJSON *o) {
    (void)path; /* cli_curve_start's */
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(o, "epoch");
    const int64_t epoch = cJSON_IsNumber(ep) ? (int64_t)ep->valuedouble : 0;
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    const size_t n = text ? strlen(text) : 0;
    char *line = text ? realloc(text, n + 2) : NULL;
    if (line) line[n] = '\n', line[n + 1] = 0;
    else free(text), errno = ENOMEM;
    if (g_curve.start_errno || !line || curve_write_line(line, n + 1, epoch) != 0) {
        if (g_curve.lost++ == 0) {
            g_curve.lost_epoch = epoch, g_curve.lost_errno = errno;
            fprintf(stderr, "dgnn %s: warning: --curve %s: epoch %lld's line could not be written (%s); training goes "
                    "on, and the run ends with exit 1\n", g_curve.cmd, g_curve.path, (long long)epoch,
                    strerror(g_curve.lost_errno));
        }
    }
    free(line);
}

int cli_curve_end(int rc) {
    if (!g_curve.on) return rc;
    g_curve.on = 0;
    if (g_curve.fd >= 0 && close(g_curve.fd) != 0 && g_curve.lost == 0)
        g_curve.lost = 1, g_curve.lost_epoch = 0, g_curve.lost_errno = errno;
    g_curve.fd = -1;
    if (rc != 0) return rc; /* a failed run has said why */
    if (g_curve.start_errno) {
        fprintf(stderr, "dgnn %s: --curve %s: not written (%s)\n", g_curve.cmd, g_curve.path,
                g_curve.start_errno == ENXIO ? "a FIFO without a reader" : strerror(g_curve.start_errno));
        return 1;
    }
    if (!g_curve.lost) return 0;
    fprintf(stderr, "dgnn %s: --curve %s: %lld epoch line%s could not be written (the first, epoch %lld: %s): the "
            "curve is incomplete\n", g_curve.cmd, g_curve.path, (long long)g_curve.lost, g_curve.lost == 1 ? "" : "s",
            (long long)g_curve.lost_epoch, strerror(g_curve.lost_errno));
    return 1;
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

/* What a path names, to compare two: a file that exists by its device and inode, one
 * that does not (for a dangling link: its target) by its folder's real path and its name
 * (a path whose folder cannot be resolved compares by its text). shareable: a device,
 * FIFO or socket, which any number of outputs may name (/dev/null twice). */
typedef struct {
    int exists, shareable;
    dev_t dev;
    ino_t ino;
    char where[PATH_MAX + NAME_MAX + 2];
} file_id;

static void file_id_of(const char *path, file_id *f) {
    struct stat st;
    memset(f, 0, sizeof *f);
    if (stat(path, &st) == 0) {
        f->exists = 1, f->dev = st.st_dev, f->ino = st.st_ino;
        f->shareable = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
        return;
    }
    /* a dangling link names the file its writer creates (outfile.c follows it): its
     * target's, followed to the end of the chain */
    char p[PATH_MAX], link[PATH_MAX], a[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (int hops = 0; hops < 40 && lstat(p, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        const ssize_t n = readlink(p, link, sizeof link - 1);
        if (n <= 0 || (size_t)n >= sizeof link - 1) break;
        link[n] = 0;
        if (link[0] == '/') {
            snprintf(p, sizeof p, "%s", link);
        } else { /* relative to the folder holding the link */
            snprintf(a, sizeof a, "%s", p);
            char *slash = strrchr(a, '/');
            if (slash) slash[1] = 0;
            else a[0] = 0;
            if ((size_t)snprintf(p, sizeof p, "%s%s", a, link) >= sizeof p) break;
        }
    }
    snprintf(a, sizeof a, "%s", p), snprintf(b, sizeof b, "%s", p);
    if (realpath(dirname(a), dir)) snprintf(f->where, sizeof f->where, "%s/%s", dir, basename(b));
    else snprintf(f->where, sizeof f->where, "%s", p);
}

static int file_id_same(const file_id *a, const file_id *b) {
    if (a->exists != b->exists) return 0;
    if (a->exists) return a->dev == b->dev && a->ino == b->ino && !a->shareable;
    return strcmp(a->where, b->where) == 0;
}

/* The file an output names, to compare: its path, or for a folder (--checkpoint DIR) the
 * checkpoint file in it, which the run writes (and reads on --resume): --out
 * DIR/checkpoint.dgnnckpt would replace the checkpoint, or the checkpoint the JSON */
static void output_file(const cli_output *o, char *buf, size_t cap) {
    if (o->role == CLI_OUT_FOLDER) dgnn_ckpt_dir_path(buf, cap, o->path);
    else snprintf(buf, cap, "%s", o->path);
}

/* 1 when outs[i] (an output file, or a folder's checkpoint file) is an input or the file
 * of an earlier output, with the message */
static int clobbers(const char *cmd, const cli_output *outs, int n, int i) {
    file_id me, other;
    char mine[PATH_MAX];
    output_file(&outs[i], mine, sizeof mine);
    file_id_of(mine, &me);
    for (int j = 0; j < n; j++) {
        const int out_j = outs[j].role == CLI_OUT_FILE || outs[j].role == CLI_OUT_FOLDER;
        if (j == i || !outs[j].path || (out_j && j > i)) continue; /* of two outputs, the later one tells */
        const char *p = outs[j].path, *end;
        do { /* each path of a list */
            end = outs[j].role == CLI_IN_LIST ? strchr(p, ',') : NULL;
            char one[PATH_MAX];
            const size_t len = end ? (size_t)(end - p) : strlen(p);
            if (outs[j].role == CLI_OUT_FOLDER) output_file(&outs[j], one, sizeof one);
            else snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), p);
            file_id_of(one, &other);
            if (one[0] && file_id_same(&me, &other)) {
                const cli_output *dir = outs[i].role == CLI_OUT_FOLDER   ? &outs[i]
                                        : outs[j].role == CLI_OUT_FOLDER ? &outs[j]
                                                                         : NULL;
                if (dir && out_j) /* a file and the checkpoint file of a folder */
                    fprintf(stderr, "dgnn %s: %s %s is the checkpoint file of %s %s: one would overwrite the other\n",
                            cmd, dir == &outs[i] ? outs[j].flag : outs[i].flag, dir == &outs[i] ? one : outs[i].path,
                            dir->flag, dir->path);
                else if (outs[j].role == CLI_OUT_FILE && dgnn_outfile_is_stdout(one))
                    fprintf(stderr, "dgnn %s: %s - and %s - would both write to standard output: give one a file\n", cmd,
                            outs[j].flag, outs[i].flag);
                else if (outs[j].role == CLI_OUT_FILE)
                    fprintf(stderr, "dgnn %s: %s %s and %s %s are the same file: one would overwrite the other\n", cmd,
                            outs[j].flag, one, outs[i].flag, outs[i].path);
                else if (dir)
                    fprintf(stderr, "dgnn %s: %s %s writes its checkpoint file %s, the file %s reads: writing it would "
                                    "destroy the input\n", cmd, outs[i].flag, outs[i].path, mine, outs[j].flag);
                else
                    fprintf(stderr, "dgnn %s: %s %s is the file %s reads: writing it would destroy the input\n", cmd,
                            outs[i].flag, outs[i].path, outs[j].flag);
                return 1;
            }
            p = end ? end + 1 : NULL;
        } while (p);
    }
    return 0;
}

int cli_ckpt_take(const char *cmd, const char *dir, int resume, int *lock) {
    dgnn_err err;
    dgnn_err_clear(&err);
    struct stat st;
    const int absent = stat(dir, &st) != 0;
    if ((!(resume && absent) && dgnn_ckpt_dir_lock(dir, lock, &err) != DGNN_OK) ||
        (!resume && dgnn_ckpt_dir_fresh(dir, &err) != DGNN_OK)) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, err.msg);
        return 1;
    }
    return 0;
}

int cli_check_outputs(const char *cmd, const cli_output *outs, int n) {
    int bad = 0;
    if (dgnn_comm_rank() == 0) {
        for (int i = 0; i < n; i++) {
            if (!outs[i].path || outs[i].role == CLI_IN || outs[i].role == CLI_IN_LIST) continue;
            dgnn_err err;
            dgnn_err_clear(&err);
            int rc = outs[i].role != CLI_OUT_FOLDER ? dgnn_outfile_check(outs[i].path, &err)
                     : dgnn_outfile_is_stdout(outs[i].path)
                         ? dgnn_err_set(&err, DGNN_EINVAL, "a folder is needed: - (standard output) holds no checkpoint")
                         : dgnn_ckpt_dir_check(outs[i].path, &err);
            if (rc != DGNN_OK) {
                fprintf(stderr, "dgnn %s: %s %s: %s\n", cmd, outs[i].flag, outs[i].path, err.msg);
                bad = 1;
            } else if (clobbers(cmd, outs, n, i)) { /* an output file, or a folder's checkpoint file */
                bad = 1;
            }
        }
    }
    /* rank 0 writes every output; the others learn its verdict (a no-op in one process) */
    int32_t b = bad;
    dgnn_comm_bcast(&b, sizeof b, 0);
    return b ? 2 : 0;
}
