"""Agent spec strings: one way to name a player in configs, the CLI and tournaments.

A spec is ``kind`` or ``kind:argument`` where the argument is either a path
(``policy:runs/kakurenbo_ppo/policy.safetensors``) or ``key=value`` options
(``ismcts:simulations=400,c=0.7``). Built-in kinds:

==============  ==========================================================
``random``      uniformly random over the legal actions
``heuristic``   the game's rule-based player (the registry's ``heuristic``)
``policy:PATH`` a trained policy file (see :mod:`kakurega.agents.policy`);
                ``policy:PATH,sample=true`` samples instead of acting greedily
``human``       a person at the terminal (see :mod:`kakurega.agents.human`)
==============  ==========================================================

Extension point: :func:`register_agent_kind` adds a kind, e.g.::

    def make_ismcts(context, seed, options, argument):
        return ISMCTSAgent(context, seed, simulations=int(options.get("simulations", 400)))

    register_agent_kind("ismcts", make_ismcts)

after which ``"ismcts:simulations=400"`` works everywhere specs are accepted.
A module ``kakurega.agents.<kind>`` that registers its kind when imported is
found automatically the first time a spec names that kind.
Factories receive ``(context, seed, options, argument)``: ``options`` is the
``dict[str, str]`` of ``key=value`` pairs (values are strings; convert them
yourself and reject unknown keys), ``argument`` the positional part (a path)
or ``None``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from kakurega.agents.base import Agent, AgentContext, RandomAgent
from kakurega.envs.core.safe_load import short_repr

AgentFactory = Callable[[AgentContext, "int | None", dict, "str | None"], Agent]

_KINDS: dict[str, AgentFactory] = {}
_KIND_HELP: dict[str, str] = {}


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec string: ``kind[:argument][,key=value...]``."""

    kind: str
    argument: str | None = None
    options: dict = field(default_factory=dict)
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.kind


#: characters of an agent spec, at most (a path included: PATH_MAX is 4096)
MAX_SPEC_LENGTH = 4096


def parse_spec(spec: str) -> AgentSpec:
    """Parse ``"kind"``, ``"kind:PATH"``, ``"kind:key=v,key=v"`` or ``"kind:PATH,key=v"``.

    A path holding ``,`` or ``=`` goes in double quotes: ``policy:"runs/lr=1e-3,bs=64/policy.safetensors"``
    (:func:`with_path` writes a spec so), in an option's value too (``ismcts:prior=policy:"PATH"``).

    >>> parse_spec("policy:runs/a.safetensors,sample=true")
    AgentSpec(kind='policy', argument='runs/a.safetensors', options={'sample': 'true'}, text='policy:runs/a.safetensors,sample=true')
    >>> parse_spec("ismcts:simulations=400,c=0.7").options
    {'simulations': '400', 'c': '0.7'}
    >>> parse_spec('policy:"runs/lr=1e-3,bs=64/policy.safetensors",sample=true').argument
    'runs/lr=1e-3,bs=64/policy.safetensors'
    >>> parse_spec('ismcts:prior=policy:"runs/lr=1e-3,bs=64/policy.safetensors",simulations=50').options
    {'prior': 'policy:"runs/lr=1e-3,bs=64/policy.safetensors"', 'simulations': '50'}
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string such as 'random' or 'policy:PATH', got "
                         f"{short_repr(spec)}")
    if len(spec) > MAX_SPEC_LENGTH:  # every message below quotes the spec: bounded here
        raise ValueError(f"agent spec of {len(spec)} characters ({short_repr(spec)}); the limit is {MAX_SPEC_LENGTH}")
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    argument = None
    options: dict[str, str] = {}
    if rest.lstrip().startswith('"'):  # a quoted argument: everything up to the closing quote
        quoted = rest.lstrip()
        end = quoted.find('"', 1)
        if end < 0:
            raise ValueError(f"agent spec {short_repr(text)}: the quoted argument has no closing '\"'")
        argument, rest = quoted[1:end], quoted[end + 1:]
        if rest.strip() and not rest.lstrip().startswith(","):
            raise ValueError(f"agent spec {short_repr(text)}: expected ',key=value' or nothing after the quoted "
                             f"argument, got {short_repr(rest.strip())}")
        rest = "," + rest.lstrip()[1:] if rest.strip() else ""
    if rest:
        for i, part in enumerate(_split_options(rest)):
            part = part.strip()
            if not part:
                continue
            key, eq, value = part.partition("=")
            if eq and key.strip().isidentifier():
                if key.strip() in options:  # the last one would win silently
                    raise ValueError(f"agent spec {short_repr(text)}: option {key.strip()!r} is given twice")
                options[key.strip()] = value.strip()
            elif i == 0 and argument is None:
                argument = part
            else:
                raise ValueError(
                    f"agent spec {text!r}: {part!r} is not a key=value option; expected "
                    f"'{kind}:ARGUMENT,key=value,...' (an argument holding ',' or '=' goes in double quotes: "
                    f"{kind}:\"ARGUMENT\")"
                )
    return AgentSpec(kind=kind, argument=argument, options=options, text=text)


def _split_options(rest: str) -> list[str]:
    """``rest`` split at the commas outside double quotes: an option's value may be a spec with a quoted path
    (``prior=policy:"runs/lr=1e-3,bs=64/policy.safetensors"``), which keeps its quotes for that spec's parse."""
    if rest.count('"') % 2:  # no pairs (a path may hold one '"'): plain commas, as before quotes
        return rest.split(",")
    parts, quoted, start = [], False, 0
    for i, char in enumerate(rest):
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            parts.append(rest[start:i])
            start = i + 1
    parts.append(rest[start:])
    return parts


