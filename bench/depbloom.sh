#!/usr/bin/env bash
# depbloom.sh: DepBloom's ablation. For each rank count P and each mode, one run of
#   mpirun -np P dgnn train --dist strict ...                      (the baseline)
#   mpirun -np P dgnn train --dist depbloom --partition ...        (+ technique 1)
#   ... --partition --refine K                                     (+ technique 2)
#   ... --partition --refine K --critical-path                     (+ technique 3)
# and one table row per run: training events/s (all ranks), speedup over strict at the
# same P, test AP, state-row and gradient bytes per epoch, mean cut fraction.
# Not a test: it prints figures; docs/results.md keeps the measured ones.
#
#   bench/depbloom.sh [DATA|synthetic] [RANKS] [EPOCHS] [extra dgnn train flags]
#     DATA       default: wikipedia from the shared data folder; "synthetic" generates a
#                10M-event stream (100,000 nodes, bipartite) into $TMPDIR once and
#                measures training throughput only (--no-eval --max-batches $MAX_BATCHES)
#     RANKS      default "1 2 4"
#     EPOCHS     default 1
#   env: REFINE (4), BATCH (200), WINDOW (10000), THREADS (threads per rank: 2 for one
#        rank, else 1), MAX_BATCHES (synthetic: 150 steps of each rank), REFINE_LR (the
#        learning rate of the --refine runs, which take K times fewer steps; default: the
#        run's --lr, e.g. REFINE_LR=4e-4 scales tgn-paper's 1e-4 linearly with K = 4),
#        REPEAT (1: runs of each row, the modes interleaved; the best events/s is kept, since
#        on a shared machine other jobs only ever slow a run down)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dgnn="$root/build/dgnn"
[ -x "$dgnn" ] || "$root/scripts/build.sh" build
data=${1:-$root/../shared/data/wikipedia/wikipedia.csv}; shift || true
ranks=${1:-"1 2 4"}; shift || true
epochs=${1:-1}; shift || true
K=${REFINE:-4}; B=${BATCH:-200}; WIN=${WINDOW:-10000}
tmp=${TMPDIR:-/tmp}/dgnn-depbloom; mkdir -p "$tmp"
extra=()
if [ "$data" = synthetic ]; then
  data="$tmp/synthetic-10M.dgnn"
  [ -f "$data" ] || "$dgnn" gen --events 10M --nodes 100000 --bipartite 1 --repeat 0.8 --session 0.8 \
      --out "$data" >/dev/null || exit 1
  extra=(--no-eval --max-batches "${MAX_BATCHES:-150}")
elif [ ! -e "$data" ]; then echo "skip: $data not found (shared data folder absent)"; exit 0; fi
command -v mpirun >/dev/null || { echo "skip: mpirun not found"; exit 0; }
mpi="mpirun --allow-run-as-root --oversubscribe"

# field VALUE from a log line
grab() { sed -n "s/.*$1 \([0-9.eE+-]*\).*/\1/p" | head -1; }

printf "%-4s %-22s %12s %8s %8s %12s %12s %6s\n" P mode "events/s" speedup "test AP" "state MB/ep" "grad MB/ep" cut
for P in $ranks; do
  th=${THREADS:-$([ "$P" = 1 ] && echo 2 || echo 1)}
  base=""
  for mode in strict partition refine all; do
    case $mode in
      strict) flags=(--dist strict) ;;
      partition) flags=(--dist depbloom --partition --window-events "$WIN") ;;
      refine) flags=(--dist depbloom --partition --window-events "$WIN" --refine "$K") ;;
      all) flags=(--dist depbloom --partition --window-events "$WIN" --refine "$K" --critical-path) ;;
    esac
    case $mode in refine|all) [ -n "${REFINE_LR:-}" ] && flags+=(--lr "$REFINE_LR") ;; esac
    log="$tmp/$(basename "$data").P$P.$mode.log"
    best=0
    for rep in $(seq 1 "${REPEAT:-1}"); do
      $mpi -np "$P" "$dgnn" train --data "$data" --epochs "$epochs" --batch "$B" --threads "$th" --quiet \
          "${flags[@]}" "${extra[@]}" "$@" >"$log.$rep" 2>&1 || { echo "P=$P $mode: FAILED (see $log.$rep)"; continue; }
      e=$(grab "training:" <"$log.$rep")
      if awk -v a="$e" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$e; cp "$log.$rep" "$log"; fi
    done
    [ -f "$log" ] || continue
    eps=$(grab "training:" <"$log")
    ap=$(grab "test AP" <"$log"); ap=${ap:-n/a}
    st=$(grab "state rows" <"$log"); gr=$(grab "gradients" <"$log")
    cut=$(grab "mean cut fraction" <"$log"); cut=${cut:--}
    [ "$mode" = strict ] && base=$eps
    sp=$(awk -v a="$eps" -v b="$base" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
    label="$mode"; [ "$mode" = refine ] && label="partition+refine $K"; [ "$mode" = all ] && label="all three (K=$K)"
    printf "%-4s %-22s %12s %8s %8s %12s %12s %6s\n" "$P" "$label" "$eps" "$sp" "$ap" "$st" "$gr" "$cut"
  done
done
echo "(batch $B per rank, windows of $WIN events, $epochs epoch(s); logs in $tmp)"
