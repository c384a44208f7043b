"""Random-play fuzz and determinization leak tests for Hidden Rooms."""

import numpy as np
import pytest
from conformance import check_leaks, random_states

from kakurega.envs import hidden_rooms_v0
from kakurega.envs.hidden_rooms.observation import HiddenRoomsObserver
from kakurega.envs.hidden_rooms.rules import EMPTY, NUM_TILES, OVER, START_CELL, START_TILE, HiddenRoomsGame


def check_invariants(game: HiddenRoomsGame, state) -> None:
    placed = [t for t in state.board if t != EMPTY]
    in_hand = [state.drawn] if state.drawn >= 0 else []
    tiles = sorted(placed + state.memory + state.pile + in_hand)
    assert tiles == list(range(NUM_TILES + 1)), "tiles are not conserved (placed + memory + pile + hand = 24 + start)"
    assert state.board[START_CELL] == START_TILE
    assert len(state.memory) <= 5 and state.memory == sorted(state.memory)
    assert 1 <= state.turn <= game.max_turns, f"round {state.rounds} went past the turn limit: turn {state.turn}"
    assert state.board[state.child] != EMPTY, "the child stands on a dark cell"
    assert state.rounds <= 4 and state.escapes <= 2 and state.fails <= 3


def fuzz(game: HiddenRoomsGame, num_games: int, seed: int) -> dict:
    """Random legal play on the engine, checking invariants after every action."""
    rng = np.random.default_rng(seed)
    encode = HiddenRoomsObserver(game).encode
    stats = {"rounds": 0, "decisions": 0}
    for _ in range(num_games):
        state = game.initial_state(rng)
        decisions_this_round, round_index = 0, state.rounds
        while state.phase != OVER:
            check_invariants(game, state)
            obs = encode(state, 0)
            assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
            legal = game.legal_actions(state)
            assert legal and legal == sorted(legal)
            game.apply_action(state, int(rng.choice(legal)), rng)
            stats["decisions"] += 1
            decisions_this_round += 1
            if state.rounds != round_index:
                decisions_this_round, round_index = 0, state.rounds
            # each turn offers at most 2 steps + stop + search + place = 5 decisions
            assert decisions_this_round <= 5 * game.max_turns
        assert len(state.results) == state.rounds
        assert state.escapes == 2 or state.fails == 3 or game.episode == "round"
        stats["rounds"] += state.rounds
    return stats


@pytest.mark.parametrize("options", [{}, {"episode": "round", "max_turns": 20}, {"reward": "per_round", "max_turns": 5}])
def test_random_play_fuzz(options):
    game = HiddenRoomsGame(**options)
    stats = fuzz(game, num_games=150, seed=1)
    assert stats["rounds"] >= 150


@pytest.mark.slow
def test_random_play_fuzz_long():
    for seed, options in enumerate([{}, {"episode": "round"}, {"max_turns": 200}]):
        fuzz(HiddenRoomsGame(**options), num_games=3000, seed=100 + seed)


def test_random_play_reaches_every_rule_branch():
    """The fuzz is not vacuous: random play meets spills, memory searches, empty piles and every outcome."""
    from kakurega.envs.hidden_rooms.booklet import Monster
    from kakurega.envs.hidden_rooms.rules import DECLINE, NO_SEARCH, PLACING, SEARCH, SEARCH_MEMORY, SEARCH_PILE

    # the default booklet, plus a blind monster pacing a corner for 200 turns, so that the room can fill up
    pacer = Monster(name="Pacer", path=((0, 4), (0, 3)) * 200, steps=1, sight_range=0)
    game = HiddenRoomsGame(monsters=HiddenRoomsGame().monsters + (pacer,), max_turns=200)
    rng = np.random.default_rng(5)
    seen = {"spill": 0, "memory_search": 0, "empty_pile_search": 0}
    outcomes = set()
    for _ in range(200):
        state = game.initial_state(rng)
        while state.phase != OVER:
            legal = game.legal_actions(state)
            # bias toward searching and placing, so that memory spills and the pile runs out
            if state.phase == SEARCH:
                legal = [a for a in legal if a != NO_SEARCH] or legal
            elif state.phase == PLACING:
                legal = [a for a in legal if a != DECLINE] or legal
            action = int(rng.choice(legal))
            before = len(state.memory)
            if state.phase == SEARCH and not state.pile:
                seen["empty_pile_search"] += 1
            seen["memory_search"] += SEARCH_MEMORY <= action < NO_SEARCH
            game.apply_action(state, action, rng)
            seen["spill"] += action == SEARCH_PILE and before == 5 and not state.memory and state.rounds == 1
        outcomes.update(state.results)
    assert all(count > 0 for count in seen.values()), seen
    assert outcomes == {1, 2, 3, 4}, outcomes  # escaped, caught, monster exit, turn limit


