"""dgnn.train: the command's figures in-process, the per-epoch callback, errors, Ctrl-C."""
import json
import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import dgnn
from conftest import DGNN_BIN, ROOT

FLAGS = dict(epochs=2, seed=1, batch=200, mem_dim=16, time_dim=8, quiet=True)


def test_options_to_flags():
    assert dgnn.options_to_flags({"epochs": 3, "quiet": True, "no_eval": False, "new_node_frac": 0.1,
                                  "protocol": ["tgn", "dyglib"], "preset": None}) == [
        "--epochs", "3", "--quiet", "--new-node-frac", "0.1", "--protocol", "tgn,dyglib"]


@pytest.mark.parametrize("model", ["tgn", "jodie"])
def test_same_figures_as_the_command(stream, tmp_path, model):
    out = str(tmp_path / "cmd.json")
    argv = dgnn.options_to_flags(dict(model=model, **FLAGS))
    subprocess.run([DGNN_BIN, "train", "--data", stream, "--out", out] + argv, check=True, capture_output=True)
    cmd = json.load(open(out))
    py = dgnn.train(dgnn.load(stream), model=model, **FLAGS)
    for k in ("ap", "auc", "new_node_ap", "new_node_auc", "mrr_random"):
        assert py["test"][k] == pytest.approx(cmd["test"][k], abs=1e-9), k
    for a, b in zip(py["epochs"], cmd["epochs"]):
        assert a["train_loss"] == pytest.approx(b["train_loss"], abs=1e-9)
        assert a["val_ap"] == pytest.approx(b["val_ap"], abs=1e-9)
    assert py["config"] == cmd["config"] and py["data"] == cmd["data"]
    assert py["dataset"] == stream and "stopped_by_caller" not in py


def test_out_flag_writes_the_same_json(stream, tmp_path):
    out = tmp_path / "py.json"
    res = dgnn.train(stream, out=str(out), **FLAGS)
    assert json.load(open(out))["test"] == res["test"]


def test_an_output_that_cannot_be_written_keeps_the_results(stream, tmp_path):
    """The run got through and only out= failed (a full disk): DgnnError, with the results in
    e.result (they were thrown away with the error); an output over the data file read is
    refused before any work, as the command refuses one over --data."""
    with pytest.raises(dgnn.DgnnError, match="/dev/full") as e:
        dgnn.train(stream, out="/dev/full", **FLAGS)
    assert e.value.result is not None and "ap" in e.value.result["test"]
    copy = tmp_path / "copy.csv"
    copy.write_bytes(open(stream, "rb").read())
    before = copy.read_bytes()
    for out in ({"out": str(copy)}, {"curve": str(copy)}):
        with pytest.raises(dgnn.DgnnError, match="would destroy") as e:
            dgnn.train(str(copy), **out, **FLAGS)
        assert e.value.result is None
    assert copy.read_bytes() == before


def test_on_epoch_stops_after_epoch_1(stream):
    seen = []
    res = dgnn.train(stream, epochs=3, seed=1, batch=200, mem_dim=16, time_dim=8, quiet=True,
                     on_epoch=lambda e: seen.append(e) or True)
    assert [e["epoch"] for e in seen] == [1]
    assert len(res["epochs"]) == 1 and res["stopped_by_caller"] is True
    assert res["epochs"][0]["val_ap"] == seen[0]["val_ap"]
    assert res["test"]["ap"] is not None


def test_exception_in_on_epoch_is_raised(stream):
    def boom(e):
        raise ValueError("from the callback")
    with pytest.raises(ValueError, match="from the callback"):
        dgnn.train(stream, on_epoch=boom, **FLAGS)


def test_bad_flags_carry_the_command_message(stream):
    ev = dgnn.load(stream)
    with pytest.raises(dgnn.DgnnError, match=r"dgnn train: --epochs must be in 1..1024 \(got 0\)"):
        dgnn.train(ev, epochs=0)
    with pytest.raises(dgnn.DgnnError, match="unknown option '--bogus'"):
        dgnn.train(ev, bogus=1)
    with pytest.raises(dgnn.DgnnError, match="--model: unknown model 'gat'"):
        dgnn.train(ev, model="gat")
    with pytest.raises(dgnn.DgnnError, match="--data"):
        dgnn.train(ev, data=stream)


