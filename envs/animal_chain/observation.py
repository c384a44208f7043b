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
        # The comparisons and writes are plain loops over positions and types:
        # compiled (observation.pxd), each is a few C operations.
        at = L.index  # every offset by piece name
        self.hole_at, self.face_down_at = at("hole", 0), at("face_down", 0)
        self.left_at, self.right_at = at("left_animal", 0, 0), at("right_animal", 0, 0)
        self.my_double_at, self.opponent_double_at = at("my_double", 0), at("opponent_double", 0)
        self.height_at = at("stack_height", 0)
        self.my_hand_size_at, self.opponent_hand_size_at = at("hand_sizes", 0), at("hand_sizes", 1)
        self.deck_size_at = at("deck_size", 0)
        self.building_phase_at, self.play_phase_at, self.over_phase_at = (at("phase", k) for k in (BUILD, PLAY, OVER))
        self.my_turn_at, self.seat_0_at, self.seat_1_at = at("my_turn", 0), at("seat", 0), at("seat", 1)
        #: the first entry of ``base_position`` (one per base position) or ``swaps_left``
        self.building_at = at(building_piece, 0)
        self.passes_at, self.turn_at = at("passes_without_draw", 0), at("turn", 0)
        self.per_position, self.base_size = game.per_position, B
        # game constants the encoder reads on every call
        self.num_positions, self.num_types, self.num_animals, self.num_cards = P, T, A, total
        self.max_turns, self.max_swaps = game.max_turns, game.max_swaps
        #: per seat, its own base positions (absolute): it knows their face-down cards while building
        self.own_base = tuple(list(game.base_positions[seat]) for seat in (0, 1))
        #: ``frame_position[seat][p]``: absolute position ``p`` in ``seat``'s frame
        self.frame_position = tuple(list(game.position_in_frame[seat]) for seat in (0, 1))
        #: ``hand_slot[seat][t]``: offset of the count of absolute type ``t`` in ``seat``'s vector
        self.hand_slot = tuple([at("hand", game.type_in_frame[seat][t]) for t in range(T)] for seat in (0, 1))
        #: ``left_shown[seat][top]`` / ``right_shown``: the animal a position showing ``top`` (absolute
        #: type, FACE_DOWN or HOLE: the last two entries, so that ``[top]`` indexes them) shows on the
        #: observer's left / right, -1 for none
        self.left_shown = tuple([game.left_animal[game.type_in_frame[seat][t]] for t in range(T)] + [-1, -1] for seat in (0, 1))
        self.right_shown = tuple([game.right_animal[game.type_in_frame[seat][t]] for t in range(T)] + [-1, -1] for seat in (0, 1))
        #: the picture of a fresh board: every position one face-down card, empty hands
        fresh = np.zeros(L.size, np.float32)
        L.view(fresh, "face_down")[:] = 1
        L.view(fresh, "stack_height")[:] = 1
        self.fresh = array("f", fresh.tolist())
        self.forget()

    def forget(self) -> None:
        """Drop the pictures: the next observation of each seat is drawn from a fresh board."""
        P = self.num_positions
        #: per seat, its last picture, the hand counts it shows (by absolute type) and its phase
        self.shown = [[self.fresh[:], [0] * self.num_types, PLAY] for _ in (0, 1)]
        #: the board the pictures show, by absolute position ``p`` at ``seat * P + p`` (compiled:
        #: C arrays, read and written in C): tops, double owners, stack heights, and ``drawn``,
        #: the top whose animals the picture shows (the known card of an own face-down base
        #: card while building)
        self.shown_tops = array("q", [FACE_DOWN] * (2 * P))
        self.shown_owners = array("q", [NO_SEAT] * (2 * P))
        self.shown_heights = array("q", [1] * (2 * P))
        self.shown_drawn = array("q", [FACE_DOWN] * (2 * P))

    def __reduce__(self):
        # rebuilt from the game: the pictures (each shows a seat's hand) are not copied
        return AnimalChainObserver, (self.game,)

    def encode(self, state, seat: int) -> np.ndarray:
        """Observation vector of ``seat`` in ``state``."""
        shown = self.shown[seat]
        picture, last_hand = shown[0], shown[1]
        view = picture  # (compiled: a typed float32 view of the picture, so that every write is a C store)
        P = self.num_positions
        at = seat * P  # this seat's board facts in shown_tops, shown_owners, shown_heights and shown_drawn
        shown_tops, shown_owners, shown_heights = self.shown_tops, self.shown_owners, self.shown_heights
        # the hand counts that differ from the picture
        hand, hand_slot = state.hands[seat], self.hand_slot[seat]
        if hand != last_hand:  # (one C comparison of two lists when nothing changed)
            for t in range(self.num_types):
                count, last = hand[t], last_hand[t]
                if count != last:
                    view[hand_slot[t]] = count
                    last_hand[t] = count
        # the positions whose top, double owner or height differs from the picture (a stack also
        # grows where a card covers a face-up card of its own type, the top staying). Every
        # position is compared: the state need not follow the last one observed (a search, a
        # game tree and the OpenSpiel bridge encode sibling states in turn), so no change between
        # the two can be inferred from the other. (Compiled, each fact is read into a C local
        # and compared in C.)
        tops, stacks, owners = state.tops, state.stacks, state.double_owner
        redraw = []
        for p in range(P):
            top = tops[p]
            if top != shown_tops[at + p]:
                redraw.append(p)
                continue
            owner = owners[p]
            if owner != shown_owners[at + p]:
                redraw.append(p)
                continue
            stack = stacks[p]
            if len(stack) != shown_heights[at + p]:
                redraw.append(p)
        phase = state.phase
        building = phase == BUILD
        own_base = self.own_base[seat]
        if building or shown[2] == BUILD:  # the own base shows the cards only its builder knows
            redraw += own_base
        shown[2] = phase
        frame_position, left_shown, right_shown = self.frame_position[seat], self.left_shown[seat], self.right_shown[seat]
        A = self.num_animals
        for p in redraw:
            i = frame_position[p]
            top = tops[p]
            owner = owners[p]
            height = len(stacks[p])
            shown_tops[at + p], shown_owners[at + p], shown_heights[at + p] = top, owner, height
            view[self.hole_at + i] = top == HOLE
            if building and p in own_base:  # a face-down card the observer knows
                view[self.face_down_at + i] = 1
                top = stacks[p][0]
            else:
                view[self.face_down_at + i] = top == FACE_DOWN
            left_at, right_at = self.left_at + A * i, self.right_at + A * i
            drawn = self.shown_drawn[at + p]
            if left_shown[drawn] >= 0:  # clear the animals the picture shows there
                view[left_at + left_shown[drawn]] = 0
                view[right_at + right_shown[drawn]] = 0
            if left_shown[top] >= 0:
                view[left_at + left_shown[top]] = 1
                view[right_at + right_shown[top]] = 1
            self.shown_drawn[at + p] = top
            view[self.my_double_at + i] = owner == seat
            view[self.opponent_double_at + i] = owner == 1 - seat
            view[self.height_at + i] = height
        to_move = state.to_move
        hand_sizes = state.hand_sizes
        view[self.my_hand_size_at] = hand_sizes[seat]
        view[self.opponent_hand_size_at] = hand_sizes[1 - seat]
        view[self.deck_size_at] = len(state.deck)
        view[self.building_phase_at] = phase == BUILD
        view[self.play_phase_at] = phase == PLAY
        view[self.over_phase_at] = phase == OVER
        # my_turn: game.current_player(state) == seat, without the call
        view[self.my_turn_at] = to_move == seat and (phase == BUILD or (phase == PLAY and state.turn < self.max_turns))
        view[self.seat_0_at] = 1 - seat
        view[self.seat_1_at] = seat
        if self.per_position:  # base_position (one-hot)
            for j in range(self.base_size):
                view[self.building_at + j] = 0
            if phase == BUILD and to_move == seat:
                view[self.building_at + state.building_position] = 1
        else:  # swaps_left
            view[self.building_at] = self.max_swaps - state.swaps_used if phase == BUILD and to_move == seat else 0
        view[self.passes_at] = state.passes_without_draw
        view[self.turn_at] = state.turn
        return np.frombuffer(picture.tobytes(), FLOAT32)
