"""Training throughput (``kakurega bench --training``) and a profile of a learner step (``--profile``).

**Throughput.** Learner steps per second of sb3-contrib's MaskablePPO
through :class:`SingleAgentView` against random opponents, for the newest
version of every game (``--only`` picks any registered env), next to the
same algorithm on PettingZoo's ``connect_four_v3`` through a tutorial-style
single-agent wrapper (:class:`TutorialWrapper`, one policy playing every
seat), in the same run. Held fixed on both sides: MaskablePPO with an MLP of
[64, 64] (separate actor and critic), 8 env copies, rollouts of 256 steps,
minibatches of 256, 4 epochs, seed 0, the same number of learner steps,
one torch thread. The kakurega rows build the model as ``kakurega train``
does (:func:`build_ppo`, through
:func:`~kakurega.agents.training.compact_policy.build_maskable_ppo`: the
compact policy by default, or with ``exact`` sb3-contrib's numbers); the
anchor is built as the PettingZoo tutorial builds it. Each case learns beside its own anchor
learner, the two taking turns one rollout at a time (:func:`measure_pair`),
and its ratio divides by that anchor's rate; repeats are interleaved, and
the median and the range over repeats are reported (the anchor row: the
median of all its measurements). With ``DummyVecEnv`` the
rate is per second of this process's CPU time; with ``SubprocVecEnv`` per
second of wall time (the work is in the workers).

**Profile.** The same learning, one case at a time, with every piece of a
learner step timed where it is called (exclusive time: a piece called inside
another counts once, for itself): the env's rules and bookkeeping, its
observation encoding, the opponents' choices, the masks, the move features,
the view itself (its own copies and dicts), the vector env, the policy's
forward pass while collecting rollouts, the PPO update (forward, backward,
Adam) and the rest (rollout buffer, callbacks). This is a benchmark, not a
test: nothing here asserts a speed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import statistics
import time

import numpy as np

ANCHOR = "pettingzoo/connect_four_v3 (tutorial wrapper)"
#: the PPO settings held fixed for every case (the anchor's)
PPO = dict(n_steps=256, batch_size=256, n_epochs=4, seed=0)
NET_ARCH = [64, 64]
N_ENVS = 8
#: the pieces of a learner step, in the order the profile prints them
SECTIONS = ("env rules", "observation", "opponents", "masks", "move features", "view", "vec env",
            "policy forward", "PPO update", "other")


class TutorialWrapper:
    """PettingZoo classic env as one gymnasium env, in the style of PettingZoo's SB3 action-mask tutorial.

    One policy plays every seat: ``step`` plays the current player's action
    and returns the next player's observation. Unlike the tutorial, the
    reward returned is the acting player's own (the tutorial returned the
    next player's), so the learner is rewarded for its own moves.
    """

    def __init__(self, make_env):
        import gymnasium

        self.env = make_env()
        self.env.reset(seed=0)
        agent = self.env.possible_agents[0]
        space = self.env.observation_space(agent)["observation"]
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, shape=(int(np.prod(space.shape)),), dtype=np.float32)
        self.action_space = self.env.action_space(agent)

    def _observation(self):
        observation = self.env.observe(self.env.agent_selection)
        return np.asarray(observation["observation"], dtype=np.float32).ravel()

    def reset(self, seed=None, options=None):
        self.env.reset(seed=seed)
        return self._observation(), {}

    def step(self, action):
        actor = self.env.agent_selection
        self.env.step(int(action))
        reward = float(self.env.rewards[actor])
        done = any(self.env.terminations.values()) or any(self.env.truncations.values())
        return self._observation(), reward, done, False, {}

    def action_masks(self):
        return np.asarray(self.env.observe(self.env.agent_selection)["action_mask"], dtype=bool)


def _as_gymnasium(make_wrapper):
    """A gymnasium.Env class around a TutorialWrapper factory (SB3 checks the type)."""
    import gymnasium

    class Env(gymnasium.Env):
        def __init__(self):
            self.inner = make_wrapper()
            self.observation_space = self.inner.observation_space
            self.action_space = self.inner.action_space

        def reset(self, seed=None, options=None):
            super().reset(seed=seed)
            return self.inner.reset(seed=seed)

        def step(self, action):
            return self.inner.step(action)

        def action_masks(self):
            return self.inner.action_masks()

    return Env()


def connect_four():
    """The anchor's env: connect_four_v3 through the tutorial-style wrapper."""
    from pettingzoo.classic import connect_four_v3

    return _as_gymnasium(lambda: TutorialWrapper(connect_four_v3.env))


