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
