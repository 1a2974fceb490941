/* test_state.c: the node state store: mails grouped per node by "last" and "mean",
 * ring order with several slots, memory gather/set, reset and copy, write tracking and
 * the row exchange of the distributed trainers. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dgnn/state.h"

/* Merging versions of a node written by two processes from one common row: memory of
 * the later update, the union of the mailboxes (the common mails once), latest `slots`
 * kept oldest first; every process merging the same buffer ends equal. */
static void push1(dgnn_state *s, int32_t v, float x, double t) {
    float m[2] = {x, -x};
    dgnn_state_push_mails(s, &v, m, &t, 1, DGNN_AGG_LAST);
}

static void test_merge(int64_t S) {
    dgnn_state base, a, b, c;
    dgnn_err e;
    CHECK(dgnn_state_init(&base, 4, 2, 2, S, &e) == DGNN_OK);
    dgnn_state_init(&a, 4, 2, 2, S, &e), dgnn_state_init(&b, 4, 2, 2, S, &e), dgnn_state_init(&c, 4, 2, 2, S, &e);
    push1(&base, 1, 1, 1), push1(&base, 1, 2, 2);
    float mem[2] = {7, 7};
    double mt = 1;
    int32_t v = 1;
    dgnn_state_set_mem(&base, &v, mem, &mt, 1);
    dgnn_state_copy(&a, &base), dgnn_state_copy(&b, &base);
    push1(&a, 1, 3, 3);
    mem[0] = 30, mt = 3;
    dgnn_state_set_mem(&a, &v, mem, &mt, 1);
    push1(&b, 1, 4, 4), push1(&b, 1, 5, 5);
    mem[0] = 20, mt = 2;
    dgnn_state_set_mem(&b, &v, mem, &mt, 1);
    const int64_t rb = dgnn_state_row_bytes(&base);
    char *buf = malloc((size_t)(2 * rb));
    dgnn_state_pack_rows(buf, &a, &v, 1);
    dgnn_state_pack_rows(buf + rb, &b, &v, 1);
    /* into a replica that holds a's row and one that holds b's: both end equal */
    dgnn_state_copy(&c, &b);
    CHECK(dgnn_state_merge_rows(&a, buf, 2 * rb, 1, &e) == 2);
    CHECK(dgnn_state_merge_rows(&c, buf, 2 * rb, 1, &e) == 2);
    CHECK(dgnn_state_checksum(&a) == dgnn_state_checksum(&c));
    const int64_t keep = S < 5 ? S : 5; /* mails at 1, 2 (common), 3 (a), 4, 5 (b) */
    CHECK_MSG(a.mail_n[1] == keep && a.mail_head[1] == keep % S, "S %lld: %d mails, head %d", (long long)S,
              a.mail_n[1], a.mail_head[1]);
    CHECK(a.mem[2] == 30 && a.mem_t[1] == 3); /* a's memory: the later update */
    for (int64_t i = 0; i < keep; i++) /* oldest first from slot 0 */
        CHECK(a.mail_t[1 * S + i] == (double)(5 - keep + 1 + i) && a.mail[(1 * S + i) * 2] == (float)(5 - keep + 1 + i));
    for (int64_t i = keep; i < S; i++) CHECK(a.mail_t[1 * S + i] == 0 && a.mail[(1 * S + i) * 2 + 1] == 0);
    double tl;
    const float *last = dgnn_state_last_mail(&a, 1, &tl);
    CHECK(last && last[0] == 5 && tl == 5);
    /* every row merging into the local one (first_overwrites 0): b's row into a copy of a */
    dgnn_state_copy(&c, &base);
    push1(&c, 1, 3, 3);
    CHECK(dgnn_state_merge_rows(&c, buf + rb, rb, 0, &e) == 1);
    CHECK(c.mail_n[1] == keep && dgnn_state_last_mail(&c, 1, &tl) && tl == 5 && c.mem_t[1] == 2);
    CHECK(dgnn_state_merge_rows(&c, buf, rb - 1, 1, &e) == DGNN_EINVAL);
    free(buf);
    dgnn_state_free(&base), dgnn_state_free(&a), dgnn_state_free(&b), dgnn_state_free(&c);
}

/* pushes without mails (NULL: the GPU trainer's host store) change the times, counts and
 * ring positions exactly as the same pushes with mails, and no mail row */
