"""The compact policy (``network.masked_distribution: compact``): MlpPolicy's numbers over legal actions and active inputs.

Every comparison runs sb3-contrib's ``MaskableActorCriticPolicy`` (MlpPolicy)
and :class:`CompactPolicy` with the same weights on observations and masks
from random play, once per code path (the thresholds forced each way), and
a control shows that a wrong gather or a dropped bias fails the comparison.
"""

import numpy as np
import pytest
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.vec_env import DummyVecEnv

from kakurega.agents.training import compact_policy
from kakurega.agents.training.compact_policy import CompactPolicy, LegalHeadCategorical, build_maskable_ppo
from kakurega.agents.training.view import SingleAgentView

TOLERANCE = 1e-5
ARCH = dict(net_arch=dict(pi=[64, 64], vf=[64, 64]))
#: the thresholds that force each path: (legal head ratio, active-input share, active from)
PATHS = {
    "defaults": (compact_policy.LEGAL_HEAD_RATIO, compact_policy.MAX_ACTIVE, compact_policy.ACTIVE_FROM),
    "legal head, active inputs": (1, 1.0, 1),
    "full head, dense inputs": (10**9, 0.0, 10**12),
}


def _random_play(env_name, env_kwargs, rows, seed=0):
    """``rows`` observations and masks of the learner's seat in random play."""
    view = SingleAgentView(env_name, env_kwargs, ["random"])
    rng = np.random.default_rng(seed)
    obs, _ = view.reset(seed=seed)
    observations, masks = [], []
    while len(observations) < rows:
        mask = view.action_masks()
        observations.append(obs.copy())
        masks.append(mask.copy())
        obs, _, terminated, truncated, _ = view.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = view.reset()
    return np.array(observations, dtype=np.float32), np.array(masks, dtype=bool)


@pytest.fixture(scope="module")
def batches():
    """Real batches of Animal Chain v1 and Summer v2 2p, and two synthetic ones."""
    result = {name: _random_play(*game, 256) for name, game in (
        ("animal_chain_v1", ("animal_chain_v1", {})),
        ("summer_hide_and_seek_v2 2p", ("summer_hide_and_seek_v2", {"num_players": 2})))}
    rng = np.random.default_rng(1)
    observations = (rng.random((96, 700)) < 0.05) * rng.normal(0, 3, (96, 700))  # non-binary, sparse
    masks = rng.random((96, 900)) < 0.02
    masks[np.arange(96), rng.integers(0, 900, 96)] = True
    result["non-binary inputs"] = (observations.astype(np.float32), masks)
    observations, masks = result["animal_chain_v1"][0][:40].copy(), result["animal_chain_v1"][1][:40].copy()
    masks[7] = False  # a row without a legal action
    result["a row without a legal action"] = (observations, masks)
    return result


def _pair(observations, masks, seed=0):
    """sb3-contrib's MlpPolicy and a CompactPolicy with its weights."""
    observation_space = spaces.Box(-np.inf, np.inf, (observations.shape[1],), np.float32)
    action_space = spaces.Discrete(masks.shape[1])
    th.manual_seed(seed)
    reference = MaskableActorCriticPolicy(observation_space, action_space, lambda _: 3e-4, **ARCH)
    compact = CompactPolicy(observation_space, action_space, lambda _: 3e-4, **ARCH)
    compact.load_state_dict(reference.state_dict())
    with th.no_grad():  # biases away from sb3's zero initialisation, so that a dropped bias shows
        for policy in (reference, compact):
            for name, parameter in policy.named_parameters():
                if name.endswith("bias"):
                    parameter.copy_(th.linspace(-0.5, 0.5, parameter.numel()))
    return reference, compact


def _legal_actions(masks, seed=0):
    rng = np.random.default_rng(seed)
    return th.tensor([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks])


