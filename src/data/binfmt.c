/* binfmt.c: the binary dataset format (.dgnn): save, streaming writer, mmap loader.
 *
 * Why a binary format: text readers parse ~50-100 MB/s, a mapped file is ready at once,
 * and several processes (MPI ranks on one host) share the page cache of one mapping.
 *
 * Layout (all integers little-endian):
 *
 *   header, 128 bytes
 *     0  magic "DGNNDATA"          8  u32 version (1)        12 u32 header size (128)
 *    16  u64 num_events           24  u64 num_nodes          32 u64 edge_dim
 *    40  u64 node_dim             48  u64 num_periods        56 u64 period_x_dim
 *    64  u64 period_y_dim         72  u64 flags (bit 0: bipartite)
 *    80  u32 number of sections   84  u32 table entry size (32)
 *    88  reserved, zero (32 bytes)
 *   120  u64 header checksum: XXH64 of bytes [0, 120) followed by the section table
 *   section table, one 32-byte entry per section
 *     u32 id, u32 element size, u64 offset, u64 length in bytes, u64 checksum (XXH64)
 *   sections, each at a 64-byte aligned offset (so every array is aligned for SIMD
 *   loads once the file is mapped at a page boundary):
 *     1 src i32 (E)          2 dst i32 (E)        3 t f64 (E)         4 efeat f32 (E, d_e)
 *     5 label i32 (E)        6 ext_roll i8 (E)    7 node_ids i64 (N)  8 nfeat f32 (N, d_n)
 *     9 period_x f32 (P,N,dx)                    10 period_y f32 (P,N,dy)
 *   src, dst, t are always present (possibly empty); efeat / nfeat / period_x / period_y
 *   are present exactly when their dimension is > 0; label, ext_roll, node_ids are optional.
 *
 * Loading trusts nothing: every size and offset is checked (with overflow-safe
 * arithmetic) before an array pointer is formed, and a cheap semantic pass checks node
 * ids and timestamps even when checksums are skipped, because a wrong id would crash a
 * trainer far from the cause. The data sections are stored in host order; this build
 * only supports little-endian hosts (checked at compile time). */
#include "dgnn/binfmt.h"

#include "../base/le.h"
#include "dgnn/infile.h"
#include "xxh64.h"

#include "dgnn/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .dgnn format maps little-endian arrays directly: big-endian hosts are not supported"
#endif

enum { HDR_SIZE = 128, HDR_CSUM_AT = 120, ENTRY_SIZE = 32, SEC_ALIGN = 64, MAX_SECTIONS = 32 };
enum { FLAG_BIPARTITE = 1 };

enum {
    SEC_SRC = 1, SEC_DST, SEC_T, SEC_EFEAT, SEC_LABEL, SEC_EXT_ROLL, SEC_NODE_IDS, SEC_NFEAT,
    SEC_PERIOD_X, SEC_PERIOD_Y, SEC_COUNT = SEC_PERIOD_Y /* ids are 1..SEC_COUNT */
};

static const char *const SEC_NAME[SEC_COUNT + 1] = {
    "?", "src", "dst", "t", "efeat", "label", "ext_roll", "node_ids", "nfeat", "period_x", "period_y"};
static const uint32_t SEC_ELEM[SEC_COUNT + 1] = {0, 4, 4, 8, 4, 4, 1, 8, 4, 4, 4};

/* ---- little helpers -------------------------------------------------------- */
static uint64_t align_up(uint64_t x) { return (x + SEC_ALIGN - 1) & ~(uint64_t)(SEC_ALIGN - 1); }

/* Index of the first float in x[0..n) that is NaN or infinite, or -1. Reads the bits in
 * blocks with no early exit, so that the loop vectorises (plain SSE2: AND, ADD, OR) and
 * the scan runs at memory speed, as the checksums do: an exponent of all ones
 * (0x7F800000) plus 2^23 is the only one that reaches bit 31. */
__attribute__((noinline)) static int64_t first_nonfinite(const void *x, int64_t n) {
    const uint32_t *u = x;
    for (int64_t a = 0; a < n; a += 4096) {
        int64_t b = n - a < 4096 ? n : a + 4096;
        uint32_t any = 0;
        for (int64_t i = a; i < b; i++) any |= (u[i] & 0x7F800000u) + 0x00800000u;
        if (any & 0x80000000u)
            for (int64_t i = a; i < b; i++)
                if ((u[i] & 0x7F800000u) == 0x7F800000u) return i;
    }
    return -1;
}

/* Expected element count of section id for the given counts; -1 on overflow. The
 * counts are already known to be non-negative. */
static int sec_bytes(int id, int64_t E, int64_t N, int64_t de, int64_t dn, int64_t P, int64_t dx, int64_t dy,
                     uint64_t *bytes) {
    uint64_t n = 1, r;
    switch (id) {
    case SEC_SRC: case SEC_DST: case SEC_T: case SEC_LABEL: case SEC_EXT_ROLL: n = (uint64_t)E; break;
    case SEC_EFEAT: if (__builtin_mul_overflow((uint64_t)E, (uint64_t)de, &n)) return -1; break;
    case SEC_NODE_IDS: n = (uint64_t)N; break;
    case SEC_NFEAT: if (__builtin_mul_overflow((uint64_t)N, (uint64_t)dn, &n)) return -1; break;
    case SEC_PERIOD_X:
    case SEC_PERIOD_Y:
        if (__builtin_mul_overflow((uint64_t)P, (uint64_t)N, &r) ||
            __builtin_mul_overflow(r, (uint64_t)(id == SEC_PERIOD_X ? dx : dy), &n))
            return -1;
        break;
    default: return -1;
    }
    if (__builtin_mul_overflow(n, (uint64_t)SEC_ELEM[id], bytes)) return -1;
    /* offsets are u64 but a mapping must fit in size_t and in off_t */
    if (*bytes > (uint64_t)INT64_MAX / 2) return -1;
    return 0;
}