def test_ctrl_c_raises_keyboard_interrupt_and_restores_the_handler(python_sigint):
    ev = dgnn.Events.from_arrays(*_long_stream())
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match="interrupted"):
            dgnn.train(ev, epochs=50, batch=20, quiet=True)
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):  # Python's own handler is back in C too
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000000):
            pass


def test_ctrl_c_calls_the_callers_own_sigint_handler(python_sigint):
    # signal.signal(SIGINT, mine) was passed over: KeyboardInterrupt was raised instead
    import types
    from dgnn.errors import DGNN_EINTR
    ev = dgnn.Events.from_arrays(*_long_stream())
    calls = []

    class Stop(Exception):
        pass

    def mine(signum, frame):
        calls.append((signum, frame))

    def stop(signum, frame):
        raise Stop("from the handler")

    def interrupted_train(handler, raises):
        signal.signal(signal.SIGINT, handler)
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with pytest.raises(raises) as e:
                dgnn.train(ev, epochs=50, batch=20, quiet=True)
        except KeyboardInterrupt:
            pytest.fail("KeyboardInterrupt instead of the caller's SIGINT handler")
        finally:
            timer.cancel()
        assert signal.getsignal(signal.SIGINT) is handler
        return e.value
    # the handler runs once, as Python runs it; when it returns, the run is lost all the same
    e = interrupted_train(mine, dgnn.DgnnError)
    assert len(calls) == 1 and calls[0][0] == signal.SIGINT and isinstance(calls[0][1], types.FrameType)
    assert e.code == DGNN_EINTR and e.result is None
    assert str(e).startswith("dgnn.train: interrupted (SIGINT): the SIGINT handler") and "mine" in str(e), str(e)
    assert str(interrupted_train(stop, Stop)) == "from the handler"  # what it raises is raised


def _long_stream():
    import numpy as np
    rng = np.random.default_rng(1)
    E = 20000
    return rng.integers(0, 100, E), rng.integers(100, 300, E), np.arange(E, dtype=np.float64)


@pytest.mark.parametrize("model,extra", [("tgn", {}), ("evolvegcn-o", dict(snapshots=20, window=3))])
def test_loading_flags_told_the_events_are_in_memory(stream, model, extra):
    # the data is given (as an Events), not missing: the message says so
    ev = dgnn.load(stream)
    with pytest.raises(dgnn.DgnnError, match=r"dgnn train: --columns describes a data file to read, but the events "
                                             r"are given in memory \(dgnn.train's data\)") as e:
        dgnn.train(ev, model=model, epochs=1, columns="src,dst,ts", quiet=True, **extra)
    assert "no --data is given" not in str(e.value)


QUICK = dict(epochs=1, max_batches=2, eval_max_events=300, seed=1, mem_dim=8, time_dim=4, quiet=True)


def test_true_for_an_option_that_takes_a_value(stream, tmp_path, monkeypatch):
    # curve=True became a bare --curve that took the next flag (--quiet) as its file name
    monkeypatch.chdir(tmp_path)
    ev = dgnn.load(stream)
    for opt, meta in (("curve", "FILE"), ("checkpoint", "DIR"), ("epochs", "N")):
        want = r"dgnn train: %s=True: --%s needs a value \(%s\)" % (opt, opt, meta)
        with pytest.raises(dgnn.DgnnError, match=want) as e:
            dgnn.train(ev, **dict(QUICK, **{opt: True}))
        assert e.value.code == -4
    assert os.listdir(tmp_path) == []  # no ./--quiet
    with pytest.raises(dgnn.DgnnError, match=r"--quiet is a switch"):
        dgnn.train(ev, **dict(QUICK, quiet=1))
    with pytest.raises(dgnn.DgnnError, match=r"dgnn schedule: svg=True: --svg needs a value"):
        dgnn.schedule(ev, workers=2, snapshots=20, window=3, svg=True)


