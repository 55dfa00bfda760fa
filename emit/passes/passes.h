// The lowering steps of docs/emitters.md §4 as passes over the kernel IR.
// Each leaves a module every target prints.
#ifndef IXA_EMIT_PASSES_PASSES_H_
#define IXA_EMIT_PASSES_PASSES_H_

#include "core/expr.h"
#include "core/result.h"
#include "emit/ir/kernel_ir.h"

namespace ixa::emit {

// Step 3: functions called from exactly one place are inlined there.
Status InlineSingleUseFunctions(ir::Module* module);

// Step 4: N-d accesses become one linear offset in the buffer's physical
// layout (the layout map, tiles included, composed after the index chain
// and simplified); outputs whose layout has padding get a loop writing
// the padding elements as zero.
Status FlattenBuffers(ir::Module* module, ExprContext* ctx);

// Step 5: in innermost loops of small constant trip count, accesses whose
// offset is `aligned base + loop variable` become vector loads (hoisted
// before the loop) and vector stores (after it); a bounds check that does
// not depend on the loop variable is hoisted out first. Loops of more than
// `max_lanes` iterations (the plan's vector_size, which the code follows)
// keep their accesses scalar.
Status VectorizeLoops(ir::Module* module, int64_t max_lanes, ExprContext* ctx);

// Step 6: the vector loops are unrolled.
Status UnrollVectorLoops(ir::Module* module);

// Step 7 tidying: index maps recomposed and simplified (constants folded
// in), domain checks that always hold removed, unused lets dropped.
Status Cleanup(ir::Module* module, ExprContext* ctx);

// Before printing: the sub-byte integer and 8-bit float types become 8-bit
// integers with explicit arithmetic (wrap-around, f8 decode / encode,
// packed element access), so that printers see only the other types.
Status LegalizeTypes(ir::Module* module, ExprContext* ctx);

}  // namespace ixa::emit

#endif  // IXA_EMIT_PASSES_PASSES_H_
