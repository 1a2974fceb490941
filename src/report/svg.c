/* svg.c: the two small SVG figures of the reports (svg.h): a schedule's Gantt chart and the
 * simulators' scaling plot. Plain SVG 1.1 text, no dependencies; written
 * through dgnn/outfile.h (a temporary file renamed), so a reader never sees half a figure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dgnn/outfile.h"
#include "dgnn/sched.h"
#include "dgnn/svg.h"

/* The figure's stream through dgnn/outfile.h (a temporary file renamed at the end; a
 * symlink followed, a device or FIFO written through); NULL with err set on failure. */
static FILE *open_out(dgnn_outfile **o, const char *path, dgnn_err *err) {
    return dgnn_outfile_open(o, path, 0, err) == DGNN_OK ? dgnn_outfile_stream(*o) : NULL;
}

/* XML-escape a title into out */
static void esc(char *out, size_t cap, const char *s) {
    size_t k = 0;
    for (; s && *s && k + 7 < cap; s++) {
        const char *r = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : NULL;
        if (r) k += (size_t)snprintf(out + k, cap - k, "%s", r);
        else out[k++] = *s;
    }
    out[k] = '\0';
}

/* Opens path and writes the figure's opening: a W x H white canvas and, at (x, y), its
 * title in 14 px. NULL (err set) when path cannot be opened. */
static FILE *svg_begin(dgnn_outfile **o, const char *path, double W, double H, const char *title, double x,
                       double y, dgnn_err *err) {
    FILE *f = open_out(o, path, err);
    if (!f) return NULL;
    char t[512];
    esc(t, sizeof t, title);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%.0f\" y=\"%.0f\" font-size=\"14\">%s</text>\n",
            W, H, x, y, t);
    return f;
}

int dgnn_sched_svg(const dgnn_sched *s, const char *path, const char *title, int64_t max_ranks, dgnn_err *err) {
    if (max_ranks <= 0) max_ranks = 64;
    const int64_t P = s->num_ranks, R = s->num_rounds, shown = P < max_ranks ? P : max_ranks;
    dgnn_sched_metrics m;
    dgnn_sched_eval(s, &m);
    const double W = 1000, left = 70, top = 50, row = shown > 32 ? 8 : 20, H = top + row * (double)shown + 40;
    const double scale = m.makespan > 0 ? (W - left - 20) / m.makespan : 1;
    dgnn_outfile *o;
    FILE *f = svg_begin(&o, path, W, H, title, left, 20, err);
    if (!f) return err ? err->code : DGNN_EIO;
    fprintf(f, "<text x=\"%.0f\" y=\"38\">%lld rounds, %lld ranks%s; makespan %.4g s, imbalance %.2f%%; grey = idle "
               "until the round's all-reduce</text>\n",
            left, (long long)R, (long long)P, shown < P ? " (first ranks shown)" : "", m.makespan, 100 * m.imbalance);
    double x0 = 0;
    for (int64_t r = 0; r < R; r++) {
        double mx = 0;
        for (int64_t p = 0; p < P; p++) {
            double c = dgnn_sched_group_cost(s, r, p);
            mx = c > mx ? c : mx;
        }
        for (int64_t p = 0; p < shown; p++) {
            int64_t cnt;
            const int64_t *g = dgnn_sched_group(s, r, p, &cnt);
            double x = x0, y = top + row * (double)p;
            for (int64_t i = 0; i < cnt; i++) {
                double w = s->cost[g[i]];
                int hue = (int)((s->sample[g[i]] * 47) % 360);
                fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"hsl(%d,60%%,60%%)\" "
                           "stroke=\"black\" stroke-width=\"0.3\"><title>round %lld rank %lld sample %lld: %.4g s"
                           "</title></rect>\n",
                        left + x * scale, y + 1, w * scale, row - 2, hue, (long long)r, (long long)p,
                        (long long)s->sample[g[i]], w);
                x += w;
            }
            if (x < x0 + mx)
                fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#ddd\"/>\n",
                        left + x * scale, y + 1, (x0 + mx - x) * scale, row - 2);
        }
        x0 += mx;
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"red\" stroke-width=\"0.6\"/>\n",
                left + x0 * scale, top, left + x0 * scale, top + row * (double)shown);
    }
    for (int64_t p = 0; p < shown; p += shown > 32 ? 8 : 1)
        fprintf(f, "<text x=\"5\" y=\"%.1f\">rank %lld</text>\n", top + row * (double)p + row - 3, (long long)p);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">time (s) -&gt; 0 .. %.4g</text>\n</svg>\n", left, H - 12, m.makespan);
    return dgnn_outfile_commit(o, err); /* reports any failed write */
}

