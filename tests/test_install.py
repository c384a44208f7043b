"""What a user installing kakurega from a wheel or an sdist gets.

An install from a wheel used to lack the configs that `kakurega quickstart`,
`exploit` and `train-bots` read by default and the docs name; its base
dependencies lacked the two that reading a shipped bot and any tournament
need (safetensors, openskill); the sdist lacked the `.pxd` files that give the
compiled modules their C types; and the developer tools wrote their default
files into site-packages. These tests build both (pure Python, a few seconds)
from a copy of the working tree (as ``tests/test_packaging.py`` does, which plays
every env from the wheel) and look inside, and run an installed copy's
config lookup.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from kakurega.scripts import destination
from kakurega.scripts.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: no compilation (the files shipped are the same) and no network
PURE = {**os.environ, "KAKUREGA_PURE_PYTHON": "1", "PIP_NO_INDEX": "1"}
NOT_COPIED = (".git", ".venv*", "build", "dist", "runs", "*.egg-info", "__pycache__", "*.so", "*.c", ".pytest_cache")


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """The working tree without its build products (an in-place build would reuse stale ones)."""
    copy = tmp_path_factory.mktemp("source") / "kakurega"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    return copy


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    "."], check=True, cwd=source, env=PURE, capture_output=True, timeout=300)
    return next(out.glob("kakurega-*.whl"))


def shipped_configs() -> set[str]:
    return {str(path.relative_to(ROOT)) for path in ROOT.glob("configs/**/*.yaml")}


def test_the_wheel_ships_the_configs_the_license_and_the_bots_dependencies(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert shipped_configs() and {f"kakurega/{name}" for name in shipped_configs()} <= names
    assert any(name.endswith("licenses/LICENSE") for name in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("dist-info/METADATA"))).decode()
    base = {m.group(1) for m in re.finditer(r"^Requires-Dist: ([A-Za-z0-9_-]+)[^;\n]*$", metadata, re.M)}
    assert {"safetensors", "openskill", "numpy", "pettingzoo"} <= base  # without any extra


def test_an_installed_kakurega_finds_its_configs(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, env=PURE, timeout=300)
    probe = ("import kakurega.scripts.cli as cli, kakurega.envs.registry as r; from pathlib import Path;"
             "print(cli.__file__); print(cli._repo_configs_dir() / 'quickstart_ppo.yaml');"
             "import kakurega.agents.exploit as e; print(Path(e.__file__).resolve().parents[1] / r.get_spec("
             "'kakurenbo_v1').train_config);"
             "from kakurega.agents.training.config import find_config;"  # the docs' `kakurega train configs/...`
             "print(find_config('configs/kakurenbo_ppo.yaml').resolve());"
             "print(find_config('configs/bots/summer_hide_and_seek_2p.yaml').resolve())")
    lines = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(target)}, timeout=300).stdout.splitlines()
    assert lines[0].startswith(str(target)), lines  # the installed copy, not the checkout
    for config in lines[1:]:
        assert config.startswith(str(target)) and Path(config).is_file(), config


def test_a_configs_path_of_the_docs_reads_the_shipped_config_from_any_folder(monkeypatch, tmp_path):
    """`kakurega train configs/kakurenbo_ppo.yaml` from a folder without configs/ (an installed kakurega) reads the
    shipped file; a file of that folder wins where there is one; nothing outside the shipped folder is reached."""
    from kakurega.agents.training.config import PACKAGED_CONFIGS, ConfigError, find_config

    monkeypatch.chdir(tmp_path)
    assert find_config("configs/kakurenbo_ppo.yaml") == PACKAGED_CONFIGS / "kakurenbo_ppo.yaml"
    with pytest.raises(ConfigError, match=r"config file configs/nothing\.yaml does not exist \(the shipped configs are "
                                          r"in .*configs/NAME\.yaml finds them from any folder\)"):
        find_config("configs/nothing.yaml")
    with pytest.raises(ConfigError, match="does not exist"):  # ../ leads out of the shipped folder: not followed
        find_config("configs/../pyproject.toml")
    with pytest.raises(ConfigError, match="does not exist"):  # only a configs/ path is looked up
        find_config("kakurenbo_ppo.yaml")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "kakurenbo_ppo.yaml").write_text("env: kakurenbo_v1\n")
    assert find_config("configs/kakurenbo_ppo.yaml") == Path("configs/kakurenbo_ppo.yaml")  # the user's own first


def test_a_shipped_recipe_read_from_another_folder_finds_its_init_policy(monkeypatch, tmp_path):
    """A bot recipe named as the docs name it (``configs/bots/...``) from a folder without configs/ reads its
    relative ``init_policy`` (``agents/pretrained/...``) from the package's folder, as train-bots does: it was
    looked up in the current folder ("policy file ... does not exist", exit 2). A relative init_policy of the
    user's own config stays relative to the current folder (the control)."""
    from kakurega.agents.training.config import PACKAGED_CONFIGS, ConfigError, load_config

    monkeypatch.chdir(tmp_path)
    recipe = next(p for p in sorted((PACKAGED_CONFIGS / "bots").glob("*.yaml"))
                  if "init_policy: agents/" in p.read_text())
    config = load_config(f"configs/bots/{recipe.name}")
    assert Path(config["init_policy"]).is_file() and Path(config["init_policy"]).is_absolute()
    assert Path(config["init_policy"]).is_relative_to(PACKAGED_CONFIGS.parent)
    (tmp_path / "mine.yaml").write_text(recipe.read_text())
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "mine.yaml")


def test_the_sdist_holds_the_pxd_files_and_the_configs(source, tmp_path):
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)], check=True, cwd=source, env=PURE,
                   capture_output=True, timeout=300)
    names = {name.split("/", 1)[1] for name in tarfile.open(next(tmp_path.glob("kakurega-*.tar.gz"))).getnames()
             if "/" in name}
    pxd = {str(path.relative_to(ROOT)) for folder in ("envs", "agents") for path in (ROOT / folder).rglob("*.pxd")}
    assert len(pxd) == 4 and pxd <= names
    assert shipped_configs() <= names and "LICENSE" in names


@pytest.mark.parametrize("argv,option", [(["playthroughs"], "--dir")])
def test_a_developer_tool_does_not_write_into_an_installed_kakurega(argv, option, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(destination, "PACKAGE_ROOT", tmp_path)  # an install: no tests folder beside the modules
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "this kakurega is installed" in err and f"pass {option}" in err
    assert list(tmp_path.iterdir()) == []  # nothing written there
    monkeypatch.setattr(destination, "PACKAGE_ROOT", ROOT)  # the control: in the checkout the default is taken
    assert destination.checkout_path("tests/playthroughs", option) == ROOT / "tests" / "playthroughs"


def test_the_screenshots_tool_asks_for_a_place_when_installed(monkeypatch, tmp_path):
    from kakurega.scripts import screenshots

    monkeypatch.setattr(destination, "PACKAGE_ROOT", tmp_path)
    with pytest.raises(ValueError, match="pass --out"):
        screenshots.main([])
    assert list(tmp_path.iterdir()) == []
