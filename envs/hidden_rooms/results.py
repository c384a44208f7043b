"""Hidden Rooms' results in words: escaped or caught, each round, and the match's escape count."""

from __future__ import annotations

from kakurega.envs.core.results import sentence
from kakurega.envs.hidden_rooms.rules import CAUGHT, ESCAPED, ESCAPES_TO_WIN, FAILS_TO_LOSE, MONSTER_EXITED


def _child(viewer: int | None) -> str:
    return "you" if viewer == 0 else "the child"


def _round_end(game, outcome: int, viewer: int | None) -> str:
    """``"you escaped"``, ``"the monster caught you"``... (no monster name: it is that of the round)."""
    child = _child(viewer)
    if outcome == ESCAPED:
        return f"{child} escaped"
    if outcome == CAUGHT:
        return f"the monster caught {child}"
    if outcome == MONSTER_EXITED:
        return "the monster walked its whole path"
    return f"the turn limit ({game.max_turns} turns) was reached"


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'s' if number != 1 else ''}"


def round_words(game, state, viewer: int | None = None) -> list[str]:
    """One line per finished round: ``"Round 1: you escaped (1 escape, 0 fails so far)."``."""
    lines, escapes, fails = [], 0, 0
    for number, outcome in enumerate(state.results, 1):
        escapes += outcome == ESCAPED
        fails += outcome != ESCAPED
        so_far = "" if game.episode == "round" else f" ({_count(escapes, 'escape')}, {_count(fails, 'fail')} so far)"
        lines.append(f"Round {number}: {_round_end(game, outcome, viewer)}{so_far}.")
    return lines


def result_words(game, state, viewer: int | None = None) -> list[str]:
    """The end of a finished episode: the match won or lost (or the one round), why, and every round."""
    child = _child(viewer)
    last = state.results[-1] if state.results else 0
    monster = game.monsters[state.monster].name
    how = _round_end(game, last, viewer)
    if last == CAUGHT:
        how = f"{monster} caught {child}"
    elif last == MONSTER_EXITED:
        how = f"{monster} walked its whole path"
    if game.episode == "round":
        return [sentence(f"{how}." if last == ESCAPED else f"{child} lost the round: {how}.")]
    verdict = "won the match" if state.escapes >= ESCAPES_TO_WIN else "lost the match"
    need = (f"{ESCAPES_TO_WIN} escapes win" if state.escapes >= ESCAPES_TO_WIN else f"{FAILS_TO_LOSE} fails lose")
    lines = [sentence(f"{child} {verdict}: {_count(state.escapes, 'escape')} and {_count(state.fails, 'fail')} "
                      f"({need} it)."),
             sentence(f"in the last round {how}.")]
    return lines + round_words(game, state, viewer)
