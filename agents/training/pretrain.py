"""Behaviour-cloning warm start: imitate an agent (the heuristic by default) before PPO.

Sparse-reward games (a solitaire escape that random play never achieves) give
PPO nothing to learn from at first. ``pretrain.steps > 0`` first records that
many learner decisions of ``pretrain.agent`` playing the learner's seat in the
single-agent view (same env, seats and opponent pool as training; the league
entries ``self``/``snapshots`` are replaced by random players since no policy
exists yet), then fits the PPO actor to those actions (masked cross-entropy)
and the critic to the demonstrations' discounted returns, for
``pretrain.epochs`` passes. PPO then fine-tunes from there. Nothing here is
game-specific.
"""

from __future__ import annotations

import numpy as np

from kakurega.agents.base import choose_action
from kakurega.agents.specs import make_agent
from kakurega.agents.training.view import SingleAgentView


def collect_demonstrations(config: dict, agent_spec: str, steps: int, seed: int) -> dict:
    """``steps``+ decisions of ``agent_spec`` in the learner's seat: observations, masks, actions, returns."""
    opponents = [o if o["agent"] not in ("self", "snapshots") else {"agent": "random", "weight": o["weight"]}
                 for o in config["opponents"]]
    view = SingleAgentView(config["env"], config["env_kwargs"], opponents, learner_seat=config["learner_seat"],
                           illegal_action="raise")
    demo = make_agent(agent_spec, view.context, seed)
    gamma = config["ppo"]["gamma"]
    observations, masks, actions, returns = [], [], [], []
    obs, _ = view.reset(seed=seed)
    demo.reset()
    rewards: list[float] = []
    outcomes = []
    while True:
        mask = view.action_masks()
        action = choose_action(demo, view.raw, view._learner, {"observation": obs, "action_mask": mask.astype(np.int8)})
        observations.append(obs)
        masks.append(mask)
        actions.append(action)
        obs, reward, terminated, truncated, info = view.step(action)
        rewards.append(reward)
        if terminated or truncated:
            running, episode_returns = 0.0, []
            for r in reversed(rewards):
                running = r + gamma * running
                episode_returns.append(running)
            returns.extend(reversed(episode_returns))
            outcomes.append(info.get("outcome"))
            rewards = []
            if len(actions) >= steps:
                break
            obs, _ = view.reset()
            demo.reset()
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "masks": np.asarray(masks, dtype=bool),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
        "episodes": len(outcomes),
        "win_rate": sum(o == "win" for o in outcomes) / max(1, len(outcomes)),
    }


def behaviour_cloning(model, data: dict, epochs: int, batch_size: int, learning_rate: float = 1e-3, seed: int = 0) -> dict:
    """Fit a MaskablePPO policy to demonstrations; returns the final loss and action accuracy."""
    import torch as th
    import torch.nn.functional as F

    policy = model.policy
    policy.set_training_mode(True)
    device = policy.device
    obs = th.as_tensor(data["observations"], device=device)
    masks = data["masks"]
    actions = th.as_tensor(data["actions"], device=device)
    returns = th.as_tensor(data["returns"], device=device)
    rng = np.random.default_rng(seed)
    n = len(actions)
    saved_rates = [group["lr"] for group in policy.optimizer.param_groups]
    for group in policy.optimizer.param_groups:
        group["lr"] = learning_rate
    loss_value = 0.0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            loss = -log_prob.mean() + model.vf_coef * F.mse_loss(values.flatten(), returns[idx])
            policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
            loss_value = float(loss.item())
    for group, rate in zip(policy.optimizer.param_groups, saved_rates):
        group["lr"] = rate  # PPO's own schedule takes over from here
    policy.set_training_mode(False)
    with th.no_grad():
        distribution = policy.get_distribution(obs, action_masks=masks)
        predicted = distribution.distribution.probs.argmax(dim=1)
    accuracy = float((predicted == actions).float().mean().item())
    return {"loss": loss_value, "accuracy": accuracy, "samples": n}
