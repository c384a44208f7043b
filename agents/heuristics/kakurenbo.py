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
from kakurega.agents.heuristics.kakurenbo_reading import KakurenboReader, Reading, best_index, best_set
from kakurega.envs.kakurenbo.rules import (
    A_CURSE_GIVE,
    A_DISCARD,
    A_DRAW,
    A_GIVE_CARD,
    A_GIVE_COLOUR,
    A_TAKE,
    A_TARGET,
    CHEST,
    CURSE_GIVE,
    DICE_TAKE,
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
#: the sure endings of a position whose stage has none (shared: never changed)
NO_ENDINGS: dict[int, str] = {}


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
        #: ``_kind_of[a]``: the kind of action ``a``
        self._kind_of = tuple(kind for kind, _argument, _offset in self.game.decode)
        #: ``_offset_of[a]``: the row action ``a`` names (a receiver, victim or dice opponent; 0 when none)
        self._offset_of = tuple(offset for _kind, _argument, offset in self.game.decode)
        self._reader = KakurenboReader(context.layout, self.n)
        #: where the observation marks the stages whose moves may end the game (see :meth:`sure_endings`)
        self._decisive_stages = tuple(context.layout.index("stage", stage) for stage in (CURSE_GIVE, DICE_TAKE))
        #: (observation and legal bytes, its sure endings): the last observation's, see :meth:`sure_endings`
        self._last_endings: tuple = (None, {})

    def reset(self) -> None:
        self._tried = {}

    def sure_endings(self, observation: dict, legal, reading: Reading | None = None) -> dict[int, str]:
        """:func:`~kakurega.agents.heuristics.kakurenbo_endings.sure_endings` of the observation, remembered for
        the last one: a decision asks up to three times (the take's value, the move features, the pruning of a
        policy reading them). The same dict is handed to every caller: read it, never change it. ``reading``:
        the observation's :meth:`read`, if the caller has it."""
        vector = observation["observation"]
        if not (vector[self._decisive_stages[0]] or vector[self._decisive_stages[1]]):
            return NO_ENDINGS  # only a Curse give or a take after the dice can end the game
        key = (vector.tobytes(), np.asarray(legal, dtype=np.intp).tobytes())
        if key != self._last_endings[0]:
            reading = self.read(observation) if reading is None else reading
            self._last_endings = (key, sure_endings(self.game, self.context.layout, observation, legal, reading))
        return self._last_endings[1]

    # ---------------------------------------------------------------- act
    def read(self, observation: dict) -> Reading:
        """The observation's facts as lists (:mod:`~kakurega.agents.heuristics.kakurenbo_reading`)."""
        return self._reader(observation["observation"])

    def act(self, observation: dict, sampler=None) -> int:
        legal = np.asarray(observation["action_mask"]).nonzero()[0].tolist()
        if len(legal) == 1:
            return legal[0]
        kind_of = self._kind_of
        discards = [a for a in legal if kind_of[a] == A_DISCARD]
        if discards:
            return discards[0]  # highest pair first
        kind = kind_of[legal[-1]]
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
        return legal[best_index(values, self.rng)]

    #: the indices of ``values`` that tie for the highest (within rounding)
    _best_set = staticmethod(best_set)

    @staticmethod
    def _pair_chance(prob, counts, mine, colour, row) -> tuple[float, bool]:
        """Points expected from taking a random ``colour`` card from ``row``: pairs completed with ``mine``;
        and whether any card of ``mine`` was counted (the sum is then a float64 in the numpy arithmetic)."""
        held = counts[row][colour]
        if held <= 0:
            return 0.0, False
        gain, counted = 0, False
        for c in mine:
            if (c ^ 1) & 1 == colour:
                gain += prob[c ^ 1][row] / held * POINTS[c >> 1]
                counted = True
        return gain, counted

    # ------------------------------------------------------------ phase 1
    def _give_card(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._give_card_parts(self.read(observation), legal)])

    def _give_card_parts(self, reading: Reading, legal) -> list[dict]:
        """Per legal give: the chance its partner is in the receiver's hand, and the value (cheap cards first,
        never a likely pair handed to the receiver)."""
        prob = reading.beliefs()
        decode = self.game.decode
        out = []
        for a in legal:
            _kind, card, k = decode[a]
            partner = prob[card ^ 1][k]
            out.append({"partner": partner, "value": -POINTS[card >> 1] * (1.0 + 4.0 * partner)})
        return out

    def _take(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._take_parts(observation, self.read(observation), legal)])

    def _take_parts(self, observation, reading: Reading, legal) -> list[dict]:
        """Per legal take: with cards in hand, the points expected from the pairs it completes; in
        Kurayami phase 1 (or with an empty hand), whether it takes the colour we hold fewer of."""
        counts = reading.counts
        decode = self.game.decode
        mine = reading.mine
        out = []
        if not mine:  # Kurayami phase 1 (or an empty hand): balance colours
            want = 0 if counts[0][0] <= counts[0][1] else 1
            for a in legal:
                _kind, colour, k = decode[a]
                out.append({"balance": float(colour == want), "value": (colour == want) * 10.0 + counts[k][colour]})
            return out
        prob = reading.beliefs()
        scores = reading.scores
        endings = self.sure_endings(observation, legal, reading) if self.game.kurayami else {}
        for a in legal:
            _kind, colour, k = decode[a]
            gain, counted = self._pair_chance(prob, counts, mine, colour, k)
            # a dice take that surely leaves us the Curse alone at the end is a loss, whatever the pair is worth
            sure_loss = SURE_LOSS_PENALTY if endings.get(a) == LOSS else 0.0
            out.append({"gain": gain, "value": _take_value(gain, counted, scores[k], sure_loss)})
        return out

    def _give_colour(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._give_colour_parts(self.read(observation), legal)])

    def _give_colour_parts(self, reading: Reading, legal) -> list[dict]:
        """Per legal give: whether it gives the colour we hold more of, to a receiver with few cards."""
        counts = reading.counts
        decode = self.game.decode
        surplus = 0 if counts[0][0] > counts[0][1] else 1
        out = []
        for a in legal:
            _kind, colour, k = decode[a]
            out.append({"balance": float(colour == surplus), "value": (colour == surplus) * 10.0 - reading.hand_size[k]})
        return out

    # ------------------------------------------------------------ phase 2
    def _curse_give(self, observation, legal) -> int:
        tried = self._tried.setdefault(self._position(observation), {})
        values = []
        for a, parts in zip(legal, self._curse_give_parts(self.read(observation), legal)):
            # a give already made from this very position came back to it, so its gamble on a pair did not pay
            values.append(self._curse_give_value(parts, REPEAT_PENALTY * tried.get(a, 0)))
        action = self._best(legal, values)
        tried[action] = tried.get(action, 0) + 1
        return action

    @staticmethod
    def _curse_give_value(parts: dict, penalty: float = 0.0) -> float:
        """A Curse give's expected value from its ``parts``, ``penalty`` taken off its no-pair outcome."""
        return parts["pair"] * parts["paired"] + (1.0 - parts["pair"]) * (parts["passed"] - penalty)

    def _curse_give_parts(self, reading: Reading, legal) -> list[dict]:
        """Per legal Curse give: ``pair``, the chance the card completes a pair in the receiver's hand;
        ``paired``, the outcome's value if it does (an end we win or lose, else our standing after the
        points plus a bonus for nearing the end); ``passed``, its value if not (our standing, less a little
        for a high card, whose pair may still score for us). The memory of repeated positions is left out."""
        n = self.n
        prob = reading.beliefs()
        scores = reading.scores
        hand_size = reading.hand_size
        decode = self.game.decode
        standing = self._standing(scores)
        out = []
        for a in legal:
            _kind, card, k = decode[a]
            part = card >> 1
            passed = standing - KEEP_HIGH_CARDS * POINTS[part]
            p_pair = prob[card ^ 1][k]
            paired, ends = 0.0, 0.0
            if p_pair > 0:
                scorer = (k - 1) % n if part == CHEST else (k + 1) % n if part == WAIST else k
                final = list(scores)
                final[scorer] += POINTS[part]
                left_after = hand_size[k] - 1  # the receiver's cards after the pair goes, Curse excluded
                if part in (RIGHT_LEG, LEFT_LEG):
                    neighbour = (k - 1) % n if part == RIGHT_LEG else (k + 1) % n
                    left_after = hand_size[neighbour] - (1 if neighbour == 0 else 0)
                if left_after <= 0:  # the receiver is left with the Curse alone: the game ends
                    final[k] = 0.0
                    others = [final[r] for r in range(1, n) if r != k]
                    paired = END_WIN if not others or final[0] >= max(others) else END_LOSS
                    ends = 1.0
                else:
                    paired = self._standing(final) + PAIR_PROGRESS
            out.append({"pair": p_pair, "paired": paired, "passed": passed, "ends": ends})
        return out

    @staticmethod
    def _standing(scores) -> float:
        """How well we (row 0) stand on points, in (-0.5, 0.5): our lead over the best other score."""
        lead = scores[0] - max(scores[1:])
        standing = STANDINGS.get(lead)
        return _standing_of(lead) if standing is None else standing

    def _position(self, observation) -> bytes:
        """The observation without the step counter: equal when a position comes back."""
        vector = np.array(observation["observation"])
        self.context.layout.view(vector, "steps_used")[...] = 0
        return vector.tobytes()

    def _choose_target(self, observation, legal) -> int:
        return self._best(legal, [parts["value"] for parts in self._choose_target_parts(self.read(observation), legal)])

    def _choose_target_parts(self, reading: Reading, legal) -> list[dict]:
        """Per legal dice opponent: the best take's expected points, whether it holds the Curse (equal dice
        would pass it to us), and, while we hold the Curse, its hand size (a well-stocked receiver keeps the
        game going)."""
        prob = reading.beliefs()
        counts = reading.counts
        holder = reading.curse
        mine = reading.mine
        decode = self.game.decode
        out = []
        for a in legal:
            k = decode[a][2]
            take = max(self._pair_chance(prob, counts, mine, colour, k)[0] for colour in (0, 1))
            v = take
            if holder == k:
                v -= 6.0  # equal dice would pass the Curse to us
            if holder == 0:
                v += _float32_product(0.1, reading.hand_size[k])
            out.append({"gain": take, "holder": float(holder == k), "value": v})
        return out


