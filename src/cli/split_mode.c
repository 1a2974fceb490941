/* split_mode.c: which chronological split `dgnn train` uses (cli_split_mode, cli.h).
 *
 * TGL's datasets carry their own split in edges.csv's ext_roll column (0 train, 1 val,
 * 2 test); results are only comparable to TGL's when that split is used, so it is the
 * default whenever the table has the column, and the run says so in one log line.
 * --split time overrides it (the TGN protocol's 70/15/15 time quantiles). Either way
 * the TGN new-node hold-out (--new-node-frac) then applies to the chosen periods. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_split_mode(const char *cmd, dgnn_split_mode *mode, const char *flag, const dgnn_events *ev, const char *data) {
    if (flag && strcmp(flag, "time") == 0) {
        *mode = DGNN_SPLIT_BY_TIME;
        return 0;
    }
    if (flag && strcmp(flag, "ext_roll") == 0) {
        if (!ev->ext_roll) {
            fprintf(stderr,
                    "dgnn %s: --split ext_roll: %s has no ext_roll column (TGL's edges.csv split: 0 train, 1 val, "
                    "2 test); use --split time\n",
                    cmd, data);
            return 2;
        }
        *mode = DGNN_SPLIT_BY_EXT_ROLL;
        return 0;
    }
    if (flag) {
        fprintf(stderr, "dgnn %s: --split: '%s' (time, ext_roll)\n", cmd, flag);
        return 2;
    }
    *mode = ev->ext_roll ? DGNN_SPLIT_BY_EXT_ROLL : DGNN_SPLIT_BY_TIME;
    if (ev->ext_roll)
        dgnn_log("split: by the data's ext_roll column (TGL's train/val/test split; --split time for time quantiles)\n");
    return 0;
}
