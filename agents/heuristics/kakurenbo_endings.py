"""KAKURENBO: the moves that surely end the game, and how, read from the mover's observation alone.

The observation's ``cards`` piece is the mover's knowledge row with counting
(:meth:`KakurenboGame.known_row`), the very facts
:func:`kakurega.envs.kakurenbo.winning.winning_note` decides from; every other
fact used here (hand counts, the Curse's holder, scores) is public. A move is
marked only when its outcome is the same in every state the mover cannot tell
apart, so the marks hold no more than the observation does.

- **Kakurenbo, a Curse give** (card X to row R): the game can end only when X's
  partner is in R's hand; a give is decided when the mover has located it
  there. R then discards the pair; the game ends when R is left with the
  Curse alone (R held the partner only or, for a leg pair, the hand R gets
  in the exchange is empty), scored with R's points void.
- **Kurayami, a take after the dice** (colour C from row V): the game ends
  when V is left with the Curse alone (V held it and one card) or when the
  taker, holding the Curse, pairs away its last card. Whether the taken card
  pairs one of the taker's cards is settled when the taker holds two or more
  (it keeps one either way), when the partner of its one card is located
  elsewhere or is not of colour C, or when that partner is located in V's
  hand as V's only card of colour C; otherwise the move is left unmarked.
  Only a player with an empty hand can win there: an end that leaves no hand
  empty has no winner, which zero-sum rewards pay every seat 0 (more than a
  loss), so it is left unmarked; the shared-win rewards pay every seat -1
  (a loss).

Every other move leaves a card besides the Curse in every hand that holds it
(or is chance), so it never ends the game. The step limit is not counted: a
move that is cut off by it is not marked.
"""

from __future__ import annotations

from kakurega.agents.heuristics.kakurenbo_reading import KakurenboReader, Reading
from kakurega.envs.core.rewards import SHARED_WIN
from kakurega.envs.kakurenbo.rules import (
    A_CURSE_GIVE,
    A_TAKE,
    CHEST,
    CURSE_GIVE,
    DICE_TAKE,
    LEFT_LEG,
    POINTS,
    RIGHT_LEG,
    WAIST,
)

#: the outcome of a move that surely ends the game: the mover wins alone, shares the win, or loses
WIN, SHARE, LOSS = "win", "share", "loss"


def sure_endings(game, layout, observation: dict, legal, reading: Reading | None = None) -> dict[int, str]:
    """``{action: WIN | SHARE | LOSS}`` for the ``legal`` actions that surely end the game at once.

    ``reading``: the observation's :class:`~kakurega.agents.heuristics.kakurenbo_reading.Reading`, if the
    caller has it (else it is read here)."""
    if reading is None:
        reading = KakurenboReader(layout, game.num_players)(observation["observation"])
    stage = reading.stage
    if stage not in (CURSE_GIVE, DICE_TAKE):
        return {}
    n = game.num_players
    holder = -1 if reading.curse == n else reading.curse
    decode = game.decode
    out = {}
    for action in legal:
        kind, arg, k = decode[int(action)]
        if stage == CURSE_GIVE and kind == A_CURSE_GIVE:
            outcome = _curse_give(n, reading, arg, k)
        elif stage == DICE_TAKE and kind == A_TAKE:
            outcome = _dice_take(n, reading, holder, arg, k, game.win_scheme)
        else:
            outcome = None
        if outcome is not None:
            out[int(action)] = outcome
    return out


def dominated(endings: dict[int, str], legal) -> list[int]:
    """The ``legal`` actions that a surely ending one beats whatever happens, from :func:`sure_endings`' ``endings``.

    With zero-sum rewards (and the older shared-win ones) a sole win pays the
    most any seat can get and a place among the losers the least, so a move
    that surely wins alone is at least as good as every other move, and a move
    that surely loses is at most as good as any other. Hence: when some move
    surely wins alone, every other move; otherwise every sure loss, as long as
    some move is not one (never every legal action).
    """
    legal = [int(a) for a in legal]
    if any(endings.get(a) == WIN for a in legal):
        return [a for a in legal if endings.get(a) != WIN]
    losses = [a for a in legal if endings.get(a) == LOSS]
    return losses if len(losses) < len(legal) else []


