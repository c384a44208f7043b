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
                           hyper-parameters, Python's RNG state, and the
                           run's training time so far (``elapsed``)
``manifest.json``          size and SHA-256 of every file above, written last
=========================  ===================================================

Safetensors is a JSON header plus raw numbers and JSON is data, so nothing in a
checkpoint is ever unpickled or executed: a run directory from a stranger is
safe to resume. A checkpoint is written into a hidden temporary directory
(every file fsynced) and renamed into place, so a crash or a full disk leaves
the previous checkpoints intact; :func:`latest_good` verifies sizes (each
file's against the manifest before it is read, only regular files opened,
never blocking), checksums, that ``state.json`` and every tensor file read,
that the counters are integers in range (``num_timesteps`` the step the
directory is named after) and that what a resume restores is fit to train
from (finite tensors, episode statistics of numbers, optimizer
hyper-parameters in range, RNG states that load, a replay position inside
the buffer), and falls back to the previous checkpoint when the newest is
cut short, corrupt or forged; :func:`restore` refuses optimizer tensors of another shape
than their parameters, Adam states that are not whole and update
hyper-parameters other than the config builds. Rotation deletes only real ``step_<N>`` directories,
never a link.

SB3 ``.zip`` checkpoints (``checkpoint.sb3_zip: true``) are written beside them
for users who want them; they hold pickles, so kakurega never loads them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import warnings
from pathlib import Path

import numpy as np

from kakurega.agents.training.run_dir import fsync_directory, write_new
from kakurega.envs.core.safe_load import NotRegularFile, open_regular, read_at_most, short_repr

FORMAT = "kakurega-checkpoint"
FORMAT_VERSION = 1
PREFIX = "step_"
_REPLAY_ARRAYS = ("observations", "next_observations", "actions", "rewards", "dones", "timeouts", "next_action_masks")


class NewerCheckpointError(ValueError):
    """A checkpoint a newer kakurega wrote: never skipped as corrupt (the resume would delete it), refused."""


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
            try:
                return {_join(k, arrays, torch_tensors): _join(v, arrays, torch_tensors) for k, v in data["__items__"]}
            except (TypeError, ValueError):  # an unhashable key, or an item that is not a [key, value] pair
                raise CheckpointError(f"checkpoint: a mapping in state.json has an item that is not a [key, value] "
                                      f"pair of a hashable key: {short_repr(data['__items__'])}") from None
        raise CheckpointError(f"checkpoint: unexpected mapping {sorted(data)[:4]} in state.json")
    return data


def _array(arrays: dict, name) -> np.ndarray:
    if not isinstance(name, str) or name not in arrays:
        raise CheckpointError(f"checkpoint: state.json refers to a tensor {str(name)[:60]} that no file holds")
    return arrays[name]


# ----------------------------------------------------------------- writing
def global_rng_states() -> tuple:
    """The states of the global generators a checkpoint keeps: torch's, numpy's and Python's."""
    import torch

    return torch.get_rng_state(), np.random.get_state(), random.getstate()


def set_global_rng_states(states: tuple) -> None:
    """Put back :func:`global_rng_states`' states (Python's state may come as lists, as JSON reads it)."""
    import torch

    torch_state, numpy_state, python_state = states
    torch.set_rng_state(torch_state)
    np.random.set_state(numpy_state)
    random.setstate((python_state[0], tuple(python_state[1]), python_state[2]))


def _model_state(model, replay: bool, elapsed: dict | None = None) -> tuple[dict, dict]:
    """``(json_state, {file: arrays})`` of everything needed to continue training ``model``."""

    files: dict[str, dict] = {"weights": {}, "optimizer": {}, "rng": {}}
    files["weights"] = {k: v.detach().cpu().contiguous().numpy().copy() for k, v in model.policy.state_dict().items()}
    torch_rng, numpy_rng, python_rng = global_rng_states()
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
        "pending_logs": pending_logs(model),
        "optimizer": _split(model.policy.optimizer.state_dict(), files["optimizer"], "opt"),
        "rng": {
            "torch": _split(torch_rng, files["rng"], "torch"),
            "numpy": _split(numpy_rng, files["rng"], "numpy"),
            "python": _split(python_rng, files["rng"], "python"),
        },
    }
    if elapsed is not None:
        state["elapsed"] = {key: round(float(elapsed[key]), 3) for key in ELAPSED_KEYS}
    import torch

    state["torch_threads"] = int(torch.get_num_threads())  # the run's last bits depend on it (docs/training.md)
    if replay and getattr(model, "replay_buffer", None) is not None:
        buffer = model.replay_buffer
        files["replay"] = {name: getattr(buffer, name) for name in _REPLAY_ARRAYS if hasattr(buffer, name)}
        state["replay"] = {"pos": int(buffer.pos), "full": bool(buffer.full)}
    return state, files


