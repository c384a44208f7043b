"""The random agent: its moves are those of ``rng.choice`` over the legal actions, whatever the mask's dtype."""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.envs.registry import make


def _old_act(rng, mask):
    """The agent's former draw: ``rng.choice(np.flatnonzero(mask))``."""
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, bool, np.float32, np.int64])
def test_random_agent_draws_what_rng_choice_drew(dtype):
    raw = make("animal_chain_v1", wrapped=False)
    agent = RandomAgent(AgentContext.from_env(raw, "animal_chain_v1", {}), 7)
    old = np.random.default_rng(7)
    masks = np.random.default_rng(1)
    for _ in range(2000):
        size = int(masks.integers(1, 1300))
        mask = (masks.random(size) < masks.random()).astype(dtype)
        mask[masks.integers(size)] = 1
        assert agent.act({"action_mask": mask}) == _old_act(old, mask)


def test_random_agent_reads_nonzero_bytes_as_legal_and_refuses_an_empty_mask():
    raw = make("hidden_rooms_v0", wrapped=False)
    agent = RandomAgent(AgentContext.from_env(raw, "hidden_rooms_v0", {}), 0)
    assert agent.act({"action_mask": np.array([0, 2, 0], dtype=np.int8)}) == 1
    with pytest.raises(ValueError, match="no legal action"):
        agent.act({"action_mask": np.zeros(5, dtype=np.int8)})
