"""Games as Ray tasks (kakurega.agents.tasks): a tournament, the expert-iteration data step and ``kakurega exploit``
give on a 2-node Ray cluster (simulated on loopback, 1 CPU per node) exactly what they give in one process, and
their tasks run on both nodes; a Ray the run starts itself is shut down after it, whatever happened."""

from __future__ import annotations

import json
import shutil
import tempfile

import numpy as np
import pytest
import yaml

ray = pytest.importorskip("ray")

from kakurega.agents.tasks import RayTasks, check_address, chunks, task_runner  # noqa: E402
from kakurega.agents.tournament import run_tournament  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    """A head and one more node, 1 CPU each, on 127.0.0.1 with a private temp dir; the driver is not connected."""
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as patch:
        # Ray swaps a loopback address for the machine's own before connecting (it would reach a real head from
        # another machine); the simulated nodes listen on loopback only, so the driver keeps 127.0.0.1 here
        patch.setattr("ray._private.ray_constants.ENABLE_RAY_CLUSTER", False)
        # short: Ray's socket paths must fit 107 bytes (pytest's temp dirs under xdist do not)
        temp = tempfile.mkdtemp(prefix="kr", dir="/tmp")
        cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "node_ip_address": "127.0.0.1", "temp_dir": temp, "include_dashboard": False})
        try:
            cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
            cluster.wait_for_nodes()
            yield cluster
        finally:
            if ray.is_initialized():
                ray.shutdown()
            cluster.shutdown()
            shutil.rmtree(temp, ignore_errors=True)


def _without_time(result):
    data = result.to_dict()
    data.pop("wall_seconds")
    return data


SPECS = ["heuristic", "random", "ismcts:simulations=3"]


def test_a_tournament_on_two_nodes_is_the_local_tournament(cluster):
    local = run_tournament("animal_chain_v1", SPECS, games=4, seed=11)
    with RayTasks(address=cluster.address) as tasks:
        assert tasks.cpus == 2
        remote = run_tournament("animal_chain_v1", SPECS, games=4, seed=11, tasks=tasks)
    assert not ray.is_initialized()  # the driver let go of the cluster it connected to
    assert _without_time(remote) == _without_time(local)
    assert len(tasks.nodes) == 8 and len(set(tasks.nodes)) == 2, "the tasks did not run on both nodes"


def test_evaluate_cli_on_the_cluster_writes_the_local_results(cluster, tmp_path, capsys):
    from kakurega.scripts.cli import main

    args = ["evaluate", "summer_hide_and_seek_v2", "--option", "num_players=3", "--agents", "heuristic", "random",
            "--games", "3", "--seed", "4", "--no-plots", "--quiet"]
    assert main(args + ["--out", str(tmp_path / "local")]) == 0
    assert main(args + ["--out", str(tmp_path / "ray"), "--backend", "ray", "--address", cluster.address]) == 0
    assert "Ray tasks on 2 node(s)" in capsys.readouterr().out
    local, remote = (json.loads((tmp_path / d / "tournament.json").read_text()) for d in ("local", "ray"))
    local.pop("wall_seconds"), remote.pop("wall_seconds")
    assert remote == local
    assert (tmp_path / "ray" / "tournament.csv").read_text() == (tmp_path / "local" / "tournament.csv").read_text()


def test_search_targets_made_on_the_cluster_are_the_local_ones(cluster, tmp_path):
    from kakurega.agents.training.config import validate_config
    from kakurega.agents.training.pretrain import demonstrations

    def config(**where):
        return validate_config({"env": "animal_chain_v1", "algorithm": "ppo", "opponents": ["heuristic"], "total_timesteps": 64,
                                "output_dir": str(tmp_path), "pretrain": {
                                    "agent": "ismcts:simulations=4", "target": "visits", "steps": 80, **where}})

    local_config, ray_config = config(), config(backend="ray", address=cluster.address)
    local, _ = demonstrations(local_config)
    remote, _ = demonstrations(ray_config)
    assert not ray.is_initialized()
    assert set(remote) == set(local) and len(local["actions"]) >= 80
    for key, value in local.items():
        np.testing.assert_array_equal(remote[key], value, err_msg=key)


