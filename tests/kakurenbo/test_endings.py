"""KAKURENBO sure endings (move features version 1): a Curse give or a dice take that surely ends the game,
with the mover winning, sharing the win or losing, read from the mover's observation alone.

Scenarios from the rules page ("End and scoring", the card functions); over random games every mark is the
played outcome, every winning mark is :func:`winning_note`'s and every curse_loss blunder of the tactics'
claim is marked; the marks are equal in states the mover cannot tell apart (a control that reads the true
hands is caught); version 0 of the features is unchanged.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.kakurenbo import KakurenboMoveFeatures
from kakurega.agents.heuristics.kakurenbo_endings import LOSS, SHARE, WIN, sure_endings
from kakurega.agents.move_features import MoveFeatures
from kakurega.envs import make
from kakurega.envs.kakurenbo.knowledge import UNKNOWN
from kakurega.envs.kakurenbo.observation import make_observer
from kakurega.envs.kakurenbo.rules import A_TAKE, DICE_TAKE
from kakurega.envs.kakurenbo.winning import SHARES, WINS
from tests.kakurenbo.helpers import build, card, deciding_states

NOTE = {WIN: WINS, SHARE: SHARES, LOSS: ""}


class Reader:
    """The sure endings and the features of one configuration, read from a state's observation for its actor."""

    def __init__(self, variant: str, n: int, name: str = "kakurenbo_v1", **options):
        config = {"variant": variant, "num_players": n, **options}
        raw = make(name, wrapped=False, **config)
        self.game = raw.game
        self.context = AgentContext.from_env(raw, name, config)
        self.observer = make_observer(self.game)
        self.features = KakurenboMoveFeatures(self.context)

    def observation(self, state) -> dict:
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        mask[self.game.legal_actions(state)] = 1
        return {"observation": self.observer(state, state.actor), "action_mask": mask}

    def endings(self, state) -> dict:
        return sure_endings(self.game, self.context.layout, self.observation(state), self.game.legal_actions(state))


def _give(game, state, name: str, to: int) -> int:
    return game.curse_give_action(card(name), (to - state.actor) % game.num_players)


def _played(game, state, action) -> str:
    """WIN, SHARE, LOSS when the move, played, ends the game; "" when the game goes on."""
    after = game.clone(state)
    game.apply_action(after, action, np.random.default_rng(1))
    if not after.over:
        return ""
    winners = game.winners(after)
    return WIN if winners == [state.actor] else SHARE if state.actor in winners else LOSS


def test_a_curse_give_onto_the_known_partner_alone_ends_the_game_as_the_scores_say():
    reader = Reader("kakurenbo", 3)
    game = reader.game
    # player_1 holds only the blue chest and player_0 knows it: the chest pair scores 3 for player_1's right
    # (player_0) and player_1 is left with the Curse alone
    state = build(game, {0: "Cr Wr K", 1: "Cb", 2: "Wb"}, scores=[0, 0, 0],
                  discarded={"H": 2, "RA": 2, "LA": 1, "RL": 1, "LL": 2})
    state.knowledge[0][card("Cb")] = 1
    chest, chest_to_2 = _give(game, state, "Cr", 1), _give(game, state, "Cr", 2)
    # the blue waist is then located by counting (the pile is empty): with player_2, whose left (player_0) scores
    waist = _give(game, state, "Wr", 2)
    assert reader.endings(state) == {chest: WIN, waist: WIN}
    state.scores = [0, 5, 3]  # the receiver's points are void; player_0 ties player_2 at 3 or trails player_1
    assert reader.endings(state) == {chest: SHARE, waist: LOSS}
    state.scores = [0, 5, 4]
    assert reader.endings(state) == {chest: LOSS, waist: LOSS}
    assert _played(game, state, chest) == _played(game, state, waist) == LOSS
    assert _played(game, state, chest_to_2) == _played(game, state, _give(game, state, "Wr", 1)) == ""
    # not located: the same give is not marked (it could go on in a state the mover cannot tell apart)
    state.knowledge[0][card("Cb")] = UNKNOWN
    assert game.known_row(state, 0)[card("Cb")] == UNKNOWN
    assert reader.endings(state) == {}


