"""The rules-engine interface every kakurega game implements.

A ``Game`` holds a game's fixed configuration (variant, player count, data
files) and the rules as methods over a plain-data ``state``. It imports no
gymnasium, pettingzoo or torch. All randomness comes from the
``numpy.random.Generator`` passed in; a game never touches a global RNG.

Seats are integers ``0..num_players-1``; the environment maps agent names to
seats. Rewards are derived by the environment from :meth:`Game.returns`, the
cumulative return of every seat so far, so a game that pays only at the end
returns zeros until then and a game with per-step rewards simply accumulates.

Every ``Game`` records the keyword arguments that configure it in
``options``, so a rules object can be rebuilt from data: ``new_rules()``
makes a fresh one of the same configuration, and :class:`RulesConfig` is that
recipe as a value (what agents are handed instead of the env's own rules
object, whose caches were filled from the true state).
"""

from __future__ import annotations

import copy
import pickle
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

TERMINAL = -1  # current_player() of a finished (terminated or truncated) game


def flags_of(actions, num_actions: int) -> bytes:
    """One byte per action id: 1 for the ids in ``actions``, else 0.

    A loop over a bytearray: for the few legal actions of a turn this costs a
    fraction of numpy's fancy assignment (docs/performance.md).
    """
    flags = bytearray(num_actions)
    for action in actions:
        flags[action] = 1
    return bytes(flags)


@dataclass(frozen=True)
class RulesConfig:
    """A rules configuration as plain data: the ``Game`` class and its options.

    It holds no cache and no state, so it can be handed to anyone and pickled
    (equal configurations pickle alike); :meth:`build` makes a fresh rules
    object from it.
    """

    game_type: type
    options: dict

    def build(self) -> Game:
        """A new rules object of this configuration."""
        return self.game_type(**self.options)


