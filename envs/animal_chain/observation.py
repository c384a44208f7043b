"""Animal Chain observation: what one player may know, in that player's own frame.

The board is encoded as the observing player sees it from its side of the
table (see :mod:`~kakurega.envs.animal_chain.rules`): position ``p`` of player
1's observation is absolute position ``P - 1 - p``, row 0 is always the
observer's own base row and the last row the opponent's, and every card shows
its animals swapped for player 1 (``left`` means the observer's left). Hand
counts use the card types of the observer's frame, exactly like the actions.
"""

from __future__ import annotations

from array import array
from itertools import compress
from operator import ne

import numpy as np

from kakurega.envs.animal_chain.rules import BUILD, FACE_DOWN, HOLE, NO_SEAT, OVER, PLAY, AnimalChainGame
from kakurega.envs.core.layout import ObservationLayout

# dtypes passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)


def make_layout(game: AnimalChainGame) -> ObservationLayout:
    """The observation layout of ``game``'s configuration (sizes depend on the board and the deck)."""
    P, A, T = game.num_positions, game.num_animals, game.num_types
    total = game.deck.num_cards
    B = game.base_size
    if game.per_position:
        building = ("base_position", (B,), "one-hot own base position (from the observer's left) the observer "
                    "decides on now: keep that base card or swap it (base building, the observer's turn; else 0)")
    else:
        building = ("swaps_left", (1,), "base swaps the observer may still make while building (0 otherwise)", game.max_swaps)
    return ObservationLayout(
        [
            ("hole", (P,), "1 where the position is a hole (its face-down card was taken by a pass)"),
            ("face_down", (P,), "1 where the position still holds its original card face down"),
            ("left_animal", (P, A), "one-hot animal on the observer's left half of the top card "
             "(face-up cards; during base building also the observer's own face-down base cards)"),
            ("right_animal", (P, A), "one-hot animal on the observer's right half of the top card (as left_animal)"),
            ("my_double", (P,), "1 where the top card is a double owned by the observer"),
            ("opponent_double", (P,), "1 where the top card is a double owned by the opponent (the observer may not play there)"),
            ("stack_height", (P,), "number of cards at the position (face-down card included)", total),
            ("hand", (T,), "cards of each type in the observer's hand (types of the observer's frame)", max(game.deck.copies)),
            ("hand_sizes", (2,), "cards in hand: [observer, opponent]", total),
            ("deck_size", (1,), "cards left in the deck", total),
            ("phase", (3,), "one-hot phase: [base building, playing, over]"),
            ("my_turn", (1,), "1 when the observer is to act"),
            ("seat", (2,), "one-hot seat of the observer: [player_0, player_1] (player 0 builds first)"),
            building,
            ("passes_without_draw", (1,), "passes without a draw in a row: after 1 another one ends the game, 2 = drawn game", 2),
            ("turn", (1,), "play-phase turns taken; the game is truncated at the turn limit", game.max_turns),
        ]
    )


