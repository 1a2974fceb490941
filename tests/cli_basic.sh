#!/usr/bin/env bash
# cli_basic.sh DGNN DATA_DIR: the dgnn command end to end: help, flag errors, gen ->
# info -> convert -> info round trip, bad input (clear message, non-zero exit, no
# crash), and the counts of the shared datasets (skipped when absent).
set -u
dgnn=$1
data=${2:-}
. "$(dirname "$0")/lib_cli.sh"

# help and flag errors
expect_rc 0 "$dgnn" --help; has "info"; has "evaluate a checkpoint"
for c in info convert gen bench; do expect_rc 0 "$dgnn" $c --help; has "usage: dgnn"; done
expect_rc 2 "$dgnn"
expect_rc 2 "$dgnn" frobnicate; has "unknown command 'frobnicate'"
expect_rc 2 "$dgnn" train --model bogus; has "unknown model 'bogus'"
expect_rc 2 "$dgnn" train --model tgcn; has "--data"
expect_rc 0 "$dgnn" train --model evolvegcn-o --help; has "EvolveGCN"
# dgnn help COMMAND [...]: that command's --help
expect_rc 0 "$dgnn" help train; has "usage: dgnn train"
expect_rc 0 "$dgnn" help bench train; has "usage: dgnn bench train"
expect_rc 0 "$dgnn" help train --model tgcn; has "Trains a snapshot model"
expect_rc 2 "$dgnn" help frobnicate; has "unknown command 'frobnicate'"
expect_rc 0 "$dgnn" help help; has "usage: dgnn COMMAND"
expect_rc 0 "$dgnn" help -h; has "usage: dgnn COMMAND"
expect_rc 2 "$dgnn" eval; has "--checkpoint DIR is required"
expect_rc 2 "$dgnn" train --model nope; has "unknown model"
expect_rc 2 "$dgnn" train --preset nope; has "unknown preset"
expect_rc 2 "$dgnn" info --frob x.csv; has "unknown option '--frob'"
expect_rc 2 "$dgnn" info --bins; has "--bins needs a value"
expect_rc 2 "$dgnn" info --bins abc x.csv; has "expects an integer, got 'abc'"
expect_rc 2 "$dgnn" info; has "missing argument"
expect_rc 2 "$dgnn" gen --events 10; has "--out FILE is required"
# a standard output that cannot take what is written (a full disk) is an error, not exit 0
if [ -w /dev/full ]; then
  "$dgnn" --help > /dev/full 2> "$tmp/out"; rc=$?
  if [ $rc = 1 ] && grep -q "dgnn --help: cannot write the standard output" "$tmp/out"; then ok
  else bad "dgnn --help > /dev/full: exit $rc"; fi
  "$dgnn" simulate --synthetic 30 --workers 1,2 > /dev/full 2> "$tmp/out"; rc=$?
  if [ $rc = 1 ] && grep -q "dgnn simulate: cannot write the standard output" "$tmp/out"; then ok
  else bad "dgnn simulate > /dev/full: exit $rc"; fi
fi
expect_rc 2 "$dgnn" gen --events -5 --out "$tmp/x.dgnn"; has "events"
expect_rc 2 "$dgnn" gen --wibble 3 --out "$tmp/x.dgnn"; has "dgnn gen: unknown option 'wibble' (see dgnn gen --help)"
expect_rc 2 "$dgnn" gen --intra 2 --out "$tmp/x.dgnn"; has "dgnn gen: option 'intra' must be in [0, 1], got 2"
# each command's own defaults and the ranges it checks (bench gen's stream is the larger)
expect_rc 0 "$dgnn" gen --help; has "--events       100000     number of events; in [0, 1e12]"
expect_rc 0 "$dgnn" bench gen --help; has "--events       10000000   number of events; in [0, 1e12]"
# a negative value typed for a numeric flag is refused, never taken as "use the default"
# (by the option table's range, before any data is read: tests/cli_limits.sh has the rest)
expect_rc 2 "$dgnn" train --epochs -3 --max-batches 1 --quiet; has "--epochs must be in 1..1024 (got -3)"
# float settings in the JSON read as typed (issue 16: not 0.10000000149011612)
expect_rc 0 "$dgnn" train --epochs 1 --max-batches 2 --dropout 0.15 --quiet --out "$tmp/f g.json"
cp "$tmp/f g.json" "$tmp/f.json"
# the run's provenance (issue 16): version, commit, date, the command as typed (quoted)
grep -q '"commit":	"[0-9a-f]\{12\}\(+dirty\)\?"\|"commit":	"unknown"' "$tmp/f.json" && ok || bad "run.commit: $(grep commit "$tmp/f.json")"
grep -q '"date":	"20[0-9-]*T[0-9:]*Z"' "$tmp/f.json" && ok || bad "run.date: $(grep '"date"' "$tmp/f.json")"
grep -qF "\"command\":	\"dgnn train --epochs 1 --max-batches 2 --dropout 0.15 --quiet --out '$tmp/f g.json'\"" "$tmp/f.json" \
    && ok || bad "run.command: $(grep '"command"' "$tmp/f.json")"
