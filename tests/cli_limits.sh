#!/usr/bin/env bash
# cli_limits.sh DGNN: numeric flags are bounded up front, allocation failure is an error,
# degenerate splits are refused (issue 12).
#  1. every numeric flag of every command (found by feeding each option of each --help a
#     non-number) declares a range in --help, and a value just below and just above it
#     is refused with exit 2 and "--FLAG must be ...", before any data is read (DATA is a
#     missing file: a check made after loading would report the file instead), without a
#     crash signal;
#  2. the hostile values of the issue (--threads 100000, --neighbors 1e8, --epochs 100000,
#     ...) fail the same way, fast; configuration errors that need no data too;
#  3. a size that cannot be had (ulimit -v) is "out of memory: X for WHAT", exit 1;
#  4. streams whose split leaves training, validation or test empty are refused by both
#     trainers (they printed "val AP nan" / "train loss nan (0 samples)" and exit 0);
#     absent metrics print n/a and write null.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
missing="$tmp/missing.csv"

# ---- 1. the option tables, from --help ------------------------------------------------
# $1: the command words; the rest of the base arguments follow ("--data $missing" or the
# positional DATA): a flag refused at parse time never reaches them.
sweep() {
  local cmd=$1 base=$2 line flag range lo hi below above n=0
  "$dgnn" $cmd --help > "$tmp/help" 2>&1 || { bad "$cmd --help failed"; return; }
  while IFS= read -r line; do
    flag=$(printf '%s\n' "$line" | sed -n 's/^  --\([a-z0-9-]*\) [A-Z][A-Z0-9_,.]*  .*/\1/p')
    [ -n "$flag" ] || continue
    # numeric: a non-number is refused as such
    timeout 20 "$dgnn" $cmd $base --$flag abc > "$tmp/out" 2>&1
    grep -q -- "--$flag expects a" "$tmp/out" || continue
    n=$((n + 1))
    case "$line" in
      *"; in "*|*"; >"*|*"; <"*) range=${line##*; } ;;
      *) bad "dgnn $cmd --$flag is numeric but its --help shows no range: $line"; continue ;;
    esac
    range=${range#in }
    # the range's ends as numbers, and values just outside them
    read -r lo hi below above <<< "$(printf '%s\n' "$range" | awk '
      function out(l, h, b, a) { print l, h, b, a; exit }
      /^>= / { out($2, "inf", $2 - 1, "") }
      /^> /  { out($2, "inf", $2, "") }
      /^<= / { out("-inf", $2, "", $2 + 1) }
      /^[0-9-]+\.\.[0-9]+$/ { split($0, p, /\.\./); out(p[1], p[2], sprintf("%.0f", p[1] - 1), sprintf("%.0f", p[2] + 1)) }
      /^[[(]/ { s = $0; ol = substr(s, 1, 1) == "("; oh = substr(s, length(s), 1) == ")"
                gsub(/[][(),]/, " ", s); split(s, p, " ")
                out(p[1], p[2], ol ? p[1] : p[1] - 1, oh ? p[2] : p[2] + 1) }
      { out("?", "?", "", "") }')"
    [ "$lo" != "?" ] || { bad "dgnn $cmd --$flag: unreadable range '$range'"; continue; }
    for v in $below $above; do
      local t0=$SECONDS
      timeout 20 "$dgnn" $cmd $base --$flag "$v" > "$tmp/out" 2>&1; local rc=$?
      if [ "$rc" = 2 ] && grep -q -- "--$flag must be" "$tmp/out" && ! grep -q "missing.csv\|built-in" "$tmp/out" &&
         [ $((SECONDS - t0)) -le 5 ]; then ok
      else bad "dgnn $cmd --$flag $v (range $range): exit $rc"; sed 's/^/    /' "$tmp/out" | head -3; fi
    done
  done < "$tmp/help"
  [ "$n" -gt 0 ] || bad "dgnn $cmd: no numeric flag found in --help (the sweep is broken)"
  echo "dgnn $cmd: $n numeric flags"
}
sweep "train" "--data $missing"
sweep "train --model evolvegcn-o" "--data $missing"
sweep "bench train" "--data $missing"
sweep "bench train --model evolvegcn-o" "--data $missing"
sweep "bench sampler" "$missing"
sweep "info" "$missing"
sweep "schedule --model evolvegcn-o --workers 2" "--data $missing"
sweep "simulate" "--data $missing"
sweep "simulate --family event --measured $missing" "--data $missing"

# ---- 2. the issue's hostile values, and checks that need no data ------------------------
hostile() { # expect exit 2 and the text, fast, with no data generated or read
  local t0=$SECONDS want=$1; shift
  timeout 20 "$@" > "$tmp/out" 2>&1; local rc=$?
  if [ "$rc" = 2 ] && grep -qF -- "$want" "$tmp/out" && ! grep -q "built-in\|missing.csv" "$tmp/out" &&
     [ $((SECONDS - t0)) -le 5 ]; then ok
  else bad "exit $rc (want 2, '$want', fast): $*"; sed 's/^/    /' "$tmp/out" | head -4; fi
}
hostile "--threads must be in 1..1024 (got 100000)" "$dgnn" train --threads 100000
hostile "--threads must be in 1..1024 (got -1)" "$dgnn" train --threads -1
hostile "--neighbors must be in 1..1000 (got 100000000)" "$dgnn" train --neighbors 100000000
hostile "--eval-negatives must be in 0..10000 (got 100000000)" "$dgnn" train --eval-negatives 100000000
hostile "--epochs must be in 1..1024 (got 100000)" "$dgnn" train --epochs 100000
hostile "--epochs must be in 1..1024 (got 100000)" "$dgnn" train --model tgcn --data "$missing" --epochs 100000
hostile "--max-batches must be >= 0 (got -1)" "$dgnn" train --max-batches -1
hostile "--max-windows must be >= 0 (got -1)" "$dgnn" train --model wdgcn --data "$missing" --max-windows -1
hostile "--max-batches expects an integer, got '99999999999G'" "$dgnn" train --max-batches 99999999999G
hostile "--lr expects a number, got 'nan'" "$dgnn" train --lr nan
hostile "--dropout expects a number, got 'inf'" "$dgnn" train --dropout inf
hostile "--threads must be in 1..1024 (got 2000)" "$dgnn" bench sampler --threads 2k "$missing"
# combinations that need no data, told before loading
hostile "--heads 3 must divide the attention width 272" "$dgnn" train --data "$missing" --heads 3
hostile "--class-weights: '1e300,1' is not two numbers W0,W1 in [0, 1e6]" \
  "$dgnn" train --model evolvegcn-o --data "$missing" --class-weights 1e300,1
hostile "not both 0" "$dgnn" train --model evolvegcn-o --data "$missing" --class-weights 0,0
# a learning rate whose float32 step is 0 (recorded as 1e-50, nothing trained)
hostile "--lr must be finite and at least 1.17549e-38 (float32's smallest normal number" "$dgnn" train --lr 1e-50
hostile "--lr must be finite and at least 1.17549e-38" "$dgnn" train --model gcn --data "$missing" --lr 1e-50
# both 0 as float32, where the loss weighs (it trained nothing, recorded as [0, 0])
hostile "not both 0" "$dgnn" train --model evolvegcn-o --data "$missing" --class-weights 1e-50,1e-50
hostile "--emb-dim must equal --mem-dim" "$dgnn" train --data "$missing" --model jodie --emb-dim 50
hostile "train + val < 1" "$dgnn" train --model evolvegcn-h --data "$missing" --train-frac 0.8 --val-frac 0.3
# a snapshot flag typed for a task that does not read it (they were accepted and ignored)
hostile "--class-weights is for --task link and edge only, not --task node" \
  "$dgnn" train --model evolvegcn-o --task node --data "$missing" --class-weights 0.3,0.7
for t in node edge; do
  hostile "--negatives is for --task link only, not --task $t" "$dgnn" train --model tgcn --task $t --data "$missing" --negatives 5
  hostile "--neg-all-nodes is for --task link only, not --task $t" \
    "$dgnn" bench train --model evolvegcn-o --task $t --data "$missing" --neg-all-nodes
done
hostile "--snapshot-seconds is for --task link and edge only, not --task node" \
  "$dgnn" train --model evolvegcn-h --task node --data "$missing" --snapshot-seconds 10
hostile "--snapshots is for --task link and edge only, not --task node" \
  "$dgnn" train --model wdgcn --task node --data "$missing" --snapshots 5
# ... but the flags of the task, and the presets' values, are taken: the run gets to the data
for a in "--task link --negatives 5 --neg-all-nodes --class-weights 0.1,0.9 --snapshots 5" \
         "--task edge --class-weights 0.7,0.3 --snapshot-seconds 10" "--task edge" "--task node" \
         "--task link --preset uci" "--task node --window 3 --hidden 8 --lr 0.1 --patience 2"; do
  expect_rc 1 "$dgnn" train --model evolvegcn-o --data "$missing" $a; has "missing.csv"
done
# --config is the event models': told so (it was "unknown option", though dgnn train --help lists it)
hostile "--config is for the event models (TGN, JODIE, DyRep, APAN)" \
  "$dgnn" train --model evolvegcn-o --data "$missing" --config "$tmp/x.yml"
has "see dgnn train --model evolvegcn-o --help"
hostile "--dump-config is for the event models" "$dgnn" train --model gcn --data "$missing" --dump-config="$tmp/x.yml"
has "see dgnn train --model gcn --help"
hostile "--config is for the event models" "$dgnn" bench train --model tgcn --data "$missing" --config "$tmp/x.yml"
has "see dgnn bench train --model tgcn --help"
hostile "option 'events' must be in [0, 1e12]" "$dgnn" gen --events 2e12 --out "$tmp/g.dgnn"
hostile "option 'nodes' must be in [2, 2^31-1]" "$dgnn" gen --nodes 3000000000 --out "$tmp/g.dgnn"
hostile "--workers: expected at most 64 ascending integers in 1..65536" "$dgnn" simulate --synthetic 300 --workers 1,100000
[ ! -e "$tmp/g.dgnn" ] && ok || bad "gen wrote an output for refused options"

# a small stream: 3,000 events over 60 nodes, 30 s apart (some tests train on it)
awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) printf "%d %d %d\n", int(rand() * 60), int(rand() * 60), i * 10 }' \
  > "$tmp/ev.txt"
