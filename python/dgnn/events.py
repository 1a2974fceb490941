"""dgnn.Events: an event table in C memory (events.h), from numpy arrays or a file."""
import ctypes
import os

import numpy as np

from . import _lib
from .errors import check


class Events:
    """A table of events (src, dst, t, edge features, labels), sorted by time, node ids dense
    0..N-1 (the original ids in to_numpy()["node_ids"]). Build with Events.from_arrays or
    dgnn.load; the C memory is freed with the object."""

    def __init__(self, handle, name):
        self._h = ctypes.c_void_p(handle)
        self.name = name  # the results' "dataset"
        self._lib = _lib.lib()

    @classmethod
    def from_arrays(cls, src, dst, t, edge_feat=None, label=None, name="arrays"):
        """Events from arrays of one entry (row) per event: src, dst original node ids (int64),
        t timestamps (float64), edge_feat (E, d) float32 or None, label (E) 0/1 or None. The
        arrays are copied (converted to those types first)."""
        src = np.ascontiguousarray(src, dtype=np.int64)
        dst = np.ascontiguousarray(dst, dtype=np.int64)
        t = np.ascontiguousarray(t, dtype=np.float64)
        for a, n in ((src, "src"), (dst, "dst"), (t, "t")):
            if a.ndim != 1:
                raise ValueError("%s: a 1-d array (one entry per event), got shape %s" % (n, a.shape))
        rows, dim, fp = 0, 0, None
        if edge_feat is not None:
            edge_feat = np.ascontiguousarray(edge_feat, dtype=np.float32)
            if edge_feat.ndim == 1:
                edge_feat = edge_feat.reshape(-1, 1)
            if edge_feat.ndim != 2:
                raise ValueError("edge_feat: a (E, d) array, got shape %s" % (edge_feat.shape,))
            rows, dim = edge_feat.shape
            fp = edge_feat.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        nl, lp = 0, None
        if label is not None:
            label = np.ascontiguousarray(label, dtype=np.int32).reshape(-1)
            nl, lp = label.shape[0], label.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        L = _lib.lib()
        h, msg = ctypes.c_void_p(), _lib.msg_buffer()
        i64p = ctypes.POINTER(ctypes.c_int64)
        rc = L.dgnn_capi_events_from_arrays(ctypes.byref(h), src.ctypes.data_as(i64p), src.shape[0],
                                            dst.ctypes.data_as(i64p), dst.shape[0],
                                            t.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), t.shape[0],
                                            fp, rows, dim, lp, nl, msg, _lib.MSG_BYTES)
        check(rc, msg)
        return cls(h.value, name)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None and h.value:
            self._lib.dgnn_capi_events_free(h)
            h.value = None

    def __len__(self):
        return int(self._lib.dgnn_capi_events_num_events(self._h))

    @property
    def num_nodes(self):
        return int(self._lib.dgnn_capi_events_num_nodes(self._h))

    @property
    def edge_dim(self):
        return int(self._lib.dgnn_capi_events_edge_dim(self._h))

    @property
    def bipartite(self):
        return bool(self._lib.dgnn_capi_events_bipartite(self._h))

    def _view(self, fn, shape, dtype):
        """A read-only numpy view of the C array fn returns (None when NULL): its buffer is a
        ctypes array at that address that holds a reference to self, so the memory outlives
        every view (a .dgnn table is a read-only mapping; the others are the trainer's input)."""
        p = fn(self._h)
        if not p:
            return None
        count = int(np.prod(shape))
        if count == 0:
            return np.empty(shape, dtype)
        buf = (p._type_ * count).from_address(ctypes.addressof(p.contents))
        buf._dgnn_owner = self
        a = np.frombuffer(buf, dtype=dtype).reshape(shape)
        a.flags.writeable = False
        return a

    def to_numpy(self):
        """The table's arrays as numpy arrays viewing the C memory (no copies, read-only), valid
        while this Events lives (each view keeps a reference to it): src, dst (int32 dense ids),
        t (float64), edge_feat ((E, d) float32, or None), label (int32, or None), node_ids
        (int64 original id of each dense id; a new arange when they are the identity)."""
        E, N, d, L = len(self), self.num_nodes, self.edge_dim, self._lib
        out = {
            "src": self._view(L.dgnn_capi_events_src, (E,), np.int32),
            "dst": self._view(L.dgnn_capi_events_dst, (E,), np.int32),
            "t": self._view(L.dgnn_capi_events_t, (E,), np.float64),
            "edge_feat": self._view(L.dgnn_capi_events_efeat, (E, d), np.float32) if d > 0 else None,
            "label": self._view(L.dgnn_capi_events_label, (E,), np.int32),
            "node_ids": self._view(L.dgnn_capi_events_node_ids, (N,), np.int64),
        }
        if out["node_ids"] is None:
            out["node_ids"] = np.arange(N, dtype=np.int64)
        return out

    def __repr__(self):
        return "dgnn.Events(%s: %d events, %d nodes, edge_dim %d%s)" % (
            self.name, len(self), self.num_nodes, self.edge_dim, ", bipartite" if self.bipartite else "")


def load(path, format="auto"):
    """Events read from path (any format the dgnn command reads: format auto, jodie, tgl,
    edgelist, pgt, dgnn, dyglib, tgb)."""
    L = _lib.lib()
    h, msg = ctypes.c_void_p(), _lib.msg_buffer()
    rc = L.dgnn_capi_events_load(ctypes.byref(h), os.fsencode(path), format.encode() if format else None, msg,
                                 _lib.MSG_BYTES)
    check(rc, msg)
    return Events(h.value, os.fspath(path))
