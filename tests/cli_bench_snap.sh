#!/usr/bin/env bash
# cli_bench_snap.sh DGNN [DATA_DIR]: `dgnn bench train` for the snapshot models, with
# --data and with --synthetic T (issue #4's synthetic sequence of growing snapshots): the
# printed sequence (T snapshots cut, first and last sizes as the generator's linear rate
# predicts), the bench figures, determinism for the fixed seed, every bad combination
# exiting 2 with a message that names it, and the snapshot length logged for --data with
# --snapshot-seconds and with --snapshots. Small sizes: a few seconds in all.
set -u
dgnn=${1:-${DGNN_BIN:-}}
. "$(dirname "$0")/lib_cli.sh"
[ -x "$dgnn" ] || { echo "skip: no dgnn binary"; exit 77; }

B="$dgnn bench train --model evolvegcn-o"
Q="--epochs 1 --threads 1 --quiet --bench-seconds 0.05"

expect_rc 0 $B --help
has "--synthetic T"; has "3,000 nodes and 500,000 events"; has "--nodes N"; has "--events E"

# T = 40 snapshots of 30 days / 40 = 64800 s from 20,000 events on 400 nodes
expect_rc 0 $B --synthetic 40 --nodes 400 --events 20000 --max-windows 3 $Q
has "synthetic sequence: T 40 (40 snapshots cut) of 64800 s; dgnn gen with nodes 400, events 20000, growth 10, bursts 0, seed 1"
has "on synthetic-T40: 20,000 events"
has "per-sample training time"; has "3 samples): min"; has "SpMM on the largest snapshot"; has "STREAM triad measured now"
# epoch table: epoch 1, 3 samples (--max-windows 3)
if grep -Eq '^1 +[0-9.]+ +3 ' "$tmp/out"; then ok; else bad "epoch table lacks '1 ... 3 samples'"; fi
line=$(grep "synthetic sequence:" "$tmp/out")
# the rate grows linearly from 1 to 10 over the span: snapshot k of T holds E (1 + 9 (k +
# 1/2) / T) / (5.5 T) events in expectation: 101 in the first, 899 in the last (Poisson
# noise about 10 and 30); bursts would put a 10x spike somewhere instead
first=$(echo "$line" | sed -n 's/.*first snapshot \([0-9]*\) events.*/\1/p')
last=$(echo "$line" | sed -n 's/.*; last \([0-9]*\) events.*/\1/p')
if [ -n "$first" ] && [ -n "$last" ] && [ "$first" -ge 60 ] && [ "$first" -le 145 ] && [ "$last" -ge 750 ] \
   && [ "$last" -le 1050 ]; then ok; else bad "first/last snapshot events '$first'/'$last' (want about 101/899)"; fi
# the largest snapshot is one of the last (sizes grow)
big=$(sed -n 's/^SpMM on the largest snapshot (\([0-9]*\),.*/\1/p' "$tmp/out")
if [ -n "$big" ] && [ "$big" -ge 30 ]; then ok; else bad "largest snapshot '$big' is not among the last of 40"; fi
# one seed, one sequence
expect_rc 0 $B --synthetic 40 --nodes 400 --events 20000 --max-windows 1 $Q
if [ "$(grep "synthetic sequence:" "$tmp/out")" = "$line" ]; then ok; else bad "a second run cut another sequence"; fi
# --window 3: the smallest T is 7 (a training sample needs floor((T - 1) * 0.7) > 3)
expect_rc 0 $B --synthetic 7 --window 3 --nodes 200 --events 2000 --max-windows 1 $Q
has "synthetic sequence: T 7 (7 snapshots cut)"

# bad combinations: exit 2 and a message naming the problem
expect_rc 2 $B --synthetic 11; has "need T >= 17"
expect_rc 2 $B --synthetic 16; has "need T >= 17"
expect_rc 2 $B --synthetic 0; has "--synthetic must be in 1..100000 (got 0)"
expect_rc 2 $B --synthetic 6 --window 3; has "need T >= 7"
expect_rc 2 $B --synthetic 40 --data "$tmp/none.txt"; has "not both"
expect_rc 2 "$dgnn" train --model evolvegcn-o --synthetic 40; has "for \`dgnn bench train\` only"
expect_rc 2 $B --synthetic 40 --task edge; has "use --task link"
expect_rc 2 $B --synthetic 40 --snapshot-seconds 10; has "leave out --snapshot-seconds"
expect_rc 2 $B --synthetic 40 --snapshots 40; has "leave out --snapshot-seconds and --snapshots"
expect_rc 2 $B --data "$tmp/none.txt" --nodes 100; has "need --synthetic T"
expect_rc 2 $B --synthetic 40 --events 0; has "--events must be in 1..10000000000 (got 0)"
expect_rc 2 $B --synthetic 40 --nodes 1; has "--nodes must be in 2..100000000 (got 1)"
expect_rc 2 $B; has "--data FILE is required"

# --data as before: a hand-made stream of 30 snapshots of 10 s, no synthetic line
: > "$tmp/ev.txt"
for k in $(seq 0 29); do
  for j in $(seq 0 $((k % 5 + 2))); do echo "$j $((j + 20 + k % 3)) $((k * 10 + 1))" >> "$tmp/ev.txt"; done
done
expect_rc 0 $B --data "$tmp/ev.txt" --snapshot-seconds 10 --window 3 --max-windows 2 $Q
has "per-sample training time"; has "2 samples): min"
if grep -q "synthetic sequence" "$tmp/out"; then bad "--data run printed a synthetic sequence"; else ok; fi
has "snapshots of 10 s"
# --snapshots C: the length the cut uses, the span (1..291) / 29 (it said "snapshots of 0 s")
expect_rc 0 $B --data "$tmp/ev.txt" --snapshots 29 --window 3 --max-windows 1 $Q; has ", 29 snapshots of 10 s, window 3"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
