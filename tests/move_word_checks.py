"""Shared machinery of the move-word tests: a sample of a game's moves, and the two leaky controls
(words that tell the mover's secret to everyone, words that say only who moved) that the checks of
``leak_checks`` must catch.

The generic ``test_move_words.py`` runs the checks on every registered env; each game's
``test_move_words.py`` runs the controls and the game's own public facts.
"""

from __future__ import annotations

import pytest
from leak_checks import check_move_word_leaks, check_move_words_complete, move_transitions

from kakurega.envs import make
from kakurega.envs.core.game import Game


def moves_of(raw, seed: int, num_games: int, every: int, count: int):
    """``count`` moves spread evenly over the moves of ``num_games`` random games (every ``every``-th)."""
    moves = move_transitions(raw.game, seed=seed, num_games=num_games, every=every)
    return [moves[i * len(moves) // count] for i in range(count)] if len(moves) > count else moves


def _own_words_for_everyone(game):
    """A leaky control: every viewer is told the move as its mover knows it."""
    return lambda before, action, after, viewer: game.public_action_string(before, action, after,
                                                                            game.current_player(before))


def check_control_words_that_tell_the_movers_secret_are_caught(name: str, config: dict) -> None:
    raw = make(name, wrapped=False, **config)
    moves = moves_of(raw, seed=34, num_games=2, every=1, count=30)
    with pytest.raises(AssertionError, match="differ between moves seat . cannot tell apart"):
        check_move_word_leaks(raw.game, moves, words=_own_words_for_everyone(raw.game))


def check_control_words_that_say_only_who_moved_are_caught(name: str, config: dict) -> None:
    # the words of old ("player_1 moved") leave out every public fact
    raw = make(name, wrapped=False, **config)
    moves = moves_of(raw, seed=35, num_games=1, every=3, count=6)
    with pytest.raises(AssertionError, match="the words leave out a public fact"):
        check_move_words_complete(raw.game, moves, raw.render_state,
                                  words=lambda before, action, after, viewer: Game.public_action_string(
                                      raw.game, before, action, after, viewer))
