"""Finding and loading libdgnn.so, and the C functions' signatures (include/dgnn/capi.h).

The library is looked for, in order:
  1. the environment variable DGNN_LIBRARY (a path to libdgnn.so);
  2. a copy shipped inside the package folder (dgnn/libdgnn.so), if one was put there;
  3. build/libdgnn.so at the repository root, when run from a checkout (python/dgnn/../../build);
  4. an installed one: ctypes.util.find_library("dgnn").

Before loading, the runtime variables the dgnn command sets for itself (src/cli/main.c,
tune_runtime_env) are set here when unset: OpenBLAS and libgomp read them once, when they
load, so after that it is too late. Import dgnn before numpy (whose OpenBLAS may be the
same library) for the command's sgemm kernels and figures.
"""
import ctypes
import ctypes.util
import os

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


def _tune_runtime_env():
    """The command's choices (main.c): OpenBLAS's kernels from the CPU's features (virtual
    machines that report a generic CPU otherwise get SSE3 kernels), idle OpenMP threads that
    sleep after a short spin (a shared machine's cores)."""
    if "OPENBLAS_CORETYPE" not in os.environ:
        fl = _cpu_flags()
        if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= fl:
            os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
        elif {"avx2", "fma"} <= fl:
            os.environ["OPENBLAS_CORETYPE"] = "Haswell"
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("GOMP_SPINCOUNT", "30000")


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


MSG_BYTES = 1024


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
