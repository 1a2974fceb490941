/* cmd_simulate.h: one `dgnn simulate` run: the flags as parsed and what they decide
 * (cmd_simulate.c parses and checks them), then the simulation of one family on them:
 * the snapshot family's DyGNeX schedules (cmd_simulate_snap.c) or the event family's
 * DepBloom against strict (cmd_simulate_event.c). */
#ifndef DGNN_CLI_CMD_SIMULATE_H
#define DGNN_CLI_CMD_SIMULATE_H

#include "cli.h"
#include "dgnn/simulate.h"

#define SIM_MAX_POINTS 64 /* --workers: at most this many worker counts */

typedef struct {
    /* both families' flags */
    const char *family, *workers, *data, *net_preset, *allreduce, *svg, *json;
    cli_load_flags lf;
    double alpha, beta; /* CLI_UNSET_F: the preset's */
    int64_t params;     /* 0: the model's parameter count */
    /* the snapshot family's */
    const char *pattern, *model, *preset, *profile, *schedulers;
    int64_t synthetic, window, seed, nodes, in_dim, rounds; /* synthetic 0: --data */
    double snapshot_seconds, rate, time_limit;
    /* the event family's */
    const char *measured, *m_strict, *m_depbloom;
    int64_t refine, window_events; /* window_events 0: the depbloom run's, else 10,000 (the trainer's) */
    double refine_overhead, window_seconds, apply_gbps, row_bytes, local_alpha, local_beta, cores, background;
    int critical_path;
    /* what the flags decide */
    int event;                      /* --family event */
    int64_t W[SIM_MAX_POINTS], npts; /* --workers: the worker counts, ascending */
    dgnn_net net;                   /* --net, then --alpha / --beta over it, and --allreduce */
    int64_t kinds[3], nk;           /* snapshot: --schedulers (dgnn_sched_kind), in the order given */
    int kind;                       /* snapshot: --model (dgnn_snapmodel_kind) */
    dgnn_snap_train_cfg cfg;        /* snapshot: the model's, --preset's, --window, --snapshot-seconds */
} sim_job;

/* The snapshot family on j's windows: the table, --svg and --json. The exit status. */
int sim_snapshot_run(const sim_job *j);
/* The event family from j's measured runs: the checks, the projection, --svg and --json.
 * The exit status. */
int sim_event_run(const sim_job *j);

#endif
