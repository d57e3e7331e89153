"""The ``zmq`` transport: a trunk process and ZeroMQ worker processes that own the subgames.

The trunk binds a ROUTER socket and waits for ``workers`` workers (``solverkit worker --connect
ADDRESS`` on any host, or ``spawn`` of them started here). Each gets the resolved config and a
fixed share of the subgame keys (balanced by segment size), builds the same assembly and a
store of its own that only ever holds its segments. A pass sends every worker the reach
vectors of its subgames in one message and gets their values back in one; checkpoints, the
strategy output and the store metrics fetch or send the workers' segments one at a time
through :class:`WorkerStoreView`. The wire protocol is in :mod:`.protocol` and docs/wire.md.

A worker that dies, hangs or drops its connection raises :class:`WorkerLost`; :meth:`recover`
takes a replacement (spawned workers are restarted here, others are waited for) and gives it the
lost worker's share, so that the solver can put every segment back from its last checkpoint.

The trunk's socket and its I/O thread are in :mod:`.link`, who may join in :mod:`.security`, the
solver's view of the workers' segments in :mod:`.storeview`, the worker in :mod:`.worker`.
:class:`ZmqTransport` is one state machine over one worker table and one link, assembled from
mixins by idea: :mod:`.trunk_joining` (start: spawning, the handshake, admitting and dropping
peers), :mod:`.trunk_requests` (requests, checked replies, telling a failed worker from a lost
one), :mod:`.trunk_recovery` (replacing lost workers); :mod:`.trunk_peers` holds the record of a
worker. This module keeps the settings, passes, segments, distributed parts and shutdown.
"""

from __future__ import annotations

import itertools
import subprocess
import time

import numpy as np

from solverkit.core.address import check_endpoint
from solverkit.core.params import Param
from solverkit.core.transport import Transport
from solverkit.core.wire import ARRAY_DTYPE, array_frame, check_array_header, field
from solverkit.errors import ConfigError, ProtocolError, TransportError

from .link import _Link
from .protocol import MAX_TIMEOUT, frames_of, input_shape, key_from_wire, key_to_wire
from .security import _local_only
from .storeview import WorkerStoreView
from .trunk_joining import TrunkJoining, _check_hello, _reason, partition  # noqa: F401 (partition: tests)
from .trunk_peers import _reap, _say, _Worker  # noqa: F401 (re-exported: _say for daskcluster)
from .trunk_recovery import TrunkRecovery
from .trunk_requests import _RESUME, TrunkRequests  # noqa: F401 (re-exported)

#: seconds close() waits for workers to say goodbye and for spawned processes to exit
STOP_GRACE = 5.0


