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


def _run_python(code):
    """code in a fresh interpreter (a crash there fails the test, not the whole run)."""
    import os
    import subprocess
    import sys
    from conftest import ROOT
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_copies_share_the_table_and_free_it_once(tmp_path):
    # copy.copy shared the C handle, and each copy freed it: a double free, then a crash
    p = tmp_path / "tiny.csv"
    p.write_text("user,item,timestamp,state_label,f1\n0,10,1.0,0,0.5\n1,11,2.0,1,0.25\n0,11,3.0,0,1.0\n")
    r = _run_python("import copy, gc, dgnn\n"
                    "ev = dgnn.load(%r)\n"
                    "for f in (copy.copy, copy.deepcopy):\n"
                    "    e2 = f(ev); e2.name = 'other'; n2 = len(e2); del e2; gc.collect()\n"
                    "    assert len(ev) == n2 == 3 and ev.name != 'other'\n"
                    "d = copy.deepcopy(ev).to_numpy(); del ev; gc.collect()\n"
                    "print(list(d['t']))\n" % str(p))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[1.0, 2.0, 3.0]"


def test_the_constructor_and_pickle_are_refused():
    import pickle
    # Events(0, "x") made a NULL handle that len() dereferenced (a crash)
    r = _run_python("import dgnn\ntry:\n    ev = dgnn.Events(0, 'x'); len(ev)\nexcept TypeError as e:\n    print(e)")
    assert r.returncode == 0, r.stderr
    assert "Events.from_arrays" in r.stdout and "dgnn.load" in r.stdout
    with pytest.raises(TypeError, match="Events.from_arrays"):
        dgnn.Events([0, 1], [1, 2], [1.0, 2.0])
    ev = dgnn.Events.from_arrays([0, 1], [1, 2], [1.0, 2.0])
    with pytest.raises(TypeError, match="cannot be pickled.*to_numpy"):
        pickle.dumps(ev)


def test_ids_and_labels_are_not_truncated():
    # numpy's casts truncated 0.5 -> 0, wrapped 2**32 -> 0 in int32 and 2**64-1 -> -1 in int64
    with pytest.raises(dgnn.DgnnError, match=r"src\[0\] is 0.5: node ids are integers") as e:
        dgnn.Events.from_arrays([0.5, 1.7, 2.2], [3.9, 4, 5], [1, 2, 3])
    assert e.value.code == -4
    with pytest.raises(dgnn.DgnnError, match=r"dst\[1\] is 4.5"):
        dgnn.Events.from_arrays([0, 1], [3, 4.5], [1, 2])
    with pytest.raises(dgnn.DgnnError, match=r"src\[0\] is 18446744073709551615: node ids are int64"):
        dgnn.Events.from_arrays(np.array([2 ** 64 - 1, 1], np.uint64), [2, 3], [1, 2])
    with pytest.raises(dgnn.DgnnError, match=r"src\[0\]"):
        dgnn.Events.from_arrays([2 ** 70, 1], [2, 3], [1, 2])
    with pytest.raises(dgnn.DgnnError, match=r"label\[0\] is 0.5: labels are 0 or 1"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], label=[0.5, 1.0])
    with pytest.raises(dgnn.DgnnError, match=r"label\[0\] is 4294967296: labels are 0 or 1"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], label=[2 ** 32, 1])
    with pytest.raises(dgnn.DgnnError, match="node ids are integers"):
        dgnn.Events.from_arrays(["a", "b"], [2, 3], [1, 2])
    # integral floats are the integers they equal; booleans and 0.0/1.0 are labels
    d = dgnn.Events.from_arrays([3.0, 1.0], [2, 2 ** 40], [1, 2], label=[True, 0.0]).to_numpy()
    np.testing.assert_array_equal(d["node_ids"], [1, 2, 3, 2 ** 40])
    np.testing.assert_array_equal(d["label"], [1, 0])


def test_negative_ids_are_refused_as_the_readers_refuse_them():
    # from_arrays kept node -1 and trained on it; every file reader says "negative node id"
    with pytest.raises(dgnn.DgnnError, match=r"src\[1\] is -1: node ids are >= 0"):
        dgnn.Events.from_arrays([0, -1], [2, 3], [1, 2])
    with pytest.raises(dgnn.DgnnError, match=r"dst\[0\] is -7: node ids are >= 0"):
        dgnn.Events.from_arrays([0, 1], [-7, 3], [1, 2])


