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

Features are versioned so that a network keeps reading what it was trained
on: a class that has grown declares ``VERSIONS`` (newest last) and takes
``version=``; training uses the newest, a policy file records it as
``move_features_version`` (absent: 0) and loading it rebuilds that version.

A class may also offer ``dominated(observation)``: a mask of the actions that
another legal action beats whatever happens, proved from the rules and the
seat's observation alone (KAKURENBO: every move but a sure sole win, or a
sure loss beside a move that is not one; Summer: every placement but a sure
find, or a line that leaves the child stuck beside a free choice with as
many VP). A
:class:`~kakurega.agents.policy.PolicyAgent` never plays those unless asked
to (``prune=false``).
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import legal_ids

#: the name of the features among a policy file's ``inputs``
INPUT = "move_features"


def features_class_path(env_name: str) -> str:
    """``"module:Class"`` of the env's move features ("" when the game has none)."""
    from kakurega.envs.registry import ENV_SPECS

    spec = ENV_SPECS.get(env_name)
    return spec.move_features if spec is not None else ""


def proves_dominance(env_name: str, env_kwargs: dict | None = None) -> bool:
    """Whether the env's move features prove moves dominated under these options (default: the env's own): what a
    policy's default pruning (``prune``) removes, with or without training. A features class whose proofs hold
    only under some options says which by ``proves_dominance(game)`` (a static method given the rules)."""
    if not features_class_path(env_name):
        return False
    features = _features_class(env_name)
    if not callable(getattr(features, "dominated", None)):
        return False
    ask = getattr(features, "proves_dominance", None)
    if ask is None:
        return True
    from kakurega.envs.registry import make

    return bool(ask(make(env_name, wrapped=False, **(env_kwargs or {})).game))


def _features_class(env_name: str):
    """The env's move-features class (ValueError when it declares none)."""
    from kakurega.agents.specs import _load_entry

    path = features_class_path(env_name)
    if not path:
        raise ValueError(f"{env_name} declares no move features (EnvSpec.move_features); set network.move_features: false")
    return _load_entry(env_name, "move features", path)


def newest_version(env_name: str) -> int:
    """The newest version of the env's move features (0 for a class that declares no versions)."""
    return int(getattr(_features_class(env_name), "VERSIONS", (0,))[-1])


class MoveFeatures:
    """The move features of one env for one player: ``size`` floats per observation dict.

    ``version``: which version of the game's features (None: the newest; see the module docstring).
    """

    def __init__(self, context, version: int | None = None):
        cls = _features_class(context.env_name)
        versions = tuple(getattr(cls, "VERSIONS", (0,)))
        self.version = versions[-1] if version is None else version
        if isinstance(self.version, bool) or self.version not in versions:
            raise ValueError(f"{context.env_name} computes move features of versions {list(versions)}, "
                             f"not {version!r}")
        self._compute = cls(context, version=self.version) if hasattr(cls, "VERSIONS") else cls(context)
        self.size = int(self._compute.size)
        #: numbers per action when the features are one row per action (what ``network.feature_head`` needs), else None
        per_action = getattr(self._compute, "PER_ACTION", None)
        self.per_action = per_action if per_action and self.size == context.num_actions * per_action else None

    def dominated(self, observation: dict) -> np.ndarray | None:
        """The actions another legal action surely beats (a mask, never every legal action), or None when the
        game proves none (see the module docstring)."""
        find = getattr(self._compute, "dominated", None)
        return None if find is None else find(observation)

    def __call__(self, observation: dict) -> np.ndarray:
        values = np.asarray(self._compute(observation), dtype=np.float32)
        if values.shape != (self.size,):
            raise ValueError(f"move features of shape {values.shape}; expected ({self.size},)")
        return values


def legal_rows(observation: dict, num_actions: int, per_action: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-action feature rows to fill, and the legal actions: ``num_actions`` rows of ``per_action``
    zeros (float32), column 0 set to 1 on the legal actions' rows."""
    rows = np.zeros((num_actions, per_action), dtype=np.float32)
    legal = legal_ids(observation["action_mask"])
    rows[legal, 0] = 1
    return rows, legal
