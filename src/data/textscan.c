/* textscan.c: line reading, in-place field splitting and strict number parsing for the
 * text readers (see textscan.h for why they share it). */
#include "textscan.h"

#include "dgnn/events.h"
#include "dgnn/infile.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TS_READ = 1 << 18 }; /* read() size: few system calls on multi-GB edge lists */
static int fill(dgnn_ts_scan *s, dgnn_err *err);

int dgnn_ts_open(dgnn_ts_scan *s, const char *path, dgnn_err *err) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->path = path;
    int64_t size;
    int rc = dgnn_in_open(path, &s->fd, &size, err);
    if (rc) return rc;
    s->rbuf = malloc(TS_READ + 1);
    if (!s->rbuf) {
        dgnn_ts_close(s);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    }
    /* the first block: is this text at all? */
    if ((rc = fill(s, err))) {
        dgnn_ts_close(s);
        return rc;
    }
    char what[320];
    if (dgnn_in_sniff((const unsigned char *)s->rbuf, s->rlen, what, sizeof what)) {
        dgnn_ts_close(s);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: %s", path, what);
    }
    return DGNN_OK;
}

void dgnn_ts_close(dgnn_ts_scan *s) {
    if (s->fd >= 0) close(s->fd);
    free(s->rbuf);
    free(s->buf);
    free(s->fld);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* Refills the read buffer (called when it is used up). Sets eof at the end of the file. */
static int fill(dgnn_ts_scan *s, dgnn_err *err) {
    s->rpos = s->rlen = 0;
    for (;;) {
        ssize_t got = read(s->fd, s->rbuf, TS_READ);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            return dgnn_err_set(err, DGNN_EIO, "%s:%lld: read error: %s", s->path, (long long)(s->lineno + 1),
                                strerror(errno));
        if (got == 0) s->eof = 1;
        s->rlen = (size_t)got;
        return DGNN_OK;
    }
}

static int too_long(const dgnn_ts_scan *s, dgnn_err *err) {
    return dgnn_err_set(err, DGNN_EFORMAT,
                        "%s:%lld: line longer than %zu MiB (no line break found): this is not a line-based "
                        "text dataset, or it is damaged",
                        s->path, (long long)(s->lineno + 1), DGNN_TS_MAX_LINE >> 20);
}

int dgnn_ts_next(dgnn_ts_scan *s, dgnn_err *err) {
    size_t len = 0;     /* bytes gathered in s->buf */
    char *line = NULL;  /* the line when it lies in one read block */
    int got_any = 0;
    for (;;) {
        if (s->rpos == s->rlen) {
            if (s->eof) break;
            int rc = fill(s, err);
            if (rc) return rc;
            if (s->eof) break;
        }
        char *a = s->rbuf + s->rpos;
        size_t avail = s->rlen - s->rpos;
        char *nl = memchr(a, '\n', avail);
        size_t take = nl ? (size_t)(nl - a) : avail;
        got_any = 1;
        if (len + take > DGNN_TS_MAX_LINE) return too_long(s, err);
        s->rpos += take + (nl != NULL);
        if (nl && len == 0) { /* the common case: the whole line in the block, no copy */
            line = a;
            len = take;
            break;
        }
        if (len + take + 1 > s->cap) {
            size_t cap = s->cap ? s->cap : 4096;
            while (cap < len + take + 1) cap *= 2;
            char *q = realloc(s->buf, cap);
            if (!q)
                return dgnn_err_set(err, DGNN_ENOMEM, "%s:%lld: out of memory reading a line", s->path,
                                    (long long)(s->lineno + 1));
            s->buf = q;
            s->cap = cap;
        }
        memcpy(s->buf + len, a, take);
        len += take;
        if (nl) break;
    }
    if (!got_any) return 0;
    if (!line) line = s->buf;
    s->lineno++;
    if (len > 0 && line[len - 1] == '\r') len--; /* CRLF (Windows) endings */
    if (memchr(line, '\r', len))
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "%s:%lld: a carriage return (\\r) inside the line: lines end with LF or CRLF; a file "
                            "with old Mac (CR-only) line endings can be converted with tr '\\r' '\\n'",
                            s->path, (long long)s->lineno);
    line[len] = '\0'; /* the '\n' in the block, or room kept in buf (rbuf has one spare byte) */
    s->line = line;
    if (s->lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
        s->line += 3; /* UTF-8 byte-order mark, as written by Excel and some editors */
        len -= 3;
    }
    s->len = len;
    s->nf = 0;
    return 1;
}

