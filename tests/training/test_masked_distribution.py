"""The exact masked distribution: sb3-contrib's values, gradients and training, to the bit."""

import pytest
import torch as th
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from stable_baselines3.common.vec_env import DummyVecEnv

from kakurega.agents.training.masked_distribution import (
    LARGE,
    CompactMaskableCategorical,
    CompactMaskableCategoricalDistribution,
    ExactMaskableCategorical,
    ExactMaskableCategoricalDistribution,
    _exponential_draws_reproduced,
    use_compact_masking,
    use_exact_fast_training,
)
from kakurega.agents.training.view import SingleAgentView


def _log_softmax_categorical(logits, masks=None):
    """The same distribution computed another way (one masked log-softmax): equal in value, not in every bit."""
    masked = th.where(th.as_tensor(masks), logits, th.tensor(-1e8))
    return th.distributions.Categorical(logits=th.log_softmax(masked, -1), validate_args=False)


def _everything(make, raw, masks, seed, mask_later=True):
    """Logits, probabilities, log-probabilities and entropy of sampled actions, and the gradient of a loss of them."""
    logits = raw.detach().clone().requires_grad_()
    if mask_later:
        distribution = make(logits=logits)
        if masks is not None:
            distribution.apply_masking(masks)
    else:
        distribution = make(logits, masks)
    actions = th.multinomial(distribution.probs, 1, generator=th.Generator().manual_seed(seed)).squeeze(-1)
    log_prob, entropy = distribution.log_prob(actions), distribution.entropy()
    weights = th.randn(log_prob.shape, generator=th.Generator().manual_seed(seed + 1))
    ((log_prob * weights).sum() - 0.01 * entropy.sum()).backward()
    return [distribution.logits.detach(), distribution.probs.detach(), log_prob.detach(), entropy.detach(), logits.grad]


def _cases(count=40):
    generator = th.Generator().manual_seed(0)
    for _ in range(count):
        rows = int(th.randint(1, 257, (1,), generator=generator))
        actions = [2, 7, 74, 170, 1269][int(th.randint(0, 5, (1,), generator=generator))]
        scale = float(th.rand(1, generator=generator)) * 30
        raw = th.randn(rows, actions, generator=generator) * scale
        masks = th.rand(rows, actions, generator=generator) < float(th.rand(1, generator=generator))
        masks[th.arange(rows), th.randint(0, actions, (rows,), generator=generator)] = True  # a legal action per row
        yield raw, masks


def _same(left, right):
    return all(th.equal(a, b) for a, b in zip(left, right))


def test_values_and_gradients_equal_sb3_contribs_to_the_bit():
    """Random logits (1 to 256 rows, 2 to 1,269 actions, few or many legal): every number is sb3-contrib's."""
    for seed, (raw, masks) in enumerate(_cases()):
        ours = _everything(ExactMaskableCategorical, raw, masks, seed)
        theirs = _everything(MaskableCategorical, raw, masks, seed)
        assert _same(ours, theirs), f"case {seed}: {raw.shape}"


def test_the_comparison_sees_a_difference_of_rounding():
    """Control: the same distribution computed by one log-softmax differs from sb3-contrib's in some bit."""
    differs = 0
    for seed, (raw, masks) in enumerate(_cases(10)):
        other = _everything(_log_softmax_categorical, raw, masks, seed, mask_later=False)
        theirs = _everything(MaskableCategorical, raw, masks, seed)
        assert all(th.allclose(a, b, rtol=1e-4, atol=1e-4) for a, b in zip(other[2:4], theirs[2:4]))
        differs += not _same(other, theirs)
    assert differs >= 5


@pytest.mark.parametrize("masks", ["none", "no legal action in a row", "removed"])
def test_unmasked_and_degenerate_rows_equal_sb3_contribs(masks):
    """No masks, masks then None, and a row with no legal action (sb3-contrib's fallback): the same numbers."""
    raw = th.randn(5, 9, generator=th.Generator().manual_seed(3)) * 4
    mask = th.rand(5, 9, generator=th.Generator().manual_seed(4)) < 0.5
    if masks == "none":
        ours, theirs = (_everything(make, raw, None, 0) for make in (ExactMaskableCategorical, MaskableCategorical))
    elif masks == "no legal action in a row":
        mask[2] = False
        mask[0, 0] = mask[1, 0] = mask[3, 0] = mask[4, 0] = True
        ours, theirs = (_everything(make, raw, mask, 0) for make in (ExactMaskableCategorical, MaskableCategorical))
    else:
        def masked_then_removed(make):
            def build(logits):
                distribution = make(logits=logits)
                distribution.apply_masking(mask)
                distribution.apply_masking(None)
                return distribution
            return _everything(build, raw, None, 0)
        ours, theirs = masked_then_removed(ExactMaskableCategorical), masked_then_removed(MaskableCategorical)
    assert _same(ours, theirs)


