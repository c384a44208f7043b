"""Speed benchmark: every kakurega env against PettingZoo's classic envs, in one run.

For every registered env and configuration (registry ``configurations``), and
for the references ``tictactoe_v3`` and ``leduc_holdem_v4`` from PettingZoo's
classic suite, it measures with the same driver code:

- steps/s and games/s of uniformly random legal play through ``env()`` (the
  full AEC loop: ``agent_iter``, ``last``, mask, ``step``);
- steps/s of the rules engine alone (``legal_actions`` + ``apply_action``);
- microseconds per ``observe`` call;
- peak memory allocated per live env instance (tracemalloc, after ``reset``);
- the ratio of each env's steps/s to ``tictactoe_v3``'s, measured alongside
  it, reported as the median over repeats.

Repeats are interleaved (every env once per repeat, each with its own
tictactoe measurement) so that machine noise hits all envs alike. Within a
repeat, the env and tictactoe take turns in short chunks (``--chunks`` of
each, ``seconds / chunks`` long, play continuing where the last chunk
stopped), and each side's steps/s pools its chunks: a slow spell of the
shared machine then slows both sides of the ratio instead of one.
Throughputs are per second of the process's CPU time
(``time.process_time``): on a shared machine, wall-clock time also counts the
time other processes hold the CPU, which swings the ratios by tens of percent
from one case to the next. This is a benchmark, not a test: nothing here
asserts a speed.

With ``--training`` it measures training throughput instead: learner steps
per second of MaskablePPO through :class:`SingleAgentView` next to the same
algorithm on PettingZoo's ``connect_four_v3``, and with ``--profile`` where
the time of a learner step goes (:mod:`kakurega.scripts.bench_training`).

With ``--compiled-gain`` it measures what each compiled module (setup.py)
buys its env: the env's ratio to tictactoe with every module compiled and
with that one module run from its source, each in a fresh process.

With ``--bridge`` it measures the OpenSpiel bridge against the rules engine
instead (:mod:`kakurega.scripts.bench_bridge`; ``--ismcts`` adds IS-MCTS CPU
per move against OpenSpiel's ``ISMCTSBot``). With ``--evaluate`` it measures
games/s of each shipped bot against the heuristic over random self-play
(:mod:`kakurega.scripts.bench_evaluate`).

Usage: ``kakurega bench [--seconds S] [--repeats R] [--chunks C] [--json PATH] [--only NAME] [--compiled-gain] [--bridge [--ismcts]] [--evaluate]``,
``kakurega bench --training [--profile [--ops]] [--masked-distribution exact|compact] [--vec-envs dummy,subproc]
[--opponents SPEC [SPEC ...]] [--training-steps N] [--repeats R] [--only NAME]``
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

from kakurega.envs.compiled import compiled_modules

REFERENCE = "pettingzoo/tictactoe_v3"
#: the dtype the driver views one-byte action masks as (int8 or bool; wider masks are compared with 0)
BOOL = np.dtype(np.bool_)
#: the clock of the throughput measurements: CPU time of this process
CLOCK = time.process_time
#: bounds of the budget arguments (every mode): an hour per measurement, a thousand repeats and chunks
MAX_SECONDS, MAX_REPEATS, MAX_CHUNKS = 3600.0, 1000, 1000
#: bound of ``--training-steps`` (learner steps per training measurement)
MAX_TRAINING_STEPS = 10_000_000


@dataclass
class Case:
    """One environment configuration to measure."""

    label: str
    make_env: object  # () -> wrapped AEC env
    make_raw: object = None  # () -> raw kakurega env (None for references)
    results: dict = field(default_factory=lambda: {"steps_per_s": [], "games_per_s": [], "engine_steps_per_s": [], "observe_us": [], "ratio": []})


class RandomPlay:
    """Uniformly random legal play through the AEC loop, continued across calls of :meth:`play`.

    Actions come from Python's ``random.Random`` (seeded): numpy's
    ``Generator.choice`` costs more than a whole step of a fast env and would
    hide the envs' own cost behind the driver's. The env is seeded on its
    first ``reset`` only and later games continue its random stream, as
    Gymnasium recommends for a run: seeding a numpy generator costs about
    20 µs, which reseeding every game would add to each game's cost. The
    legal actions are read as ``mask.view(bool).nonzero()[0]``, for every env
    alike: numpy counts an int8 mask (PettingZoo's mask dtype) element by
    element, about 3.7 µs for a 1,269-entry mask against 0.7 µs viewed as
    booleans, and ``flatnonzero`` adds a reshape; the same cost of the driver
    either way, not of the env. A mask wider than a byte is compared with 0.
    """

    def __init__(self, env, seed: int = 0):
        self.env = env
        self.seed = seed
        self.choose = random.Random(seed).randrange
        self.steps = self.games = 0
        self.seconds = 0.0  # CPU time spent in play()

    def play(self, seconds: float) -> None:
        """Play whole games for about ``seconds`` of CPU time, adding to the totals."""
        env, choose = self.env, self.choose
        steps = 0
        start = CLOCK()
        deadline = start + seconds
        while True:
            env.reset(seed=self.seed if self.games == 0 else None)
            for _agent in env.agent_iter():
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    mask = obs["action_mask"]
                    legal = (mask.view(BOOL) if mask.itemsize == 1 else mask != 0).nonzero()[0]
                    action = int(legal[choose(len(legal))])
                env.step(action)
                steps += 1
            self.games += 1
            if CLOCK() >= deadline:
                break
        self.seconds += CLOCK() - start
        self.steps += steps

    def rates(self) -> tuple[float, float]:
        """(steps/s, games/s) over everything played so far."""
        return self.steps / self.seconds, self.games / self.seconds


def drive_env(env, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Random legal play (:class:`RandomPlay`) for about ``seconds``: (steps/s, games/s)."""
    player = RandomPlay(env, seed)
    player.play(seconds)
    return player.rates()


def drive_side_by_side(make_reference, make_env, seconds: float, chunks: int, seed: int = 0):
    """Random play of two envs taking turns in ``chunks`` chunks each, ``seconds`` in all per env.

    Returns the two :class:`RandomPlay` objects (pooled totals of every chunk).
    Short alternating chunks put both envs under the same machine load: on a
    shared machine, two back-to-back 2-second runs can meet different loads.
    """
    reference, env = RandomPlay(make_reference(), seed), RandomPlay(make_env(), seed)
    for _ in range(chunks):
        reference.play(seconds / chunks)
        env.play(seconds / chunks)
    return reference, env


def drive_engine(game, seconds: float, seed: int = 0) -> float:
    """Random legal play on the rules engine alone: steps/s (legal_actions + apply_action)."""
    rng = np.random.default_rng(seed)  # the game's chance
    choose = random.Random(seed).randrange  # the players' choices (as in drive_env)
    steps = 0
    start = CLOCK()
    deadline = start + seconds
    while True:
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            legal = game.legal_actions(state)
            game.apply_action(state, legal[choose(len(legal))], rng)
            steps += 1
        if CLOCK() >= deadline:
            break
    return steps / (CLOCK() - start)


def time_observe(env, calls: int = 2000, seed: int = 0) -> float:
    """Microseconds per ``observe`` call for every live agent at states met in random play.

    The env's per-step observation cache is cleared before each call, so this
    measures real encoding work.
    """
    rng = np.random.default_rng(seed)
    raw = env.unwrapped
    env.reset(seed=seed)
    total = 0.0
    done = games = 0
    while done < calls:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            games += 1
            env.reset(seed=seed + games)
            continue
        cache = getattr(raw, "_obs_cache", None)  # kakurega's per-step cache; references have none
        for viewer in raw.agents:
            if cache is not None:
                cache.clear()
            start = time.perf_counter()
            raw.observe(viewer)
            total += time.perf_counter() - start
            done += 1
        mask = raw.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return total / done * 1e6


def memory_per_instance(make_env, instances: int = 20) -> float:
    """Peak bytes allocated per live env instance (created and reset), via tracemalloc."""
    gc.collect()
    tracemalloc.start()
    envs = []
    for i in range(instances):
        env = make_env()
        env.reset(seed=i)
        envs.append(env)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del envs
    return peak / instances


def reference_cases() -> list[Case]:
    """PettingZoo classic references (need pettingzoo[classic] extras: pygame, rlcard)."""
    cases = []
    try:
        from pettingzoo.classic import tictactoe_v3

        cases.append(Case(REFERENCE, tictactoe_v3.env))
    except ImportError as error:
        raise SystemExit(f"the benchmark needs PettingZoo's tictactoe_v3 ({error}); install kakurega[bench]") from None
    try:
        from pettingzoo.classic import leduc_holdem_v4

        cases.append(Case("pettingzoo/leduc_holdem_v4", leduc_holdem_v4.env))
    except ImportError as error:
        print(f"note: leduc_holdem_v4 unavailable ({error}); install kakurega[bench]", file=sys.stderr)
    return cases


def kakurega_cases(only: str | None = None) -> list[Case]:
    """Every registered env in every registry configuration."""
    from kakurega.envs import ENV_SPECS, make

    cases = []
    for spec in ENV_SPECS.values():
        if only and only not in spec.name:
            continue
        for config in spec.configurations:
            label = spec.name + "".join(f" {k}={v}" for k, v in config.items())
            cases.append(
                Case(
                    label,
                    lambda n=spec.name, c=config: make(n, **c),
                    lambda n=spec.name, c=config: make(n, wrapped=False, **c),
                )
            )
    return cases


def run(seconds: float, repeats: int, only: str | None = None, chunks: int = 10) -> dict:
    """Measure everything; return the report dict."""
    load_at_start = os.getloadavg()
    cases = reference_cases() + kakurega_cases(only)
    reference = cases[0]
    for repeat in range(repeats):
        reference.results["ratio"].append(1.0)
        reference.results["observe_us"].append(time_observe(reference.make_env(), seed=repeat))
        for case in cases[1:] or [None]:
            # tictactoe is measured alongside every case, in alternating chunks: the
            # ratio compares measurements made under the same load, not ones a minute apart.
            if case is None:  # no kakurega env matched --only: tictactoe alone
                reference_speed, reference_games = drive_env(reference.make_env(), seconds, seed=1000 * repeat)
            else:
                pair = drive_side_by_side(reference.make_env, case.make_env, seconds, chunks, seed=1000 * repeat)
                (reference_speed, reference_games), (steps, games) = (player.rates() for player in pair)
            reference.results["steps_per_s"].append(reference_speed)
            reference.results["games_per_s"].append(reference_games)
            if case is None:
                break
            case.results["steps_per_s"].append(steps)
            case.results["games_per_s"].append(games)
            case.results["ratio"].append(steps / reference_speed)
            if case.make_raw is not None:
                raw = case.make_raw()
                case.results["engine_steps_per_s"].append(drive_engine(raw.game, seconds, seed=repeat))
            case.results["observe_us"].append(time_observe(case.make_env(), seed=repeat))
    rows = []
    for case in cases:
        r = case.results
        rows.append(
            {
                "env": case.label,
                "steps_per_s": statistics.median(r["steps_per_s"]),
                "games_per_s": statistics.median(r["games_per_s"]),
                "engine_steps_per_s": statistics.median(r["engine_steps_per_s"]) if r["engine_steps_per_s"] else None,
                "observe_us": statistics.median(r["observe_us"]),
                "memory_kib": memory_per_instance(case.make_env) / 1024,
                "ratio_vs_tictactoe": statistics.median(r["ratio"]),
                "ratio_min": min(r["ratio"]),
                "repeats": r["ratio"],
            }
        )
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": cpu_model(),
            "cpus": os.cpu_count(),
            # other processes' load when the run started (the run itself adds about 1)
            "load_average_at_start": [round(x, 2) for x in load_at_start],
            "clock": "process CPU time (time.process_time)",
        },
        # kakurega modules that ran compiled (setup.py); [] means pure Python
        # (no compiler at install time, or KAKUREGA_PURE_PYTHON=1)
        "compiled_modules": compiled_modules(),
        "seconds_per_measurement": seconds,
        "chunks_per_measurement": chunks,
        "repeats": repeats,
        "reference": REFERENCE,
        "rows": rows,
    }


