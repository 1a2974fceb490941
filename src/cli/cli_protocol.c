/* cli_protocol.c: the evaluation protocols of `dgnn train` and `dgnn eval` on the command
 * line (cli.h): --protocol's list, the TGB lists' default paths, the figures as JSON and
 * as the printed summary, and --emb-at's (node, time) file. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dgnn/event_train.h"

int cli_protocol_parse(const char *cmd, const char *list, dgnn_eval_protocol *p) {
    if (!list) return 0;
    /* every entry named: "", "tgn,", "tgn,,dyglib" are refused (strtok would skip the
     * empty ones), as is a list longer than any of the three names could make */
    const size_t n = strlen(list);
    if (n == 0 || n >= 256 || list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,")) {
        fprintf(stderr, "dgnn %s: --protocol: '%.64s%s' (a comma-separated list of tgn, dyglib, tgb; %s)\n", cmd, list,
                n > 64 ? "..." : "", n >= 256 ? "a list of 255 characters at most" : "no empty entry");
        return 2;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "tgn") == 0) continue; /* always */
        else if (strcmp(tok, "dyglib") == 0) p->dyglib = 1;
        else if (strcmp(tok, "tgb") == 0) p->tgb = 1;
        else {
            fprintf(stderr, "dgnn %s: --protocol: '%s' (a comma-separated list of tgn, dyglib, tgb)\n", cmd, tok);
            return 2;
        }
    }
    return 0;
}

/* PREFIX: --tgb-negatives, else the data file without its extension (and without TGB's
 * "_edgelist_v2" / "_edgelist", or tgb_export.py's "_edges"), so tgbl-wiki_edgelist_v2.csv
 * and tgbl-wiki_edges.csv pair with tgbl-wiki_val_ns.npy, the names tgb_export.py writes. */
int cli_tgb_paths(const char *cmd, const char *prefix, const char *data, char *val, char *test, size_t cap) {
    char base[4096];
    if (prefix) snprintf(base, sizeof base, "%s", prefix);
    else if (data) {
        snprintf(base, sizeof base, "%s", data);
        size_t n = strlen(base);
        while (n > 1 && base[n - 1] == '/') base[--n] = 0; /* a TGL folder */
        char *slash = strrchr(base, '/'), *dot = strrchr(base, '.');
        if (dot && (!slash || dot > slash)) *dot = 0;
        static const char *const tails[] = {"_edgelist_v2", "_edgelist", "_edges"}; /* TGB's; tgb_export.py's */
        for (size_t i = 0; i < 3; i++) {
            n = strlen(base);
            const size_t m = strlen(tails[i]);
            if (n > m && strcmp(base + n - m, tails[i]) == 0) {
                base[n - m] = 0;
                break;
            }
        }
    } else {
        fprintf(stderr, "dgnn %s: --protocol tgb on events not read from a file (the built-in stream, or arrays) needs "
                        "--tgb-negatives PREFIX (where the generated lists PREFIX_val_ns.npy and PREFIX_test_ns.npy "
                        "go)\n", cmd);
        return 2;
    }
    if ((size_t)snprintf(val, cap, "%s_val_ns.npy", base) >= cap || (size_t)snprintf(test, cap, "%s_test_ns.npy", base) >= cap) {
        fprintf(stderr, "dgnn %s: --tgb-negatives: path too long\n", cmd);
        return 2;
    }
    return 0;
}

