/* test_capi.c: the flat API of libdgnn.so (capi.h), linked against the shared library as
 * a ctypes caller or a C program using it is (CMakeLists.txt links this test alone with
 * dgnn_shared, not the static library):
 *  - arguments checked before they are read: a negative argc (it sized the copy of argv
 *    below its writes: a heap overflow, and argc -1 trained on the defaults and returned
 *    0), a NULL handle, output, argv or argv[i], a NULL array a count says holds entries:
 *    DGNN_EINVAL with a message naming it (they crashed);
 *  - the library exports its public API only: this program defines its own args_parse
 *    (a name of the command's flag parser inside the library), which must not replace the
 *    library's; the library's internal names are not found in it by dlsym. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "dgnn/base.h"
#include "dgnn/capi.h"

/* a user's helper that happens to share a name with one inside the library */
static int g_user_args_parse_calls;
int args_parse(void *spec, int argc, char **argv);
int args_parse(void *spec, int argc, char **argv) {
    (void)spec, (void)argc, (void)argv;
    g_user_args_parse_calls++;
    return 0;
}

static dgnn_capi_events *small_events(void) {
    enum { N = 300 };
    int64_t s[N], d[N];
    double t[N];
    uint64_t x = 5;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s[i] = (int64_t)((x >> 33) % 20), d[i] = 1000 + (int64_t)((x >> 20) % 10), t[i] = i;
    }
    dgnn_capi_events *ev = NULL;
    char msg[256];
    const int rc = dgnn_capi_events_from_arrays(&ev, s, N, d, N, t, N, NULL, 0, 0, NULL, 0, msg, sizeof msg);
    CHECK_MSG(rc == 0 && ev, "from_arrays: %d %s", rc, msg);
    return ev;
}

static const char *const SMALL[] = {"--epochs", "1", "--batch", "50", "--mem-dim", "8", "--emb-dim", "8",
                                    "--time-dim", "4", "--neighbors", "3", "--threads", "1", "--max-batches", "2"};
#define NSMALL ((int)(sizeof SMALL / sizeof SMALL[0]))

/* rc is DGNN_EINVAL and msg holds want */
static void expect_einval(const char *what, int rc, const char *msg, const char *want) {
    CHECK_MSG(rc == DGNN_EINVAL && strstr(msg, want), "%s: rc %d, msg '%s' (want DGNN_EINVAL, '%s')", what, rc, msg,
              want);
}

static void test_train_arguments(const dgnn_capi_events *ev) {
    char msg[512], *json = (char *)1;
    int rc = dgnn_capi_train(ev, "x", NSMALL, SMALL, NULL, NULL, &json, msg, sizeof msg);
    CHECK_MSG(rc == 0 && json && strstr(json, "\"test\""), "a good run: rc %d %s", rc, msg);
    dgnn_capi_free_string(json);

    json = (char *)1;
    rc = dgnn_capi_train(ev, "x", -1, SMALL, NULL, NULL, &json, msg, sizeof msg);
    expect_einval("argc -1", rc, msg, "argc is -1");
    CHECK(json == NULL);
    rc = dgnn_capi_train(ev, "x", -2, SMALL, NULL, NULL, &json, msg, sizeof msg);
    expect_einval("argc -2", rc, msg, "argc is -2");
    rc = dgnn_capi_train(ev, "x", INT_MAX, SMALL, NULL, NULL, &json, msg, sizeof msg);
    expect_einval("argc INT_MAX", rc, msg, "too many flags");
    rc = dgnn_capi_train(ev, "x", 2, NULL, NULL, NULL, &json, msg, sizeof msg);
    expect_einval("argv NULL", rc, msg, "argv is NULL with argc 2");
    const char *const hole[] = {"--epochs", NULL};
    rc = dgnn_capi_train(ev, "x", 2, hole, NULL, NULL, &json, msg, sizeof msg);
    expect_einval("argv[1] NULL", rc, msg, "argv[1] is NULL");
    rc = dgnn_capi_train(NULL, "x", NSMALL, SMALL, NULL, NULL, &json, msg, sizeof msg);
    expect_einval("ev NULL", rc, msg, "ev is NULL");
    rc = dgnn_capi_train(ev, "x", NSMALL, SMALL, NULL, NULL, NULL, msg, sizeof msg);
    expect_einval("json NULL", rc, msg, "json is NULL");
    /* argc 0 with argv NULL: no flags, allowed (the check only refuses what would be read) */

    rc = dgnn_capi_schedule(ev, "x", -1, SMALL, &json, msg, sizeof msg);
    expect_einval("schedule argc -1", rc, msg, "argc is -1");
    rc = dgnn_capi_schedule(NULL, "x", 0, NULL, &json, msg, sizeof msg);
    expect_einval("schedule ev NULL", rc, msg, "ev is NULL");
}

