"""Rule scenarios that pin sentences of ``../shared/rules/animal_chain.md`` otherwise pinned only indirectly.

Each test fails on one engine mutant that the other scenario tests of ``tests/animal_chain`` let through
(or that only a stored suite or a cache-consistency test caught). Positions are absolute names (player 0's
frame), as in ``test_rules.py``.
"""

from animal_chain.scenario import GAME, board_state, play, pos, step, top
from kakurega.envs import animal_chain_v0, animal_chain_v1
from kakurega.envs.animal_chain.rules import NO_SEAT, AnimalChainGame

# r3c3's left side faces r3c2 (W), r4c2 (NW) and r2c2 (SW).
DOUBLE_ON_DG = {"r3c2": "Ct|Dg", "r4c2": "Br|Dg"}


def test_a_double_ends_when_a_foundation_is_covered_even_by_a_card_showing_the_same_animal():
    """Rules, "Double": it stops being a double as soon as any foundation card is covered by another card.

    Kills the mutant that re-counts the foundations (the double survives while the new top still
    shows the double's animal): here r3c2 is covered by Fx|Dg, still showing Dg to r3c3.
    """
    state = board_state(up=DOUBLE_ON_DG, hands=(("Dg|Rb",), ("Fx|Dg", "Dg|Fx")), deck=("Rb|Br",) * 3)
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    assert state.double_owner[pos("r3c3")] == 0
    barred = play(state, 1, "Dg|Fx", "r3c3")
    assert barred not in GAME.legal_actions(state)
    step(state, play(state, 1, "Fx|Dg", "r3c2"))  # connects to r3c3's left Dg; r3c2 still shows Dg on its right
    assert top(state, "r3c2") == "Fx|Dg"
    assert state.double_owner[pos("r3c3")] == NO_SEAT and state.double_foundations[pos("r3c3")] == ()
    step(state, GAME.pass_action)  # player 0 draws
    assert barred in GAME.legal_actions(state)


def test_a_double_on_three_foundations_ends_when_any_one_of_them_is_covered():
    """Rules, "Double": *any* of those foundation cards covered ends it (not "fewer than two left").

    Kills the mutant that keeps a double while two uncovered foundations remain.
    """
    up = {**DOUBLE_ON_DG, "r2c2": "Fx|Dg"}
    state = board_state(up=up, hands=(("Dg|Rb",), ("Dg|Pg", "Dg|Fx")), deck=("Rb|Br",) * 3)
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    assert state.double_foundations[pos("r3c3")] == tuple(sorted(pos(n) for n in ("r2c2", "r3c2", "r4c2")))
    # player 1 covers r2c2 with Dg|Pg: its left Dg meets r3c2 (NW), its right Pg faces r3c3
    step(state, play(state, 1, "Dg|Pg", "r2c2"))
    assert state.double_owner[pos("r3c3")] == NO_SEAT
    step(state, GAME.pass_action)
    assert play(state, 1, "Dg|Fx", "r3c3") in GAME.legal_actions(state)


def test_covering_the_own_double_with_a_single_connection_ends_the_double():
    """Rules, "A turn" (the stack's top card is what counts) and "Double": a double is the played card's
    property; when its owner covers it with a card that connects once, the position is no double any more.

    Kills the mutant that keeps the old double's owner when a non-double card lands on it.
    """
    state = board_state(up={**DOUBLE_ON_DG, "r3c4": "Ct|Pg"}, hands=(("Dg|Rb", "Rb|Ct"), ("Dg|Fx",)),
                        deck=("Rb|Br",) * 3)
    step(state, play(state, 0, "Dg|Rb", "r3c3"))  # a double on Dg (r3c2, r4c2)
    assert state.double_owner[pos("r3c3")] == 0
    step(state, GAME.pass_action)  # player 1 draws
    step(state, play(state, 0, "Rb|Ct", "r3c3"))  # its own double: connects to r3c4's Ct only
    assert top(state, "r3c3") == "Rb|Ct"
    assert state.double_owner[pos("r3c3")] == NO_SEAT and state.double_foundations[pos("r3c3")] == ()
    assert play(state, 1, "Dg|Fx", "r3c3") in GAME.legal_actions(state)


# The chain rule (v1). Bases and a chain as in test_chain_rule.py: player 0's chain reaches r2c3 (Rb|Fx);
# r3c3 (Pg|Fx) is face up but linked to nobody. Both show Fx to the left side of r3c4.
BASES = {"r0c0": "Dg|Ct", "r0c1": "Ct|Dg", "r0c2": "Ct|Br", "r0c3": "Br|Ct",
         "r6c0": "Pg|Dg", "r6c1": "Br|Pg", "r6c2": "Ct|Fx", "r6c3": "Ct|Fx"}
CHAIN_TO_ROW_2 = {"r1c2": "Dg|Rb", "r2c3": "Rb|Fx"}
LONE = {"r3c3": "Pg|Fx"}


def test_under_the_chain_rule_a_foundation_need_not_be_linked():
    """Rules, "Double": a card connecting with the same animal to two or more *face-up neighbours* is a
    double; the chain rule says which neighbour makes a play legal, not which ones are foundations.

    Kills the mutant that counts only linked neighbours as foundations under ``connection_rule="chain"``.
    """
    chain = AnimalChainGame(connection_rule="chain", building="per_position")
    state = board_state(up={**BASES, **CHAIN_TO_ROW_2, **LONE}, hands=(("Fx|Br",), ("Fx|Ct",)), deck=("Rb|Ct",) * 3,
                        game=chain)
    assert not state.linked[0] >> pos("r3c3") & 1 and state.linked[0] >> pos("r2c3") & 1
    step(state, play(state, 0, "Fx|Br", "r3c4", game=chain), game=chain)
    assert state.double_owner[pos("r3c4")] == 0
    assert state.double_foundations[pos("r3c4")] == tuple(sorted((pos("r2c3"), pos("r3c3"))))


def test_the_turn_limit_defaults_to_200_in_both_versions():
    """Rules, "End and rewards": a configurable limit on turns (default 200) truncates the episode.

    Kills the mutant that changes the default of ``max_turns``.
    """
    assert AnimalChainGame().max_turns == 200
    assert animal_chain_v0.raw_env().game.max_turns == 200
    assert animal_chain_v1.raw_env().game.max_turns == 200
