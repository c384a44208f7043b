import importlib.util
import os
import sys

import pytest

# the Secret Nim toy game used by the training tests lives beside them
sys.path.insert(0, os.path.dirname(__file__))

#: the train extra (torch, stable-baselines3, sb3-contrib): without it nothing here can run, and these tests are
#: left out of the run instead of each ending in an import error
TRAIN_EXTRA = all(importlib.util.find_spec(name) for name in ("torch", "stable_baselines3", "sb3_contrib"))
if not TRAIN_EXTRA:
    collect_ignore_glob = ["test_*.py"]

import secret_nim  # noqa: E402


@pytest.fixture
def nim():
    """Secret Nim registered in this process's env registry for the duration of a test."""
    with secret_nim.toy_registered():
        yield secret_nim


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    """Tiny networks on a shared 2-core machine: extra torch threads only add contention."""
    import torch

    torch.set_num_threads(1)
