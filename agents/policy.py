"""Policy files: trained networks that load as opponents anywhere, without running code from the file.

A policy file is one ``.safetensors`` file (a directory holding
``policy.safetensors`` is accepted too). The weights are plain tensors
``layer_<i>.weight`` / ``layer_<i>.bias`` of a multi-layer perceptron; the
safetensors header's metadata carries, under the key ``kakurega_policy``, a
JSON document describing everything needed to use the weights safely:

=====================  =======================================================
``format``             ``"kakurega-policy"`` (``format_version`` 1; 2 for a
                       network with layer normalization, which older
                       readers refuse instead of misreading)
``env``                registry name, e.g. ``"kakurenbo_v0"``; ``env_version``
``env_options``        every ``raw_env`` option, defaults filled in
``observation_size``   length of the observation vector
``num_actions``        size of the action space; ``num_players``
``algorithm``          ``"ppo"`` (outputs are logits) or ``"dqn"`` (Q-values)
``training_steps``     environment steps the learner had taken when saved
``network``            ``{"type": "mlp", "sizes": [in, h1, ..., out], "activation": "tanh"}``;
                       ``value_sizes`` ``[in, h1, ..., 1]`` when the file has a value head;
                       ``layer_norm``: optional, one entry per hidden layer,
                       ``null`` or the epsilon of a layer normalization
                       applied after that layer's affine map and before its
                       activation (weights ``layer_<i>.norm_weight`` and
                       ``layer_<i>.norm_bias``), as torch's ``nn.LayerNorm``
``inputs``             optional: the observation pieces the network reads,
                       concatenated in order (default ``["observation"]``;
                       ``["action_mask", "observation"]`` for a network that
                       also reads the mask, e.g. SB3's ``MultiInputPolicy``;
                       ``["observation", "move_features"]`` for one trained
                       with ``network.move_features``, whose file then gives
                       ``move_features_size`` and, for a version after
                       the first, ``move_features_version``: see
                       :mod:`~kakurega.agents.move_features`); with
                       ``network.feature_head`` (one number per measurement
                       of an action's row of move features) the features
                       are not MLP inputs but add ``features @ head`` to each
                       action's logit (:mod:`~kakurega.agents.training.feature_head`)
``mix``                optional, a boolean: play the decisions the game's
                       mixed play takes (:mod:`~kakurega.agents.mixed_play`)
                       from it, not from the network (default false)
``serves``             optional: other configurations of the same env the
                       policy plays, each a mapping of every ``raw_env``
                       option (defaults filled in), e.g. a bot trained on
                       single rounds that also plays whole matches; loading
                       into one checks that its observation and action
                       spaces are the trained configuration's, piece by piece
                       (:func:`space_differences`)
=====================  =======================================================

Weights are float32, float16 or int8; an int8 matrix comes with
``<name>.weight_scale``, one float per output row (``save_policy``'s
``precision``; the shipped bots are int8). All are read back as float32.

A PPO file may also hold the critic, ``value_<i>.weight`` / ``value_<i>.bias``
(same activation): the expected discounted return of the player whose
observation it reads. Search uses it to score positions
(``ismcts:prior=policy:PATH``); playing never needs it.

Safetensors is a JSON header plus raw little-endian numbers, so reading it
never unpickles anything; pickles, torch ``.pt`` files and SB3 ``.zip``
checkpoints (zip archives of pickles) are refused with an explanation. The
forward pass runs in numpy: playing against a policy needs no torch.

>>> agent = load("runs/kakurenbo_ppo/policy.safetensors")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.envs.core.safe_load import load_text, short_repr

FORMAT = "kakurega-policy"
FORMAT_VERSION = 2
#: the version written for a network without layer normalization (readable by every kakurega)
PLAIN_FORMAT_VERSION = 1
METADATA_KEY = "kakurega_policy"
DIRECTORY_FILE = "policy.safetensors"
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "identity": lambda x: x,
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
}
_REQUIRED = ("env", "env_options", "observation_size", "num_actions", "algorithm", "network")
#: bounds of what a policy file may describe: metadata text, layers, units per layer (and input/output sizes)
MAX_METADATA_BYTES = 100_000
MAX_LAYERS = 64
MAX_LAYER_SIZE = 1 << 16
MAX_SAFETENSORS_HEADER = 100_000_000  #: the safetensors format's own bound of its JSON header
MAX_SERVED = 64  #: bound of the other configurations one file may declare it serves (``serves``)
#: bound of the tensors a policy file holds (weights and biases of every layer, of the value head, their norms),
#: checked from the header before any tensor is read
MAX_TENSORS = 8 * MAX_LAYERS
#: bound of a policy file's safetensors header (its metadata, and a line per tensor), checked before it is parsed
MAX_POLICY_HEADER = 1_000_000
#: bound of the numbers a policy file's tensors hold together, checked from the header before any tensor is read
#: (each is read as float32: about 1 GiB; every network ``kakurega train`` builds has fewer, its training state
#: being at most 4 GiB at 16 bytes a weight or more: 2**28 weights, and the 2**22 leave room for the layer
#: norms and int8 scales that bound does not count)
MAX_POLICY_NUMBERS = 2**28 + 2**22
#: bound of a policy file's size: its header and MAX_POLICY_NUMBERS float32 numbers, checked before it is read
MAX_POLICY_BYTES = 8 + MAX_POLICY_HEADER + 4 * MAX_POLICY_NUMBERS
#: the pieces of an observation dict a network may read, and the default input
INPUT_PIECES = ("observation", "action_mask", "move_features")
DEFAULT_INPUTS = ("observation",)
# Options that change how an env is shown, never what a policy sees.
_COSMETIC_OPTIONS = ("render_mode", "render_view")


class PolicyFileError(ValueError):
    """A policy file that cannot be used: corrupt, unsafe, or made for another env."""


class MLPLayers(list):
    """An MLP's ``(weight[out, in], bias[out])`` pairs, input first, with its layer normalizations.

    ``norms`` has one entry per hidden layer: ``None``, or ``(eps, weight, bias)`` of a layer
    normalization applied after that layer's affine map, before the activation (``nn.LayerNorm``
    over the layer's outputs). A plain list of pairs is an MLP without normalization.
    """

    def __init__(self, pairs=(), norms=None):
        super().__init__(pairs)
        self.norms = list(norms) if norms is not None else [None] * max(len(self) - 1, 0)


def layer_norms(layers) -> list:
    """The per-hidden-layer normalizations of ``layers`` (all ``None`` for a plain list of pairs)."""
    return list(getattr(layers, "norms", None) or [None] * max(len(layers) - 1, 0))


# --------------------------------------------------------------------- options
def resolved_env_options(env_name: str, env_kwargs: dict | None = None) -> dict:
    """``env_kwargs`` with every other ``raw_env`` option at its default (cosmetic ones dropped)."""
    from kakurega.envs.registry import get_spec

    options = {**get_spec(env_name).option_defaults(), **(env_kwargs or {})}
    for name in _COSMETIC_OPTIONS:
        options.pop(name, None)
    return {k: _jsonable(v) for k, v in sorted(options.items())}


def _jsonable(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)  # e.g. a map object passed as an option: recorded, compared by its repr


def env_version(env_name: str) -> int:
    """The version number in a registry name: ``"kakurenbo_v0"`` -> 0."""
    _, _, version = env_name.rpartition("_v")
    return int(version) if version.isdigit() else 0


# ------------------------------------------------------------------- writing
#: how ``save_policy`` may store the weights (all are read back as float32)
PRECISIONS = ("float32", "float16", "int8")


def quantize_rows(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(q, scale)`` with ``q`` int8 and ``weight ~= q * scale[:, None]``: symmetric, one scale per row.

    Each row's largest magnitude maps to 127, so a row's error is at most half
    its scale; an all-zero row gets scale 1 (and stays zero).
    """
    weight = np.asarray(weight, dtype=np.float32)
    peak = np.abs(weight).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(weight / scale[:, None]), -127, 127).astype(np.int8)
    return np.ascontiguousarray(q), scale


