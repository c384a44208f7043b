"""The chain rule (``connection_rule="chain"``, Animal Chain v1): a play connects to a card linked to the own base.

Positions are absolute names (player 0's frame); the bases lie face up as in
every play-phase position. "Linked" is checked against a reference written
here from ``game.connections`` (the play rule's own connection test), not
from the engine's ``linked_mask``.
"""

import random
from collections import Counter

import numpy as np
import pytest

from animal_chain.scenario import board_state, card, play, pos, step
from kakurega.agents import rollouts
from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, PLAY, AnimalChainGame
from kakurega.envs.animal_chain_v1 import raw_env

CHAIN = AnimalChainGame(connection_rule="chain", building="per_position")
CHAIN_REACH = AnimalChainGame(connection_rule="chain", attack_rule="reach", building="per_position")
ANY = AnimalChainGame(building="per_position")

# The bases connect to nothing above them unless a case says so.
BASES = {"r0c0": "Dg|Ct", "r0c1": "Ct|Dg", "r0c2": "Ct|Br", "r0c3": "Br|Ct",
         "r6c0": "Pg|Dg", "r6c1": "Br|Pg", "r6c2": "Ct|Fx", "r6c3": "Ct|Fx"}
# Player 0's chain from r0c1 (right animal Dg): r1c2 (its SW neighbour is r0c1) shows Dg on its
# left, r2c3 (SW neighbour r1c2) shows Rb on its left; r2c3's right animal Fx faces r3c4's left.
CHAIN_TO_ROW_2 = {"r1c2": "Dg|Rb", "r2c3": "Rb|Fx"}
LONE = {"r3c3": "Pg|Fx"}  # a face-up card linked to nobody: its right Fx faces r3c4's left too
# A chain up the left edge to player 1's base card r6c0 (NW steps, then NE steps).
CHAIN_TO_R6C0 = {"r1c0": "Ct|Dg", "r2c0": "Rb|Ct", "r3c0": "Fx|Rb", "r4c0": "Rb|Br", "r5c0": "Br|Pg"}


def reference_linked(game, state, seat) -> set[int]:
    """Positions linked to ``seat``'s base row: a plain search over ``game.connections``."""
    linked = {p for p in game.base_positions[seat] if state.tops[p] >= 0}
    frontier = list(linked)
    while frontier:
        q = frontier.pop()
        for n, _ in game.connections(state, state.tops[q], q):
            if n not in linked:
                linked.add(n)
                frontier.append(n)
    return linked


def bits(positions) -> int:
    return sum(1 << p for p in positions)


def names(mask: int, game=CHAIN) -> set[str]:
    return {game.position_names[p] for p in range(game.num_positions) if mask >> p & 1}


def test_the_geometry_the_cases_rely_on():
    steps = [("r0c1", "NE", "r1c2"), ("r1c2", "NE", "r2c3"), ("r2c3", "NE", "r3c4"), ("r3c3", "E", "r3c4"),
             ("r0c0", "NW", "r1c0"), ("r1c0", "NW", "r2c0"), ("r2c0", "NW", "r3c0"), ("r3c0", "NE", "r4c0"),
             ("r4c0", "NE", "r5c0"), ("r5c0", "NE", "r6c0"), ("r6c0", "E", "r6c1")]
    for a, direction, b in steps:
        assert CHAIN.neighbour_in[pos(a)][direction] == pos(b), (a, direction, b)


# ----------------------------------------------------------------- which plays are legal
# Fx|Br onto r3c4 connects on its left side to r3c3 (W, shows Fx) and to r2c3 (SW, shows Fx).
PLAY_CASES = [
    # description,                                     game,   face-up cards besides the bases,  legal
    ("v0: any face-up neighbour",                      ANY,    LONE,                             True),
    ("chain: the only neighbour is linked to nobody",  CHAIN,  LONE,                             False),
    ("chain: a neighbour linked to the own base",      CHAIN,  {**LONE, **CHAIN_TO_ROW_2},       True),
    ("chain: the chain is cut by a covering card",     CHAIN,  {**LONE, **CHAIN_TO_ROW_2, "r1c2": ["Dg|Rb", "Fx|Pg"]}, False),
    ("chain: the chain does not run through a hole",   CHAIN,  {**LONE, "r2c3": "Rb|Fx"},        False),
]


@pytest.mark.parametrize("description,game,up,legal", PLAY_CASES, ids=[c[0] for c in PLAY_CASES])
def test_a_play_must_connect_to_a_card_linked_to_the_own_base(description, game, up, legal):
    holes = ("r1c2",) if "hole" in description else ()
    state = board_state(up={**BASES, **up}, holes=holes, hands=(("Fx|Br",), ()), game=game)
    action = play(state, 0, "Fx|Br", "r3c4", game=game)
    assert game.connections(state, card("Fx|Br"), pos("r3c4"))  # it always connects to some face-up card
    assert (action in game.legal_actions(state)) == legal
    assert (game.legal_flags(state)[action] == 1) == legal
    if not legal:
        assert game.illegal_reason(state, action) == (
            "Fx|Br connects at r3c4 only to cards that are not linked to your base: under the chain rule a played "
            "card must connect to a face-up card linked to your own base row through face-up connected cards"
        )
    if game.chain_rule:
        assert state.linked[0] == bits(reference_linked(game, state, 0))


