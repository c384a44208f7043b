"""The kakurega command line, end to end on tiny budgets (in-process main(argv), plus one real subprocess)."""

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from terminal_player import typist

from kakurega.envs.registry import ENV_SPECS, latest_envs
from kakurega.scripts.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "--set", "n_envs=2", "--set", "ppo.n_steps=32", "--set", "ppo.batch_size=32", "--set", "ppo.n_epochs=1",
    "--set", "network.hidden=[16]", "--set", "evaluation.every=0", "--set", "evaluation.final_games=4",
    "--set", "evaluation.final_opponents=[random]", "--set", "logging.tensorboard=false",
    "--set", "logging.progress_bar=false", "--set", "checkpoint.every=0", "--set", "league.snapshot_every=0",
    "--set", "opponents=[random, self]", "--set", "pretrain.steps=0",
]


def test_help_of_every_command_is_complete(capsys):
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert set(commands) == {"envs", "demo", "train", "evaluate", "exploit", "harden", "play", "plot", "quickstart", "balance",
                             "train-bots", "bench", "playthroughs", "replay", "serve", "tactics", "rules"}
    for name, sub in commands.items():
        if name in ("bench", "train-bots"):  # their arguments belong to the scripts they run
            continue
        text = sub.format_help()
        assert sub.description, name
        for action in sub._actions:
            if action.help is None and action.dest != "help":
                pytest.fail(f"`kakurega {name}`: option {action.dest} has no help")
        assert "usage: kakurega " + name in text


def test_envs_lists_every_env_with_options(capsys):
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    for name in ENV_SPECS:
        assert name in out
    assert "num_players=4" in out and "heuristic:" in out
    declared = [spec.move_features for spec in ENV_SPECS.values() if spec.move_features]
    assert declared and all(f"move features (network.move_features): {path}" in out for path in declared)
    assert out.count("move features (network.move_features)") == len(declared)
    assert main(["envs", "kakurenbo"]) == 0
    assert "Version history" in capsys.readouterr().out


def test_rules_prints_each_games_page_for_players(capsys):
    from kakurega.envs.rules_pages import DIRECTORY, rules_page

    games = sorted({name.rpartition("_v")[0] for name in ENV_SPECS})
    assert sorted(path.stem for path in DIRECTORY.glob("*.md")) == games
    for game in games:
        assert main(["rules", game]) == 0
        out = capsys.readouterr().out
        assert out == (DIRECTORY / f"{game}.md").read_text(encoding="utf-8").rstrip() + "\n"
        assert out.startswith("# ") and "## " in out
    assert main(["rules", "summer_hide_and_seek_v0"]) == 0  # an env name means its game's page
    assert capsys.readouterr().out == rules_page("summer_hide_and_seek").rstrip() + "\n"
    assert main(["rules", "chess"]) == 2
    assert "unknown game 'chess'; expected a game (animal_chain, hidden_rooms, kakurenbo" in capsys.readouterr().err


def test_a_reader_that_goes_away_stops_the_output_without_a_traceback(monkeypatch):
    import io

    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["rules", "kakurenbo"]) == 1  # e.g. `kakurega rules kakurenbo | head`
    assert main(["envs"]) == 1


def test_every_env_card_points_to_the_shipped_rules_page(capsys):
    for name in ENV_SPECS:
        assert main(["envs", name]) == 0
        out = capsys.readouterr().out
        game = name.rpartition("_v")[0]
        assert "shared/rules" not in out, f"{name}'s card names a page the package does not hold"
        assert out.rstrip().endswith(f"The rules for players: `kakurega rules {game}`.")