/* Writes all of buf at off, retrying short writes and EINTR. */
static int pwrite_all(int fd, const void *buf, size_t n, uint64_t off) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

/* ---- streaming writer ---------------------------------------------------------- */
typedef struct {
    uint32_t id;
    uint64_t off, len, written;
    xxh64_state h;
} wsec;

struct dgnn_bin_writer {
    int fd;            /* dgnn_outfile_fd(out) */
    char *path;
    dgnn_outfile *out; /* the temporary file beside path (outfile.h: atomic, symlinks followed) */
    dgnn_bin_layout lay;
    int nsec;
    wsec sec[SEC_COUNT];
    int idx[SEC_COUNT + 1]; /* section id -> index in sec, or -1 when absent */
    uint64_t file_size;
    int64_t events;          /* appended so far */
    double last_t;
    uint8_t *role;           /* (N) bit 1 source, bit 2 destination; only when lay.bipartite == -1 */
};

dgnn_bin_layout dgnn_bin_layout_of(const dgnn_events *ev) {
    dgnn_bin_layout l;
    memset(&l, 0, sizeof l);
    l.num_events = ev->num_events;
    l.num_nodes = ev->num_nodes;
    l.edge_dim = ev->edge_dim;
    l.has_label = ev->label != NULL;
    l.has_ext_roll = ev->ext_roll != NULL;
    l.has_node_ids = ev->node_ids != NULL;
    l.node_dim = ev->node_dim;
    l.num_periods = ev->num_periods;
    l.period_x_dim = ev->period_x_dim;
    l.period_y_dim = ev->period_y_dim;
    l.bipartite = ev->bipartite ? 1 : 0;
    return l;
}

void dgnn_bin_writer_abort(dgnn_bin_writer *w) {
    if (!w) return;
    dgnn_outfile_abort(w->out); /* removes the temporary file; NULL once committed */
    free(w->path);
    free(w->role);
    free(w);
}

int dgnn_bin_writer_open(dgnn_bin_writer **out, const char *path, const dgnn_bin_layout *lay, dgnn_err *err) {
    *out = NULL;
    const dgnn_bin_layout *l = lay;
    if (l->num_events < 0 || l->num_nodes < 0 || l->edge_dim < 0 || l->node_dim < 0 || l->num_periods < 0 ||
        l->period_x_dim < 0 || l->period_y_dim < 0)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: negative count in the table layout", path);
    if (l->num_nodes > INT32_MAX)
        return dgnn_err_set(err, DGNN_EUNSUPPORTED, "%s: %lld nodes: more than 2^31-1 is not supported", path,
                            (long long)l->num_nodes);
    if (l->num_periods == 0 && (l->period_x_dim || l->period_y_dim))
        return dgnn_err_set(err, DGNN_EINVAL, "%s: period feature dims given without periods", path);
    if (l->bipartite < -1 || l->bipartite > 1)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: bipartite must be -1, 0 or 1", path);
    /* the loader's bounds (see its count checks): never write a file it would refuse */
    if (l->edge_dim > DGNN_MAX_DIM || l->node_dim > DGNN_MAX_DIM || l->period_x_dim > DGNN_MAX_DIM ||
        l->period_y_dim > DGNN_MAX_DIM)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: a feature dimension above %lld", path, (long long)DGNN_MAX_DIM);
    if (l->num_periods > DGNN_MAX_PERIODS)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: %lld periods: at most %lld", path, (long long)l->num_periods,
                            (long long)DGNN_MAX_PERIODS);
    if (!(l->has_node_ids || l->node_dim > 0 || (l->num_periods > 0 && (l->period_x_dim > 0 || l->period_y_dim > 0))) &&
        l->num_nodes > 2 * l->num_events && l->num_nodes > DGNN_MAX_UNSEEN_NODES)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%s: %lld nodes for %lld events: without node ids or features a .dgnn holds at most "
                            "max(2 x events, %lld) nodes",
                            path, (long long)l->num_nodes, (long long)l->num_events, (long long)DGNN_MAX_UNSEEN_NODES);

    dgnn_bin_writer *w = calloc(1, sizeof *w);
    if (!w) return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    w->fd = -1;
    w->lay = *l;
    w->last_t = -INFINITY;
    for (int id = 0; id <= SEC_COUNT; id++) w->idx[id] = -1;
    int present[SEC_COUNT + 1] = {0, 1, 1, 1, l->edge_dim > 0, l->has_label != 0, l->has_ext_roll != 0,
                                  l->has_node_ids != 0, l->node_dim > 0, l->period_x_dim > 0, l->period_y_dim > 0};
    for (int id = 1; id <= SEC_COUNT; id++)
        if (present[id]) w->idx[id] = w->nsec++;
    uint64_t off = align_up(HDR_SIZE + (uint64_t)w->nsec * ENTRY_SIZE);
    w->file_size = off;
    for (int id = 1; id <= SEC_COUNT; id++) {
        if (w->idx[id] < 0) continue;
        wsec *s = &w->sec[w->idx[id]];
        s->id = (uint32_t)id;
        if (sec_bytes(id, l->num_events, l->num_nodes, l->edge_dim, l->node_dim, l->num_periods, l->period_x_dim,
                      l->period_y_dim, &s->len) != 0 ||
            off > (uint64_t)INT64_MAX / 2) {
            dgnn_bin_writer_abort(w);
            return dgnn_err_set(err, DGNN_EINVAL, "%s: section '%s' would be too large", path, SEC_NAME[id]);
        }
        s->off = off;
        xxh64_init(&s->h);
        w->file_size = off + s->len;
        off = align_up(off + s->len);
    }
    if (l->bipartite != 0) { /* -1: computed from the events; 1: checked against them */
        w->role = calloc((size_t)(l->num_nodes ? l->num_nodes : 1), 1);
        if (!w->role) {
            dgnn_bin_writer_abort(w);
            return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
        }
    }
    if (!(w->path = strdup(path))) {
        dgnn_bin_writer_abort(w);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    }
    /* sections go to their offsets with pwrite: a seekable file (outfile.h spools for a
     * FIFO); the temporary file sits beside path, renamed at finish */
    int rc = dgnn_outfile_open(&w->out, path, DGNN_OUTFILE_SEEK, err);
    if (rc) {
        dgnn_bin_writer_abort(w);
        return rc;
    }
    w->fd = dgnn_outfile_fd(w->out);
    *out = w;
    return DGNN_OK;
}

