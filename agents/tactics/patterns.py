"""The tactics patterns: positions where a move is provably right or provably a blunder, by the rules.

Each :class:`Pattern` has a ``find(game, state)`` that looks at a position
where some seat is to act and returns a :class:`Claim` (the right moves,
``good``, or the blunders, ``bad``, with the reason in words) or None, and a
``confirm`` that checks the claim for one move in one full state. Both work
through the rules engine: a move is applied to a copy of the state and the
outcome is read.

Hidden information: a claim counts only if it holds in every hidden state
consistent with what the player to act knows. Each pattern derives its claim
from public facts, the player's own cards and the cards it has located, and
says why nothing else matters (below). :func:`verify` checks that too: in
``samples`` determinizations drawn for the player (the env's
``resample_hidden``) ``find`` must give the very same claim, and every
claimed move must be confirmed there as in the true state.

=========================  ====  ===============================================================
pattern                    kind  claim
=========================  ====  ===============================================================
animal_chain win_now       good  a play onto the opponent's base row wins at once
animal_chain stop_win      bad   after the move the opponent surely holds a card that wins at once
                                 (pigeonhole: fewer cards it could hold cannot win than it holds)
hidden_rooms escape_now    good  the step onto the exit escapes at once
hidden_rooms avoid_capture bad   whatever else the child does this turn, the monster catches it
                                 (the monster is deterministic; searching moves nobody)
kakurenbo curse_win        good  the Curse give ends the game at once, the giver the sole winner
kakurenbo curse_loss       bad   the Curse give ends the game at once with the giver among the losers,
                                 while another give surely keeps the game going
kakurenbo take_loss        bad   Kurayami, the dice take: holding the Curse and one card, taking its
                                 located partner (the victim's only card of that colour) leaves the
                                 taker with the Curse alone, another player (with an empty hand) the
                                 winner; the other colour keeps the game going
summer seek_certain        good  the public belief is one square: a piece there finds the child
                                 (the child's VP only grow while it is hidden; with several seekers,
                                 no earlier piece of the turn is there)
summer child_stuck         bad   the line leaves the child stuck (found at once), while another line
                                 or stop is not stuck and reaches at least as many VP (no position of
                                 the last round once the child has won whatever happens)
=========================  ====  ===============================================================

The two Summer patterns are the proofs of
:mod:`kakurega.agents.heuristics.summer_dominance`, which the game's move
features share to prune a bot's dominated moves; the patterns add only the
exclusion of decided positions.

Kurayami has no "wins at once" pattern: a dice take ends the game with the
taker among the winners only when the victim holds the Curse and one card
(:mod:`kakurega.envs.kakurenbo.winning`), and then that card's colour is the
only legal take, so the position offers no choice to get right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Claim:
    """What a pattern found: ``kind`` "good" or "bad", the moves, and why."""

    kind: str
    moves: tuple
    reason: str


@dataclass(frozen=True)
class Pattern:
    """A tactic of one game: ``find(game, state) -> Claim | None``, ``confirm(game, state, seat, move, rng) -> problem | None``."""

    game: str
    name: str
    kind: str
    find: Callable
    confirm: Callable
    summary: str


def _names(game, state, moves) -> str:
    return "; ".join(game.action_to_string(state, a) for a in moves)


def _agent(seat: int) -> str:
    return f"player_{seat}"


# ---------------------------------------------------------------- Animal Chain
def _ac_wins(game, state, seat: int, legal) -> list[int]:
    """The plays of ``legal`` onto the opponent's base row (each wins at once)."""
    wins = []
    for action in legal:
        kind, _card, where = game.decoded[seat][action]
        if kind == "play" and game.base_owner[where] == 1 - seat:
            wins.append(action)
    return wins


def _ac_win_now(game, state) -> Claim | None:
    from kakurega.agents.heuristics.animal_chain_sure_wins import dominated

    seat = game.current_player(state)
    legal = game.legal_actions(state)
    wins = _ac_wins(game, state, seat, legal)
    if not dominated(wins, (), legal):  # no win, or every legal move wins
        return None
    opponent = _agent(1 - seat)
    return Claim("good", tuple(wins), f"a play onto {opponent}'s base row wins at once: {_names(game, state, wins)}")