#: the records a checkpoint keeps of those its logger holds unwritten: the last update's (SB3 writes them with the
#: next rollout's row, which a resumed run writes in its place)
PENDING_PREFIXES = ("train/",)
MAX_PENDING_LOGS = 200


def pending_logs(model) -> dict:
    """``{key: number}`` of the ``train/*`` records ``model``'s logger holds but has not written yet."""
    logger = getattr(model, "_logger", None)
    values = getattr(logger, "name_to_value", {}) or {}
    kept = {}
    for key, value in values.items():
        if isinstance(key, str) and key.startswith(PENDING_PREFIXES) and isinstance(value, (int, float, np.number)) \
                and not isinstance(value, bool) and np.isfinite(float(value)):
            kept[key] = int(value) if isinstance(value, (int, np.integer)) else float(value)
    return dict(list(kept.items())[:MAX_PENDING_LOGS])


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save(model, directory: Path, keep: int, replay: bool = False, sb3_zip: bool = False,
         elapsed: dict | None = None) -> Path:
    """Write a checkpoint of ``model`` into ``directory`` atomically, keep the newest ``keep``; returns its path.

    ``elapsed`` (``{"wall_seconds", "cpu_seconds"}``): the run's training time so far, which a resumed run
    counts on from (:func:`restore` returns it, with the torch thread count the checkpoint records).

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
        state, files = _model_state(model, replay, elapsed)
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


def step_of(path: Path) -> int:
    """The step of checkpoint ``path`` (``step_<N>``: :func:`verify` checks that its state holds ``N``)."""
    return int(Path(path).name[len(PREFIX):])


def checkpoints(directory: Path) -> list[Path]:
    """Checkpoint directories in ``directory``, oldest first (temporary ones and links excluded)."""
    found = [p for p in Path(directory).glob(f"{PREFIX}*")
             if p.is_dir() and not p.is_symlink() and p.name[len(PREFIX):].isdigit()]
    return sorted(found, key=lambda p: int(p.name[len(PREFIX):]))


# ----------------------------------------------------------------- reading
MAX_MANIFEST_BYTES = 1_000_000  #: bound of ``manifest.json``
MAX_STATE_BYTES = 50_000_000  #: bound of ``state.json``
_ARRAY_FILES = ("weights", "optimizer", "rng", "replay")


def _max_bytes(name: str) -> int:
    """The most bytes file ``name`` of a checkpoint may hold (what the config's limits allow a model and a buffer)."""
    from kakurega.agents.training.config import MAX_BUFFER_BYTES, MAX_NETWORK_BYTES

    return {"state.json": MAX_STATE_BYTES, "rng.safetensors": 1_000_000, "weights.safetensors": MAX_NETWORK_BYTES,
            "optimizer.safetensors": MAX_NETWORK_BYTES, "replay.safetensors": 2 * MAX_BUFFER_BYTES}[name]


def _read_regular(file: Path, *, size: int | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of regular file ``file``: exactly ``size`` of them, or at most ``max_bytes``.

    The file is opened by :func:`~kakurega.envs.core.safe_load.open_regular`
    (never blocking, checked after opening: no window to swap it): a FIFO, a
    device or a directory is refused, and so is a file of another size than
    the manifest records, however large it is, before anything is read.
    """
    try:
        descriptor, info = open_regular(file)
    except NotRegularFile:
        raise CheckpointError(f"{file}: not a regular file; a checkpoint holds only regular files") from None
    except OSError as error:
        raise CheckpointError(f"{file}: cannot be read ({error.strerror or error})") from None
    try:
        if size is not None and info.st_size != size:
            raise CheckpointError(f"{file}: {info.st_size} bytes, the manifest records {size} (corrupt or cut short)")
        if max_bytes is not None and info.st_size > max_bytes:
            raise CheckpointError(f"{file}: {info.st_size} bytes; the limit is {max_bytes}")
        data = read_at_most(descriptor, (size if size is not None else max_bytes) + 1)
    except OSError as error:
        raise CheckpointError(f"{file}: cannot be read ({error.strerror or error})") from None
    finally:
        os.close(descriptor)
    if (size is not None and len(data) != size) or (max_bytes is not None and len(data) > max_bytes):
        raise CheckpointError(f"{file}: changed size while it was read (corrupt or still being written)")
    return data


def _manifest_entry(path: Path, name, entry) -> tuple[str, int, str]:
    """``(name, bytes, sha256)`` of one manifest entry, refused unless it lists a checkpoint file in range."""
    known = ["state.json", *(f"{n}.safetensors" for n in _ARRAY_FILES)]
    if name not in known:
        raise CheckpointError(f"{path}/manifest.json lists {short_repr(str(name), 60)}; a checkpoint holds only "
                              f"{', '.join(known)}")
    size, digest = (entry.get("bytes"), entry.get("sha256")) if isinstance(entry, dict) else (None, None)
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= _max_bytes(name):
        raise CheckpointError(f"{path}/manifest.json: {name} bytes = {short_repr(size)}; expected an integer from 0 to "
                              f"{_max_bytes(name)}")
    if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise CheckpointError(f"{path}/manifest.json: {name} sha256 = {short_repr(digest)}; expected 64 hex digits")
    return name, size, digest


def verify(path: Path) -> dict:
    """``{file name: bytes}`` of checkpoint ``path`` after checking the manifest's sizes and checksums and the content.

    Every file's size is compared with the manifest (and the manifest's own
    with :data:`MAX_MANIFEST_BYTES`) before it is read; the content must then
    be fit to resume from: finite tensors, counters in range, episode
    statistics of numbers, optimizer hyper-parameters and RNG states that load.
    """
    from kakurega.envs.core.safe_load import load_text

    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise CheckpointError(f"{path}: no manifest.json (the checkpoint was cut short)")
    raw = _read_regular(manifest_path, max_bytes=MAX_MANIFEST_BYTES)
    manifest = load_text(raw, str(manifest_path), json_only=True, max_bytes=MAX_MANIFEST_BYTES, error=CheckpointError)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(manifest.get("files"), dict):
        raise CheckpointError(f"{manifest_path}: not a kakurega checkpoint manifest")
    contents = {}
    for name, entry in manifest["files"].items():
        name, size, digest = _manifest_entry(path, name, entry)
        file = path / name
        if not file.is_file():
            raise CheckpointError(f"{path}: {name} is missing")
        data = _read_regular(file, size=size)
        if _sha256(data) != digest:
            raise CheckpointError(f"{file}: size or checksum differs from the manifest (corrupt or cut short)")
        contents[name] = data
    if "state.json" not in contents or "weights.safetensors" not in contents:
        raise CheckpointError(f"{path}: the manifest lacks state.json or weights.safetensors")
    # a checksum only proves the files are the ones the manifest lists: check that they read, too
    state = _read_state(contents["state.json"], path)
    kept = {}
    for name in contents:
        if name.endswith(".safetensors"):
            arrays = _read_arrays(contents[name], f"{path}/{name}")
            _check_finite(arrays, f"{path}/{name}")
            if name in ("optimizer.safetensors", "rng.safetensors", "replay.safetensors"):
                kept[name[: -len(".safetensors")]] = arrays if name != "replay.safetensors" else {
                    k: v.shape for k, v in arrays.items()}
    try:
        _check_content(state, kept, path)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RecursionError) as error:
        if isinstance(error, CheckpointError):
            raise
        raise CheckpointError(f"{path}/state.json does not hold what a resume restores: {str(error)[:200]}") from None
    step = path.name[len(PREFIX):]
    if step.isdigit() and not (state["num_timesteps"] == manifest.get("step") == int(step)):
        raise CheckpointError(
            f"{path}: state.json says num_timesteps {short_repr(state['num_timesteps'])} and the manifest step "
            f"{short_repr(manifest.get('step'))}; a checkpoint of step {step} holds {step} in both"
        )
    return contents


def _check_finite(arrays: dict, source: str) -> None:
    """Refuse a floating tensor holding NaN or an infinity (a policy trained from it would be NaN)."""
    for key, array in arrays.items():
        if array.dtype.kind not in "fc":
            continue
        flat = array.reshape(-1)
        for start in range(0, flat.size, 1 << 20):  # in slices: no temporary the size of a replay buffer
            if not np.isfinite(flat[start : start + (1 << 20)]).all():
                raise CheckpointError(f"{source}: tensor {short_repr(key, 60)} holds NaN or infinite values; "
                                      "expected finite numbers")


def _is_number(value) -> bool:
    """A finite int or float (an int of any size is refused beyond 2**63: nothing restored needs more)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) < 2**63 if isinstance(value, int) else math.isfinite(value)


