/* textscan.h (private to src/data): the line reader and field parsers shared by the
 * text readers (read_jodie.c, read_tgl.c, read_edgelist.c).
 *
 * Why a shared scanner: every text format needs the same care — lines of any length
 * (getline, no fixed buffer), CRLF endings, a UTF-8 byte-order mark, fields split in
 * place without a malloc per field, numbers parsed with strtoll/strtod and a
 * full-consumption check, and error messages that name file, line and field in one
 * shape: "data.csv:17: field 'ts' (column 3): not a number: 'abc'".
 *
 * Usage:
 *   dgnn_ts_scan s; if ((rc = dgnn_ts_open(&s, path, err))) return rc;
 *   while ((rc = dgnn_ts_next(&s, err)) > 0) {
 *       if (dgnn_ts_blank(&s)) continue;
 *       if ((rc = dgnn_ts_split(&s, ',', err))) break;   // s.nf fields in s.fld[]
 *       ... dgnn_ts_get_id(&s, col, "src", &id, err) ...
 *   }
 *   dgnn_ts_close(&s);
 * dgnn_ts_next returns 1 for a line, 0 at end of file, a negative status on a read error. */
#ifndef DGNN_TEXTSCAN_H
#define DGNN_TEXTSCAN_H

#include "dgnn/base.h"

#include <stdio.h>

/* One field of the current line: s points into the line buffer and is NUL-terminated
 * (the splitter overwrites the delimiter); n is its length (it may hold NUL bytes from
 * a broken file, so n, not strlen, is the truth). */
typedef struct {
    char *s;
    size_t n;
} dgnn_ts_field;

typedef struct {
    FILE *fp;
    const char *path;   /* for messages; not owned */
    char *buf;          /* getline buffer (grows with the longest line) */
    size_t cap;
    char *line;         /* current line without its ending (and without a BOM on line 1) */
    size_t len;
    int64_t lineno;     /* 1-based number of the current line */
    dgnn_ts_field *fld; /* fields of the current line after dgnn_ts_split */
    int64_t nf, fcap;
} dgnn_ts_scan;

/* Opens path for reading. DGNN_EIO (with strerror) if it cannot be opened or is a folder. */
int dgnn_ts_open(dgnn_ts_scan *s, const char *path, dgnn_err *err);
void dgnn_ts_close(dgnn_ts_scan *s);
/* Reads the next line: 1 = got one, 0 = end of file, < 0 = read error (DGNN_EIO/ENOMEM). */
int dgnn_ts_next(dgnn_ts_scan *s, dgnn_err *err);
/* 1 if the current line holds only spaces and tabs (or nothing). */
int dgnn_ts_blank(const dgnn_ts_scan *s);
/* 1 if the first non-blank character of the line is '%' or '#'. */
int dgnn_ts_comment(const dgnn_ts_scan *s);
/* Splits the current line in place. sep = ',' splits at every comma and trims spaces and
 * tabs around each field (so "1, 2" works; an empty field stays empty); sep = ' '
 * splits at runs of spaces and tabs (leading/trailing ones ignored). */
int dgnn_ts_split(dgnn_ts_scan *s, char sep, dgnn_err *err);

/* Field parsers. col is 0-based (messages say column col+1); role is the field's name
 * for messages ("src", "ts", ...). Each returns DGNN_OK or DGNN_EFORMAT with a message. */
/* Non-negative int64 (node id). */
int dgnn_ts_get_id(dgnn_ts_scan *s, int64_t col, const char *role, int64_t *out, dgnn_err *err);
/* int64 in [lo, hi] (labels, ext_roll). */
int dgnn_ts_get_int(dgnn_ts_scan *s, int64_t col, const char *role, int64_t lo, int64_t hi, int64_t *out,
               dgnn_err *err);
/* Finite double (timestamp): rejects nan, inf and overflow. */
int dgnn_ts_get_double(dgnn_ts_scan *s, int64_t col, const char *role, double *out, dgnn_err *err);
/* Finite value representable as float32 (features, weights). */
int dgnn_ts_get_float(dgnn_ts_scan *s, int64_t col, const char *role, float *out, dgnn_err *err);

/* Sets err to "path:line: <message>" and returns code. */
int dgnn_ts_fail(const dgnn_ts_scan *s, dgnn_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Sets err to "path:line: field 'role' (column c): <what>: '<text>'" and returns DGNN_EFORMAT. */
int dgnn_ts_field_fail(const dgnn_ts_scan *s, dgnn_err *err, int64_t col, const char *role, const char *what);

/* Copies up to ~40 bytes of text into out (cap >= 64) for a message, with control bytes
 * shown as '?' and "..." when truncated. Returns out. */
char *dgnn_ts_show(char *out, size_t cap, const char *text, size_t n);

/* 1 if the field parses fully as a number (used to tell a header from data). */
int dgnn_ts_is_number(const dgnn_ts_field *f);

#endif