def compiled_gain(seconds: float, repeats: int, only: str | None = None, chunks: int = 10) -> dict:
    """What each compiled module buys its env: the env's ratio to tictactoe with every module
    compiled, and with one compiled module of its game run from its source
    (``KAKUREGA_PURE_PYTHON=<module>``), each in a fresh process (a module is chosen at import).
    ``gain`` = ratio compiled / ratio without that module - 1, per configuration and as the mean
    over the env's configurations."""
    import subprocess
    import tempfile

    from kakurega.envs import ENV_SPECS, make

    reference_cases()  # the children's reference: a missing extra is said here, before any child runs

    def ratios(name: str, pure: str) -> dict:
        """Per configuration label: the median ratio to tictactoe, measured in a subprocess."""
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bench.json")
            code = (f"from kakurega.scripts.bench import main; main(['--only', {name!r}, '--seconds', '{seconds}', "
                    f"'--repeats', '{repeats}', '--chunks', '{chunks}', '--json', {path!r}])")
            env = {**os.environ, "KAKUREGA_PURE_PYTHON": pure}
            done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
            if done.returncode or not os.path.isfile(path):  # the child's own words, not a CalledProcessError
                said = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
                raise SystemExit(f"the benchmark of {name} (KAKUREGA_PURE_PYTHON={pure}) failed: {said}")
            with open(path) as file:
                report = json.load(file)
        return {row["env"]: row["ratio_vs_tictactoe"] for row in report["rows"] if row["env"].startswith(name)}

    rows = []
    for spec in ENV_SPECS.values():
        if only and only not in spec.name:
            continue
        package = type(make(spec.name, wrapped=False).game).__module__.rpartition(".")[0] + "."
        modules = [module for module in compiled_modules() if module.startswith(package)]
        if not modules:
            continue
        compiled = ratios(spec.name, "")
        for module in modules:
            without = ratios(spec.name, module)
            gains = {label: compiled[label] / without[label] - 1 for label in compiled}
            rows.append({"env": spec.name, "module": module, "gain": statistics.mean(gains.values()),
                         "gains": gains, "ratio_compiled": compiled, "ratio_without": without})
            print(f"{spec.name:26s} {module:48s} {100 * rows[-1]['gain']:+6.1f} %", flush=True)
    return {"seconds_per_measurement": seconds, "repeats": repeats, "chunks_per_measurement": chunks, "rows": rows}


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one), else the machine type."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def format_table(report: dict) -> str:
    """The report as a Markdown table."""
    lines = [
        "| env | steps/s (env) | games/s | steps/s (engine) | observe µs | KiB/instance | x tictactoe (median) | min |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["rows"]:
        engine = f"{row['engine_steps_per_s']:,.0f}" if row["engine_steps_per_s"] else "-"
        lines.append(
            f"| {row['env']} | {row['steps_per_s']:,.0f} | {row['games_per_s']:,.1f} | {engine} | "
            f"{row['observe_us']:.1f} | {row['memory_kib']:.0f} | {row['ratio_vs_tictactoe']:.2f} | {row['ratio_min']:.2f} |"
        )
    return "\n".join(lines)


def _check_opponents(only: str | None, opponents: tuple[str, ...], parser) -> None:
    """Refuse in words an ``--opponents`` spec that some measured game cannot seat: each is made once per game
    (the learner's own ``self``/``snapshots`` have no trainer here, and nobody answers a ``human``)."""
    from kakurega.agents.policy import context_for
    from kakurega.agents.specs import make_agent, parse_spec, require_unattended
    from kakurega.scripts.bench_training import case_configurations

    for spec in opponents:
        try:
            parsed = require_unattended(parse_spec(spec), "a bench opponent", "nobody answers while the bench runs")
            if parsed.kind in ("self", "snapshots"):
                raise ValueError(f"{spec!r} is the learner's own league entry; the bench has no trainer to push "
                                 "its weights: give an agent spec (random, heuristic, pretrained, policy:PATH, ...)")
            for name, config in case_configurations(only):
                make_agent(parsed, context_for(name, config), seed=0)
        except (ValueError, TypeError, OSError) as error:
            parser.error(f"--opponents: {error}")


def _training(args, parser) -> int:
    """``--training``: the throughput table (or with ``--profile`` the profile table), printed and written as JSON."""
    from kakurega.scripts import bench_training

    vec_envs = tuple(kind.strip() for kind in args.vec_envs.split(","))
    opponents = tuple(args.opponents)
    if opponents != bench_training.DEFAULT_OPPONENTS:
        _check_opponents(args.only, opponents, parser)
    for name, value, ok, expected in (
        ("--training-steps", args.training_steps, 1 <= args.training_steps <= MAX_TRAINING_STEPS,
         f"an integer from 1 to {MAX_TRAINING_STEPS:,}"),
        ("--vec-envs", args.vec_envs, set(vec_envs) <= {"dummy", "subproc"} and len(set(vec_envs)) == len(vec_envs),
         "a comma-separated list of dummy and subproc"),
    ):
        if not ok:
            parser.error(f"{name} must be {expected}, got {value}")
    if args.ops:
        report = bench_training.training_operators(args.only, args.masked_distribution, opponents)
        print(bench_training.format_operator_table(report))
    elif args.profile:
        report = bench_training.training_profile(args.training_steps, args.only, args.masked_distribution, opponents)
        print(bench_training.format_profile_table(report))
    else:
        report = bench_training.training_throughput(args.training_steps, args.only, vec_envs, repeats=args.repeats,
                                                    distribution=args.masked_distribution, opponents=opponents)
        print(bench_training.format_training_table(report))
    if len(report["rows"]) == 1:
        print(f"\nno kakurega env matched --only {args.only!r}")
    write_report(args.json, report)
    return 0


def write_report(path, report: dict) -> None:
    """Write ``report`` as JSON to ``path`` (checked by ``writable_file`` before the measurements): a new file
    renamed into place, so a link or a FIFO there is replaced, never followed or waited on."""
    from kakurega.scripts.destination import write_text_file

    print(f"\nwrote {write_text_file(path, json.dumps(report, indent=2))}")


def main(argv: list[str] | None = None) -> int:
    from kakurega.scripts.bench_training import DEFAULT_OPPONENTS

    parser = argparse.ArgumentParser(
        prog="kakurega bench",
        description="Benchmark every kakurega env against PettingZoo's tictactoe_v3 and leduc_holdem_v4 (random legal play).",
    )
    parser.add_argument("--seconds", type=float, default=2.0,
                        help=f"seconds of play per measurement, at most {MAX_SECONDS:g} (default 2.0)")
    parser.add_argument("--repeats", type=int, default=3,
                        help=f"interleaved repeats, 1 to {MAX_REPEATS}; medians are reported (default 3)")
    parser.add_argument("--chunks", type=int, default=10,
                        help=f"alternating chunks of each env and tictactoe per measurement, 1 to {MAX_CHUNKS} (default 10)")
    parser.add_argument("--json", default="runs/bench.json", help="where to write the JSON report (default runs/bench.json)")
    parser.add_argument("--only", default=None, help="only kakurega envs whose name contains this text")
    parser.add_argument("--training", action="store_true",
                        help="measure MaskablePPO learner steps/s instead (every env and connect_four_v3)")
    parser.add_argument("--training-steps", type=int, default=8192,
                        help=f"learner steps per training measurement, 1 to {MAX_TRAINING_STEPS:,}")
    parser.add_argument("--bridge", action="store_true",
                        help="measure the OpenSpiel bridge against the rules engine (kakurega.scripts.bench_bridge)")
    parser.add_argument("--ismcts", action="store_true", help="with --bridge: also IS-MCTS CPU per move against ISMCTSBot")
    parser.add_argument("--vec-envs", default="dummy,subproc",
                        help="with --training: vector envs to measure, comma-separated (default dummy,subproc)")
    parser.add_argument("--profile", action="store_true",
                        help="with --training: where the time of a learner step goes, per env (one learning each)")
    parser.add_argument("--ops", action="store_true",
                        help="with --training --profile: torch.profiler's top operators of a rollout and of an update")
    parser.add_argument("--opponents", nargs="+", default=list(DEFAULT_OPPONENTS), metavar="SPEC",
                        help="with --training: the kakurega learners' opponents, agent specs drawn per seat "
                        "(default random; e.g. heuristic or pretrained: what a learner against a bot spends)")
    parser.add_argument("--masked-distribution", choices=("exact", "compact"), default="compact",
                        help="with --training: the kakurega learners' network.masked_distribution (default compact, "
                             "as kakurega train)")
    parser.add_argument("--compiled-gain", action="store_true",
                        help="measure what each compiled module buys its env's steps/s (one subprocess per module)")
    parser.add_argument("--evaluate", action="store_true",
                        help="measure games/s of each shipped bot against the heuristic over random self-play "
                        "(scripts/bench_evaluate.py)")
    args = parser.parse_args(argv)
    # every mode measures for --seconds, --repeats times (a NaN or an infinity of seconds never ended)
    for name, value, ok, expected in (
        ("--seconds", args.seconds, 0 < args.seconds <= MAX_SECONDS,
         f"a number of seconds > 0, at most {MAX_SECONDS:g}"),
        ("--repeats", args.repeats, 1 <= args.repeats <= MAX_REPEATS, f"an integer from 1 to {MAX_REPEATS}"),
        ("--chunks", args.chunks, 1 <= args.chunks <= MAX_CHUNKS, f"an integer from 1 to {MAX_CHUNKS}"),
    ):
        if not ok:
            parser.error(f"{name} must be {expected}, got {value}")
    if args.profile and not args.training:
        parser.error("--profile goes with --training (it profiles a learner step)")
    if args.ops and not args.profile:
        parser.error("--ops goes with --training --profile (it profiles a learner step's operators)")
    if tuple(args.opponents) != DEFAULT_OPPONENTS and not args.training:
        parser.error("--opponents goes with --training (the learners' opponents)")
    from kakurega.scripts.destination import writable_file

    writable_file(args.json, "--json")  # before the measurements: a directory or an unwritable place, in words
    if args.bridge:
        from kakurega.scripts import bench_bridge

        return bench_bridge.main(args.seconds, args.repeats, args.only, args.json, ismcts=args.ismcts)
    if args.evaluate:
        from kakurega.scripts.bench_evaluate import evaluation_speed
        from kakurega.scripts.bench_evaluate import format_table as format_evaluate

        report = evaluation_speed(args.seconds, args.repeats, min(args.chunks, 4), args.only)
        print("\n" + format_evaluate(report))
        write_report(args.json, report)
        return 0
    if args.compiled_gain:
        report = compiled_gain(args.seconds, args.repeats, args.only, args.chunks)
        if not report["rows"]:
            print("no compiled module: this install runs pure Python")
            return 1
        write_report(args.json, report)
        return 0
    if args.training:
        return _training(args, parser)
    report = run(args.seconds, args.repeats, args.only, args.chunks)
    write_report(args.json, report)  # first: the measurements are kept whatever becomes of the printing
    table = format_table(report)
    print(table)
    count = len(report["compiled_modules"])
    if not any(row["engine_steps_per_s"] for row in report["rows"]):  # only the references ran
        print(f"\nno kakurega env matched --only {args.only!r}")
    else:
        print(f"\nkakurega modules compiled (setup.py): {count}" + ("" if count else " -- pure Python"))
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
