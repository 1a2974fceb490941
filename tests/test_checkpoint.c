/* test_checkpoint.c: checkpoint round trip, every kind of corruption (truncation, bad
 * magic, version, a section's checksum, the header) reported with the file and the
 * section named, missing sections, and failed writes (missing folder, a write that runs
 * out of space, an abort) leaving no partial file and the previous checkpoint intact.
 * The run record (section "run"): round trip, every malformed record refused naming the
 * line, and the comparison's refusals and notes; then through the trainers: each change
 * of rank count, --dist mode or option refused on --resume with a message naming both
 * runs (a 2-rank strict checkpoint, made by rewriting a 1-process one's record, refused
 * in one process), harmless changes accepted, and a checkpoint whose progress fields are
 * out of range refused rather than trusted (they index the results). The trainers' shared
 * checkpoint (dgnn_ckpt_trainer_save/load): sections in the documented order, a round
 * trip of every part, and each refusal (fingerprint, progress, run record) and a failed
 * save leaving the previous file. */
#include "check.h"
#include "dgnn/checkpoint.h"
#include "dgnn/gen.h"
#include "dgnn/params.h"
#include "dgnn/event_train.h"
#include "dgnn/snap_train.h"

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

/* What is not a regular file is refused, never opened for reading: a FIFO in place of the
 * checkpoint used to block dgnn_ckpt_open (and `dgnn train --resume`) forever. The alarm
 * turns a block back into a failure of this test. */
