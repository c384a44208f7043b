"""The KAKURENBO heuristic and its move features, read from lists, give the plain numpy code's numbers bit for bit.

The heuristic reads each observation once into lists (``kakurenbo_reading.Reading``) and scores its moves
in Python floats; the move features fill one small table of the legal actions' columns. The references below
are the plain versions they replaced: numpy views of the observation, one numpy scalar per question, the
values in numpy's arithmetic (a Python float times a float32 entry is a float32 product), ties broken by
``Generator.choice`` over the best indices, each feature written into the float32 rows one by one.
"""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent, choose_action
from kakurega.agents.heuristics import kakurenbo as heuristic_module
from kakurega.agents.heuristics.kakurenbo import (
    END_LOSS,
    END_WIN,
    KEEP_HIGH_CARDS,
    NUM_CARDS,
    PAIR_PROGRESS,
    REPEAT_PENALTY,
    SURE_LOSS_PENALTY,
    KakurenboHeuristic,
    KakurenboMoveFeatures,
)
from kakurega.agents.heuristics.kakurenbo_endings import LOSS, SHARE, WIN, dominated, sure_endings
from kakurega.envs import make
from kakurega.envs.core.rewards import SHARED_WIN
from kakurega.envs.kakurenbo.observation import make_observer
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
from tests.kakurenbo.helpers import deciding_states

CONFIGS = [{"variant": variant, "num_players": n} for variant in ("kakurenbo", "kurayami") for n in (3, 4, 5)]


def plain_sure_endings(game, layout, observation, legal):
    """The sure endings read from numpy views of the observation."""
    vector = observation["observation"]
    stage_piece = layout.view(vector, "stage")
    stage = int(np.argmax(stage_piece)) if stage_piece.any() else -1
    if stage not in (CURSE_GIVE, DICE_TAKE):
        return {}
    n = game.num_players
    cards = layout.view(vector, "cards")
    colour_counts = layout.view(vector, "colour_counts").astype(int)
    counts = colour_counts.sum(axis=1)
    scores = layout.view(vector, "scores").astype(float)
    curse = layout.view(vector, "curse")[:n]
    holder = int(np.flatnonzero(curse)[0]) if curse.any() else -1
    mine = np.flatnonzero(cards[:, 0])

    def verdict(final, candidates):
        if not candidates:  # nobody wins: 0 for every seat (zero-sum), -1 (shared win)
            return LOSS if game.win_scheme == SHARED_WIN else None
        if 0 not in candidates:
            return LOSS
        best = max(final[r] for r in candidates)
        if final[0] < best:
            return LOSS
        return WIN if sum(final[r] == best for r in candidates) == 1 else SHARE

    def curse_give(card, k):
        if not cards[card ^ 1, k]:
            return None
        part = card >> 1
        left = counts[k] - 1
        if part in (RIGHT_LEG, LEFT_LEG):
            neighbour = (k - 1) % n if part == RIGHT_LEG else (k + 1) % n
            left = counts[neighbour] - (1 if neighbour == 0 else 0)
        if left > 0:
            return None
        final = scores.copy()
        final[(k - 1) % n if part == CHEST else (k + 1) % n if part == WAIST else k] += POINTS[part]
        final[k] = 0.0
        return verdict(final, [r for r in range(n) if r != k])

    def pairings(colour, k):
        if mine.size != 1:
            return (False,)
        partner = int(mine[0]) ^ 1
        if partner & 1 != colour:
            return (False,)
        where = np.flatnonzero(cards[partner])
        if where.size == 0:
            return (True, False)
        if where[0] != k:
            return (False,)
        return (True,) if colour_counts[k, colour] == 1 else (True, False)

    def take_outcome(paired, k):
        emptied = counts[0] == 1 and paired
        if not (holder == k and counts[k] == 1) and not (holder == 0 and emptied):
            return None
        left = counts.copy()
        left[k] -= 1
        left[0] = 0 if emptied else counts[0] + 1
        final = scores.copy()
        if paired:
            final[0] += POINTS[int(mine[0]) >> 1]
        if holder >= 0:
            final[holder] = 0.0
        return verdict(final, [r for r in range(n) if left[r] == 0 and r != holder])

    def dice_take(colour, k):
        if mine.size != counts[0]:
            return None
        outcomes = {take_outcome(paired, k) for paired in pairings(colour, k)}
        return outcomes.pop() if len(outcomes) == 1 else None

    out = {}
    for action in legal:
        kind, arg, k = game.decode[int(action)]
        outcome = None
        if stage == CURSE_GIVE and kind == A_CURSE_GIVE:
            outcome = curse_give(arg, k)
        elif stage == DICE_TAKE and kind == A_TAKE:
            outcome = dice_take(arg, k)
        if outcome is not None:
            out[int(action)] = outcome
    return out


