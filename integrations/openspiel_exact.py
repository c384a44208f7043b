"""Small kakurega configurations as OpenSpiel games with explicit chance, for exact algorithms.

>>> import pyspiel
>>> import kakurega.integrations.openspiel_exact  # registers python_kakurega_exact_<configuration>
>>> game = pyspiel.load_game("python_kakurega_exact_summer_tiny")

The bridge (:mod:`kakurega.integrations.openspiel`) draws a 32-bit seed as
its chance, which no algorithm can enumerate. The games here give chance as
the rules make it: every deal, shuffle, coin and card drawn at random is a
chance node whose outcomes are the rules' own draws with their true
probabilities (:mod:`kakurega.envs.core.chance`: the rules run unchanged on a
generator that draws the outcomes it is given). So on a configuration small
enough, OpenSpiel's exact algorithms apply: CFR and CFR+, the exact best
response, ``exploitability.nash_conv``.

Everything else is the bridge's: the same rules, observation tensor and
string, and the same perfect-recall information-state string (the player's
seat, then a line holding a digest of its observation at each completed step
where it is to act or its observation changed, with the action it chose on its
own moves); the draws inside one step add no line. Returns and rewards are the
bridge's (the rules' returns; ``RewardModel.REWARDS`` where the rules pay
during play, each step's change of the returns then being its rewards), and so
is the game info (``min_utility``/``max_utility`` from the rules'
``return_bounds()``, ``ZERO_SUM`` with ``utility_sum`` 0 where
``is_zero_sum()`` holds, ``max_game_length`` the rules' ``max_decisions()``).
The rules say nothing of how many draws a step makes, so
``max_chance_nodes_in_history`` is a wide bound (``DEFAULT_MAX_GAME_LENGTH``).

The configurations (:data:`CONFIGURATIONS`) are registered as
``python_kakurega_exact_<name>``; the env's plain options (``max_turns``,
``max_steps``, ...) are game parameters, with the configuration's values or
else the env's as defaults. :func:`exact_game` builds one for any env and options.

Each state is a pointer into a tree of nodes that the game builds as it is
walked and keeps (a node's children are computed once), so cloning is cheap
and repeated walks (CFR iterations) reuse the rules' work; the memory grows
with the part of the tree walked: these games are for small configurations.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import pyspiel
from open_spiel.python import policy as pyspiel_policy

from kakurega.envs.core.cache import remember
from kakurega.envs.core.chance import Draw, explicit_step
from kakurega.envs.core.game import TERMINAL
from kakurega.integrations.openspiel import (
    DEFAULT_MAX_GAME_LENGTH,
    DEFAULT_UTILITY_BOUND,
    KakuregaGame,
    KakuregaObserver,
    game_parameters,
    not_a_legal_move,
    reward_model,
)
from kakurega.integrations.openspiel import _Shared as Shared

PREFIX = "python_kakurega_exact_"
#: chance outcome ids are below this (the rules' draws are small: a deck's distinct cards, a die)
MAX_CHANCE_OUTCOMES = 1024
_PARAMETER_TYPES = (bool, int, float, str)


@dataclass(frozen=True)
class Configuration:
    """A small configuration of a registered env: its options (data files as paths under ``envs/data/small``)."""

    name: str
    env_name: str
    options: dict
    summary: str
    #: options naming a packaged data file: ``{option: file name under envs/data/small}``
    data_files: dict = field(default_factory=dict)

    def env_options(self) -> dict:
        """The env options, data files resolved to their installed paths."""
        options = dict(self.options)
        for option, name in self.data_files.items():
            options[option] = str(resources.files("kakurega.envs").joinpath("data", "small", name))
        return options


#: the small configurations, by name (``kakurega.scripts.exact_exploitability --game NAME``)
CONFIGURATIONS = {
    c.name: c
    for c in (
        Configuration(
            "summer_tiny", "summer_hide_and_seek_v2", {"num_players": 2},
            "Summer, 2 players, on a 2 x 2 map: two path squares, a sunflower and a house (the test configuration)",
            {"map": "summer_map_2x2_house.yaml"},
        ),
        Configuration(
            "summer_small", "summer_hide_and_seek_v2", {"num_players": 2},
            "Summer, 2 players, on a 2 x 2 map: two path squares, a sunflower and a cicada",
            {"map": "summer_map_2x2.yaml"},
        ),
        Configuration(
            "animal_chain_tiny", "animal_chain_v1", {"max_turns": 2},
            "Animal Chain on a 4-card board (rows 1, 2, 1), a 13-card deck of 12 Dg|Ct and 1 Ct|Dg, 2 play turns "
            "(the test configuration)",
            {"deck": "animal_chain_deck_12_1.yaml", "shape": "animal_chain_shape_1_2_1.yaml"},
        ),
        Configuration(
            "animal_chain_small", "animal_chain_v1", {"max_turns": 4},
            "Animal Chain on a 4-card board (rows 1, 2, 1), a 13-card deck of 11 Dg|Ct and 2 Ct|Dg, 4 play turns",
            {"deck": "animal_chain_deck_11_2.yaml", "shape": "animal_chain_shape_1_2_1.yaml"},
        ),
    )
}


def configuration(name: str) -> Configuration:
    """The configuration ``name``, or a ValueError listing them."""
    if name not in CONFIGURATIONS:
        raise ValueError(f"unknown small configuration {name!r}; known: {', '.join(CONFIGURATIONS)}")
    return CONFIGURATIONS[name]


# ------------------------------------------------------------------ the tree
class Node:
    """One history's node: a decision, a terminal, or a chance draw inside a step. Never changed once made.

    A chance node keeps the state before its step (``rules_state``), the
    action being applied (``pending``; None for the deal), its seat
    (``actor``) and the outcomes drawn so far; a decision or terminal node
    keeps the state after its step. ``lines`` is every seat's history (one
    line per completed step, as in the bridge).
    """

    __slots__ = ("rules_state", "draw", "pending", "actor", "outcomes", "player", "legal", "lines", "children", "info",
                 "paid")

    def __init__(self, rules_state, draw, pending, actor, outcomes, player, legal, lines, paid=None):
        self.rules_state, self.draw, self.pending, self.actor, self.outcomes = rules_state, draw, pending, actor, outcomes
        self.player, self.legal, self.lines = player, legal, lines
        self.paid = paid  #: where the rules pay during play: what the step into this node paid each seat
        self.children: dict = {}
        self.info: dict = {}

    def __deepcopy__(self, memo):
        return self  # immutable: clones of a state share it


def _step(shared: Shared, pre, action, actor, outcomes, lines) -> Node:
    """The node reached by running ``action`` (None: the deal) from ``pre`` with ``outcomes`` drawn."""
    game = shared.game
    result = explicit_step(game, pre, action, outcomes)
    if isinstance(result, Draw):
        for outcome, _ in result.outcomes:
            if not 0 <= outcome < MAX_CHANCE_OUTCOMES:
                raise ValueError(f"a chance draw has outcome id {outcome}, beyond {MAX_CHANCE_OUTCOMES}: "
                                 "the configuration is too large for explicit chance")
        return Node(pre, result, action, actor, outcomes, pyspiel.PlayerId.CHANCE, (), lines)
    state = result.state
    player = game.current_player(state)
    new_lines = []
    for seat, seat_lines in enumerate(lines):
        if seat == actor:
            seat_lines = seat_lines[:-1] + (f"{seat_lines[-1]} a{int(action)}",)
        observation = np.ascontiguousarray(shared.env.encode(state, seat))
        digest = hashlib.blake2b(observation.tobytes(), digest_size=8).hexdigest()
        # the bridge's rule (its _Core._record): a line where the seat is to act or its observation changed
        if seat == player or not seat_lines or seat_lines[-1].partition(" ")[0] != digest:
            seat_lines = seat_lines + (digest,)
        new_lines.append(seat_lines)
    paid = None
    if shared.pays_during:
        before = game.returns(pre) if pre is not None else np.zeros(game.num_players)
        paid = tuple(float(now - then) for now, then in zip(game.returns(state), before))
    if player == TERMINAL:
        return Node(state, None, None, None, (), pyspiel.PlayerId.TERMINAL, (), tuple(new_lines), paid)
    legal = tuple(int(a) for a in game.legal_actions(state))
    return Node(state, None, None, None, (), int(player), legal, tuple(new_lines), paid)


def _child(shared: Shared, node: Node, action: int) -> Node:
    """The child of ``node`` by ``action`` (a chance outcome or a move), made once and kept."""
    child = node.children.get(action)
    if child is None:
        if node.draw is not None:
            child = _step(shared, node.rules_state, node.pending, node.actor, node.outcomes + (action,), node.lines)
        else:
            if action not in node.legal:  # the rules take legal moves only; nor may the tree keep another's child
                raise not_a_legal_move(shared.game, node.rules_state, node.player, action)
            child = _step(shared, node.rules_state, action, node.player, (), node.lines)
        node.children[action] = child
    return child


# ----------------------------------------------------------- the game, state
class ExactGame(KakuregaGame):
    """A kakurega configuration with explicit chance (class made per configuration, or by :func:`exact_game`)."""

    env_name: str = ""
    base_options: dict = {}

    def __init__(self, params=None):
        options = {**self.base_options, **dict(params or {})}
        self.shared = Shared(self.env_name, options)
        rules = self.shared.game
        # the bridge's bounds and utility sum (KakuregaGame): the rules' return_bounds() and is_zero_sum()
        bound = rules.return_bounds() or (-DEFAULT_UTILITY_BOUND, DEFAULT_UTILITY_BOUND)
        info = pyspiel.GameInfo(
            num_distinct_actions=int(rules.num_actions),
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=int(rules.num_players),
            min_utility=float(bound[0]),
            max_utility=float(bound[1]),
            utility_sum=0.0 if rules.is_zero_sum() else None,
            max_game_length=int(rules.max_decisions() or DEFAULT_MAX_GAME_LENGTH),
        )
        self._root = None
        # the registered type has the configuration's utility and reward model; these options may pay otherwise
        game_type = _game_type(self.game_type.short_name, self.env_name, rules, self.game_type.parameter_specification)
        pyspiel.Game.__init__(self, game_type, info, {k: v for k, v in options.items() if k in self.parameter_names})

    parameter_names: tuple = ()

    def max_chance_nodes_in_history(self):
        """A wide bound: the rules' draws per step are not declared (every shuffle, deal and die is a node)."""
        return DEFAULT_MAX_GAME_LENGTH

    def root(self) -> Node:
        """The deal's node (made on first use)."""
        if self._root is None:
            self._root = _step(self.shared, None, None, None, (), tuple(() for _ in range(self.shared.game.num_players)))
        return self._root

    def new_initial_state(self):
        """A new game: the deal's first chance draw (or the first decision when the deal draws nothing)."""
        return ExactState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation tensor/string (default) or the perfect-recall information-state string."""
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            if params:
                raise ValueError(f"observation parameters are not supported; passed {params}")
            return ExactInformationStateObserver()
        observer = super().make_py_observer(iig_obs_type, params)
        return ExactObserver(observer) if isinstance(observer, KakuregaObserver) else observer


class ExactState(pyspiel.State):
    """A history of an :class:`ExactGame`: a pointer into its tree of nodes."""

    def __init__(self, game):
        super().__init__(game)
        self.shared = game.shared
        self.node = game.root()

    @property
    def state(self):
        """The rules state (before the step being drawn, at a chance node; None before the deal)."""
        return self.node.rules_state

    def current_player(self):
        """The seat to act, ``CHANCE`` or ``TERMINAL``."""
        return self.node.player

    def chance_outcomes(self):
        """The outcomes of the draw at this chance node, with their probabilities."""
        return list(self.node.draw.outcomes) if self.node.draw is not None else []

    def _legal_actions(self, player):
        """Legal action ids of ``player`` (none for a player not to act)."""
        return list(self.node.legal) if player == self.node.player else []

    def _apply_action(self, action):
        """Apply a chance outcome or the current player's action."""
        self.node = _child(self.shared, self.node, int(action))

    def _action_to_string(self, player, action):
        """The action in the rules' words; a chance outcome as its draw says it."""
        if player == pyspiel.PlayerId.CHANCE:
            return self.node.draw.describe(int(action))
        return self.shared.game.action_to_string(self.node.rules_state, int(action))

    def is_terminal(self):
        """True when the game ended or was cut off by its step limit."""
        return self.node.player == pyspiel.PlayerId.TERMINAL

    def returns(self):
        """Every player's return (the rules' cumulative returns; 0 before the deal)."""
        if self.node.rules_state is None:
            return [0.0] * self.shared.game.num_players
        return [float(r) for r in self.shared.game.returns(self.node.rules_state)]

    def rewards(self):
        """What the last transition paid each player (as the bridge's): the step's change of the returns where
        the rules pay during play, else the returns at the end and 0 before."""
        if self.shared.pays_during:
            return list(self.node.paid) if self.node.paid is not None else [0.0] * self.shared.game.num_players
        return self.returns() if self.is_terminal() else [0.0] * self.shared.game.num_players

    def information_lines(self, player: int) -> tuple:
        """``player``'s history lines (one per completed step)."""
        return self.node.lines[player]

    def __str__(self):
        """The table as a spectator sees it (public information only)."""
        if self.node.rules_state is None:
            return "dealing"
        return self.shared.env.render_state(self.node.rules_state, None)


