"""Readable Animal Chain positions for rule tests.

Positions are named ``r<row>c<card>`` in player 0's frame (row 0 = player 0's
base row, cards counted from player 0's left); cards by their labels,
``"Dg|Ct"`` = dog on the left half, cat on the right.
"""

from __future__ import annotations

import numpy as np

from kakurega.envs.animal_chain.rules import NO_SEAT, PLAY, AnimalChainGame, AnimalChainState

GAME = AnimalChainGame()
FILLER = "Pg|Fx"  # face-down cards nobody looks at


def pos(name: str, game: AnimalChainGame = GAME) -> int:
    """Absolute position of ``"r3c2"``."""
    return game.position_names.index(name)


def card(label: str, game: AnimalChainGame = GAME) -> int:
    """Card type of ``"Dg|Ct"``."""
    return [game.deck.type_label(t) for t in range(game.num_types)].index(label)


def hand_of(*labels: str, game: AnimalChainGame = GAME) -> list[int]:
    counts = [0] * game.num_types
    for label in labels:
        counts[card(label, game)] += 1
    return counts


def board_state(
    up: dict[str, str | list[str]] | None = None,
    holes=(),
    hands=((), ()),
    deck=(),
    to_move: int = 0,
    game: AnimalChainGame = GAME,
) -> AnimalChainState:
    """A play-phase state: ``up`` positions face up (a label, or a stack bottom first), holes, the rest face down."""
    P = game.num_positions
    stacks = [[card(FILLER, game)] for _ in range(P)]
    face_down = [1] * P
    for name, cards in (up or {}).items():
        cards = [cards] if isinstance(cards, str) else cards
        stacks[pos(name, game)] = [card(c, game) for c in cards]
        face_down[pos(name, game)] = 0
    for name in holes:
        stacks[pos(name, game)] = []
        face_down[pos(name, game)] = 0
    state = AnimalChainState(
        phase=PLAY,
        to_move=to_move,
        deck=[card(c, game) for c in deck],
        hands=[hand_of(*hands[0], game=game), hand_of(*hands[1], game=game)],
        stacks=stacks,
        face_down=face_down,
        double_owner=[NO_SEAT] * P,
        double_foundations=[()] * P,
        first_player=0,
    )
    game.refresh(state)
    return state


def play(state, seat: int, label: str, where: str, game: AnimalChainGame = GAME) -> int:
    """Action id of ``seat`` playing ``label`` (absolute card) onto ``where`` (absolute position)."""
    return game.play_action(seat, card(label, game), pos(where, game))


def step(state, action: int, game: AnimalChainGame = GAME) -> None:
    """Apply ``action`` after checking that it is legal."""
    assert action in game.legal_actions(state), f"{game.action_to_string(state, action)} should be legal"
    game.apply_action(state, action, np.random.default_rng(0))


def top(state, where: str, game: AnimalChainGame = GAME) -> str | None:
    t = game.top(state, pos(where, game))
    return None if t < 0 else game.deck.type_label(t)


def pass_heavy_states(game, seed, num_games):
    """States of games where both players pass a lot: empty decks, holes, many hidden cards."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(num_games):
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            states.append(game.clone(state))
            legal = game.legal_actions(state)
            passes = [a for a in legal if a >= game.pass_action]
            action = int(rng.choice(passes)) if passes and rng.random() < 0.7 else int(rng.choice(legal))
            game.apply_action(state, action, rng)
    return states[::3]