#: float16's largest finite value: a weight beyond it would be stored as infinity
HALF_MAX = float(np.finfo(np.float16).max)


def save_policy(path: str | os.PathLike, layers: list[tuple[np.ndarray, np.ndarray]], metadata: dict,
                value_layers: list[tuple[np.ndarray, np.ndarray]] | None = None, precision: str = "float32") -> Path:
    """Write a policy file: ``layers`` are ``(weight[out, in], bias[out])`` pairs, input first.

    ``metadata`` must hold the keys listed in the module docstring; ``format``
    and ``network.sizes`` (``network.value_sizes`` with ``value_layers``, the
    critic ending in one output) are filled in here. A directory path gets
    ``policy.safetensors`` inside it. ``precision="float16"`` stores the
    weights in half precision (half the size); ``precision="int8"`` stores
    each weight matrix as int8 with one float32 scale per output row
    (``<name>.weight_scale``: row = int8 * scale, symmetric, the row's largest
    magnitude mapped to 127) and the biases in float32, a quarter of the
    float32 size, for the files shipped in the package. Both are read back as
    float32. Returns the file written.
    """
    from safetensors.numpy import save as to_bytes

    if precision not in PRECISIONS:
        raise ValueError(f"save_policy: precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")

    def store(name: str, weight: np.ndarray, bias: np.ndarray) -> None:
        if precision == "int8":
            q, scale = quantize_rows(weight)
            tensors[f"{name}.weight"], tensors[f"{name}.weight_scale"] = q, scale
            tensors[f"{name}.bias"] = np.ascontiguousarray(bias, dtype=np.float32)
        else:
            dtype = np.float16 if precision == "float16" else np.float32
            for part, values in (("weight", weight), ("bias", bias)):
                if dtype == np.float16 and np.isfinite(values).all() and np.abs(values).max(initial=0) > HALF_MAX:
                    raise ValueError(f"save_policy: {name}.{part} holds {float(np.abs(values).max()):.6g}, beyond "
                                     f"float16's largest value {HALF_MAX:g}: save it with precision float32 or int8")
                tensors[f"{name}.{part}"] = np.ascontiguousarray(values, dtype=dtype)

    path = Path(path)
    if path.is_dir() or (not path.suffix and not path.exists()):
        path.mkdir(parents=True, exist_ok=True)
        path = path / DIRECTORY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {}
    sizes = [int(layers[0][0].shape[1])]
    for i, (weight, bias) in enumerate(layers):
        store(f"layer_{i}", weight, bias)
        sizes.append(int(weight.shape[0]))
    meta = dict(metadata)
    meta["format"] = FORMAT
    meta["network"] = dict(meta.get("network", {}), type="mlp", sizes=sizes)
    meta["network"].pop("value_sizes", None)
    meta["network"].pop("layer_norm", None)
    norms = layer_norms(layers)
    if len(norms) != len(layers) - 1:
        raise ValueError(f"save_policy: {len(norms)} layer norms for {len(layers) - 1} hidden layers")
    for i, norm in enumerate(norms):
        if norm is not None:
            eps, weight, bias = norm
            tensors[f"layer_{i}.norm_weight"] = np.ascontiguousarray(weight, dtype=np.float32)
            tensors[f"layer_{i}.norm_bias"] = np.ascontiguousarray(bias, dtype=np.float32)
    if any(norm is not None for norm in norms):
        meta["network"]["layer_norm"] = [None if norm is None else float(norm[0]) for norm in norms]
    meta["format_version"] = FORMAT_VERSION if "layer_norm" in meta["network"] else PLAIN_FORMAT_VERSION
    if value_layers:
        value_sizes = [int(value_layers[0][0].shape[1])]
        for i, (weight, bias) in enumerate(value_layers):
            store(f"value_{i}", weight, bias)
            value_sizes.append(int(weight.shape[0]))
        if value_sizes[0] != sizes[0] or value_sizes[-1] != 1:
            raise ValueError(f"save_policy: the value head maps {value_sizes[0]} -> {value_sizes[-1]}; expected {sizes[0]} -> 1")
        meta["network"]["value_sizes"] = value_sizes
    missing = [k for k in _REQUIRED if k not in meta]
    if missing:
        raise ValueError(f"save_policy: metadata lacks {', '.join(missing)}")
    if meta["network"].get("activation") not in ACTIVATIONS:
        raise ValueError(
            f"save_policy: activation {meta['network'].get('activation')!r} is not supported; "
            f"expected one of {sorted(ACTIVATIONS)}"
        )
    from kakurega.agents.training.run_dir import fsync_directory, write_new

    data = to_bytes(tensors, metadata={METADATA_KEY: json.dumps(_jsonable(meta), sort_keys=True)})
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)  # a stale one, or a link: a new file is made, never written through a link
    write_new(tmp, data)  # fsynced before the rename: a power cut leaves the old file or the new one
    os.replace(tmp, path)  # never leave a half-written policy behind
    fsync_directory(path.parent)
    return path


