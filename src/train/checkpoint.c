/* checkpoint.c: atomic checkpoint files of named, checksummed sections. Layout and
 * guarantees in checkpoint.h. The checksum is the .dgnn format's (XXH64, seed 0). */
#include "dgnn/checkpoint.h"

#include "../base/le.h"

#include "dgnn/binfmt.h" /* dgnn_bin_checksum */
#include "dgnn/infile.h" /* dgnn_in_open */
#include "dgnn/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h> /* flock */
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR_SIZE 64
#define HDR_CSUM_AT 56
#define ENTRY_SIZE 80
#define ALIGN 64
#define MAX_SECTIONS 65536 /* a sanity bound for reading: far above any trainer's needs */

static uint64_t align_up(uint64_t x) { return (x + ALIGN - 1) & ~(uint64_t)(ALIGN - 1); }

/* The header checksum covers the header (up to the checksum field) and the table, so
 * neither a count nor a section's offset, size or checksum can change unnoticed. */
static uint64_t header_checksum(const unsigned char *hdr, const unsigned char *table, size_t table_bytes) {
    unsigned char *buf = dgnn_xmalloc(HDR_CSUM_AT + table_bytes);
    memcpy(buf, hdr, HDR_CSUM_AT);
    if (table_bytes) memcpy(buf + HDR_CSUM_AT, table, table_bytes);
    uint64_t h = dgnn_bin_checksum(buf, HDR_CSUM_AT + table_bytes);
    free(buf);
    return h;
}

/* ======================================================================== writer */

typedef struct {
    char name[DGNN_CKPT_NAME_MAX];
    uint64_t off, bytes, csum;
} entry;

struct dgnn_ckpt_writer {
    char *path;
    dgnn_outfile *out; /* the temporary file beside path (outfile.h: atomic, symlinks followed) */
    int fd;            /* its descriptor */
    uint64_t end; /* bytes written so far (next section starts at align_up(end)) */
    entry *e;
    int n, cap;
    int failed;     /* an add failed: the file is incomplete */
    dgnn_err first; /* ... and why */
};

static int write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes zeros up to `to` (the alignment padding). */
static int pad_to(dgnn_ckpt_writer *w, uint64_t to) {
    static const unsigned char zeros[ALIGN];
    if (to > w->end) {
        if (write_all(w->fd, zeros, (size_t)(to - w->end)) != 0) return -1;
        w->end = to;
    }
    return 0;
}

static void writer_free(dgnn_ckpt_writer *w) {
    dgnn_outfile_abort(w->out); /* removes the temporary file; NULL once committed */
    free(w->path);
    free(w->e);
    free(w);
}

void dgnn_ckpt_writer_abort(dgnn_ckpt_writer *w) {
    if (w) writer_free(w);
}

int dgnn_ckpt_writer_open(dgnn_ckpt_writer **out, const char *path, dgnn_err *err) {
    *out = NULL;
    dgnn_ckpt_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return dgnn_err_set(err, DGNN_ENOMEM, "checkpoint %s: out of memory", path);
    }
    w->fd = -1;
    /* the header is written last, at its offset: a seekable file (outfile.h spools
     * for a FIFO); the temporary file sits beside path, and stale ones of killed runs
     * are removed here */
    int rc = dgnn_outfile_open(&w->out, path, DGNN_OUTFILE_SEEK, err);
    if (rc) {
        writer_free(w);
        return rc;
    }
    w->fd = dgnn_outfile_fd(w->out);
    /* the header is written last, at commit; reserve its place */
    static const unsigned char zeros[HDR_SIZE];
    if (write_all(w->fd, zeros, HDR_SIZE) != 0) {
        int e = errno;
        writer_free(w);
        return dgnn_err_set(err, DGNN_EIO, "cannot write checkpoint %s: %s", path, strerror(e));
    }
    w->end = HDR_SIZE;
    *out = w;
    return DGNN_OK;
}

