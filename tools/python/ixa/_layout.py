"""ixa.layout and ixa.draw_layout (XLA's tiled layouts); ixa.bank_conflicts
and ixa.swizzle (shared-memory banks)."""

from . import _ixa
from ._core import Error, _call, _checked
from ._result import documented


@documented("layout", skip=())
def layout(shape, *, index=None, offsets=None):
    """The `layout` op: where each logical element of `shape` (an XLA shape
    with its layout, e.g. "f32[3,5]{1,0:T(2,2)}") lives.

        ixa.layout("f32[3,5]{1,0:T(2,2)}", index=[2, 3]).offset    # 17
    """
    return _call("layout", shape=_shape_text(shape), index=index,
                 offsets=offsets)


@documented("bank_conflicts", skip=())
def bank_conflicts(map, element_bytes, *, vector_width=None, thread_dim=None,
                   device=None):
    """The `bank_conflicts` op: the exact shared-memory wavefronts of an
    access (a map from thread id and loop variables to byte addresses).

        ixa.bank_conflicts("(d0) -> (d0 * 128), domain: d0 in [0, 31]",
                           4).wavefronts["worst"]    # 32
    """
    return _call("bank_conflicts", map=map, element_bytes=element_bytes,
                 vector_width=vector_width, thread_dim=thread_dim,
                 device=device)


@documented("swizzle", skip=())
def swizzle(shape, dtype, write, read, *, write_vector_width=None,
            read_vector_width=None, device=None):
    """The `swizzle` op: the layout of a shared tile (row padding, column
    rotation or an XOR Swizzle<B,M,S>) with the fewest wavefronts for its
    write and its read (maps from thread id and loops to tile coordinates).
    """
    return _call("swizzle", shape=shape, dtype=dtype, write=write, read=read,
                 write_vector_width=write_vector_width,
                 read_vector_width=read_vector_width, device=device)


@documented("linear_layout", skip=())
def linear_layout(layout=None, *, map=None, out_dims=None, cute=None,
                  by_mode=None, swizzle=None, bits=None, fn=None, with_=None,
                  apply=None):
    """The `linear_layout` op: a linear layout over GF(2) (Triton's), from
    its text, an ixa map, a CuTe layout or a Swizzle<B,M,S>, with an
    operation (`fn`: compose, invert, pseudo_invert, invert_and_compose,
    product, divide_left, divide_right; the second layout in `with_`), its
    properties and the layout as a map.

        ixa.linear_layout(cute="(8,64):(64,1)", swizzle=[3, 3, 3]).injective
    """
    return _call("linear_layout", layout=layout, map=map, out_dims=out_dims,
                 cute=cute, by_mode=by_mode, swizzle=swizzle, bits=bits,
                 fn=fn, apply=apply, **{"with": with_})


@documented("nested_layout", skip=())
def nested_layout(*, subgroup_tile, batch_tile, outer_tile, thread_tile,
                  element_tile, subgroup_strides, thread_strides, shape=None,
                  subgroup=None, thread=None, element=None,
                  subgroup_size=None, num_subgroups=None):
    """The `nested_layout` op: IREE's nested layout as maps (which subgroup
    and thread hold each element of a vector), or one element's place."""
    return _call("nested_layout", subgroup_tile=subgroup_tile,
                 batch_tile=batch_tile, outer_tile=outer_tile,
                 thread_tile=thread_tile, element_tile=element_tile,
                 subgroup_strides=subgroup_strides,
                 thread_strides=thread_strides, shape=shape,
                 subgroup=subgroup, thread=thread, element=element,
                 subgroup_size=subgroup_size, num_subgroups=num_subgroups)


@documented("cute_layout", skip=())
def cute_layout(layout, *, swizzle=None, fn=None, with_=None,
                cotarget=None):
    """The `cute_layout` op: a CuTe layout (Shape:Stride) as a map, with
    CuTe's algebra (`fn`; the second layout in `with_`). The answer's
    `values` field is read as answer["values"] (dict's values() keeps its
    name)."""
    return _call("cute_layout", layout=layout, swizzle=swizzle, fn=fn,
                 cotarget=cotarget, **{"with": with_})


@documented("pto", skip=())
def pto(fn, *, tile=None, row=None, col=None, arch=None, src=None, dst=None,
        conversion=None, dtype=None, shape=None, order=None, index=None,
        coords=None):
    """The `pto` op: Ascend PTO tiles and data formats (`fn` selects the
    question)."""
    return _call("pto", fn=fn, tile=tile, row=row, col=col, arch=arch,
                 src=src, dst=dst, conversion=conversion, dtype=dtype,
                 shape=shape, order=order, index=index, coords=coords)


@documented("warp_access", skip=())
def warp_access(map, element_bytes, *, device=None, memory=None):
    """The `warp_access` op: the memory transactions (sectors, lines, bank
    conflicts) of one warp's access, a map from lane to byte address."""
    return _call("warp_access", map=map, element_bytes=element_bytes,
                 device=device, memory=memory)


def draw_layout(shape, *, title=None, show_memory=True):
    """The SVG picture `ixa draw --shape SHAPE` writes: the logical grid
    with each element's physical offset, colored by tile, and (unless
    show_memory is False) the physical buffer with its padding hatched.

    Args:
      shape: an XLA shape with its layout, e.g. "f32[3,5]{1,0:T(2,2)}".
      title: the picture's title (default the shape's text).

    Returns:
      The SVG document as a str (write it to a .svg file, or display it in
      a notebook with IPython.display.SVG).

    Raises:
      ixa.Error: the shape does not parse, or its layout is invalid.
    """
    if title is not None and not isinstance(title, str):
        raise TypeError(f"a title is a str, not {type(title).__name__}")
    answer = _ixa.draw_layout(_shape_text(shape), title or "",
                              bool(show_memory))
    if isinstance(answer, dict):
        _checked(answer)
        raise Error("internal", "draw_layout answered neither SVG nor error")
    return answer


def _shape_text(shape):
    if not isinstance(shape, str):
        raise TypeError("a shape is given as XLA text (str), not "
                        f"{type(shape).__name__}")
    return shape
