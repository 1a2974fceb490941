/* args.h: the dgnn command's flag parser. Each subcommand declares a table of options
 * (name, kind, destination, help); the parser fills the destinations, collects the
 * positional arguments, and turns unknown flags, missing values and malformed numbers
 * into clear errors. --help prints the table. */
#ifndef DGNN_CLI_ARGS_H
#define DGNN_CLI_ARGS_H

#include <stdint.h>

typedef enum { ARG_FLAG, ARG_INT, ARG_DOUBLE, ARG_STRING } arg_kind;

typedef struct {
    const char *name;  /* without the leading "--" */
    arg_kind kind;
    void *dest;        /* int* (flag), int64_t* (int), double*, const char** */
    const char *metavar;
    const char *help;
} arg_opt;

typedef struct {
    const char *cmd;        /* "info" */
    const char *usage;      /* "dgnn info [options] DATA" */
    const char *summary;    /* one paragraph */
    const arg_opt *opts;    /* terminated by {NULL} */
    int min_pos, max_pos;   /* positional argument count bounds */
    const char *pos[8];     /* filled positionals */
    int npos;
} arg_spec;

/* Returns 0 on success, 1 if --help was printed (caller exits 0), -1 on an error
 * (message printed; caller exits 2). */
int args_parse(arg_spec *spec, int argc, char **argv);
void args_print_help(const arg_spec *spec);

#endif
