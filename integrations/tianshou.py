"""Tianshou: the multi-agent form (every seat in one buffer) and the single-seat form.

**Multi-agent** (Tianshou's tic-tac-toe recipe, only ``get_env`` changed)::

    from tianshou.env.pettingzoo_env import PettingZooEnv
    from kakurega.envs import make
    get_env = lambda: PettingZooEnv(make("animal_chain_v0"))

Caveat: Tianshou's ``PettingZooEnv.step`` returns the observation of the
*next agent to act*, and the collector stores it as ``obs_next`` of the
transition of the agent that just acted. Whenever the turn passes to another
player, that transition holds **another player's private observation** (their
hand, in Animal Chain) as ``obs_next``. The learner does
not need to look at it to be trained on it: a value target bootstrapped from
the opponent's view mixes both players' values, and the buffer holds
information the learner's seat may not know. And each seat's algorithm is
given only the transitions where that seat acted, with its reward at that
step: a reward paid to it on another seat's move (the loser's -1 on the
winner's last move) never reaches it. Use it for quick experiments, not for
claims about hidden-information play.

**Single seat** (no leak, the learner's own ``obs_next``):
:func:`single_seat_env` is kakurega's single-agent view (opponents act inside
``step``) with observations ``{"obs": vector, "mask": int8}``, the form
Tianshou's discrete policies read the mask from (``batch.obs.mask``)::

    from kakurega.integrations.tianshou import single_seat_env
    train_envs = DummyVectorEnv([lambda: single_seat_env("animal_chain_v0", opponents=["heuristic"])] * 8)

``examples/tianshou_dqn.py`` trains both forms (tested).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces


class MaskInObservation(gymnasium.Wrapper):
    """A single-seat view for Tianshou: observation ``{"obs": vector, "mask": int8}``, infos of one fixed shape.

    Tianshou stacks infos into arrays and refuses a buffer with missing
    values, so every info carries the same numeric keys: ``final_return`` and
    ``win`` (1.0 for a win), both 0.0 until the episode's last step. A game cut
    off at its step or turn limit ends *terminated*: the rules score it, and
    Tianshou's returns bootstrap through a truncation (they would add the
    critic's value of the final position to the game's result).
    """

    def __init__(self, env):
        super().__init__(env)
        n = int(env.action_space.n)
        self.observation_space = spaces.Dict({"obs": env.observation_space, "mask": spaces.Box(0, 1, (n,), np.int8)})

    def reset(self, *, seed=None, options=None):
        observation, info = self.env.reset(seed=seed, options=options)
        return self._observation(observation, info), self._info(info)

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        over = terminated or truncated  # a cut-off is the end of the game, scored by the rules
        return self._observation(observation, info), reward, over, False, self._info(info)

    @staticmethod
    def _observation(observation, info) -> dict:
        return {"obs": observation, "mask": np.asarray(info["action_mask"], dtype=np.int8)}

    @staticmethod
    def _info(info) -> dict:
        return {"final_return": float(info.get("final_return", 0.0)), "win": float(info.get("outcome") == "win")}


def single_seat_env(env_name: str, env_kwargs: dict | None = None, opponents=("random",), **view_options) -> MaskInObservation:
    """``SingleAgentView(env_name, env_kwargs, opponents, **view_options)`` with the mask inside the observation."""
    from kakurega.agents.training.view import SingleAgentView

    return MaskInObservation(SingleAgentView(env_name, env_kwargs, opponents=list(opponents), **view_options))
