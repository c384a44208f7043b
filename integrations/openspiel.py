"""Every registered kakurega game as an OpenSpiel Python game.

>>> import pyspiel
>>> import kakurega.integrations.openspiel  # registers python_kakurega_<game> for every registered env
>>> game = pyspiel.load_game("python_kakurega_animal_chain")
>>> state = game.new_initial_state()

Each env is registered under ``python_kakurega_`` plus its registry name
(``python_kakurega_animal_chain_v0``), and the newest version of each game
also without the version suffix (``python_kakurega_animal_chain``);
``register_games()`` returns ``{env name: versioned short name}``. Env options are game parameters with
their defaults (those with a plain ``int``/``float``/``bool``/``str`` default):
``pyspiel.load_game("python_kakurega_kakurenbo", {"num_players": 4})``.

How the pieces map:

- **Rules**: the game's own rules engine (``kakurega.envs.core.game.Game``):
  ``legal_actions``, ``apply_action``, ``current_player``, ``returns``,
  ``action_to_string``, no re-implementation. The engine's ``apply_action``
  takes legal moves only, so ``state.apply_action`` checks first: an illegal
  move, an action id out of range, a move after the end or a seed value that
  is no chance outcome raises a ``ValueError`` in the rules' words (as the
  env's ``step`` does) and changes nothing.
- **Chance** is *explicit* (``ChanceMode.EXPLICIT_STOCHASTIC``) and all of it
  comes first: a new state is a chance node that draws a 32-bit seed in
  ``SEED_DRAWS`` uniform outcomes of ``SEED_OUTCOMES`` each; the seed starts
  the numpy generator from which the engine deals (``initial_state``) and
  draws during play (``apply_action``). So the history (seed draws, then
  moves) determines the state: states serialize, pickle and deep-copy, and
  clones replay the same chance. Algorithms that sample chance (IS-MCTS,
  outcome- and external-sampling MCCFR, NFSP, RL through ``rl_environment``)
  apply; those that enumerate it (CFR, exact best response, expectiminimax)
  would walk 2**32 deals.
- **Observation tensor**: exactly the env's observation vector of that player
  (the same encoder, layout and named pieces as ``observer.dict``).
- **Observation string**: the same vector as text, piece by piece (each
  named piece with its nonzero entries), so it holds exactly what the tensor
  holds. ``str(state)`` is the env's spectator render (public information).
- **Information-state string**: perfect recall for that player: its seat, then
  a line for each of its own decisions and each change of its observation,
  holding a digest of the player's observation at that point and, on its own
  moves, the action it chose. Two states give a player the same string
  exactly when the sequence of observations it has had, and every move it
  made, agree; moves that change nothing it sees (another player's secret
  decisions) add no line. There is no information-state tensor (the history
  has no fixed size): asking for one raises an error that says so.
- **Returns**: the rules' cumulative returns. ``RewardModel.TERMINAL`` where the
  rules pay only at the end (``Game.pays_only_at_end()``: every default, and
  every win scheme), ``rewards()`` then being the returns at the end and 0
  before; ``RewardModel.REWARDS`` where they pay during play (KAKURENBO's
  ``reward="points"``, Summer's ``"vp"``, a Hidden Rooms match with
  ``reward="per_round"``, any ``shaping``), ``rewards()`` then being what each
  transition paid. Either way the rewards summed so far are ``returns()`` at
  every state (OpenSpiel's ``random_sim_test`` checks it), and OpenSpiel's
  ``MCTSBot``, which requires terminal rewards, refuses the latter. Min/max
  utility are the rules' ``return_bounds()`` for the game's options,
  ``max_game_length`` their ``max_decisions()`` (the step limit: chance moves
  are not counted, ``max_chance_nodes_in_history`` is the ``SEED_DRAWS``), and
  the utility is ``ZERO_SUM`` (``utility_sum`` 0) where ``is_zero_sum()``
  holds, else ``GENERAL_SUM``. A game that declares none of these gets wide
  defaults (``DEFAULT_UTILITY_BOUND``, ``DEFAULT_MAX_GAME_LENGTH``).
- **Bots**: :class:`KakuregaBot` is a ``pyspiel.Bot`` playing any kakurega
  agent spec (``heuristic``, ``policy:PATH``, ``ismcts:...``, ``pretrained``)
  from the seat's own observation (and, for search agents, a sampler of that
  seat's information state); :class:`ISMCTSBot` is OpenSpiel's IS-MCTS with
  the ``restart_at`` that ``pyspiel.evaluate_bots`` calls.
- **Determinization**: ``state.resample_from_infostate(player, sampler)`` is
  the rules' ``resample_hidden`` (what the player does not know re-dealt,
  future chance re-seeded from ``sampler``), so OpenSpiel's ``ISMCTSBot``
  searches over worlds consistent with its own information. The re-deal
  draws from one generator per game whose state is set from four sampler
  draws (seeding a generator per world would cost more than the re-deal).
  The other players' information-state histories in such a world restart at
  the resampling point (their past observations are unknown to the searcher).
  A world is a new pyspiel state, not a clone: its ``history()`` is empty and
  it holds no seed draws (a clone's history was the true one, and replaying
  it dealt the true state), so a world serialized or keyed by its history
  tells nothing of the true deal.
- **Serialization**: ``game.deserialize_state(text)`` replays the text's
  history, each move checked legal, and never reads its pickled attributes;
  pyspiel's own ``deserialize_game_and_state`` unpickles them (as for every
  Python game), so give it only text this process wrote. A world has no
  history to replay and is refused by the former.
- **Speed**: a state holds one object (:class:`_Core`) that copies cheaply,
  so ``clone`` costs pyspiel's own per-clone work (a few microseconds) plus
  ``Game.clone``; clones share the generator, the move log and the recorded
  lines until one of them changes its own. Information-state lines are
  recorded lazily: moves are logged, and the lines are computed when first
  read (by replaying the logged moves from the deal, or from a world's
  resampling point), then at each move while they are being read. What a
  player is shown is the same either way (tested against eager recording).
  The player to act is kept on the state (set at each move) and the legal
  actions until the next move; ``legal_actions``, ``is_chance_node``,
  ``current_player`` and ``is_terminal`` are answered in Python (pyspiel's
  C++ ``legal_actions`` would call back into Python five times), with the
  same answers as pyspiel's. What is left per call is mostly pyspiel's own
  work (a clone's new state and deep copy, the two calls back into Python of
  every ``apply_action``); ``kakurega bench --bridge`` measures the costs and
  that floor (docs/performance.md).

Hidden information stays hidden: a player's tensors and strings come only
from its own observation; other players' cards are not in them.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyspiel

from kakurega.envs.core.game import TERMINAL
from kakurega.envs.registry import ENV_SPECS, make

PREFIX = "python_kakurega_"
DEFAULT_UTILITY_BOUND = 1000.0  #: |utility| bound for games whose rules declare no ``return_bounds``
DEFAULT_MAX_GAME_LENGTH = 100_000  #: decisions per game, for games whose rules declare no ``max_decisions``
SEED_DRAWS, SEED_OUTCOMES = 4, 256  #: the chance moves that draw a new state's 32-bit seed
_PARAMETER_TYPES = (bool, int, float, str)
_REDEAL_INCREMENT = 0xDA3E39CB94B95BDB  # the PCG64 stream of the re-deal generators (any odd number)
NO_INFORMATION_STATE_TENSOR = (
    "kakurega games have no information-state tensor (a player's history has no fixed size): use "
    "information_state_string (perfect recall) or observation_tensor (the env's observation vector)")


def short_name(env_name: str, versioned: bool = True) -> str:
    """OpenSpiel name of a registry env: ``"animal_chain_v0"`` -> ``"python_kakurega_animal_chain_v0"``
    (``versioned=False``: ``"python_kakurega_animal_chain"``, the newest version's alias)."""
    base, _, version = env_name.rpartition("_v")
    return PREFIX + (base if not versioned and version.isdigit() else env_name)


def _version(env_name: str) -> int:
    _, _, version = env_name.rpartition("_v")
    return int(version) if version.isdigit() else -1


def game_parameters(env_name: str) -> dict:
    """The env options that can be OpenSpiel parameters, with their defaults."""
    return {name: default for name, default in ENV_SPECS[env_name].option_defaults().items()
            if type(default) in _PARAMETER_TYPES}


class _Shared:
    """What every state of one game shares (the env holding the rules and the encoder): never copied."""

    def __init__(self, env_name: str, env_kwargs: dict):
        self.env_name, self.env_kwargs = env_name, dict(env_kwargs)
        self.env = make(env_name, wrapped=False, **env_kwargs)
        self.game = self.env.game
        self.pays_during = not self.game.pays_only_at_end()  #: keep the returns before each move for rewards()
        self._redeal = np.random.Generator(np.random.PCG64(0))
        self._redeal_state = {"bit_generator": "PCG64", "state": {"state": 0, "inc": _REDEAL_INCREMENT},
                              "has_uint32": 0, "uinteger": 0}

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):  # a serialized state rebuilds it from the registry
        return (_Shared, (self.env_name, self.env_kwargs))

    def redeal_generator(self, draws) -> np.random.Generator:
        """The generator that re-deals a resampled world, started from four sampler draws in [0, 1).

        One generator per game, its PCG64 state set from the draws (no seed hashing: seeding a
        new generator would cost several times the re-deal itself).
        """
        value = 0
        for draw in draws:
            value = value << 32 | int(draw * 2**32) & 0xFFFFFFFF
        self._redeal_state["state"]["state"] = value
        self._redeal.bit_generator.state = self._redeal_state
        return self._redeal


