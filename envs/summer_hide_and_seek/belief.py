"""The public belief: the squares where the child can be, from public information only.

Public information in a round: the map, the start rule (a path square), each
child turn's announcement (total cost and icon multiset), the seeker pieces
that blocked each child turn, and every wrong guess. The belief is computed
turn by turn:

    B_0 = all path squares                       (before the first announcement)
    B_t+1 = Walks(B_t, cost_t, icons_t, blocked_t) minus the squares guessed
            in the seekers' turn that followed (the child was not found there)

``Walks`` returns the end squares of every sequence of lines that starts in
``B_t``, obeys the static line rules (straight, first square in a direction,
move/shortcut kinds, the white-end rule and the ``strict_moves`` option), never
ends a line on a blocked square, costs exactly ``cost_t`` and reaches exactly
the announced icon multiset (in any order).

**Soundness.** The child's real walk is one of those sequences, so the true
square is always in the belief. It is an over-approximation: it ignores the
stroke's history (lines already drawn, squares visited in earlier turns), the
no-revisit rule inside a turn, and the fact that the child was never stuck.
Tracking strokes exactly would mean enumerating sets of visited squares,
exponential in the round's length.

**Cost.** ``Walks`` is a dynamic programme over states (cost spent 0..5,
remaining icon sub-multiset) whose value is a bitmask of squares; one step
maps a whole bitmask through 8-bit lookup tables (``image``), so an update costs
about ``6 x 2^k x ceil(S/8)`` table lookups for ``k`` announced icons and ``S``
squares, independent of the number of turns so far. For speed, ``propagate``
runs the programme as a precompiled list of edges per announcement, looks up
the images of both line costs at once (packed in one integer) and keeps
bounded caches of recent images and results (the first turn of every round
repeats): about 3 µs per announcement on average in random play on the
default map. The same tables run backwards (``completion_sets``) to prune the
search that resamples the child's hidden stroke.
"""

from __future__ import annotations

from kakurega.envs.core.cache import remember

PATH_CATEGORY = -1  #: target category of path squares (no icon)
#: lookup tables of BeliefModel per map (lines by cost, category masks), shared by its models: functions
#: of the map alone. The caches of computed results are per model (see BeliefModel.__init__).
_SHARED: dict[tuple, dict] = {}
SHARED_SIZE = 8  #: maps whose tables _SHARED keeps (a model of another map builds its own)
PLANS_SIZE = 512  #: compiled plans per model, one per announcement (cost, icons) asked about
IMAGES_SIZE = 4096  #: packed line images per model, by source mask
RESULTS_SIZE = 2048  #: propagate() results per model, by (mask, cost, icons, blocked)


def iter_bits(mask: int):
    """Indices of the set bits of ``mask``, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(squares) -> int:
    """Bitmask with the bits of ``squares`` set (negative entries ignored)."""
    mask = 0
    for s in squares:
        if s >= 0:
            mask |= 1 << s
    return mask


def _image_tables(neighbours: list[int], num_squares: int) -> list[list[int]]:
    """8-bit lookup tables: ``tables[j][v]`` = OR of ``neighbours[8j + b]`` for bits b of v."""
    tables = []
    for j in range((num_squares + 7) // 8):
        table = [0] * 256
        for v in range(1, 256):
            low = v & -v
            bit = 8 * j + low.bit_length() - 1
            table[v] = table[v ^ low] | (neighbours[bit] if bit < num_squares else 0)
        tables.append(table)
    return tables


def _image(tables: list[list[int]], mask: int) -> int:
    out = 0
    j = 0
    while mask:
        byte = mask & 255
        if byte:
            out |= tables[j][byte]
        mask >>= 8
        j += 1
    return out


def _remove_one(icons: tuple[int, ...], icon: int) -> tuple[int, ...]:
    i = icons.index(icon)
    return icons[:i] + icons[i + 1 :]


def _sub_multisets(icons: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every sub-multiset of the sorted tuple ``icons``, as sorted tuples."""
    result = {()}
    for icon in icons:
        result |= {tuple(sorted(sub + (icon,))) for sub in result}
    return sorted(result, key=lambda t: (len(t), t))