/* Appends bytes to section id: checksum and write in pieces that stay in cache. */
static int wsec_put(dgnn_bin_writer *w, int id, const void *data, uint64_t bytes, dgnn_err *err) {
    wsec *s = &w->sec[w->idx[id]];
    if (bytes > s->len - s->written)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: section '%s': more data than the layout declares", w->path,
                            SEC_NAME[id]);
    const unsigned char *p = data;
    const uint64_t piece = 4u << 20;
    while (bytes > 0) {
        size_t n = (size_t)(bytes < piece ? bytes : piece);
        xxh64_update(&s->h, p, n);
        if (pwrite_all(w->fd, p, n, s->off + s->written) != 0)
            return dgnn_err_set(err, DGNN_EIO, "cannot write %s: section '%s': %s", w->path, SEC_NAME[id],
                                strerror(errno));
        s->written += n;
        p += n;
        bytes -= n;
    }
    return DGNN_OK;
}

int dgnn_bin_writer_events(dgnn_bin_writer *w, int64_t n, const int32_t *src, const int32_t *dst, const double *t,
                           const float *efeat, const int32_t *label, const int8_t *ext_roll, dgnn_err *err) {
    const dgnn_bin_layout *l = &w->lay;
    if (n < 0 || n > l->num_events - w->events)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: appending %lld events after %lld: the layout declares %lld",
                            w->path, (long long)n, (long long)w->events, (long long)l->num_events);
    if (n == 0) return DGNN_OK;
    if (!src || !dst || !t || (l->edge_dim > 0 && !efeat) || (l->has_label && !label) ||
        (l->has_ext_roll && !ext_roll))
        return dgnn_err_set(err, DGNN_EINVAL, "%s: a column the layout declares is missing (NULL)", w->path);
    /* validate before writing, so that no file the loader would reject is ever produced */
    int64_t N = l->num_nodes;
    double last = w->last_t;
    for (int64_t i = 0; i < n; i++) {
        if (src[i] < 0 || src[i] >= N || dst[i] < 0 || dst[i] >= N)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: event %lld: node id %d outside [0, %lld)", w->path,
                                (long long)(w->events + i), src[i] < 0 || src[i] >= N ? src[i] : dst[i],
                                (long long)N);
        if (!(fabs(t[i]) <= DBL_MAX / 2) || t[i] < last)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: event %lld: timestamp %.17g %s", w->path,
                                (long long)(w->events + i), t[i],
                                !isfinite(t[i])          ? "is not finite"
                                : fabs(t[i]) > DBL_MAX / 2 ? "is out of range (above 8.9e307)"
                                                           : "is smaller than the previous one (events must be sorted by time)");
        last = t[i];
        if (l->num_periods > 0 && !(t[i] >= 0 && t[i] < (double)l->num_periods && t[i] == floor(t[i])))
            return dgnn_err_set(err, DGNN_EINVAL, "%s: event %lld: timestamp %.17g is not a period index 0..%lld",
                                w->path, (long long)(w->events + i), t[i], (long long)l->num_periods - 1);
        if (l->has_label && label[i] != 0 && label[i] != 1)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: event %lld: label %d (a label is 0 or 1)", w->path,
                                (long long)(w->events + i), label[i]);
        if (l->has_ext_roll && (ext_roll[i] < 0 || ext_roll[i] > 2))
            return dgnn_err_set(err, DGNN_EINVAL, "%s: event %lld: ext_roll %d (0 train, 1 val, 2 test)", w->path,
                                (long long)(w->events + i), ext_roll[i]);
    }
    int64_t bad_feat = l->edge_dim > 0 ? first_nonfinite(efeat, n * l->edge_dim) : -1;
    if (bad_feat >= 0)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: event %lld, edge feature %lld: not finite", w->path,
                            (long long)(w->events + bad_feat / l->edge_dim), (long long)(bad_feat % l->edge_dim));
    if (l->bipartite == 1) /* declared: a node that is both a source and a destination refutes it */
        for (int64_t i = 0; i < n; i++)
            if ((w->role[src[i]] & 2) || (w->role[dst[i]] & 1) || src[i] == dst[i])
                return dgnn_err_set(err, DGNN_EINVAL,
                                    "%s: event %lld: declared bipartite, but node %d is both a source and a destination",
                                    w->path, (long long)(w->events + i),
                                    (w->role[src[i]] & 2) || src[i] == dst[i] ? src[i] : dst[i]);
            else
                w->role[src[i]] |= 1, w->role[dst[i]] |= 2;
    else if (w->role)
        for (int64_t i = 0; i < n; i++) w->role[src[i]] |= 1, w->role[dst[i]] |= 2;
    uint64_t un = (uint64_t)n;
    int rc;
    if ((rc = wsec_put(w, SEC_SRC, src, un * 4, err)) || (rc = wsec_put(w, SEC_DST, dst, un * 4, err)) ||
        (rc = wsec_put(w, SEC_T, t, un * 8, err)))
        return rc;
    if (l->edge_dim > 0 && (rc = wsec_put(w, SEC_EFEAT, efeat, un * (uint64_t)l->edge_dim * 4, err))) return rc;
    if (l->has_label && (rc = wsec_put(w, SEC_LABEL, label, un * 4, err))) return rc;
    if (l->has_ext_roll && (rc = wsec_put(w, SEC_EXT_ROLL, ext_roll, un, err))) return rc;
    w->events += n;
    w->last_t = last;
    return DGNN_OK;
}

