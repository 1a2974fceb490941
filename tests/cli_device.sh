#!/usr/bin/env bash
# cli_device.sh DGNN [DATA_DIR]: `dgnn train --device` (issue 14). On every build: cpu is the default
# and trains; a malformed value, --dist or edgebank with cuda are refused (exit 2) before
# any data is read; the JSON names the device. Then by build: without the CUDA backend,
# --device cuda says to rebuild with -DDGNN_CUDA=ON; with it but no GPU, it says there is
# no such device (exit 2, before the data); with a GPU (or the host emulation,
# tests/hostemu), short TGN, JODIE, DyRep and APAN runs train and
# evaluate there (their accuracy against the CPU's is tests/cuda/test_cuda_train's).
# strict's and DepBloom's ranks (partitioning, --refine) run there too, 2 of them sharing the
# one GPU (against 2 CPU ranks), with --critical-path too. Where the emulation build has
# NCCL's stand-in (tests/hostemu/nccl/, with MPI), strict, DepBloom and DyGNeX run again with
# 2 ranks of a GPU each on comm_dev.c's NCCL path: the path taken, its calls counted, the CPU
# ranks' figures; the path chosen by all ranks together, and a communicator failing on one
# rank ending every rank.
# The snapshot models (issue 18): every kind runs there too (link and edge tasks; a short run
# on a hand-made stream; wdgcn's groups; --dist dygnex, one process and 2 MPI ranks; a link
# stream of more nodes than the device's all-pairs scores hold refused before training), and the
# node task when the shared PGT data is there (england_covid, against the CPU's test MSE; with
# MPI 2 ranks, the head's gradients summed through the host too); their accuracy against the
# CPU's: tests/cuda/test_cuda_snaptrain*.
set -u
dgnn=$1
data=${2:-$(dirname "$0")/../../shared/data}
. "$(dirname "$0")/lib_cli.sh"
quick="--epochs 1 --max-batches 3 --eval-max-events 300 --quiet"

expect_rc 0 "$dgnn" train --device cpu $quick --out "$tmp/cpu.json"
has "test AP"
if grep -q '"device":[[:space:]]*"cpu"' "$tmp/cpu.json"; then ok; else bad "the JSON lacks device cpu"; fi
for v in gpu cuda: cuda:x cuda:-1 cuda:0x; do
  expect_rc 2 "$dgnn" train --device "$v" --data "$tmp/missing.csv"
  has "--device: '$v' (cpu, cuda, cuda:N)"
done
expect_rc 2 "$dgnn" train --device cuda --model edgebank --data "$tmp/missing.csv"
has "no --device cuda"
expect_rc 2 "$dgnn" train --model evolvegcn-o --device nvidia --data "$tmp/missing.csv"
has "--device: 'nvidia' (cpu, cuda, cuda:N)"
# a hand-made stream of 30 snapshots of 10 s for the snapshot model's runs
: > "$tmp/snap.txt"
for k in $(seq 0 29); do
  for j in $(seq 0 $((k % 5 + 2))); do echo "$j $((j + 20 + k % 3)) $((k * 10 + 1))" >> "$tmp/snap.txt"; done
done
snapq="--data $tmp/snap.txt --snapshot-seconds 10 --window 3 --epochs 2 --skip-val-epochs 0 --hidden 8 --cls-hidden 8 --quiet"
expect_rc 0 "$dgnn" train --model evolvegcn-o --device cpu $snapq --out "$tmp/snapcpu.json"
has "test MAP"
if grep -q '"device":[[:space:]]*"cpu"' "$tmp/snapcpu.json"; then ok; else bad "the snapshot JSON lacks device cpu"; fi

"$dgnn" train --device cuda $quick > "$tmp/probe" 2>&1
probe=$?
if grep -q "built without the CUDA backend" "$tmp/probe"; then
  echo "CPU build: --device cuda is refused"
  [ "$probe" = 2 ] && ok || bad "--device cuda in a CPU build: exit $probe (want 2)"
  expect_rc 2 "$dgnn" train --device cuda:3 --data "$tmp/missing.csv"
  has "-DDGNN_CUDA=ON"
  expect_rc 2 "$dgnn" train --model evolvegcn-o --device cuda --data "$tmp/missing.csv"
  has "-DDGNN_CUDA=ON"
  expect_rc 2 "$dgnn" train --model evolvegcn-o --device cuda --task node --data "$tmp/missing.csv"
  has "-DDGNN_CUDA=ON"
