"""What the docs name exists: README.md, docs/*.md and the env cards (the env modules' docstrings).

- every command they give (``kakurega SUB ...``, ``python -m kakurega.scripts.NAME ...``, in ``bash`` blocks and
  in inline code) names a real subcommand or script, and each of its ``--flags`` is an option of it;
- every relative link leads to a file of the checkout, and its ``#anchor`` to a heading of that page;
- every ``kakurega.<module>.<name>`` (or ``kakurega.<module>:<name>``) they cite imports;
- every env creation call of a card (``<env>.env(...)``, ``<env>.raw_env(...)``) makes the env.

Each check has a control: the same check on a made-up text fails. The docs' code blocks run in
tests/integrations/test_docs.py; docs/adding_a_game.md's files and names are checked by tests/test_adding_a_game.py.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import re
import shlex
from pathlib import Path

from kakurega.envs.registry import ENV_SPECS

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def pages() -> dict[str, str]:
    """``{where: text}`` of every page users copy from: the README, docs/*.md and each env card."""
    found = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    found.update({f"docs/{path.name}": path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))})
    for spec in ENV_SPECS.values():
        module = spec.load()
        found[f"envs/{Path(module.__file__).name}"] = module.__doc__ or ""  # every env module is envs/<name>.py
    return found


# ------------------------------------------------------------------ commands
COMMAND = re.compile(r"(?:^|[\s/])kakurega ([a-z][a-z-]*)(?=\s|$)|\bpython -m (kakurega\.scripts\.\w+)")


def commands(text: str) -> list[tuple[str, list[str]]]:
    """``[(program, words after it)]`` of each command in ``text``'s ``bash`` blocks and inline code: ``program`` is
    ``kakurega SUB`` or the script module (``kakurega.scripts.NAME``). A command ends at a comment or a pipe."""
    spans = []
    for match in FENCE.finditer(text):
        if match.group(1) == "bash":
            spans += re.sub(r"\\\n\s*", " ", match.group(2)).splitlines()
    spans += [" ".join(code.split()) for code in re.findall(r"`([^`]{1,400})`", FENCE.sub("", text))]
    found = []
    for span in spans:
        for match in COMMAND.finditer(span):
            rest = re.split(r"\s#|\s\|\s|;|&&", span[match.end():])[0]
            try:
                words = shlex.split(rest)
            except ValueError:  # an unclosed quote in prose: the words as they stand
                words = rest.split()
            program = f"kakurega {match.group(1)}" if match.group(1) else match.group(2)
            found.append((program, words))
    return found


class _Parsed(Exception):
    """Raised instead of parsing: carries the parser a script builds inside its ``main``."""

    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def _parser_built_by(main) -> argparse.ArgumentParser:
    """The parser ``main(argv)`` builds (it is stopped where it would parse: nothing runs)."""
    original = argparse.ArgumentParser.parse_args

    def stop(self, args=None, namespace=None):
        raise _Parsed(self)

    argparse.ArgumentParser.parse_args = stop
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            main([])
    except _Parsed as parsed:
        return parsed.parser
    finally:
        argparse.ArgumentParser.parse_args = original
    raise AssertionError(f"{main.__module__}.main parses no arguments")


#: ``kakurega SUB`` whose arguments all go to a script's own parser
OWN_PARSER = {"bench": "kakurega.scripts.bench", "train-bots": "kakurega.scripts.train_bots"}
#: what :func:`options_of` says of a script that needs a library of an extra this install lacks
UNAVAILABLE = "needs a library this install lacks"


def options_of(program: str) -> set[str] | str | None:
    """The option strings ``program`` accepts; None when it is no command of kakurega (:data:`UNAVAILABLE` when it
    cannot be loaded here for a missing optional library)."""
    sub = program.partition(" ")[2] if program.startswith("kakurega ") else None
    if sub is not None and sub not in OWN_PARSER:
        from kakurega.scripts.cli import build_parser

        choices = next(action.choices for action in build_parser()._actions
                       if isinstance(action, argparse._SubParsersAction))
        return set(choices[sub]._option_string_actions) if sub in choices else None
    try:
        module = importlib.import_module(OWN_PARSER[sub] if sub else program)
        return set(_parser_built_by(module.main)._option_string_actions) if hasattr(module, "main") else None
    except ModuleNotFoundError as error:
        return UNAVAILABLE if error.name and not error.name.startswith("kakurega") else None


def command_errors(found: list[tuple[str, list[str]]]) -> list[str]:
    """What is wrong with each command: an unknown subcommand or script, or a flag it does not have."""
    errors, known = [], {}
    for program, words in found:
        if program not in known:
            known[program] = options_of(program)
        if known[program] is None:
            errors.append(f"{program}: no such command")
        if not isinstance(known[program], set):
            continue
        for word in words:
            flag = word.strip("[](),").partition("=")[0]
            if flag.startswith("--") and flag not in known[program]:
                errors.append(f"{program} {' '.join(words)}: no option {flag}")
    return errors


def test_every_command_in_the_docs_names_a_real_subcommand_and_real_flags():
    found = {where: commands(text) for where, text in pages().items()}
    assert sum(map(len, found.values())) > 200, "the docs give hundreds of commands: the search finds none?"
    errors = [f"{where}: {error}" for where, listed in found.items() for error in command_errors(listed)]
    assert not errors, "\n".join(errors)


def test_the_command_check_catches_a_wrong_flag_and_a_wrong_command():
    text = ("```bash\nkakurega evaluate ENV --agents random --gamez 4   # a comment --not-a-flag\n```\n"
            "Inline: `kakurega evalute ENV`, `python -m kakurega.scripts.cards --writ`, `kakurega serve --port 0`.")
    assert [program for program, _ in commands(text)] == ["kakurega evaluate", "kakurega evalute",
                                                          "kakurega.scripts.cards", "kakurega serve"]
    assert command_errors(commands(text)) == ["kakurega evaluate ENV --agents random --gamez 4: no option --gamez",
                                              "kakurega evalute: no such command",
                                              "kakurega.scripts.cards --writ: no option --writ"]
    assert command_errors(commands("`kakurega bench --only x --secondz 1`, `python -m kakurega.scripts.nothing`")) == [
        "kakurega bench --only x --secondz 1: no option --secondz", "kakurega.scripts.nothing: no such command"]


# ------------------------------------------------------------------ links
def anchors(text: str) -> set[str]:
    """The ``#anchors`` of a Markdown page's headings, as GitHub makes them (a repeated heading gets ``-1``, ...)."""
    seen, found = {}, set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", FENCE.sub("", text), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def link_errors(text: str, page: Path) -> list[str]:
    """Each relative link of ``text`` (the page at ``page``) whose file is missing or whose anchor is no heading."""
    errors = []
    for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", text)):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            errors.append(f"{target}: no file {file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            errors.append(f"{target}: {file.name} has no heading #{anchor}")
    return errors


def test_every_relative_link_and_anchor_of_the_docs_resolves():
    checked, errors = 0, []
    for where, text in pages().items():
        checked += len(re.findall(r"\]\(", text))
        errors += [f"{where}: {error}" for error in link_errors(text, ROOT / where)]
    assert checked > 30, checked
    assert not errors, "\n".join(errors)


def test_the_link_check_catches_a_missing_file_and_a_missing_anchor():
    readme = ROOT / "README.md"
    assert "#quick-start" in {f"#{anchor}" for anchor in anchors(readme.read_text(encoding="utf-8"))}
    good = "[a](docs/training.md#config-reference) [b](#quick-start) [c](https://example.org/#x)"
    assert link_errors(good, readme) == []
    bad = "[a](docs/training.md#config-referense) [b](docs/no_such_page.md) [c](#quick-stop)"
    assert [error.split(":")[0] for error in link_errors(bad, readme)] == [
        "docs/training.md#config-referense", "docs/no_such_page.md", "#quick-stop"]
    assert anchors("# A b\n## `c()`: d\n## A b\n```\n# not a heading\n```\n") == {"a-b", "c-d", "a-b-1"}


# ------------------------------------------------------------------ cited names
DOTTED = re.compile(r"\bkakurega((?:\.[A-Za-z_]\w*)+)(?::([A-Za-z_]\w*))?(?![\w/:])")


def cited_names(text: str) -> set[str]:
    """The ``kakurega.a.b`` and ``kakurega.a.b:c`` names ``text`` cites (not the worked example's ``toy`` game, nor
    a Gymnasium id ``kakurega.envs:kakurega/...``, nor file names such as ``kakurega.envs.yaml``)."""
    names = set()
    for match in DOTTED.finditer(text):
        name = "kakurega" + match.group(1) + (f":{match.group(2)}" if match.group(2) else "")
        if ".toy" not in name and not re.search(r"\.(py|md|yaml|yml|json|pxd)$", name):
            names.add(name)
    return names


def unresolved(name: str) -> str | None:
    """Why ``name`` does not resolve (None when it does): the longest importable module, then attributes."""
    dotted = name.replace(":", ".")
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:end]))
        except ModuleNotFoundError as error:
            if error.name and not error.name.startswith("kakurega"):
                return None  # an optional library (an extra) this install lacks: not the docs' fault
            continue
        for attribute in parts[end:]:
            if not hasattr(target, attribute):
                return f"{'.'.join(parts[:end])} has no {'.'.join(parts[end:])}"
            target = getattr(target, attribute)
        return None
    return "no such module"


def test_every_kakurega_name_the_docs_cite_exists():
    cited = {}
    for where, text in pages().items():
        for name in cited_names(text):
            cited.setdefault(name, []).append(where)
    assert len(cited) > 50, sorted(cited)
    errors = [f"{name} ({', '.join(cited[name])}): {why}" for name in sorted(cited) if (why := unresolved(name))]
    assert not errors, "\n".join(errors)


def test_the_name_check_catches_a_name_that_does_not_exist():
    text = ("`kakurega.envs.registry.ENV_SPECS`, `kakurega.envs.registry:get_spec`, "
            "`kakurega.envs.registry.NO_SUCH_NAME`, `kakurega.no_such_module.f`, `kakurega.envs.toy_v0`, "
            "`gymnasium.make('kakurega.envs:kakurega/X-v0')`, `kakurega/envs/data/rules/`.")
    assert cited_names(text) == {"kakurega.envs.registry.ENV_SPECS", "kakurega.envs.registry:get_spec",
                                 "kakurega.envs.registry.NO_SUCH_NAME", "kakurega.no_such_module.f"}
    assert [name for name in sorted(cited_names(text)) if unresolved(name)] == [
        "kakurega.envs.registry.NO_SUCH_NAME", "kakurega.no_such_module.f"]


# ------------------------------------------------------------------ the cards' creation calls
def creation_calls(text: str) -> list[str]:
    """The ``<env>.env(...)`` and ``<env>.raw_env(...)`` calls ``text`` writes out (not ``(...)``)."""
    calls = []
    for match in re.finditer(r"\b(\w+_v\d+)\.(?:raw_)?env\(", text):
        depth, end = 1, match.end()
        while depth and end < len(text):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        call = match.group(0) + text[match.end():end]
        if not call.endswith("(...)"):
            calls.append(" ".join(call.split()))
    return calls


def call_error(call: str) -> str | None:
    """Why ``call`` fails (None when it makes its env), with the env modules in scope by their names."""
    modules = {name: spec.load() for name, spec in ENV_SPECS.items()}
    try:
        eval(call, {"__builtins__": {}, "None": None, "True": True, "False": False}, modules).close()
    except Exception as error:  # noqa: BLE001 - the check reports any failure
        return f"{call}: {type(error).__name__}: {error}"
    return None


def test_every_creation_call_of_the_env_cards_makes_its_env():
    calls = {where: creation_calls(text) for where, text in pages().items() if where.endswith(".py")}
    assert sum(map(len, calls.values())) >= 5, calls
    errors = [f"{where}: {error}" for where, listed in calls.items() for call in listed if (error := call_error(call))]
    assert not errors, "\n".join(errors)


def test_the_creation_check_catches_an_option_the_env_does_not_have():
    name = next(iter(ENV_SPECS))
    text = f"    env = {name}.env(render_mode=None,\n        colour='red')\n    raw = {name}.raw_env(...)\n"
    assert creation_calls(text) == [f"{name}.env(render_mode=None, colour='red')"]
    assert "has no option 'colour'" in call_error(creation_calls(text)[0])
    assert call_error(f"{name}.env(render_mode=None)") is None


# ------------------------------------------------------------------ train-bots --only
ONLY = re.compile(r"train-bots --only ([a-z0-9_]+(?: [a-z0-9_]+)*)")


def only_errors(text: str, recipes: Path) -> list[str]:
    """Each ``kakurega train-bots --only WORD ...`` of ``text`` that selects no recipe of ``recipes``, or more recipes
    than the text says: a recipe the words select besides one they name must be named (or its name's rest after
    the word, ``_3p``) within the few lines that follow."""
    from kakurega.scripts.train_bots import bot_configs

    text, errors = " ".join(text.split()), []
    for match in ONLY.finditer(text):
        words = match.group(1).split()
        selected = [path.stem for path in bot_configs(recipes, words)]
        if not selected:
            errors.append(f"--only {match.group(1)}: selects no recipe")
        after = text[match.end():match.end() + 400]
        unsaid = [stem for stem in selected if stem not in words and stem not in after
                  and not any(word in stem and stem.split(word, 1)[1] in after for word in words)]
        if unsaid and len(selected) > 1:
            errors.append(f"--only {match.group(1)}: also trains {', '.join(unsaid)}, which the text does not say")
    return errors


def test_every_train_bots_only_command_says_which_recipes_it_trains():
    """``--only`` selects a recipe by its whole name, else every recipe whose name contains the word: a doc or a
    recipe's comment that gives the command says so when the words select several recipes."""
    recipes = ROOT / "configs" / "bots"
    texts = {**pages(), **{f"configs/bots/{path.name}": path.read_text(encoding="utf-8")
                           for path in sorted(recipes.glob("*.yaml"))}}
    assert sum(len(ONLY.findall(" ".join(text.split()))) for text in texts.values()) >= 20
    errors = [f"{where}: {error}" for where, text in texts.items() for error in only_errors(text, recipes)]
    assert not errors, "\n".join(errors)


def test_the_only_check_catches_a_word_that_selects_more_than_it_says():
    recipes = ROOT / "configs" / "bots"
    stems = sorted(path.stem for path in recipes.glob("*.yaml"))
    word = next(s.split("_")[0] for s in stems if s.split("_")[0] not in stems)  # a word no recipe is named
    chosen = [s for s in stems if word in s]
    assert len(chosen) > 1
    assert only_errors(f"`kakurega train-bots --only {word}` trains it.", recipes) == [
        f"--only {word}: also trains {', '.join(chosen)}, which the text does not say"]
    said = " and ".join(f"`{s.split(word, 1)[1]}`" for s in chosen)
    assert only_errors(f"`kakurega train-bots --only {word}` (it trains {said}).", recipes) == []
    assert only_errors("`kakurega train-bots --only no_such_recipe`", recipes) == ["--only no_such_recipe: selects no recipe"]


def test_a_recipes_whole_name_selects_it_alone():
    """``--only animal_chain`` trains the recipe of that name, not also ``animal_chain_any`` and ``animal_chain_reach``
    (whose names contain it); a word no recipe is named selects every recipe whose name contains it."""
    from kakurega.scripts.train_bots import bot_configs

    recipes = ROOT / "configs" / "bots"
    stems = sorted(path.stem for path in recipes.glob("*.yaml"))
    prefixes = [a for a in stems if any(b != a and b.startswith(a) for b in stems)]
    assert len(prefixes) >= 3  # recipes whose names begin other recipes' names
    for name in prefixes:
        assert [path.stem for path in bot_configs(recipes, [name])] == [name]
    assert [path.stem for path in bot_configs(recipes, [prefixes[0], "summer"])] == sorted(
        [prefixes[0], *(s for s in stems if "summer" in s)])
    assert len(bot_configs(recipes, ["kakurenbo"])) == sum("kakurenbo" in s for s in stems) > 1