class PlainHeuristic(KakurenboHeuristic):
    """The heuristic as it read its observations through numpy (the code the lists replaced)."""

    def sure_endings(self, observation, legal, reading=None):
        key = (observation["observation"].tobytes(), np.asarray(legal, dtype=np.intp).tobytes())
        if key != self._last_endings[0]:
            self._last_endings = (key, plain_sure_endings(self.game, self.context.layout, observation, legal))
        return self._last_endings[1]

    def _beliefs(self, obs):
        n = self.n
        pair_of_card, colour_of_card = np.arange(NUM_CARDS) >> 1, np.arange(NUM_CARDS) & 1
        cards = self.piece(obs, "cards") != 0
        known = cards.any(axis=1)
        holder = cards.argmax(axis=1)
        prob = np.zeros((NUM_CARDS, n + 1))
        prob[known, holder[known]] = 1.0
        free = np.empty((2, n + 1))
        free[:, :n] = self.piece(obs, "colour_counts").T
        free[:, n] = self.piece(obs, "pile_colours")
        colour = colour_of_card[known]
        free[:, :n] -= np.bincount(colour * n + holder[known], minlength=2 * n).reshape(2, n)
        total = free.sum(axis=1)
        unknown = ~known & (self.piece(obs, "discarded").sum(axis=1)[pair_of_card] == 0)
        unknown &= total[colour_of_card] > 0
        if unknown.any():
            colour = colour_of_card[unknown]
            prob[unknown] = free[colour] / total[colour, None]
        return prob

    def act(self, observation, sampler=None):
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 1:
            return int(legal[0])
        decode = self.game.decode
        if A_DISCARD in {decode[a][0] for a in legal}:
            return int(min(a for a in legal if decode[a][0] == A_DISCARD))
        kind = decode[int(legal[-1])][0]
        if kind == A_CURSE_GIVE:
            tried = self._tried.setdefault(self._position(observation), {})
            values = [self._curse_give_value(parts, REPEAT_PENALTY * tried.get(int(a), 0))
                      for a, parts in zip(legal, self.plain_parts(kind, observation, legal))]
            action = self._best(legal, values)
            tried[action] = tried.get(action, 0) + 1
            return action
        return self._best(legal, [parts["value"] for parts in self.plain_parts(kind, observation, legal)])

    def _best(self, legal, values):
        return int(legal[self.rng.choice(np.flatnonzero(self._best_set(values)))])

    @staticmethod
    def _best_set(values):
        values = np.asarray(values, dtype=float)
        return values >= values.max() - 1e-9

    def _pair_chance(self, prob, counts, mine, colour, row):
        held = counts[row, colour]
        if held <= 0:
            return 0.0
        return sum(prob[c ^ 1, row] / held * POINTS[c >> 1] for c in mine if (c ^ 1) & 1 == colour)

    def plain_parts(self, kind, observation, legal):
        """The per-action parts of a decision of ``kind``."""
        return {A_GIVE_CARD: self._plain_give_card, A_TAKE: self._plain_take, A_GIVE_COLOUR: self._plain_give_colour,
                A_CURSE_GIVE: self._plain_curse_give, A_TARGET: self._plain_target}[kind](observation, legal)

    def _plain_give_card(self, observation, legal):
        prob = self._beliefs(observation)
        out = []
        for a in legal:
            _kind, card, k = self.game.decode[a]
            partner = prob[card ^ 1, k]
            out.append({"partner": partner, "value": -POINTS[card >> 1] * (1.0 + 4.0 * partner)})
        return out

    def _plain_take(self, observation, legal):
        counts = self.piece(observation, "colour_counts")
        mine = [int(c) for c in np.flatnonzero(self.piece(observation, "cards")[:, 0])]
        out = []
        if not mine:
            want = 0 if counts[0, 0] <= counts[0, 1] else 1
            for a in legal:
                _kind, colour, k = self.game.decode[a]
                out.append({"balance": float(colour == want), "value": (colour == want) * 10.0 + counts[k, colour]})
            return out
        prob = self._beliefs(observation)
        scores = self.piece(observation, "scores")
        endings = self.sure_endings(observation, legal) if self.game.kurayami else {}
        for a in legal:
            _kind, colour, k = self.game.decode[a]
            gain = self._pair_chance(prob, counts, mine, colour, k)
            sure_loss = SURE_LOSS_PENALTY if endings.get(int(a)) == LOSS else 0.0
            out.append({"gain": gain, "value": gain + 0.01 * scores[k] - sure_loss})
        return out

    def _plain_give_colour(self, observation, legal):
        counts = self.piece(observation, "colour_counts")
        surplus = 0 if counts[0, 0] > counts[0, 1] else 1
        out = []
        for a in legal:
            _kind, colour, k = self.game.decode[a]
            out.append({"balance": float(colour == surplus), "value": (colour == surplus) * 10.0 - counts[k].sum()})
        return out

    def _plain_curse_give(self, observation, legal):
        n = self.n
        prob = self._beliefs(observation)
        counts = self.piece(observation, "colour_counts")
        scores = self.piece(observation, "scores").astype(float)
        hand_size = counts.sum(axis=1)
        standing = self._plain_standing(scores)
        out = []
        for a in legal:
            _kind, card, k = self.game.decode[a]
            part = card >> 1
            passed = standing - KEEP_HIGH_CARDS * POINTS[part]
            p_pair = prob[card ^ 1, k]
            paired, ends = 0.0, 0.0
            if p_pair > 0:
                gains = np.zeros(n)
                scorer = (k - 1) % n if part == CHEST else (k + 1) % n if part == WAIST else k
                gains[scorer] = POINTS[part]
                left_after = hand_size[k] - 1
                if part in (RIGHT_LEG, LEFT_LEG):
                    neighbour = (k - 1) % n if part == RIGHT_LEG else (k + 1) % n
                    left_after = hand_size[neighbour] - (1 if neighbour == 0 else 0)
                if left_after <= 0:
                    final = scores + gains
                    final[k] = 0.0
                    others = np.delete(final, [0, k])
                    paired = END_WIN if others.size == 0 or final[0] >= others.max() else END_LOSS
                    ends = 1.0
                else:
                    paired = self._plain_standing(scores + gains) + PAIR_PROGRESS
            out.append({"pair": p_pair, "paired": paired, "passed": passed, "ends": ends})
        return out

    @staticmethod
    def _plain_standing(scores):
        return 0.5 * float(np.tanh((scores[0] - scores[1:].max()) / 4.0))

    def _plain_target(self, observation, legal):
        n = self.n
        prob = self._beliefs(observation)
        counts = self.piece(observation, "colour_counts")
        curse = self.piece(observation, "curse")
        holder = int(np.flatnonzero(curse)[0]) if curse.any() else n
        mine = [int(c) for c in np.flatnonzero(self.piece(observation, "cards")[:, 0])]
        out = []
        for a in legal:
            k = self.game.decode[a][2]
            take = max(self._pair_chance(prob, counts, mine, colour, k) for colour in (0, 1))
            v = take
            if holder == k:
                v -= 6.0
            if holder == 0:
                v += 0.1 * counts[k].sum()
            out.append({"gain": take, "holder": float(holder == k), "value": v})
        return out