def test_exploit_on_the_cluster_measures_what_it_measures_locally(cluster, tmp_path):
    from kakurega.agents.exploit import exploit

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({
        "algorithm": "ppo", "env": "animal_chain_v1", "total_timesteps": 64, "n_envs": 2, "network": {"hidden": [16]},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1}, "logging": {"tensorboard": False, "progress_bar": False},
    }))
    common = dict(budget=64, games=4, warm_start=40, search=3, config_path=config, quiet=True)
    local = exploit("animal_chain_v1", "heuristic", output_dir=tmp_path / "local", **common)
    with RayTasks(address=cluster.address) as tasks:
        remote = exploit("animal_chain_v1", "heuristic", output_dir=tmp_path / "ray", tasks=tasks, **common)
    assert len(set(tasks.nodes)) == 2
    assert yaml.safe_load((tmp_path / "ray" / "config.yaml").read_text())["pretrain"]["backend"] == "ray"
    for key in ("learned", "search", "itself"):
        rows = [local[key]] if isinstance(local[key], dict) else local[key]
        others = [remote[key]] if isinstance(remote[key], dict) else remote[key]
        for row, other in zip(rows, others, strict=True):
            row, other = dict(row), dict(other)
            for cpu in ("cpu_seconds_evaluation", "cpu_seconds_training", "agent"):  # (the policy path differs)
                row.pop(cpu, None), other.pop(cpu, None)
            assert other == row, key


def test_a_ray_started_for_the_run_is_shut_down_and_a_task_error_comes_back_as_itself(tmp_path):
    missing = tmp_path / "no_such_policy.safetensors"
    with pytest.raises(Exception) as caught:
        with task_runner("ray", cpus=2) as tasks:
            assert ray.is_initialized()
            run_tournament("animal_chain_v1", [f"policy:{missing}", "random"], games=2, tasks=tasks)
    assert not ray.is_initialized()
    assert not isinstance(caught.value, ray.exceptions.RayError)  # the worker's own error, not Ray's wrapper
    assert str(missing) in str(caught.value)


def test_a_local_ray_of_more_cpus_than_the_machine_has_is_refused_before_it_starts(monkeypatch):
    """--cpus sized the local Ray as asked: --cpus 1000 made Ray start a worker process (about 100 MB each) for every
    game task it could then run at once, until memory ran out."""
    import os

    from kakurega.scripts.cli import main

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    with pytest.raises(ValueError, match="cpus=3: a Ray started here may use at most the 2 CPUs of this machine"):
        task_runner("ray", cpus=3)
    with pytest.raises(SystemExit, match="at most the 2 CPUs of this machine"):
        main(["evaluate", "animal_chain_v1", "--agents", "random", "--games", "2", "--backend", "ray", "--cpus", "3"])
    assert not ray.is_initialized()
    assert task_runner("ray", cpus=2).requested_cpus == 2  # the control: the machine's own count (nothing started)


def test_addresses_and_options_are_checked_before_anything_starts():
    for good in ("auto", "127.0.0.1:6379", "head.example.org:6379", "ray://10.0.0.5:10001", None):
        assert check_address(good) == good
    for bad in ("head", "ray://head", "10.0.0.5:99999", "http://head:6379", "10.0.0.5:port", ""):
        with pytest.raises(ValueError, match="expected auto, HOST:PORT"):
            check_address(bad)
    with pytest.raises(ValueError, match="backend 'dask': expected one of local, ray"):
        task_runner("dask")
    with pytest.raises(ValueError, match="go with --backend ray"):
        task_runner("local", address="auto")
    with pytest.raises(ValueError, match="sizes a Ray started here"):
        task_runner("ray", address="auto", cpus=2)
    for address in ("127.0.0.1:1", "ray://127.0.0.1:1"):  # nothing listens there: an error at once, not retries
        with pytest.raises(ValueError, match="nothing answers at .*127.0.0.1:1"):
            with task_runner("ray", address=address):
                pass
    from kakurega.scripts.cli import main

    for flags, words in ((["--address", "auto"], "go with --backend ray"),
                         (["--backend", "ray", "--address", "head"], "expected auto, HOST:PORT"),
                         (["--backend", "ray", "--cpus", "0"], "expected a positive number of CPUs")):
        with pytest.raises(SystemExit, match=words):
            main(["evaluate", "animal_chain_v1", "--agents", "random", "heuristic", "--games", "2", *flags])
    assert [len(part) for part in chunks(list(range(10)), 4)] == [3, 3, 2, 2]
    assert chunks([1], 8) == [[1]]
    assert not ray.is_initialized()


# ------------------------------------------------ Ray Client: the server that died as it started
CLIENT_SERVER_DIED = ("Initialization failure from server:\nTraceback (most recent call last):\n  ...\n"
                      "RuntimeError: Starting Ray client server failed. See ray_client_server_23000.err for detailed logs.")


def _scripted_init(monkeypatch, failures):
    """Replace ``ray.init`` by one that raises each of ``failures`` in turn, then connects (records its calls)."""
    calls, left = [], list(failures)

    def init(**options):
        calls.append(options)
        if left:
            raise left.pop(0)

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    return calls


#: the other start-up race (a CI run, 2026-12-07): the server's set-up met a process as it exited
CLIENT_SERVER_ZOMBIE = ("Initialization failure from server:\nTraceback (most recent call last):\n  ...\n"
                        "psutil.ZombieProcess: PID still exists but it's a zombie (pid=23777)")