grep -q '"dropout":	0.15,' "$tmp/f.json" && grep -q '"lr":	0.0001,' "$tmp/f.json" && ok || bad "float settings in the JSON: $(grep -E 'dropout|"lr"' "$tmp/f.json" | tr -d "\t\n")"
expect_rc 2 "$dgnn" train --lr -0.1 --max-batches 1 --quiet; has "--lr must be in (0, 10] (got -0.1)"
expect_rc 2 "$dgnn" train --dropout -0.5 --max-batches 1 --quiet; has "--dropout must be in [0, 1) (got -0.5)"
expect_rc 2 "$dgnn" train --dist depbloom --window-events -1; has "--window-events must be >= 1"

# gen -> info -> convert -> info: identical figures
expect_rc 0 "$dgnn" gen --events 20000 --nodes 500 --seed 3 --out "$tmp/g.dgnn"; has "20,000 events"
expect_rc 0 "$dgnn" info --json "$tmp/g.dgnn"; has '"events":	20000'; cp "$tmp/out" "$tmp/a.json"
expect_rc 0 "$dgnn" gen --events 20000 --nodes 500 --seed 3 --bipartite --out "$tmp/g.csv"
expect_rc 0 "$dgnn" info "$tmp/g.csv"; has "bipartite     yes"
expect_rc 0 "$dgnn" convert "$tmp/g.csv" "$tmp/g2.dgnn"
expect_rc 0 "$dgnn" info --json "$tmp/g.csv"; sed '/"path"/d;/"format"/d' "$tmp/out" > "$tmp/c.json"
expect_rc 0 "$dgnn" info --json "$tmp/g2.dgnn"; sed '/"path"/d;/"format"/d' "$tmp/out" > "$tmp/d.json"
if cmp -s "$tmp/c.json" "$tmp/d.json"; then ok; else bad "info differs between csv and its .dgnn"; fi

# bad input: clear message naming file, line and field; exit 1; never a crash
printf 'u,i,ts,label\n0,5,1,0\n1,6,abc,0\n' > "$tmp/bad.csv"
expect_rc 1 "$dgnn" info "$tmp/bad.csv"; has "bad.csv:3"; has "timestamp"
printf '1 2 3\n4 5 nan\n' > "$tmp/nan.txt"
expect_rc 1 "$dgnn" info "$tmp/nan.txt"; has "nan.txt:2"
printf '1 2 3\n4 5\n' > "$tmp/short.txt"
expect_rc 1 "$dgnn" info "$tmp/short.txt"; has "short.txt:2"
: > "$tmp/empty.txt"
expect_rc 1 "$dgnn" info "$tmp/empty.txt"; has "empty.txt"
expect_rc 1 "$dgnn" info "$tmp/missing.csv"; has "missing.csv"
head -c 1000 "$tmp/g.dgnn" > "$tmp/trunc.dgnn"
expect_rc 1 "$dgnn" info "$tmp/trunc.dgnn"; has "trunc.dgnn"
printf 'DGNNDATAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' > "$tmp/junk.dgnn"
expect_rc 1 "$dgnn" info "$tmp/junk.dgnn"; has "junk.dgnn"
# named .dgnn but empty or text: the binary reader's words, not an edge list's
: > "$tmp/empty.dgnn"
expect_rc 1 "$dgnn" info "$tmp/empty.dgnn"; has "empty.dgnn: empty file (0 bytes): not a dgnn binary file"
printf '1 2 3\n' > "$tmp/text.dgnn"
expect_rc 1 "$dgnn" info "$tmp/text.dgnn"; has "bad magic: it looks like text"
printf '\xef\xbb\xbf1 2 3\r\n2 3 4.5\r\n' > "$tmp/bom.txt"
expect_rc 0 "$dgnn" info "$tmp/bom.txt"; has "2 events / 3 nodes"
expect_rc 0 "$dgnn" info --columns dst,src,ts "$tmp/bom.txt"; has "2 events / 3 nodes"; has "time span     3 .. 4.5"
expect_rc 1 "$dgnn" info --bipartite "$tmp/bom.txt"; has "declared bipartite"

