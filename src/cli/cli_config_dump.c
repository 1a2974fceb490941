/* cli_config_dump.c: --dump-config FILE.yml (cli_config.h): the settings a run used,
 * after the preset, the config file and the flags, as YAML in dgnn's own layout (the
 * dgnn: section, `dgnn train` flag names), written atomically (outfile.h). Every setting
 * is written out, so that the file read back with --config gives the same run whatever
 * the defaults become. Outputs (--out, --checkpoint, ...) are not settings: left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_config.h"
#include "dgnn/outfile.h"

/* x with the fewest digits that read back as the same double (0.1, not 0.1000000000000000055) */
static void put_num(FILE *s, const char *key, double x) {
    char num[40];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(num, sizeof num, "%.*g", digits, x);
        if (strtod(num, NULL) == x) break;
    }
    fprintf(s, "  %s: %s\n", key, num);
}
static void put_int(FILE *s, const char *key, int64_t x) { fprintf(s, "  %s: %lld\n", key, (long long)x); }
/* a string, double-quoted with YAML's escapes (a path may hold ':' or '#') */
static void put_str(FILE *s, const char *key, const char *v) {
    if (!v) return;
    fprintf(s, "  %s: \"", key);
    for (const char *p = v; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(s, "\\%c", *p);
        else if ((unsigned char)*p < 0x20) fprintf(s, "\\x%02x", (unsigned char)*p);
        else fputc(*p, s);
    }
    fputs("\"\n", s);
}
static void put_flag(FILE *s, const char *key, int on) { if (on) fprintf(s, "  %s: true\n", key); }

static void write_settings(FILE *s, const dgnn_event_train_cfg *c, const cli_dump_extra *x) {
    fputs("# dgnn train --dump-config: the effective settings of a run (preset, config file and flags\n"
          "# applied), as `dgnn train` flags without \"--\". `dgnn train --config THIS_FILE` runs it again.\n"
          "dgnn:\n", s);
    put_str(s, "model", x->model);
    put_str(s, "preset", x->preset);
    put_str(s, "data", x->data);
    put_str(s, "format", x->lf->format);
    put_str(s, "columns", x->lf->columns);
    put_flag(s, "bipartite", x->lf->bipartite);
    put_flag(s, "not-bipartite", x->lf->not_bipartite);
    put_str(s, "edge-feat", x->lf->edge_feat);
    put_str(s, "node-feat", x->lf->node_feat);
    put_int(s, "epochs", c->epochs);
    put_int(s, "batch", c->batch);
    put_num(s, "lr", c->lr);
    put_int(s, "patience", c->patience);
    put_int(s, "seed", (int64_t)c->seed);
    if (c->threads > 0) put_int(s, "threads", c->threads);
    if (c->use_cuda) {
        char dev[32];
        snprintf(dev, sizeof dev, "cuda:%d", c->cuda_device);
        put_str(s, "device", dev);
    }
    put_int(s, "eval-negatives", c->eval_negatives);
    put_str(s, "negatives", c->neg == DGNN_NEG_DST ? "dst" : "all");
    put_int(s, "mem-dim", c->model.mem_dim);
    put_int(s, "time-dim", c->model.time_dim);
    put_int(s, "emb-dim", c->model.emb_dim);
    put_int(s, "neighbors", c->model.neighbors);
    put_int(s, "heads", c->model.heads);
    put_int(s, "mail-slots", c->model.mail_slots);
    put_num(s, "dropout", args_float_json(c->model.dropout));
    put_str(s, "sampler", c->model.uniform_sampler ? "uniform" : "recent");
    put_str(s, "attention", c->model.attn == DGNN_ATTN_TGN ? "tgn" : "tgl");
    put_str(s, "split", c->split.mode == DGNN_SPLIT_BY_EXT_ROLL ? "ext_roll" : "time");
    put_num(s, "new-node-frac", c->split.new_node_frac);
    put_int(s, "max-batches", c->max_train_batches);
    put_int(s, "eval-max-events", c->max_eval_events);
    put_flag(s, "no-eval", x->no_eval);
    char plist[32];
    snprintf(plist, sizeof plist, "tgn%s%s", c->protocol.dyglib ? ",dyglib" : "", c->protocol.tgb ? ",tgb" : "");
    put_str(s, "protocol", plist);
    if (c->protocol.tgb) put_int(s, "tgb-k", c->protocol.tgb_k);
    put_str(s, "tgb-negatives", x->tgb_negatives);
    if (x->nf->task) {
        put_str(s, "task", x->nf->task);
        if (x->nf->epochs != CLI_UNSET) put_int(s, "node-epochs", x->nf->epochs);
        if (x->nf->patience != CLI_UNSET) put_int(s, "node-patience", x->nf->patience);
        if (x->nf->batch != CLI_UNSET) put_int(s, "node-batch", x->nf->batch);
        if (CLI_GIVEN_F(x->nf->lr)) put_num(s, "node-lr", x->nf->lr);
    }
    if (c->dist.mode != DGNN_DIST_NONE) {
        put_str(s, "dist", c->dist.mode == DGNN_DIST_STRICT ? "strict" : "depbloom");
        if (CLI_GIVEN_F(x->comm_timeout)) put_num(s, "comm-timeout", x->comm_timeout);
    }
    if (c->dist.mode == DGNN_DIST_DEPBLOOM) {
        put_flag(s, "partition", c->dist.partition);
        /* the window rule in force, one of the two (they exclude each other) */
        if (c->dist.window_seconds > 0) put_num(s, "window-seconds", c->dist.window_seconds);
        else put_int(s, "window-events", c->dist.window_events);
        put_int(s, "refine", c->dist.refine);
        put_flag(s, "critical-path", c->dist.critical_path);
        put_flag(s, "no-prefetch", c->dist.no_prefetch);
        put_flag(s, "cold-allgather", c->dist.cold_allgather);
    }
}

int cli_config_dump(const char *cmd, const char *path, const dgnn_event_train_cfg *c, const cli_dump_extra *x) {
    dgnn_err err;
    dgnn_err_clear(&err);
    dgnn_outfile *f = NULL;
    int rc = dgnn_outfile_open(&f, path, 0, &err);
    if (rc == DGNN_OK) {
        write_settings(dgnn_outfile_stream(f), c, x); /* a failing write is kept, and told by commit */
        rc = dgnn_outfile_commit(f, &err);
    }
    if (rc != DGNN_OK) {
        fprintf(stderr, "dgnn %s: --dump-config: %s\n", cmd, err.msg);
        return 1;
    }
    return 0;
}
