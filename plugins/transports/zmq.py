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
solver's view of the workers' segments in :mod:`.storeview`, the worker in :mod:`.worker`. This
module stays over 500 lines because :class:`ZmqTransport` is one state machine (handshake, passes,
recovery, shutdown) whose methods share the worker table and the link.
"""

from __future__ import annotations

import heapq
import itertools
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass, field as dc_field
from pathlib import Path

import numpy as np

from solverkit import __version__
from solverkit.core.address import check_endpoint
from solverkit.core.params import Param
from solverkit.core.transport import Transport
from solverkit.core.wire import ARRAY_DTYPE, array_frame, check_array_header, field
from solverkit.errors import ConfigError, ProtocolError, TransportError, WorkerLost

from .gamefiles import pack_files
from .keys import load_trunk_keys, worker_names
from .link import _Link
from .protocol import (MAX_TIMEOUT, PROTOCOL, STATS_FIELDS, error_header, frames_of, host_name,
                       key_from_wire, key_to_wire)
from .security import _local_only
from .storeview import WorkerStoreView

#: seconds close() waits for workers to say goodbye and for spawned processes to exit
STOP_GRACE = 5.0
_RESUME = "the run can continue from its last checkpoint with `solverkit solve --resume OUT`"


@dataclass(eq=False)
class _Worker:
    """What the trunk knows of one worker."""

    identity: bytes
    host: str
    pid: int
    threads: int
    index: int
    keys: list = dc_field(default_factory=list)
    stats: dict = dc_field(default_factory=lambda: dict.fromkeys(STATS_FIELDS, 0))
    proc: subprocess.Popen | None = None
    #: its count of clipped values when the run was last rolled back (not the run's any more)
    saturated_base: int = 0
    #: when the trunk sent it its setup (time.monotonic())
    setup_at: float = 0.0

    @property
    def name(self) -> str:
        """host:pid, as errors name the worker."""
        return f"{self.host}:{self.pid}"


class ZmqTransport(Transport):
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

    def start(self, game, store, assembly=None):
        """Bind, start `spawn` local workers, hand every worker its subgames, wait until all
        `workers` are ready (TransportError after `connect_timeout`)."""
        super().start(game, store)
        self._run_id = getattr(store, "run_id", None) or ""  # the workers' frames and files carry it
        if assembly is None:
            raise TransportError("the zmq transport needs the assembly (the resolved config) to set up its workers")
        keys = game.subgame_keys()
        if not keys:
            raise ConfigError(f"[transport] (zmq): game {game.name!r} has no subgames to run on workers; cut it "
                              "into a trunk and subgames (poker: [game] split_round >= 1) or use [transport] "
                              "name = \"local\"")
        if self.config["workers"] > len(keys):
            raise ConfigError(f"[transport] (zmq) workers = {self.config['workers']} is invalid: game "
                              f"{game.name!r} has {len(keys)} subgames (expected workers <= {len(keys)})")
        if self.distributed and game.num_players != 2:
            raise ConfigError(f"[transport] ({self.name}) checkpoint = \"distributed\" is invalid for game {game.name!r} of "
                              f"{game.num_players} players: distributed parts hold two players' policies; use "
                              "checkpoint = \"file\"")
        self._shape = tuple(game.subgame_shape())
        self._resolved = assembly.resolved
        sizes = {k: sum(store.specs[game.subgame_segment(k)].arrays.values()) for k in keys}
        shares = partition(keys, sizes, self.config["workers"])
        biggest = max(max(sizes.values()) * 8, max(len(s) for s in shares) * 8 * int(np.prod(self._shape)))
        # game files travel as content (read now: an unreadable one stops the run before it binds)
        self._game_table = pack_files(type(game), assembly.resolved["game"])
        keys = load_trunk_keys(self.config["keys"]) if self.config["keys"] else None
        self._link = _Link(self.config["bind"], self.heartbeat, self.timeout, max_frame=2 * biggest + (16 << 20),
                           keys=keys)
        self.endpoint = self._link.endpoint
        self._spawn(store)
        self._handshake(assembly.resolved, shares)

    def _spawn(self, store):
        self._store_base = getattr(store.backend, "path", None)
        for i in range(self.config["spawn"]):
            self._procs.append(self._spawn_one(i))
        self._finalizer = weakref.finalize(self, _reap, self._procs)  # the list: replacements too
        waiting = self.config["workers"] - self.config["spawn"]
        if waiting:
            _say(f"waiting for {waiting} worker(s): run `{self._worker_command()}` on each worker machine")

    def _reachable_endpoint(self) -> str:
        """The trunk's address as workers on other machines reach it: this host's name for a bind
        to every interface, else the bound address."""
        bind = self.config["bind"]
        if "://*:" in bind or "://0.0.0.0:" in bind or "://[::]:" in bind:
            return f"tcp://{host_name()}:{self.endpoint.rsplit(':', 1)[1]}"
        return self.endpoint

    def _worker_command(self) -> str:
        """The command that starts a worker for this trunk (with keys: the key directory too)."""
        keys = f" --keys {self.config['keys']}" if self.config.get("keys") else ""
        return f"solverkit worker --connect {self._reachable_endpoint()}{keys}"

    @property
    def distributed(self) -> bool:
        """Whether the workers write their own parts of the checkpoints and the strategy (a run
        with an output directory and ``checkpoint = "distributed"``)."""
        return self.config["checkpoint"] == "distributed" and self.parts_dir is not None

    def _spawn_one(self, i: int) -> subprocess.Popen:
        """Start spawned worker `i` (its store directory is worker{i}; it exits with its trunk)."""
        cmd = [sys.executable, "-m", "solverkit", "worker", "--connect", self.endpoint, "--once",
               "--threads", str(self.config["threads"]), "--wait", f"{self.config['connect_timeout']:g}"]
        if self._store_base is not None:
            cmd += ["--store-dir", str(Path(self._store_base) / f"worker{i}")]
        if self.distributed:  # this machine's OUT/checkpoint.d: every spawned worker (and its replacement) reads it
            cmd += ["--checkpoint-dir", str(Path(self.parts_dir).resolve())]
        if self.config["keys"]:
            names = worker_names(self.config["keys"])
            if not names:
                raise ConfigError(f"[transport] keys = {self.config['keys']!r} holds no worker secret key "
                                  "(worker-N.key_secret) for the spawned workers; make keys with "
                                  "`solverkit keys DIR`")
            cmd += ["--keys", str(Path(self.config["keys"]).expanduser().resolve()), "--key-name",
                    names[i % len(names)]]
        # a session of its own: Ctrl-C in the terminal reaches the trunk alone, which stops it
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, start_new_session=True)

    def _handshake(self, resolved, shares):
        """HELLO -> SETUP -> READY with every worker, within `connect_timeout`."""
        want = self.config["workers"]
        deadline = time.monotonic() + self.config["connect_timeout"]
        setups: dict[bytes, int] = {}
        free = list(range(want))  # shares not yet dealt (a dropped peer's share goes back)
        ready = 0
        while ready < want:
            left = deadline - time.monotonic()
            if left <= 0:
                dropped = f" (dropped before ready: {'; '.join(self._dropped)})" if self._dropped else ""
                raise TransportError(
                    f"{ready} of {want} zmq workers ready after {self.config['connect_timeout']:g} s on "
                    f"{self.endpoint}; start workers with `{self._worker_command()}` or raise [transport] "
                    f"connect_timeout{dropped}")
            self._check_spawned()
            for ident, why in self._silent(setups):
                self._drop(ident, why, setups, free)
            event = self._link.get(min(left, 0.2))
            if event is None:
                continue
            kind, ident, header, frames = event
            if ident in setups and kind != "bad" and header["type"] == "hello":
                late = self._late_hello(self._workers[ident])
                if late:
                    self._drop(ident, late, setups, free)
                continue  # said again before our setup reached it
            if ident in setups and (kind == "bad" or header["type"] != "ready" or header.get("id") != setups[ident]):
                # not a worker of the run until it is ready: a peer that breaks off is let go
                self._drop(ident, header if kind == "bad" else _reason(header), setups, free)
            elif kind == "bad":
                if ident in self._workers:
                    self._fail(ident, header)
            elif header["type"] == "hello":
                if not free or ident in self._workers or ident in self._banned:
                    self._refuse_hello(ident, header)
                    continue
                w = self._accept(ident, header, free[0], shares)
                if w is not None:
                    self._workers[ident] = w
                    free.pop(0)
                    setups[ident] = self._send(w, self._setup_header(resolved, w))
                    w.setup_at = time.monotonic()
            elif ident in setups:
                w = self._workers[ident]
                try:
                    self._take_stats(w, header, "ready")
                except ProtocolError as exc:
                    self._drop(ident, str(exc), setups, free)
                    continue
                self._link.beat_to(ident)
                del setups[ident]
                ready += 1
            else:
                self._fail(ident, f"unexpected {header['type']!r} message before it was set up")
        for w in self._workers.values():
            for k in w.keys:
                self._owner[k] = w
                self._segment_owner[self.game.subgame_segment(k)] = w
        _say(f"{want} worker(s) ready on {self.endpoint}: " +
             ", ".join(f"{w.name} ({len(w.keys)} subgames)" for w in self._workers.values()))

    def _silent(self, setups) -> list[tuple[bytes, str]]:
        """The peers in `setups` (sent SETUP, not READY yet) silent for more than `timeout` s,
        with the reason: a worker sends heartbeats while it sets up, so a silent one is dead,
        stuck or a stranger holding a share that a real worker is waiting for."""
        now, out = time.monotonic(), []
        for ident in list(setups):
            silent = now - self._link.seen.get(ident, now)
            if silent > self.timeout:
                out.append((ident, f"silent for {silent:.1f} s after its hello ([transport] timeout "
                                   f"{self.timeout:g} s; a worker sends heartbeats while it sets up)"))
        return out

    def _late_hello(self, w: _Worker) -> str | None:
        """Why a peer still saying hello `timeout` s after its setup was sent is let go (a
        worker stops once the setup reaches it, then beats until ready), or None."""
        late = time.monotonic() - w.setup_at
        if late <= self.timeout:
            return None
        return (f"still saying hello {late:.1f} s after its setup was sent ([transport] timeout {self.timeout:g} s): "
                "the setup never reached it, or it is not a worker")

    def _drop(self, ident, reason: str, setups: dict, free: list) -> None:
        """Let go of a peer that said hello but broke off before it was ready (a malformed or
        out-of-turn message, an error): its share goes back to the next hello, and the run
        goes on waiting. Its reason is printed; a spawned worker's exit is reported anyway."""
        w = self._workers.pop(ident)
        del setups[ident]
        free.insert(0, w.index)
        free.sort()
        self._link.forget(ident)
        self._ban(ident)
        self._refuse(ident, f"dropped before it was ready: {reason}")
        self._dropped = [*self._dropped[-9:], f"{w.name}: {reason}"]  # the last ten, for the timeout's message
        _say(f"dropped {w.name} before it was ready: {reason}; waiting for another worker")

    def _setup_header(self, resolved: dict, w: _Worker) -> dict:
        """SETUP for worker `w`: the config, with the game cut down to `w`'s subgames where the
        game can (HULHE: its flops only), and its subgames as the trunk's keys, addresses in
        any build of the game, and the trunk's segment names."""
        game = self.game
        config = dict(resolved, game={**self._game_table, **game.subgame_config(w.keys)})
        return {"type": "setup", "protocol": PROTOCOL, "config": config,
                "keys": [key_to_wire(k) for k in w.keys],
                "addresses": [game.subgame_address(k) for k in w.keys],
                "segments": [game.subgame_segment(k) for k in w.keys],
                "run": self._run_id, "heartbeat": self.heartbeat, "timeout": self.timeout,
                "parts": self.distributed}

    def _accept(self, ident, header, index, shares) -> _Worker | None:
        """A worker from its HELLO (None, with an ERROR reply, when it cannot join)."""
        where = "hello"
        try:
            _check_hello(header)
            w = _Worker(ident, field(header, "host", where, "str"), field(header, "pid", where, "int"),
                        field(header, "threads", where, "int", lo=1), index, list(shares[index]))
        except ProtocolError as exc:
            self._refuse(ident, str(exc))
            return None
        if w.host == host_name():
            w.proc = next((p for p in self._procs if p.pid == w.pid), None)
        self._dead.discard(ident)
        self._link.admit(ident)
        return w

    def _ban(self, ident) -> None:
        """Refuse any later hello of a peer dropped before it was ready (a worker that is dropped
        exits; a stranger looping hello, setup, silence would hold a share for good)."""
        if len(self._banned) >= 65536:  # a flood of identities: keep memory bounded
            self._banned.clear()
        self._banned.add(ident)

    def _refuse_hello(self, ident, header):
        """Answer a HELLO once the run has its workers: a version mismatch, 'full', or a peer
        dropped before it was ready."""
        if ident in self._banned:
            self._refuse(ident, "this peer was dropped before it was ready; a worker that was dropped exits")
            return
        try:
            _check_hello(header)
        except ProtocolError as exc:
            self._refuse(ident, str(exc))
            return
        # a spare: it says hello again, and replaces the next worker lost
        self._refuse(ident, f"this trunk already has its {self.config['workers']} workers", rejoin=True)

    def _check_spawned(self):
        for i, proc in enumerate(self._procs):
            if proc.poll() is not None and not any(w.proc is proc for w in self._workers.values()):
                why = "".join(f"; {d}" for d in self._dropped if f":{proc.pid}: " in d)
                raise TransportError(f"spawned zmq worker {i} (pid {proc.pid}) exited with status {proc.returncode} "
                                     f"before it was ready (its messages are above){why}")

    # --- requests ------------------------------------------------------------------------------

    def _send(self, w: _Worker, header: dict, payloads=()) -> int:
        rid = next(self._ids)
        self._link.send(w.identity, frames_of({**header, "id": rid}, payloads))
        return rid

    def _request(self, requests: dict) -> dict:
        """Send {worker: (header, payloads, reply type)} and return {worker: (reply, frames)}."""
        pending = {w.identity: (self._send(w, h, p), t) for w, (h, p, t) in requests.items()}
        return {self._workers[i]: r for i, r in self._await(pending).items()}

    def _await(self, pending: dict) -> dict:
        """Replies {identity: (header, frames)} to requests {identity: (id, reply type)}. A worker
        that fails or breaks the protocol raises TransportError; one that dies, hangs or drops its
        connection (any worker, not only those asked) raises WorkerLost, and the requests still
        out stay in `_inflight` for :meth:`recover`."""
        self._inflight.update(pending)
        replies = {}
        while any(i in self._inflight for i in pending):
            if time.monotonic() >= self._next_check:  # at most twice a heartbeat, however many requests
                self._next_check = time.monotonic() + min(self.heartbeat, 0.5)
                self._check_alive()
            event = self._link.get(min(self.heartbeat, 0.5))
            if event is None:
                continue
            kind, ident, header, frames = event
            if kind == "gone":
                if ident in self._workers:
                    self._lose({ident: header})
                continue
            if kind == "bad":
                if ident in self._workers:
                    self._fail(ident, header)
                continue  # a stranger we could not answer
            if header["type"] == "hello":
                if ident in self._workers:  # it lost this trunk and joined again: its values are gone
                    self._lose({ident: "said hello again (it had lost this trunk): its subgames' values are gone"})
                self._refuse_hello(ident, header)
                continue
            w = self._workers.get(ident)
            if w is None:
                continue  # a late message of a worker this run has lost
            if ident not in self._inflight:
                self._fail(ident, f"unexpected {header['type']!r} message (no request outstanding)", header)
            rid, rtype = self._inflight.pop(ident)
            replies[ident] = (self._check_reply(w, header, rid, rtype), frames)
        return replies

    def _check_reply(self, w: _Worker, header: dict, rid: int, rtype: str) -> dict:
        if header["type"] == "error":
            self._fail(w.identity, None, header)
        if header["type"] != rtype:
            self._fail(w.identity, f"sent {header['type']!r} in reply to request {rid}, expected {rtype!r}")
        if header.get("id") != rid:
            self._fail(w.identity, f"replied to request {header.get('id')!r}, expected {rid}")
        return header

    def _fail(self, ident, message, header=None):
        """Raise the TransportError of a failed worker (a message, or its ERROR header)."""
        w = self._workers.get(ident)
        who = f"zmq worker {w.name}" if w else f"zmq peer {ident!r}"
        self._dead.add(ident)
        if header is not None and header.get("type") == "error":
            text = header.get("message") if isinstance(header.get("message"), str) else repr(header.get("message"))
            exc = TransportError(f"{who} failed: {text}")
            exc.remote_traceback = header.get("traceback") if isinstance(header.get("traceback"), str) else ""
            raise exc
        raise TransportError(f"{who}: {message}")

    def _refuse(self, ident, message, rejoin=False):
        self._link.send(ident, frames_of(error_header(None, message, rejoin=rejoin)))

    def _check_alive(self):
        """WorkerLost naming every worker found lost: a spawned process that exited, a worker
        silent past `timeout`, one whose connection dropped and did not come back in time."""
        now = time.monotonic()
        lost = {}
        for ident, w in self._workers.items():
            since = self._link.unreachable.get(ident)
            if w.proc is not None and w.proc.poll() is not None:
                lost[ident] = f"exited with status {w.proc.returncode}"
            elif now - self._link.seen.get(ident, now) > self.timeout:
                silent = now - self._link.seen[ident]
                lost[ident] = f"silent for {silent:.1f} s (timeout {self.timeout:g} s): it died, hung or lost its network"
            elif since is not None and now - since > self._grace:
                lost[ident] = (f"dropped its connection {now - since:.1f} s ago and did not come back: it died or "
                               "lost its network")
        if lost:
            self._lose(lost)

    def _lose(self, reasons: dict):
        """Raise the WorkerLost of workers {identity: what happened}."""
        self._dead.update(reasons)
        text = "; ".join(f"zmq worker {self._workers[i].name} {why}" for i, why in reasons.items())
        raise WorkerLost(f"{text}; {_RESUME}", list(reasons), reason=text)

    # --- recovery ------------------------------------------------------------------------------

    def recover(self, lost, attempt: int = 1) -> None:
        """Replace the workers `lost` names: stop and restart the spawned ones, wait up to
        `replace_timeout` for a HELLO from any worker for the others, and set each replacement
        up with a lost worker's share; the other workers' answers to requests of the work being
        rolled back are dropped. The caller then restores every segment (TransportError: no
        replacement in time, or `max_recoveries` losses in a row)."""
        limit = self.config["max_recoveries"]
        if not isinstance(lost, WorkerLost) or attempt > limit:
            why = (f" (gave up: {limit} recoveries in a row did not get the run past this point; "
                   f"[transport] max_recoveries = {limit})") if limit else ""
            raise TransportError(f"{lost}{why}") from None
        t0 = time.monotonic()
        timeout = self.config["replace_timeout"]
        draining = {i: r for i, r in self._inflight.items() if i in self._workers and i not in lost.workers}
        self._inflight.clear()
        by_hand = any(self._workers[i].proc is None for i in lost.workers if i in self._workers)
        vacant = [self._vacate(i) for i in lost.workers if i in self._workers]
        names = ", ".join(w.name for w in vacant)
        _say(f"lost {names} ({lost.reason}); " + (
            f"waiting up to {timeout:g} s for a replacement: run `{self._worker_command()}`"
            if by_hand else "restarting it"))
        setups: dict[bytes, tuple] = {}  # identity -> (setup request id, worker)
        deadline = t0 + timeout
        while vacant or setups or draining:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TransportError(
                    f"{len(vacant) + len(setups)} lost zmq worker(s) not replaced within {timeout:g} s ([transport] "
                    f"replace_timeout); start workers with `{self._worker_command()}`; {_RESUME}")
            try:
                self._check_alive()  # the workers that stay (a replacement is one once ready)
            except WorkerLost as more:
                for ident in more.workers:
                    draining.pop(ident, None)
                    vacant.append(self._vacate(ident))
                continue
            for _ident, (_, w) in setups.items():
                if w.proc is not None and w.proc.poll() is not None:
                    raise TransportError(f"restarted zmq worker {w.name} exited with status {w.proc.returncode} before "
                                         f"it was ready (its messages are above); {_RESUME}")
            for ident, why in self._silent(setups):
                self._refuse(ident, f"dropped before it was ready: {why}")
                vacant.append(self._unset(ident, setups, why))
            event = self._link.get(min(left, 0.2))
            if event is None:
                continue
            kind, ident, header, frames = event
            if kind in ("gone", "bad"):
                if ident in self._workers:
                    draining.pop(ident, None)
                    vacant.append(self._vacate(ident))
                elif ident in setups:
                    vacant.append(self._unset(ident, setups, header))
                continue
            if header["type"] == "hello":
                if ident in setups:
                    late = self._late_hello(setups[ident][1])
                    if late:
                        self._refuse(ident, f"dropped before it was ready: {late}")
                        vacant.append(self._unset(ident, setups, late))
                    continue  # said again before our setup reached it
                if ident in self._workers:  # it lost this trunk too: its share is vacant, it may take one
                    draining.pop(ident, None)
                    vacant.append(self._vacate(ident))
                if not vacant or ident in self._banned:
                    self._refuse_hello(ident, header)
                    continue
                slot = vacant.pop(0)
                w = self._accept(ident, header, slot.index, {slot.index: slot.keys})
                if w is None:
                    vacant.insert(0, slot)
                    continue
                setups[ident] = (self._send(w, self._setup_header(self._resolved, w)), w)
                w.setup_at = time.monotonic()
            elif ident in setups:
                rid, w = setups[ident]
                if header["type"] != "ready" or header.get("id") != rid:
                    vacant.append(self._unset(ident, setups, f"answered setup with {header.get('message') or header}"))
                    continue
                del setups[ident]
                self._take_stats(w, header, "ready")
                self._workers[ident] = w
                self._link.beat_to(ident)
                for k in w.keys:
                    self._owner[k] = w
                    self._segment_owner[self.game.subgame_segment(k)] = w
                _say(f"{w.name} replaces a lost worker ({len(w.keys)} subgames)")
            elif ident in draining:
                draining.pop(ident)  # its answer to a request of the work rolled back
        self.refresh_stats()
        for w in self._workers.values():
            w.saturated_base = w.stats["saturated"]
        self._recoveries.append({"lost": names, "reason": lost.reason, "replaced_in_s": time.monotonic() - t0})

    def _vacate(self, ident) -> _Worker:
        """Take lost worker `ident` out of the run and return its record (its share): whatever
        it still sends is answered with "say hello again"; a spawned one is killed and restarted."""
        w = self._workers.pop(ident)
        self._inflight.pop(ident, None)
        self._dead.discard(ident)
        self._link.forget(ident)
        self._refuse(ident, "this trunk lost this worker (it holds no subgames now)", rejoin=True)
        if w.proc is not None:
            slot = self._procs.index(w.proc)
            _reap([w.proc])  # killed, a hung one too, so that its store directory is free
            self._procs[slot] = self._spawn_one(slot)
            w.proc = None
        return w

    def _unset(self, ident, setups, why) -> _Worker:
        """A replacement that failed to set up: forget it; its share is vacant again."""
        _, w = setups.pop(ident)
        self._link.forget(ident)
        self._ban(ident)
        _say(f"replacement {w.name} failed to set up: {why}")
        return _Worker(b"", "", 0, 0, w.index, w.keys)

    def _take_stats(self, w: _Worker, header: dict, where: str):
        where = f"{where} from zmq worker {w.name}"
        w.stats = {k: field(header, k, where, "float" if k == "peak_rss_mb" else "int", lo=0) for k in STATS_FIELDS}

    # --- passes --------------------------------------------------------------------------------

    def map_subgames(self, job, inputs):
        """One PASS to each worker that owns some of `inputs`, one RESULT back from each."""
        wire = self.game.job_to_wire(job)
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
            if reach.shape[1:] != self._shape:
                raise TransportError(f"subgame inputs of shape {list(reach.shape[1:])}, expected {list(self._shape)}")
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


