"""Run a training config: MaskablePPO or MaskedDQN on the single-agent view with a self-play league.

A run directory (``output_dir``, default ``runs/<name>``) holds::

    config.yaml                 the resolved config (every key, defaults filled in)
    policy.safetensors          the final policy file (load with kakurega.agents.load)
    checkpoints/model_<N>.zip   SB3 checkpoints, for resuming only (the newest ``checkpoint.keep``)
    league/snapshot_<N>.safetensors  frozen snapshots of the self-play league
    logs/part<K>/               SB3 progress.csv and TensorBoard events (one part per resume)
                                (a first row holds the optional behaviour-cloning warm start: pretrain/*)
    eval.csv                    periodic evaluation against ``evaluation.opponent``
    evaluation/                 final evaluation: JSON, CSV, heatmaps, evaluation.txt
    plots/learning_curve.png    learning curves

No game-specific code lives here: everything comes from the registry, the
agent specs and the config.
"""

from __future__ import annotations

import csv
import functools
import json
import shutil
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path


from kakurega.agents.training.config import ConfigError, dump_config, load_config, validate_config

# keys that may change when a run is resumed (budget, logging and final report only)
RESUMABLE_CHANGES = ("total_timesteps", "logging.", "evaluation.final_", "checkpoint.keep", "vec_env")


@dataclass
class TrainResult:
    """What a finished run produced."""

    output_dir: Path
    policy_path: Path
    config: dict
    timesteps: int
    wall_seconds: float
    evaluation: list = field(default_factory=list)  #: dicts: opponent, agent, games, win_rate, CI, mean_reward...
    evaluation_table: str = ""


def make_view(env_name: str, env_kwargs: dict, opponents: list, learner_seat, illegal_action: str = "raise"):
    """One single-agent view (module-level and torch-free, so SubprocVecEnv workers start fast)."""
    from kakurega.agents.training.view import SingleAgentView

    return SingleAgentView(env_name, env_kwargs, opponents, learner_seat=learner_seat, illegal_action=illegal_action)


