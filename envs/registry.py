"""The one registry of kakurega environments.

Each entry names the env module (which provides ``env``, ``raw_env`` and a
module docstring that is the env card), its PettingZoo registry id, the
heuristic agent shipped for it, and the configurations that tests and
benchmarks sweep. Importing ``kakurega.envs`` registers every entry with
PettingZoo's registry, so ``pettingzoo.make("aec", "kakurega/kakurenbo-v0")``
works (PettingZoo releases without a registry are skipped), and with
Gymnasium's: the same id names the env's single-seat view
(:class:`~kakurega.agents.training.view.SingleAgentView`, flat ``Box``
observations, random opponents unless ``opponents=`` says otherwise), and
``gymnasium_envs`` adds dedicated single-agent envs. In a fresh process (a
worker, a remote env runner) ``gymnasium.make("kakurega.envs:kakurega/kakurenbo-v0")``
imports ``kakurega.envs`` first, so the ids are found.
"""

from __future__ import annotations

import importlib
import inspect
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
    #: dedicated single-agent Gymnasium envs of the game: ``{id: "module:Class"}``
    gymnasium_envs: dict = field(default_factory=dict)
    #: "module:function" of the game's cheap rollout policy for IS-MCTS (``rollout=greedy``,
    #: ``prior=greedy``; see :mod:`kakurega.agents.rollouts`); "" when the game has none
    rollout: str = ""
    #: IS-MCTS options (besides ``simulations``) that play this env best: the default of the search
    #: strength report (``kakurega.scripts.strength_ismcts``), e.g. ``"rollout=greedy,widen=1"``
    search_options: str = ""
    #: options of a short game that pays at its end, for search tests and reports ({}: the defaults)
    search_config: dict = field(default_factory=dict)
    #: the env's default PPO training config, relative to the source checkout ("" when none)
    train_config: str = ""
    #: "module:Class" of the game's move features, extra network inputs computed from the observation
    #: alone (``network.move_features``; see :mod:`kakurega.agents.move_features`); "" when none
    move_features: str = ""
    #: "module:Class" of the game's mixed play: decisions a policy with ``mix`` on draws from a mixed strategy
    #: instead of its network (see :mod:`kakurega.agents.mixed_play`); "" when the game has none
    mixed_play: str = ""

    @property
    def module(self) -> str:
        """Import path of the env module."""
        return f"kakurega.envs.{self.name}"

    def load(self):
        """The env module itself."""
        return importlib.import_module(self.module)

    def definition(self):
        """The env module's :class:`~kakurega.envs.core.definition.EnvDefinition` (None for a module without one)."""
        return getattr(self.load(), "DEFINITION", None)

    def file_options(self) -> dict:
        """Each option that names a data file (``Option.names_a_file``), with its loader (``Option.loader``)."""
        definition = self.definition()
        if definition is None:
            return {}
        return {option.name: option.loader for option in definition.all_options if option.names_a_file}

    def file_fits(self) -> tuple:
        """The pairs of file options whose files must suit each other (``EnvDefinition.file_fits``; see
        :class:`~kakurega.envs.core.options.FileFit`)."""
        definition = self.definition()
        return () if definition is None else definition.file_fits

    def option_defaults(self) -> dict:
        """Every game option at its default (render options left out), read without building an env.

        From the module's declaration; a module written without one (a test's
        toy env) is read from its ``raw_env`` signature.
        """
        definition = self.definition()
        if definition is not None:
            return definition.defaults()
        parameters = inspect.signature(self.load().raw_env).parameters.values()
        return {p.name: p.default for p in parameters
                if p.default is not p.empty and p.name not in ("render_mode", "render_view")}