# ------------------------------------------------------------------- reading
def _resolve_file(path: str | os.PathLike) -> Path:
    try:
        return _resolve(Path(path))
    except OSError as error:  # e.g. a name too long, a folder that cannot be read
        raise PolicyFileError(f"policy file {short_repr(str(path))}: {error.strerror or error}") from None


def _resolve(path: Path) -> Path:
    if path.is_dir():
        inner = path / DIRECTORY_FILE
        if not inner.is_file():
            raise PolicyFileError(f"policy directory {path} has no {DIRECTORY_FILE}")
        return inner
    if not path.is_file():
        if path.exists():  # a device, a FIFO or a socket: never opened
            raise PolicyFileError(f"policy file {path} is not a regular file; expected a policy file "
                                  f"(policy.safetensors) or a run directory holding one")
        raise PolicyFileError(f"policy file {path} does not exist")
    return path


def _read_safetensors_bytes(path: Path) -> tuple[bytes, dict | None]:
    """``(the file's bytes, its parsed header)``, read once from one open descriptor; anything that is not a
    well-formed safetensors container of a policy's size is refused, naming what it looks like. The tensors' sizes
    are read from the header, before any tensor's bytes are (a ``None`` header: not a JSON object, which
    safetensors then refuses in its words)."""
    from kakurega.envs.core.safe_load import NotRegularFile, open_regular, read_at_most

    try:
        descriptor, info = open_regular(path)
    except NotRegularFile as error:
        raise PolicyFileError(f"policy file {path} is {error.strerror}, not a regular file; expected a policy file "
                              "(policy.safetensors) or a run directory holding one") from None
    except OSError as error:
        raise PolicyFileError(f"policy file {path} cannot be read ({error.strerror or error})") from None
    size = info.st_size
    try:
        head = read_at_most(descriptor, 9)
        if len(head) == 9:
            (header_len,) = struct.unpack("<Q", head[:8])
            # a safetensors file: a little-endian header length (under 100 MB, so its high bytes are zero: no pickle
            # starts so), then the JSON header; the length's first byte may be anything, '(' or 0x80 included
            if head[8:9] == b"{" and header_len < MAX_SAFETENSORS_HEADER:
                if header_len > MAX_POLICY_HEADER:
                    raise PolicyFileError(
                        f"{path}: a safetensors header of {header_len} bytes; a policy file's header (its metadata "
                        f"and a line per tensor) holds at most {MAX_POLICY_HEADER}"
                    )
                if header_len > size - 8:
                    raise PolicyFileError(
                        f"{path} is a safetensors file cut short or corrupt: its header needs {header_len + 8} bytes, "
                        f"the file holds {size}; copy or export the policy again"
                    )
                if size > MAX_POLICY_BYTES:
                    raise PolicyFileError(f"{path}: {size} bytes; a policy file holds at most {MAX_POLICY_BYTES} (its "
                                          f"header and {MAX_POLICY_NUMBERS} float32 numbers)")
                header = head[8:] + read_at_most(descriptor, header_len - 1)
                declared = _check_declared_numbers(path, header)
                # the rest from the same descriptor, never past the bound: a file that grew since is refused too
                data = head[:8] + header + read_at_most(descriptor, MAX_POLICY_BYTES + 1 - 8 - len(header))
                if len(data) > MAX_POLICY_BYTES:
                    raise PolicyFileError(f"{path}: over {MAX_POLICY_BYTES} bytes; a policy file holds at most "
                                          f"{MAX_POLICY_BYTES} (its header and {MAX_POLICY_NUMBERS} float32 numbers)")
                return data, declared
    except OSError as error:
        raise PolicyFileError(f"policy file {path} cannot be read ({error.strerror or error})") from None
    finally:
        os.close(descriptor)
    if head[:4] == b"PK\x03\x04":
        raise PolicyFileError(
            f"{path} is a zip archive (a torch .pt file or an SB3 .zip checkpoint, which contain pickles); "
            "kakurega refuses to load it as a policy. Use the policy.safetensors written next to the "
            "checkpoint, or export one with kakurega.agents.training.export_policy."
        )
    # protocol 2+ pickles start with PROTO (0x80); protocol 0/1 ones with MARK, GLOBAL, list or dict opcodes
    if head[:1] in (b"\x80", b"(", b"c", b"]", b"}"):
        raise PolicyFileError(
            f"{path} is a Python pickle; kakurega never loads pickles (they can run arbitrary code). "
            "Policy files are safetensors; export one with kakurega.agents.training.export_policy."
        )
    if len(head) < 9:
        raise PolicyFileError(f"{path} is too short ({size} bytes) to be a safetensors policy file")
    raise PolicyFileError(f"{path} is corrupt or not a safetensors policy file (bad header)")


