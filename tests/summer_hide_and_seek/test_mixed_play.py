"""Summer: the child's turns drawn from a mixed strategy (``mix``), and the policy files and specs that ask for it.

A greedy network hides on the same square in every game (Summer has no chance), so a seeker that has learnt it
finds the child at once; :class:`~kakurega.agents.heuristics.summer_mixed.SummerMixedChild` draws the child's
end square among every square its announcement leaves possible.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.summer_mixed import SummerMixedChild
from kakurega.agents.policy import PolicyFileError, load, read_policy, save_policy
from kakurega.agents.pretrained import find
from kakurega.agents.specs import make_agent
from kakurega.agents.tournament import run_tournament
from kakurega.agents.training.config import ConfigError, validate_config
from kakurega.envs.registry import make


def _context(env, env_name="summer_hide_and_seek_v2", options=None):
    return AgentContext.from_env(env, env_name, options or {"num_players": 2})


def _first_turns(spec: str, games: int) -> Counter:
    """(announcement, end square) of the first child turn of the 2-player game, per seed."""
    env = make("summer_hide_and_seek_v2", wrapped=False, num_players=2)
    seen = Counter()
    for seed in range(games):
        env.reset(seed=seed)
        child = make_agent(spec, _context(env), seed=seed)
        child.reset()
        while not env.game_state.announcements:
            agent = env.agent_selection
            assert env.game.current_player(env.game_state) == env.game_state.child  # it moves until it announces
            env.step(child.act(env.observe(agent)))
        state = env.game_state
        seen[(state.announcements[0], state.stroke[-1])] += 1
    return seen


def test_the_child_ends_its_first_turn_on_several_squares_where_the_greedy_network_picks_one():
    mixed, greedy = _first_turns("pretrained:mix=true", 120), _first_turns("pretrained:mix=false", 20)
    assert len(greedy) == 1  # the control: the network alone hides in the same place every game
    announcements = Counter()
    for (announcement, _end), count in mixed.items():
        announcements[announcement] += count
    announcement, total = announcements.most_common(1)[0]
    ends = {end: count for (a, end), count in mixed.items() if a == announcement}
    assert len(ends) >= 3
    # drawn uniformly: no end square far from an equal share (a loose bound, 120 draws)
    assert min(ends.values()) >= total / len(ends) / 3
    assert max(ends.values()) <= 3 * total / len(ends)


@pytest.mark.parametrize("env_name", ["summer_hide_and_seek_v1", "summer_hide_and_seek_v2"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_mixed_bots_play_legal_moves_and_the_seekers_turns_stay_the_networks(env_name, num_players):
    options = {"num_players": num_players}
    env = make(env_name, wrapped=False, **options)
    context = _context(env, env_name, options)
    rng = np.random.default_rng(num_players)
    child_moves = seeker_moves = 0
    for game in range(3):
        env.reset(seed=game)
        agents = {a: make_agent("pretrained:mix=true", context, seed=10 * game + i) for i, a in enumerate(env.agents)}
        for agent in agents.values():
            agent.reset()
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            name = env.agent_selection
            observation = env.observe(name)
            mixed = agents[name].mixed
            is_child = env.game.current_player(env.game_state) == env.game_state.child
            if not is_child:
                assert mixed.act(observation, rng) is None  # a seeker's decision: the network's
                seeker_moves += 1
            else:
                child_moves += 1
            action = agents[name].act(observation)
            assert observation["action_mask"][action], f"illegal move {action} by {name}"
            env.step(action)
    assert child_moves > 0 and seeker_moves > 0


def test_the_mixed_child_reads_the_observation_alone():
    """It is handed a bare observation dict (vector and mask) and nothing else; the same dict and the same
    generator state give the same move."""
    env = make("summer_hide_and_seek_v2", wrapped=False, num_players=2)
    env.reset(seed=0)
    child = SummerMixedChild(_context(env))
    observation = env.observe(env.agent_selection)
    bare = {"observation": observation["observation"].copy(), "action_mask": observation["action_mask"].copy()}
    first = child.act(bare, np.random.default_rng(5))
    child.reset()
    assert child.act(bare, np.random.default_rng(5)) == first
    assert bare["action_mask"][first]


def test_tournaments_with_mixed_bots_repeat_for_the_same_seed():
    specs = ["pretrained:mix=true", "heuristic"]
    a = run_tournament("summer_hide_and_seek_v2", specs, {"num_players": 2}, 12, 3)
    b = run_tournament("summer_hide_and_seek_v2", specs, {"num_players": 2}, 12, 3)
    first, second = a.to_dict(), b.to_dict()
    first.pop("wall_seconds"), second.pop("wall_seconds")
    assert first == second


def _copy_with(tmp_path, **fields):
    meta, layers, value_layers = read_policy(find("summer_hide_and_seek_v2", {"num_players": 2}), with_value=True)
    meta.update(fields)
    return save_policy(tmp_path / "bot.safetensors", layers, meta, value_layers=value_layers)


def test_a_file_that_says_mix_plays_mixed_unless_the_spec_says_otherwise(tmp_path):
    path = _copy_with(tmp_path, mix=True)
    env = make("summer_hide_and_seek_v2", wrapped=False, num_players=2)
    context = _context(env)
    assert load(path, context=context).mixed is not None
    assert make_agent(f"policy:{path},mix=false", context).mixed is None
    assert make_agent(f"policy:{path},prune=false", context).prune is False  # the policy kind takes every option
    env.reset(seed=0)
    with pytest.raises(ValueError, match="mix=false"):  # its mixed decisions list no probabilities
        make_agent(f"policy:{path}", context).move_probabilities(env.observe(env.agent_selection))
    assert make_agent(f"policy:{path}", context).mixed is not None
    assert make_agent("pretrained", context).mixed is not None  # the shipped 2-player file says mix: true
    assert make_agent("pretrained:mix=false", context).mixed is None
    three = make("summer_hide_and_seek_v2", wrapped=False, num_players=3)
    assert make_agent("pretrained", _context(three, options={"num_players": 3})).mixed is None  # its file does not


def test_a_malformed_mix_field_or_a_game_without_mixed_play_is_refused(tmp_path):
    with pytest.raises(PolicyFileError, match="mix"):
        load(_copy_with(tmp_path, mix="yes"))
    env = make("animal_chain_v1", wrapped=False)
    with pytest.raises(PolicyFileError, match="declares no mixed play"):
        make_agent("pretrained:mix=true", AgentContext.from_env(env, "animal_chain_v1", {}))
    with pytest.raises(ValueError, match="mix"):
        make_agent("pretrained:mix=maybe", _context(make("summer_hide_and_seek_v2", wrapped=False, num_players=2)))


def test_the_training_config_writes_mix_only_for_a_game_that_has_mixed_play():
    config = validate_config({"env": "summer_hide_and_seek_v2", "env_kwargs": {"num_players": 2}, "algorithm": "ppo",
                              "total_timesteps": 1000, "mix": True})
    from kakurega.agents.training.trainer import policy_fields

    assert policy_fields(config) == {"mix": True}
    with pytest.raises(ConfigError, match="declares no mixed play"):
        validate_config({"env": "animal_chain_v1", "algorithm": "ppo", "total_timesteps": 1000, "mix": True})


def reference_groups(child, options):
    """The plain grouping: each plan read from the arrays one number at a time."""
    from kakurega.agents.heuristics.summer_hide_and_seek import FUTURE_VALUE, MOBILITY
    from kakurega.agents.heuristics.summer_mixed import MIN_EXITS

    ends, cramped, stuck = {}, {}, []
    for plans, start in options:
        for i, q in enumerate(plans.squares.tolist()):
            if plans.stuck[i]:
                stuck.append((plans.gains[i], start, plans.paths[i]))
                continue
            value = plans.gains[i] + plans.mobility[i]
            group = ends if plans.mobility[i] >= MOBILITY * MIN_EXITS - 1e-9 else cramped
            squares = group.setdefault(plans.announcements[plans.announcement[i]], {})
            if q not in squares or value > squares[q][0]:
                squares[q] = (value, start, plans.paths[i])
    groups = ends or cramped
    if not groups:
        best = max(stuck, key=lambda plan: plan[0])
        return [], (best[1], list(best[2]))
    scored = []
    for announcement, squares in groups.items():
        found = min(1.0, child.seekers / len(squares))
        scored.append((float(np.mean([plan[0] for plan in squares.values()])) + (1.0 - found) * FUTURE_VALUE,
                       announcement))
    top = max(value for value, _ in scored)
    return [groups[a] for value, a in scored if value >= top - 1e-9], None


@pytest.mark.parametrize("env_name,num_players", [("summer_hide_and_seek_v2", 2), ("summer_hide_and_seek_v1", 3)])
def test_the_groups_of_the_plans_are_the_plain_ones(env_name, num_players):
    """Every turn of random games, and the first turns from every start square (with a control)."""
    from kakurega.agents.heuristics.summer_hide_and_seek import TurnPlans
    from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD

    env = make(env_name, wrapped=False, num_players=num_players)
    child = SummerMixedChild(_context(env, env_name, {"num_players": num_players}))
    game, rng = env.game, np.random.default_rng(0)
    cases = [[(child._first_turn(s), s) for s in game._start_actions]]
    for seed in range(6):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            state = env.game_state
            if state.phase == CHILD and not state.continue_due:
                cases.append([(TurnPlans(game, state.stroke[-1], state.visited, state.drawn, state.blocked,
                                         BUDGET - state.turn_cost, tuple(state.turn_icons), state.turn_cost),
                               state.stroke[-1])])
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    def ordered(groups):  # the draw reads the squares in their order
        best, stuck = groups
        return [list(squares.items()) for squares in best], stuck

    assert len(cases) > 30
    for options in cases:
        assert ordered(child._groups(options)) == ordered(reference_groups(child, options))
    control = [(plans, start + 1) for plans, start in cases[0]]  # another start: the plans' records differ
    assert ordered(child._groups(control)) != ordered(reference_groups(child, cases[0]))


def _mixed_moves(games: int) -> list:
    moves = []
    run_tournament("summer_hide_and_seek_v2", ["pretrained", "heuristic"], {"num_players": 2}, games=games, seed=5,
                   on_game=lambda game: moves.append(game.moves))
    return moves


def test_the_remembered_turn_groups_play_as_the_plain_search_and_are_capped(monkeypatch):
    from kakurega.agents.heuristics import summer_mixed

    plain = SummerMixedChild.act
    kept = []

    def act(child, observation, rng):
        kept.append(child)
        return plain(child, observation, rng)

    monkeypatch.setattr(SummerMixedChild, "act", act)
    remembered = _mixed_moves(12)
    assert max(len(child._turn_groups) for child in kept) > 5
    monkeypatch.setattr(summer_mixed, "TURN_GROUPS_SIZE", 0)  # every turn searched again
    assert _mixed_moves(12) == remembered
    monkeypatch.setattr(summer_mixed, "TURN_GROUPS_SIZE", 3)
    kept.clear()
    _mixed_moves(4)
    assert {len(child._turn_groups) for child in kept} == {3}


def test_control_a_wrong_remembered_turn_group_changes_the_moves(monkeypatch):
    from kakurega.agents.heuristics import summer_mixed

    monkeypatch.setattr(summer_mixed, "TURN_GROUPS_SIZE", 0)
    plain = _mixed_moves(12)
    original = summer_mixed.remember

    def wrong(cache, key, value, size):  # every remembered turn keeps its stuck fallback only
        if cache is not None and value is not None and isinstance(key, tuple) and len(key) == 6:
            value = ([], (key[0], []))
        return original(cache, key, value, size + 1024)

    monkeypatch.setattr(summer_mixed, "remember", wrong)
    assert _mixed_moves(12) != plain


def test_a_mixed_bot_samples_the_networks_own_decisions_when_asked():
    """``pretrained:sample=true`` on a bot whose file says ``mix``: the child's turns stay mixed, the seekers' are
    drawn from the network's softmax (before, every seeker decision raised: sampling asked for the move
    probabilities, which a mixed policy does not list)."""
    env = make("summer_hide_and_seek_v2", wrapped=False, num_players=2)
    context = _context(env)
    sampled = make_agent("pretrained:sample=true", context, seed=0)
    assert sampled.mixed is not None and sampled.sample
    seeker_moves = set()
    for game in range(6):
        env.reset(seed=game)
        sampled.reset()
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            observation = env.observe(env.agent_selection)
            action = sampled.act(observation)
            assert observation["action_mask"][action]
            if env.game.current_player(env.game_state) != env.game_state.child and game == 0 and not seeker_moves:
                seeker_moves = {sampled.act(observation) for _ in range(40)}  # drawn: more than the greedy one
            env.step(action)
    assert len(seeker_moves) > 1
    with pytest.raises(ValueError, match="mix=true"):
        sampled.move_probabilities(observation)  # still not listed for a mixed policy


@pytest.mark.parametrize("name", ["summer_hide_and_seek_v1", "summer_hide_and_seek_v2"])
def test_a_shortcuts_continue_met_without_the_turns_plan_is_played(name):
    """The second decision of a shortcut (only "continue" legal, no budget left), asked of a mixed child that did
    not plan the turn (fresh, just reset, or positions met out of order, as the tactics suite asks them): it plays
    the one legal move (it raised an IndexError: the plan of a turn with no budget left is empty)."""
    from kakurega.agents.mixed_play import mixed_play

    raw = make(name, wrapped=False, num_players=2)
    game, rng = raw.game, np.random.default_rng(0)
    found = 0
    while found < 3:
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            legal = game.legal_actions(state)
            if legal == [game.continue_action]:
                seat = game.current_player(state)
                mask = np.zeros(game.num_actions, np.int8)
                mask[legal] = 1
                child = mixed_play(AgentContext.from_env(raw, name))
                child.reset()
                assert child.act({"observation": raw.encode(state, seat), "action_mask": mask},
                                 np.random.default_rng(found)) == game.continue_action
                found += 1
            game.apply_action(state, int(rng.choice(legal)), rng)


def test_the_install_check_compares_the_networks_greedy_moves():
    """A file compared with itself agrees on every decision, a mixed-play file (the Summer 2p bot) too: its mixed
    decisions, drawn from unseeded generators, once made a file disagree with itself on 10-20% of them."""
    from kakurega.agents.pretrained import find
    from kakurega.scripts.train_bots import greedy_agreement

    path = find("summer_hide_and_seek_v2", {"num_players": 2})
    assert read_meta(path).get("mix") is True
    assert greedy_agreement(path, path, "summer_hide_and_seek_v2", {"num_players": 2}, games=4) == 1.0


def read_meta(path):
    from kakurega.agents.policy import read_policy

    return read_policy(path)[0]
