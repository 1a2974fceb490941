/* test_binfmt.c: the .dgnn binary format: checksum vectors, round trips (every optional
 * section, empty tables, streaming writer == save), and a loader that rejects every
 * corruption with the right status and a message naming the file and the field. */
#include "check.h"
#include "dgnn/binfmt.h"
#include "dgnn/readers.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>

static char g_dir[256];

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }
static void set32(unsigned char *p, uint32_t x) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(x >> 8 * i); }
static void set64(unsigned char *p, uint64_t x) { for (int i = 0; i < 8; i++) p[i] = (unsigned char)(x >> 8 * i); }

/* Recomputes the header checksum (bytes [0,120) then the table), as a forger would. */
static void fix_header_checksum(unsigned char *b) {
    uint32_t ns = le32(b + 80);
    size_t n = 120 + (size_t)ns * 32;
    unsigned char *tmp = malloc(n);
    memcpy(tmp, b, 120);
    memcpy(tmp + 120, b + 128, (size_t)ns * 32);
    set64(b + 120, dgnn_bin_checksum(tmp, n));
    free(tmp);
}

/* Table entry of the section called name, or NULL. */
static const char *const NAMES[] = {"?", "src", "dst", "t", "efeat", "label", "ext_roll", "node_ids", "nfeat", "period_x", "period_y"};
static unsigned char *entry_of(unsigned char *b, const char *name) {
    uint32_t ns = le32(b + 80);
    for (uint32_t i = 0; i < ns; i++) {
        unsigned char *e = b + 128 + (size_t)i * 32;
        uint32_t id = le32(e);
        if (id >= 1 && id <= 10 && strcmp(NAMES[id], name) == 0) return e;
    }
    return NULL;
}

/* Recomputes a section's checksum, then the header's: a forger who knows the format, so
 * that a wrong value reaches the semantic checks behind the checksums. */
static void reseal(unsigned char *b, const char *name) {
    unsigned char *e = entry_of(b, name);
    set64(e + 24, dgnn_bin_checksum(b + le64(e + 8), (size_t)le64(e + 16)));
    fix_header_checksum(b);
}

/* Writes bytes to a file in the test folder and loads it; returns the status and fills err. */
static int load_bytes(const unsigned char *b, size_t n, int verify, dgnn_err *err) {
    char path[512];
    snprintf(path, sizeof path, "%s/bad.dgnn", g_dir);
    check_write_file(path, (const char *)b, n);
    dgnn_events ev;
    int rc = dgnn_load_binary(&ev, path, verify, err);
    if (rc == DGNN_OK) dgnn_events_free(&ev);
    else CHECK(ev.src == NULL && ev.map == NULL && ev.num_events == 0); /* left empty */
    return rc;
}

#define EXPECT_FAIL(bytes, n, verify, code, substr)                                                     \
    do {                                                                                               \
        dgnn_err e_;                                                                                   \
        dgnn_err_clear(&e_);                                                                           \
        int rc_ = load_bytes(bytes, n, verify, &e_);                                                   \
        CHECK_MSG(rc_ == (code), "status %d, expected %d (%s)", rc_, code, e_.msg);                    \
        CHECK_MSG(strstr(e_.msg, substr) != NULL, "message '%s' lacks '%s'", e_.msg, substr);         \
        CHECK_MSG(strstr(e_.msg, "bad.dgnn") != NULL, "message '%s' does not name the file", e_.msg); \
    } while (0)

