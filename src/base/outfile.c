/* outfile.c: safe output files: symlinks followed, devices and FIFOs written through,
 * everything else written to a temporary file beside the target and renamed into place;
 * stale temporaries of dead writers removed. The rules are in outfile.h. */
#define _GNU_SOURCE /* fopencookie, O_TMPFILE */
#include "dgnn/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_LINK_HOPS 40 /* as the kernel's own limit on a path's symlinks */

struct dgnn_outfile {
    char *path;   /* as given, for messages */
    char *final;  /* path with its symlinks followed: the file that is replaced */
    char *tmp;    /* the temporary file beside final; NULL when written through */
    int existed;  /* final existed when opened (a regular file, for the rename case) */
    int fd;       /* what the writer writes: tmp, the target itself, or the spool */
    int target;   /* written through with a spool: the target's descriptor, else -1 */
    FILE *stream; /* lazily made over fd */
    int werr;     /* errno of the first failed write through the stream */
};

/* ------------------------------------------------------------------ path helpers */

/* The folder of p ("." when p has no slash, "/" for "/x"); malloc'd. */
static char *dir_of(const char *p) {
    const char *s = strrchr(p, '/');
    if (!s) return strdup(".");
    if (s == p) return strdup("/");
    return strndup(p, (size_t)(s - p));
}

static const char *base_of(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Follows path through its symlinks to the file that will be written. *final is
 * malloc'd; *exists says whether it exists (then *st is its lstat, not a link). A
 * dangling link gives its target with *exists = 0. Returns 0, or -1 with errno.
 * The kernel's own links in /proc (/dev/stdout -> /proc/self/fd/1) do not read as a path
 * when they lead to a pipe or socket ("pipe:[1234]"): such a link, whose text names
 * nothing while the link itself opens (stat follows it), is the file: *final is the
 * link, *st what it leads to (a pipe is a FIFO, written through as one). */
static int resolve(const char *path, char **final, struct stat *st, int *exists) {
    char *p = strdup(path), *link_path = NULL; /* link_path: the link p was read from */
    if (!p) return -1;
    for (int hops = 0;; hops++) {
        if (lstat(p, st) != 0) {
            int e = errno;
            if (e == ENOENT && link_path && stat(link_path, st) == 0) { /* a kernel link: see above */
                free(p);
                *final = link_path, *exists = 1;
                return 0;
            }
            free(link_path);
            if (e == ENOENT) {
                *final = p, *exists = 0;
                return 0;
            }
            free(p);
            errno = e;
            return -1;
        }
        if (!S_ISLNK(st->st_mode)) {
            free(link_path);
            *final = p, *exists = 1;
            return 0;
        }
        char link[PATH_MAX];
        ssize_t n = -1;
        int e = ELOOP;
        if (hops < MAX_LINK_HOPS) {
            n = readlink(p, link, sizeof link - 1);
            e = n < 0 ? errno : ENAMETOOLONG;
        }
        free(link_path);
        link_path = NULL;
        if (n < 0 || (size_t)n >= sizeof link - 1) {
            free(p);
            errno = e;
            return -1;
        }
        link[n] = '\0';
        char *next;
        if (link[0] == '/') {
            next = strdup(link);
        } else { /* relative to the folder holding the link */
            char *d = dir_of(p);
            next = d ? malloc(strlen(d) + strlen(link) + 2) : NULL;
            if (next) sprintf(next, "%s/%s", d, link);
            free(d);
        }
        link_path = p;
        if (!next) {
            free(link_path);
            return -1;
        }
        p = next;
    }
}

/* This host's name, restricted to [A-Za-z0-9._-] (others become '_'), for temp names. */
static void host_name(char *buf, size_t cap) {
    if (gethostname(buf, cap) != 0) snprintf(buf, cap, "localhost");
    buf[cap - 1] = '\0';
    if (!buf[0]) snprintf(buf, cap, "localhost");
    for (char *c = buf; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '-' || *c == '_'))
            *c = '_';
}

