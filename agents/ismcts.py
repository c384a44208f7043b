"""Information-Set Monte Carlo Tree Search: a training-free search player for every game.

Single-observer IS-MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2)). Each simulation

1. draws a **determinization** from the sampler the env hands over for the
   agent's own player (a full state consistent with what that player knows;
   the agent never sees the true state);
2. descends one tree, whose nodes are the action histories seen from the
   root, using only the actions legal in *this* determinization: among the
   children available now it picks the one maximising
   ``mean + c * sqrt(ln(availability) / visits)``, where availability counts
   how often the child was legal when its parent was visited;
3. expands one untried legal action (the ``prior`` policy's move first when
   the progressive ``bias`` is on, else a random one); with progressive
   widening (``widen`` > 0) a node expands a new child only while it has
   fewer than ``widen * sqrt(visits + 1)`` children, else it selects among them;
4. rolls out to the end (uniformly random; ``greedy``: the game's cheap rollout
   policy from :mod:`kakurega.agents.rollouts`, acting on the determinized
   state; or the game's heuristic player acting on the observation the env's
   encoder gives the acting seat of the determinized state), optionally cut
   off after ``max_rollout_depth`` steps;
5. backs up the whole return vector: every edge adds the return of the seat
   that chose it, so each player maximises its own return (max^n for 3-5
   players; plain maximisation in the solitaire game).

Chance (dice, draws, reshuffles) is not a tree node: it happens inside
``Game.apply_action`` with the search's own generator, so one history can lead
to different chance outcomes, and even to different players to move, in
different simulations. Children are therefore keyed by ``(player, action)``
so that the statistics of an edge always belong to the seat that chose it.

Returns are scored from the root: ``returns(end) - returns(root)``, so games
that pay per step are valued by what is still to come. UCB uses these values
normalised to ``[0, 1]`` by the smallest and largest return seen in the
current search, which keeps ``c`` meaningful whatever the reward scale.

The move played is the root child with most visits (ties: higher mean, then
the heuristic's move when the bias is on with the heuristic prior, then lower
action id). With one legal action the agent answers without searching.
Everything random in a search comes from two generators seeded from the
agent's seed, so a fixed seed gives the same moves.

**With a policy network** (``prior=policy:PATH`` or ``prior=pretrained``) the
tree follows PUCT (AlphaZero's selection, over the legal actions of the
determinization): each step picks the action maximising
``q + c * P(a) * sqrt(N) / (1 + n(a))``, where ``P`` is the network's move
probability for the acting seat's observation of the determinization (and,
for a network trained with them, the move features of that observation), ``q``
the normalised mean return of the edge (0 before its first visit), ``N`` the
node's visits and ``n(a)`` the edge's. A new leaf is scored by the network's
value head for every seat (``leaf=value``, the default when the file has one:
returns so far plus each seat's predicted return to come), or by a rollout
(``leaf=rollout``).

Spec: ``ismcts:simulations=400,c=0.7,rollout=greedy,depth=0,bias=1,prior=greedy,widen=1,seed=3``
or ``ismcts:simulations=100,prior=policy:PATH,leaf=value``
(see :func:`make_ismcts_agent`; docs/search.md has speed and strength figures).
Every setting has a cap (:data:`MAX_SIMULATIONS` simulations, a rollout
depth of :data:`MAX_ROLLOUT_DEPTH`, ``c`` <= :data:`MAX_C`, ``bias`` <=
:data:`MAX_BIAS`, ``widen`` <= :data:`MAX_WIDEN`), refused in words past it;
a runner that bounds the time per move sets the agent's ``should_stop``
(the search then plays its best move after the simulations done so far).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

import numpy as np

from kakurega.agents.base import Agent, AgentContext
from kakurega.envs.core.game import TERMINAL

ROLLOUTS = ("random", "greedy", "heuristic")
PRIORS = ("heuristic", "greedy")
#: agent spec kinds that name a policy network, usable as ``prior=``
NETWORK_PRIORS = ("policy", "pretrained")
LEAVES = ("value", "rollout")


class _Node:
    """A tree node: the edge statistics of the action leading here, and its children."""

    __slots__ = ("children", "visits", "availability", "total")

    def __init__(self):
        #: player -> {action: _Node}; usually one player per node (see module docstring)
        self.children: dict[int, dict[int, _Node]] = {}
        self.visits = 0
        self.availability = 0
        #: sum of the returns of the seat that chose the action leading here
        self.total = 0.0


#: the largest value of each search setting: a spec can ask for much, never for hours per move or gigabytes
MAX_SIMULATIONS = 100_000
MAX_ROLLOUT_DEPTH = 100_000
MAX_C = 100.0
MAX_BIAS = 1_000.0
MAX_WIDEN = 100.0


def _check_number(value, name: str, maximum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) or not 0 <= value <= maximum:
        raise ValueError(f"ISMCTSAgent: {name} must be a number from 0 to {maximum:g} (the cap), got {value!r}")
    return float(value)


def _check_int(value, name: str, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not minimum <= value <= maximum:
        raise ValueError(f"ISMCTSAgent: {name} must be an integer from {minimum} to {maximum:,} (the cap), got {value!r}")
    return int(value)


class ISMCTSAgent(Agent):
    """Single-observer IS-MCTS over determinizations drawn by the env's sampler.

    ``simulations``: simulations per decision; ``c``: UCB exploration constant
    on returns normalised to [0, 1]; ``rollout``: ``"random"``, ``"greedy"``
    (the cheap policy the registry names for the env, ``EnvSpec.rollout``) or
    ``"heuristic"`` (the registry's heuristic for every seat);
    ``max_rollout_depth``: steps after which a rollout stops and is scored by
    the returns so far (0: play to the end); ``bias``: weight of the
    progressive bias toward the ``prior`` policy's move in the tree (0: none;
    else that move is expanded first and gets ``bias / (visits + 1)`` added to
    its UCB score); ``prior``: ``"heuristic"`` (the registry heuristic, slow)
    or ``"greedy"`` (the cheap rollout policy); ``widen``: progressive
    widening, at most ``widen * sqrt(visits + 1)`` children per node (0: off,
    every legal move is tried before any is revisited). A ``prior`` that is a
    policy spec (``policy:PATH``, ``pretrained``) switches selection to PUCT
    with that network's own probabilities (``bias`` and ``widen``, and options
    of the prior spec, are then refused: they would change nothing); ``leaf``
    (with a network prior only): ``"value"`` scores new leaves with its value head,
    ``"rollout"`` plays them out (default: value when the file has one). ``encode`` and
    ``heuristic_factory`` replace the env's encoder and the registry heuristic
    (for envs outside the registry, e.g. test games).
    """

    wants_sampler = True

    def __init__(
        self,
        context: AgentContext,
        seed: int | None = None,
        simulations: int = 400,
        c: float = 0.7,
        rollout: str = "random",
        max_rollout_depth: int = 0,
        bias: float = 0.0,
        prior: str = "heuristic",
        widen: float = 0.0,
        leaf: str | None = None,
        encode: Callable | None = None,
        heuristic_factory: Callable | None = None,
    ):
        super().__init__(context, seed)
        self.simulations = _check_int(simulations, "simulations", 1, MAX_SIMULATIONS)
        self.c = _check_number(c, "c", MAX_C)
        if rollout not in ROLLOUTS:
            raise ValueError(f"ISMCTSAgent: rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.rollout = rollout
        self.max_rollout_depth = _check_int(max_rollout_depth, "max_rollout_depth", 0, MAX_ROLLOUT_DEPTH)
        self.bias = _check_number(bias, "bias", MAX_BIAS)
        self.network = None
        if prior not in PRIORS:
            from kakurega.agents.specs import make_agent, parse_spec

            parsed = parse_spec(prior)
            if parsed.kind not in NETWORK_PRIORS:
                raise ValueError(
                    f"ISMCTSAgent: prior must be one of {', '.join(PRIORS)} or a policy network "
                    f"(policy:PATH, pretrained), got {prior!r}"
                )
            if parsed.options:  # the search reads the network's probabilities as they are
                raise ValueError(
                    f"ISMCTSAgent: prior {prior!r}: a search prior takes no options ({', '.join(parsed.options)}): "
                    "the search reads the network's own probabilities (no sampling, temperature or pruning)"
                )
            if self.bias > 0 or widen:
                raise ValueError(
                    "ISMCTSAgent: bias and widen shape a heuristic or greedy prior; a network prior searches by "
                    "PUCT, which takes neither (leave them out)"
                )
            #: the policy network guiding the search (PUCT); it never acts in the game itself
            self.network = make_agent(prior, context, seed)
            if tuple(getattr(self.network, "inputs", ("observation",))) not in (("observation",), ("observation", "move_features")):
                # the search scores positions for seats that are not to move, whose masks it does not know
                raise ValueError(
                    f"ISMCTSAgent: prior {prior!r} reads {list(self.network.inputs)}; a search prior must read "
                    "the observation vector (and the game's move features) only (export it from an MlpPolicy)"
                )
        self.prior = prior
        self.widen = _check_number(widen, "widen", MAX_WIDEN)
        if leaf is not None and self.network is None:
            raise ValueError(f"ISMCTSAgent: leaf={leaf} applies with a network prior (prior=policy:PATH or pretrained) "
                             "only; without one every leaf is scored by a rollout")
        if leaf is None:
            leaf = "value" if self.network is not None and self.network.value_layers is not None else "rollout"
        if leaf not in LEAVES:
            raise ValueError(f"ISMCTSAgent: leaf must be one of {', '.join(LEAVES)}, got {leaf!r}")
        if leaf == "value" and (self.network is None or self.network.value_layers is None):
            raise ValueError(
                "ISMCTSAgent: leaf=value needs prior=policy:PATH with a file that has a value head "
                "(a PPO policy exported by kakurega); use leaf=rollout"
            )
        self.leaf = leaf
        self.game = context.new_rules()  # its own: its caches fill from its determinizations
        self._encode = encode
        self._heuristics = None
        self._greedy = None
        uses_heuristic = rollout == "heuristic" or self.bias > 0 and prior == "heuristic"
        if self.game is None or (uses_heuristic or self.network is not None) and encode is None:
            raw = self._raw_env()
            self.game = self.game if self.game is not None else raw.game
            self._encode = self._encode or raw.encode
        if uses_heuristic:
            if heuristic_factory is None:
                from kakurega.agents.specs import load_heuristic_class

                heuristic_factory = load_heuristic_class(context.env_name)
            # One private heuristic per seat: they play every seat inside the search.
            self._heuristics = [heuristic_factory(context, seed) for _ in range(self.game.num_players)]
        if rollout == "greedy" or self.bias > 0 and prior == "greedy":
            from kakurega.agents.specs import load_rollout_policy

            self._greedy = load_rollout_policy(context.env_name)
        self._mask = np.zeros(self.game.num_actions, dtype=np.int8)
        #: facts about the last search (simulations, seconds, root visits per action)
        self.last_search: dict = {}
        #: running totals over the agent's life: searched and forced decisions, simulations, search seconds
        self.totals = {"searched": 0, "forced": 0, "simulations": 0, "seconds": 0.0}

    def _raw_env(self):
        """A raw env of the same configuration: its rules and encoder, never its state."""
        from kakurega.envs.registry import make

        return make(self.context.env_name, wrapped=False, **self.context.env_kwargs)

    # ------------------------------------------------------------------ acting
    def act(self, observation: dict, sampler=None) -> int:
        """The most visited root action after ``simulations`` determinized simulations."""
        if sampler is None:
            raise ValueError(
                "ISMCTSAgent.act needs a determinization sampler for its own player; "
                "drive it through kakurega.agents.choose_action (or pass env.unwrapped.determinization_sampler(agent))"
            )
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("ISMCTSAgent.act: the action mask has no legal action (is it this agent's turn?)")
        move_seed = int(self.rng.integers(2**63))
        if len(legal) == 1:
            self.last_search = {"simulations": 0, "seconds": 0.0, "visits": {legal[0]: 0}}
            self.totals["forced"] += 1
            return legal[0]
        chance_rng = np.random.default_rng(move_seed)
        choice_rng = random.Random(move_seed)
        if self._heuristics is not None:
            for k, heuristic in enumerate(self._heuristics):
                heuristic.rng = np.random.default_rng([move_seed, k])
        start = time.perf_counter()
        root = _Node()
        scale = [math.inf, -math.inf]  # smallest and largest return seen
        done = 0
        for simulation in range(self.simulations):
            if simulation and self.should_stop is not None and self.should_stop():
                break  # the runner's time is up: the best move of the simulations so far
            done += 1
            state = sampler(chance_rng)
            if simulation == 0:
                self._check_root(state, legal)
                root_player = self.game.current_player(state)
            if self.network is not None:
                self._simulate_puct(root, state, chance_rng, choice_rng, scale)
            else:
                self._simulate(root, state, chance_rng, choice_rng, scale)
        seconds = time.perf_counter() - start
        children = root.children.get(root_player, {})
        # Ties in visits go to the higher mean, then (with the bias on) the
        # heuristic's own move for this very observation, then the lower id.
        hint = -1
        if self.bias > 0 and self.prior == "heuristic":
            heuristic = self._heuristics[root_player]
            heuristic.reset()
            hint = int(heuristic.act(observation))
        best = max(
            (a for a in legal if a in children),
            key=lambda a: (children[a].visits, children[a].total / max(children[a].visits, 1), a == hint, -a),
        )
        self.last_search = {
            "simulations": done,
            "seconds": seconds,
            "visits": {a: children[a].visits for a in legal if a in children},
        }
        self.totals["searched"] += 1
        self.totals["simulations"] += done
        self.totals["seconds"] += seconds
        return int(best)

    def _check_root(self, state, legal: list[int]) -> None:
        """A determinization must offer exactly the legal actions of the observation."""
        if self.game.legal_actions(state) != legal:
            raise RuntimeError(
                f"ISMCTSAgent: the sampler's determinization has legal actions {self.game.legal_actions(state)} "
                f"but the observation's mask allows {legal}; the sampler is not for this agent's current turn"
            )

    # ------------------------------------------------------------------ search
    def _simulate(self, root: _Node, state, chance_rng, choice_rng: random.Random, scale: list) -> None:
        """One simulation on ``state`` (a determinization, modified in place)."""
        game = self.game
        base = game.returns(state)
        c = self.c
        path: list[tuple[_Node, int]] = []  # (edge node, seat that chose it)
        node = root
        expanded = False
        lo, hi = scale
        spread = hi - lo
        widen = self.widen
        root.visits += 1  # the root is no edge: count its visits here (progressive widening reads them)
        prior = self._heuristics if self.bias > 0 and self.prior == "heuristic" else None
        greedy_prior = self._greedy if self.bias > 0 and self.prior == "greedy" else None
        bias = self.bias
        # --- selection and expansion
        while True:
            player = game.current_player(state)
            if player == TERMINAL:
                break
            legal = game.legal_actions(state)
            if not legal:
                break
            kids = node.children.get(player)
            if kids is None:
                kids = node.children[player] = {}
            hint = -1
            if prior is not None and len(legal) > 1:
                hint = self._heuristic_action(prior[player], state, player, legal, fresh=True)
            elif greedy_prior is not None and len(legal) > 1:
                hint = greedy_prior(game, state, player, legal, choice_rng.random)
            untried = [a for a in legal if a not in kids]
            if untried and widen:
                # progressive widening: at most widen * sqrt(visits) children, unless none is legal here
                tried = len(legal) - len(untried)
                if tried and len(kids) >= widen * math.sqrt(node.visits + 1):
                    untried = None
            if untried:
                if hint >= 0 and hint in kids and greedy_prior is not None:
                    for _ in range(3):  # a randomised prior may name another, untried move
                        hint = greedy_prior(game, state, player, legal, choice_rng.random)
                        if hint not in kids:
                            break
                if hint >= 0 and hint not in kids:
                    action = hint
                else:
                    action = untried[int(choice_rng.random() * len(untried))]
                child = kids[action] = _Node()
                expanded = True
            else:
                best_score = -math.inf
                child = None
                action = legal[0]
                for a in legal:
                    k = kids.get(a)
                    if k is None:
                        continue
                    mean = k.total / k.visits
                    if spread > 0:
                        mean = (mean - lo) / spread
                    score = mean + c * math.sqrt(math.log(k.availability) / k.visits) if k.availability > 1 else mean
                    if a == hint:
                        # progressive bias: the heuristic's move is favoured while its visits are few
                        score += bias / (k.visits + 1)
                    if score > best_score:
                        best_score, child, action = score, k, a
            for a in legal:
                if a in kids:
                    kids[a].availability += 1
            path.append((child, player))
            game.apply_action(state, action, chance_rng)
            node = child
            if expanded:
                break
        # --- rollout
        if expanded:
            self._rollout(state, chance_rng, choice_rng)
        returns = (game.returns(state) - base).tolist()
        low, high = min(returns), max(returns)
        if low < scale[0]:
            scale[0] = low
        if high > scale[1]:
            scale[1] = high
        # --- backpropagation (max^n: each edge keeps the return of its chooser)
        for edge, player in path:
            edge.visits += 1
            edge.total += returns[player]

    def _network_input(self, state, seat: int, legal) -> np.ndarray:
        """The prior network's input for ``seat`` in a determinization: its observation, then (when the network
        reads them) the move features of that observation with ``legal`` as the mask (none for a seat not to move)."""
        vector = self._encode(state, seat)
        features = self.network.move_features
        if features is None:
            return vector
        mask = np.zeros(self.context.num_actions, dtype=np.int8)
        mask[list(legal)] = 1
        return np.concatenate([vector, features({"observation": vector, "action_mask": mask})])

    def _simulate_puct(self, root: _Node, state, chance_rng, choice_rng: random.Random, scale: list) -> None:
        """One PUCT simulation guided by the policy network (see the module docstring)."""
        game = self.game
        network = self.network
        base = game.returns(state)
        c = self.c
        lo, hi = scale
        spread = hi - lo
        path: list[tuple[_Node, int]] = []
        node = root
        root.visits += 1
        expanded = False
        while True:
            player = game.current_player(state)
            if player == TERMINAL:
                break
            legal = game.legal_actions(state)
            if not legal:
                break
            kids = node.children.get(player)
            if kids is None:
                kids = node.children[player] = {}
            if len(legal) == 1:
                action = legal[0]
            else:
                priors = network.probabilities(self._network_input(state, player, legal), legal)
                explore = c * math.sqrt(node.visits)
                best_score = -math.inf
                action = legal[0]
                for a, p in zip(legal, priors):
                    k = kids.get(a)
                    if k is None or k.visits == 0:
                        q, n = 0.0, 0
                    else:
                        q = k.total / k.visits
                        q = (q - lo) / spread if spread > 0 else 0.5
                        n = k.visits
                    score = q + explore * p / (1 + n)
                    if score > best_score:
                        best_score, action = score, a
            child = kids.get(action)
            if child is None:
                child = kids[action] = _Node()
                expanded = True
            for a in legal:
                if a in kids:
                    kids[a].availability += 1
            path.append((child, player))
            game.apply_action(state, action, chance_rng)
            node = child
            if expanded:
                break
        returns = game.returns(state) - base
        if expanded and game.current_player(state) != TERMINAL:
            if self.leaf == "value":
                to_move = game.current_player(state)
                legal_now = game.legal_actions(state) if network.move_features is not None else ()
                for seat in range(game.num_players):
                    returns[seat] += network.value(self._network_input(state, seat, legal_now if seat == to_move else ()))
            else:
                self._rollout(state, chance_rng, choice_rng)
                returns = game.returns(state) - base
        returns = returns.tolist()
        low, high = min(returns), max(returns)
        if low < scale[0]:
            scale[0] = low
        if high > scale[1]:
            scale[1] = high
        for edge, player in path:
            edge.visits += 1
            edge.total += returns[player]

    def _rollout(self, state, chance_rng, choice_rng: random.Random) -> None:
        """Play ``state`` on to the end (or ``max_rollout_depth`` steps) with the rollout policy."""
        game = self.game
        limit = self.max_rollout_depth or math.inf
        draw = choice_rng.random
        heuristics = self._heuristics if self.rollout == "heuristic" else None
        if heuristics is not None:
            for heuristic in heuristics:
                heuristic.reset()
        greedy = self._greedy if self.rollout == "greedy" else None
        depth = 0
        while depth < limit:
            player = game.current_player(state)
            if player == TERMINAL:
                return
            legal = game.legal_actions(state)
            if not legal:
                return
            if len(legal) == 1:
                action = legal[0]
            elif greedy is not None:
                action = greedy(game, state, player, legal, draw)
            elif heuristics is None:
                action = legal[int(draw() * len(legal))]
            else:
                action = self._heuristic_action(heuristics[player], state, player, legal)
            game.apply_action(state, action, chance_rng)
            depth += 1

    def _heuristic_action(self, heuristic: Agent, state, player: int, legal: list[int], fresh: bool = False) -> int:
        """The heuristic's move for ``player``, from that seat's observation of the determinization.

        ``fresh``: clear the heuristic's memory first (tree nodes are visited out of game order).
        """
        if fresh:
            heuristic.reset()
        mask = self._mask
        mask[:] = 0
        mask[legal] = 1
        action = int(heuristic.act({"observation": self._encode(state, player), "action_mask": mask}))
        if action not in legal:
            raise RuntimeError(
                f"ISMCTSAgent: the rollout heuristic {type(heuristic).__name__} chose illegal action {action} "
                f"({self.game.action_to_string(state, action)}); legal: {legal}"
            )
        return action


# ---------------------------------------------------------------- spec kind
_OPTIONS = {
    "simulations": ("simulations", int),
    "c": ("c", float),
    "rollout": ("rollout", str),
    "depth": ("max_rollout_depth", int),
    "max_rollout_depth": ("max_rollout_depth", int),
    "bias": ("bias", float),
    "prior": ("prior", str),
    "widen": ("widen", float),
    "leaf": ("leaf", str),
    "seed": (None, int),
}


def make_ismcts_agent(context: AgentContext, seed: int | None, options: dict, argument: str | None) -> ISMCTSAgent:
    """Factory of the ``ismcts`` spec kind: ``ismcts:simulations=400,c=0.7,rollout=random,depth=0,seed=3``.

    ``seed`` in the options overrides the seed the runner passes at construction, and is mixed into every
    seed a runner gives the agent before a game (:meth:`~kakurega.agents.base.Agent.reseed`).
    """
    if argument is not None:
        raise ValueError(f"agent spec 'ismcts' takes only key=value options, got the argument {argument!r}")
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError(
            f"agent spec 'ismcts': unknown option(s) {', '.join(unknown)}; expected "
            "simulations=INT, c=FLOAT, rollout=random|greedy|heuristic, depth=INT (0: to the end), "
            "bias=FLOAT (progressive bias weight, 0: none), prior=heuristic|greedy|policy:PATH|pretrained "
            "(the policy the bias favours; a network switches to PUCT), "
            "widen=FLOAT (progressive widening, 0: off), leaf=value|rollout (with a network prior), seed=INT"
        )
    kwargs, given, own_seed = {}, {}, None
    for key, text in options.items():
        name, convert = _OPTIONS[key]
        if name in given:  # two spellings of one setting (depth and max_rollout_depth)
            raise ValueError(f"agent spec 'ismcts': options {given[name]} and {key} set the same thing; give one")
        given[name] = key
        try:
            value = convert(text)
        except ValueError:
            raise ValueError(
                f"agent spec 'ismcts': option {key}={text!r} is not a valid {convert.__name__}"
            ) from None
        if name is None:
            if not 0 <= value < 2**63:
                raise ValueError(f"agent spec 'ismcts': option seed={text!r}: expected an integer from 0 to 2**63 - 1")
            seed = own_seed = value
        else:
            kwargs[name] = value
    agent = ISMCTSAgent(context, seed, **kwargs)
    agent.own_seed = own_seed
    return agent


def register() -> None:
    """Make ``ismcts:...`` specs work wherever agent specs are accepted."""
    from kakurega.agents.specs import register_agent_kind

    register_agent_kind(
        "ismcts",
        make_ismcts_agent,
        "Information-Set MCTS over determinizations: "
        "ismcts:simulations=400,c=0.7,rollout=random|greedy|heuristic,depth=0,bias=0,"
        "prior=heuristic|greedy|policy:PATH|pretrained,widen=0,leaf=value|rollout",
    )


register()
