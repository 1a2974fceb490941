#!/usr/bin/env bash
# cli_protocols.sh DGNN DATA_DIR: the evaluation protocols end to end (README, "Evaluation").
#  1. TGB's ranking by hand: EdgeBank (scores 0/1, so ties everywhere) on a 20-event stream
#     whose lists the test writes itself; MRR and Hits@k as TGB's tie rule gives them.
#  2. DyGLib's historical and inductive negatives by hand, EdgeBank again.
#  3. Generated lists: written when absent, read back by the next run (same figures); a list
#     of the wrong length is refused naming the file; an output over a list, read or
#     generated, is refused before any work; bad --protocol values.
#  4. dgnn eval: a checkpoint evaluated gives the test figures of the run that wrote it,
#     under every protocol, its settings taken from the checkpoint; --emb-out writes (n,
#     dim) float32; settings that differ from the checkpoint's are refused; eval's own
#     --help; a checkpoint of the built-in stream, and of a 2-rank run (refused with eval's
#     advice).
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
command -v python3 > /dev/null || { echo "skip: python3 (to read the JSON) absent"; exit 77; }
command -v perl > /dev/null || { echo "skip: perl (to write the .npy lists) absent"; exit 77; }

# jq-like: the value at a dotted path of a JSON file ("protocols.tgb.test_mrr")
val() { python3 -c 'import json,sys
x=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): x=x[k]
print(x)' "$1" "$2"; }
near() { # NAME GOT WANT: |got - want| <= 1e-6
  if awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "None" && d <= 1e-6) }'; then ok
  else bad "$1 = $2, want $3"; fi
}
# an int64 .npy of ROWS x COLS values (C order)
npy() { # FILE ROWS COLS values...
  perl -e 'my ($f, $r, $c, @v) = @ARGV; my $h = "{'"'"'descr'"'"': '"'"'<i8'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': ($r, $c), }";
    my $pad = 64 - ((10 + length($h) + 1) % 64); $pad = 0 if $pad == 64; $h .= " " x $pad . "\n";
    open(my $o, ">", $f) or die; binmode $o; print $o "\x93NUMPY\x01\x00" . pack("v", length($h)) . $h . pack("q<*", @v); close $o' "$@"
}

# ---- 1. TGB's ranking, EdgeBank, batch 1, on a file in tgbl-wiki's layout ----
# (JODIE's csv: user, item, time, label, features; TGB numbers item i as node i + max(user) + 1,
# so users 0..2 are nodes 0..2 and items 0..2 nodes 3..5, the ids the lists below use.)
# t 1..14 train, 15..17 validation, 18..20 test (quantiles 0.70 / 0.85 of 1..20); no new nodes
{
  echo "user_id,item_id,timestamp,state_label,comma_separated_list_of_features"
  for p in "0 3" "1 4" "2 5" "0 3" "1 4" "2 5" "0 4" "1 5" "0 3" "1 4" "2 5" "0 3" "1 4" "2 5" \
           "0 5" "0 3" "2 3" "0 5" "2 4" "1 4"; do echo "$p"; done | awk '{ printf "%d,%d,%d,0,0.5\n", $1, $2 - 3, NR }'
} > "$tmp/tgbl-wiki_edgelist_v2.csv"
# validation rows: (0,5) vs 3,4  (0,3) vs 4,5  (2,3) vs 4,5 (padding -1 at the row end)
npy "$tmp/tgbl-wiki_val_ns.npy" 3 3  3 4 -1  4 5 -1  4 5 -1
# test rows: (0,5) vs 3,4  (2,4) vs 3,5  (1,4) vs 3,0
npy "$tmp/tgbl-wiki_test_ns.npy" 3 2  3 4  3 5  3 0
eb=(train --model edgebank --data "$tmp/tgbl-wiki_edgelist_v2.csv" --batch 1 --quiet --eval-negatives 1)
# the lists are found beside the data (its name without _edgelist_v2.csv)
expect_rc 0 "$dgnn" "${eb[@]}" --protocol tgb,dyglib --out "$tmp/eb.json"
has "TGB one-vs-many"; has "historical"; has "validation negatives: $tmp/tgbl-wiki_val_ns.npy (3 candidates per positive)"
# EdgeBank scores 1 for a pair seen before (training, then every evaluated event), else 0;
# rank = 1 + (#{neg > pos} + #{neg >= pos}) / 2.
# val:  (0,5)=0 vs 1,1 -> 3;  (0,3)=1 vs 1,1 (0,5 now seen) -> 2;  (2,3)=0 vs 0,1 -> 2.5
near "val MRR" "$(val "$tmp/eb.json" protocols.tgb.val_mrr)" "$(awk 'BEGIN { print (1/3 + 1/2 + 1/2.5) / 3 }')"
# test: (0,5)=1 vs 1,1 -> 2;  (2,4)=0 vs 1,1 -> 3;  (1,4)=1 vs 0,0 -> 1
near "test MRR" "$(val "$tmp/eb.json" protocols.tgb.test_mrr)" "$(awk 'BEGIN { print (1/2 + 1/3 + 1) / 3 }')"
near "Hits@1" "$(val "$tmp/eb.json" 'protocols.tgb.test_hits@1')" "$(awk 'BEGIN { print 1/3 }')"
near "Hits@3" "$(val "$tmp/eb.json" 'protocols.tgb.test_hits@3')" 1
near "val candidates" "$(val "$tmp/eb.json" protocols.tgb.val_candidates)" 3
has "test MRR 0.6111  Hits@1 0.3333  Hits@3 1.0000  Hits@10 1.0000; val MRR 0.4111" # the printed summary