_EP_INFO_KEYS = ("r", "l", "t")  #: SB3's episode statistics: reward, length, time
_OPTIMIZER_BOUNDS = {"lr": (0, math.inf), "eps": (0, math.inf), "weight_decay": (0, math.inf)}
#: torch's switches of a parameter group: true, false or null, never a number
_OPTIMIZER_FLAGS = ("amsgrad", "maximize", "foreach", "capturable", "differentiable", "fused", "decoupled_weight_decay")
#: hyper-parameters that change the update: a checkpoint holds those the config builds (the learning rate follows
#: SB3's schedule and foreach/fused are how this torch runs it, so those may differ)
_SAME_AS_BUILT = ("betas", "eps", "weight_decay", "amsgrad", "maximize", "decoupled_weight_decay")


def _check_content(state: dict, arrays: dict, source: Path) -> None:
    """Refuse restored state that would crash or poison training later: episode statistics, optimizer, RNGs, replay."""
    where = f"{source}/state.json"
    episodes = _join(state["ep_info_buffer"], {})
    if not isinstance(episodes, list) or len(episodes) > 1_000_000 or not all(
        isinstance(e, dict) and set(_EP_INFO_KEYS) <= set(e) and all(isinstance(k, str) and _is_number(v)
                                                                      for k, v in e.items())
        for e in episodes
    ):
        raise CheckpointError(f"{where}: ep_info_buffer = {short_repr(episodes)}; expected a list of episode "
                              "statistics {r: reward, l: length, t: time}, each a finite number")
    _check_optimizer_state(_join(state["optimizer"], arrays.get("optimizer", {}), torch_tensors=False), where)
    _check_rng(state["rng"], arrays.get("rng", {}), where)
    if "replay" in state:
        replay = state["replay"]
        lengths = {shape[0] if shape else 0 for shape in arrays.get("replay", {}).values()}
        pos = replay.get("pos") if isinstance(replay, dict) else None
        size = lengths.pop() if len(lengths) == 1 else 0  # the buffer's length, 0 (refused) when the arrays differ
        if not (isinstance(replay, dict) and isinstance(replay.get("full"), bool) and isinstance(pos, int)
                and not isinstance(pos, bool) and 0 <= pos < size):
            raise CheckpointError(f"{where}: replay = {short_repr(replay)}; expected {{pos: an index into the replay "
                                  "buffer, full: true or false}} and arrays of one length in replay.safetensors")


