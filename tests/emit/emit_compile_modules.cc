#include "tests/emit/emit_compile_modules.h"

#include <random>

namespace ixa::emit_test {
namespace {

const char kProgramReducers[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

// Layer norm, two-head attention with softmax, an MLP with GELU, both
// residuals.
const char kTransformerBlock[] = R"(
ENTRY block {
  x = f32[8,16] parameter(0)
  wq = f32[16,16] parameter(1)
  wk = f32[16,16] parameter(2)
  wv = f32[16,16] parameter(3)
  w1 = f32[16,32] parameter(4)
  w2 = f32[32,16] parameter(5)
  gamma = f32[16] parameter(6)
  beta = f32[16] parameter(7)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  sum = f32[8] reduce(x, zero), dimensions={1}, to_apply=add
  n = f32[] constant(16)
  nb = f32[8] broadcast(n), dimensions={}
  mean = f32[8] divide(sum, nb)
  meanb = f32[8,16] broadcast(mean), dimensions={0}
  xc = f32[8,16] subtract(x, meanb)
  sq = f32[8,16] multiply(xc, xc)
  vs = f32[8] reduce(sq, zero), dimensions={1}, to_apply=add
  var = f32[8] divide(vs, nb)
  eps = f32[] constant(1e-05)
  epsb = f32[8] broadcast(eps), dimensions={}
  ve = f32[8] add(var, epsb)
  rs = f32[8] rsqrt(ve)
  rsb = f32[8,16] broadcast(rs), dimensions={0}
  xn = f32[8,16] multiply(xc, rsb)
  gb = f32[8,16] broadcast(gamma), dimensions={1}
  bb = f32[8,16] broadcast(beta), dimensions={1}
  xg = f32[8,16] multiply(xn, gb)
  ln = f32[8,16] add(xg, bb)
  q = f32[8,16] dot(ln, wq), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  k = f32[8,16] dot(ln, wk), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  v = f32[8,16] dot(ln, wv), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  qh = f32[8,2,8] reshape(q)
  kh = f32[8,2,8] reshape(k)
  vh = f32[8,2,8] reshape(v)
  s = f32[2,8,8] dot(qh, kh), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}
  scale = f32[] constant(0.35355339)
  scb = f32[2,8,8] broadcast(scale), dimensions={}
  ss = f32[2,8,8] multiply(s, scb)
  m = f32[2,8] reduce(ss, ninf), dimensions={2}, to_apply=max
  mb = f32[2,8,8] broadcast(m), dimensions={0,1}
  sm = f32[2,8,8] subtract(ss, mb)
  e = f32[2,8,8] exponential(sm)
  es = f32[2,8] reduce(e, zero), dimensions={2}, to_apply=add
  esb = f32[2,8,8] broadcast(es), dimensions={0,1}
  p = f32[2,8,8] divide(e, esb)
  o = f32[2,8,8] dot(p, vh), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={0}
  ot = f32[8,2,8] transpose(o), dimensions={1,0,2}
  att = f32[8,16] reshape(ot)
  r1 = f32[8,16] add(x, att)
  h = f32[8,32] dot(r1, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h2 = f32[8,32] multiply(h, h)
  h3 = f32[8,32] multiply(h2, h)
  c1 = f32[] constant(0.044715)
  c1b = f32[8,32] broadcast(c1), dimensions={}
  t1 = f32[8,32] multiply(c1b, h3)
  inner = f32[8,32] add(h, t1)
  c2 = f32[] constant(0.7978845608)
  c2b = f32[8,32] broadcast(c2), dimensions={}
  t2 = f32[8,32] multiply(c2b, inner)
  th = f32[8,32] tanh(t2)
  one = f32[] constant(1)
  oneb = f32[8,32] broadcast(one), dimensions={}
  t3 = f32[8,32] add(oneb, th)
  half = f32[] constant(0.5)
  halfb = f32[8,32] broadcast(half), dimensions={}
  t4 = f32[8,32] multiply(halfb, h)
  g = f32[8,32] multiply(t4, t3)
  y = f32[8,16] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT out = f32[8,16] add(r1, y)
}
)";

// Convolution, bias, ReLU, a strided depthwise convolution, max pooling.
const char kConvBlock[] = R"(
ENTRY conv {
  x = f32[2,8,8,3] parameter(0)
  k1 = f32[3,3,3,4] parameter(1)
  b1 = f32[4] parameter(2)
  k2 = f32[3,3,1,4] parameter(3)
  c1 = f32[2,8,8,4] convolution(x, k1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,8,8,4] broadcast(b1), dimensions={3}
  a1 = f32[2,8,8,4] add(c1, bb)
  zero = f32[] constant(0)
  zb = f32[2,8,8,4] broadcast(zero), dimensions={}
  r1 = f32[2,8,8,4] maximum(a1, zb)
  c2 = f32[2,4,4,4] convolution(r1, k2), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=4
  ninf = f32[] constant(-inf)
  pool = f32[2,2,2,4] reduce-window(c2, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max
  ROOT t = (f32[2,2,2,4], f32[2,8,8,4]) tuple(pool, r1)
}
)";

// A residual convolution block as a framework writes it after XLA's
// batch-norm expansion: two 3x3 convolutions, each with batch-norm
// inference (mean, variance, scale and offset per feature), ReLU, the
// residual, average pooling through reduce-window, a global average pool
// and a dense layer.
const char kResidualConvBlock[] = R"(
ENTRY residual {
  x = f32[2,6,6,4] parameter(0)
  k1 = f32[3,3,4,4] parameter(1)
  k2 = f32[3,3,4,4] parameter(2)
  bias = f32[4] parameter(3)
  scale = f32[4] parameter(4)
  offset = f32[4] parameter(5)
  mean = f32[4] parameter(6)
  spread = f32[4] parameter(7)
  w = f32[4,3] parameter(8)
  zero = f32[] constant(0)
  zb = f32[2,6,6,4] broadcast(zero), dimensions={}
  var = f32[4] multiply(spread, spread)
  eps = f32[] constant(0.001)
  epsb = f32[4] broadcast(eps), dimensions={}
  ve = f32[4] add(var, epsb)
  rs = f32[4] rsqrt(ve)
  factor = f32[4] multiply(rs, scale)
  fb = f32[2,6,6,4] broadcast(factor), dimensions={3}
  mb = f32[2,6,6,4] broadcast(mean), dimensions={3}
  ob = f32[2,6,6,4] broadcast(offset), dimensions={3}
  c1 = f32[2,6,6,4] convolution(x, k1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,6,6,4] broadcast(bias), dimensions={3}
  a1 = f32[2,6,6,4] add(c1, bb)
  n1 = f32[2,6,6,4] subtract(a1, mb)
  m1 = f32[2,6,6,4] multiply(n1, fb)
  bn1 = f32[2,6,6,4] add(m1, ob)
  r1 = f32[2,6,6,4] maximum(bn1, zb)
  c2 = f32[2,6,6,4] convolution(r1, k2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  n2 = f32[2,6,6,4] subtract(c2, mb)
  m2 = f32[2,6,6,4] multiply(n2, fb)
  bn2 = f32[2,6,6,4] add(m2, ob)
  res = f32[2,6,6,4] add(bn2, x)
  r2 = f32[2,6,6,4] maximum(res, zb)
  ps = f32[2,3,3,4] reduce-window(r2, zero), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=add
  four = f32[] constant(4)
  fourb = f32[2,3,3,4] broadcast(four), dimensions={}
  pool = f32[2,3,3,4] divide(ps, fourb)
  gs = f32[2,4] reduce(pool, zero), dimensions={1,2}, to_apply=add
  nine = f32[] constant(9)
  nineb = f32[2,4] broadcast(nine), dimensions={}
  gap = f32[2,4] divide(gs, nineb)
  logits = f32[2,3] dot(gap, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2,3,3,4], f32[2,3]) tuple(pool, logits)
}
)";

// Convolution variants: NCHW, dilations, reversal, batch groups.
const char kConvVariants[] = R"(
ENTRY variants {
  x = f32[2,3,7,6] parameter(0)
  k = f32[4,3,3,2] parameter(1)
  y = f32[4,5,5,2] parameter(2)
  ky = f32[3,3,2,4] parameter(3)
  a = f32[2,4,7,5] convolution(x, k), window={size=3x2 pad=2_2x0_0 rhs_dilate=2x1}, dim_labels=bf01_oi01->bf01
  b = f32[2,4,13,11] convolution(x, k), window={size=3x2 pad=1_1x0_1 lhs_dilate=2x2 rhs_reversal=1x0}, dim_labels=bf01_oi01->bf01
  c = f32[2,3,3,4] convolution(y, ky), window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2
  ROOT t = (f32[2,4,7,5], f32[2,4,13,11], f32[2,3,3,4]) tuple(a, b, c)
}
)";

