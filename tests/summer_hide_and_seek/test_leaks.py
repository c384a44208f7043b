"""Hidden information: a seeker's view never depends on the child's stroke.

``resample_hidden`` for a seeker draws another stroke; these tests replay the
whole round with that stroke and the public guesses through the rules engine
(every action must be legal and reproduce every announcement), check that the
seeker's observation is unchanged, and that replacements really occur. A
replayed round is also a second *true* state in the seeker's information set:
samples from the two must be identical in every field.
"""

import dataclasses

import numpy as np
import pytest
from conformance import check_leaks, random_states

from kakurega.envs import summer_hide_and_seek_v0, summer_hide_and_seek_v1
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, SEEK, SHORTCUT_COST, START, SummerState
from kakurega.envs.summer_hide_and_seek_v0 import raw_env

VERSIONS = {"v0": summer_hide_and_seek_v0, "v1": summer_hide_and_seek_v1}


def replay_round(game, state, stroke):
    """The current round replayed from its start with ``stroke`` and the public guesses.

    ``steps`` counts on from the true state's count at the round's start, so
    the replay is the true state of a game whose child drew ``stroke``.
    """
    replay = game.clone(state)
    round_vp = sum(game.map.icons[i].vp for _cost, icons in state.announcements for i in icons)
    replay.vp[state.child] -= round_vp
    replay.phase = START
    replay.stroke, replay.turn_icons, replay.announcements, replay.guesses = [], [], [], []
    replay.drawn = replay.visited = replay.turn_cost = replay.blocked = replay.guessed = replay.seekers_placed = 0
    replay.pieces = [-1] * game.num_players
    replay.belief = game.path_mask
    replay.steps = round_start_steps(game, state)
    rng = np.random.default_rng(0)
    n = game.num_players
    seekers = [(state.child + k) % n for k in range(1, n)]

    def do(a):
        assert a in game.legal_actions(replay), game.illegal_reason(replay, a)
        game.apply_action(replay, a, rng)

    do(stroke[0])
    i = 1
    for t, (cost, _icons) in enumerate(state.announcements):
        spent = 0
        while spent < cost:
            line_cost = game.line_between(stroke[i - 1], stroke[i])[1]
            spent += line_cost
            do(game.line_base + stroke[i])
            if game.paced_turns and line_cost == SHORTCUT_COST:
                do(game.continue_action)
            i += 1
        if not (game.paced_turns and cost == BUDGET):
            do(game.stop_action)
        placed = state.guesses[t] if t < len(state.guesses) else state.pieces
        for seat in seekers:
            if placed[seat] >= 0:
                do(game.place_base + placed[seat])
    assert i == len(stroke), "the stroke is longer than the announcements"
    return replay


def round_start_steps(game, state):
    """The true state's ``steps`` when its current round began."""
    return state.steps - _round_actions(game, state)


def _round_actions(game, state):
    """Actions played in the current round up to the start of the turn in progress."""
    n = game.num_players
    actions = 1  # the start
    i = 1
    for t, (cost, _icons) in enumerate(state.announcements):
        spent = 0
        while spent < cost:
            line_cost = game.line_between(state.stroke[i - 1], state.stroke[i])[1]
            spent += line_cost
            actions += 1 + (game.paced_turns and line_cost == SHORTCUT_COST)
            i += 1
        actions += not (game.paced_turns and cost == BUDGET)
        actions += (n - 1) if t < len(state.guesses) else state.seekers_placed
    return actions


PUBLIC_FIELDS = ("round", "phase", "vp", "announcements", "guesses", "pieces", "blocked", "guessed", "belief", "seekers_placed", "history")


@pytest.mark.parametrize("num_players,strict", [(2, False), (3, False), (4, False), (3, True)])
def test_resampled_strokes_replay_legally_and_look_the_same(num_players, strict):
    env = raw_env(num_players=num_players, strict_moves=strict)
    game = env.game
    states = [s for s in random_states(game, seed=num_players, num_games=25, every=2) if s.phase in (CHILD, SEEK)][:120]
    changed = total = 0
    for index, state in enumerate(states):
        for seat in range(num_players):
            sample = game.resample_hidden(state, seat, np.random.default_rng(index))
            assert np.array_equal(env.encode(sample, seat), env.encode(state, seat))
            if seat == state.child:
                assert game.fingerprint(sample) == game.fingerprint(state), "nothing is hidden from the child"
                continue
            replay = replay_round(game, state, sample.stroke)
            for name in PUBLIC_FIELDS:
                assert getattr(replay, name) == getattr(state, name), f"state {index}: {name} differs after replay"
            assert replay.stroke == sample.stroke and replay.drawn == sample.drawn and replay.visited == sample.visited
            assert replay.closed_lines == sample.closed_lines and replay.blocked_lines == sample.blocked_lines
            assert sample.turn_cost == 0 and sample.turn_icons == []
            total += 1
            changed += sample.stroke != state.stroke
    assert total > (40 if strict else 100)
    if not strict:
        assert changed / total > 0.5, f"only {changed}/{total} resamples changed the stroke"


