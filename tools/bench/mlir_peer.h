// The MLIR 14 side of tools/bench/compare_peers: the peers' MLIR harness
// (mlir_bench.cpp in the peers' directory) cut down to one item at a time, so
// that the driver can time ixa and MLIR alternately, item by item. Compiled as
// C++17 against Debian's libmlir-14-dev; this header is plain C++ so that
// the C++20 driver can include it.
#ifndef IXA_TOOLS_BENCH_MLIR_PEER_H_
#define IXA_TOOLS_BENCH_MLIR_PEER_H_

#include <cstddef>
#include <memory>
#include <string>

namespace mlir_peer {

// One workload (1, 2 or 3) of DATA_DIR/mlir_w<k>.tsv, as mlir_bench runs it:
//   W1: parseAttribute(affine_map) -> simplifyAffineMap
//   W2: parse every map of the chain, compose in order, simplifyAffineMap
//   W3: parseAttribute(affine_set) -> FlatAffineConstraints ->
//       isIntegerEmpty
class Runner {
 public:
  virtual ~Runner() = default;
  virtual size_t size() const = 0;
  // A fresh MLIRContext (multithreading off, warmed up by one trivial
  // parse), as mlir_bench makes per repetition; items share it.
  virtual void NewContext() = 0;
  // Runs item i in the current context. Returns false when MLIR failed to
  // parse the item (W3: also records the emptiness answer).
  virtual bool RunItem(size_t i) = 0;
  // W3 only: how many answers of the last RunItem calls match the ground
  // truth (-1 for W1 and W2).
  virtual int CorrectAnswers() const = 0;
};

// Reads DATA_DIR/mlir_w<workload>.tsv; nullptr (with a message on stderr)
// when the file cannot be read.
std::unique_ptr<Runner> MakeRunner(int workload, const std::string& data_dir);

}  // namespace mlir_peer

#endif  // IXA_TOOLS_BENCH_MLIR_PEER_H_