#: the opponents of the kakurega cases unless told otherwise
DEFAULT_OPPONENTS = ("random",)


def kakurega_view(name: str, config: dict, opponents=DEFAULT_OPPONENTS):
    """A kakurega env's single-seat view against ``opponents`` (agent specs, one drawn per seat; illegal actions raise)."""
    from kakurega.agents.training.view import SingleAgentView

    return SingleAgentView(name, config, list(opponents), illegal_action="raise")


def case_configurations(only: str | None = None) -> list[tuple[str, dict]]:
    """``(env, options)`` of the kakurega cases: the newest version of every game in its first registered
    configuration, or every env whose name contains ``only``."""
    from kakurega.envs import ENV_SPECS
    from kakurega.envs.registry import latest_envs

    names = [n for n in ENV_SPECS if only in n] if only else latest_envs()
    return [(name, ENV_SPECS[name].configurations[0]) for name in names]


def cases(only: str | None = None, opponents=DEFAULT_OPPONENTS) -> list[tuple[str, object, bool]]:
    """``(label, env factory, is kakurega)``: the anchor, then the newest version of every game (or ``only``'s
    matches) against ``opponents`` (agent specs: ``random``, ``heuristic``, ``pretrained``, ``policy:PATH``...)."""
    found = [(ANCHOR, connect_four, False)]
    for name, config in case_configurations(only):
        label = name + "".join(f" {k}={v}" for k, v in config.items())
        found.append((label, functools.partial(kakurega_view, name, config, tuple(opponents)), True))
    return found


def build_ppo(vec, kakurega: bool, distribution: str = "compact"):
    """MaskablePPO with the fixed settings; a kakurega case gets what ``kakurega train`` gives its policy.

    ``distribution`` is the config's ``network.masked_distribution`` (exact or compact).
    """
    from sb3_contrib import MaskablePPO

    from kakurega.agents.training.compact_policy import build_maskable_ppo

    if kakurega:
        model = build_maskable_ppo(vec, distribution, policy_kwargs=dict(net_arch=NET_ARCH), **PPO)
    else:
        model = MaskablePPO("MlpPolicy", vec, policy_kwargs=dict(net_arch=NET_ARCH), **PPO)
    model.set_logger(silent_logger())
    return model


