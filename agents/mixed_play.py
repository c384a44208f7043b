"""Mixed play: decisions a policy draws from its game's mixed strategy instead of its network.

A network played greedily is a deterministic function of what it sees. In a
game without chance a best response learns its exact moves and counters them
in every game; where the network's role is to keep a secret (a hider's
square), that is fatal whatever the network learnt. A game may declare, in
its registry entry (``EnvSpec.mixed_play``, ``"module:Class"``), a class that
plays such decisions as a mixed strategy: built from the seat's
:class:`~kakurega.agents.base.AgentContext`, its ``act(observation, rng)``
returns an action for the decisions it takes (drawn from ``rng``, the agent's
generator) and None for the others (the network's), and ``reset()`` starts a
new game. It reads the seat's observation only.

A :class:`~kakurega.agents.policy.PolicyAgent` uses it when its file says
``mix: true`` (written by training with the config key ``mix``) or its spec
says ``mix=true``; ``mix=false`` plays the network alone. Summer
Hide-and-Seek's child is the one so far
(:class:`~kakurega.agents.heuristics.summer_mixed.SummerMixedChild`).
"""

from __future__ import annotations


def mixed_play_path(env_name: str) -> str:
    """``"module:Class"`` of the env's mixed play ("" when the game has none)."""
    from kakurega.envs.registry import ENV_SPECS

    spec = ENV_SPECS.get(env_name)
    return spec.mixed_play if spec is not None else ""


def mixed_play(context):
    """The env's mixed play for one seat (ValueError when the game declares none or it cannot be loaded)."""
    from kakurega.agents.specs import _load_entry

    path = mixed_play_path(context.env_name)
    if not path:
        raise ValueError(f"{context.env_name} declares no mixed play (EnvSpec.mixed_play); mix=true is for games "
                         "that do")
    return _load_entry(context.env_name, "mixed play", path)(context)
