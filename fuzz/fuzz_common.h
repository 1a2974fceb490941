/* fuzz_common.h: what the harnesses share. The readers and loaders take paths, so each
 * input is written to one file in a private temporary folder (under /dev/shm when
 * available: no disk traffic), made at the first input and removed at exit. Any failure
 * of this plumbing aborts: it is the harness's, not a finding. */
#ifndef DGNN_FUZZ_COMMON_H
#define DGNN_FUZZ_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char g_dir[128] __attribute__((unused));
static char g_path[192] __attribute__((unused));

static inline void write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        abort();
    }
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
}

static inline void fuzz_remove_temp(void) {
    unlink(g_path);
    rmdir(g_dir);
}

/* Makes the folder dgnn_fuzz_TAG_XXXXXX once and sets g_path to NAME in it. */
static inline void fuzz_setup(const char *tag, const char *name) {
    if (g_dir[0]) return;
    snprintf(g_dir, sizeof g_dir, "%s/dgnn_fuzz_%s_XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", tag);
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        abort();
    }
    snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
    atexit(fuzz_remove_temp);
}
#endif
