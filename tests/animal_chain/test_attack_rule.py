"""The ``attack_rule`` option: which face-up neighbours count for a play onto the opponent's base.

"rules_page" (default): any face-up neighbour, the opponent's other base cards
included. "reach": at least one connected neighbour must lie outside the
opponent's base row. Positions are absolute names (player 0's frame).
"""

import numpy as np
import pytest

from animal_chain.scenario import board_state, card, play, pos, step
from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.animal_chain import AnimalChainHeuristic
from kakurega.agents.heuristics.animal_chain_plays import attack_mask
from kakurega.envs import make
from kakurega.envs.animal_chain.rules import FACE_DOWN, NO_SEAT, PLAY, AnimalChainGame
from kakurega.envs.animal_chain_v0 import env as make_env
from kakurega.envs.animal_chain_v0 import raw_env

GAMES = {"rules_page": AnimalChainGame(), "reach": AnimalChainGame(attack_rule="reach")}
REACH_REFUSAL = (
    "{card} connects at {where} only to cards of your opponent's base row: under attack_rule='reach' "
    "a play onto the opponent's base must connect to a face-up card outside that row"
)


def test_the_geometry_the_cases_rely_on():
    assert GAMES["reach"].neighbour_in[pos("r6c1")]["W"] == pos("r6c0")   # player 1's base row
    assert GAMES["reach"].neighbour_in[pos("r6c1")]["SW"] == pos("r5c1")  # next row, towards the centre
    assert GAMES["reach"].neighbour_in[pos("r6c1")]["SE"] == pos("r5c2")
    assert GAMES["reach"].neighbour_in[pos("r0c2")]["W"] == pos("r0c1")   # player 0's base row
    assert GAMES["reach"].neighbour_in[pos("r0c2")]["NW"] == pos("r1c2")


# Every case plays Dg|Rb onto `target`; Ct|Dg shows Dg on its right, so it connects to Dg|Rb's
# left side (W, SW or NW neighbour); Ct|Fx shows Fx there and connects to nothing.
ATTACK_CASES = [
    # rule,         seat, target, face-up cards (besides the target Br|Pg),  legal, wins
    ("rules_page",  0,    "r6c1", {"r6c0": "Ct|Dg"},                         True,  True),   # base neighbour suffices
    ("reach",       0,    "r6c1", {"r6c0": "Ct|Dg"},                         False, False),  # ... not under reach
    ("reach",       0,    "r6c1", {"r6c0": "Ct|Dg", "r5c1": "Ct|Fx"},        False, False),  # face up, but no link
    ("reach",       0,    "r6c1", {"r5c1": "Ct|Dg"},                         True,  True),   # links to a non-base card
    ("reach",       0,    "r6c1", {"r6c0": "Ct|Dg", "r5c1": "Ct|Dg"},        True,  True),   # both: the row-5 link counts
    ("rules_page",  0,    "r6c1", {"r5c1": "Ct|Dg"},                         True,  True),
    ("rules_page",  1,    "r0c2", {"r0c1": "Ct|Dg"},                         True,  True),   # player 1 attacks player 0
    ("reach",       1,    "r0c2", {"r0c1": "Ct|Dg"},                         False, False),
    ("reach",       1,    "r0c2", {"r1c2": "Ct|Dg"},                         True,  True),
    ("reach",       0,    "r0c2", {"r0c1": "Ct|Dg"},                         True,  False),  # own base: unchanged
    ("reach",       1,    "r6c1", {"r6c0": "Ct|Dg"},                         True,  False),
]


@pytest.mark.parametrize("rule,seat,target,up,legal,wins", ATTACK_CASES)
def test_which_plays_onto_a_base_are_legal(rule, seat, target, up, legal, wins):
    game = GAMES[rule]
    state = board_state(up={**up, target: "Br|Pg"}, hands=(("Dg|Rb",), ("Dg|Rb",)), to_move=seat, game=game)
    action = play(state, seat, "Dg|Rb", target, game=game)
    assert (action in game.legal_actions(state)) == legal
    if not legal:
        links = game.connections(state, card("Dg|Rb"), pos(target))
        assert links and all(game.base_owner[q] == 1 - seat for q, _ in links)  # links only into that base row
        assert game.illegal_reason(state, action) == REACH_REFUSAL.format(  # in the mover's frame
            card=game.card_in_frame(seat, card("Dg|Rb")), where=game.position_name(seat, pos(target))
        )
        return
    step(state, action, game=game)
    assert state.winner == (seat if wins else NO_SEAT) and game.is_terminal(state) == wins
    if wins:
        assert game.returns(state)[seat] == 1.0


def test_unconnected_plays_keep_their_reason_under_reach():
    game = GAMES["reach"]
    state = board_state(up={"r6c0": "Ct|Fx", "r6c1": "Br|Pg"}, hands=(("Dg|Rb",), ()), game=game)
    action = play(state, 0, "Dg|Rb", "r6c1", game=game)
    assert game.illegal_reason(state, action) == "Dg|Rb connects to no face-up neighbour at r6c1"


def test_the_raw_env_refuses_a_base_only_attack_under_reach_with_words():
    env = raw_env(attack_rule="reach")
    env.reset(seed=0)
    env.game_state = board_state(up={"r6c0": "Ct|Dg", "r6c1": "Br|Pg"}, hands=(("Dg|Rb",), ()), game=env.game)
    env._after_transition()
    with pytest.raises(ValueError, match="play Dg|Rb onto r6c1.*only to cards of your opponent's base row"):
        env.step(play(env.game_state, 0, "Dg|Rb", "r6c1", game=env.game))