def _verdict(final: list[float], candidates: list[int], scheme: str = SHARED_WIN) -> str | None:
    """Row 0's outcome when the game ends with ``final`` scores and only ``candidates`` may win; with no candidate
    nobody wins, a loss for every seat under ``scheme`` shared-win rewards, and None under zero-sum ones (every
    seat gets 0, more than a loss)."""
    if not candidates:
        return LOSS if scheme == SHARED_WIN else None
    if 0 not in candidates:
        return LOSS
    best = max(final[r] for r in candidates)
    if final[0] < best:
        return LOSS
    return WIN if sum(final[r] == best for r in candidates) == 1 else SHARE


def _curse_give(n, reading: Reading, card, k) -> str | None:
    """The outcome of giving the Curse and ``card`` to row ``k``, when it surely ends the game, else None."""
    if reading.holder[card ^ 1] != k:
        return None  # the partner is elsewhere (the game goes on) or not located (not decided)
    counts = reading.hand_size
    part = card >> 1
    left = counts[k] - 1  # the receiver's cards once the pair is gone, the Curse excluded
    if part in (RIGHT_LEG, LEFT_LEG):  # the receiver gets its neighbour's hand (the giver's less the card given)
        neighbour = (k - 1) % n if part == RIGHT_LEG else (k + 1) % n
        left = counts[neighbour] - (1 if neighbour == 0 else 0)
    if left > 0:
        return None
    final = list(reading.scores)
    final[(k - 1) % n if part == CHEST else (k + 1) % n if part == WAIST else k] += POINTS[part]
    final[k] = 0.0  # the receiver ends with the Curse: its points are void, and it never wins
    return _verdict(final, [r for r in range(n) if r != k])


def _dice_take(n, reading: Reading, holder, colour, k, scheme: str) -> str | None:
    """The outcome of taking ``colour`` from row ``k`` after the dice, when it surely ends the game, else None
    (``scheme``: the game's win rewards, see :func:`_verdict`)."""
    counts = reading.hand_size
    mine = reading.mine
    if len(mine) != counts[0]:
        return None  # some own card not located (never so once faces are seen)
    outcomes = {_take_outcome(n, counts, reading.scores, holder, mine, paired, k, scheme)
                for paired in _pairings(reading, mine, colour, k)}
    return outcomes.pop() if len(outcomes) == 1 else None


def _pairings(reading: Reading, mine, colour, k) -> tuple[bool, ...]:
    """Whether the card taken can empty the taker's hand by pairing its one card, as far as the taker knows."""
    if len(mine) != 1:
        return (False,)  # with two or more cards the taker keeps one, paired or not
    partner = mine[0] ^ 1
    if partner & 1 != colour:
        return (False,)
    where = reading.holder[partner]
    if where < 0:
        return (True, False)
    if where != k:
        return (False,)
    return (True,) if reading.counts[k][colour] == 1 else (True, False)


def _take_outcome(n, counts, scores, holder, mine, paired: bool, k, scheme: str) -> str | None:
    """The outcome of the take when the card taken pairs (``paired``) or not, if the game ends; else None."""
    emptied = counts[0] == 1 and paired
    if not (holder == k and counts[k] == 1) and not (holder == 0 and emptied):
        return None
    left = list(counts)
    left[k] -= 1
    left[0] = 0 if emptied else counts[0] + 1
    final = list(scores)
    if paired:
        final[0] += POINTS[mine[0] >> 1]
    if holder >= 0:
        final[holder] = 0.0
    return _verdict(final, [r for r in range(n) if left[r] == 0 and r != holder], scheme)
