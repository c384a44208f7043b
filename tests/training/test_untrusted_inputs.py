"""Untrusted training inputs: config sections, ``pretrain.data`` files and forged checkpoints.

Each is refused in one sentence naming the file (or key) and what was
expected, before it can take memory or reach the model: a data file's arrays
are checked from their headers before anything is decompressed, a checkpoint
file's size against its manifest before it is read, and a checkpoint whose
checksums match but whose content would crash or poison training is skipped
like a corrupt one (the run goes on from the one before, with a warning).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from training_helpers import tiny_config

from kakurega.agents.training import checkpoint
from kakurega.agents.training.config import ConfigError, load_config, validate_config

BASE = {"env": "kakurenbo_v0", "algorithm": "ppo", "total_timesteps": 1000}


# ------------------------------------------------------------------ config sections
@pytest.mark.parametrize("section, value", [("ppo", 0), ("network", False), ("ppo", ""), ("evaluation", []),
                                            ("checkpoint", 0.0)])
def test_a_falsy_section_that_is_not_a_mapping_is_refused(section, value):
    with pytest.raises(ConfigError, match=rf"config section '{section}': expected a mapping of keys, got "
                                          rf".*leave the section out, or null, for its defaults"):
        validate_config({**BASE, section: value})


def test_a_missing_or_null_section_means_its_defaults():
    """The control: only a missing section or null takes the defaults; an override fills a null section."""
    default = validate_config(BASE)
    assert validate_config({**BASE, "ppo": None, "network": None}) == default
    assert validate_config({**BASE, "ppo": None}, ["ppo.n_steps=64"])["ppo"]["n_steps"] == 64
    with pytest.raises(ConfigError, match="'ppo' is not a section"):
        validate_config({**BASE, "ppo": 0}, ["ppo.n_steps=64"])


def test_a_config_file_holding_false_is_refused_as_not_a_mapping(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("false\n")
    with pytest.raises(ConfigError, match=r"config.yaml: expected a mapping of config keys at the top level, got bool"):
        load_config(path)


# ------------------------------------------------------------------ pretrain.data
STEPS = 24


def _pretrain_config(nim, tmp_path, **pretrain) -> dict:
    data = tmp_path / "demos.npz"
    settings = {"agent": "heuristic", "steps": STEPS, "epochs": 1, "data": str(data), **pretrain}
    return validate_config(tiny_config(nim.NAME, "ppo", tmp_path / "run", opponents=["random"], pretrain=settings))


@pytest.fixture
def made(nim, tmp_path):
    """``(config, arrays, meta)`` of a data file made by a run (``tmp_path / 'demos.npz'``)."""
    from kakurega.agents.training.pretrain import demonstrations

    config = _pretrain_config(nim, tmp_path)
    first, reused = demonstrations(config)
    assert not reused
    with np.load(config["pretrain"]["data"], allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files if name != "meta"}
        meta = str(archive["meta"])
    return config, arrays, meta


def _write(path, arrays: dict, meta) -> None:
    members = dict(arrays)
    if meta is not None:
        members["meta"] = np.array(meta)
    np.savez(path, **members)


def _refused(config, match: str) -> None:
    from kakurega.agents.training.pretrain import demonstrations

    with pytest.raises(ConfigError, match=rf"pretrain.data {config['pretrain']['data']}: .*{match}"):
        demonstrations(config)


def test_a_data_file_made_the_same_way_is_reused(made):
    """The control: the file the run wrote passes every check and is reused as it is."""
    from kakurega.agents.training.pretrain import demonstrations

    config, arrays, _ = made
    data, reused = demonstrations(config)
    assert reused
    for name, array in arrays.items():
        np.testing.assert_array_equal(data[name], array)
    assert data["episodes"] >= 1 and 0 <= data["win_rate"] <= 1


def _change(arrays: dict, meta: str, how: str):
    arrays = dict(arrays)
    if how == "width":
        arrays["observations"] = arrays["observations"][:, :3]
    elif how == "actions out of range":
        arrays["actions"] = np.full_like(arrays["actions"], 999)
    elif how == "illegal action":
        arrays["masks"] = arrays["masks"].copy()
        arrays["masks"][0, arrays["actions"][0]] = False
    elif how == "mask dtype":
        arrays["masks"] = arrays["masks"].astype(np.int8)
    elif how == "rows differ":
        arrays["returns"] = arrays["returns"][:-1]
    elif how == "nan":
        arrays["observations"] = arrays["observations"].copy()
        arrays["observations"][1, 0] = np.nan
    elif how == "object array":
        arrays["actions"] = np.array([None] * len(arrays["actions"]), dtype=object)
    elif how == "no meta":
        meta = None
    elif how == "meta not json":
        meta = "not json"
    elif how == "meta facts overwrite arrays":
        data = json.loads(meta)
        data["facts"]["observations"] = 1
        meta = json.dumps(data)
    elif how == "meta win rate":
        data = json.loads(meta)
        data["facts"]["win_rate"] = "most"
        meta = json.dumps(data)
    return arrays, meta


@pytest.mark.parametrize("how, message", [
    ("width", r"member observations.npy holds a \d+ x 3 array of float32; expected N x \d+ float32 observations"),
    ("actions out of range", r"member actions.npy: row 0 holds action 999; expected actions from 0 to 2"),
    ("illegal action", r"member actions.npy: row 0 holds action \d, which its mask in masks.npy forbids"),
    ("mask dtype", r"member masks.npy holds a \d+ x 3 array of int8; expected \d+ x 3 booleans"),
    ("rows differ", r"member returns.npy holds a \d+ array of float32; expected \d+ float32 returns"),
    ("nan", r"member observations.npy holds NaN or infinite values"),
    ("object array", r"member actions.npy holds a \d+ array of object"),
    ("no meta", r"holds the members actions.npy, masks.npy, observations.npy, returns.npy; expected .*meta.npy"),
    ("meta not json", r"member meta.npy: not valid JSON"),
    ("meta facts overwrite arrays", r"member meta.npy: facts .* must be episodes"),
    ("meta win rate", r"member meta.npy: facts .* must be episodes"),
])
def test_a_bad_data_file_is_refused_naming_the_member(made, how, message):
    config, arrays, meta = made
    _write(config["pretrain"]["data"], *_change(arrays, meta, how))
    _refused(config, message)


def test_a_cut_short_or_foreign_data_file_is_refused(made):
    config, _, _ = made
    path = Path(config["pretrain"]["data"])
    original = path.read_bytes()
    path.write_bytes(original[: len(original) // 2])
    _refused(config, r"not a .npz archive \(a zip of .npy arrays\)")
    path.write_bytes(b"\x80\x04garbage")
    _refused(config, r"not a .npz archive")
    path.unlink()
    path.mkdir()
    _refused(config, r"not a regular file; expected a .npz file of demonstrations")


def _bomb(path: Path, arrays: dict, meta: str, rows: int) -> None:
    """A data file whose observations.npy header claims ``rows`` rows, holding only a few bytes of data."""
    _write(path, {k: v for k, v in arrays.items() if k != "observations"}, meta)
    header = np.lib.format.header_data_from_array_1_0(arrays["observations"])
    header["shape"] = (rows, arrays["observations"].shape[1])
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("observations.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            member.write(bytes(4096))


def test_a_data_file_claiming_a_huge_array_is_refused_from_its_header(made):
    """2**40 rows claimed in a file of a few kilobytes: refused before any allocation or decompression."""
    config, arrays, meta = made
    _bomb(Path(config["pretrain"]["data"]), arrays, meta, rows=2**40)
    tracemalloc.start()
    try:
        _refused(config, rf"member observations.npy holds a {2**40} x \d+ array of float32; expected N x \d+ float32 "
                         rf"observations .*N from {STEPS} to {STEPS + 100_000}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000, peak


def test_a_data_file_of_more_rows_than_the_steps_it_was_made_for_is_refused(made, monkeypatch):
    from kakurega.agents.training import pretrain

    config, arrays, meta = made
    monkeypatch.setattr(pretrain, "MAX_EXTRA_ROWS", 50, raising=False)
    bigger = {name: np.concatenate([array] * (1 + (STEPS + 50) // len(array))) for name, array in arrays.items()}
    _write(config["pretrain"]["data"], bigger, meta)
    _refused(config, rf"member observations.npy holds a {len(bigger['actions'])} x \d+ array of float32; .*"
                     rf"N from {STEPS} to {STEPS + 50}")


def test_a_data_file_made_under_another_config_is_made_again(made, nim, tmp_path):
    """The control of the key check: another step count is no error, the file is made again (as before)."""
    from kakurega.agents.training.pretrain import demonstrations

    changed = _pretrain_config(nim, tmp_path, steps=STEPS + 10)
    _, reused = demonstrations(changed)
    assert not reused
    assert demonstrations(changed)[1]


def test_visit_targets_on_an_illegal_action_are_refused(nim, tmp_path):
    from kakurega.agents.training.pretrain import demonstrations

    config = _pretrain_config(nim, tmp_path, agent="ismcts:simulations=8,seed=1", target="visits")
    demonstrations(config)
    assert demonstrations(config)[1]  # the control: reused
    path = config["pretrain"]["data"]
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files if name != "meta"}
        meta = str(archive["meta"])
    row = int(np.flatnonzero((~arrays["masks"]).any(axis=1))[0])
    targets = arrays["targets"].copy()
    targets[row] = np.where(arrays["masks"][row], 0.0, 1.0) / (~arrays["masks"][row]).sum()
    _write(path, dict(arrays, targets=targets), meta)
    _refused(config, r"member targets.npy: expected visit shares")


def test_the_cli_refuses_a_bad_data_file_in_one_line(made, tmp_path, capsys):
    from kakurega.scripts.cli import main

    config, arrays, meta = made
    _write(config["pretrain"]["data"], *_change(arrays, meta, "actions out of range"))
    config_path = tmp_path / "config.yaml"
    config_path.write_text(yaml.safe_dump(config))
    assert main(["train", str(config_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "member actions.npy: row 0 holds action 999" in err, err


# ------------------------------------------------------------------ checkpoints
def _run_config(out: Path, algorithm: str = "ppo", **overrides) -> dict:
    from secret_nim import NAME

    settings = dict(total_timesteps=64, ppo={"n_steps": 16, "batch_size": 16, "n_epochs": 1},
                    checkpoint={"every": 32, "keep": 3}, evaluation={"every": 0, "games": 2, "final_games": 0})
    settings.update(overrides)
    return tiny_config(NAME, algorithm, out, **settings)


@pytest.fixture(scope="module")
def finished_runs(tmp_path_factory) -> dict:
    """A PPO run and a DQN run keeping its replay buffer, trained once for the module (checkpoints at 32 and 64)."""
    from secret_nim import toy_registered

    from kakurega.agents.training.trainer import train

    runs = {}
    with toy_registered():
        for algorithm, extra in (("ppo", {}), ("dqn", {"checkpoint": {"every": 32, "keep": 3,
                                                                        "save_replay_buffer": True}})):
            out = tmp_path_factory.mktemp(algorithm) / "run"
            train(_run_config(out, algorithm, **extra), quiet=True)
            runs[algorithm] = out
    return runs


@pytest.fixture
def run(finished_runs, tmp_path, nim) -> Path:
    out = tmp_path / "run"
    shutil.copytree(finished_runs["ppo"], out)
    return out


def _rewrite_manifest(step: Path) -> None:
    """Make the manifest match the files again (a forger can always do this)."""
    manifest = json.loads((step / "manifest.json").read_text())
    for name in manifest["files"]:
        data = (step / name).read_bytes()
        manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (step / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("name", ["weights.safetensors", "manifest.json"])
def test_a_huge_checkpoint_file_is_refused_before_it_is_read(run, name):
    """A file grown to 300 MB (sparse: no disk taken) costs no memory: its size is compared before reading."""
    step = run / "checkpoints" / "step_64"
    with open(step / name, "r+b") as file:
        file.truncate(300_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(checkpoint.CheckpointError) as refused:
            checkpoint.verify(step)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000, f"{peak} bytes taken to refuse it"
    assert refused.match(rf"{name}: 300000000 bytes(, the manifest records \d+|; the limit is 1000000)")
    checkpoint.verify(run / "checkpoints" / "step_32")  # the control: an untouched one verifies


def _forge_state(step: Path, change) -> None:
    state = json.loads((step / "state.json").read_text())
    change(state)
    (step / "state.json").write_text(json.dumps(state))
    _rewrite_manifest(step)


def _param_group(state: dict) -> list:
    """The first parameter group's ``[key, value]`` pairs in a state.json."""
    items = dict((k, v) for k, v in state["optimizer"]["__items__"])
    return items["param_groups"][0]["__items__"]


