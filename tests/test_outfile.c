/* test_outfile.c: the output-file rules (outfile.h): new and replaced files, symlinks
 * (kept, their target written; dangling ones), devices and FIFOs written through (they
 * stay what they are; a pipe through /proc/self/fd/N, as /dev/stdout), folders refused, a failing write (a file-size limit, a full
 * tmpfs as root, /dev/full) leaves the previous file and no temporary, stale
 * temporaries of dead processes removed and nothing else, and the checks run before
 * any work. */
#include "check.h"

#include "dgnn/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char dir[256];

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

/* Temporary files (".tmp." in the name) in folder d. */
static int count_temps_in(const char *d) {
    DIR *dd = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd))) n += strstr(e->d_name, ".tmp.") != NULL;
    if (dd) closedir(dd);
    return n;
}
static int count_temps(void) { return count_temps_in(dir); }

/* The file's whole content (malloc'd, NUL-terminated), or NULL. */
static char *slurp(const char *p) {
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int holds(const char *p, const char *text) {
    char *s = slurp(p);
    int ok = s && strcmp(s, text) == 0;
    free(s);
    return ok;
}

static int write_text(const char *p, const char *text, dgnn_err *err) {
    dgnn_outfile *o;
    int rc = dgnn_outfile_open(&o, p, 0, err);
    if (rc) return rc;
    fputs(text, dgnn_outfile_stream(o));
    return dgnn_outfile_commit(o, err);
}

static void test_regular(void) {
    dgnn_err err;
    char p[512];
    path_of(p, sizeof p, "a.json");
    /* a new file; the temporary lives beside it while open, gone after commit */
    dgnn_outfile *o;
    CHECK(dgnn_outfile_open(&o, p, 0, &err) == 0);
    CHECK(count_temps() == 1 && !dgnn_outfile_direct(o));
    CHECK(access(p, F_OK) != 0); /* nothing at the target until commit */
    fprintf(dgnn_outfile_stream(o), "one %d\n", 1);
    CHECK(dgnn_outfile_commit(o, &err) == 0);
    CHECK(holds(p, "one 1\n") && count_temps() == 0);
    /* replaced: new content, the old mode kept */
    chmod(p, 0640);
    CHECK(write_text(p, "two\n", &err) == 0);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0640);
    CHECK(holds(p, "two\n"));
    /* abort: the target untouched, no temporary */
    CHECK(dgnn_outfile_open(&o, p, 0, &err) == 0);
    fputs("three\n", dgnn_outfile_stream(o));
    dgnn_outfile_abort(o);
    dgnn_outfile_abort(NULL);
    CHECK(holds(p, "two\n") && count_temps() == 0);
    /* the whole-buffer form */
    CHECK(dgnn_outfile_write(p, "four\n", 5, &err) == 0 && holds(p, "four\n"));
    /* fd writers with holes: set_size makes the file as long as declared */
    CHECK(dgnn_outfile_open(&o, p, DGNN_OUTFILE_SEEK, &err) == 0);
    CHECK(pwrite(dgnn_outfile_fd(o), "xy", 2, 0) == 2);
    CHECK(dgnn_outfile_set_size(o, 10, &err) == 0);
    CHECK(dgnn_outfile_commit(o, &err) == 0);
    CHECK(stat(p, &st) == 0 && st.st_size == 10);
}

