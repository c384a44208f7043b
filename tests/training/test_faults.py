"""Fault injection: bad files, misuse and crashes get a clear error, never a hang, a traceback or lost data.

Every test here is marked ``faults`` (``pytest -m faults`` runs them alone);
the few long ones are also ``slow``. Tests that touch the file system check
that nothing outside the directory they point kakurega at has changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from training_helpers import tree_digest

from kakurega.envs.core.safe_load import MAX_NODES, SafeLoadError, load_file, load_text, short_repr
from kakurega.envs.registry import ENV_SPECS, make

pytestmark = pytest.mark.faults

ROOT = Path(__file__).resolve().parents[2]
#: every message must stay readable: a bad value is quoted short, never expanded
MAX_MESSAGE = 2000


def alias_bomb(top_key: str, levels: int = 9) -> str:
    """A YAML document of a few hundred bytes that expands to 9**levels strings under ``top_key``."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"{top_key}: *a{levels - 1}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------ the safe loader
def test_alias_bomb_fails_fast_in_every_form():
    text = alias_bomb("monsters")
    assert len(text) < 600
    start = time.perf_counter()
    with pytest.raises(SafeLoadError, match=f"max_nodes={MAX_NODES}") as caught:
        load_text(text, "bomb.yaml")
    assert time.perf_counter() - start < 5  # generous: it takes milliseconds; a regression takes minutes
    assert "bomb.yaml" in str(caught.value) and len(str(caught.value)) < MAX_MESSAGE


@pytest.mark.parametrize(
    "text, message",
    [
        ("a: 1\nb: 2\na: 3\n", "key 'a' appears twice"),
        ("[" * 5000 + "]" * 5000, "nested deeper than 64 levels"),
        ("&a [*a]", "refers to itself"),
        ("x: " + "*y " * 10, "not valid YAML"),
        ("x: 1" + "0" * 5000, "cannot be read"),
        ("a: &x 1\n" + "".join(f"b{i}: *x\n" for i in range(101)), "more than 100 aliases"),
    ],
    ids=["duplicate", "deep", "cycle", "broken", "huge-int", "aliases"],
)
def test_bad_yaml_is_refused_with_the_file_and_the_limit(text, message):
    with pytest.raises(SafeLoadError, match=message) as caught:
        load_text(text, "bad.yaml")
    assert str(caught.value).startswith("bad.yaml: ") and len(str(caught.value)) < MAX_MESSAGE


def test_bad_json_is_refused():
    with pytest.raises(SafeLoadError, match="key 'a' appears twice"):
        load_text('{"a": 1, "a": 2}', "x.json", json_only=True)
    with pytest.raises(SafeLoadError, match="nested deeper than 64"):
        load_text("[" * 100_000 + "]" * 100_000, "x.json", json_only=True)


def test_size_cap_and_unreadable_files(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("x: " + "a" * 2_000_000)
    with pytest.raises(SafeLoadError, match="larger than 1000000 bytes; the limit is max_bytes"):
        load_file(big)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SafeLoadError, match="not UTF-8"):
        load_file(binary)
    with pytest.raises(SafeLoadError, match="cannot read the file"):
        load_file(tmp_path / "missing.yaml")


def test_short_repr_is_bounded_for_huge_and_shared_values():
    shared = ["x" * 100] * 9
    for _ in range(8):
        shared = [shared] * 9  # 9**9 strings if expanded
    start = time.perf_counter()
    assert len(short_repr(shared)) <= 80
    assert len(short_repr("y" * 10**7)) <= 80
    assert time.perf_counter() - start < 1


def _bomb_files(tmp_path: Path) -> dict:
    """One alias bomb per data-file kind, each aimed at the field the loader reads first."""
    files = {}
    for kind, key in (("deck", "animals"), ("shape", "rows"), ("booklet", "monsters"), ("map", "grid"), ("config", "env")):
        path = tmp_path / f"{kind}_bomb.yaml"
        path.write_text(alias_bomb(key))
        files[kind] = path
    return files


LOADERS = {
    "deck": "from kakurega.envs.animal_chain.data import load_deck as load",
    "shape": "from kakurega.envs.animal_chain.data import load_shape as load",
    "booklet": "from kakurega.envs.hidden_rooms.booklet import load_booklet as load",
    "map": "from kakurega.envs.summer_hide_and_seek.map_data import load_map as load",
    "config": "from kakurega.agents.training.config import load_config as load",
}


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_every_loader_refuses_an_alias_bomb_in_a_subprocess_under_a_time_limit(kind, tmp_path):
    """In a subprocess with a timeout, so that a regression fails instead of hanging the suite."""
    path = _bomb_files(tmp_path)[kind]
    code = f"{LOADERS[kind]}\ntry:\n    load({str(path)!r})\nexcept ValueError as error:\n    print('REFUSED', error)\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("REFUSED") and "max_nodes" in result.stdout and str(path) in result.stdout
    assert len(result.stdout) < MAX_MESSAGE