class Game(ABC):
    """Rules of one game under one configuration.

    ``__init__`` must end by recording its configuration in ``options``: the
    keyword arguments that rebuild an equal rules object (data such as a loaded
    deck or map may be stored as loaded). A rules object may cache what it
    computes; the caches fill from the states it is given, so a rules object
    is never shared between the env and a player, nor between two players:
    each builds its own with :meth:`new_rules`.

    ``__init__`` checks each option it takes with the
    :class:`~kakurega.envs.core.options.Option` object the env module
    declares (``NUM_PLAYERS_OPTION.check(num_players)``): one check, one
    message, whether the rules are built by an env or directly.
    """

    #: short id, e.g. "kakurenbo"
    name: str = ""
    num_players: int = 0
    #: size of the fixed discrete action space
    num_actions: int = 0
    #: the constructor's keyword arguments for this configuration (set by ``__init__``)
    options: dict

    def rules_config(self) -> RulesConfig:
        """This configuration as data (the class and a copy of ``options``)."""
        options = getattr(self, "options", None)
        if not isinstance(options, dict):
            raise TypeError(
                f"{type(self).__name__} does not record its configuration: its __init__ must set "
                f"self.options to a dict of its keyword arguments, got {options!r}"
            )
        return RulesConfig(type(self), dict(options))

    def new_rules(self) -> Game:
        """A fresh rules object of the same configuration, sharing no cache with this one."""
        return self.rules_config().build()

    @abstractmethod
    def initial_state(self, rng: np.random.Generator) -> Any:
        """A new game's state, chance events (shuffles, deals) drawn from ``rng``."""

    @abstractmethod
    def current_player(self, state) -> int:
        """Seat that must act now, or ``TERMINAL`` when the game is over.

        ``TERMINAL`` exactly when ``is_terminal`` or ``is_truncated`` holds: the
        environment asks those two only after a ``TERMINAL``.
        """

    @abstractmethod
    def legal_actions(self, state) -> list[int]:
        """Sorted legal action ids of the current player (empty when over)."""

    def legal_flags(self, state) -> bytes:
        """``legal_actions`` as one byte per action id: 1 where legal, else 0.

        What the environment's action mask views. This default builds it from
        the list; a game whose turns rarely repeat a legal set may override it
        to build the flags directly (the environment then skips the list).
        An override must agree with ``legal_actions`` in every state.
        """
        return flags_of(self.legal_actions(state), self.num_actions)

    def is_legal(self, state, action: int) -> bool:
        """Whether ``action`` (an id in ``[0, num_actions)``) is legal for the player to act in ``state``.

        What a caller that was not handed the legal actions checks before a
        move (the OpenSpiel bridge's ``apply_action``). This default looks
        ``action`` up in ``legal_actions``; a game may override it with a
        cheaper check of that one action, which must agree with
        ``legal_actions`` in every state (``tests/test_conformance.py``).
        """
        return action in self.legal_actions(state)

    @abstractmethod
    def apply_action(self, state, action: int, rng: np.random.Generator) -> None:
        """Apply a legal ``action`` of the current player in place; chance uses ``rng``."""

    @abstractmethod
    def is_terminal(self, state) -> bool:
        """True when the game ended by its rules."""

    def is_truncated(self, state) -> bool:
        """True when the game was cut off by a step limit (and scored as the rules say)."""
        return False

    @abstractmethod
    def returns(self, state) -> np.ndarray:
        """Cumulative return of every seat so far (float array of length num_players).

        A game may hand out one shared *read-only* array while the returns do
        not change (e.g. zeros until the end); the env then skips re-reading
        it. Never change the values of an array once returned.
        """

    def return_bounds(self) -> tuple[float, float] | None:
        """``(lowest, highest)`` cumulative return any seat can have in any state; None when the game does not say.

        A bound the rules guarantee, not one observed (the OpenSpiel bridge gives
        it as min/max utility, by which search and CFR normalise).
        """
        return None

    def max_decisions(self) -> int | None:
        """The most decisions (agent actions, all seats together) one game can take; None when the game does not say."""
        return None

    def is_zero_sum(self) -> bool:
        """True when the returns of every state sum to zero (False, the default, claims nothing)."""
        return False

    def pays_only_at_end(self) -> bool:
        """True when every seat's return is 0 in every state before the end (a win scheme): the returns are
        paid when the game ends or is cut off, never during it. False, the default, claims nothing (points or
        VP as scored, a match paid per round, shaping). The OpenSpiel bridge declares its reward model by it."""
        return False

    def turns_cycle(self) -> bool:
        """True when the seats act in rounds 0, 1, ..., n-1 (none skipped, none twice in a row) and every game
        ends with a round's last seat: what PettingZoo's ``aec_to_parallel`` needs (``metadata["is_parallelizable"]``).
        The default claims it for one seat only."""
        return self.num_players == 1

    @abstractmethod
    def action_to_string(self, state, action: int) -> str:
        """The action in words, for logs, errors and renders."""

    def public_action_string(self, before, action: int, after, viewer: int | None) -> str:
        """What ``viewer`` (a seat; None: a spectator) may know of the move ``action`` from ``before`` to ``after``.

        The whole move where it is public, its public part where it is not,
        with the consequences the viewer sees (cards that moved, points
        scored, the end), in sentences joined by ``"; "``. Words for the
        viewer's own seat say "you". Equal for any two moves the viewer cannot
        tell apart (``tests/test_move_words.py``). This default says only who moved.
        """
        return f"player_{self.current_player(before)} moved"

    def opening_words(self, state, viewer: int | None = None) -> list[str]:
        """What happened by itself before the first decision of the new game ``state``, in ``viewer``'s words.

        The moves' words (:meth:`public_action_string`) tell everything that
        follows a move; this tells what the table shows before any move, where
        the rules played something (Hidden Rooms: the first round's monster
        appears and moves). Equal for any two states the viewer cannot tell
        apart. This default tells nothing: a deal is shown by the table.
        """
        return []

    def result_words(self, state, viewer: int | None = None) -> list[str]:
        """How a finished game ended, for ``viewer`` (a seat, "you"; None: a spectator): the headline first.

        Who won and why, in the players' words; a tie is said as a tie. Told
        from what ``viewer`` may know only. Games override this with their own
        words (:mod:`kakurega.envs.core.results`); the default tells the
        returns' winner.
        """
        from kakurega.envs.core.results import by_returns

        return by_returns(self.returns(state), viewer)

    def winning_note(self, state, action: int) -> str:
        """A short note when the legal ``action`` of the player to move wins at once ("wins at once"), else "".

        Read only from what the mover knows (equal for states it cannot tell
        apart); the terminal menu marks these moves. This default marks none.
        """
        return ""

    def code_legend(self) -> str:
        """What the short codes in this game's move names mean (e.g. the animal labels), or "" when there are none."""
        return ""

    def round_words(self, state, viewer: int | None = None) -> list[str]:
        """One line per finished round of a game played in rounds ("Round 1: you escaped."); [] for other games."""
        return []

    def illegal_reason(self, state, action: int) -> str:
        """Why ``action`` is illegal in ``state``; games override this with rule-specific words."""
        legal = self.legal_actions(state)
        names = ", ".join(self.action_to_string(state, a) for a in legal[:12])
        more = "" if len(legal) <= 12 else f", ... ({len(legal)} in all)"
        return f"it is not a legal action now; legal actions are: {names}{more}"

    @abstractmethod
    def resample_hidden(self, state, player: int, rng: np.random.Generator) -> Any:
        """A new full state identical in all ``player`` knows, the rest re-dealt with ``rng``.

        The output depends only on what ``player`` knows and on ``rng``, in
        every field (scratch included): the hidden part of ``state`` itself
        never influences it, and no hidden fact (a counter of hidden moves, an
        encoder's copy of another seat's view) is copied through. With a fixed
        ``rng`` it is therefore the same for every state of the player's
        information set: :class:`DeterminizationSampler` relies on that.
        """

    def first_player(self, state) -> int | None:
        """Seat that took the first turn of play in ``state``'s game, when setup does not show it.

        Optional hook for balance reports (``kakurega balance``). ``None``, the
        default, means the first seat to act after :meth:`initial_state` is the
        first player. A game whose first turn of play is decided later (say by
        chance after a setup phase) returns that seat from any state after the
        decision.
        """
        return None

    def fingerprint(self, state) -> bytes:
        """Bytes equal for equal states (tests compare states with it).

        It must cover every field of the state class but the scratch ones,
        which the state class lists in a class attribute ``SCRATCH_FIELDS``
        (none of the built-in games has any: a state holds the rules' data,
        and an encoder's caches belong to its observer).
        """
        return pickle.dumps(state)

    def clone(self, state) -> Any:
        """An independent copy of ``state``: every field but the scratch ones copied, nothing shared."""
        return copy.deepcopy(state)