def test_a_curve_that_lost_lines_fails_the_run(stream):
    # the command exits 1 when --curve lost lines; in-process the run returned its results
    if not os.access("/dev/full", os.W_OK):
        pytest.skip("no /dev/full")
    ev = dgnn.load(stream)
    with pytest.raises(dgnn.DgnnError, match=r"--curve /dev/full: 1 epoch line could not be written"):
        dgnn.train(ev, **dict(QUICK, curve="/dev/full"))


def test_a_dump_config_that_cannot_be_written_keeps_the_events(stream):
    # a failed --dump-config freed the caller's events: the next call read a freed table
    if not os.access("/dev/full", os.W_OK):
        pytest.skip("no /dev/full")
    ev = dgnn.load(stream)
    before = ev.to_numpy()["src"].copy()
    with pytest.raises(dgnn.DgnnError, match=r"--dump-config: cannot write /dev/full"):
        dgnn.train(ev, **dict(QUICK, dump_config="/dev/full"))
    np.testing.assert_array_equal(ev.to_numpy()["src"], before)
    assert dgnn.train(ev, **QUICK)["data"]["events"] == len(before)


def test_unknown_names_are_refused_whatever_the_value(stream):
    # quite=False and foo=None were dropped as "not given", and the run trained
    ev = dgnn.load(stream)
    for bad in (dict(quite=False), dict(foo=None), dict(foo=1)):
        name = list(bad)[0]
        with pytest.raises(dgnn.DgnnError, match=r"unknown option '--%s'" % name):
            dgnn.train(ev, **dict(QUICK, **bad))
    with pytest.raises(dgnn.DgnnError, match=r"unknown option '--foo'"):
        dgnn.schedule(ev, workers=2, snapshots=20, window=3, foo=False)
    # a known option set to False or None is still "not given"
    assert dgnn.train(ev, **dict(QUICK, curve=None, no_eval=False))["test"]["ap"] is not None


def test_an_exception_in_on_epoch_stops_the_run_at_once(stream, tmp_path, capfd):
    # the test still ran and --out was written as a finished run's (stopped_by_caller true)
    out = tmp_path / "r.json"
    seen = []

    def boom(e):
        seen.append(e["epoch"])
        raise ValueError("from the callback")
    with pytest.raises(ValueError, match="from the callback"):
        dgnn.train(stream, on_epoch=boom, out=str(out), **dict(QUICK, epochs=3))
    o, err = capfd.readouterr()
    assert seen == [1] and not out.exists()
    assert "test AP" not in o and "stopped by the caller" not in err
    # in the last epoch too (the trainer checks after the hook, not only at its next step),
    # and for a snapshot model
    for kw in (dict(QUICK, epochs=1), dict(model="evolvegcn-o", snapshots=20, window=3, epochs=1, hidden=8,
                                            cls_hidden=8, quiet=True)):
        seen.clear()
        with pytest.raises(ValueError, match="from the callback"):
            dgnn.train(stream, on_epoch=boom, out=str(out), **kw)
        o, err = capfd.readouterr()
        assert seen == [1] and not out.exists(), kw
        assert "test AP" not in o and "test MAP" not in o, kw
    # not callable: refused before any training
    with pytest.raises(TypeError, match="on_epoch must be a function"):
        dgnn.train(stream, on_epoch=5, **QUICK)
    assert "epoch 1" not in capfd.readouterr().err


def test_paths_as_bytes_and_file_names_that_are_not_utf8(stream, tmp_path, monkeypatch):
    import shutil
    assert dgnn.train(os.fsencode(stream), **QUICK)["dataset"] == stream  # it said "b'...'"
    odd = os.path.join(os.fsencode(str(tmp_path)), b"s\xff.csv")
    shutil.copy(stream, odd)
    res = dgnn.train(odd, checkpoint=os.path.join(os.fsencode(str(tmp_path)), b"ck\xff"), **QUICK)  # UnicodeEncodeError
    assert res["dataset"] == os.fsdecode(odd)
    assert os.path.isdir(os.path.join(os.fsencode(str(tmp_path)), b"ck\xff"))
    # NUL: C would cut the string there (checkpoint="a\x00b" trained into ./a)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(dgnn.DgnnError, match=r"--checkpoint: 'a\\x00b' holds a NUL character"):
        dgnn.train(stream, checkpoint="a\x00b", **QUICK)
    assert not os.path.exists("a")
    ev = dgnn.load(stream)
    ev.name = "x\x00y"
    with pytest.raises(dgnn.DgnnError, match="NUL"):
        dgnn.train(ev, **QUICK)


