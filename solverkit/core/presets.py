"""Presets: named combinations of a regret rule, an averaging scheme and an update order
(OpenSpiel style: CFR+ = rm_plus + linear + alternating), registered by plugins through
``register_presets(register)`` and checked when registered."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import PluginError, choices

UPDATE_ORDERS = ("alternating", "simultaneous")
#: what ``register(name, spec)`` accepts in `spec`
SPEC_KEYS = ("rule", "averaging", "update", "description")
SECTIONS = ("rule", "averaging")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Preset:
    """One registered preset: the rule and averaging tables (name + parameters), the update
    order, a description, and the plugin that registered it and where from."""

    name: str
    rule: dict
    averaging: dict
    update: str
    description: str
    plugin: str
    distribution: str
    version: str

    def table(self, section: str) -> dict:
        """A copy of the preset's ``rule`` or ``averaging`` table ({} for any other section)."""
        return dict(getattr(self, section)) if section in SECTIONS else {}

    def combines(self) -> str:
        """``rule dcfr, averaging power(gamma=4), alternating updates``: what the preset sets."""
        def show(table):
            params = ", ".join(f"{k}={v!r}" for k, v in table.items() if k != "name")
            return table["name"] + (f"({params})" if params else "")

        return f"rule {show(self.rule)}, averaging {show(self.averaging)}, {self.update} updates"

    def as_dict(self) -> dict:
        """The preset as ``solverkit plugins --json`` shows it."""
        def split(table):
            return {"name": table["name"], "params": {k: v for k, v in table.items() if k != "name"}}

        return {"name": self.name, "rule": split(self.rule), "averaging": split(self.averaging),
                "update": self.update, "description": self.description, "plugin": self.plugin,
                "distribution": self.distribution, "version": self.version}


def _section(name: str, spec: dict, section: str) -> dict:
    value = spec[section]
    if isinstance(value, str) and value:
        return {"name": value}
    if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]:
        return dict(value)
    raise PluginError(f"preset {name!r}: {section} = {value!r} is invalid: expected a {section} name or a "
                      f"table with a name and its parameters, e.g. {{\"name\": \"power\", \"gamma\": 4.0}}")


def make_preset(name, spec, origin: tuple[str, str, str]) -> Preset:
    """A Preset from ``register(name, spec)``, or a PluginError naming the bad value."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PluginError(f"preset name {name!r} is invalid: expected a non-empty name such as 'cfr_plus'")
    if not isinstance(spec, dict):
        raise PluginError(f"preset {name!r}: {spec!r} is not a table; expected keys {choices(SPEC_KEYS)}")
    unknown = sorted(set(spec) - set(SPEC_KEYS))
    if unknown:
        raise PluginError(f"preset {name!r}: unknown key {unknown[0]!r}; valid: {choices(SPEC_KEYS)}")
    missing = [k for k in ("rule", "averaging", "update") if k not in spec]
    if missing:
        raise PluginError(f"preset {name!r}: missing {missing[0]!r}; a preset sets rule, averaging and update")
    if spec["update"] not in UPDATE_ORDERS:
        raise PluginError(f"preset {name!r}: update = {spec['update']!r} is invalid; valid: {choices(UPDATE_ORDERS)}")
    description = spec.get("description", "")
    if not isinstance(description, str):
        raise PluginError(f"preset {name!r}: description = {description!r} is not a string")
    return Preset(name, _section(name, spec, "rule"), _section(name, spec, "averaging"), spec["update"],
                  description, *origin)
