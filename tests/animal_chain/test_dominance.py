"""Animal Chain: the moves a win at once, or a move that hands over no sure win, dominates; and the bots that
never play them unless asked (``prune=false``).

The proof (``animal_chain_sure_wins``) is shared by the tactics patterns (on the full state, through the rules
engine) and the move features' ``dominated`` (on the mover's observation): over random games the mask equals
the pattern's proof on the true state given what the observation shows (its top cards), is the same in every
determinization of the mover, and a control that reads the opponent's true hand is caught.
"""

from __future__ import annotations

import numpy as np
import pytest

from animal_chain.scenario import board_state, play
from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.heuristics.animal_chain import AnimalChainMoveFeatures
from kakurega.agents.heuristics.animal_chain_sure_wins import dominated, surely_holds, unseen_outside
from kakurega.agents.policy import context_for, load
from kakurega.agents.pretrained import find
from kakurega.agents.tactics import patterns
from kakurega.agents.tactics.score import score_agents
from kakurega.agents.tactics.suite import find_suite
from kakurega.envs.registry import make

TABLES = [{}, {"attack_rule": "reach"}, {"connection_rule": "any"}]
TABLE_IDS = ["default", "reach", "any"]


def test_the_rule_a_win_beats_everything_a_handed_win_is_beaten_by_anything_else():
    legal = [3, 5, 8]
    assert dominated([5], [3], legal) == [3, 8]
    assert dominated([3, 5, 8], [], legal) == []  # every move wins: none is dominated
    assert dominated([], [3, 8], legal) == [3, 8]
    assert dominated([], [3, 5, 8], legal) == []  # every move hands a win: nothing beats a loss
    assert dominated([], [], legal) == []


def test_the_pigeonhole_counts_the_unseen_cards_outside_the_winning_types():
    unseen = [2, 0, 1, 2]  # per card type
    assert unseen_outside(0b0101, unseen) == 2  # types 1 and 3
    assert surely_holds(0b0101, unseen, 3)  # 3 cards, at most 2 of them could fail to win
    assert not surely_holds(0b0101, unseen, 2)
    assert not surely_holds(0b1111, unseen, 0)  # an empty hand wins nothing


def _any_table():
    env = make("animal_chain_v1", wrapped=False, connection_rule="any")
    env.reset(seed=0)
    return env, AnimalChainMoveFeatures(AgentContext.from_env(env, "animal_chain_v1", {"connection_rule": "any"}))


def _observe(env, state):
    env.game_state = state
    env._after_transition()
    return env.observe(env.agent_selection)


# player 0's base shows Pg and Dg on right halves, Fx and Ct on left halves: 16 card types can be played onto it
# (rules page: the base cards are each other's neighbours). Pg|Rb onto r1c1 shows Pg and Rb to two base cards as
# well: 22 types. Of the cards player 0 has not seen, 24 lie outside the 16 types and 12 outside the 22.
BASES = {"r0c0": "Fx|Pg", "r0c1": "Fx|Pg", "r0c2": "Ct|Dg", "r0c3": "Ct|Dg",
         "r6c0": "Br|Dg", "r6c1": "Br|Dg", "r6c2": "Pg|Ct", "r6c3": "Pg|Ct"}
OUTSIDE = ["Ct|Rb", "Ct|Br", "Br|Rb", "Fx|Dg", "Fx|Rb", "Fx|Br"]  # the unseen types outside the 22, two of each
WINNING = ["Dg|Pg", "Rb|Dg", "Pg|Br", "Br|Pg", "Rb|Fx", "Dg|Rb", "Ct|Pg"]  # some of the 16, two of each


def _handing_position(held: int, game):
    """Player 0 to move, holding Pg|Rb and Fx|Ct; player 1 holds the 12 unseen cards outside the 22 types and
    ``held - 12`` cards of the 16."""
    opponent = [label for label in OUTSIDE + WINNING for _ in range(2)][:held]
    return board_state(up=BASES, hands=(("Pg|Rb", "Fx|Ct"), opponent), deck=("Rb|Pg",), game=game)


