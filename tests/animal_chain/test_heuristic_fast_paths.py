"""The Animal Chain heuristic's measurement of every move gives the same numbers, bit for bit, as the plain one.

``animal_chain_plays.measure`` (compiled when possible) reads the position
from the observation vector, grows the linked chains from the played card
instead of searching them anew for every play, keeps protection as position
bitmasks, attacks as two animal masks and remembers their chances. The
reference below is the plain version it replaced: the observation read with
numpy, for every play a copy of the board, two chain searches and three
attack masks (type masks), the chance counted from each mask.
"""

import json
import os
import subprocess
import sys
from itertools import permutations

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent, choose_action
from kakurega.agents.heuristics.animal_chain import (
    W_DOUBLE,
    W_DRAW,
    W_OFFENCE,
    W_RACE,
    W_ROW,
    W_TAKE,
    W_THREAT,
    WEIGHTS,
    AnimalChainHeuristic,
    AnimalChainMoveFeatures,
)
from kakurega.agents.heuristics.animal_chain_plays import PARTS
from kakurega.envs import make
from kakurega.envs.animal_chain.rules import BUILD, FACE_DOWN, LEFT, PLAY

CONFIGS = [  # (env, options, games: enough for over 100 positions)
    ("animal_chain_v1", {}, 6),  # the chain rule, one decision per base position
    ("animal_chain_v0", {}, 80),  # any connection, the rules page's attack rule (short games)
    ("animal_chain_v1", {"attack_rule": "reach"}, 6),  # the chain rule and the reach attack rule
]


def reference_attack_mask(game, tops, targets, protected, linked):
    mask = 0
    for q in targets:
        if protected[q]:
            continue
        lm = rm = 0
        for n, side in game.attack_neighbours[q]:
            top = tops[n]
            if top is None or not linked >> n & 1:
                continue
            if side == LEFT:
                lm |= 1 << top[1]
            else:
                rm |= 1 << top[0]
        if lm or rm:
            mask |= game.accepted_types(lm, rm)
    return mask


def reference_makes_double(game, tops, t, p):
    left, right = game.deck.card_types[t]
    on_left = on_right = 0
    for q, side in game.neighbours[p]:
        top = tops[q]
        if top is None:
            continue
        if side == LEFT:
            on_left += top[1] == left
        else:
            on_right += top[0] == right
    if left == right:
        return on_left + on_right >= 2
    return on_left >= 2 or on_right >= 2


def reference_connected(tops, q, p, side_of_p):
    a, b = tops[p], tops[q]
    if a is None or b is None:
        return False
    return a[0] == b[1] if side_of_p == LEFT else a[1] == b[0]


def reference_read(agent, observation):
    """The plain reading: ``(tops, hand, copies)``, a top ``(left animal, right animal)`` or None per position."""
    game = agent.game
    left = agent.piece(observation, "left_animal")
    right = agent.piece(observation, "right_animal")
    tops = [None] * game.num_positions
    lefts, rights = left.argmax(axis=1).tolist(), right.argmax(axis=1).tolist()
    for p in np.flatnonzero(left.any(axis=1)).tolist():
        tops[p] = (lefts[p], rights[p])
    seat = int(agent.piece(observation, "seat").argmax())
    copies = [game.deck.copies[game.type_in_frame[seat][t]] for t in range(game.num_types)]
    hand = [int(n) for n in agent.piece(observation, "hand")]
    return tops, hand, copies


def type_of_pair(game) -> dict:
    return {pair: t for t, pair in enumerate(game.deck.card_types)}


def reference_chance(mask, unseen, total_unseen, draws) -> float:
    if not mask or total_unseen <= 0 or draws <= 0:
        return 0.0
    hits = sum(n for t, n in enumerate(unseen) if mask >> t & 1)
    return 1.0 - (1.0 - min(1.0, hits / total_unseen)) ** draws