def not_a_legal_move(rules, state, player, action: int) -> ValueError:
    """The error for applying ``action``, which is no legal move of ``player`` in ``state``, in the rules' words."""
    if player == pyspiel.PlayerId.TERMINAL:
        return ValueError(f"apply_action({action}): the game is over; a terminal state takes no move")
    if not 0 <= action < rules.num_actions:
        return ValueError(f"action {action} is out of range: expected a legal action id in [0, {rules.num_actions})")
    return ValueError(f"illegal action {action} ({rules.action_to_string(state, action)}) for player {player}: "
                      f"{rules.illegal_reason(state, action)}")


class KakuregaGame(pyspiel.Game):
    """A kakurega env's rules as an OpenSpiel game (class made per env by :func:`register_games`)."""

    env_name: str = ""
    game_type: pyspiel.GameType = None

    def __init__(self, params=None):
        params = dict(params or {})
        self.shared = _Shared(self.env_name, params)
        rules = self.shared.game
        low, high = rules.return_bounds() or (-DEFAULT_UTILITY_BOUND, DEFAULT_UTILITY_BOUND)
        zero_sum = rules.is_zero_sum()
        info = pyspiel.GameInfo(
            num_distinct_actions=int(rules.num_actions),
            max_chance_outcomes=SEED_OUTCOMES,
            num_players=int(rules.num_players),
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0 if zero_sum else None,
            max_game_length=int(rules.max_decisions() or DEFAULT_MAX_GAME_LENGTH),
        )
        # the registered type has the default options' utility; these options may pay otherwise (reward="points")
        game_type = _game_type(self.env_name, rules, self.game_type.short_name)
        super().__init__(game_type, info, params)

    def max_chance_nodes_in_history(self):
        """The seed draws: every other chance event happens inside the rules' moves."""
        return SEED_DRAWS

    def new_initial_state(self):
        """A new game: the chance node that draws its seed."""
        return KakuregaState(self)

    def deserialize_state(self, text: str):
        """The state of ``state.serialize()`` text, rebuilt by replaying its history (the seed draws, then the
        moves), each move checked legal: the text's pickled attributes (its ``__dict__=`` line) are never read.

        pyspiel's own deserialization of a Python game (what ``pyspiel.deserialize_game_and_state`` calls) unpickles
        that line, so a crafted text runs code: give it only text this process wrote. A resampled world has no
        history to replay (it is not reached by play) and is refused here.
        """
        if not isinstance(text, str):
            raise TypeError(f"deserialize_state expects the text of state.serialize(), got {type(text).__name__}")
        head, _, rest = text.partition("\n")
        number, _, _ = rest.partition("\n")
        if not head.startswith("history=") or not number.startswith("move_number="):
            raise ValueError("not the text of state.serialize(): expected 'history=...' and 'move_number=...' lines")
        entries = [entry for entry in head[len("history="):].split(",") if entry]
        if len(entries) > SEED_DRAWS + self.max_game_length():
            raise ValueError(f"a history of {len(entries)} actions: this game's are at most "
                             f"{SEED_DRAWS + self.max_game_length()} long")
        state = self.new_initial_state()
        for index, entry in enumerate(entries):
            player, _, action = entry.partition(":")
            try:
                player, action = int(player), int(action)
            except ValueError:
                raise ValueError(f"history entry {index}: expected 'player:action' integers, got {entry[:40]!r}") from None
            if state.is_terminal() or player != state.current_player() or action not in state.legal_actions():
                raise ValueError(f"history entry {index} ({player}:{action}) is not a legal move of the state it "
                                 "reaches: the text is not a state of this game")
            state.apply_action(action)
        if not entries and text != state.serialize():  # compared as text: nothing in it is unpickled
            raise ValueError("the text has no history yet is not a new state's: a resampled world, which no play "
                             "reaches, so it cannot be rebuilt by replaying a history")
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation tensor/string (default) or the information-state string (perfect recall)."""
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.perfect_recall:
            return InformationStateObserver()
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("kakurega games provide only the player's own observation (public + its private info)")
        return KakuregaObserver(self.shared.env.layout)


class KakuregaState(pyspiel.State):
    """One deal of a kakurega game.

    Everything it holds is one :class:`_Core` (pyspiel's ``clone`` deep-copies
    each attribute: one attribute with a cheap ``__deepcopy__`` keeps a clone
    near ``Game.clone``). Information-state lines are recorded lazily: moves
    are logged, and the lines are computed when first asked for (replaying the
    logged moves), or at each move while they are being read.

    The player to act is kept on the core (set at each move) and the legal
    actions until the next move, so the calls pyspiel makes again and again
    do not ask the rules again. ``legal_actions`` and ``is_chance_node`` are
    answered in Python (the same answers as pyspiel's C++ ``State``, which
    would call back into Python several times per call).
    """

    def __init__(self, game):
        super().__init__(game)
        self._core = _Core(game.shared)

    @property
    def shared(self) -> _Shared:
        """What every state of this game shares (the env: rules and encoder)."""
        return self._core.shared

    @property
    def state(self):
        """The rules state (None while the seed is drawn): to read; change it by ``apply_action`` or by
        assigning a new one (what the state keeps about it is renewed then)."""
        return self._core.state

    @state.setter
    def state(self, value) -> None:
        core = self._core
        if core.origin is None:
            raise ValueError("this state is still drawing its seed (a chance node): apply its seed draws first, "
                             "then assign a rules state to it")
        core.set_state(value)
        if core.shared.pays_during:  # no transition into a state put in place: rewards() pays 0 until its next move
            core.before = None if value is None else tuple(float(r) for r in core.shared.game.returns(value))

    def current_player(self):
        """The seat to act, ``CHANCE`` while the seed is drawn, or ``TERMINAL``."""
        return self._core.player

    def is_terminal(self):
        """True when the game ended or was cut off by its step limit."""
        return self._core.player is TERMINAL_PLAYER

    def is_chance_node(self):
        """True while the seed is drawn."""
        return self._core.player is CHANCE

    def legal_actions(self, player=None):
        """Legal actions of ``player`` (default: the player to act), as pyspiel's ``State.legal_actions``:
        none at the end, the seed values while it is drawn, none for a player not to act."""
        core = self._core
        current = core.player
        if current is TERMINAL_PLAYER:
            return []
        if current is CHANCE:
            return list(_SEED_VALUES)
        if player is None or player == current:
            legal = core.legal
            if legal is None:  # core.legal_actions(), inline: this runs at every move of a rollout
                legal = core.legal = core.shared.game.legal_actions(core.state)
            return legal[:]
        if type(player) is not int or player < 0:  # what pyspiel refuses, refused by pyspiel in its words
            return pyspiel.State.legal_actions(self, player)
        return []

    def chance_outcomes(self):
        """The next part of the seed: ``SEED_OUTCOMES`` equally likely values."""
        return list(_SEED_CHANCE) if self._core.player is CHANCE else []

    def _legal_actions(self, player):
        """Legal action ids of ``player`` (none for a player not to act)."""
        core = self._core
        if core.state is None or player != core.player:
            return []
        return core.legal_actions()

    def _apply_action(self, action):
        """Apply a seed draw or the current player's action; chance inside the rules uses this state's generator.

        Anything else (an illegal move, a move after the end, a seed value that is no outcome) raises a
        ``ValueError`` in words: the rules' ``apply_action`` takes legal moves only (fed another, it failed
        deep inside or, for some games, played on from a wrong state)."""
        core = self._core
        if core.state is None:  # pyspiel hands the action over as an int
            if not 0 <= action < SEED_OUTCOMES:
                raise ValueError(f"seed draw {action} is not an outcome of this chance node: expected an integer in "
                                 f"[0, {SEED_OUTCOMES})")
            core.deal(action)
            return
        legal = core.legal
        if legal is not None:  # most callers have just asked for the legal actions (kept until the move)
            if action not in legal:
                raise not_a_legal_move(core.shared.game, core.state, core.player, action)
        else:  # a replay of recorded moves has not: the rules check that one action (``Game.is_legal``)
            rules = core.shared.game
            if core.player is TERMINAL_PLAYER or not 0 <= action < rules.num_actions or not rules.is_legal(
                    core.state, action):
                raise not_a_legal_move(rules, core.state, core.player, action)
        core.apply(action)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one: hidden cards re-dealt, future chance re-seeded."""
        core = self._core
        if core.state is None:
            raise ValueError("resample_from_infostate needs a dealt state; this one is still drawing its seed")
        shared = core.shared
        redeal = shared.redeal_generator((probability_sampler(), probability_sampler(), probability_sampler(),
                                          probability_sampler()))
        player = int(player_id)
        lines = core.synced_lines()
        world_state = shared.game.resample_hidden(core.state, player_id, redeal)
        # a new pyspiel state, not a clone: a clone carries the true history (the seed draws and every move), and
        # replaying that history deals the true state; the world's history starts empty and its seed is ()
        world = KakuregaState(self.get_game())
        world._core.before = core.before  # rewards() pays the last move's public change, as this state does
        world._core.start_world(world_state, _world_seed(redeal.bit_generator), lines, player)
        return world

    def information_lines(self, player: int) -> list[str]:
        """``player``'s perfect-recall lines: one per own decision or change of its observation, the observation's
        digest (and its own action)."""
        core = self._core
        if core.state is None:
            return []
        core.asked = True
        return core.synced_lines()[player]

    def _action_to_string(self, player, action):
        """The action in the rules' words (a seed draw: its value)."""
        core = self._core
        if player == CHANCE:
            return f"seed draw {len(core.seed) + 1} of {SEED_DRAWS}: {int(action)}"
        return core.shared.game.action_to_string(core.state, int(action))

    def returns(self):
        """Cumulative return of every player so far."""
        core = self._core
        if core.state is None:
            return [0.0] * core.shared.game.num_players
        return [float(r) for r in core.shared.game.returns(core.state)]

    def rewards(self):
        """What the last transition paid each player: the change of the returns where the game pays during
        play (``RewardModel.REWARDS``), else the returns at the end and 0 before (``TERMINAL``). Summed over a
        game's transitions they are its returns (a state put in place by assignment has made no transition: 0)."""
        core = self._core
        if core.state is None:
            return [0.0] * core.shared.game.num_players
        if core.before is not None:  # the game pays during play
            return [now - before for now, before in zip(self.returns(), core.before)]
        return self.returns() if core.player is TERMINAL_PLAYER else [0.0] * core.shared.game.num_players

    def __str__(self):
        """The table as a spectator sees it (public information only)."""
        core = self._core
        if core.state is None:
            return f"dealing: seed draws {list(core.seed)}"
        return core.shared.env.render_state(core.state, None)


