"""What the shared move checks of ``tests/leak_checks.py`` need to know of Summer Hide and Seek's moves.

``leak_checks.game_hooks`` finds this module by the game's name; see :func:`leak_checks.public_action`.
"""

from __future__ import annotations


def public_action(game, action: int):
    """The action itself where every player sees it and the state may forget it, else None.

    A Summer seeker's piece is public (the rules page), but the state forgets
    the last guesses of a round once the round ends; the moves a seat cannot
    tell apart then still place the same piece.
    """
    return action if game.describe_action(action)[0] == "place" else None
