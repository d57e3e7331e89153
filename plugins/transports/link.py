"""The zmq trunk's ROUTER socket and I/O thread (frames, header checks, heartbeats), apart from the trunk's logic."""

from __future__ import annotations

import queue
import threading
import time

from solverkit.core.wire import unpack_header
from solverkit.errors import ProtocolError, TransportError

from .protocol import HEARTBEAT, WORKER_TYPES, error_header, frames_of, tune
from .security import _AllowList


class _Link:
    """The trunk's ROUTER socket, owned by one I/O thread: it forwards what the main thread
    sends, queues what workers send (headers checked), notes when each worker was last heard,
    and sends the trunk's heartbeat to every worker while the main thread computes. A stranger's
    malformed or out-of-turn message gets an ERROR reply and changes nothing."""

    def __init__(self, bind: str, heartbeat: float, timeout: float, max_frame: int, keys=None):
        """`keys` (a keys.TrunkKeys): a CURVE server whose ZAP handler admits only its workers' keys."""
        import zmq  # pyzmq (and asyncio, for the authenticator) load with the first link, not with the plugin
        from zmq.auth.thread import ThreadAuthenticator

        self.heartbeat = heartbeat
        self.ctx = zmq.Context()
        self.auth = None
        self.router = self.ctx.socket(zmq.ROUTER)
        tune(self.router, heartbeat, timeout)
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.router.setsockopt(zmq.MAXMSGSIZE, max_frame)
        if keys is not None:
            self.auth = ThreadAuthenticator(self.ctx)
            self.auth.start()
            self.auth.configure_curve_callback("*", _AllowList(keys.allowed))
            self.router.curve_server = True
            self.router.curve_secretkey = keys.secret
            self.router.curve_publickey = keys.public
        try:
            self.router.bind(bind)
        except zmq.ZMQError as exc:
            self.router.close(0)
            if self.auth is not None:
                self.auth.stop()
            self.ctx.term()
            raise TransportError(f"[transport] (zmq) bind = {bind!r}: cannot bind ({exc})") from None
        self.endpoint = _connectable(self.router.getsockopt(zmq.LAST_ENDPOINT).decode())
        inproc = f"inproc://solverkit-zmq-{id(self)}"
        self._pull = self.ctx.socket(zmq.PULL)
        self._pull.bind(inproc)
        self._push = self.ctx.socket(zmq.PUSH)
        self._push.connect(inproc)
        self.inbox: queue.Queue = queue.Queue()
        self.seen: dict[bytes, float] = {}
        #: bytes of the messages' frames (header and payloads) sent to and received from peers
        self.sent_bytes = self.received_bytes = 0
        #: workers a send found disconnected (libzmq dropped their pipe): since when
        self.unreachable: dict[bytes, float] = {}
        self._known: set[bytes] = set()
        self._beat: set[bytes] = set()
        self._backlog: list = []
        self._thread = threading.Thread(target=self._loop, name="solverkit-zmq-io", daemon=True)
        self._thread.start()

    # main thread
    def send(self, identity: bytes, frames: list) -> None:
        self.sent_bytes += sum(_nbytes(f) for f in frames)
        self._push.send_multipart([identity, *frames], copy=False)

    def get(self, timeout: float):
        """The next event (kind, identity, header or message, frames), or None after `timeout`."""
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def admit(self, identity: bytes) -> None:
        self._known.add(identity)
        self.seen[identity] = time.monotonic()

    def beat_to(self, identity: bytes) -> None:
        self._beat.add(identity)

    def forget(self, identity: bytes) -> None:
        """A lost worker, or a peer dropped before it was ready: no more heartbeats; what it
        sends is answered "say hello again"."""
        self._known.discard(identity)
        self._beat.discard(identity)
        self.seen.pop(identity, None)
        self.unreachable.pop(identity, None)

    def close(self) -> None:
        self._push.send(b"")
        self._thread.join(5.0)
        self._push.close(0)
        if self.auth is not None:
            self.auth.stop()
        self.ctx.term()

    # I/O thread
    def _loop(self):
        import zmq

        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        poller.register(self._pull, zmq.POLLIN)
        last_beat = time.monotonic()
        try:
            while True:
                ready = dict(poller.poll(self.heartbeat * 500))
                if self._pull in ready:
                    frames = self._pull.recv_multipart(copy=False)
                    if len(frames) == 1:  # the stop signal
                        return
                    self._backlog.append(frames)
                self._flush_backlog()
                if self.router in ready:
                    self._receive(self.router.recv_multipart(copy=False))
                if time.monotonic() - last_beat >= self.heartbeat:
                    last_beat = time.monotonic()
                    for ident in list(self._beat):
                        self._try_send([ident, HEARTBEAT])
        finally:
            self.router.close(0)
            self._pull.close(0)

    def _flush_backlog(self):
        import zmq

        keep = []
        for frames in self._backlog:
            ident = frames[0].bytes
            try:
                self.router.send_multipart(frames, flags=zmq.NOBLOCK, copy=False)
            except zmq.Again:  # the worker's queue is full: try again later
                keep.append(frames)
            except zmq.ZMQError as exc:
                self.inbox.put(("gone", ident, f"cannot be reached ({exc}): its connection dropped", []))
        self._backlog = keep

    def _try_send(self, frames):
        import zmq

        ident = frames[0]
        try:
            self.router.send_multipart(frames, flags=zmq.NOBLOCK)
        except zmq.ZMQError as exc:
            # a full queue is found out by silence; a dropped connection is noted (the worker
            # is lost unless it comes back within a few heartbeats)
            if exc.errno == zmq.EHOSTUNREACH and ident in self._known:
                self.unreachable.setdefault(ident, time.monotonic())
            return
        self.unreachable.pop(ident, None)

    def _receive(self, frames):
        ident = frames[0].bytes
        self.received_bytes += sum(f.buffer.nbytes for f in frames[1:])
        known = ident in self._known
        try:
            if len(frames) < 2:
                raise ProtocolError("message without a header frame")
            header = unpack_header(frames[1].buffer, "message to the trunk")
        except ProtocolError as exc:
            if known:
                self.inbox.put(("bad", ident, str(exc), []))
            else:
                self._try_send([ident, *frames_of(error_header(None, str(exc)))])
            return
        if known:
            self.seen[ident] = time.monotonic()
            self.unreachable.pop(ident, None)
        kind = header["type"]
        if kind == "heartbeat" and known:
            return
        if not known and kind != "hello":
            # a worker of a trunk that restarted (or that this one lost) hears it should join again
            message = f"unknown peer: send a hello message first (got {kind!r})"
            self._try_send([ident, *frames_of(error_header(header.get("id"), message, rejoin=True))])
            return
        if kind not in WORKER_TYPES:
            message = f"unknown message type {kind!r}; valid: {', '.join(sorted(WORKER_TYPES))}"
            if known:
                self.inbox.put(("bad", ident, message, []))
            else:
                self._try_send([ident, *frames_of(error_header(header.get("id"), message))])
            return
        self.inbox.put(("msg", ident, header, frames[2:]))


def _nbytes(frame) -> int:
    """Bytes of one outgoing frame (bytes, a numpy array, a zmq.Frame or any buffer)."""
    if isinstance(frame, (bytes, bytearray)):
        return len(frame)
    import zmq

    if isinstance(frame, zmq.Frame):
        return frame.buffer.nbytes
    return memoryview(frame).nbytes


def _connectable(endpoint: str) -> str:
    """The address workers on this machine connect to for a bound endpoint (0.0.0.0 -> 127.0.0.1)."""
    return endpoint.replace("://0.0.0.0:", "://127.0.0.1:").replace("://[::]:", "://[::1]:")