def _check_declared_numbers(path: Path, header: bytes) -> dict | None:
    """The parsed header, refused when its tensors hold more than :data:`MAX_POLICY_NUMBERS` numbers together (a
    sparse file may declare gigabytes it does not store); a header that is not what safetensors reads is left to it
    (``None`` when it is not a JSON object)."""
    declared = load_text(header, f"{path}: safetensors header", json_only=True, max_bytes=MAX_POLICY_HEADER,
                         error=PolicyFileError)
    if not isinstance(declared, dict):
        return None
    numbers = 0
    for name, entry in declared.items():
        shape = entry.get("shape") if isinstance(entry, dict) and name != "__metadata__" else None
        if not isinstance(shape, list) or not all(_is_int(n) and n >= 0 for n in shape) or 0 in shape:
            continue
        count = 1
        for n in shape:  # stopped at the bound: a shape of many dimensions never makes a huge product
            count *= n
            if count > MAX_POLICY_NUMBERS:
                break
        numbers += count
    if numbers > MAX_POLICY_NUMBERS:
        raise PolicyFileError(f"{path}: its tensors hold {numbers} numbers; a policy file holds at most "
                              f"{MAX_POLICY_NUMBERS} (MAX_POLICY_NUMBERS)")
    return declared


def read_policy(path: str | os.PathLike, with_value: bool = False):
    """``(metadata, layers)`` of a policy file, validated for internal consistency.

    ``with_value=True``: ``(metadata, layers, value_layers)``, the last ``None``
    when the file has no value head.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load as load_tensors

    file = _resolve_file(path)
    data, declared = _read_safetensors_bytes(file)  # the bytes read once: the tensors are those the checks read
    keys = [key for key in declared or () if key != "__metadata__"]
    if len(keys) > MAX_TENSORS:
        raise PolicyFileError(f"{file}: holds {len(keys)} tensors; a policy file holds at most {MAX_TENSORS} (two "
                              f"per layer, of at most {MAX_LAYERS} layers, its value head and their norms)")
    try:
        tensors = load_tensors(data)
    except (SafetensorError, ValueError, KeyError, TypeError) as error:  # KeyError: a dtype numpy has no type for
        raise PolicyFileError(f"{file} is corrupt: {error}") from None
    metadata = declared.get("__metadata__") if declared else None  # safetensors checked it: names to strings
    header = metadata if isinstance(metadata, dict) else {}
    if METADATA_KEY not in header:
        raise PolicyFileError(f"{file} is a safetensors file but not a kakurega policy (no '{METADATA_KEY}' metadata)")
    meta = load_text(header[METADATA_KEY], f"{file}: metadata", json_only=True, max_bytes=MAX_METADATA_BYTES,
                     error=PolicyFileError)
    _check_metadata(meta, file)
    network = meta["network"]
    sizes = network["sizes"]
    layers = MLPLayers(_read_layers(file, tensors, "layer", sizes), _read_norms(file, tensors, network, sizes))
    value_sizes = network.get("value_sizes")
    value_layers = _read_layers(file, tensors, "value", value_sizes) if value_sizes is not None else None
    described = 2 * len(layers) + 2 * len(value_layers or ()) + 2 * sum(norm is not None for norm in layers.norms)
    described += sum(f"{prefix}_{i}.weight_scale" in tensors for prefix, group in (("layer", layers), ("value", value_layers or ()))
                     for i in range(len(group)))
    if len(tensors) != described:
        raise PolicyFileError(f"{file}: holds {len(tensors)} tensors, the metadata describes {described}")
    inputs = meta.get("inputs", list(DEFAULT_INPUTS))
    if not isinstance(inputs, list) or not inputs or any(piece not in INPUT_PIECES for piece in inputs) or len(set(inputs)) != len(inputs):
        raise PolicyFileError(f"{file}: inputs {inputs!r} must list distinct pieces among {list(INPUT_PIECES)}")
    if "move_features" in inputs and not (
        _is_int(meta.get("move_features_size")) and 1 <= meta["move_features_size"] <= MAX_LAYER_SIZE
    ):
        raise PolicyFileError(f"{file}: metadata field move_features_size = {short_repr(meta.get('move_features_size'))}; "
                              f"expected an integer from 1 to {MAX_LAYER_SIZE} (the inputs list move_features)")
    version = meta.get("move_features_version", 0)
    if not (_is_int(version) and 0 <= version <= 1000) or (version and "move_features" not in inputs):
        raise PolicyFileError(f"{file}: metadata field move_features_version = {short_repr(version)}; expected an "
                              "integer from 0 to 1000, with move_features among the inputs")
    head = network.get("feature_head")
    if head is not None and not (
        "move_features" in inputs and isinstance(head, list) and head and len(head) <= MAX_LAYER_SIZE
        and all(isinstance(w, (int, float)) and not isinstance(w, bool) and np.isfinite(w) for w in head)
        and meta["move_features_size"] == meta["num_actions"] * len(head)
    ):
        raise PolicyFileError(
            f"{file}: network.feature_head = {short_repr(head)}; expected a list of finite numbers, one per move "
            f"feature of an action (move_features_size / num_actions), with move_features among the inputs"
        )
    if sizes[0] != mlp_input_size(meta) or sizes[-1] != meta["num_actions"]:
        raise PolicyFileError(
            f"{file}: network maps {sizes[0]} -> {sizes[-1]} but the metadata says inputs {inputs} of "
            f"observation size {meta['observation_size']} and {meta['num_actions']} actions"
        )
    return (meta, layers, value_layers) if with_value else (meta, layers)


def _read_norms(file: Path, tensors: dict, network: dict, sizes: list) -> list:
    """The layer normalizations ``network.layer_norm`` describes, checked: ``None`` or ``(eps, weight, bias)``."""
    described = network.get("layer_norm")
    if described is None:
        return [None] * (len(sizes) - 2)
    if not isinstance(described, list) or len(described) != len(sizes) - 2 or not all(
        eps is None or (isinstance(eps, (int, float)) and not isinstance(eps, bool) and 0 < eps < 1) for eps in described
    ):
        raise PolicyFileError(f"{file}: network.layer_norm = {short_repr(described)}; expected a list of "
                              f"{len(sizes) - 2} entries (one per hidden layer), each null or an epsilon between 0 and 1")
    norms = []
    for i, eps in enumerate(described):
        if eps is None:
            norms.append(None)
            continue
        pair = [tensors.get(f"layer_{i}.norm_{part}") for part in ("weight", "bias")]
        if any(t is None or t.shape != (sizes[i + 1],) or t.dtype not in (np.float16, np.float32)
               or not np.all(np.isfinite(t)) for t in pair):
            raise PolicyFileError(f"{file}: layer {i} normalization needs finite float layer_{i}.norm_weight and "
                                  f"layer_{i}.norm_bias of shape ({sizes[i + 1]},)")
        norms.append((float(eps), pair[0].astype(np.float32), pair[1].astype(np.float32)))
    return norms


def _read_layers(file: Path, tensors: dict, prefix: str, sizes: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``<prefix>_<i>`` weight/bias pairs of an MLP with ``sizes``, checked for shape and finiteness."""
    layers = []
    for i in range(len(sizes) - 1):
        weight = tensors.get(f"{prefix}_{i}.weight")
        bias = tensors.get(f"{prefix}_{i}.bias")
        expected_w, expected_b = (sizes[i + 1], sizes[i]), (sizes[i + 1],)
        if weight is None or bias is None:
            raise PolicyFileError(f"{file}: {prefix} {i} weights are missing")
        if weight.shape != expected_w or bias.shape != expected_b:
            raise PolicyFileError(
                f"{file}: {prefix} {i} has shapes {weight.shape}/{bias.shape}, the metadata says {expected_w}/{expected_b}"
            )
        scale = tensors.get(f"{prefix}_{i}.weight_scale")
        if weight.dtype == np.int8:  # stored with precision="int8": one float scale per output row
            if scale is None or scale.shape != (sizes[i + 1],) or scale.dtype not in (np.float16, np.float32):
                raise PolicyFileError(
                    f"{file}: {prefix} {i} weights are int8 but {prefix}_{i}.weight_scale is "
                    f"{'missing' if scale is None else f'{scale.dtype} of shape {scale.shape}'}; "
                    f"expected float32 or float16 of shape ({sizes[i + 1]},)"
                )
            weight = weight.astype(np.float32) * scale.astype(np.float32)[:, None]
        elif weight.dtype not in (np.float16, np.float32) or scale is not None:
            raise PolicyFileError(
                f"{file}: {prefix} {i} weights are {weight.dtype}"
                f"{' with a weight_scale' if scale is not None else ''}; expected float32 or float16, "
                "or int8 with a weight_scale"
            )
        if bias.dtype not in (np.float16, np.float32):
            raise PolicyFileError(f"{file}: {prefix} {i} bias is {bias.dtype}; expected float32 or float16")
        if not (np.all(np.isfinite(weight)) and np.all(np.isfinite(bias))):
            raise PolicyFileError(f"{file}: {prefix} {i} contains NaN or infinite weights")
        layers.append((weight.astype(np.float32), bias.astype(np.float32)))
    return layers


