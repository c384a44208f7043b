"""PLACEHOLDER"""

from __future__ import annotations

from kakurega.envs.animal_chain.observation import AnimalChainObserver
from kakurega.envs.animal_chain.render import AnimalChainRenderer
from kakurega.envs.animal_chain.rules import DEFAULT_ATTACK_RULE, DEFAULT_MAX_TURNS, AnimalChainGame
from kakurega.envs.animal_chain_v0 import check_options
from kakurega.envs.core.aec import TurnBasedAECEnv, wrap

OPTIONS = ("deck", "shape", "max_turns", "attack_rule", "connection_rule", "render_mode", "render_view")
#: the chain rule (the rules page's [decision, v1]); see "Balance"
DEFAULT_CONNECTION_RULE = "chain"


def raw_env(
    deck=None,
    shape=None,
    max_turns: int = DEFAULT_MAX_TURNS,
    attack_rule: str = DEFAULT_ATTACK_RULE,
    connection_rule: str = DEFAULT_CONNECTION_RULE,
    render_mode: str | None = None,
    render_view: str | None = None,
) -> TurnBasedAECEnv:
    """The unwrapped Animal Chain v1 env (options: see the env card)."""
    check_options(deck, shape, max_turns)
    # AnimalChainGame checks attack_rule and connection_rule (TypeError / ValueError naming them and the allowed values)
    game = AnimalChainGame(
        deck=deck, shape=shape, max_turns=max_turns, attack_rule=attack_rule,
        connection_rule=connection_rule, building="per_position",
    )
    observer = AnimalChainObserver(game)
    renderer = AnimalChainRenderer(game)
    env = TurnBasedAECEnv(
        game,
        observer.layout,
        observer.encode,
        renderer.render_text,
        render_mode=render_mode,
        render_view=render_view,
    )
    env.metadata = {**env.metadata, "name": "animal_chain_v1"}
    return env


def env(**kwargs):
    """Animal Chain v1 in the standard PettingZoo wrappers (options: see the env card)."""
    return wrap(raw_env(**kwargs))
