"""ANSI rendering: the brick board from the viewer's side with labels, face-down cards, holes and doubles."""

import numpy as np

from animal_chain.scenario import GAME, board_state, pos
from kakurega.envs.animal_chain.render import AnimalChainRenderer
from kakurega.envs.animal_chain_v0 import env as make_env

RENDER = AnimalChainRenderer(GAME)


def scenario():
    state = board_state(
        up={"r3c2": "Ct|Dg", "r4c2": "Br|Dg", "r3c3": ["Fx|Pg", "Dg|Rb"], "r0c0": "Rb|Fx", "r6c3": "Pg|Ct"},
        holes=("r5c1",),
        hands=(("Dg|Rb", "Dg|Rb", "Ct|Fx"), ("Br|Pg",)),
        deck=("Rb|Br",),
    )
    state.double_owner[pos("r3c3")] = 0
    return state


PLAYER_0_VIEW = """\
Animal Chain | playing | turn 0/200 | first player: player_0 | player_0 to move
view: player_0 (player_0's base at the bottom)
r6 |                [#####]   [#####]   [#####]   [Pg|Ct]   <- base of player_1
r5 |           [#####]     ( )     [#####]   [#####]   [#####]
r4 |      [#####]   [#####]   [Br|Dg]   [#####]   [#####]   [#####]
r3 | [#####]   [#####]   [Ct|Dg]   {Dg|Rb}2  [#####]   [#####]   [#####]
r2 |      [#####]   [#####]   [#####]   [#####]   [#####]   [#####]
r1 |           [#####]   [#####]   [#####]   [#####]   [#####]
r0 |                [Rb|Fx]   [#####]   [#####]   [#####]   <- base of player_0
deck 1 | hands: player_0 3, player_1 1
your hand: Ct|Fx, Dg|Rb x2
legend: [L|R] face up (digit: stack height)  {L|R} your double  <L|R> opponent's double  [#####] face down  ( ) hole"""


def test_player_0_sees_its_base_at_the_bottom():
    assert RENDER.render_text(scenario(), 0) == PLAYER_0_VIEW


def test_player_1_sees_the_board_turned_half_round():
    lines = RENDER.render_text(scenario(), 1).splitlines()
    assert lines[1] == "view: player_1 (player_1's base at the bottom)"
    assert lines[2].startswith("r6 |") and lines[2].endswith("[Fx|Rb]   <- base of player_0")  # r0c0 seen from afar
    assert lines[5] == "r3 | [#####]   [#####]   [#####]   <Rb|Dg>2  [Dg|Ct]   [#####]   [#####]"
    assert lines[7] == "r1 |           [#####]   [#####]   [#####]     ( )     [#####]"
    assert lines[8].startswith("r0 |                [Ct|Pg]")
    assert "your hand: Pg|Br" in lines  # Br|Pg seen from player 1's side


def test_spectator_sees_public_information_only():
    text = RENDER.render_text(scenario(), None)
    assert "view: spectator" in text and "your hand" not in text
    assert "{Dg|Rb}2" in text and "player_0's double" in text


def test_base_building_shows_only_the_viewers_own_base():
    state = GAME.initial_state(np.random.default_rng(0))
    own = RENDER.render_text(state, 0).splitlines()
    other = RENDER.render_text(state, 1).splitlines()
    spectator = RENDER.render_text(state, None).splitlines()
    assert own[0] == "Animal Chain | building | player_0 is building its base"
    assert own[8].startswith("r0 |                (") and own[8].count("(") == 4  # known, still face down
    assert "(" not in own[2] and "base swaps left: 8" in own
    assert other[2].count("[#####]") == 4 and "base swaps left" not in "\n".join(other)
    assert spectator[2].count("[#####]") == 4 and spectator[8].count("[#####]") == 4


def test_env_render_modes():
    env = make_env(render_mode="ansi", render_view="player_1")
    env.reset(seed=0)
    assert "view: player_1" in env.render()
    human = make_env(render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