# ------------------------------------------------------------------- leaks
def test_observation_ignores_pile_order_and_resampling_reorders():
    env = hidden_rooms_v0.raw_env()
    game = env.game
    states = random_states(game, seed=3, num_games=20, every=2)
    changed = total = 0
    for index, state in enumerate(states):
        reference = env.encode(state, 0)
        for k in range(3):
            sample = game.resample_hidden(state, 0, np.random.default_rng(100 * index + k))
            assert sorted(sample.pile) == sorted(state.pile)
            assert np.array_equal(env.encode(sample, 0), reference)
            assert game.legal_actions(sample) == game.legal_actions(state)
            sample.pile = state.pile  # everything but the pile order is untouched
            assert game.fingerprint(sample) == game.fingerprint(state)
            total += 1
        # the pile order really changes (and a reversed pile gives the same observation)
        sample = game.resample_hidden(state, 0, np.random.default_rng(index))
        changed += sample.pile != state.pile
        reversed_state = game.clone(state)
        reversed_state.pile.reverse()
        assert np.array_equal(env.encode(reversed_state, 0), reference)
    assert changed >= 0.9 * len(states)


def test_shared_leak_check_on_match_and_round_episodes():
    for options in ({}, {"episode": "round"}):
        env = hidden_rooms_v0.raw_env(**options)
        check_leaks(env, random_states(env.game, seed=9, num_games=10, every=3), min_changed_fraction=0.5)


def test_resample_is_independent_of_the_hidden_order():
    game = HiddenRoomsGame()
    state = game.initial_state(np.random.default_rng(0))
    other = game.clone(state)
    other.pile = sorted(other.pile)
    a = game.resample_hidden(state, 0, np.random.default_rng(42))
    b = game.resample_hidden(other, 0, np.random.default_rng(42))
    assert a.pile == b.pile


def test_turn_piece_on_a_rounds_last_turn_matches_the_reference():
    """With a short round (max_turns=3) random play meets the round's last turn, where the ``turn`` piece reads 1.0;
    there and everywhere else in those games the fast encoder equals the reference encoder for every seat."""
    from conformance import check_encoder_matches_reference

    from kakurega.envs.hidden_rooms import reference
    from kakurega.envs.registry import make

    env = make("hidden_rooms_v0", wrapped=False, max_turns=3)
    game = env.game
    states = random_states(game, seed=0, num_games=12, every=1)
    last = [s for s in states if s.turn == game.max_turns and not game.is_terminal(s)]
    assert len(last) >= 20, "random play never reached a round's last turn"
    for state in last:
        fast = env.encode(state, 0)
        assert env.layout.view(fast, "turn")[0] == 1.0
        assert np.array_equal(fast, reference.encode(game, state, 0))
    check_encoder_matches_reference(lambda: make("hidden_rooms_v0", wrapped=False, max_turns=3))


def test_a_decision_always_offers_more_than_doing_nothing():
    """The child is asked only where it has a real choice: over random games no decision's only legal action is
    "do nothing" (a MOVE whose every explored neighbour holds the monster is skipped, not offered as "stop moving")."""
    from kakurega.envs.hidden_rooms.rules import MOVE, STOP_MOVING

    game = hidden_rooms_v0.raw_env().game
    states = [s for s in random_states(game, seed=0, num_games=120, every=1) if not game.is_terminal(s)]
    moves = [s for s in states if s.phase == MOVE]
    assert len(moves) > 1000
    for state in moves:
        legal = game.legal_actions(state)
        assert legal[-1] == STOP_MOVING and len(legal) >= 2, f"a MOVE decision offers only {legal}"
    assert all(len(game.legal_actions(s)) >= 2 for s in states)
