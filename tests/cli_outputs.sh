#!/usr/bin/env bash
# cli_outputs.sh DGNN DATA_DIR: every command that writes a file follows the output rules
# (include/dgnn/outfile.h), checked the same way for each writer: a device stays a device
# (written through), a symlink is kept and its target written, a FIFO is written through
# (read by cat), a missing folder / a directory / a folder nobody may write is refused
# with exit 2 BEFORE any work (no training lines), a full disk (a 1 MiB tmpfs, as root)
# fails with the OS's words and leaves the previous file and no temporary, and stale
# temporaries of dead processes are removed (a live process's kept). Writers: train --out
# (both trainers), --profile, --window-report, --checkpoint DIR, convert, gen (.dgnn and
# .csv), schedule --svg, simulate --svg / --json, bench gen --out, bench train --out. A
# checkpoint folder: no output over its checkpoint file, no run afresh over a checkpoint,
# one run at a time. "-" is standard output with the file alone on it.
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
root=0; [ "$(id -u)" = 0 ] && root=1
host=$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')
mounts=()
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap "exit 143" TERM INT # so that cleanup (the umount) runs when ctest kills the test

lacks() { if grep -qF -- "$1" "$tmp/out"; then bad "output has '$1'"; sed 's/^/    /' "$tmp/out" | head -8; else ok; fi; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
temps_in() { find "$1" -maxdepth 1 -name '*.tmp.*' | wc -l; }

# devices to write to: as root, private nodes (so that a writer that replaces its target
# could never touch the system's /dev/null); otherwise the system's (not replaceable)
devnull=/dev/null devfull=/dev/full
if [ $root = 1 ]; then
  devnull=$tmp/devnull devfull=$tmp/devfull
  if ! mknod "$devnull" c 1 3 2>/dev/null || ! mknod "$devfull" c 1 7 2>/dev/null || ! echo x > "$devnull" 2>/dev/null; then
    echo "skip: device cases (mknod refused here)"; devnull= devfull=
  fi
fi
# a folder nobody may create files in: /proc for root, a 0555 folder otherwise
rodir=$tmp/ro; mkdir -p "$rodir"; chmod 555 "$rodir"; [ $root = 1 ] && rodir=/proc
# a 1 MiB tmpfs, filled up when a case needs a full disk: root only
full=
if [ $root = 1 ] && mkdir -p "$tmp/full" && mount -t tmpfs -o size=1m tmpfs "$tmp/full" 2>/dev/null; then
  full=$tmp/full; mounts+=("$full")
else
  echo "skip: full-disk cases (need root to mount a tiny tmpfs)"
fi
# fills the tmpfs (what is in it stays)
fill() { rm -f "$full/filler"; dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null; }
unfill() { rm -f "$full/filler"; }
dead_pid() { sh -c 'exit 0' & local p=$!; wait $p; echo $p; }

# args CMD... with @OUT@ replaced by $1 -> array A
subst() { local p=$1; shift; A=(); for x in "$@"; do A+=("${x//@OUT@/$p}"); done; }

# check_writer NAME EXT WORKWORD CMD...: the cases above for the file CMD writes at @OUT@.
# WORKWORD is a word the command prints only once it has worked (never seen when refused).
check_writer() {
  local name=$1 ext=$2 work=$3; shift 3
  local d=$tmp/w_$name; mkdir -p "$d"
  # a new file; nothing else left in the folder
  subst "$d/plain.$ext" "$@"; expect_rc 0 "${A[@]}"
  check "[ -s '$d/plain.$ext' ] && [ \$(temps_in '$d') = 0 ]" "$name: no file, or temporaries left"
  # a device stays a device; a write error on one is reported with the OS's words
  if [ -n "$devnull" ]; then
    subst "$devnull" "$@"; expect_rc 0 "${A[@]}"
    check "[ -c '$devnull' ]" "$name: $devnull is no longer a character device"
    subst "$devfull" "$@"; expect_rc 1 "${A[@]}"; has "No space left on device"
    check "[ -c '$devfull' ]" "$name: $devfull is no longer a character device"
  fi
  # a symlink is kept, its target written; a chain too
  ln -s "real.$ext" "$d/link.$ext"; ln -s "$d/link.$ext" "$d/link2.$ext"
  subst "$d/link2.$ext" "$@"; expect_rc 0 "${A[@]}"
  check "[ -L '$d/link.$ext' ] && [ -L '$d/link2.$ext' ] && [ -s '$d/real.$ext' ]" "$name: symlink replaced or target not written"
  # a dangling symlink into a missing folder: refused before any work
  ln -s "$d/nowhere/x.$ext" "$d/dangling.$ext"
  subst "$d/dangling.$ext" "$@"; expect_rc 2 "${A[@]}"; has "folder $d/nowhere does not exist"; lacks "$work"
  # a FIFO is written through: cat reads what was written
  # (this shell holds a write end while the command runs, so that cat ends when it is
  # closed, whether or not the command opened the FIFO: a failing writer never hangs the test)
  mkfifo "$d/fifo.$ext"; exec 3<> "$d/fifo.$ext"
  cat "$d/fifo.$ext" > "$d/fifo.got" 3>&- & local cat=$!
  subst "$d/fifo.$ext" "$@"; expect_rc 0 "${A[@]}"
  exec 3>&-; wait $cat
  check "[ -p '$d/fifo.$ext' ] && [ -s '$d/fifo.got' ]" "$name: FIFO replaced, or nothing came through it"
  # a missing folder, a directory, a read-only folder: exit 2 before any work
  subst "$d/missing/r.$ext" "$@"; expect_rc 2 "${A[@]}"; has "$d/missing/r.$ext: folder $d/missing does not exist"; lacks "$work"
  mkdir "$d/adir.$ext"
  subst "$d/adir.$ext" "$@"; expect_rc 2 "${A[@]}"; has "is a directory"; lacks "$work"
  subst "$rodir/r.$ext" "$@"; expect_rc 2 "${A[@]}"; has "cannot create files in folder $rodir"; lacks "$work"
  # stale temporaries: a dead process's removed, a live one's (this shell's) kept
  local dp; dp=$(dead_pid)
  : > "$d/.plain.$ext.tmp.$host.$dp"; : > "$d/.plain.$ext.tmp.$host.$$"
  subst "$d/plain.$ext" "$@"; expect_rc 0 "${A[@]}"
  check "[ ! -e '$d/.plain.$ext.tmp.$host.$dp' ] && [ -e '$d/.plain.$ext.tmp.$host.$$' ]" "$name: stale temporary of pid $dp kept, or a live one removed"
  # a full disk: the previous file survives byte for byte, no temporary is left
  if [ -n "$full" ]; then
    printf 'previous %s\n' "$name" > "$full/r.$ext"; fill
    subst "$full/r.$ext" "$@"; expect_rc 1 "${A[@]}"; has "No space left on device"
    check "[ \"\$(cat '$full/r.$ext')\" = 'previous $name' ] && [ \$(temps_in '$full') = 0 ]" "$name: full disk: previous file lost or temporary left"
    unfill; rm -f "$full/r.$ext"
  fi
}

# data: a small stream, as .dgnn and as a JODIE csv
expect_rc 0 "$dgnn" gen --events 3000 --nodes 200 --seed 1 --out "$tmp/s.dgnn"
expect_rc 0 "$dgnn" gen --events 3000 --nodes 200 --seed 1 --bipartite --out "$tmp/s.csv"
ev=(--data "$tmp/s.dgnn" --epochs 1 --quiet --mem-dim 16 --time-dim 16)
snap=(--model evolvegcn-o --data "$tmp/s.dgnn" --snapshots 20 --window 3 --epochs 1 --quiet --hidden 8 --cls-hidden 8)

# --curve: one JSON line per epoch, appended as each ends; --resume goes on appending; a
# FIFO without a reader is refused at once (never a hang)
expect_rc 0 "$dgnn" train "${ev[@]}" --epochs 2 --curve "$tmp/c.jsonl" --checkpoint "$tmp/cck"
check "[ \$(wc -l < '$tmp/c.jsonl') = 2 ] && grep -q '^{\"epoch\":1,\"train_loss\":' '$tmp/c.jsonl' && grep -q '^{\"epoch\":2,' '$tmp/c.jsonl'" "--curve: not one line per epoch"
expect_rc 0 "$dgnn" train "${ev[@]}" --epochs 3 --curve "$tmp/c.jsonl" --checkpoint "$tmp/cck" --resume
check "[ \$(wc -l < '$tmp/c.jsonl') = 3 ] && grep -q '^{\"epoch\":3,' '$tmp/c.jsonl'" "--curve --resume: epoch 3 not appended"
# a resume asking for fewer epochs than the checkpoint holds is refused (it reported all 3
# under a config saying 2), its curve untouched
expect_rc 1 "$dgnn" train "${ev[@]}" --epochs 2 --curve "$tmp/c.jsonl" --checkpoint "$tmp/cck" --resume
has "holds 3 finished epochs, more than --epochs 2"
check "[ \$(wc -l < '$tmp/c.jsonl') = 3 ]" "--curve --resume refused: the curve changed"
# the checkpoint file of --checkpoint DIR is an output of train (and an input of --resume
# and of dgnn eval): another output there is refused before any work, the checkpoint kept
cp "$tmp/cck/checkpoint.dgnnckpt" "$tmp/cck.before"; mkdir -p "$tmp/ck3" "$tmp/sck3"
expect_rc 2 "$dgnn" train "${ev[@]}" --checkpoint "$tmp/ck3" --out "$tmp/ck3/checkpoint.dgnnckpt"
has "--out $tmp/ck3/checkpoint.dgnnckpt is the checkpoint file of --checkpoint $tmp/ck3: one would overwrite the other"
lacks "epoch 1"; check "[ ! -e '$tmp/ck3/checkpoint.dgnnckpt' ]" "--out DIR/checkpoint.dgnnckpt: written"
expect_rc 2 "$dgnn" train "${snap[@]}" --checkpoint "$tmp/sck3" --out "$tmp/sck3/checkpoint.dgnnckpt"
has "--out $tmp/sck3/checkpoint.dgnnckpt is the checkpoint file of --checkpoint $tmp/sck3"
check "[ ! -e '$tmp/sck3/checkpoint.dgnnckpt' ]" "snapshot --out DIR/checkpoint.dgnnckpt: written"
expect_rc 2 "$dgnn" train "${ev[@]}" --epochs 4 --checkpoint "$tmp/cck" --resume --curve "$tmp/cck/checkpoint.dgnnckpt"
has "--curve $tmp/cck/checkpoint.dgnnckpt is the checkpoint file of --checkpoint $tmp/cck"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/cck" --out "$tmp/cck/checkpoint.dgnnckpt"
has "--out $tmp/cck/checkpoint.dgnnckpt is the file --checkpoint reads: writing it would destroy the input"
lacks "evaluating the model"
expect_rc 2 "$dgnn" eval --checkpoint "$tmp/cck" --emb-out "$tmp/cck/checkpoint.dgnnckpt" --emb-time 1e12
has "--emb-out $tmp/cck/checkpoint.dgnnckpt is the file --checkpoint reads"
check "cmp -s '$tmp/cck.before' '$tmp/cck/checkpoint.dgnnckpt'" "an output over the checkpoint file: the checkpoint changed"
# a run afresh (no --resume) never replaces the checkpoint of its folder: refused before
# any work with what to do (both trainers; a file there that is no checkpoint is kept too)
expect_rc 2 "$dgnn" train "${ev[@]}" --checkpoint "$tmp/cck"
has "$tmp/cck holds a checkpoint of 3 epochs of tgn: add --resume to continue it, or give another --checkpoint folder, or remove $tmp/cck/checkpoint.dgnnckpt"
lacks "epoch 1"; check "cmp -s '$tmp/cck.before' '$tmp/cck/checkpoint.dgnnckpt'" "a run afresh: the checkpoint replaced"
expect_rc 0 "$dgnn" train "${snap[@]}" --checkpoint "$tmp/sck"; cp "$tmp/sck/checkpoint.dgnnckpt" "$tmp/sck.before"
expect_rc 2 "$dgnn" train "${snap[@]}" --checkpoint "$tmp/sck"; has "$tmp/sck holds a checkpoint of 1 epoch of evolvegcn-o: add --resume"
check "cmp -s '$tmp/sck.before' '$tmp/sck/checkpoint.dgnnckpt'" "a snapshot run afresh: the checkpoint replaced"
expect_rc 0 "$dgnn" train "${snap[@]}" --checkpoint "$tmp/sck" --epochs 2 --resume; has "resumed from"
mkdir -p "$tmp/junk"; echo '{"not": "a checkpoint"}' > "$tmp/junk/checkpoint.dgnnckpt"
expect_rc 2 "$dgnn" train "${ev[@]}" --checkpoint "$tmp/junk"; has "$tmp/junk already holds a file $tmp/junk/checkpoint.dgnnckpt that is no checkpoint"
check "grep -q 'not' '$tmp/junk/checkpoint.dgnnckpt'" "a file that is no checkpoint: replaced"
# one run at a time in a checkpoint folder (both trainers): a second run, afresh or
# resuming, is refused before any work, naming the first's pid; the lock is the kernel's
# (flock), so a killed run's never blocks the next
check_lock() {
  local name=$1; shift
  local d=$tmp/lock_$name
  "$@" --epochs 1024 --patience 1024 --checkpoint "$d" > "$tmp/lock.out" 2>&1 & local first=$!
  for i in $(seq 1 600); do [ -s "$d/.lock" ] && break; sleep 0.1; done
  expect_rc 2 "$@" --checkpoint "$d"; has "checkpoint folder $d is in use by another run (pid $first)"
  expect_rc 2 "$@" --checkpoint "$d" --resume --epochs 1024; has "checkpoint folder $d is in use by another run (pid $first)"
  kill -9 $first; wait $first 2>/dev/null
  rm -f "$d/checkpoint.dgnnckpt" # the killed run's (a run afresh would be refused for it)
  expect_rc 0 "$@" --checkpoint "$d"; lacks "in use"
}
check_lock event "$dgnn" train "${ev[@]}" --threads 1
check_lock snap "$dgnn" train "${snap[@]}" --threads 1
expect_rc 0 "$dgnn" train "${snap[@]}" --epochs 2 --curve "$tmp/s.jsonl"
check "[ \$(wc -l < '$tmp/s.jsonl') = 2 ] && grep -q '\"val_map\":' '$tmp/s.jsonl'" "--curve (snapshot model): not one line per epoch"
mkfifo "$tmp/curve.fifo"
expect_rc 2 timeout 60 "$dgnn" train "${ev[@]}" --curve "$tmp/curve.fifo"; has "a FIFO without a reader"
expect_rc 2 timeout 60 "$dgnn" train "${snap[@]}" --curve "$tmp/curve.fifo"; has "a FIFO without a reader"
# a fresh run's curve is emptied by its first line: a run refused (a bad output) or failed
# (bad data) before an epoch ends leaves the file as it was, and creates none
: > "$tmp/empty.txt"
expect_rc 2 "$dgnn" train "${ev[@]}" --curve "$tmp/c.jsonl" --out "$tmp/nodir/r.json"
expect_rc 1 "$dgnn" train --data "$tmp/empty.txt" --epochs 1 --quiet --curve "$tmp/c.jsonl"
expect_rc 1 "$dgnn" train --data "$tmp/empty.txt" --epochs 1 --quiet --curve "$tmp/none.jsonl"
expect_rc 1 "$dgnn" train --model evolvegcn-o --data "$tmp/empty.txt" --epochs 1 --quiet --curve "$tmp/c.jsonl"
check "[ \$(wc -l < '$tmp/c.jsonl') = 3 ] && [ ! -e '$tmp/none.jsonl' ]" "--curve: emptied or created by a run that ended before its first epoch"
expect_rc 0 "$dgnn" train "${ev[@]}" --curve "$tmp/c.jsonl"
check "[ \$(wc -l < '$tmp/c.jsonl') = 1 ]" "--curve: a fresh run's first line did not replace the old curve"
# a resumed run's curve is the checkpoint's: the lines after the last epoch it holds (an
# interrupted or failed run writes an epoch's line before its checkpoint; a line cut
# short) are removed by the first line the resumed run writes, which says so
curve_epochs() { grep -o '^{"epoch":[0-9]*' "$1" | grep -o '[0-9]*$' | tr '\n' ' '; }
whole_lines() { [ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] && ! grep -qv '^{"epoch":[0-9]*,"train_loss":.*}$' "$1"; }
for fam in ev snap; do
  if [ $fam = ev ]; then args=("${ev[@]}"); else args=("${snap[@]}"); fi
  rm -rf "$tmp/rck"; rm -f "$tmp/r.jsonl"
  expect_rc 0 "$dgnn" train "${args[@]}" --epochs 1 --curve "$tmp/r.jsonl" --checkpoint "$tmp/rck"
  sed 's/^{"epoch":1,/{"epoch":2,/' "$tmp/r.jsonl" >> "$tmp/r.jsonl"; printf '{"epoch":3,"train_lo' >> "$tmp/r.jsonl"
  expect_rc 0 "$dgnn" train "${args[@]}" --epochs 3 --curve "$tmp/r.jsonl" --checkpoint "$tmp/rck" --resume
  has "--curve $tmp/r.jsonl: 2 lines after epoch 1, the checkpoint's last, removed"
  check "[ \"\$(curve_epochs '$tmp/r.jsonl')\" = '1 2 3 ' ] && whole_lines '$tmp/r.jsonl'" "--curve --resume ($fam): lines the checkpoint lacks kept: $(curve_epochs "$tmp/r.jsonl")"
done
# the same after a real failure: the checkpoint of epoch 2 could not be written (a full disk)
if [ -n "$full" ]; then
  rm -f "$tmp/r.jsonl"
  expect_rc 0 "$dgnn" train "${ev[@]}" --epochs 1 --curve "$tmp/r.jsonl" --checkpoint "$full/rck"
  fill; expect_rc 1 "$dgnn" train "${ev[@]}" --epochs 3 --curve "$tmp/r.jsonl" --checkpoint "$full/rck" --resume
  has "No space left on device"; unfill
  expect_rc 0 "$dgnn" train "${ev[@]}" --epochs 3 --curve "$tmp/r.jsonl" --checkpoint "$full/rck" --resume
  check "[ \"\$(curve_epochs '$tmp/r.jsonl')\" = '1 2 3 ' ]" "--curve --resume after a failed checkpoint: $(curve_epochs "$tmp/r.jsonl")"
  rm -rf "$full/rck"
fi
# a line that cannot be written is written not at all (a short write taken back: a 1 KiB
# file size limit cuts a line in two), training goes on, and the run ends with exit 1 naming
# the file; a device that takes nothing (/dev/full), a full disk alike
rm -f "$tmp/l.jsonl"
expect_rc 1 bash -c 'set -o pipefail; trap "" XFSZ; (ulimit -f 1; exec "$@") 2>&1 | cat' _ "$dgnn" train "${ev[@]}" --epochs 6 --curve "$tmp/l.jsonl"
kept=$(grep -c '' "$tmp/l.jsonl" 2>/dev/null)
has "--curve $tmp/l.jsonl: $((6 - kept)) epoch line"; has "(the first, epoch $((kept + 1)): File too large)"; has "test AP"
check "whole_lines '$tmp/l.jsonl' && [ \"\$(curve_epochs '$tmp/l.jsonl')\" = \"\$(seq -s ' ' $kept) \" ] && [ $kept -lt 6 ]" "--curve: a line cut short: $(tail -c 40 "$tmp/l.jsonl")"
if [ -n "$devfull" ]; then
  expect_rc 1 "$dgnn" train "${ev[@]}" --curve "$devfull"; has "--curve $devfull: 1 epoch line could not be written"
  has "training goes on"; has "test AP"
  expect_rc 1 "$dgnn" train "${snap[@]}" --curve "$devfull"; has "--curve $devfull: 1 epoch line could not be written"
fi
if [ -n "$full" ]; then
  fill; expect_rc 1 "$dgnn" train "${ev[@]}" --curve "$full/c.jsonl"; has "--curve $full/c.jsonl: 1 epoch line could not be written"
  has "No space left on device"; unfill; rm -f "$full/c.jsonl"
fi
# a FIFO is written through: one descriptor for the run, so that a reader that holds no
# write end itself gets every line (opened per line, it read EOF after the first check);
# /dev/stdout into a file: the lines at its offset, before the test's table
for fam in ev snap; do
  if [ $fam = ev ]; then args=("${ev[@]}"); else args=("${snap[@]}"); fi
  rm -f "$tmp/cf.fifo"; mkfifo "$tmp/cf.fifo"
  timeout 60 cat "$tmp/cf.fifo" > "$tmp/cf.got" & cat_pid=$!
  sleep 1 # cat opens it
  expect_rc 0 timeout 60 "$dgnn" train "${args[@]}" --epochs 3 --curve "$tmp/cf.fifo"
  exec 3<> "$tmp/cf.fifo"; exec 3>&- # a cat still waiting for a writer ends
  wait $cat_pid
  check "[ \"\$(curve_epochs '$tmp/cf.got')\" = '1 2 3 ' ] && whole_lines '$tmp/cf.got'" "--curve FIFO ($fam): not every line came through: $(wc -l < "$tmp/cf.got") lines"
done
"$dgnn" train "${ev[@]}" --epochs 2 --curve /dev/stdout > "$tmp/so.txt" 2> "$tmp/out"; check "[ $? = 0 ]" "--curve /dev/stdout: failed"
check "[ \"\$(head -2 '$tmp/so.txt' | grep -o '^{\"epoch\":[0-9]*,\"train_loss\":' | wc -l)\" = 2 ] && grep -q '^test AP' '$tmp/so.txt'" "--curve /dev/stdout > FILE: lines lost or overwritten"
# "-" is standard output with the file alone on it (the text goes to stderr), for each
# trainer, a curve, a .dgnn file and simulate's JSON; two outputs cannot both be "-"
is_json() { /usr/bin/python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1]) if sys.argv[2] == "lines"] or json.load(open(sys.argv[1]))' "$@" 2>/dev/null; }
for fam in ev snap; do
  if [ $fam = ev ]; then args=("${ev[@]}"); else args=("${snap[@]}"); fi
  "$dgnn" train "${args[@]}" --out - > "$tmp/so.json" 2> "$tmp/out"; check "[ $? = 0 ]" "--out - ($fam): failed"
  check "is_json '$tmp/so.json' whole" "--out - ($fam): standard output is not the JSON alone"; has "test "