int dgnn_ckpt_writer_add(dgnn_ckpt_writer *w, const char *name, const void *data, size_t bytes, dgnn_err *err) {
    if (w->failed) return dgnn_err_set(err, w->first.code, "%s", w->first.msg);
    size_t nl = name ? strlen(name) : 0;
    if (nl == 0 || nl >= DGNN_CKPT_NAME_MAX)
        return dgnn_err_set(err, DGNN_EINVAL, "checkpoint %s: section name '%s' must have 1 to %d characters", w->path,
                            name ? name : "(null)", DGNN_CKPT_NAME_MAX - 1);
    for (int i = 0; i < w->n; i++)
        if (strcmp(w->e[i].name, name) == 0)
            return dgnn_err_set(err, DGNN_EINVAL, "checkpoint %s: section '%s' added twice", w->path, name);
    if (bytes > 0 && !data)
        return dgnn_err_set(err, DGNN_EINVAL, "checkpoint %s: section '%s': no data for %zu bytes", w->path, name, bytes);
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 16;
        entry *e = realloc(w->e, (size_t)cap * sizeof *e);
        if (!e) return dgnn_err_set(err, DGNN_ENOMEM, "checkpoint %s: out of memory", w->path);
        w->e = e;
        w->cap = cap;
    }
    uint64_t off = align_up(w->end);
    if (pad_to(w, off) != 0 || write_all(w->fd, data, bytes) != 0) {
        int e = errno;
        w->failed = 1;
        dgnn_err_set(&w->first, DGNN_EIO, "cannot write checkpoint %s (section '%s', %zu bytes): %s", w->path, name,
                     bytes, strerror(e));
        return dgnn_err_set(err, DGNN_EIO, "%s", w->first.msg);
    }
    w->end = off + bytes;
    entry *e = &w->e[w->n++];
    memset(e, 0, sizeof *e);
    memcpy(e->name, name, nl);
    e->off = off;
    e->bytes = bytes;
    e->csum = dgnn_bin_checksum(data, bytes);
    return DGNN_OK;
}

int dgnn_ckpt_writer_commit(dgnn_ckpt_writer *w, int64_t *bytes_out, dgnn_err *err) {
    if (w->failed) {
        int rc = dgnn_err_set(err, w->first.code, "%s", w->first.msg);
        writer_free(w);
        return rc;
    }
    uint64_t table_off = align_up(w->end);
    size_t table_bytes = (size_t)w->n * ENTRY_SIZE;
    unsigned char *table = dgnn_xcalloc(table_bytes ? table_bytes : 1, 1);
    for (int i = 0; i < w->n; i++) {
        unsigned char *t = table + (size_t)i * ENTRY_SIZE;
        memcpy(t, w->e[i].name, DGNN_CKPT_NAME_MAX); /* NUL-padded by the memset in add */
        put64(t + 56, w->e[i].off);
        put64(t + 64, w->e[i].bytes);
        put64(t + 72, w->e[i].csum);
    }
    uint64_t size = table_off + table_bytes;
    unsigned char hdr[HDR_SIZE] = {0};
    memcpy(hdr, DGNN_CKPT_MAGIC, 8);
    put32(hdr + 8, DGNN_CKPT_VERSION);
    put32(hdr + 12, (uint32_t)w->n);
    put64(hdr + 16, table_off);
    put64(hdr + 24, size);
    put64(hdr + HDR_CSUM_AT, header_checksum(hdr, table, table_bytes));

    int ok = pad_to(w, table_off) == 0 && write_all(w->fd, table, table_bytes) == 0;
    if (ok) ok = pwrite(w->fd, hdr, HDR_SIZE, 0) == HDR_SIZE;
    free(table);
    if (!ok) {
        int rc = dgnn_err_set(err, DGNN_EIO, "cannot write checkpoint %s: %s; the previous file, if any, is untouched",
                              w->path, strerror(errno));
        writer_free(w); /* removes the temporary file */
        return rc;
    }
    /* fsync, rename over path, fsync of the folder; on failure the temporary file is
     * removed and the previous checkpoint stays */
    dgnn_outfile *o = w->out;
    w->out = NULL;
    int rc = dgnn_outfile_commit(o, err);
    if (!rc && bytes_out) *bytes_out = (int64_t)size;
    writer_free(w);
    return rc;
}

/* ======================================================================== reader */

struct dgnn_ckpt {
    char *path;
    unsigned char *map;
    size_t size;
    int n;
    entry *e;
};

void dgnn_ckpt_close(dgnn_ckpt *c) {
    if (!c) return;
    if (c->map) munmap(c->map, c->size);
    free(c->path);
    free(c->e);
    free(c);
}

