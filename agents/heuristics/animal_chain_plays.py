"""What every move of an Animal Chain position leads to, as the heuristic measures it (compiled when possible).

:class:`~kakurega.agents.heuristics.animal_chain.AnimalChainHeuristic` and
its move features measure every legal play of a decision (about 20): the
chains linked to each base after it, the attack on each base, whether it
makes a double and which doubles it cancels. :func:`measure` does that for
all of them at once, reading the position from the observation vector and
the legal moves from the action mask, and writes one row of numbers per move
(:data:`PARTS`). Every play changes the position at one place, so what
depends on the position alone is computed once: the chains grow from the
played card (computed anew only when it covers a linked card), the doubles a
play cancels are known per position.

An attack on a base is two animal bitmasks: the animals that a card's left
half, or its right half, could match at a base card the attacker may play
onto. The card types it lets through are those showing one of them on that
half (``game.accepted_types``), so the attack's chance is counted from the
unseen cards of those types, and the type bitmask itself is only built when
asked (``with_wins``). The chance is the heuristic's formula (:func:`chance`),
computed on Python numbers, so the compiled and plain builds give the same
numbers.

The code is loops over integers and arrays so that Cython (setup.py
``ACCELERATED``, typed by ``animal_chain_plays.pxd``) turns them into C.
Positions are the heuristic's own frame; a card type is ``FACE_DOWN`` where
no card is seen; position masks fit 64 bits (boards have at most 45
positions), animal masks 64 unsigned bits (decks have at most 64 animals);
type masks are Python integers (decks may have over 64 types).
"""

from __future__ import annotations

from array import array

from kakurega.envs.animal_chain.rules import FACE_DOWN, LEFT

#: the columns of a row of :func:`measure`: the chance the opponent can then win at once, whether we
#: could win next turn (1.0 / 0.0), the chain rule's race (rows our linked chain reaches minus the rows
#: the opponent's reaches; 0 without it), the rows advanced without the chain rule (0 to 4), taking a
#: face-down card, making a double, drawing (the pass and the takes)
PARTS = ("threat", "offence", "race", "row", "take", "double", "draw")
#: the kinds of the own frame's actions in :attr:`PlayTables.action_kinds`
_OTHER, _PLAY, _PASS = 0, 1, 2
#: the rules' constants, as C integers in the compiled build (the .pxd types them)
_LEFT, _FACE_DOWN = LEFT, FACE_DOWN


def _filled(n, value) -> array:
    """A new array of ``n`` C integers equal to ``value``."""
    return array("q", [value]) * n


def _flat(lists) -> tuple:
    """``(starts, targets, sides)``: per position ``q``, its ``(target, side)`` pairs from ``starts[q]`` to
    ``starts[q + 1] - 1``, as flat integer arrays."""
    starts, targets, sides = [0], [], []
    for pairs in lists:
        for target, side in pairs:
            targets.append(target)
            sides.append(side)
        starts.append(len(targets))
    return array("q", starts), array("q", targets), array("q", sides)


