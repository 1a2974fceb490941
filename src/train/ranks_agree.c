/* ranks_agree.c: that the processes of a distributed run train the same data with the same
 * settings (checkpoint.h, dgnn_ckpt_ranks_agree). Each process reads its own copy of the
 * data and its own command line; nodes of a cluster can hold different files under one
 * path, and an MPMD launch can give each process other options. Unchecked, the ranks
 * trained two streams as one model (exit 0), or stopped in a collective of another size
 * with only MPI's own message. The records compared are the checkpoints' own: the
 * fingerprint's settings by name and the run record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgnn/checkpoint.h"
#include "dgnn/comm.h"

enum { DIFF_BYTES = 256 };

/* "key: a on rank 0, b on rank ME; ..." for the keys whose values differ between lead and
 * mine (or stand on one side only); empty when none do */
static void differences(char *out, size_t cap, const dgnn_ckpt_run *lead, const dgnn_ckpt_run *mine, int me) {
    size_t len = 0;
    out[0] = '\0';
    const dgnn_ckpt_run *side[2] = {lead, mine};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < side[s]->n; i++) {
            const char *key = side[s]->key[i];
            if (s == 1 && dgnn_ckpt_run_get(lead, key)) continue; /* compared from lead's side */
            if (strcmp(key, "flags") == 0) continue;              /* the options that set the others */
            const char *a = dgnn_ckpt_run_get(lead, key), *b = dgnn_ckpt_run_get(mine, key);
            if (a && b && strcmp(a, b) == 0) continue;
            if (len + 1 < cap)
                len += (size_t)snprintf(out + len, cap - len, "%s%s: %s on rank 0, %s on rank %d", len ? "; " : "",
                                        key, a ? a : "unset", b ? b : "unset", me);
        }
    if (len >= cap && cap > 4) memcpy(out + cap - 4, "...", 4);
}

int dgnn_ckpt_ranks_agree(const dgnn_ckpt_run *mine, const char *what, dgnn_err *err) {
    const int P = dgnn_comm_size();
    if (P <= 1) return DGNN_OK;
    dgnn_ckpt_run lead = *mine;
    dgnn_comm_bcast(&lead, (int64_t)sizeof lead, 0);
    char diff[DIFF_BYTES];
    differences(diff, sizeof diff, &lead, mine, dgnn_comm_rank());
    char *all = dgnn_xmalloc((size_t)P * DIFF_BYTES);
    int64_t *counts = dgnn_xmalloc((size_t)P * sizeof *counts);
    dgnn_comm_allgatherv_bytes(all, counts, diff, DIFF_BYTES);
    int first = -1, others = 0;
    for (int q = 1; q < P; q++)
        if (all[(size_t)q * DIFF_BYTES]) {
            if (first < 0) first = q;
            else others++;
        }
    int rc = DGNN_OK;
    if (first >= 0) {
        char more[48] = "";
        if (others) snprintf(more, sizeof more, " (and %d more rank%s)", others, others > 1 ? "s" : "");
        rc = dgnn_err_set(err, DGNN_EINVAL,
                          "the processes disagree: rank %d's %s differ%s from rank 0's (%s): every process of a "
                          "distributed run must read the same data with the same options",
                          first, what, more, all + (size_t)first * DIFF_BYTES);
    }
    free(all);
    free(counts);
    return rc;
}
