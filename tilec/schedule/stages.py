"""build_stages: turn the materialized schedule into stage-ordered
producer/consumer pairs. Each pending load gets its own pipeline (its stage
buffer has the load's tile shape); the producer side of every pair runs
`distance` iterations ahead of the consumer side, `distance` being
numStages - 1, so that numStages buffers are in flight."""
from __future__ import annotations

from ..ir.record import factory, mutable

from ..dialects.nv_tileas.types import element_width, num_elements


@mutable
class StagePair:
    load: object                  # the pending tiled_load (producer side)
    consumers: list               # the compute ops it feeds (consumer side)
    pipeline_index: int
    tile_type: object

    @property
    def stage_bytes(self) -> int:
        t = self.tile_type
        return num_elements(t.shape) * max(8, element_width(t.element_type) or 8) // 8


@mutable
class Stages:
    num_stages: int
    pairs: list = factory(list)

    @property
    def distance(self) -> int:
        return self.num_stages - 1

    @property
    def bytes_per_stage(self) -> int:
        return sum(p.stage_bytes for p in self.pairs)

    def smem_bytes(self, num_stages=None) -> int:
        return (num_stages or self.num_stages) * self.bytes_per_stage


def build_stages(analysis, materialization, num_stages: int) -> Stages:
    out = Stages(num_stages)
    for i, load in enumerate(materialization.pending_loads):
        out.pairs.append(StagePair(load, list(analysis.feeds.get(load, [])), i, load.results[0].type))
    return out
