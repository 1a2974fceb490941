#!/usr/bin/env bash
# cli_event_flags.sh DGNN: a flag that the chosen event model or mode never reads is refused
# (exit 2, naming the flag and where it applies) before any data is read, rather than
# accepted and recorded in --out as if used: --comm-timeout without --dist, --mail-slots
# but for APAN, JODIE's unread attention and sampling settings, EdgeBank's training and
# model settings, bench train's evaluation settings. Typed flags always; a --config file's
# dgnn: section when it sets another value than the preset's (what --dump-config writes
# for an unread setting is the preset's: such a file runs again); TGL's sections never
# (TGL's JODIE.yml sets a dropout JODIE does not have). The flags each model does read
# are accepted, and the presets are never refused.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
missing="$tmp/missing.csv"
lacks() { if grep -qF -- "$1" "$tmp/out"; then bad "output has '$1'"; sed 's/^/    /' "$tmp/out" | head -8; else ok; fi; }

# refused CMD... -- TEXT...: exit 2 before the (missing) data is read, the output holds each TEXT
refused() {
  local cmd=() t
  while [ "$1" != -- ]; do cmd+=("$1"); shift; done; shift
  expect_rc 2 "$dgnn" "${cmd[@]}" --data "$missing" --quiet
  for t in "$@"; do has "$t"; done
  lacks "missing.csv"
}

# ---- typed flags ----------------------------------------------------------------------
refused train --comm-timeout 5 -- "--comm-timeout: a multi-rank setting" "--dist strict or depbloom"
refused train --mail-slots 5 -- "--mail-slots: --model tgn never reads it" "applies to --model apan"
for m in dyrep jodie; do refused train --model $m --mail-slots 5 -- "--mail-slots: --model $m never reads it"; done
for f in "heads 3" "neighbors 7" "dropout 0.3" "sampler uniform" "attention tgl"; do
  read -r -a fv <<< "$f"
  refused train --model jodie --${fv[0]} ${fv[1]} -- "--${fv[0]}: --model jodie never reads it" "applies to --model tgn, dyrep"
done
refused train --model apan --attention tgl -- "--attention: --model apan never reads it" "applies to --model tgn, dyrep"
for f in "lr 0.5" "mem-dim 5" "time-dim 8" "emb-dim 8" "neighbors 3" "heads 1" "dropout 0.3" "mail-slots 3" \
         "epochs 2" "patience 2" "max-batches 2" "sampler uniform"; do
  read -r -a fv <<< "$f"
  refused train --model edgebank --${fv[0]} ${fv[1]} -- "--${fv[0]}: --model edgebank never reads it" "EdgeBank trains nothing"
done
# bench train never evaluates (and EdgeBank trains nothing: nothing to time)
for f in "protocol dyglib" "protocol tgn" "eval-negatives 3" "patience 2" "eval-max-events 300"; do
  read -r -a fv <<< "$f"
  refused bench train --${fv[0]} ${fv[1]} -- "dgnn bench train: --${fv[0]}: dgnn bench train never evaluates"
done
refused bench train --no-eval -- "--no-eval: dgnn bench train never evaluates"
refused bench train --model edgebank -- "--model edgebank trains nothing"
# the form --flag=value too
refused train --model jodie --heads=3 -- "--heads: --model jodie never reads it"

# ---- what each model reads is accepted; the presets are never refused -----------------
expect_rc 0 "$dgnn" gen --events 2000 --nodes 100 --seed 1 --out "$tmp/s.dgnn"
q=(--data "$tmp/s.dgnn" --epochs 1 --max-batches 2 --eval-max-events 300 --quiet)
expect_rc 0 "$dgnn" train --model tgn "${q[@]}" --neighbors 4 --heads 1 --dropout 0.2 --sampler uniform --attention tgl \
  --mem-dim 16 --time-dim 8 --emb-dim 16 --lr 1e-3 --patience 2
