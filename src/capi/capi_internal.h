/* capi_internal.h: what the files of src/capi share: the handle behind dgnn_capi_events
 * and the copy of a message into the caller's buffer. */
#ifndef DGNN_CAPI_INTERNAL_H
#define DGNN_CAPI_INTERNAL_H

#include "dgnn/capi.h"
#include "dgnn/events.h"

struct dgnn_capi_events {
    dgnn_events ev;
    char *source; /* the path it was loaded from, made absolute (NULL: built from arrays): an
                   * output of a command run on it must not overwrite it */
};

/* text into msg (cap bytes, NUL-terminated, cut to fit); nothing when cap is 0 */
void capi_set_msg(char *msg, size_t cap, const char *text);

#endif
