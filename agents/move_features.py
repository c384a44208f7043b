"""Move features: extra network inputs that a game computes from the observation alone.

A game may declare, in its registry entry (``EnvSpec.move_features``,
``"module:Class"``), a class that turns one observation dict into a fixed
number of floats in [0, 1]: what its heuristic measures about each action
(Hidden Rooms: where a move leaves the child when the monster has moved, how
far the exit is through the darkness; see
:class:`~kakurega.agents.heuristics.hidden_rooms.HiddenRoomsMoveFeatures`).
A network trained with ``network.move_features: true`` reads them after the
observation vector; its policy file lists ``inputs: ["observation",
"move_features"]`` and ``move_features_size``, and loading it rebuilds the
features from the game's class, so nothing in the file is executed.

The class is built from an :class:`~kakurega.agents.base.AgentContext` and
is called with the observation dict of the seat that acts; it reads nothing
else, so the features hold no more than that seat's observation does
(``tests/test_move_features.py`` checks this for every game that has them).
"""

from __future__ import annotations

import importlib

import numpy as np

#: the name of the features among a policy file's ``inputs``
INPUT = "move_features"


def features_class_path(env_name: str) -> str:
    """``"module:Class"`` of the env's move features ("" when the game has none)."""
    from kakurega.envs.registry import ENV_SPECS

    spec = ENV_SPECS.get(env_name)
    return spec.move_features if spec is not None else ""


class MoveFeatures:
    """The move features of one env for one player: ``size`` floats per observation dict."""

    def __init__(self, context):
        path = features_class_path(context.env_name)
        if not path:
            raise ValueError(
                f"{context.env_name} declares no move features (EnvSpec.move_features); "
                "set network.move_features: false"
            )
        module, _, name = path.partition(":")
        self._compute = getattr(importlib.import_module(module), name)(context)
        self.size = int(self._compute.size)
        #: numbers per action when the features are one row per action (what ``network.feature_head`` needs), else None
        per_action = getattr(self._compute, "PER_ACTION", None)
        self.per_action = per_action if per_action and self.size == context.num_actions * per_action else None

    def __call__(self, observation: dict) -> np.ndarray:
        values = np.asarray(self._compute(observation), dtype=np.float32)
        if values.shape != (self.size,):
            raise ValueError(f"move features of shape {values.shape}; expected ({self.size},)")
        return values


def legal_rows(observation: dict, num_actions: int, per_action: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-action feature rows to fill, and the legal actions: ``num_actions`` rows of ``per_action``
    zeros (float32), column 0 set to 1 on the legal actions' rows."""
    rows = np.zeros((num_actions, per_action), dtype=np.float32)
    legal = np.flatnonzero(observation["action_mask"])
    rows[legal, 0] = 1
    return rows, legal
