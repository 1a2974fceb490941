/* test_scale_limits.c: requests sized by data or flags that are larger than this machine
 * are refused up front with "out of memory: <size> for <what>", not granted lazily by
 * malloc and then ended by the OOM killer while they are filled (base.h's dgnn_mem_check).
 * Every size below is derived from dgnn_mem_total_bytes() so that each single buffer is
 * smaller than the machine (malloc would grant it) while their sum is larger:
 *  - dgnn_events_alloc: a table whose columns together exceed the machine;
 *  - dgnn_gen_events: such a table, and a generator state (per-node tables) above it;
 *  - the snapshot trainer's link evaluation: scores and labels (8 bytes a pair) fit, but
 *    with the AP's sort words and their scratch (16 more) they do not.
 * The generator cases run in a child whose address space is capped at half the machine,
 * so that code without the up-front check fails its malloc (a message of another form)
 * instead of filling the machine. Full-size runs of the same paths: bench/scale.sh. */
#include "../src/train/snap_run.h"
#include "check.h"
#include "dgnn/events.h"
#include "dgnn/gen.h"

#include <sys/resource.h>
#include <sys/wait.h>

/* The refusal of dgnn_mem_check / dgnn_alloc_done: ENOMEM, and the size named. */
static int refused_up_front(int rc, const dgnn_err *e) {
    return rc == DGNN_ENOMEM && strstr(e->msg, "out of memory: ") != NULL;
}

/* Runs dgnn_gen_events(o) (or, with path, dgnn_gen_write(path, o): `dgnn gen`) in a child
 * capped at cap bytes of address space; returns 1 when the child saw the up-front
 * refusal, 0 otherwise (another error, success, a signal). */
static int gen_refused_in_child(const dgnn_gen_opts *o, const char *path, int64_t cap) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {(rlim_t)cap, (rlim_t)cap};
        setrlimit(RLIMIT_AS, &rl);
        dgnn_events ev;
        dgnn_err e;
        dgnn_err_clear(&e);
        int rc = path ? dgnn_gen_write(path, o, NULL, &e) : dgnn_gen_events(&ev, o, &e);
        fprintf(stderr, "  gen %s%lld events, %lld nodes: rc %d: %s\n", path ? "to a file, " : "",
                (long long)o->num_events, (long long)o->num_nodes, rc, e.msg);
        if (rc == DGNN_OK && !path) dgnn_events_free(&ev);
        if (rc == DGNN_OK && path) unlink(path);
        _exit(refused_up_front(rc, &e) ? 0 : 1);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void) {
    const int64_t total = dgnn_mem_total_bytes();
    if (total == INT64_MAX || total < ((int64_t)1 << 26)) {
        printf("machine memory unknown: skipped\n");
        return 77;
    }
    printf("machine memory (RAM + swap): %lld bytes\n", (long long)total);

    /* ---- the generator (forked first: no OpenMP threads in the parent yet) ---- */
    {
        /* a table of 20 bytes an event: 1.1x the machine, its largest column (t) 0.44x */
        dgnn_gen_opts o = dgnn_gen_opts_default();
        o.num_events = total / 18;
        o.num_nodes = 1000;
        o.progress = 0;
        CHECK(gen_refused_in_child(&o, NULL, total / 2));
    }
    {
        /* a generator state of about 93 bytes a node (ring 8): 1.5x the machine */
        dgnn_gen_opts o = dgnn_gen_opts_default();
        o.num_events = 10;
        o.num_nodes = total / 60;
        o.progress = 0;
        if (o.num_nodes <= INT32_MAX) {
            CHECK(gen_refused_in_child(&o, NULL, total / 2));
            char path[64];
            snprintf(path, sizeof path, "/tmp/test_scale_limits_%d.dgnn", (int)getpid());
            CHECK(gen_refused_in_child(&o, path, total / 2));
            CHECK(access(path, F_OK) != 0); /* nothing written */
        } else printf("more than 128 GiB: the node-count case needs more than 2^31-1 nodes, skipped\n");
    }
    {
        /* a generator that fits is still granted (small: 10k nodes, 1000 events) */
        dgnn_gen_opts o = dgnn_gen_opts_default();
        o.num_events = 1000;
        o.num_nodes = 10000;
        o.progress = 0;
        dgnn_events ev;
        dgnn_err e;
        dgnn_err_clear(&e);
        CHECK(dgnn_gen_events(&ev, &o, &e) == DGNN_OK);
        CHECK(ev.num_events == 1000 && ev.num_nodes == 10000);
        dgnn_events_free(&ev);
    }

    /* ---- dgnn_events_alloc: 20 bytes an event with labels, 1.1x the machine ---- */
    {
        dgnn_events ev;
        dgnn_events_init(&ev);
        dgnn_err e;
        dgnn_err_clear(&e);
        int rc = dgnn_events_alloc(&ev, total / 18, 0, 1, &e);
        printf("  events_alloc %lld events: rc %d: %s\n", (long long)(total / 18), rc, e.msg);
        CHECK(refused_up_front(rc, &e));
        CHECK(strstr(e.msg, "events") != NULL);
        CHECK(ev.src == NULL && ev.t == NULL && ev.label == NULL); /* nothing asked for, nothing kept */
        dgnn_events_free(&ev);
        /* edge features count: total / 100 events of 22 features, 104 bytes an event with
         * src, dst and t (1.04x the machine), the features alone 0.88x */
        const int64_t E = total / 100, de = 22;
        dgnn_err_clear(&e);
        rc = dgnn_events_alloc(&ev, E, de, 0, &e);
        printf("  events_alloc %lld events x %lld features: rc %d: %s\n", (long long)E, (long long)de, rc, e.msg);
        CHECK(refused_up_front(rc, &e));
        dgnn_events_free(&ev);
        /* a table that fits is granted */
        CHECK(dgnn_events_alloc(&ev, 1000, 4, 1, &e) == DGNN_OK);
        CHECK(ev.src && ev.dst && ev.t && ev.efeat && ev.label);
        dgnn_events_free(&ev);
    }

    /* ---- link evaluation's scores: 8 bytes a pair is half the machine, 24 is 1.5x ---- */
    {
        snap_run r;
        memset(&r, 0, sizeof r);
        r.N = (int64_t)sqrt((double)total / 16.0);
        dgnn_err e;
        dgnn_err_clear(&e);
        int rc = snap_run_alloc_scores(&r, &e);
        printf("  link scores of %lld nodes: rc %d: %s\n", (long long)r.N, rc, e.msg);
        CHECK(refused_up_front(rc, &e));
        CHECK(strstr(e.msg, "node pairs") != NULL);
        free(r.prob);
        free(r.label);
        /* a graph that fits is granted */
        memset(&r, 0, sizeof r);
        r.N = 100;
        CHECK(snap_run_alloc_scores(&r, &e) == DGNN_OK && r.prob && r.label);
        free(r.prob);
        free(r.label);
    }
    return check_done();
}
