"""dgnn.Model, dgnn.load_model, dgnn.eval: a trained model's checkpoint folder (the dgnn
command's format) evaluated in-process (libdgnn.so's dgnn_capi_eval): embeddings, scores,
the evaluation protocols."""
import ctypes
import json
import os
import shutil

import numpy as np

from . import _convert, _lib
from .errors import DGNN_EINTR, DGNN_EIO, DgnnError
from .events import Events, load
from .train import option_kinds, options_to_flags


def _eval_call(data, checkpoint, options, nodes=None, t_emb=None, pairs=None):
    """dgnn_capi_eval with options as eval's flags: (result dict, embeddings or None, scores
    or None). options["quiet"] true: --quiet, and the command's own lines are not printed
    (dgnn_capi_set_quiet; a failure still raises with its message)."""
    opts = {"checkpoint": _convert.text(checkpoint, "checkpoint")}
    opts.update(options)
    flags = options_to_flags(opts, "eval", option_kinds(data, "eval"))
    argv = _lib.argv(flags)
    L = _lib.lib()
    i64p, dp = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)
    n_emb, np_nodes, np_t = 0, None, None
    if nodes is not None:
        np_nodes = _convert.ids(nodes, "nodes").reshape(-1)
        np_t = np.ascontiguousarray(np.broadcast_to(_convert.times(t_emb), np_nodes.shape))
        n_emb = np_nodes.shape[0]
    n_sc, s_src, s_dst, s_t, s_out = 0, None, None, None, None
    if pairs is not None:
        s_src = _convert.ids(pairs[0], "src").reshape(-1)
        s_dst = _convert.ids(pairs[1], "dst").reshape(-1)
        if s_dst.shape != s_src.shape:
            raise ValueError("dst has %d entries, src %d: one of each per pair" % (s_dst.shape[0], s_src.shape[0]))
        s_t = np.ascontiguousarray(np.broadcast_to(_convert.times(pairs[2]), s_src.shape))
        n_sc = s_src.shape[0]
        s_out = np.empty(n_sc, dtype=np.float32)
    emb_p, emb_dim = ctypes.c_void_p(), ctypes.c_int64(0)
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    ptr = lambda a, ty: a.ctypes.data_as(ty) if a is not None and a.size else None  # noqa: E731
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
        raise KeyboardInterrupt("dgnn.eval: " + msg.value.decode("utf-8", "replace"))
    if rc != 0:
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc)
    return (json.loads(text) if text is not None else None), emb, s_out


def _events(data):
    return data if isinstance(data, Events) else load(data)


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
        self.path = _convert.text(path, "path")  # str (bytes through os.fsdecode)
        self.data = _events(data)
        self._tmp = _tmp  # a tempfile.TemporaryDirectory kept with the model (train(return_model=True))

    def eval(self, protocol=None, on="test", **options):
        """The evaluation's result dict (dgnn.eval on this model)."""
        return eval(self.data, self.path, protocol=protocol, on=on, **options)

    def embed(self, nodes, t, **options):
        """(n, dim) float32 embeddings of nodes (ids as in the data: integers, or floats that
        are integers) at times t (one per node, or one for all), from the memory after the
        test events. quiet (default True): the evaluation's own lines are not printed."""
        nodes = _convert.ids(nodes, "nodes").reshape(-1)
        t = _convert.times(t)
        if not nodes.size:
            return np.empty((0, self._embed_dim()), np.float32)
        return _eval_call(self.data, self.path, {"quiet": True, **options}, nodes=nodes, t_emb=t)[1]

    def score(self, src, dst, t, **options):
        """(n,) float32: the link predictor's probability of each (src, dst) edge at t (ids as in
        the data; t one per pair or one for all), from the memory after the test events.
        quiet (default True): the evaluation's own lines are not printed."""
        src = _convert.ids(src, "src").reshape(-1)
        dst = _convert.ids(dst, "dst").reshape(-1)
        t = _convert.times(t)
        if not src.size and not dst.size:
            return np.empty(0, np.float32)
        return _eval_call(self.data, self.path, {"quiet": True, **options}, pairs=(src, dst, t))[2]

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
        path = _convert.text(path, "path")
        shutil.copytree(self.path, path)
        return path

    def __repr__(self):
        return "dgnn.Model(%s on %s)" % (self.path, self.data.name)


def load_model(path, data):
    """The model whose checkpoint folder is path, on data (an Events or a path: the data it was
    trained on; the checkpoint's fingerprint is checked). A missing or bad checkpoint raises
    DgnnError."""
    path = _convert.text(path, "path")
    if not os.path.isdir(path):
        raise DgnnError("dgnn.load_model: %s: no such checkpoint folder" % path, DGNN_EIO)
    return Model(path, data)