def test_the_linked_sets_of_a_position():
    state = board_state(up={**BASES, **LONE, **CHAIN_TO_ROW_2}, game=CHAIN)
    assert names(state.linked[0]) == {"r0c0", "r0c1", "r0c2", "r0c3", "r1c2", "r2c3"}
    assert names(state.linked[1]) == {"r6c0", "r6c1", "r6c2", "r6c3"}  # r3c3 is linked to nobody


def test_playing_next_to_the_chain_extends_it_and_covering_a_chain_card_cuts_it():
    state = board_state(up={**BASES, **CHAIN_TO_ROW_2}, hands=(("Fx|Br", "Dg|Pg"), ("Pg|Ct",)), deck=("Rb|Ct",) * 3, game=CHAIN)
    step(state, play(state, 0, "Fx|Br", "r3c4", game=CHAIN), game=CHAIN)
    assert names(state.linked[0]) >= {"r1c2", "r2c3", "r3c4"}
    step(state, CHAIN.pass_action, game=CHAIN)  # player 1 draws
    # player 0 covers its own r1c2 with Dg|Pg: it connects to r0c1 (Dg) but shows Pg to r2c3 (Rb)
    step(state, play(state, 0, "Dg|Pg", "r1c2", game=CHAIN), game=CHAIN)
    assert names(state.linked[0]) & {"r2c3", "r3c4"} == set()
    assert state.linked[0] == bits(reference_linked(CHAIN, state, 0))
    fresh = CHAIN.clone(state)
    CHAIN.refresh(fresh)
    assert (fresh.linked, fresh.links) == (state.linked, state.links)


# ----------------------------------------------------------------- the opponent's base
ATTACK_CASES = [
    # description,                                         game,         chain up to r5c0,  legal (and wins)
    ("v0: the opponent's base card r6c0 suffices",         ANY,          False,             True),
    ("chain: r6c0 counts only once the chain reaches it",  CHAIN,        False,             False),
    ("chain: the chain reaches r6c0",                      CHAIN,        True,              True),
    ("chain + reach: r6c0 is in the attacked row",         CHAIN_REACH,  True,              False),
]


@pytest.mark.parametrize("description,game,reached,legal", ATTACK_CASES, ids=[c[0] for c in ATTACK_CASES])
def test_the_opponent_base_counts_only_once_the_chain_reaches_it(description, game, reached, legal):
    up = {**BASES, **(CHAIN_TO_R6C0 if reached else {})}
    state = board_state(up=up, hands=(("Dg|Fx",), ()), game=game)
    if game.chain_rule:
        assert (pos("r6c0") in reference_linked(game, state, 0)) == reached
        assert state.linked[0] == bits(reference_linked(game, state, 0))
    # Dg|Fx onto r6c1: its left Dg meets r6c0's right Dg; nothing else connects there
    assert [q for q, _ in game.connections(state, card("Dg|Fx"), pos("r6c1"))] == [pos("r6c0")]
    action = play(state, 0, "Dg|Fx", "r6c1", game=game)
    assert (action in game.legal_actions(state)) == legal
    if legal:
        step(state, action, game=game)
        assert state.winner == 0 and game.is_terminal(state)


def test_joined_chains_link_both_bases():
    # player 1's chain down the left edge meets player 0's base card r0c0: both seats are linked to both bases
    state = board_state(up={**BASES, **CHAIN_TO_R6C0}, game=CHAIN)
    for seat in (0, 1):
        assert state.linked[seat] == bits(reference_linked(CHAIN, state, seat))
    path = {"r0c0", *CHAIN_TO_R6C0, "r6c0"}
    # r0c1 connects to r0c0 (Ct); the other base cards are linked to their owner only
    assert names(state.linked[0]) == path | {"r0c1", "r0c2", "r0c3"}
    assert names(state.linked[1]) == path | {"r0c1", "r6c1", "r6c2", "r6c3"}


# ----------------------------------------------------------------- no early wins
@pytest.mark.parametrize("game", [CHAIN, CHAIN_REACH], ids=["chain", "chain+reach"])
def test_no_first_turn_play_reaches_beyond_row_1(game):
    # on the first turn only the bases are face up: every play lies in the mover's first two rows
    rng = np.random.default_rng(0)
    for _ in range(100):
        state = game.initial_state(rng)
        while state.phase == BUILD:
            game.apply_action(state, int(rng.choice(game.legal_actions(state))), rng)
        seat = state.to_move
        rows = {game.row_of[game.to_frame(seat, p)] for kind, _, p in map(lambda a: game.decode(seat, a), game.legal_actions(state))
                if kind == "play"}
        assert rows <= {0, 1}, rows


def own_turns_of_winner(state) -> int:
    return (state.turn + 1) // 2 if state.winner == state.first_player else state.turn // 2