def _check_optimizer_state(optimizer, where: str) -> None:
    """The optimizer's ``state_dict``: per-parameter states of finite numbers, hyper-parameters in range."""
    def fail(what: str):
        return CheckpointError(f"{where}: optimizer {what}")

    if not isinstance(optimizer, dict) or set(optimizer) != {"state", "param_groups"}:
        raise fail("is not an optimizer state; expected {state, param_groups}")
    if not isinstance(optimizer["state"], dict) or not isinstance(optimizer["param_groups"], list):
        raise fail("state must be a mapping and param_groups a list")
    for index, values in optimizer["state"].items():
        if not isinstance(values, dict):
            raise fail(f"state of parameter {short_repr(index)} is not a mapping")
        for name, value in values.items():
            if not (isinstance(value, np.ndarray) or _is_number(value)):
                raise fail(f"state {short_repr(name)} of parameter {short_repr(index)} = {short_repr(value)}; "
                           "expected a tensor or a finite number")
            if name in ("exp_avg_sq", "max_exp_avg_sq") and (np.asarray(value) < 0).any():
                raise fail(f"state {name} of parameter {short_repr(index)} holds negative values (a mean of squares)")
    for number, group in enumerate(optimizer["param_groups"]):
        if not isinstance(group, dict) or not isinstance(group.get("params"), list):
            raise fail(f"param_groups[{number}] is not a parameter group (a mapping with params)")
        for key, value in group.items():
            if key == "params":
                ok = all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in value)
            elif key in _OPTIMIZER_FLAGS:
                ok = value is None or isinstance(value, bool)
            elif isinstance(value, (tuple, list)):
                ok = all(_is_number(v) for v in value) and (key != "betas" or all(0 <= v < 1 for v in value))
            else:
                low, high = _OPTIMIZER_BOUNDS.get(key, (-math.inf, math.inf))
                ok = value is None or isinstance(value, bool) or (_is_number(value) and low <= value <= high)
            if not isinstance(key, str) or not ok:
                raise fail(f"param_groups[{number}].{short_repr(key, 40)} = {short_repr(value)}; expected finite "
                           "numbers (lr, eps, weight_decay non-negative, betas from 0 to below 1), true, false or null "
                           f"({', '.join(_OPTIMIZER_FLAGS)} true, false or null)")


