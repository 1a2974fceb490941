/* test_edgebank.c: the edge set (data/edgeset.c) and EdgeBank (models/edgebank.c)
 * against hand-listed pairs and a brute-force membership check. */
#include "check.h"
#include "dgnn/edgebank.h"
#include "dgnn/edgeset.h"

static void test_edgeset(void) {
    dgnn_edgeset s;
    dgnn_edgeset_init(&s);
    dgnn_err e;
    CHECK(dgnn_edgeset_find(&s, 5) == -1);
    /* 5000 keys, some negative, each added twice: ids in insertion order, growth keeps them */
    int ok = 1;
    for (int64_t i = 0; i < 5000; i++) {
        int64_t key = (i % 2 ? -1 : 1) * (i * 7919 + 3), id = -5;
        if (dgnn_edgeset_add(&s, key, &id, &e) != 1 || id != i) ok = 0;
        if (dgnn_edgeset_add(&s, key, &id, &e) != 0 || id != i) ok = 0;
    }
    CHECK(ok);
    CHECK(s.n == 5000 && s.cap >= 10000);
    ok = 1;
    for (int64_t i = 0; i < 5000; i++)
        if (dgnn_edgeset_find(&s, (i % 2 ? -1 : 1) * (i * 7919 + 3)) != i) ok = 0;
    CHECK(ok);
    CHECK(dgnn_edgeset_find(&s, 4) == -1 && dgnn_edgeset_find(&s, -3) == -1);
    /* pair keys: (1, 2) and (2, 1) differ */
    CHECK(dgnn_edge_key(1, 2) != dgnn_edge_key(2, 1));
    CHECK(dgnn_edge_key(1, 2) == ((int64_t)1 << 32 | 2));
    dgnn_edgeset c;
    dgnn_edgeset_init(&c);
    CHECK(dgnn_edgeset_copy(&c, &s, &e) == 0);
    CHECK(c.n == 5000 && dgnn_edgeset_find(&c, 3) == 0);
    dgnn_edgeset_clear(&s);
    CHECK(s.n == 0 && dgnn_edgeset_find(&s, 3) == -1);
    CHECK(dgnn_edgeset_find(&c, 3) == 0); /* the copy is its own */
    int64_t id;
    CHECK(dgnn_edgeset_add(&s, 3, &id, &e) == 1 && id == 0);
    dgnn_edgeset_free(&s);
    dgnn_edgeset_free(&c);
}

static void test_edgebank(void) {
    dgnn_edgebank *eb, *cp;
    dgnn_err e;
    CHECK(dgnn_edgebank_init(&eb, &e) == 0);
    CHECK(dgnn_edgebank_init(&cp, &e) == 0);
    const int32_t s1[3] = {0, 1, 0}, d1[3] = {1, 2, 1};
    CHECK(dgnn_edgebank_add(eb, s1, d1, 3, &e) == 0);
    CHECK(dgnn_edgebank_size(eb) == 2);
    /* queries: (0,1) seen, (1,0) not (directed), (1,2) seen, (2,2) not, (0,2) not */
    const int32_t qs[5] = {0, 1, 1, 2, 0}, qd[5] = {1, 0, 2, 2, 2};
    float out[5];
    dgnn_edgebank_score(eb, qs, qd, 5, out);
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == 1 && out[3] == 0 && out[4] == 0);
    /* a later batch is remembered too; scores before adding it did not see it */
    const int32_t s2[1] = {2}, d2[1] = {2};
    CHECK(dgnn_edgebank_copy(cp, eb, &e) == 0);
    CHECK(dgnn_edgebank_add(eb, s2, d2, 1, &e) == 0);
    dgnn_edgebank_score(eb, qs, qd, 5, out);
    CHECK(out[3] == 1 && dgnn_edgebank_size(eb) == 3);
    dgnn_edgebank_score(cp, qs, qd, 5, out);
    CHECK(out[3] == 0 && out[0] == 1 && dgnn_edgebank_size(cp) == 2);
    dgnn_edgebank_clear(eb);
    dgnn_edgebank_score(eb, qs, qd, 5, out);
    CHECK(dgnn_edgebank_size(eb) == 0 && out[0] == 0 && out[2] == 0);
    /* brute force on a random stream of 3000 pairs over 40 nodes */
    int32_t rs[3000], rd[3000];
    uint64_t x = 12345;
    for (int i = 0; i < 3000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        rs[i] = (int32_t)((x >> 33) % 40);
        rd[i] = (int32_t)((x >> 17) % 40);
    }
    CHECK(dgnn_edgebank_add(eb, rs, rd, 1500, &e) == 0);
    float sc[3000];
    dgnn_edgebank_score(eb, rs, rd, 3000, sc);
    int ok = 1;
    for (int i = 0; i < 3000; i++) {
        int seen = 0;
        for (int j = 0; j < 1500 && !seen; j++) seen = rs[j] == rs[i] && rd[j] == rd[i];
        if (sc[i] != (float)seen) ok = 0;
    }
    CHECK(ok);
    dgnn_edgebank_free(eb);
    dgnn_edgebank_free(cp);
}

int main(void) {
    test_edgeset();
    test_edgebank();
    return check_done();
}