const char kWhileLoop[] = R"(
cond {
  s = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(i, five), direction=LT
}
body {
  s = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4,8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  half = f32[] constant(0.5)
  hb = f32[4,8] broadcast(half), dimensions={}
  xh = f32[4,8] multiply(x, hb)
  c = f32[] constant(1)
  cb = f32[4,8] broadcast(c), dimensions={}
  x1 = f32[4,8] add(xh, cb)
  ROOT t = (s32[], f32[4,8]) tuple(i1, x1)
}
ENTRY loop {
  x = f32[4,8] parameter(0)
  w = f32[8,8] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4,8]) tuple(zero, x)
  l = (s32[], f32[4,8]) while(init), condition=cond, body=body
  r = f32[4,8] get-tuple-element(l), index=1
  n = s32[] get-tuple-element(l), index=0
  d = f32[4,8] dot(r, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[4,8], s32[]) tuple(d, n)
}
)";

const char kConditionals[] = R"(
neg {
  p = f32[6] parameter(0)
  ROOT n = f32[6] negate(p)
}
exp {
  p = f32[6] parameter(0)
  ROOT e = f32[6] exponential(p)
}
sq {
  p = f32[6] parameter(0)
  ROOT s = f32[6] multiply(p, p)
}
twice {
  p = f32[6] parameter(0)
  q = f32[6] parameter(1)
  a = f32[6] add(p, q)
  ROOT t = (f32[6], f32[6]) tuple(a, p)
}
ENTRY cond {
  x = f32[6] parameter(0)
  i = s32[] parameter(1)
  zero = f32[] constant(0)
  s = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  pos = pred[] compare(s, zero), direction=GT
  a = f32[6] conditional(pos, x, x), true_computation=exp, false_computation=neg
  b = f32[6] conditional(i, x, x, x), branch_computations={neg, exp, sq}
  c = (f32[6], f32[6]) call(a, b), to_apply=twice
  c0 = f32[6] get-tuple-element(c), index=0
  ROOT t = (f32[6], f32[6], f32[6]) tuple(a, b, c0)
}
)";

