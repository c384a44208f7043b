"""``is_stuck`` (the stuck rule as a public helper, used by ``sample_stroke``) agrees with the game.

Rules page (../shared/rules/summer_hide_and_seek.md), "The child's turn", **Stuck (詰み)**:
"if at any moment the child can make no legal line at all (whatever cost remains), the turn ends
and the child counts as found". The engine judges this by its line masks; seekers' samples
(``resample_hidden`` -> ``sample_stroke``, "Hidden information") judge it with ``is_stuck``. Until
now no test ever saw ``is_stuck`` answer True, so a helper that never reports a stuck child (and
samples that put the child where the real one would have been found) went unnoticed.
"""

import numpy as np

from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, SEEK

from .helpers import new_game, play, square


def test_the_dead_end_of_the_v1_stuck_scenario_is_stuck_only_with_the_piece():
    # as in test_v1: from r4c5, once r3c5 is on the stroke, the only line left is the move to r4c4
    game, state = new_game()
    play(game, state, "start r3c5", "line r4c5", "stop")
    assert state.phase == SEEK
    here = square(game, "r4c5")
    piece = 1 << square(game, "r4c4")
    assert not game.is_stuck(here, state.visited, state.drawn, state.blocked)
    assert game.is_stuck(here, state.visited, state.drawn, state.blocked | piece)
    assert game.open_lines(here, state.visited, state.drawn, state.blocked | piece, BUDGET) == []


def test_a_start_square_with_every_neighbour_taken_is_stuck():
    game, state = new_game()
    here = square(game, "r4c5")
    everything_else = ((1 << game.num_squares) - 1) & ~(1 << here)
    assert game.is_stuck(here, 1 << here, 0, everything_else)
    assert not game.is_stuck(here, 1 << here, 0, 0)


def random_moments(games: int, steps: int):
    """``(seed, game, state)`` before each move of ``games`` random games of at most ``steps`` moves (the first child
    alternating); the state is the live one, moved on once the caller has looked."""
    for seed in range(games):
        rng = np.random.default_rng(seed)
        game, state = new_game(first_child=seed % 2)
        for _ in range(steps):
            legal = game.legal_actions(state)
            if not legal:
                break
            yield seed, game, state
            game.apply_action(state, int(rng.choice(legal)), rng)


def test_is_stuck_matches_the_lines_left_with_an_unlimited_budget_in_random_play():
    seen_stuck = 0
    for seed, game, state in random_moments(40, 200):
        if state.phase == CHILD and state.stroke and not state.continue_due:
            p = state.stroke[-1]
            lines = game.open_lines(p, state.visited, state.drawn, state.blocked, 1 << 30)
            stuck = game.is_stuck(p, state.visited, state.drawn, state.blocked)
            assert stuck == (lines == []), (seed, p)
        if state.phase == SEEK:  # also ask about the squares the seekers might block
            p = state.stroke[-1]
            for q, bit, _lid, _cost in game.open_lines(p, state.visited, state.drawn, state.blocked, 1 << 30):
                others = game.open_lines(p, state.visited, state.drawn, state.blocked | bit, 1 << 30)
                stuck = game.is_stuck(p, state.visited, state.drawn, state.blocked | bit)
                assert stuck == (others == []), (seed, p, q)
                seen_stuck += stuck
    assert seen_stuck > 0, "the random games never reached a dead end: the test map needs a new scenario"


def test_a_seekers_sample_never_puts_the_child_where_it_would_have_been_stuck():
    # "Hidden information": a seeker's sample must fit every public fact, and the child being
    # still in play after its turn is one (a stuck child is found at once). So the sampled stroke
    # must end on a square with a legal line left against the pieces of that turn.
    samples = 0
    for seed, game, state in random_moments(30, 300):
        if state.phase == SEEK and state.seekers_placed == 0 and state.stroke:
            seeker = game.current_player(state)
            for k in range(4):
                sample = game.resample_hidden(state, seeker, np.random.default_rng(1000 * seed + k))
                end = sample.stroke[-1]
                assert game.open_lines(end, sample.visited, sample.drawn, state.blocked, 1 << 30), (
                    seed,
                    sample.stroke,
                )
                samples += 1
    assert samples > 100
