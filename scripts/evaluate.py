"""``kakurega evaluate``: a tournament between agent specs on any env, with table, JSON, CSV and heatmap.

Example::

    kakurega evaluate kakurenbo_v1 --option num_players=4 \\
        --agents policy:runs/kakurenbo_ppo/policy.safetensors heuristic random --games 400 --out runs/eval

Agent kinds defined outside kakurega (``register_agent_kind`` in your own
module) enter with ``--import MODULE``::

    kakurega evaluate animal_chain --import my_bots --agents my_kind heuristic

The games run as Ray tasks with ``--backend ray`` (a Ray started here, or a
cluster's ``--address``), with the same results as in one process::

    kakurega evaluate animal_chain --agents heuristic random --backend ray --address ray://head:10001
"""

from __future__ import annotations

import argparse
import sys


def resolve_env_name(name: str) -> str:
    """A registry name from ``name``; a game name means its newest version (``animal_chain`` -> ``animal_chain_v1``)."""
    from kakurega.envs.registry import ENV_SPECS, get_spec, latest_version

    if name not in ENV_SPECS and latest_version(name):
        return latest_version(name)
    return get_spec(name).name


def parse_options(pairs: list[str] | None) -> dict:
    """``["num_players=4", "variant=kurayami"]`` -> ``{"num_players": 4, "variant": "kurayami"}`` (YAML scalars).

    A malformed pair or value is a ``ValueError`` in words (the command line's ``error:``, exit status 2)."""
    from kakurega.envs.core.safe_load import SafeLoadError, load_text, short_repr

    options = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--option {short_repr(pair)}: expected KEY=VALUE, e.g. num_players=4")
        try:  # the safe loader: no alias bomb, deep nesting or duplicate key on the command line either
            options[key.strip()] = load_text(value, f"--option {short_repr(key.strip(), 40)}", max_bytes=100_000)
        except SafeLoadError as error:
            raise ValueError(str(error)) from None
    return options


def _whole_number(text: str, low: int, high: int, expected: str) -> int:
    """``text`` as a whole number from ``low`` to ``high``, else argparse's error saying ``expected``."""
    try:
        value = int(text)
    except ValueError:  # not a number, or too long a one
        value = None
    if value is None or not low <= value <= high:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise argparse.ArgumentTypeError(f"expected {expected}, got {shown!r}")
    return value


def games_count(text: str) -> int:
    """The argparse type of every ``--games``: a whole number from 1 to
    :data:`~kakurega.agents.tournament.MAX_GAMES`, refused at parse time (before any work) otherwise."""
    from kakurega.agents.tournament import MAX_GAMES as max_games

    return _whole_number(text, 1, max_games, f"a whole number of games from 1 to {max_games:,}")


def seed_number(text: str) -> int:
    """The argparse type of every ``--seed``: a whole number from 0 to 2**32 - 1 (numpy's seeds are 32-bit, and a
    tournament refuses a larger one), refused at parse time in words otherwise."""
    from kakurega.agents.tournament import MAX_SEED as max_seed

    return _whole_number(text, 0, max_seed, f"a whole number from 0 to {max_seed} (2**32 - 1)")


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="kakurega evaluate", description=__doc__.split("\n")[0])
    parser.description = (
        "Play every pairing of the given agents on one env (seats rotated, the same deals for every pairing) "
        "and report per agent: the score (a win 1, a win shared by k seats 1/k, a loss 0) with 95% CI, wins, "
        "shared wins, draws and losses, mean reward with 95% CI, OpenSkill rating; plus a head-to-head matrix "
        "of scores. Writes tournament.json, tournament.csv, tournament_head_to_head.csv and "
        "tournament_heatmap.png into --out."
    )
    parser.add_argument("env", help="env name (see `kakurega envs`), e.g. kakurenbo_v1 or kakurenbo")
    parser.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC",
        help="agent specs: random, heuristic, policy:PATH[,sample=true], or any registered kind",
    )
    parser.add_argument("--option", action="append", metavar="KEY=VALUE", help="env option (repeatable), e.g. num_players=4")
    parser.add_argument("--games", type=games_count, default=200,
                        help="games per pairing, 1 to 1,000,000 (rounded up to a multiple of the seat count; default 200)")
    parser.add_argument("--seed", type=seed_number, default=0, help="seed of the deals and agents, 0 to 2**32 - 1 (default 0)")
    parser.add_argument("--out", default=None, help="directory for JSON/CSV/PNG outputs (default: print only)")
    parser.add_argument("--no-plots", action="store_true", help="skip the heatmap PNG")
    parser.add_argument("--record-dir", default=None, metavar="DIR",
                        help="write a game record (JSON, see docs/web.md) of every game into DIR: game-000001.json, ...; "
                             "watch one with `kakurega replay FILE`. DIR must hold no game-*.json yet (records are "
                             "never overwritten): use a new directory for each tournament")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    add_backend_arguments(parser, "the games")
    add_import_argument(parser, "--agents")
    return parser


