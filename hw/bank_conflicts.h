// Exact shared-memory bank conflicts of a warp-wide access
// (docs/hw-reference.md, "Shared-memory banks"): the wavefronts of every
// warp access of a kernel's shared-memory read or write, over all warps of
// the block and all loop iterations, by enumeration where the instances
// fit a budget and by a proof of periodicity where they do not (never by
// sampling).
//
// The bank model: `banks` banks of `bank_bytes` bytes; byte address a lies
// in bank (a / bank_bytes) mod banks. A warp access of w bytes per lane is
// served in phases of banks * bank_bytes / w lanes (w <= bank_bytes: one
// phase), lanes grouped in order; within a phase lanes reading the same
// word are served together (broadcast) and the phase takes as many
// wavefronts as the largest number of distinct words any bank is asked
// for. A w-byte access touches its w / bank_bytes consecutive words.
#ifndef IXA_HW_BANK_CONFLICTS_H_
#define IXA_HW_BANK_CONFLICTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/device.h"

namespace ixa::hw {

struct BankModel {
  int64_t banks = 32;
  int64_t bank_bytes = 4;
  int64_t warp_size = 32;
};

// The device's banks and warp; invalid_argument where it has no banked
// shared memory.
Result<BankModel> BankModelOf(const Device& device);

// A shared-memory access: `map` (dims)[symbols] -> (byte address of the
// lane's first element). Dim `thread_dim` is the thread id in the block
// (warps are its runs of warp_size consecutive ids); every other dim and
// every symbol is a loop variable: each value in its bounds is another
// warp access. The map's constraints switch lanes off. Each lane moves
// vector_width consecutive elements of element_bytes bytes; their total
// (the access width) must be 1, 2, 4, 8 or 16 bytes and every address a
// multiple of it.
struct SharedAccess {
  IndexingMap map;
  int thread_dim = 0;
  int64_t element_bytes = 4;
  int64_t vector_width = 1;
};

struct BankConflictOptions {
  // Lane evaluations allowed (after the periodicity reduction).
  int64_t budget = int64_t{1} << 22;
  // Off: enumerate every instance (the tests compare both paths).
  bool use_periodicity = true;
};

// How the instances of one variable were reduced: `period` consecutive
// values repeat the same wavefronts (the address moves by `shift` bytes,
// a multiple of the bank word and of the access width, and the active
// lanes stay the same), so only the first period is evaluated. The warp
// axis counts warps; period == size means no reduction.
struct VariablePeriod {
  std::string name;  // "warp" or the variable's name
  int64_t size = 0;
  int64_t period = 0;
  int64_t shift = 0;  // bytes per period
};

struct BankLaneWord {
  int64_t lane = 0;
  int64_t word = 0;  // byte address / bank_bytes
};

// One conflict: in warp `warp` at loop point `loop_values` (the non-thread
// dims, then the symbols, in the map's order), phase `phase` asks bank
// `bank` for `lanes.size()` distinct words (one lane listed per word).
struct BankCounterexample {
  int64_t warp = 0;
  std::vector<std::string> loop_names;
  std::vector<int64_t> loop_values;
  int64_t phase = 0;
  int64_t bank = 0;
  int64_t wavefronts = 0;  // of this warp access
  std::vector<BankLaneWord> lanes;
};

struct BankConflictReport {
  int64_t access_bytes = 0;
  int64_t phases = 1;     // phases of a full warp access
  int64_t instances = 0;  // warp accesses with at least one active lane
  int64_t worst = 0;      // wavefronts of the costliest warp access
  int64_t total_wavefronts = 0;
  int64_t ideal_wavefronts = 0;  // one per phase with an active lane
  double average = 0;            // total_wavefronts / instances
  bool conflict_free = true;     // total == ideal
  bool periodic = false;         // some variable was reduced
  int64_t evaluated_lanes = 0;
  std::vector<VariablePeriod> periods;
  // The first warp access (in enumeration order) with the most extra
  // wavefronts, at its worst phase and bank; none when conflict-free.
  std::optional<BankCounterexample> counterexample;
};

Result<BankConflictReport> AnalyzeBankConflicts(
    const SharedAccess& access, const BankModel& model,
    const BankConflictOptions& options = {});

// The wavefronts of one warp access: lane i's byte address addresses[i]
// (std::nullopt: inactive). Addresses must be non-negative multiples of
// access_bytes (a power of two, 1 to 16). When `worst` is given it
// receives the phase and bank with the most distinct words and the lanes
// asking for them.
struct BankPhaseWorst {
  int64_t phase = 0, bank = 0, words = 0;
  std::vector<BankLaneWord> lanes;
};
int64_t WarpWavefronts(std::span<const std::optional<int64_t>> addresses,
                       int64_t access_bytes, const BankModel& model,
                       BankPhaseWorst* worst = nullptr);

// Phases of a full warp for an access width (1 for widths up to a bank word).
int64_t PhasesOf(int64_t access_bytes, const BankModel& model);
// Lanes served together in one phase (the whole warp for narrow accesses).
int64_t LanesPerPhase(int64_t access_bytes, const BankModel& model);

}  // namespace ixa::hw

#endif  // IXA_HW_BANK_CONFLICTS_H_
