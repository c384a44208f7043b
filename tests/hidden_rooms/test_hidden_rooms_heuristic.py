"""The heuristic child: always legal, deterministic, and sensible in hand-made situations."""

import numpy as np

from hidden_rooms.hidden_rooms_helpers import game_with, monster, table, tile
from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.hidden_rooms import HiddenRoomsHeuristic
from kakurega.envs import hidden_rooms_v0
from kakurega.envs.hidden_rooms.observation import HiddenRoomsObserver
from kakurega.envs.hidden_rooms.rules import (
    DECLINE,
    MOVE,
    PLACE,
    PLACING,
    SEARCH,
    SEARCH_MEMORY,
    SEARCH_PILE,
    STEP,
    STOP_MOVING,
)

N, E, S, W = 0, 1, 2, 3


def agent_for(game):
    observer = HiddenRoomsObserver(game)
    context = AgentContext(env_name="hidden_rooms_v0", layout=observer.layout, num_actions=17, num_players=1, rules=game.rules_config())
    agent = HiddenRoomsHeuristic(context, seed=0)

    def decide(state):
        mask = np.zeros(17, dtype=np.int8)
        mask[game.legal_actions(state)] = 1
        return agent.act({"observation": observer.encode(state, 0), "action_mask": mask})

    return decide


def test_heuristic_plays_only_legal_actions_and_is_deterministic():
    env = hidden_rooms_v0.env()
    context = AgentContext.from_env(env, "hidden_rooms_v0")
    for seed in range(15):
        trajectories = []
        for _ in range(2):
            agent = HiddenRoomsHeuristic(context, seed=seed)
            env.reset(seed=seed)
            actions = []
            for _ in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                action = agent.act(obs)
                assert obs["action_mask"][action], env.unwrapped.action_to_string(action)
                actions.append(action)
                env.step(action)
            trajectories.append(actions)
        assert trajectories[0] == trajectories[1]


def test_heuristic_needs_no_rules_object():
    env = hidden_rooms_v0.raw_env()
    bare = AgentContext(env_name="hidden_rooms_v0", layout=env.layout, num_actions=17, num_players=1)
    assert HiddenRoomsHeuristic(bare).game.monsters == env.game.monsters


def test_steps_onto_the_exit_when_it_can():
    game = game_with(monster([(4, 0), (4, 1)] * 10))
    state = table(game, tiles={(0, 1): "red 1", (0, 0): "red 2", (1, 1): "red 3"}, child=(1, 1), phase=MOVE)
    assert agent_for(game)(state) == STEP + N  # (0, 1), from where (0, 0) is one more step


def test_avoids_a_cell_where_the_monster_would_catch_it():
    # the monster walks down column 2 toward (2, 2); the child on (2, 3) must not stay within its reach
    game = game_with(monster([(0, 2), (1, 2), (2, 2), (3, 2), (4, 2)], steps=2, sight_range=1))
    state = table(game, tiles={(2, 3): "red 1", (2, 4): "red 2", (3, 4): "red 3"}, child=(2, 3), phase=MOVE)
    decide = agent_for(game)
    assert decide(state) == STEP + E
    state.child, state.steps_taken = state.child + 1, 1
    assert decide(state) in (STEP + S, STOP_MOVING)


def test_takes_the_connecting_memory_tile_with_the_lowest_number():
    game = game_with(monster([(4, 0), (4, 1)] * 10))
    state = table(game, tiles={(4, 4): "red 2"}, memory=["red 5", "blue 3", "green 1"], phase=SEARCH)
    # memory sorted: red 5 (slot 0), blue 3 (slot 1), green 1 (slot 2); red 5 and blue 3 connect to red 2
    assert agent_for(game)(state) == SEARCH_MEMORY + 1
    state = table(game, tiles={(4, 4): "red 6"}, memory=["blue 3"], phase=SEARCH)
    assert agent_for(game)(state) == SEARCH_PILE  # nothing in memory connects: try the pile


def test_places_toward_the_exit_and_declines_backward_cells():
    game = game_with(monster([(4, 0), (4, 1)] * 10))
    state = table(game, child=(4, 4), phase=PLACING)
    state.drawn = tile("red 1")
    assert agent_for(game)(state) in (PLACE + N, PLACE + W)
    # on (2, 2) with north and west already explored, only cells away from the exit are left
    state = table(game, tiles={(2, 2): "red 1", (1, 2): "red 2", (2, 1): "red 3"}, child=(2, 2), phase=PLACING)
    state.drawn = tile("blue 2")
    assert agent_for(game)(state) == DECLINE


def monster_phases_asked(games=4):
    """The heuristic, its move features and every monster phase they asked for in seeded games."""
    from kakurega.agents.base import choose_action
    from kakurega.agents.heuristics.hidden_rooms import HiddenRoomsMoveFeatures

    env = hidden_rooms_v0.env(episode="round")
    context = AgentContext.from_env(env, "hidden_rooms_v0", {"episode": "round"})
    agent = HiddenRoomsHeuristic(context, seed=0)
    features = HiddenRoomsMoveFeatures(context)
    for seed in range(games):
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            features(observation)
            env.step(choose_action(agent, env, name, observation))
    return agent, features._heuristic


def wrong_phases(heuristic) -> list:
    """The remembered monster phases that differ from the rules' own, with the child chasing or not."""
    wrong = []
    for (monster_id, cell, progress, child), remembered in heuristic._monster_phases.items():
        for chasing in (False, True):  # not an input of the phase: every step sets it
            m_cell, m_progress, _, outcome, _ = heuristic.game.monster_phase(monster_id, cell, progress, child, chasing)
            if remembered != (m_cell, m_progress, outcome):
                wrong.append((monster_id, cell, progress, child, chasing))
    return wrong


def test_the_remembered_monster_phases_are_the_rules_own():
    for heuristic in monster_phases_asked():
        assert len(heuristic._monster_phases) > 20
        assert wrong_phases(heuristic) == []


def test_control_a_remembered_phase_that_differs_from_the_rules_is_caught():
    heuristic = monster_phases_asked(games=1)[0]
    key, (m_cell, m_progress, outcome) = next(iter(heuristic._monster_phases.items()))
    heuristic._monster_phases[key] = (m_cell, m_progress + 1, outcome)
    assert len(wrong_phases(heuristic)) == 2


def test_the_memory_of_monster_phases_is_capped(monkeypatch):
    from kakurega.agents.heuristics import hidden_rooms

    monkeypatch.setattr(hidden_rooms, "MAX_MONSTER_PHASES", 8)
    for heuristic in monster_phases_asked(games=2):
        assert 0 < len(heuristic._monster_phases) <= 8
