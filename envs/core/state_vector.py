"""The global state of a game as one float32 vector: ``env.state()``, for centralised training only.

The vector is every seat's observation, in seat order (pieces named
``player_<i>/<piece>``), followed by the pieces that no seat observes (named
``unseen/<piece>``: the order of a pile, a face-down card, a hand nobody sees).
So it holds all that any player knows and all that nobody knows: what a
centralised critic (MAPPO, QMIX, any CTDE method) learns from. It is never an
agent's input: the project's runners hand each agent its own observation only.

Each game declares its unseen pieces and writes them in
``envs/<game>/state_vector.py``; this module joins them to the observations.
"""

from __future__ import annotations

import numpy as np

from kakurega.envs.core.layout import ObservationLayout


class StateVector:
    """``encode(state)``: the state vector of ``state``; ``layout`` names its pieces.

    Subclasses (one per game) set :attr:`unseen_pieces` in ``__init__`` (the
    ``(name, shape, description, high)`` pieces no seat observes) and write them
    in :meth:`write_unseen`.
    """

    def __init__(self, game, observer, unseen_pieces):
        self.observer = observer
        self.num_players = game.num_players
        observation = observer.layout
        self.observation_size = observation.size
        pieces = [
            (f"player_{seat}/{p.name}", p.shape, p.description, p.high)
            for seat in range(game.num_players)
            for p in observation.pieces.values()
        ]
        #: the unseen pieces alone (what :meth:`write_unseen` writes into)
        self.unseen = ObservationLayout(unseen_pieces)
        pieces += [(f"unseen/{p.name}", p.shape, p.description, p.high) for p in self.unseen.pieces.values()]
        self.layout = ObservationLayout(pieces)

    def encode(self, state) -> np.ndarray:
        """A fresh state vector of ``state``: every seat's observation, then the unseen pieces."""
        vector = self.layout.zeros()
        size = self.observation_size
        for seat in range(self.num_players):
            vector[seat * size : (seat + 1) * size] = self.observer.encode(state, seat)
        self.write_unseen(state, vector[self.num_players * size :])
        return vector

    def write_unseen(self, state, unseen: np.ndarray) -> None:
        """Write the unseen pieces of ``state`` into ``unseen`` (laid out by :attr:`unseen`, all zeros on entry).

        Every game's subclass (``envs/<game>/state_vector.py``) writes its own; the base has none to write.
        """
        raise NotImplementedError(f"{type(self).__name__} declares unseen pieces but does not write them")
