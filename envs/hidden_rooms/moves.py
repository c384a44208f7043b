"""Hidden Rooms: every move in words, with the monster's phase that follows it (``public_action_string``).

The child sees the whole table but the pile's order, so the words tell the
child's action in full (the tile drawn, where it went), then what happened
by itself: the monster's steps (and whether it chased), the end of a round
and the score, the next round's monster. A spectator gets the same words.
The first round's monster, which appears and moves before any decision, is
told by ``opening_words``.
"""

from __future__ import annotations

from kakurega.envs.hidden_rooms.rules import (
    CAUGHT,
    DECLINE,
    ESCAPED,
    MEMORY_CAPACITY,
    MONSTER_EXITED,
    NEIGHBOURS,
    NO_SEARCH,
    OVER,
    PLACE,
    PLACING,
    SEARCH_MEMORY,
    SEARCH_PILE,
    START_CELL,
    STEP,
    STOP_MOVING,
    coords,
    tile_name,
)

#: how a round ended, said of "you" and of "the child"
_OUTCOMES = {
    ESCAPED: ("you reach", "the child reaches", "the way out: an escape"),
    CAUGHT: ("you are", "the child is", "caught by the monster: a fail"),
    MONSTER_EXITED: ("you are", "the child is", "left behind: the monster walked its whole path (a fail)"),
}
_TURN_LIMIT = ("you run", "the child runs", "out of turns: the turn limit is reached (a fail)")


class _Words:
    """The words of one move for one viewer (the child, seat 0, or a spectator)."""

    def __init__(self, game, before, action: int, after, viewer: int | None):
        self.game, self.before, self.action, self.after = game, before, action, after
        self.child = "you" if viewer == 0 else "the child"

    def says(self, verb: str) -> str:
        """``"you step"`` or ``"the child steps"`` (``verb`` in the first person)."""
        return f"{self.child} {verb}" if self.child == "you" else f"the child {verb}s"

    def sentences(self) -> list[str]:
        before, after, action = self.before, self.after, self.action
        words = [self._action()]
        child_cell = before.child
        if STEP <= action < STEP + 4:
            child_cell = NEIGHBOURS[before.child][action - STEP]
        outcomes = after.results[len(before.results):]
        # the monster of this round moved when the turn went on, or when it ended the round
        if (outcomes and outcomes[0] in (CAUGHT, MONSTER_EXITED)) or (
                not outcomes and after.turn != before.turn):
            words.append(self._monster(before.monster, before.monster_cell, before.progress, child_cell,
                                       before.chasing))
        for outcome in outcomes:
            you, child, ending = _OUTCOMES.get(outcome, _TURN_LIMIT)
            words.append(f"{you if self.child == 'you' else child} {ending}")
        if outcomes:
            words.append(f"escapes {after.escapes}, fails {after.fails}")
        if after.phase == OVER:
            won = after.escapes > before.escapes if self.game.episode == "round" else after.escapes >= 2
            words.append("the " + self.game.episode + (" is won" if won else " is lost"))
        elif after.rounds > before.rounds:
            words += self.round_start(after)
        return words

    def round_start(self, state) -> list[str]:
        """The round of ``state`` begins: its monster appears and, once the first turn began, takes its phase."""
        monster = self.game.monsters[state.monster]
        start = self.game.paths[state.monster][0]
        words = [f"round {state.rounds}: the monster {monster.name} appears on {coords(start)}"]
        if state.turn:
            words.append(self._monster(state.monster, start, 0, START_CELL, False))
        return words

    def _action(self) -> str:
        before, after, action = self.before, self.after, self.action
        if STEP <= action < STEP + 4:
            return f"{self.says('step')} to {coords(NEIGHBOURS[before.child][action - STEP])}"
        if action == STOP_MOVING:
            return self.says("stop") + " moving"
        if action == NO_SEARCH:
            return self.says("do") + " not search" if self.child == "you" else "the child does not search"
        if action == SEARCH_PILE or SEARCH_MEMORY <= action < SEARCH_MEMORY + MEMORY_CAPACITY:
            from_pile = action == SEARCH_PILE
            tile = before.pile[-1] if from_pile else before.memory[action - SEARCH_MEMORY]
            words = f"{self.says('draw')} {tile_name(tile)} from the {'pile' if from_pile else 'memory area'}"
            if after.phase == PLACING and after.drawn == tile:
                return words + " (it can be placed)"
            if not from_pile:
                return words + ": it cannot be placed and stays in the memory area"
            return words + ": it cannot be placed; " + self._to_memory(tile)
        tile = before.drawn
        if PLACE <= action < PLACE + 4:
            return f"{self.says('place')} {tile_name(tile)} on {coords(NEIGHBOURS[before.child][action - PLACE])}"
        if action == DECLINE:
            if before.drawn_from_memory:
                return f"{self.says('decline')} to place {tile_name(tile)}: it goes back to the memory area"
            return f"{self.says('decline')} to place {tile_name(tile)}; " + self._to_memory(tile)
        return self.game.action_to_string(before, action)

    def _to_memory(self, tile: int) -> str:
        if len(self.before.memory) >= MEMORY_CAPACITY:
            return (f"the memory area is full: its {len(self.before.memory)} tiles and {tile_name(tile)} go back "
                    "into the pile, reshuffled")
        return f"{tile_name(tile)} goes to the memory area"

    def _monster(self, monster: int, cell: int, progress: int, child: int, chasing: bool) -> str:
        """The monster's phase in words, replayed from public facts (its rules are pure)."""
        game = self.game
        _cell, _progress, chased, _outcome, trail = game.monster_phase(monster, cell, progress, child, chasing)
        steps = " -> ".join(str(coords(c)) for c in [cell, *trail])
        return (f"the monster {game.monsters[monster].name} moves {steps}"
                + (f" (chasing {'you' if self.child == 'you' else 'the child'})" if chased else ""))


def opening_words(game, state, viewer: int | None) -> list[str]:
    """``viewer``'s words for what happened before the first decision: the first round's monster appears and takes
    the first turn's phase (what :func:`public_action_string` tells of every later round).

    The rules engine plays a booklet whose monster ends a round before any decision (the env refuses one:
    ``shaping.refuse_decided_rounds``): such rounds' lines (:func:`~kakurega.envs.hidden_rooms.results.round_words`)
    come first, then the round now played, if any.
    """
    from kakurega.envs.hidden_rooms.results import round_words

    words = round_words(game, state, viewer)
    if state.phase != OVER:
        words += _Words(game, state, -1, state, viewer).round_start(state)
    return words


def public_action_string(game, before, action: int, after, viewer: int | None) -> str:
    """``viewer``'s words for the move ``action`` from ``before`` to ``after`` (see the module docstring)."""
    return "; ".join(_Words(game, before, action, after, viewer).sentences())