def test_false_for_an_option_that_takes_a_value(stream):
    # epochs=False trained the preset's 10 epochs, max_batches=False the whole epoch
    ev = dgnn.load(stream)
    for opt, meta in (("epochs", "N"), ("max_batches", "N"), ("curve", "FILE")):
        want = r"dgnn train: %s=False: --%s needs a value \(%s\), not False \(None leaves it out\)" % (
            opt, opt.replace("_", "-"), meta)
        with pytest.raises(dgnn.DgnnError, match=want) as e:
            dgnn.train(ev, **dict(QUICK, **{opt: False}))
        assert e.value.code == -4
    with pytest.raises(dgnn.DgnnError, match=r"dgnn schedule: workers=False: --workers needs a value"):
        dgnn.schedule(ev, workers=False, snapshots=20, window=3)


def test_ctrl_c_during_the_option_table_read_is_raised(stream, monkeypatch):
    # an interrupted --help read returned None: no option checks, and the run went ahead
    import sys
    from dgnn.errors import DGNN_EINTR
    train_module = sys.modules["dgnn.train"]

    class Interrupted:
        def __init__(self, real):
            self.real = real

        def __getattr__(self, name):
            return getattr(self.real, name)

        def dgnn_capi_help(self, *args):
            return DGNN_EINTR

    ev = dgnn.load(stream)
    monkeypatch.setattr(train_module, "_KINDS", {})  # not read yet in this process
    monkeypatch.setattr(dgnn._lib, "_lib", Interrupted(dgnn._lib.lib()))
    with pytest.raises(KeyboardInterrupt, match="dgnn train: interrupted"):
        dgnn.train(ev, **QUICK)
    with pytest.raises(KeyboardInterrupt, match="dgnn schedule: interrupted"):
        dgnn.schedule(ev, workers=2, snapshots=20, window=3)
    assert train_module._KINDS == {}


def test_a_failing_run_removes_its_temporary_model_at_once(stream, tmp_path, monkeypatch):
    # the folder stayed until the traceback (which holds train's frame) was dropped
    import tempfile
    folders = tmp_path / "tmp"
    folders.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folders))
    ev = dgnn.load(stream)

    def boom(e):
        raise ValueError("from the callback")
    for kw, exc in ((dict(epochs=0), dgnn.DgnnError), (dict(curve=True), dgnn.DgnnError),
                    (dict(on_epoch=boom), ValueError)):
        with pytest.raises(exc) as e:
            dgnn.train(ev, return_model=True, **dict(QUICK, **kw))
        assert os.listdir(folders) == [], (kw, e.value)
    res, model = dgnn.train(ev, return_model=True, **QUICK)
    assert [os.path.join(str(folders), f) for f in os.listdir(folders)] == [os.path.dirname(model.path)]


