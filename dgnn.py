"""Repository shim: `import dgnn` from the repository's root loads the package in python/dgnn
(as `PYTHONPATH=python` would), so that `python3 -c "import dgnn"` works from a checkout.
An installed package (pip install ./python) needs no shim."""
import os as _os

__path__ = [_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "python", "dgnn")]
__package__ = "dgnn"
with open(_os.path.join(__path__[0], "__init__.py")) as _f:
    exec(compile(_f.read(), _f.name, "exec"))
