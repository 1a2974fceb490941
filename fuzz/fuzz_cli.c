/* fuzz_cli.c: libFuzzer harness for the parsers of the dgnn command's other input files
 * (build and run: fuzz/README.md):
 *   config   `dgnn train --config FILE.yml`: cli_config_expand (src/cli/cli_config.c with
 *            libyaml, cli_config_tgl.c for TGL's layout, cli_config_doc.c's value checks)
 *            against a copy of `dgnn train`'s option table, then args_parse of the tokens
 *            it returns, as cmd_train.c does next;
 *   curve    `dgnn simulate --family event --measured FILE.json`: dgnn_sim_measured_read
 *            (src/cluster/simulate_event_runs.c, cJSON: a `dgnn train --out` run and the
 *            step_curve of a `dgnn bench train --step-curve`), then dgnn_sim_event_fit;
 *   profile  `dgnn schedule --profile`, `dgnn simulate --profile`, `dgnn train --cost-profile`:
 *            dgnn_profile_read (src/cluster/costmodel.c), then dgnn_costmodel_fit_holdout
 *            on each model's rows (as dgnn_snap_cost_model does).
 * Every parser runs on every input; DGNN_FUZZ_CLI=config|curve|profile runs one only, and
 * FUZZ_VERBOSE=1 says what each parser made of the input (read, or its message).
 *
 * What counts as a bug (the harness aborts, so libFuzzer records it like a crash): a
 * failure without a message naming the file (and, for the line-based YAML and CSV, a line
 * of the file: "FILE:LINE:"); a success whose values break the parser's own checks
 * (config: a token args_parse refuses, a file of more than one YAML document; curve: a field outside the range its reader
 * checks, negative or non-finite seconds and bytes, batches not ascending, text after
 * the JSON value; profile: more rows than lines, a negative or non-finite field, a fit
 * whose coefficients are negative or not finite). Memory errors, leaks and undefined
 * behaviour are the sanitizers'. The parsers print their messages on stderr (the config
 * reader) or into a dgnn_err: stderr is caught in memory around each call. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../src/cli/args.h"
#include "../src/cli/cli.h"
#include "../src/cli/cli_config.h"
#include "../src/cli/train_node.h"
#include "dgnn/costmodel.h"
#include "dgnn/simulate.h"
#include "fuzz_common.h"

static int g_verbose;
static void say(const char *parser, int rc, const char *msg) {
    if (g_verbose) fprintf(stderr, "fuzz_cli: %s: %s%s\n", parser, rc ? "refused: " : "read", rc ? msg : "");
}

static void die(const char *parser, const char *what, const char *msg) {
    fprintf(stderr, "fuzz_cli: %s: %s%s%s\n", parser, what, msg ? ": " : "", msg ? msg : "");
    abort();
}

/* ---- stderr in memory (glibc: stderr is an assignable FILE *) ---- */
static FILE *g_stderr;
static char *g_caught;
static size_t g_caught_n;
static void catch_stderr(void) {
    fflush(stderr);
    g_stderr = stderr;
    stderr = open_memstream(&g_caught, &g_caught_n);
    if (!stderr) abort();
}
static const char *release_stderr(void) {
    fclose(stderr);
    stderr = g_stderr;
    return g_caught ? g_caught : "";
}

/* the input, and its lines: its line breaks + 1 (a parser may point at the line after the last break) */
static long g_lines;
static const uint8_t *g_data;
static size_t g_size;

/* 1 when msg holds "PATH:LINE" (LINE in 1..g_lines, or g_lines + 1 after a last line without
 * its newline: libyaml puts the end of such a file on a line of its own; want_line 0: the
 * path is enough) */
static int names_file(const char *msg, int want_line) {
    const size_t n = strlen(g_path);
    for (const char *p = strstr(msg, g_path); p; p = strstr(p + 1, g_path)) {
        const char *q = p + n;
        if (!want_line) return 1;
        if (*q != ':') continue;
        char *end;
        const long line = strtol(q + 1, &end, 10);
        const long last = g_lines + (g_size > 0 && g_data[g_size - 1] != '\n' && g_data[g_size - 1] != '\r');
        if (end != q + 1 && *end == ':' && line >= 1 && line <= last) return 1;
    }
    return 0;
}