class PlayTables:
    """What the measurements read of the rules and of the observation's layout, as flat integer arrays
    (C arrays when compiled): built once per heuristic."""

    def __init__(self, game, own_base: list, opponent_base: list, layout):
        P, T, A = game.num_positions, game.num_types, game.num_animals
        self.num_positions, self.num_types, self.num_animals = P, T, A
        self.chain_rule = bool(game.chain_rule)
        # The chain search's steps (``game.chain_steps``): the steps from q are ``step_starts[q]`` to
        # ``step_starts[q + 1] - 1``; step i leads to ``step_targets[i]`` (bit ``step_bits[i]``), whose side
        # ``step_sides[i]`` faces q; the cards connect when the animals they show there (``left_face`` /
        # ``right_face`` of their tops; face-down cards and holes, the last two entries, show none) are equal.
        starts, targets, bits, sides = [0], [], [], []
        faces = {}
        for q in range(P):
            for (p, bit, mine, theirs), (_, side) in zip(game.chain_steps[q], game.neighbours[q]):
                targets.append(p)
                bits.append(bit)
                sides.append(1 - side)
                faces[side], faces[1 - side] = mine, theirs
            starts.append(len(targets))
        self.step_starts, self.step_targets = array("q", starts), array("q", targets)
        self.step_bits, self.step_sides = array("q", bits), array("q", sides)
        self.left_face, self.right_face = array("q", faces[LEFT]), array("q", faces[1 - LEFT])
        #: every neighbour of a position and the neighbours that count for an attack (``game.attack_neighbours``:
        #: under "reach", not the target's own base row), with the side of the position facing them
        self.neighbour_starts, self.neighbour_targets, self.neighbour_sides = _flat(game.neighbours)
        self.attack_starts, self.attack_targets, self.attack_sides = _flat(game.attack_neighbours)
        self.left_animal, self.right_animal = array("q", game.left_animal), array("q", game.right_animal)
        self.row_of = array("q", game.row_of)
        self.last_row = game.shape.num_rows - 1
        self.accepted_types = game.accepted_types
        self.own_base, self.opponent_base = array("q", own_base), array("q", opponent_base)
        self.own_base_bits = sum(1 << p for p in own_base)
        self.opponent_base_bits = sum(1 << p for p in opponent_base)
        # Base building: the links of own base cards (their index in the base, and the side of the cell
        # facing them) to the cells where a card connecting to them would threaten the base (exposure:
        # under "rules_page" the base cards themselves, under "reach" the cells next to the base, where an
        # attack must start) or start a chain (the cells next to the base)
        base_index = {p: j for j, p in enumerate(own_base)}
        approach = sorted({q for p in own_base for q, _ in game.neighbours[p] if q not in base_index})
        exposed = approach if game.reach_rule else own_base
        links = [(base_index[n], side) for q in exposed for n, side in game.attack_neighbours[q] if n in base_index]
        self.exposure_bases, self.exposure_sides = array("q", [j for j, _ in links]), array("q", [side for _, side in links])
        links = [(base_index[n], side) for q in approach for n, side in game.neighbours[q] if n in base_index]
        self.start_bases, self.start_sides = array("q", [j for j, _ in links]), array("q", [side for _, side in links])
        # Reading the observation: where its pieces start, the type showing each pair of animals
        # (-1: none), the copies of each type in the deck in each seat's frame (seat-major)
        self.left_at, self.right_at = layout.slice("left_animal").start, layout.slice("right_animal").start
        self.hand_at, self.face_down_at = layout.slice("hand").start, layout.slice("face_down").start
        self.my_double_at, self.opponent_double_at = layout.slice("my_double").start, layout.slice("opponent_double").start
        self.seat_at, self.num_seats = layout.slice("seat").start, len(game.type_in_frame)
        self.opponent_hand_at = layout.index("hand_sizes", 1)
        self.type_of_animals = _filled(A * A, -1)
        for t, (left, right) in enumerate(game.deck.card_types):
            self.type_of_animals[left * A + right] = t
        self.copies_in_frame = array("q", [game.deck.copies[frame[t]] for frame in game.type_in_frame for t in range(T)])
        # The own frame's actions: their kind (PLAY, PASS for a pass or a take, OTHER), card type and position
        kinds = {"play": _PLAY, "pass": _PASS, "take": _PASS}
        self.num_actions = game.num_actions
        self.action_kinds = array("q", [kinds.get(kind, _OTHER) for kind, _, _ in game.decoded[0]])
        self.action_types = array("q", [t for _, t, _ in game.decoded[0]])
        self.action_positions = array("q", [p for _, _, p in game.decoded[0]])


def chance(hits, total_unseen, draws) -> float:
    """The chance that ``draws`` cards drawn from ``total_unseen`` hold one of ``hits`` (the heuristic's
    estimate, with replacement), on Python numbers."""
    if not hits or total_unseen <= 0 or draws <= 0:
        return 0.0
    return 1.0 - (1.0 - min(1.0, hits / total_unseen)) ** draws


def attack_animals(tables, types, targets, protected, linked, found) -> None:
    """The animals (two bitmasks) that a card's halves could match at some base card in ``targets``
    (positions) not in ``protected`` (a position bitmask), connecting to face-up neighbours in ``linked``
    (a position bitmask; -1: all): into ``found[0]`` the right animals of the neighbours on the base card's
    left side (the card's left half matches one of them), into ``found[1]`` the left animals of those on
    its right side."""
    starts, neighbours, sides = tables.attack_starts, tables.attack_targets, tables.attack_sides
    one = 1
    left_animals = right_animals = 0
    for j in range(len(targets)):
        q = targets[j]
        if protected >> q & 1:
            continue
        for i in range(starts[q], starts[q + 1]):
            n = neighbours[i]
            top = types[n]
            if top < 0 or not linked >> n & 1:
                continue
            if sides[i] == _LEFT:
                left_animals |= one << tables.right_animal[top]
            else:
                right_animals |= one << tables.left_animal[top]
    found[0], found[1] = left_animals, right_animals


