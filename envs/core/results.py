"""Words for results: how a game's result is told to a player ("You win with 7 points.").

Each game tells its own ending (``Game.result_words``, in the game's
``results`` module) with these helpers, so every game names players alike:
the viewer is "you", the others by their agent names. A tie is said as a
tie. :func:`by_returns` is the default for a game that tells nothing of its
own: the best return wins.

>>> who(2, viewer=2), who(1, viewer=2), who(1, viewer=None)
('you', 'player_1', 'player_1')
>>> sentence(f"{listing([0, 2], viewer=2)} share the win.")
'player_0 and you share the win.'
>>> by_returns([1.0, -1.0], viewer=1)
['player_0 wins.']
"""

from __future__ import annotations


def who(seat: int, viewer: int | None) -> str:
    """``"you"`` for the viewer's seat, else the agent name ``"player_<seat>"``."""
    return "you" if seat == viewer else f"player_{seat}"


def whose(seat: int, viewer: int | None) -> str:
    """``"your"`` or ``"player_1's"``."""
    return "your" if seat == viewer else f"player_{seat}'s"


def listing(seats, viewer: int | None) -> str:
    """``"player_0, player_2 and you"``."""
    names = [who(seat, viewer) for seat in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised ("you win." -> "You win."), but an agent name as it is."""
    return text if text.startswith("player_") else text[:1].upper() + text[1:]


def wins(seats, viewer: int | None, how: str = "") -> str:
    """The headline of a win: ``"You win with 7 points."``; several seats: ``"... share the win with 5 points each."``."""
    seats = list(seats)
    if len(seats) == 1:
        verb = "win" if seats[0] == viewer else "wins"
        return sentence(f"{who(seats[0], viewer)} {verb}{' with ' + how if how else ''}.")
    each = f" with {how} each" if how else ""
    return sentence(f"a tie: {listing(seats, viewer)} share the win{each}.")


def standings(values, viewer: int | None, unit: str, notes: dict | None = None) -> str:
    """``"Final scores: player_0 5, you 7 (...)."``-like line: each seat's value, with an optional note per seat."""
    notes = notes or {}
    parts = [f"{who(seat, viewer)} {value:g}{' (' + notes[seat] + ')' if seat in notes else ''}"
             for seat, value in enumerate(values)]
    return f"{unit}: " + ", ".join(parts) + "."


def by_returns(returns, viewer: int | None) -> list[str]:
    """A game's result told from its returns alone: the best return wins; all equal is a draw."""
    returns = [float(r) for r in returns]
    best = max(returns)
    if len(returns) > 1 and min(returns) == best:
        return ["A draw."]
    return [wins([seat for seat, r in enumerate(returns) if r == best], viewer)]