# ---- 2. DyGLib's strategies, EdgeBank, batch 1 ----
# Every historical negative edge of a test batch is an edge seen before: EdgeBank scores it
# 1. Test positives score 1, 0, 1, so the batches' AP are 0.5 (tie), 0.5 (below: AP of one
# positive ranked last of two), 0.5, and AUC 0.5, 0, 0.5. The inductive edges (seen after
# training, not in the batch: (2,3) and (0,5) from validation) are seen too: the same figures.
for s in historical inductive; do
  near "$s AP" "$(val "$tmp/eb.json" protocols.dyglib.$s.transductive.ap)" 0.5
  near "$s AUC" "$(val "$tmp/eb.json" protocols.dyglib.$s.transductive.auc)" "$(awk 'BEGIN { print 1/3 }')"
done
# no node is new (every node trains): the inductive setting has no events
if [ "$(val "$tmp/eb.json" protocols.dyglib.historical.inductive.ap)" = None ]; then ok; else bad "inductive setting not empty"; fi

# ---- 3. generated lists, refused lists, flags ----
"$dgnn" gen --events 3000 --nodes 120 --seed 5 --bipartite --out "$tmp/g.csv" > /dev/null 2>&1 || bad "gen"
expect_rc 0 "$dgnn" train --model edgebank --data "$tmp/g.csv" --quiet --protocol tgb --tgb-negatives "$tmp/gen" --tgb-k 20 --out "$tmp/g1.json"
has "generated TGB-style"
# EdgeBank trains nothing: no epoch and no training speed in its lines
has "(EdgeBank: no epochs)"; if grep -q "events/s\|after epoch" "$tmp/out"; then bad "EdgeBank: epoch or speed lines"; else ok; fi
if [ -s "$tmp/gen_val_ns.npy" ] && [ -s "$tmp/gen_test_ns.npy" ]; then ok; else bad "generated lists not written"; fi
expect_rc 0 "$dgnn" train --model edgebank --data "$tmp/g.csv" --quiet --protocol tgb --tgb-negatives "$tmp/gen" --out "$tmp/g2.json"
has "test negatives: $tmp/gen_test_ns.npy (20 candidates per positive)"
near "same list, same MRR" "$(val "$tmp/g2.json" protocols.tgb.test_mrr)" "$(val "$tmp/g1.json" protocols.tgb.test_mrr)"
# the lists are in the output check, before any work: an output over a list --tgb-negatives
# reads is refused (the list kept), and one over a list the run would generate
cp "$tmp/gen_test_ns.npy" "$tmp/gen_test.before"
expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --quiet --protocol tgb --tgb-negatives "$tmp/gen" --out "$tmp/gen_test_ns.npy"
has "--out $tmp/gen_test_ns.npy is the file --tgb-negatives reads: writing it would destroy the input"
if cmp -s "$tmp/gen_test.before" "$tmp/gen_test_ns.npy"; then ok; else bad "--out over a TGB list: the list replaced"; fi
expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --quiet --protocol tgb --tgb-negatives "$tmp/new" --out "$tmp/new_val_ns.npy"
has "--out $tmp/new_val_ns.npy and --tgb-negatives $tmp/new_val_ns.npy are the same file: one would overwrite the other"
if [ ! -e "$tmp/new_val_ns.npy" ] && [ ! -e "$tmp/new_test_ns.npy" ]; then ok; else bad "a refused run generated its TGB lists"; fi
npy "$tmp/short_val_ns.npy" 2 1  3 4
cp "$tmp/gen_test_ns.npy" "$tmp/short_test_ns.npy"
expect_rc 1 "$dgnn" train --model edgebank --data "$tmp/g.csv" --quiet --protocol tgb --tgb-negatives "$tmp/short"
has "short_val_ns.npy"
expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --protocol bogus; has "--protocol: 'bogus'"
for l in "" "tgn," ",dyglib" "tgn,,dyglib"; do expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --protocol "$l"; has "no empty entry"; done
expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --tgb-k 5; has "go with --protocol tgb"
expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --checkpoint "$tmp/ck0"; has "trains nothing"
expect_rc 2 "$dgnn" train --model edgebank --data "$tmp/g.csv" --no-eval; has "with --no-eval it would do nothing"
# a refusal shared by train, bench train and eval names the command given
expect_rc 2 "$dgnn" bench train --resume; has "dgnn bench train: --resume needs --checkpoint DIR"
expect_rc 2 "$dgnn" bench train --model bogus; has "dgnn bench train: --model: unknown model 'bogus'"
expect_rc 2 "$dgnn" train --protocol tgb --max-batches 1; has "--tgb-negatives PREFIX"