const char kSorts[] = R"(
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
gt_kv {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY sorts {
  x = f32[4,10] parameter(0)
  k = s32[12] parameter(1)
  v = f32[12] parameter(2)
  s = f32[4,10] sort(x), dimensions={1}, to_apply=lt
  kv = (s32[12], f32[12]) sort(k, v), dimensions={0}, is_stable=true, to_apply=gt_kv
  ks = s32[12] get-tuple-element(kv), index=0
  vs = f32[12] get-tuple-element(kv), index=1
  ROOT t = (f32[4,10], s32[12], f32[12]) tuple(s, ks, vs)
}
)";

const char kGemmsAndLayouts[] = R"(
ENTRY gemms {
  a = f32[4,6] parameter(0)
  b = f32[6,5] parameter(1)
  h = bf16[3,4,8] parameter(2)
  j = bf16[3,8,2] parameter(3)
  p = s8[5,7] parameter(4)
  q = s8[7,3] parameter(5)
  t = f32[6,4]{0,1} parameter(6)
  g = (f32[4,5], s8[0]) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  g0 = f32[4,5] get-tuple-element(g), index=0
  hb = f32[3,4,2] dot(h, j), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  pq = s32[5,3] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tt = f32[4,5]{0,1} dot(t, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  cp = f32[4,5] copy(tt)
  ROOT r = (f32[4,5], f32[3,4,2], s32[5,3], f32[4,5]) tuple(g0, hb, pq, cp)
}
)";

