"""The zmq transport's wire protocol, shared by the trunk and its workers (docs/wire.md).

Every message is one msgpack header frame (a map with a string ``type``) followed by raw
frames: float64 arrays (C order, little-endian; the header declares ``shape`` and ``dtype``) or
encoded segment payloads (the store's value frames, one per array named in ``arrays``). The
trunk is a ROUTER, each worker a DEALER; a request carries an integer ``id`` that its reply
repeats, and a worker has at most one request outstanding.
"""

from __future__ import annotations

import socket

from solverkit.core.wire import pack_header
from solverkit.errors import ProtocolError

#: bumped whenever a message or field changes meaning; the trunk refuses another version
#: (3: ``error`` may say ``rejoin``, a worker that lost its trunk says ``hello`` again, and game files
#: travel as content in ``setup``; 4: ``setup`` says ``parts``, and ``save`` / ``load`` /
#: ``strategy`` keep a distributed checkpoint and strategy in the workers' own directories;
#: 5: a poker ``pass`` job carries ``sample`` and ``stream``, the sampler's draws; 6: a ``result``
#: carries the game's ``subgame_output_shape`` of the job, for poker only the rows of the players
#: whose values the pass computes)
PROTOCOL = 6
#: messages a worker may send, and the trunk
WORKER_TYPES = ("hello", "ready", "result", "segment", "done", "saved", "stats", "bye", "heartbeat", "error")
TRUNK_TYPES = ("setup", "pass", "fetch", "put", "flush", "save", "load", "strategy", "stop", "heartbeat", "error")
#: statistics every ready, result and stats message carries
STATS_FIELDS = ("stored_bytes", "num_values", "peak_rss_mb", "saturated")
#: queued messages per peer and direction: a pass message can be hundreds of MB
HWM = 64
HEARTBEAT = pack_header({"type": "heartbeat"})
#: longest timeout in seconds (about 11.6 days): in milliseconds it must fit libzmq's int options
MAX_TIMEOUT = 1e6


def input_shape(game, job, default) -> tuple:
    """Shape of one subgame's input to `job`: the game's ``subgame_input_shape(job)`` where it has
    one (blueprint replicas: the round's start only where the job opens a round), else `default`
    (its fixed ``subgame_shape()``)."""
    of = getattr(game, "subgame_input_shape", None)
    return tuple(of(job)) if of is not None else tuple(default)


def frames_of(header: dict, payloads=()) -> list:
    """A message's frames: the packed header, then the raw frames (arrays or bytes)."""
    return [pack_header(header), *payloads]


def key_to_wire(key):
    """A subgame key (a tuple of ints, or a string) as msgpack data."""
    return list(key) if isinstance(key, tuple) else key


def key_from_wire(obj, where: str):
    """A subgame key from msgpack data: a list of integers (a tuple key) or a string."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, list) and obj and all(isinstance(x, int) and not isinstance(x, bool) for x in obj):
        return tuple(obj)
    raise ProtocolError(f"{where}: subgame key {obj!r:.60} is invalid: expected a list of integers or a string")


#: seconds between a waiting worker's hellos: one sent to a trunk that died, or refused by a
#: trunk that has all its workers, is said again until a trunk sets the worker up
HELLO_EVERY = 2.0


def error_header(request_id, message: str, trace: str = "", rejoin: bool = False) -> dict:
    """An ERROR message: the request it answers (None: none), one line, and a traceback text;
    `rejoin`: the worker is not (or no longer) one of this trunk's, and may say hello (again)."""
    header = {"type": "error", "id": request_id, "message": message, "traceback": trace}
    if rejoin:
        header["rejoin"] = True
    return header


def request_id(header: dict):
    """The header's ``id`` when it is an integer, else None (for an error reply)."""
    rid = header.get("id")
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


def host_name() -> str:
    """This machine's name, as a worker introduces itself."""
    return socket.gethostname()


def tune(sock, heartbeat: float, timeout: float) -> None:
    """Socket options both sides use: low HWMs, no linger, and ZMTP heartbeats so that a dead
    connection is dropped by libzmq (a stuck process is caught by the application's own)."""
    import zmq  # here, not at import: the plugin registers at every command line start

    sock.setsockopt(zmq.SNDHWM, HWM)
    sock.setsockopt(zmq.RCVHWM, HWM)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.HEARTBEAT_IVL, max(1, int(heartbeat * 1000)))
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, max(1, int(timeout * 1000)))