static int is_blank_char(char c) { return c == ' ' || c == '\t'; }

int dgnn_ts_blank(const dgnn_ts_scan *s) {
    for (size_t i = 0; i < s->len; i++)
        if (!is_blank_char(s->line[i])) return 0;
    return 1;
}

int dgnn_ts_comment(const dgnn_ts_scan *s) {
    size_t i = 0;
    while (i < s->len && is_blank_char(s->line[i])) i++;
    return i < s->len && (s->line[i] == '%' || s->line[i] == '#');
}

static int add_field(dgnn_ts_scan *s, char *start, size_t n, dgnn_err *err) {
    if (s->nf == s->fcap) {
        int64_t cap = s->fcap ? 2 * s->fcap : 16;
        dgnn_ts_field *q = realloc(s->fld, (size_t)cap * sizeof *q);
        if (!q) return dgnn_ts_fail(s, err, DGNN_ENOMEM, "out of memory splitting %lld fields", (long long)cap);
        s->fld = q;
        s->fcap = cap;
    }
    start[n] = '\0'; /* the byte after a field is its delimiter or the line's NUL */
    s->fld[s->nf].s = start;
    s->fld[s->nf].n = n;
    s->nf++;
    return DGNN_OK;
}

int dgnn_ts_split(dgnn_ts_scan *s, char sep, dgnn_err *err) {
    char *p = s->line, *end = s->line + s->len;
    s->nf = 0;
    if (sep == ',') {
        for (;;) {
            char *c = memchr(p, ',', (size_t)(end - p));
            char *fe = c ? c : end;
            char *fs = p;
            while (fs < fe && is_blank_char(*fs)) fs++;
            char *te = fe;
            while (te > fs && is_blank_char(te[-1])) te--;
            int rc = add_field(s, fs, (size_t)(te - fs), err);
            if (rc) return rc;
            if (!c) break;
            p = c + 1;
        }
    } else {
        for (;;) {
            while (p < end && is_blank_char(*p)) p++;
            if (p == end) break;
            char *fs = p;
            while (p < end && !is_blank_char(*p)) p++;
            int rc = add_field(s, fs, (size_t)(p - fs), err);
            if (rc) return rc;
            if (p < end) p++; /* past the separator that add_field overwrote */
        }
    }
    return DGNN_OK;
}

/* ---- messages ------------------------------------------------------------ */

char *dgnn_ts_show(char *out, size_t cap, const char *text, size_t n) {
    enum { SHOW = 40 };
    size_t k = n < SHOW ? n : SHOW;
    /* do not cut a UTF-8 sequence in half: back off over continuation bytes */
    if (k < n)
        while (k > 0 && ((unsigned char)text[k] & 0xC0) == 0x80) k--;
    if (k + 4 > cap) k = cap > 4 ? cap - 4 : 0;
    size_t o = 0;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)text[i];
        out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (k < n && o + 3 < cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

int dgnn_ts_fail(const dgnn_ts_scan *s, dgnn_err *err, int code, const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return dgnn_err_set(err, code, "%s:%lld: %s", s->path, (long long)s->lineno, what);
}

int dgnn_ts_field_fail(const dgnn_ts_scan *s, dgnn_err *err, int64_t col, const char *role, const char *what) {
    char shown[64];
    const dgnn_ts_field *f = col < s->nf ? &s->fld[col] : NULL;
    dgnn_ts_show(shown, sizeof shown, f ? f->s : "", f ? f->n : 0);
    return dgnn_err_set(err, DGNN_EFORMAT, "%s:%lld: field '%s' (column %lld): %s: '%s'", s->path,
                        (long long)s->lineno, role, (long long)(col + 1), what, shown);
}

/* ---- numbers ------------------------------------------------------------- */

/* The grammar of textscan.h, on the field's n bytes (which may hold NUL bytes). */
enum { NUM_NONE = 0, NUM_INT, NUM_DEC };

static int scan_digits(const char *s, size_t n, size_t *i) {
    size_t a = *i;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9') (*i)++;
    return *i > a;
}

/* NUM_INT for [+-]?[0-9]+, NUM_DEC for any other decimal number, NUM_NONE otherwise. */
static int classify(const char *s, size_t n) {
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    int lead = scan_digits(s, n, &i), frac = 0, dot = 0;
    if (i < n && s[i] == '.') {
        dot = 1;
        i++;
        frac = scan_digits(s, n, &i);
    }
    if (!lead && !frac) return NUM_NONE;
    int expo = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (!scan_digits(s, n, &i)) return NUM_NONE;
        expo = 1;
    }
    if (i != n) return NUM_NONE;
    return dot || expo ? NUM_DEC : NUM_INT;
}

