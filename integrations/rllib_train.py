"""A kakurega training config on Ray RLlib PPO, with what the SB3 backend has (``kakurega train --backend rllib``).

RLlib samples games in env-runner processes, on this machine or across a Ray
cluster; the learner (PPO's update) runs in this process. Everything else is
the SB3 backend's own code, run on a *shadow* MaskablePPO of the same network
(the RLlib module's actor, critic, heads and Adam moments map one to one onto
it): the league (:mod:`~kakurega.agents.training.league`: ``self`` synced every
``league.sync_every`` steps, ``snapshots`` of the run, heuristic, policy files),
the imitation warm start and DAgger (:mod:`~kakurega.agents.training.pretrain`),
the periodic evaluation (eval.csv), the checkpoints (safetensors and JSON,
:mod:`~kakurega.agents.training.checkpoint`), ``--resume``, the final
evaluation, the plots, config.yaml, TensorBoard, the outcome logs
(``rollout/score`` and the win, shared-win and draw rates of the last 100
games the env runners finished) and the run-directory rules
(:mod:`~kakurega.agents.training.run_dir`). League weights and snapshots reach
the env runners as data, so a node never reads the driver's files.

Schedules (sync, snapshots, evaluation, checkpoints) are checked after each
PPO iteration (``ppo.n_steps x n_envs`` learner steps), so they fire at the
end of the iteration in which the step count crosses their multiple.

RLlib's own checkpoints are pickles, so they are never written or read here;
a resumed run restores weights, Adam moments and the step count from our
checkpoint, while the env runners' random streams start afresh.

Keys this backend cannot honour are refused before any work
(:func:`check_supported`), as are more env runners than the cluster has CPUs.
"""

from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path

from kakurega.agents.training import checkpoint as checkpoints
from kakurega.agents.training import run_dir
from kakurega.agents.training.config import ConfigError, dump_config, load_config, validate_config

#: config keys the Ray backend cannot honour at other than their default value, with the reason
UNSUPPORTED = {
    "algorithm": "--backend rllib trains PPO (use the sb3 backend for dqn)",
    "device": "the RLlib learner runs on the CPU of the driver here",
    "vec_env": "the envs run in Ray env-runner processes: choose their number with --env-runners",
    "network.move_features": "the RLlib module reads the observation alone",
    "network.feature_head": "the RLlib module reads the observation alone",
    "ppo.target_kl": "RLlib's PPO has no early stop on the KL divergence",
    "checkpoint.sb3_zip": "there is no SB3 model to zip; the checkpoints are safetensors and JSON",
}
PPO_KEYS = {  # kakurega config key under ppo -> RLlib PPOConfig.training argument
    "learning_rate": "lr",
    "gamma": "gamma",
    "gae_lambda": "lambda_",
    "clip_range": "clip_param",
    "ent_coef": "entropy_coeff",
    "vf_coef": "vf_loss_coeff",
    "max_grad_norm": "grad_clip",
    "n_epochs": "num_epochs",
    "batch_size": "minibatch_size",
}


def _value(config: dict, dotted: str):
    for part in dotted.split("."):
        config = config[part]
    return config


def config_mapping(config: dict, mapping: str) -> str:
    """The mapping a run uses: ``auto`` is ``learner`` (one learning seat against the opponent pool, as the SB3
    backend trains)."""
    return "learner" if mapping == "auto" else mapping


def check_supported(config: dict, mapping: str) -> None:
    """Raise :class:`ConfigError` naming every key (or mapping) this backend cannot honour, and why."""
    defaults = validate_config({"env": config["env"], "algorithm": "ppo", "total_timesteps": 1})
    refused = [f"{key}={_value(config, key)!r} ({why})" for key, why in UNSUPPORTED.items()
               if _value(config, key) != _value(defaults, key)]
    if mapping == "per_seat":
        refused.append("--policy-mapping per_seat (a run keeps one policy: checkpoints, evaluation and the exported "
                       "file; use learner or shared, or build per_seat with algorithm_config)")
    elif mapping == "shared":
        others = sorted({entry["agent"] for entry in config["opponents"]} - {"self"})
        if others:
            refused.append(f"opponents {others} with --policy-mapping shared (every seat plays the learning module: "
                           "use the learner mapping for an opponent pool)")
        if config["learner_seat"] != "random":
            refused.append("learner_seat with --policy-mapping shared (every seat learns)")
    elif mapping != "learner":
        refused.append(f"--policy-mapping {mapping!r} (expected auto, learner, shared or per_seat)")
    if refused:
        raise ConfigError("--backend rllib cannot honour: " + "; ".join(refused))


