"""Warm start before PPO: imitate an agent, or learn from a search (expert iteration).

Sparse-reward games (a solitaire escape that random play never achieves) give
PPO nothing to learn from at first, and a search player (IS-MCTS) plays better
than any network PPO reaches on two cores. ``pretrain.steps > 0`` first records
that many learner decisions of ``pretrain.agent`` playing the learner's seat in
the single-agent view (same env, seats and opponent pool as training; the
league entries ``self``/``snapshots`` are replaced by random players since no
policy exists yet), then fits the PPO actor and critic to them for
``pretrain.epochs`` passes. PPO then fine-tunes from there.

What the actor learns (``pretrain.target``):

- ``action``: the agent's chosen move (behaviour cloning, masked cross-entropy);
- ``visits``: the root visit distribution of a searching agent
  (``ismcts:...``; the distribution a search ends with carries more than its
  argmax: which moves were close). This is the policy half of expert
  iteration (Anthony, Tian & Barber 2017; AlphaZero's policy target).

The critic always learns the demonstrations' discounted returns (the value
half), weighted by ``pretrain.value_coef``. Search data are slow to make, so
``pretrain.data`` names a file that keeps them: a run reuses it when it was
made by the same env, options, opponents, agent, target, step count and seed,
and (re)makes it otherwise. Nothing here is game-specific.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kakurega.agents.base import choose_action
from kakurega.agents.specs import make_agent
from kakurega.agents.training.view import SingleAgentView

TARGETS = ("action", "visits")


def demonstration_key(config: dict) -> dict:
    """What determines a set of demonstrations (a data file is reused only when this matches)."""
    pretrain = config["pretrain"]
    return {
        "env": config["env"], "env_kwargs": config["env_kwargs"], "opponents": config["opponents"],
        "learner_seat": config["learner_seat"], "gamma": config["ppo"]["gamma"], "seed": config["seed"],
        "agent": pretrain["agent"], "steps": pretrain["steps"], "target": pretrain["target"],
        # (listed only when on, so data files made before the key existed still match)
        **({"move_features": True} if config["network"].get("move_features") else {}),
        **({"move_features_version": version} if (version := _features_version(config)) else {}),
    }


def _features_version(config: dict) -> int:
    """The version of the move features the demonstrations carry (0 without features)."""
    if not config["network"].get("move_features"):
        return 0
    from kakurega.agents.move_features import newest_version

    return newest_version(config["env"])


@dataclass(frozen=True)
class DemonstrationSetup:
    """What a demonstration game is played with, by name: what a worker rebuilds the players from."""

    env: str
    env_kwargs: dict
    opponents: tuple  #: the config's opponents, league entries replaced by random players
    learner_seat: object
    move_features: bool
    agent: str  #: the demonstrator's spec
    target: str
    gamma: float
    seed: int


def episode_seed(seed: int, episode: int, stream: int) -> int:
    """The seed of one stream (0: the deal and opponents, 1: the demonstrator, 2: a student) of episode ``episode``."""
    return int(np.random.SeedSequence([int(seed), int(episode), int(stream)]).generate_state(1)[0])


class _Demonstrator:
    """The view and the players of a :class:`DemonstrationSetup`, built once; episode ``e`` is a pure function of ``e``."""

    def __init__(self, setup: DemonstrationSetup, student=None):
        self.setup, self.student = setup, student
        self.view = SingleAgentView(setup.env, setup.env_kwargs, list(setup.opponents), learner_seat=setup.learner_seat,
                                    illegal_action="raise", move_features=setup.move_features)
        self.demo = make_agent(setup.agent, self.view.context, setup.seed)
        if setup.target == "visits" and not hasattr(self.demo, "last_search"):
            raise ValueError(
                f"pretrain target 'visits' needs a searching agent that reports its root visits (e.g. ismcts:...); "
                f"{setup.agent!r} is a {type(self.demo).__name__}. Use target 'action' to imitate its moves."
            )

    def episode(self, index: int) -> dict:
        """One game: the learner seat's observations, masks, the demonstrator's moves (and visits), returns, outcome."""
        setup, view, demo, student = self.setup, self.view, self.demo, self.student
        obs, _ = view.reset(seed=episode_seed(setup.seed, index, 0))
        demo.rng = np.random.default_rng(episode_seed(setup.seed, index, 1))
        demo.reset()
        if student is not None:
            student.rng = np.random.default_rng(episode_seed(setup.seed, index, 2))
            student.reset()
        size, num_actions = view.context.layout.size, view.context.num_actions
        observations, masks, actions, rewards, targets = [], [], [], [], []
        while True:
            mask = view.action_masks()
            # the players read the env's own observation; ``obs`` (what the network learns from) may
            # carry the move features after it
            observation = {"observation": obs[:size], "action_mask": mask.astype(np.int8)}
            action = choose_action(demo, view.raw, view._learner, observation)
            observations.append(obs)
            masks.append(mask)
            actions.append(action)
            if setup.target == "visits":
                targets.append(visit_distribution(demo.last_search["visits"], action, num_actions))
            played = action if student is None else choose_action(student, view.raw, view._learner, observation)
            obs, reward, terminated, truncated, info = view.step(played)
            rewards.append(reward)
            if terminated or truncated:
                break
        running, returns = 0.0, []
        for r in reversed(rewards):
            running = r + setup.gamma * running
            returns.append(running)
        return {"observations": observations, "masks": masks, "actions": actions, "returns": returns[::-1],
                "targets": targets, "outcome": info.get("outcome"), "score": info.get("score", 0.0)}


def demonstration_episodes(work: tuple[DemonstrationSetup, list[int]]) -> list[dict]:
    """Episodes ``work[1]`` of ``work[0]``: the body of a data step's task."""
    setup, indices = work
    player = _Demonstrator(setup)
    return [player.episode(index) for index in indices]