class BeliefModel:
    """Forward/backward set dynamics of the child's square over one announced turn."""

    def __init__(self, lines_by_cost: dict[int, list[list[int]]], icon_of: list[int], num_icons: int):
        """``lines_by_cost[k][p]``: squares a line of cost ``k`` from ``p`` may reach (static rules)."""
        self.num_squares = S = len(icon_of)
        self.costs = tuple(sorted(lines_by_cost))
        #: squares of each target category: PATH_CATEGORY or an icon type
        self.category_mask = {PATH_CATEGORY: mask_of(s for s, i in enumerate(icon_of) if i < 0)}
        for icon in range(num_icons):
            self.category_mask[icon] = mask_of(s for s, i in enumerate(icon_of) if i == icon)
        lines = tuple((k, tuple(tuple(t) for t in lines_by_cost[k])) for k in self.costs)
        categories = tuple(sorted(self.category_mask.items()))
        # The lookup tables are functions of the map alone: the models of one
        # map (one per game instance) share them.
        shared = _SHARED.get((lines, categories))
        if shared is None:
            shared = remember(_SHARED, (lines, categories), self._tables(lines_by_cost), SHARED_SIZE)
        self.forward, self.backward, self._packed_tables = shared["forward"], shared["backward"], shared["packed"]
        self._num_bytes = (S + 7) // 8
        #: ``blocked * _spread`` repeats a square mask at every cost's offset
        self._spread = sum(1 << (i * S) for i in range(len(self.costs)))
        self._packed_all = ((1 << S) - 1) * self._spread
        # Caches, per model (that is, per rules object), never shared: their
        # keys record the questions asked, and an agent may ask about
        # announcements it could make from a square only it knows.
        #: (cost, icons) -> compiled plan (see _plan)
        self._plans: dict = {}
        # bounded caches: packed images of recent source masks, recent results
        # (the first turn of a round always repeats)
        self._images: dict = {}
        self._results: dict = {}

    def _tables(self, lines_by_cost: dict[int, list[list[int]]]) -> dict:
        """8-bit image tables of the lines, forward and backward per cost, and of all costs packed."""
        S = self.num_squares
        forward, backward = {}, {}
        for k, targets in lines_by_cost.items():
            succ = [mask_of(t) for t in targets]
            pred = [0] * S
            for p, t in enumerate(targets):
                for q in t:
                    pred[q] |= 1 << p
            forward[k] = _image_tables(succ, S)
            backward[k] = _image_tables(pred, S)
        # propagate() takes the images of every line cost in one pass: the
        # image by the i-th cost sits at bit offset i * S of one packed int.
        packed = [0] * S
        for i, k in enumerate(self.costs):
            for p, t in enumerate(lines_by_cost[k]):
                packed[p] |= mask_of(t) << (i * S)
        return {"forward": forward, "backward": backward, "packed": _image_tables(packed, S)}

    def __getstate__(self):
        # the caches are pure speed-ups: a copy starts with empty ones of its own
        return {**self.__dict__, "_plans": {}, "_images": {}, "_results": {}}

    def image(self, mask: int, cost: int) -> int:
        """Squares one line of ``cost`` can reach from some square of ``mask`` (static rules)."""
        return _image(self.forward[cost], mask)

    def propagate(self, mask: int, cost: int, icons: tuple[int, ...], blocked: int = 0) -> int:
        """End squares of walks from ``mask`` costing exactly ``cost`` and reaching exactly ``icons``.

        ``icons`` is the announced multiset as a sorted tuple of icon types;
        no line may end on a square of ``blocked``. Runs the dynamic programme
        of :meth:`_plan` over (cost spent, icons still to reach), one packed
        image per non-empty node.
        """
        if len(icons) > cost:
            return 0  # each line reaches at most one icon
        if cost == 0:
            return mask
        key = (mask, cost, icons, blocked)
        result = self._results.get(key)
        if result is not None:
            return result
        plan = self._plans.get((cost, icons))
        if plan is None:
            plan = remember(self._plans, (cost, icons), self._plan(cost, icons), PLANS_SIZE)
        steps, num_nodes, final = plan
        allowed = self._packed_all & ~(blocked * self._spread)
        images = self._images
        tables, num_bytes = self._packed_tables, self._num_bytes
        squares = [0] * num_nodes
        squares[0] = mask
        for node, edges in steps:
            source = squares[node]
            if not source:
                continue
            reached = images.get(source)
            if reached is None:
                reached = 0
                for table, byte in zip(tables, source.to_bytes(num_bytes, "little")):
                    reached |= table[byte]
                remember(images, source, reached, IMAGES_SIZE)
            reached &= allowed
            for shift, target, category in edges:
                squares[target] |= reached >> shift & category
        return remember(self._results, key, squares[final], RESULTS_SIZE)

    def _plan(self, cost: int, icons: tuple[int, ...]):
        """The dynamic programme of :meth:`propagate` for one announcement, as a flat list of edges.

        Nodes are (cost spent, icons still to reach); node 0 is (0, icons)
        (``len(icons) <= cost``). A line of cost ``k`` from node (spent, rem)
        lands on a path square (node (spent + k, rem)) or on the icon of a type
        in ``rem`` (node (spent + k, rem minus that icon)). Nodes that cannot
        finish in time (more icons left than cost left: each line reaches at
        most one icon) are left out. Returns ``(steps, number of nodes, index
        of (cost, ()))`` with ``steps = [(node, [(bit offset of the line
        cost's image, target node, category squares), ...]), ...]`` in order
        of cost spent.
        """
        index = {(0, icons): 0}
        for spent in range(cost + 1):
            for rem in _sub_multisets(icons):
                if len(rem) <= cost - spent and (spent, rem) not in index:
                    index[(spent, rem)] = len(index)
        steps = []
        for (spent, rem), node in index.items():  # ordered by cost spent
            edges = []
            for i, k in enumerate(self.costs):
                landings = [(rem, PATH_CATEGORY)] + [(_remove_one(rem, icon), icon) for icon in sorted(set(rem))]
                for after, category in landings:
                    if (spent + k, after) in index:
                        edges.append((i * self.num_squares, index[(spent + k, after)], self.category_mask[category]))
            if edges:
                steps.append((node, tuple(edges)))
        return steps, len(index), index[(cost, ())]

    def completion_sets(self, target: int, cost: int, icons: tuple[int, ...], blocked: int = 0) -> dict:
        """``{(spent, remaining icons): squares}`` from which a turn can still be completed.

        A square ``p`` is in ``sets[(spent, rem)]`` when some walk from ``p``
        costing exactly ``cost - spent`` reaches exactly the icons ``rem`` and
        ends in ``target``, never ending a line on ``blocked`` (static rules,
        the same over-approximation as :meth:`propagate`).
        """
        allowed = ~blocked
        path_mask = self.category_mask[PATH_CATEGORY]
        sets = {(cost, ()): target}
        subs = _sub_multisets(icons)
        for spent in range(cost - 1, -1, -1):
            for rem in subs:
                if len(rem) > cost - spent:
                    continue
                squares = 0
                for k in self.costs:
                    if spent + k > cost:
                        continue
                    after = spent + k
                    landing = sets.get((after, rem), 0) & path_mask
                    for icon in set(rem):
                        landing |= sets.get((after, _remove_one(rem, icon)), 0) & self.category_mask[icon]
                    landing &= allowed
                    if landing:
                        squares |= _image(self.backward[k], landing)
                if squares:
                    sets[(spent, rem)] = squares
        return sets