# ------------------------------------------------------------------ the cluster
def connect(address: str | None, num_env_runners: int, quiet: bool) -> bool:
    """Join ``address`` (``HOST:PORT``, ``ray://HOST:PORT``, ``auto``) or, without one, start a Ray of this run's own
    on this machine (never another run's); True when started here.

    Refuses at once, in words, a cluster it cannot reach or authenticate with,
    and more env runners than the cluster has CPUs (each runner takes one;
    Ray would wait for them forever).
    """
    import ray
    from ray.exceptions import AuthenticationError

    from kakurega.agents.tasks import init_ray, warn

    started = False
    if not ray.is_initialized():
        where = address or "a local Ray"
        try:
            # workers import kakurega from the same installation; runtime_env ships nothing. Without an
            # address, "local": ray.init() alone joins the cluster named in RAY_ADDRESS or the one last
            # started on this machine (by anyone, however stale), instead of starting a Ray of this run's own
            # a Ray Client connection whose server died as it started is tried again (init_ray)
            init_ray(address or "local", None if quiet else warn, include_dashboard=False, log_to_driver=not quiet)
        except AuthenticationError as error:
            raise ConfigError(
                f"the Ray cluster at {where} refused this process's token ({str(error).split('.')[0]}): use the "
                "cluster's token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token), or, for a cluster "
                "started without token authentication, RAY_AUTH_MODE=disabled; see docs/integrations.md"
            ) from None
        except (ConnectionError, TimeoutError, ValueError) as error:
            # a refused token reaches the driver as a failed connection: say which token this process used
            from ray._raylet import AuthenticationMode, get_authentication_mode

            hint = ("; this process used token authentication: if the cluster refused its token (InvalidAuthToken "
                    "above), give it the cluster's token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token) or, "
                    "for a cluster without tokens, RAY_AUTH_MODE=disabled" if get_authentication_mode() ==
                    AuthenticationMode.TOKEN else "")
            raise ConfigError(f"cannot join the Ray cluster at {where}: {_reason(error)}{hint}; "
                              "see docs/integrations.md") from None
        started = True
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if num_env_runners > cpus:
        if started:
            ray.shutdown()
        raise ConfigError(
            f"--env-runners {num_env_runners}: each env runner takes a CPU and the Ray cluster has {cpus}; "
            f"ask for at most {cpus} (or add nodes)"
        )
    return started


