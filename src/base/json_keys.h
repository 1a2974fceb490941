/* json_keys.h: the first key that an object of a JSON value repeats (internal to the
 * library). JSON leaves repeated keys to the reader: cJSON's lookup takes the first, Python's
 * json the last, so a file with two "edges" (or two "seconds") reads differently here and in
 * the user's own scripts. The readers of JSON inputs (PyG-Temporal files, a run's measured
 * JSON) refuse such files through this one walk. */
#ifndef DGNN_JSON_KEYS_H
#define DGNN_JSON_KEYS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Walks every object under it (keys sorted per object: O(k log k) for an object of k keys;
 * the depth is bounded by cJSON's nesting limit). Returns 1 when an object repeats a key,
 * with path[cap] the place as the readers' messages write it (edge_mapping.edge_index."12"[3];
 * "" for the top level) and key[keycap] the key, cut to 40 bytes and "..."; 0 when no object
 * does; -1 when out of memory. */
int dgnn_json_repeated_key(const cJSON *it, char *path, size_t cap, char *key, size_t keycap);

#endif