def make_vec_env(config: dict):
    """The VecEnv of ``config`` (n_envs views; dummy or subprocess), seeded from ``config['seed']``.

    Episode statistics come from one ``VecMonitor`` in the main process.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    factory = functools.partial(
        make_view, config["env"], config["env_kwargs"], config["opponents"], config["learner_seat"]
    )
    fns = [factory] * config["n_envs"]
    vec = SubprocVecEnv(fns) if config["vec_env"] == "subproc" else DummyVecEnv(fns)
    vec = VecMonitor(vec)
    vec.seed(config["seed"])
    return vec


def _activation(name: str):
    import torch.nn as nn

    return {"tanh": nn.Tanh, "relu": nn.ReLU}[name]


def build_model(config: dict, vec_env, logger=None):
    """A fresh MaskablePPO or MaskedDQN for ``config``."""
    hidden = list(config["network"]["hidden"])
    activation = _activation(config["network"]["activation"])
    common = dict(seed=config["seed"], device=config["device"], verbose=config["logging"]["verbose"])
    if config["algorithm"] == "ppo":
        from sb3_contrib import MaskablePPO

        model = MaskablePPO(
            "MlpPolicy",
            vec_env,
            policy_kwargs=dict(net_arch=dict(pi=hidden, vf=hidden), activation_fn=activation),
            **config["ppo"],
            **common,
        )
    else:
        from kakurega.agents.training.masked_dqn import MaskedDQN

        model = MaskedDQN(
            "MlpPolicy",
            vec_env,
            policy_kwargs=dict(net_arch=hidden, activation_fn=activation),
            **config["dqn"],
            **common,
        )
    if logger is not None:
        model.set_logger(logger)
    return model


def _load_model(config: dict, path: Path, vec_env):
    if config["algorithm"] == "ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(path, env=vec_env, device=config["device"])
    from kakurega.agents.training.masked_dqn import MaskedDQN

    return MaskedDQN.load(path, env=vec_env, device=config["device"])


def _checkpoints(directory: Path) -> list[Path]:
    return sorted(directory.glob("model_*.zip"), key=lambda p: int(p.stem.split("_")[1]))


def _config_differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    diffs = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict) and key != "env_kwargs":
            diffs += _config_differences(a, b, prefix + key + ".")
        elif a != b:
            diffs.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return diffs


# ------------------------------------------------------------------ callbacks
def _callbacks(config: dict, out: Path, start_time: float):
    from stable_baselines3.common.callbacks import BaseCallback

    from kakurega.agents.policy import PolicyAgent
    from kakurega.agents.training.export import policy_metadata, save_policy

    league_entries = {e["agent"] for e in config["opponents"]}
    uses_league = bool(league_entries & {"self", "snapshots"})
    snapshot_dir = out / "league"

    def learner_snapshot(model):
        return policy_metadata(model, config["env"], config["env_kwargs"])

    class LeagueCallback(BaseCallback):
        """Pushes the current weights to the 'self' opponents and keeps the bounded snapshot pool."""

        def _on_training_start(self) -> None:
            self._last_sync = self.num_timesteps
            self._last_snapshot = self.num_timesteps
            self._push(current=True)

        def _snapshots(self) -> list[str]:
            files = sorted(snapshot_dir.glob("snapshot_*.safetensors"), key=lambda p: int(p.stem.split("_")[1]))
            return [str(p) for p in files]

        def _push(self, current: bool) -> None:
            meta, layers = learner_snapshot(self.model)
            self.training_env.env_method(
                "set_league", current=(meta, layers) if current else None, snapshots=self._snapshots()
            )

        def _on_step(self) -> bool:
            league = config["league"]
            if league["snapshot_every"] and self.num_timesteps - self._last_snapshot >= league["snapshot_every"]:
                self._last_snapshot = self.num_timesteps
                meta, layers = learner_snapshot(self.model)
                save_policy(snapshot_dir / f"snapshot_{self.num_timesteps}.safetensors", layers, meta)
                files = self._snapshots()
                for stale in files[: max(0, len(files) - league["max_snapshots"])]:
                    Path(stale).unlink()
                self._push(current=False)
            if self.num_timesteps - self._last_sync >= league["sync_every"]:
                self._last_sync = self.num_timesteps
                self._push(current=True)
            return True

    class OutcomeCallback(BaseCallback):
        """Logs win/draw/loss rates of the last 100 training episodes and the opponent mix."""

        def _on_training_start(self) -> None:
            self.outcomes = deque(maxlen=100)

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                if done and "outcome" in info:
                    self.outcomes.append(info["outcome"])
            if self.outcomes:
                n = len(self.outcomes)
                self.logger.record("rollout/win_rate", sum(o == "win" for o in self.outcomes) / n)
                self.logger.record("rollout/draw_rate", sum(o == "draw" for o in self.outcomes) / n)
            return True

    class EvalCallback(BaseCallback):
        """Every ``evaluation.every`` steps: the current greedy policy against ``evaluation.opponent``."""

        def _on_training_start(self) -> None:
            self._last = self.num_timesteps
            self._baseline = None

        def _evaluate(self) -> None:
            from kakurega.agents.tournament import run_tournament

            evaluation = config["evaluation"]
            meta, layers = learner_snapshot(self.model)

            def learner(context, seed):
                return PolicyAgent(context, seed, layers=layers, metadata=meta, name="learner")

            opponent = evaluation["opponent"]
            result = run_tournament(
                config["env"], ["learner", opponent], config["env_kwargs"], evaluation["games"],
                evaluation["seed"], agents={"learner": learner}, focal="learner",
            )
            row = result.per_agent[0]
            if self._baseline is None:
                self._baseline = random_baseline(config, opponent, evaluation["games"])["win_rate"]
            self.logger.record("eval/win_rate", row["win_rate"])
            self.logger.record("eval/win_rate_ci_low", row["win_rate_ci95"][0])
            self.logger.record("eval/win_rate_ci_high", row["win_rate_ci95"][1])
            self.logger.record("eval/mean_reward", row["mean_reward"])
            self.logger.record("eval/random_baseline_win_rate", self._baseline)
            path = out / "eval.csv"
            new = not path.exists()
            with open(path, "a", newline="") as f:
                writer = csv.writer(f)
                if new:
                    writer.writerow(["timesteps", "wall_seconds", "opponent", "games", "win_rate", "win_rate_ci_low",
                                     "win_rate_ci_high", "mean_reward", "baseline_win_rate"])
                writer.writerow([self.num_timesteps, f"{time.perf_counter() - start_time:.1f}", opponent, row["games"],
                                 f"{row['win_rate']:.4f}", f"{row['win_rate_ci95'][0]:.4f}", f"{row['win_rate_ci95'][1]:.4f}",
                                 f"{row['mean_reward']:.4f}", f"{self._baseline:.4f}"])

        def _on_step(self) -> bool:
            every = config["evaluation"]["every"]
            if every and self.num_timesteps - self._last >= every:
                self._last = self.num_timesteps
                self._evaluate()
            return True

    class CheckpointCallback(BaseCallback):
        """SB3 .zip checkpoints every ``checkpoint.every`` steps, the newest ``checkpoint.keep`` kept."""

        def _on_training_start(self) -> None:
            self._last = self.num_timesteps

        def _on_step(self) -> bool:
            every = config["checkpoint"]["every"]
            if every and self.num_timesteps - self._last >= every:
                self._last = self.num_timesteps
                save_checkpoint(self.model, config, out)
            return True

    callbacks = [OutcomeCallback(), CheckpointCallback(), EvalCallback()]
    if uses_league:
        callbacks.insert(0, LeagueCallback())
    return callbacks


def save_checkpoint(model, config: dict, out: Path) -> Path:
    """Save an SB3 checkpoint (and the DQN replay buffer if configured), dropping the oldest ones."""
    directory = out / "checkpoints"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"model_{model.num_timesteps}.zip"
    model.save(path)
    if config["algorithm"] == "dqn" and config["checkpoint"]["save_replay_buffer"]:
        model.save_replay_buffer(directory / f"replay_{model.num_timesteps}.pkl")
    for stale in _checkpoints(directory)[: -config["checkpoint"]["keep"]]:
        stale.unlink()
        replay = directory / f"replay_{stale.stem.split('_')[1]}.pkl"
        if replay.exists():
            replay.unlink()
    return path


# ------------------------------------------------------------- final report
def final_evaluation(config: dict, policy_path: Path, out: Path, progress=None) -> tuple[list, str]:
    """The policy against each ``evaluation.final_opponents`` (and random's result on the same deals)."""
    from kakurega.agents.tournament import run_tournament

    evaluation = config["evaluation"]
    games = evaluation["final_games"]
    rows = []
    policy_spec = f"policy:{policy_path}"
    directory = out / "evaluation"
    for opponent in evaluation["final_opponents"]:
        result = run_tournament(
            config["env"], [policy_spec, opponent], config["env_kwargs"], games, evaluation["seed"],
            focal=policy_spec, progress=progress,
        )
        result.save(directory, stem=f"vs_{_slug(opponent)}")
        baseline = random_baseline(config, opponent, games, result=True)
        labelled = [("policy", result.per_agent[0]), ("random (baseline)", baseline.per_agent[0])]
        if opponent == "random":
            pass  # the random baseline is already random itself
        elif result.num_players == 1:  # solitaire: the "opponent" plays the same deals alone; show its own score
            labelled.append((f"{opponent} (itself)", result.per_agent[1]))
        else:  # the opponent in the bot's seat: the bar for "on par with it"
            labelled.append((f"{opponent} (itself)", same_agent_baseline(config, opponent, games).per_agent[0]))
        for label, summary in labelled:
            row = dict(summary)
            row.update(agent=label, opponent=opponent)
            rows.append(row)
    table = evaluation_table(config, rows)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "evaluation.json").write_text(json.dumps(rows, indent=2))
    (directory / "evaluation.txt").write_text(table + "\n")
    return rows, table