def plain_features(features, observation):
    """The move features as they were written, one float32 entry at a time."""
    h = features.plain
    rows = np.zeros((features.num_actions, features.PER_ACTION), dtype=np.float32)
    legal = np.flatnonzero(observation["action_mask"])
    rows[legal, 0] = 1
    if legal.size == 0:
        return rows.ravel()
    decode = h.game.decode
    counts = h.piece(observation, "colour_counts")
    scores = h.piece(observation, "scores")
    values = np.zeros(legal.size)
    kind = decode[int(legal[-1])][0]
    parts = h.plain_parts(kind, observation, legal) if kind not in (A_DRAW, A_DISCARD) else []
    for i, (a, p) in enumerate(zip(legal, parts)):
        if kind == A_GIVE_CARD:
            rows[a, 4], rows[a, 5], values[i] = p["partner"], 1.0 + p["value"] / 20.0, p["value"]
        elif kind == A_TAKE:
            rows[a, 6], rows[a, 7] = min(p.get("gain", 0.0) / 4.0, 1.0), p.get("balance", 0.0)
            values[i] = p["value"]
        elif kind == A_GIVE_COLOUR:
            rows[a, 7], values[i] = p["balance"], p["value"]
        elif kind == A_CURSE_GIVE:
            value = h._curse_give_value(p)
            rows[a, 4] = p["pair"]
            rows[a, 8] = (p["paired"] + 1.0) / 2.0 if p["pair"] > 0 else 0.0
            rows[a, 9:12] = p["passed"] + 0.5, p["ends"], (value + 1.0) / 2.0
            values[i] = value
        else:
            rows[a, 6], rows[a, 12], values[i] = min(p["gain"] / 4.0, 1.0), p["holder"], p["value"]
    for i, a in enumerate(legal):
        kind_a, argument, k = decode[a]
        if kind_a == A_DRAW:
            rows[a, 1] = 1
        elif kind_a == A_DISCARD:
            rows[a, 2] = POINTS[argument] / 4.0
            values[i] = POINTS[argument]
        elif kind_a in (A_GIVE_CARD, A_CURSE_GIVE):
            rows[a, 3] = POINTS[argument >> 1] / 4.0
        if k:
            rows[a, 13] = min(counts[k].sum() / 7.0, 1.0)
            rows[a, 14] = min(scores[k] / 16.0, 1.0)
    rows[legal[h._best_set(values)], 15] = 1
    if features.version >= 1:
        for a, outcome in h.sure_endings(observation, legal).items():
            rows[a, 16 if outcome != LOSS else 17] = 0.5 if outcome == SHARE else 1.0
    return np.clip(rows, 0.0, 1.0, out=rows).ravel()


