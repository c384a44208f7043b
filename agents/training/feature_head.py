"""The feature head (``network.feature_head``): each action also scored by a linear function of its own move features.

With ``network.move_features`` alone the game's per-action measurements are
extra inputs of the MLP, which must learn, action by action, which inputs
belong to which output: fine for Hidden Rooms' 17 actions, hopeless for
Animal Chain's 1,269. The feature head instead gives every action the same
learned weights ``w`` over its own row of features (``num_actions x
per_action``, as :mod:`kakurega.agents.move_features` lays them out):

    logits = MLP(observation) + features.reshape(num_actions, per_action) @ w

so one weight per measurement is learned from every action's example (a
heuristic that scores moves by a weighted sum of such measurements is one
setting of ``w``), and the MLP, which reads the observation only, learns
what the measurements miss. The critic reads the observation only.

:class:`SplitObservation` hands the MLP the observation part of the view's
``[observation | move features]`` vector and keeps the features for the
head of the same forward pass; :class:`FeatureHeadPolicy` adds the head to
sb3-contrib's ``MaskableActorCriticPolicy``. A policy file stores ``w`` as
``network.feature_head`` (a list of numbers in the metadata); the numpy
forward pass (:class:`~kakurega.agents.policy.PolicyAgent`) adds the same
term.
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

#: the head learns its weights in units of this many logits: Adam moves a parameter by about the learning rate
#: a step, so an imitation of a few hundred steps could not otherwise reach weights the size of a heuristic's
HEAD_SCALE = 10.0


class SplitObservation(BaseFeaturesExtractor):
    """The first ``observation_size`` numbers for the MLP; the rest (the move features) kept for the head."""

    def __init__(self, observation_space, observation_size: int):
        super().__init__(observation_space, features_dim=observation_size)
        self.observation_size = observation_size
        self.move_features: th.Tensor | None = None

    def forward(self, observations: th.Tensor) -> th.Tensor:
        observations = observations.flatten(1)
        self.move_features = observations[:, self.observation_size :]
        return observations[:, : self.observation_size]


class FeatureHeadPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy plus a linear score of each action's own move features (shared weights)."""

    def __init__(self, *args, per_action: int, **kwargs):
        self.per_action = per_action
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        # before the optimizer is made (in MaskableActorCriticPolicy._build), so that it trains the head too
        self.feature_head = th.nn.Parameter(th.zeros(self.per_action))
        super()._build(lr_schedule)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "per_action": self.per_action}

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor):
        logits = self.action_net(latent_pi)
        extractor = self.pi_features_extractor if not self.share_features_extractor else self.features_extractor
        features = extractor.move_features.reshape(logits.shape[0], logits.shape[1], self.per_action)
        return self.action_dist.proba_distribution(action_logits=logits + features @ (HEAD_SCALE * self.feature_head))

    def head_weights(self) -> list[float]:
        """The weights the head applies to each measurement (what a policy file stores)."""
        return [float(w) for w in (HEAD_SCALE * self.feature_head).detach().cpu().numpy()]