def attack_mask(tables, types, targets, protected, linked) -> int:
    """Card types that could be played onto some base card in ``targets`` (positions) not in ``protected``
    (a position bitmask), connecting to face-up neighbours in ``linked`` (a position bitmask; -1: all)."""
    found = array("Q", [0, 0])
    attack_animals(tables, array("q", types), array("q", targets), protected, linked, found)
    return tables.accepted_types(found[0], found[1])


def _accepts(tables, t, left_animals, right_animals) -> bool:
    """Whether card type ``t`` shows one of ``left_animals`` on its left half or of ``right_animals`` on its right."""
    return bool(left_animals >> tables.left_animal[t] & 1 or right_animals >> tables.right_animal[t] & 1)


def linked_mask(tables, types, sources, frontier) -> int:
    """The positions (bitmask) linked to the face-up ``sources`` through face-up connected cards
    (``game.linked_mask``, in any one frame); ``frontier`` has room for every position."""
    count = 0
    linked = 0
    one = 1
    for j in range(len(sources)):
        q = sources[j]
        if types[q] >= 0:
            linked |= one << q
            frontier[count] = q
            count += 1
    return _grow(tables, types, linked, frontier, count)


def linked_without(tables, types, sources, p, frontier) -> int:
    """:func:`linked_mask` with no card seen at ``p``: the chains that do not run through ``p``."""
    top = types[p]
    types[p] = _FACE_DOWN
    linked = linked_mask(tables, types, sources, frontier)
    types[p] = top
    return linked


def linked_after(tables, types, sources, before, played, frontier) -> int:
    """:func:`linked_mask` after one card was played at ``played`` (``types`` shows it), given ``before``,
    the mask before it (or :func:`linked_without` ``played``, for a card covering a linked card).

    A card played where no linked card lay cuts no chain: the chains only grow
    from it, when it is a source or connects to a linked card. Given a ``before``
    that holds ``played``, the mask is computed anew.
    """
    if before >> played & 1:
        return linked_mask(tables, types, sources, frontier)
    joins = False
    for j in range(len(sources)):
        if sources[j] == played:
            joins = True
    if not joins:
        targets, bits = tables.step_targets, tables.step_bits
        for i in range(tables.step_starts[played], tables.step_starts[played + 1]):
            if before & bits[i] and _connected(tables, types, played, targets[i], i):
                joins = True
                break
    if not joins:
        return before
    frontier[0] = played
    one = 1
    return _grow(tables, types, before | one << played, frontier, 1)


def _connected(tables, types, q, p, i) -> bool:
    """Whether the cards at ``q`` and ``p`` connect (``i``: the step from ``q`` to ``p``)."""
    if tables.step_sides[i] == _LEFT:  # p's left side faces q's right side
        return tables.right_face[types[q]] == tables.left_face[types[p]]
    return tables.left_face[types[q]] == tables.right_face[types[p]]


def _grow(tables, types, linked, frontier, count) -> int:
    """``linked`` (a position bitmask) and every position reached from the first ``count`` positions of
    ``frontier`` through connected cards (``frontier`` has room for every position)."""
    starts, targets, bits, sides = tables.step_starts, tables.step_targets, tables.step_bits, tables.step_sides
    left_face, right_face = tables.left_face, tables.right_face
    k = 0
    while k < count:  # positions before ``k`` are expanded, those from ``k`` on not yet
        q = frontier[k]
        k += 1
        top = types[q]
        for i in range(starts[q], starts[q + 1]):
            bit = bits[i]
            if linked & bit:
                continue
            p = targets[i]
            if sides[i] == _LEFT:
                connected = right_face[top] == left_face[types[p]]
            else:
                connected = left_face[top] == right_face[types[p]]
            if connected:
                linked |= bit
                frontier[count] = p
                count += 1
    return linked


