/* gen.c: the synthetic dataset generator (`dgnn gen`, the built-in default dataset).
 * What the stream looks like and why is in gen.h; this file is the how.
 *
 * One sequential pass produces events in time order in chunks; the same chunk routine
 * feeds an in-memory table, the streaming .dgnn writer or a csv, so the three outputs
 * agree for a seed. State is O(N * ring) (recent-partner rings, alias tables); no
 * per-event array is ever held beyond one chunk.
 *
 * Times: given the count, a Poisson process with rate lambda(t) puts its E points iid
 * with density proportional to lambda, so the sorted times are sorted uniforms pushed
 * through the inverse of the cumulative rate. Sorted uniforms come out in increasing
 * order one at a time from the recurrence U_k = 1 - (1 - U_{k-1}) V^(1/(E-k+1))
 * (the minimum of the remaining E-k+1 uniforms on [U_{k-1}, 1]); it is carried in log
 * space, L = log(1 - U), so 100M steps lose no precision near 1. The cumulative rate is
 * a table over 8192 bins (linear growth times burst windows), walked by a pointer that
 * only moves forward. Timestamps are rounded to milliseconds so that the csv's
 * "%.3f" text reads back to the identical double. */
#include "dgnn/gen.h"

#include "dgnn/binfmt.h"
#include "dgnn/outfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { RATE_BINS = 8192, MAX_TRIES = 4 };

/* ---- options ---------------------------------------------------------------- */

dgnn_gen_opts dgnn_gen_opts_default(void) {
    dgnn_gen_opts o;
    memset(&o, 0, sizeof o);
    o.num_events = 100000;
    o.num_nodes = 1000;
    o.seed = 1;
    o.communities = 16;
    o.intra_prob = 0.9;
    o.repeat_prob = 0.5;
    o.ring = 8;
    o.alpha = 1.0;
    o.feat_noise = 0.5;
    o.duration = 30.0 * 86400.0;
    o.growth = 5.0;
    o.bursts = 4;
    o.burst_rate = 10.0;
    o.label_rate = 0.002;
    o.session = 0.0;
    return o;
}

enum { OPT_COUNT, OPT_SEED, OPT_INT, OPT_DOUBLE, OPT_BOOL };
typedef struct {
    const char *key;
    int kind;
    size_t off;
    const char *help;
    const char *range; /* as dgnn_gen_check enforces it, for --help (NULL: a 0/1 flag) */
} gen_optdef;

#define OFF(f) offsetof(dgnn_gen_opts, f)
static const gen_optdef OPTS[] = {
    {"events", OPT_COUNT, OFF(num_events), "number of events", "[0, 1e12]"},
    {"nodes", OPT_COUNT, OFF(num_nodes), "number of nodes", "[2, 2^31-1]"},
    {"seed", OPT_SEED, OFF(seed), "random seed (same seed, same file)", "[0, 2^64-1]"},
    {"bipartite", OPT_BOOL, OFF(bipartite), "1: sources and destinations are disjoint node sets", NULL},
    {"src-nodes", OPT_COUNT, OFF(num_src_nodes), "bipartite: number of source nodes (0 = 90% of nodes)", "0 or [1, nodes-1]"},
    {"communities", OPT_INT, OFF(communities), "number of communities", "[1, nodes]"},
    {"intra", OPT_DOUBLE, OFF(intra_prob), "probability that a new partner is in the source's community", "[0, 1]"},
    {"repeat", OPT_DOUBLE, OFF(repeat_prob), "probability that an event repeats a recent partner", "[0, 1]"},
    {"ring", OPT_INT, OFF(ring), "recent partners remembered per source", "[1, 64]"},
    {"alpha", OPT_DOUBLE, OFF(alpha), "power-law exponent of node activity", "[0, 10]"},
    {"edge-dim", OPT_COUNT, OFF(edge_dim), "edge feature dimension (0 = none)", "[0, 65536]"},
    {"noise", OPT_DOUBLE, OFF(feat_noise), "amplitude of the edge feature noise", "[0, 1e6]"},
    {"duration", OPT_DOUBLE, OFF(duration), "time span in seconds", "(0, 1e12]"},
    {"growth", OPT_DOUBLE, OFF(growth), "event rate at the end / rate at the start", "[0.001, 1e6]"},
    {"bursts", OPT_INT, OFF(bursts), "number of burst windows", "[0, 100000]"},
    {"burst-rate", OPT_DOUBLE, OFF(burst_rate), "rate multiplier inside a burst", "[0, 1e6]"},
    {"burst-len", OPT_DOUBLE, OFF(burst_len), "seconds per burst (0 = duration / 200)", "[0, duration]"},
    {"label-rate", OPT_DOUBLE, OFF(label_rate), "fraction of events with a positive label", "[0, 1]"},
    {"session", OPT_DOUBLE, OFF(session), "probability that an event continues the previous event's source", "[0, 1)"},
    {"progress", OPT_BOOL, OFF(progress), "1: show a progress bar", NULL},
};
#undef OFF
enum { NUM_OPTS = sizeof OPTS / sizeof OPTS[0] };

