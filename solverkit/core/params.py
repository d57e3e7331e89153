"""Declared plugin parameters and their validation, so every plugin reports bad values alike."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from ..errors import ConfigError, choices

_TYPES = ("int", "float", "str", "bool", "path", "float_list", "int_list", "table")
#: integers must fit the int64 the kernels, numpy and msgpack use
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and INT_MIN <= v <= INT_MAX


def _as_float(v):
    """`v` as a finite float, or None when it is not a number, is NaN or infinite, or too large."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:  # an integer beyond the float range
        return None
    return f if math.isfinite(f) else None


_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def number_from_text(text: str) -> int | float | None:
    """The int or float that plain ASCII decimal `text` spells ("00", "-3", "1.5", ".5", "2e-3"),
    else None. Python's int() and float() also take "1_000", full-width or Arabic-Indic digits,
    "nan" and "infinity"; a number a user types or a file holds must not be read that loosely.
    A float beyond the float64 range comes back infinite, for the caller's finiteness check."""
    t = text.strip()
    if len(t) > MAX_NUMBER_TEXT:  # int() refuses past 4,300 digits; no value a user means is this long
        return None
    if _INT_TEXT.fullmatch(t):
        return int(t)
    if _FLOAT_TEXT.fullmatch(t):
        return float(t)
    return None


#: the longest text read as a number (int64 has 19 digits; a float's 17 significant digits and
#: exponent fit too, with room for leading zeros)
MAX_NUMBER_TEXT = 400


