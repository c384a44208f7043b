"""Hidden Rooms' state vector (``env.state()``, centralised training only): the pile's order.

The child's observation comes first (:mod:`kakurega.envs.core.state_vector`);
it shows the pile's composition, and this piece adds its order.
"""

from __future__ import annotations

from kakurega.envs.core.state_vector import StateVector
from kakurega.envs.hidden_rooms.rules import NUM_TILES


class HiddenRoomsStateVector(StateVector):
    """The child's observation, then the order of the face-down pile."""

    def __init__(self, game, observer):
        super().__init__(game, observer, [
            ("pile_order", (NUM_TILES, NUM_TILES), "row k: one-hot tile id k-th from the pile's top "
             "(row 0 is drawn next; tile t: colour t // 6, number t % 6 + 1)"),
        ])

    def write_unseen(self, state, unseen) -> None:
        pile_order = self.unseen.view(unseen, "pile_order")
        for k, tile in enumerate(reversed(state.pile)):
            pile_order[k, tile] = 1.0