def _episodes(setup: DemonstrationSetup, steps: int, student, tasks):
    """Episodes 0, 1, 2, ... in order, until they hold ``steps`` decisions: here, or in waves of Ray tasks."""
    if tasks is None or tasks.backend == "local":
        player = _Demonstrator(setup, student)
        index, decisions = 0, 0
        while decisions < steps:
            episode = player.episode(index)
            decisions += len(episode["actions"])
            index += 1
            yield episode
        return
    if student is not None:
        raise ValueError("DAgger's labelling plays the network being trained, which stays in this process; "
                         "only the first demonstrations run as Ray tasks")
    from kakurega.agents.tasks import chunks

    index, decisions, lengths = 0, 0, []
    while decisions < steps:
        mean = (sum(lengths) / len(lengths)) if lengths else None
        count = 4 * tasks.cpus if mean is None else max(2 * tasks.cpus, math.ceil(1.1 * (steps - decisions) / mean))
        wave = list(range(index, index + count))
        index += count
        for results in tasks.map(demonstration_episodes, [(setup, part) for part in chunks(wave, 4 * tasks.cpus)]):
            for episode in results:
                if decisions >= steps:
                    break
                lengths.append(len(episode["actions"]))
                decisions += lengths[-1]
                yield episode
            if decisions >= steps:
                break


def collect_demonstrations(config: dict, agent_spec: str, steps: int, seed: int, target: str = "action",
                           progress: bool = False, student=None, tasks=None) -> dict:
    """``steps``+ decisions of ``agent_spec`` in the learner's seat, in whole games.

    Returns observations, masks, actions, discounted returns and, with
    ``target="visits"``, ``targets``: the search's root visit shares per action
    (a forced move, answered without search, is one-hot). Game ``e`` is dealt,
    and its players seeded, from ``(seed, e)`` alone, so ``tasks`` (an entered
    :class:`~kakurega.agents.tasks.RayTasks`) plays the games as Ray tasks with
    the same data as here.

    ``student`` (an :class:`~kakurega.agents.base.Agent`, e.g. the network
    being trained): the student plays and ``agent_spec`` only labels the
    states it reaches (DAgger: the labels are the teacher's moves, the returns
    the student's). Imitating a teacher only on the teacher's own games leaves
    the student lost once one of its moves leads off the teacher's paths.
    """
    if target not in TARGETS:
        raise ValueError(f"pretrain target must be one of {', '.join(TARGETS)}, got {target!r}")
    if steps < 1:
        raise ValueError(f"demonstrations: steps must be at least 1 decision, got {steps}")
    opponents = [o if o["agent"] not in ("self", "snapshots") else {"agent": "random", "weight": o["weight"]}
                 for o in config["opponents"]]
    setup = DemonstrationSetup(config["env"], dict(config["env_kwargs"]), tuple(opponents), config["learner_seat"],
                               bool(config.get("network", {}).get("move_features", False)), agent_spec, target,
                               config["ppo"]["gamma"], seed)
    if tasks is not None and tasks.backend != "local" and target == "visits":
        _Demonstrator(setup)  # checks the demonstrator here, before any task
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, desc=f"demonstrations ({agent_spec})", unit="move")
    episodes = []
    for episode in _episodes(setup, steps, student, tasks):
        episodes.append(episode)
        if bar is not None:
            bar.update(len(episode["actions"]))
    if bar is not None:
        bar.close()

    def joined(key, dtype):
        return np.asarray([row for episode in episodes for row in episode[key]], dtype=dtype)

    data = {
        "observations": joined("observations", np.float32),
        "masks": joined("masks", bool),
        "actions": joined("actions", np.int64),
        "returns": joined("returns", np.float32),
        "episodes": len(episodes),
        "win_rate": sum(e["outcome"] == "win" for e in episodes) / max(1, len(episodes)),  # outright wins
        "score": sum(e["score"] for e in episodes) / max(1, len(episodes)),  # shared wins count 1/k
    }
    if target == "visits":
        data["targets"] = joined("targets", np.float32)
    return data


