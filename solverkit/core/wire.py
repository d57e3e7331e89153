"""Wire helpers shared by games and network transports: msgpack headers unpacked with limits,
raw float64 array frames, and field checks whose errors name the bad field and value.

Nothing that arrives from the network is unpickled or trusted: a header is a msgpack map read
with size limits, arrays travel as separate raw frames whose size and shape are checked against
what the receiver expects.
"""

from __future__ import annotations

import math

import msgpack
import numpy as np

from ..errors import ProtocolError, choices

#: largest header frame accepted (a SETUP with the resolved config and ~100k subgame keys fits)
MAX_HEADER_BYTES = 16 << 20
#: the only array dtype on the wire: little-endian float64
ARRAY_DTYPE = "<f8"


def pack_header(header: dict) -> bytes:
    """One header frame: a msgpack map."""
    return msgpack.packb(header, use_bin_type=True)


def unpack_header(raw, where: str) -> dict:
    """A header frame as a dict with a string ``type``, refusing oversized, malformed or
    extension-typed input with a ProtocolError naming `where`."""
    raw = bytes(raw)
    if len(raw) > MAX_HEADER_BYTES:
        raise ProtocolError(f"{where}: header of {len(raw)} bytes exceeds the limit of {MAX_HEADER_BYTES}")
    try:
        header = msgpack.unpackb(raw, raw=False, max_ext_len=0, strict_map_key=True)
    except Exception as exc:
        raise ProtocolError(f"{where}: malformed header (not msgpack: {exc})") from None
    if not isinstance(header, dict):
        raise ProtocolError(f"{where}: header is a {type(header).__name__}, expected a msgpack map")
    if not isinstance(header.get("type"), str):
        raise ProtocolError(f"{where}: header has no string field 'type' (got {_show(header.get('type'))})")
    return header


def array_frame(frame, shape: tuple[int, ...], where: str, finite: bool = False) -> np.ndarray:
    """A received raw frame as a read-only float64 array of `shape`, without copying; with
    `finite`, a NaN or infinite value is a ProtocolError naming its index (reach probabilities and
    counterfactual values are always finite, so such a frame is damage, not data)."""
    buf = frame.buffer if hasattr(frame, "buffer") else frame
    need = 8 * math.prod(shape)
    if len(buf) != need:
        raise ProtocolError(f"{where}: array frame of {len(buf)} bytes, expected {need} (float64 {list(shape)})")
    arr = np.frombuffer(buf, dtype=ARRAY_DTYPE).reshape(shape)
    if finite and not np.isfinite(arr).all():
        at = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ProtocolError(f"{where}: array value at {list(at)} = {float(arr[at])}: expected finite numbers")
    return arr


def check_array_header(header: dict, shape: tuple[int, ...], where: str) -> None:
    """The ``shape`` and ``dtype`` a header declares for its array frame must be the expected."""
    got = field(header, "shape", where, "int_list")
    if tuple(got) != tuple(shape):
        raise ProtocolError(f"{where}: field 'shape' = {got!r} is invalid: expected {list(shape)}")
    field(header, "dtype", where, "str", choices=(ARRAY_DTYPE,))


_KINDS = {
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "float": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v), "a number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "map": (lambda v: isinstance(v, dict), "a map"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "int_list": (lambda v: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v),
                 "a list of integers"),
    "float_list": (lambda v: isinstance(v, list) and all(_KINDS["float"][0](x) for x in v), "a list of numbers"),
    "str_list": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
}


def field(data: dict, name: str, where: str, kind: str, *, choices=(), lo=None, hi=None, length=None,
          optional=False):
    """``data[name]`` checked to be of `kind` (see ``_KINDS``), within `choices`, [lo, hi] and of
    `length`; a ProtocolError names `where`, the field, the bad value and what was expected."""
    if name not in data:
        if optional:
            return None
        raise ProtocolError(f"{where}: missing field {name!r}")
    value = data[name]
    if value is None and optional:
        return None
    ok, what = _KINDS[kind]
    if choices:
        what = f"one of {_choices(choices)}"
    if length is not None:
        what += f" of length {length}"
    if lo is not None or hi is not None:
        what += " " + " and ".join(x for x in (f">= {lo}" if lo is not None else "", f"<= {hi}" if hi is not None else "") if x)
    good = ok(value)
    if good and length is not None:
        good = len(value) == length
    if good and choices:
        good = value in choices
    if good and (lo is not None or hi is not None):
        items = value if isinstance(value, list) else [value]
        good = all((lo is None or x >= lo) and (hi is None or x <= hi) for x in items)
    if not good:
        raise ProtocolError(f"{where}: field {name!r} = {_show(value)} is invalid: expected {what}")
    return value


def check_keys(data: dict, allowed, where: str) -> None:
    """Refuse fields a message kind does not have (a newer or foreign peer)."""
    extra = set(data) - set(allowed)
    if extra:
        raise ProtocolError(f"{where}: unknown field(s) {_choices(extra)}; valid: {_choices(allowed)}")


def _choices(values) -> str:
    """Names as a list; anything but a printable string is shown as its repr (one line, always)."""
    return choices(v if isinstance(v, str) and v.isprintable() and v.strip() == v and v else _show(v, 40)
                   for v in values)


def _show(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
