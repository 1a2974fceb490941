"""Finding and loading libdgnn.so, and the C functions' signatures (include/dgnn/capi.h).

The library is looked for, in order:
  1. the environment variable DGNN_LIBRARY (a path to libdgnn.so);
  2. a copy shipped inside the package folder (dgnn/libdgnn.so), if one was put there;
  3. build/libdgnn.so at the repository root, when run from a checkout (python/dgnn/../../build);
  4. an installed one: ctypes.util.find_library("dgnn").

Before loading, the runtime variables the dgnn command sets for itself (src/cli/main.c,
tune_runtime_env) are set here when unset: OpenBLAS and libgomp read them once, when they
load, so after that it is too late. Import dgnn before numpy (whose OpenBLAS may be the
same library) for the command's sgemm kernels and figures; importing it after warns
(RuntimeWarning) when that OpenBLAS is already loaded with other kernels.

A process forked (os.fork, multiprocessing's 'fork' start method) after this one ran
OpenMP work in dgnn cannot use libgomp's thread pool (its threads are not in the child):
more than one thread there hangs. fork_guard runs such a child's calls on one thread.
"""
import ctypes
import ctypes.util
import os
import sys
import warnings

_HERE = os.path.dirname(os.path.abspath(__file__))


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _coretype():
    """The OPENBLAS_CORETYPE the command sets for this CPU (main.c), or None (it sets none)."""
    fl = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= fl:
        return "SkylakeX"
    if {"avx2", "fma"} <= fl:
        return "Haswell"
    return None


