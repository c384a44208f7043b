"""KAKURENBO: every move in the words a viewer may know (``KakurenboGame.public_action_string``).

A move's public part is the list of events the rules record in the state
(``state.events``: who drew, gave or took a card of which colour to or from
whom, discards, dice, hand swaps...). A card's face is named to a viewer only
where that viewer knows it after the move (its knowledge row, as the render
reads it), or where it is public (an open hand, a discarded pair). The
spectator knows the faces of open hands only.
"""

from __future__ import annotations

from bisect import insort

from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.rules import (
    A_DISCARD,
    A_GIVE_CARD,
    CHEST,
    COLOURS,
    GIVE_CARD,
    GIVE_COLOUR,
    PARTS,
    POINTS,
    RED,
    TAKE,
    WAIST,
    card_name,
)


def describe_event(game, event: tuple) -> str:
    """One public event in words (what the render lists)."""
    name = game.seat_name
    kind = event[0]
    if kind == "draw":
        return f"{name(event[1])} draws a {COLOURS[event[2]]} card"
    if kind == "give":
        return f"{name(event[1])} gives a {COLOURS[event[3]]} card to {name(event[2])}"
    if kind == "take":
        return f"{name(event[1])} takes a {COLOURS[event[3]]} card from {name(event[2])}"
    if kind == "give Curse":
        return f"{name(event[1])} gives Kaku's Curse and a {COLOURS[event[3]]} card to {name(event[2])}"
    if kind == "discard":
        return f"{name(event[1])} discards the {PARTS[event[2]]} pair"
    if kind == "dice":
        return f"dice: red {event[1]}, blue {event[2]}"
    if kind == "dice opponent":
        return f"{name(event[1])} rolls the dice against {name(event[2])}"
    if kind == "Curse passes":
        return f"equal dice: Kaku's Curse passes from {name(event[1])} to {name(event[2])}"
    if kind == "shows hand":
        return f"{name(event[1])} shows the hand to {name(event[2])}"
    if kind == "exchanges hands":
        return f"{name(event[1])} and {name(event[2])} exchange hands (the Curse stays)"
    if kind == "opens hand":
        return f"{name(event[1])}'s hand is open from now on"
    if kind == "flip":
        return "everyone flips their cards and sees their faces"
    if kind == "takes the Curse":
        return f"{name(event[1])} drew the last body part and takes Kaku's Curse: phase 2"
    if kind == "nobody to take from":
        return f"{name(event[1])} finds nobody to take from"
    if kind == "stuck with the Curse":
        return f"{name(event[1])} holds Kaku's Curse alone: the game ends"
    return " ".join(str(x) for x in event)


def second_person(verb: str) -> str:
    """``"passes"`` -> ``"pass"``, ``"draws"`` -> ``"draw"``, ``"is"`` -> ``"are"``, ``"has"`` -> ``"have"``."""
    if verb in ("is", "has"):
        return {"is": "are", "has": "have"}[verb]
    if verb.endswith("es") and verb[:-2].endswith(("s", "sh", "ch", "x")):
        return verb[:-2]
    return verb[:-1]