def _ac_confirm_win(game, state, seat, action, rng) -> str | None:
    after = game.clone(state)
    game.apply_action(after, action, rng)
    return None if game.is_terminal(after) and after.winner == seat else "the play does not win at once"


def _ac_unseen(game, state, seat: int) -> list[int]:
    """Per card type, the cards ``seat`` has not seen: the deck minus every face-up card and its own hand."""
    unseen = list(game.deck.copies)
    for p, stack in enumerate(state.stacks):
        if not state.face_down[p]:
            for card in stack:
                unseen[card] -= 1
    for t, count in enumerate(state.hands[seat]):
        unseen[t] -= count
    return unseen


def _ac_winning_types(game, after, opponent: int) -> int:
    """The card types (a bitmask) that would give ``opponent`` (to move in ``after``) a play onto the other
    base row."""
    probe = game.clone(after)
    probe.hands[opponent] = [1] * game.num_types  # legality of a play depends on the board and the card only
    winning = 0
    for kind, card, where in (game.decoded[opponent][a] for a in game.legal_actions(probe)):
        if kind == "play" and game.base_owner[where] == 1 - opponent:
            winning |= 1 << card
    return winning


def _ac_handed(game, state, unseen) -> dict[int, int]:
    """``{move: unseen cards outside the winning types}`` for the legal moves of ``state`` after which the
    opponent, to move, surely holds a card that wins at once, its hand being among ``unseen`` (counts per
    card type; :mod:`kakurega.agents.heuristics.animal_chain_sure_wins`)."""
    from kakurega.agents.heuristics.animal_chain_sure_wins import surely_holds, unseen_outside

    opponent = 1 - game.current_player(state)
    held = sum(state.hands[opponent])
    rng = np.random.default_rng(0)  # a draw changes only the mover's hand, never what the opponent can play
    handed = {}
    for action in game.legal_actions(state):
        after = game.clone(state)
        game.apply_action(after, action, rng)
        if game.current_player(after) != opponent:
            continue
        winning = _ac_winning_types(game, after, opponent)
        if surely_holds(winning, unseen, held):
            handed[action] = unseen_outside(winning, unseen)
    return handed


def _ac_stop_win(game, state) -> Claim | None:
    from kakurega.agents.heuristics.animal_chain_sure_wins import dominated

    seat = game.current_player(state)
    legal = game.legal_actions(state)
    if state.phase != 1 or _ac_wins(game, state, seat, legal):
        return None
    opponent = 1 - seat
    held = sum(state.hands[opponent])
    handed = _ac_handed(game, state, _ac_unseen(game, state, seat))
    bad = dominated((), handed, legal)
    if not bad:
        return None
    worst = max(handed[a] for a in bad)
    name = _agent(opponent)
    return Claim("bad", tuple(bad), f"after {_names(game, state, bad)} {name} surely holds a card that plays onto your "
                 f"base row at once: it holds {held} cards and at most {worst} of the cards you have not seen could "
                 "not; another move avoids it")


def _ac_confirm_stop(game, state, seat, action, rng) -> str | None:
    after = game.clone(state)
    game.apply_action(after, action, rng)
    opponent = 1 - seat
    if game.current_player(after) != opponent:
        return "the game does not go on to the opponent"
    if not _ac_wins(game, after, opponent, game.legal_actions(after)):
        return "the opponent has no winning play after the move"
    return None