def _set_hyper(key, value):
    def change(state):
        for pair in _param_group(state):
            if pair[0] == key:
                pair[1] = value
    return change


@pytest.mark.parametrize("change, message", [
    (lambda s: s.update(ep_info_buffer=[1, 2, 3]), r"ep_info_buffer = \[1, 2, 3\]; expected a list of episode statistics"),
    (lambda s: s.update(ep_info_buffer=[{"__items__": [["r", "x"], ["l", 3], ["t", 0.1]]}]), r"ep_info_buffer = "),
    (lambda s: s.update(ep_info_buffer=[{"__items__": [["r", 1.0], ["l", 3]]}]), r"ep_info_buffer = "),
    (lambda s: s.update(ep_info_buffer={"__tuple__": [1]}), r"ep_info_buffer = "),
    (_set_hyper("lr", "fast"), r"optimizer param_groups\[0\].'lr' = 'fast'; expected finite numbers"),
    (_set_hyper("eps", -1), r"optimizer param_groups\[0\].'eps' = -1"),
    (_set_hyper("betas", {"__tuple__": [2.0, 0.999]}), r"optimizer param_groups\[0\].'betas' = \(2.0, 0.999\)"),
    (lambda s: s["rng"].update(python={"__tuple__": [3, {"__tuple__": [1, 2, 3]}, None]}), r"an RNG state does not load"),
    (lambda s: s["rng"].update(numpy={"__tuple__": ["MT19937", [1, 2, 3], 0, 0, 0.0]}), r"an RNG state does not load"),
])
def test_forged_state_with_matching_checksums_is_refused_by_verify(run, change, message):
    step = run / "checkpoints" / "step_64"
    _forge_state(step, change)
    with pytest.raises(checkpoint.CheckpointError, match=rf"step_64/state.json: {message}"):
        checkpoint.verify(step)


