"""Generate a tactics suite: search seeded games for positions that match the patterns, verify each.

Games are played by a seeded mix of the heuristic and random players (the
lineup of each game is drawn from its seed). Before every decision each
pattern of the game whose quota is not yet full looks at the position; a
match becomes a :class:`~kakurega.agents.tactics.suite.Position` (the game's
seed and the moves so far) and is kept only if
:func:`~kakurega.agents.tactics.patterns.verify` confirms it from a fresh
replay, in the true state and in determinizations. At most one position per
pattern is taken from one game, so the positions of a pattern come from
different deals, and one claim per position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kakurega.agents.tactics.patterns import game_of, patterns_of, verify
from kakurega.agents.tactics.suite import Position, Suite


@dataclass(frozen=True)
class Plan:
    """How the suite of one game is generated."""

    env: str
    options: dict
    quotas: dict  #: pattern name -> positions wanted
    max_games: int = 4000


_CURSE = {"curse_win": 35, "curse_loss": 35}
_SUMMER = {"seek_certain": 35, "child_stuck": 35}
_KURAYAMI = {"take_loss": 50}

#: the shipped suites by file stem (``kakurega tactics --generate`` rebuilds them): each game's first table
#: (``<game>.json``), then a suite for every other table a bot plays (``<game>-<options>.json``). Kurayami
#: with 3 players has none: no position of it has a provable claim (``take_loss`` needs a third hand empty
#: besides the taker's and the victim's, and then the victim holds one card: the take is forced)
PLANS = {
    "animal_chain": Plan("animal_chain_v1", {}, {"win_now": 35, "stop_win": 35}),
    "hidden_rooms": Plan("hidden_rooms_v0", {"episode": "round"}, {"escape_now": 30, "avoid_capture": 40}),
    "kakurenbo": Plan("kakurenbo_v1", {}, _CURSE),
    "summer_hide_and_seek": Plan("summer_hide_and_seek_v2", {}, _SUMMER),
    "kakurenbo-num_players=3": Plan("kakurenbo_v1", {"num_players": 3}, _CURSE),
    "kakurenbo-num_players=5": Plan("kakurenbo_v1", {"num_players": 5}, _CURSE),
    "kakurenbo-variant=kurayami": Plan("kakurenbo_v1", {"variant": "kurayami"}, _KURAYAMI, 60000),
    "kakurenbo-num_players=5-variant=kurayami": Plan("kakurenbo_v1", {"num_players": 5, "variant": "kurayami"},
                                                     _KURAYAMI, 60000),
    "summer_hide_and_seek-num_players=3": Plan("summer_hide_and_seek_v2", {"num_players": 3}, _SUMMER),
    "summer_hide_and_seek-num_players=4": Plan("summer_hide_and_seek_v2", {"num_players": 4}, _SUMMER),
    "animal_chain-attack_rule=reach": Plan("animal_chain_v1", {"attack_rule": "reach"}, {"win_now": 35, "stop_win": 35}),
    "animal_chain-connection_rule=any": Plan("animal_chain_v1", {"connection_rule": "any"},
                                             {"win_now": 35, "stop_win": 35}),
}


def plan_for(env_name: str, options: dict | None = None) -> str:
    """The name of the plan of ``env_name``'s table with ``options``; without options, the game's first table."""
    from kakurega.agents.policy import resolved_env_options
    from kakurega.agents.tactics.patterns import game_of
    from kakurega.agents.tactics.suite import table_options

    game = game_of(env_name)
    names = [name for name, plan in PLANS.items() if game_of(plan.env) == game]
    if game not in PLANS:
        raise ValueError(f"no tactics plan for {game}; plans: {', '.join(PLANS)}")
    if not options:
        return game
    wanted = table_options(env_name, options)
    for name in names:
        if resolved_env_options(env_name, PLANS[name].options) == wanted:
            return name
    raise ValueError(f"no tactics plan for {env_name} with {options}; its plans: {', '.join(names)}")


def generate(plan: Plan, seed: int = 0, samples: int = 32, lineup=("heuristic", "random"), explore: float = 0.25,
             progress=None, name: str | None = None) -> Suite:
    """A suite for ``plan``: positions found in seeded games, each verified through the rules.

    ``explore``: the share of moves played uniformly at random instead of the
    seat's player (a heuristic repeats itself from deal to deal). A position
    whose observation (of the seat to act) is already in the suite is skipped.
    ``name``: the start of the positions' ids (default: the game's name), the
    plan's name in :data:`PLANS` so that ids differ between tables.
    """
    from kakurega.agents.base import AgentContext, choose_action
    from kakurega.agents.specs import make_agent
    from kakurega.envs.registry import make

    wanted = dict(plan.quotas)
    patterns = [p for p in patterns_of(plan.env) if p.name in wanted]
    unknown = sorted(set(wanted) - {p.name for p in patterns})
    if unknown:
        raise ValueError(f"no tactics pattern {', '.join(unknown)} for {plan.env}")
    found: dict[str, list[Position]] = {p.name: [] for p in patterns}
    envs: dict = {}  # the envs verify replays in
    env = make(plan.env, wrapped=False, **plan.options)
    context = AgentContext.from_env(env, plan.env, plan.options)
    prefix = name or game_of(plan.env)
    seen: set = set()  # (observation, mask) of the positions kept
    for number in range(plan.max_games):
        if all(len(found[name]) >= wanted[name] for name in found):
            break
        deal_seed = int(np.random.SeedSequence([seed, number]).generate_state(1)[0])
        pick = np.random.default_rng(deal_seed)
        agents = [make_agent(str(pick.choice(lineup)), context, seed=deal_seed + seat)
                  for seat in range(context.num_players)]
        env.reset(seed=deal_seed)
        wander = np.random.default_rng([seed, number, 1])
        for agent in agents:
            agent.reset()
        moves: list[int] = []
        taken = set()
        while True:
            agent_name = env.agent_selection
            if env.terminations[agent_name] or env.truncations[agent_name]:
                break
            observation = env.observe(agent_name)
            key = (observation["observation"].tobytes(), observation["action_mask"].tobytes())
            for pattern in patterns:
                if key in seen or pattern.name in taken or len(found[pattern.name]) >= wanted[pattern.name]:
                    continue
                claim = pattern.find(env.game, env.game_state)
                if claim is None:
                    continue
                position = Position(
                    id=f"{prefix}-{pattern.name}-{len(found[pattern.name]) + 1:02d}", category=pattern.name,
                    options=dict(plan.options), seed=deal_seed, moves=list(moves), seat=agent_name,
                    kind=claim.kind, claimed=sorted(claim.moves), reason=claim.reason,
                    named=[env.action_to_string(a) for a in sorted(claim.moves)])
                if not verify(plan.env, position, samples=samples, envs=envs):
                    found[pattern.name].append(position)
                    taken.add(pattern.name)
                    seen.add(key)
                    break  # one claim per position
            seat = env.possible_agents.index(agent_name)
            action = choose_action(agents[seat], env, agent_name)
            if wander.random() < explore:
                action = int(wander.choice(env.legal_actions()))
            env.step(action)
            moves.append(action)
        if progress is not None:
            progress(number + 1, {name: len(positions) for name, positions in found.items()})
    positions = [p for pattern in patterns for p in found[pattern.name]]
    if not positions:
        raise ValueError(f"no position found for {plan.env} in {plan.max_games} games")
    return Suite(env=plan.env, positions=positions)
