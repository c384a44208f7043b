import importlib.util
import os
import sys

# the shared conformance helpers live beside the tests
sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402

#: what the tests marked ``train`` need: the train extra (tests/training is left out without it, its conftest)
TRAIN_EXTRA = all(importlib.util.find_spec(name) for name in ("torch", "stable_baselines3", "sb3_contrib", "matplotlib"))


def pytest_collection_modifyitems(config, items):
    """Without the train extra, the tests marked ``train`` are skipped, saying what to install."""
    if TRAIN_EXTRA:
        return
    skip = pytest.mark.skip(reason="needs the train extra: pip install 'kakurega[train]'")
    for item in items:
        if item.get_closest_marker("train") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_the_test_folder(tmp_path_factory):
    """SB3's ``learn()`` without a logger of the caller's makes an empty ``SB3-<time>`` folder in the system's temp
    folder at every call (the tests that drive SB3 directly); SB3_LOGDIR keeps them all in this run's own folder."""
    saved = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if saved is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = saved


@pytest.fixture(autouse=True)
def _no_user_modules_from_other_tests(monkeypatch):
    """``--import`` records its modules for a run's worker processes (``kakurega.agents.specs.USER_MODULES``); a
    test that imports one from its own folder must not hand it to the workers of a later test in this process."""
    from kakurega.agents import specs

    monkeypatch.setattr(specs, "USER_MODULES", [])
