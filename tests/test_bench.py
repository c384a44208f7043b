"""The benchmark command runs on a tiny budget and writes a valid report (no timing assertions)."""

import json

import numpy as np
import pytest

from kakurega.scripts import bench, bench_training


def test_bench_runs_and_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--seconds", "0.02", "--repeats", "1", "--chunks", "2", "--json", str(out), "--only", "kakurenbo"]) == 0
    report = json.loads(out.read_text())
    assert report["chunks_per_measurement"] == 2
    labels = [row["env"] for row in report["rows"]]
    assert labels[0] == bench.REFERENCE
    assert any(label.startswith("kakurenbo_v0") for label in labels)
    for row in report["rows"]:
        assert row["steps_per_s"] > 0 and row["games_per_s"] > 0 and row["observe_us"] > 0
        assert row["memory_kib"] > 0
        assert len(row["repeats"]) == 1
    reference = report["rows"][0]
    assert reference["ratio_vs_tictactoe"] == 1.0
    printed = capsys.readouterr().out
    assert "x tictactoe" in printed
    # the report says which kakurega modules ran compiled (what the run measured)
    from kakurega.envs import compiled

    assert report["compiled_modules"] == compiled.compiled_modules()
    # the modules setup.py compiles: the envs' hot modules and a heuristic's play scoring
    assert all(name.startswith(("kakurega.envs.", "kakurega.agents.heuristics.")) for name in report["compiled_modules"])
    assert f"compiled (setup.py): {len(report['compiled_modules'])}" in printed


class Recording:
    """An env that records the seeds of its resets."""

    def __init__(self, env):
        self.env, self.seeds = env, []

    def reset(self, seed=None):
        self.seeds.append(seed)
        self.env.reset(seed=seed)

    def __getattr__(self, name):
        return getattr(self.env, name)


def test_the_driver_seeds_the_env_once_and_plays_whole_games():
    """drive_env seeds on the first reset only (Gymnasium's advice); later resets continue the stream."""
    from kakurega.envs import make

    env = Recording(make("kakurenbo_v0", num_players=3))
    steps_per_s, games_per_s = bench.drive_env(env, 0.05, seed=7)
    assert env.seeds[0] == 7 and len(env.seeds) >= 2 and set(env.seeds[1:]) == {None}
    assert steps_per_s > games_per_s > 0


def test_side_by_side_chunks_continue_play_and_pool_it():
    """Both envs take turns chunk by chunk; each is seeded once and its totals pool every chunk."""
    from pettingzoo.classic import tictactoe_v3

    from kakurega.envs import make

    made = []

    def recorded(factory):
        def make_env():
            made.append(Recording(factory()))
            return made[-1]

        return make_env

    reference, env = bench.drive_side_by_side(
        recorded(tictactoe_v3.env), recorded(lambda: make("animal_chain_v0")), 0.06, chunks=3, seed=5
    )
    assert len(made) == 2  # one env per side, kept across chunks
    for player, recording in zip((reference, env), made):
        assert recording.seeds[0] == 5 and set(recording.seeds[1:]) == {None}
        assert player.games == len(recording.seeds) >= 3  # at least one whole game per chunk
        assert player.seconds > 0 and player.steps > player.games
        steps_per_s, games_per_s = player.rates()
        assert steps_per_s == player.steps / player.seconds and games_per_s == player.games / player.seconds


def test_bench_rejects_bad_budget(capsys):
    import pytest

    for bad in (["--seconds", "0"], ["--repeats", "0"], ["--chunks", "0"]):
        with pytest.raises(SystemExit):
            bench.main(bad)
        assert f"{bad[0]} must be" in capsys.readouterr().err


@pytest.mark.parametrize("mode", [[], ["--evaluate"], ["--bridge"], ["--compiled-gain"], ["--training"]])
@pytest.mark.parametrize("bad", [["--seconds", "nan"], ["--seconds", "inf"], ["--seconds", "3601"],
                                 ["--repeats", "0"], ["--repeats", "1001"], ["--chunks", "1001"]])
