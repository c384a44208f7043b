"""Cheap game-specific rollout policies for the IS-MCTS agent (``rollout=greedy``).

A rollout policy plays one move of a *simulated* game:
``policy(game, state, seat, legal, draw) -> action``, where ``state`` is the
rules state of a determinization (a world the search sampled, not the real
table), ``seat`` the seat to move, ``legal`` its sorted legal action ids and
``draw`` a ``random.Random().random``-like function for tie-breaks. Reading the
whole determinized state is legitimate here: it is the search's own
imagined world, drawn from what the searching player knows; the agent itself
only ever receives states from the env's sampler.

Each policy costs a few to ~100 microseconds (plain integer work on the
state, no copies, no encoding) and keeps the main rules of the game's heuristic:

* **Animal Chain**: build the base by single swaps that lower its exposure
  (the heuristic's measure: card types that could attack it), then done; win
  at once when a card can be played onto the opponent's base; under the chain
  rule, cover a card of the opponent's linked chain that has come within two
  rows of our base (cut the chain) when we can; otherwise half the time a play
  furthest up the board (towards the opponent), else any play; pass to draw
  now and then.
* **Hidden Rooms**: step onto the exit when possible; never end a step where
  the monster's next phase would catch the child, and avoid cells from which
  no one-step reply survives the phase after; otherwise step toward the exit;
  always search (memory tiles first when a cell toward the exit is open, else
  the pile) and place tiles toward the exit.
* **KAKURENBO**: discard a pair at once; give away a low card whose partner
  the receiver does not hold; take the colour of a card that completes one of
  our pairs; pass the Curse with a card that does not complete a pair for the
  receiver (or that scores for us). Kurayami: take the colour that completes a
  pair; other choices random.
* **Summer Hide-and-Seek**: the child draws lines to the highest-VP icon
  within reach, otherwise walks on (avoiding squares where it would be stuck)
  or stops (v1: at least one line per turn, and the forced continue after a
  shortcut); seekers place their pieces on squares of the public belief that
  no other seeker has covered this turn (uniformly: the heuristic's weights
  cost too much for a rollout).

Each game names its policy in its registry entry (``EnvSpec.rollout``,
``"module:function"``; a new game may keep its policy anywhere, e.g. beside
its heuristic); :func:`kakurega.agents.specs.load_rollout_policy` loads the
one of an env.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from kakurega.envs.animal_chain.rules import LEFT
from kakurega.envs.core.game import Game
from kakurega.envs.hidden_rooms import rules as hr
from kakurega.envs.kakurenbo import rules as kr
from kakurega.envs.summer_hide_and_seek import rules as sr
from kakurega.envs.summer_hide_and_seek.belief import iter_bits

Policy = Callable[[Game, object, int, list, Callable[[], float]], int]


def _pick(options: list, draw) -> int:
    return options[int(draw() * len(options))] if len(options) > 1 else options[0]


# ------------------------------------------------------------------ Animal Chain
#: chance that a rollout player with playable cards passes (and draws) instead
ANIMAL_CHAIN_PASS = 0.15


def animal_chain(game, state, seat: int, legal: list, draw) -> int:
    """Win now if possible; else a play weighted towards the opponent's base, or pass now and then."""
    play_base, pass_action = game.play_base, game.pass_action
    if legal[-1] <= game.done_action:
        return _animal_chain_build(game, state, seat, legal)
    P = game.num_positions
    first_enemy = P - game.base_size  # frame positions of the opponent's base row
    row_of = game.row_of
    best, best_row = [], -1
    # chain rule: the opponent's chain near our base (frame bits), cut first (lowest row first)
    danger = state.linked[1 - seat] & game.near_base_bits[seat] if game.chain_rule else 0
    cuts, cut_row = [], P
    for a in legal:
        if a < play_base or a >= pass_action:
            continue
        q = (a - play_base) % P
        if q >= first_enemy:
            return a  # onto the opponent's base: wins at once
        r = row_of[q]  # frame rows count from the mover's own base
        if danger and danger >> game.position_in_frame[seat][q] & 1 and r <= cut_row:
            if r < cut_row:
                cuts, cut_row = [], r
            cuts.append(a)
        if r > best_row:
            best, best_row = [a], r
        elif r == best_row:
            best.append(a)
    if cuts:
        return _pick(cuts, draw)
    if not best or draw() < ANIMAL_CHAIN_PASS:
        others = [a for a in legal if a >= pass_action]
        if others:
            return _pick(others, draw)
    if draw() < 0.5:  # half the time the most advanced play, else any play (keeps rollouts varied)
        return _pick(best, draw)
    plays = [a for a in legal if play_base <= a < pass_action]
    return _pick(plays, draw)