/* ---- config: a copy of cmd_train.c's option table (names, kinds, ranges; train_main's
 * table is local to it): a flag added there and not here reads as an unknown key ---- */
static cli_node_flags g_nf;
static cli_load_flags g_lf;
static double g_comm_timeout;
static arg_opt g_opts[] = {
    {"config", ARG_STRING, NULL, "FILE", ""},
    {"dump-config", ARG_STRING, NULL, "FILE", ""},
    {"model", ARG_STRING, NULL, "M", ""},
    CLI_NODE_OPTS(g_nf),
    {"data", ARG_STRING, NULL, "FILE", ""},
    CLI_LOAD_OPTS(g_lf),
    {"preset", ARG_STRING, NULL, "P", ""},
    {"epochs", ARG_INT, NULL, "N", "", ARG_IN(1, CLI_MAX_EPOCHS)},
    {"batch", ARG_INT, NULL, "B", "", ARG_IN(1, CLI_MAX_BATCH)},
    {"lr", ARG_DOUBLE, NULL, "X", "", ARG_IN_OPEN_LO(0, CLI_MAX_LR)},
    {"seed", ARG_INT, NULL, "S", "", ARG_MIN(0)},
    {"threads", ARG_INT, NULL, "T", "", ARG_IN(1, CLI_MAX_THREADS)},
    {"device", ARG_STRING, NULL, "D", ""},
    {"patience", ARG_INT, NULL, "N", "", ARG_IN(1, CLI_MAX_EPOCHS)},
    {"eval-negatives", ARG_INT, NULL, "K", "", ARG_IN(0, 10000)},
    {"mem-dim", ARG_INT, NULL, "N", "", ARG_IN(1, CLI_MAX_DIM)},
    {"time-dim", ARG_INT, NULL, "N", "", ARG_IN(1, CLI_MAX_DIM)},
    {"emb-dim", ARG_INT, NULL, "N", "", ARG_IN(1, CLI_MAX_DIM)},
    {"neighbors", ARG_INT, NULL, "K", "", ARG_IN(1, 1000)},
    {"heads", ARG_INT, NULL, "H", "", ARG_IN(1, 64)},
    {"mail-slots", ARG_INT, NULL, "N", "", ARG_IN(1, 1024)},
    {"dropout", ARG_DOUBLE, NULL, "P", "", ARG_IN_OPEN_HI(0, 1)},
    {"sampler", ARG_STRING, NULL, "S", ""},
    {"negatives", ARG_STRING, NULL, "N", ""},
    {"attention", ARG_STRING, NULL, "A", ""},
    {"split", ARG_STRING, NULL, "S", ""},
    {"new-node-frac", ARG_DOUBLE, NULL, "F", "", ARG_IN_OPEN_HI(0, 1)},
    {"max-batches", ARG_INT, NULL, "N", "", ARG_MIN(0)},
    {"eval-max-events", ARG_INT, NULL, "N", "", ARG_MIN(0)},
    {"no-eval", ARG_FLAG, NULL, NULL, ""},
    {"protocol", ARG_STRING, NULL, "LIST", ""},
    {"tgb-negatives", ARG_STRING, NULL, "PREFIX", ""},
    {"tgb-k", ARG_INT, NULL, "K", "", ARG_IN(1, 100000)},
    {"on", ARG_STRING, NULL, "SPLIT", ""},
    {"emb-out", ARG_STRING, NULL, "NPY", ""},
    {"emb-at", ARG_STRING, NULL, "CSV", ""},
    {"emb-time", ARG_STRING, NULL, "T", ""},
    {"score-at", ARG_STRING, NULL, "CSV", ""},
    {"score-out", ARG_STRING, NULL, "NPY", ""},
    {"checkpoint", ARG_STRING, NULL, "DIR", ""},
    {"resume", ARG_FLAG, NULL, NULL, ""},
    {"dist", ARG_STRING, NULL, "MODE", ""},
    CLI_COMM_TIMEOUT_OPT(g_comm_timeout),
    {"partition", ARG_FLAG, NULL, NULL, ""},
    {"window-events", ARG_INT, NULL, "N", "", ARG_MIN(1)},
    {"window-seconds", ARG_DOUBLE, NULL, "S", "", ARG_ABOVE(0)},
    {"refine", ARG_INT, NULL, "K", "", ARG_IN(1, 1024)},
    {"critical-path", ARG_FLAG, NULL, NULL, ""},
    {"window-report", ARG_STRING, NULL, "CSV", ""},
    {"cold-allgather", ARG_FLAG, NULL, NULL, ""},
    {"no-prefetch", ARG_FLAG, NULL, NULL, ""},
    {"out", ARG_STRING, NULL, "FILE", ""},
    {"curve", ARG_STRING, NULL, "FILE", ""},
    {"plot", ARG_STRING, NULL, "FILE", ""},
    {"step-curve", ARG_STRING, NULL, "LIST", ""},
    {"quiet", ARG_FLAG, NULL, NULL, ""},

    {NULL, 0, NULL, NULL, NULL},
};
static union {
    int flag;
    int64_t i;
    double d;
    const char *s;
} g_dest[sizeof g_opts / sizeof g_opts[0]];