def test_a_leg_pair_ends_the_game_only_when_the_exchanged_hand_is_empty():
    reader = Reader("kakurenbo", 3)
    game = reader.game
    # player_1 discards the left leg pair and exchanges hands with its left neighbour player_2, who holds nothing
    state = build(game, {0: "LLr Wb K", 1: "LLb Wr", 2: ""}, scores=[2, 4, 4],
                  discarded={"H": 1, "C": 2, "RA": 0, "LA": 2, "RL": 0})
    state.knowledge[0][card("LLb")] = 1
    give = _give(game, state, "LLr", 1)
    assert reader.endings(state) == {give: LOSS} and _played(game, state, give) == LOSS
    state.scores = [4, 4, 4]
    assert reader.endings(state) == {give: SHARE} and _played(game, state, give) == SHARE
    # player_2 holding a card, player_1 gets it in the exchange: the game goes on
    state = build(game, {0: "LLr K", 1: "LLb Wr", 2: "Wb"}, scores=[2, 4, 4],
                  discarded={"H": 1, "C": 2, "RA": 0, "LA": 2, "RL": 0})
    state.knowledge[0][card("LLb")] = 1
    give = _give(game, state, "LLr", 1)
    assert reader.endings(state) == {} and _played(game, state, give) == ""


def test_a_kurayami_take_of_the_curse_holders_last_card():
    reader = Reader("kurayami", 4)
    game = reader.game
    state = build(game, {0: "Cr", 1: "Cb K", 2: "Wb", 3: "Wr"}, scores=[3, 0, 3, 4],
                  discarded={"H": 2, "RA": 2, "LA": 0, "RL": 1, "LL": 3}, phase=2, stage=DICE_TAKE)
    state.knowledge[0][card("Cb")] = 1
    state.target = 1
    take = next(a for a in game.legal_actions(state) if game.decode[a][0] == A_TAKE)
    # player_0 pairs its chest (6 points) with an empty hand; players still holding cards do not win
    assert reader.endings(state) == {take: WIN} and _played(game, state, take) == WIN
    # not located: it could be the blue waist, which would leave player_0 holding two cards, a loss
    state.knowledge[0][card("Cb")] = UNKNOWN
    assert reader.endings(state) == {}
    # two cards in hand: the taker keeps a card whatever it takes, and the game ends: a sure loss
    state = build(game, {0: "Cr Wr", 1: "Cb K", 2: "Wb", 3: ""}, scores=[3, 0, 3, 4],
                  discarded={"H": 2, "RA": 2, "LA": 0, "RL": 1, "LL": 3}, phase=2, stage=DICE_TAKE)
    state.target = 1
    take = next(a for a in game.legal_actions(state) if game.decode[a][0] == A_TAKE)
    assert reader.endings(state) == {take: LOSS} and _played(game, state, take) == LOSS


@pytest.mark.parametrize("reward,expected", [("zero_sum", None), ("shared_win", LOSS)])
def test_a_kurayami_take_that_leaves_no_hand_empty_is_a_loss_only_where_nobody_winning_pays_as_one(reward, expected):
    """player_0 holds the Curse and the blue left arm and has located the red left arm, player_1's only red card:
    taking red pairs it away and leaves player_0 the Curse alone, while player_1 and player_2 still hold cards. The
    game ends with no winner (only an empty hand wins), which zero-sum rewards pay every seat 0, more than a loss:
    no sure loss, and nothing is pruned. Shared-win rewards pay every seat -1 then: a sure loss."""
    reader = Reader("kurayami", 3, reward=reward)
    game = reader.game
    state = build(game, {0: "LAb K", 1: "LAr RLb", 2: "RLr"}, scores=[6, 3, 3],
                  discarded={"H": 0, "RA": 0, "W": 1, "C": 2, "LL": 1}, phase=2, stage=DICE_TAKE)
    state.knowledge[0][card("LAr")] = 1
    state.target = 1
    red = game.take_action(0, 1)
    after = game.clone(state)
    game.apply_action(after, red, np.random.default_rng(0))
    assert after.over and game.winners(after) == []
    assert game.returns(after).tolist() == ([0.0] * 3 if expected is None else [-1.0] * 3)
    assert reader.endings(state) == ({} if expected is None else {red: expected})
    pruned = reader.features.dominated(reader.observation(state))
    assert pruned[red] == (expected == LOSS) and not pruned[game.take_action(1, 1)]


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_marks_are_the_played_outcome_and_winning_notes_and_read_only_the_movers_view(variant, n):
    reader = Reader(variant, n)
    game = reader.game
    rng = np.random.default_rng(7)
    marked = {WIN: 0, SHARE: 0, LOSS: 0}
    leaky_caught = False
    for _, state, _ in deciding_states(variant, n, games=150, seed=n, before_step_limit=True):
        legal = game.legal_actions(state)
        endings = reader.endings(state)
        features = reader.features(reader.observation(state)).reshape(game.num_actions, -1)
        for action in legal:
            outcome = endings.get(action, "")
            if outcome:
                marked[outcome] += 1
                assert outcome == _played(game, state, action), game.action_to_string(state, action)
            # the winning marks are winning_note's, both ways; the features hold the marks
            assert NOTE.get(outcome, "") == game.winning_note(state, action), game.action_to_string(state, action)
            assert features[action, 16] == {WIN: 1.0, SHARE: 0.5}.get(outcome, 0.0)
            assert features[action, 17] == (outcome == LOSS)
        truth = {a: _played(game, state, a) for a in legal}
        for _ in range(2):  # equal in states the mover cannot tell apart
            other = game.resample_hidden(state, state.actor, rng)
            assert reader.endings(other) == endings
            # control: marks read from the played outcome (the true hands) differ between such states
            leaky_caught = leaky_caught or {a: _played(game, other, a) for a in legal} != truth
    assert marked[WIN] + marked[SHARE] > 0 and marked[LOSS] > 0, f"too few sure endings met: {marked}"
    if n > 3 or variant == "kakurenbo":  # three at Kurayami dice know almost every card by counting
        assert leaky_caught, "the control never differed: the view check could not fail"