# ---- 4. dgnn eval ----
run=(--model tgn --data "$tmp/g.csv" --epochs 2 --batch 100 --mem-dim 16 --time-dim 8 --emb-dim 16 --threads 1
     --quiet --protocol tgn,dyglib,tgb --tgb-negatives "$tmp/gen")
expect_rc 0 "$dgnn" train "${run[@]}" --checkpoint "$tmp/ck" --out "$tmp/t.json"
# the training run's settings come from the checkpoint (paths made absolute: run elsewhere)
(cd / && expect_rc 0 "$dgnn" eval --checkpoint "$tmp/ck" --out "$tmp/e.json" --emb-out "$tmp/emb.npy" --emb-time 1e12)
has "evaluating the model of epoch"; has "the training run's settings from $tmp/ck: --model tgn --data $tmp/g.csv"
for k in test.ap test.auc test.mrr_random protocols.tgb.test_mrr 'protocols.tgb.test_hits@10' \
         protocols.dyglib.historical.transductive.ap protocols.dyglib.inductive.transductive.auc; do
  near "eval $k" "$(val "$tmp/e.json" "$k")" "$(val "$tmp/t.json" "$k")"
done
N=$(val "$tmp/t.json" data.nodes) # every node at one time: N rows of the embedding width
if head -c 128 "$tmp/emb.npy" | grep -aq "'descr': '<f4'.*'shape': ($N, 16)" &&
   [ "$(stat -c %s "$tmp/emb.npy")" = $((128 + N * 16 * 4)) ]; then ok; else bad "--emb-out: not a ($N, 16) float32 .npy"; fi
expect_rc 0 "$dgnn" eval "${run[@]}" --checkpoint "$tmp/ck" --on val
has "memory rebuilt over the training events"
expect_rc 2 "$dgnn" eval --data "$tmp/g.csv"; has "--checkpoint DIR is required"
# a snapshot model's checkpoint is told as such, before any data is read
expect_rc 0 "$dgnn" train --model evolvegcn-o --data "$tmp/g.csv" --snapshots 20 --window 3 --epochs 1 --hidden 8 \
  --cls-hidden 8 --quiet --checkpoint "$tmp/snapck"