class ExactObserver:
    """The bridge's observation (tensor and string), zeros before the deal."""

    def __init__(self, observer: KakuregaObserver):
        self.observer = observer
        self.tensor, self.dict = observer.tensor, observer.dict

    def set_from(self, state, player):
        """Fill ``tensor`` with ``player``'s observation of ``state``."""
        if state.state is None:
            self.tensor[:] = 0.0
        else:
            self.tensor[:] = state.shared.env.encode(state.state, player)

    def string_from(self, state, player):
        """``player``'s observation as text (the bridge's format)."""
        self.set_from(state, player)
        return self.observer.string_from(_Viewed(state), player)


class _Viewed:
    """A state seen through the bridge's observer (it reads ``state`` and ``shared``)."""

    def __init__(self, state):
        self.state, self.shared = state.state, state.shared


class ExactInformationStateObserver:
    """Perfect recall: the seat, then one line per completed step (the bridge's format); a string only."""

    tensor = np.zeros(0, np.float32)
    dict: dict = {}

    def set_from(self, state, player):
        """Refuse: there is no information-state tensor."""
        from kakurega.integrations.openspiel import NO_INFORMATION_STATE_TENSOR

        raise NotImplementedError(NO_INFORMATION_STATE_TENSOR)

    def string_from(self, state, player):
        """``player``'s information state (cached on the node)."""
        node = state.node
        text = node.info.get(player)
        if text is None:
            text = node.info[player] = f"p{player}\n" + "\n".join(node.lines[player])
        return text


