// The MLIR 14 side of compare_peers (see mlir_peer.h). The calls are those
// of the peers' MLIR harness (mlir_bench.cpp), whose results they published;
// only the loop structure differs (one item per call).
#include "tools/bench/mlir_peer.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "mlir/Dialect/Affine/Analysis/AffineStructures.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser.h"

namespace mlir_peer {
namespace {

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

mlir::AffineMap ParseMap(const std::string& text, mlir::MLIRContext* ctx) {
  mlir::Attribute a = mlir::parseAttribute(text, ctx);
  if (!a || !a.isa<mlir::AffineMapAttr>()) return mlir::AffineMap();
  return a.cast<mlir::AffineMapAttr>().getValue();
}

class MlirRunner : public Runner {
 public:
  MlirRunner(int workload, std::vector<std::vector<std::string>> rows)
      : workload_(workload),
        rows_(std::move(rows)),
        answers_(rows_.size(), -1) {}

  size_t size() const override { return rows_.size(); }

  void NewContext() override {
    ctx_ = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    // As mlir_bench: one-time context initialisation is not charged to the
    // first item.
    (void)mlir::parseAttribute("affine_map<(d0) -> (d0)>", ctx_.get());
  }

  bool RunItem(size_t i) override {
    const std::vector<std::string>& row = rows_[i];
    switch (workload_) {
      case 1: {
        mlir::AffineMap m = ParseMap(row[1], ctx_.get());
        if (!m) return false;
        sink_ += simplifyAffineMap(m).getNumResults();
        return true;
      }
      case 2: {
        int k = std::stoi(row[1]);
        mlir::AffineMap c = ParseMap(row[2], ctx_.get());
        if (!c) return false;
        for (int j = 1; j < k; ++j) {
          mlir::AffineMap m = ParseMap(row[2 + j], ctx_.get());
          if (!m) return false;
          c = m.compose(c);
        }
        sink_ += simplifyAffineMap(c).getNumResults();
        return true;
      }
      default: {
        mlir::Attribute a = mlir::parseAttribute(row[1], ctx_.get());
        if (!a || !a.isa<mlir::IntegerSetAttr>()) return false;
        mlir::FlatAffineConstraints fac(
            a.cast<mlir::IntegerSetAttr>().getValue());
        answers_[i] = fac.isIntegerEmpty() ? 1 : 0;
        return true;
      }
    }
  }

  int CorrectAnswers() const override {
    if (workload_ != 3) return -1;
    int correct = 0;
    for (size_t i = 0; i < rows_.size(); ++i) {
      correct += answers_[i] == std::stoi(rows_[i][2]);
    }
    return correct;
  }

 private:
  int workload_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> answers_;
  std::unique_ptr<mlir::MLIRContext> ctx_;
  size_t sink_ = 0;
};

}  // namespace

std::unique_ptr<Runner> MakeRunner(int workload, const std::string& data_dir) {
  std::string path = data_dir + "/mlir_w" + std::to_string(workload) + ".tsv";
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return nullptr;
  }
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(SplitTabs(line));
  }
  return std::make_unique<MlirRunner>(workload, std::move(rows));
}

}  // namespace mlir_peer
