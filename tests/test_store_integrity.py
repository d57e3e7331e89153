"""Store integrity (issue 15): every silent wrong answer of the stored state becomes a refusal.

Self-describing value frames and checkpoints (resume under changed settings is refused, one
line naming the setting and both values, nothing in the run changes), segment files that name
their run and segment, the store directory lock, type- and range-checked checkpoint footers;
fuzzed with hypothesis. SOLVERKIT_FUZZ_EXAMPLES sets the fuzz examples (CI: a few dozen; a
longer run: e.g. 2000).

Over 500 lines on purpose: one promise (a stored state is refused rather than misread),
checked on every stored format with one set of corrupting fixtures.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tomllib
import zlib

import msgpack
import numpy as np
import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solverkit.core.checkpoint as ckpt
from solverkit.cli import cli
from solverkit.core.codec import CorruptSegment, Grid, ValueCodec
from solverkit.core.config import load_config
from solverkit.core.diskstore import DiskBackend, DiskStoreError
from solverkit.core.params import spec_of
from solverkit.core.solver import make_store, metric_columns, run_solve
from solverkit.core.store import SegmentSpec, Store, new_run_id
from solverkit.errors import SolverkitError
from solverkit_compressors.blosc2 import Blosc2Compressor
from solverkit_compressors.zlib import ZlibCompressor

FUZZ = int(os.environ.get("SOLVERKIT_FUZZ_EXAMPLES", "40"))
fuzz = settings(max_examples=FUZZ, deadline=None, suppress_health_check=list(HealthCheck))

KUHN = """preset = "cfr_plus"
game = "kuhn"

[rule]
name = "dcfr_plus"
alpha = 1.5

[compressor]
name = "blosc2"

[store]
regret_scale = 64
avg_scale = 64

[solver]
iterations = 6
eval_every = 1
"""


def make(cls, **params):
    return cls(**spec_of(cls).resolve(params, cls.name))


def digest(directory):
    """Every file under `directory` and a hash of its bytes."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def one_line_error(res):
    """The CLI's refusal: exit status 2, one line ``Error: ...``, no traceback."""
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert err.startswith("Error: ") and "\n" not in err and "Traceback" not in res.output, err
    return err


def resume(out, *args):
    return CliRunner().invoke(cli, ["solve", "--resume", str(out), "--quiet", *args])


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("base")
    cfg = root / "kuhn.toml"
    cfg.write_text(KUHN)
    run_solve(load_config(cfg), out=root / "run", checkpoint_every="3")
    return root / "run"


