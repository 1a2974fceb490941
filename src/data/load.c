/* load.c: the one entry point commands use to read a dataset, whatever its format.
 * Detection order: a folder is a TGL dataset; the .dgnn magic; a '{' (json) is PyG-T;
 * the TGN/DyGLib header ",u,i,ts,label,idx" (or without the index); a TGB edge list (a file named
 * tgbl-*_edgelist*.csv, or a header "ts|time|day|timestamp, src|source, dst|target, ...");
 * a TGL header (",src,dst,time..."); a header line whose first field is not a number
 * is JODIE; anything else is an edge list. --format overrides all of it. */
#include "dgnn/binfmt.h"
#include "dgnn/readers.h"
#include "dgnn/infile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

dgnn_load_opts dgnn_load_opts_default(void) {
    dgnn_load_opts o;
    memset(&o, 0, sizeof o);
    o.format = DGNN_FMT_AUTO;
    o.bipartite = -1;
    return o;
}

const char *dgnn_format_name(dgnn_format f) {
    switch (f) {
    case DGNN_FMT_JODIE: return "jodie";
    case DGNN_FMT_TGL: return "tgl";
    case DGNN_FMT_EDGELIST: return "edgelist";
    case DGNN_FMT_PGT: return "pgt";
    case DGNN_FMT_BINARY: return "dgnn";
    case DGNN_FMT_DYGLIB: return "dyglib";
    case DGNN_FMT_TGB: return "tgb";
    default: return "auto";
    }
}

/* Reads the first line (up to cap-1 bytes) after a UTF-8 BOM and leading comment lines
 * of an edge list; returns the number of bytes read (0 on failure). */
static size_t first_line(FILE *f, char *buf, size_t cap) {
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    if (n >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF)
        memmove(buf, buf + 3, n - 2), n -= 3;
    /* blank lines before it (the readers skip them too) */
    size_t lead = strspn(buf, "\r\n");
    if (lead) memmove(buf, buf + lead, n - lead + 1), n -= lead;
    char *nl = strpbrk(buf, "\r\n");
    if (nl) *nl = '\0';
    return n;
}

/* 1 if the comma-separated header line p names the columns in names (NULL-terminated;
 * each entry is '|'-separated alternatives, "" an empty name) in order; with exact, the
 * line must have no more columns. Names compare without case and surrounding spaces. */
static int header_is(const char *p, const char *const *names, int exact) {
    for (int k = 0; names[k]; k++) {
        if (k > 0) {
            if (*p != ',') return 0;
            p++;
        }
        while (*p == ' ' || *p == '\t') p++;
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m > 0 && (p[m - 1] == ' ' || p[m - 1] == '\t')) m--;
        int ok = 0;
        for (const char *alt = names[k];;) {
            size_t a = strcspn(alt, "|");
            if (a == m && strncasecmp(alt, p, m) == 0) ok = 1;
            if (!alt[a] || ok) break;
            alt += a + 1;
        }
        if (!ok) return 0;
        p += n;
    }
    return !exact || *p == '\0';
}

/* 1 if the comma-separated header line p has only TGL's column names (the index's empty
 * name, src, dst, time, int_roll, ext_roll), src, dst and time among them, and one that
 * only TGL has: TGL's edges.csv under another name, or without its index column
 * (src,dst,time,ext_roll), which the JODIE reader took by its column count (ext_roll as
 * the label). A plain src,dst,time header stays an edge list's. */
static int tgl_header(const char *p) {
    static const char *const names[] = {"", "src", "dst", "time", "int_roll", "ext_roll"};
    int seen[6] = {0};
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        size_t n = strcspn(p, ","), m = n;
        while (m > 0 && (p[m - 1] == ' ' || p[m - 1] == '\t')) m--;
        int k = 0;
        while (k < 6 && !(strlen(names[k]) == m && strncasecmp(names[k], p, m) == 0)) k++;
        if (k == 6) return 0;
        seen[k] = 1;
        if (!p[n]) break;
        p += n + 1;
    }
    return seen[1] && seen[2] && seen[3] && (seen[0] || seen[4] || seen[5]);
}

dgnn_format dgnn_detect_format(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return DGNN_FMT_AUTO;
    if (S_ISDIR(st.st_mode)) return DGNN_FMT_TGL;
    int fd;
    int64_t size;
    dgnn_err ignored;
    if (dgnn_in_open(path, &fd, &size, &ignored) != DGNN_OK) return DGNN_FMT_AUTO; /* a FIFO would block */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return DGNN_FMT_AUTO;
    }
    char buf[4096];
    size_t n = first_line(f, buf, sizeof buf);
    fclose(f);
    if (n >= 8 && memcmp(buf, DGNN_BIN_MAGIC, 8) == 0) return DGNN_FMT_BINARY;
    /* named as dgnn convert names its output: the binary reader says what is wrong with it
     * (empty, cut short, text), not a text reader */
    const size_t len = strlen(path);
    if (len > 5 && strcmp(path + len - 5, ".dgnn") == 0) return DGNN_FMT_BINARY;
    const char *p = buf;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '{' || *p == '[') return DGNN_FMT_PGT;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    static const char *const dyglib[] = {"", "u", "i", "ts", "label", "idx", NULL};
    static const char *const tgb[] = {"ts|time|day|timestamp", "src|source", "dst|target|destination", NULL};
    if (header_is(p, dyglib, 1) || header_is(p, dyglib + 1, 1)) return DGNN_FMT_DYGLIB;
    if ((strncmp(base, "tgbl-", 5) == 0 && strstr(base, "_edgelist")) || header_is(p, tgb, 0)) return DGNN_FMT_TGB;
    if (strcmp(base, "edges.csv") == 0 || (p[0] == ',' && strstr(p, "src") && strstr(p, "dst")) || tgl_header(p))
        return DGNN_FMT_TGL;
    /* a header line: first field starts with a letter and there are >= 4 comma fields */
    if (isalpha((unsigned char)p[0]) && p[0] != '%') {
        int commas = 0;
        for (const char *q = p; *q; q++) commas += *q == ',';
        if (commas >= 3) return DGNN_FMT_JODIE;
    }
    return DGNN_FMT_EDGELIST;
}

