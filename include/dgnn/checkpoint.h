/* checkpoint.h: checkpoint files: named byte sections, each with a checksum, written
 * atomically.
 *
 * A trainer stores what resuming needs as sections ("params", "adam.m", "adam.v",
 * "adam.step", "state.memory", "rng", "stream", "config", ...): the module does not
 * interpret them. A reader gets each back by name, 64-byte aligned, so a float slab
 * can be used in place or copied with one memcpy.
 *
 * File layout (little-endian; DESIGN.md, convention 8):
 *     0  char[8] magic "DGNNCKPT"
 *     8  u32     version (2; version 1 had the same layout, but its trainers wrote no
 *                "run" section, so a resume could not check the run that wrote it)
 *    12  u32     number of sections S
 *    16  u64     offset of the section table
 *    24  u64     file size in bytes
 *    32  24 bytes reserved, zero
 *    56  u64     header checksum: XXH64 of bytes [0, 56) followed by the table
 *    64  the sections' bytes, each starting at a multiple of 64 (zero padding between)
 *   then the table, at a multiple of 64: S entries of 80 bytes:
 *          char[56] name (NUL-terminated, NUL-padded), u64 offset, u64 bytes,
 *          u64 checksum (XXH64 of the section's bytes: dgnn_bin_checksum)
 * The table comes last so that the writer can stream each section to disk as it is
 * added, without holding or copying the blobs.
 *
 * Atomicity: the writer writes through dgnn/outfile.h: a temporary file in the same
 * folder (so rename is atomic), fsynced, renamed over the path, then the folder fsynced.
 * A crash or a failure at any point leaves either the previous checkpoint or the new
 * one, complete; a failed write removes its temporary file, and the temporary files
 * that killed runs left (.checkpoint.dgnnckpt.tmp.HOST.PID) are removed by the next
 * writer. A symlink at the path is followed; a device or FIFO is written through.
 *
 * Errors name the file and, for corruption, the section:
 *   "checkpoint run/ckpt.bin is corrupted (section 'params' checksum mismatch); delete it
 *    or resume from another". Opening verifies every checksum, so a checkpoint that
 * opens is entirely intact. */
#ifndef DGNN_CHECKPOINT_H
#define DGNN_CHECKPOINT_H

#include "dgnn/base.h"
#include "dgnn/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DGNN_CKPT_MAGIC "DGNNCKPT"
#define DGNN_CKPT_VERSION 2
#define DGNN_CKPT_NAME_MAX 56 /* including the terminating NUL */

/* ---- writing ---- */
typedef struct dgnn_ckpt_writer dgnn_ckpt_writer; /* opaque */

/* Creates the temporary file beside path. On failure *out is NULL and nothing is left
 * on disk (e.g. the folder does not exist: DGNN_EIO naming it). */
int dgnn_ckpt_writer_open(dgnn_ckpt_writer **out, const char *path, dgnn_err *err);
/* Writes one section: name (1..55 chars, unique in the file), bytes of data (data may
 * be NULL when bytes == 0). data need not outlive the call. After a failure the writer
 * only accepts _commit (which then fails, naming the first error) or _abort. */
int dgnn_ckpt_writer_add(dgnn_ckpt_writer *w, const char *name, const void *data, size_t bytes, dgnn_err *err);
/* Writes the table and header, fsyncs, renames over path, fsyncs the folder. Frees w
 * whatever the outcome; on failure the temporary file is removed and a previous file
 * at path is untouched. bytes_out (may be NULL) receives the file size. */
int dgnn_ckpt_writer_commit(dgnn_ckpt_writer *w, int64_t *bytes_out, dgnn_err *err);
/* Gives up: removes the temporary file and frees w. Safe on NULL. */
void dgnn_ckpt_writer_abort(dgnn_ckpt_writer *w);

/* ---- reading ---- */
typedef struct dgnn_ckpt dgnn_ckpt; /* opaque */

/* Maps path read-only and checks the header, the table and every section's checksum.
 * Errors: DGNN_EIO (cannot open), DGNN_EFORMAT (not a checkpoint: bad magic),
 * DGNN_EVERSION (another format version: version 1 files are refused, since they do not
 * say how many ranks wrote them), DGNN_ECHECKSUM (corrupted or truncated). */
int dgnn_ckpt_open(dgnn_ckpt **out, const char *path, dgnn_err *err);
/* The section called name: *data points into the mapping (64-byte aligned, valid until
 * dgnn_ckpt_close), *bytes its length. A missing section is DGNN_EFORMAT naming it. */
