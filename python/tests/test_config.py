"""dgnn.train(config=FILE.yml): the command's --config in-process, a typed option beating the file."""
import os

import pytest

import dgnn
from conftest import ROOT


def test_config_file_and_override(stream, tmp_path):
    cfg = tmp_path / "run.yml"
    cfg.write_text("dgnn:\n  batch: 300\n  mem-dim: 16\n  time-dim: 8\n  epochs: 1\n")
    res = dgnn.train(stream, config=str(cfg), max_batches=2, quiet=True)
    assert res["config"]["batch"] == 300 and res["config"]["mem_dim"] == 16
    assert res["config_file"] == str(cfg)
    res = dgnn.train(stream, config=str(cfg), batch=100, max_batches=2, quiet=True)  # the option wins
    assert res["config"]["batch"] == 100


def test_tgl_config_of_the_repository(stream):
    res = dgnn.train(stream, config=os.path.join(ROOT, "configs", "tgn.yml"), epochs=1, max_batches=1,
                     eval_max_events=200, quiet=True)
    assert res["config"]["batch"] == 600 and res["config"]["preset"] == "tgl"


def test_bad_config_is_an_error(stream, tmp_path):
    cfg = tmp_path / "bad.yml"
    cfg.write_text("dgnn:\n  batch: lots\n")
    with pytest.raises(dgnn.DgnnError) as e:
        dgnn.train(stream, config=str(cfg))
    assert "bad.yml:2" in str(e.value)