static void test_not_regular(void) {
    char p[512];
    path_of(p, sizeof p, "fifo.ckpt");
    CHECK(mkfifo(p, 0600) == 0);
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_ckpt *c = NULL;
    alarm(20);
    int rc = dgnn_ckpt_open(&c, p, &err);
    alarm(0);
    CHECK_MSG(rc == DGNN_EIO && c == NULL && strstr(err.msg, p) && strstr(err.msg, "FIFO"), "rc %d: %s", rc, err.msg);
    unlink(p);
    path_of(p, sizeof p, "folder.ckpt");
    CHECK(mkdir(p, 0700) == 0);
    rc = dgnn_ckpt_open(&c, p, &err);
    CHECK_MSG(rc == DGNN_EIO && c == NULL && strstr(err.msg, "folder"), "rc %d: %s", rc, err.msg);
    rmdir(p);
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

    /* another version; version 1 (the same layout, no run record) says why it is refused */
    memcpy(x, b, n);
    x[8] = 3;
    CHECK(open_bytes("version.ckpt", x, n, &err, p, sizeof p) == DGNN_EVERSION);
    CHECK_MSG(strstr(err.msg, p) && strstr(err.msg, "version 3") && strstr(err.msg, "version 2"), "%s", err.msg);
    printf("version: %s\n", err.msg);
    x[8] = 1;
    CHECK(open_bytes("version1.ckpt", x, n, &err, p, sizeof p) == DGNN_EVERSION);
    CHECK_MSG(strstr(err.msg, p) && strstr(err.msg, "version 1") && strstr(err.msg, "rank count") &&
                  strstr(err.msg, "start afresh in another --checkpoint folder"),
              "%s", err.msg);
    printf("version 1: %s\n", err.msg);

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

/* ---- the run record ---- */

/* Writes a checkpoint whose "run" section holds text (n bytes) and reads its record. */
static int read_run_text(const char *text, size_t n, dgnn_ckpt_run *run, dgnn_err *err) {
    char p[512];
    path_of(p, sizeof p, "run.ckpt");
    dgnn_ckpt_writer *w;
    CHECK(dgnn_ckpt_writer_open(&w, p, err) == 0);
    CHECK(dgnn_ckpt_writer_add(w, "run", text, n, err) == 0);
    CHECK(dgnn_ckpt_writer_commit(w, NULL, err) == 0);
    dgnn_ckpt *c;
    CHECK(dgnn_ckpt_open(&c, p, err) == 0);
    if (!c) return -1000;
    int rc = dgnn_ckpt_read_run(c, run, err);
    dgnn_ckpt_close(c);
    return rc;
}

static void test_run_record(void) {
    dgnn_ckpt_run a, b;
    dgnn_err err;
    dgnn_ckpt_run_init(&a);
    dgnn_ckpt_run_set(&a, "processes", "%d", 2);
    dgnn_ckpt_run_set(&a, "dist", "strict");
    dgnn_ckpt_run_set(&a, "flags", "--dist strict");
    dgnn_ckpt_run_set(&a, "dist", "%s", "strict"); /* replaces */
    CHECK(a.n == 3 && strcmp(dgnn_ckpt_run_get(&a, "dist"), "strict") == 0 && !dgnn_ckpt_run_get(&a, "refine"));
    char d[256];
    dgnn_ckpt_run_describe(d, sizeof d, &a);
    CHECK_MSG(strcmp(d, "a 2-rank --dist strict run") == 0, "%s", d);

    /* round trip through a file */
    char p[512];
    path_of(p, sizeof p, "rec.ckpt");
    dgnn_ckpt_writer *w;
    CHECK(dgnn_ckpt_writer_open(&w, p, &err) == 0 && dgnn_ckpt_add_run(w, &a, &err) == 0 &&
          dgnn_ckpt_writer_commit(w, NULL, &err) == 0);
    dgnn_ckpt *c;
    CHECK(dgnn_ckpt_open(&c, p, &err) == 0);
    CHECK_MSG(c && dgnn_ckpt_read_run(c, &b, &err) == 0, "%s", err.msg);
    CHECK(b.n == 3 && strcmp(dgnn_ckpt_run_get(&b, "flags"), "--dist strict") == 0 &&
          strcmp(dgnn_ckpt_run_get(&b, "processes"), "2") == 0);
    dgnn_ckpt_close(c);

    /* malformed records: refused, naming the file and the line */
    const char *bad[] = {"processes=2",                 /* no newline */
                         "processes=2\nnokey\n",       /* not key=value */
                         "=2\n",                        /* empty key */
                         "processes=2\nBad=1\n",        /* upper case */
                         "processes=2\nx=\x01\n",      /* unprintable */
                         "processes=2\nprocesses=3\n", /* twice */
                         "dist=strict\n",               /* no processes */
                         "processes=0\n",
                         "processes=-2\n",
                         "processes=2x\n",
                         "processes=99999999999999999999\n",
                         "processes=\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = read_run_text(bad[i], strlen(bad[i]), &b, &err);
        CHECK_MSG(rc == DGNN_EFORMAT && strstr(err.msg, "run.ckpt") && strstr(err.msg, "run record"), "case %zu: %d %s",
                  i, rc, err.msg);
    }
    CHECK(read_run_text("processes=2\nx=a\0b\n", 16, &b, &err) == DGNN_EFORMAT && strstr(err.msg, "line 2"));
    char many[4096] = "processes=1\n";
    for (int i = 0; i < DGNN_CKPT_RUN_MAX; i++) snprintf(many + strlen(many), sizeof many - strlen(many), "k%d=1\n", i);
    CHECK(read_run_text(many, strlen(many), &b, &err) == DGNN_EFORMAT && strstr(err.msg, "more than"));
    char longv[200];
    snprintf(longv, sizeof longv, "processes=1\nv=%0120d\n", 7);
    CHECK(read_run_text(longv, strlen(longv), &b, &err) == DGNN_EFORMAT && strstr(err.msg, "longer"));
    /* and a checkpoint without the section */
    path_of(p, sizeof p, "norun.ckpt");
    CHECK(dgnn_ckpt_writer_open(&w, p, &err) == 0 && dgnn_ckpt_writer_commit(w, NULL, &err) == 0);
    CHECK(dgnn_ckpt_open(&c, p, &err) == 0);
    CHECK(c && dgnn_ckpt_read_run(c, &b, &err) == DGNN_EFORMAT && strstr(err.msg, "no run record"));
    dgnn_ckpt_close(c);

    /* the comparison: equal, a harmless difference (a note), refused differences */
    const dgnn_ckpt_run_rule rules[] = {{"prefetch", "the same samples"}, {NULL, NULL}};
    b = a;
    dgnn_ckpt_run_set(&b, "flags", "typed otherwise"); /* never compared */
    char notes[256];
    CHECK(dgnn_ckpt_run_check(&a, &b, rules, "ckpt/", "ADVICE", notes, sizeof notes, &err) == 0 && !notes[0]);
    dgnn_ckpt_run_set(&b, "prefetch", "1");
    CHECK(dgnn_ckpt_run_check(&a, &b, rules, "ckpt/", "ADVICE", notes, sizeof notes, &err) == 0);
    CHECK_MSG(strcmp(notes, "prefetch unset -> 1: the same samples") == 0, "%s", notes);
    dgnn_ckpt_run now;
    dgnn_ckpt_run_init(&now);
    dgnn_ckpt_run_set(&now, "processes", "1");
    dgnn_ckpt_run_set(&now, "dist", "none");
    dgnn_ckpt_run_set(&now, "flags", "%s", "");
    CHECK(dgnn_ckpt_run_check(&a, &now, rules, "ckpt/", "resume with the same mpirun -np and --dist", notes,
                              sizeof notes, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "checkpoint ckpt/ was written by a 2-rank --dist strict run; this run is 1 process "
                              "(processes 2 -> 1, dist strict -> none): resume with the same mpirun -np and --dist"),
              "%s", err.msg);
    printf("run record mismatch: %s\n", err.msg);
}

/* Rewrites checkpoint path with section `name` replaced by bytes (n): what a checkpoint
 * written by another run would hold, all checksums valid. */
static void rewrite_section(const char *path, const char *name, const void *bytes, size_t n) {
    dgnn_ckpt *c;
    dgnn_err err;
    CHECK_MSG(dgnn_ckpt_open(&c, path, &err) == 0, "%s", err.msg);
    if (!c) return;
    dgnn_ckpt_writer *w;
    CHECK(dgnn_ckpt_writer_open(&w, path, &err) == 0);
    for (int i = 0; i < dgnn_ckpt_count(c); i++) {
        const char *s = dgnn_ckpt_name(c, i);
        const void *d;
        size_t len;
        CHECK(dgnn_ckpt_get(c, s, &d, &len, &err) == 0);
        if (strcmp(s, name) == 0) d = bytes, len = n;
        CHECK(dgnn_ckpt_writer_add(w, s, d, len, &err) == 0);
    }
    CHECK(dgnn_ckpt_writer_commit(w, NULL, &err) == 0);
    dgnn_ckpt_close(c);
}

static dgnn_event_train_cfg tiny_event_cfg(const char *ck) {
    dgnn_event_train_cfg c = dgnn_event_train_cfg_default();
    c.model.mem_dim = 8, c.model.time_dim = 4, c.model.emb_dim = 8, c.model.neighbors = 3;
    c.batch = 50, c.epochs = 1, c.max_train_batches = 3, c.skip_eval = 1, c.threads = 1, c.progress = 0;
    c.checkpoint = ck;
    return c;
}

/* Resumes (epochs 2) from the checkpoint of run `was` (1 epoch) with `now`: the status and
 * err; the checkpoint is written afresh first. */
static int resume_with(const dgnn_events *ev, dgnn_event_train_cfg was, dgnn_event_train_cfg now, dgnn_err *err) {
    static dgnn_event_train_result res;
    int rc = dgnn_event_train(ev, &was, &res, err);
    CHECK_MSG(rc == 0, "%s", err->msg);
    now.epochs = 2;
    now.resume = 1;
    dgnn_err_clear(err);
    return dgnn_event_train(ev, &now, &res, err);
}

static void test_event_resume_checks(void) {
    dgnn_gen_opts go = dgnn_gen_opts_default();
    go.num_events = 1500, go.num_nodes = 60, go.bipartite = 1, go.seed = 2;
    dgnn_events ev;
    dgnn_err err;
    CHECK(dgnn_gen_events(&ev, &go, &err) == DGNN_OK);
    char ck[300], file[340];
    snprintf(ck, sizeof ck, "%s/ev", dir);
    dgnn_ckpt_dir_path(file, sizeof file, ck);
    dgnn_event_train_cfg one = tiny_event_cfg(ck), strict = one, dep = one;
    strict.dist.mode = DGNN_DIST_STRICT;
    dep.dist.mode = DGNN_DIST_DEPBLOOM, dep.dist.partition = 1, dep.dist.window_events = 200, dep.dist.refine = 2;
    dep.dist.critical_path = 1;

    /* the same run resumes */
    CHECK_MSG(resume_with(&ev, dep, dep, &err) == 0, "%s", err.msg);
    /* another mode, or another option of depbloom: refused, naming both runs */
    CHECK(resume_with(&ev, strict, one, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "was written by 1 process with --dist strict; this run is 1 process (dist strict -> none)"),
              "%s", err.msg);
    CHECK(resume_with(&ev, one, strict, &err) == DGNN_EINVAL && strstr(err.msg, "dist none -> strict"));
    dgnn_event_train_cfg x = dep;
    x.dist.refine = 4;
    CHECK(resume_with(&ev, dep, x, &err) == DGNN_EINVAL);
    CHECK_MSG(strstr(err.msg, "refine 2 -> 4") && strstr(err.msg, "--refine 2 --critical-path run") == NULL &&
                  strstr(err.msg, "1 process with --dist depbloom --partition --window-events 200 --refine 2 --critical-path;"),
              "%s", err.msg);
    printf("refine: %s\n", err.msg);
    x = dep, x.dist.window_events = 300;
    CHECK(resume_with(&ev, dep, x, &err) == DGNN_EINVAL && strstr(err.msg, "window_events 200 -> 300"));
    x = dep, x.dist.window_events = 0, x.dist.window_seconds = 50;
    CHECK(resume_with(&ev, dep, x, &err) == DGNN_EINVAL && strstr(err.msg, "window_seconds unset -> 50"));
    x = dep, x.dist.critical_path = 0;
    CHECK(resume_with(&ev, dep, x, &err) == DGNN_EINVAL && strstr(err.msg, "critical_path 1 -> 0"));
    x = dep, x.dist.refine = 1;
    dgnn_event_train_cfg y = dep;
    y.dist.refine = 0; /* 0 and 1 both mean no refinement */
    CHECK_MSG(resume_with(&ev, x, y, &err) == 0, "%s", err.msg);
    /* what trains alike may change: sampling ahead, cold rows fetched when read */
    x = dep, x.dist.no_prefetch = 1, x.dist.cold_allgather = 1;
    CHECK_MSG(resume_with(&ev, dep, x, &err) == 0, "%s", err.msg);

    /* a 2-rank --dist strict checkpoint (its record says so) resumed in one process */
    static dgnn_event_train_result res;
    CHECK(dgnn_event_train(&ev, &strict, &res, &err) == 0);
    const char *two = "processes=2\ndist=strict\nflags=--dist strict\n";
    rewrite_section(file, "run", two, strlen(two));
    dgnn_event_train_cfg r1 = one;
    r1.epochs = 2, r1.resume = 1;
    CHECK(dgnn_event_train(&ev, &r1, &res, &err) == DGNN_EINVAL);
    char want[600];
    snprintf(want, sizeof want,
             "checkpoint %s was written by a 2-rank --dist strict run; this run is 1 process (processes 2 -> 1, dist "
             "strict -> none): resume with the same mpirun -np and --dist flags, or start afresh in another "
             "--checkpoint folder", ck);
    CHECK_MSG(strstr(err.msg, want), "%s", err.msg);
    printf("2-rank strict in one process: %s\n", err.msg);
    r1 = strict, r1.epochs = 2, r1.resume = 1;
    CHECK(dgnn_event_train(&ev, &r1, &res, &err) == DGNN_EINVAL && strstr(err.msg, "(processes 2 -> 1)"));

    /* progress fields out of range (all checksums valid): refused, not trusted */
    CHECK(dgnn_event_train(&ev, &one, &res, &err) == 0);
    dgnn_ckpt *c;
    CHECK(dgnn_ckpt_open(&c, file, &err) == 0);
    const void *m;
    size_t mn = 0;
    unsigned char meta[4096];
    CHECK(c && dgnn_ckpt_get(c, "meta", &m, &mn, &err) == 0 && mn <= sizeof meta && mn >= 16);
    if (c) memcpy(meta, m, mn);
    dgnn_ckpt_close(c);
    const int64_t bad_done[] = {-3, 5000, 7}; /* meta: u64 fingerprint, then i64 epochs_done */
    for (int i = 0; i < 3; i++) {
        unsigned char mm[4096];
        memcpy(mm, meta, mn);
        memcpy(mm + 8, &bad_done[i], 8);
        rewrite_section(file, "meta", mm, mn);
        r1 = one, r1.epochs = 2, r1.resume = 1;
        CHECK_MSG(dgnn_event_train(&ev, &r1, &res, &err) == DGNN_EFORMAT && strstr(err.msg, "progress is inconsistent") &&
                      strstr(err.msg, file),
                  "epochs_done %lld: %s", (long long)bad_done[i], err.msg);
    }
    printf("bad progress: %s\n", err.msg);
    dgnn_events_free(&ev);
}

static void test_snap_resume_checks(void) {
    /* 30 nodes, 16 snapshots of 12 events */
    dgnn_builder bl;
    dgnn_err err;
    dgnn_builder_init(&bl, 0, 0, 0);
    dgnn_rng g;
    dgnn_rng_seed(&g, 9);
    for (int t = 0; t < 16; t++)
        for (int k = 0; k < 12; k++)
            DGNN_ASSERT(dgnn_builder_push(&bl, (int64_t)dgnn_rng_below(&g, 15), 15 + (int64_t)dgnn_rng_below(&g, 15),
                                          t + 0.5, NULL, 0, 0, &err) == 0);
    dgnn_events ev;
    dgnn_events_init(&ev);
    DGNN_ASSERT(dgnn_builder_finish(&bl, &ev, 30, &err) == 0);
    char ck[300], file[340];
    snprintf(ck, sizeof ck, "%s/snap", dir);
    dgnn_ckpt_dir_path(file, sizeof file, ck);
    dgnn_snap_train_cfg c = dgnn_snap_train_cfg_default(DGNN_SNAPMODEL_EGCN_O);
    c.snapshot_seconds = 1, c.window = 2, c.model.hidden = 4, c.model.cls_hidden = 4, c.neg_mult = 2;
    c.train_frac = 0.6, c.val_frac = 0.15, c.skip_eval = 1, c.progress = 0, c.threads = 1, c.epochs = 1;
    c.checkpoint = ck;
    dgnn_snap_train_cfg dyg = c;
    dyg.dist.mode = DGNN_SNAP_DIST_DYGNEX, dyg.dist.scheduler = DGNN_SCHED_GREEDY, dyg.dist.ranks = 2;
    dyg.dist.local = 1;
    dgnn_snap_train_result *res = calloc(1, sizeof *res);
    struct { dgnn_snap_train_cfg was, now; int ok; const char *want; } cases[6];
    int nc = 0;
    cases[nc].was = dyg, cases[nc].now = dyg, cases[nc].ok = 1, cases[nc++].want = NULL;
    cases[nc].was = dyg, cases[nc].now = c, cases[nc].ok = 0, cases[nc++].want = "dist dygnex -> none";
    cases[nc].was = c, cases[nc].now = dyg, cases[nc].ok = 0, cases[nc++].want = "dist none -> dygnex";
    cases[nc].was = dyg, cases[nc].now = dyg, cases[nc].now.dist.ranks = 3, cases[nc].ok = 0;
    cases[nc++].want = "ranks 2 -> 3";
    cases[nc].was = dyg, cases[nc].now = dyg, cases[nc].now.dist.scheduler = DGNN_SCHED_EVEN, cases[nc].ok = 0;
    cases[nc++].want = "scheduler greedy -> even";
    for (int i = 0; i < nc; i++) {
        dgnn_snap_train_cfg was = cases[i].was, now = cases[i].now;
        CHECK_MSG(dgnn_snap_train(&ev, &was, res, &err) == 0, "%s", err.msg);
        now.epochs = 2, now.resume = 1;
        dgnn_err_clear(&err);
        int rc = dgnn_snap_train(&ev, &now, res, &err);
        if (cases[i].ok) CHECK_MSG(rc == 0, "case %d: %s", i, err.msg);
        else CHECK_MSG(rc == DGNN_EINVAL && strstr(err.msg, cases[i].want) && strstr(err.msg, "was written by"),
                       "case %d: %d %s", i, rc, err.msg);
    }
    printf("dygnex: %s\n", err.msg);
    /* a 2-process dygnex checkpoint resumed by one process playing both ranks: accepted */
    CHECK(dgnn_snap_train(&ev, &dyg, res, &err) == 0);
    dgnn_ckpt *ck2;
    CHECK(dgnn_ckpt_open(&ck2, file, &err) == 0);
    dgnn_ckpt_run run;
    CHECK(ck2 && dgnn_ckpt_read_run(ck2, &run, &err) == 0);
    dgnn_ckpt_close(ck2);
    CHECK(strcmp(dgnn_ckpt_run_get(&run, "processes"), "1") == 0 && strcmp(dgnn_ckpt_run_get(&run, "ranks"), "2") == 0);
    char text[2048];
    size_t len = 0;
    dgnn_ckpt_run_set(&run, "processes", "2");
    for (int i = 0; i < run.n; i++) len += (size_t)snprintf(text + len, sizeof text - len, "%s=%s\n", run.key[i], run.val[i]);
    rewrite_section(file, "run", text, len);
    dgnn_snap_train_cfg now = dyg;
    now.epochs = 2, now.resume = 1;
    CHECK_MSG(dgnn_snap_train(&ev, &now, res, &err) == 0, "%s", err.msg);
    free(res);
    dgnn_events_free(&ev);
}

/* ---- the trainers' shared checkpoint (dgnn_ckpt_trainer_save/load) ---- */
typedef struct {
    uint64_t fingerprint;
    int64_t epochs;
} toy_meta;
typedef struct {
    int64_t early[4], late[3];
    int early_calls, late_calls, check_calls, check_fails, late_fails;
} toy_ctx;

static int toy_early(dgnn_ckpt_io *io, void *ctx, dgnn_err *err) {
    toy_ctx *k = ctx;
    k->early_calls++;
    return dgnn_ckpt_io_section(io, "toy.early", k->early, sizeof k->early, err);
}
static int toy_late(dgnn_ckpt_io *io, void *ctx, dgnn_err *err) {
    toy_ctx *k = ctx;
    k->late_calls++;
    if (k->late_fails) return dgnn_err_set(err, DGNN_EIO, "toy: late section failed");
    return dgnn_ckpt_io_section(io, "toy.late", k->late, sizeof k->late, err);
}
static int toy_check(void *ctx, const char *path, dgnn_err *err) {
    toy_ctx *k = ctx;
    k->check_calls++;
    return k->check_fails ? dgnn_err_set(err, DGNN_EFORMAT, "checkpoint %s: toy progress out of range", path) : 0;
}

static void test_trainer_checkpoint(void) {
    char tdir[512], p[600];
    path_of(tdir, sizeof tdir, "trainer");
    dgnn_ckpt_dir_path(p, sizeof p, tdir);
    dgnn_err err;
    dgnn_params ps;
    dgnn_params_init(&ps);
    dgnn_params_add1(&ps, "w", 10);
    CHECK(dgnn_params_alloc(&ps, &err) == 0);
    for (int i = 0; i < 10; i++) ps.value[i] = (float)i, ps.grad[i] = -(float)i, ps.m[i] = 0.5f * (float)i, ps.v[i] = 2.0f;
    toy_meta meta = {0xfeedULL, 7};
    double results[3] = {0.25, 0.5, 0.75};
    toy_ctx k = {{1, 2, 3, 4}, {5, 6, 7}, 0, 0, 0, 0, 0};
    dgnn_ckpt_run run;
    dgnn_ckpt_run_init(&run);
    dgnn_ckpt_run_set(&run, "processes", "1");
    dgnn_ckpt_run_set(&run, "dist", "none");
    dgnn_ckpt_run_set(&run, "flags", "%s", "");
    dgnn_ckpt_trainer t = {.dir = tdir, .run = &run, .meta = &meta, .meta_bytes = sizeof meta,
                           .fingerprint = 0xfeedULL, .params = &ps, .with_grad = 1, .results = results,
                           .results_bytes = sizeof results, .rules = NULL, .advice = "start afresh",
                           .settings = "toy sizes", .early = toy_early, .check = toy_check, .late = toy_late,
                           .ctx = &k};
    dgnn_ckpt_run_rule none[] = {{NULL, NULL}};
    t.rules = none;
    CHECK_MSG(dgnn_ckpt_trainer_save(&t, &err) == 0, "%s", err.msg);
    CHECK(k.early_calls == 1 && k.late_calls == 1 && k.check_calls == 0); /* no check when saving */
    /* the sections in the documented order */
    dgnn_ckpt *c;
    CHECK_MSG(dgnn_ckpt_open(&c, p, &err) == 0, "%s", err.msg);
    const char *order[] = {"run", "meta", "toy.early", "params", "grad", "adam.m", "adam.v", "results", "toy.late"};
    CHECK(c && dgnn_ckpt_count(c) == 9);
    for (int i = 0; c && i < 9 && i < dgnn_ckpt_count(c); i++)
        CHECK_MSG(strcmp(dgnn_ckpt_name(c, i), order[i]) == 0, "section %d is %s, expected %s", i,
                  dgnn_ckpt_name(c, i), order[i]);
    dgnn_ckpt_close(c);

    /* resuming fills every part back */
    memset(&meta, 0, sizeof meta);
    memset(results, 0, sizeof results);
    memset(k.early, 0, sizeof k.early), memset(k.late, 0, sizeof k.late);
    for (int i = 0; i < 10; i++) ps.value[i] = ps.grad[i] = ps.m[i] = ps.v[i] = 0;
    CHECK_MSG(dgnn_ckpt_trainer_load(&t, &err) == 0, "%s", err.msg);
    CHECK(meta.fingerprint == 0xfeedULL && meta.epochs == 7 && results[2] == 0.75 && k.check_calls == 1);
    CHECK(k.early[3] == 4 && k.late[0] == 5 && k.late[2] == 7);
    int same = 1;
    for (int i = 0; i < 10; i++)
        same &= ps.value[i] == (float)i && ps.grad[i] == -(float)i && ps.m[i] == 0.5f * (float)i && ps.v[i] == 2.0f;
    CHECK(same);

    /* another fingerprint: refused, naming the file and what it covers; nothing after meta read */
    t.fingerprint = 0xbeefULL;
    k.early_calls = k.late_calls = 0;
    CHECK(dgnn_ckpt_trainer_load(&t, &err) == DGNN_EINVAL && strstr(err.msg, p) && strstr(err.msg, "(toy sizes)") &&
          strstr(err.msg, "--resume needs the same ones"));
    CHECK(k.early_calls == 0 && k.late_calls == 0);
    t.fingerprint = 0xfeedULL;

    /* progress out of range: the check's error, and the late sections are not read */
    k.check_fails = 1;
    CHECK(dgnn_ckpt_trainer_load(&t, &err) == DGNN_EFORMAT && strstr(err.msg, "toy progress"));
    CHECK(k.late_calls == 0);
    k.check_fails = 0;

    /* another run: refused by the run record's check, with the advice */
    dgnn_ckpt_run two = run;
    dgnn_ckpt_run_set(&two, "processes", "2");
    t.run = &two;
    CHECK(dgnn_ckpt_trainer_load(&t, &err) == DGNN_EINVAL && strstr(err.msg, "start afresh"));
    t.run = &run;

    /* a failed save leaves the previous checkpoint whole */
    meta.epochs = 8;
    k.late_fails = 1;
    CHECK(dgnn_ckpt_trainer_save(&t, &err) == DGNN_EIO && strstr(err.msg, "late section failed"));
    k.late_fails = 0;
    meta.epochs = 0;
    CHECK_MSG(dgnn_ckpt_trainer_load(&t, &err) == 0, "%s", err.msg);
    CHECK(meta.epochs == 7);
    dgnn_params_free(&ps);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/dgnn_test_ckpt_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_round_trip();
    test_corruption();
    test_not_regular();
    test_failed_writes();
    test_run_record();
    test_trainer_checkpoint();
    test_event_resume_checks();
    test_snap_resume_checks();
    rm_rf(dir);
    return check_done();
}