#define CORRUPT(...) \
    do { \
        char why_[512]; \
        snprintf(why_, sizeof why_, __VA_ARGS__); \
        rc = dgnn_err_set(err, DGNN_ECHECKSUM, "checkpoint %s is corrupted (%s); delete it or resume from another", path, \
                          why_); \
        goto fail; \
    } while (0)

int dgnn_ckpt_open(dgnn_ckpt **out, const char *path, dgnn_err *err) {
    *out = NULL;
    int rc = DGNN_OK;
    dgnn_ckpt *c = calloc(1, sizeof *c);
    if (!c) return dgnn_err_set(err, DGNN_ENOMEM, "checkpoint %s: out of memory", path);
    c->path = strdup(path);
    if (!c->path) {
        free(c);
        return dgnn_err_set(err, DGNN_ENOMEM, "checkpoint %s: out of memory", path);
    }
    int fd;
    int64_t fsize;
    if ((rc = dgnn_in_open(path, &fd, &fsize, err))) { /* regular files only: a FIFO would block */
        if (err) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            dgnn_err_set(err, rc, "checkpoint %s", why);
        }
        goto fail;
    }
    c->size = (size_t)fsize;
    if (c->size > 0) {
        void *m = mmap(NULL, c->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            rc = dgnn_err_set(err, DGNN_EIO, "cannot map checkpoint %s: %s", path, strerror(errno));
            close(fd);
            goto fail;
        }
        c->map = m;
    }
    close(fd);

    const unsigned char *m = c->map;
    const uint64_t size = c->size;
    if (size >= 8 && memcmp(m, DGNN_CKPT_MAGIC, 8) != 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s is not a dgnn checkpoint (bad magic); give the path of a checkpoint file", path);
        goto fail;
    }
    if (size < HDR_SIZE) CORRUPT("truncated: %llu bytes, shorter than the %d-byte header", (unsigned long long)size, HDR_SIZE);
    uint32_t version = get32(m + 8);
    if (version == 1) { /* the same layout, but nothing says how many ranks wrote it */
        rc = dgnn_err_set(err, DGNN_EVERSION,
                          "checkpoint %s has format version 1, which does not record the rank count and distribution "
                          "mode of the run that wrote it, so a resume cannot be checked; this build reads version %d: "
                          "start afresh in another --checkpoint folder, or resume with the dgnn that wrote it",
                          path, DGNN_CKPT_VERSION);
        goto fail;
    }
    if (version != DGNN_CKPT_VERSION) {
        rc = dgnn_err_set(err, DGNN_EVERSION,
                          "checkpoint %s has format version %u; this build reads version %d: resume with the dgnn that wrote it, "
                          "or start a new run",
                          path, version, DGNN_CKPT_VERSION);
        goto fail;
    }
    uint32_t nsec = get32(m + 12);
    uint64_t table_off = get64(m + 16), file_size = get64(m + 24);
    /* the table's place comes from the not yet verified header: if it does not fit in
     * the file, say why as precisely as the header allows */
    if (nsec > MAX_SECTIONS || table_off < HDR_SIZE || table_off > size || (uint64_t)nsec * ENTRY_SIZE > size - table_off) {
        if (file_size != size && nsec <= MAX_SECTIONS && table_off >= HDR_SIZE && table_off + (uint64_t)nsec * ENTRY_SIZE == file_size)
            CORRUPT("truncated: %llu bytes, the header says %llu", (unsigned long long)size, (unsigned long long)file_size);
        CORRUPT("header checksum mismatch");
    }
    size_t table_bytes = (size_t)nsec * ENTRY_SIZE;
    const unsigned char *table = m + table_off;
    if (header_checksum(m, table, table_bytes) != get64(m + HDR_CSUM_AT)) CORRUPT("header checksum mismatch");
    if (file_size != size)
        CORRUPT("%s: %llu bytes, the header says %llu", size < file_size ? "truncated" : "trailing bytes",
                (unsigned long long)size, (unsigned long long)file_size);

    c->n = (int)nsec;
    c->e = calloc(nsec ? nsec : 1, sizeof *c->e);
    if (!c->e) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "checkpoint %s: out of memory", path);
        goto fail;
    }
    for (uint32_t i = 0; i < nsec; i++) {
        const unsigned char *t = table + (size_t)i * ENTRY_SIZE;
        entry *e = &c->e[i];
        memcpy(e->name, t, DGNN_CKPT_NAME_MAX);
        if (e->name[DGNN_CKPT_NAME_MAX - 1] != '\0' || e->name[0] == '\0')
            CORRUPT("section %u has an invalid name", i);
        e->off = get64(t + 56);
        e->bytes = get64(t + 64);
        e->csum = get64(t + 72);
        if (e->off < HDR_SIZE || e->off % ALIGN != 0 || e->off > table_off || e->bytes > table_off - e->off)
            CORRUPT("section '%s' lies outside the data area", e->name);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(c->e[j].name, e->name) == 0) CORRUPT("section '%s' appears twice", e->name);
    }
    /* every section is verified now, so that a checkpoint that opens is entirely intact */
    for (int i = 0; i < c->n; i++)
        if (dgnn_bin_checksum(m + c->e[i].off, (size_t)c->e[i].bytes) != c->e[i].csum)
            CORRUPT("section '%s' checksum mismatch", c->e[i].name);
    *out = c;
    return DGNN_OK;
