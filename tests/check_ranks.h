/* check_ranks.h: CHECK_RANKS_OK, for the multi-rank tests (test_dist_event, test_dist_snap).
 * A distributed trainer that fails on one rank returns while the other ranks wait for it in
 * a collective: a test that only recorded the failure and went on left the job hanging
 * until ctest's timeout (300 s, with no message from the waiting ranks). As `dgnn train`
 * does, the failing rank says why and ends the whole job (MPI_Abort), so that the failure
 * shows at once with its message. In one process it is CHECK_MSG. */
#ifndef DGNN_TEST_CHECK_RANKS_H
#define DGNN_TEST_CHECK_RANKS_H
#include "check.h"
#include "dgnn/comm.h"

#define CHECK_RANKS_OK(rc, err)                                                                        \
    do {                                                                                               \
        CHECK_MSG((rc) == DGNN_OK, "%s", (err).msg);                                                   \
        if ((rc) != DGNN_OK && dgnn_comm_size() > 1) {                                                 \
            fprintf(stderr, "FAIL %s:%d: rank %d of %d failed while the others may wait: ending the job\n", \
                    __FILE__, __LINE__, dgnn_comm_rank(), dgnn_comm_size());                           \
            fflush(stdout), fflush(stderr);                                                            \
            dgnn_comm_abort(1);                                                                        \
        }                                                                                              \
    } while (0)

#endif
