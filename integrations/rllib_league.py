"""The self-play league of a Ray run: the SB3 backend's schedule, with weights shipped to the env runners as data.

Every env of every env runner keeps an :class:`~kakurega.agents.training.league.OpponentPool`
(inside :class:`~kakurega.integrations.rllib.KakuregaMultiAgentEnv`). The
driver pushes the learner's weights for ``self`` when the step count crosses a
multiple of ``league.sync_every``, and writes a frozen snapshot
(``league/snapshot_<N>.safetensors``, the newest ``league.max_snapshots``
kept) at multiples of ``league.snapshot_every``; the snapshots travel as
``(metadata, layers)``, never as paths, so runners on other nodes need no
shared file system. Snapshots already in the run (a resumed run) are pushed
at the start.
"""

from __future__ import annotations

from pathlib import Path

from kakurega.agents.policy import read_policy
from kakurega.agents.training.export import policy_metadata, save_policy
from kakurega.agents.training.league import LEAGUE_ENTRIES


class League:
    """Snapshots and weight pushes of one run (a no-op when the pool has no ``self`` or ``snapshots`` entry)."""

    def __init__(self, config: dict, out: Path, algo):
        self.config, self.algo = config, algo
        self.directory = out / "league"
        self.active = bool({entry["agent"] for entry in config["opponents"]} & set(LEAGUE_ENTRIES))

    def start(self, model) -> None:
        """Push the current weights and the run's snapshots before the first game is dealt."""
        if self.active:
            self._push(current=self._weights(model), snapshots=self._snapshots())

    def after_iteration(self, last: int, steps: int, model) -> None:
        """Write a snapshot and push weights for every schedule crossed between ``last`` and ``steps``."""
        from kakurega.agents.training.trainer import _crossed

        if not self.active:
            return
        league = self.config["league"]
        if _crossed(last, steps, league["snapshot_every"]):
            meta, layers = self._weights(model)
            self.directory.mkdir(exist_ok=True)
            save_policy(self.directory / f"snapshot_{steps}.safetensors", layers, meta)
            files = self._files()
            for stale in files[: max(0, len(files) - league["max_snapshots"])]:
                stale.unlink()
            self._push(snapshots=self._snapshots())
        if _crossed(last, steps, league["sync_every"]):
            self._push(current=self._weights(model))

    def _weights(self, model) -> tuple[dict, list]:
        return policy_metadata(model, self.config["env"], self.config["env_kwargs"])

    def _files(self) -> list[Path]:
        return sorted(self.directory.glob("snapshot_*.safetensors"), key=lambda p: int(p.stem.split("_")[1]))

    def _snapshots(self) -> dict:
        return {str(path): read_policy(path) for path in self._files()}

    def _push(self, current=None, snapshots=None) -> None:
        def update(runner):
            for env in getattr(getattr(runner, "env", None), "envs", ()):
                env.unwrapped.set_league(current=current, snapshots=snapshots)

        self.algo.env_runner_group.foreach_env_runner(update)
