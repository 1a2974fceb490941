/* event_epoch.h: the training epochs of the event trainer, which the driver
 * (event_train.c) calls; each fills er (loss averaged over the epoch's steps, over all
 * ranks' events when distributed; train_events = all ranks' events) and leaves r->st as
 * training left it, equal on every rank. */
#ifndef DGNN_EVENT_EPOCH_H
#define DGNN_EVENT_EPOCH_H

#include "event_run.h"

/* event_single.c: one process, the TGN code's loop over r->train. */
int event_single_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err);

/* event_strict.c: the strict baseline (event_train.h), one slice of each global batch per
 * rank, on its CPU cores or its GPU (r->dev: event_step.c's calls run the step there). */
int event_strict_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err);

/* event_device.c: the GPU (cfg->use_cuda; r->dev). init opens the device and uploads the
 * model and the state (a no-op on the CPU), free closes it; epoch is event_single_epoch on
 * the device; pull brings r->st's rows and r->p's values and moments to the host, push
 * sends them back (no-ops on the CPU): the driver pulls before it reads them (the best
 * epoch, a checkpoint, the end) and pushes after it changes them (resume, back to the
 * best epoch); report logs the GPU memory in use. */
int event_device_init(event_run *r, dgnn_err *err);
void event_device_free(event_run *r);
int event_device_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err);
int event_device_pull(event_run *r, dgnn_err *err);
int event_device_push(event_run *r, dgnn_err *err);
void event_device_report(event_run *r);

/* depbloom.c: DepBloom (docs/depbloom.md). setup makes the plan (r->plan: windows,
 * partitions, exchange lists; every rank computes the same one) once per run; epoch trains
 * one epoch by it (with r->dev, on the rank's GPU: event_step.c's calls); report puts
 * the plan's figures (windows, cut fraction, set-up time, hot rows, cold fetch) into d;
 * free frees the plan (NULL: a no-op). */
int depbloom_setup(event_run *r, dgnn_err *err);
int depbloom_epoch(event_run *r, int64_t epoch, dgnn_epoch_result *er, dgnn_err *err);
void depbloom_report(const event_run *r, dgnn_dist_result *d);
void depbloom_free(event_run *r);

#endif