def _outputs_and_gradients(policy, observations, masks, actions):
    """evaluate_actions' values, log-probabilities and entropies, and the gradients of a PPO-like loss."""
    policy.zero_grad(set_to_none=True)
    values, log_prob, entropy = policy.evaluate_actions(th.from_numpy(observations), actions,
                                                        th.from_numpy(masks.astype(np.float32)))
    advantages = th.linspace(-1.0, 1.0, len(actions))
    ratio = th.exp(log_prob - log_prob.detach() + 0.1)
    loss = (-th.min(ratio * advantages, th.clamp(ratio, 0.8, 1.2) * advantages).mean()
            + 0.5 * (values.flatten() - advantages).square().mean() - 0.01 * entropy.mean())
    loss.backward()
    return [values.detach(), log_prob.detach(), entropy.detach()], {
        name: parameter.grad for name, parameter in policy.named_parameters()}


def _largest_difference(reference, compact, observations, masks):
    """The largest difference between the two policies' outputs and gradients on one batch."""
    actions = _legal_actions(masks)
    ours, our_grads = _outputs_and_gradients(compact, observations, masks, actions)
    theirs, their_grads = _outputs_and_gradients(reference, observations, masks, actions)
    differences = [float((a - b).abs().max()) for a, b in zip(ours, theirs)]
    differences += [float("inf") if our_grads[name] is None else float((our_grads[name] - grad).abs().max())
                    for name, grad in their_grads.items()]
    with th.no_grad():
        obs, float_masks = th.from_numpy(observations), masks.astype(np.float32)
        log_probs = [policy.get_distribution(obs, float_masks).log_prob(actions) for policy in (compact, reference)]
        differences.append(float((log_probs[0] - log_probs[1]).abs().max()))
    return max(differences)


@pytest.fixture
def path(request, monkeypatch):
    ratio, active, active_from = PATHS[request.param]
    monkeypatch.setattr(compact_policy, "LEGAL_HEAD_RATIO", ratio)
    monkeypatch.setattr(compact_policy, "MAX_ACTIVE", active)
    monkeypatch.setattr(compact_policy, "ACTIVE_FROM", active_from)
    return request.param


@pytest.mark.parametrize("path", list(PATHS), indirect=True)
@pytest.mark.parametrize("batch", ["animal_chain_v1", "summer_hide_and_seek_v2 2p", "non-binary inputs",
                                   "a row without a legal action"])
@pytest.mark.parametrize("rows", [8, 256])
def test_values_log_probs_entropies_and_gradients_equal_mlp_policys(batches, batch, rows, path):
    observations, masks = (array[:rows] for array in batches[batch])
    reference, compact = _pair(observations, masks)
    assert _largest_difference(reference, compact, observations, masks) < TOLERANCE


@pytest.mark.parametrize("path", ["legal head, active inputs"], indirect=True)
@pytest.mark.parametrize("sabotage", ["wrong gather index", "dropped bias", "first layer without its bias"])
def test_the_comparison_fails_on_a_wrong_computation(batches, monkeypatch, path, sabotage):
    """The control: the same comparison catches a logit gathered from the wrong row of weights or a lost bias."""
    observations, masks = batches["animal_chain_v1"]
    reference, compact = _pair(observations, masks)
    assert _largest_difference(reference, compact, observations, masks) < TOLERANCE
    if sabotage == "wrong gather index":
        right = LegalHeadCategorical._logits_at
        monkeypatch.setattr(LegalHeadCategorical, "_logits_at",
                            lambda self, flat, rows: right(self, (flat + 1) % self._shape.numel(), rows))
    elif sabotage == "dropped bias":
        right = LegalHeadCategorical._logits_at
        monkeypatch.setattr(LegalHeadCategorical, "_logits_at",
                            lambda self, flat, rows: right(self, flat, rows) - self._head.bias[flat % self._num_events])
    else:
        monkeypatch.setattr(compact_policy, "_active_linear", lambda inputs, layer, active: th.nn.functional.linear(
            inputs, layer.weight.index_select(1, active)))
    assert _largest_difference(reference, compact, observations, masks) > 1e-3


