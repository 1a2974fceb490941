/* test_checkpoint.c: checkpoint round trip, every kind of corruption (truncation, bad
 * magic, version, a section's checksum, the header) reported with the file and the
 * section named, missing sections, and failed writes (missing folder, a write that runs
 * out of space, an abort) leaving no partial file and the previous checkpoint intact. */
#include "check.h"
#include "dgnn/checkpoint.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

static char dir[256];

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static int64_t file_size(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? (int64_t)st.st_size : -1;
}

static unsigned char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(sz > 0 ? (size_t)sz : 1);
    *n = fread(b, 1, (size_t)sz, f);
    fclose(f);
    return b;
}

/* Files in dir whose name contains ".tmp." (leftover temporaries). */
static int count_temps(void) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* The sections a trainer writes, with recognisable contents. */
enum { NP = 1000 };
static float params[NP], adam_m[NP];
static int64_t step = 1234;
static const char *config = "{\"model\": \"tgn\", \"lr\": 0.0001}";

static int write_ckpt(const char *path, float scale, dgnn_err *err) {
    for (int i = 0; i < NP; i++) params[i] = scale * (float)i, adam_m[i] = -scale * (float)i;
    dgnn_ckpt_writer *w;
    int rc = dgnn_ckpt_writer_open(&w, path, err);
    if (rc) return rc;
    if ((rc = dgnn_ckpt_writer_add(w, "params", params, sizeof params, err)) ||
        (rc = dgnn_ckpt_writer_add(w, "adam.m", adam_m, sizeof adam_m, err)) ||
        (rc = dgnn_ckpt_writer_add(w, "adam.step", &step, sizeof step, err)) ||
        (rc = dgnn_ckpt_writer_add(w, "empty", NULL, 0, err)) ||
        (rc = dgnn_ckpt_writer_add(w, "config", config, strlen(config), err))) {
        dgnn_ckpt_writer_abort(w);
        return rc;
    }
    int64_t bytes = 0;
    rc = dgnn_ckpt_writer_commit(w, &bytes, err);
    if (rc == 0 && bytes != file_size(path)) return -100;
    return rc;
}

/* 1 if path opens and holds the sections written with scale. */
static int holds(const char *path, float scale) {
    dgnn_ckpt *c;
    dgnn_err err;
    if (dgnn_ckpt_open(&c, path, &err) != 0) {
        fprintf(stderr, "  %s\n", err.msg);
        return 0;
    }
    float p[NP];
    int ok = dgnn_ckpt_read(c, "params", p, sizeof p, &err) == 0;
    for (int i = 0; ok && i < NP; i++) ok = p[i] == scale * (float)i;
    dgnn_ckpt_close(c);
    return ok;
}