@pytest.mark.parametrize(
    "kind, text, message",
    [
        ("deck", "animals: [{name: a, label: Aa}, {name: b, label: Bb}]\ncards: [{left: a, right: b, copies: 1000000000}]\n",
         "copies = <int>: expected an integer from 1 to 1000"),  # a file's values are never quoted back
        ("deck", "animals: []\nanimals: []\ncards: []\n", "key 'animals' appears twice"),
        ("shape", "rows: [1000000, 1000000]\n", "expected a number of cards from 1 to 45"),
        ("booklet", "monsters: [{name: m, path: [[0, 0], [0, 1]], sight_range: 99999999999, sight_shape: radius}]\n",
         "sight_range'.*expected an integer from 0 to 8"),
        ("map", "terrain: {'#': wall}\nicons: {A: {name: a, vp: 10000000}}\ngrid: |\n  . A\n", "vp': expected an integer from 1 to 1000"),
        ("map", "terrain: {'#': wall}\nicons: {A: {name: a, vp: .nan}}\ngrid: |\n  . A\n", "vp': expected an integer"),
    ],
    ids=["deck-copies", "deck-duplicate", "shape-rows", "booklet-sight", "map-vp", "map-nan"],
)
def test_data_fields_have_upper_bounds(kind, text, message, tmp_path):
    path = tmp_path / f"{kind}.yaml"
    path.write_text(text)
    namespace = {}
    exec(LOADERS[kind], namespace)
    with pytest.raises(ValueError, match=message) as caught:
        namespace["load"](str(path))
    assert str(path) in str(caught.value) and len(str(caught.value)) < MAX_MESSAGE


def test_a_huge_value_in_a_data_file_is_quoted_short(tmp_path):
    path = tmp_path / "deck.yaml"
    path.write_text("animals: [{name: a, label: Aa}, {name: b, label: Bb}]\ncards: [{left: a, right: " + "z" * 500_000 + "}]\n")
    from kakurega.envs.animal_chain.data import AnimalChainDataError, load_deck

    with pytest.raises(AnimalChainDataError, match="cards.0..right") as caught:
        load_deck(str(path))
    assert len(str(caught.value)) < MAX_MESSAGE


# ------------------------------------------------------------------ env options
def test_numeric_options_take_numpy_integers_and_refuse_huge_values_in_words():
    cases = {
        "animal_chain_v0": "max_turns",
        "hidden_rooms_v0": "max_turns",
        "kakurenbo_v0": "max_steps",
        "summer_hide_and_seek_v0": "max_steps",
    }
    assert set(cases) <= set(ENV_SPECS)
    for name, option in cases.items():
        env = make(name, wrapped=False, **{option: np.int64(50)})
        env.reset(seed=0)
        for huge in (10**30, 2**70, np.uint64(2**63)):
            with pytest.raises(ValueError, match=option):  # never OverflowError, compiled or pure
                make(name, wrapped=False, **{option: huge})
        with pytest.raises(TypeError, match=option):
            make(name, wrapped=False, **{option: float("nan")})


# ---------------------------------------------------------------- raw_env misuse
@pytest.mark.parametrize("name", list(ENV_SPECS))
def test_raw_env_misuse_is_explained_in_words(name):
    from kakurega.envs.core.aec import EnvUsageError

    env = make(name, wrapped=False)
    agent = env.possible_agents[0]
    for call in (lambda: env.step(0), lambda: env.observe(agent), lambda: env.last(), lambda: env.render_text(agent)):
        with pytest.raises(EnvUsageError, match=r"before reset\(\): call reset"):
            call()
    env.reset(seed=1)
    with pytest.raises(EnvUsageError, match="not an agent"):
        env.observe("nobody")
    rng = np.random.default_rng(0)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(int(rng.choice(env.legal_actions())))
    done = env.agent_selection
    with pytest.raises(EnvUsageError, match=f"for {done}, whose game is over"):
        env.step(0)
    while env.agents:
        env.step(None)
    for call in (lambda: env.step(None), lambda: env.last()):
        with pytest.raises(EnvUsageError, match=r"after the game ended .* call reset\(\)"):
            call()
    assert isinstance(EnvUsageError("x"), RuntimeError)


