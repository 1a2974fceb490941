/* readers.h: reading datasets into a dgnn_events table (src/data/load.c and the readers
 * read_jodie.c, read_tgl.c, read_edgelist.c, read_pgt.c, read_dyglib.c, read_tgb.c;
 * src/data/textscan.c is their shared line scanner).
 *
 * dgnn_load() is the one entry point the commands use: it detects the format (or takes
 * the one given) and calls the reader. Every reader rejects a broken file with a
 * message that names the file, the line and the field, and returns a negative status;
 * none of them crashes or returns a silently wrong table. CRLF line endings and a
 * UTF-8 byte-order mark are accepted. */
#ifndef DGNN_READERS_H
#define DGNN_READERS_H

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DGNN_FMT_AUTO = 0,
    DGNN_FMT_JODIE,    /* user,item,timestamp,state_label,f1..fd with one header line */
    DGNN_FMT_TGL,      /* TGL edges.csv (,src,dst,time,ext_roll) + optional .npy features */
    DGNN_FMT_EDGELIST, /* SNAP / KONECT edge list */
    DGNN_FMT_PGT,      /* PyTorch Geometric Temporal json snapshots */
    DGNN_FMT_BINARY,   /* .dgnn */
    DGNN_FMT_DYGLIB,   /* TGN / DyGLib processed ml_NAME.csv (,u,i,ts,label,idx) + ml_NAME.npy,
                          ml_NAME_node.npy (row 0 of each is padding; ids are 1-based) */
    DGNN_FMT_TGB       /* TGB's raw edge list (tgbl-*_edgelist_v2.csv), nodes numbered as TGB does */
} dgnn_format;

typedef struct {
    dgnn_format format;      /* DGNN_FMT_AUTO: detect from magic, extension and header */
    const char *columns;     /* edge lists: comma-separated roles, e.g. "src,dst,ts" or
                                "src,dst,weight,ts"; NULL = by column count (3: src,dst,ts;
                                4: src,dst,weight,ts). Roles: src dst ts weight feat label skip */
    int bipartite;           /* -1: detect; 1: declared bipartite (checked); 0: not */
    const char *edge_feat;   /* TGL: .npy of edge features (E, d) or NULL (looked up beside
                                edges.csv as edge_features.npy) */
    const char *node_feat;   /* TGL: .npy of node features (N, d) or NULL (node_features.npy) */
} dgnn_load_opts;

/* Default options: auto format, detect bipartite. */
dgnn_load_opts dgnn_load_opts_default(void);

/* Reads path into ev (zeroed by the call). path may be a file or, for TGL, a folder
 * holding edges.csv. On failure ev is left empty and err says what and where. */
int dgnn_load(dgnn_events *ev, const char *path, const dgnn_load_opts *opts, dgnn_err *err);
/* The detected format of path (DGNN_FMT_AUTO if the file cannot be read). */
dgnn_format dgnn_detect_format(const char *path);
const char *dgnn_format_name(dgnn_format f);

/* ---- the readers (read_jodie.c, read_tgl.c, read_edgelist.c, read_pgt.c, read_dyglib.c,
 * read_tgb.c) ---- */
int dgnn_read_jodie(dgnn_events *ev, const char *path, dgnn_err *err);
int dgnn_read_tgl(dgnn_events *ev, const char *path, const char *edge_feat_npy,
                  const char *node_feat_npy, dgnn_err *err);
int dgnn_read_edgelist(dgnn_events *ev, const char *path, const char *columns, dgnn_err *err);
int dgnn_read_pgt(dgnn_events *ev, const char *path, dgnn_err *err);
/* path: ml_NAME.csv; ml_NAME.npy and ml_NAME_node.npy beside it are read when present. */
int dgnn_read_dyglib(dgnn_events *ev, const char *path, dgnn_err *err);
int dgnn_read_tgb(dgnn_events *ev, const char *path, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
