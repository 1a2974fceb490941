"""Checked conversions of the caller's values into what the C calls take: node ids (int64),
labels (0/1), times (float64), strings and paths (bytes for char *, without NUL).

numpy's own casts (astype, ascontiguousarray with a dtype) truncate 1.7 to 1, wrap 2**32
to 0 in int32 and 2**64-1 to -1 in int64 without a word; these refuse such values naming
the array and the entry. Integral floats (3.0) are taken as the integer they equal."""
import datetime
import numbers
import os
import warnings

import numpy as np

from .errors import DGNN_EINVAL, DgnnError

_I64_MIN, _I64_MAX = -(2 ** 63), 2 ** 63 - 1


def _entry(what, a, i):
    """'src[3]' for a 1-d array, 'src[1, 2]' otherwise (i: the flat index)."""
    if a.ndim <= 1:
        return "%s[%d]" % (what, i)
    return "%s[%s]" % (what, ", ".join(str(int(k)) for k in np.unravel_index(i, a.shape)))


def first_bool(values, a):
    """(index, value) of the first boolean in values when it is a list or tuple (nested, or
    holding numpy arrays) that np.asarray made a (its array) of numbers, else None: numpy
    makes [0, True, 2] the integers [0, 1, 2] and [0.5, True] the floats [0.5, 1.0] without a
    word, while a bare True, or a list of booleans only, is an array of bool (refused as
    such). index: a tuple, one entry per level."""
    if not isinstance(values, (list, tuple)) or a.dtype.kind not in "iuf":
        return None

    def walk(v, at):
        if not any(issubclass(ty, (bool, np.bool_, np.ndarray, list, tuple)) for ty in set(map(type, v))):
            return None  # the common case, at C speed: no entry to look at
        for i, x in enumerate(v):
            if isinstance(x, (bool, np.bool_)):
                return at + (i,), x
            if isinstance(x, np.ndarray) and x.dtype.kind == "b" and x.size:  # all of it booleans
                return at + (i,) + (0,) * x.ndim, x.flat[0]
            if isinstance(x, (list, tuple)):
                found = walk(x, at + (i,))
                if found:
                    return found
        return None
    return walk(values, ())


def _at(what, index):
    """'src[3]', 'src[1, 2]' for an index tuple (as _entry)."""
    return "%s[%s]" % (what, ", ".join(str(int(k)) for k in index))


def ids(values, what, kind="node ids"):
    """values as an int64 array of the same shape: integers (any integer dtype, Python ints)
    in int64's range, or floats that are integers (3.0); anything else (booleans, in a list
    too) raises DgnnError naming the first bad entry."""
    a = np.asarray(values)
    k = a.dtype.kind
    b = first_bool(values, a)
    if b:
        raise DgnnError("%s is %r: %s are integers, not booleans" % (_at(what, b[0]), b[1], kind), DGNN_EINVAL)
    if k == "i":
        return np.ascontiguousarray(a, dtype=np.int64)
    if k == "u":
        if a.size and a.dtype.itemsize >= 8:
            over = np.flatnonzero(a > np.uint64(_I64_MAX))
            if over.size:
                i = int(over[0])
                raise DgnnError("%s is %d: %s are int64 (at most 2**63-1)" % (_entry(what, a, i), int(a.flat[i]), kind),
                                DGNN_EINVAL)
        return np.ascontiguousarray(a, dtype=np.int64)
    if k == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(a) | (a != np.floor(a)) | (a < -2.0 ** 63) | (a >= 2.0 ** 63)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            x = float(a.flat[i])
            why = "not an integer" if not np.isfinite(x) or x != np.floor(x) else "outside int64's range"
            raise DgnnError("%s is %r: %s are integers (%s)" % (_entry(what, a, i), x, kind, why), DGNN_EINVAL)
        return np.ascontiguousarray(a, dtype=np.int64)
    if k == "O":  # Python ints beyond int64, mixed objects
        out = np.empty(a.shape, dtype=np.int64)
        for i, x in enumerate(a.flat):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, numbers.Real)):
                raise DgnnError("%s is %r: %s are integers" % (_entry(what, a, i), x, kind), DGNN_EINVAL)
            if not isinstance(x, numbers.Integral):
                x = float(x)
                if not np.isfinite(x) or x != np.floor(x):
                    raise DgnnError("%s is %r: %s are integers (not an integer)" % (_entry(what, a, i), x, kind),
                                    DGNN_EINVAL)
            if not _I64_MIN <= int(x) <= _I64_MAX:
                raise DgnnError("%s is %d: %s are int64 (outside its range)" % (_entry(what, a, i), int(x), kind),
                                DGNN_EINVAL)
            out.flat[i] = int(x)
        return out
    raise DgnnError("%s: %s are integers, got an array of %s" % (what, kind, a.dtype), DGNN_EINVAL)