static int count_tmp_files(void) {
    DIR *d = opendir(g_dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) n += strstr(de->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* A hand-made table with every optional section. */
enum { E0 = 5, N0 = 4, DE = 3, DN = 2, P0 = 2, DX = 2, DY = 1 };
static int32_t T_src[E0] = {0, 1, 2, 3, 0}, T_dst[E0] = {1, 2, 3, 0, 2}, T_label[E0] = {0, 1, 0, 0, 1};
static double T_t[E0] = {0, 1, 1, 1, 1}; /* period indices: the table has P0 = 2 periods */
static int8_t T_roll[E0] = {0, 0, 1, 2, 2};
static int64_t T_ids[N0] = {5, 10, 20, 30}; /* original ids: increasing, as every reader keeps them */
static float T_efeat[E0 * DE], T_nfeat[N0 * DN], T_px[P0 * N0 * DX], T_py[P0 * N0 * DY];

static dgnn_events full_table(void) {
    for (int i = 0; i < E0 * DE; i++) T_efeat[i] = 0.25f * (float)i - 1.0f;
    for (int i = 0; i < N0 * DN; i++) T_nfeat[i] = (float)i * 1.5f;
    for (int i = 0; i < P0 * N0 * DX; i++) T_px[i] = -(float)i;
    for (int i = 0; i < P0 * N0 * DY; i++) T_py[i] = (float)i / 3.0f;
    dgnn_events ev;
    dgnn_events_init(&ev);
    ev.num_events = E0; ev.num_nodes = N0;
    ev.src = T_src; ev.dst = T_dst; ev.t = T_t;
    ev.edge_dim = DE; ev.efeat = T_efeat; ev.label = T_label; ev.ext_roll = T_roll;
    ev.node_ids = T_ids; ev.node_dim = DN; ev.nfeat = T_nfeat;
    ev.bipartite = 0;
    ev.num_periods = P0; ev.period_x_dim = DX; ev.period_x = T_px; ev.period_y_dim = DY; ev.period_y = T_py;
    return ev;
}

static int same_table(const dgnn_events *a, const dgnn_events *b) {
#define SAME(f, n) ((a->f == NULL) == (b->f == NULL) && (!a->f || memcmp(a->f, b->f, (size_t)(n) * sizeof *a->f) == 0))
    return a->num_events == b->num_events && a->num_nodes == b->num_nodes && a->edge_dim == b->edge_dim &&
           a->node_dim == b->node_dim && a->num_periods == b->num_periods && a->period_x_dim == b->period_x_dim &&
           a->period_y_dim == b->period_y_dim && a->bipartite == b->bipartite && SAME(src, a->num_events) &&
           SAME(dst, a->num_events) && SAME(t, a->num_events) && SAME(efeat, a->num_events * a->edge_dim) &&
           SAME(label, a->num_events) && SAME(ext_roll, a->num_events) && SAME(node_ids, a->num_nodes) &&
           SAME(nfeat, a->num_nodes * a->node_dim) &&
           SAME(period_x, a->num_periods * a->num_nodes * a->period_x_dim) &&
           SAME(period_y, a->num_periods * a->num_nodes * a->period_y_dim);
#undef SAME
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/dgnn_test_binfmt_XXXXXX");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    char path[512], path2[512];
    dgnn_err err;

    /* ---- checksum: XXH64 reference vectors (short, tail-only, and >= 32-byte paths) ---- */
    CHECK(dgnn_bin_checksum("", 0) == 0xEF46DB3751D8E999ULL);
    CHECK(dgnn_bin_checksum("a", 1) == 0xD24EC4F1A98C6E5BULL);
    CHECK(dgnn_bin_checksum("abc", 3) == 0x44BC2CF5AD770999ULL);
    const char *spam = "Nobody inspects the spammish repetition";
    CHECK(dgnn_bin_checksum(spam, strlen(spam)) == 0xFBCEA83C8A378BF1ULL);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    CHECK(dgnn_bin_checksum(fox, strlen(fox)) == 0x0B242D361FDA71BCULL);
    char a32[32];
    memset(a32, 'a', 32);
    CHECK(dgnn_bin_checksum(a32, 32) == 0x856E843298F99AD7ULL);

    /* ---- round trip with every optional section ---- */
    dgnn_events in = full_table(), out;
    snprintf(path, sizeof path, "%s/full.dgnn", g_dir);
    CHECK_MSG(dgnn_save_binary(&in, path, &err) == DGNN_OK, "%s", err.msg);
    CHECK(dgnn_detect_format(path) == DGNN_FMT_BINARY);
    CHECK_MSG(dgnn_load_binary(&out, path, 1, &err) == DGNN_OK, "%s", err.msg);
    CHECK(out.map != NULL && out.map_len > 0);
    CHECK(same_table(&in, &out));
    CHECK(((uintptr_t)out.t % 64) == 0 && ((uintptr_t)out.node_ids % 64) == 0 && ((uintptr_t)out.period_y % 64) == 0);
    dgnn_events_free(&out);
    CHECK(out.src == NULL && out.map == NULL);
    in.bipartite = 1; /* a false claim (node 1 is a source and a destination) is refused */
    CHECK(dgnn_save_binary(&in, path, &err) == DGNN_EINVAL && strstr(err.msg, "declared bipartite"));
    CHECK(count_tmp_files() == 0);
    in.bipartite = 0;
    CHECK(dgnn_save_binary(&in, path, &err) == DGNN_OK);
    CHECK(count_tmp_files() == 0);

    /* each section checksum in the table is the checksum of the section's bytes */
    size_t n;
    unsigned char *good = slurp(path, &n);
    CHECK(good && n > 128 && memcmp(good, "DGNNDATA", 8) == 0 && le32(good + 8) == 1);
    CHECK(le32(good + 80) == 10);
    for (int id = 1; id <= 10; id++) {
        unsigned char *e = entry_of(good, NAMES[id]);
        CHECK(e != NULL);
        if (!e) continue;
        uint64_t off = le64(e + 8), len = le64(e + 16);
        CHECK(off % 64 == 0 && off + len <= n);
        CHECK_MSG(dgnn_bin_checksum(good + off, len) == le64(e + 24), "section %s", NAMES[id]);
    }

    /* ---- the streaming writer in uneven chunks writes the same bytes as save ---- */
    {
        snprintf(path2, sizeof path2, "%s/stream.dgnn", g_dir);
        dgnn_bin_layout lay = dgnn_bin_layout_of(&in);
        dgnn_bin_writer *w;
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        int64_t cuts[] = {0, 2, 3, 5};
        for (int k = 0; k < 3; k++) {
            int64_t a = cuts[k], m = cuts[k + 1] - a;
            CHECK_MSG(dgnn_bin_writer_events(w, m, T_src + a, T_dst + a, T_t + a, T_efeat + a * DE, T_label + a, T_roll + a,
                                             &err) == DGNN_OK, "%s", err.msg);
        }
        CHECK(dgnn_bin_writer_periods(w, T_px, T_py, &err) == DGNN_OK); /* order of section writes is free */
        CHECK(dgnn_bin_writer_nodes(w, T_ids, T_nfeat, &err) == DGNN_OK);
        int64_t bytes = 0;
        CHECK(dgnn_bin_writer_finish(w, &bytes, &err) == DGNN_OK);
        size_t n2;
        unsigned char *b2 = slurp(path2, &n2);
        CHECK(b2 && n2 == n && (int64_t)n2 == bytes && memcmp(b2, good, n) == 0);
        free(b2);

        /* finishing early, appending too much, bad rows: errors, and no file is left behind */
        snprintf(path2, sizeof path2, "%s/partial.dgnn", g_dir);
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 2, T_src, T_dst, T_t, T_efeat, T_label, T_roll, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 4, T_src, T_dst, T_t, T_efeat, T_label, T_roll, &err) == DGNN_EINVAL);
        CHECK(dgnn_bin_writer_events(w, 1, T_src, T_dst, T_t, T_efeat, T_label, T_roll, &err) == DGNN_EINVAL);
        CHECK_MSG(strstr(err.msg, "sorted by time") != NULL, "%s", err.msg); /* t=0.5 after t=1.0 */
        int32_t bad_id = N0;
        CHECK(dgnn_bin_writer_events(w, 1, &bad_id, T_dst, T_t + 4, T_efeat, T_label, T_roll, &err) == DGNN_EINVAL);
        CHECK(dgnn_bin_writer_events(w, 1, T_src, T_dst, T_t + 4, T_efeat, NULL, T_roll, &err) == DGNN_EINVAL);
        CHECK(dgnn_bin_writer_finish(w, NULL, &err) == DGNN_EINVAL);
        CHECK_MSG(strstr(err.msg, "incomplete") != NULL, "%s", err.msg);
        CHECK(access(path2, F_OK) != 0 && count_tmp_files() == 0);
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        dgnn_bin_writer_abort(w);
        CHECK(access(path2, F_OK) != 0 && count_tmp_files() == 0);
        dgnn_bin_writer_abort(NULL);
    }

    /* ---- bipartite computed by the writer (-1) ---- */
    {
        snprintf(path2, sizeof path2, "%s/bip.dgnn", g_dir);
        dgnn_bin_layout lay;
        memset(&lay, 0, sizeof lay);
        lay.num_events = 2, lay.num_nodes = 4, lay.bipartite = -1;
        int32_t s1[2] = {0, 1}, d1[2] = {2, 3};
        double t1[2] = {1, 2};
        dgnn_bin_writer *w;
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 2, s1, d1, t1, NULL, NULL, NULL, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_finish(w, NULL, &err) == DGNN_OK);
        CHECK(dgnn_load_binary(&out, path2, 1, &err) == DGNN_OK && out.bipartite == 1 && out.label == NULL &&
              out.efeat == NULL && out.node_ids == NULL);
        dgnn_events_free(&out);
        d1[1] = 0; /* node 0 is now both */
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 2, s1, d1, t1, NULL, NULL, NULL, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_finish(w, NULL, &err) == DGNN_OK);
        CHECK(dgnn_load_binary(&out, path2, 1, &err) == DGNN_OK && out.bipartite == 0);
        dgnn_events_free(&out);
    }

    /* ---- empty tables ---- */
    {
        dgnn_events z;
        dgnn_events_init(&z);
        snprintf(path2, sizeof path2, "%s/empty.dgnn", g_dir);
        CHECK_MSG(dgnn_save_binary(&z, path2, &err) == DGNN_OK, "%s", err.msg);
        CHECK_MSG(dgnn_load_binary(&out, path2, 1, &err) == DGNN_OK, "%s", err.msg);
        CHECK(out.num_events == 0 && out.num_nodes == 0 && out.map != NULL && out.efeat == NULL && out.label == NULL);
        dgnn_events_free(&out);
        /* no events but nodes, with ids, features and an (empty) label column */
        int64_t ids[3] = {7, 8, 9};
        float nf[3] = {1, 2, 3};
        int32_t nolab = 0;
        z.num_nodes = 3, z.node_ids = ids, z.node_dim = 1, z.nfeat = nf, z.label = &nolab, z.edge_dim = 2;
        CHECK_MSG(dgnn_save_binary(&z, path2, &err) == DGNN_OK, "%s", err.msg);
        CHECK_MSG(dgnn_load_binary(&out, path2, 1, &err) == DGNN_OK, "%s", err.msg);
        CHECK(out.num_events == 0 && out.num_nodes == 3 && out.edge_dim == 2 && out.label != NULL && out.efeat != NULL);
        CHECK(out.node_ids && out.node_ids[2] == 9 && out.nfeat && out.nfeat[1] == 2.0f);
        dgnn_events_free(&out);
    }

    /* ---- bad tables are refused by save, and leave nothing on disk ---- */
    {
        dgnn_events bad = full_table();
        snprintf(path2, sizeof path2, "%s/refused.dgnn", g_dir);
        bad.efeat = NULL;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL);
        bad = full_table();
        double tt[E0] = {3, 2, 1, 0, -1};
        bad.t = tt;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL);
        CHECK(access(path2, F_OK) != 0 && count_tmp_files() == 0);
        snprintf(path2, sizeof path2, "%s/no/such/folder/x.dgnn", g_dir);
        CHECK(dgnn_save_binary(&in, path2, &err) == DGNN_EIO);
        CHECK(strstr(err.msg, "no/such/folder") != NULL);
    }

    /* ---- corruptions ---- */
    unsigned char *b = malloc(n);
    /* truncated at many lengths: never accepted */
    size_t first_off = (size_t)le64(entry_of(good, "src") + 8);
    size_t cuts[] = {0, 5, 8, 100, 127, 128, 128 + 32 * 5, first_off, first_off + 7, n / 2, n - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        dgnn_err e;
        int rc = load_bytes(good, cuts[k], 1, &e);
        CHECK_MSG(rc == DGNN_EFORMAT, "cut at %zu: status %d (%s)", cuts[k], rc, e.msg);
        if (cuts[k] >= 8) CHECK_MSG(strstr(e.msg, "truncated") != NULL, "cut at %zu: %s", cuts[k], e.msg);
        else if (cuts[k] == 0) CHECK_MSG(strstr(e.msg, "empty file (0 bytes)") != NULL, "cut at 0: %s", e.msg);
        else CHECK_MSG(strstr(e.msg, "bad magic") != NULL, "cut at %zu: %s", cuts[k], e.msg);
    }
    /* wrong magic */
    memcpy(b, good, n);
    b[3] ^= 0x20;
    EXPECT_FAIL(b, n, 1, DGNN_EFORMAT, "dgnn convert");
    /* a text file */
    EXPECT_FAIL((const unsigned char *)"user,item,timestamp,state_label\n0,1,2,0\n", 40, 1, DGNN_EFORMAT, "bad magic");
    /* newer version */
    memcpy(b, good, n);
    set32(b + 8, 2);
    EXPECT_FAIL(b, n, 1, DGNN_EVERSION, "newer dgnn (version 2)");
    EXPECT_FAIL(b, 12, 1, DGNN_EVERSION, "this build reads version 1"); /* even when short: v2 may be smaller */
    memcpy(b, good, n);
    set32(b + 8, 0);
    EXPECT_FAIL(b, n, 1, DGNN_EFORMAT, "version");
    /* a flipped byte in each section: caught with verify, named */
    for (int id = 1; id <= 10; id++) {
        memcpy(b, good, n);
        unsigned char *e = entry_of(b, NAMES[id]);
        uint64_t off = le64(e + 8), len = le64(e + 16);
        b[off + len / 2] ^= 0x10;
        char want[64];
        snprintf(want, sizeof want, "section '%s' checksum mismatch", NAMES[id]);
        EXPECT_FAIL(b, n, 1, DGNN_ECHECKSUM, want);
    }
    /* a flipped byte in the header counts, in a table entry, in the checksum itself */
    size_t header_bytes[] = {20, 30, 76, 90, 121, 128 + 9, 128 + 32 * 3 + 20};
    for (size_t k = 0; k < sizeof header_bytes / sizeof header_bytes[0]; k++) {
        memcpy(b, good, n);
        b[header_bytes[k]] ^= 0x01;
        EXPECT_FAIL(b, n, 0, DGNN_ECHECKSUM, "header checksum");
    }
    /* forged headers (valid checksum, wrong content) */
    memcpy(b, good, n);
    set64(entry_of(b, "t") + 8, (uint64_t)n + 4096); /* offset beyond the file */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "section 't'");
    memcpy(b, good, n);
    set64(entry_of(b, "dst") + 8, UINT64_MAX - 63); /* offset + length overflows */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "section 'dst'");
    memcpy(b, good, n);
    set64(b + 16, E0 + 1); /* num_events inconsistent with the lengths */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "header counts imply");
    memcpy(b, good, n);
    set64(b + 32, (uint64_t)1 << 61); /* edge_dim whose product with E overflows */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "efeat");
    memcpy(b, good, n);
    set64(b + 24, (uint64_t)INT32_MAX + 1); /* too many nodes */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EUNSUPPORTED, "num_nodes");
    memcpy(b, good, n);
    set64(entry_of(b, "label") + 8, le64(entry_of(b, "label") + 8) + 4); /* misaligned */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "aligned");
    memcpy(b, good, n);
    set64(entry_of(b, "label") + 8, le64(entry_of(b, "src") + 8)); /* overlaps src */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "overlaps");
    memcpy(b, good, n);
    set32(entry_of(b, "label"), 99); /* unknown section id */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "unknown section id 99");
    memcpy(b, good, n);
    set32(entry_of(b, "label"), 1); /* src twice */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "twice");
    memcpy(b, good, n);
    set32(entry_of(b, "t") + 4, 4); /* element size */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "element size");
    memcpy(b, good, n);
    set32(b + 80, 9); /* drop the last entry (period_y): a required section goes missing */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "required section 'period_y' is missing");
    memcpy(b, good, n);
    set64(b + 72, 6); /* unknown flag bits */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "flags");
    memcpy(b, good, n);
    set64(b + 48, 0); /* periods gone but their dims remain */
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "num_periods");
    /* semantic checks run even without verify */
    memcpy(b, good, n);
    set32(b + le64(entry_of(b, "src") + 8) + 4 * 2, N0); /* src[2] = N */
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "section 'src', event 2: node id 4 outside [0, 4)");
    EXPECT_FAIL(b, n, 1, DGNN_ECHECKSUM, "section 'src'"); /* and verify sees the checksum first */
    memcpy(b, good, n);
    set32(b + le64(entry_of(b, "dst") + 8) + 4 * 4, (uint32_t)-1); /* dst[4] = -1 */
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "section 'dst', event 4: node id -1");
    memcpy(b, good, n);
    {
        double back = 0.75; /* t[2] = 0.75 < t[1] = 1.0 */
        memcpy(b + le64(entry_of(b, "t") + 8) + 8 * 2, &back, 8);
        EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "section 't', event 2");
        double nan = NAN;
        memcpy(b + le64(entry_of(b, "t") + 8) + 8 * 0, &nan, 8);
        EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "not finite");
    }
    /* ---- issue 12: values behind valid checksums are checked as the text readers check
     * theirs, with and without verify ---- */
