"""Text pictures of a KAKURENBO table, as one player sees it or as a spectator.

A player's view shows the faces that player knows (its row of the state's
``knowledge``, counting included); every other card shows only its back
colour. A spectator (``viewer=None``) sees public information only: the backs,
and the faces of open hands. Every hand is drawn known faces first, then the
backs grouped by colour (:func:`hand_pictures`), so the order on screen says
nothing about the faces behind the backs.
"""

from __future__ import annotations

from kakurega.envs.core.text_layout import wrap
from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.moves import describe_event
from kakurega.envs.kakurenbo.rules import (
    COLOURS,
    KIND_NAMES,
    PARTS,
    STAGE_NAMES,
    KakurenboGame,
    card_name,
)

_BACK = {0: "[red ?]", 1: "[blue ?]"}


def visible_hand(state, seat: int, known: list[int] | None) -> tuple[list[int], list[int], bool]:
    """What a viewer sees of ``seat``'s hand: ``(faces, backs, curse)``.

    ``known`` is the viewer's row of card places (``None``: a spectator, who
    knows the faces of open hands only). ``faces`` are the body-part cards
    the viewer knows there, sorted by card id; ``backs`` the colour (0 red,
    1 blue) of every other card, red first; ``curse`` whether Kaku's Curse is
    there (public). The hand itself is kept in card-id order, so drawing it
    as it is would tell the order of the faces behind the backs.
    """
    hand = state.hands[seat]
    if known is None:
        public = bool(state.open_hand[seat])
        faces = [c for c in hand if c != CURSE and public]
    else:
        faces = [c for c in hand if c != CURSE and known[c] == seat]
    counts = state.colour_counts
    backs = []
    for colour in (0, 1):
        backs += [colour] * (counts[2 * seat + colour] - sum(1 for c in faces if c & 1 == colour))
    return sorted(faces), backs, CURSE in hand


def hand_pictures(state, seat: int, known: list[int] | None) -> list[str]:
    """The cards of ``seat``'s hand in text, in an order that tells nothing the viewer does not know.

    Faces the viewer knows come first, by card id; then the unknown backs
    grouped by colour (red, then blue), then the Curse (:func:`visible_hand`).
    """
    faces, backs, curse = visible_hand(state, seat, known)
    shown = [f"[{card_name(c)}]" for c in faces] + [_BACK[colour] for colour in backs]
    if curse:
        shown.append("[Kaku's Curse]")
    return shown


def status_text(game: KakurenboGame, state) -> str:
    """Where the game stands (public facts only), for the text and the picture alike."""
    if state.over:
        return "game over"
    if state.steps >= game.max_steps:
        return f"truncated at the step limit ({game.max_steps})"
    status = f"phase {state.phase}: {game.seat_name(state.actor)} to {STAGE_NAMES[state.stage]}"
    if state.active != state.actor:
        status += f" (turn of {game.seat_name(state.active)})"
    return status


class KakurenboRenderer:
    """The text renderer of one KAKURENBO game (what the env declares)."""

    def __init__(self, game: KakurenboGame):
        self.game = game

    def render_text(self, state, viewer: int | None, width: int | None = None) -> str:
        """The table in text as seat ``viewer`` sees it (``None``: spectator, public information only).

        ``width``: the columns to fit (every line is prose, wrapped between cards, never inside one; None:
        full width, see :mod:`~kakurega.envs.core.text_layout`).
        """
        game = self.game
        n = game.num_players
        lines = []

        def add(text: str, keep=()) -> None:  # a line of prose, wrapped at the width (never inside ``keep``)
            lines.extend(wrap(text, width, keep=keep))
        who = "spectator" if viewer is None else game.seat_name(viewer)
        add(f"KAKURENBO ({game.variant}), {n} players, view of {who}")
        add(f"{status_text(game, state)}; step {state.steps}/{game.max_steps}")
        if state.pile:
            top = "Kaku's Curse" if state.pile[-1] == CURSE else COLOURS[state.pile[-1] & 1]
            add(f"pile: {len(state.pile)} cards, top {top}")
        else:
            add("pile: empty")
        if state.dice[0]:
            add(f"last dice: red {state.dice[0]}, blue {state.dice[1]} ({state.rolls} roll(s))")
        known = game.known_row(state, viewer) if viewer is not None else None
        for seat in range(n):
            shown = hand_pictures(state, seat, known)
            flags = []
            if state.open_hand[seat]:
                flags.append("open hand")
            if seat == state.actor:
                flags.append("to act")
            if seat == viewer:
                flags.append("you")
            flag_text = f" ({', '.join(flags)})" if flags else ""
            pairs = [PARTS[p] for p, by in enumerate(state.discarded_by) if by == seat]
            add(
                f"  {game.seat_name(seat)}{flag_text}: {state.scores[seat]} pts, "
                f"discarded [{', '.join(pairs)}]; hand {' '.join(shown) if shown else '(empty)'}",
                keep=shown,
            )
        kind, actor, _other, _colour = state.last_move
        if kind >= 0:
            add(f"last action: {game.seat_name(actor)} ({KIND_NAMES[kind]})")
        for event in state.events:
            add(f"  - {describe_event(game, event)}")
        if state.over or state.steps >= game.max_steps:
            final = game.final_scores(state)
            winners = game.winners(state)
            add("final scores: " + ", ".join(f"{game.seat_name(s)} {final[s]}" for s in range(n)))
            add("winners: " + (", ".join(game.seat_name(s) for s in winners) if winners else "nobody"))
        return "\n".join(lines)


def render_text(game: KakurenboGame, state, viewer: int | None, width: int | None = None) -> str:
    """``KakurenboRenderer(game).render_text(state, viewer, width)``."""
    return KakurenboRenderer(game).render_text(state, viewer, width)
