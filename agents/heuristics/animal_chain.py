"""A rule-based Animal Chain player (every version and rules option).

It reads only its own observation (in its own frame: row 0 is its base row,
the last row its opponent's) and the static rules of the engine
(``context.new_rules()``, or the rules of a registry env built from
``context.env_name`` and ``context.env_kwargs``), including the options
``attack_rule``, ``connection_rule`` and ``building``.

* Base building: choose, among all arrangements of the 8 cards of hand and
  base, the least exposed base; ties keep the most varied hand. Under
  ``attack_rule="rules_page"`` the base cards are face-up neighbours of each
  other, so an opponent holding a card whose left animal equals a base
  card's right animal can play onto the card to its right and win: exposure
  counts the unseen cards that can do that. Under ``"reach"`` an attack
  needs a face-up card next to the base first: exposure counts the unseen
  cards that can be played onto the row next to the base by connecting to a
  base card. It walks towards that base with at most two swaps per base
  card, then says done.
* Playing: win at once when possible. Otherwise score every play and the
  pass: the chance that the opponent can then win at once (unseen cards that
  connect to an unprotected card of its own base) weighs most; then whether
  it could win next turn itself, how far the play advances towards the
  opponent's base, taking a face-down card and making a double. Pass (and
  draw) when no play scores better.

Under the chain rule (``connection_rule="chain"``, version 1) a play must
connect to a card linked to the mover's own base, so the game is a race:

* Base building (one keep-or-swap decision per base position): keep or take
  the base card that lets the most hand cards start a chain (be played next
  to the base by connecting to it), then the most varied hand.
* Playing: the opponent's threat and our own winning chance count only
  connections to cards linked to the attacker's base; the race term is how
  far our linked chain reaches up the board minus how far the opponent's
  reaches down it, so a play that advances our chain, covers (cuts) the
  opponent's chain or makes a double the opponent cannot cover scores well,
  and a play that joins the two chains (the opponent would then reach our
  base through our own cards) is weighed by the threat it opens.
"""

from __future__ import annotations

from array import array
from itertools import permutations
from math import perm
from typing import NamedTuple

import numpy as np

from kakurega.agents.base import Agent, AgentContext, legal_ids
from kakurega.agents.heuristics.animal_chain_plays import (
    PARTS,
    PlayTables,
    base_exposure,
    base_key,
    measure,
    read_position,
)
from kakurega.agents.heuristics.animal_chain_sure_wins import dominated, surely_holds
from kakurega.agents.move_features import legal_rows
from kakurega.envs.animal_chain.rules import AnimalChainGame

W_THREAT = 10.0  # chance the opponent wins at once next turn
W_OFFENCE = 3.0  # we could win next turn if the opponent does not block
W_ROW = 0.25  # per row advanced towards the opponent's base
W_TAKE = 1.0  # playing onto a face-down card takes it into the hand
W_DOUBLE = 1.0  # a double cannot be covered by the opponent
W_DRAW = 0.8  # a pass draws a card
W_RACE = 1.0  # chain rule: per row our linked chain reaches (minus the rows the opponent's reaches)
MAX_ARRANGEMENTS = 20_000  # base arrangements searched at most (the default board has 1680)


NO_LEGAL_ACTION = "AnimalChainHeuristic.act: the action mask has no legal action"


class Measurement(NamedTuple):
    """What every legal move of a play decision leads to (:func:`~kakurega.agents.heuristics.animal_chain_plays.measure`)."""

    wins_now: list  #: the plays that win at once (when there are some, nothing else is measured)
    actions: list  #: the measured moves: the plays in action order, then the pass and the takes
    num_plays: int  #: how many of ``actions`` are plays
    values: np.ndarray  #: one row per measured move, columns ``PARTS`` (float64)
    wins: list | None  #: per move, the card types that surely win for the opponent after it (asked for)
    unseen: object  #: the cards of each type the seat has not seen (a sequence of counts)
    held: int  #: the cards in the opponent's hand


#: the columns of :attr:`Measurement.values`
THREAT, OFFENCE, RACE, ROW, TAKE, DOUBLE, DRAW = (PARTS.index(name) for name in
                                                   ("threat", "offence", "race", "row", "take", "double", "draw"))
#: the weight of each column in a move's score, in the order of its terms
WEIGHTS = np.array([{"threat": -W_THREAT, "offence": W_OFFENCE, "race": W_RACE, "row": W_ROW, "take": W_TAKE,
                     "double": W_DOUBLE, "draw": W_DRAW}[name] for name in PARTS])


