#!/usr/bin/env bash
# cli_config.sh DGNN: dgnn train --config FILE.yml / --dump-config FILE.yml (issue 17):
# TGL-layout and dgnn: files, the override rule (a flag typed beats the file), the dump
# round trip (same figures), configs/ against the presets, and bad files (unknown key,
# wrong type, malformed YAML, a key given twice, a snapshot model, missing file, a folder,
# what dgnn cannot honour): exit 2 with file, line and key, before any data is read; and
# the event models' flags given to a snapshot model, told as theirs.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
cfgs=$(cd "$(dirname "$0")/../configs" && pwd)
q=(--epochs 1 --max-batches 2 --eval-max-events 200 --quiet)

expect_rc 0 "$dgnn" train --help; has "--config FILE"; has "--dump-config FILE"

# configs/: each file gives the settings of the preset its comment names
for p in "tgn:--model tgn --preset tgl" "jodie:--model jodie --preset tgl" "apan:--model apan" \
         "tgn-paper:--model tgn"; do
  n=${p%%:*}; read -r -a flags <<< "${p#*:}"
  grep -qF -- "\`dgnn train ${p#*:}" "$cfgs/$n.yml" && ok || bad "configs/$n.yml: its comment does not name '${p#*:}'"
  expect_rc 0 "$dgnn" train --config "$cfgs/$n.yml" "${q[@]}" --dump-config "$tmp/c-$n.yml"
  expect_rc 0 "$dgnn" train "${flags[@]}" "${q[@]}" --dump-config "$tmp/p-$n.yml"
  if cmp -s "$tmp/c-$n.yml" "$tmp/p-$n.yml"; then ok; else bad "configs/$n.yml differs from ${p#*:}:"; diff "$tmp/c-$n.yml" "$tmp/p-$n.yml" | head -6; fi
done
cmp -s "$tmp/c-tgn.yml" "$tmp/c-tgn-paper.yml" && bad "tgn.yml and tgn-paper.yml gave the same settings" || ok

# the dgnn: section; the override rule: a flag typed beats the file, the file the defaults
printf 'dgnn:\n  model: jodie\n  batch: 300\n  lr: 3e-4\n  seed: 4\n  no-eval: true\n' > "$tmp/own.yml"
expect_rc 0 "$dgnn" train --config "$tmp/own.yml" "${q[@]}" --batch 100 --dump-config "$tmp/d.yml"
grep -q '^  batch: 100$' "$tmp/d.yml" && ok || bad "--batch 100 typed did not beat the file's batch: 300"
grep -q '^  model: "jodie"$' "$tmp/d.yml" && grep -q '^  lr: 0.0003$' "$tmp/d.yml" && grep -q '^  seed: 4$' "$tmp/d.yml" \
  && grep -q '^  no-eval: true$' "$tmp/d.yml" && ok || bad "the file's settings not taken: $(tr '\n' ' ' < "$tmp/d.yml")"
expect_rc 0 "$dgnn" train --config "$tmp/own.yml" "${q[@]}" --dump-config "$tmp/d2.yml"
grep -q '^  batch: 300$' "$tmp/d2.yml" && ok || bad "the file's batch: 300 not taken"
# the TGL sections lose to the file's dgnn: section
printf 'train:\n  - batch_size: 500\n    lr: 0.001\nmemory:\n  - memory_update: gru\ngnn:\n  - arch: transformer_attention\ndgnn:\n  batch: 250\n' > "$tmp/both.yml"
expect_rc 0 "$dgnn" train --config "$tmp/both.yml" "${q[@]}" --dump-config "$tmp/d3.yml"
grep -q '^  batch: 250$' "$tmp/d3.yml" && grep -q '^  lr: 0.001$' "$tmp/d3.yml" && grep -q '^  preset: "tgl"$' "$tmp/d3.yml" \
  && ok || bad "TGL sections + dgnn: $(tr '\n' ' ' < "$tmp/d3.yml")"
printf 'dgnn:\n  model: edgebank\n' > "$tmp/eb.yml"
expect_rc 0 "$dgnn" train --config "$tmp/eb.yml" --quiet --out "$tmp/eb.json"; grep -q '"model":	"edgebank"' "$tmp/eb.json" && ok || bad "edgebank from a file"