# a bound that depends on the data: after loading, before anything sized by it
expect_rc 1 "$dgnn" train --data "$tmp/ev.txt" --eval-negatives 1000 --epochs 1 --max-batches 1 --quiet
has "--eval-negatives 1000: this dataset has 60 candidate negatives"

# ---- 3. sizes that cannot be had: an error naming them, never an abort -------------------
# Not under AddressSanitizer: it reserves terabytes of address space (ulimit -v stops it
# from starting) and its allocator aborts where malloc returns NULL; test_base checks the
# sizes past the machine there.
asan=$(ldd "$dgnn" 2>/dev/null | grep -o libasan | head -1)
[ -z "$asan" ] || echo "skip: $dgnn is built with AddressSanitizer: no ulimit -v checks"
# (ulimit -v makes malloc fail fast; past this machine's memory the request is not even tried;
# two threads, so that thread stacks and malloc arenas of a many-core machine fit the limit)
oom() {
  local want=$1; shift
  if [ -n "$asan" ]; then return; fi
  ( ulimit -v 2000000; OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 timeout 60 "$@" --threads 2 ) > "$tmp/out" 2>&1
  local rc=$?
  if [ "$rc" = 1 ] && grep -qF -- "$want" "$tmp/out" && grep -q "out of memory: [0-9.]* [KMGTPE]iB for" "$tmp/out"; then ok
  else bad "exit $rc (want 1, 'out of memory ... $want'): $*"; sed 's/^/    /' "$tmp/out" | tail -4; fi
}
oom "(2 + 1 negatives)) with 100 sampled neighbours each" \
  "$dgnn" train --data "$tmp/ev.txt" --batch 20000 --neighbors 100 --epochs 1 --quiet
