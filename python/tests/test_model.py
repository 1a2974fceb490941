"""dgnn.Model, dgnn.load_model, dgnn.eval: a checkpoint evaluated in-process."""
import numpy as np
import pytest

import dgnn
from dgnn.errors import DGNN_EINVAL

FLAGS = dict(epochs=2, seed=1, batch=200, mem_dim=16, time_dim=8, quiet=True)
QUICK = dict(epochs=1, max_batches=2, eval_max_events=300, seed=1, mem_dim=8, time_dim=4, quiet=True)


@pytest.fixture(scope="module")
def trained(stream, tmp_path_factory):
    ev = dgnn.load(stream)
    res, model = dgnn.train(ev, return_model=True, **FLAGS)
    saved = model.save(str(tmp_path_factory.mktemp("saved") / "model"))
    return ev, res, model, saved


def _pairs(ev):
    d = ev.to_numpy()
    ids = d["node_ids"]
    return ids[d["src"][:50]], ids[d["dst"][-50:]], np.linspace(float(d["t"][0]), float(d["t"][-1]) + 10, 50)


def test_saved_copy_gives_the_same_embeddings_and_scores(trained):
    ev, res, model, saved = trained
    other = dgnn.load_model(saved, ev)
    nodes = ev.to_numpy()["node_ids"][:20]
    t = float(ev.to_numpy()["t"][-1])
    a, b = model.embed(nodes, t), other.embed(nodes, t)
    assert np.array_equal(a, b)
    s, d, tt = _pairs(ev)
    assert np.array_equal(model.score(s, d, tt), other.score(s, d, tt))


def test_eval_gives_the_training_test_figures(trained):
    ev, res, model, saved = trained
    for r in (model.eval(quiet=True), dgnn.eval(ev, saved, quiet=True)):
        for k in ("ap", "auc", "new_node_ap", "new_node_auc", "mrr_random"):
            assert r["test"][k] == pytest.approx(res["test"][k], abs=1e-9), k
    r = model.eval(protocol=["tgn", "dyglib"], quiet=True)
    assert r["test"]["ap"] == pytest.approx(res["test"]["ap"], abs=1e-9)
    assert "dyglib" in r["protocols"]
    v = model.eval(on="val", quiet=True)
    assert v["epochs"] is not None


def test_embed_shape_and_determinism(trained):
    ev, res, model, _ = trained
    nodes = ev.to_numpy()["node_ids"][[0, 5, 7, 5]]
    e = model.embed(nodes, np.array([1.0, 2.0, 3.0, 2.0]))
    assert e.shape == (4, 16) and e.dtype == np.float32 and np.isfinite(e).all()
    assert np.array_equal(e[1], e[3])
    assert np.array_equal(e, model.embed(nodes, np.array([1.0, 2.0, 3.0, 2.0])))


def test_score_is_a_probability(trained):
    ev, res, model, _ = trained
    s, d, t = _pairs(ev)
    p = model.score(s, d, t)
    assert p.shape == (50,) and p.dtype == np.float32
    assert ((p > 0) & (p < 1)).all()
    assert np.array_equal(p, model.score(s, d, t))


