"""A zmq worker: owns a share of a game's subgames and runs their part of every pass.

``solverkit worker --connect tcp://TRUNK:PORT`` connects a DEALER socket to the trunk, says
HELLO, gets SETUP (the resolved config and the subgame keys it owns), builds the same assembly
and a store of its own, and then serves requests one at a time: PASS (its subgames on a thread
pool, heartbeats from this main loop meanwhile), FETCH / PUT (a segment's payloads), FLUSH
(statistics), SAVE / LOAD (its share of a distributed checkpoint, in its own
``--checkpoint-dir``), STRATEGY (its share of the final strategy) and STOP. A malformed request gets an ERROR reply and the worker carries on. A
trunk silent for the run's ``timeout`` (or one that no longer knows this worker: it restarted,
or gave up on it) is lost: the worker drops its assembly and store and says HELLO again, so a
trunk restarted with ``--resume`` (or the same trunk, as a replacement) takes it back; with
``--once`` (the workers a trunk spawns) it exits instead.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
import uuid
from pathlib import Path
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import numpy as np
import zmq
from zmq.utils.monitor import recv_monitor_message

from solverkit import __version__
from solverkit.core.address import check_endpoint
from solverkit.core.memory import peak_rss_mb
from solverkit.core.params import expand_path
from solverkit.core.parts import PartError, check_name, open_part, read_arrays, remove_stale, write_part
from solverkit.core.wire import ARRAY_DTYPE, array_frame, check_array_header, check_keys, field, unpack_header
from solverkit.errors import ProtocolError, SolverkitError

from .commands import DEFAULT_MAX_MESSAGE_MB
from .gamefiles import unpack_files
from .protocol import (HELLO_EVERY, MAX_TIMEOUT, HEARTBEAT, PROTOCOL, TRUNK_TYPES, error_header, frames_of, host_name,
                       key_from_wire, key_to_wire, request_id, tune)

#: exit statuses of `solverkit worker`: stopped by its trunk; no trunk (none set it up within
#: --wait, or with --once its trunk was lost); refused (another version, or it cannot build the
#: assembly)
EXIT_STOPPED, EXIT_LOST, EXIT_REFUSED = 0, 1, 2
#: heartbeat and timeout before the trunk's SETUP says otherwise
DEFAULT_HEARTBEAT, DEFAULT_TIMEOUT = 1.0, 60.0
#: socket events of a failed CURVE handshake (and the monitor's end)
_HANDSHAKE_FAILED = (zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                     | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_MONITOR_STOPPED)
#: the largest frame a worker accepts unless told otherwise (`--max-message`, MiB there)
DEFAULT_MAX_MESSAGE = DEFAULT_MAX_MESSAGE_MB << 20


class _Stop(Exception):
    """Leave the serve loop with an exit status."""

    def __init__(self, status: int, message: str = ""):
        super().__init__(message)
        self.status = status


class _Rejoin(Exception):
    """The trunk is lost (silent, or it no longer knows this worker): start over with HELLO."""


class Worker:
    """One worker process's connection, assembly, store and thread pool."""

    def __init__(self, connect: str, threads: int, store_dir=None, wait: float = 0.0, log=None, once: bool = False,
                 keys=None, max_message: int = DEFAULT_MAX_MESSAGE, checkpoint_dir=None):
        """`once`: exit when the trunk is lost instead of joining again; `keys` (a
        keys.WorkerKeys): talk CURVE to the trunk whose public key it names; `max_message`: bytes
        of the largest frame accepted (a larger one drops the connection), fixed here, never
        taken from the trunk; `checkpoint_dir`: where this worker writes and reads its parts of
        a distributed checkpoint and strategy (the trunk names files in it, never a directory)."""
        check_endpoint(connect, "--connect", bind=False)  # before zmq, which wraps port 70000 to 4464
        self.connect, self.threads, self.store_dir, self.wait = connect, threads, store_dir, wait
        self.checkpoint_dir = expand_path(checkpoint_dir, "--checkpoint-dir").resolve() if checkpoint_dir else None
        #: part files this worker wrote, per kind (removed once no manifest names them)
        self.written: dict[str, set[str]] = {"checkpoint": set(), "strategy": set()}
        self.once = once  # exit when the trunk is lost (spawned workers) instead of joining again
        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.name = f"{host_name()}:{os.getpid()}"
        self.heartbeat, self.timeout = DEFAULT_HEARTBEAT, DEFAULT_TIMEOUT
        self.ctx = zmq.Context()
        self._watcher = None
        self.sock = self.ctx.socket(zmq.DEALER)
        tune(self.sock, self.heartbeat, self.timeout)
        self.sock.setsockopt(zmq.MAXMSGSIZE, int(max_message))
        if keys is not None:  # authenticate the trunk by its public key, encrypt everything
            self.sock.curve_secretkey = keys.secret
            self.sock.curve_publickey = keys.public
            self.sock.curve_serverkey = keys.server
            self._watcher = threading.Thread(target=self._watch_handshakes, name="solverkit-worker-curve",
                                             args=(self.sock.get_monitor_socket(_HANDSHAKE_FAILED),), daemon=True)
            self._watcher.start()
        # a fixed routing id: a connection that drops and comes back is the same worker
        self.sock.setsockopt(zmq.ROUTING_ID, f"{self.name}:{uuid.uuid4().hex[:8]}".encode())
        try:
            self.sock.connect(connect)
        except zmq.ZMQError as exc:  # an address zmq cannot parse (checked ones aside)
            if self._watcher is not None:
                self.sock.disable_monitor()
                self._watcher.join(2.0)
            self.sock.close(0)
            self.ctx.term()
            raise SolverkitError(f"--connect {connect!r}: cannot connect there ({exc}); expected the trunk's "
                                 "tcp://HOST:PORT or ipc://PATH") from None
        self.assembly = self.game = self.store = self.pool = None
        self.files_dir = None  # game files from the setup (see gamefiles.py)
        self.owned: dict = {}  # key -> segment name
        self.segments: set[str] = set()
        self.local: dict = {}  # the trunk's key -> this game's key (a smaller game numbers boards its own way)
        self.alias: dict[str, str] = {}  # the trunk's segment name -> this store's
        self.last_heard = self.last_beat = time.monotonic()
        self.handlers = {"pass": self._pass, "fetch": self._fetch, "put": self._put, "flush": self._flush,
                         "save": self._save, "load": self._load, "strategy": self._strategy, "stop": self._stop, "heartbeat": lambda header, frames: None, "setup": self._setup_again,
                         "error": self._trunk_error}

    # --- life cycle ----------------------------------------------------------------------------

    def run(self) -> int:
        """Join the trunk, serve it until STOP (joining again whenever the trunk is lost, unless
        `once`); the exit status (see EXIT_*)."""
        try:
            self.log(f"worker {self.name}: connecting to {self.connect}")
            while True:
                self._join()
                try:
                    while True:
                        self._serve_one()
                except _Rejoin as lost:
                    if self.once:
                        raise _Stop(EXIT_LOST, f"{lost}; exiting") from None
                    self.log(f"worker {self.name}: {lost}; dropping its subgames and waiting for a trunk")
                    self._drop()
        except _Stop as stop:
            if str(stop):
                self.log(f"worker {self.name}: {stop}")
            return stop.status
        except KeyboardInterrupt:
            self._send(error_header(None, "worker interrupted (SIGINT)"))
            self.log(f"worker {self.name}: interrupted")
            return EXIT_LOST
        finally:
            self._close()

    def _join(self):
        """Say HELLO (again every HELLO_EVERY s: to a trunk that is not up yet, or that has all
        its workers) and wait for SETUP (up to `wait` seconds; 0: as long as it takes); set up."""
        deadline = time.monotonic() + self.wait if self.wait > 0 else None
        hello = {"type": "hello", "protocol": PROTOCOL, "solverkit": __version__, "host": host_name(),
                 "pid": os.getpid(), "threads": self.threads}
        said = None
        told = set()
        while True:
            now = time.monotonic()
            left = None if deadline is None else deadline - now
            if left is not None and left <= 0:
                raise _Stop(EXIT_LOST, f"no setup from a trunk at {self.connect} within {self.wait:g} s; exiting")
            if said is None or now - said >= HELLO_EVERY:
                said = now
                try:  # queued until a trunk is there (dropped when the queue is full: said again)
                    self.sock.send(frames_of(hello)[0], flags=zmq.NOBLOCK)
                except zmq.Again:
                    pass
            wait = min(self.heartbeat, HELLO_EVERY) if left is None else min(self.heartbeat, HELLO_EVERY, left)
            frames = self._receive(wait)
            if frames is None:
                continue
            header = self._header(frames)
            if header is None:
                continue
            if header["type"] == "setup":
                self._setup(header)
                return
            if header["type"] == "error" and header.get("rejoin") is True:
                # an answer to what reached a trunk before this hello, or "full": wait as a spare
                message = str(header.get("message"))
                if message not in told:
                    told.add(message)
                    self.log(f"worker {self.name}: the trunk says: {message}; saying hello again until it "
                             "sets this worker up")
                continue
            if header["type"] == "error":
                raise _Stop(EXIT_REFUSED, f"the trunk refused this worker: {header.get('message')}")
            if header["type"] == "stop":
                self._stop(header, frames[1:])
            if header["type"] != "heartbeat":
                self._send(error_header(request_id(header), f"{header['type']!r} before setup"))

    def _serve_one(self):
        """Handle one message (or send a heartbeat, or give up on a silent trunk)."""
        frames = self._receive(self.heartbeat)
        if frames is not None:
            header = self._header(frames)
            if header is not None:
                self._handle(header, frames[1:])
        self._beat()
        silent = time.monotonic() - self.last_heard
        if silent > self.timeout:
            raise _Rejoin(f"no message from the trunk at {self.connect} for {silent:.1f} s (timeout "
                          f"{self.timeout:g} s): it is gone")

    def _handle(self, header, frames):
        handler = self.handlers.get(header["type"])
        rid = request_id(header)
        if handler is None:
            self._send(error_header(rid, f"unknown message type {header['type']!r}; valid: "
                                         f"{', '.join(sorted(TRUNK_TYPES))}"))
            return
        try:
            handler(header, frames)
        except (_Stop, _Rejoin, KeyboardInterrupt):
            raise
        except (ProtocolError, PartError) as exc:
            self._send(error_header(rid, str(exc)))
        except Exception as exc:  # reported to the trunk, which stops the run; this worker carries on
            trace = traceback.format_exc()
            self.log(f"worker {self.name}: request {rid} failed:\n{trace}")
            self._send(error_header(rid, f"{type(exc).__name__}: {exc}", trace))

    def _drop(self):
        """Forget the trunk's assembly: the pool (its running subgames finish), the store."""
        pool, store, self.pool, self.store = self.pool, self.store, None, None
        self.assembly = self.game = None
        self.owned, self.segments, self.local, self.alias = {}, set(), {}, {}
        try:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            if store is not None:
                store.close()

    def _close(self):
        self._drop()
        if self._watcher is not None:
            self.sock.disable_monitor()
            self._watcher.join(2.0)
        self.sock.close(linger=1000)  # let a last reply (bye, error) reach the trunk
        self.ctx.term()
        if self.files_dir is not None:
            shutil.rmtree(self.files_dir, ignore_errors=True)

    # --- messages ------------------------------------------------------------------------------

    def _send(self, header: dict, payloads=()):
        self.sock.send_multipart(frames_of(header, payloads), copy=False)

    def _receive(self, timeout: float):
        """The next message's frames, or None after `timeout` seconds."""
        if not self.sock.poll(max(0, int(timeout * 1000))):
            return None
        frames = self.sock.recv_multipart(copy=False)
        self.last_heard = time.monotonic()
        return frames

    def _header(self, frames):
        """The message's header, or None after an ERROR reply to a malformed one."""
        try:
            return unpack_header(frames[0].buffer, "message to the worker")
        except ProtocolError as exc:
            self._send(error_header(None, str(exc)))
            return None

    def _beat(self):
        if time.monotonic() - self.last_beat >= self.heartbeat:
            self.last_beat = time.monotonic()
            try:
                self.sock.send(HEARTBEAT, flags=zmq.NOBLOCK)
            except zmq.Again:
                pass

    def _stats(self) -> dict:
        return {"stored_bytes": int(self.store.stored_bytes()), "num_values": self.num_values,
                "peak_rss_mb": float(peak_rss_mb()), "saturated": int(self.store.saturated_values())}

    # --- handlers ------------------------------------------------------------------------------

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
        self.game.warmup()

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

    def _pass(self, header, frames):
        """Run the PASS's subgames on the pool (heartbeats meanwhile), reply RESULT."""
        where, rid = "pass", field(header, "id", "pass", "int")
        check_keys(header, ("type", "id", "job", "keys", "shape", "dtype"), where)
        keys = [key_from_wire(k, where) for k in field(header, "keys", where, "list")]
        for k in keys:
            if k not in self.owned:
                raise ProtocolError(f"{where}: subgame {k!r} is not held by this worker (it holds {len(self.owned)})")
        shape = (len(keys), *self.shape)
        check_array_header(header, shape, where)
        if len(frames) != 1:
            raise ProtocolError(f"{where}: {len(frames)} array frames, expected 1")
        reach = array_frame(frames[0], shape, where, finite=True).copy()  # the kernels want writable arrays
        job = self.game.job_from_wire(header.get("job"), self.assembly.rule, self.assembly.averaging)
        out = np.empty((len(keys), *self.game.subgame_output_shape(job)))
        self.store.expect([self.owned[k] for k in keys])
        futures = [self.pool.submit(self._one, i, k, job, reach, out) for i, k in enumerate(keys)]
        self._wait(futures, rid)
        self._send({"type": "result", "id": rid, "keys": [key_to_wire(k) for k in keys], "shape": list(out.shape),
                    "dtype": ARRAY_DTYPE, **self._stats()}, [out])

    def _one(self, i, key, job, reach, out):
        out[i] = self.game.subgame_pass(self.local[key], job, reach[i], self.store)

    def _wait(self, futures, rid):
        """Wait for the pool, sending heartbeats and answering the trunk's meanwhile."""
        pending = futures
        while pending:
            done, pending = wait(pending, timeout=self.heartbeat, return_when=FIRST_EXCEPTION)
            if any(f.exception() is not None for f in done):
                break
            self._beat()
            while (frames := self._receive(0)) is not None:
                header = self._header(frames)
                if header is None or header["type"] == "heartbeat":
                    continue
                if header["type"] == "stop":  # the run is over: the pool's queue is dropped at close
                    self._stop(header, frames[1:])
                if header["type"] == "error":
                    self._trunk_error(header, frames[1:])  # a lost trunk: start over
                    continue
                self._send(error_header(request_id(header), f"busy with request {rid}: one request at a time"))
        wait(futures)
        for f in futures:
            f.result()  # the first failure, reported by _handle

    def _segment(self, header, where):
        segment = field(header, "segment", where, "str")
        if segment not in self.segments:
            raise ProtocolError(f"{where}: segment {segment!r} is not held by this worker (it holds "
                                f"{len(self.segments)})")
        names = field(header, "arrays", where, "str_list")
        segment = self.alias[segment]  # the trunk's name -> this worker's
        valid = self.store.specs[segment].arrays
        for name in names:
            if name not in valid:
                raise ProtocolError(f"{where}: segment {segment!r} has no array {name!r}; arrays: "
                                    f"{', '.join(sorted(valid))}")
        return segment, names

    def _fetch(self, header, frames):
        rid = field(header, "id", "fetch", "int")
        check_keys(header, ("type", "id", "segment", "arrays"), "fetch")
        segment, names = self._segment(header, "fetch")
        blobs = self.store.payloads(segment)
        self._send({"type": "segment", "id": rid, "segment": header["segment"], "arrays": names},
                   [blobs[n] for n in names])

    def _put(self, header, frames):
        rid = field(header, "id", "put", "int")
        check_keys(header, ("type", "id", "segment", "arrays"), "put")
        segment, names = self._segment(header, "put")
        if len(frames) != len(names):
            raise ProtocolError(f"put: {len(frames)} payload frames for arrays {names!r}")
        self.store.restore(segment, {n: f.bytes for n, f in zip(names, frames)})
        self._send({"type": "done", "id": rid})

    def _flush(self, header, frames):
        rid = field(header, "id", "flush", "int")
        self.store.flush()
        self._send({"type": "stats", "id": rid, **self._stats()})

    # --- distributed checkpoints and strategy (docs/wire.md) -------------------------------------

    def _parts_dir(self, where: str) -> Path:
        if self.checkpoint_dir is None:
            raise ProtocolError(f"{where}: this worker has no --checkpoint-dir to keep parts in")
        return self.checkpoint_dir

    def _write(self, header, where: str, kind: str, entries, fields=(), **footer) -> None:
        """Write part `file` of the request into the checkpoint directory and answer SAVED
        (`fields`: the request's fields beyond the common ones; `footer`: the part's extra fields)."""
        rid = field(header, "id", where, "int")
        check_keys(header, ("type", "id", "file", "iteration", "keep", *fields), where)
        name = check_name(field(header, "file", where, "str"), where)
        keep = field(header, "keep", where, "str_list")
        iteration = field(header, "iteration", where, "int", lo=0)
        directory = self._parts_dir(where)
        directory.mkdir(parents=True, exist_ok=True)
        record = write_part(directory / name, kind, entries, self.store.run_id, iteration, self.name, **footer)
        written = self.written[kind]
        written.add(name)
        stale = {n for n in written if n != name and n not in keep}
        for n in stale:  # parts that no manifest names any more
            remove_stale(directory, (), n)
        written -= stale
        self._send({"type": "saved", "id": rid, "dir": str(directory), **record})

    def _save(self, header, frames):
        """SAVE: this worker's segments as one part file (its payloads as stored, frames naming
        the trunk's segments), fsynced, so that the trunk's manifest can name it."""
        self.store.flush()
        entries = ((name, self.store.payloads(local)) for name, local in self.alias.items())
        self._write(header, "save", "checkpoint", entries)

    def _strategy(self, header, frames):
        """STRATEGY: the policy of each of this worker's segments (float64, both players) as one
        part file of the run's distributed strategy."""
        kind = field(header, "kind", "strategy", "str", choices=("average", "current"))

        def entries():
            for name, local in self.alias.items():
                yield name, {f"policy{p}": np.ascontiguousarray(self.game.segment_policy(self.store, local, kind, p),
                                                                dtype="<f8") for p in (0, 1)}

        self._write(header, "strategy", "strategy", entries(), fields=("kind",), strategy=kind)

    def _load(self, header, frames):
        """LOAD: restore this worker's segments from the parts the trunk's manifest names, each
        part checked against its size and checksum and every frame decoded before any segment
        changes."""
        rid = field(header, "id", "load", "int")
        check_keys(header, ("type", "id", "parts"), "load")
        directory = self._parts_dir("load")
        loaded = []
        for i, part in enumerate(field(header, "parts", "load", "list")):
            where = f"load: parts[{i}]"
            if not isinstance(part, dict):
                raise ProtocolError(f"{where} = {part!r:.60} is invalid: expected a map")
            check_keys(part, ("file", "bytes", "crc32", "segments", "worker"), where)
            record = {"bytes": field(part, "bytes", where, "int", lo=1), "crc32": field(part, "crc32", where, "int")}
            name = check_name(field(part, "file", where, "str"), where)
            owner = field(part, "worker", where, "str")
            segments = field(part, "segments", where, "str_list")
            for s in segments:
                if s not in self.segments:
                    raise ProtocolError(f"{where}: segment {s!r} is not held by this worker")
            path = directory / name
            if not path.is_file():
                raise PartError(f"part {path} (written by worker {owner}) is missing on {host_name()}: a worker "
                                "restores its segments from its --checkpoint-dir, so a checkpoint on a machine's "
                                "own disk can only be restored there; replace a worker of another host through a "
                                "shared directory (docs/cluster.md)")
            footer = open_part(path, record, kind="checkpoint", run=self.store.run_id, owner=f"worker {owner}")
            for s in segments:
                blobs = read_arrays(footer, s)
                try:
                    self.store._decode(self.alias[s], blobs)
                except SolverkitError as exc:
                    raise PartError(f"part {path} (written by worker {owner}): {exc}") from None
                loaded.append((self.alias[s], blobs))
        for local, blobs in loaded:
            self.store.restore(local, blobs)
        self._send({"type": "done", "id": rid})

    def _stop(self, header, frames):
        self._send({"type": "bye", "id": request_id(header)})
        raise _Stop(EXIT_STOPPED, "stopped by the trunk")


def run_worker(connect: str, threads: int, store_dir=None, wait: float = 0.0, once: bool = False, keys=None,
               max_message: int = DEFAULT_MAX_MESSAGE, checkpoint_dir=None) -> int:
    """`solverkit worker`: serve the trunk at `connect` until it stops this worker."""
    return Worker(connect, threads, store_dir, wait, once=once, keys=keys, max_message=max_message,
                  checkpoint_dir=checkpoint_dir).run()
