"""Run a training config: MaskablePPO or MaskedDQN on the single-agent view with a self-play league.

A run directory (``output_dir``, default ``runs/<name>``) holds::

    .kakurega-run.json          the manifest: marks the directory as a run (``--overwrite`` needs it)
    .kakurega-lock              held while a process writes the run (its PID)
    config.yaml                 the resolved config (every key, defaults filled in)
    policy.safetensors          the final policy file (load with kakurega.agents.load)
    checkpoints/step_<N>/       checkpoints for resuming: safetensors and JSON, checksummed
                                (the newest ``checkpoint.keep``; see agents/training/checkpoint.py)
    league/snapshot_<N>.safetensors  frozen snapshots of the self-play league
    logs/part<K>/               SB3 progress.csv and TensorBoard events (one part per resume)
                                (a first row holds the optional behaviour-cloning warm start: pretrain/*)
    eval.csv                    periodic evaluation against ``evaluation.opponent``: each row the policy as
                                trained up to its step (:class:`Evaluations`)
    evaluation/                 final evaluation: JSON, CSV, heatmaps, evaluation.txt
    plots/learning_curve.png    learning curves

A run is crash-consistent: checkpoints are written atomically, ``--resume``
takes the newest one that verifies and first cuts every CSV row and league
snapshot written after it (:mod:`~kakurega.agents.training.run_dir`), and
Ctrl-C saves a checkpoint before it stops (PPO within a rollout or its update: the
one of the rollout's start, :class:`RolloutMark`; a new run stopped before its first
checkpoint removes what it wrote instead). A resume restores the weights, the
optimizer, the counters, the global RNGs and the episode statistics of the last
100 games (``rollout/*``), and saves, evaluates and snapshots on the same
absolute steps, but it does not replay the games: the games under way at the
checkpoint are dropped and the envs are seeded afresh from ``seed`` and the step
(:func:`resume_env_seed`), so the resumed run deals new games, neither those it
started with nor, exactly, those an uninterrupted run would have dealt (a DQN
run resumed without its replay buffer refills it before it learns again: see
:mod:`~kakurega.agents.training.masked_dqn`). A symbolic link or a FIFO among the
entries above is refused before anything is read or written, and a full disk
or a read-only place stops the run with a :class:`~kakurega.agents.training.run_dir.RunWriteError`
naming the file and the checkpoints that are intact. No game-specific code lives here:
everything comes from the registry, the agent specs and the config.
"""

from __future__ import annotations

import copy
import functools
import json
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from kakurega.agents.training import checkpoint as checkpoints
from kakurega.agents.training import run_dir
from kakurega.agents.training.config import SCHEMA, ConfigError, Key, dump_config, load_config, validate_config

# keys that may change when a run is resumed (budget, logging, final report, where the run lives, where its
# demonstration games are played)
RESUMABLE_CHANGES = (
    "total_timesteps", "logging.", "evaluation.final_", "checkpoint.keep", "checkpoint.sb3_zip", "vec_env", "output_dir",
    "pretrain.backend", "pretrain.address",
)


class TrainingInterrupted(Exception):
    """Ctrl-C during training: a checkpoint was saved; the message says where and how to continue."""


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


def make_view(env_name: str, env_kwargs: dict, opponents: list, learner_seat, illegal_action: str = "raise",
              worker: bool = False, move_features: bool = False, modules: tuple = ()):
    """One single-agent view (module-level and torch-free, so SubprocVecEnv workers start fast).

    In a worker process (``worker``) Ctrl-C is left to the main process, which saves a checkpoint. ``modules``
    are imported first: a worker process starts without the main process's registrations (``--import``).
    """
    import importlib

    from kakurega.agents.training.view import SingleAgentView

    for module in modules:
        importlib.import_module(module)
    if worker:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)

    return SingleAgentView(env_name, env_kwargs, opponents, learner_seat=learner_seat, illegal_action=illegal_action,
                           move_features=move_features)


#: the outcome figures of a game kept with SB3's episode statistics (``info["episode"]``, ``ep_info_buffer``)
OUTCOME_KEYS = ("score", "win", "shared_win", "draw")
#: the episode statistics' count of a game's opponents of each kind: ``opponents/<kind>``
OPPONENT_PREFIX = "opponents/"


@functools.lru_cache(maxsize=256)
def opponent_kind(label: str) -> str:
    """The kind of an episode's opponent label (``info["opponents"]``): ``self``, ``snapshots`` or a spec's kind.

    A ``snapshots`` draw before the first snapshot plays ``self`` and counts as it."""
    from kakurega.agents.specs import parse_spec

    if label in ("self", "snapshots"):
        return label
    if label.startswith("snapshot:"):
        return "snapshots"
    return parse_spec(label).kind


def game_ends(venv):
    """``venv`` (a ``VecMonitor``, or SB3's ``make_vec_env`` of the single-seat views) as the learners must see the
    end of a game:

    - SB3's ``TimeLimit.truncated`` is taken out of the infos: a game cut off at its step or turn limit is scored
      by the rules (the last step's reward is its result), so no learner may add its critic's value of the final
      position to that reward, as MaskablePPO and PPO do for a truncated episode (MaskedDQN already treats it as
      the end of the game: its buffer holds no legal move there);
    - the episode statistics also hold the game's :data:`OUTCOME_KEYS` (its score, and 1 or 0 for an outright win,
      a shared win and a draw) and how many of its opponents were of each kind (``opponents/<kind>``): they then
      live in SB3's ``ep_info_buffer`` with the reward behind ``rollout/ep_rew_mean``, so ``rollout/score``, the
      rates and the opponent mix describe the same 100 games, and a checkpoint keeps them for a resumed run.
    """
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from kakurega.agents.outcome import DRAW, SHARED, WIN

    class GameEnds(VecEnvWrapper):
        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            observations, rewards, dones, infos = self.venv.step_wait()
            for info in infos:
                info.pop("TimeLimit.truncated", None)
                episode = info.get("episode")
                if episode is not None and "outcome" in info:
                    outcome = info["outcome"]
                    episode.update(score=float(info["score"]), win=int(outcome == WIN),
                                   shared_win=int(outcome == SHARED), draw=int(outcome == DRAW))
                    for label in (info.get("opponents") or {}).values():
                        key = OPPONENT_PREFIX + opponent_kind(label)
                        episode[key] = episode.get(key, 0) + 1
            return observations, rewards, dones, infos

    return GameEnds(venv)