ENV_SPECS: dict[str, EnvSpec] = {
    spec.name: spec
    for spec in (
        EnvSpec(
            name="kakurenbo_v1",
            pettingzoo_id="kakurega/kakurenbo-v1",
            summary="KAKURENBO: Old Maid with body-part pairs, variants kakurenbo and kurayami, 3-5 players "
            "(zero-sum rewards)",
            heuristic="kakurega.agents.heuristics.kakurenbo:KakurenboHeuristic",
            configurations=tuple(
                {"variant": v, "num_players": n} for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)
            ),
            rollout="kakurega.agents.rollouts:kakurenbo",
            train_config="configs/kakurenbo_ppo.yaml",
            move_features="kakurega.agents.heuristics.kakurenbo:KakurenboMoveFeatures",
        ),
        EnvSpec(
            name="hidden_rooms_v0",
            pettingzoo_id="kakurega/hidden_rooms-v0",
            summary="Hidden Rooms: solitaire escape from a monster through a room revealed tile by tile",
            heuristic="kakurega.agents.heuristics.hidden_rooms:HiddenRoomsHeuristic",
            configurations=({}, {"episode": "round"}),
            gymnasium_envs={"kakurega/HiddenRooms-v0": "kakurega.envs.hidden_rooms_v0:HiddenRoomsGymEnv"},
            rollout="kakurega.agents.rollouts:hidden_rooms",
            search_options="rollout=greedy",
            search_config={"episode": "round"},
            train_config="configs/hidden_rooms_ppo.yaml",
            move_features="kakurega.agents.heuristics.hidden_rooms:HiddenRoomsMoveFeatures",
        ),
        EnvSpec(
            name="animal_chain_v0",
            pettingzoo_id="kakurega/animal_chain-v0",
            summary="Animal Chain v0 (superseded by v1): 2-player race to connect animal cards onto the opponent's base",
            heuristic="kakurega.agents.heuristics.animal_chain:AnimalChainHeuristic",
            configurations=({}, {"attack_rule": "reach"}),
            turn_order_leak="the first player takes one decision per base swap plus one while the other watches, "
            "so the number of swaps shows",
            rollout="kakurega.agents.rollouts:animal_chain",
            search_options="rollout=greedy,prior=greedy,bias=1,widen=1",
        ),
        EnvSpec(
            name="summer_hide_and_seek_v2",
            pettingzoo_id="kakurega/summer_hide_and_seek-v2",
            summary="Summer Diary Day 3 Hide-and-Seek: one secret hider draws a stroke, seekers guess, 2-4 players "
            "(zero-sum rewards; the child must move; the turn order hides its lines)",
            heuristic="kakurega.agents.heuristics.summer_hide_and_seek:SummerHideAndSeekHeuristic",
            configurations=tuple({"num_players": n} for n in (2, 3, 4)),
            rollout="kakurega.agents.rollouts:summer_hide_and_seek",
            search_options="rollout=greedy,prior=greedy,bias=1,widen=1",
            move_features="kakurega.agents.heuristics.summer_features:SummerMoveFeatures",
            mixed_play="kakurega.agents.heuristics.summer_mixed:SummerMixedChild",
            train_config="configs/summer_hide_and_seek_ppo.yaml",
        ),
        EnvSpec(
            name="animal_chain_v1",
            pettingzoo_id="kakurega/animal_chain-v1",
            summary="Animal Chain v1: 2-player race to chain animal cards from the own base onto the opponent's",
            heuristic="kakurega.agents.heuristics.animal_chain:AnimalChainHeuristic",
            configurations=({}, {"attack_rule": "reach"}, {"connection_rule": "any"}),
            rollout="kakurega.agents.rollouts:animal_chain",
            search_options="rollout=greedy,prior=greedy,bias=1,widen=1",
            train_config="configs/animal_chain_ppo.yaml",
            move_features="kakurega.agents.heuristics.animal_chain:AnimalChainMoveFeatures",
        ),
        EnvSpec(
            name="kakurenbo_v0",
            pettingzoo_id="kakurega/kakurenbo-v0",
            summary="KAKURENBO, version 0 (superseded by v1: a tie at the top pays like a win)",
            heuristic="kakurega.agents.heuristics.kakurenbo:KakurenboHeuristic",
            configurations=tuple(
                {"variant": v, "num_players": n} for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)
            ),
            rollout="kakurega.agents.rollouts:kakurenbo",
            move_features="kakurega.agents.heuristics.kakurenbo:KakurenboMoveFeatures",
        ),
        EnvSpec(
            name="summer_hide_and_seek_v1",
            pettingzoo_id="kakurega/summer_hide_and_seek-v1",
            summary="Summer Diary Day 3 Hide-and-Seek, version 1 (superseded by v2: a tie pays like a win)",
            heuristic="kakurega.agents.heuristics.summer_hide_and_seek:SummerHideAndSeekHeuristic",
            configurations=tuple({"num_players": n} for n in (2, 3, 4)),
            rollout="kakurega.agents.rollouts:summer_hide_and_seek",
            search_options="rollout=greedy,prior=greedy,bias=1,widen=1",
            move_features="kakurega.agents.heuristics.summer_features:SummerMoveFeatures",
            mixed_play="kakurega.agents.heuristics.summer_mixed:SummerMixedChild",
        ),
        EnvSpec(
            name="summer_hide_and_seek_v0",
            pettingzoo_id="kakurega/summer_hide_and_seek-v0",
            summary="Summer Diary Day 3 Hide-and-Seek, version 0 (superseded by v1: stalling child, turn order shows its lines)",
            heuristic="kakurega.agents.heuristics.summer_hide_and_seek:SummerHideAndSeekHeuristic",
            configurations=tuple({"num_players": n} for n in (2, 3, 4)),
            turn_order_leak="the child is selected once per line it draws plus once to stop, so the seekers learn "
            "how many lines were drawn; the step limit cuts the game off at a moment that depends on it",
            rollout="kakurega.agents.rollouts:summer_hide_and_seek",
            search_options="rollout=greedy,prior=greedy,bias=1,widen=1",
            move_features="kakurega.agents.heuristics.summer_features:SummerMoveFeatures",
            mixed_play="kakurega.agents.heuristics.summer_mixed:SummerMixedChild",
        ),
    )
}