static void test_symlinks(void) {
    dgnn_err err;
    char t[512], l[512], l2[512], d[512];
    path_of(t, sizeof t, "target.json");
    path_of(l, sizeof l, "link.json");
    path_of(l2, sizeof l2, "link2.json");
    CHECK(write_text(t, "old\n", &err) == 0);
    CHECK(symlink("target.json", l) == 0); /* relative: to the link's folder */
    CHECK(symlink(l, l2) == 0);            /* a chain of two */
    CHECK(dgnn_outfile_check(l2, &err) == 0);
    CHECK(write_text(l2, "new\n", &err) == 0);
    struct stat st;
    CHECK(lstat(l, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(l2, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(holds(t, "new\n") && count_temps() == 0);
    /* dangling, into an existing folder: the target is created, the link kept */
    path_of(l, sizeof l, "dangling.json");
    path_of(t, sizeof t, "created.json");
    CHECK(symlink("created.json", l) == 0);
    CHECK(dgnn_outfile_check(l, &err) == 0);
    CHECK(write_text(l, "made\n", &err) == 0);
    CHECK(lstat(l, &st) == 0 && S_ISLNK(st.st_mode) && holds(t, "made\n"));
    /* dangling into a missing folder: refused by the check and by open, naming the folder */
    path_of(l, sizeof l, "nowhere.json");
    CHECK(symlink("/nonexistent-dgnn-dir/x.json", l) == 0);
    CHECK(dgnn_outfile_check(l, &err) != 0 && strstr(err.msg, "folder /nonexistent-dgnn-dir does not exist"));
    printf("dangling: %s\n", err.msg);
    dgnn_outfile *o;
    CHECK(dgnn_outfile_open(&o, l, 0, &err) != 0 && o == NULL && strstr(err.msg, "/nonexistent-dgnn-dir"));
    printf("dangling open: %s\n", err.msg);
    /* a loop */
    path_of(l, sizeof l, "loop1");
    path_of(l2, sizeof l2, "loop2");
    CHECK(symlink("loop2", l) == 0 && symlink("loop1", l2) == 0);
    CHECK(dgnn_outfile_check(l, &err) != 0);
    CHECK(dgnn_outfile_open(&o, l, 0, &err) != 0 && strstr(err.msg, "symbolic links"));
    /* a link to a folder is a folder */
    path_of(d, sizeof d, "sub");
    mkdir(d, 0755);
    path_of(l, sizeof l, "tosub");
    CHECK(symlink("sub", l) == 0);
    CHECK(dgnn_outfile_check(l, &err) != 0 && strstr(err.msg, "is a directory"));
    CHECK(dgnn_outfile_open(&o, l, 0, &err) != 0 && strstr(err.msg, "is a directory"));
}

static void test_devices(void) {
    dgnn_err err;
    struct stat st;
    /* /dev/null: written through, stays a character device (stream and fd writers) */
    CHECK(dgnn_outfile_check("/dev/null", &err) == 0);
    CHECK(write_text("/dev/null", "gone\n", &err) == 0);
    dgnn_outfile *o;
    CHECK(dgnn_outfile_open(&o, "/dev/null", DGNN_OUTFILE_SEEK, &err) == 0 && dgnn_outfile_direct(o));
    CHECK(pwrite(dgnn_outfile_fd(o), "abc", 3, 100) == 3);
    CHECK(dgnn_outfile_set_size(o, 1000, &err) == 0); /* a no-op on a device */
    CHECK(dgnn_outfile_commit(o, &err) == 0);
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    /* /dev/full: the write error is reported with the OS's words, the device untouched */
    if (access("/dev/full", W_OK) == 0) {
        int rc = write_text("/dev/full", "x\n", &err);
        CHECK_MSG(rc == DGNN_EIO && strstr(err.msg, "/dev/full") && strstr(err.msg, strerror(ENOSPC)), "%s", err.msg);
        printf("/dev/full: %s\n", err.msg);
        CHECK(dgnn_outfile_write("/dev/full", "y", 1, &err) == DGNN_EIO && strstr(err.msg, strerror(ENOSPC)));
        CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    }
    /* a folder is refused, by the check and by open */
    CHECK(dgnn_outfile_check(dir, &err) != 0 && strstr(err.msg, "is a directory"));
    CHECK(dgnn_outfile_open(&o, dir, 0, &err) != 0 && o == NULL && strstr(err.msg, "is a directory"));
    char p[512];
    path_of(p, sizeof p, "sub/");
    CHECK(dgnn_outfile_check(p, &err) != 0);
    CHECK(dgnn_outfile_open(&o, p, 0, &err) != 0);
}

/* A FIFO is written through: a child reads it; the spool (SEEK writers) delivers
 * the bytes as written at their offsets. */
static void fifo_case(int flags, const char *want) {
    char f[512], got[512];
    path_of(f, sizeof f, "fifo");
    unlink(f);
    path_of(got, sizeof got, "fifo.got");
    CHECK(mkfifo(f, 0644) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        char buf[256] = {0};
        int fd = open(f, O_RDONLY);
        ssize_t n = 0, r;
        while (fd >= 0 && n < (ssize_t)sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - (size_t)n)) > 0) n += r;
        FILE *o = fopen(got, "wb");
        if (o) fwrite(buf, 1, (size_t)n, o), fclose(o);
        _exit(0);
    }
    dgnn_err err;
    CHECK(dgnn_outfile_check(f, &err) == 0);
    dgnn_outfile *o;
    CHECK(dgnn_outfile_open(&o, f, flags, &err) == 0);
    if (flags & DGNN_OUTFILE_SEEK) {
        CHECK(pwrite(dgnn_outfile_fd(o), "xxxxx", 5, 0) == 5);
        CHECK(pwrite(dgnn_outfile_fd(o), "ab", 2, 0) == 2);
    } else {
        fputs("through a pipe\n", dgnn_outfile_stream(o));
    }
    CHECK(dgnn_outfile_commit(o, &err) == 0);
    int status;
    waitpid(pid, &status, 0);
    CHECK(holds(got, want));
    struct stat st;
    CHECK(lstat(f, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(count_temps() == 0);
    unlink(f);
    unlink(got);
}

/* A pipe reached through the kernel's link /proc/self/fd/N, whose text is "pipe:[INODE]"
 * and names no file (what /dev/stdout is under `dgnn ... --out /dev/stdout | head`), and
 * through a symlink to that link (as /dev/stdout): written through as a FIFO, by stream
 * and by spool. It was refused: "cannot create files in folder /proc/self/fd". */
static void test_pipe_links(void) {
    if (access("/proc/self/fd", F_OK) != 0) return; /* not Linux */
    for (int k = 0; k < 4; k++) {
        const int flags = k & 1 ? DGNN_OUTFILE_SEEK : 0, via_link = k >= 2;
        int fds[2];
        CHECK(pipe(fds) == 0);
        char p[512], l[512];
        snprintf(p, sizeof p, "/proc/self/fd/%d", fds[1]);
        if (via_link) {
            path_of(l, sizeof l, "stdout");
            unlink(l);
            CHECK(symlink(p, l) == 0);
            snprintf(p, sizeof p, "%s", l);
        }
        dgnn_err err;
        dgnn_err_clear(&err);
        CHECK_MSG(dgnn_outfile_check(p, &err) == 0, "%s: %s", p, err.msg);
        dgnn_outfile *o = NULL;
        CHECK_MSG(dgnn_outfile_open(&o, p, flags, &err) == 0, "%s: %s", p, err.msg);
        if (o) {
            CHECK(dgnn_outfile_direct(o));
            if (flags) CHECK(pwrite(dgnn_outfile_fd(o), "piped", 5, 0) == 5);
            else fputs("piped", dgnn_outfile_stream(o));
            CHECK_MSG(dgnn_outfile_commit(o, &err) == 0, "%s", err.msg);
            char buf[16] = {0};
            close(fds[1]);
            fds[1] = -1;
            CHECK(read(fds[0], buf, sizeof buf - 1) == 5 && strcmp(buf, "piped") == 0);
        }
        close(fds[0]);
        if (fds[1] >= 0) close(fds[1]);
        if (via_link) unlink(l);
    }
    CHECK(count_temps() == 0);
}

/* A write that fails on the rename path: the previous file is byte-for-byte intact,
 * no temporary is left, the message names the path and the OS error. */
static void test_failed_write(void) {
    dgnn_err err;
    char p[512];
    path_of(p, sizeof p, "keep.json");
    CHECK(write_text(p, "precious\n", &err) == 0);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN); /* EFBIG from write() instead of a signal */
    lim = old;
    lim.rlim_cur = 4096;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    static char big[20000];
    memset(big, 'z', sizeof big);
    int rc = dgnn_outfile_write(p, big, sizeof big, &err);
    CHECK_MSG(rc == DGNN_EIO && strstr(err.msg, p) && strstr(err.msg, strerror(EFBIG)) &&
                  strstr(err.msg, "previous file is unchanged"), "%s", err.msg);
    printf("file-size limit: %s\n", err.msg);
    dgnn_outfile *o;
    CHECK(dgnn_outfile_open(&o, p, 0, &err) == 0);
    FILE *f = dgnn_outfile_stream(o);
    for (int i = 0; i < 100; i++) fwrite(big, 1, 1000, f);
    CHECK(dgnn_outfile_commit(o, &err) == DGNN_EIO && strstr(err.msg, strerror(EFBIG)));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    CHECK(holds(p, "precious\n") && count_temps() == 0);

    /* a real full disk: a 64 KiB tmpfs (root only) */
    char m[512];
    path_of(m, sizeof m, "tiny");
    mkdir(m, 0755);
    if (geteuid() != 0 || mount("tmpfs", m, "tmpfs", 0, "size=64k") != 0) {
        printf("skip: full-disk case needs root to mount a tiny tmpfs\n");
        rmdir(m);
        return;
    }
    char q[600];
    snprintf(q, sizeof q, "%s/r.json", m);
    CHECK(dgnn_outfile_write(q, "small and safe\n", 15, &err) == 0);
    static char huge[200000];
    memset(huge, 'h', sizeof huge);
    rc = dgnn_outfile_write(q, huge, sizeof huge, &err);
    CHECK_MSG(rc == DGNN_EIO && strstr(err.msg, strerror(ENOSPC)), "%s", err.msg);
    printf("full tmpfs: %s\n", err.msg);
    CHECK(holds(q, "small and safe\n") && count_temps_in(m) == 0);
    umount(m);
    rmdir(m);
}

static pid_t dead_pid(void) {
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    int st;
    waitpid(pid, &st, 0);
    return pid; /* reaped: kill(pid, 0) fails with ESRCH (unless reused at once) */
}

/* The name prefix ".x.json.tmp.HOST." this process uses, read off a live temporary. */
static void temp_prefix_of(const char *p, char *pre, size_t cap) {
    pre[0] = '\0';
    dgnn_err err;
    dgnn_outfile *o;
    if (dgnn_outfile_open(&o, p, 0, &err) != 0) return;
    DIR *d = opendir(dir);
    struct dirent *e;
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".%ld", (long)getpid());
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name), s = strlen(suffix);
        if (strstr(e->d_name, ".tmp.") && n > s && strcmp(e->d_name + n - s, suffix) == 0)
            snprintf(pre, cap, "%.*s", (int)(n - s + 1), e->d_name);
    }
    if (d) closedir(d);
    dgnn_outfile_abort(o);
}

