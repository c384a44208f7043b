"""Terminal play a person can type: stable keys, typed moves, forced moves, winning marks, compact menus."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.human import HumanAgent, show_view
from kakurega.agents.move_menu import choose, menu_lines
from kakurega.envs.registry import make

ANIMAL = {3: "play Fx|Pg onto r0c1", 4: "play Fx|Pg onto r1c1", 7: "play Dg|Ct onto r1c1",
          9: "pass and draw from the deck"}


@pytest.mark.parametrize("answer, action", [
    ("9", 9), ("pass", 9), ("PASS and draw", 9), ("Fx|Pg r0c1", 3), ("fx|pg r1c1", 4), ("dg r1c1", 7),
    ("  r0c1 ", 3), ("play Dg|Ct onto r1c1", 7),
])
def test_a_key_or_the_words_of_one_move_pick_it(answer, action):
    assert choose(answer, ANIMAL) == action


@pytest.mark.parametrize("answer, words", [
    ("", "Type a move's key"),
    ("5", "'5' is not the key of a legal move; the keys are 3, 4, 7, 9"),
    ("²", "'²' is not a legal move"),
    ("1" * 50, "is not the key of a legal move"),
    ("r1c1", "'r1c1' fits 2 moves: [4] play Fx|Pg onto r1c1, [7] play Dg|Ct onto r1c1; type more"),
    ("take r3c3", "'take r3c3' is not a legal move; type a key (3, 4, 7, 9)"),
    ("\x00\x1b[2J", "is not a legal move"),
])
def test_bad_or_ambiguous_answers_are_told_in_words(answer, words):
    said = choose(answer, ANIMAL)
    assert isinstance(said, str) and words in said, said


def test_keys_are_the_action_ids_so_a_move_keeps_its_key_between_decisions():
    from kakurega.envs.hidden_rooms.rules import STOP_MOVING

    env = make("hidden_rooms_v0", wrapped=False)
    env.reset(seed=3)
    keys = []
    for _ in range(30):
        names = {a: env.action_to_string(a) for a in env.legal_actions()}
        keys += [line.split("]")[0].strip(" [") for line in menu_lines(names) if "stop moving" in line]
        env.step(env.legal_actions()[-1] if len(keys) % 2 else env.legal_actions()[0])
        if env.terminations[env.agent_selection]:
            break
    assert len(keys) >= 2 and set(keys) == {str(STOP_MOVING)}


def test_a_long_square_menu_is_a_grid_that_fits_a_terminal():
    env = make("summer_hide_and_seek_v2", wrapped=False)
    env.reset(seed=0)
    names = {a: env.action_to_string(a) for a in env.legal_actions()}
    assert len(names) > 30  # the child's start squares
    lines = menu_lines(names)
    assert len(lines) <= 5 and max(map(len, lines)) <= 80, "\n".join(lines)
    shown = {f"r{row}c{col}" for line in lines[1:] for row, cols in re.findall(r"r(\d+): ((?:c\d+ ?)+)", line)
             for col in re.findall(r"c(\d+)", cols)}
    game = env.unwrapped.game
    squares = {game.map.square_name(game.describe_action(action)[1]): action for action in names}
    assert shown == set(squares)  # every offered square shown, no other
    for square, action in squares.items():  # and typing it picks that move
        assert choose(square, names) == action


@pytest.mark.parametrize("width", [40, 80])
def test_a_menu_fits_the_terminal_and_breaks_a_grid_between_squares(width):
    """A row of a 32-column map (``r0: c0 c1 ... c31``, 100 characters) or two rows side by side at 40 columns
    went out past the terminal's edge, which broke it inside a square (``r3: c`` / ``1 c3``)."""
    names = {100 * row + col: f"place piece on r{row}c{col}" for row in range(3) for col in range(32) if col % 7}
    names[9999] = "give Kaku's Curse with right arm (blue) to player_2 and say so in a long line"
    lines = menu_lines(names, width=width)
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    grid = lines[lines.index(next(line for line in lines if line.endswith("):"))) + 1:]  # below its header
    shown, row = set(), None
    for line in grid:  # a row's squares go on under it; every token whole
        for token in line.split():
            if token.endswith(":"):
                row = token[1:-1]
            else:
                assert re.fullmatch(r"c\d+", token), (token, line)
                shown.add(f"r{row}c{token[1:]}")
    assert shown == {name.split()[-1] for action, name in names.items() if action != 9999}
    assert menu_lines(names) == menu_lines(names, width=None)  # no width: the full lines, as before


