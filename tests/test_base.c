/* test_base.c: rng determinism and range, error messages, the event builder, the checked
 * allocation (saturating sizes, a set that fails whole with a message, never an abort). */
#include "check.h"
#include "dgnn/dgnn.h" /* the one-include header: every public header compiles together */
#include "dgnn/events.h"

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

    /* identity ids are kept and no mapping stored; a bipartite stream is detected */
    dgnn_builder_init(&bld, 0, 0, 0);
    dgnn_builder_push(&bld, 0, 2, 1, NULL, 0, 0, &e);
    dgnn_builder_push(&bld, 1, 2, 2, NULL, 0, 0, &e);
    CHECK(dgnn_builder_finish(&bld, &ev, 0, &e) == DGNN_OK);
    CHECK(ev.node_ids == NULL && ev.num_nodes == 3 && ev.bipartite == 1);
    dgnn_events_free(&ev);
    test_checked_alloc();
    return check_done();
}