# -------------------------------------------------------------- policy metadata
def _policy_with_metadata(tmp_path: Path, **changes) -> Path:
    from safetensors.numpy import save_file

    meta = {
        "format": "kakurega-policy", "format_version": 1, "env": "hidden_rooms_v0", "env_options": {},
        "observation_size": 4, "num_actions": 2, "algorithm": "ppo",
        "network": {"type": "mlp", "sizes": [4, 2], "activation": "tanh"},
    }
    meta.update(changes)
    path = tmp_path / "policy.safetensors"
    tensors = {"layer_0.weight": np.zeros((2, 4), np.float32), "layer_0.bias": np.zeros(2, np.float32)}
    save_file(tensors, str(path), metadata={"kakurega_policy": json.dumps(meta)})
    return path


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"network": {"type": "mlp", "sizes": [4, 2], "activation": ["tanh"]}}, "network.activation"),
        ({"network": "mlp"}, "field network = 'mlp'"),
        ({"network": {"type": "mlp", "sizes": [4, 10**9], "activation": "tanh"}}, "network.sizes"),
        ({"num_actions": "2"}, "num_actions"),
        ({"env_options": {"max_turns": 10**30}}, "max_turns must be an integer from 1 to 10000"),
        ({"env_options": [1, 2]}, "env_options"),
    ],
    ids=["activation-list", "network-string", "huge-layer", "actions-string", "huge-option", "options-list"],
)
def test_policy_metadata_of_the_wrong_type_or_size_is_refused(tmp_path, changes, message):
    import kakurega.agents
    from kakurega.agents.policy import PolicyFileError

    path = _policy_with_metadata(tmp_path, **changes)
    with pytest.raises(PolicyFileError, match=message) as caught:
        kakurega.agents.load(path)
    assert len(str(caught.value)) < MAX_MESSAGE


def test_policy_metadata_with_duplicate_keys_is_refused(tmp_path):
    from safetensors.numpy import save_file

    from kakurega.agents.policy import PolicyFileError, read_policy

    path = tmp_path / "dup.safetensors"
    text = '{"format": "kakurega-policy", "format": "kakurega-policy"}'
    save_file({"x": np.zeros(1, np.float32)}, str(path), metadata={"kakurega_policy": text})
    with pytest.raises(PolicyFileError, match="appears twice"):
        read_policy(path)


# ------------------------------------------------------------------ the play input
def test_play_input_refuses_unicode_digits():
    from kakurega.agents.base import AgentContext
    from kakurega.agents.human import HumanAgent

    env = make("kakurenbo_v0", wrapped=False)
    env.reset(seed=0)
    while len(env.legal_actions()) == 1:  # a single legal move is played without asking
        env.step(env.legal_actions()[0])
    answers = iter(["²", "٣", "1" * 50, str(env.legal_actions()[0])])
    said = []
    human = HumanAgent(AgentContext.from_env(env, "kakurenbo_v0", {}), input_fn=lambda prompt: next(answers),
                       output_fn=said.append)
    action = human.act(env.observe(env.agent_selection))
    assert action == env.legal_actions()[0]
    assert sum("is not a legal move" in line or "is not the key" in line for line in said) == 3


def test_play_alone_says_to_give_no_opponents(capsys):
    from kakurega.scripts.cli import main

    assert main(["play", "hidden_rooms", "--opponents", "random"]) == 2
    assert "is played alone: give no --opponents" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [["play", "animal_chain"], ["evaluate", "animal_chain", "--agents", "random", "heuristic"], ["balance", "animal_chain"]],
    ids=["play", "evaluate", "balance"],
)
@pytest.mark.parametrize(
    "option, message",
    [
        ("max_turns=.nan", "max_turns must be an integer"),
        ("max_turns=[1]", "max_turns must be an integer"),
        ("deck=" + "[" * 50_000 + "]" * 50_000, "--option 'deck': nested deeper than 64"),
        ("deck={a: 1, a: 2}", "key 'a' appears twice"),
        ("max_turns=" + "9" * 5000, "cannot be read"),
    ],
    ids=["nan", "list", "deep", "duplicate", "huge"],
)
def test_cli_env_options_are_read_safely_and_refused_in_words(command, option, message, tmp_path, capsys):
    """``--option``/``--config KEY=VALUE`` go through the safe loader; a wrong type is a message, not a traceback."""
    from kakurega.scripts.cli import main

    flag = "--config" if command[0] == "balance" else "--option"
    extra = ["--out", str(tmp_path)] if command[0] == "evaluate" else []
    try:
        status = main(command + extra + [flag, option])
    except SystemExit as stop:
        status, said = 2, str(stop.code)
    else:
        said = capsys.readouterr().err
    assert status == 2 and len(said) < MAX_MESSAGE
    assert message in said


