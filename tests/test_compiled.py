"""The compiled modules (setup.py, Cython) behave exactly like their Python sources.

- Seeded random games give the same observations, masks, rewards and
  determinizations with the compiled modules as with ``KAKUREGA_PURE_PYTHON=1``
  (run in a subprocess), for every registry configuration.
- Envs pickled by one build load and play on in the other.
- The import guard (``kakurega.envs.compiled``) never lets a stale build or an
  unwanted one run instead of the source.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from kakurega.envs import ENV_SPECS, compiled, make

GAMES = 4


def digest_of_play(games: int = GAMES) -> dict:
    """Per configuration, a hash of everything seeded random play shows an agent.

    Observations of every agent (live or not) at every step, masks, rewards,
    terminations, and a determinization of the acting player's view.
    """
    out = {}
    for spec in ENV_SPECS.values():
        for options in spec.configurations:
            digest = hashlib.sha256()
            for game_seed in range(games):
                env = make(spec.name, **options)
                env.reset(seed=game_seed)
                choose = np.random.default_rng(100 + game_seed)
                for step, agent in enumerate(env.agent_iter(max_iter=5_000)):
                    obs, reward, terminated, truncated, _ = env.last()
                    digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
                    digest.update(repr((agent, reward, terminated, truncated)).encode())
                    for other in env.agents:
                        digest.update(env.observe(other)["observation"].tobytes())
                    if terminated or truncated:
                        env.step(None)
                        continue
                    if step % 5 == 0:
                        sample = env.unwrapped.resample_hidden(agent, np.random.default_rng(step))
                        digest.update(env.unwrapped.game.fingerprint(sample))
                    env.step(int(choose.choice(np.flatnonzero(obs["action_mask"]))))
            out[f"{spec.name} {options}"] = digest.hexdigest()
    return out


def test_compiled_modules_match_their_python_sources():
    for spec in ENV_SPECS.values():
        make(spec.name)  # import every game's modules
    if not compiled.compiled_modules():
        pytest.skip("this install runs pure Python (no compiled module was built)")
    here = digest_of_play()
    code = "import json, test_compiled; print(json.dumps(test_compiled.digest_of_play()))"
    env = {**os.environ, "KAKUREGA_PURE_PYTHON": "1"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    pure = json.loads(result.stdout.strip().splitlines()[-1])
    assert pure.keys() == here.keys()
    differing = [name for name in here if here[name] != pure[name]]
    assert not differing, f"compiled and pure Python play differ for {differing}"


def test_the_pure_python_subprocess_really_runs_the_sources():
    code = (
        "import kakurega.envs as e\n"
        "for n in e.list_envs(): e.make(n)\n"
        "print(len(e.compiled.compiled_modules()))"
    )
    env = {**os.environ, "KAKUREGA_PURE_PYTHON": "1"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0"


def midgame_envs() -> dict:
    """Per env: a raw env pickled a few seeded steps into a game, and a hash of what its agents observe."""
    out = {}
    for spec in ENV_SPECS.values():
        env = make(spec.name, wrapped=False, **spec.configurations[0])
        env.reset(seed=3)
        choose = np.random.default_rng(3)
        for _ in range(6):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            env.step(int(choose.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        out[spec.name] = [pickle.dumps(env).hex(), observed(env)]
    return out


def observed(env) -> str:
    digest = hashlib.sha256()
    for agent in env.agents:
        obs = env.observe(agent)
        digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
    return digest.hexdigest()


def load_and_observe(path: str) -> dict:
    """What the pickled envs in the JSON file at ``path`` show after loading here."""
    with open(path) as file:
        pickled = json.load(file)
    return {name: observed(pickle.loads(bytes.fromhex(data))) for name, (data, _) in pickled.items()}


def test_pickles_load_across_compiled_and_pure_python(tmp_path):
    # an env pickled by a compiled install loads in a pure-Python one and the other way round
    # (a compiled class may be an extension type: KAKURENBO's observer is)
    for spec in ENV_SPECS.values():
        make(spec.name)
    if not compiled.compiled_modules():
        pytest.skip("this install runs pure Python (no compiled module was built)")
    mine = tmp_path / "compiled.json"
    mine.write_text(json.dumps(midgame_envs()))
    code = (
        "import json, sys, test_compiled\n"
        "print(json.dumps([test_compiled.load_and_observe(sys.argv[1]), test_compiled.midgame_envs()]))"
    )
    env = {**os.environ, "KAKUREGA_PURE_PYTHON": "1"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", code, str(mine)], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    loaded_pure, theirs = json.loads(result.stdout.strip().splitlines()[-1])
    expected = {name: digest for name, (_, digest) in json.loads(mine.read_text()).items()}
    assert loaded_pure == expected, "compiled pickles observe differently once loaded in pure Python"
    (tmp_path / "pure.json").write_text(json.dumps(theirs))
    assert load_and_observe(str(tmp_path / "pure.json")) == {name: digest for name, (_, digest) in theirs.items()}


# ------------------------------------------------------------- the guard
@pytest.fixture
def fake_build(tmp_path, monkeypatch):
    """A module ``kakurega.fake.mod`` whose path finder answers with a compiled build in tmp_path."""
    source = tmp_path / "mod.py"
    build = tmp_path / "mod.cpython-311-x86_64-linux-gnu.so"
    source.write_text("VALUE = 1\n")
    build.write_bytes(b"not really a shared library")

    def find_spec(name, path=None, target=None):
        loader = importlib.machinery.ExtensionFileLoader(name, str(build))
        return importlib.machinery.ModuleSpec(name, loader, origin=str(build))

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", staticmethod(find_spec))
    monkeypatch.delenv("KAKUREGA_PURE_PYTHON", raising=False)
    return source, build


def set_age(path, seconds_ago: float) -> None:
    stamp = time.time() - seconds_ago
    os.utime(path, (stamp, stamp))


def test_a_fresh_build_is_used(fake_build):
    source, build = fake_build
    set_age(source, 100)
    set_age(build, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec = compiled.SourceOverStaleBuild().find_spec("kakurega.fake.mod", None)
    assert spec.origin == str(build)


def test_a_build_older_than_its_source_gives_way_to_the_source_with_a_warning(fake_build):
    source, build = fake_build
    set_age(build, 100)
    set_age(source, 50)
    with pytest.warns(UserWarning, match="older than .*mod.py.*make compile"):
        spec = compiled.SourceOverStaleBuild().find_spec("kakurega.fake.mod", None)
    assert spec.origin == str(source)
    assert isinstance(spec.loader, importlib.machinery.SourceFileLoader)


@pytest.mark.parametrize("value, pure", [("1", True), ("yes", True), ("0", False), ("", False),
                                         ("kakurega.fake.mod", True), ("kakurega.other.mod,kakurega.fake.mod", True),
                                         ("kakurega.other.mod", False), ("kakurega.fake", False)])
def test_the_environment_variable_chooses_the_sources(fake_build, monkeypatch, value, pure):
    source, build = fake_build
    set_age(source, 100)
    set_age(build, 50)
    monkeypatch.setenv("KAKUREGA_PURE_PYTHON", value)
    spec = compiled.SourceOverStaleBuild().find_spec("kakurega.fake.mod", None)
    assert spec.origin == str(source if pure else build)


def test_the_guard_leaves_other_packages_alone(fake_build):
    assert compiled.SourceOverStaleBuild().find_spec("numpy.fake", None) is None


def test_the_guard_is_installed_first_once():
    compiled.install()
    compiled.install()
    guards = [f for f in sys.meta_path if isinstance(f, compiled.SourceOverStaleBuild)]
    assert len(guards) == 1
    assert sys.meta_path.index(guards[0]) < sys.meta_path.index(importlib.machinery.PathFinder)


@pytest.mark.slow
def test_without_a_c_compiler_the_package_installs_as_pure_python(tmp_path):
    """Each compiled module is optional: a failing compiler leaves an installable pure-Python package."""
    # the sources alone: no build products of this checkout (in-place modules, build/)
    root = tmp_path / "source"
    shutil.copytree(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), root,
        ignore=shutil.ignore_patterns(".*", "build", "runs", "*.egg-info", "__pycache__", "*.so"),
    )
    target = tmp_path / "site"
    env = {**os.environ, "CC": "false"}  # every C compilation fails
    env.pop("KAKUREGA_PURE_PYTHON", None)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(root)],
        env=env, capture_output=True, text=True, timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    assert not list(target.rglob("*.so")) and list(target.rglob("rules.py"))
    code = "import kakurega.envs as e\nfor n in e.list_envs(): e.make(n).reset(seed=0)\nprint(len(e.compiled.compiled_modules()))"
    run = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": str(target)}, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"


# ------------------------------------------------- the .pxd files agree with their .py
# A ``.pxd`` next to a compiled module names attributes, functions and locals of the
# ``.py``. The compiled build breaks (an attribute assigned in ``__init__`` but not
# declared: AttributeError) or quietly loses a type (a local renamed) when the two drift
# apart; these checks read both files, so they run on every install, compiled or not.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pxd_declarations(text: str) -> dict:
    """What a ``.pxd`` declares: ``{"module": {names}, "classes": {class: {attributes}},
    "functions": {"name" or "Class.name": {typed locals}}}``."""
    out = {"module": set(), "classes": {}, "functions": {}}
    logical, depth, current = [], 0, ""
    for line in text.splitlines():
        line = line.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        current = current + " " + line.strip() if depth else line
        depth += line.count("(") - line.count(")")
        if depth == 0:
            logical.append(current)
    cls, typed = None, set()
    for line in logical:
        indented, words = line.startswith(" "), line.strip()
        if not indented:
            cls = None
        if words.startswith("cdef class "):
            cls = words[len("cdef class "):].rstrip(":").strip()
            out["classes"][cls] = set()
        elif words.startswith("@cython.locals("):
            typed = {keyword.arg for keyword in ast.parse("f" + words[len("@cython.locals"):]).body[0].value.keywords}
        elif words.startswith("cpdef "):
            name = words[len("cpdef "):].split("(")[0].split()[-1]
            out["functions"][f"{cls}.{name}" if cls else name] = typed
            typed = set()
        elif words.startswith("cdef "):
            declared = words[len("cdef "):].replace("public ", "").replace("readonly ", "").split(",")
            names = {declared[0].split()[-1]} | {name.strip() for name in declared[1:]}
            if cls:
                out["classes"][cls] |= names
            else:
                out["module"] |= names
    return out


def python_definitions(text: str) -> dict:
    """The same facts read from the ``.py``: module-level names, the ``self.x`` each class
    assigns, and the arguments and assigned names of every function and method."""
    tree = ast.parse(text)

    def stored(node) -> set:
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names |= {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        return names

    out = {"module": set(), "classes": {}, "functions": {}}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out["module"] |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            out["module"] |= stored(node)
        elif isinstance(node, ast.FunctionDef):
            out["module"].add(node.name)
            out["functions"][node.name] = stored(node)
        elif isinstance(node, ast.ClassDef):
            out["module"].add(node.name)
            out["classes"][node.name] = {
                n.attr for n in ast.walk(node)
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                and isinstance(n.value, ast.Name) and n.value.id == "self"
            }
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out["functions"][f"{node.name}.{item.name}"] = stored(item)
    return out


def pxd_problems(pxd_text: str, py_text: str) -> list[str]:
    """Every way the ``.pxd`` disagrees with its ``.py`` (empty when they agree)."""
    pxd, py = pxd_declarations(pxd_text), python_definitions(py_text)
    problems = [f"module name {name} is not defined in the .py" for name in sorted(pxd["module"] - py["module"])]
    for cls, declared in pxd["classes"].items():
        if cls not in py["classes"]:
            problems.append(f"class {cls} is not in the .py")
            continue
        assigned = py["classes"][cls]
        problems += [f"{cls}.{a} is declared but never assigned in the .py" for a in sorted(declared - assigned)]
        problems += [f"{cls}.{a} is assigned in the .py but not declared (compiled: AttributeError)"
                     for a in sorted(assigned - declared)]
    for function, typed in pxd["functions"].items():
        if function not in py["functions"]:
            problems.append(f"{function} is declared but not defined in the .py")
            continue
        problems += [f"{function}: typed local {name} is not a local of the .py (renamed?)"
                     for name in sorted(typed - py["functions"][function])]
    return problems


def accelerated() -> list[str]:
    """setup.py's ``ACCELERATED``: the sources it compiles (read, not imported: importing runs setup())."""
    tree = ast.parse(read("setup.py"))
    return next(
        ast.literal_eval(node.value) for node in tree.body
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["ACCELERATED"]
    )