@pytest.mark.parametrize("file, fill", [("weights.safetensors", np.nan), ("optimizer.safetensors", np.inf)])
def test_non_finite_checkpoint_tensors_are_refused(run, file, fill):
    from safetensors.numpy import load, save

    step = run / "checkpoints" / "step_64"
    arrays = load((step / file).read_bytes())
    name = next(k for k, v in arrays.items() if v.dtype.kind == "f" and v.ndim == 2)
    arrays[name] = np.full_like(arrays[name], fill)
    (step / file).write_bytes(save(arrays))
    _rewrite_manifest(step)
    with pytest.raises(checkpoint.CheckpointError, match=rf"{file}: tensor '{name}' holds NaN or infinite values"):
        checkpoint.verify(step)


def test_a_negative_adam_second_moment_is_refused(run):
    from safetensors.numpy import load, save

    step = run / "checkpoints" / "step_64"
    state = json.loads((step / "state.json").read_text())
    per_parameter = dict((k, v) for k, v in state["optimizer"]["__items__"])["state"]["__items__"]
    tensor = dict(per_parameter[0][1]["__items__"])["exp_avg_sq"]["__tensor__"]
    arrays = load((step / "optimizer.safetensors").read_bytes())
    arrays[tensor] = -np.ones_like(arrays[tensor])
    (step / "optimizer.safetensors").write_bytes(save(arrays))
    _rewrite_manifest(step)
    with pytest.raises(checkpoint.CheckpointError, match=r"optimizer state exp_avg_sq of parameter 0 holds negative"):
        checkpoint.verify(step)


