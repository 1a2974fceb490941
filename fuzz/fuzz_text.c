/* fuzz_text.c: libFuzzer harness for the text readers (JODIE csv, TGL edges.csv, SNAP /
 * KONECT edge lists). Build and run with bench/fuzz.sh (see fuzz/README.md).
 *
 * The readers take paths, so each input is written to a file in a private temporary
 * folder (in /dev/shm when it exists: no disk traffic). The folder holds nothing else,
 * so the TGL reader finds no feature files beside the csv. Every reader runs on every
 * input; a failure must come with a status and a message, and a success must give a
 * table whose invariants hold (ids in [0, N), finite non-decreasing timestamps below
 * DBL_MAX / 2, finite features, labels 0/1, ext_roll 0..2, increasing node_ids, the
 * bipartite flag true of the events): a violation aborts, so libFuzzer records it like a crash. Memory errors
 * and leaks are caught by AddressSanitizer / LeakSanitizer. */
#include "dgnn/readers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

static void die(const char *reader, const char *what) {
    fprintf(stderr, "fuzz_text: %s returned a broken table: %s\n", reader, what);
    abort();
}

/* The invariants every successful read must hold. */
static void check_table(const char *reader, const dgnn_events *ev) {
    if (ev->num_events <= 0 || ev->num_nodes <= 0) die(reader, "empty table returned as success");
    if (!ev->src || !ev->dst || !ev->t) die(reader, "missing arrays");
    for (int64_t i = 0; i < ev->num_events; i++) {
        if (ev->src[i] < 0 || ev->src[i] >= ev->num_nodes || ev->dst[i] < 0 || ev->dst[i] >= ev->num_nodes)
            die(reader, "node id out of range");
        if (!isfinite(ev->t[i])) die(reader, "non-finite timestamp");
        if (i && ev->t[i] < ev->t[i - 1]) die(reader, "timestamps not sorted");
    }
    if ((ev->edge_dim > 0) != (ev->efeat != NULL)) die(reader, "edge_dim and efeat disagree");
    for (int64_t i = 0; i < ev->num_events * ev->edge_dim; i++)
        if (!isfinite(ev->efeat[i])) die(reader, "non-finite edge feature");
    if (ev->node_ids)
        for (int64_t v = 1; v < ev->num_nodes; v++)
            if (ev->node_ids[v] <= ev->node_ids[v - 1]) die(reader, "node_ids not increasing");
    if (ev->ext_roll)
        for (int64_t i = 0; i < ev->num_events; i++)
            if (ev->ext_roll[i] < 0 || ev->ext_roll[i] > 2) die(reader, "ext_roll outside 0..2");
    if (ev->label)
        for (int64_t i = 0; i < ev->num_events; i++)
            if (ev->label[i] != 0 && ev->label[i] != 1) die(reader, "label other than 0 or 1");
    for (int64_t i = 0; i < ev->num_events; i++)
        if (fabs(ev->t[i]) > 8.98846567431158e307) die(reader, "timestamp above DBL_MAX / 2");
    if (ev->bipartite != dgnn_events_detect_bipartite(ev)) die(reader, "bipartite flag differs from the events");
}

static void check_result(const char *reader, int rc, dgnn_events *ev, const dgnn_err *err) {
    if (rc == DGNN_OK) check_table(reader, ev);
    else {
        if (rc > 0 || err->code != rc || err->msg[0] == '\0') die(reader, "failure without a status and message");
        if (ev->num_events != 0 || ev->src != NULL) die(reader, "table not left empty after a failure");
    }
    dgnn_events_free(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_setup("text", "input.csv");
    write_file(g_path, data, size);

    dgnn_events ev;
    dgnn_err err;
    memset(&err, 0, sizeof err);
    check_result("dgnn_read_jodie", dgnn_read_jodie(&ev, g_path, &err), &ev, &err);
    memset(&err, 0, sizeof err);
    check_result("dgnn_read_tgl", dgnn_read_tgl(&ev, g_path, NULL, NULL, &err), &ev, &err);
    /* edge lists: by column count, and two --columns layouts that use every role */
    static const char *layouts[] = {NULL, "src,dst,weight,ts", "skip,ts,src,dst,feat,label,feat"};
    for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        memset(&err, 0, sizeof err);
        check_result("dgnn_read_edgelist", dgnn_read_edgelist(&ev, g_path, layouts[k], &err), &ev, &err);
    }
    return 0;
}
