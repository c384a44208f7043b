import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    """Tiny networks on a shared machine: extra torch threads only add contention."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)
