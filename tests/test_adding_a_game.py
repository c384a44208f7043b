"""docs/adding_a_game.md stays true: what it names exists, and its worked example works.

The toy game of ``tests/toy_game.py`` is added as the page says: its env module
under ``kakurega.envs``, the page's heuristic and rollout policy as
``kakurega.agents.heuristics.toy``, and the page's registry entry in
``ENV_SPECS``; then the generic machinery (env creation, the conformance
checks, the playthrough writer, the ``heuristic`` agent kind, IS-MCTS with
greedy rollouts, the strength report's config lookup) finds it through the
registry alone.
"""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import toy_game
from conformance import (
    check_copy_continues_identically,
    check_determinism,
    check_leaks,
    check_observations,
    random_states,
    registry_cases,
)

from kakurega.envs import registry

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "adding_a_game.md"


def code_blocks(language: str = "python") -> list[str]:
    """The page's fenced code blocks in ``language``, in order."""
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_files_the_page_names_exist():
    """Every path in backquotes is in the checkout, except the toy game's own new files."""
    named = set(re.findall(r"`((?:envs|agents|scripts|tests|configs|docs)/[\w./*-]*)`", DOC.read_text(encoding="utf-8")))
    assert len(named) > 15, named
    missing = [path for path in sorted(named) if "toy" not in path.replace("toy_game", "") and not (ROOT / path).exists()]
    assert not missing, f"docs/adding_a_game.md names files that do not exist: {missing}"


@pytest.mark.parametrize(
    "module, names",
    [
        ("kakurega.envs.core.game", ["Game", "TERMINAL"]),
        ("kakurega.envs.core.layout", ["ObservationLayout"]),
        ("kakurega.envs.core.aec", ["TurnBasedAECEnv", "wrap"]),
        ("kakurega.envs.registry", ["EnvSpec", "ENV_SPECS"]),
        ("kakurega.agents.base", ["Agent", "AgentContext"]),
        ("leak_checks", ["check_render_leaks"]),
        ("conformance", ["registry_cases"]),
        ("kakurega.scripts.strength_report", ["config_for"]),
    ],
)
def test_the_names_the_page_uses_exist(module, names):
    imported = importlib.import_module(module)
    for name in names:
        assert hasattr(imported, name), f"{module} has no {name}"


def test_the_registry_fields_the_page_explains_exist():
    section = DOC.read_text(encoding="utf-8").split("The fields (each documented in `EnvSpec`)")[1].split("## 7.")[0]
    named = set(re.findall(r"`([a-z_]+)`", section)) - {"heuristic"} | {"heuristic"}
    assert len(named) >= 10, named
    unknown = named - set(registry.EnvSpec.__dataclass_fields__)
    assert not unknown, f"the page explains EnvSpec fields that do not exist: {sorted(unknown)}"


def test_the_layout_on_the_page_is_the_toy_game_code():
    assert code_blocks()[0] in Path(toy_game.__file__).read_text(encoding="utf-8")


def test_the_env_module_on_the_page_declares_what_the_definition_takes():
    """The env-module block's EnvDefinition fields and Option call are the real ones."""
    import dataclasses

    from kakurega.envs.core.definition import EnvDefinition
    from kakurega.envs.core.options import Option

    block = code_blocks()[1]
    fields = {f.name for f in dataclasses.fields(EnvDefinition)}
    used = set(re.findall(r"^    (\w+)=", block, flags=re.M))
    assert used and used <= fields, f"the page declares fields EnvDefinition lacks: {used - fields}"
    assert "DEFINITION.factories(__name__)" in block and hasattr(EnvDefinition, "factories")
    doc = DOC.read_text(encoding="utf-8")
    option_call = re.search(r"`LIMIT_OPTION = (Option\(.*?\))`", doc).group(1)
    assert eval(option_call, {"Option": Option}) == toy_game.LIMIT_OPTION
    with pytest.raises(ValueError, match="limit must be an integer from 4 to 10"):
        toy_game.ToyGame(limit=11)