int dgnn_bin_writer_nodes(dgnn_bin_writer *w, const int64_t *node_ids, const float *nfeat, dgnn_err *err) {
    int rc;
    if (w->idx[SEC_NODE_IDS] >= 0) {
        wsec *s = &w->sec[w->idx[SEC_NODE_IDS]];
        if (!node_ids || s->written)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: node_ids missing or written twice", w->path);
        for (int64_t v = 0; v < w->lay.num_nodes; v++)
            if (node_ids[v] < 0 || (v > 0 && node_ids[v] <= node_ids[v - 1]))
                return dgnn_err_set(err, DGNN_EINVAL, "%s: node %lld: original id %lld %s", w->path, (long long)v,
                                    (long long)node_ids[v],
                                    node_ids[v] < 0 ? "is negative" : "is not above the previous one (ids must increase)");
        if ((rc = wsec_put(w, SEC_NODE_IDS, node_ids, s->len, err))) return rc;
    }
    if (w->idx[SEC_NFEAT] >= 0) {
        wsec *s = &w->sec[w->idx[SEC_NFEAT]];
        if (!nfeat || s->written)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: nfeat missing or written twice", w->path);
        int64_t bad = first_nonfinite(nfeat, w->lay.num_nodes * w->lay.node_dim);
        if (bad >= 0)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: node %lld, feature %lld: not finite", w->path,
                                (long long)(bad / w->lay.node_dim), (long long)(bad % w->lay.node_dim));
        if ((rc = wsec_put(w, SEC_NFEAT, nfeat, s->len, err))) return rc;
    }
    return DGNN_OK;
}

int dgnn_bin_writer_periods(dgnn_bin_writer *w, const float *period_x, const float *period_y, dgnn_err *err) {
    int rc;
    const int ids[2] = {SEC_PERIOD_X, SEC_PERIOD_Y};
    const float *data[2] = {period_x, period_y};
    for (int k = 0; k < 2; k++) {
        if (w->idx[ids[k]] < 0) continue;
        wsec *s = &w->sec[w->idx[ids[k]]];
        if (!data[k] || s->written)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: %s missing or written twice", w->path, SEC_NAME[ids[k]]);
        if (first_nonfinite(data[k], (int64_t)(s->len / 4)) >= 0)
            return dgnn_err_set(err, DGNN_EINVAL, "%s: %s holds a value that is not finite", w->path, SEC_NAME[ids[k]]);
        if ((rc = wsec_put(w, ids[k], data[k], s->len, err))) return rc;
    }
    return DGNN_OK;
}

/* Builds the header and table into buf (HDR_SIZE + nsec * ENTRY_SIZE bytes). */
static void build_header(const dgnn_bin_writer *w, int bipartite, unsigned char *buf) {
    const dgnn_bin_layout *l = &w->lay;
    size_t n = HDR_SIZE + (size_t)w->nsec * ENTRY_SIZE;
    memset(buf, 0, n);
    memcpy(buf, DGNN_BIN_MAGIC, 8);
    put32(buf + 8, DGNN_BIN_VERSION);
    put32(buf + 12, HDR_SIZE);
    put64(buf + 16, (uint64_t)l->num_events);
    put64(buf + 24, (uint64_t)l->num_nodes);
    put64(buf + 32, (uint64_t)l->edge_dim);
    put64(buf + 40, (uint64_t)l->node_dim);
    put64(buf + 48, (uint64_t)l->num_periods);
    put64(buf + 56, (uint64_t)l->period_x_dim);
    put64(buf + 64, (uint64_t)l->period_y_dim);
    put64(buf + 72, bipartite ? FLAG_BIPARTITE : 0);
    put32(buf + 80, (uint32_t)w->nsec);
    put32(buf + 84, ENTRY_SIZE);
    for (int i = 0; i < w->nsec; i++) {
        unsigned char *e = buf + HDR_SIZE + (size_t)i * ENTRY_SIZE;
        const wsec *s = &w->sec[i];
        put32(e, s->id);
        put32(e + 4, SEC_ELEM[s->id]);
        put64(e + 8, s->off);
        put64(e + 16, s->len);
        put64(e + 24, xxh64_digest(&s->h));
    }
    xxh64_state h;
    xxh64_init(&h);
    xxh64_update(&h, buf, HDR_CSUM_AT);
    xxh64_update(&h, buf + HDR_SIZE, (size_t)w->nsec * ENTRY_SIZE);
    put64(buf + HDR_CSUM_AT, xxh64_digest(&h));
}

int dgnn_bin_writer_finish(dgnn_bin_writer *w, int64_t *bytes, dgnn_err *err) {
    int rc = DGNN_OK;
    for (int i = 0; i < w->nsec; i++) {
        const wsec *s = &w->sec[i];
        if (s->written != s->len) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "%s: section '%s' incomplete: %llu of %llu bytes written", w->path,
                              SEC_NAME[s->id], (unsigned long long)s->written, (unsigned long long)s->len);
            goto fail;
        }
    }
    int bipartite = w->lay.bipartite;
    if (bipartite == -1) {
        bipartite = w->lay.num_nodes > 0;
        for (int64_t v = 0; v < w->lay.num_nodes && bipartite; v++) bipartite = w->role[v] != 3;
    }
    unsigned char buf[HDR_SIZE + SEC_COUNT * ENTRY_SIZE];
    build_header(w, bipartite, buf);
    if (pwrite_all(w->fd, buf, HDR_SIZE + (size_t)w->nsec * ENTRY_SIZE, 0) != 0) {
        rc = dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s", w->path, strerror(errno));
        goto fail;
    }
    /* the padding after the last section may be a hole: give the file its full size */
    if ((rc = dgnn_outfile_set_size(w->out, w->file_size, err))) goto fail;
    /* fsync, rename over path, fsync of the folder (outfile.h) */
    dgnn_outfile *o = w->out;
    w->out = NULL;
    if ((rc = dgnn_outfile_commit(o, err))) goto fail;
    if (bytes) *bytes = (int64_t)w->file_size;
    dgnn_bin_writer_abort(w); /* frees the rest; nothing left to remove */
    return DGNN_OK;
