"""Animal Chain: the plays that win at once, the moves after which the opponent surely holds a card that does,
and the moves they dominate.

One proof with two readers: the tactics patterns ``win_now`` and
``stop_win`` (:mod:`kakurega.agents.tactics.patterns`) apply it to a full
state through the rules engine, and the move features' ``dominated`` mask
(:class:`~kakurega.agents.heuristics.animal_chain.AnimalChainMoveFeatures`,
which every pruned bot obeys) to the mover's observation alone.

- **Win at once:** a play onto the opponent's base row ends the game, won.
- **A sure win handed over (pigeonhole):** after a move that passes the turn
  to the opponent, let W be the card types it could then play onto our base
  row. Its hand holds ``held`` cards, all among the cards the mover has not
  seen before the move (a move only shows the mover more). When fewer of
  those unseen cards than ``held`` lie outside W, every hand it can hold has
  a card of W: it can win at once.

What each reader counts as seen: the pattern, every face-up card that was
played (covered ones too: plays are public) and the mover's hand; the
observation shows only the top card of each position, so the features count
a covered card as unseen and prove the handed win less often (never wrongly:
more unseen cards outside W only weaken the proof). The observation does not
show which cards a double rests on either: a double of the mover that its play
may cancel is counted as kept (see
:func:`~kakurega.agents.heuristics.animal_chain_plays.measure`' ``wins``),
which again only leaves types out of W.
"""

from __future__ import annotations


def unseen_outside(winning: int, unseen) -> int:
    """The cards of ``unseen`` (counts per card type) whose type is not in ``winning`` (a type bitmask)."""
    return sum(n for t, n in enumerate(unseen) if not winning >> t & 1)


def surely_holds(winning: int, unseen, held: int) -> bool:
    """Whether a hand of ``held`` cards drawn from ``unseen`` surely holds a type of ``winning`` (pigeonhole)."""
    return unseen_outside(winning, unseen) < held


def dominated(wins, handed, legal) -> list[int]:
    """The ``legal`` actions another legal action is at least as good as, against an opponent that takes a
    win it has at once: every move but the ``wins`` when there are some (a win pays the most), otherwise
    the ``handed`` moves (after which it surely can win at once: a loss against it, the least a seat gets)
    as long as some move is not one. Never every legal action."""
    legal = [int(a) for a in legal]
    if wins:
        wins = set(wins)
        return [a for a in legal if a not in wins]
    handed = set(handed)
    bad = [a for a in legal if a in handed]
    return bad if len(bad) < len(legal) else []