static int ieq(const char *s, size_t n, const char *w) {
    size_t k = strlen(w);
    if (n != k) return 0;
    for (size_t i = 0; i < k; i++)
        if ((s[i] | 0x20) != w[i]) return 0;
    return 1;
}

/* Why a field that is not in the grammar is refused: the specific cases first. */
static const char *why_not_number(const char *s, size_t n, const char *generic) {
    size_t i = (n > 0 && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    const char *b = s + i;
    size_t m = n - i;
    if (ieq(b, m, "nan") || (m >= 4 && ieq(b, 4, "nan(") && b[m - 1] == ')')) return "NaN is not allowed";
    if (ieq(b, m, "inf") || ieq(b, m, "infinity")) return "infinite value is not allowed";
    if (m >= 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X'))
        return "hexadecimal numbers are not accepted: write it in decimal";
    return generic;
}

/* The fast path of both parsers: after an optional sign, the field starts with a digit
 * (or '.'), and is not "0x...". Then a conversion that consumed the whole field read the
 * grammar above: strtoll/strtod accept nothing else that starts so (their other forms,
 * leading white space, hexadecimal, inf and nan, start otherwise). */
static int plain_start(const char *s, size_t n, int dot_ok) {
    size_t i = (n > 0 && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    if (i >= n) return 0;
    char c = s[i];
    if (!((c >= '0' && c <= '9') || (dot_ok && c == '.'))) return 0;
    return !(c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X'));
}

static int parse_i64(dgnn_ts_scan *s, int64_t col, const char *role, int64_t *out, dgnn_err *err) {
    DGNN_ASSERT(col >= 0 && col < s->nf);
    const dgnn_ts_field *f = &s->fld[col];
    if (f->n == 0) return dgnn_ts_field_fail(s, err, col, role, "empty field");
    char *end;
    errno = 0;
    long long v = strtoll(f->s, &end, 10);
    if (end != f->s + f->n || !plain_start(f->s, f->n, 0)) {
        int k = classify(f->s, f->n);
        return dgnn_ts_field_fail(s, err, col, role,
                                  k == NUM_DEC ? "not an integer" : why_not_number(f->s, f->n, "not an integer"));
    }
    if (errno == ERANGE) return dgnn_ts_field_fail(s, err, col, role, "integer out of range (overflows int64)");
    *out = (int64_t)v;
    return DGNN_OK;
}

int dgnn_ts_get_id(dgnn_ts_scan *s, int64_t col, const char *role, int64_t *out, dgnn_err *err) {
    int rc = parse_i64(s, col, role, out, err);
    if (rc) return rc;
    if (*out < 0) return dgnn_ts_field_fail(s, err, col, role, "negative node id");
    return DGNN_OK;
}

int dgnn_ts_get_int(dgnn_ts_scan *s, int64_t col, const char *role, int64_t lo, int64_t hi, int64_t *out,
                    dgnn_err *err) {
    int rc = parse_i64(s, col, role, out, err);
    if (rc) return rc;
    if (*out < lo || *out > hi) {
        char what[96];
        snprintf(what, sizeof what, "value out of range [%lld, %lld]", (long long)lo, (long long)hi);
        return dgnn_ts_field_fail(s, err, col, role, what);
    }
    return DGNN_OK;
}

int dgnn_ts_get_label(dgnn_ts_scan *s, int64_t col, const char *role, int32_t *out, dgnn_err *err) {
    int64_t v = 0;
    int rc = parse_i64(s, col, role, &v, err);
    if (rc) return rc;
    if (v != 0 && v != 1)
        return dgnn_ts_field_fail(s, err, col, role, "label out of range: a label is 0 or 1");
    *out = (int32_t)v;
    return DGNN_OK;
}

int dgnn_ts_get_double(dgnn_ts_scan *s, int64_t col, const char *role, double *out, dgnn_err *err) {
    DGNN_ASSERT(col >= 0 && col < s->nf);
    const dgnn_ts_field *f = &s->fld[col];
    if (f->n == 0) return dgnn_ts_field_fail(s, err, col, role, "empty field");
    char *end;
    errno = 0;
    double v = strtod(f->s, &end);
    if ((end != f->s + f->n || !plain_start(f->s, f->n, 1)) && classify(f->s, f->n) == NUM_NONE)
        return dgnn_ts_field_fail(s, err, col, role, why_not_number(f->s, f->n, "not a number"));
    if (end != f->s + f->n) /* only under a locale whose decimal point is not '.' */
        return dgnn_ts_field_fail(s, err, col, role, "not a number (is LC_NUMERIC set to a locale without '.'?)");
    if (isinf(v)) return dgnn_ts_field_fail(s, err, col, role, "number out of range (overflows a double)");
    /* beyond DBL_MAX / 2 the difference of two values (a time span, an inter-event time)
     * overflows to inf, which every trainer and the snapshot cutter would take */
    if (fabs(v) > DBL_MAX / 2)
        return dgnn_ts_field_fail(s, err, col, role, "number out of range (above 8.9e307, half the double range)");
    *out = v; /* ERANGE with a finite result is underflow to ~0: harmless */
    return DGNN_OK;
}

int dgnn_ts_get_float(dgnn_ts_scan *s, int64_t col, const char *role, float *out, dgnn_err *err) {
    double v = 0;
    int rc = dgnn_ts_get_double(s, col, role, &v, err);
    if (rc) return rc;
    /* refused when it rounds to inf: 3.4028235e+38, numpy's text for float32's maximum, is
     * above FLT_MAX as a double but rounds to it */
    const float x = (float)v;
    if (isinf(x)) return dgnn_ts_field_fail(s, err, col, role, "number out of range (overflows float32)");
    *out = x;
    return DGNN_OK;
}

int dgnn_ts_get_features(dgnn_ts_scan *s, int64_t col, int64_t d, float *out, dgnn_err *err) {
    for (int64_t k = 0; k < d; k++) {
        if (dgnn_ts_get_float(s, col + k, "f", &out[k], err)) {
            /* name the feature only on the error path: no snprintf per field */
            char role[32];
            snprintf(role, sizeof role, "f%lld", (long long)(k + 1));
            return dgnn_ts_get_float(s, col + k, role, &out[k], err);
        }
    }
    return DGNN_OK;
}

int dgnn_ts_feature_buffer(const dgnn_ts_scan *s, int64_t d, float **out, dgnn_err *err) {
    *out = NULL;
    if (d > DGNN_MAX_DIM)
        return dgnn_ts_fail(s, err, DGNN_EFORMAT, "%lld features: at most %lld are supported", (long long)d,
                            (long long)DGNN_MAX_DIM);
    *out = malloc((size_t)(d > 0 ? d : 1) * sizeof(float));
    if (!*out) return dgnn_ts_fail(s, err, DGNN_ENOMEM, "out of memory for %lld features", (long long)d);
    return DGNN_OK;
}

int dgnn_ts_is_number(const dgnn_ts_field *f) { return classify(f->s, f->n) != NUM_NONE; }
