"""Fault injection on run directories and checkpoints: a stranger's run, a full disk, forged counters.

Every test here is marked ``faults``. A run directory from anyone may be
resumed: it must never lead the run to write, append to or delete a file
outside it, and a file a run cannot write stops it with a sentence that says
what is intact, never a traceback.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import pickle
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from training_helpers import copy_run, tiny_config, train_template, tree_digest

pytestmark = pytest.mark.faults


def _config(out: Path, **overrides) -> dict:
    """Secret Nim, PPO, 64 steps: checkpoints at 32 and 64, an evaluation row at each."""
    from secret_nim import NAME

    settings = dict(total_timesteps=64, ppo={"n_steps": 16, "batch_size": 16, "n_epochs": 1},
                    checkpoint={"every": 32, "keep": 3}, evaluation={"every": 32, "games": 2, "final_games": 0})
    settings.update(overrides)
    return tiny_config(NAME, "ppo", out, **settings)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """One finished run, trained once for the module; tests copy it (a moved run resumes)."""
    return train_template(tmp_path_factory, _config)


@pytest.fixture
def run(finished_run, tmp_path, nim) -> Path:
    """A copy of the finished run in this test's directory (``tmp_path / 'run'``)."""
    return copy_run(finished_run, tmp_path)


def _rewrite_manifest(checkpoint: Path) -> None:
    """Make the checkpoint's manifest match its files again (a forger can always do this)."""
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    for name in manifest["files"]:
        data = (checkpoint / name).read_bytes()
        manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (checkpoint / "manifest.json").write_text(json.dumps(manifest))


# ------------------------------------------------------------- a stranger's run
PLANTED = [".config.yaml.tmp", ".summary.json.tmp", "eval.csv", "config.yaml", "policy.safetensors.tmp",
           "logs/part0/progress.csv", "plots/learning_curve.png", "checkpoints/step_64/state.json", "logs"]


def test_links_in_a_strangers_run_are_refused_before_anything_is_written(run, tmp_path):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    outside = tmp_path / "outside"
    outside.mkdir()
    for i in range(len(PLANTED)):
        (outside / f"file{i}").write_text("precious\n")
    before = tree_digest(outside)
    saved = tmp_path / "saved"
    for i, name in enumerate(PLANTED):
        entry = run / name
        if entry.exists():
            entry.rename(saved)
        entry.symlink_to(outside if name == "logs" else outside / f"file{i}")
        with pytest.raises(ConfigError, match=f"{entry} is a symbolic link .*never writes or deletes outside it"):
            train(_config(run, total_timesteps=128), resume=True, quiet=True)
        entry.unlink()
        if saved.exists():
            saved.rename(entry)
        assert tree_digest(outside) == before, name
    # the control: without the link the same resume runs, and writes those very files
    result = train(_config(run, total_timesteps=128), resume=True, quiet=True)
    assert result.timesteps == 128 and (run / "summary.json").is_file()
    assert tree_digest(outside) == before


def test_a_fifo_in_a_run_is_refused_instead_of_hanging(run):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    (run / "config.yaml").unlink()
    os.mkfifo(run / "config.yaml")
    with pytest.raises(ConfigError, match="config.yaml is not a regular file"):
        train(_config(run, total_timesteps=128), resume=True, quiet=True)


def test_a_hard_linked_eval_csv_is_refused(run, tmp_path):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    os.link(run / "eval.csv", tmp_path / "other_name.csv")
    before = (tmp_path / "other_name.csv").read_bytes()
    with pytest.raises(ConfigError, match="eval.csv is a hard link"):
        train(_config(run, total_timesteps=128), resume=True, quiet=True)
    assert (tmp_path / "other_name.csv").read_bytes() == before


def test_a_linked_checkpoints_directory_is_never_rotated(run, tmp_path):
    """``checkpoints`` pointing at someone's directory of step_1..3 with keep=1: nothing there is deleted."""
    from kakurega.agents.training import checkpoint
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    theirs = tmp_path / "their_checkpoints"
    theirs.mkdir()
    for step in (1, 2, 3):
        shutil.copytree(run / "checkpoints" / "step_64", theirs / f"step_{step}")
    before = tree_digest(theirs)
    shutil.rmtree(run / "checkpoints")
    (run / "checkpoints").symlink_to(theirs)
    config = _config(run, total_timesteps=128, checkpoint={"every": 32, "keep": 1})
    with pytest.raises(ConfigError, match="checkpoints is a symbolic link"):
        train(config, resume=True, quiet=True)
    assert tree_digest(theirs) == before
    # the checkpoint module alone refuses the link too, and never lists or deletes a linked step
    with pytest.raises(checkpoint.CheckpointError, match="is a symbolic link"):
        checkpoint.save(type("Model", (), {"num_timesteps": 4})(), run / "checkpoints", keep=1)
    real = tmp_path / "real"
    real.mkdir()
    (real / "step_1").symlink_to(theirs / "step_1")
    assert checkpoint.checkpoints(real) == []
    checkpoint.remove(real / "step_1")
    assert not (real / "step_1").is_symlink() and tree_digest(theirs) == before