def test_booleans_inside_lists_are_refused():
    # numpy made [0, True, 2] the ids [0, 1, 2] and [0.5, True] the times [0.5, 1.0], silently
    # (a bare True, or an array of booleans, was refused already)
    with pytest.raises(dgnn.DgnnError, match=r"src\[1\] is True: node ids are integers, not booleans") as e:
        dgnn.Events.from_arrays([0, True, 2], [3, 4, 5], [1, 2, 3])
    assert e.value.code == -4
    with pytest.raises(dgnn.DgnnError, match=r"dst\[0\] is False: node ids are integers, not booleans"):
        dgnn.Events.from_arrays((0, 1), (False, 4.0), (1, 2))
    with pytest.raises(dgnn.DgnnError, match=r"t\[1\] is True: times are real numbers, not booleans"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [0.5, True])
    with pytest.raises(dgnn.DgnnError, match=r"t\[0\] is True: times are real numbers, not booleans"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [np.True_, 2])
    with pytest.raises(dgnn.DgnnError, match=r"nodes\[1, 0\] is True: node ids are integers, not booleans"):
        dgnn._convert.ids([[1], [True]], "nodes")  # model.embed's and model.score's conversion
    # edge features: a boolean is a 0/1 feature, in an array or a list
    f = dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], edge_feat=np.array([[True], [False]])).to_numpy()
    np.testing.assert_array_equal(f["edge_feat"], [[1.0], [0.0]])
    # an option's list: protocol=["tgn", True] became --protocol tgn,1
    with pytest.raises(dgnn.DgnnError, match=r"dgnn train: protocol=\['tgn', True\]: --protocol takes values, "
                                             r"not True"):
        dgnn.options_to_flags({"protocol": ["tgn", True]})
    # labels are 0/1: booleans are labels, in lists too
    label = dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], label=[True, 0]).to_numpy()["label"]
    np.testing.assert_array_equal(label, [1, 0])


def test_non_finite_edge_features_are_refused():
    # the file readers refuse NaN; from_arrays took it and training gave AP 0.5 with no error
    with pytest.raises(dgnn.DgnnError, match="edge_feat row 1, feature 2: NaN is not allowed"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], edge_feat=[[0, 0, 0], [1, 1, np.nan]])
    with pytest.raises(dgnn.DgnnError, match="edge_feat row 0, feature 0: -inf is not allowed"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], edge_feat=[-np.inf, 1])
    with pytest.raises(dgnn.DgnnError, match="edge_feat row 1, feature 0: 1e\\+300 does not fit float32"):
        dgnn.Events.from_arrays([0, 1], [2, 3], [1, 2], edge_feat=[[0.0], [1e300]])


def test_identity_node_ids_are_read_only_too():
    d = dgnn.Events.from_arrays([0, 1], [1, 2], [1.0, 2.0]).to_numpy()
    np.testing.assert_array_equal(d["node_ids"], [0, 1, 2])
    assert not d["node_ids"].flags.writeable


def test_names_and_paths(tmp_path):
    with pytest.raises(dgnn.DgnnError, match="NUL"):
        dgnn.Events.from_arrays([0, 1], [1, 2], [1.0, 2.0], name="x\x00y")
    p = tmp_path / "tiny.csv"
    p.write_text("user,item,timestamp,state_label\n0,10,1.0,0\n1,11,2.0,1\n")
    for path in (bytes(p), p, str(p)):  # the name is the path's text, not "b'...'"
        assert dgnn.load(path).name == str(p)
    with pytest.raises(dgnn.DgnnError, match="NUL"):
        dgnn.load(str(p) + "\x00.x")


