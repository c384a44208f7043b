"""What the shared move checks of ``tests/leak_checks.py`` need to know of Hidden Rooms' moves.

``leak_checks.game_hooks`` finds this module by the game's name; see :func:`leak_checks.public_draw`.
"""

from __future__ import annotations

from kakurega.envs.hidden_rooms.rules import SEARCH_PILE


def public_draw(game, before, action, sample):
    """``sample`` (``before`` re-dealt for a seat) drawing what ``action`` draws in ``before``.

    A Hidden Rooms child sees the tile it takes from the pile (the rules
    page), but a tile that cannot be placed while the memory area is full
    goes back into the pile with the memory's tiles, reshuffled, and the
    state forgets it; the moves the child cannot tell apart still draw that
    tile (any other would have been told, though the spill hides it after).
    """
    if action == SEARCH_PILE:
        pile = sample.pile
        at = pile.index(before.pile[-1])
        pile[at], pile[-1] = pile[-1], pile[at]
    return sample