def test_a_move_that_hands_a_sure_win_is_dominated_beside_one_that_does_not():
    env, features = _any_table()
    game = env.game
    state = _handing_position(15, game)  # 15 cards: at least 3 of them win after Pg|Rb onto r1c1, maybe none after a pass
    handing = play(state, 0, "Pg|Rb", "r1c1", game=game)
    mask = features.dominated(_observe(env, state))
    assert mask[handing] and not mask[game.pass_action]
    claim = patterns._ac_stop_win(game, state)  # the tactics pattern reads the same proof from the state
    assert claim is not None and handing in claim.moves and list(np.flatnonzero(mask)) == sorted(claim.moves)
    after = game.clone(state)
    game.apply_action(after, handing, np.random.default_rng(0))
    assert patterns._ac_wins(game, after, 1, game.legal_actions(after))  # and the opponent can indeed win


def test_when_every_move_hands_a_sure_win_none_is_dominated():
    env, features = _any_table()
    state = _handing_position(25, env.game)  # 25 cards: some card wins whatever player 0 does
    observation = _observe(env, state)
    legal = np.flatnonzero(observation["action_mask"])
    assert set(features._handed(observation, features._measure(observation))) == set(legal.tolist())
    assert not features.dominated(observation).any()


def test_a_play_onto_the_opponents_base_row_dominates_every_other_move():
    env, features = _any_table()
    game = env.game
    # r6c0 (Br|Dg) shows Dg on its right half: Dg|Br connects to it from r6c1, a card of player 1's base row
    state = board_state(up=BASES, hands=(("Dg|Br", "Fx|Ct"), ("Rb|Pg",)), deck=("Ct|Pg",), game=game)
    observation = _observe(env, state)
    win = play(state, 0, "Dg|Br", "r6c1", game=game)
    legal = np.flatnonzero(observation["action_mask"])
    mask = features.dominated(observation)
    assert not mask[win] and mask[game.pass_action] and mask.sum() == len(legal) - len(
        patterns._ac_wins(game, state, 0, legal))


def _proof_on_the_true_state(game, state) -> list[int]:
    """The patterns' proof on the true state, counting as seen only what the observation shows: the top cards
    and the mover's hand (the patterns count the covered cards too, which the observation does not show)."""
    seat = game.current_player(state)
    legal = game.legal_actions(state)
    wins = patterns._ac_wins(game, state, seat, legal)
    if wins:
        return dominated(wins, (), legal)
    unseen = list(game.deck.copies)
    for p in range(game.num_positions):
        if game.top(state, p) >= 0:
            unseen[game.top(state, p)] -= 1
    for t, count in enumerate(state.hands[seat]):
        unseen[t] -= count
    return dominated((), patterns._ac_handed(game, state, unseen), legal)


def _leaky(game, state) -> list[int]:
    """A control: the moves after which the opponent's true hand holds a winning card."""
    seat = game.current_player(state)
    out = []
    for action in game.legal_actions(state):
        after = game.clone(state)
        game.apply_action(after, action, np.random.default_rng(0))
        if game.current_player(after) == 1 - seat and patterns._ac_wins(game, after, 1 - seat, game.legal_actions(after)):
            out.append(action)
    return out


