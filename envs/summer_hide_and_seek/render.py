"""Text rendering: the map with square kinds and icons, and an overlay panel.

The overlay shows, from the child's point of view, its stroke (visit order;
``@`` marks the current square); from a seeker's or a spectator's point of
view, the public belief (``?``) and wrong guesses (``x``). Seeker pieces are
``p<seat>`` in both.

A seeker's or a spectator's picture shows every public fact and nothing else:
the round, the child, the phase and who acts, all VP, every announcement of
the round, every piece on the board and every past guess by seat, the belief,
the revealed strokes of finished rounds, and whether the game ended or was cut
off by the step limit. It does not show the step counter during play (without
``paced_turns`` it counts the child's hidden lines). Only the child's own
picture shows its stroke and the turn in progress.
"""

from __future__ import annotations

from kakurega.envs.core.text_layout import side_by_side, wrap
from kakurega.envs.summer_hide_and_seek.map_data import KIND_BLACK, KIND_PATH
from kakurega.envs.summer_hide_and_seek.rules import (
    BUDGET,
    CHILD,
    FOUND_STUCK,
    OVER,
    PHASE_NAMES,
    SEEK,
    START,
    SummerHideAndSeekGame,
)


def _map_cell(game, r: int, c: int) -> str:
    s = game.map.square_at(r, c)
    if s < 0:
        return f" {game.map.cells[r][c]} "
    if game.kinds[s] == KIND_PATH:
        return " . "
    letter = game.map.icons[game.icon_of[s]].letter
    return f"[{letter}]" if game.kinds[s] == KIND_BLACK else f"({letter.lower()})"


def _icons_words(game, icons) -> str:
    return "{" + ", ".join(game.map.icons[i].name for i in icons) + "}" if icons else "{}"


def _pieces_list(game, pieces) -> list[str]:
    return [f"player_{seat} {game.map.square_name(s)}" for seat, s in enumerate(pieces) if s >= 0]


def _pieces_words(game, pieces) -> str:
    return ", ".join(_pieces_list(game, pieces))


class SummerRenderer:
    """The text renderer of one Summer Hide-and-Seek game (what the env declares)."""

    def __init__(self, game: SummerHideAndSeekGame):
        self.game = game

    def render_text(self, state, viewer: int | None, width: int | None = None) -> str:
        """The table as ``viewer`` (a seat, or None for a spectator) may see it; ``width``: the columns to fit
        (the overlay panel goes below the map, prose is wrapped; None: full width, see
        :mod:`~kakurega.envs.core.text_layout`)."""
        game = self.game
        m = game.map
        n = game.num_players
        lines = []

        def add(text: str, keep=()) -> None:  # a line of prose, wrapped at the width (never inside ``keep``)
            lines.extend(wrap(text, width, keep=keep))

        if state.phase == OVER:
            add(f"{m.name}: game over after {state.steps} steps")
        elif game.is_truncated(state):
            scored = "scored by the standings" if game.score_truncation else "undecided"
            add(f"{m.name}: cut off by the step limit ({game.max_steps} steps), {scored}")
        else:
            add(
                f"{m.name}: round {state.round + 1}/{n}, child player_{state.child}, "
                f"{PHASE_NAMES[state.phase]}, to act: player_{game.current_player(state)}"
            )
        add("VP: " + " | ".join(f"player_{i} {vp}" for i, vp in enumerate(state.vp)))
        show_stroke = viewer is not None and state.phase != OVER and viewer == state.child
        order = {square: k for k, square in enumerate(state.stroke, start=1)} if show_stroke else {}
        piece_at = {}
        for seat, square in enumerate(state.pieces):
            if square >= 0:
                piece_at.setdefault(square, seat)
        header = "    " + "".join(f"{c:^3}" for c in range(m.width))
        title_right = "stroke (order, @ = here)" if show_stroke else "belief (? may be here, x guessed)"
        map_block, panel = ["map", header], [title_right, header]
        for r in range(m.height):
            left = "".join(_map_cell(game, r, c) for c in range(m.width))
            right = []
            for c in range(m.width):
                s = m.square_at(r, c)
                if s < 0:
                    right.append("   ")
                elif s in piece_at:
                    right.append(f"p{piece_at[s]} ")
                elif show_stroke and s in order:
                    right.append(" @ " if s == state.square else f"{order[s]:>2} ")
                elif not show_stroke and state.phase != OVER and state.belief >> s & 1:
                    right.append(" ? ")
                elif not show_stroke and state.guessed >> s & 1:
                    right.append(" x ")
                else:
                    right.append(" . ")
            map_block.append(f"{r:>3} {left}")
            panel.append(f"{r:>3} {''.join(right)}")
        lines += side_by_side(map_block, panel, width)
        icons = [f"{icon.letter}={icon.name} {icon.vp}VP" for icon in m.icons]
        add(f"[X] black-framed, (x) white-framed, . path; icons: {', '.join(icons)}", keep=icons)
        terrain = [f"{sym} {name}" for sym, name in m.terrain]
        add("terrain: " + ", ".join(terrain), keep=terrain)
        for t, (cost, icons) in enumerate(state.announcements, start=1):
            add(f"announcement {t}: cost {cost}, icons {_icons_words(game, icons)}")
        for t, guesses in enumerate(state.guesses, start=1):
            add(f"guesses after announcement {t}: {_pieces_words(game, guesses)}", keep=_pieces_list(game, guesses))
        if any(square >= 0 for square in state.pieces):
            add(f"pieces on the board: {_pieces_words(game, state.pieces)}", keep=_pieces_list(game, state.pieces))
        if show_stroke and state.phase == CHILD:
            due = "; the last line was a shortcut: continue next" if state.continue_due else ""
            add(
                f"this turn: spent {state.turn_cost}/{BUDGET}, reached {_icons_words(game, sorted(state.turn_icons))}{due}"
            )
        if state.phase == SEEK:
            add(f"pieces placed this seekers' turn: {state.seekers_placed}/{n - 1}")
        for child, stroke, gained, turns, how in state.history:
            path = " -> ".join(m.square_name(s) for s in stroke)
            end = "stuck" if how == FOUND_STUCK else "found by a seeker"
            add(f"round of player_{child}: {gained} VP in {turns} turn(s), {end}; stroke {path}")
        if state.phase == START and viewer is not None and viewer == state.child:
            add("choose a starting path square")
        return "\n".join(lines)


def render_text(game: SummerHideAndSeekGame, state, viewer: int | None, width: int | None = None) -> str:
    """``SummerRenderer(game).render_text(state, viewer, width)``."""
    return SummerRenderer(game).render_text(state, viewer, width)