@pytest.mark.parametrize("died", [CLIENT_SERVER_DIED, CLIENT_SERVER_ZOMBIE], ids=["server-died", "zombie"])
def test_a_ray_client_server_that_died_as_it_started_is_tried_again(monkeypatch, died):
    from kakurega.agents.tasks import RAY_CLIENT_TRIES, init_ray

    said = []
    calls = _scripted_init(monkeypatch, [ConnectionAbortedError(died)] * (RAY_CLIENT_TRIES - 1))
    init_ray("ray://127.0.0.1:10001", said.append, log_to_driver=False)
    inits = [c for c in calls if c != "shutdown"]
    assert len(inits) == RAY_CLIENT_TRIES and all(c == {"address": "ray://127.0.0.1:10001", "log_to_driver": False}
                                                  for c in inits)
    assert calls.count("shutdown") == RAY_CLIENT_TRIES - 1  # what each failed try left is let go
    assert len(said) == RAY_CLIENT_TRIES - 1 and "ray-project/ray#63202" in said[0] and f"2 of {RAY_CLIENT_TRIES}" in said[0]


def test_starting_ray_leaves_pythons_global_generator_as_it_was(monkeypatch):
    """ray.init draws from Python's global random (its session names): a seeded run's checkpoints save that
    generator, so a run with pretrain.backend=ray saved other states than the same run without Ray."""
    import random

    from kakurega.agents.tasks import init_ray

    def init(**_):
        random.random()  # what ray.init does

    monkeypatch.setattr(ray, "init", init)
    random.seed(5)
    before = random.getstate()
    init_ray(None)
    assert random.getstate() == before
    init()  # the control: the stand-in does move the generator
    assert random.getstate() != before


def test_a_ray_client_server_that_keeps_dying_is_reported_after_the_last_try(monkeypatch):
    from kakurega.agents.tasks import RAY_CLIENT_TRIES, init_ray

    calls = _scripted_init(monkeypatch, [ConnectionAbortedError(CLIENT_SERVER_DIED)] * RAY_CLIENT_TRIES)
    with pytest.raises(ConnectionAbortedError, match="Starting Ray client server failed"):
        init_ray("ray://127.0.0.1:10001")
    assert len([c for c in calls if c != "shutdown"]) == RAY_CLIENT_TRIES


@pytest.mark.parametrize("address, error", [
    ("ray://127.0.0.1:10001", ConnectionError("Ray Client: the cluster refused the connection")),  # another failure
    ("127.0.0.1:6379", ConnectionAbortedError(CLIENT_SERVER_DIED)),  # not Ray Client: no such server to restart
    ("ray://127.0.0.1:10001", RuntimeError(CLIENT_SERVER_DIED)),  # not a failed connection
    ("ray://127.0.0.1:10001", ConnectionError("psutil.ZombieProcess while connecting")),  # not the server's set-up
])
def test_other_failures_to_connect_are_not_tried_again(monkeypatch, address, error):
    from kakurega.agents.tasks import init_ray

    calls = _scripted_init(monkeypatch, [error, error])
    with pytest.raises(type(error)):
        init_ray(address)
    assert calls == [{"address": address}]


def test_kakurega_train_and_ray_tasks_connect_through_the_retrying_init(monkeypatch):
    """Both ways onto a cluster (``kakurega train --backend rllib`` and the Ray tasks) survive one dead server."""
    from kakurega.integrations.rllib_train import connect

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "cluster_resources", lambda: {"CPU": 4.0})
    calls = _scripted_init(monkeypatch, [ConnectionAbortedError(CLIENT_SERVER_DIED)])
    assert connect("ray://127.0.0.1:10001", 2, quiet=True) is True
    assert [c["address"] for c in calls if c != "shutdown"] == ["ray://127.0.0.1:10001"] * 2

    monkeypatch.setattr("kakurega.agents.tasks._check_reachable", lambda address: None)
    calls = _scripted_init(monkeypatch, [ConnectionAbortedError(CLIENT_SERVER_DIED)])
    tasks = RayTasks(address="ray://127.0.0.1:10001")
    tasks.__enter__()
    assert tasks._started and [c["address"] for c in calls if c != "shutdown"] == ["ray://127.0.0.1:10001"] * 2


def test_a_process_held_to_fewer_cpus_than_the_machine_has_counts_its_own(monkeypatch):
    """A container or ``taskset`` that gives this process 2 of a machine's 64 CPUs: a local Ray may use 2, not 64
    (the machine's count alone let --cpus 64 start 64 workers on 2 CPUs)."""
    import os

    from kakurega.agents.tasks import usable_cpus

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert usable_cpus() == 2
    with pytest.raises(ValueError, match="cpus=3: a Ray started here may use at most the 2 CPUs"):
        task_runner("ray", cpus=3)
    monkeypatch.delattr(os, "sched_getaffinity")  # a system without affinity: the machine's count (the control)
    assert usable_cpus() == 64 and task_runner("ray", cpus=3).requested_cpus == 3
