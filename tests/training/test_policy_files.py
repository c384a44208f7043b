"""Policy files: SB3 model -> safetensors round trip, mismatch, corruption and pickle refusal."""

import json
import os
import pickle
import struct

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import kakurega.agents
from kakurega.agents.policy import PolicyFileError, context_for, read_policy, save_policy
from kakurega.agents.training.export import export_policy
from kakurega.agents.training.masked_dqn import MaskedDQN
from kakurega.agents.training.view import SingleAgentView


def _vec(env_name, env_kwargs, n=2):
    return DummyVecEnv([lambda: SingleAgentView(env_name, env_kwargs, ["random"], illegal_action="raise")] * n)


def _observations(env_name, env_kwargs, count=200, seed=0):
    """(observation, mask) pairs from random play, from every seat."""
    view = SingleAgentView(env_name, env_kwargs, ["random"])
    rng = np.random.default_rng(seed)
    pairs = []
    obs, _ = view.reset(seed=seed)
    while len(pairs) < count:
        mask = view.action_masks()
        pairs.append((obs, mask))
        obs, _, terminated, truncated, _ = view.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = view.reset()
    return pairs


@pytest.fixture(scope="module")
def nim():
    import secret_nim

    with secret_nim.toy_registered():
        yield secret_nim


@pytest.fixture(scope="module", params=["ppo", "dqn"])
def trained(request, nim, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp(request.param)
    env_kwargs = {"num_players": 3}
    vec = _vec(nim.NAME, env_kwargs)
    if request.param == "ppo":
        model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                            policy_kwargs=dict(net_arch=[16, 16]))
    else:
        model = MaskedDQN("MlpPolicy", vec, learning_starts=16, batch_size=16, seed=0, buffer_size=500,
                          policy_kwargs=dict(net_arch=[16, 16]))
    model.learn(128)
    path = export_policy(model, tmp_path / "policy.safetensors", nim.NAME, env_kwargs)
    return model, path, env_kwargs


def test_round_trip_same_actions_on_same_observations(nim, trained):
    model, path, env_kwargs = trained
    agent = kakurega.agents.load(path, context=context_for(nim.NAME, env_kwargs))
    pairs = _observations(nim.NAME, env_kwargs)
    for obs, mask in pairs:
        expected, _ = model.predict(obs, deterministic=True, action_masks=mask)
        assert agent.act({"observation": obs, "action_mask": mask.astype(np.int8)}) == int(expected)
    # and the raw outputs agree with the torch network
    batch = np.stack([o for o, _ in pairs])
    with torch.no_grad():
        tensor = torch.as_tensor(batch)
        if hasattr(model.policy, "q_net"):
            reference = model.policy.q_net(tensor).numpy()
        else:
            reference = model.policy.get_distribution(tensor).distribution.logits.numpy()
            reference = reference - reference.max(axis=1, keepdims=True)
    outputs = agent.outputs(batch)
    if not hasattr(model.policy, "q_net"):
        outputs = outputs - outputs.max(axis=1, keepdims=True)
    np.testing.assert_allclose(outputs, reference, atol=1e-5)


def test_metadata_records_env_shapes_algorithm_and_steps(nim, trained):
    model, path, env_kwargs = trained
    meta, layers = read_policy(path)
    assert meta["env"] == nim.NAME and meta["env_version"] == 0
    assert meta["env_options"] == {"max_turns": 100, "num_players": 3, "start_pile": None}
    assert meta["observation_size"] == 14 + 1 and meta["num_actions"] == 3
    assert meta["algorithm"] in ("ppo", "dqn") and meta["training_steps"] == model.num_timesteps
    assert meta["network"]["sizes"] == [15, 16, 16, 3]


def test_load_without_context_uses_the_recorded_env_and_directory_form(nim, trained):
    _, path, _ = trained
    agent = kakurega.agents.load(path)
    assert agent.context.num_players == 3
    agent = kakurega.agents.load(path.parent)  # a directory holding policy.safetensors
    assert agent.context.env_name == nim.NAME


def test_loading_into_a_different_env_says_what_differs(nim, trained):
    _, path, _ = trained
    with pytest.raises(PolicyFileError, match=r"option num_players: policy 3, env 2"):
        kakurega.agents.load(path, context=context_for(nim.NAME, {"num_players": 2}))
    with pytest.raises(PolicyFileError, match=r"env: policy 'secret_nim_v0', env 'kakurenbo_v0'.*observation size"):
        kakurega.agents.load(path, context=context_for("kakurenbo_v0", {}))
    # shapes that fit but options that differ can be accepted on request
    agent = kakurega.agents.load(path, context=context_for(nim.NAME, {"num_players": 3, "max_turns": 7}), strict_options=False)
    assert agent.context.env_kwargs["max_turns"] == 7


