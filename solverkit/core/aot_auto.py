"""Build a CLI solve's kernels ahead of time in the background after a run that needed numba's
JIT, so that the next run of that game loads the build instead of numba (issue 30: a Kuhn solve
of 100 iterations peaks at 117 MB in 0.55 s on the JIT, 46 MB in 0.38 s with the build). :func:`after_solve` decides
(:func:`decide`) and starts ``solverkit compile`` for the same game in a detached process at the
lowest CPU priority (:func:`spawn`), logging to the build directory. ``solverkit solve`` calls it,
and ``solverkit study`` (:func:`after_study`: the kernels its runs, here or in its worker
processes, took from the JIT, built from the runs' own config files), never the Python API;
``SOLVERKIT_AOT_BUILD=0`` (or ``SOLVERKIT_AOT=0``) turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

#: Runs whose peak RSS exceeds this (MB) get no automatic build: the build re-runs the solve for a
#: few iterations in a second process, so a large game's would double its memory on the machine.
MAX_PEAK_MB = 1024.0
#: the build log in the build directory (appended)
LOG = "auto-build.log"
#: the last automatic build started (what it was to add), so a build that failed is not restarted
#: by every run until the build changes or :data:`RETRY_SECONDS` have passed
ATTEMPT = "auto-build.json"
RETRY_SECONDS = 24 * 3600.0
#: what the next run gains, said in the notice (measured: bench/results/aot_auto.md)
GAIN = "starts without loading numba: about 70 MB less memory and 0.15-0.3 s less start-up"


def switched_off() -> str:
    """Why automatic builds are off by the environment ("" when on)."""
    from .jit import aot_enabled, env_switch

    if not env_switch("SOLVERKIT_AOT_BUILD"):
        return "SOLVERKIT_AOT_BUILD=0"
    return "" if aot_enabled() else "SOLVERKIT_AOT=0"


def new_signatures(directory: Path) -> list[str]:
    """The kernel signatures this process ran on numba's JIT that a build could hold and the
    current build in `directory` does not (none when numba never started: the build covered
    every call; none for kernels a build never takes, so such runs do not rebuild forever)."""
    from .jit import numba_started

    if not numba_started():
        return []
    from . import aot_load
    from .aot_build import called_signatures
    from .aot_key import freeze, type_key

    manifest = aot_load.read_manifest(directory)
    have = set()
    if manifest is not None and not aot_load.stale_sources(manifest["sources"]):
        have = {(kernel, freeze(key)) for kernel, key, _ in manifest["entries"]}
    out = []
    for kernel, sig in called_signatures():
        key = type_key(list(sig.args))  # type: ignore[attr-defined]
        if key is not None and (kernel, key) not in have:
            out.append(f"{kernel}{key!r}")
    return sorted(set(out))


def _attempt_digest(directory: Path, missing: list[str]) -> str:
    """What a build would start from: the signatures it adds and the build it adds them to."""
    from . import aot_load

    manifest = aot_load.read_manifest(directory) or {}
    text = json.dumps([missing, manifest.get("built"), manifest.get("file")])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _tried_recently(directory: Path, digest: str) -> bool:
    try:
        last = json.loads((directory / ATTEMPT).read_text())
    except (OSError, ValueError):
        return False
    return last.get("digest") == digest and time.time() - float(last.get("time", 0)) < RETRY_SECONDS


def missing_here() -> list[str]:
    """:func:`new_signatures` of this process against this environment's build ([] when builds
    are off or there is no build directory): what a study's run reports to the study."""
    if switched_off():
        return []
    from . import aot_load

    directory = aot_load.build_dir()
    return new_signatures(directory) if directory is not None else []


def decide(peak_mb: float | None = None, missing: list[str] | None = None) -> tuple[Path | None, str, str]:
    """(build directory, attempt digest, "") when this run's kernels should be built in the
    background, else (None, "", why not): see the module and :data:`MAX_PEAK_MB`. `missing`: the
    signatures to add when they were run elsewhere (a study's worker processes); default this
    process's."""
    off = switched_off()
    if off:
        return None, "", f"off ({off})"
    from . import aot_load

    directory = aot_load.build_dir()
    if directory is None:
        return None, "", "caches are off (SOLVERKIT_CACHE_DIR=off)"
    missing = new_signatures(directory) if missing is None else sorted(set(missing))
    if not missing:
        return None, "", "the build covered every kernel call (or none can be built)"
    if peak_mb is None:
        from .memory import peak_rss_mb

        peak_mb = peak_rss_mb()
    if peak_mb > MAX_PEAK_MB:
        return None, "", f"the run peaked at {peak_mb:.0f} MB (> {MAX_PEAK_MB:.0f} MB): build with solverkit compile"
    from .aot_build import compiler_available, lock_free

    if not compiler_available():
        return None, "", "no C compiler"
    try:
        free = lock_free(directory)
    except OSError as exc:  # a read-only cache: no build, and no warning on every solve
        return None, "", f"cannot lock {directory}: {exc}"
    if not free:
        return None, "", "another build is in progress"
    digest = _attempt_digest(directory, missing)
    if _tried_recently(directory, digest):
        return None, "", f"the same build was started before and added nothing (see {directory / LOG})"
    return directory, digest, ""


