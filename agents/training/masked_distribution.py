"""sb3-contrib's masked categorical distribution, computed with the same numbers in a fraction of the time.

MaskablePPO's distribution (``sb3_contrib.common.maskable.distributions``)
normalises the network's logits, sets each illegal action's logit to
``-1e8`` and normalises again, through ``torch.distributions.Categorical``.
Two costs dominate a PPO update with a large action space (Animal Chain's
1,269 actions, of which a few dozen are legal):

- ``logsumexp`` over the masked logits runs ``exp`` on every ``-1e8``
  entry, and the CPU's ``exp`` takes a slow path for results below
  float32's normal range: about twelve times the cost of an ordinary entry;
- each distribution is built three times (a third normalisation whose result
  is thrown away), each time checking its arguments.

:class:`ExactMaskableCategorical` computes the normalisation over the masked
logits with ``exp`` of the legal entries only (an illegal entry's term is
exactly ``0.0`` either way, so every sum, value and gradient is the same to
the bit: ``tests/training/test_masked_distribution.py`` compares them), and
builds the distribution once, without argument checks (the masks come from
the envs, the actions from the distribution itself). A row with no legal
action (its sum of legal terms is 0, its normaliser ``-inf``) falls back to
sb3-contrib's computation.

:func:`use_exact_fast_masking` puts it into a MaskablePPO policy: the
distribution holds no parameters, so a policy's saved files are unchanged.
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution

#: the logit sb3-contrib gives an illegal action
HUGE_NEG = -1e8


class _MaskedLogSumExp(th.autograd.Function):
    """``logits.logsumexp(-1, keepdim=True)`` (ATen's steps) with ``exp`` run on the legal entries only.

    ``illegal`` is the negated mask (True where an action is illegal).
    """

    @staticmethod
    def forward(ctx, logits: th.Tensor, illegal: th.Tensor) -> th.Tensor:
        maxes = th.amax(logits, -1, keepdim=True)
        maxes.masked_fill_(maxes.abs() == float("inf"), 0)
        shifted = (logits - maxes).masked_fill_(illegal, 0.0).exp_().masked_fill_(illegal, 0.0)
        result = th.sum(shifted, -1, keepdim=True).log_().add_(maxes)
        ctx.save_for_backward(logits, illegal, result)
        return result

    @staticmethod
    def backward(ctx, grad: th.Tensor):
        logits, illegal, result = ctx.saved_tensors
        # ATen's logsumexp_backward is grad * exp(logits - result); an illegal entry's exp is exactly 0.0
        return grad * (logits - result).masked_fill_(illegal, 0.0).exp_().masked_fill_(illegal, 0.0), None


class ExactMaskableCategorical(MaskableCategorical):
    """sb3-contrib's :class:`MaskableCategorical` with the same values and gradients, built once, unchecked.

    As there, the logits are normalised once before masking; unmasked, they
    are normalised a second time (computed when first read).
    """

    def __init__(self, logits: th.Tensor, masks=None):
        self.masks = None
        self._original_logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._logits = None
        self._num_events = logits.size()[-1]
        th.distributions.Distribution.__init__(self, logits.size()[:-1], validate_args=False)
        if masks is not None:
            self.apply_masking(masks)

    @property
    def logits(self) -> th.Tensor:
        if self._logits is None:
            self._logits = self._original_logits - self._original_logits.logsumexp(dim=-1, keepdim=True)
        return self._logits

    @property
    def _param(self) -> th.Tensor:
        return self.logits

    def apply_masking(self, masks) -> None:
        """Illegal actions get the logit ``-1e8``, then the logits are normalised again; None removes the masks."""
        self.__dict__.pop("probs", None)
        self._logits = None
        if masks is None:
            self.masks = None
            return
        original = self._original_logits
        self.masks = th.as_tensor(masks, dtype=th.bool, device=original.device).reshape(original.shape)
        logits = th.where(self.masks, original, th.tensor(HUGE_NEG, dtype=original.dtype, device=original.device))
        normaliser = _MaskedLogSumExp.apply(logits, self.masks.logical_not())
        if bool(th.isinf(normaliser).any()):  # a row without a legal action: sb3-contrib counts exp(0) of every entry
            normaliser = logits.logsumexp(dim=-1, keepdim=True)
        self._logits = logits - normaliser


class ExactMaskableCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution over :class:`ExactMaskableCategorical`."""

    def proba_distribution(self, action_logits: th.Tensor):
        self.distribution = ExactMaskableCategorical(action_logits.view(-1, self.action_dim))
        return self


def use_exact_fast_masking(policy) -> None:
    """Give a MaskablePPO policy with a ``Discrete`` action space the exact, faster masked distribution."""
    current = policy.action_dist
    if type(current) is MaskableCategoricalDistribution:
        policy.action_dist = ExactMaskableCategoricalDistribution(current.action_dim)