def test_policy_spec_in_make_agent(nim, trained):
    _, path, env_kwargs = trained
    context = context_for(nim.NAME, env_kwargs)
    agent = kakurega.agents.make_agent(f"policy:{path},sample=true", context, seed=0)
    assert agent.sample
    obs, mask = _observations(nim.NAME, env_kwargs, count=1)[0]
    assert mask[agent.act({"observation": obs, "action_mask": mask})]


def test_corrupt_files_are_refused(nim, trained, tmp_path):
    _, path, _ = trained
    data = path.read_bytes()
    truncated = tmp_path / "truncated.safetensors"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(PolicyFileError, match="corrupt"):
        kakurega.agents.load(truncated)
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"this is not a policy at all, just some text")
    with pytest.raises(PolicyFileError, match="corrupt or not a safetensors"):
        kakurega.agents.load(garbage)
    empty = tmp_path / "empty.safetensors"
    empty.write_bytes(b"")
    with pytest.raises(PolicyFileError, match="too short"):
        kakurega.agents.load(empty)
    with pytest.raises(PolicyFileError, match="does not exist"):
        kakurega.agents.load(tmp_path / "missing.safetensors")
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(PolicyFileError, match="fifo.safetensors is not a regular file"):  # never opened: no hang
        kakurega.agents.load(fifo)


def test_tampered_metadata_is_refused(nim, trained, tmp_path):
    _, path, _ = trained
    meta, layers = read_policy(path)
    bad = dict(meta, num_actions=5)
    target = tmp_path / "bad"
    target.mkdir()
    with pytest.raises(PolicyFileError, match="network maps 15 -> 3 but the metadata says"):
        save_policy(target / "p.safetensors", layers, bad)
        read_policy(target / "p.safetensors")
    nan_layers = [(w.copy(), b.copy()) for w, b in layers]
    nan_layers[0][0][0, 0] = np.nan
    save_policy(target / "nan.safetensors", nan_layers, meta)
    with pytest.raises(PolicyFileError, match="NaN"):
        read_policy(target / "nan.safetensors")


@pytest.mark.parametrize("field,value,words", [
    ("env_version", 7, r"env_version = 7; expected 2, the version in env 'summer_hide_and_seek_v2'"),
    ("num_players", 3, r"num_players = 3; expected 2, as env_options says"),
    ("format_version", -3, r"format_version = -3; expected an integer from 0"),
])
def test_metadata_that_contradicts_itself_is_refused(tmp_path, field, value, words):
    """Fields that repeat the env's name and options must agree with them: a file saying otherwise was edited or
    mislabelled (each loaded and played before). The file unedited loads (the control)."""
    from safetensors import safe_open
    from safetensors.numpy import save_file

    from kakurega.agents.pretrained import find

    source = find("summer_hide_and_seek_v2", {"num_players": 2})
    with safe_open(str(source), "numpy") as handle:
        header = dict(handle.metadata())
        tensors = {key: handle.get_tensor(key) for key in handle.keys()}
    (key,) = [k for k in header if json.loads(header[k]).get("env") == "summer_hide_and_seek_v2"]
    meta = json.loads(header[key])
    assert read_policy(source)[0][field] == meta[field] != value  # the control reads
    meta[field] = value
    edited = tmp_path / "edited.safetensors"
    save_file(tensors, str(edited), metadata={**header, key: json.dumps(meta)})
    with pytest.raises(PolicyFileError, match=words):
        read_policy(edited)