@pytest.mark.parametrize("answer", ["[", "()", ",", ";", " [ ] "])
def test_punctuation_alone_fits_no_move(answer):
    """Punctuation is dropped from an answer's words: nothing left, which every move 'fitted'."""
    said = choose(answer, ANIMAL)
    assert isinstance(said, str) and said.startswith("Type a move's key") and "fits" not in said


def test_a_number_picks_no_square_of_a_grid_and_the_hints_name_squares():
    """The grid shows squares without keys: ``10`` (row 1, column 0?) played the square whose action id was 10;
    the hints spoke of keys in brackets that were never shown."""
    from kakurega.agents.move_menu import grid_moves

    env = make("summer_hide_and_seek_v2", wrapped=False)
    env.reset(seed=0)
    names = {a: env.action_to_string(a) for a in env.legal_actions()}
    in_grid = grid_moves(names)
    assert in_grid == frozenset(names)  # the child's start squares: all in the grid
    number = str(min(in_grid))
    assert choose(number, names) == int(number)  # the control: without the grid known, a hidden key plays
    said = choose(number, names, in_grid)
    assert isinstance(said, str) and f"'{number}' is no move here: type a move's words, or a square such as r" in said
    for answer in ("", "zz"):
        said = choose(answer, names, in_grid)
        assert "number in brackets" not in said and "a square such as r" in said and "key (" not in said
    square = env.unwrapped.game.map.square_name(env.unwrapped.game.describe_action(min(in_grid))[1])
    assert choose(square, names, in_grid) == min(in_grid)


def test_an_ambiguous_answer_offers_only_keys_that_are_keys():
    """'place' at a Summer seeker's grid listed '[113] place piece on r0c0, ...; type more of the move or its key',
    and typing 113 then said '113 is no move here': a square of the grid has no key, so none is offered."""
    from kakurega.agents.move_menu import grid_moves

    env = make("summer_hide_and_seek_v2", wrapped=False)
    env.reset(seed=0)
    names = {a: env.action_to_string(a) for a in env.legal_actions()}
    in_grid = grid_moves(names)
    takes = {1236 + k: f"pass and take the face-down card at r{2 + k // 7}c{k % 7}" for k in range(14)}
    mixed = {717: "play Br|Ct onto r2c0", 902: "play Pg|Ct onto r2c0", **takes}  # Animal Chain, late: keys and a grid
    for menu, answer in ((names, "start"), (mixed, "r2c0"), (mixed, "take r2")):
        grid = grid_moves(menu)
        said = choose(answer, menu, grid)
        assert isinstance(said, str) and " fits " in said, said
        offered = re.findall(r"\[(\d+)\]", said)
        for key in offered:  # every key the hint offers plays its move when typed
            assert choose(key, menu, grid) == int(key), (said, key)
        assert ("its key" in said) == bool(offered), said
    assert "e.g. its square such as r" in choose("start", names, in_grid)
    assert "[717] play Br|Ct onto r2c0, [902] play Pg|Ct onto r2c0, pass and take the face-down card at r2c0;" in (
        choose("r2c0", mixed, grid_moves(mixed)))


def test_moves_shows_the_table_and_the_moves_again():
    env = make("hidden_rooms_v0", wrapped=False)
    env.reset(seed=3)
    answers = iter(["moves", "search the pile"])
    said = []
    human = HumanAgent(_context(env, "hidden_rooms_v0"), input_fn=lambda prompt: next(answers), output_fn=said.append)
    show_view(human, env, env.agent_selection)
    observation = env.observe(env.agent_selection)
    assert env.action_to_string(human.act(observation)) == "search the pile"
    assert sum(line.startswith("Your moves (") for line in said) == 2


def _context(env, name):
    return AgentContext.from_env(env, name, {})