def chain_race(tables, mine_linked, theirs_linked) -> int:
    """Rows our linked chain reaches up the board minus rows the opponent's reaches down it (neither mask
    is empty: the base cards are face up)."""
    row_of, last_row = tables.row_of, tables.last_row
    ours, nearest = -1, last_row + 1  # the farthest row of ours, the nearest of theirs
    for p in range(tables.num_positions):
        if mine_linked >> p & 1 and row_of[p] > ours:
            ours = row_of[p]
        if theirs_linked >> p & 1 and row_of[p] < nearest:
            nearest = row_of[p]
    return ours - (last_row - nearest)


def makes_double(tables, types, t, p) -> bool:
    """Whether card type ``t`` played at ``p`` connects with one animal to two or more cards."""
    left, right = tables.left_animal[t], tables.right_animal[t]
    on_left = on_right = 0  # neighbours it connects to through its left / right animal
    for i in range(tables.neighbour_starts[p], tables.neighbour_starts[p + 1]):
        top = types[tables.neighbour_targets[i]]
        if top < 0:
            continue
        if tables.neighbour_sides[i] == _LEFT:
            on_left += tables.right_animal[top] == left
        else:
            on_right += tables.left_animal[top] == right
    if left == right:  # one animal on both sides
        return on_left + on_right >= 2
    return on_left >= 2 or on_right >= 2


def cancelled_doubles(tables, types, doubles, p) -> int:
    """The doubles (a position bitmask, ``p`` included) that covering ``p`` cancels: those of ``doubles``
    on neighbours connected to the card at ``p`` (their foundations are not observed, but they are
    connected neighbours, so this is the best guess)."""
    one = 1
    cancel = one << p
    here = types[p]
    if here < 0:
        return cancel
    for i in range(tables.neighbour_starts[p], tables.neighbour_starts[p + 1]):
        q = tables.neighbour_targets[i]
        there = types[q]
        if not doubles >> q & 1 or there < 0:
            continue
        if tables.neighbour_sides[i] == _LEFT:
            connected = tables.left_animal[here] == tables.right_animal[there]
        else:
            connected = tables.right_animal[here] == tables.left_animal[there]
        if connected:
            cancel |= one << q
    return cancel


def read_position(tables, vector, types, hand, unseen) -> int:
    """Read the observation ``vector`` into ``types`` (the type seen at each position, ``FACE_DOWN``: none),
    ``hand`` (counts per type) and ``unseen`` (the cards of each type in neither, at least 0); return the
    seat (the frame of the types)."""
    P, T, A = tables.num_positions, tables.num_types, tables.num_animals
    left_at, right_at = tables.left_at, tables.right_at
    for p in range(P):
        left = right = 0  # the first largest value of each animal piece (numpy's argmax)
        shown = False  # a left animal shown: a card seen
        for a in range(A):
            if vector[left_at + p * A + a] != 0.0:
                shown = True
            if vector[left_at + p * A + a] > vector[left_at + p * A + left]:
                left = a
            if vector[right_at + p * A + a] > vector[right_at + p * A + right]:
                right = a
        types[p] = tables.type_of_animals[left * A + right] if shown else _FACE_DOWN
    seat = 0
    for s in range(1, tables.num_seats):
        if vector[tables.seat_at + s] > vector[tables.seat_at + seat]:
            seat = s
    for t in range(T):
        hand[t] = int(vector[tables.hand_at + t])
        unseen[t] = tables.copies_in_frame[seat * T + t] - hand[t]
    for p in range(P):
        t = types[p]
        if t >= 0:
            unseen[t] = max(0, unseen[t] - 1)
    return seat


def _hits(tables, unseen, left_animals, right_animals) -> int:
    """The unseen cards of the types an attack of these animals lets through."""
    hits = 0
    for t in range(tables.num_types):
        if unseen[t] and _accepts(tables, t, left_animals, right_animals):
            hits += unseen[t]
    return hits


def _pair_index(lefts, rights, known, left, right) -> int:
    """The index of the pair ``(left, right)`` among the first ``known`` of ``lefts`` / ``rights``, or
    ``known`` when it is not there."""
    for i in range(known):
        if lefts[i] == left and rights[i] == right:
            return i
    return known