@pytest.mark.parametrize("path", list(PATHS), indirect=True)
def test_forward_samples_legal_actions_and_its_values_and_log_probs_are_mlp_policys(batches, path):
    observations, masks = batches["animal_chain_v1"]
    reference, compact = _pair(observations, masks)
    obs = th.from_numpy(observations)
    with th.no_grad():
        for deterministic in (False, True):
            for _ in range(3 if not deterministic else 1):
                actions, values, log_prob = compact(obs, deterministic, masks)
                assert bool(th.from_numpy(masks)[th.arange(len(actions)), actions].all())
                their_values, their_log_prob, _ = reference.evaluate_actions(obs, actions, th.from_numpy(masks))
                assert float((values - their_values).abs().max()) < TOLERANCE
                assert float((log_prob - their_log_prob).abs().max()) < TOLERANCE
        their_best, _ = reference.predict(observations, deterministic=True, action_masks=masks)
        assert np.array_equal(compact.predict(observations, deterministic=True, action_masks=masks)[0], their_best)
        # no masks: the full logits, sb3-contrib's distribution
        assert th.allclose(compact.get_distribution(obs).distribution.logits,
                           reference.get_distribution(obs).distribution.logits, atol=TOLERANCE)


def test_samples_follow_the_probabilities(batches):
    """2,000 draws of one Animal Chain row: legal actions only, frequencies within 0.04 of MlpPolicy's probabilities."""
    observations, masks = batches["animal_chain_v1"]
    reference, compact = _pair(observations, masks)
    obs, row_masks = th.from_numpy(observations[3:4]).repeat(2000, 1), np.repeat(masks[3:4], 2000, 0)
    th.manual_seed(0)
    with th.no_grad():
        actions, _, _ = compact(obs, action_masks=row_masks)
        probs = reference.get_distribution(obs[:1], row_masks[:1]).distribution.probs[0]
    frequencies = th.bincount(actions, minlength=masks.shape[1]).double() / 2000
    assert bool((frequencies[~th.from_numpy(masks[3])] == 0).all())
    assert float((frequencies - probs.double()).abs().max()) < 0.04


def _vec():
    return DummyVecEnv([lambda: SingleAgentView("animal_chain_v1", {}, ["random"], illegal_action="raise")] * 2)


def test_the_parameters_are_mlp_policys():
    """The same state_dict keys and shapes, and the same optimizer parameter order, as sb3-contrib's MlpPolicy."""
    vec = _vec()
    try:
        ours = build_maskable_ppo(vec, "compact", policy_kwargs=ARCH, seed=0).policy
        theirs = MaskablePPO("MlpPolicy", vec, policy_kwargs=ARCH, seed=0).policy
    finally:
        vec.close()
    assert type(ours) is CompactPolicy
    assert {k: v.shape for k, v in ours.state_dict().items()} == {k: v.shape for k, v in theirs.state_dict().items()}
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [p.shape for p in ours.optimizer.param_groups[0]["params"]] == [
        p.shape for p in theirs.optimizer.param_groups[0]["params"]]
    assert all(th.equal(a, b) for a, b in zip(ours.state_dict().values(), theirs.state_dict().values()))  # same init
    assert ours.optimizer.param_groups[0]["fused"] is True  # Adam in one kernel: the same update up to rounding


def test_fused_adam_steps_as_foreach_adam_to_rounding():
    from kakurega.agents.training.compact_policy import use_fused_adam

    steps = []
    for fused in (False, True):
        th.manual_seed(0)
        policy = CompactPolicy(spaces.Box(-1, 1, (30,)), spaces.Discrete(9), lambda _: 1e-3, **ARCH)
        if fused:
            use_fused_adam(policy)
        assert policy.optimizer.param_groups[0]["fused"] is (True if fused else None)
        generator = th.Generator().manual_seed(1)
        for _ in range(20):
            policy.optimizer.zero_grad()
            values, log_prob, _ = policy.evaluate_actions(th.randn(16, 30, generator=generator),
                                                          th.randint(0, 9, (16,), generator=generator))
            (values.square().mean() - log_prob.mean()).backward()
            policy.optimizer.step()
        steps.append([p.detach().clone() for p in policy.parameters()])
    assert all(th.allclose(a, b, atol=1e-6) for a, b in zip(*steps))