def resume_env_seed(seed: int, steps: int) -> int:
    """The seed of the envs of a run of ``seed`` resumed at step ``steps``: a fresh run seeds env ``i`` with
    ``seed + i``; a resumed one with this value ``+ i``, a 31-bit number drawn through a ``SeedSequence`` of
    ``(seed, steps)``: it depends on the step, so a resume does not deal the run's opening games (or an earlier
    resume's) again, and it meets the seeds of another run or resume only by chance."""
    import numpy as np

    return int(np.random.SeedSequence([int(seed), int(steps)]).generate_state(1, np.uint32)[0]) >> 1


def worker_modules(opponents) -> tuple:
    """The modules a worker process imports before it builds its view: those imported at the user's request
    (:data:`~kakurega.agents.specs.USER_MODULES`) and those that registered the opponents' agent kinds outside
    kakurega."""
    from kakurega.agents.specs import USER_MODULES, kind_module
    from kakurega.agents.training.league import LEAGUE_ENTRIES, parse_entries

    modules = set(USER_MODULES)
    for entry in parse_entries(opponents):
        module = None if entry.agent in LEAGUE_ENTRIES else kind_module(entry.agent)
        if module and module != "__main__" and not module.startswith("kakurega."):
            modules.add(module)
    return tuple(sorted(modules))


def make_vec_env(config: dict):
    """The VecEnv of ``config`` (n_envs views; dummy or subprocess), seeded from ``config['seed']``.

    Episode statistics come from one ``VecMonitor`` in the main process, with each game's outcome; a game cut
    off at its limit is the end of the game, not a time-out to bootstrap through (:func:`game_ends`).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    subproc = config["vec_env"] == "subproc"
    factory = functools.partial(
        make_view, config["env"], config["env_kwargs"], config["opponents"], config["learner_seat"],
        worker=subproc, move_features=config["network"]["move_features"],
        modules=worker_modules(config["opponents"]) if subproc else (),
    )
    fns = [factory] * config["n_envs"]
    vec = SubprocVecEnv(fns) if config["vec_env"] == "subproc" else DummyVecEnv(fns)
    vec = game_ends(VecMonitor(vec))
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
        from kakurega.agents.training.compact_policy import build_maskable_ppo

        policy, policy_kwargs = "MlpPolicy", dict(net_arch=dict(pi=hidden, vf=hidden), activation_fn=activation)
        if config["network"]["feature_head"]:  # (validated: move features, one row per action)
            from kakurega.agents.base import AgentContext
            from kakurega.agents.move_features import MoveFeatures
            from kakurega.agents.training.feature_head import FeatureHeadPolicy, SplitObservation
            from kakurega.envs.registry import make

            raw = make(config["env"], wrapped=False, **config["env_kwargs"])
            features = MoveFeatures(AgentContext.from_env(raw, config["env"], config["env_kwargs"]))
            policy = FeatureHeadPolicy
            policy_kwargs.update(per_action=features.per_action, features_extractor_class=SplitObservation,
                                 features_extractor_kwargs={"observation_size": int(raw.layout.size)})
        model = build_maskable_ppo(vec_env, config["network"]["masked_distribution"], policy, policy_kwargs,
                                   **config["ppo"], **common)
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


def _build(config: dict, vec_env, logger):
    """:func:`build_model`, with a network that does not fit in memory refused in words."""
    try:
        return build_model(config, vec_env, logger)
    except (MemoryError, RuntimeError) as error:
        text = str(error)
        if not isinstance(error, MemoryError) and not any(
            words in text.lower() for words in ("can't allocate memory", "out of memory", "cannot allocate memory")
        ):
            raise
        first = (text.strip().splitlines() or [type(error).__name__])[0][:200]
        raise ConfigError(
            f"config key 'network.hidden': the network {config['network']['hidden']} does not fit in the memory of "
            f"{config['device']} ({first}); use smaller layers"
        ) from None


def _crossed(last: int, now: int, every: int) -> bool:
    """True when a multiple of ``every`` lies in ``(last, now]``: schedules keyed to absolute steps,
    so a resumed run saves, evaluates and snapshots at the same steps as one that never stopped."""
    return bool(every) and now // every > last // every


def _config_differences(old: dict, new: dict, prefix: str = "", schema: dict | None = SCHEMA) -> list[str]:
    """What differs between a run's resolved config and ``new``, key by key. A key the run's config lacks came
    with a later kakurega (``serves``, ``mix``): at its default it is what that run did, so it is no difference."""
    diffs = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        entry = schema.get(key) if isinstance(schema, dict) else None
        if key not in old and isinstance(entry, dict) and isinstance(b, dict):
            a = {}  # a section added since: each of its keys at its default is no difference
        if isinstance(a, dict) and isinstance(b, dict) and key != "env_kwargs":
            diffs += _config_differences(a, b, prefix + key + ".", entry)
        elif key not in old and isinstance(entry, Key) and b == entry.default:
            continue
        elif a != b:
            diffs.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return diffs


# ------------------------------------------------------------------ callbacks
class RunClock:
    """The run's training time so far: this part's (since the clock was made) plus what the checkpoint it resumed
    from had counted (:meth:`resume`), so eval.csv's ``wall_seconds``, the policy's ``wall_seconds_training`` and
    summary.json go on across a resume instead of starting again at 0. ``cpu`` reads the CPU counter of the
    processes counted (this process: ``time.process_time``)."""

    def __init__(self, cpu=time.process_time):
        self._cpu = cpu
        self._wall_start, self._cpu_start = time.perf_counter(), cpu()
        self.resumed = False
        self._held = None

    def resume(self, elapsed: dict | None) -> None:
        """Count on from a checkpoint's ``elapsed`` (None: it recorded none, an older checkpoint)."""
        if elapsed is not None:
            self._wall_start -= elapsed["wall_seconds"]
            self._cpu_start -= elapsed["cpu_seconds"]
            self.resumed = True

    def hold_at(self, elapsed: dict) -> None:
        """Count no more: the run's training time is ``elapsed`` (:meth:`elapsed` once training has ended, or a
        finished run's checkpoint's: a resume of it trains nothing, so its building and reporting are not the
        run's); :meth:`total` goes on counting."""
        self._held = (elapsed["wall_seconds"], elapsed["cpu_seconds"], time.perf_counter())

    def wall(self) -> float:
        return self._held[0] if self._held else time.perf_counter() - self._wall_start

    def cpu(self) -> float:
        return self._held[1] if self._held else self._cpu() - self._cpu_start

    def total(self) -> float:
        """The run's time with its final report: :meth:`wall`, and the time since a hold (:meth:`hold_at`)."""
        return self.wall() + (time.perf_counter() - self._held[2] if self._held else 0.0)

    def elapsed(self) -> dict:
        """What a checkpoint records (:func:`~kakurega.agents.training.checkpoint.save`)."""
        return {"wall_seconds": self.wall(), "cpu_seconds": self.cpu()}