# ------------------------------------------------------------- analyses
@dataclass
class TreeSize:
    """The size of a game tree: histories by kind and information states per player."""

    histories: int = 0
    chance: int = 0
    decisions: int = 0
    terminals: int = 0
    information_states: list = field(default_factory=list)


def tree_size(game) -> TreeSize:
    """Walk the whole tree of ``game`` (any OpenSpiel game with explicit chance) and count it."""
    size = TreeSize(information_states=[0] * game.num_players())
    seen = [set() for _ in range(game.num_players())]
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        size.histories += 1
        if state.is_terminal():
            size.terminals += 1
            continue
        if state.is_chance_node():
            size.chance += 1
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            size.decisions += 1
            seen[state.current_player()].add(state.information_state_string())
            actions = state.legal_actions()
        stack.extend(state.child(a) for a in actions)
    size.information_states = [len(s) for s in seen]
    return size


def observation_of(state, player: int) -> dict:
    """``player``'s observation dict in an :class:`ExactState` (what the env hands an agent)."""
    shared = state.shared
    observation = shared.env.encode(state.state, player)
    if player == state.current_player():
        mask = np.frombuffer(shared.game.legal_flags(state.state), dtype=np.int8)
    else:
        mask = np.zeros(shared.game.num_actions, dtype=np.int8)
    return {"observation": observation, "action_mask": mask}


