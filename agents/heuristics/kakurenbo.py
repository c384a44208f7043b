"""A rule-of-thumb KAKURENBO player that reads only its own observation.

Strategy (both variants):

- **Card whereabouts.** A card's place is certain when the ``cards`` piece
  marks it; otherwise the card sits in any free slot of its colour with equal
  chance (hands by their colour counts minus the cards already placed, the
  pile by its colour counts). Every decision below uses these chances.
- **Kakurenbo phase 1.** Discard a pair as soon as one is held (its points are
  safe and no card function can hand them to a neighbour later); otherwise
  draw. On a red top, give the card that costs least: a low-point card, never
  to a player likely to hold its partner. On a blue top, take the colour and
  player that most likely complete one of our pairs (partner's chance there /
  cards of that colour there, weighted by points).
- **Kakurenbo phase 2.** Pass the Curse with the card and to the player that
  maximise an expected value, over the chance that the card completes a pair
  in the receiver's hand. A pair that leaves the receiver with the Curse
  alone ends the game: worth more than anything else when we then win (ties
  share), less than anything else when we lose. Any other pair is worth our
  standing after its points are scored (our lead over the best other score)
  plus a bonus, since every pair brings the end nearer; a card that pairs
  nothing is worth our standing as it is, less a little for a high card (its
  pair may still score for us). A give already chosen from the very same
  position (the observation without the step counter) loses half a point on
  its no-pair outcome for each time: the position came back, so its gamble on
  a pair did not pay, and another give is tried. Avoiding every pair that scores for
  another player, handing the Curse to a co-leader, or repeating a failed
  gamble would pass the Curse round to the step limit; played this way,
  heuristic tables end by the rules (figures in docs/strength.md).
- **Kurayami phase 1** (faces unseen). Keep red and blue balanced, since
  balance makes pairs likelier at the flip: give the colour we hold more of,
  take the colour we hold fewer of, from whoever holds most of it.
- **Kurayami phase 2.** Roll against the player from whom a take most likely
  completes a pair; without the Curse, avoid rolling against its holder
  (equal dice would pass it to us). After the dice, take the colour most
  likely to complete a pair, unless that take surely ends the game with us
  among the losers (holding the Curse and one card, its located partner in
  the victim's hand: the pair leaves us the Curse alone) while another take
  does not (:mod:`~kakurega.agents.heuristics.kakurenbo_endings`).
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.agents.heuristics.kakurenbo_endings import LOSS, SHARE, dominated, sure_endings
from kakurega.agents.move_features import legal_rows
from kakurega.envs.kakurenbo.rules import (
    A_CURSE_GIVE,
    A_DISCARD,
    A_DRAW,
    A_GIVE_CARD,
    A_GIVE_COLOUR,
    A_TAKE,
    A_TARGET,
    CHEST,
    LEFT_LEG,
    POINTS,
    RIGHT_LEG,
    WAIST,
)

NUM_CARDS = 14
#: values of a Curse give's outcomes (see ``_curse_give``): an end we win or lose outranks any
#: standing in (-0.5, 0.5); every completed pair brings the end nearer; high cards are kept
END_WIN, END_LOSS = 1.0, -1.0
PAIR_PROGRESS = 0.1
KEEP_HIGH_CARDS = 0.005
#: value taken off a Curse give's no-pair outcome for every time it was already chosen from the same position
REPEAT_PENALTY = 0.5
#: value taken off a Kurayami dice take that surely ends the game with us among the losers (more than any pair)
SURE_LOSS_PENALTY = 100.0


class KakurenboHeuristic(Agent):
    """Expected-value rules of thumb over the observation's card knowledge (see module docstring)."""

    def __init__(self, context: AgentContext, seed: int | None = None):
        super().__init__(context, seed)
        self.game = context.new_rules()
        if self.game is None:
            from kakurega.envs.kakurenbo.rules import KakurenboGame

            self.game = KakurenboGame(**{k: v for k, v in context.env_kwargs.items() if k in ("variant", "num_players")})
        self.n = self.game.num_players
        #: phase 2 memory of this game: position -> {Curse give: times chosen there}
        self._tried: dict[bytes, dict[int, int]] = {}
        #: ``_pair_of_card[c]``: the body part (pair) of card ``c``
        self._pair_of_card = np.arange(NUM_CARDS) >> 1
        #: ``_colour_of_card[c]``: its colour (0 red, 1 blue)
        self._colour_of_card = np.arange(NUM_CARDS) & 1
        #: (observation and legal bytes, its sure endings): the last observation's, see :meth:`sure_endings`
        self._last_endings: tuple = (None, {})

    def reset(self) -> None:
        self._tried = {}

    def sure_endings(self, observation: dict, legal) -> dict[int, str]:
        """:func:`~kakurega.agents.heuristics.kakurenbo_endings.sure_endings` of the observation, remembered for
        the last one: a decision asks up to three times (the take's value, the move features, the pruning of a
        policy reading them). The same dict is handed to every caller: read it, never change it."""
        key = (observation["observation"].tobytes(), np.asarray(legal, dtype=np.intp).tobytes())
        if key != self._last_endings[0]:
            self._last_endings = (key, sure_endings(self.game, self.context.layout, observation, legal))
        return self._last_endings[1]

    # ------------------------------------------------------------ beliefs
    def _beliefs(self, obs) -> np.ndarray:
        """``prob[c, r]``: chance that body-part card ``c`` is in row ``r``'s hand (column n: the pile).

        A card known to be in a hand is there; the unknown cards of a colour not
        yet discarded share that colour's free places (the cards held and in the
        pile, less the known ones) in proportion.
        """
        n = self.n
        cards = self.piece(obs, "cards") != 0
        known = cards.any(axis=1)
        holder = cards.argmax(axis=1)  # the first row marked (known cards only)
        prob = np.zeros((NUM_CARDS, n + 1))
        prob[known, holder[known]] = 1.0
        # free places per colour (row) in each hand and the pile: whole numbers, so every sum is exact
        free = np.empty((2, n + 1))
        free[:, :n] = self.piece(obs, "colour_counts").T
        free[:, n] = self.piece(obs, "pile_colours")
        colour = self._colour_of_card[known]
        free[:, :n] -= np.bincount(colour * n + holder[known], minlength=2 * n).reshape(2, n)
        total = free.sum(axis=1)
        unknown = ~known & (self.piece(obs, "discarded").sum(axis=1)[self._pair_of_card] == 0)
        unknown &= total[self._colour_of_card] > 0
        if unknown.any():
            colour = self._colour_of_card[unknown]
            prob[unknown] = free[colour] / total[colour, None]
        return prob

    # ---------------------------------------------------------------- act
    def act(self, observation: dict, sampler=None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 1:
            return int(legal[0])
        decode = self.game.decode
        kinds = {decode[a][0] for a in legal}
        if A_DISCARD in kinds:
            return int(min(a for a in legal if decode[a][0] == A_DISCARD))  # highest pair first
        kind = decode[int(legal[-1])][0]
        if kind == A_GIVE_CARD:
            return self._give_card(observation, legal)
        if kind == A_TAKE:
            return self._take(observation, legal)
        if kind == A_CURSE_GIVE:
            return self._curse_give(observation, legal)
        if kind == A_GIVE_COLOUR:
            return self._give_colour(observation, legal)
        if kind == A_TARGET:
            return self._choose_target(observation, legal)
        return int(self.rng.choice(legal))

    def _best(self, legal, values) -> int:
        """The legal action with the highest of ``values`` (one per legal action; ties broken at random)."""
        return int(legal[self.rng.choice(np.flatnonzero(self._best_set(values)))])

    @staticmethod
    def _best_set(values) -> np.ndarray:
        """Which of ``values`` tie for the highest (within rounding)."""
        values = np.asarray(values, dtype=float)
        return values >= values.max() - 1e-9

    def _my_cards(self, observation) -> list[int]:
        return [int(c) for c in np.flatnonzero(self.piece(observation, "cards")[:, 0])]

    def _pair_chance(self, prob, counts, mine, colour, row) -> float:
        """Points expected from taking a random ``colour`` card from ``row``: pairs completed with ``mine``."""
        held = counts[row, colour]
        if held <= 0:
            return 0.0
        return sum(prob[c ^ 1, row] / held * POINTS[c >> 1] for c in mine if (c ^ 1) & 1 == colour)

    # ------------------------------------------------------------ phase 1
    def _give_card(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._give_card_parts(observation, legal)])

    def _give_card_parts(self, observation, legal) -> list[dict]:
        """Per legal give: the chance its partner is in the receiver's hand, and the value (cheap cards first,
        never a likely pair handed to the receiver)."""
        prob = self._beliefs(observation)
        decode = self.game.decode
        out = []
        for a in legal:
            _kind, card, k = decode[a]
            partner = prob[card ^ 1, k]
            out.append({"partner": partner, "value": -POINTS[card >> 1] * (1.0 + 4.0 * partner)})
        return out

    def _take(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._take_parts(observation, legal)])

    def _take_parts(self, observation, legal) -> list[dict]:
        """Per legal take: with cards in hand, the points expected from the pairs it completes; in
        Kurayami phase 1 (or with an empty hand), whether it takes the colour we hold fewer of."""
        counts = self.piece(observation, "colour_counts")
        decode = self.game.decode
        mine = self._my_cards(observation)
        out = []
        if not mine:  # Kurayami phase 1 (or an empty hand): balance colours
            want = 0 if counts[0, 0] <= counts[0, 1] else 1
            for a in legal:
                _kind, colour, k = decode[a]
                out.append({"balance": float(colour == want), "value": (colour == want) * 10.0 + counts[k, colour]})
            return out
        prob = self._beliefs(observation)
        scores = self.piece(observation, "scores")
        endings = self.sure_endings(observation, legal) if self.game.kurayami else {}
        for a in legal:
            _kind, colour, k = decode[a]
            gain = self._pair_chance(prob, counts, mine, colour, k)
            # a dice take that surely leaves us the Curse alone at the end is a loss, whatever the pair is worth
            sure_loss = SURE_LOSS_PENALTY if endings.get(int(a)) == LOSS else 0.0
            out.append({"gain": gain, "value": gain + 0.01 * scores[k] - sure_loss})
        return out

    def _give_colour(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._give_colour_parts(observation, legal)])

    def _give_colour_parts(self, observation, legal) -> list[dict]:
        """Per legal give: whether it gives the colour we hold more of, to a receiver with few cards."""
        counts = self.piece(observation, "colour_counts")
        decode = self.game.decode
        surplus = 0 if counts[0, 0] > counts[0, 1] else 1
        out = []
        for a in legal:
            _kind, colour, k = decode[a]
            out.append({"balance": float(colour == surplus), "value": (colour == surplus) * 10.0 - counts[k].sum()})
        return out

    # ------------------------------------------------------------ phase 2
    def _curse_give(self, observation, legal) -> int:
        tried = self._tried.setdefault(self._position(observation), {})
        values = []
        for a, parts in zip(legal, self._curse_give_parts(observation, legal)):
            # a give already made from this very position came back to it, so its gamble on a pair did not pay
            values.append(self._curse_give_value(parts, REPEAT_PENALTY * tried.get(int(a), 0)))
        action = self._best(legal, values)
        tried[action] = tried.get(action, 0) + 1
        return action

    @staticmethod
    def _curse_give_value(parts: dict, penalty: float = 0.0) -> float:
        """A Curse give's expected value from its ``parts``, ``penalty`` taken off its no-pair outcome."""
        return parts["pair"] * parts["paired"] + (1.0 - parts["pair"]) * (parts["passed"] - penalty)

    def _curse_give_parts(self, observation, legal) -> list[dict]:
        """Per legal Curse give: ``pair``, the chance the card completes a pair in the receiver's hand;
        ``paired``, the outcome's value if it does (an end we win or lose, else our standing after the
        points plus a bonus for nearing the end); ``passed``, its value if not (our standing, less a little
        for a high card, whose pair may still score for us). The memory of repeated positions is left out."""
        n = self.n
        prob = self._beliefs(observation)
        counts = self.piece(observation, "colour_counts")
        scores = self.piece(observation, "scores").astype(float)
        hand_size = counts.sum(axis=1)
        decode = self.game.decode
        standing = self._standing(scores)
        out = []
        for a in legal:
            _kind, card, k = decode[a]
            part = card >> 1
            passed = standing - KEEP_HIGH_CARDS * POINTS[part]
            p_pair = prob[card ^ 1, k]
            paired, ends = 0.0, 0.0
            if p_pair > 0:
                gains = np.zeros(n)
                scorer = (k - 1) % n if part == CHEST else (k + 1) % n if part == WAIST else k
                gains[scorer] = POINTS[part]
                left_after = hand_size[k] - 1  # the receiver's cards after the pair goes, Curse excluded
                if part in (RIGHT_LEG, LEFT_LEG):
                    neighbour = (k - 1) % n if part == RIGHT_LEG else (k + 1) % n
                    left_after = hand_size[neighbour] - (1 if neighbour == 0 else 0)
                if left_after <= 0:  # the receiver is left with the Curse alone: the game ends
                    final = scores + gains
                    final[k] = 0.0
                    others = np.delete(final, [0, k])
                    paired = END_WIN if others.size == 0 or final[0] >= others.max() else END_LOSS
                    ends = 1.0
                else:
                    paired = self._standing(scores + gains) + PAIR_PROGRESS
            out.append({"pair": p_pair, "paired": paired, "passed": passed, "ends": ends})
        return out

    @staticmethod
    def _standing(scores) -> float:
        """How well we (row 0) stand on points, in (-0.5, 0.5): our lead over the best other score."""
        return 0.5 * float(np.tanh((scores[0] - scores[1:].max()) / 4.0))

    def _position(self, observation) -> bytes:
        """The observation without the step counter: equal when a position comes back."""
        vector = np.array(observation["observation"])
        self.context.layout.view(vector, "steps_used")[...] = 0
        return vector.tobytes()

    def _choose_target(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._choose_target_parts(observation, legal)])

    def _choose_target_parts(self, observation, legal) -> list[dict]:
        """Per legal dice opponent: the best take's expected points, whether it holds the Curse (equal dice
        would pass it to us), and, while we hold the Curse, its hand size (a well-stocked receiver keeps the
        game going)."""
        n = self.n
        prob = self._beliefs(observation)
        counts = self.piece(observation, "colour_counts")
        curse = self.piece(observation, "curse")
        holder = int(np.flatnonzero(curse)[0]) if curse.any() else n
        mine = self._my_cards(observation)
        decode = self.game.decode
        out = []
        for a in legal:
            k = decode[a][2]
            take = max(self._pair_chance(prob, counts, mine, colour, k) for colour in (0, 1))
            v = take
            if holder == k:
                v -= 6.0  # equal dice would pass the Curse to us
            if holder == 0:
                v += 0.1 * counts[k].sum()
            out.append({"gain": take, "holder": float(holder == k), "value": v})
        return out


