/* test_base.c: rng determinism and range, error messages, the event builder, the checked
 * allocation (saturating sizes, a set that fails whole with a message, never an abort). */
#include "check.h"
#include "dgnn/dgnn.h" /* the one-include header: every public header compiles together */
#include "dgnn/events.h"
#include "../src/base/memlimit.h"

#include <sys/stat.h>
#include <unistd.h>

static void test_checked_alloc(void) {
    /* sizes saturate instead of wrapping */
    CHECK(dgnn_size_mul(3, 4) == 12 && dgnn_size_add(3, 4) == 7);
    CHECK(dgnn_size_mul(INT64_MAX / 2, 3) == INT64_MAX && dgnn_size_mul(-1, 3) == INT64_MAX);
    CHECK(dgnn_size_mul(dgnn_size_mul((int64_t)1 << 40, (int64_t)1 << 40), 2) == INT64_MAX);
    CHECK(dgnn_size_add(INT64_MAX, 1) == INT64_MAX);
    char b[32];
    CHECK(strcmp(dgnn_fmt_bytes(b, sizeof b, 512), "512 B") == 0);
    CHECK(strcmp(dgnn_fmt_bytes(b, sizeof b, 1.5 * 1024 * 1024 * 1024), "1.5 GiB") == 0);
    CHECK(strcmp(dgnn_fmt_metric(b, sizeof b, NAN), "n/a") == 0);
    CHECK(strcmp(dgnn_fmt_metric(b, sizeof b, 0.25), "0.2500") == 0);
    /* a diverged loss in the 16 bytes the trainers give it: "119721966339940" was 1.197e28 */
    char m16[16];
    CHECK(strcmp(dgnn_fmt_metric(m16, sizeof m16, 999999.0), "999999.0000") == 0);
    CHECK(strcmp(dgnn_fmt_metric(m16, sizeof m16, 1.1972e28), "1.197e+28") == 0);
    CHECK(strcmp(dgnn_fmt_metric(m16, sizeof m16, -3.4e38), "-3.4e+38") == 0);
    CHECK(strcmp(dgnn_fmt_metric(m16, sizeof m16, INFINITY), "n/a") == 0);
    CHECK(dgnn_mem_total_bytes() > 0);
    /* a set that can be had */
    dgnn_err e;
    dgnn_alloc_set as = {0, 0};
    float *x = NULL;
    double *y = NULL;
    DGNN_GROW(&as, x, 1000);
    DGNN_GROW_ZEROED(&as, y, 10);
    CHECK(!as.failed && x && y && y[9] == 0.0 && as.bytes == 4000 + 80);
    CHECK(dgnn_alloc_done(&as, &e, "x") == DGNN_OK);
    x[999] = 1;
    /* past the machine (a product that overflowed): refused without being tried, the
     * earlier buffers kept, the later grows skipped, the message naming the whole */
    float *big = NULL, *after = NULL;
    dgnn_alloc_set bs = {0, 0};
    DGNN_GROW(&bs, x, 2000); /* granted */
    DGNN_GROW(&bs, big, dgnn_size_mul((int64_t)1 << 40, (int64_t)1 << 30));
    DGNN_GROW(&bs, after, 10);
    CHECK(bs.failed && big == NULL && after == NULL && x != NULL && x[999] == 1);
    CHECK(dgnn_alloc_done(&bs, &e, "the test's %d buffers", 3) == DGNN_ENOMEM);
    CHECK_MSG(strcmp(e.msg, "out of memory: more than 8 EiB for the test's 3 buffers") == 0, "%s", e.msg);
    /* one that fits int64 but not this machine */
    dgnn_alloc_set cs = {0, 0};
    DGNN_GROW(&cs, big, dgnn_size_mul((int64_t)1 << 50, 4));
    CHECK(cs.failed && big == NULL && dgnn_alloc_done(&cs, &e, "a petabyte") == DGNN_ENOMEM);
    CHECK_MSG(strstr(e.msg, "out of memory: 16.0 PiB for a petabyte") != NULL, "%s", e.msg);
    CHECK(dgnn_mem_check(dgnn_size_mul((int64_t)1 << 50, 4), &e, "the sum of %s", "them") == DGNN_ENOMEM);
    CHECK_MSG(strstr(e.msg, "4.0 PiB for the sum of them") != NULL, "%s", e.msg);
    CHECK(dgnn_mem_check(4096, &e, "a page") == DGNN_OK);
    free(x), free(y);
}

