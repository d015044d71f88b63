"""The diagram vocabulary of the figure stage: timelines, grids and blocks, topologies, stacks
and flows, for the book's figure scripts (`manuscripts/figures/*.py`).

Each kind is two halves. The geometry (`timeline`, `blocks`, `topology`, `flow`) is plain data
computed from the inputs (stages and micro-batches, sequence lengths and a page size, k of a fat
tree): testable without drawing. `draw` turns that data into matplotlib artists, the one
rendering path of the book's figures (theming, CJK fonts, tofu detection, SVG and vector PDF).
`describe` words a text alternative from the same data. Nothing here reads the book: numbers
come from `calculations/` through the script, words from the edition's `figures.yml`.
"""
from bookkit.diagrams.blocks import BlockTable, MemoryMap, kv_block_table, memory_map, tiles  # noqa: F401
from bookkit.diagrams.flow import Flow, stack_flow  # noqa: F401
from bookkit.diagrams.timeline import (Bar, Timeline, pipeline_1f1b, pipeline_gpipe,
                                        pipeline_interleaved, pipeline_zero_bubble,
                                        zero_bubble_formula)
from bookkit.diagrams.topology import (Group, RingStep, Topology, fat_tree, rail_optimised, ring,
                                        ring_allreduce_steps, scale_up_domains, torus2d, torus3d,
                                        tree)