fail:
    dgnn_ckpt_close(c);
    return rc;
}

static const entry *find(const dgnn_ckpt *c, const char *name) {
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->e[i].name, name) == 0) return &c->e[i];
    return NULL;
}

int dgnn_ckpt_get(const dgnn_ckpt *c, const char *name, const void **data, size_t *bytes, dgnn_err *err) {
    const entry *e = find(c, name);
    if (!e) {
        *data = NULL;
        *bytes = 0;
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "checkpoint %s has no section '%s': it was written by another model or version; resume "
                            "from a matching checkpoint",
                            c->path, name);
    }
    *data = c->map + e->off;
    *bytes = (size_t)e->bytes;
    return DGNN_OK;
}

int dgnn_ckpt_read(const dgnn_ckpt *c, const char *name, void *dst, size_t bytes, dgnn_err *err) {
    const void *data;
    size_t n;
    int rc = dgnn_ckpt_get(c, name, &data, &n, err);
    if (rc) return rc;
    if (n != bytes)
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "checkpoint %s: section '%s' has %zu bytes, expected %zu: it was written with another "
                            "configuration (model sizes, dataset); resume with the same options",
                            c->path, name, n, bytes);
    if (bytes) memcpy(dst, data, bytes);
    return DGNN_OK;
}

int dgnn_ckpt_has(const dgnn_ckpt *c, const char *name) { return find(c, name) != NULL; }
int dgnn_ckpt_count(const dgnn_ckpt *c) { return c->n; }
const char *dgnn_ckpt_name(const dgnn_ckpt *c, int i) {
    DGNN_ASSERT(i >= 0 && i < c->n);
    return c->e[i].name;
}
const char *dgnn_ckpt_path(const dgnn_ckpt *c) { return c->path; }

void dgnn_ckpt_dir_path(char *buf, size_t cap, const char *dir) { snprintf(buf, cap, "%s/checkpoint.dgnnckpt", dir); }

int dgnn_ckpt_dir_check(const char *dir, dgnn_err *err) {
    int rc = dgnn_outfile_check_dir(dir, err);
    if (rc) return rc;
    struct stat st;
    if (stat(dir, &st) != 0) return DGNN_OK; /* created at the first checkpoint */
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    dgnn_err e2;
    if (dgnn_outfile_check(path, &e2) != DGNN_OK)
        return dgnn_err_set(err, e2.code, "its checkpoint file %s: %s", path, e2.msg);
    return DGNN_OK;
}

int dgnn_ckpt_dir_writer_open(dgnn_ckpt_writer **out, const char *dir, dgnn_err *err) {
    *out = NULL;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return dgnn_err_set(err, DGNN_EIO, "%s: cannot create the checkpoint folder: %s", dir, strerror(errno));
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    return dgnn_ckpt_writer_open(out, path, err);
}

/* flock, not the lock file's presence: a killed run's lock is gone with it, and no stale
 * file ever needs removing (removing one would let two runs lock two files of one name) */
