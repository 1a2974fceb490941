#!/usr/bin/env bash
# cli_odd_data.sh DGNN: data that is valid but unusual gets a result or a clear refusal,
# never figures of a model gone NaN printed as results (they printed "test AP 0.5000
# AUC 0.5000" and exit 0: the ReLUs turned a NaN into 0, so the loss stayed finite).
#  1. JODIE on a stream that starts at t = -1: its time projection (t - t_mem) / (t + 1)
#     divided by zero; negative times are refused for JODIE (a stream, dgnn eval's query
#     times), accepted by TGN;
#  2. time gaps beyond float32's range (times ~1e40) and edge features of 1e30: NaN
#     memories or embeddings now reach the loss, whose check stops the run (exit 1), and
#     gradients that overflow float32 under a finite loss stop it at the optimizer step;
#  3. edge classification whose training labels are all of one class: refused (it printed
#     the minority class's F1 0.0000 for a class the data never had).
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
small="--epochs 1 --batch 50 --mem-dim 8 --time-dim 4 --emb-dim 8 --quiet --threads 2 --eval-max-events 200"

# a bipartite stream of 600 events, times 0..599 shifted by $1 and scaled by $2, with
# two edge features ($3: the first feature's value)
stream() {
  awk -v sh="$1" -v sc="$2" -v f="$3" 'BEGIN { srand(7); print "u,i,ts,label,f1,f2";
    for (i = 0; i < 600; i++) { u = int(rand() * 40); printf "%d,%d,%.17g,0,%s,%d\n", u, 40 + (u * 3 + int(rand() * 3)) % 30, (i + sh) * sc, f, i % 2 } }'
}
nan_free() { # the run's output has no "AP 0.5000  AUC 0.5000" (the figures of a NaN model)
  if grep -q "AP 0.5000  AUC 0.5000" "$tmp/out"; then bad "$1: NaN model's figures printed"; tail -3 "$tmp/out"; else ok; fi
}

# ---- 1. JODIE and negative times ----------------------------------------------------------
stream -1 1 0.5 > "$tmp/m1.csv"      # starts at t = -1
stream -1000 1 0.5 > "$tmp/neg.csv"  # all negative
for f in m1 neg; do
  expect_rc 1 "$dgnn" train --model jodie --data "$tmp/$f.csv" $small
  has "jodie needs timestamps >= 0"
done
expect_rc 0 "$dgnn" train --model tgn --data "$tmp/neg.csv" $small --neighbors 3; has "test AP"
# dgnn eval's embedding and score times below 0: the same division, refused for JODIE
stream 0 1 0.5 > "$tmp/pos.csv"
expect_rc 0 "$dgnn" train --model jodie --data "$tmp/pos.csv" $small --checkpoint "$tmp/jck"
expect_rc 1 "$dgnn" eval --checkpoint "$tmp/jck" --data "$tmp/pos.csv" --emb-time -1 --emb-out "$tmp/e.npy" --quiet
has "embedding request 1 asks for time -1: jodie needs times >= 0"
printf '1,41,10\n1,41,-1\n' > "$tmp/q.csv"
expect_rc 1 "$dgnn" eval --checkpoint "$tmp/jck" --data "$tmp/pos.csv" --score-at "$tmp/q.csv" --score-out "$tmp/s.csv" --quiet
has "score request 2 asks for time -1"
expect_rc 0 "$dgnn" eval --checkpoint "$tmp/jck" --data "$tmp/pos.csv" --emb-time 700 --emb-out "$tmp/e.npy" --quiet

# ---- 2. NaN inside the model reaches the loss's check -----------------------------------
stream 1 1e37 0.5 > "$tmp/tbig.csv"  # time gaps of 1e37..6e39: beyond float32 (3.4e38)
for m in tgn dyrep apan jodie; do
  nb="--neighbors 3"; [ $m = jodie ] && nb=
  expect_rc 1 "$dgnn" train --model $m --data "$tmp/tbig.csv" $small $nb
  has "the loss is not finite"; nan_free "$m, times ~1e39"
