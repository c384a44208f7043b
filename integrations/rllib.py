"""Ray RLlib: kakurega envs as RLlib multi-agent envs with action masking, and training on a Ray cluster.

Install with ``pip install "kakurega[rllib]"``. Nothing in kakurega's core
imports this module.

**The env.** :class:`KakuregaMultiAgentEnv` (registered with Tune as
``"kakurega"``; config ``{"env": NAME, "env_kwargs": {...}, "mapping": ...}``)
turns a turn-based AEC env into RLlib's ``MultiAgentEnv``: each step returns
the observation of the one agent to act, as
``{"observations": float32 vector, "action_mask": float32 0/1}``, the form of
RLlib's ``ActionMaskingTorchRLModule``. An agent's reward is everything its
seat received since its previous observation (opponents' moves included), paid
with its next observation; when the game ends every learning agent receives
its final observation and reward. Observations are each player's own: another
player's view never appears under an agent's id. An illegal action (possible
only without masking) ends the game with -1 for its player, as ``env()`` does;
an action that is no integer in range is refused in words (a ``TypeError`` or
``ValueError``), as the single-seat views refuse it. A game that ends before
any learning seat acts is dealt again (at most
:data:`~kakurega.agents.training.view.MAX_REDEALS` in a row; then a
``RuntimeError`` names the env's options).
A game cut off at its step or turn limit ends *terminated*, not truncated:
the rules score it, its last rewards are its result, and RLlib's value
targets bootstrap through a truncation (they would add the critic's value of
the final position to that result).
Each finished game's outcome (win/shared/draw/loss and its score,
:mod:`kakurega.agents.outcome`) is kept once per game: the learning seat's,
or ``player_0``'s when every seat learns (the ``shared`` and ``per_seat``
mappings, where every seat's outcome together would make the mean score
``1/n`` by construction); the newest
:data:`OUTCOMES_KEPT`, until :meth:`KakuregaMultiAgentEnv.take_outcomes`
hands them over (the training logs' ``rollout/score`` and rates).

**Policy mappings** (``mapping``):

- ``"shared"``: every seat plays the one module ``"shared"`` (self-play with
  parameter sharing);
- ``"per_seat"``: seat ``i`` plays module ``"seat_i"``;
- ``"learner"``: each episode one seat (random, or ``learner_seat``) plays
  module ``"learner"``; every other seat draws from ``opponents`` through
  :class:`~kakurega.agents.training.league.OpponentPool` (weighted, as in
  training configs): agent specs and the league entries ``self`` and
  ``snapshots`` (weights handed in with :meth:`KakuregaMultiAgentEnv.set_league`)
  are frozen kakurega agents acting inside the env (each sees only its own
  observation), so RLlib neither trains nor sees them.

:func:`algorithm_config` builds a ``PPOConfig`` (env, module spec, mapping,
env runners) and :func:`export_module` writes a trained module's actor as a
kakurega policy file. :mod:`kakurega.integrations.rllib_train` runs a kakurega YAML training config
on RLlib (``kakurega train CONFIG --backend rllib [--address HOST:PORT]``).
"""

from __future__ import annotations

from collections import deque

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from kakurega.agents.outcome import classify_outcome, rules_winners, win_share
from kakurega.agents.training.view import MAX_REDEALS

MAPPINGS = ("shared", "per_seat", "learner")
ENV_NAME = "kakurega"
OUTCOMES_KEPT = 100  #: finished games' outcomes an env keeps until they are taken (the logs' window)