expect_rc 1 "$dgnn" eval --checkpoint "$tmp/snapck"; has "is a snapshot model's checkpoint"
grep -q "built-in" "$tmp/out" && bad "eval of a snapshot checkpoint: loaded data first" || ok
expect_rc 1 "$dgnn" eval --mem-dim 32 --emb-dim 32 --checkpoint "$tmp/ck"; has "written with other settings (parameters "; has "mem_dim 16 -> 32, emb_dim 16 -> 32) than these"
printf '5,100\nx,3\n' > "$tmp/at.csv"
expect_rc 2 "$dgnn" eval "${run[@]}" --checkpoint "$tmp/ck" --emb-out "$tmp/e2.npy" --emb-at "$tmp/at.csv"
has "at.csv:2: field node"
expect_rc 2 "$dgnn" train --emb-out "$tmp/x.npy"; has "dgnn eval's"
# a training flag eval does not read: refused unless it repeats the training run's value
expect_rc 0 "$dgnn" eval "${run[@]}" --checkpoint "$tmp/ck" --quiet # the train command reused: --epochs 2
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --epochs 5; has "--epochs 5 is dgnn train's, which dgnn eval does not read"; has "(its --epochs 2)"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --patience 3; has "--patience 3 is dgnn train's"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --comm-timeout 9; has "--comm-timeout 9 is dgnn train's"
printf 'dgnn:\n  epochs: 1\n' > "$tmp/c.yml"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --config "$tmp/c.yml"; has "--config is dgnn train's"
# the split is the training run's whatever --protocol eval runs: tgb dropped from a run
# trained with it (and its saved --tgb-negatives with it), tgb added to one trained without
expect_rc 0 "$dgnn" eval --checkpoint "$tmp/ck" --protocol tgn --out "$tmp/e1.json" --quiet
near "eval without tgb: test AP" "$(val "$tmp/e1.json" test.ap)" "$(val "$tmp/t.json" test.ap)"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ck" --protocol tgn --tgb-k 5; has "go with --protocol tgb"
run1=(--model tgn --data "$tmp/g.csv" --epochs 1 --batch 100 --mem-dim 16 --time-dim 8 --emb-dim 16 --threads 1 --quiet)
expect_rc 0 "$dgnn" train "${run1[@]}" --checkpoint "$tmp/ck1" --out "$tmp/t1.json"
expect_rc 0 "$dgnn" eval --checkpoint "$tmp/ck1" --protocol tgn,tgb --tgb-negatives "$tmp/gen" --out "$tmp/e2.json"
near "eval with tgb added: test AP" "$(val "$tmp/e2.json" test.ap)" "$(val "$tmp/t1.json" test.ap)"
near "eval with tgb added: new-node AP" "$(val "$tmp/e2.json" test.new_node_ap)" "$(val "$tmp/t1.json" test.new_node_ap)"
# eval's help: eval's options, --checkpoint as the input; none of train's own
lacks() { if grep -qF -- "$1" "$tmp/out"; then bad "output has '$1'"; else ok; fi; }
expect_rc 0 "$dgnn" eval --help
has "--checkpoint DIR           the folder a dgnn train --checkpoint DIR run wrote"; has "--emb-out NPY"
for f in "write a checkpoint" "--resume" "--curve FILE" "--plot FILE" "--dist MODE" "--partition" "--node-lr" "--no-eval" "--epochs N"; do
  lacks "$f"
done
# a checkpoint of the built-in stream: eval says it evaluates (not trains) on it; a loading
# flag is told that the checkpoint's run had no --data
expect_rc 0 "$dgnn" train --epochs 1 --max-batches 2 --eval-max-events 200 --mem-dim 8 --time-dim 4 --threads 1 \
  --quiet --checkpoint "$tmp/ckb"
expect_rc 0 "$dgnn" eval --checkpoint "$tmp/ckb" --quiet
has "the checkpoint's run had no --data: evaluating on the built-in synthetic stream"; lacks "training on"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/ckb" --quiet --format edgelist
has "dgnn eval: --format describes the --data file, but the checkpoint's training run had no --data"
# a checkpoint of a 2-rank run: eval's own advice, not the trainer's (mpirun -np, --resume)
if command -v mpirun > /dev/null 2>&1 && ldd "$dgnn" 2> /dev/null | grep -q libmpi; then
  expect_rc 0 timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$dgnn" train --epochs 1 --max-batches 2 \
    --eval-max-events 200 --mem-dim 8 --time-dim 4 --threads 1 --dist strict --checkpoint "$tmp/ckd" --quiet
  expect_rc 1 "$dgnn" eval --checkpoint "$tmp/ckd" --quiet
  has "was written by a 2-rank --dist strict run; dgnn eval reads the checkpoints of one process only"
  lacks "--resume"; lacks "mpirun -np"
else
  echo "skip: eval of a 2-rank checkpoint (no mpirun, or $dgnn built without MPI)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
