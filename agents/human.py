"""A person at the terminal, playing through the same agent protocol as every bot.

The agent never touches the env. Before each of its turns the runner hands it
the text picture of **its own view**, the names of its legal actions and the
moves its own view proves win at once (see :func:`show_view`);
:meth:`HumanAgent.act` prints them as a menu with stable keys (the action ids,
:mod:`~kakurega.agents.move_menu`), takes a single legal move without asking,
and asks until a key or the words of a move pick exactly one; ``rules`` (or
``help``, ``?``) at the prompt prints the game's rules page, then the table and
the moves again, and ``moves`` (``menu``, ``list``) the table and the moves.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.agents.move_menu import choose, grid_moves, menu_lines
from kakurega.envs.core.text_layout import wrap

#: answers at the prompt that print the rules page instead of playing a move
RULES_WORDS = ("rules", "help", "?")
#: answers that show the table and the moves again
MENU_WORDS = ("moves", "menu", "list")
#: answers that quit the game, once said twice in a row (the game is then abandoned, unrecorded)
QUIT_WORDS = ("q", "quit", "exit")


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
        self._notes: dict[int, str] = {}
        self._width: int | None = None

    def see(self, view_text: str, action_names: dict[int, str], notes: dict[int, str] | None = None,
            width: int | None = None) -> None:
        """Receive the table as this player sees it, the names of the legal actions and notes on some
        (e.g. ``"wins at once"``), and the columns the prompt's own words are wrapped to (None: no limit)."""
        self._view_text = view_text
        self._action_names = dict(action_names)
        self._notes = dict(notes or {})
        self._width = width

    def act(self, observation: dict, sampler=None) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if not legal:
            raise ValueError("HumanAgent.act: no legal action in the mask (is it this player's turn?)")
        names = {a: self._action_names.get(a, f"action {a}") for a in legal}
        if len(legal) == 1:
            for line in wrap(f"Your only move: {names[legal[0]]} (played for you).", self._width):
                self.output_fn(line)
            return legal[0]

        def show_moves():
            if self._view_text:
                self.output_fn(self._view_text)
            for line in wrap("Your moves (type a [key] or a move's words, e.g. a square; rules shows the rules, moves "
                             "this list again; q twice quits):", self._width):
                self.output_fn(line)
            for line in menu_lines(names, self._notes, width=self._width):
                self.output_fn(line)

        show_moves()
        in_grid = grid_moves(names, self._notes)
        while True:
            try:
                answer = self.input_fn("Your move: ")
            except EOFError:
                raise KeyboardInterrupt("input closed") from None
            if answer.strip().lower() in QUIT_WORDS:
                try:  # one slip of the keyboard ("exit" is a Hidden Rooms square's name) must not end the game
                    again = self.input_fn("Quit this game? Type q again to quit, anything else to go on: ")
                except EOFError:
                    raise KeyboardInterrupt("input closed") from None
                if again.strip().lower() in QUIT_WORDS:
                    raise KeyboardInterrupt("player quit")
                show_moves()
                continue
            if answer.strip().lower() in RULES_WORDS:
                self.output_fn(self._rules())
                show_moves()  # the page scrolled the table and the moves away
                continue
            if answer.strip().lower() in MENU_WORDS:
                show_moves()
                continue
            picked = choose(answer, names, in_grid)
            if isinstance(picked, int):
                return picked
            for line in wrap(picked, self._width):
                self.output_fn(line)


    def _rules(self) -> str:
        """The game's rules page (``kakurega rules GAME``), then how to go on."""
        from kakurega.envs.rules_pages import rules_page

        try:
            page = rules_page(self.context.env_name).rstrip()
        except (ValueError, OSError) as error:  # a game without a page: say so, keep playing
            page = f"(no rules page: {error})"
        return f"{page}\n\n(back to the game: your moves again below)"


def show_view(agent: Agent, env, agent_name: str, width: int | None = None) -> None:
    """If ``agent`` wants it, give it ``agent_name``'s own view, its legal actions by name and the
    moves that win at once (:meth:`~kakurega.envs.core.game.Game.winning_note`, from the mover's own view).

    ``width``: the columns the view must fit (``kakurega play`` passes its terminal's,
    :func:`~kakurega.envs.core.text_layout.terminal_width`); None: the view at its full width.
    Every runner that may seat a human calls this before :func:`~kakurega.agents.base.choose_action`.
    """
    if not getattr(agent, "wants_view", False):
        return
    raw = env.unwrapped
    names = {a: raw.action_to_string(a) for a in raw.legal_actions()}
    notes = {a: note for a in names if (note := raw.game.winning_note(raw.game_state, a))}
    view = raw.render_text(agent_name, width=width)
    if width is None:  # an agent of one's own with ``wants_view`` may take no width
        agent.see(view, names, notes)
    else:
        agent.see(view, names, notes, width=width)