/* The YAML documents of the input by libyaml's event parser, or -1 on a syntax error
 * anywhere in it (a config file read as success must be one document, all valid YAML). */
static int yaml_documents(void) {
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, g_data, g_size);
    int docs = 0;
    for (;;) {
        yaml_event_t e;
        if (!yaml_parser_parse(&p, &e)) {
            docs = -1;
            break;
        }
        const yaml_event_type_t type = e.type;
        yaml_event_delete(&e);
        docs += type == YAML_DOCUMENT_START_EVENT;
        if (type == YAML_STREAM_END_EVENT) break;
    }
    yaml_parser_delete(&p);
    return docs;
}

static void fuzz_config(void) {
    for (size_t i = 0; g_opts[i].name; i++)
        if (!g_opts[i].dest) g_opts[i].dest = &g_dest[i];
    arg_spec spec = {.cmd = "train", .usage = "", .summary = "", .opts = g_opts, .min_pos = 0, .max_pos = 0};
    char *av0[] = {"--config", g_path, NULL};
    int argc = 2;
    char **argv = av0;
    catch_stderr();
    const int rc = cli_config_expand(&spec, &argc, &argv);
    /* the tokens as cmd_train.c parses them next: each was checked when read */
    const int prc = rc == 0 ? args_parse(&spec, argc, argv) : 0;
    const char *msg = release_stderr();
    if (rc != 0 && rc != 2) die("cli_config_expand", "a status other than 0 or 2", msg);
    if (rc == 2 && !names_file(msg, 1)) die("cli_config_expand", "a failure whose message names no FILE:LINE", msg);
    if (rc == 0 && prc != 0) die("cli_config_expand", "a token args_parse refuses (a value not checked when read)", msg);
    say("config", rc, msg);
    if (rc == 0 && yaml_documents() != 1)
        die("cli_config_expand", "success on a file that is not one YAML document (a second one, or bad YAML after it)", NULL);
    if (rc == 0 && (argc < 2 || strcmp(argv[argc - 2], "--config") || argv[argc - 1] != g_path))
        die("cli_config_expand", "the command line's own arguments not kept last", NULL);
    cli_config_release();
    free(g_caught), g_caught = NULL;
}

/* ---- curve: a measured run ---- */
static int nonneg(double x) { return isfinite(x) && x >= 0; }