class AnimalChainObserver:
    """Layout and encoder for one game configuration (picklable plain object)."""

    def __init__(self, game: AnimalChainGame):
        self.game = game
        self.layout = make_layout(game)
        P, A, T = game.num_positions, game.num_animals, game.num_types
        total = game.deck.num_cards
        B = game.base_size
        building_piece = list(self.layout.pieces)[-3]  # base_position or swaps_left
        L = self.layout
        # The observer keeps each seat's last picture (a float32 array) with the
        # facts it shows, and redraws only the positions and hand counts whose
        # facts differ in the state it encodes (a play changes one or two
        # positions and one or two hand counts); the scalars at the end are
        # rewritten every time. The copy handed out is the picture's bytes
        # viewed by numpy. The state knows nothing of this: the picture is a
        # function of the facts compared, so any state may be encoded next.
        self.hole_at, self.face_down_at = L.pieces["hole"].start, L.pieces["face_down"].start
        self.left_at, self.right_at = L.pieces["left_animal"].start, L.pieces["right_animal"].start
        self.my_double_at, self.opponent_double_at = L.pieces["my_double"].start, L.pieces["opponent_double"].start
        self.height_at, self.hand_at = L.pieces["stack_height"].start, L.pieces["hand"].start
        # the scalars after the hand, rewritten on every call (offsets by piece name)
        at = L.index
        self.my_hand_size_at, self.opponent_hand_size_at = at("hand_sizes", 0), at("hand_sizes", 1)
        self.deck_size_at = at("deck_size", 0)
        self.building_phase_at, self.play_phase_at, self.over_phase_at = (at("phase", k) for k in (BUILD, PLAY, OVER))
        self.my_turn_at, self.seat_0_at, self.seat_1_at = at("my_turn", 0), at("seat", 0), at("seat", 1)
        #: the first entry of ``base_position`` (one per base position) or ``swaps_left``
        self.building_at = at(building_piece, 0)
        self.passes_at, self.turn_at = at("passes_without_draw", 0), at("turn", 0)
        self.per_position, self.base_size = game.per_position, B
        # game constants the encoder reads on every call
        self.num_positions, self.num_types, self.num_cards = P, T, total
        self.max_turns, self.max_swaps = game.max_turns, game.max_swaps
        #: per seat, its own base positions (absolute): it knows their face-down cards while building
        self.own_base = tuple(list(game.base_positions[seat]) for seat in (0, 1))
        #: the picture of a fresh board: every position one face-down card, empty hands
        fresh = np.zeros(L.size, np.float32)
        L.view(fresh, "face_down")[:] = 1
        L.view(fresh, "stack_height")[:] = 1
        self.fresh = array("f", fresh.tolist())
        self.forget()
        # the float32 arrays the redraw copies from, one object per distinct value (read only)
        packed = {}

        def pack(values) -> array:
            return packed.setdefault(tuple(values), array("f", values))

        #: ``hand_slots[seat][t]``: index of the count of absolute type ``t`` in ``seat``'s vector
        self.hand_slots = tuple([self.hand_at + game.type_in_frame[seat][t] for t in range(T)] for seat in (0, 1))

        # A position's entries lie in five places: hole and face_down (P apart), its
        # left_animal and right_animal one-hots, and my_double, opponent_double and
        # stack_height (consecutive pieces, so P apart too). ``slots[seat][p]`` holds the
        # four slices of absolute position ``p`` in ``seat``'s vector.
        for first, second in (("hole", "face_down"), ("my_double", "opponent_double"), ("opponent_double", "stack_height")):
            assert L.pieces[second].start == L.pieces[first].start + P, (first, second)
        self.slots = []
        for seat in (0, 1):
            slots = []
            for p in range(P):
                i = game.position_in_frame[seat][p]
                slots.append((
                    slice(self.hole_at + i, self.face_down_at + i + 1, P),
                    slice(self.left_at + A * i, self.left_at + A * (i + 1)),
                    slice(self.right_at + A * i, self.right_at + A * (i + 1)),
                    slice(self.my_double_at + i, self.height_at + i + 1, P),
                ))
            self.slots.append(slots)
        # ``looks[seat][top]``: (hole + face_down, left_animal, right_animal) entries of a
        # position showing ``top`` (absolute type, FACE_DOWN or HOLE) in ``seat``'s frame;
        # ``known_looks[seat][t]``: the same for a face-down card of type ``t`` the observer
        # knows (its own base during base building).
        nothing = pack([0] * A)
        self.looks, self.known_looks = [], []
        for seat in (0, 1):
            looks = {HOLE: (pack((1, 0)), nothing, nothing), FACE_DOWN: (pack((0, 1)), nothing, nothing)}
            known_looks = {}
            for t in range(T):
                seen = game.type_in_frame[seat][t]
                left, right = [0] * A, [0] * A
                left[game.left_animal[seen]] = right[game.right_animal[seen]] = 1
                looks[t] = (pack((0, 0)), pack(left), pack(right))
                known_looks[t] = (pack((0, 1)), pack(left), pack(right))
            self.looks.append(looks)
            self.known_looks.append(known_looks)
        #: ``stacked[seat][owner][height]``: (my_double, opponent_double, stack_height) entries of a
        #: position of that double ``owner`` and stack height
        self.stacked = tuple(
            {owner: [pack((owner == seat, owner == 1 - seat, height)) for height in range(total + 1)]
             for owner in (NO_SEAT, 0, 1)}
            for seat in (0, 1)
        )
        #: what the redraw needs, per seat, in one lookup
        self.tables = tuple(
            (self.hand_slots[seat], self.slots[seat], self.looks[seat], self.known_looks[seat], self.stacked[seat], self.own_base[seat])
            for seat in (0, 1)
        )

    def forget(self) -> None:
        """Drop the pictures: the next observation of each seat is drawn from a fresh board."""
        P = self.num_positions
        #: per seat, its last picture and the facts it shows: ``[picture, tops, heights, double
        #: owners, hand, phase, cards on the board]`` (by absolute position and absolute type)
        self.shown = [[self.fresh[:], [FACE_DOWN] * P, [1] * P, [NO_SEAT] * P, [0] * self.num_types, PLAY, P]
                      for _ in (0, 1)]

    def __reduce__(self):
        # rebuilt from the game: the pictures (each shows a seat's hand) are not copied
        return AnimalChainObserver, (self.game,)

    def encode(self, state, seat: int) -> np.ndarray:
        """Observation vector of ``seat`` in ``state``."""
        shown = self.shown[seat]
        picture, last_tops, last_heights, last_owners, last_hand, last_phase, last_board = shown
        hand_slots, slots, looks, known_looks, stacked, own_base = self.tables[seat]
        # redraw what differs from the picture (inlined: a method call costs as much as a position)
        hand = state.hands[seat]
        if hand != last_hand:
            for t in compress(range(self.num_types), map(ne, hand, last_hand)):
                slot = hand_slots[t]
                picture[slot] = hand[t]
            shown[4] = hand[:]
        tops, stacks, owners = state.tops, state.stacks, state.double_owner
        redraw = set()
        if tops != last_tops:
            redraw.update(compress(range(self.num_positions), map(ne, tops, last_tops)))
            shown[1] = tops[:]
        # A stack grows or shrinks where its top changed, and where a card covers a face-up card
        # of its own type (the top stays). The sum of the heights is the number of cards on the
        # board, and no height falls where the top stays (only a take removes a card, leaving a
        # hole): so when the positions whose top changed account for the change of that number,
        # no other height changed, and the stacks need not be read one by one.
        board = self.num_cards - len(state.deck) - state.hand_sizes[0] - state.hand_sizes[1]
        rise = 0
        for p in redraw:
            rise += len(stacks[p]) - last_heights[p]
        if rise != board - last_board:
            heights = list(map(len, stacks))
            redraw.update(compress(range(self.num_positions), map(ne, heights, last_heights)))
            shown[2] = last_heights = heights
        else:
            for p in redraw:
                last_heights[p] = len(stacks[p])
        shown[6] = board
        if owners != last_owners:
            redraw.update(compress(range(self.num_positions), map(ne, owners, last_owners)))
            shown[3] = owners[:]
        phase = state.phase
        building = phase == BUILD
        if building or last_phase == BUILD:  # the own base shows the cards only its builder knows
            redraw.update(own_base)
        shown[5] = phase
        for p in redraw:
            shown_at, left, right, rest = slots[p]
            if building and p in own_base:
                picture[shown_at], picture[left], picture[right] = known_looks[stacks[p][0]]
            else:
                picture[shown_at], picture[left], picture[right] = looks[tops[p]]
            picture[rest] = stacked[owners[p]][last_heights[p]]
        to_move = state.to_move
        hand_sizes = state.hand_sizes
        picture[self.my_hand_size_at] = hand_sizes[seat]
        picture[self.opponent_hand_size_at] = hand_sizes[1 - seat]
        picture[self.deck_size_at] = len(state.deck)
        picture[self.building_phase_at] = phase == BUILD
        picture[self.play_phase_at] = phase == PLAY
        picture[self.over_phase_at] = phase == OVER
        # my_turn: game.current_player(state) == seat, without the call
        picture[self.my_turn_at] = to_move == seat and (phase == BUILD or (phase == PLAY and state.turn < self.max_turns))
        picture[self.seat_0_at] = 1 - seat
        picture[self.seat_1_at] = seat
        if self.per_position:  # base_position (one-hot)
            for j in range(self.base_size):
                picture[self.building_at + j] = 0
            if phase == BUILD and to_move == seat:
                picture[self.building_at + state.building_position] = 1
        else:  # swaps_left
            picture[self.building_at] = self.max_swaps - state.swaps_used if phase == BUILD and to_move == seat else 0
        picture[self.passes_at] = state.passes_without_draw
        picture[self.turn_at] = state.turn
        return np.frombuffer(picture.tobytes(), FLOAT32)
