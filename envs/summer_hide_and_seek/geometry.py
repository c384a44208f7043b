"""Stroke geometry on the grid, exact in integers.

Every square sits on the integer point (row, column) of its cell, so a line of
the stroke is a segment between two lattice points, horizontal, vertical or at
45 degrees. Two such segments can only meet on lattice points (two orthogonal
ones, or an orthogonal and a diagonal one) or on half-integer points (two
diagonals of opposite slope crossing inside a 2x2 block), so integer
orientation tests (cross products) decide everything exactly, with no floats.

**Conflict** (the rules' "overlap or cross"): two segments conflict when they
share any point that is not an endpoint of both. So

- two diagonals crossing inside a 2x2 block conflict (they share the centre);
- collinear segments sharing a stretch conflict (overlap);
- segments touching only at a shared end do not conflict: that is the joint of
  two consecutive lines of the stroke (touching an older line's end would be a
  revisit, which the rules forbid separately);
- a segment passing through another one's endpoint conflicts (T-junction).
"""

from __future__ import annotations

Point = tuple[int, int]

#: the 8 directions of a line: (d_row, d_col)
DIRECTIONS: tuple[Point, ...] = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def is_straight(a: Point, b: Point) -> bool:
    """True when a != b lie on one horizontal, vertical or 45-degree line."""
    dr, dc = b[0] - a[0], b[1] - a[1]
    return (dr, dc) != (0, 0) and (dr == 0 or dc == 0 or abs(dr) == abs(dc))


def is_adjacent(a: Point, b: Point) -> bool:
    """True when b is one of the 8 neighbours of a (orthogonal or diagonal)."""
    return a != b and max(abs(b[0] - a[0]), abs(b[1] - a[1])) == 1


def points_between(a: Point, b: Point) -> list[Point]:
    """Lattice points strictly inside the straight segment a-b.

    >>> points_between((0, 0), (0, 3))
    [(0, 1), (0, 2)]
    >>> points_between((2, 2), (0, 0))
    [(1, 1)]
    """
    if not is_straight(a, b):
        raise ValueError(f"{a} -> {b} is not a horizontal, vertical or 45-degree line")
    dr, dc = b[0] - a[0], b[1] - a[1]
    n = max(abs(dr), abs(dc))
    sr, sc = (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)
    return [(a[0] + k * sr, a[1] + k * sc) for k in range(1, n)]


def orientation(a: Point, b: Point, c: Point) -> int:
    """Sign of the cross product (b - a) x (c - a): 0 when a, b, c are collinear."""
    cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (cross > 0) - (cross < 0)


def _on_segment(a: Point, b: Point, p: Point) -> bool:
    """p (collinear with a-b) lies on the closed segment a-b."""
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def segments_intersect(a: Point, b: Point, c: Point, d: Point) -> bool:
    """True when the closed segments a-b and c-d share at least one point."""
    o1, o2, o3, o4 = orientation(a, b, c), orientation(a, b, d), orientation(c, d, a), orientation(c, d, b)
    if o1 != o2 and o3 != o4 and 0 not in (o1, o2, o3, o4):
        return True  # proper crossing
    return (
        (o1 == 0 and _on_segment(a, b, c))
        or (o2 == 0 and _on_segment(a, b, d))
        or (o3 == 0 and _on_segment(c, d, a))
        or (o4 == 0 and _on_segment(c, d, b))
    )


def segments_conflict(a: Point, b: Point, c: Point, d: Point) -> bool:
    """True when segments a-b and c-d share a point that is not an endpoint of both.

    >>> segments_conflict((0, 0), (1, 1), (0, 1), (1, 0))  # diagonals crossing in a 2x2 block
    True
    >>> segments_conflict((0, 0), (0, 2), (0, 1), (0, 3))  # collinear overlap
    True
    >>> segments_conflict((0, 0), (1, 1), (1, 1), (2, 0))  # touching at a shared end only
    False
    """
    shared = {a, b} & {c, d}
    if not shared:
        return segments_intersect(a, b, c, d)
    if len(shared) == 2:
        return True  # the same segment
    (joint,) = shared
    other_ab = b if a == joint else a
    other_cd = d if c == joint else c
    if orientation(joint, other_ab, other_cd) != 0:
        return False  # two straight segments through one point, not collinear: they meet only there
    # collinear: they overlap when both leave the joint on the same side
    return (other_ab[0] - joint[0]) * (other_cd[0] - joint[0]) + (other_ab[1] - joint[1]) * (other_cd[1] - joint[1]) > 0


def first_squares(points: list[Point], square_at) -> list[list[tuple[int, int]]]:
    """For every square, the first square met in each of the 8 directions.

    ``points[i]`` is square i's cell; ``square_at(row, col)`` returns a square
    index, -1 for terrain, or None off the grid. Returns ``out[i]`` = list of
    ``(j, distance)``: lines never jump over a square, so these are the only
    squares a line from i can reach (distance 1: adjacent; more: over terrain).
    """
    out = []
    for r, c in points:
        targets = []
        for dr, dc in DIRECTIONS:
            k = 1
            while True:
                j = square_at(r + k * dr, c + k * dc)
                if j is None:
                    break
                if j >= 0:
                    targets.append((j, k))
                    break
                k += 1
        out.append(targets)
    return out
