"""Summer Hide-and-Seek: the moves another move beats whatever happens, and the bots that never play them unless
asked (``prune=false``).

A piece on the one square of the public belief finds the child, and the child's VP only grow while it is hidden,
so it beats every other placement; a line that leaves the child stuck (found at once) is beaten by another choice
that is not stuck and reaches at least as many VP (``agents/heuristics/summer_dominance.py``). The rule reads the
seat's observation only: checked against the engine on the true state, in determinizations, and beside a control
that reads the child's true square.
"""

from __future__ import annotations

import numpy as np
import pytest
from conformance import play_random, random_states

from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.summer_features import SummerMoveFeatures
from kakurega.agents.policy import context_for, load
from kakurega.agents.pretrained import find
from kakurega.agents.tactics import replay
from kakurega.agents.tactics.patterns import reverified_in
from kakurega.agents.tactics.score import score_agents
from kakurega.agents.tactics.suite import find_suite
from kakurega.envs.registry import make
from kakurega.envs.summer_hide_and_seek.map_data import parse_map
from kakurega.envs.summer_hide_and_seek.rules import CHILD, SEEK

from .helpers import TEST_MAP, action, square

V2, V1 = "summer_hide_and_seek_v2", "summer_hide_and_seek_v1"


def _rule(raw, env_name: str, options: dict) -> SummerMoveFeatures:
    context = AgentContext.from_env(raw, env_name)  # the env's own options (a map object included)
    assert all(context.env_kwargs.get(key, value) == value for key, value in options.items() if key != "map")
    return SummerMoveFeatures(context)


def _observe(raw, state) -> dict:
    """The observation of the seat to act in ``state``, set in ``raw`` as the game under way."""
    raw.game_state = state
    raw._after_transition()
    return raw.observe(raw.agent_selection)


def _names(game, state, mask) -> set[str]:
    return set() if mask is None else {game.action_to_string(state, int(a)) for a in np.flatnonzero(mask)}


# ------------------------------------------------------------------ the rule, in scenarios on the test map
#: child moves from a round's start on the test map (tests/summer_hide_and_seek/helpers.py); the lines the rule
#: beats at the end
CHILD_SCENARIOS = [
    # the turn's first decision (a line is due): r0c5 leaves the child stuck, r2c4 does not and scores as much (0)
    (["start r1c5"], {"move r1c5 -> r0c5 (path), cost 1"}),
    # a stuck sunflower (1 VP) beside a free sunflower
    (["start r1c5", "line r2c4", "line r3c5"], {"move r3c5 -> r2c5 (black-framed, sunflower), cost 1"}),
    # both lines are stuck; only the stop (0 VP) is free: the stuck path square is beaten, the stuck sunflower
    # (more VP than any free choice) is not
    (["start r3c5", "line r2c4", "line r1c5"], {"move r1c5 -> r0c5 (path), cost 1"}),
    # no line is stuck
    (["start r1c5", "line r2c4"], set()),
]


@pytest.mark.parametrize("steps,beaten", CHILD_SCENARIOS, ids=[" ".join(s) for s, _ in CHILD_SCENARIOS])
def test_a_stuck_line_is_beaten_by_a_free_choice_with_as_many_vp(steps, beaten):
    raw = make(V2, wrapped=False, map=parse_map(TEST_MAP))
    raw.reset(seed=0)
    for text in steps:
        raw.step(action(raw.game, text))
    state = raw.game_state
    assert state.phase == CHILD and state.round == 0
    mask = _rule(raw, V2, {}).dominated(raw.observe(raw.agent_selection))
    assert _names(raw.game, state, mask) == beaten


#: three players, both seekers' pieces on one square; the lines the rule beats after them
STACKED_PIECES = [
    # r4c5 -> r3c5 stays open, so r4c4 -> r4c5 is not stuck (two pieces on r2c5 once read as one on r3c5, the next
    # square, which made it look stuck)
    (["start r4c3", "line r4c4", "stop", "place r2c5", "place r2c5"], set()),
    # r2c5 leads only to r1c5, which holds the pieces: the sunflower there is stuck, the path r4c5 beside it is free
    (["start r2c4", "line r3c5", "stop", "place r1c5", "place r1c5"], {"move r3c5 -> r2c5 (black-framed, sunflower), cost 1"}),
]


