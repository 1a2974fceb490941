/* cmd_info.c: `dgnn info DATA`: what a dataset holds, in numbers and a small text
 * histogram of events over time; --json for scripts and tests. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dgnn/snapshot.h"

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int64_t min, median, p99, max, sources, destinations, positive_labels;
    double mean;
} info_stats;

/* Degree = events a node takes part in (as source or destination). */
static void compute_stats(const dgnn_events *ev, info_stats *s) {
    memset(s, 0, sizeof *s);
    int64_t N = ev->num_nodes;
    int64_t *deg = dgnn_xcalloc((size_t)(N ? N : 1), sizeof(int64_t));
    uint8_t *role = dgnn_xcalloc((size_t)(N ? N : 1), 1);
    for (int64_t i = 0; i < ev->num_events; i++) {
        deg[ev->src[i]]++;
        deg[ev->dst[i]]++;
        role[ev->src[i]] |= 1;
        role[ev->dst[i]] |= 2;
        if (ev->label && ev->label[i] != 0) s->positive_labels++;
    }
    for (int64_t v = 0; v < N; v++) {
        s->sources += (role[v] & 1) != 0;
        s->destinations += (role[v] & 2) != 0;
    }
    if (N > 0) {
        qsort(deg, (size_t)N, sizeof(int64_t), cmp_i64);
        s->min = deg[0];
        s->max = deg[N - 1];
        s->median = deg[N / 2];
        s->p99 = deg[(int64_t)floor(0.99 * (double)(N - 1))];
        s->mean = 2.0 * (double)ev->num_events / (double)N;
    }
    free(deg);
    free(role);
}

static void histogram(const dgnn_events *ev, int bins, int64_t *counts) {
    memset(counts, 0, (size_t)bins * sizeof(int64_t));
    if (ev->num_events == 0) return;
    double t0 = ev->t[0], span = ev->t[ev->num_events - 1] - t0;
    for (int64_t i = 0; i < ev->num_events; i++) {
        int b = span > 0 ? (int)((ev->t[i] - t0) / span * bins) : 0;
        counts[b < bins ? b : bins - 1]++;
    }
}

static void human_span(char *buf, size_t cap, double s) {
    if (s >= 86400 * 2) snprintf(buf, cap, "%.1f days", s / 86400);
    else if (s >= 7200) snprintf(buf, cap, "%.1f hours", s / 3600);
    else snprintf(buf, cap, "%g s", s);
}