/* "10M", "2.5k", "1e7", "100000" -> integral value; -1 when not a non-negative integer. */
static int parse_count(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno) return -1;
    double mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1e3, end++;
    else if (*end == 'm' || *end == 'M') mul = 1e6, end++;
    else if (*end == 'g' || *end == 'G' || *end == 'b' || *end == 'B') mul = 1e9, end++;
    if (*end != '\0') return -1;
    v *= mul;
    if (!(v >= 0) || v > 4e18 || v != floor(v)) return -1;
    *out = v;
    return 0;
}

int dgnn_gen_set(dgnn_gen_opts *o, const char *key, const char *value, dgnn_err *err) {
    const gen_optdef *d = NULL;
    for (int i = 0; i < NUM_OPTS; i++)
        if (strcmp(OPTS[i].key, key) == 0) d = &OPTS[i];
    if (!d) return dgnn_err_set(err, DGNN_EINVAL, "gen: unknown option '%s'", key);
    char *p = (char *)o + d->off, *end;
    double v;
    switch (d->kind) {
    case OPT_COUNT:
        if (parse_count(value, &v) != 0)
            return dgnn_err_set(err, DGNN_EINVAL, "gen: option '%s': not a non-negative integer: '%s'", key, value);
        *(int64_t *)p = (int64_t)v;
        return DGNN_OK;
    case OPT_INT:
        if (parse_count(value, &v) != 0 || v > INT_MAX)
            return dgnn_err_set(err, DGNN_EINVAL, "gen: option '%s': not a non-negative integer: '%s'", key, value);
        *(int *)p = (int)v;
        return DGNN_OK;
    case OPT_SEED: {
        errno = 0;
        unsigned long long u = strtoull(value, &end, 0);
        if (end == value || *end || errno || value[0] == '-')
            return dgnn_err_set(err, DGNN_EINVAL, "gen: option 'seed': not an unsigned integer: '%s'", value);
        *(uint64_t *)p = (uint64_t)u;
        return DGNN_OK;
    }
    case OPT_DOUBLE:
        errno = 0;
        v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v))
            return dgnn_err_set(err, DGNN_EINVAL, "gen: option '%s': not a number: '%s'", key, value);
        *(double *)p = v;
        return DGNN_OK;
    default: /* OPT_BOOL */
        if (!strcmp(value, "1") || !strcasecmp(value, "true") || !strcasecmp(value, "yes")) *(int *)p = 1;
        else if (!strcmp(value, "0") || !strcasecmp(value, "false") || !strcasecmp(value, "no")) *(int *)p = 0;
        else return dgnn_err_set(err, DGNN_EINVAL, "gen: option '%s': expected 0 or 1, got '%s'", key, value);
        return DGNN_OK;
    }
}

void dgnn_gen_usage(FILE *f, const dgnn_gen_opts *defaults) {
    const dgnn_gen_opts d = defaults ? *defaults : dgnn_gen_opts_default();
    for (int i = 0; i < NUM_OPTS; i++) {
        const char *p = (const char *)&d + OPTS[i].off;
        char def[48];
        switch (OPTS[i].kind) {
        case OPT_COUNT: snprintf(def, sizeof def, "%lld", (long long)*(const int64_t *)p); break;
        case OPT_SEED: snprintf(def, sizeof def, "%llu", (unsigned long long)*(const uint64_t *)p); break;
        case OPT_DOUBLE: snprintf(def, sizeof def, "%g", *(const double *)p); break;
        default: snprintf(def, sizeof def, "%d", *(const int *)p); break;
        }
        fprintf(f, "  --%-12s %-10s %s%s%s\n", OPTS[i].key, def, OPTS[i].help, OPTS[i].range ? "; in " : "",
                OPTS[i].range ? OPTS[i].range : "");
    }
}

static int64_t num_sources(const dgnn_gen_opts *o) {
    if (!o->bipartite) return o->num_nodes;
    if (o->num_src_nodes > 0) return o->num_src_nodes;
    int64_t s = (int64_t)llround(0.9 * (double)o->num_nodes);
    if (s < 1) s = 1;
    if (s > o->num_nodes - 1) s = o->num_nodes - 1;
    return s;
}

