#!/usr/bin/env bash
# cli_badinput.sh DGNN [DATA_DIR]: hostile inputs through the commands (issue 12): files
# that are not regular (FIFO, /dev/zero, folders), encodings (UTF-16/32), binary files
# passed as text, a line of 17 MiB, values the readers refuse, and dataset flags that do
# not fit the data. Each case must end with its exit status (1 bad data, 2 bad flags), a
# message naming the file (and line and field where there is one), no crash signal, in
# bounded time (timeout) and, where the build allows it, bounded memory (ulimit -v).
set -u
dgnn=$1
data=${2:-}
. "$(dirname "$0")/lib_cli.sh"

# Memory bound for the commands (1 GiB of address space): skipped under AddressSanitizer,
# which reserves terabytes of address space for its shadow memory.
vlimit=""
if (ulimit -v 1048576 && "$dgnn" --version) >/dev/null 2>&1; then vlimit=1048576; else echo "note: ulimit -v not applied (sanitizer build)"; fi

# bounded RC CMD...: expect_rc under a 20 s timeout and the memory bound; a crash signal or
# a timeout shows up as an exit status above 124 and fails the check.
bounded() {
  local want=$1; shift
  if [ -n "$vlimit" ]; then
    expect_rc "$want" timeout 20 bash -c 'ulimit -v '"$vlimit"'; exec "$@"' _ "$@"
  else
    expect_rc "$want" timeout 20 "$@"
  fi
}

# ---- what is not a regular file ----
mkfifo "$tmp/pipe.csv"
for cmd in "info" "convert --format jodie" "train --max-batches 1 --quiet --data"; do
  # shellcheck disable=SC2086
  set -- $cmd
  if [ "$1" = convert ]; then bounded 1 "$dgnn" "$@" "$tmp/pipe.csv" "$tmp/out.dgnn"
  else bounded 1 "$dgnn" "$@" "$tmp/pipe.csv"; fi
  has "pipe.csv: is a FIFO (named pipe), not a regular file"
done
[ ! -e "$tmp/out.dgnn" ] && ok || bad "convert of a FIFO left an output"
# "-" (no file of that name): standard input, told as such (it said "-: cannot open")
for cmd in "info" "train --max-batches 1 --quiet --data"; do
  # shellcheck disable=SC2086
  set -- $cmd
  [ -e ./- ] && continue # a file named - is read as one
  bounded 1 "$dgnn" "$@" - < /dev/null; has "-: standard input is not read"
done
for f in jodie tgl edgelist pgt dgnn; do
  bounded 1 "$dgnn" info --format $f "$tmp/pipe.csv"; has "FIFO"
  bounded 1 "$dgnn" info --format $f /dev/zero; has "/dev/zero: is a character device"
done
bounded 1 "$dgnn" info /dev/zero; has "character device"
bounded 1 "$dgnn" train --model evolvegcn-o --data /dev/zero --epochs 1; has "character device"
bounded 1 "$dgnn" info /dev/null; has "/dev/null: is a character device"
mkdir "$tmp/folder"
bounded 1 "$dgnn" info "$tmp/folder"; has "folder/edges.csv: cannot open"
bounded 1 "$dgnn" info --format jodie "$tmp/folder"; has "is a folder"
: > "$tmp/empty.csv"
bounded 1 "$dgnn" info "$tmp/empty.csv"; has "empty.csv: empty file"
bounded 1 "$dgnn" info --format dgnn "$tmp/empty.csv"; has "empty file (0 bytes)"
bounded 1 "$dgnn" info --format pgt "$tmp/empty.csv"; has "empty file"
if [ "$(id -u)" != 0 ]; then
  printf '1 2 3\n' > "$tmp/noperm.txt"; chmod 000 "$tmp/noperm.txt"
  bounded 1 "$dgnn" info "$tmp/noperm.txt"; has "Permission denied"
fi

