/* test_gen.c: the synthetic generator: option parsing, determinism, the statistical
 * properties it promises (time order, id ranges, bipartite split, repeat fraction,
 * rate growth and bursts, label rate, features tied to the pair, a learnable link
 * structure), bounded memory, and identical in-memory / .dgnn / csv outputs. */
#include "check.h"
#include "dgnn/gen.h"
#include "dgnn/binfmt.h"
#include "dgnn/readers.h"

#include <dirent.h>
#include <stdint.h>

static char g_dir[256];

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { *n = 0; return NULL; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

static dgnn_gen_opts small_opts(void) {
    dgnn_gen_opts o = dgnn_gen_opts_default();
    o.num_events = 60000;
    o.num_nodes = 600;
    o.seed = 7;
    return o;
}

/* Fraction of events (with a non-empty history) whose dst is among the source's last
 * `ring` distinct partners: an independent re-implementation of the recency ring. */
static double repeat_fraction(const dgnn_events *ev, int ring) {
    int32_t *rg = malloc((size_t)ev->num_nodes * (size_t)ring * sizeof(int32_t));
    int *len = calloc((size_t)ev->num_nodes, sizeof(int));
    int64_t nonempty = 0, rep = 0;
    for (int64_t i = 0; i < ev->num_events; i++) {
        int32_t s = ev->src[i], d = ev->dst[i], *r = rg + (size_t)s * ring;
        int j = -1;
        for (int k = 0; k < len[s]; k++)
            if (r[k] == d) j = k;
        if (len[s] > 0) nonempty++, rep += j >= 0;
        if (j < 0) {
            if (len[s] < ring) len[s]++;
            j = len[s] - 1;
        }
        memmove(r + 1, r, (size_t)j * sizeof(int32_t));
        r[0] = d;
    }
    free(rg);
    free(len);
    return nonempty ? (double)rep / (double)nonempty : 0;
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/dgnn_test_gen_XXXXXX");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    char p1[512], p2[512], p3[512];
    dgnn_err err;
    dgnn_gen_stats st;

    /* ---- bounded memory: streaming 3M events (60 MB of columns) must not hold them.
     * First in the program, while the peak RSS is still low. ---- */
    {
        dgnn_gen_opts o = small_opts();
        o.num_events = 3000000;
        o.num_nodes = 10000;
        snprintf(p1, sizeof p1, "%s/big.dgnn", g_dir);
        double before = dgnn_peak_rss_mb();
        CHECK_MSG(dgnn_gen_write(p1, &o, &st, &err) == DGNN_OK, "%s", err.msg);
        double grew = dgnn_peak_rss_mb() - before;
        CHECK_MSG(grew < 25, "peak RSS grew by %.1f MB while streaming 3M events", grew);
        CHECK(st.events == 3000000 && st.bytes > 3000000LL * 20 && st.events_per_s > 0);
        printf("gen: 3M events in %.2f s (%.3g events/s), %lld bytes, peak RSS +%.1f MB\n", st.seconds,
               st.events_per_s, (long long)st.bytes, grew);
        unlink(p1);
    }

    /* ---- options ---- */
    {
        dgnn_gen_opts o = dgnn_gen_opts_default();
        CHECK(dgnn_gen_check(&o, &err) == DGNN_OK);
        CHECK(dgnn_gen_set(&o, "events", "10M", &err) == DGNN_OK && o.num_events == 10000000);
        CHECK(dgnn_gen_set(&o, "events", "2.5k", &err) == DGNN_OK && o.num_events == 2500);
        CHECK(dgnn_gen_set(&o, "nodes", "1e5", &err) == DGNN_OK && o.num_nodes == 100000);
        CHECK(dgnn_gen_set(&o, "seed", "18446744073709551615", &err) == DGNN_OK && o.seed == UINT64_MAX);
        CHECK(dgnn_gen_set(&o, "repeat", "0.25", &err) == DGNN_OK && o.repeat_prob == 0.25);
        CHECK(dgnn_gen_set(&o, "bipartite", "yes", &err) == DGNN_OK && o.bipartite == 1);
        CHECK(dgnn_gen_set(&o, "edge-dim", "4", &err) == DGNN_OK && o.edge_dim == 4);
        CHECK(dgnn_gen_set(&o, "events", "-3", &err) == DGNN_EINVAL && strstr(err.msg, "'events'"));
        CHECK(dgnn_gen_set(&o, "events", "1.5", &err) == DGNN_EINVAL);
        CHECK(dgnn_gen_set(&o, "repeat", "abc", &err) == DGNN_EINVAL && strstr(err.msg, "'abc'"));
        CHECK(dgnn_gen_set(&o, "bipartite", "2", &err) == DGNN_EINVAL);
        CHECK(dgnn_gen_set(&o, "colour", "red", &err) == DGNN_EINVAL && strstr(err.msg, "unknown option 'colour'"));
        CHECK(dgnn_gen_check(&o, &err) == DGNN_OK);
        o.repeat_prob = 1.5;
        CHECK(dgnn_gen_check(&o, &err) == DGNN_EINVAL && strstr(err.msg, "'repeat'"));
        o = dgnn_gen_opts_default();
        o.bipartite = 1, o.num_src_nodes = o.num_nodes;
        CHECK(dgnn_gen_check(&o, &err) == DGNN_EINVAL && strstr(err.msg, "'src-nodes'"));
        o = dgnn_gen_opts_default();
        o.num_nodes = 1;
        dgnn_events ev;
        CHECK(dgnn_gen_events(&ev, &o, &err) == DGNN_EINVAL && strstr(err.msg, "'nodes'"));
        FILE *devnull = fopen("/dev/null", "w");
        dgnn_gen_usage(devnull, NULL);
        fclose(devnull);
    }

    /* ---- determinism: same seed, same bytes; other seed, other bytes ---- */
    dgnn_gen_opts o = small_opts();
    snprintf(p1, sizeof p1, "%s/a.dgnn", g_dir);
    snprintf(p2, sizeof p2, "%s/b.dgnn", g_dir);
    snprintf(p3, sizeof p3, "%s/c.dgnn", g_dir);
    CHECK_MSG(dgnn_gen_write(p1, &o, &st, &err) == DGNN_OK, "%s", err.msg);
    CHECK(dgnn_gen_write(p2, &o, NULL, &err) == DGNN_OK);
    o.seed = 8;
    CHECK(dgnn_gen_write(p3, &o, NULL, &err) == DGNN_OK);
    o.seed = 7;
    size_t n1, n2, n3;
    unsigned char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2), *b3 = slurp(p3, &n3);
    CHECK(b1 && n1 > 0 && n1 == n2 && memcmp(b1, b2, n1) == 0);
    CHECK((int64_t)n1 == st.bytes);
    CHECK(b3 && (n3 != n1 || memcmp(b1, b3, n1) != 0));
    free(b1), free(b2), free(b3);

    /* ---- in memory == on disk ---- */
    dgnn_events ev, disk;
    CHECK_MSG(dgnn_gen_events(&ev, &o, &err) == DGNN_OK, "%s", err.msg);
    CHECK_MSG(dgnn_load_binary(&disk, p1, 1, &err) == DGNN_OK, "%s", err.msg);
    int64_t E = ev.num_events;
    CHECK(E == o.num_events && disk.num_events == E && ev.num_nodes == o.num_nodes && disk.num_nodes == ev.num_nodes);
    CHECK(memcmp(ev.src, disk.src, (size_t)E * 4) == 0 && memcmp(ev.dst, disk.dst, (size_t)E * 4) == 0);
    CHECK(memcmp(ev.t, disk.t, (size_t)E * 8) == 0 && disk.label && memcmp(ev.label, disk.label, (size_t)E * 4) == 0);
    CHECK(ev.bipartite == disk.bipartite && ev.bipartite == 0);
    CHECK(disk.efeat == NULL && ev.efeat == NULL && disk.node_ids == NULL);
    dgnn_events_free(&disk);
    /* a second in-memory run is identical too */
    {
        dgnn_events ev2;
        CHECK(dgnn_gen_events(&ev2, &o, &err) == DGNN_OK);
        CHECK(memcmp(ev.dst, ev2.dst, (size_t)E * 4) == 0 && memcmp(ev.t, ev2.t, (size_t)E * 8) == 0);
        dgnn_events_free(&ev2);
    }

    /* ---- several chunks (65536 events; fewer with wide features): still identical ---- */
    for (int wide = 0; wide < 2; wide++) {
        dgnn_gen_opts q = small_opts();
        q.num_events = wide ? 30000 : 150000;
        q.edge_dim = wide ? 100 : 0;
        dgnn_events m;
        CHECK(dgnn_gen_events(&m, &q, &err) == DGNN_OK);
        CHECK(dgnn_gen_write(p2, &q, NULL, &err) == DGNN_OK);
        CHECK(dgnn_load_binary(&disk, p2, 1, &err) == DGNN_OK);
        int64_t n = q.num_events;
        CHECK(disk.num_events == n && memcmp(m.src, disk.src, (size_t)n * 4) == 0 &&
              memcmp(m.dst, disk.dst, (size_t)n * 4) == 0 && memcmp(m.t, disk.t, (size_t)n * 8) == 0 &&
              memcmp(m.label, disk.label, (size_t)n * 4) == 0);
        CHECK(!wide || (disk.efeat && memcmp(m.efeat, disk.efeat, (size_t)n * 400) == 0));
        dgnn_events_free(&disk);
        dgnn_events_free(&m);
    }

    /* ---- time order, range, ids ---- */
    int sorted = 1, in_range = 1, self_loops = 0;
    for (int64_t i = 0; i < E; i++) {
        if (i && ev.t[i] < ev.t[i - 1]) sorted = 0;
        if (!(ev.t[i] >= 0 && ev.t[i] <= o.duration)) sorted = 0;
        if (ev.src[i] < 0 || ev.src[i] >= o.num_nodes || ev.dst[i] < 0 || ev.dst[i] >= o.num_nodes) in_range = 0;
        self_loops += ev.src[i] == ev.dst[i];
    }
    CHECK(sorted);
    CHECK(in_range);
    CHECK(self_loops == 0);
    CHECK(ev.t[E - 1] > 0.9 * o.duration); /* the stream spans the whole duration */

    /* ---- repeat fraction close to the option; learnable structure ---- */
    double rf = repeat_fraction(&ev, o.ring);
    CHECK_MSG(fabs(rf - o.repeat_prob) < 0.03, "repeat fraction %.3f vs option %.2f", rf, o.repeat_prob);
    {
        /* a memory-only heuristic (score = recency rank in the source's history, else
         * seen-before, else 0) beats random negatives by a wide margin: AUC > 0.75 */
        int64_t N = ev.num_nodes;
        int32_t *last = malloc((size_t)N * 8 * sizeof(int32_t));
        int *len = calloc((size_t)N, sizeof(int));
        uint8_t *seen = calloc((size_t)(N * N), 1);
        dgnn_rng r;
        dgnn_rng_seed(&r, 99);
        double wins = 0;
        int64_t trials = 0;
        for (int64_t i = 0; i < E; i++) {
            int32_t s = ev.src[i], d = ev.dst[i], neg = (int32_t)dgnn_rng_below(&r, (uint64_t)N);
            if (i > E / 5) { /* after a warm-up */
                double sp = 0, sn = 0;
                for (int k = 0; k < len[s]; k++) {
                    if (last[s * 8 + k] == d && sp == 0) sp = 2 + (8 - k);
                    if (last[s * 8 + k] == neg && sn == 0) sn = 2 + (8 - k);
                }
                if (sp == 0) sp = seen[(size_t)s * N + d];
                if (sn == 0) sn = seen[(size_t)s * N + neg];
                wins += sp > sn ? 1 : sp == sn ? 0.5 : 0;
                trials++;
            }
            seen[(size_t)s * N + d] = 1;
            int j = -1;
            for (int k = 0; k < len[s]; k++)
                if (last[s * 8 + k] == d) j = k;
            if (j < 0) { if (len[s] < 8) len[s]++; j = len[s] - 1; }
            memmove(last + s * 8 + 1, last + s * 8, (size_t)j * sizeof(int32_t));
            last[s * 8] = d;
        }
        double auc = wins / (double)trials;
        CHECK_MSG(auc > 0.75, "history heuristic AUC %.3f", auc);
        printf("gen: memory-only heuristic link AUC %.3f (random = 0.5)\n", auc);
        free(last), free(len), free(seen);
    }
    for (int k = 0; k < 3; k++) {
        dgnn_gen_opts q = small_opts();
        q.repeat_prob = k == 0 ? 0.0 : k == 1 ? 0.2 : 0.8;
        q.ring = k == 2 ? 3 : 8;
        dgnn_events e2;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        double f = repeat_fraction(&e2, q.ring);
        CHECK_MSG(fabs(f - q.repeat_prob) < 0.03, "repeat fraction %.3f vs option %.2f (ring %d)", f, q.repeat_prob, q.ring);
        dgnn_events_free(&e2);
    }

    /* ---- labels: rare, near the option ---- */
    {
        dgnn_gen_opts q = small_opts();
        q.label_rate = 0.05;
        dgnn_events e2;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        int64_t pos = 0, other = 0;
        for (int64_t i = 0; i < e2.num_events; i++) pos += e2.label[i] == 1, other += e2.label[i] != 0 && e2.label[i] != 1;
        double rate = (double)pos / (double)e2.num_events;
        CHECK_MSG(rate > 0.04 && rate < 0.06, "label rate %.4f vs 0.05", rate);
        CHECK(other == 0);
        dgnn_events_free(&e2);
        int64_t pos_default = 0;
        for (int64_t i = 0; i < E; i++) pos_default += ev.label[i];
        CHECK_MSG(pos_default > 0 && pos_default < E / 100, "%lld positives of %lld", (long long)pos_default, (long long)E);
    }

    /* ---- rate growth and bursts ---- */
    {
        dgnn_gen_opts q = small_opts();
        q.bursts = 0;
        dgnn_events e2;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        int64_t first = 0, lastt = 0;
        for (int64_t i = 0; i < e2.num_events; i++) {
            first += e2.t[i] < 0.1 * q.duration;
            lastt += e2.t[i] >= 0.9 * q.duration;
        }
        /* linear rate 1 -> 5: the last tenth holds (4.8/1.2) = 4x the events of the first */
        double ratio = (double)lastt / (double)first;
        CHECK_MSG(ratio > 3.5 && ratio < 4.5, "last/first tenth %.2f, expected ~4", ratio);
        dgnn_events_free(&e2);
        q.growth = 1;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        first = lastt = 0;
        for (int64_t i = 0; i < e2.num_events; i++) {
            first += e2.t[i] < 0.1 * q.duration;
            lastt += e2.t[i] >= 0.9 * q.duration;
        }
        ratio = (double)lastt / (double)first;
        CHECK_MSG(ratio > 0.9 && ratio < 1.1, "flat rate: last/first tenth %.2f", ratio);
        dgnn_events_free(&e2);
        /* bursts: with the default 4 bursts of duration/200 at 10x, the busiest 1/400
         * windows are far above the typical one */
        q = small_opts();
        q.growth = 1;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        int64_t hist[400] = {0};
        for (int64_t i = 0; i < e2.num_events; i++) {
            int b = (int)(e2.t[i] / q.duration * 400);
            hist[b < 400 ? b : 399]++;
        }
        int64_t mx = 0, hot = 0;
        double mean = (double)e2.num_events / 400;
        for (int b = 0; b < 400; b++) { if (hist[b] > mx) mx = hist[b]; hot += hist[b] > 4 * mean; }
        CHECK_MSG(mx > 6 * mean, "busiest window %lld vs mean %.0f", (long long)mx, mean);
        CHECK_MSG(hot >= 4 && hot <= 16, "%lld burst windows", (long long)hot); /* 4 bursts x ~2 windows */
        dgnn_events_free(&e2);
    }

    /* ---- bipartite ---- */
    {
        dgnn_gen_opts q = small_opts();
        q.bipartite = 1;
        dgnn_events e2;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        int ok = 1;
        for (int64_t i = 0; i < e2.num_events; i++) ok &= e2.src[i] < 540 && e2.dst[i] >= 540; /* 90% of 600 */
        CHECK(ok);
        CHECK(e2.bipartite == 1);
        double f = repeat_fraction(&e2, q.ring);
        CHECK_MSG(fabs(f - q.repeat_prob) < 0.03, "bipartite repeat fraction %.3f", f);
        dgnn_events_free(&e2);
        q.num_src_nodes = 100;
        CHECK(dgnn_gen_events(&e2, &q, &err) == DGNN_OK);
        ok = 1;
        for (int64_t i = 0; i < e2.num_events; i++) ok &= e2.src[i] < 100 && e2.dst[i] >= 100;
        CHECK(ok && e2.bipartite == 1);
        dgnn_events_free(&e2);
    }

    /* ---- edge features follow the community pair ---- */
    dgnn_gen_opts qf = small_opts();
    qf.edge_dim = 4;
    qf.num_events = 20000;
    dgnn_events ef;
    CHECK(dgnn_gen_events(&ef, &qf, &err) == DGNN_OK);
    CHECK(ef.edge_dim == 4 && ef.efeat != NULL);
    {
        /* same (src, dst) pair: features differ only by noise; random pairs differ by more */
        double same = 0, rnd = 0;
        int64_t ns = 0, nr = 0;
        for (int64_t i = 1; i < ef.num_events; i++) {
            int64_t j = -1;
            for (int64_t k = i - 1; k >= 0 && k > i - 2000; k--)
                if (ef.src[k] == ef.src[i] && ef.dst[k] == ef.dst[i]) { j = k; break; }
            double dd = 0, dr = 0;
            for (int k = 0; k < 4; k++) {
                if (j >= 0) dd += pow(ef.efeat[i * 4 + k] - ef.efeat[j * 4 + k], 2);
                dr += pow(ef.efeat[i * 4 + k] - ef.efeat[(i - 1) * 4 + k], 2);
            }
            if (j >= 0) same += dd, ns++;
            rnd += dr, nr++;
        }
        CHECK(ns > 1000);
        CHECK_MSG(same / ns < 0.3 * (rnd / nr), "same-pair distance %.3f vs consecutive %.3f", same / ns, rnd / nr);
    }
    /* features identical on disk */
    CHECK(dgnn_gen_write(p2, &qf, NULL, &err) == DGNN_OK);
    CHECK(dgnn_load_binary(&disk, p2, 1, &err) == DGNN_OK);
    CHECK(disk.edge_dim == 4 && disk.efeat && memcmp(disk.efeat, ef.efeat, (size_t)ef.num_events * 16) == 0);
    dgnn_events_free(&disk);

    /* ---- csv output: parsed back here and by the JODIE reader, equal to the table ---- */
    {
        dgnn_gen_opts q = qf;
        q.bipartite = 1;
        dgnn_events mem, rd;
        CHECK(dgnn_gen_events(&mem, &q, &err) == DGNN_OK);
        snprintf(p3, sizeof p3, "%s/gen.csv", g_dir);
        CHECK_MSG(dgnn_gen_write(p3, &q, &st, &err) == DGNN_OK, "%s", err.msg);
        FILE *f = fopen(p3, "r");
        char line[1024];
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "user,item,timestamp,state_label,f1,f2,f3,f4\n") == 0);
        int64_t i = 0, bad = 0;
        while (fgets(line, sizeof line, f)) {
            char *p = line, *end;
            long long u = strtoll(p, &end, 10); p = end + 1;
            long long it = strtoll(p, &end, 10); p = end + 1;
            double ts = strtod(p, &end); p = end + 1;
            long lab = strtol(p, &end, 10); p = end;
            float fe[4];
            for (int k = 0; k < 4; k++) { fe[k] = strtof(p + 1, &end); p = end; }
            if (i >= mem.num_events || *p != '\n' || u != mem.src[i] || it != mem.dst[i] || ts != mem.t[i] ||
                lab != mem.label[i] || memcmp(fe, mem.efeat + i * 4, 16) != 0)
                bad++;
            i++;
        }
        fclose(f);
        CHECK_MSG(i == mem.num_events && bad == 0, "csv: %lld rows, %lld differ", (long long)i, (long long)bad);
        size_t nb;
        free(slurp(p3, &nb));
        CHECK((int64_t)nb == st.bytes);
        CHECK(dgnn_detect_format(p3) == DGNN_FMT_JODIE);
        CHECK_MSG(dgnn_read_jodie(&rd, p3, &err) == DGNN_OK, "%s", err.msg);
        CHECK(rd.num_events == mem.num_events && rd.edge_dim == 4 && rd.label && rd.bipartite == 1);
        bad = 0;
        for (int64_t k = 0; k < rd.num_events && rd.num_events == mem.num_events; k++) {
            int64_t su = rd.node_ids ? rd.node_ids[rd.src[k]] : rd.src[k];
            int64_t di = rd.node_ids ? rd.node_ids[rd.dst[k]] : rd.dst[k];
            bad += su != mem.src[k] || di != mem.dst[k] || rd.t[k] != mem.t[k] || rd.label[k] != mem.label[k] ||
                   memcmp(rd.efeat + k * 4, mem.efeat + k * 4, 16) != 0;
        }
        CHECK_MSG(bad == 0, "jodie reader: %lld events differ", (long long)bad);
        dgnn_events_free(&rd);
        dgnn_events_free(&mem);
        /* a general graph cannot be a JODIE csv: refused, nothing written */
        q.bipartite = 0;
        snprintf(p3, sizeof p3, "%s/general.csv", g_dir);
        CHECK(dgnn_gen_write(p3, &q, NULL, &err) == DGNN_EINVAL && strstr(err.msg, "bipartite"));
        CHECK(access(p3, F_OK) != 0);
    }

    /* ---- zero events, and a failing path leaves nothing behind ---- */
    {
        dgnn_gen_opts q = small_opts();
        q.num_events = 0;
        CHECK(dgnn_gen_write(p1, &q, &st, &err) == DGNN_OK && st.events == 0);
        CHECK(dgnn_load_binary(&disk, p1, 1, &err) == DGNN_OK && disk.num_events == 0 && disk.num_nodes == q.num_nodes);
        dgnn_events_free(&disk);
        snprintf(p3, sizeof p3, "%s/missing/x.dgnn", g_dir);
        CHECK(dgnn_gen_write(p3, &q, NULL, &err) == DGNN_EIO && strstr(err.msg, "missing/x.dgnn"));
        snprintf(p3, sizeof p3, "%s/missing/x.csv", g_dir);
        q.bipartite = 1;
        CHECK(dgnn_gen_write(p3, &q, NULL, &err) == DGNN_EIO);
    }

    dgnn_events_free(&ef);
    dgnn_events_free(&ev);
    DIR *d = opendir(g_dir);
    struct dirent *de;
    int tmp_left = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        tmp_left += strstr(de->d_name, ".tmp.") != NULL;
        snprintf(p3, sizeof p3, "%s/%s", g_dir, de->d_name);
        unlink(p3);
    }
    closedir(d);
    rmdir(g_dir);
    CHECK(tmp_left == 0);
    return check_done();
}