done
"$dgnn" train "${ev[@]}" --epochs 2 --curve - > "$tmp/so.jsonl" 2> "$tmp/out"; check "[ $? = 0 ]" "--curve -: failed"
check "[ \"\$(curve_epochs '$tmp/so.jsonl')\" = '1 2 ' ] && is_json '$tmp/so.jsonl' lines" "--curve -: not the lines alone"
"$dgnn" gen --events 500 --nodes 50 --out - > "$tmp/so.dgnn" 2> "$tmp/out"; check "[ $? = 0 ]" "gen --out -: failed"
check "[ \"\$(head -c 8 '$tmp/so.dgnn')\" = DGNNDATA ] && [ ! -e ./- ] && [ ! -e '$tmp/-' ]" "gen --out -: not the .dgnn file"; has "wrote -"
"$dgnn" simulate --synthetic 30 --workers 1,2 --json - > "$tmp/so.json" 2> "$tmp/out"
check "is_json '$tmp/so.json' whole" "simulate --json -: not the JSON alone"
expect_rc 2 "$dgnn" train "${ev[@]}" --out - --curve -; has "--out - and --curve - would both write to standard output"
expect_rc 2 "$dgnn" train "${ev[@]}" --checkpoint -; has "--checkpoint -: a folder is needed"
check "[ ! -e ./- ]" "--checkpoint -: a folder named - made"
# a dangling symlink to another output is that output (its writer creates the target)
ln -sf dl.json "$tmp/dl.jsonl"
expect_rc 2 "$dgnn" train "${ev[@]}" --out "$tmp/dl.json" --curve "$tmp/dl.jsonl"; has "--out $tmp/dl.json and --curve $tmp/dl.jsonl are the same file"
ln -sf dl.jsonl "$tmp/dl2.json"
expect_rc 2 "$dgnn" train "${ev[@]}" --out "$tmp/dl2.json" --curve "$tmp/dl.jsonl"; has "are the same file"
check "[ ! -e '$tmp/dl.json' ]" "a dangling link's target written by a refused run"
# an output never overwrites an input or another output (the same path, a link to it)
expect_rc 2 "$dgnn" train "${ev[@]}" --curve "$tmp/s.dgnn"; has "--curve $tmp/s.dgnn is the file --data reads"
ln -sf "$tmp/s.dgnn" "$tmp/link.dgnn"
expect_rc 2 "$dgnn" train "${ev[@]}" --out "$tmp/link.dgnn"; has "is the file --data reads"
expect_rc 2 "$dgnn" convert "$tmp/s.csv" "$tmp/s.csv"; has "OUT $tmp/s.csv is the file IN reads"
expect_rc 2 "$dgnn" train "${ev[@]}" --out "$tmp/o.json" --plot "$tmp/./o.json"; has "are the same file"
expect_rc 2 "$dgnn" train "${snap[@]}" --plot "$tmp/s.dgnn"; has "is the file --data reads"
check "cmp -s '$tmp/s.dgnn' '$tmp/link.dgnn' && [ \$(head -c 8 '$tmp/s.dgnn') = DGNNDATA ] && [ ! -e '$tmp/o.json' ]" "an input or output overwritten"
expect_rc 0 "$dgnn" train "${ev[@]}" --out /dev/null --plot /dev/null

