// Multi-output loop fusions whose roots share subexpressions (each root
// reads the ones before it): a function per root recomputes the roots it
// reads once per path to them, which the compiler's inliner multiplies
// into exponentially many copies (nvcc's front end grew past 20 GB on 46
// outputs). Their roots must be computed once per index.
#ifndef IXA_TESTS_EMIT_EMIT_MANY_OUTPUTS_H_
#define IXA_TESTS_EMIT_EMIT_MANY_OUTPUTS_H_

#include <string>
#include <vector>

namespace ixa::emit_test {

namespace internal {
inline std::string ManyOutputsModule(const std::string& shape,
                                     const std::vector<std::string>& lines,
                                     const std::vector<std::string>& roots) {
  std::string tuple = "(", names;
  for (size_t i = 0; i < roots.size(); ++i) {
    tuple += (i ? ", " : "") + shape;
    names += (i ? ", " : "") + roots[i];
  }
  tuple += ")";
  std::string text = "HloModule many_outputs\nfused {\n  p0 = " + shape +
                     " parameter(0)\n  p1 = " + shape + " parameter(1)\n";
  for (const std::string& l : lines) text += "  " + l + "\n";
  text += "  ROOT t = " + tuple + " tuple(" + names + ")\n}\n";
  text += "ENTRY main {\n  q0 = " + shape + " parameter(0)\n  q1 = " + shape +
          " parameter(1)\n  ROOT f = " + tuple +
          " fusion(q0, q1), kind=kLoop, calls=fused\n}\n";
  return text;
}
}  // namespace internal

// 2 * levels outputs: b_i = a_{i-1} * p1, a_i = a_{i-1} + b_i (a_{-1} = p0),
// every a_i and b_i a root. Two roots read each a_i: a function per root
// computes a_0 2^levels times.
inline std::string ManyOutputsDiamond(int levels, const std::string& type,
                                      const std::string& dims = "1024") {
  const std::string shape = type + "[" + dims + "]";
  std::vector<std::string> lines, roots;
  std::string prev = "p0";
  for (int i = 0; i < levels; ++i) {
    std::string a = "a" + std::to_string(i), b = "b" + std::to_string(i);
    lines.push_back(b + " = " + shape + " multiply(" + prev + ", p1)");
    lines.push_back(a + " = " + shape + " add(" + prev + ", " + b + ")");
    roots.push_back(a);
    roots.push_back(b);
    prev = a;
  }
  return internal::ManyOutputsModule(shape, lines, roots);
}

// `outputs` roots, each the op of the previous root and p1.
inline std::string ManyOutputsChain(int outputs, const std::string& type,
                                    const std::string& dims = "1024") {
  const std::string shape = type + "[" + dims + "]";
  static const char* kOps[] = {"add", "multiply", "subtract", "maximum"};
  std::vector<std::string> lines, roots;
  std::string prev = "p0";
  for (int i = 0; i < outputs; ++i) {
    std::string a = "a" + std::to_string(i);
    lines.push_back(a + " = " + shape + " " + kOps[i % 4] + "(" + prev +
                    ", p1)");
    roots.push_back(a);
    prev = a;
  }
  return internal::ManyOutputsModule(shape, lines, roots);
}

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_MANY_OUTPUTS_H_
