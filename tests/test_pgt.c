/* test_pgt.c: the PyTorch Geometric Temporal json reader on hand-made files in the three
 * layouts (every value checked), on broken files (each must fail with a message that
 * names the field, or the line for a syntax error), and on the shared benchmark files
 * (counts from their SOURCE.txt). */
#include "check.h"
#include "dgnn/readers.h"

static char tmp_path[256];

/* Writes text to the temporary file and reads it; returns the status. */
static int read_text(const char *text, dgnn_events *ev, dgnn_err *err) {
    check_write_file(tmp_path, text, strlen(text));
    dgnn_err_clear(err);
    return dgnn_read_pgt(ev, tmp_path, err);
}

/* A bad file must fail with code and a message holding `needle`, and leave ev empty. */
static void expect_fail(const char *name, const char *text, int code, const char *needle) {
    dgnn_events ev;
    dgnn_err err;
    int rc = read_text(text, &ev, &err);
    CHECK_MSG(rc == code, "%s: rc %d (%s), expected %d", name, rc, err.msg, code);
    CHECK_MSG(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", name, err.msg, needle);
    CHECK_MSG(strstr(err.msg, tmp_path) != NULL, "%s: message '%s' lacks the file name", name, err.msg);
    CHECK_MSG(ev.num_events == 0 && ev.src == NULL && ev.period_y == NULL, "%s: table not empty", name);
    dgnn_events_free(&ev);
}

static void test_twitter_layout(void) {
    /* 3 periods, 5 nodes (node 4 only has features), duplicate edge kept, empty period */
    const char *text =
        "{\n"
        "  \"0\": {\"index\": 0, \"edges\": [[0, 1], [2, 0], [0, 1]], \"weights\": [1, 2.5, 3],\n"
        "         \"X\": [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], \"y\": [1, 2, 3, 4, 5]},\n"
        "  \"2\": {\"index\": 2, \"edges\": [[3, 3]], \"weights\": [4],\n"
        "         \"X\": [[0, 0], [0, 0], [0, 0], [0, 0], [0.5, -1e-3]], \"y\": [0, 0, 0, 0, 7]},\n"
        "  \"1\": {\"edges\": [], \"weights\": [],\n"
        "         \"X\": [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1]], \"y\": [9, 8, 7, 6, 5]},\n"
        "  \"time_periods\": 3, \"node_ids\": {\"a\": 0, \"b\": 1}\n"
        "}\n";
    dgnn_events ev;
    dgnn_err err;
    int rc = read_text(text, &ev, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(ev.num_events == 4);
    CHECK(ev.num_nodes == 5);
    CHECK(ev.num_periods == 3);
    CHECK(ev.edge_dim == 1);
    CHECK(ev.node_ids == NULL);
    int32_t src[] = {0, 2, 0, 3}, dst[] = {1, 0, 1, 3};
    double t[] = {0, 0, 0, 2};
    float w[] = {1, 2.5f, 3, 4};
    for (int i = 0; i < 4; i++) {
        CHECK_MSG(ev.src[i] == src[i] && ev.dst[i] == dst[i] && ev.t[i] == t[i] && ev.efeat[i] == w[i],
                  "event %d: %d %d %g %g", i, ev.src[i], ev.dst[i], ev.t[i], ev.efeat[i]);
    }
    CHECK(ev.period_x_dim == 2 && ev.period_x != NULL);
    CHECK(ev.period_y_dim == 1 && ev.period_y != NULL);
    if (ev.period_x && ev.period_y) {
        CHECK(ev.period_x[0 * 10 + 3 * 2 + 1] == 8.0f); /* period 0, node 3, column 1 */
        CHECK(ev.period_x[1 * 10 + 4 * 2 + 0] == 1.0f);
        CHECK(ev.period_x[2 * 10 + 4 * 2 + 0] == 0.5f);
        CHECK(ev.period_x[2 * 10 + 4 * 2 + 1] == -1e-3f);
        CHECK(ev.period_y[0 * 5 + 4] == 5.0f);
        CHECK(ev.period_y[1 * 5 + 0] == 9.0f);
        CHECK(ev.period_y[2 * 5 + 4] == 7.0f);
    }
    CHECK(ev.bipartite == 0);
    dgnn_events_free(&ev);

    /* no weights, no X, y as a matrix (dy = 2); N from the ids */
    text = "{\"time_periods\": 2, \"0\": {\"edges\": [[1, 0]], \"y\": [[1, 2], [3, 4]]},"
           " \"1\": {\"edges\": [[0, 1], [1, 1]], \"y\": [[5, 6], [7, 8]]}}";
    rc = read_text(text, &ev, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(ev.num_events == 3 && ev.num_nodes == 2 && ev.num_periods == 2);
    CHECK(ev.efeat[0] == 1.0f && ev.efeat[1] == 1.0f && ev.efeat[2] == 1.0f);
    CHECK(ev.t[0] == 0 && ev.t[1] == 1 && ev.t[2] == 1);
    CHECK(ev.period_x == NULL && ev.period_x_dim == 0);
    CHECK(ev.period_y_dim == 2);
    CHECK(ev.period_y[1 * 4 + 1 * 2 + 0] == 7.0f);
    dgnn_events_free(&ev);
}

static void test_england_layout(void) {
    /* keys out of order in the file; events must come out in period order, file order within */
    const char *text =
        "{\"edge_mapping\": {\"edge_index\": {\"1\": [[0, 1]], \"0\": [[1, 2], [2, 2]]},\n"
        "                  \"edge_weight\": {\"0\": [10.5, 20], \"1\": [30]}},\n"
        " \"time_periods\": 2, \"y\": [[1, 2, 3], [4, 5, 6]]}\n";
    dgnn_events ev;
    dgnn_err err;
    int rc = read_text(text, &ev, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(ev.num_events == 3 && ev.num_nodes == 3 && ev.num_periods == 2);
    CHECK(ev.src[0] == 1 && ev.dst[0] == 2 && ev.t[0] == 0 && ev.efeat[0] == 10.5f);
    CHECK(ev.src[1] == 2 && ev.dst[1] == 2 && ev.t[1] == 0 && ev.efeat[1] == 20.0f);
    CHECK(ev.src[2] == 0 && ev.dst[2] == 1 && ev.t[2] == 1 && ev.efeat[2] == 30.0f);
    CHECK(ev.period_x == NULL);
    CHECK(ev.period_y_dim == 1);
    CHECK(ev.period_y[0] == 1.0f && ev.period_y[2] == 3.0f && ev.period_y[3] == 4.0f && ev.period_y[5] == 6.0f);
    dgnn_events_free(&ev);

    /* no edge_weight: weights 1 */
    rc = read_text("{\"edge_mapping\": {\"edge_index\": {\"0\": [[0, 1]]}}, \"time_periods\": 1}", &ev, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK(ev.num_events == 1 && ev.efeat && ev.efeat[0] == 1.0f && ev.period_y == NULL && ev.num_nodes == 2);
    dgnn_events_free(&ev);
}

/* Without X or y nothing fixes the node count: sparse ids are made dense (issue 12: one
 * id of 2e9 used to declare 2e9 nodes, and every consumer allocated for them). */
static void test_sparse_ids(void) {
    dgnn_events ev;
    dgnn_err err;
    int rc = read_text("{\"time_periods\": 2, \"0\": {\"edges\": [[0, 2000000000], [5, 0]]}, "
                       "\"1\": {\"edges\": [[2000000000, 5]]}}",
                       &ev, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(ev.num_events == 3 && ev.num_nodes == 3 && ev.num_periods == 2);
    CHECK(ev.node_ids && ev.node_ids[0] == 0 && ev.node_ids[1] == 5 && ev.node_ids[2] == 2000000000);
    CHECK(ev.src[0] == 0 && ev.dst[0] == 2 && ev.src[1] == 1 && ev.dst[1] == 0 && ev.src[2] == 2 && ev.dst[2] == 1);
    CHECK(ev.t[2] == 1);
    dgnn_events_free(&ev);
    /* with y the ids are the rows of y: kept as they are, unseen node 1 included */
    rc = read_text("{\"edge_mapping\": {\"edge_index\": {\"0\": [[0, 2]]}}, \"time_periods\": 1, \"y\": [[1, 2, 3]]}", &ev,
                   &err);
    CHECK_MSG(rc == 0 && ev.num_nodes == 3 && ev.node_ids == NULL && ev.dst[0] == 2, "%s", err.msg);
    dgnn_events_free(&ev);
}

static void test_chickenpox_layout(void) {
    dgnn_events ev;
    dgnn_err err;
    int rc = read_text("{\"edges\": [[0, 1], [1, 0]], \"node_ids\": {\"A\": 0, \"B\": 1}, "
                       "\"FX\": [[1, 2], [3, 4], [5, 6]]}",
                       &ev, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc) return;
    CHECK(ev.num_events == 6 && ev.num_nodes == 2 && ev.num_periods == 3);
    for (int i = 0; i < 6; i++)
        CHECK(ev.t[i] == (double)(i / 2) && ev.src[i] == (i % 2 == 0 ? 0 : 1) && ev.efeat[i] == 1.0f);
    CHECK(ev.period_y_dim == 1 && ev.period_y[0] == 1.0f && ev.period_y[3] == 4.0f && ev.period_y[5] == 6.0f);
    dgnn_events_free(&ev);
}

static void test_bad_files(void) {
    /* syntax errors: line and column */
    expect_fail("syntax", "{\n  \"time_periods\": 1,\n  \"0\": {\"edges\": [[0, 1],, ]}\n}\n", DGNN_EFORMAT, ":3:");
    expect_fail("syntax kind", "{\n  \"time_periods\": 1,\n  \"0\": {\"edges\": [[0, 1],, ]}\n}\n", DGNN_EFORMAT,
                "JSON syntax error");
    expect_fail("truncated", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]", DGNN_EFORMAT, "end of file");
    expect_fail("trailing garbage", "{\"time_periods\": 0}\nxyz\n", DGNN_EFORMAT, ":2:1:");
    expect_fail("NaN", "{\"time_periods\": 1,\n \"0\": {\"edges\": [[0, 1]], \"weights\": [NaN]}}", DGNN_EFORMAT,
                "NaN");
    expect_fail("NaN line", "{\"time_periods\": 1,\n \"0\": {\"edges\": [[0, 1]], \"weights\": [NaN]}}",
                DGNN_EFORMAT, ":2:");
    expect_fail("inf", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]], \"weights\": [1e999]}}", DGNN_EFORMAT,
                "\"0\".weights[0]: number inf is not finite");
    expect_fail("empty", "", DGNN_EFORMAT, "empty file");
    expect_fail("blank", "  \n\t\n", DGNN_EFORMAT, "empty file");
    expect_fail("not an object", "[1, 2]", DGNN_EFORMAT, "expected an object");
    expect_fail("unsupported", "{\"foo\": 1}", DGNN_EUNSUPPORTED, "england_covid layout");

    /* missing keys */
    expect_fail("no time_periods", "{\"0\": {\"edges\": []}}", DGNN_EFORMAT, "time_periods: missing key");
    expect_fail("no edges", "{\"time_periods\": 1, \"0\": {\"weights\": []}}", DGNN_EFORMAT,
                "\"0\".edges: missing key");
    expect_fail("no edge_index", "{\"edge_mapping\": {\"edge_weight\": {}}, \"time_periods\": 0}", DGNN_EFORMAT,
                "edge_mapping.edge_index: missing key");
    expect_fail("chickenpox no edges", "{\"FX\": [[1]]}", DGNN_EFORMAT, "edges: missing key");

    /* wrong types */
    expect_fail("edges string", "{\"time_periods\": 1, \"0\": {\"edges\": \"x\"}}", DGNN_EFORMAT,
                "\"0\".edges: expected an array of [src, dst] pairs, got a string");
    expect_fail("id string",
                "{\"edge_mapping\": {\"edge_index\": {\"0\": [], \"1\": [[0, \"x\"]]}}, \"time_periods\": 2}",
                DGNN_EFORMAT, "edge_mapping.edge_index.\"1\"[0][1]: expected a non-negative integer, got a string");
    expect_fail("period not object", "{\"time_periods\": 1, \"0\": [1]}", DGNN_EFORMAT, "\"0\": expected an object");
    expect_fail("time_periods string", "{\"time_periods\": \"3\", \"0\": {\"edges\": []}}", DGNN_EFORMAT,
                "time_periods: expected a non-negative integer");
    expect_fail("weight string", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]], \"weights\": [\"2\"]}}",
                DGNN_EFORMAT, "\"0\".weights[0]: expected a number, got a string");
    expect_fail("weight null", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]], \"weights\": [null]}}",
                DGNN_EFORMAT, "\"0\".weights[0]: expected a number, got null");
    expect_fail("X string", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]], \"X\": [[1], [\"a\"]]}}",
                DGNN_EFORMAT, "\"0\".X[1][0]: expected a number, got a string");
    expect_fail("pair of 3", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1, 2]]}}", DGNN_EFORMAT,
                "\"0\".edges[0]: expected a [src, dst] pair");

    /* bad ids */
    expect_fail("negative id", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1], [-1, 0]]}}", DGNN_EFORMAT,
                "\"0\".edges[1][0]: expected a non-negative integer, got -1");
    expect_fail("fractional id", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1.5]]}}", DGNN_EFORMAT,
                "\"0\".edges[0][1]: expected a non-negative integer, got 1.5");
    expect_fail("huge id", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 3000000000]]}}", DGNN_EFORMAT,
                "too large");
    expect_fail("id beyond X", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 2]], \"X\": [[1], [2]]}}",
                DGNN_EFORMAT, "node id 2 out of range");

    /* lengths */
    expect_fail("weights length", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1], [1, 0], [0, 0]], \"weights\": [1, 2]}}",
                DGNN_EFORMAT, "\"0\".weights: 2 weights for 3 edges");
    expect_fail("england weights length",
                "{\"edge_mapping\": {\"edge_index\": {\"0\": [[0, 1]]}, \"edge_weight\": {\"0\": [1, 2]}}, \"time_periods\": 1}",
                DGNN_EFORMAT, "edge_mapping.edge_weight.\"0\": 2 weights for 1 edges");
    expect_fail("y row length",
                "{\"edge_mapping\": {\"edge_index\": {\"0\": [[0, 1]], \"1\": []}}, \"time_periods\": 2, "
                "\"y\": [[1, 2, 3], [4, 5]]}",
                DGNN_EFORMAT, "y[1]: 2 rows, but y[0] has 3");
    expect_fail("y rows count",
                "{\"edge_mapping\": {\"edge_index\": {\"0\": [[0, 1]]}}, \"time_periods\": 1, \"y\": [[1, 2], [3, 4]]}",
                DGNN_EFORMAT, "y: 2 rows for time_periods = 1");
    expect_fail("X row width",
                "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]], \"X\": [[1, 2], [3, 4, 5]]}}", DGNN_EFORMAT,
                "\"0\".X[1]: expected 2 numbers, got 3");
    expect_fail("X in one period only",
                "{\"time_periods\": 2, \"0\": {\"edges\": [], \"X\": [[1]]}, \"1\": {\"edges\": []}}", DGNN_EFORMAT,
                "\"1\".X: X is in some periods and not in others");
    expect_fail("index mismatch", "{\"time_periods\": 1, \"0\": {\"index\": 5, \"edges\": []}}", DGNN_EFORMAT,
                "\"0\".index: expected 0");

    /* time_periods against the keys */
    expect_fail("extra period", "{\"time_periods\": 1, \"0\": {\"edges\": []}, \"1\": {\"edges\": []}}", DGNN_EFORMAT,
                "time_periods: 1, but the file has a snapshot key \"1\"");
    expect_fail("missing period", "{\"time_periods\": 3, \"0\": {\"edges\": []}, \"1\": {\"edges\": []}}",
                DGNN_EFORMAT, "snapshot key \"2\" is missing");
    expect_fail("england missing period",
                "{\"edge_mapping\": {\"edge_index\": {\"0\": [], \"2\": []}}, \"time_periods\": 3}", DGNN_EFORMAT,
                "edge_mapping.edge_index: period \"1\" is missing");
    expect_fail("england extra period", "{\"edge_mapping\": {\"edge_index\": {\"0\": [], \"1\": []}}, \"time_periods\": 1}",
                DGNN_EFORMAT, "edge_mapping.edge_index: key \"1\" is not a period");
    expect_fail("england weight keys",
                "{\"edge_mapping\": {\"edge_index\": {\"0\": [], \"1\": []}, \"edge_weight\": {\"0\": []}}, \"time_periods\": 2}",
                DGNN_EFORMAT, "edge_mapping.edge_weight: period \"1\" is missing");
    expect_fail("chickenpox time_periods", "{\"edges\": [], \"FX\": [[1]], \"time_periods\": 2}", DGNN_EFORMAT,
                "time_periods: 2, but FX has 1 rows");

    /* issue 12: no periods at all; a json file in UTF-16 */
    expect_fail("no periods", "{\"time_periods\": 0}", DGNN_EFORMAT, "0 time periods");
    expect_fail("england no periods", "{\"edge_mapping\": {\"edge_index\": {}}, \"time_periods\": 0}", DGNN_EFORMAT,
                "0 time periods");
    expect_fail("chickenpox no periods", "{\"edges\": [[0, 1]], \"FX\": []}", DGNN_EFORMAT, "0 time periods");
    {
        const char *u16 = "\xFF\xFE{\0\"\0" "0\0\"\0:\0 \0{\0}\0}\0";
        check_write_file(tmp_path, u16, 20);
        dgnn_events ev;
        dgnn_err err;
        int rc = dgnn_read_pgt(&ev, tmp_path, &err);
        CHECK_MSG(rc == DGNN_EFORMAT && strstr(err.msg, "UTF-16 text") && strstr(err.msg, "iconv"), "%d %s", rc, err.msg);
    }

    /* repeated keys: cJSON takes the first, Python's json the last; refused */
    expect_fail("dup edges", "{\"time_periods\": 1, \"0\": {\"edges\": [[0, 1]], \"edges\": [[1, 2]]}}", DGNN_EFORMAT,
                "\"0\": key \"edges\" appears twice");
    expect_fail("dup period", "{\"time_periods\": 1, \"0\": {\"edges\": []}, \"0\": {\"edges\": [[0, 1]]}}",
                DGNN_EFORMAT, "(top level): key \"0\" appears twice");
    expect_fail("dup england", "{\"edge_mapping\": {\"edge_index\": {\"0\": [], \"0\": [[1, 1]]}}, \"time_periods\": 1}",
                DGNN_EFORMAT, "edge_mapping.edge_index: key \"0\" appears twice");

    /* files that cannot be read */
    dgnn_events ev;
    dgnn_err err;
    int rc = dgnn_read_pgt(&ev, "/nonexistent/dir/x.json", &err);
    CHECK_MSG(rc == DGNN_EIO && strstr(err.msg, "/nonexistent/dir/x.json"), "%d %s", rc, err.msg);
    rc = dgnn_read_pgt(&ev, "/tmp", &err);
    CHECK_MSG(rc == DGNN_EIO, "directory: %d %s", rc, err.msg);
}

