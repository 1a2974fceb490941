"""The snapshot models through dgnn.train and DyGNeX's scheduler through dgnn.schedule:
the command's figures and JSON in-process, errors as DgnnError."""
import json
import subprocess

import pytest

import dgnn
from conftest import DGNN_BIN

SNAP = dict(snapshots=20, window=3, epochs=2, hidden=8, cls_hidden=8, negatives=5, seed=1, skip_val_epochs=0,
            quiet=True)
SCHED = dict(snapshots=20, window=3)


def _cmd(args):
    return subprocess.run([DGNN_BIN] + args, check=True, capture_output=True, text=True)


@pytest.mark.parametrize("model", ["evolvegcn-o", "tgcn"])
def test_snapshot_model_same_figures_as_the_command(stream, tmp_path, model):
    out = str(tmp_path / "cmd.json")
    _cmd(["train", "--data", stream, "--out", out] + dgnn.options_to_flags(dict(model=model, **SNAP)))
    cmd = json.load(open(out))
    seen = []
    py = dgnn.train(dgnn.load(stream), model=model, on_epoch=seen.append, **SNAP)
    assert py["model"] == cmd["model"] and py["dataset"] == stream
    for k in ("map", "mrr"):
        assert py["test"][k] == pytest.approx(cmd["test"][k], abs=1e-9), k
    assert len(py["epochs"]) == len(cmd["epochs"]) == 2
    for a, b in zip(py["epochs"], cmd["epochs"]):
        for k in ("train_loss", "val_map", "val_mrr"):
            assert a[k] == pytest.approx(b[k], abs=1e-9), k
    assert py["config"] == cmd["config"] and py["data"] == cmd["data"] and py["num_params"] == cmd["num_params"]
    # on_epoch: each epoch's line
    assert [e["epoch"] for e in seen] == [1, 2]
    assert seen[1]["val_map"] == py["epochs"][1]["val_map"]


def test_snapshot_model_errors(stream):
    ev = dgnn.load(stream)
    with pytest.raises(dgnn.DgnnError, match="--window must be in 0..10000") as e:
        dgnn.train(ev, model="evolvegcn-o", window=-1)
    assert e.value.code == -4
    with pytest.raises(dgnn.DgnnError, match="--data: the events are given as arrays"):
        dgnn.train(ev, model="evolvegcn-o", data=stream)
    with pytest.raises(dgnn.DgnnError, match="--dist"):
        dgnn.train(ev, model="evolvegcn-o", dist="dygnex")
    with pytest.raises(dgnn.DgnnError, match="return_model is for the event models"):
        dgnn.train(ev, model="gcn", return_model=True)


def _without_timing(d):
    d = dict(d)
    d.pop("solve_seconds")
    return d


@pytest.mark.parametrize("scheduler", ["even", "greedy"])
def test_schedule_same_json_as_the_command(stream, scheduler):
    flags = dgnn.options_to_flags(dict(model="evolvegcn-o", workers=3, scheduler=scheduler, **SCHED))
    cmd = json.loads(_cmd(["schedule", "--data", stream, "--json"] + flags).stdout)
    py = dgnn.schedule(stream, model="evolvegcn-o", workers=3, scheduler=scheduler, **SCHED)
    assert _without_timing(py) == _without_timing(cmd)
    assert py["workers"] == 3 and py["scheduler"] == scheduler
    samples = sorted(x for r in py["schedule"] for g in r["groups"] for x in g)
    assert len(samples) == py["windows"] == len(set(samples))


def test_schedule_errors(stream):
    ev = dgnn.load(stream)
    with pytest.raises(dgnn.DgnnError, match="unknown scheduler 'magic'") as e:
        dgnn.schedule(ev, workers=2, scheduler="magic", **SCHED)
    assert e.value.code == -4
    with pytest.raises(dgnn.DgnnError, match="--workers P"):
        dgnn.schedule(ev, **SCHED)
    with pytest.raises(dgnn.DgnnError, match="not a snapshot model"):
        dgnn.schedule(ev, model="tgn", workers=2, **SCHED)
    with pytest.raises(dgnn.DgnnError, match="--data: the events are given as arrays"):
        dgnn.schedule(ev, workers=2, data=stream, **SCHED)


def test_snapshot_on_epoch_stops_training(stream):
    seen = []
    py = dgnn.train(dgnn.load(stream), model="evolvegcn-o", on_epoch=lambda e: seen.append(e) or True,
                    **dict(SNAP, epochs=5))
    assert [e["epoch"] for e in seen] == [1] and len(py["epochs"]) == 1
    assert py["stopped_by_caller"] is True and py["early_stopped"] is True


def test_snapshot_ctrl_c_raises_keyboard_interrupt(stream, python_sigint):
    import os
    import signal
    import threading
    ev = dgnn.load(stream)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match="interrupted"):
            dgnn.train(ev, model="evolvegcn-o", **dict(SNAP, epochs=1000, patience=1000))
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
