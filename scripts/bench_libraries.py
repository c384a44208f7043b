"""How fast one kakurega env runs through each library's standard path (docs/integrations.md).

For one env (default ``animal_chain_v1``) it measures, with the same uniformly
random legal actions wherever a library only steps the env:

- ``pettingzoo``: the AEC loop of ``env()`` (``agent_iter``, ``last``, ``step``);
  every other row is compared with it;
- ``gymnasium``: the single-seat id (random opponents act inside ``step``), one
  env, ``SyncVectorEnv`` of 4 and ``AsyncVectorEnv`` of 2 (spawn: one process each);
- ``supersuit``: ``vectorize_aec_env_v0`` of 4 flat-observation envs;
- ``tianshou``: ``examples/tianshou_dqn.py`` for one epoch (a masked DQN, a
  ``DummyVectorEnv`` of 4 single-seat envs, test episodes included);
- ``openspiel``: random play through the bridge's states (``legal_actions``,
  ``apply_action``, the seed draws included);
- ``sb3``: sb3-contrib's ``MaskablePPO.learn`` (8 envs, rollouts of 128, a
  [64, 64] MLP) on the single-seat id: learner steps/s, updates included;
- ``cleanrl``: ``examples/cleanrl_ppo.py`` (its own SPS: learner steps/s);
- ``rllib``: one ``train()`` of RLlib PPO from
  :func:`~kakurega.integrations.rllib.algorithm_config` (``shared`` mapping, the
  env in the driver process): env steps sampled and trained per second;
- ``agilerl``: AgileRL's ``DQN.get_action`` with the mask, stepping the
  single-seat view, a ``learn`` every 4 steps (AgileRL pins an older
  PettingZoo: run it in its own environment, ``.venv-agilerl``).

Wall-clock time, one torch thread, nothing asserted: a benchmark, not a test.
On a shared machine absolute figures move by tens of percent; the ratio to
the ``pettingzoo`` row of the same run moves less.

Usage: ``python -m kakurega.scripts.bench_libraries [--env NAME] [--seconds S] [--only LIB ...] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _gym_id(env_name: str) -> str:
    from kakurega.envs.registry import get_spec

    return "kakurega.envs:" + get_spec(env_name).pettingzoo_id


def _random_legal(mask, choose) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[choose(len(legal))])


def pettingzoo(env_name: str, seconds: float) -> dict:
    """The AEC loop of ``env()``."""
    from kakurega.envs import make

    env, choose, steps, games = make(env_name), random.Random(0).randrange, 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            env.step(None if terminated or truncated else _random_legal(obs["action_mask"], choose))
            steps += 1
        games += 1
    return {"path": "`env()` AEC loop (`agent_iter`, `last`, `step`)", "unit": "env steps/s",
            "steps": steps, "seconds": time.perf_counter() - start}


def _drive_vector(envs, seconds: float, n: int) -> tuple[int, float]:
    """Random masked actions on a Gymnasium vector env of ``n`` copies: (learner steps, seconds)."""
    choose, steps = random.Random(0).randrange, 0
    _obs, info = envs.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        # a copy that just ended shows no legal action: its next action only starts a new game (autoreset)
        actions = np.array([_random_legal(mask, choose) if mask.any() else 0 for mask in info["action_mask"]])
        _obs, _reward, _terminated, _truncated, info = envs.step(actions)
        steps += n
    return steps, time.perf_counter() - start


def gymnasium(env_name: str, seconds: float) -> list[dict]:
    """The single-seat id: one env, ``SyncVectorEnv`` of 4, ``AsyncVectorEnv`` of 2 (spawn)."""
    import gymnasium as gym

    env_id, rows = _gym_id(env_name), []
    env, choose, steps = gym.make(env_id), random.Random(0).randrange, 0
    _obs, info = env.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, _reward, terminated, truncated, info = env.step(_random_legal(info["action_mask"], choose))
        steps += 1
        if terminated or truncated:
            _obs, info = env.reset()
    rows.append({"path": "`gymnasium.make(id)`, one env", "unit": "learner steps/s", "steps": steps,
                 "seconds": time.perf_counter() - start})
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(env_id)] * 4)
    steps, spent = _drive_vector(sync, seconds, 4)
    rows.append({"path": "`SyncVectorEnv`, 4 envs", "unit": "learner steps/s", "steps": steps, "seconds": spent})
    sync.close()
    spawned = gym.vector.AsyncVectorEnv([lambda: gym.make(env_id)] * 2, context="spawn")
    steps, spent = _drive_vector(spawned, seconds, 2)
    rows.append({"path": "`AsyncVectorEnv`, 2 processes (spawn)", "unit": "learner steps/s", "steps": steps,
                 "seconds": spent})
    spawned.close()
    return rows


def supersuit(env_name: str, seconds: float) -> dict:
    """``vectorize_aec_env_v0`` of 4 flat-observation envs, every seat stepped."""
    import supersuit as ss

    from kakurega.envs import make
    from kakurega.integrations.flat import flat_observation_v0

    vec, choose, steps = ss.vectorize_aec_env_v0(flat_observation_v0(make(env_name)), num_envs=4), random.Random(0).randrange, 0
    vec.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, _rewards, terminations, truncations, _ends, _truncated_envs, passes, infos = vec.last(observe=False)
        live = [not (terminations[i] or truncations[i] or passes[i]) and infos[i]["action_mask"].any() for i in range(4)]
        vec.step(np.array([_random_legal(infos[i]["action_mask"], choose) if live[i] else 0 for i in range(4)]))
        steps += 4 - int(passes.sum())  # an env whose seat is not the one selected passes: no step
    return {"path": "`vectorize_aec_env_v0(flat_observation_v0(make(...)), num_envs=4)`", "unit": "env steps/s",
            "steps": steps, "seconds": time.perf_counter() - start}


def tianshou(env_name: str, seconds: float) -> dict:
    """``examples/tianshou_dqn.py`` for one epoch (its collectors and trainer), in this process."""
    sys.path.insert(0, str(ROOT / "examples"))
    import tianshou_dqn

    epoch_steps = max(1000, int(seconds * 200) // 100 * 100)
    result, _buffer, _learner = tianshou_dqn.main(["--env", env_name, "--epochs", "1", "--epoch-steps", str(epoch_steps)])
    return {"path": "`examples/tianshou_dqn.py --epochs 1` (masked DQN, 4 envs; Tianshou's own timing of the epoch)",
            "unit": "learner steps/s (updates included)", "steps": int(result.train_step),
            "seconds": float(result.timing.total_time)}


def openspiel(env_name: str, seconds: float) -> dict:
    """Random play through the bridge's states (the four seed draws counted as moves)."""
    import pyspiel

    from kakurega.integrations import openspiel as bridge

    game = pyspiel.load_game(bridge.short_name(env_name))
    rng, steps = np.random.default_rng(0), 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(int(rng.integers(bridge.SEED_OUTCOMES)) if state.is_chance_node()
                               else int(rng.choice(state.legal_actions())))
            steps += 1
    return {"path": "`pyspiel.load_game(...)` states: `legal_actions`, `apply_action`", "unit": "moves/s",
            "steps": steps, "seconds": time.perf_counter() - start}


