"""Once the drawn tile is placed or declined, the child holds no tile, and the observation says so.

Rules page (../shared/rules/hidden_rooms.md), "A round", 2, **Child searches**: the drawn tile is
placed on a chosen cell or declined (a pile tile goes to memory, a memory tile stays there); and
"Hidden information": the child sees "the tile just drawn while deciding where to place it", so
only while deciding. ``state.drawn`` is -1 when no tile is in hand; a different "none" value was
caught only by the cross-game encoder conformance test, never by the game's own tests.
"""

import pytest

from hidden_rooms.hidden_rooms_helpers import game_with, monster, rng, table
from kakurega.envs.hidden_rooms.observation import HiddenRoomsObserver
from kakurega.envs.hidden_rooms.rules import DECLINE, MOVE, PLACE, PLACING, SEARCH, SEARCH_MEMORY, SEARCH_PILE

N, E, S, W = 0, 1, 2, 3  # PLACE + W: place west of the child


@pytest.mark.parametrize(
    "memory, pile, search, then",
    [
        ([], ["green 6", "red 2"], SEARCH_PILE, PLACE + W),  # a pile tile placed
        ([], ["green 6", "red 2"], SEARCH_PILE, DECLINE),  # a pile tile declined: to memory
        (["red 5"], ["green 6"], SEARCH_MEMORY, PLACE + W),  # a memory tile placed
        (["red 5"], ["green 6"], SEARCH_MEMORY, DECLINE),  # a memory tile declined: stays in memory
    ],
)
def test_after_placing_or_declining_nothing_is_in_hand(memory, pile, search, then):
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    observer = HiddenRoomsObserver(game)
    state = table(game, tiles={(4, 4): "red 3"}, memory=memory, pile=pile, phase=SEARCH)
    game.apply_action(state, search, rng())
    assert state.phase == PLACING and state.drawn >= 0
    seen = observer.encode(state, 0)
    assert observer.layout.view(seen, "drawn").any() and observer.layout.view(seen, "drawn_from").any()
    game.apply_action(state, then, rng())
    assert state.phase in (MOVE, SEARCH) and state.turn == 2  # the next turn's first decision
    seen = observer.encode(state, 0)
    assert not observer.layout.view(seen, "drawn").any(), "the observation shows a tile in hand"
    assert not observer.layout.view(seen, "drawn_from").any()
    assert state.drawn == -1 and not state.drawn_from_memory
