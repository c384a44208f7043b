"""kakurega environments: PettingZoo AEC envs for four hidden-information tabletop games.

>>> from kakurega.envs import kakurenbo_v0, list_envs, make
>>> env = kakurenbo_v0.env(variant="kurayami", num_players=4)
"""

# First of all: compiled modules (setup.py) are used only when they are not
# older than their source, and never under KAKUREGA_PURE_PYTHON=1.
from kakurega.envs import compiled as _compiled

_compiled.install()

from kakurega.envs.registry import ENV_SPECS, EnvSpec, get_spec, list_envs, make, register_with_pettingzoo  # noqa: E402

register_with_pettingzoo()

# The single-agent game also exists as a Gymnasium env; a string entry point
# registers it without importing the module.
import gymnasium as _gymnasium  # noqa: E402

if "kakurega/HiddenRooms-v0" not in _gymnasium.registry:
    _gymnasium.register("kakurega/HiddenRooms-v0", entry_point="kakurega.envs.hidden_rooms_v0:HiddenRoomsGymEnv")

__all__ = ["ENV_SPECS", "EnvSpec", "get_spec", "list_envs", "make"]