def _forbidden(*args, **kwargs):
    raise AssertionError("the exact sampler fell back to torch.multinomial")


def _sample_with_multinomial_forbidden(distribution):
    original = th.multinomial
    th.multinomial = _forbidden
    try:
        return distribution.sample()
    finally:
        th.multinomial = original


@pytest.mark.parametrize("dtype", [th.float32, th.float64])
def test_samples_and_the_generator_state_equal_sb3_contribs(dtype):
    """Random logits and masks, the global generator seeded: the same actions, and the generator left as torch leaves it."""
    assert _exponential_draws_reproduced()  # (else the exact sampler would not run on this torch)
    large = 0
    for seed, (raw, masks) in enumerate(_cases(30)):
        th.manual_seed(seed)
        distribution = ExactMaskableCategorical(raw.to(dtype), masks)
        if raw.numel() >= LARGE:  # the exact sampler (below it, torch.multinomial is the faster)
            large += 1
            ours = _sample_with_multinomial_forbidden(distribution)
        else:
            ours = distribution.sample()
        ours_state = th.random.get_rng_state()
        th.manual_seed(seed)
        theirs = MaskableCategorical(logits=raw.to(dtype), masks=masks, validate_args=False).sample()
        assert th.equal(ours, theirs), f"case {seed}: {raw.shape}"
        assert th.equal(ours_state, th.random.get_rng_state())
        assert bool(masks[th.arange(len(ours)), ours].all())
    assert large >= 10


def test_the_sample_comparison_can_fail():
    """Control: uniforms drawn for the legal entries only leave the generator elsewhere and change later samples."""
    raw, masks = next(_cases(1))
    th.manual_seed(0)
    ExactMaskableCategorical(raw, masks).sample()
    ours = th.random.get_rng_state()
    th.manual_seed(0)
    th.empty(int(masks.sum()), dtype=th.float64).uniform_()
    assert not th.equal(ours, th.random.get_rng_state())


def test_nan_logits_raise_torchs_error():
    raw = th.full((2, 5), float("nan"))
    masks = th.ones(2, 5, dtype=th.bool)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        ExactMaskableCategorical(raw, masks).sample()


def _train(fast: bool):
    # 4 envs: a rollout's batch of 4 x 1,269 entries is LARGE (the exact sampler draws); minibatches too (products)
    vec = DummyVecEnv([lambda: SingleAgentView("animal_chain_v1", {}, ["random"], illegal_action="raise")] * 4)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=64, n_epochs=2, seed=0,
                        policy_kwargs=dict(net_arch=[16, 16]))
    original = th.multinomial
    if fast:
        use_exact_fast_training(model.policy)
        assert type(model.policy.action_dist) is ExactMaskableCategoricalDistribution
        assert model.policy.optimizer.param_groups[0]["foreach"] is True
        th.multinomial = _forbidden  # (any call raises: the exact sampler must do every draw)
    try:
        model.learn(256)
    finally:
        th.multinomial = original
    return [p.detach().clone() for p in model.policy.parameters()] + [th.random.get_rng_state()]


def test_a_short_training_gives_bit_identical_parameters():
    """MaskablePPO on Animal Chain (1,269 actions), seed 0, 256 steps: the same parameters and generator state either way."""
    ours, theirs = _train(fast=True), _train(fast=False)
    assert len(ours) == len(theirs) and _same(ours, theirs)
    assert not _same(ours[:-1], [p + 1e-7 for p in theirs[:-1]])  # (a changed bit would show)


def test_the_trainer_builds_ppo_with_it_when_asked_for_exact(tmp_path):
    from kakurega.agents.training.config import validate_config
    from kakurega.agents.training.trainer import build_model, make_vec_env

    config = validate_config({"env": "hidden_rooms_v0", "algorithm": "ppo", "total_timesteps": 64, "n_envs": 1,
                              "output_dir": str(tmp_path), "network": {"masked_distribution": "exact"}})
    vec = make_vec_env(config)
    try:
        policy = build_model(config, vec).policy
        assert type(policy.action_dist) is ExactMaskableCategoricalDistribution
        assert policy.optimizer.param_groups[0]["foreach"] is True
    finally:
        vec.close()


