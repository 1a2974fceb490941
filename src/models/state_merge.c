/* state_merge.c: merging node-state rows written by several processes (state.h,
 * dgnn_state_merge_rows). DepBloom's ranks train disjoint events, but a model that
 * delivers mails beyond the events' endpoints (APAN: to sampled neighbours) lets two ranks
 * write the same node in one window; neither version alone is the node's state, so the
 * versions are merged: the memory of the later update, the union of the mailboxes. */
#include <stdlib.h>
#include <string.h>

#include "dgnn/state.h"

typedef struct {
    double t;
    const void *mail; /* D floats, possibly unaligned (packed rows): read by memcpy/memcmp */
    int64_t order; /* acc's mails first, oldest first: ties keep this order */
} mail_ref;

static int cmp_mail(const void *a, const void *b) {
    const mail_ref *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Merges the packed row p (header, memory time, mail times, memory, mails: the layout of
 * dgnn_state_pack_rows) into node v's row of s. tmp: 2 S refs, buf: S D floats, tbuf: S. */
static void merge_one(dgnn_state *s, int32_t v, const char *p, mail_ref *tmp, float *buf, double *tbuf) {
    const int64_t M = s->mem_dim, S = s->slots, D = s->mail_dim;
    int32_t hdr[4];
    memcpy(hdr, p, 16);
    double mt;
    memcpy(&mt, p + 16, 8);
    const char *in_t = p + 24, *in_mem = p + 24 + 8 * S, *in_mail = p + 24 + 8 * S + 4 * M; /* unaligned */
    if (mt > s->mem_t[v]) { /* the later memory update wins; a tie keeps the earlier version */
        memcpy(s->mem + (int64_t)v * M, in_mem, (size_t)M * sizeof(float));
        s->mem_t[v] = mt;
    }
    /* the valid mails of both rings, oldest first, duplicates (same time, same values:
     * the mails both versions had at the window start) once */
    int64_t n = 0;
    const int32_t an = s->mail_n[v], ah = s->mail_head[v];
    for (int32_t i = 0; i < an; i++) {
        const int64_t slot = (ah - an + i + 2 * S) % S;
        tmp[n++] = (mail_ref){s->mail_t[(int64_t)v * S + slot], s->mail + ((int64_t)v * S + slot) * D, n};
    }
    const int64_t n_acc = n;
    for (int32_t i = 0; i < hdr[1]; i++) {
        const int64_t slot = (hdr[2] - hdr[1] + i + 2 * S) % S;
        double t;
        memcpy(&t, in_t + 8 * slot, 8);
        const char *m = in_mail + 4 * slot * D;
        int dup = 0;
        for (int64_t j = 0; j < n_acc && !dup; j++)
            dup = tmp[j].t == t && memcmp(tmp[j].mail, m, (size_t)D * sizeof(float)) == 0;
        if (!dup) tmp[n] = (mail_ref){t, m, n}, n++;
    }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_mail);
    /* the latest S, oldest in slot 0 (a canonical ring: every replica lays it out alike);
     * empty slots zero, as after a reset */
    const int64_t keep = n < S ? n : S, first = n - keep;
    for (int64_t i = 0; i < keep; i++) {
        memcpy(buf + i * D, tmp[first + i].mail, (size_t)D * sizeof(float));
        tbuf[i] = tmp[first + i].t;
    }
    memset(buf + keep * D, 0, (size_t)((S - keep) * D) * sizeof(float));
    for (int64_t i = keep; i < S; i++) tbuf[i] = 0;
    memcpy(s->mail + (int64_t)v * S * D, buf, (size_t)(S * D) * sizeof(float));
    memcpy(s->mail_t + (int64_t)v * S, tbuf, (size_t)S * sizeof(double));
    s->mail_n[v] = (int32_t)keep;
    s->mail_head[v] = (int32_t)(keep % S);
}

int64_t dgnn_state_merge_rows(dgnn_state *s, const void *buf, int64_t bytes, int first_overwrites, dgnn_err *err) {
    const int64_t rb = dgnn_state_row_bytes(s), S = s->slots, D = s->mail_dim;
    if (bytes < 0 || bytes % rb)
        return dgnn_err_set(err, DGNN_EINVAL, "node state rows: %lld bytes is not a whole number of %lld-byte rows",
                            (long long)bytes, (long long)rb);
    const int64_t n = bytes / rb;
    uint8_t *seen = first_overwrites ? calloc((size_t)(s->num_nodes ? s->num_nodes : 1), 1) : NULL;
    mail_ref *tmp = dgnn_xmalloc((size_t)(2 * S) * sizeof *tmp);
    float *mb = dgnn_xmalloc((size_t)(S * (D ? D : 1)) * sizeof(float));
    double *tb = dgnn_xmalloc((size_t)S * sizeof(double));
    int64_t rc = n;
    if (first_overwrites && !seen) rc = dgnn_err_set(err, DGNN_ENOMEM, "node state rows: out of memory");
    for (int64_t i = 0; i < n && rc >= 0; i++) {
        const char *p = (const char *)buf + i * rb;
        int32_t hdr[4];
        memcpy(hdr, p, 16);
        const int32_t v = hdr[0];
        if (v < 0 || v >= s->num_nodes || hdr[1] < 0 || hdr[1] > S || hdr[2] < 0 || hdr[2] >= S) {
            rc = dgnn_err_set(err, DGNN_EINVAL, "node state rows: row %lld: bad node %d or mailbox position",
                              (long long)i, v);
            break;
        }
        if (seen && !seen[v]) { /* the node's first version here: taken whole */
            seen[v] = 1;
            int64_t one = dgnn_state_unpack_rows(s, p, rb, err);
            if (one < 0) rc = one;
            continue;
        }
        merge_one(s, v, p, tmp, mb, tb);
    }
    free(seen), free(tmp), free(mb), free(tb);
    return rc;
}
