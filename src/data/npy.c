/* npy.c: NumPy .npy arrays: float32/float64 read as float32 (dgnn_read_npy; TGL's
 * edge_features.npy / node_features.npy), int64/int32 read as int64 (dgnn_read_npy_i64;
 * TGB's negative lists), and float32 / int64 written (the embeddings, the lists).
 *
 * Format (numpy.lib.format): "\x93NUMPY", major, minor, header length (uint16 LE for
 * v1, uint32 LE for v2/v3), then an ASCII python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and '\n', then the raw data. The dict is parsed with a small,
 * bounded parser (it is untrusted input); only the three keys numpy writes are known.
 * The data size is checked against the file size before anything is allocated, so a
 * header claiming a huge shape fails cleanly. NaN/inf values are rejected: downstream
 * layers would silently spread them. */
#include "dgnn/npy.h"
#include "dgnn/infile.h"
#include "dgnn/outfile.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c reads and writes little-endian '<f4'/'<f8'/'<i4'/'<i8' data directly: add byte swapping for big-endian hosts"
#endif

/* A cursor over the header dict text. */
typedef struct {
    const char *p, *end;
} cur;

static void skip_ws(cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int eat(cur *c, char ch) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted string ('...' or "..."); returns its bounds in [*s, *s + *n). */
static int parse_str(cur *c, const char **s, size_t *n) {
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return 0;
    char q = *c->p++;
    const char *a = c->p;
    while (c->p < c->end && *c->p != q) c->p++;
    if (c->p >= c->end) return 0;
    *s = a;
    *n = (size_t)(c->p - a);
    c->p++;
    return 1;
}

static int parse_word(cur *c, const char *w) {
    skip_ws(c);
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, w, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A tuple of non-negative ints: "()", "(5,)", "(5, 3)"; up to 8 dims kept. */
static int parse_shape(cur *c, int64_t *dims, int *ndim) {
    *ndim = 0;
    if (!eat(c, '(')) return 0;
    for (;;) {
        skip_ws(c);
        if (eat(c, ')')) return 1;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9') return 0;
        int64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            int dgt = *c->p++ - '0';
            if (v > (INT64_MAX - dgt) / 10) return 0; /* overflow */
            v = v * 10 + dgt;
        }
        if (c->p < c->end && *c->p == 'L') c->p++; /* python 2 longs */
        if (*ndim >= 8) return 0;
        dims[(*ndim)++] = v;
        if (eat(c, ',')) continue;
        return eat(c, ')');
    }
}

/* What the header says, checked against the file's size: the data are rows x cols
 * values of esz bytes from data_off to the end of the file. */
typedef struct {
    char descr[16];
    int64_t rows, cols;
    int esz;
} npy_info;

/* Opens path, parses and checks its header (magic, version, dict, C order, 1 or 2 dims)
 * and leaves *fp at the data. dtype(descr) gives the element size of a dtype the caller
 * reads, 0 for one it does not (then the message is `hint`). */
static int npy_open(const char *path, FILE **fp, npy_info *info, int (*dtype)(const char *, size_t),
                    const char *hint, dgnn_err *err) {
    *fp = NULL;
    memset(info, 0, sizeof *info);
    int rc = DGNN_OK;
    char *hdr = NULL;
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no .npy path given");
    int fd;
    int64_t fsize;
    if ((rc = dgnn_in_open(path, &fd, &fsize, err))) return rc; /* regular files only: fsize is the truth */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    }

    unsigned char pre[12];
    if (fsize == 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: empty file (0 bytes), not a .npy array", path);
        goto done;
    }
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: not a .npy file (no \\x93NUMPY magic at the start)", path);
        goto done;
    }
    int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3) {
        rc = dgnn_err_set(err, DGNN_EVERSION, "%s: .npy format version %d.%d is not supported (1.0, 2.0 and 3.0 are)",
                          path, major, minor);
        goto done;
    }
    int lensz = major == 1 ? 2 : 4;
    if (fread(pre + 8, 1, (size_t)lensz, f) != (size_t)lensz) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: truncated .npy header", path);
        goto done;
    }
    uint64_t hlen = major == 1 ? (uint64_t)pre[8] | (uint64_t)pre[9] << 8
                               : (uint64_t)pre[8] | (uint64_t)pre[9] << 8 | (uint64_t)pre[10] << 16 |
                                     (uint64_t)pre[11] << 24;
    if (hlen > (1u << 20)) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header length %llu is implausible (over 1 MiB)", path,
                          (unsigned long long)hlen);
        goto done;
    }
    hdr = malloc((size_t)hlen + 1);
    if (!hdr) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    if (fread(hdr, 1, (size_t)hlen, f) != (size_t)hlen) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: truncated .npy header (%llu bytes announced)", path,
                          (unsigned long long)hlen);
        goto done;
    }
    hdr[hlen] = '\0';

    /* the dict */
    const char *descr = NULL;
    size_t descr_n = 0;
    int fortran = -1, ndim = -1;
    int64_t dims[8];
    cur c = {hdr, hdr + hlen};
    if (!eat(&c, '{')) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header is not a dict: '{' expected", path);
        goto done;
    }
    for (;;) {
        if (eat(&c, '}')) break;
        const char *key;
        size_t kn;
        if (!parse_str(&c, &key, &kn) || !eat(&c, ':')) {
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header: malformed dict (expected 'key': value)", path);
            goto done;
        }
        int ok;
        if (kn == 5 && memcmp(key, "descr", 5) == 0) ok = parse_str(&c, &descr, &descr_n);
        else if (kn == 13 && memcmp(key, "fortran_order", 13) == 0)
            ok = parse_word(&c, "False") ? (fortran = 0, 1) : parse_word(&c, "True") ? (fortran = 1, 1) : 0;
        else if (kn == 5 && memcmp(key, "shape", 5) == 0) ok = parse_shape(&c, dims, &ndim);
        else {
            char k[64];
            snprintf(k, sizeof k, "%.*s", (int)(kn < 40 ? kn : 40), key);
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header: unknown key '%s'", path, k);
            goto done;
        }
        if (!ok) {
            char k[64];
            snprintf(k, sizeof k, "%.*s", (int)kn, key);
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header: malformed value for '%s'", path, k);
            goto done;
        }
        if (!eat(&c, ',')) {
            if (eat(&c, '}')) break;
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header: ',' or '}' expected", path);
            goto done;
        }
    }
    if (!descr || fortran < 0 || ndim < 0) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy header lacks '%s'", path,
                          !descr ? "descr" : fortran < 0 ? "fortran_order" : "shape");
        goto done;
    }
    snprintf(info->descr, sizeof info->descr, "%.*s", (int)(descr_n < 15 ? descr_n : 15), descr);
    int esz = dtype(descr, descr_n);
    if (!esz) {
        char d[64];
        snprintf(d, sizeof d, "%.*s", (int)(descr_n < 40 ? descr_n : 40), descr);
        rc = dgnn_err_set(err, DGNN_EUNSUPPORTED, "%s: .npy dtype '%s' is not supported: %s", path, d, hint);
        goto done;
    }
    if (fortran) {
        rc = dgnn_err_set(err, DGNN_EUNSUPPORTED,
                          "%s: .npy array is in Fortran order: save a C-ordered copy (np.ascontiguousarray)", path);
        goto done;
    }
    if (ndim < 1 || ndim > 2) {
        rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: .npy array has %d dimensions, expected 1 (n,) or 2 (n, d)", path,
                          ndim);
        goto done;
    }
    int64_t r = dims[0], k = ndim == 2 ? dims[1] : 1;
    int64_t data_off = 8 + lensz + (int64_t)hlen;
    int64_t avail = fsize - data_off;
    /* count <= avail / esz keeps every product below int64 range */
    if (k > 0 && r > (avail > 0 ? avail : 0) / esz / k) {
        rc = dgnn_err_set(err, DGNN_EFORMAT,
                          "%s: truncated .npy data: shape (%lld, %lld) needs more than the %lld bytes in the file",
                          path, (long long)r, (long long)k, (long long)(avail > 0 ? avail : 0));
        goto done;
    }
    int64_t count = r * k;
    if (count * esz != avail) {
        rc = dgnn_err_set(err, DGNN_EFORMAT,
                          "%s: .npy data is %lld bytes but shape (%lld, %lld) of %d-byte values needs %lld", path,
                          (long long)avail, (long long)r, (long long)k, esz, (long long)(count * esz));
        goto done;
    }
    info->rows = r;
    info->cols = k;
    info->esz = esz;
