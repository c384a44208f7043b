"""Summer Hide-and-Seek's results in words: the VP, and where and by whom each child was found.

A round's stroke is told once the round is over (the rules reveal it when the
child is found or stuck); a round cut off by the step limit tells nothing of
its child's stroke or square.
"""

from __future__ import annotations

from kakurega.envs.core.results import listing, sentence, standings, who, wins
from kakurega.envs.summer_hide_and_seek.rules import FOUND_STUCK


def round_words(game, state, viewer: int | None = None) -> list[str]:
    """One line per finished round: the child, where it was found and by whom, the VP it gained."""
    square_name = game.map.square_name
    lines = []
    for number, (child, stroke, gained, turns, how) in enumerate(state.history, 1):
        finders = state.found_by[number - 1] if number <= len(state.found_by) else ()
        where = square_name(stroke[-1])
        if how == FOUND_STUCK:
            found = f"stuck on {where} (stuck counts as found)"
        elif finders:
            found = f"found on {where} by {listing(finders, viewer)}"
        else:
            found = f"found on {where}"
        path = " - ".join(square_name(s) for s in stroke)
        lines.append(f"Round {number}: {who(child, viewer)} hid as the child for {turns} turn{'s' if turns != 1 else ''}"
                     f" and gained {gained} VP; {found}. The stroke: {path}.")
    return lines


def result_words(game, state, viewer: int | None = None) -> list[str]:
    """The end of a finished game: who has the most VP (a tie said as a tie), every round, the VP."""
    lines = []
    if game.is_truncated(state):
        rounds = len(state.history)
        if game.score_truncation:
            how = ": it is scored from the VP at that moment."
        elif game.reward == "vp":  # VP are paid as they are scored, a cut-off game too: only no winner is named
            how = ": nobody wins (this version names no winner for a cut-off game; the VP were paid as scored)."
        else:
            how = ": nobody wins (this version pays nothing for a cut-off game)."
        lines.append(f"The game reached its limit of {game.max_steps} actions after {rounds} of {game.num_players} "
                     f"round{'s' if game.num_players != 1 else ''}" + how)
    if not game.is_truncated(state) or game.score_truncation:
        winners = game.winners(state)
        lines.insert(0, wins(winners, viewer, f"{state.vp[winners[0]]} VP"))
    lines += round_words(game, state, viewer)
    lines.append(standings(state.vp, viewer, "VP"))
    return [sentence(line) for line in lines]