class DeterminizationSampler:
    """Draws determinizations for one seat: ``sampler(rng)`` is a full state consistent with all that seat knows.

    It holds the seat's *information state* (``resample_hidden(state, seat,
    default_rng(0))``: the one member of the seat's information set that
    depends only on what the seat knows), the seat, and a rules object of its
    own. So nothing it references depends on what the seat may not know: two
    true states the seat cannot tell apart give samplers that pickle to the
    same bytes and draw the same states from equal generators. The rules
    object pickles as its :class:`RulesConfig`, so no cache enters a pickle.
    """

    __slots__ = ("rules", "information_state", "seat")

    def __init__(self, rules: Game, information_state: Any, seat: int):
        self.rules = rules
        self.information_state = information_state
        self.seat = seat

    def __call__(self, rng: np.random.Generator) -> Any:
        """A new full state drawn with ``rng`` (the information state itself is never changed)."""
        return self.rules.resample_hidden(self.information_state, self.seat, rng)

    def __reduce__(self):
        return _rebuild_sampler, (self.rules.rules_config(), self.information_state, self.seat)


def _rebuild_sampler(config: RulesConfig, information_state: Any, seat: int) -> DeterminizationSampler:
    """Unpickle a :class:`DeterminizationSampler`: fresh rules from the configuration."""
    return DeterminizationSampler(config.build(), information_state, seat)
