"""The KAKURENBO heuristic's beliefs, read from lists (``Reading.beliefs``), are the numbers of the plain
card-by-card reading.

The reference below is the plain version: one card at a time, its row from
``flatnonzero``, the free places counted down one by one.
"""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent, choose_action
from kakurega.agents.heuristics.kakurenbo import NUM_CARDS, KakurenboHeuristic
from kakurega.envs import make


def reference_beliefs(agent, obs):
    n = agent.n
    cards = agent.piece(obs, "cards")
    counts = agent.piece(obs, "colour_counts")
    pile_colours = agent.piece(obs, "pile_colours")
    discarded = agent.piece(obs, "discarded").sum(axis=1)
    prob = np.zeros((NUM_CARDS, n + 1))
    for colour in (0, 1):
        free = np.append(counts[:, colour].astype(float), pile_colours[colour])
        unknown = []
        for c in range(colour, NUM_CARDS, 2):
            row = np.flatnonzero(cards[c])
            if row.size:
                prob[c, row[0]] = 1.0
                free[row[0]] -= 1
            elif not discarded[c >> 1]:
                unknown.append(c)
        total = free.sum()
        if unknown and total > 0:
            for c in unknown:
                prob[c] = free / total
    return prob


@pytest.fixture(scope="module", params=[{"num_players": 4}, {"num_players": 3}, {"variant": "kurayami"}],
                ids=lambda config: "-".join(map(str, config.values())))
def observations(request):
    """Every observation of the heuristic and random players in seeded games of kakurenbo_v1."""
    config = request.param
    env = make("kakurenbo_v1", **config)
    context = AgentContext.from_env(env, "kakurenbo_v1", config)
    agents = [KakurenboHeuristic(context, seed=0), RandomAgent(context, seed=1)]
    found = []
    for seed in range(4):
        env.reset(seed=seed)
        for turn, name in enumerate(env.agent_iter()):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            found.append(np.array(observation["observation"], copy=True))
            env.step(choose_action(agents[turn % 2], env, name, observation))
    return context, found


def test_the_beliefs_are_the_plain_readings(observations):
    context, found = observations
    agent = KakurenboHeuristic(context, seed=0)
    assert len(found) > 100
    unknown_seen = 0
    for vector in found:
        obs = {"observation": vector}
        beliefs = np.array(agent.read(obs).beliefs())
        assert beliefs.dtype == np.float64 and beliefs.tobytes() == reference_beliefs(agent, obs).tobytes()
        unknown_seen += ((beliefs > 0) & (beliefs < 1)).any()
    assert unknown_seen > 50  # positions with shared chances, not only known cards


def test_control_a_card_miscounted_in_the_reference_is_caught(observations):
    context, found = observations
    agent = KakurenboHeuristic(context, seed=0)
    layout = context.layout
    differing = 0
    for vector in found:
        changed = vector.copy()
        layout.view(changed, "pile_colours")[0] += 1  # one more red card in the pile: different shares
        beliefs = np.array(agent.read({"observation": vector}).beliefs())
        differing += beliefs.tobytes() != reference_beliefs(agent, {"observation": changed}).tobytes()
    assert differing > 50