/* The prefix ".NAME.tmp.HOST." of the temporary files for a target called base; NAME is
 * cut so that a pid still fits in a file name (NAME_MAX). */
static void temp_prefix(char *buf, size_t cap, const char *base) {
    char host[65];
    host_name(host, sizeof host);
    size_t room = NAME_MAX - 1 - 5 - strlen(host) - 1 - 20; /* ".", ".tmp.", host, ".", pid */
    size_t bl = strlen(base);
    snprintf(buf, cap, ".%.*s.tmp.%s.", (int)(bl < room ? bl : room), base, host);
}

/* The temporary file of final for this process: FOLDER/.NAME.tmp.HOST.PID (malloc'd). */
static char *temp_path(const char *final) {
    char pre[NAME_MAX + 1];
    temp_prefix(pre, sizeof pre, base_of(final));
    char *d = dir_of(final);
    if (!d) return NULL;
    size_t cap = strlen(d) + strlen(pre) + 24;
    char *t = malloc(cap);
    if (t) snprintf(t, cap, "%s/%s%ld", d, pre, (long)getpid());
    free(d);
    return t;
}

/* Why a file cannot be created in final's folder, as a message tail (for errno e). */
static void folder_reason(char *buf, size_t cap, const char *final, int e) {
    char *d = dir_of(final);
    struct stat st;
    if (e == ENOENT || e == ENOTDIR) {
        if (d && stat(d, &st) == 0 && !S_ISDIR(st.st_mode)) snprintf(buf, cap, "%s is not a folder", d);
        else snprintf(buf, cap, "folder %s does not exist", d ? d : "?");
    } else {
        snprintf(buf, cap, "cannot create files in folder %s: %s", d ? d : "?", strerror(e));
    }
    free(d);
}

/* ------------------------------------------------------------------ stale temporaries */

int dgnn_outfile_clean_stale(const char *path) {
    char *final;
    struct stat st;
    int exists;
    if (resolve(path, &final, &st, &exists) != 0) return 0;
    char pre[NAME_MAX + 1];
    temp_prefix(pre, sizeof pre, base_of(final));
    size_t pl = strlen(pre);
    char *d = dir_of(final);
    free(final);
    DIR *dir = d ? opendir(d) : NULL;
    int removed = 0;
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir))) {
            const char *n = e->d_name;
            if (strncmp(n, pre, pl) != 0) continue;
            const char *digits = n + pl;
            size_t nd = strspn(digits, "0123456789");
            if (nd == 0 || nd > 10 || digits[nd] != '\0') continue; /* exactly the pattern */
            long pid = strtol(digits, NULL, 10);
            if (pid <= 0 || pid > INT_MAX || pid == (long)getpid()) continue;
            if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
            char *full = malloc(strlen(d) + strlen(n) + 2);
            if (!full) break;
            sprintf(full, "%s/%s", d, n);
            struct stat fs;
            if (lstat(full, &fs) == 0 && S_ISREG(fs.st_mode) && unlink(full) == 0) removed++;
            free(full);
        }
        closedir(dir);
    }
    free(d);
    return removed;
}

/* ------------------------------------------------------------------ the stream */

