"""``kakurega train --import MODULE``: a game and an agent kind of the user's own, trained against in worker
processes (``vec_env: subproc``), which start without the main process's registrations."""

import sys

import pytest
import yaml
from training_helpers import tiny_config

from kakurega.scripts.cli import main

USER_MODULE = '''
import secret_nim
from kakurega.agents import register_agent_kind
from kakurega.agents.base import RandomAgent

secret_nim.register()  # the user's game, registered by importing this module
register_agent_kind("users_own_kind", lambda context, seed, options, argument: RandomAgent(context, seed=seed))
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    import secret_nim

    from kakurega.agents import specs

    (tmp_path / "kakurega_users_nim_bots.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))  # a worker process gets the parent's sys.path
    monkeypatch.setattr(specs, "USER_MODULES", [])
    yield "kakurega_users_nim_bots"
    sys.modules.pop("kakurega_users_nim_bots", None)
    secret_nim.unregister()


def test_train_imports_the_users_module_in_its_worker_processes(user_module, tmp_path, capsys):
    config = tiny_config("secret_nim_v0", "ppo", tmp_path / "run", vec_env="subproc", total_timesteps=64,
                         opponents=["users_own_kind"])
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["train", str(path), "--import", user_module, "--quiet"]) == 0, capsys.readouterr().err
    assert (tmp_path / "run" / "policy.safetensors").is_file()
