"""Declared plugin parameters and their validation, so every plugin reports bad values alike."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, choices

_TYPES = ("int", "float", "str", "bool", "path", "float_list", "int_list")


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
        }[self.type]
        lo = None if self.min is None else (f"> {self.min:g}" if self.min_exclusive else f">= {self.min:g}")
        hi = None if self.max is None else f"<= {self.max:g}"
        rng = " and ".join(x for x in (lo, hi) if x)
        return f"{what} {rng}".strip()

    def check(self, value: Any, where: str) -> Any:
        """Return the value converted to this parameter's type, or raise ConfigError."""
        bad = ConfigError(f"{where} = {value!r} is invalid: expected {self.describe()}")
        if self.type == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                else:
                    raise bad
        elif self.type == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise bad
            value = float(value)
            if math.isnan(value):
                raise bad
        elif self.type in ("str", "path"):
            if not isinstance(value, str) or (self.type == "path" and not value):
                raise bad
        elif self.type == "float_list":
            if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
            ):
                raise bad
            value = [float(v) for v in value]
        elif self.type == "int_list":
            if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            ):
                raise bad
            value = [int(v) for v in value]
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
            value = str(Path(value).expanduser())
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
                    f"unknown parameter {key!r} in {where}; valid: {choices(self.params)}"
                )
        for key, p in self.params.items():
            if key in given:
                out[key] = p.check(given[key], f"{where} {key}")
            elif p.required:
                raise ConfigError(f"missing parameter {key!r} in {where}: expected {p.describe()}")
            else:
                out[key] = p.default
        return out


def spec_of(cls) -> ParamSpec:
    """The ParamSpec a plugin class declares through its `params` mapping (may be empty)."""
    return ParamSpec(dict(getattr(cls, "params", {}) or {}))