done
stream 0 1 1e30 > "$tmp/fbig.csv"    # an edge feature of 1e30
expect_rc 1 "$dgnn" train --model tgn --data "$tmp/fbig.csv" $small --neighbors 3 --epochs 2
stopped() { # the loss's check or the optimizer step's stopped the run
  if grep -qE "Adam left [0-9]+ of [0-9]+ parameters not finite|the loss is not finite" "$tmp/out"; then ok
  else bad "$1: no message"; tail -2 "$tmp/out"; fi
}
stopped "tgn, features 1e30"; nan_free "tgn, features 1e30"
# both features +-1e30: the loss stayed finite (1e28) while the gradients overflowed, and the
# run went on with NaN parameters: every metric n/a, a NaN checkpoint, exit 0. The optimizer
# step's check stops it at that batch (or the loss's, on a CPU whose rounding differs)
awk 'BEGIN { srand(3); print "u,i,ts,label,f1,f2";
  for (i = 0; i < 600; i++) printf "%d,%d,%d,0,%s,1e30\n", int(rand() * 40), 40 + int(rand() * 30), i, i % 3 ? "1e30" : "-1e30" }' \
  > "$tmp/f2big.csv"
expect_rc 1 "$dgnn" train --model tgn --data "$tmp/f2big.csv" $small --neighbors 3 --max-batches 1 --checkpoint "$tmp/nck" \
  --out "$tmp/n.json"
stopped "tgn, features +-1e30"; nan_free "tgn, features +-1e30"
[ -e "$tmp/n.json" ] && bad "tgn, features +-1e30: --out written" || ok
[ -e "$tmp/nck/checkpoint.dgnnckpt" ] && bad "tgn, features +-1e30: a checkpoint written" || ok
# a snapshot model on node features of 1e30 (PyG-T json): the same check
awk 'BEGIN { srand(5); printf "{\"time_periods\": 8";
  for (p = 0; p < 8; p++) { printf ", \"%d\": {\"edges\": [", p;
    for (e = 0; e < 40; e++) printf "%s[%d, %d]", e ? ", " : "", int(rand() * 20), int(rand() * 20);
    printf "], \"weights\": ["; for (e = 0; e < 40; e++) printf "%s1", e ? ", " : "";
    printf "], \"X\": ["; for (v = 0; v < 20; v++) printf "%s[1e30, %d]", v ? ", " : "", v % 3;
    printf "], \"y\": ["; for (v = 0; v < 20; v++) printf "%s%.2f", v ? ", " : "", rand(); printf "]}" }
  print "}" }' > "$tmp/xbig.json"
expect_rc 1 "$dgnn" train --model evolvegcn-o --task node --data "$tmp/xbig.json" --window 3 --hidden 8 --max-windows 1 --epochs 1 --quiet --threads 2
stopped "evolvegcn-o, node features 1e30"

# a stream at one timestamp: snapshots by time hold every event in one, and the message
# says so (it said "use longer or fewer snapshots", which cannot help)
awk 'BEGIN { srand(6); for (i = 0; i < 600; i++) printf "%d %d 1 1000\n", int(rand() * 30), int(rand() * 30) }' > "$tmp/t1.txt"
expect_rc 1 "$dgnn" train --model evolvegcn-o --data "$tmp/t1.txt" --snapshots 20 --window 3 --epochs 1 --quiet --threads 2
has "all 600 events share the timestamp 1000, so snapshots by time hold them in one"

# ---- 3. edge classification with one class in training -----------------------------------
awk 'BEGIN { srand(4); for (i = 0; i < 600; i++) printf "%d %d %d %d\n", int(rand() * 30), int(rand() * 30), 1 + int(rand() * 5), int(i / 30) }' \
  > "$tmp/rpos.txt"
expect_rc 1 "$dgnn" train --model evolvegcn-o --task edge --data "$tmp/rpos.txt" --snapshots 20 --window 2 --epochs 1 --quiet --threads 2
has "edge labels are all of class 1 (positive ratings)"
# training alone (no F1 to measure) still runs
expect_rc 0 "$dgnn" train --model evolvegcn-o --task edge --data "$tmp/rpos.txt" --snapshots 20 --window 2 --epochs 1 --quiet --threads 2 --no-eval

# ---- 4. a snapshot run that never validates says so ------------------------------------
# (every epoch within --skip-val-epochs: it said "best validation epoch 0 of 1")
expect_rc 0 "$dgnn" train --model evolvegcn-o --data "$tmp/rpos.txt" --snapshots 20 --window 2 --epochs 1 --skip-val-epochs 1 --quiet --threads 2
has "(the last of 1 epochs: none was validated, --skip-val-epochs 1)"
expect_rc 0 "$dgnn" train --model evolvegcn-o --data "$tmp/rpos.txt" --snapshots 20 --window 2 --epochs 1 --skip-val-epochs 0 --quiet --threads 2
has "(best validation epoch 1 of 1)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