int dgnn_ckpt_dir_lock(const char *dir, int *fd, dgnn_err *err) {
    *fd = -1;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return dgnn_err_set(err, DGNN_EIO, "%s: cannot create the checkpoint folder: %s", dir, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/.lock", dir);
    const int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0666);
    if (f < 0)
        return dgnn_err_set(err, DGNN_EIO, "checkpoint folder %s: cannot open its lock file %s: %s", dir, path,
                            strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(f);
        return dgnn_err_set(err, DGNN_EIO, "checkpoint folder %s: its lock file %s is not a regular file: remove it",
                            dir, path);
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        if (e == EWOULDBLOCK) {
            char pid[24] = "";
            const ssize_t n = pread(f, pid, sizeof pid - 1, 0);
            size_t k = 0;
            while (n > 0 && k < (size_t)n && pid[k] >= '0' && pid[k] <= '9') k++;
            pid[k] = '\0'; /* the holder may not have written it yet */
            close(f);
            return dgnn_err_set(err, DGNN_EINVAL, "checkpoint folder %s is in use by another run%s%s%s", dir,
                                k ? " (pid " : "", pid, k ? ")" : "");
        }
        close(f);
        if (e == ENOLCK || e == EOPNOTSUPP) { /* a file system without locks: run unguarded, as before */
            dgnn_log("checkpoint folder %s: its file system takes no locks (%s): another run given it at once "
                     "would not be detected\n", dir, strerror(e));
            return DGNN_OK;
        }
        return dgnn_err_set(err, DGNN_EIO, "checkpoint folder %s: cannot lock %s: %s", dir, path, strerror(e));
    }
    char pid[24];
    const int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(f, 0) == 0) { /* the pid is for the message only: a failed write is no matter */
        const ssize_t w = pwrite(f, pid, (size_t)n, 0);
        (void)w;
    }
    *fd = f;
    return DGNN_OK;
}

void dgnn_ckpt_dir_unlock(int fd) {
    if (fd < 0) return;
    /* the pid goes with the lock, so that the next run's refusal never names a run that
     * has ended (a killed run's stays until the next holder writes its own) */
    (void)!ftruncate(fd, 0);
    close(fd); /* closing the only descriptor drops the flock */
}

int dgnn_ckpt_add_params(dgnn_ckpt_writer *w, const dgnn_params *p, int with_grad, dgnn_err *err) {
    size_t pb = (size_t)p->total * sizeof(float);
    int rc = dgnn_ckpt_writer_add(w, "params", p->value, pb, err);
    if (!rc && with_grad) rc = dgnn_ckpt_writer_add(w, "grad", p->grad, pb, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "adam.m", p->m, pb, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "adam.v", p->v, pb, err);
    return rc;
}

int dgnn_ckpt_read_params(const dgnn_ckpt *c, dgnn_params *p, int with_grad, dgnn_err *err) {
    size_t pb = (size_t)p->total * sizeof(float);
    int rc = dgnn_ckpt_read(c, "params", p->value, pb, err);
    if (!rc && with_grad) rc = dgnn_ckpt_read(c, "grad", p->grad, pb, err);
    if (!rc) rc = dgnn_ckpt_read(c, "adam.m", p->m, pb, err);
    if (!rc) rc = dgnn_ckpt_read(c, "adam.v", p->v, pb, err);
    return rc;
}

/* ======================================================================== the run record */

void dgnn_ckpt_run_init(dgnn_ckpt_run *r) { memset(r, 0, sizeof *r); }

static int key_char(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'; }
static int val_char(char ch) { return ch >= 0x20 && ch <= 0x7e; }

static int run_find(const dgnn_ckpt_run *r, const char *key) {
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0) return i;
    return -1;
}

void dgnn_ckpt_run_set(dgnn_ckpt_run *r, const char *key, const char *fmt, ...) {
    const size_t kl = strlen(key);
    DGNN_ASSERT(kl > 0 && kl < DGNN_CKPT_RUN_KEY);
    for (size_t i = 0; i < kl; i++) DGNN_ASSERT(key_char(key[i]));
    int i = run_find(r, key);
    if (i < 0) {
        DGNN_ASSERT(r->n < DGNN_CKPT_RUN_MAX);
        i = r->n++;
        memcpy(r->key[i], key, kl + 1);
    }
    va_list ap;
    va_start(ap, fmt);
    int vl = vsnprintf(r->val[i], DGNN_CKPT_RUN_VAL, fmt, ap);
    va_end(ap);
    DGNN_ASSERT(vl >= 0 && vl < DGNN_CKPT_RUN_VAL);
    for (int j = 0; j < vl; j++) DGNN_ASSERT(val_char(r->val[i][j]));
}