def _check_rng(rng: dict, arrays: dict, where: str) -> None:
    """Load the RNG states into throwaway generators: the global ones are set only from states that load."""
    import torch

    try:
        torch.Generator().set_state(_join(rng["torch"], arrays))
        np.random.RandomState().set_state(_join(rng["numpy"], arrays, torch_tensors=False))
        python = _join(rng["python"], arrays)
        random.Random().setstate((python[0], tuple(python[1]), python[2]))
    except CheckpointError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, OverflowError, RuntimeError) as error:
        raise CheckpointError(f"{where}: an RNG state does not load ({str(error)[:200]}); expected the states "
                              "torch, numpy and Python save") from None


_COUNTERS = ("num_timesteps", "n_updates", "episode_num", "n_calls")
#: the run's training time a checkpoint records (seconds; absent from checkpoints before 2026-12-07)
ELAPSED_KEYS = ("wall_seconds", "cpu_seconds")
MAX_ELAPSED = 1e10  #: bound of a recorded time (about 317 years)
MAX_THREADS = 1024  #: bound of a recorded torch thread count (the config's bound)
MAX_COUNTER = 2**53  #: bound of a checkpoint's counters (every integer up to it is exact in JSON readers)
_STATE_KEYS = ("algorithm", "num_timesteps", "n_updates", "episode_num", "n_calls", "exploration_rate",
               "ep_info_buffer", "optimizer", "rng")


