"""The docs' code blocks run as written (in a scratch directory), as scripts in a fresh Python process.

docs/training.md's Python blocks run top to bottom as one script. docs/integrations.md runs one section
(``## ...``) at a time, its Python blocks as one script; a block whose first line is ``# requires: lib, ...``
is skipped when one of those libraries is not installed. A script runs as ``__main__`` under the spawn start
method, as a user's file would (a block that starts processes must guard them with
``if __name__ == "__main__":``). The ``kakurega`` command is the one installed next to this Python.

Shell blocks of docs/integrations.md whose commands are all ``kakurega ...`` or ``python ...`` (a
``pip install`` line is skipped: the test environment has the extras) run too; the others (a Ray cluster,
TensorBoard) need machines or services a test does not have. A training command runs with a shortened budget
by default (``SHORTER``) and as written in the slow tests (``-m slow``). Every Gymnasium id the pages name is the newest
version of its game.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SHELL = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
#: budget flags of the docs' training commands, and the shortened ones the default test run uses
SHORTER = {"--total-timesteps 50000": "--total-timesteps 256 --num-envs 2 --num-steps 64 --hidden 16",
           "--games 100": "--games 4"}


def python_blocks(text: str) -> list[str]:
    return [match.group(1) for match in BLOCK.finditer(text)]


def shell_commands(block: str) -> list[str]:
    """The block's commands: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split(" #")[0].strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def sections(text: str, pattern=BLOCK) -> dict[str, list[str]]:
    """``{heading: blocks}`` of each ``## `` section that has any."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    found = {}
    for heading, body in zip(parts[1::2], parts[2::2]):
        blocks = [match.group(1) for match in pattern.finditer(body)]
        if blocks:
            found[heading.strip()] = blocks
    return found


def _environment() -> dict:
    """This Python's ``kakurega`` first on PATH, one torch thread (a shared machine)."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return dict(os.environ, PATH=path, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path))


def run_blocks(blocks: list[str], where: str, directory: Path, timeout: int = 900) -> str:
    """Run ``blocks`` as one script ``__main__`` in ``directory`` under spawn; fail with its output, else return
    what it printed.

    A block whose first line is ``# file: NAME`` is the text of a file the page asks the reader to write:
    it is written to ``directory/NAME`` instead of run.
    """
    for code in blocks:
        if code.startswith("# file:"):
            (directory / code.splitlines()[0].partition(":")[2].strip()).write_text(code)
        first = code.splitlines()[0] if code.strip() else ""
        if first.startswith("# requires:"):
            for library in first.partition(":")[2].split(","):
                pytest.importorskip(library.strip())
    script = directory / "docs_blocks.py"
    preamble = "import multiprocessing\nmultiprocessing.set_start_method('spawn', force=True)\n"
    script.write_text(preamble + "\n".join(code for code in blocks if not code.startswith("# file:")))
    done = subprocess.run([sys.executable, script.name], cwd=directory, capture_output=True, text=True,
                          env=_environment(), timeout=timeout)
    assert done.returncode == 0, f"{where} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return done.stdout


ASSIGNMENT = re.compile(r"^[A-Z_]+=\S*$")


def _program(command: str) -> str:
    return next(word for word in command.split() if not ASSIGNMENT.match(word))


def runnable(commands: list[str]) -> bool:
    return all(_program(c) in ("kakurega", "python") or c.startswith("pip install") for c in commands)


def run_shell(commands: list[str], where: str, directory: Path, shorten: bool) -> None:
    for command in commands:
        if command.startswith("pip install"):
            continue
        if shorten:
            for long, short in SHORTER.items():
                command = command.replace(long, short)
        argv, environment = shlex.split(command), _environment()
        while ASSIGNMENT.match(argv[0]):  # VAR=value prefixes, a relative path taken from the directory
            name, _, value = argv.pop(0).partition("=")
            environment[name] = os.pathsep.join([str(directory / value), environment.get(name, "")])
        if argv[0] == "python":
            argv[0] = sys.executable
        done = subprocess.run(argv, cwd=directory, capture_output=True, text=True, env=environment, timeout=1800)
        assert done.returncode == 0, f"{where}: {command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"


