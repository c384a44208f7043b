"""Animal Chain (どうぶつれんさ) rules engine: state, geometry and actions.

Rules: ``shared/rules/animal_chain.md``. Pure Python; no gymnasium/pettingzoo.

Geometry. Positions are the shape's cells in row-major order (row 0 =
player 0's base row). A card at ``(row r, column x)`` covers half-card columns
``[x, x + 2)``; its six neighbours, named as seen from player 0's side of the
table (player 1's base is "north"):

=========  ==============  =================  =====================================
direction  neighbour cell  side of my card    connects when
=========  ==============  =================  =====================================
W          (r,   x - 2)    left               my left animal == its right animal
E          (r,   x + 2)    right              my right animal == its left animal
NW         (r+1, x - 1)    left               my left animal == its right animal
NE         (r+1, x + 1)    right              my right animal == its left animal
SW         (r-1, x - 1)    left               my left animal == its right animal
SE         (r-1, x + 1)    right              my right animal == its left animal
=========  ==============  =================  =====================================

Actions are seen from the acting player's own side of the table (its
*frame*): player 1's frame is the board turned half round, so position ``p``
of player 1's frame is absolute position ``P - 1 - p`` and a card
``left|right`` in absolute terms is ``right|left`` in player 1's frame (the
shape is symmetric under a half turn, and the card-type space is closed under
reversal, so both players see the same kind of game). In every frame, row 0
is the player's own base row. Action ids (``T`` card types, ``P`` positions,
``B`` cards per base row):

* ``t * B + j`` (``0 <= id < T*B``): base building, swap a hand card of type
  ``t`` with the card at position ``j`` of the own base row (``building=
  "per_position"``: legal only for the base position ``j`` being decided);
* ``T*B``: done building (``"per_position"``: keep the base card being decided);
* ``T*B + 1 + t * P + p``: play a hand card of type ``t`` onto position ``p``;
* ``T*B + 1 + T*P``: pass (draw from the deck; without drawing when neither
  the deck nor a face-down board card is left);
* ``T*B + 2 + T*P + p``: pass with an empty deck, taking the face-down card
  at position ``p`` (the position becomes a hole).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from itertools import compress
from operator import itemgetter

import numpy as np

from kakurega.envs.animal_chain.data import (
    HAND_SIZE,
    Deck,
    Shape,
    cards_needed,
    check_deck_fits,
    deck_cards,
    load_deck,
    load_shape,
)
from kakurega.envs.core.cache import remember
from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.options import FileFit, Option

BUILD, PLAY, OVER = 0, 1, 2
PHASE_NAMES = ("building", "playing", "over")
LEFT, RIGHT = 0, 1
NO_CARD = -1
NO_SEAT = -1
#: ``AnimalChainState.tops`` of a position holding its face-down card / of a hole
FACE_DOWN, HOLE = -1, -2
#: direction name -> (row step, column step, side of the played card that faces it)
DIRECTIONS = {
    "W": (0, -2, LEFT),
    "E": (0, 2, RIGHT),
    "NW": (1, -1, LEFT),
    "NE": (1, 1, RIGHT),
    "SW": (-1, -1, LEFT),
    "SE": (-1, 1, RIGHT),
}
MAX_TURNS = 100_000  #: bound of the max_turns option (keeps the compiled build's C int from overflowing)
_SOURCE_KINDS = (str, os.PathLike, Mapping, type(None))

# The options (envs/core/options.py): the env declares them, AnimalChainGame checks its arguments with them.
DECK_OPTION = Option("deck", _SOURCE_KINDS, None, "path to a YAML/JSON deck file, or a mapping with the same "
                     "content; None: the packaged 60-card deck (format: ``kakurega.envs.animal_chain.data``)",
                     expected="a path to a YAML/JSON file, a mapping or None (packaged default)", loader=load_deck)
SHAPE_OPTION = Option("shape", _SOURCE_KINDS, None, "path to a YAML/JSON board-shape file, or a mapping; None: the "
                      "packaged 37-card board",
                      expected="a path to a YAML/JSON file, a mapping or None (packaged default)", loader=load_shape)
#: a deck fits a board when it holds the cards the board needs (``check_deck_fits``): the web app's setup marks the
#: decks that do not fit the board chosen
DECK_FITS_SHAPE = FileFit("deck", "shape", deck_cards, cards_needed, "too few cards for this board")
MAX_TURNS_OPTION = Option("max_turns", int, 200, "play-phase turns (plays and passes; base building does not count) "
                          "before the game is truncated as a draw", low=1, high=MAX_TURNS)
ATTACK_RULE_OPTION = Option("attack_rule", str, "rules_page", "when a play onto the opponent's base row is legal: "
                            "``\"rules_page\"`` like any play; ``\"reach\"`` it must connect to a counted neighbour "
                            "*outside* the opponent's base row", choices=("rules_page", "reach"))
CONNECTION_RULE_OPTION = Option("connection_rule", str, "any", "which face-up neighbours a played card may connect "
                                "to: ``\"chain\"`` one linked to the mover's own base (the chain rule); ``\"any\"`` "
                                "any face-up neighbour", choices=("any", "chain"))
#: how the bases are built (fixed by each version, not an env option)
BUILDING_OPTION = Option("building", str, "free", "any number of swaps then done (``\"free\"``), or one decision "
                         "per base position (``\"per_position\"``)", choices=("free", "per_position"))
#: ``AnimalChainGame.decoded`` tables, shared by the games of one deck and board size (the first
#: ``DECK_TABLES_SIZE`` met; a game of another deck builds its own)
_DECODED: dict[tuple, tuple] = {}
#: ``AnimalChainGame.chain_contributions`` tables by (card types, board cells, attack rule), as many
_CHAIN_CONTRIBUTIONS: dict[tuple, tuple] = {}
#: decks and boards whose tables are kept for the games that follow (a sweep over decks keeps no more:
#: the two tables of the default deck hold about 0.4 MiB)
DECK_TABLES_SIZE = 8
#: ``AnimalChainGame.bits_of_byte`` tables by number of bytes
_BITS_OF_BYTE: dict[int, tuple] = {}


@dataclass(slots=True)  # slots: the rules and the encoder read its attributes dozens of times a step
class AnimalChainState:
    """Full game state (absolute frame). Plain lists and ints: cheap to copy, canonical to pickle."""

    phase: int
    to_move: int
    #: undrawn cards (card type ids); the next draw takes the last one
    deck: list[int]
    #: ``hands[seat][t]``: cards of type ``t`` in that seat's hand
    hands: list[list[int]]
    #: card stack of every position, bottom first; ``[]`` is a hole
    stacks: list[list[int]]
    #: 1 where the position holds its original card face down
    face_down: list[int]
    #: seat owning the double on top of each position, or -1
    double_owner: list[int]
    #: foundation positions of that double (empty tuple when none)
    double_foundations: list[tuple[int, ...]]
    #: swaps made so far by the player now building (0 outside base building; ``building="free"``)
    swaps_used: int = 0
    #: own base position (0..B-1, from the builder's left) the player now building decides on
    #: (``building="per_position"``; 0 outside base building)
    building_position: int = 0
    first_player: int = NO_SEAT
    #: play-phase turns taken (plays and passes); base building does not count
    turn: int = 0
    #: consecutive passes without a draw (two end the game in a draw)
    passes_without_draw: int = 0
    winner: int = NO_SEAT
    # Derived caches of the public board (kept in sync by the rules, so they
    # are canonical; ``AnimalChainGame.refresh`` rebuilds them): what lies on
    # top of each position (the face-up card type, FACE_DOWN or HOLE), ...
    tops: list[int] | None = None
    #: ... ``links[seat][side * A + a]``: the positions (bitmask, in ``seat``'s frame) where a card
    #: of ``seat`` with animal ``a`` on that side (LEFT 0 / RIGHT 1) connects to a face-up
    #: neighbour under the attack rule (holes and doubles aside; under the chain rule a neighbour
    #: in ``linked[seat]``), ...
    links: list[list[int]] | None = None
    #: ... ``blocked[seat]``: positions (bitmask, in ``seat``'s frame) where ``seat`` may not
    #: play: holes and the opponent's doubles, ...
    blocked: list[int] | None = None
    #: ... ``hand_sizes[seat]``: the cards in that seat's hand (public; the observation's
    #: ``hand_sizes`` without summing ``hands``), ...
    hand_sizes: list[int] | None = None
    #: ... and ``linked[seat]``: the positions (bitmask of absolute positions) whose face-up top
    #: card is linked to ``seat``'s base row (``connection_rule="chain"``; ``[0, 0]`` otherwise
    #: and while building). All of them derive from public facts only.
    linked: list[int] | None = None


#: the state's fields in declaration order
_STATE_FIELDS = tuple(f.name for f in fields(AnimalChainState))




def _types_of_animal_bits(types_with: list[int]) -> tuple[tuple[int, ...], ...]:
    """Per byte ``k`` of an animal bitmask, per byte value: the union of ``types_with`` over its animals."""
    tables = []
    for k in range((len(types_with) + 7) // 8):
        animals = types_with[8 * k : 8 * k + 8]
        tables.append(tuple(
            _union(animals[i] for i in range(len(animals)) if byte >> i & 1) for byte in range(256)
        ))
    return tuple(tables)


def _merged(pairs) -> tuple[tuple[int, int], ...]:
    """``(key, bits)`` pairs with the bits of equal keys OR-ed together, by key."""
    out: dict[int, int] = {}
    for key, bits in pairs:
        out[key] = out.get(key, 0) | bits
    return tuple(sorted(out.items()))


def _union(masks) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


class AnimalChainGame(Game):
    """Animal Chain for two players on a given deck and board shape.

    ``attack_rule`` says when a play onto the opponent's base row is legal:

    * ``"rules_page"`` (default): like any play, it must connect to a face-up
      neighbour; the opponent's other base cards count (the binding rules page);
    * ``"reach"``: it must connect to at least one face-up neighbour *outside*
      the opponent's base row, i.e. the chain must reach the base from the
      board. Every other play is unchanged.

    ``connection_rule`` says which face-up neighbours a play may connect to:

    * ``"any"`` (default, version 0): any face-up neighbour;
    * ``"chain"`` (the rules page's chain rule, version 1): a neighbour
      *linked* to the mover's own base: reachable from a card of its base row
      through face-up top cards that connect pairwise (the opponent's base
      cards count only once the chain reaches them). Linked is judged on the
      board as it lies before the play (a card being covered still counts).
      ``attack_rule`` applies on top of it.

    ``building`` says how the bases are built:

    * ``"free"`` (default, version 0): any number of swaps (at most
      ``max_swaps``), then "done"; the number of decisions varies by deal;
    * ``"per_position"`` (version 1): exactly one decision per own base
      position, left to right: keep that base card ("done" keeps it) or swap
      it with a hand card of another type.
    """

    name = "animal_chain"
    num_players = 2

    def __init__(
        self,
        deck=DECK_OPTION.default,
        shape=SHAPE_OPTION.default,
        max_turns: int = MAX_TURNS_OPTION.default,
        attack_rule: str = ATTACK_RULE_OPTION.default,
        connection_rule: str = CONNECTION_RULE_OPTION.default,
        building: str = BUILDING_OPTION.default,
    ):
        """The rules for these options, each checked by its :class:`Option` (as the env checks them);
        ``deck`` and ``shape`` may also be loaded :class:`Deck` / :class:`Shape` objects."""
        self.deck: Deck = deck if isinstance(deck, Deck) else load_deck(DECK_OPTION.check(deck))
        self.shape: Shape = shape if isinstance(shape, Shape) else load_shape(SHAPE_OPTION.check(shape))
        check_deck_fits(self.deck, self.shape)
        self.max_turns = MAX_TURNS_OPTION.check(max_turns)
        self.attack_rule = ATTACK_RULE_OPTION.check(attack_rule)
        self.connection_rule = CONNECTION_RULE_OPTION.check(connection_rule)
        self.building = BUILDING_OPTION.check(building)
        #: the configuration (what ``new_rules`` rebuilds a rules object from)
        self.options = {
            "deck": self.deck, "shape": self.shape, "max_turns": self.max_turns,
            "attack_rule": attack_rule, "connection_rule": connection_rule, "building": building,
        }
        #: True when a play onto the opponent's base must connect to a card outside its base row
        self.reach_rule = attack_rule == "reach"
        #: True when a play must connect to a card linked to the mover's base (the chain rule)
        self.chain_rule = connection_rule == "chain"
        #: True when base building is one keep-or-swap decision per base position
        self.per_position = building == "per_position"

        deck, shape = self.deck, self.shape
        self.num_animals = A = len(deck.animals)
        self.num_types = T = len(deck.card_types)
        self.num_positions = P = shape.num_cards
        self.left_animal = [left for left, _ in deck.card_types]
        self.right_animal = [right for _, right in deck.card_types]
        #: card type seen from the other side of the table
        self.reverse_type = [deck.card_types.index((right, left)) for left, right in deck.card_types]
        #: ``type_in_frame[seat][t]``: type ``t`` as ``seat`` sees it (an involution)
        self.type_in_frame = (list(range(T)), self.reverse_type)
        #: a hand (counts per absolute type) listed in the order of player 1's frame types
        self.reverse_hand = itemgetter(*self.reverse_type)
        #: bitmask of types whose left / right animal is ``a``
        self.types_with_left = [sum(1 << t for t in range(T) if self.left_animal[t] == a) for a in range(A)]
        self.types_with_right = [sum(1 << t for t in range(T) if self.right_animal[t] == a) for a in range(A)]
        #: bit of each type's left / right animal in an animal bitmask
        self.left_animal_bit = [1 << a for a in self.left_animal]
        self.right_animal_bit = [1 << a for a in self.right_animal]
        #: ``types_of_left_bits[k][byte]`` / ``types_of_right_bits``: bitmask of the types whose left
        #: (right) animal is one of the animals of bits ``8k..8k+7`` set in ``byte`` (``accepted_types``;
        #: complete tables, so the rules object holds nothing that depends on the queries made)
        self.types_of_left_bits = _types_of_animal_bits(self.types_with_left)
        self.types_of_right_bits = _types_of_animal_bits(self.types_with_right)
        #: every card of the deck (type ids), in type order: what initial_state shuffles
        self.all_cards = np.array([t for t, n in enumerate(deck.copies) for _ in range(n)])

        self.row_of = [r for r, _ in shape.cells]
        self.column_of = [x for _, x in shape.cells]
        index = {cell: p for p, cell in enumerate(shape.cells)}
        self.index_in_row = [sum(1 for q in range(p) if self.row_of[q] == self.row_of[p]) for p in range(P)]
        #: ``neighbours[p]``: ``(q, side of p facing q)`` for every neighbour q
        self.neighbours: list[list[tuple[int, int]]] = []
        #: ``neighbour_in[p][direction]``: neighbour position or None
        self.neighbour_in: list[dict[str, int | None]] = []
        for r, x in shape.cells:
            found = {d: index.get((r + dr, x + dx)) for d, (dr, dx, _) in DIRECTIONS.items()}
            self.neighbour_in.append(found)
            self.neighbours.append([(q, DIRECTIONS[d][2]) for d, q in found.items() if q is not None])
        #: ``neighbour_positions[p]``: the neighbours of ``p``
        self.neighbour_positions = [[q for q, _ in found] for found in self.neighbours]
        last = shape.num_rows - 1
        #: base row positions (absolute, ascending) of each seat
        self.base_positions = (
            [p for p in range(P) if self.row_of[p] == 0],
            [p for p in range(P) if self.row_of[p] == last],
        )
        self.base_size = B = len(self.base_positions[0])
        #: ``own_base_in_frame[seat][j]``: absolute position of base card j (from the owner's left)
        self.own_base_in_frame = (self.base_positions[0][:], [P - 1 - j for j in range(B)])
        self.base_owner = [NO_SEAT] * P
        for seat in (0, 1):
            for p in self.base_positions[seat]:
                self.base_owner[p] = seat
        def counts_for_attack(p: int, q: int) -> bool:
            return not (self.reach_rule and self.base_owner[p] != NO_SEAT and self.base_owner[q] == self.base_owner[p])

        #: ``attack_neighbours[p]``: the ``(q, side)`` neighbours whose connection counts for a
        #: play onto ``p`` by the opponent of ``p``'s base owner (all of them, except that
        #: under "reach" a base card's neighbours in its own base row do not count)
        self.attack_neighbours = [[(q, side) for q, side in self.neighbours[p] if counts_for_attack(p, q)] for p in range(P)]
        #: ``frame_bit[seat][p]``: bit of absolute position ``p`` in ``seat``'s frame masks
        self.frame_bit = tuple([1 << self.to_frame(seat, p) for p in range(P)] for seat in (0, 1))
        #: ``position_bit[p]``: bit of absolute position ``p`` in a mask of absolute positions
        self.position_bit = self.frame_bit[0]
        #: ``bits_of_byte[k][byte]``: the positions of the bits of byte ``k`` of a position mask
        #: (``mask.to_bytes(mask_bytes, "little")``)
        self.mask_bytes = (P + 7) // 8
        if self.mask_bytes not in _BITS_OF_BYTE:  # shared by every game with masks of that size
            _BITS_OF_BYTE[self.mask_bytes] = tuple(
                tuple(tuple(8 * k + i for i in range(8) if byte >> i & 1) for byte in range(256)) for k in range(self.mask_bytes)
            )
        self.bits_of_byte = _BITS_OF_BYTE[self.mask_bytes]
        #: ``link_index[side][top]``: index into ``state.links[seat]`` of the animal that a card on
        #: ``side`` of a neighbour showing ``top`` must show to connect (my left animal == its
        #: right animal, my right animal == its left animal); -1: nothing connects to a
        #: face-down card or a hole
        self.link_index = (
            {FACE_DOWN: -1, HOLE: -1, **{t: LEFT * A + self.right_animal[t] for t in range(T)}},
            {FACE_DOWN: -1, HOLE: -1, **{t: RIGHT * A + self.left_animal[t] for t in range(T)}},
        )
        #: ``type_links[t]``: the two ``state.links`` entries where a card of type ``t`` connects
        self.type_links = [(LEFT * A + self.left_animal[t], RIGHT * A + self.right_animal[t]) for t in range(T)]
        # ``out_links[p]``: what a new top on ``p`` changes in ``state.links``: for every neighbour q
        # a tuple ``(frame_bits of q, link_index[side of q facing p], seats, sources)``, where
        # ``seats`` are the seats for which p's card counts at q (both, except that under "reach"
        # a base card's neighbours in its own base row count only for the base owner) and
        # ``sources[seat]`` the neighbours on that side of q counting for that seat (a covered
        # card's animal stays offered if one of them still shows it).
        counts = [[{r for r, _ in self.attack_neighbours[q]} | ({r for r, _ in self.neighbours[q]} if self.base_owner[q] == seat else set())
                   for q in range(P)] for seat in (0, 1)]
        self.out_links = [[] for _ in range(P)]
        both, only = (0, 1), ((0,), (1,))
        for q in range(P):
            bits = (self.frame_bit[0][q], self.frame_bit[1][q])
            for side in (LEFT, RIGHT):
                sources = tuple(tuple(r for r, r_side in self.neighbours[q] if r_side == side and r in counts[seat][q]) for seat in (0, 1))
                if sources[0] == sources[1]:  # share one tuple (most positions, and all under the rules page)
                    sources = (sources[0], sources[0])
                for p, p_side in self.neighbours[q]:
                    if p_side == side:
                        seats = tuple(seat for seat in (0, 1) if p in counts[seat][q])
                        seats = both if len(seats) == 2 else only[seats[0]]
                        self.out_links[p].append((bits, self.link_index[side], seats, sources))
        #: the neighbours facing the left / right side of a card at ``p``
        self.left_side_neighbours = [[q for q, side in self.neighbours[p] if side == LEFT] for p in range(P)]
        self.right_side_neighbours = [[q for q, side in self.neighbours[p] if side == RIGHT] for p in range(P)]
        #: animal a neighbour showing ``top`` offers a card on its left / right (-1: none)
        self.right_animal_of_top = {FACE_DOWN: -1, HOLE: -1, **dict(enumerate(self.right_animal))}
        self.left_animal_of_top = {FACE_DOWN: -1, HOLE: -1, **dict(enumerate(self.left_animal))}
        #: swaps allowed per player under ``building="free"``: 2 per base card reach every arrangement of hand + base
        self.max_swaps = 2 * B

        self.swap_base = 0
        self.done_action = T * B
        self.play_base = T * B + 1
        self.pass_action = self.play_base + T * P
        self.take_base = self.pass_action + 1
        self.num_actions = self.take_base + P
        self.position_names = [f"r{self.row_of[p]}c{self.index_in_row[p]}" for p in range(P)]
        #: ``play_id[seat][t]``: id of ``seat`` playing absolute type ``t`` onto its frame position 0
        self.play_id = tuple([self.play_base + self.type_in_frame[seat][t] * P for t in range(T)] for seat in (0, 1))
        #: ``position_in_frame[seat][p]``: absolute position ``p`` in ``seat``'s frame
        self.position_in_frame = (list(range(P)), [P - 1 - p for p in range(P)])
        #: ``swap_ids[seat][t]``: ids of ``seat`` swapping absolute type ``t`` with base card 0, 1, ...
        self.swap_ids = tuple([[self.swap_action(seat, t, j) for j in range(B)] for t in range(T)] for seat in (0, 1))
        #: ``returns`` by winner (shared read-only arrays: a fresh array per step costs more than the rules)
        self._returns_of_winner = {NO_SEAT: np.zeros(2), 0: np.array([1.0, -1.0]), 1: np.array([-1.0, 1.0])}
        for out in self._returns_of_winner.values():
            out.flags.writeable = False
        #: ``decoded[seat][action]``: what ``decode`` returns, for every action id
        key = (tuple(self.reverse_type), P, B)  # all the decoding depends on; games of one deck share the table
        decoded = _DECODED.get(key)
        if decoded is None:
            decoded = remember(_DECODED, key, tuple(tuple(self._decode(seat, a) for a in range(self.num_actions))
                                                    for seat in (0, 1)), DECK_TABLES_SIZE)
        self.decoded = decoded
        #: per seat, the board positions (bitmask) whose cards that seat knows while building: its own base
        self.own_base_bits = tuple(sum(1 << p for p in self.base_positions[seat]) for seat in (0, 1))
        #: every position (bitmask)
        self.all_positions = (1 << P) - 1
        # ``legal_flags`` starts from these: nothing legal, only "done building", only "pass"
        self.no_flags = bytes(self.num_actions)
        self.done_flags = bytes(1 if a == self.done_action else 0 for a in range(self.num_actions))
        self.pass_flags = bytes(1 if a == self.pass_action else 0 for a in range(self.num_actions))
        #: ``swap_slice[seat][t]``: the flags of ``seat`` swapping absolute type ``t`` with base card 0, 1, ...
        self.swap_slice = tuple([slice(ids[0], ids[-1] + 1) for ids in self.swap_ids[seat]] for seat in (0, 1))
        self.all_bases = b"\x01" * B
        # The chain rule. ``face_on[side][top]``: the animal a top shows on that side (LEFT 0 /
        # RIGHT 1); face-down cards and holes show values that match nothing (indexes -1, -2).
        face_on = (self.left_animal + [-3, -4], self.right_animal + [-5, -6])
        #: ``chain_steps[q]``: ``(p, bit of p, face_on[side of q facing p], face_on[side of p facing q])``
        #: for every neighbour p of q: the cards at q and p connect when
        #: ``mine[tops[q]] == theirs[tops[p]]``
        self.chain_steps = [[(p, 1 << p, face_on[side], face_on[1 - side]) for p, side in self.neighbours[q]] for q in range(P)]
        #: ``chain_contributions[seat][q][top]``: ``(links index, frame bits)`` pairs that a card showing
        #: ``top`` at q adds to ``state.links[seat]`` when it is linked to ``seat``'s base: ``out_links``
        #: read for one seat and one top, bits of one index merged (empty for FACE_DOWN and HOLE,
        #: the last two entries, so that ``[top]`` indexes them)
        #: (built for the chain rule only, and shared by the games of one deck, board and attack rule)
        key = (tuple(deck.card_types), tuple(shape.cells), attack_rule)
        contributions = _CHAIN_CONTRIBUTIONS.get(key) if self.chain_rule else None
        if self.chain_rule and contributions is None:
            contributions = remember(_CHAIN_CONTRIBUTIONS, key, tuple(
                [[_merged((index[top], bits[seat]) for bits, index, seats, _ in self.out_links[q] if index[top] >= 0 and seat in seats)
                  for top in range(T)] + [(), ()] for q in range(P)]
                for seat in (0, 1)
            ), DECK_TABLES_SIZE)
        self.chain_contributions = contributions
        #: ``base_sources[seat]``: (positions, bitmask) of ``seat``'s base row, where its chain starts
        self.base_sources = tuple((self.base_positions[seat], self.own_base_bits[seat]) for seat in (0, 1))
        #: ``near_base_bits[seat]``: absolute positions (bitmask) within two rows of ``seat``'s base row
        #: (the rows where an opponent's chain threatens it; rollout policies read it)
        self.near_base_bits = tuple(
            sum(1 << p for p in range(P) if abs(self.row_of[p] - self.row_of[self.base_positions[seat][0]]) <= 2)
            for seat in (0, 1)
        )

    # ------------------------------------------------------------- frames
    def to_frame(self, seat: int, p: int) -> int:
        """Absolute position ``p`` in ``seat``'s frame (and back: the map is an involution)."""
        return p if seat == 0 else self.num_positions - 1 - p

    def play_action(self, seat: int, card_type: int, position: int) -> int:
        """Action id of ``seat`` playing absolute ``card_type`` onto absolute ``position``."""
        if seat == 0:
            return self.play_base + card_type * self.num_positions + position
        return self.play_base + self.reverse_type[card_type] * self.num_positions + self.num_positions - 1 - position

    def swap_action(self, seat: int, card_type: int, base_index: int) -> int:
        """Action id of ``seat`` swapping absolute ``card_type`` with its own base card ``base_index``."""
        return self.swap_base + self.type_in_frame[seat][card_type] * self.base_size + base_index

    def take_action(self, seat: int, position: int) -> int:
        """Action id of ``seat`` passing and taking the face-down card at absolute ``position``."""
        return self.take_base + self.to_frame(seat, position)

    def decode(self, seat: int, action: int) -> tuple[str, int, int]:
        """``(kind, absolute card type or -1, absolute position or base index or -1)`` of an action id.

        kind is one of ``swap``, ``done``, ``play``, ``pass``, ``take``.
        """
        return self.decoded[seat][action]

    def _decode(self, seat: int, action: int) -> tuple[str, int, int]:
        P, B = self.num_positions, self.base_size
        if action < self.done_action:
            t, j = divmod(action, B)
            return "swap", self.type_in_frame[seat][t], j
        if action == self.done_action:
            return "done", -1, -1
        if action < self.pass_action:
            t, p = divmod(action - self.play_base, P)
            return "play", self.type_in_frame[seat][t], self.to_frame(seat, p)
        if action == self.pass_action:
            return "pass", -1, -1
        return "take", -1, self.to_frame(seat, action - self.take_base)

    # --------------------------------------------------------------- state
    def initial_state(self, rng: np.random.Generator) -> AnimalChainState:
        """Shuffle, lay the board face down, deal 4 cards each; player 0 builds its base first."""
        deck = rng.permutation(self.all_cards).tolist()
        P = self.num_positions
        stacks = [[t] for t in deck[: -P - 1 : -1]]  # cards dealt from the end of the deck
        del deck[-P:]
        hands = [[0] * self.num_types for _ in range(2)]
        for _ in range(HAND_SIZE):
            for seat in (0, 1):
                hands[seat][deck.pop()] += 1
        return AnimalChainState(
            phase=BUILD,
            to_move=0,
            deck=deck,
            hands=hands,
            stacks=stacks,
            face_down=[1] * P,
            double_owner=[NO_SEAT] * P,
            double_foundations=[()] * P,
            tops=[FACE_DOWN] * P,
            links=[[0] * (2 * self.num_animals), [0] * (2 * self.num_animals)],
            blocked=[0, 0],
            hand_sizes=[HAND_SIZE, HAND_SIZE],
            linked=[0, 0],
        )

    def clone(self, state: AnimalChainState) -> AnimalChainState:
        """An independent copy of ``state`` (faster than deepcopy), nothing shared."""
        return AnimalChainState(
            phase=state.phase,
            to_move=state.to_move,
            deck=state.deck[:],
            hands=[h[:] for h in state.hands],
            stacks=[s[:] for s in state.stacks],
            face_down=state.face_down[:],
            double_owner=state.double_owner[:],
            double_foundations=state.double_foundations[:],
            swaps_used=state.swaps_used,
            building_position=state.building_position,
            first_player=state.first_player,
            turn=state.turn,
            passes_without_draw=state.passes_without_draw,
            winner=state.winner,
            tops=state.tops[:],
            links=[state.links[0][:], state.links[1][:]],
            blocked=state.blocked[:],
            hand_sizes=state.hand_sizes[:],
            linked=state.linked[:],
        )

    def top(self, state: AnimalChainState, p: int) -> int:
        """Type of the face-up card on top of ``p``, or -1 (face down or hole)."""
        stack = state.stacks[p]
        return stack[-1] if stack and not state.face_down[p] else NO_CARD

    def first_player(self, state) -> int | None:
        """The seat drawn by chance to play first, once the bases are revealed (None while building)."""
        return None if state.first_player == NO_SEAT else state.first_player

    def current_player(self, state) -> int:
        """Seat to act, or TERMINAL."""
        if state.phase == OVER or (state.phase == PLAY and state.turn >= self.max_turns):
            return TERMINAL
        return state.to_move

    def is_terminal(self, state) -> bool:
        """A win or a draw by two draw-less passes."""
        return state.phase == OVER

    def is_truncated(self, state) -> bool:
        """The turn limit was reached (scored as a draw)."""
        return state.phase == PLAY and state.turn >= self.max_turns

    def returns(self, state) -> np.ndarray:
        """+1 winner, -1 loser; 0 each otherwise (also before the end). Read-only."""
        return self._returns_of_winner[state.winner]

    def result_words(self, state, viewer: int | None = None) -> list[str]:
        """How the finished game ended, in words (:mod:`kakurega.envs.animal_chain.results`)."""
        from kakurega.envs.animal_chain import results

        return results.result_words(self, state, viewer)

    def return_bounds(self) -> tuple[float, float]:
        """-1 (lost) to +1 (won)."""
        return -1.0, 1.0

    def max_decisions(self) -> int:
        """Base building (per seat: ``max_swaps`` swaps and "done", or one decision per base position) plus
        ``max_turns`` play-phase turns (one decision each)."""
        building = self.base_size if self.per_position else self.max_swaps + 1
        return 2 * building + self.max_turns

    def is_zero_sum(self) -> bool:
        """Always: +1/-1 for a win, 0/0 otherwise."""
        return True

    def pays_only_at_end(self) -> bool:
        """Always: 0 to each until a win."""
        return True

    # -------------------------------------------------------------- connections
    def refresh(self, state: AnimalChainState) -> None:
        """Recompute the derived caches (after editing a state by hand, e.g. in tests)."""
        P = self.num_positions
        state.tops = tops = [self._top_of(state, p) for p in range(P)]
        state.links = [[0] * (2 * self.num_animals), [0] * (2 * self.num_animals)]
        state.blocked = [0, 0]
        for p in range(P):
            for bits, index, seats, _ in self.out_links[p]:
                if index[tops[p]] >= 0:
                    for seat in seats:
                        state.links[seat][index[tops[p]]] |= bits[seat]
            if tops[p] == HOLE:
                for seat in (0, 1):
                    state.blocked[seat] |= self.frame_bit[seat][p]
            if state.double_owner[p] != NO_SEAT:
                opponent = 1 - state.double_owner[p]
                state.blocked[opponent] |= self.frame_bit[opponent][p]
        state.hand_sizes = [sum(hand) for hand in state.hands]
        state.linked = [0, 0]
        if self.chain_rule and state.phase != BUILD:
            for seat in (0, 1):
                _rebuild_chain(self, state, seat)

    @staticmethod
    def _top_of(state: AnimalChainState, p: int) -> int:
        """What lies on top of ``p``: the face-up card type, FACE_DOWN or HOLE."""
        stack = state.stacks[p]
        if not stack:
            return HOLE
        return FACE_DOWN if state.face_down[p] else stack[-1]

    def _set_double(self, state: AnimalChainState, p: int, owner: int) -> None:
        """The card on ``p`` is a double of ``owner`` (or NO_SEAT): update ``double_owner`` and ``blocked``."""
        old = state.double_owner[p]
        state.double_owner[p] = owner
        if old != NO_SEAT:
            state.blocked[1 - old] &= ~self.frame_bit[1 - old][p]
        if owner != NO_SEAT:
            state.blocked[1 - owner] |= self.frame_bit[1 - owner][p]

    def accepted_types(self, left_match: int, right_match: int) -> int:
        """Bitmask of card types connecting at a position where these animals (bitmasks) match on the left / right.

        Read from complete tables built with the game: unlike a memo filled by
        the queries, nothing in the rules object depends on the states agents
        looked at, so no information can pass through it.
        """
        mask, k = 0, 0
        while left_match:
            mask |= self.types_of_left_bits[k][left_match & 255]
            left_match >>= 8
            k += 1
        k = 0
        while right_match:
            mask |= self.types_of_right_bits[k][right_match & 255]
            right_match >>= 8
            k += 1
        return mask

    def connections(self, state: AnimalChainState, card_type: int, p: int) -> list[tuple[int, int]]:
        """``(neighbour, animal)`` for every face-up neighbour the card would connect to at ``p``."""
        out = []
        left, right = self.left_animal[card_type], self.right_animal[card_type]
        tops = state.tops
        for q, side in self.neighbours[p]:
            t = tops[q]
            if t < 0:  # face down or a hole
                continue
            if side == LEFT and self.right_animal[t] == left:
                out.append((q, left))
            elif side == RIGHT and self.left_animal[t] == right:
                out.append((q, right))
        return out

    def linked_mask(self, tops: list[int], sources) -> int:
        """Bitmask of the positions linked to ``sources`` (positions) through face-up connected tops.

        ``tops`` as in ``AnimalChainState.tops`` (a type, FACE_DOWN or HOLE per
        position, in any one frame); a source counts when it is face up. The
        chain rule's ``linked`` for a seat is this mask from its base row.
        """
        return _linked_mask(self, tops, sources)

    def double_foundations_of(self, state: AnimalChainState, card_type: int, p: int) -> tuple[int, ...]:
        """Foundations if the card played at ``p`` would be a double (same animal to >= 2 cards), else ()."""
        left, right = self.left_animal[card_type], self.right_animal[card_type]
        tops, right_of_top, left_of_top = state.tops, self.right_animal_of_top, self.left_animal_of_top
        on_left = [q for q in self.left_side_neighbours[p] if right_of_top[tops[q]] == left]
        on_right = [q for q in self.right_side_neighbours[p] if left_of_top[tops[q]] == right]
        if left == right:  # both sides connect through the same animal
            on_left += on_right
            on_right = []
        elif len(on_left) < 2 and len(on_right) < 2:  # the usual case
            return ()
        found = (on_left if len(on_left) >= 2 else []) + (on_right if len(on_right) >= 2 else [])
        return tuple(sorted(found))

    # ------------------------------------------------------------ legal actions
    def legal_actions(self, state: AnimalChainState) -> list[int]:
        """Sorted legal action ids of the player to move, in that player's frame."""
        if state.phase == PLAY:
            if state.turn >= self.max_turns:
                return []
            return self._legal_plays(state)
        if state.phase == BUILD:
            return self._legal_builds(state)
        return []

    def _legal_builds(self, state: AnimalChainState) -> list[int]:
        seat = state.to_move
        if self.per_position:  # swaps with the base card being decided, or keep it ("done")
            j = state.building_position
            kept = state.stacks[self.own_base_in_frame[seat][j]][0]
            hand, swap_ids = state.hands[seat], self.swap_ids[seat]
            # the types in hand in the order of the seat's frame, so that the ids come out sorted
            types = compress(self.type_in_frame[seat], self.reverse_hand(hand) if seat else hand)
            return [swap_ids[t][j] for t in types if t != kept] + [self.done_action]
        if state.swaps_used >= self.max_swaps:
            return [self.done_action]
        actions = []
        swap_ids = self.swap_ids[seat]
        stacks = state.stacks
        base = [stacks[p][0] for p in self.own_base_in_frame[seat]]
        hand = state.hands[seat]
        # the types in hand in the order of the seat's frame, so that the ids come out sorted
        for t in compress(self.type_in_frame[seat], self.reverse_hand(hand) if seat else hand):
            if t in base:  # swapping a card for its twin would change nothing
                actions += [a for a, b in zip(swap_ids[t], base) if b != t]
            else:
                actions += swap_ids[t]
        actions.append(self.done_action)  # the largest id of the phase
        return actions

    def _legal_plays(self, state: AnimalChainState) -> list[int]:
        seat = state.to_move
        hand = state.hands[seat]
        actions = []
        links = state.links[seat]  # the attack rule is in the links already
        playable = self.all_positions ^ state.blocked[seat]
        play_id, type_links, offsets, size = self.play_id[seat], self.type_links, self.bits_of_byte, self.mask_bytes
        # the types in hand in the order of the seat's frame, and positions as frame bits read a
        # byte at a time, lowest first (masks of over 30 bits are slow Python ints, so there is no
        # per-bit arithmetic): the ids come out sorted
        for t in compress(self.type_in_frame[seat], self.reverse_hand(hand) if seat else hand):
            left, right = type_links[t]
            mask = (links[left] | links[right]) & playable
            if mask:
                first = play_id[t]
                for k, byte in enumerate(mask.to_bytes(size, "little")):
                    if byte:
                        actions += [first + p for p in offsets[k][byte]]
        if state.deck or 1 not in state.face_down:
            actions.append(self.pass_action)
        else:
            take, P = self.take_base, self.num_positions
            actions.extend(take + (p if seat == 0 else P - 1 - p) for p in range(P) if state.face_down[p])
            if seat == 1:
                actions.sort()
        return actions

    # ------------------------------------------------------------ legal flags
    def legal_flags(self, state: AnimalChainState) -> bytes:
        """``legal_actions`` as one byte per action id (1: legal), built without the list.

        The env's action mask views these bytes. A legal set rarely repeats in
        this game, so building the flags directly beats listing the actions
        and setting one flag per action. Same rules as ``legal_actions``
        (``tests/animal_chain/test_fuzz.py`` compares the two after every step).
        """
        if state.phase == BUILD:
            return _build_flags(self, state)
        if state.phase == PLAY and state.turn < self.max_turns:
            return _play_flags(self, state)
        return self.no_flags

    def is_legal(self, state: AnimalChainState, action: int) -> bool:
        """Whether ``action`` is legal for the player to move: that one action checked, as ``legal_actions`` rules.

        A play needs its card in hand and its position among the connecting,
        unblocked ones of the chain rule; a pass needs a card left to draw or
        no face-down card to take; a take the drawing pile empty and its
        position face down (``tests/test_conformance.py`` compares every
        action with the list).
        """
        phase = state.phase
        if phase == BUILD:
            return _build_flags(self, state)[action] == 1
        if phase != PLAY or state.turn >= self.max_turns:
            return False
        seat = state.to_move
        kind, card_type, where = self.decoded[seat][action]
        if kind == "play":
            if not state.hands[seat][card_type]:
                return False
            left, right = self.type_links[card_type]
            links = state.links[seat]
            mask = (links[left] | links[right]) & (self.all_positions ^ state.blocked[seat])
            return (mask >> ((action - self.play_base) % self.num_positions)) & 1 == 1
        if kind == "pass":
            return bool(state.deck) or 1 not in state.face_down
        if kind == "take":
            return not state.deck and state.face_down[where] == 1
        return False

    # ----------------------------------------------------------- apply action
    def apply_action(self, state: AnimalChainState, action: int, rng: np.random.Generator) -> None:
        """Apply a legal action of the player to move (in its frame)."""
        seat = state.to_move
        kind, card_type, where = self.decoded[seat][action]
        if kind == "play":
            self._play(state, seat, card_type, where)
        elif kind == "swap":
            p = self.own_base_in_frame[seat][where]
            hand, old = state.hands[seat], state.stacks[p][0]
            hand[card_type] -= 1
            hand[old] += 1
            state.stacks[p][0] = card_type
            if self.per_position:
                self._next_base_position(state, seat, rng)
            else:
                state.swaps_used += 1
        elif kind == "pass":
            if state.deck:
                drawn = state.deck.pop()
                state.hands[seat][drawn] += 1
                state.hand_sizes[seat] += 1
                state.passes_without_draw = 0
            else:
                state.passes_without_draw += 1
                if state.passes_without_draw >= 2:
                    state.phase = OVER
            self._end_turn(state)
        elif kind == "take":
            taken = state.stacks[where][0]
            state.hands[seat][taken] += 1
            state.hand_sizes[seat] += 1
            state.stacks[where] = []
            state.face_down[where] = 0
            _set_top(self, state, where, HOLE)
            state.blocked[0] |= self.frame_bit[0][where]  # nobody plays onto a hole
            state.blocked[1] |= self.frame_bit[1][where]
            state.passes_without_draw = 0
            self._end_turn(state)
        elif self.per_position:  # keep the base card being decided
            self._next_base_position(state, seat, rng)
        else:  # done building
            state.swaps_used = 0
            self._end_building(state, seat, rng)

    def _next_base_position(self, state: AnimalChainState, seat: int, rng: np.random.Generator) -> None:
        """``building="per_position"``: the decision on the current base position is made; on to the next."""
        state.building_position += 1
        if state.building_position == self.base_size:
            state.building_position = 0
            self._end_building(state, seat, rng)

    def _end_building(self, state: AnimalChainState, seat: int, rng: np.random.Generator) -> None:
        """``seat`` has built its base: player 1 builds next, or the bases are revealed."""
        if seat == 0:
            state.to_move = 1
        else:
            self._reveal_bases(state, rng)

    def _reveal_bases(self, state: AnimalChainState, rng: np.random.Generator) -> None:
        for p in self.base_positions[0] + self.base_positions[1]:
            state.face_down[p] = 0
            _set_top(self, state, p, state.stacks[p][0])
        # [decision] chance picks the first player; the second draws one extra card
        first = int(rng.integers(2))
        state.first_player = first
        drawn = state.deck.pop()
        state.hands[1 - first][drawn] += 1
        state.hand_sizes[1 - first] += 1
        state.phase = PLAY
        state.to_move = first

    def _play(self, state: AnimalChainState, seat: int, card_type: int, p: int) -> None:
        hand = state.hands[seat]
        hand[card_type] -= 1
        stack = state.stacks[p]
        if state.face_down[p]:
            hand[stack[0]] += 1  # the face-down card goes to the player's hand
            state.face_down[p] = 0
            stack[0] = card_type
        else:
            stack.append(card_type)
            state.hand_sizes[seat] -= 1
        # covering a foundation cancels every double resting on it
        owners = state.double_owner
        for q in self.neighbour_positions[p]:
            if owners[q] != NO_SEAT and p in state.double_foundations[q]:
                self._set_double(state, q, NO_SEAT)
                state.double_foundations[q] = ()
        foundations = self.double_foundations_of(state, card_type, p)
        if foundations or owners[p] != NO_SEAT:
            self._set_double(state, p, seat if foundations else NO_SEAT)
        state.double_foundations[p] = foundations
        _set_top(self, state, p, card_type)
        state.passes_without_draw = 0
        if self.base_owner[p] == 1 - seat:
            state.winner = seat
            state.phase = OVER
        self._end_turn(state)

    def _end_turn(self, state: AnimalChainState) -> None:
        state.turn += 1
        if state.phase == PLAY:
            state.to_move = 1 - state.to_move

    # -------------------------------------------------------------- words
    def card_in_frame(self, seat: int, card_type: int) -> str:
        """Absolute ``card_type`` as ``seat`` sees it, e.g. ``"Dg|Ct"``."""
        return self.deck.type_label(self.type_in_frame[seat][card_type])

    def position_name(self, seat: int, p: int) -> str:
        """Absolute position ``p`` named in ``seat``'s frame, e.g. ``"r3c2"`` (row 3, card 2 from the left)."""
        return self.position_names[self.to_frame(seat, p)]

    def action_to_string(self, state, action: int) -> str:
        """The action in words, in the frame of the player to move (player 0's when the game is over)."""
        action = int(action)
        if not 0 <= action < self.num_actions:
            return f"action {action} (out of range)"
        seat = state.to_move if state.phase != OVER else 0
        kind, t, where = self.decode(seat, action)
        if kind == "swap":
            return f"swap hand card {self.card_in_frame(seat, t)} with own base card r0c{where}"
        if kind == "done":
            if self.per_position:
                return f"keep own base card r0c{state.building_position}" if state.phase == BUILD else "keep the base card"
            return "done building the base"
        if kind == "play":
            return f"play {self.card_in_frame(seat, t)} onto {self.position_name(seat, where)}"
        if kind == "pass":
            if state.deck:
                return "pass and draw from the deck"
            if 1 in state.face_down:
                return "pass and draw (but the deck is empty: take a face-down card instead)"
            return "pass without drawing (no deck and no face-down card left)"
        return f"pass and take the face-down card at {self.position_name(seat, where)}"

    def winning_note(self, state, action: int) -> str:
        """``"wins at once"`` for a play onto the opponent's base row (the board shape is public)."""
        if state.phase != PLAY:
            return ""
        kind, _, where = self.decode(state.to_move, int(action))
        return "wins at once" if kind == "play" and self.base_owner[where] == 1 - state.to_move else ""

    def code_legend(self) -> str:
        """The animal labels, e.g. ``"animals: Dg dog, Ct cat, ...; a card Dg|Ct shows a dog on its left ..."``."""
        deck = self.deck
        animals = ", ".join(f"{label} {name}" for label, name in zip(deck.labels, deck.animals))
        left, right = deck.card_types[0]
        return (f"animals: {animals}; a card {deck.type_label(0)} shows a {deck.animals[left]} on its left "
                f"and a {deck.animals[right]} on its right")

    def public_action_string(self, before, action: int, after, viewer: int | None) -> str:
        """The move in ``viewer``'s words, in its own frame (:mod:`~kakurega.envs.animal_chain.moves`).

        E.g. ``"player_1 plays Fx|Pg onto r4c2; the card lands on the base row of you: player_1 wins"``.
        """
        from kakurega.envs.animal_chain.moves import public_action_string

        return public_action_string(self, before, action, after, viewer)

    def illegal_reason(self, state, action: int) -> str:
        """Why ``action`` is illegal, in the words of the rules."""
        action = int(action)
        if state.phase == OVER or self.is_truncated(state):
            return "the game is over"
        seat = state.to_move
        kind, t, where = self.decode(seat, action)
        hand = state.hands[seat]
        if state.phase == BUILD:
            if kind not in ("swap", "done"):
                return "players are still building their bases: only swaps and 'done' are allowed"
            if kind == "swap" and self.per_position:
                j = state.building_position
                if where != j:
                    return f"base building decides own base card r0c{j} now: swap a hand card with it, or keep it"
                if not hand[t]:
                    return f"there is no {self.card_in_frame(seat, t)} in your hand"
                return "the base card is the same card: keep it instead"
            if kind == "swap":
                if state.swaps_used >= self.max_swaps:
                    return f"the {self.max_swaps} swaps of base building are used up; say done"
                if not hand[t]:
                    return f"there is no {self.card_in_frame(seat, t)} in your hand"
                return "the base card is the same card: the swap would change nothing"
            return super().illegal_reason(state, action)
        if kind in ("swap", "done"):
            return "base building is over"
        if kind == "play":
            if not hand[t]:
                return f"there is no {self.card_in_frame(seat, t)} in your hand"
            if not state.stacks[where]:
                return f"{self.position_name(seat, where)} is a hole: no card can be played there"
            if state.double_owner[where] == 1 - seat:
                return f"{self.position_name(seat, where)} is your opponent's double"
            connections = self.connections(state, t, where)
            if self.chain_rule:
                linked = state.linked[seat]
                connections = [(q, a) for q, a in connections if linked >> q & 1]
                if not connections and self.connections(state, t, where):
                    return (
                        f"{self.card_in_frame(seat, t)} connects at {self.position_name(seat, where)} only to cards "
                        "that are not linked to your base: under the chain rule a played card must connect to a "
                        "face-up card linked to your own base row through face-up connected cards"
                    )
            if self.reach_rule and self.base_owner[where] == 1 - seat and connections:
                if self.chain_rule and any(self.base_owner[q] != 1 - seat for q, _ in self.connections(state, t, where)):
                    # it does connect outside the attacked row, but only to cards no chain of the mover reaches
                    return (
                        f"{self.card_in_frame(seat, t)} connects at {self.position_name(seat, where)} to linked "
                        "cards only in your opponent's base row, and outside that row only to cards that are not "
                        "linked to your base: under attack_rule='reach' a play onto the opponent's base must connect "
                        "to a face-up card outside that row, and under the chain rule that card must be linked to "
                        "your own base row"
                    )
                return (
                    f"{self.card_in_frame(seat, t)} connects at {self.position_name(seat, where)} only to cards of "
                    "your opponent's base row: under attack_rule='reach' a play onto the opponent's base must "
                    "connect to a face-up card outside that row"
                )
            return f"{self.card_in_frame(seat, t)} connects to no face-up neighbour at {self.position_name(seat, where)}"
        if kind == "pass":
            return "the deck is empty: pass by taking a face-down card from the board"
        if state.deck:
            return "the deck is not empty: a pass draws from the deck"
        return f"{self.position_name(seat, where)} holds no face-down card"

    # ------------------------------------------------------------- hidden info
    def resample_hidden(self, state: AnimalChainState, player: int, rng: np.random.Generator) -> AnimalChainState:
        """Re-deal the deck order, face-down board cards and opponent's hand (and its unrevealed base).

        The cards ``player`` has not seen are pooled (sorted, so that only
        their multiset matters), shuffled with ``rng`` and dealt back into the
        same slots. During base building the opponent's swap count is hidden
        too and is reset to 0 (``building="free"``; under ``"per_position"``
        the base position being decided is public, like the turn order). Every
        other field is public or known to ``player``, the derived caches
        (``tops``, ``links``, ``blocked``, ``hand_sizes``, ``linked``) derive
        from public facts, so the result depends only on what ``player`` knows and on ``rng``.
        """
        out = self.clone(state)
        opponent = 1 - player
        known_base = self.base_positions[player] if state.phase == BUILD else ()
        hidden_positions = [p for p in range(self.num_positions) if state.face_down[p] and p not in known_base]
        pool = list(state.deck)
        pool.extend(state.stacks[p][0] for p in hidden_positions)
        for t, count in enumerate(state.hands[opponent]):
            pool.extend([t] * count)
        pool.sort()
        shuffled = [pool[i] for i in rng.permutation(len(pool))]
        n_deck = len(state.deck)
        out.deck = shuffled[:n_deck]
        for k, p in enumerate(hidden_positions):
            out.stacks[p] = [shuffled[n_deck + k]]
        hand = [0] * self.num_types
        for t in shuffled[n_deck + len(hidden_positions) :]:
            hand[t] += 1
        out.hands[opponent] = hand
        if state.phase == BUILD and state.to_move == opponent:
            out.swaps_used = 0  # "free" building: how many swaps the opponent made is hidden
        return out


# ------------------------------------------------------ typed helpers
# The hottest parts of ``AnimalChainGame``, written as module-level functions
# rather than methods so that a compiled build can give their locals C types
# (rules.pxd; setup.py). The methods call them with the game as first argument.


def _set_top(game: AnimalChainGame, state: AnimalChainState, p: int, top: int) -> None:
    """``p`` shows a new ``top`` (a play, a revealed base card, a hole): update the caches."""
    tops = state.tops
    old, tops[p] = tops[p], top
    bit = 1 << p
    if game.chain_rule:
        _update_chains(game, state, p, bit)
        return
    links = state.links
    if old < 0:  # a face-down card connected to nothing: the neighbours only gain (the common case)
        for bits, index, seats, _ in game.out_links[p]:
            new = index[top]
            if new >= 0:
                for seat in seats:
                    links[seat][new] |= bits[seat]
        return
    for bits, index, seats, sources in game.out_links[p]:
        new, gone = index[top], index[old]
        if new == gone:
            continue
        for seat in seats:
            if new >= 0:
                links[seat][new] |= bits[seat]
            if gone >= 0:  # a card covered: its animal is lost unless another neighbour shows it
                for r in sources[seat]:
                    if index[tops[r]] == gone:
                        break
                else:
                    links[seat][gone] &= ~bits[seat]


def _build_flags(game: AnimalChainGame, state: AnimalChainState) -> bytes:
    """``legal_flags`` while building: swaps of the types in hand, "done"."""
    seat = state.to_move
    if game.per_position:  # swaps with the base card being decided, or keep it ("done")
        j = state.building_position
        kept = state.stacks[game.own_base_in_frame[seat][j]][0]
        hand, swap_ids = state.hands[seat], game.swap_ids[seat]
        flags = bytearray(game.done_flags)
        for t in range(game.num_types):
            if hand[t] and t != kept:
                flags[swap_ids[t][j]] = 1
        return bytes(flags)
    if state.swaps_used >= game.max_swaps:
        return game.done_flags
    flags = bytearray(game.done_flags)
    swaps = memoryview(flags)  # slice writes through a memoryview are 3x cheaper than into the bytearray
    hand, swap_slice, all_bases = state.hands[seat], game.swap_slice[seat], game.all_bases
    for t in range(game.num_types):
        if hand[t]:
            swaps[swap_slice[t]] = all_bases  # a type in hand swaps with any base card...
    stacks, swap_ids = state.stacks, game.swap_ids[seat]
    for j, p in enumerate(game.own_base_in_frame[seat]):
        flags[swap_ids[stacks[p][0]][j]] = 0  # ... but its twin (the swap would change nothing)
    return bytes(flags)


def _play_flags(game: AnimalChainGame, state: AnimalChainState) -> bytes:
    """``legal_flags`` while playing: plays that connect, and the pass or the takes."""
    seat = state.to_move
    P = game.num_positions
    if state.deck or 1 not in state.face_down:
        flags = bytearray(game.pass_flags)
    else:
        flags = bytearray(game.no_flags)
        # the takes: the face-down flags (0 or 1) in the seat's frame (player 1's runs backwards)
        take = game.take_base
        flags[take : take + P] = bytes(state.face_down if seat == 0 else state.face_down[::-1])
    links = state.links[seat]  # the attack rule is in the links already
    playable = game.all_positions ^ state.blocked[seat]
    play_id, type_links, offsets = game.play_id[seat], game.type_links, game.bits_of_byte
    hand = state.hands[seat]
    for t in range(game.num_types):
        if not hand[t]:
            continue
        left, right = type_links[t]
        left_mask, right_mask = links[left], links[right]  # C integers in the compiled build (rules.pxd)
        mask = (left_mask | right_mask) & playable
        first = play_id[t]
        k = 0
        while mask:  # the positions, read a byte at a time (as in ``_legal_plays``), up to the last one
            byte = mask & 255
            if byte:
                for p in offsets[k][byte]:
                    flags[first + p] = 1
            mask >>= 8
            k += 1
    return bytes(flags)


# ------------------------------------------------------ the chain rule
# ``state.linked[seat]`` (absolute positions) and, derived from it, ``state.links[seat]`` (the
# plays that connect to a linked card, as the rules' legal plays read them). Kept in step with
# every new top: a new top on a position nobody's chain ran through only adds to the chains
# (grown from it); a new top on a linked position may cut a chain, and that seat's chain is
# recomputed from its base row.


def _linked_positions(game: AnimalChainGame, tops: list, sources) -> list:
    """The positions linked to the face-up ``sources`` through face-up connected tops, in the order reached."""
    # one flag per position rather than a position mask: masks of over 30 bits are slow Python
    # integers, flags are C bytes in the compiled build
    reached = bytearray(game.num_positions)
    linked = []
    for source in sources:
        if tops[source] >= 0:
            reached[source] = 1
            linked.append(source)
    chain_steps = game.chain_steps
    k = 0
    while k < len(linked):  # ``linked`` is the frontier too: positions from ``k`` on are not expanded yet
        q = linked[k]
        k += 1
        top = tops[q]
        for p, _, mine, theirs in chain_steps[q]:
            there = tops[p]
            if not reached[p] and mine[top] == theirs[there]:
                reached[p] = 1
                linked.append(p)
    return linked


def _positions_mask(game: AnimalChainGame, positions: list) -> int:
    """The bitmask of absolute ``positions``."""
    mask = 0
    for p in positions:
        mask |= game.position_bit[p]
    return mask


def _linked_mask(game: AnimalChainGame, tops: list, sources) -> int:
    """The positions (bitmask) linked to the face-up ``sources`` through face-up connected tops."""
    return _positions_mask(game, _linked_positions(game, tops, sources))


def _chain_links(game: AnimalChainGame, state: AnimalChainState, seat: int, positions: list) -> None:
    """Add to ``state.links[seat]`` the plays connecting to the linked cards at ``positions``."""
    links, tops, contributions = state.links[seat], state.tops, game.chain_contributions[seat]
    for q in positions:
        for i, bits in contributions[q][tops[q]]:  # the attack rule is in the table already
            links[i] |= bits


def _rebuild_chain(game: AnimalChainGame, state: AnimalChainState, seat: int) -> None:
    """Recompute ``state.linked[seat]`` from the seat's base row, and ``state.links[seat]`` from it."""
    positions, _ = game.base_sources[seat]
    linked = _linked_positions(game, state.tops, positions)
    state.linked[seat] = _positions_mask(game, linked)
    state.links[seat] = [0] * (2 * game.num_animals)
    _chain_links(game, state, seat, linked)


def _update_chains(game: AnimalChainGame, state: AnimalChainState, p: int, bit: int) -> None:
    """``p`` shows a new top: update both seats' ``linked`` and ``links`` (the chain rule)."""
    tops = state.tops
    top = tops[p]
    for seat in (0, 1):
        linked = state.linked[seat]
        if linked & bit:  # the covered card may have carried the chain further
            _rebuild_chain(game, state, seat)
            continue
        if top < 0:  # a hole (a face-down card was taken): nothing was linked there
            continue
        joins = bit & game.base_sources[seat][1]  # a base card of the seat's own row (revealed)
        if not joins:
            for q, _, mine, theirs in game.chain_steps[p]:
                if linked >> q & 1 and mine[top] == theirs[tops[q]]:
                    joins = 1
                    break
        if joins:  # grow the chain from p: p and every unlinked face-up card it reaches
            grown = linked | bit
            added = [p]  # the frontier too: positions from ``k`` on are not expanded yet
            k = 0
            while k < len(added):
                q = added[k]
                k += 1
                shown = tops[q]
                for r, r_bit, mine, theirs in game.chain_steps[q]:
                    if not grown & r_bit and mine[shown] == theirs[tops[r]]:
                        grown |= r_bit
                        added.append(r)
            state.linked[seat] = grown
            _chain_links(game, state, seat, added)
