"""Hidden Rooms' result in words (envs/hidden_rooms/results.py): each way a round ends, the match, every round."""

from __future__ import annotations

from endings import endings

from kakurega.envs import make


def hidden_rooms_ending(results, episode="match"):
    """A Hidden Rooms episode finished by hand with these round outcomes (random play never escapes)."""
    from kakurega.envs.hidden_rooms.rules import ESCAPED, OVER

    raw = make("hidden_rooms_v0", wrapped=False, episode=episode)
    raw.reset(seed=3)
    state = raw.game.clone(raw.game_state)
    state.results = list(results)
    state.escapes = sum(r == ESCAPED for r in results)
    state.fails = len(results) - state.escapes
    state.phase = OVER
    return raw.game, state


def test_hidden_rooms_each_way_a_round_ends():
    from kakurega.envs.hidden_rooms.rules import CAUGHT, ESCAPED, MONSTER_EXITED, TURN_LIMIT

    game, state = hidden_rooms_ending([ESCAPED], episode="round")
    assert game.result_words(state, 0) == ["You escaped."]
    assert game.result_words(state, None) == ["The child escaped."]
    monster = game.monsters[state.monster].name
    game, state = hidden_rooms_ending([CAUGHT], episode="round")
    assert game.result_words(state, 0) == [f"You lost the round: {monster} caught you."]
    assert game.result_words(state, None) == [f"The child lost the round: {monster} caught the child."]
    game, state = hidden_rooms_ending([MONSTER_EXITED], episode="round")
    assert game.result_words(state, 0) == [f"You lost the round: {monster} walked its whole path."]
    game, state = hidden_rooms_ending([TURN_LIMIT], episode="round")
    assert game.result_words(state, 0) == ["You lost the round: the turn limit (60 turns) was reached."]


def test_hidden_rooms_a_match_counts_escapes_and_fails_round_by_round():
    from kakurega.envs.hidden_rooms.rules import CAUGHT, ESCAPED, MONSTER_EXITED

    game, state = hidden_rooms_ending([ESCAPED, CAUGHT, ESCAPED])
    assert game.result_words(state, 0) == [
        "You won the match: 2 escapes and 1 fail (2 escapes win it).",
        "In the last round you escaped.",
        "Round 1: you escaped (1 escape, 0 fails so far).",
        "Round 2: the monster caught you (1 escape, 1 fail so far).",
        "Round 3: you escaped (2 escapes, 1 fail so far).",
    ]
    game, state = hidden_rooms_ending([CAUGHT, MONSTER_EXITED, ESCAPED, CAUGHT])
    words = game.result_words(state, 0)
    assert words[0] == "You lost the match: 1 escape and 3 fails (3 fails lose it)."
    assert words[1] == f"In the last round {game.monsters[state.monster].name} caught you."
    assert game.round_words(state, 0) == words[2:] and len(words[2:]) == 4


def test_hidden_rooms_a_real_ending_agrees_with_its_returns():
    for game, state in endings("hidden_rooms_v0", range(3)):
        won = game.returns(state)[0] > 0
        assert game.result_words(state, 0)[0].startswith("You won the match" if won else "You lost the match")
        assert len(game.round_words(state, 0)) == len(state.results) == state.escapes + state.fails


def test_the_round_list_names_a_walked_path_as_the_result_words_do():
    """The render's and the picture's list of rounds said "monster reached its exit" where the result says "walked
    its whole path": "exit" is the child's way out, (0, 0)."""
    from kakurega.envs.hidden_rooms.rules import MONSTER_EXITED, OUTCOME_NAMES

    assert OUTCOME_NAMES[MONSTER_EXITED] == "monster walked its whole path"
    assert not any("exit" in name for name in OUTCOME_NAMES.values())


def test_every_mark_of_the_room_is_in_the_legend():
    """The room marks the child (@), the monster (M), the exit (E) and a caught child (!, child and monster on one
    cell); the legend named all but the last."""
    from hidden_rooms.hidden_rooms_helpers import game_with, monster, table
    from kakurega.envs.hidden_rooms.render import LEGEND, HiddenRoomsRenderer

    game = game_with(monster([(4, 3), (4, 4), (3, 4)] * 4))
    caught = table(game, child=(4, 4), monster_cell=(4, 4), progress=1)
    room = HiddenRoomsRenderer(game).render_text(caught, 0).split("legend:")[0]
    assert " !S0 " in room
    for mark in "@M!E":
        assert f"{mark} " in LEGEND.split("path grid")[0], mark
