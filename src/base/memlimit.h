/* memlimit.h: the memory limit of a control group (memlimit.c), behind
 * dgnn_mem_total_bytes; declared here for its test (tests/test_base.c). */
#ifndef DGNN_MEMLIMIT_H
#define DGNN_MEMLIMIT_H

#include <stdint.h>

/* The smallest memory (+ swap) limit, in bytes, of the control groups that
 * proc_cgroup (a /proc/self/cgroup) names, read under root (the cgroup mount,
 * /sys/fs/cgroup); swap_total bounds the swap a v2 group or a v1 group without a
 * memsw limit may add. INT64_MAX when no group sets one or nothing can be read. */
int64_t dgnn_mem_cgroup_limit(const char *proc_cgroup, const char *root, int64_t swap_total);

#endif
