/* prefetch.h: one background worker running one job at a time (prefetch.c), for
 * DepBloom's sampling ahead (depbloom_critical_path.c). */
#ifndef DGNN_PREFETCH_H
#define DGNN_PREFETCH_H

#include "dgnn/base.h"

/* submit waits for the previous job first; wait returns the job's status (its error
 * copied into err). */
typedef struct prefetch prefetch;
typedef int (*prefetch_fn)(void *ctx, dgnn_err *err);
prefetch *prefetch_start(dgnn_err *err); /* NULL (err set) when no thread can start */
void prefetch_submit(prefetch *pf, prefetch_fn fn, void *ctx);
int prefetch_wait(prefetch *pf, dgnn_err *err);
void prefetch_stop(prefetch *pf); /* waits for a running job; NULL is a no-op */

#endif