@pytest.fixture
def run(base_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(base_run, out)
    return out


def edit_config(out, **tables):
    """Change DIR/config.toml: `tables` maps a table to the keys to set (None: delete the key),
    or to a whole new table (a dict with key "__table__")."""
    path = out / "config.toml"
    conf = tomllib.loads(path.read_text())
    for table, changes in tables.items():
        if "__table__" in changes:
            conf[table] = changes["__table__"]
            continue
        for k, v in changes.items():
            if v is None:
                conf[table].pop(k, None)
            else:
                conf[table][k] = v
    path.write_text(tomli_w.dumps(conf))


# --- resume under another config --------------------------------------------------------------

REFUSED = [
    ({"store": {"regret_scale": [32.0]}}, "[store] regret_scale is [32.0]", "[64.0]"),
    ({"store": {"avg_scale": [16.0]}}, "[store] avg_scale is [16.0]", "[64.0]"),
    ({"store": {"state_scale": [8.0]}}, "[store] state_scale is [8.0]", "[]"),
    ({"store": {"predictor": "gradient"}}, '[store] predictor is "gradient"', '"west"'),
    ({"rule": {"alpha": 2.0}}, "[rule] alpha is 2.0", "1.5"),
    ({"rule": {"__table__": {"name": "rm_plus"}}}, '[rule] name is "rm_plus"', '"dcfr_plus"'),
    ({"averaging": {"__table__": {"name": "uniform"}}}, '[averaging] name is "uniform"', '"linear"'),
    ({"solver": {"update": "simultaneous"}}, '[solver] update is "simultaneous"', '"alternating"'),
    ({"solver": {"first_update": 1}}, "[solver] first_update is 1", "0"),
    ({"solver": {"seed": 7}}, "[solver] seed is 7", "0"),
    ({"solver": {"eval_current": True}}, "[solver] eval_current is true", "false"),
    ({"compressor": {"codec": "lz4"}}, '[compressor] codec is "lz4"', '"zstd"'),
    ({"compressor": {"__table__": {"name": "zlib"}}}, '[compressor] name is "zlib"', '"blosc2"'),
]


@pytest.mark.parametrize("edit, configured, stored", REFUSED, ids=[next(iter(e)) + "." + next(iter(next(iter(e.values()))))
                                                                  for e, _, _ in REFUSED])
def test_resume_under_a_changed_setting_is_refused(run, edit, configured, stored):
    edit_config(run, **edit)
    before = digest(run)
    err = one_line_error(resume(run, "--iterations", "9"))
    assert configured in err and f"the checkpoint was written with {stored}" in err, err
    assert "start a new run" in err and str(run / "config.toml") in err
    assert digest(run) == before  # nothing of the run changed


def test_settings_that_may_change_on_resume(run, tmp_path):
    edit_config(run, solver={"eval_every": 2, "checkpoint_every": "2", "target": 1e-9},
                store={"backend": "disk", "path": str(tmp_path / "elsewhere"), "prefetch": 1},
                transport={"threads": 1}, compressor={"threads": 2})
    res = resume(run, "--iterations", "9")
    assert res.exit_code == 0, res.output
    assert ckpt.read_footer(run / ckpt.FILENAME)["iteration"] == 9
    assert any((tmp_path / "elsewhere").glob("*.skseg"))


def test_a_resumed_run_keeps_its_run_id(run):
    first = ckpt.read_footer(run / ckpt.FILENAME)["run"]
    assert resume(run, "--iterations", "9").exit_code == 0
    footer = ckpt.read_footer(run / ckpt.FILENAME)
    assert footer["run"] == first and footer["iteration"] == 9
    assert footer["assembly"]["solver"]["iterations"] == 9 and footer["assembly"]["rule"]["alpha"] == 1.5


# --- checkpoint footers -----------------------------------------------------------------------


def rewrite_footer(path, change):
    """Apply `change` to checkpoint `path`'s footer and write it back with a valid checksum."""
    data = path.read_bytes()
    tail = ckpt._TAIL.size + len(ckpt.END)
    _, flen = ckpt._TAIL.unpack_from(data, len(data) - tail)
    start = len(data) - tail - flen
    footer = msgpack.unpackb(data[start: start + flen], strict_map_key=False)
    change(footer)
    raw = msgpack.packb(footer)
    path.write_bytes(data[:start] + raw + ckpt._TAIL.pack(zlib.crc32(raw), len(raw)) + ckpt.END)


def setter(*keys, value):
    def change(footer):
        node = footer
        for k in keys[:-1]:
            node = node[k]
        if value is _DELETE:
            del node[keys[-1]]
        else:
            node[keys[-1]] = value
    return change


_DELETE = object()

BAD_FOOTERS = [
    (("iteration",), -5, "footer field iteration = -5 is invalid: expected an integer >= 0"),
    (("iteration",), 1_000_000, "iteration = 1000000 is invalid: expected at most the 6 iterations"),
    (("iteration",), "6", "iteration = '6' is invalid"),
    (("iteration",), True, "iteration = True is invalid"),
    (("seconds",), float("nan"), "seconds = nan is invalid: expected a finite number >= 0"),
    (("seconds",), -1.0, "seconds = -1.0 is invalid"),
    (("seconds",), [1], "seconds = [1] is invalid"),
    (("saturated",), -1, "saturated = -1 is invalid: expected an integer >= 0"),
    (("saturated",), 2.5, "saturated = 2.5 is invalid"),
    (("metrics",), "rows", "metrics = 'rows' is invalid: expected a list of metrics rows"),
    (("metrics", 0), 7, "metrics[0] = 7 is invalid: expected a map"),
    (("metrics", 0, "exploitability"), "x", "metrics[0].exploitability = 'x' is invalid: expected a number"),
    (("metrics", 0, "br_0"), _DELETE, "expected a row with column 'br_0'"),
    (("metrics", 5, "iteration"), 60, "metrics[5].iteration = 60 is invalid"),
    (("metrics", 1, "iteration"), 1, "metrics[1].iteration = 1 is invalid: expected an integer after the previous"),
    (("metrics", 0, "seconds"), 1e9, "metrics[0].seconds = 1000000000.0 is invalid"),
    (("segments",), {}, "segments = {} is invalid"),
    (("segments", 0, 1, 0, 1), 10**9, "segments = '"),
    (("segments", 0, 1, 0, 1), 3, "segments[0][0] = ["),
    (("segments", 0, 0), 5, "segments[0] = [5, "),
    (("run",), "not-a-run", "run = 'not-a-run' is invalid: expected a run id of 32 hex digits"),
    (("assembly",), None, "assembly = None is invalid"),
    (("assembly", "solver", "iterations"), -3, "assembly.solver.iterations = -3 is invalid"),
    (("game",), {"name": "kuhn", "split_round": 1}, "game = {"),
    (("evil",), 1, "footer field 'evil' = 1 is invalid: expected only the fields"),
    (("metrics",), _DELETE, "footer field metrics is missing"),
]


@pytest.mark.parametrize("keys, value, message", BAD_FOOTERS, ids=[".".join(map(str, k)) + f"={v!r:.12}"
                                                                  for k, v, _ in BAD_FOOTERS])
def test_footers_with_a_valid_checksum_and_bad_fields_are_refused(run, keys, value, message):
    rewrite_footer(run / ckpt.FILENAME, setter(*keys, value=value))
    before = digest(run)
    err = one_line_error(resume(run, "--iterations", "9"))
    assert str(run / ckpt.FILENAME) in err and message in err, err
    assert digest(run) == before


def test_metrics_columns_must_match_the_run(run):
    rewrite_footer(run / ckpt.FILENAME, setter("metrics", 2, "extra", value=1.0))
    err = one_line_error(resume(run, "--iterations", "9"))
    assert "footer field metrics[2] has columns" in err and "'extra'" in err


def test_payloads_of_another_run_are_refused(run):
    rewrite_footer(run / ckpt.FILENAME, setter("run", value="0" * 32))
    err = one_line_error(resume(run, "--iterations", "9"))
    assert "the frame belongs to run id" in err and repr("0" * 32) in err


def test_a_checkpoint_of_an_older_format_says_so(run):
    rewrite_footer(run / ckpt.FILENAME, setter("version", value=1))
    err = one_line_error(resume(run, "--iterations", "9"))
    assert "checkpoint format version 1; this solverkit reads version 2 (written by an older solverkit" in err


anything = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**64 - 1), st.floats(), st.text(max_size=20),
              st.binary(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=8,
)