def with_path(kind: str, path) -> str:
    """The spec ``kind:PATH`` that :func:`parse_spec` reads back as ``path`` (quoted where it holds ``,`` or ``=``)."""
    text = str(path)
    if "," in text or "=" in text or text != text.strip() or text.startswith('"'):
        if '"' in text:  # (a path needs quotes here, and quotes cannot hold a quote)
            raise ValueError(f"the path {short_repr(text)} holds a '\"' and a ',' or '=' (or starts with '\"'), "
                             "which an agent spec cannot name together; move or rename it")
        text = f'"{text}"'
    return f"{kind}:{text}"


#: kinds that wait for a person at the terminal: refused wherever nobody can answer
INTERACTIVE_KINDS = {"human"}


#: simulations per decision a search (``ismcts:simulations=N``) may ask for where no clock stops a move: a
#: tournament, a tactics suite, a balance report, training opponents and teachers, the bench. 25 times the
#: strongest documented setting (400); IS-MCTS's own cap (:data:`kakurega.agents.ismcts.MAX_SIMULATIONS`) is for
#: ``kakurega play`` and the web app, whose time per move stops a larger search at its best move so far
MAX_UNTIMED_SIMULATIONS = 10_000


def require_unattended(spec: AgentSpec, role: str,
                       reason: str = "nobody answers while a run trains or evaluates", clock: bool = False) -> AgentSpec:
    """``spec`` unless its kind needs a person (:data:`INTERACTIVE_KINDS`), which cannot play ``role`` (``reason``: why),
    or, where no ``clock`` stops each move, it asks a search for more than :data:`MAX_UNTIMED_SIMULATIONS`
    simulations per decision."""
    if spec.kind in INTERACTIVE_KINDS:
        raise ValueError(
            f"agent spec {spec.text!r} needs a person at the terminal, so it cannot be {role} "
            f"({reason}); use random, heuristic or policy:PATH"
        )
    text = str(spec.options.get("simulations", "")).strip() if spec.kind == "ismcts" else ""
    try:  # read as the search reads it (int: "20_000" and "+20000" too); a text that is not a number is its to refuse
        simulations = int(text) if text else 0
    except ValueError:
        simulations = 0
    if not clock and simulations > MAX_UNTIMED_SIMULATIONS:
        raise ValueError(
            f"agent spec {short_repr(spec.text)}: simulations={text} is too many for {role}; expected at most "
            f"{MAX_UNTIMED_SIMULATIONS:,} simulations per decision where no clock stops a move (kakurega play and the "
            "web app stop a larger search at their time per move)"
        )
    return spec


#: modules imported at the user's request (the commands' ``--import``): a run's worker processes import them too
USER_MODULES: list[str] = []

#: the kinds kakurega itself provides: a user's registration replaces one only when it says so (``replace=True``)
BUILTIN_KINDS = frozenset({"random", "heuristic", "policy", "human", "ismcts", "pretrained"})


