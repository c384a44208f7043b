"""Secret Nim: a tiny 2-3 player hidden-information game for the training-layer tests only.

A public pile of stones; each player holds a private card (0 or 1). On your
turn take 1 or 2 stones, or 3 if your card is 1. Whoever takes the last stone
wins (+1); every other player gets -1. ``max_turns`` truncates the game
(everyone gets 0), so truncation paths can be tested too.

Actions: 0 = take 1, 1 = take 2, 2 = take 3.

Observation pieces: ``pile`` (one-hot 0..10), ``my_card``, ``seat`` (one-hot).

It is registered in the test process only, through :func:`register` (see
``tests/training/conftest.py`` and :func:`toy_registered`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from kakurega.agents.base import Agent
from kakurega.envs.core.aec import TurnBasedAECEnv, wrap
from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.registry import ENV_SPECS, EnvSpec

NAME = "secret_nim_v0"
MAX_PILE = 10


@dataclass
class NimState:
    pile: int
    cards: list
    player: int
    winner: int = -1
    turns: int = 0
    truncated: bool = False


class SecretNimGame(Game):
    name = "secret_nim"
    num_actions = 3

    def __init__(self, num_players=2, start_pile=None, max_turns=100):
        self.num_players = num_players
        self.start_pile = start_pile
        self.max_turns = max_turns
        self.options = {"num_players": num_players, "start_pile": start_pile, "max_turns": max_turns}

    def initial_state(self, rng):
        pile = self.start_pile if self.start_pile is not None else int(rng.integers(6, MAX_PILE + 1))
        cards = [int(c) for c in rng.integers(0, 2, size=self.num_players)]
        return NimState(pile=pile, cards=cards, player=0)

    def current_player(self, state):
        return TERMINAL if self.is_terminal(state) or state.truncated else state.player

    def legal_actions(self, state):
        if self.is_terminal(state) or state.truncated:
            return []
        most = 3 if state.cards[state.player] else 2
        return [a for a in range(3) if a + 1 <= min(most, state.pile)]

    def apply_action(self, state, action, rng):
        state.pile -= action + 1
        state.turns += 1
        if state.pile == 0:
            state.winner = state.player
        elif state.turns >= self.max_turns:
            state.truncated = True
        else:
            state.player = (state.player + 1) % self.num_players

    def is_terminal(self, state):
        return state.winner >= 0

    def is_truncated(self, state):
        return state.truncated

    def returns(self, state):
        out = np.zeros(self.num_players)
        if state.winner >= 0:
            out[:] = -1.0
            out[state.winner] = 1.0
        return out

    def action_to_string(self, state, action):
        return f"take {action + 1}"

    def resample_hidden(self, state, player, rng):
        new = self.clone(state)
        for seat in range(self.num_players):
            if seat != player:
                new.cards[seat] = int(rng.integers(0, 2))
        return new


def make_layout(game):
    return ObservationLayout(
        [
            ("pile", (MAX_PILE + 1,), "stones left, one-hot"),
            ("my_card", (1,), "1 if I may take 3"),
            ("seat", (game.num_players,), "my seat, one-hot"),
        ]
    )


class Encoder:
    def __init__(self, game):
        self.layout = make_layout(game)

    def __call__(self, state, seat):
        obs = self.layout.zeros()
        self.layout.view(obs, "pile")[state.pile] = 1
        self.layout.view(obs, "my_card")[0] = state.cards[seat]
        self.layout.view(obs, "seat")[seat] = 1
        return obs


def render_text(state, viewer):
    mine = "" if viewer is None else f"  your card: {state.cards[viewer]}"
    return f"pile: {state.pile}  to move: player_{state.player}{mine}"


def raw_env(num_players=2, start_pile=None, max_turns=100, render_mode=None, render_view=None):
    if num_players not in (2, 3):
        raise ValueError(f"num_players must be 2 or 3, got {num_players!r}")
    game = SecretNimGame(num_players, start_pile, max_turns)
    encoder = Encoder(game)
    return TurnBasedAECEnv(game, encoder.layout, encoder, render_text, render_mode, render_view)


def env(**kwargs):
    return wrap(raw_env(**kwargs))


class SecretNimHeuristic(Agent):
    """Takes the last stones when it can, else leaves a multiple of 3 when it can, else takes 1."""

    def act(self, observation, sampler=None):
        legal = np.flatnonzero(observation["action_mask"])
        pile = int(np.argmax(self.piece(observation, "pile")))
        if pile - 1 in legal:
            return pile - 1
        for action in legal:
            if (pile - action - 1) % 3 == 0:
                return int(action)
        return int(legal[0])


class TakeMost(Agent):
    """Scripted opponent: always takes as many stones as it may."""

    def act(self, observation, sampler=None):
        return int(np.flatnonzero(observation["action_mask"])[-1])


class _ToySpec(EnvSpec):
    @property
    def module(self):
        return "secret_nim"


SPEC = _ToySpec(
    name=NAME,
    pettingzoo_id="kakurega-test/secret_nim-v0",
    summary="Secret Nim (tests only)",
    heuristic="secret_nim:SecretNimHeuristic",
    configurations=({}, {"num_players": 3}),
)


def register():
    """Add the toy game to the one registry of this process (idempotent)."""
    ENV_SPECS[NAME] = SPEC


def unregister():
    ENV_SPECS.pop(NAME, None)


@contextlib.contextmanager
def toy_registered():
    register()
    try:
        yield
    finally:
        unregister()
