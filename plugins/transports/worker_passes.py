"""A zmq worker's share of the work: PASS over its subgames on the thread pool, FETCH / PUT / FLUSH of segments."""

from __future__ import annotations

from concurrent.futures import FIRST_EXCEPTION, wait

import numpy as np

from solverkit.core.wire import ARRAY_DTYPE, array_frame, check_array_header, check_keys, field
from solverkit.errors import ProtocolError

from .protocol import error_header, input_shape, key_from_wire, key_to_wire, request_id


class WorkerPasses:
    """Worker's handlers of passes and segments."""

    def _pass(self, header, frames):
        """Run the PASS's subgames on the pool (heartbeats meanwhile), reply RESULT."""
        where, rid = "pass", field(header, "id", "pass", "int")
        check_keys(header, ("type", "id", "job", "keys", "shape", "dtype"), where)
        keys = [key_from_wire(k, where) for k in field(header, "keys", where, "list")]
        for k in keys:
            if k not in self.owned:
                raise ProtocolError(f"{where}: subgame {k!r} is not held by this worker (it holds {len(self.owned)})")
        job = self.game.job_from_wire(header.get("job"), self.assembly.rule, self.assembly.averaging)
        shape = (len(keys), *input_shape(self.game, job, self.shape))
        check_array_header(header, shape, where)
        if len(frames) != 1:
            raise ProtocolError(f"{where}: {len(frames)} array frames, expected 1")
        reach = array_frame(frames[0], shape, where, finite=True).copy()  # the kernels want writable arrays
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
