"""The one registry of kakurega environments.

Each entry names the env module (which provides ``env``, ``raw_env`` and a
module docstring that is the env card), its PettingZoo registry id, the
heuristic agent shipped for it, and the configurations that tests and
benchmarks sweep. Importing ``kakurega.envs`` registers every entry with
PettingZoo's registry, so ``pettingzoo.make("aec", "kakurega/kakurenbo-v0")``
works.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class EnvSpec:
    """What the project knows about one environment."""

    name: str  #: module name, e.g. "kakurenbo_v0"
    pettingzoo_id: str  #: id in PettingZoo's registry
    summary: str
    heuristic: str  #: "module:Class" of the game's heuristic agent
    #: option sets swept by conformance tests and benchmarks (kwargs of env())
    configurations: tuple[dict, ...] = field(default_factory=lambda: ({},))
    #: how the order of turns (or the moment the game ends) reveals private facts, for a v0
    #: env that keeps such a leak and names it in its card; "" when the turns show public facts only
    turn_order_leak: str = ""

    @property
    def module(self) -> str:
        """Import path of the env module."""
        return f"kakurega.envs.{self.name}"

    def load(self):
        """The env module itself."""
        return importlib.import_module(self.module)


ENV_SPECS: dict[str, EnvSpec] = {
    spec.name: spec
    for spec in (
        EnvSpec(
            name="kakurenbo_v0",
            pettingzoo_id="kakurega/kakurenbo-v0",
            summary="KAKURENBO: Old Maid with body-part pairs, variants kakurenbo and kurayami, 3-5 players",
            heuristic="kakurega.agents.heuristics.kakurenbo:KakurenboHeuristic",
            configurations=tuple(
                {"variant": v, "num_players": n} for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)
            ),
        ),
        EnvSpec(
            name="hidden_rooms_v0",
            pettingzoo_id="kakurega/hidden_rooms-v0",
            summary="Hidden Rooms: solitaire escape from a monster through a room revealed tile by tile",
            heuristic="kakurega.agents.heuristics.hidden_rooms:HiddenRoomsHeuristic",
            configurations=({}, {"episode": "round"}),
        ),
        EnvSpec(
            name="animal_chain_v0",
            pettingzoo_id="kakurega/animal_chain-v0",
            summary="Animal Chain: 2-player race to connect animal cards onto the opponent's base",
            heuristic="kakurega.agents.heuristics.animal_chain:AnimalChainHeuristic",
            configurations=({}, {"attack_rule": "reach"}),
            turn_order_leak="the first player takes one decision per base swap plus one while the other watches, "
            "so the number of swaps shows",
        ),
        EnvSpec(
            name="summer_hide_and_seek_v0",
            pettingzoo_id="kakurega/summer_hide_and_seek-v0",
            summary="Summer Diary Day 3 Hide-and-Seek: one secret hider draws a stroke, seekers guess, 2-4 players",
            heuristic="kakurega.agents.heuristics.summer_hide_and_seek:SummerHideAndSeekHeuristic",
            configurations=tuple({"num_players": n} for n in (2, 3, 4)),
            turn_order_leak="the child is selected once per line it draws plus once to stop, so the seekers learn "
            "how many lines were drawn; the step limit cuts the game off at a moment that depends on it",
        ),
    )
}


def list_envs() -> list[str]:
    """Names of every registered env, e.g. ``["kakurenbo_v0", ...]``."""
    return list(ENV_SPECS)


def get_spec(name: str) -> EnvSpec:
    """The :class:`EnvSpec` of ``name`` (module name or PettingZoo id)."""
    for spec in ENV_SPECS.values():
        if name in (spec.name, spec.pettingzoo_id):
            return spec
    raise ValueError(f"unknown env {name!r}; registered envs: {', '.join(ENV_SPECS)}")


def make(name: str, wrapped: bool = True, **kwargs):
    """Create env ``name``: ``env(**kwargs)`` (standard wrappers) or ``raw_env(**kwargs)``."""
    module = get_spec(name).load()
    return module.env(**kwargs) if wrapped else module.raw_env(**kwargs)


def register_with_pettingzoo() -> None:
    """Register every env in PettingZoo's AEC registry (idempotent)."""
    import pettingzoo

    for spec in ENV_SPECS.values():
        if spec.pettingzoo_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", spec.pettingzoo_id, entry_point=f"{spec.module}:env")