def sb3(env_name: str, seconds: float) -> dict:
    """``MaskablePPO.learn`` on the single-seat id, 8 envs in one process."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from kakurega.scripts.bench_training import silent_logger

    vec = make_vec_env(_gym_id(env_name), n_envs=8, seed=0)
    model = MaskablePPO("MlpPolicy", vec, n_steps=128, batch_size=256, n_epochs=4, seed=0,
                        policy_kwargs={"net_arch": [64, 64]})
    model.set_logger(silent_logger())
    steps = max(1024, int(seconds * 400) // 1024 * 1024)
    start = time.perf_counter()
    model.learn(steps)
    return {"path": "`MaskablePPO.learn`, `make_vec_env(id, n_envs=8)`", "unit": "learner steps/s (updates included)",
            "steps": model.num_timesteps, "seconds": time.perf_counter() - start}


def cleanrl(env_name: str, seconds: float) -> dict:
    """``examples/cleanrl_ppo.py`` in its own process; its reported steps and seconds."""
    steps = max(2048, int(seconds * 400) // 512 * 512)
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "cleanrl_ppo.py"), "--env-id", _gym_id(env_name),
         "--total-timesteps", str(steps)], capture_output=True, text=True, timeout=1800,
        env=dict(os.environ, OMP_NUM_THREADS="1"))  # one torch thread, as in this process
    if done.returncode:
        raise RuntimeError(f"examples/cleanrl_ppo.py failed: {done.stderr[-2000:]}")
    found = re.search(r"^(\d+) steps, .*, ([0-9.]+)s$", done.stdout, re.MULTILINE)
    if not found:
        raise RuntimeError(f"examples/cleanrl_ppo.py printed no steps and seconds: {done.stdout[-500:]}")
    return {"path": "`examples/cleanrl_ppo.py` (4 envs, `SyncVectorEnv`)", "unit": "learner steps/s (updates included)",
            "steps": int(found.group(1)), "seconds": float(found.group(2))}


def rllib(env_name: str, seconds: float) -> dict:
    """One ``train()`` of RLlib PPO (``shared`` mapping, no remote env runners)."""
    import ray

    from kakurega.integrations.rllib import algorithm_config

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)  # never join another Ray
    try:
        config = algorithm_config(env_name, mapping="shared", num_env_runners=0)
        config = config.training(train_batch_size_per_learner=2000, minibatch_size=250, num_epochs=4)
        algo = config.build_algo()
        start = time.perf_counter()
        result = algo.train()
        spent = time.perf_counter() - start
        steps = int(result["env_runners"]["num_env_steps_sampled"])
        algo.stop()
    finally:
        ray.shutdown()
    return {"path": "`algorithm_config(env, mapping='shared', num_env_runners=0).build_algo().train()`",
            "unit": "env steps/s (sampled and trained)", "steps": steps, "seconds": spent}


def agilerl(env_name: str, seconds: float) -> dict:
    """AgileRL's DQN acting on the single-seat view with the mask, learning every 4 steps."""
    from agilerl.algorithms import DQN
    from agilerl.components.replay_buffer import ReplayBuffer
    from tensordict import TensorDict

    from kakurega.agents.training import SingleAgentView

    env = SingleAgentView(env_name)
    agent = DQN(env.observation_space, env.action_space, batch_size=64)
    memory = ReplayBuffer(max_size=10_000)
    obs, info = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        action = int(agent.get_action(obs[None], epsilon=0.1, action_mask=info["action_mask"][None])[0])
        next_obs, reward, terminated, truncated, info = env.step(action)
        memory.add(TensorDict({"obs": obs[None], "action": np.array([[action]]), "reward": np.array([[reward]]),
                               "next_obs": next_obs[None], "done": np.array([[float(terminated)]])}, batch_size=[1]))
        steps += 1
        if steps % 4 == 0 and len(memory) >= 64:
            agent.learn(memory.sample(64))
        obs = next_obs
        if terminated or truncated:
            obs, info = env.reset()
    return {"path": "`DQN.get_action(..., action_mask=...)` on `SingleAgentView`, `learn` every 4 steps",
            "unit": "learner steps/s (updates included)", "steps": steps, "seconds": time.perf_counter() - start}


