"""Training checkpoints that cannot run code: safetensors and JSON, written atomically, verified on load.

A checkpoint is a directory ``checkpoints/step_<N>/`` holding:

=========================  ===================================================
``weights.safetensors``    every tensor of the SB3 policy (``state_dict``; for
                           DQN the online and the target Q-network)
``optimizer.safetensors``  the optimizer's tensors (Adam moments, step counts)
``rng.safetensors``        torch's and numpy's global RNG states (arrays)
``replay.safetensors``     DQN with ``checkpoint.save_replay_buffer``: the
                           replay buffer as plain arrays
``state.json``             counters (steps, updates, episodes, DQN calls and
                           epsilon), episode statistics, the optimizer's
                           hyper-parameters, Python's RNG state
``manifest.json``          size and SHA-256 of every file above, written last
=========================  ===================================================

Safetensors is a JSON header plus raw numbers and JSON is data, so nothing in a
checkpoint is ever unpickled or executed: a run directory from a stranger is
safe to resume. A checkpoint is written into a hidden temporary directory
(every file fsynced) and renamed into place, so a crash or a full disk leaves
the previous checkpoints intact; :func:`latest_good` verifies sizes, checksums,
that ``state.json`` and every tensor file read and that the counters are
integers in range (``num_timesteps`` the step the directory is named after),
and falls back to the previous checkpoint when the newest is cut short,
corrupt or forged; :func:`restore` refuses optimizer tensors of another shape
than their parameters. Rotation deletes only real ``step_<N>`` directories,
never a link.

SB3 ``.zip`` checkpoints (``checkpoint.sb3_zip: true``) are written beside them
for users who want them; they hold pickles, so kakurega never loads them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import warnings
from pathlib import Path

import numpy as np

from kakurega.agents.training.run_dir import fsync_directory, write_new
from kakurega.envs.core.safe_load import short_repr

FORMAT = "kakurega-checkpoint"
FORMAT_VERSION = 1
PREFIX = "step_"
_REPLAY_ARRAYS = ("observations", "next_observations", "actions", "rewards", "dones", "timeouts", "next_action_masks")


class CheckpointError(ValueError):
    """A checkpoint that is incomplete, corrupt or made for another model."""


# ------------------------------------------------------ nested state <-> data
def _split(value, arrays: dict, prefix: str):
    """``value`` as JSON-able data, its tensors and arrays moved into ``arrays`` (by name)."""
    import torch

    if isinstance(value, torch.Tensor):
        arrays[prefix] = value.detach().cpu().contiguous().numpy().copy()
        return {"__tensor__": prefix}
    if isinstance(value, np.ndarray):
        arrays[prefix] = np.ascontiguousarray(value)
        return {"__array__": prefix}
    if isinstance(value, dict):
        return {"__items__": [[_split(k, arrays, f"{prefix}.k{i}"), _split(v, arrays, f"{prefix}.{i}")]
                              for i, (k, v) in enumerate(value.items())]}
    if isinstance(value, (list, tuple)):
        items = [_split(v, arrays, f"{prefix}.{i}") for i, v in enumerate(value)]
        return {"__tuple__": items} if isinstance(value, tuple) else items
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"checkpoint: cannot store a {type(value).__name__} at {prefix}")


def _join(data, arrays: dict, torch_tensors: bool = True):
    """The inverse of :func:`_split`."""
    if isinstance(data, list):
        return [_join(v, arrays, torch_tensors) for v in data]
    if isinstance(data, dict):
        if "__tensor__" in data:
            import torch

            array = _array(arrays, data["__tensor__"])
            return torch.from_numpy(array.copy()) if torch_tensors else array
        if "__array__" in data:
            return _array(arrays, data["__array__"])
        if "__tuple__" in data:
            return tuple(_join(v, arrays, torch_tensors) for v in data["__tuple__"])
        if "__items__" in data:
            return {_join(k, arrays, torch_tensors): _join(v, arrays, torch_tensors) for k, v in data["__items__"]}
        raise CheckpointError(f"checkpoint: unexpected mapping {sorted(data)[:4]} in state.json")
    return data


def _array(arrays: dict, name) -> np.ndarray:
    if not isinstance(name, str) or name not in arrays:
        raise CheckpointError(f"checkpoint: state.json refers to a tensor {str(name)[:60]} that no file holds")
    return arrays[name]


# ----------------------------------------------------------------- writing
def _model_state(model, replay: bool) -> tuple[dict, dict]:
    """``(json_state, {file: arrays})`` of everything needed to continue training ``model``."""
    import torch

    files: dict[str, dict] = {"weights": {}, "optimizer": {}, "rng": {}}
    files["weights"] = {k: v.detach().cpu().contiguous().numpy().copy() for k, v in model.policy.state_dict().items()}
    state = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "algorithm": type(model).__name__,
        "num_timesteps": int(model.num_timesteps),
        "n_updates": int(getattr(model, "_n_updates", 0)),
        "episode_num": int(getattr(model, "_episode_num", 0)),
        "n_calls": int(getattr(model, "_n_calls", 0)),
        "exploration_rate": float(getattr(model, "exploration_rate", 0.0)),
        "ep_info_buffer": _split(list(model.ep_info_buffer or []), {}, "ep"),
        "optimizer": _split(model.policy.optimizer.state_dict(), files["optimizer"], "opt"),
        "rng": {
            "torch": _split(torch.get_rng_state(), files["rng"], "torch"),
            "numpy": _split(np.random.get_state(), files["rng"], "numpy"),
            "python": _split(random.getstate(), files["rng"], "python"),
        },
    }
    if replay and getattr(model, "replay_buffer", None) is not None:
        buffer = model.replay_buffer
        files["replay"] = {name: getattr(buffer, name) for name in _REPLAY_ARRAYS if hasattr(buffer, name)}
        state["replay"] = {"pos": int(buffer.pos), "full": bool(buffer.full)}
    return state, files


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save(model, directory: Path, keep: int, replay: bool = False, sb3_zip: bool = False) -> Path:
    """Write a checkpoint of ``model`` into ``directory`` atomically, keep the newest ``keep``; returns its path.

    A write that fails (a full disk) removes the half-written checkpoint and
    raises :class:`OSError` naming the file; the checkpoints before it are untouched.
    """
    from safetensors.numpy import save as to_bytes

    directory.mkdir(parents=True, exist_ok=True)
    if directory.is_symlink():
        raise CheckpointError(f"{directory} is a symbolic link; checkpoints are written only into a real directory")
    step = int(model.num_timesteps)
    final = directory / f"{PREFIX}{step}"
    tmp = directory / f".{PREFIX}{step}.tmp"
    _remove_entry(tmp)
    tmp.mkdir()
    try:
        state, files = _model_state(model, replay)
        listing = {}
        for name, arrays in files.items():
            data = to_bytes(arrays) if arrays else to_bytes({"empty": np.zeros(0, np.float32)})
            write_new(tmp / f"{name}.safetensors", data)
            listing[f"{name}.safetensors"] = {"bytes": len(data), "sha256": _sha256(data)}
        data = json.dumps(state).encode()
        write_new(tmp / "state.json", data)
        listing["state.json"] = {"bytes": len(data), "sha256": _sha256(data)}
        write_new(tmp / "manifest.json", json.dumps({"format": FORMAT, "step": step, "files": listing}, indent=2).encode())
        fsync_directory(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # leave the space and the directory as they were
        raise
    _remove_entry(final)  # the same step saved twice (e.g. the end of a run resumed at its end)
    os.replace(tmp, final)
    fsync_directory(directory)
    if sb3_zip:
        _remove_entry(directory / f"model_{step}.zip")
        model.save(directory / f"model_{step}.zip")
        if replay and getattr(model, "replay_buffer", None) is not None:
            _remove_entry(directory / f"replay_{step}.pkl")
            model.save_replay_buffer(directory / f"replay_{step}.pkl")
    for stale in checkpoints(directory)[:-keep]:
        remove(stale)
    return final


def _remove_entry(path: Path) -> None:
    """Delete ``path``: a link or a file is unlinked (a link's target is never touched), a real directory removed."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def remove(path: Path) -> None:
    """Delete checkpoint ``path`` and any SB3 files of the same step (a link is unlinked, never followed)."""
    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path, ignore_errors=True)
    step = path.name[len(PREFIX):]
    for extra in (f"model_{step}.zip", f"replay_{step}.pkl"):
        (path.parent / extra).unlink(missing_ok=True)


