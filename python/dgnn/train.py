"""dgnn.train: `dgnn train` run in-process on an Events table (libdgnn.so's dgnn_capi_train)."""
import ctypes
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import weakref

import numpy as np

from . import _convert, _lib
from .errors import DGNN_EINTR, DGNN_EINVAL, DgnnError
from .events import as_events


def _value_text(v, what):
    """An option's value as the command reads it: a float as repr (round trip), a path
    (str, bytes, os.PathLike) as its str (bytes through os.fsdecode), else str."""
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (str, bytes, os.PathLike)):
        return _convert.text(v, what)
    return str(v)


def _is_bool(v):
    return isinstance(v, (bool, np.bool_))


def options_to_flags(options, cmd="train", kinds=None):
    """Keyword options as the command's flags: epochs=3 -> --epochs 3, quiet=True -> --quiet,
    None (and False for a switch) -> left out, new_node_frac=0.1 -> --new-node-frac 0.1, a
    list -> one value joined by commas (protocol=["tgn", "dyglib"] -> --protocol tgn,dyglib),
    a path (str, bytes, os.PathLike) -> its text. A value holding NUL raises DgnnError.
    kinds ({flag name: its metavar, or "" for a switch}: the command's options, option_kinds;
    what train, eval and schedule pass): an unknown name goes to the command whatever its value (False and
    None too), which refuses it with its own message; True or False for an option that takes
    a value and anything but True, False or None for a switch raise DgnnError naming the
    option (True would otherwise become a bare --name that takes the next flag as its value,
    and epochs=False would train the preset's epochs: only None means "not given"), as do
    True or False inside a list (they would be 1 and 0)."""
    flags = []
    for k, v in options.items():
        name = "--" + k.replace("_", "-")
        known = kinds is None or name[2:] in kinds
        if not known and (v is None or v is False):
            flags.append(name)  # refused by the command with its message (unknown option)
            continue
        if known and kinds is not None:
            if kinds[name[2:]] and _is_bool(v):
                raise DgnnError("dgnn %s: %s=%r: %s needs a value (%s), not %r%s" % (
                    cmd, k, bool(v), name, kinds[name[2:]], bool(v), "" if v else " (None leaves it out)"), DGNN_EINVAL)
            if not kinds[name[2:]] and not (v is None or _is_bool(v)):
                raise DgnnError("dgnn %s: %s=%r: %s is a switch: True or False (or None)" % (cmd, k, v, name),
                                DGNN_EINVAL)
        if v is None or (_is_bool(v) and not v):
            continue
        if _is_bool(v):
            flags.append(name)
        elif isinstance(v, (list, tuple)):
            if any(_is_bool(x) for x in v):  # True would be the value 1
                raise DgnnError("dgnn %s: %s=%r: %s takes values, not %r" % (
                    cmd, k, list(v), name, [x for x in v if _is_bool(x)][0]), DGNN_EINVAL)
            flags += [name, ",".join(_value_text(x, "dgnn %s: %s" % (cmd, name)) for x in v)]
        else:
            flags += [name, _value_text(v, "dgnn %s: %s" % (cmd, name))]
    for f in flags:
        if "\x00" in f:
            raise DgnnError("dgnn %s: %r holds a NUL character (C strings end there)" % (cmd, f), DGNN_EINVAL)
    return flags


_KINDS = {}  # (cmd, family) -> {flag name: metavar, or "" for a switch}


