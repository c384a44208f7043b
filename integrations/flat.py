"""Flat observations for libraries that need a ``Box``: ``flat_observation_v0(env)``.

kakurega's AEC envs observe ``{"observation": Box, "action_mask": Box}``, as
PettingZoo's classic envs do. Tools written for ``Box`` observations
(SuperSuit's ``dtype_v0``, ``flatten_v0``, ``frame_stack_v2``,
``normalize_obs_v0``; its vectorizers; CleanRL-style scripts) fail on the dict.
This wrapper makes ``observe(agent)`` the flat ``float32`` vector and
``observation_space(agent)`` its ``Box``; the legal actions stay available:

- ``env.infos[agent]["action_mask"]`` (``int8``; the AEC env already puts the
  mask there) and ``env.last()``'s info;
- ``env.action_mask(agent)`` (``int8`` copy; all zeros when ``agent`` is not to act).

>>> from kakurega.envs import make
>>> from kakurega.integrations.flat import flat_observation_v0
>>> env = flat_observation_v0(make("animal_chain_v0"))
>>> env.reset(seed=0)
>>> observation, reward, termination, truncation, info = env.last()
>>> observation.shape == env.observation_space(env.agent_selection).shape
True

For the single-agent (Gymnasium) side no wrapper is needed:
:class:`~kakurega.agents.training.view.SingleAgentView` (``gymnasium.make("kakurega.envs:kakurega/<game>-v0")``)
already observes a flat ``Box`` and gives ``info["action_mask"]`` and
``action_masks()``.
"""

from __future__ import annotations

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper


class FlatObservationWrapper(BaseWrapper):
    """A kakurega AEC env whose observation is the flat vector; the mask moves to info and ``action_mask``."""

    def __init__(self, env):
        space = env.observation_space(env.possible_agents[0])
        if not hasattr(space, "spaces") or set(space.spaces) != {"observation", "action_mask"}:
            raise TypeError(
                f"flat_observation_v0 expects an env observing {{'observation', 'action_mask'}} dicts, got {space}"
            )
        super().__init__(env)

    def observation_space(self, agent):
        """The ``Box`` of the flat observation vector."""
        return self.env.observation_space(agent)["observation"]

    def observe(self, agent):
        """``agent``'s observation vector (a fresh writable ``float32`` copy)."""
        observation = self.env.observe(agent)
        return None if observation is None else np.array(observation["observation"], dtype=np.float32)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """Legal actions of ``agent`` (default: the one to act) as ``int8`` 0/1."""
        agent = self.env.agent_selection if agent is None else agent
        return np.array(self.env.observe(agent)["action_mask"], dtype=np.int8)


def flat_observation_v0(env) -> FlatObservationWrapper:
    """``env`` (a kakurega AEC env, wrapped or raw) with flat ``Box`` observations."""
    return FlatObservationWrapper(env)
