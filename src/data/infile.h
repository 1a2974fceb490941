/* infile.h (private to src/data): opening an input file safely, and saying what a file
 * is when it is not the text a reader expects.
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
 * instead of a parse error about the first field. */
#ifndef DGNN_INFILE_H
#define DGNN_INFILE_H

#include "dgnn/base.h"

#include <stddef.h>

/* dgnn_in_open is public (dgnn/io.h): the checkpoint loader opens its file with it too. */
#include "dgnn/io.h"

/* What the bytes p[0..n) (a file's first block) are, when they are not UTF-8 text: a
 * sentence written into buf (cap >= 256) and returned; NULL when they look like text.
 * A stray control byte or two is left to the parsers (they name the field). */
const char *dgnn_in_sniff(const unsigned char *p, size_t n, char *buf, size_t cap);

#endif
