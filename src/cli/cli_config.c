/* cli_config.c: --config FILE.yml (cli_config.h): the file read with libyaml, its TGL
 * sections handed to cli_config_tgl.c, its dgnn: section read as flag = value, and the
 * tokens put before the command line's own arguments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "cli_config.h"
#include "dgnn/base.h"
#include "dgnn/snapmodel.h"

/* the expanded argv, kept for the process (the option table's strings point into it) */
static cli_cfg_toks g_toks;
static char **g_argv;

int cli_config_dgnn_sets(const char *flag) {
    for (int i = 0; i < g_toks.n; i++)
        if (strncmp(g_toks.tok[i].key, "dgnn.", 5) == 0 && strcmp(g_toks.tok[i].flag + 2, flag) == 0) return 1;
    return 0;
}

void cli_config_release(void) {
    cli_cfg_toks_free(&g_toks);
    free(g_argv);
    g_argv = NULL;
}

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }
static const char *scalar(const yaml_node_t *n) { return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL; }
static int quoted(const yaml_node_t *n) {
    return n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE || n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

/* YAML's keys are unique within a mapping (YAML 1.2, 3.2.1.1), and libyaml does not check
 * it: a key given twice is refused at its second occurrence (else the later value would
 * win silently, or the earlier one, as the reader goes). sec: the mapping's section, for
 * the key's name ("dgnn.batch"); NULL for the file's top level. 0, or 2 after the message. */
static int unique_keys(cli_cfg_toks *t, yaml_document_t *d, yaml_node_t *m, const char *sec) {
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = yaml_document_get_node(d, p->key);
        const char *key = scalar(k);
        if (!key) continue; /* told by the section's reader */
        for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
            const yaml_node_t *k0 = yaml_document_get_node(d, q->key);
            if (!scalar(k0) || strcmp(scalar(k0), key) != 0) continue;
            char full[96];
            snprintf(full, sizeof full, "%s%s%s", sec ? sec : "", sec ? "." : "", key);
            return cli_cfg_error(t, line_of(k), full, "given twice (first on line %d; a YAML mapping holds a key once)",
                                 line_of(k0));
        }
    }
    return 0;
}

/* A section's mapping: TGL writes a list of one mapping (`train:\n  - epoch: 100`); a
 * mapping itself is taken too. NULL after the message. */
static yaml_node_t *section_map(cli_cfg_toks *t, yaml_document_t *d, yaml_node_t *v, const char *name) {
    if (v->type == YAML_SEQUENCE_NODE) {
        const long n = (long)(v->data.sequence.items.top - v->data.sequence.items.start);
        if (n != 1) {
            cli_cfg_error(t, line_of(v), name, "a list of %ld mappings: dgnn takes one (TGL's layout: a list of one)", n);
            return NULL;
        }
        v = yaml_document_get_node(d, v->data.sequence.items.start[0]);
    }
    if (!v || v->type != YAML_MAPPING_NODE) {
        cli_cfg_error(t, v ? line_of(v) : 1, name, "expects a mapping of settings (key: value)");
        return NULL;
    }
    return unique_keys(t, d, v, name) ? NULL : v;
}

/* dgnn.model: an event model (those of cmd_train.c's --model), told here with the file and
 * line; a snapshot model's settings are flags, not a config file (cmd_train_snap.c says
 * the same of --config given with one). 0, or 2 after the message. */
static int check_model(cli_cfg_toks *t, const char *val, int line, const char *key) {
    static const char *const event_models[] = {"tgn", "jodie", "dyrep", "apan", "edgebank", NULL};
    for (int i = 0; event_models[i]; i++)
        if (strcmp(val, event_models[i]) == 0) return 0;
    dgnn_snapmodel_kind kind; /* the library's names, as cli_is_snapshot_model reads --model */
    if (dgnn_snapmodel_kind_parse(val, &kind) == 0)
        return cli_cfg_error(t, line, key, "'%s' is a snapshot model: --config files are for the event models (tgn, "
                                           "jodie, dyrep, apan, edgebank); a snapshot model takes its settings as "
                                           "flags: see dgnn %s --model %s --help", val, t->spec->cmd, val);
    return cli_cfg_error(t, line, key, "unknown model '%s' (tgn, jodie, dyrep, apan, edgebank)", val);
}

