"""Text of configs: TOML files, ``--set`` overrides and the schedules written as text.

What a config or command line says before any plugin is resolved (:mod:`.config` resolves it):
reading a TOML file with errors that name it, ``section.param=value`` overrides reaching into
nested tables, and ``checkpoint_every`` / ``eval_every`` strings ("100", "90s", "1e6 nodes").
"""

from __future__ import annotations

import copy
import re
import tomllib

from ..errors import ConfigError, choices, shown
from .params import expand_path, number_from_text

#: the tables that name a plugin, and every top-level key of a config
PLUGIN_SECTIONS = ("game", "rule", "averaging", "compressor", "transport")
TOP_KEYS = ("preset", *PLUGIN_SECTIONS, "sampler", "solver", "store", "abstraction", "search")


_EVERY = re.compile(r"(?P<num>[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)(?P<unit>[smh]?)")
_EVERY_MAX = {"": 2**62, "s": 1e9, "m": 1e9 / 60, "h": 1e9 / 3600}  # iterations; about 30 years


def parse_every(text) -> tuple[str, float] | None:
    """``[solver] checkpoint_every`` / ``--checkpoint-every``: "N" iterations or "Ns" / "Nm" /
    "Nh" seconds; "" or 0: never. Anything else (NaN, infinity, negative, other units) is a
    ConfigError naming the value."""
    s = str(text).strip().lower()
    if s == "" or (s.isascii() and s.isdigit() and not s.strip("0")):  # "0", "00": never
        return None
    m = _EVERY.fullmatch(s)
    if m:
        num, unit = m["num"], m["unit"]
        if unit:
            value = float(num) * {"s": 1.0, "m": 60.0, "h": 3600.0}[unit]
            if 0 < float(num) <= _EVERY_MAX[unit]:
                return ("seconds", value)
        elif num.isdigit() and len(num.lstrip("0")) <= 20 and 0 < int(num) <= _EVERY_MAX[""]:  # int() refuses 4,301 digits
            return ("iterations", int(num))
    raise ConfigError(
        f"checkpoint_every = {text!r:.60} is invalid: expected a number of iterations (a whole number, e.g. 100) "
        "or a positive time with unit s, m or h (e.g. 90s, 10m, 1h), up to about 30 years; \"\" or 0: never"
    )


_SCHEDULE = re.compile(r"(?P<num>[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)\s*(?P<unit>s|m|h|nodes?)?")


def parse_schedule(value) -> tuple[str, float] | None:
    """``[solver] eval_every``: N iterations (an integer or "100"), "30s" / "10m" / "1h" of solve
    time, or "1e6 nodes" touched (cumulative, as metrics.csv counts them); 0 or "0": None (the
    log schedule, or with a target the target schedule); "log": the log schedule even with a
    target (studies: curves and iterations to the target at its resolution). Anything else is a
    ConfigError naming the value."""
    if isinstance(value, str) and value.strip().lower() == "log":
        return ("log", 0)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return ("iterations", value) if value else None
    s = str(value).strip().lower()
    m = _SCHEDULE.fullmatch(s) if isinstance(value, str) else None
    if m:
        num, unit = float(m["num"]), m["unit"] or ""
        if num == 0:
            return None
        if not unit and m["num"].isdigit() and len(m["num"].lstrip("0")) <= 20 and int(m["num"]) < 2**62:
            return ("iterations", int(m["num"]))
        if unit in ("s", "m", "h") and num <= 1e9:
            return ("seconds", num * {"s": 1.0, "m": 60.0, "h": 3600.0}[unit])
        if unit.startswith("node") and 1.0 <= num < 2.0**62:
            return ("nodes", num)
    raise ConfigError(
        f"[solver] eval_every = {value!r:.60} is invalid: expected a whole number of iterations (e.g. 100), a "
        "positive time with unit s, m or h (e.g. \"30s\"), or a number of touched nodes (e.g. \"1e6 nodes\"); "
        "0: the log schedule (with a target: the target schedule); \"log\": the log schedule always")


