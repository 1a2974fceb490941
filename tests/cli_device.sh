#!/usr/bin/env bash
# cli_device.sh DGNN: `dgnn train --device` (issue 14). On every build: cpu is the default
# and trains; a malformed value, --dist or edgebank with cuda are refused (exit 2) before
# any data is read; the JSON names the device. Then by build: without the CUDA backend,
# --device cuda says to rebuild with -DDGNN_CUDA=ON; with it but no GPU, it says there is
# no such device (exit 2, before the data); with a GPU (or the host emulation,
# tests/hostemu), short TGN, JODIE, DyRep and APAN runs train and
# evaluate there (their accuracy against the CPU's is tests/cuda/test_cuda_train's).
set -u
dgnn=$1
. "$(dirname "$0")/lib_cli.sh"
quick="--epochs 1 --max-batches 3 --eval-max-events 300 --quiet"

expect_rc 0 "$dgnn" train --device cpu $quick --out "$tmp/cpu.json"
has "test AP"
if grep -q '"device":[[:space:]]*"cpu"' "$tmp/cpu.json"; then ok; else bad "the JSON lacks device cpu"; fi
for v in gpu cuda: cuda:x cuda:-1 cuda:0x; do
  expect_rc 2 "$dgnn" train --device "$v" --data "$tmp/missing.csv"
  has "--device: '$v' (cpu, cuda, cuda:N)"
done
expect_rc 2 "$dgnn" train --device cuda --dist strict --data "$tmp/missing.csv"
has "--dist with --device cuda"
expect_rc 2 "$dgnn" train --device cuda --model edgebank --data "$tmp/missing.csv"
has "no --device cuda"

"$dgnn" train --device cuda $quick > "$tmp/probe" 2>&1
probe=$?
if grep -q "built without the CUDA backend" "$tmp/probe"; then
  echo "CPU build: --device cuda is refused"
  [ "$probe" = 2 ] && ok || bad "--device cuda in a CPU build: exit $probe (want 2)"
  expect_rc 2 "$dgnn" train --device cuda:3 --data "$tmp/missing.csv"
  has "-DDGNN_CUDA=ON"
else
  if grep -q "CUDA device" "$tmp/probe"; then
    echo "CUDA build without a GPU: --device cuda says so"
    [ "$probe" = 2 ] && ok || bad "--device cuda without a GPU: exit $probe (want 2)"
    cp "$tmp/probe" "$tmp/out"; has "--device cuda:0: this machine has 0 CUDA devices"
  else
    expect_rc 2 "$dgnn" train --device cuda:999 --data "$tmp/missing.csv"
    has "--device cuda:999: this machine has"
    echo "CUDA build with a GPU: a short run on it"
    [ "$probe" = 0 ] && ok || { bad "--device cuda: exit $probe"; head -8 "$tmp/probe"; }
    expect_rc 0 "$dgnn" train --device cuda $quick --out "$tmp/gpu.json"
    has "device: cuda:0"
    has "GPU memory:"
    has "test AP"
    if grep -q '"device":[[:space:]]*"cuda:0"' "$tmp/gpu.json"; then ok; else bad "the JSON lacks device cuda:0"; fi
    for m in jodie dyrep apan; do
      expect_rc 0 "$dgnn" train --device cuda --model $m $quick
      has "test AP"
    done
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
