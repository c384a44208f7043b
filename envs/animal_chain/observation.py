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
from functools import partial

import numpy as np

from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, AnimalChainGame
from kakurega.envs.core.layout import ObservationLayout


# dtypes passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)


class AnimalChainObserver:
    """Layout and encoder for one game configuration (picklable plain object)."""

    def __init__(self, game: AnimalChainGame):
        self.game = game
        P, A, T = game.num_positions, game.num_animals, game.num_types
        total = game.deck.num_cards
        self.layout = ObservationLayout(
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
                ("swaps_left", (1,), "base swaps the observer may still make while building (0 otherwise)", game.max_swaps),
                ("passes_without_draw", (1,), "passes without a draw in a row: after 1 another one ends the game, 2 = drawn game", 2),
                ("turn", (1,), "play-phase turns taken; the game is truncated at the turn limit", game.max_turns),
            ]
        )
        L = self.layout
        # Every position is drawn from a small set of appearances, so the board
        # part of the vector is one table lookup: row ``owner * K + code`` of
        # ``tables[seat]`` holds the position's hole, face_down, left_animal,
        # right_animal, my_double and opponent_double entries, and
        # ``board_index`` says where in the vector those entries go.
        # code: 0 hole, 1 face down, 2 + t face-up type t, 2 + T + t face down
        # but known to the observer (own base during base building).
        self.num_codes = K = 2 + 2 * T
        F = 4 + 2 * A
        self.board_index = np.empty((P, F), dtype=np.int64)
        for i in range(P):
            self.board_index[i] = (
                [L.pieces["hole"].start + i, L.pieces["face_down"].start + i]
                + [L.pieces["left_animal"].start + i * A + a for a in range(A)]
                + [L.pieces["right_animal"].start + i * A + a for a in range(A)]
                + [L.pieces["my_double"].start + i, L.pieces["opponent_double"].start + i]
            )
        self.board_index = self.board_index.ravel()
        self.tables = []
        for seat in (0, 1):
            table = np.zeros((3 * K, F), dtype=np.float32)
            for owner in range(3):  # 0 none, 1 observer's double, 2 opponent's double
                rows = table[owner * K : (owner + 1) * K]
                rows[0, 0] = 1.0
                rows[1, 1] = 1.0
                for t in range(T):
                    seen = game.type_in_frame[seat][t]
                    left, right = game.left_animal[seen], game.right_animal[seen]
                    for code in (2 + t, 2 + T + t):
                        rows[code, 2 + left] = 1.0
                        rows[code, 2 + A + right] = 1.0
                    rows[2 + T + t, 1] = 1.0
                if owner:
                    rows[:, 2 + 2 * A + owner - 1] = 1.0
            self.tables.append(table)
        #: owner offset in the table (indexed by double_owner + 1), per observing seat
        self.owner_offset = ((0, K, 2 * K), (0, 2 * K, K))
        # The board part is one gather of table rows plus one fixed reordering
        # (board_order, the inverse of board_index) into the piece-major
        # layout, so encode() only builds the row code of every position.
        self.values_start = L.pieces["stack_height"].start
        self.board_order = np.argsort(self.board_index)
        assert np.array_equal(self.board_index[self.board_order], np.arange(self.values_start)), "the board pieces come first"
        # Row codes and the integer pieces travel to numpy as bytes when they
        # fit in a byte (the default deck's and turn limit's do).
        small = 3 * K <= 256
        self.pack_codes = bytes if small else partial(array, "H")
        self.code_dtype = np.dtype(np.uint8 if small else np.uint16)
        small = max(total, game.max_turns, game.max_swaps) < 256
        self.pack_values = bytes if small else partial(array, "f")
        self.value_dtype = np.dtype(np.uint8 if small else np.float32)
        tail = list(L.pieces)[list(L.pieces).index("stack_height") :]
        assert tail == ["stack_height", "hand", "hand_sizes", "deck_size", "phase", "my_turn", "seat",
                        "swaps_left", "passes_without_draw", "turn"], tail
        self.phase_one_hot = [[1 if phase == p else 0 for p in range(3)] for phase in range(3)]

    def encode(self, state, seat: int) -> np.ndarray:
        """Observation vector of ``seat`` in ``state``."""
        game = self.game
        # Row codes in the observer's frame (player 1 sees the board turned
        # half round): tops + 2 is 0 for a hole, 1 face down, 2 + t face-up t.
        tops, stacks = state.tops, state.stacks
        if seat:
            tops, stacks = tops[::-1], stacks[::-1]
        codes = [top + 2 for top in tops]
        if state.double_owner.count(NO_SEAT) < len(codes):  # doubles move the code to the owner's block
            owners = state.double_owner[::-1] if seat else state.double_owner
            offset = self.owner_offset[seat]
            for q, owner in enumerate(owners):
                if codes[q]:  # not a hole
                    codes[q] += offset[owner + 1]
        if state.phase == BUILD:  # the observer knows its own face-down base cards
            known = 2 + game.num_types
            for p in game.base_positions[seat]:
                codes[game.position_in_frame[seat][p]] = known + state.stacks[p][0]
        obs = np.empty(self.layout.size, FLOAT32)
        rows = self.tables[seat].take(np.frombuffer(self.pack_codes(codes), self.code_dtype), axis=0)
        rows.ravel().take(self.board_order, out=obs[: self.values_start])
        hand = state.hands[seat]
        values = list(map(len, stacks))
        values += hand if not seat else [hand[t] for t in game.reverse_type]
        values += (sum(hand), sum(state.hands[1 - seat]), len(state.deck))
        values += self.phase_one_hot[state.phase]
        values += (
            1 if game.current_player(state) == seat else 0,
            1 - seat,
            seat,
            game.max_swaps - state.swaps_used if state.phase == BUILD and state.to_move == seat else 0,
            state.passes_without_draw,
            state.turn,
        )
        obs[self.values_start :] = np.frombuffer(self.pack_values(values), self.value_dtype)
        return obs