def test_run_writes_never_follow_a_link(run, tmp_path):
    """The writers alone (no directory check first): a planted temporary, log or plot is replaced, not followed."""
    from kakurega.agents.policy import save_policy
    from kakurega.agents.training import run_dir
    from kakurega.agents.training.plots import plot_learning_curves

    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    out = run
    (out / "config.yaml").unlink()
    (out / "eval.csv").rename(tmp_path / "eval.csv")
    (out / ".config.yaml.tmp").symlink_to(outside)
    run_dir.atomic_write_bytes(out / "config.yaml", b"a: 1\n")
    assert (out / "config.yaml").read_bytes() == b"a: 1\n" and not (out / "config.yaml").is_symlink()
    (out / "eval.csv").symlink_to(outside)
    with pytest.raises(OSError):
        run_dir.append_csv_row(out / "eval.csv", ["a"], [1])
    (out / "policy.safetensors.tmp").symlink_to(outside)
    layers = [(np.ones((2, 3), np.float32), np.zeros(2, np.float32))]
    meta = {"env": "x", "env_options": {}, "observation_size": 3, "num_actions": 2, "algorithm": "ppo",
            "network": {"activation": "tanh"}}
    save_policy(out / "policy.safetensors", layers, meta)
    (out / "plots" / "learning_curve.png").unlink()
    (out / "plots" / "learning_curve.png").symlink_to(outside)
    assert plot_learning_curves(out) == out / "plots" / "learning_curve.png"
    assert (out / "plots" / "learning_curve.png").read_bytes().startswith(b"\x89PNG")
    assert outside.read_text() == "precious\n"


