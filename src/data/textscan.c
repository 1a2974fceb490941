/* textscan.c: line reading, in-place field splitting and strict number parsing for the
 * text readers (see textscan.h for why they share it). */
#include "textscan.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int dgnn_ts_open(dgnn_ts_scan *s, const char *path, dgnn_err *err) {
    memset(s, 0, sizeof *s);
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no input path given");
    s->path = path;
    s->fp = fopen(path, "rb");
    if (!s->fp) return dgnn_err_set(err, DGNN_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(s->fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(s->fp);
        s->fp = NULL;
        return dgnn_err_set(err, DGNN_EIO, "%s: is a folder, expected a file", path);
    }
    /* a larger stdio buffer: fewer read() calls on multi-GB edge lists */
    setvbuf(s->fp, NULL, _IOFBF, 1 << 18);
    return DGNN_OK;
}

void dgnn_ts_close(dgnn_ts_scan *s) {
    if (s->fp) fclose(s->fp);
    free(s->buf);
    free(s->fld);
    memset(s, 0, sizeof *s);
}

int dgnn_ts_next(dgnn_ts_scan *s, dgnn_err *err) {
    errno = 0;
    ssize_t n = getline(&s->buf, &s->cap, s->fp);
    if (n < 0) {
        if (errno == ENOMEM) return dgnn_err_set(err, DGNN_ENOMEM, "%s:%lld: out of memory reading a line",
                                                 s->path, (long long)(s->lineno + 1));
        if (ferror(s->fp))
            return dgnn_err_set(err, DGNN_EIO, "%s:%lld: read error: %s", s->path, (long long)(s->lineno + 1),
                                strerror(errno ? errno : EIO));
        return 0;
    }
    s->lineno++;
    size_t len = (size_t)n;
    if (len > 0 && s->buf[len - 1] == '\n') len--;
    if (len > 0 && s->buf[len - 1] == '\r') len--; /* CRLF (Windows) endings */
    s->buf[len] = '\0';
    s->line = s->buf;
    if (s->lineno == 1 && len >= 3 && memcmp(s->buf, "\xEF\xBB\xBF", 3) == 0) {
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

static int parse_i64(dgnn_ts_scan *s, int64_t col, const char *role, int64_t *out, dgnn_err *err) {
    DGNN_ASSERT(col >= 0 && col < s->nf);
    const dgnn_ts_field *f = &s->fld[col];
    if (f->n == 0) return dgnn_ts_field_fail(s, err, col, role, "empty field");
    char *end;
    errno = 0;
    long long v = strtoll(f->s, &end, 10);
    if (end != f->s + f->n || end == f->s) return dgnn_ts_field_fail(s, err, col, role, "not an integer");
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

int dgnn_ts_get_double(dgnn_ts_scan *s, int64_t col, const char *role, double *out, dgnn_err *err) {
    DGNN_ASSERT(col >= 0 && col < s->nf);
    const dgnn_ts_field *f = &s->fld[col];
    if (f->n == 0) return dgnn_ts_field_fail(s, err, col, role, "empty field");
    char *end;
    errno = 0;
    double v = strtod(f->s, &end);
    if (end != f->s + f->n || end == f->s) return dgnn_ts_field_fail(s, err, col, role, "not a number");
    if (isnan(v)) return dgnn_ts_field_fail(s, err, col, role, "NaN is not allowed");
    if (isinf(v))
        return dgnn_ts_field_fail(s, err, col, role,
                                  errno == ERANGE ? "number out of range (overflows a double)"
                                                  : "infinite value is not allowed");
    *out = v; /* ERANGE with a finite result is underflow to ~0: harmless */
    return DGNN_OK;
}

int dgnn_ts_get_float(dgnn_ts_scan *s, int64_t col, const char *role, float *out, dgnn_err *err) {
    double v = 0;
    int rc = dgnn_ts_get_double(s, col, role, &v, err);
    if (rc) return rc;
    if (fabs(v) > FLT_MAX) return dgnn_ts_field_fail(s, err, col, role, "number out of range (overflows float32)");
    *out = (float)v;
    return DGNN_OK;
}

int dgnn_ts_is_number(const dgnn_ts_field *f) {
    if (f->n == 0) return 0;
    char *end;
    double v = strtod(f->s, &end);
    (void)v;
    return end == f->s + f->n;
}
