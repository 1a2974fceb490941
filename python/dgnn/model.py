"""dgnn.Model, dgnn.load_model, dgnn.eval: a trained model's checkpoint folder (the dgnn
command's format) evaluated in-process (libdgnn.so's dgnn_capi_eval): embeddings, scores,
the evaluation protocols."""
import ctypes
import json
import os
import shutil

import numpy as np

from . import _convert, _lib
from .errors import DGNN_EINTR, DGNN_EINVAL, DGNN_EIO, DgnnError
from .events import as_events
from .train import _abspath, option_kinds, options_to_flags


def _times_for(t, n, of):
    """t (converted by _convert.times) as n float64 times: one per entry of `of` (its
    name), or one for all; any other count raises DgnnError naming t (numpy said "operands
    could not be broadcast together")."""
    t = np.asarray(t, dtype=np.float64).reshape(-1)
    if t.size not in (1, n):
        raise DgnnError("t has %d entries, %s %d: one time per %s, or one for all" % (
            t.size, of, n, "node" if of == "nodes" else "pair"), DGNN_EINVAL)
    return np.ascontiguousarray(np.broadcast_to(t, (n,)))


def _not_finite(data, what, i, t, one_t, values):
    """The DgnnError for an embedding or score that came back NaN or infinite (times far
    beyond the data's: the float32 time encoding saturates)."""
    times = data.to_numpy()["t"]
    lo, hi = float(times[0]), float(times[-1])
    at = "t = %r" % float(t[i]) if one_t else "t[%d] = %r" % (i, float(t[i]))
    bad = values[~np.isfinite(values)]
    why = ("that time is far outside the data's time range (%r .. %r), beyond what the model's time encoding "
           "represents: ask for times near the data's" % (lo, hi) if not lo <= float(t[i]) <= hi else
           "the data's times span %r .. %r: the checkpoint may hold non-finite parameters" % (lo, hi))
    return DgnnError("dgnn eval: %s at %s is not finite (%r): %s" % (what, at, float(bad.flat[0]), why), DGNN_EINVAL)


def _eval_call(data, checkpoint, options, nodes=None, t_emb=None, pairs=None):
    """dgnn_capi_eval with options as eval's flags: (result dict, embeddings or None, scores
    or None). options["quiet"] true: --quiet, and the command's own lines are not printed
    (dgnn_capi_set_quiet; a failure still raises with its message). nodes, t_emb: int64 ids
    and their float64 times (one each); pairs: (src, dst, t) likewise. An embedding or
    score that is not finite raises DgnnError naming its entry and time."""
    if "checkpoint" in options:  # it would override the one given, silently
        raise DgnnError("dgnn eval: checkpoint=%r: the checkpoint is given already (dgnn.eval's second argument, or "
                        "the model's own folder): %r" % (options["checkpoint"], checkpoint), DGNN_EINVAL)
    opts = {"checkpoint": _convert.text(checkpoint, "dgnn eval: checkpoint")}
    opts.update(options)
    opts = _lib.fork_guard(opts, "dgnn eval", stacklevel=4)
    flags = options_to_flags(opts, "eval", option_kinds(data, "eval"))
    argv = _lib.argv(flags)
    L = _lib.lib()
    i64p, dp = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)
    n_emb, np_nodes, np_t = 0, None, None
    if nodes is not None:
        np_nodes, np_t = nodes, t_emb
        n_emb = np_nodes.shape[0]
    n_sc, s_src, s_dst, s_t, s_out = 0, None, None, None, None
    if pairs is not None:
        s_src, s_dst, s_t = pairs
        n_sc = s_src.shape[0]
        s_out = np.empty(n_sc, dtype=np.float32)
    emb_p, emb_dim = ctypes.c_void_p(), ctypes.c_int64(0)
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    ptr = lambda a, ty: a.ctypes.data_as(ty) if a is not None and a.size else None  # noqa: E731
    _lib.ran_native()
    with _lib.quiet(options.get("quiet")):
        rc = L.dgnn_capi_eval(data._h, _convert.cbytes(data.name, "the data's name"), len(flags), argv, 1,
                              ptr(np_nodes, i64p), ptr(np_t, dp), n_emb, ctypes.byref(emb_p), ctypes.byref(emb_dim),
                              ptr(s_src, i64p), ptr(s_dst, i64p), ptr(s_t, dp), n_sc,
                              ptr(s_out, ctypes.POINTER(ctypes.c_float)), ctypes.byref(out), msg, _lib.MSG_BYTES)
    text = _lib.take_string(out)
    emb = None
    if emb_p.value:
        D = int(emb_dim.value)
        emb = np.ctypeslib.as_array(ctypes.cast(emb_p, ctypes.POINTER(ctypes.c_float)), shape=(n_emb, D)).copy()
        L.dgnn_capi_free_floats(emb_p)
    if rc == DGNN_EINTR:
        _lib.interrupted("dgnn.eval", msg.value.decode("utf-8", "replace"))
    if rc != 0:  # a run that got through keeps its results (an output that could not be written)
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc, json.loads(text) if text is not None else None)
    return (json.loads(text) if text is not None else None), emb, s_out


def _events(data):
    return as_events(data, "dgnn.eval")