def test_times_that_are_not_numbers_are_refused():
    # NaT became -9.2e18 (an event before all others), datetimes counts of their unit, booleans
    # 0/1, strings numbers, complex numbers their real part: all without a word
    src, dst = [1, 2, 3], [4, 5, 6]
    day = np.array(["2020-01-01", "2020-01-02", "2020-01-03"], "datetime64[D]")
    with pytest.raises(dgnn.DgnnError, match=r"t: times are numbers, got datetime64\[D\]: convert them first, e.g. "
                                             r"t.astype\('datetime64\[s\]'\).astype\('int64'\)") as e:
        dgnn.Events.from_arrays(src, dst, day)
    assert e.value.code == -4
    with pytest.raises(dgnn.DgnnError, match=r"t\[1\] is NaT \(not a time\)"):
        dgnn.Events.from_arrays(src, dst, np.array(["2020-01-01", "NaT", "2020-01-03"], "datetime64[s]"))
    with pytest.raises(dgnn.DgnnError, match=r"got timedelta64\[m\]: convert them first, e.g. "
                                             r"t.astype\('timedelta64\[s\]'\)"):
        dgnn.Events.from_arrays(src, dst, np.array([1, 2, 3], "timedelta64[m]"))
    import datetime
    with pytest.raises(dgnn.DgnnError, match=r"t\[0\] is datetime.date\(2020, 1, 1\): times are numbers: convert "
                                             r"datetimes first"):
        dgnn.Events.from_arrays(src[:2], dst[:2], [datetime.date(2020, 1, 1), 3.0])
    for t, got in (([True, False, True], "booleans"), (np.array(["3", "1", "2"]), "strings"),
                   ([1 + 5j, 2, 3], "complex numbers")):
        with pytest.raises(dgnn.DgnnError, match=r"t: times are real numbers, got %s" % got):
            dgnn.Events.from_arrays(src, dst, t)
    with pytest.raises(dgnn.DgnnError, match=r"t\[1\] is 'x': times are real numbers"):
        dgnn.Events.from_arrays(src[:2], dst[:2], np.array([1.0, "x"], dtype=object))
    # the conversion embed and score use too
    with pytest.raises(dgnn.DgnnError, match=r"t: times are numbers, got datetime64\[D\]"):
        dgnn._convert.times(day)
    # integers, floats and Python numbers beyond int64 are times
    from fractions import Fraction
    with pytest.warns(RuntimeWarning, match=r"t\[1\] is 1180591620717411303424: times are float64"):
        d = dgnn.Events.from_arrays(src, dst, np.array([Fraction(1, 2), 2 ** 70, 3], dtype=object)).to_numpy()
    np.testing.assert_array_equal(d["t"], [0.5, 3.0, 2.0 ** 70])


def test_integer_times_beyond_2_53_warn():
    # 2**53 + 1 merged with 2**53 (nanosecond timestamps) silently
    with pytest.warns(RuntimeWarning, match=r"t\[1\] is 9007199254740993: times are float64, which holds integers "
                                            r"exactly up to 2\*\*53"):
        dgnn.Events.from_arrays([1, 2, 3], [4, 5, 6], np.array([2 ** 53, 2 ** 53 + 1, 2 ** 53 + 3]))
    with pytest.warns(RuntimeWarning, match=r"t\[0\] is -9007199254740994"):
        dgnn.Events.from_arrays([1], [4], [-(2 ** 53) - 2])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dgnn.Events.from_arrays([1, 2], [4, 5], np.array([2 ** 53, -(2 ** 53)], np.int64))  # exact: no warning
        dgnn.Events.from_arrays([1, 2], [4, 5], np.array([1e300, 2.0]))  # floats: as given


def test_edge_features_checked_whatever_their_type():
    # strings: "could not convert string to float" not naming edge_feat; 10**40 (a Python int)
    # became inf with numpy's overflow warnings; complex lost its imaginary part; (E, 0) was refused
    with pytest.raises(dgnn.DgnnError, match=r"edge_feat: features are real numbers, got strings"):
        dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=[["a"], ["b"]])
    with pytest.raises(dgnn.DgnnError, match=r"edge_feat row 1, feature 0: 1e\+40 does not fit float32"):
        dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=[[1], [10 ** 40]])
    with pytest.raises(dgnn.DgnnError, match=r"edge_feat row 0, feature 1: 10{400} is not a feature value"):
        dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=np.array([[1, 10 ** 400], [2, 3]], dtype=object))
    with pytest.raises(dgnn.DgnnError, match=r"edge_feat row 0, feature 0: 1e\+39 does not fit float32"):
        dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=np.array([[1e39], [1]], dtype=object))
    with pytest.raises(dgnn.DgnnError, match=r"edge_feat: features are real numbers, got complex numbers"):
        dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=[[1 + 9j], [2 + 9j]])
    with pytest.raises(dgnn.DgnnError, match=r"edge_feat row 1, feature 0: \(2\+9j\) is not a feature value"):
        dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=np.array([[1], [2 + 9j]], dtype=object))
    ev = dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=np.zeros((2, 0)))
    assert ev.edge_dim == 0 and ev.to_numpy()["edge_feat"] is None
    big = np.array([[2 ** 63 - 1], [1]], np.int64)  # integers that fit float32's range are features
    feat = dgnn.Events.from_arrays([1, 2], [3, 4], [1, 2], edge_feat=big).to_numpy()["edge_feat"]
    np.testing.assert_array_equal(feat, big.astype(np.float32))


def test_paths_and_names_are_text():
    # str(None) was the path "None" ("None: cannot open"), str(5) the name "5"
    with pytest.raises(TypeError, match=r"dgnn.load: path: a str, bytes or os.PathLike, got NoneType"):
        dgnn.load(None)
    with pytest.raises(TypeError, match=r"Events.from_arrays: name: a str, bytes or os.PathLike, got int"):
        dgnn.Events.from_arrays([0, 1], [1, 2], [1.0, 2.0], name=5)
