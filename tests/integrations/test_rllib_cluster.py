"""A 2-node Ray cluster on loopback (``ray.cluster_utils.Cluster``, 1 CPU each, a private temp dir), joined by
``kakurega train --backend rllib --address ...`` in its own process, as on real machines: env runners run on both
nodes, the run resumes and its policy plays in ``kakurega evaluate``. With token authentication (``auto``, then
``HOST:PORT``, and a driver with a wrong token refused in words) and without (``ray://HOST:PORT`` through Ray
Client). The cluster is
shut down whatever happens."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

import pytest
import yaml

pytest.importorskip("ray.rllib")

pytestmark = pytest.mark.cluster

TOKEN = "0123456789abcdef0123456789abcdef"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(params=["token", "disabled"])
def cluster(request, monkeypatch):
    """``(address, ray client address, environment of a driver)`` of a running 2-node loopback cluster."""
    from ray._private.authentication_test_utils import reset_auth_token_state
    from ray.cluster_utils import Cluster

    temp = tempfile.mkdtemp(prefix="kr", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["RAY_AUTH_MODE"] = request.param
    # Ray rewrites a 127.0.0.1 address to the machine's outward address, where a loopback cluster does not listen;
    # this keeps the driver on loopback (on real machines the address is the head's own)
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    # the cluster's address goes to RAY_TMPDIR/ray/ray_current_cluster (as `ray start --head` writes it), where
    # `--address auto` looks: here, not /tmp/ray, where any other process's ray.init() on this machine would join it
    env["RAY_TMPDIR"] = temp
    os.mkdir(os.path.join(temp, "ray"))
    if request.param == "token":
        token = os.path.join(temp, "auth_token")
        with open(token, "w") as handle:
            handle.write(TOKEN)
        env["RAY_AUTH_TOKEN_PATH"] = token
    for key in [k for k in os.environ if k.startswith("RAY_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith("RAY_"):
            monkeypatch.setenv(key, value)
    reset_auth_token_state()
    client_port = _free_port()
    cluster = None
    try:
        cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "node_ip_address": "127.0.0.1", "temp_dir": temp, "include_dashboard": False,
            "ray_client_server_port": client_port})
        cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        yield cluster.address, f"ray://127.0.0.1:{client_port}", env, request.param
    finally:
        if cluster is not None:
            cluster.shutdown()
        monkeypatch.undo()
        reset_auth_token_state()
        shutil.rmtree(temp, ignore_errors=True)


def _kakurega(args, env, timeout=180):
    return subprocess.run([sys.executable, "-m", "kakurega.scripts.cli", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_two_nodes_train_resume_and_evaluate(cluster, tmp_path):
    address, client, env, auth = cluster
    config = {
        "env": "animal_chain_v0", "algorithm": "ppo", "total_timesteps": 1024, "n_envs": 2, "seed": 0,
        "output_dir": str(tmp_path / "run"), "network": {"hidden": [16]},
        "opponents": [{"agent": "heuristic", "weight": 1.0}, {"agent": "self", "weight": 1.0}],
        "league": {"sync_every": 256}, "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 1},
        "evaluation": {"every": 0, "final_games": 0}, "checkpoint": {"every": 512},
        "logging": {"progress_bar": False},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    # with the token: `auto` (the cluster last started on this machine) first, then HOST:PORT; without: Ray Client
    first, then = ("auto", address) if auth == "token" else (client, client)
    done = _kakurega(["train", str(path), "--backend", "rllib", "--address", first, "--env-runners", "2", "--quiet",
                      "--total-timesteps", "512"], env)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert len(summary["env_runner_nodes"]) == 2  # one runner on each node: it joined this cluster, not a Ray of its own
    done = _kakurega(["train", str(path), "--backend", "rllib", "--address", then, "--env-runners", "2", "--quiet",
                      "--resume"], env)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["timesteps"] == 1024 and len(summary["env_runner_nodes"]) == 2
    assert sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir()) == ["step_1024", "step_512"]
    done = _kakurega(["evaluate", "animal_chain_v0", "--agents", f"policy:{tmp_path / 'run' / 'policy.safetensors'}",
                      "random", "--games", "4", "--quiet"], env)
    assert done.returncode == 0 and "policy" in done.stdout
    if auth == "token":
        wrong = tmp_path / "wrong_token"
        wrong.write_text("f" * 32)
        done = _kakurega(["train", str(path), "--backend", "rllib", "--address", address, "--quiet",
                          "--output", str(tmp_path / "other")], {**env, "RAY_AUTH_TOKEN_PATH": str(wrong)}, timeout=120)
        assert done.returncode == 2 and "give it the cluster's token" in done.stderr, done.stderr[-2000:]
        assert not (tmp_path / "other").exists()
