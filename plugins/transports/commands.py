"""``solverkit worker`` (the worker side of the zmq transport) and ``solverkit keys`` (its CURVE
keys), added through register_commands."""

from __future__ import annotations

import os
import sys

import click

from solverkit.core.params import UserPath, option_type
from solverkit.errors import SolverkitError

from .limits import DEFAULT_MAX_MESSAGE_MB
#: longest --wait accepted, seconds (a year; 0 waits as long as it takes)
MAX_WAIT = 365 * 86400.0


def add_commands(cli: click.Group) -> None:
    """Add ``worker`` and ``keys`` to the ``solverkit`` command line `cli`."""

    @cli.command()
    @click.option("--connect", required=True, metavar="ADDRESS",
                  help="The trunk's address, e.g. tcp://trunk.example.org:5555 ([transport] bind of the solve).")
    @click.option("--threads", type=option_type("int", 1, 1024), default=None,
                  help="Compute threads for subgames (default: this machine's CPU count).")
    @click.option("--store-dir", type=UserPath(file_okay=False),
                  help="Directory of this worker's segment files when the run stores on disk ([store] backend = "
                       "\"disk\"; default: a temporary directory, removed at exit).")
    @click.option("--checkpoint-dir", type=UserPath(file_okay=False),
                  help="Directory where this worker writes (and on restore reads) its parts of the run's "
                       "checkpoints and final strategy when the run says [transport] checkpoint = \"distributed\": "
                       "a directory shared with the trunk (replacements on any host can restore from it) or this "
                       "machine's disk (restorable only here).")
    @click.option("--wait", type=option_type("float", 0, MAX_WAIT), default=0.0, show_default=True,
                  help="Seconds to wait for a trunk to set this worker up, at start and after losing its trunk "
                       "(0: as long as it takes).")
    @click.option("--once", is_flag=True,
                  help="Exit when the trunk is lost instead of waiting for it to come back (--resume) and "
                       "joining again; the workers a trunk spawns run with it.")
    @click.option("--keys", "keys_dir", type=UserPath(file_okay=False), default=None,
                  help="Directory with the trunk's public key (trunk.key) and this worker's secret key "
                       "(worker-N.key_secret), from `solverkit keys`: authenticated, encrypted connection "
                       "(the trunk must set [transport] keys).")
    @click.option("--key-name", default=None, metavar="NAME",
                  help="Which worker key of --keys to use, e.g. worker-2 (default: the only one there).")
    @click.option("--max-message", type=option_type("int", 1, 1 << 20), default=DEFAULT_MAX_MESSAGE_MB,
                  show_default=True, metavar="MB",
                  help="Largest message this worker accepts, in MiB; a larger one drops the connection.")
    def worker(connect, threads, store_dir, checkpoint_dir, wait, once, keys_dir, key_name, max_message):
        """Serve a `solverkit solve` whose config says [transport] name = "zmq": own a share of its
        subgames and run their part of every pass until the trunk stops. Start one per worker
        machine (or core group) with the trunk's address, before or after the trunk; the trunk
        sends the config. A worker whose trunk is lost waits for it to come back (`solverkit solve
        --resume`) and joins again; a spare, started while the trunk has all its workers, replaces
        the next one lost."""
        from .keys import load_worker_keys
        from .worker import run_worker

        if not connect.startswith(("tcp://", "ipc://")):
            raise SolverkitError(f"--connect {connect!r} is invalid: expected tcp://HOST:PORT or ipc://PATH")
        if key_name is not None and keys_dir is None:
            raise SolverkitError("--key-name needs --keys DIR")
        keys = load_worker_keys(keys_dir, key_name) if keys_dir is not None else None
        sys.exit(run_worker(connect, threads or os.cpu_count() or 1, store_dir, wait, once, keys=keys,
                            max_message=max_message << 20, checkpoint_dir=checkpoint_dir))

    @cli.command()
    @click.argument("directory", type=UserPath(file_okay=False))
    @click.option("--workers", type=option_type("int", 1, 4096), default=1, show_default=True,
                  help="Worker key pairs to make (one per worker host, worker-1 ... worker-N).")
    @click.option("--force", is_flag=True, help="Replace keys already in DIRECTORY.")
    def keys(directory, workers, force):
        """Make the CURVE keys of a zmq run in DIRECTORY: a trunk key pair and one key pair per
        worker (secret files mode 0600). Use them with [transport] keys = "DIRECTORY" and
        `solverkit worker --keys DIR`; without keys the trunk binds loopback addresses only."""
        from .keys import make_keys, usage

        files = make_keys(directory, workers, force)
        click.echo(usage(directory, files))