# the test's 60 negatives per event: the evaluation's workspace, after an epoch of training
oom "(batch 200 x (2 + 60 negatives))" \
  "$dgnn" train --data "$tmp/ev.txt" --eval-negatives 60 --epochs 1 --max-batches 1 --quiet
oom "APAN's workspace" "$dgnn" train --model apan --data "$tmp/ev.txt" --batch 100000 --mail-slots 1024 --epochs 1 --quiet
# snapshot link prediction scores all N^2 pairs: 30,000 nodes need 6.7 GiB
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "%d %d %d\n", i, (i * 7 + 1) % 30000, i }' > "$tmp/wide.txt"
oom "scoring all 30000 x 30000 node pairs" \
  "$dgnn" train --model evolvegcn-o --data "$tmp/wide.txt" --snapshots 40 --window 2 --epochs 1 --quiet

# ---- 4. degenerate splits ---------------------------------------------------------------
printf '1 2 5\n2 3 5\n3 4 5\n4 1 5\n1 3 5\n' > "$tmp/same.txt"   # one timestamp
printf '1 2 5\n' > "$tmp/one.txt"                                 # one event
printf '1 2 5\n2 3 6\n' > "$tmp/two.txt"                          # two events, two times
expect_rc 1 "$dgnn" train --data "$tmp/same.txt" --epochs 1 --quiet
has "the split leaves no validation events (of 5 events: 5 training, 0 validation, 0 test): all 5 events share the timestamp 5"
expect_rc 1 "$dgnn" train --data "$tmp/one.txt" --epochs 1 --quiet; has "training needs at least 2 events"
expect_rc 1 "$dgnn" train --data "$tmp/two.txt" --epochs 1 --quiet; has "the split leaves no validation events (of 2 events"
expect_rc 1 "$dgnn" train --model jodie --data "$tmp/two.txt" --epochs 1 --quiet; has "leaves no validation events"
# without evaluation only training must be left
expect_rc 0 "$dgnn" train --data "$tmp/two.txt" --epochs 1 --quiet --no-eval; has "training:"
for f in same one two; do
  expect_rc 1 "$dgnn" train --model evolvegcn-o --data "$tmp/$f.txt" --snapshots 3 --window 0 --epochs 1 --quiet
  has "the 1 training sample (0..0) predicts a snapshot with no edges: nothing to learn from"
