"""ixa.HloModule: an HLO module and the protocol's ops that read one."""

from . import _ixa
from ._core import Error, _call, _checked
from ._result import documented


class HloModule:
    """An HLO module in XLA's text form.

        module = ixa.HloModule.from_file("model.hlo")
        for name in module.fusions():
            cost = module.fusion_cost(fusion=name)
            print(name, cost["time_us"])

    The text is read once when the object is made (a parse error raises
    ixa.Error with code "parse_error", line and column). Each analysis
    method is the protocol op of the same name with the module as `hlo`;
    its keyword arguments are the op's optional fields (None leaves a
    field out) and it returns the response's fields as a typed result
    (ixa.FusionCost, ixa.FusionPlan, ...: a dict whose fields are also
    attributes, cost.time_us == cost["time_us"]; maps as text, wrap one
    in ixa.IndexingMap to work with it). Each method's docstring lists the
    protocol's fields, from the table `ixa help OP` prints. Where `ixa query`
    answers an error, the method raises ixa.Error.
    """

    __slots__ = ("_text", "_outline")

    def __init__(self, text):
        if not isinstance(text, str):
            raise TypeError("an HLO module is given as text (str), not "
                            f"{type(text).__name__}")
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise Error("bad_request",
                        f"the HLO text is not valid Unicode: {e}") from None
        self._text = text
        self._outline = _checked(_ixa.hlo_outline(encoded))

    @classmethod
    def from_file(cls, path):
        """The module in the file at `path` (UTF-8 text)."""
        with open(path, encoding="utf-8") as f:
            return cls(f.read())

    # -- what the module holds ----------------------------------------------

    @property
    def text(self):
        """The module's text, as given."""
        return self._text

    @property
    def name(self):
        """The module's name (empty for bare instruction lines)."""
        return self._outline["name"]

    @property
    def entry(self):
        """The entry computation's name."""
        return self._outline["entry"]

    @property
    def root(self):
        """The entry computation's root instruction."""
        return self._outline["root"]

    def computations(self):
        """The names of every computation, in text order."""
        return list(self._outline["computations"])

    def instructions(self):
        """The entry computation's instructions in text order, each a dict
        {"name", "opcode", "shape", "operands", "calls"} (shape as XLA text
        with its layout; operands and called computations by name)."""
        return [dict(i, operands=list(i["operands"]), calls=list(i["calls"]))
                for i in self._outline["instructions"]]

    def fusions(self):
        """The names of the entry computation's fusion instructions, in
        text order: what `fusion=` takes."""
        return [i["name"] for i in self._outline["instructions"]
                if i["opcode"] == "fusion"]

    def __repr__(self):
        return (f"<ixa.HloModule {self.name!r}: "
                f"{len(self._outline['instructions'])} entry instructions, "
                f"{len(self.fusions())} fusions>")

    # -- ops ----------------------------------------------------------------

    def request(self, op, **fields):
        """Any protocol op on this module: `op` with `hlo` and `fields`
        (None values left out); the response's fields as an ixa.Result."""
        return _call(op, hlo=self._text, **fields)

    @documented("indexing")
    def indexing(self, instruction=None, *, direction=None, operand=None,
                 output=None, physical_layout=None, all_gather=None):
        """The `indexing` op: maps between an instruction's output and its
        operands.

        Args:
          instruction: default the entry root, or the root of the named
            fusion's computation.
          direction: "output_to_input" (default) or "input_to_output".
          operand: with input_to_output, which operand.
          output: which output of a multi-output op.
          physical_layout: maps between layout-ordered physical indices.
          all_gather: "xla" (default: XLA's `d mod n` map with a replica
            map) or "per_source" (one map per source replica).

        Returns:
          {"operands": [{operand, name, maps}...]} for output_to_input,
          {"outputs": [{output, maps}...]} for input_to_output.
        """
        return self.request("indexing", instruction=instruction,
                            direction=direction, operand=operand,
                            output=output, physical_layout=physical_layout,
                            all_gather=all_gather)

    @documented("fusion_indexing")
    def fusion_indexing(self, fusion=None, *, instructions=None, output=None,
                        all_instructions=None, group_by_producer=None,
                        all_gather=None):
        """The `fusion_indexing` op: maps from a fusion's output to its
        parameters.

        Args:
          fusion: the fusion instruction or fused computation (default the
            entry root fusion, or the entry computation).
          instructions: entry instruction names to treat as one fusion.
          output: which output of a multi-output fusion.
          all_instructions: also the maps to every instruction.
          group_by_producer: group the root's operand maps by producer.
          all_gather: "xla" (default) or "per_source", as in `indexing`.

        Returns:
          {"parameters": [{parameter, name, maps}...], ...}.
        """
        return self.request("fusion_indexing", fusion=fusion,
                            instructions=instructions, output=output,
                            all_instructions=all_instructions,
                            group_by_producer=group_by_producer,
                            all_gather=all_gather)

    @documented("partition")
    def partition(self, fusion=None):
        """The `partition` op: {"subgraphs": [{root, instructions}...]}."""
        return self.request("partition", fusion=fusion)

    @documented("thread_indexing")
    def thread_indexing(self, fusion=None, *, instructions=None, device=None):
        """The `thread_indexing` op: the emitter's plan (emitter, launch,
        roots, parameters) with maps from thread and block ids."""
        return self.request("thread_indexing", fusion=fusion,
                            instructions=instructions, device=device)

    @documented("coalescing")
    def coalescing(self, fusion=None, *, device=None, launch=None,
                   tile_sizes=None):
        """The `coalescing` op: per-operand memory coalescing.

        Args:
          device: a device name or a dict of device fields, e.g.
            {"base": "h100", "dram_gbps": 2000} (default "h100").
          launch: {"threads_per_block", "blocks", "unroll"}.
          tile_sizes: analyse one output tile of these sizes instead.
        """
        return self.request("coalescing", fusion=fusion, device=device,
                            launch=launch, tile_sizes=tile_sizes)

    @documented("utilization")
    def utilization(self, fusion=None):
        """The `utilization` op: exact read counts per operand."""
        return self.request("utilization", fusion=fusion)

    @documented("fusion_cost")
    def fusion_cost(self, fusion=None, *, instructions=None, device=None,
                    model=None, prefusion=None):
        """The `fusion_cost` op: bytes_read, bytes_written, flops, launch,
        time_us (with memory_us and compute_us) and per-operand
        coalescing.

        Args:
          fusion: the fusion instruction or fused computation (default the
            entry root fusion, or the entry computation).
          instructions: entry instruction names to cost as one fusion.
          device: a device name or a dict of device fields (default
            "h100").
          model: "ixa" (the default) or "xla" (XLA's GPU performance
            model).
          prefusion: False costs a whole module as written, without XLA's
            pre-fusion pipeline.
        """
        return self.request("fusion_cost", fusion=fusion,
                            instructions=instructions, device=device,
                            model=model, prefusion=prefusion)

    @documented("fusion_decision")
    def fusion_decision(self, producer, consumer=None, *, device=None,
                        model=None):
        """The `fusion_decision` op: whether to fuse `producer` (an entry
        instruction) into its consumers: "legal" (else "rule" and
        "reason"), "fuse", the unfused and fused costs, and "speedup" and
        "priority_us" (None when not legal or not costed).

        Args:
          producer: the producer's name.
          consumer: only this consumer (default every user).
          device: a device name or a dict of device fields.
          model: "ixa" (the default) or "xla".
        """
        return self.request("fusion_decision", producer=producer,
                            consumer=consumer, device=device, model=model)

    @documented("fusion_plan")
    def fusion_plan(self, *, device=None, model=None, prefusion=None):
        """The `fusion_plan` op: XLA's priority fusion over this (unfused)
        module: the fused module ("hlo"), the "decisions" in order,
        kernels and times before and after, and "refusals".

        Args:
          device: a device name or a dict of device fields.
          model: "ixa" (the default) or "xla".
          prefusion: False plans the module as written, without XLA's
            pre-fusion pipeline first.
        """
        return self.request("fusion_plan", device=device, model=model,
                            prefusion=prefusion)

    @documented("prefusion")
    def prefusion(self, *, gemms=None):
        """The `prefusion` op: the module after XLA's pre-fusion pipeline
        (GEMM rewriting, reduce canonicalization, ReductionSplitter,
        TreeReductionRewriter) and the list of rewrites.

            HloModule(text).prefusion().hlo    # the rewritten module

        Args:
          gemms: False leaves every dot (no cuBLAS GEMM calls).
        """
        return self.request("prefusion", gemms=gemms)

    @documented("compile")
    def compile(self, target, *, device=None, entry=None, fuse=None,
                prefusion=None):
        """The `compile` op: the whole module as one program ("code"),
        with its kernels, peak_bytes and buffers.

            open("prog.cc", "w").write(module.compile("cpp").code)

        Args:
          target: "cpp" (with a main reading .npy files) or "cuda".
          device: a device name or a dict of device fields.
          entry: the entry point's name (default "ixa_run").
          fuse: False compiles every instruction outside a fusion as its
            own kernel instead of fusing the module first.
          prefusion: False fuses the module without XLA's pre-fusion
            pipeline first.
        """
        return self.request("compile", target=target, device=device,
                            entry=entry, fuse=fuse, prefusion=prefusion)

    @documented("valid_tilings")
    def valid_tilings(self, fusion=None, *, instructions=None, output=None,
                      strides=None, candidates=None, contraction_sizes=None,
                      reduction_sizes=None, limit=None):
        """The `valid_tilings` op: every output tile-size vector that tiles
        every instruction of the fusion, with its constraints.

        Args:
          fusion: the fusion instruction or fused computation.
          instructions: entry instruction names to treat as one fusion.
          output: which output of a multi-output fusion.
          strides: the output tile's strides (default all 1).
          candidates: the sizes to try, one list for every dim or one list
            per dim (default the powers of two up to each dim).
          contraction_sizes, reduction_sizes: fixed tile sizes of
            contracting and reduced dims, as in `tile`.
          limit: list at most this many (default 1000).
        """
        return self.request("valid_tilings", fusion=fusion,
                            instructions=instructions, output=output,
                            strides=strides, candidates=candidates,
                            contraction_sizes=contraction_sizes,
                            reduction_sizes=reduction_sizes, limit=limit)

    @documented("tile")
    def tile(self, sizes, strides=None, *, fusion=None):
        """The `tile` op: the symbolic tile of each operand for an output
        tile of `sizes` (and `strides`)."""
        tile = {"sizes": sizes}
        if strides is not None:
            tile["strides"] = strides
        return self.request("tile", fusion=fusion, tile=tile)

    @documented("emit")
    def emit(self, target, *, fusion=None, instructions=None, device=None,
             kernel=None, stages=None, host=None):
        """The `emit` op: generated code for `target` ("cpp", "cuda" or
        "mlir") with kernel, emitter, launch and buffers."""
        return self.request("emit", target=target, fusion=fusion,
                            instructions=instructions, device=device,
                            kernel=kernel, stages=stages, host=host)