// cuBLAS GEMM calls past the plain dot: alpha, beta with the output-aliased
// C, batch dims, transposed operands, 16-bit inputs with f32 results, and
// each cuBLASLt epilogue (bias, relu, gelu, silu, with and without the
// bias, gelu with its auxiliary output), some with bf16 results, and one
// past a single tile of the cuda target's GEMM kernel.
const char kGemmCalls[] = R"(
ENTRY gemm_calls {
  a = f32[4,6] parameter(0)
  b = f32[6,5] parameter(1)
  c = f32[4,5] parameter(2)
  at = f32[6,4] parameter(3)
  bt = f32[5,6] parameter(4)
  x = f32[2,4,6] parameter(5)
  y = f32[2,6,5] parameter(6)
  h = bf16[4,6] parameter(7)
  k = bf16[6,5] parameter(8)
  hf = f16[4,6] parameter(9)
  kf = f16[6,5] parameter(10)
  bias = f32[5] parameter(11)
  hc = bf16[4,5] parameter(12)
  hb = bf16[5] parameter(13)
  scaled = (f32[4,5], s8[16]) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":0.5,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  scaled0 = f32[4,5] get-tuple-element(scaled), index=0
  accumulated = (f32[4,5], s8[16]) custom-call(a, b, c), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":2,"alpha_imag":0,"beta":0.75,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}, output_to_operand_aliasing={{0}: (2, {})}
  accumulated0 = f32[4,5] get-tuple-element(accumulated), index=0
  batched = (f32[2,4,5], s8[16]) custom-call(x, y), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":-1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]}}}
  batched0 = f32[2,4,5] get-tuple-element(batched), index=0
  transposed = (f32[4,5], s8[16]) custom-call(at, bt, c), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["0"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}, output_to_operand_aliasing={{0}: (2, {})}
  transposed0 = f32[4,5] get-tuple-element(transposed), index=0
  from_bf16 = (f32[4,5], s8[16]) custom-call(h, k), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1.5,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT"}}
  from_bf160 = f32[4,5] get-tuple-element(from_bf16), index=0
  from_f16 = (f32[4,5], s8[16]) custom-call(hf, kf, c), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":-0.5,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}, output_to_operand_aliasing={{0}: (2, {})}
  from_f160 = f32[4,5] get-tuple-element(from_f16), index=0
  with_bias = (f32[4,5], s8[16]) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS"}}
  with_bias0 = f32[4,5] get-tuple-element(with_bias), index=0
  with_relu = (f32[4,5], s8[16]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"RELU"}}
  with_relu0 = f32[4,5] get-tuple-element(with_relu), index=0
  with_bias_relu = (f32[4,5], s8[16]) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_RELU"}}
  with_bias_relu0 = f32[4,5] get-tuple-element(with_bias_relu), index=0
  with_gelu = (f32[4,5], s8[16]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"GELU"}}
  with_gelu0 = f32[4,5] get-tuple-element(with_gelu), index=0
  with_bias_gelu = (f32[4,5], s8[16]) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_GELU"}}
  with_bias_gelu0 = f32[4,5] get-tuple-element(with_bias_gelu), index=0
  with_silu = (f32[4,5], s8[16]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"SILU"}}
  with_silu0 = f32[4,5] get-tuple-element(with_silu), index=0
  with_bias_silu = (f32[4,5], s8[16]) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_SILU"}}
  with_bias_silu0 = f32[4,5] get-tuple-element(with_bias_silu), index=0
  to_bf16 = (bf16[4,5], s8[16]) custom-call(h, k, hc, hb), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":0.5,"alpha_imag":0,"beta":2,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_GELU"}}, output_to_operand_aliasing={{0}: (2, {})}
  to_bf160 = bf16[4,5] get-tuple-element(to_bf16), index=0
  gelu_aux = (f32[4,5], f32[4,5], s8[16]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"GELU_AUX"}}
  gelu_aux0 = f32[4,5] get-tuple-element(gelu_aux), index=0
  gelu_aux1 = f32[4,5] get-tuple-element(gelu_aux), index=1
  bias_gelu_aux = (bf16[4,5], bf16[4,5], s8[16]) custom-call(h, k, hb), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_GELU_AUX"}}
  bias_gelu_aux0 = bf16[4,5] get-tuple-element(bias_gelu_aux), index=0
  bias_gelu_aux1 = bf16[4,5] get-tuple-element(bias_gelu_aux), index=1
  wa = bf16[72,40] parameter(14)
  wb = bf16[40,136] parameter(15)
  wc = f32[72,136] parameter(16)
  wv = f32[136] parameter(17)
  wide = (f32[72,136], s8[16]) custom-call(wa, wb, wc, wv), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":0.5,"alpha_imag":0,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_RELU"}}, output_to_operand_aliasing={{0}: (2, {})}
  wide0 = f32[72,136] get-tuple-element(wide), index=0
  ROOT r = (f32[4,5], f32[4,5], f32[2,4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], f32[4,5], bf16[4,5], f32[4,5], f32[4,5], bf16[4,5], bf16[4,5], f32[72,136]) tuple(scaled0, accumulated0, batched0, transposed0, from_bf160, from_f160, with_bias0, with_relu0, with_bias_relu0, with_gelu0, with_bias_gelu0, with_silu0, with_bias_silu0, to_bf160, gelu_aux0, gelu_aux1, bias_gelu_aux0, bias_gelu_aux1, wide0)
}
)";

