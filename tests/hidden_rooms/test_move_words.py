"""Hidden Rooms' moves in public words: the leaky control that the generic completeness check catches, the
words of what happens before the first decision (the first round's monster appears and moves), and the generic
leak check made exact across a spill."""

from __future__ import annotations

import numpy as np
import pytest
from leak_checks import check_last_move_mark_leaks, check_move_word_leaks, move_transitions
from move_word_checks import check_control_words_that_say_only_who_moved_are_caught

from hidden_rooms.hidden_rooms_helpers import game_with, monster
from kakurega.envs import make
from kakurega.envs.hidden_rooms.moves import opening_words
from kakurega.envs.hidden_rooms.rules import MEMORY_CAPACITY, OVER, SEARCH_PILE, HiddenRoomsGame, coords, tile_name


@pytest.mark.parametrize("name,config", [("hidden_rooms_v0", {})])
def test_control_words_that_say_only_who_moved_are_caught(name, config):
    check_control_words_that_say_only_who_moved_are_caught(name, config)


@pytest.mark.parametrize("episode", ["match", "round"])
def test_the_first_rounds_monster_is_told_as_every_later_rounds_is(episode):
    """The first round's monster appears and moves before any decision: the opening words say where it appeared and
    every cell it entered, ending where the table shows it; a later round's start gets the same sentences."""
    game = HiddenRoomsGame(episode=episode)
    later_rounds = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        name, path = game.monsters[state.monster].name, game.paths[state.monster]
        words = game.opening_words(state, 0)
        assert words[0] == f"round 1: the monster {name} appears on {coords(path[0])}"
        assert len(words) == 2 and words[1].startswith(f"the monster {name} moves {coords(path[0])} -> ")
        assert words[1].split(" (chasing")[0].endswith(str(coords(state.monster_cell)))
        assert game.opening_words(state, None) == [w.replace("chasing you", "chasing the child") for w in words]
        # play on at random: a round that starts after a move is told in the same sentences
        while state.phase != OVER:
            before = game.clone(state)
            action = int(rng.choice(game.legal_actions(state)))
            game.apply_action(state, action, rng)
            if state.phase != OVER and state.rounds > before.rounds:
                said = game.public_action_string(before, action, state, 0).split("; ")
                start = said.index(next(w for w in said if w.startswith(f"round {state.rounds}: ")))
                assert said[start:] == opening_words(game, state, 0)[-2:]
                later_rounds += 1
    assert later_rounds >= 20 or episode == "round"


def test_the_opening_words_name_nothing_of_the_pile():
    """A re-deal of what the child cannot see (the pile's order) gives the same opening words; a control that names
    the pile's top tile is caught by the same comparison, so the comparison can fail."""
    game = HiddenRoomsGame()
    from kakurega.envs.hidden_rooms.rules import tile_name

    def leaky(state, viewer):
        return [*game.opening_words(state, viewer), f"the pile's top is {tile_name(state.pile[-1])}"]

    compared = caught = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        for viewer in (0, None):
            for _ in range(3):
                twin = game.resample_hidden(state, 0, rng)
                assert game.opening_words(twin, viewer) == game.opening_words(state, viewer)
                compared += 1
                caught += leaky(twin, viewer) != leaky(state, viewer)
    assert compared == 180 and caught >= 170


def test_rounds_that_end_before_any_decision_are_told_first():
    """A booklet monster that starts beside the child catches it in the first monster phase: the opening words tell
    those rounds' ends, then the round now played (a one-round episode is over before any decision)."""
    catcher = monster([(4, 3), (3, 3), (2, 3)], steps=1, sight_range=1, name="Catcher")
    game = game_with(catcher, episode="round")
    state = game.initial_state(np.random.default_rng(0))
    assert state.phase == OVER
    assert game.opening_words(state, 0) == game.round_words(state, 0) != []
    match = game_with(catcher, monster([(0, 4), (0, 3), (0, 2), (0, 1)], name="Far"), episode="match")
    for seed in range(20):
        state = match.initial_state(np.random.default_rng(seed))
        words = match.opening_words(state, 0)
        assert words[:len(state.results)] == match.round_words(state, 0)
        if state.phase != OVER:
            assert words[len(state.results)] == f"round {state.rounds}: the monster Far appears on (0, 4)"
        if state.results:
            break
    else:
        pytest.fail("no seed drew the catching monster first")


def test_the_terminal_and_the_web_tell_the_opening(monkeypatch, capsys, tmp_path):
    """``kakurega play``'s first lines, ``kakurega replay``'s deal, a web game's first events and a web replay's
    first position carry the opening words."""
    from terminal_player import typist

    from kakurega.scripts.cli import main
    from kakurega.scripts.web.session import GameSession, ReplaySession

    raw = make("hidden_rooms_v0", wrapped=False)
    raw.reset(seed=5)
    expected = raw.game.opening_words(raw.game_state, 0)
    assert expected[0].startswith("round 1: the monster ")

    typed = typist(capsys)
    monkeypatch.setattr("builtins.input", typed)
    path = tmp_path / "game.json"
    assert main(["play", "hidden_rooms", "--seed", "5", "--record", str(path)]) == 0
    out = "".join(typed.printed) + capsys.readouterr().out
    assert out.index(f"- {expected[0]}\n- {expected[1]}\n") < out.index("Your moves")

    assert main(["replay", str(path), "--view", "player_0"]) == 0
    deal = capsys.readouterr().out.split("--- move 1/")[0]
    assert f"- {expected[0]}\n- {expected[1]}\n" in deal

    session = GameSession("hidden_rooms_v0", {}, [None], seed=5)
    assert session.events[:2] == expected
    from kakurega.agents.record import load_record

    replay = ReplaySession(load_record(path), "player_0")
    assert replay.message()["move"] == "; ".join(expected)
    replay.seek(1)
    replay.seek(0)
    assert replay.message()["move"] == "; ".join(expected)


def spilling_draws(game, seed: int, num_games: int) -> list:
    """The pile draws of random games whose tile could not be placed while the memory area was full: the tile and
    the memory's went back into the pile, reshuffled."""
    return [(before, action, after) for before, action, after in move_transitions(game, seed, num_games, every=1)
            if action == SEARCH_PILE and len(before.memory) == MEMORY_CAPACITY and not after.memory]


def test_the_move_word_check_is_exact_across_a_spill():
    """The child sees the tile it draws (../shared/rules/hidden_rooms.md, "Hidden information"); after a spill the
    state no longer holds it, so re-deals that drew another tile that could not be placed left the child knowing
    the same, and the generic check compared "you draw green 4 ... go back into the pile" with "you draw red 4 ...":
    a false alarm. The re-deals now draw the true tile (``public_draw`` in ``leak_hooks.py``), and words that name the top
    of the pile after the spill (its order is hidden) are still caught."""
    raw = make("hidden_rooms_v0", wrapped=False)
    game = raw.game
    spills = spilling_draws(game, seed=31, num_games=40)
    assert len(spills) >= 5
    check_move_word_leaks(game, spills)
    check_last_move_mark_leaks(game, raw.picture, spills[:3])

    def new_top_told(before, action, after, viewer):  # the control: the hidden order leaks
        return game.public_action_string(before, action, after, viewer) + f"; {tile_name(after.pile[-1])} is on top"

    with pytest.raises(AssertionError, match="differ between moves seat 0 cannot tell apart"):
        check_move_word_leaks(game, spills, words=new_top_told)
