/* snapshot_graph.c: a snapshot as the graph kernels read it (snapshot_graph.h): the CSR
 * view of its A_hat and the TopK node mask. Kept apart from the kernels (src/nn) so that
 * they depend on plain arrays only. */
#include "dgnn/snapshot_graph.h"

#include <string.h>

dgnn_csr dgnn_csr_of_hat(const dgnn_snapshot *g) {
    return dgnn_csr_view(g->hat_rowptr, g->hat_col, g->hat_val, g->num_nodes, g->num_nodes);
}

void dgnn_topk_mask_of_snapshot(uint8_t *mask, const dgnn_snapshot *g) {
    int64_t N = g->num_nodes;
    memset(mask, 0, (size_t)N);
    for (int64_t u = 0; u < N; u++) {
        if (g->rowptr[u + 1] > g->rowptr[u]) mask[u] = 1;
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) mask[g->col[e]] = 1;
    }
}
