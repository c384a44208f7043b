"""Stroke geometry: exact crossing / overlap decisions for orthogonal and 45-degree segments."""

import itertools

import pytest

from kakurega.envs.summer_hide_and_seek.geometry import (
    is_adjacent,
    is_straight,
    points_between,
    segments_conflict,
    segments_intersect,
)

# (name, segment a-b, segment c-d, conflict?) ; points are (row, column)
CONFLICT_CASES = [
    ("two diagonals crossing inside a 2x2 block", ((0, 0), (1, 1)), ((0, 1), (1, 0)), True),
    ("long diagonals crossing at a half-integer point", ((0, 0), (3, 3)), ((0, 3), (3, 0)), True),
    ("diagonals crossing at a lattice point", ((0, 0), (2, 2)), ((0, 2), (2, 0)), True),
    ("parallel diagonals one row apart", ((0, 0), (1, 1)), ((1, 0), (2, 1)), False),
    ("diagonals of a 2x2 block sharing no point (side by side)", ((0, 0), (1, 1)), ((0, 2), (1, 3)), False),
    ("orthogonal crossing (plus sign)", ((1, 0), (1, 2)), ((0, 1), (2, 1)), True),
    ("horizontal crossed by a diagonal on a terrain cell", ((1, 0), (1, 2)), ((0, 0), (2, 2)), True),
    ("vertical meets a diagonal at the diagonal's middle", ((0, 1), (2, 1)), ((0, 0), (2, 2)), True),
    ("collinear overlap", ((0, 0), (0, 2)), ((0, 1), (0, 3)), True),
    ("collinear containment", ((0, 0), (0, 3)), ((0, 1), (0, 2)), True),
    ("collinear diagonal overlap", ((0, 0), (2, 2)), ((1, 1), (3, 3)), True),
    ("the same segment", ((0, 0), (0, 2)), ((0, 2), (0, 0)), True),
    ("collinear, touching at a shared end only", ((0, 0), (0, 1)), ((0, 1), (0, 3)), False),
    ("collinear, shared end, going back over it", ((0, 0), (0, 2)), ((0, 2), (0, 1)), True),
    ("touching at a shared end only (turn)", ((0, 0), (1, 1)), ((1, 1), (2, 0)), False),
    ("touching at a shared end only (orthogonal then diagonal)", ((0, 0), (0, 1)), ((0, 1), (1, 2)), False),
    ("collinear, disjoint with a gap", ((0, 0), (0, 1)), ((0, 2), (0, 3)), False),
    ("T-junction: an end on the other's middle", ((0, 0), (0, 2)), ((0, 1), (1, 1)), True),
    ("far apart", ((0, 0), (1, 0)), ((5, 5), (6, 6)), False),
    ("orthogonal segments that would cross only if extended", ((0, 0), (0, 1)), ((1, 2), (3, 2)), False),
]


@pytest.mark.parametrize("name,ab,cd,expected", CONFLICT_CASES, ids=[c[0] for c in CONFLICT_CASES])
def test_conflict_table(name, ab, cd, expected):
    # the answer does not depend on the order of the segments or of their ends
    for (a, b), (c, d) in ((ab, cd), (cd, ab)):
        for p, q in ((a, b), (b, a)):
            for r, s in ((c, d), (d, c)):
                assert segments_conflict(p, q, r, s) is expected


def _points_on(a, b, scale=2):
    """Every point of segment a-b on the half-integer grid (exact: endpoints are integers)."""
    n = max(abs(b[0] - a[0]), abs(b[1] - a[1])) * scale
    return {(scale * a[0] + k * (b[0] - a[0]) * scale // n, scale * a[1] + k * (b[1] - a[1]) * scale // n) for k in range(n + 1)}


def test_conflict_matches_brute_force_on_the_half_grid():
    """Straight lattice segments meet only on half-integer points: compare with point sets."""
    cells = [(r, c) for r in range(5) for c in range(5)]
    segments = [(a, b) for a, b in itertools.combinations(cells, 2) if is_straight(a, b)]
    checked = 0
    for (a, b), (c, d) in itertools.combinations(segments, 2):
        common = _points_on(a, b) & _points_on(c, d)
        shared_ends = {(2 * p[0], 2 * p[1]) for p in {a, b} & {c, d}}
        expected = bool(common - shared_ends) or (len(shared_ends) == 2)
        assert segments_conflict(a, b, c, d) is expected, (a, b, c, d)
        assert segments_intersect(a, b, c, d) is bool(common)
        checked += 1
    assert checked > 5000


@pytest.mark.parametrize(
    "a,b,straight,adjacent,between",
    [
        ((0, 0), (0, 1), True, True, []),
        ((0, 0), (1, 1), True, True, []),
        ((0, 0), (0, 3), True, False, [(0, 1), (0, 2)]),
        ((3, 3), (0, 0), True, False, [(2, 2), (1, 1)]),
        ((2, 0), (0, 2), True, False, [(1, 1)]),
        ((0, 0), (1, 2), False, False, None),  # a knight's jump is not a line
        ((0, 0), (0, 0), False, False, None),
    ],
)
def test_straightness_adjacency_and_jumped_points(a, b, straight, adjacent, between):
    assert is_straight(a, b) is straight
    assert is_adjacent(a, b) is adjacent
    if between is None:
        with pytest.raises(ValueError, match="not a horizontal, vertical or 45-degree line"):
            points_between(a, b)
    else:
        assert points_between(a, b) == between


def test_docstring_examples():
    import doctest

    from kakurega.envs.summer_hide_and_seek import geometry, rules

    for module in (geometry, rules):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed


@pytest.mark.parametrize("seed", range(4))
def test_the_swept_line_conflicts_are_every_pair_tested(seed):
    """``line_conflicts`` tests only pairs whose bounding boxes meet (a dense 32 x 32 map took 7-11 s to make when
    every pair was tested): its masks equal testing every pair, over random lines of every length and direction
    on a grid (crossings, overlaps, shared ends, lines of one point's row or column)."""
    import random

    from kakurega.envs.summer_hide_and_seek.geometry import segments_conflict
    from kakurega.envs.summer_hide_and_seek.rules import line_conflicts

    rng = random.Random(seed)
    points = [(r, c) for r in range(7) for c in range(7)]
    lines = sorted({tuple(sorted(rng.sample(range(len(points)), 2))) for _ in range(260)})
    every = [0] * len(lines)
    for i, (a, b) in enumerate(lines):
        for j in range(i + 1, len(lines)):
            c, d = lines[j]
            if segments_conflict(points[a], points[b], points[c], points[d]):
                every[i] |= 1 << j
                every[j] |= 1 << i
    assert line_conflicts(points, lines) == every
    assert sum(mask.bit_count() for mask in every) > len(lines)  # the control: many pairs do conflict
