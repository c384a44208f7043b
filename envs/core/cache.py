"""Bounded caches: what an env, an observer or a rules object remembers never grows with the games played.

Every such cache is a plain ``dict`` (a lookup is one ``dict.get``) filled through
:func:`remember`, with a size cap named next to it. A full cache keeps what it
holds and stores nothing more: the entries met first are the common ones (the
legal sets and beliefs of a game's first turns recur in every game), so it
keeps a higher hit rate than one emptied when full, and an instance's memory
is flat once its caches are full. docs/performance.md ("Memory") lists every
cache and its cap.
"""

from __future__ import annotations


def remember(cache: dict, key, value, size: int):
    """Store ``value`` under ``key`` unless ``cache`` already holds ``size`` entries; return ``value``."""
    if len(cache) < size:
        cache[key] = value
    return value
