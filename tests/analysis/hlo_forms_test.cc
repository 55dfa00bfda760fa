// Every syntax form of XLA's HLO text the reader accepts, read with the exact
// structure XLA's parser gives it, and an invalid variant of each rejected
// with its line and column; the reader's limits (call cycles, deep nesting)
// with the exact inputs that once crashed it.
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

// The parse error of `text` (which must fail), with position.
Error ParseFails(const std::string& text) {
  auto m = hlo::ParseHloModule(text);
  INFO(text);
  REQUIRE_FALSE(m.ok());
  return m.error();
}

void ExpectError(const std::string& text, int line, int column,
                 const std::string& message_part) {
  Error e = ParseFails(text);
  INFO(e.ToString());
  CHECK(e.code == ErrorCode::kParseError);
  CHECK(e.line == line);
  CHECK(e.column == column);
  CHECK(e.message.find(message_part) != std::string::npos);
}

std::string ShapeOf(const hlo::Module& m, const std::string& name) {
  const hlo::Instruction* in = m.FindInstruction(name);
  REQUIRE(in);
  return in->shape.ToString();
}

TEST_CASE("forms: shapes inferred the way XLA infers them", "[hlo][forms]") {
  auto m = ParseOrDie(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
neg {
  p = f32[4,6] parameter(0)
  ROOT n = f32[4,6] negate(p)
}
cond {
  s = (s32[], f32[4,6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, i), direction=LT
}
body {
  s = (s32[], f32[4,6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4,6] get-tuple-element(s), index=1
  ROOT t = (s32[], f32[4,6]) tuple(i, v)
}
ENTRY e {
  x = f32[4,6] parameter(0)
  y = f32[6,5] parameter(1)
  i = s32[] parameter(2)
  z = f32[] constant(0)
  t = tuple(x, i)
  g = get-tuple-element(t), index=0
  tok = after-all()
  tr = transpose(x), dimensions={1,0}
  c = call(x), to_apply=neg
  w = while(t), condition=cond, body=body
  k = conditional(i, x, x), branch_computations={neg, neg}
  rw = reduce-window(x, z), window={size=2x3 stride=2x1 pad=0_0x1_1}, to_apply=add
  pd = pad(x, z), padding=1_2_1x0_0
  d = dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = reduce(x, x, z, z), dimensions={1}, to_apply=add
  sl = slice(x), slice={[1:4:2], [0:6]}
  cc = concatenate(x, x), dimensions={0}
  ROOT out = tuple(g, tok, tr, c, w, k, rw, pd, d, r, sl, cc)
})");
  CHECK(ShapeOf(*m, "t") == "(f32[4,6], s32[])");
  CHECK(ShapeOf(*m, "g") == "f32[4,6]");
  CHECK(ShapeOf(*m, "tok") == "token[]");
  CHECK(ShapeOf(*m, "tr") == "f32[6,4]");
  CHECK(ShapeOf(*m, "c") == "f32[4,6]");
  CHECK(ShapeOf(*m, "w") == "(f32[4,6], s32[])");
  CHECK(ShapeOf(*m, "k") == "f32[4,6]");
  CHECK(ShapeOf(*m, "rw") == "f32[2,6]");
  CHECK(ShapeOf(*m, "pd") == "f32[10,6]");
  CHECK(ShapeOf(*m, "d") == "f32[4,5]");
  CHECK(ShapeOf(*m, "r") == "(f32[4], f32[4])");
  CHECK(ShapeOf(*m, "sl") == "f32[2,6]");
  CHECK(ShapeOf(*m, "cc") == "f32[8,6]");
  // Ops XLA cannot infer either need their shape.
  ExpectError(
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT b = broadcast(p), "
      "dimensions={0}\n}",
      3, 8, "expected a shape for 'b'");
}

TEST_CASE("forms: nested operands, inline bodies, attributes after '}'",
          "[hlo][forms]") {
  auto m = ParseOrDie(R"(HloModule m
host {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}, execution_thread="host"
ENTRY e {
  s = f32[] parameter(1)
  ROOT r = f32[8,7] add(f32[8,7] reshape(f32[1,8,1,7] parameter(0)), f32[8,7] broadcast(s))
})");
  const hlo::Computation* host = m->FindComputation("host");
  REQUIRE(host);
  CHECK(host->attributes().at("execution_thread") == "\"host\"");
  const hlo::Instruction* root = m->entry()->root();
  REQUIRE(root->operand_count() == 2);
  CHECK(root->operand(0)->opcode == hlo::Opcode::kReshape);
  CHECK(root->operand(0)->name == "reshape@8:34");
  CHECK(root->operand(0)->operand(0)->opcode == hlo::Opcode::kParameter);
  CHECK(m->entry()->parameter(0)->shape.ToString() == "f32[1,8,1,7]");
  ExprContext ctx;
  auto params =
      ComputeFusionParameterIndexing(RegionOfComputation(*m->entry()), 0, &ctx);
  REQUIRE(params.ok());
  ExpectSameMap(Maps((*params)[0])[0],
                "(d0, d1) -> (0, d0, 0, d1), domain: d0 in [0, 7], "
                "d1 in [0, 6]",
                &ctx);

  auto inl = ParseOrDie(R"(HloModule m
ENTRY e {
  x = bf16[4,8] parameter(0)
  c = bf16[] constant(0)
  ROOT r = bf16[4] reduce(x, c), dimensions={1}, to_apply={
    a = bf16[] parameter(0)
    b = bf16[] parameter(1)
    ROOT s = bf16[] add(a, b)
  }
})");
  const hlo::Computation* body = inl->entry()->root()->called();
  REQUIRE(body);
  CHECK(body->name() == "r:to_apply");
  CHECK(body->root()->opcode == hlo::Opcode::kAdd);
  CHECK(inl->entry() == inl->FindComputation("e"));
  // Nested instructions take no attributes (as in XLA): the ',' goes on
  // to the next operand.
  ExpectError(
      "ENTRY e {\n  ROOT r = f32[2] add(f32[2] parameter(0), "
      "dimensions={0})\n}",
      2, 54, "',' or ')' after an operand");
}

TEST_CASE("forms: shapes (buffers, dynamic dims, blanks, non-layout '{')",
          "[hlo][forms]") {
  auto m = ParseOrDie(R"(HloModule comments:
ENTRY %e (p: f32[16]) -> f32[16]{
  p = b(f32[16]) parameter(0)
  q = f32[?,784] parameter(1)
  r = f32[<=8,784]{1,0} parameter(2)
  s = s32 [5696,10,4] parameter(3)
  ROOT n = f32[16] negate(p)
})");
  CHECK(m->name() == "comments");
  CHECK(ShapeOf(*m, "p") == "f32[16]");
  CHECK(ShapeOf(*m, "q") == "f32[?,784]");
  CHECK(ShapeOf(*m, "r") == "f32[<=8,784]");
  CHECK(ShapeOf(*m, "s") == "s32[5696,10,4]");
  // An unbounded dim ranges over [0, INT64_MAX - 1]; ops that lay indices
  // out (reshape) answer unknown.
  auto dyn = ParseOrDie(R"(
    x = f32[?,784] parameter(0)
    e = f32[?,784] exponential(x)
    ROOT r = f32[?] reshape(e))");
  ExprContext ctx;
  auto e =
      ComputeOutputToInputIndexingPartial(*dyn->FindInstruction("e"), 0, &ctx);
  REQUIRE(e.ok());
  CHECK(PrintIndexingMap(Maps(e->indexing_maps[0])[0]) ==
        "(d0, d1) -> (d0, d1), domain: d0 in [0, 9223372036854775806], d1 in "
        "[0, 783]");
  auto r = ComputeOutputToInputIndexingPartial(*dyn->entry()->root(), 0, &ctx);
  REQUIRE(r.ok());
  CHECK(r->IsUnknown(0));
  CHECK(r->unknown[0].find("unbounded dynamic dimension") != std::string::npos);
  // A nested tuple shape deeper than the limit.
  std::string deep = "ENTRY e {\n  ROOT p = ";
  for (int i = 0; i < 70; ++i) deep += "(";
  deep += "f32[]";
  for (int i = 0; i < 70; ++i) deep += ")";
  deep += " parameter(0)\n}";
  ExpectError(deep, 2, 77, "nested at most 64 tuples deep");
  ExpectError("ENTRY e {\n  ROOT p = b(f32[2] parameter(0)\n}", 2, 21,
              "')' closing the buffer shape");
  ExpectError("ENTRY e {\n  ROOT p = f32[?,-1] parameter(0)\n}", 2, 20,
              "non-negative dimension size");
  ExpectError(
      "ENTRY e {\n  ROOT p = f32[4294967296,4294967296] parameter(0)\n}", 2, 37,
      "product fits in 64 bits");
}

TEST_CASE("forms: replica groups (explicit, iota, transposed iota, mesh)",
          "[hlo][forms]") {
  auto groups = [](const std::string& attr) {
    auto m = ParseOrDie(
        "HloModule m\nadd {\n  a = f32[] parameter(0)\n  ROOT n = f32[] "
        "negate(a)\n}\nENTRY e {\n  p = f32[8] parameter(0)\n  ROOT a = "
        "f32[8] all-reduce(p), replica_groups=" +
        attr + ", to_apply=add\n}");
    return m->entry()->root()->replica_groups;
  };
  using G = std::vector<std::vector<int64_t>>;
  CHECK(groups("{{0,1},{2,3}}") == G{{0, 1}, {2, 3}});
  CHECK(groups("{}") == G{});
  CHECK(groups("[2,4]<=[8]") == G{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(groups("[4,2]<=[2,4]T(1,0)") == G{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  G wide = groups("[64,2]<=[2,64]T(1,0)");
  REQUIRE(wide.size() == 64);
  CHECK(wide[0] == std::vector<int64_t>{0, 64});
  CHECK(wide[63] == std::vector<int64_t>{63, 127});
  CHECK(groups("[4,2]<=[2,2,2]T(2,1,0)") == G{{0, 4}, {2, 6}, {1, 5}, {3, 7}});
  CHECK(groups("mesh['axis_0'=2,'axis_1'=2] {'axis_1'}") == G{{0, 1}, {2, 3}});
  CHECK(groups("mesh['axis_0'=2,'axis_1'=2] {'axis_0'}") == G{{0, 2}, {1, 3}});
  CHECK(groups("mesh['x'=2,'y'=3] {'y','x'}") == G{{0, 3, 1, 4, 2, 5}});
  CHECK(groups("mesh['x'=2,'y'=2] {}") == G{{0}, {1}, {2}, {3}});
  const std::string head =
      "ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT a = f32[8] all-reduce(p), "
      "replica_groups=";
  ExpectError(head + "[3,4]<=[8], to_apply=e\n}", 3, 49, "G*S == 8");
  ExpectError(head + "[4,2]<=[2,4]T(0,0), to_apply=e\n}", 3, 49,
              "not a permutation");
  ExpectError(head + "mesh['x'=2] {'z'}, to_apply=e\n}", 3, 49,
              "unknown mesh axis 'z'");
}

TEST_CASE("forms: operand forms and op attributes", "[hlo][forms]") {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  p0 = (f32[8,4], f32[4]) parameter(0)
  b = f32[8,4] broadcast(%p0#1), dimensions={1}
  ds = f32[2,4] dynamic-slice(f32[8,4] %p0#0, s32[2] parameter(1)), dynamic_slice_sizes={2,4}
  cp = f32[8,4] collective-permute(b), source_target_pairs={{0,1}}, slice_sizes={{128,32},{1,2}}
  cc = f32[8,4] custom-call(b), custom_call_target="k", literal=s32[2] {1, 2}
  bc = u8[8,4,4] bitcast-convert(b)
  ROOT t = (f32[2,4], f32[8,4], f32[8,4], u8[8,4,4]) tuple(ds, cp, cc, bc)
})");
  const hlo::Instruction* b = m->FindInstruction("b");
  CHECK(b->operand(0)->opcode == hlo::Opcode::kGetTupleElement);
  CHECK(b->operand(0)->tuple_index == 1);
  CHECK(b->operand(0)->name == "p0#1");
  CHECK(m->FindInstruction("cp")->slice_sizes_list ==
        std::vector<std::vector<int64_t>>{{128, 32}, {1, 2}});
  CHECK(m->FindInstruction("cc")->Attribute("literal") == "s32[2] {1, 2}");
  const hlo::Instruction* ds = m->FindInstruction("ds");
  CHECK(hlo::OffsetVectorOperand(*ds) == 1);
  ExprContext ctx;
  auto maps = ComputeOutputToInputIndexing(*ds, 0, &ctx);
  REQUIRE(maps.ok());
  const IndexingMap src = Maps(maps->indexing_maps[0])[0];
  ExpectSameMap(src,
                "(d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: d0 in "
                "[0, 1], d1 in [0, 3], rt0 in [0, 6], rt1 in [0, 0]",
                &ctx);
  REQUIRE(src.num_rt_vars() >= 1);
  CHECK(PrintIndexingMap(*src.rt_vars()[0].producer_map) ==
        "(d0, d1) -> (0), domain: d0 in [0, 1], d1 in [0, 3]");
  // bitcast-convert keeps the bits: the narrower side has one more dim.
  ExpectError(
      "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT b = u8[4,2] "
      "bitcast-convert(p)\n}",
      3, 8, "width ratio");
  ExpectError(
      "ENTRY e {\n  p = (f32[2]) parameter(0)\n  ROOT n = f32[2] "
      "negate(%p#x)\n}",
      3, 29, "a tuple index after '#'");
  ExpectError(
      "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT c = f32[2] "
      "custom-call(p), literal=s32[2 {1}\n}",
      3, 49, "',' or ']' in the dimensions");
}

// The broadcast message names the operand's real shape.
TEST_CASE("forms: a broadcast whose operand does not fit names it",
          "[hlo][forms]") {
  Error e = ParseFails(
      "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT b = f32[3] broadcast(p), "
      "dimensions={0}\n}");
  CHECK(e.line == 3);
  CHECK(e.column == 8);
  CHECK(e.message ==
        "shape mismatch: broadcast 'b' of 'p', which is f32[2], cannot give "
        "f32[3] with dimensions={0}: operand dimension 0 is 2 but output "
        "dimension 0 is 3");
}

// A shape mismatch names the shape the operands give, not the
// instruction's own shape again (found with XLA's slice cases).
TEST_CASE("forms: shape mismatches name the shape the operands give",
          "[hlo][forms]") {
  const struct {
    const char* body;
    const char* message;
  } cases[] = {
      {"p = f32[10] parameter(0)\n  ROOT s = f32[4] slice(p), "
       "slice={[1:10:3]}",
       "'s' (slice) is f32[4] but its operands give f32[3]"},
      {"p = f32[4,5] parameter(0)\n  ROOT t = f32[4,5] transpose(p), "
       "dimensions={1,0}",
       "'t' (transpose) is f32[4,5] but its operands give f32[5,4]"},
      {"p = f32[4] parameter(0)\n  q = f32[5] parameter(1)\n  ROOT c = "
       "f32[10] concatenate(p, q), dimensions={0}",
       "'c' (concatenate) is f32[10] but its operands give f32[9]"},
      {"p = f32[4,2] parameter(0)\n  v = f32[] parameter(1)\n  ROOT c = "
       "f32[9,2] pad(p, v), padding=1_2_1x0_0",
       "'c' (pad) is f32[9,2] but its operands give f32[10,2]"},
      {"p = f32[4] parameter(0)\n  o = s32[] parameter(1)\n  ROOT d = "
       "f32[3] dynamic-slice(p, o), dynamic_slice_sizes={2}",
       "'d' (dynamic-slice) is f32[3] but its operands give f32[2]"},
  };
  for (const auto& c : cases) {
    Error e = ParseFails(std::string("ENTRY e {\n  ") + c.body + "\n}");
    CHECK(e.message == std::string("shape mismatch: ") + c.message);
  }
}

TEST_CASE("forms: stack frames, '?' labels, sparse convolution",
          "[hlo][forms]") {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  x = f32[2,9,3,1] parameter(0)
  k = f32[3,3,4] parameter(1)
  ROOT c = f32[2,7,4,1] convolution(x, k), window={size=3}, dim_labels=b0f?_0io->b0f?
}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=1 end_line=1 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
)");
  const hlo::Instruction* c = m->entry()->root();
  REQUIRE(c->conv);
  CHECK(c->conv->has_unlabeled);
  CHECK(c->conv->input_rank == 4);
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexingPartial(*c, 0, &ctx);
  REQUIRE(r.ok());
  CHECK(r->IsUnknown(0));
  CHECK(r->IsUnknown(1));
  ExpectError("ENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\nFileNames\n1 a\n",
              5, 3, "a string or '{' after the table entry id");
  ExpectError("ENTRY e {\n  ROOT p = f32[2] parameter(0)\n}, a=1, a=2\n", 3, 9,
              "attribute 'a' is given twice");
}

// A fusion calling its own computation once sent indexing,
// fusion_indexing and coalescing into endless recursion. Any cycle in the
// call graph is a parse error naming the cycle.
TEST_CASE("limits: call cycles are parse errors", "[hlo][limits]") {
  const std::string self = R"(HloModule m
outer {
  p0 = f32[8] parameter(0)
  ROOT f = f32[8] fusion(p0), kind=kLoop, calls=outer
}
ENTRY e {
  p0 = f32[8] parameter(0)
  ROOT f = f32[8] fusion(p0), kind=kLoop, calls=outer
})";
  ExpectError(self, 4, 8,
              "computations call each other in a cycle: outer -> outer");
  const std::string two = R"(HloModule m
a {
  p = f32[8] parameter(0)
  ROOT c = f32[8] call(p), to_apply=b
}
b {
  p = f32[8] parameter(0)
  ROOT c = f32[8] call(p), to_apply=a
}
ENTRY e {
  p = f32[8] parameter(0)
  ROOT c = f32[8] call(p), to_apply=a
})";
  ExpectError(two, 8, 8, "a -> b -> a");
  ExpectError(R"(HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  ROOT r = f32[] reduce(p, f32[] constant(0)), dimensions={0}, to_apply=e
})",
              4, 8, "e -> e");
}