// Forward cuDNN convolution calls: the plain convolution, and the fused
// one with each activation, scales, a side input and a bias; an NHWC one
// in f16, strided and grouped.
const char kConvCalls[] = R"(
ENTRY conv_calls {
  x = f32[2,3,6,5] parameter(0)
  w = f32[4,3,3,3] parameter(1)
  b = f32[4] parameter(2)
  s = f32[2,4,6,5] parameter(3)
  xh = f16[2,6,6,4] parameter(4)
  wh = f16[3,2,2,4] parameter(5)
  bh = f16[4] parameter(6)
  plain = (f32[2,4,6,5], u8[0]) custom-call(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, custom_call_target="__cudnn$convForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  plain0 = f32[2,4,6,5] get-tuple-element(plain), index=0
  act_none = (f32[2,4,6,5], u8[16]) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  act_none0 = f32[2,4,6,5] get-tuple-element(act_none), index=0
  act_relu = (f32[2,4,6,5], u8[16]) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  act_relu0 = f32[2,4,6,5] get-tuple-element(act_relu), index=0
  act_relu6 = (f32[2,4,6,5], u8[16]) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu6","conv_result_scale":2,"side_input_scale":0,"leakyrelu_alpha":0}}
  act_relu60 = f32[2,4,6,5] get-tuple-element(act_relu6), index=0
  act_elu = (f32[2,4,6,5], u8[16]) custom-call(x, w, b, s), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kElu","conv_result_scale":0.5,"side_input_scale":2,"leakyrelu_alpha":0}}
  act_elu0 = f32[2,4,6,5] get-tuple-element(act_elu), index=0
  act_leakyrelu = (f32[2,4,6,5], u8[16]) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kLeakyRelu","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0.1}}
  act_leakyrelu0 = f32[2,4,6,5] get-tuple-element(act_leakyrelu), index=0
  act_sigmoid = (f32[2,4,6,5], u8[16]) custom-call(x, w, b, s), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kSigmoid","conv_result_scale":1,"side_input_scale":1,"leakyrelu_alpha":0}}
  act_sigmoid0 = f32[2,4,6,5] get-tuple-element(act_sigmoid), index=0
  act_tanh = (f32[2,4,6,5], u8[16]) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kTanh","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  act_tanh0 = f32[2,4,6,5] get-tuple-element(act_tanh), index=0
  act_geluexact = (f32[2,4,6,5], u8[16]) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=1, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kGeluExact","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  act_geluexact0 = f32[2,4,6,5] get-tuple-element(act_geluexact), index=0
  nhwc = (f16[2,3,3,4], u8[0]) custom-call(xh, wh, bh), window={size=3x2 stride=2x2 pad=1_1x0_0}, dim_labels=b01f_01io->b01f, feature_group_count=2, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  nhwc0 = f16[2,3,3,4] get-tuple-element(nhwc), index=0
  ROOT r = (f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f32[2,4,6,5], f16[2,3,3,4]) tuple(plain0, act_none0, act_relu0, act_relu60, act_elu0, act_leakyrelu0, act_sigmoid0, act_tanh0, act_geluexact0, nhwc0)
}
)";

