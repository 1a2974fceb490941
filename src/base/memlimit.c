/* memlimit.c: how much memory this process may use, and the checks of a request against
 * it (dgnn_mem_check, the dgnn_alloc_set of dgnn/base.h). The limit: the machine's
 * RAM + swap, or less where a control group says less (a container's memory limit, a
 * systemd slice, a Slurm job's cgroup). A request past a cgroup's limit is granted by
 * malloc and then ends the process in the cgroup's OOM killer, as one past the
 * machine's RAM does in the kernel's.
 *
 * The cgroup: /proc/self/cgroup names this process's group for each hierarchy, "0::PATH"
 * for cgroup v2 and "N:...memory...:PATH" for v1's memory controller. Its limit is the
 * smallest over PATH and each of its ancestors (a child may not use more than a parent
 * grants), read under the mount point (v2: ROOT/PATH/memory.max + memory.swap.max;
 * v1: ROOT/memory/PATH/memory.limit_in_bytes, or memory.memsw.limit_in_bytes, which
 * counts swap too). Inside a container, PATH names the host's group while the mount
 * shows the container's own at its top: ROOT's own files are read as well. "max", a
 * value near INT64_MAX (v1's "unlimited"), a missing or unreadable file: no limit. */
#include "memlimit.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "dgnn/base.h"