CHANCE, TERMINAL_PLAYER = pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL
_SEED_VALUES = tuple(range(SEED_OUTCOMES))
_SEED_CHANCE = tuple((value, 1.0 / SEED_OUTCOMES) for value in _SEED_VALUES)


class _Origin:
    """Where a state's recorded history starts: its deal (the seed) or a resampled world.

    Clones share it. ``state`` is None for a deal (replayed as
    ``initial_state(default_rng(seed))``), else the world's re-dealt state
    with ``seed`` its chance seed: at first the world's own state object (no
    copy: a world is often read or dropped before it moves), copied by the
    world's core just before its first move changes it. ``carried`` holds the
    lines at the origin that are not recomputed (a world's searcher keeps its
    own history).
    """

    __slots__ = ("seed", "state", "carried")

    def __init__(self, seed, state=None, carried: dict | None = None):
        self.seed, self.state, self.carried = seed, state, carried or {}


class _Lines:
    """Every player's information-state lines for the first ``known`` positions (a position: the deal, then
    each move); the last line of the player who moved there also holds its action."""

    __slots__ = ("lines", "known")

    def __init__(self, lines: list[list[str]], known: int = 0):
        self.lines, self.known = lines, known

    def copy(self) -> _Lines:
        return _Lines([list(lines) for lines in self.lines], self.known)