def labels(values, what="label"):
    """values as an int32 array of 0s and 1s (booleans, integers, 0.0 and 1.0); any other
    value raises DgnnError naming the first."""
    a = np.asarray(values)
    if a.dtype.kind == "b":
        return np.ascontiguousarray(a, dtype=np.int32)
    if a.dtype.kind == "O":
        a = ids(a, what, "labels")
    if a.dtype.kind not in "iuf":
        raise DgnnError("%s: labels are 0 or 1, got an array of %s" % (what, a.dtype), DGNN_EINVAL)
    bad = ~((a == 0) | (a == 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DgnnError("%s is %r: labels are 0 or 1" % (_entry(what, a, i), a.flat[i].item()), DGNN_EINVAL)
    return np.ascontiguousarray(a, dtype=np.int32)


_DATES = (np.datetime64, np.timedelta64, datetime.date, datetime.timedelta)  # pandas' Timestamp, Timedelta too
_EXACT = 2 ** 53  # float64 holds every integer up to this magnitude, not all beyond


def _big_times(what, a, i, x):
    """The warning for an integer time float64 cannot hold exactly (nanosecond timestamps)."""
    warnings.warn("%s is %d: times are float64, which holds integers exactly up to 2**53 in magnitude only "
                  "(%d becomes %r; times that close merge): give them in a coarser unit (nanoseconds: // 10**9 "
                  "for seconds)" % (_entry(what, a, i), x, x, float(x)), RuntimeWarning, stacklevel=4)


def times(values, what="t"):
    """values as a float64 array of the same shape: real numbers (any integer or float dtype,
    Python numbers). None, booleans (in a list too), strings, complex numbers and
    datetime64/timedelta64 (NaT too, which numpy's cast makes -9.2e18, an event before all
    others) raise DgnnError saying what to give; integers beyond 2**53 in magnitude warn
    (RuntimeWarning: float64 merges 2**53 + 1 with 2**53). Non-finite floats are refused by
    the C side, naming the entry."""
    if values is None:
        raise DgnnError("%s is required: a time per entry, or one for all" % what, DGNN_EINVAL)
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as e:
        raise DgnnError("%s: times are numbers (%s)" % (what, e), DGNN_EINVAL) from None
    k = a.dtype.kind
    b = first_bool(values, a)
    if b:
        raise DgnnError("%s is %r: times are real numbers, not booleans" % (_at(what, b[0]), b[1]), DGNN_EINVAL)
    if k in "Mm":
        nat = np.isnat(a)
        if nat.any():
            i = int(np.flatnonzero(nat)[0])
            raise DgnnError("%s is NaT (not a time): times are numbers, and numpy would make NaT -9.2e18, an event "
                            "before all others" % _entry(what, a, i), DGNN_EINVAL)
        unit = "datetime64[s]" if k == "M" else "timedelta64[s]"
        raise DgnnError("%s: times are numbers, got %s: convert them first, e.g. %s.astype('%s').astype('int64') "
                        "(%s)" % (what, a.dtype, what, unit, "seconds since 1970" if k == "M" else "seconds"),
                        DGNN_EINVAL)
    if k in "iu":
        if a.size:
            over = np.flatnonzero(a > np.uint64(_EXACT)) if k == "u" else np.flatnonzero((a > _EXACT) | (a < -_EXACT))
            if over.size:
                i = int(over[0])
                _big_times(what, a, i, int(a.flat[i]))
        return np.asarray(a, dtype=np.float64)
    if k == "f":
        return np.asarray(a, dtype=np.float64)
    if k == "O":  # Python numbers, mixed objects
        out = np.empty(a.shape, dtype=np.float64)
        warned = False
        for i, x in enumerate(a.flat):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
                if isinstance(x, _DATES) or type(x).__name__ == "NaTType":  # pandas' NaT is neither
                    raise DgnnError("%s is %r: times are numbers: convert datetimes first, e.g. %s.astype("
                                    "'datetime64[s]').astype('int64') (seconds since 1970)"
                                    % (_entry(what, a, i), x, what), DGNN_EINVAL)
                raise DgnnError("%s is %r: times are real numbers" % (_entry(what, a, i), x), DGNN_EINVAL)
            if isinstance(x, numbers.Integral) and not -_EXACT <= int(x) <= _EXACT and not warned:
                _big_times(what, a, i, int(x))
                warned = True
            try:
                out.flat[i] = float(x)
            except OverflowError:
                raise DgnnError("%s is %r: beyond float64's range (the times' type)" % (_entry(what, a, i), x),
                                DGNN_EINVAL) from None
        return out
    names = {"b": "booleans", "U": "strings", "S": "bytes", "c": "complex numbers"}
    got = "%s (%s)" % (names[k], a.dtype) if k in names else "an array of %s" % a.dtype
    raise DgnnError("%s: times are real numbers, got %s" % (what, got), DGNN_EINVAL)


def text(value, what):
    """A str, bytes or os.PathLike as the str it names (bytes decoded as os.fsdecode does, so
    that any file name round-trips); NUL is refused (C would cut the string there), and
    anything else raises TypeError naming the argument (str(None) was the path "None")."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if not isinstance(value, str):
        raise TypeError("%s: a str, bytes or os.PathLike, got %s" % (what, type(value).__name__))
    if "\x00" in value:
        raise DgnnError("%s: %r holds a NUL character (C strings end there)" % (what, value), DGNN_EINVAL)
    return value


def cbytes(value, what):
    """text(value) as bytes for a char * argument (os.fsencode: any file name, UTF-8 or not)."""
    return os.fsencode(text(value, what))
