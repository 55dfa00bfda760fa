// The GEMM emitter (docs/emitters.md "GEMM fusions"): finds the matmul dot
// of a fusion and lowers its per-element parts to kernel IR functions:
// each operand with its fused producers at (batch, row, column), the
// epilogue from the dot's value to the root's, and the root's physical
// offset. The C printer prints them; cuda_gemm.cc prints the tiled kernel
// that calls them.
#include "emit/emitters/gemm.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "emit/emitters/emitters.h"
#include "emit/lower/lowering.h"
#include "emit/passes/passes.h"

namespace ixa::emit {

using hlo::Instruction;
using ir::Type;
using ir::Val;

namespace {

// The largest grid y and z CUDA launches.
constexpr int64_t kMaxGridYz = 65535;

bool GemmComputableType(Type t) {
  switch (t) {
    case Type::kF16:
    case Type::kBF16:
    case Type::kF32:
    case Type::kF64:
    case Type::kS8:
    case Type::kS16:
    case Type::kS32:
    case Type::kS64:
    case Type::kU8:
    case Type::kU16:
    case Type::kU32:
    case Type::kU64:
      return true;
    default:
      return false;
  }
}

// A dense layout: no tiles, no packed element size.
bool PlainLayout(const hlo::Shape& s) {
  return !s.layout ||
         (s.layout->tiles.empty() && s.layout->element_size_bits == 0);
}

bool GemmContainsDim(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The dims of an operand of rank `rank` that are neither batch nor
// contracting, in order.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!GemmContainsDim(batch, d) && !GemmContainsDim(contracting, d))
      free.push_back(d);
  }
  return free;
}

// Product of the sizes of `dims` of `shape`, or -1 past int32.
int64_t DimsProduct(const hlo::Shape& shape, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    p *= shape.dims[d];
    if (p > INT32_MAX) return -1;
  }
  return p;
}

// `v` (one of the map's dims) delinearized row-major over the sizes of
// `dims` of `shape`: the expression of the j-th.
Expr Delinearized(Expr v, const hlo::Shape& shape,
                  const std::vector<int64_t>& dims, size_t j) {
  int64_t stride = 1;
  for (size_t i = j + 1; i < dims.size(); ++i) stride *= shape.dims[dims[i]];
  Expr e = stride == 1 ? v : v.FloorDiv(stride);
  return j == 0 ? e : e % shape.dims[dims[j]];
}

// The map (d0, d1, d2) -> index of an operand (or the dot's output) whose
// dims are taken from `groups`: groups[g] lists the shape's dims that d_g
// linearizes, row-major.
IndexingMap GroupMap(ExprContext* ctx, const hlo::Shape& shape,
                     const std::vector<std::vector<int64_t>>& groups,
                     const std::vector<int64_t>& sizes) {
  std::vector<Expr> results(shape.rank(), ctx->Constant(0));
  std::vector<Variable> dims;
  for (size_t g = 0; g < groups.size(); ++g) {
    Variable v;
    v.bounds = Interval{0, sizes[g] - 1};
    dims.push_back(v);
    for (size_t j = 0; j < groups[g].size(); ++j) {
      results[groups[g][j]] =
          Delinearized(ctx->Dim(static_cast<int64_t>(g)), shape, groups[g], j);
    }
  }
  return IndexingMap(ctx, dims, {}, {}, results);
}

}  // namespace