check_writer train_out json "epoch 1" "$dgnn" train "${ev[@]}" --out @OUT@
check_writer snap_out json "test MAP" "$dgnn" train "${snap[@]}" --out @OUT@
# --plot: the learning curve, both panels drawn (the loss and the validation metric)
check_writer train_plot svg "epoch 1" "$dgnn" train "${ev[@]}" --epochs 2 --plot @OUT@
check "[ \$(grep -c '<polyline' '$tmp/w_train_plot/plain.svg') = 2 ] && grep -q 'validation AP' '$tmp/w_train_plot/plain.svg'" "--plot: not two curves"
check_writer snap_plot svg "test MAP" "$dgnn" train "${snap[@]}" --plot @OUT@
check "grep -q 'validation MAP' '$tmp/w_snap_plot/plain.svg'" "--plot (snapshot model): no validation panel"
check_writer snap_profile csv "test MAP" "$dgnn" train "${snap[@]}" --profile @OUT@
check_writer window_report csv "epoch 1" "$dgnn" train "${ev[@]}" --dist depbloom --partition --window-events 1000 --window-report @OUT@
check_writer convert dgnn "wrote" "$dgnn" convert "$tmp/s.csv" @OUT@
check_writer gen dgnn "wrote" "$dgnn" gen --events 3000 --nodes 200 --out @OUT@
check_writer gen_csv csv "wrote" "$dgnn" gen --events 3000 --nodes 200 --bipartite --out @OUT@
check_writer schedule_svg svg "imbalance" "$dgnn" schedule --data "$tmp/s.dgnn" --model evolvegcn-o --workers 2 --snapshots 20 --window 3 --svg @OUT@
check_writer simulate_svg svg "greedy-eff" "$dgnn" simulate --synthetic 20 --workers 1,2 --svg @OUT@
check_writer simulate_json json "greedy-eff" "$dgnn" simulate --synthetic 20 --workers 1,2 --json @OUT@

