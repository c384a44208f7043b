"""KAKURENBO 掴恋慕: the rules engine (both variants, 3-5 players).

Implements ``../shared/rules/kakurenbo.md``. Cards are integers: body-part
card ``c`` (0..13) is part ``c // 2`` (table order head, chest, waist, right
arm, left arm, right leg, left leg) in colour ``c % 2`` (0 red, 1 blue); its
partner is ``c ^ 1``; ``CURSE`` is 14. Seats are clockwise; the *left* of seat
``i`` is ``i + 1`` and its *right* is ``i - 1`` (mod n). Actions name other
players by their clockwise offset ``k`` (1..n-1) from the acting seat, so
offset 1 is the left neighbour and offset n-1 the right neighbour.

The state is plain data (lists of ints); chance (deal, random takes, dice)
comes from the generator passed to :meth:`KakurenboGame.apply_action`.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass, field

import numpy as np

from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.core.options import Option
from kakurega.envs.core.rewards import SHARED_WIN, ZERO_SUM, win_return_bounds, win_returns
from kakurega.envs.kakurenbo import knowledge as kn
from kakurega.envs.kakurenbo.knowledge import COLOUR_OF, CURSE, NUM_BODY_CARDS, UNKNOWN

VARIANTS = ("kakurenbo", "kurayami")
REWARD_MODES = ("win", "points")
MIN_PLAYERS, MAX_PLAYERS = 3, 5
DEFAULT_MAX_STEPS = 200
MAX_STEPS = 1_000_000  #: bound of the max_steps option
#: phase 2 determinizations: pair-holding deals redrawn at most this often before a direct search (see resample_hidden)
RESAMPLE_ATTEMPTS = 200

# The options (envs/core/options.py): the env declares them, KakurenboGame checks its arguments with them.
VARIANT_OPTION = Option("variant", str, "kakurenbo", "hide-and-seek (faces seen, card functions) or gloom (blind phase 1, "
                 "dice phase 2)", choices=VARIANTS)
NUM_PLAYERS_OPTION = Option("num_players", int, 4, "players at the table", low=MIN_PLAYERS, high=MAX_PLAYERS)
MAX_STEPS_OPTION = Option("max_steps", int, DEFAULT_MAX_STEPS, "agent actions after which the game is truncated "
                          "and scored as ended", low=1, high=MAX_STEPS)
#: version 0's reward option ("win" is the shared-win scheme of :mod:`kakurega.envs.core.rewards`)
REWARD_OPTION = Option("reward", str, "win", "+1 each winner / −1 everyone else at the end, or points as scored",
                choices=REWARD_MODES)
#: version 1's: zero-sum by default, the old scheme kept as ``"shared_win"``
REWARD_OPTION_V1 = Option("reward", str, ZERO_SUM, "``\"zero_sum\"``: n/(n−1)·(1/k − 1/n) to each of k winners, "
                          "−1/(n−1) to every other player (a lone winner +1); ``\"shared_win\"``: +1 each winner, "
                          "−1 everyone else; ``\"points\"``: points as scored", choices=(ZERO_SUM, SHARED_WIN, "points"))
#: what the rules accept: every version's modes ("win" and "shared_win" are one scheme)
GAME_REWARD_OPTION = Option("reward", str, "win", "the reward mode of any version",
                            choices=("win", ZERO_SUM, SHARED_WIN, "points"))

PARTS = ("head", "chest", "waist", "right arm", "left arm", "right leg", "left leg")
POINTS = (4, 3, 3, 2, 2, 1, 1)
HEAD, CHEST, WAIST, RIGHT_ARM, LEFT_ARM, RIGHT_LEG, LEFT_LEG = range(7)
COLOURS = ("red", "blue")
RED, BLUE = 0, 1
NUM_PARTS = 7

# Pending decisions ("stages"); the names are used by the observation and docs.
MAIN = 0  # Kakurenbo phase 1: draw or discard a pair
GIVE_CARD = 1  # Kakurenbo phase 1, red on top after a draw: give a chosen card
TAKE = 2  # phase 1, blue on top after a draw: take a colour from a player
CURSE_GIVE = 3  # Kakurenbo phase 2: give the Curse with one card
DRAW = 4  # Kurayami phase 1: draw (the only option)
GIVE_COLOUR = 5  # Kurayami phase 1, red on top: give a card of a chosen colour
CHOOSE_TARGET = 6  # Kurayami phase 2: choose the player to roll the dice against
DICE_TAKE = 7  # Kurayami phase 2 after the dice: the taker names a colour
OVER = 8  # the game ended by its rules
STAGE_NAMES = (
    "draw or discard",
    "give a card",
    "take a card",
    "give the Curse",
    "draw",
    "give a colour",
    "choose a dice opponent",
    "take after the dice",
    "game over",
)
NUM_STAGES = 8  # live stages (OVER excluded)

# Action kinds (see KakurenboGame.__init__ for the id layout).
A_DRAW, A_DISCARD, A_GIVE_CARD, A_GIVE_COLOUR, A_TAKE, A_CURSE_GIVE, A_TARGET = range(7)
KIND_NAMES = ("draw", "discard", "give card", "give colour", "take", "give Curse", "choose dice opponent")
#: the action kinds each stage accepts
STAGE_KINDS = {
    MAIN: (A_DRAW, A_DISCARD),
    GIVE_CARD: (A_GIVE_CARD,),
    TAKE: (A_TAKE,),
    CURSE_GIVE: (A_CURSE_GIVE,),
    DRAW: (A_DRAW,),
    GIVE_COLOUR: (A_GIVE_COLOUR,),
    CHOOSE_TARGET: (A_TARGET,),
    DICE_TAKE: (A_TAKE,),
    OVER: (),
}


def card_name(card: int) -> str:
    """``"right arm (red)"``, ``"head (blue)"`` or ``"Kaku's Curse"``."""
    if card == CURSE:
        return "Kaku's Curse"
    return f"{PARTS[card >> 1]} ({COLOURS[card & 1]})"


@dataclass
class KakurenboState:
    """Everything about one game; plain data (lists of ints) so it copies, compares and pickles."""

    #: cards of every seat, sorted by card id (the Curse, 14, last)
    hands: list
    #: the face-down pile, bottom first: ``pile[-1]`` is the top, the Curse lies at ``pile[0]``
    pile: list
    #: per body part: the seat that discarded its pair, or -1
    discarded_by: list
    scores: list
    #: per seat: 1 once its hand is open to everyone (a head pair)
    open_hand: list
    #: ``knowledge[observer][card]``: seat known to hold the body-part card, or -1 (see knowledge.py)
    knowledge: list
    #: per body-part card: bitmask of seats whose knowledge of it its holder shares
    aware: list
    phase: int = 1
    stage: int = MAIN
    #: seat that must decide now (-1 when over)
    actor: int = 0
    #: seat whose turn it is (differs from ``actor`` only for Kurayami's off-turn colour choice)
    active: int = 0
    #: Kurayami phase 2: the player the active player chose for the dice, else -1
    target: int = -1
    curse_holder: int = -1
    #: last dice roll ``[red, blue]`` (``[0, 0]`` before the first)
    dice: list = field(default_factory=lambda: [0, 0])
    #: rolls in the last dice exchange (more than 1 after re-rolls)
    rolls: int = 0
    #: agent actions taken so far (the step limit counts these)
    steps: int = 0
    over: bool = False
    #: public part of the last agent action: (kind, actor, other seat or -1, colour or -1)
    last_move: tuple = (-1, -1, -1, -1)
    #: public events the last action caused, as tuples (for logs and renders)
    events: list = field(default_factory=list)
    #: ``colour_counts[2 * seat + colour]``: body-part cards of that colour in the seat's
    #: hand (public: the backs show the colour). Derived from ``hands``, kept up to date
    #: where cards move (draw, give/take, discard, hand exchange); computed when not given.
    colour_counts: list = None

    def __post_init__(self):
        if self.colour_counts is None:
            self.colour_counts = count_colours(self.hands)


#: every field of a state, in declaration order (what fingerprints cover; ``colour_counts``
#: is derived from ``hands``, so covering it also catches a count out of step)
STATE_FIELDS = tuple(KakurenboState.__dataclass_fields__)


def count_colours(hands) -> list[int]:
    """``[red, blue]`` body-part counts of every hand, flattened: the ``colour_counts`` of ``hands``."""
    counts = [0] * (2 * len(hands))
    for seat, hand in enumerate(hands):
        for c in hand:
            if c != CURSE:
                counts[2 * seat + (c & 1)] += 1
    return counts


class KakurenboGame(Game):
    """KAKURENBO under one configuration: variant, player count, step limit and reward mode.

    Action ids (``m = num_players - 1`` offsets, ``k`` = clockwise offset 1..m):

    ==================  =========================================  ==================
    block               id                                         used in
    ==================  =========================================  ==================
    draw                ``0``                                      phase 1
    discard pair p      ``1 + p``                                  Kakurenbo phase 1
    give card c to k    ``8 + c*m + (k-1)``                        Kakurenbo phase 1
    give colour to k    ``8 + 14m + colour*m + (k-1)``             Kurayami phase 1
    take colour from k  ``8 + 16m + colour*m + (k-1)``             phase 1; Kurayami dice
    Curse + card c to k ``8 + 18m + c*m + (k-1)``                  Kakurenbo phase 2
    dice opponent k     ``8 + 32m + (k-1)``                        Kurayami phase 2
    ==================  =========================================  ==================
    """

    name = "kakurenbo"

    def __init__(
        self,
        variant: str = VARIANT_OPTION.default,
        num_players: int = NUM_PLAYERS_OPTION.default,
        max_steps: int = MAX_STEPS_OPTION.default,
        reward: str = GAME_REWARD_OPTION.default,
    ):
        """The rules for these options, each checked by its :class:`Option` (as the env checks them)."""
        self.variant = VARIANT_OPTION.check(variant)
        self.kurayami = variant == "kurayami"
        self.num_players = n = NUM_PLAYERS_OPTION.check(num_players)
        self.max_steps = MAX_STEPS_OPTION.check(max_steps)
        self.reward = GAME_REWARD_OPTION.check(reward)
        #: how winning pays ("zero_sum" or "shared_win"; unused in points mode)
        self.win_scheme = ZERO_SUM if reward == ZERO_SUM else SHARED_WIN
        m = n - 1
        self.num_offsets = m
        self.DISCARD_BASE = 1
        self.GIVE_CARD_BASE = 1 + NUM_PARTS
        self.GIVE_COLOUR_BASE = self.GIVE_CARD_BASE + NUM_BODY_CARDS * m
        self.TAKE_BASE = self.GIVE_COLOUR_BASE + 2 * m
        self.CURSE_GIVE_BASE = self.TAKE_BASE + 2 * m
        self.TARGET_BASE = self.CURSE_GIVE_BASE + NUM_BODY_CARDS * m
        self.num_actions = self.TARGET_BASE + m
        # decode[action] = (kind, argument, offset): argument is a part, card or colour
        decode = [(A_DRAW, -1, 0)]
        decode += [(A_DISCARD, p, 0) for p in range(NUM_PARTS)]
        decode += [(A_GIVE_CARD, c, k) for c in range(NUM_BODY_CARDS) for k in range(1, n)]
        decode += [(A_GIVE_COLOUR, col, k) for col in (RED, BLUE) for k in range(1, n)]
        decode += [(A_TAKE, col, k) for col in (RED, BLUE) for k in range(1, n)]
        decode += [(A_CURSE_GIVE, c, k) for c in range(NUM_BODY_CARDS) for k in range(1, n)]
        decode += [(A_TARGET, -1, k) for k in range(1, n)]
        assert len(decode) == self.num_actions
        self.decode = tuple(decode)
        # Action id tables for legal_actions, per acting seat ``me`` (other seats by offset k).
        #: per card: its give actions (to offsets 1..m), and its Curse-give actions
        self._give_card_ids = tuple(tuple(self.give_card_action(c, k) for k in range(1, n)) for c in range(NUM_BODY_CARDS))
        self._curse_give_ids = tuple(tuple(self.curse_give_action(c, k) for k in range(1, n)) for c in range(NUM_BODY_CARDS))
        self._give_colour_ids = tuple(tuple(self.give_colour_action(colour, k) for k in range(1, n)) for colour in (RED, BLUE))
        #: per seat: (index of the colour count in ``colour_counts``, take action), sorted by action
        self._take_ids = [
            tuple((2 * ((me + k) % n) + colour, self.take_action(colour, k)) for colour in (RED, BLUE) for k in range(1, n))
            for me in range(n)
        ]
        #: per seat: (other seat, dice-opponent action), sorted by action
        self._target_ids = [tuple(((me + k) % n, self.target_action(k)) for k in range(1, n)) for me in range(n)]
        self._zeros = np.zeros(n, dtype=np.float64)
        self._zeros.flags.writeable = False
        self.options = {"variant": variant, "num_players": n, "max_steps": self.max_steps, "reward": reward}

    # ------------------------------------------------------------ action ids
    def draw_action(self) -> int:
        """Id of "draw": ``0``."""
        return 0

    def discard_action(self, part: int) -> int:
        """Id of "discard the pair of ``part``": ``1 + part`` (``discard_action(HEAD) == 1``)."""
        return self.DISCARD_BASE + part

    def give_card_action(self, card: int, offset: int) -> int:
        """Id of "give ``card`` to the player ``offset`` seats to the left"."""
        return self.GIVE_CARD_BASE + card * self.num_offsets + offset - 1

    def give_colour_action(self, colour: int, offset: int) -> int:
        """Id of Kurayami's "give a card of ``colour`` to the player ``offset`` seats left"."""
        return self.GIVE_COLOUR_BASE + colour * self.num_offsets + offset - 1

    def take_action(self, colour: int, offset: int) -> int:
        """Id of "take a card of ``colour`` from the player ``offset`` seats to the left"."""
        return self.TAKE_BASE + colour * self.num_offsets + offset - 1

    def curse_give_action(self, card: int, offset: int) -> int:
        """Id of "give the Curse and ``card`` to the player ``offset`` seats to the left"."""
        return self.CURSE_GIVE_BASE + card * self.num_offsets + offset - 1

    def target_action(self, offset: int) -> int:
        """Id of Kurayami's "roll the dice against the player ``offset`` seats to the left"."""
        return self.TARGET_BASE + offset - 1

    # ----------------------------------------------------------------- setup
    def initial_state(self, rng: np.random.Generator) -> KakurenboState:
        """Deal one body-part card to each seat; the rest form the pile above the Curse."""
        n = self.num_players
        deck = rng.permutation(NUM_BODY_CARDS).tolist()
        hands = [[deck[i]] for i in range(n)]
        pile = [CURSE] + deck[n:]
        colour_counts = [0] * (2 * n)
        for seat in range(n):
            colour_counts[2 * seat + (deck[seat] & 1)] = 1
        knowledge = [[UNKNOWN] * NUM_BODY_CARDS for _ in range(n)]
        if not self.kurayami:
            for seat in range(n):
                knowledge[seat][deck[seat]] = seat
        return KakurenboState(
            hands=hands,
            pile=pile,
            discarded_by=[-1] * NUM_PARTS,
            scores=[0] * n,
            open_hand=[0] * n,
            knowledge=knowledge,
            aware=[0] * NUM_BODY_CARDS,
            stage=DRAW if self.kurayami else MAIN,
            colour_counts=colour_counts,
        )

    # ------------------------------------------------------------ inspection
    def current_player(self, state: KakurenboState) -> int:
        """Seat that decides now, or TERMINAL."""
        if state.over or state.steps >= self.max_steps:
            return TERMINAL
        return state.actor

    def is_terminal(self, state: KakurenboState) -> bool:
        """True once the Curse holder is left with the Curse alone."""
        return state.over

    def is_truncated(self, state: KakurenboState) -> bool:
        """True when the step limit cut the game off before its end."""
        return not state.over and state.steps >= self.max_steps

    def faces_visible(self, state: KakurenboState) -> bool:
        """False only in Kurayami phase 1, when nobody sees any face."""
        return not (self.kurayami and state.phase == 1)

    def known_row(self, state: KakurenboState, observer: int) -> list[int]:
        """Where ``observer`` knows each body-part card is (seat or -1), counting included.

        Counting proves nothing to anyone in Kurayami phase 1, when no face
        has been seen (it could otherwise name one's own unseen cards).
        """
        if self.kurayami and state.phase == 1:  # not faces_visible(state)
            return state.knowledge[observer]
        return kn.located(state, observer)

    def legal_actions(self, state: KakurenboState) -> list[int]:
        """Sorted legal action ids of the seat to act (id tables from ``__init__``)."""
        if state.over or state.steps >= self.max_steps:
            return []
        stage = state.stage
        me = state.actor
        if stage == MAIN:
            actions = [0]
            hand = state.hands[me]
            for i in range(len(hand) - 1):
                c = hand[i]
                if not c & 1 and hand[i + 1] == c + 1:
                    actions.append(self.DISCARD_BASE + (c >> 1))
            return actions
        if stage == DRAW:
            return [0]
        if stage == GIVE_CARD or stage == CURSE_GIVE:
            ids = self._give_card_ids if stage == GIVE_CARD else self._curse_give_ids
            actions = []
            for c in state.hands[me]:
                if c != CURSE:
                    actions += ids[c]
            return actions
        counts = state.colour_counts
        if stage == TAKE:
            # a colour can be taken from every other player holding a card of it
            return [action for at, action in self._take_ids[me] if counts[at]]
        if stage == GIVE_COLOUR:
            actions = []
            if counts[2 * me]:
                actions += self._give_colour_ids[RED]
            if counts[2 * me + 1]:
                actions += self._give_colour_ids[BLUE]
            return actions
        if stage == CHOOSE_TARGET:
            hands = state.hands
            return [action for seat, action in self._target_ids[me] if hands[seat]]
        if stage == DICE_TAKE:
            k = (state.target - me) % self.num_players
            at = 2 * state.target
            return [self.TAKE_BASE + colour * self.num_offsets + k - 1 for colour in (RED, BLUE) if counts[at + colour]]
        raise AssertionError(f"unknown stage {stage}")

    # ----------------------------------------------------------------- apply
    def apply_action(self, state: KakurenboState, action: int, rng: np.random.Generator) -> None:
        """Apply the legal ``action`` of the seat to act, then everything it triggers.

        The env checks legality against the mask; this engine checks only
        what is cheap (the game is live and the action is of the kind the
        pending decision asks for) and otherwise trusts its caller.
        """
        kind, arg, k = self.decode[action]
        if state.over or state.steps >= self.max_steps or kind not in STAGE_KINDS[state.stage]:
            words = self.action_to_string(state, action)
            raise ValueError(f"illegal action {action} ({words}): {self.illegal_reason(state, action)}")
        me = state.actor
        n = self.num_players
        other = (me + k) % n
        state.steps += 1
        state.events = []
        if kind == A_DRAW:
            return self._draw(state, me)
        if kind == A_DISCARD:
            state.last_move = (A_DISCARD, me, -1, -1)
            self._discard(state, me, arg, functions=False)
            self._next_turn_phase1(state)
        elif kind == A_GIVE_CARD:
            state.last_move = (A_GIVE_CARD, me, other, arg & 1)
            state.events.append(("give", me, other, arg & 1))
            kn.move_card(state, arg, me, other, faces_seen=True)
            self._next_turn_phase1(state)
        elif kind == A_GIVE_COLOUR:
            state.last_move = (A_GIVE_COLOUR, me, other, arg)
            state.events.append(("give", me, other, arg))
            card = self._random_card(state.hands[me], arg, rng)
            kn.move_card(state, card, me, other, faces_seen=False)
            self._next_turn_phase1(state)
        elif kind == A_TAKE:
            state.last_move = (A_TAKE, me, other, arg)
            state.events.append(("take", me, other, arg))
            card = self._random_card(state.hands[other], arg, rng)
            kn.move_card(state, card, other, me, faces_seen=self.faces_visible(state))
            if state.stage == TAKE:
                self._next_turn_phase1(state)
            else:  # Kurayami dice take: pairs go at once, then the next turn
                # (phase 2 hands hold no pair, so only the taken card can complete one)
                if card ^ 1 in state.hands[me]:
                    self._auto_discards(state, state.active, functions=False)
                self._end_dice_exchange(state)
        elif kind == A_CURSE_GIVE:
            state.last_move = (A_CURSE_GIVE, me, other, arg & 1)
            state.events.append(("give Curse", me, other, arg & 1))
            state.hands[me].remove(CURSE)
            state.hands[other].append(CURSE)
            state.curse_holder = other
            kn.move_card(state, arg, me, other, faces_seen=True)
            state.actor = state.active = other
            # Phase 2 hands hold no pair, so only the given card can complete one.
            if arg ^ 1 in state.hands[other]:
                self._auto_discards(state, other, functions=True)
            self._check_end(state)
        elif kind == A_TARGET:
            state.last_move = (A_TARGET, me, other, -1)
            state.events.append(("dice opponent", me, other))
            state.target = other
            self._roll_dice(state, me, other, rng)

    @staticmethod
    def _random_card(hand, colour: int, rng: np.random.Generator) -> int:
        """A card of ``colour`` drawn uniformly from ``hand`` (chance)."""
        candidates = [c for c in hand if COLOUR_OF[c] == colour]
        if len(candidates) == 1:
            return candidates[0]
        return candidates[int(rng.integers(len(candidates)))]

    def _draw(self, state: KakurenboState, me: int) -> None:
        """Draw the top card, then act on the colour of the new top card."""
        card = state.pile.pop()
        insort(state.hands[me], card)
        state.colour_counts[2 * me + (card & 1)] += 1
        if not self.kurayami:
            state.knowledge[me][card] = me
        state.last_move = (A_DRAW, me, -1, card & 1)
        state.events.append(("draw", me, card & 1))
        top = state.pile[-1]
        if top == CURSE:
            state.pile.pop()
            state.hands[me].append(CURSE)
            state.curse_holder = me
            state.events.append(("takes the Curse", me))
            self._start_phase2(state, me)
        elif top & 1 == RED:
            state.stage = GIVE_COLOUR if self.kurayami else GIVE_CARD
        elif sum(state.colour_counts) > len(state.hands[me]):  # another player holds a card
            state.stage = TAKE
        else:
            state.events.append(("nobody to take from", me))
            self._next_turn_phase1(state)

    def _next_turn_phase1(self, state: KakurenboState) -> None:
        """Phase 1: the turn passes clockwise."""
        state.actor = state.active = (state.active + 1) % self.num_players
        state.stage = DRAW if self.kurayami else MAIN

    def _start_phase2(self, state: KakurenboState, holder: int) -> None:
        """The Curse came out: Kakurenbo's Curse passing or Kurayami's flip and dice."""
        state.phase = 2
        state.actor = state.active = holder
        if self.kurayami:
            state.events.append(("flip",))
            for seat, hand in enumerate(state.hands):
                row = state.knowledge[seat]
                for c in hand:
                    if c != CURSE:
                        row[c] = seat
            self._auto_discards(state, holder, functions=False)
            state.stage = CHOOSE_TARGET
        else:
            self._auto_discards(state, holder, functions=True)
            state.stage = CURSE_GIVE
        self._check_end(state)

    def _roll_dice(self, state: KakurenboState, a: int, b: int, rng: np.random.Generator) -> None:
        """Roll red and blue until they differ or the Curse passes between ``a`` and ``b``."""
        state.rolls = 0
        while True:
            roll = int(rng.integers(36))
            red, blue = roll // 6 + 1, roll % 6 + 1
            state.dice = [red, blue]
            state.rolls += 1
            state.events.append(("dice", red, blue))
            if red > blue:
                state.stage, state.actor, state.target = DICE_TAKE, a, b
                return
            if blue > red:
                state.stage, state.actor, state.target = DICE_TAKE, b, a
                return
            holder = state.curse_holder
            if holder == a or holder == b:
                receiver = b if holder == a else a
                state.hands[holder].remove(CURSE)
                state.hands[receiver].append(CURSE)
                state.curse_holder = receiver
                state.events.append(("Curse passes", holder, receiver))
                self._end_dice_exchange(state)
                return

    def _end_dice_exchange(self, state: KakurenboState) -> None:
        """Kurayami phase 2: check the end, else the next player clockwise with cards takes the turn."""
        state.target = -1
        if self._check_end(state):
            return
        n = self.num_players
        for k in range(1, n + 1):
            seat = (state.active + k) % n
            if state.hands[seat]:
                state.actor = state.active = seat
                break
        state.stage = CHOOSE_TARGET

    def _check_end(self, state: KakurenboState) -> bool:
        """The game ends when the Curse holder's hand is the Curse alone."""
        holder = state.curse_holder
        if holder >= 0 and len(state.hands[holder]) == 1:
            state.over = True
            state.stage = OVER
            state.actor = -1
            state.target = -1
            state.events.append(("stuck with the Curse", holder))
            return True
        return False

    # -------------------------------------------------------------- discards
    def _discard(self, state: KakurenboState, seat: int, part: int, functions: bool) -> None:
        """``seat`` discards the pair of ``part``; with ``functions`` its card function applies."""
        red, blue = 2 * part, 2 * part + 1
        hand = state.hands[seat]
        hand.remove(red)
        hand.remove(blue)
        state.colour_counts[2 * seat] -= 1
        state.colour_counts[2 * seat + 1] -= 1
        state.discarded_by[part] = seat
        kn.forget_cards(state, (red, blue))
        state.events.append(("discard", seat, part))
        n = self.num_players
        scorer = seat
        if functions:
            if part == CHEST:
                scorer = (seat - 1) % n
            elif part == WAIST:
                scorer = (seat + 1) % n
        state.scores[scorer] += POINTS[part]
        if not functions:
            return
        if part == HEAD:
            state.open_hand[seat] = 1
            kn.open_hand(state, seat)
            state.events.append(("opens hand", seat))
        elif part == RIGHT_ARM or part == LEFT_ARM:
            viewer = (seat - 1) % n if part == RIGHT_ARM else (seat + 1) % n
            kn.reveal_hand(state, seat, viewer)
            state.events.append(("shows hand", seat, viewer))
        elif part == RIGHT_LEG or part == LEFT_LEG:
            neighbour = (seat - 1) % n if part == RIGHT_LEG else (seat + 1) % n
            kn.exchange_hands(state, seat, neighbour)
            state.events.append(("exchanges hands", seat, neighbour))
        # An open hand stays open to everyone whatever it receives.
        for s in range(n):
            if state.open_hand[s]:
                kn.open_hand(state, s)

    def _auto_discards(self, state: KakurenboState, start: int, functions: bool) -> None:
        """Phase 2: discard every pair at once, from ``start`` clockwise, highest pair first, until none."""
        n = self.num_players
        hands = state.hands
        while True:
            for i in range(n):
                seat = (start + i) % n
                hand = hands[seat]
                part = -1
                for j in range(len(hand) - 1):
                    c = hand[j]
                    if not c & 1 and hand[j + 1] == c + 1:
                        part = c >> 1
                        break
                if part >= 0:
                    break
            else:
                return
            self._discard(state, seat, part, functions)

    # --------------------------------------------------------------- scoring
    def final_scores(self, state: KakurenboState) -> list[int]:
        """Scores as they stand if the game ended now: the Curse holder's points are void."""
        scores = list(state.scores)
        if state.curse_holder >= 0:
            scores[state.curse_holder] = 0
        return scores

    def winners(self, state: KakurenboState) -> list[int]:
        """Seats that win if the game ended now (ties share the win; may be empty in Kurayami)."""
        scores = self.final_scores(state)
        if self.kurayami:
            candidates = [s for s in range(self.num_players) if not state.hands[s]]
        else:
            candidates = [s for s in range(self.num_players) if s != state.curse_holder]
        if not candidates:
            return []
        best = max(scores[s] for s in candidates)
        return [s for s in candidates if scores[s] == best]

    def returns(self, state: KakurenboState) -> np.ndarray:
        """Cumulative returns: the win schemes pay at the end (:mod:`~kakurega.envs.core.rewards`); points as scored."""
        finished = state.over or state.steps >= self.max_steps
        if self.reward == "points":
            return np.asarray(self.final_scores(state) if finished else state.scores, dtype=np.float64)
        if not finished:
            return self._zeros  # shared and read-only
        return win_returns(self.win_scheme, self.num_players, self.winners(state))

    def result_words(self, state, viewer: int | None = None) -> list[str]:
        """How the finished game ended, in words (:mod:`kakurega.envs.kakurenbo.results`)."""
        from kakurega.envs.kakurenbo import results

        return results.result_words(self, state, viewer)

    def return_bounds(self) -> tuple[float, float]:
        """Points: 0 to all 16 pair points; the win schemes: their range (:func:`~kakurega.envs.core.rewards.win_return_bounds`)."""
        if self.reward == "points":
            return 0.0, float(sum(POINTS))  # each pair is discarded once; the Curse holder's points are void
        return win_return_bounds(self.win_scheme, self.num_players)

    def max_decisions(self) -> int:
        """``max_steps``: every decision is one step."""
        return self.max_steps

    def is_zero_sum(self) -> bool:
        """True for ``reward="zero_sum"``."""
        return self.reward == ZERO_SUM

    def pays_only_at_end(self) -> bool:
        """True for the win schemes; ``reward="points"`` pays each pair as it is scored."""
        return self.reward != "points"

    # ----------------------------------------------------------------- words
    def seat_name(self, seat: int) -> str:
        """``"player_2"``."""
        return f"player_{seat}"

    def _whom(self, state: KakurenboState | None, offset: int) -> str:
        actor = -1 if state is None else state.actor
        if actor >= 0:
            return self.seat_name((actor + offset) % self.num_players)
        if offset == 1:
            return "the left neighbour"
        if offset == self.num_players - 1:
            return "the right neighbour"
        return f"the player {offset} seats to the left"

    def action_to_string(self, state: KakurenboState | None, action: int) -> str:
        """E.g. ``"give right arm (red) to player_2"``; seats are named from the actor in ``state``."""
        if not 0 <= action < self.num_actions:
            return f"action {action} (out of range 0..{self.num_actions - 1})"
        kind, arg, k = self.decode[action]
        if kind == A_DRAW:
            return "draw the top card of the pile"
        if kind == A_DISCARD:
            return f"discard the {PARTS[arg]} pair"
        whom = self._whom(state, k)
        if kind == A_GIVE_CARD:
            return f"give {card_name(arg)} to {whom}"
        if kind == A_GIVE_COLOUR:
            return f"give a {COLOURS[arg]} card to {whom}"
        if kind == A_TAKE:
            return f"take a {COLOURS[arg]} card from {whom}"
        if kind == A_CURSE_GIVE:
            return f"give Kaku's Curse with {card_name(arg)} to {whom}"
        return f"roll the dice against {whom}"

    def winning_note(self, state: KakurenboState, action: int) -> str:
        """``"wins at once"`` (or ``"shares the win at once"``) for a Curse give or a dice take that the mover
        knows ends the game with it among the winners (:mod:`~kakurega.envs.kakurenbo.winning`)."""
        from kakurega.envs.kakurenbo.winning import winning_note

        return winning_note(self, state, action)

    def public_action_string(self, before: KakurenboState, action: int, after: KakurenboState,
                             viewer: int | None) -> str:
        """The move in ``viewer``'s words (:mod:`~kakurega.envs.kakurenbo.moves`): its public events, faces the viewer knows.

        E.g. to player_0: ``"player_2 takes your chest (blue)"``; to player_1: ``"player_2 takes a blue card from player_0"``.
        """
        from kakurega.envs.kakurenbo.moves import public_action_string

        return public_action_string(self, before, action, after, viewer)

    def illegal_reason(self, state: KakurenboState, action: int) -> str:
        """Why ``action`` is illegal now, in the words of the rules."""
        if not 0 <= action < self.num_actions:
            return f"action ids run from 0 to {self.num_actions - 1}"
        if state.over:
            return "the game is over"
        if state.steps >= self.max_steps:
            return f"the step limit of {self.max_steps} actions was reached"
        if action in self.legal_actions(state):
            return "it is legal"
        kind, arg, k = self.decode[action]
        stage = state.stage
        me = state.actor
        other = (me + k) % self.num_players
        variant = "Kurayami" if self.kurayami else "Kakurenbo"
        if kind not in STAGE_KINDS[stage]:
            expected = {
                MAIN: "draw a card or discard a pair",
                GIVE_CARD: "give one card of your hand to another player (red on top of the pile)",
                TAKE: "take a card of a colour from another player (blue on top of the pile)",
                CURSE_GIVE: "give Kaku's Curse together with another card of your hand",
                DRAW: "draw (Kurayami phase 1 turns are always a draw)",
                GIVE_COLOUR: "give a card of a colour to another player (red on top of the pile)",
                CHOOSE_TARGET: "choose the player to roll the dice against",
                DICE_TAKE: f"name the colour of the card you take from {self.seat_name(state.target)}",
            }[stage]
            what = KIND_NAMES[kind]
            if kind == A_DISCARD and self.kurayami:
                return "Kurayami has no discard action: pairs are discarded automatically after the flip"
            if kind in (A_GIVE_CARD, A_CURSE_GIVE, A_DISCARD) and self.kurayami:
                return f"'{what}' is not an action of the Kurayami variant; now you must {expected}"
            if kind in (A_GIVE_COLOUR, A_TARGET) and not self.kurayami:
                return f"'{what}' belongs to the Kurayami variant; now you must {expected}"
            return f"{variant} phase {state.phase} asks you to {expected}, not to {what}"
        if kind == A_DISCARD:
            return f"you do not hold the {PARTS[arg]} pair (both the red and the blue card)"
        if kind in (A_GIVE_CARD, A_CURSE_GIVE):
            return f"you do not hold {card_name(arg)}"
        if kind == A_GIVE_COLOUR:
            return f"you hold no {COLOURS[arg]} card"
        if kind == A_TAKE:
            if stage == DICE_TAKE and other != state.target:
                return f"the dice let you take from {self.seat_name(state.target)} only"
            if not state.hands[other]:
                return f"{self.seat_name(other)} holds no card"
            return f"{self.seat_name(other)} holds no {COLOURS[arg]} card (the Curse is never taken)"
        if kind == A_TARGET:
            return f"{self.seat_name(other)} holds no card and has finished"
        return super().illegal_reason(state, action)

    # ------------------------------------------------- copies and fingerprints
    def clone(self, state: KakurenboState) -> KakurenboState:
        """A fast independent copy of ``state``."""
        return KakurenboState(
            hands=[list(h) for h in state.hands],
            pile=list(state.pile),
            discarded_by=list(state.discarded_by),
            scores=list(state.scores),
            open_hand=list(state.open_hand),
            knowledge=[list(r) for r in state.knowledge],
            aware=list(state.aware),
            phase=state.phase,
            stage=state.stage,
            actor=state.actor,
            active=state.active,
            target=state.target,
            curse_holder=state.curse_holder,
            dice=list(state.dice),
            rolls=state.rolls,
            steps=state.steps,
            over=state.over,
            last_move=state.last_move,
            events=list(state.events),
            colour_counts=list(state.colour_counts),
        )

    def fingerprint(self, state: KakurenboState) -> bytes:
        """Canonical bytes of every field (``repr``: independent of object sharing, unlike pickle)."""
        return repr(tuple(getattr(state, f) for f in STATE_FIELDS)).encode()

    # ------------------------------------------------------ determinization
    def _deal_hidden(self, state: KakurenboState, row: list, counts: list, rng: np.random.Generator):
        """Hands (sorted, without the Curse) and the pile's cards per colour: located cards where they are, every
        other live card of a colour dealt uniformly into that colour's free slots (the rest to the pile)."""
        n = self.num_players
        hands = [[] for _ in range(n)]
        pile_cards = [[], []]
        for colour in (RED, BLUE):
            free = [counts[s][colour] for s in range(n)]
            hidden = []
            for c in kn.CARDS_OF_COLOUR[colour]:
                holder = row[c]
                if holder >= 0:
                    hands[holder].append(c)
                    free[holder] -= 1
                elif state.discarded_by[c >> 1] < 0:
                    hidden.append(c)
            if hidden:
                order = rng.permutation(len(hidden))
                i = 0
                for seat in range(n):
                    for _ in range(free[seat]):
                        hands[seat].append(hidden[order[i]])
                        i += 1
                pile_cards[colour] = [hidden[j] for j in order[i:]]
        for hand in hands:
            hand.sort()
        return hands, pile_cards

    def _pair_free_deal(self, state: KakurenboState, row: list, counts: list, rng: np.random.Generator) -> list:
        """A pair-free phase 2 deal found by a depth-first search in random order (the pile is empty in phase 2).

        Used only when rejection has failed ``RESAMPLE_ATTEMPTS`` times (rare); the search always succeeds since
        the true state is such a deal, and it takes at most a few thousand steps for 14 cards.
        """
        n = self.num_players
        hands = [[] for _ in range(n)]
        free = [[counts[s][colour] for colour in (RED, BLUE)] for s in range(n)]
        hidden = []
        for c in range(NUM_BODY_CARDS):
            if row[c] >= 0:
                hands[row[c]].append(c)
                free[row[c]][c & 1] -= 1
            elif state.discarded_by[c >> 1] < 0:
                hidden.append(c)
        hidden = [hidden[j] for j in rng.permutation(len(hidden))]

        def place(i: int) -> bool:
            if i == len(hidden):
                return True
            c = hidden[i]
            for seat in rng.permutation(n):
                if free[seat][c & 1] and c ^ 1 not in hands[seat]:
                    free[seat][c & 1] -= 1
                    hands[seat].append(c)
                    if place(i + 1):
                        return True
                    hands[seat].pop()
                    free[seat][c & 1] += 1
            return False

        if not place(0):
            raise AssertionError("no pair-free deal matches the player's knowledge: the state breaks the rules")
        for hand in hands:
            hand.sort()
        return hands

    def resample_hidden(self, state: KakurenboState, player: int, rng: np.random.Generator) -> KakurenboState:
        """A state identical in all ``player`` knows; every card it cannot locate re-dealt uniformly.

        What ``player`` knows: the public part of the state and its row of
        ``knowledge``. Unlocated body-part cards of each colour are dealt
        uniformly into the free slots of that colour (hands by their public
        colour counts, the pile by its deduced colour counts); the pile is
        then ordered uniformly among orders whose top has the visible colour.
        The other players' knowledge in the sample is a function of
        ``player``'s information only: each knows its own faces (when faces
        are visible), the faces of open hands, and the cards of ``player``'s
        hand that ``player`` knows it knows about (``aware``). ``aware`` keeps
        only what ``player`` can tell. In phase 2 only pair-free deals are
        drawn (every pair is discarded at once there), uniformly among them.
        """
        n = self.num_players
        row = state.knowledge[player]
        counts = [[0, 0] for _ in range(n)]
        for seat, hand in enumerate(state.hands):
            for c in hand:
                if c != CURSE:
                    counts[seat][c & 1] += 1
        # Phase 2 resolves every pair at once, so no hand holds one at a decision: a deal that puts a pair in
        # a hand is not a state the player could be in, and is dealt again (rejection keeps the draw uniform
        # over the possible deals; the true state is one, so a pair-free deal exists).
        pair_free = state.phase == 2
        for _ in range(RESAMPLE_ATTEMPTS):
            hands, pile_cards = self._deal_hidden(state, row, counts, rng)
            if not pair_free or not any(c ^ 1 in hand for hand in hands for c in hand if not c & 1):
                break
        else:
            hands = self._pair_free_deal(state, row, counts, rng)
            pile_cards = [[], []]
        if state.curse_holder >= 0:
            hands[state.curse_holder].append(CURSE)
        pile = []
        if state.pile:
            # Top card: one of the pile's cards of the visible top colour; the rest in uniform order.
            top_colour = COLOUR_OF[state.pile[-1]]
            rest = pile_cards[1 - top_colour] + pile_cards[top_colour][1:] if top_colour != 2 else []
            top = pile_cards[top_colour][0] if top_colour != 2 else CURSE
            rest = [rest[j] for j in rng.permutation(len(rest))]
            pile = ([CURSE] if top != CURSE else []) + rest + [top]
        new = self.clone(state)
        new.hands = hands
        new.pile = pile
        visible = self.faces_visible(state)
        me_bit = 1 << player
        aware = [0] * NUM_BODY_CARDS
        for c in range(NUM_BODY_CARDS):
            holder = row[c]
            if holder == player:
                aware[c] = state.aware[c]
            elif holder >= 0:
                aware[c] = state.aware[c] & me_bit
        knowledge = []
        for seat in range(n):
            if seat == player:
                knowledge.append(list(row))
                continue
            known = [UNKNOWN] * NUM_BODY_CARDS
            bit = 1 << seat
            for holder, hand in enumerate(hands):
                own = visible and holder == seat
                public = state.open_hand[holder]
                for c in hand:
                    if c != CURSE and (own or public or aware[c] & bit):
                        known[c] = holder
            knowledge.append(known)
        new.knowledge = knowledge
        new.aware = aware
        return new
