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
squares: tens of microseconds on the default map, independent of the number of
turns so far. The same tables run backwards (``completion_sets``) to prune the
search that resamples the child's hidden stroke.
"""

from __future__ import annotations

PATH_CATEGORY = -1  #: target category of path squares (no icon)


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
        self.num_squares = len(icon_of)
        self.costs = tuple(sorted(lines_by_cost))
        self.forward = {}
        self.backward = {}
        for k, targets in lines_by_cost.items():
            succ = [mask_of(t) for t in targets]
            pred = [0] * self.num_squares
            for p, t in enumerate(targets):
                for q in t:
                    pred[q] |= 1 << p
            self.forward[k] = _image_tables(succ, self.num_squares)
            self.backward[k] = _image_tables(pred, self.num_squares)
        #: squares of each target category: PATH_CATEGORY or an icon type
        self.category_mask = {PATH_CATEGORY: mask_of(s for s, i in enumerate(icon_of) if i < 0)}
        for icon in range(num_icons):
            self.category_mask[icon] = mask_of(s for s, i in enumerate(icon_of) if i == icon)

    def image(self, mask: int, cost: int) -> int:
        """Squares one line of ``cost`` can reach from some square of ``mask`` (static rules)."""
        return _image(self.forward[cost], mask)

    def propagate(self, mask: int, cost: int, icons: tuple[int, ...], blocked: int = 0) -> int:
        """End squares of walks from ``mask`` costing exactly ``cost`` and reaching exactly ``icons``.

        ``icons`` is the announced multiset as a sorted tuple of icon types;
        no line may end on a square of ``blocked``.
        """
        if cost == 0:
            return mask if not icons else 0
        allowed = ~blocked
        path_mask = self.category_mask[PATH_CATEGORY]
        layers: list[dict] = [{} for _ in range(cost + 1)]
        layers[0][icons] = mask
        for spent in range(cost):
            for rem, squares in layers[spent].items():
                if not squares or len(rem) > cost - spent:
                    continue
                for k in self.costs:
                    if spent + k > cost:
                        continue
                    reached = _image(self.forward[k], squares) & allowed
                    if not reached:
                        continue
                    target = layers[spent + k]
                    on_path = reached & path_mask
                    if on_path and len(rem) <= cost - spent - k:
                        target[rem] = target.get(rem, 0) | on_path
                    for icon in set(rem):
                        on_icon = reached & self.category_mask[icon]
                        if on_icon:
                            rest = _remove_one(rem, icon)
                            target[rest] = target.get(rest, 0) | on_icon
        return layers[cost].get((), 0)

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