class _Exploit:
    """Unpickling this would create a file: proof that code ran."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_is_refused_and_never_executed(trained, tmp_path):
    marker = tmp_path / "pwned"
    for protocol in (0, 2, 4):
        evil = tmp_path / f"evil{protocol}.safetensors"
        evil.write_bytes(pickle.dumps(_Exploit(str(marker)), protocol=protocol))
        with pytest.raises(PolicyFileError, match="pickle"):
            kakurega.agents.load(evil)
    assert not marker.exists()


def test_torch_and_sb3_zip_files_are_refused(trained, tmp_path):
    model, _, _ = trained
    torch_file = tmp_path / "weights.pt"
    torch.save(model.policy.state_dict(), torch_file)
    with pytest.raises(PolicyFileError, match="zip archive"):
        kakurega.agents.load(torch_file)
    model.save(tmp_path / "model.zip")
    with pytest.raises(PolicyFileError, match="zip archive"):
        kakurega.agents.load(tmp_path / "model.zip")


def test_a_safetensors_file_that_is_not_a_policy_is_refused(tmp_path):
    from safetensors.numpy import save_file

    plain = tmp_path / "plain.safetensors"
    save_file({"x": np.zeros(3, np.float32)}, str(plain))
    with pytest.raises(PolicyFileError, match="not a kakurega policy"):
        kakurega.agents.load(plain)
    # a header that claims more bytes than the file holds
    header = json.dumps({"__metadata__": {}}).encode()
    lying = tmp_path / "lying.safetensors"
    lying.write_bytes(struct.pack("<Q", 10_000) + header)
    with pytest.raises(PolicyFileError):
        kakurega.agents.load(lying)


def _padded(trained, tmp_path, extra: int):
    """The trained policy file with ``extra`` empty tensors added to its header (a file that reads them all)."""
    raw = open(trained[1], "rb").read()
    length = struct.unpack("<Q", raw[:8])[0]
    header, data = json.loads(raw[8:8 + length]), raw[8 + length:]
    for i in range(extra):
        header[f"t{i}"] = {"dtype": "F32", "shape": [0], "data_offsets": [len(data), len(data)]}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path = tmp_path / f"padded_{extra}.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)
    return path


def test_a_file_padded_with_tensors_is_refused_from_its_header(trained, tmp_path):
    """A policy file padded with a million empty tensors once cost a gigabyte and 20 s before it was refused:
    every tensor was read before they were counted. The header's size and the tensor count are checked first."""
    from kakurega.agents.policy import MAX_POLICY_HEADER, MAX_TENSORS

    read_policy(_padded(trained, tmp_path, 0))  # the control: the file itself loads
    with pytest.raises(PolicyFileError, match=rf"holds \d+ tensors; a policy file holds at most {MAX_TENSORS}"):
        read_policy(_padded(trained, tmp_path, MAX_TENSORS + 1))
    with pytest.raises(PolicyFileError, match=f"holds at most {MAX_POLICY_HEADER}"):
        read_policy(_padded(trained, tmp_path, 20_000))


def _declaring(path, dtype: str, shape: list, itemsize: int):
    """A sparse safetensors file (no disk space used) of one tensor of ``shape``: its bytes are all declared."""
    size = itemsize * int(np.prod(shape))
    header = json.dumps({"__metadata__": {"kakurega_policy": "{}"},
                         "layer_0.weight": {"dtype": dtype, "shape": shape, "data_offsets": [0, size]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(path, "wb") as file:
        file.write(struct.pack("<Q", len(header)) + header)
        file.truncate(8 + len(header) + size)
    return path


def test_a_policy_file_declaring_gigabytes_is_refused_before_a_tensor_is_read(tmp_path, monkeypatch):
    """A 4 KB sparse file declaring a 6 GB tensor was read whole (memory exhausted, or a MemoryError traceback);
    an int8 tensor is read as float32, four times its bytes. The file's size and its tensors' numbers are checked
    from the header, before a tensor's bytes are read."""
    import safetensors.numpy

    from kakurega.agents.policy import MAX_POLICY_BYTES, MAX_POLICY_NUMBERS

    def never(*args, **kwargs):
        raise AssertionError("the file was opened for its tensors")

    monkeypatch.setattr(safetensors, "safe_open", never)
    monkeypatch.setattr(safetensors.numpy, "load", never)  # the tensors are loaded from the bytes read once
    huge = _declaring(tmp_path / "huge.safetensors", "F32", [2**15, 2**14 + 2**12], 4)  # 2.5 GiB
    with pytest.raises(PolicyFileError, match=f"bytes; a policy file holds at most {MAX_POLICY_BYTES}"):
        read_policy(huge)
    wide = _declaring(tmp_path / "wide.safetensors", "I8", [2**15, 2**14 + 1], 1)  # 512 MiB of int8: 2 GiB as float32
    with pytest.raises(PolicyFileError, match=rf"tensors hold \d+ numbers; a policy file holds at most {MAX_POLICY_NUMBERS}"):
        read_policy(wide)
    small = _declaring(tmp_path / "small.safetensors", "I8", [2**10, 2**10], 1)  # the control: opened
    with pytest.raises(AssertionError, match="opened for its tensors"):
        read_policy(small)


def test_a_saved_policy_reaches_the_disk_before_it_replaces_the_old_one(nim, trained, tmp_path, monkeypatch):
    """The file is fsynced before its rename over the old one, and the folder after it: a power cut leaves the
    old policy or the new one, never an empty file under the policy's name."""
    import kakurega.agents.policy as policy

    _, path, env_kwargs = trained
    meta, layers = read_policy(path)
    events, fsync, replace = [], os.fsync, os.replace

    def record_fsync(descriptor):
        events.append(("fsync", os.path.realpath(f"/proc/self/fd/{descriptor}")))
        fsync(descriptor)

    def record_replace(source, destination):
        events.append(("replace", str(destination)))
        replace(source, destination)

    monkeypatch.setattr(policy.os, "fsync", record_fsync)
    monkeypatch.setattr(policy.os, "replace", record_replace)
    out = tmp_path / "again.safetensors"
    save_policy(out, layers, meta)
    assert events == [("fsync", str(out) + ".tmp"), ("replace", str(out)), ("fsync", str(tmp_path))], events
