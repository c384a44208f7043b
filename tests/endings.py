"""Games played to their end, for the tests of each game's result words (``envs/<game>/results.py``).

Endings are seeded random games played to the end; a game's tests check its
words against the game's own facts (winners, scores, returns), and finish
states by hand where random play rarely reaches an ending. That the words
tell each viewer only what it may know is checked over every env in
``test_hidden_information.py``.
"""

from __future__ import annotations

import numpy as np

from kakurega.envs import make
from kakurega.envs.core.game import TERMINAL


def finish(game, state, rng) -> None:
    """Play ``state`` to its end with uniformly random legal moves."""
    while game.current_player(state) != TERMINAL:
        game.apply_action(state, int(rng.choice(game.legal_actions(state))), rng)


def endings(name: str, seeds, **options):
    """``(game, state)`` at the end of a random game for each seed."""
    for seed in seeds:
        raw = make(name, wrapped=False, **options)
        raw.reset(seed=seed)
        state = raw.game.clone(raw.game_state)
        finish(raw.game, state, np.random.default_rng(seed))
        yield raw.game, state


def first(name: str, condition, seeds=range(300), **options):
    """The first random ending (of ``seeds``) that ``condition(game, state)`` holds for."""
    found = next(((g, s) for g, s in endings(name, seeds, **options) if condition(g, s)), None)
    assert found is not None, f"no ending of {name} {options} in {seeds} satisfies the condition"
    return found


def best_returns(game, state) -> list[int]:
    """The seats with the best return."""
    returns = game.returns(state)
    return [seat for seat, r in enumerate(returns) if r == returns.max()]


def in_words_only(words) -> bool:
    """No returns or end labels in the words: "+1", "(win)", "terminated"."""
    text = " ".join(words)
    return bool(words) and all(words) and not any(jargon in text for jargon in ("+1", "(win)", "terminated"))
