"""The bridge's cheap clones and lazily recorded information states give what eager recording gives.

A state records its players' information-state lines only when they are read
(replaying its logged moves), and clones share their generator, move log and
lines until one of them changes its own. These tests keep, next to each
bridge state, the lines computed the eager way (every player's observation
digest read off the live rules state after every move), and compare them
with what the bridge answers, over random games mixing moves, reads, clones
and resampled worlds; and they replay each dealt game from its seed and moves.
"""

import hashlib

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kakurega.envs.registry import ENV_SPECS  # noqa: E402
from kakurega.integrations import openspiel as bridge  # noqa: E402


def _load(env_name, params=None):
    return pyspiel.load_game(bridge.short_name(env_name), dict(params or {}))


def _digest(env, rules_state, seat):
    observation = np.ascontiguousarray(env.encode(rules_state, seat))
    return hashlib.blake2b(observation.tobytes(), digest_size=8).hexdigest()


class Tracked:
    """A bridge state and its players' lines computed eagerly, after every move (the bridge records them lazily)."""

    def __init__(self, state, lines):
        self.state, self.lines = state, lines

    @classmethod
    def dealt(cls, game, draws):
        state = game.new_initial_state()
        for value in draws:
            state.apply_action(int(value))
        env = state.shared.env
        return cls(state, [[_digest(env, state.state, seat)] for seat in range(game.num_players())])

    def apply(self, action):
        actor = self.state.current_player()
        self.lines[actor][-1] += f" a{action}"
        self.state.apply_action(action)
        to_act = self.state.current_player()
        for seat, lines in enumerate(self.lines):  # a line where the seat acts or its observation changed
            digest = _digest(self.state.shared.env, self.state.state, seat)
            if seat == to_act or lines[-1].partition(" ")[0] != digest:
                lines.append(digest)

    def clone(self):
        return Tracked(self.state.clone(), [list(lines) for lines in self.lines])

    def resample(self, sampler):
        player = self.state.current_player()
        world = self.state.resample_from_infostate(player, sampler)
        env = world.shared.env
        lines = [list(self.lines[seat]) if seat == player else ["resampled", _digest(env, world.state, seat)]
                 for seat in range(len(self.lines))]
        return Tracked(world, lines)

    def check(self, seat):
        """The bridge's answers for ``seat`` equal the eager ones."""
        assert self.state.information_state_string(seat) == f"p{seat}\n" + "\n".join(self.lines[seat])
        expected = self.state.shared.env.encode(self.state.state, seat)
        assert np.array_equal(np.asarray(self.state.observation_tensor(seat), np.float32), expected)


def _moves_before_the_end(game, draws, rng, most: int) -> list[int]:
    """Random moves of the game dealt by ``draws``: ``most`` of them, or, where the game ends within them (a short
    game), all but its last, so that a move is left to play."""
    state = game.new_initial_state()
    for value in draws:
        state.apply_action(int(value))
    moves = []
    while len(moves) < most and not state.is_terminal():
        moves.append(int(rng.choice(state.legal_actions())))
        state.apply_action(moves[-1])
    return moves[:-1] if state.is_terminal() else moves


def _newest(env_name):
    alias = bridge.short_name(env_name, versioned=False)
    return max((n for n in ENV_SPECS if bridge.short_name(n, versioned=False) == alias), key=lambda n: int(n.rpartition("_v")[2]))


GAMES = sorted({_newest(name) for name in ENV_SPECS}) + ["kakurenbo_v1-3"]


def _game(case):
    name, _, players = case.partition("-")
    return _load(name, {"num_players": int(players)} if players else {})