def test_demo_plays_the_newest_version_of_every_game(capsys):
    assert main(["demo", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("final returns") == len(latest_envs()) == 4
    for name in latest_envs():
        assert f"{name}: one game" in out


def test_a_game_name_without_version_means_its_newest_version():
    from kakurega.scripts.evaluate import resolve_env_name

    assert resolve_env_name("summer_hide_and_seek") == "summer_hide_and_seek_v2"
    assert resolve_env_name("summer_hide_and_seek_v0") == "summer_hide_and_seek_v0"
    assert resolve_env_name("kakurenbo") == "kakurenbo_v1"


def test_train_evaluate_plot_end_to_end(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", str(ROOT / "configs" / "kakurenbo_ppo.yaml"), "--output", str(run), "--total-timesteps", "128", "--quiet", *TINY]) == 0
    policy = run / "policy.safetensors"
    assert policy.is_file()
    out_dir = tmp_path / "eval"
    assert main(["evaluate", "kakurenbo", "--agents", f"policy:{policy}", "random", "--games", "8", "--seed", "1", "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "score" in out and "head to head" in out
    data = json.loads((out_dir / "tournament.json").read_text())
    assert data["agents"] == [f"policy:{policy}", "random"] and data["games_per_pairing"] == 8
    assert (out_dir / "tournament_heatmap.png").is_file() and (out_dir / "tournament.csv").is_file()
    assert main(["plot", str(run)]) == 0
    assert (run / "plots" / "learning_curve.png").is_file()


def test_train_reports_config_errors_cleanly(tmp_path, capsys):
    assert main(["train", str(ROOT / "configs" / "kakurenbo_ppo.yaml"), "--set", "ppo.n_step=3"]) == 2
    assert "config key 'ppo.n_step': unknown key" in capsys.readouterr().err


def test_evaluate_reports_bad_specs_cleanly(capsys):
    assert main(["evaluate", "animal_chain_v0", "--agents", "wizard", "random", "--games", "2"]) == 2
    assert "unknown agent kind 'wizard'" in capsys.readouterr().err


def test_play_human_against_agents(monkeypatch, capsys):
    typed = typist(capsys, ["abc", "9999", ""])
    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", "animal_chain", "--opponents", "random", "--seat", "0", "--seed", "2"]) == 0
    out = "".join(typed.printed) + capsys.readouterr().out
    assert "you are player_0" in out and "Your moves" in out and "animals: Dg dog, Ct cat" in out
    assert "'abc' is not a legal move" in out and "'9999' is not the key of a legal move" in out
    assert "Type a move's key" in out
    assert "Game over" in out
    # the result in words, not in returns
    end = out.rsplit("Game over", 1)[1]
    assert re.search(r"\n(player_1 wins: player_1's chain reached your base row|You win: your chain reached "
                     r"player_1's base row|A draw: )", end), end[-400:]
    assert "+1" not in end and "(win)" not in end


def test_play_shows_only_the_humans_view(monkeypatch, capsys, tmp_path):
    from kakurega.agents.record import load_record, replay

    typed = typist(capsys)
    monkeypatch.setattr("builtins.input", typed)
    path = tmp_path / "game.json"
    assert main(["play", "kakurenbo", "--opponents", "random", "--seat", "0", "--seed", "1", "--option",
                 "num_players=3", "--record", str(path)]) == 0
    out = "".join(typed.printed) + capsys.readouterr().out
    assert "Your only move: draw the top card of the pile (played for you)." in out  # asked nothing
    # the first table printed is player_0's view where it first had a choice
    replayer = replay(load_record(path))  # checks the record, then back to the deal
    replayer.reset()
    env = replayer.raw
    while env.agent_selection != "player_0" or len(env.legal_actions()) == 1:
        replayer.step()
    mine, theirs, spectator = env.render_text("player_0"), env.render_text("player_1"), env.render_text(None)
    assert mine != theirs and mine != spectator  # private views differ
    first_table = out.split("Your moves")[0]
    assert mine in first_table and theirs not in first_table and spectator not in first_table


def test_a_record_of_a_game_on_a_data_file_replays_from_any_folder(monkeypatch, capsys, tmp_path):
    """--option deck=data/deck.yaml went into the record as written: the record replayed only from the folder the
    game was played in ('cannot read the deck file' elsewhere), where the web app's records hold the full path.
    Records of play and of evaluate --record-dir now hold it absolute."""
    import shutil
    from importlib import resources

    played, elsewhere = tmp_path / "played", tmp_path / "elsewhere"
    (played / "data").mkdir(parents=True)
    elsewhere.mkdir()
    shutil.copy(str(resources.files("kakurega.envs").joinpath("data", "animal_chain_deck.yaml")),
                played / "data" / "deck.yaml")
    monkeypatch.chdir(played)
    monkeypatch.setattr("builtins.input", typist(capsys))
    assert main(["play", "animal_chain_v1", "--opponents", "random", "--seat", "0", "--seed", "2", "--option",
                 "deck=data/deck.yaml", "--record", "game.json"]) == 0
    deck = Path(json.loads((played / "game.json").read_text())["options"]["deck"])
    assert deck.is_absolute() and deck.resolve() == (played / "data" / "deck.yaml").resolve()
    # evaluate --record-dir writes its records through the same Record.start
    assert main(["evaluate", "animal_chain_v1", "--agents", "random", "heuristic", "--games", "2", "--quiet",
                 "--option", "deck=data/deck.yaml", "--record-dir", "records"]) == 0
    monkeypatch.chdir(elsewhere)
    for record in [played / "game.json", *sorted((played / "records").glob("game-*.json"))]:
        assert Path(json.loads(record.read_text())["options"]["deck"]).is_absolute()
        capsys.readouterr()
        assert main(["replay", str(record)]) == 0
        assert "the replayed returns match the record" in capsys.readouterr().out


def test_play_bounds_a_bots_thinking_time(monkeypatch, capsys):
    """Each bot move is asked with a should_stop that turns true --move-seconds after the move was asked (so a
    search plays its best move so far), and is taken away after the move; the human is never given one."""
    import time as clock

    from kakurega.agents import specs
    from kakurega.agents.base import RandomAgent

    asked = []

    class Watched(RandomAgent):
        def act(self, observation, sampler=None):
            stop = self.should_stop
            asked.append((stop is not None and not stop(), stop))
            return super().act(observation, sampler)

    real_make_agent = specs.make_agent
    monkeypatch.setattr(specs, "make_agent", lambda spec, context, seed=None: Watched(context, seed)
                        if spec == "random" else real_make_agent(spec, context, seed=seed))
    typed = typist(capsys)
    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", "animal_chain", "--opponents", "random", "--seat", "0", "--seed", "2",
                 "--move-seconds", "30"]) == 0
    assert len(asked) > 3 and all(fresh for fresh, _ in asked)
    stop = asked[0][1]
    monkeypatch.setattr(clock, "monotonic", lambda: float("inf"))  # long after any deadline
    assert stop() is True
    # the control: without --move-seconds the bot still gets the default bound (10 s), never an endless search
    asked.clear()
    monkeypatch.undo()
    monkeypatch.setattr(specs, "make_agent", lambda spec, context, seed=None: Watched(context, seed))
    monkeypatch.setattr("builtins.input", typist(capsys))
    assert main(["play", "animal_chain", "--opponents", "random", "--seat", "0", "--seed", "2"]) == 0
    assert asked and all(fresh and stop is not None for fresh, stop in asked)


@pytest.mark.parametrize("seconds", ["0", "nan", "601", "-1"])
def test_play_refuses_a_move_time_out_of_bounds(seconds, capsys):
    assert main(["play", "animal_chain", "--opponents", "random", "--move-seconds", seconds]) == 2
    assert "--move-seconds must be from 0.1 to 600" in capsys.readouterr().err


def test_a_search_in_play_stops_at_its_move_time(monkeypatch, capsys):
    """A search asked for 100,000 simulations a move (about 40 s each) plays each move within about --move-seconds."""
    monkeypatch.setattr("builtins.input", typist(capsys))
    start = __import__("time").process_time()
    assert main(["play", "animal_chain", "--opponents", "ismcts:simulations=100000", "--seat", "0", "--seed", "2",
                 "--move-seconds", "0.1", "--option", "max_turns=6"]) == 0
    assert __import__("time").process_time() - start < 30


def test_show_view_hands_over_own_view_and_action_names():
    from kakurega.agents.human import show_view
    from kakurega.agents.policy import context_for
    from kakurega.envs.registry import make

    env = make("animal_chain_v0", wrapped=False)
    env.reset(seed=0)
    human = __import__("kakurega.agents.human", fromlist=["HumanAgent"]).HumanAgent(context_for("animal_chain_v0"), 0)
    name = env.agent_selection
    show_view(human, env, name)
    assert human._view_text == env.render_text(name)
    assert human._action_names == {a: env.action_to_string(a) for a in env.legal_actions()}


def test_play_points_to_the_rules_and_prints_them_at_the_prompt(monkeypatch, capsys):
    typed = typist(capsys, ["rules", "?"])
    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", "animal_chain", "--opponents", "random", "--seat", "0", "--seed", "2"]) == 0
    out = "".join(typed.printed) + capsys.readouterr().out
    assert "The rules: type rules at the prompt, or run kakurega rules animal_chain_v1" in out
    assert out.count("# Animal Chain") == 2 and out.count("(back to the game: your moves again below)") == 2
    after_rules = out.split("(back to the game: your moves again below)")[1]
    assert after_rules.lstrip().split("\n")[0] and "Your moves (" in after_rules.split("Your move: ")[0]
    assert "'rules' is not a legal move" not in out and "Game over" in out


def test_a_menu_key_typed_with_its_brackets_is_the_key():
    from kakurega.agents.move_menu import choose

    names = {3: "pass", 58: "play Dg|Ct onto r2c1"}
    assert choose("[58]", names) == 58 and choose("[ 3 ]", names) == 3 and choose("58", names) == 58
    assert "is not the key of a legal move" in choose("[7]", names)


def test_play_refuses_a_second_person_as_an_opponent(capsys):
    # one terminal shows one seat's view: a human opponent would have seen the first person's hand, and the reverse
    assert main(["play", "kakurenbo", "--seat", "0", "--opponents", "human", "heuristic", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert "'human' needs a person at the terminal, so it cannot be an opponent in kakurega play" in err
    assert "kakurega serve" in err


def test_play_rejects_a_wrong_number_of_opponents(capsys):
    assert main(["play", "kakurenbo", "--opponents", "random", "heuristic", "--option", "num_players=4"]) == 2
    assert "give 1 or 3 opponent specs" in capsys.readouterr().err


def test_bench_forwards_its_arguments(monkeypatch):
    seen = {}
    fake = types.ModuleType("kakurega.scripts.bench")
    fake.main = lambda argv: seen.setdefault("argv", argv) and 0
    monkeypatch.setitem(sys.modules, "kakurega.scripts.bench", fake)
    assert main(["bench", "--quick", "--help"]) == 0
    assert seen["argv"] == ["--quick", "--help"]


def test_quickstart_on_a_tiny_budget(tmp_path, capsys):
    out = tmp_path / "qs"
    code = main(["quickstart", "--output", str(out), "--total-timesteps", "128", "--games", "3", *TINY])
    assert code == 0
    text = capsys.readouterr().out
    assert "[3/3]" in text and "head to head" in text
    assert "configs/quickstart_ppo.yaml" in text
    assert (out / "tournament" / "tournament_heatmap.png").is_file()
    assert (out / "plots" / "learning_curve.png").is_file()


def test_console_script_runs_in_a_subprocess():
    result = subprocess.run([sys.executable, "-m", "kakurega.scripts.cli", "envs"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "kakurenbo_v0" in result.stdout
    # `kakurega envs` stays light: no torch, no stable-baselines3
    probe = "import sys; from kakurega.scripts.cli import main; main(['envs']); print('torch' in sys.modules, 'stable_baselines3' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "False False"


def test_a_record_cannot_print_terminal_escapes_through_its_agent_specs(tmp_path, capsys):
    """A replay prints each seat's agent spec as the record gives it: a spec with control characters (clear the
    screen, set the window title, fake output) or of a screenful is refused; the control replays."""
    from kakurega.agents.record import MAX_SPEC_LENGTH
    from kakurega.agents.specs import MAX_SPEC_LENGTH as SPEC_LIMIT

    assert MAX_SPEC_LENGTH == SPEC_LIMIT
    path = tmp_path / "game.json"
    assert main(["evaluate", "animal_chain_v1", "--agents", "random", "heuristic", "--games", "2", "--quiet",
                 "--record-dir", str(tmp_path / "records")]) == 0
    record = json.loads(next((tmp_path / "records").glob("game-*.json")).read_text())
    for spec in ("heuristic\x1b[2J\x1b[H\x1b]0;title\x07", "random" + "x" * MAX_SPEC_LENGTH):
        path.write_text(json.dumps({**record, "agents": {**record["agents"], "player_0": spec}}))
        capsys.readouterr()
        assert main(["replay", str(path)]) == 2
        captured = capsys.readouterr()
        assert "\x1b" not in captured.out + captured.err and "agent spec of at most" in captured.err
        assert len(captured.err) < 600
    path.write_text(json.dumps(record))  # the control
    assert main(["replay", str(path)]) == 0
    assert "the rules: kakurega rules animal_chain_v1" in capsys.readouterr().out


def test_play_says_a_ctrl_c_abandoned_the_game(monkeypatch, capsys):
    def ctrl_c(prompt=""):
        raise KeyboardInterrupt  # what Ctrl-C raises at the prompt: no message of its own

    monkeypatch.setattr("builtins.input", ctrl_c)
    assert main(["play", "animal_chain", "--opponents", "random", "--seat", "0", "--seed", "2"]) == 130
    assert "game abandoned (Ctrl-C)." in capsys.readouterr().out


def test_quickstart_says_a_ctrl_c_in_its_tournament_and_where_the_policy_is(monkeypatch, capsys, tmp_path):
    import kakurega.agents.tournament as tournament

    run_tournament = tournament.run_tournament

    def ctrl_c(env, specs, *args, **kwargs):  # the training's own evaluation plays on; quickstart's tournament stops
        if "heuristic" in specs:
            raise KeyboardInterrupt
        return run_tournament(env, specs, *args, **kwargs)

    monkeypatch.setattr(tournament, "run_tournament", ctrl_c)
    assert main(["quickstart", "--output", str(tmp_path / "run"), "--total-timesteps", "128", "--games", "2",
                 *TINY]) == 130
    err = capsys.readouterr().err
    assert "interrupted during the tournament; the trained policy is saved:" in err and "Traceback" not in err
    assert (tmp_path / "run" / "policy.safetensors").is_file()


def test_a_ctrl_c_anywhere_else_is_one_line_and_exit_130(monkeypatch, capsys):
    import kakurega.scripts.cli as cli

    def ctrl_c(args):
        raise KeyboardInterrupt  # e.g. while a command's imports load, before it can say anything

    monkeypatch.setattr(cli, "cmd_train_bots", ctrl_c)
    assert main(["train-bots"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted (Ctrl-C)"


def test_quickstart_holds_its_run_from_training_to_the_tournament(monkeypatch, capsys, tmp_path):
    import json

    import kakurega.agents.tournament as tournament
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.run_dir import MANIFEST, RunLock

    out = tmp_path / "run"
    run_tournament, refused = tournament.run_tournament, []

    def another_writer_tries(env, specs, *args, **kwargs):
        if "heuristic" in specs:  # quickstart's tournament, after its training: the run is still held
            try:
                RunLock(out).acquire()
            except ConfigError as error:
                refused.append(str(error))
        return run_tournament(env, specs, *args, **kwargs)

    monkeypatch.setattr(tournament, "run_tournament", another_writer_tries)
    assert main(["quickstart", "--output", str(out), "--total-timesteps", "128", "--games", "2", *TINY]) == 0
    assert refused and "in use by another kakurega run" in refused[0]
    assert json.loads((out / MANIFEST).read_text())["kind"] == "quickstart"  # its --overwrite takes tournament/ too
    assert not (out / ".kakurega-lock").exists()  # given back at the end


def test_scripts_run_as_modules_say_a_bad_value_in_one_line():
    """``python -m kakurega.scripts.NAME`` (the documented way to run the study and report scripts) handles bad input
    as ``kakurega`` does: one line, exit 2, no traceback."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "kakurega.scripts.train_bots", "--only", "no_such_bot", "--no-install"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.startswith("error: no bot config in ") and "Traceback" not in run.stderr


def test_every_script_module_runs_through_the_cli_handling():
    from pathlib import Path

    scripts = Path(main.__code__.co_filename).parent
    mains = [path for path in sorted(scripts.glob("*.py")) if 'if __name__ == "__main__":' in path.read_text()]
    assert len(mains) > 10
    for path in mains:
        block = path.read_text().rsplit('if __name__ == "__main__":', 1)[1]
        assert path.name == "cli.py" or "run_module(main)" in block, f"{path.name} runs its main without the CLI handling"
        # an exit status: run_module makes the return value the process's status (a report returned was "error")
        assert "def main(" not in path.read_text() or re.search(r"def main\([^)]*\) -> int:", path.read_text()), \
            f"{path.name}: main must return an exit status (-> int)"


def test_train_with_rllib_missing_says_which_extra(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "ray.rllib", None)  # as if Ray RLlib were not installed
    assert main(["train", "configs/quickstart_ppo.yaml", "--backend", "rllib"]) == 2
    err = capsys.readouterr().err
    assert "--backend rllib needs Ray RLlib" in err and "pip install 'kakurega[rllib]'" in err


def test_a_command_without_its_extra_says_which_one_in_a_line(monkeypatch, capsys, tmp_path):
    """A base install (no torch) running `kakurega train`: one line naming the extra, exit 2 (it was a traceback
    ending in torch's ModuleNotFoundError); a missing module of kakurega itself is no extra's and is raised."""
    import sys

    from kakurega.scripts.cli import _guarded

    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    assert main(["train", "configs/quickstart_ppo.yaml", "--set", f"output_dir={tmp_path / 'run'}"]) == 2
    err = capsys.readouterr().err
    assert err == "error: this command needs torch, which the train extra installs: pip install 'kakurega[train]'\n"

    def missing_own_module():
        raise ModuleNotFoundError("No module named 'kakurega.nothing'", name="kakurega.nothing")

    with pytest.raises(ModuleNotFoundError):  # the control: a bug of ours is not dressed as a missing extra
        _guarded(missing_own_module)


def test_quickstart_trains_where_a_set_output_dir_says(tmp_path, capsys):
    chosen = tmp_path / "chosen"
    assert main(["quickstart", "--output", str(tmp_path / "ignored"), "--total-timesteps", "128", "--games", "2",
                 *TINY, "--set", f"output_dir={chosen}"]) == 0
    assert (chosen / "policy.safetensors").is_file() and (chosen / "tournament").is_dir()
    assert not (tmp_path / "ignored").exists()
    assert f"-> {chosen}" in capsys.readouterr().out


def test_train_bots_reads_a_bot_configs_init_policy_from_the_package_wherever_it_runs(tmp_path, monkeypatch):
    """The fine-tuned bot configs name the bot they start from as ``agents/pretrained/...``: train-bots reads it from
    the package's folder, so it runs from any folder (and from an installed package), not only from a checkout."""
    from kakurega.agents.training.config import ConfigError, load_config
    from kakurega.scripts import train_bots

    package = ROOT
    config = package / "configs" / "bots" / "animal_chain_any.yaml"
    monkeypatch.chdir(tmp_path)
    overrides = train_bots.package_overrides(config, package)
    assert overrides == [f"init_policy={package / 'agents' / 'pretrained' / 'animal_chain_v1.safetensors'}"]
    assert load_config(config, overrides)["init_policy"] == str(package / "agents/pretrained/animal_chain_v1.safetensors")
    with pytest.raises(ConfigError, match="init_policy"):  # the control: read from the current folder, it is missing
        load_config(config)
    assert train_bots.package_overrides(package / "configs" / "bots" / "hidden_rooms.yaml", package) == []

    seen = []
    monkeypatch.setattr("kakurega.scripts.cli._run_training", lambda config, overrides, **_: (seen.append(overrides), (None, 3))[1])
    assert train_bots.main(["--only", "animal_chain_reach", "--no-install", "--runs", str(tmp_path / "runs")]) == 3
    assert seen == [[f"init_policy={package / 'agents/pretrained/animal_chain_v1.safetensors'}",
                     f"output_dir={tmp_path / 'runs' / 'animal_chain_reach'}"]]


def test_sigterm_stops_a_command_as_ctrl_c_does_with_exit_143(capsys):
    """``timeout``, ``docker stop`` and batch schedulers stop a job with SIGTERM: handled as Ctrl-C (one line, the
    run's own Ctrl-C handling), exit 143; the handler before it is put back."""
    import os
    import signal
    import time

    from kakurega.scripts.cli import guarded

    before = signal.getsignal(signal.SIGTERM)

    def command():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # the signal stops it long before
        return 0

    assert guarded(command) == 143
    assert capsys.readouterr().err.strip() == "interrupted (SIGTERM)"
    assert signal.getsignal(signal.SIGTERM) is before
    assert guarded(lambda: (_ for _ in ()).throw(KeyboardInterrupt())) == 130  # the control: Ctrl-C stays 130


def test_a_sigterm_that_another_exception_wraps_still_exits_143(capsys):
    """Python turns an exception raised in a class's __set_name__ into a RuntimeError: a SIGTERM that lands while
    such a class is made (torch's imports) reached the command as a RuntimeError and left a traceback, exit 1."""
    import os
    import signal

    from kakurega.scripts.cli import guarded

    def command():
        class Field:
            def __set_name__(self, owner, name):
                os.kill(os.getpid(), signal.SIGTERM)  # the handler raises in here

        type("Made", (), {"field": Field()})  # RuntimeError: Error calling __set_name__ ... (Terminated)
        return 0

    assert guarded(command) == 143
    assert capsys.readouterr().err.strip() == "interrupted (SIGTERM)"

    def failing():  # the control: the same exception without a SIGTERM is no SIGTERM
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        guarded(failing)


def test_sigterm_during_training_saves_a_checkpoint_and_exits_143(nim, tmp_path, monkeypatch, capsys):
    import os
    import signal

    import yaml
    from stable_baselines3.common.callbacks import BaseCallback
    from training_helpers import tiny_config

    from kakurega.agents.training import trainer

    class Term(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 80:  # in the second rollout: the first one's end is kept
                os.kill(os.getpid(), signal.SIGTERM)
            return True

    callbacks = trainer._callbacks
    monkeypatch.setattr(trainer, "_callbacks", lambda *args, **kwargs: callbacks(*args, **kwargs) + [Term()])
    out = tmp_path / "run"
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(tiny_config(nim.NAME, "ppo", out, total_timesteps=10_000)))
    assert main(["train", str(config), "--quiet"]) == 143
    err = capsys.readouterr().err
    assert "interrupted at step" in err and "checkpoint" in err and "continue with --resume" in err
    assert list((out / "checkpoints").glob("step_*")) and not (out / ".kakurega-lock").exists()


def test_text_the_output_cannot_encode_is_escaped_not_an_error(tmp_path):
    """A card's Japanese title on an ASCII or Latin-1 output (a C locale, a Windows code page): escaped, exit 0."""
    import os

    for encoding in ("ascii", "latin-1"):
        run = subprocess.run([sys.executable, "-m", "kakurega.scripts.cli", "envs", "kakurenbo_v1"],
                             capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": encoding})
        assert run.returncode == 0, run.stderr.decode(errors="replace")[-800:]
        assert b"KAKURENBO \\u63b4\\u604b\\u6155" in run.stdout and b"Creation" in run.stdout


def test_a_replay_whose_reader_goes_away_exits_quietly(tmp_path, monkeypatch, capsys):
    """``kakurega replay FILE | head -1``: no error line about a file (exit 1, as every other command)."""
    import io

    assert main(["evaluate", "animal_chain_v1", "--agents", "random", "heuristic", "--games", "1", "--quiet",
                 "--record-dir", str(tmp_path / "records")]) == 0
    record = next((tmp_path / "records").glob("game-*.json"))
    capsys.readouterr()

    class ClosedAfterOneLine(io.StringIO):
        def write(self, text):
            if "\n" in self.getvalue():
                raise BrokenPipeError(32, "Broken pipe")
            return super().write(text)

    monkeypatch.setattr(sys, "stdout", ClosedAfterOneLine())
    assert main(["replay", str(record)]) == 1
    assert capsys.readouterr().err == ""
