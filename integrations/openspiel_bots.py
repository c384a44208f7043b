"""OpenSpiel bots on the kakurega bridge: any kakurega agent spec as a ``pyspiel.Bot``, and IS-MCTS.

>>> import pyspiel
>>> from kakurega.integrations.openspiel_bots import ISMCTSBot, KakuregaBot
>>> game = pyspiel.load_game("python_kakurega_animal_chain")
>>> bots = [KakuregaBot(game, 0, "heuristic", seed=0), ISMCTSBot.with_random_rollouts(game, simulations=50, seed=1)]
>>> returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)  # doctest: +SKIP

:class:`KakuregaBot` hands its agent what kakurega's own runners hand it: the
seat's observation dict and, for an agent that searches, a sampler of worlds
consistent with that seat's information state (built with a rules object of
the bot's own). Nothing else of the OpenSpiel state reaches the agent.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kakurega.agents.base import AgentContext
from kakurega.agents.specs import make_agent
from kakurega.envs.core.game import DeterminizationSampler
from kakurega.envs.registry import make


class KakuregaBot(pyspiel.Bot):
    """A kakurega agent (any spec: ``heuristic``, ``policy:PATH``, ``ismcts:...``) playing one seat."""

    def __init__(self, game, player: int, spec: str, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        shared = game.shared
        self._env = make(shared.env_name, wrapped=False, **shared.env_kwargs)  # its own encoder, never the game's
        self._rules = shared.game.new_rules()  # its own rules: its caches see only this seat's information
        self.player = int(player)
        self.agent = make_agent(spec, AgentContext.from_env(self._env, shared.env_name, shared.env_kwargs), seed)

    def step(self, state) -> int:
        """The agent's move from this seat's observation of ``state``."""
        seat = state.current_player()
        if seat != self.player:
            raise ValueError(f"KakuregaBot plays seat {self.player}; the state waits for player {seat}")
        mask = np.zeros(state.shared.game.num_actions, np.int8)
        mask[state.legal_actions()] = 1
        observation = {"observation": np.array(self._env.encode(state.state, seat), np.float32), "action_mask": mask}
        if not self.agent.wants_sampler:
            return int(self.agent.act(observation))
        # the game's rules canonicalise the true state into this seat's information state
        information_state = state.shared.game.resample_hidden(state.state, seat, np.random.default_rng(0))
        return int(self.agent.act(observation, DeterminizationSampler(self._rules, information_state, seat)))

    def restart_at(self, state) -> None:
        """A new game: the agent forgets the last one."""
        self.agent.reset()

    def inform_action(self, state, player_id, action) -> None:
        """Other players' moves reach the agent through its next observation only."""

    def provides_policy(self) -> bool:
        return False


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's IS-MCTS, with the ``restart_at`` that ``pyspiel.evaluate_bots`` calls before each game."""

    @classmethod
    def with_random_rollouts(cls, game, simulations: int = 100, seed: int = 0, uct_c: float = 2.0, rollouts: int = 1):
        """IS-MCTS with ``simulations`` per move and random-rollout values; the same ``seed`` plays the same moves.

        OpenSpiel's bot draws its worlds with ``pyspiel.UniformProbabilitySampler``, which the OS seeds: the
        worlds here are drawn from the bot's own seeded generator instead.
        """
        random_state = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(rollouts, random_state)
        bot = cls(game, evaluator, uct_c=uct_c, max_simulations=simulations, random_state=random_state)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.uniform))
        return bot

    def restart_at(self, state) -> None:
        """Forget the search tree of the last game."""
        self.reset()

    def inform_action(self, state, player_id, action) -> None:
        """IS-MCTS searches afresh from each state it is asked about."""
