"""MaskablePPO's MLP policy computed over the legal actions and the active inputs only (``masked_distribution: compact``).

:class:`CompactPolicy` is sb3-contrib's ``MaskableActorCriticPolicy`` with
its MLP (what ``"MlpPolicy"`` builds): the same modules, parameters and
initialisation, so its ``state_dict``, checkpoints, exports and policy files
are MlpPolicy's. It computes the same numbers with less work:

- **the action head over the legal actions.** The masked distribution needs
  the logits of the legal actions and of the taken action only; they are
  row-wise products of ``latent_pi`` with the gathered rows of
  ``action_net``'s weight, plus its bias (:class:`LegalHeadCategorical`,
  the distribution of :mod:`~kakurega.agents.training.masked_distribution`'s
  ``compact`` mode). The [batch, actions] logits are built only where they
  are needed: no masks, a row without a legal action, ``logits`` and
  ``probs``, the most likely action;
- **the first layers over the active inputs.** From :data:`ACTIVE_FROM`
  entries ([batch, inputs]: a PPO update's minibatch, not a rollout's batch
  of a few envs) the actor's and the critic's first layers multiply only
  the input columns that are nonzero somewhere in the batch, with the same
  columns of their weights (:func:`active_first_layers`): a zero input adds
  nothing to a layer's output or its weights' gradient. Summer's
  observations use 410 of their 1,327 inputs in random play; where more
  than :data:`MAX_ACTIVE` of the columns are active (Animal Chain: about
  600 of 674 in a minibatch) the dense layers are used;
- **a rollout's sampling in numpy.** Without gradient (collecting
  rollouts, a batch of a few envs) the distribution's normalisation,
  sample and log-probability are numpy's over the legal entries
  (:func:`~kakurega.agents.training.masked_distribution.sample_legal`,
  the same draws from torch's generator): torch's fixed cost per operation
  was most of a rollout step's forward pass;
- :class:`CompactRolloutBuffer` keeps the masks as booleans and hands each
  minibatch over without sb3's second copy (the same values);
- Adam runs as one fused kernel (:func:`use_fused_adam`): the same update
  up to float rounding; ``foreach`` Adam's ``sqrt`` takes a slow path on
  the zeros of inputs that are never active (two thirds of Summer's first
  layers' weights).

Values, log-probabilities, entropies and gradients agree with MlpPolicy's
with the same weights to float rounding, not to the bit
(``tests/training/test_compact_policy.py``), and the draws are the compact
distribution's: a seeded run reproduces itself and differs from ``exact``.
:func:`build_maskable_ppo` builds MaskablePPO as ``kakurega train`` and the
training bench do.
"""

from __future__ import annotations

import functools

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from kakurega.agents.training.masked_distribution import (
    CompactMaskableCategorical,
    CompactMaskableCategoricalDistribution,
    sample_legal,
    use_compact_masking,
    use_exact_fast_training,
)

#: from this many input entries ([batch, inputs]) the first layers over the active inputs pay for finding them
#: (measured: docs/performance.md, Training throughput)
ACTIVE_FROM = 65536
#: the head computes the logits it needs only where they are fewer than 1 / LEGAL_HEAD_RATIO of [batch, actions]
#: (measured: a gathered logit, forward and backward, costs about 25 times a logit of the full product)
LEGAL_HEAD_RATIO = 24
#: with more than this share of the inputs nonzero somewhere in the batch the dense first layers cost less
MAX_ACTIVE = 0.4


class LegalHeadCategorical(CompactMaskableCategorical):
    """The compact masked distribution of ``head(latent)``, computing the logits it needs only."""

    def __init__(self, latent: th.Tensor, head: nn.Linear, masks=None):
        """``latent``: [batch, features]; ``head``: the action layer (``action_net``)."""
        self._latent, self._head, self._raw = latent, head, None
        self._setup((latent.shape[0], head.out_features), latent.dtype, latent.device, masks)

    def _all_logits(self) -> th.Tensor:
        if self._raw is None:
            self._raw = self._head(self._latent)
        return self._raw

    def _logits_at(self, flat: th.Tensor, rows: th.Tensor) -> th.Tensor:
        if self._raw is not None or flat.numel() * LEGAL_HEAD_RATIO > self._shape.numel():
            return self._all_logits().reshape(-1).index_select(0, flat)
        actions = flat - rows * self._num_events
        logits = (self._latent.index_select(0, rows) * self._head.weight.index_select(0, actions)).sum(-1)
        return logits if self._head.bias is None else logits + self._head.bias.index_select(0, actions)


def active_first_layers(inputs: th.Tensor, nets) -> tuple[th.Tensor, ...] | None:
    """Each of ``nets`` (``nn.Sequential`` from a ``Linear``) applied to ``inputs``, its first layer over the inputs
    that are nonzero somewhere in the batch; None where the dense layers cost less (a small batch, most inputs active,
    not on the CPU)."""
    firsts = [net[0] if len(net) else None for net in nets]
    if (inputs.dim() != 2 or inputs.numel() < ACTIVE_FROM or inputs.device.type != "cpu" or inputs.requires_grad
            or not all(isinstance(layer, nn.Linear) for layer in firsts)):
        return None
    active = np.flatnonzero((inputs.numpy() != 0).any(0))
    if active.size > MAX_ACTIVE * inputs.shape[1]:
        return None
    active = th.from_numpy(active)
    used = inputs.index_select(1, active)
    return tuple(net[1:](_active_linear(used, layer, active)) for net, layer in zip(nets, firsts))


