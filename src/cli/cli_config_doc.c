/* cli_config_doc.c: the settings a config file gives, as checked flag tokens
 * (cli_config.h): each value is checked against `dgnn train`'s own option table when it
 * is read, so that a wrong one is told with the file, line and key it came from. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_config.h"
#include "dgnn/base.h"

int cli_cfg_error(const cli_cfg_toks *t, int line, const char *key, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key && key[0]) fprintf(stderr, "dgnn %s: %s:%d: %s: %s\n", t->spec->cmd, t->file, line, key, msg);
    else fprintf(stderr, "dgnn %s: %s:%d: %s\n", t->spec->cmd, t->file, line, msg);
    return 2;
}

int cli_cfg_bool(const char *v) {
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "on", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "off", NULL};
    for (int i = 0; yes[i]; i++) if (strcmp(v, yes[i]) == 0) return 1;
    for (int i = 0; no[i]; i++) if (strcmp(v, no[i]) == 0) return 0;
    return -1;
}

static char *xstrdup(const char *s) {
    const size_t n = strlen(s) + 1;
    return memcpy(dgnn_xmalloc(n), s, n);
}

static const arg_opt *find_opt(const arg_spec *s, const char *name) {
    for (const arg_opt *o = s->opts; o && o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

int cli_cfg_push(cli_cfg_toks *t, const char *name, const char *value, int quoted, int line, const char *key) {
    const arg_opt *o = find_opt(t->spec, name);
    if (!o) return cli_cfg_error(t, line, key, "unknown key (dgnn %s has no --%s; see dgnn %s --help)", t->spec->cmd, name, t->spec->cmd);
    if (o->kind == ARG_FLAG && value)
        return cli_cfg_error(t, line, key, "--%s is a switch: true or false (got '%s')", name, value);
    if (o->kind != ARG_FLAG && !value) return cli_cfg_error(t, line, key, "needs a value");
    if ((o->kind == ARG_INT || o->kind == ARG_DOUBLE) && quoted)
        return cli_cfg_error(t, line, key, "a string ('%s') where a number is needed", value);
    if (o->kind == ARG_INT || o->kind == ARG_DOUBLE) {
        /* the table's own type and range check on a scratch destination, its message
         * prefixed with where the value came from */
        union { int64_t i; double d; } scratch;
        arg_opt one[2] = {*o, {NULL, 0, NULL, NULL, NULL}};
        one[0].dest = &scratch;
        char where[1200];
        snprintf(where, sizeof where, "%s: %s:%d: %s", t->spec->cmd, t->file, line, key);
        arg_spec s1 = {.cmd = where, .usage = "", .summary = "", .opts = one, .min_pos = 0, .max_pos = 0};
        char flag[80];
        snprintf(flag, sizeof flag, "--%s", name);
        char *av[2] = {flag, (char *)value};
        if (args_parse(&s1, 2, av) != 0) return 2;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->tok = dgnn_xrealloc(t->tok, (size_t)t->cap * sizeof *t->tok);
    }
    cli_cfg_tok *k = &t->tok[t->n++];
    k->flag = dgnn_xmalloc(strlen(name) + 3);
    sprintf(k->flag, "--%s", name);
    k->value = value ? xstrdup(value) : NULL;
    k->line = line;
    snprintf(k->key, sizeof k->key, "%s", key);
    return 0;
}

void cli_cfg_toks_free(cli_cfg_toks *t) {
    for (int i = 0; i < t->n; i++) free(t->tok[i].flag), free(t->tok[i].value);
    free(t->tok);
    t->tok = NULL, t->n = t->cap = 0;
}