/* A limit file's value in bytes, or INT64_MAX for "max", absent, unreadable or odd. */
static int64_t read_limit(const char *dir, const char *file) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) return INT64_MAX;
    FILE *f = fopen(path, "r");
    if (!f) return INT64_MAX;
    char buf[64] = {0};
    const int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok || !isdigit((unsigned char)buf[0])) return INT64_MAX; /* "max\n" */
    unsigned long long v = 0;
    for (const char *p = buf; isdigit((unsigned char)*p); p++) {
        if (v > (unsigned long long)INT64_MAX / 10) return INT64_MAX;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    /* v1 says unlimited with PAGE_COUNTER_MAX pages (9223372036854771712 on 4 KiB pages) */
    return v >= ((unsigned long long)1 << 62) ? INT64_MAX : (int64_t)v;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The smallest limit over dir/PATH and its ancestors up to dir, and dir's own. mem and
 * swap are the group's memory and swap files (swap NULL: mem counts swap too). */
static int64_t walk_limit(const char *dir, const char *path, const char *mem, const char *swap,
                          int64_t swap_total) {
    char d[4096];
    if (snprintf(d, sizeof d, "%s%s", dir, path) >= (int)sizeof d) return INT64_MAX;
    int64_t best = INT64_MAX;
    const size_t top = strlen(dir);
    for (;;) {
        int64_t m = read_limit(d, mem);
        if (m != INT64_MAX && swap) m = dgnn_size_add(m, min64(read_limit(d, swap), swap_total));
        best = min64(best, m);
        if (strlen(d) <= top) break;
        char *slash = strrchr(d + top, '/');
        if (!slash) break;
        *slash = '\0'; /* the parent; dir itself last */
    }
    return best;
}

int64_t dgnn_mem_cgroup_limit(const char *proc_cgroup, const char *root, int64_t swap_total) {
    FILE *f = fopen(proc_cgroup, "r");
    if (!f) return INT64_MAX;
    int64_t best = INT64_MAX;
    char line[4096];
    char dir[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = *c2 = '\0';
        const char *ctrl = c1 + 1, *path = c2 + 1;
        if (strcmp(path, "/") == 0) path = "";
        if (strcmp(line, "0") == 0 && *ctrl == '\0') { /* v2 */
            best = min64(best, walk_limit(root, path, "memory.max", "memory.swap.max", swap_total));
            continue;
        }
        int memory = 0; /* v1: the controllers are a comma-separated list */
        for (const char *p = ctrl; *p;) {
            const size_t n = strcspn(p, ",");
            if (n == 6 && strncmp(p, "memory", 6) == 0) memory = 1;
            p += n + (p[n] == ',');
        }
        if (!memory || snprintf(dir, sizeof dir, "%s/memory", root) >= (int)sizeof dir) continue;
        const int64_t memsw = walk_limit(dir, path, "memory.memsw.limit_in_bytes", NULL, 0);
        const int64_t mem = walk_limit(dir, path, "memory.limit_in_bytes", NULL, 0);
        best = min64(best, min64(memsw, mem == INT64_MAX ? INT64_MAX : dgnn_size_add(mem, swap_total)));
    }
    fclose(f);
    return best;
}

int64_t dgnn_mem_total_bytes(void) {
    static int64_t cached = -1; /* sizes do not change under a run; read once */
    int64_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v >= 0) return v;
    struct sysinfo si;
    if (sysinfo(&si) != 0) {
        v = INT64_MAX;
    } else {
        const int64_t unit = si.mem_unit ? (int64_t)si.mem_unit : 1;
        const int64_t swap = dgnn_size_mul((int64_t)si.totalswap, unit);
        v = dgnn_size_add(dgnn_size_mul((int64_t)si.totalram, unit), swap);
        v = min64(v, dgnn_mem_cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup", swap));
    }
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    return v;
}

/* ---- requests checked against that limit (dgnn/base.h) ---- */

static int vnomem(dgnn_err *e, int64_t bytes, const char *fmt, va_list ap) {
    if (!e) return DGNN_ENOMEM;
    char what[600], sz[32];
    vsnprintf(what, sizeof what, fmt, ap);
    if (bytes == INT64_MAX) snprintf(sz, sizeof sz, "more than 8 EiB");
    else dgnn_fmt_bytes(sz, sizeof sz, (double)bytes);
    return dgnn_err_set(e, DGNN_ENOMEM, "out of memory: %s for %s", sz, what);
}

int dgnn_err_nomem(dgnn_err *e, int64_t bytes, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = vnomem(e, bytes, fmt, ap);
    va_end(ap);
    return rc;
}

int dgnn_mem_check(int64_t bytes, dgnn_err *e, const char *fmt, ...) {
    if (bytes >= 0 && bytes <= dgnn_mem_total_bytes()) return DGNN_OK;
    va_list ap;
    va_start(ap, fmt);
    int rc = vnomem(e, bytes, fmt, ap);
    va_end(ap);
    return rc;
}

static void alloc_set(dgnn_alloc_set *a, void **p, int64_t n, size_t size, int zero) {
    const int64_t bytes = dgnn_size_mul(n > 0 ? n : 1, (int64_t)size);
    a->bytes = dgnn_size_add(a->bytes, bytes); /* counted after a failure too: the message names the whole */
    if (a->failed) return;
    /* larger than the machine: never asked (overcommit would grant it, the OOM killer end it) */
    if (bytes == INT64_MAX || (uint64_t)bytes > SIZE_MAX || a->bytes > dgnn_mem_total_bytes()) {
        a->failed = 1;
        return;
    }
    void *q;
    if (zero) {
        q = calloc((size_t)bytes, 1);
        if (q) free(*p);
    } else {
        q = realloc(*p, (size_t)bytes);
    }
    if (!q) {
        a->failed = 1;
        return;
    }
    *p = q;
}

void dgnn_alloc_grow(dgnn_alloc_set *a, void **p, int64_t n, size_t size) { alloc_set(a, p, n, size, 0); }
void dgnn_alloc_zeroed(dgnn_alloc_set *a, void **p, int64_t n, size_t size) { alloc_set(a, p, n, size, 1); }

int dgnn_alloc_done(const dgnn_alloc_set *a, dgnn_err *e, const char *fmt, ...) {
    if (!a->failed) return DGNN_OK;
    va_list ap;
    va_start(ap, fmt);
    int rc = vnomem(e, a->bytes, fmt, ap);
    va_end(ap);
    return rc;
}