else
  if grep -q "CUDA device" "$tmp/probe"; then
    echo "CUDA build without a GPU: --device cuda says so"
    [ "$probe" = 2 ] && ok || bad "--device cuda without a GPU: exit $probe (want 2)"
    cp "$tmp/probe" "$tmp/out"; has "--device cuda:0: this machine has 0 CUDA devices"
    expect_rc 2 "$dgnn" train --model evolvegcn-o --device cuda --data "$tmp/missing.csv"
    has "--device cuda:0: this machine has 0 CUDA devices"
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
    for m in evolvegcn-h wdgcn gcn; do
      expect_rc 0 "$dgnn" train --model $m --device cuda $snapq
      has "test MAP"
    done
    expect_rc 0 "$dgnn" train --model wdgcn --device cuda $snapq --windows-per-step 3
    has "test MAP"
    for m in tgcn gcrn-gru; do
      expect_rc 0 "$dgnn" train --model $m --device cuda $snapq
      has "test MAP"
    done
    expect_rc 0 "$dgnn" train --model evolvegcn-o --device cuda $snapq --out "$tmp/snapgpu.json"
    has "test MAP"
    has "device: cuda:0 ("
    if grep -q '"device":[[:space:]]*"cuda:0"' "$tmp/snapgpu.json"; then ok; else bad "the snapshot JSON lacks device cuda:0"; fi
    # strict's and DepBloom's ranks sharing the GPU (the collectives through the host), against the CPU ranks
    if command -v mpirun > /dev/null 2>&1; then
      dq="--epochs 2 --max-batches 20 --eval-max-events 500 --quiet"
      # how far the GPU ranks' APs may be from the CPU ranks': the host emulation runs the CPU's
      # ops in the CPU's order, so there the figures are equal (a row moved wrong shows in the
      # third digit); a GPU sums in other orders
      emu=0
      "$dgnn" train --device cuda --epochs 1 --max-batches 1 --no-eval --quiet 2>&1 | grep -q "host emulation" && emu=1
      [ $emu = 1 ] && aptol=1e-6 || aptol=0.01
      same_aps() { # JSON A, JSON B: every epoch's validation AP and the test AP within aptol
        python3 -c "
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
va = [e['val_ap'] for e in a['epochs']] + [a['test']['ap']]
vb = [e['val_ap'] for e in b['epochs']] + [b['test']['ap']]
sys.exit(len(va) != len(vb) or max(abs(x - y) for x, y in zip(va, vb)) > float(sys.argv[3]))" "$1" "$2" "$aptol"
      }
      # the GPU collectives' path (comm_dev.c): ranks sharing the GPU go through the host, and
      # so do ranks with a GPU each where NCCL cannot be used (the emulation has none)
      out=$(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$dgnn" train --device cuda --dist strict \
        --epochs 1 --max-batches 3 --no-eval --quiet 2>&1)
      if echo "$out" | grep -q "rank 0 of 1"; then :
      elif echo "$out" | grep -q "GPU collectives: staged through the host (ranks 0 and 1 share the GPU"; then ok
      elif [ $emu = 0 ] && [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -gt 1 ] && echo "$out" | grep -q "GPU collectives: "; then
        ok # a machine with several GPUs: each rank its own (NCCL, or the host where NCCL cannot load)
      else bad "2 ranks on one GPU: the collectives' path"; echo "$out" | tail -3; fi
      # (the emulation's: HOSTEMU_GPU_PER_RANK gives each rank an emulated GPU of its own)
      if [ $emu = 1 ]; then
        out=$(HOSTEMU_GPU_PER_RANK=1 timeout 120 mpirun --allow-run-as-root --oversubscribe -x HOSTEMU_GPU_PER_RANK -np 2 \
          "$dgnn" train --device cuda --dist strict --epochs 1 --max-batches 3 --no-eval --quiet 2>&1)
        if echo "$out" | grep -q "rank 0 of 1"; then :
        elif echo "$out" | grep -q "GPU collectives: staged through the host (NCCL (libnccl[^ ]*) not loadable"; then ok
        else bad "2 ranks, a GPU each, no NCCL: the collectives' path"; echo "$out" | tail -3; fi
      fi
      # strict; DepBloom with partitioning and refinement (TGN) and with APAN's merged rows
      for run in "strict tgn --dist strict" "strict apan --dist strict" \
                 "depbloom tgn --dist depbloom --partition --refine 2 --window-events 2000" \
                 "depbloom apan --dist depbloom --partition --window-events 2000" \
                 "depbloomcp tgn --dist depbloom --partition --refine 2 --critical-path --window-events 2000" \
                 "depbloomcp apan --dist depbloom --partition --critical-path --window-events 2000"; do
        set -- $run; mode=$1; m=$2; shift 2
        for dev in cpu cuda; do
          timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$dgnn" train --model $m --device $dev "$@" $dq \
            --out "$tmp/$mode-$m-$dev.json" > "$tmp/out" 2>&1 || { bad "mpirun -np 2 --device $dev --model $m $*"; tail -5 "$tmp/out"; }
        done
        ranks=$(python3 -c "import json; print(json.load(open('$tmp/$mode-$m-cuda.json'))['dist']['ranks'])" 2>/dev/null)
        if [ "$ranks" != 2 ]; then echo "(no MPI in this build: $mode's 2 GPU ranks ran as lone processes; not compared)"
        elif same_aps "$tmp/$mode-$m-cuda.json" "$tmp/$mode-$m-cpu.json"; then ok
        else bad "$mode, 2 GPU ranks, $m: validation / test AP apart from the CPU ranks' (by more than $aptol)"; fi
      done
      # the host path's gradient sums with the emulation's lane running each piece at once (a
      # copy down started before its gradients are done would copy unfinished ones)
      if [ $emu = 1 ] && [ "$ranks" = 2 ]; then
        for run in "strict tgn --dist strict" "depbloom tgn --dist depbloom --partition --refine 2 --window-events 2000"; do
          set -- $run; mode=$1; m=$2; shift 2
          HOSTEMU_LANE=now timeout 120 mpirun --allow-run-as-root --oversubscribe -x HOSTEMU_LANE -np 2 "$dgnn" train \
            --model $m --device cuda "$@" $dq --out "$tmp/$mode-$m-now.json" > "$tmp/out" 2>&1 ||
            { bad "HOSTEMU_LANE=now mpirun -np 2 --device cuda --model $m $*"; tail -5 "$tmp/out"; }
          same_aps "$tmp/$mode-$m-now.json" "$tmp/$mode-$m-cpu.json" && ok ||
            bad "$mode, 2 GPU ranks (HOSTEMU_LANE=now), $m: validation / test AP apart from the CPU ranks'"
        done
      fi
      # comm_dev.c's NCCL path, where the emulation build has NCCL's stand-in (tests/hostemu/nccl/:
      # each collective done with MPI): 2 ranks with a GPU each, the gradients all-reduced and the
      # state rows all-gathered between the devices (APAN's merged rows go through the host), the
      # same figures as the CPU ranks; the collectives run on a lane (a second stream) beside the
      # backward, as late as a GPU may run them (the emulation's default) and as early
      # (HOSTEMU_LANE=now: a sum started before its gradients are done would sum unfinished ones)
      nccl_dir="$(cd "$(dirname "$dgnn")" && pwd)/nccl-hostemu"
      if [ -f "$nccl_dir/libnccl-hostemu.so" ]; then
        for lane in late now; do
        for run in "strict tgn --dist strict" "depbloom tgn --dist depbloom --partition --refine 2 --window-events 2000" \
                   "depbloom apan --dist depbloom --partition --window-events 2000" \
                   "depbloomcp tgn --dist depbloom --partition --refine 2 --critical-path --window-events 2000"; do
          set -- $run; mode=$1; m=$2; shift 2
          HOSTEMU_LANE=$lane HOSTEMU_NCCL_LOG=1 HOSTEMU_GPU_PER_RANK=1 LD_LIBRARY_PATH="$nccl_dir" timeout 120 mpirun \
            --allow-run-as-root --oversubscribe -x HOSTEMU_LANE -x HOSTEMU_NCCL_LOG -x HOSTEMU_GPU_PER_RANK -x LD_LIBRARY_PATH \
            -np 2 "$dgnn" train --model $m \
            --device cuda "$@" $dq --out "$tmp/$mode-$m-nccl.json" > "$tmp/out" 2>&1 ||
            { bad "NCCL's stand-in ($lane): mpirun -np 2 --device cuda --model $m $*"; tail -5 "$tmp/out"; }
          grep -q "GPU collectives: NCCL (a GPU per rank)" "$tmp/out" && ok || bad "NCCL's stand-in: the path not taken ($mode $m)"
          # the stand-in's counts: every step's gradients in two sums (the suffix the backward
          # finished first, then the rest; APAN's one: its suffix is empty); the rows by
          # broadcasts unless merged
          if python3 -c "
import json, re, sys
c = [tuple(map(int, x)) for x in re.findall(r'hostemu NCCL rank \d: (\d+) all-reduces \(\d+ floats\), (\d+) broadcasts \((\d+) floats\)', open('$tmp/out').read())]
rows = '$m' != 'apan'
steps = json.load(open('$tmp/$mode-$m-nccl.json'))['dist']['steps']
sums = 2 * steps if rows else steps
sys.exit(not (steps > 0 and len(c) == 2 and all(a == sums and ((b > 0 and f > 0) if rows else b == 0) for a, b, f in c)))"; then ok
          else bad "NCCL's stand-in: the calls counted ($mode $m)"; grep "hostemu NCCL" "$tmp/out"; fi
          if same_aps "$tmp/$mode-$m-nccl.json" "$tmp/$mode-$m-cpu.json"; then ok
          else bad "NCCL's stand-in ($lane), $mode $m: validation / test AP apart from the CPU ranks'"; fi
        done
        done
        # a stream of 20,000 nodes, where a step's rows are a small share of the nodes: only the
        # received nodes' times and counts go up (tgnn_cuda.c's upload_meta; the epoch's pull
        # checks them against the host's), for the device exchange and the critical path's
        "$dgnn" gen --out "$tmp/many.dgnn" --events 8000 --nodes 20000 --seed 3 > /dev/null 2>&1
        for run in "strict --dist strict" "depbloomcp --dist depbloom --partition --critical-path --window-events 2000"; do
          set -- $run; mode=$1; shift
          for dev in cpu nccl; do
            [ $dev = cpu ] && d=cpu || d=cuda
            HOSTEMU_GPU_PER_RANK=1 LD_LIBRARY_PATH="$nccl_dir" timeout 120 mpirun --allow-run-as-root --oversubscribe \
              -x HOSTEMU_GPU_PER_RANK -x LD_LIBRARY_PATH -np 2 "$dgnn" train --data "$tmp/many.dgnn" --model tgn \
              --device $d "$@" --epochs 2 --max-batches 10 --eval-max-events 500 --quiet --out "$tmp/many-$mode-$dev.json" \
              > "$tmp/out" 2>&1 || { bad "20,000 nodes, $mode --device $d"; tail -3 "$tmp/out"; }
          done
          if same_aps "$tmp/many-$mode-nccl.json" "$tmp/many-$mode-cpu.json"; then ok
          else bad "20,000 nodes, NCCL's stand-in, $mode: validation / test AP apart from the CPU ranks'"; fi
        done
        # the path is the ranks' joint choice: DGNN_COMM_DEV=host on one rank only (mpirun passes
        # a variable to remote ranks only with -x) takes every rank through the host, where a
        # rank deciding alone would wait in another collective; and ncclCommInitRank failing on
        # one rank ends the job with that rank's message, not a hang (the other ranks fail too,
        # "failed on another rank", unless the failing rank's MPI_Abort ends them first)
        sq="--model tgn --device cuda --dist strict --epochs 1 --max-batches 3 --eval-max-events 200 --quiet"
        HOSTEMU_GPU_PER_RANK=1 LD_LIBRARY_PATH="$nccl_dir" timeout 120 mpirun --allow-run-as-root --oversubscribe \
          -x HOSTEMU_GPU_PER_RANK -x LD_LIBRARY_PATH -np 1 env DGNN_COMM_DEV=host "$dgnn" train $sq : \
          -np 1 "$dgnn" train $sq > "$tmp/out" 2>&1
        rc=$?
        if [ $rc = 0 ] && grep -q "GPU collectives: staged through the host (DGNN_COMM_DEV=host)" "$tmp/out"; then ok
        else bad "DGNN_COMM_DEV=host on rank 0 only: exit $rc"; tail -3 "$tmp/out"; fi
        # VAR=1 makes the stand-in fail on rank 1: the job ends with a non-zero exit (124: a
        # hang) and that rank's message
        nccl_fails() { # VAR MESSAGE WHAT
          env "$1=1" HOSTEMU_GPU_PER_RANK=1 LD_LIBRARY_PATH="$nccl_dir" timeout 120 mpirun --allow-run-as-root \
            --oversubscribe -x "$1" -x HOSTEMU_GPU_PER_RANK -x LD_LIBRARY_PATH -np 2 "$dgnn" train $sq > "$tmp/out" 2>&1
          rc=$?
          if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "$2" "$tmp/out"; then ok
          else bad "$3: exit $rc (124: a hang)"; tail -4 "$tmp/out"; fi
        }
        nccl_fails HOSTEMU_NCCL_FAIL_INIT "rank 1: NCCL: ncclCommInitRank (2 ranks) failed on rank 1" \
          "ncclCommInitRank failing on rank 1 only"
        # a collective that NCCL reports failed (ncclCommGetAsyncError: a peer or the network
        # died under it) ends the job with that rank's message at its next wait on the device,
        # where the wait would otherwise last forever (the stand-in reports it on rank 1 from
        # its first all-reduce on)
        nccl_fails HOSTEMU_NCCL_ASYNC_ERROR "rank 1: NCCL: a collective failed: remote process exited or there was a network error" \
          "an asynchronous NCCL error on rank 1"
      fi
    fi
    # DyGNeX on the GPU: one process playing 2 ranks, then (with MPI) 2 ranks sharing the GPU,
    # each against the CPU's one-process run (the gradients are summed through the host)
    dyg="--dist dygnex --sched-ranks 2"
    expect_rc 0 "$dgnn" train --model evolvegcn-o --device cpu $snapq $dyg --out "$tmp/dygcpu.json"
    expect_rc 0 "$dgnn" train --model evolvegcn-o --device cuda $snapq $dyg --out "$tmp/dyggpu.json"
    same_map() { # JSON A, JSON B: test MAP within 0.01
      python3 -c "import json,sys; a,b=(json.load(open(p))['test']['map'] for p in sys.argv[1:]); sys.exit(abs(a-b)>0.01)" "$1" "$2"
    }
    same_map "$tmp/dyggpu.json" "$tmp/dygcpu.json" && ok || bad "dygnex on the GPU: test MAP apart from the CPU's"
    # the link task's all-pairs scores on the GPU hold at most 65,535 nodes (the device sort's
    # words): a larger stream is refused before training, and --no-eval trains it
    python3 -c "
with open('$tmp/wide.txt', 'w') as f:
    for i in range(70000): f.write('%d %d %d\\n' % (i, i + 1, 1 + (i * 100) // 70000))"
    wide="--data $tmp/wide.txt --snapshot-seconds 10 --window 3 --epochs 1 --hidden 8 --cls-hidden 8 --quiet"
    expect_rc 1 "$dgnn" train --model evolvegcn-o --device cuda $wide
    has "for at most 65535 nodes (this stream has 70001)"
    expect_rc 0 "$dgnn" train --model evolvegcn-o --device cuda $wide --no-eval
    if command -v mpirun > /dev/null 2>&1; then
      timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$dgnn" train --model evolvegcn-o --device cuda \
        $snapq --dist dygnex --out "$tmp/dyg2.json" > "$tmp/out" 2>&1
      procs=$(python3 -c "import json; print(json.load(open('$tmp/dyg2.json'))['dist']['processes'])" 2>/dev/null)
      if [ "$procs" = 1 ]; then echo "(no MPI in this build: the 2-rank GPU run ran as lone processes; not compared)"
      elif [ "$procs" = 2 ] && same_map "$tmp/dyg2.json" "$tmp/dygcpu.json"; then ok
      else bad "mpirun -np 2 --device cuda --dist dygnex (processes: $procs)"; tail -5 "$tmp/out"; fi
      # the same with a GPU each and NCCL's stand-in (the model's gradients all-reduced by it)
      nccl_dir="$(cd "$(dirname "$dgnn")" && pwd)/nccl-hostemu"
      if [ -f "$nccl_dir/libnccl-hostemu.so" ]; then
        HOSTEMU_NCCL_LOG=1 HOSTEMU_GPU_PER_RANK=1 LD_LIBRARY_PATH="$nccl_dir" timeout 120 mpirun --allow-run-as-root \
          --oversubscribe -x HOSTEMU_NCCL_LOG -x HOSTEMU_GPU_PER_RANK -x LD_LIBRARY_PATH -np 2 "$dgnn" train \
          --model evolvegcn-o --device cuda $snapq --dist dygnex --out "$tmp/dyg2nccl.json" > "$tmp/out" 2>&1
        if grep -q "GPU collectives: NCCL (a GPU per rank)" "$tmp/out" && grep -q "hostemu NCCL rank 0: [1-9]" "$tmp/out" &&
           same_map "$tmp/dyg2nccl.json" "$tmp/dygcpu.json"; then ok
        else bad "mpirun -np 2 --device cuda --dist dygnex with NCCL's stand-in"; tail -5 "$tmp/out"; fi
      fi
    fi
    # the node task (its head on the GPU too) on PGT's england_covid: the CPU's test MSE
    covid="$data/pgt/england_covid.json"
    if [ -r "$covid" ]; then
      nodeq="--task node --data $covid --epochs 2 --threads 2 --quiet"
      same_mse() { # JSON A, JSON B: test MSE within 1e-3 relative
        python3 -c "import json,sys; a,b=(json.load(open(p))['test']['mse'] for p in sys.argv[1:]); sys.exit(not abs(a-b)<=1e-3*abs(b))" "$1" "$2"
      }
      expect_rc 0 "$dgnn" train --model evolvegcn-o --device cpu $nodeq --out "$tmp/nodecpu.json"
      expect_rc 0 "$dgnn" train --model evolvegcn-o --device cuda $nodeq --out "$tmp/nodegpu.json"
      has "test MSE"
      has "device: cuda:0 ("
      same_mse "$tmp/nodegpu.json" "$tmp/nodecpu.json" && ok || bad "the node task on the GPU: test MSE apart from the CPU's"
      for m in evolvegcn-h tgcn wdgcn; do # the other kinds' windows under the head
        expect_rc 0 "$dgnn" train --model $m --device cpu $nodeq --out "$tmp/node-$m-cpu.json"
        expect_rc 0 "$dgnn" train --model $m --device cuda $nodeq --out "$tmp/node-$m-gpu.json"
        same_mse "$tmp/node-$m-gpu.json" "$tmp/node-$m-cpu.json" && ok || bad "the node task on the GPU, $m: test MSE apart from the CPU's"
      done
      if command -v mpirun > /dev/null 2>&1; then # 2 ranks on the GPU: the head's gradients through the host
        expect_rc 0 "$dgnn" train --model evolvegcn-o --device cpu $nodeq $dyg --out "$tmp/nodedygcpu.json"
        timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$dgnn" train --model evolvegcn-o --device cuda \
          $nodeq --dist dygnex --out "$tmp/nodedyg2.json" > "$tmp/out" 2>&1
        procs=$(python3 -c "import json; print(json.load(open('$tmp/nodedyg2.json'))['dist']['processes'])" 2>/dev/null)
        if [ "$procs" = 1 ]; then echo "(no MPI in this build: the 2-rank node run ran as lone processes; not compared)"
        elif [ "$procs" = 2 ] && same_mse "$tmp/nodedyg2.json" "$tmp/nodedygcpu.json"; then ok
        else bad "mpirun -np 2 --device cuda --dist dygnex --task node (processes: $procs)"; tail -5 "$tmp/out"; fi
      fi
    else
      echo "(no $covid: the node task's GPU run skipped)"
    fi
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