done
expect_rc 1 "$dgnn" train --model tgcn --data "$tmp/ev.txt" --snapshots 3 --window 0 --epochs 1 --quiet
has "3 snapshots leave no validation sample"
expect_rc 1 "$dgnn" train --model gcn --data "$tmp/ev.txt" --snapshots 12 --window 8 --epochs 1 --quiet
has "leave no training sample"
# validation samples exist but predict empty snapshots: nothing to score (was "val MAP nan")
awk 'BEGIN { for (i = 0; i < 300; i++) printf "%d %d %d\n", i % 20, (i * 3 + 1) % 20, i; print "1 2 1000" }' > "$tmp/gap.txt"
expect_rc 1 "$dgnn" train --model evolvegcn-o --data "$tmp/gap.txt" --snapshots 20 --window 1 --epochs 1 --quiet
has "validation samples"; has "nothing to score"
# absent metrics: n/a on screen, null in the JSON, never nan
expect_rc 0 "$dgnn" train --data "$tmp/ev.txt" --epochs 1 --max-batches 2 --eval-negatives 0 --new-node-frac 0 --quiet \
  --out "$tmp/r.json"
has "MRR n/a"; has "new-node AP n/a"
if grep -q "nan" "$tmp/out"; then bad "a metric printed as nan"; sed 's/^/    /' "$tmp/out" | tail -3; else ok; fi
if grep -q '"mrr_random":[[:space:]]*null' "$tmp/r.json" && grep -q '"new_node_ap":[[:space:]]*null' "$tmp/r.json"; then ok
else bad "absent metrics are not null in the JSON"; grep -A6 '"test"' "$tmp/r.json" | head -8; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
