/* gen.h: the synthetic dataset generator behind `dgnn gen` and the built-in default
 * dataset.
 *
 * The stream has the structure a memory-based TGNN can learn, so that a link
 * predictor trained on it clearly beats random:
 *  - nodes belong to communities; a new partner comes from the source's own community
 *    with probability intra (otherwise from anywhere, by popularity);
 *  - with probability repeat an event repeats one of the source's recent partners (a
 *    per-source ring of `ring` distinct partners, the most recent ones more likely);
 *  - source activity and destination popularity follow a power law (weight of the node
 *    of random rank r is (r+1)^-alpha);
 *  - the event rate grows linearly by a factor `growth` over the time span and has
 *    `bursts` short windows of `burst_rate` times the rate;
 *  - edge features (edge_dim > 0) are a per-(source community, destination community)
 *    mean plus uniform noise;
 *  - with probability session, an event continues the previous event's source (bursts
 *    of activity by one node, close in time, as a user's edit session);
 *  - labels (JODIE's state_label) are rare, about label_rate of the events, and 5x more
 *    likely on events that leave the source's community (a node "changing state").
 *
 * Events come out in time order, one sequential pass, deterministic for a seed. The
 * generator holds O(N * ring) state plus chunk buffers, never O(E): 100M events take the
 * same memory as 1M. dgnn_gen_events and dgnn_gen_write run the same code, so the
 * in-memory table equals what the file holds. */
#ifndef DGNN_GEN_H
#define DGNN_GEN_H

#include <stdio.h>

#include "dgnn/events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t num_events;    /* "events"      E (default 100,000) */
    int64_t num_nodes;     /* "nodes"       N (default 1,000) */
    uint64_t seed;         /* "seed"        (default 1) */
    int bipartite;         /* "bipartite"   0/1 (default 0): sources 0..S-1, destinations S..N-1 */
    int64_t num_src_nodes; /* "src-nodes"   S when bipartite; 0 = 90% of N (default 0) */
    int communities;       /* "communities" (default 16) */
    double intra_prob;     /* "intra"       new partner from the own community (default 0.9) */
    double repeat_prob;    /* "repeat"      repeat a recent partner (default 0.5) */
    int ring;              /* "ring"        recent partners kept per source, 1..64 (default 8) */
    double alpha;          /* "alpha"       power-law exponent of activity (default 1.0) */
    int64_t edge_dim;      /* "edge-dim"    (default 0) */
    double feat_noise;     /* "noise"       amplitude of the feature noise (default 0.5) */
    double duration;       /* "duration"    time span in seconds (default 30 days) */
    double growth;         /* "growth"      rate at the end / rate at the start (default 5) */
    int bursts;            /* "bursts"      number of burst windows (default 4) */
    double burst_rate;     /* "burst-rate"  rate multiplier inside a burst (default 10) */
    double burst_len;      /* "burst-len"   seconds per burst; 0 = duration / 200 (default 0) */
    double label_rate;     /* "label-rate"  fraction of positive labels (default 0.002) */
    double session;        /* "session"     an event's source is the previous event's source
                              (a burst of activity, as a user's edit session) (default 0) */
    int progress;          /* "progress"    0/1: progress bar labelled "gen" on stderr (default 0) */
} dgnn_gen_opts;

typedef struct {
    int64_t events;
    double seconds;
    double events_per_s;
    int64_t bytes;         /* size of the written file (0 for dgnn_gen_events) */
} dgnn_gen_stats;

dgnn_gen_opts dgnn_gen_opts_default(void);

/* Sets the option called key (the quoted names above, e.g. "events", "edge-dim") from
 * its text value, as a CLI flag --key value would. Counts accept a K/M/G suffix and
 * exponents ("10M", "1e7"). DGNN_EINVAL with a message on an unknown key or bad value. */
int dgnn_gen_set(dgnn_gen_opts *o, const char *key, const char *value, dgnn_err *err);
/* Prints one line per option (name, default, meaning, range) for --help: the defaults of
 * `defaults` (a command's own), or dgnn_gen_opts_default()'s when NULL. */
void dgnn_gen_usage(FILE *f, const dgnn_gen_opts *defaults);
/* Checks ranges; messages name the option. Called by both generators. */
int dgnn_gen_check(const dgnn_gen_opts *o, dgnn_err *err);

/* Generates into ev (zeroed by the call; malloc'd arrays, label always present). */
int dgnn_gen_events(dgnn_events *ev, const dgnn_gen_opts *o, dgnn_err *err);

/* Generates straight to path, streaming: a .csv path gets a JODIE-style csv
 * (user,item,timestamp,state_label[,f1..fd], items numbered after the users in one id
 * space, as in TGN's prepared files, so dgnn_read_jodie reads back the same ids; only
 * for bipartite graphs: DGNN_EINVAL otherwise), anything else a .dgnn file. The file
 * appears atomically (temporary file + rename). st (may be NULL) gets the stats. */
int dgnn_gen_write(const char *path, const dgnn_gen_opts *o, dgnn_gen_stats *st, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
