"""sb3-contrib's masked categorical distribution, computed with the same numbers in a fraction of the time.

MaskablePPO's distribution (``sb3_contrib.common.maskable.distributions``)
normalises the network's logits, sets each illegal action's logit to
``-1e8`` and normalises again, through ``torch.distributions.Categorical``.
Four costs dominate with a large action space (Animal Chain's 1,269
actions, of which a few dozen are legal):

- ``logsumexp`` over the masked logits runs ``exp`` on every ``-1e8``
  entry, and the CPU's ``exp`` takes a slow path for results below
  float32's normal range: about twelve times the cost of an ordinary entry;
- ``torch.where`` and ``masked_fill`` with a boolean mask cost six to eight
  times a product on this CPU, and a PPO update runs a dozen of them over
  the [batch, actions] matrix;
- sampling (``torch.multinomial``) draws an exponential variate for every
  action, legal or not: ``-log1p(-u)`` of a uniform ``u``, the ``log1p``
  being most of the cost;
- each distribution is built three times (a third normalisation whose result
  is thrown away), each time checking its arguments.

:class:`ExactMaskableCategorical` computes the normalisation over the masked
logits with ``exp`` of the legal entries only (an illegal entry's term is
exactly ``0.0`` either way), masks by products with the mask as numbers
(``x * 1.0 == x`` and an illegal entry's product is a zero that is
dropped or added to a non-zero number), samples by drawing the same
uniforms from the same generator and taking ``log1p`` of the legal entries
only (an illegal entry's probability is exactly 0.0, its ratio ``0 / q``
too), and builds the distribution once, without argument checks (the masks
come from the envs, the actions from the distribution itself). Products and
the sampler are used from :data:`LARGE` entries; below, ``torch.where`` and
``torch.multinomial`` cost less. Every value, sample and gradient is
sb3-contrib's to the bit, and the generator is left in the same state:
``tests/training/test_masked_distribution.py`` compares them. (One sample
differs: where a uniform draw is exactly 0.0 at an illegal entry,
probability 2**-53 each, ``multinomial`` divides 0 by -0.0 and picks that
illegal action; this sampler picks a legal one.) A non-finite illegal
logit, a row with no legal action, and a ``torch`` whose exponential draws
are not reproduced (checked once per process) fall back to sb3-contrib's
computation.

:class:`CompactMaskableCategorical` (``network.masked_distribution:
compact``) is the same distribution computed over the legal entries only:
faster still, but not sb3-contrib's bits, so seeded runs differ;
:func:`sample_legal` is its sampling in numpy, for a rollout's batch. The
compact policy (:mod:`~kakurega.agents.training.compact_policy`) computes
its logits over the legal actions only.

:func:`use_exact_fast_masking` puts it into a MaskablePPO policy: the
distribution holds no parameters, so a policy's saved files are unchanged.
:func:`use_exact_fast_training` also runs the policy's Adam with ``torch``'s
``foreach`` implementation on the CPU (the same parameters to the bit,
fewer calls; ``fused`` Adam differs in the last bits and is not used).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution

#: the logit sb3-contrib gives an illegal action
HUGE_NEG = -1e8
#: from this many entries ([batch, actions]) masking by products and the sampler pay for their fixed costs
#: (measured: below it, ``torch.where`` and ``torch.multinomial`` are a few µs to 70 µs faster a call)
LARGE = 4096


class _MaskedLogSumExp(th.autograd.Function):
    """``logits.logsumexp(-1, keepdim=True)`` (ATen's steps) with ``exp`` run on the legal entries only.

    ``keep`` is the mask as numbers (1.0 legal, 0.0 illegal); ``logits`` are
    finite, so that an illegal entry times 0.0 is a zero.
    """

    @staticmethod
    def forward(ctx, logits: th.Tensor, keep: th.Tensor) -> th.Tensor:
        maxes = th.amax(logits, -1, keepdim=True)
        maxes.masked_fill_(maxes.abs() == float("inf"), 0)
        shifted = (logits - maxes).mul_(keep).exp_().mul_(keep)  # an illegal entry: exp(0) * 0 == 0
        result = th.sum(shifted, -1, keepdim=True).log_().add_(maxes)
        ctx.save_for_backward(logits, keep, result)
        return result

    @staticmethod
    def backward(ctx, grad: th.Tensor):
        logits, keep, result = ctx.saved_tensors
        # ATen's logsumexp_backward is grad * exp(logits - result); an illegal entry's exp is exactly 0.0
        return grad * (logits - result).mul_(keep).exp_().mul_(keep), None


@functools.cache
def _exponential_draws_reproduced() -> bool:
    """Whether ``Tensor.exponential_`` draws ``-log1p(-u)`` of float64 uniforms, one per entry, as this module does."""
    for dtype in (th.float32, th.float64):
        drawn, redrawn = th.Generator().manual_seed(12345), th.Generator().manual_seed(12345)
        expected = th.empty(4, 1000, dtype=dtype).exponential_(generator=drawn)
        uniforms = th.empty(4, 1000, dtype=th.float64).uniform_(generator=redrawn)
        if not (th.equal(_exponentials(uniforms.flatten(), dtype).view(4, 1000), expected)
                and th.equal(drawn.get_state(), redrawn.get_state())):
            return False
    return True


def _exponentials(uniforms: th.Tensor, dtype: th.dtype) -> th.Tensor:
    """``-log1p(-u)`` of a 1-D float64 tensor by the C library's ``log1p`` (as ATen's CPU kernel), cast to ``dtype``."""
    log1p = math.log1p
    return th.tensor([-log1p(-u) for u in uniforms.tolist()], dtype=th.float64).to(dtype)


class ExactMaskableCategorical(MaskableCategorical):
    """sb3-contrib's :class:`MaskableCategorical` with the same values, samples and gradients, built once, unchecked.

    As there, the logits are normalised once before masking; unmasked, they
    are normalised a second time (computed when first read).
    """

    def __init__(self, logits: th.Tensor, masks=None):
        self.masks = None
        self._keep = None
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
        self._logits = self._keep = None
        if masks is None:
            self.masks = None
            return
        original = self._original_logits
        self.masks = th.as_tensor(masks, dtype=th.bool, device=original.device).reshape(original.shape)
        if original.numel() >= LARGE:
            keep = self.masks.to(original.dtype)
            # th.where(masks, original, -1e8) by products: original * 1.0 + 0.0, or original * 0.0 - 1e8
            logits = original * keep + (keep - 1.0) * -HUGE_NEG
            normaliser = _MaskedLogSumExp.apply(logits, keep)
        else:
            keep = None
            logits = th.where(self.masks, original, th.tensor(HUGE_NEG, dtype=original.dtype, device=original.device))
            normaliser = _MaskedLogSumExp.apply(logits, self.masks.to(original.dtype))
        if bool(th.isfinite(normaliser).all()):
            self._keep = keep
            self._logits = logits - normaliser
            return
        # a row without a legal action (-inf), or a non-finite illegal logit (its product is nan): sb3-contrib's steps
        logits = th.where(self.masks, original, th.tensor(HUGE_NEG, dtype=original.dtype, device=original.device))
        self._keep = None
        self._logits = logits - logits.logsumexp(dim=-1, keepdim=True)

    def entropy(self) -> th.Tensor:
        if self._keep is None:
            return super().entropy()
        return -(self.logits * self.probs * self._keep).sum(-1)  # th.where(masks, p_log_p, 0.0), by a product

    def sample(self, sample_shape=()) -> th.Tensor:
        """``torch.multinomial(probs, 1, True)``'s sample (``argmax(probs / q)``, ``q`` exponential), same generator draws."""
        probs = self.probs
        if (self._keep is None or tuple(sample_shape) != () or probs.device.type != "cpu"
                or probs.dtype not in (th.float32, th.float64) or not _exponential_draws_reproduced()):
            return super().sample(sample_shape)
        with th.no_grad():
            probs_2d = probs.reshape(-1, self._num_events)
            if not bool((probs_2d.min() >= 0) & (probs_2d.max() < math.inf)):
                return super().sample(sample_shape)  # torch's error
            uniforms = th.empty(probs_2d.shape, dtype=th.float64).uniform_()  # multinomial's draws, same generator
            legal = np.flatnonzero(self.masks.reshape(probs_2d.shape).numpy())
            chosen = uniforms.numpy().ravel()[legal]
            # an illegal entry's probability is exactly 0.0 (exp of about -1e8), its ratio 0 / q == 0.0
            flat_probs = probs_2d.numpy().ravel()
            ratios = np.zeros(probs_2d.shape, dtype=flat_probs.dtype)
            ratios.ravel()[legal] = flat_probs[legal] / _exponentials(th.from_numpy(chosen), probs.dtype).numpy()
            return th.from_numpy(ratios.argmax(-1)).reshape(self._extended_shape(sample_shape))