def plain_dominated(features, observation):
    legal = np.flatnonzero(observation["action_mask"])
    mask = np.zeros(features.num_actions, dtype=bool)
    mask[dominated(features.plain.sure_endings(observation, legal), legal)] = True
    return mask


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda config: "{variant}-{num_players}".format(**config))
def positions(request):
    """Every decision of seeded games of kakurenbo_v1, heuristic players beside random ones."""
    config = request.param
    env = make("kakurenbo_v1", wrapped=False, **config)
    context = AgentContext.from_env(env, "kakurenbo_v1", config)
    n = context.num_players
    found = []
    for seed in range(6):
        agents = [KakurenboHeuristic(context, seed=seed * n + i) if (i + seed) % 2 else RandomAgent(context, seed=i)
                  for i in range(n)]
        env.reset(seed=seed)
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            name = env.agent_selection
            observation = env.observe(name)
            found.append({"observation": observation["observation"].copy(),
                          "action_mask": observation["action_mask"].copy()})
            env.step(choose_action(agents[env.possible_agents.index(name)], env, name))
    return context, found


def same_parts(fast: list[dict], plain: list[dict]) -> bool:
    """The same keys and the same float64 numbers (a float32 number compares by its exact value)."""
    return len(fast) == len(plain) and all(
        f.keys() == p.keys() and all(np.float64(f[key]).tobytes() == np.float64(p[key]).tobytes() for key in f)
        for f, p in zip(fast, plain))


def fast_parts(agent, kind, observation, legal):
    reading = agent.read(observation)
    if kind == A_TAKE:
        return agent._take_parts(observation, reading, legal)
    return {A_GIVE_CARD: agent._give_card_parts, A_GIVE_COLOUR: agent._give_colour_parts,
            A_CURSE_GIVE: agent._curse_give_parts, A_TARGET: agent._choose_target_parts}[kind](reading, legal)


def test_every_decision_and_its_values_are_the_plain_ones(positions):
    context, found = positions
    fast, plain = KakurenboHeuristic(context, seed=3), PlainHeuristic(context, seed=3)
    kinds, ties = set(), 0
    for observation in found:
        legal = np.flatnonzero(observation["action_mask"])
        kind = fast._kind_of[int(legal[-1])]
        if legal.size > 1 and kind not in (A_DRAW, A_DISCARD):
            plain_parts = plain.plain_parts(kind, observation, legal)
            assert same_parts(fast_parts(fast, kind, observation, legal.tolist()), plain_parts)
            kinds.add(kind)
            values = [PlainHeuristic._curse_give_value(p) if kind == A_CURSE_GIVE else p["value"] for p in plain_parts]
            ties += len(fast._best_set(values)) > 1
        assert fast.act(observation) == plain.act(observation)
        assert fast.rng.bit_generator.state == plain.rng.bit_generator.state
    assert fast._tried == plain._tried
    expected = {A_GIVE_CARD, A_TAKE, A_CURSE_GIVE} if context.env_kwargs["variant"] == "kakurenbo" else {
        A_TAKE, A_GIVE_COLOUR, A_TARGET}
    assert kinds == expected and ties > 10