def checkpoints(directory: Path) -> list[Path]:
    """Checkpoint directories in ``directory``, oldest first (temporary ones and links excluded)."""
    found = [p for p in Path(directory).glob(f"{PREFIX}*")
             if p.is_dir() and not p.is_symlink() and p.name[len(PREFIX):].isdigit()]
    return sorted(found, key=lambda p: int(p.name[len(PREFIX):]))


# ----------------------------------------------------------------- reading
def verify(path: Path) -> dict:
    """``{file name: bytes}`` of checkpoint ``path`` after checking the manifest's sizes and checksums and the content."""
    from kakurega.envs.core.safe_load import load_text

    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise CheckpointError(f"{path}: no manifest.json (the checkpoint was cut short)")
    manifest = load_text(manifest_path.read_bytes(), str(manifest_path), json_only=True, error=CheckpointError)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(manifest.get("files"), dict):
        raise CheckpointError(f"{manifest_path}: not a kakurega checkpoint manifest")
    contents = {}
    for name, entry in manifest["files"].items():
        file = path / str(name)
        if "/" in str(name) or not file.is_file() or not isinstance(entry, dict):
            raise CheckpointError(f"{path}: {str(name)[:60]} is missing")
        data = file.read_bytes()
        if len(data) != entry.get("bytes") or _sha256(data) != entry.get("sha256"):
            raise CheckpointError(f"{file}: size or checksum differs from the manifest (corrupt or cut short)")
        contents[name] = data
    if "state.json" not in contents or "weights.safetensors" not in contents:
        raise CheckpointError(f"{path}: the manifest lacks state.json or weights.safetensors")
    # a checksum only proves the files are the ones the manifest lists: check that they read, too
    state = _read_state(contents["state.json"], path)
    for name in contents:
        if name.endswith(".safetensors"):
            _read_arrays(contents[name], f"{path}/{name}")
    step = path.name[len(PREFIX):]
    if step.isdigit() and not (state["num_timesteps"] == manifest.get("step") == int(step)):
        raise CheckpointError(
            f"{path}: state.json says num_timesteps {short_repr(state['num_timesteps'])} and the manifest step "
            f"{short_repr(manifest.get('step'))}; a checkpoint of step {step} holds {step} in both"
        )
    return contents