def register_agent_kind(prefix: str, factory: AgentFactory, help: str = "", replace: bool = False) -> None:
    """Make specs starting with ``prefix`` build agents with ``factory(context, seed, options, argument)``.

    Registering a kind again replaces it (a notebook cell run twice); a built-in kind (:data:`BUILTIN_KINDS`)
    only with ``replace=True``: every later ``random`` baseline or ``heuristic`` opponent of the process would
    be the new factory's."""
    prefix = prefix.strip().lower()
    if not prefix.isidentifier():
        raise ValueError(f"agent kind {prefix!r} must be an identifier such as 'ismcts'")
    existing = _KINDS.get(prefix)
    if (existing is not None and prefix in BUILTIN_KINDS and not replace
            and getattr(existing, "__module__", None) != getattr(factory, "__module__", None)):
        if str(getattr(factory, "__module__", "")).startswith("kakurega."):
            return  # a built-in module imported after the user replaced its kind: the user's stays
        raise ValueError(f"agent kind {prefix!r} is one of kakurega's own kinds; register yours under another "
                         "name, or pass replace=True to replace it for the whole process")
    _KINDS[prefix] = factory
    _KIND_HELP[prefix] = help


def kind_module(spec: str | AgentSpec) -> str | None:
    """The module whose factory builds ``spec``'s kind (None for a kind not registered yet): a worker imports it."""
    parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec)
    factory = _KINDS.get(parsed.kind)
    return None if factory is None else getattr(factory, "__module__", None)


def agent_kinds() -> dict[str, str]:
    """Registered kinds and their one-line help."""
    return dict(_KIND_HELP)


def _no_options(spec: AgentSpec, allowed=()) -> None:
    unknown = sorted(set(spec.options) - set(allowed))
    if unknown:
        expected = ", ".join(allowed) if allowed else "no options"
        raise ValueError(f"agent spec {spec.text!r}: unknown option(s) {', '.join(unknown)}; expected {expected}")


def parse_bool(value: str, what: str) -> bool:
    """``"true"/"false"/"1"/"0"/"yes"/"no"`` as a bool (``what`` names it in errors)."""
    lowered = str(value).strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{what}: expected true or false, got {value!r}")


def load_heuristic_class(env_name: str) -> type:
    """The heuristic agent class the registry names for ``env_name`` (``EnvSpec.heuristic``)."""
    from kakurega.envs.registry import get_spec

    return _load_entry(env_name, "heuristic", get_spec(env_name).heuristic)


def load_rollout_policy(env_name: str):
    """The greedy rollout policy the registry names for ``env_name`` (``EnvSpec.rollout``; see
    :mod:`kakurega.agents.rollouts`); a ``ValueError`` naming the envs that have one when it has none."""
    from kakurega.envs.registry import ENV_SPECS, get_spec

    spec = get_spec(env_name)
    if not spec.rollout:
        having = ", ".join(name for name, other in ENV_SPECS.items() if other.rollout)
        raise ValueError(
            f"rollout=greedy: no greedy rollout policy for {spec.name} (its registry entry has no rollout=); "
            f"envs with one: {having} (use rollout=random or rollout=heuristic)"
        )
    return _load_entry(env_name, "rollout policy", spec.rollout)


def _load_entry(env_name: str, what: str, path: str):
    """The object a registry entry names as ``"module:name"``; a ``ValueError`` in words when it cannot be loaded."""
    module_name, _, name = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"the {what} of {env_name} ({path}) cannot be imported: {error}") from error
    try:
        return getattr(module, name)
    except AttributeError:
        raise ValueError(f"the {what} of {env_name}: module {module_name} has no {name!r}") from None


def _make_random(context, seed, options, argument):
    return RandomAgent(context, seed)


def _make_heuristic(context, seed, options, argument):
    cls = load_heuristic_class(context.env_name)
    if not options:
        return cls(context, seed)
    taken = _keyword_options(cls)
    if taken is not None:
        unknown = sorted(set(options) - set(taken))
        if unknown:
            listed = f"it takes: {', '.join(taken)}" if taken else "it takes no options"
            raise ValueError(
                f"agent kind 'heuristic' ({cls.__name__}, the heuristic of {context.env_name}) takes no option "
                f"{', '.join(map(repr, unknown))}; {listed}"
            )
    return cls(context, seed, **options)