#: per game (weakly held, so a freed game's id is never reused by mistake): links of seat 0 and seat 1
_EXPOSURE_LINKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _exposure_links(game, seat: int) -> list:
    """Per cell an opponent could attack first: ``(base index, side facing it)`` links to ``seat``'s base.

    The heuristic's measure (see ``AnimalChainHeuristic``), in absolute positions:
    "rules_page": the base cards themselves; "reach": the cells next to the base.
    """
    both = _EXPOSURE_LINKS.get(game)
    if both is None:
        both = []
        for owner in (0, 1):
            base = game.own_base_in_frame[owner]
            index = {p: j for j, p in enumerate(base)}
            if game.reach_rule:
                targets = sorted({q for p in base for q, _ in game.neighbours[p] if q not in index})
            else:
                targets = base
            both.append([[(index[n], side) for n, side in game.attack_neighbours[q] if n in index] for q in targets])
        _EXPOSURE_LINKS[game] = both
    return both[seat]


def _exposure(game, links, base_types) -> int:
    """Number of card types that could attack a base of ``base_types`` (absolute types, owner's order)."""
    mask = 0
    right_bit, left_bit = game.right_animal_bit, game.left_animal_bit
    for cell in links:
        lm = rm = 0
        for j, side in cell:
            if side == LEFT:  # the base card lies on the attacked cell's left side
                lm |= right_bit[base_types[j]]
            else:
                rm |= left_bit[base_types[j]]
        if lm or rm:
            mask |= game.accepted_types(lm, rm)
    return bin(mask).count("1")


def _animal_chain_build(game, state, seat: int, legal: list) -> int:
    """One greedy step of base building: the swap that most lowers the base's exposure, else done."""
    links = _exposure_links(game, seat)
    positions = game.own_base_in_frame[seat]
    base = [state.stacks[p][0] for p in positions]
    best_action, best = game.done_action, _exposure(game, links, base)
    B = game.base_size
    frame = game.type_in_frame[seat]
    for a in legal:
        if a == game.done_action:
            continue
        t, j = divmod(a, B)
        t = frame[t]  # action ids name types in the mover's frame; the involution maps them back
        old = base[j]
        base[j] = t
        value = _exposure(game, links, base)
        base[j] = old
        if value < best:
            best_action, best = a, value
    return best_action


# ------------------------------------------------------------------ Hidden Rooms
def hidden_rooms(game, state, seat: int, legal: list, draw) -> int:
    """Exit if reachable; never stop where the monster catches; step/search/place toward (0, 0)."""
    phase = state.phase
    if phase == hr.MOVE:
        child = state.child
        neighbours = hr.NEIGHBOURS[child]
        board = state.board
        monster_phase = game.monster_phase
        scored = []
        for a in legal:
            cell = child if a == hr.STOP_MOVING else neighbours[a - hr.STEP]
            if cell == hr.EXIT_CELL:
                return a
            where, progress, chasing, outcome, _trail = monster_phase(
                state.monster, state.monster_cell, state.progress, cell, state.chasing
            )
            cornered = True  # a two-phase look: can the child then reach (one step) a cell the next phase spares?
            if outcome != hr.CAUGHT:
                for reply in (cell, *hr.NEIGHBOURS[cell]):
                    if reply >= 0 and board[reply] != hr.EMPTY and reply != where:
                        if monster_phase(state.monster, where, progress, reply, chasing)[3] != hr.CAUGHT:
                            cornered = False
                            break
            # caught ranks last, then cornered; then the distance to the exit
            r, c = divmod(cell, hr.GRID)
            scored.append((outcome == hr.CAUGHT, cornered, r + c, a))
        best = min(scored)[:3]
        return _pick([s[3] for s in scored if s[:3] == best], draw)
    if phase == hr.SEARCH:
        child = state.child
        under = state.board[child]
        here = sum(divmod(child, hr.GRID))
        toward = [
            nb for nb in hr.NEIGHBOURS[child][:4]
            if nb >= 0 and state.board[nb] == hr.EMPTY and sum(divmod(nb, hr.GRID)) < here
        ]
        if toward:
            for slot, tile in enumerate(state.memory):
                if hr.connects(tile, under):
                    return hr.SEARCH_MEMORY + slot
        if hr.SEARCH_PILE in legal:
            return hr.SEARCH_PILE
        return _pick(legal, draw)
    if phase == hr.PLACING:
        child = state.child
        here = sum(divmod(child, hr.GRID))
        best, best_distance = [], 99
        for a in legal:
            if a == hr.DECLINE:
                continue
            nb = hr.NEIGHBOURS[child][a - hr.PLACE]
            distance = sum(divmod(nb, hr.GRID))
            if distance < best_distance:
                best, best_distance = [a], distance
            elif distance == best_distance:
                best.append(a)
        if best and (best_distance < here or len(state.memory) >= hr.MEMORY_CAPACITY or draw() < 0.5):
            return _pick(best, draw)
        return hr.DECLINE if hr.DECLINE in legal else _pick(legal, draw)
    return _pick(legal, draw)


