"""The zmq trunk's requests to its workers and their checked replies; a worker that fails or is lost raises."""

from __future__ import annotations

import time

from solverkit.core.wire import field
from solverkit.errors import TransportError, WorkerLost

from .protocol import STATS_FIELDS, error_header, frames_of
from .trunk_peers import _Worker

_RESUME = "the run can continue from its last checkpoint with `solverkit solve --resume OUT`"


class TrunkRequests:
    """ZmqTransport's messages to the workers it has: send, await the replies, tell failed from lost."""

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

    def _take_stats(self, w: _Worker, header: dict, where: str):
        where = f"{where} from zmq worker {w.name}"
        w.stats = {k: field(header, k, where, "float" if k == "peak_rss_mb" else "int", lo=0) for k in STATS_FIELDS}