/* dgnn's own section: flag names without "--", scalar values */
static int read_dgnn(cli_cfg_toks *t, yaml_document_t *d, yaml_node_t *m, const char **model, int *model_line) {
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key), *v = yaml_document_get_node(d, p->value);
        const char *key = scalar(k), *val = scalar(v);
        char full[96];
        snprintf(full, sizeof full, "dgnn.%s", key ? key : "?");
        if (!key) return cli_cfg_error(t, line_of(k), "dgnn", "a key must be a plain name");
        if (strcmp(key, "config") == 0) return cli_cfg_error(t, line_of(k), full, "config files do not include others");
        if (!val) return cli_cfg_error(t, line_of(v), full, "expects a single value (a scalar), not a list or mapping");
        if (!val[0] && !quoted(v)) return cli_cfg_error(t, line_of(v), full, "has no value");
        const arg_opt *o = NULL;
        for (const arg_opt *q = t->spec->opts; q && q->name; q++)
            if (strcmp(q->name, key) == 0) o = q;
        if (o && o->kind == ARG_FLAG) {
            const int b = quoted(v) ? -1 : cli_cfg_bool(val);
            if (b < 0) return cli_cfg_error(t, line_of(v), full, "--%s is a switch: true or false (got '%s')", key, val);
            if (b && cli_cfg_push(t, key, NULL, 0, line_of(v), full)) return 2;
            continue;
        }
        if (strcmp(key, "model") == 0 && check_model(t, val, line_of(v), full)) return 2;
        if (cli_cfg_push(t, key, val, quoted(v), line_of(v), full)) return 2;
        if (strcmp(key, "model") == 0) *model = t->tok[t->n - 1].value, *model_line = line_of(v);
    }
    return 0;
}

/* TGL's four sections into vals (cli_tgl_keys' order) */
static int read_tgl(cli_cfg_toks *t, yaml_document_t *d, yaml_node_t *m, const char *sec, cli_tgl_val *vals, int *nbr_count) {
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key), *v = yaml_document_get_node(d, p->value);
        const char *key = scalar(k);
        char full[96];
        snprintf(full, sizeof full, "%s.%s", sec, key ? key : "?");
        int idx = -1;
        for (int i = 0; cli_tgl_keys[i]; i++)
            if (strcmp(cli_tgl_keys[i], full) == 0) idx = i;
        if (idx < 0) {
            char known[512] = "";
            size_t u = 0, n = strlen(sec);
            for (int i = 0; cli_tgl_keys[i]; i++)
                if (strncmp(cli_tgl_keys[i], sec, n) == 0 && cli_tgl_keys[i][n] == '.' && u < sizeof known)
                    u += (size_t)snprintf(known + u, sizeof known - u, "%s%s", u ? ", " : "", cli_tgl_keys[i] + n + 1);
            return cli_cfg_error(t, line_of(k), full, "unknown key (dgnn reads %s: %s)", sec, known);
        }
        /* sampling.neighbor: TGL's list of one count per layer */
        if (v->type == YAML_SEQUENCE_NODE && strcmp(full, "sampling.neighbor") == 0) {
            *nbr_count = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
            if (*nbr_count == 0) return cli_cfg_error(t, line_of(v), full, "an empty list");
            v = yaml_document_get_node(d, v->data.sequence.items.start[0]);
        }
        const char *val = scalar(v);
        if (!val) return cli_cfg_error(t, line_of(v), full, "expects a single value, not a list or mapping");
        if (!val[0] && !quoted(v)) return cli_cfg_error(t, line_of(v), full, "has no value");
        vals[idx] = (cli_tgl_val){val, line_of(v), quoted(v)};
    }
    return 0;
}

/* libyaml's error while loading from f, with the file, line and column. */
static void yaml_error(const cli_cfg_toks *t, const yaml_parser_t *parser, FILE *f) {
    if (parser->error == YAML_READER_ERROR && ferror(f)) { /* the file's read failed, not its text */
        fprintf(stderr, "dgnn %s: --config %s: cannot read it: %s\n", t->spec->cmd, t->file,
                errno ? strerror(errno) : "read error");
        return;
    }
    size_t line = parser->problem_mark.line + 1, col = parser->problem_mark.column + 1;
    char byte[32] = "";
    if (parser->error == YAML_READER_ERROR) {
        /* a byte that is not text (invalid UTF-8, a control character): libyaml gives its
         * offset only (the mark stays at 1:1), so its line is counted here */
        rewind(f);
        line = col = 1;
        for (size_t i = 0, prev = 0; i < parser->problem_offset; i++) {
            const int c = getc(f);
            if (c == EOF) break;
            if (c == '\r' || (c == '\n' && prev != '\r')) line++, col = 1; /* CR LF, LF, CR: YAML's breaks */
            else if (c != '\n') col++;
            prev = (size_t)c;
        }
        if (parser->problem_value >= 0) snprintf(byte, sizeof byte, " (0x%02X)", (unsigned)parser->problem_value);
    }
    fprintf(stderr, "dgnn %s: %s:%zu:%zu: not valid YAML: %s%s%s%s\n", t->spec->cmd, t->file, line, col,
            parser->problem ? parser->problem : "error", byte, parser->context ? " " : "",
            parser->context ? parser->context : "");
}