/* Events per period of a table, min and max. */
static void period_range(const dgnn_events *ev, int64_t *mn, int64_t *mx) {
    *mn = INT64_MAX, *mx = 0;
    int64_t i = 0;
    for (int64_t p = 0; p < ev->num_periods; p++) {
        int64_t n = 0;
        while (i < ev->num_events && ev->t[i] == (double)p) i++, n++;
        if (n < *mn) *mn = n;
        if (n > *mx) *mx = n;
    }
    CHECK(i == ev->num_events); /* every event in a period, in period order */
}

static void test_shared_files(void) {
    char buf[512];
    dgnn_events ev;
    dgnn_err err;
    int64_t mn, mx;
    if (check_data(buf, sizeof buf, "pgt/twitter_tennis_rg17.json")) {
        int rc = dgnn_read_pgt(&ev, buf, &err);
        CHECK_MSG(rc == 0, "%s", err.msg);
        if (rc == 0) {
            CHECK(ev.num_periods == 120);
            CHECK(ev.num_nodes == 1000);
            CHECK(ev.num_events == 40839);
            CHECK(ev.period_x_dim == 2 && ev.period_y_dim == 1);
            period_range(&ev, &mn, &mx);
            CHECK_MSG(mn == 41 && mx == 936, "%lld..%lld", (long long)mn, (long long)mx);
            /* first edge of "0": [42, 0] weight 2; X[0] = [29, 0.0221...]; y[0] = 181 */
            CHECK(ev.src[0] == 42 && ev.dst[0] == 0 && ev.efeat[0] == 2.0f);
            CHECK(ev.period_x[0] == 29.0f);
            CHECK_NEAR(ev.period_x[1], 0.022167487684729065, 1e-8);
            CHECK(ev.period_y[0] == 181.0f);
        }
        dgnn_events_free(&ev);
    }
    if (check_data(buf, sizeof buf, "pgt/england_covid.json")) {
        int rc = dgnn_read_pgt(&ev, buf, &err);
        CHECK_MSG(rc == 0, "%s", err.msg);
        if (rc == 0) {
            CHECK(ev.num_periods == 61);
            CHECK(ev.num_nodes == 129);
            CHECK(ev.num_events == 82529);
            CHECK(ev.period_x == NULL && ev.period_y_dim == 1);
            period_range(&ev, &mn, &mx);
            CHECK_MSG(mn == 836 && mx == 2158, "%lld..%lld", (long long)mn, (long long)mx);
            int64_t loops = 0;
            for (int64_t i = 0; i < ev.num_events; i++) loops += ev.src[i] == ev.dst[i];
            CHECK_MSG(loops == 7869, "%lld self loops", (long long)loops);
            /* period 0 starts [23, 23] weight 180647; y[0][0..2] = 4, 1, 0 */
            CHECK(ev.src[0] == 23 && ev.dst[0] == 23 && ev.efeat[0] == 180647.0f);
            CHECK(ev.period_y[0] == 4.0f && ev.period_y[1] == 1.0f && ev.period_y[2] == 0.0f);
        }
        dgnn_events_free(&ev);
    }
    if (check_data(buf, sizeof buf, "pgt/chickenpox.json")) {
        int rc = dgnn_read_pgt(&ev, buf, &err);
        CHECK_MSG(rc == 0, "%s", err.msg);
        if (rc == 0) {
            CHECK(ev.num_periods == 521 && ev.num_nodes == 20 && ev.num_events == 521 * 102);
            CHECK(ev.period_y_dim == 1 && ev.period_y != NULL);
        }
        dgnn_events_free(&ev);
    }
}

int main(void) {
    snprintf(tmp_path, sizeof tmp_path, "/tmp/dgnn_test_pgt_%d.json", (int)getpid());
    test_twitter_layout();
    test_england_layout();
    test_chickenpox_layout();
    test_sparse_ids();
    test_bad_files();
    test_shared_files();
    remove(tmp_path);
    return check_done();
}
