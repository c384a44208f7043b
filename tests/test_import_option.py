"""``--import MODULE`` on every command that takes an env or agent specs: the module is imported before anything
else, and one that cannot be imported is said in words."""

import pytest

from kakurega.scripts.cli import build_parser, main

MISSING = "no_such_module_of_kakurega_users"

#: a command line of every command that takes an env, a config or agent specs; the env, config and record named
#: do not exist, so only an import made first can say what stopped the command
COMMANDS = [
    ["envs", "no_such_env"],
    ["demo", "--env", "no_such_env"],
    ["train", "no_such_config.yaml"],
    ["quickstart", "--config", "no_such_config.yaml"],
    ["harden", "no_such_config.yaml"],
    ["evaluate", "no_such_env", "--agents", "random"],
    ["exploit", "no_such_env", "--target", "random"],
    ["tactics", "no_such_env", "--agents", "random"],
    ["balance", "no_such_env"],
    ["play", "no_such_env"],
    ["replay", "no_such_record.json"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: argv[0])
def test_every_command_that_takes_an_env_imports_the_module_first(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # quickstart's default output, if anything were written
    with pytest.raises(SystemExit, match=f"--import {MISSING}: cannot import it"):
        main(argv + ["--import", MISSING])
    assert not any(tmp_path.iterdir())


def test_the_option_reads_the_same_everywhere():
    # one helper adds it: the same destination and metavar on every command (a copy had its own words)
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    helps = {}
    for argv in COMMANDS + [["serve"]]:
        option = next(a for a in commands[argv[0]]._actions if "--import" in a.option_strings)
        assert (option.dest, option.metavar, type(option).__name__) == ("imports", "MODULE", "_AppendAction")
        helps[argv[0]] = option.help
    assert all(text.startswith("import MODULE first (repeatable): a module of yours that registers agent kinds")
               for text in helps.values()), helps


def test_a_module_that_imports_is_remembered_for_worker_processes(tmp_path, monkeypatch):
    from kakurega.agents import specs
    from kakurega.scripts.evaluate import import_agent_modules

    (tmp_path / "kakurega_user_module_a.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(specs, "USER_MODULES", [])
    import_agent_modules(["kakurega_user_module_a", "kakurega_user_module_a"])
    assert specs.USER_MODULES == ["kakurega_user_module_a"]
    with pytest.raises(SystemExit, match="not a path"):
        import_agent_modules(["../x"])
    assert specs.USER_MODULES == ["kakurega_user_module_a"]