int dgnn_ckpt_get(const dgnn_ckpt *c, const char *name, const void **data, size_t *bytes, dgnn_err *err);
/* Copies section name into dst, which must be exactly `bytes` long: a size mismatch is
 * DGNN_EFORMAT ("... has 400 bytes, expected 800: written by another configuration"). */
int dgnn_ckpt_read(const dgnn_ckpt *c, const char *name, void *dst, size_t bytes, dgnn_err *err);
/* 1 if the section exists (for optional sections), else 0. */
int dgnn_ckpt_has(const dgnn_ckpt *c, const char *name);
/* Sections in file order, for listing. */
int dgnn_ckpt_count(const dgnn_ckpt *c);
const char *dgnn_ckpt_name(const dgnn_ckpt *c, int i);
/* The path the checkpoint was opened from. */
const char *dgnn_ckpt_path(const dgnn_ckpt *c);
/* Unmaps and frees. Safe on NULL. */
void dgnn_ckpt_close(dgnn_ckpt *c);

/* ---- what every trainer stores the same way ---- */
/* The checkpoint file of a run folder: DIR/checkpoint.dgnnckpt. */
void dgnn_ckpt_dir_path(char *buf, size_t cap, const char *dir);
/* Checks, before any work, that checkpoints can be written into DIR: it exists and takes
 * files (and its checkpoint file is not, say, a folder), or it can be created (its parent
 * exists and is writable). The message does not repeat DIR (dgnn_outfile_check's style). */
int dgnn_ckpt_dir_check(const char *dir, dgnn_err *err);
/* Opens a writer for DIR's checkpoint file, creating DIR when it is missing; stale
 * temporary files of killed runs in DIR are removed (outfile.h). */
int dgnn_ckpt_dir_writer_open(dgnn_ckpt_writer **out, const char *dir, dgnn_err *err);
/* One run at a time in a run folder: takes DIR for the caller's run, creating DIR when it
 * is missing, by an exclusive flock on DIR/.lock, which records the holder's pid (for the
 * message only). The kernel drops the lock when the holder ends, however it ends (kill -9
 * included), so the file left in DIR blocks no one. *fd: the lock, held until
 * dgnn_ckpt_dir_unlock (-1 when not taken). DGNN_EINVAL when another run holds it:
 * "checkpoint folder DIR is in use by another run (pid N)"; DGNN_EIO when it cannot be
 * taken; on a file system that takes no locks (ENOLCK, EOPNOTSUPP: some NFS) DGNN_OK with
 * *fd -1 and a log line: a concurrent run is then not detected. Two calls of one process
 * on one folder exclude each other too. The commands take it (dgnn train, Python's
 * dgnn.train); the library's trainers (dgnn_event_train, dgnn_snap_train) do not. */
int dgnn_ckpt_dir_lock(const char *dir, int *fd, dgnn_err *err);
/* Releases dgnn_ckpt_dir_lock's lock. Safe on -1. */
void dgnn_ckpt_dir_unlock(int fd);
/* The parameter slabs as sections "params", "adam.m", "adam.v" (and "grad" when
 * with_grad: gradients accumulated over several samples between optimizer steps). */
int dgnn_ckpt_add_params(dgnn_ckpt_writer *w, const dgnn_params *p, int with_grad, dgnn_err *err);
int dgnn_ckpt_read_params(const dgnn_ckpt *c, dgnn_params *p, int with_grad, dgnn_err *err);

/* ---- the run that wrote a checkpoint ----
 * Section "run": what changes the meaning of the saved state besides the model and data
 * settings each trainer fingerprints: how many processes trained and how the work was
 * distributed (--dist and its options). Text, one "key=value" line per setting, keys of
 * lower-case letters, digits, '_' and '.', values of printable ASCII. Two keys every
 * trainer writes: "processes" (the MPI processes, 1..DGNN_CKPT_MAX_PROCESSES) and
 * "flags" (the distribution flags as typed, for messages only; never compared). */
#define DGNN_CKPT_RUN_MAX 32        /* settings */
#define DGNN_CKPT_RUN_KEY 32        /* key bytes, including the NUL */
#define DGNN_CKPT_RUN_VAL 96        /* value bytes, including the NUL */
#define DGNN_CKPT_MAX_PROCESSES 65536
typedef struct {
    int n;
    char key[DGNN_CKPT_RUN_MAX][DGNN_CKPT_RUN_KEY];
    char val[DGNN_CKPT_RUN_MAX][DGNN_CKPT_RUN_VAL];
} dgnn_ckpt_run;

void dgnn_ckpt_run_init(dgnn_ckpt_run *r);
/* Sets key (replacing an earlier value) to the formatted value. A bad key, an unprintable
 * or too long value, or more than DGNN_CKPT_RUN_MAX keys are the caller's bugs (assert). */
