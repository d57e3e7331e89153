"""The zmq transport with its workers placed by Dask: for users who already run a Dask cluster.

Everything between the trunk and its workers is the zmq transport's (the same messages, keys,
heartbeats, checkpoints, recovery and checks, docs/wire.md): what changes is who starts the
workers. Instead of ``spawn`` subprocesses or ``solverkit worker`` started by hand, the trunk
submits one long-running Dask task per worker to a scheduler (``[transport] scheduler``) or to a
local cluster it starts (scheduler ""). Each task runs a ``solverkit worker`` in its Dask worker
and ends when the trunk stops it. A worker lost for any reason (its Dask worker died, hung,
dropped its connection) is replaced by a new task, then the run rolls back to its last
checkpoint as with zmq, so results stay identical to an uninterrupted local run.
"""

from __future__ import annotations

import os

from solverkit.core.params import Param
from solverkit.errors import ConfigError, TransportError

from .keys import worker_names
from .zmq import ZmqTransport, _say

#: the Dask task: a ``solverkit worker`` that exits when its trunk is lost or stops it
TASK_PREFIX = "solverkit-worker"


def serve(connect: str, threads: int, wait: float, keys_dir: str, key_name: str | None,
          checkpoint_dir: str | None) -> int:
    """One zmq worker inside a Dask worker (a module-level function, so Dask can ship it)."""
    from .keys import load_worker_keys
    from .worker import run_worker

    keys = load_worker_keys(keys_dir, key_name) if keys_dir else None
    return run_worker(connect, threads, wait=wait, once=True, keys=keys, checkpoint_dir=checkpoint_dir)


class DaskTransport(ZmqTransport):
    """zmq trunk; workers are Dask tasks (one per worker) on a scheduler or a local cluster."""

    name = "dask"
    description = "the zmq transport with its workers run as tasks on a Dask cluster (pip install distributed)"
    params = {
        **{k: p for k, p in ZmqTransport.params.items() if k != "spawn"},
        "scheduler": Param("str", "", "address of a running Dask scheduler (tcp://HOST:8786) that runs the workers; "
                           "\"\": start a local cluster of `workers` processes for this run"),
    }

    def __init__(self, **params):
        super().__init__(**params)  # (no spawn: the zmq checks read it as 0)
        _check_scheduler(self.config["scheduler"])
        self._client = self._cluster = None
        self._futures: list = []
        self._submitted = 0

    # --- the cluster ---------------------------------------------------------------------------

    def _connect_cluster(self):
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError("[transport] name = \"dask\" needs the distributed package: pip install distributed "
                              "(or solverkit[dask])") from None
        address = self.config["scheduler"]
        if address:
            try:
                self._client = Client(address, timeout=f"{self.config['connect_timeout']:g}s",
                                      set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise TransportError(f"[transport] (dask) scheduler = {address!r} cannot be reached: {exc}") from None
            return
        # a killed worker's task is not run again by Dask: the trunk submits the replacement itself
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            self._cluster = LocalCluster(n_workers=self.config["workers"], threads_per_worker=1, processes=True,
                                         dashboard_address=None, silence_logs=40)
            self._client = Client(self._cluster, set_as_default=False)

    def _submit(self, n: int) -> None:
        """Start `n` workers as Dask tasks."""
        keys_dir = os.path.abspath(self.config["keys"]) if self.config["keys"] else ""
        names = worker_names(keys_dir) if keys_dir else [None]
        checkpoint_dir = str(os.path.abspath(self.parts_dir)) if self.distributed else None
        for _ in range(n):
            self._submitted += 1
            self._futures.append(self._client.submit(
                serve, self._reachable_endpoint(), self.config["threads"], float(self.config["connect_timeout"]),
                keys_dir, names[(self._submitted - 1) % len(names)], checkpoint_dir,
                key=f"{TASK_PREFIX}-{os.getpid()}-{id(self):x}-{self._submitted}", pure=False))

    # --- the zmq transport's hooks ---------------------------------------------------------------

    def _spawn(self, store):
        self._connect_cluster()
        self._submit(self.config["workers"])
        where = self.config["scheduler"] or f"a local Dask cluster of {self.config['workers']} processes"
        _say(f"dask: {self.config['workers']} worker task(s) submitted to {where}")

    def _worker_command(self) -> str:
        return f"(Dask tasks on {self.config['scheduler'] or 'the local cluster'})"

    def recover(self, lost, attempt: int = 1) -> None:
        """A new task for each lost worker (a hung one's task cannot be stopped; if it ever comes
        back, the trunk refuses it and it exits), then the zmq transport's recovery."""
        workers = getattr(lost, "workers", None)
        if workers and attempt <= self.config["max_recoveries"]:
            self._futures = [f for f in self._futures if not f.done()]
            self._submit(len(workers))
        super().recover(lost, attempt)

    def close(self):
        try:
            super().close()
        finally:
            client, cluster, self._client, self._cluster = self._client, self._cluster, None, None
            if client is not None:
                try:
                    client.cancel(self._futures)
                finally:
                    client.close()
            if cluster is not None:
                cluster.close()
            self._futures = []


def _check_scheduler(address: str) -> None:
    """A scheduler address's port, when it has one (SCHEME://HOST:PORT or HOST:PORT), must be
    1..65535: the socket layers below wrap a larger one or fail with a traceback."""
    from solverkit.core.address import check_port

    rest = address.partition("://")[2] or address
    if rest.endswith("]") or ":" not in rest:  # no port: Dask's default
        return
    check_port(rest.rpartition(":")[2], f"[transport] (dask) scheduler = {address!r:.80}")
