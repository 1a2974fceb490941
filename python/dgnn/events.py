"""dgnn.Events: an event table in C memory (events.h), from numpy arrays or a file."""
import ctypes
import os

import numpy as np

from . import _convert, _lib
from .errors import DGNN_EINVAL, DgnnError, check


class _Table:
    """The C handle of one table, freed with the last Events (or view) that refers to it:
    copies of an Events share it (the table is read-only), none frees it twice."""

    __slots__ = ("h", "lib", "__weakref__")

    def __init__(self, handle):
        self.lib = _lib.lib()
        self.h = ctypes.c_void_p(handle)

    def __del__(self):
        h = getattr(self, "h", None)
        if h is not None and h.value:
            self.lib.dgnn_capi_events_free(h)
            h.value = None

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self  # read-only C memory: a copy would equal it in every way

    def __reduce__(self):
        raise TypeError("a dgnn.Events table lives in C memory and cannot be pickled: pickle its arrays "
                        "(ev.to_numpy()) and rebuild it with dgnn.Events.from_arrays, or its file's path for dgnn.load")


_F32_MAX = float(np.finfo(np.float32).max)


def _edge_features(values, n):
    """values as a C-contiguous (E, d) float32 array (a 1-d array: one feature), None for an
    (n, 0) array (no features); anything that is not real numbers (strings, complex numbers,
    datetimes) or does not fit float32 (1e300, the integer 10**40: inf after the cast)
    raises DgnnError naming edge_feat and, where one is, the entry. NaN and inf are refused
    by the C side, naming the row and feature."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as e:  # ragged rows
        raise DgnnError("edge_feat: a (E, d) array of numbers (%s)" % e, DGNN_EINVAL) from None
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise ValueError("edge_feat: a (E, d) array, got shape %s" % (a.shape,))
    if a.shape[1] == 0:  # no features, as None
        if a.shape[0] != n:
            raise DgnnError("edge_feat has %d rows, src %d: one of each per event" % (a.shape[0], n), DGNN_EINVAL)
        return None
    k = a.dtype.kind
    if k not in "biufO":
        names = {"c": "complex numbers", "U": "strings", "S": "bytes", "M": "datetimes", "m": "timedeltas"}
        raise DgnnError("edge_feat: features are real numbers, got %s (%s)" % (names.get(k, "an array"), a.dtype),
                        DGNN_EINVAL)
    if k == "O":  # Python numbers (10**40), mixed objects: each one, named when it is not a real number
        out = np.empty(a.shape, dtype=np.float64)
        for (r, c), x in np.ndenumerate(a):
            try:
                if isinstance(x, (str, bytes, complex, np.complexfloating)):
                    raise TypeError("not a real number")
                out[r, c] = float(x)
            except (TypeError, ValueError, OverflowError) as e:
                raise DgnnError("edge_feat row %d, feature %d: %r is not a feature value (%s)" % (r, c, x, e),
                                DGNN_EINVAL) from None
        a = out
    elif k in "iu":
        a = a.astype(np.float64)  # exact enough to tell what fits float32
    if a.dtype.itemsize > 4:  # inf after the cast: say why
        with np.errstate(invalid="ignore"):
            big = np.isfinite(a) & (np.abs(a) > _F32_MAX)
        if big.any():
            r, c = (int(x) for x in np.argwhere(big)[0])
            raise DgnnError("edge_feat row %d, feature %d: %r does not fit float32 (edge features are float32)"
                            % (r, c, a[r, c].item()), DGNN_EINVAL)
    return np.ascontiguousarray(a, dtype=np.float32)


class Events:
    """A table of events (src, dst, t, edge features, labels), sorted by time, node ids dense
    0..N-1 (the original ids in to_numpy()["node_ids"]). Build with Events.from_arrays or
    dgnn.load; the C memory is freed with the last object that uses it. The table is
    read-only: copy.copy and copy.deepcopy give an Events sharing it (with its own name);
    pickling is refused (pickle ev.to_numpy()'s arrays instead)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("dgnn.Events is not built directly: use dgnn.Events.from_arrays(src, dst, t, edge_feat=None, "
                        "label=None, name=...) for arrays, or dgnn.load(path) for a file")

    @classmethod
    def _own(cls, handle, name):
        """The Events over a handle the C calls just made (the package's only way in)."""
        self = cls.__new__(cls)
        self._table = _Table(handle)
        self._h = self._table.h
        self._lib = self._table.lib
        self.name = name  # the results' "dataset"
        return self

    def __copy__(self):
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)  # the same _Table: freed once, with the last of them
        return other

    def __deepcopy__(self, memo):
        return self.__copy__()  # read-only C memory: sharing it is a copy in every way that shows

    def __reduce__(self):
        return self._table.__reduce__()

    @classmethod
    def from_arrays(cls, src, dst, t, edge_feat=None, label=None, name="arrays"):
        """Events from arrays of one entry (row) per event: src, dst original node ids (int64),
        t timestamps (float64), edge_feat (E, d) float32 or None (an (E, 0) array too: no
        features), label (E) 0/1 or None. The arrays are copied (converted to those types
        first)."""
        name = _convert.text(name, "Events.from_arrays: name")
        src = _convert.ids(src, "src")
        dst = _convert.ids(dst, "dst")
        t = np.ascontiguousarray(_convert.times(t), dtype=np.float64)
        for a, n in ((src, "src"), (dst, "dst"), (t, "t")):
            if a.ndim != 1:
                raise ValueError("%s: a 1-d array (one entry per event), got shape %s" % (n, a.shape))
        rows, dim, fp = 0, 0, None
        if edge_feat is not None:
            edge_feat = _edge_features(edge_feat, src.shape[0])
        if edge_feat is not None:
            rows, dim = edge_feat.shape
            fp = edge_feat.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        nl, lp = 0, None
        if label is not None:
            label = _convert.labels(np.asarray(label).reshape(-1))
            nl, lp = label.shape[0], label.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        L = _lib.lib()
        h, msg = ctypes.c_void_p(), _lib.msg_buffer()
        i64p = ctypes.POINTER(ctypes.c_int64)
        rc = L.dgnn_capi_events_from_arrays(ctypes.byref(h), src.ctypes.data_as(i64p), src.shape[0],
                                            dst.ctypes.data_as(i64p), dst.shape[0],
                                            t.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), t.shape[0],
                                            fp, rows, dim, lp, nl, msg, _lib.MSG_BYTES)
        check(rc, msg)
        return cls._own(h.value, name)

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
        buf._dgnn_owner = self._table
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
        if out["node_ids"] is None:  # the identity: a new array, read-only as the others
            out["node_ids"] = np.arange(N, dtype=np.int64)
            out["node_ids"].flags.writeable = False
        return out

    def __repr__(self):
        return "dgnn.Events(%s: %d events, %d nodes, edge_dim %d%s)" % (
            self.name, len(self), self.num_nodes, self.edge_dim, ", bipartite" if self.bipartite else "")


