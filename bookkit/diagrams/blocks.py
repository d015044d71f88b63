"""Grids and blocks: tiles of a matrix, KV-cache pages and their block table, a memory map
drawn to scale."""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class BlockTable:
    """Paged KV cache: each sequence's logical pages mapped onto physical pages of one pool."""
    page_tokens: int
    pool_pages: int
    tables: tuple[tuple[int, ...], ...]     # tables[s][j]: physical page of sequence s's page j
    seq_tokens: tuple[int, ...]

    def owner(self) -> list[int | None]:
        """owner()[p]: the sequence page p belongs to, None when free."""
        owners: list[int | None] = [None] * self.pool_pages
        for s, table in enumerate(self.tables):
            for page in table:
                owners[page] = s
        return owners

    def fill(self, s: int, j: int) -> int:
        """Tokens held in sequence s's j-th page (the last one is partly full)."""
        return min(self.page_tokens, self.seq_tokens[s] - j * self.page_tokens)

    @property
    def wasted_tokens(self) -> int:
        return sum(len(t) * self.page_tokens - n for t, n in zip(self.tables, self.seq_tokens))


def kv_block_table(seq_tokens: list[int], page_tokens: int, pool_pages: int,
                   seed: int = 7) -> BlockTable:
    """Allocate pages for sequences that grow one token at a time, round-robin (as a serving
    engine's decode steps do): their pages interleave in the pool, which is the point of a block
    table. Free pages are handed out in a fixed shuffled order (`seed`) so the picture is the
    same on every build."""
    need = [math.ceil(n / page_tokens) for n in seq_tokens]
    if sum(need) > pool_pages:
        raise ValueError(f"{sum(need)} pages needed, pool has {pool_pages}")
    import random
    free = list(range(pool_pages))
    random.Random(seed).shuffle(free)
    tables: list[list[int]] = [[] for _ in seq_tokens]
    for step in range(max(need)):
        for s, n in enumerate(need):
            if step < n:
                tables[s].append(free.pop())
    return BlockTable(page_tokens, pool_pages, tuple(map(tuple, tables)), tuple(seq_tokens))


@dataclass(frozen=True)
class Segment:
    name: str
    start: float      # bytes (or any unit) from the bottom
    size: float
    kind: str = ""


@dataclass(frozen=True)
class MemoryMap:
    capacity: float
    segments: tuple[Segment, ...]

    @property
    def free(self) -> float:
        return self.capacity - sum(s.size for s in self.segments)


def memory_map(capacity: float, parts: list[tuple[str, float]]) -> MemoryMap:
    """Stack `parts` (name, size) from address 0 up, to scale; more than `capacity` is an
    error (the diagram would lie)."""
    at, segs = 0.0, []
    for name, size in parts:
        if size < 0:
            raise ValueError(f"segment {name} has a negative size")
        segs.append(Segment(name, at, size))
        at += size
    if at > capacity * (1 + 1e-9):
        raise ValueError(f"segments total {at:g}, more than the capacity {capacity:g}")
    return MemoryMap(capacity, tuple(segs))


def tiles(rows: int, cols: int, tile_rows: int, tile_cols: int) -> list[tuple[int, int, int, int]]:
    """(row0, col0, height, width) of each tile covering a rows x cols matrix; edge tiles are
    cut short."""
    return [(r, c, min(tile_rows, rows - r), min(tile_cols, cols - c))
            for r in range(0, rows, tile_rows) for c in range(0, cols, tile_cols)]