static void check_run(const dgnn_sim_measured *m, const uint8_t *data, size_t size) {
    const char *r = "dgnn_sim_measured_read";
    if (memchr(data, 0, size)) die(r, "success on a file with a NUL byte", NULL);
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    cJSON *o = cJSON_ParseWithOpts(text, NULL, 1);
    free(text);
    if (!o) die(r, "success on a file that is not one JSON value (text after it)", NULL);
    cJSON_Delete(o);
    if (m->batch < 1 || m->threads < 0 || m->max_batches < 0 || m->mem_dim < 1 || m->time_dim < 0 || m->mail_slots < 1 ||
        m->train_events < 1 || m->edge_dim < 0 || m->num_params < 1 || m->epochs < 1 || m->ranks < 1)
        die(r, "a count outside its range", NULL);
    if (m->epoch_events < 1 || m->steps < 1) die(r, "no events or steps per epoch", NULL);
    if (!(isfinite(m->train_seconds) && m->train_seconds > 0)) die(r, "train_seconds not a positive number", NULL);
    if (!isfinite(m->new_node_frac) || !isfinite(m->val_quantile) || !isfinite(m->test_quantile))
        die(r, "a non-finite split setting", NULL);
    const int none = strcmp(m->mode, "none") == 0;
    if (!none && strcmp(m->mode, "strict") && strcmp(m->mode, "depbloom")) die(r, "an unknown dist.mode", m->mode);
    if (none ? !isnan(m->sample_seconds) || !isnan(m->compute_seconds) || !isnan(m->comm_seconds)
             : !nonneg(m->sample_seconds) || !nonneg(m->compute_seconds) || !nonneg(m->comm_seconds) ||
                   !nonneg(m->state_bytes_per_epoch) || !nonneg(m->grad_bytes_per_epoch) || !nonneg(m->window_seconds) ||
                   m->window_events < 0 || m->refine < 0)
        die(r, "dist's seconds or bytes negative or not finite", NULL);
    const dgnn_sim_curve *c = &m->curve;
    if (c->n < 0 || c->n > DGNN_SIM_CURVE_MAX) die(r, "step_curve: point count out of range", NULL);
    if (c->n > 0 && (!nonneg(c->apply_bytes_per_second) || !nonneg(c->optimizer_seconds)))
        die(r, "step_curve: apply_bytes_per_second or optimizer_seconds negative or not finite", NULL);
    for (int64_t k = 0; k < c->n; k++) {
        if (!(c->batch[k] >= 1) || (k > 0 && !(c->batch[k] > c->batch[k - 1]))) die(r, "step_curve: batches not ascending", NULL);
        if (!(isfinite(c->seconds[k]) && c->seconds[k] > 0)) die(r, "step_curve: step_seconds not a positive number", NULL);
    }
    for (double x = 0; c->n > 0 && x <= 4 * c->batch[c->n - 1]; x += c->batch[c->n - 1] / 4 + 1)
        if (!nonneg(dgnn_sim_curve_seconds(c, x))) die(r, "step_curve: t(x) negative or not finite", NULL);
}

static void fuzz_curve(void) {
    dgnn_sim_measured m;
    dgnn_err err;
    dgnn_err_clear(&err);
    const int rc = dgnn_sim_measured_read(&m, g_path, &err);
    if (rc > 0 || (rc < 0 && (err.code != rc || !names_file(err.msg, 0))))
        die("dgnn_sim_measured_read", "a failure without a status and a message naming the file", err.msg);
    say("curve", rc, err.msg);
    if (rc) return;
    check_run(&m, g_data, g_size);
    /* a single-rank run is what --measured fits one worker's costs on */
    dgnn_sim_event_in in;
    memset(&in, 0, sizeof in);
    dgnn_err_clear(&err);
    const int frc = dgnn_sim_event_fit(&in, &m, 1, &err);
    if (frc && (frc > 0 || !names_file(err.msg, 0))) die("dgnn_sim_event_fit", "a failure without a message naming the file", err.msg);
    if (!frc && (!nonneg(in.step_seconds) || !nonneg(in.event_seconds) || !nonneg(in.sample_seconds) ||
                 !nonneg(in.row_bytes) || !nonneg(in.grad_bytes) || in.batch < 1))
        die("dgnn_sim_event_fit", "a cost negative or not finite", NULL);
}

