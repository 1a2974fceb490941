/* cmd_gen.c: `dgnn gen`: the synthetic generator (src/data/gen.c) from the command line,
 * and `dgnn bench gen`, its throughput and peak memory. Every generator option is a
 * flag of the same name (--events 10M, --edge-dim 16, ...), handed to dgnn_gen_set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn/gen.h"

/* defaults: the command's own (bench gen's stream is larger) */
static void gen_help(const char *cmd, const dgnn_gen_opts *defaults) {
    if (strcmp(cmd, "gen") == 0)
        printf("usage: dgnn gen --out FILE [options]\n\n"
               "Generates a seeded synthetic event stream and streams it to FILE: a .dgnn binary file,\n"
               "or a JODIE csv when FILE ends in .csv (bipartite streams only). Memory stays bounded\n"
               "by the node count, whatever the event count. Prints the throughput. A .dgnn file keeps\n"
               "all --nodes nodes; a csv only those with events (its reader numbers them afresh).\n\noptions:\n"
               "  --out FILE                 output path (required)\n");
    else
        printf("usage: dgnn bench gen [options]\n\n"
               "Generator throughput: streams a synthetic dataset to a temporary .dgnn file (deleted\n"
               "afterwards, unless --out is given) and prints events/s, MB/s and peak memory.\n\noptions:\n"
               "  --out FILE                 keep the output here\n");
    dgnn_gen_usage(stdout, defaults);
    printf("  --help                     show this help\n");
}

/* Parses generator flags into o; --out into *out. Returns 0, 1 (help printed) or -1 (a
 * bad flag, or values out of the generator's ranges: dgnn_gen_check, before any output
 * is opened). */
/* the generator's message without its own "gen: ", which the command's prefix replaces */
static const char *gen_msg(const dgnn_err *err) {
    return strncmp(err->msg, "gen: ", 5) == 0 ? err->msg + 5 : err->msg;
}

static int parse_gen_flags(const char *cmd, int argc, char **argv, dgnn_gen_opts *o, const char **out) {
    dgnn_err err;
    const dgnn_gen_opts defaults = *o;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            gen_help(cmd, &defaults);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            fprintf(stderr, "dgnn %s: unexpected argument '%s' (see dgnn %s --help)\n", cmd, a, cmd);
            return -1;
        }
        char key[64];
        const char *eq = strchr(a + 2, '='), *val = NULL;
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof key) len = sizeof key - 1;
        memcpy(key, a + 2, len);
        key[len] = '\0';
        if (eq) val = eq + 1;
        /* boolean options may be given as bare flags: --bipartite, --progress */
        int is_bool = strcmp(key, "bipartite") == 0 || strcmp(key, "progress") == 0;
        if (!val && is_bool && (i + 1 >= argc || (strcmp(argv[i + 1], "0") != 0 && strcmp(argv[i + 1], "1") != 0)))
            val = "1";
        if (!val) {
            if (i + 1 >= argc) {
                fprintf(stderr, "dgnn %s: --%s needs a value\n", cmd, key);
                return -1;
            }
            val = argv[++i];
        }
        if (strcmp(key, "out") == 0) {
            *out = val;
            continue;
        }
        dgnn_err_clear(&err);
        if (dgnn_gen_set(o, key, val, &err) != DGNN_OK) {
            fprintf(stderr, "dgnn %s: %s (see dgnn %s --help)\n", cmd, gen_msg(&err), cmd);
            return -1;
        }
    }
    dgnn_err_clear(&err);
    if (dgnn_gen_check(o, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s (see dgnn %s --help)\n", cmd, gen_msg(&err), cmd);
        return -1;
    }
    return 0;
}

static int run_gen(const char *cmd, const char *path, const dgnn_gen_opts *o, int keep) {
    /* before generating anything; bench gen's default file goes to $TMPDIR */
    const cli_output outs[] = {{keep ? "--out" : "$TMPDIR file", path, CLI_OUT_FILE}};
    if (cli_check_outputs(cmd, outs, 1)) return 2;
    dgnn_gen_stats st;
    dgnn_err err;
    dgnn_err_clear(&err);
    if (dgnn_gen_write(path, o, &st, &err) != DGNN_OK) {
        fprintf(stderr, "dgnn %s: %s\n", cmd, gen_msg(&err));
        return 1;
    }
    char a[32], b[32];
    printf("%s %s: %s events, %s nodes, %.2f s, %.3g events/s, %.1f MB/s, %.1f MB written, peak RSS %.1f MB\n",
           keep ? "wrote" : "generated", path, dgnn_fmt_count(a, sizeof a, st.events),
           dgnn_fmt_count(b, sizeof b, o->num_nodes), st.seconds, st.events_per_s,
           st.seconds > 0 ? (double)st.bytes / 1e6 / st.seconds : 0.0, (double)st.bytes / 1e6, dgnn_peak_rss_mb());
    if (!keep) unlink(path);
    return 0;
}

int cmd_gen(int argc, char **argv) {
    dgnn_gen_opts o = dgnn_gen_opts_default();
    o.progress = 1;
    const char *out = NULL;
    int rc = parse_gen_flags("gen", argc, argv, &o, &out);
    if (rc) return rc > 0 ? 0 : 2;
    if (!out) {
        fprintf(stderr, "dgnn gen: --out FILE is required (a .dgnn file, or .csv)\n");
        return 2;
    }
    return run_gen("gen", out, &o, 1);
}

int cmd_gen_bench(int argc, char **argv) {
    dgnn_gen_opts o = dgnn_gen_opts_default();
    o.num_events = 10000000;
    o.num_nodes = 100000;
    const char *out = NULL;
    int rc = parse_gen_flags("bench gen", argc, argv, &o, &out);
    if (rc) return rc > 0 ? 0 : 2;
    char tmp[256];
    if (!out) {
        const char *dir = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/dgnn-bench-gen-%d.dgnn", dir && *dir ? dir : "/tmp", (int)getpid());
    }
    return run_gen("bench gen", out ? out : tmp, &o, out != NULL);
}