LEARNERS = {"tianshou", "sb3", "cleanrl", "rllib", "agilerl"}  #: the rows that train a torch network
LIBRARIES = {"pettingzoo": pettingzoo, "gymnasium": gymnasium, "supersuit": supersuit, "tianshou": tianshou,
             "openspiel": openspiel, "sb3": sb3, "cleanrl": cleanrl, "rllib": rllib, "agilerl": agilerl}


def measure(env_name: str, seconds: float, only=None) -> list[dict]:
    """Every library's rows (or ``only`` those); a library that is not installed gets a row saying so."""
    rows = []
    for library, run in LIBRARIES.items():
        if only and library not in only:
            continue
        try:
            found = run(env_name, seconds)
        except ImportError as error:
            rows.append({"library": library, "skipped": f"not installed ({error.name})"})
            continue
        for row in found if isinstance(found, list) else [found]:
            rows.append({"library": library, **row, "rate": row["steps"] / row["seconds"]})
    return rows


def format_table(rows: list[dict]) -> str:
    """A markdown table, with each rate's ratio to the ``pettingzoo`` row of the same run."""
    reference = next((row["rate"] for row in rows if row["library"] == "pettingzoo" and "rate" in row), None)
    lines = ["| library | path | rate | x env() loop |", "|---|---|---:|---:|"]
    for row in rows:
        if "skipped" in row:
            lines.append(f"| {row['library']} | {row['skipped']} | - | - |")
            continue
        ratio = f"{row['rate'] / reference:.2f}" if reference else "-"
        lines.append(f"| {row['library']} | {row['path']} | {row['rate']:,.0f} {row['unit']} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="animal_chain_v1", help="registered env (default animal_chain_v1)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default 5)")
    parser.add_argument("--only", nargs="*", choices=sorted(LIBRARIES), help="only these libraries")
    parser.add_argument("--json", default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    if args.json:  # before the measurements: a report that cannot be written is said at once
        from kakurega.scripts.destination import writable_file

        writable_file(args.json, "--json")
    if set(args.only or LIBRARIES) & LEARNERS:
        import torch

        # on a small shared machine torch's default threads fight the other processes for the cores:
        # examples/cleanrl_ppo.py ran 1,024 steps in 0.8 s with one thread, in 34.5 s with the default
        torch.set_num_threads(1)
    os.environ.setdefault("PYTHONWARNINGS", "ignore::DeprecationWarning")
    rows = measure(args.env, args.seconds, args.only)
    print(format_table(rows))
    if args.json:
        from kakurega.scripts.destination import write_text_file

        write_text_file(args.json, json.dumps({"env": args.env, "seconds": args.seconds, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