def test_the_tactics_suites_claims_are_marked():
    """Every sure win of the suite's curse_win positions and every blunder of its curse_loss ones is marked."""
    from kakurega.agents.tactics.suite import load_suite, replay, suite_path

    suite = load_suite(suite_path("kakurenbo_v1"))
    envs, checked = {}, 0
    for position in suite.positions:
        env = replay(suite.env, position, envs)
        context = AgentContext.from_env(env, suite.env, position.options)
        features = KakurenboMoveFeatures(context)(env.observe(position.seat)).reshape(env.game.num_actions, -1)
        column = 16 if position.category == "curse_win" else 17
        assert features[list(position.claimed), column].min() == 1.0, position.id
        checked += 1
    assert checked >= 50


# ------------------------------------------------------------------ versions
SHIPPED_4P = {"variant": "kakurenbo", "num_players": 4}


def _shipped_file(env_name: str):
    from kakurega.agents.pretrained import DIRECTORY, file_name

    return DIRECTORY / file_name(env_name, SHIPPED_4P)


def _as_version_1(tmp_path, win_weight: float):
    """A copy of the kakurenbo_v0 bot (version 0) read as version 1: its head gets weights for the new columns."""
    from kakurega.agents.policy import read_policy, save_policy

    meta, layers, value_layers = read_policy(_shipped_file("kakurenbo_v0"), with_value=True)
    meta = json.loads(json.dumps(meta))
    meta["network"]["feature_head"] += [win_weight, -win_weight]
    meta["move_features_size"] = meta["num_actions"] * len(meta["network"]["feature_head"])
    meta["move_features_version"] = 1
    return save_policy(tmp_path / "v1.safetensors", layers, meta, value_layers=value_layers)


def test_version_0_is_the_first_16_columns_of_version_1_and_the_default_is_the_newest():
    reader = Reader("kakurenbo", 4)
    old = KakurenboMoveFeatures(reader.context, version=0)
    assert reader.features.version == 1 and MoveFeatures(reader.context).version == 1
    assert (old.PER_ACTION, reader.features.PER_ACTION) == (16, 18)
    for _, state, _ in deciding_states("kakurenbo", 4, games=10, seed=1, before_step_limit=True):
        observation = reader.observation(state)
        new = reader.features(observation).reshape(reader.game.num_actions, 18)
        assert np.array_equal(old(observation).reshape(reader.game.num_actions, 16), new[:, :16])
    with pytest.raises(ValueError, match=r"versions \[0, 1\], not 7"):
        MoveFeatures(reader.context, 7)


def test_a_policy_file_is_played_with_the_feature_version_it_records(tmp_path):
    from kakurega.agents.policy import load, read_policy

    old, new = _shipped_file("kakurenbo_v0"), _shipped_file("kakurenbo_v1")
    assert "move_features_version" not in read_policy(old)[0]  # written before versions: version 0
    assert read_policy(new)[0]["move_features_version"] == 1
    reader = Reader("kakurenbo", 4, "kakurenbo_v0")
    assert load(old, reader.context).move_features.version == 0
    assert load(new, Reader("kakurenbo", 4).context).move_features.version == 1
    agent = load(_as_version_1(tmp_path, win_weight=50.0), reader.context)
    assert agent.move_features.version == 1 and agent.move_features.size == 107 * 18
    # the head's weight on "surely wins" makes every marked give the choice
    chosen = 0
    for _, state, _ in deciding_states("kakurenbo", 4, games=150, seed=2, before_step_limit=True):
        wins = [a for a, outcome in reader.endings(state).items() if outcome == WIN]
        if wins and len(wins) < len(reader.game.legal_actions(state)):
            assert agent.act(reader.observation(state)) in wins
            chosen += 1
    assert chosen > 0


