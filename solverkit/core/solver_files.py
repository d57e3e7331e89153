"""The Solver's files: checkpoints (whole or in parts), a distributed strategy, and rolling back to a checkpoint (a Solver mixin)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .checkpoint import PARTS_DIR, parts_dir, read_checkpoint, write_checkpoint
from .identity import identity_fields
from .metrics import metric_columns
from .parts import remove_stale, write_part


def _tag(iteration: int) -> str:
    """The file-name tag of a checkpoint's or strategy's parts: its iteration and a random suffix
    (a checkpoint redone after a rollback never overwrites parts that a manifest names)."""
    import secrets

    return f"{iteration:09d}-{secrets.token_hex(4)}"


class SolverFiles:
    """Checkpoints and strategy parts of a Solver. Needs ``assembly``, ``resolved``, ``game``,
    ``store``, ``values``, ``iteration``, ``solve_seconds``, ``nodes_touched``, ``output_kind``,
    ``eval_current``, ``_part_files`` and ``_confirmed``."""

    def save_checkpoint(self, path, metrics) -> int:
        """Write the store and the loop's state to `path` atomically; returns bytes written."""
        self.values.flush()
        state = {
            "assembly": self.resolved,
            "game": self.assembly.resolved["game"],
            **identity_fields(self.game),
            "iteration": self.iteration,
            "seconds": self.solve_seconds,
            "nodes_touched": self.nodes_touched,
            "metrics": metrics,
            "saturated": self.values.saturated_values(),
        }
        game_state = self.game.checkpoint_state()
        if game_state:
            state["game_state"] = game_state
        if not self.distributed:
            return write_checkpoint(path, self.values, state)
        # every owner writes and fsyncs its part first; the manifest's rename makes them count
        parts = self.values.save_parts(_tag(self.iteration), self.iteration, self._part_files["checkpoint"])
        size = write_checkpoint(path, self.values, state, parts)
        self._part_files["checkpoint"] = [part["file"] for part in parts]
        remove_stale(parts_dir(path), self._part_files["checkpoint"], "*.skp")
        return size

    @property
    def distributed(self) -> bool:
        """Whether the transport's owners write their own parts of checkpoints and strategy."""
        return bool(getattr(self.values, "distributed", False))

    def save_strategy_parts(self, path) -> None:
        """The output strategy as parts: every worker writes its segments' policies, then this
        process its own segments' into manifest `path` (OUT/strategy.skm), which names them all."""
        kind = self.output_kind
        parts = self.values.strategy_parts(_tag(self.iteration), self.iteration, kind, self._part_files["strategy"])
        remote = {s for part in parts for s in part["segments"]}

        def entries():
            for seg in self.store.specs:
                if seg not in remote:
                    yield seg, {f"policy{p}": np.ascontiguousarray(self.game.segment_policy(self.store, seg, kind, p),
                                                                   dtype="<f8") for p in (0, 1)}

        write_part(path, "strategy", entries(), self.store.run_id, self.iteration, "trunk", strategy=kind,
                   game=self.assembly.resolved["game"], parts=parts, **identity_fields(self.game))
        self._part_files["strategy"] = [part["file"] for part in parts]
        remove_stale(Path(path).parent / PARTS_DIR, self._part_files["strategy"], "*.sks")

    def load_checkpoint(self, path) -> list[dict]:
        """Restore the store and iteration count from `path`; return the metrics rows saved."""
        state = read_checkpoint(path, self.values, self.assembly.resolved["game"],
                                metric_columns(self.game, self.eval_current), game=self.game)
        self.iteration = int(state["iteration"])
        self.solve_seconds = float(state["seconds"])
        self.nodes_touched = state.get("nodes_touched")
        # the count so far is this process's; workers count from zero and add theirs
        self.store.codec.saturated = int(state.get("saturated", 0))
        self.game.restore_checkpoint_state(dict(state.get("game_state") or {}))
        self._part_files["checkpoint"] = [part["file"] for part in state.get("parts") or ()]
        return list(state.get("metrics", []))

    def rollback(self, path) -> list[dict]:
        """Put every segment (the trunk's and the workers') back as checkpoint `path` holds it,
        or as a new run has it (None: zeros, iteration 0), after a transport lost a worker;
        return the metrics rows of that point (what `--resume` does, in this process)."""
        self._confirmed = None  # a confirmation of an iteration that is redone says nothing
        if path is not None:
            return self.load_checkpoint(path)
        for key in self.values.specs:
            self.values.restore(key, self.store.zero_payloads(key))
        self.iteration = 0
        self.solve_seconds = 0.0
        self.nodes_touched = None
        self.store.codec.saturated = 0
        self.game.restore_checkpoint_state({})
        return []

