"""KAKURENBO winning-move marks: a Curse give or a dice take the mover knows ends the game with it winning.

Scenarios from the rules page ("End and scoring", the card functions), the
marks checked against the played outcome over many random games, and the
marks read only from the mover's view (a resampled state it cannot tell apart
gets the same marks; a control that reads the true hands is caught).
"""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.envs.kakurenbo.knowledge import UNKNOWN
from kakurega.envs.kakurenbo.rules import A_TAKE, DICE_TAKE, KakurenboGame
from kakurega.envs.kakurenbo.winning import SHARES, WINS
from tests.kakurenbo.helpers import build, card, deciding_states


def _give(game, state, name: str, to: int) -> int:
    return game.curse_give_action(card(name), (to - state.actor) % game.num_players)


def test_a_curse_give_onto_the_known_partner_alone_wins_at_once():
    game = KakurenboGame(num_players=3)
    # player_1 holds only the blue chest; player_0 knows it (player_0 gave it earlier)
    state = build(game, {0: "Cr Wr K", 1: "Cb", 2: "Wb"}, scores=[0, 0, 0],
                  discarded={"H": 2, "RA": 2, "LA": 1, "RL": 1, "LL": 2})
    state.knowledge[0][card("Cb")] = 1
    give_chest = _give(game, state, "Cr", 1)
    # player_1 discards the chest pair: the player on its right (player_0) scores 3; player_1 holds the Curse alone
    assert game.winning_note(state, give_chest) == WINS
    after = game.clone(state)
    game.apply_action(after, give_chest, np.random.default_rng(0))
    assert after.over and game.winners(after) == [0]
    # the same give to a player who does not hold the partner goes on; the waist's partner is nowhere near
    assert game.winning_note(state, _give(game, state, "Cr", 2)) == ""
    assert game.winning_note(state, _give(game, state, "Wr", 1)) == ""


def test_a_curse_give_is_not_marked_when_the_mover_does_not_know_where_the_partner_is():
    game = KakurenboGame(num_players=3)
    state = build(game, {0: "Cr Wr K", 1: "Cb", 2: "Wb"}, discarded={"H": 2, "RA": 2, "LA": 1, "RL": 1, "LL": 2})
    give_chest = _give(game, state, "Cr", 1)
    assert game.known_row(state, 0)[card("Cb")] == UNKNOWN  # two blue cards, one each in hands 1 and 2
    assert game.winning_note(state, give_chest) == ""  # it would win here, but the mover cannot know it
    state.knowledge[0][card("Cb")] = 1
    assert game.winning_note(state, give_chest) == WINS


def test_a_leg_pair_ends_the_game_when_the_exchanged_hand_is_empty():
    game = KakurenboGame(num_players=3)
    # player_1 holds the blue left leg and the red waist; discarding the left leg pair exchanges hands with its
    # left neighbour player_2, who holds nothing: player_1 is left with the Curse alone
    state = build(game, {0: "LLr Wb K", 1: "LLb Wr", 2: ""}, scores=[2, 4, 4],
                  discarded={"H": 1, "C": 2, "RA": 0, "LA": 2, "RL": 0})
    state.knowledge[0][card("LLb")] = 1
    give = _give(game, state, "LLr", 1)
    # final scores: player_0 2, player_1 0 (the Curse), player_2 4: player_2 wins, so the give is not marked
    after = game.clone(state)
    game.apply_action(after, give, np.random.default_rng(0))
    assert after.over and game.winners(after) == [2]
    assert game.winning_note(state, give) == ""
    state.scores = [4, 4, 4]  # now player_0 ties player_2 at the top
    assert game.winning_note(state, give) == SHARES
    state.scores = [5, 4, 4]
    assert game.winning_note(state, give) == WINS


