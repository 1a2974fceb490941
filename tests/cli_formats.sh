#!/usr/bin/env bash
# cli_formats.sh DGNN: the layouts users bring (issue 16, item 6), through the commands:
# TGL's ext_roll split as train's default and --split time over it, `dgnn info`'s
# ext_roll counts, TGL's .pt tensors refused with the conversion one-liner, TGN/DyGLib's
# ml_NAME.csv + .npy files and TGB's edge lists read (info, convert) and their broken
# variants refused naming file and line, with exit 1 (bad data) or 2 (bad flags); info
# --json's per-snapshot dims, a pipe (or /dev/stdout into one) as an output.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
json_has() { if grep -qE -- "$1" "$2"; then ok; else bad "$2 lacks /$1/"; grep -E 'split|_events' "$2" | head -8; fi; }

# ---- a TGL folder with ext_roll: 240 train, 80 val, 80 test events (a 60/20/20 split,
# where the time quantiles would give 70/15/15: 280/60/60) ----
mkdir "$tmp/tgl"
awk 'BEGIN { print ",src,dst,time,ext_roll";
             for (i = 0; i < 400; i++) printf "%d,%d,%d,%d,%d\n", i, i % 20, 20 + (i * 7) % 20, i * 10, (i < 240 ? 0 : i < 320 ? 1 : 2) }' \
  > "$tmp/tgl/edges.csv"
small="--epochs 1 --max-batches 1 --batch 50 --mem-dim 8 --time-dim 8 --new-node-frac 0 --quiet"
expect_rc 0 "$dgnn" train --data "$tmp/tgl" $small --out "$tmp/roll.json"
has "split: by the data's ext_roll column"
json_has '"split":[[:space:]]*"ext_roll"' "$tmp/roll.json"
json_has '"train_events":[[:space:]]*240,' "$tmp/roll.json"
json_has '"val_events":[[:space:]]*80,' "$tmp/roll.json"
expect_rc 0 "$dgnn" train --data "$tmp/tgl" --split time $small --out "$tmp/time.json"
if grep -qF "ext_roll column" "$tmp/out"; then bad "--split time still logs the ext_roll split"; else ok; fi
json_has '"split":[[:space:]]*"time"' "$tmp/time.json"
json_has '"train_events":[[:space:]]*280,' "$tmp/time.json"
# the hold-out still applies under ext_roll: with new nodes held out, fewer train events
expect_rc 0 "$dgnn" train --data "$tmp/tgl" --split ext_roll $small --new-node-frac 0.2 --out "$tmp/held.json"
if grep -qE '"train_events":[[:space:]]*240,' "$tmp/held.json"; then bad "ext_roll ignored --new-node-frac"; else ok; fi
expect_rc 2 "$dgnn" train --data "$tmp/tgl" --split quantile $small; has "--split: 'quantile' (time, ext_roll)"
# the same edges.csv without its index column and under another name is TGL's too: it was
# read as JODIE by its column count (ext_roll as the label, the graph bipartite, 40 nodes)
cut -d, -f2- "$tmp/tgl/edges.csv" > "$tmp/noidx.csv"
expect_rc 0 "$dgnn" info "$tmp/noidx.csv"; has "format        tgl"; has "ext_roll      240 train, 80 val, 80 test"
cp "$tmp/tgl/edges.csv" "$tmp/idx_renamed.csv"
expect_rc 0 "$dgnn" info "$tmp/idx_renamed.csv"; has "format        tgl"
# blank lines before a JODIE header: it was taken for an edge list and refused
{ printf '\n\n'; head -3 "$tmp/tgl/edges.csv" | awk -F, 'NR == 1 { print "user_id,item_id,timestamp,state_label,f"; next } { print $2 "," $3 "," $4 ",0,0.5" }'; } \
  > "$tmp/blank.csv"
