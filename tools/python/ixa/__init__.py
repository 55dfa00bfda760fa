"""ixa: symbolic indexing analysis from Python.

The engine of the `ixa` CLI, in process: every call is a request of the
`ixa query` JSON protocol answered by the same server, so answers equal the
CLI's.

    import ixa
    m = ixa.IndexingMap("(d0) -> (d0 floordiv 1), domain: d0 in [0, 9]")
    print(m.simplify())                  # (d0) -> (d0), domain: d0 in [0, 9]
    module = ixa.HloModule.from_file("model.hlo")
    cost = module.fusion_cost(fusion=module.fusions()[0], model="xla")
    print(cost.time_us, cost.launch.blocks)    # cost["time_us"] too
    print(module.fusion_plan().kernels_after)
    svg = ixa.draw_layout("f32[8,8]{1,0:T(4,4)}")
    ixa.query({"op": "interval", "fn": "add", "args": [[0, 1], [2, 3]]})

Answers are typed results (ixa.FusionCost, ixa.FusionPlan, ...): dicts
whose fields are also attributes, with to_dict(); their docstrings list
the protocol's fields. Every failure raises ixa.Error, a ValueError (code, message, line,
column); a value of the wrong Python type (ixa.IndexingMap(42)) raises
TypeError. Calls from
several threads are answered one at a time (the interpreter lock is held
while the engine works).
"""

from . import _ixa
from ._core import Error, query
from ._hlo import HloModule
from ._layout import (bank_conflicts, cute_layout, draw_layout, layout,
                      linear_layout, nested_layout, pto, swizzle,
                      warp_access)
from ._map import Bounds, IndexingMap, Point, compose
from ._result import (Coalescing, Emitted, FusionCost, FusionDecision,
                      FusionIndexing, FusionPlan, Indexing, Layout, Partition,
                      Result, ThreadIndexing, Tile, Utilization, ValidTilings)

__version__ = _ixa.__version__

__all__ = [
    "Bounds",
    "Coalescing",
    "Emitted",
    "Error",
    "FusionCost",
    "FusionDecision",
    "FusionIndexing",
    "FusionPlan",
    "HloModule",
    "Indexing",
    "IndexingMap",
    "Layout",
    "Partition",
    "Point",
    "Result",
    "ThreadIndexing",
    "Tile",
    "Utilization",
    "ValidTilings",
    "bank_conflicts",
    "compose",
    "cute_layout",
    "draw_layout",
    "layout",
    "linear_layout",
    "nested_layout",
    "pto",
    "query",
    "swizzle",
    "warp_access",
    "__version__",
]
