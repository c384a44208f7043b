"""KAKURENBO's results in words: who won, who was left with Kaku's Curse, the scores.

Everything told is public at the end: scores, discards, the Curse holder and
which hands are empty.
"""

from __future__ import annotations

from kakurega.envs.core.results import listing, sentence, standings, who, wins


def result_words(game, state, viewer: int | None = None) -> list[str]:
    """The end of a finished game of ``game`` (a :class:`KakurenboGame`): headline, why, the final scores."""
    scores = game.final_scores(state)
    winners = game.winners(state)
    holder = state.curse_holder
    lines = []
    if winners:
        best = scores[winners[0]]
        lines.append(wins(winners, viewer, f"{best} point{'s' if best != 1 else ''}"))
    else:
        lines.append("Nobody wins: only a player with no cards left can win, and every player still holds cards.")
    if holder >= 0:
        lost = state.scores[holder]
        void = (f": {'your' if holder == viewer else 'its'} {lost} {'points are' if lost != 1 else 'point is'} void"
                if lost else "")
        verb = "are" if holder == viewer else "is"
        lines.append(sentence(f"{who(holder, viewer)} {verb} left holding Kaku's Curse{void}."))
    still = [s for s in range(game.num_players) if state.hands[s] and s != holder]
    if game.kurayami and winners and still:
        lines.append(f"Only players with no cards left can win; {listing(still, viewer)} still "
                     f"{'hold' if len(still) > 1 or still[0] == viewer else 'holds'} cards.")
    if game.is_truncated(state) and not state.over:
        lines.append(f"The game reached its limit of {game.max_steps} actions and was scored as it stood.")
    notes = {holder: "Kaku's Curse"} if holder >= 0 else {}
    lines.append(standings(scores, viewer, "Final scores", notes))
    return lines
