"""kakurega environments: PettingZoo AEC envs for four hidden-information tabletop games.

>>> from kakurega.envs import kakurenbo_v0, list_envs, make
>>> env = kakurenbo_v0.env(variant="kurayami", num_players=4)
"""

from kakurega.envs.registry import ENV_SPECS, EnvSpec, get_spec, list_envs, make, register_with_pettingzoo

register_with_pettingzoo()

__all__ = ["ENV_SPECS", "EnvSpec", "get_spec", "list_envs", "make"]