int dgnn_load(dgnn_events *ev, const char *path, const dgnn_load_opts *opts, dgnn_err *err) {
    dgnn_load_opts def = dgnn_load_opts_default();
    if (!opts) opts = &def;
    if (!ev) return dgnn_err_set(err, DGNN_EINVAL, "dgnn_load: ev is NULL (the table to fill)");
    dgnn_events_init(ev);
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no input path given");
    struct stat st;
    if (stat(path, &st) != 0) { /* dgnn_in_open's message: "-" as standard input, the OS's words */
        int fd;
        int64_t size;
        const int rc = dgnn_in_open(path, &fd, &size, err);
        if (rc) return rc;
        close(fd); /* it appeared since the stat: told as the stat saw it */
        return dgnn_err_set(err, DGNN_EIO, "%s: cannot open: it changed while being read", path);
    }
    if (!S_ISDIR(st.st_mode)) { /* a FIFO, a device, ...: refused with what it is, before detection */
        int fd;
        int64_t size;
        int rc = dgnn_in_open(path, &fd, &size, err);
        if (rc) return rc;
        close(fd);
    }
    if (opts->format < DGNN_FMT_AUTO || opts->format > DGNN_FMT_TGB)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: unknown format code %d", path, (int)opts->format);
    if (opts->bipartite < -1 || opts->bipartite > 1)
        return dgnn_err_set(err, DGNN_EINVAL, "bipartite must be -1 (detect), 0 or 1, got %d", opts->bipartite);
    dgnn_format f = opts->format != DGNN_FMT_AUTO ? opts->format : dgnn_detect_format(path);
    if (f == DGNN_FMT_AUTO) return dgnn_err_set(err, DGNN_EIO, "%s: cannot read the file", path);
    /* options that only one format reads are refused for the others rather than ignored;
     * "a jodie file", "an edgelist file" */
    const char *fname = dgnn_format_name(f), *an = fname[0] && strchr("aeiou", fname[0]) ? "an" : "a";
    if (opts->columns && f != DGNN_FMT_EDGELIST)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%s: --columns applies to edge lists, but this is %s %s file (force --format edgelist if "
                            "it is one)",
                            path, an, fname);
    if ((opts->edge_feat || opts->node_feat) && f != DGNN_FMT_TGL)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%s: --%s applies to TGL datasets (edges.csv with .npy features), but this is %s %s file: "
                            "its features come from the file itself",
                            path, opts->edge_feat ? "edge-feat" : "node-feat", an, fname);
    int rc;
    switch (f) {
    case DGNN_FMT_JODIE: rc = dgnn_read_jodie(ev, path, err); break;
    case DGNN_FMT_TGL: rc = dgnn_read_tgl(ev, path, opts->edge_feat, opts->node_feat, err); break;
    case DGNN_FMT_EDGELIST: rc = dgnn_read_edgelist(ev, path, opts->columns, err); break;
    case DGNN_FMT_PGT: rc = dgnn_read_pgt(ev, path, err); break;
    case DGNN_FMT_BINARY: rc = dgnn_load_binary(ev, path, 1, err); break;
    case DGNN_FMT_DYGLIB: rc = dgnn_read_dyglib(ev, path, err); break;
    case DGNN_FMT_TGB: rc = dgnn_read_tgb(ev, path, err); break;
    default: return dgnn_err_set(err, DGNN_EIO, "%s: cannot read the file", path);
    }
    if (rc != DGNN_OK) {
        dgnn_events_free(ev);
        return rc;
    }
    if (opts->bipartite == 1 && !ev->bipartite) {
        /* name one offending node so the user can check the file */
        int64_t bad = -1;
        uint8_t *role = calloc((size_t)(ev->num_nodes ? ev->num_nodes : 1), 1);
        if (role) {
            for (int64_t i = 0; i < ev->num_events; i++) role[ev->src[i]] |= 1, role[ev->dst[i]] |= 2;
            for (int64_t v = 0; v < ev->num_nodes && bad < 0; v++) if (role[v] == 3) bad = v;
            free(role);
        }
        long long orig = bad >= 0 && ev->node_ids ? (long long)ev->node_ids[bad] : (long long)bad;
        dgnn_events_free(ev);
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "%s: declared bipartite (--bipartite), but node %lld is both a source and a destination",
                            path, orig);
    }
    if (opts->bipartite == 0) ev->bipartite = 0;
    return DGNN_OK;
}