done:
    free(hdr);
    if (rc) fclose(f);
    else *fp = f;
    return rc;
}

static int is_descr(const char *d, size_t n, const char *want) { return n == 3 && memcmp(d, want, 3) == 0; }
static int float_dtype(const char *d, size_t n) { return is_descr(d, n, "<f4") ? 4 : is_descr(d, n, "<f8") ? 8 : 0; }
static int int_dtype(const char *d, size_t n) { return is_descr(d, n, "<i4") ? 4 : is_descr(d, n, "<i8") ? 8 : 0; }

int dgnn_read_npy(const char *path, float **out, int64_t *rows, int64_t *cols, dgnn_err *err) {
    *out = NULL;
    *rows = *cols = 0;
    float *data = NULL;
    double *chunk = NULL;
    FILE *f;
    npy_info h;
    int rc = npy_open(path, &f, &h, float_dtype,
                      "save as float32 ('<f4') or float64 ('<f8'), e.g. np.save(path, a.astype(np.float32))", err);
    if (rc) return rc;
    int64_t count = h.rows * h.cols, k = h.cols;
    data = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
    if (!data) {
        rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory for %lld values", path, (long long)count);
        goto done;
    }
    if (h.esz == 4) {
        if (fread(data, 4, (size_t)count, f) != (size_t)count) {
            rc = dgnn_err_set(err, DGNN_EIO, "%s: read error: %s", path, strerror(errno ? errno : EIO));
            goto done;
        }
    } else {
        enum { CHUNK = 1 << 16 };
        chunk = malloc(CHUNK * sizeof(double));
        if (!chunk) {
            rc = dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
            goto done;
        }
        for (int64_t i = 0; i < count;) {
            size_t m = (size_t)(count - i < CHUNK ? count - i : CHUNK);
            if (fread(chunk, 8, m, f) != m) {
                rc = dgnn_err_set(err, DGNN_EIO, "%s: read error: %s", path, strerror(errno ? errno : EIO));
                goto done;
            }
            for (size_t j = 0; j < m; j++, i++) {
                if (fabs(chunk[j]) > FLT_MAX && isfinite(chunk[j])) {
                    rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: row %lld, column %lld: value %g overflows float32", path,
                                      (long long)(i / k), (long long)(i % k), chunk[j]);
                    goto done;
                }
                data[i] = (float)chunk[j];
            }
        }
    }
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(data[i])) {
            rc = dgnn_err_set(err, DGNN_EFORMAT, "%s: row %lld, column %lld: %s value (features must be finite)", path,
                              (long long)(i / k), (long long)(i % k), isnan(data[i]) ? "NaN" : "infinite");
            goto done;
        }
    *out = data;
    data = NULL;
    *rows = h.rows;
    *cols = h.cols;
