"""dgnn.train: `dgnn train` run in-process on an Events table (libdgnn.so's dgnn_capi_train)."""
import ctypes
import json
import os

from . import _lib
from .errors import DGNN_EINTR, DGNN_EINVAL, DgnnError
from .events import Events, load


def options_to_flags(options):
    """Keyword options as the command's flags: epochs=3 -> --epochs 3, quiet=True -> --quiet,
    False or None -> left out, new_node_frac=0.1 -> --new-node-frac 0.1, a list -> one value
    joined by commas (protocol=["tgn", "dyglib"] -> --protocol tgn,dyglib)."""
    flags = []
    for k, v in options.items():
        name = "--" + k.replace("_", "-")
        if v is None or v is False:
            continue
        if v is True:
            flags.append(name)
        elif isinstance(v, (list, tuple)):
            flags += [name, ",".join(str(x) for x in v)]
        else:
            flags += [name, repr(v) if isinstance(v, float) else str(v)]
    return flags


# the snapshot models (`dgnn train` hands them to its snapshot trainer: cli_is_snapshot_model)
SNAPSHOT_MODELS = ("evolvegcn-o", "evolvegcn-h", "tgcn", "gcrn-gru", "wdgcn", "gcn")


def train(data, /, model="tgn", preset=None, epochs=None, on_epoch=None, return_model=False, **options):
    """Trains and tests model on data (an Events, or a path that dgnn.load reads) as
    `dgnn train --model MODEL [--preset P] [--epochs N] FLAGS` does, and returns the
    results as the dict of the command's --out JSON. options are the command's other flags
    (options_to_flags). on_epoch(epoch: dict) runs after each epoch with that epoch's
    figures; returning True stops training as early stopping does (the result then says
    "stopped_by_caller": True). Ctrl-C stops the run and raises KeyboardInterrupt; a failing
    run raises DgnnError with the command's message.
    The snapshot models (model="evolvegcn-o", "evolvegcn-h", "tgcn", "gcrn-gru", "wdgcn",
    "gcn") train as `dgnn train --model M` does for them, with their flags (snapshots=20,
    window=3, ...); on_epoch and Ctrl-C work for them as for the event models (a stop after
    the epoch; an interruption after the current sample); return_model is for the event
    models.
    return_model=True: returns (result, dgnn.Model), the model trained into options'
    checkpoint folder, or a temporary one kept with the model (Model.save copies it)."""
    if return_model and model in SNAPSHOT_MODELS:
        raise DgnnError("dgnn.train: return_model is for the event models (a snapshot model's checkpoint is not "
                        "one dgnn eval reads)", DGNN_EINVAL)
    if not isinstance(data, Events):
        data = load(data)
    tmp = None
    if return_model and not options.get("checkpoint"):
        import tempfile
        tmp = tempfile.TemporaryDirectory(prefix="dgnn-model-")
        options["checkpoint"] = os.path.join(tmp.name, "checkpoint")
    opts = {"model": model, "preset": preset, "epochs": epochs}
    opts.update(options)
    flags = options_to_flags(opts)
    argv = (ctypes.c_char_p * (len(flags) + 1))(*[f.encode() for f in flags], None)
    raised = []

    def hook(ctx, line):
        if not on_epoch:
            return 0
        try:
            return 1 if on_epoch(json.loads(line.decode())) else 0
        except BaseException as e:  # kept, raised after the run, which stops now
            raised.append(e)
            return 1

    cb = _lib.EPOCH_FN(hook) if on_epoch else _lib.EPOCH_FN()
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    L = _lib.lib()
    rc = L.dgnn_capi_train(data._h, str(data.name).encode(), len(flags), argv, cb, None, ctypes.byref(out), msg,
                           _lib.MSG_BYTES)
    text = None
    if out.value:
        text = ctypes.string_at(out.value).decode()
        L.dgnn_capi_free_string(out)
    if raised:
        raise raised[0]
    if rc == DGNN_EINTR:
        raise KeyboardInterrupt("dgnn.train: " + msg.value.decode())
    if rc != 0:
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc)
    res = json.loads(text) if text is not None else None
    if return_model:
        from .model import Model
        return res, Model(options["checkpoint"], data, _tmp=tmp)
    return res


def schedule(data, /, model="evolvegcn-o", workers=None, scheduler="greedy", **options):
    """DyGNeX's schedule of data's training windows on `workers` ranks, as `dgnn schedule
    --model MODEL --workers P --scheduler S FLAGS --json` does: the dict of its JSON
    (imbalance, makespan, rounds, the schedule). data: an Events or a path (dgnn.load);
    options are the command's other flags (snapshots=20, window=3, profile="p.csv", ...;
    options_to_flags). A failing run raises DgnnError with the command's message."""
    if not isinstance(data, Events):
        data = load(data)
    opts = {"model": model, "workers": workers, "scheduler": scheduler}
    opts.update(options)
    flags = options_to_flags(opts)
    argv = (ctypes.c_char_p * (len(flags) + 1))(*[f.encode() for f in flags], None)
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    L = _lib.lib()
    rc = L.dgnn_capi_schedule(data._h, str(data.name).encode(), len(flags), argv, ctypes.byref(out), msg,
                              _lib.MSG_BYTES)
    text = None
    if out.value:
        text = ctypes.string_at(out.value).decode()
        L.dgnn_capi_free_string(out)
    if rc == DGNN_EINTR:
        raise KeyboardInterrupt("dgnn.schedule: " + msg.value.decode())
    if rc != 0:
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc)
    return json.loads(text) if text is not None else None
