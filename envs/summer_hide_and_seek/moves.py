"""Summer Hide-and-Seek: every move in the words a viewer may know (``public_action_string``).

The child's lines and start square are the child's alone: the others learn
only that the child acted, then the announcement at the end of its turn
(total cost and icon types, with the VP they score). Seekers' pieces are
public, and so is the end of a round: who found the child where (or that it
was stuck) and the revealed stroke.
"""

from __future__ import annotations

from kakurega.envs.summer_hide_and_seek.rules import CHILD, FOUND_BY_GUESS, OVER, SEEK, START


class _Words:
    """The words of one move for one viewer."""

    def __init__(self, game, before, action: int, after, viewer: int | None):
        self.game, self.before, self.action, self.after, self.viewer = game, before, action, after, viewer
        self.actor = game.current_player(before)
        self.kind, self.square = game.describe_action(action)

    def who(self, seat: int) -> str:
        return "you" if seat == self.viewer else f"player_{seat}"

    def icons(self, icons) -> str:
        names = [self.game.map.icons[i].name for i in icons]
        return ", ".join(names) if names else "no icon"

    def square_name(self, square: int) -> str:
        return self.game.map.square_name(square)

    def sentences(self) -> list[str]:
        game, before, after, actor = self.game, self.before, self.after, self.actor
        words = []
        if before.phase in (START, CHILD):
            words.append(self._child_move())
            if after.round == before.round and len(after.announcements) > len(before.announcements):
                cost, icons = after.announcements[-1]
                gained = sum(game.map.icons[i].vp for i in icons)
                words.append(f"{self.who(actor)} (the child) announce{'' if actor == self.viewer else 's'} "
                             f"cost {cost} and icons: {self.icons(icons)} (+{gained} VP)")
        elif before.phase == SEEK:
            words.append(f"{self.who(actor)} place{'' if actor == self.viewer else 's'} a piece on "
                         f"{game.map.describe_square(self.square)}")
            if after.round == before.round and after.phase == CHILD:
                words.append("the child is not found; the pieces stay until the next seekers' turn")
        if after.round > before.round:
            words += self._round_end()
        if game.is_truncated(after) and not game.is_truncated(before):
            words.append(f"the step limit ({game.max_steps}) is reached: the game is cut off")
        return words

    def _child_move(self) -> str:
        """The child's own decision: in full to the child, only that it acted to everyone else."""
        actor, kind = self.actor, self.kind
        if self.viewer == actor:
            words = "you " + self.game.action_to_string(self.before, self.action)
            if kind == "line" and self.game.icon_of[self.square] >= 0:
                words += f" (reaching {self.icons([self.game.icon_of[self.square]])})"
            return words
        if kind == "start":
            return f"player_{actor} (the child) chooses a secret start square"
        return f"player_{actor} (the child) acts in secret"

    def _round_end(self) -> list[str]:
        """The round just ended: how the child was found, the revealed stroke, and who is next."""
        after = self.after
        child, stroke, gained, turns, how = after.history[-1]
        name = self.who(child)
        end = self.square_name(stroke[-1])
        if how == FOUND_BY_GUESS:
            finders = [self.who(s) for s, piece in enumerate(self._last_pieces()) if piece == stroke[-1]]
            words = [f"{' and '.join(finders)} found the child ({name}) on {end}"]
        else:
            words = [f"{name} (the child) {'are' if child == self.viewer else 'is'} stuck on {end}: "
                     "that counts as found"]
        path = " -> ".join(self.square_name(s) for s in stroke)
        words.append(f"round over after {turns} child turn(s), {gained} VP to {name}; the stroke: {path}")
        if after.phase == OVER:
            standings = ", ".join(f"{self.who(s)} {vp}" for s, vp in enumerate(after.vp))
            winners = " and ".join(self.who(s) for s in self.game.winners(after))
            words.append(f"the game ends: VP {standings}; most VP: {winners}")
        elif after.phase == START:
            words.append(f"{self.who(after.child)} {'are' if after.child == self.viewer else 'is'} the child now")
        return words

    def _last_pieces(self) -> list[int]:
        """Every seat's piece in the seekers' turn that just ended (the move placed the last one)."""
        pieces = list(self.before.pieces)
        pieces[self.actor] = self.square
        return pieces


def public_action_string(game, before, action: int, after, viewer: int | None) -> str:
    """``viewer``'s words for the move ``action`` from ``before`` to ``after`` (see the module docstring)."""
    return "; ".join(_Words(game, before, action, after, viewer).sentences())