/* The file's tokens into t; 0, or 2 after the message. */
static int read_file(cli_cfg_toks *t) {
    FILE *f = fopen(t->file, "rb");
    if (!f) {
        fprintf(stderr, "dgnn %s: --config %s: cannot open it: %s\n", t->spec->cmd, t->file, strerror(errno));
        return 2;
    }
    /* a folder opens for reading on Linux and fails at the first read, which libyaml
     * tells as "input error": said here what it is (a FIFO or /dev/stdin is read) */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "dgnn %s: --config %s: a folder, not a YAML file\n", t->spec->cmd, t->file);
        fclose(f);
        return 2;
    }
    yaml_parser_t parser;
    yaml_document_t doc, next;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    errno = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_error(t, &parser, f);
        yaml_parser_delete(&parser);
        fclose(f);
        return 2;
    }
    /* one document: yaml_parser_load stops after the first, so that a second one (after
     * "---") or anything after "..." went unread, its settings silently dropped */
    if (!yaml_parser_load(&parser, &next)) {
        yaml_error(t, &parser, f);
        yaml_document_delete(&doc);
        yaml_parser_delete(&parser);
        fclose(f);
        return 2;
    }
    const int second = yaml_document_get_root_node(&next) != NULL, second_line = (int)next.start_mark.line + 1;
    yaml_document_delete(&next);
    yaml_parser_delete(&parser);
    fclose(f);
    if (second) {
        yaml_document_delete(&doc);
        return cli_cfg_error(t, second_line, "", "a second YAML document: a config file holds one (its settings in "
                                                 "one mapping of sections)");
    }
    int rc = 0, nbr_count = 0, model_line = 0, tgl = 0;
    const char *model = NULL, *tgl_model = NULL;
    cli_tgl_val vals[64] = {{0}};
    yaml_node_t *root = yaml_document_get_root_node(&doc), *dgnn = NULL;
    if (!root || root->type != YAML_MAPPING_NODE) {
        rc = cli_cfg_error(t, root ? line_of(root) : 1, "", "%sexpects sections (sampling, memory, gnn, train; dgnn)",
                           root ? "" : "an empty file: ");
        goto done;
    }
    if ((rc = unique_keys(t, &doc, root, NULL))) goto done;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rc; p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key), *v = yaml_document_get_node(&doc, p->value);
        const char *sec = scalar(k);
        static const char *const tgl_secs[] = {"sampling", "memory", "gnn", "train", NULL};
        int is_tgl = 0;
        for (int i = 0; sec && tgl_secs[i]; i++) is_tgl |= strcmp(sec, tgl_secs[i]) == 0;
        if (!sec || (!is_tgl && strcmp(sec, "dgnn"))) {
            rc = cli_cfg_error(t, line_of(k), sec ? sec : "?", "unknown section (sampling, memory, gnn, train: TGL's; dgnn: dgnn train's flags)");
            break;
        }
        yaml_node_t *m = section_map(t, &doc, v, sec);
        if (!m) rc = 2;
        else if (is_tgl) rc = read_tgl(t, &doc, m, sec, vals, &nbr_count), tgl = 1;
        else dgnn = m;
    }
    /* the TGL sections' tokens first, the dgnn: section's after them (so that it wins) */
    if (!rc && tgl) rc = cli_tgl_tokens(t, vals, nbr_count, &tgl_model);
    if (!rc && dgnn) rc = read_dgnn(t, &doc, dgnn, &model, &model_line);
    if (!rc && tgl_model && model && strcmp(model, tgl_model))
        rc = cli_cfg_error(t, model_line, "dgnn.model", "'%s', but the TGL sections describe %s", model, tgl_model);
done:
    yaml_document_delete(&doc);
    return rc;
}

int cli_config_expand(const arg_spec *spec, int *argc, char ***argv) {
    const char *file = NULL;
    for (int i = 0; i < *argc; i++) {
        const char *a = (*argv)[i], *f = NULL;
        if (strcmp(a, "--") == 0) break;
        if (strcmp(a, "--config") == 0 && i + 1 < *argc) f = (*argv)[++i];
        else if (strncmp(a, "--config=", 9) == 0) f = a + 9;
        if (f && file) {
            fprintf(stderr, "dgnn %s: --config given twice (%s, %s): one file per run\n", spec->cmd, file, f);
            return 2;
        }
        if (f) file = f;
    }
    if (!file) return 0;
    cli_config_release();
    g_toks = (cli_cfg_toks){.file = file, .spec = spec};
    if (read_file(&g_toks)) {
        cli_config_release();
        return 2;
    }
    int n = 0;
    for (int i = 0; i < g_toks.n; i++) n += 1 + (g_toks.tok[i].value != NULL);
    g_argv = dgnn_xmalloc((size_t)(n + *argc + 1) * sizeof *g_argv);
    int k = 0;
    for (int i = 0; i < g_toks.n; i++) {
        g_argv[k++] = g_toks.tok[i].flag;
        if (g_toks.tok[i].value) g_argv[k++] = g_toks.tok[i].value;
    }
    for (int i = 0; i < *argc; i++) g_argv[k++] = (*argv)[i];
    g_argv[k] = NULL;
    *argc = k, *argv = g_argv;
    return 0;
}