# the dump round trip: the dumped file read back gives the same run (same --out figures);
# the results record the file
strip() { grep -v -E '"(seconds|train_seconds|train_events_per_second|peak_rss_mb|date|command|config_file|commit|dgnn)"' "$1"; }
expect_rc 0 "$dgnn" train --config "$cfgs/tgn.yml" "${q[@]}" --seed 7 --dropout 0.15 --out "$tmp/a.json" --dump-config "$tmp/rt.yml"
expect_rc 0 "$dgnn" train --config "$tmp/rt.yml" --quiet --out "$tmp/b.json"
if [ -s "$tmp/a.json" ] && cmp -s <(strip "$tmp/a.json") <(strip "$tmp/b.json"); then ok; else bad "the dump read back gave another run:"; diff <(strip "$tmp/a.json") <(strip "$tmp/b.json") | head -8; fi
grep -q '"test_ap\|"ap":' "$tmp/b.json" && ok || bad "no test figures in the round trip's results"
grep -qF "\"config_file\":	\"$cfgs/tgn.yml\"" "$tmp/a.json" && ok || bad "config_file: $(grep config_file "$tmp/a.json")"
grep -qF "\"config_file\":	\"$tmp/rt.yml\"" "$tmp/b.json" && ok || bad "config_file: $(grep config_file "$tmp/b.json")"
expect_rc 0 "$dgnn" train "${q[@]}" --out "$tmp/n.json"; grep -q '"config_file":	null' "$tmp/n.json" && ok || bad "config_file without --config"

# bad files: exit 2, the file, the line and the key, before any data is read (--data is missing)
bad_file() { # NAME CONTENT TEXT...: the file's error holds each TEXT
  local name=$1 content=$2; shift 2
  printf '%b' "$content" > "$tmp/$name.yml"
  expect_rc 2 "$dgnn" train --config "$tmp/$name.yml" --data "$tmp/no-such-data.csv" --quiet
  for t in "$@"; do has "$t"; done
  grep -q "no-such-data" "$tmp/out" && bad "$name: the data was read before the file's error" || ok
}
bad_file unknown 'train:\n  - epoch: 3\n    bogus_key: 1\n' "unknown.yml:3: train.bogus_key: unknown key"
bad_file unknown2 'dgnn:\n  epochs: 2\n  frobnicate: 1\n' "unknown2.yml:3: dgnn.frobnicate: unknown key"
bad_file section 'optim:\n  - lr: 1\n' "section.yml:1: optim: unknown section"
bad_file type 'memory:\n  - memory_update: gru\ngnn:\n  - arch: transformer_attention\ntrain:\n  - batch_size: "600"\n' "type.yml:6: train.batch_size: a string ('600') where a number is needed"
bad_file type2 'dgnn:\n  epochs: abc\n' "type2.yml:2: dgnn.epochs: --epochs expects an integer, got 'abc'"
bad_file range 'dgnn:\n  epochs: 5000\n' "range.yml:2: dgnn.epochs: --epochs must be in 1..1024"
bad_file flag 'dgnn:\n  quiet: maybe\n' "flag.yml:2: dgnn.quiet: --quiet is a switch"
bad_file yaml 'train:\n  - epoch: [1, 2\n' "yaml.yml:" "not valid YAML"
# a byte that is not text: its line and column (libyaml gives an offset only: it said 1:1)
bad_file utf8 'dgnn:\n  epochs: 2\n  data: "a\xffb"\n' "utf8.yml:3:11: not valid YAML: invalid leading UTF-8 octet (0xFF)"
bad_file control 'dgnn:\r\n  epochs: 2\r\n\r\n  data: "a\x01b"\r\n' "control.yml:4:11: not valid YAML: control characters are not allowed (0x01)"
# one YAML document: a second one, or text after "...", went unread (its settings dropped)
bad_file multi 'dgnn:\n  batch: 100\n---\ndgnn:\n  batch: 300\n' "multi.yml:3: a second YAML document"
bad_file after_end 'dgnn:\n  batch: 100\n...\ngarbage: [\n' "after_end.yml:4:1: not valid YAML"
printf -- '---\ndgnn:\n  batch: 100\n...\n# the end\n' > "$tmp/one_doc.yml"
expect_rc 0 "$dgnn" train --config "$tmp/one_doc.yml" "${q[@]}" --dump-config "$tmp/d-one.yml"
grep -q '^  batch: 100$' "$tmp/d-one.yml" && ok || bad "an explicit document (--- ...) not read"
bad_file layer 'sampling:\n  - layer: 2\nmemory:\n  - memory_update: gru\ngnn:\n  - arch: transformer_attention\n' \
  "layer.yml:2: sampling.layer: 2: dgnn samples one layer"