#: the source folders that may hold compiled modules
SOURCE_FOLDERS = ("envs", "agents")


def pxd_files() -> list[str]:
    """Every ``.pxd`` under the source folders, relative to the checkout."""
    return sorted(
        os.path.relpath(os.path.join(folder, name), ROOT)
        for top in SOURCE_FOLDERS
        for folder, _, names in os.walk(os.path.join(ROOT, top))
        for name in names
        if name.endswith(".pxd")
    )


def read(path: str) -> str:
    with open(os.path.join(ROOT, path)) as file:
        return file.read()


@pytest.mark.parametrize("pxd", pxd_files())
def test_every_pxd_declaration_matches_its_python_source(pxd):
    source = pxd[: -len(".pxd")] + ".py"
    assert source.replace(os.sep, "/") in accelerated(), f"{pxd} types a module setup.py does not compile"
    assert pxd_problems(read(pxd), read(source)) == []


def test_control_the_pxd_check_catches_a_renamed_local_a_new_attribute_and_a_lost_function():
    pxd = read("envs/kakurenbo/observation.pxd")
    source = read("envs/kakurenbo/observation.py")
    assert pxd_problems(pxd, source) == []
    renamed = source.replace("held_red", "red_held")
    assert "KakurenboObserver.encode: typed local held_red is not a local of the .py (renamed?)" in pxd_problems(pxd, renamed)
    added = source.replace("        self.kurayami = game.kurayami\n", "        self.kurayami = game.kurayami\n        self.extra = 1\n")
    assert any("KakurenboObserver.extra is assigned" in p for p in pxd_problems(pxd, added))
    lost = source.replace("def encode(self, state, seat: int)", "def encode_one(self, state, seat: int)")
    assert "KakurenboObserver.encode is declared but not defined in the .py" in pxd_problems(pxd, lost)


