"""How workers join a zmq run: binding, spawning, HELLO -> SETUP -> READY, admitting, dropping, banning peers."""

from __future__ import annotations

import heapq
import subprocess
import sys
import time
import weakref
from pathlib import Path

import numpy as np

from solverkit import __version__
from solverkit.core.capabilities import Decomposition, subgame_keys
from solverkit.core.wire import field
from solverkit.errors import ConfigError, ProtocolError, TransportError

from .gamefiles import pack_files
from .keys import load_trunk_keys, worker_names
from .link import _Link
from .protocol import PROTOCOL, host_name, key_to_wire
from .trunk_peers import _reap, _say, _Worker


class TrunkJoining:
    """ZmqTransport's start: the workers it waits for, each handed a fixed share of the subgames."""

    def start(self, game, store, assembly=None):
        """Bind, start `spawn` local workers, hand every worker its subgames, wait until all
        `workers` are ready (TransportError after `connect_timeout`)."""
        super().start(game, store)
        self._run_id = getattr(store, "run_id", None) or ""  # the workers' frames and files carry it
        if assembly is None:
            raise TransportError("the zmq transport needs the assembly (the resolved config) to set up its workers")
        refusal = getattr(game, "workers_refusal", None)  # a game whose workers are not cut by subgame count
        why = refusal(self.name, self.config["workers"]) if refusal is not None else None
        if why:
            raise ConfigError(f"[transport] ({self.name}) {why}")
        keys = subgame_keys(game)
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
        why = game.parts_refusal() if self.distributed and isinstance(game, Decomposition) else None
        if why:
            raise ConfigError(f"[transport] ({self.name}) checkpoint = \"distributed\" is invalid for game "
                              f"{game.name!r}: {why}; use checkpoint = \"file\"")
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