def test_errors(trained, tmp_path):
    ev, res, model, saved = trained
    with pytest.raises(dgnn.DgnnError, match="no such checkpoint"):
        dgnn.load_model(str(tmp_path / "nowhere"), ev)
    with pytest.raises(dgnn.DgnnError, match="--checkpoint"):
        dgnn.eval(ev, str(tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(dgnn.DgnnError):
        dgnn.load_model(str(tmp_path / "empty"), ev).embed([0], 1.0)
    with pytest.raises(dgnn.DgnnError, match=r"nodes\[1\]: node 123456789 is not a node of the data"):
        model.embed([ev.to_numpy()["node_ids"][0], 123456789], 1.0)
    with pytest.raises(dgnn.DgnnError, match=r"dst\[0\]: node -5 is not a node"):
        model.score([ev.to_numpy()["node_ids"][0]], [-5], 1.0)
    with pytest.raises(dgnn.DgnnError, match="not finite"):
        model.embed([ev.to_numpy()["node_ids"][0]], float("nan"))


def test_train_into_a_given_checkpoint(stream, tmp_path):
    ck = str(tmp_path / "ck")
    res, model = dgnn.train(stream, return_model=True, checkpoint=ck, **FLAGS)
    assert model.path == ck
    assert model.eval(quiet=True)["test"]["ap"] == pytest.approx(res["test"]["ap"], abs=1e-9)


def test_a_run_afresh_never_replaces_a_checkpoint(stream, tmp_path):
    # as `dgnn train --checkpoint DIR` without --resume: refused with what to do, the
    # checkpoint kept; resume=True continues it
    import os
    ck = str(tmp_path / "ck")
    dgnn.train(stream, checkpoint=ck, **dict(FLAGS, epochs=1))
    path = os.path.join(ck, "checkpoint.dgnnckpt")
    with open(path, "rb") as f:
        before = f.read()
    with pytest.raises(dgnn.DgnnError, match=r"holds a checkpoint of 1 epoch of tgn: add --resume to continue it, or "
                                             r"give another --checkpoint folder, or remove .*checkpoint\.dgnnckpt") as e:
        dgnn.train(stream, checkpoint=ck, **FLAGS)
    assert e.value.code == DGNN_EINVAL
    with open(path, "rb") as f:
        assert f.read() == before
    assert dgnn.train(stream, checkpoint=ck, resume=True, **FLAGS)["epochs"][-1]["epoch"] == 2


def test_a_checkpoint_folder_is_one_runs_at_a_time(stream, tmp_path):
    # while dgnn.train runs (here: in its on_epoch), its checkpoint folder is locked: a
    # dgnn train given it is refused, naming this process
    import os
    import subprocess
    from conftest import DGNN_BIN
    ck = str(tmp_path / "ck")
    seen = []

    def second(epoch):
        seen.append(subprocess.run([DGNN_BIN, "train", "--data", stream, "--format", "jodie", "--checkpoint", ck,
                                    "--resume", "--quiet"] + dgnn.options_to_flags(FLAGS),
                                   capture_output=True, text=True))

    dgnn.train(stream, checkpoint=ck, on_epoch=second, **FLAGS)
    assert seen and all(r.returncode == 2 for r in seen), [r.stderr for r in seen]
    assert "checkpoint folder %s is in use by another run (pid %d)" % (ck, os.getpid()) in seen[0].stderr
    # released when the run ends
    assert dgnn.train(stream, checkpoint=ck, resume=True, **dict(FLAGS, epochs=3))["epochs"][-1]["epoch"] == 3


def test_eval_of_a_command_checkpoint_whose_run_read_a_file(stream, tmp_path):
    # the run's --format (and --data) describe its file; in-process the events are the
    # caller's, so the saved loading flags are left out with --data
    import json
    import subprocess
    from conftest import DGNN_BIN
    ck, out = str(tmp_path / "ck"), str(tmp_path / "t.json")
    subprocess.run([DGNN_BIN, "train", "--data", stream, "--format", "jodie", "--checkpoint", ck, "--out", out]
                   + dgnn.options_to_flags(FLAGS), check=True, capture_output=True)
    r = dgnn.load_model(ck, stream).eval(quiet=True)
    assert r["test"]["ap"] == pytest.approx(json.load(open(out))["test"]["ap"], abs=1e-9)
    # typed here, a loading flag is told that the events are in memory
    with pytest.raises(dgnn.DgnnError, match=r"dgnn eval: --format describes a data file to read, but the events "
                                             r"are given in memory"):
        dgnn.load_model(ck, stream).eval(quiet=True, format="jodie")


def test_eval_on_val_and_train_gives_that_splits_figures(trained, stream, tmp_path):
    # the dict (and the command's --out JSON) had an all-None "test" and no val/train figures
    import json
    import subprocess
    from conftest import DGNN_BIN
    ev, res, model, saved = trained
    for on in ("val", "train"):
        for r in (model.eval(on=on, quiet=True), dgnn.eval(ev, saved, on=on, quiet=True)):
            assert r["on"] == on and "test" not in r and "protocols" not in r
            assert 0 < r[on]["ap"] < 1 and 0 < r[on]["auc"] < 1
        out = str(tmp_path / ("%s.json" % on))
        subprocess.run([DGNN_BIN, "eval", "--checkpoint", saved, "--data", stream, "--on", on, "--out", out, "--quiet"],
                       check=True, capture_output=True)
        cmd = json.load(open(out))
        assert cmd["on"] == on and "test" not in cmd and cmd[on]["ap"] == pytest.approx(r[on]["ap"], abs=1e-9)
    v = model.eval(on="val", quiet=True)["val"]
    assert v["new_node_ap"] is not None and v["new_node_auc"] is not None
    t = model.eval(quiet=True)
    assert t["on"] == "test" and "val" not in t and t["test"]["ap"] == pytest.approx(res["test"]["ap"], abs=1e-9)


def test_ids_and_times_are_checked(trained):
    ev, res, model, _ = trained
    ids = ev.to_numpy()["node_ids"]
    t = float(ev.to_numpy()["t"][-1])
    with pytest.raises(dgnn.DgnnError, match=r"nodes\[0\] is 1.7: node ids are integers"):
        model.embed([1.7], t)
    with pytest.raises(dgnn.DgnnError, match=r"src\[0\] is 1.9: node ids are integers"):
        model.score([1.9], [50.2], t)
    with pytest.raises(dgnn.DgnnError, match=r"dst\[0\] is 50.2"):
        model.score([ids[0]], [50.2], t)
    with pytest.raises(dgnn.DgnnError, match="t is required"):  # it said "t[0] is not finite (nan)"
        model.embed([ids[0]], None)
    assert np.array_equal(model.embed([float(ids[3])], t), model.embed([ids[3]], t))  # 3.0 is 3


def test_small_things(trained, stream, tmp_path):
    ev, res, model, saved = trained
    assert model.embed([], 1.0).shape == (0, 16)  # (0, 0)
    with pytest.raises(dgnn.DgnnError) as e:
        dgnn.load_model(str(tmp_path / "nope"), ev)
    assert e.value.code == -1  # DGNN_EIO (it was None)
    m = dgnn.load_model(saved.encode(), stream.encode())  # bytes paths: AttributeError in embed
    assert m.path == saved
    nodes = ev.to_numpy()["node_ids"][:3]
    assert np.array_equal(m.embed(nodes, 1.0), model.embed(nodes, 1.0))


def test_quiet_calls_print_nothing(trained, capfd):
    # each embed or score printed the evaluation's lines (settings, test AP, peak RSS)
    import ctypes
    ev, res, model, _ = trained
    ids = ev.to_numpy()["node_ids"]
    capfd.readouterr()
    model.embed(ids[:2], 1.0)
    model.score(ids[:2], ids[2:4], 1.0)
    model.eval(quiet=True)
    ctypes.CDLL(None).fflush(None)  # C's stdout buffer, if anything was written there
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    with pytest.raises(dgnn.DgnnError, match="not a node of the data"):  # errors still come back
        model.embed([123456789], 1.0)
    model.embed(ids[:1], 1.0, quiet=False)  # asked for: the command's lines
    ctypes.CDLL(None).fflush(None)
    assert "dgnn eval: the training run's settings" in capfd.readouterr().err


def test_a_snapshot_models_checkpoint_is_told_as_such(stream, tmp_path):
    # it said "section 'meta' has 208 bytes, expected 136 ... resume with the same options"
    ck = str(tmp_path / "snap")
    dgnn.train(stream, model="evolvegcn-o", snapshots=20, window=3, epochs=1, hidden=8, cls_hidden=8, quiet=True,
               checkpoint=ck)
    with pytest.raises(dgnn.DgnnError, match=r"is a snapshot model's checkpoint \(.*evolvegcn-o"):
        dgnn.eval(stream, ck, quiet=True)


def test_embeddings_and_scores_that_are_not_finite_are_refused(trained):
    # at t >= 1e30 the time encoding saturates: every embedding and score came back NaN, no error
    ev, res, model, _ = trained
    ids = ev.to_numpy()["node_ids"]
    with pytest.raises(dgnn.DgnnError, match=r"the embedding of nodes\[2\] \(node %d\) at t\[2\] = 1e\+30 is not "
                                             r"finite \(nan\): that time is far outside the data's time range"
                                             % ids[2]) as e:
        model.embed(ids[:3], [1.0, 2.0, 1e30])
    assert e.value.code == DGNN_EINVAL
    with pytest.raises(dgnn.DgnnError, match=r"the score of pair 0 \(src %d, dst %d\) at t = 1e\+30 is not finite.*far "
                                             r"outside the data's time range" % (ids[0], ids[1])):
        model.score(ids[:2], ids[1:3], 1e30)
    assert np.isfinite(model.embed(ids[:3], [1.0, 2.0, 3.0])).all()  # the times of the data's range are fine


def test_copies_of_a_model_share_its_folder(stream):
    # copy.deepcopy copied the TemporaryDirectory: the original's collection removed the copy's folder
    import copy
    import gc
    import os
    for how in (copy.deepcopy, copy.copy):
        res, model = dgnn.train(stream, return_model=True, **QUICK)
        ids = model.data.to_numpy()["node_ids"][:2]
        before = model.embed(ids, 1.0)
        other = how(model)
        folder = os.path.dirname(model.path)
        del model
        gc.collect()
        assert os.path.isdir(other.path), how
        assert np.array_equal(other.embed(ids, 1.0), before)
        del other
        gc.collect()
        assert not os.path.exists(folder)  # removed with the last of them


def test_relative_checkpoint_paths_are_made_absolute(stream, tmp_path, monkeypatch):
    # "relck" stopped working after os.chdir: every model call said "cannot open"
    import os
    monkeypatch.chdir(tmp_path)
    ev = dgnn.load(stream)
    res, model = dgnn.train(ev, return_model=True, checkpoint="relck", **QUICK)
    loaded, as_bytes = dgnn.load_model("relck", ev), dgnn.load_model(b"relck", ev)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for m in (model, loaded, as_bytes):
        assert os.path.isabs(m.path) and os.path.realpath(m.path) == os.path.realpath(tmp_path / "relck")
    ids = ev.to_numpy()["node_ids"][:2]
    assert np.array_equal(model.embed(ids, 1.0), as_bytes.embed(ids, 1.0))


def test_arguments_named_in_the_messages(trained, stream):
    ev, res, model, saved = trained
    ids = ev.to_numpy()["node_ids"]
    # numpy's "operands could not be broadcast together with remapped shapes"
    with pytest.raises(dgnn.DgnnError, match=r"t has 2 entries, nodes 3: one time per node, or one for all"):
        model.embed(ids[:3], [1.0, 2.0])
    with pytest.raises(dgnn.DgnnError, match=r"t has 2 entries, pairs 3: one time per pair, or one for all"):
        model.score(ids[:3], ids[3:6], [1.0, 2.0])
    assert model.embed(ids[:3], [5.0]).shape == (3, 16)  # one for all
    # checkpoint= beside the positional one overrode it silently
    with pytest.raises(dgnn.DgnnError, match=r"dgnn eval: checkpoint='elsewhere': the checkpoint is given already"):
        dgnn.eval(ev, saved, checkpoint="elsewhere", quiet=True)
    with pytest.raises(dgnn.DgnnError, match=r"checkpoint='elsewhere': the checkpoint is given already"):
        model.embed(ids[:1], 1.0, checkpoint="elsewhere")
    # str(None) was the path "None": "None: cannot open"
    with pytest.raises(TypeError, match=r"dgnn eval: checkpoint: a str, bytes or os.PathLike, got NoneType"):
        dgnn.eval(ev, None, quiet=True)
    with pytest.raises(TypeError, match=r"dgnn.load_model: path: a str, bytes or os.PathLike, got NoneType"):
        dgnn.load_model(None, ev)
    with pytest.raises(TypeError, match=r"dgnn.load_model: data: an Events or a path .*got ndarray"):
        dgnn.load_model(saved, np.zeros(3))
    with pytest.raises(TypeError, match=r"dgnn.eval: data: an Events or a path .*got NoneType"):
        dgnn.eval(None, saved)
