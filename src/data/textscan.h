/* textscan.h (private to src/data): the line reader and field parsers shared by the
 * text readers (read_jodie.c, read_tgb.c, read_tgl.c, read_dyglib.c, read_edgelist.c).
 *
 * Why a shared scanner: every text format needs the same care: regular files only
 * (a FIFO or /dev/zero is refused at open, see infile.h), a first block that is checked
 * to be UTF-8 text (UTF-16, compressed or binary files are named as such), lines of any
 * length up to DGNN_TS_MAX_LINE (longer is an error naming the line, so that a file
 * without line breaks cannot take all memory), CRLF endings, a UTF-8 byte-order mark,
 * fields split in place without a malloc per field, numbers checked against one
 * decimal grammar before strtoll/strtod convert them, and error messages that name
 * file, line and field in one shape:
 *   "data.csv:17: field 'ts' (column 3): not a number: 'abc'".
 *
 * The number grammar is what Python's int() and float() read, less inf/nan (never a
 * meaningful timestamp, id or feature) and digit-group underscores:
 *   integer  [+-]? [0-9]+
 *   decimal  [+-]? ([0-9]+ (. [0-9]*)? | . [0-9]+) ([eE] [+-]? [0-9]+)?
 * so hexadecimal ("0x10", "0x1p3", which strtod would take), "inf", "nan", "1,5",
 * "1e", "--1" and trailing junk are refused, each with its own message.
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

#include <stddef.h>

/* The longest line a text reader takes: 16 MiB (a JODIE row of 172 features is ~2 KB;
 * one of a million features ~10 MB). Longer is an error naming the file and line. */
#define DGNN_TS_MAX_LINE ((size_t)16 << 20)

/* One field of the current line: s points into the line buffer and is NUL-terminated
 * (the splitter overwrites the delimiter); n is its length (it may hold NUL bytes from
 * a broken file, so n, not strlen, is the truth). */
typedef struct {
    char *s;
    size_t n;
} dgnn_ts_field;

typedef struct {
    int fd;             /* -1 when closed */
    const char *path;   /* for messages; not owned */
    char *rbuf;         /* read buffer (256 KiB) */
    size_t rpos, rlen;  /* unread bytes are rbuf[rpos, rlen) */
    int eof;
    char *buf;          /* a line that spans two reads is gathered here */
    size_t cap;
    char *line;         /* current line without its ending (and without a BOM on line 1) */
    size_t len;
    int64_t lineno;     /* 1-based number of the current line */
    dgnn_ts_field *fld; /* fields of the current line after dgnn_ts_split */
    int64_t nf, fcap;
} dgnn_ts_scan;

/* Opens path for reading. DGNN_EIO (with strerror) if it cannot be opened or is not a
 * regular file; DGNN_EFORMAT when its first bytes are not UTF-8 text (dgnn_in_sniff). */
int dgnn_ts_open(dgnn_ts_scan *s, const char *path, dgnn_err *err);
void dgnn_ts_close(dgnn_ts_scan *s);
/* Reads the next line: 1 = got one, 0 = end of file, < 0 = read error (DGNN_EIO/ENOMEM)
 * or a line longer than DGNN_TS_MAX_LINE (DGNN_EFORMAT). */
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
/* int64 in [lo, hi] (ext_roll). */
int dgnn_ts_get_int(dgnn_ts_scan *s, int64_t col, const char *role, int64_t lo, int64_t hi, int64_t *out,
               dgnn_err *err);
/* An event label: 0 or 1 (JODIE's state_label; what every label consumer counts). */
int dgnn_ts_get_label(dgnn_ts_scan *s, int64_t col, const char *role, int32_t *out, dgnn_err *err);
/* Finite double (timestamp) of magnitude at most DBL_MAX / 2, so that the difference of
 * two is finite: rejects nan, inf, hexadecimal and overflow. */
int dgnn_ts_get_double(dgnn_ts_scan *s, int64_t col, const char *role, double *out, dgnn_err *err);
/* Finite value representable as float32 (features, weights). */
int dgnn_ts_get_float(dgnn_ts_scan *s, int64_t col, const char *role, float *out, dgnn_err *err);

/* The feature columns of a JODIE-style row (read_jodie.c, read_tgb.c's wiki layout):
 * d floats from columns col .. col + d - 1 into out, named f1 .. fd in messages. */
int dgnn_ts_get_features(dgnn_ts_scan *s, int64_t col, int64_t d, float *out, dgnn_err *err);
/* A malloc'd buffer for one row's d features (at least one float; the caller frees it):
 * DGNN_EFORMAT naming the current line when d > DGNN_MAX_DIM, DGNN_ENOMEM if out of memory. */
int dgnn_ts_feature_buffer(const dgnn_ts_scan *s, int64_t d, float **out, dgnn_err *err);

/* Sets err to "path:line: <message>" and returns code. */
int dgnn_ts_fail(const dgnn_ts_scan *s, dgnn_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Sets err to "path:line: field 'role' (column c): <what>: '<text>'" and returns DGNN_EFORMAT. */
int dgnn_ts_field_fail(const dgnn_ts_scan *s, dgnn_err *err, int64_t col, const char *role, const char *what);

/* Copies up to ~40 bytes of text into out (cap >= 64) for a message, with control bytes
 * shown as '?' and "..." when truncated. Returns out. */
char *dgnn_ts_show(char *out, size_t cap, const char *text, size_t n);

/* 1 if the field is a number in the grammar above (used to tell a header from data). */
int dgnn_ts_is_number(const dgnn_ts_field *f);

#endif