def option_kinds(data, cmd, family=()):
    """The options of `dgnn CMD [FAMILY] --help` (family: ("--model", M) for train, which
    lists the event or the snapshot models' flags): {name: its metavar ("N", "FILE"), or ""
    for a switch}; read from the command's own --help in-process, once per process; None
    where that fails (no checks then). A Ctrl-C during that read raises KeyboardInterrupt
    (or calls the caller's own SIGINT handler: _lib.interrupted)."""
    key = (cmd, tuple(family))
    if key not in _KINDS:
        argv = _lib.argv(list(family))
        text, msg = ctypes.c_void_p(), _lib.msg_buffer()
        rc = _lib.lib().dgnn_capi_help(data._h, cmd.encode(), len(family), argv, ctypes.byref(text), msg,
                                       _lib.MSG_BYTES)
        help_text = _lib.take_string(text)
        if rc == DGNN_EINTR:  # a Ctrl-C during the help call: the user's, not to be swallowed
            _lib.interrupted("dgnn %s" % cmd, "interrupted")
        if rc != 0 or not help_text:
            return None  # another run going on in this process: that run's call will say so
        kinds = {}
        for line in help_text.splitlines():
            # "  --name METAVAR   help" or "  --name   help" (args_print_help: the left part
            # padded to 26 columns, flag names shorter than that)
            if not line.startswith("  --"):
                continue
            name = line[4:].split()[0]
            rest = line[4 + len(name):]
            kinds[name] = rest[1:].split()[0] if rest[:1] == " " and rest[1:2] not in (" ", "") else ""
        _KINDS[key] = kinds
    return _KINDS[key]


def _remove_in(path, pid):
    """rmtree(path) in the process pid only: a forked child's exit runs its copy of the
    finalizer too, and must leave its parent's model alone."""
    if os.getpid() == pid:
        shutil.rmtree(path, ignore_errors=True)


def _proc_start(pid):
    """Process pid's start time (/proc/PID/stat's 22nd field: clock ticks after boot) as
    its digits, None when it cannot be read. With the pid it names one process: a pid is
    reused, a (pid, start) pair is not, within one boot."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2:].split()  # after "PID (COMM) ": the name may hold spaces and ')'
    return fields[19].decode("ascii") if len(fields) > 19 and fields[19].isdigit() else None


def _host_key():
    """8 hex digits naming this boot of this machine and this pid namespace (a hash of
    /proc/sys/kernel/random/boot_id and /proc/self/ns/pid), None where they cannot be read:
    a pid means a process of one namespace in one boot only, so a temporary folder shared
    with a container, another machine or an earlier boot is not this process's to judge."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
        ns = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    return hashlib.sha1(("%s %s" % (boot, ns)).encode()).hexdigest()[:8]


# _TempFolder's names: dgnn-model-PID-START-KEY-XXXXXXXX (mkdtemp's 8 characters)
_FOLDER = re.compile(r"dgnn-model-([1-9][0-9]{0,9})-([0-9]{1,20})-([0-9a-f]{8})-[a-z0-9_]{8}")


def _owner_gone(pid, start):
    """True when the process that made a folder named for (pid, start) is gone for certain:
    another process has that pid now (one that started at another time: the pid was
    reused), or none has. False when it runs (a zombie too), or when that cannot be told
    (/proc/PID hidden by hidepid= for another user's process: kill says EPERM)."""
    now = _proc_start(pid)
    if now is not None:
        return now != start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False