class RolloutMark:
    """Where the rollout (PPO) or collection (DQN) under way started: its step, the episode statistics and what
    else a checkpoint of that step holds, the global generators' states included (the dropped steps drew from
    them: PPO's action sampling from torch's, MaskedDQN's exploration from numpy's), so that two runs stopped
    at any two moments of one rollout save the same checkpoint.

    PPO changes its weights only after a rollout is collected, so a Ctrl-C while
    it collects or while it updates saves the checkpoint of the rollout's start
    (:meth:`rewind`): the same weights and optimizer (put back where the update
    had begun to change them), update count, step count and statistics of that
    step. DQN changes its weights only in the gradient steps after each
    collection of ``dqn.train_freq`` steps per env, so a Ctrl-C while it
    collects saves the checkpoint of the collection's start: its step,
    statistics, episode and call counts, epsilon, target network and replay-buffer position (a
    full buffer keeps the dropped steps' transitions in the slots they
    overwrote). The steps of the unfinished rollout or collection are collected
    again by ``--resume`` (with new games), so the resumed run's rollouts,
    collections, updates, checkpoints and logged rows fall on the steps of a
    run never interrupted, and it stops where that run stops
    (``total_timesteps`` rounded up to whole rollouts or collections), never
    past it. What those steps wrote (a league snapshot, events) lies after
    the checkpoint, so the resume cuts it back.
    """

    def __init__(self):
        self.collecting = False  # PPO: from a rollout's start until its update has ended; DQN: while it collects
        self.step = 0
        self.episodes: list = []
        self.updates = 0
        self.weights: dict = {}
        self.optimizer: dict = {}
        self.logs: dict = {}
        self.counters: tuple | None = None  # DQN: episode and call counts, epsilon, replay-buffer position
        self.target: dict | None = None  # DQN: the target network, where the collection updates it
        self.rng: tuple | None = None  # torch's, numpy's and Python's global generators at the mark

    def start(self, model) -> None:
        """PPO: a rollout starts (the weights and optimizer are copied: the update after it changes them)."""
        self.collecting = False  # (a Ctrl-C while the copies are taken finds the previous mark whole)
        self.step = int(model.num_timesteps)
        self.episodes = list(model.ep_info_buffer or [])
        self.updates = int(model._n_updates)
        self.weights = copy.deepcopy(model.policy.state_dict())
        self.optimizer = copy.deepcopy(model.policy.optimizer.state_dict())
        self.logs = checkpoints.pending_logs(model)  # the last update's records, not yet written
        self.rng = checkpoints.global_rng_states()
        self.collecting = True

    def start_collection(self, model) -> None:
        """DQN: a collection starts (its weights stay as they are until the gradient steps after it)."""
        self.collecting = False
        self.step = int(model.num_timesteps)
        self.episodes = list(model.ep_info_buffer or [])
        buffer = model.replay_buffer
        self.counters = (int(model._episode_num), int(model._n_calls), float(model.exploration_rate),
                         int(buffer.pos), bool(buffer.full))
        # SB3's DQN updates its target network within a collection, at every call whose count is a multiple of
        # this period (DQN._on_step): copied only where one of the collection's train_freq calls is one
        period = max(model.target_update_interval // model.n_envs, 1)
        calls = int(model._n_calls)
        updates = (calls + model.train_freq.frequency) // period != calls // period
        self.target = copy.deepcopy(model.q_net_target.state_dict()) if updates else None
        self.rng = checkpoints.global_rng_states()
        self.collecting = True

    def end(self) -> None:
        """The update has ended (the next rollout starts, or training ends), or DQN's collection has: the weights
        are those of a whole update, and the step count is on the grid of rollouts or collections."""
        self.collecting = False

    def rewind(self, model) -> None:
        model.num_timesteps = self.step
        model.ep_info_buffer = deque(self.episodes, maxlen=model._stats_window_size)
        self.collecting = False
        if self.rng is not None:  # the dropped steps' draws are undone too
            checkpoints.set_global_rng_states(self.rng)
        if self.counters is not None:  # DQN
            model._episode_num, model._n_calls, model.exploration_rate, pos, full = self.counters
            model.replay_buffer.pos, model.replay_buffer.full = pos, full
            if self.target is not None:
                model.q_net_target.load_state_dict(self.target)
            return
        model._n_updates = self.updates
        model.policy.load_state_dict(self.weights)
        model.policy.optimizer.load_state_dict(self.optimizer)
        values = model.logger.name_to_value
        for key in [k for k in values if k.startswith(checkpoints.PENDING_PREFIXES)]:
            del values[key]
        for key, value in self.logs.items():  # (written with the dropped rollout's row, which the resume cuts)
            model.logger.record(key, value)


def learner_snapshot(model, config: dict) -> tuple[dict, list]:
    """``(metadata, layers)`` of the learner's current policy (what the league, the evaluations and a snapshot
    read: :func:`~kakurega.agents.training.export.policy_metadata` of the run's env and network)."""
    from kakurega.agents.training.export import policy_metadata

    return policy_metadata(model, config["env"], config["env_kwargs"], move_features=config["network"]["move_features"])


class Evaluations:
    """The periodic evaluation (``evaluation.every``): the policy as trained so far, against ``evaluation.opponent``.

    An evaluation is due once the step count has crossed a multiple of ``every`` since the run's last one (the
    newest eval.csv row, which a resume has cut back to its checkpoint: an evaluation a Ctrl-C or a kill left
    unwritten is taken by the resumed run). It is taken only where every step counted has been learned from: when
    a rollout (DQN: a collection) starts, after the update (gradient steps) of the one before, just before that
    step's checkpoint, and once training has ended (:meth:`take` after ``learn``). So the row of step ``N`` plays
    the weights of the checkpoint of step ``N`` (at most one row a rollout), and a row at the run's last step is
    the figure of ``policy.safetensors``. (Taken at the crossing step itself, within PPO's rollout or DQN's
    collection, it would play the weights from before the update that ends there: up to one rollout older.)
    """

    def __init__(self, config: dict, out: Path, clock: RunClock):
        self.config, self.out, self.clock = config, out, clock
        self.last = run_dir.last_step(out / "eval.csv", "timesteps")
        self.baseline = None  # the random player's score on the evaluation deals (computed once)

    def take(self, model) -> None:
        """Evaluate ``model`` if an evaluation is due at its step: an eval.csv row and ``eval/*`` records, written
        at once as a progress.csv row (and TensorBoard events) of their own at this step."""
        step = int(model.num_timesteps)
        if not _crossed(self.last, step, self.config["evaluation"]["every"]):
            return
        config = self.config
        meta, layers = learner_snapshot(model, config)
        self.baseline = periodic_evaluation(config, self.out, meta, layers, step, self.clock.wall(), model.logger,
                                            self.baseline)
        self.last = step
        write_records(model.logger, "eval/", step)


def _callbacks(config: dict, out: Path, clock: RunClock, mark: RolloutMark | None = None,
               evaluations: Evaluations | None = None):
    from stable_baselines3.common.callbacks import BaseCallback

    from kakurega.agents.training.export import save_policy

    league_entries = {e["agent"] for e in config["opponents"]}
    uses_league = bool(league_entries & {"self", "snapshots"})
    snapshot_dir = out / "league"

    #: the step of the last checkpoint this process saved (or resumed from): a killed run resumes there
    saved = {"step": 0}

    class LeagueCallback(BaseCallback):
        """Pushes the current weights to the 'self' opponents and keeps the bounded snapshot pool.

        The pool is the newest ``league.max_snapshots`` snapshots; an older file is deleted only once no point
        the run may go back to needs it: the last checkpoint (a killed run resumes there) and, for PPO, the
        rollout's start (a Ctrl-C saves it). So a resumed run's pool is the one it had at its step (at most
        three pools' files are on disk while it trains; once its last checkpoint is saved, its pool's, by
        :func:`~kakurega.agents.training.run_dir.prune_snapshots`)."""

        def _on_training_start(self) -> None:
            self._last_sync = self.num_timesteps
            self._last_snapshot = self.num_timesteps
            saved["step"] = self.num_timesteps
            self._push(current=True)

        def _push(self, current: bool) -> None:
            meta, layers = learner_snapshot(self.model, config)
            self.training_env.env_method(
                "set_league", current=(meta, layers) if current else None,
                snapshots=run_dir.snapshot_pool(snapshot_dir, self.num_timesteps, config["league"]["max_snapshots"]),
            )

        def _on_step(self) -> bool:
            league = config["league"]
            if _crossed(self._last_snapshot, self.num_timesteps, league["snapshot_every"]):
                self._last_snapshot = self.num_timesteps
                meta, layers = learner_snapshot(self.model, config)
                save_policy(snapshot_dir / f"snapshot_{self.num_timesteps}.safetensors", layers, meta)
                returns = [saved["step"]] + ([mark.step] if mark is not None and mark.collecting else [])
                run_dir.prune_snapshots(snapshot_dir, league["max_snapshots"], self.num_timesteps, *returns)
                self._push(current=False)
            if _crossed(self._last_sync, self.num_timesteps, league["sync_every"]):
                self._last_sync = self.num_timesteps
                self._push(current=True)
            return True

    class OutcomeCallback(BaseCallback):
        """Logs the score and the win/shared/draw rates of the last 100 training episodes (see ``agents.outcome``).

        The games are those of SB3's episode statistics (``ep_info_buffer``, behind ``rollout/ep_rew_mean``), which
        carry each game's outcome (:func:`game_ends`): a resumed run starts from the games its checkpoint kept,
        so every row's figures describe the same games as its mean reward.
        """

        def _on_training_start(self) -> None:
            window = self.model._stats_window_size
            kept = [e for e in (self.model.ep_info_buffer or []) if set(OUTCOME_KEYS) <= set(e)]
            self.outcomes = deque(kept, maxlen=window)
            # the config's kinds from the first row on (0 where none was drawn: snapshots before the first)
            self.kinds = {OPPONENT_PREFIX + opponent_kind(entry["agent"]) for entry in config["opponents"]}
            self.records = self._summary()

        def _summary(self) -> dict:
            """The figures of the games in ``outcomes`` (none before the first game)."""
            if not self.outcomes:
                return {}
            n = len(self.outcomes)
            records = {
                "rollout/score": sum(e["score"] for e in self.outcomes) / n,
                "rollout/win_rate": sum(e["win"] for e in self.outcomes) / n,
                "rollout/shared_win_rate": sum(e["shared_win"] for e in self.outcomes) / n,
                "rollout/draw_rate": sum(e["draw"] for e in self.outcomes) / n,
            }
            counts = dict.fromkeys(self.kinds, 0)
            for episode in self.outcomes:
                for key, count in episode.items():
                    if key.startswith(OPPONENT_PREFIX):
                        counts[key] = counts.get(key, 0) + count
            seats = sum(counts.values())
            if seats:  # the share of the opponents' seats of these games each kind held (none: solitaire)
                records.update((key, count / seats) for key, count in sorted(counts.items()))
            return records

        def _on_step(self) -> bool:
            ended = False
            for info, done in zip(self.locals["infos"], self.locals["dones"]):
                episode = info.get("episode")
                if done and episode is not None and "score" in episode:
                    self.outcomes.append(episode)  # SB3 adds it to ep_info_buffer right after this step's callbacks
                    ended = True
            if ended:  # computed when a game ends; recorded at every step (a log dump clears the records)
                self.records = self._summary()
            for key, value in self.records.items():
                self.logger.record(key, value)
            return True

    class CheckpointCallback(BaseCallback):
        """A checkpoint each time the step count crosses a multiple of ``checkpoint.every``, taken when a rollout
        starts: PPO's after the update of the previous one, DQN's after the previous collection's steps (each stored
        in the replay buffer, counted and its games ended) and their gradient steps. So no collected step is lost or
        half counted, and a resumed run's rollouts and updates start on the same steps as before (its games are new
        ones, see the module doc). The periodic evaluation due at that step (:class:`Evaluations`) is taken just
        before it, of the same weights. It runs last, so everything a step wrote (an evaluation row, snapshots)
        precedes the checkpoint.
        """

        def _on_training_start(self) -> None:
            self._last = self.num_timesteps

        def _maybe_save(self) -> None:
            now = self.model.num_timesteps
            if _crossed(self._last, now, config["checkpoint"]["every"]):
                self._last = now
                save_checkpoint(self.model, config, out, clock)
                saved["step"] = now

        def _on_rollout_start(self) -> None:
            if mark is not None:  # (first: a Ctrl-C while it evaluates or saves goes back to this step)
                (mark.start if config["algorithm"] == "ppo" else mark.start_collection)(self.model)
            if evaluations is not None:
                evaluations.take(self.model)
            self._maybe_save()

        def _on_rollout_end(self) -> None:
            if mark is not None and config["algorithm"] == "dqn":
                mark.end()  # collected whole: a Ctrl-C in the gradient steps after it saves this step

        def _on_step(self) -> bool:
            return True

        def _on_training_end(self) -> None:
            if mark is not None:
                mark.end()  # the last update has ended: a Ctrl-C from now on saves it

    callbacks = [OutcomeCallback(), CheckpointCallback()]
    if uses_league:
        callbacks.insert(1, LeagueCallback())
    return callbacks


class _ColumnsInNameOrder(list):
    """The columns of SB3's CSV log: those a row brings are added in name order.

    SB3 adds them as a set difference, whose order follows Python's string hashes (``PYTHONHASHSEED``, drawn
    anew by every process), so two runs of one seed wrote progress.csv's columns in different orders."""

    def extend(self, keys):
        super().extend(sorted(keys))


def run_logger(folder: Path, formats: list[str]):
    """SB3's logger writing ``formats`` ("csv", "tensorboard", "stdout") into ``folder``; progress.csv's
    columns come in an order that does not depend on the process (:class:`_ColumnsInNameOrder`)."""
    from stable_baselines3.common.logger import CSVOutputFormat, configure

    logger = configure(str(folder), formats)
    for output in logger.output_formats:
        if isinstance(output, CSVOutputFormat):
            output.keys = _ColumnsInNameOrder(output.keys)
    return logger


def write_records(logger, prefix: str, step: int) -> None:
    """Write the records of ``logger`` whose keys start with ``prefix`` now, as a row of their own at ``step``
    (``time/total_timesteps`` in progress.csv, the event step in TensorBoard); the other records wait for SB3's
    next regular dump."""
    values, counts, excluded = logger.name_to_value, logger.name_to_count, logger.name_to_excluded
    held = {key: (values.pop(key), counts.pop(key, None), excluded.pop(key, None))
            for key in list(values) if not key.startswith(prefix)}
    try:
        if values:
            logger.record("time/total_timesteps", step, exclude="tensorboard")
            logger.dump(step)
    finally:
        for key, (value, count, exclude) in held.items():
            values[key] = value
            if count is not None:
                counts[key] = count
            if exclude is not None:
                excluded[key] = exclude


def periodic_evaluation(config: dict, out: Path, metadata: dict, layers: list, timesteps: int, wall_seconds: float,
                        logger, baseline: float | None = None) -> float:
    """The greedy policy ``(metadata, layers)`` against ``evaluation.opponent``: one eval.csv row and ``eval/*``
    records in ``logger``; returns the random player's score on the same deals (``baseline``, computed once)."""
    from kakurega.agents.policy import PolicyAgent
    from kakurega.agents.tournament import run_tournament

    evaluation = config["evaluation"]

    def learner(context, seed):
        return PolicyAgent(context, seed, layers=layers, metadata=metadata, name="learner")

    opponent = evaluation["opponent"]
    result = run_tournament(
        config["env"], ["learner", opponent], config["env_kwargs"], evaluation["games"],
        evaluation["seed"], agents={"learner": learner}, focal="learner",
    )
    row = result.per_agent[0]
    if baseline is None:
        baseline = random_baseline(config, opponent, evaluation["games"])["score"]
    logger.record("eval/score", row["score"])
    logger.record("eval/score_ci_low", row["score_ci95"][0])
    logger.record("eval/score_ci_high", row["score_ci95"][1])
    logger.record("eval/win_rate", row["win_rate"])
    logger.record("eval/win_rate_ci_low", row["win_rate_ci95"][0])
    logger.record("eval/win_rate_ci_high", row["win_rate_ci95"][1])
    logger.record("eval/mean_reward", row["mean_reward"])
    logger.record("eval/random_baseline_score", baseline)
    run_dir.append_csv_row(
        out / "eval.csv",
        ["timesteps", "wall_seconds", "opponent", "games", "score", "score_ci_low", "score_ci_high", "win_rate",
         "mean_reward", "baseline_score"],
        [timesteps, f"{wall_seconds:.1f}", opponent, row["games"],
         f"{row['score']:.4f}", f"{row['score_ci95'][0]:.4f}", f"{row['score_ci95'][1]:.4f}",
         f"{row['win_rate']:.4f}", f"{row['mean_reward']:.4f}", f"{baseline:.4f}"],
    )
    return baseline


def save_checkpoint(model, config: dict, out: Path, clock: RunClock | None = None) -> Path:
    """A checkpoint of ``model`` in ``out/checkpoints`` (see :mod:`~kakurega.agents.training.checkpoint`), with the
    run's training time so far where ``clock`` is given."""
    saving = config["checkpoint"]
    replay = config["algorithm"] == "dqn" and saving["save_replay_buffer"]
    return checkpoints.save(model, out / "checkpoints", saving["keep"], replay=replay, sb3_zip=saving["sb3_zip"],
                            elapsed=None if clock is None else clock.elapsed())


# ------------------------------------------------------------- final report
def final_evaluation(config: dict, policy_path: Path, out: Path, progress=None) -> tuple[list, str]:
    """The policy against each ``evaluation.final_opponents`` (and random's result on the same deals; where the
    game prunes dominated moves, also the network alone, ``prune=false``: pruning is the game's, not learned)."""
    from kakurega.agents.move_features import proves_dominance
    from kakurega.agents.specs import with_path
    from kakurega.agents.tournament import run_tournament

    evaluation = config["evaluation"]
    games = evaluation["final_games"]
    rows = []
    policy_spec = with_path("policy", policy_path)
    # an untrained network gains from the game's pruning too: then the network alone shows what it learned
    alone_spec = f"{policy_spec},prune=false" if proves_dominance(config["env"], config["env_kwargs"]) else None
    directory = out / "evaluation"
    num_players = 2  # (read from the first tournament: a table with no opponent has no row to explain)
    for opponent in evaluation["final_opponents"]:
        result = run_tournament(
            config["env"], [policy_spec, opponent], config["env_kwargs"], games, evaluation["seed"],
            focal=policy_spec, progress=progress,
        )
        num_players = result.num_players
        result.save(directory, stem=f"vs_{_slug(opponent)}")
        baseline = random_baseline(config, opponent, games, result=True)
        labelled = [("policy", result.per_agent[0]), ("random (baseline)", baseline.per_agent[0])]
        if alone_spec is not None:
            alone = run_tournament(config["env"], [alone_spec, opponent], config["env_kwargs"], games,
                                   evaluation["seed"], focal=alone_spec)
            labelled.insert(1, ("network alone", alone.per_agent[0]))
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
    table = evaluation_table(config, rows, num_players)
    directory.mkdir(parents=True, exist_ok=True)
    run_dir.atomic_write_bytes(directory / "evaluation.json", json.dumps(rows, indent=2).encode())
    run_dir.atomic_write_bytes(directory / "evaluation.txt", (table + "\n").encode())
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


def evaluation_table(config: dict, rows: list, num_players: int = 2) -> str:
    """The final evaluation of a game of ``num_players`` seats as a plain-text table."""
    from kakurega.agents.tournament import score_note

    head = (
        f"{config['env']} {config['env_kwargs'] or ''}: {config['algorithm']} policy, "
        f"greedy, seat rotated, paired deals (seed {config['evaluation']['seed']})"
    )
    lines = [head, f"{'opponent':<14} {'agent':<18} {'games':>6} {'score':>6} {'95% CI':>16} {'won':>5} {'shared':>6} "
                   f"{'drawn':>5} {'mean reward':>12} {'95% CI':>18}"]
    for r in rows:
        lo, hi = r["score_ci95"]
        rlo, rhi = r["mean_reward_ci95"]
        lines.append(
            f"{r['opponent']:<14} {r['agent']:<18} {r['games']:>6} {r['score']:>6.3f} [{lo:.3f}, {hi:.3f}] "
            f"{r['wins']:>5} {r['shared_wins']:>6} {r['draws']:>5} {r['mean_reward']:>12.3f} [{rlo:+.3f}, {rhi:+.3f}]"
        )
    lines.append(score_note(num_players))
    return "\n".join(lines)


# --------------------------------------------------------------------- train
def train(config, overrides=(), resume: bool = False, overwrite: bool = False, quiet: bool = False, *,
          lock: run_dir.RunLock | None = None, kind: str = "train") -> TrainResult:
    """Train as ``config`` (a path or a dict) says; see the module docstring for what is written.

    ``resume`` continues from the newest good checkpoint in the run directory up
    to ``total_timesteps``; ``overwrite`` first deletes what an earlier run wrote
    there (only that, and only in a directory holding a run's manifest). Ctrl-C
    saves a checkpoint and raises :class:`TrainingInterrupted`; a run stopped
    (by Ctrl-C or an error) before its first checkpoint removes what it wrote.

    ``lock``: the :class:`~kakurega.agents.training.run_dir.RunLock` of the run
    directory, already held by a job of several steps (``exploit``, ``harden``,
    ``quickstart``: :func:`~kakurega.agents.training.run_dir.held`); the run
    uses it and leaves it held. Without it the run takes the lock and gives it
    back. ``kind``: the kind of run the manifest records (``train``,
    ``quickstart``, ``exploit``), which says what ``--overwrite`` may delete.
    """
    if isinstance(config, (str, Path)):
        config = load_config(config, overrides)
    else:
        config = validate_config(config, overrides)
    out = Path(config["output_dir"]).resolve()  # resolved once: every path below hangs from it
    say = (lambda *a: None) if quiet else print
    if out.exists() and not out.is_dir():
        raise ConfigError(f"output_dir {out} is a file, not a directory")
    if lock is not None:
        run_dir.check_held(lock, out)
    if kind not in run_dir.RUN_KINDS:
        raise ValueError(f"unknown kind of run {kind!r}; expected one of {', '.join(run_dir.RUN_KINDS)}")
    if not resume and run_dir.holds_files(out):
        if not overwrite:
            raise ConfigError(
                f"{out} already holds files; pass resume to continue a run there (--resume), overwrite to replace "
                "one (--overwrite), or choose another output_dir"
            )
        run_dir.check_replaceable(out)
    check_device(config["device"])
    created = not out.exists()
    own_lock = lock is None
    if own_lock:
        lock = run_dir.RunLock(out)
        lock.acquire()
    try:
        run_dir.check_entries(out)  # before anything is read, written or deleted: no link leads out of the run
        started = False  # whether this run wrote its manifest (and so owns what it writes next)
        try:
            if resume:
                found = _prepare_resume(config, out, say)
            else:
                if overwrite and (out / run_dir.MANIFEST).is_file():
                    left = run_dir.remove_run_files(out, kind)
                    say(f"removed the earlier run in {out}" + (f" (left alone: {', '.join(left)})" if left else ""))
                found = None
                started = True
                run_dir.write_manifest(out, kind)
            say(f"run directory: {out}")
            run_dir.atomic_write_bytes(out / "config.yaml", dump_config(config).encode())
            return _run(config, out, found, say, quiet)
        except BaseException:  # an error, or Ctrl-C (KeyboardInterrupt, TrainingInterrupted)
            if started and not checkpoints.checkpoints(out / "checkpoints"):
                # stopped before its first checkpoint: leave no half run that blocks the rerun (a plain one)
                try:
                    run_dir.remove_run_files(out, kind)
                except (OSError, ConfigError):
                    pass  # the error that stopped the run is the one to report
            raise
    except OSError as error:
        if isinstance(error, run_dir.RunWriteError) or error.errno not in run_dir.STORAGE_ERRNOS:
            raise
        raise run_dir.RunWriteError(_write_failure(out, error)) from None
    finally:
        if own_lock:
            lock.release()
            if created and out.is_dir() and not any(out.iterdir()):
                out.rmdir()


def check_device(device: str) -> None:
    """Raise :class:`ConfigError` when ``device`` names an accelerator torch cannot use here
    (SB3 would quietly train on the CPU instead); ``auto`` takes CUDA when there is one."""
    import torch

    if device.startswith("cuda"):
        index = int(device.partition(":")[2] or 0)
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if index >= count:
            found = f"only {count} CUDA device{'s' * (count != 1)}" if count else "no CUDA device"
            raise ConfigError(f"config key 'device': {device}, but torch finds {found} here; "
                              "use device: cpu, or auto to train on CUDA where there is one")
    elif device == "mps" and not torch.backends.mps.is_available():
        raise ConfigError("config key 'device': mps, but torch finds no Apple GPU (MPS) here; use device: cpu or auto")


def _write_failure(out: Path, error: OSError) -> str:
    """Why a run stopped on a file it could not write, and what of it is intact."""
    kept = checkpoints.checkpoints(out / "checkpoints") if out.is_dir() else []
    if kept:
        after = (f"its checkpoints up to {kept[-1].name} are intact: make room (or fix the directory), "
                 "then continue with --resume")
    else:
        after = "it had no checkpoint yet, so nothing of it was kept: make room (or fix the directory), then start it again"
    return f"the run in {out} stopped: {run_dir.why(error)}; {after}"


def _prepare_resume(config: dict, out: Path, say) -> tuple[Path, dict]:
    """The checkpoint to resume from (newest that verifies), after cutting the run back to its step."""
    from kakurega.envs.core.safe_load import load_file

    directory = out / "checkpoints"
    try:
        found = checkpoints.latest_good(directory, say=say)
    except checkpoints.NewerCheckpointError as error:  # refused before anything of the run is cut back
        raise ConfigError(f"cannot resume: {error}; nothing was changed") from None
    if found is None:
        legacy = sorted(p.name for p in directory.glob("model_*.zip"))
        hint = (
            f"; it holds only SB3 .zip files ({', '.join(legacy[:3])}), which kakurega never loads because they "
            "can run code" if legacy else ""
        )
        if not hint and not checkpoints.checkpoints(directory) and (out / run_dir.MANIFEST).is_file():
            hint = ("; the run stopped before its first checkpoint, so there is nothing to resume: start it again "
                    "with --overwrite (it deletes only what the run wrote)")
        raise ConfigError(f"cannot resume: {directory} holds no usable checkpoint (step_<N>/){hint}")
    path, _ = found
    step = int(path.name[len(checkpoints.PREFIX):])
    if (out / "config.yaml").is_file():
        old = load_file(out / "config.yaml", max_bytes=100_000, error=ConfigError)
        if not isinstance(old, dict):
            raise ConfigError(
                f"{out / 'config.yaml'}: expected a mapping of config keys (the resolved config the run wrote), got "
                f"{'an empty file' if old is None else type(old).__name__}; restore the run's config.yaml to resume "
                "(or remove it: the resume then cannot check that the config is the run's)"
            )
        blocking = [d for d in _config_differences(old, config) if not d.startswith(RESUMABLE_CHANGES)]
        if blocking:
            hint = ("; the default of network.masked_distribution became compact on 2026-12-06: set it to exact to "
                    "resume this run" if "network.masked_distribution: 'exact' -> 'compact'" in blocking else "")
            may = [key + "*" if key.endswith((".", "_")) else key for key in RESUMABLE_CHANGES]
            raise ConfigError(
                f"cannot resume with a different config (only {', '.join(may[:-1])} and {may[-1]} may change): "
                + "; ".join(blocking) + hint
            )
    for newer in checkpoints.checkpoints(directory):
        if int(newer.name[len(checkpoints.PREFIX):]) > step:
            checkpoints.remove(newer)  # cut short or corrupt: the run goes on from the older one
    for stray in directory.glob(f".{checkpoints.PREFIX}*.tmp"):
        checkpoints.remove(stray)
    dropped = run_dir.cut_back(out, step)
    if any(dropped.values()):
        say(f"cut the run back to step {step}: dropped " + ", ".join(f"{n} {what}" for what, n in dropped.items() if n))
    return found


def _run(config: dict, out: Path, found, say, quiet: bool) -> TrainResult:
    import torch

    if config["torch_threads"]:
        torch.set_num_threads(config["torch_threads"])
    parts = sorted(int(p.name[4:]) for p in (out / "logs").glob("part*") if p.name[4:].isdigit())
    part = (parts[-1] + 1) if parts else 0
    formats = ["csv"] + (["tensorboard"] if config["logging"]["tensorboard"] else []) + (["stdout"] if config["logging"]["verbose"] else [])
    clock = RunClock()
    model = vec_env = None
    mark = RolloutMark()
    evaluations = Evaluations(config, out, clock)  # (after the resume's cut-back: its last row is the checkpoint's)
    # a resume of a finished run (its checkpoint at total_timesteps) trains nothing: it writes the policy and the
    # report again, and no log part, checkpoint or time of its own
    finished = found is not None and checkpoints.step_of(found[0]) >= config["total_timesteps"]
    try:  # Ctrl-C from here on is answered by the handler below (the logs and envs are made inside)
        if finished:
            from stable_baselines3.common.logger import Logger

            logger = Logger(folder=None, output_formats=[])
        else:
            logger = run_logger(out / "logs" / f"part{part}", formats)
        vec_env = make_vec_env(config)
        model = _build(config, vec_env, logger)
        if found is not None:
            path, contents = found
            restored = checkpoints.restore(model, contents, path)
            clock.resume(restored["elapsed"])
            if finished and restored["elapsed"] is not None:
                clock.hold_at(restored["elapsed"])  # nothing to train: the run's time is the checkpoint's
            if note := checkpoints.threads_note(restored["torch_threads"]):
                say(note)
            # after build_model, which seeds the envs with config["seed"]: new games, not the run's opening ones
            vec_env.seed(resume_env_seed(config["seed"], model.num_timesteps))
            say(f"resuming {out} from {path.name} ({model.num_timesteps} steps)")
        elif config["init_policy"] is not None:
            from kakurega.agents.policy import context_for
            from kakurega.agents.training.init_policy import load_init_policy

            say(load_init_policy(model, config, context_for(config["env"], config["env_kwargs"])))
        elif config["pretrain"]["steps"]:
            from kakurega.agents.training.pretrain import warm_start

            warm_start(model, config, logger, say, progress=config["logging"]["progress_bar"] and not quiet)
        if {e["agent"] for e in config["opponents"]} & {"self", "snapshots"}:
            # before learn(): SB3 resets the envs (opponents may move first) before any callback runs
            meta, layers = learner_snapshot(model, config)
            snapshots = run_dir.snapshot_pool(out / "league", model.num_timesteps, config["league"]["max_snapshots"])
            vec_env.env_method("set_league", current=(meta, layers), snapshots=snapshots)
        remaining = config["total_timesteps"] - model.num_timesteps
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=_callbacks(config, out, clock, mark, evaluations),
                progress_bar=config["logging"]["progress_bar"] and not quiet,
                reset_num_timesteps=found is None,
                log_interval=1 if config["algorithm"] == "ppo" else 100,
            )
        evaluations.take(model)  # the final policy, after the last update, where the schedule asks for it
        if not finished:
            # the run's training time ends here: the final checkpoint, the policy file and summary.json record the
            # same, which a resume of the finished run then finds again
            clock.hold_at(clock.elapsed())
            save_checkpoint(model, config, out, clock)
        run_dir.prune_snapshots(out / "league", config["league"]["max_snapshots"], model.num_timesteps)
        from kakurega.agents.training.export import export_policy

        policy_path = export_policy(
            model, out / "policy.safetensors", config["env"], config["env_kwargs"],
            extra={"config_name": config["name"], "wall_seconds_training": round(clock.wall(), 1),
                   **policy_fields(config)},
            move_features=config["network"]["move_features"],
        )
        timesteps = int(model.num_timesteps)
    except KeyboardInterrupt:
        now = 0 if model is None else int(model.num_timesteps)
        if model is not None and mark.collecting:
            # PPO within a rollout or its update, DQN within a collection (a step's callbacks included: SB3 has
            # counted its transitions, not yet stored them): the checkpoint of the start (see RolloutMark)
            mark.rewind(model)
        if model is None or model.num_timesteps == 0:
            kept = (f"nothing new to save: {found[0]} is intact; continue with --resume" if found is not None
                    else f"nothing of it is kept in {out}")
            raise TrainingInterrupted(f"interrupted before the first training step ended; {kept}") from None
        saved = save_checkpoint(model, config, out, clock)
        run_dir.prune_snapshots(out / "league", config["league"]["max_snapshots"], model.num_timesteps)
        unfinished = "rollout" if config["algorithm"] == "ppo" else "collection"
        dropped = (f" (where the unfinished {unfinished} started: its {now - model.num_timesteps} steps are collected "
                   "again)" if now > model.num_timesteps else "")
        raise TrainingInterrupted(
            f"interrupted at step {now}: checkpoint {saved} saved{dropped}; continue with --resume"
        ) from None
    finally:
        if vec_env is not None:
            vec_env.close()
    wall, cpu = clock.wall(), clock.cpu()
    parts = " over every part of the run" if clock.resumed else ""
    say(f"trained {timesteps} steps in {wall:.0f}s (CPU time of the training process: {cpu:.0f}s){parts}; "
        f"policy: {policy_path}")
    try:
        return _report(config, out, TrainResult(out, policy_path, config, timesteps, wall), cpu, clock, say)
    except KeyboardInterrupt:
        raise TrainingInterrupted(
            f"interrupted after training finished: the policy {policy_path} is saved; the final report was not written"
        ) from None