def plain_value(value):
    """`value` with numpy scalars and arrays turned into the Python values they hold (a notebook
    passes np.int64(5) or np.array([1e6]) where a config holds 5 or [1000000.0]); else itself."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_value(v) for k, v in value.items()}
    return value


def _show(value, limit: int = 60) -> str:
    """repr of a bad value, shortened so that an error stays one readable line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def expand_path(value, where: str) -> Path:
    """`value` as a Path with ``~`` and ``~user`` expanded, or a ConfigError naming it (a NUL
    character, an unknown user, no home directory): a path read from a config is never
    handed to the operating system unchecked."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise ConfigError(f"{where} = {_show(value)} is invalid: expected a file path (a string)")
    if "\x00" in text:
        raise ConfigError(f"{where} = {_show(text)} is invalid: a path cannot contain a NUL character")
    try:
        return Path(text).expanduser()
    except RuntimeError:  # ~user of no user, or ~ without a home directory
        user = text[1:].replace(os.sep, "/").split("/", 1)[0]
        home = f"user {user!r} has no home directory here" if user else "there is no home directory"
        raise ConfigError(f"{where} = {_show(text)}: cannot expand ~{user}: {home}; give the full path") from None


def _plain_table(value: dict, where: str) -> dict:
    """A copy of a table parameter of strings, numbers, booleans and tables (what TOML gives)."""
    out = {}
    for k, v in value.items():
        v = plain_value(v)
        if not isinstance(k, str):
            raise ConfigError(f"{where}: key {k!r} is invalid: expected a string")
        if isinstance(v, dict):
            v = _plain_table(v, f"{where}.{k}")
        elif isinstance(v, str) and "\x00" in v:
            raise ConfigError(f"{where}.{k} = {_show(v)} is invalid: it contains a NUL character")
        elif not isinstance(v, (str, int, float, bool)) or (isinstance(v, float) and not math.isfinite(v)):
            raise ConfigError(f"{where}.{k} = {_show(v)} is invalid: expected a string, a finite number or a table")
        out[k] = v
    return out


@dataclass(frozen=True)
class Param:
    """One parameter of a plugin: type, default, allowed range or choices, and a docstring."""

    type: str
    default: Any = None
    doc: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple = ()
    required: bool = False
    min_exclusive: bool = False
    #: the value may name a file the plugin reads (type "path" always does); a network
    #: transport sends the file's content instead (see Game.local_files)
    file: bool = False
    #: lists: the fewest items accepted (1: an empty list is refused, not taken for the default)
    min_len: int = 0

    def __post_init__(self):
        if self.type not in _TYPES:
            raise ValueError(f"Param type {self.type!r} not in {_TYPES}")

    def describe(self) -> str:
        """Short human description of the accepted values, used in error messages."""
        if self.choices:
            return "one of " + choices(self.choices)
        what = {
            "int": "an integer",
            "float": "a number",
            "str": "a string",
            "bool": "true or false",
            "path": "a file path",
            "float_list": "a list of numbers",
            "int_list": "a list of integers",
            "table": "a table (keys and values, e.g. [game.sizes.flop] bet = \"50%\")",
        }[self.type]
        lo = None if self.min is None else (f"> {self.min:g}" if self.min_exclusive else f">= {self.min:g}")
        hi = None if self.max is None else f"<= {self.max:g}"
        rng = " and ".join(x for x in (lo, hi) if x)
        if self.min_len:
            what = what.replace("a list of ", "a non-empty list of " if self.min_len == 1
                                else f"a list of at least {self.min_len} ", 1)
        return f"{what} {rng}".strip()

    def check(self, value: Any, where: str) -> Any:
        """Return the value converted to this parameter's type, or raise ConfigError.

        This is the one place every plugin parameter, [solver] and [store] value, --set override
        and command-line option is checked: numbers must be finite (no NaN or infinity), integers
        must fit int64, strings must not contain NUL characters."""
        value = plain_value(value)
        bad = ConfigError(f"{where} = {_show(value)} is invalid: expected {self.describe()}")
        items = value if isinstance(value, (list, tuple)) else [value]
        if self.type in ("int", "int_list") and any(isinstance(v, int) and not isinstance(v, bool) and not _is_int(v)
                                                    for v in items):  # (a bool is refused below, not as out of range)
            raise ConfigError(f"{where} = {_show(value)} is invalid: expected {self.describe()} "
                              f"(integers must lie in {INT_MIN}..{INT_MAX}, 64 bits)")
        if self.type in ("float", "float_list") and any(
            isinstance(v, (int, float)) and not isinstance(v, bool) and _as_float(v) is None for v in items
        ):
            raise ConfigError(f"{where} = {_show(value)} is invalid: expected {self.describe()} "
                              "(finite: not NaN, infinity or beyond the float64 range)")
        if self.type == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.type == "int":
            if isinstance(value, float) and math.isfinite(value) and value.is_integer():
                value = int(value)
            if not _is_int(value):
                raise bad
        elif self.type == "float":
            value = _as_float(value)
            if value is None:
                raise bad
        elif self.type in ("str", "path"):
            if isinstance(value, str) and "\x00" in value:
                raise ConfigError(f"{where} = {_show(value)} is invalid: it contains a NUL character; expected "
                                  f"{self.describe()}")
            if not isinstance(value, str) or (self.type == "path" and not value):
                raise bad
        elif self.type == "float_list":
            if not isinstance(value, (list, tuple)):
                raise bad
            floats = [_as_float(v) for v in value]
            if any(f is None for f in floats):
                raise bad
            value = floats
        elif self.type == "int_list":
            if not isinstance(value, (list, tuple)) or not all(_is_int(v) for v in value):
                raise bad
            value = [int(v) for v in value]
        elif self.type == "table":  # the plugin checks what it holds
            if not isinstance(value, dict):
                raise bad
            value = _plain_table(value, where)
        if self.type.endswith("_list") and len(value) < self.min_len:
            raise bad
        if self.choices and value not in self.choices:
            raise bad
        nums = value if isinstance(value, list) else [value]
        if self.type in ("int", "float", "float_list", "int_list"):
            for v in nums:
                if self.min is not None and (v < self.min or (self.min_exclusive and v == self.min)):
                    raise bad
                if self.max is not None and v > self.max:
                    raise bad
        if self.type == "path":
            value = str(expand_path(value, where))
        return value


@dataclass
class ParamSpec:
    """All parameters of one plugin, checked together against a config table."""

    params: dict[str, Param] = field(default_factory=dict)

    def resolve(self, given: dict, where: str, ignore: tuple = ("name",)) -> dict:
        """Validate `given`, fill defaults, and reject unknown or missing keys.

        `where` names the table for messages, e.g. "[game] (random_matrix)".
        """
        out = {}
        for key in given:
            if key in ignore:
                continue
            if key not in self.params:
                raise ConfigError(
                    f"unknown parameter {_show(key)} in {where}; valid: {choices(self.params)}"
                )
        for key, p in self.params.items():
            if key in given:
                out[key] = p.check(given[key], f"{where} {key}")
            elif p.required:
                doc = f" ({' '.join(p.doc.split())})" if p.doc else ""  # what it takes: acpc's gamedef is a bundled name or a path
                raise ConfigError(f"missing parameter {key!r} in {where}: expected {p.describe()}{doc}")
            else:
                out[key] = p.default
        return out


def spec_of(cls) -> ParamSpec:
    """The ParamSpec a plugin class declares through its `params` mapping (may be empty)."""
    return ParamSpec(dict(getattr(cls, "params", {}) or {}))


class OptionType(click.ParamType):
    """A click type that checks a command-line option with a :class:`Param`, as config values
    are checked: ASCII decimal numbers only, finite, within int64 and the Param's range (click's
    own FloatRange takes "inf" and "nan", IntRange any size of integer)."""

    def __init__(self, param: Param):
        self.param = param
        self.name = {"int": "integer", "float": "float"}.get(param.type, param.type)

    def convert(self, value, opt, ctx):
        if isinstance(value, str) and self.param.type in ("int", "float"):
            number = number_from_text(value)
            value = value if number is None else number
        try:
            return self.param.check(value, "option")
        except ConfigError:
            extra = " (a finite number)" if self.param.type == "float" else ""
            if isinstance(value, int) and not isinstance(value, bool) and not _is_int(value):
                extra = " (64 bits at most)"
            self.fail(f"{_show(value)} is invalid: expected {self.param.describe()}{extra}", opt, ctx)


def option_type(type_: str, min: float | None = None, max: float | None = None) -> OptionType:
    """A click type for an option of `type_` ("int" or "float") within [min, max]; integers are
    at most int64 and numbers finite whatever the bounds."""
    return OptionType(Param(type_, None, min=min, max=max))


class UserPath(click.Path):
    """click.Path with ``~`` and ``~user`` expanded as in config paths (a quoted "~/runs" would
    otherwise make a directory named "~"); a NUL or an unknown user is a one-line usage error."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip() and isinstance(param, click.Argument):
            # Path('') is '.': `keys ''` wrote keys into the working directory, `exploit ''` read it
            what = "a directory" if not self.file_okay else "a file" if not self.dir_okay else "a path"
            self.fail(f"{value!r} is empty: give {what} (an empty path would be the working directory)", param, ctx)
        if isinstance(value, str) and value:  # an option's '' stays '' (Path('') is '.'): commands refuse it by name
            try:
                value = str(expand_path(value, "path"))
            except ConfigError as exc:
                self.fail(str(exc).removeprefix("path = "), param, ctx)
        return super().convert(value, param, ctx)
