"""``solverkit worker``: the worker side of the zmq transport, added through register_commands."""

from __future__ import annotations

import os
import sys

import click

from solverkit.errors import SolverkitError


def add_commands(cli: click.Group) -> None:
    """Add ``worker`` to the ``solverkit`` command line `cli`."""

    @cli.command()
    @click.option("--connect", required=True, metavar="ADDRESS",
                  help="The trunk's address, e.g. tcp://trunk.example.org:5555 ([transport] bind of the solve).")
    @click.option("--threads", type=click.IntRange(min=1, max=1024), default=None,
                  help="Compute threads for subgames (default: this machine's CPU count).")
    @click.option("--store-dir", type=click.Path(file_okay=False),
                  help="Directory of this worker's segment files when the run stores on disk ([store] backend = "
                       "\"disk\"; default: a temporary directory, removed at exit).")
    @click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
                  help="Seconds to wait for a trunk to set this worker up, at start and after losing its trunk "
                       "(0: as long as it takes).")
    @click.option("--once", is_flag=True,
                  help="Exit when the trunk is lost instead of waiting for it to come back (--resume) and "
                       "joining again; the workers a trunk spawns run with it.")
    def worker(connect, threads, store_dir, wait, once):
        """Serve a `solverkit solve` whose config says [transport] name = "zmq": own a share of its
        subgames and run their part of every pass until the trunk stops. Start one per worker
        machine (or core group) with the trunk's address, before or after the trunk; the trunk
        sends the config. A worker whose trunk is lost waits for it to come back (`solverkit solve
        --resume`) and joins again; a spare, started while the trunk has all its workers, replaces
        the next one lost."""
        from .worker import run_worker

        if not connect.startswith(("tcp://", "ipc://")):
            raise SolverkitError(f"--connect {connect!r} is invalid: expected tcp://HOST:PORT or ipc://PATH")
        sys.exit(run_worker(connect, threads or os.cpu_count() or 1, store_dir, wait, once))