# the other commands that write: refused before any work, same messages
expect_rc 2 "$dgnn" bench gen --events 3000 --nodes 200 --out "$tmp/missing/b.dgnn"; has "folder $tmp/missing does not exist"
expect_rc 0 "$dgnn" bench gen --events 3000 --nodes 200 --out "$tmp/b.dgnn"; check "[ -s '$tmp/b.dgnn' ]" "bench gen --out: no file"
expect_rc 2 "$dgnn" bench train "${ev[@]}" --out "$tmp/missing/b.json"; has "folder $tmp/missing does not exist"; lacks "epoch"
expect_rc 2 "$dgnn" bench train "${snap[@]}" --profile "$tmp/missing/b.csv"; has "folder $tmp/missing does not exist"; lacks "epoch"
# bench train's own help: its defaults and what it prints (it was train's: "prints validation
# per epoch", "--epochs (tgn-paper: 10)", the evaluation's flags); EdgeBank is not benchmarked
expect_rc 0 "$dgnn" bench train --help
has "usage: dgnn bench train [--model tgn|jodie|dyrep|apan] "; has "Times the training"; has "validation or test. Prints the training's events/s"
has "--epochs N                 training epochs (1)"; has "--step-curve LIST"; has "(EdgeBank trains nothing: no bench)"
for t in "prints validation per epoch" "tgn-paper: 10" "--protocol LIST" "--patience N" "--eval-negatives K" \
         "--eval-max-events N" "--no-eval" "--task" "dgnn eval:"; do lacks "$t"; done
