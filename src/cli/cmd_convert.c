/* cmd_convert.c: `dgnn convert IN OUT`: read any format, write the binary .dgnn form,
 * which every command then loads with mmap instead of parsing text. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dgnn/binfmt.h"

int cmd_convert(int argc, char **argv) {
    cli_load_flags lf = {0};
    arg_opt opts[] = {CLI_LOAD_OPTS(lf), {NULL, 0, NULL, NULL, NULL}};
    arg_spec spec = {.cmd = "convert", .usage = "dgnn convert [options] IN OUT.dgnn",
                     .summary = "Reads IN (any format) and writes it as a binary .dgnn file (atomically:\n"
                                "a temporary file renamed into place; a symlink OUT is followed, a device,\n"
                                "FIFO or pipe written through: /dev/stdout | ... gets the file, and the\n"
                                "summary line goes to stderr). OUT is checked before IN is read.",
                     .opts = opts, .min_pos = 2, .max_pos = 2};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    /* before reading IN, which may take long; never IN itself */
    const cli_output outs[] = {{"OUT", spec.pos[1], CLI_OUT_FILE}, {"IN", spec.pos[0], CLI_IN}};
    if (cli_check_outputs("convert", outs, 2)) return 2;
    /* a text format's name would hold the binary format (and be read back by its first bytes
     * as such): a user who asked for a csv is told so rather than given a .dgnn */
    static const char *const text_ext[] = {".csv", ".tsv", ".txt", ".json", ".npy", ".edges", NULL};
    const char *dot = strrchr(spec.pos[1], '.');
    for (const char *const *x = text_ext; dot && !strchr(dot, '/') && *x; x++)
        if (strcasecmp(dot, *x) == 0) {
            fprintf(stderr, "dgnn convert: OUT %s: dgnn convert writes the binary .dgnn format only, not %s: name "
                            "it .dgnn (the readers take the text formats as they are)\n", spec.pos[1], *x);
            return 2;
        }
    double t = dgnn_now();
    dgnn_events ev;
    if ((rc = cli_load("convert", spec.pos[0], &lf, &ev)) != 0) return rc;
    double t_read = dgnn_now() - t;
    dgnn_err err;
    dgnn_err_clear(&err);
    t = dgnn_now();
    if (dgnn_save_binary(&ev, spec.pos[1], &err) != DGNN_OK) {
        fprintf(stderr, "dgnn convert: %s\n", err.msg);
        dgnn_events_free(&ev);
        return 1;
    }
    /* OUT may be the standard output (/dev/stdout into a pipe): the summary then goes to
     * stderr, so that the file's bytes are all the stream holds */
    struct stat so, st;
    const int to_stdout = fstat(STDOUT_FILENO, &so) == 0 && stat(spec.pos[1], &st) == 0 && so.st_dev == st.st_dev &&
                          so.st_ino == st.st_ino;
    FILE *say = to_stdout ? stderr : stdout;
    char a[32], b[32];
    fprintf(say, "wrote %s: %s events / %s nodes (read %.2f s, write %.2f s)\n", spec.pos[1],
           dgnn_fmt_count(a, sizeof a, ev.num_events), dgnn_fmt_count(b, sizeof b, ev.num_nodes), t_read,
           dgnn_now() - t);
    dgnn_events_free(&ev);
    return 0;
}
