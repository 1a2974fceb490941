/* prof.h: where a training step's time goes, by op family (issue 15): `dgnn bench train`
 * prints each family's share. Off unless dgnn_prof_enable(1) was called, and then only on
 * the calling thread (the thread that trains; helper threads, such as DepBloom's sampling
 * ahead, are not counted). Regions nest: each family is charged its own time, without the
 * time of the regions inside it (a GRU's products count as dense products, not as GRU).
 * Cost when off: one thread-local load per region; when on: two clock reads.
 *
 *   double t = dgnn_prof_begin(DGNN_PROF_GRU);  ...  dgnn_prof_end(t);
 */
#ifndef DGNN_PROF_H
#define DGNN_PROF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DGNN_PROF_GEMM,      /* dense products (gemm.c: dgnn_gemm, dgnn_gemm_fixed) */
    DGNN_PROF_ATTENTION, /* temporal attention, without its products */
    DGNN_PROF_TIMEENC,   /* time encoding */
    DGNN_PROF_GRU,       /* GRU / RNN memory cells, without their products */
    DGNN_PROF_SAMPLE,    /* temporal neighbour sampling */
    DGNN_PROF_ADAM,      /* the optimizer step */
    DGNN_PROF_COMMIT,    /* writing new memories and mails */
    DGNN_PROF_N
} dgnn_prof_op;

/* Turns counting on (1) or off (0) for the calling thread and zeroes the totals. */
void dgnn_prof_enable(int on);
/* Opens a region of family op: returns its start (pass it to dgnn_prof_end), or a
 * negative value when counting is off. */
double dgnn_prof_begin(dgnn_prof_op op);
void dgnn_prof_end(double start);
/* The calling thread's totals in seconds, per family (sec[DGNN_PROF_N]). */
void dgnn_prof_get(double *sec);
const char *dgnn_prof_name(dgnn_prof_op op);

#ifdef __cplusplus
}
#endif
#endif
