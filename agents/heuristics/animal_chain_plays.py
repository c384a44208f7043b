"""What every play of an Animal Chain position leads to, as the heuristic measures it (compiled when possible).

:class:`~kakurega.agents.heuristics.animal_chain.AnimalChainHeuristic` and
its move features measure every legal play of a decision (about 20): the
chains linked to each base after it, the attack masks on each base, whether
it makes a double and which doubles it cancels. :func:`play_parts` does that
for all of them at once. Every play changes the position at one place, so
what depends on the position alone is computed once: the chains grow from
the played card (computed anew only when it covers a linked card), and the
attack masks are remembered by what they read.

The code is loops over integers and lists so that Cython (setup.py
``ACCELERATED``, typed by ``animal_chain_plays.pxd``) turns them into C
comparisons; the floats (the chance of an attack) are computed by the
heuristic's own Python function, so the compiled and plain builds give the
same numbers. Positions are the heuristic's own frame; a card type is
``FACE_DOWN`` where no card is seen; position masks fit 64 bits (boards have
at most 45 positions).
"""

from __future__ import annotations

from array import array

from kakurega.envs.animal_chain.rules import FACE_DOWN, LEFT


class PlayTables:
    """What the play measurements read of the rules, as plain lists: built once per heuristic."""

    def __init__(self, game, own_base: list, opponent_base: list):
        self.num_positions = game.num_positions
        self.chain_rule = bool(game.chain_rule)
        # The chain search's steps (``game.chain_steps``) as flat arrays of integers, which the compiled
        # build reads as C arrays: the steps from q are ``step_starts[q]`` to ``step_starts[q + 1] - 1``;
        # step i leads to ``step_targets[i]`` (bit ``step_bits[i]``), whose side ``step_sides[i]`` faces q;
        # the cards connect when the animals they show there (``left_face`` / ``right_face`` of their
        # tops; face-down cards and holes, the last two entries, show none) are equal.
        starts, targets, bits, sides = [0], [], [], []
        faces = {}
        for q in range(game.num_positions):
            for (p, bit, mine, theirs), (_, side) in zip(game.chain_steps[q], game.neighbours[q]):
                targets.append(p)
                bits.append(bit)
                sides.append(1 - side)
                faces[side], faces[1 - side] = mine, theirs
            starts.append(len(targets))
        self.step_starts, self.step_targets = array("q", starts), array("q", targets)
        self.step_bits, self.step_sides = array("q", bits), array("q", sides)
        self.left_face, self.right_face = array("q", faces[LEFT]), array("q", faces[1 - LEFT])
        self.neighbours = game.neighbours
        self.attack_neighbours = game.attack_neighbours
        self.left_animal = game.left_animal
        self.right_animal = game.right_animal
        self.row_of = game.row_of
        self.last_row = game.shape.num_rows - 1
        #: the rows of a position bitmask's first and last positions are its nearest and farthest rows
        #: when positions are numbered row by row (the shipped boards): no scan over the positions
        self.rows_in_order = all(a <= b for a, b in zip(game.row_of, game.row_of[1:]))
        self.accepted_types = game.accepted_types
        #: ``type_bits[t]``: the bit of card type ``t`` in a type bitmask (a Python integer: decks may have over 64 types)
        self.type_bits = [1 << t for t in range(game.num_types)]
        #: ``position_bits[p]``: the bit of position ``p`` in a position bitmask (read, not shifted: the
        #: compiled build shifts C integers, and a C ``1 << p`` would be an ``int`` of 32 bits)
        self.position_bits = [1 << p for p in range(game.num_positions)]
        self.own_base = own_base
        self.opponent_base = opponent_base
        self.own_base_bits = sum(1 << p for p in own_base)
        self.opponent_base_bits = sum(1 << p for p in opponent_base)
        #: positions whose cards an attack mask on each base reads (bitmasks): the attack neighbours of its cards
        self.own_attack_cells = sum({1 << n for q in own_base for n, _ in game.attack_neighbours[q]})
        self.opponent_attack_cells = sum({1 << n for q in opponent_base for n, _ in game.attack_neighbours[q]})


def attack_mask(tables, types, targets, protected, linked) -> int:
    """Card types that could be played onto some base card in ``targets`` (positions) not in ``protected``
    (a position bitmask), connecting to face-up neighbours in ``linked`` (a position bitmask; -1: all).

    Only the neighbours that count under the game's ``attack_rule`` are used
    (``game.attack_neighbours``: under "reach", not the target's own base row).
    """
    attack_neighbours, left_animal, right_animal = tables.attack_neighbours, tables.left_animal, tables.right_animal
    mask = 0
    for q in targets:
        if protected >> q & 1:
            continue
        left_match = right_match = 0
        for n, side in attack_neighbours[q]:
            top = types[n]
            if top < 0 or not linked >> n & 1:
                continue
            if side == LEFT:
                left_match |= 1 << right_animal[top]
            else:
                right_match |= 1 << left_animal[top]
        if left_match or right_match:
            mask |= tables.accepted_types(left_match, right_match)
    return mask