def _active_linear(inputs: th.Tensor, layer: nn.Linear, active: th.Tensor) -> th.Tensor:
    """``layer`` over the columns ``active`` of its input (``inputs``: those columns only)."""
    return nn.functional.linear(inputs, layer.weight.index_select(1, active), layer.bias)


class CompactPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy (MlpPolicy's parameters) computed over the legal actions and the active inputs."""

    def __init__(self, observation_space, action_space, *args, **kwargs):
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(f"CompactPolicy needs a Discrete action space, got {action_space}")
        super().__init__(observation_space, action_space, *args, **kwargs)
        self.action_dist = CompactMaskableCategoricalDistribution(int(action_space.n))

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        features = self.extract_features(obs)
        if not self.share_features_extractor:
            return self.mlp_extractor.forward_actor(features[0]), self.mlp_extractor.forward_critic(features[1])
        extractor = self.mlp_extractor
        return active_first_layers(features, (extractor.policy_net, extractor.value_net)) or extractor(features)

    def _distribution(self, latent_pi: th.Tensor, action_masks):
        """The masked distribution (its logits computed where needed), or the full one without masks."""
        if action_masks is None:
            return self._get_action_dist_from_latent(latent_pi)
        self.action_dist.distribution = LegalHeadCategorical(latent_pi, self.action_net, action_masks)
        return self.action_dist

    def forward(self, obs: th.Tensor, deterministic: bool = False, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        if action_masks is not None and not th.is_grad_enabled() and latent_pi.device.type == "cpu":
            sampled = sample_legal(self.action_net(latent_pi), action_masks, deterministic)  # a rollout's step
            if sampled is not None:
                return sampled[0].reshape((-1, *self.action_space.shape)), values, sampled[1]
        distribution = self._distribution(latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._distribution(latent_pi, action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):
        features = super(MaskableActorCriticPolicy, self).extract_features(obs, self.pi_features_extractor)
        net = self.mlp_extractor.policy_net
        latent_pi = (active_first_layers(features, (net,)) or (net(features),))[0]
        return self._distribution(latent_pi, action_masks)


class CompactRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's rollout buffer with the masks kept as booleans and each minibatch handed over without a copy.

    The same values: a mask is 0/1 either way (the distribution reads it as
    booleans), and every array a minibatch is made of is already a fresh
    copy (fancy indexing), which sb3's ``to_torch`` copies a second time.
    """

    def reset(self) -> None:
        super().reset()
        self.action_masks = np.ones((self.buffer_size, self.n_envs, self.mask_dims), dtype=bool)

    def to_torch(self, array: np.ndarray, copy: bool = True) -> th.Tensor:
        return th.as_tensor(array, device=self.device)


@functools.cache
def _fused_adam_on_cpu() -> bool:
    """Whether this torch runs Adam's fused kernel on the CPU (torch 2.4 and later; the project allows 2.1)."""
    try:
        parameter = th.zeros(1, requires_grad=True)
        parameter.grad = th.ones(1)
        th.optim.Adam([parameter], fused=True).step()
    except (RuntimeError, TypeError, ValueError):
        return False
    return True


def use_fused_adam(policy) -> None:
    """The policy's Adam as one fused kernel on the CPU (the same update up to float rounding, a fraction of the time);
    ``foreach`` Adam where this torch has no fused kernel for the CPU."""
    optimizer = getattr(policy, "optimizer", None)
    if type(optimizer) is th.optim.Adam and not optimizer.state and _fused_adam_on_cpu() and all(
            p.device.type == "cpu" for p in policy.parameters()):
        for group in optimizer.param_groups:
            group["foreach"], group["fused"] = None, True


def build_maskable_ppo(vec_env, masked_distribution: str = "exact", policy="MlpPolicy", policy_kwargs=None, **kwargs):
    """MaskablePPO as ``kakurega train`` builds it: the exact fast distribution and ``foreach`` Adam, or ``compact``.

    With ``compact`` an ``"MlpPolicy"`` is a :class:`CompactPolicy` with
    fused Adam, its rollouts in a :class:`CompactRolloutBuffer`; another
    policy class (the feature head's) keeps its network and gets the compact
    distribution. ``kwargs`` go to ``MaskablePPO``.
    """
    from sb3_contrib import MaskablePPO

    if masked_distribution == "compact" and policy == "MlpPolicy":
        policy = CompactPolicy
        kwargs.setdefault("rollout_buffer_class", CompactRolloutBuffer)
    model = MaskablePPO(policy, vec_env, policy_kwargs=policy_kwargs, **kwargs)
    use_exact_fast_training(model.policy)  # same numbers, a fraction of the time (masked_distribution.py)
    if masked_distribution == "compact":
        use_compact_masking(model.policy)
        if type(model.policy) is CompactPolicy:
            use_fused_adam(model.policy)
    return model