def _scratch(tmp_path: Path) -> Path:
    """A scratch directory where the docs' relative paths (examples/, configs/) resolve."""
    for name in ("examples", "configs"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def test_the_harness_finds_and_fails_a_broken_block(tmp_path):
    text = "# T\n\n## A\n\n```python\nx = 1\n```\n\n## B\n\n```python\nraise ValueError('broken')\n```\n"
    assert list(sections(text)) == ["A", "B"]
    run_blocks(sections(text)["A"], "A", tmp_path)
    with pytest.raises(AssertionError, match="broken"):
        run_blocks(sections(text)["B"], "B", tmp_path)
    with pytest.raises(AssertionError, match="unknown agent kind"):
        run_shell(["kakurega evaluate animal_chain_v1 --agents nobody heuristic --games 2"], "C", tmp_path, True)


def test_a_script_that_starts_processes_unguarded_fails_under_spawn(tmp_path):
    """The control for the spawn rule: an unguarded AsyncVectorEnv at the top of a script fails."""
    code = ('import gymnasium\nenvs = gymnasium.vector.AsyncVectorEnv([lambda: gymnasium.make('
            '"kakurega.envs:kakurega/animal_chain-v1")] * 2, context="spawn")\nenvs.reset(seed=0)\nenvs.close()\n')
    with pytest.raises(AssertionError, match="bootstrapping phase|freeze_support|RuntimeError"):
        run_blocks([code], "unguarded", tmp_path, timeout=300)
    run_blocks(["if __name__ == '__main__':\n" + "".join("    " + line + "\n" for line in code.splitlines())],
               "guarded", tmp_path, timeout=300)


@pytest.mark.parametrize("page", ["README.md", "docs/search.md"])
def test_the_readme_and_search_page_blocks_run(page, tmp_path):
    """Their Python blocks, each page's as one script; a line that prints a figure its comment quotes
    (``print(...)   # 0.875``) prints that figure."""
    blocks = python_blocks((ROOT / page).read_text())
    assert blocks
    figures = [m.group(1) for code in blocks for m in re.finditer(r"^print\(.*\)\s+#\s*(-?[0-9.]+)\s*$", code, re.M)]
    assert figures or page == "README.md", "the control: search.md quotes the first player's share (0.875)"
    printed = run_blocks(blocks, page, _scratch(tmp_path)).split()
    assert all(figure in printed for figure in figures), (figures, printed[-20:])


def test_training_page_blocks_run(tmp_path):
    pytest.importorskip("sb3_contrib")
    blocks = python_blocks((DOCS / "training.md").read_text())
    assert len(blocks) >= 4
    run_blocks(blocks, "docs/training.md", tmp_path)


INTEGRATIONS_TEXT = (DOCS / "integrations.md").read_text()
INTEGRATIONS = sections(INTEGRATIONS_TEXT)


@pytest.mark.parametrize("heading", list(INTEGRATIONS))
def test_integrations_page_section_runs(heading, tmp_path):
    run_blocks(INTEGRATIONS[heading], f"docs/integrations.md ({heading})", _scratch(tmp_path))


SHELL_CASES = [(heading, number, commands)
               for heading, blocks in sections(INTEGRATIONS_TEXT, SHELL).items()
               for number, commands in enumerate(map(shell_commands, blocks), 1) if runnable(commands)]
SHELL_IDS = [f"{heading} {number}" for heading, number, _ in SHELL_CASES]


def _needs_ray(commands) -> None:
    """Skip a block that runs on Ray (``--backend ray`` or ``rllib``) where Ray is not installed (the rllib extra)."""
    if any("--backend ray" in c or "--backend rllib" in c for c in commands):
        pytest.importorskip("ray")


@pytest.mark.parametrize("heading, number, commands", SHELL_CASES, ids=SHELL_IDS)
def test_integrations_page_commands_run_shortened(heading, number, commands, tmp_path):
    if any("--backend rllib" in c for c in commands):
        pytest.skip("RLlib training runs in the slow test (as written)")
    _needs_ray(commands)
    run_blocks(INTEGRATIONS.get(heading, []), heading, tmp_path)  # the files the section has the reader write
    run_shell(commands, f"docs/integrations.md ({heading}) block {number}", _scratch(tmp_path), shorten=True)


@pytest.mark.slow
@pytest.mark.parametrize("heading, number, commands", SHELL_CASES, ids=SHELL_IDS)
def test_integrations_page_commands_run_as_written(heading, number, commands, tmp_path):
    _needs_ray(commands)
    run_blocks(INTEGRATIONS.get(heading, []), heading, tmp_path)
    run_shell(commands, f"docs/integrations.md ({heading}) block {number}", _scratch(tmp_path), shorten=False)


def test_every_training_command_and_block_ends_by_evaluating_against_the_heuristic():
    """A block that trains (``.learn(``, ``kakurega train``, a training script) ends with ``kakurega evaluate``
    of what it wrote, with the heuristic among the agents."""
    pages = {name: (DOCS / name).read_text() for name in ("integrations.md", "training.md")}
    checked = 0
    for name, text in pages.items():
        for block in python_blocks(text) + [m.group(1) for m in SHELL.finditer(text) if name == "integrations.md"]:
            trains = ".learn(" in block or re.search(r"kakurega train |cleanrl_ppo\.py", block)
            if not trains or "ray start" in block:
                continue
            checked += 1
            tail = block[block.rindex(".learn(") if ".learn(" in block else 0:]
            assert re.search(r"\bevaluate\b", tail) and "heuristic" in tail, f"{name}: a training block does not " \
                                                                              f"end by evaluating:\n{block}"
    assert checked >= 4


def test_every_gymnasium_id_in_the_docs_is_the_newest_version():
    from kakurega.envs.registry import ENV_SPECS

    newest = {}
    for spec in ENV_SPECS.values():
        for env_id in [spec.pettingzoo_id, *spec.gymnasium_envs]:
            base, _, version = env_id.rpartition("-v")
            newest[base] = max(newest.get(base, 0), int(version))
    found = 0
    for page in ("integrations.md", "training.md", "../README.md"):
        for base, version in re.findall(r"(kakurega/[A-Za-z_]+)-v(\d+)", (DOCS / page).read_text()):
            found += 1
            assert int(version) == newest[base], f"{page} names {base}-v{version}; the newest is v{newest[base]}"
    assert found >= 3
