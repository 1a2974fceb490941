#!/usr/bin/env bash
# cli_node.sh DGNN [DATA_DIR]: `dgnn train --task node` (dynamic node classification,
# event_node.h) through the command: a quick run on the built-in stream writes the "node"
# JSON object (decoder, epochs, test AUC); data without labels is refused naming the file;
# node flags without --task node, an unknown task, and --task node under --dist are refused
# before any work; --max-batches / --eval-max-events cut the decoder's periods; --node-lr's
# range.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"

small="--mem-dim 8 --time-dim 4 --neighbors 2 --threads 1 --quiet"
# shellcheck disable=SC2086
expect_rc 0 "$dgnn" train --task node --epochs 1 --max-batches 3 --eval-max-events 500 --node-epochs 2 \
    --node-batch 500 $small --out "$tmp/n.json"
has "node classification: test AUC"; has "node epoch 2: decoder loss"
grep -q '"task":	"node"' "$tmp/n.json" && ok || bad "task in the JSON"
grep -q '"node":	{' "$tmp/n.json" && grep -q '"test_auc":' "$tmp/n.json" && grep -q '"hidden":	\[80, 10\]' "$tmp/n.json" \
    && ok || bad "node object: $(tr -d '\n\t' < "$tmp/n.json" | head -c 600)"
# the quick-run flags cut the decoder's periods too: 3 batches of 500, the first 500 events
# of validation and test (the built-in stream has 42,000 / 9,000 / 9,000)
has "over 500 test events"; has "at most 3 batches per epoch, the first 500 events per split"
node=$(sed -n '/"node":/,$p' "$tmp/n.json" | tr -d '\n\t ')
case $node in *'"train_events":1500,"val_events":500,"test_events":500,'*) ok ;;
  *) bad "the decoder's periods not cut by --max-batches / --eval-max-events: $(echo "$node" | head -c 400)" ;; esac
case $node in *'"max_batches":3,"eval_max_events":500,'*) ok ;; *) bad "decoder max_batches / eval_max_events" ;; esac
# link (the default) writes no node object
# shellcheck disable=SC2086
expect_rc 0 "$dgnn" train --epochs 1 --max-batches 2 --eval-max-events 200 $small --out "$tmp/l.json"
grep -q '"task":	"link"' "$tmp/l.json" && ! grep -q '"node":' "$tmp/l.json" && ok || bad "link JSON"
# no labels: the file is named
printf '0 1 10\n1 2 20\n2 0 30\n0 2 40\n1 0 50\n2 1 60\n0 1 70\n1 2 80\n2 0 90\n0 2 100\n' > "$tmp/nolabel.txt"
# shellcheck disable=SC2086
expect_rc 2 "$dgnn" train --task node --data "$tmp/nolabel.txt" --epochs 1 $small
has "nolabel.txt has no event labels"
expect_rc 2 "$dgnn" train --node-epochs 3 --epochs 1 --quiet; has "go with --task node"
expect_rc 2 "$dgnn" train --task nodes --epochs 1 --quiet; has "--task: 'nodes' (link, node)"
expect_rc 2 "$dgnn" train --task node --dist strict --epochs 1 --quiet; has "one process"
"$dgnn" train --help > "$tmp/out" 2>&1; has "--task"; has "--node-epochs"
# --node-lr: the help's range (0, 1] (the library's check is the same: test_event_node)
has "the decoder's Adam learning rate (3e-4); in [1.17549e-38, 1]"
expect_rc 2 "$dgnn" train --task node --node-lr 1.5 --epochs 1 --quiet; has "--node-lr must be in [1.17549e-38, 1] (got 1.5)"
echo "cli_node: $pass passed, $fail failed"
[ "$fail" = 0 ]