expect_rc 2 "$dgnn" bench train --model edgebank --data "$tmp/missing.csv" --step-curve 200; has "--model edgebank trains nothing"
# its figures: one thread is one thread (it said "on 1 thread, ... on 1 threads"); no "val AP n/a"
expect_rc 0 "$dgnn" bench train "${ev[@]}" --max-batches 2 --threads 1
has "GFLOP/s on 1 thread (the run's)"; lacks "1 threads"; lacks "val AP"
# --step-curve: a size with too few steps fails the run, naming the sizes and what to change,
# and --out is not written (a JSON without its curve was read by simulate as a training run)
printf 'previous\n' > "$tmp/sc.json"
expect_rc 1 "$dgnn" bench train "${ev[@]}" --max-batches 2 --step-curve 200,400 --out "$tmp/sc.json"
has "--max-batches 2 times too few steps"; has "raise --max-batches to 5"; has "--out $tmp/sc.json not written"
check "[ \"\$(cat '$tmp/sc.json')\" = previous ]" "bench --step-curve: a failed curve replaced --out"
expect_rc 1 "$dgnn" bench train "${ev[@]}" --max-batches 6 --step-curve 100,2000 --out "$tmp/sc2.json"
has "too few steps at batch 2000 (1 step)"; has "lower it, or use a longer stream"; lacks "batch 100 ("
check "[ ! -e '$tmp/sc2.json' ]" "bench --step-curve: a JSON without the curve written"
expect_rc 0 "$dgnn" bench train "${ev[@]}" --max-batches 5 --step-curve 100 --out "$tmp/sc3.json"
check "grep -q '\"step_curve\":' '$tmp/sc3.json'" "bench --step-curve --out: no step_curve in the JSON"
expect_rc 2 "$dgnn" simulate --family event --measured "$tmp/none.json" --json "$tmp/missing/e.json"; has "folder $tmp/missing does not exist"
# convert: OUT is checked before IN is read (a missing IN would be exit 1)
expect_rc 2 "$dgnn" convert "$tmp/absent.csv" "$tmp/missing/x.dgnn"; has "OUT $tmp/missing/x.dgnn: folder $tmp/missing does not exist"
# several bad outputs: each is named
expect_rc 2 "$dgnn" train "${ev[@]}" --out "$tmp/missing/a.json" --checkpoint "$tmp/missing/c"
has "--out $tmp/missing/a.json: folder $tmp/missing does not exist"; has "--checkpoint $tmp/missing/c: folder $tmp/missing does not exist"