// Fusions as written (a fused module).
const char kFused[] = R"(
fused_ln {
  p0 = f32[16,32] parameter(0)
  p1 = f32[16] parameter(1)
  b = f32[16,32] broadcast(p1), dimensions={0}
  ROOT s = f32[16,32] subtract(p0, b)
}
fused_sum {
  p0 = f32[16,32] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[16] reduce(p0, z), dimensions={1}, to_apply=add
}
ENTRY fused {
  x = f32[16,32] parameter(0)
  r = f32[16] fusion(x), kind=kInput, calls=fused_sum
  y = f32[16,32] fusion(x, r), kind=kLoop, calls=fused_ln
  w = f32[32,8] parameter(1)
  ROOT d = f32[16,8] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

}  // namespace

std::vector<ProgramCase> HandWrittenPrograms() {
  auto with_reducers = [](const char* label, const char* body) {
    return std::string("HloModule ") + label + "\n" + kProgramReducers + body;
  };
  return {
      {"transformer_block", with_reducers("transformer", kTransformerBlock),
       1e-3, 1e-3},
      {"conv_block", with_reducers("conv", kConvBlock), 1e-4, 1e-4},
      {"residual_conv_block", with_reducers("residual", kResidualConvBlock),
       1e-3, 1e-3},
      {"conv_variants", with_reducers("variants", kConvVariants), 1e-4, 1e-4},
      {"while_loop", with_reducers("loop", kWhileLoop), 1e-5, 1e-5},
      {"conditionals", with_reducers("cond", kConditionals), 1e-5, 1e-5},
      {"sorts", with_reducers("sorts", kSorts), 0, 0},
      {"gemms_layouts", with_reducers("gemms", kGemmsAndLayouts), 1e-2, 1e-2},
      {"gemm_calls", with_reducers("gemm_calls", kGemmCalls), 1e-2, 1e-2},
      {"conv_calls", with_reducers("conv_calls", kConvCalls), 1e-2, 1e-2},
      {"fused", with_reducers("fused", kFused), 1e-4, 1e-4},
      {"transformer_block_planned",
       with_reducers("transformer", kTransformerBlock), 1e-3, 1e-3, true},
      {"conv_block_planned", with_reducers("conv", kConvBlock), 1e-4, 1e-4,
       true},
      {"while_loop_planned", with_reducers("loop", kWhileLoop), 1e-5, 1e-5,
       true},
      {"residual_conv_block_planned",
       with_reducers("residual", kResidualConvBlock), 1e-3, 1e-3, true},
      {"conditionals_planned", with_reducers("cond", kConditionals), 1e-5, 1e-5,
       true},
      {"gemm_calls_planned", with_reducers("gemm_calls", kGemmCalls), 1e-2,
       1e-2, true},
      {"conv_calls_planned", with_reducers("conv_calls", kConvCalls), 1e-2,
       1e-2, true},
  };
}