def _check_metadata(meta, file) -> None:
    """Refuse metadata whose fields have the wrong type or exceed the bounds, naming the field."""

    def fail(field: str, value, expected: str):
        raise PolicyFileError(f"{file}: metadata field {field} = {short_repr(value)}; expected {expected}")

    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        fail("format", meta.get("format") if isinstance(meta, dict) else meta, repr(FORMAT))
    version = meta.get("format_version", 0)
    if not _is_int(version) or version < 0:
        fail("format_version", version, "an integer from 0")
    if version > FORMAT_VERSION:
        raise PolicyFileError(f"{file} uses policy format version {version}; this kakurega reads up to {FORMAT_VERSION}")
    missing = [k for k in _REQUIRED if k not in meta]
    if missing:
        raise PolicyFileError(f"{file}: metadata lacks {', '.join(missing)}")
    if not isinstance(meta["env"], str) or not meta["env"]:
        fail("env", meta["env"], "a registered env name such as 'kakurenbo_v0'")
    if not isinstance(meta["env_options"], dict):
        fail("env_options", meta["env_options"], "a mapping of option names to values")
    # fields that repeat what env and env_options say (nothing reads them): a file that disagrees was edited or
    # mislabelled, and what else it says is in doubt
    if "env_version" in meta and meta["env_version"] != env_version(meta["env"]):
        fail("env_version", meta["env_version"], f"{env_version(meta['env'])}, the version in env {meta['env']!r}")
    players = meta["env_options"].get("num_players")
    if "num_players" in meta and players is not None and meta["num_players"] != players:
        fail("num_players", meta["num_players"], f"{players!r}, as env_options says")
    for field in ("observation_size", "num_actions"):
        if not _is_int(meta[field]) or not 1 <= meta[field] <= MAX_LAYER_SIZE:
            fail(field, meta[field], f"an integer from 1 to {MAX_LAYER_SIZE}")
    if meta["algorithm"] not in ("ppo", "dqn"):
        fail("algorithm", meta["algorithm"], "'ppo' or 'dqn'")
    network = meta["network"]
    if not isinstance(network, dict) or network.get("type") != "mlp":
        fail("network", network, "{type: mlp, sizes: [...], activation: ...}")
    sizes = network.get("sizes")
    if not isinstance(sizes, list) or not 2 <= len(sizes) <= MAX_LAYERS + 1 or not all(
        _is_int(n) and 1 <= n <= MAX_LAYER_SIZE for n in sizes
    ):
        fail("network.sizes", sizes, f"a list of 2 to {MAX_LAYERS + 1} integers from 1 to {MAX_LAYER_SIZE}")
    activation = network.get("activation")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        fail("network.activation", activation, f"one of {sorted(ACTIVATIONS)}")
    value_sizes = network.get("value_sizes")
    if value_sizes is not None and (
        not isinstance(value_sizes, list) or not 2 <= len(value_sizes) <= MAX_LAYERS + 1
        or not all(_is_int(n) and 1 <= n <= MAX_LAYER_SIZE for n in value_sizes)
        or value_sizes[0] != sizes[0] or value_sizes[-1] != 1
    ):
        fail("network.value_sizes", value_sizes, f"a list of 2 to {MAX_LAYERS + 1} integers from {sizes[0]} inputs to 1 output")
    if not isinstance(meta.get("mix", False), bool):
        fail("mix", meta["mix"], "true or false")
    serves = meta.get("serves", [])
    if not isinstance(serves, list) or len(serves) > MAX_SERVED or not all(
        isinstance(options, dict) and options != meta["env_options"] for options in serves
    ):
        fail("serves", serves, f"a list of at most {MAX_SERVED} mappings of env options, each other than env_options")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def input_size(meta: dict) -> int:
    """Length of the network input the metadata describes (its ``inputs`` concatenated)."""
    sizes = {"observation": meta["observation_size"], "action_mask": meta["num_actions"],
             "move_features": meta.get("move_features_size", 0)}
    return sum(sizes[piece] for piece in meta.get("inputs", DEFAULT_INPUTS))


