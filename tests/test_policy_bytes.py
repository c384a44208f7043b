"""A policy file is read once, from one open descriptor: the tensors loaded are the bytes the checks read."""

import os
import shutil

import numpy as np
import pytest

from kakurega.agents import policy
from kakurega.agents.policy import read_policy
from kakurega.agents.pretrained import find

GAME = "summer_hide_and_seek_v2"


def test_a_file_replaced_after_its_header_was_checked_still_loads_the_checked_file(tmp_path, monkeypatch):
    # the header was checked on one open of the path and the tensors loaded by safetensors from a second: a file
    # swapped in between (a local process racing the load) was loaded unchecked
    original, other = find(GAME, {"num_players": 2}), find(GAME, {"num_players": 3})
    path = tmp_path / "policy.safetensors"
    shutil.copyfile(original, path)
    swap = tmp_path / "swap.safetensors"
    shutil.copyfile(other, swap)
    checked = policy._check_declared_numbers

    def check_then_swap(file, header):
        result = checked(file, header)
        os.replace(swap, path)  # the path now names another policy
        return result

    monkeypatch.setattr(policy, "_check_declared_numbers", check_then_swap)
    meta, layers = read_policy(path)
    monkeypatch.undo()
    expected_meta, expected_layers = read_policy(original)
    assert meta == expected_meta
    for (w, b), (w0, b0) in zip(layers, expected_layers, strict=True):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
    assert read_policy(path)[0] != expected_meta  # the control: the path does name the other policy now


def test_the_tensors_come_from_the_bytes_read_not_a_second_open(monkeypatch):
    import safetensors

    def never(*args, **kwargs):
        raise AssertionError("the file was opened a second time by its path")

    monkeypatch.setattr(safetensors, "safe_open", never)
    meta, layers = read_policy(find(GAME, {"num_players": 2}))
    assert meta["env"] == GAME and all(w.flags.writeable for w, _ in layers)


def test_a_file_that_grows_past_the_bound_while_read_is_refused(tmp_path, monkeypatch):
    # the size is checked from fstat, then the bytes are read: never more than the bound, whatever was appended
    source, path = find(GAME, {"num_players": 2}), tmp_path / "policy.safetensors"
    shutil.copyfile(source, path)
    size = path.stat().st_size
    monkeypatch.setattr(policy, "MAX_POLICY_BYTES", size + 10)
    checked = policy._check_declared_numbers

    def check_then_grow(file, header):
        result = checked(file, header)
        with open(path, "ab") as grown:
            grown.write(b"\0" * 100)
        return result

    monkeypatch.setattr(policy, "_check_declared_numbers", check_then_grow)
    with pytest.raises(policy.PolicyFileError, match=f"over {size + 10} bytes; a policy file holds at most"):
        read_policy(path)
    shutil.copyfile(source, path)
    monkeypatch.setattr(policy, "MAX_POLICY_BYTES", size + 1000)  # the control: under the bound, read whole
    with pytest.raises(policy.PolicyFileError, match="is corrupt: "):  # safetensors' words for the extra bytes
        read_policy(path)
