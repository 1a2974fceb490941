"""dgnn.Model, dgnn.load_model, dgnn.eval: a checkpoint evaluated in-process."""
import numpy as np
import pytest

import dgnn

FLAGS = dict(epochs=2, seed=1, batch=200, mem_dim=16, time_dim=8, quiet=True)


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