def test_every_mode_refuses_an_endless_budget_before_measuring(mode, bad, tmp_path, capsys, monkeypatch):
    """--seconds nan or inf measured for ever (--evaluate and --bridge checked nothing; the plain bench took inf),
    and --repeats 0 ended in 'no median for empty data'."""
    from kakurega.scripts import bench_bridge, bench_evaluate

    def never(*args, **kwargs):
        raise AssertionError("measured before checking the budget")

    monkeypatch.setattr(bench, "run", never)
    monkeypatch.setattr(bench, "compiled_gain", never)
    monkeypatch.setattr(bench_evaluate, "evaluation_speed", never)
    monkeypatch.setattr(bench_bridge, "main", never)
    monkeypatch.setattr(bench_training, "training_throughput", never)
    with pytest.raises(SystemExit):
        bench.main([*mode, *bad, "--json", str(tmp_path / "bench.json")])
    assert f"{bad[0]} must be" in capsys.readouterr().err


def test_the_largest_budgets_are_accepted(monkeypatch, tmp_path):  # the control
    monkeypatch.setattr(bench, "run", lambda *args, **kwargs: {"rows": [], "compiled_modules": []})
    monkeypatch.setattr(bench, "format_table", lambda report: "")
    assert bench.main(["--seconds", str(bench.MAX_SECONDS), "--repeats", str(bench.MAX_REPEATS), "--chunks",
                       str(bench.MAX_CHUNKS), "--json", str(tmp_path / "bench.json")]) == 0