# ---------------------------------------------------------------- Hidden Rooms
def _hr_outcomes(game, state, action, rng) -> set[str]:
    """How the child's current turn can end after ``action``, over every way to finish its moves: "caught",
    "escaped", "alive"... (a step onto the exit ends the round at once: "escaped").

    Searching and placing move neither the child nor the monster, so the turn is
    finished without searching.
    """
    from kakurega.envs.hidden_rooms import rules as hr

    results, turn, rounds = len(state.results), state.turn, state.rounds
    names = {hr.ESCAPED: "escaped", hr.CAUGHT: "caught", hr.MONSTER_EXITED: "exited", hr.TURN_LIMIT: "turn limit"}

    def walk(s) -> set[str]:
        if len(s.results) > results:
            return {names[s.results[results]]}
        if s.turn > turn or s.rounds > rounds:
            return {"alive"}
        if s.phase == hr.MOVE:
            found = set()
            for action in game.legal_actions(s):
                found |= walk(_hr_after(game, s, action, rng))
            return found
        return walk(_hr_after(game, s, hr.NO_SEARCH if s.phase == hr.SEARCH else hr.DECLINE, rng))

    return walk(_hr_after(game, state, action, rng))


def _hr_after(game, state, action, rng):
    after = game.clone(state)
    game.apply_action(after, action, rng)
    return after


def _hr_escape_now(game, state) -> Claim | None:
    from kakurega.envs.hidden_rooms import rules as hr

    if state.phase != hr.MOVE:
        return None
    escapes = [a for a in game.legal_actions(state) if a < hr.STOP_MOVING and hr.NEIGHBOURS[state.child][a] == hr.EXIT_CELL]
    if not escapes:
        return None
    return Claim("good", tuple(escapes), f"{_names(game, state, escapes)} is the exit: the child escapes at once")


def _hr_confirm_escape(game, state, seat, action, rng) -> str | None:
    after = _hr_after(game, state, action, rng)
    return None if after.escapes == state.escapes + 1 else "the step does not escape"


def _hr_avoid_capture(game, state) -> Claim | None:
    from kakurega.envs.hidden_rooms import rules as hr

    if state.phase != hr.MOVE:
        return None
    rng = np.random.default_rng(0)
    bad, saving = [], []
    for action in game.legal_actions(state):
        outcomes = _hr_outcomes(game, state, action, rng)
        if outcomes == {"caught"}:
            bad.append(action)
        elif outcomes & {"alive", "escaped"}:
            saving.append(action)
    if not bad or not saving:
        return None
    return Claim("bad", tuple(bad), f"after {_names(game, state, bad)} the monster catches the child in its next phase "
                 f"whatever else the child does this turn (the monster's moves are public and fixed); "
                 f"{_names(game, state, saving)} can keep the round going")


def _hr_confirm_capture(game, state, seat, action, rng) -> str | None:
    outcomes = _hr_outcomes(game, state, action, rng)
    return None if outcomes == {"caught"} else f"the turn can end {sorted(outcomes)}, not only caught"


# ------------------------------------------------------------------- KAKURENBO
def _kk_outcome(game, state, action) -> str:
    """"win" (sole winner), "tie", "loss" (another seat wins), "no winner" when ``action`` ends the game; "on"
    when the game goes on.

    "no winner": a Kurayami game that ends with no empty hand; every seat then
    gets the same (0 with zero-sum rewards), which is more than a loss.
    """
    seat = state.actor
    after = game.clone(state)
    # a Curse give draws no chance; a take asked about ends alike whichever card of its colour it draws
    game.apply_action(after, action, np.random.default_rng(0))
    if not after.over:
        return "on"
    winners = game.winners(after)
    if not winners:
        return "no winner"
    if winners == [seat]:
        return "win"
    return "tie" if seat in winners else "loss"