class _OnDraw:
    """The generator handed to the rules while a core shares its generator: the first draw gives the core
    a copy of its own (or builds it from a world's seed), so a clone and its original draw the same chance
    without copying a generator per clone."""

    __slots__ = ("core",)

    def __init__(self, core):
        self.core = core

    def __getattr__(self, name):
        return getattr(self.core.own_generator(), name)


class _FixedSeed(np.random.bit_generator.ISeedSequence):
    """Seeds a generator whose state is overwritten at once: fixed words, no hashing (a generator seeded
    from OS entropy or a ``SeedSequence`` costs 10-40 µs, this one about 1.5 µs)."""

    def generate_state(self, n_words, dtype=np.uint32):
        """``n_words`` zero words."""
        return np.zeros(n_words, dtype)


_COPY_SEED = _FixedSeed()


def _seed_generator(seed: tuple[int, ...]) -> np.random.Generator:
    """``np.random.default_rng(seed)`` for a deal's seed draws, built at half its cost.

    The same generator: a sequence of ints below 2**32 gives ``SeedSequence``
    the same entropy words as a uint32 array of them, which it reads without
    converting each int.
    """
    return np.random.default_rng(np.array(seed, np.uint32))


def _world_generator(seed: int) -> np.random.Generator:
    """The chance generator of a resampled world with this seed: ``np.random.default_rng(seed)``, built the
    cheaper way of :func:`_seed_generator` (an int's entropy words are its 32-bit digits, low first)."""
    return np.random.default_rng(np.array((seed & 0xFFFFFFFF, seed >> 32), np.uint32))


