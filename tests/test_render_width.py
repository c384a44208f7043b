"""Text renders fitted to a width (``kakurega play`` and ``kakurega replay`` in a narrow terminal).

For every registered game's newest version, in states of random games and for every viewer: at 40 and 80
columns every line fits the width (the one listed exception: a board row drawn cell by cell, which stays
whole), the narrow render holds the same words as the full one (only the line breaks move), a width wider
than every line gives the full render byte for byte, and a narrow render shows nothing more of the hidden
information than the full one does (the render leak check, run at 40 columns).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from functools import partial
from types import SimpleNamespace

import numpy as np
import pytest
import toy_game
from conformance import random_states
from leak_checks import check_render_leaks

from kakurega.envs.core.aec import TurnBasedAECEnv
from kakurega.envs.core.text_layout import check_width, side_by_side, terminal_width, wrap
from kakurega.envs.registry import latest_envs, make

WIDTHS = (40, 80)
#: the only lines that may stay wider than the width: a row of a board drawn cell by cell (``r3 | [Dg|Ct]   ...``,
#: cells of brackets, letters, digits, ``#``, ``|``, ``+``); a label beside it (``<- base of ...``) must move below
BOARD_ROW = re.compile(r"r\d+ \| [\[\](){}<>#|+A-Za-z0-9 ]*")


def states_and_viewers(raw, seed: int = 3, num_games: int = 2, every: int = 4):
    """``(state, viewer)`` pairs: states of random games, each seen by every seat and by a spectator."""
    states = random_states(raw.game, seed=seed, num_games=num_games, every=every)
    return [(state, viewer) for state in states for viewer in [None, *range(raw.game.num_players)]]


@pytest.fixture(scope="module", params=latest_envs())
def game_views(request):
    raw = make(request.param, wrapped=False)
    return raw, states_and_viewers(raw)


def narrowed(render, views, width: int) -> tuple[list[str], int]:
    """``(too_wide, stacked)`` of ``render(state, viewer, width=width)`` over ``views``: the lines wider than the
    width that could be narrowed, and how many renders the width changed (each holds the full one's words)."""
    too_wide, stacked = [], 0
    for state, viewer in views:
        full = render(state, viewer)
        narrow = render(state, viewer, width=width)
        assert Counter(narrow.split()) == Counter(full.split()), f"the words changed at width {width}:\n{narrow}"
        for line in narrow.splitlines():
            if len(line) <= width:
                continue
            # a board row stays whole, as the full render draws it (its label, if any, moved off it)
            if not BOARD_ROW.fullmatch(line) or not any(row.startswith(line) for row in full.splitlines()):
                too_wide.append(line)
        stacked += narrow != full
    return too_wide, stacked


@pytest.mark.parametrize("width", WIDTHS)
def test_a_render_fits_the_width_with_the_same_words(game_views, width):
    raw, views = game_views
    too_wide, stacked = narrowed(raw.render_state, views, width)
    assert not too_wide, f"{len(too_wide)} lines wider than {width} that could be narrowed, e.g. {too_wide[:3]}"
    if not stacked:  # a small game's table may fit: there is nothing to narrow
        pytest.skip(f"every render of {raw.metadata['name']} in these states fits in {width} columns")


def test_the_width_check_catches_a_render_that_ignores_the_width():
    """The control: a render wider than the width that ignores it fails the check above; wrapped, it passes."""
    def wide(state, viewer, width=None):
        return " ".join([toy_game.render_text(state, viewer)] + ["word"] * 30)  # 150 columns and more

    def wrapped(state, viewer, width=None):
        return "\n".join(wrap(wide(state, viewer), width=width))

    views = states_and_viewers(SimpleNamespace(game=toy_game.ToyGame()))
    too_wide, stacked = narrowed(wide, views, 80)
    assert len(too_wide) == len(views) and stacked == 0
    too_wide, stacked = narrowed(wrapped, views, 80)
    assert not too_wide and stacked == len(views)


def test_without_a_width_or_with_room_to_spare_the_render_is_unchanged(game_views):
    raw, views = game_views
    for state, viewer in views[::3]:
        full = raw.render_state(state, viewer)
        assert raw.render_state(state, viewer, width=None) == full
        assert raw.render_state(state, viewer, width=max(map(len, full.splitlines()))) == full


def test_a_narrow_render_hides_what_the_full_one_hides(game_views):
    raw, _ = game_views
    narrow = SimpleNamespace(game=raw.game, render_state=partial(raw.render_state, width=40))
    check_render_leaks(narrow, random_states(raw.game, seed=21, num_games=2, every=5)[:12])


@pytest.mark.parametrize("name", latest_envs())
def test_the_env_passes_the_width_on_and_checks_it(name):
    env = make(name, wrapped=False)
    env.reset(seed=4)
    viewer = env.agent_selection
    full = env.render_text(viewer)
    assert env.render_text(viewer, width=None) == full
    narrow = env.render_text(viewer, width=40)
    assert narrow == env.render_state(env.game_state, env.possible_agents.index(viewer), width=40)
    assert Counter(narrow.split()) == Counter(full.split())
    for bad in (0, -3, 2.5, "80", True):
        with pytest.raises(ValueError, match="width must be None"):
            env.render_text(viewer, width=bad)


def test_a_render_that_takes_no_width_is_drawn_in_full():
    """A game whose render predates ``width`` (the toy game's) still renders, at its full width."""
    env = TurnBasedAECEnv(toy_game.ToyGame(), toy_game.LAYOUT, toy_game.encode, toy_game.render_text)
    env.reset(seed=0)
    assert env.render_text(None, width=5) == env.render_text(None)


# ------------------------------------------------------------------ the helpers
def test_side_by_side_joins_blocks_that_fit_and_stacks_the_rest():
    left, right = ["map", "1 ab", "2 cd"], ["panel", "1 xy"]
    wide = ["map     panel", "1 ab    1 xy", "2 cd    "]
    assert side_by_side(left, right) == wide
    assert side_by_side(left, right, width=13) == wide
    assert side_by_side(left, right, width=12) == ["map", "1 ab", "2 cd", "", "panel", "1 xy"]
    assert side_by_side(["row"], ["<- note"], width=5, gap=" ", stacked_gap=0, stacked_indent="  ") == [
        "row", "  <- note"]


def test_wrap_breaks_prose_at_spaces_and_never_inside_a_kept_phrase():
    text = "  hand [red ?] [blue ?] [head (red)] [Kaku's Curse]"
    assert wrap(text) == [text] and wrap(text, width=len(text)) == [text]
    lines = wrap(text, width=23, keep=["[red ?]", "[blue ?]", "[head (red)]", "[Kaku's Curse]"])
    assert lines == ["  hand [red ?] [blue ?]", "      [head (red)]", "      [Kaku's Curse]"]
    assert wrap("a-very-long-word and more", width=8) == ["a-very-long-word", "    and", "    more"]
    assert wrap("legend: x  y", width=9, indent="") == ["legend: x", "y"]


def test_check_width_takes_none_or_a_positive_whole_number():
    assert check_width(None) is None and check_width(1) == 1 and check_width(np.int64(3).item()) == 3
    for bad in (0, -1, 1.0, "40", False):
        with pytest.raises(ValueError):
            check_width(bad)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_terminal_width_is_the_terminals_columns_and_none_elsewhere(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    assert terminal_width(_Terminal()) == 40
    assert terminal_width(io.StringIO()) is None  # a file or a pipe: the full render, as it always was
    closed = io.StringIO()
    closed.close()  # isatty raises
    assert terminal_width(closed) is None
    assert terminal_width(object()) is None
