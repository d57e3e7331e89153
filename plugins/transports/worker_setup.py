"""A zmq worker's SETUP: the assembly and store built from the trunk's config, beating meanwhile; CURVE refusals."""

from __future__ import annotations

import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import zmq
from zmq.utils.monitor import recv_monitor_message

from solverkit.core.capabilities import Decomposes
from solverkit.core.game import warm_up
from solverkit.core.wire import check_keys, field
from solverkit.errors import ProtocolError, SolverkitError

from .gamefiles import unpack_files
from .protocol import MAX_TIMEOUT, PROTOCOL, error_header, key_from_wire, request_id
from .worker_exits import EXIT_REFUSED, _Rejoin, _Stop


class WorkerSetup:
    """Worker's handlers that set it up (SETUP, a SETUP again, the trunk's ERROR)."""

    def _setup(self, header):
        """Build the assembly and store from the trunk's config; READY, or ERROR and exit."""
        where, rid = "setup", request_id(header)
        try:
            check_keys(header, ("type", "id", "protocol", "config", "keys", "addresses", "segments", "run",
                                "heartbeat", "timeout", "parts"), where)
            field(header, "protocol", where, "int", choices=(PROTOCOL,))
            if field(header, "parts", where, "bool", optional=True) and self.checkpoint_dir is None:
                raise SolverkitError("this run keeps its checkpoints and strategy distributed ([transport] checkpoint "
                                     "= \"distributed\"): start the worker with --checkpoint-dir DIR (a directory "
                                     "shared with the trunk, or this machine's disk; docs/cluster.md)")
            self.heartbeat = field(header, "heartbeat", where, "float", lo=0.01, hi=3600.0)
            run_id = field(header, "run", where, "str")
            self.timeout = field(header, "timeout", where, "float", lo=2 * self.heartbeat, hi=MAX_TIMEOUT)
            config = field(header, "config", where, "map")
            if "game" in config:  # game files arrive as content; no path the trunk names is opened
                config = dict(config, game=unpack_files(config["game"], self._files_dir()))
            self._beating(lambda: self._build(header, where, config, run_id))
        except SolverkitError as exc:
            self._send(error_header(rid, f"cannot set up: {exc}"))
            raise _Stop(EXIT_REFUSED, f"cannot set up: {exc}") from None
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="solverkit-worker")
        self._send({"type": "ready", "id": rid, **self._stats()})
        self.log(f"worker {self.name}: ready with {len(self.owned)} subgames of {self.game.name!r}, "
                 f"{self.threads} threads")

    def _beating(self, work):
        """Run `work()` on a helper thread while this thread (the socket's) sends heartbeats: a
        long setup (building the game, compiling kernels) is not a silent peer to the trunk,
        which drops one that says nothing for its timeout before it is ready."""
        box = {}

        def run():
            try:
                box["value"] = work()
            except BaseException as exc:  # noqa: BLE001 - re-raised on this thread
                box["error"] = exc

        helper = threading.Thread(target=run, name="solverkit-worker-setup", daemon=True)
        helper.start()
        while helper.is_alive():
            helper.join(self.heartbeat)
            self._beat()
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def _build(self, header, where, config, run_id):
        """The assembly, store and subgame maps of a SETUP (on the helper thread of _beating)."""
        from solverkit.core.config import resolve
        from solverkit.core.solver import make_store, warm_up_kernels

        self.assembly = resolve(config, source="the trunk's setup")
        self.game = self.assembly.game
        if not isinstance(self.game, Decomposes):
            raise ProtocolError(f"{where}: game {self.game.name!r} has no subgames for a worker to run")
        keys = [key_from_wire(k, where) for k in field(header, "keys", where, "list")]
        addresses = field(header, "addresses", where, "list")
        names = field(header, "segments", where, "list")
        if not len(keys) == len(addresses) == len(names):
            raise ProtocolError(f"{where}: {len(keys)} keys, {len(addresses)} addresses and {len(names)} "
                                "segments: expected as many of each")
        # the trunk's keys and segment names -> this (possibly smaller) game's subgames
        self.local = {}
        self.alias = {}
        for k, addr, name in zip(keys, addresses, names):
            if not isinstance(addr, list) or not isinstance(name, str):
                raise ProtocolError(f"{where}: subgame address {addr!r:.60} / segment {name!r:.60} is invalid")
            try:
                local = self.game.subgame_key_at(addr)
            except KeyError as exc:
                raise ProtocolError(f"{where}: subgame key {k!r}: {exc.args[0]}") from None
            self.local[k] = local
            self.alias[name] = self.game.subgame_segment(local)
        self.owned = {k: self.alias[name] for k, name in zip(keys, names)}
        self.segments = set(self.alias)
        self.assembly.store = dict(self.assembly.store, path="")  # this worker's own directory
        self.store = make_store(self.assembly, self.store_dir, run_id or None)
        # frames name the trunk's segments, so the trunk checks what it fetches and puts
        self.store.frame_keys = {local: name for name, local in self.alias.items()}
        self.num_values = sum(sum(self.store.specs[s].arrays.values()) for s in self.alias.values())
        self.shape = tuple(self.game.subgame_shape())
        warm_up_kernels()
        warm_up(self.game, self.store)

    def _watch_handshakes(self, monitor):
        """Say (once) why the CURVE handshake with the trunk fails: a key the trunk does not list,
        or a trunk with another key, never gets as far as a message."""
        said = False
        try:
            while True:
                event = recv_monitor_message(monitor)
                if event["event"] == zmq.EVENT_MONITOR_STOPPED:
                    return
                if not said:
                    said = True
                    why = ("the trunk refused this worker's key (not on its allow-list: use a worker key from "
                           "the trunk's keys directory)" if event["event"] == zmq.EVENT_HANDSHAKE_FAILED_AUTH
                           else "the CURVE handshake failed (is trunk.key the key of the trunk at this address?)")
                    self.log(f"worker {self.name}: {why}; retrying until --wait runs out")
        except zmq.ZMQError:
            return
        finally:
            monitor.close(0)

    def _files_dir(self) -> str:
        """This worker's private directory for the game files its trunk sends (removed at exit)."""
        if self.files_dir is None:
            self.files_dir = tempfile.mkdtemp(prefix="solverkit-worker-files-")
        return self.files_dir

    def _setup_again(self, header, frames):
        raise ProtocolError("setup: this worker is already set up")

    def _trunk_error(self, header, frames):
        if header.get("rejoin") is True:  # a restarted trunk, or one that gave up on this worker
            raise _Rejoin(f"the trunk no longer knows this worker ({header.get('message')})")
        self.log(f"worker {self.name}: the trunk reports: {header.get('message')}")
