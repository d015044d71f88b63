"""A value worked out once per object, for the in-memory memos of a long-lived `--serve`
process: an unchanged chapter's values, tokens, formulas and figure images are the same objects
from build to build, so an identity test replaces hashing them again."""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class PerObject(Generic[T]):
    """`memo(obj)` is `compute(obj)`, worked out again only for another object (or, `sized`,
    for a container whose length changed: a token list that had a notice inserted). Each entry
    holds its object, so that its id is not reused while remembered. `limit`: entries kept
    before the memo starts afresh (a long session's replaced objects); None: only
    `forget_if_over` clears it."""

    def __init__(self, compute: Callable[[object], T], limit: int | None = 4096,
                 sized: bool = False) -> None:
        self._compute, self._limit, self._sized = compute, limit, sized
        self._known: dict[int, tuple[object, int, T]] = {}

    def __call__(self, obj) -> T:
        size = len(obj) if self._sized and obj is not None else -1
        known = self._known.get(id(obj))
        if known is None or known[0] is not obj or known[1] != size:
            if self._limit is not None and len(self._known) >= self._limit:
                self._known.clear()
            known = self._known[id(obj)] = (obj, size, self._compute(obj))
        return known[2]

    def forget_if_over(self, count: int) -> None:
        """Start afresh if more than `count` objects are remembered (at a build's start, so that
        ids stay remembered within a build)."""
        if len(self._known) > count:
            self._known.clear()
