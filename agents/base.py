"""The one agent protocol every kakurega player follows.

An agent is built from an :class:`AgentContext` (static facts about the env:
its name, options, observation layout, action count, the rules configuration)
and then, each turn, receives **only its own observation dict**
(``observation`` + ``action_mask``) and returns a legal action id. It never
receives the env, the game state or the env's rules object: an agent that uses
the rules builds its own from the context (``context.new_rules()``).

Search agents set ``wants_sampler = True``; runners then also hand them a
determinization sampler made by the env for the agent's own player
(``rng -> state`` consistent with what that player knows, built from that
player's information state alone: see
:class:`~kakurega.envs.core.game.DeterminizationSampler`). Every runner
(training view, tournaments, play) goes through :func:`choose_action`, so the
two kinds of agent are driven the same way.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kakurega.envs.core.game import Game, RulesConfig
from kakurega.envs.core.layout import ObservationLayout


@dataclass(frozen=True)
class AgentContext:
    """Static facts an agent may know before play: nothing about any particular deal."""

    env_name: str  #: registry name, e.g. "kakurenbo_v0"
    env_kwargs: dict = field(default_factory=dict)  #: options the env was created with
    layout: ObservationLayout | None = None  #: decodes the observation vector by piece name
    num_actions: int = 0
    num_players: int = 0
    #: the rules configuration as data (never a rules object): see :meth:`new_rules`
    rules: RulesConfig | None = None

    def new_rules(self) -> Game | None:
        """A rules object of the env's configuration for the caller alone (None when the context has no rules).

        Every agent that uses the rules builds its own: a rules object caches
        what it computes from the states it is given, so sharing one would
        hand one player's private computations to another.
        """
        return None if self.rules is None else self.rules.build()

    @classmethod
    def from_env(cls, env, env_name: str, env_kwargs: dict | None = None) -> AgentContext:
        """The context of a (wrapped or raw) kakurega env: nothing in it refers to the env.

        ``env_kwargs`` None: the options the env was made with (those not at their default). Given, they must be
        the env's (a ``ValueError`` says what differs): a context's options choose a shipped bot (``pretrained``)
        and are what a policy file is checked against, so options other than the env's would load a bot of
        another configuration into it."""
        raw = env.unwrapped
        name, built = raw.metadata.get("name"), getattr(raw, "options", None)
        if name is not None and name != env_name:
            from kakurega.envs.registry import ENV_SPECS

            # a PettingZoo id ("kakurega/kakurenbo-v1") names the env as make() takes it: the context keeps its name
            if not any(spec.name == name and spec.pettingzoo_id == env_name for spec in ENV_SPECS.values()):
                raise ValueError(f"AgentContext.from_env: the env is {name}, not {env_name!r}")
            env_name = name
        if name is not None and built is not None:  # a registered env (a test's toy game may be neither)
            from kakurega.agents.policy import resolved_env_options

            env_options = resolved_env_options(name, built)
            if env_kwargs is None:
                defaults = resolved_env_options(name, {})
                env_kwargs = {key: built[key] for key, value in env_options.items() if defaults.get(key) != value}
            elif (given := resolved_env_options(name, env_kwargs)) != env_options:
                from kakurega.envs.core.safe_load import short_repr

                differ = "; ".join(f"{key}: given {short_repr(given.get(key), 60)}, env {short_repr(env_options.get(key), 60)}"
                                   for key in sorted(set(given) | set(env_options)) if given.get(key) != env_options.get(key))
                raise ValueError(f"AgentContext.from_env: env_kwargs are not the options {name} was made with ({differ}); "
                                 "leave env_kwargs out to take the env's")
        return cls(
            env_name=env_name,
            env_kwargs=dict(env_kwargs or {}),
            layout=raw.layout,
            num_actions=raw.game.num_actions,
            num_players=raw.game.num_players,
            rules=raw.game.rules_config(),
        )


class StopSignal:
    """A bot's ``should_stop`` while it thinks for a runner that bounds its time (the web app, ``kakurega play``):
    true once any of ``flags`` is (the web app: the game abandoned, its tab closed) or, with a ``deadline``
    (``time.monotonic()``), once the bot's time is up.

    It holds those flags and the deadline only. A closure over the session handed the bot the session: its
    ``__closure__`` reached the env and the true state (a seeker read the child's square through it).
    """

    __slots__ = ("_flags", "_deadline")

    def __init__(self, *flags, deadline: float | None = None):
        self._flags = tuple(flag for flag in flags if flag is not None)
        self._deadline = deadline

    def __call__(self) -> bool:
        if any(flag() for flag in self._flags):
            return True
        return self._deadline is not None and time.monotonic() > self._deadline


class Agent(ABC):
    """A player: observation dict in, legal action id out."""

    #: True for agents that search over determinizations (see choose_action)
    wants_sampler: bool = False
    #: set by a runner that bounds thinking time (the web app, ``kakurega play``: a :class:`StopSignal`): a
    #: searching agent calls it between simulations (IS-MCTS; Summer's heuristic between the start squares it
    #: scores) and, once it returns True, plays its best move so far; None: search to the end
    should_stop: Callable[[], bool] | None = None

    #: the agent's own seed (a spec's ``seed=`` option), mixed into every seed a runner gives it by :meth:`reseed`
    own_seed: int | None = None

    def __init__(self, context: AgentContext, seed: int | None = None):
        self.context = context
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed) -> None:
        """Start the agent's random draws anew from a runner's seed (an int, or a tuple of ints).

        Runners (tournaments, the training view's opponents, demonstrations)
        reseed every agent before each game, so that a game is a pure function
        of its seeds. An agent with a seed of its own (``own_seed``) mixes it
        in: two runs that differ only in that seed play different games, and
        the same seeds give the same moves.
        """
        parts = [int(p) for p in seed] if isinstance(seed, (tuple, list)) else [int(seed)]
        self.rng = np.random.default_rng(parts if self.own_seed is None else [*parts, self.own_seed])

    def reset(self) -> None:  # noqa: B027 (an optional hook: most agents keep no memory)
        """Called at the start of every game; agents with memory clear it here."""

    @abstractmethod
    def act(self, observation: dict, sampler=None) -> int:
        """A legal action id for ``observation`` (its ``action_mask`` marks the legal ones).

        ``sampler`` is given only to agents with ``wants_sampler``.
        """

    def move_probabilities(self, observation: dict) -> np.ndarray:
        """The probability that :meth:`act` plays each action id for ``observation`` (exact analyses need it).

        Agents that know it (random play, policy files) override this; the
        others (heuristics, search) raise ``NotImplementedError`` saying so.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not state its move probabilities: exact analyses take agents that do "
            "(random, policy:PATH greedy or sampled)"
        )

    def piece(self, observation: dict, name: str) -> np.ndarray:
        """Piece ``name`` of the observation vector, shaped as the layout declares."""
        return self.context.layout.view(observation["observation"], name)


def reseed(agent, seed) -> None:
    """:meth:`Agent.reseed` ``agent``; an agent-like object that is not an :class:`Agent` gets a new ``rng``."""
    if isinstance(agent, Agent):
        agent.reseed(seed)
    else:
        agent.rng = np.random.default_rng(seed)


def seat_seed(table_seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` of a table dealt from ``table_seed`` (``kakurega play --seed``, a web game
    started with a seed): a hash of the two, so the bot's generator does not show the deal's seed. Its
    ``rng.bit_generator.seed_seq.entropy`` is this number; with ``table_seed + 1 + seat`` a bot read the deal's
    seed from its own and dealt the game again, every hidden card seen. Where no table seed is given, bots draw
    their seeds apart from the deal's (:func:`kakurega.agents.record.new_seed`).

    A hash hides a seed that cannot be guessed, not a small one: code that knows or tries the table's seed
    (``--seed 0``) can deal the game itself. Seeds reproduce games; they are not secrets.
    """
    return int(np.random.SeedSequence([int(table_seed), _SEAT_STREAM, int(seat)]).generate_state(1)[0])


_SEAT_STREAM = 0x5EA7  # keeps the bots' seeds apart from other hashes of the same table seed


def legal_ids(mask) -> np.ndarray:
    """The legal action ids of an action mask (``np.flatnonzero``): a one-byte mask is read as booleans, which
    numpy scans at once (``flatnonzero`` counts int8 entries one by one: 3.7 µs for 1,269 of them)."""
    mask = np.asarray(mask).ravel()
    return (mask.view(bool) if mask.dtype.itemsize == 1 else mask != 0).nonzero()[0]


class RandomAgent(Agent):
    """Uniformly random over the legal actions."""

    def act(self, observation: dict, sampler=None) -> int:
        legal = legal_ids(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action (is it this agent's turn?)")
        # the draw of rng.choice(legal) without its overhead (the same stream: tests/test_random_agent.py)
        return int(legal[self.rng.integers(0, legal.size)])

    def move_probabilities(self, observation: dict) -> np.ndarray:
        """Uniform over the legal actions."""
        mask = np.asarray(observation["action_mask"], dtype=np.float64)
        if not mask.any():
            raise ValueError("RandomAgent: the action mask has no legal action (is it this agent's turn?)")
        return mask / mask.sum()


def choose_action(agent: Agent, env, agent_name: str, observation: dict | None = None) -> int:
    """Ask ``agent`` for the move of ``agent_name`` in ``env`` (wrapped or raw).

    The agent sees its own observation and, if it wants one, a sampler of
    determinizations for its own player; nothing else of the env.
    """
    if observation is None:
        observation = env.observe(agent_name)
    if agent.wants_sampler:
        return int(agent.act(observation, env.unwrapped.determinization_sampler(agent_name)))
    return int(agent.act(observation))