# ------------------------------------------------------------------ the compact distribution (network.masked_distribution: compact)
def test_compact_values_and_gradients_agree_with_sb3_contribs_to_rounding():
    """Probabilities, log-probabilities, entropy and gradients within float rounding; illegal actions exactly 0."""
    for seed, (raw, masks) in enumerate(_cases()):
        ours = _everything(CompactMaskableCategorical, raw, masks, seed, mask_later=False)
        theirs = _everything(MaskableCategorical, raw, masks, seed)
        for name, a, b in zip(("probs", "log_prob", "entropy", "gradient"), ours[1:], theirs[1:]):
            assert th.allclose(a, b, rtol=1e-5, atol=2e-5), f"case {seed} {name}: {float((a - b).abs().max())}"
        assert bool((ours[1][~masks] == 0).all()) and bool((ours[0][~masks] == float("-inf")).all())


def test_compact_samples_follow_the_probabilities():
    """4,000 draws of one row, fixed seed: legal actions only, each within 0.03 of its probability."""
    raw = th.tensor([[2.0, 0.5, -1.0, 1.0, 0.0, 3.0]]).repeat(4000, 1)
    masks = th.tensor([[True, True, False, True, True, False]]).repeat(4000, 1)
    distribution = CompactMaskableCategorical(raw, masks)
    th.manual_seed(0)
    counts = th.bincount(distribution.sample(), minlength=6).double() / 4000
    expected = th.softmax(th.tensor([2.0, 0.5, -1e9, 1.0, 0.0, -1e9]), -1).double()
    assert counts[2] == 0 and counts[5] == 0
    assert float((counts - expected).abs().max()) < 0.03


def test_compact_without_masks_or_with_an_empty_row_is_the_exact_computation():
    raw = th.randn(5, 9, generator=th.Generator().manual_seed(3)) * 4
    mask = th.rand(5, 9, generator=th.Generator().manual_seed(4)) < 0.5
    mask[2] = False
    mask[0, 0] = mask[1, 0] = mask[3, 0] = mask[4, 0] = True
    for masks in (None, mask):
        ours = _everything(CompactMaskableCategorical, raw, masks, 0, mask_later=False)
        theirs = _everything(MaskableCategorical, raw, masks, 0)
        assert _same(ours, theirs)


def test_compact_log_prob_of_an_illegal_action_is_huge_negative():
    distribution = CompactMaskableCategorical(th.zeros(2, 3), th.tensor([[True, False, True], [False, True, True]]))
    assert distribution.log_prob(th.tensor([1, 0])).tolist() == [-1e8, -1e8]
    assert distribution.log_prob(th.tensor([0, 2])).tolist() == pytest.approx([-0.6931472, -0.6931472])


def _train_compact():
    vec = DummyVecEnv([lambda: SingleAgentView("animal_chain_v1", {}, ["random"], illegal_action="raise")] * 2)
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=2, seed=0,
                        policy_kwargs=dict(net_arch=[16, 16]))
    use_exact_fast_training(model.policy)
    use_compact_masking(model.policy)
    assert type(model.policy.action_dist) is CompactMaskableCategoricalDistribution
    model.learn(256)
    return [p.detach().clone() for p in model.policy.parameters()]


def test_a_compact_training_is_reproducible_and_not_the_exact_one():
    """Seed 0 twice: the same parameters; against the exact distribution: other draws, other parameters."""
    first, second = _train_compact(), _train_compact()
    assert _same(first, second) and all(bool(th.isfinite(p).all()) for p in first)
    assert not _same(first, _train(fast=True)[:-1])


def test_the_trainer_builds_the_compact_distribution_by_default(tmp_path):
    from kakurega.agents.training.config import ConfigError, validate_config
    from kakurega.agents.training.trainer import build_model, make_vec_env

    base = {"env": "hidden_rooms_v0", "total_timesteps": 64, "n_envs": 1, "output_dir": str(tmp_path)}
    config = validate_config({**base, "algorithm": "ppo"})
    assert config["network"]["masked_distribution"] == "compact"
    vec = make_vec_env(config)
    try:
        assert type(build_model(config, vec).policy.action_dist) is CompactMaskableCategoricalDistribution
    finally:
        vec.close()
    # the key is PPO's: a DQN config resolves it to exact, and refuses compact in words
    assert validate_config({**base, "algorithm": "dqn"})["network"]["masked_distribution"] == "exact"
    assert validate_config({**base, "algorithm": "dqn", "network": {"masked_distribution": "exact"}})
    with pytest.raises(ConfigError, match="network.masked_distribution.*algorithm dqn"):
        validate_config({**base, "algorithm": "dqn", "network": {"masked_distribution": "compact"}})
    with pytest.raises(ConfigError, match="network.masked_distribution"):
        validate_config({**base, "algorithm": "ppo", "network": {"masked_distribution": "legal"}})
