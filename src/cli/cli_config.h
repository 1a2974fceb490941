/* cli_config.h: `dgnn train --config FILE.yml` and `--dump-config FILE.yml` (issue 17).
 *
 * A config file is YAML in TGL's layout (sections sampling, memory, gnn, train, each a
 * list of one mapping, as TGL's config/TGN.yml, JODIE.yml, APAN.yml) and/or dgnn's own
 * section `dgnn:`, whose keys are `dgnn train`'s flag names without "--". The file is
 * turned into flag tokens put BEFORE the command line's own, so that a flag typed on the
 * command line beats the file (args_parse: the last value wins); within the file, the
 * dgnn: section beats the TGL sections. Every key is checked against the option table
 * (type, range) before any data is read: errors name the file, the line and the key. */
#ifndef DGNN_CLI_CONFIG_H
#define DGNN_CLI_CONFIG_H

#include <stdint.h>

#include "args.h"
#include "cli.h"
#include "train_node.h"

/* Finds --config FILE in *argv (one at most) and replaces *argc, *argv by the file's
 * tokens followed by the original arguments; without --config leaves them as they are.
 * The new argv is owned here until cli_config_release (or the process's end). Returns 0,
 * or 2 after printing "dgnn CMD: FILE:LINE: KEY: ..." (also for libyaml's own errors,
 * with line and column, a key given twice, a snapshot model; and "--config FILE: ..." for
 * a missing, unreadable or folder FILE). */
int cli_config_expand(const arg_spec *spec, int *argc, char ***argv);
void cli_config_release(void);
/* 1 when the file cli_config_expand read sets --flag (no dashes) in its dgnn: section
 * (not by a TGL section), until cli_config_release */
int cli_config_dgnn_sets(const char *flag);

/* ---- what the readers share (cli_config_doc.c) ---- */
/* One setting from a file: the flag ("--batch"), its value (NULL for a flag that takes
 * none), and where it came from (line, "train.batch_size"), for the messages. */
typedef struct {
    char *flag, *value;
    int line;
    char key[64];
} cli_cfg_tok;
typedef struct {
    const char *file;
    const arg_spec *spec;
    cli_cfg_tok *tok;
    int n, cap;
} cli_cfg_toks;
/* Checks value against the option `name` of t->spec (unknown option, a quoted string
 * where a number is needed, type, range) and appends it; 0, or 2 with the message. */
int cli_cfg_push(cli_cfg_toks *t, const char *name, const char *value, int quoted, int line, const char *key);
void cli_cfg_toks_free(cli_cfg_toks *t);
/* "dgnn CMD: FILE:LINE: KEY: " + the message, on stderr; returns 2. */
int cli_cfg_error(const cli_cfg_toks *t, int line, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* YAML's booleans as TGL writes them (True, true, yes, ...): 1, 0, or -1 for neither. */
int cli_cfg_bool(const char *v);

/* TGL's sections (cli_config_tgl.c): a value of the file read as a (section, key) pair. */
typedef struct {
    const char *v; /* NULL: absent */
    int line, quoted;
} cli_tgl_val;
/* The TGL keys dgnn knows, "section.key" (NULL-terminated); a value per key. */
extern const char *const cli_tgl_keys[];
/* Turns the TGL values (indexed as cli_tgl_keys; nbr_count: the items of
 * sampling.neighbor when a list) into tokens, the model first; *model gets the model
 * they describe. 0, or 2 with a message. */
int cli_tgl_tokens(cli_cfg_toks *t, const cli_tgl_val *vals, int nbr_count, const char **model);

/* ---- --dump-config (cli_config_dump.c) ---- */
/* What the dump needs beyond the trainer's settings: the flags that have no field there. */
typedef struct {
    const char *model, *preset, *data, *tgb_negatives;
    const cli_load_flags *lf;
    const cli_node_flags *nf;
    int no_eval;
    double comm_timeout; /* CLI_UNSET_F: not given */
} cli_dump_extra;
/* Writes the run's effective settings to path as YAML in the dgnn: layout, atomically
 * (outfile.h); read back with --config it gives the same run. 0, or 1 with a message. */
int cli_config_dump(const char *cmd, const char *path, const dgnn_event_train_cfg *c, const cli_dump_extra *x);

#endif