std::vector<ProgramCase> RandomPrograms(int count, uint64_t seed) {
  std::vector<ProgramCase> out;
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  for (int m = 0; m < count; ++m) {
    const int rows = 2 + pick(5), cols = 2 + pick(6);
    const std::string shape =
        "f32[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
    const std::string square =
        "f32[" + std::to_string(cols) + "," + std::to_string(cols) + "]";
    const std::string row = "f32[" + std::to_string(rows) + "]";
    std::string body;  // the entry's instructions after the parameters
    std::vector<std::string> values = {"x", "y"};
    int next = 0;
    auto fresh = [&] { return "v" + std::to_string(next++); };
    auto any = [&] { return values[pick(static_cast<int>(values.size()))]; };
    const int steps = 3 + pick(6);
    for (int s = 0; s < steps; ++s) {
      std::string v = fresh();
      switch (pick(8)) {
        case 0: {
          static const char* kBinary[] = {"add", "multiply", "subtract",
                                          "maximum", "minimum"};
          body += "  " + v + " = " + shape + " " + kBinary[pick(5)] + "(" +
                  any() + ", " + any() + ")\n";
          break;
        }
        case 1: {
          static const char* kUnary[] = {"tanh", "negate", "sine", "abs"};
          body += "  " + v + " = " + shape + " " + kUnary[pick(4)] + "(" +
                  any() + ")\n";
          break;
        }
        case 2: {  // a row reduction broadcast back
          std::string r = fresh();
          body += "  " + r + " = " + row + " reduce(" + any() +
                  ", zero), dimensions={1}, to_apply=add\n";
          body += "  " + v + " = " + shape + " broadcast(" + r +
                  "), dimensions={0}\n";
          break;
        }
        case 3:
          body += "  " + v + " = " + shape + " dot(" + any() +
                  ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
          break;
        case 4: {  // a loop scaling the value a few times
          std::string init = fresh(), loop = fresh();
          body += "  " + init + " = (s32[], " + shape + ") tuple(izero, " +
                  any() + ")\n";
          body += "  " + loop + " = (s32[], " + shape + ") while(" + init +
                  "), condition=cond, body=body\n";
          body += "  " + v + " = " + shape + " get-tuple-element(" + loop +
                  "), index=1\n";
          break;
        }
        case 5: {  // a call of a computation with a tuple result
          std::string c = fresh();
          body += "  " + c + " = (" + shape + ", " + shape + ") call(" + any() +
                  ", " + any() + "), to_apply=callee\n";
          body += "  " + v + " = " + shape + " get-tuple-element(" + c +
                  "), index=" + std::to_string(pick(2)) + "\n";
          break;
        }
        case 6:  // a conditional on an index (out of range: the last)
          body += "  " + v + " = " + shape + " conditional(k, " + any() + ", " +
                  any() + ", " + any() +
                  "), branch_computations={branch_tanh, branch_neg, "
                  "branch_call}\n";
          break;
        default: {  // a conditional on the sign of a sum
          std::string r = fresh(), total = fresh(), p = fresh();
          std::string a = any();
          body += "  " + r + " = " + row + " reduce(" + a +
                  ", zero), dimensions={1}, to_apply=add\n";
          body += "  " + total + " = f32[] reduce(" + r +
                  ", zero), dimensions={0}, to_apply=add\n";
          body += "  " + p + " = pred[] compare(" + total +
                  ", zero), direction=GE\n";
          body += "  " + v + " = " + shape + " conditional(" + p + ", " + a +
                  ", " + any() +
                  "), true_computation=branch_tanh, "
                  "false_computation=branch_neg\n";
          break;
        }
      }
      values.push_back(v);
    }
    std::string hlo =
        "HloModule random" + std::to_string(m) + "\n" + kProgramReducers;
    hlo += "cond {\n  s = (s32[], " + shape +
           ") parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
           "  n = s32[] constant(3)\n"
           "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n";
    hlo += "body {\n  s = (s32[], " + shape +
           ") parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
           "  x = " +
           shape +
           " get-tuple-element(s), index=1\n"
           "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n"
           "  h = f32[] constant(0.75)\n  hb = " +
           shape + " broadcast(h), dimensions={}\n  x1 = " + shape +
           " multiply(x, hb)\n  x2 = " + shape +
           " sine(x1)\n"
           "  ROOT t = (s32[], " +
           shape + ") tuple(i1, x2)\n}\n";
    hlo += "branch_tanh {\n  p = " + shape +
           " parameter(0)\n  ROOT t = " + shape + " tanh(p)\n}\n";
    hlo += "branch_neg {\n  p = " + shape +
           " parameter(0)\n  ROOT n = " + shape + " negate(p)\n}\n";
    hlo += "callee {\n  a = " + shape + " parameter(0)\n  b = " + shape +
           " parameter(1)\n  t = " + shape + " tanh(a)\n  m = " + shape +
           " multiply(t, b)\n  ROOT r = (" + shape + ", " + shape +
           ") tuple(m, a)\n}\n";
    // A branch that calls: control flow nested in control flow.
    hlo += "branch_call {\n  p = " + shape + " parameter(0)\n  c = (" + shape +
           ", " + shape + ") call(p, p), to_apply=callee\n  ROOT g = " + shape +
           " get-tuple-element(c), index=0\n}\n";
    hlo += "ENTRY main {\n  x = " + shape + " parameter(0)\n  y = " + shape +
           " parameter(1)\n  w = " + square +
           " parameter(2)\n  k = s32[] parameter(3)\n"
           "  zero = f32[] constant(0)\n"
           "  izero = s32[] constant(0)\n" +
           body + "  ROOT out = (" + shape + ", " + shape + ") tuple(" +
           values.back() + ", " + values[values.size() / 2] + ")\n}\n";
    out.push_back({"random_" + std::to_string(m), hlo, 1e-3, 1e-3});
  }
  return out;
}

}  // namespace ixa::emit_test