def test_resume_skips_a_forged_checkpoint_with_a_warning_and_goes_on(run, capsys):
    """NaN weights crashed the run inside the vec env; now the run goes on from step_32, as past a corrupt one."""
    from safetensors.numpy import load, save

    from kakurega.agents.training.trainer import train

    step = run / "checkpoints" / "step_64"
    arrays = load((step / "weights.safetensors").read_bytes())
    (step / "weights.safetensors").write_bytes(save({k: np.full_like(v, np.nan) for k, v in arrays.items()}))
    _rewrite_manifest(step)
    result = train(_run_config(run, total_timesteps=96), resume=True, quiet=False)
    out = capsys.readouterr().out
    assert "warning: skipping checkpoint step_64" in out and "holds NaN or infinite values" in out, out
    assert "resuming" in out and "from step_32" in out and result.timesteps == 96


@pytest.mark.parametrize("pos", [10**6, -1, True])
def test_a_replay_position_outside_the_buffer_is_refused(finished_runs, tmp_path, nim, pos):
    out = tmp_path / "run"
    shutil.copytree(finished_runs["dqn"], out)
    step = out / "checkpoints" / "step_64"
    checkpoint.verify(step)  # the control: the honest one verifies
    _forge_state(step, lambda state: state["replay"].update(pos=pos))
    with pytest.raises(checkpoint.CheckpointError, match=r"step_64/state.json: replay = .*expected \{pos: an index "):
        checkpoint.verify(step)


