# Type stubs of the public API of ixa (the package's own .py files and the
# extension _ixa hold the implementation; tests/python/test_stubs.py checks
# that every public name here exists there and the reverse).
from typing import (Any, Dict, List, Literal, Mapping, NamedTuple, Optional,
                    Sequence, Tuple, Union, overload)

__version__: str

_Device = Union[str, Mapping[str, Any]]
_Model = Literal["ixa", "xla"]
_Ints = Sequence[int]

class Error(ValueError):
    code: str
    message: str
    line: Optional[int]
    column: Optional[int]
    def __init__(self, code: str, message: str, line: Optional[int] = ...,
                 column: Optional[int] = ...) -> None: ...

class Result(Dict[str, Any]):
    op: Optional[str]
    def __getattr__(self, name: str) -> Any: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Indexing(Result): ...
class FusionIndexing(Result): ...
class Partition(Result): ...
class ThreadIndexing(Result): ...
class Coalescing(Result): ...
class Utilization(Result): ...
class Tile(Result): ...
class ValidTilings(Result): ...

class FusionCost(Result):
    device: str
    emitter: str
    launch: Result
    model: str
    bytes_read: int
    bytes_moved: float
    bytes_written: int
    flops: int
    blocks_per_core: int
    waves: int
    active_fraction: float
    time_us: float
    exec_us: float
    memory_us: float
    write_us: float
    compute_us: float
    launch_overhead_us: float
    operands: List[Result]
    notes: List[str]

class FusionDecision(Result):
    device: str
    model: str
    producer: str
    consumers: List[str]
    legal: bool
    fuse: bool
    times_known: bool
    speedup: Optional[float]
    priority_us: Optional[float]
    unfused: Result
    fused: Result
    notes: List[str]

class FusionPlan(Result):
    device: str
    model: str
    hlo: str
    decisions: List[Result]
    kernels_before: int
    kernels_after: int
    time_before_us: Optional[float]
    time_after_us: Optional[float]
    refusals: Dict[str, int]

class Emitted(Result):
    code: str
    kernel: str
    buffers: List[Result]
    emitter: str
    launch: Result
    # Transposes and reductions with shared memory only: the tiles (layout,
    # xla_bytes, layout_reason) and each access's bank wavefronts.
    shared_tiles: List[Result]
    shared_accesses: List[Result]

class Layout(Result):
    map: str
    physical_shape: List[int]
    physical_elements: int
    bytes: int

class Point(NamedTuple):
    dims: List[int]
    symbols: List[int]

class Bounds(NamedTuple):
    results: List[Tuple[int, int]]
    exact: bool

_MapLike = Union["IndexingMap", str]

class IndexingMap:
    def __init__(self, text: _MapLike) -> None: ...
    @classmethod
    def parse(cls, text: _MapLike) -> IndexingMap: ...
    def to_string(self, syntax: Literal["affine", "symbolic"] = ...) -> str: ...
    @property
    def num_dims(self) -> int: ...
    @property
    def num_symbols(self) -> int: ...
    @property
    def num_range_vars(self) -> int: ...
    @property
    def num_runtime_vars(self) -> int: ...
    @property
    def num_results(self) -> int: ...
    @property
    def dim_names(self) -> List[str]: ...
    @property
    def symbol_names(self) -> List[str]: ...
    @property
    def known_empty(self) -> bool: ...
    @overload
    def simplify(self, trace: Literal[False] = ...) -> IndexingMap: ...
    @overload
    def simplify(self, trace: Literal[True]) -> Tuple[IndexingMap, List[Result]]: ...
    def compose(self, *others: _MapLike) -> IndexingMap: ...
    def evaluate(self, dims: _Ints, symbols: _Ints = ...) -> List[int]: ...
    def contains(self, dims: _Ints, symbols: _Ints = ...) -> bool: ...
    def is_empty(self) -> bool: ...
    def equivalent(self, other: _MapLike) -> bool: ...
    def counterexample(self, other: _MapLike) -> Optional[Point]: ...
    def bounds(self, expr: Optional[str] = ...) -> Bounds: ...
    def remove_unused_symbols(self) -> IndexingMap: ...
    def remove_unused_vars(self) -> IndexingMap: ...
    def rescale_symbols(self) -> IndexingMap: ...
    def convert_symbols_to_dims(self, symbols: Optional[_Ints] = ...) -> IndexingMap: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def compose(*maps: _MapLike) -> IndexingMap: ...

