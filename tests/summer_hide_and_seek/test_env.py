"""The env module: option validation, observations, rendering, the env card, the heuristic."""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.heuristics.summer_hide_and_seek import SummerHideAndSeekHeuristic
from kakurega.envs import summer_hide_and_seek_v0, summer_hide_and_seek_v1, summer_hide_and_seek_v2
from kakurega.envs.summer_hide_and_seek.map_data import parse_map
from kakurega.envs.summer_hide_and_seek.rules import SEEK

from .helpers import TEST_MAP, action

BAD_OPTIONS = [
    ({"num_players": 1}, ValueError, "num_players must be an integer from 2 to 4, got 1"),
    ({"num_players": 5}, ValueError, "from 2 to 4, got 5"),
    ({"num_players": 2.0}, TypeError, "num_players must be an integer"),
    ({"num_players": True}, TypeError, "num_players must be an integer"),
    ({"reward": "points"}, ValueError, "reward must be 'win' or 'vp', got 'points'"),
    ({"strict_moves": "yes"}, TypeError, "strict_moves must be True or False"),
    ({"max_steps": 0}, ValueError, "max_steps must be an integer from 1 to 1000000, got 0"),
    ({"max_steps": "100"}, TypeError, "max_steps must be an integer"),
    ({"map": 42}, TypeError, "map must be None"),
    ({"render_mode": "rgb"}, ValueError, "render_mode='rgb'"),
    ({"render_view": "player_7"}, ValueError, "render_view='player_7'"),
    ({"colour": "red"}, TypeError, "colour"),
]


@pytest.mark.parametrize("options,error,words", BAD_OPTIONS, ids=[str(o) for o, _e, _w in BAD_OPTIONS])
def test_bad_options_are_refused_with_words(options, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace("[", r"\[")):
        summer_hide_and_seek_v0.raw_env(**options)


def test_map_object_and_sizes():
    env = summer_hide_and_seek_v0.raw_env(num_players=3, map=parse_map(TEST_MAP))
    assert env.game.num_squares == 20 and env.game.num_actions == 61
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.layout.pieces["belief"].shape == (5, 6)
    assert env.layout.pieces["pieces"].shape == (3, 5, 6)


def _raw_on_test_map(num_players=3):
    env = summer_hide_and_seek_v0.raw_env(num_players=num_players, map=parse_map(TEST_MAP), render_mode="ansi")
    env.reset(seed=0)
    env.game_state.first_child = 0
    env._after_transition()  # the test forces seat 0 to hide; refresh the env's selection
    return env


def test_seekers_see_each_others_placements_and_the_child_sees_the_pieces():
    env = _raw_on_test_map(3)
    game, layout = env.game, env.layout
    for text in ("start r0c0", "line r0c1", "stop", "place r2c5"):
        env.step(action(game, text))
    # player_2 places second and sees player_1's piece, at relative seat (1 - 2) % 3 = 2
    obs = env.observe("player_2")["observation"]
    pieces = layout.view(obs, "pieces")
    assert pieces[(1 - 2) % 3][2, 5] == 1 and pieces.sum() == 1
    env.step(action(game, "place r4c5"))
    assert env.game_state.phase != SEEK
    child_obs = env.observe("player_0")["observation"]
    assert layout.view(child_obs, "pieces")[1][2, 5] == 1 and layout.view(child_obs, "pieces")[2][4, 5] == 1
    assert layout.view(child_obs, "budget_left")[0] == 5
    assert layout.view(child_obs, "position")[0, 1] == 1
    assert layout.view(child_obs, "stroke")[0, 0] == 1 and layout.view(child_obs, "stroke")[0, 1] == 2
    seeker_obs = env.observe("player_1")["observation"]
    assert layout.view(seeker_obs, "child")[2] == 1  # the child (seat 0) is relative seat 2 for seat 1
    assert layout.view(seeker_obs, "last_cost")[1] == 1 and layout.view(seeker_obs, "past_guesses")[2, 5] == 1
    belief = layout.view(seeker_obs, "belief")
    assert belief[0, 1] == 1 and belief[2, 5] == 0
    assert (belief == layout.view(child_obs, "belief")).all(), "the belief is public"