def _kk_sure_outcomes(game, state, samples: int = 24) -> dict[int, str] | None:
    """The outcome of every legal Curse give, when the same in the true state and in ``samples`` determinizations.

    A give's outcome depends on the receiver's hand (what the given card pairs
    with) and on public facts (scores, hand counts); a give counts as sure only
    when the receiver's whole hand is located by the giver, and it is also
    checked in the determinizations. Gives whose outcome is not sure are left out.
    """
    from kakurega.envs.kakurenbo import rules as kr

    if game.kurayami or state.stage != kr.CURSE_GIVE or state.over:
        return None
    seat, n = state.actor, game.num_players
    row = game.known_row(state, seat)
    outcomes = {a: _kk_outcome(game, state, a) for a in game.legal_actions(state)}
    rng = np.random.default_rng(1)
    samples_states = [game.resample_hidden(state, seat, rng) for _ in range(samples)]
    sure = {}
    for action, outcome in outcomes.items():
        receiver = (seat + game.decode[action][2]) % n
        held = state.colour_counts[2 * receiver] + state.colour_counts[2 * receiver + 1]
        if outcome != "on" and row.count(receiver) != held:
            continue
        if all(_kk_outcome(game, sample, action) == outcome for sample in samples_states):
            sure[action] = outcome
    return sure


def _kk_curse_win(game, state) -> Claim | None:
    sure = _kk_sure_outcomes(game, state)
    if not sure:
        return None
    wins = tuple(a for a, outcome in sure.items() if outcome == "win")
    if not wins or len(wins) == len(game.legal_actions(state)):
        return None
    return Claim("good", wins, f"{_names(game, state, wins)} leaves the receiver with the Curse alone: the game ends at once "
                 "and you are its sole winner")


def _kk_curse_loss(game, state) -> Claim | None:
    sure = _kk_sure_outcomes(game, state)
    if not sure:
        return None
    losses = tuple(a for a, outcome in sure.items() if outcome == "loss")
    going_on = [a for a, outcome in sure.items() if outcome == "on"]
    if not losses or not going_on:
        return None
    return Claim("bad", losses, f"{_names(game, state, losses)} ends the game at once (the receiver is left with the Curse "
                 f"alone) with you among the losers; {len(going_on)} other give(s) surely keep the game going")


def _kk_take_loss(game, state) -> Claim | None:
    """Kurayami, a dice take whose end the taker knows: the Curse alone in its own hand.

    A take ends the game only if a hand is left as the Curse alone: the
    victim's (it held the Curse and one card; that colour is then the only
    legal take) or the taker's, when it holds the Curse and one card X and
    takes X's partner (discarded at once). The taker knows the take is that
    partner when it has located the partner in the victim's hand, which holds
    no other card of its colour. The other colour brings a card of X's own
    colour, which pairs with nothing in the taker's hand, so the game goes on.
    The end is a loss only if some hand is empty (public): a game that ends
    with none has no winner and pays every seat alike, so that take is no blunder.
    """
    from kakurega.envs.kakurenbo import rules as kr

    if not game.kurayami or state.stage != kr.DICE_TAKE or state.over:
        return None
    seat, victim = state.actor, state.target
    body = [card for card in state.hands[seat] if card != kr.CURSE]
    if state.curse_holder != seat or len(body) != 1:
        return None
    partner = body[0] ^ 1
    colour = partner & 1
    if game.known_row(state, seat)[partner] != victim or state.colour_counts[2 * victim + colour] != 1:
        return None
    legal = game.legal_actions(state)
    losses = tuple(a for a in legal if game.decode[a][1] == colour)
    going_on = [a for a in legal if a not in losses]
    if not going_on or any(_kk_outcome(game, state, a) != "on" for a in going_on):
        return None
    if any(_kk_outcome(game, state, a) != "loss" for a in losses):  # no empty hand: nobody wins, nobody loses
        return None
    return Claim("bad", losses, f"{_names(game, state, losses)} takes {kr.card_name(partner)}, the partner of your "
                 f"one card besides the Curse (located there, the only card of its colour in that hand): the pair is "
                 f"discarded at once and you are left with the Curse alone: the game ends, won by a player with an "
                 f"empty hand, you among the losers; "
                 f"{_names(game, state, going_on)} keeps the game going")


def _kk_confirm(expected: str):
    def confirm(game, state, seat, action, rng) -> str | None:
        outcome = _kk_outcome(game, state, action)
        return None if outcome == expected else f"the give ends as {outcome!r}, not {expected!r}"

    return confirm


