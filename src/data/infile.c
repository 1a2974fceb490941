/* infile.c: opening input files (regular files only, never blocking) and naming what a
 * file is when it is not text (see infile.h for why). */
#include "dgnn/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why path (of mode m) cannot be read as a dataset, or NULL for a regular file. */
static const char *not_regular(mode_t m) {
    if (S_ISREG(m)) return NULL;
    if (S_ISDIR(m)) return "is a folder, expected a file";
    if (S_ISFIFO(m))
        return "is a FIFO (named pipe), not a regular file: dgnn reads its inputs from regular files only "
               "(save the stream to a file first)";
    if (S_ISCHR(m))
        return "is a character device (such as /dev/zero or a terminal), not a regular file: dgnn reads its inputs "
               "from regular files only";
    if (S_ISBLK(m)) return "is a block device, not a regular file: dgnn reads its inputs from regular files only";
    if (S_ISSOCK(m)) return "is a socket, not a regular file: dgnn reads its inputs from regular files only";
    return "is not a regular file: dgnn reads its inputs from regular files only";
}

int dgnn_in_open(const char *path, int *fd, int64_t *size, dgnn_err *err) {
    *fd = -1;
    *size = 0;
    if (!path) return dgnn_err_set(err, DGNN_EINVAL, "no input path given");
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && strcmp(path, "-") == 0) /* no file of that name: standard input meant */
            return dgnn_err_set(err, DGNN_EIO, "-: standard input is not read: dgnn reads its inputs from regular "
                                               "files only (save the stream to a file first)");
        return dgnn_err_set(err, DGNN_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    const char *why = not_regular(st.st_mode);
    if (why) return dgnn_err_set(err, DGNN_EIO, "%s: %s", path, why);
    /* O_NONBLOCK: if the path was swapped for a FIFO since the stat, open still returns */
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (f < 0) return dgnn_err_set(err, DGNN_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return dgnn_err_set(err, DGNN_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    if ((why = not_regular(st.st_mode))) {
        close(f);
        return dgnn_err_set(err, DGNN_EIO, "%s: %s", path, why);
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    *size = (int64_t)st.st_size;
    return DGNN_OK;
}

/* ---- sniffing ------------------------------------------------------------------------ */

static int starts(const unsigned char *p, size_t n, const char *magic, size_t k) {
    return n >= k && memcmp(p, magic, k) == 0;
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid, -1 if cut by the end. */
static int utf8_len(const unsigned char *p, size_t n) {
    unsigned char c = p[0];
    int k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (k == 0 || (k == 2 && c < 0xC2) || (k == 4 && c > 0xF4)) return 0; /* overlong or past U+10FFFF */
    for (int i = 1; i < k; i++) {
        if ((size_t)i >= n) return -1;
        if ((p[i] & 0xC0) != 0x80) return 0;
    }
    return k;
}

/* Whether the bytes at off, off + stride, ... below q that are not NUL are text: at least
 * 90% of them printable ASCII or white space. Text in UTF-16/32 has its characters there;
 * binary data with NULs in the same places (small little-endian integers: a .dgnn whose
 * header is damaged) has control bytes. */
static int text_at(const unsigned char *p, size_t q, size_t stride, size_t off) {
    size_t chars = 0, text = 0;
    for (size_t i = off; i < q; i += stride) {
        if (p[i] == 0) continue;
        chars++;
        text += (p[i] >= 0x20 && p[i] < 0x7F) || p[i] == '\t' || p[i] == '\n' || p[i] == '\r';
    }
    return chars > 0 && text * 10 >= chars * 9;
}

const char *dgnn_in_sniff(const unsigned char *p, size_t n, char *buf, size_t cap) {
    if (n > 4096) n = 4096;
    if (n == 0) return NULL;
    static const struct {
        const char *magic;
        size_t len;
        const char *what;
    } known[] = {
        /* UTF-32 before UTF-16: FF FE 00 00 starts with the UTF-16 mark */
        {"\xFF\xFE\0\0", 4, "UTF-32 text (little-endian, byte-order mark FF FE 00 00): convert it to UTF-8, e.g. "
                            "iconv -f UTF-32 -t UTF-8 IN > OUT"},
        {"\0\0\xFE\xFF", 4, "UTF-32 text (big-endian, byte-order mark 00 00 FE FF): convert it to UTF-8, e.g. "
                            "iconv -f UTF-32 -t UTF-8 IN > OUT"},
        {"\xFF\xFE", 2, "UTF-16 text (little-endian, byte-order mark FF FE): convert it to UTF-8, e.g. "
                        "iconv -f UTF-16 -t UTF-8 IN > OUT"},
        {"\xFE\xFF", 2, "UTF-16 text (big-endian, byte-order mark FE FF): convert it to UTF-8, e.g. "
                        "iconv -f UTF-16 -t UTF-8 IN > OUT"},
        {"DGNNDATA", 8, "a dgnn binary file (.dgnn), not text: let the format be detected (no --format) or "
                        "pass --format dgnn"},
        {"\x93NUMPY", 6, "a NumPy .npy array, not text: TGL feature files go beside edges.csv, or with "
                         "--edge-feat / --node-feat"},
        {"\x1F\x8B", 2, "gzip-compressed data, not text: decompress it first (gunzip -k FILE)"},
        {"PK\x03\x04", 4, "a zip archive, not text: extract it first (unzip FILE)"},
        {"BZh", 3, "bzip2-compressed data, not text: decompress it first (bunzip2 -k FILE)"},
        {"\xFD" "7zXZ\0", 6, "xz-compressed data, not text: decompress it first (unxz -k FILE)"},
        {"\x28\xB5\x2F\xFD", 4, "zstd-compressed data, not text: decompress it first (unzstd FILE)"},
        {"PAR1", 4, "a Parquet file, not text: export it to csv first"},
        {"\x7F" "ELF", 4, "an executable (ELF), not a dataset"},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (starts(p, n, known[k].magic, known[k].len)) {
            snprintf(buf, cap, "%s", known[k].what);
            return buf;
        }
    if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5) {
        snprintf(buf, cap, "a Python pickle, not text: export it to csv (or .npy) first");
        return buf;
    }
    /* UTF-16/32 without a byte-order mark: ASCII text then has NUL bytes in fixed
     * positions (every other byte for UTF-16, three of four for UTF-32) */
    if (n >= 8) {
        size_t z[4] = {0, 0, 0, 0}, q = n / 4 * 4;
        for (size_t i = 0; i < q; i++) z[i % 4] += p[i] == 0;
        size_t quarter = q / 4; /* bytes per position */
        int hi[4], lo[4];
        for (int r = 0; r < 4; r++) hi[r] = z[r] * 4 >= quarter * 3, lo[r] = z[r] * 8 < quarter;
        if (lo[0] && hi[1] && hi[2] && hi[3] && text_at(p, q, 4, 0)) {
            snprintf(buf, cap, "UTF-32 text (little-endian, no byte-order mark): convert it to UTF-8, e.g. "
                               "iconv -f UTF-32LE -t UTF-8 IN > OUT");
            return buf;
        }
        if (hi[0] && hi[1] && hi[2] && lo[3] && text_at(p, q, 4, 3)) {
            snprintf(buf, cap, "UTF-32 text (big-endian, no byte-order mark): convert it to UTF-8, e.g. "
                               "iconv -f UTF-32BE -t UTF-8 IN > OUT");
            return buf;
        }
        if (lo[0] && lo[2] && hi[1] && hi[3] && text_at(p, q, 2, 0)) {
            snprintf(buf, cap, "UTF-16 text (little-endian, no byte-order mark): convert it to UTF-8, e.g. "
                               "iconv -f UTF-16LE -t UTF-8 IN > OUT");
            return buf;
        }
        if (hi[0] && hi[2] && lo[1] && lo[3] && text_at(p, q, 2, 1)) {
            snprintf(buf, cap, "UTF-16 text (big-endian, no byte-order mark): convert it to UTF-8, e.g. "
                               "iconv -f UTF-16BE -t UTF-8 IN > OUT");
            return buf;
        }
    }
    /* other binary data: many control bytes or invalid UTF-8 sequences */
    size_t odd = 0, first = n;
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        int k = 1, bad_byte = 0;
        if (c < 0x20) bad_byte = !(c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v');
        else if (c == 0x7F) bad_byte = 1;
        else if (c >= 0x80) {
            k = utf8_len(p + i, n - i);
            if (k < 0) break; /* a sequence cut by the end of the block */
            if (k == 0) bad_byte = 1, k = 1;
        }
        if (bad_byte) {
            odd++;
            if (first == n) first = i;
        }
        i += (size_t)k;
    }
    if (odd * 10 > n) {
        snprintf(buf, cap,
                 "binary data, not text: %zu of its first %zu bytes are control bytes or invalid UTF-8 "
                 "(the first, 0x%02X, at byte %zu)",
                 odd, n, p[first], first);
        return buf;
    }
    return NULL;
}