fail:
    dgnn_bin_writer_abort(w);
    return rc;
}

int dgnn_save_binary(const dgnn_events *ev, const char *path, dgnn_err *err) {
    dgnn_bin_layout l = dgnn_bin_layout_of(ev);
    if ((ev->num_events > 0 && (!ev->src || !ev->dst || !ev->t)) || (ev->edge_dim > 0 && ev->num_events > 0 && !ev->efeat) ||
        (ev->node_dim > 0 && ev->num_nodes > 0 && !ev->nfeat) ||
        (ev->period_x_dim > 0 && ev->num_nodes > 0 && ev->num_periods > 0 && !ev->period_x) ||
        (ev->period_y_dim > 0 && ev->num_nodes > 0 && ev->num_periods > 0 && !ev->period_y))
        return dgnn_err_set(err, DGNN_EINVAL, "%s: the table lacks an array its sizes declare", path);
    dgnn_bin_writer *w;
    int rc = dgnn_bin_writer_open(&w, path, &l, err);
    if (rc) return rc;
    /* empty arrays may be NULL in a table: hand the writer a valid pointer instead */
    static const char none[8];
    const void *nz = none;
#define OR_NONE(p) ((p) ? (const void *)(p) : nz)
    /* in blocks, each block's edge features in one array (a subset's gathered from its table's) */
    float *buf = NULL;
    int64_t cap = 0;
    for (int64_t e0 = 0; !rc && e0 < ev->num_events; e0 += 65536) {
        const int64_t n = ev->num_events - e0 < 65536 ? ev->num_events - e0 : 65536;
        const float *ef = NULL;
        const dgnn_events v = dgnn_events_slice(ev, e0, n);
        if (!(rc = dgnn_events_efeat_block(&ef, &v, 0, n, &buf, &cap, err)))
            rc = dgnn_bin_writer_events(w, n, v.src, v.dst, v.t, ef, v.label, v.ext_roll, err);
    }
    free(buf);
    if (rc ||
        (rc = dgnn_bin_writer_nodes(w, OR_NONE(ev->node_ids), OR_NONE(ev->nfeat), err)) ||
        (rc = dgnn_bin_writer_periods(w, OR_NONE(ev->period_x), OR_NONE(ev->period_y), err))) {
#undef OR_NONE
        dgnn_bin_writer_abort(w);
        return rc;
    }
    return dgnn_bin_writer_finish(w, NULL, err);
}

/* ---- loader ---------------------------------------------------------------- */

static int fail_truncated(dgnn_err *err, const char *path, const char *what, uint64_t need, uint64_t size) {
    return dgnn_err_set(err, DGNN_EFORMAT,
                        "%s: %s needs %llu bytes but the file has %llu: the file is truncated; regenerate it", path,
                        what, (unsigned long long)need, (unsigned long long)size);
}

/* 1 if hdr (HDR_SIZE bytes of an open file of `size` bytes) is a complete version-1
 * header whose checksum over the header and the section table matches: then its
 * fields, the version among them, are what a dgnn wrote. */
static int header_intact(int fd, const unsigned char *hdr, uint64_t size) {
    uint32_t hsize = get32(hdr + 12), nsec = get32(hdr + 80), esize = get32(hdr + 84);
    if (hsize != HDR_SIZE || esize != ENTRY_SIZE || nsec > MAX_SECTIONS || size < HDR_SIZE + (uint64_t)nsec * ENTRY_SIZE)
        return 0;
    unsigned char table[MAX_SECTIONS * ENTRY_SIZE];
    size_t tn = (size_t)nsec * ENTRY_SIZE;
    if (tn && pread(fd, table, tn, HDR_SIZE) != (ssize_t)tn) return 0;
    xxh64_state h;
    xxh64_init(&h);
    xxh64_update(&h, hdr, HDR_CSUM_AT);
    xxh64_update(&h, table, tn);
    return xxh64_digest(&h) == get64(hdr + HDR_CSUM_AT);
}