bad_file updater 'memory:\n  - memory_update: lstm\ngnn:\n  - arch: identity\n' "updater.yml:2: memory.memory_update: 'lstm': dgnn supports gru (TGN), rnn (JODIE), transformer (APAN)"
bad_file history 'sampling:\n  - history: 3\nmemory:\n  - memory_update: gru\ngnn:\n  - arch: transformer_attention\n' "history.yml:2: sampling.history"
bad_file deliver 'memory:\n  - memory_update: transformer\n    deliver_to: self\ngnn:\n  - arch: identity\n' "deliver.yml:3: memory.deliver_to: 'self': dgnn's apan delivers mails to neighbors"
bad_file conflict 'memory:\n  - memory_update: gru\ngnn:\n  - arch: transformer_attention\ndgnn:\n  model: apan\n' "conflict.yml:6: dgnn.model: 'apan', but the TGL sections describe tgn"
bad_file widths 'memory:\n  - memory_update: gru\n    dim_time: 50\ngnn:\n  - arch: transformer_attention\n    dim_time: 100\n' "widths.yml:6: gnn.dim_time" "one --time-dim"
# a key given twice: refused at its second line (the later value won silently), in the
# dgnn: section, a TGL section and the file's sections
bad_file dup 'dgnn:\n  model: jodie\n  batch: 100\n  batch: 300\n' "dup.yml:4: dgnn.batch: given twice (first on line 3"
bad_file dup_tgl 'train:\n  - batch_size: 100\n    lr: 0.01\n    batch_size: 300\nmemory:\n  - memory_update: gru\ngnn:\n  - arch: transformer_attention\n' \
  "dup_tgl.yml:4: train.batch_size: given twice (first on line 2"
bad_file dup_sec 'dgnn:\n  batch: 100\ntrain:\n  - lr: 0.01\ndgnn:\n  epochs: 2\n' "dup_sec.yml:5: dgnn: given twice (first on line 1"
# a snapshot model in a file: the file's line, and that --config is the event models' (it said
# "unknown model", naming evolvegcn-o among the snapshot models, with no file)
bad_file snapmodel 'dgnn:\n  epochs: 2\n  model: evolvegcn-o\n' \
  "snapmodel.yml:3: dgnn.model: 'evolvegcn-o' is a snapshot model: --config files are for the event models" \
  "dgnn train --model evolvegcn-o --help"
bad_file nomodel 'dgnn:\n  model: tgnn\n' "nomodel.yml:2: dgnn.model: unknown model 'tgnn'"
# every event-model flag that `dgnn train --help` lists and a snapshot model's help does not:
# told as the event models', with where the snapshot model's flags are (it said "unknown option")
"$dgnn" train --help | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p' | sort -u > "$tmp/ev-flags"
"$dgnn" train --model evolvegcn-o --help | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p' | sort -u > "$tmp/snap-flags"
n_only=0
for f in $(comm -23 "$tmp/ev-flags" "$tmp/snap-flags"); do
  n_only=$((n_only + 1))
  expect_rc 2 "$dgnn" train --model evolvegcn-o --data "$tmp/no-such-data.csv" --"$f" 1
  has "--$f is for the event models (TGN, JODIE, DyRep, APAN)"; has "dgnn train --model evolvegcn-o --help"
done
[ "$n_only" -gt 20 ] && ok || bad "only $n_only event-only flags found in the helps"
expect_rc 2 "$dgnn" bench train --model tgcn --data "$tmp/no-such-data.csv" --max-batches=2
has "--max-batches is for the event models"; has "dgnn bench train --model tgcn --help"
expect_rc 2 "$dgnn" train --model gcn --data "$tmp/no-such-data.csv" --bogus-flag 1; has "unknown option '--bogus-flag'"
# a folder, a missing file, an unreadable one, one whose read fails: each said (a folder was
# "not valid YAML: input error")
expect_rc 2 "$dgnn" train --config "$tmp" --quiet; has "--config $tmp: a folder, not a YAML file"
expect_rc 2 "$dgnn" train --config "$tmp/missing.yml" --quiet; has "missing.yml"; has "No such file"
if [ "$(id -u)" != 0 ]; then
  printf 'dgnn:\n  epochs: 1\n' > "$tmp/locked.yml"; chmod 000 "$tmp/locked.yml"
  expect_rc 2 "$dgnn" train --config "$tmp/locked.yml" --quiet; has "--config $tmp/locked.yml: cannot open it: Permission denied"
fi
if [ -e /proc/self/mem ]; then # readable, but its first page is not mapped: the read fails with EIO
  expect_rc 2 "$dgnn" train --config /proc/self/mem --quiet; has "--config /proc/self/mem: cannot read it"
fi
expect_rc 2 "$dgnn" train --config "$cfgs/tgn.yml" --config "$cfgs/apan.yml" --quiet; has "--config given twice"
expect_rc 2 "$dgnn" train --dump-config /no/such/folder/d.yml --quiet; has "--dump-config"

echo "cli_config: $pass passed, $fail failed"
[ "$fail" = 0 ]