std::optional<GemmSpec> FindGemm(const FusionRegion& region, bool tf32,
                                 std::string* why) {
  auto refuse = [&](const std::string& reason) -> std::optional<GemmSpec> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const hlo::Computation* comp = region.computation;
  if (!comp || !region.root || !region.root->shape.IsArray()) {
    return refuse("not a single array root");
  }
  const Instruction* dot = nullptr;
  for (const auto& in : comp->instructions()) {
    if (in->opcode != hlo::Opcode::kDot) continue;
    if (dot) return refuse("more than one dot");
    dot = in.get();
  }
  if (!dot) return refuse("no dot");
  GemmSpec s;
  s.dot = dot;
  s.root = region.root;
  // The dot's users all lie on the paths from the root (the epilogue).
  const std::set<const Instruction*> path =
      emitters::PathToHero(region.root, dot);
  if (path.empty()) return refuse("the root does not use the dot");
  for (const Instruction* u : dot->users) {
    if (!path.count(u)) return refuse("the dot has a user off the epilogue");
  }
  for (const Instruction* p : path) {
    if (p == dot) continue;
    if (!hlo::IsElementwiseOpcode(p->opcode) ||
        p->shape.dims != dot->shape.dims) {
      return refuse("the epilogue op '" + p->name + "' is not elementwise");
    }
  }
  const hlo::DotDimensionNumbers& dn = dot->dot;
  const hlo::Shape& ls = dot->operand(0)->shape;
  const hlo::Shape& rs = dot->operand(1)->shape;
  if (dn.lhs_batch.size() != dn.rhs_batch.size() ||
      dn.lhs_contracting.size() != dn.rhs_contracting.size() ||
      dn.lhs_contracting.empty()) {
    return refuse("not a matmul's dimension numbers");
  }
  for (auto t :
       {ir::TypeOf(ls.type), ir::TypeOf(rs.type), ir::TypeOf(dot->shape.type),
        ir::TypeOf(region.root->shape.type)}) {
    if (!t.ok() || !GemmComputableType(*t)) return refuse("an element type");
  }
  s.lhs_type = *ir::TypeOf(ls.type);
  s.rhs_type = *ir::TypeOf(rs.type);
  s.out_type = *ir::TypeOf(dot->shape.type);
  s.root_type = *ir::TypeOf(region.root->shape.type);
  if (!PlainLayout(region.root->shape)) return refuse("a tiled output layout");
  const std::vector<int64_t> lhs_free =
      FreeDims(ls.rank(), dn.lhs_batch, dn.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      FreeDims(rs.rank(), dn.rhs_batch, dn.rhs_contracting);
  s.batch = DimsProduct(ls, dn.lhs_batch);
  s.m = DimsProduct(ls, lhs_free);
  s.k = DimsProduct(ls, dn.lhs_contracting);
  s.n = DimsProduct(rs, rhs_free);
  if (s.batch < 0 || s.m < 0 || s.n < 0 || s.k < 0) {
    return refuse("a dim product past int32");
  }
  if (s.batch == 0 || s.m == 0 || s.n == 0 || s.k == 0) {
    return refuse("an empty dim");
  }
  s.tensor_core = s.lhs_type == s.rhs_type &&
                  (s.lhs_type == Type::kBF16 || s.lhs_type == Type::kF16) &&
                  (s.out_type == Type::kF32 || s.out_type == Type::kBF16 ||
                   s.out_type == Type::kF16);
  s.tf32 = tf32 && s.lhs_type == Type::kF32 && s.rhs_type == Type::kF32 &&
           s.out_type == Type::kF32;
  s.tensor_core = s.tensor_core || s.tf32;
  // The linear k's fastest dim is the last contracting dim; it is the
  // operand's most minor when the loads should run along k.
  s.lhs_k_minor =
      ls.rank() > 0 && ls.MinorToMajor()[0] == dn.lhs_contracting.back();
  s.rhs_k_minor =
      rs.rank() > 0 && rs.MinorToMajor()[0] == dn.rhs_contracting.back();
  if (s.tensor_core) {
    // One k step of 16 per tile: each thread then holds 16 (4 warps) or
    // 12 (8 warps) prefetched elements, not twice that; with 32, ptxas
    // spilled the 4-warp kernel at its 255 registers.
    s.block_k = 16;
    // Warp tiles of 32 x 32 (2 x 2 fragments); 8 warps on tall outputs.
    s.warps_n = 2;
    s.warps_m = s.m >= 128 ? 4 : 2;
    s.block_m = 32 * s.warps_m;
    s.block_n = 32 * s.warps_n;
  } else {
    s.block_m = s.block_n = 64;
    s.block_k = 16;
  }
  if (s.batch > kMaxGridYz || (s.m + s.block_m - 1) / s.block_m > kMaxGridYz) {
    return refuse("a grid past CUDA's y or z limit");
  }
  return s;
}

Result<EmitResult> EmitGemmFusion(const FusionRegion& region,
                                  const GemmSpec& spec, const EmitterPlan& plan,
                                  const EmitOptions& options,
                                  ExprContext* ctx) {
  IXA_RETURN_IF_ERROR(CheckKernelName(options.kernel_name));
  if (spec.shared_bytes() > options.shared_memory_limit) {
    return Error::Invalid(
        "emit: the GEMM needs " + std::to_string(spec.shared_bytes()) +
        " bytes of shared memory per block; the device allows " +
        std::to_string(options.shared_memory_limit));
  }
  // The dot roots its own subgraph (it is the hero), so that its operands
  // and its users are emitted apart from it.
  EmitterPlan gemm_plan = plan;
  for (RootPlan& r : gemm_plan.roots) r.hero = spec.dot;
  LoweringContext lc(region, gemm_plan, ctx);
  lc.ReserveName(options.kernel_name);
  lc.ProvideValueOf(spec.dot);
  IXA_RETURN_IF_ERROR(lc.Init());
  const hlo::DotDimensionNumbers& dn = spec.dot->dot;
  const hlo::Shape& ls = spec.dot->operand(0)->shape;
  const hlo::Shape& rs = spec.dot->operand(1)->shape;
  const std::vector<int64_t> lhs_free =
      FreeDims(ls.rank(), dn.lhs_batch, dn.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      FreeDims(rs.rank(), dn.rhs_batch, dn.rhs_contracting);
  // The dot's output dims: batch, then lhs free, then rhs free.
  std::vector<int64_t> out_batch, out_m, out_n;
  int64_t pos = 0;
  for (size_t i = 0; i < dn.lhs_batch.size(); ++i) out_batch.push_back(pos++);
  for (size_t i = 0; i < lhs_free.size(); ++i) out_m.push_back(pos++);
  for (size_t i = 0; i < rhs_free.size(); ++i) out_n.push_back(pos++);

  auto index_params = [](const std::vector<std::string>& names,
                         const std::vector<int64_t>& sizes,
                         std::vector<ir::Param>* params,
                         std::vector<Val>* vars) {
    for (size_t i = 0; i < names.size(); ++i) {
      Interval range{0, sizes[i] - 1};
      params->push_back({names[i], ir::ParamKind::kIndex, Type::kIndex, range});
      vars->push_back(ir::Var(names[i], Type::kIndex, range));
    }
  };
  GemmFunctions names;
  // An operand's element at (batch, row, column) of its [m, k] / [k, n].
  auto operand_function = [&](int k, const std::string& stem,
                              const std::vector<std::vector<int64_t>>& groups,
                              const std::vector<std::string>& params,
                              const std::vector<int64_t>& sizes,
                              Type type) -> Result<std::string> {
    ir::Function f;
    f.name = lc.FreshName(stem);
    std::vector<Val> vars;
    index_params(params, sizes, &f.params, &vars);
    auto map =
        lc.Intern(GroupMap(ctx, spec.dot->operand(k)->shape, groups, sizes));
    BlockBuilder bb(&lc);
    std::vector<Val> idx;
    for (const Val& x : lc.ApplyAll(map, vars)) idx.push_back(bb.Bind("i", x));
    ElementalEmitter ee(&lc, &bb);
    IXA_ASSIGN_OR_RETURN(Val v, ee.EmitOne(spec.dot->operand(k), idx));
    bb.Add(ir::Return({v}));
    f.results = {type};
    f.body = bb.Take();
    lc.module().functions.push_back(std::move(f));
    return lc.module().functions.back().name;
  };
  IXA_ASSIGN_OR_RETURN(
      names.lhs, operand_function(0, "gemm_lhs_",
                                  {dn.lhs_batch, lhs_free, dn.lhs_contracting},
                                  {"g_b", "g_m", "g_k"},
                                  {spec.batch, spec.m, spec.k}, spec.lhs_type));
  IXA_ASSIGN_OR_RETURN(
      names.rhs, operand_function(1, "gemm_rhs_",
                                  {dn.rhs_batch, dn.rhs_contracting, rhs_free},
                                  {"g_b", "g_k", "g_n"},
                                  {spec.batch, spec.k, spec.n}, spec.rhs_type));
  auto out_map =
      lc.Intern(GroupMap(ctx, spec.dot->shape, {out_batch, out_m, out_n},
                         {spec.batch, spec.m, spec.n}));
  // The epilogue: the root's value from the accumulator (f32 on tensor
  // cores and for narrow floats, else the dot's type) at (batch, m, n).
  const Type acc_type =
      ir::IsFloat(spec.out_type)
          ? (spec.out_type == Type::kF64 ? Type::kF64 : Type::kF32)
          : spec.out_type;
  {
    ir::Function f;
    f.name = lc.FreshName("gemm_epilogue_");
    std::vector<Val> vars;
    index_params({"g_b", "g_m", "g_n"}, {spec.batch, spec.m, spec.n}, &f.params,
                 &vars);
    f.params.push_back(
        {"g_acc", ir::ParamKind::kScalar, acc_type, Interval::Full()});
    BlockBuilder bb(&lc);
    std::vector<Val> hero_index;
    for (const Val& x : lc.ApplyAll(out_map, vars)) {
      hero_index.push_back(bb.Bind("o", x));
    }
    Val acc = ir::Var("g_acc", acc_type);
    Val value =
        acc_type == spec.out_type
            ? acc
            : ir::Op(ir::OpCode::kConvert, spec.out_type, {acc}, acc_type);
    IXA_ASSIGN_OR_RETURN(
        std::vector<Val> root_index,
        emitters::HeroToRootIndex(lc, spec.dot, spec.root, hero_index));
    ElementalEmitter ee(&lc, &bb);
    ee.Override(spec.dot, {value});
    ee.set_inline(emitters::PathToHero(spec.root, spec.dot));
    IXA_ASSIGN_OR_RETURN(Val out, ee.EmitOne(spec.root, root_index));
    bb.Add(ir::Return({out}));
    f.results = {spec.root_type};
    f.body = bb.Take();
    names.epilogue = f.name;
    lc.module().functions.push_back(std::move(f));
  }
  // The root's physical offset: a load of the output at the root's index,
  // whose flat offset the flatten pass computes in the output's layout.
  {
    ir::Function f;
    f.name = lc.FreshName("gemm_offset_");
    f.reads_buffers = false;
    std::vector<Val> vars;
    index_params({"g_b", "g_m", "g_n"}, {spec.batch, spec.m, spec.n}, &f.params,
                 &vars);
    BlockBuilder bb(&lc);
    IXA_ASSIGN_OR_RETURN(std::vector<Val> root_index,
                         emitters::HeroToRootIndex(lc, spec.dot, spec.root,
                                                   lc.ApplyAll(out_map, vars)));
    bb.Add(
        ir::Return({ir::Load(lc.OutputBuffer(0), spec.root_type, root_index)}));
    f.results = {spec.root_type};
    f.body = bb.Take();
    names.offset = f.name;
    lc.module().functions.push_back(std::move(f));
  }
  ir::Module module = lc.module();
  IXA_RETURN_IF_ERROR(InlineSingleUseFunctions(&module));
  IXA_RETURN_IF_ERROR(FlattenBuffers(&module, ctx));
  IXA_RETURN_IF_ERROR(Cleanup(&module, ctx));
  IXA_RETURN_IF_ERROR(LegalizeTypes(&module, ctx));
  // The offset function returns the flat offset of its load.
  for (ir::Function& f : module.functions) {
    if (f.name != names.offset) continue;
    ir::Stmt& ret = f.body.back();
    if (ret.kind != ir::StmtKind::kReturn || ret.args.size() != 1 ||
        ret.args[0]->kind != ir::NodeKind::kLoad || !ret.args[0]->flat) {
      return Error::Unsupported("emit: the GEMM output offset is no flat load");
    }
    ret.args[0] = ret.args[0]->operands[0];
    f.results = {Type::kIndex};
  }
  const ir::Buffer& out_buffer = module.buffers[lc.OutputBuffer(0)];
  if (out_buffer.physical_elements != out_buffer.shape.ElementCount()) {
    return Error::Unsupported("emit: a GEMM output with padding");
  }
  EmitResult result;
  result.kernel = options.kernel_name;
  result.plan = plan;
  result.emitter = "gemm";
  LaunchDimensions& launch = result.plan.launch;
  launch.threads = {spec.threads(), 1, 1};
  launch.blocks = {(spec.n + spec.block_n - 1) / spec.block_n,
                   (spec.m + spec.block_m - 1) / spec.block_m, spec.batch};
  launch.shared_memory_bytes = spec.shared_bytes();
  launch.unroll = 1;
  launch.vector_size = 1;
  std::ostringstream header;
  header << "Generated by ixa emit (target cuda, stage final)\n"
         << "fusion " << region.computation->name() << ", emitter gemm ("
         << (spec.tf32          ? "tensor cores, TF32 WMMA 16x16x8"
             : spec.tensor_core ? "tensor cores, WMMA 16x16x16"
                                : "FMA")
         << "), dot " << spec.dot->name << ": batch " << spec.batch << ", m "
         << spec.m << ", n " << spec.n << ", k " << spec.k << "\n"
         << "tile " << spec.block_m << " x " << spec.block_n << " x "
         << spec.block_k << ", launch: threads (" << launch.threads[0]
         << ", 1, 1), blocks (" << launch.blocks[0] << ", " << launch.blocks[1]
         << ", " << launch.blocks[2] << "), shared memory "
         << launch.shared_memory_bytes << " bytes\n";
  PrintOptions print;
  print.target = Target::kCuda;
  print.header = header.str();
  IXA_ASSIGN_OR_RETURN(std::string functions, PrintC(module, print));
  IXA_ASSIGN_OR_RETURN(
      result.code,
      PrintCudaGemm(spec, module, names, functions, options.kernel_name));
  if (options.stages) result.stages.push_back({"final", result.code});
  int index = 0;
  for (const ir::Buffer& b : module.buffers) {
    if (b.space != ir::BufferSpace::kGlobal) continue;
    EmittedBuffer e;
    e.index = index++;
    e.is_output = b.is_output;
    e.allocation_bytes = b.physical_elements * ir::StorageBytes(b.type);
    e.shape = b.shape.ToStringWithLayout();
    e.name = b.is_output ? region.root->name
                         : region.parameters[b.hlo_parameter]->name;
    result.buffers.push_back(std::move(e));
  }
  return result;
}

}  // namespace ixa::emit