@pytest.mark.parametrize("case", GAMES)
def test_lazy_information_states_equal_eager_ones_over_random_games(case):
    """Random games with reads at random moments (so some lines are recorded at once and some replayed),
    clones continued on their own and resampled worlds: every read equals the eager lines."""
    game = _game(case)
    rng = np.random.default_rng(7)
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    reads = replayed = 0
    for deals in range(60):  # six deals; a short game reads little in each, so it is dealt on until the counts
        if deals >= 6 and reads > 50 and replayed > 10:
            break
        pool = [Tracked.dealt(game, rng.integers(bridge.SEED_OUTCOMES, size=4))]
        for _ in range(120):
            tracked = pool[int(rng.integers(len(pool)))]
            if tracked.state.is_terminal():
                continue
            roll = rng.random()
            if roll < 0.6:
                tracked.apply(int(rng.choice(tracked.state.legal_actions())))
            elif roll < 0.85:
                replayed += tracked.state._core.lines.known <= len(tracked.state._core.moves)
                tracked.check(int(rng.integers(game.num_players())))
                reads += 1
            elif roll < 0.95 and len(pool) < 6:
                pool.append(tracked.clone())
            elif len(pool) < 6:
                tracked.check(tracked.state.current_player())  # a searcher reads its information state first
                pool.append(tracked.resample(sampler))
        for tracked in pool:
            for seat in range(game.num_players()):
                tracked.check(seat)
    assert reads > 50 and replayed > 10, (reads, replayed, deals)  # both ways of recording were exercised


@pytest.mark.parametrize("case", GAMES)
def test_a_dealt_state_is_its_seed_and_moves_replayed(case):
    """After random play (no read on the way), a fresh replay of the history on the engine gives the same
    rules state and lines; the control: a game with one move changed gives other lines."""
    game = _game(case)
    rng = np.random.default_rng(11)
    for _ in range(4):
        draws = [int(v) for v in rng.integers(bridge.SEED_OUTCOMES, size=4)]
        state = game.new_initial_state()
        for value in draws:
            state.apply_action(value)
        moves = []
        while not state.is_terminal() and len(moves) < 150:
            moves.append(int(rng.choice(state.legal_actions())))
            state.apply_action(moves[-1])
        replay = Tracked.dealt(game, draws)  # the eager way, through a bridge state read after every move
        for move in moves:
            replay.apply(move)
        rules = game.shared.game
        assert rules.fingerprint(replay.state.state) == rules.fingerprint(state.state)
        for seat in range(game.num_players()):
            assert state.information_state_string(seat) == f"p{seat}\n" + "\n".join(replay.lines[seat])
    other = Tracked.dealt(game, draws)
    first = [a for a in other.state.legal_actions() if a != moves[0]]
    if first:
        other.apply(first[0])
        assert any(other.state.information_state_string(s) != state.information_state_string(s)
                   for s in range(game.num_players()))


@pytest.mark.parametrize("case", GAMES)
def test_a_clone_and_its_original_diverge_independently(case):
    """A clone and its original, played on with different moves (chance included), each end where a copy
    made without cloning (serialized and restored) ends with the same moves; with the same moves they
    draw the same chance."""
    game = _game(case)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    for value in (9, 8, 7, 6):
        state.apply_action(value)
    for move in _moves_before_the_end(game, (9, 8, 7, 6), rng, 6):
        state.apply_action(move)
    state.information_state_string(0)  # lines recorded up to here, then shared with the clone
    twins = [game.deserialize_state(state.serialize()) for _ in range(3)]
    clone = state.clone()
    plays = [(state, twins[0], np.random.default_rng(1)), (clone, twins[1], np.random.default_rng(2))]
    for step in range(40):
        for played, twin, choices in plays if step % 2 == 0 else plays[::-1]:
            if played.is_terminal():
                continue
            legal = played.legal_actions()
            # their first moves differ where they can (a short game may have no other move), the rest are random
            action = (legal[0] if played is state else legal[-1]) if step == 0 else int(choices.choice(legal))
            played.apply_action(action)
            twin.apply_action(action)
            if step % 7 == 3:
                played.information_state_string(played.current_player() if not played.is_terminal() else 0)
    for played, twin, _ in plays:
        assert played.history() == twin.history()
        assert game.shared.game.fingerprint(played.state) == game.shared.game.fingerprint(twin.state)
        for seat in range(game.num_players()):
            assert played.information_state_string(seat) == twin.information_state_string(seat)
            assert played.observation_tensor(seat) == twin.observation_tensor(seat)
    assert state.history() != clone.history()
    same = twins[2].clone()
    choices = np.random.default_rng(1)
    for _ in range(40):
        if same.is_terminal():
            break
        action = int(choices.choice(same.legal_actions()))
        same.apply_action(action)
        twins[2].apply_action(action)
    assert game.shared.game.fingerprint(same.state) == game.shared.game.fingerprint(twins[2].state)


