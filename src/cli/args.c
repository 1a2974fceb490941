/* args.c: see args.h. Accepts "--name value" and "--name=value"; "--" ends options. A
 * number outside its option's range is refused here, before the command loads anything. */
#include "args.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const arg_opt *find_opt(const arg_spec *s, const char *name, size_t len) {
    for (const arg_opt *o = s->opts; o && o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
    return NULL;
}

static void fmt_num(char *b, size_t cap, double x, arg_kind kind) {
    if (kind == ARG_INT) snprintf(b, cap, "%.0f", x);
    else snprintf(b, cap, "%g", x);
}

char *args_range_text(char *buf, size_t cap, const arg_opt *o) {
    buf[0] = '\0';
    if (o->bound == ARG_ANY || (o->kind != ARG_INT && o->kind != ARG_DOUBLE)) return buf;
    char a[32], b[32];
    fmt_num(a, sizeof a, o->lo, o->kind);
    fmt_num(b, sizeof b, o->hi, o->kind);
    const int open_lo = o->bound == ARG_OPEN_LO || o->bound == ARG_OPEN;
    const int open_hi = o->bound == ARG_OPEN_HI || o->bound == ARG_OPEN;
    const int has_lo = isfinite(o->lo), has_hi = isfinite(o->hi);
    if (has_lo && !has_hi) snprintf(buf, cap, "%s %s", open_lo ? ">" : ">=", a);
    else if (!has_lo && has_hi) snprintf(buf, cap, "%s %s", open_hi ? "<" : "<=", b);
    else if (o->kind == ARG_INT && !open_lo && !open_hi) snprintf(buf, cap, "%s..%s", a, b);
    else if (has_lo && has_hi) snprintf(buf, cap, "%s%s, %s%s", open_lo ? "(" : "[", a, b, open_hi ? ")" : "]");
    return buf;
}

/* 1 when x lies in o's range (always without one) */
static int in_range(const arg_opt *o, double x) {
    switch (o->bound) {
    case ARG_ANY: return 1;
    case ARG_CLOSED: return x >= o->lo && x <= o->hi;
    case ARG_OPEN_LO: return x > o->lo && x <= o->hi;
    case ARG_OPEN_HI: return x >= o->lo && x < o->hi;
    case ARG_OPEN: return x > o->lo && x < o->hi;
    }
    return 0;
}

static int out_of_range(const arg_spec *s, const arg_opt *o, const char *got) {
    char r[96];
    args_range_text(r, sizeof r, o);
    fprintf(stderr, "dgnn %s: --%s must be %s%s (got %s)\n", s->cmd, o->name, r[0] == '>' || r[0] == '<' ? "" : "in ",
            r, got);
    return -1;
}

void args_print_help(const arg_spec *s) {
    printf("usage: %s\n\n%s\n", s->usage, s->summary);
    if (s->opts && s->opts->name) printf("\noptions:\n");
    for (const arg_opt *o = s->opts; o && o->name; o++) {
        char left[64];
        if (o->kind == ARG_FLAG) snprintf(left, sizeof left, "--%s", o->name);
        else snprintf(left, sizeof left, "--%s %s", o->name, o->metavar ? o->metavar : "X");
        char r[96];
        args_range_text(r, sizeof r, o);
        if (r[0]) printf("  %-26s %s; %s%s\n", left, o->help, r[0] == '>' || r[0] == '<' ? "" : "in ", r);
        else printf("  %-26s %s\n", left, o->help);
    }
    printf("  %-26s %s\n", "--help", "show this help");
}

static int parse_value(const arg_spec *s, const arg_opt *o, const char *v) {
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case ARG_INT: {
        long long x = strtoll(v, &end, 10);
        /* accept 1e6-style and 10M-style counts: users type them for event counts */
        if (end && (*end == 'e' || *end == 'E' || *end == '.')) {
            double d = strtod(v, &end);
            if (*end == '\0' && errno == 0 && d == floor(d) && fabs(d) < 9.2e18) x = (long long)d;
            else end = (char *)v;
        } else if (end && end != v && (*end == 'k' || *end == 'K' || *end == 'M' || *end == 'G') && end[1] == '\0') {
            /* (the suffix tested first: where the number ends the value, end[1] lies past it) */
            long long m = *end == 'G' ? 1000000000LL : *end == 'M' ? 1000000LL : 1000LL;
            if (x > LLONG_MAX / m || x < LLONG_MIN / m) errno = ERANGE; /* 99999999999G */
            else x *= m;
            end++;
        }
        if (end == v || *end != '\0' || errno == ERANGE) {
            fprintf(stderr, "dgnn %s: --%s expects an integer, got '%s'\n", s->cmd, o->name, v);
            return -1;
        }
        if (!in_range(o, (double)x)) {
            char got[32];
            snprintf(got, sizeof got, "%lld", x);
            return out_of_range(s, o, got);
        }
        *(int64_t *)o->dest = x;
        return 0;
    }
    case ARG_DOUBLE: {
        double x = strtod(v, &end);
        if (end == v || *end != '\0' || errno == ERANGE || !isfinite(x)) {
            fprintf(stderr, "dgnn %s: --%s expects a number, got '%s'\n", s->cmd, o->name, v);
            return -1;
        }
        if (!in_range(o, x)) return out_of_range(s, o, v);
        *(double *)o->dest = x;
        return 0;
    }
    case ARG_STRING: *(const char **)o->dest = v; return 0;
    case ARG_FLAG: *(int *)o->dest = 1; return 0;
    }
    return -1;
}