def reference_play_parts(agent, observation, legal, cut_chains=True):
    """The plain measurement: a new board, both chain searches and both attack masks for every play.

    ``cut_chains=False`` (the control) keeps the chains as they were when a play covers a linked card.
    """
    game = agent.game
    P = game.num_positions
    tops, hand, copies = reference_read(agent, observation)
    unseen = [c - h for c, h in zip(copies, hand)]
    for top in tops:
        if top is not None:
            t = type_of_pair(game)[top]
            unseen[t] = max(0, unseen[t] - 1)
    total_unseen = sum(unseen)
    opp_hand = int(agent.piece(observation, "hand_sizes")[1])
    face_down = agent.piece(observation, "face_down")
    mine = [bool(x) for x in agent.piece(observation, "my_double")]
    theirs = [bool(x) for x in agent.piece(observation, "opponent_double")]
    last_row = game.shape.num_rows - 1
    chain = game.chain_rule
    types_now = [FACE_DOWN if top is None else type_of_pair(game)[top] for top in tops]
    hand_now = sum(1 << t for t, n in enumerate(hand) if n)
    mine_before = game.linked_mask(types_now, agent.own_base)
    theirs_before = game.linked_mask(types_now, agent.opponent_base)

    def linked(types, sources, before, played):
        if not cut_chains and played >= 0:
            return game.linked_mask(types, sources) | before
        return game.linked_mask(types, sources)

    def evaluate(new_tops, types, played, protected_mine, protected_theirs, new_hand_mask, kept_mine):
        mine_linked = theirs_linked = -1
        race = 0
        if chain:
            mine_linked = linked(types, agent.own_base, mine_before, played)
            theirs_linked = linked(types, agent.opponent_base, theirs_before, played)
            ours = max(game.row_of[p] for p in range(P) if mine_linked >> p & 1)
            theirs_reach = last_row - min(game.row_of[p] for p in range(P) if theirs_linked >> p & 1)
            race = ours - theirs_reach
        threat = reference_chance(reference_attack_mask(game, new_tops, agent.own_base, protected_mine, theirs_linked),
                               unseen, total_unseen, opp_hand)
        attack = reference_attack_mask(game, new_tops, agent.opponent_base, protected_theirs, mine_linked)
        # the types that surely win: every double of ours counts as kept but the one the play covers
        wins = reference_attack_mask(game, new_tops, agent.own_base, kept_mine, theirs_linked)
        return {"threat": threat, "offence": 1.0 if attack & new_hand_mask else 0.0, "race": race, "row": 0.0,
                "take": 0.0, "double": 0.0, "draw": 0.0, "wins": wins}

    plays, passes = [], []
    for action in legal:
        action = int(action)
        kind, t, p = game.decode(0, action)
        if kind != "play":
            if kind in ("pass", "take"):
                passes.append(action)
            continue
        if p in agent.opponent_base:
            return action, [], []
        new_tops = list(tops)
        new_tops[p] = game.deck.card_types[t]
        new_types = list(types_now)
        new_types[p] = t
        new_hand = hand_now & ~(1 << t) if hand[t] == 1 else hand_now
        double = reference_makes_double(game, tops, t, p)
        protected_mine, protected_theirs = list(mine), list(theirs)
        for q, side in game.neighbours[p]:
            if (mine[q] or theirs[q]) and reference_connected(tops, q, p, side):
                protected_mine[q] = protected_theirs[q] = False
        protected_mine[p] = double
        protected_theirs[p] = False
        kept_mine = list(mine)
        kept_mine[p] = double
        parts = evaluate(new_tops, new_types, p, protected_mine, protected_theirs, new_hand, kept_mine)
        if not chain:
            parts["row"] = game.row_of[p] / last_row * 4
        parts["take"] = float(bool(face_down[p]))
        parts["double"] = float(double)
        plays.append((action, parts))
    if passes:
        parts = evaluate(tops, types_now, -1, mine, theirs, hand_now, mine)
        parts["draw"] = 1.0
        passes = [(action, parts) for action in passes]
    return None, plays, passes


def measured_parts(agent, observation):
    """The heuristic's measurement in the reference's form: ``(winning play or None, [(play, parts)], [(pass, parts)])``."""
    measured = agent._measure(observation, with_wins=True)
    if measured.wins_now:
        return measured.wins_now[0], [], []
    rows = [(action, {**dict(zip(PARTS, values)), "wins": wins})
            for action, values, wins in zip(measured.actions, measured.values.tolist(), measured.wins)]
    return None, rows[: measured.num_plays], rows[measured.num_plays:]