expect_rc 0 "$dgnn" info "$tmp/blank.csv"; has "format        jodie"
# float32's largest value as numpy writes it (3.4028235e+38 rounds to FLT_MAX) is a feature
printf 'user_id,item_id,timestamp,state_label,f\n0,5,1,0,3.4028235e+38\n1,6,2,0,-3.4028235e+38\n' > "$tmp/fmax.csv"
expect_rc 0 "$dgnn" info "$tmp/fmax.csv"
printf 'user_id,item_id,timestamp,state_label,f\n0,5,1,0,3.4028236e+38\n' > "$tmp/fover.csv"
expect_rc 1 "$dgnn" info "$tmp/fover.csv"; has "overflows float32"
# dgnn convert writes .dgnn only: a text format's name is refused before IN is read
expect_rc 2 "$dgnn" convert "$tmp/noidx.csv" "$tmp/out.csv"
has "OUT $tmp/out.csv: dgnn convert writes the binary .dgnn format only, not .csv"
[ -e "$tmp/out.csv" ] && bad "convert wrote out.csv" || ok
awk 'BEGIN { for (i = 0; i < 300; i++) printf "%d %d %d\n", i % 17, 17 + i % 13, i }' > "$tmp/plain.txt"
expect_rc 2 "$dgnn" train --data "$tmp/plain.txt" --split ext_roll $small
has "--split ext_roll: $tmp/plain.txt has no ext_roll column"
expect_rc 0 "$dgnn" train --data "$tmp/plain.txt" $small --out "$tmp/plain.json"
json_has '"split":[[:space:]]*"time"' "$tmp/plain.json"

# ---- dgnn info: the ext_roll counts ----
expect_rc 0 "$dgnn" info "$tmp/tgl"; has "ext_roll      240 train, 80 val, 80 test events"
expect_rc 0 "$dgnn" info --json "$tmp/tgl"
tr -d ' \t\n' < "$tmp/out" | grep -qF '"ext_roll":{"train":240,"val":80,"test":80}' && ok || bad "info --json lacks the ext_roll counts"
expect_rc 0 "$dgnn" info "$tmp/plain.txt"
if grep -qF "ext_roll" "$tmp/out"; then bad "info shows ext_roll for data without it"; else ok; fi

# ---- TGL's .pt tensors: refused with the one-liner, until the .npy is there ----
printf 'PK\003\004' > "$tmp/tgl/edge_features.pt"
expect_rc 1 "$dgnn" info "$tmp/tgl"
has "$tmp/tgl/edge_features.pt: a PyTorch tensor file"
has "numpy.save('edge_features.npy', torch.load('edge_features.pt').float().numpy())"
rm "$tmp/tgl/edge_features.pt"