_UINT64 = 2**64 - 1
_WORLD_SEEDS = 2**63 - 1  #: a world's chance seed is below this


def _world_seed(bit_generator) -> int:
    """``int(Generator(bit_generator).integers(2**63 - 1))``, the same value and the same draws at half the cost.

    numpy draws a bounded 64-bit integer by Lemire's method: a raw 64-bit draw times the range, the high
    word taken, the draw rejected while the low word is below ``2**64 % range`` (2 here: once in 2**62).
    """
    while True:
        product = bit_generator.random_raw() * _WORLD_SEEDS
        if product & _UINT64 >= 2:
            return product >> 64


class _Core:
    """A state's data: the rules state, its chance, and its recorded history; copied cheaply.

    Clones share the generator, the move log and the lines until one of them
    changes its own (copy on write: the ``*_owned`` flags say whether this
    core may change the object in place). ``player`` is the rules' player to
    act in pyspiel's terms, set whenever ``state`` changes; ``legal`` the
    rules' legal actions once asked for, until the next move (never handed
    out: callers get copies).
    """

    __slots__ = ("shared", "seed", "state", "player", "legal", "rng", "rng_owned", "origin", "moves", "moves_owned",
                 "lines", "lines_owned", "asked", "before")

    def __init__(self, shared: _Shared):
        self.shared = shared
        self.seed = ()  # the seed draws so far; the deal happens when all are in
        self.player = CHANCE
        self.state = self.legal = self.rng = self.origin = self.lines = None
        self.before = None  # where the game pays during play, once dealt: the returns before the last move
        self.moves = []  # the moves since the origin
        self.rng_owned = self.moves_owned = self.lines_owned = True
        self.asked = False  # information-state lines read since the last move: record the next one at once

    def __deepcopy__(self, memo) -> _Core:
        if memo is not None:
            # copy.deepcopy then keeps this core alive in the list at memo[id(memo)], making that list
            # through a caught KeyError when absent: most of deepcopy's cost per clone. Made here instead.
            memo.setdefault(id(memo), [])
        copy = _Core.__new__(_Core)
        copy.shared, copy.seed, copy.origin, copy.asked = self.shared, self.seed, self.origin, self.asked
        copy.player, copy.legal, copy.before = self.player, self.legal, self.before
        copy.state = None if self.state is None else self.shared.game.clone(self.state)
        copy.rng, copy.moves, copy.lines = self.rng, self.moves, self.lines
        self.rng_owned = self.moves_owned = self.lines_owned = False
        copy.rng_owned = copy.moves_owned = copy.lines_owned = False
        return copy

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__ if name not in ("player", "legal")}

    def __setstate__(self, state) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.moves_owned = self.lines_owned = True  # nothing unpickled is shared
        # a world that has not drawn yet holds its chance seed (an int): its generator is built at its first draw
        self.rng_owned = self.rng is None or isinstance(self.rng, np.random.Generator)
        self.set_state(self.state)

    def set_state(self, state) -> None:
        """Put ``state`` in place (None: the seed is still drawn), with its player to act."""
        self.state, self.legal = state, None
        if state is None:
            self.player = CHANCE
        else:
            player = self.shared.game.current_player(state)
            self.player = TERMINAL_PLAYER if player == TERMINAL else player

    def legal_actions(self) -> list[int]:
        """A copy of the rules' legal actions at ``state`` (asked once per position)."""
        if self.legal is None:
            self.legal = self.shared.game.legal_actions(self.state)
        return self.legal[:]

    def deal(self, value: int) -> None:
        """Add a seed draw; the last one deals."""
        self.seed += (value,)
        if len(self.seed) == SEED_DRAWS:
            self.rng = _seed_generator(self.seed)
            self.set_state(self.shared.game.initial_state(self.rng))
            if self.shared.pays_during:  # the deal pays what the first state holds (shaping's first potential)
                self.before = (0.0,) * self.shared.game.num_players
            self.origin = _Origin(self.seed)
            self.lines = _Lines([[] for _ in range(self.shared.game.num_players)])

    def apply(self, action: int) -> None:
        """Apply the current player's move; record its lines now if they are being read, else log it."""
        rules = self.shared.game
        if self.origin.state is self.state:  # a world's first move: its origin keeps a copy of the state
            self.origin.state = rules.clone(self.state)
        rng = self.rng if self.rng_owned else _OnDraw(self)
        if self.before is not None:  # the game pays during play: rewards() is the change this move makes
            self.before = tuple(float(r) for r in rules.returns(self.state))
        if not self.moves_owned:
            self.moves, self.moves_owned = list(self.moves), True
        if self.asked and self.lines.known == len(self.moves) + 1:  # read at this position: record as it goes
            lines = self.own_lines()
            lines.lines[self.player][-1] += f" a{action}"
            rules.apply_action(self.state, action, rng)
            self.moves.append(action)
            self._record(lines, self.state)
        else:
            rules.apply_action(self.state, action, rng)
            self.moves.append(action)
        self.asked = False
        player = rules.current_player(self.state)  # set_state's work, inline: this runs at every move
        self.player, self.legal = TERMINAL_PLAYER if player == TERMINAL else player, None

    def own_generator(self) -> np.random.Generator:
        """This core's generator, copied (or built from a world's seed) if it was shared."""
        if not self.rng_owned:
            if isinstance(self.rng, np.random.Generator):
                generator = np.random.Generator(type(self.rng.bit_generator)(_COPY_SEED))
                generator.bit_generator.state = self.rng.bit_generator.state
                self.rng = generator
            else:
                self.rng = _world_generator(self.rng)
            self.rng_owned = True
        return self.rng

    def own_lines(self) -> _Lines:
        """This core's lines, copied if they were shared."""
        if not self.lines_owned:
            self.lines, self.lines_owned = self.lines.copy(), True
        return self.lines

    def synced_lines(self) -> list[list[str]]:
        """Every player's lines up to the current position (replaying the logged moves if needed)."""
        if self.lines.known <= len(self.moves):
            self._replay()
        return self.lines.lines

    def _replay(self) -> None:
        """Record the positions not yet recorded, replaying every move from the origin."""
        rules, origin = self.shared.game, self.origin
        lines = self.own_lines()
        if origin.state is None:
            rng = _seed_generator(origin.seed)
            state = rules.initial_state(rng)
        else:  # with no move to replay the origin's state is only read: no copy
            rng, state = _world_generator(origin.seed), rules.clone(origin.state) if self.moves else origin.state
        if lines.known == 0:
            self._record(lines, state, origin.carried)
        for index, action in enumerate(self.moves):
            if index + 1 < lines.known:  # recorded already: only replayed
                rules.apply_action(state, action, rng)
                continue
            lines.lines[rules.current_player(state)][-1] += f" a{action}"
            rules.apply_action(state, action, rng)
            self._record(lines, state)

    def _record(self, lines: _Lines, state, carried: dict | None = None) -> None:
        """Append each player's observation digest at ``state`` where the player learns something there: the
        player to act always (its action joins that line), another only when its observation changed
        (``carried``: lines kept as they are). A line per move for everyone counted moves a player does not
        see: a seeker's string grew with each of the child's secret decisions in the middle of its turn."""
        encode = self.shared.env.encode
        actor = self.shared.game.current_player(state)
        for seat, seat_lines in enumerate(lines.lines):
            if carried and seat in carried:
                seat_lines.append(carried[seat])
                continue
            observation = np.ascontiguousarray(encode(state, seat))
            digest = hashlib.blake2b(observation.tobytes(), digest_size=8).hexdigest()
            if seat == actor or not seat_lines or seat_lines[-1].partition(" ")[0] != digest:
                seat_lines.append(digest)
        lines.known += 1

    def start_world(self, state, seed: int, lines: list[list[str]], player: int) -> None:
        """Become a resampled world: ``state`` with chance from ``seed``; ``player`` keeps its ``lines``,
        the others' histories restart at this point (their past is not the searcher's to know)."""
        self.set_state(state)
        self.rng, self.rng_owned = seed, False
        own = lines[player]
        self.origin = _Origin(seed, state, {player: own[-1]})
        self.moves, self.moves_owned = [], True
        world_lines = [own[:-1] if seat == player else ["resampled"] for seat in range(len(lines))]
        self.lines, self.lines_owned = _Lines(world_lines), True


