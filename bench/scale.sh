#!/usr/bin/env bash
# scale.sh: full-size checks of the size limits (opt-in; not part of ctest). Prints each
# command, its exit status, peak RSS and the line that matters, then PASS or FAIL.
#   bench/scale.sh [--skip-big]        DGNN=path/to/dgnn to test another build
# 1. (about 10 GB of disk, up to ~12 GB resident, most of it the file's mapped pages, and
#    3 minutes; --skip-big skips it) a stream of 560,000 events x 4096 edge features:
#    2.29e9 floats (past 2^31), a 9.2 GB .dgnn (past 4 GiB): dgnn info, and dgnn train
#    (tgn, 5 batches) whose test evaluation samples neighbours past event 524,288, where
#    event x feature offsets pass 2^31; its peak RSS must stay below 1.5x the file (the
#    splits share the file's features: 19.9 GB when they were copies, 11.8 GB since).
# 2. requests larger than this machine (RAM + swap), sized from /proc/meminfo, which must
#    be refused at once with "out of memory: SIZE for WHAT": dgnn gen --nodes (the
#    generator's per-node state), bench train --synthetic --events (the in-memory table),
#    and a snapshot model's link evaluation on N nodes whose N x N scores fit but not
#    with the AP's sort (24 bytes a pair). Before the checks these were granted by malloc
#    and killed by the OOM killer while filled; each runs here under ulimit -v of 3/4 of
#    the machine, so that a build without the checks fails its malloc (and this script
#    says FAIL) instead of taking the machine.
# 3. (about 10 GB resident, 15 s; skipped without mpirun, with --skip-big, or on a machine
#    of less than 16 GB) the comm module's variable-size exchanges past MPI's int counts:
#    2 ranks of test_comm --big 1.2e9, an all-gather-v and an all-to-all-v whose layouts
#    are 2.4e9 bytes, every byte checked (before, an assertion ended the job).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dgnn=${DGNN:-$root/build/dgnn}
[ -x "$dgnn" ] || { echo "scale.sh: $dgnn not built (scripts/build.sh build, or DGNN=...)" >&2; exit 2; }
big=1
[ "${1:-}" = "--skip-big" ] && big=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dgnn-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

# run NAME EXPECT_RC PATTERN CMD...: runs CMD, shows rc, peak RSS, seconds and the line
# matching PATTERN; PASS when rc == EXPECT_RC and PATTERN is found in the output.
run() {
  local name=$1 want=$2 pat=$3; shift 3
  echo "== $name"
  echo "   \$ $*"
  /usr/bin/time -f "%x %M %e" -o "$tmp/time" "$@" > "$tmp/out" 2>&1
  local rc kb s
  read -r rc kb s < <(tail -1 "$tmp/time")
  grep -q 'terminated by signal' "$tmp/time" && rc=$(grep -o 'signal [0-9]*' "$tmp/time" | head -1)
  local hit
  hit=$(grep -m1 -E "$pat" "$tmp/out")
  echo "   exit $rc, peak RSS $((${kb:-0} / 1024)) MB, ${s:-?} s"
  echo "   ${hit:-$(tail -2 "$tmp/out" | tr '\n' ' ')}"
  local big_rss=0
  [ -n "${max_kb:-}" ] && [ "${kb:-0}" -gt "$max_kb" ] && { big_rss=1; echo "   peak RSS above $((max_kb / 1024)) MB"; }
  if [ "$rc" = "$want" ] && [ -n "$hit" ] && [ "$big_rss" = 0 ]; then echo "   PASS"; else echo "   FAIL"; fails=$((fails + 1)); fi
}

mem_kb=$(awk '/^(MemTotal|SwapTotal):/ {s += $2} END {print s}' /proc/meminfo)
mem=$((mem_kb * 1024))
echo "dgnn: $dgnn; machine memory (RAM + swap): $((mem / 1048576)) MB; files in $tmp"

if [ "$big" = 1 ]; then
  run "gen: 560,000 events x 4096 edge features (2.29e9 floats, 9.2 GB)" 0 "^wrote" \
    "$dgnn" gen --out "$tmp/ef.dgnn" --events 560000 --nodes 50000 --edge-dim 4096 --progress 0
  run "info on it" 0 "edge features +4096" "$dgnn" info "$tmp/ef.dgnn"
  max_kb=$(( $(stat -c %s "$tmp/ef.dgnn") * 3 / 2 / 1024 )) # 1.5x the file
  run "train tgn on it: 5 batches, 60,000 test events (neighbours past event 524,288)" 0 "^test AP" \
    "$dgnn" train --model tgn --data "$tmp/ef.dgnn" --epochs 1 --max-batches 5 --eval-max-events 60000 \
    --eval-negatives 0 --quiet
  max_kb=
  rm -f "$tmp/ef.dgnn"
fi

cap=$((mem_kb * 3 / 4))
nodes=$((mem / 60)) # ~93 bytes of generator state a node: 1.5x the machine
[ "$nodes" -gt 2147483647 ] && nodes=2147483647
run "gen --nodes $nodes (the generator's state: 1.5x the machine)" 1 "out of memory: .* for gen: the generator's state" \
  bash -c "ulimit -v $cap; exec \"\$@\"" - "$dgnn" gen --out "$tmp/n.dgnn" --events 10 --nodes "$nodes" --progress 0
events=$((mem / 18)) # 20 bytes an event: 1.1x the machine
run "bench train --synthetic --events $events (the in-memory table: 1.1x the machine)" 1 "out of memory: .* events" \
  bash -c "ulimit -v $cap; exec \"\$@\"" - "$dgnn" bench train --model gcn --synthetic 20 --nodes 3000 \
  --events "$events" --quiet
n=$(awk -v m="$mem" 'BEGIN {printf "%d", sqrt(m / 16)}') # 8 bytes a pair: half; 24: 1.5x
run "gen a stream of $n nodes for the link evaluation" 0 "^wrote" \
  "$dgnn" gen --out "$tmp/pairs.dgnn" --events 300000 --nodes "$n" --progress 0
run "train gcn on $n nodes: all $n x $n pairs scored (1.5x the machine with the AP's sort)" 1 \
  "out of memory: .* node pairs" \
  bash -c "ulimit -v $cap; exec \"\$@\"" - "$dgnn" train --model gcn --data "$tmp/pairs.dgnn" --snapshots 20 \
  --window 2 --max-windows 1 --epochs 1 --hidden 8 --cls-hidden 8 --skip-val-epochs 0 --quiet

test_comm=$(dirname "$dgnn")/test_comm
if [ "$big" = 1 ] && command -v mpirun > /dev/null && [ -x "$test_comm" ] && [ "$mem_kb" -ge 16000000 ]; then
  asroot=; [ "$(id -u)" = 0 ] && asroot=--allow-run-as-root
  run "2 ranks exchange 1.2e9 bytes each (layouts of 2.4e9 bytes, past MPI's int counts)" 0 " passed, 0 failed" \
    mpirun $asroot --oversubscribe -np 2 "$test_comm" --big 1.2e9
else
  echo "== skip: the exchanges past MPI's int counts (need mpirun, $test_comm, 16 GB and no --skip-big)"
fi

echo "scale.sh: $fails failed"
[ "$fails" = 0 ]