# ---- TGN / DyGLib processed files (ml_NAME.csv, .npy with a padding row 0) ----
npy_f8() { # npy_f8 PATH ROWS COLS: a float64 .npy of zeros
  local dict="{'descr': '<f8', 'fortran_order': False, 'shape': ($2, $3), }"
  local pad=$((128 - 10 - ${#dict} - 1))
  { printf '\223NUMPY\001\000\166\000%s%*s\n' "$dict" $pad ''; head -c $(($2 * $3 * 8)) /dev/zero; } > "$1"
}
printf ',u,i,ts,label,idx\n0,1,4,0.0,0.0,1\n1,2,5,3.0,0.0,2\n2,3,4,7.0,1.0,3\n' > "$tmp/ml_t.csv"
npy_f8 "$tmp/ml_t.npy" 4 2; npy_f8 "$tmp/ml_t_node.npy" 6 3
expect_rc 0 "$dgnn" info "$tmp/ml_t.csv"; has "format        dyglib"; has "3 events / 5 nodes"; has "node features 3 dims"
expect_rc 0 "$dgnn" convert "$tmp/ml_t.csv" "$tmp/ml_t.dgnn"
expect_rc 0 "$dgnn" info "$tmp/ml_t.dgnn"; has "3 events / 5 nodes"; has "edge features 2 dims"
npy_f8 "$tmp/ml_t.npy" 3 2
expect_rc 1 "$dgnn" info "$tmp/ml_t.csv"; has "ml_t.csv:4: field 'idx'"; has "ml_t.npy (3 rows"
npy_f8 "$tmp/ml_t.npy" 5 2
expect_rc 1 "$dgnn" info "$tmp/ml_t.csv"; has "ml_t.npy has 5 rows"; has "expected 4"
printf ',u,i,time,label,idx\n0,1,4,0.0,0.0,1\n' > "$tmp/ml_h.csv"
expect_rc 1 "$dgnn" info --format dyglib "$tmp/ml_h.csv"; has "ml_h.csv:1: header column 4 is 'time', expected 'ts'"

# ---- TGB edge lists ----
printf 'ts,source,target,weight\n10,b,a,4\n11,a,c,0\n' > "$tmp/tgbl-review_edgelist_v2.csv"
expect_rc 0 "$dgnn" info "$tmp/tgbl-review_edgelist_v2.csv"; has "format        tgb"; has "2 events / 3 nodes"
expect_rc 0 "$dgnn" convert "$tmp/tgbl-review_edgelist_v2.csv" "$tmp/review.dgnn"
printf 'ts,src,dst,weight\n10,b,a,4\n11,a,c,x\n' > "$tmp/tgb_bad.csv"
expect_rc 1 "$dgnn" info "$tmp/tgb_bad.csv"; has "tgb_bad.csv:3: field 'weight' (column 4)"
expect_rc 1 "$dgnn" info --format tgb "$tmp/plain.txt"; has "plain.txt:2: expected at least 4 fields"
expect_rc 2 "$dgnn" info --format tgbx "$tmp/plain.txt"; has "dyglib, tgb"
# ---- dgnn info --json: a PGT file's node features and targets per snapshot, as the text
# says them (the JSON had "node_dim": 0 and no targets) ----
printf '{"time_periods": 2, "0": {"edges": [[0, 1], [1, 2]], "weights": [1, 2], "X": [[1, 2], [3, 4], [5, 6]], "y": [0.5, 1, 2]}, "1": {"edges": [[2, 0]], "weights": [3], "X": [[1, 2], [3, 4], [5, 6]], "y": [1, 1, 1]}}\n' > "$tmp/p.json"
expect_rc 0 "$dgnn" info "$tmp/p.json"; has "node features 2 dims per snapshot"; has "node targets  1 per node per snapshot"
expect_rc 0 "$dgnn" info --json "$tmp/p.json"
tr -d ' \t\n' < "$tmp/out" | grep -qF '"periods":2,"period_node_dim":2,"period_target_dim":1' && ok || bad "info --json: $(tr -d ' \t\n' < "$tmp/out" | head -c 300)"
expect_rc 0 "$dgnn" info --json "$tmp/plain.txt"
tr -d ' \t\n' < "$tmp/out" | grep -qF '"period_node_dim":0,"period_target_dim":0' && ok || bad "info --json of an edge list: $(head -c 300 "$tmp/out")"

# ---- a pipe as the output, and /dev/stdout into one: written through as a FIFO (it was
# "cannot create files in folder /proc/self/fd"); convert's summary then goes to stderr ----
"$dgnn" convert "$tmp/plain.txt" "$tmp/plain.dgnn" > /dev/null
"$dgnn" convert "$tmp/plain.txt" /dev/stdout 2> "$tmp/err" | cat > "$tmp/piped.dgnn"
[ "${PIPESTATUS[0]}" = 0 ] && cmp -s "$tmp/plain.dgnn" "$tmp/piped.dgnn" && ok || bad "convert into a pipe: $(head -c 300 "$tmp/err")"
grep -qF "wrote /dev/stdout" "$tmp/err" && ok || bad "convert into a pipe: no summary on stderr"
"$dgnn" train --data "$tmp/plain.txt" $small --out /dev/stdout 2> "$tmp/err" | head -c 100000 > "$tmp/piped.json"
[ "${PIPESTATUS[0]}" = 0 ] && grep -qF '"model":' "$tmp/piped.json" && ok || bad "train --out /dev/stdout into a pipe: $(head -c 300 "$tmp/err")"

# ---- an absurd snapshot length: told in a readable number; the help gives the bound ----
expect_rc 1 "$dgnn" info --snapshot-seconds 1e-300 "$tmp/plain.txt"; has "use longer snapshots"
[ "$(wc -c < "$tmp/out")" -lt 300 ] && ok || bad "info --snapshot-seconds 1e-300: $(head -c 200 "$tmp/out")"
expect_rc 0 "$dgnn" info --help; has "at most 1048576 snapshots"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