static ssize_t write_all(int fd, const char *p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (w == 0) { /* a device that takes nothing: a short write */
            errno = EIO;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

/* fopencookie's write: all bytes or an error, whose errno is kept for commit's message. */
static ssize_t cookie_write(void *c, const char *buf, size_t n) {
    dgnn_outfile *o = c;
    if (o->werr) return -1;
    if (write_all(o->fd, buf, n) < 0) {
        o->werr = errno;
        return -1;
    }
    return (ssize_t)n;
}

FILE *dgnn_outfile_stream(dgnn_outfile *o) {
    if (!o->stream) {
        cookie_io_functions_t io = {.read = NULL, .write = cookie_write, .seek = NULL, .close = NULL};
        o->stream = fopencookie(o, "w", io);
        DGNN_ASSERT(o->stream); /* only fails when out of memory */
    }
    return o->stream;
}

int dgnn_outfile_fd(const dgnn_outfile *o) { return o->fd; }
const char *dgnn_outfile_path(const dgnn_outfile *o) { return o->path; }
int dgnn_outfile_direct(const dgnn_outfile *o) { return o->tmp == NULL; }

/* ------------------------------------------ temporaries of a process stopped by a signal
 * The temporary file of every open writer is listed here; the handler that
 * dgnn_outfile_clean_on_signals installs removes them (unlink is async-signal-safe), then
 * lets the signal end the process as it would have. A slot holds a path from open until
 * just before the path is freed. */
enum { LIVE_MAX = 64 };
static char *g_live[LIVE_MAX];

static void live_add(char *tmp) {
    for (int i = 0; i < LIVE_MAX; i++) {
        char *none = NULL;
        if (__atomic_compare_exchange_n(&g_live[i], &none, tmp, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
    /* more writers open at once than slots: this one is left to dgnn_outfile_clean_stale */
}

static void live_remove(const char *tmp) {
    for (int i = 0; i < LIVE_MAX; i++) {
        char *was = (char *)tmp;
        if (__atomic_compare_exchange_n(&g_live[i], &was, NULL, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
}

static void on_stop_signal(int sig) {
    const int e = errno;
    for (int i = 0; i < LIVE_MAX; i++) {
        char *p = __atomic_load_n(&g_live[i], __ATOMIC_SEQ_CST);
        if (p) unlink(p);
    }
    errno = e;
    raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

void dgnn_outfile_clean_on_signals(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue; /* ignored or taken */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        (void)sigaction(sigs[i], &sa, NULL);
    }
}

/* ------------------------------------------------------------------ open / commit */

static void outfile_free(dgnn_outfile *o) {
    if (o->stream) fclose(o->stream); /* flushes into fd (or fails quietly); closes nothing */
    if (o->fd >= 0) close(o->fd);
    if (o->target >= 0) close(o->target);
    if (o->tmp) unlink(o->tmp), live_remove(o->tmp);
    free(o->path);
    free(o->final);
    free(o->tmp);
    free(o);
}

void dgnn_outfile_abort(dgnn_outfile *o) {
    if (!o) return;
    if (o->stream) {
        o->werr = o->werr ? o->werr : ECANCELED; /* nothing more reaches the file */
        fclose(o->stream);
        o->stream = NULL;
    }
    outfile_free(o);
}

/* "PATH" or "PATH (a link to FINAL)", for messages. */
static void name_of(char *buf, size_t cap, const char *path, const char *final) {
    if (final && strcmp(path, final) != 0) snprintf(buf, cap, "%s (a link to %s)", path, final);
    else snprintf(buf, cap, "%s", path);
}

/* An unlinked read-write file in $TMPDIR (or /tmp): the spool of a non-seekable target. */
static int spool_open(void) {
    const char *d = getenv("TMPDIR");
    if (!d || !*d) d = "/tmp";
    int fd = open(d, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char t[PATH_MAX];
    snprintf(t, sizeof t, "%s/.dgnn-spool.XXXXXX", d);
    fd = mkostemp(t, O_CLOEXEC);
    if (fd >= 0) unlink(t);
    return fd;
}

/* o writes through to fd (a device, a FIFO, standard output): directly, or where it must
 * seek and fd cannot, through a spool copied into fd at commit */
static int write_through(dgnn_outfile **out, dgnn_outfile *o, int fd, int flags, const char *name, dgnn_err *err) {
    if ((flags & DGNN_OUTFILE_SEEK) && lseek(fd, 0, SEEK_CUR) < 0) {
        o->target = fd;
        if ((o->fd = spool_open()) < 0) {
            int e = errno;
            outfile_free(o);
            return dgnn_err_set(err, DGNN_EIO, "cannot write %s: it cannot seek, and no spool file can be made in $TMPDIR: %s",
                                name, strerror(e));
        }
    } else {
        o->fd = fd;
    }
    *out = o;
    return DGNN_OK;
}

/* ------------------------------------------------------------------ "-": standard output */

static int g_stdout_claimable; /* set by the command (main.c): its own text may move to stderr */
static int g_stdout_fd = -1;   /* the standard output the process started with, once claimed */

void dgnn_outfile_stdout_claimable(void) { g_stdout_claimable = 1; }

int dgnn_outfile_is_stdout(const char *path) { return path && strcmp(path, "-") == 0; }

int dgnn_outfile_stdout_fd(dgnn_err *err) {
    if (g_stdout_fd >= 0) return g_stdout_fd;
    if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
        dgnn_err_set(err, DGNN_EIO, "standard output is closed");
        return -1;
    }
    if (!g_stdout_claimable) return STDOUT_FILENO; /* a library's caller: its output as it is */
    fflush(stdout);
    const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        const int e = errno;
        if (fd >= 0) close(fd);
        dgnn_err_set(err, DGNN_EIO, "standard output: %s", strerror(e));
        return -1;
    }
    g_stdout_fd = fd;
    return fd;
}

int dgnn_outfile_open(dgnn_outfile **out, const char *path, int flags, dgnn_err *err) {
    *out = NULL;
    if (!path || !*path) return dgnn_err_set(err, DGNN_EINVAL, "cannot write: empty output path");
    char name[1200];
    dgnn_outfile *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        return dgnn_err_set(err, DGNN_ENOMEM, "cannot write %s: out of memory", path);
    }
    o->fd = o->target = -1;
    struct stat st;
    int exists;
    if (dgnn_outfile_is_stdout(path)) { /* written through, as a device is */
        dgnn_err why;
        dgnn_err_clear(&why);
        const int so = dgnn_outfile_stdout_fd(&why);
        const int fd = so >= 0 ? fcntl(so, F_DUPFD_CLOEXEC, 3) : -1;
        if (fd < 0) {
            if (so >= 0) dgnn_err_set(&why, DGNN_EIO, "%s", strerror(errno));
            outfile_free(o);
            return dgnn_err_set(err, DGNN_EIO, "cannot write - (standard output): %s", why.msg);
        }
        return write_through(out, o, fd, flags, "- (standard output)", err);
    }
    if (path[strlen(path) - 1] == '/') {
        outfile_free(o);
        return dgnn_err_set(err, DGNN_EINVAL, "cannot write %s: names a folder; give a file name", path);
    }
    if (resolve(path, &o->final, &st, &exists) != 0) {
        int e = errno;
        outfile_free(o);
        if (e == ENOTDIR) return dgnn_err_set(err, DGNN_EIO, "cannot write %s: a part of the path is not a folder", path);
        return dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s", path, strerror(e));
    }
    name_of(name, sizeof name, path, o->final);
    if (exists && S_ISDIR(st.st_mode)) {
        outfile_free(o);
        return dgnn_err_set(err, DGNN_EINVAL, "cannot write %s: is a directory; give a file name", name);
    }
    if (exists && S_ISSOCK(st.st_mode)) {
        outfile_free(o);
        return dgnn_err_set(err, DGNN_EINVAL, "cannot write %s: is a socket", name);
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or a FIFO: write through, so that it stays what it is */
        int fd = open(o->final, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
            int e = errno;
            outfile_free(o);
            return dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s", name, strerror(e));
        }
        return write_through(out, o, fd, flags, name, err);
    }
    /* a regular file or nothing yet: a temporary file beside it, renamed at commit */
    o->existed = exists;
    dgnn_outfile_clean_stale(o->final);
    if (!(o->tmp = temp_path(o->final))) {
        outfile_free(o);
        return dgnn_err_set(err, DGNN_ENOMEM, "cannot write %s: out of memory", path);
    }
    for (int tries = 0; tries < 2; tries++) {
        o->fd = open(o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        /* our own name exists: left by a dead process that had our pid (reused) */
        if (o->fd >= 0 || errno != EEXIST || unlink(o->tmp) != 0) break;
    }
    if (o->fd < 0) {
        int e = errno;
        char why[600];
        folder_reason(why, sizeof why, o->final, e);
        free(o->tmp);
        o->tmp = NULL; /* nothing to remove */
        outfile_free(o);
        return dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s", name, why);
    }
    live_add(o->tmp);
    if (exists) { /* the replacement keeps the file's mode (and owner, where allowed: root) */
        if (st.st_uid != geteuid() || st.st_gid != getegid()) (void)!fchown(o->fd, st.st_uid, st.st_gid);
        fchmod(o->fd, st.st_mode & 07777); /* after chown, which clears set-id bits */
    }
    *out = o;
    return DGNN_OK;
}

int dgnn_outfile_set_size(dgnn_outfile *o, uint64_t bytes, dgnn_err *err) {
    struct stat st;
    if (fstat(o->fd, &st) != 0 || !S_ISREG(st.st_mode)) return DGNN_OK;
    if (ftruncate(o->fd, (off_t)bytes) != 0)
        return dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s", o->path, strerror(errno));
    return DGNN_OK;
}

/* Copies the spool (all of it) into the target. Returns 0 or -1 with errno. */
static int copy_spool(int from, int to) {
    const size_t cap = 1 << 20;
    char *buf = malloc(cap);
    if (!buf) return -1;
    off_t at = 0;
    int rc = 0;
    for (;;) {
        ssize_t n = pread(from, buf, cap, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || write_all(to, buf, (size_t)n) < 0) {
            rc = n == 0 ? 0 : -1;
            break;
        }
        at += n;
    }
    int e = errno;
    free(buf);
    errno = e;
    return rc;
}

/* fsync of final's folder: makes the rename itself durable (best effort: some
 * filesystems refuse to sync a folder, and the file is in place already). */
static void fsync_dir_of(const char *final) {
    char *d = dir_of(final);
    int fd = d ? open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    free(d);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

int dgnn_outfile_commit(dgnn_outfile *o, dgnn_err *err) {
    const char *step = "write";
    int e = 0;
    if (o->stream) {
        if (fflush(o->stream) != 0 && !o->werr) o->werr = errno ? errno : EIO;
        fclose(o->stream); /* nothing left to flush */
        o->stream = NULL;
    }
    if (o->werr) e = o->werr;
    if (!e && o->target >= 0) { /* spooled: now the bytes go to the target */
        if (copy_spool(o->fd, o->target) != 0) e = errno;
        close(o->fd);
        o->fd = o->target;
        o->target = -1;
    }
    if (!e && o->tmp && fsync(o->fd) != 0) step = "fsync", e = errno;
    if (!e) {
        int fd = o->fd;
        o->fd = -1;
        if (close(fd) != 0 && errno != EINTR) step = "close", e = errno;
    }
    if (!e && o->tmp && rename(o->tmp, o->final) != 0) step = "rename", e = errno;
    if (e) {
        char name[1200];
        name_of(name, sizeof name, o->path, o->final);
        int rc = dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s failed: %s%s", name, step, strerror(e),
                              o->tmp && o->existed ? "; the previous file is unchanged" : "");
        outfile_free(o); /* removes the temporary file */
        return rc;
    }
    if (o->tmp) {
        live_remove(o->tmp);
        fsync_dir_of(o->final);
        free(o->tmp);
        o->tmp = NULL; /* renamed: nothing to remove */
    }
    outfile_free(o);
    return DGNN_OK;
}

int dgnn_outfile_write(const char *path, const void *data, size_t n, dgnn_err *err) {
    dgnn_outfile *o;
    int rc = dgnn_outfile_open(&o, path, 0, err);
    if (rc) return rc;
    if (n > 0 && write_all(o->fd, data, n) < 0) o->werr = errno;
    return dgnn_outfile_commit(o, err);
}

/* ------------------------------------------------------------------ checks */

/* Tries to create (and at once removes) a probe file in folder d; 0 or errno. */
static int probe_folder(const char *d, const char *base) {
    char pre[NAME_MAX + 1];
    temp_prefix(pre, sizeof pre, base);
    char *t = malloc(strlen(d) + strlen(pre) + 24);
    if (!t) return ENOMEM;
    sprintf(t, "%s/%s%ld", d, pre, (long)getpid());
    int rc = 0;
    int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(t);
    } else if (errno == EEXIST) { /* a leftover of ours: fall back to the permission bits */
        if (access(d, W_OK | X_OK) != 0) rc = errno;
    } else {
        rc = errno;
    }
    free(t);
    return rc;
}

int dgnn_outfile_check(const char *path, dgnn_err *err) {
    if (!path || !*path) return dgnn_err_set(err, DGNN_EINVAL, "empty path");
    if (dgnn_outfile_is_stdout(path)) return dgnn_outfile_stdout_fd(err) >= 0 ? DGNN_OK : DGNN_EIO;
    if (path[strlen(path) - 1] == '/') return dgnn_err_set(err, DGNN_EINVAL, "names a folder; give a file name");
    char *final;
    struct stat st;
    int exists;
    if (resolve(path, &final, &st, &exists) != 0) {
        int e = errno;
        if (e == ENOTDIR) return dgnn_err_set(err, DGNN_EINVAL, "a part of the path is not a folder");
        return dgnn_err_set(err, DGNN_EIO, "%s", strerror(e));
    }
    char link[1100] = "";
    if (strcmp(final, path) != 0) snprintf(link, sizeof link, " (the link's target %s)", final);
    int rc = DGNN_OK;
    if (exists && S_ISDIR(st.st_mode)) {
        rc = dgnn_err_set(err, DGNN_EINVAL, "is a directory%s; give a file name", link);
    } else if (exists && S_ISSOCK(st.st_mode)) {
        rc = dgnn_err_set(err, DGNN_EINVAL, "is a socket%s", link);
    } else if (exists && !S_ISREG(st.st_mode)) {
        if (access(final, W_OK) != 0) rc = dgnn_err_set(err, DGNN_EIO, "not writable%s: %s", link, strerror(errno));
    } else {
        char *d = dir_of(final);
        struct stat ds;
        if (!d) rc = dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
        else if (stat(d, &ds) != 0) rc = dgnn_err_set(err, DGNN_EIO, "folder %s does not exist%s", d, link);
        else if (!S_ISDIR(ds.st_mode)) rc = dgnn_err_set(err, DGNN_EIO, "%s is not a folder%s", d, link);
        else {
            int e = probe_folder(d, base_of(final));
            if (e) rc = dgnn_err_set(err, DGNN_EIO, "cannot create files in folder %s%s: %s", d, link, strerror(e));
        }
        free(d);
    }
    free(final);
    return rc;
}

int dgnn_outfile_check_dir(const char *dir, dgnn_err *err) {
    if (!dir || !*dir) return dgnn_err_set(err, DGNN_EINVAL, "empty path");
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return dgnn_err_set(err, DGNN_EINVAL, "exists and is not a folder");
        int e = probe_folder(dir, "dgnn-check");
        if (e) return dgnn_err_set(err, DGNN_EIO, "cannot create files in folder %s: %s", dir, strerror(e));
        return DGNN_OK;
    }
    if (errno == ENOTDIR) return dgnn_err_set(err, DGNN_EINVAL, "a part of the path is not a folder");
    if (errno != ENOENT) return dgnn_err_set(err, DGNN_EIO, "%s", strerror(errno));
    if (lstat(dir, &st) == 0) return dgnn_err_set(err, DGNN_EINVAL, "is a symlink to a folder that does not exist");
    /* missing: the writer creates it (one level), so its parent must exist and take it */
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--; /* "run/" is the folder run */
    char *trimmed = strndup(dir, n);
    char *parent = trimmed ? dir_of(trimmed) : NULL;
    free(trimmed);
    if (!parent) return dgnn_err_set(err, DGNN_ENOMEM, "out of memory");
    int rc = DGNN_OK;
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc = dgnn_err_set(err, DGNN_EIO, "folder %s does not exist (only the last folder of the path is created)",
                          parent);
    } else {
        int e = probe_folder(parent, "dgnn-check");
        if (e) rc = dgnn_err_set(err, DGNN_EIO, "cannot be created: cannot create files in folder %s: %s", parent, strerror(e));
    }
    free(parent);
    return rc;
}
