"""dgnn.Model, dgnn.load_model, dgnn.eval: a trained model's checkpoint folder (the dgnn
command's format) evaluated in-process (libdgnn.so's dgnn_capi_eval): embeddings, scores,
the evaluation protocols."""
import ctypes
import json
import os
import shutil

import numpy as np

from . import _lib
from .errors import DGNN_EINTR, DgnnError
from .events import Events, load
from .train import options_to_flags


def _eval_call(data, checkpoint, flags, nodes=None, t_emb=None, pairs=None):
    """dgnn_capi_eval: (result dict, embeddings or None, scores or None)."""
    flags = ["--checkpoint", os.fspath(checkpoint)] + list(flags)
    argv = (ctypes.c_char_p * (len(flags) + 1))(*[f.encode() for f in flags], None)
    L = _lib.lib()
    i64p, dp = ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)
    n_emb, np_nodes, np_t = 0, None, None
    if nodes is not None:
        np_nodes = np.ascontiguousarray(nodes, dtype=np.int64).reshape(-1)
        np_t = np.ascontiguousarray(np.broadcast_to(np.asarray(t_emb, dtype=np.float64), np_nodes.shape))
        n_emb = np_nodes.shape[0]
    n_sc, s_src, s_dst, s_t, s_out = 0, None, None, None, None
    if pairs is not None:
        s_src = np.ascontiguousarray(pairs[0], dtype=np.int64).reshape(-1)
        s_dst = np.ascontiguousarray(pairs[1], dtype=np.int64).reshape(-1)
        if s_dst.shape != s_src.shape:
            raise ValueError("dst has %d entries, src %d: one of each per pair" % (s_dst.shape[0], s_src.shape[0]))
        s_t = np.ascontiguousarray(np.broadcast_to(np.asarray(pairs[2], dtype=np.float64), s_src.shape))
        n_sc = s_src.shape[0]
        s_out = np.empty(n_sc, dtype=np.float32)
    emb_p, emb_dim = ctypes.c_void_p(), ctypes.c_int64(0)
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    ptr = lambda a, ty: a.ctypes.data_as(ty) if a is not None and a.size else None  # noqa: E731
    rc = L.dgnn_capi_eval(data._h, str(data.name).encode(), len(flags), argv, 1, ptr(np_nodes, i64p), ptr(np_t, dp),
                          n_emb, ctypes.byref(emb_p), ctypes.byref(emb_dim), ptr(s_src, i64p), ptr(s_dst, i64p),
                          ptr(s_t, dp), n_sc, ptr(s_out, ctypes.POINTER(ctypes.c_float)), ctypes.byref(out), msg,
                          _lib.MSG_BYTES)
    text = None
    if out.value:
        text = ctypes.string_at(out.value).decode()
        L.dgnn_capi_free_string(out)
    emb = None
    if emb_p.value:
        D = int(emb_dim.value)
        emb = np.ctypeslib.as_array(ctypes.cast(emb_p, ctypes.POINTER(ctypes.c_float)), shape=(n_emb, D)).copy()
        L.dgnn_capi_free_floats(emb_p)
    if rc == DGNN_EINTR:
        raise KeyboardInterrupt("dgnn.eval: " + msg.value.decode())
    if rc != 0:
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc)
    return (json.loads(text) if text is not None else None), emb, s_out


def _events(data):
    return data if isinstance(data, Events) else load(data)


def eval(data, checkpoint, /, protocol=None, on=None, **options):  # noqa: A001 (the command's name)
    """`dgnn eval --checkpoint CHECKPOINT FLAGS` in-process on data (an Events or a path): the
    checkpoint's saved settings first, then protocol, on ("test", "val", "train") and options
    as flags (options_to_flags); returns the dict of the command's --out JSON."""
    opts = {"protocol": protocol, "on": on}
    opts.update(options)
    return _eval_call(_events(data), checkpoint, options_to_flags(opts))[0]


class Model:
    """A trained event model: its checkpoint folder (the dgnn command's format: `dgnn eval
    --checkpoint DIR` reads it) and the data it was trained on. Every call evaluates the
    checkpoint on the data (the test, as the training run tested, by default) and reads
    embeddings and scores from the memory that evaluation ended with."""

    def __init__(self, path, data, _tmp=None):
        self.path = os.fspath(path)
        self.data = _events(data)
        self._tmp = _tmp  # a tempfile.TemporaryDirectory kept with the model (train(return_model=True))

    def eval(self, protocol=None, on="test", **options):
        """The evaluation's result dict (dgnn.eval on this model)."""
        return eval(self.data, self.path, protocol=protocol, on=on, **options)

    def embed(self, nodes, t, **options):
        """(n, dim) float32 embeddings of nodes (ids as in the data) at times t (one per node,
        or one for all), from the memory after the test events."""
        nodes = np.asarray(nodes, dtype=np.int64).reshape(-1)
        return _eval_call(self.data, self.path, options_to_flags(dict(quiet=True, **options)), nodes=nodes,
                          t_emb=t)[1] if nodes.size else np.empty((0, 0), np.float32)

    def score(self, src, dst, t, **options):
        """(n,) float32: the link predictor's probability of each (src, dst) edge at t (ids as in
        the data; t one per pair or one for all), from the memory after the test events."""
        src = np.asarray(src, dtype=np.int64).reshape(-1)
        if not src.size:
            return np.empty(0, np.float32)
        return _eval_call(self.data, self.path, options_to_flags(dict(quiet=True, **options)),
                          pairs=(src, dst, t))[2]

    def save(self, path):
        """Copies the checkpoint folder to path (a new folder; `dgnn eval --checkpoint PATH` and
        dgnn.load_model read it)."""
        shutil.copytree(self.path, os.fspath(path))
        return os.fspath(path)

    def __repr__(self):
        return "dgnn.Model(%s on %s)" % (self.path, self.data.name)


def load_model(path, data):
    """The model whose checkpoint folder is path, on data (an Events or a path: the data it was
    trained on; the checkpoint's fingerprint is checked). A missing or bad checkpoint raises
    DgnnError."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise DgnnError("dgnn.load_model: %s: no such checkpoint folder" % path)
    return Model(path, data)