void cli_protocols_json(cJSON *o, const dgnn_event_train_cfg *c, const dgnn_event_train_result *r) {
    cJSON *pr = cJSON_AddObjectToObject(o, "protocols");
    cJSON_AddStringToObject(pr, "tgn", "test ap/auc: each positive against one random destination (DyGLib's random "
                                       "strategy); mrr_random: against eval_negatives random destinations");
    if (c->protocol.dyglib) {
        cJSON *d = cJSON_AddObjectToObject(pr, "dyglib");
        for (int s = 0; s < DGNN_NEGS_N; s++) {
            cJSON *x = cJSON_AddObjectToObject(d, dgnn_neg_strategy_name((dgnn_neg_strategy)s));
            static const char *const setting[2] = {"transductive", "inductive"};
            for (int k = 0; k < 2; k++) {
                cJSON *y = cJSON_AddObjectToObject(x, setting[k]);
                cJSON_AddItemToObject(y, "ap", cli_json_number(r->test_neg_ap[s][k]));
                cJSON_AddItemToObject(y, "auc", cli_json_number(r->test_neg_auc[s][k]));
            }
        }
    }
    if (c->protocol.tgb) {
        cJSON *t = cJSON_AddObjectToObject(pr, "tgb");
        cJSON_AddStringToObject(t, "val_negatives", c->protocol.tgb_val ? c->protocol.tgb_val : "");
        cJSON_AddStringToObject(t, "test_negatives", c->protocol.tgb_test ? c->protocol.tgb_test : "");
        cJSON_AddNumberToObject(t, "val_candidates", (double)r->tgb_val_k);
        cJSON_AddNumberToObject(t, "test_candidates", (double)r->tgb_test_k);
        cJSON_AddItemToObject(t, "val_mrr", cli_json_number(r->val_mrr_tgb));
        cJSON_AddItemToObject(t, "test_mrr", cli_json_number(r->test_mrr_tgb));
        cJSON_AddItemToObject(t, "test_hits@1", cli_json_number(r->test_hits1_tgb));
        cJSON_AddItemToObject(t, "test_hits@3", cli_json_number(r->test_hits3_tgb));
        cJSON_AddItemToObject(t, "test_hits@10", cli_json_number(r->test_hits10_tgb));
    }
}

void cli_protocols_print(const dgnn_event_train_cfg *c, const dgnn_event_train_result *r) {
    char a[5][16];
    if (c->protocol.dyglib) {
        printf("test under DyGLib's negative strategies:\n  %-11s %8s %8s %12s %12s\n", "negatives", "AP", "AUC",
               "new-node AP", "new-node AUC");
        for (int s = 0; s < DGNN_NEGS_N; s++)
            printf("  %-11s %8s %8s %12s %12s\n", dgnn_neg_strategy_name((dgnn_neg_strategy)s),
                   dgnn_fmt_metric(a[0], 16, r->test_neg_ap[s][0]), dgnn_fmt_metric(a[1], 16, r->test_neg_auc[s][0]),
                   dgnn_fmt_metric(a[2], 16, r->test_neg_ap[s][1]), dgnn_fmt_metric(a[3], 16, r->test_neg_auc[s][1]));
    }
    if (c->protocol.tgb)
        printf("TGB one-vs-many (%lld candidates per test positive): test MRR %s  Hits@1 %s  Hits@3 %s  Hits@10 %s; "
               "val MRR %s\n",
               (long long)r->tgb_test_k, dgnn_fmt_metric(a[0], 16, r->test_mrr_tgb),
               dgnn_fmt_metric(a[1], 16, r->test_hits1_tgb), dgnn_fmt_metric(a[2], 16, r->test_hits3_tgb),
               dgnn_fmt_metric(a[3], 16, r->test_hits10_tgb), dgnn_fmt_metric(a[4], 16, r->val_mrr_tgb));
}

/* Lines of nid node ids (as in the data) and a time, comma-separated ('#' lines and blank
 * lines skipped), into ids[k] (dense) and t, malloc'd, *n of them: --emb-at's 'node,time'
 * and --score-at's 'src,dst,time'. 0, or 1 / 2 with a message naming the file, the line and
 * the field. */
