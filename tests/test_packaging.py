"""The wheel ships every package of the checkout, and every registered env runs from it.

The package list is computed by setup.py (no hand-kept list), so a new game's
folder must reach the wheel by itself. The test builds a pure-Python wheel
from a copy of the working tree (no network: no build isolation, no
dependencies), unpacks it, and in a fresh interpreter that sees the unpacked
wheel and the installed dependencies (the site-packages folders, added as
plain paths), but not this checkout (``python -S``: the editable install's
``.pth`` hook is not run), imports and plays every registered env.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what a build does not need from the checkout (environments, build products, runs)
NOT_COPIED = (".git", ".venv*", "build", "dist", "runs", "*.egg-info", "__pycache__", "*.so", "*.c", ".pytest_cache")

PLAY_EVERY_ENV = """
import json, sys
unpacked, site_packages = sys.argv[1], json.loads(sys.argv[2])
sys.path[:0] = [unpacked]
sys.path += site_packages
import numpy as np
import kakurega.envs
from kakurega.agents.specs import load_heuristic_class
from kakurega.agents.specs import load_rollout_policy
from kakurega.envs.registry import ENV_SPECS, make
import kakurega.scripts.cli
played = {}
for name, spec in ENV_SPECS.items():
    module = spec.load()
    assert module.__file__.startswith(unpacked), f"{name} imported from {module.__file__}, not the wheel"
    load_heuristic_class(name)
    if spec.rollout:
        load_rollout_policy(name)
    for config in spec.configurations:
        env = make(name, **config)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        steps = 0
        for agent in env.agent_iter(max_iter=200):
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        played[f"{name} {config}"] = steps
from kakurega.agents.tactics.suite import load_suite, shipped_suites
suites = shipped_suites()
assert all(str(path).startswith(unpacked) for path in suites), suites
positions = {path.stem: len(load_suite(path).positions) for path in suites}
from kakurega.envs.rules_pages import DIRECTORY, page_path, title
assert str(DIRECTORY).startswith(unpacked), DIRECTORY
rules = {str(page_path(name).relative_to(unpacked)): title(name) for name in ENV_SPECS}
print(json.dumps({"envs": kakurega.envs.__file__, "played": played, "suites": positions, "rules": rules}))
"""


def source_packages() -> set[str]:
    """Every package folder of the checkout as a wheel path: ``envs/core`` ships as ``kakurega/envs/core``
    (tests, examples and ignored folders aside)."""
    found = set()
    for init in ROOT.rglob("__init__.py"):
        folder = init.parent.relative_to(ROOT)
        if folder.parts[0] in ("tests", "examples") or any(
            shutil.ignore_patterns(*NOT_COPIED)(str(ROOT), list(folder.parts))
        ):
            continue
        found.add("kakurega/" + folder.as_posix())
    return found


def test_the_wheel_ships_every_package_and_every_registered_env_runs_from_it(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_COPIED))
    out = tmp_path / "wheel"
    environment = {**os.environ, "KAKUREGA_PURE_PYTHON": "1", "PIP_NO_INDEX": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), "."],
        cwd=source, env=environment, capture_output=True, text=True, timeout=300,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = out.glob("kakurega-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "unpacked")
    shipped = {name.rpartition("/")[0] for name in names if name.endswith("/__init__.py")}
    missing = source_packages() - shipped
    assert not missing, f"packages of the checkout missing from the wheel: {sorted(missing)}"
    assert not [name for name in names if name.endswith((".c", ".so"))], "build products in a pure-Python wheel"
    run = subprocess.run(
        [sys.executable, "-S", "-c", PLAY_EVERY_ENV, str(tmp_path / "unpacked"), json.dumps(site.getsitepackages())],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["envs"].startswith(str(tmp_path / "unpacked"))
    from kakurega.envs.registry import ENV_SPECS

    assert len(report["played"]) == sum(len(spec.configurations) for spec in ENV_SPECS.values())
    assert all(steps > 0 for steps in report["played"].values())
    from kakurega.agents.tactics.suite import shipped_suites

    assert report["suites"].keys() == {path.stem for path in shipped_suites()} != set()  # the tactics suites ship
    from kakurega.envs.rules_pages import title

    # every game's players' page ships, title and all
    assert report["rules"] == {f"kakurega/envs/data/rules/{name.rpartition('_v')[0]}.md": title(name) for name in ENV_SPECS}