def first_turn_wins(game, num_deals):
    """Deals (bases as dealt) where the first player holds a play onto the opponent's base on its first turn."""
    count = 0
    for seed in range(num_deals):
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        game.apply_action(state, game.done_action, rng)
        game.apply_action(state, game.done_action, rng)
        assert state.phase == PLAY and state.turn == 0
        seat = state.to_move
        count += any(
            kind == "play" and game.base_owner[p] == 1 - seat
            for kind, _, p in (game.decode(seat, a) for a in game.legal_actions(state))
        )
    return count


def test_reach_removes_the_first_turn_win_that_the_rules_page_allows():
    assert first_turn_wins(GAMES["rules_page"], 60) >= 50  # ~99 % of deals
    assert first_turn_wins(GAMES["reach"], 60) == 0  # only base cards are face up on turn 1


def test_the_option_is_threaded_through_the_env_and_the_registry():
    assert raw_env().game.attack_rule == "rules_page"
    assert make("animal_chain_v0", attack_rule="reach").unwrapped.game.attack_rule == "reach"
    assert make("kakurega/animal_chain-v0", wrapped=False, attack_rule="rules_page").game.reach_rule is False


BAD_ATTACK_RULES = [
    ("reache", ValueError, "attack_rule must be 'rules_page' or 'reach', got 'reache'"),
    ("Reach", ValueError, "attack_rule must be 'rules_page' or 'reach', got 'Reach'"),
    (None, TypeError, "attack_rule must be 'rules_page' or 'reach', got None of type NoneType"),
    (1, TypeError, "attack_rule must be 'rules_page' or 'reach', got 1 of type int"),
]


@pytest.mark.parametrize("value,error,message", BAD_ATTACK_RULES, ids=[repr(v[0]) for v in BAD_ATTACK_RULES])
def test_bad_attack_rules_are_refused(value, error, message):
    with pytest.raises(error, match=message):
        raw_env(attack_rule=value)
    with pytest.raises(error, match=message):
        AnimalChainGame(attack_rule=value)


# ----------------------------------------------------------------- heuristic
def heuristic_for(env, options, with_game=True):
    context = AgentContext.from_env(env, "animal_chain_v0", options)
    if not with_game:  # only the options: the heuristic builds the rules itself
        context = AgentContext(context.env_name, context.env_kwargs, context.layout, context.num_actions, context.num_players)
    return AnimalChainHeuristic(context, seed=0)


@pytest.mark.parametrize("with_game", [True, False])
@pytest.mark.parametrize("rule", ["rules_page", "reach"])
def test_the_heuristic_reads_the_attack_rule(rule, with_game):
    env = make_env(attack_rule=rule)
    agent = heuristic_for(env, {"attack_rule": rule}, with_game)
    assert agent.game.attack_rule == rule


def observation_of(env, state):
    raw = env.unwrapped
    raw.game_state = state
    raw._after_transition()
    return raw.observe(raw.agent_selection)


# player 0 holds Dg|Rb (links to r6c0's right Dg, or to r5c1's right Dg) and Rb|Fx.
HEURISTIC_CASES = [
    # rule,         face-up cards besides the bases,  expected play
    ("rules_page",  {},                                ("Dg|Rb", "r6c1")),  # wins through the base neighbour
    ("reach",       {"r5c1": "Ct|Dg"},                 ("Dg|Rb", "r6c1")),  # wins through the row-5 card
]


@pytest.mark.parametrize("rule,up,expected", HEURISTIC_CASES)
def test_the_heuristic_wins_at_once_under_either_rule(rule, up, expected):
    env = make_env(attack_rule=rule)
    env.reset(seed=0)
    game = env.unwrapped.game
    bases = {"r6c0": "Ct|Dg", "r6c1": "Br|Pg", "r6c2": "Ct|Fx", "r6c3": "Ct|Fx",
             "r0c0": "Fx|Pg", "r0c1": "Fx|Pg", "r0c2": "Fx|Pg", "r0c3": "Fx|Pg"}
    state = board_state(up={**bases, **up}, hands=(("Dg|Rb", "Rb|Fx"), ()), game=game)
    action = heuristic_for(env, {"attack_rule": rule}).act(observation_of(env, state))
    assert action == play(state, 0, *expected, game=game)
    step(state, action, game=game)
    assert state.winner == 0


# The heuristic's threat / offence reading, in its own frame (player 0's here): which card types
# could be played onto player 1's base with only these cards face up.
THREAT_CASES = [
    # rule,         face-up cards,                                         types that could attack r6c1
    ("rules_page",  {"r6c0": "Ct|Dg", "r6c1": "Br|Pg"},                   {"Dg|Ct", "Dg|Rb", "Dg|Br", "Dg|Pg", "Dg|Fx"}),
    ("reach",       {"r6c0": "Ct|Dg", "r6c1": "Br|Pg"},                   set()),
    ("reach",       {"r6c0": "Ct|Dg", "r6c1": "Br|Pg", "r5c2": "Rb|Ct"},  {"Dg|Rb", "Ct|Rb", "Br|Rb", "Pg|Rb", "Fx|Rb"}),
]


@pytest.mark.parametrize("rule,up,attackers", THREAT_CASES)
def test_the_heuristic_counts_only_attacks_the_rule_allows(rule, up, attackers):
    env = make_env(attack_rule=rule)
    agent = heuristic_for(env, {"attack_rule": rule})
    game = agent.game
    types = [FACE_DOWN] * game.num_positions
    for name, label in up.items():
        types[pos(name)] = card(label)
    mask = attack_mask(agent._tables, types, [pos("r6c1")], 0, -1)
    assert {game.deck.type_label(t) for t in range(game.num_types) if mask >> t & 1} == attackers
