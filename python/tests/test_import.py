"""`python3 -c "import dgnn"` from the repository's root, without installing (the shim dgnn.py)."""
import os
import subprocess
import sys

from conftest import ROOT


def test_import_from_the_repository_root():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DGNN_LIBRARY")}  # the default lookup
    r = subprocess.run([sys.executable, "-c", "import dgnn; print(len(dgnn.Events.from_arrays([0, 1], [1, 2], [1.0, 2.0])))"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2"


def _python(code, drop=("OPENBLAS_CORETYPE",), **extra):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(PYTHONPATH=os.path.join(ROOT, "python"), **extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_numpy_imported_first_warns_when_its_openblas_kernels_differ():
    # numpy's OpenBLAS chose its kernels before dgnn set OPENBLAS_CORETYPE: the figures
    # differed from the command's in the third significant digit, without a word
    import json
    import pytest
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    core = ("SkylakeX" if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags else  # src/cli/main.c's choice
            "Haswell" if {"avx2", "fma"} <= flags else None)
    if core is None:
        pytest.skip("the dgnn command sets no OPENBLAS_CORETYPE on this CPU")
    # the kernels numpy's OpenBLAS picks by itself (numpy alone, no dgnn)
    r = _python("import ctypes, json, os, numpy\n"
                "paths = [l.split(None, 5)[5].strip() for l in open('/proc/self/maps') if len(l.split(None, 5)) == 6]\n"
                "blas = [p for p in paths if os.path.basename(p).startswith('libopenblas')]\n"
                "name = None\nif blas:\n    f = ctypes.CDLL(blas[0]).openblas_get_corename\n"
                "    f.restype = ctypes.c_char_p\n    name = f().decode()\n"
                "print(json.dumps(name))")
    assert r.returncode == 0, r.stderr
    numpy_core = json.loads(r.stdout)
    if numpy_core is None or numpy_core.lower() == core.lower():
        pytest.skip("numpy loads no OpenBLAS here, or one with the command's kernels (%s)" % numpy_core)
    r = _python("import numpy\nimport dgnn")
    assert r.returncode == 0, r.stderr
    assert "RuntimeWarning" in r.stderr and "OpenBLAS was loaded before dgnn" in r.stderr, r.stderr
    assert "import dgnn before numpy, or set OPENBLAS_CORETYPE=%s before starting Python" % core in r.stderr
    r = _python("import numpy\nimport dgnn", OPENBLAS_CORETYPE="")  # empty: unset, as the command reads it
    assert "OpenBLAS was loaded before dgnn" in r.stderr, r.stderr
    for code, extra in (("import dgnn\nimport numpy", {}), ("import numpy\nimport dgnn", {"OPENBLAS_CORETYPE": core})):
        r = _python(code, **extra)
        assert r.returncode == 0 and "OpenBLAS" not in r.stderr, (code, extra, r.stderr)
