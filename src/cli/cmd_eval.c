/* cmd_eval.c: `dgnn eval --checkpoint DIR`: the checkpoint's saved settings (those of the
 * `dgnn train --checkpoint DIR` run that wrote it) go before the flags given here, so that
 * these win, and cmd_train.c's run evaluates it without training (cli_event_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_train.h"
#include "dgnn/checkpoint.h"
#include "dgnn/event_train.h"

/* dgnn eval reads the checkpoints of one process: one of an mpirun --dist run is refused
 * here with eval's own advice (the trainer's, on resuming, names mpirun -np and --resume).
 * 0, or 1 after the message; a checkpoint without a readable run record is left to the
 * evaluation's own checks. */
static int eval_single_process(const char *dir) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    dgnn_ckpt *c;
    dgnn_ckpt_run run;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_ckpt_open(&c, path, &err) != DGNN_OK) return 0;
    const int have = dgnn_ckpt_read_run(c, &run, &err) == DGNN_OK;
    dgnn_ckpt_close(c);
    if (dgnn_ckpt_family(dir, NULL, 0, NULL, 0) == DGNN_CKPT_SNAPSHOT) {
        fprintf(stderr, "dgnn eval: --checkpoint %s is a snapshot model's checkpoint (EvolveGCN, T-GCN, GCRN-GRU, "
                        "WD-GCN, GCN): dgnn eval reads the event models' (TGN, JODIE, DyRep, APAN); a snapshot model's "
                        "run tests itself at its end\n", dir);
        return 1;
    }
    if (!have) return 0;
    const char *procs = dgnn_ckpt_run_get(&run, "processes"), *dist = dgnn_ckpt_run_get(&run, "dist");
    if ((!procs || strcmp(procs, "1") == 0) && (!dist || strcmp(dist, "none") == 0)) return 0;
    char was[256];
    dgnn_ckpt_run_describe(was, sizeof was, &run);
    fprintf(stderr, "dgnn eval: --checkpoint %s was written by %s; dgnn eval reads the checkpoints of one process "
                    "only (those of a dgnn train run without mpirun and --dist)\n", dir, was);
    return 1;
}

/* A token of the training run's saved settings that in-process is left out: --data and the
 * flags that describe its file (the events are the caller's). 0: kept; 1: this token; 2:
 * this one and its value, the next. */
static int saved_file_flag(const char *tok) {
    static const struct {
        const char *name;
        int value;
    } k[] = {{"data", 1},      {"format", 1},    {"columns", 1}, {"edge-feat", 1},
             {"node-feat", 1}, {"bipartite", 0}, {"not-bipartite", 0}};
    if (strncmp(tok, "--", 2) != 0) return 0;
    const char *name = tok + 2, *eq = strchr(name, '=');
    const size_t len = eq ? (size_t)(eq - name) : strlen(name);
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strlen(k[i].name) == len && strncmp(name, k[i].name, len) == 0) return k[i].value && !eq ? 2 : 1;
    return 0;
}

/* `dgnn eval --checkpoint DIR [flags]`: the training run's settings come from the
 * checkpoint (saved by the training run), the flags given here after them, so that they win. */
static int eval_main(int argc, char **argv, const cli_train_embed *embed) {
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--checkpoint") == 0 && i + 1 < argc) dir = argv[i + 1];
        else if (strncmp(argv[i], "--checkpoint=", 13) == 0) dir = argv[i] + 13;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) dir = NULL, i = argc;
    }
    char *flags = NULL;
    int64_t bytes = 0;
    if (dir) {
        dgnn_err err;
        dgnn_err_clear(&err);
        if (dgnn_event_ckpt_flags(dir, &flags, &bytes, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn eval: --checkpoint %s: %s\n", dir, err.msg);
            return 1;
        }
        if (eval_single_process(dir)) {
            free(flags);
            return 1;
        }
    }
    if (!flags) return cli_event_run(argc, argv, 0, CLI_RUN_EVAL, embed); /* no saved settings: the flags given */
    int n = 0;
    for (int64_t i = 0; i < bytes; i++) n += flags[i] == 0;
    char **all = dgnn_xmalloc((size_t)(n + argc + 1) * sizeof *all);
    int k = 0;
    char line[2048] = "";
    size_t used = 0;
    for (int64_t i = 0; i < bytes && k < n; i += (int64_t)strlen(flags + i) + 1) {
        /* in-process, the events are the caller's: the training run's --data and the flags
         * that describe its file are left out */
        const int skip = embed ? saved_file_flag(flags + i) : 0;
        if (skip == 2 && i + (int64_t)strlen(flags + i) + 1 < bytes) i += (int64_t)strlen(flags + i) + 1;
        if (skip) continue;
        all[k++] = flags + i;
        used += (size_t)snprintf(line + used, used < sizeof line ? sizeof line - used : 0, " %s", flags + i);
    }
    const int saved = k;
    for (int i = 0; i < argc; i++) all[k++] = argv[i];
    all[k] = NULL;
    dgnn_log("dgnn eval: the training run's settings from %s:%s%s (flags given here override them)\n", dir, line,
             used >= sizeof line ? " ..." : "");
    const int rc = cli_event_run(k, all, saved, CLI_RUN_EVAL, embed);
    free(all);
    free(flags);
    return rc;
}
int cmd_eval(int argc, char **argv) { return eval_main(argc, argv, NULL); }
int cli_eval_embedded(int argc, char **argv, const cli_train_embed *e) {
    if (e->json) *e->json = NULL;
    return eval_main(argc, argv, e);
}