def _reason(error: BaseException) -> str:
    """An error's first line and, when it has more (Ray Client puts the server's traceback after a bare
    'Initialization failure from server:'), its last one: the exception that caused it."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
    return lines[0][:300] + (f" ... {lines[-1][:300]}" if len(lines) > 1 else "")


# ----------------------------------------------------------- module <-> model
class ShadowModel:
    """A MaskablePPO of the config's network that mirrors the RLlib learner's module (weights and Adam moments)."""

    def __init__(self, algo, module_id: str, config: dict):
        from stable_baselines3.common.vec_env import DummyVecEnv

        from kakurega.agents.training.trainer import build_model, make_view

        self.algo, self.module_id = algo, module_id
        view = [lambda: make_view(config["env"], config["env_kwargs"], config["opponents"], config["learner_seat"])]
        self.model = build_model(config, DummyVecEnv(view))
        learner = algo.learner_group._learner  # the local learner (num_learners=0): it lives in this process
        self.module = learner.module[module_id]
        self.optimizer = learner.get_optimizer(module_id)
        ours, theirs = list(self.model.policy.parameters()), list(self.module.parameters())
        shapes = [tuple(p.shape) for p in ours], [tuple(p.shape) for p in theirs]
        if shapes[0] != shapes[1]:
            raise RuntimeError(f"the RLlib module's parameters {shapes[1]} do not match the network {shapes[0]}")
        self.pairs = list(zip(ours, theirs))

    def pull(self, steps: int):
        """Copy the RLlib module (weights, Adam state) into the shadow model; returns it."""
        self._copy(self.optimizer, self.model.policy.optimizer, [(theirs, ours) for ours, theirs in self.pairs])
        self.model.num_timesteps = int(steps)
        return self.model

    def push(self) -> None:
        """Copy the shadow model into the RLlib learner and send the weights to every env runner."""
        self._copy(self.model.policy.optimizer, self.optimizer, self.pairs)
        # set directly: RLlib's sync_weights skips runners whose weights' sequence number has not changed
        state = {self.module_id: self.module.get_state(inference_only=True)}
        self.algo.env_runner_group.foreach_env_runner(lambda runner: runner.module.set_state(state))

    @staticmethod
    def _copy(source_optimizer, target_optimizer, pairs) -> None:
        import torch

        with torch.no_grad():
            for source, target in pairs:
                target.copy_(source)
                state = source_optimizer.state.get(source)
                if state:
                    target_optimizer.state[target] = {k: v.detach().clone() for k, v in state.items()}
                else:
                    target_optimizer.state.pop(target, None)


# ------------------------------------------------------------------ training
def train(config_path, overrides=(), address: str | None = None, num_env_runners: int = 2, mapping: str = "auto",
          resume: bool = False, overwrite: bool = False, quiet: bool = False):
    """Train as the config says on RLlib; writes the run directory the SB3 backend writes (module docstring).

    ``address``: a Ray cluster (``HOST:PORT``, ``ray://HOST:PORT`` or
    ``auto``); default: a local Ray. Returns the trainer's ``TrainResult``.
    """
    from kakurega.agents.training.trainer import _prepare_resume

    config = validate_config(config_path, list(overrides)) if isinstance(config_path, dict) else \
        load_config(config_path, list(overrides))
    mapping = config_mapping(config, mapping)
    check_supported(config, mapping)
    runners = max(0, int(num_env_runners))
    out = Path(config["output_dir"]).resolve()
    say = (lambda *a: None) if quiet else print
    if out.exists() and not out.is_dir():
        raise ConfigError(f"output_dir {out} is a file, not a directory")
    if not resume and run_dir.holds_files(out):
        if not overwrite:
            raise ConfigError(f"{out} already holds files; pass --resume to continue a run there, --overwrite to "
                              "replace one, or choose another output_dir")
        run_dir.check_replaceable(out)
    created = not out.exists()
    with run_dir.RunLock(out):
        try:
            run_dir.check_entries(out)
            if resume:
                found = _prepare_resume(config, out, say)
            else:
                if overwrite and (out / run_dir.MANIFEST).is_file():
                    run_dir.remove_run_files(out)
                found = None
                run_dir.write_manifest(out)
            run_dir.atomic_write_bytes(out / "config.yaml", dump_config(config).encode())
            try:
                return _run(config, out, found, mapping, address, runners, say, quiet)
            except BaseException:
                if not resume and not checkpoints.checkpoints(out / "checkpoints"):
                    run_dir.remove_run_files(out)  # nothing kept: the corrected rerun needs no --overwrite
                raise
        finally:
            if created and out.is_dir() and not any(p.name != run_dir.LOCK for p in out.iterdir()):
                (out / run_dir.LOCK).unlink(missing_ok=True)
                out.rmdir()


def _ppo_settings(config: dict) -> dict:
    ppo = {PPO_KEYS[key]: value for key, value in config["ppo"].items() if key in PPO_KEYS and value is not None}
    ppo["train_batch_size_per_learner"] = config["ppo"]["n_steps"] * config["n_envs"]
    ppo["minibatch_size"] = min(ppo.get("minibatch_size", 128), ppo["train_batch_size_per_learner"])
    # SB3's PPO has neither a KL penalty nor a clipped value loss
    ppo.update(use_kl_loss=False, vf_clip_param=float("inf"))
    return ppo


def _run(config: dict, out: Path, found, mapping: str, address, runners: int, say, quiet: bool):
    import ray
    import torch

    from kakurega.agents.training.trainer import run_logger
    from kakurega.integrations.rllib import algorithm_config, module_ids

    if config["torch_threads"]:
        torch.set_num_threads(config["torch_threads"])
    started = connect(address, runners, quiet)
    algo = None
    try:
        algo = algorithm_config(
            config["env"], config["env_kwargs"], mapping, config["opponents"], num_env_runners=runners,
            num_envs_per_env_runner=max(1, config["n_envs"] // max(runners, 1)),
            hidden=config["network"]["hidden"], activation=config["network"]["activation"], seed=config["seed"],
            ppo=_ppo_settings(config), learner_seat=config["learner_seat"],
        ).build_algo()
        parts = sorted(int(p.name[4:]) for p in (out / "logs").glob("part*") if p.name[4:].isdigit())
        formats = ["csv"] + (["tensorboard"] if config["logging"]["tensorboard"] else [])
        logger = run_logger(out / "logs" / f"part{(parts[-1] + 1) if parts else 0}", formats)
        shadow = ShadowModel(algo, module_ids(mapping, 1)[0], config)
        return _loop(config, out, found, mapping, algo, shadow, logger, runners, say, quiet)
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


def _loop(config, out, found, mapping, algo, shadow, logger, runners, say, quiet):
    from kakurega.agents.training.export import export_policy
    from kakurega.agents.training.trainer import (
        RunClock,
        TrainResult,
        _crossed,
        _report,
        periodic_evaluation,
        policy_fields,
        save_checkpoint,
    )
    from kakurega.integrations.rllib import OUTCOMES_KEPT
    from kakurega.integrations.rllib_league import League

    model = shadow.model
    elapsed = None
    if found is not None:
        path, contents = found
        restored = checkpoints.restore(model, contents, path)
        elapsed = restored["elapsed"]
        if note := checkpoints.threads_note(restored["torch_threads"]):
            say(note)
        shadow.push()
        say(f"resuming {out} from {path.name} ({model.num_timesteps} steps)")
    elif config["pretrain"]["steps"]:
        from kakurega.agents.training.pretrain import warm_start

        warm_start(model, config, logger, say, progress=config["logging"]["progress_bar"] and not quiet)
        shadow.push()
    base = int(model.num_timesteps)
    league = League(config, out, algo) if mapping == "learner" else None
    if league is not None:
        league.start(shadow.pull(base))
    cpu_start, runners_cpu_start = time.process_time(), _runners_cpu(algo)
    # the run's training time counts on from the checkpoint's (the driver's and the env runners' CPU together)
    clock = RunClock(cpu=lambda: time.process_time() + _runners_cpu(algo))
    clock.resume(elapsed)
    steps, baseline, history = base, None, []
    outcomes = deque(maxlen=OUTCOMES_KEPT)
    bar = None
    if config["logging"]["progress_bar"] and not quiet:
        from tqdm import tqdm

        bar = tqdm(total=config["total_timesteps"], initial=base, unit="step", desc="rllib ppo")
    try:
        while steps < config["total_timesteps"]:
            result = algo.train()
            last, steps = steps, base + _sampled(result)
            if bar is not None:
                bar.update(steps - last)
            runs = result.get("env_runners", {})
            returns = runs.get("episode_return_mean")
            if mapping == "shared":  # RLlib's mean is every seat's returns summed (0 in a zero-sum game): player_0's
                returns = runs.get("agent_episode_returns_mean", {}).get("player_0")
            history.append({"env_steps": steps, "episode_return_mean": returns,
                            "episodes": runs.get("num_episodes_lifetime")})
            if returns is not None:
                logger.record("rollout/ep_rew_mean", float(returns))
                logger.record("rollout/ep_len_mean", float(runs.get("episode_len_mean", 0.0)))
            outcomes.extend(_take_outcomes(algo))
            _record_outcomes(logger, outcomes)
            logger.record("time/total_timesteps", steps)
            logger.record("time/iterations", len(history))
            logger.dump(steps)
            if league is not None:
                league.after_iteration(last, steps, shadow.pull(steps))
            if config["evaluation"]["every"] and _crossed(last, steps, config["evaluation"]["every"]):
                meta, layers = _snapshot(shadow.pull(steps), config)
                baseline = periodic_evaluation(config, out, meta, layers, steps, clock.wall(), logger, baseline)
                logger.dump(steps)
            if _crossed(last, steps, config["checkpoint"]["every"]):
                save_checkpoint(shadow.pull(steps), config, out, clock)
    finally:
        if bar is not None:
            bar.close()
    model = shadow.pull(steps)
    save_checkpoint(model, config, out, clock)
    policy_path = export_policy(
        model, out / "policy.safetensors", config["env"], config["env_kwargs"],
        extra={"config_name": config["name"], "trained_with": "rllib",
               "wall_seconds_training": round(clock.wall(), 1), **policy_fields(config)},
    )
    wall, cpu = clock.wall(), time.process_time() - cpu_start
    runners_cpu = _runners_cpu(algo) - runners_cpu_start
    say(f"trained {steps} steps on RLlib in {wall:.0f}s{' over every part of the run' if clock.resumed else ''}; "
        f"policy: {policy_path}")
    result = _report(config, out, TrainResult(out, policy_path, config, steps, wall), clock.cpu(), clock, say)
    summary = json.loads((out / "summary.json").read_text())
    summary.update(backend="rllib", mapping=mapping, num_env_runners=runners, history=history,
                   cpu_seconds_driver=round(cpu, 1), cpu_seconds_env_runners=round(runners_cpu, 1),
                   env_runner_nodes=sorted(set(_runner_nodes(algo))), opponent_draws=_opponent_draws(algo))
    run_dir.atomic_write_bytes(out / "summary.json", json.dumps(summary, indent=2).encode())
    return result


def _take_outcomes(algo) -> list[tuple[str, float]]:
    """The outcomes of the games every env of every env runner finished since the last call."""
    def take(runner):
        return [o for env in getattr(getattr(runner, "env", None), "envs", ()) for o in env.unwrapped.take_outcomes()]

    return [outcome for taken in algo.env_runner_group.foreach_env_runner(take) for outcome in taken]


def _record_outcomes(logger, outcomes) -> None:
    """The SB3 backend's outcome logs: score and win/shared/draw rates of the last games (``agents.outcome``)."""
    if outcomes:
        n = len(outcomes)
        logger.record("rollout/score", sum(share for _, share in outcomes) / n)
        for key, outcome in (("win_rate", "win"), ("shared_win_rate", "shared"), ("draw_rate", "draw")):
            logger.record(f"rollout/{key}", sum(o == outcome for o, _ in outcomes) / n)