def _paths(footer):
    """Every place in a footer a fuzzed value may go: fields, metrics cells, index entries."""
    out = [(k,) for k in footer] + [("new",)]
    out += [("metrics", i, c) for i, row in enumerate(footer["metrics"]) for c in row]
    out += [("metrics", i) for i in range(len(footer["metrics"]))]
    for i, (_, arrays) in enumerate(footer["segments"]):
        out += [("segments", i), ("segments", i, 0)] + [("segments", i, 1, j, x) for j in range(len(arrays))
                                                        for x in (0, 1)]
    out += [("assembly", t) for t in footer["assembly"]] + [("assembly", "solver", "iterations")]
    return out


@pytest.fixture(scope="module")
def footer_paths(base_run):
    return _paths(ckpt.read_footer(base_run / ckpt.FILENAME))


@fuzz
@given(data=st.data())
def test_fuzzed_footers_are_refused_in_one_line_or_load(base_run, footer_paths, tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fz") / ckpt.FILENAME
    shutil.copy(base_run / ckpt.FILENAME, path)
    keys = data.draw(st.sampled_from(footer_paths))
    value = data.draw(anything)
    try:
        rewrite_footer(path, setter(*keys, value=value))
    except (TypeError, ValueError, OverflowError):  # not representable in msgpack
        return
    asm = load_config(base_run / "config.toml")
    store = make_store(asm)
    try:
        ckpt.check_resume(path, ckpt.read_footer(path), asm.resolved)  # what --resume checks first
        ckpt.read_checkpoint(path, store, asm.resolved["game"], metric_columns(asm.game))
    except ckpt.CheckpointError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    finally:
        store.close()


# --- value frames -----------------------------------------------------------------------------

GRID = Grid.flat(64)
X = np.linspace(-3.0, 5.0, 64)


def codec(scale=16.0, predictor="west", comp=ZlibCompressor):
    return ValueCodec(make(comp), {"regret": [scale, 2 * scale], "avg": [4.0]}, predictor=predictor)


def test_a_frame_records_how_it_was_written():
    run = new_run_id()
    c = codec()
    payload = c.encode(X, GRID, "regret", "sub/3", "regret0", run)
    d = c.describe(payload, "x")
    assert (d["run"], d["seg"], d["arr"], d["pred"], d["comp"], d["scale"]) == \
        (run, "sub/3", "regret0", "west", "zlib", [16.0, 32.0])
    np.testing.assert_array_equal(c.decode(payload, GRID, "regret", "x", None, "sub/3", "regret0", run),
                                  np.rint(X * 16.0) / 16.0)


@pytest.mark.parametrize("other, message", [
    (lambda: codec(scale=32.0), "written with fixed-point factors [16.0, 32.0] per round, the store is configured "
                                "for [32.0, 64.0] ([store] regret_scale"),
    (lambda: codec(predictor="gradient"), "written with predictor 'west', the store is configured with 'gradient'"),
    (lambda: codec(comp=Blosc2Compressor), "written with compressor 'zlib', the store is configured with 'blosc2'"),
    (lambda: ValueCodec(make(ZlibCompressor)), "holds fixed-point int32 values but the store is configured for float64"),
])
def test_a_frame_read_with_other_settings_is_refused(other, message):
    payload = codec().encode(X, GRID, "regret", "a", "regret0", new_run_id())
    with pytest.raises(CorruptSegment, match="segment 'a' array 'regret0': ") as exc:
        other().decode(payload, GRID, "regret", "segment 'a' array 'regret0'")
    assert message in str(exc.value)


@pytest.mark.parametrize("field, value", [(5, "b"), (6, "regret1"), (7, "0" * 32)])
def test_a_frame_of_another_segment_array_or_run_is_refused(field, value):
    run = "f" * 32
    c = codec()
    payload = c.encode(X, GRID, "regret", "a", "regret0", run)
    want = ["a", "regret0", run]
    want[field - 5] = value
    what = ["segment", "array", "run id"][field - 5]
    with pytest.raises(CorruptSegment, match=f"the frame belongs to {what} "):
        c.decode(payload, GRID, "regret", "w", None, *want)


def test_an_older_frame_says_so():
    body = X.tobytes()
    old = struct.pack("<3sBBQI", b"SKV", 1, 0, X.size, zlib.crc32(body)) + body
    with pytest.raises(CorruptSegment, match=r"w: value frame version 1 \(written by an older solverkit.*start a new run"):
        codec().decode(old, GRID, "avg", "w")


@fuzz
@given(data=st.data())
def test_fuzzed_frames_are_refused(data):
    c = codec(comp=data.draw(st.sampled_from([ZlibCompressor, Blosc2Compressor])))
    fam = data.draw(st.sampled_from(["regret", "avg"]))
    payload = bytearray(c.encode(X, GRID, fam, "a", "regret0", "1" * 32))
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(payload) - 1))
        payload[i] ^= data.draw(st.integers(1, 255))
    else:
        del payload[data.draw(st.integers(0, len(payload) - 1)):]
    with pytest.raises(CorruptSegment) as exc:
        c.decode(bytes(payload), GRID, fam, "w", None, "a", "regret0", "1" * 32)
    assert "\n" not in str(exc.value) and str(exc.value).startswith("w: ")


