"""Every move in public words: each viewer learns what it may know of a move, and all of it.

The rules' ``public_action_string(before, action, after, viewer)`` is what the
terminal, replays, GIF captions and the web app's move log show. Leak check
(like the renders'): moves a viewer cannot tell apart get the same words,
beside a leaky control that the check catches. Completeness: moves told alike
leave every viewer knowing the same, so no public fact (the colour given, the
target, the dice, an announcement, the winner) is left out.

These checks run on every registered env; the leaky controls that prove they
can fail, and each game's own public facts, are in the game's
``test_move_words.py`` (machinery in ``move_word_checks.py``).
"""

from __future__ import annotations

import pytest
from conformance import registry_cases
from leak_checks import check_last_move_mark_leaks, check_move_word_leaks, check_move_words_complete
from move_word_checks import moves_of

from kakurega.envs import make

CASES = registry_cases()


@pytest.mark.parametrize("name,config", CASES)
def test_move_words_tell_each_viewer_only_what_it_knows(name, config):
    raw = make(name, wrapped=False, **config)
    check_move_word_leaks(raw.game, moves_of(raw, seed=31, num_games=2, every=2, count=12))


@pytest.mark.parametrize("name,config", CASES)
def test_move_words_tell_every_public_fact(name, config):
    raw = make(name, wrapped=False, **config)
    check_move_words_complete(raw.game, moves_of(raw, seed=32, num_games=2, every=3, count=8), raw.render_state)


@pytest.mark.parametrize("name,config", CASES)
def test_the_last_move_is_outlined_only_as_far_as_the_viewer_may_know_it(name, config):
    raw = make(name, wrapped=False, **config)
    check_last_move_mark_leaks(raw.game, raw.picture, moves_of(raw, seed=33, num_games=2, every=3, count=6))


@pytest.mark.slow
@pytest.mark.parametrize("name,config", CASES)
def test_move_words_tell_each_viewer_only_what_it_knows_long(name, config):
    raw = make(name, wrapped=False, **config)
    moves = moves_of(raw, seed=41, num_games=6, every=1, count=80)
    check_move_word_leaks(raw.game, moves)
    check_move_words_complete(raw.game, moves[::4], raw.render_state)


@pytest.mark.parametrize("name,config", CASES)
def test_opening_words_tell_each_viewer_only_what_it_knows(name, config):
    """What the rules played before the first decision (``Game.opening_words``) is told alike for every re-deal of
    what a seat cannot see, to that seat and to the spectator (the Hidden Rooms control names the pile's top)."""
    import numpy as np

    raw = make(name, wrapped=False, **config)
    game = raw.game
    for seed in range(6):
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        for seat in range(game.num_players):
            for _ in range(3):
                twin = game.resample_hidden(state, seat, rng)
                for viewer in (seat, None):
                    assert game.opening_words(twin, viewer) == game.opening_words(state, viewer), (seed, seat)


def test_each_games_leak_hooks_are_found_and_named_as_the_checks_call_them():
    """What only one game's rules make true of its moves (a public piece the state forgets, a draw seen before a
    reshuffle) is in that game's ``tests/<game>/leak_hooks.py``, found by the game's name (``game_hooks``): every
    such file belongs to a registered game, and defines only hooks the checks call (a misspelt one is refused)."""
    import types
    from pathlib import Path

    from leak_checks import check_hooks, game_hooks

    from kakurega.envs import ENV_SPECS

    found = {Path(hooks.__file__).resolve() for name in ENV_SPECS
             if (hooks := game_hooks(make(name, wrapped=False).game)) is not None}
    files = set(Path(__file__).resolve().parent.glob("*/leak_hooks.py"))
    assert files, "no game has leak hooks: the check below would be vacuous"
    assert found == files, f"hooks files no registered game finds: {sorted(map(str, files - found))}"

    misspelt = types.ModuleType("some_game.leak_hooks")  # the control
    exec("def public_actions(game, action):\n    return action\n", misspelt.__dict__)
    with pytest.raises(AssertionError, match=r"defines \['public_actions'\], which are not hooks"):
        check_hooks(misspelt)
