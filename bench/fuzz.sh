#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer harnesses (fuzz/fuzz_text.c, fuzz/fuzz_binary.c,
# fuzz/fuzz_snapshot.c, fuzz/fuzz_checkpoint.c, fuzz/fuzz_formats.c, fuzz/fuzz_cli.c) with
# clang + AddressSanitizer + UndefinedBehaviorSanitizer, seeds their corpora from small
# hand-made files and the first lines of the shared datasets, runs each for
# FUZZ_SECONDS and prints the run summary. See fuzz/README.md.
#
#   bench/fuzz.sh                 # every target, 60 s each
#   FUZZ_SECONDS=600 bench/fuzz.sh text
#
# Environment: FUZZ_SECONDS (default 60), FUZZ_OUT (build/corpus folder, default
# build-fuzz), CC (default clang), DGNN_DATA_DIR (default ../shared/data), FUZZ_JOBS
# (parallel fuzzing processes per target, default 1).
#
# The library sources are compiled here directly (not through cmake), each with
# -fsanitize=fuzzer-no-link, into an archive: the linker then pulls in only the objects
# the harness needs, so unrelated modules (BLAS, METIS, MPI) are not required. A source
# that does not compile is skipped with a warning. Exit status: non-zero if a target
# found a crash (its input is saved as FUZZ_OUT/artifacts/<target>-crash-*).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
SECS=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
CC=${CC:-clang}
DATA=${DGNN_DATA_DIR:-$ROOT/../shared/data}
TARGETS=${*:-text binary snapshot checkpoint formats cli}

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=gnu11 -Wall -Wextra -fopenmp -I$ROOT/include $(pkg-config --cflags libcjson 2>/dev/null || true)"
LIBS="-fopenmp $(pkg-config --libs libcjson 2>/dev/null || true) -lm"