def _check_hello(header):
    """A HELLO must speak this protocol version and come from the same solverkit version."""
    protocol = field(header, "protocol", "hello", "int")
    version = field(header, "solverkit", "hello", "str")
    if protocol != PROTOCOL or version != __version__:
        raise ProtocolError(f"worker speaks protocol {protocol} (solverkit {version}); this trunk speaks "
                            f"protocol {PROTOCOL} (solverkit {__version__}): install the same version")


def _reason(header: dict) -> str:
    """Why a peer's message is not the READY it owed: its ERROR's message, or what it sent."""
    if header["type"] == "error":
        text = header.get("message")
        return text if isinstance(text, str) else repr(text)
    return f"sent {header['type']!r} (id {header.get('id')!r}) instead of 'ready' to its setup"


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


def _reap(procs, grace: float | None = None):
    """Wait up to `grace` seconds for spawned workers, then terminate (and kill) the rest; no
    grace: kill at once (workers given up on, or the interpreter exiting)."""
    if grace is None:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()  # a stopped (SIGSTOP) process ignores SIGTERM until continued
            proc.wait()
        return
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(2.0)
        except subprocess.TimeoutExpired:
            _reap([proc])


def partition(keys, sizes: dict, n: int) -> list[list]:
    """`keys` in `n` shares of about equal total size (largest first onto the lightest share),
    each share in the order of `keys`."""
    heap = [(0, i) for i in range(n)]
    owner = {}
    for key in sorted(keys, key=lambda k: -sizes[k]):  # stable: ties keep the keys' order
        load, i = heapq.heappop(heap)
        owner[key] = i
        heapq.heappush(heap, (load + sizes[key], i))
    return [[k for k in keys if owner[k] == i] for i in range(n)]


def _say(text: str) -> None:
    print(f"zmq: {text}", file=sys.stderr, flush=True)
