"""CleanRL-style single-file PPO with action masking on a kakurega env.

CleanRL's ``ppo.py`` with two changes: the env id is a kakurega one (the
single-seat view, flat ``Box`` observations, opponents inside ``step``), and
one masking line before sampling. Trains, then exports the actor as a
kakurega policy file that ``kakurega evaluate`` plays::

    python examples/cleanrl_ppo.py --env-id kakurega.envs:kakurega/animal_chain-v1 \\
        --total-timesteps 50000 --export runs/cleanrl/policy.safetensors
    kakurega evaluate animal_chain_v1 --agents policy:runs/cleanrl/policy.safetensors heuristic random

The ``kakurega.envs:`` prefix makes Gymnasium import kakurega first, so the id
also resolves inside vector-env workers (``--async-envs`` uses processes).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env-id", default="kakurega.envs:kakurega/animal_chain-v1")
    p.add_argument("--opponents", nargs="*", default=["random"], help="agent specs of the opponent seats")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-timesteps", type=int, default=50_000)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--async-envs", action="store_true", help="one process per env (gymnasium AsyncVectorEnv)")
    p.add_argument("--export", default=None, help="write the trained actor as a kakurega policy file here")
    return p.parse_args(argv)


def layer_init(layer, std=2**0.5, bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Linear(hidden, num_actions), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x)
        logits = torch.where(mask.bool(), logits, -1e8)  # the one masking line
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def make_envs(args):
    def thunk():
        return gym.make(args.env_id, opponents=list(args.opponents))

    # same-step autoreset: the observation and info["action_mask"] after a finished
    # episode are the new episode's, as CleanRL's loop expects
    kwargs = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}
    if args.async_envs:
        return gym.vector.AsyncVectorEnv([thunk] * args.num_envs, context="spawn", **kwargs)
    return gym.vector.SyncVectorEnv([thunk] * args.num_envs, **kwargs)


def train(args) -> tuple[Agent, dict]:
    torch.manual_seed(args.seed)
    envs = make_envs(args)
    obs_size = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions))
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    next_obs, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(next_obs), torch.as_tensor(info["action_mask"])
    next_done = torch.zeros(args.num_envs)
    stats = {"episodes": 0, "wins": 0, "illegal": 0, "steps": 0}
    start = time.time()
    for _ in range(num_iterations):
        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            next_obs, reward, terminations, truncations, info = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(next_obs), torch.as_tensor(info["action_mask"])
            final = info.get("final_info", {})
            for i in np.flatnonzero(final.get("_outcome", [])):
                stats["episodes"] += 1
                stats["wins"] += final["outcome"][i] == "win"
                stats["illegal"] += bool(final.get("illegal_action", [False] * args.num_envs)[i])
            stats["steps"] += args.num_envs

        with torch.no_grad():  # generalized advantage estimation, as in CleanRL
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        b_inds = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed).shuffle(b_inds)
            for start_at in range(0, batch_size, minibatch_size):
                mb = b_inds[start_at:start_at + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = (b_advantages[mb] - b_advantages[mb].mean()) / (b_advantages[mb].std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    envs.close()
    stats["seconds"] = time.time() - start
    return agent, stats


def main(argv=None) -> dict:
    args = parse_args(argv)
    agent, stats = train(args)
    win_rate = stats["wins"] / max(stats["episodes"], 1)
    print(f"{stats['steps']} steps, {stats['episodes']} episodes, win rate {win_rate:.2f}, "
          f"illegal moves {stats['illegal']}, {stats['seconds']:.1f}s")
    if args.export:
        from kakurega.agents.training import export_policy

        env_name = gym.spec(args.env_id.rpartition(":")[2]).kwargs["env_name"]  # the id's registry env
        path = export_policy(agent.actor, args.export, env_name, algorithm="ppo", training_steps=stats["steps"])
        print(f"wrote {path}")
    return stats


if __name__ == "__main__":
    main()