def test_the_real_stroke_also_replays():
    """The replay helper itself accepts the true stroke at the start of a child turn (a sanity check)."""
    env = raw_env(num_players=3)
    game = env.game
    states = [s for s in random_states(game, seed=4, num_games=10) if s.phase == SEEK]
    assert states
    for state in states:
        replay = replay_round(game, state, state.stroke)
        assert replay.belief == state.belief and replay.announcements == state.announcements


def test_seeker_observation_hides_the_stroke_and_square():
    env = raw_env(num_players=3)
    game = env.game
    layout = env.layout
    states = [s for s in random_states(game, seed=8, num_games=10) if s.phase == CHILD and len(s.stroke) > 1]
    assert states
    for state in states:
        for seat in range(3):
            obs = env.encode(state, seat)
            private = [layout.view(obs, name).any() for name in ("stroke", "position", "budget_left", "turn_icons")]
            if seat == state.child:
                assert private[0] and private[1]
                assert layout.view(obs, "stroke").max() == len(state.stroke)
            else:
                assert not any(private)


def test_resample_changes_nothing_before_the_start_or_after_the_end():
    game = raw_env(num_players=2).game
    state = game.initial_state(np.random.default_rng(0))
    assert state.phase == START
    for seat in range(2):
        assert game.fingerprint(game.resample_hidden(state, seat, np.random.default_rng(1))) == game.fingerprint(state)


@pytest.mark.parametrize("options", [{"strict_moves": True}, {"num_players": 4, "reward": "vp"}])
def test_generic_leak_check_in_other_configurations(options):
    env = raw_env(**options)
    check_leaks(env, random_states(env.game, seed=3, num_games=6, every=3))


def test_resample_is_cheap():
    import time

    env = raw_env(num_players=2)
    game = env.game
    states = [s for s in random_states(game, seed=5, num_games=20) if s.phase == SEEK]
    start = time.perf_counter()
    for i, state in enumerate(states):
        game.resample_hidden(state, (state.child + 1) % 2, np.random.default_rng(i))
    per_call = (time.perf_counter() - start) / len(states)
    assert per_call < 0.05, f"resample_hidden took {1000 * per_call:.1f} ms per call"


def test_resample_survives_hundreds_of_turns_without_a_line():
    """A child that stops at once every turn: resampling walks those turns without deep recursion."""
    env = raw_env(num_players=2, max_steps=5000)
    env.reset(seed=2)
    game = env.game
    stop = 2 * game.num_squares
    turns = 0
    while turns < 600:
        state = env.game_state
        legal = game.legal_actions(state)
        if state.phase == START:
            action = legal[0]
        elif state.phase == CHILD:
            action = stop
            turns += 1
        else:  # the seeker guesses anywhere but the child's square
            action = next(a for a in legal if a - (stop + 1) != state.square)
        env.step(action)
    assert env.game_state.round == 0 and len(env.game_state.announcements) >= 600
    seeker = 1 - env.game_state.child
    sample = game.resample_hidden(env.game_state, seeker, np.random.default_rng(0))
    assert np.array_equal(env.encode(sample, seeker), env.encode(env.game_state, seeker))


# ------------------------------------------- one information set, one sample
def differing_fields(a, b) -> list[str]:
    """Names of the fields where two states differ."""
    names = [f.name for f in dataclasses.fields(SummerState)]
    return [name for name in names if getattr(a, name) != getattr(b, name)]


def twins(game, seed, num_games=12):
    """(true state, another true state in the seekers' information set) at seekers' turns of random games.

    The twin is the round replayed with another stroke consistent with every
    public fact, through the rules engine, so every field follows the rules.
    """
    states = [s for s in random_states(game, seed=seed, num_games=num_games, every=2) if s.phase == SEEK]
    for index, state in enumerate(states):
        other = game.sample_stroke(state, np.random.default_rng(seed + index))
        if other != state.stroke:
            yield state, replay_round(game, state, other)


