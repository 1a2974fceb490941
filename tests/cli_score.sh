#!/usr/bin/env bash
# cli_score.sh DGNN DATA_DIR: dgnn eval --score-at CSV --score-out NPY: the link
# predictor's probabilities of given (src, dst, time) pairs from the memory the evaluation
# ended with, as float32 (n) .npy, one per line; bad lines refused naming file:line:field.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
py=""
for c in python3 /usr/bin/python3; do
  if command -v "$c" > /dev/null 2>&1 && "$c" -c "import numpy" > /dev/null 2>&1; then py=$c; break; fi
done
[ -n "$py" ] || { echo "skip: a python3 with numpy (to read the .npy) absent"; exit 77; }

expect_rc 0 "$dgnn" gen --out "$tmp/s.csv" --events 3000 --nodes 200 --bipartite 1 --edge-dim 4 --seed 3
expect_rc 0 "$dgnn" train --data "$tmp/s.csv" --epochs 2 --seed 1 --batch 200 --mem-dim 16 --time-dim 8 --quiet \
  --checkpoint "$tmp/ck" --out "$tmp/train.json"
# three pairs of nodes of the data (a comment and a blank line skipped), out of time order
src=$(sed -n 2p "$tmp/s.csv" | cut -d, -f1) dst=$(sed -n 2p "$tmp/s.csv" | cut -d, -f2)
dst2=$(sed -n 3p "$tmp/s.csv" | cut -d, -f2)
printf '%s,%s,9000\n# a comment\n\n%s,%s,100.5\n%s,%s,20000\n' "$src" "$dst" "$src" "$dst2" "$dst" "$src" > "$tmp/pairs.csv"
expect_rc 0 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/pairs.csv" --score-out "$tmp/sc.npy" --quiet --out "$tmp/eval.json"
has "wrote 3 scores"
if "$py" -c 'import numpy as np, sys
a = np.load(sys.argv[1])
assert a.shape == (3,) and a.dtype == np.float32, (a.shape, a.dtype)
assert ((a > 0) & (a < 1)).all(), a' "$tmp/sc.npy"; then ok; else bad "scores not 3 float32 in (0, 1)"; fi
# the same scores again (a pure function of the checkpoint)
expect_rc 0 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/pairs.csv" --score-out "$tmp/sc2.npy" --quiet
if cmp -s "$tmp/sc.npy" "$tmp/sc2.npy"; then ok; else bad "scores differ between two runs"; fi
# the evaluation's figures are the training run's
if "$py" -c 'import json, sys
a, b = json.load(open(sys.argv[1]))["test"], json.load(open(sys.argv[2]))["test"]
assert abs(a["ap"] - b["ap"]) < 1e-9 and abs(a["auc"] - b["auc"]) < 1e-9, (a, b)' "$tmp/eval.json" "$tmp/train.json"
then ok; else bad "eval's test figures differ from training's"; fi

# bad lines: file:line:field
printf '%s,%s,9000\n%s,x,9\n' "$src" "$dst" "$src" > "$tmp/b1.csv"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/b1.csv" --score-out "$tmp/x.npy" --quiet
has "b1.csv:2: field dst: expected a line 'src,dst,time'"
printf '99999,%s,9000\n' "$dst" > "$tmp/b2.csv"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/b2.csv" --score-out "$tmp/x.npy" --quiet
has "b2.csv:1: field src: node 99999 is not a node of the data"
printf '%s,%s,abc\n' "$src" "$dst" > "$tmp/b3.csv"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/b3.csv" --score-out "$tmp/x.npy" --quiet
has "b3.csv:1: field time:"
printf '%s,%s,1,2\n' "$src" "$dst" > "$tmp/b4.csv"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/b4.csv" --score-out "$tmp/x.npy" --quiet
has "b4.csv:1: field time:"
printf '# nothing\n' > "$tmp/b5.csv"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/b5.csv" --score-out "$tmp/x.npy" --quiet
has "no 'src,dst,time' line"
expect_rc 1 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/none.csv" --score-out "$tmp/x.npy" --quiet
has "--score-at $tmp/none.csv"
[ ! -e "$tmp/x.npy" ] && ok || bad "a refused run wrote --score-out"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --score-at "$tmp/pairs.csv" --quiet; has "go together"
expect_rc 2 "$dgnn" train --score-out "$tmp/x.npy"; has "dgnn eval's"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
