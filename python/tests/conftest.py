"""The package from this checkout (python/), the library and command from DGNN_LIBRARY /
DGNN_BIN (scripts/test-python.sh sets them), else the repository's build/."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import dgnn  # noqa: E402  (before numpy is used: the command's runtime variables)

DGNN_BIN = os.environ.get("DGNN_BIN", os.path.join(ROOT, "build", "dgnn"))


@pytest.fixture(scope="session")
def stream(tmp_path_factory):
    """A small seeded JODIE csv (bipartite, 4 edge features) written by `dgnn gen`."""
    path = str(tmp_path_factory.mktemp("data") / "stream.csv")
    subprocess.run([DGNN_BIN, "gen", "--out", path, "--events", "3000", "--nodes", "200", "--bipartite", "1",
                    "--edge-dim", "4", "--seed", "3"], check=True, capture_output=True)
    return path


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the test, and whatever was there before afterwards.
    A suite started in the background (nohup, `cmd &` in a script) inherits SIGINT ignored, so
    Python installs no handler of its own; the Ctrl-C tests need the interactive case."""
    import signal
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
