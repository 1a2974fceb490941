"""The package's exception: a failing C call's message (file, line, field where it has them)."""


class DgnnError(Exception):
    """A libdgnn.so call failed; str(e) is its message, e.code its status (base.h: DGNN_E...).
    e.result: the run's results (the dict the call returns) when the run got through and only
    writing an output (out=, emb_out=, ...) failed, so that a full disk does not cost the
    training; else None."""

    def __init__(self, message, code=None, result=None):
        super().__init__(message)
        self.code = code
        self.result = result


DGNN_EIO = -1  # base.h: open/read/write failed (a missing file or folder)
DGNN_EINVAL = -4  # base.h: a bad argument or option value (the command's usage error)
DGNN_EINTR = -9  # base.h: the run was interrupted (Ctrl-C)


def check(rc, msg):
    """Raises DgnnError with the C message in the buffer msg when rc is not 0."""
    if rc != 0:
        raise DgnnError(msg.value.decode("utf-8", "replace"), rc)