int dgnn_gen_check(const dgnn_gen_opts *o, dgnn_err *err) {
#define BAD(...) return dgnn_err_set(err, DGNN_EINVAL, "gen: " __VA_ARGS__)
    if (o->num_events < 0 || o->num_events > (int64_t)1e12) BAD("option 'events' must be in [0, 1e12], got %lld", (long long)o->num_events);
    if (o->num_nodes < 2 || o->num_nodes > INT32_MAX) BAD("option 'nodes' must be in [2, 2^31-1], got %lld", (long long)o->num_nodes);
    if (o->bipartite != 0 && o->bipartite != 1) BAD("option 'bipartite' must be 0 or 1");
    if (o->bipartite && (o->num_src_nodes < 0 || o->num_src_nodes >= o->num_nodes))
        BAD("option 'src-nodes' must be in [1, nodes-1] (0 = 90%% of nodes), got %lld", (long long)o->num_src_nodes);
    if (o->communities < 1 || o->communities > o->num_nodes) BAD("option 'communities' must be in [1, nodes], got %d", o->communities);
    if (!(o->intra_prob >= 0 && o->intra_prob <= 1)) BAD("option 'intra' must be in [0, 1], got %g", o->intra_prob);
    if (!(o->repeat_prob >= 0 && o->repeat_prob <= 1)) BAD("option 'repeat' must be in [0, 1], got %g", o->repeat_prob);
    if (o->ring < 1 || o->ring > 64) BAD("option 'ring' must be in [1, 64], got %d", o->ring);
    if (!(o->alpha >= 0 && o->alpha <= 10)) BAD("option 'alpha' must be in [0, 10], got %g", o->alpha);
    if (o->edge_dim < 0 || o->edge_dim > 65536) BAD("option 'edge-dim' must be in [0, 65536], got %lld", (long long)o->edge_dim);
    /* the output's sizes are int64 byte counts: events x (features + the fixed columns) must fit, far below 2^63 */
    if ((double)o->num_events * (double)(4 * o->edge_dim + 32) > 0x1p60)
        BAD("options 'events' x 'edge-dim' (%lld x %lld) make an output past 2^60 bytes", (long long)o->num_events,
            (long long)o->edge_dim);
    if (!(o->feat_noise >= 0 && o->feat_noise <= 1e6)) BAD("option 'noise' must be in [0, 1e6], got %g", o->feat_noise);
    /* timestamps are rounded to milliseconds: keep t * 1000 exact in a double */
    if (!(o->duration > 0 && o->duration <= 1e12)) BAD("option 'duration' must be in (0, 1e12] seconds, got %g", o->duration);
    if (!(o->growth >= 1e-3 && o->growth <= 1e6)) BAD("option 'growth' must be in [0.001, 1e6], got %g", o->growth);
    if (o->bursts < 0 || o->bursts > 100000) BAD("option 'bursts' must be in [0, 100000], got %d", o->bursts);
    if (!(o->burst_rate >= 0 && o->burst_rate <= 1e6)) BAD("option 'burst-rate' must be in [0, 1e6], got %g", o->burst_rate);
    if (!(o->burst_len >= 0 && o->burst_len <= o->duration)) BAD("option 'burst-len' must be in [0, duration], got %g", o->burst_len);
    if (!(o->label_rate >= 0 && o->label_rate <= 1)) BAD("option 'label-rate' must be in [0, 1], got %g", o->label_rate);
    if (!(o->session >= 0 && o->session < 1)) BAD("option 'session' must be in [0, 1), got %g", o->session);
#undef BAD
    return DGNN_OK;
}

/* Events per chunk: 65536, fewer with wide features so that a chunk's buffers stay
 * near 4 MB. gen_chunk draws the times and sources of a whole chunk before the rest,
 * so the chunk size shapes the draw order: it is a function of the options alone, and
 * every output uses it, so all outputs see the same draws. */
static int64_t chunk_size(const dgnn_gen_opts *o) {
    int64_t c = o->edge_dim > 16 ? ((int64_t)1 << 20) / o->edge_dim : 65536;
    return c < 64 ? 64 : c;
}

/* ---- alias tables (Vose): O(1) draws from a fixed discrete distribution ---------- */

/* A column's coin and its alias side by side: one draw touches one cache line. */
typedef struct {
    float prob;
    int32_t alias;
} alias_cell;

/* cell: (n); w: (n) non-negative weights, not all zero; work, p: (n) scratch. */
static void alias_build(alias_cell *cell, const double *w, int64_t n, int32_t *work, double *p) {
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += w[i];
    int64_t ns = 0, nl = n; /* small ones fill work from the front, large ones from the back */
    for (int64_t i = 0; i < n; i++) {
        p[i] = w[i] * (double)n / sum;
        if (p[i] < 1.0) work[ns++] = (int32_t)i;
        else work[--nl] = (int32_t)i;
    }
    while (ns > 0 && nl < n) {
        int32_t s = work[--ns], l = work[nl];
        cell[s].prob = (float)p[s];
        cell[s].alias = l;
        p[l] -= 1.0 - p[s];
        if (p[l] < 1.0) { /* l becomes small: move it from the large to the small list */
            nl++;
            work[ns++] = l;
        }
    }
    /* leftovers are 1 up to rounding */
    while (ns > 0) { int32_t s = work[--ns]; cell[s].prob = 1.0f; cell[s].alias = s; }
    while (nl < n) { int32_t l = work[nl++]; cell[l].prob = 1.0f; cell[l].alias = l; }
}

/* One 64-bit draw: the high half picks the column (multiply-shift; bias <= n / 2^32,
 * irrelevant for synthetic data), the low half flips the column's coin. */
static inline int64_t alias_draw(const alias_cell *cell, int64_t n, uint64_t u) {
    uint64_t i = ((u >> 32) * (uint64_t)n) >> 32;
    return (double)(uint32_t)u * 0x1.0p-32 < (double)cell[i].prob ? (int64_t)i : cell[i].alias;
}

