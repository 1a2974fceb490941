/* outfile.h: every file dgnn writes (results JSON, checkpoints, .dgnn datasets, csv
 * streams, profiles, window reports, SVG plots) goes through this module, so that all
 * outputs follow one set of rules:
 *
 *  - a symlink is followed: the file it points to is written and the link is kept (a
 *    dangling link: its target is created when the target's folder exists);
 *  - a target that exists and is not a regular file (a character or block device such
 *    as /dev/null, a FIFO) is written through, directly: no temporary file, no rename,
 *    so it stays what it is; a folder or a socket is refused with a message;
 *  - anything else (a regular file, or nothing yet) is written to a temporary file
 *    beside the target (same folder, so that rename is atomic), fsynced, and renamed
 *    over it on commit; the folder is then fsynced (best effort). Any failure (ENOSPC,
 *    EIO, a short write, a failing close) removes the temporary file and leaves the
 *    previous file intact, with a message naming the path and the OS error;
 *  - the path "-" is standard output, written through (see dgnn_outfile_stdout_fd);
 *  - temporary files are named .NAME.tmp.HOST.PID (NAME the target's file name, HOST
 *    this machine's name, PID the writer's process id). Opening a writer removes the
 *    ones beside its target that a process of this host which no longer exists left
 *    (kill(pid, 0) fails with ESRCH): a killed run leaves nothing behind for long. The
 *    host is in the name because on a shared filesystem another machine's pids mean
 *    nothing here.
 *
 * Use: dgnn_outfile_open, then write through dgnn_outfile_stream (stdio) or
 * dgnn_outfile_fd (write/pwrite), then dgnn_outfile_commit or dgnn_outfile_abort. A
 * command checks its output paths with dgnn_outfile_check before any work, so that a
 * missing folder is told at once, not after hours of training. */
#ifndef DGNN_OUTFILE_H
#define DGNN_OUTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgnn_outfile dgnn_outfile; /* opaque */

/* Flags of dgnn_outfile_open. */
enum {
    /* The writer writes at offsets (pwrite, lseek). A write-through target that cannot
     * seek (a FIFO, a terminal) then gets the bytes at commit, copied from an unlinked
     * spool file in $TMPDIR (default /tmp); a seekable one (/dev/null) is written directly. */
    DGNN_OUTFILE_SEEK = 1,
};

/* Opens a writer for path (rules above). On failure *out is NULL, nothing is left on
 * disk, and err says why: "cannot write PATH: folder DIR does not exist", "... is a
 * directory", "... cannot create files in folder DIR: Permission denied". Opening a
 * FIFO blocks until a reader opens it, as a shell redirection does. */
int dgnn_outfile_open(dgnn_outfile **out, const char *path, int flags, dgnn_err *err);
/* The file descriptor to write (the temporary file, the target itself, or the spool). */
int dgnn_outfile_fd(const dgnn_outfile *o);
/* A stdio stream over the same descriptor (created on the first call, owned by o: do
 * not fclose it). The first failing write's errno is kept and reported by commit. */
FILE *dgnn_outfile_stream(dgnn_outfile *o);
/* The path given to open (for messages). */
const char *dgnn_outfile_path(const dgnn_outfile *o);
/* 1 when writing through to a target that is not a regular file (no rename at commit). */
int dgnn_outfile_direct(const dgnn_outfile *o);
/* Makes the file `bytes` long (ftruncate) when the descriptor is a regular file (the
 * temporary or the spool file); a no-op on devices. For writers that leave holes. */
int dgnn_outfile_set_size(dgnn_outfile *o, uint64_t bytes, dgnn_err *err);
/* Flushes, fsyncs, closes and renames into place (or, written through, flushes and
 * closes). Frees o whatever the outcome; on failure the temporary file is removed, a
 * previous file at the target is untouched, and err names the path, the step and the
 * OS error. */
int dgnn_outfile_commit(dgnn_outfile *o, dgnn_err *err);
/* Gives up: removes the temporary file (the target is untouched) and frees o. Safe on NULL. */
void dgnn_outfile_abort(dgnn_outfile *o);

/* The whole file at once: open, write n bytes of data, commit. */
int dgnn_outfile_write(const char *path, const void *data, size_t n, dgnn_err *err);

/* Checks, before any work, that path can be written by dgnn_outfile_open: a symlink
 * resolves (or is dangling in an existing folder), it is not a directory or a socket,
 * its folder exists and a file can be created there (tried: a probe file is created
 * and removed at once), or, for a device or FIFO, it is writable. On failure the
 * message says why without repeating path, for the caller to prefix with the flag and
 * the path: "folder /missing/dir does not exist", "is a directory", "cannot create files
 * in folder /x: Read-only file system". */
int dgnn_outfile_check(const char *path, dgnn_err *err);
/* The same for a folder that a writer fills (a checkpoint folder): it exists and a
 * file can be created in it, or it does not exist yet and can be created (its parent
 * folder exists and is writable; the folder itself is not created here). */
int dgnn_outfile_check_dir(const char *dir, dgnn_err *err);

/* "-" as an output path: standard output, so that `dgnn train --out - | jq .test` reads the
 * file alone. */
int dgnn_outfile_is_stdout(const char *path);
/* For a command (not a library caller, whose output is its own): from the first "-" on
 * (checked or opened), the command's own text (progress, results, what it prints to
 * stdout) goes to standard error, and "-" writes to the standard output the process
 * started with. Without it "-" writes to standard output as it is. */
void dgnn_outfile_stdout_claimable(void);
/* The descriptor "-" writes to (owned here: dup it), moving the command's text to standard
 * error the first time where dgnn_outfile_stdout_claimable was called; -1 with err
 * ("standard output is closed") when there is none. */
int dgnn_outfile_stdout_fd(dgnn_err *err);

/* For a command (not a library caller, whose signals are its own): SIGINT, SIGTERM, SIGHUP
 * and SIGQUIT, where their action is the default, first remove the temporary files of the
 * writers still open, then end the process as before (the same exit status). Without it
 * an interrupted write leaves its temporary file until the next writer of that target
 * (dgnn_outfile_clean_stale), and a temporary name no later run writes (a benchmark's
 * file in $TMPDIR) is left for good. */
void dgnn_outfile_clean_on_signals(void);

/* Removes the temporary files beside path (after symlinks are followed) that a process
 * of this host which no longer exists left behind: only names .NAME.tmp.HOST.PID, only
 * regular files. Returns how many were removed. dgnn_outfile_open calls it. */
int dgnn_outfile_clean_stale(const char *path);

#ifdef __cplusplus
}
#endif
#endif