class KakurenboMoveFeatures:
    """The heuristic's measurements of every action, as numbers a network can weigh (``move_features``).

    ``features(observation)`` is ``num_actions`` rows of ``PER_ACTION``
    numbers in [0, 1] (flattened), read from the seat's own observation by the
    heuristic's own evaluation; rows of actions that are not legal are zeros.
    The heuristic's memory of repeated positions is left out: the features
    depend on the observation alone. Columns: 0 legal; 1 the draw; 2 a
    discard, its pair's points (/4); 3 a give's card points (/4); 4 the chance
    that the card's partner is in the receiver's hand (a give or a Curse give);
    5 a card give's value to the heuristic (1 + value/20: cheap cards first,
    likely pairs never handed over); 6 the points a take (or, in Kurayami, the
    best take after the dice against that player) expects to pair (/4, capped
    at 1); 7 Kurayami's colour balance (the give or take keeps red and blue
    even); 8-11 a Curse give: the value if the card pairs ((v+1)/2), the value
    if not (v+0.5), the pair would end the game, the expected value ((v+1)/2);
    12 the dice opponent holds the Curse; 13 the receiver's hand size (/7,
    capped at 1); 14 the receiver's score (/16, capped at 1); 15 the action is
    among the heuristic's best (ties all marked).

    Versions (a policy file records the one it was trained with,
    ``move_features_version``, and is played with it): version 0 is columns
    0-15; version 1 (the default) adds, from the seat's knowledge only
    (:mod:`~kakurega.agents.heuristics.kakurenbo_endings`): 16 the move surely
    ends the game with the seat the sole winner (1) or sharing the win (0.5);
    17 the move surely ends the game with the seat among the losers.
    """

    #: the feature versions this class computes (newest last) and their numbers per action
    VERSIONS = (0, 1)
    COLUMNS = {0: 16, 1: 18}

    def __init__(self, context: AgentContext, version: int = VERSIONS[-1]):
        if version not in self.VERSIONS:
            raise ValueError(f"KAKURENBO move features version {version!r}; expected one of {list(self.VERSIONS)}")
        self.version = version
        self._heuristic = KakurenboHeuristic(context)
        self.layout = context.layout
        self.num_actions = self._heuristic.game.num_actions
        self.PER_ACTION = self.COLUMNS[version]
        self.size = self.num_actions * self.PER_ACTION

    def __call__(self, observation: dict) -> np.ndarray:
        h = self._heuristic
        rows, legal = legal_rows(observation, self.num_actions, self.PER_ACTION)
        if legal.size == 0:
            return rows.ravel()
        decode = h.game.decode
        counts = h.piece(observation, "colour_counts")
        scores = h.piece(observation, "scores")
        values = np.zeros(legal.size)
        kind = decode[int(legal[-1])][0]
        if kind == A_GIVE_CARD:
            for i, (a, parts) in enumerate(zip(legal, h._give_card_parts(observation, legal))):
                rows[a, 4] = parts["partner"]
                rows[a, 5] = 1.0 + parts["value"] / 20.0
                values[i] = parts["value"]
        elif kind == A_TAKE:
            for i, (a, parts) in enumerate(zip(legal, h._take_parts(observation, legal))):
                rows[a, 6] = min(parts.get("gain", 0.0) / 4.0, 1.0)
                rows[a, 7] = parts.get("balance", 0.0)
                values[i] = parts["value"]
        elif kind == A_GIVE_COLOUR:
            for i, (a, parts) in enumerate(zip(legal, h._give_colour_parts(observation, legal))):
                rows[a, 7] = parts["balance"]
                values[i] = parts["value"]
        elif kind == A_CURSE_GIVE:
            for i, (a, parts) in enumerate(zip(legal, h._curse_give_parts(observation, legal))):
                value = h._curse_give_value(parts)
                rows[a, 4] = parts["pair"]
                rows[a, 8] = (parts["paired"] + 1.0) / 2.0 if parts["pair"] > 0 else 0.0
                rows[a, 9:12] = parts["passed"] + 0.5, parts["ends"], (value + 1.0) / 2.0
                values[i] = value
        elif kind == A_TARGET:
            for i, (a, parts) in enumerate(zip(legal, h._choose_target_parts(observation, legal))):
                rows[a, 6] = min(parts["gain"] / 4.0, 1.0)
                rows[a, 12] = parts["holder"]
                values[i] = parts["value"]
        for i, a in enumerate(legal):
            kind_a, argument, k = decode[a]
            if kind_a == A_DRAW:
                rows[a, 1] = 1
            elif kind_a == A_DISCARD:
                rows[a, 2] = POINTS[argument] / 4.0
                values[i] = POINTS[argument]  # the heuristic discards the highest pair first
            elif kind_a in (A_GIVE_CARD, A_CURSE_GIVE):
                rows[a, 3] = POINTS[argument >> 1] / 4.0
            if k:
                rows[a, 13] = min(counts[k].sum() / 7.0, 1.0)
                rows[a, 14] = min(scores[k] / 16.0, 1.0)
        rows[legal[h._best_set(values)], 15] = 1
        if self.version >= 1:
            for a, outcome in self._heuristic.sure_endings(observation, legal).items():
                rows[a, 16 if outcome != LOSS else 17] = 0.5 if outcome == SHARE else 1.0
        return np.clip(rows, 0.0, 1.0, out=rows).ravel()

    def dominated(self, observation: dict) -> np.ndarray | None:
        """Which actions a sure ending beats (:func:`~kakurega.agents.heuristics.kakurenbo_endings.dominated`),
        as a mask over the actions, from the seat's observation only (a rule of the game: the same in every
        version of the features)."""
        legal = np.flatnonzero(observation["action_mask"])
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[dominated(self._heuristic.sure_endings(observation, legal), legal)] = True
        return mask