def test_evaluate_refuses_an_agent_that_needs_a_person(tmp_path, capsys):
    from kakurega.scripts.cli import main

    status = main(["evaluate", "kakurenbo", "--agents", "human", "random", "--games", "2", "--out", str(tmp_path)])
    assert status == 2 and "needs a person at the terminal" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_an_option_alias_bomb_is_refused_fast():
    from kakurega.scripts.evaluate import parse_options

    bomb = "{" + alias_bomb("deck").replace("\n", ", ").rstrip(", ") + "}"
    with pytest.raises(ValueError, match="max_nodes"):
        parse_options([f"deck={bomb}"])


def test_a_malformed_option_is_an_error_of_the_command_line(capsys):
    """``--option`` that is no KEY=VALUE or no YAML: ``error:`` and exit status 2, as every other bad input (it
    printed the words alone and exited 1)."""
    from kakurega.scripts.cli import main

    for option, words in [("num_players=[", "not valid YAML"), ("num_players", "expected KEY=VALUE")]:
        assert main(["evaluate", "kakurenbo", "--agents", "random", "--games", "1", "--option", option]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: --option ") and words in err, err


# --------------------------------------------------------------------- configs
def _tiny(env, algorithm, out, **overrides):
    from training_helpers import tiny_config

    return tiny_config(env, algorithm, out, **overrides)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"ppo": {"gamma": float("nan")}}, "'ppo.gamma': expected a finite number"),
        ({"ppo": {"learning_rate": float("inf")}}, "'ppo.learning_rate'"),
        ({"device": "nonsense"}, "'device': expected cpu"),
        ({"env_kwargs": {"max_steps": 0}}, "'env_kwargs': kakurenbo_v0 refuses"),
        ({"env_kwargs": {"no_such_option": 1}}, "'env_kwargs'"),
        ({"opponents": ["human"]}, "needs a person at the terminal"),
        ({"evaluation": {"opponent": "human"}}, "'evaluation.opponent'.*needs a person"),
        ({"evaluation": {"final_opponents": ["random", "human"]}}, "final_opponents.1.*needs a person"),
        ({"n_envs": 10**9}, "'n_envs'"),
        ({"dqn": {"buffer_size": 10_000_000}, "algorithm": "dqn", "n_envs": 64}, "replay buffer would take"),
        ({"name": "../../escape"}, "'name': expected a plain name"),
        ({"name": "/tmp/abs"}, "'name': expected a plain name"),
        ({"name": "a/b"}, "'name': expected a plain name"),
        ({"seed": -1}, "'seed'"),
        ({"network": {"hidden": [10**9]}}, "'network.hidden'"),
        ({"output_dir": "a\0b"}, "'output_dir': expected a directory path"),
        ({"output_dir": " "}, "'output_dir': expected a directory path"),
    ],
)
def test_config_errors_are_found_when_the_config_loads(tmp_path, change, message):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    config = _tiny("kakurenbo_v0", "ppo", tmp_path / "run")
    for key, value in change.items():
        config[key] = {**config[key], **value} if isinstance(value, dict) and isinstance(config.get(key), dict) else value
    config["output_dir"] = change.get("output_dir", str(tmp_path / "run"))
    with pytest.raises(ConfigError, match=message):
        train(config, quiet=True)
    assert not (tmp_path / "run").exists()  # nothing written: a corrected rerun is not refused


def test_more_subprocess_env_copies_than_memory_holds_are_refused(tmp_path, monkeypatch):
    """vec_env subproc with n_envs 256 started 256 processes of about 250 MB each (over 60 GB)."""
    from kakurega.agents.training.config import MAX_SUBPROC_ENVS, ConfigError, validate_config

    config = _tiny("kakurenbo_v0", "ppo", tmp_path / "run", vec_env="subproc", n_envs=MAX_SUBPROC_ENVS + 1)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    with pytest.raises(ConfigError, match=rf"'n_envs': vec_env subproc .* at most {MAX_SUBPROC_ENVS} here "
                                          rf".*got {MAX_SUBPROC_ENVS + 1}"):
        validate_config(config)
    validate_config({**config, "vec_env": "dummy"})  # the controls: one process, or as many processes as allowed
    validate_config({**config, "n_envs": MAX_SUBPROC_ENVS})
    monkeypatch.setattr(os, "cpu_count", lambda: 4 * MAX_SUBPROC_ENVS)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4 * MAX_SUBPROC_ENVS)), raising=False)
    validate_config({**config, "n_envs": 4 * MAX_SUBPROC_ENVS})  # a machine of more CPUs: one process per CPU