/* ---- generator state ---------------------------------------------------------- */

typedef struct {
    dgnn_gen_opts o;
    int64_t E, N, S, Dn, dbase; /* sources are [0, S), destinations [dbase, dbase + Dn) */
    int C, R;
    alias_cell *scell;          /* (S) source activity sampler */
    alias_cell *dcell;          /* (Dn) destination popularity sampler, all destinations */
    int64_t *cstart;            /* (C + 1) destinations of community c: cmem[cstart[c] .. cstart[c+1]) */
    int32_t *cmem;              /* (Dn) node ids */
    alias_cell *ccell;          /* (Dn) per-community samplers, indices local to the community */
    int32_t *comm;              /* (N) community of each node */
    int32_t *ring;              /* (S, R) recent distinct partners, most recent first */
    int32_t last_src;           /* source of the previous event (sessions) */
    uint8_t *rlen;              /* (S) */
    double *cum;                /* (RATE_BINS + 1) cumulative rate */
    float *fa, *fb;             /* (C, edge_dim) feature means of source / destination community */
    double q0;                  /* prior of the cross-community fraction */
    double n_cross;             /* cross-community events so far */
    dgnn_rng rng;
    int64_t k;                  /* events produced */
    double L;                   /* log(1 - U_k) */
    int64_t bin;
    double t_prev;
} gen_state;

static void gen_free(gen_state *g) {
    free(g->scell); free(g->dcell); free(g->cstart); free(g->cmem); free(g->ccell);
    free(g->comm); free(g->ring); free(g->rlen); free(g->cum); free(g->fa); free(g->fb);
    memset(g, 0, sizeof *g);
}

/* Power-law weights over a random ranking of n nodes: w[v] = (rank(v) + 1)^-alpha. */
static void powerlaw_weights(double *w, int64_t n, double alpha, int32_t *perm, dgnn_rng *r) {
    for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)dgnn_rng_below(r, (uint64_t)i + 1);
        int32_t x = perm[i]; perm[i] = perm[j]; perm[j] = x;
    }
    for (int64_t rk = 0; rk < n; rk++) w[perm[rk]] = pow((double)(rk + 1), -alpha);
}

/* Builds the cumulative rate table: linear growth from 1 to `growth`, times burst_rate
 * over the part of each bin that a burst window covers (exact for windows shorter
 * than a bin). */
static void build_rate(gen_state *g, dgnn_rng *r) {
    const dgnn_gen_opts *o = &g->o;
    const double D = o->duration, bw = D / RATE_BINS;
    double blen = o->burst_len > 0 ? o->burst_len : D / 200;
    double *mult = dgnn_xcalloc(RATE_BINS, sizeof(double)); /* extra burst coverage per bin, in bins */
    for (int b = 0; b < o->bursts; b++) {
        double s = dgnn_rng_uniform(r) * (D - blen), e = s + blen;
        int64_t b0 = (int64_t)(s / bw), b1 = (int64_t)(e / bw);
        for (int64_t i = b0; i <= b1 && i < RATE_BINS; i++) {
            double lo = fmax(s, (double)i * bw), hi = fmin(e, (double)(i + 1) * bw);
            if (hi > lo) mult[i] += (hi - lo) / bw;
        }
    }
    g->cum = dgnn_xmalloc((RATE_BINS + 1) * sizeof(double));
    g->cum[0] = 0;
    for (int i = 0; i < RATE_BINS; i++) {
        double base = 1.0 + (o->growth - 1.0) * ((double)i + 0.5) / RATE_BINS;
        double rate = base * (1.0 + (o->burst_rate - 1.0) * mult[i]);
        if (rate < 1e-12) rate = 1e-12; /* burst_rate 0 makes a silent window, never a zero-width bin */
        g->cum[i + 1] = g->cum[i] + rate;
    }
    free(mult);
}

/* Bytes gen_init allocates for o (checked options), saturating: per node its community,
 * the alias tables' build scratch (w, pscratch, work); per source its alias cell, ring
 * and ring length; per destination its two alias cells, community slot and weight; the
 * community tables and feature means. */
static int64_t gen_state_bytes(const dgnn_gen_opts *o) {
    const int64_t N = o->num_nodes, S = num_sources(o), Dn = o->bipartite ? N - S : N, C = o->communities;
    int64_t b = dgnn_size_mul(N, 4 + 8 + 8 + 4);
    b = dgnn_size_add(b, dgnn_size_mul(S, dgnn_size_add((int64_t)sizeof(alias_cell) + 1, 4 * (int64_t)o->ring)));
    b = dgnn_size_add(b, dgnn_size_mul(Dn, 2 * (int64_t)sizeof(alias_cell) + 4 + 8));
    b = dgnn_size_add(b, dgnn_size_mul(C, 16 + dgnn_size_mul(8, o->edge_dim)));
    return dgnn_size_add(b, 8 * (RATE_BINS + 1) + 8);
}

