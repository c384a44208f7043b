"""A tiny 3-player game on the shared AEC base, for testing the base itself.

Each turn the player to act adds 1, 2 or 3 to a running total (add 3 is legal
only while the total is even); whoever brings the total to 10 or more loses
(-1) and the others win (+1). Every seat holds a private secret digit that
only it observes.
"""

import numpy as np

from kakurega.envs.core.aec import TurnBasedAECEnv
from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.layout import ObservationLayout


class ToyState:
    def __init__(self, secrets):
        self.total = 0
        self.turn = 0
        self.secrets = list(secrets)
        self.loser = None


class ToyGame(Game):
    name = "toy"
    num_players = 3
    num_actions = 3

    def __init__(self):
        self.options = {}

    def initial_state(self, rng):
        return ToyState(int(x) for x in rng.integers(0, 10, size=3))

    def current_player(self, state):
        return TERMINAL if state.loser is not None else state.turn % 3

    def legal_actions(self, state):
        if state.loser is not None:
            return []
        return [0, 1, 2] if state.total % 2 == 0 else [0, 1]

    def apply_action(self, state, action, rng):
        state.total += action + 1
        if state.total >= 10:
            state.loser = state.turn % 3
        state.turn += 1

    def is_terminal(self, state):
        return state.loser is not None

    def returns(self, state):
        if state.loser is None:
            return np.zeros(3)
        out = np.ones(3)
        out[state.loser] = -1
        return out

    def action_to_string(self, state, action):
        return f"add {action + 1}"

    def illegal_reason(self, state, action):
        return "adding 3 is allowed only while the total is even"

    def resample_hidden(self, state, player, rng):
        clone = self.clone(state)
        for seat in range(3):
            if seat != player:
                clone.secrets[seat] = int(rng.integers(0, 10))
        return clone


LAYOUT = ObservationLayout([("total", (1,), "running total / 10", 2.0), ("secret", (10,), "own secret digit")])


def encode(state, seat):
    obs = LAYOUT.zeros()
    LAYOUT.view(obs, "total")[0] = state.total / 10
    LAYOUT.view(obs, "secret")[state.secrets[seat]] = 1
    return obs


def render_text(state, viewer):
    own = "" if viewer is None else f" (your secret: {state.secrets[viewer]})"
    return f"total {state.total}{own}"


def raw_env(render_mode=None):
    return TurnBasedAECEnv(ToyGame(), LAYOUT, encode, render_text, render_mode=render_mode)