int dgnn_sim_svg(const char *path, const char *title, const int64_t *workers, int64_t npts, const double *eff,
                 const char *const *series, int64_t nseries, dgnn_err *err) {
    static const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    const double W = 720, H = 440, l = 70, r = 160, t = 50, b = 60;
    double lx0 = 0, lx1 = 1;
    if (npts > 0) {
        lx0 = log2((double)workers[0]), lx1 = log2((double)workers[npts - 1]);
        if (lx1 <= lx0) lx1 = lx0 + 1;
    }
    dgnn_outfile *o;
    FILE *f = svg_begin(&o, path, W, H, title, l, 25, err);
    if (!f) return err ? err->code : DGNN_EIO;
#define PX(w) (l + (log2((double)(w)) - lx0) / (lx1 - lx0) * (W - l - r))
#define PY(e) (t + (1 - (e)) * (H - t - b))
    for (int k = 0; k <= 10; k += 2) {
        double e = k / 10.0;
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.0f\" y=\"%.1f\" "
                   "text-anchor=\"end\">%.0f%%</text>\n",
                l, PY(e), W - r, PY(e), l - 6, PY(e) + 4, 100 * e);
    }
    for (int64_t i = 0; i < npts; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%lld</text>\n", PX(workers[i]), H - b + 16,
                (long long)workers[i]);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">workers (log scale)</text>\n", (l + W - r) / 2,
            H - b + 36);
    fprintf(f, "<text x=\"15\" y=\"%.0f\" transform=\"rotate(-90 15 %.0f)\" text-anchor=\"middle\">efficiency "
               "T1 / (P TP)</text>\n",
            (t + H - b) / 2, (t + H - b) / 2);
    for (int64_t s = 0; s < nseries; s++) {
        const char *col = colors[s % 6];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
        for (int64_t i = 0; i < npts; i++) {
            double e = eff[s * npts + i];
            if (!isfinite(e)) continue;
            fprintf(f, "%.1f,%.1f ", PX(workers[i]), PY(e < 0 ? 0 : e > 1 ? 1 : e));
        }
        fprintf(f, "\"/>\n");
        for (int64_t i = 0; i < npts; i++) {
            double e = eff[s * npts + i];
            if (isfinite(e))
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s, %lld workers: %.1f%%</title>"
                           "</circle>\n",
                        PX(workers[i]), PY(e < 0 ? 0 : e > 1 ? 1 : e), col, series[s], (long long)workers[i], 100 * e);
        }
        char nm[128];
        esc(nm, sizeof nm, series[s]);
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"4\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s"
                   "</text>\n",
                W - r + 12, t + 18 * (double)s + 8, col, W - r + 30, t + 18 * (double)s + 12, nm);
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
    return dgnn_outfile_commit(o, err); /* reports any failed write */
}

/* One panel of the learning curve: y[0..n) against epochs 1..n, scaled to the finite
 * values' range, the top at ty, height ph. */
static void curve_panel(FILE *f, double l, double W, double r, double ty, double ph, const double *y, int64_t n,
                        const char *label, const char *col) {
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(y[i])) lo = y[i] < lo ? y[i] : lo, hi = y[i] > hi ? y[i] : hi;
    char nm[128];
    esc(nm, sizeof nm, label);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">%s</text>\n", l, ty - 6, nm);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#ccc\"/>\n", l, ty,
            W - l - r, ph);
    if (!(hi >= lo)) { /* nothing finite: not measured (e.g. --no-eval) */
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#888\">not measured</text>\n",
                (l + W - r) / 2, ty + ph / 2);
        return;
    }
    if (hi == lo) hi = lo + (lo == 0 ? 1 : fabs(lo) * 0.01);
    const double span = n > 1 ? (double)(n - 1) : 1;
#define PX(i) (l + (n > 1 ? (double)(i) / span : 0.5) * (W - l - r))
#define PY(v) (ty + ph - ((v) - lo) / (hi - lo) * ph)
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", l - 6, PY(hi) + 4, hi);
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", l - 6, PY(lo) + 4, lo);
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (int64_t i = 0; i < n; i++)
        if (isfinite(y[i])) fprintf(f, "%.1f,%.1f ", PX(i), PY(y[i]));
    fprintf(f, "\"/>\n");
    for (int64_t i = 0; i < n; i++)
        if (isfinite(y[i]))
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>epoch %lld: %.6g</title></circle>\n",
                    PX(i), PY(y[i]), col, (long long)(i + 1), y[i]);
#undef PX
#undef PY
}

int dgnn_curve_svg(const char *path, const char *title, const double *loss, const double *metric, int64_t n,
                   const char *metric_name, dgnn_err *err) {
    const double W = 720, l = 80, r = 40, t = 60, ph = 170, gap = 50;
    const double H = t + 2 * ph + gap + 50;
    dgnn_outfile *o;
    FILE *f = svg_begin(&o, path, W, H, title, l, 25, err);
    if (!f) return err ? err->code : DGNN_EIO;
    curve_panel(f, l, W, r, t, ph, loss, n, "training loss", "#1f77b4");
    char lab[96];
    snprintf(lab, sizeof lab, "validation %s", metric_name);
    curve_panel(f, l, W, r, t + ph + gap, ph, metric, n, lab, "#d62728");
    for (int64_t i = 0; i < n; i++) /* epoch ticks under the lower panel */
        if (n <= 20 || (i + 1) % ((n + 19) / 20) == 0)
            fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%lld</text>\n",
                    l + (n > 1 ? (double)i / (double)(n - 1) : 0.5) * (W - l - r), t + 2 * ph + gap + 16,
                    (long long)(i + 1));
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">epoch</text>\n", (l + W - r) / 2,
            t + 2 * ph + gap + 36);
    fprintf(f, "</svg>\n");
    return dgnn_outfile_commit(o, err); /* reports any failed write */
}
