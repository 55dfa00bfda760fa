"""ixa: symbolic indexing analysis from Python.

The engine of the `ixa` CLI, in process: every call is a request of the
`ixa query` JSON protocol answered by the same server, so answers equal the
CLI's.

    import ixa
    m = ixa.IndexingMap("(d0) -> (d0 floordiv 1), domain: d0 in [0, 9]")
    print(m.simplify())                  # (d0) -> (d0), domain: d0 in [0, 9]
    module = ixa.HloModule.from_file("model.hlo")
    print(module.fusion_cost(fusion=module.fusions()[0])["time_us"])
    ixa.query({"op": "interval", "fn": "add", "args": [[0, 1], [2, 3]]})

Every failure raises ixa.Error, a ValueError (code, message, line,
column); a value of the wrong Python type (ixa.IndexingMap(42)) raises
TypeError. Calls from
several threads are answered one at a time (the interpreter lock is held
while the engine works).
"""

from . import _ixa
from ._core import Error, query
from ._hlo import HloModule
from ._map import Bounds, IndexingMap, Point, compose

__version__ = _ixa.__version__

__all__ = [
    "Bounds",
    "Error",
    "HloModule",
    "IndexingMap",
    "Point",
    "compose",
    "query",
    "__version__",
]