@pytest.mark.parametrize("version", KakurenboMoveFeatures.VERSIONS)
def test_the_move_features_and_dominated_moves_are_the_plain_ones(positions, version):
    context, found = positions
    features = KakurenboMoveFeatures(context, version=version)
    features.plain = PlainHeuristic(context)
    endings = 0
    for observation in found:
        assert features(observation).tobytes() == plain_features(features, observation).tobytes()
        mask = features.dominated(observation)
        assert mask.dtype == bool and (mask == plain_dominated(features, observation)).all()
        endings += bool(features.plain.sure_endings(observation, np.flatnonzero(observation["action_mask"])))
    assert endings > 0


def test_control_a_take_weighed_in_float64_is_caught(positions):
    """The comparison is exact: weighing the score in float64 rather than numpy's float32 changes the values."""
    context, found = positions
    fast, plain = KakurenboHeuristic(context, seed=0), PlainHeuristic(context)
    differing = 0
    for observation in found:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size > 1 and fast._kind_of[int(legal[-1])] == A_TAKE and fast.read(observation).mine:
            parts = fast_parts(fast, A_TAKE, observation, legal.tolist())
            scores = fast.read(observation).scores
            float64 = [dict(p, value=p["gain"] + 0.01 * scores[fast._offset_of[a]]) for a, p in zip(legal, parts)]
            differing += not same_parts(float64, plain.plain_parts(A_TAKE, observation, legal))
    assert differing > 0


def test_control_ties_broken_without_the_draw_are_caught(positions, monkeypatch):
    """Ties are met and their draw is checked: always taking the first best changes decisions."""
    context, found = positions
    monkeypatch.setattr(heuristic_module, "best_index", lambda values, rng: KakurenboHeuristic._best_set(values)[0])
    fast, plain = KakurenboHeuristic(context, seed=3), PlainHeuristic(context, seed=3)
    assert sum(fast.act(observation) != plain.act(observation) for observation in found) > 0


def test_the_arithmetic_of_a_take_and_a_standing_is_numpys():
    """Every score, gain and penalty a take can meet, computed as the plain code did with numpy scalars: the
    score weighed in float32, in float32 throughout when no card was counted (Python's 0 or 0.0 gain)."""
    from kakurega.agents.heuristics.kakurenbo import _float32_product, _take_value

    seen = set()
    for score in range(17):
        entry = np.float32(score)  # an entry of the float32 observation
        for gain in (0, 0.0, np.float64(0.0), np.float64(0.375), np.float64(2.0 / 3.0)):
            for sure_loss in (0.0, SURE_LOSS_PENALTY):
                plain = gain + 0.01 * entry - sure_loss
                fast = _take_value(float(gain), isinstance(gain, np.float64), float(score), sure_loss)
                assert np.float64(fast).tobytes() == np.float64(plain).tobytes()
                seen.add(np.asarray(plain).dtype)
        assert _float32_product(0.1, float(score)) == 0.1 * entry
    assert seen == {np.dtype(np.float32), np.dtype(np.float64)}
    for lead in range(-16, 17):
        scores = np.array([lead + 16.0, 16.0, 3.0])
        assert KakurenboHeuristic._standing(scores.tolist()) == PlainHeuristic._plain_standing(scores)
    assert KakurenboHeuristic._standing([0.5, 0.0]) == PlainHeuristic._plain_standing(np.array([0.5, 0.0]))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda config: "{variant}-{num_players}".format(**config))
def test_the_sure_endings_are_the_plain_ones(config):
    """At every Curse give and dice take of random games (more of them than the positions above hold)."""
    env = make("kakurenbo_v1", wrapped=False, **config)
    context = AgentContext.from_env(env, "kakurenbo_v1", config)
    observer = make_observer(env.game)
    outcomes = {}
    for game, state, legal in deciding_states(config["variant"], config["num_players"], games=40, seed=5):
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[legal] = 1
        observation = {"observation": observer(state, state.actor), "action_mask": mask}
        endings = sure_endings(game, context.layout, observation, legal)
        assert endings == plain_sure_endings(game, context.layout, observation, legal)
        for outcome in endings.values():
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get(LOSS, 0) > 0 and outcomes.get(WIN, 0) + outcomes.get(SHARE, 0) > 0, outcomes