/* ---- profile ---- */
static void fuzz_profile(const uint8_t *data, size_t size) {
    const char *r = "dgnn_profile_read";
    dgnn_profile p;
    dgnn_err err;
    dgnn_err_clear(&err);
    const int rc = dgnn_profile_read(&p, g_path, &err);
    if (rc > 0 || (rc < 0 && (err.code != rc || !names_file(err.msg, strstr(err.msg, ": empty file") == NULL))))
        die(r, "a failure without a status and a message naming FILE:LINE", err.msg);
    say("profile", rc, err.msg);
    if (rc) {
        if (p.n != 0 || p.rows || p.model) die(r, "rows left after a failure", NULL);
        return;
    }
    long nonempty = 0; /* physical lines with something on them */
    for (size_t i = 0, start = 0; i <= size; i++)
        if (i == size || data[i] == '\n') {
            size_t e = i;
            while (e > start && data[e - 1] == '\r') e--;
            nonempty += e > start;
            start = i + 1;
        }
    if (p.n > nonempty - 1) die(r, "more rows than lines after the header (a line read as two)", NULL);
    for (int64_t i = 0; i < p.n; i++) {
        const dgnn_window *w = &p.rows[i];
        const size_t len = strnlen(p.model[i], 32);
        if (len == 0 || len > 31 || strchr(p.model[i], ',')) die(r, "a model name empty, too long or with a comma", NULL);
        if (w->sample < 0 || w->nodes < 0 || w->edges < 0 || w->edges_window < 0 || w->label_pairs < 0 || w->in_dim < 0 ||
            w->hidden < 0)
            die(r, "a negative count", NULL);
        if (!nonneg(w->seconds)) die(r, "seconds negative or not finite", NULL);
    }
    /* each model's rows fitted as dgnn_snap_cost_model does (at least 3, 20% held out) */
    dgnn_window *rows = malloc((size_t)(p.n ? p.n : 1) * sizeof *rows);
    for (int64_t i = 0; i < p.n; i++) {
        int first = 1;
        for (int64_t j = 0; j < i && first; j++) first = strcmp(p.model[j], p.model[i]) != 0;
        if (!first) continue;
        int64_t m = 0;
        for (int64_t j = i; j < p.n; j++)
            if (strcmp(p.model[j], p.model[i]) == 0) rows[m++] = p.rows[j];
        if (m < 3) continue;
        dgnn_costmodel cm;
        dgnn_err_clear(&err);
        const int frc = dgnn_costmodel_fit_holdout(&cm, rows, m, 0.2, 1, &err);
        if (frc > 0 || (frc < 0 && !err.msg[0])) die("dgnn_costmodel_fit_holdout", "a failure without a message", NULL);
        if (frc) continue;
        for (int k = 0; k < DGNN_COST_NFEAT; k++)
            if (!nonneg(cm.coef[k])) die("dgnn_costmodel_fit_holdout", "a coefficient negative or not finite", NULL);
        for (int64_t j = 0; j < m; j++)
            if (!nonneg(dgnn_costmodel_predict(&cm, &rows[j]))) die("dgnn_costmodel_predict", "negative or not finite", NULL);
    }
    free(rows);
    dgnn_profile_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *which;
    if (!which) {
        which = getenv("DGNN_FUZZ_CLI") ? getenv("DGNN_FUZZ_CLI") : "all";
        g_verbose = getenv("FUZZ_VERBOSE") && strcmp(getenv("FUZZ_VERBOSE"), "0") != 0;
    }
    fuzz_setup("cli", "input");
    write_file(g_path, data, size);
    g_data = data, g_size = size;
    /* YAML's line breaks (1.2, 5.4: CR LF, LF, CR; libyaml also NEL, LS, PS): an upper bound for the others */
    g_lines = 1;
    for (size_t i = 0; i < size; i++)
        g_lines += data[i] == '\n' || (data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n')) ||
                   (i + 1 < size && data[i] == 0xc2 && data[i + 1] == 0x85) ||
                   (i + 2 < size && data[i] == 0xe2 && data[i + 1] == 0x80 && (data[i + 2] == 0xa8 || data[i + 2] == 0xa9));
    const int all = strcmp(which, "all") == 0;
    if (all || strcmp(which, "config") == 0) fuzz_config();
    if (all || strcmp(which, "curve") == 0) fuzz_curve();
    if (all || strcmp(which, "profile") == 0) fuzz_profile(data, size);
    return 0;
}