def mlp_input_size(meta: dict) -> int:
    """Length of the MLP's input: the ``inputs``, less the move features when a feature head scores them instead."""
    if meta.get("network", {}).get("feature_head") is not None:
        return input_size(meta) - meta["move_features_size"]
    return input_size(meta)


def served_options(meta: dict) -> list[dict]:
    """The env options a policy plays: those it was trained with, then the ones it declares it ``serves``."""
    return [meta["env_options"], *meta.get("serves", [])]


def space_differences(trained: AgentContext, other: AgentContext) -> list[str]:
    """How ``other``'s observation and action spaces differ from ``trained``'s, piece by piece ([] when the same).

    A policy serves another configuration only where every observation piece
    has the same name, place, shape and range, and the actions are the same.
    """
    before, after = ({p.name: (p.start, p.shape, p.high) for p in c.layout.pieces.values()} for c in (trained, other))
    changed = [name for name in dict.fromkeys([*before, *after]) if before.get(name) != after.get(name)]
    differences = []
    if changed:
        differences.append(f"observation pieces {', '.join(changed[:8])}{' ...' * (len(changed) > 8)} differ "
                           f"(size {trained.layout.size} -> {other.layout.size})")
    if (trained.num_actions, trained.num_players) != (other.num_actions, other.num_players):
        differences.append(f"actions/players: {trained.num_actions}/{trained.num_players} -> "
                           f"{other.num_actions}/{other.num_players}")
    return differences


def check_compatible(meta: dict, context: AgentContext, source: str = "policy", strict_options: bool = True) -> None:
    """Raise :class:`PolicyFileError` saying what differs between a policy and the env it is loaded into.

    Options the file declares it ``serves`` are accepted once their spaces are checked equal to the trained ones.
    """
    differences = []
    if meta["env"] != context.env_name:
        differences.append(f"env: policy {meta['env']!r}, env {context.env_name!r}")
    if context.layout is not None and meta["observation_size"] != context.layout.size:
        differences.append(f"observation size: policy {meta['observation_size']}, env {context.layout.size}")
    if context.num_actions and meta["num_actions"] != context.num_actions:
        differences.append(f"number of actions: policy {meta['num_actions']}, env {context.num_actions}")
    if strict_options and meta["env"] == context.env_name:
        env_options = resolved_env_options(context.env_name, context.env_kwargs)
        policy_options = meta["env_options"]
        if not differences and env_options != policy_options and env_options in meta.get("serves", []):
            _check_served(meta, context, source)
            return
        files = _file_options(context.env_name)
        for key in sorted(set(env_options) | set(policy_options)):
            if key in files and _same_file(policy_options.get(key), env_options.get(key)):
                continue  # one data file named two ways (relative and absolute, through a link)
            if policy_options.get(key, "<unset>") != env_options.get(key, "<unset>"):
                differences.append(
                    f"option {key}: policy {policy_options.get(key, '<unset>')!r}, env {env_options.get(key, '<unset>')!r}"
                )
    if differences:
        raise PolicyFileError(
            f"{source} was trained for {meta['env']} {meta['env_options']} and does not fit this env: "
            + "; ".join(differences)
        )


def _file_options(env_name: str) -> set:
    """The options of ``env_name`` that name a data file (none for an env the registry does not know)."""
    from kakurega.envs.registry import ENV_SPECS

    spec = ENV_SPECS.get(env_name)
    return set() if spec is None else set(spec.file_options())