class KakuregaObserver:
    """The player's own observation: the env's vector (``tensor``, pieces in ``dict``) and text render."""

    def __init__(self, layout):
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {name: layout.view(self.tensor, name) for name in layout.pieces}

    def set_from(self, state, player):
        """Fill ``tensor`` with ``player``'s observation of ``state`` (zeros before the deal)."""
        if state.state is None:
            self.tensor[:] = 0.0
        else:
            self.tensor[:] = state.shared.env.encode(state.state, player)

    def string_from(self, state, player):
        """``player``'s observation as text: each named piece with its nonzero entries (``index:value``)."""
        self.set_from(state, player)
        parts = []
        for name, view in self.dict.items():
            flat = view.reshape(-1)
            parts.append(f"{name}=" + ",".join(f"{i}:{flat[i]:g}" for i in np.flatnonzero(flat)))
        return " ".join(parts)


class InformationStateObserver:
    """Perfect-recall information state: a string only (the history has no fixed size)."""

    tensor = np.zeros(0, np.float32)
    dict: dict = {}

    def set_from(self, state, player):
        """Refuse: there is no information-state tensor."""
        raise NotImplementedError(NO_INFORMATION_STATE_TENSOR)

    def string_from(self, state, player):
        """``player``'s seat, then one line per decision: observation digest and its own action."""
        return f"p{player}\n" + "\n".join(state.information_lines(player))