static void touch(const char *name) {
    char p[1024];
    path_of(p, sizeof p, name);
    check_write_file(p, "stale", 5);
}

static int present(const char *name) {
    char p[1024];
    path_of(p, sizeof p, name);
    return access(p, F_OK) == 0;
}

static void test_stale(void) {
    char p[512], pre[300];
    path_of(p, sizeof p, "x.json");
    temp_prefix_of(p, pre, sizeof pre);
    CHECK(strncmp(pre, ".x.json.tmp.", 12) == 0);
    printf("temporary names: %sPID\n", pre);
    pid_t dead = dead_pid();
    char a[400], b[400], c[400], d[400], e[400], f[400];
    snprintf(a, sizeof a, "%s%ld", pre, (long)dead);             /* ours, dead: removed */
    snprintf(b, sizeof b, "%s%ld", pre, (long)getppid());        /* alive: kept */
    snprintf(c, sizeof c, "%s%ld.bak", pre, (long)dead);         /* not the pattern: kept */
    snprintf(d, sizeof d, ".x.json.tmp.otherhost.%ld", (long)dead); /* another machine's: kept */
    snprintf(e, sizeof e, ".y.json.tmp.%s%ld", pre + 12, (long)dead); /* another target's: kept */
    snprintf(f, sizeof f, "x.json.tmp.%ld", (long)dead);         /* no leading dot: kept */
    touch(a), touch(b), touch(c), touch(d), touch(e), touch(f);
    dgnn_err err;
    CHECK(write_text(p, "fresh\n", &err) == 0); /* opening the writer cleans */
    CHECK(!present(a));
    CHECK(present(b) && present(c) && present(d) && present(e) && present(f));
    CHECK(holds(p, "fresh\n"));
    CHECK(dgnn_outfile_clean_stale(p) == 0);
    char q[1024];
    const char *names[] = {b, c, d, e, f};
    for (int i = 0; i < 5; i++) path_of(q, sizeof q, names[i]), unlink(q);
}