static int gen_init(gen_state *g, const dgnn_gen_opts *o, dgnn_err *err) {
    memset(g, 0, sizeof *g);
    int rc = dgnn_gen_check(o, err);
    if (rc) return rc;
    g->o = *o;
    g->E = o->num_events;
    g->N = o->num_nodes;
    g->S = num_sources(o);
    g->dbase = o->bipartite ? g->S : 0;
    g->Dn = o->bipartite ? g->N - g->S : g->N;
    g->C = o->communities;
    g->R = o->ring;
    /* setup draws from stream 0, events from stream 1: changing how many events are
     * generated never changes the graph's communities or weights */
    dgnn_rng r;
    dgnn_rng_seed2(&r, o->seed, 0);
    int64_t N = g->N, S = g->S, Dn = g->Dn, C = g->C;

    /* sizes come from the options (user input): plain malloc, DGNN_ENOMEM on failure,
     * their sum checked first (each malloc would be granted lazily, and the pages would
     * run out while the tables below are filled: --nodes 300M, 28 GB, was killed) */
    size_t nf = (size_t)C * (size_t)o->edge_dim;
    if ((rc = dgnn_mem_check(gen_state_bytes(o), err,
                             "gen: the generator's state for %lld nodes (%d ring slots each); lower --nodes or --ring",
                             (long long)N, g->R)))
        return rc;
    g->comm = malloc((size_t)N * sizeof(int32_t));
    g->scell = malloc((size_t)S * sizeof(alias_cell));
    g->dcell = malloc((size_t)Dn * sizeof(alias_cell));
    g->cstart = calloc((size_t)C + 1, sizeof(int64_t));
    g->cmem = malloc((size_t)Dn * sizeof(int32_t));
    g->ccell = malloc((size_t)Dn * sizeof(alias_cell));
    g->ring = malloc((size_t)S * (size_t)g->R * sizeof(int32_t));
    g->rlen = calloc((size_t)S, 1);
    g->fa = nf ? malloc(nf * sizeof(float)) : NULL;
    g->fb = nf ? malloc(nf * sizeof(float)) : NULL;
    double *w = malloc((size_t)N * sizeof(double)), *pscratch = malloc((size_t)N * sizeof(double));
    double *cw = malloc((size_t)Dn * sizeof(double));
    int32_t *work = malloc((size_t)N * sizeof(int32_t));
    int64_t *fill = malloc((size_t)C * sizeof(int64_t));
    if (!g->comm || !g->scell || !g->dcell || !g->cstart || !g->cmem || !g->ccell || !g->ring || !g->rlen ||
        (nf && (!g->fa || !g->fb)) || !w || !pscratch || !cw || !work || !fill) {
        free(w), free(pscratch), free(cw), free(work), free(fill);
        gen_free(g);
        return dgnn_err_set(err, DGNN_ENOMEM, "gen: out of memory for %lld nodes (about %.0f MB of state)",
                            (long long)N, (double)N * (40.0 + 4.0 * o->ring) / 1048576.0);
    }

    for (int64_t v = 0; v < N; v++) g->comm[v] = (int32_t)dgnn_rng_below(&r, (uint64_t)C);
    /* one ranking for all nodes when they play both roles (an active node is also a
     * popular destination); separate rankings for the two sides of a bipartite graph */
    powerlaw_weights(w, S, o->alpha, work, &r);
    alias_build(g->scell, w, S, work, pscratch);
    if (o->bipartite) powerlaw_weights(w, Dn, o->alpha, work, &r);
    alias_build(g->dcell, w, Dn, work, pscratch);

    /* per-community destination samplers: counting sort of destinations by community */
    for (int64_t i = 0; i < Dn; i++) g->cstart[g->comm[g->dbase + i] + 1]++;
    for (int64_t c = 0; c < C; c++) g->cstart[c + 1] += g->cstart[c];
    memcpy(fill, g->cstart, (size_t)C * sizeof(int64_t));
    for (int64_t i = 0; i < Dn; i++) {
        int64_t pos = fill[g->comm[g->dbase + i]]++;
        g->cmem[pos] = (int32_t)(g->dbase + i);
        cw[pos] = w[i];
    }
    for (int64_t c = 0; c < C; c++) {
        int64_t a = g->cstart[c], n = g->cstart[c + 1] - a;
        if (n > 0) alias_build(g->ccell + a, cw + a, n, work, pscratch);
    }
    free(w), free(pscratch), free(cw), free(work), free(fill);

    build_rate(g, &r);
    for (size_t i = 0; i < nf; i++) g->fa[i] = (float)dgnn_rng_normal(&r);
    for (size_t i = 0; i < nf; i++) g->fb[i] = (float)dgnn_rng_normal(&r);
    /* prior of the cross-community fraction (see the labels in gen_chunk) */
    g->q0 = (1.0 - o->intra_prob) * (1.0 - 1.0 / (double)C);

    dgnn_rng_seed2(&g->rng, o->seed, 1);
    g->t_prev = 0;
    return DGNN_OK;
}

static inline double unit(dgnn_rng *r) { return (double)(dgnn_rng_u64(r) >> 11) * 0x1.0p-53; }

