"""kakurega environments: PettingZoo AEC envs for four hidden-information tabletop games.

>>> from kakurega.envs import kakurenbo_v1, list_envs, make
>>> env = kakurenbo_v1.env(variant="kurayami", num_players=4)
"""

# First of all: compiled modules (setup.py) are used only when they are not
# older than their source, and never under KAKUREGA_PURE_PYTHON=1.
from kakurega.envs import compiled as _compiled

_compiled.install()

from kakurega.envs.registry import (  # noqa: E402
    ENV_SPECS,
    EnvSpec,
    get_spec,
    list_envs,
    make,
    register_with_gymnasium,
    register_with_pettingzoo,
)

register_with_pettingzoo()
register_with_gymnasium()

__all__ = ["ENV_SPECS", "EnvSpec", "get_spec", "list_envs", "make"]