def compile_args(config=None, overrides=(), game: str | None = None, preset: str | None = None) -> list[str]:
    """The ``solverkit compile`` arguments that run the same game as the solve: the config file
    (absolute) and its ``--set`` overrides, or --game/--preset; a --preset given with a config
    becomes ``--set preset=...`` (compile's --preset goes with --game)."""
    sets = [a for o in overrides for a in ("--set", o)]
    if config is not None:
        extra = ["--set", f"preset={json.dumps(preset)}"] if preset is not None else []
        return [str(Path(config).resolve()), *sets, *extra]
    return ["--game", str(game), *(["--preset", preset] if preset is not None else []), *sets]


def command(args: list[str]) -> list[str]:
    """The full command line of a background build (``nice -n 19`` where there is ``nice``);
    --if-idle: it skips if another build took the lock meanwhile."""
    cmd = [sys.executable, "-m", "solverkit", "compile", "--if-idle", *args]
    nice = shutil.which("nice")
    return [nice, "-n", "19", *cmd] if nice else cmd


def spawn(cmd: list[str], log: Path) -> None:
    """Start `cmd` detached (its own session, no terminal; output appended to `log`); no wait."""
    env = {**os.environ, "SOLVERKIT_AOT_BUILD": "0"}
    with open(log, "ab") as f:
        f.write(f"\n[{time.strftime('%Y-%m-%d %H:%M:%S')}] {' '.join(cmd)}\n".encode())
        f.flush()
        subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                         start_new_session=True, close_fds=True, env=env)


def after_solve(config=None, overrides=(), game: str | None = None, preset: str | None = None,
                notice=None, spawner=spawn, configs=None, missing=None, peak_mb=None) -> str:
    """Start the background build of this run's kernels when :func:`decide` says so; `notice(line)`
    says it in one line. Returns why not ("" when started); never raises (a warning line instead).
    `configs` (config files) with `missing` and `peak_mb`: a study's runs (:func:`after_study`)."""
    try:
        directory, digest, why = decide(peak_mb, missing)
        if directory is None:
            return why
        log = directory / LOG
        args = [str(Path(c).resolve()) for c in configs] if configs else compile_args(config, overrides, game, preset)
        spawner(command(args), log)
        try:
            (directory / ATTEMPT).write_text(json.dumps({"digest": digest, "time": time.time()}))
        except OSError:
            pass
    except Exception as exc:  # noqa: BLE001 (the solve is done and its outputs written: never fail it here)
        if notice is not None:
            notice(f"warning: could not start the background build of this run's kernels: {exc}")
        return f"failed: {exc}"
    if notice is not None:
        notice(f"building this run's kernels ahead of time in the background (log: {log}); the next run {GAIN}; "
               "SOLVERKIT_AOT_BUILD=0 turns this off")
    return ""


def after_study(results: dict, out, notice=None, spawner=spawn) -> str:
    """After ``solverkit study``: the background build of the kernels its runs took from numba's
    JIT (each :class:`~solverkit.study.runs.RunResult` carries its process's, `jit_kernels`),
    made from one finished run's config.toml per assembly and game (OUT/runs/SLUG, their seeds
    share kernels). Returns why not ("" when started); never raises."""
    missing = sorted({s for r in results.values() for s in r.jit_kernels})
    if not missing:
        return "no run took a kernel from the JIT that a build could hold"
    configs, seen = [], set()
    for slug, r in results.items():
        kind = slug.rsplit("__seed", 1)[0]
        path = Path(out) / "runs" / slug / "config.toml"
        if kind not in seen and r.jit_kernels and path.exists():
            seen.add(kind)
            configs.append(path)
    if not configs:
        return "no run's config.toml to build from"
    peak = max((r.peak_rss_mb for r in results.values()), default=0.0)
    return after_solve(notice=notice, spawner=spawner, configs=configs, missing=missing, peak_mb=peak)