# ---- encodings ----
printf 'user,item,timestamp,state_label\n0,1,1,0\n1,2,2,0\n' > "$tmp/u8.csv"
iconv -f UTF-8 -t UTF-16 "$tmp/u8.csv" > "$tmp/u16.csv"       # with a byte-order mark
iconv -f UTF-8 -t UTF-16LE "$tmp/u8.csv" > "$tmp/u16le.csv"   # without
iconv -f UTF-8 -t UTF-16BE "$tmp/u8.csv" > "$tmp/u16be.csv"
iconv -f UTF-8 -t UTF-32 "$tmp/u8.csv" > "$tmp/u32.csv"
for f in u16 u16le u16be; do
  bounded 1 "$dgnn" info "$tmp/$f.csv"; has "$f.csv: UTF-16 text"; has "iconv -f UTF-16"
  bounded 1 "$dgnn" train --max-batches 1 --quiet --data "$tmp/$f.csv"; has "UTF-16 text"
done
bounded 1 "$dgnn" info "$tmp/u32.csv"; has "UTF-32 text"
printf '{"time_periods": 1, "0": {"edges": [[0, 1]]}}' | iconv -f UTF-8 -t UTF-16 > "$tmp/u16.json"
bounded 1 "$dgnn" info --format pgt "$tmp/u16.json"; has "u16.json: UTF-16 text"
bounded 1 "$dgnn" info --format dgnn "$tmp/u16.csv"; has "bad magic: it is UTF-16 text"
printf '\xef\xbb\xbfuser,item,timestamp,state_label\r\n0,1,1,0\r\n1,2,2,1\r\n' > "$tmp/bomcrlf.csv"
bounded 0 "$dgnn" info "$tmp/bomcrlf.csv"; has "2 events / 4 nodes"

# ---- binary data passed as text ----
gzip -c "$tmp/u8.csv" > "$tmp/data.csv.gz"
bounded 1 "$dgnn" info "$tmp/data.csv.gz"; has "gzip-compressed data, not text"
{ printf 'R'; head -c 4096 /dev/urandom; } > "$tmp/random.bin"   # 'R': no magic number starts with it
bounded 1 "$dgnn" info "$tmp/random.bin"; has "random.bin: "; has "not text"
head -c 4096 /dev/zero > "$tmp/zeros.txt"
bounded 1 "$dgnn" info "$tmp/zeros.txt"; has "binary data, not text"
printf '1 2 3\n4 5 \0\n' > "$tmp/nul.txt"
bounded 1 "$dgnn" info "$tmp/nul.txt"; has "nul.txt:2: field 'ts'"
"$dgnn" gen --events 200 --nodes 20 --seed 1 --out "$tmp/g.dgnn" > /dev/null
bounded 1 "$dgnn" info --format jodie "$tmp/g.dgnn"; has "a dgnn binary file (.dgnn), not text"

# ---- a line of 17 MiB with no line break: refused with its line, in bounded memory ----
{ printf '1 2 3\n'; head -c $((17 << 20)) /dev/zero | tr '\0' '7'; } > "$tmp/longline.txt"
bounded 1 "$dgnn" info "$tmp/longline.txt"; has "longline.txt:2: line longer than 16 MiB"
rm -f "$tmp/longline.txt"

# ---- .dgnn headers ----
printf 'DGNNDATA\x0f\x047O' > "$tmp/rand.dgnn"; head -c 300 /dev/urandom >> "$tmp/rand.dgnn"
bounded 1 "$dgnn" info "$tmp/rand.dgnn"; has "not a dgnn file or corrupted header: checksum mismatch"
if grep -q "newer dgnn" "$tmp/out"; then bad "random body read as a newer version"; else ok; fi

# ---- values the readers refuse (file:line: field) ----
printf 'user,item,timestamp,state_label\n0,1,1,0\n1,2,2,-3\n' > "$tmp/label.csv"
bounded 1 "$dgnn" info "$tmp/label.csv"; has "label.csv:3: field 'state_label' (column 4)"; has "a label is 0 or 1"
printf 'user,item,timestamp,state_label\n0,1,0x10,0\n' > "$tmp/hex.csv"
bounded 1 "$dgnn" info "$tmp/hex.csv"; has "hex.csv:2: field 'timestamp'"; has "hexadecimal"
printf '1 2 inf\n' > "$tmp/inf.txt"
bounded 1 "$dgnn" info "$tmp/inf.txt"; has "inf.txt:1: field 'ts'"; has "infinite"
printf '1 2 1e999\n' > "$tmp/ovf.txt"
bounded 1 "$dgnn" info "$tmp/ovf.txt"; has "ovf.txt:1: field 'ts'"; has "overflows"
printf 'user,item,timestamp,state_label\n9223372036854775807,9223372036854775807,1,0\n' > "$tmp/idmax.csv"
bounded 1 "$dgnn" info "$tmp/idmax.csv"; has "overflows int64"
printf '1 2 3\r4 5 6\r' > "$tmp/cr.txt"
bounded 1 "$dgnn" info "$tmp/cr.txt"; has "carriage return"