def play_phase_observations(name, config, games, seed=0, phase=PLAY):
    """Observations of every decision in ``phase`` of seeded games of the heuristic against itself and random play."""
    env = make(name, **config)
    context = AgentContext.from_env(env, name, config)
    agents = [AnimalChainHeuristic(context, seed=seed), AnimalChainHeuristic(context, seed=seed), RandomAgent(context, seed=seed)]
    found = []
    for game_index in range(games):
        env.reset(seed=seed + game_index)
        for agent_name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if env.unwrapped.game_state.phase == phase:
                found.append({key: np.array(value, copy=True) for key, value in observation.items()})
            seat = env.unwrapped.agents.index(agent_name)
            agent = agents[seat] if game_index % 2 else agents[2 * seat]  # odd games: the heuristic against itself
            env.step(choose_action(agent, env, agent_name, observation))
    return context, found


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda case: f"{case[0]}-{'-'.join(map(str, case[1].values()))}")
def positions(request):
    name, config, games = request.param
    return play_phase_observations(name, config, games)


def test_every_play_is_measured_as_the_plain_code_measures_it(positions):
    context, observations = positions
    agent = AnimalChainHeuristic(context)
    assert len(observations) > 100
    for observation in observations:
        legal = np.flatnonzero(observation["action_mask"])
        assert measured_parts(agent, observation) == reference_play_parts(agent, observation, legal)


def test_control_a_measurement_that_never_cuts_a_chain_is_caught(positions):
    context, observations = positions
    agent = AnimalChainHeuristic(context)
    if not agent.game.chain_rule:
        pytest.skip("no chains without the chain rule")
    differing = 0
    for observation in observations:
        legal = np.flatnonzero(observation["action_mask"])
        differing += measured_parts(agent, observation) != reference_play_parts(agent, observation, legal, cut_chains=False)
    assert differing > 0


def test_the_measurement_reads_any_mask_and_vector_type(positions):
    context, observations = positions
    agent = AnimalChainHeuristic(context)
    for observation in observations[:20]:
        other = {"observation": observation["observation"].astype(np.float64),
                 "action_mask": observation["action_mask"].astype(bool)}
        assert measured_parts(agent, other) == measured_parts(agent, observation)


def reference_score(parts: dict) -> float:
    """The heuristic's weighing of a move as the plain code wrote it."""
    return (-W_THREAT * parts["threat"] + W_OFFENCE * parts["offence"] + W_RACE * parts["race"]
            + W_ROW * parts["row"] + W_TAKE * parts["take"] + W_DOUBLE * parts["double"] + W_DRAW * parts["draw"])


def test_the_scores_add_the_weighted_parts_as_the_plain_code_does():
    rng = np.random.default_rng(0)
    values = rng.random((2000, len(PARTS))) * rng.choice([1e-3, 1.0, 1e3], size=(2000, len(PARTS)))
    plain = [reference_score(dict(zip(PARTS, row))) for row in values.tolist()]
    assert AnimalChainHeuristic._scores(values).tolist() == plain
    # control: the same terms added right to left differ somewhere, so the comparison sees the order
    backwards = np.add.accumulate((values * WEIGHTS)[:, ::-1], axis=1)[:, -1]
    assert backwards.tolist() != plain


# ----------------------------------------------------------------- base building
def reference_links_mask(game, cells, base):
    mask = 0
    for links in cells:
        lm = rm = 0
        for j, side in links:
            if side == LEFT:
                lm |= 1 << game.right_animal[base[j]]
            else:
                rm |= 1 << game.left_animal[base[j]]
        if lm or rm:
            mask |= game.accepted_types(lm, rm)
    return mask


def reference_cells(agent):
    """The plain code's cells of exposure and of chain starts: per cell, its ``(base index, side)`` links."""
    game = agent.game
    base_index = {p: j for j, p in enumerate(agent.own_base)}
    approach = sorted({q for p in agent.own_base for q, _ in game.neighbours[p] if q not in base_index})
    targets = approach if game.reach_rule else agent.own_base
    exposure = [[(base_index[n], side) for n, side in game.attack_neighbours[q] if n in base_index] for q in targets]
    starts = [[(base_index[n], side) for n, side in game.neighbours[q] if n in base_index] for q in approach]
    return exposure, starts


def reference_exposure(agent, base, unseen):
    mask = reference_links_mask(agent.game, reference_cells(agent)[0], base)
    return sum(n for t, n in enumerate(unseen) if mask >> t & 1)


