"""The shipped agents choose the same moves as the recorded ones: speed-ups of the heuristics
(caches, vectorised scoring) and of the policy bots must not change a single move.

For every registered configuration, seeded tournaments of the game's heuristic against the
shipped bot (where one is shipped for the configuration) or against random play; every move
of every game is hashed. ``tests/agent_moves.json`` holds the digests, recorded from the code
before the speed-ups. The default suite plays a few games of every configuration; the slow
test plays forty. Regenerate (only for a deliberate change of behaviour, said in the
commit) with ``python tests/test_agent_moves.py``; record a new game's (or one env's) alone
with ``python tests/test_agent_moves.py --env NAME``, the others kept.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from kakurega.agents.base import choose_action
from kakurega.agents.pretrained import has_bot
from kakurega.agents.tournament import run_tournament
from kakurega.envs.registry import ENV_SPECS

DIGESTS = Path(__file__).with_name("agent_moves.json")
QUICK_GAMES = 4
LONG_GAMES = 40
CASES = [
    (name, config) for name, spec in ENV_SPECS.items() if spec.heuristic for config in spec.configurations
]


def case_id(name: str, config: dict) -> str:
    """``summer_hide_and_seek_v2-num_players=3``."""
    return "-".join([name] + [f"{key}={value}" for key, value in config.items()])


def moves_digest(name: str, config: dict, games: int) -> str:
    """SHA-256 of every move of a seeded tournament: the heuristic against the shipped bot or random play."""
    opponent = "pretrained" if has_bot(name, config) else "random"
    digest = hashlib.sha256()

    def record(game) -> None:
        digest.update(json.dumps([game.lineup, game.moves]).encode())

    run_tournament(name, ["heuristic", opponent], config, games=games, seed=7, on_game=record)
    return digest.hexdigest()


def recorded(games: int) -> dict:
    return json.loads(DIGESTS.read_text())[str(games)]


def recorded_digest(games: int, name: str, config: dict) -> str:
    """The digest recorded for a configuration; a configuration with none (a new game) fails saying how to record it."""
    digest = recorded(games).get(case_id(name, config))
    if digest is None:
        pytest.fail(f"no {games}-game digest recorded for {case_id(name, config)} in {DIGESTS.name}: record the "
                    f"game's with `python tests/test_agent_moves.py --env {name}` and commit it")
    return digest


@pytest.mark.parametrize("name,config", CASES, ids=[case_id(*case) for case in CASES])
def test_agents_choose_the_recorded_moves(name, config):
    assert moves_digest(name, config, QUICK_GAMES) == recorded_digest(QUICK_GAMES, name, config)


@pytest.mark.slow
@pytest.mark.parametrize("name,config", CASES, ids=[case_id(*case) for case in CASES])
def test_agents_choose_the_recorded_moves_over_many_games(name, config):
    if str(LONG_GAMES) not in json.loads(DIGESTS.read_text()):
        pytest.skip(f"no {LONG_GAMES}-game digests recorded in {DIGESTS.name} (generate them from the code before a change)")
    assert moves_digest(name, config, LONG_GAMES) == recorded_digest(LONG_GAMES, name, config)


def test_the_digest_sees_a_changed_move(monkeypatch):
    """Control: an agent that plays one move differently changes the digest."""
    name, config = CASES[0]
    original = choose_action
    changed = []

    def once_different(agent, env, agent_name):
        action = original(agent, env, agent_name)
        legal = env.observe(agent_name)["action_mask"].nonzero()[0]
        if not changed and len(legal) > 1:  # the first real choice goes the other way
            changed.append(action)
            return int(next(a for a in legal if a != action))
        return action

    monkeypatch.setattr("kakurega.agents.tournament.choose_action", once_different)
    assert moves_digest(name, config, QUICK_GAMES) != recorded(QUICK_GAMES)[case_id(name, config)]


if __name__ == "__main__":  # regenerate the digests: python tests/test_agent_moves.py [--env NAME] [games ...]
    import argparse

    parser = argparse.ArgumentParser(description="record the digests of tests/agent_moves.json")
    parser.add_argument("--env", default=None, help="only this env's configurations (the others are kept)")
    parser.add_argument("games", nargs="*", type=int, help=f"games per digest (default {QUICK_GAMES} and {LONG_GAMES})")
    args = parser.parse_args()
    cases = [case for case in CASES if args.env in (None, case[0])]
    if not cases:
        parser.error(f"--env {args.env}: not a registered env with a heuristic ({', '.join(sorted(ENV_SPECS))})")
    table = json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}
    for games in args.games or [QUICK_GAMES, LONG_GAMES]:
        table.setdefault(str(games), {}).update({case_id(*case): moves_digest(*case, games) for case in cases})
        print(games, "games: done", flush=True)
    DIGESTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