def _read_state(data: bytes, source: Path) -> dict:
    """The checkpoint's ``state.json``, refused unless it holds every counter and state a resume needs."""
    from kakurega.envs.core.safe_load import load_text

    state = load_text(data, f"{source}/state.json", json_only=True, max_bytes=MAX_STATE_BYTES, max_nodes=2_000_000,
                      error=CheckpointError)
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{source}/state.json is not a kakurega checkpoint state")
    version = state.get("format_version", 1)
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        raise NewerCheckpointError(f"{source} was written by a newer kakurega (checkpoint format version {version}; "
                                   f"this one reads versions 1 to {FORMAT_VERSION}): resume the run with that kakurega")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version:
        raise CheckpointError(f"{source}/state.json: format_version = {short_repr(version)}; this kakurega reads "
                              f"versions 1 to {FORMAT_VERSION}")
    missing = [key for key in _STATE_KEYS if key not in state]
    if missing or not isinstance(state["rng"], dict) or not {"torch", "numpy", "python"} <= set(state["rng"]):
        raise CheckpointError(f"{source}/state.json lacks {', '.join(missing) or 'rng states'}")
    for key in _COUNTERS:
        value = state[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNTER:
            raise CheckpointError(f"{source}/state.json: {key} = {short_repr(value)}; expected an integer from 0 to "
                                  f"{MAX_COUNTER}")
    pending = state.setdefault("pending_logs", {})  # (absent from checkpoints older than it: none)
    if (not isinstance(pending, dict) or len(pending) > MAX_PENDING_LOGS
            or not all(isinstance(k, str) and k.startswith(PENDING_PREFIXES) and len(k) <= 200 and _is_number(v)
                       for k, v in pending.items())):
        raise CheckpointError(f"{source}/state.json: pending_logs = {short_repr(pending)}; expected at most "
                              f"{MAX_PENDING_LOGS} finite numbers named train/...")
    elapsed = state.setdefault("elapsed", None)  # (absent from checkpoints older than it: not known)
    if elapsed is not None and (not isinstance(elapsed, dict) or set(elapsed) != set(ELAPSED_KEYS) or not all(
            _is_number(v) and 0 <= v <= MAX_ELAPSED for v in elapsed.values())):
        raise CheckpointError(f"{source}/state.json: elapsed = {short_repr(elapsed)}; expected "
                              f"{{{', '.join(ELAPSED_KEYS)}}}, each a number of seconds from 0 to {MAX_ELAPSED:g}")
    threads = state.setdefault("torch_threads", None)  # (absent from checkpoints older than it: not known)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 1 <= threads <= MAX_THREADS):
        raise CheckpointError(f"{source}/state.json: torch_threads = {short_repr(threads)}; expected an integer from 1 "
                              f"to {MAX_THREADS}")
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
    """The newest checkpoint that verifies, with its contents; a bad newer one is reported and skipped (one a
    newer kakurega wrote raises :class:`NewerCheckpointError`: skipping it would cut the run back over it)."""
    for path in reversed(checkpoints(directory)):
        try:
            return path, verify(path)
        except CheckpointError as error:
            say(f"warning: skipping checkpoint {path.name}: {error}")
    return None


def restore(model, contents: dict, source: Path) -> dict:
    """Load verified checkpoint ``contents`` into a freshly built ``model`` of the same config; returns what the
    checkpoint recorded of the run: ``{"elapsed": {"wall_seconds", "cpu_seconds"}, "torch_threads": int}``, each
    None where it has none (checkpoints older than 2026-12-07)."""

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
    elapsed = None if state["elapsed"] is None else {key: float(state["elapsed"][key]) for key in ELAPSED_KEYS}
    return {"elapsed": elapsed, "torch_threads": state["torch_threads"]}


def threads_note(recorded: int | None) -> str | None:
    """A warning when this process runs torch on another number of threads than the checkpoint's run did (its
    numbers then differ in the last bits from those of a run that never stopped); None when they agree."""
    import torch

    now = torch.get_num_threads()
    if recorded is None or recorded == now:
        return None
    return (f"warning: the run saved this checkpoint with torch on {recorded} thread{'s' * (recorded != 1)}, this "
            f"process uses {now}: the resumed run's numbers will differ in the last bits from a run that never "
            "stopped (set torch_threads to the same count to repeat them)")


def _check_optimizer_fits(optimizer, built: list[dict], source: Path) -> None:
    """Raise :class:`CheckpointError` unless every per-parameter state (Adam's moments) has its parameter's shape,
    Adam's states are whole and the hyper-parameters that change the update are those the config builds (``built``:
    the parameter groups before loading).

    ``load_state_dict`` checks only the number of parameters; a moment of another
    shape, or a missing one, would load and crash the first update.
    """
    import torch

    for number, (group, fresh) in enumerate(zip(optimizer.param_groups, built)):
        for key in _SAME_AS_BUILT:
            if key in group and key in fresh:
                value = tuple(group[key]) if isinstance(group[key], list) else group[key]
                if value != fresh[key]:
                    raise CheckpointError(
                        f"{source} does not fit the model this config builds: optimizer {key} = {short_repr(value)} "
                        f"in parameter group {number}, the config builds {short_repr(fresh[key])}"
                    )
    for group in optimizer.param_groups:
        whole = {"step", "exp_avg", "exp_avg_sq"} | ({"max_exp_avg_sq"} if group.get("amsgrad") else set())
        for index, param in enumerate(group["params"]):
            state = optimizer.state.get(param, {})
            if isinstance(optimizer, torch.optim.Adam) and state and not whole <= set(state):
                raise CheckpointError(
                    f"{source} does not fit the model this config builds: optimizer state of parameter {index} "
                    f"holds {', '.join(sorted(map(str, state)))}; Adam needs {', '.join(sorted(whole))}"
                )
            for name, value in state.items():
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
    built = [{k: v for k, v in group.items() if k != "params"} for group in model.policy.optimizer.param_groups]
    model.policy.optimizer.load_state_dict(_join(state["optimizer"], arrays("optimizer")))
    _check_optimizer_fits(model.policy.optimizer, built, source)
    model.num_timesteps = int(state["num_timesteps"])
    model._n_updates = int(state["n_updates"])
    model._episode_num = int(state["episode_num"])
    if hasattr(model, "_n_calls"):
        model._n_calls = int(state["n_calls"])
    if hasattr(model, "continue_exploration"):  # MaskedDQN: epsilon goes on from here, never up again
        model.continue_exploration(state["exploration_rate"])
    elif hasattr(model, "exploration_rate"):
        model.exploration_rate = float(state["exploration_rate"])
    # SB3 keeps these statistics when a run continues (learn(reset_num_timesteps=False))
    from collections import deque

    model.ep_info_buffer = deque(_join(state["ep_info_buffer"], {}), maxlen=model._stats_window_size)
    model.ep_success_buffer = deque(maxlen=model._stats_window_size)
    for key, value in state["pending_logs"].items():  # the last update's records, written with the next row
        model.logger.record(key, value)
    rng = arrays("rng")
    set_global_rng_states((_join(state["rng"]["torch"], rng), _join(state["rng"]["numpy"], rng, torch_tensors=False),
                           _join(state["rng"]["python"], rng)))
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