static void test_help_arguments(const dgnn_capi_events *ev) {
    char msg[512], *text = NULL;
    int rc = dgnn_capi_help(ev, "train", 0, NULL, &text, msg, sizeof msg);
    CHECK_MSG(rc == 0 && text && strstr(text, "--epochs"), "help: rc %d %s", rc, msg);
    dgnn_capi_free_string(text);
    text = (char *)1;
    rc = dgnn_capi_help(ev, "train", -1, SMALL, &text, msg, sizeof msg);
    expect_einval("help argc -1", rc, msg, "argc is -1");
    CHECK(text == NULL);
    rc = dgnn_capi_help(ev, "train", -3, SMALL, &text, msg, sizeof msg);
    expect_einval("help argc -3", rc, msg, "argc is -3");
    rc = dgnn_capi_help(ev, "train", 1, NULL, &text, msg, sizeof msg);
    expect_einval("help argv NULL", rc, msg, "argv is NULL");
    rc = dgnn_capi_help(ev, "train", 0, NULL, NULL, msg, sizeof msg);
    expect_einval("help text NULL", rc, msg, "text is NULL");
}

static void test_eval_arguments(const dgnn_capi_events *ev) {
    char msg[512], *json = NULL;
    float *emb = NULL, score[1];
    int64_t dim = 0;
    const int64_t node[1] = {1}, dst[1] = {1000};
    const double t[1] = {5};
    const char *const av[] = {"--checkpoint", "/nonexistent-dgnn-test-dir"};
    int rc = dgnn_capi_eval(ev, "x", 2, av, 1, node, NULL, 1, &emb, &dim, NULL, NULL, NULL, 0, NULL, &json, msg,
                            sizeof msg);
    expect_einval("eval emb_t NULL", rc, msg, "emb_t is NULL");
    rc = dgnn_capi_eval(ev, "x", 2, av, 1, NULL, t, 1, &emb, &dim, NULL, NULL, NULL, 0, NULL, &json, msg, sizeof msg);
    expect_einval("eval emb_nodes NULL", rc, msg, "emb_nodes is NULL");
    rc = dgnn_capi_eval(ev, "x", 2, av, 1, NULL, NULL, 0, NULL, NULL, node, dst, NULL, 1, score, &json, msg,
                        sizeof msg);
    expect_einval("eval score_t NULL", rc, msg, "score_t is NULL");
    rc = dgnn_capi_eval(ev, "x", 2, av, 1, NULL, NULL, 0, NULL, NULL, node, dst, t, 1, NULL, &json, msg, sizeof msg);
    expect_einval("eval score_out NULL", rc, msg, "score_out is NULL");
    rc = dgnn_capi_eval(ev, "x", 2, av, 1, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL, 0, NULL, &json, msg,
                        sizeof msg);
    expect_einval("eval n_emb -1", rc, msg, "n_emb is negative");
    rc = dgnn_capi_eval(ev, "x", -1, av, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, &json, msg,
                        sizeof msg);
    expect_einval("eval argc -1", rc, msg, "argc is -1");
    rc = dgnn_capi_eval(NULL, "x", 2, av, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, &json, msg,
                        sizeof msg);
    expect_einval("eval ev NULL", rc, msg, "ev is NULL");
    rc = dgnn_capi_eval(ev, "x", 2, av, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, msg,
                        sizeof msg);
    expect_einval("eval json NULL", rc, msg, "json is NULL");
}