@pytest.mark.parametrize("options", TABLES, ids=TABLE_IDS)
def test_over_random_games_the_mask_is_the_proof_on_the_true_state_and_reads_only_the_movers_view(options):
    env = make("animal_chain_v1", wrapped=False, **options)
    context = AgentContext.from_env(env, "animal_chain_v1", options)
    features = AnimalChainMoveFeatures(context)
    game = env.game
    rng = np.random.default_rng(5)
    met = {"win": 0, "handed": 0}
    leaky_caught = False
    for deal in range(12 if options.get("connection_rule") != "any" else 120):
        env.reset(seed=deal)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            state = env.game_state
            observation = env.observe(env.agent_selection)
            legal = np.asarray(observation["action_mask"], dtype=bool)
            mask = features.dominated(observation)
            assert mask.shape == legal.shape and not (mask & ~legal).any()
            if legal.any():
                assert (legal & ~mask).any()  # never every legal move
            if state.phase == 1 and legal.any():
                assert sorted(np.flatnonzero(mask).tolist()) == sorted(_proof_on_the_true_state(game, state))
                seat = game.current_player(state)
                if patterns._ac_wins(game, state, seat, game.legal_actions(state)):
                    met["win"] += mask.any()
                else:
                    met["handed"] += mask.any()
                    claim = patterns._ac_stop_win(game, state)  # what the mask proves, the full state proves too
                    assert not mask.any() or set(np.flatnonzero(mask)) <= set(claim.moves)
                truth = _leaky(game, state)
                for _ in range(2):  # the same in states the mover cannot tell apart
                    other = game.resample_hidden(state, seat, rng)
                    assert (features.dominated(_observe(make_copy(env, options), other)) == mask).all()
                    leaky_caught = leaky_caught or _leaky(game, other) != truth
            env.step(int(rng.choice(np.flatnonzero(legal))))
    # under "reach" a handed win is rarely proved from the top cards alone (the suite's need covered cards)
    assert met["win"] > 0 and (met["handed"] > 0 or options == {"attack_rule": "reach"}), met
    assert leaky_caught, "the control never differed: the view check could not fail"


_COPIES: dict = {}


def make_copy(env, options):
    """A second env of the table to observe determinized states in (the first one goes on with the game)."""
    key = tuple(sorted(options.items()))
    if key not in _COPIES:
        _COPIES[key] = make("animal_chain_v1", wrapped=False, **options)
        _COPIES[key].reset(seed=0)
    return _COPIES[key]


@pytest.mark.parametrize("options", TABLES, ids=TABLE_IDS)
def test_a_pruned_bot_never_plays_a_dominated_move(options):
    bot = load(find("animal_chain_v1", options), context=context_for("animal_chain_v1", options))
    assert bot.prune
    env = make("animal_chain_v1", wrapped=False, **options)
    opponent = RandomAgent(AgentContext.from_env(env, "animal_chain_v1", options), seed=1)
    pruned = 0
    for deal in range(10 if options.get("connection_rule") != "any" else 60):
        env.reset(seed=deal)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            observation = env.observe(env.agent_selection)
            if env.agent_selection == "player_0":
                mask = bot.dominated(observation)
                action = bot.act(observation)
                if mask is not None and mask.any():
                    pruned += 1
                    assert not mask[action]
            else:
                action = opponent.act(observation)
            env.step(action)
    assert pruned > 0


def test_the_any_bot_solves_its_suite_pruned_and_not_without_pruning():
    """The control: the same network with ``prune=false`` fails stop_win positions of the same suite."""
    result = score_agents(find_suite("animal_chain_v1", {"connection_rule": "any"}), ["pretrained", "pretrained:prune=false"])
    pruned, network = result.scores
    assert pruned.share()[0] >= 0.95
    assert network.share()[0] < 0.95 and set(pruned.failed) < set(network.failed)


def test_the_suites_claims_that_need_no_covered_card_are_proved_from_the_observation():
    """Every shipped win_now claim is proved from the observation, and of the stop_win claims only moves the
    full state proves too; on the any table all but 7 of the 35 in full (the others need covered cards)."""
    from kakurega.agents.tactics.suite import replay

    unproved = 0
    for options in TABLES:
        suite = find_suite("animal_chain_v1", options)
        features = AnimalChainMoveFeatures(context_for("animal_chain_v1", options))
        for position in suite.positions:
            env = replay(suite.env, position)
            mask = features.dominated(env.observe(position.seat))
            if position.kind == "good":
                assert not mask[position.claimed].any() and mask.sum() == len(env.legal_actions()) - len(position.claimed)
            else:
                assert set(np.flatnonzero(mask)) <= set(position.claimed)
                unproved += options == {"connection_rule": "any"} and set(np.flatnonzero(mask)) != set(position.claimed)
    assert unproved == 7