def test_bench_says_when_no_kakurega_env_matched(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--seconds", "0.02", "--repeats", "1", "--json", str(out), "--only", "no_such_env"]) == 0
    assert [row["env"] for row in json.loads(out.read_text())["rows"]][0] == bench.REFERENCE
    printed = capsys.readouterr().out
    assert "no kakurega env matched --only 'no_such_env'" in printed and "pure Python" not in printed


@pytest.mark.slow
def test_training_throughput_table(tmp_path, capsys):
    """--training: MaskablePPO learner steps/s on connect_four_v3 (the reference, ratio 1) and the chosen envs."""
    out = tmp_path / "train.json"
    assert bench.main(["--training", "--training-steps", "256", "--repeats", "2", "--only", "animal_chain_v1",
                       "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    labels = [row["env"] for row in report["rows"]]
    assert labels[0].startswith("pettingzoo/connect_four_v3") and labels[1:] == ["animal_chain_v1"]
    for row in report["rows"]:
        for kind in ("dummy", "subproc"):
            assert len(row[f"{kind}_repeats"]) == 2 and all(rate > 0 for rate in row[f"{kind}_repeats"])
            low, high = row[f"{kind}_ratio_range"]
            assert low <= row[f"{kind}_ratio"] <= high
    assert report["rows"][0]["dummy_ratio"] == 1.0 and report["rows"][0]["dummy_ratio_range"] == [1.0, 1.0]
    assert "x connect_four [range]" in capsys.readouterr().out


@pytest.mark.slow
def test_training_profile_table(tmp_path, capsys):
    """--training --profile: every section's share per env; the sections account for the whole learning."""
    out = tmp_path / "profile.json"
    assert bench.main(["--training", "--profile", "--training-steps", "2048", "--only", "animal_chain_v1",
                       "--masked-distribution", "compact", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["masked_distribution"] == "compact"
    for row in report["rows"]:
        seconds = row["seconds"]
        assert set(seconds) == set(bench_training.SECTIONS)
        assert sum(seconds.values()) == pytest.approx(row["wall_seconds_profiled"], rel=1e-3)
        assert seconds["PPO update"] > 0 and seconds["policy forward"] > 0 and seconds["env rules"] > 0
        assert 0 < row["network_floor_us_per_step"] < 1e6 * row["cpu_seconds_unprofiled"] / row["steps"]
    kakurega_row = report["rows"][1]["seconds"]
    assert kakurega_row["opponents"] > 0 and kakurega_row["observation"] > 0 and kakurega_row["masks"] > 0
    assert "| animal_chain_v1 |" in capsys.readouterr().out


@pytest.mark.train
def test_network_floor_times_the_bare_networks():
    """The floor's loop runs the actor and critic shapes given and reports CPU µs per learner step."""
    floor = bench_training.network_floor(observation_size=20, n_actions=5, steps=1)
    assert 0 < floor < 1e6


def test_profile_sections_count_nested_time_once():
    """A section called inside another counts for itself only; the outer one keeps the rest."""
    times = iter([0.0, 1.0, 3.0, 10.0])  # outer in, inner in, inner out, outer out
    sections = bench_training.Sections(clock=lambda: next(times))
    inner = sections.wrap("env rules", lambda: None)
    outer = sections.wrap("view", lambda: inner())
    outer()
    assert sections.seconds["env rules"] == 2.0 and sections.seconds["view"] == 8.0
    assert sum(sections.seconds.values()) == 10.0


def test_training_vec_envs_are_checked(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--training", "--vec-envs", "dummy,threads"])
    assert "--vec-envs must be a comma-separated list of dummy and subproc, got dummy,threads" in capsys.readouterr().err


@pytest.mark.slow
def test_training_operator_table(tmp_path, capsys):
    """--training --profile --ops: the top operators of a rollout and an update, shares of their part's time."""
    out = tmp_path / "ops.json"
    assert bench.main(["--training", "--profile", "--ops", "--only", "animal_chain_v1", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [row["env"] for row in report["rows"]][1:] == ["animal_chain_v1"]
    for row in report["rows"]:
        for part in ("rollout", "update"):
            shares = [op["share"] for op in row[part]]
            assert shares == sorted(shares, reverse=True) and 0 < sum(shares) <= 1 + 1e-9
    update_ops = {op["operator"] for op in report["rows"][1]["update"]}
    assert "aten::mm" in update_ops or "aten::addmm" in update_ops
    assert "| animal_chain_v1 | update |" in capsys.readouterr().out


def test_ops_needs_profile(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--training", "--ops"])
    assert "--ops goes with --training --profile" in capsys.readouterr().err


def test_profile_needs_training(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--profile"])
    assert "--profile goes with --training" in capsys.readouterr().err


def test_opponents_need_training(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--opponents", "heuristic"])
    assert "--opponents goes with --training" in capsys.readouterr().err


@pytest.mark.parametrize("spec, words", [
    ("nosuch", "unknown agent kind 'nosuch'"),
    ("self", "the bench has no trainer to push its weights"),
    ("human", "needs a person at the terminal"),
    ("policy:/no/such/file.safetensors", "does not exist"),
])
def test_opponents_a_game_cannot_seat_are_refused_in_words(spec, words, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--training", "--only", "animal_chain_v1", "--opponents", "random", spec])
    err = capsys.readouterr().err
    assert "--opponents: " in err and words in err


def test_the_learners_face_the_opponents_asked_for():
    """--opponents reaches every kakurega case's view: its opponents are built from those specs."""
    from kakurega.agents.base import RandomAgent
    from kakurega.agents.heuristics.kakurenbo import KakurenboHeuristic

    found = bench_training.cases("kakurenbo_v1", opponents=("heuristic",))
    assert [kakurega for _, _, kakurega in found] == [False, True]
    view = found[1][1]()
    view.reset(seed=0)
    assert [entry.agent for entry in view.pool.entries] == ["heuristic"]
    assert view._opponents and all(isinstance(agent, KakurenboHeuristic) for agent in view._opponents.values())
    default = bench_training.cases("kakurenbo_v1")[1][1]()
    default.reset(seed=0)
    assert all(type(agent) is RandomAgent for agent in default._opponents.values())


def test_the_tutorial_wrapper_rewards_the_player_who_moved():
    """connect_four through the tutorial-style wrapper: a win pays the mover +1 (the tutorial paid the next player)."""
    from pettingzoo.classic import connect_four_v3

    wrapper = bench_training.TutorialWrapper(connect_four_v3.env)
    wrapper.reset(seed=0)
    reward = done = None
    for column in [0, 1, 0, 1, 0, 1, 0]:  # the first player fills column 0 and wins on its fourth piece
        _, reward, done, _, _ = wrapper.step(column)
    assert done and reward == 1.0


class _WideMaskEnv:
    """A two-action AEC stand-in whose mask has the given dtype (one byte or wider), to test the driver's reading of masks."""

    def __init__(self, dtype):
        self.dtype, self.actions = dtype, []

    def reset(self, seed=None):
        self.left = 3

    def agent_iter(self):
        while self.left:
            yield "player_0"

    def last(self):
        return {"action_mask": np.array([0, 1], self.dtype)}, 0.0, False, False, {}

    def step(self, action):
        self.actions.append(action)
        self.left -= 1


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.int64])
def test_the_driver_picks_only_legal_actions_whatever_the_mask_dtype(dtype):
    env = _WideMaskEnv(dtype)
    bench.RandomPlay(env).play(0.0)
    assert env.actions == [1, 1, 1]  # an int64 mask read as bytes would offer action 8


@pytest.mark.train
def test_library_speeds_run_on_a_tiny_budget_and_say_what_is_missing(tmp_path, capsys, monkeypatch):
    """The per-library table (docs/integrations.md): rows with real step counts, the ratio to the env() loop,
    and a library that cannot be imported named as such (no timing assertions)."""
    from kakurega.scripts import bench_libraries

    def missing(env_name, seconds):
        raise ModuleNotFoundError("No module named 'agilerl'", name="agilerl")

    monkeypatch.setitem(bench_libraries.LIBRARIES, "agilerl", missing)
    out = tmp_path / "libraries.json"
    assert bench_libraries.main(["--seconds", "0.05", "--only", "pettingzoo", "openspiel", "agilerl",
                                 "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    measured = {row["library"]: row for row in rows if "rate" in row}
    if "openspiel" not in measured:  # pyspiel is an optional extra
        assert any(row.get("skipped", "").startswith("not installed") for row in rows if row["library"] == "openspiel")
    for row in measured.values():
        assert row["steps"] > 0 and row["rate"] == pytest.approx(row["steps"] / row["seconds"])
    assert {"library": "agilerl", "skipped": "not installed (agilerl)"} in rows
    printed = capsys.readouterr().out
    assert "| pettingzoo |" in printed and "| 1.00 |" in printed and "not installed (agilerl)" in printed


@pytest.mark.train
def test_the_training_bench_makes_nothing_in_the_temp_folder(tmp_path, monkeypatch):
    """SB3's ``learn()`` without a logger of the caller's makes an empty ``SB3-<time>`` folder in the system's
    temp folder at every call; the bench's learners (the anchor's and a kakurega case's) have their own."""
    import tempfile

    from sb3_contrib import MaskablePPO

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # what tempfile.gettempdir() answers
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    for label, factory, kakurega in bench_training.cases("animal_chain_v1"):
        learner = bench_training._Learner(factory, kakurega, "dummy", n_envs=1)
        learner.learn(bench_training.PPO["n_steps"])
        learner.learn(bench_training.PPO["n_steps"])  # every call reconfigures a logger that is not the caller's
        assert learner.steps == 2 * bench_training.PPO["n_steps"], label
        learner.vec.close()
    assert list(tmp_path.glob("SB3-*")) == []
    # the control: the same learning with SB3's own logger makes its folder there
    model = MaskablePPO("MlpPolicy", bench_training.connect_four(), n_steps=64, batch_size=64, n_epochs=1)
    model.learn(64)
    assert len(list(tmp_path.glob("SB3-*"))) == 1


@pytest.mark.train
def test_compiled_gain_says_a_missing_extra_and_a_failed_child_in_words(monkeypatch):
    """Without the bench extra, `--compiled-gain` says so before any child runs (it was a CalledProcessError whose
    child had said it, captured and never shown); a child that fails otherwise is named with its last words."""
    import subprocess
    import sys

    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)  # as if pygame/rlcard were missing
    with pytest.raises(SystemExit, match=r"needs PettingZoo's tictactoe_v3 .*install kakurega\[bench\]"):
        bench.compiled_gain(0.01, 1, only="animal_chain")
    monkeypatch.delitem(sys.modules, "pettingzoo.classic")

    def failing(args, **kwargs):
        return subprocess.CompletedProcess(args, 1, "", "Traceback ...\nRuntimeError: the child broke\n")

    monkeypatch.setattr(subprocess, "run", failing)
    with pytest.raises(SystemExit, match=r"the benchmark of animal_chain_v\d .*failed: RuntimeError: the child broke"):
        bench.compiled_gain(0.01, 1, only="animal_chain")
