/* infile.h: opening an input file safely, and saying what a file is when it is not the
 * text a reader expects (src/data/infile.c).
 *
 * Why: open() on a FIFO blocks until a writer comes, a character device such as
 * /dev/zero never ends, and a folder or a socket cannot be read as a dataset. Every
 * reader (text, json, .npy, .dgnn) opens its input with dgnn_in_open, which refuses
 * anything but a regular file without blocking: the path is stat'ed first (a device is
 * never opened), then opened with O_NONBLOCK and checked again on the descriptor (no
 * window between the check and the use). A reader may then trust the file's size.
 *
 * dgnn_in_sniff looks at a file's first bytes and names what it is when it is not UTF-8
 * text: UTF-16 / UTF-32 (with or without a byte-order mark), a compressed archive, a
 * .dgnn or .npy file, a pickle, other binary data. The text and json readers call it on
 * their first block, so that a user reads "UTF-16 text: convert it to UTF-8 (iconv ...)"
 * instead of a parse error about the first field.
 *
 * Public because the checkpoint loader (src/train/checkpoint.c) opens its file with
 * dgnn_in_open too. */
#ifndef DGNN_INFILE_H
#define DGNN_INFILE_H

#include <stddef.h>

#include "dgnn/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens an input file (a dataset, a checkpoint) read-only, never blocking: anything but a
 * regular file (a FIFO, a device such as /dev/zero, a folder, a socket) is refused
 * without being opened for reading. *fd is a blocking descriptor of a regular file and
 * *size its size. DGNN_EIO with "PATH: ..." (what the path is instead,
 * or strerror) on failure, *fd = -1. */
int dgnn_in_open(const char *path, int *fd, int64_t *size, dgnn_err *err);

/* What the bytes p[0..n) (a file's first block) are, when they are not UTF-8 text: a
 * sentence written into buf (cap >= 256) and returned; NULL when they look like text.
 * A stray control byte or two is left to the parsers (they name the field). */
const char *dgnn_in_sniff(const unsigned char *p, size_t n, char *buf, size_t cap);


#ifdef __cplusplus
}
#endif
#endif