const char *dgnn_ckpt_run_get(const dgnn_ckpt_run *r, const char *key) {
    int i = run_find(r, key);
    return i < 0 ? NULL : r->val[i];
}

void dgnn_ckpt_run_describe(char *buf, size_t cap, const dgnn_ckpt_run *r) {
    const char *p = dgnn_ckpt_run_get(r, "processes"), *f = dgnn_ckpt_run_get(r, "flags");
    const long long n = p ? strtoll(p, NULL, 10) : 1;
    if (!f) f = "";
    if (n > 1) snprintf(buf, cap, "a %lld-rank%s%s run", n, f[0] ? " " : "", f);
    else snprintf(buf, cap, "1 process%s%s", f[0] ? " with " : "", f);
}

/* a record (the run's, the kept settings') as section `name`: "key=value" lines */
static int add_record(dgnn_ckpt_writer *w, const char *name, const dgnn_ckpt_run *r, dgnn_err *err) {
    char buf[DGNN_CKPT_RUN_MAX * (DGNN_CKPT_RUN_KEY + DGNN_CKPT_RUN_VAL + 2)];
    size_t len = 0;
    for (int i = 0; i < r->n; i++) len += (size_t)snprintf(buf + len, sizeof buf - len, "%s=%s\n", r->key[i], r->val[i]);
    return dgnn_ckpt_writer_add(w, name, buf, len, err);
}

int dgnn_ckpt_add_run(dgnn_ckpt_writer *w, const dgnn_ckpt_run *r, dgnn_err *err) { return add_record(w, "run", r, err); }

/* section `name` (present) read back as a record, every line checked */
static int read_record(const dgnn_ckpt *c, const char *name, dgnn_ckpt_run *r, dgnn_err *err) {
    dgnn_ckpt_run_init(r);
    const void *data;
    size_t n;
    int rc = dgnn_ckpt_get(c, name, &data, &n, err);
    if (rc) return rc;
    const char *t = data, *end = t + n;
    int line = 0;
    while (t < end) {
        line++;
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        if (!nl)
            return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record line %d does not end with a newline",
                                c->path, line);
        const char *eq = memchr(t, '=', (size_t)(nl - t));
        if (!eq || eq == t || eq - t >= DGNN_CKPT_RUN_KEY)
            return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record line %d is not key=value with a key of 1 "
                                "to %d characters", c->path, line, DGNN_CKPT_RUN_KEY - 1);
        for (const char *q = t; q < eq; q++)
            if (!key_char(*q))
                return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record line %d: the key holds byte 0x%02x",
                                    c->path, line, (unsigned char)*q);
        if (nl - eq - 1 >= DGNN_CKPT_RUN_VAL)
            return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record line %d: value longer than %d characters",
                                c->path, line, DGNN_CKPT_RUN_VAL - 1);
        for (const char *q = eq + 1; q < nl; q++)
            if (!val_char(*q))
                return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record line %d: the value holds byte 0x%02x",
                                    c->path, line, (unsigned char)*q);
        char key[DGNN_CKPT_RUN_KEY];
        memcpy(key, t, (size_t)(eq - t));
        key[eq - t] = '\0';
        if (run_find(r, key) >= 0)
            return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record line %d: key '%s' appears twice", c->path,
                                line, key);
        if (r->n == DGNN_CKPT_RUN_MAX)
            return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record: more than %d settings", c->path,
                                DGNN_CKPT_RUN_MAX);
        memcpy(r->key[r->n], key, sizeof key);
        memcpy(r->val[r->n], eq + 1, (size_t)(nl - eq - 1));
        r->val[r->n][nl - eq - 1] = '\0';
        r->n++;
        t = nl + 1;
    }
    return DGNN_OK;
}

int dgnn_ckpt_read_run(const dgnn_ckpt *c, dgnn_ckpt_run *r, dgnn_err *err) {
    if (!dgnn_ckpt_has(c, "run"))
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "checkpoint %s has no run record (section 'run'): dgnn train did not write it; start "
                            "afresh in another --checkpoint folder", c->path);
    int rc = read_record(c, "run", r, err);
    if (rc) return rc;
    const char *p = dgnn_ckpt_run_get(r, "processes");
    char *pe = NULL;
    long long np = p ? strtoll(p, &pe, 10) : 0;
    if (!p || !p[0] || *pe || p[0] < '0' || p[0] > '9' || np < 1 || np > DGNN_CKPT_MAX_PROCESSES)
        return dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: run record: 'processes' must be a count of 1 to %d (it is %s%s%s)",
                            c->path, DGNN_CKPT_MAX_PROCESSES, p ? "'" : "", p ? p : "missing", p ? "'" : "");
    return DGNN_OK;
}

