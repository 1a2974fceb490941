/* test_readers.c: the text readers (JODIE csv, TGL edges.csv + .npy, SNAP/KONECT edge
 * lists) and the .npy reader, on hand-made files written to a temporary folder.
 *
 * Good files are checked against hand-computed tables (time sort stability, id
 * remapping, features, labels, CRLF, BOM, comments, fractional timestamps, csv vs
 * whitespace, --columns). Each bad file checks the status code AND that the message
 * names the file, the line and the field, and that the table is left empty. The three
 * shared datasets are checked for their known counts (skipped when absent). */
#include "check.h"
#include "dgnn/binfmt.h"
#include "dgnn/npy.h"
#include "dgnn/readers.h"

#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---- temp files ---------------------------------------------------------- */

static char g_dir[256];
static char g_made[256][320]; /* every file/folder created, removed at the end */
static int g_nmade = 0;

/* Path of name inside the temp folder (rotating static buffers: valid for a while). */
static const char *P(const char *name) {
    static char bufs[16][320];
    static int k = 0;
    char *b = bufs[k++ % 16];
    snprintf(b, sizeof bufs[0], "%s/%s", g_dir, name);
    return b;
}

static void remember(const char *path) {
    for (int i = 0; i < g_nmade; i++)
        if (strcmp(g_made[i], path) == 0) return;
    if (g_nmade < 256) snprintf(g_made[g_nmade++], sizeof g_made[0], "%s", path);
}

/* Writes text (NUL-terminated) to name in the temp folder and returns its path. */
static const char *W(const char *name, const char *text) {
    const char *p = P(name);
    check_write_file(p, text, strlen(text));
    remember(p);
    return p;
}

static const char *MKDIR(const char *name) {
    const char *p = P(name);
    mkdir(p, 0700);
    remember(p);
    return p;
}

static void cleanup(void) {
    for (int i = g_nmade - 1; i >= 0; i--) { /* files before the folders that hold them */
        struct stat st;
        if (stat(g_made[i], &st) == 0 && !S_ISDIR(st.st_mode)) unlink(g_made[i]);
    }
    for (int i = g_nmade - 1; i >= 0; i--) rmdir(g_made[i]);
    rmdir(g_dir);
}

/* ---- .npy files written byte by byte --------------------------------------- */

/* Writes a .npy file: version major (1, 2 or 3), raw header dict text, then `nbytes` of data. */
static const char *write_npy_raw(const char *name, int major, const char *dict, const void *data, size_t nbytes) {
    const char *p = P(name);
    FILE *f = fopen(p, "wb");
    if (!f) { perror(p); exit(2); }
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = pre + dl + 1;
    size_t pad = (64 - total % 64) % 64; /* numpy aligns the data to 64 bytes */
    size_t hlen = dl + pad + 1;
    fputc(0x93, f);
    fputs("NUMPY", f);
    fputc(major, f);
    fputc(0, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)((hlen >> 8) & 0xff), f);
    if (major != 1) {
        fputc((int)((hlen >> 16) & 0xff), f);
        fputc((int)((hlen >> 24) & 0xff), f);
    }
    fputs(dict, f);
    for (size_t i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    const unsigned char *b = data;
    for (size_t i = 0; i < nbytes; i++) fputc(b[i], f); /* little-endian host: bytes as in memory */
    fclose(f);
    remember(p);
    return p;
}

static const char *write_npy_f4(const char *name, int major, const float *v, int64_t rows, int64_t cols, int one_d) {
    char dict[128];
    if (one_d) snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld,), }", (long long)rows);
    else snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld, %lld), }",
                  (long long)rows, (long long)cols);
    return write_npy_raw(name, major, dict, v, (size_t)(rows * cols) * 4);
}

static const char *write_npy_f8(const char *name, int major, const double *v, int64_t rows, int64_t cols, int one_d) {
    char dict[128];
    if (one_d) snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%lld,), }", (long long)rows);
    else snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%lld, %lld), }",
                  (long long)rows, (long long)cols);
    return write_npy_raw(name, major, dict, v, (size_t)(rows * cols) * 8);
}

/* ---- expectations ------------------------------------------------------------ */

/* Records a failure reported at the caller's line. */
static void fail_at(int line, const char *fmt, ...) {
    check_fail_++;
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* A failed read: status `code`, the message names the file (basename), "file:line:"
 * when line > 0, "'field'" when field != NULL, and `also` when != NULL; ev is empty. */
static void bad_(int line, int rc, const dgnn_err *e, const dgnn_events *ev, int code, const char *path, int fline,
                 const char *field, const char *also) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char want[400];
    int ok = 1;
    if (rc != code) {
        fail_at(line, "status %d (%s), expected %d; message: %s", rc, dgnn_status_str(rc), code, e->msg);
        return;
    }
    if (e->code != code) ok = 0, fail_at(line, "err.code %d != %d", e->code, code);
    if (!strstr(e->msg, base)) ok = 0, fail_at(line, "message lacks file name '%s': %s", base, e->msg);
    if (fline > 0) {
        snprintf(want, sizeof want, "%s:%d:", base, fline);
        if (!strstr(e->msg, want)) ok = 0, fail_at(line, "message lacks '%s': %s", want, e->msg);
    }
    if (field) {
        snprintf(want, sizeof want, "field '%s'", field);
        if (!strstr(e->msg, want)) ok = 0, fail_at(line, "message lacks \"%s\": %s", want, e->msg);
    }
    if (also && !strstr(e->msg, also)) ok = 0, fail_at(line, "message lacks \"%s\": %s", also, e->msg);
    if (ev && (ev->num_events != 0 || ev->src != NULL || ev->num_nodes != 0))
        ok = 0, fail_at(line, "table not left empty after an error");
    if (ok) check_pass_++;
}
#define BAD(rc, err, ev, code, path, fline, field, also) bad_(__LINE__, rc, err, ev, code, path, fline, field, also)

static void same_i32_(int line, const int32_t *got, const int32_t *want, int64_t n, const char *what) {
    if (!got) { fail_at(line, "%s: NULL", what); return; }
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) { fail_at(line, "%s[%lld] = %d, expected %d", what, (long long)i, got[i], want[i]); return; }
    check_pass_++;
}
static void same_f32_(int line, const float *got, const float *want, int64_t n, const char *what) {
    if (!got) { fail_at(line, "%s: NULL", what); return; }
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) { fail_at(line, "%s[%lld] = %g, expected %g", what, (long long)i, got[i], want[i]); return; }
    check_pass_++;
}
static void same_f64_(int line, const double *got, const double *want, int64_t n, const char *what) {
    if (!got) { fail_at(line, "%s: NULL", what); return; }
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) { fail_at(line, "%s[%lld] = %.17g, expected %.17g", what, (long long)i, got[i], want[i]); return; }
    check_pass_++;
}
#define SAME_I32(got, ...) do { const int32_t w_[] = {__VA_ARGS__}; same_i32_(__LINE__, got, w_, (int64_t)(sizeof w_ / sizeof w_[0]), #got); } while (0)
#define SAME_F32(got, ...) do { const float w_[] = {__VA_ARGS__}; same_f32_(__LINE__, got, w_, (int64_t)(sizeof w_ / sizeof w_[0]), #got); } while (0)
#define SAME_F64(got, ...) do { const double w_[] = {__VA_ARGS__}; same_f64_(__LINE__, got, w_, (int64_t)(sizeof w_ / sizeof w_[0]), #got); } while (0)

/* ---- JODIE ----------------------------------------------------------------- */

static int jodie(dgnn_events *ev, const char *path, dgnn_err *e) { return dgnn_read_jodie(ev, path, e); }

