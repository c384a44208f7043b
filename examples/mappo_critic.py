"""A centralised critic, MAPPO-style: actors on their own observations, the critic on ``env.state()``.

    python examples/mappo_critic.py --env kakurenbo_v0 --option num_players=3 --iterations 50 \
        --export runs/mappo/policy.safetensors
    kakurega evaluate kakurenbo_v0 --option num_players=3 --agents policy:runs/mappo/policy.safetensors heuristic

Every seat plays with one shared actor (a masked MLP over that seat's
observation vector: all it may know). The critic scores the whole true state
(``env.state()``: every seat's observation and the facts nobody sees) from the
acting seat's side, and is used only in training, as centralised training with
decentralised execution intends: the exported policy file holds the actor
alone. One PPO update per batch of self-play games, Monte-Carlo returns
(what each decision's seat received from then to the end), advantages
``return - V(state)``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from kakurega.envs import make


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="kakurenbo_v0")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="env option (repeatable), e.g. num_players=3, as kakurega evaluate takes it")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--games", type=int, default=16, help="self-play games per update")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--export", default=None, help="write the trained actor as a kakurega policy file here")
    return p.parse_args(argv)


def parse_options(items: list[str]) -> dict:
    """``["num_players=3", "variant=kurayami"]`` -> ``{"num_players": 3, "variant": "kurayami"}``."""
    options = {}
    for item in items:
        key, _, value = item.partition("=")
        options[key] = int(value) if value.lstrip("-").isdigit() else value
    return options


def mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, outputs))


class Critic(nn.Module):
    """V(state, seat): the global state and a one-hot of the seat whose return it predicts."""

    def __init__(self, state_size: int, num_seats: int, hidden: int):
        super().__init__()
        self.num_seats = num_seats
        self.net = mlp(state_size + num_seats, hidden, 1)

    def forward(self, states: torch.Tensor, seats: torch.Tensor) -> torch.Tensor:
        seat_one_hot = nn.functional.one_hot(seats, self.num_seats).float()
        return self.net(torch.cat([states, seat_one_hot], dim=1)).squeeze(1)


def masked_logits(actor: nn.Module, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return torch.where(masks, actor(observations), torch.tensor(-1e8))


def collect(env, actor: nn.Module, games: int, seed: int) -> dict:
    """Play ``games`` self-play games; every decision's observation, mask, action, log-prob, state, seat and return."""
    seats = {agent: i for i, agent in enumerate(env.possible_agents)}
    rows = {key: [] for key in ("observation", "mask", "action", "log_prob", "state", "seat", "return")}
    finals = []
    for game in range(games):
        env.reset(seed=seed + game)
        decisions = []  # (agent, what it had received before deciding) of each of this game's decisions
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            returns[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            vector = torch.tensor(observation["observation"]).unsqueeze(0)
            mask = torch.tensor(observation["action_mask"], dtype=torch.bool).unsqueeze(0)
            with torch.no_grad():
                distribution = torch.distributions.Categorical(logits=masked_logits(actor, vector, mask))
                action = distribution.sample()
            decisions.append((agent, returns[agent]))
            rows["observation"].append(vector[0])
            rows["mask"].append(mask[0])
            rows["action"].append(int(action))
            rows["log_prob"].append(float(distribution.log_prob(action)))
            rows["state"].append(torch.as_tensor(env.state()))  # the critic's input, never the actor's
            rows["seat"].append(seats[agent])
            env.step(int(action))
        # Monte-Carlo return of each decision: what its seat received from then to the end
        for agent, received_before in decisions:
            rows["return"].append(returns[agent] - received_before)
        finals.append(list(returns.values()))
    batch = {key: torch.stack(value) if key in ("observation", "mask", "state") else torch.tensor(value)
             for key, value in rows.items()}
    batch["finals"] = np.array(finals)
    return batch


def update(actor, critic, optimizer, batch: dict, epochs: int, clip: float) -> dict:
    """PPO's clipped actor loss on advantages ``return - V(state)``; the critic regresses the returns."""
    returns = batch["return"].float()
    for _ in range(epochs):
        values = critic(batch["state"], batch["seat"])
        advantages = (returns - values).detach()
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        logits = masked_logits(actor, batch["observation"], batch["mask"])
        log_probs = torch.distributions.Categorical(logits=logits).log_prob(batch["action"])
        ratio = torch.exp(log_probs - batch["log_prob"].float())
        actor_loss = -torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip, 1 + clip) * advantages).mean()
        critic_loss = ((values - returns) ** 2).mean()
        optimizer.zero_grad()
        (actor_loss + 0.5 * critic_loss).backward()
        optimizer.step()
    return {"actor_loss": actor_loss.item(), "critic_loss": critic_loss.item()}


def train(args) -> tuple[nn.Module, nn.Module, dict]:
    torch.manual_seed(args.seed)
    env = make(args.env, **parse_options(args.option))
    raw = env.unwrapped
    actor = mlp(raw.layout.size, args.hidden, raw.game.num_actions)
    critic = Critic(raw.state_space.shape[0], len(env.possible_agents), args.hidden)
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.lr)
    start, decisions, losses = time.time(), 0, {}
    for iteration in range(args.iterations):
        batch = collect(env, actor, args.games, seed=args.seed + iteration * args.games)
        losses = update(actor, critic, optimizer, batch, args.epochs, args.clip)
        decisions += len(batch["action"])
    return actor, critic, {"decisions": decisions, "games": args.iterations * args.games,
                           "seconds": time.time() - start, **losses}


def main(argv=None) -> dict:
    args = parse_args(argv)
    actor, _, stats = train(args)
    print(f"{stats['games']} games, {stats['decisions']} decisions, critic loss {stats['critic_loss']:.3f}, "
          f"{stats['seconds']:.1f}s")
    if args.export:
        from kakurega.agents.training import export_policy

        path = export_policy(actor, args.export, args.env, parse_options(args.option), algorithm="ppo",
                             training_steps=stats["decisions"])
        print(f"wrote {path}")
    return stats


if __name__ == "__main__":
    main()
