/* base.c: status strings, error messages, checked allocation and assertions. */
#include "dgnn/base.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *dgnn_status_str(int code) {
    switch (code) {
    case DGNN_OK: return "ok";
    case DGNN_EIO: return "I/O error";
    case DGNN_EFORMAT: return "format error";
    case DGNN_ENOMEM: return "out of memory";
    case DGNN_EINVAL: return "invalid argument";
    case DGNN_EVERSION: return "unsupported version";
    case DGNN_ECHECKSUM: return "checksum mismatch";
    case DGNN_EUNSUPPORTED: return "unsupported";
    case DGNN_EDEVICE: return "GPU error";
    case DGNN_EINTR: return "interrupted";
    default: return "unknown error";
    }
}

int dgnn_err_set(dgnn_err *e, int code, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

int dgnn_err_range(dgnn_err *e, const char *who, const char *what, int64_t v, int64_t min, int64_t max) {
    if (v >= min && v <= max) return DGNN_OK;
    if (max == INT64_MAX)
        return dgnn_err_set(e, DGNN_EINVAL, "%s: %s must be >= %lld (got %lld)", who, what, (long long)min,
                            (long long)v);
    return dgnn_err_set(e, DGNN_EINVAL, "%s: %s must be in [%lld, %lld] (got %lld)", who, what, (long long)min,
                        (long long)max, (long long)v);
}

void dgnn_err_clear(dgnn_err *e) {
    if (e) {
        e->code = DGNN_OK;
        e->msg[0] = '\0';
    }
}

void dgnn_assert_fail(const char *expr, const char *file, int line) {
    fprintf(stderr, "dgnn: internal error: assertion `%s` failed at %s:%d\n", expr, file, line);
    fflush(stderr);
    abort();
}

static void oom(size_t n) {
    fprintf(stderr, "dgnn: out of memory allocating %zu bytes\n", n);
    abort();
}

void *dgnn_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *dgnn_xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) oom(count * size);
    return p;
}

void *dgnn_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

int64_t dgnn_size_mul(int64_t a, int64_t b) {
    if (a < 0 || b < 0) return INT64_MAX;
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t dgnn_size_add(int64_t a, int64_t b) {
    if (a < 0 || b < 0) return INT64_MAX;
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

char *dgnn_fmt_bytes(char *buf, size_t cap, double b) {
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) b /= 1024, u++;
    if (u == 0) snprintf(buf, cap, "%.0f B", b);
    else snprintf(buf, cap, "%.1f %s", b, unit[u]);
    return buf;
}

char *dgnn_fmt_count(char *buf, size_t cap, int64_t n) {
    char tmp[32];
    int neg = n < 0;
    uint64_t u = neg ? (uint64_t)(-(n + 1)) + 1 : (uint64_t)n;
    int len = 0, digits = 0;
    do {
        if (digits && digits % 3 == 0) tmp[len++] = ',';
        tmp[len++] = (char)('0' + u % 10);
        u /= 10;
        digits++;
    } while (u);
    if (neg) tmp[len++] = '-';
    size_t j = 0;
    for (int i = len - 1; i >= 0 && j + 1 < cap; i--) buf[j++] = tmp[i];
    if (cap) buf[j < cap ? j : cap - 1] = '\0';
    return buf;
}

char *dgnn_fmt_metric(char *buf, size_t cap, double x) {
    /* a loss that diverged (1.2e28) would not fit the callers' 16 bytes as %.4f */
    if (isfinite(x) && fabs(x) < 1e6) snprintf(buf, cap, "%.4f", x);
    else if (isfinite(x)) snprintf(buf, cap, "%.4g", x);
    else snprintf(buf, cap, "n/a");
    return buf;
}
