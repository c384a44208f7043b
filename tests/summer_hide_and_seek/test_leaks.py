"""Hidden information: a seeker's view never depends on the child's stroke.

``resample_hidden`` for a seeker draws another stroke; these tests replay the
whole round with that stroke and the public guesses through the rules engine
(every action must be legal and reproduce every announcement), check that the
seeker's observation is unchanged, and that replacements really occur.
"""

import numpy as np
import pytest

from conformance import check_leaks, random_states
from kakurega.envs.summer_hide_and_seek.rules import CHILD, SEEK, START
from kakurega.envs.summer_hide_and_seek_v0 import raw_env


def replay_round(game, state, stroke):
    """The current round replayed from its start with ``stroke`` and the public guesses."""
    replay = game.clone(state)
    round_vp = sum(game.map.icons[i].vp for _cost, icons in state.announcements for i in icons)
    replay.vp[state.child] -= round_vp
    replay.phase = START
    replay.stroke, replay.turn_icons, replay.announcements, replay.guesses = [], [], [], []
    replay.drawn = replay.visited = replay.turn_cost = replay.blocked = replay.guessed = replay.seekers_placed = 0
    replay.pieces = [-1] * game.num_players
    replay.belief = game.path_mask
    replay.steps = 0
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
            spent += game.line_between(stroke[i - 1], stroke[i])[1]
            do(game.line_base + stroke[i])
            i += 1
        do(game.stop_action)
        placed = state.guesses[t] if t < len(state.guesses) else state.pieces
        for seat in seekers:
            if placed[seat] >= 0:
                do(game.place_base + placed[seat])
    assert i == len(stroke), "the stroke is longer than the announcements"
    return replay


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
