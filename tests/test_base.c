/* test_base.c: rng determinism and range, error messages, the event builder. */
#include "check.h"
#include "dgnn/base.h"
#include "dgnn/events.h"

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
    return check_done();
}