@pytest.mark.parametrize("steps,beaten", STACKED_PIECES, ids=[s[-1] for s, _ in STACKED_PIECES])
def test_two_pieces_on_one_square_block_that_square_as_the_engine_does(steps, beaten):
    raw = make(V2, wrapped=False, map=parse_map(TEST_MAP), num_players=3)
    raw.reset(seed=0)
    for text in steps:
        raw.step(action(raw.game, text))
    state = raw.game_state
    assert state.phase == CHILD and state.pieces.count(square(raw.game, steps[-1].split()[1])) == 2
    mask = _rule(raw, V2, {"num_players": 3}).dominated(raw.observe(raw.agent_selection))
    assert _names(raw.game, state, mask) == beaten
    assert _names(raw.game, state, _beaten_on_the_true_state(raw.game, state)) == beaten


def test_version_0_proves_nothing():
    """Version 0 pays a game cut off by the step limit nothing, which a player behind may prefer to any end."""
    raw = make("summer_hide_and_seek_v0", wrapped=False, map=parse_map(TEST_MAP))
    raw.reset(seed=0)
    raw.step(action(raw.game, "start r1c5"))
    assert action(raw.game, "line r0c5") in raw.game.legal_actions(raw.game_state)  # the stuck line is legal
    assert _rule(raw, "summer_hide_and_seek_v0", {}).dominated(raw.observe(raw.agent_selection)) is None


@pytest.mark.parametrize("players", [2, 3])
def test_a_sure_find_beats_every_other_placement_until_a_piece_covers_it(players):
    """The suite's first sure find: every placement but the claimed one is beaten; once an earlier seeker's piece
    stands there (3 players), the next seeker's placements are all alike and nothing is beaten."""
    suite = find_suite(V2, {"num_players": players})
    position = next(p for p in suite.positions if p.category == "seek_certain" and replay(V2, p).game_state.seekers_placed == 0)
    raw = replay(V2, position)
    rule = _rule(raw, V2, position.options)
    observation = raw.observe(position.seat)
    legal = np.asarray(observation["action_mask"], dtype=bool)
    (sure,) = position.claimed
    expected = legal.copy()
    expected[sure] = False
    np.testing.assert_array_equal(rule.dominated(observation), expected)
    if players > 2:
        raw.step(sure)
        assert raw.game_state.phase == SEEK
        assert rule.dominated(raw.observe(raw.agent_selection)) is None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_rule_gives_every_claim_of_the_suite(players):
    """At every position of the table's suite the rule beats exactly what the claim says: every placement but the
    sure find, or the claimed stuck lines."""
    suite = find_suite(V2, {"num_players": players})
    envs: dict = {}
    rule = None
    for position in suite.positions:
        raw = replay(V2, position, envs)
        rule = rule or _rule(raw, V2, position.options)
        observation = raw.observe(position.seat)
        mask = rule.dominated(observation)
        if position.kind == "good":
            assert set(np.flatnonzero(np.asarray(observation["action_mask"], dtype=bool) & ~mask)) == set(position.claimed)
        else:
            assert set(np.flatnonzero(mask)) == set(position.claimed), position.id


# ------------------------------------------------------------------ over random games
def _beaten_on_the_true_state(game, state) -> np.ndarray:
    """The rule worked out on the true state through the engine: each line played on a copy (with the continue
    after a shortcut) to see whether the round ends with the child stuck."""
    beaten = np.zeros(game.num_actions, dtype=bool)
    legal = game.legal_actions(state)
    if state.phase == SEEK and state.belief.bit_count() == 1:
        square = state.belief.bit_length() - 1
        if square not in state.pieces:
            beaten[legal] = True
            beaten[game.place_base + square] = False
    elif state.phase == CHILD and not state.continue_due:
        rng = np.random.default_rng(0)
        stuck, best_free = [], -1
        for a in legal:
            if a == game.stop_action:
                best_free = max(best_free, 0)
                continue
            after = game.clone(state)
            game.apply_action(after, a, rng)
            if after.continue_due:
                game.apply_action(after, game.continue_action, rng)
            vp = game.square_vp[a - game.line_base]
            if after.round > state.round:
                stuck.append((a, vp))
            else:
                best_free = max(best_free, vp)
        beaten[[a for a, vp in stuck if vp <= best_free]] = True
    return beaten