def test_a_bad_feature_version_is_refused_in_words(tmp_path):
    from kakurega.agents.policy import PolicyFileError, load, read_policy, save_policy

    good = _as_version_1(tmp_path, win_weight=1.0)
    meta, layers, value_layers = read_policy(good, with_value=True)
    for bad in ("1", -1, True, 1.5):
        path = save_policy(tmp_path / "bad.safetensors", layers, {**meta, "move_features_version": bad}, value_layers)
        with pytest.raises(PolicyFileError, match="move_features_version .*expected an integer from 0"):
            read_policy(path)
    path = save_policy(tmp_path / "future.safetensors", layers, {**meta, "move_features_version": 9}, value_layers)
    with pytest.raises(PolicyFileError, match=r"reads move features: kakurenbo_v0 computes move features of versions "
                                              r"\[0, 1\], not 9"):
        load(path, Reader("kakurenbo", 4, "kakurenbo_v0").context)


def test_demonstrations_record_the_feature_version():
    from kakurega.agents.training.config import validate_config
    from kakurega.agents.training.pretrain import demonstration_key

    config = {"env": "kakurenbo_v1", "algorithm": "ppo", "total_timesteps": 64}
    assert "move_features_version" not in demonstration_key(validate_config(config))
    with_features = validate_config({**config, "network": {"move_features": True}})
    # demonstrations kept with version-0 features are not reused for a network that reads version 1
    assert demonstration_key(with_features)["move_features_version"] == 1


def test_one_decision_computes_its_sure_endings_once(monkeypatch):
    """The features and the pruning of one observation (and, in Kurayami, the heuristic's take values) share one
    computation of the sure endings; the features and the pruning's mask equal a fresh instance's, and each new
    observation's endings are its own (a remembered dict that ignored the observation would hand on stale ones)."""
    from kakurega.agents.heuristics import kakurenbo

    calls = []

    def counted(*args):
        calls.append(1)
        return sure_endings(*args)

    monkeypatch.setattr(kakurenbo, "sure_endings", counted)
    pruned_met = changed_met = 0
    for variant in ("kurayami", "kakurenbo"):
        reader = Reader(variant, 3)
        features, previous = reader.features, None
        for _, state, _ in deciding_states(variant, 3, games=60, seed=3, before_step_limit=True):
            observation = reader.observation(state)
            fresh = KakurenboMoveFeatures(reader.context)
            calls.clear()
            rows, pruned = features(observation), features.dominated(observation)
            assert len(calls) == 1
            assert rows.tobytes() == fresh(observation).tobytes()
            assert (pruned == fresh.dominated(observation)).all()
            endings = reader.endings(state)
            assert features._heuristic.sure_endings(observation, np.flatnonzero(observation["action_mask"])) == endings
            pruned_met += bool(pruned.any())
            changed_met += previous is not None and endings != previous
            previous = endings
    assert pruned_met > 0 and changed_met > 0, "the comparisons could not fail"


@pytest.mark.parametrize("name", ["kakurenbo_v0", "kakurenbo_v1"])
def test_fine_tuning_from_a_file_of_older_move_features_is_refused_in_words(name):
    """The trainer computes the newest features (18 columns a move); a version-0 file's head weighs 16: refused
    naming the versions (it was a torch shape error after the run had started). A version-1 file fits (the
    control)."""
    from kakurega.agents.policy import read_policy
    from kakurega.agents.training.config import ConfigError, validate_config

    path = _shipped_file(name)
    meta = read_policy(path)[0]
    network = {"hidden": meta["network"]["sizes"][1:-1], "activation": meta["network"]["activation"],
               "move_features": True, "feature_head": True}
    config = {"env": name, "env_kwargs": dict(meta["env_options"]), "algorithm": "ppo", "total_timesteps": 64,
              "network": network, "init_policy": str(path)}
    if meta.get("move_features_version", 0) == 1:
        assert validate_config(config)["init_policy"] == str(path)
        return
    with pytest.raises(ConfigError, match=r"move features: the file reads version 0 of kakurenbo_v0's, the trainer "
                                          r"computes version 1"):
        validate_config(config)
