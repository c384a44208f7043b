"""The env module: constructor checks, the env card's worked examples, rendering, registry, heuristic."""

import re

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.heuristics.kakurenbo import KakurenboHeuristic
from kakurega.envs import kakurenbo_v1, make
from kakurega.envs.kakurenbo import reference
from kakurega.envs.kakurenbo.rules import KakurenboGame

BAD_ARGUMENTS = [
    # kwargs,                          error,      words in the message
    ({"variant": "gloom"},             ValueError, "variant must be 'kakurenbo' or 'kurayami', got 'gloom'"),
    ({"variant": 1},                   TypeError,  "variant must be 'kakurenbo' or 'kurayami', got 1 of type int"),
    ({"num_players": 2},               ValueError, "num_players must be an integer from 3 to 5, got 2"),
    ({"num_players": 6},               ValueError, "from 3 to 5, got 6"),
    ({"num_players": 4.0},             TypeError,  "num_players must be an integer from 3 to 5, got 4.0 of type float"),
    ({"num_players": True},            TypeError,  "num_players must be an integer"),
    ({"max_steps": 0},                 ValueError, "max_steps must be an integer from 1 to 1000000, got 0"),
    ({"max_steps": "200"},             TypeError,  "max_steps must be an integer from 1 to 1000000, got '200' of type str"),
    ({"reward": "score"},              ValueError, "reward must be one of 'zero_sum', 'shared_win', 'points', got 'score'"),
    ({"reward": "win"},                ValueError, "reward must be one of 'zero_sum', 'shared_win', 'points', got 'win'"),
    ({"render_mode": "rgb"},           ValueError, "render_mode='rgb'"),
    ({"render_view": "player_9"},      ValueError, "render_view='player_9'"),
]


@pytest.mark.parametrize("kwargs,error,words", BAD_ARGUMENTS, ids=[str(k) for k, _, _ in BAD_ARGUMENTS])
def test_bad_constructor_arguments_fail_clearly(kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        kakurenbo_v1.env(**kwargs)


def test_unknown_options_are_rejected():
    with pytest.raises(TypeError, match="players"):
        kakurenbo_v1.raw_env(players=4)


@pytest.mark.parametrize("n,size,obs_size", [(3, 74, 134), (4, 107, 165), (5, 140, 196)])
def test_spaces_match_the_env_card(n, size, obs_size):
    e = kakurenbo_v1.env(num_players=n)
    assert e.action_space("player_0").n == size
    assert e.observation_space("player_0")["observation"].shape == (obs_size,)
    card = kakurenbo_v1.__doc__
    assert "74 (3 players), 107 (4), 140 (5)" in card and "size 134 / 165 / 196" in card


CARD_EXAMPLES = [
    # players, id, words (actor None: relative names), all quoted in the env card
    (4, 0, "draw the top card of the pile"),
    (4, 1, "discard the head pair"),
    (4, 4, "discard the right arm pair"),
    (4, 28, "give right arm (red) to the right neighbour"),
    (4, 11, "give head (blue) to the left neighbour"),
    (4, 51, "give a red card to the player 2 seats to the left"),
    (4, 59, "take a blue card from the left neighbour"),
    (4, 80, "give Kaku's Curse with right arm (red) to the left neighbour"),
    (4, 106, "roll the dice against the right neighbour"),
    (3, 42, "take a blue card from the left neighbour"),
]


@pytest.mark.parametrize("n,action,words", CARD_EXAMPLES)
def test_env_card_worked_examples_are_right(n, action, words):
    game = KakurenboGame("kakurenbo", n)
    assert game.action_to_string(None, action) == words
    assert f"``{action}``" in kakurenbo_v1.__doc__


def test_env_card_block_starts_are_right():
    for n, starts in ((3, "0, 1, 8, 36, 40, 44, 72"), (4, "0, 1, 8, 50, 56, 62, 104"), (5, "0, 1, 8, 64, 72, 80, 136")):
        g = KakurenboGame("kakurenbo", n)
        got = ", ".join(str(x) for x in (0, 1, g.GIVE_CARD_BASE, g.GIVE_COLOUR_BASE, g.TAKE_BASE, g.CURSE_GIVE_BASE, g.TARGET_BASE))
        assert got == starts and starts in kakurenbo_v1.__doc__


def test_env_card_observation_table_is_the_layout():
    raw = kakurenbo_v1.raw_env(num_players=4)
    for line in raw.layout.markdown_table().splitlines()[2:]:
        assert line in kakurenbo_v1.__doc__


def test_pettingzoo_registry_and_project_make():
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip("PettingZoo before 1.27 has no registry (kakurega works without it)")
    e = pettingzoo.make("aec", "kakurega/kakurenbo-v0", variant="kurayami", num_players=5)
    e.reset(seed=0)
    assert e.unwrapped.game.kurayami and len(e.possible_agents) == 5
    assert make("kakurenbo_v1", wrapped=False).game.num_players == 4


def test_render_views_hide_what_they_must():
    e = kakurenbo_v1.env(num_players=3, render_mode="ansi", render_view="player_1")
    e.reset(seed=2)
    raw = e.unwrapped
    own = raw.game_state.hands[1][0]
    other = raw.game_state.hands[0][0]
    from kakurega.envs.kakurenbo.rules import card_name

    view = e.render()
    assert f"[{card_name(own)}]" in view and f"[{card_name(other)}]" not in view
    spectator = raw.render_text(None)
    assert "[red ?]" in spectator or "[blue ?]" in spectator
    assert f"[{card_name(own)}]" not in spectator


def test_illegal_action_message_names_the_action_and_the_rule():
    raw = kakurenbo_v1.raw_env(num_players=4)
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="discard the head pair.*you do not hold the head pair"):
        raw.step(1)