def load(path, format="auto"):
    """Events read from path (any format the dgnn command reads: format auto, jodie, tgl,
    edgelist, pgt, dgnn, dyglib, tgb). A .dgnn file is mapped, not copied: it must not be
    truncated or rewritten in place while the Events lives (docs/python.md)."""
    name = _convert.text(path, "dgnn.load: path")  # str, bytes or os.PathLike; the results' "dataset"
    L = _lib.lib()
    _lib.ran_native()
    h, msg = ctypes.c_void_p(), _lib.msg_buffer()
    fmt = _convert.cbytes(format, "format") if format else None
    rc = L.dgnn_capi_events_load(ctypes.byref(h), os.fsencode(name), fmt, msg, _lib.MSG_BYTES)
    check(rc, msg)
    return Events._own(h.value, name)


def as_events(data, fn):
    """data as an Events: itself, or dgnn.load(data) for a path (str, bytes, os.PathLike);
    anything else raises TypeError naming fn's data argument (None was the file "None")."""
    if isinstance(data, Events):
        return data
    if not isinstance(data, (str, bytes, os.PathLike)):
        hint = " (arrays: dgnn.Events.from_arrays(src, dst, t, ...) makes an Events of them)" if (
            isinstance(data, (list, tuple)) or hasattr(data, "__array__")) else ""
        raise TypeError("%s: data: an Events or a path (str, bytes or os.PathLike), got %s%s"
                        % (fn, type(data).__name__, hint))
    return load(data)