# --checkpoint DIR (both trainers): created when missing; its file follows the same rules
check_ckpt() {
  local name=$1; shift
  local d=$tmp/c_$name; mkdir -p "$d"
  subst "$d/run" "$@"; expect_rc 0 "${A[@]}"
  check "[ -s '$d/run/checkpoint.dgnnckpt' ] && [ \$(temps_in '$d/run') = 0 ]" "$name: no checkpoint, or temporaries left"
  # stale temporaries of killed runs: a dead process's removed, a live one's kept
  local dp; dp=$(dead_pid)
  head -c 100000 /dev/zero > "$d/run/.checkpoint.dgnnckpt.tmp.$host.$dp"; : > "$d/run/.checkpoint.dgnnckpt.tmp.$host.$$"
  rm "$d/run/checkpoint.dgnnckpt" # a run afresh would be refused for it
  expect_rc 0 "${A[@]}"
  check "[ ! -e '$d/run/.checkpoint.dgnnckpt.tmp.$host.$dp' ] && [ -e '$d/run/.checkpoint.dgnnckpt.tmp.$host.$$' ]" "$name: stale checkpoint temporary kept, or a live one removed"
  # refused before any work: parent missing, a file, its checkpoint file a folder, read-only
  subst "$d/missing/run" "$@"; expect_rc 2 "${A[@]}"; has "--checkpoint $d/missing/run: folder $d/missing does not exist"; lacks "epoch"
  : > "$d/afile"
  subst "$d/afile" "$@"; expect_rc 2 "${A[@]}"; has "not a folder"; lacks "epoch"
  mkdir -p "$d/bad/checkpoint.dgnnckpt"
  subst "$d/bad" "$@"; expect_rc 2 "${A[@]}"; has "is a directory"; lacks "epoch"
  subst "$rodir/run" "$@"; expect_rc 2 "${A[@]}"; has "cannot create files in folder $rodir"; lacks "epoch"
  # its file a symlink (kept, target written), a device (stays one), a FIFO (through a spool)
  mkdir -p "$d/l"; ln -s ../real.ckpt "$d/l/checkpoint.dgnnckpt"
  subst "$d/l" "$@"; expect_rc 0 "${A[@]}"
  check "[ -L '$d/l/checkpoint.dgnnckpt' ] && [ -s '$d/real.ckpt' ]" "$name: checkpoint symlink replaced or target not written"
  if [ -n "$devnull" ]; then
    mkdir -p "$d/n"; mknod "$d/n/checkpoint.dgnnckpt" c 1 3 2>/dev/null || ln -s /dev/null "$d/n/checkpoint.dgnnckpt"
    subst "$d/n" "$@"; expect_rc 0 "${A[@]}"
    check "[ -c '$d/n/checkpoint.dgnnckpt' ]" "$name: checkpoint device replaced by a file"
  fi
  mkdir -p "$d/f"; mkfifo "$d/f/checkpoint.dgnnckpt"; exec 3<> "$d/f/checkpoint.dgnnckpt"
  cat "$d/f/checkpoint.dgnnckpt" > "$d/fifo.got" 3>&- & local cat=$!
  subst "$d/f" "$@"; expect_rc 0 "${A[@]}"
  exec 3>&-; wait $cat
  check "[ -p '$d/f/checkpoint.dgnnckpt' ] && [ \"\$(head -c 8 '$d/fifo.got')\" = DGNNCKPT ] && [ \$(stat -c %s '$d/fifo.got') = \$(stat -c %s '$d/run/checkpoint.dgnnckpt') ]" "$name: FIFO replaced, or the checkpoint through it incomplete"
  # a full disk: the previous checkpoint survives byte for byte, no temporary is left
  if [ -n "$full" ]; then
    subst "$full/run" "$@"; expect_rc 0 "${A[@]}"; cp "$full/run/checkpoint.dgnnckpt" "$d/before"
    fill; expect_rc 1 "${A[@]}" --epochs 2 --resume; has "No space left on device"
    check "cmp -s '$d/before' '$full/run/checkpoint.dgnnckpt' && [ \$(temps_in '$full/run') = 0 ]" "$name: full disk: previous checkpoint lost or temporary left"
    unfill; rm -rf "$full/run"
  fi
}
check_ckpt event "$dgnn" train "${ev[@]}" --checkpoint @OUT@
check_ckpt snap "$dgnn" train "${snap[@]}" --checkpoint @OUT@