# ------------------------------------------------------------ heuristic
def play_match(variant, n, games, seed=0):
    """Heuristic on a rotating seat against random agents: its wins and the random seats' mean wins."""
    env = kakurenbo_v1.env(variant=variant, num_players=n)
    context = AgentContext.from_env(env, "kakurenbo_v1", {"variant": variant, "num_players": n})
    wins = random_wins = 0.0
    for g in range(games):
        seat = g % n
        agents = [
            KakurenboHeuristic(context, seed=seed + g) if i == seat else RandomAgent(context, seed=seed + 1000 * g + i)
            for i in range(n)
        ]
        env.reset(seed=seed + g)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            action = agents[int(agent.split("_")[1])].act(obs)
            assert obs["action_mask"][action], "the heuristic chose an illegal action"
            env.step(action)
        wins += totals[f"player_{seat}"] > 0
        random_wins += np.mean([totals[f"player_{i}"] > 0 for i in range(n) if i != seat])
    return wins / games, random_wins / games


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
def test_heuristic_beats_random_players(variant):
    heuristic, random_seats = play_match(variant, 4, games=160)
    assert heuristic > random_seats + 0.04, (heuristic, random_seats)


@pytest.mark.parametrize("variant,n", [(v, n) for v in ("kakurenbo", "kurayami") for n in (3, 5)])
def test_heuristic_plays_legal_moves_in_every_configuration(variant, n):
    play_match(variant, n, games=20)


def truncated_share(variant, n, games, seed=0):
    """Share of heuristic-table games (every seat the heuristic) cut off by the step limit."""
    from kakurega.agents.tournament import play_game

    env = kakurenbo_v1.raw_env(variant=variant, num_players=n)
    context = AgentContext.from_env(env, "kakurenbo_v1", {"variant": variant, "num_players": n})
    truncated = 0
    for g in range(games):
        agents = [KakurenboHeuristic(context, seed=seed + n * g + i) for i in range(n)]
        play_game(env, agents, seed=seed + g)
        truncated += any(env.truncations.values())
    return truncated / games


def test_heuristic_tables_rarely_reach_the_step_limit():
    # measured 0 of 100 (about half before the heuristic played to end the game)
    assert truncated_share("kakurenbo", 4, games=100) < 0.10


@pytest.mark.slow
@pytest.mark.parametrize("variant,n", [(v, n) for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)])
def test_heuristic_tables_rarely_reach_the_step_limit_in_every_configuration(variant, n):
    assert truncated_share(variant, n, games=200, seed=1000) < 0.10


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
def test_move_features_mark_the_heuristics_choice(variant):
    """Column 15 of the move features marks the heuristic's best actions: the heuristic's own choice at
    every decision of heuristic tables, except where its memory of repeated positions (left out of the
    features) turns it from a gamble that did not pay."""
    from kakurega.agents.heuristics.kakurenbo import KakurenboMoveFeatures
    from kakurega.agents.tournament import play_game

    config = {"variant": variant, "num_players": 4}
    env = kakurenbo_v1.raw_env(**config)
    context = AgentContext.from_env(env, "kakurenbo_v1", config)
    features = KakurenboMoveFeatures(context)
    marked = decisions = repeats = 0

    class Recorder(KakurenboHeuristic):
        def act(self, observation, sampler=None):
            nonlocal marked, decisions, repeats
            action = super().act(observation, sampler)
            if observation["action_mask"].sum() > 1:
                rows = features(observation).reshape(env.game.num_actions, features.PER_ACTION)
                decisions += 1
                marked += rows[action, 15] == 1
                repeats += sum(self._tried.get(self._position(observation), {}).values()) > 1
            return action

    for g in range(30):
        play_game(env, [Recorder(context, seed=4 * g + i) for i in range(4)], seed=g)
    assert decisions > 300
    assert decisions - marked <= repeats, (decisions, marked, repeats)
    assert marked / decisions > 0.95


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_fast_encoder_equals_the_reference_definition(variant, n):
    """Every seat's observation, at every step of random games (step limit reached in some)."""
    raw = kakurenbo_v1.raw_env(variant=variant, num_players=n, max_steps=35)
    game, layout = raw.game, raw.layout
    rng = np.random.default_rng(n)
    states = []
    for _ in range(25):
        state = game.initial_state(rng)
        states.append(game.clone(state))
        while not (game.is_terminal(state) or game.is_truncated(state)):
            legal = game.legal_actions(state)
            game.apply_action(state, int(rng.choice(legal)), rng)
            states.append(game.clone(state))
    assert any(s.over for s in states) and any(game.is_truncated(s) for s in states)
    for state in states:
        for seat in range(n):
            fast = raw.encode(state, seat)
            assert fast.dtype == np.float32 and fast.shape == (layout.size,)
            np.testing.assert_array_equal(fast, reference.encode(game, state, seat))