def _flat_nonzero(masks: th.Tensor) -> th.Tensor:
    """Flat indices of a boolean tensor's True entries, in order (numpy's is several times torch's on the CPU)."""
    if masks.device.type == "cpu":
        return th.from_numpy(np.flatnonzero(masks.numpy()))
    return masks.reshape(-1).nonzero().squeeze(-1)


class CompactMaskableCategorical(MaskableCategorical):
    """The same distribution computed over the legal actions only: not sb3-contrib's bits, a fraction of its work.

    sb3-contrib's masked distribution is a softmax over the legal actions'
    logits (an illegal action's probability is exactly 0.0), computed over the
    full [batch, actions] matrix. This one gathers the legal logits once and
    normalises them per row (``log_softmax`` of the legal entries, rows as
    segments), so a PPO update's distribution costs about the legal entries,
    not every action. Values agree with sb3-contrib's to float rounding; the
    last bits, the generator's draws (one exponential per legal action) and
    so seeded runs differ. ``logits`` and ``probs``, built on demand, give
    an illegal action ``-inf`` and ``0.0``; the log-probability of an illegal
    action is ``-1e8``. Without masks it is :class:`ExactMaskableCategorical`.

    A subclass may compute the logits it needs only (:meth:`_logits_at`) and
    the full matrix on demand (:meth:`_all_logits`).
    """

    def __init__(self, logits: th.Tensor, masks=None):
        """``logits``: [batch, actions]."""
        self._raw = logits
        self._setup(logits.shape, logits.dtype, logits.device, masks)

    def _setup(self, shape, dtype, device, masks) -> None:
        self._shape, self._dtype, self._device = th.Size(shape), dtype, device
        self._num_events = shape[-1]
        th.distributions.Distribution.__init__(self, self._shape[:-1], validate_args=False)
        self.masks = self._exact = self._legal_log_probs = None
        if masks is not None:
            self.apply_masking(masks)

    def _all_logits(self) -> th.Tensor:
        """The [batch, actions] logits."""
        return self._raw

    def _logits_at(self, flat: th.Tensor, rows: th.Tensor) -> th.Tensor:
        """The logits at the flat indices ``flat`` of the [batch, actions] matrix (``rows``: their rows)."""
        return self._raw.reshape(-1).index_select(0, flat)

    def apply_masking(self, masks) -> None:
        """Keep the legal entries of each row and normalise them; None removes the masks."""
        self.masks = self._exact = self._legal_log_probs = None
        if masks is None:
            return
        self.masks = th.as_tensor(masks, dtype=th.bool, device=self._device).reshape(self._shape)
        flat = _flat_nonzero(self.masks)
        rows = flat.div(self._num_events, rounding_mode="floor")
        if not bool(th.bincount(rows, minlength=self._shape[0]).min() > 0):  # a row without a legal action
            return
        legal = self._logits_at(flat, rows)
        with th.no_grad():
            maxes = th.full(self._shape[:-1], -math.inf, dtype=self._dtype, device=self._device)
            maxes.scatter_reduce_(0, rows, legal, "amax")
        shifted = legal - maxes[rows]
        log_sums = th.zeros(self._shape[:-1], dtype=self._dtype, device=self._device).index_add(0, rows, shifted.exp())
        log_sums = log_sums.log()
        self._flat, self._rows = flat, rows
        self._legal_log_probs = shifted - log_sums[rows]

    def _fallback(self) -> ExactMaskableCategorical:
        """The full computation, for no masks or a row without a legal action (built when first needed)."""
        if self._exact is None:
            self._exact = ExactMaskableCategorical(self._all_logits(), self.masks)
        return self._exact

    def _full(self, legal_values: th.Tensor, fill: float) -> th.Tensor:
        full = th.full((self._shape.numel(),), fill, dtype=self._dtype, device=self._device)
        return full.index_put((self._flat,), legal_values).view(self._shape)

    @property
    def logits(self) -> th.Tensor:
        return self._fallback().logits if self._legal_log_probs is None else self._full(self._legal_log_probs, -math.inf)

    @property
    def probs(self) -> th.Tensor:
        return self._fallback().probs if self._legal_log_probs is None else self._full(self._legal_log_probs.exp(), 0.0)

    @property
    def _param(self) -> th.Tensor:
        return self.logits

    def log_prob(self, value: th.Tensor) -> th.Tensor:
        if self._legal_log_probs is None:
            return self._fallback().log_prob(value)
        # the taken action's place among the legal entries (flat indices, ascending); an illegal action has none
        flat = th.arange(value.numel(), device=self._device) * self._num_events + value.long().reshape(-1)
        place = th.searchsorted(self._flat, flat).clamp_(max=self._flat.numel() - 1)
        return th.where(self._flat[place] == flat, self._legal_log_probs[place], HUGE_NEG)

    def entropy(self) -> th.Tensor:
        if self._legal_log_probs is None:
            return self._fallback().entropy()
        log_probs = self._legal_log_probs
        terms = log_probs.exp() * log_probs
        return -th.zeros(self._shape[:-1], dtype=terms.dtype, device=terms.device).index_add(0, self._rows, terms)

    def sample(self, sample_shape=()) -> th.Tensor:
        """``argmax(p / q)`` over the legal actions, ``q`` exponential (as ``torch.multinomial`` samples)."""
        if self._legal_log_probs is None:
            return self._fallback().sample(sample_shape)
        if tuple(sample_shape) != ():
            return super().sample(sample_shape)
        with th.no_grad():
            legal_probs = self._legal_log_probs.exp()
            ratios = self._full(legal_probs / th.empty_like(legal_probs).exponential_(), 0.0)
            return ratios.argmax(-1)


