"""The key of a kernel call's argument types, computed two ways that agree: from the values in
Python without numba (:func:`value_key`, at each call of an ahead-of-time build) and from numba's
types (:func:`type_key`, when the build is made). A key names what numba's ``typeof`` decides
(dtype, dimensions, layout, writability, alignment; a named tuple's class), so two calls with
one key get one numba signature. Types outside numeric arrays, scalars, tuples, named tuples and
None have no key (None): such a call goes to numba's JIT.
"""

from __future__ import annotations

import numpy as np

_INT64 = np.dtype(np.int64).str
_FLOAT64 = np.dtype(np.float64).str
_BOOL = np.dtype(np.bool_).str
_LIMIT = 2 ** 63
#: numpy's array flag bits (ndarray.flags.num): C and Fortran contiguous, aligned, writeable
_C, _F, _ALIGNED, _WRITEABLE = 0x1, 0x2, 0x100, 0x400
_DTYPES: dict = {}  # dtype -> its str, or None when it has no key (dtype.str costs 0.25 us a call)


def _dtype_str(dt):
    s = _DTYPES.get(dt, False)
    if s is False:
        s = _DTYPES[dt] = dt.str if dt.kind in "biufc" and dt.fields is None else None
    return s


def value_key(value):
    """The key of a Python value (a tuple of arguments included), or None (see the module)."""
    t = type(value)
    if t is np.ndarray:
        s = _dtype_str(value.dtype)
        if s is None:
            return None
        f = value.flags.num
        layout = "C" if f & _C else "F" if f & _F else "A"
        return ("a", s, value.ndim, layout, bool(f & _WRITEABLE), bool(f & _ALIGNED))
    if t is float:
        return _FLOAT64
    if t is bool:
        return _BOOL
    if t is int:
        return _INT64 if -_LIMIT <= value < _LIMIT else None
    if value is None:
        return "none"
    if isinstance(value, tuple):
        items = []
        for v in value:
            k = value_key(v)
            if k is None:
                return None
            items.append(k)
        if t is tuple:
            return ("t", *items)
        if hasattr(t, "_fields"):
            return ("n", t.__module__, t.__qualname__, *items)
        return None
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return value.dtype.str
    return None


def type_key(ty):
    """The key of a numba type (an argument tuple's: a list or tuple of types), or None."""
    from numba.core import types
    from numba.np import numpy_support

    if isinstance(ty, (list, tuple)):
        items = [type_key(t) for t in ty]
        return None if any(k is None for k in items) else ("t", *items)
    if isinstance(ty, types.Array):
        try:
            dt = numpy_support.as_dtype(ty.dtype)
        except Exception:  # noqa: BLE001 (records, datetimes...: no key)
            return None
        if dt.kind not in "biufc" or dt.fields is not None:
            return None
        return ("a", dt.str, ty.ndim, ty.layout, bool(ty.mutable), bool(ty.aligned))
    if isinstance(ty, (types.NamedTuple, types.NamedUniTuple)):
        cls = ty.instance_class
        items = [type_key(t) for t in ty.types]
        return None if any(k is None for k in items) else ("n", cls.__module__, cls.__qualname__, *items)
    if isinstance(ty, (types.Tuple, types.UniTuple)):
        return type_key(list(ty.types))
    if isinstance(ty, types.NoneType):
        return "none"
    if isinstance(ty, types.Boolean):
        return _BOOL
    if isinstance(ty, (types.Integer, types.Float, types.Complex)):
        return numpy_support.as_dtype(ty).str
    return None


def freeze(key):
    """A key read back from JSON (lists) as the tuples :func:`value_key` makes."""
    return tuple(freeze(k) for k in key) if isinstance(key, list) else key