@pytest.fixture
def toy_registered(monkeypatch):
    """The toy game added as the page says: env module (the page's block, run), heuristic module, registry entry."""
    _layout, env_code, spec_code, heuristic_code = code_blocks()
    for folder_module in re.findall(r"^from (kakurega\.envs\.toy\.\w+) import", env_code, flags=re.M):
        monkeypatch.setitem(sys.modules, folder_module, toy_game)  # tests/toy_game.py holds the folder's code
    env_module = types.ModuleType("kakurega.envs.toy_v0", "Toy env card.")
    monkeypatch.setitem(sys.modules, env_module.__name__, env_module)
    exec(compile(env_code, "docs/adding_a_game.md (envs/toy_v0.py)", "exec"), env_module.__dict__)
    assert env_module.DEFINITION == toy_game.DEFINITION, "the page's env module declares another env than the toy's"
    heuristic_module = types.ModuleType("kakurega.agents.heuristics.toy")
    exec(compile(heuristic_code, "docs/adding_a_game.md (agents/heuristics/toy.py)", "exec"), heuristic_module.__dict__)
    spec = eval(spec_code, {"EnvSpec": registry.EnvSpec})
    monkeypatch.setitem(sys.modules, heuristic_module.__name__, heuristic_module)
    monkeypatch.setitem(registry.ENV_SPECS, spec.name, spec)
    return spec


def test_the_worked_example_runs_through_the_generic_machinery(toy_registered):
    from kakurega.agents.base import AgentContext, choose_action
    from kakurega.agents.ismcts import ISMCTSAgent
    from kakurega.agents.specs import make_agent
    from kakurega.scripts import playthroughs, strength_report

    name = toy_registered.name
    assert any(case.values[0] == name for case in registry_cases())
    factory = lambda: registry.make(name)  # noqa: E731
    check_determinism(factory)
    check_observations(factory)
    check_copy_continues_identically(factory)
    raw = registry.make(name, wrapped=False)
    assert registry.make(name, wrapped=False, limit=5).game.limit == 5  # an option, through the page's declaration
    check_leaks(raw, random_states(raw.game, seed=0, num_games=5, every=1))
    text = playthroughs.play(name, {})
    assert text.startswith(f"# kakurega playthrough: {name} {{}}") and "  action: " in text and "end after" in text
    assert strength_report.config_for(name) == ROOT / "configs" / "toy_ppo.yaml"

    env = registry.make(name)
    context = AgentContext.from_env(env, name)
    heuristic = make_agent("heuristic", context, seed=0)
    assert type(heuristic).__name__ == "ToyHeuristic"
    search = ISMCTSAgent(context, 1, simulations=20, rollout="greedy", prior="greedy", bias=1.0)
    players = {"player_0": heuristic, "player_1": search, "player_2": make_agent("random", context, seed=2)}
    env.reset(seed=3)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose_action(players[agent], env, agent)
        assert observation["action_mask"][action]
        if agent == "player_0":  # the heuristic's rule: never reach 10 when a smaller step avoids it
            total = env.unwrapped.game_state.total
            if any(total + a + 1 < 10 for a in np.flatnonzero(observation["action_mask"])):
                assert total + action + 1 < 10
        env.step(action)


# ------------------------------------------------------------------ no game lists
def game_lists(text: str, games: list[str]) -> list[str]:
    """Where ``text`` lists games: each line naming two or more, or the whole text when it names three or more."""
    pattern = re.compile("|".join(re.escape(game) for game in games))
    found = [line.strip() for line in text.splitlines() if len(set(pattern.findall(line))) >= 2]
    named = set(pattern.findall(text))
    if len(named) >= 3:
        found.append(f"names {len(named)} games: {', '.join(sorted(named))}")
    return found


def generic_files() -> list[Path]:
    """Modules and tests that serve every game: they find games through the registry."""
    games = {name.rpartition("_v")[0] for name in registry.ENV_SPECS}
    files = [*(ROOT / "agents").glob("*.py"), *(ROOT / "agents" / "training").glob("*.py"),
             *(ROOT / "envs" / "core").glob("*.py"), *(ROOT / "scripts").glob("*.py"),
             *(ROOT / "integrations").glob("*.py"), *(ROOT / "tests").glob("*.py")]
    # the game policies themselves, and scripts about one game (scripts/balance_<game>.py)
    return [path for path in files
            if path.name != "rollouts.py" and not any(game in path.stem for game in games)]


def test_generic_code_and_tests_list_no_games():
    games = sorted({name.rpartition("_v")[0] for name in registry.ENV_SPECS})
    assert game_lists(f"CASES = [{games[0]!r}, {games[1]!r}]", games), "control: a one-line list is caught"
    assert game_lists("\n".join(games[:3]), games), "control: a list over three lines is caught"
    found = {str(path.relative_to(ROOT)): lists for path in generic_files()
             if (lists := game_lists(path.read_text(encoding="utf-8"), games))}
    assert not found, f"generic modules list games (find them through the registry instead): {found}"