def random_baseline(config: dict, opponent: str, games: int, result: bool = False):
    """A uniformly random player against ``opponent`` on the evaluation deals (the bar to clear)."""
    from kakurega.agents.base import RandomAgent
    from kakurega.agents.tournament import run_tournament

    label = "random (baseline)"
    res = run_tournament(
        config["env"], [label, opponent], config["env_kwargs"], games, config["evaluation"]["seed"],
        agents={label: lambda context, seed: RandomAgent(context, seed)}, focal=label,
    )
    return res if result else res.per_agent[0]


def same_agent_baseline(config: dict, opponent: str, games: int):
    """``opponent`` in the focal seat against a table of itself, on the evaluation deals."""
    from kakurega.agents.specs import make_agent
    from kakurega.agents.tournament import run_tournament

    label = f"{opponent} (itself)"
    return run_tournament(
        config["env"], [label, opponent], config["env_kwargs"], games, config["evaluation"]["seed"],
        agents={label: lambda context, seed: make_agent(opponent, context, seed)}, focal=label,
    )


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in spec)[:40]


def evaluation_table(config: dict, rows: list) -> str:
    """The final evaluation as a plain-text table."""
    head = (
        f"{config['env']} {config['env_kwargs'] or ''}: {config['algorithm']} policy, "
        f"greedy, seat rotated, paired deals (seed {config['evaluation']['seed']})"
    )
    lines = [head, f"{'opponent':<14} {'agent':<18} {'games':>6} {'win rate':>9} {'95% CI':>16} {'mean reward':>12} {'95% CI':>18}"]
    for r in rows:
        lo, hi = r["win_rate_ci95"]
        rlo, rhi = r["mean_reward_ci95"]
        lines.append(
            f"{r['opponent']:<14} {r['agent']:<18} {r['games']:>6} {r['win_rate']:>9.3f} [{lo:.3f}, {hi:.3f}] "
            f"{r['mean_reward']:>12.3f} [{rlo:+.3f}, {rhi:+.3f}]"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------- train
def train(config, overrides=(), resume: bool = False, overwrite: bool = False, quiet: bool = False) -> TrainResult:
    """Train as ``config`` (a path or a dict) says; see the module docstring for what is written.

    ``resume`` continues from the newest checkpoint in the run directory up to
    ``total_timesteps``; ``overwrite`` deletes an earlier run in that directory.
    """
    if isinstance(config, (str, Path)):
        config = load_config(config, overrides)
    else:
        config = validate_config(config, overrides)
    out = Path(config["output_dir"])
    say = (lambda *a: None) if quiet else print
    checkpoint = None
    if resume:
        checkpoints = _checkpoints(out / "checkpoints")
        if not checkpoints:
            raise ConfigError(f"cannot resume: {out / 'checkpoints'} holds no checkpoint (model_<steps>.zip)")
        checkpoint = checkpoints[-1]
        import yaml

        old = yaml.safe_load((out / "config.yaml").read_text()) if (out / "config.yaml").exists() else config
        blocking = [d for d in _config_differences(old, config) if not d.startswith(RESUMABLE_CHANGES)]
        if blocking:
            raise ConfigError(
                "cannot resume with a different config (only the budget, logging and final evaluation may change): "
                + "; ".join(blocking)
            )
    elif out.exists() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(
                f"{out} already holds a run; pass resume to continue it (--resume), overwrite to replace it "
                "(--overwrite), or choose another output_dir"
            )
        if not (out / "config.yaml").exists():
            raise ConfigError(f"refusing to overwrite {out}: it does not look like a kakurega run (no config.yaml)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(dump_config(config))

    import torch
    from stable_baselines3.common.logger import configure

    from kakurega.agents.training.export import policy_metadata

    if config["torch_threads"]:
        torch.set_num_threads(config["torch_threads"])
    parts = sorted(int(p.name[4:]) for p in (out / "logs").glob("part*") if p.name[4:].isdigit())
    part = (parts[-1] + 1) if parts else 0
    formats = ["csv"] + (["tensorboard"] if config["logging"]["tensorboard"] else []) + (["stdout"] if config["logging"]["verbose"] else [])
    logger = configure(str(out / "logs" / f"part{part}"), formats)

    vec_env = make_vec_env(config)
    start = time.perf_counter()
    cpu_start = time.process_time()
    try:
        if checkpoint is not None:
            model = _load_model(config, checkpoint, vec_env)
            model.set_logger(logger)
            replay = checkpoint.with_name(f"replay_{checkpoint.stem.split('_')[1]}.pkl")
            if config["algorithm"] == "dqn" and replay.exists():
                model.load_replay_buffer(replay)
            say(f"resuming {out} from {checkpoint.name} ({model.num_timesteps} steps)")
        else:
            model = build_model(config, vec_env, logger)
            if config["pretrain"]["steps"]:
                from kakurega.agents.training.pretrain import behaviour_cloning, demonstrations

                pretrain = config["pretrain"]
                data, reused = demonstrations(config, progress=config["logging"]["progress_bar"] and not quiet)
                if reused:
                    say(f"reusing the demonstrations in {pretrain['data']}")
                stats = behaviour_cloning(model, data, pretrain["epochs"], pretrain["batch_size"],
                                          pretrain["learning_rate"], config["seed"], pretrain["value_coef"])
                for key, value in (("samples", stats["samples"]), ("accuracy", stats["accuracy"]), ("loss", stats["loss"]),
                                   ("demonstrator_win_rate", data["win_rate"])):
                    logger.record(f"pretrain/{key}", value)
                logger.dump(0)
                say(f"learned from {stats['samples']} moves of {pretrain['agent']} ({data['episodes']} games, "
                    f"it won {data['win_rate']:.0%}): action accuracy {stats['accuracy']:.0%}")
        if {e["agent"] for e in config["opponents"]} & {"self", "snapshots"}:
            # before learn(): SB3 resets the envs (opponents may move first) before any callback runs
            meta, layers = policy_metadata(model, config["env"], config["env_kwargs"])
            snapshots = sorted((out / "league").glob("snapshot_*.safetensors"), key=lambda p: int(p.stem.split("_")[1]))
            vec_env.env_method("set_league", current=(meta, layers), snapshots=[str(p) for p in snapshots])
        remaining = config["total_timesteps"] - model.num_timesteps
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=_callbacks(config, out, start),
                progress_bar=config["logging"]["progress_bar"] and not quiet,
                reset_num_timesteps=checkpoint is None,
                log_interval=1 if config["algorithm"] == "ppo" else 100,
            )
        save_checkpoint(model, config, out)
        from kakurega.agents.training.export import export_policy

        policy_path = export_policy(
            model, out / "policy.safetensors", config["env"], config["env_kwargs"],
            extra={"config_name": config["name"], "wall_seconds_training": round(time.perf_counter() - start, 1)},
        )
        timesteps = int(model.num_timesteps)
    finally:
        vec_env.close()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    say(f"trained {timesteps} steps in {wall:.0f}s (CPU time of this process: {cpu:.0f}s); policy: {policy_path}")
    result = TrainResult(out, policy_path, config, timesteps, wall)
    if config["evaluation"]["final_games"]:
        result.evaluation, result.evaluation_table = final_evaluation(config, policy_path, out)
        say(result.evaluation_table)
    from kakurega.agents.training.plots import plot_learning_curves

    plot = plot_learning_curves(out)
    if plot:
        say(f"learning curves: {plot}")
    (out / "summary.json").write_text(
        json.dumps({"timesteps": timesteps, "wall_seconds_training": round(wall, 1), "cpu_seconds_training": round(cpu, 1),
                    "wall_seconds_total": round(time.perf_counter() - start, 1), "policy": str(policy_path),
                    "evaluation": result.evaluation}, indent=2)
    )
    return result
