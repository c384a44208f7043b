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
and (re)makes it otherwise; a file made under the config is checked
(:func:`load_demonstrations`) before it is used. Nothing here is game-specific.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kakurega.agents.base import choose_action, reseed
from kakurega.agents.specs import make_agent
from kakurega.agents.training.config import ConfigError
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
        reseed(demo, episode_seed(setup.seed, index, 1))
        demo.reset()
        if student is not None:
            reseed(student, episode_seed(setup.seed, index, 2))
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
    from kakurega.agents.training.run_dir import open_temporary

    tmp = path.with_name(path.name + ".tmp.npz")
    with open_temporary(tmp) as file:  # a link or a FIFO planted at the name: removed, never followed
        np.savez_compressed(file, **arrays, meta=np.array(json.dumps({"key": key, "facts": facts}, sort_keys=True)))
    os.replace(tmp, path)
    return path


#: bound of the rows a data file may hold beyond ``pretrain.steps``: the rest of the game that crossed it
MAX_EXTRA_ROWS = 100_000
MAX_META_CHARS = 1_000_000  #: bound of a data file's ``meta`` (JSON text)
_FACTS = ("episodes", "win_rate", "score")


def _data_error(path, what: str) -> ConfigError:
    return ConfigError(f"pretrain.data {path}: {what}")


def _member_header(archive, name: str, path):
    """``(stream, shape, fortran_order, dtype)`` of ``.npy`` member ``name``: only its header is read."""
    stream = None
    try:
        stream = archive.open(name)
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            header = np.lib.format.read_array_header_1_0(stream, max_header_size=10_000)
        elif version == (2, 0):
            header = np.lib.format.read_array_header_2_0(stream, max_header_size=10_000)
        else:
            raise ValueError(f"npy format version {version}")
    except Exception as error:  # zipfile and numpy's header readers raise ValueError, SyntaxError and others
        if stream is not None:
            stream.close()
        raise _data_error(path, f"member {name} is not a .npy array ({str(error)[:120]})") from None
    return (stream, *header)


def _read_member(archive, name: str, path, dtype, shape_ok, expected: str) -> np.ndarray:
    """Member ``name`` as an array, refused unless its header gives ``dtype`` (a dtype, or a test of one) and a
    shape ``shape_ok`` accepts.

    The header is checked before any value is decompressed, so a small file claiming a huge array costs nothing.
    """
    stream, shape, fortran_order, found = _member_header(archive, name, path)
    with stream:
        if not (dtype(found) if callable(dtype) else found == dtype) or found.hasobject or not shape_ok(shape):
            raise _data_error(path, f"member {name} holds a {' x '.join(map(str, shape)) or 'scalar'} array of {found}; "
                                    f"expected {expected}")
        dtype = found
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        buffer = bytearray(size)
        try:
            view, done = memoryview(buffer), 0
            while done < size:
                count = stream.readinto(view[done:])
                if not count:
                    break
                done += count
            trailing = stream.read(1)
        except Exception as error:  # zlib.error, EOFError, zipfile.BadZipFile (CRC), OSError
            raise _data_error(path, f"member {name} is corrupt or cut short ({str(error)[:120]})") from None
    if done < size or trailing:
        raise _data_error(path, f"member {name} holds {'fewer' if done < size else 'more'} bytes than its header says "
                                f"({size}); the file is corrupt")
    array = np.frombuffer(buffer, dtype=dtype)
    return array.reshape(shape[::-1]).T if fortran_order else array.reshape(shape)


def load_demonstrations(path: str | os.PathLike, key: dict, width: int, num_actions: int) -> dict | None:
    """The demonstrations in ``path`` if it exists and was made under ``key``, else ``None``.

    ``width`` and ``num_actions`` are the network's observation size and the
    env's action count. A file made under ``key`` is checked before use: a
    ``.npz`` of the arrays :func:`save_demonstrations` writes (no pickles, each
    member's dtype and shape read from its header before anything is
    decompressed, at most ``pretrain.steps`` + :data:`MAX_EXTRA_ROWS` rows),
    finite values, legal demonstrated actions; anything else raises
    :class:`~kakurega.agents.training.config.ConfigError` naming the file and the member.
    """
    import zipfile

    from kakurega.envs.core.safe_load import NotRegularFile, load_text, open_regular

    path = Path(path)
    try:
        descriptor, _ = open_regular(path)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise _data_error(path, "not a regular file; expected a .npz file of demonstrations (or no file, to make one)") from None
    except OSError as error:
        raise _data_error(path, f"cannot read it ({error.strerror or error})") from None
    with open(descriptor, "rb") as file:
        try:
            archive = zipfile.ZipFile(file)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
            raise _data_error(path, f"not a .npz archive (a zip of .npy arrays): {str(error)[:120]}; delete it to make "
                                    "the demonstrations again") from None
        with archive:
            return _read_demonstrations(archive, path, key, width, num_actions, load_text)