int cmd_info(int argc, char **argv) {
    cli_load_flags lf = {0};
    int json = 0;
    int64_t bins = 20, snap_count = 0;
    double snap_seconds = 0; /* 0: not given (a typed value must be > 0) */
    /* S's range depends on the data: the cut makes at most DGNN_MAX_PERIODS snapshots */
    char h_secs[200];
    snprintf(h_secs, sizeof h_secs, "also cut snapshots of S time units; print their sizes (at most %lld snapshots: "
             "S > the data's time span / %lld)", (long long)DGNN_MAX_PERIODS, (long long)DGNN_MAX_PERIODS);
    arg_opt opts[] = {
        CLI_LOAD_OPTS(lf),
        {"json", ARG_FLAG, &json, NULL, "print the figures as one JSON object"},
        {"bins", ARG_INT, &bins, "N", "histogram bins (default 20)", ARG_IN(1, 1000)},
        {"snapshot-seconds", ARG_DOUBLE, &snap_seconds, "S", h_secs, ARG_ABOVE(0)},
        {"snapshots", ARG_INT, &snap_count, "C", "also cut C snapshots of equal time spans; print their sizes",
         ARG_IN(1, 1 << 20)},
        {NULL, 0, NULL, NULL, NULL},
    };
    arg_spec spec = {.cmd = "info", .usage = "dgnn info [options] DATA",
                     .summary = "Prints nodes, events, time span, bipartite or not, feature dims, a degree summary\n"
                                "and a text histogram of events over time. DATA is any readable format.",
                     .opts = opts, .min_pos = 1, .max_pos = 1};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    if (snap_count > 0 && snap_seconds > 0) {
        fprintf(stderr, "dgnn info: give --snapshots or --snapshot-seconds, not both\n");
        return 2;
    }
    const char *path = spec.pos[0];
    dgnn_events ev;
    if ((rc = cli_load("info", path, &lf, &ev)) != 0) return rc;
    info_stats st;
    compute_stats(&ev, &st);
    int64_t roll[3] = {0, 0, 0}; /* events per ext_roll value (TGL's split column), when present */
    if (ev.ext_roll)
        for (int64_t e = 0; e < ev.num_events; e++)
            if (ev.ext_roll[e] >= 0 && ev.ext_roll[e] <= 2) roll[ev.ext_roll[e]]++;
    int64_t *hist = dgnn_xcalloc((size_t)bins, sizeof(int64_t));
    histogram(&ev, (int)bins, hist);
    double t0 = ev.num_events ? ev.t[0] : 0, t1 = ev.num_events ? ev.t[ev.num_events - 1] : 0;
    /* the format that was read: the one forced with --format, else the detected one */
    const char *fmt = lf.format && strcmp(lf.format, "auto") != 0 ? lf.format : dgnn_format_name(dgnn_detect_format(path));
    dgnn_snap_stats ss;
    int have_snaps = 0;
    if (snap_seconds > 0 || snap_count > 0 || ev.num_periods > 0) {
        dgnn_snapshots sn; /* as the snapshot trainer cuts them */
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_snapshots_cut(&sn, &ev, snap_seconds, snap_count, 0, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn info: %s\n", err.msg);
            free(hist);
            dgnn_events_free(&ev);
            return 1;
        }
        dgnn_snapshot_stats(&sn, &ss);
        dgnn_snapshots_free(&sn);
        have_snaps = 1;
    }

    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", path);
        cJSON_AddStringToObject(o, "format", fmt);
        cJSON_AddNumberToObject(o, "events", (double)ev.num_events);
        cJSON_AddNumberToObject(o, "nodes", (double)ev.num_nodes);
        cJSON_AddNumberToObject(o, "sources", (double)st.sources);
        cJSON_AddNumberToObject(o, "destinations", (double)st.destinations);
        cJSON_AddBoolToObject(o, "bipartite", ev.bipartite);
        cJSON_AddNumberToObject(o, "t_min", t0);
        cJSON_AddNumberToObject(o, "t_max", t1);
        cJSON_AddNumberToObject(o, "edge_dim", (double)ev.edge_dim);
        cJSON_AddNumberToObject(o, "node_dim", (double)ev.node_dim);
        cJSON_AddNumberToObject(o, "periods", (double)ev.num_periods);
        /* a snapshot file's (PGT json) node features and targets per node per snapshot */
        cJSON_AddNumberToObject(o, "period_node_dim", (double)ev.period_x_dim);
        cJSON_AddNumberToObject(o, "period_target_dim", (double)ev.period_y_dim);
        if (ev.label) cJSON_AddNumberToObject(o, "positive_labels", (double)st.positive_labels);
        if (ev.ext_roll) {
            cJSON *r = cJSON_AddObjectToObject(o, "ext_roll");
            cJSON_AddNumberToObject(r, "train", (double)roll[0]);
            cJSON_AddNumberToObject(r, "val", (double)roll[1]);
            cJSON_AddNumberToObject(r, "test", (double)roll[2]);
        }
        cJSON *d = cJSON_AddObjectToObject(o, "degree");
        cJSON_AddNumberToObject(d, "min", (double)st.min);
        cJSON_AddNumberToObject(d, "median", (double)st.median);
        cJSON_AddNumberToObject(d, "mean", st.mean);
        cJSON_AddNumberToObject(d, "p99", (double)st.p99);
        cJSON_AddNumberToObject(d, "max", (double)st.max);
        if (have_snaps) {
            cJSON *sj = cJSON_AddObjectToObject(o, "snapshots");
            cJSON_AddNumberToObject(sj, "count", (double)ss.count);
            cJSON_AddNumberToObject(sj, "empty", (double)ss.empty);
            cJSON_AddNumberToObject(sj, "min_events", (double)ss.min_events);
            cJSON_AddNumberToObject(sj, "max_events", (double)ss.max_events);
            cJSON_AddNumberToObject(sj, "mean_events", ss.mean_events);
            cJSON_AddNumberToObject(sj, "min_edges", (double)ss.min_edges);
            cJSON_AddNumberToObject(sj, "max_edges", (double)ss.max_edges);
        }
        cJSON *h = cJSON_AddArrayToObject(o, "histogram");
        for (int64_t b = 0; b < bins; b++) cJSON_AddItemToArray(h, cJSON_CreateNumber((double)hist[b]));
        char *s = cJSON_Print(o);
        puts(s);
        free(s);
        cJSON_Delete(o);
    } else {
        char a[32], b[32], c[32], span[32];
        const char *base = strrchr(path, '/');
        printf("%s: %s events / %s nodes\n", base ? base + 1 : path, dgnn_fmt_count(a, sizeof a, ev.num_events),
               dgnn_fmt_count(b, sizeof b, ev.num_nodes));
        printf("  format        %s\n", fmt);
        printf("  events        %s\n", dgnn_fmt_count(a, sizeof a, ev.num_events));
        printf("  nodes         %s (%s appear as source, %s as destination)\n", dgnn_fmt_count(a, sizeof a, ev.num_nodes),
               dgnn_fmt_count(b, sizeof b, st.sources), dgnn_fmt_count(c, sizeof c, st.destinations));
        printf("  bipartite     %s\n", ev.bipartite ? "yes" : "no");
        if (ev.num_periods) snprintf(span, sizeof span, "period indices");
        else human_span(span, sizeof span, t1 - t0);
        printf("  time span     %.15g .. %.15g (%s)\n", t0, t1, span);
        if (ev.num_periods) printf("  snapshots     %lld periods (t = period index)\n", (long long)ev.num_periods);
        printf("  edge features %lld dims\n", (long long)ev.edge_dim);
        printf("  node features %lld dims%s\n", (long long)(ev.node_dim ? ev.node_dim : ev.period_x_dim),
               ev.period_x_dim ? " per snapshot" : "");
        if (ev.period_y_dim) printf("  node targets  %lld per node per snapshot\n", (long long)ev.period_y_dim);
        if (ev.label) printf("  labels        %s positive\n", dgnn_fmt_count(a, sizeof a, st.positive_labels));
        if (ev.ext_roll)
            printf("  ext_roll      %s train, %s val, %s test events (TGL's split; dgnn train's default)\n",
                   dgnn_fmt_count(a, sizeof a, roll[0]), dgnn_fmt_count(b, sizeof b, roll[1]),
                   dgnn_fmt_count(c, sizeof c, roll[2]));
        printf("  degree        min %lld, median %lld, mean %.1f, p99 %lld, max %lld (events per node)\n",
               (long long)st.min, (long long)st.median, st.mean, (long long)st.p99, (long long)st.max);
        if (have_snaps)
            printf("  snapshots     %lld (%lld empty): %lld..%lld events each (mean %.1f), %lld..%lld nonzeros of A+A^T\n",
                   (long long)ss.count, (long long)ss.empty, (long long)ss.min_events, (long long)ss.max_events,
                   ss.mean_events, (long long)ss.min_edges, (long long)ss.max_edges);
        printf("  events over time (%lld bins):\n", (long long)bins);
        int64_t hmax = 1;
        for (int64_t i = 0; i < bins; i++) if (hist[i] > hmax) hmax = hist[i];
        double w = (t1 - t0) / (double)bins;
        for (int64_t i = 0; i < bins; i++) {
            char bar[41];
            int n = (int)((double)hist[i] * 40.0 / (double)hmax + 0.5);
            if (n == 0 && hist[i] > 0) n = 1;
            memset(bar, '#', (size_t)n);
            bar[n] = '\0';
            double tb = t0 + w * (double)i;
            if (t1 - t0 >= 1000 && fabs(tb) < 1e15) printf("    %14.0f %-40s %s\n", tb, bar, dgnn_fmt_count(a, sizeof a, hist[i]));
            else printf("    %14.6g %-40s %s\n", tb, bar, dgnn_fmt_count(a, sizeof a, hist[i]));
        }
    }
    free(hist);
    dgnn_events_free(&ev);
    return 0;
}