def add_import_argument(parser: argparse.ArgumentParser, where: str) -> None:
    """``--import MODULE`` (repeatable), the same on every command that takes an env or agent specs; ``where``:
    what may then name the module's agent kinds or envs. The command runs :func:`import_agent_modules` first."""
    parser.add_argument(
        "--import", dest="imports", action="append", metavar="MODULE",
        help="import MODULE first (repeatable): a module of yours that registers agent kinds "
             f"(kakurega.agents.register_agent_kind) or envs, so that {where} can name them",
    )


def add_backend_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--backend``, ``--address`` and ``--cpus``: where ``what`` run (see :mod:`kakurega.agents.tasks`)."""
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help=f"local (default: {what} in this process) or ray ({what} as Ray tasks, the same results "
                             "for the same seed; every node needs the same kakurega and the policy files at the same path)")
    parser.add_argument("--address", default=None, metavar="ADDR",
                        help="with --backend ray: the cluster (auto, HOST:PORT or ray://HOST:PORT); default: a Ray "
                             "started here for the run")
    parser.add_argument("--cpus", type=int, default=None, metavar="N",
                        help="with --backend ray and no --address: CPUs of the Ray started here, at most this "
                             "machine's (default: all)")


def task_runner_of(args):
    """The task runner the ``--backend``/``--address``/``--cpus`` arguments name; a bad one exits with the reason."""
    from kakurega.agents.tasks import task_runner

    try:
        return task_runner(getattr(args, "backend", "local"), getattr(args, "address", None), getattr(args, "cpus", None))
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None


def import_agent_modules(modules: list[str] | None) -> None:
    """Import each module (which registers agent kinds or envs), saying clearly which one could not be imported; a
    run's worker processes import them too (:data:`~kakurega.agents.specs.USER_MODULES`)."""
    import importlib

    from kakurega.agents.specs import USER_MODULES
    from kakurega.envs.core.safe_load import short_repr

    for module in modules or []:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise SystemExit(f"error: --import {module}: cannot import it ({error}); is it on PYTHONPATH or "
                             "installed?") from None
        except (TypeError, ValueError):  # a relative or empty name ("../x", ".x", ""): importlib's own words name none
            raise SystemExit(f"error: --import {short_repr(module)}: expected a module name such as my_bots or "
                             "package.my_bots (on PYTHONPATH or installed), not a path") from None
        if module not in USER_MODULES:
            USER_MODULES.append(module)


#: seconds between two progress lines of a long command, at least (the last one is always written)
PROGRESS_EVERY = 0.5


