/* test_npy.c: the .npy writers (float32, int64) and the integer reader: round trips,
 * the header numpy writes (version 1.0, padded to 64 bytes), hand-made int32 files and
 * the errors. (The float reader's hand-made files are in test_readers.c.) */
#include "check.h"
#include "dgnn/npy.h"

#include <stdint.h>
#include <sys/stat.h>

static char g_dir[64];
static const char *P(const char *name) {
    static char buf[8][256];
    static int slot = 0;
    char *b = buf[slot++ % 8];
    snprintf(b, 256, "%s/%s", g_dir, name);
    return b;
}

static long file_bytes(const char *path, unsigned char *buf, long cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    long n = (long)fread(buf, 1, (size_t)cap, f);
    fclose(f);
    return n;
}

static void test_write_read(void) {
    dgnn_err e;
    const float a[6] = {1.5f, -2, 0, 3.25f, 1e-3f, 7};
    const char *pf = P("a.npy");
    CHECK_MSG(dgnn_write_npy_f32(pf, a, 2, 3, &e) == 0, "%s", e.msg);
    unsigned char raw[256];
    long n = file_bytes(pf, raw, sizeof raw);
    /* 64-byte header, then 24 bytes of data */
    /* as np.save: 60 dict bytes + 20 growth spaces, padded to 128 */
    CHECK(n == 128 + 24);
    CHECK(memcmp(raw, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK(raw[8] + 256 * raw[9] == 118 && raw[127] == '\n');
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    CHECK(memcmp(raw + 10, dict, strlen(dict)) == 0);
    CHECK(raw[10 + strlen(dict)] == ' ');
    float *v;
    int64_t r, c;
    CHECK_MSG(dgnn_read_npy(pf, &v, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 2 && c == 3 && memcmp(v, a, sizeof a) == 0);
    free(v);

    const int64_t b[4] = {-1, 0, (int64_t)1 << 40, 42};
    const char *pi = P("b.npy");
    CHECK_MSG(dgnn_write_npy_i64(pi, b, 4, 1, &e) == 0, "%s", e.msg);
    n = file_bytes(pi, raw, sizeof raw);
    CHECK(n == 128 + 32);
    CHECK(memcmp(raw + 10, "{'descr': '<i8', 'fortran_order': False, 'shape': (4, 1), }", 59) == 0);
    int64_t *w;
    CHECK_MSG(dgnn_read_npy_i64(pi, &w, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 4 && c == 1 && memcmp(w, b, sizeof b) == 0);
    free(w);
    /* an empty array */
    CHECK_MSG(dgnn_write_npy_i64(P("e.npy"), b, 0, 5, &e) == 0, "%s", e.msg);
    CHECK_MSG(dgnn_read_npy_i64(P("e.npy"), &w, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 0 && c == 5);
    free(w);
    /* another shape: still 128 (the data start at a multiple of 64) */
    CHECK_MSG(dgnn_write_npy_f32(P("big.npy"), a, 1, 6, &e) == 0, "%s", e.msg);
    n = file_bytes(P("big.npy"), raw, sizeof raw);
    CHECK(n == 128 + 24 && raw[127] == '\n');
}

/* A hand-made v1.0 .npy of int32 (what np.save writes for an int32 array). */
static void test_int32(void) {
    const char *dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
    unsigned char buf[192];
    memset(buf, ' ', 128);
    memcpy(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
    memcpy(buf + 10, dict, strlen(dict));
    buf[127] = '\n';
    const int32_t d[4] = {7, -1, 2147483647, -2147483647 - 1};
    memcpy(buf + 128, d, 16);
    check_write_file(P("i4.npy"), (const char *)buf, 144);
    int64_t *w, r, c;
    dgnn_err e;
    CHECK_MSG(dgnn_read_npy_i64(P("i4.npy"), &w, &r, &c, &e) == 0, "%s", e.msg);
    CHECK(r == 2 && c == 2 && w[0] == 7 && w[1] == -1 && w[2] == 2147483647 && w[3] == -2147483648LL);
    free(w);
    /* a float file is refused by the integer reader, naming the file and the dtype */
    const float a[2] = {1, 2};
    CHECK(dgnn_write_npy_f32(P("f.npy"), a, 1, 2, &e) == 0);
    CHECK(dgnn_read_npy_i64(P("f.npy"), &w, &r, &c, &e) == DGNN_EUNSUPPORTED);
    CHECK_MSG(strstr(e.msg, "f.npy") && strstr(e.msg, "'<f4'") && strstr(e.msg, "int64"), "%s", e.msg);
    /* and an integer file by the float reader */
    float *v;
    CHECK(dgnn_read_npy(P("i4.npy"), &v, &r, &c, &e) == DGNN_EUNSUPPORTED);
    CHECK_MSG(strstr(e.msg, "i4.npy") && strstr(e.msg, "'<i4'"), "%s", e.msg);
    /* truncated data */
    check_write_file(P("i4t.npy"), (const char *)buf, 140);
    CHECK(dgnn_read_npy_i64(P("i4t.npy"), &w, &r, &c, &e) == DGNN_EFORMAT);
    CHECK_MSG(strstr(e.msg, "i4t.npy") && strstr(e.msg, "truncated"), "%s", e.msg);
    /* a writer into a missing folder names the path */
    const int64_t z[1] = {0};
    CHECK(dgnn_write_npy_i64("/nonexistent_dgnn_dir/x.npy", z, 1, 1, &e) != 0);
    CHECK_MSG(strstr(e.msg, "/nonexistent_dgnn_dir"), "%s", e.msg);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/dgnn_npy_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_write_read();
    test_int32();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd)) { /* best effort */
    }
    return check_done();
}