class KakuregaMultiAgentEnv(MultiAgentEnv):
    """A kakurega AEC env as an RLlib ``MultiAgentEnv`` with action masks in the observations."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        from kakurega.agents.base import AgentContext
        from kakurega.envs.registry import make

        # RLlib seeds env i of runner w with seed + w + i, so two runners' envs share seeds: the runner's index
        # (from RLlib's EnvContext) goes into every stream, keeping each env's games its own
        self.worker_index = int(getattr(config, "worker_index", 0) or 0)
        config = dict(config or {})
        unknown = set(config) - {"env", "env_kwargs", "mapping", "opponents", "seed", "learner_seat"}
        if unknown or "env" not in config:
            raise ValueError(
                f"KakuregaMultiAgentEnv config: needs 'env' and takes env_kwargs, mapping, opponents, seed, "
                f"learner_seat; got {sorted(config)}"
            )
        self.env_name = config["env"]
        self.env_kwargs = dict(config.get("env_kwargs") or {})
        self.mapping = config.get("mapping", "shared")
        if self.mapping not in MAPPINGS:
            raise ValueError(f"mapping must be one of {MAPPINGS}, got {self.mapping!r}")
        # the wrapped env: an illegal action (only possible unmasked) ends the game with -1 for its player
        self.raw = make(self.env_name, **self.env_kwargs)
        self.context = AgentContext.from_env(self.raw, self.env_name, self.env_kwargs)
        self.possible_agents = list(self.raw.possible_agents)
        self.agents = list(self.possible_agents)
        layout, num_actions = self.context.layout, self.context.num_actions
        # one space object per agent: each has its own sampler, which seeding another agent's leaves alone
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "action_mask": gymnasium.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
                    "observations": gymnasium.spaces.Box(0.0, layout.high.copy(), (layout.size,), np.float32),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(num_actions) for a in self.possible_agents}
        self.pool = None
        self.learner_seat = config.get("learner_seat", "random")
        if self.mapping == "learner":
            from kakurega.agents.training.league import OpponentPool

            self.pool = OpponentPool(config.get("opponents") or ["random"], self.context)
        self.rng = np.random.default_rng(None if config.get("seed") is None else [config["seed"], self.worker_index])
        self._frozen: dict[str, object] = {}
        self._pending: dict[str, float] = {}
        self._totals: dict[str, float] = {}
        self._started: set[str] = set()
        self.outcomes: deque = deque(maxlen=OUTCOMES_KEPT)

    # ------------------------------------------------------------------ API
    def reset(self, *, seed=None, options=None):
        """Deal a new game; returns the observation of the first learning agent to act."""
        if seed is not None:
            self.rng = np.random.default_rng([seed, self.worker_index])
        for _ in range(MAX_REDEALS):
            if not self._deal():
                return self._observations(), {}
        # (a loop, not a recursion: a step limit that ends every deal first overflowed the stack)
        raise RuntimeError(f"{self.env_name}: {MAX_REDEALS} games in a row ended before a learning seat acted (the "
                           "frozen seats' moves ended each one, or the env's step limit cut it off first: its options "
                           f"{self.env_kwargs or 'the defaults'}; a step limit must leave a learning seat a move)")

    def _deal(self) -> bool:
        """Deal one game and let frozen seats move; True when it ended before any learner acted."""
        self.raw.reset(seed=int(self.rng.integers(2**31 - 1)))
        self._frozen = {}
        if self.pool is not None:
            seat = (int(self.rng.integers(len(self.possible_agents))) if self.learner_seat == "random"
                    else int(self.learner_seat))
            others = [a for i, a in enumerate(self.possible_agents) if i != seat]
            self._frozen = {name: agent for name, (_, agent) in zip(others, self.pool.draw(self.rng, len(others)))}
        self.agents = [a for a in self.possible_agents if a not in self._frozen]
        self._pending = {a: 0.0 for a in self.agents}
        self._totals = {a: 0.0 for a in self.possible_agents}
        self._started = set()
        self._collect_rewards()
        return self._advance()

    def step(self, action_dict):
        """Apply the acting agent's action, let frozen seats move, return the next learner's observation."""
        agent = self.raw.agent_selection
        if agent not in action_dict:
            raise ValueError(f"step() needs an action of {agent!r}, the agent to act; got actions of {sorted(action_dict)}")
        # an integer (numpy's included) in range, or a TypeError/ValueError saying so: int() made 1.5, "1" and True moves
        self.raw.step(self.raw.unwrapped.validate_action(action_dict[agent]))
        self._collect_rewards()
        over = self._advance()
        if over:
            agents = [a for a in self.agents if a in self._started]
            observations = {a: self._observation(a) for a in agents}
            rewards = {a: self._pay(a) for a in agents}
            returns = [self._totals[a] for a in self.possible_agents]
            # once per game: the learning seat's outcome, player_0's when every seat learns
            told = agents if self._frozen else [a for a in agents if a == self.possible_agents[0]]
            raw = self.raw.unwrapped
            winners = rules_winners(raw.game, raw.game_state)  # who won is the rules' call
            for agent in told:
                seat = self.possible_agents.index(agent)
                self.outcomes.append((classify_outcome(returns, seat, winners), win_share(returns, seat, winners)))
            # a game cut off at its step limit is over too: the rules score it (its last rewards are its result),
            # and RLlib's value targets would add V(final observation) to a truncated episode's last reward
            return observations, rewards, {"__all__": True}, {"__all__": False}, {}
        current = self.raw.agent_selection
        return self._observations(), {current: self._pay(current)}, {"__all__": False}, {"__all__": False}, {}

    # ------------------------------------------------------------ internals
    def set_league(self, current=None, snapshots=None) -> None:
        """The learner's weights (``(metadata, layers)``) for ``self`` seats and/or the frozen snapshots
        (``{name: (metadata, layers)}``, shipped as data: a remote node need not see the driver's files)."""
        if self.pool is None:
            return
        if current is not None:
            self.pool.set_current(*current)
        if snapshots is not None:
            self.pool.set_snapshots(list(snapshots), loaded=snapshots)

    def take_outcomes(self) -> list[tuple[str, float]]:
        """The ``(outcome, score)`` of each learning agent in the games finished since the last call, oldest first."""
        taken = list(self.outcomes)
        self.outcomes.clear()
        return taken

    def _collect_rewards(self) -> None:
        for agent in self.possible_agents:
            reward = float(self.raw.rewards.get(agent, 0.0))
            self._totals[agent] += reward
            if agent in self._pending:
                self._pending[agent] += reward

    def _pay(self, agent: str) -> float:
        reward, self._pending[agent] = self._pending[agent], 0.0
        return reward

    def _advance(self) -> bool:
        """Let frozen kakurega agents act until a learner must act; True when the game is over."""
        from kakurega.agents.base import choose_action

        raw = self.raw
        while True:
            if all(raw.terminations[a] or raw.truncations[a] for a in raw.possible_agents):
                return True
            current = raw.agent_selection
            if current not in self._frozen:
                self._started.add(current)
                return False
            raw.step(choose_action(self._frozen[current], raw, current))
            self._collect_rewards()

    def _observations(self) -> dict:
        current = self.raw.agent_selection
        return {current: self._observation(current)}

    def _observation(self, agent: str) -> dict:
        observed = self.raw.observe(agent)
        return {
            "action_mask": np.asarray(observed["action_mask"], dtype=np.float32),
            "observations": np.array(observed["observation"], dtype=np.float32),
        }


# ---------------------------------------------------------------- mappings
def module_ids(mapping: str, num_players: int) -> list[str]:
    """The RLlib module ids a mapping trains."""
    if mapping == "shared":
        return ["shared"]
    if mapping == "per_seat":
        return [f"seat_{i}" for i in range(num_players)]
    if mapping == "learner":
        return ["learner"]
    raise ValueError(f"mapping must be one of {MAPPINGS}, got {mapping!r}")


def policy_mapping_fn(mapping: str):
    """RLlib's ``policy_mapping_fn`` for a mapping: agent id ``player_i`` -> module id."""
    if mapping == "shared":
        return lambda agent_id, episode, **kwargs: "shared"
    if mapping == "per_seat":
        return lambda agent_id, episode, **kwargs: f"seat_{agent_id.rpartition('_')[2]}"
    if mapping == "learner":
        return lambda agent_id, episode, **kwargs: "learner"
    raise ValueError(f"mapping must be one of {MAPPINGS}, got {mapping!r}")


def module_spec(mapping: str, num_players: int, hidden=(64, 64), activation: str = "tanh"):
    """A ``MultiRLModuleSpec`` of action-masking PPO modules, one per module id of the mapping."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    model_config = {"fcnet_hiddens": list(hidden), "fcnet_activation": activation, "head_fcnet_hiddens": [], "vf_share_layers": False}
    return MultiRLModuleSpec(
        rl_module_specs={
            module_id: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config)
            for module_id in module_ids(mapping, num_players)
        }
    )


def register_env() -> str:
    """Register :class:`KakuregaMultiAgentEnv` with Tune as ``"kakurega"`` (on this process; workers import this module)."""
    from ray.tune.registry import register_env as tune_register_env

    tune_register_env(ENV_NAME, lambda config: KakuregaMultiAgentEnv(dict(config)))
    return ENV_NAME


def algorithm_config(
    env_name: str,
    env_kwargs: dict | None = None,
    mapping: str = "shared",
    opponents=("random",),
    num_env_runners: int = 2,
    num_envs_per_env_runner: int = 1,
    hidden=(64, 64),
    activation: str = "tanh",
    seed: int = 0,
    ppo: dict | None = None,
    learner_seat="random",
):
    """A ``PPOConfig`` training ``env_name`` with masked modules under ``mapping``.

    The env is given to RLlib as the class :class:`KakuregaMultiAgentEnv`, not
    a registered name: runners on other nodes import it by its module path
    (a name registered in this process never reaches a cluster through Ray
    Client). RLlib's env pre-check is off: it steps with unmasked random
    actions, each an illegal move that the env reports with a warning.
    """
    from ray.rllib.algorithms.ppo import PPOConfig

    from kakurega.envs.registry import make

    num_players = make(env_name, wrapped=False, **(env_kwargs or {})).game.num_players
    env_config = {"env": env_name, "env_kwargs": dict(env_kwargs or {}), "mapping": mapping, "seed": seed}
    if mapping == "learner":
        env_config["opponents"] = list(opponents)
        env_config["learner_seat"] = learner_seat
    config = (
        PPOConfig()
        .environment(KakuregaMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner)
        .multi_agent(policies=set(module_ids(mapping, num_players)), policy_mapping_fn=policy_mapping_fn(mapping))
        .rl_module(rl_module_spec=module_spec(mapping, num_players, hidden, activation))
        .debugging(seed=seed)
    )
    if ppo:
        config = config.training(**ppo)
    return config


# ------------------------------------------------------------------ export
def actor_network(module):
    """The acting path of an ``ActionMaskingTorchRLModule`` as an ``nn.Sequential`` (observation -> logits)."""
    import torch.nn as nn

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", encoder)
    # every leaf module in order: export_policy refuses, by name, one it cannot reproduce (never skipped)
    leaves = [m for part in (actor, module.pi) for m in part.modules() if not list(m.children())]
    return nn.Sequential(*leaves)


def export_module(module, path, env_name: str, env_kwargs: dict | None = None, training_steps: int = 0):
    """Write an RLlib masked PPO module's actor as a kakurega policy file; returns the file."""
    from kakurega.agents.training.export import export_policy

    return export_policy(
        actor_network(module), path, env_name, env_kwargs, training_steps=training_steps, algorithm="ppo",
        extra={"trained_with": "rllib"},
    )


# ------------------------------------------------------------------ training
def train(config_path, overrides=(), **options):
    """Run a kakurega training config on RLlib PPO: see :func:`kakurega.integrations.rllib_train.train`."""
    from kakurega.integrations.rllib_train import train as train_config

    return train_config(config_path, overrides, **options)