// A 100,000-level nested tuple shape once segfaulted. Every
// recursive path of the reader now stops at its limit.
TEST_CASE("limits: 100,000-deep input is refused quickly", "[hlo][limits]") {
  const int n = 100000;
  std::string shape = "HloModule m\nENTRY e {\n  ROOT p = ";
  shape += std::string(n, '(') + "f32[]" + std::string(n, ')');
  shape += " parameter(0)\n}";
  ExpectError(shape, 3, 77, "nested at most 64 tuples deep");
  // Nested operands.
  std::string operands = "ENTRY e {\n  ROOT r = ";
  for (int i = 0; i < n; ++i) operands += "f32[2] negate(";
  operands += "f32[2] parameter(0)" + std::string(n, ')') + "\n}";
  Error e = ParseFails(operands);
  CHECK(e.code == ErrorCode::kParseError);
  CHECK(e.message.find("operands nest deeper than 64") != std::string::npos);
  // Inline computations.
  std::string inl = "ENTRY e {\n  p = f32[] parameter(0)\n";
  for (int i = 0; i < 40; ++i) {
    inl += "  ROOT r" + std::to_string(i) +
           " = f32[] call(p), to_apply={\n  p = f32[] parameter(0)\n";
  }
  inl += "  ROOT x = f32[] negate(p)\n" + std::string(40, '}') + "\n}";
  e = ParseFails(inl);
  CHECK(e.message.find("inline computations nest deeper") != std::string::npos);
  // Attribute values nested 100,000 braces deep read without recursion.
  std::string attr = "ENTRY e {\n  ROOT p = f32[2] parameter(0), metadata=" +
                     std::string(n, '{') + std::string(n, '}') + "\n}";
  auto m = hlo::ParseHloModule(attr);
  CHECK(m.ok());
  // A chain of calls deeper than the limit.
  std::string chain = "HloModule m\n";
  for (int i = 0; i < 100; ++i) {
    chain += "c" + std::to_string(i) + " {\n  p = f32[] parameter(0)\n";
    chain += i == 0 ? "  ROOT r = f32[] negate(p)\n"
                    : "  ROOT r = f32[] call(p), to_apply=c" +
                          std::to_string(i - 1) + "\n";
    chain += "}\n";
  }
  chain +=
      "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), "
      "to_apply=c99\n}";
  e = ParseFails(chain);
  CHECK(e.message.find("call each other deeper than 64") != std::string::npos);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