static void test_events_arguments(void) {
    char msg[256];
    const int64_t s[2] = {1, 2};
    const double t[2] = {0, 1};
    dgnn_capi_events *h = (dgnn_capi_events *)1;
    int rc = dgnn_capi_events_from_arrays(&h, s, 2, NULL, 2, t, 2, NULL, 0, 0, NULL, 0, msg, sizeof msg);
    expect_einval("from_arrays dst NULL", rc, msg, "dst is NULL");
    CHECK(h == NULL);
    rc = dgnn_capi_events_from_arrays(&h, s, 2, s, 2, NULL, 2, NULL, 0, 0, NULL, 0, msg, sizeof msg);
    expect_einval("from_arrays t NULL", rc, msg, "t is NULL");
    rc = dgnn_capi_events_from_arrays(NULL, s, 2, s, 2, t, 2, NULL, 0, 0, NULL, 0, msg, sizeof msg);
    expect_einval("from_arrays out NULL", rc, msg, "out is NULL");
    rc = dgnn_capi_events_load(NULL, "x.csv", NULL, msg, sizeof msg);
    expect_einval("load out NULL", rc, msg, "out is NULL");
    char v[32];
    rc = dgnn_capi_checkpoint_setting(NULL, "model", v, sizeof v, msg, sizeof msg);
    expect_einval("checkpoint_setting dir NULL", rc, msg, "dir is NULL");
    /* the accessors on a NULL handle: no table (they read through it and crashed) */
    CHECK(dgnn_capi_events_num_events(NULL) == -1 && dgnn_capi_events_num_nodes(NULL) == -1);
    CHECK(dgnn_capi_events_edge_dim(NULL) == -1 && dgnn_capi_events_bipartite(NULL) == -1);
    CHECK(!dgnn_capi_events_src(NULL) && !dgnn_capi_events_dst(NULL) && !dgnn_capi_events_t(NULL));
    CHECK(!dgnn_capi_events_efeat(NULL) && !dgnn_capi_events_label(NULL) && !dgnn_capi_events_node_ids(NULL));
}

/* only dgnn_* leave the library: the user's args_parse is not called in its place, and
 * the command's internal names are not found by dlsym in it */
static void test_exports(const dgnn_capi_events *ev) {
    char msg[512], *json = NULL;
    const char *const bogus[] = {"--bogus-option", "3"};
    g_user_args_parse_calls = 0;
    const int rc = dgnn_capi_train(ev, "x", 2, bogus, NULL, NULL, &json, msg, sizeof msg);
    CHECK_MSG(rc == DGNN_EINVAL && strstr(msg, "--bogus-option"), "bogus option: rc %d '%s'", rc, msg);
    CHECK_MSG(g_user_args_parse_calls == 0, "the program's args_parse replaced the library's (%d calls)",
              g_user_args_parse_calls);
    dgnn_capi_free_string(json);
    Dl_info info;
    void *lib = NULL;
    if (dladdr((void *)dgnn_capi_train, &info) && info.dli_fname) lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    CHECK_MSG(lib != NULL, "dlopen of the library dgnn_capi_train is in");
    if (!lib) return;
    CHECK(dlsym(lib, "dgnn_capi_train") != NULL);
    CHECK(dlsym(lib, "dgnn_event_train") != NULL);
    static const char *const internal[] = {"args_parse", "cmd_train", "cli_train_embedded", "capi_set_msg"};
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
        CHECK_MSG(dlsym(lib, internal[i]) == NULL, "libdgnn.so exports %s", internal[i]);
    dlclose(lib);
}

/* a table read from a file: an output of a command run on it that names that file (or a
 * link to it) is refused before any work, as the command refuses one over --data; it
 * overwrote the data in-process (the file was never told to the output check) */