def measure(tables, vector, mask, out, with_wins) -> tuple:
    """Measure every legal move of an observation: its ``vector`` (float32) and ``mask`` (a byte per action).

    Returns ``(wins_now, actions, num_plays, wins, unseen, held)``: the plays
    onto the opponent's base row (they win at once; when there are some,
    nothing else is measured); the measured moves, the plays in action order,
    then the passes and takes (``num_plays`` plays), whose rows ``out[i]``
    (:data:`PARTS`; ``out`` has a row for every move) are written; with
    ``with_wins``, ``wins[i]``: the card types that surely give the opponent a
    play onto our base row after ``actions[i]`` (a type bitmask), else None;
    the unseen cards per type; the cards in the opponent's hand.

    ``wins`` is the threat's types, except that every double of ours the play
    does not cover counts as kept (the cards a double rests on are not
    observed, so covering a connected neighbour may or may not cancel it; the
    threat guesses it does).
    """
    P, T = tables.num_positions, tables.num_types
    # one block of C integers for the position's arrays: the types seen, the hand, the types in hand; by
    # position, the doubles a play there cancels (0: not yet known) and the chains that do not run through
    # it (-1: not yet known; a card covering a linked card may cut a chain, and the chains after it grow
    # from these); room for the chain searches
    block = _filled(5 * P + 2 * T, -1)
    types, hand, held_types = block[:P], block[P:P + T], block[P + T:P + 2 * T]
    cancels, mine_without = block[P + 2 * T:2 * P + 2 * T], block[2 * P + 2 * T:3 * P + 2 * T]
    theirs_without, frontier = block[3 * P + 2 * T:4 * P + 2 * T], block[4 * P + 2 * T:]
    unseen = _filled(T, 0)
    read_position(tables, vector, types, hand, unseen)
    held = int(vector[tables.opponent_hand_at])
    kinds, cards, positions = tables.action_kinds, tables.action_types, tables.action_positions
    opponent_targets = tables.opponent_base_bits
    wins_now, plays, passes = [], [], []
    for a in range(tables.num_actions):
        if not mask[a]:
            continue
        if kinds[a] == _PLAY:
            if opponent_targets >> positions[a] & 1:
                wins_now.append(a)
            elif not wins_now:
                plays.append(a)
        elif kinds[a] == _PASS:
            passes.append(a)
    if wins_now:
        return wins_now, [], 0, None, unseen, held
    total_unseen = 0
    num_held = 0
    for t in range(T):
        total_unseen += unseen[t]
        if hand[t]:
            held_types[num_held] = t
            num_held += 1
    one = 1
    mine = theirs = 0  # the positions of our / the opponent's doubles
    for p in range(P):
        if vector[tables.my_double_at + p] != 0.0:
            mine |= one << p
        if vector[tables.opponent_double_at + p] != 0.0:
            theirs |= one << p
    own_base, opponent_base = tables.own_base, tables.opponent_base
    chain_rule = tables.chain_rule
    mine_now = theirs_now = mine_linked = theirs_linked = -1
    race = 0
    if chain_rule:
        mine_now = linked_mask(tables, types, own_base, frontier)
        theirs_now = linked_mask(tables, types, opponent_base, frontier)
    # the attacks on our base met so far (two animal masks each), with their chance and (with_wins) types
    lefts, rights = array("Q", [0]) * (2 * len(plays) + 2), array("Q", [0]) * (2 * len(plays) + 2)
    found = array("Q", [0, 0])  # the two animal masks of an attack
    known = 0
    chances, masks = [], []
    wins = [] if with_wins else None
    for p in range(P):
        cancels[p] = 0
    n = 0
    for j in range(len(plays) + (1 if passes else 0)):
        passing = j == len(plays)
        if passing:  # the pass and the takes: the position as it is
            t, p, shown, double = -1, -1, _FACE_DOWN, False
            protected_mine = kept_mine = mine
            protected_theirs = theirs
            mine_linked, theirs_linked = mine_now, theirs_now
        else:
            t, p = cards[plays[j]], positions[plays[j]]
            double = makes_double(tables, types, t, p)
            cancel = cancels[p]
            if not cancel:
                cancel = cancels[p] = cancelled_doubles(tables, types, mine | theirs, p)
            protected_mine = mine & ~cancel
            protected_theirs = theirs & ~cancel
            kept_mine = mine & ~(one << p)  # every double of ours kept but the one covered
            if double:
                protected_mine |= one << p
                kept_mine |= one << p
            if chain_rule:  # only cards linked to the attacker's base count
                mine_linked = mine_now
                if mine_now >> p & 1:
                    mine_linked = mine_without[p]
                    if mine_linked < 0:
                        mine_linked = mine_without[p] = linked_without(tables, types, own_base, p, frontier)
                theirs_linked = theirs_now
                if theirs_now >> p & 1:
                    theirs_linked = theirs_without[p]
                    if theirs_linked < 0:
                        theirs_linked = theirs_without[p] = linked_without(tables, types, opponent_base, p, frontier)
            shown = types[p]
            types[p] = t  # the position after the play, until its row is measured
            if chain_rule:
                mine_linked = linked_after(tables, types, own_base, mine_linked, p, frontier)
                theirs_linked = linked_after(tables, types, opponent_base, theirs_linked, p, frontier)
        if chain_rule:
            race = chain_race(tables, mine_linked, theirs_linked)
        # the attack on our base (protection guessed), the one surely left (with_wins), and ours
        threat = win = -1
        for w in range(2 if with_wins else 1):
            protected = kept_mine if w else protected_mine
            attack_animals(tables, types, own_base, protected, theirs_linked, found)
            left, right = found[0], found[1]
            k = _pair_index(lefts, rights, known, left, right)
            if k == known:
                lefts[k], rights[k] = left, right
                known += 1
                chances.append(chance(_hits(tables, unseen, left, right), total_unseen, held))
                masks.append(tables.accepted_types(left, right) if with_wins else 0)
            if w:
                win = k
            else:
                threat = k
        attack_animals(tables, types, opponent_base, protected_theirs, mine_linked, found)
        left, right = found[0], found[1]
        offence = False  # we hold a card of the attack after the play
        for i in range(num_held):
            u = held_types[i]
            if (passing or u != t or hand[t] > 1) and _accepts(tables, u, left, right):
                offence = True
                break
        if not passing:
            types[p] = shown
        for _move in range(len(passes) if passing else 1):  # the pass and the takes share a row
            out[n, 0] = chances[threat]
            out[n, 1] = 1.0 if offence else 0.0
            out[n, 2] = race
            out[n, 3] = 0.0 if chain_rule or passing else tables.row_of[p] / tables.last_row * 4
            out[n, 4] = 1.0 if not passing and vector[tables.face_down_at + p] != 0.0 else 0.0
            out[n, 5] = 1.0 if double else 0.0
            out[n, 6] = 1.0 if passing else 0.0
            if with_wins:
                wins.append(masks[win])
            n += 1
    return wins_now, plays + passes, len(plays), wins, unseen, held


