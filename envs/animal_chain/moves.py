"""Animal Chain: every move in the words a viewer may know (``AnimalChainGame.public_action_string``).

Plays and board takes are public (a played card lands face up); which card
a pass draws, which card a take or a play's face-down position gives to the
hand, and the base-building swaps are known to their player only. Positions
and cards are named in the viewer's own frame (player 0's for a spectator),
as the viewer's render names them.
"""

from __future__ import annotations

from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, OVER, PLAY


def second_person(verb: str) -> str:
    """``"passes"`` -> ``"pass"``, ``"draws"`` -> ``"draw"``, ``"is"`` -> ``"are"``, ``"has"`` -> ``"have"``."""
    if verb in ("is", "has"):
        return {"is": "are", "has": "have"}[verb]
    if verb.endswith("es") and verb[:-2].endswith(("s", "sh", "ch", "x")):
        return verb[:-2]
    return verb[:-1]


class _Words:
    """The words of one move for one viewer."""

    def __init__(self, game, before, action: int, after, viewer: int | None):
        self.game, self.before, self.after, self.viewer = game, before, after, viewer
        self.actor = before.to_move
        self.frame = 0 if viewer is None else viewer
        self.kind, self.card_type, self.where = game.decode(self.actor, action)

    def who(self, seat: int) -> str:
        return "you" if seat == self.viewer else f"player_{seat}"

    def does(self, seat: int, verb: str) -> str:
        """``"player_1 plays"`` or ``"you play"`` (``verb`` in the third person)."""
        if seat == self.viewer:
            return "you " + second_person(verb)
        return f"player_{seat} {verb}"

    def card(self, card_type: int) -> str:
        return self.game.card_in_frame(self.frame, card_type)

    def position(self, p: int) -> str:
        return self.game.position_name(self.frame, p)

    def own(self, card_type: int) -> str:
        """A card that went to the actor's hand: named to the actor only."""
        return self.card(card_type) if self.viewer == self.actor else "a card"

    def sentences(self) -> list[str]:
        game, before, after, actor = self.game, self.before, self.after, self.actor
        kind, where = self.kind, self.where
        words = []
        if kind in ("swap", "done") and before.phase == BUILD:
            words.append(self._building())
        elif kind == "play":
            words.append(f"{self.does(actor, 'plays')} {self.card(self.card_type)} onto {self.position(where)}")
            if before.face_down[where]:
                words.append(f"{self.does(actor, 'takes')} the face-down card there into the hand: "
                             f"{self.own(before.stacks[where][0])}")
            for q in game.neighbour_positions[where]:
                owner = before.double_owner[q]
                if owner != NO_SEAT and after.double_owner[q] == NO_SEAT:
                    words.append(f"the double of {self.who(owner)} at {self.position(q)} is cancelled")
            if after.double_owner[where] == actor:
                words.append(f"a double of {self.who(actor)}: the opponent may not play onto it")
            if after.winner == actor:
                loser = "your" if 1 - actor == self.viewer else f"player_{1 - actor}'s"
                words.append(f"the card lands on {loser} base row: {self.does(actor, 'wins')}")
        elif kind == "pass":
            if before.deck:
                words.append(f"{self.does(actor, 'passes')} and {'draw' if self.viewer == actor else 'draws'} "
                             f"{self.own(before.deck[-1])} from the deck")
            else:
                words.append(f"{self.does(actor, 'passes')} without drawing (no deck, no face-down card)")
                if after.phase == OVER:
                    words.append("two passes without drawing in a row: the game is a draw")
        elif kind == "take":
            words.append(f"{self.does(actor, 'passes')} and {'take' if self.viewer == actor else 'takes'} the "
                         f"face-down card at {self.position(where)} ({self.own(before.stacks[where][0])}); "
                         "the position is a hole now")
        if before.phase == PLAY and game.is_truncated(after):
            words.append(f"the turn limit ({game.max_turns}) is reached: the game is a draw")
        return words

    def _building(self) -> str:
        """A base-building decision: the swap in words to the builder, only its public part to others."""
        game, before, after, actor = self.game, self.before, self.after, self.actor
        if self.viewer == actor:
            if self.kind == "swap":
                words = (f"you swap {self.card(self.card_type)} from your hand with your base card "
                         f"{game.position_name(actor, game.own_base_in_frame[actor][self.where])}")
            else:
                words = ("you keep your base card" if game.per_position else "you are done building the base")
        elif game.per_position:
            words = f"player_{actor} decides on a base card (a secret swap or keep)"
        elif self.kind == "swap":
            words = f"player_{actor} works on the base (secret)"
        else:
            words = f"player_{actor} is done building the base"
        if after.phase == PLAY:
            first = after.first_player
            second = 1 - first
            drawn = before.deck[-1]
            extra = f": {self.card(drawn)}" if self.viewer == second else ""
            words += (f"; both bases turn face up; {self.does(first, 'plays')} first and "
                      f"{self.does(second, 'draws')} an extra card{extra}")
        elif after.to_move != actor:
            words += f"; player_{after.to_move} builds next"
        return words


def public_action_string(game, before, action: int, after, viewer: int | None) -> str:
    """``viewer``'s words for the move ``action`` from ``before`` to ``after`` (see the module docstring)."""
    return "; ".join(_Words(game, before, action, after, viewer).sentences())
