"""dgnn.train: `dgnn train` run in-process on an Events table (libdgnn.so's dgnn_capi_train)."""
import ctypes
import json
import os

from . import _lib
from .errors import DGNN_EINTR, DgnnError
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


def train(data, /, model="tgn", preset=None, epochs=None, on_epoch=None, return_model=False, **options):
    """Trains and tests model on data (an Events, or a path that dgnn.load reads) as
    `dgnn train --model MODEL [--preset P] [--epochs N] FLAGS` does, and returns the
    results as the dict of the command's --out JSON. options are the command's other flags
    (options_to_flags). on_epoch(epoch: dict) runs after each epoch with that epoch's
    figures; returning True stops training as early stopping does (the result then says
    "stopped_by_caller": True). Ctrl-C stops the run and raises KeyboardInterrupt; a failing
    run raises DgnnError with the command's message.
    return_model=True: returns (result, dgnn.Model), the model trained into options'
    checkpoint folder, or a temporary one kept with the model (Model.save copies it)."""
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
