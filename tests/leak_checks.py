"""Hidden-information checks for the channels beyond the observation vector.

``conformance.check_leaks`` proves that observations and masks are the same
for every state a player cannot tell apart. A player also sees renders, the
order of turns and the end of the game, and is handed objects (its context,
its own rules, determinization samplers). The checks here cover those
channels; ``tests/test_hidden_information.py`` runs them over every registered
env and configuration, each beside a deliberately leaky control that the same
check catches. Game test modules may call them for extra configurations.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import gc
import hashlib
import importlib
import pickle
import sys
import types

import numpy as np

from kakurega.envs.core.game import Game


# ----------------------------------------------------------------- renders
def check_render_leaks(raw, states, samples: int = 2) -> None:
    """Every viewer's render is the same for states that viewer cannot tell apart.

    For each state and seat, states re-dealt with ``resample_hidden`` for that
    seat must render identically for the seat, and for the spectator (who knows
    less than any seat) whichever seat they were re-dealt for.
    """
    game, render = raw.game, raw.render_state
    changed = total = 0
    for index, state in enumerate(states):
        fingerprint = game.fingerprint(state)
        spectator = render(state, None)
        for seat in range(game.num_players):
            own = render(state, seat)
            for k in range(samples):
                sample = game.resample_hidden(state, seat, np.random.default_rng([index, seat, k]))
                total += 1
                changed += game.fingerprint(sample) != fingerprint
                _same_text(render(sample, seat), own, f"state {index}: seat {seat}'s render")
                _same_text(render(sample, None), spectator, f"state {index} re-dealt for seat {seat}: the spectator render")
    assert total and changed, "resample_hidden never changed a state: the render check would be vacuous"


def _same_text(got: str, expected: str, what: str) -> None:
    if got != expected:
        lines = [
            f"  was: {a!r}\n  now: {b!r}" for a, b in zip(expected.splitlines(), got.splitlines()) if a != b
        ] or [f"  was {len(expected.splitlines())} lines, now {len(got.splitlines())}"]
        raise AssertionError(f"{what} changed when hidden information was re-dealt:\n" + "\n".join(lines[:4]))


# ------------------------------------------------------------ result words
def words_of(game, state, viewer) -> list[str]:
    """What a game tells ``viewer`` in words: its result once over, else the rounds finished so far."""
    from kakurega.envs.core.game import TERMINAL

    if game.current_player(state) == TERMINAL:
        return game.result_words(state, viewer)
    return game.round_words(state, viewer)


def check_word_leaks(game, states, samples: int = 2) -> None:
    """Every viewer's result and round words are the same for states that viewer cannot tell apart.

    As :func:`check_render_leaks`: states re-dealt for a seat must give that
    seat and the spectator the same words (``states`` should hold finished
    games: the result words are told only then).
    """
    changed = total = 0
    for index, state in enumerate(states):
        fingerprint = game.fingerprint(state)
        spectator = words_of(game, state, None)
        for seat in range(game.num_players):
            own = words_of(game, state, seat)
            for k in range(samples):
                sample = game.resample_hidden(state, seat, np.random.default_rng([index, seat, k]))
                total += 1
                changed += game.fingerprint(sample) != fingerprint
                _same_text("\n".join(words_of(game, sample, seat)), "\n".join(own), f"state {index}: seat {seat}'s words")
                _same_text("\n".join(words_of(game, sample, None)), "\n".join(spectator),
                           f"state {index} re-dealt for seat {seat}: the spectator's words")
    assert total and changed, "resample_hidden never changed a state: the word check would be vacuous"


# ----------------------------------------------------------------- rewards
def check_return_leaks(game, states, samples: int = 2) -> dict:
    """Every seat's cumulative return is the same for states a seat cannot tell apart.

    The env pays rewards as the change of ``game.returns`` (every step, to
    every agent: ``rewards`` and ``_cumulative_rewards`` are dicts any agent
    may read). So for each state and seat, re-deals for the seat
    (``resample_hidden``) must give the seat its own return, and every other
    seat theirs: a return (a shaping potential, a score) that read a hidden
    fact would pay it out. Returns counts: ``compared`` (re-deals),
    ``changed`` (re-deals that changed the state), ``paid`` (compared states
    whose returns are not all zero).
    """
    counts = {"compared": 0, "changed": 0, "paid": 0}
    for index, state in enumerate(states):
        fingerprint = game.fingerprint(state)
        expected = np.asarray(game.returns(state), dtype=float).tolist()
        for seat in range(game.num_players):
            for k in range(samples):
                sample = game.resample_hidden(state, seat, np.random.default_rng([index, seat, k]))
                counts["compared"] += 1
                counts["changed"] += game.fingerprint(sample) != fingerprint
                counts["paid"] += any(expected)
                got = np.asarray(game.returns(sample), dtype=float).tolist()
                if got[seat] != expected[seat]:
                    raise AssertionError(f"state {index}: seat {seat}'s return changed from {expected[seat]} to "
                                         f"{got[seat]} when hidden information was re-dealt for it")
                if got != expected:
                    raise AssertionError(f"state {index} re-dealt for seat {seat}: the returns (every agent's "
                                         f"rewards) changed from {expected} to {got}")
    assert counts["compared"] and counts["changed"], "resample_hidden never changed a state: the return check would be vacuous"
    return counts


# ----------------------------------------------------------- move features
def check_move_feature_leaks(raw, features, states, samples: int = 2) -> dict:
    """A seat's move features, and the moves they prove dominated, are the same for states that seat cannot tell apart.

    ``features`` is a game's move-features object (``kakurega.agents.move_features``)
    for the seat to move. Each state, and each re-deal of its hidden facts for
    that seat (``resample_hidden``), is set in the env ``raw`` as the game under
    way, and the features of the seat's observation there must not change (a
    features object that looked past the observation dict, at the env or a
    shared rules object, would see the re-dealt facts); nor may the mask of
    the moves it proves dominated (``features.dominated``, where it has one: a
    policy never plays those). Returns counts: ``compared`` (re-deals),
    ``changed`` (re-deals that changed the state), ``proved`` (compared
    moments where some move was proved dominated).
    """
    from kakurega.envs.core.game import TERMINAL

    game = raw.game
    dominated = getattr(features, "dominated", None)
    counts = {"compared": 0, "changed": 0, "proved": 0}

    def features_in(state):
        raw.game_state = state
        raw._after_transition()
        observation = raw.observe(raw.agent_selection)
        proved = None if dominated is None else dominated(observation)
        return observation, features(observation), proved

    for index, state in enumerate(states):
        seat = game.current_player(state)
        if seat == TERMINAL:
            continue
        fingerprint = game.fingerprint(state)
        observation, own, own_proved = features_in(game.clone(state))
        for k in range(samples):
            sample = game.resample_hidden(state, seat, np.random.default_rng([index, k]))
            counts["compared"] += 1
            counts["changed"] += game.fingerprint(sample) != fingerprint
            seen, got, proved = features_in(sample)
            assert np.array_equal(seen["observation"], observation["observation"]), "re-deal changed the observation"
            if not np.array_equal(got, own):
                where = np.flatnonzero(got != own)[:5].tolist()
                raise AssertionError(f"state {index}: seat {seat}'s move features changed at {where} when hidden "
                                     "information was re-dealt")
            counts["proved"] += own_proved is not None and bool(np.any(own_proved))
            if (proved is None) != (own_proved is None) or (proved is not None and not np.array_equal(proved, own_proved)):
                raise AssertionError(f"state {index}: the moves proved dominated for seat {seat} changed when hidden "
                                     f"information was re-dealt: {_mask_ids(own_proved)}, now {_mask_ids(proved)}")
    assert counts["compared"] and counts["changed"], (
        "resample_hidden never changed a state: the move-feature check would be vacuous")
    return counts


def _mask_ids(mask):
    return None if mask is None else np.flatnonzero(mask).tolist()


# ---------------------------------------------------------------- pictures
def check_picture_leaks(raw, states, samples: int = 2, pixels: int = 3) -> None:
    """Every viewer's picture is the same for states that viewer cannot tell apart.

    As :func:`check_render_leaks`, for ``raw.picture``: the scene of a state
    re-dealt for a seat (``resample_hidden``) must equal the scene of the
    state, shape for shape, click actions included, for that seat and for
    the spectator; so must its SVG, and for the first ``pixels`` states its
    ``rgb_array`` image, byte for byte (the image is a pure function of the
    scene; the pixel comparison proves it on the real drawings).
    """
    from kakurega.envs.core.picture import to_rgb, to_svg

    game, picture = raw.game, raw.picture
    changed = total = 0
    for index, state in enumerate(states):
        fingerprint = game.fingerprint(state)
        spectator = picture.scene(state, None)
        for seat in range(game.num_players):
            own = picture.scene(state, seat)
            for k in range(samples):
                sample = game.resample_hidden(state, seat, np.random.default_rng([index, seat, k]))
                total += 1
                changed += game.fingerprint(sample) != fingerprint
                for viewer, expected in ((seat, own), (None, spectator)):
                    what = (f"state {index}: seat {seat}'s picture" if viewer == seat else
                            f"state {index} re-dealt for seat {seat}: the spectator picture")
                    got = picture.scene(sample, viewer)
                    _same_scene(got, expected, what)
                    assert to_svg(got) == to_svg(expected), f"{what}: the SVG changed when hidden information was re-dealt"
                    if index < pixels and k == 0:
                        assert np.array_equal(to_rgb(got), to_rgb(expected)), (
                            f"{what}: the rgb image changed when hidden information was re-dealt"
                        )
    assert total and changed, "resample_hidden never changed a state: the picture check would be vacuous"


def _same_scene(got, expected, what: str) -> None:
    if got != expected:
        differ = [f"  was: {a}\n  now: {b}" for a, b in zip(expected.shapes, got.shapes) if a != b]
        if len(got.shapes) != len(expected.shapes):
            differ.append(f"  was {len(expected.shapes)} shapes, now {len(got.shapes)}")
        raise AssertionError(f"{what} changed when hidden information was re-dealt:\n" + "\n".join(differ[:4]))


# -------------------------------------------------------------- turn order
def public_turn_record(raw, env_seed: int, agent_seed: int, max_steps: int = 100_000) -> list:
    """One random game as the spectator sees it: ``[(view, actors), ...]``.

    ``view`` is a spectator render (``render_text(None)``), consecutive equal
    renders collapsed into one entry; ``actors`` lists the agent selected at
    every step taken while that render showed, and ends with ``"end:
    terminated"`` or ``"end: truncated"`` in the entry where the game ended.
    """
    rng = np.random.default_rng(agent_seed)
    raw.reset(seed=env_seed)
    record: list = []
    for _ in range(max_steps):
        view = raw.render_text(None)
        if not record or record[-1][0] != view:
            record.append((view, []))
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            record[-1][1].append("end: terminated" if raw.terminations[agent] else "end: truncated")
            return record
        record[-1][1].append(agent)
        raw.step(int(rng.choice(raw.legal_actions())))
    raise AssertionError(f"game (env seed {env_seed}, agent seed {agent_seed}) did not end within {max_steps} steps")


def check_turn_order(raw, env_seeds, agent_seeds, min_shared: int = 1) -> None:
    """Games with the same spectator views so far have had the same turns.

    Random games (every env seed with every agent seed) are compared view by
    view: whenever two games showed the same sequence of distinct spectator
    views up to some view, whether and how the game ended while that view
    showed must be the same, and if they also showed the same view after it,
    so must the agents selected while that view showed. Otherwise who acts, how often, or when the game ends reveals
    something the spectator, and so every player, may not know. The view
    after counts because it may announce what the turn took (a Summer child's
    turn takes cost + 1 decisions, and its cost is announced when it ends).
    ``min_shared``: views that must be shared by two games with different
    actions before, so the check is not vacuous.
    """
    seen: dict[bytes, tuple] = {}
    ends: dict[bytes, tuple] = {}
    shared = 0
    for env_seed in env_seeds:
        for agent_seed in agent_seeds:
            key = b""
            record = public_turn_record(raw, env_seed, agent_seed)
            for position, (view, actors) in enumerate(record):
                key = hashlib.blake2b(key + view.encode(), digest_size=16).digest()
                # whether (and how) the game ended while this view showed: judged on the views so far
                ended = tuple(a for a in actors if a.startswith("end:"))
                first_end = ends.setdefault(key, (ended, env_seed, agent_seed))
                if first_end[0] != ended:
                    raise AssertionError(
                        f"turn order leaks: games (env seed {first_end[1]}, agent seed {first_end[2]}) and (env seed "
                        f"{env_seed}, agent seed {agent_seed}) showed the spectator the same {position + 1} views, "
                        f"but one ended there ({list(first_end[0])}) and the other {list(ended)}.\nThe view:\n{view}"
                    )
                # who acted, and how often: judged on the views so far and the view after
                after = record[position + 1][0] if position + 1 < len(record) else ""
                entry = (tuple(actors), env_seed, agent_seed)
                first = seen.setdefault(key + hashlib.blake2b(after.encode(), digest_size=16).digest(), entry)
                if first is entry:
                    continue
                shared += (first[1], first[2]) != (env_seed, agent_seed)
                if first[0] != entry[0]:
                    raise AssertionError(
                        f"turn order leaks: games (env seed {first[1]}, agent seed {first[2]}) and (env seed "
                        f"{env_seed}, agent seed {agent_seed}) showed the spectator the same {position + 1} "
                        f"views and the same view after, but while the last one showed the turns were {list(first[0])} in one and "
                        f"{list(entry[0])} in the other.\nThe view:\n{view}"
                    )
    assert shared >= min_shared, f"only {shared} views were shared by two games: the turn-order check would be vacuous"


def check_turn_order_branches(raw, states, branches: int, seed: int = 0, max_steps: int = 10_000) -> int:
    """From one moment, whatever hidden choices are made, the turns up to the next view depend on that view only.

    :func:`check_turn_order` needs two random games that showed the same
    views; they rarely meet where it matters (a Summer v0 child's turn whose
    lines, fewer or more, end in the same announcement). Here every state of
    ``states`` is continued ``branches`` times at random until the spectator
    view changes (or the game ends): continuations from one state share their
    whole public history by construction, so the seats selected on the way,
    and whether and how the game ended, must be the same for every
    continuation that reaches the same view. Returns how many continuations
    reached a view another one had reached by other actions (a caller can
    require this, so the check is not vacuous).
    """
    from kakurega.envs.core.game import TERMINAL

    game = raw.game
    shared = 0
    for index, state in enumerate(states):
        start = raw.render_state(state, None)
        seen: dict[str, tuple] = {}
        for branch in range(branches):
            rng = np.random.default_rng([seed, index, branch])
            current = game.clone(state)
            actors: list = []
            actions: list = []
            for _ in range(max_steps):
                view = raw.render_state(current, None)
                if game.current_player(current) == TERMINAL:
                    actors.append("end: truncated" if game.is_truncated(current) else "end: terminated")
                    break
                if view != start:
                    break
                actors.append(game.current_player(current))
                action = int(rng.choice(game.legal_actions(current)))
                actions.append(action)
                game.apply_action(current, action, rng)
            else:
                raise AssertionError(f"state {index}: the view did not change within {max_steps} random steps")
            first = seen.setdefault(view, (actors, actions, branch))
            if first[2] == branch:
                continue
            shared += first[1] != actions
            if first[0] != actors:
                raise AssertionError(
                    f"turn order leaks: from state {index} (the same moment), continuations {first[2]} and {branch} "
                    f"reached the same view, but the turns on the way were {first[0]} in one and {actors} in the "
                    f"other.\nThe view before:\n{start}\nThe view reached:\n{view}")
    return shared


# ---------------------------------------------------------------- samplers
def check_sampler_independence(raw, states, draws=(0, 1)) -> None:
    """Samplers built from a state and from a re-deal of it for the seat are indistinguishable.

    For each state and seat, the env's ``determinization_sampler`` at the
    state and at ``resample_hidden(state, seat, rng)`` (a second "true" state
    the seat cannot tell apart from the first) must agree: see
    :func:`compare_samplers`. Catches samplers that depend on the re-dealt
    part of the true state (its cards, their order); a hidden fact that
    ``resample_hidden`` copies unchanged is caught by
    :func:`check_samplers_over_games`.
    """
    game = raw.game
    changed = total = 0
    saved = raw.game_state
    try:
        for index, state in enumerate(states):
            for seat, agent in enumerate(raw.possible_agents):
                other = game.resample_hidden(state, seat, np.random.default_rng([index, seat]))
                total += 1
                changed += game.fingerprint(other) != game.fingerprint(state)
                compare_samplers(raw, agent, state, other, draws, f"state {index} and a re-deal of it for {agent}")
    finally:
        raw.game_state = saved
    assert total and changed, "resample_hidden never changed a state: the sampler check would be vacuous"


def check_samplers_over_games(
    raw, env_seeds, every: int = 5, branches: int = 6, depth: int = 8, draws=(0,), max_pairs: int = 150, min_pairs: int = 1
) -> None:
    """Samplers built at two moments a seat cannot tell apart are indistinguishable.

    A seat cannot tell two moments apart when it has been shown the same
    sequence of its own observations, masks and spectator views (consecutive
    repeats collapsed: how often a seat is shown the same thing is the
    turn-order channel, checked by :func:`check_turn_order`). Such moments are
    found by play: one random game per env seed and, every ``every`` steps,
    ``branches`` random continuations of ``depth`` steps from a copy of the env
    (different hidden choices that show the seat the same things meet there).
    Samplers built at such moments, from different true states, must agree
    (:func:`compare_samplers`). This catches a hidden fact that
    ``resample_hidden`` copies from the true state, e.g. a counter of hidden
    moves or an encoder's scratch copy of another seat's view.
    """
    game = raw.game
    n = len(raw.possible_agents)
    first: dict[tuple, tuple] = {}
    found = {"pairs": 0}

    def play(env, rng, keys, last, steps, label):
        """Play up to ``steps`` random steps of ``env``, comparing samplers at moments met before."""
        for step in range(steps):
            actor = env.agent_selection
            if env.terminations[actor] or env.truncations[actor]:
                return
            view = env.render_text(None).encode()
            state = game.clone(env.game_state)
            for seat, agent in enumerate(env.possible_agents):
                observation = env.observe(agent)
                shown = observation["observation"].tobytes() + observation["action_mask"].tobytes() + view
                if shown != last[seat]:
                    keys[seat] = hashlib.blake2b(keys[seat] + shown, digest_size=16).digest()
                    last[seat] = shown
                where = f"{label}, step {step}"
                earlier = first.setdefault((seat, keys[seat]), (state, where))
                if earlier[0] is state or found["pairs"] >= max_pairs:
                    continue
                if game.fingerprint(earlier[0]) != game.fingerprint(state):
                    found["pairs"] += 1
                    # built by the one env ``raw`` (its per-seat rules), whichever copy met the moment
                    compare_samplers(raw, agent, earlier[0], state, draws, f"{agent} at {earlier[1]} and at {where}, shown the same")
            yield
            env.step(int(rng.choice(env.legal_actions())))

    for env_seed in env_seeds:
        rng = np.random.default_rng(env_seed)
        raw.reset(seed=env_seed)
        keys, last = [b""] * n, [b""] * n
        for step, _ in enumerate(play(raw, rng, keys, last, 100_000, f"game {env_seed}")):
            if step % every:
                continue
            snapshot = copy.deepcopy(raw)
            for branch in range(branches):
                env = copy.deepcopy(snapshot)
                branch_rng = np.random.default_rng([env_seed, step, branch])
                label = f"game {env_seed} branching at step {step}, branch {branch}"
                for _ in play(env, branch_rng, list(keys), list(last), depth, label):
                    pass
    assert found["pairs"] >= min_pairs, (
        f"only {found['pairs']} pairs of moments a seat cannot tell apart: the check would be vacuous"
    )


def compare_samplers(raw, agent: str, state, other, draws, where: str) -> None:
    """The env's samplers for ``agent`` at ``state`` and at ``other`` (same information set) are indistinguishable.

    They must pickle to the same bytes, hold information states equal in every
    field (scratch included: :func:`canonical`), and draw equal states (every
    field) from equal generators; an unpickled copy draws the same states.
    """
    game = raw.game
    saved = raw.game_state
    try:
        raw.game_state = state
        first = raw.determinization_sampler(agent)
        raw.game_state = other
        second = raw.determinization_sampler(agent)
    finally:
        raw.game_state = saved
    differing = _differing_fields(first.information_state, second.information_state)
    assert pickle.dumps(first) == pickle.dumps(second), (
        f"{where}: the two samplers pickle differently; their information states differ in {differing}"
    )
    assert not differing, f"{where}: the samplers' information states differ in {differing}"
    copied = pickle.loads(pickle.dumps(first))
    for draw in draws:
        expected = first(np.random.default_rng(draw))
        got = second(np.random.default_rng(draw))
        assert game.fingerprint(got) == game.fingerprint(expected) and canonical(got) == canonical(expected), (
            f"{where}: the samplers drew different states from generator seed {draw} "
            f"(fields differing: {_differing_fields(expected, got)})"
        )
        # a pickle leaves scratch out (that is what scratch may be): the copy agrees in everything else
        got = copied(np.random.default_rng(draw))
        differing = set(_differing_fields(expected, got)) - scratch_fields(expected)
        assert game.fingerprint(got) == game.fingerprint(expected) and not differing, (
            f"{where}: an unpickled sampler drew another state from generator seed {draw} (fields differing: {sorted(differing)})"
        )


def canonical(value) -> bytes:
    """Bytes equal for values equal in every field, custom ``__getstate__`` and scratch included."""
    out: list = []
    _canonical(value, out)
    return "".join(out).encode()


def _canonical(value, out: list) -> None:
    if value is None or isinstance(value, (bool, int, float, str, bytes, np.generic)):
        out.append(repr(value))
    elif isinstance(value, (list, tuple)):
        out.append("[" if isinstance(value, list) else "(")
        for item in value:
            _canonical(item, out)
            out.append(",")
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        for key, item in sorted(value.items(), key=lambda kv: repr(kv[0])):
            out.append(f"{key!r}:")
            _canonical(item, out)
            out.append(",")
        out.append("}")
    elif isinstance(value, (set, frozenset)):
        out.append(repr(sorted(map(repr, value))))
    elif isinstance(value, np.ndarray):
        out.append(f"array({value.dtype},{value.shape},{value.tobytes().hex()})")
    elif hasattr(value, "__dict__") or hasattr(type(value), "__slots__"):
        out.append(type(value).__qualname__ + "(")
        for name in sorted(state_fields(value)):
            out.append(f"{name}=")
            _canonical(getattr(value, name, None), out)
            out.append(",")
        out.append(")")
    else:
        out.append(repr(value))


def _differing_fields(a, b) -> list[str]:
    """The fields (all of them, scratch included) in which states ``a`` and ``b`` differ."""
    return [name for name in state_fields(a) if canonical(getattr(a, name, None)) != canonical(getattr(b, name, None))]


# ----------------------------------------------------------- agent objects
def walk(roots: dict, limit: int = 2_000_000):
    """Every object reachable from ``roots`` (``{name: object}``), as ``(object, path)`` pairs.

    Follows what ``gc.get_referents`` reports (attributes, slots, container
    items, closure cells, bound methods, Cython extension types), but not
    modules, classes or a function's module globals: those are the program,
    shared by everyone, not something handed over. ``path()`` names the chain
    of types from a root. Raises if more than ``limit`` objects are reachable
    (a walk that stops early proves nothing).
    """
    program = {id(vars(module)) for module in list(sys.modules.values()) if module is not None}
    parents: dict[int, tuple[int | None, str]] = {}
    queue = []
    for name, root in roots.items():
        parents[id(root)] = (None, name)
        queue.append(root)
    keep = list(queue)  # every visited object stays alive, so ids stay unique during the walk

    def path_of(node: int) -> str:
        names = []
        while node is not None:
            node, name = parents[node]
            names.append(name)
        return "".join(reversed(names))

    while queue:
        obj = queue.pop()
        yield obj, lambda node=id(obj): path_of(node)  # noqa: B008 (the default binds this object)
        for label, child in _children(obj):
            if (
                child is None
                or id(child) in parents
                or id(child) in program
                or isinstance(child, (types.ModuleType, type, str, bytes, int, float))
            ):
                continue
            if len(parents) >= limit:
                raise AssertionError(f"more than {limit} objects reachable from {list(roots)}: the walk is inconclusive")
            parents[id(child)] = (id(obj), label)
            keep.append(child)
            queue.append(child)


def _children(obj) -> list:
    """``(label, object)`` for everything ``obj`` refers to: named where a name is known."""
    if isinstance(obj, types.FunctionType):
        cells = [(f"<closure {name}>", cell.cell_contents) for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or ())]
        return cells + [("<defaults>", obj.__defaults__), ("<kwdefaults>", obj.__kwdefaults__), ("<dict>", obj.__dict__)]
    if isinstance(obj, dict):
        return [(f"[{key!r}]", value) for key, value in obj.items()] + [("<key>", key) for key in obj]
    if isinstance(obj, (list, tuple)):
        return [(f"[{i}]", item) for i, item in enumerate(obj)]
    named = []
    if hasattr(obj, "__dict__") and isinstance(vars(obj), dict):
        named += [(f".{name}", value) for name, value in vars(obj).items()]
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if not name.startswith("__") and hasattr(obj, name):
                named.append((f".{name}", getattr(obj, name)))
    named_ids = {id(child) for _, child in named} | ({id(vars(obj))} if hasattr(obj, "__dict__") else set())
    return named + [(f"<{type(child).__name__}>", child) for child in gc.get_referents(obj) if id(child) not in named_ids]


def find_path(roots: dict, targets: dict) -> str | None:
    """A reference path from one of ``roots`` to one of ``targets`` (both ``{name: object}``), or None."""
    wanted = {id(obj): name for name, obj in targets.items()}
    for obj, path in walk(roots):
        if id(obj) in wanted:
            return f"{path()} is {wanted[id(obj)]}"
    return None


def env_targets(env) -> dict:
    """What no agent may reach in ``env``: the env, its state (and every mutable part of it), its rules object, its generator."""
    raw = env.unwrapped
    targets = {
        "the env": env,
        "the raw env": raw,
        "the env's rules object": raw.game,
        "the env's generator": raw.rng,
        "the env's bit generator": raw.rng.bit_generator,
    }
    if raw.game_state is not None:
        for obj, path in walk({"the env's state": raw.game_state}):
            if obj is raw.game_state or isinstance(obj, (list, dict, set, bytearray, np.ndarray)):
                targets[path()] = obj  # a mutable part of the state: sharing it shows the live game
    return targets


def rules_objects(root) -> set[int]:
    """Ids of the rules objects (``Game`` instances) reachable from ``root`` (valid while ``root`` lives)."""
    return {id(obj) for obj, _ in walk({"root": root}) if isinstance(obj, Game)}


# ------------------------------------------------------------ state fields
def state_fields(state) -> list[str]:
    """Names of the fields of ``state`` (dataclass fields, or instance attributes and slots)."""
    if dataclasses.is_dataclass(state):
        return [f.name for f in dataclasses.fields(state)]
    names = list(vars(state)) if hasattr(state, "__dict__") else []
    for cls in type(state).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in names and not name.startswith("__"):
                names.append(name)
    return names


def scratch_fields(state) -> set[str]:
    """The fields the state class declares as scratch (``SCRATCH_FIELDS``; none when absent)."""
    return set(getattr(type(state), "SCRATCH_FIELDS", ()))


def check_state_fields(game, states) -> None:
    """``fingerprint`` and ``clone`` cover every field of the state class that is not declared scratch.

    For each state and field: changing the field changes the fingerprint; a
    clone holds an equal value, and changing the original's value in place
    (at its first mutable level, nested lists included) leaves the clone's alone.
    """
    assert states, "no states to check"
    for index, state in enumerate(states):
        names = state_fields(state)
        unknown = scratch_fields(state) - set(names)
        assert not unknown, f"SCRATCH_FIELDS names {sorted(unknown)}, which are not fields of {type(state).__name__}"
        reference = game.fingerprint(state)
        assert game.fingerprint(game.clone(state)) == reference, f"state {index}: a clone has another fingerprint"
        for name in names:
            if name in scratch_fields(state):
                continue
            where = f"{type(state).__name__}.{name} (state {index})"
            changed = copy.deepcopy(state)
            setattr(changed, name, _changed(getattr(state, name), where))
            assert game.fingerprint(changed) != reference, (
                f"{where}: changing it leaves the fingerprint unchanged; the fingerprint must cover it, "
                "or the state class must list it in SCRATCH_FIELDS"
            )
            original = copy.deepcopy(state)
            clone = game.clone(original)
            before = pickle.dumps(getattr(original, name))
            assert pickle.dumps(getattr(clone, name)) == before, f"{where}: the clone holds another value"
            if _mutate_in_place(getattr(original, name)):
                assert pickle.dumps(getattr(clone, name)) == before, (
                    f"{where}: changing the original in place changed the clone (clone must copy it)"
                )


def _changed(value, where: str):
    """A new value of the same kind that differs from ``value``."""
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, (int, float, np.integer, np.floating)):
        return value + 1
    if isinstance(value, str):
        return value + "'"
    if isinstance(value, bytes):
        return value + b"\0"
    if value is None:
        return 0
    if isinstance(value, tuple):
        return (_changed(value[0], where),) + value[1:] if value else (0,)
    new = copy.deepcopy(value)
    if _mutate_in_place(new):
        return new
    raise AssertionError(f"{where}: the check does not know how to change a {type(value).__name__}")


def _mutate_in_place(value) -> bool:
    """Change ``value`` in place at its first mutable level (depth first); False when nothing is mutable."""
    if isinstance(value, (list, tuple)):
        for item in value:
            if _mutate_in_place(item):
                return True
        if isinstance(value, list):
            if value:
                value[0] = _changed(value[0], "a list item")
            else:
                value.append(0)
            return True
        return False
    if isinstance(value, dict):
        for item in value.values():
            if _mutate_in_place(item):
                return True
        value[_NEW_KEY] = 0
        return True
    if isinstance(value, np.ndarray) and value.flags.writeable:
        if value.size:
            value.flat[0] = value.flat[0] + 1
            return True
        return False
    if isinstance(value, set):
        value.add(_NEW_KEY)
        return True
    if isinstance(value, bytearray):
        value.append(0)
        return True
    return False


#: what ``_mutate_in_place`` adds to a dict or a set
_NEW_KEY = ("added by the check",)


# -------------------------------------------------------------- move words
def move_transitions(game, seed: int, num_games: int, every: int = 3, max_steps: int = 100_000) -> list:
    """``(before, action, after)`` of every ``every``-th move of random games played on the rules alone."""
    from kakurega.envs.core.game import TERMINAL

    rng = np.random.default_rng(seed)
    moves = []
    for _ in range(num_games):
        state = game.initial_state(rng)
        for step in range(max_steps):
            if game.current_player(state) == TERMINAL:
                break
            action = int(rng.choice(game.legal_actions(state)))
            before = game.clone(state)
            game.apply_action(state, action, rng)
            if step % every == 0:
                moves.append((before, action, game.clone(state)))
        else:
            raise AssertionError(f"game did not end within {max_steps} steps")
    return moves


def information(game, state, seat: int) -> bytes:
    """What ``seat`` knows in ``state``: the fingerprint of its information state (``resample_hidden`` with a fixed generator)."""
    return game.fingerprint(game.resample_hidden(state, seat, np.random.default_rng(0)))


def game_hooks(game):
    """The game's own hooks for the move checks: the module ``tests/<game.name>/leak_hooks.py``, or None.

    What only one game's rules make true of its moves lives there, beside the
    game's other tests, so this module names no game. A hooks module may
    define ``public_action`` and ``public_draw`` (the functions below call
    them; either may be left out).
    """
    return _hooks_module(game.name)


@functools.cache
def _hooks_module(name: str):
    if not name:
        return None
    module = f"{name}.leak_hooks"
    try:
        hooks = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name not in (name, module):
            raise  # the hooks module exists but imports something missing: say so
        return None
    check_hooks(hooks)
    return hooks


#: the hooks a game's ``leak_hooks.py`` may define
HOOKS = ("public_action", "public_draw")


def check_hooks(hooks) -> None:
    """A hooks module defines only functions named in :data:`HOOKS` (a misspelt hook would be ignored)."""
    defined = [name for name, value in vars(hooks).items()
               if callable(value) and getattr(value, "__module__", None) == hooks.__name__ and not name.startswith("_")]
    unknown = sorted(set(defined) - set(HOOKS))
    if unknown:
        raise AssertionError(f"{hooks.__name__} defines {unknown}, which are not hooks of leak_checks; "
                             f"expected functions named among {list(HOOKS)}")


def public_action(game, action: int):
    """The action itself where every player sees it and the state may forget it, else None.

    Asks the game's hooks (:func:`game_hooks`; none: None). A seeker's piece
    may be public while the state forgets the guesses of a finished round:
    the moves a seat cannot tell apart then still place the same piece.
    """
    hook = getattr(game_hooks(game), "public_action", None)
    return None if hook is None else hook(game, action)


def public_draw(game, before, action, sample):
    """``sample`` (``before`` re-dealt for a seat) drawing what ``action`` draws in ``before``, where every viewer
    sees the draw and the state may forget it; else ``sample`` unchanged.

    Asks the game's hooks (:func:`game_hooks`; none: ``sample``). A tile seen
    as it is drawn may go back into a reshuffled pile, and the state forget
    it: the moves the drawer cannot tell apart still draw that tile.
    """
    hook = getattr(game_hooks(game), "public_draw", None)
    return sample if hook is None else hook(game, before, action, sample)


def alternative_moves(game, before, action, after, seat: int, index: int, samples: int = 2, chance: int = 2):
    """Moves ``seat`` cannot tell from ``before -> action -> after``: ``(before', action', after')``.

    ``before'`` is ``before`` re-dealt for the seat (``resample_hidden``),
    drawing what the true move draws where the draw is seen
    (:func:`public_draw`); every legal action there is applied with
    ``chance`` chance draws, and a result is kept when the seat's
    information after it is what it is after the true move (the seat knew
    the same before and after). The mover knows its own action, and
    everyone a public one (:func:`public_action`): then only ``action``
    itself is tried.
    """
    target = information(game, after, seat)
    mover = game.current_player(before) == seat
    public = public_action(game, action)
    for k in range(samples):
        sample = public_draw(game, before, action,
                             game.resample_hidden(before, seat, np.random.default_rng([index, seat, k])))
        for other in [action] if mover or public is not None else game.legal_actions(sample):
            for c in range(chance):
                result = game.clone(sample)
                game.apply_action(result, other, np.random.default_rng([index, seat, k, other, c]))
                if information(game, result, seat) == target:
                    yield sample, other, result


def check_move_word_leaks(game, moves, words=None, samples: int = 2) -> None:
    """Every viewer's words for a move are the same for every move it cannot tell apart.

    ``words(before, action, after, viewer)`` defaults to the rules'
    ``public_action_string``. For each move and seat, the moves that seat
    cannot tell from it (:func:`alternative_moves`) must get the same words
    for the seat, and for the spectator (who knows less than any seat).
    """
    words = words or game.public_action_string
    compared = differed = 0
    for index, (before, action, after) in enumerate(moves):
        spectator = words(before, action, after, None)
        fingerprint = game.fingerprint(after)
        for seat in range(game.num_players):
            own = words(before, action, after, seat)
            for other_before, other, other_after in alternative_moves(game, before, action, after, seat, index, samples):
                compared += 1
                differed += other != action or game.fingerprint(other_after) != fingerprint
                for viewer, expected in ((seat, own), (None, spectator)):
                    got = words(other_before, other, other_after, viewer)
                    if got != expected:
                        raise AssertionError(
                            f"move {index}: the words for {'the spectator' if viewer is None else f'seat {viewer}'} "
                            f"differ between moves seat {seat} cannot tell apart:\n  true move: {expected!r}\n"
                            f"  other:     {got!r}"
                        )
    assert compared and differed, "no move had an alternative the seat could not tell apart: the check would be vacuous"


def check_move_words_complete(game, moves, render, words=None, chance: int = 3) -> None:
    """The words tell every public consequence of a move: equal words, equal public outcome.

    From each ``before``, every legal action is applied with ``chance``
    chance draws; moves the spectator's words describe alike must leave the
    spectator the same table (``render(after, None)``), and moves a seat's
    words describe alike must leave that seat knowing the same
    (:func:`information`). A move whose words left out a public fact (the
    colour given, the target, the dice, an announcement) would be caught.
    """
    words = words or game.public_action_string
    groups = 0
    for index, (before, _action, _after) in enumerate(moves):
        seen: dict = {}
        for other in game.legal_actions(before):
            for c in range(chance):
                after = game.clone(before)
                game.apply_action(after, other, np.random.default_rng([index, other, c]))
                viewers = [(None, render(after, None))]
                viewers += [(seat, information(game, after, seat)) for seat in range(game.num_players)]
                for viewer, outcome in viewers:
                    key = (viewer, words(before, other, after, viewer))
                    groups += key in seen
                    first = seen.setdefault(key, (outcome, other))
                    if first[0] != outcome:
                        raise AssertionError(
                            f"move {index}: actions {first[1]} and {other} (or two chance draws) are told alike to "
                            f"{'the spectator' if viewer is None else f'seat {viewer}'} ({key[1]!r}) but leave "
                            "it knowing different things: the words leave out a public fact"
                        )
    assert groups, "no two moves were told alike: the completeness check would be vacuous"


def check_last_move_mark_leaks(game, picture, moves, samples: int = 1) -> None:
    """The picture after a move, last move outlined, is the same for every move the viewer cannot tell apart.

    ``picture.scene(after, viewer, (seat, action))``, for the seat and for the
    spectator, over the moves of :func:`alternative_moves`.
    """
    compared = differed = 0
    for index, (before, action, after) in enumerate(moves):
        actor = game.current_player(before)
        spectator = picture.scene(after, None, (actor, action))
        fingerprint = game.fingerprint(after)
        for seat in range(game.num_players):
            own = picture.scene(after, seat, (actor, action))
            for _before, other, other_after in alternative_moves(game, before, action, after, seat, index, samples):
                compared += 1
                differed += other != action or game.fingerprint(other_after) != fingerprint
                for viewer, expected in ((seat, own), (None, spectator)):
                    _same_scene(picture.scene(other_after, viewer, (actor, other)), expected,
                                f"move {index}: the picture with the last move outlined, for "
                                f"{'the spectator' if viewer is None else f'seat {viewer}'},")
    assert compared and differed, "no move had an alternative the seat could not tell apart: the check would be vacuous"