expect_rc 0 "$dgnn" train --model dyrep "${q[@]}" --neighbors 4 --heads 1 --dropout 0.2 --sampler uniform --attention tgl
expect_rc 0 "$dgnn" train --model apan "${q[@]}" --neighbors 4 --heads 1 --dropout 0.2 --sampler uniform --mail-slots 3
expect_rc 0 "$dgnn" train --model jodie "${q[@]}" --mem-dim 16 --time-dim 8 --emb-dim 16 --lr 1e-3 --patience 2
expect_rc 0 "$dgnn" train --model edgebank --data "$tmp/s.dgnn" --quiet --batch 100 --seed 2 --negatives all \
  --eval-negatives 3 --eval-max-events 300 --new-node-frac 0.2 --preset tgl
has "test AP"
expect_rc 0 "$dgnn" train --dist strict --comm-timeout 5 "${q[@]}"
expect_rc 0 "$dgnn" bench train --data "$tmp/s.dgnn" --max-batches 2 --quiet --epochs 2 --batch 100
has "training time by op family"; lacks "val AP"

# ---- a config file --------------------------------------------------------------------
# the dgnn: section: refused when it sets an unread setting to another value than the preset's
printf 'dgnn:\n  model: jodie\n  heads: 4\n' > "$tmp/j.yml"
expect_rc 2 "$dgnn" train --config "$tmp/j.yml" --data "$missing" --quiet
has "--heads: --model jodie never reads it"; has "(set by the dgnn: section of $tmp/j.yml)"; lacks "missing.csv"
printf 'dgnn:\n  - model: tgn\n    mail-slots: 3\n' > "$tmp/t.yml" # the section as a list of one
expect_rc 2 "$dgnn" train --config "$tmp/t.yml" --data "$missing" --quiet; has "--mail-slots: --model tgn never reads it"
printf 'dgnn:\n  comm-timeout: 3\n' > "$tmp/c.yml"
expect_rc 2 "$dgnn" train --config "$tmp/c.yml" --data "$missing" --quiet; has "--comm-timeout: a multi-rank setting"
printf 'dgnn:\n  model: jodie\n  heads: 2\n  neighbors: 10\n' > "$tmp/jp.yml" # the preset's values
expect_rc 0 "$dgnn" train --config "$tmp/jp.yml" "${q[@]}"
# a typed flag beats the file, and is refused as typed
expect_rc 2 "$dgnn" train --config "$tmp/jp.yml" --heads 2 --data "$missing" --quiet
has "--heads: --model jodie never reads it"; lacks "dgnn: section"
# --dump-config of every model and of bench train runs again (it writes every setting)
for m in tgn jodie dyrep apan; do
  expect_rc 0 "$dgnn" train --model $m "${q[@]}" --dump-config "$tmp/d-$m.yml"
  expect_rc 0 "$dgnn" train --config "$tmp/d-$m.yml" --quiet
done
expect_rc 0 "$dgnn" train --model edgebank --data "$tmp/s.dgnn" --quiet --dump-config "$tmp/d-eb.yml"
expect_rc 0 "$dgnn" train --config "$tmp/d-eb.yml" --quiet
expect_rc 0 "$dgnn" bench train --data "$tmp/s.dgnn" --max-batches 2 --quiet --dump-config "$tmp/d-b.yml"
expect_rc 0 "$dgnn" bench train --config "$tmp/d-b.yml" --quiet
# TGL's sections never: TGL's own JODIE.yml (its dropout, here a neighbour count as well)
printf 'sampling:\n  - no_sample: True\n    history: 1\n    neighbor:\n      - 20\nmemory:\n  - type: node\n    dim_time: 100\n    deliver_to: self\n    mail_combine: last\n    memory_update: rnn\n    mailbox_size: 1\n    combine_node_feature: True\n    dim_out: 100\ngnn:\n  - arch: identity\n    time_transform: JODIE\ntrain:\n  - epoch: 100\n    batch_size: 600\n    lr: 0.0001\n    dropout: 0.1\n    all_on_gpu: True\n' > "$tmp/tgl-jodie.yml"
expect_rc 0 "$dgnn" train --config "$tmp/tgl-jodie.yml" "${q[@]}"; has "test AP"
cfgs=$(cd "$(dirname "$0")/../configs" && pwd)
for f in tgn jodie apan tgn-paper; do expect_rc 0 "$dgnn" train --config "$cfgs/$f.yml" "${q[@]}"; done

echo "cli_event_flags: $pass passed, $fail failed"
[ "$fail" = 0 ]
