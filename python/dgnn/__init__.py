"""dgnn: temporal GNN training in C, from Python (ctypes over libdgnn.so; docs/python.md).

    import dgnn
    ev = dgnn.Events.from_arrays(src, dst, t, edge_feat=feat)   # numpy arrays
    res = dgnn.train(ev, model="tgn", epochs=3, seed=1, quiet=True)
    res["test"]["ap"]

Import dgnn before numpy when the figures must equal the dgnn command's (dgnn._lib).
"""
from . import _lib  # first: sets the command's runtime variables before numpy loads OpenBLAS
from ._lib import find_library
from .errors import DgnnError
from .events import Events, load
from .model import Model, eval, load_model
from .train import options_to_flags, schedule, train

__all__ = ["DgnnError", "Events", "load", "train", "schedule", "options_to_flags", "find_library", "Model", "load_model", "eval"]
__version__ = "0.1.0"
