"""Tianshou DQN on a kakurega game, both ways: multi-agent (Tianshou's PettingZoo recipe) and single seat.

    python examples/tianshou_dqn.py --env animal_chain_v0 --form single --epochs 5
    python examples/tianshou_dqn.py --env animal_chain_v0 --form marl --epochs 5

The multi-agent form stores other players' private observations as
``obs_next``, and gives no seat the rewards paid to it on another seat's
move, so its learners never see most of their losses while the printed
return (seat 0's whole return) counts them (see
kakurega.integrations.tianshou); the single-seat form has neither problem. ``--export PATH`` writes the learner's Q-network as a kakurega policy file.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from kakurega.envs import make
from kakurega.integrations.tianshou import single_seat_env


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="animal_chain_v0")
    p.add_argument("--form", choices=["marl", "single"], default="single")
    p.add_argument("--opponent", default="random", help="single form: agent spec of the opponent seats")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--epoch-steps", type=int, default=1000)
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--hidden", type=int, nargs="*", default=[64, 64])
    p.add_argument("--export", default=None, help="write the learner's Q-network as a kakurega policy file")
    return p.parse_args(argv)


def dqn(observation_space, action_space, hidden):
    """A masked DQN learner (Tianshou masks with ``obs.mask``)."""
    net = Net(state_shape=observation_space.shape, action_shape=int(action_space.n), hidden_sizes=hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=action_space, eps_training=0.1, eps_inference=0.0)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, n_step_return_horizon=1, target_update_freq=100)


def build(args):
    """``(algorithm, make_env, learner)``: the Tianshou algorithm, an env factory, and the learning DQN."""
    if args.form == "marl":
        def make_env():
            return PettingZooEnv(make(args.env))

        env = make_env()
        learner = dqn(env.observation_space["observation"], env.action_space, args.hidden)
        others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents[1:]]
        return MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env), make_env, learner

    def make_env():
        return single_seat_env(args.env, opponents=[args.opponent])

    env = make_env()
    learner = dqn(env.observation_space["obs"], env.action_space, args.hidden)
    return learner, make_env, learner


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    algorithm, make_env, learner = build(args)
    train_envs = DummyVectorEnv([make_env for _ in range(args.envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(args.envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    buffer = VectorReplayBuffer(20_000, len(train_envs))
    train_collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.envs)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=10,
            test_step_num_episodes=args.envs,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            show_progress=False,
            verbose=False,
            # the learner's seat is seat 0 in the multi-agent form
            multi_agent_return_reduction=(lambda returns: returns[:, 0]) if args.form == "marl" else None,
        )
    )
    if args.export:
        from kakurega.agents.training import export_policy

        export_policy(learner.policy.model.model.model, args.export, args.env, algorithm="dqn")
    return result, buffer, learner


if __name__ == "__main__":
    result, _, _ = main()
    print(result)