static inline int ring_find(const int32_t *rg, int len, int32_t d) {
    for (int j = 0; j < len; j++)
        if (rg[j] == d) return j;
    return -1;
}

/* Produces the next n events into the given columns (efeat (n, edge_dim) or NULL when
 * edge_dim == 0). The only routine that draws event randomness. */
static void gen_chunk(gen_state *g, int64_t n, int32_t *src, int32_t *dst, double *t, float *efeat,
                      int32_t *label) {
    const dgnn_gen_opts *o = &g->o;
    dgnn_rng *r = &g->rng;
    const int R = g->R;
    const int64_t de = o->edge_dim;
    const double total = g->cum[RATE_BINS], bw = o->duration / RATE_BINS;
    /* Pass 1: times and sources. Pass 2: partners, labels, features, with the ring and
     * community of the source a few events ahead prefetched: with N ~ 1e5+ the
     * per-source state does not fit in cache, and the random accesses to it are what
     * bounds the speed. (The split only reorders draws; one seed, one stream.) */
    const int64_t k0 = g->k;
    for (int64_t i = 0; i < n; i++, g->k++) {
        /* time: next sorted uniform (see the file comment), then the inverse cumulative rate */
        double v = ((double)(dgnn_rng_u64(r) >> 11) + 1.0) * 0x1.0p-53; /* (0, 1]: log is finite */
        g->L += log(v) / (double)(g->E - g->k);
        double x = -expm1(g->L) * total;
        while (g->bin < RATE_BINS - 1 && g->cum[g->bin + 1] <= x) g->bin++;
        double frac = (x - g->cum[g->bin]) / (g->cum[g->bin + 1] - g->cum[g->bin]);
        frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
        double ts = round(((double)g->bin + frac) * bw * 1000.0) / 1000.0;
        if (ts < g->t_prev) ts = g->t_prev; /* rounding must never reorder */
        g->t_prev = ts;
        t[i] = ts;
        /* source: the previous event's (a session goes on), else by activity; no draw
         * when session == 0, so streams without sessions are unchanged */
        if (o->session > 0 && g->k > 0 && unit(r) < o->session) src[i] = g->last_src;
        else src[i] = (int32_t)alias_draw(g->scell, g->S, dgnn_rng_u64(r));
        g->last_src = src[i];
    }
    enum { AHEAD = 8 };
    for (int64_t i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            int32_t sa = src[i + AHEAD];
            __builtin_prefetch(g->ring + (size_t)sa * (size_t)R);
            __builtin_prefetch(g->rlen + sa);
            __builtin_prefetch(g->comm + sa);
        }
        int32_t s = src[i];
        int32_t *rg = g->ring + (size_t)s * (size_t)R;
        int len = g->rlen[s];
        int32_t d;
        int j = -1;
        if (len > 0 && unit(r) < o->repeat_prob) {
            /* repeat: the j-th most recent partner with probability 2^-(j+1) (the tail
             * mass goes to the oldest one) */
            j = __builtin_ctzll(dgnn_rng_u64(r) | (1ULL << 63));
            if (j >= len) j = len - 1;
            d = rg[j];
        } else {
            /* a new partner: own community with probability intra, else anyone, by
             * popularity; redraw a few times if it is the source or already recent */
            int c = g->comm[s];
            int64_t ca = g->cstart[c], cn = g->cstart[c + 1] - ca;
            for (int tries = 0;; tries++) {
                if (cn > 0 && unit(r) < o->intra_prob)
                    d = g->cmem[ca + alias_draw(g->ccell + ca, cn, dgnn_rng_u64(r))];
                else
                    d = (int32_t)(g->dbase + alias_draw(g->dcell, g->Dn, dgnn_rng_u64(r)));
                if (d != s && ring_find(rg, len, d) < 0) break;
                if (tries + 1 >= MAX_TRIES) {
                    /* the community's popular nodes are all recent: a uniform draw over all
                     * destinations almost always finds a new one (needed in small graphs,
                     * or the repeat fraction would creep above the option) */
                    for (int u = 0; u < MAX_TRIES; u++) {
                        d = (int32_t)(g->dbase + (int64_t)dgnn_rng_below(r, (uint64_t)g->Dn));
                        if (d != s && ring_find(rg, len, d) < 0) break;
                    }
                    break;
                }
            }
            if (d == s) /* only possible when not bipartite (N >= 2): any other node */
                d = (int32_t)(((int64_t)s + 1 + (int64_t)dgnn_rng_below(r, (uint64_t)g->N - 1)) % g->N);
            j = ring_find(rg, len, d);
        }
        /* move to front (a repeat, or a redraw that still hit a recent partner) or push */
        if (j < 0) {
            if (len < R) g->rlen[s] = (uint8_t)++len;
            j = len - 1;
        }
        memmove(rg + 1, rg, (size_t)j * sizeof(int32_t));
        rg[0] = d;

        int cs = g->comm[s], cd = g->comm[d];
        dst[i] = d;
        /* Labels: positives 5x more likely on cross-community events. The positive
         * rate among in-community events is label_rate / (1 + 4q), q the cross
         * fraction, so that the overall rate is label_rate; q depends on the graph
         * (rejections of recent partners push it up), so it is the running fraction so
         * far, started from the prior (1 - intra)(1 - 1/C) with the weight of 100 events. */
        double q = (g->n_cross + 100.0 * g->q0) / ((double)(k0 + i) + 100.0);
        double p_in = o->label_rate / (1.0 + 4.0 * q);
        label[i] = unit(r) < (cs != cd ? fmin(1.0, 5.0 * p_in) : p_in);
        g->n_cross += cs != cd;
        if (de > 0) {
            float *f = efeat + i * de;
            const float *a = g->fa + (size_t)cs * (size_t)de, *b = g->fb + (size_t)cd * (size_t)de;
            float amp = (float)o->feat_noise;
            for (int64_t k = 0; k < de; k++)
                f[k] = a[k] + b[k] + amp * ((float)(dgnn_rng_u64(r) >> 40) * 0x1.0p-24f * 2.0f - 1.0f);
        }
    }
}

