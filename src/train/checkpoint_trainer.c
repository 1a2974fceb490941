/* checkpoint_trainer.c: the checkpoint of a trainer, saved and resumed the same way by
 * every trainer (checkpoint.h, dgnn_ckpt_trainer): the run record, the progress record
 * with its fingerprint, the parameter slabs and the results, around the trainer's own
 * sections, which one function of the trainer writes and reads through dgnn_ckpt_io. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dgnn/checkpoint.h"

struct dgnn_ckpt_io {
    dgnn_ckpt_writer *w; /* saving */
    const dgnn_ckpt *c;  /* resuming */
};

int dgnn_ckpt_io_section(dgnn_ckpt_io *io, const char *name, void *data, size_t bytes, dgnn_err *err) {
    return io->c ? dgnn_ckpt_read(io->c, name, data, bytes, err) : dgnn_ckpt_writer_add(io->w, name, data, bytes, err);
}

int dgnn_ckpt_io_reading(const dgnn_ckpt_io *io) { return io->c != NULL; }

int dgnn_ckpt_trainer_save(const dgnn_ckpt_trainer *t, dgnn_err *err) {
    dgnn_ckpt_writer *w;
    int rc = dgnn_ckpt_dir_writer_open(&w, t->dir, err);
    if (rc) return rc;
    dgnn_ckpt_io io = {w, NULL};
    rc = dgnn_ckpt_add_run(w, t->run, err);
    if (!rc && t->keep) rc = dgnn_ckpt_add_kept(w, t->keep, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "meta", t->meta, t->meta_bytes, err);
    if (!rc && t->early) rc = t->early(&io, t->ctx, err);
    if (!rc) rc = dgnn_ckpt_add_params(w, t->params, t->with_grad, err);
    if (!rc) rc = dgnn_ckpt_writer_add(w, "results", t->results, t->results_bytes, err);
    if (!rc && t->late) rc = t->late(&io, t->ctx, err);
    if (rc) {
        dgnn_ckpt_writer_abort(w);
        return rc;
    }
    return dgnn_ckpt_writer_commit(w, NULL, err);
}

int dgnn_ckpt_trainer_load(const dgnn_ckpt_trainer *t, dgnn_err *err) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, t->dir);
    dgnn_ckpt *c;
    int rc = dgnn_ckpt_open(&c, path, err);
    if (rc) return rc;
    DGNN_ASSERT(t->meta_bytes >= sizeof(uint64_t));
    dgnn_ckpt_io io = {NULL, c};
    dgnn_ckpt_run saved;
    char notes[512];
    rc = dgnn_ckpt_read_run(c, &saved, err);
    if (!rc) rc = dgnn_ckpt_run_check(&saved, t->run, t->rules, t->dir, t->advice, notes, sizeof notes, err);
    if (!rc && notes[0]) dgnn_log("resuming %s: %s\n", t->dir, notes);
    if (!rc) rc = dgnn_ckpt_read(c, "meta", t->meta, t->meta_bytes, err);
    uint64_t fp = 0;
    if (!rc) memcpy(&fp, t->meta, sizeof fp); /* meta opens with the fingerprint */
    char differ[1024];
    if (!rc && fp != t->fingerprint)
        rc = dgnn_err_set(err, DGNN_EINVAL,
                          "%s was written by a run with other settings (%s); --resume needs the same ones, or start "
                          "afresh in another --checkpoint folder",
                          path, dgnn_ckpt_kept_diff(c, t->keep, differ, sizeof differ) ? differ : t->settings);
    if (!rc && t->early) rc = t->early(&io, t->ctx, err);
    if (!rc) rc = dgnn_ckpt_read_params(c, t->params, t->with_grad, err);
    if (!rc) rc = dgnn_ckpt_read(c, "results", t->results, t->results_bytes, err);
    if (!rc && t->check) rc = t->check(t->ctx, path, err);
    if (!rc && t->late) rc = t->late(&io, t->ctx, err);
    dgnn_ckpt_close(c);
    return rc;
}

