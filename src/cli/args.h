/* args.h: the dgnn command's flag parser. Each subcommand declares a table of options
 * (name, kind, destination, help, and for numbers the allowed range); the parser fills
 * the destinations, collects the positional arguments, and turns unknown flags, missing
 * values, malformed numbers and numbers out of range into clear errors (exit 2) before
 * the command does any work. --help prints the table with the ranges. */
#ifndef DGNN_CLI_ARGS_H
#define DGNN_CLI_ARGS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { ARG_FLAG, ARG_INT, ARG_DOUBLE, ARG_STRING } arg_kind;

/* Which ends of [lo, hi] a number may take. ARG_ANY (0, what an initialiser that names
 * no range gets): no bound. An infinite end is no bound on that side. */
typedef enum { ARG_ANY = 0, ARG_CLOSED, ARG_OPEN_LO, ARG_OPEN_HI, ARG_OPEN } arg_bound;

typedef struct {
    const char *name;  /* without the leading "--" */
    arg_kind kind;
    void *dest;        /* int* (flag), int64_t* (int), double*, const char** */
    const char *metavar;
    const char *help;
    /* ARG_INT / ARG_DOUBLE: the allowed range of a typed value, checked at parse time
     * ("dgnn train: --threads must be in 1..1024 (got 100000)") and shown at the end of
     * the option's --help line ("...; in 1..1024").
     * Set with ARG_IN & co. after the help text; a default the user did not type is not
     * checked here. */
    arg_bound bound;
    double lo, hi;
} arg_opt;

/* Tables list an option's first five fields positionally, and the range only where it
 * has one: the fields left out are zero, ARG_ANY, as meant. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* Range initialisers, written after an option's help:
 *   {"threads", ARG_INT, &t, "T", "OpenMP threads", ARG_IN(1, 1024)}   1 <= x <= 1024
 *   {"lr", ARG_DOUBLE, &lr, "X", "learning rate", ARG_IN_OPEN_LO(0, 10)} 0 < x <= 10
 *   {"dropout", ARG_DOUBLE, &p, "P", "dropout", ARG_IN_OPEN_HI(0, 1)}   0 <= x < 1
 *   ARG_IN_OPEN(0, 1): 0 < x < 1;  ARG_MIN(0): x >= 0;  ARG_ABOVE(0): x > 0 */
#define ARG_IN(a, b) .bound = ARG_CLOSED, .lo = (a), .hi = (b)
#define ARG_IN_OPEN_LO(a, b) .bound = ARG_OPEN_LO, .lo = (a), .hi = (b)
#define ARG_IN_OPEN_HI(a, b) .bound = ARG_OPEN_HI, .lo = (a), .hi = (b)
#define ARG_IN_OPEN(a, b) .bound = ARG_OPEN, .lo = (a), .hi = (b)
#define ARG_MIN(a) ARG_IN(a, INFINITY)
#define ARG_ABOVE(a) ARG_IN_OPEN_LO(a, INFINITY)

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
/* A float setting as a JSON number reads as typed: the double of the shortest decimal (1 to 9
 * significant digits) that rounds back to the same float (0.1f -> 0.1, not
 * 0.10000000149011612). */
double args_float_json(float x);

/* The options of argv (already accepted by args_parse with s) whose names are not in drop
 * (NULL-terminated), each with its value, as "--name" and value tokens separated by NULs
 * into buf (cap bytes); positionals are left out. Returns the bytes used, or -1 when cap
 * is too small. What a checkpoint keeps of the command that trained it. */
long args_keep(const arg_spec *s, int argc, char **argv, const char *const *drop, char *buf, size_t cap);
void args_print_help(const arg_spec *spec);
/* 1 when the option `name` (no dashes) of opts is given in argv as args_parse reads it (up
 * to "--"; an option's value skipped, so "--out --batch" gives --out only), whatever its
 * value; else 0. For a flag that is refused when typed but not at its default. */
int args_given(const arg_opt *opts, int argc, char **argv, const char *name);
/* The value of the option `name` where argv gives it last, as args_given reads argv: the
 * token after it, or what follows "=" ("" for a flag); NULL when it is not given. */
const char *args_value(const arg_opt *opts, int argc, char **argv, const char *name);
/* The range of o as text ("1..1024", ">= 0", "[0, 1)", "(0, 10]", "> 0"), or "" when
 * it has none. Returns buf. */
char *args_range_text(char *buf, size_t cap, const arg_opt *o);

#endif
