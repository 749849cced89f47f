"""A dict kept as a cache of what was used most recently (its order is the order of use)."""
from __future__ import annotations


def recent(cache: dict, key, limit: int):
    """The entry for ``key``, made the most recent; None when absent, after a full cache (``limit`` entries) lost
    the quarter of its entries used least recently, so the caller's new entry fits."""
    found = cache.pop(key, None)
    if found is not None:
        cache[key] = found
    elif len(cache) >= limit:
        for old in list(cache)[:max(1, limit // 4)]:
            del cache[old]
    return found