class ZmqTransport(TrunkJoining, TrunkRequests, TrunkRecovery, Transport):
    """Subgames on worker processes over ZeroMQ: the trunk here, the subgames' values and
    passes on the workers that own them."""

    name = "zmq"
    description = "subgames on worker processes (this or other hosts) over ZeroMQ"
    trusted_values = False  # a target is confirmed on the trunk from the workers' stored strategy
    params = {
        "bind": Param("str", "tcp://127.0.0.1:0", "address the trunk listens on: tcp://HOST:PORT (port 0: a free "
                      "port; tcp://*:5555 for workers on other hosts, with keys) or ipc://PATH"),
        "keys": Param("str", "", "directory of CURVE keys from `solverkit keys DIR`: workers must prove a key "
                      "listed there and everything is encrypted; needed for a bind beyond this machine "
                      "(loopback, ipc://)"),
        "workers": Param("int", 1, "workers to wait for; each owns a fixed share of the subgames", min=1, max=4096),
        "spawn": Param("int", 0, "worker processes the trunk starts on this machine (spawn = workers: a "
                       "one-machine multi-process run)", min=0, max=4096),
        "threads": Param("int", 2, "compute threads of each spawned worker", min=1, max=1024),
        "connect_timeout": Param("float", 60.0, "seconds to wait until every worker is ready", min=0.0,
                                 min_exclusive=True, max=MAX_TIMEOUT),
        "heartbeat": Param("float", 1.0, "seconds between heartbeats, both ways", min=0.01, max=3600.0),
        "timeout": Param("float", 10.0, "a worker silent this long is lost (and a worker whose trunk is silent "
                         "this long waits for a trunk again)", min=0.0, min_exclusive=True, max=MAX_TIMEOUT),
        "replace_timeout": Param("float", 300.0, "seconds to wait for a replacement of a lost worker (spawned "
                                 "ones are restarted here) before the run stops", min=0.0, min_exclusive=True,
                                 max=MAX_TIMEOUT),
        "checkpoint": Param("str", "file", "where checkpoints and the final strategy of a run with --out go: "
                            "\"file\" (the trunk writes OUT/checkpoint.skc and OUT/strategy.npz, fetching every "
                            "worker segment) or \"distributed\" (each worker writes its own segments as part files "
                            "in its --checkpoint-dir, spawned ones in OUT/checkpoint.d, and the trunk a manifest "
                            "naming them)", choices=("file", "distributed")),
        "max_recoveries": Param("int", 5, "lost workers the run replaces in a row without getting past the "
                                "iteration of the previous loss (0: stop at the first loss)", min=0, max=1_000_000),
    }

    def __init__(self, **params):
        super().__init__(**params)
        cfg = {k: Param.check(p, params.get(k, p.default), f"[transport] (zmq) {k}")
               for k, p in self.params.items()}
        cfg.setdefault("spawn", 0)  # a subclass whose workers start otherwise has no spawn setting
        self.config = cfg
        check_endpoint(cfg["bind"], "[transport] (zmq) bind", bind=True)  # zmq wraps port 70000 to 4464
        if not cfg["keys"] and not _local_only(cfg["bind"]):
            raise ConfigError(f"[transport] (zmq) bind = {cfg['bind']!r} reaches beyond this machine and "
                              "[transport] keys is not set: anyone who reaches the port could join the run. Make "
                              "keys with `solverkit keys DIR`, set [transport] keys = \"DIR\" and start workers "
                              "with `solverkit worker --keys DIR` (docs/wire.md#security), or bind tcp://127.0.0.1:PORT "
                              "or ipc://PATH")
        if cfg["spawn"] > cfg["workers"]:
            raise ConfigError(f"[transport] (zmq) spawn = {cfg['spawn']} is invalid: expected <= workers "
                              f"({cfg['workers']})")
        if cfg["timeout"] < 2 * cfg["heartbeat"]:
            raise ConfigError(f"[transport] (zmq) timeout = {cfg['timeout']:g} is invalid: expected >= 2 x "
                              f"heartbeat ({2 * cfg['heartbeat']:g})")
        self.heartbeat, self.timeout = cfg["heartbeat"], cfg["timeout"]
        self.endpoint = None
        self._link: _Link | None = None
        self._workers: dict[bytes, _Worker] = {}
        self._owner: dict[object, _Worker] = {}
        self._segment_owner: dict[str, _Worker] = {}
        self._procs: list[subprocess.Popen] = []
        self._ids = itertools.count(1)
        self._shape = None
        self._finalizer = None
        self._dead: set[bytes] = set()  # workers this run gave up on: not waited for at close
        self._inflight: dict[bytes, tuple] = {}  # identity -> (request id, reply type) not answered yet
        self._resolved = None
        self._next_check = 0.0
        self._recoveries: list[dict] = []
        #: a worker whose connection dropped is lost when it has not come back within this long
        self._grace = min(self.timeout, max(3 * self.heartbeat, 1.0))
        self._dropped: list[str] = []  # peers let go before they were ready, with the reason
        self._banned: set[bytes] = set()  # their identities: a hello from one again is refused

    # --- start ---------------------------------------------------------------------------------


    # --- requests ------------------------------------------------------------------------------


    # --- recovery ------------------------------------------------------------------------------


    # --- passes --------------------------------------------------------------------------------

    def map_subgames(self, job, inputs):
        """One PASS to each worker that owns some of `inputs`, one RESULT back from each."""
        wire = self.game.job_to_wire(job)
        shape = input_shape(self.game, job, self._shape)
        groups: dict[_Worker, list] = {}
        for key in inputs:
            w = self._owner.get(key)
            if w is None:
                raise TransportError(f"subgame {key!r} has no zmq worker (keys look like {next(iter(self._owner))!r})")
            groups.setdefault(w, []).append(key)
        requests = {}
        for w, keys in groups.items():
            # taken out of `inputs` (views of the trunk's reach buffer: freed once all are stacked)
            reach = np.ascontiguousarray(np.stack([inputs.pop(k) for k in keys]), dtype=np.float64)
            if reach.shape[1:] != shape:
                raise TransportError(f"subgame inputs of shape {list(reach.shape[1:])}, expected {list(shape)}")
            header = {"type": "pass", "job": wire, "keys": [key_to_wire(k) for k in keys],
                      "shape": list(reach.shape), "dtype": ARRAY_DTYPE}
            requests[w] = (header, [reach], "result")
        outputs = {}
        for w, (header, frames) in self._request(requests).items():
            keys = groups[w]
            where = f"result from zmq worker {w.name}"
            try:
                got = [key_from_wire(k, where) for k in field(header, "keys", where, "list")]
                if got != keys:
                    raise ProtocolError(f"{where}: keys {got[:3]!r}... are not the {len(keys)} keys sent "
                                        f"({keys[:3]!r}...)")
                shape = (len(keys), *self.game.subgame_output_shape(job))
                check_array_header(header, shape, where)
                if len(frames) != 1:
                    raise ProtocolError(f"{where}: {len(frames)} array frames, expected 1")
                values = array_frame(frames[0], shape, where, finite=True)
                self._take_stats(w, header, "result")
            except ProtocolError as exc:
                raise TransportError(str(exc)) from None
            outputs.update(zip(keys, values))
        return outputs

    # --- segments ------------------------------------------------------------------------------

    def fetch(self, segment: str, names=None) -> dict[str, bytes]:
        """The encoded payloads of a worker's `segment` (arrays `names`, default all)."""
        w = self._segment_owner[segment]
        want = list(self.store.specs[segment].arrays) if names is None else list(names)
        header = {"type": "fetch", "segment": segment, "arrays": want}
        reply, frames = self._request({w: (header, (), "segment")})[w]
        where = f"segment {segment!r} from zmq worker {w.name}"
        try:
            got = field(reply, "arrays", where, "list")
            if got != want or len(frames) != len(want):
                raise ProtocolError(f"{where}: arrays {got!r} in {len(frames)} frames, expected {want!r}")
        except ProtocolError as exc:
            raise TransportError(str(exc)) from None
        return {name: f.bytes for name, f in zip(want, frames)}

    def put(self, segment: str, blobs: dict[str, bytes]) -> None:
        """Replace a worker's `segment` with `blobs` (it checks that they decode)."""
        w = self._segment_owner[segment]
        header = {"type": "put", "segment": segment, "arrays": list(blobs)}
        self._request({w: (header, list(blobs.values()), "done")})

    # --- distributed checkpoints and strategy ---------------------------------------------------

    def save_parts(self, message: str, tag: str, iteration: int, keep, **extra) -> list[dict]:
        """Every worker writes its segments (SAVE) or their policies (STRATEGY) as one part file
        ``w<index>-<tag>`` in its checkpoint directory, at once; returns the manifest records
        (owner, worker, dir, file, bytes, crc32, segments), checked against what each owns."""
        suffix = ".skp" if message == "save" else ".sks"
        requests, names = {}, {}
        for w in self._workers.values():
            names[w] = f"w{w.index:04d}-{tag}{suffix}"
            header = {"type": message, "file": names[w], "iteration": int(iteration), "keep": list(keep), **extra}
            requests[w] = (header, (), "saved")
        parts = []
        for w, (reply, _) in self._request(requests).items():
            where = f"saved from zmq worker {w.name}"
            try:
                record = {"owner": f"w{w.index:04d}", "worker": w.name, "dir": field(reply, "dir", where, "str"),
                          "file": field(reply, "file", where, "str", choices=(names[w],)),
                          "bytes": field(reply, "bytes", where, "int", lo=1),
                          "crc32": field(reply, "crc32", where, "int", lo=0, hi=(1 << 32) - 1),
                          "segments": field(reply, "segments", where, "str_list")}
                mine = [self.game.subgame_segment(k) for k in w.keys]
                if sorted(record["segments"]) != sorted(mine):
                    raise ProtocolError(f"{where}: wrote segments {record['segments'][:3]!r}..., expected its "
                                        f"{len(mine)} segments ({mine[:3]!r}...)")
            except ProtocolError as exc:
                raise TransportError(str(exc)) from None
            parts.append(record)
        return sorted(parts, key=lambda r: r["owner"])

    def load_parts(self, parts) -> None:
        """Every worker restores its segments from the parts that hold them (LOAD, at once); a
        replacement reads the lost worker's part from its own checkpoint directory."""
        by_worker: dict[_Worker, dict] = {}
        for part in parts:
            for segment in part["segments"]:
                w = self._segment_owner.get(segment)
                if w is None:
                    raise TransportError(f"checkpoint part {part['file']} holds segment {segment!r}, which no zmq "
                                         "worker owns")
                item = by_worker.setdefault(w, {}).setdefault(part["file"], {
                    "file": part["file"], "bytes": part["bytes"], "crc32": part["crc32"], "worker": part["worker"],
                    "segments": []})
                item["segments"].append(segment)
        self._request({w: ({"type": "load", "parts": list(items.values())}, (), "done")
                       for w, items in by_worker.items()})

    def refresh_stats(self) -> None:
        """Every worker flushes its store and reports its bytes, values and memory."""
        replies = self._request({w: ({"type": "flush"}, (), "stats") for w in self._workers.values()})
        for w, (header, _) in replies.items():
            self._take_stats(w, header, "stats")

    def store_view(self, store):
        """Every segment, the workers' fetched and sent one at a time (see WorkerStoreView)."""
        return WorkerStoreView(self, store)

    def report(self):
        """result.json fields: every worker's share, bytes and peak memory."""
        workers = [{"worker": w.name, "subgames": len(w.keys), "stored_bytes": w.stats["stored_bytes"],
                    "peak_rss_mb": w.stats["peak_rss_mb"]} for w in self._workers.values()]
        peak = max((w["peak_rss_mb"] for w in workers), default=0.0)
        report = {"workers": workers, "worker_peak_rss_mb": peak}
        if self._link is not None:
            report["wire_bytes_sent"] = self._link.sent_bytes
            report["wire_bytes_received"] = self._link.received_bytes
        if self._recoveries:
            report["recoveries"] = list(self._recoveries)
        return report

    # --- shutdown ------------------------------------------------------------------------------

    def close(self):
        """STOP every worker, wait briefly for their goodbyes and for spawned processes to exit,
        terminate those that linger, close the sockets."""
        link, self._link = self._link, None
        alive = [i for i in self._workers if i not in self._dead]
        try:
            if link is not None:
                _stop_workers(link, alive, min(STOP_GRACE, self.timeout))
        finally:
            dead = [w.proc for i, w in self._workers.items() if i in self._dead and w.proc is not None]
            _reap(dead)
            _reap([p for p in self._procs if p not in dead], grace=min(STOP_GRACE, self.timeout))
            if self._finalizer is not None:
                self._finalizer.detach()
            if link is not None:
                link.close()


def _stop_workers(link, identities, grace):
    """Send STOP to every worker and wait up to `grace` seconds for their BYEs."""
    for ident in identities:
        link.send(ident, frames_of({"type": "stop", "id": 0}))
    waiting = set(identities)
    deadline = time.monotonic() + grace
    while waiting and time.monotonic() < deadline:
        event = link.get(0.1)
        if event is not None and event[0] == "msg" and event[2]["type"] in ("bye", "error"):
            waiting.discard(event[1])