def sample_legal(logits: th.Tensor, masks, deterministic: bool = False) -> tuple[th.Tensor, th.Tensor] | None:
    """Actions of :class:`CompactMaskableCategorical` over ``logits`` [batch, actions] and their log-probabilities.

    The same computation in numpy, for a rollout's batch (no gradient, on
    the CPU), where torch's fixed cost per operation is most of the work:
    a sample is ``argmax(p / q)`` over each row's legal actions with the
    same draws (one exponential per legal action from torch's generator),
    the most likely action with ``deterministic``. None for a row without a
    legal action (the caller falls back to the distribution).
    """
    batch, num_actions = logits.shape
    masks = masks.numpy() if isinstance(masks, th.Tensor) else np.asarray(masks)
    flat = np.flatnonzero(masks.reshape(batch, num_actions))
    rows, actions = np.divmod(flat, num_actions)
    starts = np.searchsorted(rows, np.arange(batch))
    if flat.size == 0 or not bool((np.diff(starts) > 0).all()) or starts[-1] >= flat.size:
        return None
    legal = logits.detach().numpy().reshape(-1)[flat]
    shifted = legal - np.maximum.reduceat(legal, starts)[rows]
    log_probs = shifted - np.log(np.add.reduceat(np.exp(shifted), starts))[rows]
    scores = log_probs if deterministic else np.exp(log_probs) / th.empty(flat.size, dtype=logits.dtype).exponential_().numpy()
    best = np.flatnonzero(scores == np.maximum.reduceat(scores, starts)[rows])
    first = np.ones(best.size, dtype=bool)
    first[1:] = rows[best[1:]] != rows[best[:-1]]  # the first of a row's ties, as argmax picks
    chosen = best[first]
    return th.from_numpy(actions[chosen]), th.from_numpy(log_probs[chosen])


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


class CompactMaskableCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution over :class:`CompactMaskableCategorical`."""

    def proba_distribution(self, action_logits: th.Tensor):
        self.distribution = CompactMaskableCategorical(action_logits.view(-1, self.action_dim))
        return self


def use_compact_masking(policy) -> None:
    """Give a MaskablePPO policy with a ``Discrete`` action space the distribution over legal actions only."""
    current = policy.action_dist
    if isinstance(current, MaskableCategoricalDistribution):
        policy.action_dist = CompactMaskableCategoricalDistribution(current.action_dim)


def use_exact_fast_training(policy) -> None:
    """:func:`use_exact_fast_masking`, and the policy's Adam on the CPU in ``foreach`` mode (the same numbers)."""
    use_exact_fast_masking(policy)
    optimizer = getattr(policy, "optimizer", None)
    if type(optimizer) is th.optim.Adam and all(p.device.type == "cpu" for p in policy.parameters()):
        for group in optimizer.param_groups:
            if group.get("foreach") is None and not group.get("fused"):
                group["foreach"] = True