static void test_checks(void) {
    dgnn_err err;
    char p[512];
    CHECK(dgnn_outfile_check("/nonexistent-dgnn-dir/r.json", &err) != 0 &&
          strcmp(err.msg, "folder /nonexistent-dgnn-dir does not exist") == 0);
    printf("missing folder: %s\n", err.msg);
    path_of(p, sizeof p, "r.json");
    CHECK(dgnn_outfile_check(p, &err) == 0);
    CHECK(access(p, F_OK) != 0 && count_temps() == 0); /* the probe leaves nothing */
    CHECK(dgnn_outfile_check("", &err) != 0);
    path_of(p, sizeof p, "afile");
    check_write_file(p, "x", 1);
    char q[1024];
    snprintf(q, sizeof q, "%s/inside.json", p);
    CHECK(dgnn_outfile_check(q, &err) != 0);
    printf("under a file: %s\n", err.msg);
    /* a folder nobody may write: for root, /proc refuses new files */
    const char *ro = "/proc/dgnn-out.json";
    char rodir[512];
    if (geteuid() != 0) {
        path_of(rodir, sizeof rodir, "ro");
        mkdir(rodir, 0555);
        snprintf(q, sizeof q, "%s/r.json", rodir);
        ro = q;
    }
    CHECK(dgnn_outfile_check(ro, &err) != 0 && strstr(err.msg, "cannot create files in folder"));
    printf("read-only folder: %s\n", err.msg);
    dgnn_outfile *o;
    CHECK(dgnn_outfile_open(&o, ro, 0, &err) != 0 && o == NULL);
    /* folders (checkpoint folders) */
    CHECK(dgnn_outfile_check_dir(dir, &err) == 0);
    path_of(p, sizeof p, "newdir");
    CHECK(dgnn_outfile_check_dir(p, &err) == 0);
    CHECK(access(p, F_OK) != 0); /* not created by the check */
    CHECK(dgnn_outfile_check_dir("/nonexistent-dgnn-dir/ckpt", &err) != 0 &&
          strstr(err.msg, "folder /nonexistent-dgnn-dir does not exist"));
    path_of(p, sizeof p, "afile");
    CHECK(dgnn_outfile_check_dir(p, &err) != 0 && strstr(err.msg, "not a folder"));
    CHECK(dgnn_outfile_check_dir("/proc/dgnn-ckpt", &err) != 0 || geteuid() != 0);
    CHECK(count_temps() == 0);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/dgnn_test_outfile_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_regular();
    test_symlinks();
    test_devices();
    fifo_case(0, "through a pipe\n");
    fifo_case(DGNN_OUTFILE_SEEK, "abxxx");
    test_pipe_links();
    test_failed_write();
    test_stale();
    test_checks();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_done();
}
