"""CURVE keys of a zmq run: a trunk key pair and worker key pairs, as zmq.auth certificate files.

``solverkit keys DIR`` writes ``trunk.key`` / ``trunk.key_secret`` and ``worker-N.key`` /
``worker-N.key_secret``. The trunk (``[transport] keys = "DIR"``) reads its secret file and
allows exactly the worker public keys in DIR; a worker (``solverkit worker --keys DIR``) reads
``trunk.key`` and its own secret file. Secret files are written mode 0600 and refused when other
users can read them. See docs/wire.md#security.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from solverkit.core.params import expand_path
from solverkit.errors import ConfigError

TRUNK = "trunk"
WORKER_PREFIX = "worker-"
PUBLIC, SECRET = ".key", ".key_secret"
_HOW = "make keys with `solverkit keys DIR` (docs/wire.md#security)"


@dataclass(frozen=True)
class TrunkKeys:
    """The trunk's key pair and the public keys of the workers it admits ({key: file name})."""

    public: bytes
    secret: bytes
    allowed: dict


@dataclass(frozen=True)
class WorkerKeys:
    """A worker's key pair and the public key of the trunk it may talk to."""

    public: bytes
    secret: bytes
    server: bytes
    name: str


def make_keys(directory, workers: int = 1, force: bool = False) -> list[Path]:
    """Write a trunk key pair and `workers` worker key pairs into `directory` (created 0700 if
    missing); ConfigError when keys are already there and not `force`. Returns the files written."""
    if workers < 1:
        raise ConfigError(f"--workers {workers} is invalid: expected an integer >= 1")
    directory = Path(directory)
    names = [TRUNK] + [f"{WORKER_PREFIX}{i}" for i in range(1, workers + 1)]
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"{directory} is not a directory: expected a directory for the keys")
    existing = sorted(p.name for p in directory.glob("*.key*")) if directory.is_dir() else []
    if existing and not force:
        raise ConfigError(f"{directory} already holds keys ({', '.join(existing)}): refusing to overwrite them "
                          "(a running trunk or worker would lose its keys); pass --force to replace them, or "
                          "choose another directory")
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    # written into a private (0700) directory first, so no secret is ever readable by others
    staging = Path(tempfile.mkdtemp(prefix=".keys-", dir=directory))
    import zmq.auth  # here, not at import: the plugin registers at every command line start

    try:
        written = []
        for name in names:
            for path in zmq.auth.create_certificates(staging, name):
                os.chmod(path, 0o600 if path.endswith(SECRET) else 0o644)
                target = directory / Path(path).name
                os.replace(path, target)
                written.append(target)
        if force:  # worker keys of an earlier, larger set would stay on the allow-list
            for old in directory.glob(f"{WORKER_PREFIX}*.key*"):
                if old not in written:
                    old.unlink()
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written


def _read(path: Path, secret: bool) -> tuple[bytes, bytes | None]:
    """(public, secret) keys of certificate file `path`, or a ConfigError naming the file."""
    if not path.is_file():
        raise ConfigError(f"key file {path} not found; {_HOW}")
    if secret:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise ConfigError(f"secret key file {path} is readable by other users (mode {mode:04o}): run "
                              f"`chmod 600 {path}`")
    import zmq.auth

    try:
        public, secret_key = zmq.auth.load_certificate(path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"key file {path} cannot be read ({exc}); {_HOW}") from None
    for what, key in (("public-key", public), ("secret-key", secret_key if secret else b"0" * 40)):
        if key is None:
            raise ConfigError(f"key file {path} has no {what}: expected a *{SECRET} file written by "
                              f"`solverkit keys`; {_HOW}")
        if not _valid(key):
            raise ConfigError(f"key file {path}: {what} is not a 40-character Z85 CURVE key; {_HOW}")
    return public, secret_key


def _valid(key: bytes) -> bool:
    from zmq.utils import z85

    if len(key) != 40:
        return False
    try:
        return len(z85.decode(key)) == 32
    except (ValueError, KeyError, TypeError):
        return False


def _directory(directory, who: str) -> Path:
    path = expand_path(directory, who)
    if not path.is_dir():
        raise ConfigError(f"{who} = {str(directory)!r}: no such directory; {_HOW}")
    return path


def load_trunk_keys(directory) -> TrunkKeys:
    """The trunk's key pair from `directory` and every worker public key there (its allow-list)."""
    path = _directory(directory, "[transport] keys")
    public, secret = _read(path / (TRUNK + SECRET), secret=True)
    workers = sorted(path.glob(f"{WORKER_PREFIX}*{PUBLIC}"))
    if not workers:
        raise ConfigError(f"[transport] keys = {str(directory)!r}: no worker public keys "
                          f"({WORKER_PREFIX}N{PUBLIC}) to allow; {_HOW}")
    allowed = {_read(p, secret=False)[0]: p.name for p in workers}
    return TrunkKeys(public, secret, allowed)


def load_worker_keys(directory, name: str | None = None) -> WorkerKeys:
    """A worker's key pair (`name`, e.g. ``worker-2``; default the only worker secret key in
    `directory`) and the trunk's public key."""
    path = _directory(directory, "--keys")
    if name is None:
        found = sorted(p.name[: -len(SECRET)] for p in path.glob(f"{WORKER_PREFIX}*{SECRET}"))
        if len(found) != 1:
            what = f"several ({', '.join(found)}): pick one with --key-name" if found else "none"
            raise ConfigError(f"--keys {str(directory)!r}: expected one worker secret key file "
                              f"({WORKER_PREFIX}N{SECRET}), found {what}; {_HOW}")
        name = found[0]
    public, secret = _read(path / (name + SECRET), secret=True)
    server, _ = _read(path / (TRUNK + PUBLIC), secret=False)
    return WorkerKeys(public, secret, server, name)


def worker_names(directory) -> list[str]:
    """The worker key names (``worker-1``, ...) whose secret files are in `directory`."""
    return sorted((p.name[: -len(SECRET)] for p in Path(directory).glob(f"{WORKER_PREFIX}*{SECRET}")),
                  key=lambda n: (len(n), n))


def usage(directory, files) -> str:
    """What `solverkit keys` prints: the files it wrote and how to use them."""
    d = Path(directory)
    workers = [f.name[: -len(SECRET)] for f in files if f.name.startswith(WORKER_PREFIX) and f.name.endswith(SECRET)]
    lines = [f"wrote {len(files)} key files in {d}:",
             f"  {TRUNK}{SECRET}  the trunk's secret key: stays on the trunk host",
             f"  {TRUNK}{PUBLIC}  the trunk's public key: copy it to every worker host",
             f"  {WORKER_PREFIX}N{SECRET}  one per worker (secret); {WORKER_PREFIX}N{PUBLIC}: the trunk's allow-list",
             "use them:",
             f"  trunk config:  [transport] keys = \"{d}\"  (then bind = \"tcp://*:5555\" is allowed)",
             f"  worker host:   copy {d}/{TRUNK}{PUBLIC} and {d}/{workers[0]}{SECRET} into a directory KEYS there "
             "(mode 0700), then",
             "                 solverkit worker --connect tcp://TRUNK:5555 --keys KEYS",
             "  (spawned workers on the trunk host use this directory by themselves)"]
    return "\n".join(lines)