/* Appends "key a -> b" (an absent side shows as "unset") to buf. */
static void note_diff(char *buf, size_t cap, const char *key, const char *a, const char *b, const char *why) {
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    snprintf(buf + len, cap - len, "%s%s %s -> %s%s%s", len ? (why ? "; " : ", ") : "", key, a ? a : "unset",
             b ? b : "unset", why ? ": " : "", why ? why : "");
}

int dgnn_ckpt_run_check(const dgnn_ckpt_run *saved, const dgnn_ckpt_run *now, const dgnn_ckpt_run_rule *rules,
                        const char *name, const char *advice, char *notes, size_t notes_cap, dgnn_err *err) {
    char refused[1024] = "";
    if (notes && notes_cap) notes[0] = '\0';
    const dgnn_ckpt_run *side[2] = {saved, now};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < side[s]->n; i++) {
            const char *key = side[s]->key[i];
            if (strcmp(key, "flags") == 0 || (s == 1 && run_find(saved, key) >= 0)) continue; /* once per key */
            const char *a = dgnn_ckpt_run_get(saved, key), *b = dgnn_ckpt_run_get(now, key);
            if (a && b && strcmp(a, b) == 0) continue;
            const char *why = NULL;
            for (const dgnn_ckpt_run_rule *u = rules; u && u->key; u++)
                if (strcmp(u->key, key) == 0) why = u->harmless;
            if (why && notes) note_diff(notes, notes_cap, key, a, b, why);
            else if (!why) note_diff(refused, sizeof refused, key, a, b, NULL);
        }
    if (!refused[0]) return DGNN_OK;
    char was[256], is[256];
    dgnn_ckpt_run_describe(was, sizeof was, saved);
    dgnn_ckpt_run_describe(is, sizeof is, now);
    return dgnn_err_set(err, DGNN_EINVAL, "checkpoint %s was written by %s; this run is %s (%s): %s", name, was, is,
                        refused, advice);
}

void dgnn_ckpt_keep(dgnn_ckpt_run *keep, uint64_t *h, const char *key, uint64_t hashed, const char *fmt, ...) {
    *h = dgnn_hash64(*h ^ hashed);
    if (!keep) return;
    char val[DGNN_CKPT_RUN_VAL];
    va_list ap;
    va_start(ap, fmt);
    const int vl = vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    DGNN_ASSERT(vl >= 0 && vl < DGNN_CKPT_RUN_VAL);
    dgnn_ckpt_run_set(keep, key, "%s", val);
}

int dgnn_ckpt_add_kept(dgnn_ckpt_writer *w, const dgnn_ckpt_run *keep, dgnn_err *err) {
    return add_record(w, "settings", keep, err);
}

int dgnn_ckpt_read_kept(const dgnn_ckpt *c, dgnn_ckpt_run *r) {
    dgnn_err err;
    dgnn_err_clear(&err);
    return dgnn_ckpt_has(c, "settings") && read_record(c, "settings", r, &err) == DGNN_OK;
}

int dgnn_ckpt_kept_diff(const dgnn_ckpt *c, const dgnn_ckpt_run *keep, char *buf, size_t cap) {
    if (cap) buf[0] = '\0';
    dgnn_ckpt_run saved;
    if (!keep || !dgnn_ckpt_read_kept(c, &saved)) return 0;
    const dgnn_ckpt_run *side[2] = {&saved, keep};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < side[s]->n; i++) {
            const char *key = side[s]->key[i];
            if (s == 1 && run_find(&saved, key) >= 0) continue; /* once per key */
            const char *a = dgnn_ckpt_run_get(&saved, key), *b = dgnn_ckpt_run_get(keep, key);
            if (!(a && b && strcmp(a, b) == 0)) note_diff(buf, cap, key, a, b, NULL);
        }
    return cap && buf[0] != '\0';
}
