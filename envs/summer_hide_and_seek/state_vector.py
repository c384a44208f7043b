"""Summer Hide-and-Seek's state vector (``env.state()``, centralised training only).

Every seat's observation comes first (:mod:`kakurega.envs.core.state_vector`):
the child's shows its stroke, square and turn, so the secret is already there.
One piece adds the one hidden fact the child's observation leaves out.
"""

from __future__ import annotations

from kakurega.envs.core.state_vector import StateVector


class SummerStateVector(StateVector):
    """Every seat's observation, then whether the child's next decision must be to continue."""

    def __init__(self, game, observer):
        super().__init__(game, observer, [
            ("continue_due", (1,), "1 when the child's last line was a shortcut and its next decision "
             "is to continue (``paced_turns`` only)"),
        ])

    def write_unseen(self, state, unseen) -> None:
        self.unseen.view(unseen, "continue_due")[0] = float(state.continue_due)
