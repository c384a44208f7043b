"""Training kakurega bots with stable-baselines3.

Light to import: torch and SB3 load only when training actually starts.

- :class:`~kakurega.agents.training.view.SingleAgentView` — any env as a gymnasium env for one seat
- :class:`~kakurega.agents.training.league.OpponentPool` — the self-play league's opponents
- :mod:`~kakurega.agents.training.config` — YAML configs, validated
- :func:`~kakurega.agents.training.trainer.train` — run a config (MaskablePPO or MaskedDQN)
- :mod:`~kakurega.agents.training.masked_dqn` — DQN with action masking
- :func:`~kakurega.agents.training.export.export_policy` — SB3 model -> policy file
- :func:`~kakurega.agents.training.trainer.game_ends` — an SB3 vec env of the views whose games cut off at their
  limit are not bootstrapped (for your own SB3 loop)
"""

from kakurega.agents.training.league import OpponentPool
from kakurega.agents.training.view import SingleAgentView

_LAZY = {
    "train": "trainer",
    "TrainResult": "trainer",
    "game_ends": "trainer",
    "export_policy": "export",
    "policy_metadata": "export",
    "policy_from_model": "export",
    "MaskedDQN": "masked_dqn",
    "load_config": "config",
    "ConfigError": "config",
}


def __getattr__(name):
    # heavy pieces (torch, SB3) are imported on first use only
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"kakurega.agents.training.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'kakurega.agents.training' has no attribute {name!r}")


__all__ = [
    "OpponentPool",
    "SingleAgentView",
    "train",
    "game_ends",
    "export_policy",
    "policy_metadata",
    "MaskedDQN",
    "load_config",
    "ConfigError",
]
