/* simulate_report.h: what `dgnn simulate` prints and writes (simulate_report.c): each
 * family's table lines and JSON objects, --svg's plot and --json's file. The family files
 * (cmd_simulate_snap.c, cmd_simulate_event.c) decide what is simulated. */
#ifndef DGNN_CLI_SIMULATE_REPORT_H
#define DGNN_CLI_SIMULATE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "dgnn/simulate.h"

struct cJSON;

/* --svg's scaling plot: efficiency per worker count, one series each (eff: (nseries, npts)) */
typedef struct {
    const char *path; /* NULL: no plot */
    char title[640];
    const int64_t *workers;
    int64_t npts;
    const double *eff;
    const char *names[3];
    int64_t nseries;
} sim_plot;

/* The end of a run whose status so far is ret: when 0, the plot (its line printed) then
 * jo to --json (path; NULL: none); jo is freed. The exit status: ret, or 1 with a message. */
int sim_write_outputs(int ret, const sim_plot *plot, const char *json, struct cJSON *jo);

/* ---- --family snapshot ---- */

/* The network line and the table's header (kinds: the schedulers' columns). */
void sim_snap_print_header(const dgnn_net *net, double bytes, int64_t params, const int64_t *kinds, int64_t nk);
/* The JSON's object: its "points" (to fill with sim_snap_point), the input (what), the
 * cost model, the network and the gradient's bytes. */
struct cJSON *sim_snap_json(const char *what, int fitted, const dgnn_net *net, double bytes);
/* One worker count P: its table row and its entry of jo's points (pt: one per scheduler). */
void sim_snap_point(struct cJSON *jo, const dgnn_net *net, int64_t P, double bytes, const dgnn_sim_point *pt,
                    const int64_t *kinds, int64_t nk);

/* ---- --family event ---- */

/* What one worker's costs and the stream are: the stream's size (dataset: its name), the
 * fitted costs or the step curve (nruns: the runs fitted), the apply rate (apply_gbps:
 * the flag's, 0 when not given). */
typedef struct {
    const dgnn_sim_event_in *in;
    const dgnn_events *train;
    const char *dataset;
    int64_t nruns;
    double apply_bps, apply_gbps;
} sim_event_inputs;
void sim_event_print_inputs(const sim_event_inputs *x);
/* The JSON's object: those figures, then its "checks" and "points" (to fill with
 * sim_event_check and sim_event_point), the network, K and the depbloom window. */
struct cJSON *sim_event_json(const sim_event_inputs *x, const dgnn_net *net, int64_t refine, int64_t window_events);
/* The checks table's title and header: this machine's network and cores. */
void sim_event_print_checks_header(const dgnn_net *local, double cores, double background);
/* A run that is not checked: it trained on another kind of device than the step curve. */
void sim_event_check_skipped(const dgnn_sim_measured *m, const char *curve_device);
/* The model against run m: its table row and its entry of jo's checks. */
void sim_event_check(struct cJSON *jo, const dgnn_sim_measured *m, const dgnn_sim_run_prediction *pr);
/* The projection's title and header: the network, the depbloom windows (window_seconds >
 * 0: of that many time units, else of window_events), K, the critical path, the worker. */
void sim_event_print_projection_header(const dgnn_net *net, double window_seconds, int64_t window_events,
                                       int64_t refine, int critical_path, const dgnn_sim_curve *curve);
/* One worker count: its table row and its entry of jo's points. */
void sim_event_point(struct cJSON *jo, const dgnn_sim_event_point *pt, int64_t P);

#endif