def linked_mask(tables, types, sources) -> int:
    """The positions (bitmask) linked to the face-up ``sources`` through face-up connected cards
    (``game.linked_mask``, in any one frame)."""
    linked = 0
    frontier = []
    for q in sources:
        if types[q] >= 0:
            linked |= tables.position_bits[q]
            frontier.append(q)
    return _grow(tables, types, linked, frontier)


def linked_without(tables, types, sources, p) -> int:
    """:func:`linked_mask` with no card seen at ``p``: the chains that do not run through ``p``."""
    hidden = list(types)
    hidden[p] = FACE_DOWN
    return linked_mask(tables, hidden, sources)


def linked_after(tables, types, sources, before, played) -> int:
    """:func:`linked_mask` after one card was played at ``played``, given ``before``, the mask before it
    (or :func:`linked_without` ``played``, for a card covering a linked card).

    A card played where no linked card lay cuts no chain: the chains only grow
    from it, when it is a source or connects to a linked card. Given a ``before``
    that holds ``played``, the mask is computed anew.
    """
    if before >> played & 1:
        return linked_mask(tables, types, sources)
    joins = played in sources
    if not joins:
        targets, bits = tables.step_targets, tables.step_bits
        for i in range(tables.step_starts[played], tables.step_starts[played + 1]):
            if before & bits[i] and _connected(tables, types, played, targets[i], i):
                joins = True
                break
    if not joins:
        return before
    return _grow(tables, types, before | tables.position_bits[played], [played])


def _connected(tables, types, q, p, i) -> bool:
    """Whether the cards at ``q`` and ``p`` connect (``i``: the step from ``q`` to ``p``)."""
    if tables.step_sides[i] == LEFT:  # p's left side faces q's right side
        return tables.right_face[types[q]] == tables.left_face[types[p]]
    return tables.left_face[types[q]] == tables.right_face[types[p]]


def _grow(tables, types, linked, frontier) -> int:
    """``linked`` (a position bitmask) and every position reached from ``frontier`` through connected cards."""
    starts, targets, bits, sides = tables.step_starts, tables.step_targets, tables.step_bits, tables.step_sides
    left_face, right_face = tables.left_face, tables.right_face
    k = 0
    while k < len(frontier):  # positions before ``k`` are expanded, those from ``k`` on not yet
        q = frontier[k]
        k += 1
        top = types[q]
        for i in range(starts[q], starts[q + 1]):
            bit = bits[i]
            if linked & bit:
                continue
            p = targets[i]
            if sides[i] == LEFT:
                connected = right_face[top] == left_face[types[p]]
            else:
                connected = left_face[top] == right_face[types[p]]
            if connected:
                linked |= bit
                frontier.append(p)
    return linked


def chain_race(tables, mine_linked, theirs_linked) -> int:
    """Rows our linked chain reaches up the board minus rows the opponent's reaches down it."""
    row_of, last_row = tables.row_of, tables.last_row
    if tables.rows_in_order and mine_linked and theirs_linked:
        ours = row_of[int(mine_linked).bit_length() - 1]
        theirs_reach = last_row - row_of[int(theirs_linked & -theirs_linked).bit_length() - 1]
    else:
        ours = max(row_of[p] for p in range(tables.num_positions) if mine_linked >> p & 1)
        theirs_reach = last_row - min(row_of[p] for p in range(tables.num_positions) if theirs_linked >> p & 1)
    return ours - theirs_reach


def makes_double(tables, types, t, p) -> bool:
    """Whether card type ``t`` played at ``p`` connects with one animal to two or more cards."""
    left, right = tables.left_animal[t], tables.right_animal[t]
    on_left = on_right = 0  # neighbours it connects to through its left / right animal
    for q, side in tables.neighbours[p]:
        top = types[q]
        if top < 0:
            continue
        if side == LEFT:
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
    cancel = tables.position_bits[p]
    here = types[p]
    if here < 0:
        return cancel
    for q, side in tables.neighbours[p]:
        there = types[q]
        if not doubles >> q & 1 or there < 0:
            continue
        if side == LEFT:
            connected = tables.left_animal[here] == tables.right_animal[there]
        else:
            connected = tables.right_animal[here] == tables.left_animal[there]
        if connected:
            cancel |= tables.position_bits[q]
    return cancel