int dgnn_load_binary(dgnn_events *ev, const char *path, int verify, dgnn_err *err) {
    dgnn_events_init(ev);
    int fd;
    int64_t fsize;
    int rc = dgnn_in_open(path, &fd, &fsize, err); /* regular files only: a FIFO would block */
    if (rc) return rc;
    uint64_t size = (uint64_t)fsize;
    unsigned char hdr[HDR_SIZE];
    ssize_t got = pread(fd, hdr, HDR_SIZE, 0);
    if (got < 0) {
        int e = errno;
        close(fd);
        return dgnn_err_set(err, DGNN_EIO, "%s: read failed: %s", path, strerror(e));
    }
    if (size == 0) {
        close(fd);
        return dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file (0 bytes): not a dgnn binary file", path);
    }
    if (got < 8 || memcmp(hdr, DGNN_BIN_MAGIC, 8) != 0) {
        /* say what the file is instead, when its first bytes tell */
        unsigned char first[4096];
        ssize_t k = pread(fd, first, sizeof first, 0);
        close(fd);
        char what[320];
        const char *is = k > 0 ? dgnn_in_sniff(first, (size_t)k, what, sizeof what) : NULL;
        if (is && strncmp(is, "a dgnn binary", 13) == 0) is = NULL; /* cannot be: the magic differs */
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "%s: not a dgnn binary file (bad magic%s%s); convert a text file with `dgnn convert IN OUT`",
                            path, is ? ": it is " : k > 0 && !is ? ": it looks like text" : "", is ? is : "");
    }
    uint32_t version = got >= 12 ? get32(hdr + 8) : DGNN_BIN_VERSION;
    if (version != DGNN_BIN_VERSION) {
        /* The version comes before the size checks (a newer version may have another
         * layout), but a version field is only believed when the header looks like a
         * dgnn header: random bytes after the magic must not read as "a newer dgnn". */
        int intact = got == HDR_SIZE && header_intact(fd, hdr, size);
        close(fd);
        if (version == 0)
            return dgnn_err_set(err, DGNN_EFORMAT, "%s: not a dgnn file or corrupted header: field 'version' is 0", path);
        if (version > DGNN_BIN_VERSION && (intact || version <= 255))
            return dgnn_err_set(err, DGNN_EVERSION,
                                "%s: written by a newer dgnn (version %u); this build reads version %d%s", path, version,
                                DGNN_BIN_VERSION, intact ? "" : " (or the header is corrupted)");
        return dgnn_err_set(err, DGNN_ECHECKSUM,
                            "%s: not a dgnn file or corrupted header: checksum mismatch (the version field reads %u; "
                            "this build reads version %d); regenerate the file",
                            path, version, DGNN_BIN_VERSION);
    }
    if (size < HDR_SIZE || got < HDR_SIZE) {
        close(fd);
        return fail_truncated(err, path, "the header", HDR_SIZE, size);
    }
    uint32_t hsize = get32(hdr + 12), nsec = get32(hdr + 80), esize = get32(hdr + 84);
    if (hsize != HDR_SIZE || esize != ENTRY_SIZE || nsec > MAX_SECTIONS) {
        close(fd);
        return dgnn_err_set(err, DGNN_EFORMAT,
                            "%s: header fields 'header_size' %u, 'entry_size' %u, 'num_sections' %u: expected %d, %d and "
                            "at most %d: the file is corrupted; regenerate it",
                            path, hsize, esize, nsec, HDR_SIZE, ENTRY_SIZE, MAX_SECTIONS);
    }
    uint64_t table_end = HDR_SIZE + (uint64_t)nsec * ENTRY_SIZE;
    if (size < table_end) {
        close(fd);
        return fail_truncated(err, path, "the section table", table_end, size);
    }
    if (size > (uint64_t)SIZE_MAX) {
        close(fd);
        return dgnn_err_set(err, DGNN_EUNSUPPORTED, "%s: file too large to map", path);
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    int map_errno = errno;
    close(fd); /* the mapping keeps the file alive */
    if (map == MAP_FAILED) return dgnn_err_set(err, DGNN_EIO, "%s: mmap failed: %s", path, strerror(map_errno));
    const unsigned char *m = map;
#define FAIL(code, ...) do { rc = dgnn_err_set(err, code, __VA_ARGS__); goto fail; } while (0)

    /* the header checksum covers the header and the table: check it before believing any count */
    xxh64_state h;
    xxh64_init(&h);
    xxh64_update(&h, m, HDR_CSUM_AT);
    xxh64_update(&h, m + HDR_SIZE, (size_t)nsec * ENTRY_SIZE);
    if (xxh64_digest(&h) != get64(m + HDR_CSUM_AT))
        FAIL(DGNN_ECHECKSUM, "%s: header checksum mismatch: the file is corrupted or truncated; regenerate it", path);

    /* counts: a file with a valid checksum may still be hand-crafted, so check them too */
    static const char *const cname[7] = {"num_events", "num_nodes", "edge_dim", "node_dim",
                                         "num_periods", "period_x_dim", "period_y_dim"};
    int64_t c[7];
    for (int k = 0; k < 7; k++) {
        uint64_t u = get64(m + 16 + 8 * k);
        if (u > (uint64_t)INT64_MAX / 2) FAIL(DGNN_EFORMAT, "%s: header field '%s': %llu is out of range", path, cname[k], (unsigned long long)u);
        c[k] = (int64_t)u;
    }
    int64_t E = c[0], N = c[1], de = c[2], dn = c[3], P = c[4], dx = c[5], dy = c[6];
    if (N > INT32_MAX) FAIL(DGNN_EUNSUPPORTED, "%s: header field 'num_nodes': %lld is more than 2^31-1", path, (long long)N);
    if (P == 0 && (dx || dy))
        FAIL(DGNN_EFORMAT, "%s: header fields 'period_x_dim'/'period_y_dim' are non-zero but 'num_periods' is 0", path);
    uint64_t flags = get64(m + 72);
    if (flags & ~(uint64_t)FLAG_BIPARTITE)
        FAIL(DGNN_EFORMAT, "%s: header field 'flags': unknown bits 0x%llx", path, (unsigned long long)flags);
    for (int k = 88; k < HDR_CSUM_AT; k++)
        if (m[k]) FAIL(DGNN_EFORMAT, "%s: reserved header bytes are not zero", path);

    /* the section table */
    const unsigned char *ptr[SEC_COUNT + 1] = {0};
    int64_t nonfinite[SEC_COUNT + 1]; /* first non-finite float of a section, -1: none (yet) */
    int scanned[SEC_COUNT + 1] = {0}; /* 1: the checksum pass scanned it already */
    for (int k = 0; k <= SEC_COUNT; k++) nonfinite[k] = -1;
    uint64_t soff[MAX_SECTIONS], send[MAX_SECTIONS];
    for (uint32_t i = 0; i < nsec; i++) {
        const unsigned char *e = m + HDR_SIZE + (size_t)i * ENTRY_SIZE;
        uint32_t id = get32(e), elem = get32(e + 4);
        uint64_t off = get64(e + 8), len = get64(e + 16), csum = get64(e + 24), want;
        if (id < 1 || id > SEC_COUNT) FAIL(DGNN_EFORMAT, "%s: section table entry %u: unknown section id %u (this build knows 1..%d)", path, i, id, SEC_COUNT);
        const char *nm = SEC_NAME[id];
        if (ptr[id]) FAIL(DGNN_EFORMAT, "%s: section '%s' appears twice in the table", path, nm);
        if (elem != SEC_ELEM[id])
            FAIL(DGNN_EFORMAT, "%s: section '%s': element size %u, expected %u", path, nm, elem, SEC_ELEM[id]);
        if (off % SEC_ALIGN) FAIL(DGNN_EFORMAT, "%s: section '%s': offset %llu is not %d-byte aligned", path, nm, (unsigned long long)off, SEC_ALIGN);
        if (off < table_end) FAIL(DGNN_EFORMAT, "%s: section '%s': offset %llu overlaps the header", path, nm, (unsigned long long)off);
        if (off > size || len > size - off) {
            char what[64];
            snprintf(what, sizeof what, "section '%s'", nm);
            rc = fail_truncated(err, path, what, off > UINT64_MAX - len ? UINT64_MAX : off + len, size);
            goto fail;
        }
        if (sec_bytes((int)id, E, N, de, dn, P, dx, dy, &want) != 0)
            FAIL(DGNN_EFORMAT, "%s: section '%s': the header counts overflow its size", path, nm);
        if (len != want)
            FAIL(DGNN_EFORMAT, "%s: section '%s' is %llu bytes but the header counts imply %llu: the file is corrupted",
                 path, nm, (unsigned long long)len, (unsigned long long)want);
        for (uint32_t j = 0; j < i; j++) /* sections must not overlap (empty ones cannot) */
            if (len && soff[j] < off + len && off < send[j])
                FAIL(DGNN_EFORMAT, "%s: section '%s' overlaps another section", path, nm);
        soff[i] = off;
        send[i] = len ? off + len : off;
        if (verify) {
            /* float sections: checksum and finiteness scan in one pass over 256 KiB pieces
             * that stay in cache (the semantic pass below then reuses the result) */
            const int is_float = id == SEC_EFEAT || id == SEC_NFEAT || id == SEC_PERIOD_X || id == SEC_PERIOD_Y;
            xxh64_state hs;
            xxh64_init(&hs);
            for (uint64_t a = 0; a < len;) {
                uint64_t piece = len - a < ((uint64_t)1 << 18) ? len - a : (uint64_t)1 << 18;
                xxh64_update(&hs, m + off + a, (size_t)piece);
                if (is_float && nonfinite[id] < 0) {
                    int64_t b = first_nonfinite(m + off + a, (int64_t)(piece / 4));
                    if (b >= 0) nonfinite[id] = (int64_t)(a / 4) + b;
                }
                a += piece;
            }
            if (xxh64_digest(&hs) != csum)
                FAIL(DGNN_ECHECKSUM, "%s: section '%s' checksum mismatch: the file is corrupted or truncated; regenerate it", path, nm);
            scanned[id] = is_float;
        }
        ptr[id] = m + off;
    }
    int need[SEC_COUNT + 1] = {0, 1, 1, 1, de > 0, 0, 0, 0, dn > 0, dx > 0, dy > 0};
    int allowed[SEC_COUNT + 1] = {0, 1, 1, 1, de > 0, 1, 1, 1, dn > 0, dx > 0, dy > 0};
    for (int id = 1; id <= SEC_COUNT; id++) {
        if (need[id] && !ptr[id]) FAIL(DGNN_EFORMAT, "%s: required section '%s' is missing", path, SEC_NAME[id]);
        if (!allowed[id] && ptr[id])
            FAIL(DGNN_EFORMAT, "%s: section '%s' is present but its dimension in the header is 0", path, SEC_NAME[id]);
    }

    /* What the counts claim beyond the sections' sizes. A dimension or a period count
     * with no data behind it (E = 0, N = 0, or dims whose sections are empty) would make
     * every consumer allocate for it: bound them as the readers do. */
    {
        static const char *const dname[4] = {"edge_dim", "node_dim", "period_x_dim", "period_y_dim"};
        const int64_t dv[4] = {de, dn, dx, dy};
        for (int k = 0; k < 4; k++)
            if (dv[k] > DGNN_MAX_DIM)
                FAIL(DGNN_EFORMAT, "%s: header field '%s': %lld features, more than the %lld any reader takes: the file is corrupted",
                     path, dname[k], (long long)dv[k], (long long)DGNN_MAX_DIM);
        if (P > DGNN_MAX_PERIODS)
            FAIL(DGNN_EFORMAT, "%s: header field 'num_periods': %lld, more than the %lld any reader takes: the file is corrupted",
                 path, (long long)P, (long long)DGNN_MAX_PERIODS);
        const int describes_nodes = ptr[SEC_NODE_IDS] || ptr[SEC_NFEAT] || ptr[SEC_PERIOD_X] || ptr[SEC_PERIOD_Y];
        if (!describes_nodes && N > 2 * E && N > DGNN_MAX_UNSEEN_NODES)
            FAIL(DGNN_EFORMAT,
                 "%s: header field 'num_nodes': %lld nodes, but its %lld events touch at most %lld and no section "
                 "describes nodes (node_ids, nfeat, period_x, period_y): the file is corrupted",
                 path, (long long)N, (long long)E, (long long)(2 * E));
    }

    /* Semantic pass, done even without verify: every value is checked as the text readers
     * check theirs. One sequential read of the event columns, then one of each feature
     * section; together about as much as the checksums. A node id out of range would
     * otherwise surface as a crash deep inside a trainer, unsorted timestamps as silently
     * wrong temporal neighbourhoods, and a NaN feature as a model that learns nothing
     * (loss 2 ln 2, AP 0.5) without a word. */
    const int32_t *src = (const int32_t *)ptr[SEC_SRC], *dst = (const int32_t *)ptr[SEC_DST];
    const double *t = (const double *)ptr[SEC_T];
    const int32_t *lab = (const int32_t *)ptr[SEC_LABEL];
    const int8_t *roll = (const int8_t *)ptr[SEC_EXT_ROLL];
    double prev = -INFINITY;
    for (int64_t i = 0; i < E; i++) {
        if ((uint32_t)src[i] >= (uint64_t)N || (uint32_t)dst[i] >= (uint64_t)N) {
            int bad_src = (uint32_t)src[i] >= (uint64_t)N;
            FAIL(DGNN_EFORMAT, "%s: section '%s', event %lld: node id %d outside [0, %lld): the file is corrupted", path,
                 bad_src ? "src" : "dst", (long long)i, bad_src ? src[i] : dst[i], (long long)N);
        }
        if (!(fabs(t[i]) <= DBL_MAX / 2)) /* also NaN; beyond DBL_MAX / 2 a time span overflows */
            FAIL(DGNN_EFORMAT, "%s: section 't', event %lld: timestamp %g is %s", path, (long long)i, t[i],
                 isfinite(t[i]) ? "out of range (above 8.9e307, half the double range)" : "not finite");
        if (t[i] < prev)
            FAIL(DGNN_EFORMAT, "%s: section 't', event %lld: timestamp %.17g is smaller than the previous %.17g (events must be sorted by time)",
                 path, (long long)i, t[i], prev);
        prev = t[i];
        if (P > 0 && !(t[i] >= 0 && t[i] < (double)P && t[i] == floor(t[i])))
            FAIL(DGNN_EFORMAT, "%s: section 't', event %lld: timestamp %.17g is not a period index 0..%lld (the header "
                 "declares %lld periods)", path, (long long)i, t[i], (long long)P - 1, (long long)P);
        if (lab && lab[i] != 0 && lab[i] != 1)
            FAIL(DGNN_EFORMAT, "%s: section 'label', event %lld: label %d (a label is 0 or 1): the file is corrupted",
                 path, (long long)i, lab[i]);
        if (roll && (roll[i] < 0 || roll[i] > 2))
            FAIL(DGNN_EFORMAT, "%s: section 'ext_roll', event %lld: %d is not a split (0 train, 1 val, 2 test): the file "
                 "is corrupted", path, (long long)i, roll[i]);
    }
    {
        const int ids[4] = {SEC_EFEAT, SEC_NFEAT, SEC_PERIOD_X, SEC_PERIOD_Y};
        const int64_t rows[4] = {E, N, P * N, P * N}, cols[4] = {de, dn, dx, dy};
        const char *row_name[4] = {"event", "node", "period/node", "period/node"};
        for (int k = 0; k < 4; k++) {
            if (!ptr[ids[k]] || cols[k] == 0) continue;
            int64_t bad = scanned[ids[k]] ? nonfinite[ids[k]] : first_nonfinite(ptr[ids[k]], rows[k] * cols[k]);
            if (bad < 0) continue;
            float v;
            memcpy(&v, ptr[ids[k]] + 4 * bad, 4);
            int64_t r = bad / cols[k], c = bad % cols[k];
            if (k >= 2) /* the period index and the node */
                FAIL(DGNN_EFORMAT, "%s: section '%s', period %lld, node %lld, column %lld: %s value (features must be finite)",
                     path, SEC_NAME[ids[k]], (long long)(r / N), (long long)(r % N), (long long)c, isnan(v) ? "NaN" : "infinite");
            FAIL(DGNN_EFORMAT, "%s: section '%s', %s %lld, column %lld: %s value (features must be finite)", path,
                 SEC_NAME[ids[k]], row_name[k], (long long)r, (long long)c, isnan(v) ? "NaN" : "infinite");
        }
    }
    if (ptr[SEC_NODE_IDS]) { /* the original ids: non-negative and increasing, as every reader keeps them */
        const int64_t *ids = (const int64_t *)ptr[SEC_NODE_IDS];
        for (int64_t v = 0; v < N; v++) {
            if (ids[v] < 0)
                FAIL(DGNN_EFORMAT, "%s: section 'node_ids', node %lld: original id %lld is negative: the file is corrupted",
                     path, (long long)v, (long long)ids[v]);
            if (v > 0 && ids[v] <= ids[v - 1])
                FAIL(DGNN_EFORMAT, "%s: section 'node_ids', node %lld: original id %lld after %lld (the mapping must be "
                     "increasing): the file is corrupted", path, (long long)v, (long long)ids[v], (long long)ids[v - 1]);
        }
    }
    if ((flags & FLAG_BIPARTITE) && E > 0) { /* the flag is a claim about the events: check it */
        uint8_t *role = calloc((size_t)N, 1);
        if (!role) FAIL(DGNN_ENOMEM, "%s: out of memory checking the bipartite flag (%lld nodes)", path, (long long)N);
        int64_t both = -1;
        for (int64_t i = 0; i < E; i++) role[src[i]] |= 1, role[dst[i]] |= 2;
        for (int64_t v = 0; v < N && both < 0; v++)
            if (role[v] == 3) both = v;
        free(role);
        if (both >= 0)
            FAIL(DGNN_EFORMAT, "%s: header field 'flags' says bipartite, but node %lld is both a source and a "
                 "destination: the file is corrupted", path, (long long)both);
    }
#undef FAIL

    ev->num_events = E;
    ev->num_nodes = N;
    ev->src = (int32_t *)ptr[SEC_SRC];
    ev->dst = (int32_t *)ptr[SEC_DST];
    ev->t = (double *)ptr[SEC_T];
    ev->edge_dim = de;
    ev->efeat = (float *)ptr[SEC_EFEAT];
    ev->label = (int32_t *)ptr[SEC_LABEL];
    ev->ext_roll = (int8_t *)ptr[SEC_EXT_ROLL];
    ev->node_ids = (int64_t *)ptr[SEC_NODE_IDS];
    ev->node_dim = dn;
    ev->nfeat = (float *)ptr[SEC_NFEAT];
    ev->bipartite = (flags & FLAG_BIPARTITE) != 0;
    ev->num_periods = P;
    ev->period_x_dim = dx;
    ev->period_x = (float *)ptr[SEC_PERIOD_X];
    ev->period_y_dim = dy;
    ev->period_y = (float *)ptr[SEC_PERIOD_Y];
    ev->map = map;
    ev->map_len = (size_t)size;
    return DGNN_OK;
fail:
    munmap(map, (size_t)size);
    dgnn_events_init(ev);
    return rc;
}