int dgnn_ckpt_resume_epochs(const char *dir, int64_t done, int64_t early_stopped, int64_t best_epoch, int64_t epochs,
                            dgnn_err *err) {
    if (done > epochs)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "--resume: checkpoint %s holds %lld finished epochs, more than --epochs %lld: resume with "
                            "--epochs %lld or more (nothing is trained then, the model is tested), or evaluate it with "
                            "dgnn eval --checkpoint %s",
                            dir, (long long)done, (long long)epochs, (long long)done, dir);
    if (early_stopped)
        dgnn_log("the run in %s stopped early after epoch %lld (best epoch %lld): it trains no further on --resume, "
                 "whatever --patience and --epochs say; its best epoch is tested\n",
                 dir, (long long)done, (long long)best_epoch);
    return DGNN_OK;
}

int dgnn_ckpt_family(const char *dir, char *model, size_t model_cap, char *was, size_t was_cap) {
    if (model && model_cap) model[0] = '\0';
    if (was && was_cap) was[0] = '\0';
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    dgnn_ckpt *c;
    if (dgnn_ckpt_open(&c, path, NULL) != DGNN_OK) return -1;
    const int family = dgnn_ckpt_has(c, "state.mem") ? DGNN_CKPT_EVENT
                       : dgnn_ckpt_has(c, "meta")    ? DGNN_CKPT_SNAPSHOT
                                                     : -1;
    dgnn_ckpt_run rec;
    if (model && model_cap && dgnn_ckpt_read_kept(c, &rec) && dgnn_ckpt_run_get(&rec, "model"))
        snprintf(model, model_cap, "%s", dgnn_ckpt_run_get(&rec, "model"));
    if (was && was_cap && dgnn_ckpt_read_run(c, &rec, NULL) == DGNN_OK) dgnn_ckpt_run_describe(was, was_cap, &rec);
    dgnn_ckpt_close(c);
    return family;
}

int dgnn_ckpt_dir_fresh(const char *dir, dgnn_err *err) {
    char path[4096];
    dgnn_ckpt_dir_path(path, sizeof path, dir);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return DGNN_OK; /* nothing to lose */
    dgnn_ckpt *c;
    dgnn_err why;
    dgnn_err_clear(&why);
    if (dgnn_ckpt_open(&c, path, &why) != DGNN_OK)
        return dgnn_err_set(err, DGNN_EINVAL,
                            "%s already holds a file %s that is no checkpoint this dgnn reads (%s); a run afresh "
                            "would replace it: give another --checkpoint folder, or remove %s",
                            dir, path, why.msg, path);
    int64_t head[2] = {0, -1}; /* meta: the fingerprint, then the finished epochs */
    const void *meta;
    size_t bytes;
    if (dgnn_ckpt_get(c, "meta", &meta, &bytes, NULL) == DGNN_OK && bytes >= sizeof head) memcpy(head, meta, sizeof head);
    char model[DGNN_CKPT_RUN_VAL] = "";
    dgnn_ckpt_run kept;
    if (dgnn_ckpt_read_kept(c, &kept) && dgnn_ckpt_run_get(&kept, "model"))
        snprintf(model, sizeof model, "%s", dgnn_ckpt_run_get(&kept, "model"));
    else
        snprintf(model, sizeof model, "%s", dgnn_ckpt_has(c, "state.mem") ? "an event model" : "a snapshot model");
    dgnn_ckpt_close(c);
    char epochs[48] = "";
    if (head[1] >= 0) snprintf(epochs, sizeof epochs, "%lld epoch%s of ", (long long)head[1], head[1] == 1 ? "" : "s");
    return dgnn_err_set(err, DGNN_EINVAL,
                        "%s holds a checkpoint of %s%s: add --resume to continue it, or give another --checkpoint "
                        "folder, or remove %s",
                        dir, epochs, model, path);
}