static void test_jodie_good(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    /* features, labels, unsorted times with a tie (rows 1 and 3 at t=5 keep file order) */
    const char *p = W("j1.csv", "user,item,timestamp,state_label,f1,f2\n"
                                "0,3,5.0,0,0.5,1.5\n"
                                "1,4,2.0,1,2.5,3.5\n"
                                "2,3,5.0,0,4.5,5.5\n"
                                "0,4,1.0,0,6.5,-7.5e1\n");
    int rc = jodie(&ev, p, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 4 && ev.num_nodes == 5 && ev.edge_dim == 2 && ev.bipartite == 1);
    CHECK(ev.node_ids == NULL); /* ids 0..4 already dense */
    CHECK(dgnn_events_dense_id(&ev, 4) == 4 && dgnn_events_dense_id(&ev, 5) == -1 &&
          dgnn_events_dense_id(&ev, -1) == -1); /* the identity, within 0..N-1 */
    CHECK(ev.ext_roll == NULL && ev.nfeat == NULL);
    SAME_I32(ev.src, 0, 1, 0, 2);
    SAME_I32(ev.dst, 4, 4, 3, 3);
    SAME_F64(ev.t, 1.0, 2.0, 5.0, 5.0);
    SAME_I32(ev.label, 0, 1, 0, 0);
    SAME_F32(ev.efeat, 6.5f, -75.0f, 2.5f, 3.5f, 0.5f, 1.5f, 4.5f, 5.5f);
    dgnn_events_free(&ev);

    /* upstream JODIE layout: 5-name header for d=3 features, CRLF, BOM, users and items
     * in separate id spaces (both from 0): items are shifted past the users */
    p = W("j2.csv", "\xEF\xBB\xBFuser_id,item_id,timestamp,state_label,comma_separated_list_of_features\r\n"
                    "0,0,10,0,1,2,3\r\n"
                    "1,0,20,1,4,5,6\r\n"
                    "1,1,30,0,7,8,9\r\n");
    rc = jodie(&ev, p, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 3 && ev.num_nodes == 4 && ev.edge_dim == 3 && ev.bipartite == 1);
    SAME_I32(ev.src, 0, 1, 1);
    SAME_I32(ev.dst, 2, 2, 3);
    SAME_I32(ev.label, 0, 1, 0);
    SAME_F32(ev.efeat, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    dgnn_events_free(&ev);

    /* wikipedia-like: 4 names, 4 columns, no features; sparse ids are remapped in
     * increasing original id; blank lines (also trailing, and with spaces) are skipped */
    p = W("j3.csv", "u,i,ts,label\n20,100,0.5,0\n\n10,100,0.25,1\n  \n20,300,0.75,0\n\n");
    rc = jodie(&ev, p, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 3 && ev.num_nodes == 4 && ev.edge_dim == 0 && ev.efeat == NULL);
    SAME_I32(ev.src, 0, 1, 1);
    SAME_I32(ev.dst, 2, 2, 3);
    SAME_F64(ev.t, 0.25, 0.5, 0.75);
    CHECK(ev.node_ids && ev.node_ids[0] == 10 && ev.node_ids[1] == 20 && ev.node_ids[2] == 100 &&
          ev.node_ids[3] == 300);
    dgnn_events_free(&ev);

    /* a very long line (5,000 features, ~25 KB): no fixed line buffer */
    size_t cap = 64 + 2 * 5000 * 8;
    char *txt = malloc(cap);
    size_t o = (size_t)snprintf(txt, cap, "user,item,timestamp,state_label,features\n0,1,7,0");
    for (int k = 0; k < 5000; k++) o += (size_t)snprintf(txt + o, cap - o, ",%d.5", k);
    o += (size_t)snprintf(txt + o, cap - o, "\n0,1,8,0");
    for (int k = 0; k < 5000; k++) o += (size_t)snprintf(txt + o, cap - o, ",%d", -k);
    snprintf(txt + o, cap - o, "\n");
    p = W("jlong.csv", txt);
    free(txt);
    rc = jodie(&ev, p, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 2 && ev.edge_dim == 5000);
    if (rc == 0) {
        CHECK(ev.efeat[0] == 0.5f && ev.efeat[4999] == 4999.5f && ev.efeat[5000 + 4999] == -4999.0f);
    }
    dgnn_events_free(&ev);
}

static void test_jodie_bad(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    const char *H = "user,item,timestamp,state_label\n";
    char buf[512];
#define JB(name, body, code, line, field, also)                         \
    do {                                                                \
        snprintf(buf, sizeof buf, "%s%s", H, body);                     \
        const char *p_ = W(name, buf);                                  \
        BAD(jodie(&ev, p_, &e), &e, &ev, code, p_, line, field, also);  \
    } while (0)
    JB("jb_missing.csv", "0,1,1,0\n0,1,2\n", DGNN_EFORMAT, 3, NULL, "expected 4 fields");
    JB("jb_extra.csv", "0,1,1,0\n0,1,2,0,9\n", DGNN_EFORMAT, 3, NULL, "got 5");
    JB("jb_user.csv", "0,1,1,0\nabc,1,2,0\n", DGNN_EFORMAT, 3, "user", "'abc'");
    JB("jb_item_neg.csv", "0,-1,1,0\n", DGNN_EFORMAT, 2, "item", "negative");
    JB("jb_user_ovf.csv", "99999999999999999999,1,1,0\n", DGNN_EFORMAT, 2, "user", "overflows int64");
    JB("jb_id_float.csv", "0,1.5,1,0\n", DGNN_EFORMAT, 2, "item", "not an integer");
    JB("jb_empty_field.csv", "0,,1,0\n", DGNN_EFORMAT, 2, "item", "empty field");
    JB("jb_ts_text.csv", "0,1,1,0\n0,1,x1,0\n", DGNN_EFORMAT, 3, "timestamp", "'x1'");
    JB("jb_ts_nan.csv", "0,1,nan,0\n", DGNN_EFORMAT, 2, "timestamp", "NaN");
    JB("jb_ts_inf.csv", "0,1,1,0\n0,1,2,0\n0,1,-inf,0\n", DGNN_EFORMAT, 4, "timestamp", "infinite");
    JB("jb_ts_infinity.csv", "0,1,Infinity,0\n", DGNN_EFORMAT, 2, "timestamp", "infinite");
    JB("jb_ts_ovf.csv", "0,1,1e999,0\n", DGNN_EFORMAT, 2, "timestamp", "overflows");
    JB("jb_ts_trail.csv", "0,1,12abc,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number");
    JB("jb_label.csv", "0,1,1,0.5\n", DGNN_EFORMAT, 2, "state_label", "not an integer");
    JB("jb_label_big.csv", "0,1,1,4294967296\n", DGNN_EFORMAT, 2, "state_label", "out of range");
    /* issue 12: labels are 0 or 1 (JODIE's state_label); -3 and -12345 used to count as positive */
    JB("jb_label_neg.csv", "0,1,1,0\n0,1,2,-3\n", DGNN_EFORMAT, 3, "state_label", "a label is 0 or 1: '-3'");
    JB("jb_label_neg2.csv", "0,1,1,-12345\n", DGNN_EFORMAT, 2, "state_label", "a label is 0 or 1");
    JB("jb_label_two.csv", "0,1,1,2\n", DGNN_EFORMAT, 2, "state_label", "a label is 0 or 1");
    JB("jb_label_float.csv", "0,1,1,1.0\n", DGNN_EFORMAT, 2, "state_label", "not an integer");
    JB("jb_label_empty.csv", "0,1,1,\n", DGNN_EFORMAT, 2, "state_label", "empty field");
    /* issue 12: timestamps that strtod reads but are no decimal number */
    JB("jb_ts_hex.csv", "0,1,0x10,0\n", DGNN_EFORMAT, 2, "timestamp", "hexadecimal numbers are not accepted: write it in decimal: '0x10'");
    JB("jb_ts_hexfloat.csv", "0,1,0x1p3,0\n", DGNN_EFORMAT, 2, "timestamp", "hexadecimal");
    JB("jb_ts_neghex.csv", "0,1,-0X1A,0\n", DGNN_EFORMAT, 2, "timestamp", "hexadecimal");
    JB("jb_ts_nanpay.csv", "0,1,nan(123),0\n", DGNN_EFORMAT, 2, "timestamp", "NaN");
    JB("jb_ts_pinf.csv", "0,1,+INFINITY,0\n", DGNN_EFORMAT, 2, "timestamp", "infinite");
    JB("jb_ts_e.csv", "0,1,1e,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number: '1e'");
    JB("jb_ts_dot.csv", "0,1,.,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number");
    JB("jb_ts_signs.csv", "0,1,--1,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number");
    JB("jb_ts_under.csv", "0,1,1_000,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number");
    JB("jb_ts_space.csv", "0,1,1 2,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number");
    JB("jb_ts_vtab.csv", "0,1,\v5,0\n", DGNN_EFORMAT, 2, "timestamp", "not a number"); /* strtod skips \v */
    JB("jb_ts_empty.csv", "0,1,,0\n", DGNN_EFORMAT, 2, "timestamp", "empty field");
    JB("jb_ts_negovf.csv", "0,1,-1e999,0\n", DGNN_EFORMAT, 2, "timestamp", "overflows");
    JB("jb_ts_huge.csv", "0,1,-1e308,0\n", DGNN_EFORMAT, 2, "timestamp", "above 8.9e307"); /* spans would overflow */
    JB("jb_cr.csv", "0,1,1,0\r0,1,2,0\r", DGNN_EFORMAT, 2, NULL, "carriage return");
    /* ids: hexadecimal, exponent, overflow by one */
    JB("jb_id_hex.csv", "0x10,1,1,0\n", DGNN_EFORMAT, 2, "user", "hexadecimal");
    JB("jb_id_exp.csv", "1e3,1,1,0\n", DGNN_EFORMAT, 2, "user", "not an integer");
    JB("jb_id_ovf1.csv", "0,9223372036854775808,1,0\n", DGNN_EFORMAT, 2, "item", "overflows int64");
    JB("jb_id_nan.csv", "nan,1,1,0\n", DGNN_EFORMAT, 2, "user", "NaN");
    /* issue 12 (UBSan: signed overflow in separate_id_spaces): ids near INT64_MAX used both
     * as a user and an item; shifting the items past the users overflows int64 */
    JB("jb_id_max.csv", "9223372036854775807,9223372036854775807,1,0\n", DGNN_EFORMAT, 0, NULL, "overflows int64");
    JB("jb_id_max2.csv", "9223372036854775807,5,1,0\n5,0,2,0\n", DGNN_EFORMAT, 0, NULL, "overflows int64");
#undef JB
    /* what the grammar accepts: a leading '+', "5." and ".5", exponents, -0 as an id */
    {
        const char *q = W("jg_signs.csv", "u,i,ts,label\n+1,-0,+5.,1\n2,3,.5e+1,0\n");
        int rc = jodie(&ev, q, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        CHECK(rc == 0 && ev.num_events == 2 && ev.t[0] == 5 && ev.t[1] == 5 && ev.label[0] == 1);
        dgnn_events_free(&ev);
    }
    /* features: the feature name and its column */
    const char *p = W("jb_feat_nan.csv", "u,i,ts,label,a,b\n0,1,1,0,1,2\n0,1,2,0,3,NaN\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 3, "f2", "(column 6)");
    p = W("jb_feat_ovf.csv", "u,i,ts,label,a\n0,1,1,0,1e39\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "f1", "float32");
    /* a long bad field is shown truncated */
    p = W("jb_long.csv", "u,i,ts,label\n0,1,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,0\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "timestamp", "...");
    CHECK(strlen(e.msg) < 200 && !strstr(e.msg, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    /* layout errors */
    p = W("jb_empty.csv", "");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 0, NULL, "empty file");
    p = W("jb_header_only.csv", "user,item,timestamp,state_label\n\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 0, NULL, "only a header");
    p = W("jb_no_header.csv", "0,1,1,0\n0,2,2,0\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "not a header");
    p = W("jb_short_header.csv", "user,item,timestamp\n0,1,1,0\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "at least 4");
    p = W("jb_header_mismatch.csv", "u,i,ts,label,a,b\n0,1,1,0,5\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, NULL, "names 6 columns");
    p = W("jb_feat_count.csv", "u,i,ts,label,a,b\n0,1,1,0,5,6\n0,1,1,0,5\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 3, NULL, "2 features");
    /* I/O */
    p = P("does_not_exist.csv");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EIO, p, 0, NULL, "No such file");
    p = MKDIR("a_folder.csv");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EIO, p, 0, NULL, "folder");
    p = W("jb_feat_hex.csv", "u,i,ts,label,a\n0,1,1,0,0x1p3\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "f1", "hexadecimal");
    p = W("jb_feat_inf.csv", "u,i,ts,label,a\n0,1,1,0,-inf\n");
    BAD(jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "f1", "infinite");
}

/* ---- what the file is: kinds of files and encodings (issue 12) --------------- */

/* Writes n raw bytes to name in the temp folder. */
static const char *WB(const char *name, const void *bytes, size_t n) {
    const char *p = P(name);
    check_write_file(p, bytes, n);
    remember(p);
    return p;
}

/* Every text reader (and the .npy and json readers) on path must fail with code and a
 * message naming the file and holding `also`. */
static void all_readers_fail_(int line, const char *path, int code, const char *also) {
    dgnn_events ev;
    dgnn_err e = {0};
    bad_(line, dgnn_read_jodie(&ev, path, &e), &e, &ev, code, path, 0, NULL, also);
    bad_(line, dgnn_read_edgelist(&ev, path, NULL, &e), &e, &ev, code, path, 0, NULL, also);
    bad_(line, dgnn_read_tgl(&ev, path, NULL, NULL, &e), &e, &ev, code, path, 0, NULL, also);
    bad_(line, dgnn_read_pgt(&ev, path, &e), &e, &ev, code, path, 0, NULL, also);
    dgnn_load_opts o = dgnn_load_opts_default();
    bad_(line, dgnn_load(&ev, path, &o, &e), &e, &ev, code, path, 0, NULL, also);
}
#define ALL_FAIL(path, code, also) all_readers_fail_(__LINE__, path, code, also)

static void test_file_kinds(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    /* a FIFO: open() would block until a writer comes; refused at once */
    const char *fifo = P("a_fifo.csv");
    unlink(fifo);
    if (mkfifo(fifo, 0600) == 0) {
        remember(fifo);
        double t0 = dgnn_now();
        ALL_FAIL(fifo, DGNN_EIO, "FIFO");
        float *v = NULL;
        int64_t r, c;
        BAD(dgnn_read_npy(fifo, &v, &r, &c, &e), &e, NULL, DGNN_EIO, fifo, 0, NULL, "FIFO");
        BAD(dgnn_load_binary(&ev, fifo, 1, &e), &e, &ev, DGNN_EIO, fifo, 0, NULL, "FIFO");
        CHECK(dgnn_detect_format(fifo) == DGNN_FMT_AUTO);
        CHECK_MSG(dgnn_now() - t0 < 5, "%.1f s on a FIFO", dgnn_now() - t0);
    } else {
        printf("skip: mkfifo failed\n");
    }
    /* character devices: /dev/zero never ends, /dev/null is empty but no dataset */
    if (access("/dev/zero", R_OK) == 0) {
        ALL_FAIL("/dev/zero", DGNN_EIO, "character device");
        BAD(dgnn_load_binary(&ev, "/dev/zero", 1, &e), &e, &ev, DGNN_EIO, "/dev/zero", 0, NULL, "character device");
    }
    if (access("/dev/null", R_OK) == 0) ALL_FAIL("/dev/null", DGNN_EIO, "character device");
    /* a folder for the json reader */
    BAD(dgnn_read_pgt(&ev, MKDIR("json_folder"), &e), &e, &ev, DGNN_EIO, P("json_folder"), 0, NULL, "folder");
    /* no read permission (root reads anyway: skipped then) */
    if (geteuid() != 0) {
        const char *p = W("noperm.csv", "u,i,ts,label\n0,1,1,0\n");
        chmod(p, 0);
        ALL_FAIL(p, DGNN_EIO, "Permission denied");
        chmod(p, 0600);
    }

    /* UTF-16 / UTF-32, with and without a byte-order mark: "u,i,ts,label\n0,1,1,0\n" encoded */
    const char *ascii = "user,item,timestamp,state_label\n0,1,1,0\n1,2,2,0\n";
    size_t an = strlen(ascii);
    unsigned char enc[512];
    struct { const char *name, *bom; size_t bom_n; int width, be; const char *want; } encs[] = {
        {"u16le_bom.csv", "\xFF\xFE", 2, 2, 0, "UTF-16 text (little-endian, byte-order mark FF FE): convert it to UTF-8"},
        {"u16be_bom.csv", "\xFE\xFF", 2, 2, 1, "UTF-16 text (big-endian"},
        {"u16le.csv", "", 0, 2, 0, "UTF-16 text (little-endian, no byte-order mark)"},
        {"u16be.csv", "", 0, 2, 1, "UTF-16 text (big-endian, no byte-order mark)"},
        {"u32le_bom.csv", "\xFF\xFE\0\0", 4, 4, 0, "UTF-32 text (little-endian, byte-order mark"},
        {"u32le.csv", "", 0, 4, 0, "UTF-32 text (little-endian, no byte-order mark)"},
        {"u32be.csv", "", 0, 4, 1, "UTF-32 text (big-endian, no byte-order mark)"},
    };
    for (size_t k = 0; k < sizeof encs / sizeof encs[0]; k++) {
        size_t o = 0;
        memcpy(enc, encs[k].bom, encs[k].bom_n);
        o = encs[k].bom_n;
        for (size_t i = 0; i < an; i++) {
            for (int b = 0; b < encs[k].width; b++) {
                int pos = encs[k].be ? encs[k].width - 1 - b : b;
                enc[o + (size_t)pos] = b == 0 ? (unsigned char)ascii[i] : 0;
            }
            o += (size_t)encs[k].width;
        }
        const char *p = WB(encs[k].name, enc, o);
        ALL_FAIL(p, DGNN_EFORMAT, encs[k].want);
    }
    /* UTF-8 with a BOM and CRLF is still text */
    {
        const char *p = W("u8bom.csv", "\xEF\xBB\xBFuser,item,timestamp,state_label\r\n0,1,1,0\r\n");
        int rc = dgnn_read_jodie(&ev, p, &e);
        CHECK_MSG(rc == 0 && ev.num_events == 1, "%s", e.msg);
        dgnn_events_free(&ev);
    }
    /* binary files passed as text: each named for what it is */
    {
        unsigned char junk[600];
        uint32_t x = 12345;
        for (size_t i = 0; i < sizeof junk; i++) x = x * 1103515245u + 12345u, junk[i] = (unsigned char)(x >> 24);
        ALL_FAIL(WB("random.bin", junk, sizeof junk), DGNN_EFORMAT, "binary data, not text");
        memset(junk, 0, sizeof junk);
        ALL_FAIL(WB("zeros.bin", junk, sizeof junk), DGNN_EFORMAT, "binary data, not text");
        ALL_FAIL(WB("data.csv.gz", "\x1F\x8B\x08\0\0\0\0\0\0\x03", 10), DGNN_EFORMAT, "gzip-compressed");
        ALL_FAIL(WB("data.zip", "PK\x03\x04\x14\0\0\0", 8), DGNN_EFORMAT, "zip archive");
        ALL_FAIL(WB("data.pkl", "\x80\x04\x95\x10\0\0", 6), DGNN_EFORMAT, "pickle");
        const float f4[2] = {1, 2};
        const char *npy = write_npy_f4("feat_as_text.npy", 1, f4, 2, 1, 1);
        BAD(dgnn_read_edgelist(&ev, npy, NULL, &e), &e, &ev, DGNN_EFORMAT, npy, 0, NULL, ".npy array, not text");
        /* small little-endian int32s (a .dgnn whose magic is damaged) have NULs where UTF-32
         * text has them, but control bytes where it has characters: binary, not UTF-32 */
        int32_t ids[148];
        for (int i = 0; i < 148; i++) ids[i] = (int32_t)(i % 30);
        memcpy(junk, "XXXXXXXX", 8);
        memcpy(junk + 8, ids, sizeof ids);
        ALL_FAIL(WB("ints.bin", junk, 8 + sizeof ids), DGNN_EFORMAT, "binary data, not text");
        /* a .dgnn read as text, e.g. with --format jodie */
        const char *d = WB("table.dgnn", "DGNNDATA\x01\0\0\0\x80\0\0\0", 16);
        BAD(dgnn_read_jodie(&ev, d, &e), &e, &ev, DGNN_EFORMAT, d, 0, NULL, "a dgnn binary file");
    }
    /* a stray NUL byte stays a field error (the file is text) */
    {
        const char *p = WB("one_nul.txt", "1 2 3\n4 5 6\n7 8 \0\n", 18);
        BAD(dgnn_read_edgelist(&ev, p, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 3, "ts", "not a number");
    }
    /* a line longer than the 16 MiB cap: an error naming the file and the line, in bounded memory */
    {
        size_t n = ((size_t)16 << 20) + 100;
        char *big = malloc(n + 64);
        size_t o = (size_t)snprintf(big, 64, "1 2 3\n4 5 6\n");
        memset(big + o, '7', n - o);
        const char *p = WB("long_line.txt", big, n);
        free(big);
        BAD(dgnn_read_edgelist(&ev, p, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 3, NULL, "line longer than 16 MiB");
        memcpy(big = malloc(n), "u,i,ts,label\n0,1,1,0\n", 21);
        memset(big + 21, '7', n - 21);
        p = WB("long_line.csv", big, n);
        free(big);
        BAD(dgnn_read_jodie(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 3, NULL, "line longer than 16 MiB");
        unlink(P("long_line.txt"));
        unlink(p);
    }
    /* empty files */
    ALL_FAIL(W("empty_file.csv", ""), DGNN_EFORMAT, "empty");
}

/* ---- npy ------------------------------------------------------------------- */

static void test_npy(void) {
    dgnn_err e = {0};
    float *v = NULL;
    int64_t r = -1, c = -1;
    const float f4[6] = {1.5f, -2, 3, 4.25f, 5, 6};
    const double f8[3] = {0.1, -1e30, 7};
    const char *p = write_npy_f4("a.npy", 1, f4, 2, 3, 0);
    CHECK_MSG(dgnn_read_npy(p, &v, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 2 && c == 3);
    SAME_F32(v, 1.5f, -2, 3, 4.25f, 5, 6);
    free(v);
    p = write_npy_f8("b.npy", 2, f8, 3, 1, 1);
    CHECK_MSG(dgnn_read_npy(p, &v, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 3 && c == 1);
    SAME_F32(v, (float)0.1, -1e30f, 7);
    free(v);
    p = write_npy_f4("c.npy", 3, f4, 3, 2, 0);
    CHECK_MSG(dgnn_read_npy(p, &v, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 3 && c == 2 && v && v[5] == 6);
    free(v);
    p = write_npy_raw("empty_rows.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", NULL, 0);
    CHECK_MSG(dgnn_read_npy(p, &v, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 0 && c == 4 && v != NULL);
    free(v);
    /* key order and quotes as another writer might put them */
    p = write_npy_raw("keys.npy", 1, "{\"shape\": (2,3), \"fortran_order\": False, \"descr\": \"<f4\"}", f4, 24);
    CHECK_MSG(dgnn_read_npy(p, &v, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 2 && c == 3);
    free(v);

#define NB(path, code, also)                                                              \
    do {                                                                                  \
        v = (float *)1;                                                                   \
        int rc_ = dgnn_read_npy(path, &v, &r, &c, &e);                                    \
        BAD(rc_, &e, NULL, code, path, 0, NULL, also);                                    \
        CHECK(v == NULL);                                                                 \
    } while (0)
    NB(W("nb_text.npy", "hello, this is not numpy\n"), DGNN_EFORMAT, "magic");
    NB(W("nb_short.npy", "\x93NUM"), DGNN_EFORMAT, "magic");
    p = write_npy_raw("nb_v4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f4, 4);
    {   /* patch the major version byte to 4 */
        FILE *f = fopen(p, "r+b");
        fseek(f, 6, SEEK_SET);
        fputc(4, f);
        fclose(f);
    }
    NB(p, DGNN_EVERSION, "version 4.0");
    NB(write_npy_raw("nb_i4.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", f4, 4),
       DGNN_EUNSUPPORTED, "'<i4'");
    NB(write_npy_raw("nb_be.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", f4, 4),
       DGNN_EUNSUPPORTED, "'>f4'");
    NB(write_npy_raw("nb_u1.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", f4, 4),
       DGNN_EUNSUPPORTED, "'|u1'");
    NB(write_npy_raw("nb_fortran.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f4, 24),
       DGNN_EUNSUPPORTED, "Fortran");
    NB(write_npy_raw("nb_3d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", f4, 24),
       DGNN_EFORMAT, "3 dimensions");
    NB(write_npy_raw("nb_scalar.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f4, 4),
       DGNN_EFORMAT, "0 dimensions");
    NB(write_npy_raw("nb_trunc.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4, 20),
       DGNN_EFORMAT, "truncated");
    NB(write_npy_raw("nb_extra.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }", f4, 24),
       DGNN_EFORMAT, "needs 12");
    NB(write_npy_raw("nb_huge.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976, 1024), }",
                     f4, 24),
       DGNN_EFORMAT, "truncated");
    NB(write_npy_raw("nb_dimovf.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                     f4, 4),
       DGNN_EFORMAT, "'shape'");
    NB(write_npy_raw("nb_noshape.npy", 1, "{'descr': '<f4', 'fortran_order': False, }", f4, 4), DGNN_EFORMAT,
       "lacks 'shape'");
    NB(write_npy_raw("nb_nodict.npy", 1, "descr: f4", f4, 4), DGNN_EFORMAT, "not a dict");
    NB(write_npy_raw("nb_badkey.npy", 1, "{'descr': '<f4', 'order': False, 'shape': (1,), }", f4, 4), DGNN_EFORMAT,
       "unknown key 'order'");
    NB(write_npy_raw("nb_unterminated.npy", 1, "{'descr': '<f4", f4, 4), DGNN_EFORMAT, "'descr'");
    {
        float bad[4] = {1, 2, NAN, 4};
        NB(write_npy_f4("nb_nan.npy", 1, bad, 2, 2, 0), DGNN_EFORMAT, "row 1, column 0: NaN");
        double big[2] = {1, 1e300};
        NB(write_npy_f8("nb_f8ovf.npy", 1, big, 2, 1, 1), DGNN_EFORMAT, "overflows float32");
        double inf[2] = {INFINITY, 1};
        NB(write_npy_f8("nb_inf.npy", 1, inf, 1, 2, 0), DGNN_EFORMAT, "infinite");
    }
    { /* header length announced past the end of the file */
        const char *q = P("nb_hdrtrunc.npy");
        check_write_file(q, "\x93NUMPY\x01\x00\xff\x00{'descr'", 18);
        remember(q);
        NB(q, DGNN_EFORMAT, "truncated .npy header");
    }
    NB(P("missing.npy"), DGNN_EIO, "No such file");
#undef NB
}

/* ---- TGL ------------------------------------------------------------------- */

static void test_tgl_good(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    /* a TGL folder: edges.csv (unsorted), edge_features.npy (f4), node_features.npy (f8) */
    MKDIR("tgl1");
    W("tgl1/edges.csv", ",src,dst,time,ext_roll\n"
                        "0,1,3,20.0,0\n"
                        "1,0,4,10.0,0\n"
                        "2,2,3,20.0,1\n"
                        "3,1,4,5.5,2\n");
    const float ef[8] = {10, 11, 20, 21, 30, 31, 40, 41}; /* row i = event i of the file */
    write_npy_f4("tgl1/edge_features.npy", 1, ef, 4, 2, 0);
    double nf[18];
    for (int i = 0; i < 18; i++) nf[i] = i + 0.5;
    write_npy_f8("tgl1/node_features.npy", 1, nf, 6, 3, 0); /* 6 nodes: id 5 has no event */
    int rc = dgnn_read_tgl(&ev, P("tgl1"), NULL, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 4 && ev.num_nodes == 6 && ev.edge_dim == 2 && ev.node_dim == 3);
    SAME_I32(ev.src, 1, 0, 1, 2);
    SAME_I32(ev.dst, 4, 4, 3, 3);
    SAME_F64(ev.t, 5.5, 10, 20, 20);
    SAME_F32(ev.efeat, 40, 41, 20, 21, 10, 11, 30, 31);
    CHECK(ev.ext_roll && ev.ext_roll[0] == 2 && ev.ext_roll[1] == 0 && ev.ext_roll[2] == 0 && ev.ext_roll[3] == 1);
    CHECK(ev.nfeat && ev.nfeat[0] == 0.5f && ev.nfeat[17] == 17.5f);
    CHECK(ev.node_ids == NULL && ev.label == NULL && ev.bipartite == 1);
    dgnn_events_free(&ev);

    /* the csv path itself: the features beside it are found too */
    rc = dgnn_read_tgl(&ev, P("tgl1/edges.csv"), NULL, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 4 && ev.num_nodes == 6 && ev.edge_dim == 2 && ev.node_dim == 3);
    dgnn_events_free(&ev);

    /* explicit feature files: 1-d f8 edge features (v2 header), no node features
     * (N then comes from the ids); header without the index and ext_roll columns, CRLF, BOM */
    const double w[3] = {0.25, 0.5, 0.75};
    const char *efp = write_npy_f8("w.npy", 2, w, 3, 1, 1);
    const char *p = W("plain.csv", "\xEF\xBB\xBFsrc,dst,time\r\n7,9,3\r\n9,7,1.5\r\n7,8,3\r\n");
    rc = dgnn_read_tgl(&ev, p, efp, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 3 && ev.num_nodes == 3 && ev.edge_dim == 1 && ev.node_dim == 0 && ev.ext_roll == NULL);
    SAME_I32(ev.src, 2, 0, 0);
    SAME_I32(ev.dst, 0, 2, 1);
    SAME_F32(ev.efeat, 0.5f, 0.25f, 0.75f);
    CHECK(ev.node_ids && ev.node_ids[0] == 7 && ev.node_ids[2] == 9);
    dgnn_events_free(&ev);

    /* pandas extras: a named index and an int_roll column, in another order */
    p = W("extra.csv", "Unnamed: 0,int_roll,time,dst,src,ext_roll\n0,1,1,1,0,0\n1,0,2,0,1,2\n");
    rc = dgnn_read_tgl(&ev, p, NULL, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 2 && ev.num_nodes == 2 && ev.ext_roll && ev.ext_roll[1] == 2 && ev.bipartite == 0);
    SAME_I32(ev.src, 0, 1);
    dgnn_events_free(&ev);
}

static void test_tgl_bad(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    const char *H = ",src,dst,time,ext_roll\n";
    char buf[512];
#define TB(name, body, code, line, field, also)                                            \
    do {                                                                                   \
        snprintf(buf, sizeof buf, "%s%s", H, body);                                        \
        const char *p_ = W(name, buf);                                                     \
        BAD(dgnn_read_tgl(&ev, p_, NULL, NULL, &e), &e, &ev, code, p_, line, field, also); \
    } while (0)
    TB("tb_missing.csv", "0,1,2,1.0,0\n1,1,2,1.0\n", DGNN_EFORMAT, 3, NULL, "expected 5 fields");
    TB("tb_extra.csv", "0,1,2,1.0,0,7\n", DGNN_EFORMAT, 2, NULL, "got 6");
    TB("tb_src.csv", "0,one,2,1.0,0\n", DGNN_EFORMAT, 2, "src", "'one'");
    TB("tb_dst_neg.csv", "0,1,-2,1.0,0\n", DGNN_EFORMAT, 2, "dst", "negative");
    TB("tb_dst_ovf.csv", "0,1,9223372036854775808,1.0,0\n", DGNN_EFORMAT, 2, "dst", "overflows");
    TB("tb_time_nan.csv", "0,1,2,1.0,0\n1,1,2,nan,0\n", DGNN_EFORMAT, 3, "time", "NaN");
    TB("tb_time_inf.csv", "0,1,2,inf,0\n", DGNN_EFORMAT, 2, "time", "infinite");
    TB("tb_time_ovf.csv", "0,1,2,-1e400,0\n", DGNN_EFORMAT, 2, "time", "overflows");
    TB("tb_roll.csv", "0,1,2,1.0,3\n", DGNN_EFORMAT, 2, "ext_roll", "out of range");
    TB("tb_roll_text.csv", "0,1,2,1.0,train\n", DGNN_EFORMAT, 2, "ext_roll", "'train'");
    TB("tb_header_only.csv", "", DGNN_EFORMAT, 0, NULL, "only a header");
    TB("tb_time_hex.csv", "0,1,2,0x10,0\n", DGNN_EFORMAT, 2, "time", "hexadecimal");
    TB("tb_time_empty.csv", "0,1,2,,0\n", DGNN_EFORMAT, 2, "time", "empty field");
    TB("tb_src_hex.csv", "0,0x1,2,1,0\n", DGNN_EFORMAT, 2, "src", "hexadecimal");
    TB("tb_roll_neg.csv", "0,1,2,1,-1\n", DGNN_EFORMAT, 2, "ext_roll", "out of range");
    TB("tb_roll_float.csv", "0,1,2,1,1.0\n", DGNN_EFORMAT, 2, "ext_roll", "not an integer");
#undef TB
    const char *p = W("tb_empty.csv", "");
    BAD(dgnn_read_tgl(&ev, p, NULL, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 0, NULL, "empty file");
    p = W("tb_nodst.csv", ",src,destination,time\n0,1,2,3\n");
    BAD(dgnn_read_tgl(&ev, p, NULL, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "no 'dst' column");
    p = W("tb_twice.csv", ",src,dst,time,src\n0,1,2,3,4\n");
    BAD(dgnn_read_tgl(&ev, p, NULL, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "twice");
    p = W("tb_noheader.csv", "0,1,2,3.0,0\n");
    BAD(dgnn_read_tgl(&ev, p, NULL, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "not a header");
    p = MKDIR("tgl_empty_folder");
    BAD(dgnn_read_tgl(&ev, p, NULL, NULL, &e), &e, &ev, DGNN_EIO, P("tgl_empty_folder/edges.csv"), 0, NULL,
        "No such file");

    /* feature files that do not fit the csv */
    const float ef[6] = {1, 2, 3, 4, 5, 6};
    const char *three = write_npy_f4("tb_ef3.npy", 1, ef, 3, 2, 0);
    p = W("tb_4ev.csv", ",src,dst,time,ext_roll\n0,0,1,1,0\n1,0,1,2,0\n2,0,1,3,0\n3,0,1,4,0\n");
    BAD(dgnn_read_tgl(&ev, p, three, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 5, NULL, "has only 3 rows");
    p = W("tb_2ev.csv", ",src,dst,time,ext_roll\n0,0,1,1,0\n1,0,1,2,0\n");
    BAD(dgnn_read_tgl(&ev, p, three, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 0, NULL, "tb_ef3.npy has 3 rows");
    const char *nodes2 = write_npy_f4("tb_nf2.npy", 1, ef, 2, 3, 0); /* 2 nodes: ids 0, 1 */
    p = W("tb_idbig.csv", ",src,dst,time,ext_roll\n0,0,1,1,0\n1,1,2,2,0\n");
    BAD(dgnn_read_tgl(&ev, p, NULL, nodes2, &e), &e, &ev, DGNN_EFORMAT, p, 3, "dst", "2 rows of the node features");
    /* fuzz_formats.c: a node file of shape (2000000000, 0), 80 bytes, made a 2-event table
     * of 2e9 nodes with nothing behind them (which dgnn_save_binary then refuses);
     * (40, 0) still declares 40 nodes */
    const char *wide0 = write_npy_raw("tb_nf_n0.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2000000000, 0), }",
                                      NULL, 0);
    p = W("tb_n0.csv", ",src,dst,time,ext_roll\n0,0,1,1,0\n1,1,0,2,0\n");
    BAD(dgnn_read_tgl(&ev, p, NULL, wide0, &e), &e, &ev, DGNN_EFORMAT, wide0, 0, NULL, "2000000000 nodes");
    const char *n40 = write_npy_raw("tb_nf_40.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (40, 0), }",
                                    NULL, 0);
    CHECK_MSG(dgnn_read_tgl(&ev, p, NULL, n40, &e) == 0 && ev.num_nodes == 40 && ev.node_dim == 0, "%s", e.msg);
    dgnn_events_free(&ev);
    /* a bad feature file is reported as such */
    BAD(dgnn_read_tgl(&ev, p, W("tb_bad.npy", "not numpy"), NULL, &e), &e, &ev, DGNN_EFORMAT, P("tb_bad.npy"), 0,
        NULL, "magic");
    BAD(dgnn_read_tgl(&ev, p, P("tb_missing.npy"), NULL, &e), &e, &ev, DGNN_EIO, P("tb_missing.npy"), 0, NULL,
        "No such file");
}

/* ---- edge lists ------------------------------------------------------------- */

static void test_edgelist_good(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    /* SNAP-like: '#' and '%' comments, blank lines, tabs and runs of spaces, sparse ids,
     * fractional and exponent timestamps, unsorted with ties kept in file order */
    const char *p = W("e1.txt", "# Directed graph\n"
                                "% another comment\n"
                                "\n"
                                "100\t200\t12.25\n"
                                "  300   100  1.5e1 \n"
                                "   # indented comment\n"
                                "200 300 12.25\n"
                                "100 300 3\n"
                                "\t\n");
    int rc = dgnn_read_edgelist(&ev, p, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 4 && ev.num_nodes == 3 && ev.edge_dim == 0 && ev.label == NULL && ev.bipartite == 0);
    SAME_I32(ev.src, 0, 0, 1, 2);
    SAME_I32(ev.dst, 2, 1, 2, 0);
    SAME_F64(ev.t, 3, 12.25, 12.25, 15);
    CHECK(ev.node_ids && ev.node_ids[0] == 100 && ev.node_ids[1] == 200 && ev.node_ids[2] == 300);
    dgnn_events_free(&ev);

    /* KONECT: '% sym unweighted' header lines, 4 columns src dst weight ts */
    p = W("out.konect", "% sym unweighted\n% 3 3 3\n1 2 1 1000\n2 3 -1 999\n1 3 2.5 1001\n");
    rc = dgnn_read_edgelist(&ev, p, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 3 && ev.num_nodes == 3 && ev.edge_dim == 1);
    SAME_I32(ev.src, 1, 0, 0);
    SAME_I32(ev.dst, 2, 1, 2);
    SAME_F32(ev.efeat, -1, 1, 2.5f);
    SAME_F64(ev.t, 999, 1000, 1001);
    dgnn_events_free(&ev);

    /* csv with a BOM, CRLF, spaces after commas (bitcoin-alpha layout: SRC,DST,RATING,TIME) */
    p = W("e3.csv", "\xEF\xBB\xBF" "5, 6, 10, 1407470400\r\n6,5,-10,1376539200\r\n");
    rc = dgnn_read_edgelist(&ev, p, NULL, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 2 && ev.num_nodes == 2 && ev.edge_dim == 1);
    SAME_I32(ev.src, 1, 0);
    SAME_F32(ev.efeat, -10, 10);
    SAME_F64(ev.t, 1376539200, 1407470400);
    dgnn_events_free(&ev);

    /* --columns: any order; weight goes first among the features, then the feats */
    p = W("e4.txt", "2.5 1 9 2 7.5 0 -1\n1.5 2 9 1 8.5 1 -2\n");
    rc = dgnn_read_edgelist(&ev, p, "ts, src,skip,dst,feat,label,weight", &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 2 && ev.num_nodes == 2 && ev.edge_dim == 2);
    SAME_I32(ev.src, 1, 0);
    SAME_I32(ev.dst, 0, 1);
    SAME_F64(ev.t, 1.5, 2.5);
    SAME_F32(ev.efeat, -2, 8.5f, -1, 7.5f);
    SAME_I32(ev.label, 1, 0);
    dgnn_events_free(&ev);

    /* a label column with 0/1, a leading '+' on numbers */
    p = W("e_lab.txt", "1 2 +3 1\n2 1 4 0\n");
    rc = dgnn_read_edgelist(&ev, p, "src,dst,ts,label", &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    if (rc == 0) SAME_I32(ev.label, 1, 0);
    dgnn_events_free(&ev);

    /* 2 columns made usable: --columns names a third as ts (5 columns, two feats) */
    p = W("e5.csv", "0,1,3,0.5,0.25\n");
    rc = dgnn_read_edgelist(&ev, p, "src,dst,ts,feat,feat", &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 1 && ev.edge_dim == 2);
    SAME_F32(ev.efeat, 0.5f, 0.25f);
    dgnn_events_free(&ev);
}

static void test_edgelist_bad(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    const char *p;
#define EB(name, body, cols, code, line, field, also)                                      \
    do {                                                                                   \
        p = W(name, body);                                                                 \
        BAD(dgnn_read_edgelist(&ev, p, cols, &e), &e, &ev, code, p, line, field, also);    \
    } while (0)
    EB("eb_2col.txt", "% c\n1 2\n", NULL, DGNN_EFORMAT, 2, NULL, "no timestamp column");
    CHECK(strstr(e.msg, "--columns") != NULL);
    EB("eb_5col.txt", "1 2 3 4 5\n", NULL, DGNN_EFORMAT, 1, NULL, "--columns");
    EB("eb_missing.txt", "1 2 3\n1 2 4\n1 2\n", NULL, DGNN_EFORMAT, 3, NULL, "expected 3 fields (as on line 1), got 2");
    EB("eb_extra.csv", "# h\n1,2,3\n1,2,3,4\n", NULL, DGNN_EFORMAT, 3, NULL, "got 4");
    EB("eb_mixed.csv", "1,2,3\n1 2 3\n", NULL, DGNN_EFORMAT, 2, NULL, "got 1");
    EB("eb_ts.txt", "1 2 3\n1 2 abc\n", NULL, DGNN_EFORMAT, 2, "ts", "(column 3): not a number: 'abc'");
    EB("eb_ts_nan.txt", "1 2 NAN\n", NULL, DGNN_EFORMAT, 1, "ts", "NaN");
    EB("eb_ts_inf.csv", "1,2,1\n1,2,+INF\n", NULL, DGNN_EFORMAT, 2, "ts", "infinite");
    EB("eb_ts_ovf.txt", "1 2 1e309\n", NULL, DGNN_EFORMAT, 1, "ts", "overflows");
    EB("eb_weight.txt", "1 2 nan 5\n", NULL, DGNN_EFORMAT, 1, "weight", "(column 3)");
    EB("eb_src_neg.txt", "-1 2 3\n", NULL, DGNN_EFORMAT, 1, "src", "negative");
    EB("eb_src_ovf.txt", "9223372036854775808 2 3\n", NULL, DGNN_EFORMAT, 1, "src", "overflows int64");
    EB("eb_dst_float.txt", "1 2.0 3\n", NULL, DGNN_EFORMAT, 1, "dst", "not an integer");
    EB("eb_header.txt", "src dst ts\n1 2 3\n", NULL, DGNN_EFORMAT, 1, NULL, "header");
    EB("eb_label.txt", "1 2 3 x\n", "src,dst,ts,label", DGNN_EFORMAT, 1, "label", "'x'");
    EB("eb_feat.txt", "1 2 3 1e40\n", "src,dst,ts,feat", DGNN_EFORMAT, 1, "feat", "float32");
    /* issue 12: a label column holds 0 or 1, like JODIE's state_label */
    EB("eb_label_neg.txt", "1 2 3 0\n1 2 4 -3\n", "src,dst,ts,label", DGNN_EFORMAT, 2, "label", "a label is 0 or 1");
    EB("eb_label_big.txt", "1 2 3 7\n", "src,dst,ts,label", DGNN_EFORMAT, 1, "label", "a label is 0 or 1");
    EB("eb_ts_hex.txt", "1 2 0x10\n", NULL, DGNN_EFORMAT, 1, "ts", "hexadecimal");
    EB("eb_ts_hexp.txt", "1 2 3\n1 2 0x1p3\n", NULL, DGNN_EFORMAT, 2, "ts", "hexadecimal");
    EB("eb_w_hex.txt", "1 2 0xff 3\n", NULL, DGNN_EFORMAT, 1, "weight", "hexadecimal");
    EB("eb_w_inf.csv", "1,2,-Infinity,3\n", NULL, DGNN_EFORMAT, 1, "weight", "infinite");
    EB("eb_w_empty.csv", "1,2,,3\n", NULL, DGNN_EFORMAT, 1, "weight", "empty field");
    EB("eb_ts_trail.txt", "1 2 3s\n", NULL, DGNN_EFORMAT, 1, "ts", "not a number: '3s'");
    EB("eb_id_plusminus.txt", "+-1 2 3\n", NULL, DGNN_EFORMAT, 1, "src", "not an integer");
    EB("eb_colcount.txt", "% x\n1 2 3\n", "src,dst,weight,ts", DGNN_EFORMAT, 2, NULL, "names 4");
    EB("eb_empty.txt", "", NULL, DGNN_EFORMAT, 0, NULL, "empty file");
    EB("eb_comments.txt", "\xEF\xBB\xBF% only\n# comments\n\n  \n", NULL, DGNN_EFORMAT, 0, NULL, "only comments");
    /* a NUL byte inside a field */
    p = P("eb_nul2.txt");
    check_write_file(p, "1 2 3\n1 2 4\0x\n", 14);
    remember(p);
    BAD(dgnn_read_edgelist(&ev, p, NULL, &e), &e, &ev, DGNN_EFORMAT, p, 2, "ts", "not a number: '4?x'");
    /* bad --columns strings */
    EB("eb_role.txt", "1 2 3\n", "src,dst,time", DGNN_EINVAL, 0, NULL, "unknown role 'time'");
    EB("eb_nots.txt", "1 2 3\n", "src,dst,weight", DGNN_EINVAL, 0, NULL, "exactly one 'ts'");
    EB("eb_2src.txt", "1 2 3\n", "src,src,ts", DGNN_EINVAL, 0, NULL, "exactly one 'src'");
    EB("eb_2w.txt", "1 2 3 4\n", "src,dst,weight,weight,ts", DGNN_EINVAL, 0, NULL, "at most one 'weight'");
    EB("eb_emptyrole.txt", "1 2 3\n", "src,,dst,ts", DGNN_EINVAL, 0, NULL, "unknown role ''");
#undef EB
    p = P("missing.txt");
    BAD(dgnn_read_edgelist(&ev, p, NULL, &e), &e, &ev, DGNN_EIO, p, 0, NULL, "No such file");
}

/* ---- dgnn_load's options: each applies to one format, and is refused for the others ---- */

static void test_load_flags(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    const char *jp = W("lf.csv", "user,item,timestamp,state_label\n0,1,1,0\n");
    const char *ep = W("lf.txt", "1 2 3\n");
    const float f4[1] = {1};
    const char *npy = write_npy_f4("lf.npy", 1, f4, 1, 1, 1);
    dgnn_load_opts o = dgnn_load_opts_default();
    o.edge_feat = npy; /* issue 12: --edge-feat was ignored without a word for non-TGL data */
    BAD(dgnn_load(&ev, jp, &o, &e), &e, &ev, DGNN_EINVAL, jp, 0, NULL, "--edge-feat applies to TGL datasets");
    CHECK(strstr(e.msg, "jodie") != NULL);
    o = dgnn_load_opts_default();
    o.node_feat = npy;
    BAD(dgnn_load(&ev, ep, &o, &e), &e, &ev, DGNN_EINVAL, ep, 0, NULL, "--node-feat applies to TGL datasets");
    CHECK_MSG(strstr(e.msg, "this is an edgelist file") != NULL, "%s", e.msg); /* it said "a edgelist" */
    o = dgnn_load_opts_default();
    o.edge_feat = npy;
    BAD(dgnn_load(&ev, jp, &o, &e), &e, &ev, DGNN_EINVAL, jp, 0, NULL, "this is a jodie file");
    o = dgnn_load_opts_default();
    o.columns = "src,dst,ts,label";
    BAD(dgnn_load(&ev, jp, &o, &e), &e, &ev, DGNN_EINVAL, jp, 0, NULL, "--columns applies to edge lists");
    o = dgnn_load_opts_default();
    o.format = (dgnn_format)42;
    BAD(dgnn_load(&ev, jp, &o, &e), &e, &ev, DGNN_EINVAL, jp, 0, NULL, "unknown format");
    o = dgnn_load_opts_default();
    o.bipartite = 2;
    BAD(dgnn_load(&ev, jp, &o, &e), &e, NULL, DGNN_EINVAL, "", 0, NULL, "bipartite must be");
    /* in TGL they apply */
    MKDIR("lf_tgl");
    W("lf_tgl/edges.csv", ",src,dst,time\n0,0,1,1\n");
    o = dgnn_load_opts_default();
    o.edge_feat = npy;
    int rc = dgnn_load(&ev, P("lf_tgl"), &o, &e);
    CHECK_MSG(rc == 0 && ev.edge_dim == 1, "%s", e.msg);
    dgnn_events_free(&ev);
}

/* ---- the shared datasets ---------------------------------------------------- */

static void test_shared(void) {
    char buf[512];
    dgnn_events ev;
    dgnn_err e = {0};
    const char *p = check_data(buf, sizeof buf, "wikipedia/wikipedia.csv");
    if (p) {
        double t0 = dgnn_now();
        int rc = dgnn_read_jodie(&ev, p, &e);
        double dt = dgnn_now() - t0;
        CHECK_MSG(rc == 0, "%s", e.msg);
        CHECK(ev.num_events == 157474 && ev.num_nodes == 9227 && ev.edge_dim == 0 && ev.bipartite == 1);
        CHECK(ev.node_ids == NULL && ev.label != NULL);
        int64_t pos = 0;
        for (int64_t i = 0; i < ev.num_events; i++) pos += ev.label[i] == 1;
        CHECK_MSG(pos == 217, "%lld positive labels", (long long)pos);
        int sorted = 1;
        for (int64_t i = 1; i < ev.num_events; i++) sorted &= ev.t[i - 1] <= ev.t[i];
        CHECK(sorted);
        printf("wikipedia.csv: %lld events read in %.3f s\n", (long long)ev.num_events, dt);
        CHECK_MSG(dt < 5.0, "%.3f s", dt); /* ~0.1 s in Release; loose for sanitizer builds */
        dgnn_events_free(&ev);
    }
    p = check_data(buf, sizeof buf, "collegemsg/CollegeMsg.txt");
    if (p) {
        int rc = dgnn_read_edgelist(&ev, p, NULL, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        CHECK(ev.num_events == 59835 && ev.num_nodes == 1899 && ev.edge_dim == 0);
        CHECK(ev.node_ids && ev.node_ids[0] == 1); /* 1-based ids are remapped */
        dgnn_events_free(&ev);
    }
    p = check_data(buf, sizeof buf, "bitcoin-alpha/soc-sign-bitcoinalpha.csv");
    if (p) {
        int rc = dgnn_read_edgelist(&ev, p, NULL, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        CHECK(ev.num_events == 24186 && ev.num_nodes == 3783 && ev.edge_dim == 1);
        int sorted = 1, in_range = 1;
        for (int64_t i = 0; i < ev.num_events; i++) {
            if (i) sorted &= ev.t[i - 1] <= ev.t[i];
            in_range &= ev.efeat[i] >= -10 && ev.efeat[i] <= 10 && ev.efeat[i] != 0;
        }
        CHECK(sorted && in_range);
        dgnn_events_free(&ev);
    }
}

/* ---- TGL's .pt tensors, TGN/DyGLib ml_ files, TGB edge lists ----------------- */

static void test_tgl_pt(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    MKDIR("tglpt");
    W("tglpt/edges.csv", ",src,dst,time,ext_roll\n0,0,1,1,0\n1,1,2,2,1\n");
    W("tglpt/node_features.pt", "PK\x03\x04 (a torch zip)");
    int rc = dgnn_read_tgl(&ev, P("tglpt"), NULL, NULL, &e);
    BAD(rc, &e, &ev, DGNN_EFORMAT, P("tglpt/node_features.pt"), 0, NULL,
        "numpy.save('node_features.npy', torch.load('node_features.pt').float().numpy())");
    /* the .npy beside it wins: the .pt is then not looked at */
    const float nf[3] = {1, 2, 3};
    write_npy_f4("tglpt/node_features.npy", 1, nf, 3, 1, 0);
    rc = dgnn_read_tgl(&ev, P("tglpt"), NULL, NULL, &e);
    CHECK_MSG(rc == 0 && ev.node_dim == 1, "%s", e.msg);
    dgnn_events_free(&ev);
    W("tglpt/edge_features.pt", "PK");
    BAD(dgnn_read_tgl(&ev, P("tglpt"), NULL, NULL, &e), &e, &ev, DGNN_EFORMAT, P("tglpt/edge_features.pt"), 0, NULL,
        "edge_features.npy");
    /* an explicit --edge-feat is what is read: no refusal */
    const float ef[2] = {5, 6};
    rc = dgnn_read_tgl(&ev, P("tglpt"), write_npy_f4("tglpt_ef.npy", 1, ef, 2, 1, 0), NULL, &e);
    CHECK_MSG(rc == 0 && ev.edge_dim == 1, "%s", e.msg);
    dgnn_events_free(&ev);
}

static void test_dyglib(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    /* TGN's preprocess_data.py on 3 events of 2 users, 1 item: 1-based ids, items after
     * users, idx 1..3, rows out of time order; .npy rows: padding + one per event */
    const char *p = W("ml_tiny.csv", ",u,i,ts,label,idx\n0,1,3,5.0,0.0,1\n1,2,3,2.0,1.0,2\n2,1,3,9.0,0.0,3\n");
    const double ef[8] = {0, 0, 10, 11, 20, 21, 30, 31};
    write_npy_f8("ml_tiny.npy", 1, ef, 4, 2, 0);
    double nf[8];
    for (int i = 0; i < 8; i++) nf[i] = i; /* 4 rows: padding + ids 1..3 */
    write_npy_f8("ml_tiny_node.npy", 1, nf, 4, 2, 0);
    CHECK(dgnn_detect_format(p) == DGNN_FMT_DYGLIB);
    dgnn_load_opts o = dgnn_load_opts_default();
    int rc = dgnn_load(&ev, p, &o, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 3 && ev.num_nodes == 3 && ev.edge_dim == 2 && ev.node_dim == 2 && ev.bipartite == 1);
    CHECK(ev.node_ids && ev.node_ids[0] == 1 && ev.node_ids[1] == 2 && ev.node_ids[2] == 3);
    SAME_I32(ev.src, 1, 0, 0);
    SAME_I32(ev.dst, 2, 2, 2);
    SAME_F64(ev.t, 2, 5, 9);
    SAME_I32(ev.label, 1, 0, 0);
    SAME_F32(ev.efeat, 20, 21, 10, 11, 30, 31); /* event idx k uses row k */
    SAME_F32(ev.nfeat, 2, 3, 4, 5, 6, 7);       /* node id v uses row v */
    /* original -> dense through node_ids: 1, 2, 3 are 0, 1, 2; 0 and 4 are no nodes */
    CHECK(dgnn_events_dense_id(&ev, 1) == 0 && dgnn_events_dense_id(&ev, 3) == 2);
    CHECK(dgnn_events_dense_id(&ev, 0) == -1 && dgnn_events_dense_id(&ev, 4) == -1);
    dgnn_events_free(&ev);

    /* bad: header, row counts, idx out of the rows, label, field count */
    p = W("ml_hdr.csv", ",src,dst,ts,label,idx\n0,1,2,1.0,0.0,1\n");
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "expected 'u'");
    p = W("ml_rows.csv", ",u,i,ts,label,idx\n0,1,3,5.0,0.0,1\n1,2,3,6.0,0.0,2\n");
    write_npy_f8("ml_rows.npy", 1, ef, 2, 2, 0); /* 2 rows for 2 events: the padding row is missing */
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 3, "idx", "ml_rows.npy (2 rows");
    write_npy_f8("ml_rows.npy", 1, ef, 4, 2, 0); /* 4 rows for 2 events */
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, P("ml_rows.npy"), 0, NULL, "expected 3");
    write_npy_f8("ml_rows.npy", 1, ef, 3, 2, 0);
    write_npy_f8("ml_rows_node.npy", 1, nf, 3, 2, 0); /* ids up to 3 need 4 rows */
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "i", "ml_rows_node.npy (3 rows");
    p = W("ml_lab.csv", ",u,i,ts,label,idx\n0,1,2,1.0,2.0,1\n");
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "label", "0 or 1");
    p = W("ml_nf.csv", ",u,i,ts,label,idx\n0,1,2,1.0,0.0\n");
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, NULL, "expected 6 fields");
    /* written without pandas' index: detected and read the same way, not as JODIE */
    p = W("ml_noidx.csv", "u,i,ts,label,idx\n1,2,1.0,0.0,1\n2,1,2.0,0.0,2\n");
    CHECK(dgnn_detect_format(p) == DGNN_FMT_DYGLIB);
    rc = dgnn_load(&ev, p, &o, &e);
    CHECK_MSG(rc == 0 && ev.num_events == 2 && ev.edge_dim == 0 && ev.node_ids && ev.node_ids[0] == 1, "%s", e.msg);
    dgnn_events_free(&ev);
    p = W("ml_noidx_bad.csv", "u,i,ts,label,idx\n1,2,1.0,0.0\n");
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, NULL, "expected 5 fields (u,i,ts,label,idx)");
    p = W("ml_empty.csv", ",u,i,ts,label,idx\n");
    BAD(dgnn_read_dyglib(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 0, NULL, "only a header");
}

static void test_tgb(void) {
    dgnn_events ev;
    dgnn_err e = {0};
    /* the weight layout (tgbl-review / tgbl-coin): names numbered in first appearance,
     * src before dst within a row, in file order (not time order); feature log2(w), 0 -> 1 */
    const char *p = W("tgbl-review_edgelist_v2.csv", "ts,source,target,weight\n"
                                                     "30,b,a,4.0\n20,a,c,0\n40,07,7,8\n");
    CHECK(dgnn_detect_format(p) == DGNN_FMT_TGB);
    dgnn_load_opts o = dgnn_load_opts_default();
    int rc = dgnn_load(&ev, p, &o, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    /* TGB ids: b 0, a 1, c 2, "07" 3, "7" 4 */
    CHECK(ev.num_events == 3 && ev.num_nodes == 5 && ev.edge_dim == 1 && ev.label == NULL);
    CHECK(ev.node_ids == NULL || (ev.node_ids[0] == 0 && ev.node_ids[4] == 4));
    SAME_I32(ev.src, 1, 0, 3);
    SAME_I32(ev.dst, 2, 1, 4);
    SAME_F64(ev.t, 20, 30, 40);
    SAME_F32(ev.efeat, 0, 2, 3);
    dgnn_events_free(&ev);
    /* the same layout found by its header under another name (tgbl-coin's header) */
    p = W("coin.csv", "time,src,dst,weight\n1,0x1,0x2,1.0\n2,0x2,0x1,2.0\n");
    CHECK(dgnn_detect_format(p) == DGNN_FMT_TGB);

    /* the comment layout: 6 header names over 5-field rows (TGB's writer dropped one) */
    p = W("cmt.csv", "ts,src,dst,subreddit,num_words,score\n5,u1,u2,2500,-3\n");
    rc = dgnn_read_tgb(&ev, p, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 1 && ev.num_nodes == 2 && ev.edge_dim == 3);
    SAME_F32(ev.efeat, 0.5f, 0.5f, -3);
    dgnn_events_free(&ev);

    /* the wiki layout (JODIE's header): dst shifted by max(src) + 1 even without overlap,
     * times truncated as numpy's astype(int), the state label kept */
    p = W("tgbl-wiki_edgelist_v2.csv", "user_id,item_id,timestamp,state_label,comma_separated_list_of_features\n"
                                       "0,5,1.75,0,0.5\n2,6,3.0,1,0.25\n");
    CHECK(dgnn_detect_format(p) == DGNN_FMT_TGB);
    rc = dgnn_load(&ev, p, &o, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    CHECK(ev.num_events == 2 && ev.num_nodes == 4 && ev.edge_dim == 1 && ev.label);
    CHECK(ev.node_ids && ev.node_ids[0] == 0 && ev.node_ids[1] == 2 && ev.node_ids[2] == 8 && ev.node_ids[3] == 9);
    SAME_F64(ev.t, 1, 3);
    SAME_I32(ev.label, 0, 1);
    SAME_F32(ev.efeat, 0.5f, 0.25f);
    dgnn_events_free(&ev);

    /* bad input: each names file, line and field */
    p = W("tb1.csv", "ts,src,dst,weight\n1,a,b,1\n1.5,a,b,1\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 3, "time", "not an integer");
    p = W("tb2.csv", "ts,src,dst,weight\n1,a,b,-1\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "weight", "log2");
    p = W("tb3.csv", "ts,src,dst,weight\n1,a,b,1\n2,a,b\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 3, NULL, "expected 4 fields");
    p = W("tb4.csv", "ts,src,dst\n1,a,b\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, NULL, "expected 4 fields");
    p = W("tb5.csv", "1,2,3,1\n2,3,4,1\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "not a header");
    p = W("tb6.csv", "day,src,dst,callsign,typecode\n1,a,b,X,Y\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 1, NULL, "tgbl-flight");
    p = W("tb7.csv", "ts,src,dst,weight\n1,,b,1\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "src", "empty");
    p = W("tb8.csv", "user_id,item_id,timestamp,state_label\n0,x,1,0\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 2, "dst", "'x'");
    p = W("tb9.csv", "ts,src,dst,weight\n");
    BAD(dgnn_read_tgb(&ev, p, &e), &e, &ev, DGNN_EFORMAT, p, 0, NULL, "only a header");
    /* many names: the id table grows past its first size and keeps first-appearance ids */
    {
        size_t cap = 5000 * 24 + 64, n = 0;
        char *big = malloc(cap);
        n += (size_t)snprintf(big + n, cap - n, "ts,src,dst,weight\n");
        for (int i = 0; i < 5000; i++) n += (size_t)snprintf(big + n, cap - n, "%d,n%d,n%d,1\n", i, 4999 - i, i);
        p = W("tbig.csv", big);
        free(big);
        rc = dgnn_read_tgb(&ev, p, &e);
        CHECK_MSG(rc == 0 && ev.num_nodes == 5000, "%s", e.msg);
        /* row i: src "n(4999-i)", dst "n(i)"; first appearance: n4999 0, n0 1, n4998 2, n1 3, ... */
        CHECK(rc == 0 && ev.src[0] == 0 && ev.dst[0] == 1 && ev.src[1] == 2 && ev.dst[1] == 3);
        CHECK(rc == 0 && ev.src[4999] == 1 && ev.dst[4999] == 0); /* n0 and n4999 again */
        dgnn_events_free(&ev);
    }
}

/* The builder's num_nodes_hint (events.h): ids are kept only when every one is in
 * [0, hint); an id equal to the hint does not fit, so the ids are remapped densely. */
static void test_builder_hint(void) {
    dgnn_err e;
    dgnn_builder b;
    dgnn_events ev;
    dgnn_builder_init(&b, 0, 0, 0);
    CHECK(dgnn_builder_push(&b, 0, 2, 1.0, NULL, 0, 0, &e) == DGNN_OK);
    CHECK(dgnn_builder_push(&b, 2, 1, 2.0, NULL, 0, 0, &e) == DGNN_OK);
    dgnn_events_init(&ev);
    CHECK(dgnn_builder_finish(&b, &ev, 3, &e) == DGNN_OK);
    CHECK(ev.num_nodes == 3 && ev.node_ids == NULL && ev.src[1] == 2 && ev.dst[0] == 2); /* kept */
    dgnn_events_free(&ev);
    dgnn_builder_init(&b, 0, 0, 0);
    CHECK(dgnn_builder_push(&b, 0, 3, 1.0, NULL, 0, 0, &e) == DGNN_OK);
    CHECK(dgnn_builder_push(&b, 3, 1, 2.0, NULL, 0, 0, &e) == DGNN_OK);
    dgnn_events_init(&ev);
    CHECK(dgnn_builder_finish(&b, &ev, 3, &e) == DGNN_OK);
    /* ids 0, 1, 3 -> 0, 1, 2 with the mapping kept */
    CHECK_MSG(ev.num_nodes == 3 && ev.dst[0] == 2 && ev.src[1] == 2 && ev.dst[1] == 1, "N %lld, dst[0] %d",
              (long long)ev.num_nodes, ev.num_events ? ev.dst[0] : -1);
    CHECK(ev.node_ids && ev.node_ids[2] == 3 && dgnn_events_dense_id(&ev, 3) == 2);
    dgnn_events_free(&ev);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/dgnn_readers_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_jodie_good();
    test_jodie_bad();
    test_npy();
    test_tgl_good();
    test_tgl_bad();
    test_tgl_pt();
    test_dyglib();
    test_tgb();
    test_edgelist_good();
    test_edgelist_bad();
    test_file_kinds();
    test_load_flags();
    test_shared();
    test_builder_hint();
    cleanup();
    return check_done();
}
