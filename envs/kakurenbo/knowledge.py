"""Who knows which card is where: the per-player card knowledge of KAKURENBO.

Each state keeps ``knowledge[observer][card]`` for the 14 body-part cards: the
seat the observer *knows* holds the card, or ``UNKNOWN``. Entries are always
true (never a guess): when a known card may have moved without the observer
seeing which card it was, the entry is dropped (the update is conservative).
The Curse and discarded pairs are public and kept elsewhere in the state.
The stored row holds what the observer saw; :func:`located` completes it by
counting whenever it is read.

``aware[card]`` is a bitmask of the seats whose knowledge of the card's
location is shared with its holder (the holder knows that they know): the
giver of a card, the victim of a take, the player who was shown a hand or
swapped hands. It is what one player can tell about another player's
knowledge, and it is what a determinization keeps of the other players'
knowledge (see ``KakurenboGame.resample_hidden``).

Invariants (checked by the fuzz tests):

- ``knowledge[o][c] == s`` implies card ``c`` is in hand ``s``;
- if faces are visible (not Kurayami phase 1), every player knows its own hand;
- a bit ``o`` in ``aware[c]`` implies ``knowledge[o][c]`` is the holder of ``c``.
"""

from __future__ import annotations

from bisect import insort

UNKNOWN = -1
NUM_BODY_CARDS = 14
CURSE = 14
#: colour of every card id: 0 red, 1 blue, 2 the Curse (black back)
COLOUR_OF = tuple([c & 1 for c in range(NUM_BODY_CARDS)] + [2])
#: body-part cards of each colour, in card-id order
CARDS_OF_COLOUR = (tuple(range(0, NUM_BODY_CARDS, 2)), tuple(range(1, NUM_BODY_CARDS, 2)))


def move_card(state, card: int, src: int, dst: int, faces_seen: bool) -> None:
    """Move body-part ``card`` from hand ``src`` to hand ``dst`` and update what everyone knows.

    Everyone sees the card's colour move. With ``faces_seen`` (every move
    except Kurayami phase 1) giver/victim and receiver/taker see its face.
    An open hand shows the face to everyone. A non-participant who knew the
    card at ``src`` keeps track of it only if it was ``src``'s only card of
    that colour; otherwise every card of that colour it knew at ``src`` might
    be the one that moved, and it forgets them all.
    """
    hands = state.hands
    colour = card & 1
    counts = state.colour_counts
    at = 2 * src + colour
    alone = counts[at] == 1  # the moved card was src's only card of its colour
    counts[at] -= 1
    counts[2 * dst + colour] += 1
    hands[src].remove(card)
    insort(hands[dst], card)
    if not faces_seen:
        return
    knowledge = state.knowledge
    aware = state.aware
    if state.open_hand[src] or state.open_hand[dst]:
        for row in knowledge:
            row[card] = dst
        aware[card] = (1 << int(len(hands))) - 1
        return
    aware[card] = 1 << src
    if alone:
        # whoever knew the card at src can follow it
        for row in knowledge:
            if row[card] == src:
                row[card] = dst
        knowledge[src][card] = knowledge[dst][card] = dst
        return
    # src's cards of the moved card's colour, the moved card included
    same_colour = [c for c in hands[src] if c & 1 == colour and c != CURSE]
    same_colour.append(card)
    for observer, row in enumerate(knowledge):
        if observer == src or observer == dst:
            row[card] = dst
        else:
            # Entries are always true, so only src's own cards can be known at src.
            for c in same_colour:
                if row[c] == src:
                    row[c] = UNKNOWN
    # Only the receiver still knows which of src's cards of that colour stayed.
    keep = 1 << dst
    for c in same_colour:
        if c != card:
            aware[c] &= keep


def reveal_hand(state, seat: int, observer: int) -> None:
    """``seat`` shows its hand to ``observer`` (an arm pair): a one-time look."""
    row = state.knowledge[observer]
    bit = 1 << observer
    aware = state.aware
    for c in state.hands[seat]:
        if c != CURSE:
            row[c] = seat
            aware[c] |= bit


