/* snap_profile.c: the snapshot trainer's per-sample cost profile (snap_train.h,
 * "Profile"): its clock (process CPU seconds with one thread, else wall seconds), the
 * per-epoch rows of measured seconds, the rows' medians with each sample's sizes, and the
 * profile's CSV and statistics, which DyGNeX's cost model is fitted on. */
#include "snap_run.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dgnn/outfile.h"

double dgnn_snap_cpu_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The profile's clock: process CPU seconds with one thread, else wall seconds; on a GPU wall
 * seconds (a sample waits for the device's work, which the process's CPU time leaves out). */
double snap_sample_clock(const snap_run *r) {
    return !r->dev && omp_get_max_threads() == 1 ? dgnn_snap_cpu_seconds() : dgnn_now();
}

/* --profile: this epoch's row of n per-window seconds (zeroed), NULL when not profiling */
double *snap_profile_epoch(snap_run *r, int64_t n) {
    if (!r->cfg->profile) return NULL;
    r->prof_n = n;
    r->prof_sec = dgnn_xrealloc(r->prof_sec, (size_t)((r->prof_epochs + 1) * n) * sizeof(double));
    if (!r->prof_pairs) r->prof_pairs = dgnn_xcalloc((size_t)n, sizeof(int64_t));
    double *prof = r->prof_sec + r->prof_epochs * n;
    memset(prof, 0, (size_t)n * sizeof(double)); /* distributed: other processes' windows stay 0 */
    return prof;
}

/* undirected edges of a symmetric snapshot: its entries with u <= v */
static int64_t undirected_edges(const dgnn_snapshot *g) {
    int64_t n = 0;
    for (int64_t u = 0; u < g->num_nodes; u++)
        for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) n += g->col[e] >= u;
    return n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The profile's rows from the epochs run: samples that ran, median seconds. */
void snap_profile_fill(snap_run *r, dgnn_snap_profile *p) {
    dgnn_snap_profile_free(p);
    snprintf(p->model, sizeof p->model, "%s", dgnn_snapmodel_name(r->cfg->model.kind));
    p->epochs = r->prof_epochs;
    if (r->prof_epochs == 0 || r->prof_n == 0) return;
    const int64_t n = r->prof_n, E = r->prof_epochs, N = r->N;
    p->rows = dgnn_xcalloc((size_t)n, sizeof *p->rows);
    double *s = dgnn_xmalloc((size_t)E * sizeof *s);
    int64_t *und = dgnn_xmalloc((size_t)r->T * sizeof *und);
    for (int64_t k = 0; k < r->T; k++) und[k] = undirected_edges(&r->snaps.snaps[k]);
    for (int64_t k = 0; k < n; k++) {
        if (r->prof_pairs[k] <= 0) continue;
        const int64_t idx = r->tb + k;
        dgnn_snap_profile_row *row = &p->rows[p->count++];
        row->sample = idx;
        for (int64_t v = 0; v < N; v++) row->nodes += r->mask[idx * N + v];
        row->edges = und[idx];
        for (int64_t q = idx - r->W; q <= idx; q++) row->edges_window += und[q];
        row->label_pairs = r->prof_pairs[k];
        row->in_dim = r->V;
        row->hidden = r->L;
        for (int64_t e = 0; e < E; e++) s[e] = r->prof_sec[e * n + k];
        qsort(s, (size_t)E, sizeof *s, cmp_double);
        row->seconds = E % 2 ? s[E / 2] : 0.5 * (s[E / 2 - 1] + s[E / 2]);
    }
    free(s);
    free(und);
}

/* ---- the profile's CSV and statistics ---- */

const char *const dgnn_snap_profile_header = "model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds";

void dgnn_snap_profile_free(dgnn_snap_profile *p) {
    if (!p) return;
    free(p->rows);
    memset(p, 0, sizeof *p);
}

int dgnn_snap_profile_write_csv(const char *path, const dgnn_snap_profile *p, dgnn_err *err) {
    dgnn_outfile *o; /* outfile.h: a temporary file renamed into place, or written through */
    int rc = dgnn_outfile_open(&o, path, 0, err);
    if (rc) return rc;
    FILE *f = dgnn_outfile_stream(o);
    fprintf(f, "%s\n", dgnn_snap_profile_header);
    for (int64_t i = 0; i < p->count; i++) {
        const dgnn_snap_profile_row *r = &p->rows[i];
        fprintf(f, "%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.9g\n", p->model, (long long)r->sample, (long long)r->nodes,
                (long long)r->edges, (long long)r->edges_window, (long long)r->label_pairs, (long long)r->in_dim,
                (long long)r->hidden, r->seconds);
    }
    return dgnn_outfile_commit(o, err); /* reports any failed write */
}

void dgnn_snap_profile_stats(const dgnn_snap_profile *p, double *min, double *median, double *p90, double *max) {
    *min = *median = *p90 = *max = NAN;
    if (p->count <= 0) return;
    const int64_t n = p->count;
    double *s = dgnn_xmalloc((size_t)n * sizeof *s);
    for (int64_t i = 0; i < n; i++) s[i] = p->rows[i].seconds;
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *min = s[0];
    *max = s[n - 1];
    *median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    int64_t k = (int64_t)ceil(0.9 * (double)n); /* nearest rank */
    *p90 = s[(k < 1 ? 1 : k) - 1];
    free(s);
}