def test_a_single_legal_move_is_played_without_asking():
    env = make("kakurenbo_v1", wrapped=False)
    env.reset(seed=0)
    said = []
    human = HumanAgent(_context(env, "kakurenbo_v1"), input_fn=lambda prompt: pytest.fail("asked"),
                       output_fn=said.append)
    human.see("table", {5: "draw the top card of the pile"})
    mask = np.zeros(env.unwrapped.game.num_actions, np.int8)
    mask[5] = 1
    assert human.act({"observation": None, "action_mask": mask}) == 5
    assert said == ["Your only move: draw the top card of the pile (played for you)."]


def test_a_typed_square_plays_and_bad_input_reasks_without_a_traceback():
    env = make("summer_hide_and_seek_v2", wrapped=False)
    env.reset(seed=0)
    game = env.unwrapped.game
    target = env.legal_actions()[7]
    square = game.map.square_name(game.describe_action(target)[1])
    answers = iter(["r99c99", "", "start", square])
    said = []
    human = HumanAgent(_context(env, "summer_hide_and_seek_v2"), input_fn=lambda prompt: next(answers),
                       output_fn=said.append)
    show_view(human, env, env.agent_selection)
    assert human.act(env.observe(env.agent_selection)) == target
    text = "\n".join(said)
    assert "'r99c99' is not a legal move" in text and "Type a move's words, or a square such as r" in text
    assert f"'start' fits {len(env.legal_actions())} moves" in text


def _animal_chain_at_a_win():
    """An Animal Chain game played by its heuristic until a move onto the opponent's base row is legal."""
    from kakurega.agents.specs import make_agent

    env = make("animal_chain_v1", wrapped=False)
    game = env.unwrapped.game
    for seed in range(20):
        env.reset(seed=seed)
        bots = {a: make_agent("heuristic", _context(env, "animal_chain_v1"), seed=1) for a in env.possible_agents}
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            notes = {a: game.winning_note(env.game_state, a) for a in env.legal_actions()}
            if any(notes.values()):
                return env, notes
            from kakurega.agents.base import choose_action

            env.step(choose_action(bots[env.agent_selection], env, env.agent_selection))
    pytest.fail("no winning move met in 20 games")


def test_moves_that_win_at_once_are_marked_and_do_win():
    env, notes = _animal_chain_at_a_win()
    game, me = env.unwrapped.game, env.game_state.to_move
    for action, note in notes.items():
        after = game.clone(env.game_state)
        game.apply_action(after, action, np.random.default_rng(0))
        wins = game.is_terminal(after) and after.winner == me
        assert (note == "wins at once") == wins, env.action_to_string(action)
    human = HumanAgent(_context(env, "animal_chain_v1"), input_fn=lambda prompt: "q", output_fn=lambda s: None)
    show_view(human, env, env.agent_selection)
    marked = [line for line in menu_lines(human._action_names, human._notes) if "<- wins at once" in line]
    assert len(marked) == sum(map(bool, notes.values()))


def test_the_winning_marks_read_only_the_movers_view():
    env, _ = _animal_chain_at_a_win()
    game, me = env.unwrapped.game, env.game_state.to_move
    rng = np.random.default_rng(0)
    marks = [game.winning_note(env.game_state, a) for a in env.legal_actions()]
    for _ in range(10):
        other = game.resample_hidden(env.game_state, me, rng)
        assert [game.winning_note(other, a) for a in env.legal_actions()] == marks


def test_a_step_onto_the_exit_is_marked():
    from kakurega.envs.hidden_rooms.rules import EXIT_CELL, MOVE, NEIGHBOURS, STEP

    env = make("hidden_rooms_v0", wrapped=False)
    env.reset(seed=0)
    state, game = env.game_state, env.unwrapped.game
    state.phase, state.child = MOVE, 1  # (0, 1): west of it lies the exit
    west = next(STEP + d for d in range(4) if NEIGHBOURS[1][d] == EXIT_CELL)
    assert game.winning_note(state, west) == "escapes at once"
    assert [game.winning_note(state, STEP + d) for d in range(4) if STEP + d != west] == ["", "", ""]


def test_animal_chain_names_its_codes():
    legend = make("animal_chain_v1", wrapped=False).unwrapped.game.code_legend()
    assert "Dg dog" in legend and "Fx fox" in legend and "Dg|Ct shows a dog on its left and a cat on its right" in legend