class AgentPolicy(pyspiel_policy.Policy):
    """kakurega agents as an OpenSpiel policy: each seat plays its agent's :meth:`move_probabilities`.

    ``agents`` is one agent for every seat or a list, one per seat (None for a
    seat the policy is not asked about). The agent sees only the acting
    seat's observation dict, as in play; its probabilities are read once per
    information state. Agents with memory do not fit (an information state
    would not fix their move): only memoryless agents state probabilities.
    """

    def __init__(self, game, agents):
        super().__init__(game, list(range(game.num_players())))
        self.agents = list(agents) if isinstance(agents, (list, tuple)) else [agents] * game.num_players()
        self.cache: dict = {}

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` of the acting seat's agent over the legal actions."""
        player = state.current_player() if player_id is None else player_id
        key = state.information_state_string(player)
        probabilities = self.cache.get(key)
        if probabilities is None:
            agent = self.agents[player]
            if agent is None:
                raise ValueError(f"no agent was given for seat {player}")
            row = agent.move_probabilities(observation_of(state, player))
            probabilities = self.cache[key] = {int(a): float(row[a]) for a in state.legal_actions(player)}
        return probabilities


def best_response_value(game, policy, player: int) -> float:
    """What a best response of ``player`` to ``policy`` (every other seat) earns in expectation.

    Our own computation, independent of OpenSpiel's: every history's weight
    (chance times the other seats' probabilities) is gathered per information
    state of ``player``; information states are decided from the deepest
    (most of the player's own decisions) up, each taking the action of highest
    weighted value below it, where the deeper ones are already decided
    (perfect recall makes the player's information states a tree). Works for
    any OpenSpiel game with explicit chance and perfect-recall information
    states; memory and time grow with the tree.
    """
    members: dict = {}  # information state -> [(state, weight)]
    depth: dict = {}  # information state -> the player's decisions before it

    def gather(state, weight, decisions):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, probability in state.chance_outcomes():
                gather(state.child(action), weight * probability, decisions)
            return
        acting = state.current_player()
        if acting == player:
            key = state.information_state_string(player)
            members.setdefault(key, []).append((state, weight))
            depth[key] = decisions
            for action in state.legal_actions():
                gather(state.child(action), weight, decisions + 1)
            return
        for action, probability in policy.action_probabilities(state, acting).items():
            if probability > 0:
                gather(state.child(action), weight * probability, decisions)

    gather(game.new_initial_state(), 1.0, 0)
    chosen: dict = {}
    known: dict = {}  # history -> value (valid once made: the deeper information states are decided first)

    def value(state) -> float:
        """The player's expected return below ``state``, best responding where already decided."""
        history = state.history_str()
        if history in known:
            return known[history]
        if state.is_terminal():
            result = state.returns()[player]
        elif state.is_chance_node():
            result = sum(p * value(state.child(a)) for a, p in state.chance_outcomes())
        elif state.current_player() == player:
            result = value(state.child(chosen[state.information_state_string(player)]))
        else:
            acting = state.current_player()
            result = sum(p * value(state.child(a)) for a, p in policy.action_probabilities(state, acting).items() if p > 0)
        known[history] = result
        return result

    for key in sorted(members, key=lambda k: -depth[k]):
        states = members[key]
        totals = {a: sum(w * value(s.child(a)) for s, w in states) for a in states[0][0].legal_actions()}
        chosen[key] = max(totals, key=lambda a: (totals[a], -a))
    return value(game.new_initial_state())


def _parameters(env_name: str, options: dict) -> dict:
    """The game parameters: the env's plain options, with ``options``' values where given."""
    return {k: v for k, v in {**game_parameters(env_name), **options}.items() if type(v) in _PARAMETER_TYPES}


def _game_type(name: str, env_name: str, rules, parameters: dict) -> pyspiel.GameType:
    """The game type of ``rules`` (the env's rules for some options): its utility and reward model are theirs."""
    return pyspiel.GameType(
        short_name=name,
        long_name=f"kakurega {env_name} with explicit chance",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if rules.is_zero_sum() else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=reward_model(rules),
        max_num_players=rules.num_players,
        min_num_players=rules.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def _game_class(name: str, env_name: str, options: dict) -> type:
    """The game class of ``env_name`` under ``options`` (plain options become its parameters)."""
    game_type = _game_type(name, env_name, Shared(env_name, options).game, _parameters(env_name, options))
    class_name = f"ExactGame_{name.removeprefix(PREFIX)}"
    attributes = {"env_name": env_name, "base_options": dict(options), "game_type": game_type,
                  "parameter_names": tuple(game_type.parameter_specification)}
    return type(class_name, (ExactGame,), attributes)


#: the classes of :func:`exact_game`'s games by (env name, options): the same options share one class; the first
#: ``CUSTOM_GAMES_SIZE`` are kept (each is about 3 KiB), later ones are made for their game alone
_CUSTOM_GAMES: dict[tuple[str, str], type] = {}
CUSTOM_GAMES_SIZE = 64


def exact_game(env_name: str, **options) -> ExactGame:
    """A game with explicit chance for ``env_name`` under ``options`` (any options; not registered by name).

    Such a game plays and clones like a registered one, but neither it nor its states pickle or serialize
    (``pyspiel.serialize_game_and_state``): pyspiel finds a game by its registered name. Add a configuration
    (:data:`CONFIGURATIONS`) for a game that must.
    """
    key = (env_name, repr(sorted(options.items())))
    game_class = _CUSTOM_GAMES.get(key)
    if game_class is None:
        label = "".join(c if c.isalnum() else "_" for c in f"{env_name}_{key[1]}")[:80]
        game_class = remember(_CUSTOM_GAMES, key, _game_class(f"{PREFIX}custom_{label}", env_name, options),
                              CUSTOM_GAMES_SIZE)
    return game_class()


def load(name: str, **overrides) -> ExactGame:
    """The registered game of configuration ``name``, plain options overridden (``max_turns=3``)."""
    return pyspiel.load_game(PREFIX + configuration(name).name, overrides)


def register_games() -> dict[str, str]:
    """Register every configuration (idempotent); ``{configuration: OpenSpiel short name}``."""
    registered = set(pyspiel.registered_names())
    names = {}
    for config in CONFIGURATIONS.values():
        name = PREFIX + config.name
        names[config.name] = name
        if name not in registered:
            game_class = _game_class(name, config.env_name, config.env_options())
            globals()[game_class.__name__] = game_class  # pickle finds a game's class by its module and name
            pyspiel.register_game(game_class.game_type, game_class)
    return names


GAMES = register_games()
