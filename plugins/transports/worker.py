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

:class:`Worker` keeps the connection, its life cycle and its messages; its handlers are mixins by
idea: :mod:`.worker_setup` (SETUP), :mod:`.worker_passes` (PASS, FETCH, PUT, FLUSH),
:mod:`.worker_parts` (SAVE, STRATEGY, LOAD); :mod:`.worker_exits` holds its exit statuses.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
import traceback
import uuid

import zmq

from solverkit import __version__
from solverkit.core.address import check_endpoint
from solverkit.core.memory import peak_rss_mb
from solverkit.core.params import expand_path
from solverkit.core.parts import PartError
from solverkit.core.wire import unpack_header
from solverkit.errors import ProtocolError, SolverkitError

from .limits import DEFAULT_MAX_MESSAGE
from .protocol import (HELLO_EVERY, HEARTBEAT, PROTOCOL, TRUNK_TYPES, error_header, frames_of, host_name,
                       request_id, tune)
from .worker_exits import EXIT_LOST, EXIT_REFUSED, EXIT_STOPPED, _Rejoin, _Stop
from .worker_parts import WorkerParts
from .worker_passes import WorkerPasses
from .worker_setup import WorkerSetup

#: heartbeat and timeout before the trunk's SETUP says otherwise
DEFAULT_HEARTBEAT, DEFAULT_TIMEOUT = 1.0, 60.0
#: socket events of a failed CURVE handshake (and the monitor's end)
_HANDSHAKE_FAILED = (zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                     | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_MONITOR_STOPPED)


class Worker(WorkerSetup, WorkerPasses, WorkerParts):
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


    # --- distributed checkpoints and strategy (docs/wire.md) -------------------------------------


    def _stop(self, header, frames):
        self._send({"type": "bye", "id": request_id(header)})
        raise _Stop(EXIT_STOPPED, "stopped by the trunk")


def run_worker(connect: str, threads: int, store_dir=None, wait: float = 0.0, once: bool = False, keys=None,
               max_message: int = DEFAULT_MAX_MESSAGE, checkpoint_dir=None) -> int:
    """`solverkit worker`: serve the trunk at `connect` until it stops this worker."""
    return Worker(connect, threads, store_dir, wait, once=once, keys=keys, max_message=max_message,
                  checkpoint_dir=checkpoint_dir).run()