_COUNTERS = ("num_timesteps", "n_updates", "episode_num", "n_calls")
MAX_COUNTER = 2**53  #: bound of a checkpoint's counters (every integer up to it is exact in JSON readers)
_STATE_KEYS = ("algorithm", "num_timesteps", "n_updates", "episode_num", "n_calls", "exploration_rate",
               "ep_info_buffer", "optimizer", "rng")


def _read_state(data: bytes, source: Path) -> dict:
    """The checkpoint's ``state.json``, refused unless it holds every counter and state a resume needs."""
    from kakurega.envs.core.safe_load import load_text

    state = load_text(data, f"{source}/state.json", json_only=True, max_bytes=50_000_000, max_nodes=2_000_000,
                      error=CheckpointError)
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{source}/state.json is not a kakurega checkpoint state")
    missing = [key for key in _STATE_KEYS if key not in state]
    if missing or not isinstance(state["rng"], dict) or not {"torch", "numpy", "python"} <= set(state["rng"]):
        raise CheckpointError(f"{source}/state.json lacks {', '.join(missing) or 'rng states'}")
    for key in _COUNTERS:
        value = state[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNTER:
            raise CheckpointError(f"{source}/state.json: {key} = {short_repr(value)}; expected an integer from 0 to "
                                  f"{MAX_COUNTER}")
    rate = state["exploration_rate"]
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise CheckpointError(f"{source}/state.json: exploration_rate = {short_repr(rate)}; expected a number from 0 to 1")
    return state


def _read_arrays(data: bytes, source: str) -> dict:
    from safetensors.numpy import load as from_bytes

    try:
        return from_bytes(data)
    except Exception as error:  # safetensors raises its own error types
        raise CheckpointError(f"{source} is corrupt: {str(error)[:200]}") from None


def latest_good(directory: Path, say=print) -> tuple[Path, dict] | None:
    """The newest checkpoint that verifies, with its contents; a bad newer one is reported and skipped."""
    for path in reversed(checkpoints(directory)):
        try:
            return path, verify(path)
        except CheckpointError as error:
            say(f"warning: skipping checkpoint {path.name}: {error}")
    return None


def restore(model, contents: dict, source: Path) -> None:
    """Load verified checkpoint ``contents`` into a freshly built ``model`` of the same config."""

    def arrays(name: str) -> dict:
        data = contents.get(f"{name}.safetensors")
        return {} if data is None else _read_arrays(data, f"{source}/{name}.safetensors")

    state = _read_state(contents["state.json"], source)
    if state.get("algorithm") != type(model).__name__:
        raise CheckpointError(f"{source} holds a {str(state.get('algorithm'))[:40]} model, the config builds a {type(model).__name__}")
    try:
        _restore(model, state, arrays, source)
    except CheckpointError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, RuntimeError) as error:
        raise CheckpointError(f"{source} does not fit the model this config builds: {str(error)[:300]}") from None