#define FORGE(name, idx, type, value, substr)                                        \
    do {                                                                             \
        memcpy(b, good, n);                                                          \
        type v_ = (value);                                                           \
        memcpy(b + le64(entry_of(b, name) + 8) + sizeof(type) * (size_t)(idx), &v_, sizeof v_); \
        reseal(b, name);                                                             \
        EXPECT_FAIL(b, n, 1, DGNN_EFORMAT, substr);                                  \
        EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, substr);                                  \
    } while (0)
    /* NaN edge features used to load and train to loss 2 ln 2, AP 0.5 */
    FORGE("efeat", 3 * DE + 1, float, NAN, "section 'efeat', event 3, column 1: NaN value");
    FORGE("efeat", 0, float, -INFINITY, "section 'efeat', event 0, column 0: infinite value");
    FORGE("nfeat", 2 * DN + 0, float, INFINITY, "section 'nfeat', node 2, column 0: infinite");
    FORGE("period_x", (1 * N0 + 2) * DX + 1, float, NAN, "section 'period_x', period 1, node 2, column 1: NaN");
    FORGE("period_y", 1 * N0 + 3, float, INFINITY, "section 'period_y', period 1, node 3");
    /* labels are 0 or 1; -3 and -12345 used to count as positive */
    FORGE("label", 1, int32_t, -3, "section 'label', event 1: label -3");
    FORGE("label", 4, int32_t, 2, "section 'label', event 4: label 2 (a label is 0 or 1)");
    FORGE("ext_roll", 2, int8_t, 5, "section 'ext_roll', event 2: 5 is not a split");
    FORGE("ext_roll", 0, int8_t, -1, "section 'ext_roll', event 0");
    /* the node id mapping: non-negative and increasing */
    FORGE("node_ids", 2, int64_t, 7, "section 'node_ids', node 2: original id 7 after 10");
    FORGE("node_ids", 0, int64_t, -5, "section 'node_ids', node 0: original id -5 is negative");
    /* a period table's times are period indices */
    FORGE("t", 0, double, -0.5, "not a period index 0..1");
    FORGE("t", 4, double, 2, "section 't', event 4: timestamp 2 is not a period index");
    FORGE("t", 4, double, 1e308, "section 't', event 4: timestamp 1e+308 is out of range");
    /* a header claiming bipartite for a stream that is not (node 0 is a source and a destination) */
    memcpy(b, good, n);
    set64(b + 72, 1);
    fix_header_checksum(b);
    EXPECT_FAIL(b, n, 0, DGNN_EFORMAT, "'flags' says bipartite, but node 0 is both a source and a destination");