# --- segment files and the store directory ----------------------------------------------------

SPECS = [SegmentSpec("a", {"regret0": 40, "avg0": 40}), SegmentSpec("b", {"regret0": 30, "avg0": 30})]


def disk_store(path, run=None):
    return Store(SPECS, codec(), DiskBackend(path), run_id=run)


def fill(store):
    for key in store.specs:
        with store.open(key) as seg:
            for name in store.specs[key].arrays:
                seg[name][:] = np.arange(seg[name].size) * 0.25
    store.flush()


def read_all(store, key):
    seg = store.read(key)
    return {n: seg[n].copy() for n in seg}


def reader_of(path, run, files):
    """A store of run `run` told that its segments are `files` (as if it had written them)."""
    store = disk_store(path, run)
    store.backend._files.update(files)
    return store


@pytest.fixture
def written(tmp_path):
    store = disk_store(tmp_path / "s")
    fill(store)
    files = dict(store.backend._files)
    run = store.run_id
    store.close()
    return run, files


def test_swapped_segment_files_are_refused(written, tmp_path):
    run, files = written
    reader = reader_of(tmp_path / "r", run, {"a": files["b"], "b": files["a"]})
    with pytest.raises(DiskStoreError, match=rf"{files['b']}: holds segment 'b', expected segment 'a'"):
        read_all(reader, "a")
    reader.close()