def check_twin_samples(game, seed):
    """Samples of two true states of one information set are identical; returns (pairs, pairs whose steps differ)."""
    pairs = steps_differ = 0
    for a, b in twins(game, seed):
        assert a.stroke != b.stroke and not differing_fields(game.clone(a), a)
        seekers = [seat for seat in range(game.num_players) if seat != a.child]
        for seat in seekers:
            for k in range(2):
                sample_a = game.resample_hidden(a, seat, np.random.default_rng(k))
                sample_b = game.resample_hidden(b, seat, np.random.default_rng(k))
                assert game.fingerprint(sample_a) == game.fingerprint(sample_b), (
                    f"seat {seat}: samples of one information set differ in {differing_fields(sample_a, sample_b)}"
                )
        pairs += 1
        steps_differ += a.steps != b.steps
    return pairs, steps_differ


@pytest.mark.parametrize("version", list(VERSIONS))
@pytest.mark.parametrize("num_players", [2, 3])
def test_samples_from_one_information_set_are_identical_in_every_field(version, num_players):
    game = VERSIONS[version].raw_env(num_players=num_players).game
    pairs, steps_differ = check_twin_samples(game, seed=num_players)
    assert pairs > 30
    if version == "v0":
        assert steps_differ > 0, "the twins never differ in their hidden step count: the test would be vacuous"
    else:
        assert steps_differ == 0, "v1: the step counter is a public fact"


def test_twin_samples_control_the_old_sampler_copied_the_true_step_count():
    """The test above catches a sampler that copies the true ``steps`` (v0's old leak)."""
    game = summer_hide_and_seek_v0.raw_env(num_players=2).game
    game.sample_steps = lambda sample: sample.steps  # the old behaviour: the true count goes into the sample
    with pytest.raises(AssertionError, match=r"differ in \['steps'\]"):
        check_twin_samples(game, seed=2)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_step_count_of_version_0_is_recounted_exactly_from_the_strokes(num_players):
    game = raw_env(num_players=num_players).game
    states = random_states(game, seed=num_players, num_games=10, every=1)
    assert all(game.count_steps(state) == state.steps for state in states)


def test_clone_copies_every_field_and_the_state_has_no_scratch():
    game = raw_env(num_players=3).game
    state = next(s for s in random_states(game, seed=1, num_games=2, every=5) if s.phase == SEEK)
    assert not hasattr(SummerState, "SCRATCH_FIELDS")  # the encoder's caches live in the observer
    copy = game.clone(state)
    assert set(vars(copy)) == set(vars(state)) and differing_fields(copy, state) == []
    assert game.fingerprint(copy) == game.fingerprint(state)
    for field in dataclasses.fields(SummerState):
        changed = game.clone(state)
        setattr(changed, field.name, "changed")
        assert game.fingerprint(changed) != game.fingerprint(state), f"the fingerprint ignores {field.name}"


def caches(game) -> dict:
    """The caches of a rules object (its own and its belief model's)."""
    model = game.belief_model
    return {"_actions_of_open": game._actions_of_open, "_analysis_cache": game._analysis_cache,
            "belief _plans": model._plans, "belief _images": model._images, "belief _results": model._results}


def test_every_rules_object_has_caches_of_its_own():
    """Caches filled from the child's private states (legal lines, hypothetical announcements) are never shared."""
    game = raw_env(num_players=2).game
    other = type(game)(**game.options)
    assert other.options == game.options
    for name, cache in caches(game).items():
        assert cache is not caches(other)[name], f"{name} is shared between two rules objects"
    game.belief_model.propagate(game.path_mask, 2, (), 0)
    assert not other.belief_model._results, "one model's results reached another's"


@pytest.mark.parametrize("version", list(VERSIONS))
def test_renders_of_one_information_set_are_identical_for_seekers_and_spectators(version):
    from kakurega.envs.summer_hide_and_seek.render import render_text

    game = VERSIONS[version].raw_env(num_players=3).game
    pairs = 0
    for a, b in twins(game, seed=5, num_games=6):
        for viewer in [None] + [seat for seat in range(3) if seat != a.child]:
            assert render_text(game, a, viewer) == render_text(game, b, viewer), f"viewer {viewer}"
        assert render_text(game, a, a.child) != render_text(game, b, a.child), "control: the child sees its stroke"
        pairs += 1
    assert pairs > 10


