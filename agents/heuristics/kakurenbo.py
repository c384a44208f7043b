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
  likely to complete a pair.
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.envs.kakurenbo.rules import (
    A_CURSE_GIVE,
    A_DISCARD,
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

    def reset(self) -> None:
        self._tried = {}

    # ------------------------------------------------------------ beliefs
    def _beliefs(self, obs) -> np.ndarray:
        """``prob[c, r]``: chance that body-part card ``c`` is in row ``r``'s hand (column n: the pile)."""
        n = self.n
        cards = self.piece(obs, "cards")
        counts = self.piece(obs, "colour_counts")
        pile_colours = self.piece(obs, "pile_colours")
        discarded = self.piece(obs, "discarded").sum(axis=1)
        prob = np.zeros((NUM_CARDS, n + 1))
        for colour in (0, 1):
            free = np.append(counts[:, colour].astype(float), pile_colours[colour])
            unknown = []
            for c in range(colour, NUM_CARDS, 2):
                row = np.flatnonzero(cards[c])
                if row.size:
                    prob[c, row[0]] = 1.0
                    free[row[0]] -= 1
                elif not discarded[c >> 1]:
                    unknown.append(c)
            total = free.sum()
            if unknown and total > 0:
                for c in unknown:
                    prob[c] = free / total
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

    def _best(self, legal, value) -> int:
        """The legal action with the highest value (ties broken at random)."""
        values = np.array([value(int(a)) for a in legal])
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(legal[self.rng.choice(best)])

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
        prob = self._beliefs(observation)
        decode = self.game.decode

        def value(a):
            _kind, card, k = decode[a]
            # cheap cards first; never hand a likely pair to the receiver
            return -POINTS[card >> 1] * (1.0 + 4.0 * prob[card ^ 1, k])

        return self._best(legal, value)

    def _take(self, observation, legal) -> int:
        counts = self.piece(observation, "colour_counts")
        decode = self.game.decode
        mine = self._my_cards(observation)
        if not mine:  # Kurayami phase 1 (or an empty hand): balance colours
            want = 0 if counts[0, 0] <= counts[0, 1] else 1

            def value(a):
                _kind, colour, k = decode[a]
                return (colour == want) * 10.0 + counts[k, colour]

            return self._best(legal, value)
        prob = self._beliefs(observation)
        scores = self.piece(observation, "scores")

        def value(a):
            _kind, colour, k = decode[a]
            return self._pair_chance(prob, counts, mine, colour, k) + 0.01 * scores[k]

        return self._best(legal, value)

    def _give_colour(self, observation, legal) -> int:
        counts = self.piece(observation, "colour_counts")
        decode = self.game.decode
        surplus = 0 if counts[0, 0] > counts[0, 1] else 1

        def value(a):
            _kind, colour, k = decode[a]
            return (colour == surplus) * 10.0 - counts[k].sum()

        return self._best(legal, value)

    # ------------------------------------------------------------ phase 2
    def _curse_give(self, observation, legal) -> int:
        n = self.n
        prob = self._beliefs(observation)
        counts = self.piece(observation, "colour_counts")
        scores = self.piece(observation, "scores").astype(float)
        hand_size = counts.sum(axis=1)
        decode = self.game.decode

        def value(a):
            _kind, card, k = decode[a]
            part = card >> 1
            # keep high cards: their pairs may still score for us; a give already made from this
            # very position came back to it, so its gamble on a pair did not pay: try another
            passed = self._standing(scores) - KEEP_HIGH_CARDS * POINTS[part] - REPEAT_PENALTY * tried.get(a, 0)
            p_pair = prob[card ^ 1, k]
            if p_pair <= 0:
                return passed
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
            else:
                paired = self._standing(scores + gains) + PAIR_PROGRESS
            return p_pair * paired + (1.0 - p_pair) * passed

        tried = self._tried.setdefault(self._position(observation), {})
        action = self._best(legal, value)
        tried[action] = tried.get(action, 0) + 1
        return action

    @staticmethod
    def _standing(scores) -> float:
        """How well we (row 0) stand on points, in (-0.5, 0.5): our lead over the best other score."""
        return 0.5 * float(np.tanh((scores[0] - np.delete(scores, 0).max()) / 4.0))

    def _position(self, observation) -> bytes:
        """The observation without the step counter: equal when a position comes back."""
        vector = np.array(observation["observation"])
        self.context.layout.view(vector, "steps_used")[...] = 0
        return vector.tobytes()

    def _choose_target(self, observation, legal) -> int:
        n = self.n
        prob = self._beliefs(observation)
        counts = self.piece(observation, "colour_counts")
        curse = self.piece(observation, "curse")
        holder = int(np.flatnonzero(curse)[0]) if curse.any() else n
        mine = self._my_cards(observation)
        decode = self.game.decode

        def value(a):
            k = decode[a][2]
            take = max(self._pair_chance(prob, counts, mine, colour, k) for colour in (0, 1))
            v = take
            if holder == k:
                v -= 6.0  # equal dice would pass the Curse to us
            if holder == 0:
                v += 0.1 * counts[k].sum()  # a well-stocked receiver keeps the game going
            return v

        return self._best(legal, value)
