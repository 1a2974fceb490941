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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn_build_info.h"
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

/* a fresh curve's file is emptied by its first line, not before: a run refused or failed
 * before its first epoch ends leaves what the file held */
static int g_curve_fresh;

int cli_curve_start(const char *cmd, const char *path, int resume) {
    g_curve_fresh = !resume;
    FILE *f = NULL;
    if (resume) {
        f = curve_open(path, 0);
    } else {
        /* a file there must take writes (a FIFO a reader), told now; one to come was checked
         * with the outputs (its folder) */
        int fd = open(path, O_WRONLY | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT) return 0;
        if (fd >= 0) f = fdopen(fd, "a");
        if (fd >= 0 && !f) close(fd);
    }
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
    FILE *f = text ? curve_open(path, g_curve_fresh) : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = 0;
    if (f) g_curve_fresh = 0;
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

/* 1 when outs[i] (an output file) is an input or an earlier output file, with the message */
static int clobbers(const char *cmd, const cli_output *outs, int n, int i) {
    file_id me, other;
    file_id_of(outs[i].path, &me);
    for (int j = 0; j < n; j++) {
        if (j == i || !outs[j].path || outs[j].role == CLI_OUT_FOLDER || (outs[j].role == CLI_OUT_FILE && j > i))
            continue;
        const char *p = outs[j].path, *end;
        do { /* each path of a list */
            end = outs[j].role == CLI_IN_LIST ? strchr(p, ',') : NULL;
            char one[PATH_MAX];
            const size_t len = end ? (size_t)(end - p) : strlen(p);
            snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), p);
            file_id_of(one, &other);
            if (one[0] && file_id_same(&me, &other)) {
                if (outs[j].role == CLI_OUT_FILE)
                    fprintf(stderr, "dgnn %s: %s %s and %s %s are the same file: one would overwrite the other\n", cmd,
                            outs[j].flag, one, outs[i].flag, outs[i].path);
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

int cli_check_outputs(const char *cmd, const cli_output *outs, int n) {
    int bad = 0;
    if (dgnn_comm_rank() == 0) {
        for (int i = 0; i < n; i++) {
            if (!outs[i].path || outs[i].role == CLI_IN || outs[i].role == CLI_IN_LIST) continue;
            dgnn_err err;
            dgnn_err_clear(&err);
            int rc = outs[i].role == CLI_OUT_FOLDER ? dgnn_ckpt_dir_check(outs[i].path, &err)
                                                    : dgnn_outfile_check(outs[i].path, &err);
            if (rc != DGNN_OK) {
                fprintf(stderr, "dgnn %s: %s %s: %s\n", cmd, outs[i].flag, outs[i].path, err.msg);
                bad = 1;
            } else if (outs[i].role == CLI_OUT_FILE && clobbers(cmd, outs, n, i)) {
                bad = 1;
            }
        }
    }
    /* rank 0 writes every output; the others learn its verdict (a no-op in one process) */
    int32_t b = bad;
    dgnn_comm_bcast(&b, sizeof b, 0);
    return b ? 2 : 0;
}