def open_hand(state, seat: int) -> None:
    """Everyone sees the faces of ``seat``'s hand (a head pair, and after every later change)."""
    everyone = (1 << int(len(state.hands))) - 1
    for c in state.hands[seat]:
        if c != CURSE:
            for row in state.knowledge:
                row[c] = seat
            state.aware[c] = everyone


def exchange_hands(state, a: int, b: int) -> None:
    """``a`` and ``b`` swap whole hands except the Curse, in public (a leg pair)."""
    hands = state.hands
    cards_a = [c for c in hands[a] if c != CURSE]
    cards_b = [c for c in hands[b] if c != CURSE]
    hands[a] = cards_b + [CURSE] if CURSE in hands[a] else cards_b
    hands[b] = cards_a + [CURSE] if CURSE in hands[b] else cards_a
    counts = state.colour_counts
    counts[2 * a : 2 * a + 2], counts[2 * b : 2 * b + 2] = counts[2 * b : 2 * b + 2], counts[2 * a : 2 * a + 2]
    # Everyone saw the swap: what was known in one hand is now known in the other.
    for row in state.knowledge:
        for c in cards_a:
            if row[c] == a:
                row[c] = b
        for c in cards_b:
            if row[c] == b:
                row[c] = a
    row_a, row_b = state.knowledge[a], state.knowledge[b]
    for c in cards_b:
        row_a[c] = a
    for c in cards_a:
        row_b[c] = b
    aware = state.aware
    public = state.open_hand[a] or state.open_hand[b]
    everyone = (1 << int(len(hands))) - 1
    for c in cards_a:
        aware[c] = everyone if public else 1 << a
    for c in cards_b:
        aware[c] = everyone if public else 1 << b


def forget_cards(state, cards) -> None:
    """The cards left the hands (a discarded pair is public): drop them from knowledge."""
    aware = state.aware
    for row in state.knowledge:
        for c in cards:
            row[c] = UNKNOWN
    for c in cards:
        aware[c] = 0


def pile_colours(state) -> tuple[int, int]:
    """Red and blue body-part cards in the pile: public by counting (7 of each colour in all)."""
    counts = state.colour_counts
    pairs_left = state.discarded_by.count(UNKNOWN)
    return pairs_left - sum(counts[0::2]), pairs_left - sum(counts[1::2])


def located(state, observer: int, pile: tuple[int, int] | None = None) -> list[int]:
    """The observer's knowledge row completed by counting: where it knows or can prove each card is.

    Counting: the public colour counts of hands and pile bound where a
    colour's cards can be. When a colour is gone from the pile and, after the
    cards the observer already places, only one hand has room for that
    colour, the remaining cards of that colour are in that hand. This is the
    one inference made beyond direct sight. It depends only on the observer's
    row and public counts, so it is applied when the row is read (for the
    observation and the render) rather than stored: the stored row keeps what
    was seen, and this closure is recomputed at every step from it. Returns
    the stored row itself when counting adds nothing (do not modify it).
    ``pile`` is :func:`pile_colours` of the state if the caller has it.
    """
    row = state.knowledge[observer]
    pile_red, pile_blue = pile_colours(state) if pile is None else pile
    if pile_red and pile_blue:
        return row  # both colours still in the pile: counting proves nothing
    counts = state.colour_counts
    if sum(counts) + row.count(UNKNOWN) == NUM_BODY_CARDS:
        return row  # the observer places every card held: nothing left to count
    n = len(counts) >> 1
    result = row
    for colour in (0, 1):
        if pile_blue if colour else pile_red:
            continue
        # A hand's room for the colour: its count minus the cards of that
        # colour the observer places there (entries are true, so these are
        # exactly its unlocated cards of that colour).
        room = counts[colour::2]
        for where in row[colour::2]:
            if where >= 0:
                room[where] -= 1
        place = UNKNOWN
        for seat in range(n):
            if room[seat]:
                if place != UNKNOWN:
                    break  # room in more than one hand
                place = seat
        else:
            if place != UNKNOWN:
                if result is row:
                    result = list(row)
                for c in state.hands[place]:
                    if c & 1 == colour and c != CURSE:
                        result[c] = place  # all its cards of that colour: the known and the proved
    return result