def reward_model(rules) -> pyspiel.GameType.RewardModel:
    """``TERMINAL`` where the rules pay only at the end (``pays_only_at_end``), else ``REWARDS``: returns that
    change during a game (points as scored, a match paid per round, shaping) are paid as ``rewards()``."""
    return pyspiel.GameType.RewardModel.TERMINAL if rules.pays_only_at_end() else pyspiel.GameType.RewardModel.REWARDS


def _game_type(env_name: str, rules, name: str) -> pyspiel.GameType:
    parameters = game_parameters(env_name)
    players = sorted({rules.num_players, *(c.get("num_players", rules.num_players) for c in ENV_SPECS[env_name].configurations)})
    return pyspiel.GameType(
        short_name=name,
        long_name=f"kakurega {env_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if rules.is_zero_sum() else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=reward_model(rules),
        max_num_players=players[-1],
        min_num_players=players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def register_games() -> dict[str, str]:
    """Register every registered env as an OpenSpiel game (idempotent); ``{env name: versioned short name}``.

    The newest version of each game is also registered without its version suffix.
    """
    registered = set(pyspiel.registered_names())
    newest: dict[str, str] = {}
    for env_name in ENV_SPECS:
        alias = short_name(env_name, versioned=False)
        if alias not in newest or _version(env_name) > _version(newest[alias]):
            newest[alias] = env_name
    names = {}
    for env_name in ENV_SPECS:
        names[env_name] = short_name(env_name)
        aliases = [short_name(env_name)] + [alias for alias, newest_env in newest.items() if newest_env == env_name]
        rules = None
        for name in dict.fromkeys(aliases):
            if name in registered:
                continue
            rules = rules or make(env_name, wrapped=False).game
            game_type = _game_type(env_name, rules, name)
            class_name = f"KakuregaGame_{name.removeprefix(PREFIX)}"
            game_class = type(class_name, (KakuregaGame,), {"env_name": env_name, "game_type": game_type})
            globals()[class_name] = game_class  # pickle finds a game's class by its module and name
            pyspiel.register_game(game_type, game_class)
    return names


GAMES = register_games()