def _standing_of(lead: float) -> float:
    """:meth:`KakurenboHeuristic._standing` of a lead of ``lead`` points."""
    return 0.5 * float(np.tanh(np.float64(lead) / 4.0))


#: the standing of every whole lead a game can have (its scores sum to at most 16)
STANDINGS = {float(lead): _standing_of(lead) for lead in range(-16, 17)}


def _float32_product(weight: float, count: float) -> float:
    """``weight * count`` in float32, as numpy computes a Python float times a float32 observation entry."""
    return float(np.float32(weight) * np.float32(count))


def _take_value(gain, counted: bool, score: float, sure_loss: float) -> float:
    """A take's value, ``gain + 0.01 * score - sure_loss``, with the precision of its numpy arithmetic: the
    score weighed in float32 (a float32 observation entry), the rest in float64 when the gain counted a
    card (a float64 chance), else in float32."""
    weighed = _float32_product(0.01, score)
    if counted:
        return gain + weighed - sure_loss
    return float(np.float32(gain + weighed) - np.float32(sure_loss)) if sure_loss else gain + weighed


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
        #: the columns that depend on the action alone, one row per column (0 legal, 1 the draw, 2 a discard's
        #: points, 3 a give's card points), and a discard's points (the heuristic's value of it; 0 for others)
        self._static = np.zeros((self.PER_ACTION, self.num_actions))
        self._static[0] = 1.0
        self._discard_points = [0] * self.num_actions
        for a, (kind, argument, _k) in enumerate(self._heuristic.game.decode):
            if kind == A_DRAW:
                self._static[1, a] = 1.0
            elif kind == A_DISCARD:
                self._static[2, a] = POINTS[argument] / 4.0
                self._discard_points[a] = POINTS[argument]
            elif kind in (A_GIVE_CARD, A_CURSE_GIVE):
                self._static[3, a] = POINTS[argument >> 1] / 4.0

    def __call__(self, observation: dict) -> np.ndarray:
        h = self._heuristic
        rows = np.zeros((self.num_actions, self.PER_ACTION), dtype=np.float32)
        legal_array = np.asarray(observation["action_mask"]).nonzero()[0]
        if legal_array.size == 0:
            return rows.ravel()
        legal = legal_array.tolist()
        # the legal actions' rows, one row of this table per column (float64; rounded to float32 once, on the
        # way into ``rows``), the columns of the action alone already there
        table = self._static[:, legal_array]
        kind = h._kind_of[legal[-1]]
        if kind in (A_DRAW, A_DISCARD):  # draw or discard a pair: the heuristic discards the highest first
            values = [self._discard_points[a] for a in legal]
            reading = None
        else:
            reading = h.read(observation)
            if kind == A_GIVE_CARD:
                parts = h._give_card_parts(reading, legal)
                values = [p["value"] for p in parts]
                table[4] = [p["partner"] for p in parts]
                table[5] = [1.0 + value / 20.0 for value in values]
            elif kind == A_TAKE:
                parts = h._take_parts(observation, reading, legal)
                values = [p["value"] for p in parts]
                table[6] = [min(p.get("gain", 0.0) / 4.0, 1.0) for p in parts]
                table[7] = [p.get("balance", 0.0) for p in parts]
            elif kind == A_GIVE_COLOUR:
                parts = h._give_colour_parts(reading, legal)
                values = [p["value"] for p in parts]
                table[7] = [p["balance"] for p in parts]
            elif kind == A_CURSE_GIVE:
                parts = h._curse_give_parts(reading, legal)
                values = [h._curse_give_value(p) for p in parts]
                table[4] = [p["pair"] for p in parts]
                table[8] = [(p["paired"] + 1.0) / 2.0 if p["pair"] > 0 else 0.0 for p in parts]
                table[9] = [p["passed"] + 0.5 for p in parts]
                table[10] = [p["ends"] for p in parts]
                table[11] = [(value + 1.0) / 2.0 for value in values]
            else:  # the dice opponent
                parts = h._choose_target_parts(reading, legal)
                values = [p["value"] for p in parts]
                table[6] = [min(p["gain"] / 4.0, 1.0) for p in parts]
                table[12] = [p["holder"] for p in parts]
            # the receiver (or victim, or dice opponent) of each action: its hand size and score
            receivers = [h._offset_of[a] for a in legal]
            table[13] = [min(reading.hand_size[k] / 7.0, 1.0) if k else 0.0 for k in receivers]
            table[14] = [min(reading.scores[k] / 16.0, 1.0) if k else 0.0 for k in receivers]
        table[15, h._best_set(values)] = 1.0
        if self.version >= 1:
            endings = h.sure_endings(observation, legal, reading)
            if endings:
                index = {a: i for i, a in enumerate(legal)}
                for a, outcome in endings.items():
                    table[16 if outcome != LOSS else 17, index[a]] = 0.5 if outcome == SHARE else 1.0
        # clipped before the rounding, the same numbers: 0 and 1 are float32 numbers, and rounding keeps order
        np.minimum(table, 1.0, out=table)
        rows[legal_array] = np.maximum(table, 0.0, out=table).T
        return rows.ravel()

    @staticmethod
    def proves_dominance(game) -> bool:
        """Whether :meth:`dominated` can prove anything under ``game``'s options: not with ``reward="points"``,
        which pays a seat its own points, so a sole win need not pay the most nor a loss the least."""
        return game.reward != "points"

    def dominated(self, observation: dict) -> np.ndarray | None:
        """Which actions a sure ending beats (:func:`~kakurega.agents.heuristics.kakurenbo_endings.dominated`),
        as a mask over the actions, from the seat's observation only (a rule of the game: the same in every
        version of the features); None with ``reward="points"`` (see :meth:`proves_dominance`)."""
        if not self.proves_dominance(self._heuristic.game):
            return None
        legal = np.asarray(observation["action_mask"]).nonzero()[0]
        mask = np.zeros(self.num_actions, dtype=bool)
        endings = self._heuristic.sure_endings(observation, legal)
        if endings:
            mask[dominated(endings, legal)] = True
        return mask