def _sampled(result: dict) -> int:
    """Env steps sampled since the algorithm was built (each one a learning agent's move)."""
    for source in (result, result.get("env_runners", {})):
        if "num_env_steps_sampled_lifetime" in source:
            return int(source["num_env_steps_sampled_lifetime"])
    raise RuntimeError(f"RLlib's result holds no num_env_steps_sampled_lifetime (keys: {sorted(result)[:20]})")


def _snapshot(model, config: dict) -> tuple[dict, list]:
    from kakurega.agents.training.export import policy_metadata

    return policy_metadata(model, config["env"], config["env_kwargs"])


def _opponent_draws(algo) -> dict[str, int]:
    """How many opponents each pool entry gave, over every env of every env runner (empty without a pool)."""
    def counts(runner):
        return [dict(env.unwrapped.pool.draw_counts) for env in getattr(getattr(runner, "env", None), "envs", ())
                if env.unwrapped.pool is not None]

    total: dict[str, int] = {}
    for per_runner in algo.env_runner_group.foreach_env_runner(counts):
        for per_env in per_runner:
            for entry, count in per_env.items():
                total[entry] = total.get(entry, 0) + count
    return total


def _runners_cpu(algo) -> float:
    """CPU seconds the remote env runners' processes have used so far (the driver's own are counted apart)."""
    return float(sum(algo.env_runner_group.foreach_env_runner(lambda runner: time.process_time(),
                                                               local_env_runner=False)))


def _runner_nodes(algo) -> list[str]:
    """The Ray node id of every remote env runner (the local one when there is none)."""
    import ray

    return algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                    local_env_runner=algo.env_runner_group.num_remote_workers() == 0)