def play_parts(tables, candidates, types, hand, hand_mask, face_down, mine, theirs, chance, with_pass) -> tuple:
    """``([(play, parts)], parts of the pass or None without ``with_pass``)`` for ``candidates`` (``(action, type, position)`` plays).

    ``types``: the type seen at each position (``FACE_DOWN``: none); ``hand``:
    counts per type, ``hand_mask`` its types held; ``face_down``: per position,
    whether a face-down card lies there; ``mine`` / ``theirs``: the positions of
    our / the opponent's doubles (bitmasks); ``chance(mask)``: the chance that
    the opponent draws a card of a type in ``mask``. ``parts``: ``threat`` (that
    chance for the types that could attack our base), ``offence`` (1.0 when we
    hold a type that could attack the opponent's), ``race`` (chain rule: rows
    our linked chain reaches minus the rows the opponent's reaches), ``row``
    (0.0 here), ``take``, ``double`` and ``draw`` (0.0 here); and ``wins``, the
    card types that surely give the opponent a play onto our base row after
    it (a type bitmask): the threat's mask, except that every double of ours
    the play does not cover counts as kept (the cards a double rests on are
    not observed, so covering a connected neighbour may or may not cancel it;
    the threat guesses it does).
    """
    chain_rule = tables.chain_rule
    own_base, opponent_base = tables.own_base, tables.opponent_base
    own_cells, opponent_cells = tables.own_attack_cells, tables.opponent_attack_cells
    own_targets, opponent_targets = tables.own_base_bits, tables.opponent_base_bits
    doubles = mine | theirs
    mine_now = theirs_now = mine_linked = theirs_linked = -1
    race = 0
    if chain_rule:
        mine_now = linked_mask(tables, types, own_base)
        theirs_now = linked_mask(tables, types, opponent_base)
    threats: dict = {}  # the attack masks on our base, by what they read
    chances: dict = {}  # the chance of each attack mask (a few distinct masks per position)
    attacks: dict = {}  # the attack masks on the opponent's base, by what they read
    cancels = [0] * tables.num_positions  # by position: the doubles a play there cancels (0: not yet known)
    # by position: the chains that do not run through it (-1: not yet known); a card covering a linked card
    # may cut a chain, and the chains after it grow from these
    mine_without = [-1] * tables.num_positions
    theirs_without = [-1] * tables.num_positions
    plays = []
    for action, t, p in candidates:
        new_types = list(types)
        new_types[p] = t
        double = makes_double(tables, types, t, p)
        cancel = cancels[p]
        if not cancel:
            cancel = cancels[p] = cancelled_doubles(tables, types, doubles, p)
        protected_mine = mine & ~cancel
        if double:
            protected_mine |= tables.position_bits[p]
        protected_theirs = theirs & ~cancel
        if chain_rule:  # only cards linked to the attacker's base count
            mine_linked = mine_now
            if mine_now >> p & 1:
                mine_linked = mine_without[p]
                if mine_linked < 0:
                    mine_linked = mine_without[p] = linked_without(tables, types, own_base, p)
            mine_linked = linked_after(tables, new_types, own_base, mine_linked, p)
            theirs_linked = theirs_now
            if theirs_now >> p & 1:
                theirs_linked = theirs_without[p]
                if theirs_linked < 0:
                    theirs_linked = theirs_without[p] = linked_without(tables, types, opponent_base, p)
            theirs_linked = linked_after(tables, new_types, opponent_base, theirs_linked, p)
            race = chain_race(tables, mine_linked, theirs_linked)
        # an attack mask reads the cards of its cells (one of them may be the played card), the
        # protection of its targets and which cells are linked
        changed = own_cells >> p & 1
        key = (p if changed else -1, t if changed else -1, protected_mine & own_targets, theirs_linked & own_cells)
        mask = threats.get(key)
        if mask is None:
            mask = threats[key] = attack_mask(tables, new_types, own_base, protected_mine, theirs_linked)
        threat = chances.get(mask)
        if threat is None:
            threat = chances[mask] = chance(mask)
        # the doubles surely kept: every one of ours but the one covered (the play may make a new one)
        kept_mine = mine & ~tables.position_bits[p]
        if double:
            kept_mine |= tables.position_bits[p]
        key = (key[0], key[1], kept_mine & own_targets, key[3])
        wins = threats.get(key)
        if wins is None:
            wins = threats[key] = attack_mask(tables, new_types, own_base, kept_mine, theirs_linked)
        changed = opponent_cells >> p & 1
        key = (p if changed else -1, t if changed else -1, protected_theirs & opponent_targets, mine_linked & opponent_cells)
        attack = attacks.get(key)
        if attack is None:
            attack = attacks[key] = attack_mask(tables, new_types, opponent_base, protected_theirs, mine_linked)
        new_hand = hand_mask & ~tables.type_bits[t] if hand[t] == 1 else hand_mask
        plays.append((action, {
            "threat": threat, "offence": 1.0 if attack & new_hand else 0.0, "race": race, "row": 0.0,
            "take": 1.0 if face_down[p] else 0.0, "double": 1.0 if double else 0.0, "draw": 0.0, "wins": wins,
        }))
    if not with_pass:
        return plays, None
    if chain_rule:
        race = chain_race(tables, mine_now, theirs_now)
    key = (-1, -1, mine & own_targets, theirs_now & own_cells)
    mask = threats.get(key)
    if mask is None:
        mask = attack_mask(tables, types, own_base, mine, theirs_now)
    threat = chances.get(mask)
    if threat is None:
        threat = chance(mask)
    key = (-1, -1, theirs & opponent_targets, mine_now & opponent_cells)
    attack = attacks.get(key)
    if attack is None:
        attack = attack_mask(tables, types, opponent_base, theirs, mine_now)
    passing = {"threat": threat, "offence": 1.0 if attack & hand_mask else 0.0, "race": race, "row": 0.0,
               "take": 0.0, "double": 0.0, "draw": 0.0, "wins": mask}
    return plays, passing