def test_render_views():
    env = _raw_on_test_map(2)
    game = env.game
    for text in ("start r0c0", "line r0c1"):
        env.step(action(game, text))
    child_view = env.render_text("player_0")
    seeker_view = env.render_text("player_1")
    spectator = env.render_text(None)
    assert "stroke (order, @ = here)" in child_view and " @ " in child_view and "spent 1/5" in child_view
    assert "belief (? may be here" in seeker_view and " @ " not in seeker_view and "spent" not in seeker_view
    assert seeker_view == spectator
    assert "[S]" in child_view and "(s)" in child_view and "(f)" in child_view and " # " in child_view
    env.step(game.stop_action)
    env.step(action(game, "place r0c1"))  # found: the stroke is revealed
    assert "stroke r0c0 -> r0c1" in env.render_text(None)
    env.render_view = "player_0"
    assert env.render() == env.render_text("player_0")


def test_env_card_documents_every_section_and_the_heuristic_figures():
    card = summer_hide_and_seek_v2.__doc__
    for words in ("Action", "Observation", "Rewards", "Public belief", "Hidden information", "Stuck rule",
                  "Decisions where the rules page was silent", "find rate", "Version history", "``3S + 1``",
                  "continue", "must move", "scores the standings", "determinization sampler", "zero_sum",
                  "shared_win"):
        assert words in card, words
    assert "{figures}" not in card and "{layout_table}" not in card


def test_superseded_version_1_card_says_so_and_keeps_its_reward():
    card = summer_hide_and_seek_v1.__doc__
    for words in ("Superseded", "summer_hide_and_seek_v2", "Rewards", "Version history", "+1 to each player"):
        assert words in card, words


def test_version_0_card_says_it_is_superseded_and_names_its_leak_and_exploit():
    card = summer_hide_and_seek_v0.__doc__
    for words in ("Superseded by", "summer_hide_and_seek_v1", "stalling exploit", "turn-order leak", "Hidden information"):
        assert words in card, words


def test_pettingzoo_registry_id():
    import pettingzoo

    if not hasattr(pettingzoo, "aec_registry"):
        pytest.skip("PettingZoo before 1.27 has no registry (kakurega works without it)")
    import kakurega.envs  # noqa: F401 - registers the envs

    assert "kakurega/summer_hide_and_seek-v0" in pettingzoo.aec_registry
    assert "kakurega/summer_hide_and_seek-v1" in pettingzoo.aec_registry


def _play(num_players, child_kind, seeker_kind, games, seed):
    from .heuristic_figures import play_roles

    return play_roles(num_players, child_kind, seeker_kind, games, seed=seed)


def test_heuristic_seekers_find_a_random_child_more_often_than_random_seekers():
    found_h, turns_h, _vp, _g = _play(3, "random", "heuristic", 12, seed=1)
    found_r, turns_r, _vp, _g = _play(3, "random", "random", 12, seed=1)
    assert found_h / turns_h > 2 * found_r / turns_r


def test_heuristic_child_scores_more_than_a_random_child_against_random_seekers():
    _f, _t, vp_h, _g = _play(2, "heuristic", "random", 6, seed=2)
    _f, _t, vp_r, _g = _play(2, "random", "random", 6, seed=2)
    assert np.mean(vp_h) > 1.5 * np.mean(vp_r)


def test_heuristic_plays_only_legal_moves_on_another_map():
    env = summer_hide_and_seek_v0.raw_env(num_players=3, map=parse_map(TEST_MAP))
    context = AgentContext.from_env(env, "summer_hide_and_seek_v0")
    agents = [SummerHideAndSeekHeuristic(context, seed=i) for i in range(2)] + [RandomAgent(context, seed=9)]
    for seed in range(5):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _r, term, trunc, _ = env.last()
            env.step(None if term or trunc else agents[int(agent[-1])].act(obs))


def test_heuristic_builds_its_rules_engine_from_options_when_the_context_has_none():
    context = AgentContext(env_name="summer_hide_and_seek_v0", env_kwargs={"num_players": 2})
    agent = SummerHideAndSeekHeuristic(context, seed=0)
    assert agent.game.num_squares == 56


def test_the_cards_worked_examples():
    env = summer_hide_and_seek_v0.raw_env(num_players=2)
    env.reset(seed=0)
    game = env.game
    assert env.action_to_string(13) == "start at r2c0 (path)"
    env.step(13)
    assert env.action_to_string(64) == "move r2c0 -> r1c1 (path), cost 1"
    assert env.action_to_string(112) == "stop (end the turn)"
    assert env.action_to_string(128) == "place piece on r2c2 (path)"
    state = env.game_state
    state.stroke, state.visited = [18], 1 << 18  # stand on r2c5
    assert game.action_to_string(state, 58) == "shortcut r2c5 -> r0c3 (white-framed, cicada), cost 2"