def test_a_league_whose_snapshots_would_fill_memory_is_refused(tmp_path):
    """Every env copy reads and keeps each snapshot of its pool: 8 copies x 1000 snapshots of a [1024, 1024]
    policy took about 38 GB as the pool filled (measured: 760 MB for 20 snapshots)."""
    from kakurega.agents.training.config import ConfigError, validate_config

    config = _tiny("kakurenbo_v0", "ppo", tmp_path / "run", n_envs=8, network={"hidden": [1024, 1024]},
                   league={"snapshot_every": 1000, "max_snapshots": 1000})
    with pytest.raises(ConfigError, match=r"'league.max_snapshots': each of the n_envs=8 env copies keeps up to 1000 "
                                          r"snapshots .* \d+\.\d GiB; the limit is 4 GiB \(MAX_LEAGUE_BYTES\)"):
        validate_config(config)
    # the controls: a pool of a few snapshots, no league, or no snapshot ever taken
    validate_config({**config, "league": {**config["league"], "max_snapshots": 20}})
    validate_config({**config, "opponents": ["random"]})
    validate_config({**config, "league": {**config["league"], "snapshot_every": 0}})


def test_config_file_with_duplicate_keys_is_refused(tmp_path):
    from kakurega.agents.training.config import ConfigError, load_config

    path = tmp_path / "c.yaml"
    path.write_text("env: kakurenbo_v0\nalgorithm: ppo\ntotal_timesteps: 64\ntotal_timesteps: 999999999\n")
    with pytest.raises(ConfigError, match="'total_timesteps' appears twice"):
        load_config(path)


# ------------------------------------------------------------------ run directory
def test_overwrite_refuses_directories_a_run_did_not_make(tmp_path, monkeypatch):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: main\n")
    (project / "config.yaml").write_text("mine: 1\n")
    (project / "sub").mkdir()
    (project / "sub" / "work.txt").write_text("mine too")
    before = tree_digest(tmp_path)
    monkeypatch.chdir(project / "sub")
    for output, reason in ((".", "current directory"), ("..", "current directory or a parent"),
                           (str(project / "sub" / ".."), "parent of it"), ("/", "file system root")):
        config = _tiny("kakurenbo_v0", "ppo", output)
        with pytest.raises(ConfigError, match=reason):
            train(config, overwrite=True, quiet=True)
    monkeypatch.setenv("HOME", str(project))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with pytest.raises(ConfigError, match="home directory"):
        train(_tiny("kakurenbo_v0", "ppo", str(project)), overwrite=True, quiet=True)
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="holds no .kakurega-run.json"):
        train(_tiny("kakurenbo_v0", "ppo", str(tmp_path / "foreign")), overwrite=True, quiet=True)
    assert tree_digest(tmp_path, skip=elsewhere) == {**before, "foreign/notes.txt": tree_digest(tmp_path)["foreign/notes.txt"]}


def test_overwrite_removes_only_what_the_run_wrote(nim, tmp_path):
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    config = _tiny(nim.NAME, "ppo", out, total_timesteps=64)
    train(config, quiet=True)
    (out / "my_notes.txt").write_text("mine")
    (out / ".kakurega-run.json").write_text(json.dumps({"entries": ["../outside.txt", ".git", "logs", "my_notes.txt"]}))
    (tmp_path / "outside.txt").write_text("outside")
    train(config, overwrite=True, quiet=True)
    assert (out / "my_notes.txt").read_text() == "mine"  # listed, but not something a run writes
    assert (tmp_path / "outside.txt").read_text() == "outside"
    assert (out / "policy.safetensors").is_file() and (out / ".kakurega-run.json").is_file()


def test_quickstart_never_overwrites_unasked(tmp_path, capsys):
    from kakurega.scripts.cli import main

    out = tmp_path / "qs"
    out.mkdir()
    (out / "precious.txt").write_text("x")
    assert main(["quickstart", "--output", str(out), "--total-timesteps", "64"]) == 2
    assert "already holds files" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["precious.txt"]


def test_a_second_writer_is_refused_and_a_dead_ones_lock_is_taken_over(nim, tmp_path):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.run_dir import LOCK, RunLock
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    out.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        import socket

        (out / LOCK).write_text(f"{sleeper.pid}@{socket.gethostname()}\n")
        with pytest.raises(ConfigError, match=f"in use by another kakurega run \\(process {sleeper.pid}"):
            train(_tiny(nim.NAME, "ppo", out, total_timesteps=64), quiet=True)
        with pytest.raises(ConfigError, match=f"process {sleeper.pid}"):
            train(_tiny(nim.NAME, "ppo", out, total_timesteps=64), resume=True, quiet=True)
    finally:
        sleeper.kill()
        sleeper.wait()
    train(_tiny(nim.NAME, "ppo", out, total_timesteps=64), quiet=True)  # the holder died: lock taken over
    assert not (out / LOCK).exists()  # released at the end
    with RunLock(out):
        assert (out / LOCK).read_text().startswith(f"{os.getpid()}@")