def policy_fields(config: dict) -> dict:
    """The policy file's fields that the config decides: ``serves`` (its entries, every option filled in) and
    ``mix`` (when true); absent when empty or false."""
    from kakurega.agents.policy import resolved_env_options

    served = [resolved_env_options(config["env"], options) for options in config["serves"]]
    return {**({"serves": served} if served else {}), **({"mix": True} if config["mix"] else {})}


def _torch_threads() -> int:
    """The threads torch computes on in this process (``torch_threads``, or the machine's cores where it is 0)."""
    import torch

    return torch.get_num_threads()


def _report(config: dict, out: Path, result: TrainResult, cpu: float, clock: RunClock, say) -> TrainResult:
    """The final evaluation, the plots and summary.json of a finished run."""
    policy_path, timesteps, wall = result.policy_path, result.timesteps, result.wall_seconds
    if config["evaluation"]["final_games"]:
        result.evaluation, result.evaluation_table = final_evaluation(config, policy_path, out)
        say(result.evaluation_table)
    from kakurega.agents.training.plots import plot_learning_curves

    plot = plot_learning_curves(out)
    if plot:
        say(f"learning curves: {plot}")
    run_dir.atomic_write_bytes(out / "summary.json", json.dumps(
        {"timesteps": timesteps, "wall_seconds_training": round(wall, 1), "cpu_seconds_training": round(cpu, 1),
         "wall_seconds_total": round(clock.total(), 1), "torch_threads": _torch_threads(), "policy": str(policy_path),
         "evaluation": result.evaluation}, indent=2).encode())
    return result