# ------------------------------------------------------------- write failures
def test_a_full_disk_during_a_checkpoint_stops_the_run_in_words_and_keeps_the_last_one(nim, tmp_path, monkeypatch,
                                                                                        capsys):
    """ENOSPC surfacing at fsync (where delayed allocation reports it) while checkpoint step_64 is written."""
    import yaml

    from kakurega.agents.training import checkpoint
    from kakurega.scripts.cli import main

    out = tmp_path / "run"
    config_path = tmp_path / "config.yaml"
    config_path.write_text(yaml.safe_dump(_config(out)))
    real_fsync = os.fsync

    def full_disk(fd):
        if ".step_64.tmp" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    assert main(["train", str(config_path), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: the run in {out} stopped: ") and "Traceback" not in err, err
    assert ".step_64.tmp/weights.safetensors: No space left on device" in err
    assert "step_32 are intact" in err and "--resume" in err
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_32"]  # no half-written one left
    checkpoint.verify(out / "checkpoints" / "step_32")
    monkeypatch.undo()
    assert main(["train", str(config_path), "--resume", "--quiet"]) == 0  # room again: it goes on
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_32", "step_64"]


def test_an_output_below_a_file_is_refused_in_words(nim, tmp_path, capsys):
    import yaml

    from kakurega.scripts.cli import main

    config_path = tmp_path / "config.yaml"
    config_path.write_text(yaml.safe_dump(_config(tmp_path / "run")))
    (tmp_path / "a_file").write_text("mine\n")
    assert main(["train", str(config_path), "--output", str(tmp_path / "a_file" / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'a_file'} is a file, not a directory" in err and "Traceback" not in err, err
    assert (tmp_path / "a_file").read_text() == "mine\n"


def _without_override() -> list[str]:
    """A command prefix under which a read-only directory is read-only (root may write anywhere otherwise)."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv to drop the right to write anywhere")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


@pytest.mark.parametrize("output, message", [("locked/run", "cannot create the run directory"),
                                             ("locked", "cannot write in the run directory")])
def test_an_output_in_a_read_only_directory_is_refused_in_words(tmp_path, output, message):
    import yaml

    config_path = tmp_path / "config.yaml"
    config_path.write_text(yaml.safe_dump(tiny_config("kakurenbo_v0", "ppo", tmp_path / "run", total_timesteps=64)))
    (tmp_path / "locked").mkdir(mode=0o555)
    try:
        result = subprocess.run(
            [*_without_override(), sys.executable, "-m", "kakurega.scripts.cli", "train", str(config_path),
             "--output", str(tmp_path / output), "--quiet"], capture_output=True, text=True, timeout=120,
        )
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert result.returncode == 2, result.stderr[-3000:]
    assert message in result.stderr and "Permission denied" in result.stderr, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and list((tmp_path / "locked").iterdir()) == []


def test_a_network_too_large_for_memory_is_refused_in_words(nim, tmp_path, monkeypatch, capsys):
    from kakurega.agents.training import trainer
    from kakurega.agents.training.config import ConfigError, validate_config

    huge = _config(tmp_path / "run", network={"hidden": [4096] * 16})
    with pytest.raises(ConfigError, match=r"'network.hidden'.* would take \d+\.\d GiB to train.*MAX_NETWORK_BYTES"):
        validate_config(huge)
    validate_config(_config(tmp_path / "run", network={"hidden": [4096] * 2}))  # the control: a large one that fits

    def out_of_memory(*args, **kwargs):  # what torch raises when the allocation fails
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:114] . DefaultCPUAllocator: can't allocate memory: "
                           "you tried to allocate 68719476736 bytes. Error code 12 (Cannot allocate memory)")

    monkeypatch.setattr(trainer, "build_model", out_of_memory)
    with pytest.raises(ConfigError, match=r"network.hidden'.*does not fit in the memory of cpu.*can't allocate"):
        trainer.train(_config(tmp_path / "run"), quiet=True)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("device", ["cuda", "one beyond the machine's"])
def test_a_cuda_device_torch_cannot_find_is_refused_instead_of_training_on_the_cpu(nim, tmp_path, device):
    import torch

    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if device == "cuda" and count:
        pytest.skip("this machine has CUDA")
    device = "cuda" if device == "cuda" else f"cuda:{count}"
    found = f"only {count} CUDA device" if count else "no CUDA device"
    with pytest.raises(ConfigError, match=f"'device': {device}, but torch finds {found}.*device: cpu"):
        train(_config(tmp_path / "run", device=device), quiet=True)
    assert not (tmp_path / "run").exists()
    from kakurega.agents.training.trainer import check_device

    check_device("auto")  # the control: auto and cpu are taken everywhere
    check_device("cpu")


# ------------------------------------------------------------- checkpoint content
def test_an_adam_moment_of_the_wrong_shape_is_refused_at_restore(run):
    from safetensors.numpy import load, save

    from kakurega.agents.training import checkpoint
    from kakurega.agents.training.trainer import train

    step = run / "checkpoints" / "step_64"
    arrays = load((step / "optimizer.safetensors").read_bytes())
    name = next(k for k, v in arrays.items() if v.ndim == 2)
    arrays[name] = np.zeros((arrays[name].shape[0], arrays[name].shape[1] + 1), arrays[name].dtype)
    (step / "optimizer.safetensors").write_bytes(save(arrays))
    _rewrite_manifest(step)
    checkpoint.verify(step)  # the files are consistent: only the model can tell
    with pytest.raises(checkpoint.CheckpointError, match=r"step_64 does not fit the model .*optimizer state exp_avg"):
        train(_config(run, total_timesteps=128), resume=True, quiet=True)


@pytest.mark.parametrize("forged", [-64, 10**30, 64.5, "64", True, 10**6])
def test_a_forged_num_timesteps_is_refused(run, forged, capsys):
    from kakurega.agents.training import checkpoint
    from kakurega.agents.training.trainer import train

    step = run / "checkpoints" / "step_64"
    state = json.loads((step / "state.json").read_text())
    state["num_timesteps"] = forged
    (step / "state.json").write_text(json.dumps(state))
    _rewrite_manifest(step)
    with pytest.raises(checkpoint.CheckpointError, match="num_timesteps"):
        checkpoint.verify(step)
    result = train(_config(run, total_timesteps=96), resume=True, quiet=False)
    assert "skipping checkpoint step_64" in capsys.readouterr().out
    assert result.timesteps == 96  # resumed from step_32, the newest honest checkpoint


def test_a_truncated_policy_file_is_called_cut_short_not_a_pickle(tmp_path):
    from safetensors.numpy import save

    from kakurega.agents.policy import PolicyFileError, read_policy

    for pad in range(300):  # a header length whose first byte is '(' (0x28), the opcode of a protocol-0 pickle
        data = save({"w": np.zeros(3, np.float32)}, metadata={"pad": "x" * pad})
        if data[0] == ord("("):
            break
    assert data[0] == ord("(") and struct.unpack("<Q", data[:8])[0] > 40
    (tmp_path / "cut.safetensors").write_bytes(data[:40])
    with pytest.raises(PolicyFileError, match="cut short or corrupt") as caught:
        read_policy(tmp_path / "cut.safetensors")
    assert "pickle" not in str(caught.value)
    (tmp_path / "real.pkl").write_bytes(pickle.dumps([1, 2], protocol=0))  # the control: a real one starting '('
    with pytest.raises(PolicyFileError, match="is a Python pickle"):
        read_policy(tmp_path / "real.pkl")


def test_a_progress_csv_that_is_not_utf8_is_named(run):
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.trainer import train

    progress = run / "logs" / "part0" / "progress.csv"
    progress.write_bytes(progress.read_bytes() + b"\xff\xfe garbage\n")
    before = progress.read_bytes()
    with pytest.raises(ConfigError, match=f"{progress}: not UTF-8 text"):
        train(_config(run, total_timesteps=128), resume=True, quiet=True)
    assert progress.read_bytes() == before  # nothing cut, nothing lost


def test_a_failed_rename_leaves_no_temporary_file(tmp_path):
    """A directory at the name (or any failing rename): the write raises and its temporary file is gone."""
    from kakurega.agents.training import run_dir

    (tmp_path / "out.json").mkdir()
    with pytest.raises(OSError):
        run_dir.atomic_write_bytes(tmp_path / "out.json", b"{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    run_dir.atomic_write_bytes(tmp_path / "other.json", b"{}")  # the control: a free name is written
    assert (tmp_path / "other.json").read_bytes() == b"{}" and not (tmp_path / ".other.json.tmp").exists()


def test_a_ctrl_c_in_the_middle_of_a_write_leaves_no_partial_file(tmp_path, monkeypatch):
    """Ctrl-C lands in the fsync more often than anywhere else: the new file (a game record) is removed too."""
    from kakurega.agents.training import run_dir

    def interrupted(fd):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(run_dir.os, "fsync", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run_dir.write_new(tmp_path / "game-000001.json.partial", b"{}")
    assert list(tmp_path.iterdir()) == []
    run_dir.write_new(tmp_path / "game-000001.json.partial", b"{}")  # the control
    assert (tmp_path / "game-000001.json.partial").read_bytes() == b"{}"


def test_written_files_follow_the_umask(tmp_path):
    """A shared group folder (umask 002) gets group-writable files, as its folders are; umask 077 keeps them private."""
    from kakurega.agents.training import run_dir

    for umask, mode in ((0o002, 0o664), (0o077, 0o600)):
        old = os.umask(umask)
        try:
            run_dir.write_new(tmp_path / f"new_{umask}", b"x")
            run_dir.atomic_write_bytes(tmp_path / f"whole_{umask}", b"x")
            run_dir.append_csv_row(tmp_path / f"rows_{umask}.csv", ["a"], [1])
        finally:
            os.umask(old)
        for name in (f"new_{umask}", f"whole_{umask}", f"rows_{umask}.csv"):
            assert (tmp_path / name).stat().st_mode & 0o777 == mode, name


def test_a_network_whose_policy_file_could_not_be_loaded_back_is_refused(nim, tmp_path, monkeypatch):
    """The training-state bound (4 GiB) does not count a policy file's layer norms and int8 scales: a network sized
    at that bound could save a file that read_policy refuses. The config is checked against the file's bound too;
    ``policy_numbers`` is at least what a saved file holds (counted from a real run's file, the control)."""
    import json
    import struct

    from kakurega.agents import policy
    from kakurega.agents.training.config import ConfigError, policy_numbers, validate_config
    from kakurega.agents.training.trainer import train

    config = _config(tmp_path / "run", network={"hidden": [16, 8]})
    result = train(validate_config(dict(config)), quiet=True)
    raw = result.policy_path.read_bytes()
    header = json.loads(raw[8:8 + struct.unpack("<Q", raw[:8])[0]])
    held = 0
    for name, entry in header.items():
        if name != "__metadata__":
            count = 1
            for n in entry["shape"]:
                count *= n
            held += count
    meta, _ = policy.read_policy(result.policy_path)
    assert 0 < held <= policy_numbers(config, meta["observation_size"], meta["num_actions"])
    monkeypatch.setattr(policy, "MAX_POLICY_NUMBERS", held - 1)
    with pytest.raises(ConfigError, match=r"'network.hidden'.* policy file of up to [\d,]+ numbers.*MAX_POLICY_NUMBERS"):
        validate_config(dict(config))