def _keyword_options(cls) -> list | None:
    """The keyword options ``cls(context, seed, ...)`` takes (None when it takes any: ``**kwargs``)."""
    import inspect

    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):  # no signature to read: let the call say what is wrong
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return [p.name for p in parameters[2:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _make_policy(context, seed, options, argument):
    from kakurega.agents.policy import load

    if not argument:
        raise ValueError("agent spec 'policy' needs a path: 'policy:path/to/policy.safetensors'")
    _check_policy_path(argument)
    from kakurega.agents.policy import sampling_options

    sample, temperature, prune, mix = sampling_options(options, "policy")
    return load(argument, context=context, seed=seed, sample=sample, temperature=temperature, prune=prune,
                mix=mix)


def _check_policy_path(argument: str) -> None:
    """Refuse a path that exists but is neither a regular file nor a directory (a device, a FIFO, a socket)."""
    import os
    import stat

    try:
        mode = os.stat(argument).st_mode
    except (OSError, ValueError):  # missing (or unreadable): the policy loader says so
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    what = ("a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a special file")
    raise ValueError(
        f"agent spec 'policy:{argument}': {argument} is not a regular file (it is {what}); expected a policy file "
        "(policy.safetensors) or a run directory holding one"
    )


def _make_human(context, seed, options, argument):
    from kakurega.agents.human import HumanAgent

    return HumanAgent(context, seed)


register_agent_kind("random", _make_random, "uniformly random over the legal actions")
register_agent_kind("heuristic", _make_heuristic, "the game's rule-based player (from the registry)")
register_agent_kind("policy", _make_policy, "a trained policy file: policy:PATH[,sample=true][,temperature=T]"
                    "[,prune=false][,mix=true|false]")
register_agent_kind("human", _make_human, "a person at the terminal")

#: the options of the kinds that take none or check nothing else ("policy" checks its own: ``sampling_options``)
_OPTIONS_ALLOWED = {"random": (), "human": ()}
#: kinds of the package that register themselves when their module is first imported
_LAZY_KINDS = ("ismcts", "pretrained")


def _import_kind(kind: str) -> AgentFactory | None:
    """A kind provided by module ``kakurega.agents.<kind>``, which registers it when imported."""
    if not kind.isidentifier():
        return None
    try:
        importlib.import_module(f"kakurega.agents.{kind}")
    except ModuleNotFoundError as error:
        if error.name != f"kakurega.agents.{kind}":
            raise  # the module exists but one of its own imports is missing: say so
        return None
    return _KINDS.get(kind)


def make_agent(spec: str | AgentSpec, context: AgentContext, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for the env described by ``context``."""
    parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec)
    factory = _KINDS.get(parsed.kind) or _import_kind(parsed.kind)
    if factory is None:
        for kind in _LAZY_KINDS:  # list them too, imported or not
            _import_kind(kind)
        raise ValueError(
            f"unknown agent kind {parsed.kind!r} in spec {parsed.text!r} (a kind of your own: register it with "
            "kakurega.agents.register_agent_kind in a module that --import names, or that your script imports); "
            "expected one of: "
            + ", ".join(sorted(_KINDS))
        )
    if parsed.kind in _OPTIONS_ALLOWED:
        _no_options(parsed, _OPTIONS_ALLOWED[parsed.kind])
    if parsed.kind in ("random", "heuristic", "human") and parsed.argument:
        raise ValueError(f"agent spec {parsed.text!r}: '{parsed.kind}' takes no argument")
    return factory(context, seed, dict(parsed.options), parsed.argument)


def seat_lineup(env_name: str, num_players: int, seat: int | None, opponents: list[str]) -> list[str | None]:
    """The spec of every seat, None on the person's ``seat`` (no person: ``seat`` None).

    ``opponents`` gives one spec per other seat, or one spec for all of them.

    >>> seat_lineup("kakurenbo_v0", 3, 1, ["random"])
    ['random', None, 'random']
    """
    others = num_players - (seat is not None)
    if seat is not None and not 0 <= seat < num_players:
        raise ValueError(f"seat must be in 0..{num_players - 1}, got {seat}")
    opponents = list(opponents)
    if len(opponents) == 1 and others > 1:
        opponents = opponents * others
    if len(opponents) != others:
        if others == 0:
            raise ValueError(f"{env_name} with these options is played alone: give no --opponents (no opponent "
                             f"spec), got {len(opponents)}")
        what = "opponent specs" if seat is not None else "agent specs (one per seat)"
        raise ValueError(f"{env_name} with these options has {num_players} seats: give 1 or {others} {what}, "
                         f"got {len(opponents)}")
    specs = iter(opponents)
    return [None if s == seat else next(specs) for s in range(num_players)]