def test_only_one_of_many_processes_takes_over_a_dead_lock(tmp_path):
    """Several runs started at once on a crashed run's directory: exactly one gets the lock."""
    from kakurega.agents.training.run_dir import LOCK

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / LOCK).write_text(f"{dead.stdout.strip()}@{__import__('socket').gethostname()}\n")
    start = time.time() + 3
    code = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from kakurega.agents.training.config import ConfigError
        from kakurega.agents.training.run_dir import RunLock
        lock = RunLock(Path({str(tmp_path)!r}))
        time.sleep(max(0.0, {start} - time.time()))
        try:
            lock.acquire()
        except ConfigError:
            print("refused")
        else:
            print("locked")
            time.sleep(2)
            lock.release()
    """)
    workers = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(6)]
    said = sorted(worker.communicate(timeout=60)[0].strip() for worker in workers)
    assert said == ["locked"] + ["refused"] * 5


def test_a_missing_policy_opponent_is_found_when_the_config_loads(nim, tmp_path):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    config = _tiny(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64,
                   opponents=[{"agent": f"policy:{tmp_path / 'missing.safetensors'}", "weight": 1.0}])
    with pytest.raises(ConfigError, match=r"opponents\[0\].agent'.*missing.safetensors"):
        train(config, quiet=True)
    assert not (tmp_path / "run").exists()


def test_a_run_failing_late_leaves_nothing_behind(nim, tmp_path, monkeypatch):
    from kakurega.agents.training import trainer

    def broken(*args, **kwargs):
        raise RuntimeError("the model could not be built")

    out = tmp_path / "run"
    monkeypatch.setattr(trainer, "build_model", broken)
    with pytest.raises(RuntimeError, match="could not be built"):
        trainer.train(_tiny(nim.NAME, "ppo", out, total_timesteps=64), quiet=True)
    assert not out.exists()
    monkeypatch.undo()
    trainer.train(_tiny(nim.NAME, "ppo", out, total_timesteps=64), quiet=True)  # the rerun needs no flag


# ------------------------------------------------------------------ checkpoints
def test_checkpoints_hold_no_pickles_and_a_cut_short_one_falls_back(nim, tmp_path, capsys):
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    config = _tiny(nim.NAME, "dqn", out, total_timesteps=256, checkpoint={"every": 64, "keep": 3, "save_replay_buffer": True},
                   evaluation={"every": 64, "games": 2, "final_games": 0})
    train(config, quiet=True)
    steps = sorted(int(p.name[5:]) for p in (out / "checkpoints").iterdir())
    assert steps == [128, 192, 256]
    for path in (out / "checkpoints").rglob("*"):
        if path.is_file():
            assert path.suffix in (".safetensors", ".json")
            assert not path.read_bytes().startswith(b"\x80")  # no pickle protocol header
    # cut the newest short (a crash mid-write of an older format) and corrupt the one before
    newest = out / "checkpoints" / "step_256" / "weights.safetensors"
    newest.write_bytes(newest.read_bytes()[:100])
    (out / "checkpoints" / "step_192" / "manifest.json").unlink()
    outside = tree_digest(tmp_path, skip=out)
    result = train(dict(config, total_timesteps=320), resume=True, quiet=False)
    text = capsys.readouterr().out
    assert "skipping checkpoint step_256" in text and "skipping checkpoint step_192" in text
    assert "resuming" in text and "step_128" in text
    assert result.timesteps == 320
    assert tree_digest(tmp_path, skip=out) == outside
    progress, evaluations, _ = _rows(out)
    assert evaluations == [64, 128, 192, 256, 320]  # the rows after step 128 were cut, then written once again
    assert progress == sorted(set(progress)) and progress[-1] <= 320  # no duplicate or backward row


def _pickle_payload(marker: Path) -> bytes:
    """A pickle that creates ``marker`` when unpickled (the test asserts that it never is)."""
    import pickle

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    return pickle.dumps(Payload())


def test_a_forged_checkpoint_with_a_matching_manifest_is_skipped_and_no_pickle_runs(nim, tmp_path, capsys):
    """Checksums that match prove nothing about content: state.json and the tensors must read too."""
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    config = _tiny(nim.NAME, "dqn", out, total_timesteps=128, checkpoint={"every": 64, "keep": 3},
                   evaluation={"every": 64, "games": 2, "final_games": 0})
    train(config, quiet=True)
    marker = tmp_path / "pwned"
    payload = _pickle_payload(marker)
    directory = out / "checkpoints"
    (directory / "model_128.zip").write_bytes(payload)
    (directory / "replay_128.pkl").write_bytes(payload)
    for step, broken in ((192, "state.json"), (256, "weights.safetensors"), (320, None)):
        forged = directory / f"step_{step}"
        shutil.copytree(directory / "step_128", forged)
        if broken:
            (forged / broken).write_bytes(payload)
        else:  # a state.json that parses but lacks what a resume needs
            (forged / "state.json").write_text(json.dumps({"format": "kakurega-checkpoint", "algorithm": "MaskableDQN"}))
        manifest = json.loads((forged / "manifest.json").read_text())
        for name in manifest["files"]:
            data = (forged / name).read_bytes()
            manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        (forged / "manifest.json").write_text(json.dumps(manifest))
    result = train(dict(config, total_timesteps=192), resume=True, quiet=False)
    text = capsys.readouterr().out
    for step in (192, 256, 320):
        assert f"skipping checkpoint step_{step}" in text
    assert "from step_128" in text and result.timesteps == 192
    assert not marker.exists()


def test_a_checkpoint_of_a_newer_format_refuses_the_resume_and_stays(nim, tmp_path, capsys):
    """A state.json a newer kakurega wrote (format_version 2 and up) may mean other things by the same keys: the
    resume is refused in words, and nothing is cut back (it resumed silently; skipped as corrupt, it would have
    been deleted with the newer run's rows). A damaged version number is skipped like any corrupt checkpoint."""
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    config = _tiny(nim.NAME, "ppo", out, total_timesteps=128, checkpoint={"every": 64, "keep": 3},
                   ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1}, evaluation={"every": 0, "final_games": 0})
    train(config, quiet=True)
    newest = out / "checkpoints" / "step_128"

    def set_version(version):
        state = json.loads((newest / "state.json").read_text())
        state["format_version"] = version
        (newest / "state.json").write_text(json.dumps(state))
        manifest = json.loads((newest / "manifest.json").read_text())
        data = (newest / "state.json").read_bytes()
        manifest["files"]["state.json"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        (newest / "manifest.json").write_text(json.dumps(manifest))

    assert json.loads((newest / "state.json").read_text())["format_version"] == 1
    set_version(99)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    with pytest.raises(ConfigError, match=r"cannot resume: .*step_128 was written by a newer kakurega \(checkpoint "
                                          r"format version 99; this one reads versions 1 to 1\).*nothing was changed"):
        train(dict(config, total_timesteps=192), resume=True, quiet=True)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert json.loads((newest / "state.json").read_text())["format_version"] == 99
    set_version(0)  # the control: a version no kakurega wrote is damage, skipped as corrupt
    result = train(dict(config, total_timesteps=192), resume=True, quiet=False)
    text = capsys.readouterr().out
    assert "skipping checkpoint step_128" in text and "format_version = 0" in text and result.timesteps == 192


def test_resume_refuses_sb3_zip_only_runs(nim, tmp_path):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    out = tmp_path / "run"
    config = _tiny(nim.NAME, "ppo", out, total_timesteps=64, checkpoint={"every": 0, "keep": 1, "sb3_zip": True})
    train(config, quiet=True)
    assert list((out / "checkpoints").glob("model_*.zip"))
    for step in (out / "checkpoints").glob("step_*"):
        import shutil

        shutil.rmtree(step)
    with pytest.raises(ConfigError, match="never loads because they can run code"):
        train(config, resume=True, quiet=True)


def test_a_moved_run_resumes(nim, tmp_path):
    from kakurega.agents.training.trainer import train

    config = _tiny(nim.NAME, "ppo", tmp_path / "a", total_timesteps=64, checkpoint={"every": 32, "keep": 2})
    train(config, quiet=True)
    os.rename(tmp_path / "a", tmp_path / "b")
    result = train(dict(config, output_dir=str(tmp_path / "b"), total_timesteps=128), resume=True, quiet=True)
    assert result.timesteps == 128 and result.output_dir == (tmp_path / "b").resolve()


# ------------------------------------------------------------- kill and resume
RUN_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {helpers!r})
    from secret_nim import register
    register()
    from kakurega.agents.training.trainer import train
    config = json.loads(sys.argv[1])
    train(config, resume=len(sys.argv) > 2, quiet=True)
    """
)


def _run_config(out: Path) -> dict:
    return _tiny(
        "secret_nim_v0", "ppo", out, total_timesteps=1024, n_envs=2,
        ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1},
        opponents=[{"agent": "random", "weight": 1.0}, {"agent": "snapshots", "weight": 1.0}],
        league={"sync_every": 64, "snapshot_every": 128, "max_snapshots": 3},
        evaluation={"every": 128, "games": 4, "final_games": 0},
        checkpoint={"every": 64, "keep": 2},
    )


def _launch(config: dict, resume: bool = False) -> subprocess.Popen:
    script = RUN_SCRIPT.format(helpers=str(ROOT / "tests" / "training"))
    args = [sys.executable, "-c", script, json.dumps(config)] + (["resume"] if resume else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _rows(out: Path) -> tuple[list, list, list]:
    import csv

    progress = []
    for path in sorted((out / "logs").glob("part*/progress.csv"), key=lambda p: int(p.parent.name[4:])):
        with open(path) as f:
            progress += [int(float(r["time/total_timesteps"])) for r in csv.DictReader(f) if r.get("time/total_timesteps")]
    with open(out / "eval.csv") as f:
        evaluations = [int(r["timesteps"]) for r in __import__("csv").DictReader(f)]
    snapshots = sorted(p.name for p in (out / "league").glob("snapshot_*.safetensors"))
    return progress, evaluations, snapshots


@pytest.mark.slow
def test_kill_and_resume_equals_an_uninterrupted_run(tmp_path):
    reference = _run_config(tmp_path / "reference")
    done = _launch(reference)
    assert done.wait(timeout=300) == 0, done.stderr.read()[-3000:]
    expected = _rows(tmp_path / "reference")
    assert expected[0] == sorted(set(expected[0])) and expected[1] == sorted(set(expected[1]))

    config = _run_config(tmp_path / "killed")
    rng = np.random.default_rng(7)
    checkpoints = tmp_path / "killed" / "checkpoints"
    for attempt in range(3):
        before = set(checkpoints.glob("step_*"))
        process = _launch(config, resume=attempt > 0)
        deadline = time.time() + 120
        while time.time() < deadline and process.poll() is None:
            if set(checkpoints.glob("step_*")) - before:  # a new checkpoint: then kill at a random moment
                time.sleep(float(rng.uniform(0.0, 1.0)))
                break
            time.sleep(0.02)
        process.kill()
        process.wait()
    final = _launch(config, resume=True)
    assert final.wait(timeout=300) == 0, final.stderr.read()[-3000:]
    assert _rows(tmp_path / "killed") == expected


@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_and_says_one_line(tmp_path):
    config = _run_config(tmp_path / "run")
    config["total_timesteps"] = 10**7
    config["checkpoint"] = {"every": 0, "keep": 1}
    config_path = tmp_path / "c.json"
    config_path.write_text(json.dumps(config))
    script = textwrap.dedent(
        f"""
        import json, sys
        sys.path.insert(0, {str(ROOT / 'tests' / 'training')!r})
        from secret_nim import register
        register()
        from kakurega.scripts.cli import main
        import yaml
        config = json.load(open({str(config_path)!r}))
        open({str(tmp_path / 'c.yaml')!r}, 'w').write(yaml.safe_dump(config))
        sys.exit(main(['train', {str(tmp_path / 'c.yaml')!r}, '--quiet']))
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    progress = tmp_path / "run" / "logs" / "part0" / "progress.csv"
    deadline = time.time() + 120
    while time.time() < deadline and not (progress.is_file() and len(progress.read_text().splitlines()) >= 2):
        time.sleep(0.1)  # training is under way once the first rollout is logged
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "checkpoint" in lines[0] and "--resume" in lines[0], err[-3000:]
    assert list((tmp_path / "run" / "checkpoints").glob("step_*/manifest.json"))


def _event_steps(path):
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    return [event.step for event in EventFileLoader(str(path)).Load() if event.HasField("summary")]


def test_resume_cuts_tensorboard_events_back_to_the_checkpoint(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    from kakurega.agents.training import run_dir

    part = tmp_path / "logs" / "part0"
    writer = SummaryWriter(str(part))
    for step in range(0, 1000, 100):
        writer.add_scalar("rollout/ep_rew_mean", step / 1000, step)
    writer.close()
    (events,) = part.glob("events.out.tfevents.*")
    assert _event_steps(events) == list(range(0, 1000, 100))  # the control: every step is there before the cut
    with open(events, "ab") as handle:
        handle.write(b"\x40\x00\x00\x00\x00\x00\x00\x00\x00")  # a record a kill cut short
    dropped = run_dir.cut_back(tmp_path, 450)
    assert dropped["events"] == 6  # steps 500..900 and the cut-short record
    assert _event_steps(events) == [0, 100, 200, 300, 400]
    assert run_dir.cut_back(tmp_path, 450)["events"] == 0  # a second cut finds nothing more