def visit_distribution(visits: dict, action: int, num_actions: int) -> np.ndarray:
    """Root visits as shares per action; one-hot on ``action`` when nothing was searched."""
    distribution = np.zeros(num_actions, dtype=np.float32)
    total = sum(visits.values())
    if total > 0:
        for a, n in visits.items():
            distribution[a] = n / total
    else:
        distribution[action] = 1.0
    return distribution


def save_demonstrations(path: str | os.PathLike, data: dict, key: dict) -> Path:
    """Write ``data`` and the ``key`` it was made under as one ``.npz`` file (plain arrays, no pickles)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: v for k, v in data.items() if isinstance(v, np.ndarray)}
    facts = {k: v for k, v in data.items() if not isinstance(v, np.ndarray)}
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays, meta=np.array(json.dumps({"key": key, "facts": facts}, sort_keys=True)))
    os.replace(tmp, path)
    return path


def load_demonstrations(path: str | os.PathLike, key: dict) -> dict | None:
    """The demonstrations in ``path`` if it exists and was made under ``key``, else ``None``."""
    path = Path(path)
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as archive:
        meta = json.loads(str(archive["meta"]))
        if meta["key"] != json.loads(json.dumps(key, sort_keys=True)):
            return None
        data = {name: archive[name] for name in archive.files if name != "meta"}
    data.update(meta["facts"])
    return data


def demonstrations(config: dict, progress: bool = False, tasks=None) -> tuple[dict, bool]:
    """The config's demonstrations: ``(data, reused)``, reusing or writing ``pretrain.data`` when set.

    The games are played where ``pretrain.backend`` and ``pretrain.address``
    say, or by ``tasks`` if given (see :func:`collect_demonstrations`).
    """
    from kakurega.agents.tasks import task_runner

    pretrain = config["pretrain"]
    key = demonstration_key(config)
    if pretrain["data"]:
        data = load_demonstrations(pretrain["data"], key)
        if data is not None:
            return data, True
    with task_runner(pretrain.get("backend", "local"), pretrain.get("address")) if tasks is None else tasks as runner:
        data = collect_demonstrations(config, pretrain["agent"], pretrain["steps"], config["seed"], pretrain["target"],
                                      progress=progress, tasks=runner)
    if pretrain["data"]:
        save_demonstrations(pretrain["data"], data, key)
    return data, False


def behaviour_cloning(model, data: dict, epochs: int, batch_size: int, learning_rate: float = 1e-3, seed: int = 0,
                      value_coef: float | None = None) -> dict:
    """Fit a MaskablePPO policy to demonstrations; returns the final loss and action accuracy.

    The actor learns ``data["targets"]`` (soft, e.g. search visit shares) when
    present, else the demonstrated actions; the critic learns ``data["returns"]``
    with weight ``value_coef`` (default: the model's ``vf_coef``).
    """
    import torch as th
    import torch.nn.functional as F

    policy = model.policy
    policy.set_training_mode(True)
    device = policy.device
    value_coef = model.vf_coef if value_coef is None else value_coef
    obs = th.as_tensor(data["observations"], device=device)
    masks = data["masks"]
    actions = th.as_tensor(data["actions"], device=device)
    returns = th.as_tensor(data["returns"], device=device)
    soft = th.as_tensor(data["targets"], device=device) if "targets" in data else None
    rng = np.random.default_rng(seed)
    n = len(actions)
    saved_rates = [group["lr"] for group in policy.optimizer.param_groups]
    for group in policy.optimizer.param_groups:
        group["lr"] = learning_rate
    loss_value = 0.0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            if soft is None:
                values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
                policy_loss = -log_prob.mean()
            else:
                distribution = policy.get_distribution(obs[idx], action_masks=masks[idx])
                log_probs = th.log_softmax(distribution.distribution.logits, dim=1)
                # illegal actions carry target 0 (masked logits are finite, so 0 * log p stays 0)
                policy_loss = -(soft[idx] * log_probs).sum(dim=1).mean()
                values = policy.predict_values(obs[idx])
            loss = policy_loss + value_coef * F.mse_loss(values.flatten(), returns[idx])
            policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
            loss_value = float(loss.item())
    for group, rate in zip(policy.optimizer.param_groups, saved_rates):
        group["lr"] = rate  # PPO's own schedule takes over from here
    policy.set_training_mode(False)
    with th.no_grad():
        distribution = policy.get_distribution(obs, action_masks=masks)
        predicted = distribution.distribution.probs.argmax(dim=1)
    accuracy = float((predicted == actions).float().mean().item())
    return {"loss": loss_value, "accuracy": accuracy, "samples": n}


def dagger(model, config: dict, data: dict, say=print, progress: bool = False) -> tuple[dict, list[dict]]:
    """``pretrain.dagger_rounds`` rounds of DAgger after the first imitation (Ross, Gordon & Bagnell 2011).

    Each round the network as it now is (greedy) plays ``pretrain.dagger_steps``
    learner decisions, the teacher ``pretrain.agent`` labels every state the
    network reached (its move, or with ``target: visits`` its root visits), the
    labelled states join the data set, and the network is fitted again on the
    whole set. Returns the aggregated data and one dict per round (the
    student's win rate while it was labelled, the fit's loss and accuracy).
    """
    from kakurega.agents.policy import PolicyAgent, context_for
    from kakurega.agents.training.export import policy_metadata

    pretrain = config["pretrain"]
    rounds = []
    for r in range(pretrain["dagger_rounds"]):
        meta, layers = policy_metadata(model, config["env"], config["env_kwargs"],
                                       move_features=config.get("network", {}).get("move_features", False))
        student = PolicyAgent(context_for(config["env"], config["env_kwargs"]), config["seed"], layers=layers,
                              metadata=meta, name="student")
        steps = pretrain["dagger_steps"] or pretrain["steps"]
        labelled = collect_demonstrations(config, pretrain["agent"], steps, config["seed"] + 1 + r, pretrain["target"],
                                          progress=progress, student=student)
        data = {key: np.concatenate([data[key], labelled[key]]) for key in data if isinstance(data[key], np.ndarray)}
        stats = behaviour_cloning(model, data, pretrain["epochs"], pretrain["batch_size"], pretrain["learning_rate"],
                                  config["seed"] + 1 + r, pretrain["value_coef"])
        rounds.append({"round": r + 1, "student_win_rate": labelled["win_rate"], "samples": stats["samples"],
                       "accuracy": stats["accuracy"], "loss": stats["loss"]})
        say(f"DAgger round {r + 1}: the network won {labelled['win_rate']:.0%} of {labelled['episodes']} games while "
            f"{pretrain['agent']} labelled its {len(labelled['actions'])} moves; refitted on {stats['samples']}: "
            f"action accuracy {stats['accuracy']:.0%}")
    return data, rounds


def warm_start(model, config: dict, logger, say=print, progress: bool = False) -> None:
    """The config's imitation warm start of ``model`` (a MaskablePPO): demonstrations, behaviour cloning,
    ``pretrain.dagger_rounds`` of DAgger; logs ``pretrain/*`` rows to ``logger`` (an SB3 logger)."""
    pretrain = config["pretrain"]
    data, reused = demonstrations(config, progress=progress)
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
    if pretrain["dagger_rounds"]:
        _, rounds = dagger(model, config, data, say, progress=progress)
        for row in rounds:
            for key in ("student_win_rate", "samples", "accuracy", "loss"):
                logger.record(f"pretrain/dagger_{key}", row[key])
            logger.dump(row["round"])