class _Words:
    """The words of one move for one viewer."""

    def __init__(self, game, before, action: int, after, viewer: int | None):
        self.game, self.before, self.after, self.viewer = game, before, after, viewer
        self.kind, self.arg, _offset = game.decode[action]
        self.known = None if viewer is None else game.known_row(after, viewer)
        #: every hand as the move's events unfold (:meth:`replay`): a hand shown, swapped or opened is named as
        #: it was at that event, not as it ends the move (phase 2 may start with several pairs to discard, and a
        #: later leg pair swaps the hand an arm pair showed)
        self.hands = [list(hand) for hand in before.hands]

    def who(self, seat: int) -> str:
        return "you" if seat == self.viewer else self.game.seat_name(seat)

    def does(self, seat: int, verb: str) -> str:
        """``"player_1 draws"`` or ``"you draw"`` (``verb`` in the third person)."""
        if seat == self.viewer:
            return "you " + second_person(verb)
        return f"{self.game.seat_name(seat)} {verb}"

    def whose(self, seat: int) -> str:
        return "your" if seat == self.viewer else f"{self.game.seat_name(seat)}'s"

    def located(self, card: int, holder: int) -> bool:
        """Whether the viewer knows, after the move, that ``holder`` holds ``card`` (or sees it discarded)."""
        after = self.after
        if after.discarded_by[card >> 1] >= 0 or after.open_hand[holder]:
            return True
        return self.known is not None and self.known[card] == holder

    def moved(self, card: int, src: int, dst: int) -> str:
        """The card that went from ``src`` to ``dst`` (``src`` -1: the pile): its face where the viewer may know
        which card moved, else its colour."""
        before, after, viewer = self.before, self.after, self.viewer
        visible = self.game.faces_visible(before)
        # the card's pair discarded in this move tells its face where every hand was pair-free before it (phase 2:
        # a pair is then discarded as it forms, so ``dst``'s one new pair holds the card). Not at the draw that ends
        # phase 1: a Kakurenbo hand may have held a pair all along (phase 1 discards are a choice), and at Kurayami's
        # flip every hand's pairs go at once, some held face down; which card moved stays unknown
        discarded = (after.discarded_by[card >> 1] >= 0 and visible and before.phase == 2 and sum(
            1 for by, was in zip(after.discarded_by, before.discarded_by) if by == dst and was < 0) == 1)
        # a hand open before the move shows what arrives in it; one that opens during the move (a head pair at the
        # start of phase 2) shows what it holds then, not which of those cards just arrived
        public = discarded or before.open_hand[dst] or (src >= 0 and before.open_hand[src])
        seen = viewer is not None and viewer in (src, dst) and visible
        # a third player who placed the card at src, where it was the only card of its colour, still follows it
        followed = (viewer is not None and src >= 0 and self.game.known_row(before, viewer)[card] == src
                    and before.colour_counts[2 * src + (card & 1)] == 1 and visible)
        return card_name(card) if public or seen or followed else f"a {COLOURS[card & 1]} card"

    def hand_faces(self, seat: int) -> str:
        """The faces of ``seat``'s hand the viewer knows after the move, e.g. ``"head (red), waist (blue)"``."""
        cards = [c for c in self.after.hands[seat] if c != CURSE and self.located(c, seat)]
        return ", ".join(card_name(c) for c in sorted(cards)) or "no card"

    def hand_now(self, seat: int) -> str:
        """Every face of ``seat``'s hand at the event being told (for a viewer who sees that whole hand)."""
        return ", ".join(card_name(c) for c in sorted(self.hands[seat]) if c != CURSE) or "no card"

    def replay(self, event: tuple) -> None:
        """Move the cards of ``self.hands`` as ``event`` did (the events are the rules' record, in order)."""
        hands = self.hands
        kind = event[0]
        if kind == "draw":
            insort(hands[event[1]], self.before.pile[-1])
        elif kind == "takes the Curse":
            hands[event[1]].append(CURSE)
        elif kind in ("give", "take", "give Curse"):
            actor, other, colour = event[1], event[2], event[3]
            src, dst = (other, actor) if kind == "take" else (actor, other)
            card = self.arg if kind == "give Curse" or self.kind == A_GIVE_CARD else self._left(src, colour)
            hands[src].remove(card)
            if kind == "give Curse":
                hands[src].remove(CURSE)
                hands[dst].append(CURSE)
            insort(hands[dst], card)
        elif kind == "discard":
            hands[event[1]].remove(2 * event[2])
            hands[event[1]].remove(2 * event[2] + 1)
        elif kind == "exchanges hands":
            a, b = event[1], event[2]
            cards_a = [c for c in hands[a] if c != CURSE]
            cards_b = [c for c in hands[b] if c != CURSE]
            hands[a] = cards_b + [CURSE] * (CURSE in hands[a])
            hands[b] = cards_a + [CURSE] * (CURSE in hands[b])
        elif kind == "Curse passes":
            hands[event[1]].remove(CURSE)
            hands[event[2]].append(CURSE)

    def event(self, event: tuple) -> str:
        """One event of the move in the viewer's words."""
        game = self.game
        kind = event[0]
        if kind == "draw":
            seat = event[1]
            return f"{self.does(seat, 'draws')} {self.moved(self.before.pile[-1], -1, seat)}"
        if kind in ("give", "take", "give Curse"):
            actor, other, colour = event[1], event[2], event[3]
            src, dst = (other, actor) if kind == "take" else (actor, other)
            card = self.arg if kind == "give Curse" or self.kind == A_GIVE_CARD else self._left(src, colour)
            named = self.moved(card, src, dst)
            if kind == "take":
                if named.startswith("a "):
                    return f"{self.does(actor, 'takes')} {named} from {self.who(other)}"
                return f"{self.does(actor, 'takes')} {self.whose(other)} {named}"
            if kind == "give Curse":
                return f"{self.does(actor, 'gives')} Kaku's Curse and {named} to {self.who(other)}"
            return f"{self.does(actor, 'gives')} {named} to {self.who(other)}"
        if kind == "discard":
            seat, part = event[1], event[2]
            words = f"{self.does(seat, 'discards')} the {PARTS[part]} pair"
            n = game.num_players
            functions = not game.kurayami and self.kind != A_DISCARD
            scorer = seat
            if functions and part == CHEST:
                scorer = (seat - 1) % n
            elif functions and part == WAIST:
                scorer = (seat + 1) % n
            points = POINTS[part]
            return words + f" ({points} point{'s' if points != 1 else ''} to {self.who(scorer)})"
        if kind == "shows hand":
            seat, viewer = event[1], event[2]
            if viewer == self.viewer:
                return f"{self.does(seat, 'shows')} you the hand: {self.hand_now(seat)}"
            return f"{self.does(seat, 'shows')} the hand to {self.who(viewer)}"
        if kind == "exchanges hands":
            a, b = event[1], event[2]
            words = f"{self.who(a)} and {self.who(b)} exchange hands (the Curse stays)"
            if self.viewer in (a, b):
                words += f": you now hold {self.hand_now(self.viewer)}"
            return words
        if kind == "opens hand":
            seat = event[1]
            return f"{self.whose(seat)} hand is open from now on: {self.hand_now(seat)}"
        if kind == "flip":
            words = "everyone flips their cards and sees their faces"
            if self.viewer is not None:
                words += f": you hold {self.hand_now(self.viewer)}"
            return words
        if kind == "takes the Curse":
            return f"{self.does(event[1], 'takes')} Kaku's Curse (the last body part is drawn): phase 2"
        if kind == "nobody to take from":
            return f"{self.does(event[1], 'finds')} nobody to take from"
        if kind == "stuck with the Curse":
            return f"{self.does(event[1], 'holds')} Kaku's Curse alone: the game ends"
        if kind == "dice opponent":
            return f"{self.does(event[1], 'rolls')} the dice against {self.who(event[2])}"
        if kind == "Curse passes":
            return f"equal dice: Kaku's Curse passes from {self.who(event[1])} to {self.who(event[2])}"
        return describe_event(game, event)

    def _left(self, src: int, colour: int) -> int:
        """The body-part card of ``colour`` that left ``src``'s hand in this move (a take or a blind give)."""
        after = self.after.hands[src]
        return next(c for c in self.before.hands[src] if c != CURSE and c & 1 == colour and c not in after)

    def top(self) -> str:
        """After a draw: the colour now on top of the pile, which decides what happens next."""
        after = self.after
        if not after.pile or after.stage not in (GIVE_CARD, TAKE, GIVE_COLOUR):
            return ""
        top = after.pile[-1]
        if top == CURSE:
            return ""
        verb = "gives" if top & 1 == RED else "takes"
        return f"the pile shows a {COLOURS[top & 1]} back: {self.does(after.actor, verb)} a card"

    def sentences(self) -> list[str]:
        words = []
        for event in self.after.events:
            self.replay(event)  # first, so that a swap's "you now hold" tells the hand it leaves
            words.append(self.event(event))
        top = self.top()
        if top:
            words.append(top)
        return words


def public_action_string(game, before, action: int, after, viewer: int | None) -> str:
    """``viewer``'s words for the move ``action`` from ``before`` to ``after`` (see the module docstring)."""
    return "; ".join(_Words(game, before, action, after, viewer).sentences())
