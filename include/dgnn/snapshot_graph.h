/* snapshot_graph.h: a snapshot (snapshot.h) as the graph kernels read it (spmm.h, nn.h):
 * its GCN-normalised A_hat as a CSR view, and the TopK node mask of EvolveGCN-H.
 *
 * Why here and not in spmm.h: the kernels work on plain CSR matrices and arrays and
 * know nothing of how a snapshot is stored; this data-layer header is the bridge from one
 * to the other (layers: base < nn < data < models). */
#ifndef DGNN_SNAPSHOT_GRAPH_H
#define DGNN_SNAPSHOT_GRAPH_H

#include "dgnn/nn.h"
#include "dgnn/spmm.h"
#include "dgnn/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The normalized A_hat of a snapshot (N x N), borrowed from it (a view: valid while g is). */
dgnn_csr dgnn_csr_of_hat(const dgnn_snapshot *g);

/* mask (N) = 1 for the nodes with an edge in snapshot g (a non-empty row or a column of
 * A, self loops of A_hat not counted), else 0: the reference's get_node_mask(cur_adj),
 * the `mask` input of nn.h's dgnn_topk_forward. */
void dgnn_topk_mask_of_snapshot(uint8_t *mask, const dgnn_snapshot *g);

#ifdef __cplusplus
}
#endif
#endif