def _loaded_openblas():
    """(path, the kernels' core name or None) of an OpenBLAS this process has loaded already
    (/proc/self/maps), None when it has none; where maps cannot be read, numpy imported
    counts as one loaded, (None, None) (its OpenBLAS may be the one libdgnn.so uses)."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:  # "address perms offset dev inode [path]"
                parts = line.split(None, 5)
                if len(parts) == 6:
                    paths.append(parts[5].strip())
    except OSError:
        return (None, None) if "numpy" in sys.modules else None
    for p in paths:
        if os.path.basename(p).startswith("libopenblas"):
            try:
                fn = ctypes.CDLL(p, mode=getattr(os, "RTLD_NOLOAD", 0)).openblas_get_corename
                fn.restype = ctypes.c_char_p
                return p, fn().decode("ascii", "replace")
            except (OSError, AttributeError):
                return p, None
    return None


def _tune_runtime_env():
    """The command's choices (main.c): OpenBLAS's kernels from the CPU's features (virtual
    machines that report a generic CPU otherwise get SSE3 kernels), idle OpenMP threads that
    sleep after a short spin (a shared machine's cores). An OpenBLAS loaded before (numpy
    imported first) has read its variables already: a RuntimeWarning says so when its
    kernels are not the command's, since the figures then differ (from the third
    significant digit on, docs/python.md)."""
    if not os.environ.get("OPENBLAS_CORETYPE"):  # empty is unset, to OpenBLAS and the command alike
        core = _coretype()
        if core:
            os.environ["OPENBLAS_CORETYPE"] = core
            loaded = _loaded_openblas()
            if loaded and (loaded[1] or "").lower() != core.lower():
                what = ("OpenBLAS was loaded before dgnn (%s, by numpy or another module) with %s kernels, not the "
                        "dgnn command's" % (loaded[0], loaded[1] or "its own") if loaded[0] else
                        "numpy was imported before dgnn: its OpenBLAS may have chosen other kernels than the dgnn "
                        "command's")
                warnings.warn("dgnn: %s (OPENBLAS_CORETYPE=%s): the figures can differ from the command's from the "
                              "third significant digit on; import dgnn before numpy, or set OPENBLAS_CORETYPE=%s "
                              "before starting Python" % (what, core, core), RuntimeWarning, stacklevel=4)
    for name, value in (("OMP_WAIT_POLICY", "PASSIVE"), ("GOMP_SPINCOUNT", "30000")):
        if not os.environ.get(name):
            os.environ[name] = value


def find_library():
    """The path of the libdgnn.so this package loads (see the module's text), or None."""
    env = os.environ.get("DGNN_LIBRARY")
    if env:
        return env
    for p in (os.path.join(_HERE, "libdgnn.so"), os.path.join(_HERE, "..", "..", "build", "libdgnn.so")):
        if os.path.exists(p):
            return os.path.normpath(p)
    return ctypes.util.find_library("dgnn")


def _declare(lib):
    c = ctypes
    P = c.c_void_p
    i64, i32p, i64p = c.c_int64, c.POINTER(c.c_int32), c.POINTER(c.c_int64)
    sigs = {
        "dgnn_capi_events_from_arrays": (c.c_int, [c.POINTER(P), i64p, i64, i64p, i64, c.POINTER(c.c_double), i64,
                                                   c.POINTER(c.c_float), i64, i64, i32p, i64, c.c_char_p, c.c_size_t]),
        "dgnn_capi_events_load": (c.c_int, [c.POINTER(P), c.c_char_p, c.c_char_p, c.c_char_p, c.c_size_t]),
        "dgnn_capi_events_free": (None, [P]),
        "dgnn_capi_events_num_events": (i64, [P]),
        "dgnn_capi_events_num_nodes": (i64, [P]),
        "dgnn_capi_events_edge_dim": (i64, [P]),
        "dgnn_capi_events_bipartite": (c.c_int, [P]),
        "dgnn_capi_events_src": (i32p, [P]),
        "dgnn_capi_events_dst": (i32p, [P]),
        "dgnn_capi_events_t": (c.POINTER(c.c_double), [P]),
        "dgnn_capi_events_efeat": (c.POINTER(c.c_float), [P]),
        "dgnn_capi_events_label": (i32p, [P]),
        "dgnn_capi_events_node_ids": (i64p, [P]),
        "dgnn_capi_train": (c.c_int, [P, c.c_char_p, c.c_int, c.POINTER(c.c_char_p), EPOCH_FN, P,
                                      c.POINTER(c.c_void_p), c.c_char_p, c.c_size_t]),
        "dgnn_capi_free_string": (None, [c.c_void_p]),
        "dgnn_capi_schedule": (c.c_int, [P, c.c_char_p, c.c_int, c.POINTER(c.c_char_p), c.POINTER(c.c_void_p),
                                         c.c_char_p, c.c_size_t]),
        "dgnn_capi_eval": (c.c_int, [P, c.c_char_p, c.c_int, c.POINTER(c.c_char_p), c.c_int, i64p,
                                     c.POINTER(c.c_double), i64, c.POINTER(c.c_void_p), i64p, i64p, i64p,
                                     c.POINTER(c.c_double), i64, c.POINTER(c.c_float), c.POINTER(c.c_void_p),
                                     c.c_char_p, c.c_size_t]),
        "dgnn_capi_free_floats": (None, [c.c_void_p]),
        "dgnn_capi_set_quiet": (None, [c.c_int]),
        "dgnn_capi_help": (c.c_int, [P, c.c_char_p, c.c_int, c.POINTER(c.c_char_p), c.POINTER(c.c_void_p), c.c_char_p,
                                     c.c_size_t]),
        "dgnn_capi_checkpoint_setting": (c.c_int, [c.c_char_p, c.c_char_p, c.c_char_p, c.c_size_t, c.c_char_p,
                                                   c.c_size_t]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_tune_runtime_env()  # at import, before numpy or libdgnn.so load OpenBLAS

# int (*)(void *ctx, const char *epoch_json): a CFUNCTYPE callback takes the GIL while it runs
EPOCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)

_lib = None


def lib():
    """libdgnn.so, loaded once (CDLL: the GIL is released during each call)."""
    global _lib
    if _lib is None:
        path = find_library()
        if not path:
            raise OSError("libdgnn.so not found: build it (scripts/build.sh build) or set DGNN_LIBRARY")
        _lib = _declare(ctypes.CDLL(path))
    return _lib


# the C calls' messages: a dgnn_err's (768 bytes) or one line of the command's stderr, kept
# from the last 8192 bytes of it (capi_train.c's TAIL_BYTES); a long path's reason (at the
# end: "File name too long") was cut off at 1024
MSG_BYTES = 16384


def msg_buffer():
    return ctypes.create_string_buffer(MSG_BYTES)


def argv(flags):
    """The command's flags (str tokens, NUL already refused) as a NULL-terminated char *[]
    (os.fsencode: a file name that is not UTF-8 goes through as its bytes)."""
    return (ctypes.c_char_p * (len(flags) + 1))(*[os.fsencode(f) for f in flags], None)


def take_string(p):
    """The malloc'd C string at p (a c_void_p) as str, freed; None for NULL. Bytes that are
    not UTF-8 (a file name in the JSON) come back as os.fsdecode gives them."""
    if not p.value:
        return None
    text = ctypes.string_at(p.value).decode("utf-8", "surrogateescape")
    lib().dgnn_capi_free_string(p)
    return text


def interrupted(what, message):
    """Raises what a call interrupted by SIGINT (Ctrl-C; rc DGNN_EINTR) raises, once the C
    handler that stopped it has given SIGINT back: KeyboardInterrupt("WHAT: MESSAGE") under
    Python's default handler (signal.default_int_handler), SIG_DFL or a handler set outside
    Python. A handler of the caller's own (signal.signal(SIGINT, f)), which the C handler
    stood in for, is called as Python calls it, f(SIGINT, frame: the package's function
    that made the call), in the calling thread: what it raises is raised; when it returns,
    DgnnError (code DGNN_EINTR, no result: an interrupted run hands back none)."""
    import signal
    from .errors import DGNN_EINTR, DgnnError
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler) or handler is signal.default_int_handler:
        raise KeyboardInterrupt("%s: %s" % (what, message))
    handler(signal.SIGINT, sys._getframe(1))
    raise DgnnError("%s: %s (SIGINT): the SIGINT handler %r returned; the run was stopped and has no results"
                    % (what, message, handler), DGNN_EINTR)


class quiet:
    """with quiet(True): the C calls this thread makes inside print nothing but warnings
    (dgnn_capi_set_quiet): their results come back as values, a failure as DgnnError."""

    def __init__(self, on):
        self.on = bool(on)

    def __enter__(self):
        lib().dgnn_capi_set_quiet(1 if self.on else 0)
        return self

    def __exit__(self, *exc):
        lib().dgnn_capi_set_quiet(0)
        return False


# ---- a forked child (os.fork, multiprocessing's 'fork') of a process that ran OpenMP work ----
_ran_native = False  # this process, or the one it was forked from, made a call with OpenMP work
_forked_after_native = False  # forked after such a call: libgomp's pool is the parent's, without its threads
_fork_warned = False


def ran_native():
    """Called before each call that runs the library's OpenMP work (train, eval, schedule,
    load): a process forked after it is told by fork_guard."""
    global _ran_native
    _ran_native = True


def _after_fork_in_child():
    global _forked_after_native, _fork_warned
    if _ran_native:
        _forked_after_native = True
        _fork_warned = False  # each forked process says it once


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

_FORK_WHY = ("libgomp's threads do not survive a fork (os.fork, or multiprocessing's 'fork' start method, Linux's "
             "default before Python 3.14), so more than one would hang; for dgnn work in other processes use "
             "multiprocessing's 'spawn' or 'forkserver' context: multiprocessing.get_context('spawn')")


def _omp_one_thread():
    """libgomp's omp_set_num_threads(1) in the calling thread, when libdgnn.so loaded it:
    the calls without a --threads flag (dgnn schedule) and OpenBLAS run on one thread too."""
    try:
        ctypes.CDLL("libgomp.so.1", mode=getattr(os, "RTLD_NOLOAD", 0)).omp_set_num_threads(1)
    except (OSError, AttributeError):
        pass


def fork_guard(options, fn, threads_flag=True, stacklevel=3):
    """options for fn's call ("dgnn.train"; threads_flag: its command takes --threads) in
    this process: themselves, unless it was forked after dgnn ran OpenMP work in its
    parent. Then no threads option runs with threads=1 (a RuntimeWarning, once per
    process, says why), threads > 1 raises DgnnError saying why, and OpenMP's default for
    the calling thread is set to one thread."""
    global _fork_warned
    if not _forked_after_native:
        return options
    from .errors import DGNN_EINVAL, DgnnError
    _omp_one_thread()
    if not threads_flag:
        return options
    v = options.get("threads")
    if v is None:
        if not _fork_warned:
            _fork_warned = True
            warnings.warn("%s: this process was forked after dgnn ran OpenMP work in its parent: it runs with "
                          "threads=1 (given, threads=1 silences this): %s" % (fn, _FORK_WHY), RuntimeWarning,
                          stacklevel=stacklevel)
        return dict(options, threads=1)
    try:
        n = None if isinstance(v, bool) else int(v)
    except (TypeError, ValueError):
        n = None  # the command's own check says what is wrong with it
    if n is not None and n > 1:
        raise DgnnError("%s: threads=%r in a process forked after dgnn ran OpenMP work in its parent: only "
                        "threads=1 works there: %s" % (fn, v, _FORK_WHY), DGNN_EINVAL)
    return options