# ----------------------------------------------------------- Summer Hide-and-Seek
def _su_decided(game, state) -> bool:
    """True in the last round when the player to act can no longer change its own result.

    Only the child scores in the last round. Once its VP (this turn's icons
    included) exceed everyone else's it wins whatever happens; and a seeker
    behind another seeker loses whatever happens. Then no move of the player
    is better than another and the position proves nothing.
    """
    if state.round != game.num_players - 1:
        return False
    child_vp = state.vp[state.child] + sum(game.map.icons[i].vp for i in state.turn_icons)
    if all(child_vp > vp for seat, vp in enumerate(state.vp) if seat != state.child):
        return True
    me = game.current_player(state)
    return me != state.child and any(state.vp[me] < vp for seat, vp in enumerate(state.vp)
                                     if seat not in (me, state.child))


def _su_seek_certain(game, state) -> Claim | None:
    from kakurega.agents.heuristics.summer_dominance import sure_find
    from kakurega.envs.summer_hide_and_seek import rules as su

    if state.phase != su.SEEK or _su_decided(game, state):
        return None
    action = sure_find(game, state.belief, sum(1 << s for s in set(state.pieces) if s >= 0))
    if action is None:  # not one square, or an earlier seeker of this turn already covers it
        return None
    return Claim("good", (action,), f"the public belief holds one square, so the child is there: "
                 f"{game.action_to_string(state, action)} finds it")


def _su_confirm_seek(game, state, seat, action, rng) -> str | None:
    square = action - game.place_base
    return None if state.stroke and state.stroke[-1] == square else "the child is not on the placed square"


def _su_line(game, state, action, rng):
    """The state after the child's line ``action`` (and the forced continue after a shortcut)."""
    after = game.clone(state)
    game.apply_action(after, action, rng)
    if after.continue_due:
        game.apply_action(after, game.continue_action, rng)
    return after


def _su_child_stuck(game, state) -> Claim | None:
    from kakurega.agents.heuristics.summer_dominance import stuck_lines
    from kakurega.envs.summer_hide_and_seek import rules as su

    if state.phase != su.CHILD or state.continue_due or _su_decided(game, state):
        return None
    bad, best_free = stuck_lines(game, state.stroke[-1], state.visited, state.drawn, state.blocked,
                                 game.legal_actions(state))
    if not bad:
        return None
    return Claim("bad", bad, f"after {_names(game, state, bad)} the child has no legal line left: it is stuck and counts as "
                 f"found at once, while another choice leaves it a legal line and reaches at least as many VP "
                 f"({best_free}) this turn")


def _su_confirm_stuck(game, state, seat, action, rng) -> str | None:
    from kakurega.envs.summer_hide_and_seek import rules as su

    after = _su_line(game, state, action, rng)
    if after.round > state.round and after.history[-1][4] == su.FOUND_STUCK:
        return None
    return "the child is not stuck after the line"


PATTERNS: tuple[Pattern, ...] = (
    Pattern("animal_chain", "win_now", "good", _ac_win_now, _ac_confirm_win,
            "a play onto the opponent's base row wins at once"),
    Pattern("animal_chain", "stop_win", "bad", _ac_stop_win, _ac_confirm_stop,
            "a move after which the opponent surely holds a card that wins at once"),
    Pattern("hidden_rooms", "escape_now", "good", _hr_escape_now, _hr_confirm_escape,
            "step onto the exit: escape now"),
    Pattern("hidden_rooms", "avoid_capture", "bad", _hr_avoid_capture, _hr_confirm_capture,
            "a move after which the monster catches the child for sure"),
    Pattern("kakurenbo", "curse_win", "good", _kk_curse_win, _kk_confirm("win"),
            "a Curse give that ends the game with the giver the sole winner"),
    Pattern("kakurenbo", "curse_loss", "bad", _kk_curse_loss, _kk_confirm("loss"),
            "a Curse give that ends the game with the giver among the losers"),
    Pattern("kakurenbo", "take_loss", "bad", _kk_take_loss, _kk_confirm("loss"),
            "Kurayami: a dice take that leaves the taker with the Curse alone"),
    Pattern("summer_hide_and_seek", "seek_certain", "good", _su_seek_certain, _su_confirm_seek,
            "the public belief is one square: place the piece there"),
    Pattern("summer_hide_and_seek", "child_stuck", "bad", _su_child_stuck, _su_confirm_stuck,
            "a line that leaves the child stuck (found) when another choice does not"),
)


