"""Rule scenarios at the edges of the rules page, on the small test map of ``helpers.py``."""

from kakurega.envs.core.game import TERMINAL
from kakurega.envs.summer_hide_and_seek.rules import OVER

from .helpers import new_game, play

#: two rounds, each child found after one line: 8 actions, the last one ends the game
WHOLE_GAME = ["start r0c0", "line r0c1", "stop", "place r0c1"] * 2


def test_a_game_that_ends_on_the_last_allowed_step_is_over_not_truncated():
    """Rules page, "End and rewards": the game ends when every player has been the child once; the step limit
    truncates only a game still running. A game whose last action is the limit's last step has ended (scored as
    a finished game), it is not cut off; one step fewer and the same game is cut off instead."""
    game, state = new_game(max_steps=len(WHOLE_GAME))
    play(game, state, *WHOLE_GAME)
    assert state.phase == OVER and state.steps == game.max_steps
    assert game.is_terminal(state) and not game.is_truncated(state)
    assert game.current_player(state) == TERMINAL
    control, state = new_game(max_steps=len(WHOLE_GAME) - 1)
    play(control, state, *WHOLE_GAME[:-1])
    assert control.is_truncated(state) and not control.is_terminal(state)