def progress_counter(unit: str, quiet: bool = False, every: float = PROGRESS_EVERY):
    """``progress(done, total)`` that writes ``done/total unit`` over one line of stderr, at most once every
    ``every`` seconds and at the end; None when ``quiet`` or stderr is not a terminal (a log file gets no
    carriage returns). The progress of ``evaluate``, ``tactics`` and ``replay --gif``."""
    import time

    if quiet or not sys.stderr.isatty():
        return None
    shown = {"at": -float("inf")}

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - shown["at"] < every:
            return
        shown["at"] = now
        print(f"\r{done}/{total} {unit}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    return progress


#: the files ``--out`` receives
OUT_FILES = ("tournament.json", "tournament.csv", "tournament_head_to_head.csv", "tournament_heatmap.png")


def run(args) -> int:
    from kakurega.agents.specs import parse_spec, require_unattended
    from kakurega.agents.tournament import check_seed, run_tournament

    import_agent_modules(getattr(args, "imports", None))
    if isinstance(args.seed, int):  # 0 to 2**32 - 1: a larger seed would replay other seeds' deals
        check_seed(args.seed, "--seed")
    env_name = resolve_env_name(args.env)
    options = parse_options(args.option)
    for spec in args.agents:  # a tournament plays hundreds of games unattended: no seat for a person
        require_unattended(parse_spec(spec), "an agent of a tournament")
    progress = progress_counter("games", args.quiet)
    if args.out:  # checked before the first game, like the record directory
        from kakurega.scripts.destination import DestinationError, writable_dir

        out = writable_dir(args.out, "--out")
        for name in OUT_FILES[:3] if args.no_plots else OUT_FILES:  # a link or a FIFO there is replaced when written; a directory would stop the writing
            if (out / name).is_dir() and not (out / name).is_symlink():
                raise DestinationError(f"--out {out}: {out / name} is a directory; the results are written to a file "
                                       "of that name: remove or rename it, or choose another --out")
    on_game = None if not getattr(args, "record_dir", None) else record_writer(env_name, options, args.record_dir)
    with task_runner_of(args) as tasks:
        result = run_tournament(env_name, args.agents, options, args.games, args.seed, progress=progress,
                                on_game=on_game, tasks=tasks)
        spread = f" as {len(tasks.nodes)} Ray tasks on {len(set(tasks.nodes))} node(s)" if tasks.nodes else ""
    print(result.table())
    print(f"{result.total_steps} steps in {result.wall_seconds:.1f}s{spread}")
    if args.out:
        from pathlib import Path

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        result.to_json(out / "tournament.json")
        result.to_csv(out / "tournament.csv")
        written = [out / "tournament.json", out / "tournament.csv", out / "tournament_head_to_head.csv"]
        if not args.no_plots:
            result.heatmap(out / "tournament_heatmap.png")
            written.append(out / "tournament_heatmap.png")
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def record_writer(env_name: str, options: dict, directory):
    """An ``on_game`` callback of :func:`run_tournament` that saves each game's record as ``game-NNNNNN.json``.

    A directory that already holds ``game-*.json`` files is refused before the
    first game (a record is never overwritten, and records of two tournaments
    never mix); a record file that appears meanwhile is not overwritten either.
    """
    from kakurega.agents.record import Record
    from kakurega.scripts.destination import DestinationError, writable_dir

    directory = writable_dir(directory, "--record-dir")  # before the first game, not after it
    existing = sorted(path.name for path in directory.glob("game-*.json"))
    if existing:
        shown = ", ".join(existing[:2]) + (f" and {len(existing) - 2} more" if len(existing) > 2 else "")
        raise DestinationError(
            f"--record-dir {directory}: already holds game records ({shown}); records are never overwritten: "
            "choose a new (or empty) directory, or move those files away"
        )
    count = 0

    def write(game) -> None:
        nonlocal count
        count += 1
        agents = [f"player_{seat}" for seat in range(len(game.lineup))]
        record = Record.start(env_name, options, game.deal_seed, dict(zip(agents, game.lineup)))
        record.moves = game.moves
        record.end = "truncated" if game.truncated else "terminated"
        record.returns = {agent: float(value) for agent, value in zip(agents, game.returns)}
        record.save(directory / f"game-{count:06d}.json", replace=False)

    return write


def main(argv=None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