# ---- dataset flags that do not fit the data: refused (exit 2), never ignored ----
printf '1 2 3\n2 3 4\n' > "$tmp/e.txt"
# a valid .npy of two float32 (1.0, 2.0): magic, version 1.0, header length 118 (dict padded with spaces and a newline)
dict="{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
npy="$tmp/f.npy"
{ printf '\x93NUMPY\x01\x00\x76\x00%s' "$dict"; printf "%$((118 - ${#dict} - 1))s\n" ''; printf '\0\0\x80\x3f\0\0\0\x40'; } > "$npy"
bounded 2 "$dgnn" info --edge-feat "$npy" "$tmp/u8.csv"; has "--edge-feat applies to TGL datasets"; has "jodie file"
bounded 2 "$dgnn" info --node-feat "$npy" "$tmp/e.txt"; has "--node-feat applies to TGL datasets"
bounded 2 "$dgnn" info --columns src,dst,ts "$tmp/u8.csv"; has "--columns applies to edge lists"
bounded 2 "$dgnn" info --columns src,dst,time "$tmp/e.txt"; has "unknown role 'time'"
bounded 2 "$dgnn" info --columns src,src,ts "$tmp/e.txt"; has "exactly one 'src'"
bounded 2 "$dgnn" info --columns "" "$tmp/e.txt"; has "unknown role ''"
bounded 2 "$dgnn" info --bipartite --not-bipartite "$tmp/e.txt"; has "contradict"
bounded 2 "$dgnn" info --format csv "$tmp/e.txt"; has "unknown format 'csv'"
bounded 2 "$dgnn" train --edge-feat "$npy" --max-batches 1; has "no --data is given"
bounded 2 "$dgnn" info --snapshots 0 "$tmp/e.txt"; has "--snapshots must be in 1..1048576"
bounded 2 "$dgnn" info --snapshots -3 "$tmp/e.txt"; has "--snapshots must be in 1..1048576"
bounded 2 "$dgnn" info --snapshot-seconds 0 "$tmp/e.txt"; has "--snapshot-seconds must be > 0"
bounded 2 "$dgnn" info --snapshot-seconds -5 "$tmp/e.txt"; has "--snapshot-seconds must be > 0"
bounded 2 "$dgnn" info --snapshot-seconds 1 --snapshots 2 "$tmp/e.txt"; has "not both"
bounded 2 "$dgnn" info --bins 0 "$tmp/e.txt"; has "--bins must be in 1..1000"
bounded 2 "$dgnn" info --snapshots abc "$tmp/e.txt"; has "expects an integer"
bounded 0 "$dgnn" info --snapshots 2 "$tmp/e.txt"; has "snapshots     2"
bounded 1 "$dgnn" info --snapshot-seconds 1e-9 "$tmp/e.txt"; has "use longer snapshots"
bounded 2 "$dgnn" simulate --family snapshot --synthetic 8 --format jodie; has "--synthetic T simulates a generated sequence, which would ignore it"
if [ -n "$data" ] && [ -r "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv" ]; then
  # 10-second windows over bitcoin-alpha: 16.4M snapshots (before: 16 GB resident, still running after 60 s)
  bounded 1 "$dgnn" info --snapshot-seconds 10 "$data/bitcoin-alpha/soc-sign-bitcoinalpha.csv"
  has "make 16424641 snapshots (at most 1048576)"
else
  echo "skip: shared data folder absent: the bitcoin-alpha snapshot case is not run"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