def reference_base_key(agent, base, hand, unseen):
    game = agent.game
    sides = len({game.left_animal[t] for t, n in enumerate(hand) if n}) + len({game.right_animal[t] for t, n in enumerate(hand) if n})
    if game.chain_rule:
        starts = reference_links_mask(game, reference_cells(agent)[1], base)
        return (-sum(n for t, n in enumerate(hand) if starts >> t & 1), -sides)
    return (reference_exposure(agent, base, unseen), -sides)


def reference_position_keys(agent, observation, legal, swap_hand=True):
    """The plain keys of keeping the base card and of each swap. ``swap_hand=False`` (the control) leaves the
    hand as it was before the swap."""
    game = agent.game
    tops, hand, copies = reference_read(agent, observation)
    base = [type_of_pair(game)[tops[j]] for j in agent.own_base]
    j = int(agent.piece(observation, "base_position").argmax())
    unseen = list(copies)
    for t in base + [t for t, n in enumerate(hand) for _ in range(n)]:
        unseen[t] -= 1
    keys = {game.done_action: reference_base_key(agent, base, hand, unseen)}
    for action in legal.tolist():
        if action == game.done_action:
            continue
        t = action // game.base_size
        new_base, new_hand = list(base), list(hand)
        if swap_hand:
            new_hand[t] -= 1
            new_hand[base[j]] += 1
        new_base[j] = t
        keys[action] = reference_base_key(agent, new_base, new_hand, unseen)
    return keys


@pytest.mark.parametrize("config", [{}, {"attack_rule": "reach"}, {"connection_rule": "any"}], ids=["chain", "reach", "any"])
def test_every_base_decision_is_keyed_as_the_plain_code_keys_it(config):
    context, observations = play_phase_observations("animal_chain_v1", config, games=6, phase=BUILD)
    agent = AnimalChainHeuristic(context)
    assert len(observations) > 40
    differing = 0
    for observation in observations:
        legal = np.flatnonzero(observation["action_mask"])
        keys = agent._position_keys(observation, legal)
        assert keys == reference_position_keys(agent, observation, legal)
        differing += keys != reference_position_keys(agent, observation, legal, swap_hand=False)
    assert differing > 0  # the control: keys that forget the swapped cards are caught


@pytest.mark.parametrize("config", [{}, {"attack_rule": "reach"}], ids=["rules_page", "reach"])
def test_the_least_exposed_base_is_found_as_the_plain_code_finds_it(config):
    context, observations = play_phase_observations("animal_chain_v0", config, games=2, phase=BUILD)
    agent = AnimalChainHeuristic(context)
    game = agent.game
    checked = set()
    for observation in observations:
        tops, hand, copies = reference_read(agent, observation)
        base = [type_of_pair(game)[tops[j]] for j in agent.own_base]
        cards = sorted(base + [t for t, n in enumerate(hand) for _ in range(n)])
        unseen = list(copies)
        for t in cards:
            unseen[t] -= 1
        if tuple(cards) in checked:
            continue
        checked.add(tuple(cards))
        arrangements = list(permutations(cards, game.base_size))
        assert [agent._exposure(a, unseen) for a in arrangements] == [reference_exposure(agent, a, unseen) for a in arrangements]
    assert len(checked) >= 2


def features_digest(name, config, games):
    """A digest of the move features of every play-phase observation of seeded games (for the subprocess too)."""
    import hashlib

    context, observations = play_phase_observations(name, config, games)
    features = AnimalChainMoveFeatures(context)
    digest = hashlib.sha256()
    for observation in observations:
        digest.update(features(observation).tobytes())
    return digest.hexdigest()


def test_the_compiled_and_the_pure_python_measurements_agree():
    from kakurega.envs import compiled

    if "kakurega.agents.heuristics.animal_chain_plays" not in compiled.compiled_modules():
        pytest.skip("the measurement runs pure Python here (not compiled)")
    here = features_digest("animal_chain_v1", {}, games=3)
    code = ("import json, test_heuristic_fast_paths as t; from kakurega.envs import compiled; "
            "assert not any('animal_chain_plays' in m for m in compiled.compiled_modules()); "
            "print(json.dumps(t.features_digest('animal_chain_v1', {}, games=3)))")
    env = {**os.environ, "KAKUREGA_PURE_PYTHON": "kakurega.agents.heuristics.animal_chain_plays"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), os.path.dirname(os.path.dirname(__file__)),
                                         env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == here