/* ---- outputs ------------------------------------------------------------------- */

int dgnn_gen_events(dgnn_events *ev, const dgnn_gen_opts *o, dgnn_err *err) {
    dgnn_events_init(ev);
    /* the table and the generator's state live together: their sum must fit */
    int rc = dgnn_gen_check(o, err);
    if (rc) return rc;
    const int64_t table = dgnn_size_mul(o->num_events, dgnn_size_add(20, dgnn_size_mul(4, o->edge_dim)));
    if ((rc = dgnn_mem_check(dgnn_size_add(table, gen_state_bytes(o)), err,
                             "gen: a table of %lld events (%lld edge features each) and the state for %lld nodes",
                             (long long)o->num_events, (long long)o->edge_dim, (long long)o->num_nodes)))
        return rc;
    gen_state g;
    if ((rc = gen_init(&g, o, err))) return rc;
    if ((rc = dgnn_events_alloc(ev, g.E, o->edge_dim, 1, err))) {
        gen_free(&g);
        return rc;
    }
    ev->num_nodes = g.N;
    dgnn_progress pg;
    if (o->progress) dgnn_progress_begin(&pg, "gen", g.E);
    const int64_t chunk = chunk_size(o);
    for (int64_t i = 0; i < g.E; i += chunk) {
        int64_t n = g.E - i < chunk ? g.E - i : chunk;
        gen_chunk(&g, n, ev->src + i, ev->dst + i, ev->t + i, ev->efeat ? ev->efeat + i * o->edge_dim : NULL,
                  ev->label + i);
        if (o->progress) dgnn_progress_update(&pg, i + n, NULL);
    }
    if (o->progress) dgnn_progress_end(&pg);
    ev->bipartite = dgnn_events_detect_bipartite(ev);
    gen_free(&g);
    return DGNN_OK;
}

static int ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcasecmp(s + n - m, suf) == 0;
}

/* Appends the decimal digits of x to p; returns the new end. */
static char *put_u64(char *p, uint64_t x) {
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + x % 10); x /= 10; } while (x);
    while (n) *p++ = tmp[--n];
    return p;
}

/* A csv stream through dgnn/outfile.h (a temporary file beside path, renamed into
 * place at the end; a device or FIFO written through). */
typedef struct {
    dgnn_outfile *out;
    FILE *f;
    int64_t bytes;
} csv_out;

static int csv_open(csv_out *c, const char *path, dgnn_err *err) {
    memset(c, 0, sizeof *c);
    int rc = dgnn_outfile_open(&c->out, path, 0, err);
    if (rc) return rc;
    c->f = dgnn_outfile_stream(c->out);
    setvbuf(c->f, NULL, _IOFBF, 1 << 20);
    return DGNN_OK;
}

static void csv_abort(csv_out *c) {
    dgnn_outfile_abort(c->out);
    memset(c, 0, sizeof *c);
}

static int csv_write(csv_out *c, const char *buf, size_t n, const char *path, dgnn_err *err) {
    if (fwrite(buf, 1, n, c->f) != n)
        return dgnn_err_set(err, DGNN_EIO, "cannot write %s: %s", path, strerror(errno));
    c->bytes += (int64_t)n;
    return DGNN_OK;
}

static int csv_finish(csv_out *c, dgnn_err *err) {
    int rc = dgnn_outfile_commit(c->out, err); /* flush, fsync, rename; frees it */
    memset(c, 0, sizeof *c);
    return rc;
}