void dgnn_ckpt_run_set(dgnn_ckpt_run *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The value of key, or NULL. */
const char *dgnn_ckpt_run_get(const dgnn_ckpt_run *r, const char *key);
/* "a 2-rank --dist strict run", "1 process", "1 process with --dist dygnex ...". */
void dgnn_ckpt_run_describe(char *buf, size_t cap, const dgnn_ckpt_run *r);
int dgnn_ckpt_add_run(dgnn_ckpt_writer *w, const dgnn_ckpt_run *r, dgnn_err *err);
/* Reads and checks section "run": every line a valid key=value, no key twice, at most
 * DGNN_CKPT_RUN_MAX, "processes" an integer in 1..DGNN_CKPT_MAX_PROCESSES. A missing or
 * malformed section is DGNN_EFORMAT naming the file (and the line). */
int dgnn_ckpt_read_run(const dgnn_ckpt *c, dgnn_ckpt_run *r, dgnn_err *err);

/* What a difference in one key means on resume: harmless == NULL, the resume is refused;
 * else the key may differ, and harmless says why (printed as a note). */
typedef struct {
    const char *key;
    const char *harmless;
} dgnn_ckpt_run_rule;
/* Compares the checkpoint's run (saved) with this one (now), key by key ("flags"
 * excepted; a key on one side only differs too). Keys whose rule is harmless go to notes
 * (may be NULL) as "processes 2 -> 1: WHY; ..." (empty when none differ); any other
 * difference is DGNN_EINVAL: "checkpoint NAME was written by a 2-rank --dist strict run;
 * this run is 1 process (processes 2 -> 1, dist strict -> none): ADVICE". rules ends
 * with a {NULL, NULL} entry. */
int dgnn_ckpt_run_check(const dgnn_ckpt_run *saved, const dgnn_ckpt_run *now, const dgnn_ckpt_run_rule *rules,
                        const char *name, const char *advice, char *notes, size_t notes_cap, dgnn_err *err);
/* A collective of a distributed run (ranks_agree.c): every process's record (its data and
 * settings, as a trainer's fingerprint keeps them by name, or its run record) compared with
 * rank 0's. DGNN_EINVAL on every process when one differs, naming the first such rank and
 * its differences ("rank 1's data and settings differ from rank 0's (data: events hash
 * 1a.. on rank 0, events hash 2b.. on rank 1)"); `what` names the record in that message.
 * A one-process run passes. */
int dgnn_ckpt_ranks_agree(const dgnn_ckpt_run *mine, const char *what, dgnn_err *err);

/* ---- the settings a resume must keep, by name ----
 * A trainer builds its fingerprint with dgnn_ckpt_keep, one call per setting: the value
 * hashed goes into *h and, where keep is not NULL, the value shown (fmt) into keep under
 * key, so that the fingerprint and the record cannot drift apart. The record is saved as
 * section "settings" (dgnn_ckpt_add_kept, lines as in "run"); on a resume refused for
 * another fingerprint dgnn_ckpt_kept_diff writes "key a -> b, ..." for the settings that
 * differ into buf and returns 1, or 0 (no record in the checkpoint: written before it was
 * kept, or none differs by name). */
void dgnn_ckpt_keep(dgnn_ckpt_run *keep, uint64_t *h, const char *key, uint64_t hashed, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int dgnn_ckpt_add_kept(dgnn_ckpt_writer *w, const dgnn_ckpt_run *keep, dgnn_err *err);
int dgnn_ckpt_kept_diff(const dgnn_ckpt *c, const dgnn_ckpt_run *keep, char *buf, size_t cap);
/* The checkpoint's settings record into r: 1, or 0 when it has none (or a malformed one). */
int dgnn_ckpt_read_kept(const dgnn_ckpt *c, dgnn_ckpt_run *r);

/* ---- a trainer's checkpoint: what every trainer saves and checks alike ----
 * A trainer's checkpoint is DIR/checkpoint.dgnnckpt with these sections, in file order:
 *   "run"                   the run record (above)
 *   "meta"                  the trainer's progress record, a plain struct that opens with a
 *                           uint64_t fingerprint of the settings --resume must keep
 *   the trainer's early sections (early: e.g. per-rank running totals)
 *   "params" (then "grad" when with_grad), "adam.m", "adam.v"   the parameter slabs
 *   "results"               the trainer's results so far, a plain struct
 *   the trainer's late sections (late: e.g. node state, best parameters, a head's slabs)
 * Resuming reads them back in the same order and refuses, before anything is trusted: a
 * run record that dgnn_ckpt_run_check refuses (its notes logged as "resuming DIR: ..."), a
 * fingerprint other than this run's, sections of another size, and progress that check
 * (called after "results") finds out of range. The caller then takes its optimizer state
 * and counters from meta.
 * The trainer's own sections are written and read by one function through a
 * dgnn_ckpt_io, so the two cannot drift apart: dgnn_ckpt_io_section writes the bytes when
 * saving and reads exactly `bytes` of them back into data when resuming. */
typedef struct dgnn_ckpt_io dgnn_ckpt_io; /* opaque: a writer or an opened checkpoint */
int dgnn_ckpt_io_section(dgnn_ckpt_io *io, const char *name, void *data, size_t bytes, dgnn_err *err);
/* 1 when resuming (reading), 0 when saving. */
int dgnn_ckpt_io_reading(const dgnn_ckpt_io *io);

typedef struct {
    const char *dir;             /* the run folder (--checkpoint DIR) */
    const dgnn_ckpt_run *run;    /* this run's record */
    void *meta;                  /* meta_bytes: saved, or filled on resume */
    size_t meta_bytes;
    uint64_t fingerprint;        /* resume: the fingerprint meta must open with */
    const dgnn_ckpt_run *keep;   /* the settings behind it (dgnn_ckpt_keep), saved as "settings"; NULL: none */
    dgnn_params *params;         /* saved, or filled on resume */
    int with_grad;
    void *results;               /* results_bytes: saved, or filled on resume */
    size_t results_bytes;
    /* resume: dgnn_ckpt_run_check's rules and advice, and what the fingerprint covers,
     * for its message ("model, sizes, batch, lr, seed or data") */
    const dgnn_ckpt_run_rule *rules;
    const char *advice;
    const char *settings;
    /* the trainer's own sections (NULL: none) and, resuming, the check of its progress
     * (path: the checkpoint file, for messages; NULL: none); ctx is passed to each */
    int (*early)(dgnn_ckpt_io *io, void *ctx, dgnn_err *err);
    int (*check)(void *ctx, const char *path, dgnn_err *err);
    int (*late)(dgnn_ckpt_io *io, void *ctx, dgnn_err *err);
    void *ctx;
} dgnn_ckpt_trainer;

/* Writes t's checkpoint atomically into t->dir (dgnn_ckpt_dir_writer_open), or fails
 * leaving the previous one. */
int dgnn_ckpt_trainer_save(const dgnn_ckpt_trainer *t, dgnn_err *err);
/* Reads t->dir's checkpoint into t->meta, t->params, t->results and the trainer's
 * sections, with the checks above; DGNN_EINVAL for a run or settings that differ,
 * DGNN_EFORMAT for a malformed file (the checkpoint.h errors of opening besides). */
int dgnn_ckpt_trainer_load(const dgnn_ckpt_trainer *t, dgnn_err *err);
/* Which trainer wrote the checkpoint in dir: DGNN_CKPT_EVENT (the event models' node state,
 * section "state.mem"), DGNN_CKPT_SNAPSHOT (a trainer's "meta" without it), or -1 (none
 * readable there). model: the model its settings record names ("" when not recorded);
 * was: its run as dgnn_ckpt_run_describe says it ("" when not readable). Either may be NULL.
 * For messages: a checkpoint given to the other family is told as such. */
enum { DGNN_CKPT_EVENT = 0, DGNN_CKPT_SNAPSHOT = 1 };
int dgnn_ckpt_family(const char *dir, char *model, size_t model_cap, char *was, size_t was_cap);

/* After a resume: the epochs the checkpoint holds (done; early_stopped after best_epoch)
 * against --epochs. More done than asked is DGNN_EINVAL (the run would report epochs it
 * was not asked for, under a config that says fewer); a run that stopped early trains no
 * further, which is logged (a larger --patience does not restart it). */
int dgnn_ckpt_resume_epochs(const char *dir, int64_t done, int64_t early_stopped, int64_t best_epoch, int64_t epochs,
                            dgnn_err *err);

/* A run that starts afresh (no --resume) in DIR would replace the checkpoint there: it
 * is DGNN_EINVAL when DIR's checkpoint file is a non-empty regular file (a device, a FIFO
 * or an empty file holds nothing to lose), with what to do: "DIR holds a checkpoint of N
 * epochs of MODEL: add --resume to continue it, or give another --checkpoint folder, or
 * remove DIR/checkpoint.dgnnckpt" (a file that is no checkpoint dgnn reads is told as
 * such). Both trainers' "meta" opens with the fingerprint (uint64) and the finished
 * epochs (int64), which is where N is read. Call it with the folder locked. */
int dgnn_ckpt_dir_fresh(const char *dir, dgnn_err *err);

#ifdef __cplusplus
}
#endif
#endif
