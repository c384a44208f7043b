"""Tournament seeds are 32-bit: ``SeedSequence([seed, ...])`` would read a larger seed as two words and replay
another seed's deals, so ``run_tournament`` and the commands refuse it (and every seed below keeps its deals)."""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.agents.tournament import MAX_SEED, _seed, check_seed, run_tournament, schedule
from kakurega.scripts.cli import main


def test_a_seed_from_2_to_the_32_would_replay_another_seeds_deal():
    # why it is refused: seed 2**32's first deal is seed 0's second one
    assert _seed(2**32, 1, 0) == _seed(0, 1, 1)
    assert np.random.SeedSequence([2**32 + 5, 1, 3]).generate_state(1)[0] == _seed(5, 1, 1, 3)


@pytest.mark.parametrize("seed", [2**32, 2**32 + 5, 2**64])
def test_run_tournament_refuses_a_seed_from_2_to_the_32(seed):
    with pytest.raises(ValueError, match=r"from 0 to 4294967295 \(2\*\*32 - 1"):
        run_tournament("hidden_rooms_v0", ["random"], {}, 2, seed)


def test_seeds_below_keep_their_deals():
    assert MAX_SEED == 2**32 - 1 and check_seed(MAX_SEED) == MAX_SEED and check_seed(np.uint32(7)) == 7
    assert run_tournament("hidden_rooms_v0", ["random"], {}, 2, MAX_SEED).seed == MAX_SEED  # control: the top seed
    # the deal and agent seeds of existing tournaments, unchanged
    assert [g.deal_seed for g in schedule(2, 2, 3, 0, [(0, 1)])][::2] == [3964924996, 901243215, 3884055042]
    assert [g.agent_seeds for g in schedule(2, 2, 1, 12345, [(0, 1)])] == [(3057929607, 1232798306),
                                                                          (591872498, 1565635746)]
    assert [g.deal_seed for g in schedule(1, 1, 2, MAX_SEED, [(0,)])] == [989230592, 3578914840]
    with pytest.raises(ValueError, match="non-negative"):
        check_seed(-1)
    with pytest.raises(ValueError, match="whole number"):
        check_seed(1.0)


@pytest.mark.parametrize("command", [
    ["evaluate", "hidden_rooms", "--agents", "random", "--games", "2", "--quiet"],
    ["balance", "hidden_rooms", "--games", "2", "--ismcts-budget", "0", "--quiet"],
])
def test_the_commands_refuse_it_in_one_line(command, capsys):
    with pytest.raises(SystemExit) as refused:
        main([*command, "--seed", str(2**32)])
    assert refused.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith("error: argument --seed: expected a whole number from 0 to 4294967295 (2**32 - 1), got "
                        "'4294967296'")
    assert main([*command, "--seed", str(MAX_SEED)]) == 0  # control
    capsys.readouterr()


def _moves_of(spec: str, games: int = 3) -> list:
    played = []
    run_tournament("hidden_rooms_v0", [spec], {}, games, 0, on_game=lambda record: played.append(list(record.moves)))
    return played


def test_an_agents_own_seed_is_mixed_into_the_tournaments_seeds():
    # an ismcts spec's seed= is "the seed of everything random in the search": two runs that differ only in it
    # play different games, and the same spec replays the same moves (the tournament reseeds the agent before
    # every game; before, it replaced the spec's seed, and seed=1 and seed=2 printed the same table)
    one, two = _moves_of("ismcts:simulations=3,seed=1"), _moves_of("ismcts:simulations=3,seed=2")
    assert one == _moves_of("ismcts:simulations=3,seed=1")
    assert one != two
    assert _moves_of("ismcts:simulations=3") == _moves_of("ismcts:simulations=3")  # control: no own seed, as before
