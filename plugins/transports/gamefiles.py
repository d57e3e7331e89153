"""Game files travel as content: the trunk puts the bytes of every file its [game] table names
(``Game.local_files``: a poker ``gamedef`` path, a ``Param("path")``) into the setup's config,
and a worker writes them into a private directory of its own and builds the game from there.
A worker never opens a path named by its trunk: a setup whose [game] table still names one is
refused."""

from __future__ import annotations

import os
import re
from pathlib import Path

from solverkit.core.params import expand_path
from solverkit.core.registry import get_registry
from solverkit.core.small_file import read_small_file
from solverkit.errors import ConfigError, PluginError, ProtocolError

#: largest game file sent in a setup message (the header limit is 16 MiB)
MAX_FILE_BYTES = 8 << 20
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,12}")


def _game_class(table: dict):
    try:
        return get_registry().get("game", table.get("name"))
    except (PluginError, TypeError):
        return None  # resolve() refuses the table with the usual message


def pack_files(game_cls, table: dict) -> dict:
    """[game] table `table` with each file it names replaced by ``{"file": its name, "content":
    its bytes}``; ConfigError naming a file that cannot be read or sent."""
    files = game_cls.local_files(table)
    out = dict(table)
    for key, value in files.items():
        param = game_cls.params.get(key)
        if param is None or not (param.type == "path" or param.file):
            raise ConfigError(f"[game] {key} = {value!r} names a file that cannot be sent to zmq workers "
                              f"(game {table.get('name')!r} reads it itself); run this game with "
                              "[transport] name = \"local\"")
        path = expand_path(value, f"[game] {key}")
        where = f"[game] {key} = {value!r}"
        content = read_small_file(
            path, MAX_FILE_BYTES,
            lambda size, where=where: f"{where}: the file has {size} bytes, more than the {MAX_FILE_BYTES} a zmq "
                                      "setup message carries",
            lambda why, where=where: f"{where}: cannot read the file to send it to the zmq workers ({why})")
        out[key] = {"file": path.name, "content": content}
    return out


def unpack_files(table, directory) -> dict:
    """The setup's [game] table with each ``{"file", "content"}`` written into `directory`
    (this worker's) and replaced by that path; ProtocolError when the table names a file of
    this machine or carries content for a parameter that takes no file."""
    where = "setup: [game]"
    if not isinstance(table, dict):
        return table  # resolve() refuses it
    game_cls = _game_class(table)
    out, written = dict(table), set()
    for key, value in table.items():
        if not isinstance(value, dict):
            continue
        param = game_cls.params.get(key) if game_cls is not None else None
        if param is not None and param.type == "table":
            continue  # a table parameter's own value (bet sizes), not a file's content
        if param is None or not (param.type == "path" or param.file):
            raise ProtocolError(f"{where} {key}: file content for a parameter that takes no file")
        name, content = value.get("file"), value.get("content")
        if set(value) != {"file", "content"} or not isinstance(name, str) or not isinstance(content, bytes):
            raise ProtocolError(f"{where} {key}: expected {{'file': name, 'content': bytes}}, got the keys "
                                f"{sorted(value)!r}")
        suffix = Path(name).suffix
        path = Path(directory) / f"{key}{suffix if _SUFFIX.fullmatch(suffix) else ''}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        out[key] = str(path)
        written.add(str(path))
    if game_cls is not None:
        for key, value in game_cls.local_files(out).items():
            if value not in written:
                raise ProtocolError(f"{where} {key} = {value!r:.80} names a file on this machine; a trunk sends "
                                    "game files as content and a worker opens no path it names (install the "
                                    "same solverkit on both)")
    return out