def test_a_manifest_listing_another_file_is_refused(run):
    step = run / "checkpoints" / "step_64"
    manifest = json.loads((step / "manifest.json").read_text())
    manifest["files"]["../../config.yaml"] = {"bytes": 1, "sha256": "0" * 64}
    (step / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(checkpoint.CheckpointError, match=r"manifest.json lists '../../config.yaml'; a checkpoint holds "
                                                         r"only state.json, weights.safetensors"):
        checkpoint.verify(step)


def test_a_switch_of_adam_given_as_a_number_is_refused_by_verify(run):
    step = run / "checkpoints" / "step_64"
    _forge_state(step, _set_hyper("amsgrad", 0.5))
    with pytest.raises(checkpoint.CheckpointError, match=r"optimizer param_groups\[0\].'amsgrad' = 0.5"):
        checkpoint.verify(step)


def _drop_exp_avg_sq(state: dict) -> None:
    per_parameter = dict((k, v) for k, v in state["optimizer"]["__items__"])["state"]["__items__"]
    values = per_parameter[0][1]["__items__"]
    values[:] = [pair for pair in values if pair[0] != "exp_avg_sq"]


@pytest.mark.parametrize("change, message", [
    (_set_hyper("amsgrad", True), r"optimizer amsgrad = True in parameter group 0, the config builds False"),
    (_set_hyper("eps", 0.5), r"optimizer eps = 0.5 in parameter group 0, the config builds 1e-05"),
    (_drop_exp_avg_sq, r"optimizer state of parameter 0 holds exp_avg, step; Adam needs exp_avg, exp_avg_sq, step"),
])
def test_optimizer_state_the_config_does_not_build_is_refused_at_restore(run, change, message):
    """Well-formed, but not what this config trains with (it crashed or changed the first update): the resume stops."""
    from kakurega.agents.training.trainer import train

    step = run / "checkpoints" / "step_64"
    _forge_state(step, change)
    checkpoint.verify(step)  # the files are consistent: only the model can tell
    with pytest.raises(checkpoint.CheckpointError, match=rf"step_64 does not fit the model this config builds: {message}"):
        train(_run_config(run, total_timesteps=96), resume=True, quiet=True)