/* ---- a control group's memory limit (memlimit.c) on made-up /proc/self/cgroup files and
 * cgroup trees: the smallest over the group and its ancestors, swap as each version counts
 * it, "max" and v1's "unlimited" as none */
static char g_tmp[] = "/tmp/dgnn_memlimit_XXXXXX";

static void put(const char *rel, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", g_tmp, rel);
    for (char *q = p + strlen(g_tmp) + 1; (q = strchr(q, '/')); q++) { /* mkdir -p of the folders */
        *q = '\0';
        mkdir(p, 0700);
        *q = '/';
    }
    FILE *f = fopen(p, "w");
    CHECK_MSG(f != NULL, "cannot write %s", p);
    if (f) fputs(text, f), fclose(f);
}

static int64_t limit_of(const char *cgroup_text, int64_t swap) {
    put("proc_cgroup", cgroup_text);
    char proc[512], root[512];
    snprintf(proc, sizeof proc, "%s/proc_cgroup", g_tmp);
    snprintf(root, sizeof root, "%s/sys", g_tmp);
    return dgnn_mem_cgroup_limit(proc, root, swap);
}

static void test_cgroup_limit(void) {
    if (!mkdtemp(g_tmp)) {
        CHECK(!"mkdtemp");
        return;
    }
    const int64_t G = (int64_t)1 << 30;
    /* no file, no group, no limit files */
    CHECK(dgnn_mem_cgroup_limit("/nonexistent/cgroup", "/nonexistent", 0) == INT64_MAX);
    CHECK(limit_of("0::/job\n", 0) == INT64_MAX);
    /* v2: the group's memory.max plus its swap, bounded by the machine's swap */
    put("sys/job/memory.max", "8589934592\n");
    CHECK(limit_of("0::/job\n", 0) == 8 * G);
    CHECK(limit_of("0::/job\n", 3 * G) == 11 * G); /* memory.swap.max absent: the machine's swap */
    put("sys/job/memory.swap.max", "1073741824\n");
    CHECK(limit_of("0::/job\n", 3 * G) == 9 * G);
    put("sys/job/memory.swap.max", "max\n");
    CHECK(limit_of("0::/job\n", 2 * G) == 10 * G);
    /* a parent's lower limit binds its children; "max" is none */
    put("sys/job/step/memory.max", "max\n");
    CHECK(limit_of("0::/job/step\n", 0) == 8 * G);
    put("sys/job/step/memory.max", "4294967296\n");
    CHECK(limit_of("0::/job/step\n", 0) == 4 * G);
    /* a container: its own group's files at the mount's top, the path naming the host's */
    put("sys/memory.max", "2147483648\n");
    CHECK(limit_of("0::/docker/abc123\n", 0) == 2 * G);
    CHECK(limit_of("0::/\n", 0) == 2 * G);
    /* v1: the memory controller's line (among others, in a list), memsw counting swap */
    CHECK(limit_of("5:cpu,cpuacct:/x\n4:memory:/slice\n", 0) == INT64_MAX);
    put("sys/memory/slice/memory.limit_in_bytes", "6442450944\n");
    CHECK(limit_of("5:cpu,cpuacct:/x\n4:memory:/slice\n", G) == 7 * G);
    put("sys/memory/slice/memory.memsw.limit_in_bytes", "6979321856\n"); /* 6.5 GiB */
    CHECK(limit_of("4:memory:/slice\n", G) == 6 * G + G / 2);
    CHECK(limit_of("4:blkio,memory:/slice\n", 4 * G) == 6 * G + G / 2);
    /* v1's "unlimited" (PAGE_COUNTER_MAX pages) is none; a line for another controller is ignored */
    put("sys/memory/free/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(limit_of("4:memory:/free\n", 0) == INT64_MAX);
    CHECK(limit_of("4:memoryx:/slice\n", 0) == INT64_MAX);
    /* odd contents: no limit rather than a wrong one */
    put("sys/memory/odd/memory.limit_in_bytes", "-1\n");
    CHECK(limit_of("4:memory:/odd\n", 0) == INT64_MAX);
    put("sys/memory/odd/memory.limit_in_bytes", "99999999999999999999999\n");
    CHECK(limit_of("4:memory:/odd\n", 0) == INT64_MAX);
    CHECK(limit_of("garbage without colons\n\n", 0) == INT64_MAX);
    /* this process's: within the machine's RAM + swap, what the refusals compare with */
    CHECK(dgnn_mem_total_bytes() > 0 && dgnn_mem_total_bytes() == dgnn_mem_total_bytes());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    CHECK(system(cmd) == 0);
}

/* rc is DGNN_EINVAL and e's message holds want */
static void expect_refused(int rc, const dgnn_err *e, const char *want) {
    CHECK_MSG(rc == DGNN_EINVAL && strstr(e->msg, want), "rc %d, msg '%s' (want '%s')", rc, e->msg, want);
}

/* what the readers refuse, the builder refuses too, naming the row and field (training on
 * such rows "succeeded" with every score NaN, AP 0.5); NULL arguments are refused */
static void test_builder_refusals(void) {
    dgnn_err e;
    dgnn_err_clear(&e);
    dgnn_builder b;
    float f[2] = {1, 2};
    dgnn_builder_init(&b, 2, 1, 0);
    CHECK(dgnn_builder_push(&b, 1, 2, 0.0, f, 1, 0, &e) == DGNN_OK);
    expect_refused(dgnn_builder_push(&b, 1, 2, NAN, f, 0, 0, &e), &e, "row 1: t is not finite");
    expect_refused(dgnn_builder_push(&b, 1, 2, INFINITY, f, 0, 0, &e), &e, "row 1: t is not finite");
    expect_refused(dgnn_builder_push(&b, 1, 2, -1e308, f, 0, 0, &e), &e, "row 1: t -1e+308 is out of range");
    f[1] = NAN;
    expect_refused(dgnn_builder_push(&b, 1, 2, 1.0, f, 0, 0, &e), &e, "row 1: edge feature 1 is not finite");
    f[1] = -INFINITY;
    expect_refused(dgnn_builder_push(&b, 1, 2, 1.0, f, 0, 0, &e), &e, "row 1: edge feature 1 is not finite");
    f[1] = 2;
    expect_refused(dgnn_builder_push(&b, 1, 2, 1.0, f, 2, 0, &e), &e, "row 1: label 2 is not 0 or 1");
    expect_refused(dgnn_builder_push(&b, 1, 2, 1.0, f, -1, 0, &e), &e, "row 1: label -1 is not 0 or 1");
    CHECK(b.n == 1); /* nothing refused was appended */
    CHECK(dgnn_builder_push(&b, 2, 3, 1.0, f, 0, 0, &e) == DGNN_OK);
    /* finish checks the rows again: a caller that wrote the arrays itself */
    b.t[1] = NAN;
    dgnn_events ev;
    dgnn_events_init(&ev);
    expect_refused(dgnn_builder_finish(&b, &ev, 0, &e), &e, "row 1: t is not finite");
    CHECK(ev.num_events == 0 && b.n == 0); /* the builder freed either way */
    dgnn_builder_init(&b, 2, 1, 0);
    CHECK(dgnn_builder_push(&b, 1, 2, 0.0, f, 0, 0, &e) == DGNN_OK);
    b.efeat[0] = NAN;
    expect_refused(dgnn_builder_finish(&b, &ev, 0, &e), &e, "row 0: edge feature 0 is not finite");
    dgnn_builder_init(&b, 0, 1, 0);
    CHECK(dgnn_builder_push(&b, 1, 2, 0.0, NULL, 1, 0, &e) == DGNN_OK);
    b.label[0] = 7;
    expect_refused(dgnn_builder_finish(&b, &ev, 0, &e), &e, "row 0: label 7 is not 0 or 1");
    /* without labels the label argument is not read */
    dgnn_builder_init(&b, 0, 0, 0);
    CHECK(dgnn_builder_push(&b, 1, 2, 0.0, NULL, 5, 0, &e) == DGNN_OK);
    CHECK(dgnn_builder_finish(&b, &ev, 0, &e) == DGNN_OK && ev.num_events == 1);
    dgnn_events_free(&ev);
    /* a negative edge_dim: init has no status, push and finish refuse it */
    dgnn_builder_init(&b, -2, 0, 0);
    expect_refused(dgnn_builder_push(&b, 1, 2, 0.0, NULL, 0, 0, &e), &e, "edge_dim -2");
    expect_refused(dgnn_builder_finish(&b, &ev, 0, &e), &e, "edge_dim -2");
    /* NULL builder, NULL table */
    expect_refused(dgnn_builder_push(NULL, 1, 2, 0.0, NULL, 0, 0, &e), &e, "builder is NULL");
    expect_refused(dgnn_builder_finish(NULL, &ev, 0, &e), &e, "builder is NULL");
    dgnn_builder_init(&b, 0, 0, 0);
    CHECK(dgnn_builder_push(&b, 1, 2, 0.0, NULL, 0, 0, &e) == DGNN_OK);
    expect_refused(dgnn_builder_finish(&b, NULL, 0, &e), &e, "ev is NULL");
    CHECK(b.n == 0 && b.src == NULL); /* freed */
    CHECK(dgnn_events_dense_id(NULL, 3) == -1);
}

int main(void) {
    dgnn_rng a, b;
    dgnn_rng_seed(&a, 42);
    dgnn_rng_seed(&b, 42);
    int same = 1;
    for (int i = 0; i < 1000; i++) same &= dgnn_rng_u64(&a) == dgnn_rng_u64(&b);
    CHECK(same);
    dgnn_rng_seed2(&a, 42, 1);
    dgnn_rng_seed2(&b, 42, 2);
    CHECK(dgnn_rng_u64(&a) != dgnn_rng_u64(&b));
    int64_t hist[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t x = dgnn_rng_below(&a, 10);
        CHECK(x < 10 || !"range");
        if (x < 10) hist[x]++;
    }
    for (int i = 0; i < 10; i++) CHECK_MSG(hist[i] > 9500 && hist[i] < 10500, "bucket %d: %lld", i, (long long)hist[i]);
    double s = 0;
    for (int i = 0; i < 100000; i++) s += dgnn_rng_normal(&a);
    CHECK(fabs(s / 100000) < 0.02);

    dgnn_err e;
    CHECK(dgnn_err_set(&e, DGNN_EFORMAT, "%s:%d: field %s", "f.csv", 3, "ts") == DGNN_EFORMAT);
    CHECK(strcmp(e.msg, "f.csv:3: field ts") == 0);
    char buf[32];
    CHECK(strcmp(dgnn_fmt_count(buf, sizeof buf, 157474), "157,474") == 0);
    CHECK(strcmp(dgnn_fmt_count(buf, sizeof buf, 999), "999") == 0);
    CHECK(strcmp(dgnn_fmt_count(buf, sizeof buf, -1234567), "-1,234,567") == 0);

    /* builder: unsorted rows with sparse ids, ties keep file order */
    dgnn_builder bld;
    dgnn_builder_init(&bld, 1, 1, 0);
    float f;
    f = 1; dgnn_builder_push(&bld, 100, 7, 5.0, &f, 0, 0, &e);
    f = 2; dgnn_builder_push(&bld, 7, 300, 1.5, &f, 1, 0, &e);
    f = 3; dgnn_builder_push(&bld, 100, 300, 5.0, &f, 0, 0, &e);
    f = 4; dgnn_builder_push(&bld, 300, 100, 0.0, &f, 0, 0, &e);
    dgnn_events ev;
    dgnn_events_init(&ev);
    CHECK(dgnn_builder_finish(&bld, &ev, 0, &e) == DGNN_OK);
    CHECK(ev.num_events == 4 && ev.num_nodes == 3);
    CHECK(ev.t[0] == 0.0 && ev.t[1] == 1.5 && ev.t[2] == 5.0 && ev.t[3] == 5.0);
    CHECK(ev.efeat[0] == 4 && ev.efeat[1] == 2 && ev.efeat[2] == 1 && ev.efeat[3] == 3); /* stable */
    CHECK(ev.node_ids && ev.node_ids[0] == 7 && ev.node_ids[1] == 100 && ev.node_ids[2] == 300);
    CHECK(ev.src[0] == 2 && ev.dst[0] == 1 && ev.label[1] == 1);
    CHECK(ev.bipartite == 0);
    dgnn_events_free(&ev);

    /* the features put in time order in place (the builder's array becomes the table's):
     * 3000 rows of 5 in a shuffled order (long cycles, ties among them), each row's
     * features naming the row it was pushed as */
    {
        enum { NR = 3000, DE = 5 };
        static double tt[NR];
        dgnn_rng pr;
        dgnn_rng_seed(&pr, 11);
        dgnn_builder_init(&bld, DE, 0, 0);
        for (int i = 0; i < NR; i++) {
            tt[i] = (double)dgnn_rng_below(&pr, NR / 2); /* ties: file order kept */
            float row[DE];
            for (int j = 0; j < DE; j++) row[j] = (float)(i * 10 + j);
            CHECK(dgnn_builder_push(&bld, i % 17, 100 + i % 5, tt[i], row, 0, 0, &e) == DGNN_OK);
        }
        CHECK(dgnn_builder_finish(&bld, &ev, 0, &e) == DGNN_OK && ev.num_events == NR && ev.edge_dim == DE);
        int ok = 1, moved = 0;
        for (int k = 0; ok && k < NR; k++) {
            const int i = (int)(ev.efeat[k * DE] / 10); /* the row pushed */
            ok = tt[i] == ev.t[k] && (k == 0 || ev.t[k - 1] < ev.t[k] || ev.efeat[(k - 1) * DE] < ev.efeat[k * DE]);
            for (int j = 0; ok && j < DE; j++) ok = ev.efeat[k * DE + j] == (float)(i * 10 + j);
            moved += i != k;
        }
        CHECK_MSG(ok && moved > NR / 2, "rows in order with their own features: %d, %d moved", ok, moved);
        dgnn_events_free(&ev);
        dgnn_builder_init(&bld, 3, 0, 0); /* no rows: a table with edge features and none */
        CHECK(dgnn_builder_finish(&bld, &ev, 0, &e) == DGNN_OK && ev.num_events == 0 && ev.edge_dim == 3);
        dgnn_events_free(&ev);
    }

    /* identity ids are kept and no mapping stored; a bipartite stream is detected */
    dgnn_builder_init(&bld, 0, 0, 0);
    dgnn_builder_push(&bld, 0, 2, 1, NULL, 0, 0, &e);
    dgnn_builder_push(&bld, 1, 2, 2, NULL, 0, 0, &e);
    CHECK(dgnn_builder_finish(&bld, &ev, 0, &e) == DGNN_OK);
    CHECK(ev.node_ids == NULL && ev.num_nodes == 3 && ev.bipartite == 1);
    dgnn_events_free(&ev);
    test_checked_alloc();
    test_cgroup_limit();
    test_builder_refusals();
    return check_done();
}
