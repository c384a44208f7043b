"""A person at the terminal, playing through the same agent protocol as every bot.

The agent never touches the env. Before each of its turns the runner hands it
the text picture of **its own view** and the names of its legal actions (see
:func:`show_view`); :meth:`HumanAgent.act` prints them, lists the legal actions
with numbers and asks until it gets a valid choice.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.envs.core.safe_load import short_repr


class HumanAgent(Agent):
    """Reads a move from ``input_fn`` (``input()`` by default), re-asking on bad input."""

    #: runners call :meth:`see` with this agent's own view before asking it to act
    wants_view = True

    def __init__(
        self,
        context: AgentContext,
        seed: int | None = None,
        input_fn: Callable[[str], str] | None = None,
        output_fn: Callable[[str], None] | None = None,
    ):
        super().__init__(context, seed)
        # looked up at call time, so redirecting builtins.input / print works
        self.input_fn = input_fn or (lambda prompt: input(prompt))
        self.output_fn = output_fn or (lambda text: print(text))
        self._view_text = ""
        self._action_names: dict[int, str] = {}

    def see(self, view_text: str, action_names: dict[int, str]) -> None:
        """Receive the table as this player sees it and the names of the legal actions."""
        self._view_text = view_text
        self._action_names = dict(action_names)

    def act(self, observation: dict, sampler=None) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if not legal:
            raise ValueError("HumanAgent.act: no legal action in the mask (is it this player's turn?)")
        if self._view_text:
            self.output_fn(self._view_text)
        self.output_fn("Your legal actions:")
        for number, action in enumerate(legal, start=1):
            name = self._action_names.get(action, f"action {action}")
            self.output_fn(f"  {number:>3}. {name}")
        while True:
            try:
                answer = self.input_fn(f"Choose 1-{len(legal)} (or q to quit): ").strip()
            except EOFError:
                raise KeyboardInterrupt("input closed") from None
            if answer.lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt("player quit")
            # ASCII digits only: str.isdigit() also accepts '²' and other digits int() refuses
            if answer.isascii() and answer.isdigit() and len(answer) <= 9 and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            self.output_fn(f"{short_repr(answer, 40)} is not a choice; type a number from 1 to {len(legal)}.")


def show_view(agent: Agent, env, agent_name: str) -> None:
    """If ``agent`` wants it, give it ``agent_name``'s own view and its legal actions by name.

    Every runner that may seat a human calls this before :func:`~kakurega.agents.base.choose_action`.
    """
    if not getattr(agent, "wants_view", False):
        return
    raw = env.unwrapped
    names = {a: raw.action_to_string(a) for a in raw.legal_actions()}
    agent.see(raw.render_text(agent_name), names)