def _same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` (other values: False) name one existing file: a policy trained with a data file
    plays with that file however the path is written (the file's content is the env's to check, as always)."""
    if not (isinstance(a, str) and isinstance(b, str)) or a == b:
        return False
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # a path that is gone, or one no file system can hold
        return False


def _check_served(meta: dict, context: AgentContext, source: str) -> None:
    """Refuse a served configuration whose spaces are not the trained configuration's."""
    if context.layout is None:
        raise PolicyFileError(f"{source}: the env has no observation layout to check the served options against")
    try:
        trained = context_for(meta["env"], dict(meta["env_options"]))
    except (TypeError, ValueError, OverflowError) as error:
        raise PolicyFileError(f"{source}: the configuration it was trained for cannot be made: {error}") from None
    differences = space_differences(trained, context)
    if differences:
        raise PolicyFileError(
            f"{source} declares it serves {meta['env']} {resolved_env_options(context.env_name, context.env_kwargs)}, "
            f"but that configuration's spaces differ from the trained one's: " + "; ".join(differences)
        )


def mlp_forward(layers, activation: str, x: np.ndarray) -> np.ndarray:
    """Outputs of the MLP for a batch (or one vector) of observations (layer normalizations included)."""
    act = ACTIVATIONS[activation]
    norms = layer_norms(layers)
    h = np.asarray(x, dtype=np.float32)
    for i, (weight, bias) in enumerate(layers):
        h = h @ weight.T + bias
        if i < len(layers) - 1:
            if norms[i] is not None:
                eps, scale, shift = norms[i]
                mean = h.mean(axis=-1, keepdims=True)
                centred = h - mean
                h = centred / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps) * scale + shift
            h = act(h)
    return h


#: bounds of the sampling temperature (spec option ``temperature=T``)
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.01, 100.0


def sampling_options(options: dict, where: str) -> tuple[bool, float, bool, bool | None]:
    """``(sample, temperature, prune, mix)`` from a policy spec's options (``sample=true``, ``temperature=T``,
    ``prune=false``, ``mix=true|false``; ``mix`` is None when not given: the file's own ``mix`` then).

    A temperature turns sampling on; unknown options are refused, naming the ones there are.

    >>> sampling_options({"temperature": "0.5"}, "policy")
    (True, 0.5, True, None)
    """
    from kakurega.agents.specs import parse_bool

    unknown = sorted(set(options) - {"sample", "temperature", "prune", "mix"})
    if unknown:
        raise ValueError(f"agent spec {where!r}: unknown option(s) {', '.join(unknown)}; expected sample=true|false "
                         f"temperature=T ({MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g}), prune=true|false and "
                         "mix=true|false")
    temperature = 1.0
    if "temperature" in options:
        try:
            temperature = float(options["temperature"])
        except (TypeError, ValueError):
            temperature = float("nan")
        if not MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE:
            raise ValueError(f"agent spec {where!r}: temperature must be a number from {MIN_TEMPERATURE:g} to "
                             f"{MAX_TEMPERATURE:g}, got {options['temperature']!r}")
    sample = parse_bool(options.get("sample", "true" if "temperature" in options else "false"),
                        f"{where} option 'sample'")
    if "temperature" in options and not sample:
        raise ValueError(f"agent spec {where!r}: temperature=T samples the moves; it cannot go with sample=false")
    prune = parse_bool(options.get("prune", "true"), f"{where} option 'prune'")
    mix = parse_bool(options["mix"], f"{where} option 'mix'") if "mix" in options else None
    return sample, temperature, prune, mix


class PolicyAgent(Agent):
    """Acts with a trained network: greedy by default, or sampling (``sample=True``).

    Sampling draws from the softmax of the logits divided by ``temperature``
    (1: the policy as trained; lower: closer to greedy; higher: flatter).
    Illegal actions get ``-inf`` before the argmax/softmax, so the agent only
    ever picks legal actions. Greedy ties go to the lowest action id.
    With ``prune`` (the default), so do the actions the game's move features
    prove dominated (:meth:`kakurega.agents.move_features.MoveFeatures.dominated`:
    a sure loss beside a move that is not one, anything beside a sure sole
    win), whether or not the network reads the features (a network without
    them gets the game's features object for this alone, built at its first
    move); ``prune=False`` plays the network alone.
    With ``mix`` (None: the file's ``mix``, default false), the decisions the
    game's mixed play takes are drawn from it (:mod:`kakurega.agents.mixed_play`;
    Summer: the child's turns), the others from the network.
    """

    def __init__(
        self,
        context: AgentContext,
        seed: int | None = None,
        layers=None,
        metadata: dict | None = None,
        sample: bool = False,
        name: str = "policy",
        value_layers=None,
        temperature: float = 1.0,
        prune: bool = True,
        mix: bool | None = None,
    ):
        super().__init__(context, seed)
        self.prune = bool(prune)
        if not MIN_TEMPERATURE <= float(temperature) <= MAX_TEMPERATURE:
            raise ValueError(f"temperature must be from {MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g}, got {temperature!r}")
        self.temperature = float(temperature)
        self.layers = layers
        #: the critic, when the file has one (see :meth:`value`)
        self.value_layers = value_layers
        self.metadata = metadata or {}
        self.activation = self.metadata.get("network", {}).get("activation", "tanh")
        self.sample = sample
        self.name = name
        #: the game's mixed play (None when ``mix`` is off): see :mod:`kakurega.agents.mixed_play`
        self.mixed = None
        if (self.metadata.get("mix", False) if mix is None else mix):
            from kakurega.agents.mixed_play import mixed_play

            try:
                self.mixed = mixed_play(context)
            except ValueError as error:
                raise PolicyFileError(f"{name}: {error}") from None
        self.inputs = tuple(self.metadata.get("inputs", DEFAULT_INPUTS))
        #: the feature head's weights (one per measurement of an action's row of move features), or None
        head = self.metadata.get("network", {}).get("feature_head")
        self.feature_head = None if head is None else np.asarray(head, dtype=np.float32)
        #: the game's move features, when the network reads them (built from the context, never from the file)
        self.move_features = None
        #: what proves dominated moves (the game's move features), False until first needed
        self._dominance = False
        if "move_features" in self.inputs:
            from kakurega.agents.move_features import MoveFeatures

            try:
                self.move_features = MoveFeatures(context, self.metadata.get("move_features_version", 0))
            except ValueError as error:
                raise PolicyFileError(f"{name} reads move features: {error}") from None
            if self.move_features.size != self.metadata.get("move_features_size"):
                raise PolicyFileError(
                    f"{name} reads {self.metadata.get('move_features_size')} move features; "
                    f"{context.env_name} computes {self.move_features.size}"
                )

    def outputs(self, observation_vector: np.ndarray) -> np.ndarray:
        """Raw network outputs (logits for PPO, Q-values for DQN), unmasked, for a network input vector."""
        if self.feature_head is None:
            return mlp_forward(self.layers, self.activation, observation_vector)
        x = np.asarray(observation_vector, dtype=np.float32)
        size = self.metadata["observation_size"]
        features = x[..., size:].reshape(*x.shape[:-1], -1, len(self.feature_head))
        return mlp_forward(self.layers, self.activation, x[..., :size]) + features @ self.feature_head

    def network_input(self, observation: dict) -> np.ndarray:
        """The network's input for one observation dict: its ``inputs`` pieces, concatenated."""
        vector = observation["observation"]
        size = self.metadata.get("observation_size")
        if size is not None and len(vector) != size:  # an env of other options than the file's (a context-less load)
            raise PolicyFileError(
                f"{self.name} was trained on {self.metadata.get('env')} {self.metadata.get('env_options')}, whose "
                f"observations hold {size} numbers; this one holds {len(vector)}. Load it with the env's context, "
                "kakurega.agents.load(path, AgentContext.from_env(env, name)), which says what differs"
            )
        if self.inputs == DEFAULT_INPUTS:
            return vector
        return np.concatenate([
            self.move_features(observation) if piece == "move_features" else np.asarray(observation[piece], dtype=np.float32)
            for piece in self.inputs
        ])

    def probabilities(self, observation_vector: np.ndarray, legal) -> np.ndarray:
        """The policy's move probabilities over the ``legal`` action ids (softmax of the logits there)."""
        logits = self.outputs(observation_vector)[legal].astype(np.float64)
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()

    def value(self, observation_vector: np.ndarray) -> float:
        """The critic's expected return for the player observing ``observation_vector``."""
        if self.value_layers is None:
            raise ValueError(f"{self.name} has no value head (exported without the critic, or a DQN file)")
        if self.feature_head is not None:  # the critic reads the observation only
            observation_vector = np.asarray(observation_vector)[: self.metadata["observation_size"]]
        return float(mlp_forward(self.value_layers, self.activation, observation_vector)[0])

    def _legal_scores(self, observation: dict) -> np.ndarray:
        """The network's outputs (float64) with ``-inf`` on the illegal actions."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError(f"{self.name}: the action mask has no legal action (is it this agent's turn?)")
        scores = self.outputs(self.network_input(observation)).astype(np.float64)
        if self.prune:
            dominated = self.dominated(observation)
            if dominated is not None and (mask & ~dominated).any():
                mask = mask & ~dominated
        return np.where(mask, scores, -np.inf)

    def dominated(self, observation: dict) -> np.ndarray | None:
        """The actions the game proves dominated in ``observation`` (a mask), or None when it proves none or
        declares no move features (see :meth:`kakurega.agents.move_features.MoveFeatures.dominated`)."""
        if self._dominance is False:
            from kakurega.agents.move_features import MoveFeatures, features_class_path

            self._dominance = self.move_features
            if self._dominance is None and features_class_path(self.context.env_name):
                self._dominance = MoveFeatures(self.context)
        return None if self._dominance is None else self._dominance.dominated(observation)

    def move_probabilities(self, observation: dict) -> np.ndarray:
        """What :meth:`act` plays, per action id: 1 at the greedy choice, or the sampling softmax.

        Not for a policy that plays mixed (``mix``): its mixed decisions are drawn by the game's mixed play,
        which lists no probabilities (ValueError; ``mix=false`` for the network's)."""
        if self.mixed is not None:
            raise ValueError(f"{self.name} plays its game's mixed strategy (mix=true), whose move probabilities are "
                             "not listed; use mix=false for the network's")
        scores = self._legal_scores(observation)
        if self.sample:
            return self._softmax(scores)
        probs = np.zeros(len(scores))
        probs[int(np.argmax(scores))] = 1.0
        return probs

    def _softmax(self, scores: np.ndarray) -> np.ndarray:
        """The sampling probabilities of the network's masked ``scores`` at this policy's temperature."""
        probs = np.exp((scores - scores.max()) / self.temperature)
        return probs / probs.sum()

    def reset(self) -> None:
        if self.mixed is not None:
            self.mixed.reset()

    def act(self, observation: dict, sampler=None) -> int:
        if self.mixed is not None:
            action = self.mixed.act(observation, self.rng)
            if action is not None:
                return int(action)
        if self.sample:  # the network's own decisions (a mixed policy's too, where its mixed play defers)
            probs = self._softmax(self._legal_scores(observation))
            return int(self.rng.choice(len(probs), p=probs))
        return int(np.argmax(self._legal_scores(observation)))  # the greedy choice, without the one-hot array


def context_for(env_name: str, env_kwargs: dict | None = None) -> AgentContext:
    """An :class:`AgentContext` of a freshly made env ``env_name(**env_kwargs)``."""
    from kakurega.envs.registry import make

    env = make(env_name, wrapped=False, **(env_kwargs or {}))
    return AgentContext.from_env(env, env_name, env_kwargs or {})


def load(
    path: str | os.PathLike,
    context: AgentContext | None = None,
    seed: int | None = None,
    sample: bool = False,
    strict_options: bool = True,
    temperature: float = 1.0,
    prune: bool = True,
    mix: bool | None = None,
) -> PolicyAgent:
    """Load a policy file as an :class:`~kakurega.agents.base.Agent`.

    With ``context`` (the env it will play in), the policy must fit it: same
    env, observation size, action count and (unless ``strict_options=False``)
    the same env options; otherwise :class:`PolicyFileError` says what differs.
    Without ``context``, the env recorded in the file is used.
    """
    meta, layers, value_layers = read_policy(path, with_value=True)
    if context is None:
        try:
            context = context_for(meta["env"], dict(meta["env_options"]))
        except (TypeError, ValueError, OverflowError) as error:
            message = (str(error).splitlines() or [type(error).__name__])[0][:300]
            raise PolicyFileError(f"policy {path}: the env it records, {short_repr(meta['env'])} with options "
                                  f"{short_repr(meta['env_options'])}, cannot be made: {message}") from None
    check_compatible(meta, context, source=f"policy {path}", strict_options=strict_options)
    return PolicyAgent(context, seed, layers=layers, metadata=meta, sample=sample, name=f"policy:{path}",
                       value_layers=value_layers, temperature=temperature, prune=prune, mix=mix)
