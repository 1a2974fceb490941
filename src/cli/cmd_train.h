/* cmd_train.h: the event models' runs of `dgnn train`, `dgnn bench train` and `dgnn eval`
 * (cmd_train.c), for cmd_eval.c, which puts a checkpoint's saved settings before the flags
 * given to dgnn eval. */
#ifndef DGNN_CLI_CMD_TRAIN_H
#define DGNN_CLI_CMD_TRAIN_H

#include "cli.h"

typedef enum { CLI_RUN_TRAIN = 0, CLI_RUN_BENCH = 1, CLI_RUN_EVAL = 2 } cli_run_mode;

/* One run: argv's first saved tokens are the training run's settings (dgnn eval; 0
 * otherwise), the rest the flags typed; embed: the in-process caller's (NULL: the
 * command). The exit status: 0, 1 (failed) or 2 (usage). */
int cli_event_run(int argc, char **argv, int saved, cli_run_mode mode, const cli_train_embed *embed);

#endif