static void test_outputs_over_the_source(void) {
    char dir[] = "/tmp/test_capi_XXXXXX";
    if (!mkdtemp(dir)) return;
    char path[128], link[160], msg[512], *json = NULL;
    snprintf(path, sizeof path, "%s/ev.csv", dir);
    snprintf(link, sizeof link, "%s/alias.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    for (int i = 0; i < 200; i++) fprintf(f, "%d %d %d\n", i % 13, 100 + i % 7, i); /* an edge list */
    fclose(f);
    CHECK(symlink(path, link) == 0);
    struct stat before;
    CHECK(stat(path, &before) == 0);
    dgnn_capi_events *ev = NULL;
    int rc = dgnn_capi_events_load(&ev, path, NULL, msg, sizeof msg);
    CHECK_MSG(rc == 0 && ev, "load %s: %d %s", path, rc, msg);
    const char *outs[][2] = {{"--out", path}, {"--curve", link}, {"--dump-config", path}};
    for (size_t k = 0; ev && k < sizeof outs / sizeof outs[0]; k++) {
        const char *argv[NSMALL + 2];
        for (int i = 0; i < NSMALL; i++) argv[i] = SMALL[i];
        argv[NSMALL] = outs[k][0], argv[NSMALL + 1] = outs[k][1];
        rc = dgnn_capi_train(ev, "ev", NSMALL + 2, argv, NULL, NULL, &json, msg, sizeof msg);
        CHECK_MSG(rc != 0 && strstr(msg, "would destroy"), "%s over the loaded file: rc %d '%s'", outs[k][0], rc, msg);
        dgnn_capi_free_string(json), json = NULL;
    }
    struct stat after;
    CHECK(stat(path, &after) == 0 && after.st_size == before.st_size && after.st_mtime == before.st_mtime);
    dgnn_capi_events_free(ev);
    unlink(link), unlink(path), rmdir(dir);
}

/* an output that cannot be written after the run got through fails the call and keeps
 * the results (they were freed: a full disk cost the whole training) */
static void test_results_kept_when_an_output_fails(const dgnn_capi_events *ev) {
    char msg[512], *json = NULL;
    const char *argv[NSMALL + 2];
    for (int i = 0; i < NSMALL; i++) argv[i] = SMALL[i];
    argv[NSMALL] = "--out", argv[NSMALL + 1] = "/dev/full";
    const int rc = dgnn_capi_train(ev, "x", NSMALL + 2, argv, NULL, NULL, &json, msg, sizeof msg);
    CHECK_MSG(rc == DGNN_EIO && strstr(msg, "/dev/full"), "--out /dev/full: rc %d '%s'", rc, msg);
    CHECK_MSG(json && strstr(json, "\"test\""), "--out /dev/full: the results were not returned");
    dgnn_capi_free_string(json);
}

/* another thread's C stderr while calls run (quiet ones: their own lines dropped): every
 * line of it reaches fd 2, and none is taken for a call's; before, the calls' streams
 * were the process's for their length, dropping its lines and closed under its writes
 * (a crash in the writer) */
static atomic_int g_writing;
static void *stderr_writer(void *arg) {
    int *written = arg;
    while (atomic_load(&g_writing)) {
        fprintf(stderr, "writer line %d\n", (*written)++);
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void test_other_threads_stderr(const dgnn_capi_events *ev) {
    char path[] = "/tmp/test_capi_err_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return;
    fflush(stderr);
    const int saved = dup(2);
    dup2(fd, 2);
    int written = 0;
    pthread_t th;
    atomic_store(&g_writing, 1);
    CHECK(pthread_create(&th, NULL, stderr_writer, &written) == 0);
    int good = 0;
    for (int k = 0; k < 6; k++) {
        char msg[512], *json = NULL;
        dgnn_capi_set_quiet(k % 2 == 0);
        const char *argv[NSMALL + 1];
        for (int i = 0; i < NSMALL; i++) argv[i] = SMALL[i];
        argv[NSMALL] = k == 5 ? "--bogus" : "--quiet";
        const int rc = dgnn_capi_train(ev, "x", NSMALL + 1, argv, NULL, NULL, &json, msg, sizeof msg);
        good += k < 5 ? rc == 0 : (rc == DGNN_EINVAL && strstr(msg, "dgnn train: ") && !strstr(msg, "writer line"));
        dgnn_capi_free_string(json);
    }
    dgnn_capi_set_quiet(1);
    atomic_store(&g_writing, 0);
    pthread_join(th, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fdopen(fd, "r");
    int seen = 0;
    char line[256];
    if (f) {
        rewind(f);
        while (fgets(line, sizeof line, f)) seen += strncmp(line, "writer line ", 12) == 0;
        fclose(f);
    }
    unlink(path);
    CHECK_MSG(good == 6, "the calls beside a writing thread: %d of 6 as they should be", good);
    CHECK_MSG(written > 0 && seen == written, "another thread's stderr: %d of %d lines reached fd 2", seen, written);
}

int main(void) {
    dgnn_capi_set_quiet(1);
    dgnn_capi_events *ev = small_events();
    if (ev) {
        test_exports(ev);
        test_train_arguments(ev);
        test_help_arguments(ev);
        test_eval_arguments(ev);
        test_results_kept_when_an_output_fails(ev);
        test_other_threads_stderr(ev);
    }
    test_events_arguments();
    test_outputs_over_the_source();
    dgnn_capi_events_free(ev);
    return check_done();
}