mkdir -p "$OUT/obj" "$OUT/artifacts"
echo "== building into $OUT"
rm -f "$OUT"/obj/*.o "$OUT/libdgnn_fuzz.a"
for src in "$ROOT"/src/base/*.c "$ROOT"/src/data/*.c "$ROOT"/src/train/checkpoint.c; do
    obj="$OUT/obj/$(basename "$(dirname "$src")")_$(basename "${src%.c}").o"
    if ! $CC $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$src" -o "$obj" 2>"$obj.log"; then
        echo "warning: skipped $src (does not compile; see $obj.log)"
        rm -f "$obj"
    fi
done
ar rcs "$OUT/libdgnn_fuzz.a" "$OUT"/obj/*.o
# the cli target (fuzz_cli.c) needs more: the config reader (libyaml), the simulator's run
# reader and the cost model, and what they call (the snapshot models' names, the
# schedulers, METIS, GLPK, BLAS): a second archive, built when cli is a target
CLI_CFLAGS="-DDGNN_HAVE_MPI=0 -I/usr/include/x86_64-linux-gnu/openblas-openmp $(pkg-config --cflags yaml-0.1 2>/dev/null || true)"
CLI_LIBS="$(pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) -L/usr/lib/x86_64-linux-gnu/openblas-openmp -lopenblas -lmetis -lglpk -lpthread"
if [[ " $TARGETS " == *" cli "* ]]; then
    mkdir -p "$OUT/obj_cli"
    rm -f "$OUT"/obj_cli/*.o "$OUT/libdgnn_fuzz_cli.a"
    for src in "$ROOT"/src/cli/args.c "$ROOT"/src/cli/cli_config.c "$ROOT"/src/cli/cli_config_doc.c \
               "$ROOT"/src/cli/cli_config_tgl.c "$ROOT"/src/cluster/*.c "$ROOT"/src/models/*.c "$ROOT"/src/nn/*.c; do
        obj="$OUT/obj_cli/$(basename "$(dirname "$src")")_$(basename "${src%.c}").o"
        if ! $CC $CFLAGS $CLI_CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$src" -o "$obj" 2>"$obj.log"; then
            echo "warning: skipped $src (does not compile; see $obj.log)"
            rm -f "$obj"
        fi
    done
    ar rcs "$OUT/libdgnn_fuzz_cli.a" "$OUT"/obj_cli/*.o
fi
for t in $TARGETS; do
    if [ "$t" = cli ]; then
        $CC $CFLAGS $CLI_CFLAGS $SAN -fsanitize=fuzzer "$ROOT/fuzz/fuzz_cli.c" -Wl,--start-group "$OUT/libdgnn_fuzz_cli.a" \
            "$OUT/libdgnn_fuzz.a" -Wl,--end-group $LIBS $CLI_LIBS -o "$OUT/fuzz_cli"
    else
        $CC $CFLAGS $SAN -fsanitize=fuzzer "$ROOT/fuzz/fuzz_$t.c" "$OUT/libdgnn_fuzz.a" $LIBS -o "$OUT/fuzz_$t"
    fi
done

# ---- seeds ----
seed_text() {
    local d="$OUT/seeds_text"
    rm -rf "$d"
    mkdir -p "$d"
    printf 'user,item,timestamp,state_label,f1,f2\n0,3,5.0,0,0.5,1.5\n1,4,2.0,1,2.5,3.5\n2,3,5.0,0,4.5,5.5\n' >"$d/jodie.csv"
    printf '\xef\xbb\xbfuser_id,item_id,timestamp,state_label,comma_separated_list_of_features\r\n0,0,10,0,1,2,3\r\n1,0,20,1,4,5,6\r\n' >"$d/jodie_upstream.csv"
    printf ',src,dst,time,ext_roll\n0,1,3,20.0,0\n1,0,4,10.0,0\n2,2,3,20.0,1\n3,1,4,5.5,2\n' >"$d/tgl.csv"
    printf 'Unnamed: 0,int_roll,time,dst,src,ext_roll\n0,1,1,1,0,0\n1,0,2,0,1,2\n' >"$d/tgl_extra.csv"
    printf '# Directed graph\n%% c\n\n100\t200\t12.25\n  300   100  1.5e1 \n200 300 12.25\n' >"$d/snap.txt"
    printf '%% sym unweighted\n%% 3 3 3\n1 2 1 1000\n2 3 -1 999\n1 3 2.5 1001\n' >"$d/konect.txt"
    printf '5, 6, 10, 1407470400\r\n6,5,-10,1376539200\r\n' >"$d/bitcoin.csv"
    printf '2.5 1 9 2 7.5 0 -1\n1.5 2 9 1 8.5 1 -2\n' >"$d/columns7.txt"
    printf 'u,i,ts,label\n0,1,nan,0\n0,1,1e999,0\n-1,2,3,0\n' >"$d/bad.csv"
    for f in wikipedia/wikipedia.csv collegemsg/CollegeMsg.txt bitcoin-alpha/soc-sign-bitcoinalpha.csv; do
        [ -r "$DATA/$f" ] && head -n 40 "$DATA/$f" >"$d/head_$(basename "$f")"
    done
    return 0
}
seed_binary() {
    local d="$OUT/seeds_binary"
    rm -rf "$d"
    mkdir -p "$d"
    $CC $CFLAGS $SAN -DFUZZ_SEED_MAIN "$ROOT/fuzz/fuzz_binary.c" "$OUT/libdgnn_fuzz.a" $LIBS -o "$OUT/seedgen_binary"
    "$OUT/seedgen_binary" "$d"
}

seed_formats() {
    # csv + .npy files in one input, cut at "\n@@@@\n" (see fuzz_formats.c): hand-made
    # DyGLib / TGL / TGB files written by fuzz_formats.c's seed program, and the head of
    # the shared wikipedia.csv (header u,i,ts,label: TGB's wiki layout)
    local d="$OUT/seeds_formats"
    rm -rf "$d"
    mkdir -p "$d"
    $CC $CFLAGS $SAN -DFUZZ_SEED_MAIN "$ROOT/fuzz/fuzz_formats.c" "$OUT/libdgnn_fuzz.a" $LIBS -o "$OUT/seedgen_formats"
    "$OUT/seedgen_formats" "$d"
    [ -r "$DATA/wikipedia/wikipedia.csv" ] && head -n 40 "$DATA/wikipedia/wikipedia.csv" >"$d/head_wikipedia.csv"
    return 0
}

seed_checkpoint() {
    # real checkpoints of tiny models, when the Release dgnn is built (build/dgnn), each
    # written as is and with other runs' records by fuzz_checkpoint.c's seed program
    local d="$OUT/seeds_checkpoint" real="$OUT/real_checkpoints" dg="$ROOT/build/dgnn" ck=()
    rm -rf "$d" "$real"
    mkdir -p "$d" "$real"
    if [ -x "$dg" ] && "$dg" gen --events 400 --nodes 40 --communities 2 --bipartite 1 --out "$real/tiny.csv" >/dev/null 2>&1; then
        local a="--data $real/tiny.csv --threads 1 --epochs 1 --max-batches 2 --batch 20 --mem-dim 4 --time-dim 2 --emb-dim 4 --neighbors 2 --heads 1 --no-eval --quiet"
        "$dg" train $a --checkpoint "$real/tgn" >/dev/null 2>&1 && ck+=("$real/tgn/checkpoint.dgnnckpt")
        "$dg" train $a --dist depbloom --partition --window-events 50 --refine 2 --critical-path --checkpoint "$real/db" >/dev/null 2>&1 && ck+=("$real/db/checkpoint.dgnnckpt")
    else
        echo "note: $dg not built: checkpoint seeds are the seed program's own"
    fi
    $CC $CFLAGS $SAN -DFUZZ_SEED_MAIN "$ROOT/fuzz/fuzz_checkpoint.c" "$OUT/libdgnn_fuzz.a" $LIBS -o "$OUT/seedgen_checkpoint"
    "$OUT/seedgen_checkpoint" "$d" "${ck[@]}"
}

seed_snapshot() { # PyG-Temporal json in its three layouts, the shared files' heads, small edge lists
    local d="$OUT/seeds_snapshot"
    rm -rf "$d"
    mkdir -p "$d"
    printf '{"0": {"index": 0, "edges": [[0, 1], [2, 0], [0, 1]], "weights": [1, 2.5, 3], "X": [[1, 2], [3, 4], [5, 6]], "y": [1, 2, 3]},\n "1": {"edges": [[2, 2]], "weights": [4], "X": [[0, 0], [0, 0], [0.5, -1e-3]], "y": [0, 0, 7]},\n "time_periods": 2, "node_ids": {"a": 0, "b": 1}}\n' >"$d/twitter.json"
    printf '{"edge_mapping": {"edge_index": {"1": [[0, 1]], "0": [[1, 2], [2, 2]]}, "edge_weight": {"0": [10.5, 20], "1": [30]}}, "time_periods": 2, "y": [[1, 2, 3], [4, 5, 6]]}' >"$d/england.json"
    printf '{"edges": [[0, 1], [1, 0], [1, 2]], "node_ids": {"A": 0, "B": 1, "C": 2}, "FX": [[1, 2, 3], [3, 4, 5], [5, 6, 7]]}' >"$d/chickenpox.json"
    printf '{"time_periods": 2, "0": {"edges": [[0, 2000000000], [5, 0]]}, "1": {"edges": [[2000000000, 5]]}}' >"$d/sparse.json"
    printf '1 2 3\n2 3 3.5\n3 1 10\n1 3 11\n' >"$d/edges.txt"
    printf '5,6,10,1407470400\n6,5,-10,1376539200\n5,7,1,1376539300\n' >"$d/bitcoin.csv"
    for f in pgt/twitter_tennis_rg17.json pgt/england_covid.json pgt/chickenpox.json; do
        [ -r "$DATA/$f" ] && head -c 6000 "$DATA/$f" >"$d/head_$(basename "$f")"
    done
    return 0
}

seed_cli() { # config YAML (configs/, --dump-config), run JSON (--out, a --step-curve bench run), profile CSV (--profile)
    local d="$OUT/seeds_cli" real="$OUT/real_cli" dg="$ROOT/build/dgnn"
    rm -rf "$d" "$real"
    mkdir -p "$d" "$real"
    cp "$ROOT"/configs/*.yml "$d/"
    printf 'dgnn:\n  model: tgn\n  batch: 100\n  no-eval: true\n' >"$d/small.yml"
    printf 'sampling:\n  - layer: 1\n    neighbor:\n      - 10\n    strategy: recent\nmemory:\n  - type: node\n    memory_update: gru\n    dim_out: 100\ngnn:\n  - arch: transformer_attention\n    layer: 1\ntrain:\n  - epoch: 2\n    batch_size: 600\n    lr: 0.0001\ndgnn:\n  threads: 1\n' >"$d/tgl_small.yml"
    local cfg='"config": {"batch": 10, "threads": 1, "max_batches": 0, "mem_dim": 4, "time_dim": 2, "mail_slots": 1, "new_node_frac": 0.1, "val_quantile": 0.7, "test_quantile": 0.85, "seed": 0}, "data": {"train_events": 100, "edge_dim": 0}, "num_params": 50, "epochs": [{"train_seconds": 0.5, "train_events": 100}]'
    printf '{"model": "tgn", "dataset": "d", %s, "step_curve": {"device": "cpu", "points": [{"batch": 10, "step_seconds": 0.01}, {"batch": 20, "step_seconds": 0.015}], "apply_bytes_per_second": 1e9, "optimizer_seconds": 1e-4}}\n' "$cfg" >"$d/curve_small.json"
    printf '{"model": "tgn", "dataset": "d", %s, "dist": {"mode": "depbloom", "ranks": 2, "partition": true, "window_events": 50, "window_seconds": 0, "refine": 2, "steps": 10, "state_bytes_per_epoch": 1000, "grad_bytes_per_epoch": 400, "per_rank": [{"compute_seconds": 0.2, "sample_seconds": 0.05, "comm_seconds": 0.1}, {"compute_seconds": 0.25, "sample_seconds": 0.05, "comm_seconds": 0.1}]}}\n' "$cfg" >"$d/run_dist.json"
    printf 'model,sample,nodes,edges,edges_window,label_pairs,in_dim,hidden,seconds\ngcn,0,3,2,5,4,2,8,0.5\ngcn,1,4,3,7,6,2,8,0.75\ngcn,2,5,4,9,8,2,8,1.0\ntgcn,0,3,2,5,4,2,8,2\r\n' >"$d/prof_small.csv"
    if [ -x "$dg" ] && "$dg" gen --events 600 --nodes 50 --communities 2 --bipartite 1 --out "$real/tiny.csv" >/dev/null 2>&1; then
        local a="--data $real/tiny.csv --threads 1 --epochs 1 --mem-dim 4 --time-dim 2 --emb-dim 4 --quiet"
        "$dg" train $a --max-batches 3 --batch 20 --neighbors 2 --heads 1 --no-eval --dump-config "$d/dump_tgn.yml" --out "$d/run.json" >/dev/null 2>&1
        "$dg" train $a --model apan --max-batches 3 --batch 20 --neighbors 2 --heads 1 --no-eval --dump-config "$d/dump_apan.yml" >/dev/null 2>&1
        "$dg" train $a --model jodie --max-batches 3 --batch 20 --eval-negatives 3 --dump-config "$d/dump_jodie.yml" >/dev/null 2>&1
        "$dg" bench train $a --neighbors 2 --heads 1 --step-curve 20,40 --max-batches 6 --out "$d/curve.json" >/dev/null 2>&1
        "$dg" train --model evolvegcn-o --data "$real/tiny.csv" --snapshots 30 --window 2 --epochs 1 --threads 1 --quiet \
            --profile "$real/prof.csv" >/dev/null 2>&1 && head -n 8 "$real/prof.csv" >"$d/prof.csv"
    else
        echo "note: $dg not built: cli seeds are hand-made only"
    fi
    return 0
}

# ---- run ----
status=0
for t in $TARGETS; do
    "seed_$t"
    corpus="$OUT/corpus_$t"
    mkdir -p "$corpus"
    log="$OUT/fuzz_$t.log"
    echo "== fuzz_$t: ${SECS}s, corpus $corpus (+ seeds), log $log"
    par=""
    [ "$JOBS" -gt 1 ] && par="-jobs=$JOBS -workers=$JOBS"
    set +e
    maxlen=8192
    [ "$t" = checkpoint ] && maxlen=131072 # a tiny model's checkpoint: ~100 KB (the results table)
    dict=""
    [ "$t" = cli ] && dict="-dict=$ROOT/fuzz/fuzz_cli.dict" # YAML's tokens (---, ..., anchors, tags)
    (cd "$OUT" && ./fuzz_$t -max_total_time="$SECS" -max_len=$maxlen -timeout=10 -rss_limit_mb=2048 \
        $par $dict -print_final_stats=1 \
        -artifact_prefix="$OUT/artifacts/$t-" "$corpus" "$OUT/seeds_$t") >"$log" 2>&1
    rc=$?
    set -e
    if [ "$JOBS" -gt 1 ]; then cat "$OUT"/fuzz-*.log >>"$log" 2>/dev/null; rm -f "$OUT"/fuzz-*.log; fi
    # summary: the last status line, the final stats, and any crash report
    grep -E '^#[0-9]+' "$log" | tail -n 1 || true
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
    grep -E '^Done [0-9]+ runs' "$log" || true
    if [ $rc -ne 0 ]; then
        status=1
        echo "!! fuzz_$t stopped with status $rc: crash report:"
        grep -E -A 25 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|fuzz_[a-z]+: ' "$log" | head -n 60
        ls "$OUT"/artifacts/"$t"-* 2>/dev/null
    else
        echo "fuzz_$t: no crash in ${SECS}s"
    fi
done
exit $status
