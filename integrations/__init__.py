"""Bridges from kakurega envs to other reinforcement-learning libraries.

Each bridge imports its library only when used; none is imported by
``kakurega.envs`` or ``kakurega.agents``. docs/integrations.md has one section
per library (the one line, a tested example, and what does not apply).

- :mod:`~kakurega.integrations.flat` — ``flat_observation_v0(env)``: PettingZoo
  AEC envs whose observation is the flat ``Box`` (mask in ``info`` and
  ``action_mask(agent)``), for SuperSuit and other ``Box``-only tools
- :mod:`~kakurega.integrations.openspiel` — every registered game as an
  OpenSpiel Python game (``pyspiel.load_game("python_kakurega_<game>")``);
  :mod:`~kakurega.integrations.openspiel_bots` — any agent spec as a
  ``pyspiel.Bot``, and IS-MCTS for ``pyspiel.evaluate_bots``
- :mod:`~kakurega.integrations.tianshou` — Tianshou's multi-agent form and the
  single-seat form (extra ``tianshou``)
- :mod:`~kakurega.integrations.rllib` — Ray RLlib multi-agent env with action
  masking, module specs, policy mappings, training and export (extra ``rllib``)
"""