# ------------------------------------------------------------------ KAKURENBO
def kakurenbo(game, state, seat: int, legal: list, draw) -> int:
    """Discard pairs, give low cards that help nobody, take partners, pass the Curse towards an end."""
    if len(legal) == 1:
        return legal[0]
    stage = state.stage
    hands = state.hands
    n = game.num_players
    decode = game.decode
    if stage == kr.MAIN:
        discards = [a for a in legal if a != 0]
        return min(discards) if discards else 0  # lowest id = highest-point pair first
    mine = hands[seat]
    if stage == kr.GIVE_CARD or stage == kr.CURSE_GIVE:
        best, best_score = [], None
        for a in legal:
            _kind, card, k = decode[a]
            receiver = (seat + k) % n
            part = card >> 1
            if (card ^ 1) in hands[receiver]:
                if stage == kr.GIVE_CARD:
                    score = -10 - kr.POINTS[part]  # completes the receiver's pair
                else:  # phase 2: the pair is discarded at once, with its card function
                    scorer = receiver
                    if part == kr.CHEST:
                        scorer = (receiver - 1) % n
                    elif part == kr.WAIST:
                        scorer = (receiver + 1) % n
                    if scorer == seat:
                        score = 10 + kr.POINTS[part]
                    elif state.scores[scorer] + kr.POINTS[part] <= state.scores[seat]:
                        score = 1  # harmless to us, and every pair brings the end nearer
                    else:
                        # points to another player cost like the card given away, a little less:
                        # pairs must be made for the game to end
                        score = 0.5 - kr.POINTS[part]
                    left = len(hands[receiver]) - 1  # the receiver's cards once the pair is gone
                    if part == kr.RIGHT_LEG or part == kr.LEFT_LEG:  # then it swaps hands with a neighbour
                        neighbour = (receiver - 1) % n if part == kr.RIGHT_LEG else (receiver + 1) % n
                        left = sum(1 for c in hands[neighbour] if c != kr.CURSE) - (neighbour == seat)
                    if left == 0:  # the receiver is left with the Curse alone: game over
                        scores = list(state.scores)
                        scores[scorer] += kr.POINTS[part]
                        scores[receiver] = 0
                        score = 100 if scores[seat] == max(scores) else -100
            else:
                # keep our own pairs possible: do not give a card whose partner may still come to us
                score = -kr.POINTS[part]
            if best_score is None or score > best_score:
                best, best_score = [a], score
            elif score == best_score:
                best.append(a)
        return _pick(best, draw)
    if stage == kr.TAKE or stage == kr.DICE_TAKE:
        wanted = {c ^ 1 for c in mine if c != kr.CURSE}
        good = []
        for a in legal:
            _kind, colour, k = decode[a]
            victim = (seat + k) % n
            if any(c in wanted and c & 1 == colour for c in hands[victim]):
                good.append(a)
        return _pick(good or legal, draw)
    return _pick(legal, draw)


# ------------------------------------------------------------ Summer Hide-and-Seek
#: chance that a child with no icon within reach draws one more plain line instead of stopping
SUMMER_WALK = 0.6


def summer_hide_and_seek(game, state, seat: int, legal: list, draw) -> int:
    """Child: highest-VP icon in reach, else walk on (not into a dead end) or stop. Seekers: spread on the belief."""
    phase = state.phase
    if phase == sr.SEEK:
        covered = 0
        for p in state.pieces:
            if p >= 0:
                covered |= 1 << p
        candidates = state.belief & ~covered or state.belief
        if not candidates:
            return _pick(legal, draw)
        squares = list(iter_bits(candidates))
        return game.place_base + _pick(squares, draw)
    if phase == sr.START or state.continue_due:  # (continue_due: the forced continue after a shortcut)
        return _pick(legal, draw)
    # child's turn (stop is missing from legal where the child must draw a line first)
    line_base, stop = game.line_base, game.stop_action
    vp = game.square_vp
    best, best_vp = [], 0
    walks = []
    visited, drawn, blocked = state.visited, state.drawn, state.blocked
    for a in legal:
        if a == stop:
            continue
        q = a - line_base
        value = vp[q]
        if value > best_vp:
            best, best_vp = [a], value
        elif value == best_vp and value > 0:
            best.append(a)
        elif value == 0:
            walks.append(a)
    if best:
        return _pick(best, draw)
    if walks and (state.turn_cost == 0 or draw() < SUMMER_WALK):
        lid_of = game._line_of
        p = state.square
        open_walks = []
        for a in walks:
            q = a - line_base
            lid = lid_of[(p, q)][0]
            if not game.is_stuck(q, visited | 1 << q, drawn | 1 << lid, blocked):
                open_walks.append(a)
        return _pick(open_walks or walks, draw)
    return stop if stop in legal else _pick(legal, draw)