def test_no_generated_c_lies_among_the_sources():
    # setup.py has Cython write its C under build/cython (thousands of lines per module)
    assert not sorted(
        os.path.relpath(os.path.join(folder, name), ROOT)
        for top in SOURCE_FOLDERS
        for folder, _, names in os.walk(os.path.join(ROOT, top))
        for name in names
        if name.endswith((".c", ".cpp"))
    )


@pytest.mark.parametrize("pxd", pxd_files())
def test_the_typed_declarations_are_compiled_in(pxd):
    # a .pxd makes its classes extension types and exports its cpdef functions in the
    # module's C API table (setup.py must find it); untyped, everything would still
    # work, only slower
    name = "kakurega." + pxd[: -len(".pxd")].replace(os.sep, ".")
    module = importlib.import_module(name)
    if name not in compiled.compiled_modules():
        pytest.skip(f"{name} runs pure Python here")
    declared = pxd_declarations(read(pxd))
    for cls in declared["classes"]:
        assert "__dict__" not in dir(getattr(module, cls)), f"{cls} is not an extension type"
    functions = {f for f in declared["functions"] if "." not in f}
    assert functions <= set(getattr(module, "__pyx_capi__", {})), f"{name} exports no C API for some cpdef functions"


@pytest.mark.parametrize("name", sorted(ENV_SPECS))
def test_bots_copy_and_pickle_in_either_build_and_play_on_as_the_original(name):
    """A training view's opponents and a worker's agents are deep-copied and pickled: every bot kind, compiled
    tables included, copies, and the copies choose what the original chooses, one observation after another."""
    import copy

    from kakurega.agents.base import AgentContext, choose_action
    from kakurega.agents.pretrained import find
    from kakurega.agents.specs import make_agent

    raw = make(name, wrapped=False)
    context = AgentContext.from_env(raw, name, {})
    specs = ["heuristic", "ismcts:simulations=6,rollout=heuristic,seed=2"]
    try:
        find(name, {})
        specs.append("pretrained")
    except ValueError:
        pass  # no shipped bot for this configuration
    for spec in specs:
        agent = make_agent(spec, context, seed=3)
        raw.reset(seed=5)
        def over() -> bool:  # (a finished game's agents stay listed until they step out)
            current = raw.agent_selection
            return not raw.agents or raw.terminations[current] or raw.truncations[current]

        for _ in range(3):  # a few moves first: whatever the bot keeps between moves is copied too
            if over():
                break
            raw.step(choose_action(agent, raw, raw.agent_selection))
        copies = [copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))]
        for _ in range(6):
            if over():
                break
            seat = raw.agent_selection
            moves = [choose_action(bot, raw, seat) for bot in [agent, *copies]]
            assert moves[1:] == moves[:1] * 2, f"{name} {spec}: the copies chose {moves[1:]}, the bot {moves[0]}"
            raw.step(moves[0])