class AnimalChainHeuristic(Agent):
    """Win now; else keep the own base safe, push forward, take cards, make doubles."""

    def __init__(self, context: AgentContext, seed: int | None = None):
        super().__init__(context, seed)
        game = context.new_rules()
        if not isinstance(game, AnimalChainGame):  # the rules of the env's version and options
            from kakurega.envs.registry import make

            options = {k: v for k, v in context.env_kwargs.items() if k not in ("render_mode", "render_view")}
            game = make(context.env_name, wrapped=False, **options).game
        self.game = game
        P, B = game.num_positions, game.base_size
        self.own_base = list(range(B))  # row 0 of the own frame
        self.opponent_base = list(range(P - B, P))
        #: what the measurements of moves and bases read of the rules and the layout (animal_chain_plays)
        self._tables = PlayTables(game, self.own_base, self.opponent_base, context.layout)
        #: the copies of each type in the deck, per seat, in that seat's frame
        self._copies_in_frame = [array("q", [game.deck.copies[frame[t]] for t in range(game.num_types)])
                                 for frame in game.type_in_frame]
        #: the moves a measurement can write a row for: the plays, the pass and the takes
        self._measurable = sum(kind in ("play", "pass", "take") for kind, _, _ in game.decoded[0])
        self._plans: dict = {}  # base-building targets by (cards, unseen): a pure cache

    def reset(self) -> None:
        self._plans.clear()

    def __getstate__(self) -> dict:
        """Copies and pickles (a training view's opponents, a worker's agents) leave the tables out: compiled,
        they are C arrays that do not pickle, and they are a function of the rules and the layout."""
        state = self.__dict__.copy()
        del state["_tables"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._tables = PlayTables(self.game, self.own_base, self.opponent_base, self.context.layout)

    # ------------------------------------------------------------------ reading
    def _read(self, observation):
        """``(types, hand, copies)``: the type seen at each position (``FACE_DOWN``: none), the hand and the
        deck's copies of each type (counts per type, in the seat's frame), as new integer arrays."""
        game = self.game
        types, hand = array("q", [0]) * game.num_positions, array("q", [0]) * game.num_types
        vector = np.ascontiguousarray(observation["observation"], dtype=np.float32)
        seat = read_position(self._tables, vector, types, hand, array("q", [0]) * game.num_types)
        return types, hand, array("q", self._copies_in_frame[seat])

    # ------------------------------------------------------------------ acting
    def act(self, observation, sampler=None) -> int:
        if self.piece(observation, "phase")[0]:
            legal = legal_ids(observation["action_mask"])
            if legal.size == 0:
                raise ValueError(NO_LEGAL_ACTION)
            if self.game.per_position:
                return self._build_position(observation, legal)
            return self._build(observation, legal)
        return self._play(observation)

    def _build_position(self, observation, legal) -> int:
        """``building="per_position"``: keep the base card being decided, or swap in the best hand card."""
        done = self.game.done_action
        keys = self._position_keys(observation, legal)
        best_action, best_key = done, keys[done]
        for action, key in keys.items():
            if action != done and key < best_key:
                best_action, best_key = action, key
        return best_action

    def _position_keys(self, observation, legal) -> dict:
        """``{action: key}`` of keeping the base card being decided ("done") and of each legal swap with it
        (:func:`~kakurega.agents.heuristics.animal_chain_plays.base_key`: smaller is better)."""
        game = self.game
        B = game.base_size
        types, hand, unseen = self._read(observation)
        base = array("q", [types[p] for p in self.own_base])
        j = int(self.piece(observation, "base_position").argmax())
        for t in base:
            unseen[t] -= 1
        for t, n in enumerate(hand):
            if n > 0:
                unseen[t] -= n
        keys = {game.done_action: base_key(self._tables, base, hand, unseen)}
        for action in legal.tolist():
            if action == game.done_action:
                continue
            t = action // B  # a swap of the frame type t with base card j (the only one offered)
            new_base, new_hand = array("q", base), array("q", hand)
            new_hand[t] -= 1
            new_hand[base[j]] += 1
            new_base[j] = t
            keys[action] = base_key(self._tables, new_base, new_hand, unseen)
        return keys

    def _build(self, observation, legal) -> int:
        game = self.game
        B = game.base_size
        types, hand, copies = self._read(observation)
        base = [types[p] for p in self.own_base]
        hand = hand.tolist()
        cards = sorted(base + [t for t, n in enumerate(hand) for _ in range(n)])
        unseen = copies.tolist()
        for t in cards:
            unseen[t] -= 1
        key_of_plan = (tuple(cards), tuple(unseen))
        best = self._plans.get(key_of_plan)
        if best is None:
            best = self._plans[key_of_plan] = self._best_base(cards, unseen, tuple(base))
        legal_set = set(int(a) for a in legal)
        # Walk towards the target base: fix positions left to right.
        for j in range(B):
            if base[j] == best[j]:
                continue
            want = best[j]
            if hand[want]:
                action = game.swap_action(0, want, j)
            else:  # the wanted card sits further right in the base: bring it to the hand first
                other = next(t for t, n in enumerate(hand) if n and t != base[base.index(want, j + 1)])
                action = game.swap_action(0, other, base.index(want, j + 1))
            if action in legal_set:
                return action
            break
        return game.done_action

    def _best_base(self, cards, unseen, base) -> tuple[int, ...]:
        """The least exposed base from ``cards`` (ties: the most varied hand left, then the smallest).

        Boards with long base rows would need too many arrangements: there the base stays as dealt.
        """
        game = self.game
        if perm(len(cards), game.base_size) > MAX_ARRANGEMENTS:
            return base
        best, best_key = None, None
        for arrangement in sorted({tuple(cards[i] for i in c) for c in permutations(range(len(cards)), game.base_size)}):
            rest = list(cards)
            for t in arrangement:
                rest.remove(t)
            sides = len({game.left_animal[t] for t in rest}) + len({game.right_animal[t] for t in rest})
            key = (self._exposure(arrangement, unseen), -sides)
            if best_key is None or key < best_key:
                best, best_key = arrangement, key
        return best

    def _exposure(self, base, unseen) -> int:
        """Unseen cards an opponent could use against this base when only the base cards are face up
        (:func:`~kakurega.agents.heuristics.animal_chain_plays.base_exposure`)."""
        return base_exposure(self._tables, array("q", base), array("q", unseen))

    def _play(self, observation) -> int:
        measured = self._measure(observation)
        if measured.wins_now:
            return measured.wins_now[0]  # wins at once (the mask already applies the attack_rule)
        if not measured.actions:
            raise ValueError(NO_LEGAL_ACTION)
        scores = self._scores(measured.values)
        plays, passes = measured.num_plays, measured.actions[measured.num_plays:]
        best = int(np.argmax(scores[:plays])) if plays else -1  # the first best play
        if passes and (best < 0 or scores[plays] >= scores[best]):
            return self._choose_pass(passes)
        return measured.actions[best]

    @staticmethod
    def _scores(values: np.ndarray) -> np.ndarray:
        """The heuristic's weighing of what each measured move leads to (rows of :meth:`_measure`): the sum
        of its weighted parts, added left to right (``np.add.accumulate``), as
        ``-W_THREAT * threat + W_OFFENCE * offence + ... + W_DRAW * draw`` adds them."""
        return np.add.accumulate(values * WEIGHTS, axis=1)[:, -1]

    def _measure(self, observation, with_wins: bool = False) -> Measurement:
        """What each legal move of a play decision leads to (:class:`Measurement`).

        Per move: the chance the opponent can then win at once (``threat``),
        whether we could win next turn (``offence``), the chain rule's race (rows
        our linked chain reaches minus those the opponent's reaches), the rows
        advanced without the chain rule (``row``, 0-4), taking a face-down card,
        making a double, and for the pass and the takes the draw; the same parts
        for every pass action (the position is unchanged). Measured by
        :func:`~kakurega.agents.heuristics.animal_chain_plays.measure`.
        """
        vector = np.ascontiguousarray(observation["observation"], dtype=np.float32)
        mask = np.asarray(observation["action_mask"])
        if mask.dtype != np.int8 or not mask.flags.c_contiguous:
            mask = np.ascontiguousarray(mask != 0).view(np.int8)
        values = np.empty((self._measurable, len(PARTS)))
        wins_now, actions, num_plays, wins, unseen, held = measure(self._tables, vector, mask, values, with_wins)
        return Measurement(wins_now, actions, num_plays, values[: len(actions)], wins, unseen, held)

    def _choose_pass(self, pass_actions) -> int:
        """The plain pass, or take the face-down card nearest the own base (its hole blocks the opponent)."""
        game = self.game
        if len(pass_actions) == 1:
            return pass_actions[0]
        return min(pass_actions, key=lambda a: (game.row_of[game.decode(0, a)[2]], a))


class AnimalChainMoveFeatures:
    """The heuristic's measurements of every action, as numbers a network can weigh (``move_features``).

    ``features(observation)`` is ``num_actions`` rows of ``PER_ACTION``
    numbers in [0, 1] (flattened), read from the seat's own observation by the
    heuristic's own evaluation; rows of actions that are not legal are zeros.
    Columns: 0 legal; 1 the play wins at once; 2 the chance the opponent can
    then win at once; 3 we could then win next turn; 4 the race (rows our
    linked chain reaches minus the rows the opponent's reaches, mapped from
    [-rows, +rows] to [0, 1]; 0.5 without the chain rule); 5 the play takes a
    face-down card; 6 it makes a double; 7 the pass or a take (the draw);
    8 and 9 while building one base position at a time: under the chain rule
    the hand cards that could start a chain (/8), otherwise the unseen cards
    that could attack the base (/8, capped at 1), and the animals the hand
    shows (/16), after the swap (or keep); 10 for a take, how near the own
    base row the face-down card lies (1 on it, 0 on the opponent's).

    ``dominated(observation)`` marks the moves a pruned bot never plays
    (:mod:`~kakurega.agents.heuristics.animal_chain_sure_wins`).
    """

    PER_ACTION = 11

    def __init__(self, context: AgentContext):
        self._heuristic = AnimalChainHeuristic(context)
        game = self._heuristic.game
        self.num_actions = game.num_actions
        self.size = self.num_actions * self.PER_ACTION
        self._rows = game.shape.num_rows - 1
        layout = context.layout
        self._turn_at, self._deck_at = layout.index("turn", 0), layout.index("deck_size", 0)
        self._passes_at = layout.index("passes_without_draw", 0)
        self._last: tuple = (None, None)

    def _measure(self, observation: dict) -> Measurement:
        """The heuristic's measurement of the observation (with the types that surely win), remembered for the
        last one: a pruned bot that reads the features asks twice per decision. Read it, never change it."""
        key = (observation["observation"].tobytes(), observation["action_mask"].tobytes())
        if key != self._last[0]:
            self._last = (key, self._heuristic._measure(observation, with_wins=True))
        return self._last[1]

    def dominated(self, observation: dict) -> np.ndarray:
        """The actions that a play winning at once, or any move after which the opponent does not surely hold
        a card that wins at once, is at least as good as
        (:func:`~kakurega.agents.heuristics.animal_chain_sure_wins.dominated`), as a mask over the actions,
        from the seat's observation only. It assumes an opponent that takes a win it has at once: against
        it such a move loses, so any other move is at least as good."""
        mask = np.zeros(self.num_actions, dtype=bool)
        if not self._heuristic.piece(observation, "phase")[1]:  # only plays and passes can win or lose
            return mask
        measured = self._measure(observation)
        wins = measured.wins_now
        handed = [] if wins else self._handed(observation, measured)
        if wins or handed:  # (otherwise no move is dominated)
            mask[dominated(wins, handed, legal_ids(observation["action_mask"]).tolist())] = True
        return mask

    def _handed(self, observation: dict, measured: Measurement) -> list[int]:
        """The measured moves after which the opponent, to move, surely holds a card that wins at once."""
        game = self._heuristic.game
        vector = observation["observation"]
        held = measured.held
        if held == 0 or vector[self._turn_at] + 1 >= game.max_turns:  # no hand, or the turn limit ends the game
            return []
        moves = list(zip(measured.actions, measured.wins))
        if vector[self._deck_at] == 0 and vector[self._passes_at] >= 1:
            # a pass that draws nothing (no deck, no face-down card to take) after another one ends the game drawn
            moves = [(action, wins) for action, wins in moves if game.decoded[0][action][0] != "pass"]
        every = 0
        for wins in {wins for _, wins in moves}:  # (a few distinct ones per position)
            every |= wins
        if not surely_holds(every, measured.unseen, held):  # (the usual case) then no move's fewer winning types do
            return []
        sure = {}  # by winning types: a few distinct ones per position
        for _, wins in moves:
            if wins not in sure:
                sure[wins] = surely_holds(wins, measured.unseen, held)
        return [action for action, wins in moves if sure[wins]]

    def __call__(self, observation: dict) -> np.ndarray:
        h = self._heuristic
        rows, legal = legal_rows(observation, self.num_actions, self.PER_ACTION)
        if legal.size == 0:
            return rows.ravel()
        if h.piece(observation, "phase")[0]:  # building
            if h.game.per_position:  # the keys of the keep-or-swap (smaller is better): -starts or exposure, -sides
                keys = h._position_keys(observation, legal)
                for action in legal:
                    first, sides = keys[int(action)]
                    rows[action, 8] = min((-first if h.game.chain_rule else first) / 8, 1.0)
                    rows[action, 9] = min(-sides / 16, 1.0)
            return rows.ravel()
        measured = self._measure(observation)
        if measured.wins_now:
            rows[measured.wins_now[0], 1] = 1
            return rows.ravel()
        span = max(1, self._rows)
        if measured.actions:  # one write of every row (float64 values, then float32 as before)
            values = measured.values[:, [THREAT, OFFENCE, RACE, TAKE, DOUBLE, DRAW]]  # columns 2-7 (a copy)
            values[:, 2] = np.minimum(np.maximum((values[:, 2] / span + 1) / 2, 0.0), 1.0)
            rows[measured.actions, 2:8] = values
        game = h.game
        for action in measured.actions[measured.num_plays:]:
            kind, _, p = game.decoded[0][action]
            if kind == "take":
                rows[action, 10] = 1 - game.row_of[p] / span
        return rows.ravel()
