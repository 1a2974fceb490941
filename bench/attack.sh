#!/usr/bin/env bash
# attack.sh: hostile input against the dgnn command, counted. Every case is one command
# run with a time limit and a 4 GiB address-space cap, and one expectation:
#   err  the command must refuse: exit 1..125, a message on stderr that names what is
#        wrong (the file, the flag or the field: a pattern per case), no signal, no hang;
#   ok   the command must succeed (exit 0) and a check on what it left must hold.
# Outcomes: pass, CRASH (killed by a signal, or a sanitizer report), HANG (time limit),
# SILENT (exit 0 where it had to refuse, or a "nan" result with exit 0), VAGUE (refused,
# but the message does not name the file/flag/field), WRONG (an ok case that failed).
# Prints one line per case that did not pass, then the counts per group and in all.
#
#   bench/attack.sh [DGNN_BINARY]       (default build/dgnn; the Release build)
#   ATTACK_ONLY=flags bench/attack.sh   one group: files, dgnn, flags, outputs, ckpt, fs
#   ATTACK_VMEM_KB=0 bench/attack.sh build-asan/dgnn   the sanitizer build (reports count as CRASH)
#
# The bad files are written here, into a scratch folder removed at exit. Cases that need
# python3 (re-sealing a tampered .dgnn's checksums) are skipped without it.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/build/dgnn}")
[ -x "$BIN" ] || { echo "attack.sh: no dgnn binary at $BIN (build it: scripts/build.sh build)"; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ONLY=${ATTACK_ONLY:-}
VMEM=${ATTACK_VMEM_KB:-4194304} # address-space cap per case; 0 for none (a sanitizer build needs none)
# Device nodes of our own as output targets: a dgnn that replaced its target by rename
# would otherwise replace the system's /dev/null (as root). Without root (no mknod) the
# system's nodes are used: rename onto them is then refused by /dev's permissions.
NUL=/dev/null FULL=/dev/full
if [ "$(id -u)" = 0 ] && mknod "$W/null" c 1 3 2>/dev/null && mknod "$W/full" c 1 7 2>/dev/null; then
  NUL=$W/null FULL=$W/full
fi
declare -A G_PASS G_ALL
TOTAL=0 PASSED=0
declare -A OUTCOMES

record() { # group name outcome detail
  local g=$1 n=$2 o=$3 d=${4:-}
  TOTAL=$((TOTAL + 1)); G_ALL[$g]=$(( ${G_ALL[$g]:-0} + 1 ))
  OUTCOMES[$o]=$(( ${OUTCOMES[$o]:-0} + 1 ))
  if [ "$o" = pass ]; then PASSED=$((PASSED + 1)); G_PASS[$g]=$(( ${G_PASS[$g]:-0} + 1 ));
  else printf '%-7s %-8s %-44s %s\n' "$o" "$g" "$n" "$d"; fi
}

# run SECONDS CMD...: runs CMD capped; sets RC, ERR (stderr), OUT (stdout)
run() {
  local secs=$1; shift
  ( [ "$VMEM" != 0 ] && ulimit -v "$VMEM"; exec timeout -k 2 "$secs" "$@" ) > "$W/.out" 2> "$W/.err" < /dev/null
  RC=$?
  OUT=$(head -c 20000 "$W/.out"); ERR=$(head -c 20000 "$W/.err")
}

# broken GROUP NAME SECONDS: records a hang or a crash of the last run and returns 0, or
# returns 1 (sets FIRST, the first line of its message) when it ended by itself
broken() {
  FIRST=$(printf '%s' "$ERR" | grep -v '^\s*$' | head -1 | cut -c1-110)
  if [ $RC = 124 ] || [ $RC = 137 ]; then record "$1" "$2" HANG "(> ${3}s)"
  elif printf '%s' "$ERR" | grep -q "Sanitizer\|runtime error:"; then record "$1" "$2" CRASH "sanitizer: $FIRST"
  elif [ $RC -ge 126 ]; then record "$1" "$2" CRASH "exit $RC: $FIRST"
  else return 1; fi
}

# err GROUP NAME PATTERN SECONDS CMD...: must be refused with a message matching PATTERN (grep -E)
err() {
  local g=$1 n=$2 pat=$3 secs=$4; shift 4
  [ -n "$ONLY" ] && [ "$ONLY" != "$g" ] && return
  run "$secs" "$@"
  broken "$g" "$n" "$secs" && return
  if [ $RC = 0 ]; then record "$g" "$n" SILENT "exit 0: $(printf '%s' "$OUT" | tail -1 | cut -c1-90)"
  elif [ -z "$FIRST" ]; then record "$g" "$n" VAGUE "exit $RC, no message"
  elif ! printf '%s' "$ERR" | grep -qiE -- "$pat"; then record "$g" "$n" VAGUE "$FIRST"
  else record "$g" "$n" pass; fi
}

# ok GROUP NAME CHECK SECONDS CMD...: must succeed, then `eval CHECK` must succeed
ok() {
  local g=$1 n=$2 chk=$3 secs=$4; shift 4
  [ -n "$ONLY" ] && [ "$ONLY" != "$g" ] && return
  run "$secs" "$@"
  broken "$g" "$n" "$secs" && return
  if [ $RC != 0 ]; then record "$g" "$n" WRONG "exit $RC: $FIRST"
  elif printf '%s' "$OUT" | grep -qw "nan"; then record "$g" "$n" SILENT "nan in the output"
  elif ! eval "$chk"; then record "$g" "$n" WRONG "check failed: $chk"
  else record "$g" "$n" pass; fi
}

# either GROUP NAME PATTERN SECONDS CMD...: success, or a clean refusal matching PATTERN
either() {
  local g=$1 n=$2 pat=$3 secs=$4; shift 4
  [ -n "$ONLY" ] && [ "$ONLY" != "$g" ] && return
  run "$secs" "$@"
  if [ $RC = 0 ] && ! printf '%s' "$ERR" | grep -q "Sanitizer\|runtime error:"; then record "$g" "$n" pass
  else err "$g" "$n" "$pat" "$secs" "$@"; fi
}

f() { printf "$2" > "$W/$1"; echo "$W/$1"; } # f NAME PRINTF-TEXT: writes a file, prints its path
INFO() { echo "$BIN" info "$@"; }
TRAIN=("$BIN" train --epochs 1 --max-batches 2 --quiet --threads 1)

# ---- a good stream to vary: 400 events, 40 users, 20 items, increasing times -----------------
good="$W/good.csv"
{ echo "u,i,ts,label"; for e in $(seq 0 399); do echo "$((e % 40)),$((40 + (e * 7) % 20)),$e,0"; done; } > "$good"
goodel="$W/good.txt" # not bipartite: node 0 also receives
for e in $(seq 0 399); do echo "$((e % 40)) $((40 + (e * 7) % 20)) $e"; done > "$goodel"; echo "41 0 400" >> "$goodel"
sparse="$W/sparse.txt" # ids far from dense: the .dgnn keeps a node_ids section
for e in $(seq 0 199); do echo "$((1000 + e % 30)) $((5000 + (e * 3) % 17)) $e"; done > "$sparse"

# ---- text files: dgnn info must refuse each, naming the file and line ------------------------
j() { f "$1" "u,i,ts,label\n$2"; } # a JODIE file with one header line and body $2
err files jodie-empty-file          "empty|no events|header"     10 $(INFO "$(f empty.csv "")")
err files jodie-header-only         "header-only.csv"            10 $(INFO "$(j header-only.csv "")")
err files jodie-missing-column      "missing.csv:2"              10 $(INFO "$(j missing.csv "0,1,5\n")")
err files jodie-text-id             "textid.csv:2"               10 $(INFO "$(j textid.csv "zero,1,5,0\n")")
err files jodie-negative-id         "negid.csv:2"                10 $(INFO "$(j negid.csv "-4,1,5,0\n")")
err files jodie-id-overflow         "idover.csv:2"               10 $(INFO "$(j idover.csv "99999999999999999999,1,5,0\n")")
either files jodie-id-near-int64max "idmax.csv"                       10 $(INFO "$(j idmax.csv "9223372036854775806,0,5,0\n0,9223372036854775807,6,0\n")")
err files jodie-ts-nan              "tsnan.csv:2"                10 $(INFO "$(j tsnan.csv "0,1,nan,0\n")")
err files jodie-ts-inf              "tsinf.csv:2"                10 $(INFO "$(j tsinf.csv "0,1,inf,0\n")")
err files jodie-ts-1e999            "tsbig.csv:2"                10 $(INFO "$(j tsbig.csv "0,1,1e999,0\n")")
err files jodie-ts-hex              "tshex.csv:2"                10 $(INFO "$(j tshex.csv "0,1,0x10,0\n")")
err files jodie-ts-hexfloat         "tshexf.csv:2"               10 $(INFO "$(j tshexf.csv "0,1,0x1p3,0\n")")
err files jodie-ts-empty            "tsempty.csv:2"              10 $(INFO "$(j tsempty.csv "0,1,,0\n")")
err files jodie-ts-junk             "tsjunk.csv:2"               10 $(INFO "$(j tsjunk.csv "0,1,5s,0\n")")
err files jodie-label-2             "lab2.csv:2"                 10 $(INFO "$(j lab2.csv "0,1,5,2\n")")
err files jodie-label-negative      "labneg.csv:2"               10 $(INFO "$(j labneg.csv "0,1,5,-3\n")")
err files jodie-label-big           "labbig.csv:2"               10 $(INFO "$(j labbig.csv "0,1,5,-12345\n")")
err files jodie-label-fraction      "labfrac.csv:2"              10 $(INFO "$(j labfrac.csv "0,1,5,0.5\n")")
err files jodie-feature-nan         "fnan.csv:2"                 10 $(INFO "$(f fnan.csv "u,i,ts,label,f1\n0,1,5,0,nan\n")")
err files jodie-feature-inf         "finf.csv:2"                 10 $(INFO "$(f finf.csv "u,i,ts,label,f1\n0,1,5,0,-inf\n")")
err files jodie-feature-text        "ftext.csv:2"                10 $(INFO "$(f ftext.csv "u,i,ts,label,f1\n0,1,5,0,abc\n")")
err files jodie-ragged-features     "ragged.csv:3"               10 $(INFO "$(f ragged.csv "u,i,ts,label,f1,f2\n0,1,5,0,1,2\n0,1,6,0,1\n")")
err files jodie-nul-byte            "nul.csv"                    10 $(INFO "$(j nul.csv "0,1,5\x000,0\n")")
err files jodie-binary-garbage      "garbage.bin"                10 $(INFO "$(head -c 4096 /dev/urandom > "$W/garbage.bin"; echo "$W/garbage.bin")")
ok  files jodie-crlf                true                         10 $(INFO "$(f crlf.csv "u,i,ts,label\r\n0,1,5,0\r\n1,2,6,0\r\n")")
ok  files jodie-utf8-bom            true                         10 $(INFO "$(f bom.csv "\xef\xbb\xbfu,i,ts,label\n0,1,5,0\n1,2,6,0\n")")
ok  files jodie-unsorted            true                         10 $(INFO "$(j unsorted.csv "0,1,9,0\n1,2,3,0\n")")
printf 'u,i,ts,label\n0,1,5,0\n' | iconv -f UTF-8 -t UTF-16 > "$W/utf16.csv" 2>/dev/null
err files utf16-bom                 "utf-16"                     10 $(INFO "$W/utf16.csv")
printf 'u,i,ts,label\n0,1,5,0\n' | iconv -f UTF-8 -t UTF-16LE > "$W/utf16le.csv" 2>/dev/null
err files utf16le-no-bom            "utf-16|nul|binary"          10 $(INFO "$W/utf16le.csv")
printf 'u,i,ts,label\n0,1,5,0\n' | iconv -f UTF-8 -t UTF-16BE > "$W/utf16be.csv" 2>/dev/null
err files utf16be-no-bom            "utf-16|nul|binary"          10 $(INFO "$W/utf16be.csv")
{ echo "u,i,ts,label"; head -c 20000000 /dev/zero | tr '\0' '1'; echo ",1,5,0"; } > "$W/longline.csv"
err files line-of-20MB              "longline.csv:2"             20 $(INFO "$W/longline.csv")
# edge lists
err files edgelist-two-columns      "two.txt:1"                  10 $(INFO "$(f two.txt "0 1\n1 2\n")")
err files edgelist-weight-nan       "wnan.txt:1"                 10 $(INFO "$(f wnan.txt "0 1 nan 5\n")")
err files edgelist-ts-hex           "elhex.txt:1"                10 $(INFO "$(f elhex.txt "0 1 0x10\n")")
err files edgelist-comments-only    "comments|no events|empty"   10 $(INFO "$(f comments.txt "%% a\n# b\n")")
err files edgelist-mixed-separators "mixed.txt:2"                10 $(INFO "$(f mixed.txt "0,1,5\n1 2 6\n")")
err files edgelist-bad-columns-flag "columns"                    10 "$BIN" info --columns src,dst,bogus "$goodel"
err files edgelist-repeated-role    "columns"                    10 "$BIN" info --columns src,src,ts "$goodel"
err files format-unknown            "format"                     10 "$BIN" info --format xml "$good"
err files bipartite-and-not         "bipartite"                  10 "$BIN" info --bipartite --not-bipartite "$good"
err files bipartite-claim-false     "bipartite"                  10 "$BIN" info --bipartite "$goodel"
err files edge-feat-on-jodie        "edge-feat"                  10 "$BIN" info --edge-feat "$W/x.npy" "$good"
# TGL folder and .npy
mkdir -p "$W/tgl" "$W/tglempty"
printf ',src,dst,time,ext_roll\n0,0,5,1,0\n1,1,6,2,0\n2,2,7,3,1\n' > "$W/tgl/edges.csv"
err files tgl-folder-without-edges  "edges.csv"                  10 $(INFO "$W/tglempty")
err files tgl-ext-roll-7            "roll.csv:2|ext_roll"        10 $(INFO "$(f roll.csv ",src,dst,time,ext_roll\n0,0,5,1,7\n")")
printf '\x93NUMPY\x01\x00\x76\x00{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (9, 2), }' > "$W/tgl/edge_features.npy"
printf '%*s\n' $((127 - $(stat -c %s "$W/tgl/edge_features.npy") )) "" >> "$W/tgl/edge_features.npy"
head -c 72 /dev/zero >> "$W/tgl/edge_features.npy"
err files tgl-npy-rows-mismatch     "edge_features.npy"          10 $(INFO "$W/tgl")
# PGT json
err files pgt-truncated             "trunc.json"                 10 $(INFO --format pgt "$(f trunc.json '{"0": {"edges": [[0,1]')")
err files pgt-wrong-type            "wrongtype.json"             10 $(INFO --format pgt "$(f wrongtype.json '{"time_periods": "two", "0": {"edges": [[0,1]], "weights": [1], "X": [[1],[1]], "y": [1,1]}}')")
err files pgt-negative-node         "negnode.json"               10 $(INFO --format pgt "$(f negnode.json '{"time_periods": 1, "0": {"edges": [[-1,1]], "weights": [1], "X": [[1],[1]], "y": [1,1]}}')")
err files pgt-missing-period        "missing.json"               10 $(INFO --format pgt "$(f missing.json '{"time_periods": 2, "0": {"edges": [[0,1]], "weights": [1], "X": [[1],[1]], "y": [1,1]}}')")
err files pgt-weight-nan            "wnan.json"                  10 $(INFO --format pgt "$(f wnan.json '{"time_periods": 1, "0": {"edges": [[0,1]], "weights": [NaN], "X": [[1],[1]], "y": [1,1]}}')")
err files pgt-huge-time-periods     "huge.json"                  10 $(INFO --format pgt "$(f huge.json '{"time_periods": 1e18, "0": {"edges": [[0,1]], "weights": [1], "X": [[1],[1]], "y": [1,1]}}')")
err files pgt-ragged-x              "ragx.json"                  10 $(INFO --format pgt "$(f ragx.json '{"time_periods": 1, "0": {"edges": [[0,1]], "weights": [1], "X": [[1,2],[1]], "y": [1,1]}}')")

# ---- the binary .dgnn format -----------------------------------------------------------------
"$BIN" convert "$good" "$W/good.dgnn" > /dev/null 2>&1
"$BIN" convert "$goodel" "$W/goodel.dgnn" > /dev/null 2>&1
"$BIN" convert "$sparse" "$W/sparse.dgnn" > /dev/null 2>&1
{ head -c 8 "$W/good.dgnn"; head -c 4000 /dev/urandom; } > "$W/randbody.dgnn"
err dgnn random-body-after-magic     "randbody.dgnn"             10 $(INFO "$W/randbody.dgnn")
err dgnn random-body-says-corrupt    "corrupt|checksum|damaged|not a"  10 $(INFO "$W/randbody.dgnn")
head -c 100 "$W/good.dgnn" > "$W/trunc.dgnn"
err dgnn truncated-header            "trunc.dgnn"                10 $(INFO "$W/trunc.dgnn")
head -c $(( $(stat -c %s "$W/good.dgnn") - 100 )) "$W/good.dgnn" > "$W/trunc2.dgnn"
err dgnn truncated-body              "trunc2.dgnn"               10 $(INFO "$W/trunc2.dgnn")
cp "$W/good.dgnn" "$W/flip.dgnn"; printf '\x55' | dd of="$W/flip.dgnn" bs=1 seek=700 conv=notrunc 2>/dev/null
err dgnn flipped-byte                "flip.dgnn"                 10 $(INFO "$W/flip.dgnn")
if command -v python3 > /dev/null; then
  # reseal.py IN OUT EDIT: applies EDIT (python over bytearray b and helpers) then recomputes
  # every section checksum and the header checksum, so only the value checks can catch it
  cat > "$W/reseal.py" <<'EOF'
import struct, sys
M = 2**64 - 1
P1, P2, P3, P4, P5 = 11400714785074694791, 14029467366897019727, 1609587929392839161, 9650029242287828579, 2870177450012600261
rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M
def rnd(a, i): return (rotl((a + i * P2) & M, 31) * P1) & M
def merge(a, v): return ((a ^ rnd(0, v)) * P1 + P4) & M
def xxh64(d):
    n, i = len(d), 0
    if n >= 32:
        v = [(P1 + P2) & M, P2, 0, (-P1) & M]
        while i + 32 <= n:
            for k in range(4): v[k] = rnd(v[k], struct.unpack_from('<Q', d, i + 8 * k)[0])
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for k in range(4): h = merge(h, v[k])
    else: h = P5
    h = (h + n) & M
    while i + 8 <= n: h = ((rotl(h ^ rnd(0, struct.unpack_from('<Q', d, i)[0]), 27) * P1) + P4) & M; i += 8
    if i + 4 <= n: h = ((rotl(h ^ ((struct.unpack_from('<I', d, i)[0] * P1) & M), 23) * P2) + P3) & M; i += 4
    while i < n: h = (rotl(h ^ ((d[i] * P5) & M), 11) * P1) & M; i += 1
    h ^= h >> 33; h = (h * P2) & M; h ^= h >> 29; h = (h * P3) & M; h ^= h >> 32
    return h
b = bytearray(open(sys.argv[1], 'rb').read())
nsec = struct.unpack_from('<I', b, 80)[0]
sec = {}
for s in range(nsec):
    sid, el, off, ln, _ = struct.unpack_from('<IIQQQ', b, 128 + 32 * s); sec[sid] = (off, ln)
exec(sys.argv[3])
for s in range(nsec):
    sid, el, off, ln, _ = struct.unpack_from('<IIQQQ', b, 128 + 32 * s)
    struct.pack_into('<Q', b, 128 + 32 * s + 24, xxh64(bytes(b[off:off + ln])))
struct.pack_into('<Q', b, 120, xxh64(bytes(b[:120]) + bytes(b[128:128 + 32 * nsec])))
open(sys.argv[2], 'wb').write(b)
EOF
  rs() { python3 "$W/reseal.py" "$1" "$W/$2" "$3" && echo "$W/$2"; }
  printf 'u,i,ts,label,f1\n' > "$W/feat.csv"; for e in $(seq 0 399); do echo "$((e % 40)),$((40 + (e * 7) % 20)),$e,0,0.5"; done >> "$W/feat.csv"
  "$BIN" convert "$W/feat.csv" "$W/feat.dgnn" > /dev/null 2>&1
  ok  dgnn resealed-unchanged-loads  true                         10 $(INFO "$(rs "$W/good.dgnn" same.dgnn "pass")")
  err dgnn resealed-nan-feature      "nanf.dgnn"                  10 $(INFO "$(rs "$W/feat.dgnn" nanf.dgnn "struct.pack_into('<f', b, sec[4][0] + 40, float('nan'))")")
  err dgnn resealed-inf-feature      "inff.dgnn"                  10 $(INFO "$(rs "$W/feat.dgnn" inff.dgnn "struct.pack_into('<f', b, sec[4][0], float('inf'))")")
  err dgnn resealed-nan-time         "nant.dgnn"                  10 $(INFO "$(rs "$W/good.dgnn" nant.dgnn "struct.pack_into('<d', b, sec[3][0] + 80, float('nan'))")")
  err dgnn resealed-unsorted-time    "unsort.dgnn"                10 $(INFO "$(rs "$W/good.dgnn" unsort.dgnn "struct.pack_into('<d', b, sec[3][0] + 80, 1e9)")")
  err dgnn resealed-id-out-of-range  "idrange.dgnn"               10 $(INFO "$(rs "$W/good.dgnn" idrange.dgnn "struct.pack_into('<i', b, sec[1][0] + 8, 100000)")")
  err dgnn resealed-negative-id      "idneg.dgnn"                 10 $(INFO "$(rs "$W/good.dgnn" idneg.dgnn "struct.pack_into('<i', b, sec[2][0] + 8, -2)")")
  err dgnn resealed-false-bipartite  "bip.dgnn|bipartite"         10 $(INFO "$(rs "$W/goodel.dgnn" bip.dgnn "struct.pack_into('<Q', b, 72, 1)")")
  err dgnn resealed-label-7          "lab.dgnn|label"             10 $(INFO "$(rs "$W/good.dgnn" lab.dgnn "struct.pack_into('<i', b, sec[5][0] + 4, 7) if 5 in sec else None")")
  err dgnn resealed-huge-event-count "count.dgnn"                 10 $(INFO "$(rs "$W/good.dgnn" count.dgnn "struct.pack_into('<Q', b, 16, 2**62)")")
  err dgnn resealed-huge-edge-dim    "edim.dgnn"                  10 $(INFO "$(rs "$W/good.dgnn" edim.dgnn "struct.pack_into('<Q', b, 32, 2**40)")")
  err dgnn resealed-node-ids-unsorted "nids.dgnn"                 10 $(INFO "$(rs "$W/sparse.dgnn" nids.dgnn "struct.pack_into('<q', b, sec[7][0], 10**12)")")
  err dgnn resealed-nan-train        "nanf.dgnn"                  30 "${TRAIN[@]}" --data "$W/nanf.dgnn"
fi

# ---- flags: every command refuses values outside their range, before loading data -------------
err flags train-threads-100000      "threads"                    20 "${TRAIN[@]}" --threads 100000
err flags train-threads-minus-1     "threads"                    20 "${TRAIN[@]}" --threads -1
err flags train-neighbors-1e8       "neighbors"                  30 "${TRAIN[@]}" --neighbors 100000000
err flags train-eval-negatives-1e8  "eval-negatives"             30 "${TRAIN[@]}" --eval-negatives 100000000
err flags train-epochs-100000       "epochs"                     5  "$BIN" train --epochs 100000 --data "$W/longline.csv"
err flags train-epochs-0            "epochs"                     20 "$BIN" train --epochs 0 --quiet
err flags train-epochs-minus-3      "epochs"                     20 "$BIN" train --epochs -3 --quiet
err flags train-batch-0             "batch"                      20 "${TRAIN[@]}" --batch 0
err flags train-batch-1e12          "batch"                      20 "${TRAIN[@]}" --batch 1e12
err flags train-max-batches-minus-1 "max-batches"                20 "${TRAIN[@]}" --max-batches -1
err flags train-lr-0                "lr"                         20 "${TRAIN[@]}" --lr 0
err flags train-lr-negative         "lr"                         20 "${TRAIN[@]}" --lr -0.1
err flags train-lr-nan              "lr"                         20 "${TRAIN[@]}" --lr nan
err flags train-dropout-1.5         "dropout"                    20 "${TRAIN[@]}" --dropout 1.5
err flags train-mem-dim-0           "mem-dim"                    20 "${TRAIN[@]}" --mem-dim 0
err flags train-mem-dim-1e7         "mem-dim"                    20 "${TRAIN[@]}" --mem-dim 10000000
err flags train-time-dim-0          "time-dim"                   20 "${TRAIN[@]}" --time-dim 0
err flags train-heads-0             "heads"                      20 "${TRAIN[@]}" --heads 0
err flags train-heads-not-dividing  "heads"                      20 "${TRAIN[@]}" --heads 7
err flags train-mail-slots-1e9      "mail-slots"                 20 "${TRAIN[@]}" --model apan --mail-slots 1000000000
err flags train-patience-minus-1    "patience"                   20 "${TRAIN[@]}" --patience -1
err flags train-seed-minus-1        "seed"                       20 "${TRAIN[@]}" --seed -1
err flags train-new-node-frac-1.5   "new-node-frac"              20 "${TRAIN[@]}" --new-node-frac 1.5
err flags train-window-events-0     "window-events"              20 "${TRAIN[@]}" --dist depbloom --window-events 0
err flags train-refine-minus-1      "refine"                     20 "${TRAIN[@]}" --dist depbloom --refine -1
err flags train-model-bogus         "model"                      20 "${TRAIN[@]}" --model bogus
err flags train-preset-bogus        "preset"                     20 "${TRAIN[@]}" --preset bogus
err flags train-unknown-flag        "bogus"                      20 "${TRAIN[@]}" --bogus 1
err flags train-int-not-number      "batch"                      20 "${TRAIN[@]}" --batch 12x
err flags train-int-overflow        "batch"                      20 "${TRAIN[@]}" --batch 99999999999999999999
err flags train-missing-value       "data"                       20 "$BIN" train --data
err flags train-data-missing-file   "nosuch.csv"                 20 "${TRAIN[@]}" --data "$W/nosuch.csv"
S=("$BIN" train --model evolvegcn-o --data "$goodel" --snapshots 20 --epochs 1 --quiet --threads 1)
err flags snap-window-minus-1       "window"                     20 "${S[@]}" --window -1
err flags snap-window-100000        "window"                     20 "${S[@]}" --window 100000
err flags snap-hidden-0             "hidden"                     20 "${S[@]}" --hidden 0
err flags snap-hidden-1e7           "hidden"                     20 "${S[@]}" --hidden 10000000
err flags snap-negatives-1e9        "negatives"                  20 "${S[@]}" --negatives 1000000000
err flags snap-snapshots-0          "snapshots"                  20 "${S[@]}" --snapshots 0
err flags snap-snapshot-seconds-0   "snapshot-seconds"           20 "${S[@]}" --snapshot-seconds 0
err flags snap-epochs-0             "epochs"                     20 "${S[@]}" --epochs 0
err flags snap-epochs-1e8-fast      "epochs"                     5  "${S[@]}" --epochs 100000000 --data "$W/longline.csv"
err flags snap-threads-100000       "threads"                    20 "${S[@]}" --threads 100000
err flags snap-lr-negative          "lr"                         20 "${S[@]}" --lr -1
err flags snap-train-frac-1.5       "train-frac"                 20 "${S[@]}" --train-frac 1.5
err flags snap-class-weights-bad    "class-weights"              20 "${S[@]}" --class-weights 1
err flags snap-task-bogus           "task"                       20 "${S[@]}" --task bogus
err flags snap-node-task-on-events  "node|pgt|target"            20 "${S[@]}" --task node
either flags gen-events-0           "events"                     20 "$BIN" gen --events 0 --nodes 100 --out "$W/g0.dgnn"
err flags gen-events-minus-1        "events"                     20 "$BIN" gen --events -1 --nodes 10 --out "$W/g1.dgnn"
err flags gen-nodes-1               "nodes"                      20 "$BIN" gen --events 10 --nodes 1 --out "$W/g2.dgnn"
err flags gen-nodes-1e12            "nodes"                      20 "$BIN" gen --events 10 --nodes 1000000000000 --out "$W/g3.dgnn"
err flags gen-events-1e15-space     "events|space|disk"          20 "$BIN" gen --events 1000000000000000 --nodes 100 --out "$W/g4.dgnn"
err flags info-snapshots-0          "snapshots"                  20 "$BIN" info --snapshots 0 "$good"
err flags info-bins-0               "bins"                       20 "$BIN" info --bins 0 "$good"
err flags info-bins-minus-1         "bins"                       20 "$BIN" info --bins -1 "$good"
err flags info-bins-1e12            "bins"                       20 "$BIN" info --bins 1000000000000 "$good"
err flags schedule-workers-0        "workers"                    20 "$BIN" schedule --model evolvegcn-o --data "$goodel" --snapshots 20 --workers 0
err flags schedule-workers-1e9      "workers"                    20 "$BIN" schedule --model evolvegcn-o --data "$goodel" --snapshots 20 --workers 1000000000
err flags schedule-scheduler-bogus  "scheduler"                  20 "$BIN" schedule --model evolvegcn-o --data "$goodel" --snapshots 20 --workers 2 --scheduler bogus
err flags simulate-workers-0        "workers"                    20 "$BIN" simulate --family snapshot --synthetic 20 --workers 0
err flags simulate-workers-list-bad "workers"                    20 "$BIN" simulate --family snapshot --synthetic 20 --workers 1,,2
err flags simulate-workers-1e12     "workers"                    20 "$BIN" simulate --family snapshot --synthetic 20 --workers 1000000000000
err flags simulate-family-bogus     "family"                     20 "$BIN" simulate --family bogus --workers 2
err flags bench-sampler-k-0         "k"                          20 "$BIN" bench sampler --k 0 "$good"
err flags bench-sampler-k-1e9       "k"                          20 "$BIN" bench sampler --k 1000000000 "$good"

# ---- degenerate data: trainers refuse what they cannot split -----------------------------------
one_ts="$W/onets.csv"; { echo "u,i,ts,label"; for e in $(seq 0 99); do echo "$((e % 10)),$((10 + e % 5)),7,0"; done; } > "$one_ts"
err flags train-one-timestamp       "onets.csv|split|validation|timestamp" 20 "${TRAIN[@]}" --data "$one_ts"
err flags train-single-event        "single.csv|split|validation|event"    20 "${TRAIN[@]}" --data "$(j single.csv "0,1,5,0\n")"
err flags train-two-events          "two.csv|split|validation|event"       20 "${TRAIN[@]}" --data "$(j two.csv "0,1,5,0\n1,2,6,0\n")"
err flags snap-one-timestamp        "onets.csv|split|snapshot|validation"  20 "$BIN" train --model evolvegcn-o --data "$one_ts" --epochs 1 --quiet
err flags snap-too-few-snapshots    "snapshot|window"                      20 "${S[@]}" --snapshots 3

# ---- outputs ----------------------------------------------------------------------------------
ln -s "$W/target.json" "$W/link.json"
ok  outputs out-dev-null-stays-device  "test -c $NUL"                         60 "${TRAIN[@]}" --out "$NUL"
ok  outputs out-symlink-kept           "test -L $W/link.json && test -s $W/target.json" 60 "${TRAIN[@]}" --out "$W/link.json"
err outputs out-missing-folder-fast    "nosuchdir"                                 5  "$BIN" train --quiet --out "$W/nosuchdir/r.json"
err outputs out-is-a-directory         "$W"                                        5  "$BIN" train --quiet --out "$W"
err outputs window-report-missing-dir  "nosuchdir"                                 5  "$BIN" train --quiet --dist depbloom --window-report "$W/nosuchdir/w.csv"
err outputs checkpoint-is-a-file       "checkpoint|good.csv"                       5  "$BIN" train --quiet --checkpoint "$good"
err outputs snap-out-missing-folder    "nosuchdir"                                 5  "${S[@]}" --out "$W/nosuchdir/r.json"
err outputs snap-profile-missing-folder "nosuchdir"                                5  "${S[@]}" --profile "$W/nosuchdir/p.csv"
ok  outputs convert-to-dev-null        "test -c $NUL"                         20 "$BIN" convert "$good" "$NUL"
err outputs convert-missing-folder     "nosuchdir"                                 20 "$BIN" convert "$good" "$W/nosuchdir/x.dgnn"
ok  outputs gen-to-dev-null            "test -c $NUL"                         20 "$BIN" gen --events 1000 --nodes 100 --out "$NUL"
err outputs gen-missing-folder         "nosuchdir"                                 20 "$BIN" gen --events 1000 --nodes 100 --out "$W/nosuchdir/x.dgnn"
err outputs convert-disk-full          "full|space|write"                          20 "$BIN" convert "$good" "$FULL"
err outputs out-disk-full              "full|space|write"                          60 "${TRAIN[@]}" --out "$FULL"
echo '{"old": true}' > "$W/keep.json"; chmod 444 "$W/keep.json"
if [ "$(id -u)" != 0 ]; then
  err outputs out-read-only-file       "keep.json"                                 60 "${TRAIN[@]}" --out "$W/keep.json"
fi

# ---- checkpoints ------------------------------------------------------------------------------
CK=("$BIN" train --data "$good" --epochs 1 --quiet --threads 1)
"${CK[@]}" --checkpoint "$W/ck" > /dev/null 2>&1
err ckpt resume-without-checkpoint-flag "checkpoint"                       20 "${CK[@]}" --resume
err ckpt resume-empty-folder            "ck-empty|checkpoint"              20 "${CK[@]}" --checkpoint "$W/ck-empty" --resume
# a byte in the middle of the file (the parameters), not in the padding between sections
for fck in "$W"/ck/*; do [ -f "$fck" ] && { cp -r "$W/ck" "$W/ck-flip"; printf '\x55' | dd of="$W/ck-flip/$(basename "$fck")" bs=1 seek=$(( $(stat -c %s "$fck") / 2 )) conv=notrunc 2>/dev/null; break; }; done
err ckpt resume-flipped-byte            "ck-flip|checksum|corrupt"         20 "${CK[@]}" --checkpoint "$W/ck-flip" --resume
cp -r "$W/ck" "$W/ck-trunc"; for fck in "$W"/ck-trunc/*; do [ -f "$fck" ] && truncate -s 200 "$fck"; done
err ckpt resume-truncated               "ck-trunc|truncated|short|corrupt" 20 "${CK[@]}" --checkpoint "$W/ck-trunc" --resume
err ckpt resume-other-model             "model|checkpoint"                 20 "${CK[@]}" --model jodie --checkpoint "$W/ck" --resume
err ckpt resume-other-data              "data|checkpoint"                  20 "${CK[@]}" --data "$goodel" --checkpoint "$W/ck" --resume
sed '2s/^0,/1,/' "$good" > "$W/good2.csv" # the same counts, one event's source changed
err ckpt resume-other-data-same-counts  "data|checkpoint|settings"         20 "${CK[@]}" --data "$W/good2.csv" --checkpoint "$W/ck" --resume
mkdir -p "$W/ck-fifo"; mkfifo "$W/ck-fifo/checkpoint.dgnnckpt"
err ckpt resume-from-a-fifo             "ck-fifo|FIFO"                     10 "${CK[@]}" --checkpoint "$W/ck-fifo" --resume
err ckpt resume-other-width             "mem|checkpoint|dim"               20 "${CK[@]}" --mem-dim 8 --checkpoint "$W/ck" --resume
err ckpt resume-under-depbloom          "checkpoint|dist|depbloom|rank"    20 "${CK[@]}" --dist depbloom --checkpoint "$W/ck" --resume

# ---- the file system: what is not a regular file --------------------------------------------
mkfifo "$W/fifo.csv"
err fs info-on-fifo                 "fifo.csv"                   5  "$BIN" info "$W/fifo.csv"
err fs train-on-fifo                "fifo.csv"                   5  "$BIN" train --data "$W/fifo.csv" --quiet
err fs info-on-dev-zero             "/dev/zero"                  10 "$BIN" info /dev/zero
err fs info-on-dev-null             "/dev/null"                  10 "$BIN" info /dev/null
err fs info-on-directory            "$W"                         10 "$BIN" info --format jodie "$W"
err fs info-on-missing              "missing.csv"                10 "$BIN" info "$W/missing.csv"
ln -s "$W/loop1" "$W/loop2"; ln -s "$W/loop2" "$W/loop1"
err fs info-on-symlink-loop         "loop1"                      10 "$BIN" info "$W/loop1"
err fs convert-from-fifo            "fifo.csv"                   5  "$BIN" convert "$W/fifo.csv" "$W/f.dgnn"

echo
printf '%-8s %6s %6s\n' group cases passed
for g in files dgnn flags outputs ckpt fs; do
  [ -n "${G_ALL[$g]:-}" ] && printf '%-8s %6d %6d\n' "$g" "${G_ALL[$g]}" "${G_PASS[$g]:-0}"
done
printf '%-8s %6d %6d\n' all "$TOTAL" "$PASSED"
for o in CRASH HANG SILENT VAGUE WRONG; do printf '%s %d  ' "$o" "${OUTCOMES[$o]:-0}"; done; echo