def _read_demonstrations(archive, path: Path, key: dict, width: int, num_actions: int, load_text) -> dict | None:
    names = sorted(archive.namelist())
    arrays = ["observations", "masks", "actions", "returns"] + (["targets"] if key["target"] == "visits" else [])
    expected = sorted(f"{name}.npy" for name in [*arrays, "meta"])

    def wrong_members():
        return _data_error(path, f"holds the members {', '.join(names[:8]) or 'none'}; expected {', '.join(expected)} "
                                 f"(demonstrations made with pretrain.target {key['target']})")

    if names.count("meta.npy") != 1:
        raise wrong_members()
    meta_text = str(_read_member(archive, "meta.npy", path, lambda d: d.kind == "U" and d.itemsize <= 4 * MAX_META_CHARS,
                                 lambda s: s == (), f"one JSON text of at most {MAX_META_CHARS} characters")[()])
    meta = load_text(meta_text, f"pretrain.data {path}: member meta.npy", json_only=True, max_bytes=MAX_META_CHARS,
                     error=ConfigError)
    if not isinstance(meta, dict) or not isinstance(meta.get("key"), dict) or not isinstance(meta.get("facts"), dict):
        raise _data_error(path, "member meta.npy is not demonstration metadata; expected a JSON object with key and facts")
    if meta["key"] != json.loads(json.dumps(key, sort_keys=True)):
        return None  # made under another config: made again
    if names != expected:
        raise wrong_members()
    facts = meta["facts"]
    if sorted(facts) != sorted(_FACTS) or not _facts_ok(facts):
        raise _data_error(path, f"member meta.npy: facts {sorted(facts)[:6]} must be episodes (a positive integer), "
                                "win_rate (a number from 0 to 1) and score (a finite number)")
    steps = key["steps"]
    rows = (steps, steps + MAX_EXTRA_ROWS)
    span = f"N from {rows[0]} to {rows[1]} (pretrain.steps plus the rest of the last game)"

    def rows_ok(columns):
        return lambda s: len(s) == (1 if columns is None else 2) and rows[0] <= s[0] <= rows[1] and (
            columns is None or s[1] == columns)

    data = {"observations": _read_member(archive, "observations.npy", path, np.dtype("<f4"), rows_ok(width),
                                         f"N x {width} float32 observations (the network's input size), {span}")}
    n = len(data["observations"])

    def same_rows(columns):
        return lambda s: rows_ok(columns)(s) and s[0] == n

    data["masks"] = _read_member(archive, "masks.npy", path, np.dtype("bool"), same_rows(num_actions),
                                 f"{n} x {num_actions} booleans (one action mask per observation)")
    data["actions"] = _read_member(archive, "actions.npy", path, np.dtype("<i8"), same_rows(None),
                                   f"{n} int64 actions (one per observation)")
    data["returns"] = _read_member(archive, "returns.npy", path, np.dtype("<f4"), same_rows(None),
                                   f"{n} float32 returns (one per observation)")
    if "targets" in arrays:
        data["targets"] = _read_member(archive, "targets.npy", path, np.dtype("<f4"), same_rows(num_actions),
                                       f"{n} x {num_actions} float32 visit shares (one row per observation)")
    _check_values(data, path, num_actions)
    data.update(facts)
    return data


def _facts_ok(facts: dict) -> bool:
    def number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    return (isinstance(facts["episodes"], int) and not isinstance(facts["episodes"], bool) and facts["episodes"] >= 1
            and number(facts["win_rate"]) and 0 <= facts["win_rate"] <= 1 and number(facts["score"]))


def _check_values(data: dict, path: Path, num_actions: int) -> None:
    """Refuse non-finite numbers and demonstrated actions that are out of range or illegal."""
    for name in ("observations", "returns", "targets"):
        if name in data and not np.isfinite(data[name]).all():
            raise _data_error(path, f"member {name}.npy holds NaN or infinite values; expected finite numbers")
    actions, masks = data["actions"], data["masks"]
    bad = np.flatnonzero((actions < 0) | (actions >= num_actions))
    if bad.size:
        raise _data_error(path, f"member actions.npy: row {bad[0]} holds action {actions[bad[0]]}; expected actions "
                                f"from 0 to {num_actions - 1} (the env has {num_actions})")
    illegal = np.flatnonzero(~masks[np.arange(len(actions)), actions])
    if illegal.size:
        raise _data_error(path, f"member actions.npy: row {illegal[0]} holds action {actions[illegal[0]]}, which its "
                                "mask in masks.npy forbids; expected the demonstrated move to be legal")
    if "targets" in data:
        targets = data["targets"]
        if (targets < 0).any() or (targets[~masks] != 0).any() or not np.allclose(targets.sum(axis=1), 1, atol=1e-3):
            raise _data_error(path, "member targets.npy: expected visit shares: non-negative, zero on illegal "
                                    "actions, each row summing to 1")


def _data_shape(config: dict) -> tuple[int, int]:
    """``(observation width, action count)`` of the demonstrations of ``config`` (move features included)."""
    from kakurega.agents.policy import context_for

    context = context_for(config["env"], config["env_kwargs"])
    width = int(context.layout.size)
    if config.get("network", {}).get("move_features"):
        from kakurega.agents.move_features import MoveFeatures

        width += MoveFeatures(context).size
    return width, int(context.num_actions)


def demonstrations(config: dict, progress: bool = False, tasks=None) -> tuple[dict, bool]:
    """The config's demonstrations: ``(data, reused)``, reusing or writing ``pretrain.data`` when set.

    The games are played where ``pretrain.backend`` and ``pretrain.address``
    say, or by ``tasks`` if given (see :func:`collect_demonstrations`).
    """
    from kakurega.agents.tasks import task_runner

    pretrain = config["pretrain"]
    key = demonstration_key(config)
    if pretrain["data"]:
        data = load_demonstrations(pretrain["data"], key, *_data_shape(config))
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