def test_temporary_models_of_dead_processes_are_removed(stream, tmp_path, monkeypatch):
    # a process killed (SIGKILL) while it held a model left its /tmp/dgnn-model-* folder for good
    import sys
    import tempfile
    train_module = sys.modules["dgnn.train"]
    folders = tmp_path / "tmp"
    folders.mkdir()
    env = dict(os.environ, TMPDIR=str(folders), PYTHONPATH=os.path.join(ROOT, "python"))
    code = ("import os, signal, sys, dgnn\n"
            "res, model = dgnn.train(sys.argv[1], return_model=True, **%r)\n"
            "print('FOLDER ' + os.path.dirname(model.path), flush=True)\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n" % QUICK)
    child = subprocess.Popen([sys.executable, "-c", code, stream], env=env, stdout=subprocess.PIPE, text=True)
    out = child.communicate(timeout=120)[0]
    killed = [x[7:] for x in out.splitlines() if x.startswith("FOLDER ")][0]
    assert child.returncode == -signal.SIGKILL and os.path.isdir(killed)
    assert os.path.dirname(killed) == str(folders) and os.path.basename(killed).startswith(
        "dgnn-model-%d-" % child.pid)
    # what must stay: live processes' folders (this one's, its parent's), names that are not
    # exactly the package's, another pid namespace's or machine's (their pids are not ours to
    # judge), a link and a file named as a folder would be
    pid, start, key = os.getpid(), train_module._proc_start(os.getpid()), train_module._host_key()
    parent = train_module._proc_start(os.getppid())
    assert start and key and parent
    live = folders / ("dgnn-model-%d-%s-%s-abcd_123" % (pid, start, key))
    reused = folders / ("dgnn-model-%d-%d-%s-abcd_123" % (pid, int(start) - 1, key))  # this pid, an earlier process
    kept = [live, folders / ("dgnn-model-%d-%s-%s-abcd_123" % (os.getppid(), parent, key)),
            folders / ("dgnn-model-%d-%d-%s-abc" % (child.pid, 1, key)), folders / "dgnn-model-x",
            folders / ("dgnn-model-%d-%d-%s-abcd_123" % (child.pid, 1, "0" * 8)),
            folders / ("dgnn-model-%d-%d-%s-abcd_123x" % (child.pid, 1, key))]
    for d in kept + [reused]:
        d.mkdir()
    target = tmp_path / "target"
    target.mkdir()
    (target / "f").write_text("x")
    link = folders / ("dgnn-model-%d-%d-%s-link_123" % (child.pid, 1, key))
    link.symlink_to(target)
    plain = folders / ("dgnn-model-%d-%d-%s-file_123" % (child.pid, 1, key))
    plain.write_text("x")
    # another user's folders are not this process's to remove (os.geteuid as if we were another)
    with monkeypatch.context() as m:
        m.setattr(os, "geteuid", lambda: os.stat(killed).st_uid + 1)
        train_module._remove_stale(str(folders), key)
    assert os.path.isdir(killed) and reused.is_dir()
    monkeypatch.setattr(tempfile, "tempdir", str(folders))
    res, model = dgnn.train(stream, return_model=True, **QUICK)
    assert not os.path.exists(killed) and not reused.exists()
    assert all(d.is_dir() for d in kept) and link.is_symlink() and (target / "f").exists() and plain.is_file()
    assert os.path.basename(os.path.dirname(model.path)).startswith("dgnn-model-%d-%s-%s-" % (pid, start, key))


def test_resume_without_a_checkpoint_says_so(stream):
    # it said ".../tmp/dgnn-model-x/checkpoint/checkpoint.dgnnckpt: cannot open"
    with pytest.raises(dgnn.DgnnError, match=r"dgnn.train: resume=True needs checkpoint=DIR") as e:
        dgnn.train(stream, return_model=True, resume=True, **QUICK)
    assert e.value.code == -4


def test_data_that_is_not_events_or_a_path(stream):
    # "None: cannot open", "[0. 0. 0.]: cannot open"
    import numpy as np
    with pytest.raises(TypeError, match=r"dgnn.train: data: an Events or a path \(str, bytes or os.PathLike\), "
                                        r"got NoneType"):
        dgnn.train(None, **QUICK)
    with pytest.raises(TypeError, match=r"got ndarray \(arrays: dgnn.Events.from_arrays"):
        dgnn.train(np.zeros(3), **QUICK)
    with pytest.raises(TypeError, match=r"dgnn.schedule: data: an Events or a path"):
        dgnn.schedule(3, workers=2)


def test_long_messages_keep_their_end(stream, tmp_path):
    # the message was cut to 1023 characters: the reason at its end ("File name too long") was lost
    long = str(tmp_path / ("q" * 3000) / "c.csv")
    with pytest.raises(dgnn.DgnnError) as e:
        dgnn.train(stream, curve=long, **QUICK)
    msg = str(e.value)
    assert len(msg) > 3000 and msg.startswith("dgnn train: --curve ") and msg.endswith("File name too long"), msg[-200:]