done:
    free(chunk);
    free(data);
    fclose(f);
    return rc;
}

int dgnn_read_npy_i64(const char *path, int64_t **out, int64_t *rows, int64_t *cols, dgnn_err *err) {
    *out = NULL;
    *rows = *cols = 0;
    FILE *f;
    npy_info h;
    int rc = npy_open(path, &f, &h, int_dtype,
                      "save as int64 ('<i8') or int32 ('<i4'), e.g. np.save(path, a.astype(np.int64))", err);
    if (rc) return rc;
    int64_t count = h.rows * h.cols;
    int64_t *data = malloc((size_t)(count > 0 ? count : 1) * sizeof(int64_t));
    if (!data) {
        fclose(f);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory for %lld values", path, (long long)count);
    }
    if (fread(data, (size_t)h.esz, (size_t)count, f) != (size_t)count) {
        rc = dgnn_err_set(err, DGNN_EIO, "%s: read error: %s", path, strerror(errno ? errno : EIO));
        free(data);
        fclose(f);
        return rc;
    }
    fclose(f);
    if (h.esz == 4) /* widen in place, from the end so no value is overwritten before it is read */
        for (int64_t i = count - 1; i >= 0; i--) {
            int32_t v;
            memcpy(&v, (const char *)data + (size_t)i * 4, 4);
            data[i] = v;
        }
    *out = data;
    *rows = h.rows;
    *cols = h.cols;
    return DGNN_OK;
}

