"""kakurega agents: players that see only their own observation and return a legal action id.

>>> from kakurega.agents import load, make_agent
>>> bot = load("runs/kakurenbo_ppo/policy.safetensors")  # doctest: +SKIP
"""

from kakurega.agents.base import Agent, AgentContext, RandomAgent, choose_action
from kakurega.agents.policy import PolicyAgent, PolicyFileError, load
from kakurega.agents.specs import make_agent, parse_spec, register_agent_kind

__all__ = [
    "Agent",
    "AgentContext",
    "PolicyAgent",
    "PolicyFileError",
    "RandomAgent",
    "choose_action",
    "load",
    "make_agent",
    "parse_spec",
    "register_agent_kind",
]