def test_a_segment_file_of_another_run_is_refused(written, tmp_path):
    run, files = written
    other = new_run_id()
    reader = reader_of(tmp_path / "r", other, files)
    with pytest.raises(DiskStoreError, match=rf"{files['a']}: written by run '{run}', expected run '{other}'"):
        read_all(reader, "a")
    reader.close()


def test_an_older_segment_file_says_so(written, tmp_path):
    run, files = written
    files["a"].write_bytes(b"SKSEG1\n" + files["a"].read_bytes()[7:])
    reader = reader_of(tmp_path / "r", run, files)
    with pytest.raises(DiskStoreError, match="a segment file of an older solverkit"):
        read_all(reader, "a")
    reader.close()


@fuzz
@given(data=st.data())
def test_fuzzed_segment_files_are_refused(written, tmp_path_factory, data):
    run, files = written
    key = data.draw(st.sampled_from(["a", "b"]))
    raw = bytearray(files[key].read_bytes())
    how = data.draw(st.sampled_from(["flip", "truncate", "append"]))
    if how == "flip":
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] ^= data.draw(st.integers(1, 255))
    elif how == "truncate":
        del raw[data.draw(st.integers(0, len(raw) - 1)):]
    else:
        raw += data.draw(st.binary(min_size=1, max_size=8))
    where = tmp_path_factory.mktemp("seg")
    bad = where / "bad.skseg"
    bad.write_bytes(bytes(raw))
    reader = reader_of(where / "r", run, {**files, key: bad})
    try:
        with pytest.raises(SolverkitError) as exc:
            read_all(reader, key)
        assert "\n" not in str(exc.value)
    finally:
        reader.close()