/* Formats n events as csv lines into buf (large enough: see line_cap). */
static size_t csv_lines(char *buf, int64_t n, const int32_t *src, const int32_t *dst, const double *t,
                        const float *efeat, const int32_t *label, int64_t de) {
    char *p = buf;
    for (int64_t i = 0; i < n; i++) {
        p = put_u64(p, (uint64_t)src[i]);
        *p++ = ',';
        p = put_u64(p, (uint64_t)dst[i]);
        *p++ = ',';
        /* t is a whole number of milliseconds (gen_chunk rounds it) */
        uint64_t ms = (uint64_t)llround(t[i] * 1000.0);
        p = put_u64(p, ms / 1000);
        *p++ = '.';
        *p++ = (char)('0' + ms / 100 % 10);
        *p++ = (char)('0' + ms / 10 % 10);
        *p++ = (char)('0' + ms % 10);
        *p++ = ',';
        *p++ = label[i] ? '1' : '0';
        for (int64_t k = 0; k < de; k++) {
            *p++ = ',';
            p += sprintf(p, "%.9g", (double)efeat[i * de + k]); /* 9 digits: reads back to the same float */
        }
        *p++ = '\n';
    }
    return (size_t)(p - buf);
}

int dgnn_gen_write(const char *path, const dgnn_gen_opts *o, dgnn_gen_stats *st, dgnn_err *err) {
    if (st) memset(st, 0, sizeof *st);
    double t0 = dgnn_now();
    gen_state g;
    int rc = gen_init(&g, o, err);
    if (rc) return rc;
    int64_t de = o->edge_dim;
    int is_csv = ends_with(path, ".csv");
    if (is_csv && !o->bipartite) {
        gen_free(&g);
        /* the JODIE reader takes ids used both as user and as item for two id spaces
         * and shifts the items, so a general graph would read back as another graph */
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%s: a JODIE csv holds a user-item graph: add --bipartite 1, or write a .dgnn file", path);
    }
    const int64_t chunk = chunk_size(o);
    int32_t *src = dgnn_xmalloc((size_t)chunk * sizeof(int32_t));
    int32_t *dst = dgnn_xmalloc((size_t)chunk * sizeof(int32_t));
    int32_t *label = dgnn_xmalloc((size_t)chunk * sizeof(int32_t));
    double *t = dgnn_xmalloc((size_t)chunk * sizeof(double));
    float *efeat = de > 0 ? dgnn_xmalloc((size_t)chunk * (size_t)de * sizeof(float)) : NULL;
    /* a csv line: two ids (<= 10 digits), a timestamp (<= 17 chars), a label, features (<= 16 chars each) */
    size_t line_cap = 64 + (size_t)de * 18;
    char *text = is_csv ? dgnn_xmalloc((size_t)chunk * line_cap) : NULL;
    dgnn_bin_writer *w = NULL;
    csv_out c;
    memset(&c, 0, sizeof c);
    int64_t bytes = 0;
    if (is_csv) {
        if ((rc = csv_open(&c, path, err))) goto done;
        char hdr[64];
        int hn = snprintf(hdr, sizeof hdr, "user,item,timestamp,state_label");
        if ((rc = csv_write(&c, hdr, (size_t)hn, path, err))) goto done;
        for (int64_t k = 0; k < de && !rc; k++) {
            hn = snprintf(hdr, sizeof hdr, ",f%lld", (long long)(k + 1));
            rc = csv_write(&c, hdr, (size_t)hn, path, err);
        }
        if (rc || (rc = csv_write(&c, "\n", 1, path, err))) goto done;
    } else {
        dgnn_bin_layout lay;
        memset(&lay, 0, sizeof lay);
        lay.num_events = g.E;
        lay.num_nodes = g.N;
        lay.edge_dim = de;
        lay.has_label = 1;
        lay.bipartite = -1; /* the writer sees every event: same answer as dgnn_events_detect_bipartite */
        if ((rc = dgnn_bin_writer_open(&w, path, &lay, err))) goto done;
    }
    dgnn_progress pg;
    if (o->progress) dgnn_progress_begin(&pg, "gen", g.E);
    for (int64_t i = 0; i < g.E; i += chunk) {
        int64_t n = g.E - i < chunk ? g.E - i : chunk;
        gen_chunk(&g, n, src, dst, t, efeat, label);
        if (is_csv) {
            size_t len = csv_lines(text, n, src, dst, t, efeat, label, de);
            rc = csv_write(&c, text, len, path, err);
        } else {
            rc = dgnn_bin_writer_events(w, n, src, dst, t, efeat, label, NULL, err);
        }
        if (rc) break;
        if (o->progress) dgnn_progress_update(&pg, i + n, NULL);
    }
    if (o->progress) dgnn_progress_end(&pg);
    if (rc) goto done;
    if (is_csv) {
        bytes = c.bytes;
        rc = csv_finish(&c, err);
    } else {
        rc = dgnn_bin_writer_finish(w, &bytes, err);
        w = NULL; /* finish frees it whatever the outcome */
    }
done:
    if (rc) {
        if (is_csv) csv_abort(&c);
        dgnn_bin_writer_abort(w);
    }
    free(src);
    free(dst);
    free(label);
    free(t);
    free(efeat);
    free(text);
    gen_free(&g);
    if (rc == DGNN_OK && st) {
        st->events = o->num_events;
        st->seconds = dgnn_now() - t0;
        st->events_per_s = st->seconds > 0 ? (double)st->events / st->seconds : 0;
        st->bytes = bytes;
    }
    return rc;
}