@pytest.mark.parametrize("game", [CHAIN, CHAIN_REACH], ids=["chain", "chain+reach"])
def test_no_game_is_won_before_five_cards_lie_in_rows_1_to_5(game):
    # a win needs a face-up card in each of rows 1-5 first, five earlier turns: at the earliest the
    # first player wins on its 4th own turn (overall turn 7), the second on its 3rd (overall turn 6)
    rng = np.random.default_rng(1)
    draw = random.Random(1).random
    earliest = Counter()
    for _ in range(100):
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            # the rollout policy races: it plays furthest up the board and wins when it can
            action = rollouts.animal_chain(game, state, state.to_move, game.legal_actions(state), draw)
            game.apply_action(state, action, rng)
        if state.winner != NO_SEAT:
            earliest[state.winner == state.first_player, own_turns_of_winner(state)] += 1
            assert state.turn >= 6
    assert sum(earliest.values()) > 30
    assert min(turns for first, turns in earliest if first) >= 4, earliest
    assert min((turns for first, turns in earliest if not first), default=3) >= 3, earliest


# ----------------------------------------------------------------- random games
def random_play(game, seed, games):
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            yield state
            legal = game.legal_actions(state)
            plays = [a for a in legal if game.play_base <= a < game.pass_action]
            game.apply_action(state, int(rng.choice(plays if plays and rng.random() < 0.8 else legal)), rng)


@pytest.mark.parametrize("game", [CHAIN, CHAIN_REACH], ids=["chain", "chain+reach"])
def test_linked_sets_and_legal_plays_match_the_reference_in_random_games(game):
    checked = 0
    for state in random_play(game, seed=2, games=8):
        if state.phase != PLAY:
            assert state.linked == [0, 0]
            continue
        for seat in (0, 1):
            assert state.linked[seat] == bits(reference_linked(game, state, seat))
        seat = state.to_move
        linked = reference_linked(game, state, seat)
        expected = set()
        for t in range(game.num_types):
            if not state.hands[seat][t]:
                continue
            for p in range(game.num_positions):
                if not state.stacks[p] or state.double_owner[p] == 1 - seat:
                    continue
                counted = [q for q, _ in game.connections(state, t, p) if q in linked
                           and not (game.reach_rule and game.base_owner[p] == 1 - seat and game.base_owner[q] == 1 - seat)]
                if counted:
                    expected.add(game.play_action(seat, t, p))
        plays = {a for a in game.legal_actions(state) if game.play_base <= a < game.pass_action}
        assert plays == expected
        checked += 1
    assert checked > 150


def test_the_v1_env_defaults_to_the_chain_rule():
    env = raw_env()
    assert (env.game.connection_rule, env.game.attack_rule, env.game.building) == ("chain", "rules_page", "per_position")
    assert raw_env(connection_rule="any").game.chain_rule is False
    with pytest.raises(ValueError, match="connection_rule must be 'any' or 'chain', got 'chains'"):
        raw_env(connection_rule="chains")
    with pytest.raises(TypeError, match="connection_rule must be 'any' or 'chain', got 1 of type int"):
        AnimalChainGame(connection_rule=1)
    with pytest.raises(ValueError, match="building must be 'free' or 'per_position', got 'x'"):
        AnimalChainGame(building="x")


def test_a_reach_refusal_under_the_chain_rule_does_not_deny_the_unlinked_card_outside_the_row():
    """chain + reach: Dg|Fx onto r6c1 connects to r6c0 (linked, but in the attacked row) and to r5c2 (outside
    that row, but linked to nobody). The play is illegal, and the refusal must not say that the card connects
    only to cards of the opponent's base row (it names the unlinked card outside the row as the reason)."""
    game = CHAIN_REACH
    # r5c2 (Fx|Rb) shows Fx on its left to r6c1's SE side; it connects to nothing else that is face up
    state = board_state(up={**BASES, **CHAIN_TO_R6C0, "r5c2": "Fx|Rb"}, hands=(("Dg|Fx",), ()), game=game)
    assert game.neighbour_in[pos("r6c1")]["SE"] == pos("r5c2")
    links = {game.position_names[q] for q, _ in game.connections(state, card("Dg|Fx"), pos("r6c1"))}
    assert links == {"r6c0", "r5c2"}
    linked = names(state.linked[0], game)
    assert "r6c0" in linked and "r5c2" not in linked
    action = play(state, 0, "Dg|Fx", "r6c1", game=game)
    assert action not in game.legal_actions(state)
    reason = game.illegal_reason(state, action)
    assert "only to cards of your opponent's base row" not in reason
    assert reason == (
        "Dg|Fx connects at r6c1 to linked cards only in your opponent's base row, and outside that row only to "
        "cards that are not linked to your base: under attack_rule='reach' a play onto the opponent's base must "
        "connect to a face-up card outside that row, and under the chain rule that card must be linked to your "
        "own base row"
    )
    # without the unlinked card outside the row the refusal stays the reach rule's own
    state = board_state(up={**BASES, **CHAIN_TO_R6C0}, hands=(("Dg|Fx",), ()), game=game)
    assert game.illegal_reason(state, action).startswith("Dg|Fx connects at r6c1 only to cards of your opponent's base row")