def check_the_rule_sees_the_observation_only(raw, dominated, states, samples: int = 2) -> dict[int, int]:
    """``dominated`` (observation dict -> mask or None) at each state equals the rule on the true state, never
    beats every legal action, and is the same in ``samples`` re-deals of what the seat to act cannot see.
    Returns how many positions had something beaten, per phase."""
    game = raw.game
    found = {CHILD: 0, SEEK: 0}
    for index, state in enumerate(states):
        if game.is_terminal(state) or game.is_truncated(state):
            continue
        seat = game.current_player(state)
        observation = _observe(raw, game.clone(state))
        legal = np.asarray(observation["action_mask"], dtype=bool)
        mask = dominated(observation)
        mask = np.zeros_like(legal) if mask is None else np.asarray(mask, dtype=bool)
        for k in range(samples):
            sample = game.resample_hidden(state, seat, np.random.default_rng([index, k]))
            seen = _observe(raw, sample)
            assert np.array_equal(seen["observation"], observation["observation"]), "re-deal changed the observation"
            again = dominated(seen)
            again = np.zeros_like(legal) if again is None else np.asarray(again, dtype=bool)
            if not np.array_equal(again, mask):
                raise AssertionError(f"state {index}: seat {seat}'s dominated moves changed when hidden information "
                                     "was re-dealt")
        assert not (mask & ~legal).any() and (legal & ~mask).any(), f"state {index}: {np.flatnonzero(mask)}"
        truth = _beaten_on_the_true_state(game, state)
        if not np.array_equal(mask, truth):
            raise AssertionError(f"state {index}: the rule beats {np.flatnonzero(mask).tolist()} from the observation, "
                                 f"{np.flatnonzero(truth).tolist()} on the true state")
        if mask.any():
            found[state.phase] += 1
    return found


def _sure_find_states(game, seed: int, games: int) -> list:
    """States of random games, with every seekers' turn whose belief is one square (rare in random play) kept."""
    states = random_states(game, seed=seed, num_games=games, every=3)
    extra = [s for s in random_states(game, seed=seed + 1, num_games=games, every=1)
             if s.phase == SEEK and s.belief.bit_count() == 1]
    return states + extra


@pytest.mark.parametrize("env_name", [V2, V1])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_over_random_games_the_rule_is_the_true_states_and_the_same_in_every_redeal(env_name, players):
    raw = make(env_name, wrapped=False, num_players=players)
    raw.reset(seed=0)
    found = check_the_rule_sees_the_observation_only(raw, _rule(raw, env_name, {"num_players": players}).dominated,
                                                     _sure_find_states(raw.game, seed=players, games=12))
    assert found[CHILD] > 0 and found[SEEK] > 0, found


class PeekingRule:
    """A leaky control: a seeker's sure find read from the child's true square (the rule, for the child)."""

    def __init__(self, raw, honest):
        self.raw, self.honest = raw, honest

    def dominated(self, observation):
        state = self.raw.game_state
        if state.phase != SEEK:
            return self.honest.dominated(observation)
        beaten = np.asarray(observation["action_mask"], dtype=bool).copy()
        beaten[self.raw.game.place_base + state.stroke[-1]] = False
        return beaten


def test_the_check_catches_a_rule_that_reads_the_childs_true_square():
    raw = make(V2, wrapped=False, num_players=2)
    raw.reset(seed=0)
    peeking = PeekingRule(raw, _rule(raw, V2, {"num_players": 2}))
    with pytest.raises(AssertionError, match="re-dealt|on the true state"):
        check_the_rule_sees_the_observation_only(raw, peeking.dominated, _sure_find_states(raw.game, seed=2, games=12))