def test_without_a_fused_cpu_kernel_adam_stays_foreach(monkeypatch):
    """A torch without fused Adam on the CPU (the project allows torch 2.1) keeps foreach Adam instead of failing."""
    from kakurega.agents.training import compact_policy

    assert compact_policy._fused_adam_on_cpu()  # this torch has the kernel (the control: the flag is set below)
    made = []
    for supported in (True, False):
        monkeypatch.setattr(compact_policy, "_fused_adam_on_cpu", lambda supported=supported: supported)
        policy = CompactPolicy(spaces.Box(-1, 1, (30,)), spaces.Discrete(9), lambda _: 1e-3, **ARCH)
        compact_policy.use_fused_adam(policy)
        made.append(policy.optimizer.param_groups[0]["fused"])
    assert made == [True, None]

def _train_compact(steps=256):
    vec = _vec()
    try:
        model = build_maskable_ppo(vec, "compact", policy_kwargs=dict(net_arch=[16, 16]), n_steps=128,
                                   batch_size=128, n_epochs=2, seed=0)
        model.learn(steps)
    finally:
        vec.close()
    return [p.detach().clone() for p in model.policy.parameters()]


def test_a_seeded_compact_run_reproduces_itself():
    first, second = _train_compact(), _train_compact()
    assert all(th.equal(a, b) for a, b in zip(first, second))
    assert all(bool(th.isfinite(p).all()) for p in first)


def test_kakurega_train_learns_with_compact_on_animal_chain_and_its_policy_plays(tmp_path):
    """build_model gives CompactPolicy; a few hundred steps learn end to end; the exported policy plays legally."""
    from training_helpers import tiny_config

    import kakurega.agents
    from kakurega.agents.training.config import validate_config
    from kakurega.agents.training.trainer import build_model, make_vec_env, train

    config = tiny_config("animal_chain_v1", "ppo", tmp_path / "run", total_timesteps=384,
                         network={"hidden": [16], "masked_distribution": "compact"},
                         ppo={"n_steps": 64, "batch_size": 128, "n_epochs": 2})
    vec = make_vec_env(validate_config(config))
    try:
        assert type(build_model(validate_config(config), vec).policy) is CompactPolicy
    finally:
        vec.close()
    result = train(config, quiet=True)
    assert result.timesteps >= 384
    agent = kakurega.agents.load(result.policy_path)
    view = SingleAgentView("animal_chain_v1", {}, ["random"], illegal_action="raise")
    obs, _ = view.reset(seed=0)
    for _ in range(300):
        obs, _, terminated, truncated, _ = view.step(agent.act({"observation": obs,
                                                                "action_mask": view.action_masks()}))
        if terminated or truncated:
            obs, _ = view.reset()


def test_the_feature_head_keeps_its_policy_with_the_compact_distribution(tmp_path):
    from training_helpers import tiny_config

    from kakurega.agents.training.config import validate_config
    from kakurega.agents.training.feature_head import FeatureHeadPolicy
    from kakurega.agents.training.masked_distribution import CompactMaskableCategoricalDistribution
    from kakurega.agents.training.trainer import build_model, make_vec_env

    network = {"hidden": [16], "move_features": True, "feature_head": True, "masked_distribution": "compact"}
    config = validate_config(tiny_config("hidden_rooms_v0", "ppo", tmp_path / "run", network=network))
    vec = make_vec_env(config)
    try:
        policy = build_model(config, vec).policy
    finally:
        vec.close()
    assert type(policy) is FeatureHeadPolicy and type(policy.action_dist) is CompactMaskableCategoricalDistribution


def test_the_default_thresholds_take_the_cheap_path_for_each_game(batches):
    """A PPO minibatch (256 rows): Animal Chain's head over its legal actions, Summer's first layers over the active
    inputs (410 of its 1,327 are ever nonzero in random play); a rollout's batch of 8: the dense layers."""
    for name, legal_head, active in (("animal_chain_v1", True, False), ("summer_hide_and_seek_v2 2p", False, True)):
        observations, masks = batches[name]
        _, compact = _pair(observations, masks)
        nets = (compact.mlp_extractor.policy_net, compact.mlp_extractor.value_net)
        assert (compact_policy.active_first_layers(th.from_numpy(observations), nets) is not None) == active
        assert compact_policy.active_first_layers(th.from_numpy(observations[:8]), nets) is None
        latent = th.zeros(len(masks), compact.action_net.in_features)
        assert (LegalHeadCategorical(latent, compact.action_net, masks)._raw is None) == legal_head