def list_envs() -> list[str]:
    """Names of every registered env, in registration order, e.g. ``["kakurenbo_v1", "hidden_rooms_v0", ...]``
    (:func:`latest_version` gives a game's newest version)."""
    return list(ENV_SPECS)


def _game_and_version(name: str) -> tuple[str, int]:
    """``"animal_chain_v1"`` -> ``("animal_chain", 1)``."""
    game, _, version = name.rpartition("_v")
    return game, int(version)


def latest_version(game: str) -> str | None:
    """The newest registered version of ``game`` (e.g. ``"animal_chain"`` -> ``"animal_chain_v1"``), or None."""
    versions = [spec for spec in ENV_SPECS if _game_and_version(spec)[0] == game]
    return max(versions, key=lambda spec: _game_and_version(spec)[1], default=None)


def latest_envs() -> list[str]:
    """The newest registered version of every game, in registry order (older versions stay registered)."""
    return [name for name in ENV_SPECS if latest_version(_game_and_version(name)[0]) == name]


def get_spec(name: str) -> EnvSpec:
    """The :class:`EnvSpec` of ``name`` (module name or PettingZoo id)."""
    for spec in ENV_SPECS.values():
        if name in (spec.name, spec.pettingzoo_id):
            return spec
    newest = latest_version(name) if isinstance(name, str) else None  # a game's name: its versions are envs
    hint = f"; did you mean {newest!r}, the game's newest version?" if newest else ""
    raise ValueError(f"unknown env {name!r}{hint}; registered envs: {', '.join(ENV_SPECS)}")


def make(name: str, wrapped: bool = True, **kwargs):
    """Create env ``name``: ``env(**kwargs)`` (standard wrappers) or ``raw_env(**kwargs)``."""
    module = get_spec(name).load()
    return module.env(**kwargs) if wrapped else module.raw_env(**kwargs)


def register_with_pettingzoo() -> bool:
    """Register every env in PettingZoo's AEC registry (idempotent); False when PettingZoo has none.

    PettingZoo's registry (``pettingzoo.aec_registry``) exists from release
    1.27 on; with an older PettingZoo (some libraries pin one) the envs work
    the same through ``kakurega.envs.make`` and the env modules.
    """
    import pettingzoo

    registry, register = getattr(pettingzoo, "aec_registry", None), getattr(pettingzoo, "register", None)
    if registry is None or register is None:
        return False
    for spec in ENV_SPECS.values():
        if spec.pettingzoo_id not in registry:
            register("aec", spec.pettingzoo_id, entry_point=f"{spec.module}:env")
    return True


def register_with_gymnasium() -> None:
    """Register every env's single-seat view and each ``gymnasium_envs`` entry with Gymnasium (idempotent).

    Entry points are strings, so nothing is imported until ``gymnasium.make``.
    """
    import gymnasium

    for spec in ENV_SPECS.values():
        if spec.pettingzoo_id not in gymnasium.registry:
            gymnasium.register(
                spec.pettingzoo_id,
                entry_point="kakurega.agents.training.view:SingleAgentView",
                kwargs={"env_name": spec.name},
            )
        for env_id, entry_point in spec.gymnasium_envs.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point=entry_point)
