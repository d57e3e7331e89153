"""In-process transport: subgames of a pass run on a thread pool of this process."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from solverkit.core.capabilities import holds_subgames
from solverkit.core.params import Param
from solverkit.core.transport import Transport


class LocalTransport(Transport):
    """Runs every subgame of a pass on threads here (numba kernels release the GIL)."""

    name = "local"
    description = "subgames on threads of this process (the default)"
    params = {"threads": Param("int", 2, "worker threads for subgames", min=1, max=1024)}

    def __init__(self, **params):
        super().__init__(**params)
        self._pool = None

    def start(self, game, store, assembly=None):
        """Refuse a game built without its subgames (they run here, on threads)."""
        if not holds_subgames(game):
            from solverkit.errors import ConfigError

            raise ConfigError(f"[transport] (local): game {game.name!r} was built without its subgames ([game] "
                              "trunk_only = true); run them on workers with [transport] name = \"zmq\", or set "
                              "trunk_only = false")
        super().start(game, store, assembly)

    def _executor(self):
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.config["threads"], thread_name_prefix="solverkit")
        return self._pool

    def map_subgames(self, job, inputs):
        keys = list(inputs)
        if self.config["threads"] == 1 or len(keys) <= 1:
            return {k: self.game.subgame_pass(k, job, inputs[k], self.store) for k in keys}
        futures = {k: self._executor().submit(self.game.subgame_pass, k, job, inputs[k], self.store) for k in keys}
        return {k: f.result() for k, f in futures.items()}

    def local_threads(self) -> int:
        return int(self.config["threads"])

    def map_local(self, fn, items):
        """The calling thread takes items too, with threads - 1 of the pool: `threads` threads in
        all (each keeps its own kernel buffers, so one set fewer than a pool of `threads`)."""
        threads = min(int(self.config["threads"]), len(items))
        if threads <= 1:
            return [fn(x) for x in items]
        results = [None] * len(items)
        order = iter(range(len(items)))
        lock = threading.Lock()

        def work():
            while True:
                with lock:
                    i = next(order, None)
                if i is None:
                    return
                results[i] = fn(items[i])

        futures = [self._executor().submit(work) for _ in range(threads - 1)]
        try:
            work()
        finally:
            for f in futures:
                f.result()
        return results

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
