"""Readable scenario building for KAKURENBO tests.

Cards are written as short names: ``H`` head, ``C`` chest, ``W`` waist, ``RA``
right arm, ``LA`` left arm, ``RL`` right leg, ``LL`` left leg, followed by
``r`` (red) or ``b`` (blue); ``K`` is Kaku's Curse. ``"Hr Cb K"`` is a hand of
the red head, the blue chest and the Curse.
"""

from __future__ import annotations

import numpy as np

from kakurega.envs.kakurenbo.knowledge import CURSE, UNKNOWN, located
from kakurega.envs.kakurenbo.rules import (
    CHOOSE_TARGET,
    CURSE_GIVE,
    DICE_TAKE,
    DRAW,
    MAIN,
    KakurenboGame,
    KakurenboState,
)

SHORT_PARTS = ("H", "C", "W", "RA", "LA", "RL", "LL")


def card(name: str) -> int:
    """``card("RAr") == 6`` (right arm, red); ``card("K") == 14``."""
    if name == "K":
        return CURSE
    part, colour = name[:-1], name[-1]
    if part not in SHORT_PARTS or colour not in "rb":
        raise ValueError(f"bad card name {name!r}")
    return 2 * SHORT_PARTS.index(part) + (colour == "b")


def cards(names: str) -> list[int]:
    """``cards("Hr Hb") == [0, 1]`` (sorted, as hands are kept)."""
    return sorted(card(x) for x in names.split())


def names(ids) -> str:
    """Inverse of :func:`cards`: ``names([0, 1]) == "Hr Hb"``."""
    out = []
    for c in sorted(ids):
        out.append("K" if c == CURSE else SHORT_PARTS[c >> 1] + "rb"[c & 1])
    return " ".join(out)


def build(
    game: KakurenboGame,
    hands: dict,
    pile: str = "",
    phase: int | None = None,
    stage: int | None = None,
    actor: int = 0,
    scores=None,
    discarded: dict | None = None,
    open_hands=(),
) -> KakurenboState:
    """A state from readable parts.

    ``hands`` maps seats to hand strings (missing seats are empty); ``pile``
    lists the pile **top first** (the Curse, if in the pile, goes at the
    bottom automatically when no hand holds it). Phase and stage default from
    where the Curse is. Each player knows its own faces when faces are
    visible and everyone knows open hands, as in a real game.
    """
    n = game.num_players
    hand_lists = [cards(hands.get(s, "")) for s in range(n)]
    holder = next((s for s in range(n) if CURSE in hand_lists[s]), -1)
    pile_cards = [card(x) for x in pile.split()][::-1]
    if holder < 0 and CURSE not in pile_cards:
        pile_cards = [CURSE] + pile_cards
    if phase is None:
        phase = 1 if holder < 0 else 2
    if stage is None:
        if phase == 1:
            stage = DRAW if game.kurayami else MAIN
        else:
            stage = CHOOSE_TARGET if game.kurayami else CURSE_GIVE
    discarded_by = [-1] * 7
    for part_name, seat in (discarded or {}).items():
        discarded_by[SHORT_PARTS.index(part_name)] = seat
    state = KakurenboState(
        hands=hand_lists,
        pile=pile_cards,
        discarded_by=discarded_by,
        scores=list(scores) if scores is not None else [0] * n,
        open_hand=[1 if s in open_hands else 0 for s in range(n)],
        knowledge=[[UNKNOWN] * 14 for _ in range(n)],
        aware=[0] * 14,
        phase=phase,
        stage=stage,
        actor=actor,
        active=actor,
        curse_holder=holder,
    )
    used = sorted(c for h in hand_lists for c in h) + sorted(pile_cards)
    used += [2 * p + i for p in range(7) if discarded_by[p] >= 0 for i in (0, 1)]
    if sorted(used) != list(range(15)):
        raise ValueError(f"scenario does not hold the 15 cards exactly once: {names(used)}")
    if game.faces_visible(state):
        for seat, hand in enumerate(hand_lists):
            for c in hand:
                if c != CURSE:
                    state.knowledge[seat][c] = seat
        for seat in open_hands:
            for c in hand_lists[seat]:
                if c != CURSE:
                    for row in state.knowledge:
                        row[c] = seat
                    state.aware[c] = (1 << n) - 1
    return state


class ScriptedRng:
    """A stand-in generator whose ``integers(high)`` returns scripted values (for exact chance)."""

    def __init__(self, values=()):
        self.values = list(values)

    def integers(self, high, *args, **kwargs):
        if not self.values:
            raise AssertionError("the scenario asked for more chance draws than scripted")
        value = self.values.pop(0)
        assert 0 <= value < high, f"scripted value {value} is not below {high}"
        return value

    def permutation(self, x):
        return np.arange(x) if isinstance(x, int) else np.asarray(x)


def dice(red: int, blue: int) -> int:
    """The scripted ``integers(36)`` value that rolls ``red`` and ``blue``."""
    return (red - 1) * 6 + (blue - 1)


def known_by(state: KakurenboState, observer: int) -> dict:
    """``{seat: "cards"}`` the observer places in each hand, counting included (empty hands omitted)."""
    out = {}
    for c, seat in enumerate(located(state, observer)):
        if seat >= 0:
            out.setdefault(seat, []).append(c)
    return {seat: names(cs) for seat, cs in sorted(out.items())}


def hands_of(state: KakurenboState) -> dict:
    """``{seat: "cards"}`` of every hand (empty hands as "")."""
    return {seat: names(h) for seat, h in enumerate(state.hands)}


def deciding_states(variant: str, n: int, games: int, seed: int, before_step_limit: bool = False):
    """``(game, state, legal)`` at every Curse give and dice take of random games (the state is played on after
    each is used); ``before_step_limit``: only those whose move is not cut off by the step limit."""
    game = KakurenboGame(num_players=n, variant=variant)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state(rng)
        while not game.is_terminal(state) and not game.is_truncated(state):
            legal = game.legal_actions(state)
            if state.stage in (CURSE_GIVE, DICE_TAKE) and not (before_step_limit and state.steps + 1 >= game.max_steps):
                yield game, state, legal
            game.apply_action(state, int(rng.choice(legal)), rng)


def random_env_positions(env, games: int, seed: int):
    """``(game, state, legal)`` at every decision of ``games`` random games of ``env`` (deals seeded 0, 1, ...;
    the moves drawn from ``default_rng(seed)``), the state played on after each is used."""
    rng = np.random.default_rng(seed)
    for deal in range(games):
        env.reset(seed=deal)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            game, state = env.game, env.game_state
            legal = game.legal_actions(state)
            yield game, state, legal
            env.step(int(rng.choice(legal)))