def eval(data, checkpoint, /, protocol=None, on=None, **options):  # noqa: A001 (the command's name)
    """`dgnn eval --checkpoint CHECKPOINT FLAGS` in-process on data (an Events or a path): the
    checkpoint's saved settings first, then protocol, on ("test", "val", "train") and options
    as flags (options_to_flags); returns the dict of the command's --out JSON: the evaluated
    split's figures under its name ("test", "val" or "train"), the split as "on". quiet=True:
    the evaluation's own lines are not printed (a failure raises DgnnError all the same)."""
    opts = {"protocol": protocol, "on": on}
    opts.update(options)
    return _eval_call(_events(data), checkpoint, opts)[0]


class Model:
    """A trained event model: its checkpoint folder (the dgnn command's format: `dgnn eval
    --checkpoint DIR` reads it) and the data it was trained on. Every call evaluates the
    checkpoint on the data (the test, as the training run tested, by default) and reads
    embeddings and scores from the memory that evaluation ended with."""

    def __init__(self, path, data, _tmp=None):
        self.path = _abspath(_convert.text(path, "dgnn.Model: path"))  # absolute: the same folder after os.chdir
        self.data = as_events(data, "dgnn.Model")
        self._tmp = _tmp  # train(return_model=True)'s temporary folder, removed with the last model that holds it

    def __copy__(self):
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)  # the same folder and data: removed with the last of them
        return other

    def __deepcopy__(self, memo):
        return self.__copy__()  # a copy of the folder would be a second model to remove; the data is read-only

    def eval(self, protocol=None, on="test", **options):
        """The evaluation's result dict (dgnn.eval on this model)."""
        return eval(self.data, self.path, protocol=protocol, on=on, **options)

    def embed(self, nodes, t, **options):
        """(n, dim) float32 embeddings of nodes (ids as in the data: integers, or floats that
        are integers) at times t (one per node, or one for all), from the memory after the
        test events. quiet (default True): the evaluation's own lines are not printed. An
        embedding that is not finite (a time far beyond the data's) raises DgnnError."""
        nodes = _convert.ids(nodes, "nodes").reshape(-1)
        one_t = np.ndim(t) == 0 or np.size(t) == 1
        t = _times_for(_convert.times(t), nodes.shape[0], "nodes")
        if not nodes.size:
            return np.empty((0, self._embed_dim()), np.float32)
        emb = _eval_call(self.data, self.path, {"quiet": True, **options}, nodes=nodes, t_emb=t)[1]
        ok = np.isfinite(emb).all(axis=1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise _not_finite(self.data, "the embedding of nodes[%d] (node %d)" % (i, nodes[i]), i, t, one_t, emb[i])
        return emb

    def score(self, src, dst, t, **options):
        """(n,) float32: the link predictor's probability of each (src, dst) edge at t (ids as in
        the data; t one per pair or one for all), from the memory after the test events.
        quiet (default True): the evaluation's own lines are not printed. A score that is not
        finite (a time far beyond the data's) raises DgnnError."""
        src = _convert.ids(src, "src").reshape(-1)
        dst = _convert.ids(dst, "dst").reshape(-1)
        if dst.shape != src.shape:
            raise ValueError("dst has %d entries, src %d: one of each per pair" % (dst.shape[0], src.shape[0]))
        one_t = np.ndim(t) == 0 or np.size(t) == 1
        t = _times_for(_convert.times(t), src.shape[0], "pairs")
        if not src.size:
            return np.empty(0, np.float32)
        p = _eval_call(self.data, self.path, {"quiet": True, **options}, pairs=(src, dst, t))[2]
        ok = np.isfinite(p)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise _not_finite(self.data, "the score of pair %d (src %d, dst %d)" % (i, src[i], dst[i]), i, t, one_t,
                              p[i:i + 1])
        return p

    def _embed_dim(self):
        """The embedding width the checkpoint's run trained (its saved emb_dim)."""
        value, msg = ctypes.create_string_buffer(96), _lib.msg_buffer()
        rc = _lib.lib().dgnn_capi_checkpoint_setting(_convert.cbytes(self.path, "path"), b"emb_dim", value, 96, msg,
                                                     _lib.MSG_BYTES)
        if rc != 0:
            raise DgnnError("dgnn eval: --checkpoint %s: %s" % (self.path, msg.value.decode("utf-8", "replace")), rc)
        return int(value.value)

    def save(self, path):
        """Copies the checkpoint folder to path (a new folder; `dgnn eval --checkpoint PATH` and
        dgnn.load_model read it)."""
        path = _convert.text(path, "Model.save: path")
        shutil.copytree(self.path, path)
        return path

    def __repr__(self):
        return "dgnn.Model(%s on %s)" % (self.path, self.data.name)


def load_model(path, data):
    """The model whose checkpoint folder is path, on data (an Events or a path: the data it was
    trained on; the checkpoint's fingerprint is checked). A missing or bad checkpoint raises
    DgnnError."""
    path = _abspath(_convert.text(path, "dgnn.load_model: path"))  # absolute: the same folder after os.chdir
    if not os.path.isdir(path):
        raise DgnnError("dgnn.load_model: %s: no such checkpoint folder" % path, DGNN_EIO)
    return Model(path, as_events(data, "dgnn.load_model"))
