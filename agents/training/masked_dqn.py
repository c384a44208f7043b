"""DQN with action masking: a documented subclass of stable-baselines3's DQN.

SB3's DQN knows nothing of legal actions. :class:`MaskedDQN` changes exactly
five things, and nothing else of SB3's algorithm:

1. **Acting.** Q-values of illegal actions are set to ``-inf`` before the
   argmax, in :meth:`MaskedDQN.predict` (pass ``action_masks=``) and while
   collecting experience.
2. **Exploration.** Epsilon-greedy (and the warm-up before ``learning_starts``)
   samples uniformly among the *legal* actions only, with one coin per env
   (SB3 flips one coin for the whole batch).
3. **Targets.** The replay buffer stores the legal-action mask of every
   ``next_observation`` (:class:`MaskedReplayBuffer`); the TD target's max
   over next actions ranges over legal actions only. A next state with no
   legal action (the game is over: it ended or was cut off) contributes no
   bootstrap term, so truncation by a game's step limit is treated as the end
   of the game it is in kakurega (the rules score it), not as a time-out.
4. **Learning starts on a filled buffer.** No gradient step is taken while the
   replay buffer holds ``learning_starts`` transitions or fewer (all it can
   hold, if that is fewer). In a fresh run this is SB3's own rule (its buffer
   holds one transition per step), so nothing changes there; a run resumed
   without its buffer (``checkpoint.save_replay_buffer: false``) is past
   ``learning_starts`` already, and would otherwise sample its first batches
   from the few transitions collected since the resume. Meanwhile it acts with
   its (restored) epsilon-greedy policy, not the warm-up's random play.
5. **A continued run's epsilon does not rise again.** SB3 spreads the epsilon
   schedule (``exploration_fraction``) over the total of the current
   ``learn`` call, so a run continued with a larger ``total_timesteps``
   would jump back to mostly random play (0.05 to 0.6 for a run continued
   from 2,000 to 20,000 steps). A restored run (:meth:`MaskedDQN.continue_exploration`)
   keeps the epsilon it had reached until the stretched schedule falls
   below it; resumed with the same total, the schedule is the one it was on
   and nothing changes (nor for a schedule that rises, ``exploration_initial_eps``
   below ``exploration_final_eps``, which is followed as it is).

Where the masks come from: the env (the single-agent view) returns, in every
step's ``info``, ``"action_mask"`` = the mask of the observation it returns.
VecEnvs keep the *final* step's info when they auto-reset an env, so
``infos[i]["action_mask"]`` is always the mask of the stored
``next_observation`` (all zeros at the end of a game). Masks for acting on the
*current* observation come from ``env.action_masks()`` (sb3-contrib's
``get_action_masks``), which also covers the first observation after a reset.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch as th
import torch.nn.functional as F
from gymnasium import spaces
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import ReplayBuffer


class MaskedReplayBufferSamples(NamedTuple):
    observations: th.Tensor
    actions: th.Tensor
    next_observations: th.Tensor
    dones: th.Tensor
    rewards: th.Tensor
    next_action_masks: th.Tensor  #: bool [batch, n_actions]: legal actions at next_observations
    discounts: th.Tensor | None = None


class MaskedReplayBuffer(ReplayBuffer):
    """A replay buffer that also stores the legal-action mask of each next observation."""

    def __init__(self, buffer_size, observation_space, action_space, *args, **kwargs):
        super().__init__(buffer_size, observation_space, action_space, *args, **kwargs)
        if not isinstance(action_space, spaces.Discrete):
            raise TypeError("MaskedReplayBuffer needs a Discrete action space")
        if self.optimize_memory_usage:
            raise ValueError("MaskedReplayBuffer does not support optimize_memory_usage")
        self.next_action_masks = np.zeros((self.buffer_size, self.n_envs, int(action_space.n)), dtype=bool)

    def add(self, obs, next_obs, action, reward, done, infos: list[dict[str, Any]]) -> None:
        for i, info in enumerate(infos):
            if "action_mask" not in info:
                raise KeyError(
                    "MaskedDQN needs info['action_mask'] (the mask of the returned observation) from every "
                    "env step; kakurega's SingleAgentView provides it"
                )
            self.next_action_masks[self.pos, i] = np.asarray(info["action_mask"], dtype=bool)
        super().add(obs, next_obs, action, reward, done, infos)  # advances self.pos

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskedReplayBufferSamples:
        env_indices = np.random.randint(0, high=self.n_envs, size=(len(batch_inds),))
        data = (
            self._normalize_obs(self.observations[batch_inds, env_indices, :], env),
            self.actions[batch_inds, env_indices, :],
            self._normalize_obs(self.next_observations[batch_inds, env_indices, :], env),
            (self.dones[batch_inds, env_indices] * (1 - self.timeouts[batch_inds, env_indices])).reshape(-1, 1),
            self._normalize_reward(self.rewards[batch_inds, env_indices].reshape(-1, 1), env),
        )
        tensors = tuple(map(self.to_torch, data))
        masks = th.as_tensor(self.next_action_masks[batch_inds, env_indices], device=self.device)
        return MaskedReplayBufferSamples(*tensors, next_action_masks=masks)


def masked_argmax(q_values: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """Argmax over legal actions only."""
    return q_values.masked_fill(~masks, -th.inf).argmax(dim=1)


def masked_td_target(next_q: th.Tensor, next_masks: th.Tensor, rewards: th.Tensor, dones: th.Tensor, discounts) -> th.Tensor:
    """``r + (1 - done) * gamma * max_{legal a'} Q_target(s', a')``; no bootstrap where ``s'`` has no legal action.

    Shapes: ``next_q`` and ``next_masks`` ``[batch, n_actions]``, ``rewards`` and ``dones`` ``[batch, 1]``.
    """
    best = next_q.masked_fill(~next_masks, -th.inf).max(dim=1).values
    # a next state without legal actions is the end of the game: nothing to bootstrap
    best = th.where(next_masks.any(dim=1), best, th.zeros_like(best)).reshape(-1, 1)
    return rewards + (1 - dones) * discounts * best


def sample_legal(masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` (uses numpy's global RNG, as SB3 does)."""
    actions = np.empty(len(masks), dtype=np.int64)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if legal.size == 0:
            raise ValueError(f"env {i} has no legal action")
        actions[i] = legal[np.random.randint(legal.size)]
    return actions


class MaskedDQN(DQN):
    """SB3 DQN that never acts illegally and never bootstraps from illegal actions (see module doc)."""

    def __init__(self, policy, env, *args, **kwargs):
        kwargs.setdefault("replay_buffer_class", MaskedReplayBuffer)
        if not issubclass(kwargs["replay_buffer_class"], MaskedReplayBuffer):
            raise TypeError("MaskedDQN needs a MaskedReplayBuffer (or a subclass)")
        self._epsilon_cap: float | None = None  # a restored run's epsilon: see continue_exploration
        super().__init__(policy, env, *args, **kwargs)

    def continue_exploration(self, rate: float) -> None:
        """Go on from a restored run's epsilon ``rate``: epsilon never rises above it again (point 5 of the module doc)."""
        self.exploration_rate = float(rate)
        if self.exploration_initial_eps >= self.exploration_final_eps:  # (a rising schedule is followed as it is)
            self._epsilon_cap = float(rate)

    def _on_step(self) -> None:
        super()._on_step()
        if self._epsilon_cap is not None:  # epsilon never rises above what it has reached
            self.exploration_rate = self._epsilon_cap = min(self.exploration_rate, self._epsilon_cap)
            self.logger.record("rollout/exploration_rate", self.exploration_rate)

    # --------------------------------------------------------------- acting
    def _greedy(self, observation: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs_tensor, _ = self.policy.obs_to_tensor(observation)
        with th.no_grad():
            q_values = self.policy.q_net(obs_tensor)
        masks_tensor = th.as_tensor(masks.reshape(q_values.shape), dtype=th.bool, device=q_values.device)
        return masked_argmax(q_values, masks_tensor).cpu().numpy()

    def predict(self, observation, state=None, episode_start=None, deterministic=False, action_masks=None):
        """Actions for ``observation``; with ``action_masks`` only legal ones (epsilon-greedy unless deterministic)."""
        if action_masks is None:
            return super().predict(observation, state, episode_start, deterministic)
        vectorized = self.policy.is_vectorized_observation(observation)
        obs = np.asarray(observation).reshape((-1, *self.observation_space.shape))
        masks = np.asarray(action_masks, dtype=bool).reshape(len(obs), -1)
        actions = self._greedy(obs, masks)
        if not deterministic:
            explore = np.random.rand(len(obs)) < self.exploration_rate
            if explore.any():
                actions[explore] = sample_legal(masks[explore])
        return (actions if vectorized else actions[0]), state

    def _sample_action(self, learning_starts, action_noise=None, n_envs=1):
        masks = np.asarray(get_action_masks(self.env), dtype=bool).reshape(n_envs, -1)
        if self.num_timesteps < learning_starts:
            action = sample_legal(masks)
        else:
            action, _ = self.predict(self._last_obs, deterministic=False, action_masks=masks)
        return action, action

    # ------------------------------------------------------------- learning
    def replay_filled(self) -> bool:
        """Whether the replay buffer holds more than ``learning_starts`` transitions (or is full): learning may go on."""
        buffer = self.replay_buffer
        capacity = buffer.buffer_size * buffer.n_envs
        held = capacity if buffer.full else buffer.pos * buffer.n_envs
        return held > min(self.learning_starts, capacity - 1)

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        if not self.replay_filled():
            return  # a run resumed without its replay buffer: refill it first (see the module doc)
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            replay_data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)
            discounts = replay_data.discounts if replay_data.discounts is not None else self.gamma
            with th.no_grad():
                target_q = masked_td_target(
                    self.q_net_target(replay_data.next_observations),
                    replay_data.next_action_masks,
                    replay_data.rewards,
                    replay_data.dones,
                    discounts,
                )
            current_q = th.gather(self.q_net(replay_data.observations), dim=1, index=replay_data.actions.long())
            loss = F.smooth_l1_loss(current_q, target_q)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", float(np.mean(losses)) if losses else 0.0)