static int read_id_time_lines(const char *cmd, const char *flag, const char *path, const dgnn_events *ev, int nid,
                              const char *const *names, int32_t **ids, double **t, int64_t *n) {
    char layout[64] = "";
    for (int k = 0; k < nid; k++) snprintf(layout + strlen(layout), sizeof layout - strlen(layout), "%s,", names[k]);
    snprintf(layout + strlen(layout), sizeof layout - strlen(layout), "time");
    *t = NULL, *n = 0;
    for (int k = 0; k < nid; k++) ids[k] = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "dgnn %s: %s %s: %s\n", cmd, flag, path, strerror(errno));
        return 1;
    }
    char line[512];
    int64_t cap = 0, lineno = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line, *end;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\n' || *s == '\r' || *s == 0 || *s == '#') continue;
        int32_t v[4];
        const char *field = "time";
        for (int k = 0; k < nid && !rc; k++) {
            errno = 0;
            const long long id = strtoll(s, &end, 10);
            if (errno || end == s || *end != ',') {
                field = names[k], rc = 2;
                break;
            }
            s = end + 1;
            if ((v[k] = dgnn_events_dense_id(ev, id)) < 0) {
                fprintf(stderr, "dgnn %s: %s:%lld: field %s: node %lld is not a node of the data\n", cmd, path,
                        (long long)lineno, names[k], id);
                rc = 3;
            }
        }
        double tt = NAN;
        if (!rc) {
            tt = strtod(s, &end);
            if (end == s || !isfinite(tt)) rc = 2;
            while (!rc && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
            if (!rc && *end) rc = 2;
        }
        if (rc == 2)
            fprintf(stderr, "dgnn %s: %s:%lld: field %s: expected a line '%s' (node ids as in the data)\n", cmd, path,
                    (long long)lineno, field, layout);
        if (rc) break;
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            dgnn_alloc_set as = {0, 0};
            for (int k = 0; k < nid; k++) DGNN_GROW(&as, ids[k], cap);
            DGNN_GROW(&as, *t, cap);
            if (as.failed) {
                fprintf(stderr, "dgnn %s: %s %s: out of memory for %lld requests\n", cmd, flag, path, (long long)cap);
                rc = 1;
                break;
            }
        }
        for (int k = 0; k < nid; k++) ids[k][*n] = v[k];
        (*t)[*n] = tt, (*n)++;
    }
    fclose(f);
    if (!rc && *n == 0) {
        fprintf(stderr, "dgnn %s: %s %s: no '%s' line\n", cmd, flag, path, layout);
        rc = 2;
    }
    if (rc) {
        for (int k = 0; k < nid; k++) free(ids[k]), ids[k] = NULL;
        free(*t), *t = NULL, *n = 0;
    }
    return rc == 3 ? 2 : rc;
}

int cli_emb_request(const char *cmd, const char *at, const char *time_s, const dgnn_events *ev, int32_t **nodes,
                    double **t, int64_t *n) {
    *nodes = NULL, *t = NULL, *n = 0;
    if (time_s) { /* every node at one time */
        char *end;
        errno = 0;
        const double T = strtod(time_s, &end);
        if (errno || *end || !isfinite(T)) {
            fprintf(stderr, "dgnn %s: --emb-time: '%s' is not a time\n", cmd, time_s);
            return 2;
        }
        *nodes = malloc((size_t)ev->num_nodes * sizeof **nodes);
        *t = malloc((size_t)ev->num_nodes * sizeof **t);
        if (!*nodes || !*t) goto nomem;
        for (int64_t v = 0; v < ev->num_nodes; v++) (*nodes)[v] = (int32_t)v, (*t)[v] = T;
        *n = ev->num_nodes;
        return 0;
    }
    int32_t *ids[1] = {NULL};
    static const char *const names[1] = {"node"};
    const int rc = read_id_time_lines(cmd, "--emb-at", at, ev, 1, names, ids, t, n);
    *nodes = ids[0];
    return rc;
nomem:
    free(*nodes), free(*t), *nodes = NULL, *t = NULL, *n = 0;
    fprintf(stderr, "dgnn %s: out of memory for the embedding requests\n", cmd);
    return 1;
}

int cli_score_request(const char *cmd, const char *at, const dgnn_events *ev, int32_t **src, int32_t **dst, double **t,
                      int64_t *n) {
    int32_t *ids[2] = {NULL, NULL};
    static const char *const names[2] = {"src", "dst"};
    const int rc = read_id_time_lines(cmd, "--score-at", at, ev, 2, names, ids, t, n);
    *src = ids[0], *dst = ids[1];
    return rc;
}
