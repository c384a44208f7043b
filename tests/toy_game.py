"""A tiny 3-player game on the shared AEC base: the worked example of docs/adding_a_game.md, and a game for
testing the base itself.

Each turn the player to act adds 1, 2 or 3 to a running total (add 3 is legal
only while the total is even); whoever brings the total to ``limit`` (10 by
default) or more loses (-1) and the others win (+1). Every seat holds a
private secret digit that only it observes. ``DEFINITION`` declares the env as
the page's env module does, each part here standing in for its module of
``envs/toy/``.
"""

import numpy as np

from kakurega.envs.core.definition import EnvDefinition
from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.core.options import Option
from kakurega.envs.core.picture import Scene, Text, button
from kakurega.envs.core.state_vector import StateVector

LIMIT_OPTION = Option("limit", int, 10, "the total that loses", low=4, high=10)


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

    def __init__(self, limit=LIMIT_OPTION.default):
        self.limit = LIMIT_OPTION.check(limit)
        self.options = {"limit": self.limit}

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
        if state.total >= self.limit:
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


class ToyObserver:
    """``ToyObserver(game)``: the layout and the encoder above."""

    layout = LAYOUT
    encode = staticmethod(encode)

    def __init__(self, game):
        self.game = game


class ToyRenderer:
    """``ToyRenderer(game)``: the text above (it takes no ``width``: it is drawn in full)."""

    render_text = staticmethod(render_text)

    def __init__(self, game):
        self.game = game


class ToyPicture:
    """``ToyPicture(game)``: the total, the viewer's secret and the buttons of the seat to act."""

    def __init__(self, game):
        self.game = game

    def scene(self, state, viewer=None, last_move=None):
        scene = Scene(600, 400, title="Toy")
        scene.add(Text(300, 120, f"total {state.total}", size=40))
        if viewer is not None:
            scene.add(Text(300, 200, f"your secret: {state.secrets[viewer]}", size=20))
            if self.game.current_player(state) == viewer:
                for action in self.game.legal_actions(state):
                    scene.add(*button(140 + 110 * action, 300, 90, 30, f"add {action + 1}", (action,)))
        return scene


class ToyStateVector(StateVector):
    """``env.state()``: every seat's observation; each secret is its seat's, so no fact is unseen."""

    def __init__(self, game, observer):
        super().__init__(game, observer, [])

    def write_unseen(self, state, unseen):
        """Nothing to write: the toy game has no fact that some seat does not see."""


DEFINITION = EnvDefinition(
    game_name="toy",
    version=0,
    options=(LIMIT_OPTION,),
    game=ToyGame,
    observer=ToyObserver,
    renderer=ToyRenderer,
    picture=ToyPicture,
    state_vector=ToyStateVector,
)
raw_env, env = DEFINITION.factories(__name__)