# ------------------------------------------------------------------ the bots
@pytest.mark.parametrize("env_name,players", [(V1, 2), (V2, 3)])
def test_a_pruned_bot_never_plays_a_beaten_move(env_name, players):
    options = {"num_players": players}
    context = context_for(env_name, options)
    bot = load(find(env_name, options), context=context)
    assert bot.prune
    env = make(env_name, wrapped=False, **options)
    rng = np.random.default_rng(players)
    pruned = 0
    for deal in range(12):
        env.reset(seed=deal)
        bot.reset()
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            observation = env.observe(env.agent_selection)
            mask = bot.dominated(observation)
            move = bot.act(observation)
            if mask is not None and mask.any():
                pruned += 1
                assert not mask[move]
            # the bot plays the first seat, random players the others: random children leave sure finds
            if env.agent_selection != "player_0":
                move = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(move)
    assert pruned > 0


def test_the_v1_bot_without_move_features_solves_the_suite_pruned_and_not_without_pruning():
    """The ``summer_hide_and_seek_v1`` 2p bot reads no features; pruned by the game's rule it solves the suite
    (replayed in v1, whose rules are v2's but for the rewards); its network alone misses every sure find."""
    suite, left_out = reverified_in(find_suite(V2, {"num_players": 2}), V1)
    assert left_out == 0
    options = {"num_players": 2}
    bot = load(find(V1, options), context=context_for(V1, options))
    assert bot.move_features is None and bot.prune
    pruned, network = score_agents(suite, ["pretrained", "pretrained:prune=false"]).scores
    assert len(pruned.failed) <= 0.05 * len(suite.positions)
    assert len(network.failed) > 0.05 * len(suite.positions)


def test_the_remembered_stuck_lines_are_keyed_with_the_pieces():
    """One features instance, asked about child observations with the same stroke and legal mask but other pieces
    (which block other squares, so other lines are stuck), gives each the proof a fresh instance gives: the kept
    stuck lines of one are not the answer for the other."""
    raw = make(V2, wrapped=False, num_players=4)
    context = AgentContext.from_env(raw, V2)
    layout = raw.layout

    def proof(features, observation):
        beaten = features.dominated(observation)
        return () if beaten is None else tuple(np.flatnonzero(beaten).tolist())

    groups: dict[tuple, dict[bytes, dict]] = {}

    def keep(env):
        observation = env.last()[0]
        vector = observation["observation"]
        if layout.view(vector, "phase")[1] > 0:
            key = (layout.view(vector, "stroke").tobytes(), np.asarray(observation["action_mask"]).tobytes())
            groups.setdefault(key, {}).setdefault(
                layout.view(vector, "pieces").tobytes(), {k: np.array(v, copy=True) for k, v in observation.items()})

    for seed in range(100):
        play_random(raw, seed, agent_seed=seed, on_step=keep)
    differing = 0
    for by_pieces in groups.values():
        observations = list(by_pieces.values())
        if len(observations) < 2:
            continue
        fresh = [proof(SummerMoveFeatures(context), o) for o in observations]
        differing += len(set(fresh)) > 1
        one = SummerMoveFeatures(context)
        assert [proof(one, o) for o in observations] == fresh
        assert [proof(one, o) for o in reversed(observations)] == fresh[::-1]
    assert differing >= 3, "no two observations with one stroke and mask but other pieces have other proofs"


def test_version_0_with_vp_rewards_proves_the_stuck_line():
    """Version 0 with ``reward="vp"`` scores a cut-off game by VP, so the proofs hold there: the stuck line that
    version 0's default (win rewards, a cut-off game unscored) leaves unproved is beaten, and over random games the
    rule gives masks with VP rewards and none with the default."""
    v0 = "summer_hide_and_seek_v0"
    raw = make(v0, wrapped=False, map=parse_map(TEST_MAP), reward="vp")
    raw.reset(seed=0)
    raw.step(action(raw.game, "start r1c5"))
    assert not raw.game.score_truncation
    mask = _rule(raw, v0, {"reward": "vp"}).dominated(raw.observe(raw.agent_selection))
    assert _names(raw.game, raw.game_state, mask) == {"move r1c5 -> r0c5 (path), cost 1"}

    def masks_in_random_games(options: dict) -> int:
        env = make(v0, wrapped=False, **options)
        rule = _rule(env, v0, options)
        masks = []
        for seed in range(6):
            play_random(env, seed, agent_seed=seed, on_step=lambda e: masks.append(rule.dominated(e.last()[0])))
        return sum(mask is not None for mask in masks)

    assert masks_in_random_games({"reward": "vp"}) >= 10
    assert masks_in_random_games({}) == 0