def silent_logger():
    """SB3's logger as ``learn()`` makes it without ``verbose`` (it records, writes nothing), minus the empty
    ``SB3-<time>`` folder that ``learn()`` would make in the system's temp folder at every call."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


class _Learner:
    """One MaskablePPO and its vector env, learning in chunks; counts its steps and the seconds they took."""

    def __init__(self, factory, kakurega: bool, kind: str, n_envs: int, distribution: str = "compact"):
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        self.vec = (SubprocVecEnv if kind == "subproc" else DummyVecEnv)([factory] * n_envs)
        self.model = build_ppo(self.vec, kakurega, distribution)
        self.clock = time.perf_counter if kind == "subproc" else time.process_time
        self.steps, self.seconds = 0, 0.0

    def learn(self, steps: int) -> None:
        before, start = self.model.num_timesteps, self.clock()
        self.model.learn(steps, reset_num_timesteps=before == 0)
        self.seconds += self.clock() - start
        self.steps += self.model.num_timesteps - before

    def rate(self) -> float:
        return self.steps / self.seconds


def measure_pair(factory, kind: str, steps: int, n_envs: int = N_ENVS,
                 distribution: str = "compact") -> tuple[float, float]:
    """Learner steps/s of the anchor and of a kakurega case, learning by turns one rollout at a time.

    Each side learns ``steps`` steps in chunks of one rollout (``n_steps x
    n_envs``), the two sides taking turns, so that a slow spell of the shared
    machine slows both sides of the ratio instead of one.
    """
    anchor = case = None
    try:
        anchor = _Learner(connect_four, False, kind, n_envs)
        case = _Learner(factory, True, kind, n_envs, distribution)
        chunk = PPO["n_steps"] * n_envs
        for _ in range(max(1, -(-steps // chunk))):
            anchor.learn(chunk)
            case.learn(chunk)
        return anchor.rate(), case.rate()
    finally:
        for learner in (anchor, case):
            if learner is not None:
                learner.vec.close()


def training_throughput(steps: int, only: str | None = None, vec_envs=("dummy", "subproc"), n_envs: int = N_ENVS,
                        repeats: int = 3, distribution: str = "compact", opponents=DEFAULT_OPPONENTS) -> dict:
    """Learner steps/s of MaskablePPO on every case beside the anchor, ``repeats`` interleaved repeats.

    ``distribution``: the kakurega cases' masked distribution (exact or compact); the anchor keeps sb3-contrib's.
    ``opponents``: the kakurega cases' opponent specs (the anchor's learner plays both seats).
    """
    import torch

    torch.set_num_threads(1)
    found = cases(only, opponents)
    rates = {(label, kind): [] for label, _, _ in found for kind in vec_envs}
    ratios = {(label, kind): [] for label, _, _ in found for kind in vec_envs}
    for _ in range(repeats):
        for kind in vec_envs:
            for label, factory, _ in found[1:]:
                anchor_rate, rate = measure_pair(factory, kind, steps, n_envs, distribution)
                rates[ANCHOR, kind].append(anchor_rate)
                ratios[ANCHOR, kind].append(1.0)
                rates[label, kind].append(rate)
                ratios[label, kind].append(rate / anchor_rate)
    rows = []
    for label, _, _ in found:
        row = {"env": label}
        for kind in vec_envs:
            if not rates[label, kind]:  # the anchor alone (no case matched)
                continue
            row[f"{kind}_steps_per_s"] = statistics.median(rates[label, kind])
            row[f"{kind}_repeats"] = rates[label, kind]
            row[f"{kind}_ratio"] = statistics.median(ratios[label, kind])
            row[f"{kind}_ratio_range"] = [min(ratios[label, kind]), max(ratios[label, kind])]
        rows.append(row)
    return {"steps": steps, "repeats": repeats, "n_envs": n_envs, "vec_envs": list(vec_envs), "ppo": PPO,
            "net_arch": NET_ARCH, "masked_distribution": distribution, "opponents": list(opponents),
            "load_average_at_start": list(os.getloadavg()), "rows": rows}


def format_training_table(report: dict) -> str:
    """The training throughput as a Markdown table (medians; the ratio's range over repeats in brackets)."""
    kinds = report["vec_envs"]
    head = " | ".join(f"{k} steps/s | {k} x connect_four [range]" for k in kinds)
    lines = [f"| env | {head} |", "|---|" + "---:|" * (2 * len(kinds))]
    for row in report["rows"]:
        if f"{kinds[0]}_steps_per_s" not in row:
            continue
        cells = " | ".join(
            f"{row[f'{k}_steps_per_s']:,.0f} | {row[f'{k}_ratio']:.2f} "
            f"[{row[f'{k}_ratio_range'][0]:.2f}-{row[f'{k}_ratio_range'][1]:.2f}]" for k in kinds)
        lines.append(f"| {row['env']} | {cells} |")
    return "\n".join(lines)


# ------------------------------------------------------------------ profile
class Sections:
    """Exclusive wall time per named section of code, from wrappers put around the calls that enter them."""

    def __init__(self, clock=time.perf_counter):
        self.clock = clock
        self.seconds = dict.fromkeys(SECTIONS, 0.0)
        self._stack: list[list] = []  # [section, start, time spent in nested sections]

    def wrap(self, section: str, function):
        """``function`` timed as ``section`` (its nested sections' time excluded)."""
        clock, stack, seconds = self.clock, self._stack, self.seconds

        @functools.wraps(function)
        def timed(*args, **kwargs):
            frame = [section, clock(), 0.0]
            stack.append(frame)
            try:
                return function(*args, **kwargs)
            finally:
                stack.pop()
                elapsed = clock() - frame[1]
                seconds[section] += elapsed - frame[2]
                if stack:
                    stack[-1][2] += elapsed

        return timed

    def on(self, owner, name: str, section: str) -> None:
        """Time ``owner.name`` (an instance's method or a module's function) as ``section``."""
        setattr(owner, name, self.wrap(section, getattr(owner, name)))


@contextlib.contextmanager
def _patched(module, name: str, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def _instrument(sections: Sections, model, vec, kakurega: bool) -> None:
    """Wrap the calls of one model and its vector env's envs (instance attributes only)."""
    sections.on(model, "train", "PPO update")
    sections.on(model.policy, "forward", "policy forward")
    sections.on(vec, "step_wait", "vec env")
    for env in vec.envs:
        sections.on(env, "step", "view")
        sections.on(env, "reset", "view")
        sections.on(env, "action_masks", "masks")
        if kakurega:
            sections.on(env.raw, "step", "env rules")
            sections.on(env.raw, "encode", "observation")
            if env.move_features is not None:
                env.move_features = sections.wrap("move features", env.move_features)
        else:
            inner = env.inner
            sections.on(inner.env, "step", "env rules")
            sections.on(inner, "_observation", "observation")


def network_floor(observation_size: int, n_actions: int, steps: int, n_envs: int = N_ENVS) -> float:
    """CPU µs per learner step of the same networks in a bare torch loop: what no PPO code around them can remove.

    Per rollout of ``n_steps x n_envs`` steps: ``n_steps`` forward passes of a
    batch of ``n_envs`` through the actor and the critic, then ``n_epochs``
    passes over minibatches: forward, a loss of the chosen actions' logits and
    the values (no distribution at all), backward, gradient clipping and Adam
    (``foreach``), on random inputs.
    """
    import torch as th
    from torch import nn

    def mlp(outputs: int):
        sizes = [observation_size, *NET_ARCH]
        layers = [layer for i in range(len(NET_ARCH)) for layer in (nn.Linear(sizes[i], sizes[i + 1]), nn.Tanh())]
        return nn.Sequential(*layers, nn.Linear(sizes[-1], outputs))

    rollout, batch = PPO["n_steps"] * n_envs, PPO["batch_size"]
    with th.random.fork_rng():
        th.manual_seed(0)
        actor, critic = mlp(n_actions), mlp(1)
        observations = th.rand(rollout, observation_size)
        actions = th.randint(0, n_actions, (rollout, 1))
    parameters = [*actor.parameters(), *critic.parameters()]
    optimizer = th.optim.Adam(parameters, lr=3e-4, eps=1e-5, foreach=True)

    def one_rollout():
        with th.no_grad():
            for i in range(0, rollout, n_envs):
                actor(observations[i:i + n_envs]), critic(observations[i:i + n_envs])
        for _ in range(PPO["n_epochs"]):
            for i in range(0, rollout, batch):
                inputs = observations[i:i + batch]
                loss = actor(inputs).gather(1, actions[i:i + batch]).mean() + critic(inputs).mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(parameters, 0.5)
                optimizer.step()

    one_rollout()  # warm-up
    rollouts = max(1, -(-steps // rollout))
    start = time.process_time()
    for _ in range(rollouts):
        one_rollout()
    return 1e6 * (time.process_time() - start) / (rollouts * rollout)


def profile_case(factory, kakurega: bool, steps: int, n_envs: int = N_ENVS, distribution: str = "compact") -> dict:
    """Seconds per section of one DummyVecEnv learning of ``steps`` learner steps, after a warm-up rollout.

    Also the network floor (:func:`network_floor`) of the case's network shapes.
    """
    import sb3_contrib.ppo_mask.ppo_mask as ppo_mask
    from stable_baselines3.common.vec_env import DummyVecEnv

    from kakurega.agents.training import view

    vec = DummyVecEnv([factory] * n_envs)
    try:
        model = build_ppo(vec, kakurega, distribution)
        model.learn(PPO["n_steps"] * n_envs)  # warm-up: first-call costs of torch and the envs
        plain_start = time.process_time()
        model.learn(steps, reset_num_timesteps=False)
        plain_cpu = time.process_time() - plain_start
        sections = Sections()
        _instrument(sections, model, vec, kakurega)
        learn = sections.wrap("other", model.learn)
        with _patched(view, "choose_action", sections.wrap("opponents", view.choose_action)), \
                _patched(ppo_mask, "get_action_masks", sections.wrap("masks", ppo_mask.get_action_masks)):
            start = time.perf_counter()
            learn(steps, reset_num_timesteps=False)
            total = time.perf_counter() - start
    finally:
        vec.close()
    floor = network_floor(int(np.prod(model.observation_space.shape)), int(model.action_space.n), steps, n_envs)
    return {"steps": steps, "cpu_seconds_unprofiled": plain_cpu, "wall_seconds_profiled": total,
            "seconds": sections.seconds, "network_floor_us_per_step": floor}


def training_profile(steps: int, only: str | None = None, distribution: str = "compact",
                     opponents=DEFAULT_OPPONENTS) -> dict:
    """The profile of a learner step for the anchor and every case (``distribution``, ``opponents``: the kakurega
    cases')."""
    import torch

    torch.set_num_threads(1)
    rows = []
    for label, factory, kakurega in cases(only, opponents):
        rows.append({"env": label, **profile_case(factory, kakurega, steps, distribution=distribution)})
    return {"steps": steps, "n_envs": N_ENVS, "ppo": PPO, "net_arch": NET_ARCH, "masked_distribution": distribution,
            "opponents": list(opponents), "load_average_at_start": list(os.getloadavg()), "rows": rows}


def format_profile_table(report: dict) -> str:
    """Each case's µs per learner step (unprofiled CPU time), its network floor and the share of each section, as Markdown."""
    lines = ["| env | µs/step | network floor µs/step | " + " | ".join(SECTIONS) + " |",
             "|---|---:|---:|" + "---:|" * len(SECTIONS)]
    for row in report["rows"]:
        per_step = 1e6 * row["cpu_seconds_unprofiled"] / row["steps"]
        total = sum(row["seconds"].values())
        shares = " | ".join(f"{100 * row['seconds'][s] / total:.0f} %" for s in SECTIONS)
        lines.append(f"| {row['env']} | {per_step:,.0f} | {row['network_floor_us_per_step']:,.0f} | {shares} |")
    return "\n".join(lines)


# ------------------------------------------------------------------ operators
def operator_profile(factory, kakurega: bool, distribution: str = "compact", top: int = 8) -> dict:
    """torch.profiler's ``top`` operators (self CPU time) of one PPO update and of one rollout's collection.

    One DummyVecEnv learner after a warm-up rollout; each part is profiled
    alone (``collect_rollouts`` of one rollout, then ``train``). Shares are
    of the operators' total self time in that part (the envs' Python is not
    an operator: it is in the section profile).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv
    from torch.profiler import profile

    vec = DummyVecEnv([factory] * N_ENVS)
    try:
        model = build_ppo(vec, kakurega, distribution)
        model.learn(PPO["n_steps"] * N_ENVS)  # warm-up
        _, callback = model._setup_learn(PPO["n_steps"] * N_ENVS, None, reset_num_timesteps=False)
        parts = {}
        for part, run in (("rollout", lambda: model.collect_rollouts(vec, callback, model.rollout_buffer, PPO["n_steps"])),
                          ("update", model.train)):
            with profile() as profiler:
                run()
            events = profiler.key_averages()
            total = sum(event.self_cpu_time_total for event in events)
            ranked = sorted(events, key=lambda event: event.self_cpu_time_total, reverse=True)[:top]
            parts[part] = [{"operator": event.key, "calls": event.count, "share": event.self_cpu_time_total / total,
                            "self_us_per_call": event.self_cpu_time_total / event.count} for event in ranked]
    finally:
        vec.close()
    return parts


def training_operators(only: str | None = None, distribution: str = "compact", opponents=DEFAULT_OPPONENTS) -> dict:
    """:func:`operator_profile` of the anchor and every case."""
    import torch

    torch.set_num_threads(1)
    rows = [{"env": label, **operator_profile(factory, kakurega, distribution)}
            for label, factory, kakurega in cases(only, opponents)]
    return {"n_envs": N_ENVS, "ppo": PPO, "net_arch": NET_ARCH, "masked_distribution": distribution,
            "opponents": list(opponents), "rows": rows}


def format_operator_table(report: dict) -> str:
    """The top operators of each case's rollout and update, as Markdown (share of the part's operator time)."""
    lines = ["| env | part | top operators (share of operator time, µs per call) |", "|---|---|---|"]
    for row in report["rows"]:
        for part in ("rollout", "update"):
            ops = ", ".join(f"{op['operator']} {100 * op['share']:.0f} % ({op['self_us_per_call']:,.0f})"
                            for op in row[part])
            lines.append(f"| {row['env']} | {part} | {ops} |")
    return "\n".join(lines)
