"""python/examples/tutorial.py on a small stream, and installing the package with pip."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT

TUTORIAL = os.path.join(ROOT, "python", "examples", "tutorial.py")
LIBRARY = os.environ.get("DGNN_LIBRARY", os.path.join(ROOT, "build", "libdgnn.so"))


def _env():
    env = dict(os.environ, DGNN_LIBRARY=os.path.abspath(LIBRARY), OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    env.pop("PYTHONPATH", None)
    return env


def test_tutorial_runs_and_writes_embeddings_and_plot(stream, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, TUTORIAL, stream, "--epochs", "2", "--max-batches", "5", "--eval-max-events",
                        "500", "--mem-dim", "16", "--out-dir", str(out)], capture_output=True, text=True, env=_env(),
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "test AP" in r.stdout
    emb, ids = np.load(out / "embeddings.npy"), np.load(out / "node_ids.npy")
    import dgnn
    n = dgnn.load(stream).num_nodes
    assert emb.shape == (n, 16) and emb.dtype == np.float32 and np.isfinite(emb).all()
    assert ids.shape == (n,)
    curve = json.loads((out / "curve.json").read_text())
    assert [e["epoch"] for e in curve] == [1, 2] and all("train_loss" in e and "val_ap" in e for e in curve)
    if importlib.util.find_spec("matplotlib") is not None:
        png = out / "curve.png"
        assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "matplotlib is not installed" in r.stdout
        assert not (out / "curve.png").exists()


def _has(module):
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    return r.returncode == 0


def test_pip_install_target_finds_the_library(tmp_path):
    if not _has("pip"):
        pytest.skip(f"no pip for {sys.executable} (Debian: python3-pip; scripts/install-deps.sh)")
    if not _has("setuptools"):
        pytest.skip(f"no setuptools for {sys.executable} (Debian: python3-setuptools; scripts/install-deps.sh)")
    # pip builds in the source tree (setuptools writes build/ and dgnn.egg-info there): give it a copy
    src = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "python"), src, ignore=shutil.ignore_patterns(
        "__pycache__", "build", "*.egg-info", "libdgnn.so", "tests", "examples"))
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                        "--no-cache-dir", "--quiet", "--disable-pip-version-check", "--target", str(target),
                        str(src)], capture_output=True, text=True, env=_env(), cwd=str(tmp_path),
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "dgnn" / "__init__.py").exists()
    code = ("import dgnn, os; print(os.path.dirname(dgnn.__file__)); print(dgnn.find_library()); "
            "ev = dgnn.Events.from_arrays([1, 2, 3], [4, 5, 6], [0.0, 1.0, 2.0]); print(len(ev), ev.num_nodes)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(_env(), PYTHONPATH=str(target)), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    pkg, lib, counts = r.stdout.split("\n")[:3]
    assert os.path.realpath(pkg) == os.path.realpath(target / "dgnn")
    assert os.path.realpath(lib) == os.path.realpath(LIBRARY)
    assert counts == "3 6"