def _check_optimizer_fits(optimizer, source: Path) -> None:
    """Raise :class:`CheckpointError` unless every per-parameter state (Adam's moments) has its parameter's shape.

    ``load_state_dict`` checks only the number of parameters; a moment of another
    shape would load and crash the first update.
    """
    for group in optimizer.param_groups:
        for index, param in enumerate(group["params"]):
            for name, value in optimizer.state.get(param, {}).items():
                shape = tuple(getattr(value, "shape", ()))
                expected = () if name == "step" else tuple(param.shape)
                if shape != expected and not (name == "step" and shape == (1,)):
                    raise CheckpointError(
                        f"{source} does not fit the model this config builds: optimizer state {name} of parameter "
                        f"{index} has shape {shape}, the model's needs {expected}"
                    )


def _restore(model, state: dict, arrays, source: Path) -> None:
    """The body of :func:`restore`: any error here means the checkpoint does not fit the model."""
    import torch

    weights = {k: torch.from_numpy(v.copy()) for k, v in arrays("weights").items()}
    model.policy.load_state_dict(weights)
    model.policy.optimizer.load_state_dict(_join(state["optimizer"], arrays("optimizer")))
    _check_optimizer_fits(model.policy.optimizer, source)
    model.num_timesteps = int(state["num_timesteps"])
    model._n_updates = int(state["n_updates"])
    model._episode_num = int(state["episode_num"])
    if hasattr(model, "_n_calls"):
        model._n_calls = int(state["n_calls"])
    if hasattr(model, "exploration_rate"):
        model.exploration_rate = float(state["exploration_rate"])
    # SB3 keeps these statistics when a run continues (learn(reset_num_timesteps=False))
    from collections import deque

    model.ep_info_buffer = deque(_join(state["ep_info_buffer"], {}), maxlen=model._stats_window_size)
    model.ep_success_buffer = deque(maxlen=model._stats_window_size)
    rng = arrays("rng")
    torch.set_rng_state(_join(state["rng"]["torch"], rng))
    numpy_state = _join(state["rng"]["numpy"], rng, torch_tensors=False)
    np.random.set_state(numpy_state)
    python_state = _join(state["rng"]["python"], rng)
    random.setstate((python_state[0], tuple(python_state[1]), python_state[2]))
    if "replay" in state and getattr(model, "replay_buffer", None) is not None:
        buffer = model.replay_buffer
        for name, array in arrays("replay").items():
            target = getattr(buffer, name, None)
            if name not in _REPLAY_ARRAYS or target is None or target.shape != array.shape:
                warnings.warn(f"{source}: replay buffer array {name} does not fit; the buffer starts empty", stacklevel=2)
                buffer.pos, buffer.full = 0, False
                return
            target[...] = array
        buffer.pos = int(state["replay"]["pos"])
        buffer.full = bool(state["replay"]["full"])