class HloModule:
    def __init__(self, text: str) -> None: ...
    @classmethod
    def from_file(cls, path: Any) -> HloModule: ...
    @property
    def text(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def entry(self) -> str: ...
    @property
    def root(self) -> str: ...
    def computations(self) -> List[str]: ...
    def instructions(self) -> List[Dict[str, Any]]: ...
    def fusions(self) -> List[str]: ...
    def request(self, op: str, **fields: Any) -> Result: ...
    def indexing(self, instruction: Optional[str] = ..., *,
                 direction: Optional[str] = ..., operand: Optional[int] = ...,
                 output: Optional[int] = ...,
                 physical_layout: Optional[bool] = ...,
                 all_gather: Optional[str] = ...) -> Indexing: ...
    def fusion_indexing(self, fusion: Optional[str] = ..., *,
                        instructions: Optional[Sequence[str]] = ...,
                        output: Optional[int] = ...,
                        all_instructions: Optional[bool] = ...,
                        group_by_producer: Optional[bool] = ...,
                        all_gather: Optional[str] = ...) -> FusionIndexing: ...
    def partition(self, fusion: Optional[str] = ...) -> Partition: ...
    def thread_indexing(self, fusion: Optional[str] = ..., *,
                        instructions: Optional[Sequence[str]] = ...,
                        device: Optional[_Device] = ...) -> ThreadIndexing: ...
    def coalescing(self, fusion: Optional[str] = ..., *,
                   device: Optional[_Device] = ...,
                   launch: Optional[Mapping[str, Any]] = ...,
                   tile_sizes: Optional[_Ints] = ...) -> Coalescing: ...
    def utilization(self, fusion: Optional[str] = ...) -> Utilization: ...
    def fusion_cost(self, fusion: Optional[str] = ..., *,
                    instructions: Optional[Sequence[str]] = ...,
                    device: Optional[_Device] = ...,
                    model: Optional[_Model] = ...,
                    prefusion: Optional[bool] = ...) -> FusionCost: ...
    def fusion_decision(self, producer: str, consumer: Optional[str] = ..., *,
                        device: Optional[_Device] = ...,
                        model: Optional[_Model] = ...) -> FusionDecision: ...
    def fusion_plan(self, *, device: Optional[_Device] = ...,
                    model: Optional[_Model] = ...,
                    prefusion: Optional[bool] = ...) -> FusionPlan: ...
    def prefusion(self, *, gemms: Optional[bool] = ...) -> Result: ...
    def compile(self, target: Literal["cpp", "cuda"], *,
                device: Optional[_Device] = ...,
                entry: Optional[str] = ..., fuse: Optional[bool] = ...,
                prefusion: Optional[bool] = ...) -> Result: ...
    def valid_tilings(self, fusion: Optional[str] = ..., *,
                      instructions: Optional[Sequence[str]] = ...,
                      output: Optional[int] = ...,
                      strides: Optional[_Ints] = ...,
                      candidates: Optional[Sequence[Any]] = ...,
                      contraction_sizes: Optional[_Ints] = ...,
                      reduction_sizes: Optional[_Ints] = ...,
                      limit: Optional[int] = ...) -> ValidTilings: ...
    def tile(self, sizes: _Ints, strides: Optional[_Ints] = ..., *,
             fusion: Optional[str] = ...) -> Tile: ...
    def emit(self, target: Literal["cpp", "cuda", "mlir"], *,
             fusion: Optional[str] = ...,
             instructions: Optional[Sequence[str]] = ...,
             device: Optional[_Device] = ...,
             kernel: Optional[str] = ..., stages: Optional[bool] = ...,
             host: Optional[bool] = ...) -> Emitted: ...

def layout(shape: str, *, index: Optional[_Ints] = ...,
           offsets: Optional[_Ints] = ...) -> Layout: ...
def draw_layout(shape: str, *, title: Optional[str] = ...,
                show_memory: bool = ...) -> str: ...
def bank_conflicts(map: _MapLike, element_bytes: int, *,
                   vector_width: Optional[int] = ...,
                   thread_dim: Optional[int] = ...,
                   device: Optional[_Device] = ...
                   ) -> Result: ...
def swizzle(shape: _Ints, dtype: str, write: _MapLike,
            read: _MapLike, *,
            write_vector_width: Optional[int] = ...,
            read_vector_width: Optional[int] = ...,
            device: Optional[_Device] = ...
            ) -> Result: ...
def linear_layout(layout: Optional[str] = ..., *,
                  map: Optional[_MapLike] = ...,
                  out_dims: Optional[Sequence[str]] = ...,
                  cute: Optional[str] = ..., by_mode: Optional[bool] = ...,
                  swizzle: Optional[_Ints] = ...,
                  bits: Optional[int] = ..., fn: Optional[str] = ...,
                  with_: Optional[str] = ...,
                  apply: Optional[_Ints] = ...) -> Result: ...
def nested_layout(*, subgroup_tile: _Ints, batch_tile: _Ints,
                  outer_tile: _Ints, thread_tile: _Ints,
                  element_tile: _Ints, subgroup_strides: _Ints,
                  thread_strides: _Ints, shape: Optional[_Ints] = ...,
                  subgroup: Optional[int] = ..., thread: Optional[int] = ...,
                  element: Optional[_Ints] = ...,
                  subgroup_size: Optional[int] = ...,
                  num_subgroups: Optional[int] = ...) -> Result: ...
def cute_layout(layout: str, *, swizzle: Optional[_Ints] = ...,
                fn: Optional[str] = ..., with_: Optional[str] = ...,
                cotarget: Optional[int] = ...) -> Result: ...
def pto(fn: str, *, tile: Optional[Mapping[str, Any]] = ...,
        row: Optional[int] = ..., col: Optional[int] = ...,
        arch: Optional[str] = ..., src: Optional[Mapping[str, Any]] = ...,
        dst: Optional[Mapping[str, Any]] = ...,
        conversion: Optional[str] = ..., dtype: Optional[str] = ...,
        shape: Optional[_Ints] = ..., order: Optional[str] = ...,
        index: Optional[_Ints] = ...,
        coords: Optional[_Ints] = ...) -> Result: ...
def warp_access(map: _MapLike, element_bytes: int, *,
                device: Optional[_Device] = ...,
                memory: Optional[str] = ...) -> Result: ...
def query(request: Mapping[str, Any]) -> Result: ...