int args_parse(arg_spec *s, int argc, char **argv) {
    s->npos = 0;
    int only_pos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && strcmp(a, "--") == 0) { only_pos = 1; continue; }
        if (!only_pos && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            args_print_help(s);
            return 1;
        }
        if (!only_pos && a[0] == '-' && a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const arg_opt *o = find_opt(s, name, len);
            if (!o) {
                fprintf(stderr, "dgnn %s: unknown option '%.*s' (see dgnn %s --help)\n", s->cmd, (int)len + 2, a, s->cmd);
                return -1;
            }
            if (o->kind == ARG_FLAG) {
                if (eq) {
                    fprintf(stderr, "dgnn %s: --%s takes no value\n", s->cmd, o->name);
                    return -1;
                }
                *(int *)o->dest = 1;
                continue;
            }
            const char *v = eq ? eq + 1 : NULL;
            if (!v) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "dgnn %s: --%s needs a value (%s)\n", s->cmd, o->name, o->metavar ? o->metavar : "X");
                    return -1;
                }
                v = argv[++i];
            }
            if (parse_value(s, o, v) != 0) return -1;
            continue;
        }
        if (!only_pos && a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "dgnn %s: unknown option '%s' (see dgnn %s --help)\n", s->cmd, a, s->cmd);
            return -1;
        }
        if (s->npos >= s->max_pos || s->npos >= 8) {
            fprintf(stderr, "dgnn %s: unexpected argument '%s' (usage: %s)\n", s->cmd, a, s->usage);
            return -1;
        }
        s->pos[s->npos++] = a;
    }
    if (s->npos < s->min_pos) {
        fprintf(stderr, "dgnn %s: missing argument (usage: %s)\n", s->cmd, s->usage);
        return -1;
    }
    return 0;
}

double args_float_json(float x) {
    char num[32];
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(num, sizeof num, "%.*g", digits, (double)x);
        const double d = strtod(num, NULL);
        if ((float)d == x) return d;
    }
    return (double)x; /* NaN and the like (settings never are; %.9g always reads back) */
}

long args_keep(const arg_spec *s, int argc, char **argv, const char *const *drop, char *buf, size_t cap) {
    size_t used = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) break;
        if (a[0] != '-' || a[1] != '-') continue; /* a positional */
        const char *name = a + 2, *eq = strchr(name, '=');
        const size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const arg_opt *o = find_opt(s, name, len);
        if (!o) continue;
        const int takes = o->kind != ARG_FLAG && !eq && i + 1 < argc;
        int dropped = 0;
        for (const char *const *d = drop; d && *d; d++) dropped |= strcmp(*d, o->name) == 0;
        for (int k = 0; k <= takes && !dropped; k++) {
            const size_t n = strlen(argv[i + k]) + 1;
            if (used + n > cap) return -1;
            memcpy(buf + used, argv[i + k], n);
            used += n;
        }
        i += takes;
    }
    return (long)used;
}

const char *args_value(const arg_opt *opts, int argc, char **argv, const char *name) {
    const char *last = NULL;
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strncmp(argv[i], "--", 2) != 0) continue;
        const char *n = argv[i] + 2, *eq = strchr(n, '=');
        const size_t len = eq ? (size_t)(eq - n) : strlen(n);
        for (const arg_opt *o = opts; o->name; o++) {
            if (strlen(o->name) != len || strncmp(o->name, n, len) != 0) continue;
            const int takes = o->kind != ARG_FLAG && !eq; /* its value is the next token */
            if (strcmp(o->name, name) == 0) last = eq ? eq + 1 : takes && i + 1 < argc ? argv[i + 1] : "";
            i += takes;
            break;
        }
    }
    return last;
}

int args_given(const arg_opt *opts, int argc, char **argv, const char *name) {
    return args_value(opts, argc, argv, name) != NULL;
}
