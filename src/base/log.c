/* log.c: monotonic time, peak memory, rank-0 logging and the progress bar. */
#include "dgnn/base.h"

#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int g_rank = 0;

double dgnn_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double dgnn_peak_rss_mb(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0.0;
    return (double)ru.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

void dgnn_log_set_rank(int rank) { g_rank = rank; }
int dgnn_log_rank(void) { return g_rank; }

void dgnn_log(const char *fmt, ...) {
    if (g_rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void fmt_eta(char *buf, size_t cap, double s) {
    if (s < 0 || s > 1e7) {
        snprintf(buf, cap, "--:--");
        return;
    }
    int t = (int)(s + 0.5);
    if (t >= 3600) snprintf(buf, cap, "%d:%02d:%02d", t / 3600, (t / 60) % 60, t % 60);
    else snprintf(buf, cap, "%02d:%02d", t / 60, t % 60);
}

void dgnn_progress_begin(dgnn_progress *p, const char *label, int64_t total) {
    memset(p, 0, sizeof *p);
    p->label = label;
    p->total = total;
    p->t_start = p->t_last = dgnn_now();
    p->plain_every_s = 10.0;
    p->is_tty = isatty(STDERR_FILENO);
    p->active = (g_rank == 0);
}

static void progress_draw(dgnn_progress *p, const char *extra, int final) {
    double now = dgnn_now(), el = now - p->t_start;
    double rate = el > 0 ? (double)p->done / el : 0.0;
    double frac = p->total > 0 ? (double)p->done / (double)p->total : 0.0;
    if (frac > 1) frac = 1;
    char eta[32];
    fmt_eta(eta, sizeof eta, rate > 0 && p->total > 0 ? (double)(p->total - p->done) / rate : -1);
    if (p->is_tty) {
        char bar[31];
        int fill = (int)(frac * 30);
        for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r%s [%s] %5.1f%% %.3g/s eta %s %s\033[K%s", p->label, bar, 100 * frac,
                rate, eta, extra ? extra : "", final ? "\n" : "");
    } else {
        fprintf(stderr, "%s: %lld/%lld (%.1f%%) %.3g/s eta %s %s\n", p->label, (long long)p->done,
                (long long)p->total, 100 * frac, rate, eta, extra ? extra : "");
    }
    fflush(stderr);
}

void dgnn_progress_update(dgnn_progress *p, int64_t done, const char *extra) {
    if (!p->active) return;
    p->done = done;
    double now = dgnn_now();
    double every = p->is_tty ? 0.1 : p->plain_every_s;
    if (now - p->t_last < every) return;
    p->t_last = now;
    progress_draw(p, extra, 0);
}

void dgnn_progress_end(dgnn_progress *p) {
    if (!p->active) return;
    if (p->is_tty) progress_draw(p, NULL, 1);
    p->active = 0;
}
