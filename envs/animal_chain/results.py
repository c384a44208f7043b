"""Animal Chain's results in words: whose chain reached the other base row, or why the game is drawn."""

from __future__ import annotations

from kakurega.envs.core.results import sentence, who, whose


def result_words(game, state, viewer: int | None = None) -> list[str]:
    """The end of a finished game of ``game`` (an :class:`AnimalChainGame`): the winner and why, or the draw."""
    turns = f"after {state.turn} turn{'s' if state.turn != 1 else ''}"
    winner = state.winner
    if 0 <= winner <= 1:
        verb = "win" if winner == viewer else "wins"
        return [sentence(f"{who(winner, viewer)} {verb}: {whose(winner, viewer)} chain reached "
                         f"{whose(1 - winner, viewer)} base row ({turns}).")]
    if game.is_truncated(state):
        return [f"A draw: the game reached its limit of {game.max_turns} turns."]
    return [f"A draw: both players passed without drawing, one after the other ({turns})."]