# under MPI rank 0 writes every output: it checks them and every rank stops at once
# (exit 2, one message, no training), for both trainers
if command -v mpirun >/dev/null 2>&1 && ldd "$dgnn" 2>/dev/null | grep -q libmpi; then
  mpi="mpirun --allow-run-as-root --oversubscribe -np 2"
  expect_rc 2 timeout 120 $mpi "$dgnn" train "${ev[@]}" --threads 1 --dist depbloom --partition --window-report "$tmp/missing/w.csv"
  has "--window-report $tmp/missing/w.csv: folder $tmp/missing does not exist"; lacks "epoch"
  check "[ \$(grep -c 'does not exist' '$tmp/out') = 1 ]" "mpi: the message should come once (rank 0)"
  mkdir -p "$tmp/adir.json"
  expect_rc 2 timeout 120 $mpi "$dgnn" train "${snap[@]}" --threads 1 --dist dygnex --out "$tmp/adir.json"
  has "--out $tmp/adir.json: is a directory"; lacks "test MAP"
  # the steps of a distributed run are the run's, not an epoch's (it said "per epoch ...; 6 steps")
  expect_rc 0 timeout 120 $mpi "$dgnn" train "${ev[@]}" --threads 1 --dist strict --epochs 3 --max-batches 2 --eval-max-events 300
  has "6 steps in all (3 epochs)"; lacks "MB; 6 steps"
else
  echo "skip: MPI cases (no mpirun, or $dgnn built without MPI)"
fi

echo "cli_outputs: $pass passed, $fail failed"
[ "$fail" = 0 ]