static void test_round_trip(void) {
    char p[512];
    path_of(p, sizeof p, "a.ckpt");
    dgnn_err err;
    int rc = write_ckpt(p, 0.5f, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK(count_temps() == 0);

    dgnn_ckpt *c;
    CHECK_MSG(dgnn_ckpt_open(&c, p, &err) == 0, "%s", err.msg);
    if (!c) return;
    CHECK(dgnn_ckpt_count(c) == 5);
    CHECK(strcmp(dgnn_ckpt_name(c, 0), "params") == 0 && strcmp(dgnn_ckpt_name(c, 4), "config") == 0);
    CHECK(strcmp(dgnn_ckpt_path(c), p) == 0);
    const void *d;
    size_t n;
    CHECK(dgnn_ckpt_get(c, "params", &d, &n, &err) == 0 && n == sizeof params);
    CHECK(((uintptr_t)d % 64) == 0); /* usable in place as a float slab */
    CHECK(memcmp(d, params, sizeof params) == 0);
    CHECK(dgnn_ckpt_get(c, "adam.m", &d, &n, &err) == 0 && n == sizeof adam_m && memcmp(d, adam_m, n) == 0);
    CHECK(((uintptr_t)d % 64) == 0);
    int64_t s = 0;
    CHECK(dgnn_ckpt_read(c, "adam.step", &s, sizeof s, &err) == 0 && s == 1234);
    CHECK(dgnn_ckpt_get(c, "empty", &d, &n, &err) == 0 && n == 0);
    CHECK(dgnn_ckpt_get(c, "config", &d, &n, &err) == 0 && n == strlen(config) && memcmp(d, config, n) == 0);
    CHECK(dgnn_ckpt_has(c, "config") && !dgnn_ckpt_has(c, "rng"));

    /* a missing section is an error naming it and the file */
    CHECK(dgnn_ckpt_get(c, "rng", &d, &n, &err) == DGNN_EFORMAT && d == NULL);
    CHECK_MSG(strstr(err.msg, "'rng'") && strstr(err.msg, p), "%s", err.msg);
    /* a size mismatch names the section and both sizes */
    float small[10];
    CHECK(dgnn_ckpt_read(c, "params", small, sizeof small, &err) == DGNN_EFORMAT);
    CHECK_MSG(strstr(err.msg, "'params'") && strstr(err.msg, "4000") && strstr(err.msg, "40"), "%s", err.msg);
    dgnn_ckpt_close(c);
    dgnn_ckpt_close(NULL);

    /* overwriting: the new contents replace the old, atomically */
    CHECK(write_ckpt(p, 2.0f, &err) == 0);
    CHECK(holds(p, 2.0f));
    CHECK(count_temps() == 0);

    /* writer argument errors */
    dgnn_ckpt_writer *w;
    path_of(p, sizeof p, "b.ckpt");
    CHECK(dgnn_ckpt_writer_open(&w, p, &err) == 0);
    CHECK(dgnn_ckpt_writer_add(w, "x", &s, sizeof s, &err) == 0);
    CHECK(dgnn_ckpt_writer_add(w, "x", &s, sizeof s, &err) == DGNN_EINVAL && strstr(err.msg, "twice"));
    CHECK(dgnn_ckpt_writer_add(w, "", &s, sizeof s, &err) == DGNN_EINVAL);
    char longname[80];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK(dgnn_ckpt_writer_add(w, longname, &s, sizeof s, &err) == DGNN_EINVAL);
    /* argument errors do not spoil the writer */
    CHECK(dgnn_ckpt_writer_commit(w, NULL, &err) == 0);
    CHECK(dgnn_ckpt_open(&c, p, &err) == 0 && dgnn_ckpt_count(c) == 1);
    dgnn_ckpt_close(c);

    /* a checkpoint without sections is valid */
    path_of(p, sizeof p, "none.ckpt");
    CHECK(dgnn_ckpt_writer_open(&w, p, &err) == 0 && dgnn_ckpt_writer_commit(w, NULL, &err) == 0);
    CHECK(dgnn_ckpt_open(&c, p, &err) == 0 && dgnn_ckpt_count(c) == 0);
    dgnn_ckpt_close(c);
}

/* Writes bytes b (n) to name and returns the error of opening it (code, message). */
static int open_bytes(const char *name, const unsigned char *b, size_t n, dgnn_err *err, char *path, size_t cap) {
    path_of(path, cap, name);
    check_write_file(path, (const char *)b, n);
    dgnn_ckpt *c = NULL;
    int rc = dgnn_ckpt_open(&c, path, err);
    CHECK(rc == 0 || c == NULL);
    dgnn_ckpt_close(c);
    return rc;
}

static void test_corruption(void) {
    char good[512], p[512];
    path_of(good, sizeof good, "good.ckpt");
    dgnn_err err;
    CHECK(write_ckpt(good, 1.0f, &err) == 0);
    size_t n;
    unsigned char *b = slurp(good, &n);
    unsigned char *x = malloc(n);
    CHECK(n > 8000);

    /* truncation at every interesting length: the header, the data, the table */
    size_t cuts[] = {0, 5, 30, 63, 64, 100, 4000, n / 2, n - 80, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        int rc = open_bytes("trunc.ckpt", b, cuts[i], &err, p, sizeof p);
        CHECK_MSG(rc == DGNN_ECHECKSUM, "cut at %zu: rc %d: %s", cuts[i], rc, err.msg);
        CHECK_MSG(strstr(err.msg, p) && strstr(err.msg, "is corrupted") && strstr(err.msg, "truncated") &&
                      strstr(err.msg, "delete it or resume from another"),
                  "cut at %zu: %s", cuts[i], err.msg);
    }
    printf("truncated: %s\n", err.msg);
    /* trailing garbage */
    memcpy(x, b, n);
    unsigned char *y = malloc(n + 10);
    memcpy(y, b, n);
    memset(y + n, 0xAB, 10);
    CHECK(open_bytes("long.ckpt", y, n + 10, &err, p, sizeof p) == DGNN_ECHECKSUM && strstr(err.msg, "trailing"));
    free(y);

    /* bad magic */
    memcpy(x, b, n);
    x[0] = 'X';
    CHECK(open_bytes("magic.ckpt", x, n, &err, p, sizeof p) == DGNN_EFORMAT);
    CHECK_MSG(strstr(err.msg, p) && strstr(err.msg, "not a dgnn checkpoint"), "%s", err.msg);
    CHECK(open_bytes("text.ckpt", (const unsigned char *)"hello world, not a checkpoint", 29, &err, p, sizeof p) ==
          DGNN_EFORMAT);

    /* another version */
    memcpy(x, b, n);
    x[8] = 2;
    CHECK(open_bytes("version.ckpt", x, n, &err, p, sizeof p) == DGNN_EVERSION);
    CHECK_MSG(strstr(err.msg, p) && strstr(err.msg, "version 2") && strstr(err.msg, "version 1"), "%s", err.msg);
    printf("version: %s\n", err.msg);

    /* a flipped byte inside each section: the message names that section */
    dgnn_ckpt *c;
    CHECK(dgnn_ckpt_open(&c, good, &err) == 0);
    const char *names[] = {"params", "adam.m", "adam.step", "config"};
    for (int k = 0; k < 4; k++) {
        const void *d;
        size_t len;
        dgnn_ckpt_get(c, names[k], &d, &len, &err);
        /* the section's place in the file: where its bytes are, on a 64-byte boundary */
        const unsigned char *in = NULL;
        for (size_t o = 64; o + len <= n; o += 64)
            if (memcmp(b + o, d, len) == 0) {
                in = b + o;
                break;
            }
        CHECK(in != NULL);
        if (!in) continue;
        memcpy(x, b, n);
        x[(in - b) + len / 2] ^= 0x10;
        int rc = open_bytes("flip.ckpt", x, n, &err, p, sizeof p);
        char want[128];
        snprintf(want, sizeof want, "(section '%s' checksum mismatch)", names[k]);
        CHECK_MSG(rc == DGNN_ECHECKSUM && strstr(err.msg, want) && strstr(err.msg, p), "%s: %s", names[k], err.msg);
    }
    dgnn_ckpt_close(c);
    printf("section: %s\n", err.msg);

    /* header: the reserved bytes, the section count, the table offset, the checksum
     * itself, and a byte of the table (a section's name): all caught by the header checksum */
    size_t hdr_bytes[] = {12, 16, 40, 56, n - 80 + 2, n - 10};
    for (size_t i = 0; i < sizeof hdr_bytes / sizeof *hdr_bytes; i++) {
        memcpy(x, b, n);
        x[hdr_bytes[i]] ^= 0x01;
        int rc = open_bytes("hdr.ckpt", x, n, &err, p, sizeof p);
        CHECK_MSG(rc == DGNN_ECHECKSUM && strstr(err.msg, "header checksum mismatch") && strstr(err.msg, p),
                  "byte %zu: %s", hdr_bytes[i], err.msg);
    }
    /* the file-size field (with a recomputed checksum it would pass; without, it cannot) */
    memcpy(x, b, n);
    x[24] ^= 0x01;
    CHECK(open_bytes("size.ckpt", x, n, &err, p, sizeof p) == DGNN_ECHECKSUM);

    /* a folder and a missing file are I/O errors naming the path */
    CHECK(dgnn_ckpt_open(&c, dir, &err) == DGNN_EIO && strstr(err.msg, dir));
    path_of(p, sizeof p, "missing.ckpt");
    CHECK(dgnn_ckpt_open(&c, p, &err) == DGNN_EIO && strstr(err.msg, "missing.ckpt") && c == NULL);
    free(b);
    free(x);
}

static void test_failed_writes(void) {
    char p[512];
    path_of(p, sizeof p, "prev.ckpt");
    dgnn_err err;
    CHECK(write_ckpt(p, 3.0f, &err) == 0);
    size_t n0;
    unsigned char *before = slurp(p, &n0);

    /* a missing folder: an error naming the path, nothing created */
    char q[512];
    path_of(q, sizeof q, "no/such/folder/x.ckpt");
    dgnn_ckpt_writer *w = (dgnn_ckpt_writer *)&err; /* must be reset to NULL */
    CHECK(dgnn_ckpt_writer_open(&w, q, &err) == DGNN_EIO && w == NULL);
    CHECK_MSG(strstr(err.msg, q) && strstr(err.msg, "folder"), "%s", err.msg);
    path_of(q, sizeof q, "no");
    CHECK(access(q, F_OK) != 0);

    /* an abort after some sections: the previous checkpoint is untouched, no temporary left */
    CHECK(dgnn_ckpt_writer_open(&w, p, &err) == 0);
    CHECK(dgnn_ckpt_writer_add(w, "params", params, sizeof params, &err) == 0);
    CHECK(count_temps() == 1);
    dgnn_ckpt_writer_abort(w);
    dgnn_ckpt_writer_abort(NULL);
    CHECK(count_temps() == 0);
    CHECK(holds(p, 3.0f));

    /* running out of space mid-write (a file-size limit stands in for a full disk):
     * the add fails, commit fails naming the first error, the previous checkpoint is
     * byte-for-byte intact, and no temporary file is left */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN); /* get EFBIG from write() instead of a signal */
    lim = old;
    lim.rlim_cur = 2048;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    CHECK(dgnn_ckpt_writer_open(&w, p, &err) == 0);
    int rc = dgnn_ckpt_writer_add(w, "params", params, sizeof params, &err); /* 4000 bytes > 2048 */
    CHECK(rc == DGNN_EIO && strstr(err.msg, "'params'"));
    CHECK(dgnn_ckpt_writer_add(w, "more", &step, sizeof step, &err) == DGNN_EIO); /* stays failed */
    rc = dgnn_ckpt_writer_commit(w, NULL, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    CHECK_MSG(rc == DGNN_EIO && strstr(err.msg, p), "%d %s", rc, err.msg);
    printf("failed write: %s\n", err.msg);
    CHECK(count_temps() == 0);
    size_t n1;
    unsigned char *after = slurp(p, &n1);
    CHECK(n1 == n0 && memcmp(before, after, n0) == 0);
    CHECK(holds(p, 3.0f));
    free(after);

    /* a folder at the path is refused at once (outfile.h), nothing written */
    path_of(q, sizeof q, "adir");
    mkdir(q, 0755);
    char inner[600];
    snprintf(inner, sizeof inner, "%s/keep", q);
    check_write_file(inner, "x", 1);
    CHECK(dgnn_ckpt_writer_open(&w, q, &err) != 0 && w == NULL && strstr(err.msg, "is a directory"));
    CHECK(count_temps() == 0);
    CHECK(access(inner, F_OK) == 0);
    /* the rename itself failing (a non-empty folder appears at the path while the
     * checkpoint is written): the temporary file is removed, the folder untouched */
    path_of(q, sizeof q, "bdir");
    CHECK(dgnn_ckpt_writer_open(&w, q, &err) == 0);
    CHECK(dgnn_ckpt_writer_add(w, "a", &step, sizeof step, &err) == 0);
    mkdir(q, 0755);
    snprintf(inner, sizeof inner, "%s/keep", q);
    check_write_file(inner, "x", 1);
    CHECK(dgnn_ckpt_writer_commit(w, NULL, &err) == DGNN_EIO && strstr(err.msg, "rename"));
    CHECK(count_temps() == 0);
    CHECK(access(inner, F_OK) == 0);
    free(before);
}

static void rm_rf(const char *d) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", d);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/dgnn_test_ckpt_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_round_trip();
    test_corruption();
    test_failed_writes();
    rm_rf(dir);
    return check_done();
}