def parse_value(text: str):
    """A --set value: a TOML value when it parses as exactly one, else the raw string (so that
    ``nan``, ``inf`` and ``1e999`` arrive as the floats TOML reads and the parameter's check
    refuses them, and text such as ``5\nx = 1`` stays one string)."""
    number = number_from_text(text)
    if number is not None:  # plain decimals TOML refuses ("00", "007", ".5") are the numbers they spell
        return number
    try:
        doc = tomllib.loads(f"v = {text}")
    except (ValueError, RecursionError):  # not TOML (TOMLDecodeError), an integer of over 4,300 digits, or
        return text                       # nested too deeply for the parser: the raw string
    return doc["v"] if list(doc) == ["v"] else text


def apply_overrides(raw: dict, overrides) -> dict:
    """Apply ``KEY=VALUE`` strings (``section.param=value`` or ``preset=name``) to a raw config; a
    dotted param reaches into nested tables (``game.sizes.river.bet=70%``)."""
    raw = copy.deepcopy(raw)
    items = overrides or ()
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise ConfigError(f"overrides = {overrides!r:.60} is invalid: expected a list of KEY=VALUE strings "
                          "(e.g. [\"solver.iterations=500\"])")
    for item in overrides or ():
        if "=" not in item:
            raise ConfigError(f"--set {shown(item)} is not KEY=VALUE (e.g. --set solver.iterations=500)")
        key, text = item.split("=", 1)
        key = key.strip()
        value = parse_value(text.strip())
        if key == "preset":
            raw["preset"] = value
            continue
        if "." not in key:
            raise ConfigError(f"--set key {shown(key)} is not SECTION.PARAM; sections: {choices(TOP_KEYS)}")
        section, param = key.split(".", 1)
        if section not in TOP_KEYS or section == "preset":
            raise ConfigError(f"--set key {shown(key)}: unknown section {shown(section)}; sections: {choices(TOP_KEYS[1:])}")
        table = raw.get(section, {})
        if isinstance(table, str):  # shorthand in the file: game = "skewed_pennies"
            table = {"name": table}
        if not isinstance(table, dict):
            raise ConfigError(f"--set key {shown(key)}: [{section}] in the config is {shown(table)}, not a table")
        raw[section] = table
        *path, last = param.split(".")
        for i, part in enumerate(path):
            inner = table.setdefault(part, {})
            if not isinstance(inner, dict):
                where = ".".join([section, *path[: i + 1]])
                raise ConfigError(f"--set key {shown(key)}: {where} in the config is {shown(inner)}, not a table")
            table = inner
        table[last] = value
    return raw


#: largest config or study file read (they are a few kB; TOML is parsed in memory whole)
MAX_CONFIG_BYTES = 16 << 20


def read_toml(path) -> dict:
    """Parse a TOML file with errors that name the file (and line, from tomllib)."""
    if isinstance(path, str) and not path.strip():  # Path("") is the working directory
        raise ConfigError(f"config file {path!r} is empty: give the path of a TOML file")
    path = expand_path(path, "config file")
    if not path.is_file():
        if path.exists():  # a directory, a device, a pipe: nothing to read a config from
            raise ConfigError(f"config file {path} is not a regular file; expected a TOML file")
        raise ConfigError(f"config file not found: {path}")
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:  # a config is a few kB: this one would be read into memory whole
            raise ConfigError(f"config file {path} has {size:,} bytes, more than the {MAX_CONFIG_BYTES:,} a config or "
                              "study file may have; is it the right file?")
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"malformed TOML in {path}: {exc}") from None
    except ValueError as exc:  # tomllib lets int()'s own refusal through: an integer of over 4,300 digits
        raise ConfigError(f"malformed TOML in {path}: {' '.join(str(exc).split())[:120]}") from None
    except RecursionError:
        raise ConfigError(f"malformed TOML in {path}: arrays or tables nested too deeply for the parser; "
                          "a config needs at most a few levels") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path} is not UTF-8 text: {exc}") from None
    except OSError as exc:  # unreadable: permissions, a device, an I/O error
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