/* ---- writers ---- */

/* The version 1.0 header numpy writes: magic, 1, 0, the uint16 LE dict length, the dict
 * padded with spaces and ended by '\n' so that the data start at a multiple of 64 bytes
 * (numpy.lib.format's ARRAY_ALIGN): byte for byte what np.save writes for the same
 * C-ordered 2-d array. Returns the header's length in buf. */
static size_t npy_header(char *buf, size_t cap, const char *descr, int64_t rows, int64_t cols) {
    char dict[160];
    int n = cols < 0 /* 1-d (rows,) */
                ? snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }", descr,
                           (long long)rows)
                : snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }",
                           descr, (long long)rows, (long long)cols);
    /* numpy (format.py, _write_array_header) leaves room for the first axis to grow:
     * GROWTH_AXIS_MAX_DIGITS (21) minus the digits of that axis, in spaces */
    char first[24];
    int nd = snprintf(first, sizeof first, "%lld", (long long)rows);
    n += 21 - nd > 0 ? 21 - nd : 0;
    size_t total = 10 + (size_t)n + 1; /* + '\n' */
    size_t padded = (total + 63) / 64 * 64;
    DGNN_ASSERT(padded <= cap);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    size_t hlen = padded - 10;
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    size_t dn = strlen(dict);
    memcpy(buf + 10, dict, dn);
    memset(buf + 10 + dn, ' ', padded - 10 - dn - 1);
    buf[padded - 1] = '\n';
    return padded;
}

static int npy_write(const char *path, const char *descr, const void *a, int64_t rows, int64_t cols, size_t esz,
                     dgnn_err *err) {
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no .npy path given");
    if (rows < 0 || cols < -1)
        return dgnn_err_set(err, DGNN_EINVAL, "%s: cannot write a .npy array of shape (%lld, %lld)", path,
                            (long long)rows, (long long)cols);
    char hdr[256];
    size_t hn = npy_header(hdr, sizeof hdr, descr, rows, cols);
    dgnn_outfile *o;
    int rc = dgnn_outfile_open(&o, path, 0, err);
    if (rc) return rc;
    FILE *f = dgnn_outfile_stream(o);
    if (!f) {
        dgnn_outfile_abort(o);
        return dgnn_err_set(err, DGNN_ENOMEM, "%s: out of memory", path);
    }
    size_t count = (size_t)dgnn_size_mul(rows, cols < 0 ? 1 : cols);
    fwrite(hdr, 1, hn, f);
    if (count) fwrite(a, esz, count, f); /* a failing write is kept by the stream and reported by commit */
    return dgnn_outfile_commit(o, err);
}

int dgnn_write_npy_f32_vec(const char *path, const float *a, int64_t n, dgnn_err *err) {
    return npy_write(path, "<f4", a, n, -1, sizeof(float), err);
}

int dgnn_write_npy_f32(const char *path, const float *a, int64_t rows, int64_t cols, dgnn_err *err) {
    return npy_write(path, "<f4", a, rows, cols, sizeof(float), err);
}

int dgnn_write_npy_i64(const char *path, const int64_t *a, int64_t rows, int64_t cols, dgnn_err *err) {
    return npy_write(path, "<i8", a, rows, cols, sizeof(int64_t), err);
}
