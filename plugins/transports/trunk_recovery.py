"""How the zmq trunk replaces lost workers: restart or wait for one, hand it the lost share, drop stale answers."""

from __future__ import annotations

import time

from solverkit.errors import TransportError, WorkerLost

from .trunk_peers import _reap, _say, _Worker
from .trunk_requests import _RESUME


class TrunkRecovery:
    """ZmqTransport's recovery from WorkerLost: a replacement set up with each lost worker's share."""

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
