/* prof.c: time per op family, for `dgnn bench train` (prof.h). A thread-local stack of
 * open regions: closing one charges its family its elapsed time less that of the regions
 * closed inside it, and adds its whole elapsed time to its parent's inner time. */
#include "dgnn/prof.h"

#include <string.h>

#include "dgnn/base.h"

enum { MAX_DEPTH = 16 };

typedef struct {
    int on, depth;
    dgnn_prof_op op[MAX_DEPTH];
    double inner[MAX_DEPTH]; /* time of the regions closed inside each open one */
    double total[DGNN_PROF_N];
} prof_state;

static _Thread_local prof_state g;

void dgnn_prof_enable(int on) {
    memset(&g, 0, sizeof g);
    g.on = on;
}

double dgnn_prof_begin(dgnn_prof_op op) {
    if (!g.on) return -1.0;
    DGNN_ASSERT(g.depth < MAX_DEPTH && op >= 0 && op < DGNN_PROF_N);
    g.op[g.depth] = op;
    g.inner[g.depth] = 0;
    g.depth++;
    return dgnn_now();
}

void dgnn_prof_end(double start) {
    if (start < 0 || !g.on) return;
    DGNN_ASSERT(g.depth > 0);
    const double el = dgnn_now() - start;
    g.depth--;
    g.total[g.op[g.depth]] += el - g.inner[g.depth];
    if (g.depth > 0) g.inner[g.depth - 1] += el;
}

void dgnn_prof_get(double *sec) { memcpy(sec, g.total, sizeof g.total); }

const char *dgnn_prof_name(dgnn_prof_op op) {
    static const char *names[DGNN_PROF_N] = {"dense products", "attention", "time encoding", "GRU/RNN cells",
                                             "sampling", "Adam", "memory commit"};
    return op >= 0 && op < DGNN_PROF_N ? names[op] : "?";
}