# a write stopped by a signal: the temporary file goes with it, the exit status is the signal's
mkdir -p "$tmp/sig"
"$dgnn" gen --events 1e9 --out "$tmp/sig/big.dgnn" --progress 0 > /dev/null 2>&1 &
pid=$!
for i in $(seq 100); do ls -A "$tmp/sig" | grep -q "^\.big\.dgnn\.tmp\." && break; sleep 0.05; done
kill -TERM $pid; wait $pid; rc=$?
if [ $rc = 143 ] && [ -z "$(ls -A "$tmp/sig")" ]; then ok
else bad "dgnn gen stopped by SIGTERM: exit $rc, left: $(ls -A "$tmp/sig" | tr '\n' ' ')"; fi
rm -rf "$tmp/sig"

# dgnn bench train: the training time by op family, the shares adding up to the whole
expect_rc 0 "$dgnn" bench train --model tgn --max-batches 8 --threads 1 --quiet
has "training time by op family"; has "dense products"; has "attention"; has "memory commit"; has "other"
share_sum=$(sed -n '/training time by op family/,$p' "$tmp/out" | awk '/ s +[0-9.]+%$/ { s += $(NF) + 0 } END { print s }')
if awk -v s="$share_sum" 'BEGIN { exit !(s >= 99 && s <= 101) }'; then ok; else bad "op shares add up to $share_sum%"; fi
# --step-curve: a row per batch size, in order, each of 7 steps with a positive step time
# and the events/s that time gives (not whether a larger batch took longer: that is a
# timing, and a loaded machine can turn it round)
expect_rc 0 "$dgnn" bench train --model tgn --max-batches 7 --threads 1 --quiet --step-curve 50,400
has "step-time curve (CPU; 7 steps a size"
rows=$(awk '/step-time curve/ { on = 1; next } on && $1 ~ /^[0-9]+$/ && $2 == 7 && $3 + 0 > 0 &&
            ($1 * 1000 / $3 - $5) ^ 2 < (0.01 * $5) ^ 2 { print $1 }' "$tmp/out" | tr '\n' ' ')
if [ "$rows" = "50 400 " ]; then ok; else bad "step-curve rows: '$rows'"; sed 's/^/    /' "$tmp/out" | tail -6; fi
expect_rc 2 "$dgnn" bench train --step-curve 200,0 --data "$tmp/missing.csv"; has "--step-curve: '200,0' is not a list"
expect_rc 2 "$dgnn" train --step-curve 200 --data "$tmp/missing.csv"; has "--step-curve goes with dgnn bench train"

# the shared datasets: exact counts
if [ -n "$data" ] && [ -d "$data" ]; then
  expect_rc 0 "$dgnn" info "$data/wikipedia/wikipedia.csv"; has "wikipedia.csv: 157,474 events / 9,227 nodes"; has "bipartite     yes"
  expect_rc 0 "$dgnn" info "$data/collegemsg/CollegeMsg.txt"; has "CollegeMsg.txt: 59,835 events / 1,899 nodes"
  expect_rc 0 "$dgnn" info --snapshot-seconds 1200000 "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv"
  has "soc-sign-bitcoinalpha.csv: 24,186 events / 3,783 nodes"; has "snapshots     137 (0 empty): 2..1431 events"
  expect_rc 0 "$dgnn" info "$data/pgt/twitter_tennis_rg17.json"; has "40,839 events / 1,000 nodes"
  expect_rc 0 "$dgnn" bench sampler --seconds 0.2 "$data/wikipedia/wikipedia.csv"; has "uniform roots/s"
else
  echo "skip: shared data folder '$data' absent: dataset counts not checked"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