@pytest.mark.parametrize("case", GAMES)
def test_a_world_moving_first_leaves_its_clones_history_intact(case):
    """A resampled world keeps its re-dealt state as its origin without copying it until its first move:
    clones of the world taken before that move, played on unread, replay the right history from it."""
    game = _game(case)
    rng = np.random.default_rng(3)
    sampler = pyspiel.UniformProbabilitySampler(5, 0.0, 1.0)
    for _ in range(3):
        draws = rng.integers(bridge.SEED_OUTCOMES, size=4)
        tracked = Tracked.dealt(game, draws)
        for move in _moves_before_the_end(game, draws, rng, 4):
            tracked.apply(move)
        tracked.check(tracked.state.current_player())
        world = tracked.resample(sampler)
        clones = [world.clone(), world.clone()]
        clones[1].check(0)  # one clone reads at the origin (lines recorded from the world's live state)
        for _ in range(3):  # the world moves first: its origin must not move with it
            if not world.state.is_terminal():
                world.apply(int(rng.choice(world.state.legal_actions())))
        for clone in clones:
            for _ in range(3):
                if not clone.state.is_terminal():
                    clone.apply(int(rng.choice(clone.state.legal_actions())))
        for played in [world, *clones]:
            for seat in range(game.num_players()):
                played.check(seat)


@pytest.mark.parametrize("case", GAMES)
def test_a_resampled_world_pickled_deep_copied_or_serialized_plays_on_as_its_clone(case):
    """A world holds its chance seed, not a generator, until its first draw; its copies by pickle, deepcopy and
    serialization build that generator as the world would (they once handed the int to the rules: AttributeError
    at the first chance draw, in every game but Summer). Serialized through pyspiel's own round trip (which
    unpickles, so only for text this process wrote): the game's ``deserialize_state`` replays histories only and
    refuses a world, which has none."""
    import copy
    import pickle

    game = _game(case)
    rng = np.random.default_rng(11)
    sampler = pyspiel.UniformProbabilitySampler(9, 0.0, 1.0)
    worlds = 0
    for _ in range(4):
        state = game.new_initial_state()
        draws = rng.integers(bridge.SEED_OUTCOMES, size=4)
        for draw in draws:
            state.apply_action(int(draw))
        for move in _moves_before_the_end(game, draws, rng, int(rng.integers(1, 6))):
            state.apply_action(move)
        world = state.resample_from_infostate(state.current_player(), sampler)
        worlds += not world._core.rng_owned  # the control: the case where the world holds a seed
        copies = [world.clone(), pickle.loads(pickle.dumps(world)), copy.deepcopy(world),
                  pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, world))[1]]
        with pytest.raises(ValueError, match="a resampled world, which no play reaches"):
            game.deserialize_state(world.serialize())
        ends = []
        for played in copies:
            moves = np.random.default_rng(5)
            while not played.is_terminal():
                played.apply_action(int(moves.choice(played.legal_actions())))
            ends.append((str(played), played.returns()))
        assert ends[1:] == [ends[0]] * 3
    assert worlds > 0


def test_secret_decisions_a_player_does_not_see_add_nothing_to_its_string():
    """Mid-turn, the Summer child's decisions change nothing a seeker sees; its string must not count them
    (it did: one line per move for every player, so a seeker's string told how far the child had walked)."""
    game = _load("summer_hide_and_seek_v2", {"num_players": 2})
    pairs = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.legal_actions()))))
        while not state.is_terminal() and pairs < 3:
            child = state.current_player()
            one = state.clone()
            one.apply_action(one.legal_actions()[0])
            if not one.is_terminal() and one.current_player() == child:
                two = one.clone()
                two.apply_action(two.legal_actions()[0])
                seeker = 1 - child
                if not two.is_terminal() and two.current_player() == child and \
                        one.observation_string(seeker) == two.observation_string(seeker):
                    assert len(two.history()) == len(one.history()) + 1  # one more secret decision
                    assert one.information_state_string(seeker) == two.information_state_string(seeker)
                    assert one.information_state_string(child) != two.information_state_string(child)
                    pairs += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
        if pairs >= 3:
            break
    assert pairs >= 3, "no child turn of two or more decisions was met"