def _base_animals(tables, bases, sides, base, found) -> None:
    """Into ``found``, the animals (two masks) that a card's halves could match at base cards: per link
    ``i``, the card ``base[bases[i]]`` faces a cell with the cell's side ``sides[i]``."""
    one = 1
    left_animals = right_animals = 0
    for i in range(len(bases)):
        if sides[i] == _LEFT:
            left_animals |= one << tables.right_animal[base[bases[i]]]
        else:
            right_animals |= one << tables.left_animal[base[bases[i]]]
    found[0], found[1] = left_animals, right_animals


def _bits(mask) -> int:
    """How many bits of ``mask`` are set."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


def base_exposure(tables, base, unseen) -> int:
    """The cards of ``unseen`` (counts per type) an opponent could use against the base ``base`` (its card
    types) when only the base cards are face up: under "rules_page" cards playable onto a base card at
    once (they win), under "reach" cards playable onto a cell next to the base (the first step of an attack)."""
    found = array("Q", [0, 0])
    _base_animals(tables, tables.exposure_bases, tables.exposure_sides, base, found)
    return _hits(tables, unseen, found[0], found[1])


def base_key(tables, base, hand, unseen) -> tuple:
    """How good a base is while building (smaller is better): under the chain rule ``(-the hand cards that
    could start a chain, -the animals the hand shows)``, otherwise ``(base_exposure, -the animals the
    hand shows)`` (``hand`` and ``unseen``: counts per type; the animals counted per half)."""
    one = 1
    left_animals = right_animals = 0
    for t in range(tables.num_types):
        if hand[t]:
            left_animals |= one << tables.left_animal[t]
            right_animals |= one << tables.right_animal[t]
    sides = _bits(left_animals) + _bits(right_animals)
    if not tables.chain_rule:
        return base_exposure(tables, base, unseen), -sides
    found = array("Q", [0, 0])
    _base_animals(tables, tables.start_bases, tables.start_sides, base, found)
    return -_hits(tables, hand, found[0], found[1]), -sides