def test_a_compact_run_resumes_from_its_checkpoint(tmp_path):
    """The checkpoint holds MlpPolicy's parameters: a compact run resumes from it and goes on learning."""
    from training_helpers import tiny_config

    from kakurega.agents.training.trainer import train

    config = tiny_config("animal_chain_v1", "ppo", tmp_path / "run", checkpoint={"every": 128, "keep": 1},
                         network={"hidden": [16], "masked_distribution": "compact"})
    assert train(config, quiet=True).timesteps == 256
    assert train(dict(config, total_timesteps=384), resume=True, quiet=True).timesteps == 384


@pytest.mark.parametrize("batch", ["animal_chain_v1", "summer_hide_and_seek_v2 2p", "non-binary inputs"])
def test_a_rollouts_sampling_in_numpy_is_the_compact_distributions(batches, batch):
    """sample_legal (forward without gradient): the distribution's draws, actions and log-probabilities."""
    from kakurega.agents.training.masked_distribution import CompactMaskableCategorical, sample_legal

    _, masks = batches[batch]
    logits = th.randn(masks.shape, generator=th.Generator().manual_seed(5)) * 3
    distribution = CompactMaskableCategorical(logits, masks)
    th.manual_seed(11)
    actions, log_probs = sample_legal(logits, masks)
    state = th.get_rng_state()
    th.manual_seed(11)
    assert th.equal(actions, distribution.sample()) and th.equal(state, th.get_rng_state())
    assert float((log_probs - distribution.log_prob(actions)).abs().max()) < TOLERANCE
    best, best_log_probs = sample_legal(logits, th.from_numpy(masks), deterministic=True)
    assert th.equal(best, distribution.probs.argmax(-1)) and th.equal(th.get_rng_state(), state)  # no draws
    assert float((best_log_probs - distribution.log_prob(best)).abs().max()) < TOLERANCE
    empty = masks.copy()
    empty[-1] = False
    assert sample_legal(logits, empty) is None and sample_legal(logits, empty, deterministic=True) is None


def test_forward_without_gradient_falls_back_for_a_row_without_a_legal_action(batches):
    observations, masks = batches["a row without a legal action"]
    reference, compact = _pair(observations, masks)
    with th.no_grad():
        actions, values, log_prob = compact(th.from_numpy(observations), True, masks)
        their_actions, their_values, their_log_prob = reference(th.from_numpy(observations), True, masks)
    assert th.equal(actions, their_actions)
    assert float((values - their_values).abs().max()) < TOLERANCE
    assert float((log_prob - their_log_prob).abs().max()) < TOLERANCE


def test_an_exported_compact_policy_computes_the_networks_numbers(batches, tmp_path):
    """The policy file of a compact-trained model: its numpy logits and values are the torch network's."""
    import kakurega.agents
    from kakurega.agents.training.export import export_policy

    vec = _vec()
    try:
        model = build_maskable_ppo(vec, "compact", policy_kwargs=dict(net_arch=[32, 32]), n_steps=64, batch_size=128,
                                   n_epochs=1, seed=0)
        model.learn(128)
    finally:
        vec.close()
    agent = kakurega.agents.load(export_policy(model, tmp_path / "policy.safetensors", "animal_chain_v1", {}))
    observations, masks = batches["animal_chain_v1"]
    policy = model.policy
    with th.no_grad():
        obs = th.from_numpy(observations[:32])
        logits = policy.action_net(policy.mlp_extractor.forward_actor(obs)).numpy()
        values = policy.predict_values(obs).numpy().ravel()
    for row in range(32):
        assert np.allclose(agent.outputs(observations[row]), logits[row], atol=1e-5)
        assert abs(agent.value(observations[row]) - values[row]) < 1e-5
        expected, _ = model.predict(observations[row], deterministic=True, action_masks=masks[row])
        assert agent.act({"observation": observations[row], "action_mask": masks[row].astype(np.int8)}) == int(expected)
