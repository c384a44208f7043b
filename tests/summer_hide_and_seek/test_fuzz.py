"""Random-play fuzz and belief soundness over random and heuristic games.

Every game must end (each player hides once), VP totals must equal the sum of
the announced icon values, and whenever the public belief is meant to hold
(after each announcement, at the start of each child turn) the child's true
square must be in it. The belief must also equal a from-scratch recomputation
from the public facts alone, and the rules' incremental line masks must equal
a recomputation (legal lines as the line-by-line rule gives them). Hundreds of games by default; thousands behind
``@pytest.mark.slow``.
"""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.summer_hide_and_seek import SummerHideAndSeekHeuristic
from kakurega.envs import summer_hide_and_seek_v1
from kakurega.envs.registry import make
from kakurega.envs.summer_hide_and_seek.belief import mask_of
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, OVER, SEEK, SummerHideAndSeekGame

VERSIONS = {"summer_hide_and_seek_v0": {}, "summer_hide_and_seek_v1": summer_hide_and_seek_v1.DEFINITION.rules}
CONFIGS = [(name, n, strict) for name in VERSIONS for n in (2, 3, 4) for strict in (False, True)]


def public_belief(game, state) -> int:
    """The belief recomputed from scratch from the round's public facts only."""
    belief = game.path_mask
    for t, (cost, icons) in enumerate(state.announcements):
        blocked = mask_of(state.guesses[t - 1]) if t else 0
        belief = game.belief_model.propagate(belief, cost, icons, blocked)
        if t < len(state.guesses):
            belief &= ~mask_of(state.guesses[t])
    return belief


class GameChecker:
    """Checks invariants step by step and tallies what it saw."""

    def __init__(self, game):
        self.game = game
        self.belief_checks = 0

    def before(self, state):
        self.announcements = state.announcements  # the list object survives the end of the round
        self.count = len(state.announcements)
        self.child = state.child

    def after(self, state):
        game = self.game
        for _cost, icons in self.announcements[self.count :]:
            self.expected_vp[self.child] += sum(game.map.icons[i].vp for i in icons)
        assert state.vp == self.expected_vp, "VP must equal the sum of the announced icon values"
        # the incremental line masks equal a recomputation, and the legal lines they give are
        # exactly those of the line-by-line rule (open_lines)
        assert state.closed_lines == game.closed_lines_of(state.stroke)
        assert state.blocked_lines == game.blocked_lines_of(state.blocked)
        if state.phase == CHILD and state.continue_due:  # (v1) the stuck rule is judged after the continue
            assert game.legal_actions(state) == [game.continue_action]
        elif state.phase == CHILD:
            lines = [game.line_base + q for q, *_ in game.line_options(state)]
            must_draw = game.must_move and state.turn_cost == 0 and lines
            assert game.legal_actions(state) == lines + ([] if must_draw else [game.stop_action])
            assert not game.is_stuck(state.square, state.visited, state.drawn, state.blocked)
            assert not (game.paced_turns and state.turn_cost == BUDGET), "v1: a spent budget ends the turn"
        if state.phase == SEEK or (state.phase == CHILD and state.turn_cost == 0 and state.announcements):
            assert state.belief >> state.square & 1, "the child's square left the public belief"
            assert state.belief == public_belief(game, state)
            self.belief_checks += 1

    def start(self, state):
        self.expected_vp = [0] * self.game.num_players

    def finish(self, state):
        assert state.phase == OVER, "the game did not end"
        assert sorted(child for child, *_ in state.history) == list(range(self.game.num_players)), (
            "every player must be the child exactly once"
        )
        assert [gained for _c, _s, gained, _t, _h in state.history] == [
            self.expected_vp[child] for child, *_ in state.history
        ]


def fuzz_random(name, num_players, strict, num_games, seed):
    game = SummerHideAndSeekGame(num_players, strict_moves=strict, max_steps=1_000_000, **VERSIONS[name])
    checker = GameChecker(game)
    rng = np.random.default_rng(seed)
    steps = 0
    for _ in range(num_games):
        state = game.initial_state(rng)
        checker.start(state)
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            assert legal, "a live player without a legal action"
            checker.before(state)
            game.apply_action(state, int(rng.choice(legal)), rng)
            checker.after(state)
            steps += 1
        checker.finish(state)
    return checker.belief_checks, steps


def fuzz_heuristic(name, num_players, strict, num_games, seed):
    kwargs = {"num_players": num_players, "strict_moves": strict, "max_steps": 1_000_000}
    env = make(name, wrapped=False, **kwargs)
    context = AgentContext.from_env(env, name, kwargs)
    agents = [SummerHideAndSeekHeuristic(context, seed=seed + i) for i in range(num_players)]
    checker = GameChecker(env.game)
    for g in range(num_games):
        env.reset(seed=seed + g)
        checker.start(env.game_state)
        for agent in env.agent_iter():
            obs, _r, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            checker.before(env.game_state)
            env.step(agents[int(agent.split("_")[1])].act(obs))
            checker.after(env.game_state)
        checker.finish(env.game_state)
    return checker.belief_checks


@pytest.mark.parametrize("name,num_players,strict", CONFIGS)
def test_random_play_fuzz(name, num_players, strict):
    checks, steps = fuzz_random(name, num_players, strict, num_games=60, seed=num_players)
    assert steps > 0 and (strict or checks > 100)


@pytest.mark.parametrize("name", list(VERSIONS))
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_heuristic_play_keeps_the_belief_sound(name, num_players):
    assert fuzz_heuristic(name, num_players, False, num_games=4, seed=10 * num_players) > 20


@pytest.mark.slow
@pytest.mark.parametrize("name,num_players,strict", CONFIGS)
def test_random_play_fuzz_thousands(name, num_players, strict):
    fuzz_random(name, num_players, strict, num_games=1500, seed=1000 + num_players)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VERSIONS))
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_heuristic_play_keeps_the_belief_sound_many(name, num_players):
    fuzz_heuristic(name, num_players, False, num_games=350, seed=5000 + num_players)