def test_the_spectator_render_shows_every_piece_by_seat_and_every_past_guess():
    from kakurega.envs.summer_hide_and_seek.render import render_text

    game = raw_env(num_players=3).game
    state = game.initial_state(np.random.default_rng(0))
    state.first_child = 0
    rng = np.random.default_rng(0)
    start = game.legal_actions(state)[0]
    assert start != 5
    for a in (start, game.stop_action, game.place_base + 5, game.place_base + 5):  # both seekers on square 5
        game.apply_action(state, a, rng)
    text = render_text(game, state, None)
    square = game.map.square_name(5)
    assert f"guesses after announcement 1: player_1 {square}, player_2 {square}" in text


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_from_every_moment_a_childs_turn_takes_as_many_decisions_as_its_announcement_tells(num_players):
    """v1's paced turns: continuations of one moment whose child's turns end in the same announcement took the same
    decisions (the seekers cannot count the child's lines); the control, v1's rules without paced turns (v0's
    turns), is caught by the same check."""
    from dataclasses import replace

    from leak_checks import check_turn_order_branches

    raw = summer_hide_and_seek_v1.raw_env(num_players=num_players)
    states = random_states(raw.game, seed=5, num_games=2, every=1)[:40]
    assert check_turn_order_branches(raw, states, branches=24) > 0  # turns of other strokes met the same view
    unpaced = replace(summer_hide_and_seek_v1.DEFINITION, rules={**summer_hide_and_seek_v1.DEFINITION.rules,
                                                                 "paced_turns": False})
    raw = unpaced.factories("unpaced")[0](num_players=num_players)
    with pytest.raises(AssertionError, match="turn order leaks"):
        check_turn_order_branches(raw, random_states(raw.game, seed=5, num_games=2, every=1)[:40], branches=24)


class SquarePeekingFeatures:
    """A leaky control: honest move features, plus the child's true square read from the env (the seekers' secret)."""

    def __init__(self, raw, honest):
        self.raw, self.honest, self.size = raw, honest, honest.size

    def __call__(self, observation):
        values = self.honest(observation).copy()
        values[-1] = self.raw.game_state.square % 2
        return values

    def dominated(self, observation):
        return self.honest.dominated(observation)


class SquarePeekingDominance(SquarePeekingFeatures):
    """A leaky control: honest move features, but it proves the last legal move dominated when the child's true
    square is odd."""

    def __call__(self, observation):
        return self.honest(observation)

    def dominated(self, observation):
        proved = np.zeros(len(observation["action_mask"]), dtype=bool)
        if self.raw.game_state.square % 2:
            proved[np.flatnonzero(observation["action_mask"])[-1]] = True
        return proved


def check_twin_features(raw, features, seed: int = 5) -> int:
    """The acting seeker's move features, and the moves they prove dominated, are the same in both true states of
    its information set (:func:`twins`: the round replayed with another stroke); returns the pairs compared."""
    pairs = 0
    for a, b in twins(raw.game, seed=seed, num_games=6):
        shown = []
        for state in (a, b):
            raw.game_state = state
            raw._after_transition()
            observation = raw.observe(raw.agent_selection)
            proved = features.dominated(observation)
            shown.append((observation["observation"].tobytes(), features(observation).tobytes(),
                          None if proved is None else np.flatnonzero(proved).tolist()))
        assert raw.game.current_player(a) != a.child and shown[0][0] == shown[1][0], "not a seeker's information set"
        assert shown[0][1] == shown[1][1], "the seeker's move features differ between states it cannot tell apart"
        assert shown[0][2] == shown[1][2], "the moves proved dominated differ between states the seeker cannot tell apart"
        pairs += 1
    return pairs


@pytest.mark.parametrize("version", list(VERSIONS))
def test_move_features_of_one_information_set_are_identical_for_seekers(version):
    from kakurega.agents.base import AgentContext
    from kakurega.agents.move_features import MoveFeatures

    raw = VERSIONS[version].raw_env(num_players=3)
    raw.reset(seed=0)
    honest = MoveFeatures(AgentContext.from_env(raw, raw.metadata["name"]))
    assert check_twin_features(raw, honest) > 10
    with pytest.raises(AssertionError, match="move features differ"):
        check_twin_features(raw, SquarePeekingFeatures(raw, honest))
    with pytest.raises(AssertionError, match="moves proved dominated differ"):
        check_twin_features(raw, SquarePeekingDominance(raw, honest))