static void test_times_only(dgnn_aggregator agg) {
    dgnn_state a, b;
    dgnn_err e;
    CHECK(dgnn_state_init(&a, 6, 2, 3, 3, &e) == DGNN_OK);
    CHECK(dgnn_state_init(&b, 6, 2, 3, 3, &e) == DGNN_OK);
    const int32_t nodes[7] = {3, 1, 3, 5, 3, 1, 0};
    const float mails[21] = {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7};
    const double t[7] = {1, 2, 5, 4, 3, 7, 6};
    for (int round = 0; round < 4; round++) { /* past the ring's 3 slots */
        dgnn_state_push_mails(&a, nodes + round % 2, mails, t + round % 2, 7 - round % 2, agg);
        dgnn_state_push_mails(&b, nodes + round % 2, NULL, t + round % 2, 7 - round % 2, agg);
        if (round == 2) {
            dgnn_state_clear_mails(&a, nodes + 1, 1);
            dgnn_state_clear_mails(&b, nodes + 1, 1);
        }
    }
    for (int64_t v = 0; v < 6; v++) {
        CHECK(a.mail_n[v] == b.mail_n[v] && a.mail_head[v] == b.mail_head[v]);
        for (int64_t k = 0; k < 3; k++) CHECK(a.mail_t[v * 3 + k] == b.mail_t[v * 3 + k]);
    }
    int nonzero = 0;
    for (int64_t i = 0; i < 6 * 3 * 3; i++) nonzero += b.mail[i] != 0;
    CHECK(nonzero == 0 && a.mail_n[3] == 3 && a.mail_n[1] == 1 && a.mail_head[1] == 1); /* node 1: cleared, then one push */
    dgnn_state_free(&a), dgnn_state_free(&b);
}