def game_of(env_name: str) -> str:
    """``"animal_chain_v1"`` -> ``"animal_chain"``."""
    return env_name.rpartition("_v")[0] or env_name


def patterns_of(env_name: str) -> list[Pattern]:
    """The patterns of ``env_name``'s game."""
    return [p for p in PATTERNS if p.game == game_of(env_name)]


def pattern(env_name: str, name: str) -> Pattern:
    """The pattern ``name`` of ``env_name``'s game; a ``ValueError`` listing the known ones otherwise."""
    for candidate in patterns_of(env_name):
        if candidate.name == name:
            return candidate
    known = ", ".join(p.name for p in patterns_of(env_name)) or "none"
    raise ValueError(f"no tactics pattern {name!r} for {env_name}; its patterns: {known}")


def verify(env_name: str, position, samples: int = 8, seed: int = 0, envs: dict | None = None) -> list[str]:
    """Problems with ``position``'s claim, re-derived through the rules ([] when it holds).

    Replays the position and runs its pattern again: in the true state and in
    ``samples`` determinizations drawn for the player to act, the claim must
    come out identical to the stored one, and every claimed move must be
    confirmed by playing it. ``envs``: see :func:`~kakurega.agents.tactics.suite.replay`.
    """
    from kakurega.agents.tactics.suite import SuiteError, replay

    try:
        env = replay(env_name, position, envs)
        found = pattern(env_name, position.category)
    except (SuiteError, ValueError) as error:
        return [str(error)]
    game, state = env.game, env.game_state
    seat = game.current_player(state)
    illegal = [a for a in position.claimed if a not in set(game.legal_actions(state))]
    if illegal:
        return [f"{position.id}: the claimed action(s) {illegal} are not legal at the position"]
    rng = np.random.default_rng(seed)
    states = [state] + [game.resample_hidden(state, seat, rng) for _ in range(samples)]
    problems = []
    for index, sample in enumerate(states):
        where = "the true state" if index == 0 else f"determinization {index}"
        claim = found.find(game, sample)
        if claim is None:
            problems.append(f"{position.id}: in {where} the {position.category} pattern does not hold")
            continue
        if claim.kind != position.kind or sorted(claim.moves) != sorted(position.claimed):
            problems.append(f"{position.id}: in {where} the rules give {claim.kind} {sorted(claim.moves)}, the "
                            f"suite says {position.kind} {sorted(position.claimed)}")
        for action in position.claimed:
            problem = found.confirm(game, sample, seat, action, np.random.default_rng(index))
            if problem:
                problems.append(f"{position.id}: {game.action_to_string(sample, action)} in {where}: {problem}")
    return problems


def reverified_in(suite, env_name: str, samples: int = 2):
    """``suite`` replayed in ``env_name``, another version of its game: ``(suite, left_out)``.

    A position is kept only if its claim re-verifies in that env (same moves,
    same claim); ``left_out`` counts the others. How a version scores a game
    does not change these claims, so a version with the same rules keeps them all.
    """
    from dataclasses import replace

    if game_of(env_name) != game_of(suite.env):
        raise ValueError(f"{suite.source} holds positions of {suite.env}, not of {env_name}'s game")
    envs: dict = {}
    kept = [p for p in suite.positions if not verify(env_name, p, samples=samples, envs=envs)]
    if not kept:
        raise ValueError(f"no position of {suite.source} ({suite.env}) re-verifies in {env_name}")
    return replace(suite, env=env_name, positions=kept), len(suite.positions) - len(kept)