def _remove_stale(folder, key):
    """Removes the temporary models in folder (the temporary directory) that processes
    killed while they held them left there (SIGKILL, a crash: no clean-up ran): the ones
    named exactly as _TempFolder names them, with this boot's and pid namespace's key,
    folders (not links) of this user, whose process is gone for certain (_owner_gone);
    never a live process's, nor one whose owner cannot be told. Housekeeping: errors are
    ignored."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    uid = os.geteuid()  # the owner of the folders this process makes
    for e in entries:
        m = _FOLDER.fullmatch(e.name)
        if not m or m.group(3) != key:
            continue
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid and _owner_gone(int(m.group(1)), m.group(2)):
            shutil.rmtree(e.path, ignore_errors=True)


class _TempFolder:
    """train(return_model=True)'s temporary checkpoint folder,
    /tmp/dgnn-model-PID-START-KEY-XXXXXXXX (the process's pid and start time, _host_key):
    removed with the last Model that holds it (copies share it), at exit, or by cleanup(),
    in the process that made it only (tempfile.TemporaryDirectory's finalizer removed it in
    a forked child that exited, under the parent's model). A killed process cleans up
    nothing: making one removes the folders such processes left (_remove_stale). Where
    /proc cannot be read the folder is dgnn-model-XXXXXXXX, which none removes but its
    maker."""

    def __init__(self):
        pid = os.getpid()
        start, key = _proc_start(pid), _host_key()
        named = start is not None and key is not None
        self.name = tempfile.mkdtemp(prefix="dgnn-model-%d-%s-%s-" % (pid, start, key) if named else "dgnn-model-")
        self._finalizer = weakref.finalize(self, _remove_in, self.name, pid)
        if named:
            _remove_stale(os.path.dirname(self.name), key)

    def cleanup(self):
        self._finalizer()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self  # one folder: a copy that removed it would take it from the others

    def __repr__(self):
        return "<dgnn temporary model folder %s>" % self.name


def _abspath(path):
    """path (str, bytes through os.fsdecode) made absolute: a model's folder stays the same
    after os.chdir. Through bytes, so that a name that is not UTF-8 keeps its bytes."""
    return os.fsdecode(os.path.abspath(os.fsencode(path)))


# the snapshot models (`dgnn train` hands them to its snapshot trainer: cli_is_snapshot_model)
SNAPSHOT_MODELS = ("evolvegcn-o", "evolvegcn-h", "tgcn", "gcrn-gru", "wdgcn", "gcn")


def train(data, /, model="tgn", preset=None, epochs=None, on_epoch=None, return_model=False, **options):
    """Trains and tests model on data (an Events, or a path that dgnn.load reads) as
    `dgnn train --model MODEL [--preset P] [--epochs N] FLAGS` does, and returns the
    results as the dict of the command's --out JSON. options are the command's other flags
    (options_to_flags). on_epoch(epoch: dict) runs after each epoch with that epoch's
    figures; returning True stops training as early stopping does (the result then says
    "stopped_by_caller": True); an exception in it aborts the run at the next training step
    (no test, no outputs; docs/python.md says the one limit) and is raised. Ctrl-C stops the
    run and raises KeyboardInterrupt, or calls the caller's own SIGINT handler and raises
    DgnnError (DGNN_EINTR) if it returns (_lib.interrupted); a failing run raises DgnnError
    with the command's message. Options are checked against the command's table first
    (options_to_flags).
    The snapshot models (model="evolvegcn-o", "evolvegcn-h", "tgcn", "gcrn-gru", "wdgcn",
    "gcn") train as `dgnn train --model M` does for them, with their flags (snapshots=20,
    window=3, ...); on_epoch and Ctrl-C work for them as for the event models (a stop after
    the epoch; an interruption after the current sample); return_model is for the event
    models.
    return_model=True: returns (result, dgnn.Model), the model trained into options'
    checkpoint folder (its path made absolute), or a temporary one kept with the model
    (Model.save copies it; removed at once when the run fails, and by the process that made
    it only); resume=True needs checkpoint=DIR then. In a process forked after dgnn ran
    OpenMP work, the run has one thread (_lib.fork_guard)."""
    if on_epoch is not None and not callable(on_epoch):
        raise TypeError("dgnn.train: on_epoch must be a function of each epoch's figures (a dict), got %r"
                        % (on_epoch,))
    if return_model and model in SNAPSHOT_MODELS:
        raise DgnnError("dgnn.train: return_model is for the event models (a snapshot model's checkpoint is not "
                        "one dgnn eval reads)", DGNN_EINVAL)
    if return_model and options.get("checkpoint") is None and _is_bool(options.get("resume")) and options["resume"]:
        raise DgnnError("dgnn.train: resume=True needs checkpoint=DIR, the folder of the run to continue "
                        "(return_model=True without checkpoint= trains afresh into a temporary folder)", DGNN_EINVAL)
    data = as_events(data, "dgnn.train")
    tmp = None
    if return_model and options.get("checkpoint") is None:
        tmp = _TempFolder()
        options["checkpoint"] = os.path.join(tmp.name, "checkpoint")
    try:  # a failure removes the temporary folder at once (not when the traceback goes)
        return _train(data, model, preset, epochs, on_epoch, return_model, options, tmp)
    except BaseException:
        if tmp is not None:
            tmp.cleanup()
        raise


def _train(data, model, preset, epochs, on_epoch, return_model, options, tmp):
    opts = {"model": model, "preset": preset, "epochs": epochs}
    opts.update(options)
    opts = _lib.fork_guard(opts, "dgnn.train", stacklevel=4)
    family = ("--model", "evolvegcn-o" if model in SNAPSHOT_MODELS else "tgn")
    flags = options_to_flags(opts, "train", option_kinds(data, "train", family))
    argv = _lib.argv(flags)
    dataset = _convert.cbytes(data.name, "the data's name")
    # the model's folder as the run resolves it now (an on_epoch that calls os.chdir does not move it)
    ck = _abspath(_value_text(options["checkpoint"], "dgnn train: --checkpoint")) if return_model else None
    raised = []

    def hook(ctx, line):
        if not on_epoch:
            return 0
        try:
            return 1 if on_epoch(json.loads(line.decode("utf-8", "surrogateescape"))) else 0
        except BaseException as e:  # kept, raised after the run, which is aborted at once (no test, no outputs)
            raised.append(e)
            return -1

    cb = _lib.EPOCH_FN(hook) if on_epoch else _lib.EPOCH_FN()
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    L = _lib.lib()
    _lib.ran_native()
    rc = L.dgnn_capi_train(data._h, dataset, len(flags), argv, cb, None, ctypes.byref(out), msg, _lib.MSG_BYTES)
    text = _lib.take_string(out)
    if raised:
        raise raised[0]
    if rc == DGNN_EINTR:
        _lib.interrupted("dgnn.train", msg.value.decode("utf-8", "replace"))
    if rc != 0:  # a run that got through keeps its results (an output that could not be written)
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc, json.loads(text) if text is not None else None)
    res = json.loads(text) if text is not None else None
    if return_model:
        from .model import Model
        return res, Model(ck, data, _tmp=tmp)
    return res


def schedule(data, /, model="evolvegcn-o", workers=None, scheduler="greedy", **options):
    """DyGNeX's schedule of data's training windows on `workers` ranks, as `dgnn schedule
    --model MODEL --workers P --scheduler S FLAGS --json` does: the dict of its JSON
    (imbalance, makespan, rounds, the schedule). data: an Events or a path (dgnn.load);
    options are the command's other flags (snapshots=20, window=3, profile="p.csv", ...;
    options_to_flags). A failing run raises DgnnError with the command's message."""
    data = as_events(data, "dgnn.schedule")
    opts = {"model": model, "workers": workers, "scheduler": scheduler}
    opts.update(options)
    opts = _lib.fork_guard(opts, "dgnn.schedule", threads_flag=False)  # no --threads: one thread through OpenMP
    flags = options_to_flags(opts, "schedule", option_kinds(data, "schedule"))
    argv = _lib.argv(flags)
    out, msg = ctypes.c_void_p(), _lib.msg_buffer()
    L = _lib.lib()
    _lib.ran_native()
    rc = L.dgnn_capi_schedule(data._h, _convert.cbytes(data.name, "the data's name"), len(flags), argv,
                              ctypes.byref(out), msg, _lib.MSG_BYTES)
    text = _lib.take_string(out)
    if rc == DGNN_EINTR:
        _lib.interrupted("dgnn.schedule", msg.value.decode("utf-8", "replace"))
    if rc != 0:
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc, json.loads(text) if text is not None else None)
    return json.loads(text) if text is not None else None
