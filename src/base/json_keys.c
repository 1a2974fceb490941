/* json_keys.c: see json_keys.h. */
#include "json_keys.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int is_digits(const char *s) {
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* 1 (key set) when the object it repeats a key, 0 when not, -1 out of memory */
static int object_repeats(const cJSON *it, char *key, size_t keycap) {
    int n = cJSON_GetArraySize(it);
    if (n < 2) return 0;
    const char **keys = malloc((size_t)n * sizeof *keys);
    if (!keys) return -1;
    int k = 0, found = 0;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, it) keys[k++] = ch->string ? ch->string : "";
    qsort(keys, (size_t)n, sizeof *keys, cmp_str);
    for (int i = 1; i < n && !found; i++)
        if (strcmp(keys[i], keys[i - 1]) == 0) {
            snprintf(key, keycap, "%.40s%s", keys[i], strlen(keys[i]) > 40 ? "..." : "");
            found = 1;
        }
    free(keys);
    return found;
}

static int walk(const cJSON *it, char *path, size_t plen, size_t cap, char *key, size_t keycap) {
    if (cJSON_IsObject(it)) {
        int rc = object_repeats(it, key, keycap);
        if (rc) return rc;
    }
    if (!cJSON_IsObject(it) && !cJSON_IsArray(it)) return 0;
    const cJSON *ch;
    long long i = 0;
    cJSON_ArrayForEach(ch, it) {
        if (cJSON_IsObject(ch) || cJSON_IsArray(ch)) {
            const char *k = ch->string ? ch->string : "";
            const char *q = is_digits(k) ? "\"" : "";
            int w = cJSON_IsObject(it) ? snprintf(path + plen, cap - plen, "%s%s%.40s%s", plen ? "." : "", q, k, q)
                                       : snprintf(path + plen, cap - plen, "[%lld]", i);
            size_t nl = plen + (w > 0 && (size_t)w < cap - plen ? (size_t)w : 0);
            int rc = walk(ch, path, nl, cap, key, keycap);
            if (rc) return rc;
            path[plen] = '\0';
        }
        i++;
    }
    return 0;
}

int dgnn_json_repeated_key(const cJSON *it, char *path, size_t cap, char *key, size_t keycap) {
    if (!path || cap == 0 || !key || keycap == 0) return 0;
    path[0] = '\0';
    key[0] = '\0';
    return walk(it, path, 0, cap, key, keycap);
}
