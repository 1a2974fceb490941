"""Events: numpy -> C -> numpy, files, and the C messages for bad input."""
import ctypes

import numpy as np
import pytest

import dgnn


def test_round_trip_values_and_views():
    rng = np.random.default_rng(0)
    E = 50
    src = rng.integers(100, 120, E)
    dst = rng.integers(500, 530, E)
    t = np.sort(rng.random(E) * 100)
    feat = rng.standard_normal((E, 3)).astype(np.float32)
    label = rng.integers(0, 2, E).astype(np.int32)
    ev = dgnn.Events.from_arrays(src, dst, t, edge_feat=feat, label=label)
    assert len(ev) == E and ev.edge_dim == 3 and ev.bipartite
    d = ev.to_numpy()
    ids = d["node_ids"]
    assert ev.num_nodes == len(np.unique(np.concatenate([src, dst]))) == len(ids)
    np.testing.assert_array_equal(ids[d["src"]], src)  # dense ids back to the original ones
    np.testing.assert_array_equal(ids[d["dst"]], dst)
    np.testing.assert_array_equal(d["t"], t)
    np.testing.assert_array_equal(d["edge_feat"], feat)
    np.testing.assert_array_equal(d["label"], label)
    # views of the C memory, not copies: the same address as the accessor's pointer, shared
    # between two calls, and alive after the Events object is dropped
    p = dgnn._lib.lib().dgnn_capi_events_t(ev._h)
    assert d["t"].ctypes.data == ctypes.addressof(p.contents)
    assert np.shares_memory(d["src"], ev.to_numpy()["src"])
    assert not d["t"].flags.writeable
    del ev
    np.testing.assert_array_equal(d["t"], t)


def test_sorted_by_time_and_identity_ids():
    ev = dgnn.Events.from_arrays([0, 1, 2], [1, 2, 0], [3.0, 1.0, 2.0])
    d = ev.to_numpy()
    np.testing.assert_array_equal(d["t"], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(d["src"], [1, 2, 0])
    np.testing.assert_array_equal(d["node_ids"], [0, 1, 2])
    assert d["edge_feat"] is None and d["label"] is None and not ev.bipartite


def test_load_a_file_the_test_writes(tmp_path):
    p = tmp_path / "tiny.csv"
    p.write_text("user,item,timestamp,state_label,f1\n0,10,1.0,0,0.5\n1,11,2.0,1,0.25\n0,11,3.0,0,1.0\n")
    ev = dgnn.load(str(p), format="jodie")
    assert (len(ev), ev.num_nodes, ev.edge_dim) == (3, 4, 1)
    d = ev.to_numpy()
    np.testing.assert_array_equal(d["t"], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(d["edge_feat"][:, 0], [0.5, 0.25, 1.0])
    np.testing.assert_array_equal(d["label"], [0, 1, 0])
    assert len(dgnn.load(p)) == 3  # auto-detected


def test_mismatched_lengths():
    with pytest.raises(dgnn.DgnnError, match="dst has 2 entries, src 3"):
        dgnn.Events.from_arrays([0, 1, 2], [1, 2], [0.0, 1.0, 2.0])
    with pytest.raises(dgnn.DgnnError, match="edge_feat has 2 rows, src 3"):
        dgnn.Events.from_arrays([0, 1, 2], [1, 2, 0], [0.0, 1.0, 2.0], edge_feat=np.zeros((2, 4)))
    with pytest.raises(dgnn.DgnnError, match=r"t\[1\] is not finite"):
        dgnn.Events.from_arrays([0, 1], [1, 2], [0.0, np.nan])


def test_missing_file_and_bad_format(tmp_path):
    missing = str(tmp_path / "nope.csv")
    with pytest.raises(dgnn.DgnnError, match="nope.csv"):
        dgnn.load(missing)
    with pytest.raises(dgnn.DgnnError, match="unknown format 'xml'"):
        dgnn.load(missing, format="xml")


def test_a_broken_file_names_line_and_field(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("user,item,timestamp,state_label\n0,1,1.0,0\n0,x,2.0,0\n")
    with pytest.raises(dgnn.DgnnError, match=r"bad.csv:3"):
        dgnn.load(str(p), format="jodie")