#undef FORGE
    /* counts with no data behind them */
    {
        dgnn_events pl;
        dgnn_events_init(&pl);
        int32_t ps[2] = {0, 1}, pd[2] = {1, 2};
        double pt[2] = {0, 1};
        pl.num_events = 2, pl.num_nodes = 3, pl.src = ps, pl.dst = pd, pl.t = pt;
        snprintf(path2, sizeof path2, "%s/plain.dgnn", g_dir);
        CHECK_MSG(dgnn_save_binary(&pl, path2, &err) == DGNN_OK, "%s", err.msg);
        size_t pn;
        unsigned char *pb = slurp(path2, &pn);
        set64(pb + 24, ((uint64_t)1 << 24) + 1); /* 16.8M nodes for 2 events, no node section */
        fix_header_checksum(pb);
        EXPECT_FAIL(pb, pn, 1, DGNN_EFORMAT, "'num_nodes': 16777217 nodes, but its 2 events touch at most 4");
        set64(pb + 24, 3);
        set64(pb + 48, (uint64_t)1 << 25); /* 33M periods with no period data */
        fix_header_checksum(pb);
        EXPECT_FAIL(pb, pn, 1, DGNN_EFORMAT, "'num_periods'");
        free(pb);
        /* no events: edge_dim claims 2^21 features with an empty efeat section */
        dgnn_events z;
        dgnn_events_init(&z);
        float one = 1;
        z.edge_dim = 2, z.efeat = &one;
        CHECK_MSG(dgnn_save_binary(&z, path2, &err) == DGNN_OK, "%s", err.msg);
        pb = slurp(path2, &pn);
        set64(pb + 32, (uint64_t)1 << 21);
        fix_header_checksum(pb);
        EXPECT_FAIL(pb, pn, 1, DGNN_EFORMAT, "'edge_dim': 2097152 features");
        free(pb);
    }
    /* what the file is, when it is not a .dgnn: the version field of random bytes is not a
     * version ("written by a newer dgnn (version 1329005583)" before) */
    {
        unsigned char r[512];
        memcpy(r, "DGNNDATA\x0f\x04" "7O", 12);
        uint32_t x = 7;
        for (size_t i = 12; i < sizeof r; i++) x = x * 1664525u + 1013904223u, r[i] = (unsigned char)(x >> 24);
        EXPECT_FAIL(r, sizeof r, 1, DGNN_ECHECKSUM, "not a dgnn file or corrupted header: checksum mismatch");
        {
            dgnn_err e2;
            load_bytes(r, sizeof r, 1, &e2);
            CHECK_MSG(strstr(e2.msg, "newer") == NULL && strstr(e2.msg, "1329005583"), "%s", e2.msg);
        }
        memcpy(b, good, n);
        set32(b + 8, 2); /* a genuine newer file (intact checksum): believed, and said plainly */
        fix_header_checksum(b);
        EXPECT_FAIL(b, n, 1, DGNN_EVERSION, "written by a newer dgnn (version 2); this build reads version 1");
        {
            dgnn_err e2;
            load_bytes(b, n, 1, &e2);
            CHECK_MSG(strstr(e2.msg, "corrupted") == NULL, "%s", e2.msg);
        }
        set32(b + 8, 1000); /* implausible but intact: still a newer version */
        fix_header_checksum(b);
        EXPECT_FAIL(b, n, 1, DGNN_EVERSION, "version 1000");
        set32(b + 8, 1000); /* implausible and broken */
        b[20] ^= 1;
        EXPECT_FAIL(b, n, 1, DGNN_ECHECKSUM, "checksum mismatch (the version field reads 1000");
        EXPECT_FAIL((const unsigned char *)"user,item,timestamp,state_label\n0,1,2,0\n", 40, 1, DGNN_EFORMAT,
                    "bad magic: it looks like text");
        EXPECT_FAIL((const unsigned char *)"\xFF\xFEu\0,\0i\0", 8, 1, DGNN_EFORMAT, "bad magic: it is UTF-16 text");
    }
    /* the writer never writes what the loader refuses */
    {
        dgnn_events bad = full_table();
        snprintf(path2, sizeof path2, "%s/refused2.dgnn", g_dir);
        int32_t lab[E0] = {0, 1, 0, -3, 1};
        bad.label = lab;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "label -3"));
        bad = full_table();
        int8_t roll[E0] = {0, 0, 3, 0, 0};
        bad.ext_roll = roll;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "ext_roll 3"));
        bad = full_table();
        float ef[E0 * DE];
        memcpy(ef, T_efeat, sizeof ef);
        ef[7] = NAN;
        bad.efeat = ef;
        CHECK_MSG(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "event 2, edge feature 1"), "%s", err.msg);
        bad = full_table();
        float nf[N0 * DN];
        memcpy(nf, T_nfeat, sizeof nf);
        nf[3] = INFINITY;
        bad.nfeat = nf;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "node 1, feature 1"));
        bad = full_table();
        float px[P0 * N0 * DX];
        memcpy(px, T_px, sizeof px);
        px[5] = NAN;
        bad.period_x = px;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "period_x"));
        bad = full_table();
        int64_t ids[N0] = {5, 10, 10, 30};
        bad.node_ids = ids;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "node 2"));
        bad = full_table();
        double tt[E0] = {0, 0.5, 1, 1, 1};
        bad.t = tt;
        CHECK(dgnn_save_binary(&bad, path2, &err) == DGNN_EINVAL && strstr(err.msg, "period index"));
        CHECK(access(path2, F_OK) != 0 && count_tmp_files() == 0);
        /* layouts the loader would refuse */
        dgnn_bin_layout lay;
        memset(&lay, 0, sizeof lay);
        lay.num_events = 1, lay.num_nodes = ((int64_t)1 << 24) + 1;
        dgnn_bin_writer *w = NULL;
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_EINVAL && w == NULL && strstr(err.msg, "nodes for 1 events"));
        lay.num_nodes = 2, lay.edge_dim = ((int64_t)1 << 20) + 1;
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_EINVAL && w == NULL);
        /* declared bipartite (1), streamed: checked per event, across chunks */
        memset(&lay, 0, sizeof lay);
        lay.num_events = 3, lay.num_nodes = 4, lay.bipartite = 1;
        int32_t s1[3] = {0, 1, 2}, d1[3] = {2, 3, 0};
        double t1[3] = {1, 2, 3};
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 2, s1, d1, t1, NULL, NULL, NULL, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 1, s1 + 2, d1 + 2, t1 + 2, NULL, NULL, NULL, &err) == DGNN_EINVAL &&
              strstr(err.msg, "node 2 is both"));
        dgnn_bin_writer_abort(w);
        lay.num_events = 2; /* a true claim is kept and loads */
        CHECK(dgnn_bin_writer_open(&w, path2, &lay, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_events(w, 2, s1, d1, t1, NULL, NULL, NULL, &err) == DGNN_OK);
        CHECK(dgnn_bin_writer_finish(w, NULL, &err) == DGNN_OK);
        CHECK(dgnn_load_binary(&out, path2, 1, &err) == DGNN_OK && out.bipartite == 1);
        dgnn_events_free(&out);
        CHECK(count_tmp_files() == 0);
    }

    /* the untouched file still loads both ways */
    CHECK(load_bytes(good, n, 1, &err) == DGNN_OK);
    CHECK(load_bytes(good, n, 0, &err) == DGNN_OK);
    /* missing file: EIO naming it */
    snprintf(path2, sizeof path2, "%s/absent.dgnn", g_dir);
    CHECK(dgnn_load_binary(&out, path2, 1, &err) == DGNN_EIO && strstr(err.msg, "absent.dgnn"));

    free(b);
    free(good);
    /* clean up the folder */
    DIR *d = opendir(g_dir);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        snprintf(path2, sizeof path2, "%s/%s", g_dir, de->d_name);
        unlink(path2);
    }
    closedir(d);
    rmdir(g_dir);
    return check_done();
}