int main(void) {
    test_times_only(DGNN_AGG_LAST);
    test_times_only(DGNN_AGG_MEAN);
    test_merge(3);
    test_merge(10);
    dgnn_state s, b;
    dgnn_err e;
    CHECK(dgnn_state_init(&s, 5, 2, 3, 2, &e) == DGNN_OK);
    CHECK(dgnn_state_init(&b, 5, 2, 3, 0, &e) == DGNN_EINVAL);
    CHECK(dgnn_state_init(&b, 5, 2, 3, 1, &e) == DGNN_OK);
    /* node 3 gets mails 0, 2, 3 (in that order); node 1 gets mail 1 */
    int32_t nodes[4] = {3, 1, 3, 3};
    float mails[12] = {1, 1, 1, 2, 2, 2, 3, 3, 3, 9, 9, 9};
    double t[4] = {1, 2, 5, 4};
    dgnn_state_push_mails(&s, nodes, mails, t, 4, DGNN_AGG_LAST);
    double tm;
    const float *m = dgnn_state_last_mail(&s, 3, &tm);
    CHECK(m && m[0] == 9 && m[2] == 9 && tm == 4); /* last in the given order, not latest time */
    m = dgnn_state_last_mail(&s, 1, &tm);
    CHECK(m && m[1] == 2 && tm == 2);
    CHECK(dgnn_state_last_mail(&s, 0, NULL) == NULL);
    CHECK(s.mail_n[3] == 1 && s.mail_n[1] == 1);
    /* mean: node 3's second mail = mean of its three, time = the latest */
    dgnn_state_push_mails(&s, nodes, mails, t, 4, DGNN_AGG_MEAN);
    m = dgnn_state_last_mail(&s, 3, &tm);
    CHECK(m && fabsf(m[0] - 13.0f / 3) < 1e-6f && tm == 5);
    CHECK(s.mail_n[3] == 2);
    /* a third push wraps the ring of 2 slots: the oldest (the "last" mail 9) goes */
    int32_t one = 3;
    float m3[3] = {7, 7, 7};
    double t3 = 6;
    dgnn_state_push_mails(&s, &one, m3, &t3, 1, DGNN_AGG_LAST);
    CHECK(s.mail_n[3] == 2);
    int found9 = 0;
    for (int k = 0; k < 2; k++) found9 |= s.mail[(3 * 2 + k) * 3] == 9;
    CHECK(!found9);
    m = dgnn_state_last_mail(&s, 3, &tm);
    CHECK(m && m[0] == 7 && tm == 6);
    dgnn_state_clear_mails(&s, &one, 1);
    CHECK(dgnn_state_last_mail(&s, 3, NULL) == NULL && s.mail_n[1] == 2);

    /* memory */
    int32_t set_nodes[2] = {4, 0};
    float rows[4] = {1, 2, 3, 4};
    double rt[2] = {10, 11};
    dgnn_state_set_mem(&s, set_nodes, rows, rt, 2);
    int32_t q[3] = {0, -1, 4};
    float out[6];
    dgnn_state_gather_mem(out, &s, q, 3);
    CHECK(out[0] == 3 && out[1] == 4 && out[2] == 0 && out[3] == 0 && out[4] == 1 && out[5] == 2);
    CHECK(s.mem_t[4] == 10 && s.mem_t[0] == 11);
    dgnn_state c;
    CHECK(dgnn_state_init(&c, 5, 2, 3, 2, &e) == DGNN_OK);
    dgnn_state_copy(&c, &s);
    CHECK(c.mem[8] == 1 && c.mail_n[1] == 2 && c.mem_t[0] == 11);
    dgnn_state_reset(&s);
    CHECK(s.mem[8] == 0 && s.mail_n[1] == 0 && s.mem_t[0] == 0 && dgnn_state_last_mail(&s, 1, NULL) == NULL);
    CHECK(c.mem[8] == 1); /* the copy is independent */
    CHECK(dgnn_state_bytes(&s) > 0);

    /* write tracking and row exchange: c's rows 0, 1, 4 written through three calls,
     * packed, and unpacked into the reset s, which must then equal c on those rows and
     * keep its zeros elsewhere */
    CHECK(dgnn_state_track_writes(&c, &e) == DGNN_OK);
    const int32_t *wn;
    CHECK(dgnn_state_take_written(&c, &wn) == 0);
    int32_t w1[2] = {4, 1};
    float wm[6] = {5, 5, 5, 6, 6, 6};
    double wt[2] = {20, 21};
    dgnn_state_push_mails(&c, w1, wm, wt, 2, DGNN_AGG_LAST);
    int32_t w0 = 0;
    dgnn_state_set_mem(&c, &w0, rows, rt, 1);
    dgnn_state_clear_mails(&c, &w1[0], 1);
    int64_t nw = dgnn_state_take_written(&c, &wn);
    CHECK(nw == 3 && wn[0] == 0 && wn[1] == 1 && wn[2] == 4);
    CHECK(dgnn_state_take_written(&c, &wn) == 0);
    int64_t rb = dgnn_state_row_bytes(&c);
    char *buf = malloc((size_t)(4 * rb));
    int32_t pk[3] = {0, 1, 4};
    dgnn_state_pack_rows(buf, &c, pk, 3);
    CHECK(dgnn_state_unpack_rows(&s, buf, 3 * rb, &e) == 3);
    CHECK(s.mem[0] == c.mem[0] && s.mem[1] == c.mem[1] && s.mem_t[0] == c.mem_t[0]);
    CHECK(s.mail_n[1] == c.mail_n[1] && s.mail_head[1] == c.mail_head[1] && s.mail_n[4] == 0);
    CHECK(memcmp(s.mail + 1 * 2 * 3, c.mail + 1 * 2 * 3, 6 * sizeof(float)) == 0);
    CHECK(memcmp(s.mail_t + 2, c.mail_t + 2, 2 * sizeof(double)) == 0);
    CHECK(s.mem[2 * 2] == 0 && s.mail_n[2] == 0); /* row 2 untouched */
    /* bad input: a partial row, a node out of range */
    CHECK(dgnn_state_unpack_rows(&s, buf, rb - 1, &e) == DGNN_EINVAL);
    int32_t bad = 99;
    memcpy(buf, &bad, 4);
    CHECK(dgnn_state_unpack_rows(&s, buf, rb, &e) == DGNN_EINVAL && strstr(e.msg, "bad node"));
    /* the rows' first parts alone (a GPU's exchange by NCCL): c's times, counts and
     * positions of 4 then 1 (4 twice: its last part wins) into a fresh state, the floats
     * left alone; the nodes come back in buffer order */
    {
        dgnn_state t;
        CHECK(dgnn_state_init(&t, c.num_nodes, c.mem_dim, c.mail_dim, c.slots, &e) == DGNN_OK);
        const int64_t mb = dgnn_state_meta_bytes(&c);
        CHECK(mb == 24 + 8 * c.slots && mb < rb);
        char *mbuf = malloc((size_t)(3 * mb));
        int32_t mn[3] = {4, 1, 4}, got[3] = {-1, -1, -1};
        dgnn_state_pack_meta(mbuf, &c, mn, 3);
        t.mail_n[4] = 2; /* overwritten by c's (0, cleared) */
        CHECK(dgnn_state_unpack_meta(&t, mbuf, 3 * mb, got, &e) == 3);
        CHECK(got[0] == 4 && got[1] == 1 && got[2] == 4);
        CHECK(t.mail_n[1] == c.mail_n[1] && t.mail_head[1] == c.mail_head[1] && t.mail_n[4] == 0);
        CHECK(t.mem_t[1] == c.mem_t[1] && memcmp(t.mail_t + 2, c.mail_t + 2, 2 * sizeof(double)) == 0);
        CHECK(t.mail[1 * 2 * 3] == 0); /* the floats are not in a first part */
        CHECK(dgnn_state_unpack_meta(&t, mbuf, mb + 1, NULL, &e) == DGNN_EINVAL);
        memcpy(mbuf + mb, &bad, 4);
        CHECK(dgnn_state_unpack_meta(&t, mbuf, 2 * mb, NULL, &e) == DGNN_EINVAL && strstr(e.msg, "row 1: bad node 99"));
        /* a first part packed, then the floats, is a whole row */
        dgnn_state_pack_rows(buf, &c, pk, 1);
        dgnn_state_pack_meta(mbuf, &c, pk, 1);
        CHECK(memcmp(buf, mbuf, (size_t)mb) == 0);
        free(mbuf);
        dgnn_state_free(&t);
    }
    free(buf);
    dgnn_state_free(&s);
    dgnn_state_free(&b);
    dgnn_state_free(&c);
    return check_done();
}