def test_a_kurayami_take_of_the_curse_holders_last_card_wins_for_an_emptied_taker():
    game = KakurenboGame(num_players=4, variant="kurayami")
    state = build(game, {0: "Cr", 1: "Cb K", 2: "Wb", 3: "Wr"}, scores=[3, 0, 3, 4],
                  discarded={"H": 2, "RA": 2, "LA": 0, "RL": 1, "LL": 3}, phase=2, stage=DICE_TAKE)
    state.knowledge[0][card("Cb")] = 1
    state.target = 1
    take_blue = next(a for a in game.legal_actions(state) if game.decode[a][0] == A_TAKE)
    assert game.decode[take_blue][1] == 1  # blue
    # player_0 takes the blue chest and discards the chest pair (6 points in all) with an empty hand; player_1 is
    # left with the Curse alone; the players still holding cards do not win
    assert game.winning_note(state, take_blue) == WINS
    state.knowledge[0][card("Cb")] = UNKNOWN  # the blue chest or the blue waist: the mover cannot know it pairs
    assert game.known_row(state, 0)[card("Cb")] == UNKNOWN
    assert game.winning_note(state, take_blue) == ""


def _outcome(game, state, action, me) -> str:
    """What the move does when played: WINS, SHARES or ""."""
    after = game.clone(state)
    game.apply_action(after, action, np.random.default_rng(1))
    winners = game.winners(after) if after.over else []
    return WINS if winners == [me] else SHARES if me in winners else ""


def _ending(game, state, action) -> tuple:
    """Whether the move, played, ends the game, and the winners then."""
    after = game.clone(state)
    game.apply_action(after, action, np.random.default_rng(1))
    return after.over, tuple(game.winners(after)) if after.over else ()


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_marks_are_the_played_outcome_and_read_only_the_movers_view(variant, n):
    marked = 0
    rng = np.random.default_rng(7)
    leaky_caught = False
    for game, state, legal in deciding_states(variant, n, games=150, seed=n):
        me = state.actor
        notes = {a: game.winning_note(state, a) for a in legal}
        for action, note in notes.items():
            if note:
                marked += 1
                assert note == _outcome(game, state, action, me), game.action_to_string(state, action)
        truth = {a: _ending(game, state, a) for a in legal}
        for _ in range(2):  # equal in states the mover cannot tell apart
            other = game.resample_hidden(state, me, rng)
            assert {a: game.winning_note(other, a) for a in legal} == notes
            # control: marks read from the played outcome (the true hands: does the move end the game, who
            # wins) differ between such states
            leaky_caught = leaky_caught or {a: _ending(game, other, a) for a in legal} != truth
    assert marked > 0, "no decided winning move met: these games prove nothing"
    if n > 3 or variant == "kakurenbo":  # three at Kurayami dice know almost every card by counting
        assert leaky_caught, "the control never differed: the view check could not fail"


def _pairs(state) -> int:
    return sum(1 for hand in state.hands for c in hand if c != 14 and not c & 1 and c + 1 in hand)


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
@pytest.mark.parametrize("attempts", [200, 0])  # 0: every sample comes from the direct search
def test_phase_2_determinizations_hold_no_pair_and_keep_what_the_player_knows(variant, attempts, monkeypatch):
    """Phase 2 discards every pair at once, so a resampled state holding one is a state the player knows is
    impossible (the marks above, and IS-MCTS, read such states)."""
    from kakurega.envs.kakurenbo import rules

    monkeypatch.setattr(rules, "RESAMPLE_ATTEMPTS", attempts)
    rng = np.random.default_rng(3)
    checked = varied = 0
    for game, state, _ in deciding_states(variant, 5, games=40, seed=11):
        me = state.actor
        assert _pairs(state) == 0
        for _ in range(3):
            other = game.resample_hidden(state, me, rng)
            assert _pairs(other) == 0
            assert other.colour_counts == state.colour_counts
            assert [c for c in range(14) if other.knowledge[me][c] >= 0] == \
                [c for c in range(14) if state.knowledge[me][c] >= 0]
            assert all(c in other.hands[s] for c, s in enumerate(state.knowledge[me]) if s >= 0)
            checked += 1
            varied += [sorted(h) for h in other.hands] != [sorted(h) for h in state.hands]
    assert checked > 100
    # the hidden cards are dealt again, not copied from the truth (a search copying them passes every check above)
    assert varied >= checked // 4, f"only {varied} of {checked} samples dealt the hidden cards otherwise"