def test_a_store_directory_is_locked_while_in_use(tmp_path):
    first = disk_store(tmp_path / "s")
    with pytest.raises(DiskStoreError) as exc:
        disk_store(tmp_path / "s")
    msg = str(exc.value)
    assert f"[store] path {str(tmp_path / 's')!r} is in use by another run (pid {os.getpid()} on host" in msg
    assert f"run {first.run_id}" in msg and "give this run its own [store] path" in msg
    first.close()
    disk_store(tmp_path / "s").close()  # free again once closed


def test_the_lock_of_a_killed_run_does_not_block(tmp_path):
    code = ("import sys, time; from solverkit.core.diskstore import DiskBackend; "
            "b = DiskBackend(sys.argv[1], run_id='ab' * 16); print('locked', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "s")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(DiskStoreError, match=rf"in use by another run \(pid {proc.pid} on host .*, run {'ab' * 16}"):
            DiskBackend(tmp_path / "s")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    DiskBackend(tmp_path / "s").close()


def test_a_second_run_on_a_store_path_in_use_is_refused(tmp_path):
    held = DiskBackend(tmp_path / "shared", run_id="cd" * 16)
    cfg = tmp_path / "kuhn.toml"
    cfg.write_text(KUHN.replace("avg_scale = 64", f'avg_scale = 64\nbackend = "disk"\npath = "{tmp_path / "shared"}"'))
    try:
        res = CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(tmp_path / "out"), "--quiet"])
        err = one_line_error(res)
        assert f"[store] path {str(tmp_path / 'shared')!r} is in use by another run (pid {os.getpid()}" in err
        assert f"run {'cd' * 16}" in err
        assert not (tmp_path / "out" / "config.toml").exists()
    finally:
        held.close()


# --- the docs say what the code does -----------------------------------------------------------

DOCS = os.path.join(os.path.dirname(__file__), "..", "docs")


def _doc(name):
    with open(os.path.join(DOCS, name)) as fh:
        return fh.read()


def test_formats_doc_lists_every_footer_field():
    text = _doc("formats.md")
    start = text.index("### Checkpoint footer")
    section = text[start: text.index("\n## ", start)]  # up to the next section (distributed parts follow)
    assert tuple(re.findall(r"(?m)^\| `(\w+)` \|", section)) == ckpt.FOOTER_FIELDS
    assert f"format version {ckpt.VERSION}" in text and "frame version 2" in text


def test_config_doc_lists_what_may_change_on_resume():
    text = _doc("config.md")
    section = text[text.index("## Resuming a run"): text.index("## Errors")]
    may = " ".join(row.split(" | ")[0] for row in re.findall(r"(?m)^\| (.+) \|$", section)[2:])
    for entry in ckpt.MAY_CHANGE:
        table, key = entry.split(".")
        assert f"`[{table}]`" in may, entry
        assert (f"`[{table}]` (every key" in may) if key == "*" else f"`{key.replace('*', 'K')}`" in may, entry


def test_a_fixed_point_factor_under_which_everything_rounds_to_zero_is_refused(tmp_path):
    """regret_scale = 1e-300 used to run to the end learning nothing (exit 0)."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve
    from solverkit.errors import ConfigError

    base = {"preset": "cfr_plus", "game": {"name": "leduc"}, "compressor": {"name": "zlib"}}
    for store, key in (({"regret_scale": [1e-300], "avg_scale": [64.0]}, "regret_scale"),
                       ({"regret_scale": [64.0], "avg_scale": [1e-12]}, "avg_scale")):
        with pytest.raises(ConfigError, match=rf"\[store\] {key} is too small: .* rounds to 0"):
            run_solve(load_config({**base, "store": store}), iterations=20)
    # a coarse factor that still registers runs
    assert run_solve(load_config({**base, "store": {"regret_scale": [1.0], "avg_scale": [1.0]}}),
                     iterations=5).exploitability > 0
